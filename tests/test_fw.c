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
 *   - the built-in objectives against CBLAS;
 *   - bad input: infeasible start, mismatched sizes, NaN gradient, and each
 *     creation argument (status, message, nothing written).
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
            nla_fw_objective *obj = NULL;
            nla_fw_options *opt = options(NLA_FW_VANILLA, rules[r], 2.0, 1e-14, 100);
            struct trace tr = { 0, 0, {0}, {0} };
            nla_fw_result res;

            if (storage == 0)
                cr_assert_eq(nla_fw_objective_create_quad(&obj, N, q, N, NULL), NLA_OK);
            else if (storage == 1)
                cr_assert_eq(nla_fw_objective_create_quad_packed(&obj, NLA_UPPER, N, qp,
                                                                 NULL), NLA_OK);
            else
                cr_assert_eq(nla_fw_objective_create_quad_band(&obj, N, 0, qb, 1, NULL),
                             NLA_OK);
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

/* ---------------------------------------------- objectives against CBLAS */

Test(fw, builtin_objectives_against_cblas)
{
    enum { M = 9, N = 7, KL = 2, KU = 1, K = 2 };
    double a[M * N], ab[(KL + KU + 1) * N], b[M], x[N], r[M], gref[N], g[N], f, fref;
    double q[N * N], qp[N * (N + 1) / 2], qb[(2 * K + 1) * N], c[N], xm[M], gm[M];
    double s[M * M], sp[M * (M + 1) / 2];
    nla_fw_objective *obj = NULL;

    ref_fill(a, M * N, 81);
    ref_fill(b, M, 82);
    ref_fill(x, N, 83);
    ref_fill(c, N, 84);
    /* band: zero A outside the band first, so dense and band agree */
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++)
            if (i - j > KL || j - i > KU)
                a[i + j * M] = 0;
    cr_assert_eq(nla_dband_pack(M, N, KL, KU, a, M, ab, KL + KU + 1), NLA_OK);
    memcpy(r, b, sizeof r);
    cblas_dgemv(CblasColMajor, CblasNoTrans, M, N, 1.0, a, M, x, 1, -1.0, r, 1);
    cblas_dgemv(CblasColMajor, CblasTrans, M, N, 1.0, a, M, r, 1, 0.0, gref, 1);
    fref = 0.5 * ddot(r, r, M);
    for (int kind = 0; kind < 2; kind++) {
        if (kind == 0)
            cr_assert_eq(nla_fw_objective_create_lsq(&obj, M, N, a, M, b), NLA_OK);
        else
            cr_assert_eq(nla_fw_objective_create_lsq_band(&obj, M, N, KL, KU, ab,
                                                          KL + KU + 1, b), NLA_OK);
        cr_assert_eq(nla_fw_objective_dim(obj), N);
        cr_assert_eq(nla_fw_objective_eval(ctx, obj, x, &f, g), NLA_OK);
        cr_assert_float_eq(f, fref, 1e-13);
        cr_assert_leq(ref_max_diff(g, gref, N), 1e-13);
        nla_fw_objective_destroy(obj);
    }
    /* packed symmetric least squares */
    ref_fill(s, M * M, 85);
    for (int j = 0; j < M; j++)
        for (int i = 0; i < j; i++)
            s[j + i * M] = s[i + j * M];
    cr_assert_eq(nla_dpacked_pack(NLA_LOWER, M, s, M, sp), NLA_OK);
    ref_fill(xm, M, 86);
    memcpy(r, b, sizeof r);
    cblas_dgemv(CblasColMajor, CblasNoTrans, M, M, 1.0, s, M, xm, 1, -1.0, r, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, M, M, 1.0, s, M, r, 1, 0.0, gm, 1);
    cr_assert_eq(nla_fw_objective_create_lsq_packed(&obj, NLA_LOWER, M, sp, b), NLA_OK);
    {
        double gg[M];
        cr_assert_eq(nla_fw_objective_eval(ctx, obj, xm, &f, gg), NLA_OK);
        cr_assert_float_eq(f, 0.5 * ddot(r, r, M), 1e-13);
        cr_assert_leq(ref_max_diff(gg, gm, M), 1e-13);
    }
    nla_fw_objective_destroy(obj);
    /* quadratics: Q symmetric with bandwidth K */
    ref_fill(q, N * N, 87);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            if (abs(i - j) > K)
                q[i + j * N] = 0;
            else if (i > j)
                q[i + j * N] = q[j + i * N];
    cr_assert_eq(nla_dpacked_pack(NLA_UPPER, N, q, N, qp), NLA_OK);
    cr_assert_eq(nla_dband_pack(N, N, K, K, q, N, qb, 2 * K + 1), NLA_OK);
    cblas_dgemv(CblasColMajor, CblasNoTrans, N, N, 1.0, q, N, x, 1, 0.0, gref, 1);
    fref = 0.5 * ddot(x, gref, N) + ddot(c, x, N);
    for (int i = 0; i < N; i++)
        gref[i] += c[i];
    for (int kind = 0; kind < 3; kind++) {
        if (kind == 0)
            cr_assert_eq(nla_fw_objective_create_quad(&obj, N, q, N, c), NLA_OK);
        else if (kind == 1)
            cr_assert_eq(nla_fw_objective_create_quad_packed(&obj, NLA_UPPER, N, qp, c),
                         NLA_OK);
        else
            cr_assert_eq(nla_fw_objective_create_quad_band(&obj, N, K, qb, 2 * K + 1, c),
                         NLA_OK);
        cr_assert_eq(nla_fw_objective_eval(ctx, obj, x, &f, g), NLA_OK);
        cr_assert_float_eq(f, fref, 1e-13);
        cr_assert_leq(ref_max_diff(g, gref, N), 1e-13);
        nla_fw_objective_destroy(obj);
    }
}

