/*
 * test_mpi.c - libnla-mpi under mpirun (tests/check-mpi.sh runs it on 1-4
 * processes).  Every grid shape of the communicator's size:
 *   - scatter then gather gives back the same bits;
 *   - nla_mpi_[ds]gemm against ScaLAPACK's p[ds]gemm on the same
 *     descriptors (each process's local part), and against libnla's serial
 *     GEMM on the gathered matrices: transposes, block sizes that divide
 *     nothing, sources off (0, 0), a process holding no rows, k = 0;
 *   - nla_mpi_[ds]gbmv against the serial gbmv: NoTrans and Trans, even
 *     and uneven row splits, a rank with no rows, halos wider than a
 *     neighbour's rows;
 *   - nla_mpi_fft_* against FFTW-MPI (2-D, 3-D transposed out, 1-D
 *     ordered), gathered on rank 0, and the round trip;
 *   - nla_mpi_fw_solve_lsq against nla_fw_solve on the whole problem: the
 *     same steps, stop and iterations, and the same bits on every rank;
 *   - nla_mpi_[ds]spmv against the serial spmv, both triangles
 *     (test_mpi_spmv.c);
 *   - collective errors: a bad argument or a size that differs on one rank
 *     gives the same status on every rank, a message naming the argument
 *     and the rank, and C untouched.
 * Rank 0 prints "mpi np=P: N passed, N failed"; the exit status is 1 on a
 * failure anywhere.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fftw3-mpi.h>
#include "scalapack.h"   /* the reference */
#include "test_mpi.h"

int rank, size;
static int npass, nfail;

/* one check on this rank; the verdict is agreed (any rank failing fails) */
void expect(int ok, const char *what)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok)
        fprintf(stderr, "rank %d: FAIL: %s\n", rank, what);
    else if (rank == size - 1 && getenv("NLA_MPI_VERBOSE"))
        fprintf(stderr, "rank %d: ok: %s\n", rank, what);
    if (all)
        npass++;
    else
        nfail++;
}

static uint64_t rng = 88172645463325252ull;
double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* same global matrix on every rank (the generator runs identically) */
double *global(int64_t m, int64_t n)
{
    double *a = malloc((size_t)(m * n > 0 ? m * n : 1) * sizeof *a);
    for (int64_t i = 0; i < m * n; i++)
        a[i] = urand();
    return a;
}

typedef struct {
    const char *name;
    char ta, tb;
    int64_t m, n, k;
    int64_t mba, nba, mbb, nbb, mbc, nbc;
    int srca, srcc;     /* rsrc = csrc = src % grid dims */
    double alpha, beta;
} gcase;

static const gcase cases[] = {
    { "NN square, one block size", 'N', 'N', 64, 64, 64, 8, 8, 8, 8, 8, 8, 0, 0, 1.0, 0.0 },
    { "NN ragged blocks", 'N', 'N', 37, 29, 41, 5, 7, 7, 3, 5, 3, 0, 0, 1.5, -0.5 },
    { "NN layouts that differ from C's", 'N', 'N', 33, 31, 27, 4, 6, 9, 5, 7, 2, 1, 0, 0.7, 1.0 },
    { "TN", 'T', 'N', 30, 26, 35, 6, 4, 5, 4, 4, 4, 0, 1, -1.0, 0.25 },
    { "NT", 'N', 'T', 25, 40, 19, 3, 5, 6, 2, 5, 6, 1, 1, 2.0, 0.0 },
    { "TT", 'T', 'T', 21, 17, 33, 4, 4, 3, 5, 2, 3, 0, 0, 1.0, 1.0 },
    { "blocks larger than a process's share", 'N', 'N', 12, 10, 9, 16, 16, 16, 16, 16, 16, 0, 1,
      1.0, 0.5 },
    { "k = 0 (C = beta*C)", 'N', 'N', 13, 11, 0, 4, 4, 4, 4, 4, 4, 0, 0, 1.0, -2.0 },
    { "alpha = 0", 'T', 'N', 9, 14, 8, 2, 3, 3, 2, 3, 3, 0, 0, 0.0, 3.0 },
    { "one row: most processes hold none", 'N', 'T', 1, 23, 17, 1, 5, 4, 5, 1, 4, 1, 0, 1.0, 1.0 },
    { "both moved, three panels of k", 'T', 'T', 20, 18, 600, 7, 9, 11, 5, 4, 3, 1, 1, 1.0, 0.5 },
    { "neither moved, panels cut by two block sizes", 'N', 'N', 30, 20, 37, 4, 5, 3, 6, 4, 6, 0, 0,
      -1.0, 1.0 },
};

