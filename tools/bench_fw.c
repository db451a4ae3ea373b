/*
 * bench_fw.c - `nla bench fw`: Frank-Wolfe on least squares over the
 * probability simplex, vanilla, the sizes of FrankWolfe.jl's published
 * benchmark (100x30, 1000x500, 3000x4000; --quick: the first two).
 *
 * Problem: A m-by-n uniform in [-1, 1), b = A x_p + 0.1 noise with x_p a
 * random point of the simplex, start x_0 = e_1, exact line search (the
 * closed form of a quadratic; it needs no product beyond the iteration's).
 *
 * Two figures per size, both in one process:
 *   - time to gap 1e-6: one solve with tol 1e-6 and an iteration cap; if
 *     the cap stops it, the row says so and gives the gap reached;
 *   - time per iteration against the two gemv calls an iteration of the
 *     textbook method makes (A x and A' r, through nla_dgemv): samples of
 *     K iterations (timed inside the solve by the callback, so set-up is
 *     excluded) alternate with samples of K gemv pairs; medians and
 *     ratio = iteration / pair.  Target: ratio <= 1.3.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uni(uint64_t *s)
{
    return (double)(rng(s) >> 11) * 0x1.0p-53;
}

struct fw_size { int64_t m, n; double anchor_s; };

static const struct fw_size full_sizes[] = {
    { 100, 30, 0.005 }, { 1000, 500, 0.270 }, { 3000, 4000, 4.94 }
};

#define FW_TOL 1e-6
#define FW_CAP 100000
/* seconds a time-to-gap solve may take: --quick, full */
#define FW_LIMIT_QUICK 1.0
#define FW_LIMIT_FULL 10.0

struct fw_row {
    int64_t m, n;
    double anchor_s;
    nla_status st;
    double solve_s, gap;
    int64_t iters;
    int reached;
    nla_fw_stop stop;
    double it_s, it_p25, it_p75, pair_s, pair_p25, pair_p75, ratio;
    char error[256];
};

/* Callback of the timing solves: the time of iteration first..last. */
struct clock_cb { int64_t t0, t1; double e0, e1; };

static int clock_cb(const nla_fw_state *s, void *user)
{
    struct clock_cb *c = user;
    if (c->t0 < 0) {
        c->t0 = s->t;
        c->e0 = s->time_s;
    }
    c->t1 = s->t;
    c->e1 = s->time_s;
    return 0;
}

static void quartiles(double *v, int n, double *p25, double *med, double *p75)
{
    struct bench_stats st = bench_stats_of(v, n);
    *p25 = st.p25;
    *med = st.median;
    *p75 = st.p75;
}

/* seconds per pair of gemv calls, over k pairs */
static nla_status time_pairs(nla_context *ctx, int64_t m, int64_t n, const double *a,
                             const double *x, double *y, double *g, long k, double *sec)
{
    nla_status st = NLA_OK;
    double t0 = bench_now();
    for (long i = 0; i < k && st == NLA_OK; i++) {
        st = nla_dgemv(ctx, NLA_NO_TRANS, m, n, 1.0, a, m, x, 1, 0.0, y, 1);
        if (st == NLA_OK)
            st = nla_dgemv(ctx, NLA_TRANS, m, n, 1.0, a, m, y, 1, 0.0, g, 1);
    }
    *sec = (bench_now() - t0) / (double)k;
    return st;
}

static void start_point(double *x, int64_t n)
{
    memset(x, 0, (size_t)n * sizeof(double));
    x[0] = 1;
}

