/*
 * fuzz_fw.c - libFuzzer harness: Frank-Wolfe feasible sets, objectives,
 * options and the solver (the nla_fw_* section of nla.h).
 *
 * One input is one scenario: create a set (any of the twelve kinds) and an
 * objective (any of the eight), with random dimensions, radii, leading
 * dimensions, enum values, bounds and NULL patterns; create options and
 * apply a few setters (any values); call the set's LMO and the
 * objective's evaluation; then solve a few iterations from a feasible or
 * infeasible start, or with NULL / mismatched arguments.  An oracle written
 * here from nla.h decides validity.  Contract (abort on violation):
 *   - invalid: NLA_EINVAL, the message names "routine: argument", and
 *     nothing is written but the handle (*set / *obj NULL after a failed
 *     create, nla(3); untouched when the pointer to it is NULL), the options
 *     bytewise unchanged, x, res, v, f and grad bytewise unchanged;
 *   - valid creation: NLA_OK and an object of the right dimension;
 *   - LMO: exactly the vertex nla.h documents (ties to the lowest index,
 *     a zero gradient component picks +r, hi, or the vertex 0), for the
 *     nuclear ball a rank-one point of norm r with -r*sigma_1 <= <G,V> <= 0,
 *     for the spectraplex r*v*v' (symmetric, trace r, rank one) with
 *     r*lambda_min <= <G,V> <= r*lambda_max, for the Birkhoff polytope a
 *     permutation matrix of least <G,P> (all permutations enumerated);
 *   - evaluation: f and the gradient equal an independent evaluation;
 *   - solve: NLA_OK / NLA_EMAXITER / NLA_ENUMERIC as the stop reason says,
 *     x finite and feasible, iterations <= max_iter, res->f = f(x) and
 *     res->gap = <grad f(x), x - LMO(grad f(x))> >= 0 evaluated here
 *     independently (within rounding; not for the nuclear ball and the
 *     spectraplex, whose LMOs are inexact), gap <= tol when it stopped on it.
 */
#include <float.h>
#include <math.h>
#include "fuzz_common.h"
#include "opt/fw.h"      /* only sizeof(struct nla_fw_options), to compare bytes */

__extension__ typedef __int128 i128;
#define NMAX 16                    /* a variable's dimension, when used */
#define MAT 1024                   /* doubles of matrix storage */

enum { S_PROB, S_UNIT, S_L1, S_LINF, S_BOX, S_KSPARSE, S_NUCLEAR, S_USER, S_KNORM,
       S_HYPER, S_BIRKHOFF, S_SPECTRA, NS };
/* the matrix sets of n-by-n variables, and the sets with an inexact LMO */
#define S_SQUARE(k) ((k) == S_BIRKHOFF || (k) == S_SPECTRA)
#define S_LANCZOS(k) ((k) == S_NUCLEAR || (k) == S_SPECTRA)
enum { O_USER, O_LSQ, O_LSQ_BAND, O_LSQ_PACKED, O_QUAD, O_QUAD_PACKED, O_QUAD_BAND,
       O_USER_QUAD, NO };
#define O_IS_USER(k) ((k) == O_USER || (k) == O_USER_QUAD)

typedef struct setp {
    int kind, null_out, null_lo, null_hi, null_lmo;
    int64_t n, m, k, max_iter;
    double r, tol;
    double lo[NMAX], hi[NMAX];
} setp;

typedef struct objp {
    int kind, null_out, null_a, null_b, null_f, null_hv, with_c, uplo;
    int64_t m, n, kl, ku, ld;
    int nan_after;                 /* user: NaN from this call on (-1: never) */
} objp;

static nla_context *ctx;
static FILE *devnull;
static double mat[MAT], bvec[NMAX * 2], cvec[NMAX], target[NMAX], weight[NMAX];
static long user_calls;           /* user_f and user_hv calls, together */
static int user_nan_after = -1;

/* ------------------------------------------------------------- helpers */
static int fits(i128 elements) { return elements >= 0 && elements <= (i128)(PTRDIFF_MAX / 8); }
static i128 mspan(i128 rows, i128 cols, i128 ld) { return rows > 0 && cols > 0 ? (cols - 1) * ld + rows : 0; }
static int uplo_ok(int u) { return u == NLA_UPPER || u == NLA_LOWER; }

static double frand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(int64_t)(*s >> 11) / (double)(1ull << 53) * 2 - 1;
}

/* the user LMO: the L-inf ball of radius 1 */
static void user_lmo(int64_t n, const double *g, double *v, void *user)
{
    (void)user;
    for (int64_t i = 0; i < n; i++)
        v[i] = g[i] > 0 ? -1 : 1;
}

/* the user objective: 1/2 sum w_i (x_i - t_i)^2; NaN once asked to */
static double user_f(int64_t n, const double *x, double *grad, void *user)
{
    double f = 0;
    (void)user;
    user_calls++;
    for (int64_t i = 0; i < n; i++) {
        double d = x[i] - target[i];
        f += 0.5 * weight[i] * d * d;
        if (grad)
            grad[i] = weight[i] * d;
    }
    if (user_nan_after >= 0 && user_calls > user_nan_after) {
        if (grad && (user_calls & 1))
            grad[n - 1] = INFINITY;
        else
            f = NAN;
    }
    return f;
}

/* its Hessian product, diag(w) d, for the user quadratic; NaN or Inf
   (alternately) once asked to, counting with user_f's calls */
static void user_hv(int64_t n, const double *d, double *hd, void *user)
{
    (void)user;
    user_calls++;
    for (int64_t i = 0; i < n; i++)
        hd[i] = weight[i] * d[i];
    if (user_nan_after >= 0 && user_calls > user_nan_after)
        hd[n - 1] = user_calls & 1 ? INFINITY : NAN;
}

static int cb_stop_at;
static long cb_calls;
static int64_t cb_n;
static int stop_cb(const nla_fw_state *st, void *user)
{
    (void)user;
    FUZZ_ASSERT(st->t == cb_calls && st->n == cb_n && st->x != NULL && isfinite(st->f) &&
                isfinite(st->gap) && st->gamma >= 0 && isfinite(st->gamma) &&
                st->active_set_size >= 0,
                "callback state: t %lld (call %ld) n %lld f %g gap %g gamma %g",
                (long long)st->t, cb_calls, (long long)st->n, st->f, st->gap, st->gamma);
    cb_calls++;
    return cb_stop_at >= 0 && st->t >= cb_stop_at;
}

/* ---------------------------------------------------------- set oracle */
static int set_valid(const setp *p)
{
    if (p->null_out)
        return 0;
    switch (p->kind) {
    case S_NUCLEAR:
        if (p->m < 1 || p->n < 1 || !(isfinite(p->r) && p->r > 0) || p->max_iter < 1)
            return 0;
        if (!fits((i128)p->m * p->n))
            return 0;
        return p->tol > 0 && p->tol < 1;
    case S_BIRKHOFF:
        return p->n >= 1 && fits((i128)p->n * p->n);
    case S_SPECTRA:
        return p->n >= 1 && fits((i128)p->n * p->n) && isfinite(p->r) && p->r > 0 &&
               p->max_iter >= 1 && p->tol > 0 && p->tol < 1;
    case S_USER:
        return p->n >= 1 && fits(p->n) && !p->null_lmo;
    case S_BOX:
        if (p->n < 1 || !fits(p->n) || p->null_lo || p->null_hi)
            return 0;
        for (int64_t i = 0; i < p->n && i < NMAX; i++)
            if (!isfinite(p->lo[i]) || !isfinite(p->hi[i]) || p->lo[i] > p->hi[i])
                return 0;
        return 1;
    case S_KSPARSE: case S_KNORM: case S_HYPER:
        if (p->k < 1 || p->k > p->n)
            return 0;
        /* fall through */
    default:
        return p->n >= 1 && fits(p->n) && isfinite(p->r) && p->r > 0;
    }
}