/* The same solve through dense, band and packed storage: same iterates.
   A quadratic over a box with packed and band Q; every vertex is dense. */
Test(fw, storage_forms_agree_in_a_solve)
{
    enum { N = 10, K = 1 };
    double q[N * N] = {0}, qp[N * (N + 1) / 2], qb[(2 * K + 1) * N], c[N], lo[N], hi[N];
    double x[3][N];
    nla_fw_set *set = NULL;

    for (int i = 0; i < N; i++) {
        q[i + i * N] = 4;
        if (i + 1 < N)
            q[i + (i + 1) * N] = q[i + 1 + i * N] = -1;
        lo[i] = -1;
        hi[i] = 0.5 + 0.1 * i;
    }
    ref_fill(c, N, 91);
    cr_assert_eq(nla_dpacked_pack(NLA_UPPER, N, q, N, qp), NLA_OK);
    cr_assert_eq(nla_dband_pack(N, N, K, K, q, N, qb, 2 * K + 1), NLA_OK);
    cr_assert_eq(nla_fw_set_create_box(&set, N, lo, hi), NLA_OK);
    for (int kind = 0; kind < 3; kind++) {
        nla_fw_objective *obj = NULL;
        nla_fw_options *opt = options(NLA_FW_AWAY, NLA_FW_EXACT, 0, 1e-12, 5000);
        nla_fw_result res;
        if (kind == 0)
            cr_assert_eq(nla_fw_objective_create_quad(&obj, N, q, N, c), NLA_OK);
        else if (kind == 1)
            cr_assert_eq(nla_fw_objective_create_quad_packed(&obj, NLA_UPPER, N, qp, c),
                         NLA_OK);
        else
            cr_assert_eq(nla_fw_objective_create_quad_band(&obj, N, K, qb, 2 * K + 1, c),
                         NLA_OK);
        memset(x[kind], 0, sizeof x[kind]);
        cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x[kind], &res), NLA_OK, "%s",
                     nla_context_error(ctx));
        nla_fw_options_destroy(opt);
        nla_fw_objective_destroy(obj);
    }
    cr_assert_leq(ref_max_diff(x[0], x[1], N), 1e-9);
    cr_assert_leq(ref_max_diff(x[0], x[2], N), 1e-9);
    nla_fw_set_destroy(set);
}

