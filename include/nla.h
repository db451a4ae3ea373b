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
 *     offending argument;
 *   - the one exception: a function that hands back a new handle or buffer
 *     through a pointer to a pointer (nla_context_create, nla_malloc,
 *     nla_fft_plan_*, nla_fft_wisdom_export, nla_fw_*_create*) sets it to
 *     NULL whenever it fails,
 *     so destroying or freeing it afterwards is always safe.
 *
 * See nla(3) and nla(7).
 */
#ifndef NLA_H
#define NLA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>   /* FILE, for the Frank-Wolfe verbose mode */

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
/* The kernel form the last level-2 call on ctx ran and why, e.g.
   "gbmv N cols: kl+ku+1 > gbmv_n_rows_w"; "" when the call does not say
   (other routines, quick returns, the CUDA backend). */
NLA_API const char *nla_context_last_form(const nla_context *ctx);
/* Why the last call on ctx failed, naming the routine and the argument;
   "" after a success.  With ctx == NULL this is nla_last_error(). */
NLA_API const char *nla_context_error(const nla_context *ctx);
/* Threads used by calls on ctx: 0 means the default (OpenMP's maximum). */
NLA_API nla_status  nla_context_set_threads(nla_context *ctx, int nthreads);
NLA_API int         nla_context_threads(const nla_context *ctx);
NLA_API nla_status  nla_context_synchronize(nla_context *ctx);
/* CUDA: queue ctx's work on the caller's stream (a cudaStream_t, passed as
   void *) once the work queued so far has finished; NULL goes back to the
   context's own stream.  nla_context_synchronize then waits for that
   stream.  On a CPU context only NULL is accepted (NLA_ENOTSUP). */
NLA_API nla_status  nla_context_set_stream(nla_context *ctx, void *stream);
/* The stream ctx's work goes on (its own, or the one set); NULL on a CPU
   context or for ctx == NULL. */
NLA_API void       *nla_context_stream(const nla_context *ctx);

/* 1 if backend b can be used in this process, 0 otherwise.  Never prints. */
NLA_API int         nla_backend_available(nla_backend b);
NLA_API const char *nla_backend_name(nla_backend b);
/* Why b is not available ("" when it is). */
NLA_API const char *nla_backend_unavailable_reason(nla_backend b);

/* The CPU instruction set chosen for the kernels ("generic", "avx2",
   "avx512") and a sentence saying why it was chosen. */
NLA_API const char *nla_cpu_isa(void);
NLA_API const char *nla_cpu_isa_reason(void);
/* The CPU configuration the kernels use (GEMM cache blocks, level-2
   crossovers, FFT limits) and why, as one line: "zen4: CPUID AuthenticAMD
   family 19h model 11h".  Its name is "zen5", "zen4", "zen3", "xeon", or
   "derived" from the cache sizes for a CPU without an entry.  Results can
   differ in the last bits between configurations, never between runs with
   the same configuration, ISA and thread count. */
NLA_API const char *nla_cpu_tuning(void);
/* The same, apart: the name and the sentence saying why. */
NLA_API const char *nla_cpu_config(void);
NLA_API const char *nla_cpu_config_reason(void);
/* One value of it, by name: "l1d", "l2", "l3" (cache bytes), "dgemm_mr",
   "dgemm_nr" (the running ISA's register tile), "dgemm_mc", "dgemm_kc",
   "dgemm_nc" (its cache blocks), the same with "sgemm_" for float,
   "dgbmv_n_rows_w", "dgbmv_t_diag_w" (the band widths up to which gbmv
   takes its narrow forms, for the running ISA; "sgbmv_" for float),
   "l2_thread_min" (entries below which a level-2 call runs on one thread),
   "gemv_many_bytes" (gemv takes many columns a pass over this matrix size),
   "spmv_many_bytes" (spmv, over this size of triangle),
   "fft_stockham_max_bytes" and "fft_real_fuse_bytes" (R2C and C2R take
   their real step inside a pass past this much half-length data).  -1 for
   any other name. */
NLA_API int64_t     nla_cpu_config_value(const char *key);

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
/* Band storage from the diagonals a caller holds: column r of the n-by-
   (kl+ku+1) column-major dg is diagonal ku - r (the top superdiagonal
   first, the main diagonal at r = ku), indexed by the column of A:
   dg[j + r*lddg] = A(j-ku+r, j), lddg >= max(1,n).  This is SciPy's
   solve_banded "ab[u + i - j, j]" form read from C.  Only the entries
   inside the m-by-n matrix are read, and only those band positions of ab
   are written. */
