/*
 * test_fw.c - the Frank-Wolfe solver against closed forms, planted optima
 * and LAPACK:
 *   - |x|^2 over the probability simplex from a vertex (exact and short
 *     step, L = 2, Q dense, packed and band): f_t = 1/(t+1), gap 0 at n-1;
 *   - least squares over the simplex with a planted KKT point: every
 *     variant and step rule reaches f - f* <= 1e-6 with f - f* <= gap at
 *     every iteration;
 *   - L1 ball: an inactive constraint gives LAPACKE_dgels' solution, an
 *     active one recovers the planted x*;
 *   - nuclear-norm ball, fully observed target: U proj_{l1,tau}(sigma) V'
 *     from LAPACKE_dgesdd;
 *   - away-step and pairwise converge linearly over a polytope;
 *   - every LMO against brute force over the vertices;
 *   - the sublinear bound f_t - f* <= 2 L D^2 / (t+2) of agnostic steps;
 *   (the built-in objectives, callbacks and bad input: test_fw_api.c)
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include <criterion/criterion.h>
#include "refs.h"
#include "fw_check.h"

static nla_context *ctx;

static void setup(void)
{
    ctx = ref_cpu_context();
}

static void teardown(void)
{
    nla_context_destroy(ctx);
}

TestSuite(fw, .init = setup, .fini = teardown);

/* -------------------------------------------- |x|^2 over the simplex */

struct trace {
    int64_t len, cap;
    double f[256], gap[256];
};

static int trace_cb(const nla_fw_state *s, void *user)
{
    struct trace *t = user;
    if (t->len < 256) {
        t->f[t->len] = s->f;
        t->gap[t->len] = s->gap;
        t->len++;
    }
    return 0;
}

Test(fw, sqnorm_simplex_closed_form)
{
    enum { N = 12 };
    double q[N * N] = {0}, qp[N * (N + 1) / 2] = {0}, qb[N], x[N];
    nla_fw_step_rule rules[2] = { NLA_FW_EXACT, NLA_FW_SHORT_STEP };
    nla_fw_set *set = NULL;

    for (int i = 0; i < N; i++) {
        q[i + i * N] = 2;
        qb[i] = 2;
    }
    cr_assert_eq(nla_dpacked_pack(NLA_UPPER, N, q, N, qp), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, N, 1.0), NLA_OK);
    for (int storage = 0; storage < 3; storage++)
        for (int r = 0; r < 2; r++) {
            nla_fw_objective *obj = quad_in_storage(storage, N, 0, q, qp, qb, NULL);
            nla_fw_options *opt = options(NLA_FW_VANILLA, rules[r], 2.0, 1e-14, 100);
            struct trace tr = { 0, 0, {0}, {0} };
            nla_fw_result res;

            cr_assert_eq(nla_fw_options_set_callback(opt, trace_cb, &tr), NLA_OK);
            memset(x, 0, sizeof x);
            x[0] = 1;
            cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_OK, "%s",
                         nla_context_error(ctx));
            cr_assert_eq(res.stop, NLA_FW_STOP_GAP);
            cr_assert_eq(res.iterations, N - 1, "storage %d rule %d: %lld iterations",
                         storage, r, (long long)res.iterations);
            cr_assert_eq(tr.len, N - 1);
            for (int t = 0; t < N - 1; t++) {
                cr_assert_float_eq(tr.f[t], 1.0 / (t + 1), 4 * DBL_EPSILON,
                                   "f_%d = %.17g", t, tr.f[t]);
                cr_assert_float_eq(tr.gap[t], 2.0 / (t + 1), 16 * DBL_EPSILON,
                                   "gap_%d = %.17g", t, tr.gap[t]);
            }
            cr_assert_float_eq(res.f, 1.0 / N, 4 * DBL_EPSILON);
            cr_assert_leq(fabs(res.gap), 1e-14);
            for (int i = 0; i < N; i++)
                cr_assert_float_eq(x[i], 1.0 / N, 4 * DBL_EPSILON);
            nla_fw_options_destroy(opt);
            nla_fw_objective_destroy(obj);
        }
    nla_fw_set_destroy(set);
}

/* ---------------------------------- planted least squares over the simplex */

struct bound_check {
    double fstar, slack;
    int64_t violations, iters;
    double worst;
};