/* ------------------------------------------ stopping, callback, verbose */

static double sq_fn(int64_t n, const double *x, double *grad, void *user)
{
    (void)user;
    if (grad)
        for (int64_t i = 0; i < n; i++)
            grad[i] = 2 * x[i];
    return ddot(x, x, n);
}

static int stop_at_3(const nla_fw_state *s, void *user)
{
    *(double *)user = s->f;
    return s->t == 3;
}

Test(fw, callback_stop_time_limit_and_verbose)
{
    enum { N = 50 };
    double x[N] = {0};
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    nla_fw_options *opt = options(NLA_FW_VANILLA, NLA_FW_AGNOSTIC, 0, 0, 1000000000);
    nla_fw_result res;
    FILE *log = tmpfile();
    char line[256];
    int rows = 0;
    double f3 = NAN;

    cr_assert(log);
    cr_assert_eq(nla_fw_objective_create_user(&obj, N, sq_fn, NULL), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, N, 1.0), NLA_OK);
    /* callback stop: NLA_OK, x = x_3 */
    cr_assert_eq(nla_fw_options_set_callback(opt, stop_at_3, &f3), NLA_OK);
    x[0] = 1;
    cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_OK);
    cr_assert_eq(res.stop, NLA_FW_STOP_CALLBACK);
    cr_assert_eq(res.iterations, 3);
    cr_assert_eq(res.f, f3);    /* x_3, not stepped from */
    /* time limit: NLA_EMAXITER, a usable x */
    cr_assert_eq(nla_fw_options_set_callback(opt, NULL, NULL), NLA_OK);
    cr_assert_eq(nla_fw_options_set_time_limit(opt, 0.05), NLA_OK);
    cr_assert_eq(nla_fw_options_set_verbose(opt, log, 1000), NLA_OK);
    memset(x, 0, sizeof x);
    x[0] = 1;
    cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_EMAXITER);
    cr_assert_eq(res.stop, NLA_FW_STOP_TIME);
    cr_assert_geq(res.time_s, 0.05);
    cr_assert_lt(res.time_s, 1.0);
    cr_assert_lt(res.f, 1.0 / N + 1e-3);
    rewind(log);
    while (fgets(line, sizeof line, log))
        rows++;
    /* header, a row per 1000 iterations from 0, the final row */
    cr_assert_eq(rows, 2 + (res.iterations + 999) / 1000, "%d rows, %lld iterations", rows,
                 (long long)res.iterations);
    fclose(log);
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
}

/* ------------------------------------------------------------ bad input */

struct nan_after { int calls, limit; };

static double nan_fn(int64_t n, const double *x, double *grad, void *user)
{
    struct nan_after *c = user;
    double f = sq_fn(n, x, grad, NULL);
    if (grad && ++c->calls > c->limit)
        grad[1] = NAN;
    return f;
}

struct last_x { double x[8]; int64_t t; };

static int record_x(const nla_fw_state *s, void *user)
{
    struct last_x *l = user;
    memcpy(l->x, s->x, (size_t)s->n * sizeof(double));
    l->t = s->t;
    return 0;
}

