/*
 * spmv.c - distributed packed-symmetric GAXPY, y = alpha*A*x + beta*y,
 * A n x n symmetric, its columns split in consecutive blocks over the
 * grid's processes in rank order.
 *
 * A process with columns [c0, c1) holds them as the two pieces libnla's
 * kernels take: the diagonal block A(c0:c1, c0:c1) as a packed triangle
 * (uplo's), and the rest of the columns of uplo's triangle as a dense
 * rectangle R: A(0:c0, c0:c1) for upper, A(c1:n, c0:c1) for lower.
 * nla_mpi_dpacked_slice cuts both from a whole packed matrix.  Then
 *   y(c0:c1) = beta*y + alpha*(T x(c0:c1) + R' x(outside))   (spmv, gemv T)
 *   y(outside) += alpha*R x(c0:c1)                           (gemv N)
 * The outside rows of x come from one MPI_Allgatherv of x, and the outside
 * sums go to their owners in one MPI_Reduce_scatter: n values each way
 * for every process.  One code serves both precisions, by element size
 * (es), as band.c does.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

/* the rectangle's rows: [0, c0) upper, [c1, n) lower */
static void rect_rows(nla_uplo uplo, int64_t n, int64_t c0, int64_t c1, int64_t *r0,
                      int64_t *r1)
{
    *r0 = uplo == NLA_UPPER ? 0 : c1;
    *r1 = uplo == NLA_UPPER ? c0 : n;
}

static nla_status packed_slice(const char *fn, size_t es, nla_uplo uplo, int64_t n,
                               const void *ap, int64_t c0, int64_t c1, void *r, int64_t ldr,
                               void *t)
{
    const char *a = ap;
    char *rr = r, *tt = t;
    int64_t r0, r1;
    if (uplo != NLA_UPPER && uplo != NLA_LOWER)
        return nla_mpi_fail(NLA_EINVAL, fn, "uplo (%d) is not NLA_UPPER or NLA_LOWER",
                            (int)uplo);
    if (n < 0 || c0 < 0 || c1 < c0 || c1 > n)
        return nla_mpi_fail(NLA_EINVAL, fn, "not 0 <= c0 (%lld) <= c1 (%lld) <= n (%lld)",
                            (long long)c0, (long long)c1, (long long)n);
    rect_rows(uplo, n, c0, c1, &r0, &r1);
    if (ldr < (r1 - r0 > 1 ? r1 - r0 : 1))
        return nla_mpi_fail(NLA_EINVAL, fn, "ldr (%lld) < max(1, rectangle rows (%lld))",
                            (long long)ldr, (long long)(r1 - r0));
    if (c1 > c0 && (!ap || !t || (r1 > r0 && !r)))
        return nla_mpi_fail(NLA_EINVAL, fn, "%s is NULL", !ap ? "ap" : !t ? "t" : "r");
    for (int64_t j = c0; j < c1; j++) {
        int64_t w = j - c0;
        if (uplo == NLA_UPPER) {
            /* column j: rows 0..j from j(j+1)/2 */
            const char *col = a + (size_t)(j * (j + 1) / 2) * es;
            if (c0 > 0)
                memcpy(rr + (size_t)(w * ldr) * es, col, (size_t)c0 * es);
            memcpy(tt + (size_t)(w * (w + 1) / 2) * es, col + (size_t)c0 * es,
                   (size_t)(w + 1) * es);
        } else {
            /* column j: rows j..n-1 from j*n - j(j-1)/2; the triangle's
               column w holds rows j..c1-1 */
            const char *col = a + (size_t)(j * n - j * (j - 1) / 2) * es;
            int64_t wl = c1 - c0, tc = w * wl - w * (w - 1) / 2;
            memcpy(tt + (size_t)tc * es, col, (size_t)(c1 - j) * es);
            if (n > c1)
                memcpy(rr + (size_t)(w * ldr) * es, col + (size_t)(c1 - j) * es,
                       (size_t)(n - c1) * es);
        }
    }
    nla_mpi_ok();
    return NLA_OK;
}

NLA_API nla_status nla_mpi_dpacked_slice(nla_uplo uplo, int64_t n, const double *ap,
                                         int64_t c0, int64_t c1, double *r, int64_t ldr,
                                         double *t)
{
    return packed_slice("nla_mpi_dpacked_slice", sizeof(double), uplo, n, ap, c0, c1, r, ldr,
                        t);
}

NLA_API nla_status nla_mpi_spacked_slice(nla_uplo uplo, int64_t n, const float *ap,
                                         int64_t c0, int64_t c1, float *r, int64_t ldr,
                                         float *t)
{
    return packed_slice("nla_mpi_spacked_slice", sizeof(float), uplo, n, ap, c0, c1, r, ldr,
                        t);
}