static int gap_bound_cb(const nla_fw_state *s, void *user)
{
    struct bound_check *c = user;
    double excess = s->f - c->fstar - s->gap;
    if (excess > c->slack) {
        c->violations++;
        if (excess > c->worst)
            c->worst = excess;
    }
    c->iters++;
    return 0;
}

/* Every variant and rule on a planted vertex solution (one non-zero); on a
   face (three non-zeros) the active-set variants with every rule, and
   vanilla with the agnostic rule (vanilla with a line search zig-zags
   towards a face at its O(1/t) rate, FW's known worst case: 1e-6 would
   take ~10^7 iterations here). */
static void planted_run(int nsupp)
{
    struct planted p = plant_simplex(40, 20, 11, nsupp);
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    nla_fw_variant vars[3] = { NLA_FW_VANILLA, NLA_FW_AWAY, NLA_FW_PAIRWISE };
    nla_fw_step_rule rules[4] = { NLA_FW_AGNOSTIC, NLA_FW_SHORT_STEP, NLA_FW_ADAPTIVE,
                                  NLA_FW_EXACT };
    double *x = dalloc((size_t)p.n);

    planted_objects(&p, &obj, &set);
    for (int v = 0; v < 3; v++)
        for (int r = 0; r < 4; r++) {
            nla_fw_options *opt;
            if (nsupp > 1 && v == 0 && r > 0)
                continue;
            opt = options(vars[v], rules[r], p.L, 1e-9, 20000);
            struct bound_check c = { p.fstar, 1e-13 * (1 + p.fstar), 0, 0, 0 };
            nla_fw_result res;
            nla_status st;

            cr_assert_eq(nla_fw_options_set_callback(opt, gap_bound_cb, &c), NLA_OK);
            memset(x, 0, (size_t)p.n * sizeof(double));
            x[0] = 1;
            st = nla_fw_solve(ctx, obj, set, opt, x, &res);
            cr_assert(st == NLA_OK || st == NLA_EMAXITER, "%s", nla_context_error(ctx));
            cr_assert_eq(res.status, st);
            cr_assert_leq(res.f - p.fstar, 1e-6, "support %d, variant %d rule %d: f - f* "
                          "= %g after %lld iterations", nsupp, v, r, res.f - p.fstar,
                          (long long)res.iterations);
            cr_assert_geq(res.f - p.fstar, -1e-12);
            cr_assert_eq(c.violations, 0, "variant %d rule %d: f - f* > gap at %lld "
                         "iterations (worst by %g)", v, r, (long long)c.violations, c.worst);
            cr_assert_leq(res.best_gap, res.gap);
            if (vars[v] == NLA_FW_VANILLA)
                cr_assert_eq(res.active_set_size, 0);
            else
                cr_assert_geq(res.active_set_size, 1);
            nla_fw_options_destroy(opt);
        }
    free(x);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
    planted_free(&p);
}

Test(fw, planted_lsq_simplex_vertex_every_variant_and_rule)
{
    planted_run(1);
}

Test(fw, planted_lsq_simplex_face)
{
    planted_run(3);
}

/* ------------------------------------------------------------ the L1 ball */

Test(fw, l1_ball_inactive_matches_dgels)
{
    enum { M = L1_IN_M, N = L1_IN_N };
    double a[M * N], b[M], xl[M], x[N] = {0}, r = l1_inside_problem(a, b, xl);
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    nla_fw_options *opt;
    nla_fw_result res;

    cr_assert_eq(nla_fw_objective_create_lsq(&obj, M, N, a, M, b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_l1_ball(&set, N, 2 * r), NLA_OK);
    opt = options(NLA_FW_PAIRWISE, NLA_FW_EXACT, 0, 1e-13, 20000);
    cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_OK, "%s",
                 nla_context_error(ctx));
    cr_assert_leq(ref_max_diff(x, xl, N), 1e-6 * ref_max_abs(xl, N),
                  "|x - x_dgels| = %g", ref_max_diff(x, xl, N));
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
}

