/*
 * blasapi_tmpl.h - the BLAS and CBLAS entry points of one precision.
 * Included by blasapi.c with T (the element type), P (d or s), FNAME
 * ("DGEMM ") and CNAME ("cblas_dgemm") defined.
 *
 * Each Fortran routine checks by the reference rules and forwards; each
 * CBLAS routine checks its enums, forms the column-major problem (as
 * reference CBLAS does before it calls the Fortran routine) and goes
 * through the same check with INFO + 1.
 */
#define CAT_(a, b, c) a##b##c
#define CAT(a, b, c) CAT_(a, b, c)
#define F77(name) CAT(P, name, _)                 /* dgemm_ */
#define CBL(name) CAT(cblas_, P, name)            /* cblas_dgemm */
#define NLA(name) CAT(nla_, P, name)              /* nla_dgemm */
#define RUN(name) CAT(run_, P, name)              /* run_dgemm */

/* The checked column-major calls: INFO, or 0 after forwarding. */

static int RUN(gemm)(int ta_ok, int tb_ok, nla_trans ta, nla_trans tb, int m, int n,
                     int k, T alpha, const T *a, int lda, const T *b, int ldb, T beta,
                     T *c, int ldc)
{
    int info = gemm_info(ta_ok, tb_ok, ta, tb, m, n, k, lda, ldb, ldc);
    nla_context *ctx;
    if (info)
        return info;
    if ((ctx = thread_context()) != NULL)
        NLA(gemm)(ctx, NLA_COL_MAJOR, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                  ldc);
    return 0;
}