/* part(c0:c1) = alpha*(T x(c0:c1) + R' x(r0:r1)), part(r0:r1) = alpha*R x(c0:c1),
   xall and part whole vectors, part zero outside both */
static nla_status local_products(nla_context *ctx, size_t es, nla_uplo uplo, int64_t nloc,
                                 int64_t c0, int64_t r0, int64_t r1, double alpha,
                                 const void *t, const void *r, int64_t ldr, const void *xall,
                                 void *part)
{
    nla_status st;
    if (es == sizeof(double)) {
        const double *x = xall;
        double *p = part;
        st = nla_dspmv(ctx, uplo, nloc, alpha, t, x + c0, 1, 0.0, p + c0, 1);
        if (st == NLA_OK && r1 > r0)
            st = nla_dgemv(ctx, NLA_TRANS, r1 - r0, nloc, alpha, r, ldr, x + r0, 1, 1.0,
                           p + c0, 1);
        if (st == NLA_OK && r1 > r0)
            st = nla_dgemv(ctx, NLA_NO_TRANS, r1 - r0, nloc, alpha, r, ldr, x + c0, 1, 0.0,
                           p + r0, 1);
    } else {
        const float *x = xall;
        float *p = part, a = (float)alpha;
        st = nla_sspmv(ctx, uplo, nloc, a, t, x + c0, 1, 0.0f, p + c0, 1);
        if (st == NLA_OK && r1 > r0)
            st = nla_sgemv(ctx, NLA_TRANS, r1 - r0, nloc, a, r, ldr, x + r0, 1, 1.0f, p + c0,
                           1);
        if (st == NLA_OK && r1 > r0)
            st = nla_sgemv(ctx, NLA_NO_TRANS, r1 - r0, nloc, a, r, ldr, x + c0, 1, 0.0f,
                           p + r0, 1);
    }
    return st;
}

/* y = beta*y + mine (mine NULL: beta*y), nloc values; beta = 0 writes 0
   over NaN */
static void scale_add(size_t es, int64_t nloc, double beta, void *y, const void *mine)
{
    if (es == sizeof(double)) {
        double *yy = y;
        const double *m = mine;
        for (int64_t i = 0; i < nloc; i++)
            yy[i] = (beta == 0 ? 0.0 : beta * yy[i]) + (m ? m[i] : 0.0);
    } else {
        float *yy = y, b = (float)beta;
        const float *m = mine;
        for (int64_t i = 0; i < nloc; i++)
            yy[i] = (b == 0 ? 0.0f : b * yy[i]) + (m ? m[i] : 0.0f);
    }
}