Test(fw, nan_gradient_keeps_last_finite_iterate)
{
    enum { N = 8 };
    struct nan_after c = { 0, 4 };
    struct last_x l;
    double x[N] = {0}, x0[N];
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    nla_fw_options *opt = options(NLA_FW_PAIRWISE, NLA_FW_SHORT_STEP, 2.0, 0, 100);
    nla_fw_result res;

    cr_assert_eq(nla_fw_objective_create_user(&obj, N, nan_fn, &c), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, N, 1.0), NLA_OK);
    cr_assert_eq(nla_fw_options_set_callback(opt, record_x, &l), NLA_OK);
    x[0] = 1;
    cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_ENUMERIC);
    cr_assert_eq(res.status, NLA_ENUMERIC);
    cr_assert_eq(res.stop, NLA_FW_STOP_NUMERIC);
    cr_assert_eq(res.iterations, 3);
    cr_assert_eq(l.t, 3);
    cr_assert_eq(memcmp(x, l.x, sizeof x), 0, "x is not the last finite iterate");
    cr_assert(isfinite(res.f));
    cr_assert_neq(strstr(nla_context_error(ctx), "nla_fw_solve"), NULL);
    /* NaN at the start: x untouched */
    c.calls = 0;
    c.limit = 0;
    memset(x, 0, sizeof x);
    x[2] = 1;
    memcpy(x0, x, sizeof x);
    cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_ENUMERIC);
    cr_assert_eq(res.iterations, 0);
    cr_assert_eq(memcmp(x, x0, sizeof x), 0);
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
}

