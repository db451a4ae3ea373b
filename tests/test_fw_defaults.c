/*
 * test_fw_defaults.c - Frank-Wolfe with the defaults, and bad input:
 *   - the defaults (opt = NULL) solve the planted problems of test_fw.c
 *     to f - f* <= 1e-10 (the nuclear ball's, where the default is BPCG
 *     with local steps: test_fw_matrix.c, with opt = NULL and with only
 *     tol set), and least squares over the simplex at 200 x 50 that they
 *     once failed on;
 *   - NLA_FW_AUTO: an active set over the polytopes and the nuclear ball,
 *     vanilla over a user set; with lazy steps, lazy BPCG or vanilla;
 *   - NaN at the start point: NLA_ENUMERIC, x unchanged;
 *   - bad options: status, message naming the argument, nothing written.
 */
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

TestSuite(fw_defaults, .init = setup, .fini = teardown);

/* ------------------------------------------------------------- defaults */

/* 1/2 |x|^2 - <c, x> with the optimum planted inside the L1 ball's face */
Test(fw_defaults, defaults_solve_every_planted_problem)
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

        planted_objects(&p, &obj, &set);
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

/* test_fw.c's least squares with its optimum inside the L1 ball: x* from
   dgels, radius 2 |x*|_1, f* = 1/2 |A x* - b|^2, from x = 0. */
static void inside_l1_ball(void)
{
    enum { M = L1_IN_M, N = L1_IN_N };
    double a[M * N], b[M], xl[M], x[N] = {0}, res_r[M], fstar, f, l1 = 0;
    double r = l1_inside_problem(a, b, xl);
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    nla_fw_result res;

    memcpy(res_r, b, sizeof b);
    cblas_dgemv(CblasColMajor, CblasNoTrans, M, N, 1.0, a, M, xl, 1, -1.0, res_r, 1);
    fstar = 0.5 * ddot(res_r, res_r, M);
    cr_assert_eq(nla_fw_objective_create_lsq(&obj, M, N, a, M, b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_l1_ball(&set, N, 2 * r), NLA_OK);
    cr_assert_eq(nla_fw_solve(ctx, obj, set, NULL, x, &res), NLA_OK, "%s",
                 nla_context_error(ctx));
    memcpy(res_r, b, sizeof b);      /* f at the returned x, and |x|_1 */
    cblas_dgemv(CblasColMajor, CblasNoTrans, M, N, 1.0, a, M, x, 1, -1.0, res_r, 1);
    f = 0.5 * ddot(res_r, res_r, M);
    for (int i = 0; i < N; i++)
        l1 += fabs(x[i]);
    cr_assert(f - fstar <= 1e-10 && f - fstar >= -1e-12 * (1 + fstar), "L1 ball, optimum "
              "inside: f - f* = %g after %lld iterations", f - fstar, (long long)res.iterations);
    cr_assert_leq(fabs(res.f - f), 1e-12 * (1 + f), "res.f %.17g, f(x) %.17g", res.f, f);
    cr_assert_leq(l1, 2 * r * (1 + 1e-12), "|x|_1 = %.17g, r = %.17g", l1, 2 * r);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
}

/* test_fw.c's other planted problems with the defaults: |x|^2 over the
   simplex (f* = 1/n, dense, packed and band Q), least squares over the
   L1 ball with a planted optimum on a face (x* with two non-zeros), and
   with the optimum inside (dgels's, radius twice its norm). */
Test(fw_defaults, defaults_solve_the_other_planted_problems)
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
        obj = quad_in_storage(storage, N, 0, q, qp, qb, NULL);
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
    inside_l1_ball();
}

/* The problem the defaults once failed on: least squares over the
   simplex at 200 x 50, b = A x_p + noise, start e_1, opt = NULL. */
Test(fw_defaults, defaults_converge_on_least_squares)
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

/* NLA_FW_AUTO: an active set over the polytopes and the nuclear ball,
   vanilla over a user set. */
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

Test(fw_defaults, defaults_choose_the_variant_by_set)
{
    enum { N = 12 };
    double q[N * N] = {0}, c[N], x[N], lo[N], hi[N];
    nla_fw_objective *obj = NULL;
    nla_fw_set *sets[6] = {0};
    int active[6] = { 1, 1, 1, 1, 1, 0 };   /* vanilla: the user set only */
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
Test(fw_defaults, nan_at_the_start_point)
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

Test(fw_defaults, bad_options)
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
Test(fw_defaults, lazy_with_the_default_variant)
{
    struct planted p = plant_simplex(40, 20, 11, 3);
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL, *user = NULL;
    nla_fw_options *opt = NULL;
    double *x = dalloc((size_t)p.n);
    nla_fw_result res;

    planted_objects(&p, &obj, &set);
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