NLA_API nla_status nla_dband_from_diagonals(int64_t m, int64_t n, int64_t kl, int64_t ku,
                                            const double *dg, int64_t lddg, double *ab,
                                            int64_t ldab);
NLA_API nla_status nla_sband_from_diagonals(int64_t m, int64_t n, int64_t kl, int64_t ku,
                                            const float *dg, int64_t lddg, float *ab,
                                            int64_t ldab);

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

/* ------------------------------------------------------------------- FFT */

/* FFT: unnormalized, FFTW sign convention (forward = exp(-2*pi*i*j*k/n)). Complex data is
   interleaved (C99 double _Complex / float _Complex). Plans are immutable: one plan may be
   executed from many threads at once, on any arrays of the planned shape.

   Layout (like FFTW's plan_many): element j of transform b is at
   in[b*idist + j*istride] and out[b*odist + j*ostride], counted in elements of
   the array's own type: complex for C2C, real for the R2C input and the C2R
   output, complex for the R2C output and the C2R input.  A transform has n
   complex values (C2C), n reals and n/2+1 complex values (R2C: X[0..n/2] of
   the real input's DFT; C2R: the same Hermitian half in, n reals out; the
   imaginary parts of X[0] and, for even n, X[n/2] are ignored).  0 for a
   stride means 1, 0 for a dist means one transform's extent (length*stride),
   i.e. contiguous, packed batches.  Strides and dists must be >= 0, and the
   howmany outputs must not overlap: with howmany > 1 and length > 1, the
   output needs odist >= length*ostride or ostride >= howmany*odist.
   Out of place, the input is never modified (also for C2R; a C2R plan of
   rank 2 or 3 from nla_fft_plan_create_nd overwrites it), and in and out
   must not overlap.

   In place (in == out):
     - C2C: always allowed with howmany == 1; with howmany > 1 only when
       istride == ostride and idist == odist.
     - R2C and C2R: FFTW's padded layout.  With howmany == 1 any strides work
       (the transform reads its whole input before it writes).  With
       howmany > 1, unit strides and rows of 2*(n/2+1) reals: R2C needs
       istride == ostride == 1 and idist == 2*odist, C2R needs
       istride == ostride == 1 and odist == 2*idist.  Other in-place layouts
       are rejected (NLA_EINVAL).
     - REDFT10 and REDFT01 (below): as C2C, istride == ostride and
       idist == odist when howmany > 1.
   Plans keep no pointer to their context, but the context must outlive
   them.  scale multiplies every output (0 means 1; e.g. 1.0/n makes the
   backward transform the inverse). */
/* Real-to-real cosine transforms, FFTW's unnormalized REDFT10 and REDFT01
   (n reals in, n reals out, strides and dists in reals; j, k < n):
     NLA_FFT_REDFT10 (DCT-II):  Y[k] = 2 * sum_j x[j] cos(pi (j+1/2) k / n)
     NLA_FFT_REDFT01 (DCT-III): Y[k] = x[0] + 2 * sum_{j>=1} x[j] cos(pi j (k+1/2) / n)
   so REDFT01(REDFT10(x)) = 2n x.  desc->direction is ignored (it must
   still be one of the two values).  One dimension only: nla_fft_plan_create_nd
   rejects them.  The CUDA backend has none: an AUTO context runs them on
   the CPU (host data only), a CUDA context answers NLA_ENOTSUP. */
typedef enum nla_fft_kind { NLA_FFT_C2C, NLA_FFT_R2C, NLA_FFT_C2R,
                            NLA_FFT_REDFT10, NLA_FFT_REDFT01 } nla_fft_kind;
typedef enum nla_fft_direction { NLA_FFT_FORWARD = -1, NLA_FFT_BACKWARD = +1 } nla_fft_direction;
typedef enum nla_precision { NLA_DOUBLE, NLA_FLOAT } nla_precision;
typedef struct nla_fft_desc {
    nla_fft_kind kind; nla_precision precision; nla_fft_direction direction;
    int64_t n;                       /* any n >= 1; fast when its prime factors are <= 127 */
    int64_t howmany;                 /* batch count (0 means 1) */
    int64_t istride, idist, ostride, odist;   /* 0 means contiguous, packed batches */
    double  scale;                   /* multiply the output by this (0 means 1) */
} nla_fft_desc;
typedef struct nla_fft_plan nla_fft_plan;
/* R2C plans are forward and C2R plans backward whatever desc->direction
   says (it must still be one of the two values). */
