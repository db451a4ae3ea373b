/*
 * test_fw_bpcg.c - blended pairwise (BPCG) and lazy Frank-Wolfe, and
 * iterates that stay in the set:
 *   - planted least squares over the simplex (vertex and face optima):
 *     BPCG and the lazy away, pairwise and BPCG variants with every step
 *     rule reach f - f* <= 1e-9, with f - f* <= gap wherever the gap is
 *     fresh, x >= 0 and exact zeros off the active atoms;
 *   - the step kinds and LMO calls the callback sees; lazy variants call
 *     the LMO on under 20% of iterations once the active set has settled;
 *   - the gap reported is that of the x returned, after lazy steps too;
 *   - away and pairwise steps that drop atoms leave exact zeros;
 *   - the gradient by G = A'A and by products with A give the same solve;
 *   - BPCG and the lazy variants on a quadratic with Q in dense, packed and
 *     band storage: the gap from CBLAS at the x returned, the same x;
 *   (the defaults and bad input: test_fw_defaults.c)
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

    planted_objects(&p, &obj, &set);
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

    planted_objects(&p, &obj, &set);
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

    planted_objects(&p, &obj, &set);
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

        planted_objects(&p, &obj, &set);
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

/* BPCG and the lazy away, pairwise and BPCG variants on a quadratic
   1/2 x'Qx + c'x over the simplex with Q tridiagonal (4, -1) in dense,
   packed and band storage: for each, the gap at the x returned,
   recomputed from CBLAS (g = Q x + c, <g, x> - min g), is at most 1e-9,
   x >= 0 with sum 1, and the three storages give the same x to 1e-9. */
Test(bpcg, every_storage_of_the_quadratic)
{
    enum { N = 40, K = 1 };
    static const struct { nla_fw_variant v; int lazy; } runs[] = {
        { NLA_FW_BLENDED_PAIRWISE, 0 }, { NLA_FW_AWAY, 1 }, { NLA_FW_PAIRWISE, 1 },
        { NLA_FW_BLENDED_PAIRWISE, 1 }
    };
    double q[N * N], qp[N * (N + 1) / 2], qb[(2 * K + 1) * N], c[N], x[3][N], g[N];
    nla_fw_set *set = NULL;

    tridiag_storages(N, q, qp, qb);
    ref_fill(c, N, 93);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, N, 1.0), NLA_OK);
    for (int r = 0; r < 4; r++) {
        for (int kind = 0; kind < 3; kind++) {
            nla_fw_objective *obj = quad_in_storage(kind, N, K, q, qp, qb, c);
            nla_fw_options *opt = options(runs[r].v, NLA_FW_ADAPTIVE, 0, 1e-10, 20000);
            nla_fw_result res;
            double gx, gmin = INFINITY, sum = 0;

            cr_assert_eq(nla_fw_options_set_lazy(opt, runs[r].lazy), NLA_OK);
            memset(x[kind], 0, sizeof x[kind]);
            x[kind][0] = 1;
            cr_assert_eq(nla_fw_solve(ctx, obj, set, opt, x[kind], &res), NLA_OK,
                         "run %d storage %d: %s", r, kind, nla_context_error(ctx));
            memcpy(g, c, sizeof g);
            cblas_dsymv(CblasColMajor, CblasUpper, N, 1.0, q, N, x[kind], 1, 1.0, g, 1);
            gx = ddot(g, x[kind], N);
            for (int i = 0; i < N; i++) {
                gmin = fmin(gmin, g[i]);
                sum += x[kind][i];
                cr_assert_geq(x[kind][i], 0, "run %d storage %d: x[%d] = %g", r, kind, i,
                              x[kind][i]);
            }
            cr_assert_leq(gx - gmin, 1e-9, "run %d storage %d: gap %g", r, kind, gx - gmin);
            cr_assert_leq(fabs(sum - 1), 1e-12, "run %d storage %d: sum %.17g", r, kind, sum);
            if (kind > 0)
                cr_assert_leq(ref_max_diff(x[kind], x[0], N), 1e-9, "run %d storage %d: x "
                              "differs from dense by %g", r, kind,
                              ref_max_diff(x[kind], x[0], N));
            nla_fw_objective_destroy(obj);
            nla_fw_options_destroy(opt);
        }
    }
    nla_fw_set_destroy(set);
}
