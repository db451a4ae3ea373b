/*
 * level2_kernels_tmpl.h - the level-2 kernels (level2_kernels.h), compiled
 * once per ISA.
 *
 * An ISA file (l2_generic.c, l2_avx2.c, l2_avx512.c) defines
 *   NLA_L2TAB   the table's name (nla_l2_kernels_avx2, ...)
 *   NLA_KNAME   its printable name ("avx2")
 *   NLA_VBYTES  the vector width in bytes (16, 32, 64)
 * and includes this file once; it includes itself once per precision.  The
 * code uses GCC/Clang vector extensions, so the ISA flags decide the
 * instructions; partial vectors at the end of a column use masked loads
 * and stores where the ISA has them (AVX-512; AVX2 loads only).
 *
 * Every kernel reads each matrix entry once, as one stream where the
 * storage allows it:
 *   gemv_n  eight columns per pass over y (y traffic 1/8 of A's), four
 *           where the matrix stays in the last-level cache;
 *   gemv_t  four dot products per pass over x;
 *   gbmv    by the band's width w = kl+ku+1:
 *           w <= NLA_L2_DIAG_MAX (portable Trans: 12): diagonal-wise,
 *             by rows (columns for Trans) with the diagonals unrolled,
 *             since columns this short do not vectorise as they are
 *             stored; on AVX-512 with unpadded storage (ldab == w), a
 *             vector of rows (columns) at a time, the diagonals regrouped
 *             in registers;
 *           NoTrans, by the tuning profile (src/blas/level2.c): zen5
 *             while (w+VL)*w entries fit in 8 KiB (teams: columns under
 *             120 bytes), xeon while VL+w-1 <= 160: a vector of rows at a
 *             time, summing the column segments that cross it in
 *             registers, in the column form's order (AVX2, AVX-512: two
 *             vectors side by side, lane masks from a table: xeon
 *             always; zen5 always on one thread, with a team for
 *             columns under 108 bytes);
 *           NoTrans, wider: by columns (axpy form), eight (short
 *             columns) or four per pass over a window of y that stays
 *             in L1, the interior passes' lane masks from a table by
 *             the pass's phase against the vectors of y; on zen5, bands
 *             of n_col2_band_bytes and more scale y just ahead of the
 *             passes and take two columns a pass from 192-byte columns;
 *           Trans, wider, AVX2 and AVX-512: columns under the profile's
 *             t_al_bytes_d or _s (double: zen5 512, xeon 320, zen3 256;
 *             float: zen5 256, xeon 320, zen3 256) VL at a time, a vector
 *             of each transposed in registers into a vector of y (no
 *             horizontal sums); longer ones one dot each, four at a
 *             time, on the vectors that are aligned in memory (masked at
 *             the column's ends), since split loads slow a read stream;
 *             columns near the edges of A, and the portable kernel's, one
 *             dot each;
 *           the wide forms prefetch the band in address order, since its
 *           columns are runs too short for the hardware prefetchers;
 *           on the zen3 profile the NoTrans column and the aligned Trans
 *           forms instead read four runs of the range in turn, and the
 *           transposed Trans form three (one thread, bands over 32 MiB),
 *           prefetched by the hardware alone;
 *   spmv    eight columns at a time (four on AVX2: 16 registers), each
 *           entry used for its axpy and its dot (acc traffic an eighth or a
 *           quarter of AP's).
 */
#ifndef LT_T /* ------------------------------------------- per ISA, outer */

#include <stdint.h>
#include <string.h>
#include "level2_kernels.h"
#if NLA_VBYTES >= 32
#include <immintrin.h>
#endif

#if !defined(NLA_L2TAB) || !defined(NLA_VBYTES)
#error "define NLA_L2TAB and NLA_VBYTES before including level2_kernels_tmpl.h"
#endif

/* A vzeroupper where the narrow bands' vector code hands over to scalar
   code (L(gbmv_n_rows), L(gbmv_t)).  GCC 12 put none anywhere in those
   functions, so a call returned to its caller with the upper vector state
   dirty, and the caller's own SSE code then ran slow (a plain triad right
   after gbmv kl = 1 read 21 GB/s against 28-34 after a clean return).
   tests/test_upper_state.c checks every public routine's return. */
#if NLA_VBYTES >= 32
#define L2_UPPER_CLEAN() _mm256_zeroupper()
#else
#define L2_UPPER_CLEAN() ((void)0)
#endif

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

const nla_l2_kernels NLA_L2TAB = {
    .name = NLA_KNAME,
    .dgemv_n = d_gemv_n,
    .dgemv_t = d_gemv_t,
    .dgbmv_n = d_gbmv_n,
    .dgbmv_t = d_gbmv_t,
    .dspmv_u = d_spmv_u,
    .dspmv_l = d_spmv_l,
    .sgemv_n = s_gemv_n,
    .sgemv_t = s_gemv_t,
    .sgbmv_n = s_gbmv_n,
    .sgbmv_t = s_gbmv_t,
    .sspmv_u = s_spmv_u,
    .sspmv_l = s_spmv_l,
};

#else /* ----------------------------------------------- per precision */

#define LN_(p, name) p##_##name
#define LN(p, name) LN_(p, name)
#define L(name) LN(LT_P, name)
#define VEC L(vec)
#define UVEC L(uvec)
#define INLINE static inline __attribute__((always_inline))
#define NOINLINE __attribute__((noinline))
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

/* Store the first k lanes (0 < k < LT_VL) of v at p. */
INLINE void L(storen)(LT_T *p, VEC v, int64_t k)
{
#if NLA_VBYTES == 64 && LT_DOUBLE
    _mm512_mask_storeu_pd(p, (__mmask8)((1u << k) - 1), (__m512d)v);
#elif NLA_VBYTES == 64
    _mm512_mask_storeu_ps(p, (__mmask16)((1u << k) - 1), (__m512)v);
#elif NLA_VBYTES == 32 && LT_DOUBLE
    /* AVX2's masked stores are slow on AMD: store by the bits of k, in
       pieces of fixed size, from registers.  (Neither a loop over the
       lanes, which GCC turned into a call to memcpy, one per pass of a
       float gemv 300 x 300 at 0.5 us each, nor a memcpy from v's address,
       which kept the caller's sum in memory, stored and reloaded at every
       column: double gbmv kl = 4 N on two threads read 7.8 GB/s against
       12.3.) */
    __m128d h = _mm256_castpd256_pd128((__m256d)v);

    if (k & 2) {
        _mm_storeu_pd(p, h);
        h = _mm256_extractf128_pd((__m256d)v, 1);
        p += 2;
    }
    if (k & 1)
        _mm_store_sd(p, h);
#elif NLA_VBYTES == 32
    __m128 h = _mm256_castps256_ps128((__m256)v);

    if (k & 4) {
        _mm_storeu_ps(p, h);
        h = _mm256_extractf128_ps((__m256)v, 1);
        p += 4;
    }
    if (k & 2) {
        _mm_storel_epi64((__m128i *)(void *)p, _mm_castps_si128(h));
        h = _mm_movehl_ps(h, h);
        p += 2;
    }
    if (k & 1)
        _mm_store_ss(p, h);
#else
    /* constant lane indices only, for the reasons above */
#if LT_VL > 2
    if (k > 2)
        p[2] = v[2];
    if (k > 1)
        p[1] = v[1];
#else
    (void)k; /* double: k is 1 */
#endif
    p[0] = v[0];
#endif
}

/* lanes summed in a fixed order (pairwise halves) */
INLINE LT_T L(hsum)(VEC v)
{
    LT_T s[LT_VL];
    memcpy(s, &v, sizeof s);
    UNROLL
    for (int h = LT_VL / 2; h >= 1; h /= 2)
        UNROLL
        for (int t = 0; t < h; t++)
            s[t] += s[t + h];
    return s[0];
}

/* d[q] = L(hsum)(v[q]) for q < 4, bit for bit (the same pairwise halves:
   lanes VL/2 apart, then VL/4, ..., so that turning v[q]'s lanes, t to
   t+k mod VL, leaves d[q] as it is; L(dot_al) relies on that),
   the four reductions side by side in vector shuffles (GCC >= 12 and clang
   both have __builtin_shufflevector; GCC's __builtin_shuffle broke the clang
   builds: tests/fuzz/run.sh). */
