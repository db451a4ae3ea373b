/* level2_tmpl.h - included by level2.c with T and P defined. (first cut) */
#define L2F_(p, name) nla_cpu_##p##name
#define L2F(p, name) L2F_(p, name)

nla_status L2F(P, gemv)(const nla_exec *ex, nla_trans trans, int64_t m, int64_t n,
                        T alpha, const T *a, int64_t lda, const T *x, int64_t incx,
                        T beta, T *y, int64_t incy)
{
    int64_t lx = trans == NLA_NO_TRANS ? n : m, ly = trans == NLA_NO_TRANS ? m : n;
    int64_t kx = incx < 0 ? (1 - lx) * incx : 0, ky = incy < 0 ? (1 - ly) * incy : 0;
    (void)ex;
    for (int64_t i = 0; i < ly; i++)
        y[ky + i * incy] = beta == 0 ? 0 : beta * y[ky + i * incy];
    if (alpha == 0)
        return NLA_OK;
    if (trans == NLA_NO_TRANS) {
        for (int64_t j = 0; j < n; j++) {
            T t = alpha * x[kx + j * incx];
            for (int64_t i = 0; i < m; i++)
                y[ky + i * incy] += t * a[i + j * lda];
        }
    } else {
        for (int64_t j = 0; j < n; j++) {
            T s = 0;
            for (int64_t i = 0; i < m; i++)
                s += a[i + j * lda] * x[kx + i * incx];
            y[ky + j * incy] += alpha * s;
        }
    }
    return NLA_OK;
}

nla_status L2F(P, gbmv)(const nla_exec *ex, nla_trans trans, int64_t m, int64_t n,
                        int64_t kl, int64_t ku, T alpha, const T *ab, int64_t ldab,
                        const T *x, int64_t incx, T beta, T *y, int64_t incy)
{
    int64_t lx = trans == NLA_NO_TRANS ? n : m, ly = trans == NLA_NO_TRANS ? m : n;
    int64_t kx = incx < 0 ? (1 - lx) * incx : 0, ky = incy < 0 ? (1 - ly) * incy : 0;
    (void)ex;
    for (int64_t i = 0; i < ly; i++)
        y[ky + i * incy] = beta == 0 ? 0 : beta * y[ky + i * incy];
    if (alpha == 0)
        return NLA_OK;
    for (int64_t j = 0; j < n; j++) {
        int64_t i0 = j - ku > 0 ? j - ku : 0, i1 = j + kl < m - 1 ? j + kl : m - 1;
        if (trans == NLA_NO_TRANS) {
            T t = alpha * x[kx + j * incx];
            for (int64_t i = i0; i <= i1; i++)
                y[ky + i * incy] += t * ab[ku + i - j + j * ldab];
        } else {
            T s = 0;
            for (int64_t i = i0; i <= i1; i++)
                s += ab[ku + i - j + j * ldab] * x[kx + i * incx];
            y[ky + j * incy] += alpha * s;
        }
    }
    return NLA_OK;
}

nla_status L2F(P, spmv)(const nla_exec *ex, nla_uplo uplo, int64_t n, T alpha,
                        const T *ap, const T *x, int64_t incx, T beta, T *y,
                        int64_t incy)
{
    int64_t kx = incx < 0 ? (1 - n) * incx : 0, ky = incy < 0 ? (1 - n) * incy : 0;
    (void)ex;
    for (int64_t i = 0; i < n; i++)
        y[ky + i * incy] = beta == 0 ? 0 : beta * y[ky + i * incy];
    if (alpha == 0)
        return NLA_OK;
    for (int64_t j = 0; j < n; j++) {
        T t1 = alpha * x[kx + j * incx], t2 = 0;
        if (uplo == NLA_UPPER) {
            const T *col = ap + j * (j + 1) / 2;
            for (int64_t i = 0; i < j; i++) {
                y[ky + i * incy] += t1 * col[i];
                t2 += col[i] * x[kx + i * incx];
            }
            y[ky + j * incy] += t1 * col[j] + alpha * t2;
        } else {
            const T *col = ap + j * (2 * n - j - 1) / 2;
            y[ky + j * incy] += t1 * col[j];
            for (int64_t i = j + 1; i < n; i++) {
                y[ky + i * incy] += t1 * col[i];
                t2 += col[i] * x[kx + i * incx];
            }
            y[ky + j * incy] += alpha * t2;
        }
    }
    return NLA_OK;
}

#undef L2F_
#undef L2F
