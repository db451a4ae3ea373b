/*
 * cuda_kernels.h - the project's own CUDA GEMM and FFT kernels.
 *
 * These are the entry points the CUDA plugin calls.  They are plain C
 * functions (C linkage) so that the plugin's .cu/.c glue and standalone
 * tests can call them.  Arguments are assumed to be validated by the front
 * end (src/core); these functions only check what the kernels themselves
 * rely on and return cudaErrorInvalidValue otherwise.
 *
 * All pointers are device pointers.  Matrices are column-major.  Work is
 * enqueued on the given stream; nothing here synchronizes, and GEMM never
 * allocates.
 */
#ifndef NLA_CUDA_KERNELS_H
#define NLA_CUDA_KERNELS_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "nla.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C = alpha*op(A)*op(B) + beta*C for each of `batch` problems; member i uses
   a + i*sa, b + i*sb, c + i*sc (sa/sb/sc are element strides, 0 for a
   single GEMM).  ta/tb: 0 = no transpose, 1 = transpose.  m, n >= 1,
   k >= 0, batch >= 1.  k == 0 or alpha == 0: C = beta*C without reading A
   or B.  beta == 0: C is not read (NaN in C does not propagate). */
cudaError_t nla_cuda_gemm_d(cudaStream_t st, int ta, int tb, int64_t m, int64_t n, int64_t k,
                            double alpha, const double *a, int64_t lda, int64_t sa,
                            const double *b, int64_t ldb, int64_t sb, double beta,
                            double *c, int64_t ldc, int64_t sc, int64_t batch);
cudaError_t nla_cuda_gemm_s(cudaStream_t st, int ta, int tb, int64_t m, int64_t n, int64_t k,
                            float alpha, const float *a, int64_t lda, int64_t sa,
                            const float *b, int64_t ldb, int64_t sb, float beta,
                            float *c, int64_t ldc, int64_t sc, int64_t batch);

/* FFT plans.  desc is validated and resolved by the front end: howmany >= 1,
   strides and dists >= 1, scale != 0.  Layout semantics are those of
   include/nla.h (interleaved complex, FFTW conventions, R2C forward, C2R
   backward, unnormalised, output multiplied by scale).  Creation may
   allocate device tables and upload them synchronously. */
typedef struct nla_cuda_fft nla_cuda_fft;
cudaError_t nla_cuda_fft_create(const nla_fft_desc *desc, nla_cuda_fft **plan);
/* Device scratch bytes one execution needs (may be 0). */
size_t nla_cuda_fft_workspace(const nla_cuda_fft *plan);
/* in/out: device pointers (in == out allowed where nla.h allows it); work:
   nla_cuda_fft_workspace(plan) bytes of device memory (may be NULL when
   that is 0).  The plan is read-only here: concurrent executions from
   several host threads on different streams with different work buffers
   are fine. */
cudaError_t nla_cuda_fft_exec(const nla_cuda_fft *plan, cudaStream_t st, const void *in,
                              void *out, void *work);
void nla_cuda_fft_destroy(nla_cuda_fft *plan);

#ifdef __cplusplus
}
#endif

#endif /* NLA_CUDA_KERNELS_H */
