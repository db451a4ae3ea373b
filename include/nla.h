/*
 * nla.h - the public interface of libnla.
 *
 * libnla is a C11 library for dense and structured linear algebra.  One
 * interface sits in front of two backends, CPU and CUDA, chosen at run time.
 *
 * Conventions:
 *   - every name starts with nla_ or NLA_; sizes are int64_t;
 *   - matrices are column-major unless an nla_layout argument says otherwise;
 *   - every call returns an nla_status (NLA_OK is 0) and never aborts, exits
 *     or prints;
 *   - when arguments are rejected nothing is written to any output, and
 *     nla_context_error() (or nla_last_error()) names the routine and the
 *     offending argument.
 *
 * See nla(3) and nla(7).
 */
#ifndef NLA_H
#define NLA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(NLA_BUILDING_LIBRARY) && defined(__GNUC__)
#define NLA_API __attribute__((visibility("default")))
#else
#define NLA_API
#endif

/* ---------------------------------------------------------------- status */

typedef enum nla_status {
    NLA_OK = 0,
    NLA_EINVAL,      /* an argument was rejected; nothing was written */
    NLA_ENOMEM,      /* an allocation failed */
    NLA_ENOTSUP,     /* the operation is not supported by this backend */
    NLA_ENOBACKEND,  /* the requested backend is not available */
    NLA_EDEVICE,     /* the device reported an error */
    NLA_EMAXITER,    /* an iteration limit was reached */
    NLA_ENUMERIC     /* NaN or Inf where a finite value was required */
} nla_status;

NLA_API const char *nla_strerror(nla_status s);
NLA_API const char *nla_version(void);

/* The message of the last failed call made by this thread, or "" if none.
   Routines without a context (the storage routines) report only here. */
NLA_API const char *nla_last_error(void);

/* --------------------------------------------------------------- context */

typedef enum nla_backend {
    NLA_BACKEND_AUTO = 0,
    NLA_BACKEND_CPU,
    NLA_BACKEND_CUDA
} nla_backend;

typedef struct nla_context nla_context;

NLA_API nla_status  nla_context_create(nla_context **ctx, nla_backend backend);
NLA_API void        nla_context_destroy(nla_context *ctx);
/* What AUTO resolved to. */
NLA_API nla_backend nla_context_backend(const nla_context *ctx);
/* Where the last call on this context ran (the context's backend before any). */
NLA_API nla_backend nla_context_last_backend(const nla_context *ctx);
/* Why the last call on ctx failed, naming the routine and the argument;
   "" after a success.  With ctx == NULL this is nla_last_error(). */
NLA_API const char *nla_context_error(const nla_context *ctx);
/* Threads used by calls on ctx: 0 means the default (OpenMP's maximum). */
NLA_API nla_status  nla_context_set_threads(nla_context *ctx, int nthreads);
NLA_API int         nla_context_threads(const nla_context *ctx);
NLA_API nla_status  nla_context_synchronize(nla_context *ctx);

/* 1 if backend b can be used in this process, 0 otherwise.  Never prints. */
NLA_API int         nla_backend_available(nla_backend b);
NLA_API const char *nla_backend_name(nla_backend b);
/* Why b is not available ("" when it is). */
NLA_API const char *nla_backend_unavailable_reason(nla_backend b);

/* The CPU instruction set chosen for the kernels ("generic", "avx2",
   "avx512") and a sentence saying why it was chosen. */
NLA_API const char *nla_cpu_isa(void);
NLA_API const char *nla_cpu_isa_reason(void);

/* ---------------------------------------------------------------- memory */

/* Memory in the context's address space: 64-byte aligned host memory on the
   CPU backend, device memory on CUDA. */
NLA_API nla_status nla_malloc(nla_context *ctx, void **ptr, size_t bytes);
NLA_API void       nla_free(nla_context *ctx, void *ptr);
NLA_API nla_status nla_upload(nla_context *ctx, void *dst, const void *host_src, size_t bytes);
NLA_API nla_status nla_download(nla_context *ctx, void *host_dst, const void *src, size_t bytes);

/* ---------------------------------------------------------------- enums */

typedef enum nla_trans  { NLA_NO_TRANS = 'N', NLA_TRANS = 'T' } nla_trans;
typedef enum nla_uplo   { NLA_UPPER = 'U', NLA_LOWER = 'L' } nla_uplo;
typedef enum nla_layout { NLA_COL_MAJOR = 'C', NLA_ROW_MAJOR = 'R' } nla_layout;

/* --------------------------------------------------------------- storage */

/* LAPACK band storage: A(i,j) = ab[ku + i - j + j*ldab] (0-based) for
   max(0,j-ku) <= i <= min(m-1,j+kl); ldab >= kl+ku+1.  Pack reads only the
   band of a and writes only the band positions of ab; unpack writes the
   whole m-by-n a, with zeros outside the band. */
NLA_API nla_status nla_dband_pack(int64_t m, int64_t n, int64_t kl, int64_t ku,
                                  const double *a, int64_t lda, double *ab, int64_t ldab);
NLA_API nla_status nla_sband_pack(int64_t m, int64_t n, int64_t kl, int64_t ku,
                                  const float *a, int64_t lda, float *ab, int64_t ldab);