/* the box reads lo[0..n-1] and hi[0..n-1] once the pointers are checked */
static int set_reads_past(const setp *p)
{
    return p->kind == S_BOX && !p->null_out && p->n >= 1 && fits(p->n) && !p->null_lo &&
           !p->null_hi && p->n > NMAX;
}

static nla_status set_create(const setp *p, nla_fw_set **out)
{
    nla_fw_set **o = p->null_out ? NULL : out;
    switch (p->kind) {
    case S_PROB: return nla_fw_set_create_prob_simplex(o, p->n, p->r);
    case S_UNIT: return nla_fw_set_create_unit_simplex(o, p->n, p->r);
    case S_L1: return nla_fw_set_create_l1_ball(o, p->n, p->r);
    case S_LINF: return nla_fw_set_create_linf_ball(o, p->n, p->r);
    case S_BOX: return nla_fw_set_create_box(o, p->n, p->null_lo ? NULL : p->lo,
                                             p->null_hi ? NULL : p->hi);
    case S_KSPARSE: return nla_fw_set_create_ksparse(o, p->n, p->k, p->r);
    case S_NUCLEAR: return nla_fw_set_create_nuclear_ball(o, p->m, p->n, p->r, p->tol,
                                                          p->max_iter);
    case S_KNORM: return nla_fw_set_create_knorm_ball(o, p->n, p->k, p->r);
    case S_HYPER: return nla_fw_set_create_hypersimplex(o, p->n, p->k, p->r);
    case S_BIRKHOFF: return nla_fw_set_create_birkhoff(o, p->n);
    case S_SPECTRA: return nla_fw_set_create_spectraplex(o, p->n, p->r, p->tol, p->max_iter);
    default: return nla_fw_set_create_user(o, p->n, p->null_lmo ? NULL : user_lmo, NULL);
    }
}

static int64_t set_dim(const setp *p)
{
    return p->kind == S_NUCLEAR ? p->m * p->n : S_SQUARE(p->kind) ? p->n * p->n : p->n;
}

/* ------------------------------------------------- independent set maths */
/* singular values of the m-by-c column-major x, one-sided Jacobi */
static void svals(const double *x, int64_t m, int64_t c, double *sv)
{
    double a[NMAX * NMAX];
    memcpy(a, x, (size_t)(m * c) * sizeof(double));
    for (int sweep = 0; sweep < 60; sweep++) {
        int rotated = 0;
        for (int64_t p = 0; p < c; p++)
            for (int64_t q = p + 1; q < c; q++) {
                double al = 0, be = 0, ga = 0;
                for (int64_t i = 0; i < m; i++) {
                    al += a[i + p * m] * a[i + p * m];
                    be += a[i + q * m] * a[i + q * m];
                    ga += a[i + p * m] * a[i + q * m];
                }
                if (fabs(ga) <= 1e-17 * sqrt(al * be) || ga == 0)
                    continue;
                rotated = 1;
                double zeta = (be - al) / (2 * ga);
                double t = (zeta >= 0 ? 1 : -1) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double cs = 1 / sqrt(1 + t * t), sn = cs * t;
                for (int64_t i = 0; i < m; i++) {
                    double ap = a[i + p * m], aq = a[i + q * m];
                    a[i + p * m] = cs * ap - sn * aq;
                    a[i + q * m] = sn * ap + cs * aq;
                }
            }
        if (!rotated)
            break;
    }
    for (int64_t p = 0; p < c; p++) {
        double s = 0;
        for (int64_t i = 0; i < m; i++)
            s += a[i + p * m] * a[i + p * m];
        sv[p] = sqrt(s);
    }
}

static double nuclear(const double *x, int64_t m, int64_t c, double *smax)
{
    double sv[NMAX], sum = 0;
    *smax = 0;
    svals(x, m, c, sv);
    for (int64_t i = 0; i < c; i++) {
        sum += sv[i];
        if (sv[i] > *smax)
            *smax = sv[i];
    }
    return sum;
}

/* the extreme eigenvalues of (x + x')/2 (n-by-n): the singular values of
   that plus c I, c = its Frobenius norm, are its eigenvalues plus c */
static void sym_extremes(const double *x, int64_t n, double *lmin, double *lmax)
{
    double s[NMAX], sv[NMAX], c = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            s[i + j * n] = 0.5 * (x[i + j * n] + x[j + i * n]);
            c += s[i + j * n] * s[i + j * n];
        }
    c = sqrt(c);
    for (int64_t i = 0; i < n; i++)
        s[i + i * n] += c;
    svals(s, n, n, sv);
    *lmin = INFINITY;
    *lmax = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
        *lmin = fmin(*lmin, sv[i] - c);
        *lmax = fmax(*lmax, sv[i] - c);
    }
}

/* the sum of the k largest |x_i| */
static double top_k_abs(const double *x, int64_t n, int64_t k)
{
    char taken[NMAX] = {0};
    double sum = 0;
    for (int64_t c = 0; c < k; c++) {
        int64_t best = -1;
        for (int64_t i = 0; i < n; i++)
            if (!taken[i] && (best < 0 || fabs(x[i]) > fabs(x[best])))
                best = i;
        taken[best] = 1;
        sum += fabs(x[best]);
    }
    return sum;
}

