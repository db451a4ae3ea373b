/*
 * test_fw_bpcg.c - blended pairwise (BPCG) and lazy Frank-Wolfe, the
 * defaults, and iterates that stay in the set:
 *   - planted least squares over the simplex (vertex and face optima):
 *     BPCG and the lazy away, pairwise and BPCG variants with every step
 *     rule reach f - f* <= 1e-9, with f - f* <= gap wherever the gap is
 *     fresh, x >= 0 and exact zeros off the active atoms;
 *   - the defaults (opt = NULL) solve the planted problems of test_fw.c
 *     (not the nuclear ball's) to f - f* <= 1e-10, and least squares over
 *     the simplex at 200 x 50;
 *   - the step kinds and LMO calls the callback sees; lazy variants call
 *     the LMO on under 20% of iterations once the active set has settled;
 *   - the gap reported is that of the x returned, after lazy steps too;
 *   - away and pairwise steps that drop atoms leave exact zeros;
 *   - the gradient by G = A'A and by products with A give the same solve;
 *   - NaN at the start point: NLA_ENUMERIC, x unchanged;
 *   - bad options: status, message naming the argument, nothing written.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
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

TestSuite(bpcg, .init = setup, .fini = teardown);

/* The FW gap at x of f = 1/2 |A x - b|^2 over the simplex of radius 1,
   from CBLAS: <g, x> - min_i g_i. */
static double lsq_simplex_gap(const double *a, const double *b, int64_t m, int64_t n,
                              const double *x)
{
    double *r = dalloc((size_t)m), *g = dalloc((size_t)n), gmin;
    memcpy(r, b, (size_t)m * sizeof(double));
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)m, (int)n, 1.0, a, (int)m, x, 1, -1.0, r,
                1);
    cblas_dgemv(CblasColMajor, CblasTrans, (int)m, (int)n, 1.0, a, (int)m, r, 1, 0.0, g, 1);
    gmin = g[0];
    for (int64_t i = 1; i < n; i++)
        gmin = fmin(gmin, g[i]);
    gmin = ddot(g, x, n) - gmin;
    free(r);
    free(g);
    return gmin;
}

/* x >= 0 everywhere, and its non-zeros number nnz (one per one-hot atom) */
static void expect_in_simplex(const double *x, int64_t n, int64_t nnz, const char *what)
{
    int64_t nz = 0;
    for (int64_t i = 0; i < n; i++) {
        cr_assert_geq(x[i], 0.0, "%s: x[%lld] = %g", what, (long long)i, x[i]);
        nz += x[i] != 0;
    }
    cr_assert_eq(nz, nnz, "%s: %lld non-zeros, %lld active atoms", what, (long long)nz,
                 (long long)nnz);
}

/* ------------------------------------------ what the callback is shown */

struct kinds {
    double fstar, slack;
    int64_t last_calls, steps, local, gap_steps, calls_late, steps_late, late_from;
    int64_t bad_calls, bad_bound, bad_kind;
    nla_fw_variant v;
    int lazy;
};

static int kinds_cb(const nla_fw_state *s, void *user)
{
    struct kinds *k = user;
    int64_t dc = s->lmo_calls - k->last_calls;

    /* non-lazy: one call an iteration; lazy: one for the steps that need
       the LMO's vertex, none for the others (a lazy drop may be either) */
    if (!k->lazy ? s->lmo_calls != s->t + 1
                 : (dc != 0 && dc != 1) ||
                       ((s->type == NLA_FW_STEP_LOCAL || s->type == NLA_FW_STEP_AWAY) &&
                        dc != 0) ||
                       ((s->type == NLA_FW_STEP_FW || s->type == NLA_FW_STEP_PAIRWISE ||
                         s->type == NLA_FW_STEP_GAP) && dc != 1))
        k->bad_calls++;
    /* the kinds each variant takes */
    if ((s->type == NLA_FW_STEP_GAP && !k->lazy) ||
        (s->type == NLA_FW_STEP_AWAY && k->v != NLA_FW_AWAY) ||
        (s->type == NLA_FW_STEP_PAIRWISE && k->v != NLA_FW_PAIRWISE) ||
        (s->type == NLA_FW_STEP_LOCAL && k->v == NLA_FW_AWAY && !k->lazy) ||
        (s->type == NLA_FW_STEP_GAP && s->gamma != 0))
        k->bad_kind++;
    /* f - f* <= gap where the gap is of this x */
    if (dc == 1 && s->f - k->fstar - s->gap > k->slack)
        k->bad_bound++;
    k->local += s->type == NLA_FW_STEP_LOCAL;
    k->gap_steps += s->type == NLA_FW_STEP_GAP;
    if (s->t >= k->late_from) {
        k->steps_late++;
        k->calls_late += dc;
    }
    k->last_calls = s->lmo_calls;
    k->steps++;
    return 0;
}

