/*
 * kernels.h - the per-ISA kernel table.
 *
 * One table per instruction set (generic, avx2, avx512).  Each is made by
 * compiling kernels_tmpl.h with that ISA's flags, so the table's code and
 * its register tile always agree.  The drivers (gemm_tmpl.h, level2_tmpl.h)
 * never name an ISA: they ask nla_kernels_get() once and use what it says.
 *
 * GEMM follows BLIS: C is computed in MR x NR tiles from packed operands.
 *   - A is packed in micro-panels of MR rows: a[l*MR + i], l < kc.
 *   - B is packed in micro-panels of NR columns: b[l*NR + j], l < kc.
 *   - The microkernel computes, for a full MR x NR tile,
 *         C = alpha * A_panel * B_panel + beta * C
 *     and must not read C when beta == 0.  Edge tiles use the kernels for
 *     fewer row vectors; what is left over goes through an MR x NR scratch
 *     tile in the driver, so kernels never see partial vectors.
 *   - Small GEMMs skip packing: the direct kernels read A and B in place.
 *   - Packed panels are 64-byte aligned; C is only element-aligned.
 * Cache blocks: MC (rows of A packed at once, a multiple of MR, sized for
 * L2), KC (depth, sized so an A micro-panel and a B micro-panel stay in
 * L1), NC (columns of B packed at once, a multiple of NR, sized for L3).
 * They belong to the CPU, not the kernel: src/core/tune.h holds them per
 * microarchitecture, and the driver rounds them to the table's tile.
 *
 * The level-2 kernels have a table of their own (level2_kernels.h).
 */
#ifndef NLA_BLAS_KERNELS_H
#define NLA_BLAS_KERNELS_H

#include <stdint.h>

/* the largest MR*NR of any table (the driver's scratch tile) */
#define NLA_GEMM_MAX_TILE 512
/* the most vectors in MR of any table */
#define NLA_GEMM_MAX_MV 4

typedef struct nla_gemm_tile {
    int mr, nr;       /* register tile */
    int mv;           /* vectors in mr (mr / mv rows per vector) */
} nla_gemm_tile;

#define NLA_KERNEL_FNS(T, P)                                                   \
    /* gemm_ukr[v-1]: C[v*VL x nr] = alpha * A_panel * B_panel + beta * C    \
       on the first v vectors (VL = mr/mv rows each) of the MR-row panel,    \
       v = 1..mv (C not read if beta == 0); k may be 0 */                      \
    void (*P##gemm_ukr[NLA_GEMM_MAX_MV])(int64_t k, T alpha, const T *a,       \
                        const T *b, T beta, T *c, int64_t ldc);                \
    /* gemm_dir[v-1]: the same on unpacked operands, A(i,l) = a[i + l*as],   \
       B(l,j) = b[l*bsl + j*bsj]: all v*VL rows and nr columns are read */    \
    void (*P##gemm_dir[NLA_GEMM_MAX_MV])(int64_t k, T alpha, const T *a,       \
                        int64_t as, const T *b, int64_t bsl, int64_t bsj,      \
                        T beta, T *c, int64_t ldc);                            \
    /* pack a micro-panel of width MR (pack_mr, for A) or NR (pack_nr, for \
       B): dst[l*W + i] = src[i*si + l*sl], i < len <= W, zero-padded to W, \
       l < kc; dst 64-byte aligned */                                          \
    void (*P##pack_mr)(int64_t kc, int64_t len, const T *src, int64_t si,      \
                       int64_t sl, T *dst);                                    \
    void (*P##pack_nr)(int64_t kc, int64_t len, const T *src, int64_t si,      \
                       int64_t sl, T *dst);

typedef struct nla_kernels {
    const char *name;          /* "generic", "avx2", "avx512" */
    nla_gemm_tile dtile;       /* double GEMM register tile */
    nla_gemm_tile stile;       /* float GEMM register tile */
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
/* The table for ISA isa (an nla_isa), or NULL if this build has none. */
const nla_kernels *nla_kernels_of(int isa);

#endif
