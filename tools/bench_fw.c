/*
 * bench_fw.c - `nla bench fw`: Frank-Wolfe, every variant, on FrankWolfe.jl's
 * problems.  Double precision, one process, the first --threads count.
 *
 * Problems (A uniform in [-1, 1), seeded; --quick: the rows marked quick):
 *   - least squares 1/2 |A x - b|^2 over the probability simplex at 100x30,
 *     1000x500 and 3000x4000, with a vertex solution (b = A e_{n/2}) and a
 *     face solution (b = A x_p + 0.1 noise, x_p a random interior point);
 *   - the same objective over the L1 ball (r = 1, b from a sparse x_p with
 *     |x_p|_1 = 1.5) and the K-sparse polytope (K = 10, r = 0.2) at 1000x500;
 *   - matrix completion over the nuclear-norm ball: 1/2 sum over 10% of the
 *     entries of (X - M)^2, M 1000x1000 of rank 10 with |M|_F = 1, r =
 *     |M|_*, a user quadratic (H d = d on the observed entries);
 *   - the Birkhoff polytope, n = 200: 1/2 |X - Y|_F^2 with Y a permutation
 *     matrix at 1/2 plus noise in [0, 2/n), a user quadratic, from X = I.
 *
 * Each variant (vanilla, away, pairwise, blended pairwise, and the lazy
 * away, pairwise and blended) solves each problem once with the default
 * step rule (adaptive), tol 1e-8 and a time limit; the callback records
 * when the gap (where the LMO computed it) first falls to 1e-4, 1e-6 and
 * 1e-8.  Beside each problem, FrankWolfe.jl's published time where one
 * exists.
 *
 * Then, per least-squares size, the time of an iteration (vanilla,
 * agnostic, by products with A: NLA_FW_GRAM=never) against the two gemv
 * calls (A x, A' r) of the textbook method, interleaved samples, medians;
 * target ratio <= 1.3.
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

/* ------------------------------------------------------------- problems */

enum pkind { P_VERTEX, P_FACE, P_L1, P_KSPARSE, P_NUCLEAR, P_BIRKHOFF };

struct fw_problem {
    enum pkind kind;
    int64_t m, n;
    double anchor_s;           /* FrankWolfe.jl's published time, 0: none */
    int quick;
};

static const struct fw_problem problems[] = {
    { P_VERTEX, 100, 30, 0.005, 1 },  { P_FACE, 100, 30, 0.005, 1 },
    { P_VERTEX, 1000, 500, 0.270, 0 }, { P_FACE, 1000, 500, 0.270, 1 },
    { P_VERTEX, 3000, 4000, 4.94, 0 }, { P_FACE, 3000, 4000, 4.94, 0 },
    { P_L1, 1000, 500, 0, 1 },        { P_KSPARSE, 1000, 500, 0, 0 },
    { P_NUCLEAR, 1000, 1000, 0, 0 },  { P_BIRKHOFF, 200, 200, 0, 0 },
};
#define NPROBLEMS ((int)(sizeof problems / sizeof problems[0]))

static const char *problem_name(enum pkind k)
{
    switch (k) {
    case P_VERTEX:  return "lsq simplex, vertex";
    case P_FACE:    return "lsq simplex, face";
    case P_L1:      return "lsq L1 ball";
    case P_KSPARSE: return "lsq K-sparse";
    case P_NUCLEAR: return "completion nuclear";
    default:        return "Birkhoff";
    }
}

static const struct { nla_fw_variant v; int lazy; const char *name; } variants[] = {
    { NLA_FW_VANILLA, 0, "vanilla" },   { NLA_FW_AWAY, 0, "away" },
    { NLA_FW_PAIRWISE, 0, "pairwise" }, { NLA_FW_BLENDED_PAIRWISE, 0, "bpcg" },
    { NLA_FW_AWAY, 1, "lazy away" },    { NLA_FW_PAIRWISE, 1, "lazy pairwise" },
    { NLA_FW_BLENDED_PAIRWISE, 1, "lazy bpcg" },
};
#define NVARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* Matrix completion: the observed entries and M's values there. */
struct completion {
    int64_t m, n, nobs;
    int64_t *idx;
    double *val;
};

