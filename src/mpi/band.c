/*
 * band.c - distributed band GAXPY, y = alpha*op(A)*x + beta*y, A n x n
 * with kl sub- and ku superdiagonals, its rows split in consecutive blocks
 * over the grid's processes in rank order.
 *
 * A process with rows [r0, r1) holds the band columns [c0, c1) =
 * [max(0, r0-kl), min(n, r1+ku)) that cross them.  Those rows of A are the
 * (r1-r0) x (c1-c0) band matrix with kl - (r0-c0) sub- and ku + (r0-c0)
 * superdiagonals stored from the first of those columns, so the local
 * product is one nla_[ds]gbmv on the process's own storage.
 *   NoTrans: x[c0, r0) and x[r1, c1) come from the processes that own
 *            them (at most kl and ku values; the neighbours, or further
 *            where neighbours hold fewer rows), then one local product.
 *   Trans:   the local product gives partial sums of y[c0, c1); those
 *            outside [r0, r1) go to their owners, which add what they
 *            receive in rank order, so the bits depend on nothing but
 *            the rows each process holds.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

/* the local product, s or d, timed */
static nla_status local_gbmv(const nla_mpi_grid *g, nla_context *ctx, size_t es, nla_trans t,
                             int64_t m, int64_t n, int64_t kl, int64_t ku, double alpha,
                             const void *ab, int64_t ldab, const void *x, double beta, void *y)
{
    double t0 = MPI_Wtime();
    nla_status st;
    if (es == sizeof(double))
        st = nla_dgbmv(ctx, t, m, n, kl, ku, alpha, (const double *)ab, ldab,
                       (const double *)x, 1, beta, (double *)y, 1);
    else
        st = nla_sgbmv(ctx, t, m, n, kl, ku, (float)alpha, (const float *)ab, ldab,
                       (const float *)x, 1, (float)beta, (float *)y, 1);
    nla_mpi_local_done(g, t0);
    return st;
}

/* [a0, a1) and [b0, b1) overlap in [*o0, *o1) (empty: *o0 >= *o1) */
static int overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1, int64_t *o0, int64_t *o1)
{
    *o0 = a0 > b0 ? a0 : b0;
    *o1 = a1 < b1 ? a1 : b1;
    return *o0 < *o1;
}

typedef struct {
    int64_t n, kl, ku;
    int64_t *off;           /* off[q]: process q's first row; off[P] = n */
} rows_of;

/* the halo of process q: [c0, r0) and [r1, c1) */
static void halo(const rows_of *ro, int q, int64_t h[4])
{
    int64_t r0 = ro->off[q], r1 = ro->off[q + 1];
    h[0] = r0 - ro->kl > 0 ? r0 - ro->kl : 0;
    h[1] = r0;
    h[2] = r1;
    h[3] = r1 + ro->ku < ro->n ? r1 + ro->ku : ro->n;
    if (r0 == r1) /* no rows: no halo */
        h[0] = h[1] = h[2] = h[3] = r0;
}

/* req: room for 4*P requests.  Exchange halo values: `from` sends, for every process q, the part of its
   own rows [r0, r1) lying in q's halo (NoTrans: x; gather) ... or, with
   reduce set, the part of its halo lying in q's rows (partial sums of y).
   mine: the process's own rows' values (gather) or partial sums over
   [c0, c1) (reduce); ext: the values over [c0, c1) received (gather), or
   (reduce) a buffer of (P) * (kl + ku) for the received partial sums, laid
   out per sender. */