NLA_API nla_status nla_fft_plan_create(nla_context *ctx, const nla_fft_desc *desc, nla_fft_plan **plan);
NLA_API nla_status nla_fft_plan_1d(nla_context *ctx, int64_t n, nla_fft_direction dir, nla_precision prec,
                           nla_fft_plan **plan);                     /* C2C, one transform */
/* Errors are reported through nla_last_error() (a plan has no context). */
NLA_API nla_status nla_fft_execute(const nla_fft_plan *plan, const void *in, void *out);  /* in == out: in place */
NLA_API void       nla_fft_plan_destroy(nla_fft_plan *plan);
/* Typed execution: the same as nla_fft_execute, but the plan must be of
   this kind and precision (NLA_EINVAL otherwise).  Complex arrays are
   interleaved (re, im) pairs. */
NLA_API nla_status nla_fft_execute_c2c_d(const nla_fft_plan *plan, const double *in, double *out);
NLA_API nla_status nla_fft_execute_c2c_s(const nla_fft_plan *plan, const float *in, float *out);
NLA_API nla_status nla_fft_execute_r2c_d(const nla_fft_plan *plan, const double *in, double *out);
NLA_API nla_status nla_fft_execute_r2c_s(const nla_fft_plan *plan, const float *in, float *out);
NLA_API nla_status nla_fft_execute_c2r_d(const nla_fft_plan *plan, const double *in, double *out);
NLA_API nla_status nla_fft_execute_c2r_s(const nla_fft_plan *plan, const float *in, float *out);
/* REDFT10 or REDFT01 plans (either kind) of this precision */
NLA_API nla_status nla_fft_execute_r2r_d(const nla_fft_plan *plan, const double *in, double *out);
NLA_API nla_status nla_fft_execute_r2r_s(const nla_fft_plan *plan, const float *in, float *out);
/* Multi-dimensional transforms, rank 1 to 3, in FFTW's layout: row-major
   n[0] x ... x n[rank-1], the last dimension contiguous.  Real transforms
   keep n[rank-1] reals a row on the real side and n[rank-1]/2+1 complex
   values on the complex side; in place (in == out) the real rows are
   padded to 2*(n[rank-1]/2+1) reals, as in FFTW.  howmany arrays (0 means
   1) lie idist and odist elements of each side's type apart (0: packed,
   one array's extent; in place, the padded one).  In place with howmany
   > 1, C2C needs idist == odist, R2C idist == 2*odist, C2R odist ==
   2*idist.  A C2R transform of rank > 1 overwrites its input
   (FFTW's default for C2R).  Each dimension runs as batched 1-D
   transforms on the plan's backend, on the context's threads.  Executed
   and destroyed like any plan. */
typedef struct nla_fft_desc_nd {
    nla_fft_kind kind; nla_precision precision; nla_fft_direction direction;
    int rank;                        /* 1, 2 or 3 */
    int64_t n[3];                    /* n[0..rank-1] >= 1 */
    int64_t howmany, idist, odist;   /* 0 means 1, packed, packed */
    double  scale;                   /* multiply the output by this (0 means 1) */
} nla_fft_desc_nd;
NLA_API nla_status nla_fft_plan_create_nd(nla_context *ctx, const nla_fft_desc_nd *desc,
                                          nla_fft_plan **plan);
NLA_API nla_status nla_fft_plan_2d(nla_context *ctx, int64_t n0, int64_t n1, nla_fft_direction dir,
                                   nla_precision prec, nla_fft_plan **plan);   /* C2C */
NLA_API nla_status nla_fft_plan_3d(nla_context *ctx, int64_t n0, int64_t n1, int64_t n2,
                                   nla_fft_direction dir, nla_precision prec,
                                   nla_fft_plan **plan);                       /* C2C */