static double completion_f(int64_t n, const double *x, double *grad, void *user)
{
    const struct completion *c = user;
    double f = 0;
    if (grad)
        memset(grad, 0, (size_t)n * sizeof(double));
    for (int64_t k = 0; k < c->nobs; k++) {
        double r = x[c->idx[k]] - c->val[k];
        f += 0.5 * r * r;
        if (grad)
            grad[c->idx[k]] = r;
    }
    return f;
}

static void completion_hv(int64_t n, const double *d, double *hd, void *user)
{
    const struct completion *c = user;
    memset(hd, 0, (size_t)n * sizeof(double));
    for (int64_t k = 0; k < c->nobs; k++)
        hd[c->idx[k]] = d[c->idx[k]];
}

/* The Birkhoff problem: f = |X - Y|_F^2 / 2 (user = Y). */
static double target_f(int64_t n, const double *x, double *grad, void *user)
{
    const double *y = user;
    double f = 0;
    for (int64_t i = 0; i < n; i++) {
        double r = x[i] - y[i];
        f += 0.5 * r * r;
        if (grad)
            grad[i] = r;
    }
    return f;
}

static void target_hv(int64_t n, const double *d, double *hd, void *user)
{
    (void)user;
    memcpy(hd, d, (size_t)n * sizeof(double));
}

/* What a problem needs: objective, set, start, and its data. */
struct built {
    nla_fw_objective *obj;
    nla_fw_set *set;
    double *a, *b, *x0;
    struct completion comp;
    char error[256];
};

static void built_free(struct built *p)
{
    nla_fw_objective_destroy(p->obj);
    nla_fw_set_destroy(p->set);
    free(p->a);
    free(p->b);
    free(p->x0);
    free(p->comp.idx);
    free(p->comp.val);
    memset(p, 0, sizeof *p);
}

/* M = U V' / |U V'|_F with U, V m-by-10 and n-by-10 uniform; 10% observed.
   Returns r = |M|_* bounded by sqrt(10) |M|_F. */
static int build_completion(struct built *p, int64_t m, int64_t n, uint64_t *seed,
                            double *r)
{
    enum { RANK = 10 };
    double *u = malloc((size_t)(m * RANK) * sizeof(double));
    double *v = malloc((size_t)(n * RANK) * sizeof(double));
    double *full = malloc((size_t)(m * n) * sizeof(double)), fro = 0;
    int64_t cap = m * n / 10 + 1;
    int rc = -1;

    p->comp.m = m;
    p->comp.n = n;
    p->comp.idx = malloc((size_t)cap * sizeof(int64_t));
    p->comp.val = malloc((size_t)cap * sizeof(double));
    if (!u || !v || !full || !p->comp.idx || !p->comp.val)
        goto out;
    for (int64_t i = 0; i < m * RANK; i++)
        u[i] = 2 * uni(seed) - 1;
    for (int64_t i = 0; i < n * RANK; i++)
        v[i] = 2 * uni(seed) - 1;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double s = 0;
            for (int k = 0; k < RANK; k++)
                s += u[i + k * m] * v[j + k * n];
            full[i + j * m] = s;
            fro += s * s;
        }
    fro = sqrt(fro);
    for (int64_t e = 0; e < m * n && p->comp.nobs < cap; e++)
        if (uni(seed) < 0.1) {
            p->comp.idx[p->comp.nobs] = e;
            p->comp.val[p->comp.nobs++] = full[e] / fro;
        }
    /* |M|_* <= sqrt(rank) |M|_F = sqrt(10): a radius that holds M */
    *r = sqrt((double)RANK);
    rc = 0;
out:
    free(u);
    free(v);
    free(full);
    return rc;
}

