/*
 * fw_set.c - the feasible sets of the Frank-Wolfe solver: linear
 * minimization oracles, structured vertices and the feasibility test of a
 * start point.
 *
 * A vertex is kept in the cheapest form that describes it exactly:
 * one-hot, K-sparse and permutation vertices as (index, value) lists,
 * nuclear-ball and spectraplex vertices as s*u*w' (m + cols numbers), box,
 * L-inf and K-norm vertices densely.  The matrix sets' LMOs are in
 * fw_eig.c, the Birkhoff polytope's in fw_assign.c.
 * Inner products and axpys then cost O(nnz), O(n) or O(m*cols) as the form
 * allows, and the active set stores each vertex compactly.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "opt/fw.h"

/* --------------------------------------------------------- vertex algebra */

double fw_vx_dot(const fw_vertex *v, const double *g, int64_t n, int64_t m)
{
    double s = 0;
    switch (v->kind) {
    case FW_VX_SPARSE:
        for (int64_t i = 0; i < v->nnz; i++)
            s += v->val[i] * g[v->idx[i]];
        return s;
    case FW_VX_DENSE:
        for (int64_t i = 0; i < n; i++)
            s += v->dense[i] * g[i];
        return s;
    case FW_VX_RANK1:
        for (int64_t j = 0; j < n / m; j++) {
            double t = 0;
            for (int64_t i = 0; i < m; i++)
                t += v->u[i] * g[i + j * m];
            s += v->w[j] * t;
        }
        return v->s * s;
    }
    return 0;
}

void fw_vx_axpy(const fw_vertex *v, double alpha, double *y, int64_t n, int64_t m)
{
    switch (v->kind) {
    case FW_VX_SPARSE:
        for (int64_t i = 0; i < v->nnz; i++)
            y[v->idx[i]] += alpha * v->val[i];
        return;
    case FW_VX_DENSE:
        for (int64_t i = 0; i < n; i++)
            y[i] += alpha * v->dense[i];
        return;
    case FW_VX_RANK1:
        for (int64_t j = 0; j < n / m; j++) {
            double t = alpha * v->s * v->w[j];
            for (int64_t i = 0; i < m; i++)
                y[i + j * m] += t * v->u[i];
        }
        return;
    }
}

fw_vertex *fw_vx_clone(const fw_vertex *v, int64_t n, int64_t m)
{
    size_t nd = 0, ni = 0;
    fw_vertex *c;
    double *d;

    switch (v->kind) {
    case FW_VX_SPARSE: nd = (size_t)v->nnz; ni = (size_t)v->nnz; break;
    case FW_VX_DENSE:  nd = (size_t)n; break;
    case FW_VX_RANK1:  nd = (size_t)(m + n / m); break;
    }
    c = malloc(sizeof *c + nd * sizeof(double) + ni * sizeof(int64_t));
    if (!c)
        return NULL;
    *c = *v;
    d = (double *)(c + 1);
    switch (v->kind) {
    case FW_VX_SPARSE:
        c->val = d;
        c->idx = (int64_t *)(d + nd);
        memcpy(c->val, v->val, nd * sizeof(double));
        memcpy(c->idx, v->idx, ni * sizeof(int64_t));
        break;
    case FW_VX_DENSE:
        c->dense = d;
        memcpy(d, v->dense, nd * sizeof(double));
        break;
    case FW_VX_RANK1:
        c->u = d;
        c->w = d + m;
        memcpy(c->u, v->u, (size_t)m * sizeof(double));
        memcpy(c->w, v->w, (size_t)(n / m) * sizeof(double));
        break;
    }
    return c;
}

void fw_vx_free(fw_vertex *v)
{
    free(v);
}

int fw_vx_equal(const fw_vertex *a, const fw_vertex *b, int64_t n, int64_t m)
{
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case FW_VX_SPARSE:
        return a->nnz == b->nnz &&
               memcmp(a->idx, b->idx, (size_t)a->nnz * sizeof(int64_t)) == 0 &&
               memcmp(a->val, b->val, (size_t)a->nnz * sizeof(double)) == 0;
    case FW_VX_DENSE:
        return memcmp(a->dense, b->dense, (size_t)n * sizeof(double)) == 0;
    case FW_VX_RANK1:
        return a->s == b->s && memcmp(a->u, b->u, (size_t)m * sizeof(double)) == 0 &&
               memcmp(a->w, b->w, (size_t)(n / m) * sizeof(double)) == 0;
    }
    return 0;
}

/* ------------------------------------------------------------- workspace */

struct abs_idx { double a; int64_t i; };