/* Planning effort and wisdom (CPU plans; CUDA plans ignore both), like
   FFTW's ESTIMATE/MEASURE and wisdom.  Plans made on a context after
   nla_context_set_fft_effort (1-D, ND, DCT) use its effort:
     NLA_FFT_ESTIMATE     (the default) the wisdom of a length when there
                          is some, else the library's rules; planning
                          takes microseconds, and a length through
                          Bluestein's algorithm makes its chirp tables at
                          the plan's first execution;
     NLA_FFT_MEASURE      wisdom, else time a few ways to compute each
                          length (radix orders, codelet, four-step splits:
                          a few ms, up to about 50 ms at n = 2^20) and keep
                          the fastest, recording it as wisdom; every
                          table is made while planning;
     NLA_FFT_WISDOM_ONLY  wisdom only: a length without it is NLA_ENOTSUP.
   Wisdom is process-wide and thread-safe, keyed by precision, length and
   direction of each complex transform a plan runs (n/2 for even real
   transforms).  Its text starts "nla-fft-wisdom 1", has one line per
   length and ends with "end"; import takes all of it or, for a bad line,
   nothing (NLA_EINVAL naming the line). */
typedef enum nla_fft_effort { NLA_FFT_ESTIMATE = 0, NLA_FFT_MEASURE = 1,
                              NLA_FFT_WISDOM_ONLY = 2 } nla_fft_effort;
NLA_API nla_status nla_context_set_fft_effort(nla_context *ctx, nla_fft_effort effort);
NLA_API nla_status nla_fft_wisdom_export(char **wisdom);  /* malloc'ed text: free() it */
NLA_API nla_status nla_fft_wisdom_import(const char *wisdom);
NLA_API nla_status nla_fft_wisdom_export_file(const char *path);
NLA_API nla_status nla_fft_wisdom_import_file(const char *path);
NLA_API void       nla_fft_wisdom_forget(void);

/* ----------------------------------------------------------- Frank-Wolfe */

/* Frank-Wolfe (conditional gradient) minimization of a smooth convex f over
   a compact convex set C, double precision.  Where nla_fw_solve runs:
     - a CPU context: the CPU;
     - a CUDA context: the whole loop on the device, for a built-in
       objective over a simplex, an L1 or L-inf ball or a box with vanilla
       steps (any step rule); its arrays and x may be host memory (copied
       to the device once per solve) or device memory; anything else is
       NLA_ENOTSUP, naming what the device loop lacks;
     - an AUTO context: the device loop when the objective's arrays or x
       are device memory (NLA_ENOTSUP if it cannot run that solve), the
       CPU otherwise.
   The device loop takes the CPU's steps (its sums are only ordered
   differently): one record of a few scalars crosses to the host per
   iteration, and x_t too when there is a callback.  nla_fw_set_lmo and
   nla_fw_objective_eval run on the CPU only: NLA_ENOTSUP on a CUDA
   context, or when any of their arrays (the objective's included) is
   device memory.  Three objects, each created and destroyed here:
     - a feasible set (nla_fw_set) with its linear minimization oracle (LMO)
       v = argmin_{v in C} <g, v>;
     - an objective (nla_fw_objective): a callback, or a built-in quadratic
       whose products run on the library's own gemv/gbmv/spmv kernels;
     - solver options (nla_fw_options); NULL means the defaults.
   Objects keep the pointers they are given (matrices, vectors, user data)
   but copy small arrays (the box bounds): those must stay valid and
   unchanged while the object is used.  Objects are read-only during a
   solve, so one may serve several solves at once.  A matrix variable
   (nuclear ball, Birkhoff polytope, spectraplex) is an m-by-n (n-by-n)
   column-major array of m*n doubles. */
typedef struct nla_fw_set nla_fw_set;
typedef struct nla_fw_objective nla_fw_objective;
typedef struct nla_fw_options nla_fw_options;

/* A user LMO: write into v (n doubles) a point of the set minimizing
   <g, v>.  The feasibility of a start point is not checked for such sets. */
typedef void (*nla_fw_lmo_fn)(int64_t n, const double *g, double *v, void *user);

