/*
 * api_opt.c - the Frank-Wolfe front end: every argument of the nla_fw_*
 * routines (the sets' are in api_fw_set.c) is checked here, before
 * anything is allocated or written; the work is done in src/opt.
 * Messages read "routine: argument ...".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/api_fw.h"

/* ------------------------------------------------------------ objectives */

static nla_status obj_new(nla_fw_objective **out, const char *fn, fw_obj_kind kind,
                          int64_t n, fw_op op)
{
    nla_fw_objective *o = calloc(1, sizeof *o);
    if (!o)
        return nomem(fn);
    o->kind = kind;
    o->n = n;
    o->op = op;
    *out = o;
    nla_ok(NULL);
    return NLA_OK;
}

/* A callback objective; hv only for the user quadratic. */
static nla_status user_obj(nla_fw_objective **obj, const char *fn, fw_obj_kind kind,
                           int64_t n, nla_fw_fn f, nla_fw_hv_fn hv, void *user)
{
    nla_check ck = NLA_CHECK_INIT(NULL, fn);
    fw_op none;
    nla_status st;

    memset(&none, 0, sizeof none);
    if (chk_out(&ck, "obj", obj) || chk_pos(&ck, "n", n) || chk_len(&ck, "n", n) ||
        nla_chk_ptr(&ck, "f", (const void *)(uintptr_t)f, 1) ||
        (kind == FW_OBJ_USER_QUAD && nla_chk_ptr(&ck, "hv", (const void *)(uintptr_t)hv, 1)))
        return ck.status;
    if ((st = obj_new(obj, fn, kind, n, none)) == NLA_OK) {
        (*obj)->fn = f;
        (*obj)->hv = hv;
        (*obj)->user = user;
    }
    return st;
}

NLA_API nla_status nla_fw_objective_create_user(nla_fw_objective **obj, int64_t n,
                                                nla_fw_fn f, void *user)
{
    return user_obj(obj, "nla_fw_objective_create_user", FW_OBJ_USER, n, f, NULL, user);
}

NLA_API nla_status nla_fw_objective_create_user_quad(nla_fw_objective **obj, int64_t n,
                                                     nla_fw_fn f, nla_fw_hv_fn hv,
                                                     void *user)
{
    return user_obj(obj, "nla_fw_objective_create_user_quad", FW_OBJ_USER_QUAD, n, f, hv,
                    user);
}

static fw_op make_op(fw_op_kind kind, int64_t rows, int64_t cols, const double *a,
                     int64_t ld, int64_t kl, int64_t ku, nla_uplo uplo)
{
    fw_op op;
    op.kind = kind;
    op.rows = rows;
    op.cols = cols;
    op.a = a;
    op.ld = ld;
    op.kl = kl;
    op.ku = ku;
    op.uplo = uplo;
    return op;
}

static nla_status lsq_new(nla_fw_objective **obj, const char *fn, fw_op op,
                          const double *b)
{
    nla_status st = obj_new(obj, fn, FW_OBJ_LSQ, op.cols, op);
    if (st == NLA_OK)
        (*obj)->b = b;
    return st;
}

static nla_status quad_new(nla_fw_objective **obj, const char *fn, fw_op op,
                           const double *c)
{
    nla_status st = obj_new(obj, fn, FW_OBJ_QUAD, op.cols, op);
    if (st == NLA_OK)
        (*obj)->c = c;
    return st;
}

NLA_API nla_status nla_fw_objective_create_lsq(nla_fw_objective **obj, int64_t m, int64_t n,
                                               const double *a, int64_t lda,
                                               const double *b)
{
    static const char fn[] = "nla_fw_objective_create_lsq";
    nla_check ck = NLA_CHECK_INIT(NULL, fn);

    if (chk_out(&ck, "obj", obj) || chk_pos(&ck, "m", m) || chk_pos(&ck, "n", n) ||
        nla_chk_ld(&ck, "lda", lda, "max(1,m)", m) || nla_chk_ptr(&ck, "a", a, 1) ||
        nla_chk_ptr(&ck, "b", b, 1) ||
        nla_chk_matrix_extent(&ck, "a", m, n, lda, sizeof(double)) ||
        chk_len(&ck, "b", m) || chk_len(&ck, "x", n))
        return ck.status;
    return lsq_new(obj, fn, make_op(FW_OP_DENSE, m, n, a, lda, 0, 0, NLA_UPPER), b);
}

