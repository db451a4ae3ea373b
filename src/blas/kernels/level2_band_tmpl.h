/*
 * level2_band_tmpl.h - the band kernels (gbmv), included by
 * level2_kernels_tmpl.h once per ISA and precision (its macros in scope).
 *
 * Each form computes rows (NoTrans) or elements (Trans) [lo, hi) of
 * y = beta*y + alpha*op(A)*x, the band clipped to the matrix (kl <= m-1,
 * ku <= n-1), A(i,j) = ab[ku + i - j + j*ldab]:
 *   n_rows  a row at a time, the diagonals unrolled; AVX-512: vectors of
 *           rows (masked column segments), or unpadded bands up to 5 wide
 *           regrouped in registers
 *   t_diag  a column at a time, the same way (AVX-512: regrouped)
 *   n_cols  each column's axpy on the VL-aligned vectors of y
 *   t_dots  a dot a column (L(dotxf)); AVX-512: columns of up to two
 *           vectors folded VL at a time into one vector of sums
 * Rule for software prefetch: kernels that spend long on each line of the
 * band prefetch it; those that read it as one fast run leave it to the
 * hardware (doc/tuning.md, 5.0).
 */

/* ------------------------------------------------- narrow: diagonals */

/* How far ahead the slow kernels prefetch (doc/tuning.md 5.0.2), in
   integers: the address ahead may lie past the band */
#define L2_PF_BYTES 4096
#define L2_PREFETCH(p) __builtin_prefetch((const void *)((uintptr_t)(p) + L2_PF_BYTES))
/* the vectors of rows prefetch an unpadded band's step this far ahead (5.0.4) */
#define L2_PF_STEP_BYTES 2048

#if NLA_VBYTES == 64
/*
 * Unpadded narrow bands (ldab == w), AVX-512: VL columns are w vectors in
 * a row, regrouped by two-source permutes into "entry r of each column".
 * Trans sums those against shifted x; NoTrans takes, for VL rows, entry
 * w-1-r of columns r..r+VL-1, one more permute across two column blocks.
 * The vectors are the VL-aligned groups of the range, each summing its
 * diagonals in the scalar order.
 */
#define L2_DEINT 1
/* NoTrans regroups up to 5 diagonals; wider, the masked column segments
   of L(gbmv_n_vecs) take fewer instructions (doc/tuning.md 5.0.1) */
#define L2_DEINT_N_MAX 5
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
       the lanes, so OR-ing the parts (three at a time) selects them: no
       chain of masked moves (faster, doc/tuning.md, 5.8) */
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
        for (int q = 0; q < W; q++) {
            const LT_T *p = ab + j * W + q * LT_VL;
            src[q] = LOADU(p);
            L2_PREFETCH(p);
        }
        UNROLL
        for (int r = 0; r < W; r++)
            s += L(pick)(W, src, &pk[r]) * LOADU(x + j - ku + r);
        L(blend_store)(y + j, alpha, s, beta);
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
        for (int q = 0; q < W; q++) {
            nxt[q] = LOADU(c + q * LT_VL);
            L2_PREFETCH(c + q * LT_VL);
        }
        UNROLL
        for (int r = 0; r < W; r++) {
            VEC pn = L(pick)(W, nxt, &pk[r]);
            VEC d = L2_PERM2(pc[r], shift[r], pn);
            s += d * LOADU(x + i - kl + r);
            pc[r] = pn;
        }
        L(blend_store)(y + i, alpha, s, beta);
    }
}
#else
#define L2_DEINT 0
#endif

#if NLA_VBYTES == 64
/* acc + p * xj on the lanes set in k only: the others keep acc, and p is
   not read there */
INLINE VEC L(fma_lanes)(VEC acc, unsigned k, const LT_T *p, LT_T xj)
{
#if LT_DOUBLE
    return (VEC)_mm512_mask3_fmadd_pd(_mm512_maskz_loadu_pd((__mmask8)k, p),
                                      _mm512_set1_pd(xj), (__m512d)acc, (__mmask8)k);
#else
    return (VEC)_mm512_mask3_fmadd_ps(_mm512_maskz_loadu_ps((__mmask16)k, p),
                                      _mm512_set1_ps(xj), (__m512)acc, (__mmask16)k);
#endif
}