/* gather desc's local array to rank 0 */
static double *gathered(const nla_mpi_grid *g, const double *loc, const nla_mpi_desc *d)
{
    double *a = rank == 0 ? malloc((size_t)(d->m * d->n > 0 ? d->m * d->n : 1) * sizeof *a)
                          : NULL;
    nla_status st = nla_mpi_dgather(g, 0, loc, d, a, d->m > 1 ? d->m : 1);
    if (st != NLA_OK)
        fprintf(stderr, "rank %d: gather: %s\n", rank, nla_mpi_last_error());
    return a;
}

static double *distribute(const nla_mpi_grid *g, int ictxt, const double *a, int64_t m,
                          int64_t n, int64_t mb, int64_t nb, int src, nla_mpi_desc *d,
                          int sd[9])
{
    int pr, pc;
    int64_t ml, nl;
    double *loc;
    nla_mpi_grid_info(g, &pr, &pc, NULL, NULL);
    /* lld a little over the local rows: a gap the routines must skip */
    nla_mpi_desc_init(d, g, m, n, mb, nb, src % pr, src % pc, 0);
    nla_mpi_desc_local(d, g, &ml, &nl);
    d->lld = ml + 2;
    loc = malloc((size_t)(d->lld * (nl > 0 ? nl : 1)) * sizeof *loc);
    for (int64_t i = 0; i < d->lld * nl; i++)
        loc[i] = NAN; /* the gaps stay NaN; scatter fills the rest */
    expect(nla_mpi_dscatter(g, 0, a, m > 1 ? m : 1, loc, d) == NLA_OK, "scatter");
    nla_mpi_desc_to_scalapack(d, ictxt, sd);
    return loc;
}

static void test_gemm_case(nla_context *ctx, const nla_mpi_grid *g, int ictxt, const gcase *t)
{
    int64_t ar = t->ta == 'N' ? t->m : t->k, ac = t->ta == 'N' ? t->k : t->m;
    int64_t br = t->tb == 'N' ? t->k : t->n, bc = t->tb == 'N' ? t->n : t->k;
    double *A = global(ar, ac), *B = global(br, bc), *C = global(t->m, t->n);
    nla_mpi_desc da, db, dc;
    int sa[9], sb[9], sc[9];
    double *al, *bl, *cl, *cref, *Cg;
    int64_t ml, nl;
    char what[160];
    int one = 1, m = (int)t->m, n = (int)t->n, k = (int)t->k;
    nla_status st;

    if (t->alpha == 0) /* then A and B are not read: NaN would show */
        for (int64_t i = 0; i < ar * ac || i < br * bc; i++) {
            if (i < ar * ac)
                A[i] = NAN;
            if (i < br * bc)
                B[i] = NAN;
        }
    al = distribute(g, ictxt, A, ar, ac, t->mba, t->nba, t->srca, &da, sa);
    /* B's sources are A's: (0, 0) or off it */
    bl = distribute(g, ictxt, B, br, bc, t->mbb, t->nbb, t->srca, &db, sb);
    cl = distribute(g, ictxt, C, t->m, t->n, t->mbc, t->nbc, t->srcc, &dc, sc);
    nla_mpi_desc_local(&dc, g, &ml, &nl);
    cref = malloc((size_t)(dc.lld * (nl > 0 ? nl : 1)) * sizeof *cref);
    memcpy(cref, cl, (size_t)(dc.lld * nl) * sizeof *cref);
    pdgemm_(&t->ta, &t->tb, &m, &n, &k, &t->alpha, al, &one, &one, sa, bl, &one, &one, sb,
            &t->beta, cref, &one, &one, sc);
    st = nla_mpi_dgemm(ctx, g, (nla_trans)t->ta, (nla_trans)t->tb, t->m, t->n, t->k, t->alpha,
                       al, &da, bl, &db, t->beta, cl, &dc);
    snprintf(what, sizeof what, "dgemm %s: status (%s)", t->name, nla_mpi_last_error());
    expect(st == NLA_OK, what);
    {
        /* against pdgemm, local part by local part; elementwise bound
           2*k*eps*(|alpha|*k*max|a|*max|b| + |beta|*max|c|), |a|,|b|,|c| <= 1 */
        double tol = 2.0 * (t->k + 1) * DBL_EPSILON * (fabs(t->alpha) * (t->k + 1) + fabs(t->beta));
        double err = 0;
        int gaps = 1;
        for (int64_t j = 0; j < nl; j++)
            for (int64_t i = 0; i < dc.lld; i++) {
                double x = cl[i + j * dc.lld], y = cref[i + j * dc.lld];
                if (i >= ml)
                    gaps &= isnan(x);
                else
                    err = fmax(err, fabs(x - y));
            }
        snprintf(what, sizeof what, "dgemm %s: vs pdgemm, max err %.3g > %.3g", t->name, err, tol);
        expect(err <= tol, what);
        snprintf(what, sizeof what, "dgemm %s: the lld gap was written", t->name);
        expect(gaps, what);
        /* against libnla's serial GEMM on the gathered C */
        Cg = gathered(g, cl, &dc);
        err = 0;
        if (rank == 0) {
            nla_status s2 = nla_dgemm(ctx, NLA_COL_MAJOR, (nla_trans)t->ta, (nla_trans)t->tb,
                                      t->m, t->n, t->k, t->alpha, A, ar > 1 ? ar : 1, B,
                                      br > 1 ? br : 1, t->beta, C, t->m > 1 ? t->m : 1);
            if (s2 != NLA_OK)
                err = INFINITY;
            for (int64_t i = 0; i < t->m * t->n; i++)
                err = fmax(err, fabs(Cg[i] - C[i]));
        }
        snprintf(what, sizeof what, "dgemm %s: vs serial, max err %.3g > %.3g", t->name, err, tol);
        expect(err <= tol, what);
        free(Cg);
    }
    free(A);
    free(B);
    free(C);
    free(al);
    free(bl);
    free(cl);
    free(cref);
}

