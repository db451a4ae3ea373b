/*
 * small_tmpl.h - whole transforms of n = 2^k <= 64 held in registers (the
 * codelets), included by kernels_tmpl.h once per precision and width, with
 * its FK(), V and W.
 *
 * n = W*L, W complex values a vector: a[j] holds x[W*j .. W*j+W-1], so
 * lane l of a[j] is x[l + W*j].  Then
 *     X[k1 + L*k2] = sum_l W_W^(l*k2) W_n^(l*k1) sum_j x[l + W*j] W_L^(j*k1):
 * an L-point DFT across the vectors (FK(dftn)), lane l of a[k1] times
 * W_n^(l*k1), and for each W vectors a W x W transpose and a W-point DFT
 * across them, which leave X[k1 + L*k2] as whole vectors.  With W == 1 the
 * first step is the whole transform.  Sizes below W*W take a narrower
 * instance (FK_SMALL_TAIL where there is one, else FK_TAIL).  Every index is a compile-time
 * constant once the loops are unrolled, so the twiddles are constants.
 */

#ifndef FK_SMALL_TABLE
#define FK_SMALL_TABLE
/* cos(2 pi e/64), e = 0 .. 16 */
static const double fk_q64[17] = {
    1.0,
    0.995184726672196886244836953109,
    0.980785280403230449126182236134,
    0.956940335732208864935797886980,
    0.923879532511286756128183189397,
    0.881921264348355029712756863660,
    0.831469612302545237078788377618,
    0.773010453362736960810906609758,
    0.707106781186547524400844362105,
    0.634393284163645498215171613225,
    0.555570233019602224742830813949,
    0.471396736825997648556387625905,
    0.382683432365089771728459984030,
    0.290284677254462367636192375817,
    0.195090322016128267848284868477,
    0.0980171403295606019941955638886,
    0.0,
};
#endif

#define FK_UNROLL64 _Pragma("GCC unroll 64")

/* cos and sin of 2 pi f/64, f < 64, from the quarter table */
FK_INLINE void FK(cs64)(int f, FK_T *c, FK_T *s)
{
    const int e = f % 16;
    const FK_T ce = (FK_T)fk_q64[e], se = (FK_T)fk_q64[16 - e];
    switch (f / 16) {
    case 0: *c = ce; *s = se; break;
    case 1: *c = -se; *s = ce; break;
    case 2: *c = -ce; *s = -se; break;
    default: *c = se; *s = -ce; break;
    }
}

/* a * W_N^e, W_N = exp(sign*2*pi*i/N), N <= 64 */
FK_INLINE V FK(twc)(V a, int N, int e, int fwd)
{
    const int f = e * (64 / N) % 64;
    FK_T c, s;
    if (f == 0)
        return a;
    if (f == 32)
        return -a;
    if (f == 16 || f == 48)
        return FK(rot)(a, f == 16 ? fwd : !fwd);
    FK(cs64)(f, &c, &s);
    return FK(cmul)(a, FK(splat)(c), FK(splat)(fwd ? -s : s));
}

/* The L-point DFT across a[0..L-1] (L = 2^k <= 64) in natural order:
   L <= 8 by FK(dft), otherwise L = L1*L2 (4*4, 8*4, 8*8), input
   j2 + L2*j1 to output k1 + L1*k2. */