static int build(const struct fw_problem *pr, struct built *p)
{
    int64_t m = pr->m, n = pr->n;
    int64_t dim = pr->kind == P_NUCLEAR || pr->kind == P_BIRKHOFF ? m * n : n;
    uint64_t seed = 42 + (uint64_t)pr->kind;
    nla_status st = NLA_OK;
    double sum = 0, r = 1;

    memset(p, 0, sizeof *p);
    p->x0 = calloc((size_t)dim, sizeof(double));
    if (pr->kind == P_BIRKHOFF) {
        /* Y: a permutation at 1/2 plus noise in [0, 2/n); start at I */
        if (!p->x0 || !(p->b = malloc((size_t)dim * sizeof(double)))) {
            snprintf(p->error, sizeof p->error, "out of memory");
            return -1;
        }
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++)
                p->b[i + j * n] = 2 * uni(&seed) / (double)n +
                                  (j == (7 * i + 3) % n ? 0.5 : 0);
        for (int64_t i = 0; i < n; i++)
            p->x0[i + i * n] = 1;
        if ((st = nla_fw_objective_create_user_quad(&p->obj, dim, target_f, target_hv,
                                                    p->b)) == NLA_OK)
            st = nla_fw_set_create_birkhoff(&p->set, n);
        goto done;
    }
    if (pr->kind == P_NUCLEAR) {
        if (!p->x0 || build_completion(p, m, n, &seed, &r) != 0) {
            snprintf(p->error, sizeof p->error, "out of memory");
            return -1;
        }
        if ((st = nla_fw_objective_create_user_quad(&p->obj, dim, completion_f,
                                                    completion_hv, &p->comp)) == NLA_OK)
            st = nla_fw_set_create_nuclear_ball(&p->set, m, n, r, 1e-7, 50);
        goto done;
    }
    p->a = malloc((size_t)(m * n) * sizeof(double));
    p->b = calloc((size_t)m, sizeof(double));
    if (!p->a || !p->b || !p->x0) {
        snprintf(p->error, sizeof p->error, "out of memory");
        return -1;
    }
    for (int64_t i = 0; i < m * n; i++)
        p->a[i] = 2 * uni(&seed) - 1;
    /* x_p, then b = A x_p (+ noise) */
    switch (pr->kind) {
    case P_VERTEX:
        p->x0[n / 2] = 1;
        break;
    case P_FACE:
        for (int64_t j = 0; j < n; j++)
            sum += (p->x0[j] = uni(&seed));
        for (int64_t j = 0; j < n; j++)
            p->x0[j] /= sum;
        break;
    default:
        for (int64_t j = 0; j < 20; j++)
            p->x0[(j * 37) % n] = (j % 2 ? -1.5 : 1.5) / 20;
        break;
    }
    for (int64_t j = 0; j < n; j++)
        if (p->x0[j] != 0)
            for (int64_t i = 0; i < m; i++)
                p->b[i] += p->a[i + j * m] * p->x0[j];
    if (pr->kind != P_VERTEX)
        for (int64_t i = 0; i < m; i++)
            p->b[i] += 0.1 * (2 * uni(&seed) - 1);
    memset(p->x0, 0, (size_t)n * sizeof(double));
    st = nla_fw_objective_create_lsq(&p->obj, m, n, p->a, m, p->b);
    if (st == NLA_OK)
        st = pr->kind == P_L1        ? nla_fw_set_create_l1_ball(&p->set, n, 1.0)
             : pr->kind == P_KSPARSE ? nla_fw_set_create_ksparse(&p->set, n, 10, 0.2)
                                     : nla_fw_set_create_prob_simplex(&p->set, n, 1.0);
    if (pr->kind == P_VERTEX || pr->kind == P_FACE)
        p->x0[0] = 1;   /* e_1; the others start at 0 */
done:
    if (st != NLA_OK) {
        snprintf(p->error, sizeof p->error, "%s", nla_last_error());
        return -1;
    }
    return 0;
}

/* ----------------------------------------------------------------- runs */

static const double targets[3] = { 1e-4, 1e-6, 1e-8 };

struct fw_run {
    nla_status st;
    double at[3];              /* seconds to each target, < 0: not reached */
    int64_t iters, lmo_calls;
    double gap, time_s;
    nla_fw_stop stop;
};

struct reach { double *at; int64_t calls; };