/* a permutation matrix of least <g, P> (n <= 4: all n! enumerated) */
static void least_permutation(const double *g, int64_t n, double *v)
{
    int64_t p[4] = {0, 1, 2, 3}, best[4] = {0, 1, 2, 3};
    double bestv = INFINITY;
    for (;;) {
        double s = 0;
        int64_t i, j;
        for (i = 0; i < n; i++)
            s += g[i + p[i] * n];
        if (s < bestv) {
            bestv = s;
            memcpy(best, p, sizeof p);
        }
        /* the next permutation in lexicographic order */
        for (i = n - 2; i >= 0 && p[i] > p[i + 1]; i--)
            ;
        if (i < 0)
            break;
        for (j = n - 1; p[j] < p[i]; j--)
            ;
        int64_t t = p[i];
        p[i] = p[j];
        p[j] = t;
        for (j = n - 1, i++; i < j; i++, j--) {
            t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
    }
    memset(v, 0, (size_t)(n * n) * sizeof(double));
    for (int64_t i = 0; i < n; i++)
        v[i + best[i] * n] = 1;
}

/* 1 if x lies in the set, to tol (rounding of the iterations included) */
static int feasible(const setp *p, const double *x, double *why)
{
    int64_t n = set_dim(p);
    double r = p->kind == S_USER || p->kind == S_BOX || p->kind == S_BIRKHOFF ? 1 : p->r;
    double asum = 0, sum = 0, amax = 0, tol;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return *why = (double)i, 0;
        sum += x[i];
        asum += fabs(x[i]);
        amax = fmax(amax, fabs(x[i]));
    }
    tol = 1e-9 * fmax(1, r) + 64 * DBL_EPSILON * (double)n * (asum + r);
    *why = asum;
    switch (p->kind) {
    case S_PROB: case S_UNIT:
        for (int64_t i = 0; i < n; i++)
            if (x[i] < -tol)
                return 0;
        return p->kind == S_PROB ? fabs(sum - r) <= tol : sum <= r + tol;
    case S_L1: return asum <= r + tol;
    case S_LINF: return amax <= r + tol;
    case S_KSPARSE: return asum <= (double)p->k * (r + tol) && amax <= r + tol;
    case S_BOX:
        for (int64_t i = 0; i < n; i++) {
            double t = 1e-9 * fmax(1, fmax(fabs(p->lo[i]), fabs(p->hi[i])));
            if (x[i] < p->lo[i] - t || x[i] > p->hi[i] + t)
                return 0;
        }
        return 1;
    case S_NUCLEAR: {
        double smax, nuc = p->m >= p->n ? nuclear(x, p->m, p->n, &smax) : 0;
        if (p->m < p->n) {   /* the transpose has the same singular values */
            double xt[NMAX * NMAX];
            for (int64_t i = 0; i < p->m; i++)
                for (int64_t j = 0; j < p->n; j++)
                    xt[j + i * p->n] = x[i + j * p->m];
            nuc = nuclear(xt, p->n, p->m, &smax);
        }
        *why = nuc;
        return nuc <= r + tol;
    }
    case S_KNORM:
        return (*why = top_k_abs(x, n, p->k)) <= r + tol;
    case S_HYPER:
        for (int64_t i = 0; i < n; i++)
            if (x[i] < -tol || x[i] > r + tol)
                return 0;
        return fabs(sum - (double)p->k * r) <= tol * (double)p->k;
    case S_BIRKHOFF:
        for (int64_t i = 0; i < p->n; i++) {
            double rs = 0, cs = 0;
            for (int64_t j = 0; j < p->n; j++) {
                if (x[i + j * p->n] < -tol)
                    return 0;
                rs += x[i + j * p->n];
                cs += x[j + i * p->n];
            }
            if (fabs(rs - 1) > tol || fabs(cs - 1) > tol)
                return 0;
        }
        return 1;
    case S_SPECTRA: {
        double tr = 0, lmin, lmax;
        for (int64_t i = 0; i < p->n; i++) {
            tr += x[i + i * p->n];
            for (int64_t j = 0; j < i; j++)
                if (fabs(x[i + j * p->n] - x[j + i * p->n]) > tol)
                    return 0;
        }
        sym_extremes(x, p->n, &lmin, &lmax);
        *why = lmin;
        return fabs(tr - r) <= tol && lmin >= -tol;
    }
    default: return amax <= 1 + tol;    /* user: the L-inf unit ball */
    }
}

/* the vertex nla.h documents for every set but the nuclear ball and the
   spectraplex; for the Birkhoff polytope one of least <g, v> */
static void lmo_ref(const setp *p, const double *g, double *v)
{
    int64_t n = set_dim(p), i, best = 0;
    double r = p->r;
    memset(v, 0, (size_t)n * sizeof(double));
    switch (p->kind) {
    case S_PROB: case S_UNIT:
        for (i = 1; i < n; i++)
            if (g[i] < g[best])
                best = i;
        if (p->kind == S_PROB || g[best] < 0)
            v[best] = r;
        return;
    case S_L1:
        for (i = 1; i < n; i++)
            if (fabs(g[i]) > fabs(g[best]))
                best = i;
        v[best] = g[best] > 0 ? -r : r;
        return;
    case S_LINF:
        for (i = 0; i < n; i++)
            v[i] = g[i] > 0 ? -r : r;
        return;
    case S_BOX:
        for (i = 0; i < n; i++)
            v[i] = g[i] > 0 ? p->lo[i] : p->hi[i];
        return;
    case S_KSPARSE: {
        /* the k largest |g_i|, ties to the lowest index */
        char taken[NMAX] = {0};
        for (int64_t c = 0; c < p->k; c++) {
            best = -1;
            for (i = 0; i < n; i++)
                if (!taken[i] && (best < 0 || fabs(g[i]) > fabs(g[best])))
                    best = i;
            taken[best] = 1;
            v[best] = g[best] > 0 ? -r : r;
        }
        return;
    }
    case S_KNORM: {
        /* one-hot at the first largest |g_i|, unless the dense vertex is smaller */
        double amax = 0, sum = 0;
        for (i = 0; i < n; i++) {
            sum += fabs(g[i]);
            if (fabs(g[i]) > amax) {
                amax = fabs(g[i]);
                best = i;
            }
        }
        if (sum > (double)p->k * amax)   /* exact for the dyadic g used here */
            for (i = 0; i < n; i++)
                v[i] = g[i] > 0 ? -r / (double)p->k : r / (double)p->k;
        else
            v[best] = g[best] > 0 ? -r : r;
        return;
    }
    case S_HYPER: {
        /* the k least g_i, ties to the lowest index */
        char taken[NMAX] = {0};
        for (int64_t c = 0; c < p->k; c++) {
            best = -1;
            for (i = 0; i < n; i++)
                if (!taken[i] && (best < 0 || g[i] < g[best]))
                    best = i;
            taken[best] = 1;
            v[best] = r;
        }
        return;
    }
    case S_BIRKHOFF:
        least_permutation(g, p->n, v);
        return;
    default:
        user_lmo(n, g, v, NULL);
        return;
    }
}

/* ------------------------------------------------------ objective oracle */
static int obj_valid(const objp *p)
{
    if (p->null_out || p->n < 1)
        return 0;
    switch (p->kind) {
    case O_USER:
        return fits(p->n) && !p->null_f;
    case O_USER_QUAD:
        return fits(p->n) && !p->null_f && !p->null_hv;
    case O_LSQ:
        return p->m >= 1 && p->ld >= p->m && !p->null_a && !p->null_b &&
               fits(mspan(p->m, p->n, p->ld)) && fits(p->m) && fits(p->n);
    case O_LSQ_BAND:
        return p->m >= 1 && p->kl >= 0 && p->ku >= 0 && (i128)p->ld >= (i128)p->kl + p->ku + 1 &&
               !p->null_a && !p->null_b && fits(mspan((i128)p->kl + p->ku + 1, p->n, p->ld)) &&
               fits(p->m) && fits(p->n);
    case O_LSQ_PACKED:
    case O_QUAD_PACKED:
        return uplo_ok(p->uplo) && !p->null_a && (p->kind == O_QUAD_PACKED || !p->null_b) &&
               fits((i128)p->n * ((i128)p->n + 1) / 2);
    case O_QUAD:
        return p->ld >= p->n && !p->null_a && fits(mspan(p->n, p->n, p->ld));
    case O_QUAD_BAND:   /* kl is k */
    default:
        return p->kl >= 0 && (i128)p->ld >= 2 * (i128)p->kl + 1 && !p->null_a &&
               fits(mspan(2 * (i128)p->kl + 1, p->n, p->ld));
    }
}

/* the argument a rejected user constructor names: they are checked in the
   order obj, n, f, hv */
static const char *user_obj_bad_arg(const objp *p)
{
    if (p->null_out)
        return "obj";
    if (p->n < 1 || !fits(p->n))
        return "n";
    if (p->null_f)
        return "f";
    return "hv";
}

/* the matrix the objective reads fits in mat[] (and the vectors in theirs) */
static int obj_small(const objp *p)
{
    if (p->n > NMAX)
        return 0;
    switch (p->kind) {
    case O_USER: case O_USER_QUAD: return 1;
    case O_LSQ: return p->m <= 2 * NMAX && mspan(p->m, p->n, p->ld) <= MAT;
    case O_LSQ_BAND: return p->m <= 2 * NMAX && mspan(p->kl + p->ku + 1, p->n, p->ld) <= MAT;
    case O_LSQ_PACKED: case O_QUAD_PACKED: return 1;
    case O_QUAD: return mspan(p->n, p->n, p->ld) <= MAT;
    default: return mspan(2 * p->kl + 1, p->n, p->ld) <= MAT;
    }
}