static nla_status packed_gaxpy(const char *fn, nla_context *ctx, const nla_mpi_grid *grid,
                               size_t es, nla_uplo uplo, int64_t n, double alpha,
                               const void *t, const void *r, int64_t ldr, int64_t nloc,
                               const void *x, double beta, void *y)
{
    const nla_mpi_grid *g = grid;
    MPI_Datatype dt = es == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT;
    nla_status st = NLA_OK, lst = NLA_OK;
    int64_t c0 = 0, c1, r0 = 0, r1 = 0, sum = 0, *cnt64 = NULL;
    int *cnt = NULL, *dsp = NULL, rc, agreed = 0;
    char *xall = NULL, *part = NULL, *mine = NULL;

    if (!g)
        return nla_mpi_fail(NLA_EINVAL, fn, "grid is NULL");
    if (!ctx)
        st = nla_mpi_fail(NLA_EINVAL, fn, "ctx is NULL");
    else if (uplo != NLA_UPPER && uplo != NLA_LOWER)
        st = nla_mpi_fail(NLA_EINVAL, fn, "uplo (%d) is not NLA_UPPER or NLA_LOWER", (int)uplo);
    else if (n < 0 || n > INT32_MAX)
        st = nla_mpi_fail(NLA_EINVAL, fn, "n (%lld) < 0 or over INT_MAX (MPI's counts)",
                          (long long)n);
    else if (nloc < 0 || nloc > n)
        st = nla_mpi_fail(NLA_EINVAL, fn, "nloc (%lld) outside 0..n (%lld)", (long long)nloc,
                          (long long)n);
    cnt64 = calloc((size_t)g->size + 1, sizeof *cnt64);
    cnt = calloc((size_t)g->size * 2 + 1, sizeof *cnt);
    if ((!cnt64 || !cnt) && st == NLA_OK)
        st = nla_mpi_fail(NLA_ENOMEM, fn, "out of memory for the counts");
    {
        int64_t args[4] = { uplo, n, 0, 0 };
        static const char *const names[4] = { "uplo", "n", "alpha", "beta" };
        memcpy(&args[2], &alpha, sizeof alpha);
        memcpy(&args[3], &beta, sizeof beta);
        st = nla_mpi_agree(g, fn, st, args, names, 4);
    }
    if (st == NLA_OK) {
        rc = MPI_Allgather(&nloc, 1, MPI_INT64_T, cnt64, 1, MPI_INT64_T, g->comm);
        st = nla_mpi_check_rc(rc, fn, "MPI_Allgather");
    }
    if (st != NLA_OK) {
        free(cnt64);
        free(cnt);
        return st;
    }
    dsp = cnt + g->size;
    for (int q = 0; q < g->size; q++) {
        if (q == g->rank)
            c0 = sum;
        dsp[q] = (int)(sum < INT32_MAX ? sum : INT32_MAX);
        cnt[q] = (int)cnt64[q];
        sum += cnt64[q];
    }
    c1 = c0 + nloc;
    rect_rows(uplo, n, c0, c1, &r0, &r1);
    if (sum != n)
        st = nla_mpi_fail(NLA_EINVAL, fn, "the processes' nloc add up to %lld, not n (%lld)",
                          (long long)sum, (long long)n);
    else if (ldr < (r1 - r0 > 1 ? r1 - r0 : 1))
        st = nla_mpi_fail(NLA_EINVAL, fn, "ldr (%lld) < max(1, rectangle rows (%lld))",
                          (long long)ldr, (long long)(r1 - r0));
    else if (nloc > 0 && (!t || !y || (alpha != 0 && !x) || (alpha != 0 && r1 > r0 && !r)))
        st = nla_mpi_fail(NLA_EINVAL, fn, "%s is NULL", !t ? "t" : !y ? "y" : !x ? "x" : "r");
    if (st == NLA_OK) {
        xall = malloc((size_t)(n + 1) * es);
        part = calloc((size_t)(n + 1), es);
        mine = malloc((size_t)(nloc + 1) * es);
        if (!xall || !part || !mine)
            st = nla_mpi_fail(NLA_ENOMEM, fn, "out of memory for x and the partial sums");
    }
    st = nla_mpi_agree(g, fn, st, NULL, NULL, 0);
    agreed = st == NLA_OK;
    if (st == NLA_OK && alpha != 0) {
        /* all of x, then my rows' sums and the rectangle's outside */
        double t0;
        rc = MPI_Allgatherv(x, (int)nloc, dt, xall, cnt, dsp, dt, g->comm);
        st = nla_mpi_check_rc(rc, fn, "MPI_Allgatherv");
        if (st == NLA_OK)
            g->cnt->bytes += (n - nloc) * (int64_t)es;
        t0 = MPI_Wtime();
        if (st == NLA_OK && nloc > 0)
            lst = local_products(ctx, es, uplo, nloc, c0, r0, r1, alpha, t, r, ldr, xall, part);
        nla_mpi_local_done(g, t0);
        if (st == NLA_OK) {
            /* every process's sums for my rows, added up by MPI */
            rc = MPI_Reduce_scatter(part, mine, cnt, dt, MPI_SUM, g->comm);
            st = nla_mpi_check_rc(rc, fn, "MPI_Reduce_scatter");
            if (st == NLA_OK)
                g->cnt->bytes += (n - nloc) * (int64_t)es;
        }
        if (st == NLA_OK && lst == NLA_OK)
            scale_add(es, nloc, beta, y, mine);
    } else if (st == NLA_OK) {
        scale_add(es, nloc, beta, y, NULL);
    }
    /* every process past the agreement agrees on the outcome */
    if (st == NLA_OK && lst != NLA_OK)
        st = nla_mpi_fail(lst, fn, "the local product failed: %.150s", nla_last_error());
    if (agreed)
        st = nla_mpi_agree(g, fn, st, NULL, NULL, 0);
    free(cnt64);
    free(cnt);
    free(xall);
    free(part);
    free(mine);
    if (st == NLA_OK)
        nla_mpi_ok();
    return st;
}

NLA_API nla_status nla_mpi_dspmv(nla_context *ctx, const nla_mpi_grid *grid, nla_uplo uplo,
                                 int64_t n, double alpha, const double *t, const double *r,
                                 int64_t ldr, int64_t nloc, const double *x, double beta,
                                 double *y)
{
    return packed_gaxpy("nla_mpi_dspmv", ctx, grid, sizeof(double), uplo, n, alpha, t, r, ldr,
                        nloc, x, beta, y);
}

NLA_API nla_status nla_mpi_sspmv(nla_context *ctx, const nla_mpi_grid *grid, nla_uplo uplo,
                                 int64_t n, float alpha, const float *t, const float *r,
                                 int64_t ldr, int64_t nloc, const float *x, float beta,
                                 float *y)
{
    return packed_gaxpy("nla_mpi_sspmv", ctx, grid, sizeof(float), uplo, n, alpha, t, r, ldr,
                        nloc, x, beta, y);
}
