/*
 * blas_cpu.h - the CPU backend's BLAS entries (src/blas).  They are called
 * by the front end after validation, with column-major data only, and
 * follow BLAS semantics exactly:
 *   - negative increments address x[(len-1-i)*|inc|] for element i;
 *   - beta == 0 overwrites y/C without reading it;
 *   - alpha == 0 reads neither A nor x (B);
 *   - the front end has already returned for the BLAS quick-return cases
 *     (m == 0, n == 0, alpha == 0 && beta == 1), except GEMM's k == 0 with
 *     beta != 1, which scales C.
 */
#ifndef NLA_BLAS_CPU_H
#define NLA_BLAS_CPU_H

#include "core/backend.h"

#define NLA_CPU_L2_DECLS(T, P)                                                 \
    nla_status nla_cpu_##P##gemv(const nla_exec *ex, nla_trans trans,          \
        int64_t m, int64_t n, T alpha, const T *a, int64_t lda, const T *x,    \
        int64_t incx, T beta, T *y, int64_t incy);                             \
    nla_status nla_cpu_##P##gbmv(const nla_exec *ex, nla_trans trans,          \
        int64_t m, int64_t n, int64_t kl, int64_t ku, T alpha, const T *ab,    \
        int64_t ldab, const T *x, int64_t incx, T beta, T *y, int64_t incy);   \
    nla_status nla_cpu_##P##spmv(const nla_exec *ex, nla_uplo uplo,            \
        int64_t n, T alpha, const T *ap, const T *x, int64_t incx, T beta,     \
        T *y, int64_t incy);                                                   \
    nla_status nla_cpu_##P##gemm(const nla_exec *ex, nla_trans transa,         \
        nla_trans transb, int64_t m, int64_t n, int64_t k, T alpha,            \
        const T *a, int64_t lda, int64_t stride_a, const T *b, int64_t ldb,    \
        int64_t stride_b, T beta, T *c, int64_t ldc, int64_t stride_c,         \
        int64_t batch);

NLA_CPU_L2_DECLS(double, d)
NLA_CPU_L2_DECLS(float, s)

#endif
