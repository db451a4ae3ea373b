/*
 * internal.h - what the CUDA plugin's files share.  Not installed.
 *
 *   plugin.cu       the backend table: availability, contexts (stream,
 *                   workspace, pinned staging), memory, host staging, the
 *                   BLAS and FFT entries, error mapping
 *   level2.cu       gemv, gbmv, spmv kernels (s and d) and a scaling kernel
 *   gemm.cu, fft.cu GEMM and FFT kernels (cuda_kernels.h); the FFT's
 *                   other files (fft_mixed.cu, fft_plan.cu) are listed in
 *                   fft_internal.h
 *   fw.cu           the Frank-Wolfe loop on the device
 *
 * Everything here works on device pointers and enqueues on a stream
 * without synchronizing; plugin.cu does the staging and the waiting.
 */
#ifndef NLA_CUDA_INTERNAL_H
#define NLA_CUDA_INTERNAL_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include "core/backend.h"

/* Where a level-2 launch runs: its stream, the device's multiprocessor
   count (to size grids) and device scratch for partial sums (deterministic
   two-pass reductions instead of atomics). */
typedef struct nla_cuda_launch {
    cudaStream_t stream;
    int sms;
    void *scratch;
    size_t scratch_bytes;
} nla_cuda_launch;

/* Scratch bytes the level-2 routines below may use for these shapes (less
   makes them use fewer, larger blocks; none is required). es: element size. */
size_t nla_cuda_gemv_scratch(int sms, int trans, int64_t m, int64_t n, size_t es);
size_t nla_cuda_gbmv_scratch(int sms, int trans, int64_t m, int64_t n, int64_t kl,
                             int64_t ku, size_t es);
size_t nla_cuda_spmv_scratch(int sms, int64_t n, size_t es);

/* BLAS semantics: y = alpha*op(A)*x + beta*y; alpha == 0 reads neither A
   nor x, beta == 0 does not read y; negative increments walk backwards
   from the far end (x and y point at the lowest address, as in BLAS).
   trans: 0 = N, 1 = T.  upper: 1 = U, 0 = L.  m, n >= 1. */
#define NLA_CUDA_L2(T, p)                                                      \
    cudaError_t nla_cuda_gemv_##p(const nla_cuda_launch *L, int trans,         \
        int64_t m, int64_t n, T alpha, const T *a, int64_t lda, const T *x,    \
        int64_t incx, T beta, T *y, int64_t incy);                             \
    cudaError_t nla_cuda_gbmv_##p(const nla_cuda_launch *L, int trans,         \
        int64_t m, int64_t n, int64_t kl, int64_t ku, T alpha, const T *ab,    \
        int64_t ldab, const T *x, int64_t incx, T beta, T *y, int64_t incy);   \
    cudaError_t nla_cuda_spmv_##p(const nla_cuda_launch *L, int upper,         \
        int64_t n, T alpha, const T *ap, const T *x, int64_t incx, T beta,     \
        T *y, int64_t incy);
NLA_CUDA_L2(double, d)
NLA_CUDA_L2(float, s)
#undef NLA_CUDA_L2

/* Frank-Wolfe on the device (fw.cu): the loop of backend.h's fw_solve with
   every array of p and x in device memory.  L->scratch must hold
   nla_cuda_fw_workspace(L->sms, p) bytes (256-byte aligned).  it->x is
   x_t in the workspace (device memory).  x is read at the start and
   written, with the result, only when the hook stops the loop; the call
   then returns with that copy queued on L->stream.  Every iteration waits
   for the stream once (its report).  The hook may queue other work on the
   stream, but must leave the workspace alone. */
size_t nla_cuda_fw_workspace(int sms, const nla_fw_dev_problem *p);
cudaError_t nla_cuda_fw_run(const nla_cuda_launch *L, const nla_fw_dev_problem *p, double *x,
                            nla_fw_dev_hook hook, void *user);

#endif