nla_status fw_lmo_work_init(fw_lmo_work *w, const nla_fw_set *set)
{
    int64_t n = set->n, cap = 1, side, k = FW_LANCZOS_K;
    memset(w, 0, sizeof *w);
    if (set->kind == FW_SET_KSPARSE || set->kind == FW_SET_HYPERSIMPLEX)
        cap = set->k;
    if (set->kind == FW_SET_BIRKHOFF)
        cap = set->m;
    w->v.idx = malloc((size_t)cap * sizeof(int64_t));
    w->v.val = malloc((size_t)cap * sizeof(double));
    if (!w->v.idx || !w->v.val)
        goto nomem;
    switch (set->kind) {
    case FW_SET_LINF: case FW_SET_BOX: case FW_SET_KNORM: case FW_SET_USER:
        if (!(w->v.dense = malloc((size_t)(n ? n : 1) * sizeof(double))))
            goto nomem;
        break;
    case FW_SET_KSPARSE: case FW_SET_HYPERSIMPLEX:
        if ((size_t)n > SIZE_MAX / sizeof(struct abs_idx) ||
            !(w->sortbuf = malloc((size_t)n * sizeof(struct abs_idx))))
            goto nomem;
        break;
    case FW_SET_BIRKHOFF:
        if (!(w->sortbuf = malloc(fw_assign_bytes(set->m))))
            goto nomem;
        break;
    case FW_SET_NUCLEAR: case FW_SET_SPECTRAPLEX:
        side = fw_eig_side(set);
        k = side < k ? side : k;
        w->v.u = malloc((size_t)set->m * sizeof(double));
        w->v.w = malloc((size_t)set->cols * sizeof(double));
        w->warm = malloc((size_t)side * sizeof(double));
        w->opbuf = malloc((size_t)(set->m > set->cols ? set->m : set->cols) * sizeof(double));
        w->tri = malloc((size_t)(8 * k) * sizeof(double));
        if ((size_t)side > SIZE_MAX / sizeof(double) / (size_t)(k + 1))
            goto nomem;
        w->basis = malloc((size_t)side * (size_t)(k + 1) * sizeof(double));
        if (!w->v.u || !w->v.w || !w->warm || !w->opbuf || !w->tri || !w->basis)
            goto nomem;
        break;
    default:
        break;
    }
    return NLA_OK;
nomem:
    fw_lmo_work_free(w);
    return NLA_ENOMEM;
}

void fw_lmo_work_free(fw_lmo_work *w)
{
    free(w->v.idx);
    free(w->v.val);
    free(w->v.dense);
    free(w->v.u);
    free(w->v.w);
    free(w->sortbuf);
    free(w->basis);
    free(w->tri);
    free(w->opbuf);
    free(w->warm);
    memset(w, 0, sizeof *w);
}

/* ------------------------------------------------------------------ LMOs */

/* The first index of the smallest g_i (g finite): the least value by a
   reduction the compiler vectorizes, then its first place. */
static int64_t argmin(const double *g, int64_t n)
{
    double m = g[0];
    int64_t k = 0;
    for (int64_t i = 1; i < n; i++)
        m = g[i] < m ? g[i] : m;
    while (g[k] != m)
        k++;
    return k;
}

/* The first index of the largest |g_i| (g finite), the same way. */
static int64_t argmax_abs(const double *g, int64_t n)
{
    double m = 0;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        m = fabs(g[i]) > m ? fabs(g[i]) : m;
    while (fabs(g[k]) != m)
        k++;
    return k;
}

static void one_hot(fw_vertex *v, int64_t i, double val)
{
    v->kind = FW_VX_SPARSE;
    v->nnz = 1;
    v->idx[0] = i;
    v->val[0] = val;
}

/* The key a descending, then the index ascending: a total order, so the K
   chosen are unique even with ties. */