static nla_status obj_create(const objp *p, nla_fw_objective **out)
{
    nla_fw_objective **o = p->null_out ? NULL : out;
    const double *a = p->null_a ? NULL : mat, *b = p->null_b ? NULL : bvec;
    const double *c = p->with_c ? cvec : NULL;
    switch (p->kind) {
    case O_USER: return nla_fw_objective_create_user(o, p->n, p->null_f ? NULL : user_f, NULL);
    case O_USER_QUAD: return nla_fw_objective_create_user_quad(o, p->n,
                                                               p->null_f ? NULL : user_f,
                                                               p->null_hv ? NULL : user_hv, NULL);
    case O_LSQ: return nla_fw_objective_create_lsq(o, p->m, p->n, a, p->ld, b);
    case O_LSQ_BAND: return nla_fw_objective_create_lsq_band(o, p->m, p->n, p->kl, p->ku, a,
                                                             p->ld, b);
    case O_LSQ_PACKED: return nla_fw_objective_create_lsq_packed(o, (nla_uplo)p->uplo, p->n, a, b);
    case O_QUAD: return nla_fw_objective_create_quad(o, p->n, a, p->ld, c);
    case O_QUAD_PACKED: return nla_fw_objective_create_quad_packed(o, (nla_uplo)p->uplo, p->n, a, c);
    default: return nla_fw_objective_create_quad_band(o, p->n, p->kl, a, p->ld, c);
    }
}

static int64_t packed_ix(int uplo, int64_t n, int64_t i, int64_t j)
{
    if ((uplo == NLA_UPPER) != (i <= j)) {
        int64_t t = i;
        i = j;
        j = t;
    }
    return uplo == NLA_UPPER ? i + j * (j + 1) / 2 : i + j * (2 * n - j - 1) / 2;
}

/* M(i,j) of the objective's operator (A, or Q), rows-by-n */
static double op_at(const objp *p, int64_t i, int64_t j)
{
    switch (p->kind) {
    case O_LSQ: case O_QUAD: return mat[i + j * p->ld];
    case O_LSQ_BAND: case O_QUAD_BAND: {
        int64_t kl = p->kl, ku = p->kind == O_QUAD_BAND ? p->kl : p->ku;
        if (i - j > kl || j - i > ku)
            return 0;
        return mat[ku + i - j + j * p->ld];
    }
    default: return mat[packed_ix(p->uplo, p->n, i, j)];
    }
}

static int64_t obj_rows(const objp *p)
{
    return p->kind == O_LSQ || p->kind == O_LSQ_BAND ? p->m : p->n;
}

/* matrix entries: random in [-1, 1], symmetric and diagonally dominant for
   the quadratics (Q positive semidefinite) */
static void fill_obj(const objp *p, uint64_t seed, int structured)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    int64_t n = p->n, rows = obj_rows(p);
    for (int i = 0; i < MAT; i++)
        mat[i] = frand(&s);
    for (int i = 0; i < 2 * NMAX; i++)
        bvec[i] = 2 * frand(&s);
    for (int i = 0; i < NMAX; i++) {
        cvec[i] = frand(&s);
        target[i] = 1.5 * frand(&s);
        weight[i] = 1.25 + frand(&s);
    }
    if (!structured)
        return;
    if (p->kind == O_QUAD || p->kind == O_QUAD_BAND) {
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = j + 1; i < n; i++) {
                if (p->kind == O_QUAD_BAND && i - j > p->kl)
                    continue;
                double v = frand(&s);
                if (p->kind == O_QUAD)
                    mat[i + j * p->ld] = mat[j + i * p->ld] = v;
                else
                    mat[p->kl + i - j + j * p->ld] = mat[p->kl + j - i + i * p->ld] = v;
            }
    }
    if (p->kind >= O_QUAD && p->kind <= O_QUAD_BAND)
        for (int64_t i = 0; i < n; i++) {
            double d = 0.5 * (1 + frand(&s));
            for (int64_t j = 0; j < n; j++)
                if (j != i)
                    d += fabs(op_at(p, i, j));
            if (p->kind == O_QUAD) mat[i + i * p->ld] = d;
            else if (p->kind == O_QUAD_BAND) mat[p->kl + i * p->ld] = d;
            else mat[packed_ix(p->uplo, n, i, i)] = d;
        }
    (void)rows;
}

/* f and grad, here; *scale bounds the terms (for the rounding tolerance) */
static double obj_eval(const objp *p, const double *x, double *grad, double *scale)
{
    int64_t n = p->n, rows = obj_rows(p);
    double f = 0, sc = 0;
    if (O_IS_USER(p->kind)) {
        long calls = user_calls;
        int after = user_nan_after;
        user_nan_after = -1;
        f = user_f(n, x, grad, NULL);
        user_calls = calls;
        user_nan_after = after;
        for (int64_t i = 0; i < n; i++)
            sc += weight[i] * (fabs(x[i]) + fabs(target[i])) * (fabs(x[i]) + fabs(target[i]));
        *scale = sc;
        return f;
    }
    if (p->kind <= O_LSQ_PACKED) {
        double res[2 * NMAX], ares[2 * NMAX];
        for (int64_t i = 0; i < rows; i++) {
            double s = -bvec[i], sa = fabs(bvec[i]);
            for (int64_t j = 0; j < n; j++) {
                s += op_at(p, i, j) * x[j];
                sa += fabs(op_at(p, i, j) * x[j]);
            }
            res[i] = s;
            ares[i] = sa;
            f += 0.5 * s * s;
            sc += sa * sa;
        }
        for (int64_t j = 0; j < n; j++) {
            double g = 0;
            for (int64_t i = 0; i < rows; i++)
                g += op_at(p, i, j) * res[i];
            grad[j] = g;
        }
        (void)ares;
        *scale = sc;
        return f;
    }
    for (int64_t i = 0; i < n; i++) {
        double s = 0, sa = 0;
        for (int64_t j = 0; j < n; j++) {
            s += op_at(p, i, j) * x[j];
            sa += fabs(op_at(p, i, j) * x[j]);
        }
        double ci = p->with_c ? cvec[i] : 0;
        grad[i] = s + ci;
        f += 0.5 * x[i] * s + ci * x[i];
        sc += fabs(x[i]) * sa + fabs(ci * x[i]) + sa + fabs(ci);
    }
    *scale = sc;
    return f;
}

/* ------------------------------------------------------------- decode */
static double rd_radius(reader *r)
{
    static const double v[] = {1, 2.5, 0.5, 1e-3, 1e3, 1, 3, 0.25};
    unsigned s = rd_byte(r);
    if (s < 230) return v[s % 8];
    switch (s % 6) {
    case 0: return 0;
    case 1: return -1;
    case 2: return NAN;
    case 3: return INFINITY;
    case 4: return -INFINITY;
    default: return -0.0;
    }
}

/* a dimension: mostly 1..4, sometimes anything */
static int64_t rd_dim(reader *r, int64_t small)
{
    unsigned s = rd_byte(r);
    if (s < 220) return 1 + (int64_t)(s % (unsigned)small);
    return rd_size(r, small);
}

