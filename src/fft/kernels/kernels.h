/*
 * kernels.h - the per-ISA FFT kernel table.
 *
 * Like src/blas/kernels, one template (kernels_tmpl.h) is compiled once per
 * instruction set (generic, avx2, avx512) and gives one table each; the
 * drivers in src/fft never name an ISA.
 *
 * A Stockham pass of radix r (2, 4, 8, 3, 5, 7, 11, 13, 9 or 25) on complex
 * interleaved data, the part with i = q + s*p in [i0, i1) (threads share a
 * pass by i; the whole pass is [0, s*m)):
 *     for p < m, q < s with i0 <= q + s*p < i1, k < r:
 *         a_k = x[q + s*(p + k*m)]
 *         y[q + s*(r*p + k)] = (DFT_r(a))_k * w^(p*k),   w = exp(sign*2*pi*i/(r*m))
 * x and y do not overlap.  The r-point DFT is built in registers: from
 * radix-2 steps for 2, 4 and 8, from the pairs a_j +- a_(r-j) for the odd
 * radices.  Passes go with s = 1, r1, r1*r2, ... (times a batch count B
 * when B transforms are interleaved element by element), so the output
 * comes out in natural order with no reordering pass.
 *   - "bc" kernels, any s (the driver takes them for s >= vc): a vector
 *     holds vc consecutive q, with one twiddle per p, broadcast:
 *     tw[(p*(r-1) + k-1)] (complex); the last s % vc values of q go one
 *     at a time.
 *   - "lane" kernels, any s and m (the driver takes them for s < vc): a
 *     vector holds vc consecutive i = q + s*p, with per-lane twiddles
 *     twl[(k-1)*s*m + i]; the last (s*m) % vc values of i go one at a
 *     time.  For s == 1 and r a power of two the outputs are transposed in
 *     registers so that every store is a full vector; otherwise each lane
 *     is stored on its own.
 * Index [1] of each array is the forward direction (sign -1), [0]
 * backward; the second is the radix's slot (nla_fft_radix_slot).
 */
#ifndef NLA_FFT_KERNELS_H
#define NLA_FFT_KERNELS_H

#include <stdint.h>

/* The radices with a pass, by slot: the powers of two, the odd primes up
   to NLA_FFT_MAX_ODD, then 9 and 25 (two radix-3 or radix-5 passes in one,
   doc/tuning.md 4.4).  The odd primes past it up to NLA_FFT_MAX_GEN take
   the generic pass (gen below); a transform with a larger prime factor
   goes through Bluestein. */
#define NLA_FFT_NRADIX 10
#define NLA_FFT_MAX_ODD 13
#define NLA_FFT_MAX_GEN 127
/* Transforms of n = 2^k up to 2^NLA_FFT_SMALL_LOG may have a codelet (a
   table entry is NULL where n is too long for the ISA's vectors) */
#define NLA_FFT_SMALL_LOG 9
#define NLA_FFT_IL_LOG 6
/* the most columns transpose_tw takes */
#define NLA_FFT_TR_MAXB 64
static inline int nla_fft_radix_slot(int r)
{
    switch (r) {
    case 2: return 0;
    case 4: return 1;
    case 8: return 2;
    case 3: return 3;
    case 5: return 4;
    case 7: return 5;
    case 11: return 6;
    case 13: return 7;
    case 9: return 8;
    case 25: return 9;
    default: return -1;
    }
}

#define NLA_FFT_PASS_FN(T, name)                                               \
    void (*name[2][NLA_FFT_NRADIX])(int64_t m, int64_t s, int64_t i0, int64_t i1,  \
                                    const T *tw, const T *x, T *y)

