/*
 * level2.c - the CPU level-2 BLAS (gemv, gbmv, spmv), one generic
 * implementation instantiated for double and float.
 */
#include <stdlib.h>
#include "blas/blas_cpu.h"

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