#define SHUF(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
INLINE void L(hsum4)(const VEC *v, LT_T *d)
{
#if LT_VL == 4
    VEC w01 = SHUF(v[0], v[1], 0, 1, 4, 5) + SHUF(v[0], v[1], 2, 3, 6, 7);
    VEC w23 = SHUF(v[2], v[3], 0, 1, 4, 5) + SHUF(v[2], v[3], 2, 3, 6, 7);
    VEC r = SHUF(w01, w23, 0, 2, 4, 6) + SHUF(w01, w23, 1, 3, 5, 7);
    memcpy(d, &r, 4 * sizeof(LT_T));
#elif LT_VL == 8
    VEC w01 = SHUF(v[0], v[1], 0, 1, 2, 3, 8, 9, 10, 11) +
              SHUF(v[0], v[1], 4, 5, 6, 7, 12, 13, 14, 15);
    VEC w23 = SHUF(v[2], v[3], 0, 1, 2, 3, 8, 9, 10, 11) +
              SHUF(v[2], v[3], 4, 5, 6, 7, 12, 13, 14, 15);
    VEC x = SHUF(w01, w23, 0, 1, 4, 5, 8, 9, 12, 13) +
            SHUF(w01, w23, 2, 3, 6, 7, 10, 11, 14, 15);
    VEC r = SHUF(x, x, 0, 2, 4, 6, 0, 0, 0, 0) + SHUF(x, x, 1, 3, 5, 7, 0, 0, 0, 0);
    memcpy(d, &r, 4 * sizeof(LT_T));
#elif LT_VL == 16
#define L2_LO8 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23
#define L2_HI8 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31
    VEC w01 = SHUF(v[0], v[1], L2_LO8) + SHUF(v[0], v[1], L2_HI8);
    VEC w23 = SHUF(v[2], v[3], L2_LO8) + SHUF(v[2], v[3], L2_HI8);
#undef L2_LO8
#undef L2_HI8
    VEC x = SHUF(w01, w23, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27) +
            SHUF(w01, w23, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
    VEC y = SHUF(x, x, 0, 1, 4, 5, 8, 9, 12, 13, 0, 0, 0, 0, 0, 0, 0, 0) +
            SHUF(x, x, 2, 3, 6, 7, 10, 11, 14, 15, 0, 0, 0, 0, 0, 0, 0, 0);
    VEC r = SHUF(y, y, 0, 2, 4, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) +
            SHUF(y, y, 1, 3, 5, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    memcpy(d, &r, 4 * sizeof(LT_T));
#else
    for (int q = 0; q < 4; q++)
        d[q] = L(hsum)(v[q]);
#endif
}
#undef SHUF

/* beta*y + alpha*s; beta == 0 does not read y */
INLINE LT_T L(blend)(LT_T alpha, LT_T s, LT_T beta, const LT_T *y)
{
    return beta == 0 ? alpha * s : beta * *y + alpha * s;
}

/* a[0..len) . x[0..len): two accumulators, the partial vector into the
   first, then the lanes */
INLINE LT_T L(dot)(int64_t len, const LT_T *a, const LT_T *x)
{
    VEC s0 = SPLAT(0), s1 = SPLAT(0);
    int64_t i = 0;

    for (; i + 2 * LT_VL <= len; i += 2 * LT_VL) {
        s0 += LOADU(a + i) * LOADU(x + i);
        s1 += LOADU(a + i + LT_VL) * LOADU(x + i + LT_VL);
    }
    if (i + LT_VL <= len) {
        s0 += LOADU(a + i) * LOADU(x + i);
        i += LT_VL;
    }
    if (i < len)
        s1 += L(loadn)(a + i, len - i) * L(loadn)(x + i, len - i);
    return L(hsum)(s0 + s1);
}

/* ---------------------------------------------------------------- gemv */

/* y[0..m) += A[:, 0..C) (alpha x[0..C)): even columns into one sum, odd
   into another, so that the chain of dependent adds is C/2 long */
INLINE void L(gemv_nc)(const int C, int64_t m, const LT_T *a, int64_t lda,
                       const LT_T *x, LT_T alpha, LT_T *y)
{
    VEC xv[8];
    int64_t i = 0;

    UNROLL
    for (int c = 0; c < C; c++)
        xv[c] = SPLAT(alpha * x[c]);
    for (; i + LT_VL <= m; i += LT_VL) {
        VEC t0 = LOADU(y + i), t1 = SPLAT(0);
        UNROLL
        for (int c = 0; c < C; c += 2) {
            t0 += LOADU(a + c * lda + i) * xv[c];
            if (c + 1 < C)
                t1 += LOADU(a + (c + 1) * lda + i) * xv[c + 1];
        }
        STOREU(y + i, t0 + t1);
    }
    if (i < m) {
        int64_t k = m - i;
        VEC t0 = L(loadn)(y + i, k), t1 = SPLAT(0);
        UNROLL
        for (int c = 0; c < C; c += 2) {
            t0 += L(loadn)(a + c * lda + i, k) * xv[c];
            if (c + 1 < C)
                t1 += L(loadn)(a + (c + 1) * lda + i, k) * xv[c + 1];
        }
        L(storen)(y + i, t0 + t1, k);
    }
}

/* Eight columns a pass, four when the matrix stays in the last-level
   cache (the profile's gemv_cached_bytes; L2_GEMV_CACHED_BYTES, level2.c,
   has the measurements). */
static void L(gemv_n)(int64_t m, int64_t n, const LT_T *a, int64_t lda, const LT_T *x,
                      LT_T alpha, LT_T *y, int cached)
{
    int64_t j = 0;

    if (!cached)
        for (; j + 8 <= n; j += 8)
            L(gemv_nc)(8, m, a + j * lda, lda, x + j, alpha, y);
    for (; j + 4 <= n; j += 4)
        L(gemv_nc)(4, m, a + j * lda, lda, x + j, alpha, y);
    if (j + 2 <= n) {
        L(gemv_nc)(2, m, a + j * lda, lda, x + j, alpha, y);
        j += 2;
    }
    if (j < n)
        L(gemv_nc)(1, m, a + j * lda, lda, x + j, alpha, y);
}

/* Four dots of length len in one pass, d[q] = a[q*lda ..] . x[q*xs ..]
   (xs = 0 for gemv; the columns of a band shift x by xs = 1), each summed
   exactly as L(dot) does:
   the same bits as four calls, less time in the horizontal sums, which
   dominate short dots. */
INLINE void L(dot4)(int64_t len, const LT_T *a, int64_t lda, const LT_T *x, const int xs,
                    LT_T *d)
{
    VEC s0[4], s1[4];
    int64_t i = 0;

    UNROLL
    for (int q = 0; q < 4; q++)
        s0[q] = s1[q] = SPLAT(0);
    for (; i + 2 * LT_VL <= len; i += 2 * LT_VL) {
        UNROLL
        for (int q = 0; q < 4; q++) {
            s0[q] += LOADU(a + q * lda + i) * LOADU(x + q * xs + i);
            s1[q] += LOADU(a + q * lda + i + LT_VL) * LOADU(x + q * xs + i + LT_VL);
        }
    }
    if (i + LT_VL <= len) {
        UNROLL
        for (int q = 0; q < 4; q++)
            s0[q] += LOADU(a + q * lda + i) * LOADU(x + q * xs + i);
        i += LT_VL;
    }
    if (i < len) {
        UNROLL
        for (int q = 0; q < 4; q++)
            s1[q] += L(loadn)(a + q * lda + i, len - i) * L(loadn)(x + q * xs + i, len - i);
    }
    UNROLL
    for (int q = 0; q < 4; q++)
        s0[q] += s1[q];
    L(hsum4)(s0, d);
}

/* Four columns' dots in one pass over x, each in the order of L(dot). */
static void L(gemv_t)(int64_t m, int64_t n, const LT_T *a, int64_t lda, const LT_T *x,
                      LT_T alpha, LT_T beta, LT_T *y)
{
    int64_t j = 0;

    for (; j + 4 <= n; j += 4) {
        LT_T d[4];
        L(dot4)(m, a + j * lda, lda, x, 0, d);
        UNROLL
        for (int u = 0; u < 4; u++)
            y[j + u] = L(blend)(alpha, d[u], beta, y + j + u);
    }
    for (; j < n; j++)
        y[j] = L(blend)(alpha, L(dot)(m, a + j * lda, x), beta, y + j);
}

/* ---------------------------------------------------------------- gbmv */

/*
 * Diagonal-wise form for narrow bands: row i (NoTrans) or column j (Trans)
 * of the band is W entries, summed with the diagonals unrolled.  W is a
 * constant in each call (see the switch), so the loop over the diagonals
 * disappears.  Rows away from the matrix's edges only.
 *
 * NoTrans, row i: A(i, i-kl+r) = ab[(kl+ku) + (i-kl)*ldab + r*(ldab-1)].
 * Trans, column j: A(j-ku+r, j) = ab[r + j*ldab].
 */
#if NLA_VBYTES == 64
/*
 * Narrow bands stored without padding (ldab == w), AVX-512: VL columns are
 * w*VL contiguous entries, loaded as w vectors and regrouped in registers
 * (two-source permutes) into "entry r of each of the VL columns".  Trans
 * sums those against shifted x; NoTrans needs, for VL rows, entry w-1-r of
 * the columns r..r+VL-1 after the first, one more permute across two
 * column blocks.  The vector rows (columns) are the whole VL-aligned groups
 * of the range, the same for any blocks (blocks start on multiples of
 * L2_ALIGN), and each sums its diagonals in the scalar form's order.
 */
#define L2_DEINT 1
#if LT_DOUBLE
typedef __mmask8 L(kmask);
#define L2_PERM2(a, i, b) ((VEC)_mm512_permutex2var_pd((__m512d)(a), (i), (__m512d)(b)))
#define L2_PERM2Z(k, a, i, b)                                                  \
    _mm512_castpd_si512(_mm512_maskz_permutex2var_pd((k), (__m512d)(a), (i), (__m512d)(b)))
#else
typedef __mmask16 L(kmask);
#define L2_PERM2(a, i, b) ((VEC)_mm512_permutex2var_ps((__m512)(a), (i), (__m512)(b)))
#define L2_PERM2Z(k, a, i, b)                                                  \
    _mm512_castps_si512(_mm512_maskz_permutex2var_ps((k), (__m512)(a), (i), (__m512)(b)))
#endif
#define L2_NPAIR(W) (((W) + 1) / 2)

/* Permutes picking entry k = W*t + r of the W vectors src[] into lane t:
   pair p (src[2p], src[2p+1]) supplies the lanes whose k is in
   [2p*VL, 2p*VL + 2*VL). */
typedef struct {
    __m512i idx[6];
    L(kmask) m[6];
} L(picks);

INLINE void L(pick_init)(const int W, int64_t r, L(picks) *pk)
{
    for (int p = 0; p < L2_NPAIR(W); p++) {
        VEC_IDX lanes;
        unsigned m = 0;
        for (int t = 0; t < LT_VL; t++) {
            int64_t k = W * t + r - 2 * LT_VL * p;
            lanes[t] = k >= 0 && k < 2 * LT_VL ? k : 0;
            m |= (k >= 0 && k < 2 * LT_VL ? 1u : 0u) << t;
        }
        pk->idx[p] = (__m512i)lanes;
        pk->m[p] = (L(kmask))m;
    }
}

INLINE VEC L(pick)(const int W, const VEC *src, const L(picks) *pk)
{
    /* each pair's lanes by a zero-masked permute; the pairs' masks split
       the lanes, so OR-ing the parts (three at a time) selects them.  (On
       Zen 5 this beat merging each part in with a masked move: double
       NoTrans w = 7 16.3 -> 17.9 GB/s on one thread, 30.8 -> 33.5 on two;
       w = 3 unchanged.) */
    __m512i part[6], res;
    int p;
    UNROLL
    for (p = 0; p < L2_NPAIR(W); p++) {
        VEC hi = src[2 * p + 1 < W ? 2 * p + 1 : 2 * p];
        part[p] = L2_PERM2Z(pk->m[p], src[2 * p], pk->idx[p], hi);
    }
    res = part[0];
    UNROLL
    for (p = 1; p + 1 < L2_NPAIR(W); p += 2)
        res = _mm512_ternarylogic_epi32(res, part[p], part[p + 1], 0xFE);
    if (p < L2_NPAIR(W))
        res = _mm512_or_si512(res, part[p]);
    return (VEC)res;
}

/* columns [v0, v1) of y = beta*y + alpha*A'*x, v0 and v1 multiples of VL */
INLINE void L(gbmv_t_deint)(const int W, int64_t ku, const LT_T *ab, const LT_T *x,
                            LT_T alpha, LT_T beta, LT_T *y, int64_t v0, int64_t v1)
{
    L(picks) pk[12];

    for (int r = 0; r < W; r++)
        L(pick_init)(W, r, &pk[r]);
    for (int64_t j = v0; j < v1; j += LT_VL) {
        VEC src[12], s = SPLAT(0);
        UNROLL
        for (int q = 0; q < W; q++)
            src[q] = LOADU(ab + j * W + q * LT_VL);
        UNROLL
        for (int r = 0; r < W; r++)
            s += L(pick)(W, src, &pk[r]) * LOADU(x + j - ku + r);
        if (beta == 0)
            STOREU(y + j, SPLAT(alpha) * s);
        else
            STOREU(y + j, SPLAT(beta) * LOADU(y + j) + SPLAT(alpha) * s);
    }
}

/* rows [v0, v1) of y = beta*y + alpha*A*x, v0 and v1 multiples of VL; the
   columns up to v1 - kl + VL are read */
INLINE void L(gbmv_n_deint)(const int W, int64_t kl, const LT_T *ab, const LT_T *x,
                            LT_T alpha, LT_T beta, LT_T *y, int64_t v0, int64_t v1)
{
    L(picks) pk[8];
    __m512i shift[8];

    for (int r = 0; r < W; r++) {
        VEC_IDX lanes;
        L(pick_init)(W, W - 1 - r, &pk[r]);
        for (int t = 0; t < LT_VL; t++)
            lanes[t] = t + r; /* lanes r.. of (cur, next) */
        shift[r] = (__m512i)lanes;
    }
    /* pc[r]: diagonal r regrouped from the VL columns from i-kl; the
       next block's (from i-kl+VL) is the next step's pc[r] */
    VEC pc[8];
    if (v0 < v1) {
        VEC cur[8];
        UNROLL
        for (int q = 0; q < W; q++)
            cur[q] = LOADU(ab + (v0 - kl) * W + q * LT_VL);
        UNROLL
        for (int r = 0; r < W; r++)
            pc[r] = L(pick)(W, cur, &pk[r]);
    }
    for (int64_t i = v0; i < v1; i += LT_VL) {
        const LT_T *c = ab + (i - kl + LT_VL) * W; /* columns i-kl+VL .. i-kl+2VL */
        VEC nxt[8], s = SPLAT(0);
        UNROLL
        for (int q = 0; q < W; q++)
            nxt[q] = LOADU(c + q * LT_VL);
        UNROLL
        for (int r = 0; r < W; r++) {
            VEC pn = L(pick)(W, nxt, &pk[r]);
            VEC d = L2_PERM2(pc[r], shift[r], pn);
            s += d * LOADU(x + i - kl + r);
            pc[r] = pn;
        }
        if (beta == 0)
            STOREU(y + i, SPLAT(alpha) * s);
        else
            STOREU(y + i, SPLAT(beta) * LOADU(y + i) + SPLAT(alpha) * s);
    }
}
#else
#define L2_DEINT 0
#endif

/* the whole VL-aligned groups [*v0, *v1) of [lo, hi) (empty: both hi) */
INLINE void L(vec_groups)(int64_t lo, int64_t hi, int64_t *v0, int64_t *v1)
{
    *v0 = (lo + LT_VL - 1) / LT_VL * LT_VL;
    *v1 = hi / LT_VL * LT_VL;
    if (*v1 <= *v0)
        *v0 = *v1 = hi;
}

INLINE void L(gbmv_n_diag1)(const int W, int64_t kl, int64_t ku, const LT_T *ab,
                            int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                            int64_t lo, int64_t hi)
{
    /* p is formed per row, not stepped past the last one: with a huge
       ldab, ab + hi*ldab would overflow the address space (UB) */
    for (int64_t i = lo; i < hi; i++) {
        const LT_T *p = ab + (kl + ku) + (i - kl) * ldab;
        const LT_T *xp = x + i - kl;
        LT_T s = 0;
        UNROLL
        for (int r = 0; r < W; r++)
            s += p[r * (ldab - 1)] * xp[r];
        y[i] = L(blend)(alpha, s, beta, y + i);
    }
}

INLINE void L(gbmv_n_diag)(const int W, int64_t n, int64_t kl, int64_t ku,
                           const LT_T *ab, int64_t ldab, const LT_T *x, LT_T alpha,
                           LT_T beta, LT_T *y, int64_t lo, int64_t hi)
{
#if L2_DEINT
    if (ldab == W && W > 1) {
        int64_t v0, v1;
        /* the vector loop reads columns up to i - kl + 2*VL - 1 */
        L(vec_groups)(lo, MIN(hi, n + kl - 2 * LT_VL + 1), &v0, &v1);
        if (v0 < v1) {
            L(gbmv_n_diag1)(W, kl, ku, ab, ldab, x, alpha, beta, y, lo, v0);
            L(gbmv_n_deint)(W, kl, ab, x, alpha, beta, y, v0, v1);
            lo = v1;
        }
    }
#else
    (void)n;
#endif
    L(gbmv_n_diag1)(W, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi);
}

INLINE void L(gbmv_t_diag1)(const int W, int64_t ku, const LT_T *ab, int64_t ldab,
                           const LT_T *x, LT_T alpha, LT_T beta, LT_T *y, int64_t lo,
                           int64_t hi)
{
    for (int64_t j = lo; j < hi; j++) {   /* p per column, as above */
        const LT_T *p = ab + j * ldab;
        const LT_T *xp = x + j - ku;
        LT_T s = 0;
        UNROLL
        for (int r = 0; r < W; r++)
            s += p[r] * xp[r];
        y[j] = L(blend)(alpha, s, beta, y + j);
    }
}

INLINE void L(gbmv_t_diag)(const int W, int64_t ku, const LT_T *ab, int64_t ldab,
                           const LT_T *x, LT_T alpha, LT_T beta, LT_T *y, int64_t lo,
                           int64_t hi)
{
#if L2_DEINT
    if (ldab == W && W > 1) {
        int64_t v0, v1;
        L(vec_groups)(lo, hi, &v0, &v1);
        if (v0 < v1) {
            L(gbmv_t_diag1)(W, ku, ab, ldab, x, alpha, beta, y, lo, v0);
            L(gbmv_t_deint)(W, ku, ab, x, alpha, beta, y, v0, v1);
            lo = v1;
        }
    }
#endif
    L(gbmv_t_diag1)(W, ku, ab, ldab, x, alpha, beta, y, lo, hi);
}

/* The same sums near the edges, where part of the band lies outside A. */
static void L(gbmv_n_edge)(int64_t n, int64_t kl, int64_t ku, const LT_T *ab,
                           int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                           int64_t lo, int64_t hi)
{
    for (int64_t i = lo; i < hi; i++) {
        int64_t j0 = MAX(0, i - kl), j1 = MIN(n - 1, i + ku);
        LT_T s = 0;
        for (int64_t j = j0; j <= j1; j++)
            s += ab[ku + i - j + j * ldab] * x[j];
        y[i] = L(blend)(alpha, s, beta, y + i);
    }
}

static void L(gbmv_t_edge)(int64_t m, int64_t kl, int64_t ku, const LT_T *ab,
                           int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                           int64_t lo, int64_t hi)
{
    for (int64_t j = lo; j < hi; j++) {
        int64_t i0 = MAX(0, j - ku), i1 = MIN(m - 1, j + kl);
        LT_T s = 0;
        for (int64_t i = i0; i <= i1; i++)
            s += ab[ku + i - j + j * ldab] * x[i];
        y[j] = L(blend)(alpha, s, beta, y + j);
    }
}

#define L2_DIAG_CASES(CALL)                                                    \
    switch (w) {                                                               \
    case 1: CALL(1); break;                                                    \
    case 2: CALL(2); break;                                                    \
    case 3: CALL(3); break;                                                    \
    case 4: CALL(4); break;                                                    \
    case 5: CALL(5); break;                                                    \
    case 6: CALL(6); break;                                                    \
    case 7: CALL(7); break;                                                    \
    default: CALL(8); break;                                                   \
    }

/* The portable kernel's Trans takes the diagonal-wise form up to
   L2_T_DIAG_MAX diagonals: its columns are contiguous, and a dot this
   short costs more in its horizontal sum than in its products.  (AVX2 and
   AVX-512 take the transposed-block form above NLA_L2_DIAG_MAX, so these
   widths never reach the diagonal-wise form there.) */
#ifndef L2_T_DIAG_MAX
#define L2_T_DIAG_MAX 12
#endif
#define L2_DIAG_CASES_T(CALL)                                                  \
    switch (w) {                                                               \
    case 9: CALL(9); break;                                                    \
    case 10: CALL(10); break;                                                  \
    case 11: CALL(11); break;                                                  \
    default: CALL(12); break;                                                  \
    }

/* Rows [lo, hi) of y = beta*y + alpha*A*x, narrow band. */
static void L(gbmv_n_rows)(int64_t m, int64_t n, int64_t kl, int64_t ku,
                           const LT_T *ab, int64_t ldab, const LT_T *x, LT_T alpha,
                           LT_T beta, LT_T *y, int64_t lo, int64_t hi)
{
    int w = (int)(kl + ku + 1);
    /* interior rows: i - kl >= 0 and i + ku <= n - 1 */
    int64_t a = MIN(MAX(lo, kl), hi), b = MAX(MIN(hi, MIN(m, n - ku)), a);

    (void)m;
    L(gbmv_n_edge)(n, kl, ku, ab, ldab, x, alpha, beta, y, lo, a);
#define L2_N_DIAG(W) L(gbmv_n_diag)(W, n, kl, ku, ab, ldab, x, alpha, beta, y, a, b)
    L2_DIAG_CASES(L2_N_DIAG)
#undef L2_N_DIAG
    L2_UPPER_CLEAN();
    L(gbmv_n_edge)(n, kl, ku, ab, ldab, x, alpha, beta, y, b, hi);
}

/* the mask of lanes [t0, t1), 0 <= t0 <= t1 <= VL */
#if NLA_VBYTES == 64
INLINE unsigned L(lanes)(int64_t t0, int64_t t1)
{
    return ((1u << t1) - 1) & ~((1u << t0) - 1);
}
#elif NLA_VBYTES == 32
INLINE __m256i L(lanes)(int64_t t0, int64_t t1)
{
#if LT_DOUBLE
    __m256i ix = _mm256_setr_epi64x(0, 1, 2, 3);
    return _mm256_andnot_si256(_mm256_cmpgt_epi64(_mm256_set1_epi64x(t0), ix),
                               _mm256_cmpgt_epi64(_mm256_set1_epi64x(t1), ix));
#else
    __m256i ix = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32((int)t0), ix),
                               _mm256_cmpgt_epi32(_mm256_set1_epi32((int)t1), ix));
#endif
}
#endif