Test(fw, l1_ball_active_recovers_planted)
{
    enum { M = 30, N = 12 };
    double a[M * N], b[M], g[N], s[N], res_r[M], xs[N] = {0}, x[N] = {0};
    nla_fw_variant vars[2] = { NLA_FW_AWAY, NLA_FW_PAIRWISE };
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;

    ref_fill(a, M * N, 31);
    ref_fill(s, N, 32);
    for (int i = 0; i < N; i++)
        s[i] *= 0.5;                /* |s_i| <= 1/2 off the support */
    xs[1] = 0.6;
    xs[4] = -0.4;
    s[1] = 1;
    s[4] = -1;
    for (int i = 0; i < N; i++)
        g[i] = -0.8 * s[i];         /* -g* = lambda s, s in the subdifferential */
    solve_at(a, M, N, g, res_r);
    cblas_dgemv(CblasColMajor, CblasNoTrans, M, N, 1.0, a, M, xs, 1, 0.0, b, 1);
    for (int i = 0; i < M; i++)
        b[i] -= res_r[i];
    cr_assert_eq(nla_fw_objective_create_lsq(&obj, M, N, a, M, b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_l1_ball(&set, N, 1.0), NLA_OK);
    for (int v = 0; v < 2; v++) {
        nla_fw_options *opt = options(vars[v], NLA_FW_EXACT, 0, 1e-14, 20000);
        nla_fw_result res;
        memset(x, 0, sizeof x);
        cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_OK, "%s",
                     nla_context_error(ctx));
        cr_assert_leq(ref_max_diff(x, xs, N), 1e-7, "variant %d: |x - x*| = %g", v,
                      ref_max_diff(x, xs, N));
        nla_fw_options_destroy(opt);
    }
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
}

/* ---------------------------------------------------- the nuclear-norm ball */

/* a random m-by-k matrix with orthonormal columns */
static void orthonormal(double *q, int m, int k, uint64_t seed)
{
    double tau[16];
    ref_fill(q, (size_t)(m * k), seed);
    cr_assert_eq(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, k, q, m, tau), 0);
    cr_assert_eq(LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, k, k, q, m, tau), 0);
}

/* Euclidean projection of s (descending, >= 0) onto {sum |p| <= tau} */
static void proj_l1(const double *s, int k, double tau, double *p)
{
    double sum = 0, theta = 0;
    for (int i = 0; i < k; i++)
        sum += s[i];
    if (sum > tau) {
        double cs = 0;
        for (int i = 0; i < k; i++) {
            cs += s[i];
            if (s[i] > (cs - tau) / (i + 1))
                theta = (cs - tau) / (i + 1);
        }
    }
    for (int i = 0; i < k; i++)
        p[i] = s[i] > theta ? s[i] - theta : 0;
}

