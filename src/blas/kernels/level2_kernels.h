/*
 * level2_kernels.h - the per-ISA table of level-2 kernels (gemv, gbmv,
 * spmv), apart from the GEMM table in kernels.h.
 *
 * One table per instruction set, each made by compiling
 * level2_kernels_tmpl.h with that ISA's flags (l2_generic.c, l2_avx2.c,
 * l2_avx512.c).  The drivers (src/blas/level2_tmpl.h) reduce every call to
 * unit-stride x and y, pick a form (l2_gbmv_form, level2.c) and hand a block of y
 * to its kernel; each kernel reads its part of the matrix once.
 *
 * Summation orders are fixed by the shape and the form alone (never by
 * the block a kernel is given), so gemv and gbmv give the same bits for
 * any thread count; spmv's order depends on how the columns are split.
 *
 * beta == 0: y's old values never reach the result (the kernels may load
 * and store back lanes they do not update).  The blocks [lo, hi) a driver
 * hands a band kernel start at multiples of 64 elements and end at one or
 * at the end of y: a kernel may load and store whole vectors of y inside
 * its block, at multiples of the vector width.
 */
#ifndef NLA_BLAS_LEVEL2_KERNELS_H
#define NLA_BLAS_LEVEL2_KERNELS_H

#include <stdint.h>

/* The band forms (level2_band_tmpl.h says what each does). */
typedef enum nla_l2_gbmv_form {
    NLA_L2_GBMV_N_ROWS, NLA_L2_GBMV_N_COLS, NLA_L2_GBMV_T_DIAG, NLA_L2_GBMV_T_DOTS,
    NLA_L2_GBMV_FORMS
} nla_l2_gbmv_form;

#define NLA_L2_KERNEL_FNS(T, P)                                                \
    /* y[0..m) += A[0..m, 0..n) * (alpha x[0..n)), each alpha x[j] rounded   \
       once; many: gemv_cols[0] columns a pass, else 8 */                      \
    void (*P##gemv_n)(int64_t m, int64_t n, const T *a, int64_t lda,           \
                      const T *x, T alpha, T *y, int many);                    \
    /* y[j] = beta*y[j] + alpha * A[0..m, j] . x[0..m), j < n; many:          \
       gemv_cols[1] dots a pass, else 4 */                                     \
    void (*P##gemv_t)(int64_t m, int64_t n, const T *a, int64_t lda,           \
                      const T *x, T alpha, T beta, T *y, int many);            \
    /* band A (LAPACK storage, kl <= m-1, ku <= n-1), by form: for i in      \
       [lo, hi), y[i] = beta*y[i] + alpha * (op(A)*x)[i] */                    \
    void (*P##gbmv[NLA_L2_GBMV_FORMS])(int64_t m, int64_t n, int64_t kl,       \
                      int64_t ku, const T *ab, int64_t ldab, const T *x,       \
                      T alpha, T beta, T *y, int64_t lo, int64_t hi);          \
    /* packed symmetric (upper or lower), columns [j0, j1): acc += (those   \
       columns' part of A) * x, each stored entry read once for its two     \
       contributions; many: 12 columns a pass (AVX-512).  acc must be zero on \
       the rows the columns touch: [0, j1) upper, [j0, n) lower. */         \
    void (*P##spmv)(int upper, int64_t n, const T *ap, const T *x, T *acc,     \
                    int64_t j0, int64_t j1, int many);

typedef struct nla_l2_kernels {
    const char *name; /* "generic", "avx2", "avx512" */
    int gemv_cols[2]; /* gemv's columns a pass when many, NoTrans and Trans */
    NLA_L2_KERNEL_FNS(double, d)
    NLA_L2_KERNEL_FNS(float, s)
} nla_l2_kernels;

extern const nla_l2_kernels nla_l2_kernels_generic;
#ifdef NLA_HAVE_X86_KERNELS
extern const nla_l2_kernels nla_l2_kernels_avx2;
extern const nla_l2_kernels nla_l2_kernels_avx512;
#endif

/* The table for nla_cpu_isa_id(). */
const nla_l2_kernels *nla_l2_kernels_get(void);

#endif
