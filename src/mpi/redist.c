/*
 * redist.c - moving a matrix between two block-cyclic layouts of one grid,
 * optionally transposed, in one MPI_Alltoallv; scatter and gather are the
 * moves from and to a layout whose one block is the whole matrix on root.
 *
 * Both sides walk the elements a pair of processes share in the same
 * order, the destination's columns outer and its rows inner, each in
 * increasing global index, so no index travels with the values.  Each side
 * buckets its own local rows and columns by the other layout's owner: a
 * pass over the local indices, no pass over the global matrix.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

/* global index of local index l (blocks of nb over np from src, on p) */
static int64_t to_global(int64_t l, int64_t nb, int p, int src, int np)
{
    return (l / nb * np + (p - src + np) % np) * nb + l % nb;
}

static int owner(int64_t g, int64_t nb, int src, int np)
{
    return (int)((g / nb + src) % np);
}

/* The local indices [0, nl) of a dimension laid out as (nb, src, np) on
   process p, grouped by the process that owns each one's global index in
   the layout (nb2, src2, np2): idx[start[q] .. start[q+1]) are those of
   q, increasing.  Returns 0 on allocation failure. */
static int buckets(int64_t nl, int64_t nb, int p, int src, int np, int64_t nb2, int src2,
                   int np2, int64_t **idx, int64_t **start)
{
    int64_t *ix = malloc((size_t)(nl > 0 ? nl : 1) * sizeof *ix);
    int64_t *st = calloc((size_t)np2 + 1, sizeof *st);
    if (!ix || !st) {
        free(ix);
        free(st);
        return 0;
    }
    for (int64_t l = 0; l < nl; l++)
        st[owner(to_global(l, nb, p, src, np), nb2, src2, np2) + 1]++;
    for (int q = 0; q < np2; q++)
        st[q + 1] += st[q];
    {
        int64_t *fill = malloc((size_t)np2 * sizeof *fill);
        if (!fill) {
            free(ix);
            free(st);
            return 0;
        }
        memcpy(fill, st, (size_t)np2 * sizeof *fill);
        for (int64_t l = 0; l < nl; l++)
            ix[fill[owner(to_global(l, nb, p, src, np), nb2, src2, np2)]++] = l;
        free(fill);
    }
    *idx = ix;
    *start = st;
    return 1;
}

/* one element: a constant size where there is one, so the copy inlines */
static inline void copy_elem(void *d, const void *s, size_t es)
{
    switch (es) {
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    case 16: memcpy(d, s, 16); break;
    default: memcpy(d, s, es); break;
    }
}

