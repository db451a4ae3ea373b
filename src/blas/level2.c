/*
 * level2.c - the CPU level-2 BLAS: gemv, gbmv (band GAXPY) and spmv
 * (packed GAXPY).  One generic implementation (level2_tmpl.h) instantiated
 * for double and float.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "blas/blas_cpu.h"
#include "core/internal.h"
#include "blas/kernels/level2_kernels.h"

/* Thread blocks of the output start at multiples of this many elements. */
#define L2_ALIGN 64
/* Matrix entries below which a call runs on one thread. */
#define L2_THREAD_WORK (128.0 * 1024)

const nla_l2_kernels *nla_l2_kernels_get(void)
{
    switch (nla_cpu_isa_id()) {
#ifdef NLA_HAVE_X86_KERNELS
    case NLA_ISA_AVX512:
        return &nla_l2_kernels_avx512;
    case NLA_ISA_AVX2:
        return &nla_l2_kernels_avx2;
#endif
    default:
        return &nla_l2_kernels_generic;
    }
}

#define T double
#define P d
#include "level2_tmpl.h"
#undef T
#undef P

#define T float
#define P s
#include "level2_tmpl.h"
#undef T
#undef P