/* Feasible sets, all of dimension n (matrix sets: m*n, or n*n).  Vertices
   are stored in structured form: one-hot (simplices, L1 ball), K-sparse
   (ksparse, hypersimplex, Birkhoff), rank-one (nuclear, spectraplex), dense
   otherwise.  Ties in an LMO go to the lowest index; a zero component of g
   picks +r (L-inf ball, K-sparse, L1 and K-norm balls), hi (box) and, for
   the unit simplex, g >= 0 picks the vertex 0.
     prob_simplex  {x >= 0, sum x = r}          vertices r*e_i
     unit_simplex  {x >= 0, sum x <= r}         vertices 0, r*e_i
     l1_ball       {sum |x_i| <= r}             vertices +-r*e_i
     linf_ball     {|x_i| <= r}                 vertices in {-r, r}^n
     box           {lo_i <= x_i <= hi_i}        (lo, hi copied; lo_i <= hi_i)
     ksparse       {|x|_1 <= k*r, |x|_inf <= r} vertices: k entries +-r
     knorm_ball    {sum of the k largest |x_i| <= r} = conv(l1_ball(r) and
                   linf_ball(r/k)), 1 <= k <= n; vertices +-r*e_i and
                   {-r/k, r/k}^n, the one-hot vertex on a tie (to within
                   the rounding of sum |g_i|)
     hypersimplex  {0 <= x_i <= r, sum x = k*r}, 1 <= k <= n; vertices: k
                   entries r (the k least g_i, lowest index on ties)
     birkhoff      {X n-by-n, X >= 0, every row and column sums to 1} (the
                   doubly stochastic matrices); vertices: the permutation
                   matrices, the LMO an assignment problem solved exactly in
                   O(n^3) (shortest augmenting paths; ties: the first
                   optimal assignment it meets, the same on every call)
     nuclear_ball  {X m-by-n, sum sigma_i(X) <= r}; the LMO is -r*u*v' for the
                   top singular pair of G
     spectraplex   {X n-by-n symmetric positive semidefinite, trace X = r};
                   the LMO is r*v*v' for an eigenvector v of the least
                   eigenvalue of (G + G')/2
                   Both find their vector by Lanczos with full
                   reorthogonalization (on G'G or GG', whichever is smaller,
                   and on -(G + G')/2), warm-started from the previous vector
                   during a solve, and stop when the Ritz pair's residual is
                   at most tol times the norm of the Krylov matrix (tol in
                   (0, 1), e.g. 1e-10), or after max_iter (>= 1) operator
                   products (two gemv each).  <G, V> is then within about
                   tol*r*|G|_2 of the least value (tol^2 for well separated
                   top values), unless the start missed the top vector.  So
                   in a solve, where the gap is negative (the LMO was
                   inexact) or would stop the solve (<= the solve's tol),
                   the LMO is solved again from a fresh pseudo-random start
                   to tol/1000 with 4*max_iter products; the solve stops
                   with NLA_OK only on that gap, and never on one below
                   zero (beyond rounding).
     user          the callback above. */
NLA_API nla_status nla_fw_set_create_prob_simplex(nla_fw_set **set, int64_t n, double r);
NLA_API nla_status nla_fw_set_create_unit_simplex(nla_fw_set **set, int64_t n, double r);
NLA_API nla_status nla_fw_set_create_l1_ball(nla_fw_set **set, int64_t n, double r);
NLA_API nla_status nla_fw_set_create_linf_ball(nla_fw_set **set, int64_t n, double r);
NLA_API nla_status nla_fw_set_create_box(nla_fw_set **set, int64_t n, const double *lo,
                                         const double *hi);
NLA_API nla_status nla_fw_set_create_ksparse(nla_fw_set **set, int64_t n, int64_t k,
                                             double r);
NLA_API nla_status nla_fw_set_create_nuclear_ball(nla_fw_set **set, int64_t m, int64_t n,
                                                  double r, double tol, int64_t max_iter);
NLA_API nla_status nla_fw_set_create_knorm_ball(nla_fw_set **set, int64_t n, int64_t k,
                                                 double r);
NLA_API nla_status nla_fw_set_create_hypersimplex(nla_fw_set **set, int64_t n, int64_t k,
                                                  double r);
NLA_API nla_status nla_fw_set_create_birkhoff(nla_fw_set **set, int64_t n);
NLA_API nla_status nla_fw_set_create_spectraplex(nla_fw_set **set, int64_t n, double r,
                                                 double tol, int64_t max_iter);
NLA_API nla_status nla_fw_set_create_user(nla_fw_set **set, int64_t n, nla_fw_lmo_fn lmo,
                                          void *user);
