/*
 * fw.c - distributed Frank-Wolfe for least squares, f = 1/2 |A x - b|^2,
 * the rows of A and b spread over the grid's processes and x replicated.
 *
 * Every process runs libnla's own solver (nla_fw_solve) on the same x with
 * the same options and set, so the LMO and the steps are replicated.  The
 * objective is a user quadratic (H = A'A):
 *   - hv, once an iteration: each process forms A_loc'(A_loc d) for the
 *     step's direction d, and one sum gives H d.  The solver takes <d, H d>
 *     for the line search and g + gamma H d for the next gradient, so that
 *     is the iteration's only sum;
 *   - f, at the start and every 100th iterate: the residual r = A_loc x -
 *     b_loc, and one sum gives A'r and r'r/2.
 * Every sum is a round: one MPI_Allreduce of n + 2 doubles, the vector, f
 * and a count of the processes whose solver has returned.  A process whose
 * solver returns goes on taking part in rounds, with NaN and a count of
 * one, until the count is every process: a solver still running then sees
 * NaN and stops (NLA_ENUMERIC), so processes that part (a local failure, a
 * callback that stops one of them) still meet in the same collectives, and
 * the agreement after the rounds reports it.  MPI gives every process the
 * same sum (its rule for Allreduce), so the replicated solvers take the
 * same steps and stop together.  The products run on the caller's context;
 * the solver's loop, a host callback's, runs on a CPU context (one of its
 * own when the caller's is not CPU-only).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

typedef struct {
    nla_context *ctx;
    const nla_mpi_grid *g;
    int64_t n, mloc, lda;
    const double *a, *b;
    double *r, *buf;       /* mloc, and n + 2 (a round) */
    nla_status st;         /* the first local failure */
    char why[160];         /* its message */
    int rc;                /* the first MPI failure */
} lsq_part;

static void local_fail(lsq_part *u, nla_status st)
{
    if (st != NLA_OK && u->st == NLA_OK) {
        u->st = st;
        snprintf(u->why, sizeof u->why, "%s", nla_last_error());
    }
}

/* One round: buf[0..n+2) summed over the processes, in place (buf[n+1] is
   the count of those done).  Returns 0 when the sum is usable: MPI
   succeeded and no process is done. */
static int lsq_round(lsq_part *u)
{
    int64_t len = u->n + 2;
    int rc = MPI_Allreduce(MPI_IN_PLACE, u->buf, (int)len, MPI_DOUBLE, MPI_SUM, u->g->comm);
    if (rc != MPI_SUCCESS) {
        if (u->rc == MPI_SUCCESS)
            u->rc = rc;
        return -1;
    }
    u->g->cnt->bytes += len * (int64_t)sizeof(double) * (u->g->size > 1);
    return u->buf[u->n + 1] != 0 ? -1 : 0;
}

/* This process's share of a sum: r = A_loc v (minus b_loc where resid),
   buf[0..n) = A_loc' r and buf[n] = r'r/2 (NaN after a local failure:
   every process's solver then stops with NLA_ENUMERIC at the same
   iteration); the count buf[n+1] is 0. */
static void lsq_share(lsq_part *u, const double *v, int resid)
{
    int64_t n = u->n;
    double f = 0;

    double t0 = MPI_Wtime();
    memset(u->buf, 0, (size_t)(n + 2) * sizeof *u->buf);
    if (u->mloc > 0 && u->st == NLA_OK) {
        if (resid)
            memcpy(u->r, u->b, (size_t)u->mloc * sizeof *u->r);
        local_fail(u, nla_dgemv(u->ctx, NLA_NO_TRANS, u->mloc, n, 1.0, u->a, u->lda, v, 1,
                                resid ? -1.0 : 0.0, u->r, 1));
        for (int64_t i = 0; i < u->mloc; i++)
            f += u->r[i] * u->r[i];
        if (u->st == NLA_OK)
            local_fail(u, nla_dgemv(u->ctx, NLA_TRANS, u->mloc, n, 1.0, u->a, u->lda, u->r,
                                    1, 0.0, u->buf, 1));
    }
    nla_mpi_local_done(u->g, t0);
    u->buf[n] = u->st == NLA_OK ? 0.5 * f : NAN;
}

