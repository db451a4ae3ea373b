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
INLINE void L(spmv_block)(const int C, const LT_T *const *col, const LT_T *x,
                          LT_T *acc, int64_t j, int64_t r0, int64_t r1, int upper)
{
    VEC xv[L2_SPC_MANY], s[L2_SPC_MANY];
    LT_T d[L2_SPC_MANY];
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

/* columns j..j+C-1 (col[q][i] = A(i, j+q), the lower ones' pointers
   offset so), over the rows they all store off the diagonal block */
INLINE void L(spmv_cols)(const int C, const int upper, int64_t n, const LT_T *ap, const LT_T *x,
                         LT_T *acc, int64_t j)
{
    const LT_T *col[L2_SPC_MANY];

    for (int q = 0; q < C; q++) {
        int64_t c = j + q;
        col[q] = ap + (upper ? c * (c + 1) / 2 : c * (2 * n - c - 1) / 2);
    }
    L(spmv_block)(C, col, x, acc, j, upper ? 0 : j + C, upper ? j : n, upper);
}

/* acc += (columns [j0, j1) of the triangle) * x: L2_SPC_MANY columns a
   pass if many, then L2_SPC, then one (upper a constant in each copy) */
INLINE void L(spmv_ul)(const int upper, int64_t n, const LT_T *ap, const LT_T *x,
                       LT_T *acc, int64_t j0, int64_t j1, int many)
{
    int64_t j = j0;

#if L2_SPC_MANY > L2_SPC
    for (; many && j + L2_SPC_MANY <= j1; j += L2_SPC_MANY)
        L(spmv_cols)(L2_SPC_MANY, upper, n, ap, x, acc, j);
#else
    (void)many;
#endif
    for (; j + L2_SPC <= j1; j += L2_SPC)
        L(spmv_cols)(L2_SPC, upper, n, ap, x, acc, j);
    for (; j < j1; j++)
        L(spmv_cols)(1, upper, n, ap, x, acc, j);
}

static void L(spmv)(int upper, int64_t n, const LT_T *ap, const LT_T *x, LT_T *acc,
                    int64_t j0, int64_t j1, int many)
{
    if (upper)
        L(spmv_ul)(1, n, ap, x, acc, j0, j1, many);
    else
        L(spmv_ul)(0, n, ap, x, acc, j0, j1, many);
}

#undef L2_SP_PF_BYTES