#if NLA_VBYTES >= 32
/* acc + a*b, one rounding (the compiler's contraction is not relied on:
   the bits of L(dot_al), and the agreement of the NoTrans forms through
   L(madd), depend on every product being fused) */
INLINE VEC L(fmav)(VEC acc, VEC a, VEC b)
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
#endif

/* acc + a*b.  AVX2 and AVX-512: fused, written out, so that the forms
   which must give the same bits (row vectors, pairs of them, columns) do
   not hang on the compiler contracting a*b + c (-ffp-contract); the
   portable kernel: as the compiler evaluates it, the same in every form. */
INLINE VEC L(madd)(VEC acc, VEC a, VEC b)
{
#if NLA_VBYTES >= 32
    return L(fmav)(acc, a, b);
#else
    return acc + a * b;
#endif
}

/* acc[t] += p[t] * s for lanes t in [t0, t1) only (others unchanged, not
   read from p: they may lie outside the band or the array) */
INLINE VEC L(fma_lanes)(VEC acc, const LT_T *p, LT_T s, int64_t t0, int64_t t1)
{
#if NLA_VBYTES == 64 && LT_DOUBLE
    __mmask8 m = (__mmask8)L(lanes)(t0, t1);
    return (VEC)_mm512_mask3_fmadd_pd(_mm512_maskz_loadu_pd(m, p), _mm512_set1_pd(s),
                                      (__m512d)acc, m);
#elif NLA_VBYTES == 64
    __mmask16 m = (__mmask16)L(lanes)(t0, t1);
    return (VEC)_mm512_mask3_fmadd_ps(_mm512_maskz_loadu_ps(m, p), _mm512_set1_ps(s),
                                      (__m512)acc, m);
#elif NLA_VBYTES == 32 && LT_DOUBLE
    __m256i m = L(lanes)(t0, t1);
    VEC t = L(fmav)(acc, (VEC)_mm256_maskload_pd(p, m), SPLAT(s));
    return (VEC)_mm256_blendv_pd((__m256d)acc, (__m256d)t, _mm256_castsi256_pd(m));
#elif NLA_VBYTES == 32
    __m256i m = L(lanes)(t0, t1);
    VEC t = L(fmav)(acc, (VEC)_mm256_maskload_ps(p, m), SPLAT(s));
    return (VEC)_mm256_blendv_ps((__m256)acc, (__m256)t, _mm256_castsi256_ps(m));
#else
    for (int64_t t = t0; t < t1; t++)
        acc[t] += p[t] * s;
    return acc;
#endif
}

/* Prefetch the stored band (w entries each) of columns [j, j+count) that
   exist.  A band column is a short run, which the hardware prefetchers do
   not pick up in time; the kernels fetch the columns they will read next
   in address order, L2_PF_BYTES of band ahead.  TOL2 (a constant) fetches
   into L2 (prefetcht1) instead of L1: the aligned Trans form's choice on
   the xeon profile (L(gbmv_t_al)). */
#ifndef L2_PF_BYTES
#define L2_PF_BYTES 8192
#endif
#define L2_PREFETCH(TOL2, p)                                                   \
    ((TOL2) ? __builtin_prefetch((const void *)(p), 0, 2)                      \
            : __builtin_prefetch((const void *)(p), 0, 3))
INLINE void L(prefetch_cols_to)(const int TOL2, const LT_T *ab, int64_t ldab, int64_t w,
                                int64_t n, int64_t j, int64_t count)
{
    int64_t c0 = MAX(j, 0), c1 = MIN(j + count, n);

    if (c0 >= c1)
        return;
    if (ldab - w <= 16) {
        /* little padding: one run of lines (faster than a loop per column,
           which fetches the line two columns share twice) */
        uintptr_t p = (uintptr_t)(ab + c0 * ldab);
        uintptr_t len = (uintptr_t)((c1 - c0) * ldab) * sizeof(LT_T);
        for (uintptr_t o = 0; o < len; o += 64)
            L2_PREFETCH(TOL2, p + o);
        return;
    }
    for (int64_t c = c0; c < c1; c++) {
        uintptr_t p = (uintptr_t)(ab + c * ldab);
        for (uintptr_t o = 0; o < (uintptr_t)w * sizeof(LT_T); o += 64)
            L2_PREFETCH(TOL2, p + o);
    }
}

INLINE void L(prefetch_cols)(const LT_T *ab, int64_t ldab, int64_t w, int64_t n,
                             int64_t j, int64_t count)
{
    L(prefetch_cols_to)(0, ab, ldab, w, n, j, count);
}

/* how many columns ahead to prefetch: L2_PF_BYTES of band */
INLINE int64_t L(pf_ahead)(int64_t w)
{
    int64_t d = L2_PF_BYTES / (w * (int64_t)sizeof(LT_T));
    return d > 0 ? d : 1;
}

/* The same for kernels that prefetch `count` columns per step of `count`
   columns, measured to the far end of the group prefetched: it ends
   L2_PF_END_BYTES of band past the group being read.  On Zen 5, one
   core, gbmv Trans kl=ku=64 (medians of 9 interleaved samples, 3 runs):
   double reads 35.3-35.9 GB/s with the group's start 8 KiB ahead (its end
   11.3 KiB), 36.3-38.1 with its end 8.3-10.3 KiB ahead; float 35.4-36.8
   with its end 8.8-9.8 KiB ahead, 32.6-33.6 at 5.7 KiB. */
#ifndef L2_PF_END_BYTES
#define L2_PF_END_BYTES 10240
#endif
INLINE int64_t L(pf_ahead_group)(int64_t w, int64_t count)
{
    int64_t col = w * (int64_t)sizeof(LT_T), d = (L2_PF_END_BYTES - count * col) / col;
    return d > 0 ? d : 1;
}

/* Whether count rows (NoTrans) or columns (Trans) of a band w wide are
   read as four streams (L(gbmv_n_streams), L(gbmv_t_al_to)): on profiles
   that do, while each stream holds the profile's stream_bytes of band
   and a quarter of the range several columns. */
INLINE int L(streams_fit)(int64_t count, int64_t w, const nla_l2_tune *tune)
{
    return tune->stream_bytes > 0 && count / 4 >= 4 * w + LT_VL &&
           (double)(count / 4) * (double)w * sizeof(LT_T) >= (double)tune->stream_bytes;
}

#if NLA_VBYTES >= 32
/* A lane mask kept for reuse: the k register's bits (AVX-512) or a vector
   of all-ones lanes (AVX2). */
#if NLA_VBYTES == 64
typedef unsigned L(lmask);
#else
typedef __m256i L(lmask);
#endif

/* acc + a*b on the lanes of m, one rounding; acc on the others (a and b
   are registers: their other lanes may hold anything) */
INLINE VEC L(fma_vm)(VEC acc, VEC a, VEC b, L(lmask) m)
{
#if NLA_VBYTES == 64 && LT_DOUBLE
    return (VEC)_mm512_mask3_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)acc, (__mmask8)m);
#elif NLA_VBYTES == 64
    return (VEC)_mm512_mask3_fmadd_ps((__m512)a, (__m512)b, (__m512)acc, (__mmask16)m);
#elif LT_DOUBLE
    return (VEC)_mm256_blendv_pd((__m256d)acc, (__m256d)L(fmav)(acc, a, b),
                                 _mm256_castsi256_pd(m));
#else
    return (VEC)_mm256_blendv_ps((__m256)acc, (__m256)L(fmav)(acc, a, b),
                                 _mm256_castsi256_ps(m));
#endif
}

/* acc + p[0..VL)*s on the lanes of m, one rounding; acc on the others.
   p[0..VL) must lie inside the storage.  (On AVX-512 the load may become
   the multiply-add's masked memory operand.  L(loadu_reg) avoids that in
   the column form, where it was slow; here, with every lane inside the
   storage, it measured faster than a plain load kept in a register:
   float w = 17 by rows 38 against 32 GB/s on one Zen 5 core.) */
INLINE VEC L(fma_m)(VEC acc, const LT_T *p, LT_T s, L(lmask) m)
{
    return L(fma_vm)(acc, LOADU(p), SPLAT(s), m);
}

#endif
/* the most columns an interior vector of rows crosses (VL + w - 1) that
   the lane table of L(gbmv_n_rowpairs) holds: AVX-512 160 (double w up to
   153, float 145), AVX2 96 (double 93, float 89).  On the Xeon, one
   thread, AVX2 pairs against the column form read 1.03-1.35x at w = 65
   but 0.91-1.03x at w = 129. */