FK_INLINE void FK(dftn)(V *a, int L, int fwd)
{
    if (L <= 8) {
        if (L > 1)
            FK(dft)(a, L, fwd);
        return;
    }
    const int L1 = L == 16 ? 4 : 8, L2 = L / L1;
    V t[64];
    FK_UNROLL
    for (int j2 = 0; j2 < L2; j2++) {
        V b[8];
        FK_UNROLL
        for (int j1 = 0; j1 < L1; j1++)
            b[j1] = a[j2 + L2 * j1];
        FK(dft)(b, L1, fwd);
        FK_UNROLL
        for (int k1 = 0; k1 < L1; k1++)
            t[j2 + L2 * k1] = FK(twc)(b[k1], L, j2 * k1, fwd);
    }
    FK_UNROLL
    for (int k1 = 0; k1 < L1; k1++) {
        V c[8];
        FK_UNROLL
        for (int j2 = 0; j2 < L2; j2++)
            c[j2] = t[j2 + L2 * k1];
        FK(dft)(c, L2, fwd);
        FK_UNROLL
        for (int k2 = 0; k2 < L2; k2++)
            a[k1 + L1 * k2] = c[k2];
    }
}

/* One transform of n = W*L >= W*W (the header's steps); x == y allowed */
FK_INLINE void FK(small1)(int n, int fwd, const FK_T *x, FK_T *y)
{
    const int L = n / W;
    V a[64];
    FK_UNROLL64
    for (int j = 0; j < L; j++)
        a[j] = FK(ld)(x + 2 * W * j);
    FK(dftn)(a, L, fwd);
#if W > 1
    FK_UNROLL64
    for (int k1 = 1; k1 < L; k1++) {
        V wr, wi;
        FK_UNROLL
        for (int l = 0; l < W; l++) {
            FK_T c, s;
            FK(cs64)(l * k1 * (64 / n) % 64, &c, &s);
            wr[2 * l] = wr[2 * l + 1] = c;
            wi[2 * l] = wi[2 * l + 1] = fwd ? -s : s;
        }
        a[k1] = FK(cmul)(a[k1], wr, wi);
    }
    FK_UNROLL
    for (int g = 0; g < L; g += W) {
        V b[W];
        FK_UNROLL
        for (int t = 0; t < W; t++)
            b[t] = a[g + t];
        FK(shuffle_rounds)(b, W);
        FK(dft)(b, W, fwd);
        FK_UNROLL
        for (int k2 = 0; k2 < W; k2++)
            FK(st)(y + 2 * (g + L * k2), b[k2]);
    }
#else
    FK_UNROLL64
    for (int k = 0; k < L; k++)
        FK(st)(y + 2 * k, a[k]);
#endif
}

/* hm transforms, x + b*id -> y + b*od (complex units) */
FK_INLINE void FK(small_run)(int n, int fwd, int64_t hm, int64_t id, int64_t od,
                             const FK_T *x, FK_T *y)
{
#if defined(FK_SMALL_TAIL) && !defined(FK_ONE)
    if (n < W * W) {
        FK_N(FK_SMALL_TAIL, small_run)(n, fwd, hm, id, od, x, y);
        return;
    }
#elif defined(FK_TAIL)
    if (n < W * W) {
        FK_N(FK_TAIL, small_run)(n, fwd, hm, id, od, x, y);
        return;
    }
#endif
    for (int64_t b = 0; b < hm; b++)
        FK(small1)(n, fwd, x + 2 * b * id, y + 2 * b * od);
}

#ifndef FK_ONE
#define FK_SMALL_DEF(k, n)                                                     \
    static void FK(small##k##f)(int64_t hm, int64_t id, int64_t od,            \
                                const FK_T *x, FK_T *y)                        \
    {                                                                          \
        FK(small_run)(n, 1, hm, id, od, x, y);                                 \
    }                                                                          \
    static void FK(small##k##b)(int64_t hm, int64_t id, int64_t od,            \
                                const FK_T *x, FK_T *y)                        \
    {                                                                          \
        FK(small_run)(n, 0, hm, id, od, x, y);                                 \
    }
FK_SMALL_DEF(1, 2)
FK_SMALL_DEF(2, 4)
FK_SMALL_DEF(3, 8)
FK_SMALL_DEF(4, 16)
FK_SMALL_DEF(5, 32)
FK_SMALL_DEF(6, 64)
#undef FK_SMALL_DEF
#endif

#undef FK_UNROLL64