static int run_size(nla_context *ctx, const struct bench_config *cfg,
                    const struct fw_size *sz, struct fw_row *row)
{
    int64_t m = sz->m, n = sz->n;
    double *a = malloc((size_t)(m * n) * sizeof(double));
    double *b = malloc((size_t)m * sizeof(double)), *x = malloc((size_t)n * sizeof(double));
    double *y = malloc((size_t)m * sizeof(double)), *g = malloc((size_t)n * sizeof(double));
    double *vi = malloc((size_t)cfg->samples * sizeof(double));
    double *vp = malloc((size_t)cfg->samples * sizeof(double));
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    nla_fw_options *opt = NULL;
    nla_fw_result res;
    uint64_t seed = 42;
    double sum = 0, pair;
    long k;
    int rc = -1;

    memset(row, 0, sizeof *row);
    row->m = m;
    row->n = n;
    row->anchor_s = sz->anchor_s;
    if (!a || !b || !x || !y || !g || !vi || !vp) {
        snprintf(row->error, sizeof row->error, "out of memory");
        goto out;
    }
    for (int64_t i = 0; i < m * n; i++)
        a[i] = 2 * uni(&seed) - 1;
    for (int64_t j = 0; j < n; j++)
        sum += (x[j] = uni(&seed));
    for (int64_t j = 0; j < n; j++)
        x[j] /= sum;
    nla_dgemv(ctx, NLA_NO_TRANS, m, n, 1.0, a, m, x, 1, 0.0, b, 1);
    for (int64_t i = 0; i < m; i++)
        b[i] += 0.1 * (2 * uni(&seed) - 1);
    if ((row->st = nla_fw_objective_create_lsq(&obj, m, n, a, m, b)) != NLA_OK ||
        (row->st = nla_fw_set_create_prob_simplex(&set, n, 1.0)) != NLA_OK ||
        (row->st = nla_fw_options_create(&opt)) != NLA_OK ||
        (row->st = nla_fw_options_set_step(opt, NLA_FW_EXACT, 0)) != NLA_OK ||
        (row->st = nla_fw_options_set_tol(opt, FW_TOL)) != NLA_OK ||
        (row->st = nla_fw_options_set_max_iter(opt, FW_CAP)) != NLA_OK ||
        (row->st = nla_fw_options_set_time_limit(opt, cfg->quick ? FW_LIMIT_QUICK
                                                               : FW_LIMIT_FULL)) != NLA_OK) {
        snprintf(row->error, sizeof row->error, "%s", nla_last_error());
        goto out;
    }

    /* time to gap 1e-6 */
    start_point(x, n);
    row->st = nla_fw_solve(ctx, obj, set, opt, x, &res);
    if (row->st != NLA_OK && row->st != NLA_EMAXITER) {
        snprintf(row->error, sizeof row->error, "%s", nla_context_error(ctx));
        goto out;
    }
    row->solve_s = res.time_s;
    row->iters = res.iterations;
    row->gap = res.gap;
    row->reached = res.stop == NLA_FW_STOP_GAP;
    row->stop = res.stop;

    /* per iteration vs a gemv pair: K so that a sample lasts min_sample_s */
    start_point(x, n);
    if ((row->st = time_pairs(ctx, m, n, a, x, y, g, 3, &pair)) != NLA_OK) {
        snprintf(row->error, sizeof row->error, "%s", nla_context_error(ctx));
        goto out;
    }
    k = (long)ceil(cfg->min_sample_s / (pair > 0 ? pair : 1e-9));
    k = k < 20 ? 20 : k > 200000 ? 200000 : k;
    nla_fw_options_set_tol(opt, 0);
    nla_fw_options_set_step(opt, NLA_FW_AGNOSTIC, 0);
    nla_fw_options_set_max_iter(opt, k + 1);
    nla_fw_options_set_time_limit(opt, 0);
    for (int s = 0; s < cfg->samples; s++) {
        struct clock_cb c = { -1, -1, 0, 0 };
        nla_fw_options_set_callback(opt, clock_cb, &c);
        start_point(x, n);
        row->st = nla_fw_solve(ctx, obj, set, opt, x, &res);
        if ((row->st != NLA_OK && row->st != NLA_EMAXITER) || c.t1 <= c.t0) {
            snprintf(row->error, sizeof row->error, "timing solve: %s",
                     nla_context_error(ctx));
            goto out;
        }
        vi[s] = (c.e1 - c.e0) / (double)(c.t1 - c.t0);
        if ((row->st = time_pairs(ctx, m, n, a, x, y, g, k, &vp[s])) != NLA_OK) {
            snprintf(row->error, sizeof row->error, "%s", nla_context_error(ctx));
            goto out;
        }
    }
    quartiles(vi, cfg->samples, &row->it_p25, &row->it_s, &row->it_p75);
    quartiles(vp, cfg->samples, &row->pair_p25, &row->pair_s, &row->pair_p75);
    row->ratio = row->it_s / row->pair_s;
    row->st = NLA_OK;
    rc = 0;
out:
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
    free(a);
    free(b);
    free(x);
    free(y);
    free(g);
    free(vi);
    free(vp);
    return rc;
}

