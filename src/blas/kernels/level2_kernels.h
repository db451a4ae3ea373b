/*
 * level2_kernels.h - the per-ISA table of level-2 kernels (gemv, gbmv,
 * spmv), apart from the GEMM table in kernels.h so that each can be tuned
 * on its own.
 *
 * One table per instruction set, each made by compiling
 * level2_kernels_tmpl.h with that ISA's flags (l2_generic.c, l2_avx2.c,
 * l2_avx512.c).  The drivers (src/blas/level2_tmpl.h) reduce every call to
 * unit-stride x and y and hand a block of y to a kernel; each kernel reads
 * its part of the matrix once.
 *
 * Summation orders are fixed by the shape alone (never by the block a
 * kernel is given), so gemv and gbmv give the same bits for any thread
 * count; spmv's order depends on how the columns are split.
 *
 * beta == 0 never reads y.
 */
#ifndef NLA_BLAS_LEVEL2_KERNELS_H
#define NLA_BLAS_LEVEL2_KERNELS_H

#include <stdint.h>

/* Bands of at most this many diagonals (kl+ku+1) take the diagonal-wise
   form; wider ones the column (NoTrans) or dot (Trans) form. */
#define NLA_L2_DIAG_MAX 8

/* Which form a band takes, by the CPU tuning profile (nla_cpu_tune_id;
   the values and their measurements are in src/blas/level2.c).  Both
   NoTrans forms give the same bits; the Trans forms differ in the last
   bits, so a profile, like a thread count, fixes the result. */
typedef struct nla_l2_tune {
    int64_t gemv_cached_bytes;     /* gemv NoTrans four columns a pass, not
                                      eight, for matrices of at most this */
    int64_t rowvec_bytes;          /* NoTrans by vectors of rows while the
                                      window of (w+VL)*w entries fits */
    int64_t rowvec_team_col_bytes; /* ... and, with a team, while a column
                                      is under this many bytes */
    int64_t rv_pair_col_bytes;     /* that form takes two vectors of rows
                                      at a time for columns under this */
    int64_t rv_pair_team_col_bytes; /* ... with a team */
    int rowvec_paired;             /* by rows only where the pairs' lane
                                      table covers the band */
    int64_t t_al_bytes_d;          /* Trans on aligned vectors from columns
                                      of this many bytes, double ... */
    int64_t t_al_bytes_s;          /* ... and float */
    int t_al_pf_l2;                /* that form prefetches into L2, not L1 */
    int t_tr8_all;                 /* AVX-512 float: the narrower Trans
                                      bands all in slabs of 8 rows */
    int64_t stream_bytes;          /* the NoTrans column and the aligned
                                      Trans forms read four streams a
                                      quarter of the range apart while each
                                      holds this many bytes (0: never) */
    int64_t stream_col_bytes;      /* NoTrans: that form before the rows
                                      from columns of this many bytes */
    int64_t spmv_pf_bytes;         /* spmv prefetches the columns of packed
                                      matrices of at least this many bytes */
    int64_t t_tr_stream_bytes;     /* Trans, the transposed form: on one
                                      thread, three runs a third of the
                                      range apart where the range holds at
                                      least this many bytes of band (0:
                                      never) ... */
    int64_t t_tr_stream_col_bytes; /* ... in columns of at least this */
    int64_t n_col2_band_bytes;     /* NoTrans column form, bands of at
                                      least this many bytes (0: none): y
                                      scaled as the passes reach it, and
                                      two columns a pass from columns of
                                      L2_NC2_COL_BYTES on */
} nla_l2_tune;

#define NLA_L2_KERNEL_FNS(T, P)                                                \
    /* y[0..m) += A[0..m, 0..n) * (alpha x[0..n)), A column-major, each    \
       alpha x[j] rounded once; cached: the whole matrix of the call stays  \
       in the last-level cache (one value for every block of a call: it    \
       picks the form, and the bits) */                                    \
    void (*P##gemv_n)(int64_t m, int64_t n, const T *a, int64_t lda,           \
                      const T *x, T alpha, T *y, int cached);                  \
    /* y[j] = beta*y[j] + alpha * A[0..m, j] . x[0..m), j < n */               \
    void (*P##gemv_t)(int64_t m, int64_t n, const T *a, int64_t lda,           \
                      const T *x, T alpha, T beta, T *y);                      \
    /* band A (LAPACK storage, kl <= m-1, ku <= n-1): for i in [lo, hi)      \
       y[i] = beta*y[i] + alpha * (A*x)[i]  (gbmv_n),                         \
       y[i] = beta*y[i] + alpha * (A'*x)[i] (gbmv_t); team: the threads that  \
       share the call (it may pick the form, never the bits); tune: the      \
       profile's form thresholds */                                           \
    void (*P##gbmv_n)(int64_t m, int64_t n, int64_t kl, int64_t ku,            \
                      const T *ab, int64_t ldab, const T *x, T alpha, T beta,  \
                      T *y, int64_t lo, int64_t hi, int team,                  \
                      const nla_l2_tune *tune);                                \
    void (*P##gbmv_t)(int64_t m, int64_t n, int64_t kl, int64_t ku,            \
                      const T *ab, int64_t ldab, const T *x, T alpha, T beta,  \
                      T *y, int64_t lo, int64_t hi, int team,                  \
                      const nla_l2_tune *tune);                                \
    /* packed symmetric, columns [j0, j1): acc += (those columns' part of A)  \
       * x, each stored entry read once for its two contributions.  acc must  \
       be zero on the rows the columns touch: [0, j1) upper, [j0, n) lower.  \
       pf: prefetch the columns (the same sums either way). */                \
    void (*P##spmv_u)(int64_t n, const T *ap, const T *x, T *acc, int64_t j0,  \
                      int64_t j1, int pf);                                     \
    void (*P##spmv_l)(int64_t n, const T *ap, const T *x, T *acc, int64_t j0,  \
                      int64_t j1, int pf);

typedef struct nla_l2_kernels {
    const char *name; /* "generic", "avx2", "avx512" */
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
/* The thresholds for nla_cpu_tune_id(). */
const nla_l2_tune *nla_l2_tune_get(void);

#endif
