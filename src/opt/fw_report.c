/*
 * fw_report.c - what the CPU loop (fw_solve.c) and the backend loop's hook
 * (fw_backend.c) share: the default options and the variant NLA_FW_AUTO
 * takes, the stops, the callback and verbose rows, and the result of a
 * finished solve.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "opt/fw.h"

void fw_options_default(nla_fw_options *o)
{
    memset(o, 0, sizeof *o);
    o->variant = NLA_FW_AUTO;
    o->rule = NLA_FW_ADAPTIVE;
    o->tol = 1e-7;
    o->max_iter = 10000;
}

/* The one place that says which variant NLA_FW_AUTO is. */
void fw_options_resolve(const nla_fw_options *in, const nla_fw_set *set, int dev,
                        nla_fw_options *out)
{
    /* polytopes, and the nuclear ball with its face steps (fw_face.c) */
    int blended = set->kind != FW_SET_SPECTRAPLEX && set->kind != FW_SET_USER;
    *out = *in;
    if (out->variant == NLA_FW_AUTO)
        out->variant = blended && !dev ? NLA_FW_BLENDED_PAIRWISE : NLA_FW_VANILLA;
    if (out->variant == NLA_FW_VANILLA)
        out->lazy = 0;
}

double fw_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *type_name(nla_fw_step_type t)
{
    switch (t) {
    case NLA_FW_STEP_FW:       return "FW";
    case NLA_FW_STEP_AWAY:     return "away";
    case NLA_FW_STEP_PAIRWISE: return "pairwise";
    case NLA_FW_STEP_DROP:     return "drop";
    case NLA_FW_STEP_LOCAL:    return "local";
    case NLA_FW_STEP_GAP:      return "gap";
    }
    return "?";
}

void fw_verbose_header(FILE *out)
{
    fprintf(out, "%10s %-8s %24s %12s %10s %10s\n", "iteration", "type", "primal",
            "gap", "time(s)", "it/s");
}

static void verbose_row(FILE *out, int64_t t, const char *type, double f, double gap,
                        double el)
{
    fprintf(out, "%10lld %-8s %24.16e %12.4e %10.3f %10.4g\n", (long long)t, type, f,
            gap, el, el > 0 ? (double)t / el : 0.0);
}

int fw_check_stop(const nla_fw_options *opt, double gap, int64_t t, double el, double *best,
                  double floor)
{
    if (!isfinite(gap))
        return NLA_FW_STOP_NUMERIC;
    if (gap < *best)
        *best = gap;
    if (gap <= opt->tol && gap >= floor)
        return NLA_FW_STOP_GAP;
    if (t >= opt->max_iter)
        return NLA_FW_STOP_MAX_ITER;
    if (opt->time_limit > 0 && el >= opt->time_limit)
        return NLA_FW_STOP_TIME;
    return -1;
}

int fw_report_step(const nla_fw_options *opt, const nla_fw_state *state)
{
    if (opt->cb && opt->cb(state, opt->cb_user))
        return NLA_FW_STOP_CALLBACK;
    if (opt->out && state->t % opt->every == 0)
        verbose_row(opt->out, state->t, type_name(state->type), state->f, state->gap,
                    state->time_s);
    return -1;
}

nla_status fw_finish(nla_context *ctx, const nla_fw_options *opt, const struct fw_end *e,
                     nla_fw_result *res)
{
    nla_status s = e->stop == NLA_FW_STOP_GAP || e->stop == NLA_FW_STOP_CALLBACK ? NLA_OK
                   : e->stop == NLA_FW_STOP_NUMERIC ? NLA_ENUMERIC : NLA_EMAXITER;
    if (opt->out) {
        verbose_row(opt->out, e->t, "last", e->f, e->gap, e->el);
        fflush(opt->out);
    }
    if (res) {
        res->status = s;
        res->stop = e->stop;
        res->iterations = e->t;
        res->f = e->f;
        res->gap = e->gap;
        res->best_gap = e->best;
        res->time_s = e->el;
        res->active_set_size = e->active;
        res->lmo_calls = e->lmo_calls;
    }
    if (s == NLA_ENUMERIC && e->at_start)
        return nla_fail(ctx, s, "nla_fw_solve", "f or its gradient is not finite at the "
                        "start point; x is unchanged");
    if (s == NLA_ENUMERIC)
        return nla_fail(ctx, s, "nla_fw_solve",
                        "f, its gradient or H d is not finite after iteration %lld; x is "
                        "the last finite iterate", (long long)e->t);
    if (s == NLA_EMAXITER)
        return nla_fail(ctx, s, "nla_fw_solve", "%s (%lld iterations, gap %.3g)",
                        e->stop == NLA_FW_STOP_TIME ? "time limit reached"
                                                    : "iteration limit reached",
                        (long long)e->t, e->gap);
    nla_ok(ctx);
    return s;
}