NLA_API nla_status nla_fw_objective_create_lsq_band(nla_fw_objective **obj, int64_t m,
                                                    int64_t n, int64_t kl, int64_t ku,
                                                    const double *ab, int64_t ldab,
                                                    const double *b)
{
    static const char fn[] = "nla_fw_objective_create_lsq_band";
    nla_check ck = NLA_CHECK_INIT(NULL, fn);

    if (chk_out(&ck, "obj", obj) || chk_pos(&ck, "m", m) || chk_pos(&ck, "n", n) ||
        nla_chk_nonneg(&ck, "kl", kl) || nla_chk_nonneg(&ck, "ku", ku) ||
        nla_chk_ldab(&ck, ldab, kl, ku) || nla_chk_ptr(&ck, "ab", ab, 1) ||
        nla_chk_ptr(&ck, "b", b, 1) ||
        nla_chk_matrix_extent(&ck, "ab", kl + ku + 1, n, ldab, sizeof(double)) ||
        chk_len(&ck, "b", m) || chk_len(&ck, "x", n))
        return ck.status;
    return lsq_new(obj, fn, make_op(FW_OP_BAND, m, n, ab, ldab, kl, ku, NLA_UPPER), b);
}

NLA_API nla_status nla_fw_objective_create_lsq_packed(nla_fw_objective **obj,
                                                      nla_uplo uplo, int64_t n,
                                                      const double *ap, const double *b)
{
    static const char fn[] = "nla_fw_objective_create_lsq_packed";
    nla_check ck = NLA_CHECK_INIT(NULL, fn);

    if (chk_out(&ck, "obj", obj) || nla_chk_uplo(&ck, "uplo", uplo) ||
        chk_pos(&ck, "n", n) || nla_chk_ptr(&ck, "ap", ap, 1) ||
        nla_chk_ptr(&ck, "b", b, 1) || nla_chk_packed_extent(&ck, "ap", n, sizeof(double)))
        return ck.status;
    return lsq_new(obj, fn, make_op(FW_OP_PACKED, n, n, ap, n, 0, 0, uplo), b);
}

NLA_API nla_status nla_fw_objective_create_quad(nla_fw_objective **obj, int64_t n,
                                                const double *q, int64_t ldq,
                                                const double *c)
{
    static const char fn[] = "nla_fw_objective_create_quad";
    nla_check ck = NLA_CHECK_INIT(NULL, fn);

    if (chk_out(&ck, "obj", obj) || chk_pos(&ck, "n", n) ||
        nla_chk_ld(&ck, "ldq", ldq, "max(1,n)", n) || nla_chk_ptr(&ck, "q", q, 1) ||
        nla_chk_matrix_extent(&ck, "q", n, n, ldq, sizeof(double)))
        return ck.status;
    return quad_new(obj, fn, make_op(FW_OP_DENSE, n, n, q, ldq, 0, 0, NLA_UPPER), c);
}

NLA_API nla_status nla_fw_objective_create_quad_packed(nla_fw_objective **obj,
                                                       nla_uplo uplo, int64_t n,
                                                       const double *qp, const double *c)
{
    static const char fn[] = "nla_fw_objective_create_quad_packed";
    nla_check ck = NLA_CHECK_INIT(NULL, fn);

    if (chk_out(&ck, "obj", obj) || nla_chk_uplo(&ck, "uplo", uplo) ||
        chk_pos(&ck, "n", n) || nla_chk_ptr(&ck, "qp", qp, 1) ||
        nla_chk_packed_extent(&ck, "qp", n, sizeof(double)))
        return ck.status;
    return quad_new(obj, fn, make_op(FW_OP_PACKED, n, n, qp, n, 0, 0, uplo), c);
}