#ifndef L2_RV_MAXJ
#if NLA_VBYTES == 64
#define L2_RV_MAXJ 160
#else
#define L2_RV_MAXJ 96
#endif
#endif

/* y[i0, i0+nr) (nr <= VL) scaled by beta, the start of the row-vector
   forms' sums: beta*y rounded, as the column form stores it (not fused into
   the first column's multiply-add), y when beta is 1, 0 when beta is 0 */
INLINE VEC L(rowvec_start)(const LT_T *y, int64_t nr, LT_T beta)
{
    VEC t;

    if (beta == 0)
        return SPLAT(0);
    if (nr == LT_VL)
        t = LOADU(y);
    else
        t = L(loadn)(y, nr);
    if (beta != 1) {
        t = SPLAT(beta) * t;
#if NLA_VBYTES >= 32
        __asm__("" : "+v"(t));
#endif
    }
    return t;
}

/*
 * Rows [lo, hi) of y = beta*y + alpha*A*x, one vector of rows at a time
 * with its sum in registers: the columns crossing the rows [i0, i0+VL)
 * each add a vector (a stored column is contiguous along the rows), the
 * columns at the band's edges only on their lanes.  y is read and written
 * once and no store is reloaded.  The rows sweep the band storage
 * diagonally, which the hardware does not prefetch well, so the storage
 * ahead is prefetched, VL columns a step (L(pf_ahead_group)).
 *
 * Each y[i] starts as beta*y[i] (y[i] when beta is 1, 0 when beta is 0)
 * and takes (alpha*x[j])*A(i,j) in increasing j by multiply-adds: the
 * column form's operations in the column form's order, so that the two
 * forms give the same bits and L(gbmv_n) may pick either by thread count.
 * One chain per vector of rows; out-of-order execution overlaps the next
 * vector's.  L(gbmv_n_rowvec) takes the interior of narrow bands two
 * vectors at a time instead.
 */
__attribute__((noinline)) static void
L(gbmv_n_rowvec1)(int64_t n, int64_t kl, int64_t ku, const LT_T *ab, int64_t ldab,
                  const LT_T *x, LT_T alpha, LT_T beta, LT_T *y, int64_t lo, int64_t hi)
{
    const int64_t w = kl + ku + 1, ahead = L(pf_ahead_group)(w, LT_VL);

    for (int64_t i0 = lo; i0 < hi; i0 += LT_VL) {
        int64_t nr = MIN(LT_VL, hi - i0);
        int64_t j0 = MAX(0, i0 - kl), j1 = MIN(n - 1, i0 + nr - 1 + ku);
        /* whole-vector columns: j - ku <= i0 and j + kl >= i0 + VL - 1 */
        int64_t f0 = MAX(j0, i0 + LT_VL - 1 - kl), f1 = MIN(j1, i0 + ku);
        const LT_T *p = ab + ku + i0;
        VEC t = L(rowvec_start)(y + i0, nr, beta);
        int64_t j = j0;

        L(prefetch_cols)(ab, ldab, w, n, i0 + ku + ahead, LT_VL);
        if (nr < LT_VL)
            f0 = f1 + 1; /* a partial vector of rows: lanes only */
        for (; j < f0 && j <= j1; j++)
            t = L(fma_lanes)(t, p + j * (ldab - 1), alpha * x[j], MAX(0, j - ku - i0),
                             MIN(nr, j + kl - i0 + 1));
        for (; j <= f1; j++)
            t = L(madd)(t, LOADU(p + j * (ldab - 1)), SPLAT(alpha * x[j]));
        for (; j <= j1; j++)
            t = L(fma_lanes)(t, p + j * (ldab - 1), alpha * x[j], MAX(0, j - ku - i0),
                             MIN(nr, j + kl - i0 + 1));
        if (nr == LT_VL)
            STOREU(y + i0, t);
        else
            L(storen)(y + i0, t, nr);
    }
}

#if NLA_VBYTES >= 32

/* Rows [lo, hi) by vectors of rows two at a time, all interior: lo >= kl,
   hi <= n - ku, hi - lo a multiple of 2*VL.  The vector of rows
   [i0, i0+VL) crosses the columns j = i0-kl+k, k in [0, VL+w-1), each on
   lanes [k-w+1, k] of its vector (all of them for k in [VL-1, w-1] when
   w >= VL): the same lanes for every interior vector, so their masks are
   made once.  Its loads lie inside the storage: the k-th starts at entry
   (i0-kl)*ldab + w-1 + k*(ldab-1) and the last ends at
   (i0+VL-1+ku)*ldab + 1. */
__attribute__((noinline)) static void
L(gbmv_n_rowpairs)(int64_t n, int64_t kl, int64_t ku, const LT_T *ab, int64_t ldab,
                   const LT_T *x, LT_T alpha, LT_T beta, LT_T *y, int64_t lo, int64_t hi)
{
    const int64_t w = kl + ku + 1, ahead = L(pf_ahead_group)(w, LT_VL), s = ldab - 1;
    const int64_t nj = LT_VL + w - 1;
    const int64_t kf0 = MIN(w, LT_VL) - 1, kf1 = MAX(w, LT_VL) - 1;
    L(lmask) mk[L2_RV_MAXJ];

    for (int64_t k = 0; k < nj; k++)
        mk[k] = L(lanes)(MAX(0, k - w + 1), MIN(LT_VL, k + 1));
    /* (the 2*VL columns prefetched a step end VL columns past where
       L(pf_ahead_group) puts the end of a group of VL; the speeds quoted
       at L(gbmv_n_rowvec) were measured so) */
    for (int64_t i0 = lo; i0 < hi; i0 += 2 * LT_VL) {
        const LT_T *pa = ab + (i0 - kl) * ldab + (w - 1), *xa = x + i0 - kl;
        const LT_T *pb = pa + LT_VL * ldab, *xb = xa + LT_VL;
        VEC ta = L(rowvec_start)(y + i0, LT_VL, beta);
        VEC tb = L(rowvec_start)(y + i0 + LT_VL, LT_VL, beta);
        int64_t k = 0;

        L(prefetch_cols)(ab, ldab, w, n, i0 + ku + ahead, 2 * LT_VL);
        for (; k < kf0; k++) {
            ta = L(fma_m)(ta, pa + k * s, alpha * xa[k], mk[k]);
            tb = L(fma_m)(tb, pb + k * s, alpha * xb[k], mk[k]);
        }
        for (; k <= kf1 && w >= LT_VL; k++) {
            ta = L(fmav)(ta, LOADU(pa + k * s), SPLAT(alpha * xa[k]));
            tb = L(fmav)(tb, LOADU(pb + k * s), SPLAT(alpha * xb[k]));
        }
        for (; k < nj; k++) {
            ta = L(fma_m)(ta, pa + k * s, alpha * xa[k], mk[k]);
            tb = L(fma_m)(tb, pb + k * s, alpha * xb[k], mk[k]);
        }
        STOREU(y + i0, ta);
        STOREU(y + i0 + LT_VL, tb);
    }
}
#endif

/*
 * Row-vector form.  For narrow bands (AVX2, AVX-512) the interior takes
 * two vectors of rows side by side with the lanes from a table
 * (L(gbmv_n_rowpairs)), where one chain and its lane arithmetic were the
 * limit.  Zen 5, GB/s (medians of 9 interleaved samples; one vector at
 * a time, then two):
 *   one thread, AVX-512: float w = 9 18.3, 39.6; w = 17 26.1, 38.1;
 *     w = 21 29.8, 36.3; double w = 9 25.2, 32.2; but double w = 13
 *     32.0, 28.2 (then; see below);
 *   one thread, AVX2: float w = 9 14.8, 34.2; w = 17 21.7, 37.8;
 *     double w = 9 24.2, 34.6;
 *   two threads, in the host's usual state (about 45 GB/s between the
 *     two cores): float w = 9 34.6, 59.3-64.0 (its band nearly fits in
 *     L3), w = 13 41.5, 46.0, but w = 17 43.1-44.9, 37.0-38.5 and double
 *     w = 9 38.1-41.0, 33.8-37.3, which made zen5 teams pair only columns
 *     under 64 bytes and one thread under 96 for a while.
 * Measured again on a Zen 5 (December 2026) the pair won at those widths
 * and at most others from memory, was about even at the rest (double
 * w = 15 and 17, float w = 37: 0.95-1.0x), and in the L3 read twice what
 * one chain reads (double w = 9, two threads: 76-81 against 27 GB/s), so
 * zen5 now pairs every width on one thread and columns under 108 bytes
 * with a team (the figures are at the profiles, src/blas/level2.c).  On
 * the Xeon one chain is the limit at every width the form takes, so the
 * xeon profile pairs them all.
 * The pair gives each lane the same operations in the same order, so
 * the choice does not change the bits.
 */
static void L(gbmv_n_rowvec)(int64_t n, int64_t kl, int64_t ku, const LT_T *ab,
                             int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta,
                             LT_T *y, int64_t lo, int64_t hi, int team,
                             const nla_l2_tune *tune)
{
#if NLA_VBYTES >= 32
    const int64_t w = kl + ku + 1, col = w * (int64_t)sizeof(LT_T);

    if (col < (team > 1 ? tune->rv_pair_team_col_bytes : tune->rv_pair_col_bytes) &&
        LT_VL + w - 1 <= L2_RV_MAXJ) {
        int64_t p0 = MIN(MAX(lo, kl), hi), ie = MIN(hi, n - ku);
        int64_t p1 = ie > p0 ? p0 + (ie - p0) / (2 * LT_VL) * (2 * LT_VL) : p0;
        if (p1 > p0) {
            L(gbmv_n_rowvec1)(n, kl, ku, ab, ldab, x, alpha, beta, y, lo, p0);
            L(gbmv_n_rowpairs)(n, kl, ku, ab, ldab, x, alpha, beta, y, p0, p1);
            lo = p1;
        }
    }
#else
    (void)team;
    (void)tune;
#endif
    L(gbmv_n_rowvec1)(n, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi);
}

/* A plain load kept in a register: the compiler must not fold it into a
   masked instruction as a memory operand, which would make it a masked
   load (fault-suppressing, and on some cores, AMD Zen among them, very
   slow when masked-off lanes are involved). */
INLINE VEC L(loadu_reg)(const LT_T *p)
{
    VEC v = LOADU(p);
#if NLA_VBYTES >= 32
    __asm__("" : "+v"(v));
#endif
    return v;
}

/* acc[t] += p[t] * s for lanes t in [t0, t1), like L(fma_lanes), but p[0]
   to p[VL-1] may all be read (the other lanes' products are discarded):
   a plain load, which on some cores is much faster than a masked one. */
INLINE VEC L(fma_lanes_u)(VEC acc, const LT_T *p, LT_T s, int64_t t0, int64_t t1)
{
#if NLA_VBYTES >= 32
    return L(fma_vm)(acc, L(loadu_reg)(p), SPLAT(s), L(lanes)(t0, t1));
#else
    for (int64_t t = t0; t < t1; t++)
        acc[t] += p[t] * s;
    return acc;
#endif
}

/*
 * Column (axpy) form for wide bands: y[lo, hi) is scaled by beta, then
 * every column crossing those rows adds (alpha*x[j]) times its stored
 * segment, NC columns per pass (L(gbmv_n_cols) picks NC).  For bands
 * beyond the last-level cache on the profiles that say so, the scaling
 * is done a stretch of L2_SCALE_AHEAD rows at a time, just before the
 * passes reach it (LAZY), so that it costs no pass of its own over y in
 * memory.  The storage is read in address order, one stream.  The rows
 * are cut on a fixed grid of vectors (multiples of VL from row 0, which
 * the aligned block bounds respect), and each column's entries are loaded
 * onto that grid, the two end vectors masked: y is loaded and stored as
 * whole grid vectors, the same addresses for every column, so loads of y
 * are forwarded from the stores before them.  Each y[i] gets beta*y[i]
 * and then its columns in increasing j: the order is fixed by the shape.
 *
 * Column j holds rows [j-ku, j+kl]; A(i, j) = ab[ku + i + j*(ldab-1)].
 */
#ifndef L2_SCALE_AHEAD
#define L2_SCALE_AHEAD 256
#endif

/* y[lo, hi) *= beta, stored as 0 when beta is 0 (y may hold NaN then) */
INLINE void L(scale_rows)(LT_T *y, int64_t lo, int64_t hi, LT_T beta)
{
    int64_t i;

    if (beta == 0) {
        memset(y + lo, 0, (size_t)(hi - lo) * sizeof(LT_T));
    } else if (beta != 1) {
        for (i = lo; i + LT_VL <= hi; i += LT_VL)
            STOREU(y + i, SPLAT(beta) * LOADU(y + i));
        for (; i < hi; i++)
            y[i] *= beta;
    }
}

/* the same, out of line: the column form's passes call it now and then */
static NOINLINE void L(scale_ahead)(LT_T *y, int64_t lo, int64_t hi, LT_T beta)
{
    L(scale_rows)(y, lo, hi, beta);
}

