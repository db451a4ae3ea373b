/*
 * test_fw_quad.c - the user quadratic objective (f, its gradient and
 * Hessian products through callbacks) against the built-in objectives:
 *   - least squares over the simplex, every variant and step rule: the
 *     same stop, iteration count and iterates (1e-12) as the built-in
 *     lsq objective, with f and H d computed by CBLAS; hv called once an
 *     iteration and f only at the start and every 100th iteration.
 *     Pairwise steps with the exact rule are the exception: the exact
 *     step along v - a leaves <g, v> = <g, a>, a tie for the next away
 *     atom that rounding breaks either way, so there both must reach the
 *     tolerance at the same f (within the gap bound);
 *   - a quadratic over the L1 ball (exact, pairwise) against the built-in
 *     quad objective;
 *   - NaN in H d: NLA_ENUMERIC with x_t, the last finite iterate;
 *   - bad input: each creation argument, and the exact rule still refused
 *     for a plain user objective.
 */
#include <math.h>
#include <stdint.h>
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

TestSuite(fw_quad, .init = setup, .fini = teardown);

/* f = 1/2 |A x - b|^2 (lsq) or 1/2 x'Qx + c'x (Q = A, square), by CBLAS */
struct prob {
    int lsq;
    int64_t m, n;
    const double *a, *b;
    double *r;             /* m */
    int64_t f_calls, hv_calls, nan_at;
};

static double p_f(int64_t n, const double *x, double *grad, void *user)
{
    struct prob *p = user;
    double f;
    p->f_calls++;
    if (p->lsq) {
        cblas_dcopy((int)p->m, p->b, 1, p->r, 1);
        cblas_dgemv(CblasColMajor, CblasNoTrans, (int)p->m, (int)n, 1.0, p->a, (int)p->m, x,
                    1, -1.0, p->r, 1);
        f = 0.5 * cblas_ddot((int)p->m, p->r, 1, p->r, 1);
        if (grad)
            cblas_dgemv(CblasColMajor, CblasTrans, (int)p->m, (int)n, 1.0, p->a, (int)p->m,
                        p->r, 1, 0.0, grad, 1);
        return f;
    }
    cblas_dsymv(CblasColMajor, CblasUpper, (int)n, 1.0, p->a, (int)n, x, 1, 0.0, p->r, 1);
    f = 0.5 * cblas_ddot((int)n, x, 1, p->r, 1) + cblas_ddot((int)n, p->b, 1, x, 1);
    if (grad)
        for (int64_t i = 0; i < n; i++)
            grad[i] = p->r[i] + p->b[i];
    return f;
}

static void p_hv(int64_t n, const double *d, double *hd, void *user)
{
    struct prob *p = user;
    p->hv_calls++;
    if (p->lsq) {
        cblas_dgemv(CblasColMajor, CblasNoTrans, (int)p->m, (int)n, 1.0, p->a, (int)p->m, d,
                    1, 0.0, p->r, 1);
        cblas_dgemv(CblasColMajor, CblasTrans, (int)p->m, (int)n, 1.0, p->a, (int)p->m,
                    p->r, 1, 0.0, hd, 1);
    } else {
        cblas_dsymv(CblasColMajor, CblasUpper, (int)n, 1.0, p->a, (int)n, d, 1, 0.0, hd, 1);
    }
    if (p->hv_calls == p->nan_at)
        hd[n / 2] = NAN;
}

