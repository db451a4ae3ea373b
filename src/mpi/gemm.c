/*
 * gemm.c - distributed GEMM by SUMMA.
 *
 * C's layout decides: op(A) must have C's rows (its row blocks and source
 * row) and op(B) C's columns.  An operand that does not is first moved to
 * such a layout (nla_mpi_redist), keeping the k blocking of the other
 * operand where that one stays, so that the panels line up.  Then, for each
 * panel of k (a range inside one block of op(A)'s columns and one of
 * op(B)'s rows), the process column owning op(A)'s panel broadcasts it
 * along each process row, the process row owning op(B)'s broadcasts it
 * down each column, and every process multiplies them into its part of C
 * through the context.  The next panels' broadcasts are in flight while
 * the current pair is multiplied (two buffers of each).
 */
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

/* op(A)'s k blocking when both operands are moved: panels this wide keep
   the local multiply near its full rate (the CPU GEMM's own k block is of
   this order) */
#define NLA_MPI_KB 256
/* the local multiply of a panel pair in this many column blocks, so that
   MPI progresses the next pair's broadcasts in between */
#define NLA_MPI_PARTS 4

typedef struct {
    const void *a, *b;          /* op(A), op(B) in C-compatible layouts */
    nla_mpi_desc da, db;
    void *abuf[2], *bbuf[2];    /* the panels, two of each */
    MPI_Request req[2][2];
} summa;

/* the local multiply, s or d, timed */
static nla_status local_gemm(const nla_mpi_grid *g, nla_context *ctx, size_t es, int64_t m,
                             int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
                             const void *b, int64_t ldb, double beta, void *c, int64_t ldc)
{
    double t0 = MPI_Wtime();
    nla_status st;
    if (es == sizeof(double))
        st = nla_dgemm(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, m, n, k, alpha,
                       (const double *)a, lda, (const double *)b, ldb, beta, (double *)c, ldc);
    else
        st = nla_sgemm(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, m, n, k, (float)alpha,
                       (const float *)a, lda, (const float *)b, ldb, (float)beta, (float *)c,
                       ldc);
    nla_mpi_local_done(g, t0);
    return st;
}

/* the next panel boundary after k0 */
static int64_t panel_end(int64_t k0, int64_t k, int64_t kba, int64_t kbb)
{
    int64_t ea = (k0 / kba + 1) * kba, eb = (k0 / kbb + 1) * kbb;
    int64_t e = ea < eb ? ea : eb;
    return e < k ? e : k;
}

/* local index of global index g on its owner (blocks of nb over np) */
static int64_t local_of(int64_t g, int64_t nb, int np)
{
    return g / nb / np * nb + g % nb;
}

/* Pack (on the owners) and start the broadcasts of panel [k0, k1) into
   buffers slot. */