#if NLA_VBYTES >= 32
/* The lane masks of L(gbmv_n_ncols)'s interior passes, for one phase
   ph = (j - ku - lo) mod VL of the pass's first row against the grid:
   the pass covers vectors [0, nv) of the grid from its first row's; those
   in [hv, tv) lie inside every column of the pass (no mask), the others
   take column q on lanes [ph+q-v*VL, ph+q+w-v*VL) clipped to the vector,
   from m[slot][q] (slot v below hv, hv + v - tv from tv on; at most 3
   vectors of each kind with NC <= 8 and VL >= 4).  ready: 0 not filled
   yet, 1 filled, -1 a band too narrow for the table (tv < hv: a vector
   both starts and ends columns), whose passes take the general path. */
#define L2_NC_SLOTS 6
typedef struct {
    int ready, hv, tv, nv;
    L(lmask) m[L2_NC_SLOTS][8];
} L(ncmask);

/* the masks of vector v of the pass (outside [hv, tv)) */
INLINE L(lmask) *L(ncmask_of)(L(ncmask) *mt, int v)
{
    return mt->m[v < mt->hv ? v : mt->hv + v - mt->tv];
}

INLINE void L(ncmask_fill)(L(ncmask) *mt, const int NC, int64_t ph, int64_t w)
{
    mt->hv = (int)((ph + NC - 1 + LT_VL - 1) / LT_VL);
    mt->tv = (int)((ph + w) / LT_VL);
    mt->nv = (int)((ph + NC - 1 + w + LT_VL - 1) / LT_VL);
    if (mt->tv < mt->hv) {
        mt->ready = -1;
        return;
    }
    for (int v = 0; v < mt->nv; v++) {
        if (v >= mt->hv && v < mt->tv)
            continue;
        L(lmask) *m = L(ncmask_of)(mt, v);
        for (int q = 0; q < NC; q++) {
            int64_t t0 = ph + q - (int64_t)v * LT_VL, t1 = t0 + w;
            t0 = MIN(MAX(t0, 0), LT_VL);
            t1 = MIN(MAX(t1, t0), LT_VL);
            m[q] = L(lanes)(t0, t1);
        }
    }
    mt->ready = 1;
}
#endif

/* The columns [jb, je) that cross rows [lo, hi): y already scaled, or
   (LAZY) scaled from row *scaled on, which it scales as the passes reach
   it, leaving in *scaled where that stopped.  On
   AVX2 and AVX-512, a pass of NC > 1 columns that all lie inside
   [lo, hi), whose vectors of y lie there whole and whose loads lie inside
   the storage takes its lane masks from a table by phase (L(ncmask)),
   not from each column's bounds: the same multiply-adds on the same lanes
   in the same order, so the same bits.  Zen 5, AVX-512, paired medians of
   9-21 rounds of tools/nla-ab against the bounds per column: in the L3,
   double kl = ku = 16 (n = 2^16, 17 MB) 29.3 -> 47.4 GB/s (1.65-1.74x),
   double kl = 64 (n = 2^14) 1.26-1.31x, float kl = 64 (2^15) 1.60-1.64x;
   at n = 2^20 two threads float kl = 16 1.2-1.3x, float kl = 32
   1.06-1.11x, one thread double kl = 64 1.02-1.08x, double kl = 16 and
   float kl = 64 0.93-1.06x from run to run (the read limit is near). */
INLINE void L(gbmv_n_ncols)(const int NC, const int LAZY, int64_t n, int64_t kl, int64_t ku,
                            const LT_T *ab, int64_t ldab, const LT_T *x, LT_T alpha,
                            LT_T beta, int64_t *scaled, LT_T *y, int64_t lo, int64_t hi,
                            int64_t jb, int64_t je)
{
    const LT_T *last = ab + (n - 1) * ldab + (kl + ku + 1) - LT_VL;
    const int64_t w = kl + ku + 1;
    int64_t j = MAX(jb, MAX(0, lo - kl)), i;
    int64_t ahead = L(pf_ahead_group)(w, NC);
    int64_t sc = LAZY ? *scaled : INT64_MAX; /* y[lo, sc) is scaled */

#if NLA_VBYTES >= 32
    L(ncmask) masks[LT_VL];

    if (NC > 1) /* (L(gbmv_n_streams)' single columns: the general path) */
        for (int ph = 0; ph < LT_VL; ph++)
            masks[ph].ready = 0;
#endif

    je = MIN(je, MIN(n, hi + ku));
    for (; j < je; j += NC) {
        int nc = (int)MIN(NC, je - j);
        const LT_T *p[8];
        LT_T xs[8];
        int64_t r0[8], r1[8];

        L(prefetch_cols)(ab, ldab, w, n, j + ahead, NC);
        /* the pass's grid vectors end before row j + NC + kl + VL */
        if (LAZY && j + NC + kl + LT_VL > sc && sc < hi) {
            int64_t to = MIN(hi, MAX(j + NC + kl + LT_VL, sc + L2_SCALE_AHEAD));
            L(scale_ahead)(y, sc, to, beta);
            sc = to;
        }
#if NLA_VBYTES >= 32
        if (NC > 1 && nc == NC && j - ku >= lo && j + NC + kl <= hi) {
            const int64_t ph = (j - ku - lo) % LT_VL, ib = j - ku - ph;
            L(ncmask) *mt = &masks[ph];
            const LT_T *p0 = ab + ku + j * (ldab - 1) + ib;
            VEC xv[8];

            if (!mt->ready)
                L(ncmask_fill)(mt, NC, ph, w);
            if (mt->ready > 0 && ib + (int64_t)mt->nv * LT_VL <= hi && p0 >= ab &&
                p0 + (NC - 1) * (ldab - 1) + (int64_t)(mt->nv - 1) * LT_VL <= last) {
                UNROLL
                for (int q = 0; q < NC; q++)
                    xv[q] = SPLAT(alpha * x[j + q]);
                for (int v = 0; v < mt->nv; v++) {
                    LT_T *yv = y + ib + (int64_t)v * LT_VL;
                    const LT_T *pv = p0 + (int64_t)v * LT_VL;
                    VEC t = LOADU(yv);
                    if (v >= mt->hv && v < mt->tv) {
                        UNROLL
                        for (int q = 0; q < NC; q++)
                            t = L(madd)(t, LOADU(pv + q * (ldab - 1)), xv[q]);
                    } else {
                        const L(lmask) *m = L(ncmask_of)(mt, v);
                        UNROLL
                        for (int q = 0; q < NC; q++)
                            t = L(fma_vm)(t, L(loadu_reg)(pv + q * (ldab - 1)), xv[q], m[q]);
                    }
                    STOREU(yv, t);
                }
                continue;
            }
        }
#endif

        for (int q = 0; q < NC; q++) {
            int qq = q < nc ? q : nc - 1; /* absent columns: empty rows */
            p[q] = ab + ku + (j + qq) * (ldab - 1);
            xs[q] = q < nc ? alpha * x[j + q] : 0;
            r0[q] = MAX(lo, j + qq - ku);
            r1[q] = q < nc ? MIN(hi, j + q + kl + 1) : r0[q];
        }
        /* grid vectors [i, i+VL) from the one holding r0[0] */
        for (i = r0[0] - (r0[0] - lo) % LT_VL; i < r1[nc - 1]; i += LT_VL) {
            int64_t nr = MIN(LT_VL, hi - i);
            VEC t;
            if (nr == LT_VL)
                t = LOADU(y + i);
            else
                t = L(loadn)(y + i, nr);
            if (nc == NC && i >= r0[NC - 1] && i + LT_VL <= r1[0]) {
                UNROLL
                for (int q = 0; q < NC; q++)
                    t = L(madd)(t, LOADU(p[q] + i), SPLAT(xs[q]));
            } else {
                UNROLL
                for (int q = 0; q < NC; q++) {
                    int64_t t0 = MAX(0, r0[q] - i), t1 = MIN(LT_VL, r1[q] - i);
                    const LT_T *pv = p[q] + i;
                    if (t0 < t1 && pv >= ab && pv <= last)
                        t = L(fma_lanes_u)(t, pv, xs[q], t0, t1);
                    else if (t0 < t1)
                        t = L(fma_lanes)(t, pv, xs[q], t0, t1);
                }
            }
            if (nr == LT_VL)
                STOREU(y + i, t);
            else
                L(storen)(y + i, t, nr);
        }
    }
    if (LAZY)
        *scaled = sc;
}

/* Eight columns a pass while a column is under L2_NC8_BYTES (short
   columns: the chain of loads and stores of y is then the limit), four for
   longer ones.  On Zen 5, one thread, double kl=ku=16 reads 30.0 GB/s with
   four and 32.7 with eight; kl=ku=64 35.0 with four, 26.8 with eight.
   Bands of at least the profile's n_col2_band_bytes (zen5: four times
   the L3) scale y as the passes reach it, and from columns of
   L2_NC2_COL_BYTES on take two columns a pass: each pass then reads one
   run of two columns, which the hardware prefetchers follow better than
   four or eight columns loaded a vector of each in turn (without the
   software prefetch the eight read 13.6 GB/s here).  Zen 5, AVX-512,
   paired medians of 9-15 rounds of tools/nla-ab:
     - the scaling as the passes reach it, against a pass first, eight
       columns a pass: double kl = 16, n = 2^20, one thread 1.02-1.05x;
       but in the caches 0.93-0.98x (float kl = 64, n = 2^15, with chunks
       of 256 to 4096 rows alike), hence only for large bands;
     - two columns against eight (four for kl = 64), both scaling as they
       go: one thread double kl = 16, n = 2^20 (277 MB) 1.05-1.06x (34.5
       against 31.8 GB/s, a plain read 35.9), n = 2^18 (69 MB) 1.15-1.17x,
       n = 2^17 (35 MB) 0.98-0.99x, n = 2^16 (17 MB, in the L3)
       0.71-0.74x; float kl = 32 (260-byte columns) 1.08-1.12x, float
       kl = 64 1.05x, double kl = 64 1.00x (one column a pass 1.03x, four
       at kl = 16 1.04-1.09x); AVX2 forced, double kl = 16 1.08-1.14x; two
       threads double kl = 16 1.01-1.07x, kl = 64 1.00x, but float
       kl = 16 (132-byte columns) 0.92x;
     - the same later, with the machine's memory slower (a plain read
       26 GB/s, not 35-40), both against the form before (eight columns,
       y scaled first): double kl = 16, n = 2^17 (35 MB) one thread
       0.72-0.75x, two 0.74-0.79x; 2^18 (69 MB) 0.84-0.87x and
       0.94-1.02x; 2^19 (138 MB) 0.93-0.95x and 1.01-1.02x; 2^20
       0.92-1.01x (all near the read): hence bands of four times the L3.
   Each y[i] gets beta*y[i] and then its columns in increasing j either
   way: the same bits. */
#ifndef L2_NC8_BYTES
#define L2_NC8_BYTES 512
#endif
#ifndef L2_NC2_COL_BYTES
#define L2_NC2_COL_BYTES 192
#endif
static void L(gbmv_n_cols)(int64_t m, int64_t n, int64_t kl, int64_t ku, const LT_T *ab,
                           int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                           int64_t lo, int64_t hi, const nla_l2_tune *tune)
{
    const int64_t col = (kl + ku + 1) * (int64_t)sizeof(LT_T);
    const int64_t ncols = MIN(n, m + ku); /* the columns holding rows of A */
    int64_t sc = lo;

    if (tune->n_col2_band_bytes <= 0 ||
        (double)ncols * (double)col < (double)tune->n_col2_band_bytes) {
        L(scale_rows)(y, lo, hi, beta);
        if (col < L2_NC8_BYTES)
            L(gbmv_n_ncols)(8, 0, n, kl, ku, ab, ldab, x, alpha, beta, NULL, y, lo, hi, 0, n);
        else
            L(gbmv_n_ncols)(4, 0, n, kl, ku, ab, ldab, x, alpha, beta, NULL, y, lo, hi, 0, n);
        return;
    }
    /* (columns under L2_NC2_COL_BYTES are under L2_NC8_BYTES: eight) */
    _Static_assert(L2_NC2_COL_BYTES <= L2_NC8_BYTES, "L2_NC2_COL_BYTES above L2_NC8_BYTES");
    if (col >= L2_NC2_COL_BYTES)
        L(gbmv_n_ncols)(2, 1, n, kl, ku, ab, ldab, x, alpha, beta, &sc, y, lo, hi, 0, n);
    else
        L(gbmv_n_ncols)(8, 1, n, kl, ku, ab, ldab, x, alpha, beta, &sc, y, lo, hi, 0, n);
    L(scale_rows)(y, sc, hi, beta); /* rows no column reaches */
}

#if NLA_VBYTES >= 32
/* one segment's column in L(gbmv_n_streams): its first vector of y, the
   stored entries for those rows, and alpha*x[j] */
typedef struct {
    LT_T *y;
    const LT_T *p;
    LT_T xs;
} L(nstream);

/*
 * NoTrans column form read as four streams.  The rows [lo, hi) are cut
 * into four segments of S rows (the last takes the rest), and the columns
 * that lie wholly inside each segment are taken in step: column c of each
 * segment in turn, one column at a time, each y vector loaded, updated
 * and stored.  The band is then read as four sequential runs a quarter of
 * the range apart, which the hardware prefetchers follow (no software
 * prefetch); four adjacent columns at a time are one run that jumps a
 * column ahead every vector, which they follow poorly on some cores (the
 * measurements are at the zen3 profile, src/blas/level2.c).  Every y[i]
 * still takes beta*y[i] and then its columns in increasing j, each by one
 * multiply-add: the column form's bits.  The columns crossing a segment's
 * ends go through L(gbmv_n_ncols), before and after its own.  The segment
 * starts are on the grid of vectors from lo (S is a multiple of VL), so
 * column c of every segment has the same lanes in its end vectors.  Rows
 * from n + kl on cross no column: the segments end there (L(gbmv_n)
 * measures the fit on the rows before).
 */