/*
 * NoTrans by vectors of rows, AVX-512: rows [i0, i0 + 2*VL), every column
 * of their band inside A.  Each vector's sums stay in a register; the
 * w + VL - 1 columns that cross it are added in order, each on the lanes
 * of its band (rows j-ku..j+kl of column j are contiguous in storage).
 * Two vectors side by side are two independent chains; more vectors make
 * more runs a column apart, which memory serves worse, and AVX2's masked
 * loads are slower than its scalar rows (doc/tuning.md, 5.0.1).  The
 * lanes of column c are [c-w+1, c] within the vector: a mask whose top
 * grows a lane a column and whose bottom, from c = w on, shrinks one.
 */
INLINE void L(gbmv_n_vecs)(const int R, int64_t kl, int64_t ku, const LT_T *ab,
                           int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                           int64_t i0)
{
    const int64_t w = kl + ku + 1;
    const unsigned full = (1u << LT_VL) - 1;
    unsigned top = 1, keep = full;
    VEC acc[2];

    UNROLL
    for (int r = 0; r < R; r++)
        acc[r] = SPLAT(0);
    /* an unpadded band is one run: a step's worth of its lines,
       L2_PF_STEP_BYTES ahead (the masked loads leave the hardware's
       prefetch behind) */
    if (ldab == w) {
        uintptr_t b0 = (uintptr_t)(ab + (i0 - kl) * ldab) + L2_PF_STEP_BYTES;
        for (int64_t q = 0; q < R * LT_VL * w * (int64_t)sizeof(LT_T); q += 64)
            __builtin_prefetch((const void *)(b0 + (uintptr_t)q));
    }
    /* column j = i0 + r*VL - kl + c: A(i0 + r*VL, j) = ab[ku + kl - c + j*ldab] */
    for (int64_t c = 0; c < w + LT_VL - 1; c++) {
        unsigned k = top & keep;
        UNROLL
        for (int r = 0; r < R; r++) {
            int64_t j = i0 + r * LT_VL - kl + c;
            acc[r] = L(fma_lanes)(acc[r], k, ab + (ku + kl - c) + j * ldab, x[j]);
        }
        top = (top << 1 | 1) & full;
        keep = c >= w - 1 ? keep << 1 : keep;
    }
    UNROLL
    for (int r = 0; r < R; r++) {
        LT_T *yr = y + i0 + r * LT_VL;
        L(blend_store)(yr, alpha, acc[r], beta);
    }
}
#endif

/* the whole VL-aligned groups [*v0, *v1) of [lo, hi) (empty: both hi) */
INLINE void L(vec_groups)(int64_t lo, int64_t hi, int64_t *v0, int64_t *v1)
{
    *v0 = (lo + LT_VL - 1) / LT_VL * LT_VL;
    *v1 = hi / LT_VL * LT_VL;
    if (*v1 <= *v0)
        *v0 = *v1 = hi;
}

/* Row (NoTrans) or column (Trans) o in [lo, hi), its band inside A, the
   diagonals unrolled: A(o, o-kl+r) = ab[(kl+ku) + (o-kl)*ldab + r*(ldab-1)]
   and A(o-ku+r, o) = ab[o*ldab + r].  p is formed per o, never stepped
   past the last one (with a huge ldab that would overflow, UB). */
INLINE void L(diag1)(const int W, const int trans, int64_t kl, int64_t ku, const LT_T *ab,
                     int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y, int64_t lo,
                     int64_t hi)
{
    for (int64_t o = lo; o < hi; o++) {
        const LT_T *p = trans ? ab + o * ldab : ab + (kl + ku) + (o - kl) * ldab;
        const LT_T *xp = x + o - (trans ? ku : kl);
        LT_T s = 0;
        L2_PREFETCH(ab + (trans ? o : o + ku) * ldab);
        UNROLL
        for (int r = 0; r < W; r++)
            s += p[r * (trans ? 1 : ldab - 1)] * xp[r];
        y[o] = L(blend)(alpha, s, beta, y + o);
    }
}

