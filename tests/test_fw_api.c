/*
 * test_fw_api.c - the Frank-Wolfe interface around the solver (the solver
 * against closed forms and planted optima: test_fw.c):
 *   - the built-in objectives (dense, band and packed least squares and
 *     quadratics) against CBLAS, and the same solve through each storage;
 *   - the callback's stop, the time limit and verbose rows;
 *   - a NaN gradient keeps the last finite iterate;
 *   - bad input: infeasible start, mismatched sizes, and each creation
 *     argument (status, message, nothing written).
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
        obj = quad_in_storage(kind, N, K, q, qp, qb, c);
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
    double q[N * N], qp[N * (N + 1) / 2], qb[(2 * K + 1) * N], c[N], lo[N], hi[N];
    double x[3][N];
    nla_fw_set *set = NULL;

    for (int i = 0; i < N; i++) {
        lo[i] = -1;
        hi[i] = 0.5 + 0.1 * i;
    }
    tridiag_storages(N, q, qp, qb);
    ref_fill(c, N, 91);
    cr_assert_eq(nla_fw_set_create_box(&set, N, lo, hi), NLA_OK);
    for (int kind = 0; kind < 3; kind++) {
        nla_fw_objective *obj = NULL;
        nla_fw_options *opt = options(NLA_FW_AWAY, NLA_FW_EXACT, 0, 1e-12, 5000);
        nla_fw_result res;
        obj = quad_in_storage(kind, N, K, q, qp, qb, c);
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