NLA_API void       nla_fw_set_destroy(nla_fw_set *set);
/* The dimension of the variable (n; m*n for the nuclear ball, n*n for the
   Birkhoff polytope and the spectraplex); -1 for NULL. */
NLA_API int64_t    nla_fw_set_dim(const nla_fw_set *set);
/* v = LMO(g), written densely (dim doubles).  g must be finite. */
NLA_API nla_status nla_fw_set_lmo(nla_context *ctx, const nla_fw_set *set, const double *g,
                                  double *v);

/* A user objective: return f(x) and, when grad is not NULL, write the
   gradient (n doubles).  NaN or Inf in either ends the solve with
   NLA_ENUMERIC. */
typedef double (*nla_fw_fn)(int64_t n, const double *x, double *grad, void *user);
/* A user quadratic's Hessian product: write H d into hd (n doubles), H
   the constant Hessian of f.  NaN or Inf in hd ends the solve with
   NLA_ENUMERIC. */
typedef void (*nla_fw_hv_fn)(int64_t n, const double *d, double *hd, void *user);

/* Objectives.  User: any f with its gradient.  User quadratic: a quadratic
   f (f itself, its gradient and Hessian products H d, H constant, e.g. a
   matrix-free or distributed operator).  The solver then calls hv once an
   iteration, on the step's direction d: <d, H d> gives the exact line
   search and the short-step and adaptive rules without trial points, and
   the next gradient and f are g + gamma H d and f + gamma <g, d> +
   gamma^2 <d, H d> / 2; f is called at the start and every 100th
   iteration to refresh both.  H should be positive semidefinite (f
   convex): where <d, H d> <= 0 the exact rule takes the largest step
   if <g, d> < 0, and none otherwise.  Built in (exact line search allowed,
   products through the context's BLAS kernels):
     lsq         f = 1/2 |A x - b|^2, A m-by-n dense (lda >= max(1,m)), b m;
                 over simplices, L1 balls and K-sparse polytopes a solve
                 moves after n/8 iterations to G = A'A (n^2 doubles, when
                 n^2 <= m n + 2^25), and iterations cost O(n) from then on
     lsq_band    the same with A in band storage (gbmv; ldab >= kl+ku+1)
     lsq_packed  A n-by-n symmetric, packed (spmv), b n
     quad        f = 1/2 x'Qx + c'x, Q n-by-n symmetric dense (ldq >= max(1,n))
     quad_packed Q symmetric packed
     quad_band   Q symmetric in band storage (kl == ku, ldqb >= 2k+1)
   c may be NULL (zero).  Q and A'A should be positive semidefinite (f
   convex); symmetry of Q is assumed, not checked. */
NLA_API nla_status nla_fw_objective_create_user(nla_fw_objective **obj, int64_t n,
                                                nla_fw_fn f, void *user);
NLA_API nla_status nla_fw_objective_create_user_quad(nla_fw_objective **obj, int64_t n,
                                                     nla_fw_fn f, nla_fw_hv_fn hv,
                                                     void *user);
NLA_API nla_status nla_fw_objective_create_lsq(nla_fw_objective **obj, int64_t m, int64_t n,
                                               const double *a, int64_t lda,
                                               const double *b);
NLA_API nla_status nla_fw_objective_create_lsq_band(nla_fw_objective **obj, int64_t m,
                                                    int64_t n, int64_t kl, int64_t ku,
                                                    const double *ab, int64_t ldab,
                                                    const double *b);
NLA_API nla_status nla_fw_objective_create_lsq_packed(nla_fw_objective **obj,
                                                      nla_uplo uplo, int64_t n,
                                                      const double *ap, const double *b);
NLA_API nla_status nla_fw_objective_create_quad(nla_fw_objective **obj, int64_t n,
                                                const double *q, int64_t ldq,
                                                const double *c);
NLA_API nla_status nla_fw_objective_create_quad_packed(nla_fw_objective **obj,
                                                       nla_uplo uplo, int64_t n,
                                                       const double *qp, const double *c);
NLA_API nla_status nla_fw_objective_create_quad_band(nla_fw_objective **obj, int64_t n,
                                                     int64_t k, const double *qb,
                                                     int64_t ldqb, const double *c);
NLA_API void       nla_fw_objective_destroy(nla_fw_objective *obj);
NLA_API int64_t    nla_fw_objective_dim(const nla_fw_objective *obj);
/* *f = f(x) and, when grad is not NULL, grad = gradient (dim doubles). */
NLA_API nla_status nla_fw_objective_eval(nla_context *ctx, const nla_fw_objective *obj,
                                         const double *x, double *f, double *grad);

