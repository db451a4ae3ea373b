/*
 * api_blas.c - the BLAS front end, instantiated for double and float.
 */
#include "check.h"

#define T double
#define P d
#define PS "d"
#include "api_blas_tmpl.h"
#undef T
#undef P
#undef PS

#define T float
#define P s
#define PS "s"
#include "api_blas_tmpl.h"
#undef T
#undef P
#undef PS
