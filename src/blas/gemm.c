/*
 * gemm.c - the CPU GEMM, one generic implementation instantiated for double
 * and float.
 */
#include <stdlib.h>
#include "blas/blas_cpu.h"

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
