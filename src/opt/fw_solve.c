/*
 * fw_solve.c - the Frank-Wolfe loop.
 *
 * Iteration t, at x_t with f_t and g_t = grad f(x_t):
 *   v = LMO(g_t); gap = <g_t, x_t - v>; stop if gap <= tol (or max_iter,
 *   the time limit, the callback);
 *   a direction d with its largest step gamma_max:
 *     FW        d = v - x          gamma_max = 1
 *     away      d = x - a          gamma_max = l_a / (1 - l_a)
 *     pairwise  d = v - a          gamma_max = l_a
 *   where a is the active atom with the largest <g, a> (away-step takes
 *   the away direction only when <g, a - x> beats the FW gap);
 *   gamma by the step rule, x_{t+1} = x_t + gamma d, and the active set's
 *   weights follow (a drop step removes a; weights <= 1e-12 are purged and
 *   the rest renormalized).
 *
 * Built-in objectives carry the image w = M x along (w += gamma M d, with
 * M v a few columns of M for sparse vertices), so an iteration of least
 * squares over a simplex costs one product with M' plus O(m + n); w is
 * recomputed from x every FW_REFRESH iterations to stop rounding drift.
 * The curvature d'Hd is then known, which gives the exact line search and
 * makes backtracking free of extra products.
 *
 * A user quadratic gives H d through its hv callback, once an iteration:
 * d'Hd is <d, H d>, and the next gradient and f follow without calling f
 * (g += gamma H d, f += gamma <g,d> + gamma^2 d'Hd / 2), which f refreshes
 * every FW_REFRESH iterations.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "opt/fw.h"

/* the constants the backend loops follow too (core/backend.h) */
#define FW_REFRESH NLA_FW_REFRESH
#define FW_PURGE 1e-12
#define FW_BACKTRACK_MAX NLA_FW_BACKTRACK_MAX
#define FW_ADAPT_ETA NLA_FW_ADAPT_ETA
#define FW_ADAPT_TAU NLA_FW_ADAPT_TAU

void fw_options_default(nla_fw_options *o)
{
    memset(o, 0, sizeof *o);
    o->variant = NLA_FW_VANILLA;
    o->rule = NLA_FW_AGNOSTIC;
    o->tol = 1e-7;
    o->max_iter = 10000;
}

