/*
 * fw_set.c - the feasible sets of the Frank-Wolfe solver: linear
 * minimization oracles, structured vertices and the feasibility test of a
 * start point.
 *
 * A vertex is kept in the cheapest form that describes it exactly:
 * one-hot and K-sparse vertices as (index, value) lists, nuclear-ball
 * vertices as s*u*w' (m + cols numbers), box and L-inf vertices densely.
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
    int64_t n = set->n, cap = 1;
    memset(w, 0, sizeof *w);
    if (set->kind == FW_SET_KSPARSE)
        cap = set->k;
    w->v.idx = malloc((size_t)cap * sizeof(int64_t));
    w->v.val = malloc((size_t)cap * sizeof(double));
    if (!w->v.idx || !w->v.val)
        goto nomem;
    switch (set->kind) {
    case FW_SET_LINF: case FW_SET_BOX: case FW_SET_USER:
        if (!(w->v.dense = malloc((size_t)(n ? n : 1) * sizeof(double))))
            goto nomem;
        break;
    case FW_SET_KSPARSE:
        if ((size_t)n > SIZE_MAX / sizeof(struct abs_idx) ||
            !(w->sortbuf = malloc((size_t)n * sizeof(struct abs_idx))))
            goto nomem;
        break;
    case FW_SET_NUCLEAR:
        w->v.u = malloc((size_t)set->m * sizeof(double));
        w->v.w = malloc((size_t)set->cols * sizeof(double));
        w->warm = malloc((size_t)set->cols * sizeof(double));
        w->tmpc = malloc((size_t)set->cols * sizeof(double));
        if (!w->v.u || !w->v.w || !w->warm || !w->tmpc)
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
    free(w->warm);
    free(w->tmpc);
    memset(w, 0, sizeof *w);
}

/* ------------------------------------------------------------------ LMOs */

/* The first index of the smallest g_i. */
static int64_t argmin(const double *g, int64_t n)
{
    int64_t k = 0;
    for (int64_t i = 1; i < n; i++)
        if (g[i] < g[k])
            k = i;
    return k;
}

/* The first index of the largest |g_i|. */
static int64_t argmax_abs(const double *g, int64_t n)
{
    int64_t k = 0;
    double best = fabs(g[0]);
    for (int64_t i = 1; i < n; i++)
        if (fabs(g[i]) > best) {
            best = fabs(g[i]);
            k = i;
        }
    return k;
}

static void one_hot(fw_vertex *v, int64_t i, double val)
{
    v->kind = FW_VX_SPARSE;
    v->nnz = 1;
    v->idx[0] = i;
    v->val[0] = val;
}

/* |g| descending, then index ascending: a total order, so the K chosen
   are unique even with ties. */
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

static void lmo_ksparse(const nla_fw_set *set, const double *g, fw_lmo_work *w)
{
    struct abs_idx *s = w->sortbuf;
    int64_t n = set->n, k = set->k;
    fw_vertex *v = &w->v;

    for (int64_t i = 0; i < n; i++) {
        s[i].a = fabs(g[i]);
        s[i].i = i;
    }
    if (k == 1) {
        one_hot(v, argmax_abs(g, n), 0);
    } else {
        qsort(s, (size_t)n, sizeof *s, cmp_abs_idx);
        for (int64_t j = 0; j < k; j++)
            v->idx[j] = s[j].i;
        qsort(v->idx, (size_t)k, sizeof *v->idx, cmp_i64);
    }
    v->kind = FW_VX_SPARSE;
    v->nnz = k;
    for (int64_t j = 0; j < k; j++)
        v->val[j] = g[v->idx[j]] > 0 ? -set->r : set->r;
}

