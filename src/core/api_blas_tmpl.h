/*
 * api_blas_tmpl.h - front end of the BLAS routines, one copy per precision.
 * Included by api_blas.c with T (the element type), P (d or s) and PS
 * ("d" or "s") defined.
 *
 * Each routine: check every argument (nothing is written on failure), take
 * the BLAS quick returns, normalise row-major GEMM to column-major, then
 * call the context's backend.
 */
#define FN_(p, name) nla_##p##name
#define FN(p, name) FN_(p, name)
#define OP_(p, name) p##name
#define OP(p, name) OP_(p, name)

NLA_API nla_status FN(P, gemv)(nla_context *ctx, nla_trans trans, int64_t m, int64_t n,
                               T alpha, const T *a, int64_t lda, const T *x,
                               int64_t incx, T beta, T *y, int64_t incy)
{
    static const char fn[] = "nla_" PS "gemv";
    nla_check ck = NLA_CHECK_INIT(ctx, fn);
    int64_t lx, ly;
    int work, reads;
    nla_exec ex;
    const struct nla_backend_ops *ops;
    const void *ptrs[3];

    if (nla_chk_ctx(&ck, ctx) || nla_chk_trans(&ck, "trans", trans) ||
        nla_chk_nonneg(&ck, "m", m) || nla_chk_nonneg(&ck, "n", n) ||
        nla_chk_ld(&ck, "lda", lda, "max(1,m)", m > 1 ? m : 1) ||
        nla_chk_inc(&ck, "incx", incx) || nla_chk_inc(&ck, "incy", incy))
        return ck.status;
    lx = trans == NLA_NO_TRANS ? n : m;
    ly = trans == NLA_NO_TRANS ? m : n;
    work = m > 0 && n > 0 && !(alpha == 0 && beta == 1);
    reads = work && alpha != 0;
    if (nla_chk_ptr(&ck, "a", a, reads) || nla_chk_ptr(&ck, "x", x, reads) ||
        nla_chk_ptr(&ck, "y", y, work) ||
        nla_chk_matrix_extent(&ck, "a", m, n, lda, sizeof(T)) ||
        nla_chk_vector_extent(&ck, "x", lx, incx, sizeof(T)) ||
        nla_chk_vector_extent(&ck, "y", ly, incy, sizeof(T)))
        return ck.status;
    nla_ok(ctx);
    if (!work)
        return NLA_OK;
    ptrs[0] = a; ptrs[1] = x; ptrs[2] = y;
    ops = nla_route(ctx, &ex, NLA_ROUTE_LEVEL2, 0, 0, ptrs, 3);
    return nla_exec_done(ctx, fn, ops->OP(P, gemv)(&ex, trans, m, n, alpha, a, lda, x,
                                                   incx, beta, y, incy));
}

NLA_API nla_status FN(P, gbmv)(nla_context *ctx, nla_trans trans, int64_t m, int64_t n,
                               int64_t kl, int64_t ku, T alpha, const T *ab,
                               int64_t ldab, const T *x, int64_t incx, T beta, T *y,
                               int64_t incy)
{
    static const char fn[] = "nla_" PS "gbmv";
    nla_check ck = NLA_CHECK_INIT(ctx, fn);
    int64_t lx, ly, band;
    int work, reads;
    nla_exec ex;
    const struct nla_backend_ops *ops;
    const void *ptrs[3];

    if (nla_chk_ctx(&ck, ctx) || nla_chk_trans(&ck, "trans", trans) ||
        nla_chk_nonneg(&ck, "m", m) || nla_chk_nonneg(&ck, "n", n) ||
        nla_chk_nonneg(&ck, "kl", kl) || nla_chk_nonneg(&ck, "ku", ku) ||
        nla_chk_ldab(&ck, ldab, kl, ku) ||
        nla_chk_inc(&ck, "incx", incx) || nla_chk_inc(&ck, "incy", incy))
        return ck.status;
    band = kl + ku + 1; /* <= ldab: cannot overflow */
    lx = trans == NLA_NO_TRANS ? n : m;
    ly = trans == NLA_NO_TRANS ? m : n;
    work = m > 0 && n > 0 && !(alpha == 0 && beta == 1);
    reads = work && alpha != 0;
    if (nla_chk_ptr(&ck, "ab", ab, reads) || nla_chk_ptr(&ck, "x", x, reads) ||
        nla_chk_ptr(&ck, "y", y, work) ||
        nla_chk_matrix_extent(&ck, "ab", m > 0 ? band : 0, n, ldab, sizeof(T)) ||
        nla_chk_vector_extent(&ck, "x", lx, incx, sizeof(T)) ||
        nla_chk_vector_extent(&ck, "y", ly, incy, sizeof(T)))
        return ck.status;
    nla_ok(ctx);
    if (!work)
        return NLA_OK;
    ptrs[0] = ab; ptrs[1] = x; ptrs[2] = y;
    ops = nla_route(ctx, &ex, NLA_ROUTE_LEVEL2, 0, 0, ptrs, 3);
    return nla_exec_done(ctx, fn, ops->OP(P, gbmv)(&ex, trans, m, n, kl, ku, alpha, ab,
                                                   ldab, x, incx, beta, y, incy));
}