static int64_t rd_ld(reader *r, int64_t want)
{
    unsigned s = rd_byte(r);
    if (want < 1 || want > ((int64_t)1 << 40))
        want = 1;   /* no overflow here; such a dimension is invalid anyway */
    if (s < 200) return want + (int64_t)(s % 3);
    if (s < 225) return want - 1;
    return rd_size(r, 12);
}

/* ------------------------------------------------------------- checks */
static void rejected(nla_status s, const char *what)
{
    FUZZ_ASSERT(s == NLA_EINVAL, "%s returned %d (%s)", what, (int)s, nla_last_error());
    fuzz_note_rejection(nla_last_error());
}

/* set_lmo at g: invalid calls rejected, valid ones the documented vertex */
static void try_lmo(const setp *sp, const nla_fw_set *set, reader *rd)
{
    static const double gv[] = {-2, -1, -0.5, -0.0, 0, 0.5, 1, 2, 0.75, -1.25};
    int64_t n = set_dim(sp);
    double g[NMAX], v[NMAX], vsave[NMAX], want[NMAX];
    unsigned mode = rd_byte(rd);
    nla_status s;
    for (int64_t i = 0; i < n; i++)
        g[i] = gv[rd_byte(rd) % 10];
    for (int i = 0; i < NMAX; i++)
        v[i] = 777.0 + (double)i;
    memcpy(vsave, v, sizeof v);
    if (mode > 200) {
        int which = (int)(mode % 5);
        if (which == 4 && n >= 1)
            g[mode % (unsigned)n] = mode & 8 ? NAN : -INFINITY;
        s = nla_fw_set_lmo(which == 0 ? NULL : ctx, which == 1 ? NULL : set,
                           which == 2 ? NULL : g, which == 3 ? NULL : v);
        rejected(s, "nla_fw_set_lmo");
        FUZZ_ASSERT(!memcmp(v, vsave, sizeof v), "nla_fw_set_lmo rejected but wrote v");
        return;
    }
    s = nla_fw_set_lmo(ctx, set, g, v);
    FUZZ_ASSERT(s == NLA_OK, "set %d: valid LMO returned %d (%s)", sp->kind, (int)s,
                nla_last_error());
    for (int64_t i = n; i < NMAX; i++)
        FUZZ_ASSERT(v[i] == vsave[i], "set %d: LMO wrote past v[n-1]", sp->kind);
    if (sp->kind == S_SPECTRA) {
        /* r v v': symmetric, trace r, PSD and rank one (its largest
           eigenvalue r), and r lambda_min <= <G, V> <= r lambda_max */
        double why, lmin, lmax, vmin, vmax, dotgv = 0, gs = 0;
        for (int64_t i = 0; i < n; i++) {
            dotgv += g[i] * v[i];
            gs += fabs(g[i]);
        }
        FUZZ_ASSERT(feasible(sp, v, &why), "spectraplex LMO: not in the set (%g)", why);
        sym_extremes(v, sp->n, &vmin, &vmax);
        FUZZ_ASSERT(fabs(vmax - sp->r) <= 1e-9 * sp->r, "spectraplex LMO: largest "
                    "eigenvalue %.17g, r = %g: not rank one", vmax, sp->r);
        sym_extremes(g, sp->n, &lmin, &lmax);
        FUZZ_ASSERT(dotgv >= sp->r * lmin - 1e-12 * sp->r * gs &&
                    dotgv <= sp->r * lmax + 1e-12 * sp->r * gs,
                    "spectraplex LMO: <G,V> = %.17g, r*[lambda_min, lambda_max] = [%.17g, "
                    "%.17g]", dotgv, sp->r * lmin, sp->r * lmax);
    } else if (sp->kind == S_BIRKHOFF) {
        /* a permutation matrix (entries exactly 0 or 1) of least <G, P> */
        double dv = 0, dw = 0, gs = 0;
        lmo_ref(sp, g, want);
        for (int64_t i = 0; i < sp->n; i++) {
            int rows = 0, cols = 0;
            for (int64_t j = 0; j < sp->n; j++) {
                double e = v[i + j * sp->n];
                FUZZ_ASSERT(e == 0 || e == 1, "birkhoff LMO: V(%lld,%lld) = %.17g",
                            (long long)i, (long long)j, e);
                rows += e == 1;
                cols += v[j + i * sp->n] == 1;
            }
            FUZZ_ASSERT(rows == 1 && cols == 1, "birkhoff LMO: row/column %lld has %d/%d "
                        "ones", (long long)i, rows, cols);
        }
        for (int64_t i = 0; i < n; i++) {
            dv += g[i] * v[i];
            dw += g[i] * want[i];
            gs += fabs(g[i]);
        }
        FUZZ_ASSERT(fabs(dv - dw) <= 1e-14 * gs, "birkhoff LMO: <G,P> = %.17g, least "
                    "%.17g", dv, dw);
    } else if (sp->kind == S_NUCLEAR) {
        /* -r u w': norm r, rank one, and -r sigma_1 <= <G, V> <= 0 */
        double smax, nv = 0, dotgv = 0, fro = 0, why;
        for (int64_t i = 0; i < n; i++) {
            fro += v[i] * v[i];
            dotgv += g[i] * v[i];
        }
        nv = sqrt(fro);
        FUZZ_ASSERT(feasible(sp, v, &why) && fabs(nv - sp->r) <= 1e-12 * sp->r * 8,
                    "nuclear LMO: |V|_F = %.17g, |V|_* = %.17g, r = %g", nv, why, sp->r);
        (void)nuclear(g, sp->m, sp->n, &smax);
        if (sp->m < sp->n) {
            double gt[NMAX * NMAX];
            for (int64_t i = 0; i < sp->m; i++)
                for (int64_t j = 0; j < sp->n; j++)
                    gt[j + i * sp->n] = g[i + j * sp->m];
            (void)nuclear(gt, sp->n, sp->m, &smax);
        }
        FUZZ_ASSERT(dotgv <= 1e-12 * sp->r * smax &&
                    dotgv >= -sp->r * smax * (1 + 1e-12) - 1e-300,
                    "nuclear LMO: <G,V> = %.17g, r*sigma_1 = %.17g", dotgv, sp->r * smax);
    } else {
        lmo_ref(sp, g, want);
        for (int64_t i = 0; i < n; i++)
            FUZZ_ASSERT(v[i] == want[i], "set %d n %lld: LMO v[%lld] = %.17g, documented "
                        "vertex has %.17g (g[i] = %g)", sp->kind, (long long)n, (long long)i,
                        v[i], want[i], g[i]);
    }
    fuzz_note_valid();
}