static double norm2(const double *x, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

/* A fixed pseudo-random unit direction (splitmix64), added to the warm
   start so that it is never orthogonal to the top singular vector. */
static void jitter(double *v, int64_t n, double scale)
{
    uint64_t s = 0x243f6a8885a308d3ULL;
    for (int64_t i = 0; i < n; i++) {
        uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        v[i] += scale * ((double)(z >> 11) * 0x1.0p-53 - 0.5);
    }
}

static void scal(double *x, int64_t n, double a)
{
    for (int64_t i = 0; i < n; i++)
        x[i] *= a;
}

/* Top singular pair of G (m-by-c) by power iteration on G'G:
   u = Gv/|Gv|, v = G'u/|G'u|, sigma = |G'u|, until v moves by at most tol
   (2-norm) in a sweep.  Stopping on the vector, not on sigma, matters: sigma
   converges twice as fast, so |sigma change| <= tol leaves the vertex only
   sqrt(tol) accurate.  With tied top singular values any vector of their
   space is a valid answer and v still settles (at the rate of the next
   gap).  The vertex is -r*u*v'. */
static nla_status lmo_nuclear(nla_context *ctx, const nla_fw_set *set, const double *g,
                              fw_lmo_work *w)
{
    int64_t m = set->m, c = set->cols;
    double *u = w->v.u, *v = w->v.w, *prev = w->tmpc, sigma = 0, nt, move;
    const struct nla_backend_ops *ops;
    nla_exec ex;
    nla_status s;

    if (w->have_warm) {
        memcpy(v, w->warm, (size_t)c * sizeof(double));
        jitter(v, c, 1e-3 / sqrt((double)c));
    } else {
        memset(v, 0, (size_t)c * sizeof(double));
        jitter(v, c, 1.0);
    }
    scal(v, c, 1.0 / norm2(v, c));
    for (int64_t it = 0; it < set->max_iter; it++) {
        ops = nla_route(ctx, &ex, NLA_ROUTE_LEVEL2, 0, 0, NULL, 0); /* host: the CPU */
        s = ops->dgemv(&ex, NLA_NO_TRANS, m, c, 1.0, g, m, v, 1, 0.0, u, 1);
        if (s != NLA_OK)
            return s;
        nt = norm2(u, m);
        if (!isfinite(nt))
            return NLA_ENUMERIC; /* |G v| overflows: u would not be a vertex */
        if (!(nt > 0))
            break;
        scal(u, m, 1.0 / nt);
        ops = nla_route(ctx, &ex, NLA_ROUTE_LEVEL2, 0, 0, NULL, 0);
        memcpy(prev, v, (size_t)c * sizeof(double));
        s = ops->dgemv(&ex, NLA_TRANS, m, c, 1.0, g, m, u, 1, 0.0, v, 1);
        if (s != NLA_OK)
            return s;
        sigma = norm2(v, c);
        if (!(sigma > 0) || !isfinite(sigma))
            break;
        scal(v, c, 1.0 / sigma);
        move = 0;
        for (int64_t j = 0; j < c; j++)
            move += (v[j] - prev[j]) * (v[j] - prev[j]);
        if (sqrt(move) <= set->tol)
            break;
    }
    if (!(sigma > 0) || !isfinite(sigma)) {
        /* G == 0 (every vertex is a minimizer): -r e_1 e_1' */
        memset(u, 0, (size_t)m * sizeof(double));
        memset(v, 0, (size_t)c * sizeof(double));
        u[0] = v[0] = 1;
    } else {
        memcpy(w->warm, v, (size_t)c * sizeof(double));
        w->have_warm = 1;
    }
    w->v.kind = FW_VX_RANK1;
    w->v.s = -set->r;
    return NLA_OK;
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
        lmo_ksparse(set, g, w);
        return NLA_OK;
    case FW_SET_NUCLEAR:
        return lmo_nuclear(ctx, set, g, w);
    case FW_SET_USER:
        v->kind = FW_VX_DENSE;
        set->lmo(n, g, v->dense, set->user);
        return NLA_OK;
    }
    return NLA_EINVAL;
}

/* ----------------------------------------------------------- feasibility */

/* Singular values of the m-by-c matrix x (copied) by one-sided Jacobi;
   returns their sum, or -1 when out of memory. */
static double nuclear_norm(const double *x, int64_t m, int64_t c)
{
    int64_t rows = m >= c ? m : c, cols = m >= c ? c : m;
    double *a = malloc((size_t)(rows * cols) * sizeof(double)), sum = 0;

    if (!a)
        return -1;
    /* columns of a: columns of x, or rows of x when c > m */
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++)
            a[i + j * rows] = m >= c ? x[i + j * m] : x[j + i * m];
    for (int sweep = 0; sweep < 60; sweep++) {
        int rotated = 0;
        for (int64_t p = 0; p < cols; p++)
            for (int64_t q = p + 1; q < cols; q++) {
                double *ap = a + p * rows, *aq = a + q * rows;
                double al = 0, be = 0, ga = 0, ze, t, cs, sn;
                for (int64_t i = 0; i < rows; i++) {
                    al += ap[i] * ap[i];
                    be += aq[i] * aq[i];
                    ga += ap[i] * aq[i];
                }
                if (fabs(ga) <= DBL_EPSILON * sqrt(al * be))
                    continue;
                rotated = 1;
                ze = (be - al) / (2 * ga);
                t = (ze >= 0 ? 1.0 : -1.0) / (fabs(ze) + sqrt(1 + ze * ze));
                cs = 1 / sqrt(1 + t * t);
                sn = cs * t;
                for (int64_t i = 0; i < rows; i++) {
                    double xp = ap[i], xq = aq[i];
                    ap[i] = cs * xp - sn * xq;
                    aq[i] = sn * xp + cs * xq;
                }
            }
        if (!rotated)
            break;
    }
    for (int64_t j = 0; j < cols; j++)
        sum += norm2(a + j * rows, rows);
    free(a);
    return sum;
}

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

int fw_set_infeasible(const nla_fw_set *set, const double *x, char *why, size_t len)
{
    int64_t n = set->n;
    double r = set->r, tol = 1e-9 * (r > 1 ? r : 1), sum = 0, asum = 0;

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
        for (int64_t i = 0; i < n; i++)
            if (x[i] < -tol) {
                snprintf(why, len, "x[%lld] = %g < 0", (long long)i, x[i]);
                return 1;
            }
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
    case FW_SET_NUCLEAR: {
        double fro = norm2(x, n), mn = (double)(set->m < set->cols ? set->m : set->cols);
        double nuc;
        if (fro > r + tol) {
            snprintf(why, len, "|X|_F = %.17g > r = %.17g (so is |X|_*)", fro, r);
            return 1;
        }
        if (sqrt(mn) * fro <= r || mn > FW_NUCLEAR_CHECK_MAX)
            return 0;
        nuc = nuclear_norm(x, set->m, set->cols);
        if (nuc < 0)
            return -1;
        if (nuc > r + tol + 1e-12 * nuc) {
            snprintf(why, len, "|X|_* = %.17g > r = %.17g", nuc, r);
            return 1;
        }
        return 0;
    }
    case FW_SET_USER:
        return 0;
    }
    return 0;
}

void fw_set_snap(const nla_fw_set *set, double *x)
{
    switch (set->kind) {
    case FW_SET_PROB_SIMPLEX:
    case FW_SET_UNIT_SIMPLEX:
        for (int64_t i = 0; i < set->n; i++)
            if (x[i] < 0)
                x[i] = 0;
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
