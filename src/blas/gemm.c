/*
 * gemm.c - the CPU GEMM (see gemm_tmpl.h), one generic implementation
 * instantiated for double and float.
 */
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "blas/blas_cpu.h"
#include "blas/kernels/kernels.h"
#include "core/tune.h"

/* The blocking of one GEMM: the kernel's tile, the CPU's cache blocks. */
typedef struct nla_gemm_blocks {
    int mr, nr, mv;   /* register tile (kernels.h) */
    int mc, kc, nc;   /* cache blocks: mc % mr == 0, nc % nr == 0 */
} nla_gemm_blocks;

#define T double
#define P d
#define PREC NLA_TUNE_DOUBLE
#include "gemm_tmpl.h"
#undef T
#undef P
#undef PREC

#define T float
#define P s
#define PREC NLA_TUNE_FLOAT
#include "gemm_tmpl.h"
#undef T
#undef P
#undef PREC
