/*
 * fft_internal.h - what the CUDA FFT's files share (not installed):
 *
 *   fft.cu        the power-of-two pass kernel, the real-transform and
 *                 Bluestein kernels, and execution (nla_cuda_fft_exec)
 *   fft_mixed.cu  the mixed-radix pass kernel (prime factors <= 127)
 *   fft_plan.cu   plans: method choice, pass and stage layout, the host
 *                 twiddle tables (computed in double), workspace sizes
 *   fft_radix.cuh complex arithmetic and the in-register DFTs
 *
 * fft.cu's header comment describes the algorithms.
 */
#ifndef NLA_CUDA_FFT_INTERNAL_H
#define NLA_CUDA_FFT_INTERNAL_H

#include "cuda_kernels.h"

#include "fft_radix.cuh"
#include "fft/kernels/kernels.h"      /* NLA_FFT_MAX_GEN */

#include <cmath>
#include <cstdint>
#include <vector>

namespace nla_fft {

constexpr int kMaxPasses = 4;
constexpr int kMaxStages = 16;
constexpr int kMaxThreads = 512;
constexpr int kPassLog2Max = 11;            /* longest pass of a multi-pass transform */
/* Tests may force multi-pass plans at small sizes: a power-of-two transform
   of 2^q with q > NLA_FFT_TEST_SPLIT runs in passes of at most
   2^NLA_FFT_TEST_SPLIT, and a mixed-radix one longer than that in passes of
   at most that length. */
#ifdef NLA_FFT_TEST_SPLIT
constexpr int kTestSplit = NLA_FFT_TEST_SPLIT;
#else
constexpr int kTestSplit = 0;
#endif
constexpr int64_t kChunkElems = (int64_t)1 << 24;

/* Per-precision tuning of the power-of-two engine: elements per thread,
   elements per block, shared padding (one slot every 2^PADSHIFT elements).
   MIX_EB: elements per block of the mixed-radix engine (two shared buffers
   of MIX_EB complex values, 64 KiB). */
template <typename R> struct Prec;
template <> struct Prec<double> {
    static constexpr int LOG_EMAX = 3, LOG_EB = 12, PADSHIFT = 3, MIX_EB = 2048;
};
template <> struct Prec<float> {
    static constexpr int LOG_EMAX = 4, LOG_EB = 13, PADSHIFT = 4, MIX_EB = 4096;
};

/* The mixed-radix engine: at most this many global passes, of at most this
   many in-block stages each, and threads per block.  Eight passes, as two
   primes from 23 up never share a double pass (512) and 23^8 < 2^40 (the
   longest n): random samples of the n <= 2^40 with prime factors <= 127
   all have a plan; those with factors <= 13 take at most six. */
constexpr int kMixMaxPasses = 8;
constexpr int kMixMaxStages = 12;
constexpr int kMixThreads = 256;
/* Its odd prime radices: an in-register DFT up to kMixMaxOdd (fft_radix.cuh),
   a generic stage (a direct sum, fft_mixed.cu) past it up to kMixMaxGen,
   the CPU FFT's limit for its generic pass (src/fft/kernels/kernels.h);
   a length with a larger prime factor goes through Bluestein.  A generic
   prime must fit a pass of a multi-pass plan (MIX_EB/4 elements). */
constexpr int kMixMaxOdd = 13;
constexpr int kMixMaxGen = NLA_FFT_MAX_GEN;
static_assert(kMixMaxGen <= Prec<double>::MIX_EB / 4 && kMixMaxGen <= Prec<float>::MIX_EB / 4,
              "a generic prime radix must fit a pass");

/* Array forms of an engine's input and output: complex; real pairs (z_i =
   x_2i + i*x_2i+1); and, mixed-radix engine only, real (a real input, or
   the real part stored) and Hermitian (the first n/2+1 of a conjugate-
   symmetric input, the imaginary parts of X_0 and X_n/2 ignored). */
enum { IO_COMPLEX = 0, IO_REALPAIR = 1, IO_REAL = 2, IO_HERM = 3 };

struct StageList {
    int n;
    int log2r[kMaxStages];
};

struct PassCfg {
    int logL, logE, logNs;
    StageList st;
    const void *stw;      /* device stage twiddles (NULL when one stage) */
};

/* A power-of-two forward C2C engine of length 2^logN. */
struct Pow2 {
    int logN = 0, P = 0;
    PassCfg pass[kMaxPasses];
    const void *tw_lo = nullptr, *tw_hi = nullptr;
    int lo_bits = 0;
};

/* One pass of the mixed-radix engine: a DFT of length L = prod rad[] on
   each of the N/L columns, after the passes whose lengths multiply to Ns. */
struct MixPass {
    int L = 0, nst = 0;
    int rad[kMixMaxStages];
    int64_t Ns = 1;
    const void *stw = nullptr;    /* device stage twiddles (NULL when one stage) */
    const void *groots = nullptr; /* device w_p^e, e < p, for each generic stage in
                                     turn (NULL when none) */
};

/* A mixed-radix forward C2C engine of length N (prime factors <= kMixMaxGen). */
struct Mixed {
    int64_t N = 0;
    int P = 0;
    MixPass pass[kMixMaxPasses];
    const void *tw_lo = nullptr, *tw_hi = nullptr;   /* as Pow2's, for P > 1 */
    int lo_bits = 0;
};

/* An input or output array of an engine run (see PassArgs in fft.cu). */
struct IoDesc {
    const void *ptr;
    int64_t stride, dist;
    int mode;
};

inline int ilog2(int64_t x)
{
    int l = 0;
    while (((int64_t)1 << l) < x) l++;
    return l;
}
inline bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/* Complex elements may be moved as one aligned vector. */
inline bool vec_ok(const void *p, size_t align)
{
    return (reinterpret_cast<uintptr_t>(p) & (align - 1)) == 0;
}

/* read-only (table) loads */
__device__ __forceinline__ cpx<double> ldc(const cpx<double> *p)
{
    double2 v = __ldg(reinterpret_cast<const double2 *>(p));
    return mk(v.x, v.y);
}
__device__ __forceinline__ cpx<float> ldc(const cpx<float> *p)
{
    float2 v = __ldg(reinterpret_cast<const float2 *>(p));
    return mk(v.x, v.y);
}

/* Shared memory limits of the pass kernels (fft.cu, fft_mixed.cu). */
template <typename R> cudaError_t set_smem_limits();
template <typename R> cudaError_t set_mixed_smem_limits();

/* Run an engine on `batch` transforms from src to dst.  With P > 1 the
   intermediate results alternate between scratch buffers x and y (neither
   may be dst; either may be the src buffer).  conj_in conjugates the input,
   conj_out and apply_scale the output; only its first nout elements are
   stored. */
template <typename R>
cudaError_t run_mixed(const Mixed &g, int64_t batch, IoDesc src, IoDesc dst, void *x, void *y, int conj_in,
                      int conj_out, R scale, int apply_scale, int64_t nout, cudaStream_t st);

/* Passes and stages of a mixed-radix engine of length n for precision R
   (no tables yet); false when n has a prime factor over kMixMaxGen or needs
   more than kMixMaxPasses passes. */
template <typename R> bool plan_mixed(int64_t n, Mixed *g);

} /* namespace nla_fft */

enum { M_POW2 = 0, M_REAL2 = 1, M_BLUE = 2 };

struct nla_cuda_fft {
    nla_fft_kind kind;
    nla_precision prec;
    int backward;            /* C2C backward (C2R is always backward, R2C forward) */
    int64_t n, howmany, is, id, os, od;
    double scale;
    int method;              /* M_POW2: one engine of length n (power of two, or mixed: also
                                R2C/C2R of odd n) */
    int mixed;               /* POW2 and REAL2: the engine is mix, not eng */
    nla_fft::Pow2 eng;       /* length n (POW2), n/2 (REAL2) or M (BLUE) */
    nla_fft::Mixed mix;      /* length n (POW2) or n/2 (REAL2) when mixed */
    int64_t len;             /* engine length */
    int64_t M;
    const void *chirp, *bhat, *rtw;
    int64_t chunk;           /* transforms per chunk */
    int nbuf;
    size_t buf_bytes;
    std::vector<void *> allocs;
};

#endif /* NLA_CUDA_FFT_INTERNAL_H */
