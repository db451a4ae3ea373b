/*
 * fw_solve.c - the Frank-Wolfe loop.
 *
 * Iteration t, at x_t with f_t and g_t = grad f(x_t):
 *   v = LMO(g_t); gap = <g_t, x_t - v>; stop if gap <= tol (or max_iter,
 *   the time limit, the callback);
 *   a direction d with its largest step gamma_max (fw.h, fw_move):
 *     FW        d = v - x          gamma_max = 1
 *     away      d = x - a          gamma_max = l_a / (1 - l_a)
 *     pairwise  d = v - a          gamma_max = l_a
 *     local     d = s - a          gamma_max = l_a
 *   where a is the active atom with the largest <g, a> and s the one with
 *   the least <g, s>.  choose() says which the variant takes: away-step
 *   takes the away direction when <g, a - x> beats the FW gap; blended
 *   pairwise (BPCG) the local direction, with no use for v, when
 *   <g, a - s> >= gap / FW_LAZY_K;
 *   gamma by the step rule, x_{t+1} = x_t + gamma d, and the active set's
 *   weights follow (fw_active.c).  When atoms leave a set of sparse atoms,
 *   x is rebuilt from the weights, so that it has exact zeros off their
 *   support and no entry of rounding's sign.
 *
 * Lazy steps (Braun, Pokutta, Zink 2017), as FrankWolfe.jl takes them:
 * with phi an estimate of the gap, a step that the active set promises
 * to gain phi / FW_LAZY_K by (choose_lazy) is taken without calling the
 * LMO; otherwise the LMO is called, and when even its vertex gains less
 * than phi / FW_LAZY_K, phi becomes min(gap, phi / 2) and x stays (a "gap"
 * step).  The solve stops on the gap only where the LMO was called, and
 * max_iter and the time limit call it, so that the gap reported is always
 * that of the x returned.
 *
 * Least squares with a dense A over sparse vertices (simplices, L1, K-sparse;
 * fw_gram_fits) moves to G = A'A after n / FW_GRAM_DIV iterations, once
 * every atom is sparse: then G d comes from the columns of G at the
 * vertices of d (G x = g + A'b), and g and f follow it as for a user
 * quadratic, O(n) an iteration; every FW_REFRESH moves both are
 * computed afresh from the columns of A and G at x's non-zeros.
 *
 * Built-in objectives carry the image w = M x along (w += gamma M d, with
 * M v a few columns of M for sparse vertices), so an iteration of least
 * squares over a simplex costs one product with M' plus O(m + n); w is
 * recomputed from x every FW_REFRESH moves (steps that move x) to stop
 * rounding drift.
 * The curvature d'Hd is then known, which gives the exact line search and
 * makes backtracking free of extra products.
 *
 * A user quadratic gives H d through its hv callback, once an iteration:
 * d'Hd is <d, H d>, and the next gradient and f follow without calling f
 * (g += gamma H d, f += gamma <g,d> + gamma^2 d'Hd / 2), which f refreshes
 * every FW_REFRESH moves.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "opt/fw.h"

/* the constants the backend loops follow too (core/backend.h) */
#define FW_REFRESH NLA_FW_REFRESH
#define FW_BACKTRACK_MAX NLA_FW_BACKTRACK_MAX
#define FW_ADAPT_ETA NLA_FW_ADAPT_ETA
#define FW_ADAPT_TAU NLA_FW_ADAPT_TAU
/* Least squares over sparse vertices switches to the Gram matrix after
   n / FW_GRAM_DIV iterations, when the products with A' already paid for
   equal G's cost (the rent-or-buy rule): G's upper triangle is m n^2 / 2
   multiply-adds at gemm's speed, an iteration without it streams A once,
   m n multiply-adds at 8 bytes each, and one core's gemm does 4 to 6 of
   those in the time memory gives 8 bytes (doc/tuning.md 8). */
#define FW_GRAM_DIV 8
/* A local or lazy step must promise gap / FW_LAZY_K: FrankWolfe.jl's
   lazy_tolerance, whose 2 keeps iterates sparse (the BPCG paper's 1 takes
   fewer local steps). */