static int cmp_abs_idx(const void *x, const void *y)
{
    const struct abs_idx *a = x, *b = y;
    if (a->a != b->a)
        return a->a > b->a ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* v's indices: the k first of the n keys a_i (ties: lowest i) in
   ascending index order. */
static void k_first(struct abs_idx *s, int64_t n, int64_t k, fw_vertex *v)
{
    if (k == 1) {
        int64_t b = 0;
        for (int64_t i = 1; i < n; i++)
            if (s[i].a > s[b].a)
                b = i;
        v->idx[0] = b;
    } else {
        qsort(s, (size_t)n, sizeof *s, cmp_abs_idx);
        for (int64_t j = 0; j < k; j++)
            v->idx[j] = s[j].i;
        qsort(v->idx, (size_t)k, sizeof *v->idx, cmp_i64);
    }
    v->kind = FW_VX_SPARSE;
    v->nnz = k;
}

/* ksparse: the k largest |g_i| get -r sign(g_i); hypersimplex: the k
   least g_i get r. */
static void lmo_ksparse(const nla_fw_set *set, const double *g, fw_lmo_work *w)
{
    struct abs_idx *s = w->sortbuf;
    int hyper = set->kind == FW_SET_HYPERSIMPLEX;

    for (int64_t i = 0; i < set->n; i++) {
        s[i].a = hyper ? -g[i] : fabs(g[i]);
        s[i].i = i;
    }
    k_first(s, set->n, set->k, &w->v);
    for (int64_t j = 0; j < set->k; j++)
        w->v.val[j] = !hyper && g[w->v.idx[j]] > 0 ? -set->r : set->r;
}

/* The K-norm ball: the one-hot vertex -r sign(g_i) e_i (i: the largest
   |g_i|) or the dense -(r/k) sign(g), whichever is lower; one-hot on a
   tie. */
static void lmo_knorm(const nla_fw_set *set, const double *g, fw_vertex *v)
{
    int64_t n = set->n, i = argmax_abs(g, n);
    double mean = 0, rk = set->r / (double)set->k;

    for (int64_t j = 0; j < n; j++)      /* sum |g| / k, without overflow */
        mean += fabs(g[j]) / (double)set->k;
    /* the dense vertex only when it is lower beyond the sum's rounding */
    if (mean > fabs(g[i]) * (1 + (double)n * DBL_EPSILON)) {
        v->kind = FW_VX_DENSE;
        for (int64_t j = 0; j < n; j++)
            v->dense[j] = g[j] > 0 ? -rk : rk;
    } else {
        one_hot(v, i, g[i] > 0 ? -set->r : set->r);
    }
}

nla_status fw_set_lmo(nla_context *ctx, const nla_fw_set *set, const double *g,
                      fw_lmo_work *w)
{
    int64_t n = set->n, i;
    double r = set->r;
    fw_vertex *v = &w->v;

    switch (set->kind) {
    case FW_SET_PROB_SIMPLEX:
        one_hot(v, argmin(g, n), r);
        return NLA_OK;
    case FW_SET_UNIT_SIMPLEX:
        i = argmin(g, n);
        if (g[i] < 0)
            one_hot(v, i, r);
        else {
            v->kind = FW_VX_SPARSE;
            v->nnz = 0;
        }
        return NLA_OK;
    case FW_SET_L1:
        i = argmax_abs(g, n);
        one_hot(v, i, g[i] > 0 ? -r : r);
        return NLA_OK;
    case FW_SET_LINF:
        v->kind = FW_VX_DENSE;
        for (i = 0; i < n; i++)
            v->dense[i] = g[i] > 0 ? -r : r;
        return NLA_OK;
    case FW_SET_BOX:
        v->kind = FW_VX_DENSE;
        for (i = 0; i < n; i++)
            v->dense[i] = g[i] > 0 ? set->lo[i] : set->hi[i];
        return NLA_OK;
    case FW_SET_KSPARSE:
    case FW_SET_HYPERSIMPLEX:
        lmo_ksparse(set, g, w);
        return NLA_OK;
    case FW_SET_KNORM:
        lmo_knorm(set, g, v);
        return NLA_OK;
    case FW_SET_BIRKHOFF:
        fw_lmo_birkhoff(g, set->m, v, w->sortbuf);
        return NLA_OK;
    case FW_SET_NUCLEAR:
        return fw_lmo_nuclear(ctx, set, g, w);
    case FW_SET_SPECTRAPLEX:
        return fw_lmo_spectraplex(ctx, set, g, w);
    case FW_SET_USER:
        v->kind = FW_VX_DENSE;
        set->lmo(n, g, v->dense, set->user);
        return NLA_OK;
    }
    return NLA_EINVAL;
}

/* ----------------------------------------------------------- feasibility */

/* Matrices up to this many columns (of the smaller side) get an exact
   nuclear-norm test; larger ones only |X|_F <= r. */
#define FW_NUCLEAR_CHECK_MAX 256

static int linf_violation(const double *x, int64_t n, double r, double tol, char *why,
                          size_t len)
{
    for (int64_t i = 0; i < n; i++)
        if (fabs(x[i]) > r + tol) {
            snprintf(why, len, "|x[%lld]| = %g > r = %g", (long long)i, fabs(x[i]), r);
            return 1;
        }
    return 0;
}

static int neg_violation(const double *x, int64_t n, double tol, char *why, size_t len)
{
    for (int64_t i = 0; i < n; i++)
        if (x[i] < -tol) {
            snprintf(why, len, "x[%lld] = %g < 0", (long long)i, x[i]);
            return 1;
        }
    return 0;
}

static int cmp_desc(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a < b) - (a > b);
}