static nla_status exchange(const nla_mpi_grid *g, const char *fn, size_t es, const rows_of *ro,
                           int reduce, const char *mine, char *ext, int64_t *rcv_off,
                           int64_t *rcv_len, MPI_Request *req)
{
    const int P = g->size, me = g->rank;
    int64_t hm[4], c0, r0 = ro->off[me], r1 = ro->off[me + 1];
    MPI_Datatype t = es == 8 ? MPI_DOUBLE : MPI_FLOAT;
    int nreq = 0, rc = MPI_SUCCESS;
    int64_t used = 0;

    halo(ro, me, hm);
    c0 = hm[0];
    for (int q = 0; q < P && rc == MPI_SUCCESS; q++) {
        int64_t hq[4], o0, o1;
        if (q == me)
            continue;
        halo(ro, q, hq);
        for (int side = 0; side < 2 && rc == MPI_SUCCESS; side++) {
            /* receive: gather, q's rows in my halo; reduce, my rows in q's halo */
            int got = reduce ? overlap(r0, r1, hq[2 * side], hq[2 * side + 1], &o0, &o1)
                             : overlap(hm[2 * side], hm[2 * side + 1], ro->off[q],
                                       ro->off[q + 1], &o0, &o1);
            if (got) {
                char *dst;
                if (reduce) {
                    rcv_off[2 * q + side] = o0;
                    rcv_len[2 * q + side] = o1 - o0;
                    dst = ext + (size_t)used * es;
                    used += o1 - o0;
                } else {
                    dst = ext + (size_t)(o0 - c0) * es;
                }
                rc = MPI_Irecv(dst, (int)(o1 - o0), t, q, side, g->comm, &req[nreq++]);
                g->cnt->bytes += (o1 - o0) * (int64_t)es;
            }
            /* send: gather, my rows in q's halo; reduce, q's rows in my halo */
            got = reduce ? overlap(hm[2 * side], hm[2 * side + 1], ro->off[q], ro->off[q + 1],
                                   &o0, &o1)
                         : overlap(r0, r1, hq[2 * side], hq[2 * side + 1], &o0, &o1);
            if (got && rc == MPI_SUCCESS) {
                const char *src = reduce ? mine + (size_t)(o0 - c0) * es
                                         : mine + (size_t)(o0 - r0) * es;
                rc = MPI_Isend(src, (int)(o1 - o0), t, q, side, g->comm, &req[nreq++]);
            }
        }
    }
    /* (after an MPI failure too: the requests posted must end) */
    if (nreq > 0) {
        int rw = MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = rw;
    }
    return nla_mpi_check_rc(rc, fn, "the halo exchange");
}

#define BAND_ARGS 6