/* the first time the gap computed by the LMO falls to each target */
static int reach_cb(const nla_fw_state *s, void *user)
{
    struct reach *r = user;
    if (s->lmo_calls != r->calls)
        for (int k = 0; k < 3; k++)
            if (r->at[k] < 0 && s->gap <= targets[k])
                r->at[k] = s->time_s;
    r->calls = s->lmo_calls;
    return 0;
}

static int run_variant(nla_context *ctx, const struct bench_config *cfg, const struct built *p,
                       int v, struct fw_run *out)
{
    int64_t dim = nla_fw_set_dim(p->set);
    double *x = malloc((size_t)dim * sizeof(double));
    nla_fw_options *opt = NULL;
    nla_fw_result res;
    struct reach r = { out->at, -1 };

    memset(out, 0, sizeof *out);
    for (int k = 0; k < 3; k++)
        out->at[k] = -1;
    if (!x || nla_fw_options_create(&opt) != NLA_OK) {
        free(x);
        return -1;
    }
    memcpy(x, p->x0, (size_t)dim * sizeof(double));
    nla_fw_options_set_variant(opt, variants[v].v);
    nla_fw_options_set_lazy(opt, variants[v].lazy);
    nla_fw_options_set_tol(opt, targets[2]);
    nla_fw_options_set_max_iter(opt, 10000000);
    nla_fw_options_set_time_limit(opt, cfg->quick ? 0.5 : 10.0);
    nla_fw_options_set_callback(opt, reach_cb, &r);
    out->st = nla_fw_solve(ctx, p->obj, p->set, opt, x, &res);
    if (out->st == NLA_OK || out->st == NLA_EMAXITER) {
        /* the final gap is not shown to the callback */
        for (int k = 0; k < 3; k++)
            if (out->at[k] < 0 && res.gap <= targets[k])
                out->at[k] = res.time_s;
        out->iters = res.iterations;
        out->lmo_calls = res.lmo_calls;
        out->gap = res.gap;
        out->time_s = res.time_s;
        out->stop = res.stop;
    }
    nla_fw_options_destroy(opt);
    free(x);
    return out->st == NLA_OK || out->st == NLA_EMAXITER ? 0 : -1;
}

/* ------------------------------------------------ per iteration vs gemv */

struct it_row {
    int64_t m, n;
    double it_s, it_p25, it_p75, pair_s, pair_p25, pair_p75, ratio;
    int ok;
};

/* the time of iterations first..last, from the callback */
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

/* seconds per pair of gemv calls, over k pairs */
static nla_status time_pairs(nla_context *ctx, const struct built *p, int64_t m, int64_t n,
                             double *y, double *g, long k, double *sec)
{
    nla_status st = NLA_OK;
    double t0 = bench_now();
    for (long i = 0; i < k && st == NLA_OK; i++) {
        st = nla_dgemv(ctx, NLA_NO_TRANS, m, n, 1.0, p->a, m, p->x0, 1, 0.0, y, 1);
        if (st == NLA_OK)
            st = nla_dgemv(ctx, NLA_TRANS, m, n, 1.0, p->a, m, y, 1, 0.0, g, 1);
    }
    *sec = (bench_now() - t0) / (double)k;
    return st;
}