/* BPCG and the lazy variants, every rule, on planted vertex and face
   optima. */
static void planted_lazy_run(int nsupp)
{
    struct planted p = plant_simplex(40, 20, 11, nsupp);
    static const struct { nla_fw_variant v; int lazy; } vars[] = {
        { NLA_FW_BLENDED_PAIRWISE, 0 }, { NLA_FW_AWAY, 1 }, { NLA_FW_PAIRWISE, 1 },
        { NLA_FW_BLENDED_PAIRWISE, 1 }
    };
    static const nla_fw_step_rule rules[4] = { NLA_FW_AGNOSTIC, NLA_FW_SHORT_STEP,
                                               NLA_FW_ADAPTIVE, NLA_FW_EXACT };
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    double *x = dalloc((size_t)p.n);

    cr_assert_eq(nla_fw_objective_create_lsq(&obj, p.m, p.n, p.a, p.m, p.b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, p.n, 1.0), NLA_OK);
    for (int v = 0; v < 4; v++)
        for (int r = 0; r < 4; r++) {
            /* the agnostic rule is sublinear: a cap, and f - f* <= 1e-6 */
            int agn = rules[r] == NLA_FW_AGNOSTIC;
            nla_fw_options *opt = options(vars[v].v, rules[r], p.L, 1e-9, agn ? 20000 : 200000);
            struct kinds k = { p.fstar, 1e-13 * (1 + p.fstar), 0, 0, 0, 0, 0, 0, 0,
                               0, 0, 0, vars[v].v, vars[v].lazy };
            nla_fw_result res;
            nla_status st;
            char what[96];

            snprintf(what, sizeof what, "support %d, variant %d lazy %d, rule %d", nsupp,
                     vars[v].v, vars[v].lazy, r);
            cr_assert_eq(nla_fw_options_set_lazy(opt, vars[v].lazy), NLA_OK);
            cr_assert_eq(nla_fw_options_set_callback(opt, kinds_cb, &k), NLA_OK);
            memset(x, 0, (size_t)p.n * sizeof(double));
            x[0] = 1;
            st = nla_fw_solve(ctx, obj, set, opt, x, &res);
            cr_assert(st == NLA_OK || (agn && st == NLA_EMAXITER), "%s: %s", what,
                      nla_context_error(ctx));
            cr_assert(res.gap <= 1e-9 || agn, "%s", what);
            cr_assert_leq(res.f - p.fstar, agn ? 1e-6 : 1e-9, "%s: f - f* = %g after %lld "
                          "iterations", what, res.f - p.fstar, (long long)res.iterations);
            cr_assert_geq(res.f - p.fstar, -1e-12, "%s", what);
            cr_assert_leq(fabs(res.gap - lsq_simplex_gap(p.a, p.b, p.m, p.n, x)),
                          1e-12 * (1 + p.fstar), "%s: the gap is not x's", what);
            cr_assert_eq(k.bad_calls, 0, "%s: LMO calls miscounted %lld times", what,
                         (long long)k.bad_calls);
            cr_assert_eq(k.bad_kind, 0, "%s: %lld steps of a kind the variant does not take",
                         what, (long long)k.bad_kind);
            cr_assert_eq(k.bad_bound, 0, "%s: f - f* > gap %lld times", what,
                         (long long)k.bad_bound);
            cr_assert_eq(k.steps, res.iterations, "%s", what);
            cr_assert_eq(res.lmo_calls, k.last_calls + 1, "%s: %lld calls, the last "
                         "callback saw %lld", what, (long long)res.lmo_calls,
                         (long long)k.last_calls);
            expect_in_simplex(x, p.n, res.active_set_size, what);
            nla_fw_options_destroy(opt);
        }
    free(x);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
    planted_free(&p);
}

Test(bpcg, planted_vertex_every_lazy_variant_and_rule)
{
    planted_lazy_run(1);
}

Test(bpcg, planted_face_every_lazy_variant_and_rule)
{
    planted_lazy_run(3);
}

/* BPCG takes local steps on a face, and lazy BPCG skips the LMO on most
   iterations once its active set has settled (the second half of the
   solve): FrankWolfe.jl's reason for lazy steps. */