Test(fw, nuclear_ball_matches_svd_projection)
{
    enum { M = 8, C = 6, MN = M * C };
    static const double sig[C] = { 3, 1.5, 1, 0.5, 0.25, 0.1 };
    double u0[M * C], v0[C * C], y[MN], ysv[MN], s[C], u[M * C], vt[C * C], p[C];
    double xs[MN], x[MN], ones[MN];
    double taus[2] = { 1.0, 2.0 };    /* rank-one and rank-two solutions */
    nla_fw_objective *obj = NULL;

    orthonormal(u0, M, C, 41);
    orthonormal(v0, C, C, 42);
    for (int j = 0; j < C; j++)
        for (int i = 0; i < M; i++) {
            double t = 0;
            for (int k = 0; k < C; k++)
                t += u0[i + k * M] * sig[k] * v0[j + k * C];
            y[i + j * M] = t;
        }
    memcpy(ysv, y, sizeof y);
    cr_assert_eq(LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'S', M, C, ysv, M, s, u, M, vt, C), 0);
    /* f = 1/2 |X - Y|_F^2 as least squares with A = I in band storage */
    for (int i = 0; i < MN; i++)
        ones[i] = 1;
    cr_assert_eq(nla_fw_objective_create_lsq_band(&obj, MN, MN, 0, 0, ones, 1, y), NLA_OK);
    for (int k = 0; k < 2; k++) {
        nla_fw_set *set = NULL;
        nla_fw_options *opt = options(NLA_FW_VANILLA, NLA_FW_EXACT, 0, 1e-13,
                                      k == 0 ? 20000 : 3000);
        nla_fw_result res;
        double err = 0, nrm = 0;
        nla_status st;

        proj_l1(s, C, taus[k], p);
        for (int j = 0; j < C; j++)
            for (int i = 0; i < M; i++) {
                double t = 0;
                for (int l = 0; l < C; l++)
                    t += u[i + l * M] * p[l] * vt[l + j * C];
                xs[i + j * M] = t;
            }
        cr_assert_eq(nla_fw_set_create_nuclear_ball(&set, M, C, taus[k], 1e-10, 200),
                     NLA_OK);
        /* a start not aligned with Y's singular vectors: |X0|_F = 0.3,
           so |X0|_* <= sqrt(6) 0.3 < tau */
        ref_fill(x, MN, 43);
        {
            double f0 = sqrt(ddot(x, x, MN));
            for (int i = 0; i < MN; i++)
                x[i] *= 0.3 / f0;
        }
        st = nla_fw_solve(ctx, obj, set, opt, x, &res);
        cr_assert(st == NLA_OK || st == NLA_EMAXITER, "%s", nla_context_error(ctx));
        for (int i = 0; i < MN; i++) {
            err += (x[i] - xs[i]) * (x[i] - xs[i]);
            nrm += xs[i] * xs[i];
        }
        if (k == 0) {
            /* rank one, sigma_1 - tau > sigma_2: the LMO is well separated,
               FW converges linearly, and strong convexity (mu = 1) gives
               |X - X*|_F^2 <= 2 (f - f*) <= 2 gap */
            cr_assert_eq(st, NLA_OK);
            cr_assert_leq(sqrt(err), sqrt(2 * fmax(res.gap, 0)) + 1e-9,
                          "tau %g: |X - X*| = %g, gap %g", taus[k], sqrt(err), res.gap);
        }
        /* rank two: X* lies in a face where the gradient's top two singular
           values tie.  Lanczos resolves the near-tie (the power iteration
           it replaced left 5e-3), but vanilla FW is sublinear on such a face
           of a ball that is not a polytope: 3000 iterations give 1.7e-4 */
        cr_assert_leq(sqrt(err), (k == 0 ? 1e-6 : 1e-3) * sqrt(nrm),
                      "tau %g: |X - X*| = %g after %lld iterations (gap %g)", taus[k],
                      sqrt(err), (long long)res.iterations, res.gap);
        nla_fw_options_destroy(opt);
        nla_fw_set_destroy(set);
    }
    nla_fw_objective_destroy(obj);
}

/* ------------------------------------------- linear convergence (polytope) */

struct gaps_at { int64_t k; double gk, g2k; int64_t last; double glast; };

static int gaps_cb(const nla_fw_state *s, void *user)
{
    struct gaps_at *g = user;
    if (s->t == g->k)
        g->gk = s->gap;
    if (s->t == 2 * g->k)
        g->g2k = s->gap;
    g->last = s->t;
    g->glast = s->gap;
    return 0;
}

#define LIN_M 200
#define LIN_N 100
#define LIN_S 10
#define LIN_K 40
Test(fw, away_and_pairwise_converge_linearly)
{
    struct planted p = plant_simplex(LIN_M, LIN_N, 51, LIN_S);   /* m > n: strongly convex */
    nla_fw_variant vars[2] = { NLA_FW_AWAY, NLA_FW_PAIRWISE };
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    double *x = dalloc((size_t)p.n);

    planted_objects(&p, &obj, &set);
    for (int v = 0; v < 2; v++) {
        struct gaps_at g = { LIN_K, NAN, NAN, 0, 0 };
        nla_fw_options *opt = options(vars[v], NLA_FW_EXACT, 0, 0, 2 * g.k + 1);
        nla_fw_result res;
        for (int i = 0; i < p.n; i++)
            x[i] = 1.0 / (double)p.n;
        cr_assert_eq(nla_fw_options_set_callback(opt, gaps_cb, &g), NLA_OK);
        nla_fw_solve(ctx, obj, set, opt, x, &res);
        cr_assert(isfinite(g.gk), "variant %d stopped at %lld (gap %g) before k", v,
                  (long long)g.last, g.glast);
        if (isfinite(g.g2k))
            cr_assert_leq(g.g2k, 1e-3 * g.gk, "variant %d: gap(k) %g, gap(2k) %g", v,
                          g.gk, g.g2k);
        else
            cr_assert_leq(res.gap, 1e-3 * g.gk, "variant %d: gap(k) %g, final %g", v,
                          g.gk, res.gap);
        nla_fw_options_destroy(opt);
    }
    free(x);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
    planted_free(&p);
}