static int iteration_row(nla_context *ctx, const struct bench_config *cfg,
                         const struct built *p, int64_t m, int64_t n, struct it_row *row)
{
    double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)m * sizeof(double));
    double *g = malloc((size_t)n * sizeof(double));
    double *vi = malloc((size_t)cfg->samples * sizeof(double));
    double *vp = malloc((size_t)cfg->samples * sizeof(double)), pair;
    char saved[64] = "";
    nla_fw_options *opt = NULL;
    nla_fw_result res;
    int rc = -1;
    long k;

    memset(row, 0, sizeof *row);
    row->m = m;
    row->n = n;
    if (getenv("NLA_FW_GRAM"))
        snprintf(saved, sizeof saved, "%s", getenv("NLA_FW_GRAM"));
    if (!x || !y || !g || !vi || !vp || nla_fw_options_create(&opt) != NLA_OK)
        goto out;
    if (time_pairs(ctx, p, m, n, y, g, 3, &pair) != NLA_OK)
        goto out;
    k = (long)ceil(cfg->min_sample_s / (pair > 0 ? pair : 1e-9));
    k = k < 20 ? 20 : k > 200000 ? 200000 : k;
    nla_fw_options_set_variant(opt, NLA_FW_VANILLA);
    nla_fw_options_set_step(opt, NLA_FW_AGNOSTIC, 0);
    nla_fw_options_set_tol(opt, 0);
    nla_fw_options_set_max_iter(opt, k + 1);
    /* iterations by products with A, not by G = A'A after n/8 of them */
    setenv("NLA_FW_GRAM", "never", 1);
    for (int s = 0; s < cfg->samples; s++) {
        struct clock_cb c = { -1, -1, 0, 0 };
        nla_status st;
        nla_fw_options_set_callback(opt, clock_cb, &c);
        memcpy(x, p->x0, (size_t)n * sizeof(double));
        st = nla_fw_solve(ctx, p->obj, p->set, opt, x, &res);
        if ((st != NLA_OK && st != NLA_EMAXITER) || c.t1 <= c.t0)
            goto out;
        vi[s] = (c.e1 - c.e0) / (double)(c.t1 - c.t0);
        if (time_pairs(ctx, p, m, n, y, g, k, &vp[s]) != NLA_OK)
            goto out;
    }
    {
        struct bench_stats si = bench_stats_of(vi, cfg->samples);
        struct bench_stats sp = bench_stats_of(vp, cfg->samples);
        row->it_s = si.median;
        row->it_p25 = si.p25;
        row->it_p75 = si.p75;
        row->pair_s = sp.median;
        row->pair_p25 = sp.p25;
        row->pair_p75 = sp.p75;
        row->ratio = row->it_s / row->pair_s;
    }
    row->ok = 1;
    rc = 0;
out:
    if (saved[0])
        setenv("NLA_FW_GRAM", saved, 1);
    else
        unsetenv("NLA_FW_GRAM");
    nla_fw_options_destroy(opt);
    free(x);
    free(y);
    free(g);
    free(vi);
    free(vp);
    return rc;
}

/* ------------------------------------------------------------- printing */

static void fmt_time(char *buf, size_t len, double s)
{
    if (s < 0)
        snprintf(buf, len, "-");
    else if (s < 1)
        snprintf(buf, len, "%.2f ms", s * 1e3);
    else
        snprintf(buf, len, "%.3f s", s);
}

static void print_header(FILE *f, const struct bench_config *cfg)
{
    fprintf(f, "Frank-Wolfe, threads %d: time to gap 1e-4, 1e-6, 1e-8 (default step rule, "
            "adaptive; cap %.1f s a solve; '-': not reached)\n", cfg->threads,
            cfg->quick ? 0.5 : 10.0);
    fprintf(f, "%-24s %-10s %-14s %10s %10s %10s %9s %9s %10s %9s\n", "problem", "m x n",
            "variant", "1e-4", "1e-6", "1e-8", "iters", "LMO", "gap", "FW.jl");
}

static void print_run(FILE *f, const struct fw_problem *pr, int v, const struct fw_run *r)
{
    char shape[32], t[3][24], anchor[24];
    snprintf(shape, sizeof shape, "%lldx%lld", (long long)pr->m, (long long)pr->n);
    for (int k = 0; k < 3; k++)
        fmt_time(t[k], sizeof t[k], r->at[k]);
    fmt_time(anchor, sizeof anchor, pr->anchor_s > 0 ? pr->anchor_s : -1);
    fprintf(f, "%-24s %-10s %-14s %10s %10s %10s %9lld %9lld %10.2e %9s\n",
            problem_name(pr->kind), shape, variants[v].name, t[0], t[1], t[2],
            (long long)r->iters, (long long)r->lmo_calls, r->gap, anchor);
    fflush(f);
}