/* The K-norm: the sum of the k largest |x_i| (-1: ENOMEM). */
static double knorm(const double *x, int64_t n, int64_t k)
{
    double *a = malloc((size_t)n * sizeof(double)), s = 0;
    if (!a)
        return -1;
    for (int64_t i = 0; i < n; i++)
        a[i] = fabs(x[i]);
    qsort(a, (size_t)n, sizeof *a, cmp_desc);
    for (int64_t i = 0; i < k; i++)
        s += a[i];
    free(a);
    return s;
}

/* Every row and column of the n-by-n x sums to 1. */
static int stochastic_violation(const double *x, int64_t n, double tol, char *why,
                                size_t len)
{
    for (int64_t j = 0; j < n; j++) {
        double rs = 0, cs = 0;
        for (int64_t i = 0; i < n; i++) {
            cs += x[i + j * n];
            rs += x[j + i * n];
        }
        if (fabs(cs - 1) > tol || fabs(rs - 1) > tol) {
            snprintf(why, len, "%s %lld sums to %.17g, not 1", fabs(cs - 1) > tol ?
                     "column" : "row", (long long)j, fabs(cs - 1) > tol ? cs : rs);
            return 1;
        }
    }
    return 0;
}

static int nuclear_violation(const nla_fw_set *set, const double *x, double tol, char *why,
                             size_t len)
{
    double r = set->r, sc = fw_pow2_scale(x, set->n), fro = 0, nuc;
    for (int64_t i = 0; i < set->n; i++)      /* |X|_F without overflow */
        fro += (sc * x[i]) * (sc * x[i]);
    fro = sqrt(fro) / sc;
    double mn = (double)(set->m < set->cols ? set->m : set->cols);
    if (fro > r + tol) {
        snprintf(why, len, "|X|_F = %.17g > r = %.17g (so is |X|_*)", fro, r);
        return 1;
    }
    if (sqrt(mn) * fro <= r || mn > FW_NUCLEAR_CHECK_MAX)
        return 0;
    if ((nuc = fw_nuclear_norm(x, set->m, set->cols)) < 0)
        return -1;
    if (nuc > r + tol + 1e-12 * nuc) {
        snprintf(why, len, "|X|_* = %.17g > r = %.17g", nuc, r);
        return 1;
    }
    return 0;
}

static int spectraplex_violation(nla_context *ctx, const nla_fw_set *set, const double *x,
                                 double tol, char *why, size_t len)
{
    int64_t n = set->m;
    double tr = 0, lmin;
    for (int64_t j = 0; j < n; j++) {
        tr += x[j + j * n];
        for (int64_t i = j + 1; i < n; i++)
            if (fabs(x[i + j * n] - x[j + i * n]) > tol) {
                snprintf(why, len, "X is not symmetric: X[%lld][%lld] = %g, X[%lld][%lld] "
                         "= %g", (long long)i, (long long)j, x[i + j * n], (long long)j,
                         (long long)i, x[j + i * n]);
                return 1;
            }
    }
    if (fabs(tr - set->r) > tol) {
        snprintf(why, len, "trace(X) = %.17g != r = %.17g", tr, set->r);
        return 1;
    }
    if (isnan(lmin = fw_sym_min_eig(ctx, set, x)))
        return -1;
    if (lmin < -tol) {
        snprintf(why, len, "X has the eigenvalue %g < 0", lmin);
        return 1;
    }
    return 0;
}