/* one solve with obj and one with the built-in twin; both from x0 */
static void same_steps(const nla_fw_objective *uq, const nla_fw_objective *bi,
                       const nla_fw_set *set, const nla_fw_options *opt, const double *x0,
                       int64_t n, struct prob *p, int ties, const char *what)
{
    double *x = malloc((size_t)n * sizeof *x), *xs = malloc((size_t)n * sizeof *xs);
    nla_fw_result r, rs;
    nla_status st, sts;
    int64_t refresh;

    cr_assert(x && xs);
    memcpy(x, x0, (size_t)n * sizeof *x);
    memcpy(xs, x0, (size_t)n * sizeof *xs);
    p->f_calls = p->hv_calls = 0;
    st = nla_fw_solve(ctx, uq, set, opt, x, &r);
    sts = nla_fw_solve(ctx, bi, set, opt, xs, &rs);
    cr_assert_eq(st, sts, "%s: status %d, built-in %d (%s)", what, (int)st, (int)sts,
                 nla_last_error());
    if (ties) {
        cr_assert(st == NLA_OK && r.stop == NLA_FW_STOP_GAP && rs.stop == NLA_FW_STOP_GAP,
                  "%s: status %d, stops %d/%d", what, (int)st, (int)r.stop, (int)rs.stop);
        cr_assert_leq(fabs(r.f - rs.f), r.gap + rs.gap, "%s: f %.17g, built-in %.17g", what,
                      r.f, rs.f);
        cr_assert_eq(p->hv_calls, r.iterations);
        free(x);
        free(xs);
        return;
    }
    cr_assert_eq(r.stop, rs.stop, "%s: stop %d, built-in %d", what, (int)r.stop, (int)rs.stop);
    cr_assert_eq(r.iterations, rs.iterations, "%s: %lld iterations, built-in %lld", what,
                 (long long)r.iterations, (long long)rs.iterations);
    cr_assert_leq(ref_max_diff(x, xs, (size_t)n), 1e-12 * fmax(1.0, ref_max_abs(xs, (size_t)n)),
                  "%s: |x - built-in| %.3g", what, ref_max_diff(x, xs, (size_t)n));
    cr_assert_leq(fabs(r.f - rs.f), 1e-12 * fmax(1.0, fabs(rs.f)), "%s: f %.17g, built-in %.17g",
                  what, r.f, rs.f);
    cr_assert_leq(fabs(r.gap - rs.gap), 1e-11 * fmax(1.0, fabs(rs.f)), "%s: gap %.3g / %.3g",
                  what, r.gap, rs.gap);
    /* hv on every direction taken, and on the last one when a step was
       refused by the callback or the stop came after it (never here);
       f at x_0 and at every 100th iterate */
    refresh = r.iterations / 100;
    cr_assert_eq(p->hv_calls, r.iterations, "%s: %lld Hessian products for %lld iterations",
                 what, (long long)p->hv_calls, (long long)r.iterations);
    cr_assert_eq(p->f_calls, 1 + refresh, "%s: %lld calls of f for %lld iterations", what,
                 (long long)p->f_calls, (long long)r.iterations);
    free(x);
    free(xs);
}

Test(fw_quad, lsq_every_variant_and_rule_takes_the_builtin_steps)
{
    enum { M = 60, N = 20 };
    static const nla_fw_step_rule rules[] = { NLA_FW_AGNOSTIC, NLA_FW_SHORT_STEP,
                                              NLA_FW_ADAPTIVE, NLA_FW_EXACT };
    static const nla_fw_variant vars[] = { NLA_FW_VANILLA, NLA_FW_AWAY, NLA_FW_PAIRWISE };
    double *a = malloc(M * N * sizeof *a), b[M], r[M], x0[N], L = 0;
    struct prob p = { 1, M, N, a, b, r, 0, 0, 0 };
    nla_fw_objective *uq = NULL, *bi = NULL;
    nla_fw_set *set = NULL;

    cr_assert(a);
    ref_fill(a, M * N, 11);
    ref_fill(b, M, 12);
    for (int i = 0; i < M * N; i++)
        L += a[i] * a[i]; /* |A|_F^2 >= |A|_2^2 */
    for (int i = 0; i < N; i++)
        x0[i] = i == 3 ? 1.0 : 0.0;
    cr_assert_eq(nla_fw_objective_create_user_quad(&uq, N, p_f, p_hv, &p), NLA_OK);
    cr_assert_eq(nla_fw_objective_create_lsq(&bi, M, N, a, M, b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, N, 1.0), NLA_OK);
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        for (size_t j = 0; j < sizeof vars / sizeof *vars; j++) {
            /* agnostic runs into max_iter past two refreshes; the others
               reach the tolerance */
            int agn = rules[i] == NLA_FW_AGNOSTIC;
            nla_fw_options *opt = options(vars[j], rules[i], agn ? 0.0 : L,
                                          agn ? 1e-14 : 1e-9, agn ? 250 : 5000);
            char what[64];
            snprintf(what, sizeof what, "rule %d variant %d", (int)rules[i], (int)vars[j]);
            same_steps(uq, bi, set, opt, x0, N, &p,
                       vars[j] == NLA_FW_PAIRWISE && rules[i] == NLA_FW_EXACT, what);
            nla_fw_options_destroy(opt);
        }
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(uq);
    nla_fw_objective_destroy(bi);
    free(a);
}

