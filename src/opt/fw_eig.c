/*
 * fw_eig.c - the matrix sets' LMOs (nuclear ball, spectraplex) and their
 * feasibility tests, on one eigensolver: Lanczos for the largest
 * eigenpair of a symmetric operator, with full reorthogonalization and
 * explicit restarts from the Ritz vector.
 *
 *   nuclear ball  B = G'G or GG' (the smaller side): the top singular pair
 *   spectraplex   B = -(G + G')/2: the least eigenpair of G's symmetric part
 *
 * The tridiagonal Krylov matrix T is solved at every step: its extreme
 * eigenvalues by Sturm bisection, the Ritz vector's coordinates by inverse
 * iteration, both O(k).  The residual |B y - theta y| is beta_k |s_k|.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "opt/fw.h"

/* FW_LANCZOS_K (fw.h): the Krylov dimension before a restart, 32 basis
   vectors of n doubles: enough that a warm start converges without one. */

static void axpy(double a, const double *x, double *y, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        y[i] += a * x[i];
}

static void scal(double *x, int64_t n, double a)
{
    for (int64_t i = 0; i < n; i++)
        x[i] *= a;
}

static double norm2(const double *x, int64_t n)
{
    return sqrt(fw_dot(x, x, n));
}

/* ------------------------------------------------------------ tridiagonal */

/* Gershgorin bounds of T (al k, be k-1). */
static void tri_bounds(const double *al, const double *be, int64_t k, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int64_t i = 0; i < k; i++) {
        double r = (i ? fabs(be[i - 1]) : 0) + (i + 1 < k ? fabs(be[i]) : 0);
        *lo = fmin(*lo, al[i] - r);
        *hi = fmax(*hi, al[i] + r);
    }
}

/* The number of eigenvalues of T below lam (Sturm count of T - lam I's
   LDL' pivots; a zero pivot is taken as -pivmin). */
static int64_t sturm_below(const double *al, const double *be, int64_t k, double lam,
                           double pivmin)
{
    int64_t c = 0;
    double q = 1;
    for (int64_t i = 0; i < k; i++) {
        q = al[i] - lam - (i ? be[i - 1] * be[i - 1] / q : 0);
        if (fabs(q) < pivmin)
            q = -pivmin;
        c += q < 0;
    }
    return c;
}

/* T's largest (high) or least eigenvalue, to rounding, by bisection. */
static double tri_extreme(const double *al, const double *be, int64_t k, int high)
{
    double lo, hi, scale, pivmin;
    tri_bounds(al, be, k, &lo, &hi);
    scale = fmax(fabs(lo), fabs(hi));
    if (scale == 0)
        return 0;
    pivmin = DBL_MIN * fmax(1, scale * scale);
    for (int it = 0; it < 200 && hi - lo > 2 * DBL_EPSILON * scale; it++) {
        double mid = 0.5 * (lo + hi);
        int64_t c = sturm_below(al, be, k, mid, pivmin);
        if (high ? c == k : c >= 1)
            hi = mid;
        else
            lo = mid;
    }
    return 0.5 * (lo + hi);
}

/* z: a unit eigenvector of T for the eigenvalue lam, by inverse iteration
   on T - lam I, factored once by Gaussian elimination with partial
   pivoting (U has two superdiagonals).  wk holds 5k doubles. */