/* L(diag1) over [lo, hi), on AVX-512 by vectors where they apply: NoTrans
   bands over L2_DEINT_N_MAX wide by L(gbmv_n_vecs), unpadded ones by the
   regrouping (Trans up to 12 wide) */
INLINE void L(diag)(const int W, const int trans, int64_t n, int64_t kl, int64_t ku,
                    const LT_T *ab, int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta,
                    LT_T *y, int64_t lo, int64_t hi)
{
#if L2_DEINT
    int64_t v0, v1, i;
    if (!trans && W > L2_DEINT_N_MAX) {
        L(vec_groups)(lo, hi, &v0, &v1);
        L(diag1)(W, 0, kl, ku, ab, ldab, x, alpha, beta, y, lo, v0);
        for (i = v0; i + 2 * LT_VL <= v1; i += 2 * LT_VL)
            L(gbmv_n_vecs)(2, kl, ku, ab, ldab, x, alpha, beta, y, i);
        if (i < v1)
            L(gbmv_n_vecs)(1, kl, ku, ab, ldab, x, alpha, beta, y, i);
        lo = MAX(lo, v1);
    } else if (ldab == W && W > 1 && W <= 12) {
        /* NoTrans's vector loop reads columns up to i - kl + 2*VL - 1 */
        L(vec_groups)(lo, trans ? hi : MIN(hi, n + kl - 2 * LT_VL + 1), &v0, &v1);
        if (v0 < v1) {
            L(diag1)(W, trans, kl, ku, ab, ldab, x, alpha, beta, y, lo, v0);
            if (trans)
                L(gbmv_t_deint)(W, ku, ab, x, alpha, beta, y, v0, v1);
            else
                L(gbmv_n_deint)(W, kl, ab, x, alpha, beta, y, v0, v1);
            lo = v1;
        }
    }
#else
    (void)n;
#endif
    L(diag1)(W, trans, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi);
}

/* A diagonal stored as one run (w = 1, ldab = 1): y = beta*y +
   alpha*(a.*x), by vectors on the VL-aligned groups */
INLINE void L(diag0)(const LT_T *ab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                     int64_t lo, int64_t hi)
{
    int64_t v0, v1;

    L(vec_groups)(lo, hi, &v0, &v1);
    L(diag1)(1, 1, 0, 0, ab, 1, x, alpha, beta, y, lo, v0);
    for (int64_t i = v0; i < v1; i += LT_VL)
        L(blend_store)(y + i, alpha, SPLAT(0) + LOADU(ab + i) * LOADU(x + i), beta);
    L(diag1)(1, 1, 0, 0, ab, 1, x, alpha, beta, y, v1, hi);
}

/* The same sums near the edges, where part of the band lies outside A:
   y[o] for the rows (NoTrans) or columns (Trans) o in [lo, hi); len is
   the other dimension, the length of x. */
static void L(gbmv_edge)(int trans, int64_t len, int64_t kl, int64_t ku, const LT_T *ab,
                         int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                         int64_t lo, int64_t hi)
{
    int64_t below = trans ? ku : kl, above = trans ? kl : ku;

    for (int64_t o = lo; o < hi; o++) {
        int64_t k0 = MAX(0, o - below), k1 = MIN(len - 1, o + above);
        LT_T s = 0;
        for (int64_t k = k0; k <= k1; k++) {
            int64_t i = trans ? k : o, j = trans ? o : k;
            s += ab[ku + i - j + j * ldab] * x[k];
        }
        /* no entry of the band: beta*y alone, as BLAS (alpha*0 is NaN for
           an infinite alpha) */
        y[o] = k0 <= k1 ? L(blend)(alpha, s, beta, y + o) : beta == 0 ? 0 : beta * y[o];
    }
}

/* The narrow forms: the rows (NoTrans) or columns (Trans) o in [lo, hi)
   whose band lies inside A by the diagonals, the others by L(gbmv_edge).
   W is a constant up to 9, the narrow forms' widths, so that the loop
   over the diagonals unrolls. */
