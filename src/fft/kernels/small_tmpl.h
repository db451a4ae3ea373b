/*
 * small_tmpl.h - whole transforms of n = 2^k <= 64 held in registers (the
 * codelets), included by kernels_tmpl.h once per precision and width, with
 * its FK(), V and W.
 *
 * n = W*L, W complex values a vector: a[j] holds x[W*j .. W*j+W-1], so
 * lane l of a[j] is x[l + W*j].  Then
 *     X[k1 + L*k2] = sum_l W_W^(l*k2) W_n^(l*k1) sum_j x[l + W*j] W_L^(j*k1):
 * an L-point DFT across the vectors (FK(dftn), kernels_tmpl.h), lane l of a[k1] times
 * W_n^(l*k1), and for each W vectors a W x W transpose and a W-point DFT
 * across them, which leave X[k1 + L*k2] as whole vectors.  With W == 1 the
 * first step is the whole transform.  n goes up to 256, where L = n/W is
 * at most 64 (FK_SMALL_FITS).  Sizes below W*W take a narrower
 * instance (FK_SMALL_TAIL where there is one, else FK_TAIL).  Every index is a compile-time
 * constant once the loops are unrolled, so the twiddles are constants.
 */

#define FK_UNROLL64 _Pragma("GCC unroll 64")

/* One transform of n = W*L >= W*W, L <= 64 (the header's steps); x == y
   allowed */
FK_INLINE void FK(small1)(int n, int fwd, const FK_T *x, FK_T *y)
{
    const int L = n / W;
    V a[64];
    if (!FK_SMALL_FITS(n, W))
        return;           /* not in the table */
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
            FK(cs256)(l * k1 * (256 / n) % 256, &c, &s);
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

/* cnt transforms of n = 2^k <= 64 interleaved element by element, stride
   B (element j of transform b at [j*B + b]): vectors across W transforms,
   the n-point DFT across the n vectors; the last cnt % W transforms by
   the one-complex-value instance.  x == y allowed. */
FK_INLINE void FK(small_il)(int n, int fwd, int64_t cnt, int64_t B, const FK_T *x, FK_T *y)
{
    int64_t b = 0;
    for (; b + W <= cnt; b += W) {
        V a[64];
        FK_UNROLL64
        for (int j = 0; j < n; j++)
            a[j] = FK(ld)(x + 2 * (j * B + b));
        FK(dftn)(a, n, fwd);
        FK_UNROLL64
        for (int k = 0; k < n; k++)
            FK(st)(y + 2 * (k * B + b), a[k]);
    }
#ifdef FK_TAIL
    if (b < cnt)
        FK_N(FK_TAIL, small_il)(n, fwd, cnt - b, B, x + 2 * b, y + 2 * b);
#endif
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
FK_SMALL_DEF(7, 128)
FK_SMALL_DEF(8, 256)
#undef FK_SMALL_DEF
#define FK_IL_DEF(k, n)                                                        \
    static void FK(il##k##f)(int64_t B, const FK_T *x, FK_T *y)                \
    {                                                                          \
        FK(small_il)(n, 1, B, B, x, y);                                        \
    }                                                                          \
    static void FK(il##k##b)(int64_t B, const FK_T *x, FK_T *y)                \
    {                                                                          \
        FK(small_il)(n, 0, B, B, x, y);                                        \
    }
FK_IL_DEF(1, 2)
FK_IL_DEF(2, 4)
FK_IL_DEF(3, 8)
FK_IL_DEF(4, 16)
FK_IL_DEF(5, 32)
FK_IL_DEF(6, 64)
#undef FK_IL_DEF
#endif

#undef FK_UNROLL64
