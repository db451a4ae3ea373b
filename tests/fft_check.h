/*
 * fft_check.h - checks shared by the FFT suites (test_fft.c,
 * test_fft_kernels.c): random data, errors against FFTW's long-double
 * transforms (fftw3l), and whole-transform checks that assert with
 * Criterion.
 *
 * Input: uniform in [-0.5, 0.5).  Error: relative L2, ||y - ref|| / ||ref||,
 * computed in long double.
 */
#ifndef NLA_TESTS_FFT_CHECK_H
#define NLA_TESTS_FFT_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include "nla.h"

typedef long double ld;

double fc_eps_of(nla_precision p);
double fc_lg2(int64_t n);                 /* log2(n), 1 for n = 1 */
size_t fc_rsz(nla_precision p);           /* bytes of one real */
/* count reals uniform in [-0.5, 0.5) in precision p (malloc'ed), and the
   same values in long double in copy (when not NULL) */
void *fc_rand_real(nla_precision p, size_t count, uint64_t seed, ld *copy);
ld fc_get(const void *x, nla_precision p, size_t i);
/* ||y - ref|| / ||ref|| over count reals */
double fc_rel_l2(const void *y, nla_precision p, const ld *ref, size_t count);
/* the DFT by fftw3l, complex interleaved in long double; dir -1 forward */
void fc_ref_c2c(int64_t n, int dir, const ld *in, ld *out);
nla_fft_plan *fc_plan_desc(nla_context *ctx, const nla_fft_desc *d);
nla_fft_desc fc_desc_of(nla_fft_kind k, nla_precision p, int dir, int64_t n);
/* one C2C of random data against fftw3l: the error / (eps log2 n); checks
   that out of place leaves the input alone */
double fc_c2c_err(nla_context *ctx, nla_precision p, int dir, int64_t n, int inplace);
/* n that takes passes on every instruction set: prime factors up to 127,
   and n/g >= 8 for g the product of those over 19 (no Bluestein) */
int fc_smooth(int64_t n);
/* R2C and C2R of length n against fftw3l's C2C, out of place and in place
   (FFTW's padding): at most bf eps log2(n) */
void fc_real_check(nla_context *ctx, nla_precision p, int64_t n, double bf);

#endif