Test(bpcg, local_steps_and_lazy_calls)
{
    struct planted p = plant_simplex(200, 100, 51, 10);
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    double *x = dalloc((size_t)p.n);

    cr_assert_eq(nla_fw_objective_create_lsq(&obj, p.m, p.n, p.a, p.m, p.b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, p.n, 1.0), NLA_OK);
    for (int lazy = 0; lazy < 2; lazy++) {
        nla_fw_options *opt = options(NLA_FW_BLENDED_PAIRWISE, NLA_FW_ADAPTIVE, 0, 1e-12,
                                      100000);
        struct kinds k = { p.fstar, 1e-12 * (1 + p.fstar), 0, 0, 0, 0, 0, 0, 0,
                           0, 0, 0, NLA_FW_BLENDED_PAIRWISE, lazy };
        nla_fw_result res;
        cr_assert_eq(nla_fw_options_set_lazy(opt, lazy), NLA_OK);
        for (int i = 0; i < p.n; i++)
            x[i] = 1.0 / (double)p.n;
        /* count the LMO calls of the second half, from a first solve's length */
        cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_OK);
        k.late_from = res.iterations / 2;
        for (int i = 0; i < p.n; i++)
            x[i] = 1.0 / (double)p.n;
        cr_assert_eq(nla_fw_options_set_callback(opt, kinds_cb, &k), NLA_OK);
        cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_OK);
        cr_assert_eq(k.bad_calls + k.bad_kind + k.bad_bound, 0, "lazy %d", lazy);
        cr_assert_gt(k.local, 0, "lazy %d: no local step", lazy);
        cr_assert_leq(res.f - p.fstar, 1e-10, "lazy %d", lazy);
        if (lazy) {
            cr_assert_lt((double)k.calls_late, 0.2 * (double)k.steps_late,
                         "%lld LMO calls in the last %lld iterations", (long long)k.calls_late,
                         (long long)k.steps_late);
            cr_assert_lt(res.lmo_calls, res.iterations / 2);
        } else
            cr_assert_eq(res.lmo_calls, res.iterations + 1);
        nla_fw_options_destroy(opt);
    }
    free(x);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
    planted_free(&p);
}

/* ------------------------------------------------------------- defaults */

/* 1/2 |x|^2 - <c, x> with the optimum planted inside the L1 ball's face */
Test(bpcg, defaults_solve_every_planted_problem)
{
    static const struct { int64_t m, n; uint64_t seed; int nsupp; } lsq[] = {
        { 40, 20, 11, 1 }, { 40, 20, 11, 3 }, { 200, 100, 51, 10 }, { 40, 20, 61, 3 }
    };
    for (int c = 0; c < 4; c++) {
        struct planted p = plant_simplex(lsq[c].m, lsq[c].n, lsq[c].seed, lsq[c].nsupp);
        nla_fw_objective *obj = NULL;
        nla_fw_set *set = NULL;
        double *x = dalloc((size_t)p.n);
        nla_fw_result res;

        cr_assert_eq(nla_fw_objective_create_lsq(&obj, p.m, p.n, p.a, p.m, p.b), NLA_OK);
        cr_assert_eq(nla_fw_set_create_prob_simplex(&set, p.n, 1.0), NLA_OK);
        x[0] = 1;
        cr_assert_eq(nla_fw_solve(ctx, obj, set, NULL, x, &res), NLA_OK, "%lldx%lld: %s",
                     (long long)p.m, (long long)p.n, nla_context_error(ctx));
        cr_assert_leq(res.f - p.fstar, 1e-10, "%lldx%lld support %d: f - f* = %g after "
                      "%lld iterations", (long long)p.m, (long long)p.n, lsq[c].nsupp,
                      res.f - p.fstar, (long long)res.iterations);
        cr_assert_geq(res.active_set_size, 1, "the defaults take an active set here");
        expect_in_simplex(x, p.n, res.active_set_size, "defaults");
        free(x);
        nla_fw_set_destroy(set);
        nla_fw_objective_destroy(obj);
        planted_free(&p);
    }
}

/* test_fw.c's other planted problems with the defaults: |x|^2 over the
   simplex (f* = 1/n, dense, packed and band Q) and least squares over the
   L1 ball with a planted optimum on a face (x* with two non-zeros). */