static void tri_eigvec(const double *al, const double *be, int64_t k, double lam, double *z,
                       double *wk)
{
    double *u0 = wk, *u1 = wk + k, *u2 = wk + 2 * k, *l = wk + 3 * k, *pv = wk + 4 * k;
    double lo, hi, tiny, c0, c1, c2;

    tri_bounds(al, be, k, &lo, &hi);
    tiny = DBL_EPSILON * fmax(fabs(lo), fabs(hi));
    if (!(tiny >= DBL_MIN)) {          /* T == 0 (or tiny): e_1 will do */
        memset(z, 0, (size_t)k * sizeof(double));
        z[0] = 1;
        return;
    }
    c0 = al[0] - lam;
    c1 = k > 1 ? be[0] : 0;
    c2 = 0;
    for (int64_t i = 0; i + 1 < k; i++) {
        double n0 = be[i], n1 = al[i + 1] - lam, n2 = i + 2 < k ? be[i + 1] : 0, t;
        pv[i] = fabs(n0) > fabs(c0);
        if (pv[i]) {
            t = c0; c0 = n0; n0 = t;
            t = c1; c1 = n1; n1 = t;
            t = c2; c2 = n2; n2 = t;
        }
        if (c0 == 0)
            c0 = tiny;
        l[i] = n0 / c0;
        u0[i] = c0;
        u1[i] = c1;
        u2[i] = c2;
        c0 = n1 - l[i] * c1;
        c1 = n2 - l[i] * c2;
        c2 = 0;
    }
    u0[k - 1] = fabs(c0) < tiny ? tiny : c0;
    for (int64_t i = 0; i < k; i++)
        z[i] = 1;
    for (int it = 0; it < 3; it++) {
        double mx = 0;
        for (int64_t i = 0; i + 1 < k; i++) {
            if (pv[i]) {
                double t = z[i];
                z[i] = z[i + 1];
                z[i + 1] = t;
            }
            z[i + 1] -= l[i] * z[i];
        }
        for (int64_t i = k - 1; i >= 0; i--) {
            double s = z[i];
            if (i + 1 < k)
                s -= u1[i] * z[i + 1];
            if (i + 2 < k)
                s -= u2[i] * z[i + 2];
            z[i] = s / u0[i];
        }
        for (int64_t i = 0; i < k; i++)
            mx = fmax(mx, fabs(z[i]));
        scal(z, k, 1 / mx);
        scal(z, k, 1 / norm2(z, k));
    }
}

/* ---------------------------------------------------------------- Lanczos */

/* y = B x for the LMO's operator. */
typedef nla_status (*symop)(nla_context *ctx, const nla_fw_set *set, const double *g,
                            double scale,
                            const double *x, double *y, double *tmp);

/* x (n, any non-zero start) becomes a unit Ritz vector of B's largest Ritz
   value *theta: stopped when the residual is <= tol |T| or after
   max_steps products.  ws: the LMO workspace's basis and scratch. */
static nla_status lanczos_top(nla_context *ctx, const nla_fw_set *set, const double *g,
                              symop op, int64_t n, double *x, double tol, int64_t max_steps,
                              fw_lmo_work *ws, double *theta)
{
    int64_t kmax = n < FW_LANCZOS_K ? n : FW_LANCZOS_K, steps = 0;
    double *q = ws->basis, *al = ws->tri, *be = al + kmax, *s = be + kmax;
    double *wk = s + kmax, nx = norm2(x, n);
    nla_status st;

    if (!(nx > 0) || !isfinite(nx)) {
        memset(x, 0, (size_t)n * sizeof(double));
        x[0] = nx = 1;
    }
    scal(x, n, 1 / nx);
    for (;;) {
        int64_t k = 0;
        int conv = 0;
        memcpy(q, x, (size_t)n * sizeof(double));
        for (int64_t j = 0; j < kmax && steps < max_steps; j++) {
            double *qj = q + j * n, *w = qj + n, tl, anorm;
            if ((st = op(ctx, set, g, ws->scale, qj, w, ws->opbuf)) != NLA_OK)
                return st;
            steps++;
            al[j] = fw_dot(qj, w, n);
            axpy(-al[j], qj, w, n);
            if (j)
                axpy(-be[j - 1], qj - n, w, n);
            for (int pass = 0; pass < 2; pass++)      /* twice is enough */
                for (int64_t i = 0; i <= j; i++)
                    axpy(-fw_dot(q + i * n, w, n), q + i * n, w, n);
            be[j] = norm2(w, n);
            if (!isfinite(al[j]) || !isfinite(be[j]))
                return NLA_ENUMERIC;
            k = j + 1;
            *theta = tri_extreme(al, be, k, 1);
            tl = tri_extreme(al, be, k, 0);
            tri_eigvec(al, be, k, *theta, s, wk);
            anorm = fmax(fabs(*theta), fabs(tl));
            if (be[j] * fabs(s[k - 1]) <= tol * anorm || be[j] <= DBL_EPSILON * anorm ||
                anorm == 0) {
                conv = 1;
                break;
            }
            scal(w, n, 1 / be[j]);
        }
        memset(x, 0, (size_t)n * sizeof(double));
        for (int64_t i = 0; i < k; i++)
            axpy(s[i], q + i * n, x, n);
        scal(x, n, 1 / norm2(x, n));
        if (conv || steps >= max_steps || k == 0)
            return NLA_OK;
    }
}