/* float: one ragged case against psgemm */
static void test_sgemm(nla_context *ctx, const nla_mpi_grid *g, int ictxt)
{
    const int64_t m = 23, n = 19, k = 31;
    float *A = malloc(m * k * sizeof *A), *B = malloc(n * k * sizeof *B);
    float *C = malloc(m * n * sizeof *C);
    nla_mpi_desc da, db, dc;
    int sa[9], sb[9], sc[9], one = 1, mi = (int)m, ni = (int)n, ki = (int)k;
    int64_t ml[3], nl[3];
    float *al, *bl, *cl, *cref, alpha = 1.25f, beta = -0.5f;
    double err = 0, tol = 2.0 * (k + 1) * FLT_EPSILON * (1.25 * (k + 1) + 0.5);
    char what[120];

    for (int64_t i = 0; i < m * k; i++)
        A[i] = (float)urand();
    for (int64_t i = 0; i < n * k; i++)
        B[i] = (float)urand();
    for (int64_t i = 0; i < m * n; i++)
        C[i] = (float)urand();
    nla_mpi_desc_init(&da, g, m, k, 4, 5, 0, 0, 0);
    nla_mpi_desc_init(&db, g, n, k, 3, 5, 0, 0, 0);   /* B is n x k: transb = T */
    nla_mpi_desc_init(&dc, g, m, n, 4, 3, 0, 0, 0);
    nla_mpi_desc_local(&da, g, &ml[0], &nl[0]);
    nla_mpi_desc_local(&db, g, &ml[1], &nl[1]);
    nla_mpi_desc_local(&dc, g, &ml[2], &nl[2]);
    al = malloc((size_t)(da.lld * (nl[0] + 1)) * sizeof *al);
    bl = malloc((size_t)(db.lld * (nl[1] + 1)) * sizeof *bl);
    cl = malloc((size_t)(dc.lld * (nl[2] + 1)) * sizeof *cl);
    cref = malloc((size_t)(dc.lld * (nl[2] + 1)) * sizeof *cref);
    nla_mpi_sscatter(g, 0, A, m, al, &da);
    nla_mpi_sscatter(g, 0, B, n, bl, &db);
    nla_mpi_sscatter(g, 0, C, m, cl, &dc);
    memcpy(cref, cl, (size_t)(dc.lld * nl[2]) * sizeof *cl);
    nla_mpi_desc_to_scalapack(&da, ictxt, sa);
    nla_mpi_desc_to_scalapack(&db, ictxt, sb);
    nla_mpi_desc_to_scalapack(&dc, ictxt, sc);
    psgemm_("N", "T", &mi, &ni, &ki, &alpha, al, &one, &one, sa, bl, &one, &one, sb, &beta,
            cref, &one, &one, sc);
    expect(nla_mpi_sgemm(ctx, g, NLA_NO_TRANS, NLA_TRANS, m, n, k, alpha, al, &da, bl, &db,
                         beta, cl, &dc) == NLA_OK, "sgemm NT: status");
    for (int64_t i = 0; i < dc.lld * nl[2]; i++)
        err = fmax(err, fabs((double)cl[i] - cref[i]));
    snprintf(what, sizeof what, "sgemm NT vs psgemm: max err %.3g > %.3g", err, tol);
    expect(err <= tol, what);
    free(A);
    free(B);
    free(C);
    free(al);
    free(bl);
    free(cl);
    free(cref);
}