int fw_set_infeasible(nla_context *ctx, const nla_fw_set *set, const double *x, char *why,
                      size_t len)
{
    int64_t n = set->n;
    double r = set->r, tol = 1e-9 * (r > 1 ? r : 1), sum = 0, asum = 0, kn;

    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) {
            snprintf(why, len, "x[%lld] is not finite", (long long)i);
            return 1;
        }
        sum += x[i];
        asum += fabs(x[i]);
    }
    tol += 4 * DBL_EPSILON * (double)n * asum;
    switch (set->kind) {
    case FW_SET_PROB_SIMPLEX:
    case FW_SET_UNIT_SIMPLEX:
        if (neg_violation(x, n, tol, why, len))
            return 1;
        if (set->kind == FW_SET_PROB_SIMPLEX && fabs(sum - r) > tol) {
            snprintf(why, len, "sum(x) = %.17g != r = %.17g", sum, r);
            return 1;
        }
        if (set->kind == FW_SET_UNIT_SIMPLEX && sum > r + tol) {
            snprintf(why, len, "sum(x) = %.17g > r = %.17g", sum, r);
            return 1;
        }
        return 0;
    case FW_SET_L1:
        if (asum > r + tol) {
            snprintf(why, len, "|x|_1 = %.17g > r = %.17g", asum, r);
            return 1;
        }
        return 0;
    case FW_SET_KSPARSE:
        if (asum > (double)set->k * r + tol * (double)set->k) {
            snprintf(why, len, "|x|_1 = %.17g > k*r = %.17g", asum, (double)set->k * r);
            return 1;
        }
        return linf_violation(x, n, r, tol, why, len);
    case FW_SET_KNORM:
        if ((kn = knorm(x, n, set->k)) < 0)
            return -1;
        if (kn > r + tol) {
            snprintf(why, len, "the sum of the %lld largest |x_i| = %.17g > r = %.17g",
                     (long long)set->k, kn, r);
            return 1;
        }
        return 0;
    case FW_SET_HYPERSIMPLEX:
        if (neg_violation(x, n, tol, why, len) || linf_violation(x, n, r, tol, why, len))
            return 1;
        if (fabs(sum - (double)set->k * r) > tol * (double)set->k) {
            snprintf(why, len, "sum(x) = %.17g != k*r = %.17g", sum, (double)set->k * r);
            return 1;
        }
        return 0;
    case FW_SET_BIRKHOFF:
        return neg_violation(x, n, tol, why, len) ||
               stochastic_violation(x, set->m, tol, why, len);
    case FW_SET_LINF:
        return linf_violation(x, n, r, tol, why, len);
    case FW_SET_BOX:
        for (int64_t i = 0; i < n; i++) {
            double s = fmax(fabs(set->lo[i]), fabs(set->hi[i]));
            double t = 1e-9 * (s > 1 ? s : 1);
            if (x[i] < set->lo[i] - t || x[i] > set->hi[i] + t) {
                snprintf(why, len, "x[%lld] = %g is outside [lo, hi] = [%g, %g]",
                         (long long)i, x[i], set->lo[i], set->hi[i]);
                return 1;
            }
        }
        return 0;
    case FW_SET_NUCLEAR:
        return nuclear_violation(set, x, tol, why, len);
    case FW_SET_SPECTRAPLEX:
        return spectraplex_violation(ctx, set, x, tol, why, len);
    case FW_SET_USER:
        return 0;
    }
    return 0;
}

const char *fw_set_name(const nla_fw_set *set)
{
    switch (set->kind) {
    case FW_SET_PROB_SIMPLEX: return "probability simplex";
    case FW_SET_UNIT_SIMPLEX: return "unit simplex";
    case FW_SET_L1:           return "L1 ball";
    case FW_SET_LINF:         return "L-inf ball";
    case FW_SET_BOX:          return "box";
    case FW_SET_KSPARSE:      return "K-sparse polytope";
    case FW_SET_KNORM:        return "K-norm ball";
    case FW_SET_HYPERSIMPLEX: return "hypersimplex";
    case FW_SET_BIRKHOFF:     return "Birkhoff polytope";
    case FW_SET_NUCLEAR:      return "nuclear-norm ball";
    case FW_SET_SPECTRAPLEX:  return "spectraplex";
    case FW_SET_USER:         return "user set (a host callback)";
    }
    return "?";
}

void fw_set_snap(const nla_fw_set *set, double *x)
{
    switch (set->kind) {
    case FW_SET_PROB_SIMPLEX:
    case FW_SET_UNIT_SIMPLEX:
    case FW_SET_BIRKHOFF:
        for (int64_t i = 0; i < set->n; i++)
            if (x[i] < 0)
                x[i] = 0;
        break;
    case FW_SET_HYPERSIMPLEX:
        for (int64_t i = 0; i < set->n; i++)
            x[i] = fmin(fmax(x[i], 0), set->r);
        break;
    case FW_SET_LINF:
        for (int64_t i = 0; i < set->n; i++)
            x[i] = fmin(fmax(x[i], -set->r), set->r);
        break;
    case FW_SET_BOX:
        for (int64_t i = 0; i < set->n; i++)
            x[i] = fmin(fmax(x[i], set->lo[i]), set->hi[i]);
        break;
    default:
        break;
    }
}
