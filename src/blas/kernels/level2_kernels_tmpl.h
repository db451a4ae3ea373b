/*
 * level2_kernels_tmpl.h - the level-2 kernel primitives (level2_kernels.h),
 * compiled once per ISA.
 *
 * An ISA file (l2_generic.c, l2_avx2.c, l2_avx512.c) defines
 *   NLA_L2TAB   the table's name (nla_l2_kernels_avx2, ...)
 *   NLA_KNAME   its printable name ("avx2")
 *   NLA_VBYTES  the vector width in bytes (16, 32, 64)
 * and includes this file once; it includes itself once per precision.  The
 * code uses GCC/Clang vector extensions, so the ISA flags decide the
 * instructions; partial vectors use masked loads and stores where the ISA
 * has them.  Each kernel reads each matrix entry once, in address order.
 *
 * The primitives, each a few dozen lines:
 *   axpyf   y += A[:, c..c+C) x, C columns a pass (gemv NoTrans)
 *   dotxf   Q dots a pass over x (gemv Trans, band Trans "dots"), and
 *           on AVX-512 VL short dots folded into one vector (band "dots")
 *   col     one band column's axpy on the vectors of y aligned in memory
 *           (band NoTrans "cols")
 *   diag    a narrow band by rows (NoTrans) or columns (Trans), the
 *           diagonals unrolled (a diagonal stored as one run by vectors,
 *           every ISA); on AVX-512 with ldab == w, a vector of
 *           rows at a time, the diagonals regrouped in registers, and for
 *           NoTrans bands over 5 wide two vectors of rows summing masked
 *           column segments (band "rows" and "diag")
 *   spmv    C packed columns a pass, each entry used for its axpy and dot
 */
#ifndef LT_T /* ------------------------------------------- per ISA, outer */

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "level2_kernels.h"
#if NLA_VBYTES >= 32
#include <immintrin.h>
#endif

#if !defined(NLA_L2TAB) || !defined(NLA_VBYTES)
#error "define NLA_L2TAB and NLA_VBYTES before including level2_kernels_tmpl.h"
#endif

/* A vzeroupper where vector code hands over to scalar code: GCC 12 puts
   none in these functions, and a caller's SSE code then runs slow
   (tests/test_upper_state.c checks every public routine's return). */
#if NLA_VBYTES >= 32
#define L2_UPPER_CLEAN() _mm256_zeroupper()
#else
#define L2_UPPER_CLEAN() ((void)0)
#endif

/* gemv's columns a pass when many can be read at once (the driver checks
   that they do not crowd an L1 set): as many as the registers hold (T: two
   sums a column, N: one broadcast), at most 12.  From memory more runs
   keep more lines in flight, while past about 15 runs the hardware's
   stream prefetch loses track (doc/tuning.md, 5.0.7).  Otherwise N takes 8
   and T 4. */
#ifndef L2_GEMV_N_COLS
#define L2_GEMV_N_COLS (NLA_VBYTES == 64 ? 12 : 8)
#endif
#ifndef L2_GEMV_T_COLS
#define L2_GEMV_T_COLS (NLA_VBYTES == 64 ? 12 : 4)
#endif
#define L2_GEMV_MAX_COLS 12 /* the kernels' register arrays */
_Static_assert(L2_GEMV_N_COLS <= L2_GEMV_MAX_COLS && L2_GEMV_T_COLS <= L2_GEMV_MAX_COLS &&
                   L2_GEMV_N_COLS >= 8 && L2_GEMV_T_COLS >= 4,
               "gemv's columns a pass: 8 (N) or 4 (T) to L2_GEMV_MAX_COLS");

/* spmv's columns a pass (level2_spmv_tmpl.h): each takes two vector
   registers (its x and its dot) and a pass three more: 8 of AVX-512's 32,
   or 12 when many (from memory, more runs in flight: doc/tuning.md,
   5.0.8); 6 of AVX2's 16; 4 portable. */
