/*
 * fft_radix.cuh - complex arithmetic and the in-register DFTs of size 2, 4,
 * 8 and 16 that the CUDA FFT kernels are built from.
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

/* DFT of the R_ values g[k], k < R_ (an array view). */
template <int R_, typename R> NLA_HD void dft(cpx<R> (&g)[R_])
{
    if constexpr (R_ == 2) Dft<2>::go(g[0], g[1]);
    else if constexpr (R_ == 4) Dft<4>::go(g[0], g[1], g[2], g[3]);
    else if constexpr (R_ == 8) Dft<8>::go(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]);
    else if constexpr (R_ == 16) Dft<16>::go(g);
}

} /* namespace nla_fft */

#endif /* NLA_CUDA_FFT_RADIX_CUH */