Test(fw_quad, quadratic_over_the_l1_ball_takes_the_builtin_steps)
{
    enum { N = 30 };
    double *q = malloc(N * N * sizeof *q), *g = malloc(N * N * sizeof *g), c[N], r[N], x0[N];
    struct prob p = { 0, N, N, q, c, r, 0, 0, 0 };
    nla_fw_objective *uq = NULL, *bi = NULL;
    nla_fw_set *set = NULL;
    nla_fw_options *opt;

    cr_assert(q && g);
    /* Q = G'G + I: positive definite */
    ref_fill(g, N * N, 21);
    ref_fill(c, N, 22);
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, N, N, N, 1.0, g, N, g, N, 0.0, q, N);
    for (int i = 0; i < N; i++) {
        q[i + i * N] += 1.0;
        x0[i] = 0;
    }
    cr_assert_eq(nla_fw_objective_create_user_quad(&uq, N, p_f, p_hv, &p), NLA_OK);
    cr_assert_eq(nla_fw_objective_create_quad(&bi, N, q, N, c), NLA_OK);
    cr_assert_eq(nla_fw_set_create_l1_ball(&set, N, 0.5), NLA_OK);
    {
        static const struct { nla_fw_variant v; nla_fw_step_rule rule; double tol;
                              int64_t max_iter; } runs[] = {
            { NLA_FW_VANILLA, NLA_FW_EXACT, 0.0, 230 },      /* two refreshes */
            { NLA_FW_AWAY, NLA_FW_EXACT, 1e-10, 5000 },
            { NLA_FW_PAIRWISE, NLA_FW_ADAPTIVE, 1e-10, 5000 },
            { NLA_FW_PAIRWISE, NLA_FW_EXACT, 1e-10, 5000 },  /* ties: see the top */
        };
        for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
            char what[64];
            opt = options(runs[i].v, runs[i].rule, 0.0, runs[i].tol, runs[i].max_iter);
            snprintf(what, sizeof what, "quad, l1 ball, variant %d rule %d", (int)runs[i].v,
                     (int)runs[i].rule);
            same_steps(uq, bi, set, opt, x0, N, &p,
                       runs[i].v == NLA_FW_PAIRWISE && runs[i].rule == NLA_FW_EXACT, what);
            nla_fw_options_destroy(opt);
        }
    }
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(uq);
    nla_fw_objective_destroy(bi);
    free(q);
    free(g);
}

struct rec { int64_t t; double x[20]; };

static int record_x(const nla_fw_state *s, void *user)
{
    struct rec *r = user;
    r->t = s->t;
    memcpy(r->x, s->x, (size_t)s->n * sizeof(double));
    return 0;
}

Test(fw_quad, nan_in_a_hessian_product_keeps_the_last_iterate)
{
    enum { M = 40, N = 20 };
    double a[M * N], b[M], r[M], x[N];
    struct prob p = { 1, M, N, a, b, r, 0, 0, 5 };
    struct rec last = { -1, { 0 } };
    nla_fw_objective *uq = NULL;
    nla_fw_set *set = NULL;
    nla_fw_options *opt = options(NLA_FW_VANILLA, NLA_FW_EXACT, 0.0, 0.0, 100);
    nla_fw_result res;
    nla_status st;

    ref_fill(a, M * N, 31);
    ref_fill(b, M, 32);
    for (int i = 0; i < N; i++)
        x[i] = i == 0 ? 1.0 : 0.0;
    cr_assert_eq(nla_fw_options_set_callback(opt, record_x, &last), NLA_OK);
    cr_assert_eq(nla_fw_objective_create_user_quad(&uq, N, p_f, p_hv, &p), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, N, 1.0), NLA_OK);
    st = nla_fw_solve(ctx, uq, set, opt, x, &res);
    /* the 5th product is on d_4: x_4 is the result, the last step seen by
       the callback was t = 3 (to x_4) */
    cr_assert_eq(st, NLA_ENUMERIC, "status %d (%s)", (int)st, nla_last_error());
    cr_assert_eq(res.stop, NLA_FW_STOP_NUMERIC);
    cr_assert_eq(res.iterations, 4, "%lld iterations", (long long)res.iterations);
    cr_assert_eq(last.t, 3);
    cr_assert(isfinite(res.f) && isfinite(res.gap));
    /* x_4 itself: the same solve without the NaN, stopped at 4 */
    {
        double xs[N];
        for (int i = 0; i < N; i++)
            xs[i] = i == 0 ? 1.0 : 0.0;
        p.nan_at = 0;
        cr_assert_eq(nla_fw_options_set_max_iter(opt, 4), NLA_OK);
        cr_assert_eq(nla_fw_solve(ctx, uq, set, opt, xs, NULL), NLA_EMAXITER);
        cr_assert_eq(memcmp(x, xs, sizeof xs), 0, "x is not x_4");
    }
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(uq);
}