static void try_eval(const objp *op, const nla_fw_objective *obj, reader *rd)
{
    int64_t n = op->n;
    double x[NMAX], f = -4242, grad[NMAX + 1], gsave[NMAX + 1], g2[NMAX], fr, sc;
    unsigned mode = rd_byte(rd);
    nla_status s;
    uint64_t seed = rd_byte(rd);
    for (int64_t i = 0; i < n; i++)
        x[i] = frand(&seed);
    for (int i = 0; i <= NMAX; i++)
        grad[i] = 555.0 + i;
    memcpy(gsave, grad, sizeof grad);
    if (mode > 210) {
        int which = (int)(mode % 4);
        s = nla_fw_objective_eval(which == 0 ? NULL : ctx, which == 1 ? NULL : obj,
                                  which == 2 ? NULL : x, which == 3 ? NULL : &f, grad);
        rejected(s, "nla_fw_objective_eval");
        FUZZ_ASSERT(f == -4242 && !memcmp(grad, gsave, sizeof grad),
                    "nla_fw_objective_eval rejected but wrote f or grad");
        return;
    }
    {
        long calls = user_calls;
        int after = user_nan_after;
        user_nan_after = -1;
        s = nla_fw_objective_eval(ctx, obj, x, &f, mode & 1 ? NULL : grad);
        user_calls = calls;
        user_nan_after = after;
    }
    FUZZ_ASSERT(s == NLA_OK, "objective %d: eval returned %d (%s)", op->kind, (int)s,
                nla_last_error());
    fr = obj_eval(op, x, g2, &sc);
    FUZZ_ASSERT(fabs(f - fr) <= 8 * DBL_EPSILON * (double)(n + obj_rows(op) + 2) * (sc + 1e-300),
                "objective %d: f = %.17g, here %.17g (scale %g)", op->kind, f, fr, sc);
    if (mode & 1) {
        FUZZ_ASSERT(!memcmp(grad, gsave, sizeof grad), "objective %d: grad NULL but written",
                    op->kind);
    } else {
        for (int64_t i = 0; i < n; i++)
            FUZZ_ASSERT(fabs(grad[i] - g2[i]) <= 8 * DBL_EPSILON * (double)(n + obj_rows(op) + 2) *
                        (sc + 1),
                        "objective %d: grad[%lld] = %.17g, here %.17g", op->kind,
                        (long long)i, grad[i], g2[i]);
        FUZZ_ASSERT(grad[n] == gsave[n], "objective %d: eval wrote past grad[n-1]", op->kind);
    }
    fuzz_note_valid();
}

/* a start point: feasible (mode < 200) or clearly not */
static int start_point(const setp *sp, unsigned mode, double *x)
{
    int64_t n = set_dim(sp);
    double r = sp->r;
    memset(x, 0, (size_t)n * sizeof(double));
    if (mode < 200 || sp->kind == S_USER) {
        switch (sp->kind) {
        case S_PROB:
            if (mode & 1)
                x[mode % (unsigned)n] = r;
            else
                for (int64_t i = 0; i < n; i++)
                    x[i] = r / (double)n;
            break;
        case S_BOX:
            for (int64_t i = 0; i < n; i++)
                x[i] = mode & 1 ? sp->lo[i] : 0.5 * sp->lo[i] + 0.5 * sp->hi[i];
            break;
        case S_HYPER:
            for (int64_t i = 0; i < n; i++)
                x[i] = mode & 1 ? (i < sp->k ? r : 0) : (double)sp->k * r / (double)n;
            break;
        case S_BIRKHOFF: case S_SPECTRA: {
            /* I or 1/n everywhere; (r/n) I or r e_1 e_1' */
            double d = sp->kind == S_BIRKHOFF ? 1 : r / (double)sp->n;
            for (int64_t i = 0; i < n; i++)
                x[i] = sp->kind == S_BIRKHOFF && !(mode & 1) ? 1 / (double)sp->n : 0;
            for (int64_t i = 0; i < sp->n && (sp->kind == S_SPECTRA || (mode & 1)); i++)
                x[i + i * sp->n] = sp->kind == S_SPECTRA && (mode & 1) ? (i ? 0 : r) : d;
            break;
        }
        case S_NUCLEAR: case S_L1: case S_LINF: case S_KSPARSE: case S_UNIT: case S_KNORM:
            if (mode & 1)
                x[0] = sp->kind == S_UNIT ? r / 2 : -r / 2;
            break;
        default:
            break;
        }
        return 1;
    }
    switch (sp->kind) {
    case S_PROB: break;                                    /* sum 0 != r */
    case S_UNIT: x[0] = mode & 1 ? -r : 2 * r; break;
    case S_BOX: x[n - 1] = sp->hi[n - 1] + 1 + fabs(sp->hi[n - 1]); break;
    case S_BIRKHOFF: x[0] = 2; break;                      /* row 1 sums to 2 */
    default: x[0] = 2 * r; break;
    }
    if (mode % 7 == 0)
        x[n - 1] = mode & 8 ? NAN : INFINITY;
    return 0;
}

/* the variant and lazy flag set on the options */
static int opt_variant = NLA_FW_AUTO, opt_lazy;

static void try_solve(const setp *sp, const nla_fw_set *set, const objp *op,
                      const nla_fw_objective *obj, nla_fw_options *opt, int64_t max_iter,
                      double tol, int rule, reader *rd)
{
    int64_t n = set_dim(sp);
    double x[NMAX + 1], xsave[NMAX + 1];
    nla_fw_result res, rsave;
    unsigned mode = rd_byte(rd), xmode = rd_byte(rd);
    int feas = start_point(sp, xmode, x), use_res = !(mode & 64), mismatch = op->n != n;
    int nulls = mode > 230 ? (int)(mode % 5) : -1;
    nla_status s;

    x[n] = 999;
    memset(&res, 0xa5, sizeof res);
    rsave = res;
    memcpy(xsave, x, sizeof x);
    user_calls = 0;
    cb_calls = 0;
    cb_n = n;
    s = nla_fw_solve(nulls == 0 ? NULL : ctx, nulls == 1 ? NULL : obj,
                     nulls == 2 ? NULL : set, nulls == 3 ? NULL : opt, nulls == 4 ? NULL : x,
                     use_res ? &res : NULL);
    if (nulls == 3) {                 /* opt NULL: the defaults */
        rule = NLA_FW_ADAPTIVE;
        max_iter = 10000;
        tol = 1e-7;
    }
    if ((nulls >= 0 && nulls != 3) || mismatch || !feas ||
        (rule == NLA_FW_EXACT && op->kind == O_USER) ||   /* a user quadratic: allowed */
        (nulls != 3 && opt_lazy && opt_variant == NLA_FW_VANILLA)) {
        rejected(s, "nla_fw_solve");
        FUZZ_ASSERT(!memcmp(x, xsave, sizeof x) && !memcmp(&res, &rsave, sizeof res),
                    "nla_fw_solve rejected (%s) but wrote x or res", nla_last_error());
        return;
    }
    FUZZ_ASSERT(s == NLA_OK || s == NLA_EMAXITER || s == NLA_ENUMERIC,
                "set %d obj %d: solve returned %d (%s)", sp->kind, op->kind, (int)s,
                nla_last_error());
    if (getenv("NLA_FUZZ_VERBOSE"))
        fprintf(stderr, "solve set %d n %lld obj %d rule %d max_iter %lld: status %d stop %d "
                "after %lld, f %g gap %g\n", sp->kind, (long long)n, op->kind, rule,
                (long long)max_iter, (int)s, use_res ? (int)res.stop : -1,
                use_res ? (long long)res.iterations : -1LL, use_res ? res.f : 0,
                use_res ? res.gap : 0);
    FUZZ_ASSERT(x[n] == 999, "solve wrote past x[n-1]");
    {
        double why;
        FUZZ_ASSERT(feasible(sp, x, &why), "set %d obj %d: the solution is not feasible (%g)",
                    sp->kind, op->kind, why);
    }
    if (!use_res) {
        fuzz_note_valid();
        return;
    }
    FUZZ_ASSERT(res.status == s && res.iterations >= 0 && res.iterations <= max_iter,
                "set %d obj %d: res.status %d (returned %d), %lld iterations (max %lld)",
                sp->kind, op->kind, (int)res.status, (int)s, (long long)res.iterations,
                (long long)max_iter);
    switch (res.stop) {
    case NLA_FW_STOP_GAP:
        FUZZ_ASSERT(s == NLA_OK && res.gap <= tol, "stop GAP: status %d gap %g tol %g",
                    (int)s, res.gap, tol);
        break;
    case NLA_FW_STOP_CALLBACK:
        FUZZ_ASSERT(s == NLA_OK && cb_stop_at >= 0 && res.iterations == cb_stop_at,
                    "stop CALLBACK: status %d at %lld (asked %d)", (int)s,
                    (long long)res.iterations, cb_stop_at);
        break;
    case NLA_FW_STOP_MAX_ITER:
        FUZZ_ASSERT(s == NLA_EMAXITER && res.iterations == max_iter,
                    "stop MAX_ITER: status %d after %lld of %lld", (int)s,
                    (long long)res.iterations, (long long)max_iter);
        break;
    case NLA_FW_STOP_TIME:
        FUZZ_ASSERT(s == NLA_EMAXITER, "stop TIME: status %d", (int)s);
        break;
    case NLA_FW_STOP_NUMERIC:
        FUZZ_ASSERT(s == NLA_ENUMERIC, "stop NUMERIC: status %d", (int)s);
        break;
    default:
        FUZZ_ASSERT(0, "res.stop = %d", (int)res.stop);
    }
    if (res.stop != NLA_FW_STOP_NUMERIC || isfinite(res.f)) {
        /* f, and the gap at the returned x, evaluated here */
        double g[NMAX], v[NMAX], sc, fr = obj_eval(op, x, g, &sc), gap = 0, gs = 0;
        double ftol = 1e-9 * (1 + fabs(fr) + sc);
        FUZZ_ASSERT(fabs(res.f - fr) <= ftol, "set %d obj %d rule %d: res.f = %.17g, f(x) = "
                    "%.17g (scale %g)", sp->kind, op->kind, rule, res.f, fr, sc);
        if (!S_LANCZOS(sp->kind) && isfinite(res.gap) && res.stop != NLA_FW_STOP_NUMERIC) {
            lmo_ref(sp, g, v);
            for (int64_t i = 0; i < n; i++) {
                gap += g[i] * (x[i] - v[i]);
                gs += fabs(g[i]) * (fabs(x[i]) + fabs(v[i]));
            }
            /* the solver's g comes from an image updated in place: compare
               with the rounding of f's scale, not only of the gap's sum */
            FUZZ_ASSERT(gap >= -1e-10 * (1 + gs) &&
                        fabs(res.gap - gap) <= 1e-9 * (1 + gs + sc),
                        "set %d obj %d: res.gap = %.17g, here %.17g (scale %g)", sp->kind,
                        op->kind, res.gap, gap, gs);
            FUZZ_ASSERT(res.best_gap <= res.gap, "best_gap %g > gap %g", res.best_gap, res.gap);
        }
    }
    fuzz_note_valid();
}