/* ---------------------------------------------------- sublinear bound */

struct sub_check { double fstar, C; int64_t bad; int64_t first_bad; };

static int sublinear_cb(const nla_fw_state *s, void *user)
{
    struct sub_check *c = user;
    if (s->t >= 1 && s->f - c->fstar > c->C / ((double)s->t + 2)) {
        if (!c->bad)
            c->first_bad = s->t;
        c->bad++;
    }
    return 0;
}

Test(fw, agnostic_sublinear_bound)
{
    struct planted p = plant_simplex(40, 20, 61, 3);
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    nla_fw_options *opt = options(NLA_FW_VANILLA, NLA_FW_AGNOSTIC, 0, 0, 3000);
    struct sub_check c = { p.fstar, 2 * p.L * 2.0, 0, -1 };   /* D^2 = 2 */
    double *x = dalloc((size_t)p.n);
    nla_fw_result res;

    planted_objects(&p, &obj, &set);
    cr_assert_eq(nla_fw_options_set_callback(opt, sublinear_cb, &c), NLA_OK);
    x[p.n - 1] = 1;
    cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_EMAXITER);
    cr_assert_eq(res.iterations, 3000);
    cr_assert_eq(c.bad, 0, "bound broken %lld times, first at t = %lld", (long long)c.bad,
                 (long long)c.first_bad);
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
    planted_free(&p);
    free(x);
}

/* ------------------------------------------------ LMOs vs brute force */

#define NV 4
#define MAXVERT 64

struct vlist { int count; double v[MAXVERT][NV]; };

static void vpush(struct vlist *l, const double *v)
{
    cr_assert_lt(l->count, MAXVERT);
    memcpy(l->v[l->count++], v, NV * sizeof(double));
}

/* the vertices of each set in R^4 (r = 1.5; box [lo, hi]; k = 2) */
static void vertices(int kind, struct vlist *l, const double *lo, const double *hi)
{
    double r = 1.5, v[NV];
    l->count = 0;
    switch (kind) {
    case 0: case 1: case 2:          /* prob simplex, unit simplex, L1 */
        if (kind == 1) {
            memset(v, 0, sizeof v);
            vpush(l, v);
        }
        for (int i = 0; i < NV; i++)
            for (int sg = 0; sg < (kind == 2 ? 2 : 1); sg++) {
                memset(v, 0, sizeof v);
                v[i] = sg ? -r : r;
                vpush(l, v);
            }
        break;
    case 3: case 4:                  /* L-inf, box */
        for (int mask = 0; mask < 1 << NV; mask++) {
            for (int i = 0; i < NV; i++)
                v[i] = kind == 3 ? (mask >> i & 1 ? r : -r) : (mask >> i & 1 ? hi[i] : lo[i]);
            vpush(l, v);
        }
        break;
    case 5:                          /* ksparse, k = 2 */
        for (int i = 0; i < NV; i++)
            for (int j = i + 1; j < NV; j++)
                for (int sg = 0; sg < 4; sg++) {
                    memset(v, 0, sizeof v);
                    v[i] = sg & 1 ? -r : r;
                    v[j] = sg & 2 ? -r : r;
                    vpush(l, v);
                }
        break;
    }
}

/* A user LMO: the brute force itself over the unit simplex's vertices. */
static void user_lmo(int64_t n, const double *g, double *v, void *user)
{
    (void)user;
    memset(v, 0, (size_t)n * sizeof(double));
    v[0] = 1.5;
    for (int64_t i = 1; i < n; i++)
        if (g[i] < g[0] && g[i] < ddot(g, v, n) / 1.5) {
            memset(v, 0, (size_t)n * sizeof(double));
            v[i] = 1.5;
        }
}