NLA_API nla_status nla_fw_objective_create_quad_band(nla_fw_objective **obj, int64_t n,
                                                     int64_t k, const double *qb,
                                                     int64_t ldqb, const double *c)
{
    static const char fn[] = "nla_fw_objective_create_quad_band";
    nla_check ck = NLA_CHECK_INIT(NULL, fn);

    if (chk_out(&ck, "obj", obj) || chk_pos(&ck, "n", n) ||
        nla_chk_nonneg(&ck, "k", k))
        return ck.status;
    if (k > (INT64_MAX - 1) / 2 || ldqb < 2 * k + 1)
        return nla_chk_fail(&ck, "ldqb (%lld) < 2k+1", (long long)ldqb), ck.status;
    if (nla_chk_ptr(&ck, "qb", qb, 1) ||
        nla_chk_matrix_extent(&ck, "qb", 2 * k + 1, n, ldqb, sizeof(double)))
        return ck.status;
    return quad_new(obj, fn, make_op(FW_OP_BAND, n, n, qb, ldqb, k, k, NLA_UPPER), c);
}

NLA_API void nla_fw_objective_destroy(nla_fw_objective *obj)
{
    free(obj);
}

NLA_API int64_t nla_fw_objective_dim(const nla_fw_objective *obj)
{
    return obj ? obj->n : -1;
}

NLA_API nla_status nla_fw_objective_eval(nla_context *ctx, const nla_fw_objective *obj,
                                         const double *x, double *f, double *grad)
{
    static const char fn[] = "nla_fw_objective_eval";
    nla_check ck = NLA_CHECK_INIT(ctx, fn);
    nla_status s;

    if (nla_chk_ctx(&ck, ctx) || nla_chk_ptr(&ck, "obj", obj, 1) ||
        nla_chk_ptr(&ck, "x", x, 1) || nla_chk_ptr(&ck, "f", f, 1) ||
        chk_cpu(&ck, ctx, 6,
                (const void *const[]){ obj->op.a, obj->b, obj->c, x, f, grad },
                (const char *const[]){ "obj (its matrix)", "obj (its b)", "obj (its c)", "x",
                                       "f", "grad" }))
        return ck.status;
    nla_ok(ctx);
    s = fw_obj_eval(ctx, obj, x, f, grad);
    return s == NLA_OK ? s : nla_fail(ctx, s, fn, "%s", nla_strerror(s));
}

/* --------------------------------------------------------------- options */

NLA_API nla_status nla_fw_options_create(nla_fw_options **opt)
{
    static const char fn[] = "nla_fw_options_create";
    nla_check ck = NLA_CHECK_INIT(NULL, fn);
    nla_fw_options *o;

    if (chk_out(&ck, "opt", opt))
        return ck.status;
    if (!(o = malloc(sizeof *o)))
        return nomem(fn);
    fw_options_default(o);
    *opt = o;
    nla_ok(NULL);
    return NLA_OK;
}

NLA_API void nla_fw_options_destroy(nla_fw_options *opt)
{
    free(opt);
}

#define OPT_CHECK(name)                                                        \
    static const char fn[] = name;                                             \
    nla_check ck = NLA_CHECK_INIT(NULL, fn);                                   \
    if (nla_chk_ptr(&ck, "opt", opt, 1))                                       \
        return ck.status