/* f and the gradient (the solver asks for both) */
static double lsq_fn(int64_t n, const double *x, double *grad, void *user)
{
    lsq_part *u = user;

    lsq_share(u, x, 1);
    if (lsq_round(u) != 0)
        u->buf[n] = u->buf[0] = NAN;
    if (grad)
        memcpy(grad, u->buf, (size_t)n * sizeof *grad);
    return u->buf[n];
}

/* H d = A'(A d); buf[n] only carries a local failure's NaN */
static void lsq_hv(int64_t n, const double *d, double *hd, void *user)
{
    lsq_part *u = user;

    lsq_share(u, d, 0);
    if (lsq_round(u) != 0 || isnan(u->buf[n]))
        u->buf[0] = NAN;
    memcpy(hd, u->buf, (size_t)n * sizeof *hd);
}

/* After this process's solver returned: rounds with NaN and a count of one
   until every process is done (one round when all stopped together). */
static void lsq_rounds_until_all_done(lsq_part *u)
{
    for (;;) {
        for (int64_t i = 0; i <= u->n; i++)
            u->buf[i] = NAN;
        u->buf[u->n + 1] = 1.0;
        (void)lsq_round(u);
        if (u->rc != MPI_SUCCESS || u->buf[u->n + 1] >= (double)u->g->size)
            return;
    }
}