double fw_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double dot(const double *x, const double *y, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

static int all_finite(const double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* ------------------------------------------------------------ active set */

struct atom { double lambda; fw_vertex *v; };

struct active {
    struct atom *a;
    int64_t len, cap;
};

static void active_clear(struct active *s)
{
    for (int64_t i = 0; i < s->len; i++)
        fw_vx_free(s->a[i].v);
    s->len = 0;
}

static int active_find(const struct active *s, const fw_vertex *v, int64_t n, int64_t m)
{
    for (int64_t i = 0; i < s->len; i++)
        if (fw_vx_equal(s->a[i].v, v, n, m))
            return (int)i;
    return -1;
}

static nla_status active_add(struct active *s, const fw_vertex *v, double lambda,
                             int64_t n, int64_t m)
{
    fw_vertex *c;
    if (s->len == s->cap) {
        int64_t cap = s->cap ? 2 * s->cap : 16;
        struct atom *a = realloc(s->a, (size_t)cap * sizeof *a);
        if (!a)
            return NLA_ENOMEM;
        s->a = a;
        s->cap = cap;
    }
    if (!(c = fw_vx_clone(v, n, m)))
        return NLA_ENOMEM;
    s->a[s->len].lambda = lambda;
    s->a[s->len].v = c;
    s->len++;
    return NLA_OK;
}

static void active_remove(struct active *s, int64_t i)
{
    fw_vx_free(s->a[i].v);
    s->a[i] = s->a[--s->len];
}

/* lambda_v += gamma, adding v when it is new */
static nla_status active_credit(struct active *s, const fw_vertex *v, double gamma,
                                int64_t n, int64_t m)
{
    int i = active_find(s, v, n, m);
    if (i >= 0) {
        s->a[i].lambda += gamma;
        return NLA_OK;
    }
    return active_add(s, v, gamma, n, m);
}

static void active_purge(struct active *s)
{
    double sum = 0;
    for (int64_t i = 0; i < s->len;) {
        if (s->a[i].lambda <= FW_PURGE)
            active_remove(s, i);
        else
            sum += s->a[i++].lambda;
    }
    if (sum > 0)
        for (int64_t i = 0; i < s->len; i++)
            s->a[i].lambda /= sum;
}

/* The start point as the first atom: one-hot when it has one non-zero. */
static nla_status active_init(struct active *s, const double *x, int64_t n, int64_t m)
{
    int64_t nz = 0, at = 0, idx;
    double val;
    fw_vertex v;

    for (int64_t i = 0; i < n; i++)
        if (x[i] != 0) {
            nz++;
            at = i;
        }
    memset(&v, 0, sizeof v);
    if (nz <= 1 && m == 1) {
        v.kind = FW_VX_SPARSE;
        v.nnz = nz;
        idx = at;
        val = x[at];
        v.idx = &idx;
        v.val = &val;
    } else {
        v.kind = FW_VX_DENSE;
        v.dense = (double *)x;
    }
    return active_add(s, &v, 1.0, n, m);
}

/* --------------------------------------------------------------- workspace */

struct ws {
    int64_t n, vm, rows;
    int builtin, uquad;                 /* image w; a user quadratic (hd) */
    double *buf;
    double *x, *xn, *g, *d, *xt, *gt, *hd;  /* n each */
    double *w, *mv, *ma, *md;           /* rows each (built-in) */
    double *scratch;                    /* max(n, rows) */
    fw_lmo_work lmo;
    struct active as;
};

static void ws_free(struct ws *w)
{
    free(w->buf);
    fw_lmo_work_free(&w->lmo);
    active_clear(&w->as);
    free(w->as.a);
}

static nla_status ws_init(struct ws *w, const nla_fw_objective *obj, const nla_fw_set *set)
{
    size_t n, rows, total;
    double *p;

    memset(w, 0, sizeof *w);
    w->n = set->n;
    w->vm = set->kind == FW_SET_NUCLEAR ? set->m : 1;
    w->builtin = !fw_obj_is_user(obj);
    w->uquad = obj->kind == FW_OBJ_USER_QUAD;
    w->rows = fw_obj_image_len(obj);
    n = (size_t)w->n;
    rows = (size_t)w->rows;
    /* the front end bounds 8*n and 8*rows by PTRDIFF_MAX, not 12 of them */
    if (n > SIZE_MAX / sizeof(double) / 12 || rows > SIZE_MAX / sizeof(double) / 12)
        return NLA_ENOMEM;
    total = 7 * n + 4 * rows + (n > rows ? n : rows);
    if (!(w->buf = malloc(total * sizeof(double))))
        return NLA_ENOMEM;
    p = w->buf;
    w->x = p; p += n;
    w->xn = p; p += n;
    w->g = p; p += n;
    w->d = p; p += n;
    w->xt = p; p += n;
    w->gt = p; p += n;
    w->hd = p; p += n;
    w->w = p; p += rows;
    w->mv = p; p += rows;
    w->ma = p; p += rows;
    w->md = p; p += rows;
    w->scratch = p;
    if (fw_lmo_work_init(&w->lmo, set) != NLA_OK) {
        free(w->buf);
        w->buf = NULL;
        return NLA_ENOMEM;
    }
    return NLA_OK;
}

/* f and g at x (built-in: from the image w). */
static nla_status evaluate(nla_context *ctx, const nla_fw_objective *obj, struct ws *w,
                           const double *x, double *f, double *g)
{
    if (w->builtin)
        return fw_obj_from_image(ctx, obj, x, w->w, f, g, w->scratch);
    *f = obj->fn(obj->n, x, g, obj->user);
    return NLA_OK;
}

/* ------------------------------------------------------------------ steps */

/* What one iteration decided. */
struct step {
    nla_fw_step_type type;
    int64_t away;          /* index of the away atom, or -1 */
    double dg, dd, curv;   /* <g,d>, |d|^2, d'Hd (built-in) */
    double gmax, gamma;
};

static double clip(double g, double gmax)
{
    if (!(g > 0))
        return 0;
    return g < gmax ? g : gmax;
}

/* Backtracking on L (Pedregosa, Negiar, Askari, Jaggi 2020, Alg. 1):
   start from eta*L_prev and multiply by tau until the quadratic upper
   bound holds at the proposed step.  Returns 0 on success. */
static int adaptive_step(const nla_fw_objective *obj, struct ws *w, double f,
                         double *Lest, struct step *st)
{
    double M;

    if (*Lest <= 0) {
        if (w->builtin || w->uquad) {
            *Lest = st->curv / st->dd;
        } else {
            /* |grad f(x + eps d) - grad f(x)| / (eps |d|), eps = 1e-3, or
               less so that x + eps d stays inside the set (away steps) */
            double eps = st->gmax > 0 && st->gmax < 1e-3 ? st->gmax : 1e-3, diff = 0;
            for (int64_t i = 0; i < w->n; i++)
                w->xt[i] = w->x[i] + eps * w->d[i];
            (void)obj->fn(obj->n, w->xt, w->gt, obj->user);
            for (int64_t i = 0; i < w->n; i++)
                diff += (w->gt[i] - w->g[i]) * (w->gt[i] - w->g[i]);
            *Lest = sqrt(diff) / (eps * sqrt(st->dd));
        }
        if (!(*Lest > 0) || !isfinite(*Lest))
            *Lest = 1;
    }
    M = FW_ADAPT_ETA * *Lest;
    for (int k = 0; k < FW_BACKTRACK_MAX; k++) {
        double gamma = clip(-st->dg / (M * st->dd), st->gmax), ft;
        int ok;
        if (w->builtin || w->uquad) {
            /* f is quadratic along d: the bound holds exactly when the
               curvature is at most M, with no rounding in the test */
            ok = gamma == 0 || st->curv <= M * st->dd;
        } else {
            for (int64_t i = 0; i < w->n; i++)
                w->xt[i] = w->x[i] + gamma * w->d[i];
            ft = obj->fn(obj->n, w->xt, NULL, obj->user);
            /* the slack covers rounding in f: near the optimum gamma*<g,d>
               is below f's last bit, and without it L would grow without
               bound */
            ok = ft <= f + gamma * st->dg + 0.5 * gamma * gamma * M * st->dd +
                          8 * DBL_EPSILON * (fabs(f) + fabs(ft));
        }
        if (ok) {
            st->gamma = gamma;
            *Lest = M;
            return 0;
        }
        M *= FW_ADAPT_TAU;
    }
    return -1;
}

/* The away atom: the active atom with the largest <g, a>. */
static int64_t away_atom(const struct ws *w, double *ga)
{
    int64_t best = -1;
    for (int64_t i = 0; i < w->as.len; i++) {
        double s = fw_vx_dot(w->as.a[i].v, w->g, w->n, w->vm);
        if (best < 0 || s > *ga) {
            best = i;
            *ga = s;
        }
    }
    return best;
}

/* Choose the direction: fills st (type, away, dg, dd, curv, gmax) and
   w->d, and w->md = M d (built-in) or w->hd = H d (user quadratic). */
static nla_status direction(nla_context *ctx, const nla_fw_objective *obj,
                            const nla_fw_options *opt, struct ws *w, double gx,
                            double gv, double gap, struct step *st)
{
    const fw_vertex *v = &w->lmo.v, *a = NULL;
    int64_t n = w->n, rows = w->rows;
    double ga = 0, lam = 0;
    nla_status s = NLA_OK;

    st->type = NLA_FW_STEP_FW;
    st->away = -1;
    if (opt->variant != NLA_FW_VANILLA && w->as.len > 0) {
        int64_t i = away_atom(w, &ga);
        a = w->as.a[i].v;
        lam = w->as.a[i].lambda;
        if (opt->variant == NLA_FW_AWAY && ga - gx > gap && lam < 1 - FW_PURGE) {
            st->type = NLA_FW_STEP_AWAY;
            st->away = i;
        } else if (opt->variant == NLA_FW_PAIRWISE && !fw_vx_equal(a, v, n, w->vm)) {
            st->type = NLA_FW_STEP_PAIRWISE;
            st->away = i;
        }
    }
    switch (st->type) {
    case NLA_FW_STEP_AWAY:
        memcpy(w->d, w->x, (size_t)n * sizeof(double));
        fw_vx_axpy(a, -1.0, w->d, n, w->vm);
        st->dg = gx - ga;
        st->gmax = lam / (1 - lam);
        if (w->builtin && (s = fw_op_apply_vertex(ctx, &obj->op, a, w->vm, w->ma,
                                                  w->scratch)) == NLA_OK)
            for (int64_t i = 0; i < rows; i++)
                w->md[i] = w->w[i] - w->ma[i];
        break;
    case NLA_FW_STEP_PAIRWISE:
        memset(w->d, 0, (size_t)n * sizeof(double));
        fw_vx_axpy(v, 1.0, w->d, n, w->vm);
        fw_vx_axpy(a, -1.0, w->d, n, w->vm);
        st->dg = gv - ga;
        st->gmax = lam;
        if (w->builtin &&
            (s = fw_op_apply_vertex(ctx, &obj->op, v, w->vm, w->mv, w->scratch)) == NLA_OK &&
            (s = fw_op_apply_vertex(ctx, &obj->op, a, w->vm, w->ma, w->scratch)) == NLA_OK)
            for (int64_t i = 0; i < rows; i++)
                w->md[i] = w->mv[i] - w->ma[i];
        break;
    default:
        for (int64_t i = 0; i < n; i++)
            w->d[i] = -w->x[i];
        fw_vx_axpy(v, 1.0, w->d, n, w->vm);
        st->dg = gv - gx;
        st->gmax = 1;
        if (w->builtin &&
            (s = fw_op_apply_vertex(ctx, &obj->op, v, w->vm, w->mv, w->scratch)) == NLA_OK)
            for (int64_t i = 0; i < rows; i++)
                w->md[i] = w->mv[i] - w->w[i];
        break;
    }
    st->dd = dot(w->d, w->d, n);
    st->curv = 0;
    if (w->builtin)
        st->curv = fw_obj_curvature(obj, w->d, w->md);
    if (w->uquad) {
        obj->hv(n, w->d, w->hd, obj->user);
        st->curv = dot(w->d, w->hd, n);
    }
    return s;
}

static nla_status update_active(struct ws *w, const nla_fw_options *opt,
                                const struct step *st)
{
    struct active *as = &w->as;
    const fw_vertex *v = &w->lmo.v;
    double gamma = st->gamma;
    nla_status s = NLA_OK;

    if (opt->variant == NLA_FW_VANILLA || gamma == 0)
        return NLA_OK;
    if (st->type == NLA_FW_STEP_FW || (st->away < 0)) {
        if (gamma >= 1) {
            active_clear(as);
            s = active_add(as, v, 1.0, w->n, w->vm);
        } else {
            for (int64_t i = 0; i < as->len; i++)
                as->a[i].lambda *= 1 - gamma;
            s = active_credit(as, v, gamma, w->n, w->vm);
        }
    } else if (opt->variant == NLA_FW_AWAY) {
        for (int64_t i = 0; i < as->len; i++)
            as->a[i].lambda *= 1 + gamma;
        as->a[st->away].lambda -= gamma;
        if (st->type == NLA_FW_STEP_DROP)
            as->a[st->away].lambda = 0;
    } else {
        as->a[st->away].lambda -= gamma;
        if (st->type == NLA_FW_STEP_DROP)
            as->a[st->away].lambda = 0;
        s = active_credit(as, v, gamma, w->n, w->vm);
    }
    active_purge(as);
    return s;
}

/* --------------------------------------------------------------- reporting */

static const char *type_name(nla_fw_step_type t)
{
    switch (t) {
    case NLA_FW_STEP_FW:       return "FW";
    case NLA_FW_STEP_AWAY:     return "away";
    case NLA_FW_STEP_PAIRWISE: return "pairwise";
    case NLA_FW_STEP_DROP:     return "drop";
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

/* ---------------------------------- shared with the backend loop (fw.h) */

int fw_check_stop(const nla_fw_options *opt, double gap, int64_t t, double el, double *best)
{
    if (!isfinite(gap))
        return NLA_FW_STOP_NUMERIC;
    if (gap < *best)
        *best = gap;
    if (gap <= opt->tol)
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
    }
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

/* ------------------------------------------------------------------- loop */

nla_status fw_solve(nla_context *ctx, const nla_fw_objective *obj, const nla_fw_set *set,
                    const nla_fw_options *opt, double *x, nla_fw_result *res)
{
    struct ws w;
    struct step st;
    double t0 = fw_now(), f, fn, gap = INFINITY, best = INFINITY, Lest = opt->L, el = 0;
    int64_t t = 0, n = set->n;
    nla_fw_stop stop = NLA_FW_STOP_MAX_ITER;
    nla_status s;
    int k;

    if ((s = ws_init(&w, obj, set)) != NLA_OK)
        return nla_fail(ctx, s, "nla_fw_solve", "cannot allocate the workspace");
    memcpy(w.x, x, (size_t)n * sizeof(double));
    if (opt->variant != NLA_FW_VANILLA && (s = active_init(&w.as, w.x, n, w.vm)) != NLA_OK)
        goto fail;
    if (w.builtin && (s = fw_op_apply(ctx, &obj->op, 0, w.x, w.w)) != NLA_OK)
        goto fail;
    if ((s = evaluate(ctx, obj, &w, w.x, &f, w.g)) != NLA_OK)
        goto fail;
    if (opt->out)
        fw_verbose_header(opt->out);
    if (!isfinite(f) || !all_finite(w.g, n)) {
        stop = NLA_FW_STOP_NUMERIC;
        goto done;
    }
    for (;;) {
        double gx, gv;
        if ((s = fw_set_lmo(ctx, set, w.g, &w.lmo)) != NLA_OK)
            goto fail;
        gx = dot(w.g, w.x, n);
        gv = fw_vx_dot(&w.lmo.v, w.g, n, w.vm);
        gap = gx - gv;
        el = fw_now() - t0;
        if ((k = fw_check_stop(opt, gap, t, el, &best)) >= 0) {
            stop = (nla_fw_stop)k;
            break;
        }
        if ((s = direction(ctx, obj, opt, &w, gx, gv, gap, &st)) != NLA_OK)
            goto fail;
        if (w.uquad && !(isfinite(st.curv) && all_finite(w.hd, n))) {
            stop = NLA_FW_STOP_NUMERIC;
            break;
        }
        switch (opt->rule) {
        case NLA_FW_SHORT_STEP:
            st.gamma = st.dd > 0 ? clip(-st.dg / (opt->L * st.dd), st.gmax) : 0;
            break;
        case NLA_FW_EXACT:
            st.gamma = st.curv > 0 ? clip(-st.dg / st.curv, st.gmax)
                                   : st.dg < 0 ? st.gmax : 0;
            break;
        case NLA_FW_ADAPTIVE:
            if (st.dd <= 0)
                st.gamma = 0;
            else if (adaptive_step(obj, &w, f, &Lest, &st) != 0) {
                stop = NLA_FW_STOP_NUMERIC;
                goto done;
            }
            break;
        default:
            st.gamma = clip(2.0 / ((double)t + 2.0), st.gmax);
            break;
        }
        if (st.away >= 0 && st.gamma >= st.gmax)
            st.type = NLA_FW_STEP_DROP;
        {
            nla_fw_state state = { t, f, gap, st.gamma, st.type, w.as.len, el, n, w.x };
            if ((k = fw_report_step(opt, &state)) >= 0) {
                stop = (nla_fw_stop)k;
                break;
            }
        }
        for (int64_t i = 0; i < n; i++)
            w.xn[i] = w.x[i] + st.gamma * w.d[i];
        if (w.builtin)
            for (int64_t i = 0; i < w.rows; i++)
                w.w[i] += st.gamma * w.md[i];
        if ((s = update_active(&w, opt, &st)) != NLA_OK)
            goto fail;
        t++;
        if (w.builtin && t % FW_REFRESH == 0 &&
            (s = fw_op_apply(ctx, &obj->op, 0, w.xn, w.w)) != NLA_OK)
            goto fail;
        if (w.uquad && t % FW_REFRESH != 0) {
            for (int64_t i = 0; i < n; i++)
                w.g[i] += st.gamma * w.hd[i];
            fn = f + st.gamma * st.dg + 0.5 * st.gamma * st.gamma * st.curv;
        } else if ((s = evaluate(ctx, obj, &w, w.xn, &fn, w.g)) != NLA_OK)
            goto fail;
        if (!isfinite(fn) || !all_finite(w.g, n)) {
            stop = NLA_FW_STOP_NUMERIC;
            t--;
            break;
        }
        f = fn;
        {
            double *tmp = w.x;
            w.x = w.xn;
            w.xn = tmp;
        }
    }
done:
    memcpy(x, w.x, (size_t)n * sizeof(double));
    {
        struct fw_end e = { stop, t, w.as.len, f, gap, best, fw_now() - t0 };
        ws_free(&w);
        return fw_finish(ctx, opt, &e, res);
    }
fail:
    ws_free(&w);
    return nla_fail(ctx, s, "nla_fw_solve", "%s", nla_strerror(s));
}