static void test_scatter_gather(const nla_mpi_grid *g)
{
    const int64_t m = 19, n = 13;
    double *A = global(m, n), *back = rank == 0 ? calloc(m * n, sizeof *back) : NULL;
    nla_mpi_desc d;
    int64_t ml, nl;
    double *loc;
    int same = 1;

    int pr;
    char what[300];
    nla_status st;
    nla_mpi_grid_info(g, &pr, NULL, NULL, NULL);
    /* the first block on process row 1 where there is one */
    expect(nla_mpi_desc_init(&d, g, m, n, 3, 2, pr > 1 ? 1 : 0, 0, 0) == NLA_OK, "desc_init");
    nla_mpi_desc_local(&d, g, &ml, &nl);
    loc = malloc((size_t)(d.lld * (nl + 1)) * sizeof *loc);
    /* every rank passes A: only the root's is read */
    st = nla_mpi_dscatter(g, size - 1, A, m, loc, &d);
    snprintf(what, sizeof what, "scatter from the last rank (%s)", nla_mpi_last_error());
    expect(st == NLA_OK, what);
    st = nla_mpi_dgather(g, 0, loc, &d, back, m);
    snprintf(what, sizeof what, "gather to rank 0 (%s)", nla_mpi_last_error());
    expect(st == NLA_OK, what);
    if (rank == 0)
        same = memcmp(A, back, (size_t)(m * n) * sizeof *A) == 0;
    expect(same, "scatter then gather gives the same bits");
    free(A);
    free(back);
    free(loc);
}

/* A call made bad on rank `bad` only: every rank gets `want`, a message
   with `arg` and "rank <bad>", and C untouched. */