Test(bpcg, defaults_solve_the_other_planted_problems)
{
    enum { N = 12, M = 30 };
    double q[N * N] = {0}, qp[N * (N + 1) / 2], qb[N], x[N], xs[N] = {0};
    double a[M * N], b[M], g[N], sg[N], r[M], fstar;
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    nla_fw_result res;

    for (int i = 0; i < N; i++) {
        q[i + i * N] = 2;
        qb[i] = 2;
    }
    cr_assert_eq(nla_dpacked_pack(NLA_UPPER, N, q, N, qp), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, N, 1.0), NLA_OK);
    for (int storage = 0; storage < 3; storage++) {
        cr_assert_eq(storage == 0   ? nla_fw_objective_create_quad(&obj, N, q, N, NULL)
                     : storage == 1 ? nla_fw_objective_create_quad_packed(&obj, NLA_UPPER,
                                                                          N, qp, NULL)
                                    : nla_fw_objective_create_quad_band(&obj, N, 0, qb, 1,
                                                                        NULL),
                     NLA_OK);
        memset(x, 0, sizeof x);
        x[0] = 1;
        cr_assert_eq(nla_fw_solve(ctx, obj, set, NULL, x, &res), NLA_OK);
        cr_assert_leq(res.f - 1.0 / N, 1e-10, "storage %d: f - f* = %g", storage,
                      res.f - 1.0 / N);
        nla_fw_objective_destroy(obj);
    }
    nla_fw_set_destroy(set);
    /* the L1 ball: -g* = 0.8 s with s in the subdifferential of |x|_1 at x* */
    ref_fill(a, M * N, 31);
    ref_fill(sg, N, 32);
    for (int i = 0; i < N; i++)
        sg[i] *= 0.5;
    xs[1] = 0.6;
    xs[4] = -0.4;
    sg[1] = 1;
    sg[4] = -1;
    for (int i = 0; i < N; i++)
        g[i] = -0.8 * sg[i];
    solve_at(a, M, N, g, r);
    cblas_dgemv(CblasColMajor, CblasNoTrans, M, N, 1.0, a, M, xs, 1, 0.0, b, 1);
    for (int i = 0; i < M; i++)
        b[i] -= r[i];
    fstar = 0.5 * ddot(r, r, M);
    cr_assert_eq(nla_fw_objective_create_lsq(&obj, M, N, a, M, b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_l1_ball(&set, N, 1.0), NLA_OK);
    memset(x, 0, sizeof x);
    cr_assert_eq(nla_fw_solve(ctx, obj, set, NULL, x, &res), NLA_OK, "%s",
                 nla_context_error(ctx));
    cr_assert_leq(res.f - fstar, 1e-10, "L1 ball: f - f* = %g", res.f - fstar);
    cr_assert_geq(res.active_set_size, 1);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
}

/* The problem the defaults once failed on: least squares over the
   simplex at 200 x 50, b = A x_p + noise, start e_1, opt = NULL. */
Test(bpcg, defaults_converge_on_least_squares)
{
    enum { M = 200, N = 50 };
    double *a = dalloc(M * N), *b = dalloc(M), *xp = dalloc(N), *x = dalloc(N), *noise = dalloc(M);
    double sum = 0;
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    nla_fw_result res;

    ref_fill(a, M * N, 71);
    ref_fill(xp, N, 72);
    ref_fill(noise, M, 73);
    for (int j = 0; j < N; j++)
        sum += (xp[j] = fabs(xp[j]));
    for (int j = 0; j < N; j++)
        xp[j] /= sum;
    cblas_dgemv(CblasColMajor, CblasNoTrans, M, N, 1.0, a, M, xp, 1, 0.0, b, 1);
    for (int i = 0; i < M; i++)
        b[i] += 0.1 * noise[i];
    cr_assert_eq(nla_fw_objective_create_lsq(&obj, M, N, a, M, b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, N, 1.0), NLA_OK);
    x[0] = 1;
    cr_assert_eq(nla_fw_solve(ctx, obj, set, NULL, x, &res), NLA_OK, "%s",
                 nla_context_error(ctx));
    cr_assert_leq(res.gap, 1e-7);
    cr_assert_lt(res.iterations, 5000, "%lld iterations", (long long)res.iterations);
    cr_assert_leq(fabs(res.gap - lsq_simplex_gap(a, b, M, N, x)), 1e-12);
    expect_in_simplex(x, N, res.active_set_size, "200x50");
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
    free(a);
    free(b);
    free(xp);
    free(x);
    free(noise);
}

/* NLA_FW_AUTO: an active set over the polytopes, vanilla over the nuclear
   ball and a user set. */
static void user_simplex_lmo(int64_t n, const double *g, double *v, void *user)
{
    int64_t k = 0;
    (void)user;
    for (int64_t i = 1; i < n; i++)
        if (g[i] < g[k])
            k = i;
    memset(v, 0, (size_t)n * sizeof(double));
    v[k] = 1;
}