static void L(gbmv_n_streams)(int64_t n, int64_t kl, int64_t ku, const LT_T *ab,
                              int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta,
                              LT_T *y, int64_t lo, int64_t hi)
{
    const int64_t w = kl + ku + 1, he = MIN(hi, n + kl), S = (he - lo) / 4 / LT_VL * LT_VL;
    const int64_t nc = S - w + 1; /* whole columns in each of the first three */
    const LT_T *last = ab + (n - 1) * ldab + w - LT_VL;
    int64_t s[5] = { lo, lo + S, lo + 2 * S, lo + 3 * S, he };

    L(scale_rows)(y, lo, hi, beta);
    for (int k = 0; k < 4; k++)
        L(gbmv_n_ncols)(1, 0, n, kl, ku, ab, ldab, x, alpha, beta, NULL, y, s[k], s[k + 1], 0,
                        s[k] + ku);
    for (int64_t c = 0; c < nc; c++) {
        const int64_t ph = c % LT_VL, b = c - ph, nv = (ph + w + LT_VL - 1) / LT_VL;
        const int64_t te = ph + w - (nv - 1) * LT_VL; /* lanes of the last vector */
        L(nstream) st[4];
        int inside = 1;

        UNROLL
        for (int k = 0; k < 4; k++) {
            int64_t j = s[k] + ku + c;
            st[k].y = y + s[k] + b;
            st[k].p = ab + ku + j * (ldab - 1) + s[k] + b;
            st[k].xs = alpha * x[j];
            inside &= st[k].p >= ab && st[k].p + (nv - 1) * LT_VL <= last;
        }
        if (!inside) { /* near the ends of the storage: masked loads */
            for (int k = 0; k < 4; k++) {
                int64_t j = s[k] + ku + c;
                L(gbmv_n_ncols)(1, 0, n, kl, ku, ab, ldab, x, alpha, beta, NULL, y, s[k],
                                s[k + 1], j, j + 1);
            }
            continue;
        }
        UNROLL
        for (int k = 0; k < 4; k++)
            STOREU(st[k].y, L(fma_lanes_u)(LOADU(st[k].y), st[k].p, st[k].xs, ph,
                                           MIN(LT_VL, ph + w)));
        for (int64_t v = 1; v + 1 < nv; v++) {
            UNROLL
            for (int k = 0; k < 4; k++) {
                LT_T *yv = st[k].y + v * LT_VL;
                STOREU(yv, L(madd)(LOADU(yv), LOADU(st[k].p + v * LT_VL), SPLAT(st[k].xs)));
            }
        }
        if (nv > 1) {
            UNROLL
            for (int k = 0; k < 4; k++) {
                LT_T *yv = st[k].y + (nv - 1) * LT_VL;
                STOREU(yv, L(fma_lanes_u)(LOADU(yv), st[k].p + (nv - 1) * LT_VL, st[k].xs,
                                          0, te));
            }
        }
    }
    /* the rest of each segment: its columns from s + ku + nc on */
    for (int k = 0; k < 4; k++)
        L(gbmv_n_ncols)(1, 0, n, kl, ku, ab, ldab, x, alpha, beta, NULL, y, s[k], s[k + 1],
                        s[k] + ku + nc, n);
}
#endif

/* The row-vector form reads, for each vector of rows, a window of about
   (w + VL) columns of w entries, revisited by the next vectors: it is the
   faster form while that window is small, up to the profile's
   rowvec_bytes, and with a team, while a column is under
   rowvec_team_col_bytes; on the xeon profile wherever it can take two
   vectors of rows at a time (rowvec_paired; the measurements are at the
   profiles, in src/blas/level2.c).  On the zen3 profile the column form
   reads four streams where they fit (L(streams_fit)), and takes over
   from the rows there once a column holds stream_col_bytes.  All these
   forms give the same bits, so neither the thread count nor the profile
   changes y. */
static void L(gbmv_n)(int64_t m, int64_t n, int64_t kl, int64_t ku, const LT_T *ab,
                      int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                      int64_t lo, int64_t hi, int team, const nla_l2_tune *tune)
{
    int64_t w = kl + ku + 1;
    int rowvec = (double)(w + LT_VL) * (double)w * sizeof(LT_T) <= tune->rowvec_bytes &&
                 (team <= 1 || w * (int64_t)sizeof(LT_T) < tune->rowvec_team_col_bytes) &&
                 (!tune->rowvec_paired || LT_VL + w - 1 <= L2_RV_MAXJ);

#if NLA_VBYTES >= 32
    int streams = L(streams_fit)(MIN(hi, n + kl) - lo, w, tune) &&
                  (!rowvec || w * (int64_t)sizeof(LT_T) >= tune->stream_col_bytes);
#endif

    if (w <= NLA_L2_DIAG_MAX)
        L(gbmv_n_rows)(m, n, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi);
#if NLA_VBYTES >= 32
    else if (streams)
        L(gbmv_n_streams)(n, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi);
#endif
    else if (rowvec)
        L(gbmv_n_rowvec)(n, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi, team, tune);
    else
        L(gbmv_n_cols)(m, n, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi, tune);
}

#if NLA_VBYTES >= 32
/* acc + a*b on lanes [t0, t1) (0 <= t0 <= t1 <= VL), acc on the others;
   a and b are registers, so their masked-off lanes may hold anything. */
INLINE VEC L(fma_vv_lanes)(VEC acc, VEC a, VEC b, int64_t t0, int64_t t1)
{
    return L(fma_vm)(acc, a, b, L(lanes)(t0, t1));
}

/*
 * Trans, bands of at least the profile's t_al_bytes_d or _s a column, on
 * aligned vectors.
 * Each stored column's dot with its window of x is taken over the vectors
 * of the storage that are aligned in memory, the first and the last
 * masked to the column, so that no load of the stream splits a cache line;
 * x, read from L1, is loaded where it falls.  On Zen 5 (one core, 1 GiB
 * read once) a sum of aligned vectors reads 39 GB/s and one of misaligned
 * vectors 35; a dot product with x misaligned 39, with the stream
 * misaligned 33.  Shorter columns take the transposed form
 * (L(gbmv_t_tr)): their masked ends cost more than the splits (measured
 * crossovers at the profiles, src/blas/level2.c).
 */
#define L2_AL(p) (*(const VEC *)(const void *)(p))

/* out[q] = the sum vector of column q < C (1 or 4): nv[q] aligned vectors
   from a[q], lanes [o[q], o[q]+w) of them, against x from xp[q].  Vector 0
   (masked) goes into the first of two sums, the others alternately into
   the second and the first, every product fused.  Entry r of the column
   lies in lane (o + r) mod VL; in each lane one sum holds the entries with
   r / VL even and the other those with r / VL odd (which is which depends
   on o), each in increasing r, and the two are added: a sum from the
   column's start in two alternating sums (the other path of
   L(gbmv_t_al)) has the same lanes turned by o, and L(hsum4) adds lanes
   VL/2 apart, then VL/4, ..., a tree that turning the lanes leaves as it
   is.  So neither the path nor where the column lies in memory changes
   the bits.  (They did while the products of the vectors after the loop
   were left unfused: which entries those were followed o.) */
INLINE void L(dot_al)(const int C, const LT_T *const *a, const LT_T *const *xp,
                      const int64_t *o, const int64_t *nv, int64_t w, VEC *out)
{
    VEC s0[4], s1[4];
    int64_t vmid = nv[0] - 1, v = 1;

    UNROLL
    for (int q = 0; q < C; q++) {
        s0[q] = L(fma_vv_lanes)(SPLAT(0), L2_AL(a[q]), LOADU(xp[q]), o[q],
                                MIN(LT_VL, o[q] + w));
        s1[q] = SPLAT(0);
        vmid = MIN(vmid, nv[q] - 1);
    }
    /* the full vectors [1, vmid) that all C columns have; v stays odd */
    for (; v + 2 <= vmid; v += 2) {
        UNROLL
        for (int q = 0; q < C; q++) {
            s1[q] = L(fmav)(s1[q], L2_AL(a[q] + v * LT_VL), LOADU(xp[q] + v * LT_VL));
            s0[q] = L(fmav)(s0[q], L2_AL(a[q] + (v + 1) * LT_VL),
                            LOADU(xp[q] + (v + 1) * LT_VL));
        }
    }
    UNROLL
    for (int q = 0; q < C; q++) {
        int64_t u = v;
        for (; u + 1 < nv[q]; u++) {
            VEC pa = L2_AL(a[q] + u * LT_VL), px = LOADU(xp[q] + u * LT_VL);
            if (u & 1)
                s1[q] = L(fmav)(s1[q], pa, px);
            else
                s0[q] = L(fmav)(s0[q], pa, px);
        }
        if (nv[q] > 1) {
            /* (two plain branches: a pointer to the sum would keep both
               sums in memory) */
            VEC pa = L2_AL(a[q] + u * LT_VL), px = LOADU(xp[q] + u * LT_VL);
            int64_t e = o[q] + w - u * LT_VL;
            if (u & 1)
                s1[q] = L(fma_vv_lanes)(s1[q], pa, px, 0, e);
            else
                s0[q] = L(fma_vv_lanes)(s0[q], pa, px, 0, e);
        }
        out[q] = s0[q] + s1[q];
    }
}

/* Columns j + q*st (q < cnt <= 4) of y = beta*y + alpha*A'*x, wide band,
   in one pass.  A column whose aligned vectors would reach outside the
   storage, or its x outside x, or that is not whole (near the edges of
   A), is summed from its own entries instead, from its start in two
   alternating sums of fused products, which L(dot_al) matches lane for
   lane (see there): the path and the storage's alignment do not change
   the bits, and four columns give the bits of one, so any grouping and
   any split give the same y. */
INLINE void L(t_al_group)(int64_t m, int64_t n, int64_t kl, int64_t ku, const LT_T *ab,
                          int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                          int64_t j, int64_t st, int64_t cnt)
{
    const int64_t w = kl + ku + 1;
    const LT_T *end = ab + (n - 1) * ldab + w, *xend = x + m;
    int64_t o[4], nv[4];
    const LT_T *a[4], *xp[4];
    VEC s[4];
    LT_T d[4];
    int fast[4], nf = 0;

    for (int q = 0; q < 4; q++) {
        int64_t jc = j + q * st;
        const LT_T *p = ab + jc * ldab;
        o[q] = (int64_t)(((uintptr_t)p / sizeof(LT_T)) % LT_VL);
        a[q] = p - o[q];
        xp[q] = x + jc - ku - o[q];
        nv[q] = (o[q] + w + LT_VL - 1) / LT_VL;
        fast[q] = q < cnt && jc >= ku && jc + kl < m && a[q] >= ab &&
                  a[q] + nv[q] * LT_VL <= end && xp[q] >= x && xp[q] + nv[q] * LT_VL <= xend;
        nf += fast[q];
    }
    if (nf == 4) {
        L(dot_al)(4, a, xp, o, nv, w, s);
    } else {
        for (int q = 0; q < 4; q++) {
            int64_t jc = j + q * st;
            if (fast[q]) {
                L(dot_al)(1, a + q, xp + q, o + q, nv + q, w, s + q);
            } else if (q < cnt) {
                /* rows [i0, i1] of column jc */
                int64_t i0 = MAX(0, jc - ku), i1 = MIN(m - 1, jc + kl), i = i0;
                const LT_T *col = ab + ku + jc * (ldab - 1);
                VEC sv[2] = { SPLAT(0), SPLAT(0) }; /* as L(dot_al) */
                int k = 0;
                for (; i + LT_VL <= i1 + 1; i += LT_VL, k ^= 1)
                    sv[k] = L(fmav)(sv[k], LOADU(col + i), LOADU(x + i));
                if (i <= i1) /* its lanes only */
                    sv[k] = L(fma_vv_lanes)(sv[k], L(loadn)(col + i, i1 + 1 - i),
                                            L(loadn)(x + i, i1 + 1 - i), 0, i1 + 1 - i);
                s[q] = sv[0] + sv[1];
            } else {
                s[q] = SPLAT(0);
            }
        }
    }
    L(hsum4)(s, d);
    for (int q = 0; q < cnt; q++)
        y[j + q * st] = L(blend)(alpha, d[q], beta, y + j + q * st);
}

/* Columns [lo, hi), four adjacent columns a pass, the band prefetched
   ahead into L1 or (TOL2, a constant) into L2.  Where the profile reads
   four streams (L(streams_fit)), the first 4*S columns go first, S = a
   quarter of the range: columns j, j+S, j+2S, j+3S a pass, for j from lo,
   four sequential runs of the band that the hardware prefetchers follow
   without help (see L(gbmv_n_streams)). */