static void print_header(FILE *f, const struct bench_config *cfg)
{
    fprintf(f, "Frank-Wolfe: least squares over the probability simplex, vanilla, "
            "threads %d\n", cfg->threads);
    fprintf(f, "  time to gap %.0e: exact line search, start e_1, cap %d iterations "
            "or %.0f s\n", FW_TOL, FW_CAP, cfg->quick ? FW_LIMIT_QUICK : FW_LIMIT_FULL);
    fprintf(f, "  per iteration: median (p25..p75) of %d samples, against the two "
            "gemv calls (A x, A'r) of an iteration, interleaved; target ratio <= 1.3\n",
            cfg->samples);
    fprintf(f, "  1000 it: 1000 x the median iteration; anchor: FrankWolfe.jl's "
            "published time for the size\n\n");
    fprintf(f, "%-10s %12s %8s %10s %26s %26s %6s %9s %9s\n", "m x n", "to gap 1e-6",
            "iters", "gap", "iteration us (IQR)", "2 gemv us (IQR)", "ratio", "1000 it",
            "anchor");
}

static void print_row(FILE *f, const struct fw_row *r)
{
    char shape[32], t[32], a[48], b[48];
    snprintf(shape, sizeof shape, "%lldx%lld", (long long)r->m, (long long)r->n);
    if (r->error[0]) {
        fprintf(f, "%-10s ERROR: %s\n", shape, r->error);
        return;
    }
    if (r->reached)
        snprintf(t, sizeof t, "%.4f s", r->solve_s);
    else
        snprintf(t, sizeof t, "not reached");
    snprintf(a, sizeof a, "%.2f (%.2f..%.2f)", r->it_s * 1e6, r->it_p25 * 1e6,
             r->it_p75 * 1e6);
    snprintf(b, sizeof b, "%.2f (%.2f..%.2f)", r->pair_s * 1e6, r->pair_p25 * 1e6,
             r->pair_p75 * 1e6);
    fprintf(f, "%-10s %12s %8lld %10.2e %26s %26s %6.2f %7.3f s %7.3f s\n", shape, t,
            (long long)r->iters, r->gap, a, b, r->ratio, r->it_s * 1e3, r->anchor_s);
    if (!r->reached)
        fprintf(f, "%-10s (gap 1e-6 not reached: the %s stopped it after %.3f s)\n", "",
                r->stop == NLA_FW_STOP_TIME ? "time limit" : "iteration cap", r->solve_s);
    fflush(f);
}

static void print_json(FILE *f, const struct bench_config *cfg, const struct fw_row *r,
                       int nrows)
{
    fprintf(f, "{\"fw\": {\"problem\": \"least squares over the probability simplex, "
            "vanilla\", \"threads\": %d, \"tol\": %g, \"cap\": %d, \"rows\": [",
            cfg->threads, FW_TOL, FW_CAP);
    for (int i = 0; i < nrows; i++, r++) {
        fprintf(f, "%s\n  {\"m\": %lld, \"n\": %lld", i ? "," : "", (long long)r->m,
                (long long)r->n);
        if (r->error[0]) {
            fprintf(f, ", \"error\": \"failed\"}");
            continue;
        }
        fprintf(f, ", \"reached\": %s, \"seconds_to_tol\": %.6g, \"iterations\": %lld, "
                "\"gap\": %.6g, \"iteration_s\": {\"median\": %.6g, \"p25\": %.6g, "
                "\"p75\": %.6g}, \"gemv_pair_s\": {\"median\": %.6g, \"p25\": %.6g, "
                "\"p75\": %.6g}, \"ratio\": %.4g, \"anchor_s\": %g}",
                r->reached ? "true" : "false", r->solve_s, (long long)r->iters, r->gap,
                r->it_s, r->it_p25, r->it_p75, r->pair_s, r->pair_p25, r->pair_p75,
                r->ratio, r->anchor_s);
    }
    fputs("]}}\n", f);
}

int bench_fw_run(nla_context *ctx, const struct bench_config *cfg)
{
    int nsz = cfg->quick ? 2 : 3, nfail = 0;
    struct fw_row rows[3];

    if (!cfg->json)
        print_header(stdout, cfg);
    for (int i = 0; i < nsz; i++) {
        nfail += run_size(ctx, cfg, &full_sizes[i], &rows[i]) != 0;
        if (!cfg->json)
            print_row(stdout, &rows[i]);
    }
    if (cfg->json)
        print_json(stdout, cfg, rows, nsz);
    return nfail;
}