Test(fw, every_lmo_against_brute_force)
{
    static const double dirs[][NV] = {
        { 0.3, -1.2, 0.7, 0.1 },  { -0.5, 0.25, 2.0, -0.75 },   /* generic */
        { 1, -2, -2, 0.5 },       { -1, -1, -1, -1 },          /* ties */
        { 0.5, 0.5, -0.5, -0.5 }, { 2, -2, 2, -2 },            /* ties in |g| */
        { 0, 0, 0, 0 },                                       /* zero */
        { 1, 2, 3, 4 },           { -4, -3, -2, -1 },          /* all +, all - */
        { 0, 1, 0, -1 },                                      /* zeros and ties */
    };
    static const double lo[NV] = { -1, 0, 0.5, -2 }, hi[NV] = { 1, 0, 2, -1 };
    const char *names[] = { "prob_simplex", "unit_simplex", "l1_ball", "linf_ball", "box",
                            "ksparse", "user" };

    for (int kind = 0; kind < 7; kind++) {
        nla_fw_set *set = NULL;
        struct vlist l;
        switch (kind) {
        case 0: cr_assert_eq(nla_fw_set_create_prob_simplex(&set, NV, 1.5), NLA_OK); break;
        case 1: cr_assert_eq(nla_fw_set_create_unit_simplex(&set, NV, 1.5), NLA_OK); break;
        case 2: cr_assert_eq(nla_fw_set_create_l1_ball(&set, NV, 1.5), NLA_OK); break;
        case 3: cr_assert_eq(nla_fw_set_create_linf_ball(&set, NV, 1.5), NLA_OK); break;
        case 4: cr_assert_eq(nla_fw_set_create_box(&set, NV, lo, hi), NLA_OK); break;
        case 5: cr_assert_eq(nla_fw_set_create_ksparse(&set, NV, 2, 1.5), NLA_OK); break;
        case 6: cr_assert_eq(nla_fw_set_create_user(&set, NV, user_lmo, NULL), NLA_OK);
                break;
        }
        vertices(kind == 6 ? 0 : kind, &l, lo, hi);
        for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
            double v[NV], best = INFINITY, val;
            int member = 0;
            cr_assert_eq(nla_fw_set_lmo(ctx, set, dirs[d], v), NLA_OK);
            for (int k = 0; k < l.count; k++) {
                double s = ddot(dirs[d], l.v[k], NV);
                if (s < best)
                    best = s;
                member |= memcmp(v, l.v[k], sizeof v) == 0;
            }
            val = ddot(dirs[d], v, NV);
            cr_assert(member, "%s, direction %zu: the LMO's point is not a vertex",
                      names[kind], d);
            cr_assert_float_eq(val, best, 1e-15, "%s, direction %zu: <g,v> = %g, min %g",
                               names[kind], d, val, best);
        }
        nla_fw_set_destroy(set);
    }
}

Test(fw, nuclear_lmo_against_svd)
{
    enum { M = 5, C = 3 };
    double g[M * C], gs[M * C], s[C], v[M * C], zero[M * C] = {0};
    nla_fw_set *set = NULL;

    cr_assert_eq(nla_fw_set_create_nuclear_ball(&set, M, C, 2.0, 1e-15, 5000), NLA_OK);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        double val, fro = 0;
        ref_fill(g, M * C, 70 + seed);
        if (seed == 4)              /* a tie: sigma_1 == sigma_2 */
            for (int i = 0; i < M * C; i++)
                g[i] = (i % (M + 1) == 0) ? 1.0 : 0.0;
        memcpy(gs, g, sizeof g);
        cr_assert_eq(LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'N', M, C, gs, M, s, NULL, 1, NULL,
                                    1), 0);
        cr_assert_eq(nla_fw_set_lmo(ctx, set, g, v), NLA_OK);
        val = ddot(g, v, M * C);
        for (int i = 0; i < M * C; i++)
            fro += v[i] * v[i];
        cr_assert_float_eq(val, -2.0 * s[0], 1e-10, "seed %d: <G,V> = %.17g, -r sigma1 = "
                           "%.17g", (int)seed, val, -2.0 * s[0]);
        cr_assert_float_eq(sqrt(fro), 2.0, 1e-12);   /* rank one: |V|_* = |V|_F = r */
    }
    cr_assert_eq(nla_fw_set_lmo(ctx, set, zero, v), NLA_OK);
    cr_assert_float_eq(v[0], -2.0, 0);
    nla_fw_set_destroy(set);
}