INLINE void L(gbmv_t_al_to)(const int TOL2, int64_t m, int64_t n, int64_t kl, int64_t ku,
                            const LT_T *ab, int64_t ldab, const LT_T *x, LT_T alpha,
                            LT_T beta, LT_T *y, int64_t lo, int64_t hi, int streams)
{
    const int64_t w = kl + ku + 1, ahead = L(pf_ahead_group)(w, 4);

    if (streams) {
        const int64_t S = (hi - lo) / 4;
        for (int64_t j = lo; j < lo + S; j++)
            L(t_al_group)(m, n, kl, ku, ab, ldab, x, alpha, beta, y, j, S, 4);
        lo += 4 * S;
    }
    for (int64_t j = lo; j < hi; j += 4) {
        L(prefetch_cols_to)(TOL2, ab, ldab, w, n, j + ahead, 4);
        L(t_al_group)(m, n, kl, ku, ab, ldab, x, alpha, beta, y, j, 1, MIN(4, hi - j));
    }
}

/* The aligned form, its band prefetched into L1 or (tol2) into L2, or
   read as four streams: the same sums, so the same bits. */
static void L(gbmv_t_al)(int64_t m, int64_t n, int64_t kl, int64_t ku, const LT_T *ab,
                         int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                         int64_t lo, int64_t hi, const nla_l2_tune *tune)
{
    int streams = L(streams_fit)(hi - lo, kl + ku + 1, tune);

    if (tune->t_al_pf_l2)
        L(gbmv_t_al_to)(1, m, n, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi, streams);
    else
        L(gbmv_t_al_to)(0, m, n, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi, streams);
}
#undef L2_AL
#endif

#if NLA_VBYTES >= 32
/* u[r][t] = u[t][r] (VL x VL): log2(VL) stages of two-source shuffles,
   each swapping the off-diagonal blocks of size h */
#define L2_UNPAREN(...) __VA_ARGS__
#define L2_TSTAGE(h, LO, HI)                                                   \
    UNROLL                                                                     \
    for (int i_ = 0; i_ < LT_VL; i_++)                                         \
        if (!(i_ & (h))) {                                                     \
            VEC a_ = u[i_], b_ = u[i_ + (h)];                                  \
            u[i_] = __builtin_shufflevector(a_, b_, L2_UNPAREN LO);            \
            u[i_ + (h)] = __builtin_shufflevector(a_, b_, L2_UNPAREN HI);      \
        }
INLINE void L(transpose)(VEC *u)
{
#if LT_VL == 4
    L2_TSTAGE(2, (0, 1, 4, 5), (2, 3, 6, 7));
    L2_TSTAGE(1, (0, 4, 2, 6), (1, 5, 3, 7));
#elif LT_VL == 8
    L2_TSTAGE(4, (0, 1, 2, 3, 8, 9, 10, 11), (4, 5, 6, 7, 12, 13, 14, 15));
    L2_TSTAGE(2, (0, 1, 8, 9, 4, 5, 12, 13), (2, 3, 10, 11, 6, 7, 14, 15));
    L2_TSTAGE(1, (0, 8, 2, 10, 4, 12, 6, 14), (1, 9, 3, 11, 5, 13, 7, 15));
#else
    L2_TSTAGE(8, (0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23),
              (8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
    L2_TSTAGE(4, (0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27),
              (4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31));
    L2_TSTAGE(2, (0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29),
              (2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31));
    L2_TSTAGE(1, (0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30),
              (1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31));
#endif
}
#undef L2_TSTAGE
#undef L2_UNPAREN

/*
 * Trans, short columns (9 entries up to t_al_bytes_d or _s): VL columns at a
 * time.  VL entries of each column are loaded as one vector (wherever the
 * column lies: any ldab) and the VL vectors transposed in registers, so that
 * vector r holds entry r of the VL columns; it sums against x shifted by r
 * into a vector of y, with no horizontal sums and no per-column work.
 * Entries alternate between two sums.  The rows [0, wv) go by transposed
 * blocks; a remainder of at most L2_TR_TAIL entries (wv = w rounded down
 * to VL) is summed on its own (see below), a longer one as a last block
 * that loads up to VL-1 entries past the column (L(tr_rows)).  On Zen 5
 * against the four-column dots: 1.6x (double, 9 entries) to 1.2x (float,
 * 33 entries).
 */
#ifndef L2_TR_TAIL
#define L2_TR_TAIL 5
#endif
INLINE int64_t L(tr_rows)(int64_t w)
{
    return w % LT_VL <= L2_TR_TAIL ? w / LT_VL * LT_VL : w;
}

/* y[j, j+VL) = alpha*r + beta*y (y not read when beta is 0) */
INLINE void L(tr_store)(LT_T *y, VEC r, LT_T alpha, LT_T beta)
{
    r = SPLAT(alpha) * r;
    if (beta != 0)
        r += SPLAT(beta) * LOADU(y);
    STOREU(y, r);
}

#if NLA_VBYTES == 32
/* lane t of L(gather)(p, idx): p[t*ld], for (VL-1)*ld in 32 bits */
INLINE __m256i L(gather_idx)(int32_t ld)
{
    return _mm256_mullo_epi32(_mm256_set1_epi32(ld), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
INLINE VEC L(gather)(const LT_T *p, __m256i idx)
{
#if LT_DOUBLE
    return (VEC)_mm256_i32gather_pd(p, _mm256_castsi256_si128(idx), 8);
#else
    return (VEC)_mm256_i32gather_ps(p, idx, 4);
#endif
}
#endif

/* How many runs L(gbmv_t_tr) reads count columns as: three on profiles
   that do (t_tr_stream_bytes), on one thread, where the columns hold at
   least t_tr_stream_bytes of band in all and t_tr_stream_col_bytes each;
   else one. */
INLINE int L(tr_streams)(int64_t count, int64_t w, int team, const nla_l2_tune *tune)
{
    int64_t col = w * (int64_t)sizeof(LT_T);
    return team <= 1 && tune->t_tr_stream_bytes > 0 && col >= tune->t_tr_stream_col_bytes &&
                   (double)count * (double)col >= (double)tune->t_tr_stream_bytes
               ? 3
               : 1;
}

/* columns [v0, v1) (multiples of VL), whole in A, each with VL entries
   from row L(tr_rows)(w) rounded down to VL inside the storage.  The
   remainder rows [wv, w), if any, are summed on their own and added to
   the blocks' sum: AVX2 gathers them across the VL columns (when the
   offsets fit in 32 bits), lane by lane the loop's products in its order
   (both are written e += a*b, and contract alike); which of the two runs
   depends on ldab alone, never on the split of y.  AVX-512 keeps the
   loop: its gathers were faster from L2 but slower from memory (double,
   9 entries, one thread: loop 32.5, gathers 25.3 GB/s).  On AVX2, one
   thread, loop -> gathers: float 9 entries 20 -> 35 GB/s, double 9
   entries 25 -> 34.
   streams > 1: the groups of VL columns are taken from that many equal
   runs of the range in turn (the rest in order after), each entry summed
   as before, so the bits do not change; those runs are prefetched by the
   hardware alone (L(tr_streams) picks the count). */
INLINE void L(gbmv_t_tr)(int64_t n, int64_t w, int64_t ku, const LT_T *ab, int64_t ldab,
                         const LT_T *x, LT_T alpha, LT_T beta, LT_T *y, int64_t v0,
                         int64_t v1, int streams)
{
    const int64_t q = (v1 - v0) / LT_VL / streams, in = v0 + streams * q * LT_VL;
    int64_t k = 0, st = 0; /* the next group: group k of run st */
    const int64_t ahead = L(pf_ahead)(w), wv = L(tr_rows)(w);
#if NLA_VBYTES == 32
    const int gat = ldab <= INT32_MAX / LT_VL;
    const __m256i idx = L(gather_idx)((int32_t)(gat ? ldab : 0));
#endif

    for (int64_t it = v0; it < v1; it += LT_VL) {
        VEC s0 = SPLAT(0), s1 = SPLAT(0), r;
        int64_t j = it;

        if (streams == 1) {
            L(prefetch_cols)(ab, ldab, w, n, j + ahead, LT_VL);
        } else if (it < in) {
            j = v0 + (st * q + k) * LT_VL;
            if (++st == streams) {
                st = 0;
                k++;
            }
        }
        for (int64_t rb = 0; rb < wv; rb += LT_VL) {
            const LT_T *xp = x + j - ku + rb;
            VEC u[LT_VL];
            UNROLL
            for (int t = 0; t < LT_VL; t++)
                u[t] = LOADU(ab + (j + t) * ldab + rb);
            L(transpose)(u);
            UNROLL
            for (int q = 0; q < LT_VL; q += 2) {
                if (rb + q < w)
                    s0 += u[q] * LOADU(xp + q);
                if (rb + q + 1 < w)
                    s1 += u[q + 1] * LOADU(xp + q + 1);
            }
        }
        r = s0 + s1;
#if NLA_VBYTES == 32
        if (wv < w && gat) {
            VEC e = SPLAT(0);
            for (int64_t q = wv; q < w; q++)
                e += L(gather)(ab + j * ldab + q, idx) * LOADU(x + j - ku + q);
            r += e;
        } else
#endif
        if (wv < w) {
            LT_T rest[LT_VL];
            for (int t = 0; t < LT_VL; t++) {
                const LT_T *p = ab + (j + t) * ldab, *xp = x + j + t - ku;
                LT_T e = 0;
                for (int64_t q = wv; q < w; q++)
                    e += p[q] * xp[q];
                rest[t] = e;
            }
            r += LOADU(rest);
        }
        L(tr_store)(y + j, r, alpha, beta);
    }
}
#endif

#undef L2_TR8
#if NLA_VBYTES == 64 && !LT_DOUBLE
/*
 * AVX-512 float: the same, in slabs of 8 rows.  The 16x16 transpose above
 * takes 64 two-source shuffles, half of them across 128-bit lanes, and
 * bounds the kernel (float w = 9 read 32 GB/s from L2, 25 from memory).
 * A slab loads 8 entries of each of the 16 columns as 256-bit halves, col
 * t with col t+4 (t = 0-3, 8-11), and transposes both 8x8 halves at once:
 * 8 unpacks and 8 shufps inside 128-bit lanes, then 8 vshuff32x4 that
 * put the lanes in column order.  The last slab of K = w mod 8 rows keeps
 * only what its K rows need (K is a constant there).  Rows alternate
 * between two sums by parity, as in L(gbmv_t_tr).
 *
 * Used below 32 entries, and above where the 16x16 form would transpose
 * a whole last block for its remainder (w mod 16 > L2_TR_TAIL).  Zen 5,
 * medians of 9 interleaved samples, GB/s, 16x16 blocks -> slabs: one
 * thread, w = 9: 23.0 -> 36.2, 17: 31.6 -> 34.1, 25: 25.5 -> 31.3, 57:
 * 26.8 -> 29.6; two threads, w = 9: 46.0 -> 83.8 (the band partly in
 * L3).  Where the 16x16 form has only a short remainder (w = 33, 49)
 * the slabs read 0.87-0.95 of it on two threads, so those keep it on the
 * zen5 profile; on the Xeon, whose 16x16 transposes queue on one shuffle
 * port, the slabs read more at those widths too (w = 33: 10.1 -> 10.7
 * GB/s on one thread, 17.8 -> 19.9 on two; w = 65: 10.8 -> 11.6, 18.5 ->
 * 20.4), so the xeon profile takes them at every width (t_tr8_all).
 */
#define L2_TR8 1
/* s0 += entries q < K of a slab (o[q], against x from xp + q) for q
   even, s1 for q odd, fused.  (L(gbmv_t_tr) keeps its own loop: this one
   there, with explicit fused multiply-adds, read AVX2 float 9 entries
   35.9 -> 30.2 GB/s on one thread; the cause was not found.) */
INLINE void L(tr8_acc)(const VEC *o, const LT_T *xp, const int K, VEC *s0, VEC *s1)
{
    UNROLL
    for (int q = 0; q < 8; q += 2) {
        if (q < K)
            *s0 = L(fmav)(*s0, o[q], LOADU(xp + q));
        if (q + 1 < K)
            *s1 = L(fmav)(*s1, o[q + 1], LOADU(xp + q + 1));
    }
}

/* o[k] = row rb+k of columns j..j+15, k < K; c = ab + j*ldab + rb */
INLINE void L(tr8x16)(const LT_T *c, int64_t ldab, VEC *o, const int K)
{
    static const int col[8] = { 0, 1, 2, 3, 8, 9, 10, 11 };
    __m512 z[8], t[8], u[8];

    UNROLL
    for (int i = 0; i < 8; i++)
        z[i] = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(c + col[i] * ldab)),
                                  _mm256_loadu_ps(c + (col[i] + 4) * ldab), 1);
    UNROLL
    for (int g = 0; g < 8; g += 4) {
        t[g] = _mm512_unpacklo_ps(z[g], z[g + 1]);
        t[g + 1] = _mm512_unpackhi_ps(z[g], z[g + 1]);
        t[g + 2] = _mm512_unpacklo_ps(z[g + 2], z[g + 3]);
        t[g + 3] = _mm512_unpackhi_ps(z[g + 2], z[g + 3]);
        /* u[g+k], 128-bit lanes: row k and k+4 of the group's first four
           columns, then of the next four */
        u[g] = _mm512_shuffle_ps(t[g], t[g + 2], 0x44);
        u[g + 1] = _mm512_shuffle_ps(t[g], t[g + 2], 0xee);
        u[g + 2] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0x44);
        u[g + 3] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0xee);
    }
    UNROLL
    for (int k = 0; k < 4; k++) {
        if (k < K)
            o[k] = (VEC)_mm512_shuffle_f32x4(u[k], u[4 + k], 0x88);
        if (k + 4 < K)
            o[k + 4] = (VEC)_mm512_shuffle_f32x4(u[k], u[4 + k], 0xdd);
    }
}