INLINE void L(gbmv_narrow)(const int trans, int64_t m, int64_t n, int64_t kl, int64_t ku,
                           const LT_T *ab, int64_t ldab, const LT_T *x, LT_T alpha,
                           LT_T beta, LT_T *y, int64_t lo, int64_t hi)
{
    int w = (int)(kl + ku + 1);
    int64_t below = trans ? ku : kl, above = trans ? kl : ku;
    int64_t len = trans ? m : n, outs = trans ? n : m;
    /* inside: o - below >= 0 and o + above <= len - 1 */
    int64_t a = MIN(MAX(lo, below), hi), b = MAX(MIN(hi, MIN(outs, len - above)), a);

    L(gbmv_edge)(trans, len, kl, ku, ab, ldab, x, alpha, beta, y, lo, a);
#define L2_DIAG(W) L(diag)(W, trans, n, kl, ku, ab, ldab, x, alpha, beta, y, a, b); break
    if (w == 1 && ldab == 1) {
        L(diag0)(ab, x, alpha, beta, y, a, b);
    } else {
        switch (w) {
        case 1: L2_DIAG(1);
        case 2: L2_DIAG(2);
        case 3: L2_DIAG(3);
        case 4: L2_DIAG(4);
        case 5: L2_DIAG(5);
        case 6: L2_DIAG(6);
        case 7: L2_DIAG(7);
        case 8: L2_DIAG(8);
        case 9: L2_DIAG(9);
        default: L2_DIAG(w);
        }
    }
#undef L2_DIAG
    L2_UPPER_CLEAN();
    L(gbmv_edge)(trans, len, kl, ku, ab, ldab, x, alpha, beta, y, b, hi);
}

static void L(gbmv_n_rows)(int64_t m, int64_t n, int64_t kl, int64_t ku, const LT_T *ab,
                           int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                           int64_t lo, int64_t hi)
{
    L(gbmv_narrow)(0, m, n, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi);
}

static void L(gbmv_t_diag)(int64_t m, int64_t n, int64_t kl, int64_t ku, const LT_T *ab,
                           int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                           int64_t lo, int64_t hi)
{
    L(gbmv_narrow)(1, m, n, kl, ku, ab, ldab, x, alpha, beta, y, lo, hi);
}
/* ------------------------------------------------------ wide: columns */

/* y[t] += p[t] * s for the lanes t in [t0, t1) of the vector at y (others
   unchanged, and p not read there: it may lie outside the band).  full:
   the whole vector lies inside this call's rows of y. */
INLINE void L(axpy_lanes)(LT_T *y, const LT_T *p, VEC s, int64_t t0, int64_t t1, int full)
{
#if NLA_VBYTES == 64
    unsigned m = ((1u << t1) - 1) & ~((1u << t0) - 1);
    (void)full;
#if LT_DOUBLE
    __m512d a = _mm512_maskz_loadu_pd((__mmask8)m, p);
    __m512d v = _mm512_maskz_loadu_pd((__mmask8)m, y);
    _mm512_mask_storeu_pd(y, (__mmask8)m, _mm512_fmadd_pd(a, (__m512d)s, v));
#else
    __m512 a = _mm512_maskz_loadu_ps((__mmask16)m, p);
    __m512 v = _mm512_maskz_loadu_ps((__mmask16)m, y);
    _mm512_mask_storeu_ps(y, (__mmask16)m, _mm512_fmadd_ps(a, (__m512)s, v));
#endif
    return;
#elif NLA_VBYTES == 32 && !LT_DOUBLE
    /* AVX2, float: the partial vector (up to 7 lanes) loaded masked and
       blended into y; a double's (at most 3 lanes) goes lane by lane,
       fewer instructions than the mask and blend (doc/tuning.md, 5.0.4) */
    if (full) {
        VEC_IDX ix, mk;
        for (int t = 0; t < LT_VL; t++)
            ix[t] = t;
        mk = (ix >= (VEC_IDX){ 0 } + (int)t0) & (ix < (VEC_IDX){ 0 } + (int)t1);
        VEC a = (VEC)_mm256_maskload_ps(p, (__m256i)mk);
        VEC v = LOADU(y);
        STOREU(y, (VEC)_mm256_blendv_ps((__m256)v, (__m256)L(madd)(v, a, s),
                                        _mm256_castsi256_ps((__m256i)mk)));
        return;
    }
#else
    (void)full;
#endif
    for (int64_t t = t0; t < t1; t++)
        y[t] = L2_FMAS(p[t], s[0], y[t]);
}