typedef enum nla_fw_variant {
    NLA_FW_VANILLA = 0,   /* x += gamma (v - x) */
    NLA_FW_AWAY,          /* also away steps x += gamma (x - a), gamma <= l_a/(1-l_a) */
    NLA_FW_PAIRWISE,      /* x += gamma (v - a), gamma <= l_a */
    NLA_FW_BLENDED_PAIRWISE, /* BPCG (Tsuji, Tanaka, Pokutta 2022): a local step
                             x += gamma (s - a), gamma <= l_a, between the
                             active atoms s (least <g,s>) and a (largest
                             <g,a>) when <g, a - s> >= gap / 2; else a FW
                             step.  Over the nuclear ball (not lazy) the
                             local step is a projected gradient step inside
                             the subspaces of the active atoms widened
                             towards the gradient, after which the active
                             set is the iterate's SVD (one atom per
                             singular value) */
    NLA_FW_AUTO           /* the default: blended pairwise over the polytopes
                             (simplices, L1, L-inf and K-norm balls, box,
                             K-sparse, hypersimplex, Birkhoff) and the
                             nuclear ball; vanilla over the spectraplex, user
                             sets and in the device loop */
} nla_fw_variant;

typedef enum nla_fw_step_rule {
    NLA_FW_AGNOSTIC = 0,  /* gamma_t = 2/(t+2), t = 0, 1, ...: gamma_0 = 1 */
    NLA_FW_SHORT_STEP,    /* gamma = -<g,d>/(L |d|^2), L given */
    NLA_FW_ADAPTIVE,      /* the same with L estimated by backtracking
                             (Pedregosa et al. 2020): L_t = 0.9 L_{t-1}, doubled
                             until f(x+gamma d) <= f + gamma<g,d> + L gamma^2|d|^2/2 */
    NLA_FW_EXACT          /* exact line search: built-in objectives and user
                             quadratics only */
} nla_fw_step_rule;
/* Every rule's gamma is clipped to [0, gamma_max] (1 for FW steps). */

typedef enum nla_fw_step_type {
    NLA_FW_STEP_FW = 0, NLA_FW_STEP_AWAY, NLA_FW_STEP_PAIRWISE,
    NLA_FW_STEP_DROP,     /* an away, pairwise or local step that removed its atom */
    NLA_FW_STEP_LOCAL,    /* towards an active atom: blended pairwise's local
                             steps (after an LMO call, as every non-lazy
                             step) and lazy steps (no LMO call) */
    NLA_FW_STEP_GAP       /* lazy: the LMO found no vertex good enough, so the
                             gap estimate was lowered; no move (gamma 0) */
} nla_fw_step_type;

typedef enum nla_fw_stop {
    NLA_FW_STOP_GAP = 0,  /* gap <= tol: NLA_OK */
    NLA_FW_STOP_MAX_ITER, /* NLA_EMAXITER, x is the last iterate */
    NLA_FW_STOP_TIME,     /* the time limit: NLA_EMAXITER */
    NLA_FW_STOP_CALLBACK, /* the callback returned non-zero: NLA_OK */
    NLA_FW_STOP_NUMERIC   /* NaN/Inf in f or the gradient: NLA_ENUMERIC */
} nla_fw_stop;

/* What the callback sees at iteration t, before the step is applied:
   x = x_t, f = f(x_t), gap = <grad f(x_t), x_t - v_t>, and the step
   x_{t+1} = x_t + gamma d_t of the given type.  A lazy step taken without
   an LMO call (lmo_calls unchanged) reports the gap of the last call, at
   an earlier iterate.  Return non-zero to stop (x_t is then the
   result). */
typedef struct nla_fw_state {
    int64_t t;
    double f, gap, gamma;
    nla_fw_step_type type;
    int64_t active_set_size;   /* 0 for vanilla */
    double time_s;             /* since the solve began */
    int64_t n;
    const double *x;
    int64_t lmo_calls;         /* so far, this iteration's included */
} nla_fw_state;
typedef int (*nla_fw_callback)(const nla_fw_state *state, void *user);