/* B x for the nuclear ball: G'(G x) on the column side, G(G'x) on the row
   side (tmp: the other side's length). */
static nla_status op_nuclear(nla_context *ctx, const nla_fw_set *set, const double *g,
                             double scale, const double *x, double *y, double *tmp)
{
    int64_t m = set->m, c = set->cols;
    int rows = m < c;
    nla_exec ex;
    const struct nla_backend_ops *ops = nla_route(ctx, &ex, NLA_ROUTE_LEVEL2, 0, 0, NULL, 0);
    nla_status s = ops->dgemv(&ex, rows ? NLA_TRANS : NLA_NO_TRANS, m, c, scale, g, m, x, 1,
                              0.0, tmp, 1);
    if (s != NLA_OK)
        return s;
    return ops->dgemv(&ex, rows ? NLA_NO_TRANS : NLA_TRANS, m, c, scale, g, m, tmp, 1, 0.0,
                      y, 1);
}

/* B x = -(G x + G' x)/2 for the spectraplex. */
static nla_status op_spectraplex(nla_context *ctx, const nla_fw_set *set, const double *g,
                                 double scale, const double *x, double *y, double *tmp)
{
    int64_t n = set->m;
    nla_exec ex;
    const struct nla_backend_ops *ops = nla_route(ctx, &ex, NLA_ROUTE_LEVEL2, 0, 0, NULL, 0);
    nla_status s = ops->dgemv(&ex, NLA_NO_TRANS, n, n, -0.5 * scale, g, n, x, 1, 0.0, y, 1);
    (void)tmp;
    if (s != NLA_OK)
        return s;
    return ops->dgemv(&ex, NLA_TRANS, n, n, -0.5 * scale, g, n, x, 1, 1.0, y, 1);
}

/* A pseudo-random direction (splitmix64 from the start number k) of
   entries in [-scale/2, scale/2), added to the warm start so that it is
   not orthogonal to the wanted vector.  Each start of a solve takes the
   next k: a fixed direction can be, since the iterates it steers may come
   to put the top vector where it is blind. */
static void jitter(double *v, int64_t n, double scale, uint64_t k)
{
    uint64_t s = 0x243f6a8885a308d3ULL ^ (k * 0xd1b54a32d192ed03ULL);
    for (int64_t i = 0; i < n; i++) {
        uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        v[i] += scale * ((double)(z >> 11) * 0x1.0p-53 - 0.5);
    }
}

/* The Lanczos vector of the matrix sets' LMO (length fw_eig_side): from
   the previous call's, or a fresh start when there is none or w->refine. */
static nla_status eig_vector(nla_context *ctx, const nla_fw_set *set, const double *g,
                             symop op, fw_lmo_work *w, double *x, double *theta)
{
    int64_t n = fw_eig_side(set);
    double tol = set->tol;
    int64_t steps = set->max_iter;

    w->scale = fw_pow2_scale(g, set->n);
    if (w->have_warm && !w->refine) {
        memcpy(x, w->warm, (size_t)n * sizeof(double));
        jitter(x, n, 1e-3 / sqrt((double)n), w->starts++);
    } else {
        memset(x, 0, (size_t)n * sizeof(double));
        jitter(x, n, 1.0, w->starts++);
    }
    if (w->refine) {
        tol = fmax(tol * 1e-3, 4 * DBL_EPSILON);
        steps = steps > INT64_MAX / 4 ? INT64_MAX : 4 * steps;
    }
    return lanczos_top(ctx, set, g, op, n, x, tol, steps, w, theta);
}