Test(bpcg, defaults_choose_the_variant_by_set)
{
    enum { N = 12 };
    double q[N * N] = {0}, c[N], x[N], lo[N], hi[N];
    nla_fw_objective *obj = NULL;
    nla_fw_set *sets[6] = {0};
    int active[6] = { 1, 1, 1, 1, 0, 0 };
    nla_fw_result res;

    for (int i = 0; i < N; i++) {
        q[i + i * N] = 1 + i;
        c[i] = -0.3 * (i % 3);
        lo[i] = -1;
        hi[i] = 0.5;
    }
    cr_assert_eq(nla_fw_objective_create_quad(&obj, N, q, N, c), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&sets[0], N, 1), NLA_OK);
    cr_assert_eq(nla_fw_set_create_l1_ball(&sets[1], N, 1), NLA_OK);
    cr_assert_eq(nla_fw_set_create_box(&sets[2], N, lo, hi), NLA_OK);
    cr_assert_eq(nla_fw_set_create_ksparse(&sets[3], N, 2, 0.5), NLA_OK);
    cr_assert_eq(nla_fw_set_create_nuclear_ball(&sets[4], 3, 4, 1, 1e-12, 100), NLA_OK);
    cr_assert_eq(nla_fw_set_create_user(&sets[5], N, user_simplex_lmo, NULL), NLA_OK);
    for (int s = 0; s < 6; s++) {
        memset(x, 0, sizeof x);
        x[0] = s == 0 || s == 5 ? 1 : 0;
        cr_assert_eq(nla_fw_solve(ctx, obj, sets[s], NULL, x, &res), NLA_OK, "set %d: %s",
                     s, nla_context_error(ctx));
        cr_assert_eq(res.active_set_size > 0, active[s], "set %d: %lld atoms", s,
                     (long long)res.active_set_size);
        if (s == 2)   /* clamped into the box: exactly inside */
            for (int i = 0; i < N; i++)
                cr_assert(x[i] >= lo[i] && x[i] <= hi[i], "x[%d] = %.17g", i, x[i]);
        cr_assert_leq(res.gap, 1e-7);
        nla_fw_set_destroy(sets[s]);
    }
    nla_fw_objective_destroy(obj);
}

/* ------------------------------------------- the gap of the x returned */

struct stop_local { int64_t seen; };

/* some work an iteration, so that a 2 ms limit falls mid-solve */
static int slow_cb(const nla_fw_state *s, void *user)
{
    volatile double spin = 0;
    (void)user;
    for (int i = 0; i < 200000; i++)
        spin += s->time_s;
    return 0;
}

static int stop_at_local(const nla_fw_state *s, void *user)
{
    struct stop_local *k = user;
    return s->type == NLA_FW_STEP_LOCAL && ++k->seen == 3;
}

/* Lazy steps do not compute the gap; a solve stopped by max_iter or by the
   callback after one still reports the gap of the x it returns. */
Test(bpcg, gap_is_that_of_the_x_returned)
{
    struct planted p = plant_simplex(60, 30, 81, 5);
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    double *x = dalloc((size_t)p.n);
    nla_fw_result res;

    cr_assert_eq(nla_fw_objective_create_lsq(&obj, p.m, p.n, p.a, p.m, p.b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, p.n, 1.0), NLA_OK);
    for (int v = 0; v < 3; v++) {
        nla_fw_variant var = v == 0 ? NLA_FW_AWAY : v == 1 ? NLA_FW_PAIRWISE
                                                           : NLA_FW_BLENDED_PAIRWISE;
        for (int cap = 1; cap <= 40; cap += 3) {
            nla_fw_options *opt = options(var, NLA_FW_EXACT, 0, 0, cap);
            cr_assert_eq(nla_fw_options_set_lazy(opt, 1), NLA_OK);
            for (int i = 0; i < p.n; i++)
                x[i] = 1.0 / (double)p.n;
            cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_EMAXITER);
            cr_assert_eq(res.iterations, cap);
            cr_assert_leq(fabs(res.gap - lsq_simplex_gap(p.a, p.b, p.m, p.n, x)), 1e-12,
                          "variant %d, cap %d", var, cap);
            nla_fw_options_destroy(opt);
        }
        {
            /* the time limit after a lazy step calls the LMO too */
            nla_fw_options *opt = options(var, NLA_FW_EXACT, 0, 0, 1000000);
            cr_assert_eq(nla_fw_options_set_lazy(opt, 1), NLA_OK);
            cr_assert_eq(nla_fw_options_set_time_limit(opt, 2e-3), NLA_OK);
            cr_assert_eq(nla_fw_options_set_callback(opt, slow_cb, NULL), NLA_OK);
            for (int i = 0; i < p.n; i++)
                x[i] = 1.0 / (double)p.n;
            cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_EMAXITER);
            cr_assert_eq(res.stop, NLA_FW_STOP_TIME);
            cr_assert_leq(fabs(res.gap - lsq_simplex_gap(p.a, p.b, p.m, p.n, x)), 1e-12);
            nla_fw_options_destroy(opt);
        }
        {
            struct stop_local k = { 0 };
            nla_fw_options *opt = options(var, NLA_FW_EXACT, 0, 0, 10000);
            cr_assert_eq(nla_fw_options_set_lazy(opt, 1), NLA_OK);
            cr_assert_eq(nla_fw_options_set_callback(opt, stop_at_local, &k), NLA_OK);
            for (int i = 0; i < p.n; i++)
                x[i] = 1.0 / (double)p.n;
            cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_OK);
            cr_assert_eq(res.stop, NLA_FW_STOP_CALLBACK);
            cr_assert_eq(k.seen, 3, "variant %d took %lld local steps", var,
                         (long long)k.seen);
            cr_assert_leq(fabs(res.gap - lsq_simplex_gap(p.a, p.b, p.m, p.n, x)), 1e-12);
            cr_assert_leq(res.best_gap, res.gap);
            nla_fw_options_destroy(opt);
        }
    }
    free(x);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
    planted_free(&p);
}

