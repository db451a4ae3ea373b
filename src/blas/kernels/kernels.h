/*
 * kernels.h - the per-ISA kernel table.
 *
 * One table per instruction set (generic, avx2, avx512).  Each is made by
 * compiling kernels_tmpl.h with that ISA's flags, so the table's code and
 * its block sizes always agree.  The drivers (gemm_tmpl.h, level2_tmpl.h)
 * never name an ISA: they ask nla_kernels_get() once and use what it says.
 *
 * GEMM follows BLIS: C is computed in MR x NR tiles from packed operands.
 *   - A is packed in micro-panels of MR rows: a[l*MR + i], l < kc.
 *   - B is packed in micro-panels of NR columns: b[l*NR + j], l < kc.
 *   - The microkernel computes, for a full MR x NR tile,
 *         C = alpha * A_panel * B_panel + beta * C
 *     and must not read C when beta == 0.  Partial tiles are handled by the
 *     driver (through an MR x NR scratch tile), so kernels see full tiles.
 *   - Packed panels are 64-byte aligned; C is only element-aligned.
 * Block sizes: MC (rows of A packed at once, a multiple of MR, sized for
 * L2), KC (depth, sized so an A micro-panel and a B micro-panel stay in
 * L1), NC (columns of B packed at once, a multiple of NR, sized for L3).
 *
 * Level-2 inner kernels work on unit-stride vectors only (the drivers copy
 * strided vectors).  Each has a fixed summation order, so results are the
 * same whatever the thread split, for one ISA.
 */
#ifndef NLA_BLAS_KERNELS_H
#define NLA_BLAS_KERNELS_H

#include <stdint.h>

/* the largest MR*NR of any table (the driver's scratch tile) */
#define NLA_GEMM_MAX_TILE 512

typedef struct nla_gemm_blocks {
    int mr, nr;       /* register tile */
    int mc, kc, nc;   /* cache blocks: mc % mr == 0, nc % nr == 0 */
} nla_gemm_blocks;

#define NLA_KERNEL_FNS(T, P)                                                   \
    /* C[mr x nr] = alpha * A_panel * B_panel + beta * C (C not read if      \
       beta == 0); k may be 0 */                                               \
    void (*P##gemm_ukr)(int64_t k, T alpha, const T *a, const T *b, T beta,    \
                        T *c, int64_t ldc);                                    \
    /* y[0..n) += alpha * x[0..n) */                                           \
    void (*P##axpy)(int64_t n, T alpha, const T *x, T *y);                     \
    /* sum x[i] * y[i], i < n */                                               \
    T (*P##dot)(int64_t n, const T *x, const T *y);                            \
    /* y[0..m) += A[0..m, 0..n) * x[0..n), A column-major */                   \
    void (*P##gemv_n)(int64_t m, int64_t n, const T *a, int64_t lda,           \
                      const T *x, T *y);                                       \
    /* r[j] = A[0..m, j] . x[0..m), j < n */                                   \
    void (*P##gemv_t)(int64_t m, int64_t n, const T *a, int64_t lda,           \
                      const T *x, T *r);                                       \
    /* y[0..n) += alpha * a[0..n); returns a[0..n) . x[0..n) (spmv) */        \
    T (*P##axpy_dot)(int64_t n, T alpha, const T *a, const T *x, T *y);

typedef struct nla_kernels {
    const char *name;          /* "generic", "avx2", "avx512" */
    nla_gemm_blocks dblk;      /* double GEMM blocking */
    nla_gemm_blocks sblk;      /* float GEMM blocking */
    NLA_KERNEL_FNS(double, d)
    NLA_KERNEL_FNS(float, s)
} nla_kernels;

extern const nla_kernels nla_kernels_generic;
#ifdef NLA_HAVE_X86_KERNELS
extern const nla_kernels nla_kernels_avx2;
extern const nla_kernels nla_kernels_avx512;
#endif

/* The table for nla_cpu_isa_id(), chosen once. */
const nla_kernels *nla_kernels_get(void);

#endif