#ifndef L2_SPC
#define L2_SPC (NLA_VBYTES == 64 ? 8 : NLA_VBYTES == 32 ? 6 : 4)
#endif
#ifndef L2_SPC_MANY
#define L2_SPC_MANY (NLA_VBYTES == 64 ? 12 : L2_SPC)
#endif
_Static_assert(L2_SPC >= 1 && L2_SPC <= L2_SPC_MANY && L2_SPC_MANY <= 16,
               "spmv's columns a pass: 1 <= L2_SPC <= L2_SPC_MANY <= 16");

#define LT_T double
#define LT_P d
#define LT_DOUBLE 1
#define LT_VL (NLA_VBYTES / 8)
#include "level2_kernels_tmpl.h"
#undef LT_T
#undef LT_P
#undef LT_DOUBLE
#undef LT_VL

#define LT_T float
#define LT_P s
#define LT_DOUBLE 0
#define LT_VL (NLA_VBYTES / 4)
#include "level2_kernels_tmpl.h"
#undef LT_T
#undef LT_P
#undef LT_DOUBLE
#undef LT_VL

#define L2_TABLE(P)                                                            \
    .P##gemv_n = P##_gemv_n, .P##gemv_t = P##_gemv_t,                          \
    .P##gbmv = { [NLA_L2_GBMV_N_ROWS] = P##_gbmv_n_rows,                       \
                 [NLA_L2_GBMV_N_COLS] = P##_gbmv_n_cols,                       \
                 [NLA_L2_GBMV_T_DIAG] = P##_gbmv_t_diag,                       \
                 [NLA_L2_GBMV_T_DOTS] = P##_gbmv_t_dots },                     \
    .P##spmv = P##_spmv
const nla_l2_kernels NLA_L2TAB = {
    .name = NLA_KNAME,
    .gemv_cols = { L2_GEMV_N_COLS, L2_GEMV_T_COLS },
    L2_TABLE(d), L2_TABLE(s)
};
#undef L2_TABLE

#else /* ----------------------------------------------- per precision */

#define LN_(p, name) p##_##name
#define LN(p, name) LN_(p, name)
#define L(name) LN(LT_P, name)
#define VEC L(vec)
#define UVEC L(uvec)
#define INLINE static inline __attribute__((always_inline))
#define UNROLL _Pragma("GCC unroll 16")

typedef LT_T VEC __attribute__((vector_size(NLA_VBYTES)));
/* for element-aligned memory */
typedef LT_T UVEC __attribute__((vector_size(NLA_VBYTES), aligned(sizeof(LT_T)),
                                 may_alias));
#if LT_DOUBLE
typedef int64_t L(vidx) __attribute__((vector_size(NLA_VBYTES)));
#else
typedef int32_t L(vidx) __attribute__((vector_size(NLA_VBYTES)));
#endif
#define VEC_IDX L(vidx)
#define SPLAT(s) ((LT_T)(s) - (VEC){ 0 })
#define LOADU(p) (*(const UVEC *)(const void *)(p))
#define STOREU(p, v) (*(UVEC *)(void *)(p) = (v))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* acc + a*b: fused where the ISA has FMA, written out so that the result
   does not hang on the compiler contracting a*b + c (-ffp-contract) */
#if NLA_VBYTES >= 32
INLINE VEC L(madd)(VEC acc, VEC a, VEC b)
{
#if NLA_VBYTES == 64 && LT_DOUBLE
    return (VEC)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)acc);
#elif NLA_VBYTES == 64
    return (VEC)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)acc);
#elif LT_DOUBLE
    return (VEC)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)acc);
#else
    return (VEC)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)acc);
#endif
}
#if LT_DOUBLE
#define L2_FMAS(a, b, c) __builtin_fma((a), (b), (c))
#else
#define L2_FMAS(a, b, c) __builtin_fmaf((a), (b), (c))
#endif
#else
INLINE VEC L(madd)(VEC acc, VEC a, VEC b)
{
    return acc + a * b;
}
#define L2_FMAS(a, b, c) ((c) + (a) * (b))
#endif