/* option setters: invalid values leave the options bytewise unchanged */
static void set_options(nla_fw_options *opt, reader *rd, int64_t *max_iter, double *tol,
                        int *rule)
{
    static const double reals[] = {0, 1e-9, 1e-6, 1, 10, 1e-3, -1, NAN, INFINITY, -0.0};
    int count = (int)(rd_byte(rd) % 6);
    for (int i = 0; i < count; i++) {
        unsigned what = rd_byte(rd) % 8, sel = rd_byte(rd);
        double val = reals[rd_byte(rd) % 10];
        struct nla_fw_options before;
        nla_fw_options *o = sel > 245 ? NULL : opt;
        int ok = o != NULL, ev = (int)(sel % 6);
        nla_status s;
        memcpy(&before, opt, sizeof before);
        if (sel >= 200 && sel <= 245)
            ev = (int)(int32_t)rd_u64(rd, 4);
        switch (what) {
        case 0:
            s = nla_fw_options_set_variant(o, (nla_fw_variant)ev);
            ok = ok && ev >= 0 && ev <= NLA_FW_AUTO;
            if (s == NLA_OK && ok)
                opt_variant = ev;
            break;
        case 1:
            ev %= 4;
            if (sel >= 200 && sel <= 245)
                ev = (int)(int32_t)rd_u64(rd, 4);
            s = nla_fw_options_set_step(o, (nla_fw_step_rule)ev, val);
            ok = ok && ev >= 0 && ev <= 3 && isfinite(val) &&
                 (val > 0 || (ev != NLA_FW_SHORT_STEP && val == 0));
            if (s == NLA_OK && ok)
                *rule = ev;
            break;
        case 2:
            s = nla_fw_options_set_tol(o, val);
            ok = ok && isfinite(val) && val >= 0;
            if (ok)
                *tol = val;
            break;
        case 3: {
            int64_t mi = sel < 200 ? (int64_t)(sel % 25) : rd_size(rd, 25);
            s = nla_fw_options_set_max_iter(o, mi);
            ok = ok && mi >= 0;
            if (ok)
                *max_iter = mi;
            break;
        }
        case 4:
            /* a real limit would make runs depend on the clock: tiny or none */
            val = val > 0 && isfinite(val) ? 1e-300 : val;
            s = nla_fw_options_set_time_limit(o, val);
            ok = ok && isfinite(val) && val >= 0;
            break;
        case 5:
            cb_stop_at = (int)(sel % 6) - 1;
            s = nla_fw_options_set_callback(o, sel & 64 ? NULL : stop_cb, NULL);
            if (!ok || (sel & 64))
                cb_stop_at = -1;
            break;
        case 6:
            ev = sel < 200 ? (int)(sel % 3) : ev;
            s = nla_fw_options_set_lazy(o, ev);
            ok = ok && (ev == 0 || ev == 1);
            if (s == NLA_OK && ok)
                opt_lazy = ev;
            break;
        default: {
            int64_t every = sel < 200 ? (int64_t)(sel % 3) : rd_size(rd, 3);
            FILE *out = sel & 1 ? devnull : NULL;
            s = nla_fw_options_set_verbose(o, out, every);
            ok = ok && (!out || every >= 1);
            break;
        }
        }
        if (ok) {
            FUZZ_ASSERT(s == NLA_OK, "option setter %u returned %d (%s)", what, (int)s,
                        nla_last_error());
        } else {
            rejected(s, "an option setter");
            FUZZ_ASSERT(!memcmp(&before, opt, sizeof before),
                        "option setter %u rejected (%s) but changed the options", what,
                        nla_last_error());
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader rd = {data, size};
    setp sp;
    objp op;
    nla_fw_set *const ssent = (nla_fw_set *)(uintptr_t)0x5e7, *set = ssent;
    nla_fw_objective *const osent = (nla_fw_objective *)(uintptr_t)0x0b1, *obj = osent;
    nla_fw_options *opt = NULL;
    int64_t max_iter = 10000;
    double tol = 1e-7;
    int rule = NLA_FW_ADAPTIVE, svalid, ovalid, sused;
    nla_status s;

    if (!ctx && nla_context_create(&ctx, NLA_BACKEND_CPU) != NLA_OK)
        abort();
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    memset(&sp, 0, sizeof sp);
    memset(&op, 0, sizeof op);
    cb_stop_at = -1;

    /* ---- the set */
    sp.kind = (int)(rd_byte(&rd) % NS);
    {
        unsigned nl = rd_byte(&rd);
        nl = nl > 230 ? nl : 0;
        sp.null_out = nl && nl % 4 == 0;
        sp.null_lo = nl && nl % 4 == 1;
        sp.null_hi = nl && nl % 4 == 2;
        sp.null_lmo = nl && nl % 4 == 3;
    }
    if (S_LANCZOS(sp.kind)) {
        sp.m = sp.kind == S_NUCLEAR ? rd_dim(&rd, 4) : 1;
        sp.n = rd_dim(&rd, 4);
        {
            static const double tols[] = {1e-12, 1e-6, 0.5, 1e-15, 0, 1, -1e-3, NAN};
            unsigned t = rd_byte(&rd);
            sp.tol = tols[t < 230 ? t % 4 : 4 + t % 4];
        }
        {
            unsigned t = rd_byte(&rd);
            sp.max_iter = t < 220 ? 1 + (int64_t)(t % 200) : rd_size(&rd, 3);
        }
    } else if (sp.kind == S_BIRKHOFF) {
        sp.n = rd_dim(&rd, 4);
    } else {
        sp.n = rd_dim(&rd, sp.kind == S_BOX ? 6 : 8);
        sp.k = rd_dim(&rd, 4);
    }
    sp.r = rd_radius(&rd);
    if (sp.kind == S_BOX) {
        static const double b[] = {-1, 0, 1, 2.5, -3, 0.5};
        for (int i = 0; i < NMAX; i++) {
            unsigned t = rd_byte(&rd);
            double lo = b[t % 6], hi = lo + (double)((t / 6) % 4);
            if (t > 245) {
                if (t & 1) hi = lo - 1;
                else if (t & 2) lo = -INFINITY;
                else hi = NAN;
            }
            sp.lo[i] = lo;
            sp.hi[i] = hi;
        }
    }
    if (set_reads_past(&sp))
        return 0;   /* valid pointers to n bounds we do not have */
    svalid = set_valid(&sp);
    s = set_create(&sp, &set);
    if (!svalid) {
        /* a failed create leaves its handle NULL (nla(3)); NULL out: untouched */
        FUZZ_ASSERT(set == (sp.null_out ? ssent : NULL), "set %d rejected (%s) but *set is "
                    "not %s", sp.kind, nla_last_error(), sp.null_out ? "untouched" : "NULL");
        rejected(s, "a set constructor");
    } else {
        FUZZ_ASSERT(s == NLA_OK && set != ssent && set != NULL, "set %d n %lld: valid set "
                    "returned %d (%s)", sp.kind, (long long)sp.n, (int)s, nla_last_error());
        FUZZ_ASSERT(nla_fw_set_dim(set) == set_dim(&sp), "set dim %lld, want %lld",
                    (long long)nla_fw_set_dim(set), (long long)set_dim(&sp));
    }
    /* used below only when small, and nuclear and spectraplex only with a
       bounded Lanczos */
    sused = svalid && set_dim(&sp) <= NMAX && (!S_LANCZOS(sp.kind) || sp.max_iter <= 1000);

    /* ---- the objective: the set's dimension, mostly */
    op.kind = (int)(rd_byte(&rd) % NO);
    {
        unsigned nl = rd_byte(&rd);
        nl = nl > 230 ? nl : 0;
        op.null_out = nl && nl % 4 == 0;
        op.null_a = nl && nl % 4 == 1;
        op.null_b = nl && nl % 4 == 2;
        op.null_f = nl && nl % 4 == 3;
        /* a user objective has no matrix: the pattern of a NULL a is a NULL hv */
        op.null_hv = op.kind == O_USER_QUAD && op.null_a;
    }
    {
        unsigned t = rd_byte(&rd);
        op.n = t < 220 && sused ? set_dim(&sp) : rd_dim(&rd, 8);
    }
    op.m = rd_dim(&rd, 8);
    op.kl = rd_byte(&rd) < 230 ? (int64_t)(rd_byte(&rd) % 4) : rd_size(&rd, 4);
    op.ku = rd_byte(&rd) < 230 ? (int64_t)(rd_byte(&rd) % 4) : rd_size(&rd, 4);
    op.with_c = rd_byte(&rd) & 1;
    op.uplo = (int)(rd_byte(&rd) < 240 ? (rd_byte(&rd) & 1 ? NLA_UPPER : NLA_LOWER)
                                       : (int)(int32_t)rd_u64(&rd, 4));
    {
        int sane = op.kl >= 0 && op.kl <= 1000 && op.ku >= 0 && op.ku <= 1000;
        int64_t want = op.kind == O_LSQ ? op.m : op.kind == O_QUAD ? op.n
                     : !sane ? 1 : op.kind == O_LSQ_BAND ? op.kl + op.ku + 1 : 2 * op.kl + 1;
        op.ld = rd_ld(&rd, want);
    }
    {
        unsigned t = rd_byte(&rd);
        op.nan_after = t > 235 ? (int)(t % 8) : -1;
    }
    ovalid = obj_valid(&op);
    fill_obj(&op, rd_byte(&rd), ovalid && obj_small(&op));
    s = obj_create(&op, &obj);
    if (!ovalid) {
        FUZZ_ASSERT(obj == (op.null_out ? osent : NULL), "objective %d rejected (%s) but "
                    "*obj is not %s", op.kind, nla_last_error(),
                    op.null_out ? "untouched" : "NULL");
        rejected(s, "an objective constructor");
        if (O_IS_USER(op.kind)) {
            char want[64];
            snprintf(want, sizeof want, "%s: %s", op.kind == O_USER ? "nla_fw_objective_create_user"
                     : "nla_fw_objective_create_user_quad", user_obj_bad_arg(&op));
            FUZZ_ASSERT(!strncmp(nla_last_error(), want, strlen(want)) &&
                        !isalnum((unsigned char)nla_last_error()[strlen(want)]) &&
                        nla_last_error()[strlen(want)] != '_',
                        "objective %d rejected with \"%s\", want \"%s ...\"", op.kind,
                        nla_last_error(), want);
        }
    } else {
        FUZZ_ASSERT(s == NLA_OK && obj != osent && obj != NULL, "objective %d: valid "
                    "objective returned %d (%s)", op.kind, (int)s, nla_last_error());
        FUZZ_ASSERT(nla_fw_objective_dim(obj) == op.n, "objective dim %lld, want %lld",
                    (long long)nla_fw_objective_dim(obj), (long long)op.n);
    }

    /* ---- options */
    if (rd_byte(&rd) > 245) {
        s = nla_fw_options_create(NULL);
        rejected(s, "nla_fw_options_create");
    }
    if (nla_fw_options_create(&opt) != NLA_OK)
        abort();
    opt_variant = NLA_FW_AUTO;
    opt_lazy = 0;
    {
        /* a few iterations by default */
        nla_status s1 = nla_fw_options_set_max_iter(opt, max_iter = 1 + rd_byte(&rd) % 30);
        if (s1 != NLA_OK)
            abort();
    }
    set_options(opt, &rd, &max_iter, &tol, &rule);

    /* ---- use them */
    if (sused)
        try_lmo(&sp, set, &rd);
    if (ovalid && obj_small(&op))
        try_eval(&op, obj, &rd);
    if (sused && ovalid && obj_small(&op) && max_iter <= 60) {
        user_nan_after = O_IS_USER(op.kind) ? op.nan_after : -1;
        try_solve(&sp, set, &op, obj, opt, max_iter, tol, rule, &rd);
        user_nan_after = -1;
    }
    nla_fw_options_destroy(opt);
    if (svalid)
        nla_fw_set_destroy(set);
    if (ovalid)
        nla_fw_objective_destroy(obj);
    nla_fw_set_destroy(NULL);
    nla_fw_objective_destroy(NULL);
    FUZZ_ASSERT(nla_fw_set_dim(NULL) == -1 && nla_fw_objective_dim(NULL) == -1,
                "dim of NULL is not -1");
    return 0;
}