/* rows [r0, r1) of y += pa * s, on the vectors of y at multiples of VL */
INLINE void L(col_axpy)(LT_T *y, const LT_T *pa, VEC s, int64_t r0, int64_t r1, int64_t m)
{
    int64_t v = r0 - r0 % LT_VL;

    if (v < r0 || r1 < v + LT_VL) {
        L(axpy_lanes)(y + v, pa + v, s, r0 - v, MIN(r1 - v, LT_VL), v + LT_VL <= m);
        v += LT_VL;
    }
    for (; v + LT_VL <= r1; v += LT_VL)
        STOREU(y + v, L(madd)(LOADU(y + v), LOADU(pa + v), s));
    if (v < r1)
        L(axpy_lanes)(y + v, pa + v, s, 0, r1 - v, v + LT_VL <= m);
}

/* rows ahead of the columns are scaled by beta in runs of this many, so
   that they are in L1 when the columns reach them */
#define L2_SCALE_RUN 256

static void L(gbmv_n_cols)(int64_t m, int64_t n, int64_t kl, int64_t ku, const LT_T *ab,
                           int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                           int64_t lo, int64_t hi)
{
    int64_t j1 = MIN(n, hi + ku), scaled = lo;

    for (int64_t j = MAX(0, lo - kl); j < j1; j++) {
        int64_t r0 = MAX(lo, j - ku), r1 = MIN(hi, j + kl + 1);
        if (r1 > scaled) {
            int64_t e = MIN(hi, MAX(r1, scaled + L2_SCALE_RUN));
            L(scale)(y + scaled, e - scaled, beta);
            scaled = e;
        }
        L(col_axpy)(y, ab + j * ldab + ku - j, SPLAT(alpha * x[j]), r0, r1, m);
    }
    L(scale)(y + scaled, hi - scaled, beta); /* rows no column reaches */
    L2_UPPER_CLEAN();
}

/* ------------------------------------------------------ wide: dots */

#if NLA_VBYTES == 64
/* Trans, the whole columns [v0, v1) (multiples of VL) of a band up to
   L2_TV_MAX wide: each column's products in one vector (its entries and
   x's in w/VL vectors and a masked one), the VL columns of a group folded
   into one vector of sums.  The fold's shuffles pay while a column is one
   or two vectors; longer columns read better as 32-byte dots
   (doc/tuning.md, 5.0.2). */
#define L2_TV_MAX (2 * LT_VL)
INLINE void L(t_vecs)(const int F, int64_t w, int64_t ku, const LT_T *ab, int64_t ldab,
                      const LT_T *x, LT_T alpha, LT_T beta, LT_T *y, int64_t v0, int64_t v1)
{
    const int64_t rest = w - F * LT_VL;

    for (int64_t j = v0; j < v1; j += LT_VL) {
        const LT_T *p = ab + j * ldab, *xp = x + j - ku;
        VEC s[LT_VL], d;
        UNROLL
        for (int t = 0; t < LT_VL; t++, xp++) {
            VEC acc = SPLAT(0);
            L2_PREFETCH(p);
            UNROLL
            for (int r = 0; r < F * LT_VL; r += LT_VL)
                acc = L(madd)(acc, LOADU(p + r), LOADU(xp + r));
            if (rest)
                acc = L(madd)(acc, L(loadn)(p + F * LT_VL, rest), L(loadn)(xp + F * LT_VL, rest));
            s[t] = acc;
            /* one pointer, stepped: else the compiler keeps (and spills) VL */
            p += ldab;
            __asm__("" : "+r"(p));
        }
        d = L(fold)(LT_VL, s);
        L(blend_store)(y + j, alpha, d, beta);
    }
}

