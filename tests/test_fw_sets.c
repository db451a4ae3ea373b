/*
 * test_fw_sets.c - the K-norm ball, hypersimplex, Birkhoff polytope and
 * spectraplex, and the nuclear ball's Lanczos LMO:
 *   - LMOs against brute force over every vertex (n! permutations for
 *     n <= 8; no improving 2-swap or 3-cycle at n = 60), the exact vertex
 *     of nla.h's tie rules; the Lanczos LMOs against LAPACKE_dsyev and
 *     dgesvd, near-tied pairs included;
 *   - solves of f = 1/2 |X - Y|^2 against the projection of Y (bisection,
 *     dsyev/dgesvd and a simplex projection of the spectrum) or the FW gap
 *     recomputed here; NLA_OK only on a true gap <= tol (the 8x6
 *     near-tied nuclear ball, vanilla over the spectraplex);
 *   - infeasible starts, dimensions, bad creation arguments.
 */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
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

TestSuite(fw_sets, .init = setup, .fini = teardown);

/* ------------------------------------------------------------- helpers */

/* splitmix64: uniform in [-1, 1) */
static double urand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) / (double)(1ull << 52) - 1;
}

/* uniform, or (ties) in {-1, -1/2, 0, 1/2, 1} */
static void fill(double *x, int64_t n, uint64_t *s, int ties)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = ties ? 0.5 * round(2 * urand(s)) : urand(s);
}

static double asum(const double *x, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += fabs(x[i]);
    return s;
}

static int desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* Euclidean projection of s onto {p >= 0, sum p = r} (le: sum p <= r) */
static void proj_simplex(const double *s, int k, double r, int le, double *p)
{
    double u[64], cs = 0, theta = 0, sum = 0;
    for (int i = 0; i < k; i++)
        sum += fmax(s[i], 0);
    if (!(le && sum <= r)) {
        memcpy(u, s, (size_t)k * sizeof(double));
        qsort(u, (size_t)k, sizeof(double), desc);
        for (int i = 0; i < k; i++)
            if (u[i] > ((cs += u[i]) - r) / (i + 1))
                theta = (cs - r) / (i + 1);
    }
    for (int i = 0; i < k; i++)
        p[i] = fmax(s[i] - theta, 0);
}

/* w: the eigenvalues (ascending) of (a + a')/2, z its eigenvectors */
static void sym_eig(const double *a, int n, double *w, double *z)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            z[i + j * n] = 0.5 * (a[i + j * n] + a[j + i * n]);
    cr_assert_eq(LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'U', n, z, n, w), 0);
}

/* s: the singular values of the m-by-c a (at most 40 by 40) */
static void svals(const double *a, int m, int c, double *s)
{
    double t[40 * 40], sup[40];
    memcpy(t, a, (size_t)(m * c) * sizeof(double));
    cr_assert_eq(LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', m, c, t, m, s, NULL, 1, NULL, 1,
                                sup), 0);
}

/* q = a random m-by-m orthogonal matrix */
static void orthogonal(double *q, int m, uint64_t seed)
{
    double tau[64];
    fill(q, m * m, &seed, 0);
    cr_assert_eq(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, m, q, m, tau), 0);
    cr_assert_eq(LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, m, m, q, m, tau), 0);
}

/* a = U diag(d) V' (m-by-c; U m-by-m, V c-by-c, d min(m, c)) */
static void compose(double *a, int m, int c, const double *u, const double *d,
                    const double *v)
{
    for (int j = 0; j < c; j++)
        for (int i = 0; i < m; i++) {
            double t = 0;
            for (int l = 0; l < (m < c ? m : c); l++)
                t += u[i + l * m] * d[l] * v[j + l * c];
            a[i + j * m] = t;
        }
}

/* f = 1/2 |x - y|^2 (least squares, A = I in band storage) over set from
   x with the given options; returns the status */
static nla_status solve_dist(const nla_fw_set *set, int64_t n, const double *y, double *x,
                             nla_fw_options *opt, nla_fw_result *res)
{
    double *ones = dalloc((size_t)n);
    nla_fw_objective *obj = NULL;
    nla_status st;
    for (int64_t i = 0; i < n; i++)
        ones[i] = 1;
    cr_assert_eq(nla_fw_objective_create_lsq_band(&obj, n, n, 0, 0, ones, 1, y), NLA_OK);
    st = nla_fw_solve(ctx, obj, set, opt, x, res);
    nla_fw_objective_destroy(obj);
    nla_fw_options_destroy(opt);
    free(ones);
    return st;
}

/* the least <G, P> over the n! permutations (n <= 8) */
static double perm_min(const double *g, int n, int row, unsigned used, double acc)
{
    double best = INFINITY;
    if (row == n)
        return acc;
    for (int j = 0; j < n; j++)
        if (!(used & (1u << j)))
            best = fmin(best, perm_min(g, n, row + 1, used | (1u << j), acc + g[row + j * n]));
    return best;
}

/* the least <G, P> by dynamic programming over the sets S of columns
   taken by the rows 0..|S|-1 (n <= 10) */
static double assign_min(const double *g, int n)
{
    static double best[1 << 10];
    for (unsigned m = 1; m < (1u << n); m++) {
        int row = __builtin_popcount(m) - 1;
        best[m] = INFINITY;
        for (int j = 0; j < n; j++)
            if (m >> j & 1)
                best[m] = fmin(best[m], best[m & ~(1u << j)] + g[row + j * n]);
    }
    return best[(1u << n) - 1];
}