/* The first k lanes (0 < k < LT_VL) of p, zeros in the others. */
INLINE VEC L(loadn)(const LT_T *p, int64_t k)
{
#if NLA_VBYTES == 64 && LT_DOUBLE
    return (VEC)_mm512_maskz_loadu_pd((__mmask8)((1u << k) - 1), p);
#elif NLA_VBYTES == 64
    return (VEC)_mm512_maskz_loadu_ps((__mmask16)((1u << k) - 1), p);
#elif NLA_VBYTES == 32 && LT_DOUBLE
    __m256i m = _mm256_cmpgt_epi64(_mm256_set1_epi64x(k), _mm256_setr_epi64x(0, 1, 2, 3));
    return (VEC)_mm256_maskload_pd(p, m);
#elif NLA_VBYTES == 32
    __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)k),
                                   _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return (VEC)_mm256_maskload_ps(p, m);
#else
    VEC v = SPLAT(0);
    for (int64_t t = 0; t < k; t++)
        v[t] = p[t];
    return v;
#endif
}

/* Store the first k lanes (0 < k < LT_VL) of v at p (AVX2's masked stores
   are slow on AMD: lane by lane, a tail's worth) */
INLINE void L(storen)(LT_T *p, VEC v, int64_t k)
{
#if NLA_VBYTES == 64 && LT_DOUBLE
    _mm512_mask_storeu_pd(p, (__mmask8)((1u << k) - 1), (__m512d)v);
#elif NLA_VBYTES == 64
    _mm512_mask_storeu_ps(p, (__mmask16)((1u << k) - 1), (__m512)v);
#else
    for (int64_t t = 0; t < k; t++)
        p[t] = v[t];
#endif
}

/* Lane q < n of the result is the sum of v[q]'s lanes (n <= VL), added in
   a fixed order: each level adds the halves of the last level's blocks,
   two vectors at a time (a two-source shuffle pair and an add); with fewer
   vectors than lanes the upper lanes hold copies.  Overwrites v. */
#define SHUF(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
#define L2_LIST(...) __VA_ARGS__
#define L2_FOLD(LO, HI)                                                        \
    UNROLL                                                                     \
    for (int q = 0; q < (n + 1) / 2; q++) {                                    \
        VEC a = v[2 * q], b = v[2 * q + 1 < n ? 2 * q + 1 : 2 * q];            \
        v[q] = SHUF(a, b, L2_LIST LO) + SHUF(a, b, L2_LIST HI);                \
    }                                                                          \
    n = (n + 1) / 2;