nla_status nla_mpi_redist(const nla_mpi_grid *g, const char *fn, size_t es, int trans,
                          const void *s, const nla_mpi_desc *sd, void *d,
                          const nla_mpi_desc *dd)
{
    const int P = g->size;
    int64_t smr = nla_mpi_nloc(sd->m, sd->mb, g->myrow, sd->rsrc, g->nprow);
    int64_t snc = nla_mpi_nloc(sd->n, sd->nb, g->mycol, sd->csrc, g->npcol);
    int64_t dmr = nla_mpi_nloc(dd->m, dd->mb, g->myrow, dd->rsrc, g->nprow);
    int64_t dnc = nla_mpi_nloc(dd->n, dd->nb, g->mycol, dd->csrc, g->npcol);
    /* the destination's layout of the dimension each source dimension
       becomes, and the source's of each destination dimension */
    int64_t srow_nb2 = trans ? dd->nb : dd->mb, scol_nb2 = trans ? dd->mb : dd->nb;
    int srow_src2 = trans ? dd->csrc : dd->rsrc, scol_src2 = trans ? dd->rsrc : dd->csrc;
    int srow_np2 = trans ? g->npcol : g->nprow, scol_np2 = trans ? g->nprow : g->npcol;
    int64_t drow_nb2 = trans ? sd->nb : sd->mb, dcol_nb2 = trans ? sd->mb : sd->nb;
    int drow_src2 = trans ? sd->csrc : sd->rsrc, dcol_src2 = trans ? sd->rsrc : sd->csrc;
    int drow_np2 = trans ? g->npcol : g->nprow, dcol_np2 = trans ? g->nprow : g->npcol;
    int64_t *sr = NULL, *srs = NULL, *sc = NULL, *scs = NULL;
    int64_t *dr = NULL, *drs = NULL, *dc = NULL, *dcs = NULL;
    int *cnt = calloc((size_t)P * 4, sizeof *cnt);
    char *sbuf = NULL, *rbuf = NULL;
    int64_t stot = 0, rtot = 0;
    nla_status st = NLA_OK;
    int rc;

    if (!cnt || !buckets(smr, sd->mb, g->myrow, sd->rsrc, g->nprow, srow_nb2, srow_src2,
                         srow_np2, &sr, &srs) ||
        !buckets(snc, sd->nb, g->mycol, sd->csrc, g->npcol, scol_nb2, scol_src2, scol_np2,
                 &sc, &scs) ||
        !buckets(dmr, dd->mb, g->myrow, dd->rsrc, g->nprow, drow_nb2, drow_src2, drow_np2,
                 &dr, &drs) ||
        !buckets(dnc, dd->nb, g->mycol, dd->csrc, g->npcol, dcol_nb2, dcol_src2, dcol_np2,
                 &dc, &dcs))
        st = nla_mpi_fail(NLA_ENOMEM, fn, "out of memory for the redistribution's indices");
    if (st == NLA_OK) {
        int *scnt = cnt, *sdsp = cnt + P, *rcnt = cnt + 2 * P, *rdsp = cnt + 3 * P;
        for (int q = 0; q < P && st == NLA_OK; q++) {
            int qr = q / g->npcol, qc = q % g->npcol;
            /* to q: my source rows bound for q's destination row (or
               column, transposed) and my source columns likewise */
            int64_t nrow = srs[(trans ? qc : qr) + 1] - srs[trans ? qc : qr];
            int64_t ncol = scs[(trans ? qr : qc) + 1] - scs[trans ? qr : qc];
            /* from q: my destination rows whose source is q's row (or
               column, transposed), and my destination columns likewise */
            int64_t mrow = drs[(trans ? qc : qr) + 1] - drs[trans ? qc : qr];
            int64_t mcol = dcs[(trans ? qr : qc) + 1] - dcs[trans ? qr : qc];
            if (nrow * ncol > INT_MAX - stot || mrow * mcol > INT_MAX - rtot) {
                st = nla_mpi_fail(NLA_ENOTSUP, fn, "over INT_MAX elements move to or from one "
                                  "process (MPI's counts are int)");
                break;
            }
            scnt[q] = (int)(nrow * ncol);
            sdsp[q] = (int)stot;
            stot += scnt[q];
            rcnt[q] = (int)(mrow * mcol);
            rdsp[q] = (int)rtot;
            rtot += rcnt[q];
        }
    }
    if (st == NLA_OK) {
        sbuf = malloc((size_t)(stot > 0 ? stot : 1) * es);
        rbuf = malloc((size_t)(rtot > 0 ? rtot : 1) * es);
        if (!sbuf || !rbuf)
            st = nla_mpi_fail(NLA_ENOMEM, fn, "out of memory for the redistribution");
    }
    st = nla_mpi_agree(g, fn, st, NULL, NULL, 0);
    if (st == NLA_OK) {
        int *scnt = cnt, *sdsp = cnt + P, *rcnt = cnt + 2 * P, *rdsp = cnt + 3 * P;
        const int64_t lds = sd->lld, ldd = dd->lld;
        /* pack: the destination's columns outer, rows inner */
        for (int q = 0; q < P; q++) {
            int qr = q / g->npcol, qc = q % g->npcol;
            const int64_t *rows = sr + srs[trans ? qc : qr], *cols = sc + scs[trans ? qr : qc];
            int64_t nr = srs[(trans ? qc : qr) + 1] - srs[trans ? qc : qr];
            int64_t nc = scs[(trans ? qr : qc) + 1] - scs[trans ? qr : qc];
            char *out = sbuf + (size_t)sdsp[q] * es;
            /* transposed, destination column c is my source row rows[c]
               and its row r my source column cols[r] */
            int64_t orows = trans ? nc : nr, ocols = trans ? nr : nc;
            for (int64_t c = 0; c < ocols; c++)
                for (int64_t r = 0; r < orows; r++)
                    copy_elem(out + (size_t)(r + c * orows) * es,
                              (const char *)s +
                                  (size_t)(trans ? rows[c] + cols[r] * lds
                                                 : rows[r] + cols[c] * lds) * es,
                              es);
        }
        MPI_Datatype t;
        rc = MPI_Type_contiguous((int)es, MPI_BYTE, &t);
        if (rc == MPI_SUCCESS)
            rc = MPI_Type_commit(&t);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Alltoallv(sbuf, scnt, sdsp, t, rbuf, rcnt, rdsp, t, g->comm);
            MPI_Type_free(&t);
        }
        st = nla_mpi_check_rc(rc, fn, "MPI_Alltoallv");
        if (st == NLA_OK) {
            for (int q = 0; q < P; q++) {
                int qr = q / g->npcol, qc = q % g->npcol;
                const int64_t *rows = dr + drs[trans ? qc : qr];
                const int64_t *cols = dc + dcs[trans ? qr : qc];
                int64_t nr = drs[(trans ? qc : qr) + 1] - drs[trans ? qc : qr];
                int64_t nc = dcs[(trans ? qr : qc) + 1] - dcs[trans ? qr : qc];
                const char *in = rbuf + (size_t)rdsp[q] * es;
                for (int64_t c = 0; c < nc; c++)
                    for (int64_t r = 0; r < nr; r++)
                        copy_elem((char *)d + (size_t)(rows[r] + cols[c] * ldd) * es,
                                  in + (size_t)(r + c * nr) * es, es);
                if (q != g->rank)
                    g->cnt->bytes += (int64_t)rcnt[q] * (int64_t)es;
            }
        }
    }
    free(sr);
    free(srs);
    free(sc);
    free(scs);
    free(dr);
    free(drs);
    free(dc);
    free(dcs);
    free(cnt);
    free(sbuf);
    free(rbuf);
    return st;
}