static nla_status band_gaxpy(const char *fn, nla_context *ctx, const nla_mpi_grid *g,
                             size_t es, nla_trans trans, int64_t n, int64_t kl, int64_t ku,
                             double alpha, const void *ab, int64_t ldab, int64_t nloc,
                             const void *x, double beta, void *y)
{
    nla_status st = NLA_OK, lst = NLA_OK;
    rows_of ro = { n, kl, ku, NULL };
    int64_t h[4], c0 = 0, c1 = 0, r0, r1, *mine_n = NULL, *rcv = NULL;
    char *ext = NULL, *part = NULL;
    MPI_Request *req = NULL;
    int64_t sum = 0;
    int rc, agreed = 0;

    if (!g)
        return nla_mpi_fail(NLA_EINVAL, fn, "grid is NULL");
    if (!ctx)
        st = nla_mpi_fail(NLA_EINVAL, fn, "ctx is NULL");
    else if (trans != NLA_NO_TRANS && trans != NLA_TRANS)
        st = nla_mpi_fail(NLA_EINVAL, fn, "trans (%d) is not NLA_NO_TRANS or NLA_TRANS",
                          (int)trans);
    else if (n < 0 || kl < 0 || ku < 0)
        st = nla_mpi_fail(NLA_EINVAL, fn, "n (%lld), kl (%lld) or ku (%lld) < 0", (long long)n,
                          (long long)kl, (long long)ku);
    else if (nloc < 0 || nloc > n)
        st = nla_mpi_fail(NLA_EINVAL, fn, "nloc (%lld) outside 0..n (%lld)", (long long)nloc,
                          (long long)n);
    else if (kl > INT64_MAX / 4 || ku > INT64_MAX / 4)
        st = nla_mpi_fail(NLA_EINVAL, fn, "kl (%lld) or ku (%lld) too large", (long long)kl,
                          (long long)ku);
    else if (ldab < kl + ku + 1)
        st = nla_mpi_fail(NLA_EINVAL, fn, "ldab (%lld) < kl+ku+1 (%lld)", (long long)ldab,
                          (long long)(kl + ku + 1));
    /* every process's first row */
    mine_n = calloc((size_t)g->size + 1, sizeof *mine_n);
    ro.off = calloc((size_t)g->size + 1, sizeof *ro.off);
    if (!mine_n || !ro.off) {
        free(mine_n);
        free(ro.off);
        mine_n = ro.off = NULL;
        if (st == NLA_OK)
            st = nla_mpi_fail(NLA_ENOMEM, fn, "out of memory for the row offsets");
    }
    {
        int64_t args[BAND_ARGS] = { trans, n, kl, ku, 0, 0 };
        static const char *const names[BAND_ARGS] = { "trans", "n", "kl", "ku", "alpha",
                                                      "beta" };
        memcpy(&args[4], &alpha, sizeof alpha);
        memcpy(&args[5], &beta, sizeof beta);
        st = nla_mpi_agree(g, fn, st, args, names, BAND_ARGS);
    }
    if (st != NLA_OK) {
        free(mine_n);
        free(ro.off);
        return st;
    }
    rc = MPI_Allgather(&nloc, 1, MPI_INT64_T, mine_n, 1, MPI_INT64_T, g->comm);
    if ((st = nla_mpi_check_rc(rc, fn, "MPI_Allgather")) != NLA_OK) {
        free(mine_n);
        free(ro.off);
        return st;
    }
    for (int q = 0; q < g->size; q++) {
        ro.off[q] = sum;
        sum += mine_n[q];
    }
    ro.off[g->size] = sum;
    r0 = ro.off[g->rank];
    r1 = r0 + nloc;
    halo(&ro, g->rank, h);
    c0 = h[0];
    c1 = h[3] > r1 ? h[3] : r1;
    /* the local checks that need the offsets */
    if (sum != n)
        st = nla_mpi_fail(NLA_EINVAL, fn, "the processes' nloc add up to %lld, not n (%lld)",
                          (long long)sum, (long long)n);
    else if (nloc > 0 && (!ab || !y || (alpha != 0 && !x)))
        st = nla_mpi_fail(NLA_EINVAL, fn, "%s is NULL", !ab ? "ab" : !y ? "y" : "x");
    else if ((kl > ku ? kl : ku) > INT_MAX && n > INT_MAX)
        st = nla_mpi_fail(NLA_ENOTSUP, fn, "a halo of over INT_MAX values (MPI's counts)");
    if (st == NLA_OK) {
        /* what the others send: at most one run of my rows for each side
           of each of their halos */
        int64_t most = nloc < kl + ku ? nloc : kl + ku;
        ext = malloc((size_t)(c1 - c0 + 1) * es);
        if (trans == NLA_TRANS)
            part = malloc((size_t)((int64_t)g->size * 2 * most + 1) * es);
        rcv = calloc((size_t)g->size * 2, 2 * sizeof *rcv);
        req = malloc((size_t)(4 * g->size) * sizeof *req);
        if (!ext || !rcv || !req || (trans == NLA_TRANS && !part))
            st = nla_mpi_fail(NLA_ENOMEM, fn, "out of memory for the halo");
    }
    st = nla_mpi_agree(g, fn, st, NULL, NULL, 0);
    agreed = st == NLA_OK;
    if (st == NLA_OK && alpha == 0) {
        /* y = beta*y: no halo, nothing read from A or x */
        lst = local_gbmv(g, ctx, es, NLA_NO_TRANS, nloc, nloc, 0, 0, 0.0, ab ? ab : ext, 1,
                         x ? x : ext, beta, y);
    } else if (st == NLA_OK && trans == NLA_NO_TRANS) {
        /* x over [c0, c1): the halo from the others, my rows in the middle */
        if (nloc > 0)
            memcpy(ext + (size_t)(r0 - c0) * es, x, (size_t)nloc * es);
        st = exchange(g, fn, es, &ro, 0, (const char *)x, ext, NULL, NULL, req);
        if (st == NLA_OK && nloc > 0)
            lst = local_gbmv(g, ctx, es, NLA_NO_TRANS, nloc, c1 - c0, kl - (r0 - c0),
                             ku + (r0 - c0), alpha, ab, ldab, ext, beta, y);
    } else if (st == NLA_OK) {
        /* partial sums over [c0, c1), sent to their owners */
        int64_t *roff = rcv, *rlen = rcv + 2 * g->size;
        if (nloc > 0)
            lst = local_gbmv(g, ctx, es, NLA_TRANS, nloc, c1 - c0, kl - (r0 - c0), ku + (r0 - c0),
                             alpha, ab, ldab, x, 0.0, ext);
        else
            memset(ext, 0, (size_t)(c1 - c0 + 1) * es);
        st = exchange(g, fn, es, &ro, 1, ext, part, roff, rlen, req);
        if (st == NLA_OK && nloc > 0) {
            /* y = beta*y + (the lower ranks' sums, mine, the higher
               ranks'), each sum added in rank order */
            int64_t used = 0;
            for (int64_t i = 0; i < nloc; i++) {
                if (es == 8) {
                    double *yy = (double *)y;
                    yy[i] = beta == 0 ? 0.0 : beta * yy[i];
                } else {
                    float *yy = (float *)y;
                    yy[i] = beta == 0 ? 0.0f : (float)beta * yy[i];
                }
            }
            for (int q = 0; q < g->size; q++) {
                if (q == g->rank) {
                    for (int64_t i = 0; i < nloc; i++) {
                        if (es == 8)
                            ((double *)y)[i] += ((const double *)ext)[r0 - c0 + i];
                        else
                            ((float *)y)[i] += ((const float *)ext)[r0 - c0 + i];
                    }
                    continue;
                }
                for (int side = 0; side < 2; side++) {
                    int64_t o = roff[2 * q + side], len = rlen[2 * q + side];
                    for (int64_t i = 0; i < len; i++) {
                        if (es == 8)
                            ((double *)y)[o - r0 + i] += ((const double *)part)[used + i];
                        else
                            ((float *)y)[o - r0 + i] += ((const float *)part)[used + i];
                    }
                    used += len;
                }
            }
        }
    }
    /* every process that got past the first agreements agrees on the
       outcome, an MPI failure's or a local product's */
    if (st == NLA_OK && lst != NLA_OK)
        st = nla_mpi_fail(lst, fn, "the local product failed: %.150s", nla_last_error());
    if (agreed)
        st = nla_mpi_agree(g, fn, st, NULL, NULL, 0);
    free(req);
    free(mine_n);
    free(ro.off);
    free(ext);
    free(part);
    free(rcv);
    if (st == NLA_OK)
        nla_mpi_ok();
    return st;
}

NLA_API nla_status nla_mpi_dgbmv(nla_context *ctx, const nla_mpi_grid *grid, nla_trans trans,
                                 int64_t n, int64_t kl, int64_t ku, double alpha,
                                 const double *ab, int64_t ldab, int64_t nloc, const double *x,
                                 double beta, double *y)
{
    return band_gaxpy("nla_mpi_dgbmv", ctx, grid, sizeof(double), trans, n, kl, ku, alpha, ab,
                      ldab, nloc, x, beta, y);
}

NLA_API nla_status nla_mpi_sgbmv(nla_context *ctx, const nla_mpi_grid *grid, nla_trans trans,
                                 int64_t n, int64_t kl, int64_t ku, float alpha,
                                 const float *ab, int64_t ldab, int64_t nloc, const float *x,
                                 float beta, float *y)
{
    return band_gaxpy("nla_mpi_sgbmv", ctx, grid, sizeof(float), trans, n, kl, ku, alpha, ab,
                      ldab, nloc, x, beta, y);
}