NLA_API nla_status nla_fw_options_set_variant(nla_fw_options *opt, nla_fw_variant v)
{
    OPT_CHECK("nla_fw_options_set_variant");
    if (v != NLA_FW_VANILLA && v != NLA_FW_AWAY && v != NLA_FW_PAIRWISE &&
        v != NLA_FW_BLENDED_PAIRWISE && v != NLA_FW_AUTO)
        return nla_chk_fail(&ck, "v has unknown value %d (expected NLA_FW_VANILLA, "
                        "NLA_FW_AWAY, NLA_FW_PAIRWISE, NLA_FW_BLENDED_PAIRWISE or "
                        "NLA_FW_AUTO)", (int)v), ck.status;
    opt->variant = v;
    return NLA_OK;
}

NLA_API nla_status nla_fw_options_set_lazy(nla_fw_options *opt, int lazy)
{
    OPT_CHECK("nla_fw_options_set_lazy");
    if (lazy != 0 && lazy != 1)
        return nla_chk_fail(&ck, "lazy (%d) is neither 0 nor 1", lazy), ck.status;
    opt->lazy = lazy;
    return NLA_OK;
}

NLA_API nla_status nla_fw_options_set_step(nla_fw_options *opt, nla_fw_step_rule rule,
                                           double L)
{
    OPT_CHECK("nla_fw_options_set_step");
    if (rule != NLA_FW_AGNOSTIC && rule != NLA_FW_SHORT_STEP && rule != NLA_FW_ADAPTIVE &&
        rule != NLA_FW_EXACT)
        return nla_chk_fail(&ck, "rule has unknown value %d (expected NLA_FW_AGNOSTIC, "
                        "NLA_FW_SHORT_STEP, NLA_FW_ADAPTIVE or NLA_FW_EXACT)", (int)rule),
               ck.status;
    if (chk_real(&ck, "L", L, rule != NLA_FW_SHORT_STEP))
        return ck.status;
    opt->rule = rule;
    opt->L = L;
    return NLA_OK;
}

NLA_API nla_status nla_fw_options_set_tol(nla_fw_options *opt, double tol)
{
    OPT_CHECK("nla_fw_options_set_tol");
    if (chk_real(&ck, "tol", tol, 1))
        return ck.status;
    opt->tol = tol;
    return NLA_OK;
}

NLA_API nla_status nla_fw_options_set_max_iter(nla_fw_options *opt, int64_t max_iter)
{
    OPT_CHECK("nla_fw_options_set_max_iter");
    if (nla_chk_nonneg(&ck, "max_iter", max_iter))
        return ck.status;
    opt->max_iter = max_iter;
    return NLA_OK;
}

NLA_API nla_status nla_fw_options_set_time_limit(nla_fw_options *opt, double seconds)
{
    OPT_CHECK("nla_fw_options_set_time_limit");
    if (chk_real(&ck, "seconds", seconds, 1))
        return ck.status;
    opt->time_limit = seconds;
    return NLA_OK;
}

NLA_API double nla_fw_options_time_limit(const nla_fw_options *opt)
{
    return opt ? opt->time_limit : 0.0;
}

NLA_API nla_status nla_fw_options_set_callback(nla_fw_options *opt, nla_fw_callback cb,
                                               void *user)
{
    OPT_CHECK("nla_fw_options_set_callback");
    opt->cb = cb;
    opt->cb_user = user;
    return NLA_OK;
}

NLA_API nla_status nla_fw_options_set_verbose(nla_fw_options *opt, FILE *out,
                                              int64_t every)
{
    OPT_CHECK("nla_fw_options_set_verbose");
    if (out && every < 1)
        return nla_chk_fail(&ck, "every (%lld) < 1", (long long)every), ck.status;
    opt->out = out;
    opt->every = out ? every : 0;
    return NLA_OK;
}

/* ----------------------------------------------------------------- solve */

/* Where a solve runs: the backend's own loop on a CUDA context, and on an
   AUTO context holding CUDA when the objective's arrays or x are device
   memory; the CPU otherwise. */
static int fw_on_backend(nla_context *ctx, const nla_fw_objective *obj, const double *x)
{
    if (ctx->backend == NLA_BACKEND_CPU)
        return 0;
    if (!ctx->cpu_ops)
        return 1;
    return nla_device_ptr(ctx, obj->op.a) || nla_device_ptr(ctx, obj->b) ||
           nla_device_ptr(ctx, obj->c) || nla_device_ptr(ctx, x);
}