static int RUN(gemv)(int t_ok, nla_trans t, int m, int n, T alpha, const T *a, int lda,
                     const T *x, int incx, T beta, T *y, int incy)
{
    int info = gemv_info(t_ok, m, n, lda, incx, incy);
    nla_context *ctx;
    if (info)
        return info;
    if ((ctx = thread_context()) != NULL)
        NLA(gemv)(ctx, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
    return 0;
}

static int RUN(gbmv)(int t_ok, nla_trans t, int m, int n, int kl, int ku, T alpha,
                     const T *a, int lda, const T *x, int incx, T beta, T *y, int incy)
{
    int info = gbmv_info(t_ok, m, n, kl, ku, lda, incx, incy);
    nla_context *ctx;
    if (info)
        return info;
    if ((ctx = thread_context()) != NULL)
        NLA(gbmv)(ctx, t, m, n, kl, ku, alpha, a, lda, x, incx, beta, y, incy);
    return 0;
}

static int RUN(spmv)(int u_ok, nla_uplo u, int n, T alpha, const T *ap, const T *x,
                     int incx, T beta, T *y, int incy)
{
    int info = spmv_info(u_ok, n, incx, incy);
    nla_context *ctx;
    if (info)
        return info;
    if ((ctx = thread_context()) != NULL)
        NLA(spmv)(ctx, u, n, alpha, ap, x, incx, beta, y, incy);
    return 0;
}

/* ------------------------------------------------------------ Fortran */

BLAS_API void F77(gemm)(const char *transa, const char *transb, const int *m,
                        const int *n, const int *k, const T *alpha, const T *a,
                        const int *lda, const T *b, const int *ldb, const T *beta, T *c,
                        const int *ldc)
{
    nla_trans ta = NLA_NO_TRANS, tb = NLA_NO_TRANS;
    int ta_ok = f_trans(*transa, &ta) == 0, tb_ok = f_trans(*transb, &tb) == 0;
    int info = RUN(gemm)(ta_ok, tb_ok, ta, tb, *m, *n, *k, *alpha, a, *lda, b, *ldb,
                         *beta, c, *ldc);
    if (info)
        fortran_error(FNAME("GEMM "), info);
}

BLAS_API void F77(gemv)(const char *trans, const int *m, const int *n, const T *alpha,
                        const T *a, const int *lda, const T *x, const int *incx,
                        const T *beta, T *y, const int *incy)
{
    nla_trans t = NLA_NO_TRANS;
    int t_ok = f_trans(*trans, &t) == 0;
    int info = RUN(gemv)(t_ok, t, *m, *n, *alpha, a, *lda, x, *incx,
                         *beta, y, *incy);
    if (info)
        fortran_error(FNAME("GEMV "), info);
}

BLAS_API void F77(gbmv)(const char *trans, const int *m, const int *n, const int *kl,
                        const int *ku, const T *alpha, const T *a, const int *lda,
                        const T *x, const int *incx, const T *beta, T *y, const int *incy)
{
    nla_trans t = NLA_NO_TRANS;
    int t_ok = f_trans(*trans, &t) == 0;
    int info = RUN(gbmv)(t_ok, t, *m, *n, *kl, *ku, *alpha, a, *lda,
                         x, *incx, *beta, y, *incy);
    if (info)
        fortran_error(FNAME("GBMV "), info);
}

BLAS_API void F77(spmv)(const char *uplo, const int *n, const T *alpha, const T *ap,
                        const T *x, const int *incx, const T *beta, T *y, const int *incy)
{
    nla_uplo u = NLA_UPPER;
    int u_ok = f_uplo(*uplo, &u) == 0;
    int info = RUN(spmv)(u_ok, u, *n, *alpha, ap, x, *incx, *beta, y,
                         *incy);
    if (info)
        fortran_error(FNAME("SPMV "), info);
}

/* -------------------------------------------------------------- CBLAS */

BLAS_API void CBL(gemm)(int layout, int transa, int transb, int m, int n, int k,
                        T alpha, const T *a, int lda, const T *b, int ldb, T beta, T *c,
                        int ldc)
{
    nla_trans ta, tb;
    int row = layout == CBLAS_ROW, info;
    if (layout != CBLAS_ROW && layout != CBLAS_COL) {
        cblas_error(0, CNAME("gemm"), 1, "Illegal layout setting, %d\n", layout);
        return;
    }
    if (cblas_trans(transa, &ta)) {
        cblas_error(row, CNAME("gemm"), 2, "Illegal TransA setting, %d\n", transa);
        return;
    }
    if (cblas_trans(transb, &tb)) {
        cblas_error(row, CNAME("gemm"), 3, "Illegal TransB setting, %d\n", transb);
        return;
    }
    /* row-major C = op(A) op(B) is column-major C' = op(B)' op(A)' */
    info = row ? RUN(gemm)(1, 1, tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc)
               : RUN(gemm)(1, 1, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (info)
        cblas_error(row, CNAME("gemm"), info + 1, "", 0);
}

BLAS_API void CBL(gemv)(int layout, int trans, int m, int n, T alpha, const T *a,
                        int lda, const T *x, int incx, T beta, T *y, int incy)
{
    nla_trans t;
    int row = layout == CBLAS_ROW, info;
    if (layout != CBLAS_ROW && layout != CBLAS_COL) {
        cblas_error(0, CNAME("gemv"), 1, "Illegal layout setting, %d\n", layout);
        return;
    }
    if (cblas_trans(trans, &t)) {
        cblas_error(row, CNAME("gemv"), 2, "Illegal TransA setting, %d\n", trans);
        return;
    }
    /* a row-major m x n A is the column-major n x m A' */
    info = row ? RUN(gemv)(1, flip(t), n, m, alpha, a, lda, x, incx, beta, y, incy)
               : RUN(gemv)(1, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
    if (info)
        cblas_error(row, CNAME("gemv"), info + 1, "", 0);
}

BLAS_API void CBL(gbmv)(int layout, int trans, int m, int n, int kl, int ku, T alpha,
                        const T *a, int lda, const T *x, int incx, T beta, T *y, int incy)
{
    nla_trans t;
    int row = layout == CBLAS_ROW, info;
    if (layout != CBLAS_ROW && layout != CBLAS_COL) {
        cblas_error(0, CNAME("gbmv"), 1, "Illegal layout setting, %d\n", layout);
        return;
    }
    if (cblas_trans(trans, &t)) {
        cblas_error(row, CNAME("gbmv"), 2, "Illegal TransA setting, %d\n", trans);
        return;
    }
    /* row-major band storage of A is column-major band storage of A' */
    info = row ? RUN(gbmv)(1, flip(t), n, m, ku, kl, alpha, a, lda, x, incx, beta, y, incy)
               : RUN(gbmv)(1, t, m, n, kl, ku, alpha, a, lda, x, incx, beta, y, incy);
    if (info)
        cblas_error(row, CNAME("gbmv"), info + 1, "", 0);
}

BLAS_API void CBL(spmv)(int layout, int uplo, int n, T alpha, const T *ap, const T *x,
                        int incx, T beta, T *y, int incy)
{
    nla_uplo u;
    int row = layout == CBLAS_ROW, info;
    if (layout != CBLAS_ROW && layout != CBLAS_COL) {
        cblas_error(0, CNAME("spmv"), 1, "Illegal layout setting, %d\n", layout);
        return;
    }
    if (uplo != CBLAS_UPPER && uplo != CBLAS_LOWER) {
        cblas_error(row, CNAME("spmv"), 2, "Illegal Uplo setting, %d\n", uplo);
        return;
    }
    /* row-major packed upper is column-major packed lower, and back */
    u = (uplo == CBLAS_UPPER) != row ? NLA_UPPER : NLA_LOWER;
    info = RUN(spmv)(1, u, n, alpha, ap, x, incx, beta, y, incy);
    if (info)
        cblas_error(row, CNAME("spmv"), info + 1, "", 0);
}

#undef CAT_
#undef CAT
#undef F77
#undef CBL
#undef NLA
#undef RUN