INLINE VEC L(fold)(int n, VEC *v)
{
#if LT_VL == 2
    L2_FOLD((0, 2), (1, 3))
#elif LT_VL == 4
    L2_FOLD((0, 1, 4, 5), (2, 3, 6, 7))
    L2_FOLD((0, 2, 4, 6), (1, 3, 5, 7))
#elif LT_VL == 8
    L2_FOLD((0, 1, 2, 3, 8, 9, 10, 11), (4, 5, 6, 7, 12, 13, 14, 15))
    L2_FOLD((0, 1, 4, 5, 8, 9, 12, 13), (2, 3, 6, 7, 10, 11, 14, 15))
    L2_FOLD((0, 2, 4, 6, 8, 10, 12, 14), (1, 3, 5, 7, 9, 11, 13, 15))
#else
    L2_FOLD((0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23),
            (8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31))
    L2_FOLD((0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27),
            (4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31))
    L2_FOLD((0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29),
            (2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31))
    L2_FOLD((0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
            (1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31))
#endif
    return v[0];
}
#undef L2_FOLD
#undef L2_LIST
#undef SHUF

/* d[q] = the sum of v[q]'s lanes, q < Q (in L(fold)'s order) */
INLINE void L(hsums)(const int Q, VEC *v, LT_T *d)
{
    UNROLL
    for (int q = 0; q < Q; q += LT_VL) {
        VEC r = L(fold)(MIN(LT_VL, Q - q), v + q);
        memcpy(d + q, &r, (size_t)MIN(LT_VL, Q - q) * sizeof(LT_T));
    }
}

/* beta*y + alpha*s; beta == 0 does not read y */
INLINE LT_T L(blend)(LT_T alpha, LT_T s, LT_T beta, const LT_T *y)
{
    return beta == 0 ? alpha * s : beta * *y + alpha * s;
}

/* the same for the vector at y: y = beta*y + alpha*s */
INLINE void L(blend_store)(LT_T *y, LT_T alpha, VEC s, LT_T beta)
{
    if (beta == 0)
        STOREU(y, SPLAT(alpha) * s);
    else
        STOREU(y, SPLAT(beta) * LOADU(y) + SPLAT(alpha) * s);
}

/* y[0..len) *= beta; beta == 0 stores zeros without reading y */
INLINE void L(scale)(LT_T *y, int64_t len, LT_T beta)
{
    if (beta == 1)
        return;
    for (int64_t i = 0; i < len; i++)
        y[i] = beta == 0 ? 0 : beta * y[i];
}

/* ------------------------------------------------------- dotxf: dots */

/* Columns [Q0, Q1) of L(dotxf)'s sums over [0, len): two accumulators a
   column, the partial vector into the second */
INLINE void L(dot_cols)(const int Q0, const int Q1, int64_t len, const LT_T *a,
                        int64_t lda, const LT_T *x, const int xs, VEC *s0, VEC *s1)
{
    int64_t i = 0;

    for (; i + 2 * LT_VL <= len; i += 2 * LT_VL) {
        UNROLL
        for (int q = Q0; q < Q1; q++) {
            s0[q] = L(madd)(s0[q], LOADU(a + q * lda + i), LOADU(x + q * xs + i));
            s1[q] = L(madd)(s1[q], LOADU(a + q * lda + i + LT_VL),
                            LOADU(x + q * xs + i + LT_VL));
        }
    }
    if (i + LT_VL <= len) {
        UNROLL
        for (int q = Q0; q < Q1; q++)
            s0[q] = L(madd)(s0[q], LOADU(a + q * lda + i), LOADU(x + q * xs + i));
        i += LT_VL;
    }
    if (i < len) {
        UNROLL
        for (int q = Q0; q < Q1; q++)
            s1[q] = L(madd)(s1[q], L(loadn)(a + q * lda + i, len - i),
                            L(loadn)(x + q * xs + i, len - i));
    }
}

/* Q (1, 4 or L2_GEMV_T_COLS) dots of length len, d[q] = a[q*lda ..] .
   x[q*xs ..] (xs = 0 for gemv; the columns of a band shift x by xs = 1), the lanes summed
   together at the end.  in_step: the columns side by side in one pass
   over x (gemv's long columns); else one after the other, so that a band's
   short columns are read as the one run they are in memory (four columns
   in step read four runs, slower from memory: doc/tuning.md).  Every
   column's sum has the bits of L(dot)'s either way. */
INLINE void L(dotxf)(const int Q, const int in_step, int64_t len, const LT_T *a, int64_t lda,
                     const LT_T *x, const int xs, LT_T *d)
{
    VEC s0[L2_GEMV_MAX_COLS], s1[L2_GEMV_MAX_COLS];

    UNROLL
    for (int q = 0; q < Q; q++)
        s0[q] = s1[q] = SPLAT(0);
    if (in_step) {
        L(dot_cols)(0, Q, len, a, lda, x, xs, s0, s1);
    } else {
        UNROLL
        for (int q = 0; q < Q; q++)
            L(dot_cols)(q, q + 1, len, a, lda, x, xs, s0, s1);
    }
    UNROLL
    for (int q = 0; q < Q; q++)
        s0[q] += s1[q];
    L(hsums)(Q, s0, d);
}

INLINE LT_T L(dot)(int64_t len, const LT_T *a, const LT_T *x)
{
    LT_T d;
    L(dotxf)(1, 1, len, a, 0, x, 0, &d);
    return d;
}

/* -------------------------------------------------------------- gemv */

/* y[0..m) += A[:, 0..C) (alpha x[0..C)): even columns into one sum, odd
   into another, so that the chain of dependent adds is C/2 long */
INLINE void L(axpyf)(const int C, int64_t m, const LT_T *a, int64_t lda, const LT_T *x,
                     LT_T alpha, LT_T *y)
{
    VEC xv[L2_GEMV_MAX_COLS];
    int64_t i = 0;

    UNROLL
    for (int c = 0; c < C; c++)
        xv[c] = SPLAT(alpha * x[c]);
    for (; i + LT_VL <= m; i += LT_VL) {
        VEC t0 = LOADU(y + i), t1 = SPLAT(0);
        UNROLL
        for (int c = 0; c < C; c += 2) {
            t0 = L(madd)(t0, LOADU(a + c * lda + i), xv[c]);
            if (c + 1 < C)
                t1 = L(madd)(t1, LOADU(a + (c + 1) * lda + i), xv[c + 1]);
        }
        STOREU(y + i, t0 + t1);
    }
    if (i < m) {
        int64_t k = m - i;
        VEC t0 = L(loadn)(y + i, k), t1 = SPLAT(0);
        UNROLL
        for (int c = 0; c < C; c += 2) {
            t0 = L(madd)(t0, L(loadn)(a + c * lda + i, k), xv[c]);
            if (c + 1 < C)
                t1 = L(madd)(t1, L(loadn)(a + (c + 1) * lda + i, k), xv[c + 1]);
        }
        L(storen)(y + i, t0 + t1, k);
    }
}

/* y[0..m) += A (alpha x): L2_GEMV_N_COLS columns a pass over y if many,
   else 8 */
static void L(gemv_n)(int64_t m, int64_t n, const LT_T *a, int64_t lda, const LT_T *x,
                      LT_T alpha, LT_T *y, int many)
{
    int64_t j = 0;

    for (; many && j + L2_GEMV_N_COLS <= n; j += L2_GEMV_N_COLS)
        L(axpyf)(L2_GEMV_N_COLS, m, a + j * lda, lda, x + j, alpha, y);
    for (; j + 8 <= n; j += 8)
        L(axpyf)(8, m, a + j * lda, lda, x + j, alpha, y);
    for (; j + 4 <= n; j += 4)
        L(axpyf)(4, m, a + j * lda, lda, x + j, alpha, y);
    for (; j < n; j++)
        L(axpyf)(1, m, a + j * lda, lda, x + j, alpha, y);
}

/* y[0..Q) = beta*y + alpha * A[:, 0..Q) . x, Q dots a pass over x */
INLINE void L(dots_blend)(const int Q, int64_t m, const LT_T *a, int64_t lda, const LT_T *x,
                          LT_T alpha, LT_T beta, LT_T *y)
{
    LT_T d[L2_GEMV_MAX_COLS];
    L(dotxf)(Q, 1, m, a, lda, x, 0, d);
    UNROLL
    for (int u = 0; u < Q; u++)
        y[u] = L(blend)(alpha, d[u], beta, y + u);
}

/* y[j] = beta*y[j] + alpha * A[:, j] . x: L2_GEMV_T_COLS columns a pass if
   many, then four, then one (a column's sum has the same bits either way) */
static void L(gemv_t)(int64_t m, int64_t n, const LT_T *a, int64_t lda, const LT_T *x,
                      LT_T alpha, LT_T beta, LT_T *y, int many)
{
    int64_t j = 0;

    for (; many && j + L2_GEMV_T_COLS <= n; j += L2_GEMV_T_COLS)
        L(dots_blend)(L2_GEMV_T_COLS, m, a + j * lda, lda, x, alpha, beta, y + j);
    for (; j + 4 <= n; j += 4)
        L(dots_blend)(4, m, a + j * lda, lda, x, alpha, beta, y + j);
    for (; j < n; j++)
        L(dots_blend)(1, m, a + j * lda, lda, x, alpha, beta, y + j);
}

#include "level2_band_tmpl.h"
#include "level2_spmv_tmpl.h"

#undef LN_
#undef LN
#undef L
#undef VEC
#undef VEC_IDX
#undef UVEC
#undef INLINE
#undef UNROLL
#undef SPLAT
#undef LOADU
#undef STOREU
#undef MIN
#undef MAX
#undef L2_FMAS

#endif