/* x as the host can read it: x itself, or (device memory) a downloaded
   copy in *out (NULL on ENOMEM, with NLA_OK: the caller reports it). */
static nla_status x_readable(nla_context *ctx, const double *x, int64_t n, double **out)
{
    nla_exec ex;
    nla_status s;
    *out = (double *)x;
    if (!nla_device_ptr(ctx, x))
        return NLA_OK;
    if (!(*out = malloc((size_t)n * sizeof(double))))
        return NLA_OK;
    nla_exec_init(&ex, ctx);
    if ((s = ctx->ops->download(&ex, *out, x, (size_t)n * sizeof(double))) != NLA_OK) {
        free(*out);
        return nla_exec_done(ctx, "nla_fw_solve", s);
    }
    return NLA_OK;
}

NLA_API nla_status nla_fw_solve(nla_context *ctx, const nla_fw_objective *obj,
                                const nla_fw_set *set, const nla_fw_options *opt,
                                double *x, nla_fw_result *res)
{
    static const char fn[] = "nla_fw_solve";
    nla_check ck = NLA_CHECK_INIT(ctx, fn);
    nla_fw_options defaults, run;
    nla_fw_dev_problem prob;
    char why[200];
    double *xh;
    nla_status s;
    int bad, dev;

    if (nla_chk_ctx(&ck, ctx) || nla_chk_ptr(&ck, "obj", obj, 1) ||
        nla_chk_ptr(&ck, "set", set, 1) || nla_chk_ptr(&ck, "x", x, 1))
        return ck.status;
    if (obj->n != set->n)
        return nla_chk_fail(&ck, "obj (dimension %lld) and set (dimension %lld) differ",
                        (long long)obj->n, (long long)set->n), ck.status;
    if (!opt) {
        fw_options_default(&defaults);
        opt = &defaults;
    }
    if (opt->rule == NLA_FW_EXACT && obj->kind == FW_OBJ_USER)
        return nla_chk_fail(&ck, "opt: the exact line search needs a built-in objective "
                        "or a user quadratic, obj is a user callback"), ck.status;
    if (opt->lazy && opt->variant == NLA_FW_VANILLA)
        return nla_chk_fail(&ck, "opt: lazy steps need an active set (away, pairwise or "
                        "blended pairwise steps), opt asks for vanilla"), ck.status;
    dev = fw_on_backend(ctx, obj, x);
    fw_options_resolve(opt, set, dev, &run);
    opt = &run;
    if (dev) {
        if (!ctx->ops->fw_solve)
            return nla_fail(ctx, NLA_ENOTSUP, fn, "ctx: the %s backend has no Frank-Wolfe "
                            "loop", nla_backend_name(ctx->backend));
        if (fw_dev_problem(obj, set, opt, &prob, why, sizeof why))
            return nla_fail(ctx, NLA_ENOTSUP, fn, "ctx: Frank-Wolfe on %s runs built-in "
                            "objectives over simplices, L1/L-inf balls and boxes, vanilla "
                            "steps; %s", nla_backend_name(ctx->backend), why);
    }
    if ((s = x_readable(ctx, x, set->n, &xh)) != NLA_OK)
        return s;
    bad = xh ? fw_set_infeasible(ctx, set, xh, why, sizeof why) : -1;
    if (xh != x)
        free(xh);
    if (bad < 0)
        return nla_fail(ctx, NLA_ENOMEM, fn, "cannot allocate the feasibility test");
    if (bad)
        return nla_chk_fail(&ck, "x is not in the feasible set: %s", why), ck.status;
    nla_ok(ctx);
    return dev ? fw_solve_backend(ctx, &prob, opt, x, res) : fw_solve(ctx, obj, set, opt, x, res);
}