static nla_status start_panel(const nla_mpi_grid *g, const char *fn, size_t es, summa *s,
                              int slot, int64_t k0, int64_t k1, int64_t mloc, int64_t nloc)
{
    int64_t kw = k1 - k0;
    int qa = (int)((k0 / s->da.nb + s->da.csrc) % g->npcol);
    int pb = (int)((k0 / s->db.mb + s->db.rsrc) % g->nprow);
    MPI_Datatype t = es == 8 ? MPI_DOUBLE : MPI_FLOAT;
    int rc;

    if (g->mycol == qa && mloc > 0) {
        /* op(A)'s local columns, mloc x kw, made contiguous */
        int64_t lk = local_of(k0, s->da.nb, g->npcol);
        const char *src = (const char *)s->a + (size_t)(lk * s->da.lld) * es;
        if (s->da.lld == mloc)
            memcpy(s->abuf[slot], src, (size_t)(mloc * kw) * es);
        else
            for (int64_t j = 0; j < kw; j++)
                memcpy((char *)s->abuf[slot] + (size_t)(j * mloc) * es,
                       src + (size_t)(j * s->da.lld) * es, (size_t)mloc * es);
    }
    if (g->myrow == pb && nloc > 0) {
        /* op(B)'s local rows, kw x nloc */
        int64_t lk = local_of(k0, s->db.mb, g->nprow);
        for (int64_t j = 0; j < nloc; j++)
            memcpy((char *)s->bbuf[slot] + (size_t)(j * kw) * es,
                   (const char *)s->b + (size_t)(lk + j * s->db.lld) * es, (size_t)kw * es);
    }
    rc = MPI_Ibcast(s->abuf[slot], (int)(mloc * kw), t, qa, g->row_comm, &s->req[slot][0]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Ibcast(s->bbuf[slot], (int)(kw * nloc), t, pb, g->col_comm, &s->req[slot][1]);
    if (g->mycol != qa)
        g->cnt->bytes += mloc * kw * (int64_t)es;
    if (g->myrow != pb)
        g->cnt->bytes += kw * nloc * (int64_t)es;
    return nla_mpi_check_rc(rc, fn, "MPI_Ibcast");
}

static nla_status check_args(const char *fn, const nla_mpi_grid *g, nla_trans ta, nla_trans tb,
                             int64_t m, int64_t n, int64_t k, const void *a,
                             const nla_mpi_desc *da, const void *b, const nla_mpi_desc *db,
                             const void *c, const nla_mpi_desc *dc)
{
    nla_status st;
    struct { const char *name; const nla_mpi_desc *d; const void *p; int64_t r, c; } op[3] = {
        { "desca", da, a, ta == NLA_TRANS ? k : m, ta == NLA_TRANS ? m : k },
        { "descb", db, b, tb == NLA_TRANS ? n : k, tb == NLA_TRANS ? k : n },
        { "descc", dc, c, m, n },
    };
    if (ta != NLA_NO_TRANS && ta != NLA_TRANS)
        return nla_mpi_fail(NLA_EINVAL, fn, "transa (%d) is not NLA_NO_TRANS or NLA_TRANS",
                            (int)ta);
    if (tb != NLA_NO_TRANS && tb != NLA_TRANS)
        return nla_mpi_fail(NLA_EINVAL, fn, "transb (%d) is not NLA_NO_TRANS or NLA_TRANS",
                            (int)tb);
    if (m < 0 || n < 0 || k < 0)
        return nla_mpi_fail(NLA_EINVAL, fn, "m (%lld), n (%lld) or k (%lld) < 0", (long long)m,
                            (long long)n, (long long)k);
    for (int i = 0; i < 3; i++) {
        int64_t ml, nl;
        if ((st = nla_mpi_check_desc(fn, op[i].name, op[i].d, g)) != NLA_OK)
            return st;
        if (op[i].d->m != op[i].r || op[i].d->n != op[i].c)
            return nla_mpi_fail(NLA_EINVAL, fn, "%s is %lld x %lld, not %lld x %lld", op[i].name,
                                (long long)op[i].d->m, (long long)op[i].d->n,
                                (long long)op[i].r, (long long)op[i].c);
        ml = nla_mpi_nloc(op[i].d->m, op[i].d->mb, g->myrow, op[i].d->rsrc, g->nprow);
        nl = nla_mpi_nloc(op[i].d->n, op[i].d->nb, g->mycol, op[i].d->csrc, g->npcol);
        if (ml > 0 && nl > 0 && !op[i].p)
            return nla_mpi_fail(NLA_EINVAL, fn, "%c is NULL", "abc"[i]);
    }
    return NLA_OK;
}

static nla_status summa_gemm(const char *fn, nla_context *ctx, const nla_mpi_grid *g,
                             size_t es, nla_trans ta, nla_trans tb, int64_t m, int64_t n,
                             int64_t k, double alpha, const void *a, const nla_mpi_desc *da,
                             const void *b, const nla_mpi_desc *db, double beta, void *c,
                             const nla_mpi_desc *dc)
{
    nla_status st = NLA_OK, lst = NLA_OK;
    summa s;
    int move_a = 0, move_b = 0, agreed = 0;
    int64_t mloc = 0, nloc = 0, kwmax = 0;
    void *am = NULL, *bm = NULL;

    memset(&s, 0, sizeof s);
    if (!g)
        return nla_mpi_fail(NLA_EINVAL, fn, "grid is NULL");
    if (!ctx)
        st = nla_mpi_fail(NLA_EINVAL, fn, "ctx is NULL");
    else
        st = check_args(fn, g, ta, tb, m, n, k, a, da, b, db, c, dc);
    if (st == NLA_OK) {
        int64_t kba, kbb;
        mloc = nla_mpi_nloc(m, dc->mb, g->myrow, dc->rsrc, g->nprow);
        nloc = nla_mpi_nloc(n, dc->nb, g->mycol, dc->csrc, g->npcol);
        /* op(A) needs C's rows, op(B) C's columns */
        move_a = ta == NLA_TRANS || (da->mb != dc->mb && m > 0) ||
                 (da->rsrc != dc->rsrc && g->nprow > 1);
        move_b = tb == NLA_TRANS || (db->nb != dc->nb && n > 0) ||
                 (db->csrc != dc->csrc && g->npcol > 1);
        kba = move_a ? (move_b ? NLA_MPI_KB : db->mb) : da->nb;
        kbb = move_b ? kba : db->mb;
        s.da = *da;
        s.db = *db;
        if (move_a) {
            /* any process column may hold op(A)'s first k block: the
               panels need only the same block boundaries as op(B)'s */
            nla_mpi_desc t = { m, k, dc->mb, kba, dc->rsrc, 0, mloc > 1 ? mloc : 1 };
            s.da = t;
        }
        if (move_b) {
            nla_mpi_desc t = { k, n, kbb, dc->nb, 0, dc->csrc, 0 };
            int64_t kl = nla_mpi_nloc(k, kbb, g->myrow, 0, g->nprow);
            t.lld = kl > 1 ? kl : 1;
            s.db = t;
        }
        kwmax = kba < kbb ? kba : kbb;
        kwmax = kwmax < k ? kwmax : k;
        if (mloc * kwmax > INT32_MAX || kwmax * nloc > INT32_MAX)
            st = nla_mpi_fail(NLA_ENOTSUP, fn, "a panel of over INT_MAX elements on one process "
                              "(MPI's counts are int): use smaller blocks");
    }
    if (st == NLA_OK) {
        size_t pa = (size_t)(mloc * kwmax > 0 ? mloc * kwmax : 1) * es;
        size_t pb = (size_t)(kwmax * nloc > 0 ? kwmax * nloc : 1) * es;
        for (int i = 0; i < 2; i++) {
            s.abuf[i] = malloc(pa);
            s.bbuf[i] = malloc(pb);
        }
        if (move_a)
            am = malloc((size_t)(s.da.lld * nla_mpi_nloc(k, s.da.nb, g->mycol, 0, g->npcol) + 1) * es);
        if (move_b)
            bm = malloc((size_t)(s.db.lld * nloc + 1) * es);
        if (!s.abuf[0] || !s.abuf[1] || !s.bbuf[0] || !s.bbuf[1] || (move_a && !am) ||
            (move_b && !bm))
            st = nla_mpi_fail(NLA_ENOMEM, fn, "out of memory for the panels");
    }
    {
        /* everything that must be the same on every process */
        int64_t args[19] = { 0 };
        static const char *const names[19] = {
            "transa", "transb", "m", "n", "k", "alpha", "beta",
            "desca->mb", "desca->nb", "desca->rsrc", "desca->csrc",
            "descb->mb", "descb->nb", "descb->rsrc", "descb->csrc",
            "descc->mb", "descc->nb", "descc->rsrc", "descc->csrc" };
        if (st == NLA_OK) {
            int64_t v[19] = { ta, tb, m, n, k, 0, 0, da->mb, da->nb, da->rsrc, da->csrc,
                              db->mb, db->nb, db->rsrc, db->csrc,
                              dc->mb, dc->nb, dc->rsrc, dc->csrc };
            memcpy(&v[5], &alpha, sizeof alpha);
            memcpy(&v[6], &beta, sizeof beta);
            memcpy(args, v, sizeof v);
        }
        st = nla_mpi_agree(g, fn, st, args, names, 19);
        agreed = st == NLA_OK;
    }
    if (st == NLA_OK && move_a)
        st = nla_mpi_redist(g, fn, es, ta == NLA_TRANS, a, da, am, &s.da);
    if (st == NLA_OK && move_b)
        st = nla_mpi_redist(g, fn, es, tb == NLA_TRANS, b, db, bm, &s.db);
    if (st == NLA_OK) {
        int slot = 0;
        int64_t lc = dc->lld;
        s.a = move_a ? am : a;
        s.b = move_b ? bm : b;
        if (k == 0 || alpha == 0) {
            /* C = beta*C, no panels */
            lst = local_gemm(g, ctx, es, mloc, nloc, 0, 0.0, s.abuf[0], mloc > 1 ? mloc : 1,
                             s.bbuf[0], 1, beta, c, lc);
        } else {
            int64_t k0 = 0, k1 = panel_end(0, k, s.da.nb, s.db.mb);
            double bt = beta;
            st = start_panel(g, fn, es, &s, 0, k0, k1, mloc, nloc);
            while (st == NLA_OK && k0 < k) {
                int64_t k2 = k1 < k ? panel_end(k1, k, s.da.nb, s.db.mb) : k1;
                int rc = MPI_Waitall(2, s.req[slot], MPI_STATUSES_IGNORE);
                if ((st = nla_mpi_check_rc(rc, fn, "MPI_Waitall")) != NLA_OK)
                    break;
                if (k1 < k)
                    st = start_panel(g, fn, es, &s, slot ^ 1, k1, k2, mloc, nloc);
                /* the multiply in NLA_MPI_PARTS column blocks, MPI's progress
                   on the next panels' broadcasts between them (Open MPI moves
                   a non-blocking collective only inside MPI calls) */
                int parts = mloc > 0 && nloc >= NLA_MPI_PARTS ? NLA_MPI_PARTS : 1;
                for (int part = 0; part < parts && lst == NLA_OK; part++) {
                    int64_t j0 = nloc * part / parts, j1 = nloc * (part + 1) / parts;
                    int done;
                    lst = local_gemm(g, ctx, es, mloc, j1 - j0, k1 - k0, alpha, s.abuf[slot],
                                     mloc > 1 ? mloc : 1,
                                     (const char *)s.bbuf[slot] + (size_t)(j0 * (k1 - k0)) * es,
                                     k1 - k0, bt, (char *)c + (size_t)(j0 * lc) * es, lc);
                    if (k1 < k && st == NLA_OK)
                        MPI_Testall(2, s.req[slot ^ 1], &done, MPI_STATUSES_IGNORE);
                }
                bt = 1.0;
                slot ^= 1;
                k0 = k1;
                k1 = k2;
            }
        }
    }
    /* every process past the first agreement agrees on the outcome: an MPI
       failure's, or a local multiply's */
    if (st == NLA_OK && lst != NLA_OK)
        st = nla_mpi_fail(lst, fn, "the local multiply failed: %.150s", nla_last_error());
    if (agreed)
        st = nla_mpi_agree(g, fn, st, NULL, NULL, 0);
    for (int i = 0; i < 2; i++) {
        free(s.abuf[i]);
        free(s.bbuf[i]);
    }
    free(am);
    free(bm);
    if (st == NLA_OK)
        nla_mpi_ok();
    return st;
}

NLA_API nla_status nla_mpi_dgemm(nla_context *ctx, const nla_mpi_grid *grid,
                                 nla_trans transa, nla_trans transb, int64_t m, int64_t n,
                                 int64_t k, double alpha, const double *a,
                                 const nla_mpi_desc *desca, const double *b,
                                 const nla_mpi_desc *descb, double beta, double *c,
                                 const nla_mpi_desc *descc)
{
    return summa_gemm("nla_mpi_dgemm", ctx, grid, sizeof(double), transa, transb, m, n, k,
                      alpha, a, desca, b, descb, beta, c, descc);
}

NLA_API nla_status nla_mpi_sgemm(nla_context *ctx, const nla_mpi_grid *grid,
                                 nla_trans transa, nla_trans transb, int64_t m, int64_t n,
                                 int64_t k, float alpha, const float *a,
                                 const nla_mpi_desc *desca, const float *b,
                                 const nla_mpi_desc *descb, float beta, float *c,
                                 const nla_mpi_desc *descc)
{
    return summa_gemm("nla_mpi_sgemm", ctx, grid, sizeof(float), transa, transb, m, n, k,
                      alpha, a, desca, b, descb, beta, c, descc);
}