/* ----------------------------------------------- exact zeros after drops */

/* Away and pairwise steps with the exact rule from e_1 drop atoms; x keeps
   exact zeros off the active atoms and no negative entry (x_0 fell to
   -7e-18 before x was rebuilt from the weights). */
Test(bpcg, drops_leave_exact_zeros)
{
    static const struct { int64_t m, n; uint64_t seed; int nsupp; } pr[] = {
        { 40, 20, 11, 3 }, { 200, 100, 51, 10 }, { 60, 30, 81, 5 }
    };
    char bad[2048] = "";
    for (int c = 0; c < 3; c++) {
        struct planted p = plant_simplex(pr[c].m, pr[c].n, pr[c].seed, pr[c].nsupp);
        nla_fw_objective *obj = NULL;
        nla_fw_set *set = NULL;
        double *x = dalloc((size_t)p.n);

        cr_assert_eq(nla_fw_objective_create_lsq(&obj, p.m, p.n, p.a, p.m, p.b), NLA_OK);
        cr_assert_eq(nla_fw_set_create_prob_simplex(&set, p.n, 1.0), NLA_OK);
        for (int v = 0; v < 3; v++) {
            nla_fw_variant var = v == 0 ? NLA_FW_AWAY : v == 1 ? NLA_FW_PAIRWISE
                                                               : NLA_FW_BLENDED_PAIRWISE;
            nla_fw_options *opt = options(var, NLA_FW_EXACT, 0, 1e-12, 100000);
            nla_fw_result res;
            char what[64];
            memset(x, 0, (size_t)p.n * sizeof(double));
            x[0] = 1;
            snprintf(what, sizeof what, "%lldx%lld, variant %d", (long long)p.m,
                     (long long)p.n, var);
            cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_OK, "%s", what);
            {
                int64_t nz = 0, neg = 0;
                for (int64_t i = 0; i < p.n; i++) {
                    nz += x[i] != 0;
                    neg += x[i] < 0;
                }
                if (nz != res.active_set_size || neg || x[0] != 0)
                    snprintf(bad + strlen(bad), sizeof bad - strlen(bad),
                             "\n%s: x[0] = %g, %lld non-zeros, %lld negative, %lld atoms",
                             what, x[0], (long long)nz, (long long)neg,
                             (long long)res.active_set_size);
            }
            nla_fw_options_destroy(opt);
        }
        free(x);
        nla_fw_set_destroy(set);
        nla_fw_objective_destroy(obj);
        planted_free(&p);
    }
    cr_assert_eq(bad[0], 0, "%s", bad);
}

/* ------------------------------------------- the gradient by G = A'A */

/* A verbose table's text (the "gram" row says G took over). */
static int verbose_says_gram(FILE *f)
{
    char line[256];
    int found = 0;
    rewind(f);
    while (fgets(line, sizeof line, f))
        found |= strstr(line, " gram ") != NULL;
    return found;
}

/* Least squares over sparse vertices carries its gradient by G = A'A after
   n/8 iterations; NLA_FW_GRAM=never|always forces each path, and both
   give the same solve, over the simplex, the L1 ball and the K-sparse
   polytope, for every variant. */