static void test_errors(nla_context *ctx, const nla_mpi_grid *g)
{
    const int64_t m = 10, n = 9, k = 8;
    nla_mpi_desc da, db, dc;
    int64_t ml, nl;
    double *a, *b, *c;
    char what[200], tag[32];
    int bad = size - 1;

    nla_mpi_desc_init(&da, g, m, k, 3, 3, 0, 0, 0);
    nla_mpi_desc_init(&db, g, k, n, 3, 3, 0, 0, 0);
    nla_mpi_desc_init(&dc, g, m, n, 3, 3, 0, 0, 0);
    nla_mpi_desc_local(&da, g, &ml, &nl);
    a = calloc((size_t)(da.lld * (nl + 1)), sizeof *a);
    nla_mpi_desc_local(&db, g, &ml, &nl);
    b = calloc((size_t)(db.lld * (nl + 1)), sizeof *b);
    nla_mpi_desc_local(&dc, g, &ml, &nl);
    c = malloc((size_t)(dc.lld * (nl + 1)) * sizeof *c);
    for (int64_t i = 0; i < dc.lld * (nl + 1); i++)
        c[i] = 7.0;
    snprintf(tag, sizeof tag, "(rank %d)", bad);
    for (int kase = 0; kase < 6; kase++) {
        static const char *const args[6] = { "lld", "m (11) differs from rank 0's (10)",
                                             "transa", "rsrc", "a is NULL", "desca->nb" };
        nla_mpi_desc xa = da, xc = dc;
        int64_t xm = m, aml, anl;
        nla_trans ta = NLA_NO_TRANS;
        const double *pa = a;
        const char *arg = args[kase];
        nla_status st;
        int untouched = 1, holds;
        /* a NULL a is an error only where the bad rank holds part of A */
        nla_mpi_desc_local(&da, g, &aml, &anl);
        holds = aml > 0 && anl > 0;
        MPI_Bcast(&holds, 1, MPI_INT, bad, MPI_COMM_WORLD);
        if ((kase == 4 && !holds) || ((kase == 1 || kase == 5) && bad == 0))
            continue; /* (one rank: nothing to differ from) */
        if (rank == bad) {
            switch (kase) {
            case 0: xc.lld = 0; break;
            case 1: /* consistent on this rank, but m differs from rank 0's */
                xm = m + 1;
                xa.m = xc.m = m + 1;
                xa.lld += 1;
                xc.lld += 1;
                break;
            case 2: ta = (nla_trans)'X'; break;
            case 3: xa.rsrc = 99; break;
            case 4: pa = NULL; break;
            case 5: xa.nb = 4; break; /* differs from rank 0's */
            }
        }
        st = nla_mpi_dgemm(ctx, g, ta, NLA_NO_TRANS, xm, n, k, 1.0, pa, &xa, b, &db, 0.0, c,
                           &xc);
        for (int64_t i = 0; i < dc.lld * (nl + 1); i++)
            untouched &= c[i] == 7.0;
        if (kase == 1 && bad == 0)
            continue; /* one rank: nothing to differ from */
        snprintf(what, sizeof what, "error case %d: status %d, message \"%s\" (want \"%s\", \"%s\")",
                 kase, (int)st, nla_mpi_last_error(), arg, tag);
        expect(st == NLA_EINVAL && strstr(nla_mpi_last_error(), "nla_mpi_dgemm") &&
                   strstr(nla_mpi_last_error(), tag) && strstr(nla_mpi_last_error(), arg),
               what);
        snprintf(what, sizeof what, "error case %d: C untouched", kase);
        expect(untouched, what);
    }
    /* a grid whose shape does not match the communicator, on every rank */
    {
        nla_mpi_grid *bg = (nla_mpi_grid *)&bad; /* must be set to NULL */
        nla_status st = nla_mpi_grid_create(MPI_COMM_WORLD, size + 1, 1, &bg);
        expect(st == NLA_EINVAL && bg == NULL && strstr(nla_mpi_last_error(), "nprow*npcol"),
               "grid_create with nprow*npcol != size");
    }
    /* NULL outputs on the last rank only: agreed, no hang */
    {
        nla_mpi_grid *gg = NULL, **pg = rank == bad ? NULL : &gg;
        nla_mpi_fft_plan *fp = NULL, **pfp = rank == bad ? NULL : &fp;
        int64_t nn[2] = { 8, 8 };
        int pr, pc;
        nla_status st = nla_mpi_grid_create(MPI_COMM_WORLD, 0, 0, pg);
        snprintf(what, sizeof what, "grid_create, grid NULL on one rank: %d \"%s\"", (int)st,
                 nla_mpi_last_error());
        expect(st == NLA_EINVAL && gg == NULL && strstr(nla_mpi_last_error(), tag), what);
        st = nla_mpi_fft_plan_create(ctx, g, 2, nn, NLA_FFT_FORWARD, NLA_DOUBLE, pfp);
        snprintf(what, sizeof what, "fft_plan_create, plan NULL on one rank: %d \"%s\"",
                 (int)st, nla_mpi_last_error());
        expect(st == NLA_EINVAL && fp == NULL && strstr(nla_mpi_last_error(), tag), what);
        /* shapes that differ: each a valid product of the size */
        nla_mpi_grid_info(g, &pr, &pc, NULL, NULL);
        if (size > 1) {
            st = nla_mpi_grid_create(MPI_COMM_WORLD, rank == bad ? pc : pr,
                                     rank == bad ? pr : pc, &gg);
            snprintf(what, sizeof what, "grid_create, shapes differ: %d \"%s\"", (int)st,
                     nla_mpi_last_error());
            if (pr != pc)
                expect(st == NLA_EINVAL && gg == NULL && strstr(nla_mpi_last_error(), "differs") &&
                           strstr(nla_mpi_last_error(), tag), what);
            else
                nla_mpi_grid_destroy(gg);
        }
    }
    /* fuzz: one field of one descriptor made bad on one rank (both drawn
       from the shared generator, so every rank agrees which), 40 times:
       NLA_EINVAL on every rank, that rank named, C untouched */
    for (int it = 0; it < 40; it++) {
        nla_mpi_desc x[3] = { da, db, dc };
        int who = (int)((urand() + 1) * 0.5 * size) % size;
        int which = (int)((urand() + 1) * 1.5) % 3, field = (int)((urand() + 1) * 3.5) % 7;
        int untouched = 1;
        nla_status st;
        char tg[32];
        if (rank == who) {
            nla_mpi_desc *d = &x[which];
            switch (field) {
            case 0: d->m = -1; break;
            case 1: d->nb = 0; break;
            case 2: d->mb = -5; break;
            case 3: d->rsrc = -1; break;
            case 4: d->csrc = 1 << 20; break;
            case 5: d->lld = 0; break;
            default: d->n += 3; break;
            }
        }
        st = nla_mpi_dgemm(ctx, g, NLA_NO_TRANS, NLA_NO_TRANS, m, n, k, 1.0, a, &x[0], b, &x[1],
                           0.0, c, &x[2]);
        for (int64_t i = 0; i < dc.lld * (nl + 1); i++)
            untouched &= c[i] == 7.0;
        snprintf(tg, sizeof tg, "(rank %d)", who);
        snprintf(what, sizeof what, "fuzz %d (desc %d field %d on rank %d): %d \"%s\"", it,
                 which, field, who, (int)st, nla_mpi_last_error());
        expect(st == NLA_EINVAL && strstr(nla_mpi_last_error(), tg) && untouched, what);
    }
    /* scatter: root outside the grid on the last rank; lda < m on root */
    {
        nla_status st;
        double buf[200];
        st = nla_mpi_dscatter(g, rank == bad ? size : 0, buf, 10, a, &da);
        snprintf(what, sizeof what, "scatter, root out of range: %d \"%s\"", (int)st,
                 nla_mpi_last_error());
        expect(st == NLA_EINVAL && strstr(nla_mpi_last_error(), "root") &&
                   strstr(nla_mpi_last_error(), tag), what);
        st = nla_mpi_dgather(g, 0, a, &da, buf, 3);
        snprintf(what, sizeof what, "gather, lda < m on root: %d \"%s\"", (int)st,
                 nla_mpi_last_error());
        expect(st == NLA_EINVAL && strstr(nla_mpi_last_error(), "lda (3)") &&
                   strstr(nla_mpi_last_error(), "(rank 0)"), what);
    }
    /* the ScaLAPACK descriptor both ways, and a DTYPE that is not 1 */
    {
        int sd[9];
        nla_mpi_desc back;
        expect(nla_mpi_desc_to_scalapack(&dc, 7, sd) == NLA_OK &&
                   nla_mpi_desc_from_scalapack(sd, &back) == NLA_OK &&
                   memcmp(&back, &dc, sizeof back) == 0 && sd[0] == 1 && sd[1] == 7,
               "desc to ScaLAPACK and back");
        sd[0] = 501;
        expect(nla_mpi_desc_from_scalapack(sd, &back) == NLA_EINVAL &&
                   strstr(nla_mpi_last_error(), "DTYPE (501)"), "desc from ScaLAPACK: DTYPE 501");
    }
    free(a);
    free(b);
    free(c);
}