static void print_it_row(FILE *f, const struct it_row *r)
{
    char shape[32], a[64], b[64];
    snprintf(shape, sizeof shape, "%lldx%lld", (long long)r->m, (long long)r->n);
    snprintf(a, sizeof a, "%.2f (%.2f..%.2f)", r->it_s * 1e6, r->it_p25 * 1e6,
             r->it_p75 * 1e6);
    snprintf(b, sizeof b, "%.2f (%.2f..%.2f)", r->pair_s * 1e6, r->pair_p25 * 1e6,
             r->pair_p75 * 1e6);
    fprintf(f, "%-10s %30s %30s %6.2f\n", shape, a, b, r->ratio);
}

static void json_run(FILE *f, int first, const struct fw_problem *pr, int v,
                     const struct fw_run *r)
{
    fprintf(f, "%s\n  {\"problem\": \"%s\", \"m\": %lld, \"n\": %lld, \"variant\": \"%s\"",
            first ? "" : ",", problem_name(pr->kind), (long long)pr->m, (long long)pr->n,
            variants[v].name);
    for (int k = 0; k < 3; k++)
        fprintf(f, ", \"s_to_%.0e\": %.6g", targets[k], r->at[k]);
    fprintf(f, ", \"iterations\": %lld, \"lmo_calls\": %lld, \"gap\": %.6g, \"time_s\": "
            "%.6g, \"anchor_s\": %g}", (long long)r->iters, (long long)r->lmo_calls, r->gap,
            r->time_s, pr->anchor_s);
}

/* ---------------------------------------------------------------- main */

int bench_fw_run(nla_context *ctx, const struct bench_config *cfg)
{
    int nfail = 0, first = 1, nit = 0;
    struct it_row its[3];
    FILE *f = stdout;

    if (cfg->json)
        fprintf(f, "{\"fw\": {\"threads\": %d, \"rows\": [", cfg->threads);
    else
        print_header(f, cfg);
    for (int i = 0; i < NPROBLEMS; i++) {
        const struct fw_problem *pr = &problems[i];
        struct built p;
        if (cfg->quick && !pr->quick)
            continue;
        if (build(pr, &p) != 0) {
            if (!cfg->json)
                fprintf(f, "%-24s %lldx%lld %s\n", problem_name(pr->kind), (long long)pr->m,
                        (long long)pr->n, p.error);
            nfail += pr->kind != P_BIRKHOFF;
            built_free(&p);
            continue;
        }
        for (int v = 0; v < NVARIANTS; v++) {
            struct fw_run r;
            if (run_variant(ctx, cfg, &p, v, &r) != 0) {
                nfail++;
                if (!cfg->json)
                    fprintf(f, "%-24s %s: ERROR %s\n", problem_name(pr->kind),
                            variants[v].name, nla_context_error(ctx));
                continue;
            }
            if (cfg->json)
                json_run(f, first, pr, v, &r);
            else
                print_run(f, pr, v, &r);
            first = 0;
        }
        if (pr->kind == P_FACE && nit < 3)
            nfail += iteration_row(ctx, cfg, &p, pr->m, pr->n, &its[nit++]) != 0;
        built_free(&p);
    }
    if (cfg->json) {
        fprintf(f, "], \"iteration_vs_two_gemv\": [");
        for (int i = 0; i < nit; i++)
            fprintf(f, "%s{\"m\": %lld, \"n\": %lld, \"iteration_s\": %.6g, "
                    "\"gemv_pair_s\": %.6g, \"ratio\": %.4g}", i ? ", " : "",
                    (long long)its[i].m, (long long)its[i].n, its[i].it_s, its[i].pair_s,
                    its[i].ratio);
        fputs("]}}\n", f);
        return nfail;
    }
    fprintf(f, "\nper iteration (vanilla, agnostic, by products with A) against the two "
            "gemv calls (A x, A'r) of an iteration: median (p25..p75) of %d interleaved "
            "samples, us; target ratio <= 1.3\n%-10s %30s %30s %6s\n", cfg->samples,
            "m x n", "iteration", "2 gemv", "ratio");
    for (int i = 0; i < nit; i++)
        print_it_row(f, &its[i]);
    return nfail;
}