#define FW_LAZY_K 2.0

static int all_finite(const double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* --------------------------------------------------------------- workspace */

struct ws {
    int64_t n, vm, rows;
    int builtin, uquad;                 /* image w; a user quadratic (hd) */
    int curv;                           /* the rule uses d'Hd (not agnostic) */
    double *buf;
    double *x, *xn, *g, *d, *xt, *gt, *hd;  /* n each */
    double *w, *mv, *ma, *md;           /* rows each (built-in) */
    double *scratch;                    /* max(n, rows) */
    fw_lmo_work lmo;
    fw_active as;
    int active, lazy;                   /* an active set; lazy steps */
    int use_gram;                       /* g and f follow G d */
    int64_t gram_at;                    /* the iteration to try it at, or -1 */
    double *gram, *gc;                  /* G = A'A and A'b */
    int64_t *xidx;                      /* x's non-zeros (n each) */
    double *xval;
    fw_face *face;                      /* nuclear BPCG: face steps */
    double lcurv;                       /* the largest d'Hd/|d|^2 seen */
};

/* The iteration at which least squares tries G, or -1: n / FW_GRAM_DIV,
   or NLA_FW_GRAM=never|always (tests force each path). */
static int64_t gram_when(const nla_fw_objective *obj, const nla_fw_set *set, int64_t n)
{
    const char *env = getenv("NLA_FW_GRAM");
    if (!fw_gram_fits(obj, set) || (env && strcmp(env, "never") == 0))
        return -1;
    return env && strcmp(env, "always") == 0 ? 0 : n / FW_GRAM_DIV;
}

static void ws_free(struct ws *w)
{
    free(w->buf);
    fw_lmo_work_free(&w->lmo);
    fw_active_free(&w->as);
    free(w->gram);
    free(w->gc);
    free(w->xidx);
    free(w->xval);
    fw_face_free(w->face);
}

static nla_status ws_init(struct ws *w, const nla_fw_objective *obj, const nla_fw_set *set)
{
    size_t n, rows, total;
    double *p;

    memset(w, 0, sizeof *w);
    w->n = set->n;
    w->vm = set->m;
    w->builtin = !fw_obj_is_user(obj);
    w->uquad = obj->kind == FW_OBJ_USER_QUAD;
    w->rows = fw_obj_image_len(obj);
    w->gram_at = gram_when(obj, set, w->n);
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
    nla_fw_step_type type;     /* FW, away, pairwise, local or gap */
    fw_move mv;
    double gto, gfrom;         /* <g, to>, <g, a_from> */
    double dg, dd, curv;       /* <g,d>, |d|^2, d'Hd (built-in, user quadratic) */
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
            if (ok && -gamma * st->dg <= 8 * DBL_EPSILON * (fabs(f) + fabs(ft))) {
                /* the test is rounding: it cannot lower L, keep the last */
                st->gamma = clip(-st->dg / (*Lest * st->dd), st->gmax);
                return 0;
            }
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

/* The candidates of an iteration: <g, x>, the LMO's vertex with <g, v>
   and the gap (lmo: called), and the active set's extremes a and s. */
struct cand {
    double gx, gv, gap;
    double floor;              /* a gap below it is no success (fw_check_stop) */
    int lmo;
    int64_t ia, is;
    double ga, gs;
};

static void take(struct step *st, nla_fw_step_type type, fw_dir dir, const fw_vertex *to,
                 int64_t to_idx, double gto, int64_t from, double gfrom)
{
    st->type = type;
    st->mv.dir = dir;
    st->mv.to = to;
    st->mv.to_idx = to_idx;
    st->mv.from = from;
    st->gto = gto;
    st->gfrom = gfrom;
}

/* The step after an LMO call, for every variant (lazy or not). */
static void choose(const nla_fw_options *opt, const struct ws *w, const struct cand *c,
                   struct step *st)
{
    const fw_vertex *v = &w->lmo.v;
    int have_a = c->ia >= 0;
    double lam = have_a ? w->as.a[c->ia].lambda : 0;

    take(st, NLA_FW_STEP_FW, FW_DIR_FW, v, -1, c->gv, -1, 0);
    switch (opt->variant) {
    case NLA_FW_AWAY:
        if (!w->lazy && have_a && c->ga - c->gx > c->gap && lam < 1 - FW_PURGE)
            take(st, NLA_FW_STEP_AWAY, FW_DIR_AWAY, NULL, -1, 0, c->ia, c->ga);
        break;
    case NLA_FW_PAIRWISE:
        if (have_a && !fw_vx_equal(w->as.a[c->ia].v, v, w->n, w->vm))
            take(st, NLA_FW_STEP_PAIRWISE, FW_DIR_PAIR, v, -1, c->gv, c->ia, c->ga);
        break;
    case NLA_FW_BLENDED_PAIRWISE:
        if (!w->lazy && have_a && c->is != c->ia && c->ga - c->gs >= c->gap / FW_LAZY_K)
            take(st, NLA_FW_STEP_LOCAL, FW_DIR_PAIR, w->as.a[c->is].v, c->is, c->gs, c->ia,
                 c->ga);
        break;
    default:
        break;
    }
}

/* BPCG over the nuclear ball: the local step of fw_face.c when it promises
   gap / FW_LAZY_K, a FW step otherwise; L for its projected gradient from
   the adaptive rule, or the largest curvature seen.  The atoms' extremes,
   m c flops each, are only needed where there is no face step. */
static void choose_face(nla_context *ctx, const nla_fw_options *opt, struct ws *w,
                        struct cand *c, double L, struct step *st)
{
    double dg, gmax, lg = fw_face_plan(ctx, w->face, &w->as, w->g, L > 0 ? L : w->lcurv > 0 ?
                                       w->lcurv : 1, w->d, &dg, &gmax);
    if (isnan(lg)) {   /* no face step: BPCG's own choice */
        fw_active_extremes(&w->as, w->g, w->n, w->vm, &c->ia, &c->ga, &c->is, &c->gs);
        choose(opt, w, c, st);
        return;
    }
    take(st, NLA_FW_STEP_FW, FW_DIR_FW, &w->lmo.v, -1, c->gv, -1, 0);
    if (lg >= c->gap / FW_LAZY_K && dg < 0) {
        take(st, NLA_FW_STEP_LOCAL, FW_DIR_FACE, NULL, -1, 0, -1, 0);
        st->dg = dg;
        st->gmax = gmax;
    }
}

/* A lazy step from the active set alone, if one promises phi / FW_LAZY_K:
   1 and st filled, or 0 (call the LMO). */
static int choose_lazy(const nla_fw_options *opt, const struct ws *w, const struct cand *c,
                       double phi, struct step *st)
{
    double want = phi / FW_LAZY_K;
    if (c->ia < 0)
        return 0;
    if (opt->variant == NLA_FW_AWAY) {
        /* the larger of the two promises, as FrankWolfe.jl's lazy_afw_step */
        if (c->gx - c->gs >= want && c->gx - c->gs >= c->ga - c->gx) {
            take(st, NLA_FW_STEP_LOCAL, FW_DIR_FW, w->as.a[c->is].v, c->is, c->gs, -1, 0);
            return 1;
        }
        if (c->ga - c->gx >= want && w->as.a[c->ia].lambda < 1 - FW_PURGE) {
            take(st, NLA_FW_STEP_AWAY, FW_DIR_AWAY, NULL, -1, 0, c->ia, c->ga);
            return 1;
        }
        return 0;
    }
    if (c->is != c->ia && c->ga - c->gs >= want) {
        take(st, NLA_FW_STEP_LOCAL, FW_DIR_PAIR, w->as.a[c->is].v, c->is, c->gs, c->ia,
             c->ga);
        return 1;
    }
    return 0;
}

/* w->hd = G d from the columns of G at d's vertices (G x = g + A'b). */
static void gram_hd(struct ws *w, const struct step *st)
{
    const fw_vertex *a = st->mv.from >= 0 ? w->as.a[st->mv.from].v : NULL;
    int64_t n = w->n;

    for (int64_t i = 0; i < n; i++)
        w->hd[i] = st->mv.dir == FW_DIR_PAIR ? 0
                   : st->mv.dir == FW_DIR_FW ? -(w->g[i] + w->gc[i])
                                              : w->g[i] + w->gc[i];
    if (st->mv.dir != FW_DIR_AWAY)
        fw_gram_axpy(w->gram, n, st->mv.to, 1.0, w->hd);
    if (a)
        fw_gram_axpy(w->gram, n, a, -1.0, w->hd);
}

/* Moves to G when every atom is sparse (else tries again next iteration):
   NLA_OK, with w->use_gram set unless memory ran short, or a kernel's
   failure. */
static nla_status gram_start(nla_context *ctx, const nla_fw_objective *obj,
                             const nla_fw_options *opt, struct ws *w, int64_t t)
{
    size_t n = (size_t)w->n;
    nla_status s;
    for (int64_t i = 0; i < w->as.len; i++)
        if (w->as.a[i].v->kind != FW_VX_SPARSE)
            return NLA_OK;
    w->gram_at = -1;
    if (n > SIZE_MAX / sizeof(double) / (n ? n : 1) ||
        !(w->gram = malloc(n * n * sizeof(double))) ||
        !(w->gc = malloc(n * sizeof(double))) || !(w->xval = malloc(n * sizeof(double))) ||
        !(w->xidx = malloc(n * sizeof(int64_t))))
        return NLA_OK;
    if ((s = fw_gram_build(ctx, obj, w->gram, w->gc)) != NLA_OK)
        return s;
    w->use_gram = 1;
    if (opt->out)
        fprintf(opt->out, "%10lld %-8s the gradient from G = A'A (%lld x %lld) on\n",
                (long long)t, "gram", (long long)n, (long long)n);
    return NLA_OK;
}

/* f and g at x afresh, by the columns of A and G at x's non-zeros (the
   iterates of sparse atoms are sparse): w = A x, f from w, g = G x - A'b. */
static nla_status gram_refresh(nla_context *ctx, const nla_fw_objective *obj, struct ws *w,
                               const double *x, double *f)
{
    fw_vertex xv;
    nla_status s;

    memset(&xv, 0, sizeof xv);
    xv.kind = FW_VX_SPARSE;
    xv.idx = w->xidx;
    xv.val = w->xval;
    for (int64_t i = 0; i < w->n; i++)
        if (x[i] != 0) {
            xv.idx[xv.nnz] = i;
            xv.val[xv.nnz++] = x[i];
        }
    if ((s = fw_op_apply_vertex(ctx, &obj->op, &xv, 1, w->w, w->scratch)) != NLA_OK ||
        (s = fw_obj_from_image(ctx, obj, x, w->w, f, NULL, w->scratch)) != NLA_OK)
        return s;
    for (int64_t i = 0; i < w->n; i++)
        w->g[i] = -w->gc[i];
    fw_gram_axpy(w->gram, w->n, &xv, 1.0, w->g);
    return NLA_OK;
}

/* w->d for st's move, with dg, dd, curv and gmax, and w->md = M d
   (built-in) or w->hd = H d (user quadratic). */
static nla_status direction(nla_context *ctx, const nla_fw_objective *obj, struct ws *w,
                            double gx, struct step *st)
{
    const fw_vertex *to = st->mv.to;
    const fw_vertex *a = st->mv.from >= 0 ? w->as.a[st->mv.from].v : NULL;
    double lam = a ? w->as.a[st->mv.from].lambda : 0;
    int64_t n = w->n, rows = w->rows;
    nla_status s = NLA_OK;

    switch (st->mv.dir) {
    case FW_DIR_AWAY:
        memcpy(w->d, w->x, (size_t)n * sizeof(double));
        fw_vx_axpy(a, -1.0, w->d, n, w->vm);
        st->dg = gx - st->gfrom;
        st->gmax = lam / (1 - lam);
        if (w->builtin && !w->use_gram &&
            (s = fw_op_apply_vertex(ctx, &obj->op, a, w->vm, w->ma,
                                                  w->scratch)) == NLA_OK)
            for (int64_t i = 0; i < rows; i++)
                w->md[i] = w->w[i] - w->ma[i];
        break;
    case FW_DIR_PAIR:
        memset(w->d, 0, (size_t)n * sizeof(double));
        fw_vx_axpy(to, 1.0, w->d, n, w->vm);
        fw_vx_axpy(a, -1.0, w->d, n, w->vm);
        st->dg = st->gto - st->gfrom;
        st->gmax = lam;
        if (w->builtin && !w->use_gram &&
            (s = fw_op_apply_vertex(ctx, &obj->op, to, w->vm, w->mv, w->scratch)) == NLA_OK &&
            (s = fw_op_apply_vertex(ctx, &obj->op, a, w->vm, w->ma, w->scratch)) == NLA_OK)
            for (int64_t i = 0; i < rows; i++)
                w->md[i] = w->mv[i] - w->ma[i];
        break;
    case FW_DIR_FACE:          /* d, dg and gmax are fw_face_plan's */
        if (w->builtin)
            s = fw_op_apply(ctx, &obj->op, 0, w->d, w->md);
        break;
    case FW_DIR_FW:
        for (int64_t i = 0; i < n; i++)
            w->d[i] = -w->x[i];
        fw_vx_axpy(to, 1.0, w->d, n, w->vm);
        st->dg = st->gto - gx;
        st->gmax = 1;
        if (w->builtin && !w->use_gram &&
            (s = fw_op_apply_vertex(ctx, &obj->op, to, w->vm, w->mv, w->scratch)) == NLA_OK)
            for (int64_t i = 0; i < rows; i++)
                w->md[i] = w->mv[i] - w->w[i];
        break;
    }
    st->dd = fw_dot(w->d, w->d, n);
    st->curv = 0;
    if (w->use_gram) {
        gram_hd(w, st);
        st->curv = fw_dot(w->d, w->hd, n);
    } else if (w->builtin && w->curv)
        st->curv = fw_obj_curvature(obj, w->d, w->md);
    if (w->uquad) {
        obj->hv(n, w->d, w->hd, obj->user);
        st->curv = fw_dot(w->d, w->hd, n);
    }
    return s;
}

/* ------------------------------------------------------------------- loop */

/* gamma by the step rule; -1 where backtracking fails. */
static int step_size(const nla_fw_objective *obj, const nla_fw_options *opt, struct ws *w,
                     double f, int64_t t, double *Lest, struct step *st)
{
    switch (opt->rule) {
    case NLA_FW_SHORT_STEP:
        st->gamma = st->dd > 0 ? clip(-st->dg / (opt->L * st->dd), st->gmax) : 0;
        return 0;
    case NLA_FW_EXACT:
        st->gamma = st->curv > 0 ? clip(-st->dg / st->curv, st->gmax)
                                 : st->dg < 0 ? st->gmax : 0;
        return 0;
    case NLA_FW_ADAPTIVE:
        st->gamma = 0;
        return st->dd > 0 ? adaptive_step(obj, w, f, Lest, st) : 0;
    default:
        st->gamma = clip(2.0 / ((double)t + 2.0), st->gmax);
        return 0;
    }
}

/* The LMO at the current gradient: c->gv and c->gap.  An inexact LMO
   (nuclear ball, spectraplex) is solved again, harder, when its gap is
   negative or would end the solve (<= tol): a vector that is not the top
   one can give a gap of any sign. */
static nla_status call_lmo(nla_context *ctx, const nla_fw_set *set, double tol, struct ws *w,
                           struct cand *c, int64_t *calls)
{
    for (int pass = 0; pass < 2; pass++) {
        nla_status s;
        w->lmo.refine = pass;
        s = fw_set_lmo(ctx, set, w->g, &w->lmo);
        w->lmo.refine = 0;
        if (s != NLA_OK)
            return s;
        (*calls)++;
        c->gv = fw_vx_dot(&w->lmo.v, w->g, w->n, w->vm);
        c->gap = c->gx - c->gv;
        c->floor = fw_set_exact(set) ? -INFINITY
                   : -8 * DBL_EPSILON * (fabs(c->gx) + fabs(c->gv));
        if (fw_set_exact(set) || c->gap > tol)
            break;
    }
    c->lmo = 1;
    return NLA_OK;
}

nla_status fw_solve(nla_context *ctx, const nla_fw_objective *obj, const nla_fw_set *set,
                    const nla_fw_options *opt, double *x, nla_fw_result *res)
{
    struct ws w;
    struct step st;
    struct cand c;
    struct fw_end e = { NLA_FW_STOP_MAX_ITER, 0, 0, 0, NAN, INFINITY, INFINITY, 0, 0 };
    double t0 = fw_now(), fn, Lest = opt->L, phi = INFINITY;
    int64_t n = set->n, removed, moves = 0;   /* moves: steps that moved x (not GAP) */
    int fresh;                 /* f and g from x itself, not updated by the step */
    nla_status s;
    int k;

    if ((s = ws_init(&w, obj, set)) != NLA_OK)
        return nla_fail(ctx, s, "nla_fw_solve", "cannot allocate the workspace");
    w.active = opt->variant != NLA_FW_VANILLA;
    w.curv = opt->rule != NLA_FW_AGNOSTIC;
    w.lazy = w.active && opt->lazy;
    memcpy(w.x, x, (size_t)n * sizeof(double));
    if (w.active && (s = fw_active_init(&w.as, w.x, n, w.vm)) != NLA_OK)
        goto fail;
    if (set->kind == FW_SET_NUCLEAR && opt->variant == NLA_FW_BLENDED_PAIRWISE && !w.lazy &&
        ((s = fw_face_create(set, &w.face)) != NLA_OK ||
         (s = fw_face_start(w.face, &w.as, x)) != NLA_OK))
        goto fail;
    if (w.builtin && (s = fw_op_apply(ctx, &obj->op, 0, w.x, w.w)) != NLA_OK)
        goto fail;
    if ((s = evaluate(ctx, obj, &w, w.x, &e.f, w.g)) != NLA_OK)
        goto fail;
    if (opt->out)
        fw_verbose_header(opt->out);
    if (!isfinite(e.f) || !all_finite(w.g, n)) {
        e.stop = NLA_FW_STOP_NUMERIC;
        e.at_start = 1;
        goto done;
    }
    memset(&c, 0, sizeof c);
    for (;;) {
        c.gx = fw_dot(w.g, w.x, n);
        c.lmo = 0;
        c.ia = c.is = -1;
        if (w.gram_at >= 0 && e.t >= w.gram_at &&
            (s = gram_start(ctx, obj, opt, &w, e.t)) != NLA_OK)
            goto fail;
        e.el = fw_now() - t0;
        if (w.active && !(w.face && fw_face_ready(&w.as)))
            fw_active_extremes(&w.as, w.g, n, w.vm, &c.ia, &c.ga, &c.is, &c.gs);
        /* a lazy step needs no LMO; a stop by max_iter or time calls it */
        if (!(w.lazy && e.t < opt->max_iter &&
              !(opt->time_limit > 0 && e.el >= opt->time_limit) &&
              choose_lazy(opt, &w, &c, phi, &st))) {
            if ((s = call_lmo(ctx, set, opt->tol, &w, &c, &e.lmo_calls)) != NLA_OK)
                goto fail;
            e.gap = c.gap;
            if ((k = fw_check_stop(opt, c.gap, e.t, e.el, &e.best, c.floor)) >= 0) {
                e.stop = (nla_fw_stop)k;
                break;
            }
            if (w.lazy && !(phi < INFINITY))
                phi = c.gap;   /* the first call */
            if (w.lazy && c.gap < phi / FW_LAZY_K) {
                phi = fmin(c.gap, phi / 2);
                st.type = NLA_FW_STEP_GAP;
            } else if (w.face && fw_face_ready(&w.as)) {
                choose_face(ctx, opt, &w, &c, Lest, &st);
            } else {
                choose(opt, &w, &c, &st);
            }
        }
        st.gamma = 0;
        if (st.type != NLA_FW_STEP_GAP) {
            if ((s = direction(ctx, obj, &w, c.gx, &st)) != NLA_OK)
                goto fail;
            if (w.uquad && !(isfinite(st.curv) && all_finite(w.hd, n))) {
                e.stop = NLA_FW_STOP_NUMERIC;
                break;
            }
            if (st.dd > 0 && st.curv > 0)
                w.lcurv = fmax(w.lcurv, st.curv / st.dd);
            if (step_size(obj, opt, &w, e.f, e.t, &Lest, &st) != 0) {
                e.stop = NLA_FW_STOP_NUMERIC;
                break;
            }
            if (st.mv.from >= 0 && st.gamma >= st.gmax)
                st.type = NLA_FW_STEP_DROP;
        }
        {
            nla_fw_state state = { e.t, e.f, e.gap, st.gamma, st.type, w.as.len, e.el, n,
                                   w.x, e.lmo_calls };
            if ((k = fw_report_step(opt, &state)) >= 0) {
                e.stop = (nla_fw_stop)k;
                break;
            }
        }
        if (st.type == NLA_FW_STEP_GAP) {
            e.t++;
            continue;
        }
        for (int64_t i = 0; i < n; i++)
            w.xn[i] = w.x[i] + st.gamma * w.d[i];
        if (w.builtin && !w.use_gram)
            for (int64_t i = 0; i < w.rows; i++)
                w.w[i] += st.gamma * w.md[i];
        fresh = ++moves % FW_REFRESH == 0;
        if (st.mv.dir == FW_DIR_FACE) {
            if ((s = fw_face_commit(w.face, &w.as, st.gamma, w.xn, &fresh)) != NLA_OK)
                goto fail;
        } else if (w.active) {
            if ((s = fw_active_step(&w.as, &st.mv, st.gamma, st.type == NLA_FW_STEP_DROP,
                                    n, w.vm, &removed)) != NLA_OK)
                goto fail;
            if (removed)
                fw_active_rebuild(&w.as, w.xn, n);
        }
        e.t++;
        if ((w.uquad || w.use_gram) && !fresh) {
            for (int64_t i = 0; i < n; i++)
                w.g[i] += st.gamma * w.hd[i];
            fn = e.f + st.gamma * st.dg + 0.5 * st.gamma * st.gamma * st.curv;
        } else if (w.use_gram) {
            s = gram_refresh(ctx, obj, &w, w.xn, &fn);
        } else {
            if (w.builtin && fresh)
                s = fw_op_apply(ctx, &obj->op, 0, w.xn, w.w);
            if (s == NLA_OK)
                s = evaluate(ctx, obj, &w, w.xn, &fn, w.g);
        }
        if (s != NLA_OK)
            goto fail;
        if (!isfinite(fn) || !all_finite(w.g, n)) {
            e.stop = NLA_FW_STOP_NUMERIC;
            e.t--;
            break;
        }
        e.f = fn;
        {
            double *tmp = w.x;
            w.x = w.xn;
            w.xn = tmp;
        }
    }
    /* a callback stop after a lazy step: the gap of the x returned */
    if (e.stop == NLA_FW_STOP_CALLBACK && !c.lmo) {
        if ((s = call_lmo(ctx, set, opt->tol, &w, &c, &e.lmo_calls)) != NLA_OK)
            goto fail;
        e.gap = c.gap;
        if (c.gap < e.best)
            e.best = c.gap;
    }
done:
    memcpy(x, w.x, (size_t)n * sizeof(double));
    if (e.t > 0)
        fw_set_snap(set, x);
    e.active = w.as.len;
    e.el = fw_now() - t0;
    ws_free(&w);
    return fw_finish(ctx, opt, &e, res);
fail:
    ws_free(&w);
    return nla_fail(ctx, s, "nla_fw_solve", "%s", nla_strerror(s));
}
