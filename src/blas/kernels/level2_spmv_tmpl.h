/*
 * level2_spmv_tmpl.h - the packed symmetric kernels, included by
 * level2_kernels_tmpl.h once per ISA and precision (its macros in scope).
 *
 * C columns j..j+C-1 of the packed matrix a pass: col[q][i] is A(i, j+q)
 * for the rows [r0, r1) that all C columns store off the diagonal block
 * (upper: [0, j); lower: [j+C, n)).  One pass over those rows does the C
 * axpys into acc and the C dots with x; the C x C diagonal block is done
 * after, entry by entry.  Each stored entry is read once.
 */

/* each column is prefetched this far ahead of its loads: C streams that
   L2 and L3 feed (doc/tuning.md, spmv) */
#define L2_SP_PF_BYTES 512
/* columns a pass: each takes two vector registers (its x and its dot) and
   a pass three more; eight of 32 registers, six of AVX2's 16, four in the
   portable kernel */
#if NLA_VBYTES == 64
#define L2_SPC 8
#elif NLA_VBYTES == 32
#define L2_SPC 6
#else
#define L2_SPC 4
#endif

INLINE void L(spmv_block)(const int C, const LT_T *const *col, const LT_T *x,
                          LT_T *acc, int64_t j, int64_t r0, int64_t r1, int upper)
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
            __builtin_prefetch((const void *)((uintptr_t)(col[q] + i) + L2_SP_PF_BYTES));
            t = L(madd)(t, aq, xv[q]);
            s[q] = L(madd)(s[q], aq, xi);
        }
        STOREU(acc + i, t);
    }
    if (i < r1) {
        int64_t k = r1 - i;
        VEC xi = L(loadn)(x + i, k), t = L(loadn)(acc + i, k);
        UNROLL
        for (int q = 0; q < C; q++) {
            VEC aq = L(loadn)(col[q] + i, k);
            t = L(madd)(t, aq, xv[q]);
            s[q] = L(madd)(s[q], aq, xi);
        }
        L(storen)(acc + i, t, k);
    }
    L(hsums)(C, s, d);
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

/* acc += (columns [j0, j1) of the upper triangle) * x */
static void L(spmv_u)(int64_t n, const LT_T *ap, const LT_T *x, LT_T *acc, int64_t j0,
                      int64_t j1)
{
    int64_t j = j0;

    (void)n;
    for (; j + L2_SPC <= j1; j += L2_SPC) {
        const LT_T *col[L2_SPC];
        for (int q = 0; q < L2_SPC; q++)
            col[q] = ap + (j + q) * (j + q + 1) / 2;
        L(spmv_block)(L2_SPC, col, x, acc, j, 0, j, 1);
    }
    for (; j < j1; j++) {
        const LT_T *col[1] = { ap + j * (j + 1) / 2 };
        L(spmv_block)(1, col, x, acc, j, 0, j, 1);
    }
}

/* the same, lower triangle; col[q] is offset so that col[q][i] is A(i, j+q) */
static void L(spmv_l)(int64_t n, const LT_T *ap, const LT_T *x, LT_T *acc, int64_t j0,
                      int64_t j1)
{
    int64_t j = j0;

    for (; j + L2_SPC <= j1; j += L2_SPC) {
        const LT_T *col[L2_SPC];
        for (int q = 0; q < L2_SPC; q++)
            col[q] = ap + (j + q) * (2 * n - (j + q) - 1) / 2;
        L(spmv_block)(L2_SPC, col, x, acc, j, j + L2_SPC, n, 0);
    }
    for (; j < j1; j++) {
        const LT_T *col[1] = { ap + j * (2 * n - j - 1) / 2 };
        L(spmv_block)(1, col, x, acc, j, j + 1, n, 0);
    }
}

#undef L2_SP_PF_BYTES
#undef L2_SPC