/* --------------------------------------------------------- scatter/gather */

/* The layout of a whole m x n matrix held by rank root alone. */
static nla_mpi_desc whole_on(const nla_mpi_grid *g, int root, const nla_mpi_desc *d,
                             int64_t lda)
{
    nla_mpi_desc w = { d->m, d->n, d->m > 0 ? d->m : 1, d->n > 0 ? d->n : 1,
                       root / g->npcol, root % g->npcol, g->rank == root ? lda : 1 };
    return w;
}

static nla_status move(const char *fn, const nla_mpi_grid *g, int root, int gather,
                       size_t es, const void *a, int64_t lda, const void *aloc,
                       const nla_mpi_desc *desc, void *out)
{
    nla_status st = NLA_OK;
    int64_t mloc = 0, nloc = 0;

    if (!g)
        return nla_mpi_fail(NLA_EINVAL, fn, "grid is NULL");
    if (root < 0 || root >= g->size)
        st = nla_mpi_fail(NLA_EINVAL, fn, "root (%d) is not a rank of the grid (0..%d)", root,
                          g->size - 1);
    else
        st = nla_mpi_check_desc(fn, "desc", desc, g);
    if (st == NLA_OK) {
        mloc = nla_mpi_nloc(desc->m, desc->mb, g->myrow, desc->rsrc, g->nprow);
        nloc = nla_mpi_nloc(desc->n, desc->nb, g->mycol, desc->csrc, g->npcol);
        if (g->rank == root && lda < (desc->m > 1 ? desc->m : 1))
            st = nla_mpi_fail(NLA_EINVAL, fn, "lda (%lld) < max(1, m (%lld))", (long long)lda,
                              (long long)desc->m);
        else if (g->rank == root && desc->m > 0 && desc->n > 0 && !a)
            st = nla_mpi_fail(NLA_EINVAL, fn, "a is NULL");
        else if (mloc > 0 && nloc > 0 && !aloc)
            st = nla_mpi_fail(NLA_EINVAL, fn, "aloc is NULL");
    }
    {
        int64_t args[7] = { root, 0, 0, 0, 0, 0, 0 };
        static const char *const names[7] = { "root", "desc->m", "desc->n", "desc->mb",
                                              "desc->nb", "desc->rsrc", "desc->csrc" };
        if (desc) {
            args[1] = desc->m;
            args[2] = desc->n;
            args[3] = desc->mb;
            args[4] = desc->nb;
            args[5] = desc->rsrc;
            args[6] = desc->csrc;
        }
        st = nla_mpi_agree(g, fn, st, args, names, 7);
    }
    if (st != NLA_OK)
        return st;
    {
        nla_mpi_desc w = whole_on(g, root, desc, lda);
        st = gather ? nla_mpi_redist(g, fn, es, 0, aloc, desc, out, &w)
                    : nla_mpi_redist(g, fn, es, 0, a, &w, out, desc);
    }
    if (st == NLA_OK)
        nla_mpi_ok();
    return st;
}

NLA_API nla_status nla_mpi_dscatter(const nla_mpi_grid *grid, int root, const double *a,
                                    int64_t lda, double *aloc, const nla_mpi_desc *desc)
{
    return move("nla_mpi_dscatter", grid, root, 0, sizeof(double), a, lda, aloc, desc, aloc);
}

NLA_API nla_status nla_mpi_sscatter(const nla_mpi_grid *grid, int root, const float *a,
                                    int64_t lda, float *aloc, const nla_mpi_desc *desc)
{
    return move("nla_mpi_sscatter", grid, root, 0, sizeof(float), a, lda, aloc, desc, aloc);
}

NLA_API nla_status nla_mpi_dgather(const nla_mpi_grid *grid, int root, const double *aloc,
                                   const nla_mpi_desc *desc, double *a, int64_t lda)
{
    return move("nla_mpi_dgather", grid, root, 1, sizeof(double), a, lda, aloc, desc, a);
}

NLA_API nla_status nla_mpi_sgather(const nla_mpi_grid *grid, int root, const float *aloc,
                                   const nla_mpi_desc *desc, float *a, int64_t lda)
{
    return move("nla_mpi_sgather", grid, root, 1, sizeof(float), a, lda, aloc, desc, a);
}
