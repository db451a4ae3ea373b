/*
 * refs.h - helpers shared by the test suites: deterministic random data and
 * error measures.  The references themselves (CBLAS, LAPACKE, FFTW) are
 * called directly by each suite.
 */
#ifndef NLA_TESTS_REFS_H
#define NLA_TESTS_REFS_H

#include <stddef.h>
#include <stdint.h>
#include "nla.h"

/* Uniform values in [-1, 1) from a fixed-seed generator. */
void ref_fill(double *x, size_t n, uint64_t seed);
void ref_fillf(float *x, size_t n, uint64_t seed);
/* Every element NaN (to prove beta == 0 does not read y/C). */
void ref_fill_nan(double *x, size_t n);
void ref_fill_nanf(float *x, size_t n);

/* max |a[i] - b[i]| over n elements, NaN if any pair disagrees on NaN-ness */
double ref_max_diff(const double *a, const double *b, size_t n);
double ref_max_difff(const float *a, const float *b, size_t n);
/* max |a[i]| */
double ref_max_abs(const double *a, size_t n);
double ref_max_absf(const float *a, size_t n);

/* A fresh CPU context; the test fails if it cannot be made. */
nla_context *ref_cpu_context(void);

/* NLA_TEST_SMALL=1 (set by make check-valgrind): REF_SIZE(full, small) is
   small, else full.  Only the largest problem sizes shrink, and each small
   size is chosen to stay past the block sizes and thresholds its full size
   crosses, so every code path still runs. */
int ref_test_small(void);
#define REF_SIZE(full, small) (ref_test_small() ? (small) : (full))

#endif