/* status EINVAL, message "routine: ..." naming the argument */
#define EXPECT_EINVAL(call, routine, arg)                                         \
    do {                                                                          \
        nla_status st_ = (call);                                                  \
        const char *msg_ = nla_last_error();                                      \
        cr_assert_eq(st_, NLA_EINVAL, "%s: status %d", #call, (int)st_);          \
        cr_assert_eq(strncmp(msg_, routine ": ", strlen(routine) + 2), 0,         \
                     "%s: message '%s'", #call, msg_);                            \
        cr_assert_neq(strstr(msg_ + strlen(routine) + 2, arg), NULL,              \
                      "%s: message '%s' does not name %s", #call, msg_, arg);     \
    } while (0)

Test(fw, bad_input_solve)
{
    enum { N = 6 };
    double a[3 * N], b[3], x[N], x0[N];
    nla_fw_objective *obj = NULL, *obj5 = NULL, *user = NULL;
    nla_fw_set *set = NULL, *l1 = NULL, *nuc = NULL;
    nla_fw_options *opt = options(NLA_FW_VANILLA, NLA_FW_EXACT, 0, 1e-7, 10);
    nla_fw_result res, res0;

    ref_fill(a, 3 * N, 101);
    ref_fill(b, 3, 102);
    cr_assert_eq(nla_fw_objective_create_lsq(&obj, 3, N, a, 3, b), NLA_OK);
    cr_assert_eq(nla_fw_objective_create_lsq(&obj5, 3, N - 1, a, 3, b), NLA_OK);
    cr_assert_eq(nla_fw_objective_create_user(&user, N, sq_fn, NULL), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, N, 1.0), NLA_OK);
    cr_assert_eq(nla_fw_set_create_l1_ball(&l1, N, 1.0), NLA_OK);
    cr_assert_eq(nla_fw_set_create_nuclear_ball(&nuc, 2, 3, 1.0, 1e-12, 100), NLA_OK);
    memset(&res0, 0x5a, sizeof res0);

    /* infeasible starts: x and res untouched */
    {
        static const double bad[4][N] = {
            { 0.5, 0.4, 0, 0, 0, 0 },          /* sum 0.9 */
            { 1.5, -0.5, 0, 0, 0, 0 },         /* negative */
            { NAN, 1, 0, 0, 0, 0 },            /* not finite */
            { 0.5, 0.5, 0.5, -0.5, 0, 0 },     /* |x|_1 = 2 (for the L1 ball) */
        };
        for (int k = 0; k < 4; k++) {
            memcpy(x, bad[k], sizeof x);
            memcpy(x0, x, sizeof x);
            res = res0;
            EXPECT_EINVAL(nla_fw_solve(ctx, obj, k == 3 ? l1 : set, opt, x, &res),
                          "nla_fw_solve", "x");
            cr_assert_eq(memcmp(x, x0, sizeof x), 0);
            cr_assert_eq(memcmp(&res, &res0, sizeof res), 0);
            cr_assert_str_eq(nla_context_error(ctx), nla_last_error());
        }
    }
    /* mismatched sizes */
    memset(x, 0, sizeof x);
    x[0] = 1;
    memcpy(x0, x, sizeof x);
    res = res0;
    EXPECT_EINVAL(nla_fw_solve(ctx, obj5, set, opt, x, &res), "nla_fw_solve", "obj");
    cr_assert_neq(strstr(nla_last_error(), "set"), NULL);
    cr_assert_eq(memcmp(x, x0, sizeof x), 0);
    cr_assert_eq(memcmp(&res, &res0, sizeof res), 0);
    /* exact line search with a user objective */
    EXPECT_EINVAL(nla_fw_solve(ctx, user, set, opt, x, &res), "nla_fw_solve", "opt");
    cr_assert_eq(memcmp(x, x0, sizeof x), 0);
    /* NULLs */
    EXPECT_EINVAL(nla_fw_solve(NULL, obj, set, opt, x, &res), "nla_fw_solve", "ctx");
    EXPECT_EINVAL(nla_fw_solve(ctx, NULL, set, opt, x, &res), "nla_fw_solve", "obj");
    EXPECT_EINVAL(nla_fw_solve(ctx, obj, NULL, opt, x, &res), "nla_fw_solve", "set");
    EXPECT_EINVAL(nla_fw_solve(ctx, obj, set, opt, NULL, &res), "nla_fw_solve", "x");
    cr_assert_eq(memcmp(&res, &res0, sizeof res), 0);
    /* a feasible start and NULL options/res work */
    cr_assert_neq(nla_fw_solve(ctx, obj, set, NULL, x, NULL), NLA_EINVAL);
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(set);
    nla_fw_set_destroy(l1);
    nla_fw_set_destroy(nuc);
    nla_fw_objective_destroy(obj);
    nla_fw_objective_destroy(obj5);
    nla_fw_objective_destroy(user);
}

Test(fw, infeasible_nuclear_start)
{
    double y[6] = {0}, xm[6] = { 0.9, 0, 0, 0.9, 0, 0 }, xm0[6], ones[6] = {1, 1, 1, 1, 1, 1};
    nla_fw_objective *obj = NULL;
    nla_fw_set *nuc = NULL;

    cr_assert_eq(nla_fw_objective_create_lsq_band(&obj, 6, 6, 0, 0, ones, 1, y), NLA_OK);
    cr_assert_eq(nla_fw_set_create_nuclear_ball(&nuc, 2, 3, 1.0, 1e-12, 100), NLA_OK);
    memcpy(xm0, xm, sizeof xm);
    /* |X|_F = 1.27 > 1 */
    EXPECT_EINVAL(nla_fw_solve(ctx, obj, nuc, NULL, xm, NULL), "nla_fw_solve", "x");
    /* |X|_F = 0.99 <= 1 but |X|_* = 1.4 > 1: needs the singular values */
    xm[0] = xm[3] = 0.7;
    memcpy(xm0, xm, sizeof xm);
    EXPECT_EINVAL(nla_fw_solve(ctx, obj, nuc, NULL, xm, NULL), "nla_fw_solve", "|X|_*");
    cr_assert_eq(memcmp(xm, xm0, sizeof xm), 0);
    /* |X|_* = 0.98: feasible */
    xm[0] = xm[3] = 0.49;
    cr_assert_neq(nla_fw_solve(ctx, obj, nuc, NULL, xm, NULL), NLA_EINVAL, "%s",
                  nla_last_error());
    nla_fw_set_destroy(nuc);
    nla_fw_objective_destroy(obj);
}

/* A failed create leaves its handle output NULL (nla(3)), whatever it held. */
#define FAIL_CREATE(out, sentinel, call, routine, arg)                            \
    do {                                                                          \
        (out) = (sentinel);                                                       \
        EXPECT_EINVAL(call, routine, arg);                                        \
        cr_assert_null((out), "%s: handle not NULL after a failure", #call);      \
    } while (0)
#define FAIL_SET(call, routine, arg) FAIL_CREATE(s, sentinel_s, call, routine, arg)
#define FAIL_OBJ(call, routine, arg) FAIL_CREATE(o, sentinel_o, call, routine, arg)

Test(fw, bad_input_creation)
{
    double v[4] = { 0, 1, 2, 3 }, lo[2] = { 0, 1 }, hi[2] = { 1, 0 }, inf2[2] = { 0, INFINITY };
    nla_fw_set *const sentinel_s = (nla_fw_set *)(uintptr_t)0x1234;
    nla_fw_objective *const sentinel_o = (nla_fw_objective *)(uintptr_t)0x1234;
    nla_fw_set *s = sentinel_s;
    nla_fw_objective *o = sentinel_o;
    nla_fw_options *opt = NULL;

    EXPECT_EINVAL(nla_fw_set_create_prob_simplex(NULL, 4, 1), "nla_fw_set_create_prob_simplex", "set");
    FAIL_SET(nla_fw_set_create_prob_simplex(&s, 0, 1), "nla_fw_set_create_prob_simplex", "n");
    FAIL_SET(nla_fw_set_create_unit_simplex(&s, -3, 1), "nla_fw_set_create_unit_simplex", "n");
    FAIL_SET(nla_fw_set_create_l1_ball(&s, 4, 0), "nla_fw_set_create_l1_ball", "r");
    FAIL_SET(nla_fw_set_create_linf_ball(&s, 4, NAN), "nla_fw_set_create_linf_ball", "r");
    FAIL_SET(nla_fw_set_create_linf_ball(&s, 4, -1), "nla_fw_set_create_linf_ball", "r");
    FAIL_SET(nla_fw_set_create_box(&s, 2, lo, hi), "nla_fw_set_create_box", "lo[1]");
    FAIL_SET(nla_fw_set_create_box(&s, 2, lo, inf2), "nla_fw_set_create_box", "hi[1]");
    FAIL_SET(nla_fw_set_create_box(&s, 2, NULL, hi), "nla_fw_set_create_box", "lo");
    FAIL_SET(nla_fw_set_create_ksparse(&s, 4, 5, 1), "nla_fw_set_create_ksparse", "k");
    FAIL_SET(nla_fw_set_create_ksparse(&s, 4, 0, 1), "nla_fw_set_create_ksparse", "k");
    FAIL_SET(nla_fw_set_create_nuclear_ball(&s, 0, 3, 1, 1e-9, 10),
             "nla_fw_set_create_nuclear_ball", "m");
    FAIL_SET(nla_fw_set_create_nuclear_ball(&s, 2, 3, 1, 0, 10),
             "nla_fw_set_create_nuclear_ball", "tol");
    FAIL_SET(nla_fw_set_create_nuclear_ball(&s, 2, 3, 1, 1e-9, 0),
             "nla_fw_set_create_nuclear_ball", "max_iter");
    FAIL_SET(nla_fw_set_create_nuclear_ball(&s, INT64_MAX / 2, 3, 1, 1e-9, 10),
             "nla_fw_set_create_nuclear_ball", "m*n");
    FAIL_SET(nla_fw_set_create_user(&s, 4, NULL, NULL), "nla_fw_set_create_user", "lmo");

    FAIL_OBJ(nla_fw_objective_create_user(&o, 4, NULL, NULL),
             "nla_fw_objective_create_user", "f");
    FAIL_OBJ(nla_fw_objective_create_lsq(&o, 4, 1, v, 3, v),
             "nla_fw_objective_create_lsq", "lda");
    FAIL_OBJ(nla_fw_objective_create_lsq(&o, 0, 1, v, 3, v),
             "nla_fw_objective_create_lsq", "m");
    FAIL_OBJ(nla_fw_objective_create_lsq(&o, 2, 2, v, 2, NULL),
             "nla_fw_objective_create_lsq", "b");
    FAIL_OBJ(nla_fw_objective_create_lsq_band(&o, 4, 4, 1, 1, v, 2, v),
             "nla_fw_objective_create_lsq_band", "ldab");
    FAIL_OBJ(nla_fw_objective_create_lsq_band(&o, 4, 4, -1, 1, v, 2, v),
             "nla_fw_objective_create_lsq_band", "kl");
    FAIL_OBJ(nla_fw_objective_create_lsq_packed(&o, (nla_uplo)'X', 2, v, v),
             "nla_fw_objective_create_lsq_packed", "uplo");
    FAIL_OBJ(nla_fw_objective_create_quad(&o, 2, v, 1, NULL),
             "nla_fw_objective_create_quad", "ldq");
    FAIL_OBJ(nla_fw_objective_create_quad_packed(&o, NLA_UPPER, 2, NULL, NULL),
             "nla_fw_objective_create_quad_packed", "qp");
    FAIL_OBJ(nla_fw_objective_create_quad_band(&o, 2, 1, v, 2, NULL),
             "nla_fw_objective_create_quad_band", "ldqb");

    EXPECT_EINVAL(nla_fw_options_create(NULL), "nla_fw_options_create", "opt");
    cr_assert_eq(nla_fw_options_create(&opt), NLA_OK);
    EXPECT_EINVAL(nla_fw_options_set_variant(opt, (nla_fw_variant)7),
                  "nla_fw_options_set_variant", "v");
    EXPECT_EINVAL(nla_fw_options_set_step(opt, (nla_fw_step_rule)9, 1),
                  "nla_fw_options_set_step", "rule");
    EXPECT_EINVAL(nla_fw_options_set_step(opt, NLA_FW_SHORT_STEP, 0),
                  "nla_fw_options_set_step", "L");
    EXPECT_EINVAL(nla_fw_options_set_step(opt, NLA_FW_ADAPTIVE, -1),
                  "nla_fw_options_set_step", "L");
    EXPECT_EINVAL(nla_fw_options_set_tol(opt, -1e-3), "nla_fw_options_set_tol", "tol");
    EXPECT_EINVAL(nla_fw_options_set_tol(opt, NAN), "nla_fw_options_set_tol", "tol");
    EXPECT_EINVAL(nla_fw_options_set_max_iter(opt, -1), "nla_fw_options_set_max_iter",
                  "max_iter");
    EXPECT_EINVAL(nla_fw_options_set_time_limit(opt, -1), "nla_fw_options_set_time_limit",
                  "seconds");
    EXPECT_EINVAL(nla_fw_options_set_verbose(opt, stderr, 0), "nla_fw_options_set_verbose",
                  "every");
    EXPECT_EINVAL(nla_fw_options_set_tol(NULL, 1), "nla_fw_options_set_tol", "opt");
    nla_fw_options_destroy(opt);

    /* the LMO and eval entries */
    {
        nla_fw_set *set = NULL;
        double g[4] = { 1, NAN, 0, 0 }, out[4] = { 7, 7, 7, 7 };
        cr_assert_eq(nla_fw_set_create_prob_simplex(&set, 4, 1), NLA_OK);
        EXPECT_EINVAL(nla_fw_set_lmo(ctx, set, g, out), "nla_fw_set_lmo", "g[1]");
        EXPECT_EINVAL(nla_fw_set_lmo(ctx, set, v, NULL), "nla_fw_set_lmo", "v");
        EXPECT_EINVAL(nla_fw_set_lmo(NULL, set, v, out), "nla_fw_set_lmo", "ctx");
        cr_assert_eq(out[0], 7);
        cr_assert_eq(nla_fw_set_dim(set), 4);
        cr_assert_eq(nla_fw_set_dim(NULL), -1);
        nla_fw_set_destroy(set);
    }
    nla_fw_set_destroy(NULL);
    nla_fw_objective_destroy(NULL);
    nla_fw_options_destroy(NULL);
}