/* nla_mpi_[ds]gbmv against nla_[ds]gbmv on the whole matrix, which every
   rank builds alike.  Each rank's band storage is its own copy of the
   columns crossing its rows, NaN outside its rows (never read). */
typedef struct {
    int64_t n, kl, ku;
    char trans;
    double alpha, beta;
    int split;  /* split_rows' kind */
} bcase;

static const bcase bcases[] = {
    { 40, 2, 3, 'N', 1.0, 0.0, 0 },    { 40, 2, 3, 'T', 1.0, 0.0, 0 },
    { 57, 5, 1, 'N', -0.5, 2.0, 1 },   { 57, 5, 1, 'T', 1.5, -1.0, 1 },
    { 30, 4, 6, 'N', 1.0, 1.0, 2 },    { 30, 4, 6, 'T', 0.75, 0.5, 2 },
    { 25, 0, 0, 'N', 2.0, 0.0, 0 },    { 25, 0, 0, 'T', 2.0, 1.0, 2 },
    { 33, 40, 2, 'N', 1.0, 0.0, 2 },   { 33, 1, 40, 'T', 1.0, 0.25, 1 },
    { 20, 3, 3, 'N', 0.0, 3.0, 0 },    { 0, 1, 1, 'N', 1.0, 1.0, 0 },
    { 41, 3, 2, 'N', 1.0, 0.5, 3 },    { 41, 2, 3, 'T', -1.0, 0.0, 3 },
};

int64_t split_rows(int64_t n, int kind, int q, int P)
{
    if (kind == 3 && P > 1) { /* the odd ranks none, the even ones even */
        int ne = (P + 1) / 2;
        return q % 2 ? 0 : n / ne + (q / 2 < n % ne);
    }
    if (kind == 1 && P > 1) /* rank 0 none, the rest even */
        return q == 0 ? 0 : n / (P - 1) + (q - 1 < n % (P - 1));
    if (kind == 2) /* one row each, the last the rest */
        return q < P - 1 ? (n > q ? 1 : 0) : (n > P - 1 ? n - (P - 1) : 0);
    return n / P + (q < n % P);
}