/* the same status, and the message names the routine and the argument */
#define EXPECT_EINVAL(call, routine, arg)                                         \
    do {                                                                          \
        nla_status st_ = (call);                                                  \
        const char *msg_ = nla_last_error();                                      \
        cr_assert_eq(st_, NLA_EINVAL, "%s: status %d", #call, (int)st_);          \
        cr_assert_eq(strncmp(msg_, routine ": ", strlen(routine) + 2), 0,         \
                     "%s: message '%s'", #call, msg_);                            \
        cr_assert_neq(strstr(msg_, arg), NULL,                                    \
                      "%s: message '%s' does not name %s", #call, msg_, arg);     \
    } while (0)

#define FN "nla_fw_objective_create_user_quad"

Test(fw_quad, bad_input)
{
    nla_fw_objective *const sentinel = (nla_fw_objective *)(uintptr_t)0x1234;
    nla_fw_objective *o = sentinel, *plain = NULL;
    nla_fw_set *set = NULL;
    nla_fw_options *opt = options(NLA_FW_VANILLA, NLA_FW_EXACT, 0.0, 1e-6, 10);
    double a[4] = { 1, 2, 3, 4 }, b[2] = { 1, 1 }, r[2], x[2] = { 1, 0 }, x1[2] = { 1, 0 };
    double f = 7, grad[2] = { 7, 7 };
    struct prob p = { 1, 2, 2, a, b, r, 0, 0, 0 };

    /* the message names the argument first: "routine: arg ..." */
    EXPECT_EINVAL(nla_fw_objective_create_user_quad(NULL, 2, p_f, p_hv, NULL), FN, FN ": obj ");
    EXPECT_EINVAL(nla_fw_objective_create_user_quad(&o, 2, p_f, NULL, NULL), FN, FN ": hv ");
    cr_assert_null(o);
    o = sentinel;
    EXPECT_EINVAL(nla_fw_objective_create_user_quad(&o, 2, NULL, p_hv, NULL), FN, FN ": f ");
    cr_assert_null(o);
    o = sentinel;
    EXPECT_EINVAL(nla_fw_objective_create_user_quad(&o, 0, p_f, p_hv, NULL), FN, FN ": n ");
    cr_assert_null(o);
    o = sentinel;
    EXPECT_EINVAL(nla_fw_objective_create_user_quad(&o, -5, p_f, p_hv, NULL), FN, FN ": n ");
    cr_assert_null(o);

    /* eval and dim work as for a user objective; the exact rule is refused
       for a plain user objective only, with nothing written */
    cr_assert_eq(nla_fw_objective_create_user_quad(&o, 2, p_f, p_hv, &p), NLA_OK);
    cr_assert_eq(nla_fw_objective_dim(o), 2);
    cr_assert_eq(nla_fw_objective_eval(ctx, o, x, &f, grad), NLA_OK);
    cr_assert_float_eq(f, 0.5 * ((1 - 1) * (1 - 1) + (2 - 1) * (2 - 1)), 1e-15);
    cr_assert_float_eq(grad[0], 1 * 0 + 2 * 1, 1e-15);
    cr_assert_float_eq(grad[1], 3 * 0 + 4 * 1, 1e-15);
    cr_assert_eq(nla_fw_objective_create_user(&plain, 2, p_f, &p), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, 2, 1.0), NLA_OK);
    EXPECT_EINVAL(nla_fw_solve(ctx, plain, set, opt, x1, NULL), "nla_fw_solve", "exact");
    cr_assert(x1[0] == 1 && x1[1] == 0);
    cr_assert_neq(nla_fw_solve(ctx, o, set, opt, x1, NULL), NLA_EINVAL, "%s",
                  nla_last_error());
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(plain);
    nla_fw_objective_destroy(o);
}