double fw_pow2_scale(const double *x, int64_t n)
{
    double mx = 0;
    for (int64_t i = 0; i < n; i++)
        mx = fmax(mx, fabs(x[i]));
    return mx > 0 && isfinite(mx) ? ldexp(1.0, -ilogb(mx)) : 1.0;
}

int64_t fw_eig_side(const nla_fw_set *set)
{
    return set->kind == FW_SET_NUCLEAR && set->m < set->cols ? set->m : set->cols;
}

/* The vertex -r u v' for the top singular pair of G. */
nla_status fw_lmo_nuclear(nla_context *ctx, const nla_fw_set *set, const double *g,
                          fw_lmo_work *w)
{
    int64_t m = set->m, c = set->cols, side = fw_eig_side(set);
    int rows = side == m && m < c;
    double *x = rows ? w->v.u : w->v.w, *y = rows ? w->v.w : w->v.u, theta, ny;
    nla_exec ex;
    const struct nla_backend_ops *ops;
    nla_status s = eig_vector(ctx, set, g, op_nuclear, w, x, &theta);

    if (s != NLA_OK)
        return s;
    ops = nla_route(ctx, &ex, NLA_ROUTE_LEVEL2, 0, 0, NULL, 0);
    s = ops->dgemv(&ex, rows ? NLA_TRANS : NLA_NO_TRANS, m, c, w->scale, g, m, x, 1, 0.0, y,
                   1);
    if (s != NLA_OK)
        return s;
    ny = norm2(y, rows ? c : m);
    if (!isfinite(ny))
        return NLA_ENUMERIC;
    if (ny > 0) {              /* G scaled by a power of two: no overflow */
        scal(y, rows ? c : m, 1 / ny);
        memcpy(w->warm, x, (size_t)side * sizeof(double));
        w->have_warm = 1;
    } else {                   /* G == 0: every vertex is a minimizer */
        memset(w->v.u, 0, (size_t)m * sizeof(double));
        memset(w->v.w, 0, (size_t)c * sizeof(double));
        w->v.u[0] = w->v.w[0] = 1;
    }
    w->v.kind = FW_VX_RANK1;
    w->v.s = -set->r;
    return NLA_OK;
}

/* The vertex r v v' for the least eigenpair of (G + G')/2. */
nla_status fw_lmo_spectraplex(nla_context *ctx, const nla_fw_set *set, const double *g,
                              fw_lmo_work *w)
{
    double theta;
    nla_status s = eig_vector(ctx, set, g, op_spectraplex, w, w->v.u, &theta);
    if (s != NLA_OK)
        return s;
    memcpy(w->v.w, w->v.u, (size_t)set->m * sizeof(double));
    memcpy(w->warm, w->v.u, (size_t)set->m * sizeof(double));
    w->have_warm = 1;
    w->v.kind = FW_VX_RANK1;
    w->v.s = set->r;
    return NLA_OK;
}

/* ----------------------------------------------------------- feasibility */

/* One Jacobi rotation (cs, sn) of columns p, q of the n-row x. */
static void rotate(double *x, int64_t n, int64_t p, int64_t q, double cs, double sn)
{
    for (int64_t i = 0; i < n; i++) {
        double xp = x[i + p * n], xq = x[i + q * n];
        x[i + p * n] = cs * xp - sn * xq;
        x[i + q * n] = sn * xp + cs * xq;
    }
}

/* tan of the Jacobi angle that zeroes the pair (al, be; ga). */
static double jacobi_t(double al, double be, double ga)
{
    double ze = (be - al) / (2 * ga);
    return (ze >= 0 ? 1.0 : -1.0) / (fabs(ze) + sqrt(1 + ze * ze));
}