Test(bpcg, gram_and_products_agree)
{
    struct planted p = plant_simplex(200, 100, 51, 10);
    static const struct { nla_fw_variant v; nla_fw_step_rule r; int lazy; int64_t cap; } runs[] = {
        { NLA_FW_VANILLA, NLA_FW_AGNOSTIC, 0, 300 }, { NLA_FW_AWAY, NLA_FW_EXACT, 0, 20000 },
        { NLA_FW_PAIRWISE, NLA_FW_EXACT, 0, 20000 },
        { NLA_FW_BLENDED_PAIRWISE, NLA_FW_ADAPTIVE, 0, 20000 },
        { NLA_FW_BLENDED_PAIRWISE, NLA_FW_EXACT, 1, 20000 },
    };
    nla_fw_objective *obj = NULL;
    nla_fw_set *sets[4] = {0};
    double *x[2] = { dalloc((size_t)p.n), dalloc((size_t)p.n) };

    cr_assert_eq(nla_fw_objective_create_lsq(&obj, p.m, p.n, p.a, p.m, p.b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&sets[0], p.n, 1.0), NLA_OK);
    cr_assert_eq(nla_fw_set_create_l1_ball(&sets[1], p.n, 0.5), NLA_OK);
    cr_assert_eq(nla_fw_set_create_ksparse(&sets[2], p.n, 5, 0.1), NLA_OK);
    cr_assert_eq(nla_fw_set_create_unit_simplex(&sets[3], p.n, 0.5), NLA_OK);
    for (int s = 0; s < 4; s++)
        for (int r = 0; r < 5; r++) {
            nla_fw_result res[2];
            for (int mode = 0; mode < 2; mode++) {
                nla_fw_options *opt = options(runs[r].v, runs[r].r, 0, 1e-10, runs[r].cap);
                FILE *out = tmpfile();
                cr_assert(out);
                cr_assert_eq(setenv("NLA_FW_GRAM", mode ? "always" : "never", 1), 0);
                cr_assert_eq(nla_fw_options_set_lazy(opt, runs[r].lazy), NLA_OK);
                cr_assert_eq(nla_fw_options_set_verbose(opt, out, 1000), NLA_OK);
                memset(x[mode], 0, (size_t)p.n * sizeof(double));
                x[mode][0] = s == 0 ? 1 : 0;
                cr_assert_eq(nla_fw_solve(ctx, obj, sets[s], opt, x[mode], &res[mode]),
                             runs[r].cap == 300 ? NLA_EMAXITER : NLA_OK, "set %d run %d: %s",
                             s, r, nla_context_error(ctx));
                cr_assert_eq(verbose_says_gram(out), mode, "set %d run %d, mode %d", s, r,
                             mode);
                fclose(out);
                nla_fw_options_destroy(opt);
            }
            cr_assert_eq(res[0].stop, res[1].stop);
            cr_assert_leq(fabs(res[0].f - res[1].f), 1e-10 * (1 + fabs(res[0].f)),
                          "set %d run %d: f %.17g by products, %.17g by G", s, r, res[0].f,
                          res[1].f);
            if (runs[r].cap == 300)   /* the same steps */
                cr_assert_leq(ref_max_diff(x[0], x[1], p.n), 1e-9, "set %d: x differs by %g",
                              s, ref_max_diff(x[0], x[1], p.n));
            if (s == 0 && runs[r].cap > 300)
                cr_assert_leq(res[1].f - p.fstar, 1e-10, "run %d by G", r);
        }
    /* by default G takes over at iteration n/8 = 12 */
    unsetenv("NLA_FW_GRAM");
    {
        nla_fw_options *opt = options(NLA_FW_BLENDED_PAIRWISE, NLA_FW_EXACT, 0, 1e-10, 20000);
        FILE *out = tmpfile();
        char line[256];
        int at = -1;
        nla_fw_result res;
        cr_assert(out);
        cr_assert_eq(nla_fw_options_set_verbose(opt, out, 1000), NLA_OK);
        memset(x[0], 0, (size_t)p.n * sizeof(double));
        x[0][0] = 1;
        cr_assert_eq(nla_fw_solve(ctx, obj, sets[0], opt, x[0], &res), NLA_OK);
        cr_assert_gt(res.iterations, 12);
        rewind(out);
        while (fgets(line, sizeof line, out))
            if (strstr(line, " gram "))
                at = atoi(line);
        cr_assert_eq(at, 12, "G took over at %d", at);
        fclose(out);
        nla_fw_options_destroy(opt);
    }
    for (int s = 0; s < 4; s++)
        nla_fw_set_destroy(sets[s]);
    nla_fw_objective_destroy(obj);
    free(x[0]);
    free(x[1]);
    planted_free(&p);
}

/* ------------------------------------------------------------ bad input */

static double nan_f(int64_t n, const double *x, double *grad, void *user)
{
    (void)x;
    (void)user;
    if (grad)
        for (int64_t i = 0; i < n; i++)
            grad[i] = 1;
    return NAN;
}

/* NaN in A: f is NaN at the start point; then a user f that is NaN. */
Test(bpcg, nan_at_the_start_point)
{
    enum { M = 8, N = 5 };
    double a[M * N], b[M], x[N] = { 0, 1, 0, 0, 0 }, x0[N];
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;

    ref_fill(a, M * N, 91);
    ref_fill(b, M, 92);
    a[3 + 2 * M] = NAN;
    memcpy(x0, x, sizeof x);
    cr_assert_eq(nla_fw_objective_create_lsq(&obj, M, N, a, M, b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, N, 1.0), NLA_OK);
    for (int v = 0; v < 5; v++) {
        nla_fw_options *opt = NULL;
        nla_fw_result res;
        if (v < 4)
            opt = options((nla_fw_variant)v, NLA_FW_ADAPTIVE, 0, 1e-9, 100);
        memset(&res, 0, sizeof res);
        cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_ENUMERIC);
        cr_assert(strstr(nla_context_error(ctx), "start point"), "%s",
                  nla_context_error(ctx));
        cr_assert(strstr(nla_context_error(ctx), "x is unchanged"), "%s",
                  nla_context_error(ctx));
        cr_assert_eq(memcmp(x, x0, sizeof x), 0);
        cr_assert_eq(res.stop, NLA_FW_STOP_NUMERIC);
        cr_assert_eq(res.iterations, 0);
        cr_assert_eq(res.lmo_calls, 0);
        nla_fw_options_destroy(opt);
    }
    nla_fw_objective_destroy(obj);
    cr_assert_eq(nla_fw_objective_create_user(&obj, N, nan_f, NULL), NLA_OK);
    cr_assert_eq(nla_fw_solve(ctx, obj, set, NULL, x, NULL), NLA_ENUMERIC);
    cr_assert(strstr(nla_context_error(ctx), "start point"), "%s", nla_context_error(ctx));
    cr_assert_eq(memcmp(x, x0, sizeof x), 0);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
}