typedef struct nla_fft_kernels {
    const char *name;
    int dvc, svc;                    /* complex values per vector */
    /* indexed [forward][nla_fft_radix_slot(r)] */
    NLA_FFT_PASS_FN(double, dbc);
    NLA_FFT_PASS_FN(double, dlane);
    NLA_FFT_PASS_FN(float, sbc);
    NLA_FFT_PASS_FN(float, slane);
    /* The broadcast pass of an odd radix r without a slot (NLA_FFT_MAX_ODD
       < r <= NLA_FFT_MAX_GEN; gen_tmpl.h), any s: the r-point DFT as a
       direct sum with cs[2e], cs[2e+1] = cos and sin of 2*pi*e/r, e < r.
       Vectors of q where s fills them, else one value at a time. */
    void (*dgen[2])(int r, const double *cs, int64_t m, int64_t s, int64_t i0, int64_t i1,
                    const double *tw, const double *x, double *y);
    void (*sgen[2])(int r, const float *cs, int64_t m, int64_t s, int64_t i0, int64_t i1,
                    const float *tw, const float *x, float *y);
    /* The real transforms' step between the half-length complex transform
       Z and the spectrum X, for n = 2h, 0 < k < h (complex values, w[k] =
       W_n^k forward): r2c_post X[k] = (E + w[k] O) sc at y[k*os], with
       E = (Z[k] + conj Z[h-k])/2 and O = -i (Z[k] - conj Z[h-k])/2;
       c2r_pre Z[k] = E' + i O' from x[k*is], with E' = X[k] + conj X[h-k]
       and O' = (X[k] - conj X[h-k]) conj(w[k]).  Vectors of k for unit
       strides, one k at a time otherwise.  Both are s c + u d with s =
       Z[k] + conj Z[h-k] and d = Z[k] - conj Z[h-k] (X for C2R): R2C c =
       sc/2 and u = -i w sc/2, C2R c = 1 and u = i conj(w).  tv (or NULL)
       holds u split for the vectors: for each vector of W values from
       k = gW, 2W values of re u (each twice), then 2W of (-im u, im u). */
    void (*dr2c_post)(int64_t h, const double *z, const double *w, const double *tv,
                      double sc, double *y, int64_t os);
    void (*sr2c_post)(int64_t h, const float *z, const float *w, const float *tv, float sc,
                      float *y, int64_t os);
    void (*dc2r_pre)(int64_t h, const double *x, int64_t is, const double *w,
                     const double *tv, double *z);
    void (*sc2r_pre)(int64_t h, const float *x, int64_t is, const float *w, const float *tv,
                     float *z);
    /* The same steps by pairs (real_tmpl.h's fused form), for k in
       [k0, k1), unit strides, the twiddle w[k] given as pw[k - k0] * wc
       (complex): r2c_pairs X[k] and X[h-k] = conj(E - w[k] O) sc, z == y
       allowed; c2r_pairs Z[k] and Z[h-k] = conj(E' - i O') */
    void (*dr2c_pairs)(int64_t h, int64_t k0, int64_t k1, const double *z, const double *pw,
                       const double *wc, double sc, double *y);
    void (*sr2c_pairs)(int64_t h, int64_t k0, int64_t k1, const float *z, const float *pw,
                       const float *wc, float sc, float *y);
    void (*dc2r_pairs)(int64_t h, int64_t k0, int64_t k1, const double *x, const double *pw,
                       const double *wc, double *z);
    void (*sc2r_pairs)(int64_t h, int64_t k0, int64_t k1, const float *x, const float *pw,
                       const float *wc, float *z);
    /* Whole transforms of n = 2^k, 1 <= k <= NLA_FFT_SMALL_LOG, in
       registers (small_tmpl.h): hm transforms, x + b*id -> y + b*od in
       complex values; x == y allowed.  Indexed [forward][k]; [.][0] is
       NULL, and so is k > 6 where n/W would pass 64 vectors. */
    void (*dsmall[2][NLA_FFT_SMALL_LOG + 1])(int64_t hm, int64_t id, int64_t od,
                                             const double *x, double *y);
    void (*ssmall[2][NLA_FFT_SMALL_LOG + 1])(int64_t hm, int64_t id, int64_t od,
                                             const float *x, float *y);
    /* cnt transforms of n = 2^k, 1 <= k <= NLA_FFT_IL_LOG, interleaved
       element by element, B apart (element j of transform b at [j*B + b],
       as the Stockham passes take batches; cnt <= B): vectors across the
       transforms, the whole DFT in registers.  x == y allowed.  [.][0] is
       NULL. */
    void (*dsmall_il[2][NLA_FFT_IL_LOG + 1])(int64_t cnt, int64_t B, const double *x,
                                             double *y);
    void (*ssmall_il[2][NLA_FFT_IL_LOG + 1])(int64_t cnt, int64_t B, const float *x,
                                             float *y);
    /* Between sub-transforms (twiddle_tmpl.h), with W_n^e = lo[e % nlo] *
       hi[e / nlo]: transpose_tw takes rows k < n1 of bw complex values,
       x[k*bw + b], to t[b*ld + k], times W_n^((j0 + b)*k) with nlo = n1
       (the four-step core's middle step), or plain when lo is NULL (the
       DIT core's first), bw <= NLA_FFT_TR_MAXB; twiddle z[k] = x[k] *
       W_n^(j*k), k < n1 (the DIT core's middle step) */
    void (*dtranspose_tw)(int64_t n1, int64_t bw, int64_t j0, int64_t ld, const double *lo,
                          const double *hi, const double *x, double *t);
    void (*stranspose_tw)(int64_t n1, int64_t bw, int64_t j0, int64_t ld, const float *lo,
                          const float *hi, const float *x, float *t);
    void (*dtwiddle)(int64_t n1, int64_t j, int64_t nlo, const double *lo, const double *hi,
                     const double *x, double *z);
    void (*stwiddle)(int64_t n1, int64_t j, int64_t nlo, const float *lo, const float *hi,
                     const float *x, float *z);
    /* y[i] = conj(a[i] * b[i]), i < n (complex) */
    void (*dmulconj)(int64_t n, const double *a, const double *b, double *y);
    void (*smulconj)(int64_t n, const float *a, const float *b, float *y);
    /* The double plans' twiddle products (tw_tmpl.h): o[b] = l_b * h
       rounded to double, b < nb (complex), each factor a double-double
       (l_b's real high and low parts at l[b], l[ls + b], its imaginary
       ones at l[2 ls + b], l[3 ls + b]; h[0..4) likewise).  With FMA,
       error-free products and sums (about 2^-100 before the rounding);
       without, in long double, as the factors' sums are exact there. */
    void (*dtw_prod)(int64_t nb, int64_t ls, const double *l, const double *h, double *o);
} nla_fft_kernels;

extern const nla_fft_kernels nla_fft_kernels_generic;
#ifdef NLA_HAVE_X86_KERNELS
extern const nla_fft_kernels nla_fft_kernels_avx2;
extern const nla_fft_kernels nla_fft_kernels_avx512;
#endif

/* The table for nla_cpu_isa_id(). */
const nla_fft_kernels *nla_fft_kernels_get(void);

#endif
