/*
 * test_fw_sets.c - the polytopes among the Frank-Wolfe sets: the K-norm
 * ball, the hypersimplex and the Birkhoff polytope (the matrix sets, the
 * spectraplex and the nuclear ball, are in test_fw_matrix.c):
 *   - LMOs against brute force over every vertex (n! permutations for
 *     n <= 8), the exact vertex of nla.h's tie rules; the Birkhoff LMO at
 *     n = 60 and 150 against an exact optimality certificate (no negative
 *     cycle in the reassignment graph, Floyd-Warshall), which a swap of
 *     two rows of the permutation must fail;
 *   - solves of f = 1/2 |x - y|^2 against the projection of y (bisection,
 *     a simplex projection) or the FW gap recomputed here;
 *   - infeasible starts (the spectraplex's included), dimensions, bad
 *     creation arguments.
 */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
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

static double asum(const double *x, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += fabs(x[i]);
    return s;
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

/* The exact optimality certificate of a permutation p (row i -> column
   p[i]) of the n-by-n cost G: in the reassignment graph, row i taking row
   j's column costs w(i -> j) = G(i, p[j]) - G(i, p[i]).  Any permutation q
   differs from p by disjoint cycles of this graph whose weights sum to
   <G, Q> - <G, P>, so p is optimal iff no cycle is negative.  Floyd-
   Warshall (O(n^3), d(i, j): the least walk weight from i to j): 1 when
   a closed walk weighs less than -eps. */
static int negative_cycle(const double *g, int n, const int *p, double eps)
{
    double *d = dalloc((size_t)n * (size_t)n);
    int found = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            d[i + j * n] = g[i + p[j] * n] - g[i + p[i] * n];    /* 0 for i = j */
    for (int k = 0; k < n && !found; k++) {
        for (int j = 0; j < n; j++) {
            double dkj = d[k + j * n];
            for (int i = 0; i < n; i++)
                d[i + j * n] = fmin(d[i + j * n], d[i + k * n] + dkj);
        }
        for (int i = 0; i < n; i++)
            found |= d[i + i * n] < -eps;
    }
    free(d);
    return found;
}

/* <G, P> of the permutation p */
static double perm_cost(const double *g, int n, const int *p)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += g[i + p[i] * n];
    return s;
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
            /* the certificate of the large test agrees with brute force: it
               passes the optimum, and rows 0 and 1 swapped iff that costs
               nothing more */
            cr_assert(!negative_cycle(g, n, p, 1e-12 * scale), "n %d kind %d", n, kind);
            if (n >= 2) {
                int t = p[0];
                double more;
                p[0] = p[1];
                p[1] = t;
                more = perm_cost(g, n, p) - best;
                cr_assert_eq(negative_cycle(g, n, p, 1e-12 * scale), more > 1e-12 * scale,
                             "n %d kind %d: the swap costs %g more", n, kind, more);
            }
            nla_fw_set_destroy(set);
        }
}

/* n = 60 and 150, random and tied costs (multiples of 1/2, many optima):
   the LMO's permutation passes the certificate above, with eps
   1e-12 n max|G|; for random costs (a unique optimum) the same
   permutation with two rows swapped must fail it. */
Test(fw_sets, birkhoff_lmo_large_is_optimal)
{
    static const int ns[2] = { 60, 150 };
    uint64_t seed = 4;
    for (int c = 0; c < 2; c++)
        for (int kind = 0; kind < 2; kind++) {
            int n = ns[c], *p = malloc((size_t)n * sizeof(int)), a = 3, b = n - 5, t;
            double *g = dalloc((size_t)(n * n)), *v = dalloc((size_t)(n * n)), eps, cost;
            nla_fw_set *set = NULL;

            cr_assert(p);
            fill(g, n * n, &seed, kind);
            eps = 1e-12 * n * ref_max_abs(g, (size_t)(n * n));
            cr_assert_eq(nla_fw_set_create_birkhoff(&set, n), NLA_OK, "%s", nla_last_error());
            cr_assert_eq(nla_fw_set_lmo(ctx, set, g, v), NLA_OK, "%s", nla_last_error());
            expect_permutation(v, n, p, "birkhoff LMO, large n");
            cost = perm_cost(g, n, p);
            cr_assert_leq(fabs(ddot(g, v, n * n) - cost), eps);
            cr_assert(!negative_cycle(g, n, p, eps), "n %d kind %d: the permutation of cost "
                      "%.17g is not optimal (a negative reassignment cycle)", n, kind, cost);
            if (kind == 0) {    /* the mutation: the certificate can fail */
                t = p[a];
                p[a] = p[b];
                p[b] = t;
                cr_assert(negative_cycle(g, n, p, eps), "n %d: rows %d and %d swapped (cost "
                          "%.17g more) pass the certificate", n, a, b,
                          perm_cost(g, n, p) - cost);
            }
            nla_fw_set_destroy(set);
            free(g);
            free(v);
            free(p);
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
        cr_assert_eq(solve_dist(ctx, set, n, y, x,
                                options(NLA_FW_AUTO, NLA_FW_ADAPTIVE, 0, 1e-10, 20000), &res),
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
        qsort(g, (size_t)n, sizeof(double), cmp_desc);   /* -g descending: g ascending */
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
        cr_assert_eq(solve_dist(ctx, set, N, y, x,
                                options(NLA_FW_AUTO, NLA_FW_ADAPTIVE, 0, tol, 50000), &res),
                     NLA_OK, "k %d: %s", k, nla_context_error(ctx));
        for (int i = 0; i < N; i++) {
            g[i] = x[i] - y[i];
            amax = fmax(amax, fabs(g[i]));
            a[i] = fabs(x[i]);
        }
        gap = ddot(g, x, N) + fmax(r * amax, r / k * asum(g, N));
        cr_assert(gap <= 10 * tol && gap >= -1e-12, "k %d: gap %g (solver %g)", k, gap,
                  res.gap);
        qsort(a, N, sizeof(double), cmp_desc);
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
        cr_assert_eq(solve_dist(ctx, set, n * n, y, x,
                                options(n & 1 ? NLA_FW_PAIRWISE : NLA_FW_AUTO,
                                        NLA_FW_ADAPTIVE, 0, tol, 20000), &res),
                     NLA_OK, "n %d: %s", n, nla_context_error(ctx));
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
                cr_assert_neq(solve_dist(ctx, sets[s], n, y, x, opt, &res), NLA_EINVAL,
                              "set %d: %s", s, nla_context_error(ctx));
                continue;
            }
            EXPECT_EINVAL(solve_dist(ctx, sets[s], n, y, x, opt, &res), "nla_fw_solve", "x");
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