/* the whole vectors of a column (0, 1 or 2) as a constant */
INLINE void L(gbmv_t_vecs)(int64_t w, int64_t ku, const LT_T *ab, int64_t ldab,
                           const LT_T *x, LT_T alpha, LT_T beta, LT_T *y, int64_t v0,
                           int64_t v1)
{
    if (w < LT_VL)
        L(t_vecs)(0, w, ku, ab, ldab, x, alpha, beta, y, v0, v1);
    else if (w < 2 * LT_VL)
        L(t_vecs)(1, w, ku, ab, ldab, x, alpha, beta, y, v0, v1);
    else
        L(t_vecs)(2, w, ku, ab, ldab, x, alpha, beta, y, v0, v1);
}
#endif
#define L2_FIELD_(p, f) p##f
#define L2_FIELD(p, f) L2_FIELD_(p, f)
static void L(gbmv_t_dots)(int64_t m, int64_t n, int64_t kl, int64_t ku, const LT_T *ab,
                           int64_t ldab, const LT_T *x, LT_T alpha, LT_T beta, LT_T *y,
                           int64_t lo, int64_t hi)
{
#if NLA_VBYTES == 64
    /* whole columns in whole groups of VL by L(gbmv_t_vecs); the others by
       the AVX2 table's dots, on 32-byte vectors: a band column starts
       anywhere, and a 64-byte load splits a cache line twice as often as a
       32-byte one, while a memory-bound dot needs a fraction of either's
       arithmetic (doc/tuning.md, 5.0) */
    int64_t a = MIN(MAX(lo, ku), hi), v0 = hi, v1 = hi;
    /* whole columns: j - ku >= 0 and j + kl <= m - 1 */
    if (kl + ku + 1 <= L2_TV_MAX)
        L(vec_groups)(a, MAX(MIN(hi, MIN(n, m - kl)), a), &v0, &v1);
    nla_l2_kernels_avx2.L2_FIELD(LT_P, gbmv)[NLA_L2_GBMV_T_DOTS](m, n, kl, ku, ab, ldab, x,
                                                                alpha, beta, y, lo, v0);
    L(gbmv_t_vecs)(kl + ku + 1, ku, ab, ldab, x, alpha, beta, y, v0, v1);
    nla_l2_kernels_avx2.L2_FIELD(LT_P, gbmv)[NLA_L2_GBMV_T_DOTS](m, n, kl, ku, ab, ldab, x,
                                                                alpha, beta, y, v1, hi);
    L2_UPPER_CLEAN();
#else
    int64_t w = kl + ku + 1;
    /* whole columns: j - ku >= 0 and j + kl <= m - 1 */
    int64_t a = MIN(MAX(lo, ku), hi), b = MAX(MIN(hi, MIN(n, m - kl)), a);

    for (int64_t j = lo; j < hi; j++) {
        int64_t i0, i1;
        if (j >= a && j + 4 <= b) {
            LT_T d[4];
            L(dotxf)(4, 0, w, ab + j * ldab, ldab, x + j - ku, 1, d);
            UNROLL
            for (int q = 0; q < 4; q++)
                y[j + q] = L(blend)(alpha, d[q], beta, y + j + q);
            j += 3;
            continue;
        }
        i0 = MAX(0, j - ku);
        i1 = MIN(m - 1, j + kl);
        if (i0 <= i1)
            y[j] = L(blend)(alpha, L(dot)(i1 - i0 + 1, ab + ku + i0 - j + j * ldab, x + i0),
                            beta, y + j);
        else
            y[j] = beta == 0 ? 0 : beta * y[j];
    }
    L2_UPPER_CLEAN();
#endif
}
#undef L2_FIELD_
#undef L2_FIELD

#undef L2_TV_MAX
#undef L2_PF_BYTES
#undef L2_PF_STEP_BYTES
#undef L2_PREFETCH
#undef L2_SCALE_RUN
#undef L2_DEINT
#undef L2_DEINT_N_MAX
#undef L2_NPAIR
#undef L2_PERM2
#undef L2_PERM2Z
