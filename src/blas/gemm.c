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

#define T double
#define P d
#include "gemm_tmpl.h"
#undef T
#undef P

#define T float
#define P s
#include "gemm_tmpl.h"
#undef T
#undef P