/* v is a permutation matrix with entries exactly 0 or 1; p[i]: row i's column */
static void expect_permutation(const double *v, int n, int *p, const char *what)
{
    for (int i = 0; i < n; i++) {
        int ones = 0, cones = 0;
        for (int j = 0; j < n; j++) {
            cr_assert(v[i + j * n] == 0 || v[i + j * n] == 1, "%s: V(%d,%d) = %.17g", what,
                      i, j, v[i + j * n]);
            if (v[i + j * n] == 1)
                ones++, p[i] = j;
            cones += v[j + i * n] == 1;
        }
        cr_assert(ones == 1 && cones == 1, "%s: row/column %d has %d/%d ones", what, i,
                  ones, cones);
    }
}

/* msg names arg as a word (not inside another name) */
static int names_word(const char *msg, const char *arg)
{
    size_t l = strlen(arg);
    for (const char *p = strstr(msg, arg); p; p = strstr(p + 1, arg))
        if ((p == msg || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
            !(isalnum((unsigned char)p[l]) || p[l] == '_'))
            return 1;
    return 0;
}

/* status EINVAL, message "routine: ..." naming the argument */
static void expect_einval_(nla_status st, const char *call, const char *routine,
                           const char *arg)
{
    const char *msg = nla_last_error();
    size_t l = strlen(routine);
    cr_assert_eq(st, NLA_EINVAL, "%s: status %d", call, (int)st);
    cr_assert(strncmp(msg, routine, l) == 0 && msg[l] == ':' && msg[l + 1] == ' ',
              "%s: message '%s'", call, msg);
    cr_assert(names_word(msg + l + 2, arg), "%s: message '%s' does not name %s", call, msg,
              arg);
}
#define EXPECT_EINVAL(call, routine, arg) expect_einval_((call), #call, routine, arg)
/* and a failed create leaves *set NULL */
#define FAIL_SET(call, routine, arg)                                              \
    do {                                                                          \
        s = sentinel;                                                             \
        EXPECT_EINVAL(call, routine, arg);                                        \
        cr_assert_null(s, "%s: *set not NULL after a failure", #call);            \
    } while (0)

/* ------------------------------------------------------- LMO brute force */

Test(fw_sets, knorm_lmo_against_every_vertex)
{
    uint64_t seed = 1;
    for (int trial = 0; trial < 90; trial++) {
        int n = 1 + trial % 10, k = 1 + (int)((urand(&seed) + 1) / 2 * n), tie = trial % 3;
        double g[10], v[10], best = INFINITY, amax = 0, sum, val, r = trial & 1 ? 1.5 : 0.75;
        int imax = 0, exact_tie, dense;
        nla_fw_set *set = NULL;

        k = k > n ? n : k;
        fill(g, n, &seed, tie == 1);
        if (tie == 2) {   /* +-1 at k random places, 0 elsewhere: r max|g| = r/k sum|g| */
            memset(g, 0, sizeof g);
            for (int c = 0; c < k;) {
                int j = (int)((urand(&seed) + 1) / 2 * n);
                if (j < n && g[j] == 0)
                    g[j] = urand(&seed) < 0 ? -1 : 1, c++;
            }
        }
        if (trial == 3)
            memset(g, 0, sizeof g);    /* all zero: the tie, +r e_0 */
        for (int i = 0; i < n; i++)
            if (fabs(g[i]) > amax)
                amax = fabs(g[i]), imax = i;
        sum = asum(g, n);
        exact_tie = sum == k * amax;   /* exact for multiples of 1/2 */
        /* brute force: the 2n one-hot and 2^n sign vertices */
        for (int i = 0; i < n; i++)
            best = fmin(best, -r * fabs(g[i]));
        for (unsigned m = 0; m < (1u << n); m++) {
            double s = 0;
            for (int i = 0; i < n; i++)
                s += (m >> i & 1 ? -r / k : r / k) * g[i];
            best = fmin(best, s);
        }
        cr_assert_eq(nla_fw_set_create_knorm_ball(&set, n, k, r), NLA_OK, "%s",
                     nla_last_error());
        cr_assert_eq(nla_fw_set_lmo(ctx, set, g, v), NLA_OK, "%s", nla_last_error());
        val = ddot(g, v, n);
        cr_assert_leq(fabs(val - best), 1e-12 * r * sum, "trial %d n %d k %d: <g,v> = %.17g, "
                      "min %.17g", trial, n, k, val, best);
        /* the documented vertex: one-hot unless the dense one is smaller (the
           random g are never within rounding of a tie, the ties exact) */
        dense = !exact_tie && (r / k) * sum > r * amax;
        for (int i = 0; i < n; i++) {
            double want = dense ? (g[i] > 0 ? -r / k : r / k)
                                : i == imax ? (g[i] > 0 ? -r : r) : 0;
            cr_assert(v[i] == want, "trial %d n %d k %d%s: v[%d] = %.17g, want %.17g (g[i] = "
                      "%g)", trial, n, k, exact_tie ? " (tie)" : "", i, v[i], want, g[i]);
        }
        nla_fw_set_destroy(set);
    }
}

Test(fw_sets, hypersimplex_lmo_against_every_vertex)
{
    uint64_t seed = 2;
    for (int trial = 0; trial < 60; trial++) {
        int n = 1 + trial % 10, k = 1 + (trial / 10) % n;
        double g[10], v[10], want[10] = {0}, r = 1.25 + urand(&seed), best = INFINITY, val;
        nla_fw_set *set = NULL;

        fill(g, n, &seed, trial % 2);
        for (unsigned m = 0; m < (1u << n); m++) {      /* the k-subsets */
            double s = 0;
            for (int i = 0; i < n; i++)
                s += m >> i & 1 ? r * g[i] : 0;
            if (__builtin_popcount(m) == k)
                best = fmin(best, s);
        }
        for (int c = 0; c < k; c++) {   /* the k least g_i, ties to the lowest index */
            int b = -1;
            for (int i = 0; i < n; i++)
                if (want[i] == 0 && (b < 0 || g[i] < g[b]))
                    b = i;
            want[b] = r;
        }
        cr_assert_eq(nla_fw_set_create_hypersimplex(&set, n, k, r), NLA_OK, "%s",
                     nla_last_error());
        cr_assert_eq(nla_fw_set_lmo(ctx, set, g, v), NLA_OK, "%s", nla_last_error());
        val = ddot(g, v, n);
        cr_assert_leq(fabs(val - best), 1e-12 * r * asum(g, n), "trial %d n %d k %d: "
                      "<g,v> = %.17g, min %.17g", trial, n, k, val, best);
        for (int i = 0; i < n; i++)
            cr_assert(v[i] == want[i], "trial %d n %d k %d: v[%d] = %.17g, want %.17g",
                      trial, n, k, i, v[i], want[i]);
        nla_fw_set_destroy(set);
    }
}

Test(fw_sets, birkhoff_lmo_against_every_permutation)
{
    uint64_t seed = 3;
    for (int n = 1; n <= 8; n++)
        for (int kind = 0; kind < 3; kind++) {    /* random, few values, all equal */
            double g[64], v[64], v2[64], val, best, scale;
            int p[8];
            nla_fw_set *set = NULL;

            fill(g, n * n, &seed, kind == 1);
            for (int i = 0; i < n * n && kind == 2; i++)
                g[i] = -0.5;
            best = perm_min(g, n, 0, 0, 0);
            scale = n * ref_max_abs(g, (size_t)(n * n)) + DBL_MIN;
            /* the reference of n = 9, 10 below agrees */
            cr_assert_leq(fabs(assign_min(g, n) - best), 1e-14 * scale);
            cr_assert_eq(nla_fw_set_create_birkhoff(&set, n), NLA_OK, "%s", nla_last_error());
            cr_assert_eq(nla_fw_set_dim(set), n * n);
            cr_assert_eq(nla_fw_set_lmo(ctx, set, g, v), NLA_OK, "%s", nla_last_error());
            expect_permutation(v, n, p, "birkhoff LMO");
            val = ddot(g, v, n * n);
            cr_assert_leq(fabs(val - best), 1e-12 * scale, "n %d kind %d: <G,P> = %.17g, "
                          "min %.17g", n, kind, val, best);
            /* the same assignment on every call */
            cr_assert_eq(nla_fw_set_lmo(ctx, set, g, v2), NLA_OK);
            cr_assert_eq(memcmp(v, v2, (size_t)(n * n) * sizeof(double)), 0);
            nla_fw_set_destroy(set);
        }
}

/* n = 60: no 2-swap or 3-cycle of the rows improves the permutation */
Test(fw_sets, birkhoff_lmo_large_is_optimal)
{
    enum { N = 60 };
    double g[N * N], v[N * N];
    int p[N];
    uint64_t seed = 4;
    nla_fw_set *set = NULL;

    cr_assert_eq(nla_fw_set_create_birkhoff(&set, N), NLA_OK, "%s", nla_last_error());
    for (int kind = 0; kind < 2; kind++) {
        double eps;
        fill(g, N * N, &seed, kind);
        eps = 1e-12 * N * ref_max_abs(g, N * N);
        cr_assert_eq(nla_fw_set_lmo(ctx, set, g, v), NLA_OK, "%s", nla_last_error());
        expect_permutation(v, N, p, "birkhoff LMO n = 60");
#define G_(i, j) g[(i) + (j) * N]
        for (int i = 0; i < N; i++)
            for (int j = i + 1; j < N; j++) {
                cr_assert_geq(G_(i, p[j]) + G_(j, p[i]) - G_(i, p[i]) - G_(j, p[j]), -eps,
                              "swapping rows %d and %d improves", i, j);
                for (int l = j + 1; l < N; l++) {
                    double now = G_(i, p[i]) + G_(j, p[j]) + G_(l, p[l]);
                    cr_assert_geq(G_(i, p[j]) + G_(j, p[l]) + G_(l, p[i]) - now, -eps);
                    cr_assert_geq(G_(i, p[l]) + G_(j, p[i]) + G_(l, p[j]) - now, -eps);
                }
            }
#undef G_
    }
    nla_fw_set_destroy(set);
}

/* ---------------------------------------------- Lanczos LMOs vs LAPACKE */

Test(fw_sets, spectraplex_lmo_against_dsyev)
{
    enum { N = 30 };
    double g[N * N], s[N * N], q[N * N], z[N * N], v[N * N], w[N], lam[N], r = 2.5;
    uint64_t seed = 5;
    nla_fw_set *set = NULL;

    cr_assert_eq(nla_fw_set_create_spectraplex(&set, N, r, 1e-10, 300), NLA_OK, "%s",
                 nla_last_error());
    cr_assert_eq(nla_fw_set_dim(set), N * N);
    for (int c = 0; c < 4; c++) {
        double val, nrm, tr = 0;
        fill(g, N * N, &seed, 0);
        if (c == 1 || c == 2) {   /* Q diag(lam) Q' plus an antisymmetric part */
            orthogonal(q, N, 50 + c);
            for (int i = 0; i < N; i++)
                lam[i] = -0.9 + 0.95 * (urand(&seed) + 1);
            lam[3] = -1;
            lam[17] = c == 1 ? -1 + 1e-6 : 1 - 1e-6;   /* near-tied least, or top pair */
            lam[5] = c == 2 ? 1 : lam[5];
            compose(s, N, N, q, lam, q);
            memcpy(z, g, sizeof g);
            for (int j = 0; j < N; j++)
                for (int i = 0; i < N; i++)
                    g[i + j * N] = s[i + j * N] + 0.3 * (i < j ? 1 : i > j ? -1 : 0) *
                                   (z[i + j * N] + z[j + i * N]);
        }
        if (c == 3)
            memset(g, 0, sizeof g);
        sym_eig(g, N, w, z);
        nrm = fmax(fabs(w[0]), fabs(w[N - 1]));
        cr_assert_eq(nla_fw_set_lmo(ctx, set, g, v), NLA_OK, "%s", nla_last_error());
        val = ddot(g, v, N * N);
        cr_assert_leq(fabs(val - r * w[0]), 1e-8 * r * nrm, "case %d: <G,V> = %.17g, "
                      "r lambda_min = %.17g", c, val, r * w[0]);
        /* V = r v v': symmetric, trace r, eigenvalues {0, .., 0, r} */
        for (int i = 0; i < N; i++) {
            tr += v[i + i * N];
            for (int j = 0; j < i; j++)
                cr_assert_leq(fabs(v[i + j * N] - v[j + i * N]), 4 * DBL_EPSILON * r,
                              "case %d: V not symmetric at (%d,%d)", c, i, j);
        }
        cr_assert_leq(fabs(tr - r), 1e-12 * r, "case %d: trace %.17g, r %g", c, tr, r);
        sym_eig(v, N, w, z);
        for (int i = 0; i < N; i++)
            cr_assert_leq(fabs(w[i] - (i == N - 1 ? r : 0)), 1e-12 * r, "case %d: "
                          "eigenvalue %d of V = %.17g", c, i, w[i]);
    }
    nla_fw_set_destroy(set);
}

Test(fw_sets, nuclear_lmo_against_dgesvd)
{
    static const int dims[3][2] = { { 40, 25 }, { 25, 40 }, { 8, 6 } };
    static const double d[6] = { 2, 2 - 2e-6, 1, 0.5, 0.25, 0.1 };
    double g[1000], v[1000], u[64], w[36], s[40], sv[40], r = 1.5, val;
    uint64_t seed = 6;
    for (int c = 0; c < 3; c++) {
        int m = dims[c][0], n = dims[c][1];
        nla_fw_set *set = NULL;

        fill(g, m * n, &seed, 0);
        if (c == 2) {    /* the 8x6 shape: sigma_1 - sigma_2 = 1e-6 sigma_1 */
            orthogonal(u, m, 61);
            orthogonal(w, n, 62);
            compose(g, m, n, u, d, w);
        }
        svals(g, m, n, s);
        cr_assert_eq(nla_fw_set_create_nuclear_ball(&set, m, n, r, 1e-10, 200), NLA_OK);
        cr_assert_eq(nla_fw_set_lmo(ctx, set, g, v), NLA_OK, "%s", nla_last_error());
        val = ddot(g, v, m * n);
        cr_assert_leq(fabs(val + r * s[0]), 1e-8 * r * s[0], "%dx%d: <G,V> = %.17g, "
                      "-r sigma_1 = %.17g", m, n, val, -r * s[0]);
        svals(v, m, n, sv);     /* rank one, norm r */
        for (int i = 0; i < (m < n ? m : n); i++)
            cr_assert_leq(fabs(sv[i] - (i ? 0 : r)), 1e-12 * r, "%dx%d: sigma_%d(V) = %.17g",
                          m, n, i + 1, sv[i]);
        nla_fw_set_destroy(set);
    }
}

/* ----------------------------------------------------------------- solves */

/* x* = clamp(y - tau, 0, r) with sum x* = k r (tau by bisection); the gap
   recomputed as <g, x> - r (the k least g_i), |x - x*| <= sqrt(2 gap) by
   strong convexity; tol 1e-10, the default variant, adaptive steps. */
Test(fw_sets, hypersimplex_solve_is_the_projection)
{
    static const struct { int n, k; double r; } cs[3] = { { 12, 4, 0.5 }, { 9, 1, 1 },
                                                         { 10, 9, 0.3 } };
    uint64_t seed = 7;
    for (int c = 0; c < 3; c++) {
        int n = cs[c].n, k = cs[c].k;
        double r = cs[c].r, y[12], xs[12], x[12], g[12], lo = -2, hi = 2, gap = 0, err = 0;
        double sum = 0;
        nla_fw_set *set = NULL;
        nla_fw_result res;

        for (int i = 0; i < n; i++)
            y[i] = r * (0.5 + 1.2 * urand(&seed));
        for (int it = 0; it < 200; it++) {
            double tau = 0.5 * (lo + hi), t = 0;
            for (int i = 0; i < n; i++)
                t += fmin(fmax(y[i] - tau, 0), r);
            *(t > k * r ? &lo : &hi) = tau;
        }
        for (int i = 0; i < n; i++) {
            xs[i] = fmin(fmax(y[i] - 0.5 * (lo + hi), 0), r);
            x[i] = i < k ? r : 0;
        }
        cr_assert_eq(nla_fw_set_create_hypersimplex(&set, n, k, r), NLA_OK);
        cr_assert_eq(solve_dist(set, n, y, x, options(NLA_FW_AUTO, NLA_FW_ADAPTIVE, 0,
                                                      1e-10, 20000), &res),
                     NLA_OK, "n %d k %d: %s", n, k, nla_context_error(ctx));
        for (int i = 0; i < n; i++) {
            g[i] = x[i] - y[i];
            gap += g[i] * x[i];
            sum += x[i];
            err = fmax(err, fabs(x[i] - xs[i]));
            cr_assert(x[i] >= -1e-15 * r && x[i] <= r * (1 + 1e-15), "x[%d] = %.17g", i,
                      x[i]);
        }
        for (int i = 0; i < n; i++)
            g[i] = -g[i];
        qsort(g, (size_t)n, sizeof(double), desc);   /* -g descending: g ascending */
        for (int i = 0; i < k; i++)
            gap += r * g[i];
        cr_assert_leq(gap, 1e-10 * (1 + 1e-6), "n %d k %d: gap %g (solver: %g)", n, k, gap,
                      res.gap);
        cr_assert_leq(fabs(sum - k * r), 1e-13 * k * r, "n %d k %d: sum %.17g", n, k, sum);
        cr_assert_leq(err, sqrt(2 * fmax(gap, 0)) + 1e-14, "n %d k %d: |x - x*|_inf = %g "
                      "after %lld iterations", n, k, err, (long long)res.iterations);
        nla_fw_set_destroy(set);
    }
}

/* The K-norm ball: the gap recomputed from the dual norm max(r |g|_inf,
   r/k |g|_1); k = 1 and k = n are the L-inf and L1 balls of radius r,
   whose projections are known. */
Test(fw_sets, knorm_ball_solve_gap_certificate)
{
    enum { N = 10 };
    static const int ks[4] = { 3, 1, N, 5 };
    uint64_t seed = 8;
    for (int c = 0; c < 4; c++) {
        int k = ks[c];
        double y[N], x[N] = {0}, g[N], a[N], p[N], r = 1, tol = 1e-9, amax = 0, gap, top = 0;
        nla_fw_set *set = NULL;
        nla_fw_result res;

        for (int i = 0; i < N; i++)
            y[i] = 1.5 * urand(&seed);
        cr_assert_eq(nla_fw_set_create_knorm_ball(&set, N, k, r), NLA_OK);
        cr_assert_eq(nla_fw_set_dim(set), N);
        cr_assert_eq(solve_dist(set, N, y, x, options(NLA_FW_AUTO, NLA_FW_ADAPTIVE, 0, tol,
                                                      50000), &res),
                     NLA_OK, "k %d: %s", k, nla_context_error(ctx));
        for (int i = 0; i < N; i++) {
            g[i] = x[i] - y[i];
            amax = fmax(amax, fabs(g[i]));
            a[i] = fabs(x[i]);
        }
        gap = ddot(g, x, N) + fmax(r * amax, r / k * asum(g, N));
        cr_assert(gap <= 10 * tol && gap >= -1e-12, "k %d: gap %g (solver %g)", k, gap,
                  res.gap);
        qsort(a, N, sizeof(double), desc);
        for (int i = 0; i < k; i++)
            top += a[i];
        cr_assert_leq(top, r * (1 + 1e-12), "k %d: sum of the k largest |x_i| = %.17g", k,
                      top);
        for (int i = 0; i < N; i++)
            a[i] = fabs(y[i]);
        proj_simplex(a, N, r, 1, p);
        for (int i = 0; i < N && (k == 1 || k == N); i++) {  /* clamp(y), L1 projection */
            double xs = k == 1 ? fmin(fmax(y[i], -r), r) : copysign(p[i], y[i]);
            cr_assert_leq(fabs(x[i] - xs), sqrt(2 * fmax(gap, 0)) + 1e-14, "k %d: x[%d] = "
                          "%.17g, x*[%d] = %.17g", k, i, x[i], i, xs);
        }
        nla_fw_set_destroy(set);
    }
}

/* The projection of Y onto the Birkhoff polytope: rows and columns sum to
   1, X >= 0 exactly, and the gap recomputed (all n! permutations for
   n <= 8, assign_min above) is <= 10 tol; the default variant for even n,
   pairwise (whose drop steps could round below 0) for odd n. */
Test(fw_sets, birkhoff_solve_gap_and_feasibility)
{
    uint64_t seed = 9;
    for (int n = 6; n <= 10; n++) {
        double y[100], x[100], g[100], tol = 1e-8, gap;
        nla_fw_set *set = NULL;
        nla_fw_result res;

        for (int i = 0; i < n * n; i++) {
            y[i] = (urand(&seed) + 1) / n * 1.5;
            x[i] = 1.0 / n;
        }
        cr_assert_eq(nla_fw_set_create_birkhoff(&set, n), NLA_OK);
        cr_assert_eq(solve_dist(set, n * n, y, x, options(n & 1 ? NLA_FW_PAIRWISE : NLA_FW_AUTO,
                                                          NLA_FW_ADAPTIVE, 0, tol, 20000),
                                &res), NLA_OK, "n %d: %s", n, nla_context_error(ctx));
        for (int i = 0; i < n; i++) {
            double rs = 0, cs = 0;
            for (int j = 0; j < n; j++) {
                cr_assert_geq(x[i + j * n], 0.0, "n %d: X(%d,%d) = %.17g", n, i, j,
                              x[i + j * n]);
                rs += x[i + j * n];
                cs += x[j + i * n];
            }
            cr_assert(fabs(rs - 1) <= 1e-12 && fabs(cs - 1) <= 1e-12, "n %d: row %d sums to "
                      "%.17g, column %d to %.17g", n, i, rs, i, cs);
        }
        for (int i = 0; i < n * n; i++)
            g[i] = x[i] - y[i];
        gap = ddot(g, x, n * n) - (n <= 8 ? perm_min(g, n, 0, 0, 0) : assign_min(g, n));
        cr_assert(gap <= 10 * tol && gap >= -1e-12, "n %d: gap %g (solver %g)", n, gap,
                  res.gap);
        nla_fw_set_destroy(set);
    }
}

/* The projection onto the spectraplex: Y = Q diag(mu) Q', X* = Q diag(p) Q'
   with p the projection of mu onto the simplex of radius r (dsyev; X* has
   rank 3).  Pairwise steps over the rank-one atoms reach tol 1e-9 in a few
   dozen iterations (vanilla is sublinear there); vanilla must still never
   stop with NLA_OK where the true gap <G, X> - r lambda_min(G) (dsyev)
   exceeds tol by more than the LMO's tolerance. */
Test(fw_sets, spectraplex_solve_is_the_projection)
{
    enum { N = 20, NN = N * N };
    double y[NN], z[NN], xs[NN], x[NN], g[NN], w[N], p[N], r = 2, fstar = 0;
    uint64_t seed = 10;
    nla_fw_set *set = NULL;

    fill(z, NN, &seed, 0);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            y[i + j * N] = 0.5 * (z[i + j * N] + z[j + i * N]) + (i == j ? r / N : 0);
    sym_eig(y, N, w, z);
    proj_simplex(w, N, r, 0, p);
    compose(xs, N, N, z, p, z);
    for (int i = 0; i < N; i++)
        fstar += 0.5 * (w[i] - p[i]) * (w[i] - p[i]);
    cr_assert_eq(nla_fw_set_create_spectraplex(&set, N, r, 1e-10, 200), NLA_OK);
    for (int c = 0; c < 3; c++) {
        double tol = c == 0 ? 1e-9 : 1e-6, err = 0, nrm = 0, f = 0, gap, tr = 0;
        nla_fw_result res;
        nla_status st;

        memset(x, 0, sizeof x);
        for (int i = 0; i < N; i++)
            x[i + i * N] = r / N;
        st = solve_dist(set, NN, y, x, options(c == 0 ? NLA_FW_PAIRWISE : NLA_FW_VANILLA,
                                               c == 2 ? NLA_FW_EXACT : NLA_FW_ADAPTIVE, 0,
                                               tol, 3000), &res);
        cr_assert(st == NLA_OK || (c > 0 && st == NLA_EMAXITER), "case %d: %s", c,
                  nla_context_error(ctx));
        for (int i = 0; i < NN; i++) {
            g[i] = x[i] - y[i];
            f += 0.5 * g[i] * g[i];
            err += (x[i] - xs[i]) * (x[i] - xs[i]);
            nrm += xs[i] * xs[i];
        }
        for (int i = 0; i < N; i++) {   /* symmetric, trace r */
            tr += x[i + i * N];
            for (int j = 0; j < i; j++)
                cr_assert_leq(fabs(x[i + j * N] - x[j + i * N]), 1e-13 * r, "case %d", c);
        }
        cr_assert_leq(fabs(tr - r), 1e-12 * r, "case %d: trace %.17g", c, tr);
        sym_eig(g, N, w, z);
        gap = ddot(g, x, NN) - r * w[0];
        if (st == NLA_OK)
            cr_assert_leq(gap, tol + 1e-8 * r * fmax(fabs(w[0]), fabs(w[N - 1])), "case %d: "
                          "NLA_OK after %lld iterations with gap %g, but the true gap is %g "
                          "(f - f* = %g)", c, (long long)res.iterations, res.gap, gap,
                          f - fstar);
        if (c == 0)
            cr_assert_leq(sqrt(err), 1e-5 * (1 + sqrt(nrm)), "|X - X*|_F = %g after %lld "
                          "iterations (gap %g)", sqrt(err), (long long)res.iterations, gap);
    }
    nla_fw_set_destroy(set);
}

/* The issue: an 8x6 nuclear ball, r = 4, the target's top singular values
   near-tied, pairwise (and vanilla) steps, exact line search, tol 1e-4,
   10 Lanczos products.  NLA_OK must mean gap >= 0 and f - f* <= tol, f*
   from dgesvd: X* = U proj(sigma) V'. */
Test(fw_sets, nuclear_near_tie_never_ok_with_negative_gap)
{
    enum { M = 8, C = 6, MN = M * C };
    static const double d[C] = { 3, 3 - 3e-7, 0.9, 0.5, 0.25, 0.1 };
    double u[M * M], w[C * C], y[MN], x[MN], s[C], p[C], fstar = 0, tol = 1e-4;

    orthogonal(u, M, 71);
    orthogonal(w, C, 72);
    compose(y, M, C, u, d, w);
    svals(y, M, C, s);
    proj_simplex(s, C, 4, 1, p);
    for (int i = 0; i < C; i++)
        fstar += 0.5 * (s[i] - p[i]) * (s[i] - p[i]);
    for (int c = 0; c < 4; c++) {
        nla_fw_set *set = NULL;
        nla_fw_result res;
        nla_status st;

        cr_assert_eq(nla_fw_set_create_nuclear_ball(&set, M, C, 4, c & 1 ? 1e-6 : 1e-10, 10),
                     NLA_OK);
        memset(x, 0, sizeof x);
        st = solve_dist(set, MN, y, x, options(c < 2 ? NLA_FW_PAIRWISE : NLA_FW_VANILLA,
                                               NLA_FW_EXACT, 0, tol, 2000), &res);
        cr_assert(st == NLA_OK || st == NLA_EMAXITER, "case %d: %s", c, nla_context_error(ctx));
        if (st == NLA_OK) {
            cr_assert_geq(res.gap, 0, "case %d: NLA_OK with gap %g", c, res.gap);
            cr_assert_leq(res.f - fstar, tol + 1e-9, "case %d: NLA_OK after %lld iterations, "
                          "gap %g, but f - f* = %g", c, (long long)res.iterations, res.gap,
                          res.f - fstar);
        }
        nla_fw_set_destroy(set);
    }
}

/* A planted rank-two optimum: Y = U diag(d) V', |d|_1 > r = 2, so
   X* = U diag(1.2, 0.8, 0, ..) V' (theta = 0.8); pairwise, tol 1e-10. */
Test(fw_sets, nuclear_rank_two_planted)
{
    enum { M = 8, C = 6, MN = M * C };
    static const double d[C] = { 2, 1.6, 0.5, 0.3, 0.2, 0.1 };
    double u[M * M], w[C * C], y[MN], x[MN] = {0}, p[C], fstar = 0;
    nla_fw_set *set = NULL;
    nla_fw_result res;

    orthogonal(u, M, 81);
    orthogonal(w, C, 82);
    compose(y, M, C, u, d, w);
    proj_simplex(d, C, 2, 1, p);
    cr_assert(p[1] > 0 && p[2] == 0);
    for (int i = 0; i < C; i++)
        fstar += 0.5 * (d[i] - p[i]) * (d[i] - p[i]);
    cr_assert_eq(nla_fw_set_create_nuclear_ball(&set, M, C, 2, 1e-12, 100), NLA_OK);
    cr_assert_eq(solve_dist(set, MN, y, x, options(NLA_FW_PAIRWISE, NLA_FW_EXACT, 0, 1e-10,
                                                   20000), &res),
                 NLA_OK, "%s after %lld iterations, gap %g", nla_context_error(ctx),
                 (long long)res.iterations, res.gap);
    cr_assert(res.f - fstar <= 1e-8 && res.f - fstar >= -1e-12, "f - f* = %g after %lld "
              "iterations", res.f - fstar, (long long)res.iterations);
    nla_fw_set_destroy(set);
}

/* ------------------------------------------------------------ bad input */

/* Per set two infeasible starts, a feasible one, and NaN. */
Test(fw_sets, infeasible_starts_are_rejected)
{
    static const double starts[4][3][9] = {
        { { 0.55, -0.5 }, { 1.1 }, { 0.3, -0.3, 0.3, 0.3, -0.3 } },  /* knorm k 2: |x|_1 > r */
        { { 1.2, 0.8 }, { 1, 1, 0.5, 0, -0.5 }, { 0.4, 0.4, 0.4, 0.4, 0.4 } }, /* hyper */
        { { 1.5, -0.5, 0, -0.5, 1.5, 0, 0, 0, 1 },           /* Birkhoff: X(0,1) < 0 */
          { 0.5, 0.5, 0, 0.5, 0.5, 0, 0.5, 0, 0.5 },         /* row 0 sums to 1.5 */
          { 0, 1, 0, 0.5, 0, 0.5, 0.5, 0, 0.5 } },
        { { 3, 0, 0, 0, -1, 0, 0, 0, 0 },                    /* spectraplex: indefinite */
          { 1, 0.4, 0, -0.4, 0.5, 0, 0, 0, 0.5 },            /* not symmetric */
          { 1, 0.2, 0, 0.2, 0.5, 0, 0, 0, 0.5 } } };
    double y[9] = {0}, x[9], x0[9];
    nla_fw_set *sets[4] = {0};
    nla_fw_result res, res0;

    cr_assert_eq(nla_fw_set_create_knorm_ball(&sets[0], 5, 2, 1), NLA_OK);
    cr_assert_eq(nla_fw_set_create_hypersimplex(&sets[1], 5, 2, 1), NLA_OK);
    cr_assert_eq(nla_fw_set_create_birkhoff(&sets[2], 3), NLA_OK);
    cr_assert_eq(nla_fw_set_create_spectraplex(&sets[3], 3, 2, 1e-10, 50), NLA_OK);
    memset(&res0, 0x5a, sizeof res0);
    for (int s = 0; s < 4; s++) {
        int n = s < 2 ? 5 : 9;
        cr_assert_eq(nla_fw_set_dim(sets[s]), n);
        for (int t = 0; t < 4; t++) {
            nla_fw_options *opt = options(NLA_FW_AUTO, NLA_FW_ADAPTIVE, 0, 1e-7, 50);
            memcpy(x, starts[s][t < 3 ? t : 2], sizeof x);
            if (t == 3)
                x[1] = NAN;
            memcpy(x0, x, sizeof x);
            res = res0;
            if (t == 2) {
                cr_assert_neq(solve_dist(sets[s], n, y, x, opt, &res), NLA_EINVAL,
                              "set %d: %s", s, nla_context_error(ctx));
                continue;
            }
            EXPECT_EINVAL(solve_dist(sets[s], n, y, x, opt, &res), "nla_fw_solve", "x");
            cr_assert_eq(memcmp(x, x0, sizeof x), 0, "set %d start %d: x written", s, t);
            cr_assert_eq(memcmp(&res, &res0, sizeof res), 0);
        }
        nla_fw_set_destroy(sets[s]);
    }
}

Test(fw_sets, bad_creation_arguments)
{
    nla_fw_set *const sentinel = (nla_fw_set *)(uintptr_t)0x1234;
    nla_fw_set *s = sentinel;
    static const double bad_r[4] = { 0, -1, NAN, INFINITY };
    static const int64_t bad_n[4] = { 0, -1, (int64_t)1 << 32, 3037000500 };  /* n*n > 2^63 */
    const char *kn = "nla_fw_set_create_knorm_ball", *hy = "nla_fw_set_create_hypersimplex";
    const char *bk = "nla_fw_set_create_birkhoff", *sp = "nla_fw_set_create_spectraplex";

    EXPECT_EINVAL(nla_fw_set_create_knorm_ball(NULL, 4, 2, 1), kn, "set");
    EXPECT_EINVAL(nla_fw_set_create_hypersimplex(NULL, 4, 2, 1), hy, "set");
    EXPECT_EINVAL(nla_fw_set_create_birkhoff(NULL, 4), bk, "set");
    EXPECT_EINVAL(nla_fw_set_create_spectraplex(NULL, 4, 1, 1e-10, 10), sp, "set");
    for (int which = 0; which < 2; which++) {
        nla_status (*mk)(nla_fw_set **, int64_t, int64_t, double) =
            which ? nla_fw_set_create_hypersimplex : nla_fw_set_create_knorm_ball;
        const char *fn = which ? hy : kn;
        FAIL_SET(mk(&s, 0, 1, 1), fn, "n");
        FAIL_SET(mk(&s, -2, 1, 1), fn, "n");
        FAIL_SET(mk(&s, 4, 0, 1), fn, "k");
        FAIL_SET(mk(&s, 4, -1, 1), fn, "k");
        FAIL_SET(mk(&s, 4, 5, 1), fn, "k");
        for (int i = 0; i < 4; i++)
            FAIL_SET(mk(&s, 4, 2, bad_r[i]), fn, "r");
        cr_assert_eq(mk(&s, 4, 4, 1), NLA_OK);    /* k = n */
        nla_fw_set_destroy(s);
    }
    for (int i = 0; i < 4; i++) {
        FAIL_SET(nla_fw_set_create_birkhoff(&s, bad_n[i]), bk, "n");
        FAIL_SET(nla_fw_set_create_spectraplex(&s, bad_n[i], 1, 1e-10, 10), sp, "n");
        FAIL_SET(nla_fw_set_create_spectraplex(&s, 4, bad_r[i], 1e-10, 10), sp, "r");
        FAIL_SET(nla_fw_set_create_spectraplex(&s, 4, 1, bad_r[i] + (i == 1 ? 0 : 1), 10),
                 sp, "tol");                  /* 1, -1, NaN, Inf */
    }
    FAIL_SET(nla_fw_set_create_spectraplex(&s, 4, 1, 0, 10), sp, "tol");
    FAIL_SET(nla_fw_set_create_spectraplex(&s, 4, 1, 1e-10, 0), sp, "max_iter");
    FAIL_SET(nla_fw_set_create_spectraplex(&s, 4, 1, 1e-10, -3), sp, "max_iter");
    FAIL_SET(nla_fw_set_create_birkhoff(&s, INT64_MAX), bk, "n");
    cr_assert_eq(nla_fw_set_create_birkhoff(&s, 1), NLA_OK);
    cr_assert_eq(nla_fw_set_dim(s), 1);
    nla_fw_set_destroy(s);
}