/* columns [v0, v1) (multiples of 16), whole in A, each with entries up to
   row w rounded up to 8 inside the storage; K = w mod 8 */
INLINE void L(gbmv_t_tr8k)(int64_t n, int64_t w, int64_t ku, const LT_T *ab, int64_t ldab,
                           const LT_T *x, LT_T alpha, LT_T beta, LT_T *y, int64_t v0,
                           int64_t v1, const int K)
{
    const int64_t ahead = L(pf_ahead)(w), wf = w - K;

    for (int64_t j = v0; j < v1; j += LT_VL) {
        VEC s0 = SPLAT(0), s1 = SPLAT(0), o[8];
        const LT_T *c = ab + j * ldab, *xp = x + j - ku;
        int64_t rb = 0;

        L(prefetch_cols)(ab, ldab, w, n, j + ahead, LT_VL);
        for (; rb < wf; rb += 8) {
            L(tr8x16)(c + rb, ldab, o, 8);
            L(tr8_acc)(o, xp + rb, 8, &s0, &s1);
        }
        if (K) {
            L(tr8x16)(c + rb, ldab, o, K);
            L(tr8_acc)(o, xp + rb, K, &s0, &s1);
        }
        L(tr_store)(y + j, s0 + s1, alpha, beta);
    }
}

static void L(gbmv_t_tr8)(int64_t n, int64_t w, int64_t ku, const LT_T *ab, int64_t ldab,
                          const LT_T *x, LT_T alpha, LT_T beta, LT_T *y, int64_t v0,
                          int64_t v1)
{
#define L2_TR8K(K)                                                             \
    case K:                                                                    \
        L(gbmv_t_tr8k)(n, w, ku, ab, ldab, x, alpha, beta, y, v0, v1, K);      \
        break
    switch (w % 8) {
        L2_TR8K(0);
        L2_TR8K(1);
        L2_TR8K(2);
        L2_TR8K(3);
        L2_TR8K(4);
        L2_TR8K(5);
        L2_TR8K(6);
        default:
        L2_TR8K(7);
    }
#undef L2_TR8K
}
#else
#define L2_TR8 0
#endif

/* columns [lo, hi) of y = beta*y + alpha*A'*x, one dot each, four at a
   time where whole */
static void L(gbmv_t_dots)(int64_t m, int64_t n, int64_t kl, int64_t ku, const LT_T *ab,
                           int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                           int64_t lo, int64_t hi)
{
    int64_t w = kl + ku + 1, ahead = L(pf_ahead)(w);
    /* whole columns: j - ku >= 0 and j + kl <= m - 1 */
    int64_t a = MIN(MAX(lo, ku), hi), b = MAX(MIN(hi, MIN(n, m - kl)), a);

    for (int64_t j = lo; j < hi; j++) {
        int64_t i0, i1;
        LT_T s;
        if (j >= a && j + 4 <= b) { /* four whole columns */
            LT_T d[4];
            L(prefetch_cols)(ab, ldab, w, n, j + ahead, 4);
            L(dot4)(w, ab + j * ldab, ldab, x + j - ku, 1, d);
            for (int q = 0; q < 4; q++)
                y[j + q] = L(blend)(alpha, d[q], beta, y + j + q);
            j += 3;
            continue;
        }
        L(prefetch_cols)(ab, ldab, w, n, j + ahead, 1);
        i0 = MAX(0, j - ku);
        i1 = MIN(m - 1, j + kl);
        s = i0 <= i1 ? L(dot)(i1 - i0 + 1, ab + ku + i0 - j + j * ldab, x + i0) : 0;
        y[j] = L(blend)(alpha, s, beta, y + j);
    }
}

/* Elements [lo, hi) of y = beta*y + alpha*A'*x.  AVX2 and AVX-512: long
   columns on aligned vectors, short ones (9 entries up) transposed in
   blocks of VL (AVX-512 float: mostly in slabs of 8 rows, L(gbmv_t_tr8))
   where whole, one dot each elsewhere; the portable kernel:
   dots, the diagonals unrolled up to L2_T_DIAG_MAX entries. */
static void L(gbmv_t)(int64_t m, int64_t n, int64_t kl, int64_t ku, const LT_T *ab,
                      int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                      int64_t lo, int64_t hi, int team, const nla_l2_tune *tune)
{
    int w = (int)(kl + ku + 1);
    (void)tune; /* the portable kernel has one Trans form */
    (void)team;
    /* whole columns: j - ku >= 0 and j + kl <= m - 1 */
    int64_t a = MIN(MAX(lo, ku), hi), b = MAX(MIN(hi, MIN(n, m - kl)), a);

#if NLA_VBYTES >= 32
    if (w * (int64_t)sizeof(LT_T) >= (LT_DOUBLE ? tune->t_al_bytes_d : tune->t_al_bytes_s)) {
        L(gbmv_t_al)(m, n, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi, tune);
        return;
    }
    if (w > NLA_L2_DIAG_MAX) {
        /* the groups whose loads stay inside the storage: columns [0, cl)
           may load up to row L(tr_rows)(w) rounded up to VL (the slab
           form, tr8: w rounded up to 8) */
        int tr8 = L2_TR8 && (tune->t_tr8_all || w < 32 || w % LT_VL > L2_TR_TAIL);
        int64_t span = tr8 ? (w + 7) / 8 * 8 : (L(tr_rows)(w) + LT_VL - 1) / LT_VL * LT_VL;
        int64_t top = (n - 1) * ldab + w - span;
        int64_t cl = top >= 0 ? top / ldab + 1 : 0, v0, v1;
        L(vec_groups)(a, MIN(b, cl), &v0, &v1);
        if (v0 < v1) {
            L(gbmv_t_dots)(m, n, kl, ku, ab, ldab, x, alpha, beta, y, lo, v0);
#if L2_TR8
            if (tr8)
                L(gbmv_t_tr8)(n, w, ku, ab, ldab, x, alpha, beta, y, v0, v1);
            else
#endif
                L(gbmv_t_tr)(n, w, ku, ab, ldab, x, alpha, beta, y, v0, v1,
                             L(tr_streams)(v1 - v0, w, team, tune));
            lo = v1;
        }
        L(gbmv_t_dots)(m, n, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi);
        return;
    }
#endif
    if (w > L2_T_DIAG_MAX) {
        L(gbmv_t_dots)(m, n, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi);
        return;
    }
    L(gbmv_t_edge)(m, kl, ku, ab, ldab, x, alpha, beta, y, lo, a);
#define L2_T_DIAG(W) L(gbmv_t_diag)(W, ku, ab, ldab, x, alpha, beta, y, a, b)
    if (w <= NLA_L2_DIAG_MAX) {
        L2_DIAG_CASES(L2_T_DIAG)
    } else {
        L2_DIAG_CASES_T(L2_T_DIAG)
    }
#undef L2_T_DIAG
    L2_UPPER_CLEAN();
    L(gbmv_t_edge)(m, kl, ku, ab, ldab, x, alpha, beta, y, b, hi);
}

/* ---------------------------------------------------------------- spmv */

/* each column is prefetched this far ahead of its loads, where the
   profile prefetches (spmv_pf_bytes): C streams that L2 and L3 feed
   (measured on Zen 5, n = 1000 to 8000: 512 bytes +5 to 21% over none,
   1 and 2 KiB less) */
#ifndef L2_SP_PF_BYTES
#define L2_SP_PF_BYTES 512
#endif
/* columns per pass of spmv: each takes two vector registers (its x and its
   dot) and a pass three more, so eight where there are 32 and six of 16
   on AVX2.  Six against four on a Zen 3 (AVX2), both prefetching, medians
   of 9 interleaved paired ratios: one thread, n = 4000 and 8000, upper
   and lower, double and float, 1.06-1.17x; n = 1000 0.97-1.01x; two
   threads, n = 4000 and 8000, 0.97-1.34x (six of the eight cases
   1.03-1.08x).  The portable kernel keeps four. */
#ifndef L2_SPC
#if NLA_VBYTES == 64
#define L2_SPC 8
#elif NLA_VBYTES == 32
#define L2_SPC 6
#else
#define L2_SPC 4
#endif
#endif
/*
 * C columns j..j+C-1 of the packed matrix: col[q][i] is A(i, j+q) for the
 * rows [r0, r1) that all C columns store off the diagonal block (upper:
 * [0, j); lower: [j+C, n)).  One pass over those rows does the C axpys
 * into acc and the C dots with x; the C x C diagonal block is done after,
 * entry by entry.  Each stored entry is read once.
 */
INLINE void L(spmv_block)(const int C, const LT_T *const *col, const LT_T *x,
                          LT_T *acc, int64_t j, int64_t r0, int64_t r1, int upper,
                          const int pf)
{
    VEC xv[L2_SPC], s[L2_SPC];
    LT_T d[L2_SPC];
    int64_t i = r0;

    UNROLL
    for (int q = 0; q < C; q++) {
        xv[q] = SPLAT(x[j + q]);
        s[q] = SPLAT(0);
    }
    for (; i + LT_VL <= r1; i += LT_VL) {
        VEC xi = LOADU(x + i), t = LOADU(acc + i);
        UNROLL
        for (int q = 0; q < C; q++) {
            VEC aq = LOADU(col[q] + i);
            if (pf)
                __builtin_prefetch((const void *)((uintptr_t)(col[q] + i) + L2_SP_PF_BYTES));
            t += aq * xv[q];
            s[q] += aq * xi;
        }
        STOREU(acc + i, t);
    }
    if (i < r1) {
        int64_t k = r1 - i;
        VEC xi = L(loadn)(x + i, k), t = L(loadn)(acc + i, k);
        UNROLL
        for (int q = 0; q < C; q++) {
            VEC aq = L(loadn)(col[q] + i, k);
            t += aq * xv[q];
            s[q] += aq * xi;
        }
        L(storen)(acc + i, t, k);
    }
    UNROLL
    for (int q = 0; q < C; q++)
        d[q] = L(hsum)(s[q]);
    /* the diagonal block: off-diagonal (r, c) entries serve both ways */
    for (int q = 0; q < C; q++) {
        int64_t c = j + q;
        int64_t a0 = upper ? j : c + 1, a1 = upper ? c : j + C;
        for (int64_t r = a0; r < a1; r++) {
            LT_T v = col[q][r];
            acc[r] += v * x[c];
            d[q] += v * x[r];
        }
        acc[c] += col[q][c] * x[c] + d[q];
    }
}

/* pf: prefetch the columns (a constant in each copy of the loops) */
INLINE void L(spmv_u_pf)(const LT_T *ap, const LT_T *x, LT_T *acc, int64_t j0, int64_t j1,
                         const int pf)
{
    int64_t j = j0;

    for (; j + L2_SPC <= j1; j += L2_SPC) {
        const LT_T *col[L2_SPC];
        for (int q = 0; q < L2_SPC; q++)
            col[q] = ap + (j + q) * (j + q + 1) / 2;
        L(spmv_block)(L2_SPC, col, x, acc, j, 0, j, 1, pf);
    }
    for (; j < j1; j++) {
        const LT_T *col[1] = { ap + j * (j + 1) / 2 };
        L(spmv_block)(1, col, x, acc, j, 0, j, 1, pf);
    }
}

INLINE void L(spmv_l_pf)(int64_t n, const LT_T *ap, const LT_T *x, LT_T *acc, int64_t j0,
                         int64_t j1, const int pf)
{
    int64_t j = j0;

    /* col[q] is offset so that col[q][i] is A(i, j+q) */
    for (; j + L2_SPC <= j1; j += L2_SPC) {
        const LT_T *col[L2_SPC];
        for (int q = 0; q < L2_SPC; q++)
            col[q] = ap + (j + q) * (2 * n - (j + q) - 1) / 2;
        L(spmv_block)(L2_SPC, col, x, acc, j, j + L2_SPC, n, 0, pf);
    }
    for (; j < j1; j++) {
        const LT_T *col[1] = { ap + j * (2 * n - j - 1) / 2 };
        L(spmv_block)(1, col, x, acc, j, j + 1, n, 0, pf);
    }
}

static void L(spmv_u)(int64_t n, const LT_T *ap, const LT_T *x, LT_T *acc, int64_t j0,
                      int64_t j1, int pf)
{
    (void)n;
    if (pf)
        L(spmv_u_pf)(ap, x, acc, j0, j1, 1);
    else
        L(spmv_u_pf)(ap, x, acc, j0, j1, 0);
}

static void L(spmv_l)(int64_t n, const LT_T *ap, const LT_T *x, LT_T *acc, int64_t j0,
                      int64_t j1, int pf)
{
    if (pf)
        L(spmv_l_pf)(n, ap, x, acc, j0, j1, 1);
    else
        L(spmv_l_pf)(n, ap, x, acc, j0, j1, 0);
}

#undef LN_
#undef LN
#undef L
#undef VEC
#undef VEC_IDX
#undef L2_DEINT
#undef L2_NPAIR
#undef L2_PERM2
#undef L2_PERM2Z
#undef UVEC
#undef INLINE
#undef NOINLINE
#undef UNROLL
#undef SPLAT
#undef LOADU
#undef STOREU
#undef MIN
#undef MAX
#undef L2_DIAG_CASES
#undef L2_DIAG_CASES_T

#endif
