/*
 * fw_backend.c - the Frank-Wolfe solve on the context's backend (the CUDA
 * plugin's device loop): which problems it takes, and the hook through
 * which the CPU loop's stops, reports and results (fw_solve.c) decide on
 * each of its iterations.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "opt/fw.h"

int fw_dev_problem(const nla_fw_objective *obj, const nla_fw_set *set,
                   const nla_fw_options *opt, nla_fw_dev_problem *p, char *why, size_t len)
{
    memset(p, 0, sizeof *p);
    if (fw_obj_is_user(obj)) {
        snprintf(why, len, "obj is a user objective (a host callback)");
        return 1;
    }
    if (opt->variant != NLA_FW_VANILLA) {
        snprintf(why, len, "opt asks for away, pairwise or blended pairwise steps "
                 "(vanilla only)");
        return 1;
    }
    switch (set->kind) {
    case FW_SET_PROB_SIMPLEX: p->set = NLA_FW_DEV_PROB_SIMPLEX; break;
    case FW_SET_UNIT_SIMPLEX: p->set = NLA_FW_DEV_UNIT_SIMPLEX; break;
    case FW_SET_L1:           p->set = NLA_FW_DEV_L1; break;
    case FW_SET_LINF:         p->set = NLA_FW_DEV_LINF; break;
    case FW_SET_BOX:          p->set = NLA_FW_DEV_BOX; break;
    default:
        snprintf(why, len, "set is a %s (simplices, L1 and L-inf balls and boxes only)",
                 fw_set_name(set));
        return 1;
    }
    p->quad = obj->kind == FW_OBJ_QUAD;
    p->op = obj->op.kind == FW_OP_DENSE ? 0 : obj->op.kind == FW_OP_BAND ? 1 : 2;
    p->rows = obj->op.rows;
    p->cols = obj->op.cols;
    p->ld = obj->op.ld;
    p->kl = obj->op.kl;
    p->ku = obj->op.ku;
    p->upper = obj->op.uplo == NLA_UPPER;
    p->a = obj->op.a;
    p->b = obj->b;
    p->c = obj->c;
    p->r = set->r;
    p->lo = set->lo;
    p->hi = set->hi;
    p->rule = opt->rule;
    p->L = opt->L;
    return 0;
}

/* The hook: the CPU loop's decisions on each report of the backend's. */
struct dev_run {
    const nla_fw_options *opt;
    int64_t n;
    double t0;
    struct fw_end e;
};

static int dev_hook(void *user, const nla_fw_dev_iter *it)
{
    struct dev_run *r = user;
    int k;

    r->e.el = fw_now() - r->t0;
    if (it->t == 0 && r->opt->out)
        fw_verbose_header(r->opt->out); /* x_0 is evaluated, as in the CPU loop */
    if (!it->finite) {
        /* f or the gradient at x_t is not: the result is x_{t-1} with its
           f and gap (at t = 0, x_0 and its f) */
        r->e.stop = NLA_FW_STOP_NUMERIC;
        r->e.at_start = it->t == 0;
        if (it->t == 0)
            r->e.f = it->f;
        r->e.t = it->t > 0 ? it->t - 1 : 0;
        return NLA_FW_DEV_STOP_PREV;
    }
    r->e.t = it->t;
    r->e.f = it->f;
    r->e.gap = it->gap;
    r->e.lmo_calls = it->t + 1;   /* one an iteration, this one's included */
    if ((k = fw_check_stop(r->opt, it->gap, it->t, r->e.el, &r->e.best, -INFINITY)) >= 0) {
        r->e.stop = (nla_fw_stop)k;
        return NLA_FW_DEV_STOP;
    }
    if (it->adapt_fail) {
        r->e.stop = NLA_FW_STOP_NUMERIC;
        return NLA_FW_DEV_STOP;
    }
    {
        nla_fw_state state = { it->t, it->f, it->gap, it->gamma, NLA_FW_STEP_FW, 0,
                               r->e.el, r->n, it->x, r->e.lmo_calls };
        if ((k = fw_report_step(r->opt, &state)) >= 0) {
            r->e.stop = (nla_fw_stop)k;
            return NLA_FW_DEV_STOP;
        }
    }
    return NLA_FW_DEV_STEP;
}

nla_status fw_solve_backend(nla_context *ctx, const nla_fw_dev_problem *p,
                            const nla_fw_options *opt, double *x, nla_fw_result *res)
{
    struct dev_run r;
    double *xhost = NULL;
    nla_exec ex;
    nla_status s;

    memset(&r, 0, sizeof r);
    r.opt = opt;
    r.n = p->cols;
    r.t0 = fw_now();
    r.e.stop = NLA_FW_STOP_MAX_ITER;
    r.e.gap = r.e.best = INFINITY;
    if (opt->cb && !(xhost = malloc((size_t)p->cols * sizeof(double))))
        return nla_fail(ctx, NLA_ENOMEM, "nla_fw_solve", "cannot allocate the workspace");
    nla_exec_init(&ex, ctx);
    s = ctx->ops->fw_solve(&ex, p, x, xhost, dev_hook, &r);
    free(xhost);
    if (s != NLA_OK)
        return nla_exec_done(ctx, "nla_fw_solve", s);
    r.e.el = fw_now() - r.t0;
    return fw_finish(ctx, opt, &r.e, res);
}