typedef struct nla_fw_result {
    nla_status status;         /* also the return value of nla_fw_solve */
    nla_fw_stop stop;
    int64_t iterations;        /* steps taken */
    double f, gap;             /* at the returned x */
    double best_gap;           /* the smallest gap seen */
    double time_s;
    int64_t active_set_size;   /* 0 for vanilla */
    int64_t lmo_calls;
} nla_fw_result;

/* Options.  Defaults: NLA_FW_AUTO (blended pairwise over polytopes and the
   nuclear ball, vanilla otherwise), NLA_FW_ADAPTIVE, not lazy, tol 1e-7,
   max_iter 10000, no time limit, no callback, quiet: least squares or a
   quadratic over a polytope, or over the nuclear ball with a low-rank
   optimum, converges linearly with them.  L: the Lipschitz constant of the gradient
   for NLA_FW_SHORT_STEP (> 0), the first estimate for NLA_FW_ADAPTIVE (0:
   take it from the curvature along the first direction), ignored
   otherwise.  Lazy (0 or 1; Braun, Pokutta, Zink 2017): the away, pairwise
   and blended variants keep phi, an estimate of the gap, and step towards
   an active atom without calling the LMO when the atom promises phi / 2;
   the LMO is called otherwise, and when even its vertex promises less, phi
   becomes min(gap, phi / 2) and x stays (NLA_FW_STEP_GAP, an iteration).
   The gap stop is tested where the LMO is called; max_iter, the time
   limit and a callback's stop call it, so res->gap is that of the x
   returned (after NLA_ENUMERIC: the last gap computed).  Lazy with
   NLA_FW_VANILLA is NLA_EINVAL at the solve; with NLA_FW_AUTO it applies
   where an active-set variant is chosen.  Verbose: every `every`
   iterations (>= 1) a row "iteration type primal gap time it/s" goes to
   out (NULL: quiet). */
NLA_API nla_status nla_fw_options_create(nla_fw_options **opt);
NLA_API void       nla_fw_options_destroy(nla_fw_options *opt);
NLA_API nla_status nla_fw_options_set_variant(nla_fw_options *opt, nla_fw_variant v);
NLA_API nla_status nla_fw_options_set_lazy(nla_fw_options *opt, int lazy);
NLA_API nla_status nla_fw_options_set_step(nla_fw_options *opt, nla_fw_step_rule rule,
                                           double L);
NLA_API nla_status nla_fw_options_set_tol(nla_fw_options *opt, double tol);
NLA_API nla_status nla_fw_options_set_max_iter(nla_fw_options *opt, int64_t max_iter);
NLA_API nla_status nla_fw_options_set_time_limit(nla_fw_options *opt, double seconds);
/* The time limit in seconds set on opt; 0 for none, and for NULL. */
NLA_API double     nla_fw_options_time_limit(const nla_fw_options *opt);
NLA_API nla_status nla_fw_options_set_callback(nla_fw_options *opt, nla_fw_callback cb,
                                               void *user);
NLA_API nla_status nla_fw_options_set_verbose(nla_fw_options *opt, FILE *out,
                                              int64_t every);

/* Minimize obj over set from the start x (dim doubles, feasible up to
   1e-9*max(1,scale): NLA_EINVAL otherwise; not checked for user sets, and
   for nuclear balls with min(m,n) > 256 only through |X|_F <= r).  On
   return x holds the result: NLA_OK (gap <= tol, or the callback stopped),
   NLA_EMAXITER (max_iter or the time limit; x is usable), NLA_ENUMERIC
   (x is the last iterate at which f and the gradient were finite; x
   unchanged when f or the gradient is not finite at the start).  A result
   of the CPU loop after steps lies in the set's bounds (simplices x >= 0, box, L-inf
   ball): x is clamped into them, a change of rounding size; active-set
   variants over one-hot vertices rebuild x from the atoms' weights when
   an atom leaves, so x is exactly 0 off the active atoms.  res
   may be NULL.  On NLA_EINVAL, and on NLA_ENOMEM or a backend failure
   (NLA_EDEVICE, NLA_ENOTSUP), neither x nor res is written. */
NLA_API nla_status nla_fw_solve(nla_context *ctx, const nla_fw_objective *obj,
                                const nla_fw_set *set, const nla_fw_options *opt,
                                double *x, nla_fw_result *res);

#ifdef __cplusplus
}
#endif

#endif /* NLA_H */
