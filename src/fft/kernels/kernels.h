/*
 * kernels.h - the per-ISA FFT kernel table.
 *
 * Like src/blas/kernels, one template (kernels_tmpl.h) is compiled once per
 * instruction set (generic, avx2, avx512) and gives one table each; the
 * drivers in src/fft never name an ISA.
 *
 * A Stockham pass of radix r (2, 4 or 8) on complex interleaved data:
 *     for p < m, q < s, k < r:
 *         a_k = x[q + s*(p + k*m)]
 *         y[q + s*(r*p + k)] = (DFT_r(a))_k * w^(p*k),   w = exp(sign*2*pi*i/(r*m))
 * x and y do not overlap.  The r-point DFT is built from radix-2 steps in
 * registers.  Passes go with s = 1, r1, r1*r2, ... (times a batch count B
 * when B transforms are interleaved element by element), so the output
 * comes out in natural order with no bit reversal.
 *   - "bc" kernels need s % vc == 0: a vector holds vc consecutive q, with
 *     one twiddle per p, broadcast: tw[(p*(r-1) + k-1)] (complex).
 *   - "lane" kernels need (s*m) % vc == 0 and any s: a vector holds vc
 *     consecutive i = q + s*p, with per-lane twiddles twl[(k-1)*s*m + i].
 *     For s == 1 (the first pass) the outputs are transposed in registers
 *     so that every store is a full vector.
 *   - "one" kernels work on one complex value at a time (any s, m), with
 *     the bc twiddle layout.
 * Index [1] of each array is the forward direction (sign -1), [0] backward.
 */
#ifndef NLA_FFT_KERNELS_H
#define NLA_FFT_KERNELS_H

#include <stdint.h>

#define NLA_FFT_PASS_FN(T, name)                                               \
    void (*name[2][4])(int64_t m, int64_t s, const T *tw, const T *x, T *y)

typedef struct nla_fft_kernels {
    const char *name;
    int dvc, svc;                    /* complex values per vector */
    /* indexed [forward][log2 r] (entry 0 unused) */
    NLA_FFT_PASS_FN(double, dbc);
    NLA_FFT_PASS_FN(double, dlane);
    NLA_FFT_PASS_FN(double, done);
    NLA_FFT_PASS_FN(float, sbc);
    NLA_FFT_PASS_FN(float, slane);
    NLA_FFT_PASS_FN(float, sone);
    /* y[i] = conj(a[i] * b[i]), i < n (complex) */
    void (*dmulconj)(int64_t n, const double *a, const double *b, double *y);
    void (*smulconj)(int64_t n, const float *a, const float *b, float *y);
} nla_fft_kernels;

extern const nla_fft_kernels nla_fft_kernels_generic;
#ifdef NLA_HAVE_X86_KERNELS
extern const nla_fft_kernels nla_fft_kernels_avx2;
extern const nla_fft_kernels nla_fft_kernels_avx512;
#endif

/* The table for nla_cpu_isa_id(). */
const nla_fft_kernels *nla_fft_kernels_get(void);

#endif
