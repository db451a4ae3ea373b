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

/* Names for the suites compiled once per precision: each defines TP (d or
   s) and includes itself; X(name) is name_d, NLA(gemv) is nla_dgemv and
   PS(TP) the string "d". */
#define X__(name, p) name##_##p
#define X_(name, p) X__(name, p)
#define X(name) X_(name, TP)
#define PS_(p) #p
#define PS(p) PS_(p)
#define NLA__(p, name) nla_##p##name
#define NLA_(p, name) NLA__(p, name)
#define NLA(name) NLA_(TP, name)

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