static void test_gbmv_case(nla_context *ctx, const nla_mpi_grid *g, const bcase *t, int sp)
{
    const int64_t n = t->n, kl = t->kl, ku = t->ku, ldab = kl + ku + 2;
    double *AB = global(ldab, n), *X = global(n, 1), *Y = global(n, 1), *Yref;
    int64_t r0 = 0, nloc, c0, c1;
    double *ab, *y, err = 0, tol;
    float *abf, *xf, *yf, *Yf;
    char what[200];
    nla_status st;

    for (int q = 0; q < rank; q++)
        r0 += split_rows(n, t->split, q, size);
    nloc = split_rows(n, t->split, rank, size);
    c0 = r0 - kl > 0 ? r0 - kl : 0;
    c1 = r0 + nloc + ku < n ? r0 + nloc + ku : n;
    if (c1 < c0)
        c1 = c0;
    if (t->beta == 0)
        for (int64_t i = 0; i < n; i++)
            Y[i] = NAN; /* beta = 0: y is not read */
    Yref = malloc((size_t)(n + 1) * sizeof *Yref);
    memcpy(Yref, Y, (size_t)n * sizeof *Y);
    nla_dgbmv(ctx, (nla_trans)t->trans, n, n, kl, ku, t->alpha, AB, ldab, X, 1, t->beta, Yref,
              1);
    ab = malloc((size_t)(ldab * (c1 - c0 + 1)) * sizeof *ab);
    abf = malloc((size_t)(ldab * (c1 - c0 + 1)) * sizeof *abf);
    for (int64_t j = c0; j < c1; j++)
        for (int64_t r = 0; r < ldab; r++) {
            int64_t i = r - ku + j; /* A(i, j) = ab[ku + i - j + j*ldab] */
            double v = i >= r0 && i < r0 + nloc ? AB[r + j * ldab] : NAN;
            ab[r + (j - c0) * ldab] = v;
            abf[r + (j - c0) * ldab] = (float)v;
        }
    y = malloc((size_t)(nloc + 1) * sizeof *y);
    memcpy(y, Y + r0, (size_t)nloc * sizeof *y);
    st = nla_mpi_dgbmv(ctx, g, (nla_trans)t->trans, n, kl, ku, t->alpha, ab, ldab, nloc,
                       X + r0, t->beta, y);
    tol = 4.0 * (kl + ku + 2) * DBL_EPSILON * (fabs(t->alpha) * (kl + ku + 1) + fabs(t->beta));
    for (int64_t i = 0; i < nloc; i++)
        err = isnan(y[i]) ? INFINITY : fmax(err, fabs(y[i] - Yref[r0 + i]));
    snprintf(what, sizeof what, "dgbmv %c n=%lld kl=%lld ku=%lld split %d grid %d: %s, max err %.3g > %.3g",
             t->trans, (long long)n, (long long)kl, (long long)ku, t->split, sp,
             st == NLA_OK ? "ok" : nla_mpi_last_error(), err, tol);
    expect(st == NLA_OK && err <= tol, what);

    /* float, against nla_sgbmv on the same values rounded */
    xf = malloc((size_t)(n + 1) * sizeof *xf);
    yf = malloc((size_t)(n + 1) * sizeof *yf);
    Yf = malloc((size_t)(n + 1) * sizeof *Yf);
    {
        float *ABf = malloc((size_t)(ldab * n + 1) * sizeof *ABf);
        for (int64_t i = 0; i < ldab * n; i++)
            ABf[i] = (float)AB[i];
        for (int64_t i = 0; i < n; i++) {
            xf[i] = (float)X[i];
            Yf[i] = (float)Y[i];
        }
        memcpy(yf, Yf + r0, (size_t)nloc * sizeof *yf);
        nla_sgbmv(ctx, (nla_trans)t->trans, n, n, kl, ku, (float)t->alpha, ABf, ldab, xf, 1,
                  (float)t->beta, Yf, 1);
        free(ABf);
    }
    st = nla_mpi_sgbmv(ctx, g, (nla_trans)t->trans, n, kl, ku, (float)t->alpha, abf, ldab,
                       nloc, xf + r0, (float)t->beta, yf);
    err = 0;
    tol *= (double)FLT_EPSILON / DBL_EPSILON;
    for (int64_t i = 0; i < nloc; i++)
        err = isnan(yf[i]) ? INFINITY : fmax(err, fabs((double)yf[i] - Yf[r0 + i]));
    snprintf(what, sizeof what, "sgbmv %c n=%lld kl=%lld ku=%lld split %d: %s, max err %.3g > %.3g",
             t->trans, (long long)n, (long long)kl, (long long)ku, t->split,
             st == NLA_OK ? "ok" : nla_mpi_last_error(), err, tol);
    expect(st == NLA_OK && err <= tol, what);
    free(AB);
    free(X);
    free(Y);
    free(Yref);
    free(ab);
    free(abf);
    free(y);
    free(xf);
    free(yf);
    free(Yf);
}

/* gbmv's collective errors: nloc that do not add up to n, a bad ldab on
   the last rank, kl differing from rank 0's; y untouched on every rank */