void fw_sym_eig(double *a, int64_t k, double *z)
{
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0, dia = 0;
        for (int64_t j = 0; j < k; j++)
            for (int64_t i = 0; i < k; i++)
                *(i == j ? &dia : &off) += a[i + j * k] * a[i + j * k];
        if (off <= DBL_EPSILON * DBL_EPSILON * dia || off == 0)
            break;
        for (int64_t p = 0; p < k; p++)
            for (int64_t q = p + 1; q < k; q++) {
                double t, cs, sn;
                if (a[p + q * k] == 0)
                    continue;
                t = jacobi_t(a[p + p * k], a[q + q * k], a[p + q * k]);
                cs = 1 / sqrt(1 + t * t);
                sn = cs * t;
                rotate(a, k, p, q, cs, sn);          /* a J */
                for (int64_t j = 0; j < k; j++) {    /* J' (a J) */
                    double xp = a[p + j * k], xq = a[q + j * k];
                    a[p + j * k] = cs * xp - sn * xq;
                    a[q + j * k] = sn * xp + cs * xq;
                }
            }
    }
    for (int64_t i = 0; i < k; i++)
        z[i] = a[i + i * k];
}

void fw_jacobi_svd(double *a, int64_t rows, int64_t cols, double *q, double *s)
{
    if (q)
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < cols; i++)
                q[i + j * cols] = i == j;
    for (int sweep = 0; sweep < 60; sweep++) {
        int rotated = 0;
        for (int64_t p = 0; p < cols; p++)
            for (int64_t r = p + 1; r < cols; r++) {
                double *ap = a + p * rows, *ar = a + r * rows;
                double al = fw_dot(ap, ap, rows), be = fw_dot(ar, ar, rows);
                double ga = fw_dot(ap, ar, rows), t, cs;
                if (ga == 0 || fabs(ga) <= DBL_EPSILON * sqrt(al * be))
                    continue;
                rotated = 1;
                t = jacobi_t(al, be, ga);
                cs = 1 / sqrt(1 + t * t);
                rotate(a, rows, p, r, cs, cs * t);
                if (q)
                    rotate(q, cols, p, r, cs, cs * t);
            }
        if (!rotated)
            break;
    }
    for (int64_t j = 0; j < cols; j++)
        s[j] = norm2(a + j * rows, rows);
}

/* The m-by-c x (or its transpose when c > m) copied into a new tall
   array: NULL when out of memory. */
double *fw_tall_copy(const double *x, int64_t m, int64_t c)
{
    int64_t rows = m >= c ? m : c, cols = m >= c ? c : m;
    double *a = malloc((size_t)(rows * cols + cols) * sizeof(double));
    if (!a)
        return NULL;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++)
            a[i + j * rows] = m >= c ? x[i + j * m] : x[j + i * m];
    return a;
}

double fw_nuclear_norm(const double *x, int64_t m, int64_t c)
{
    int64_t rows = m >= c ? m : c, cols = m >= c ? c : m;
    double *a = fw_tall_copy(x, m, c), sum = 0;

    double sc = fw_pow2_scale(x, m * c);
    if (!a)
        return -1;
    for (int64_t i = 0; i < rows * cols; i++)   /* no overflow in the squares */
        a[i] *= sc;
    fw_jacobi_svd(a, rows, cols, NULL, a + rows * cols);
    for (int64_t j = 0; j < cols; j++)
        sum += a[rows * cols + j];
    free(a);
    return sum / sc;
}

/* The least eigenvalue of the symmetric part of the n-by-n x, by Lanczos
   to 1e-12 from a fixed start (a Ritz value, so never below the true
   one); NAN when out of memory. */
double fw_sym_min_eig(nla_context *ctx, const nla_fw_set *set, const double *x)
{
    fw_lmo_work w;
    double theta = NAN, *v, scale;

    if (fw_lmo_work_init(&w, set) != NLA_OK)
        return NAN;
    v = w.v.u;
    w.scale = fw_pow2_scale(x, set->n);
    memset(v, 0, (size_t)set->m * sizeof(double));
    jitter(v, set->m, 1.0, 0);
    if (lanczos_top(ctx, set, x, op_spectraplex, set->m, v, 1e-12, 20 * set->m + 100, &w,
                    &theta) != NLA_OK)
        theta = NAN;
    scale = w.scale;
    fw_lmo_work_free(&w);
    return -theta / scale;
}