NLA_API nla_status nla_mpi_fw_solve_lsq(nla_context *ctx, const nla_mpi_grid *grid,
                                        int64_t mloc, int64_t n, const double *a, int64_t lda,
                                        const double *b, const nla_fw_set *set,
                                        const nla_fw_options *opt, double *x,
                                        nla_fw_result *res)
{
    static const char fn[] = "nla_mpi_fw_solve_lsq";
    const nla_mpi_grid *g = grid;
    nla_status st = NLA_OK, sst = NLA_OK;
    lsq_part u;
    nla_fw_objective *obj = NULL;
    nla_context *loop = NULL;
    nla_fw_result r;
    double *x0 = NULL, *xw = NULL;

    memset(&u, 0, sizeof u);
    if (!g)
        return nla_mpi_fail(NLA_EINVAL, fn, "grid is NULL");
    if (!ctx)
        st = nla_mpi_fail(NLA_EINVAL, fn, "ctx is NULL");
    else if (mloc < 0 || n < 1)
        st = nla_mpi_fail(NLA_EINVAL, fn, "mloc (%lld) < 0 or n (%lld) < 1", (long long)mloc,
                          (long long)n);
    else if (n >= INT_MAX)
        st = nla_mpi_fail(NLA_ENOTSUP, fn, "n (%lld) over INT_MAX - 1 (MPI's counts are int)",
                          (long long)n);
    else if (lda < (mloc > 1 ? mloc : 1))
        st = nla_mpi_fail(NLA_EINVAL, fn, "lda (%lld) < max(1, mloc (%lld))", (long long)lda,
                          (long long)mloc);
    else if (mloc > 0 && (!a || !b))
        st = nla_mpi_fail(NLA_EINVAL, fn, "%s is NULL", !a ? "a" : "b");
    else if (!set || !x)
        st = nla_mpi_fail(NLA_EINVAL, fn, "%s is NULL", !set ? "set" : "x");
    else if (nla_fw_options_time_limit(opt) > 0)
        st = nla_mpi_fail(NLA_ENOTSUP, fn, "opt has a time limit: each process's clock "
                          "would stop its solver at its own iteration");
    else if (nla_fw_set_dim(set) != n)
        st = nla_mpi_fail(NLA_EINVAL, fn, "the set's dimension (%lld) is not n (%lld)",
                          (long long)nla_fw_set_dim(set), (long long)n);
    if (st == NLA_OK) {
        u.r = malloc((size_t)(mloc > 0 ? mloc : 1) * sizeof *u.r);
        u.buf = malloc((size_t)(n + 2) * sizeof *u.buf);
        x0 = malloc((size_t)n * sizeof *x0);
        xw = malloc((size_t)n * sizeof *xw);
        if (!u.r || !u.buf || !x0 || !xw)
            st = nla_mpi_fail(NLA_ENOMEM, fn, "out of memory for the residual");
        else if ((sst = nla_fw_objective_create_user_quad(&obj, n, lsq_fn, lsq_hv, &u)) !=
                 NLA_OK)
            st = nla_mpi_fail(sst, fn, "the objective: %.180s", nla_last_error());
        else if (nla_context_backend(ctx) != NLA_BACKEND_CPU &&
                 (sst = nla_context_create(&loop, NLA_BACKEND_CPU)) != NLA_OK)
            st = nla_mpi_fail(sst, fn, "a CPU context for the solver's loop: %.150s",
                              nla_last_error());
        else if (loop)
            nla_context_set_threads(loop, nla_context_threads(ctx));
    }
    {
        int64_t args[1] = { st == NLA_OK ? n : 0 };
        static const char *const names[1] = { "n" };
        st = nla_mpi_agree(g, fn, st, args, names, 1);
    }
    if (st == NLA_OK) {
        /* the start must be the same everywhere: rank 0's, compared */
        int rc;
        memcpy(x0, x, (size_t)n * sizeof *x0);
        rc = MPI_Bcast(x0, (int)n, MPI_DOUBLE, 0, g->comm);
        st = nla_mpi_check_rc(rc, fn, "MPI_Bcast");
        if (st == NLA_OK && memcmp(x0, x, (size_t)n * sizeof *x0) != 0)
            st = nla_mpi_fail(NLA_EINVAL, fn, "x differs from rank 0's start");
        st = nla_mpi_agree(g, fn, st, NULL, NULL, 0);
    }
    if (st != NLA_OK) {
        nla_fw_objective_destroy(obj);
        nla_context_destroy(loop);
        free(u.r);
        free(u.buf);
        free(x0);
        free(xw);
        return st;
    }
    u.ctx = ctx;
    u.g = g;
    u.n = n;
    u.mloc = mloc;
    u.lda = lda;
    u.a = a;
    u.b = b;
    u.st = NLA_OK;
    u.rc = MPI_SUCCESS;
    memcpy(xw, x, (size_t)n * sizeof *xw);
    sst = nla_fw_solve(loop ? loop : ctx, obj, set, opt, xw, &r);
    if (sst != NLA_OK && sst != NLA_EMAXITER && sst != NLA_ENUMERIC)
        local_fail(&u, sst); /* this process alone (ENOMEM): nothing to keep */
    lsq_rounds_until_all_done(&u);
    nla_fw_objective_destroy(obj);
    nla_context_destroy(loop);
    /* a local failure or MPI's is agreed on; then the solvers' verdicts,
       which differ only where processes parted */
    if (u.rc != MPI_SUCCESS)
        st = nla_mpi_check_rc(u.rc, fn, "MPI_Allreduce");
    else if (u.st != NLA_OK)
        st = nla_mpi_fail(u.st, fn, "%s", u.why);
    {
        int64_t args[3] = { st == NLA_OK ? sst : 0, st == NLA_OK ? r.stop : 0,
                            st == NLA_OK ? r.iterations : 0 };
        static const char *const names[3] = {
            "the solver's status", "its stop (a callback that stops this process only?)",
            "its iteration count" };
        st = nla_mpi_agree(g, fn, st, args, names, 3);
    }
    if (st == NLA_OK) {
        st = sst;
        memcpy(x, xw, (size_t)n * sizeof *x);
        if (res)
            *res = r;
        if (sst != NLA_OK)
            nla_mpi_fail(sst, fn, "%.200s", nla_last_error());
        else
            nla_mpi_ok();
    }
    free(u.r);
    free(u.buf);
    free(x0);
    free(xw);
    return st;
}