static void test_gbmv_errors(nla_context *ctx, const nla_mpi_grid *g)
{
    const int64_t n = 12, kl = 1, ku = 1, ldab = 3;
    double ab[3 * 12], x[12], y[12];
    int bad = size - 1;
    char tag[32], what[300];
    snprintf(tag, sizeof tag, "(rank %d)", bad);
    for (int i = 0; i < 36; i++)
        ab[i] = 1.0;
    for (int kase = 0; kase < 3; kase++) {
        static const char *const want[3] = { "add up to", "ldab (2) < kl+ku+1 (3)",
                                             "kl (2) differs from rank 0's (1)" };
        int64_t nloc = split_rows(n, 0, rank, size), xkl = kl, xld = ldab;
        nla_status st;
        int untouched = 1;
        if (kase == 2 && bad == 0)
            continue;
        for (int i = 0; i < 12; i++)
            x[i] = 1.0, y[i] = 5.0;
        if (rank == bad) {
            if (kase == 0)
                nloc -= 1;
            if (kase == 1)
                xld = 2;
            if (kase == 2)
                xkl = 2, xld = 4;
        }
        st = nla_mpi_dgbmv(ctx, g, NLA_NO_TRANS, n, xkl, ku, 1.0, ab, xld, nloc, x, 0.0, y);
        for (int i = 0; i < 12; i++)
            untouched &= y[i] == 5.0;
        snprintf(what, sizeof what, "gbmv error case %d: status %d, \"%s\" (want \"%s\")", kase,
                 (int)st, nla_mpi_last_error(), want[kase]);
        expect(st == NLA_EINVAL && strstr(nla_mpi_last_error(), want[kase]) &&
                   (kase == 0 || strstr(nla_mpi_last_error(), tag)),
               what);
        snprintf(what, sizeof what, "gbmv error case %d: y untouched", kase);
        expect(untouched, what);
    }
}

int main(int argc, char **argv)
{
    nla_context *ctx;
    int shapes[8][2], nshapes = 0, cuda;

    MPI_Init(&argc, &argv);
    fftw_mpi_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* NLA_TEST_MPI_BACKEND=cuda: the local products on a CUDA context
       (tests/check-mpi.sh runs it on the emulated plugin) */
    cuda = getenv("NLA_TEST_MPI_BACKEND") && !strcmp(getenv("NLA_TEST_MPI_BACKEND"), "cuda");
    if (nla_context_create(&ctx, cuda ? NLA_BACKEND_CUDA : NLA_BACKEND_CPU) != NLA_OK) {
        fprintf(stderr, "no %s context: %s\n", cuda ? "CUDA" : "CPU", nla_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    nla_context_set_threads(ctx, 1);
    for (int p = 1; p <= size; p++)
        if (size % p == 0) {
            shapes[nshapes][0] = p;
            shapes[nshapes++][1] = size / p;
        }
    /* on CUDA the first shape only: the emulated device is slow, and the
       shapes test libnla-mpi's logic, which the CPU runs cover */
    if (cuda)
        nshapes = 1;
    for (int s = 0; s < nshapes; s++) {
        nla_mpi_grid *g;
        int ictxt;
        expect(nla_mpi_grid_create(MPI_COMM_WORLD, shapes[s][0], shapes[s][1], &g) == NLA_OK,
               "grid_create");
        Cblacs_get(-1, 0, &ictxt);
        Cblacs_gridinit(&ictxt, "Row", shapes[s][0], shapes[s][1]);
        test_scatter_gather(g);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
            test_gemm_case(ctx, g, ictxt, &cases[c]);
        test_sgemm(ctx, g, ictxt);
        test_errors(ctx, g);
        if (s == 0) /* gbmv uses the processes in rank order, whatever the grid */
            for (size_t c = 0; c < sizeof bcases / sizeof bcases[0]; c++)
                test_gbmv_case(ctx, g, &bcases[c], s);
        if (s == 0)
            test_gbmv_errors(ctx, g);
        if (s == 0)
            test_spmv(ctx, g);
        if (s == 0)
            test_fw(ctx, g);
        if (s == 0)
            test_fft(ctx, g);
        Cblacs_gridexit(ictxt);
        nla_mpi_grid_destroy(g);
    }
    {
        /* the squarest grid */
        nla_mpi_grid *g;
        int pr, pc;
        expect(nla_mpi_grid_create(MPI_COMM_WORLD, 0, 0, &g) == NLA_OK, "grid_create(0, 0)");
        nla_mpi_grid_info(g, &pr, &pc, NULL, NULL);
        expect(pr * pc == size && pr <= pc && (size != 4 || pr == 2), "the squarest grid");
        nla_mpi_grid_destroy(g);
    }
    nla_context_destroy(ctx);
    fftw_mpi_cleanup();
    if (rank == 0)
        printf("mpi np=%d: %d passed, %d failed\n", size, npass, nfail);
    MPI_Finalize();
    return nfail ? 1 : 0;
}
