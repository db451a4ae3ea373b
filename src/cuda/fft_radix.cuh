/*
 * fft_radix.cuh - complex arithmetic and the in-register DFTs of size 2, 4,
 * 8 and 16, and of the odd primes 3, 5, 7, 11 and 13, that the CUDA FFT
 * kernels are built from (the odd primes 17 to 127 take fft_mixed.cu's
 * generic stage instead).
 *
 * Everything here is the forward transform (exp(-2*pi*i*j*k/R)); the
 * backward one is conj(forward(conj(x))), applied at the loads and stores.
 * Outputs are in natural order: v[k] = sum_j v_j w^(jk).
 */
#ifndef NLA_CUDA_FFT_RADIX_CUH
#define NLA_CUDA_FFT_RADIX_CUH

#ifndef NLA_HD
#define NLA_HD __host__ __device__ __forceinline__
#endif
/* the host compiler sees these functions too and does not know the pragma */
#ifdef __CUDA_ARCH__
#define NLA_UNROLL _Pragma("unroll")
#else
#define NLA_UNROLL
#endif

namespace nla_fft {

/* Interleaved complex, laid out and aligned like double2 / float2. */
template <typename R>
struct __align__(2 * sizeof(R)) cpx {
    R x, y;
};

template <typename R> NLA_HD cpx<R> mk(R x, R y) { cpx<R> r; r.x = x; r.y = y; return r; }
template <typename R> NLA_HD cpx<R> operator+(cpx<R> a, cpx<R> b) { return mk(a.x + b.x, a.y + b.y); }
template <typename R> NLA_HD cpx<R> operator-(cpx<R> a, cpx<R> b) { return mk(a.x - b.x, a.y - b.y); }
template <typename R> NLA_HD cpx<R> conj(cpx<R> a) { return mk(a.x, -a.y); }
template <typename R> NLA_HD cpx<R> scale(cpx<R> a, R s) { return mk(a.x * s, a.y * s); }
/* a*b with fused multiply-adds */
template <typename R> NLA_HD cpx<R> cmul(cpx<R> a, cpx<R> b)
{
    return mk(fma(a.x, b.x, -(a.y * b.y)), fma(a.x, b.y, a.y * b.x));
}
/* a * (-i) */
template <typename R> NLA_HD cpx<R> mul_mi(cpx<R> a) { return mk(a.y, -a.x); }
/* a * (1 - i)/sqrt(2) = a * w8 */
template <typename R> NLA_HD cpx<R> mul_w8(cpx<R> a)
{
    const R h = R(0.70710678118654752440084436210484903928);
    return mk((a.x + a.y) * h, (a.y - a.x) * h);
}
/* a * (-1 - i)/sqrt(2) = a * w8^3 */
template <typename R> NLA_HD cpx<R> mul_w8_3(cpx<R> a)
{
    const R h = R(0.70710678118654752440084436210484903928);
    return mk((a.y - a.x) * h, -(a.x + a.y) * h);
}
/* a * (c - i*s) for constants c, s */
template <typename R> NLA_HD cpx<R> mul_cs(cpx<R> a, R c, R s)
{
    return mk(fma(a.x, c, a.y * s), fma(a.y, c, -(a.x * s)));
}

template <int R_> struct Dft;

template <> struct Dft<2> {
    template <typename R> static NLA_HD void go(cpx<R> &a, cpx<R> &b)
    {
        cpx<R> t = a - b;
        a = a + b;
        b = t;
    }
};

template <> struct Dft<4> {
    template <typename R> static NLA_HD void go(cpx<R> &v0, cpx<R> &v1, cpx<R> &v2, cpx<R> &v3)
    {
        cpx<R> t0 = v0 + v2, t1 = v0 - v2, t2 = v1 + v3, t3 = mul_mi(v1 - v3);
        v0 = t0 + t2;
        v2 = t0 - t2;
        v1 = t1 + t3;
        v3 = t1 - t3;
    }
};

template <> struct Dft<8> {
    template <typename R>
    static NLA_HD void go(cpx<R> &v0, cpx<R> &v1, cpx<R> &v2, cpx<R> &v3, cpx<R> &v4, cpx<R> &v5,
                          cpx<R> &v6, cpx<R> &v7)
    {
        /* X_k = E_k + w8^k O_k, X_{k+4} = E_k - w8^k O_k (E: even inputs, O: odd) */
        Dft<4>::go(v0, v2, v4, v6);
        Dft<4>::go(v1, v3, v5, v7);
        cpx<R> o1 = mul_w8(v3), o2 = mul_mi(v5), o3 = mul_w8_3(v7);
        cpx<R> e0 = v0, e1 = v2, e2 = v4, e3 = v6;
        v0 = e0 + v1; v4 = e0 - v1;
        v1 = e1 + o1; v5 = e1 - o1;
        v2 = e2 + o2; v6 = e2 - o2;
        v3 = e3 + o3; v7 = e3 - o3;
    }
};

/* 16 = 4 x 4: inner DFTs over j1 (stride 4), twiddles w16^(j2*k1), outer DFTs over j2. */
template <> struct Dft<16> {
    template <typename R> static NLA_HD void go(cpx<R> (&v)[16])
    {
        const R c1 = R(0.92387953251128675612818318939678828682);   /* cos(pi/8) */
        const R s1 = R(0.38268343236508977172845998403039886676);   /* sin(pi/8) */
NLA_UNROLL
        for (int j2 = 0; j2 < 4; j2++) Dft<4>::go(v[j2], v[4 + j2], v[8 + j2], v[12 + j2]);
        /* now v[j2 + 4*k1] = Y[j2][k1] */
        v[1 + 4 * 1] = mul_cs(v[1 + 4 * 1], c1, s1);    /* w16^1 */
        v[1 + 4 * 2] = mul_w8(v[1 + 4 * 2]);            /* w16^2 */
        v[1 + 4 * 3] = mul_cs(v[1 + 4 * 3], s1, c1);    /* w16^3 */
        v[2 + 4 * 1] = mul_w8(v[2 + 4 * 1]);            /* w16^2 */
        v[2 + 4 * 2] = mul_mi(v[2 + 4 * 2]);            /* w16^4 */
        v[2 + 4 * 3] = mul_w8_3(v[2 + 4 * 3]);          /* w16^6 */
        v[3 + 4 * 1] = mul_cs(v[3 + 4 * 1], s1, c1);    /* w16^3 */
        v[3 + 4 * 2] = mul_w8_3(v[3 + 4 * 2]);          /* w16^6 */
        v[3 + 4 * 3] = mul_cs(v[3 + 4 * 3], -c1, -s1);  /* w16^9 = -w16^1 */
NLA_UNROLL
        for (int k1 = 0; k1 < 4; k1++) Dft<4>::go(v[4 * k1], v[4 * k1 + 1], v[4 * k1 + 2], v[4 * k1 + 3]);
        /* v[j2' + 4*k1] now holds X[k1 + 4*k2] with k2 = j2': transpose 4x4 */
        cpx<R> t[16];
NLA_UNROLL
        for (int i = 0; i < 16; i++) t[i] = v[i];
NLA_UNROLL
        for (int k1 = 0; k1 < 4; k1++)
NLA_UNROLL
            for (int k2 = 0; k2 < 4; k2++) v[k1 + 4 * k2] = t[k2 + 4 * k1];
    }
};

/* cos and sin of 2*pi*j/P for j = 1..(P-1)/2, P an odd prime <= 13 */
template <int P, typename R> NLA_HD void odd_roots(R (&c)[(P - 1) / 2], R (&s)[(P - 1) / 2])
{
    if constexpr (P == 3) {
        c[0] = R(-0.5);
        s[0] = R(0.8660254037844386467637231707529361835);
    } else if constexpr (P == 5) {
        c[0] = R(0.3090169943749474241022934171828190589);
        c[1] = R(-0.8090169943749474241022934171828190589);
        s[0] = R(0.9510565162951535721164393333793821434);
        s[1] = R(0.5877852522924731291687059546390727686);
    } else if constexpr (P == 7) {
        c[0] = R(0.6234898018587335305250048840042398106);
        c[1] = R(-0.2225209339563144042889025644967947595);
        c[2] = R(-0.9009688679024191262361023195074450512);
        s[0] = R(0.7818314824680298087084445266740577502);
        s[1] = R(0.9749279121818236070181316829939312172);
        s[2] = R(0.4338837391175581204757683328483587546);
    } else if constexpr (P == 11) {
        c[0] = R(0.8412535328311811688618116489193677175);
        c[1] = R(0.4154150130018864255292741492296232035);
        c[2] = R(-0.1423148382732851404437926686163696688);
        c[3] = R(-0.6548607339452850640569250724662935532);
        c[4] = R(-0.9594929736144973898903680570663276991);
        s[0] = R(0.5406408174555975821076359543186916954);
        s[1] = R(0.9096319953545183714117153830790284601);
        s[2] = R(0.9898214418809327323760920377767187874);
        s[3] = R(0.7557495743542582837740358439723444202);
        s[4] = R(0.2817325568414296977114179153466168990);
    } else {
        static_assert(P == 13, "odd radices: 3, 5, 7, 11, 13");
        c[0] = R(0.8854560256532098959003755220150988786);
        c[1] = R(0.5680647467311558025118075591275166245);
        c[2] = R(0.1205366802553230533490676874525435823);
        c[3] = R(-0.3546048870425356259696378926000184743);
        c[4] = R(-0.7485107481711010986346305997013513838);
        c[5] = R(-0.9709418174260520271569822762937892272);
        s[0] = R(0.4647231720437685456560153351331047776);
        s[1] = R(0.8229838658936563945796174234393819907);
        s[2] = R(0.9927088740980539928007516494925201793);
        s[3] = R(0.9350162426854148234397845998378307291);
        s[4] = R(0.6631226582407952023767854926667662795);
        s[5] = R(0.2393156642875577671487537262602118952);
    }
}

/* Odd prime P, H = (P-1)/2: with a_k = v_k + v_{P-k}, b_k = v_k - v_{P-k},
   X_0 = v_0 + sum a_k and, for m = 1..H, with theta = 2*pi*k*m/P,
   X_m, X_{P-m} = v_0 + sum_k a_k cos(theta) -/+ i sum_k b_k sin(theta). */
template <int P> struct DftOdd {
    template <typename R> static NLA_HD void go(cpx<R> (&v)[P])
    {
        constexpr int H = (P - 1) / 2;
        R c[H], s[H];
        odd_roots<P>(c, s);
        cpx<R> a[H], b[H];
NLA_UNROLL
        for (int k = 1; k <= H; k++) {
            a[k - 1] = v[k] + v[P - k];
            b[k - 1] = v[k] - v[P - k];
        }
        const cpx<R> x0 = v[0];
        cpx<R> sum = x0;
NLA_UNROLL
        for (int k = 0; k < H; k++) sum = sum + a[k];
        v[0] = sum;
NLA_UNROLL
        for (int m = 1; m <= H; m++) {
            cpx<R> re = x0, im = mk(R(0), R(0));
NLA_UNROLL
            for (int k = 1; k <= H; k++) {
                const int q = (k * m) % P;                  /* theta = 2*pi*q/P */
                const R ck = q <= H ? c[q - 1] : c[P - q - 1];
                const R sk = q <= H ? s[q - 1] : -s[P - q - 1];
                re.x = fma(a[k - 1].x, ck, re.x);
                re.y = fma(a[k - 1].y, ck, re.y);
                im.x = fma(b[k - 1].x, sk, im.x);
                im.y = fma(b[k - 1].y, sk, im.y);
            }
            v[m] = mk(re.x + im.y, re.y - im.x);            /* re - i*im */
            v[P - m] = mk(re.x - im.y, re.y + im.x);        /* re + i*im */
        }
    }
};

/* DFT of the R_ values g[k], k < R_ (an array view). */
template <int R_, typename R> NLA_HD void dft(cpx<R> (&g)[R_])
{
    if constexpr (R_ == 2) Dft<2>::go(g[0], g[1]);
    else if constexpr (R_ == 4) Dft<4>::go(g[0], g[1], g[2], g[3]);
    else if constexpr (R_ == 8) Dft<8>::go(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]);
    else if constexpr (R_ == 16) Dft<16>::go(g);
    else DftOdd<R_>::go(g);
}

} /* namespace nla_fft */

#endif /* NLA_CUDA_FFT_RADIX_CUH */