NLA_API nla_status FN(P, spmv)(nla_context *ctx, nla_uplo uplo, int64_t n, T alpha,
                               const T *ap, const T *x, int64_t incx, T beta, T *y,
                               int64_t incy)
{
    static const char fn[] = "nla_" PS "spmv";
    nla_check ck = NLA_CHECK_INIT(ctx, fn);
    int work, reads;
    nla_exec ex;
    const struct nla_backend_ops *ops;
    const void *ptrs[3];

    if (nla_chk_ctx(&ck, ctx) || nla_chk_uplo(&ck, "uplo", uplo) ||
        nla_chk_nonneg(&ck, "n", n) || nla_chk_inc(&ck, "incx", incx) ||
        nla_chk_inc(&ck, "incy", incy))
        return ck.status;
    work = n > 0 && !(alpha == 0 && beta == 1);
    reads = work && alpha != 0;
    if (nla_chk_ptr(&ck, "ap", ap, reads) || nla_chk_ptr(&ck, "x", x, reads) ||
        nla_chk_ptr(&ck, "y", y, work) ||
        nla_chk_packed_extent(&ck, "ap", n, sizeof(T)) ||
        nla_chk_vector_extent(&ck, "x", n, incx, sizeof(T)) ||
        nla_chk_vector_extent(&ck, "y", n, incy, sizeof(T)))
        return ck.status;
    nla_ok(ctx);
    if (!work)
        return NLA_OK;
    ptrs[0] = ap; ptrs[1] = x; ptrs[2] = y;
    ops = nla_route(ctx, &ex, NLA_ROUTE_LEVEL2, 0, 0, ptrs, 3);
    return nla_exec_done(ctx, fn, ops->OP(P, spmv)(&ex, uplo, n, alpha, ap, x, incx, beta,
                                                   y, incy));
}

/* Shared by gemm and gemm_strided_batched: checks, then the column-major
   call (a row-major C = op(A)op(B) is the column-major C' = op(B)'op(A)'). */