NLA_API nla_status nla_dband_unpack(int64_t m, int64_t n, int64_t kl, int64_t ku,
                                    const double *ab, int64_t ldab, double *a, int64_t lda);
NLA_API nla_status nla_sband_unpack(int64_t m, int64_t n, int64_t kl, int64_t ku,
                                    const float *ab, int64_t ldab, float *a, int64_t lda);

/* LAPACK packed storage, column by column of the chosen triangle:
   upper: A(i,j) = ap[i + j*(j+1)/2] for i <= j;
   lower: A(i,j) = ap[i + j*(2n-j-1)/2] for i >= j.
   Unpack writes the full symmetric n-by-n matrix. */
NLA_API nla_status nla_dpacked_pack(nla_uplo uplo, int64_t n, const double *a, int64_t lda,
                                    double *ap);
NLA_API nla_status nla_spacked_pack(nla_uplo uplo, int64_t n, const float *a, int64_t lda,
                                    float *ap);
NLA_API nla_status nla_dpacked_unpack(nla_uplo uplo, int64_t n, const double *ap,
                                      double *a, int64_t lda);
NLA_API nla_status nla_spacked_unpack(nla_uplo uplo, int64_t n, const float *ap,
                                      float *a, int64_t lda);

/* ------------------------------------------------------------------ BLAS */

/* y = alpha*op(A)*x + beta*y, A m-by-n. */
NLA_API nla_status nla_dgemv(nla_context *ctx, nla_trans trans, int64_t m, int64_t n,
                             double alpha, const double *a, int64_t lda,
                             const double *x, int64_t incx,
                             double beta, double *y, int64_t incy);
NLA_API nla_status nla_sgemv(nla_context *ctx, nla_trans trans, int64_t m, int64_t n,
                             float alpha, const float *a, int64_t lda,
                             const float *x, int64_t incx,
                             float beta, float *y, int64_t incy);

/* Band GAXPY: y = alpha*op(A)*x + beta*y, A m-by-n in band storage. */
NLA_API nla_status nla_dgbmv(nla_context *ctx, nla_trans trans, int64_t m, int64_t n,
                             int64_t kl, int64_t ku, double alpha,
                             const double *ab, int64_t ldab,
                             const double *x, int64_t incx,
                             double beta, double *y, int64_t incy);
NLA_API nla_status nla_sgbmv(nla_context *ctx, nla_trans trans, int64_t m, int64_t n,
                             int64_t kl, int64_t ku, float alpha,
                             const float *ab, int64_t ldab,
                             const float *x, int64_t incx,
                             float beta, float *y, int64_t incy);

/* Packed-symmetric GAXPY: y = alpha*A*x + beta*y, A n-by-n in packed storage. */
NLA_API nla_status nla_dspmv(nla_context *ctx, nla_uplo uplo, int64_t n, double alpha,
                             const double *ap, const double *x, int64_t incx,
                             double beta, double *y, int64_t incy);
NLA_API nla_status nla_sspmv(nla_context *ctx, nla_uplo uplo, int64_t n, float alpha,
                             const float *ap, const float *x, int64_t incx,
                             float beta, float *y, int64_t incy);

/* C = alpha*op(A)*op(B) + beta*C, C m-by-n, op(A) m-by-k, op(B) k-by-n. */
NLA_API nla_status nla_dgemm(nla_context *ctx, nla_layout layout, nla_trans transa,
                             nla_trans transb, int64_t m, int64_t n, int64_t k,
                             double alpha, const double *a, int64_t lda,
                             const double *b, int64_t ldb,
                             double beta, double *c, int64_t ldc);
NLA_API nla_status nla_sgemm(nla_context *ctx, nla_layout layout, nla_trans transa,
                             nla_trans transb, int64_t m, int64_t n, int64_t k,
                             float alpha, const float *a, int64_t lda,
                             const float *b, int64_t ldb,
                             float beta, float *c, int64_t ldc);

/* batch GEMMs; matrix i of X starts at x + i*stride_x.  stride_a and
   stride_b may be 0 (one matrix shared by the batch); the C matrices must
   not overlap: stride_c is at least the extent of one C when batch > 1. */
NLA_API nla_status nla_dgemm_strided_batched(nla_context *ctx, nla_layout layout,
                             nla_trans transa, nla_trans transb,
                             int64_t m, int64_t n, int64_t k, double alpha,
                             const double *a, int64_t lda, int64_t stride_a,
                             const double *b, int64_t ldb, int64_t stride_b,
                             double beta, double *c, int64_t ldc, int64_t stride_c,
                             int64_t batch);
NLA_API nla_status nla_sgemm_strided_batched(nla_context *ctx, nla_layout layout,
                             nla_trans transa, nla_trans transb,
                             int64_t m, int64_t n, int64_t k, float alpha,
                             const float *a, int64_t lda, int64_t stride_a,
                             const float *b, int64_t ldb, int64_t stride_b,
                             float beta, float *c, int64_t ldc, int64_t stride_c,
                             int64_t batch);

#ifdef __cplusplus
}
#endif

#endif /* NLA_H */
