/*
 * level2.c - the CPU level-2 BLAS: gemv, gbmv (band GAXPY) and spmv
 * (packed GAXPY).  One generic implementation (level2_tmpl.h) instantiated
 * for double and float.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "blas/blas_cpu.h"
#include "blas/kernels/kernels.h"

/* Thread blocks of the output start at multiples of this many elements. */
#define L2_ALIGN 64
/* Matrix entries below which a call runs on one thread. */
#define L2_THREAD_WORK (128.0 * 1024)

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