static nla_status OP(P, gemm_front)(nla_context *ctx, const char *fn, int batched,
                                    nla_layout layout, nla_trans transa,
                                    nla_trans transb, int64_t m, int64_t n, int64_t k,
                                    T alpha, const T *a, int64_t lda, int64_t stride_a,
                                    const T *b, int64_t ldb, int64_t stride_b, T beta,
                                    T *c, int64_t ldc, int64_t stride_c, int64_t batch)
{
    nla_check ck = NLA_CHECK_INIT(ctx, fn);
    int row = layout == NLA_ROW_MAJOR;
    /* stored shapes: rows x cols of each array as laid out in memory,
       column-major view (a row-major r x c array is a c x r column-major one) */
    int64_t ar = transa == NLA_NO_TRANS ? m : k, ac = transa == NLA_NO_TRANS ? k : m;
    int64_t br = transb == NLA_NO_TRANS ? k : n, bc = transb == NLA_NO_TRANS ? n : k;
    int64_t cr = m, cc = n, t;
    const char *aexpr, *bexpr, *cexpr;
    int work, reads;
    nla_exec ex;
    const struct nla_backend_ops *ops;
    const void *ptrs[3];
    double flops, bytes;

    if (nla_chk_ctx(&ck, ctx) || nla_chk_layout(&ck, "layout", layout) ||
        nla_chk_trans(&ck, "transa", transa) || nla_chk_trans(&ck, "transb", transb) ||
        nla_chk_nonneg(&ck, "m", m) || nla_chk_nonneg(&ck, "n", n) ||
        nla_chk_nonneg(&ck, "k", k))
        return ck.status;
    if (row) {
        t = ar; ar = ac; ac = t;
        t = br; br = bc; bc = t;
        t = cr; cr = cc; cc = t;
    }
    aexpr = (transa == NLA_NO_TRANS) != row ? "max(1,m)" : "max(1,k)";
    bexpr = (transb == NLA_NO_TRANS) != row ? "max(1,k)" : "max(1,n)";
    cexpr = row ? "max(1,n)" : "max(1,m)";
    if (nla_chk_ld(&ck, "lda", lda, aexpr, ar > 1 ? ar : 1) ||
        nla_chk_ld(&ck, "ldb", ldb, bexpr, br > 1 ? br : 1) ||
        nla_chk_ld(&ck, "ldc", ldc, cexpr, cr > 1 ? cr : 1))
        return ck.status;
    if (batched &&
        (nla_chk_nonneg(&ck, "stride_a", stride_a) ||
         nla_chk_nonneg(&ck, "stride_b", stride_b) ||
         nla_chk_nonneg(&ck, "stride_c", stride_c) ||
         nla_chk_nonneg(&ck, "batch", batch)))
        return ck.status;
    work = m > 0 && n > 0 && batch > 0 && !((alpha == 0 || k == 0) && beta == 1);
    reads = work && alpha != 0 && k > 0;
    if (nla_chk_ptr(&ck, "a", a, reads) || nla_chk_ptr(&ck, "b", b, reads) ||
        nla_chk_ptr(&ck, "c", c, work) ||
        nla_chk_matrix_extent(&ck, "a", ar, ac, lda, sizeof(T)) ||
        nla_chk_matrix_extent(&ck, "b", br, bc, ldb, sizeof(T)) ||
        nla_chk_matrix_extent(&ck, "c", cr, cc, ldc, sizeof(T)))
        return ck.status;
    /* the extents above fit, so one matrix's span cannot overflow */
    if (batched && batch > 1 && cr > 0 && cc > 0 &&
        nla_chk_ld(&ck, "stride_c", stride_c, "the extent of one C, (cols-1)*ldc+rows",
                   (cc - 1) * ldc + cr))
        return ck.status;
    if (batched &&
        ((ar > 0 && ac > 0 &&
          nla_chk_batch_extent(&ck, "a", (ac - 1) * lda + ar, stride_a, batch, sizeof(T))) ||
         (br > 0 && bc > 0 &&
          nla_chk_batch_extent(&ck, "b", (bc - 1) * ldb + br, stride_b, batch, sizeof(T))) ||
         (cr > 0 && cc > 0 &&
          nla_chk_batch_extent(&ck, "c", (cc - 1) * ldc + cr, stride_c, batch, sizeof(T)))))
        return ck.status;
    nla_ok(ctx);
    if (!work)
        return NLA_OK;
    if (!batched)
        stride_a = stride_b = stride_c = 0;
    /* A and B are not read (alpha == 0 or k == 0): their strides were never
       checked against an extent, so keep the backend from offsetting by them */
    if (!reads)
        stride_a = stride_b = 0;
    /* AUTO: 2mnk flops per matrix against the bytes staging would move */
    flops = 2.0 * (double)m * (double)n * (double)k * (double)batch;
    bytes = (double)sizeof(T) *
            ((reads ? (double)ar * (double)ac * (stride_a ? (double)batch : 1) +
                      (double)br * (double)bc * (stride_b ? (double)batch : 1) : 0) +
             (double)cr * (double)cc * (double)batch * (beta != 0 ? 2 : 1));
    ptrs[0] = a; ptrs[1] = b; ptrs[2] = c;
    ops = nla_route(ctx, &ex, sizeof(T) == sizeof(double) ? NLA_ROUTE_GEMM_D
                                                           : NLA_ROUTE_GEMM_S,
                    flops, bytes, ptrs, 3);
    if (row)
        return nla_exec_done(ctx, fn, ops->OP(P, gemm)(&ex, transb, transa, n, m, k, alpha,
                                                       b, ldb, stride_b, a, lda, stride_a,
                                                       beta, c, ldc, stride_c, batch));
    return nla_exec_done(ctx, fn, ops->OP(P, gemm)(&ex, transa, transb, m, n, k, alpha, a,
                                                   lda, stride_a, b, ldb, stride_b, beta, c,
                                                   ldc, stride_c, batch));
}

NLA_API nla_status FN(P, gemm)(nla_context *ctx, nla_layout layout, nla_trans transa,
                               nla_trans transb, int64_t m, int64_t n, int64_t k,
                               T alpha, const T *a, int64_t lda, const T *b,
                               int64_t ldb, T beta, T *c, int64_t ldc)
{
    return OP(P, gemm_front)(ctx, "nla_" PS "gemm", 0, layout, transa, transb, m, n, k,
                             alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1);
}

NLA_API nla_status FN(P, gemm_strided_batched)(nla_context *ctx, nla_layout layout,
                               nla_trans transa, nla_trans transb, int64_t m,
                               int64_t n, int64_t k, T alpha, const T *a, int64_t lda,
                               int64_t stride_a, const T *b, int64_t ldb,
                               int64_t stride_b, T beta, T *c, int64_t ldc,
                               int64_t stride_c, int64_t batch)
{
    return OP(P, gemm_front)(ctx, "nla_" PS "gemm_strided_batched", 1, layout, transa,
                             transb, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b,
                             beta, c, ldc, stride_c, batch);
}

#undef FN_
#undef FN
#undef OP_
#undef OP