Test(bpcg, bad_options)
{
    enum { N = 4 };
    double q[N * N] = {0}, x[N] = { 1, 0, 0, 0 }, x0[N];
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    nla_fw_options *opt = NULL;
    nla_fw_result res, res0;

    for (int i = 0; i < N; i++)
        q[i + i * N] = 1;
    memcpy(x0, x, sizeof x);
    cr_assert_eq(nla_fw_objective_create_quad(&obj, N, q, N, NULL), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, N, 1.0), NLA_OK);
    cr_assert_eq(nla_fw_options_create(&opt), NLA_OK);
    cr_assert_eq(nla_fw_options_set_lazy(NULL, 1), NLA_EINVAL);
    cr_assert(strstr(nla_last_error(), "nla_fw_options_set_lazy: opt"), "%s",
              nla_last_error());
    for (int bad = -1; bad <= 2; bad += 3) {
        cr_assert_eq(nla_fw_options_set_lazy(opt, bad), NLA_EINVAL);
        cr_assert(strstr(nla_last_error(), "lazy"), "%s", nla_last_error());
    }
    cr_assert_eq(nla_fw_options_set_variant(opt, (nla_fw_variant)(NLA_FW_AUTO + 1)),
                 NLA_EINVAL);
    cr_assert(strstr(nla_last_error(), "NLA_FW_BLENDED_PAIRWISE"), "%s", nla_last_error());
    /* lazy with vanilla: refused at the solve, nothing written */
    cr_assert_eq(nla_fw_options_set_lazy(opt, 1), NLA_OK);
    cr_assert_eq(nla_fw_options_set_variant(opt, NLA_FW_VANILLA), NLA_OK);
    memset(&res, 0x5a, sizeof res);
    memcpy(&res0, &res, sizeof res);
    cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_EINVAL);
    cr_assert(strstr(nla_context_error(ctx), "lazy"), "%s", nla_context_error(ctx));
    cr_assert_eq(memcmp(&res, &res0, sizeof res), 0);
    cr_assert_eq(memcmp(x, x0, sizeof x), 0);
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
}

/* Lazy with NLA_FW_AUTO: lazy BPCG over a polytope (fewer LMO calls than
   iterations), plain vanilla over a user set (no active set, no error). */
Test(bpcg, lazy_with_the_default_variant)
{
    struct planted p = plant_simplex(40, 20, 11, 3);
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL, *user = NULL;
    nla_fw_options *opt = NULL;
    double *x = dalloc((size_t)p.n);
    nla_fw_result res;

    cr_assert_eq(nla_fw_objective_create_lsq(&obj, p.m, p.n, p.a, p.m, p.b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, p.n, 1.0), NLA_OK);
    cr_assert_eq(nla_fw_set_create_user(&user, p.n, user_simplex_lmo, NULL), NLA_OK);
    cr_assert_eq(nla_fw_options_create(&opt), NLA_OK);
    cr_assert_eq(nla_fw_options_set_lazy(opt, 1), NLA_OK);
    cr_assert_eq(nla_fw_options_set_tol(opt, 1e-10), NLA_OK);
    x[0] = 1;
    cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x, &res), NLA_OK, "%s",
                 nla_context_error(ctx));
    cr_assert_geq(res.active_set_size, 1);
    cr_assert_lt(res.lmo_calls, res.iterations, "%lld calls, %lld iterations: not lazy",
                 (long long)res.lmo_calls, (long long)res.iterations);
    cr_assert_leq(res.f - p.fstar, 1e-10);
    memset(x, 0, (size_t)p.n * sizeof(double));
    x[0] = 1;
    cr_assert_eq(nla_fw_options_set_max_iter(opt, 50), NLA_OK);
    cr_assert(nla_fw_solve(ctx, obj, user, opt, x, &res) != NLA_EINVAL, "%s",
              nla_context_error(ctx));
    cr_assert_eq(res.active_set_size, 0);
    cr_assert_eq(res.lmo_calls, res.iterations + (res.stop != NLA_FW_STOP_CALLBACK));
    free(x);
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(user);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
    planted_free(&p);
}
