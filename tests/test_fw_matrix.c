/*
 * test_fw_matrix.c - the matrix sets of Frank-Wolfe: the spectraplex and
 * the nuclear ball (the polytopes are in test_fw_sets.c):
 *   - the Lanczos LMOs against LAPACKE_dsyev and dgesvd, near-tied pairs
 *     included;
 *   - solves of f = 1/2 |X - Y|_F^2 against the projection of Y (dsyev or
 *     dgesvd and a simplex projection of the spectrum): vanilla and
 *     pairwise over the spectraplex, NLA_OK only on a true gap <= tol (the
 *     issue's 8x6 near-tied nuclear ball), a planted rank-two optimum;
 *   - the nuclear ball's blended pairwise (BPCG) local steps, the default
 *     there: test_fw.c's planted 8x6 problem (rank-one and rank-two
 *     optima) to f - f* <= tol with the optimum's rank as active set, a
 *     40x30 rank-three optimum from X = 0, a rank-four one from a rank-one
 *     start (the local steps turn its subspaces), exact line search, and
 *     fewer iterations than vanilla.
 */
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

TestSuite(fw_matrix, .init = setup, .fini = teardown);

/* ------------------------------------------------------------- helpers */

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

/* ---------------------------------------------- Lanczos LMOs vs LAPACKE */

Test(fw_matrix, spectraplex_lmo_against_dsyev)
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

Test(fw_matrix, nuclear_lmo_against_dgesvd)
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

/* The projection onto the spectraplex: Y = Q diag(mu) Q', X* = Q diag(p) Q'
   with p the projection of mu onto the simplex of radius r (dsyev; X* has
   rank 3).  Pairwise steps over the rank-one atoms reach tol 1e-9 in a few
   dozen iterations (vanilla is sublinear there); vanilla must still never
   stop with NLA_OK where the true gap <G, X> - r lambda_min(G) (dsyev)
   exceeds tol by more than the LMO's tolerance. */
Test(fw_matrix, spectraplex_solve_is_the_projection)
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
        st = solve_dist(ctx, set, NN, y, x, options(c == 0 ? NLA_FW_PAIRWISE : NLA_FW_VANILLA,
                                                    c == 2 ? NLA_FW_EXACT : NLA_FW_ADAPTIVE,
                                                    0, tol, 3000), &res);
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
Test(fw_matrix, nuclear_near_tie_never_ok_with_negative_gap)
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
        st = solve_dist(ctx, set, MN, y, x, options(c < 2 ? NLA_FW_PAIRWISE : NLA_FW_VANILLA,
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
Test(fw_matrix, nuclear_rank_two_planted)
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
    cr_assert_eq(solve_dist(ctx, set, MN, y, x,
                            options(NLA_FW_PAIRWISE, NLA_FW_EXACT, 0, 1e-10, 20000), &res),
                 NLA_OK, "%s after %lld iterations, gap %g", nla_context_error(ctx),
                 (long long)res.iterations, res.gap);
    cr_assert(res.f - fstar <= 1e-8 && res.f - fstar >= -1e-12, "f - f* = %g after %lld "
              "iterations", res.f - fstar, (long long)res.iterations);
    nla_fw_set_destroy(set);
}

/* ------------------------------------- the nuclear ball's local (BPCG) steps */

/* A planted projection onto the nuclear ball: Y = U diag(d) V' (m-by-c,
   m >= c, U and V orthogonal from dgeqrf/dorgqr), X* = U diag(p) V' with p
   the projection of d onto the L1 ball of radius tau, f* = 1/2 |d - p|^2,
   rank = the non-zeros of p.  With seeds 41 and 42 and test_fw.c's d, Y is
   test_fw.c's (fill is ref_fill's splitmix64, and the first columns of a
   QR factor depend on the first columns only). */
struct nuclear {
    int m, c, rank;
    double tau, fstar, y[40 * 30], xs[40 * 30];
};

static void plant_nuclear(struct nuclear *q, int m, int c, const double *d, double tau,
                          uint64_t seed)
{
    double u[40 * 40], v[30 * 30], p[30];
    cr_assert(m >= c && m <= 40 && c <= 30);
    q->m = m;
    q->c = c;
    q->tau = tau;
    q->rank = 0;
    q->fstar = 0;
    orthogonal(u, m, seed);
    orthogonal(v, c, seed + 1);
    compose(q->y, m, c, u, d, v);
    proj_simplex(d, c, tau, 1, p);
    compose(q->xs, m, c, u, p, v);
    for (int i = 0; i < c; i++) {
        q->fstar += 0.5 * (d[i] - p[i]) * (d[i] - p[i]);
        q->rank += p[i] > 0;
    }
}

/* test_fw.c's start: a random X0 with |X0|_F = 0.3 (|X0|_* <= sqrt(6) 0.3
   < tau), not aligned with Y's singular vectors */
static void start_x0(double *x, int mn)
{
    double nrm;
    ref_fill(x, (size_t)mn, 43);
    nrm = sqrt(ddot(x, x, mn));
    for (int i = 0; i < mn; i++)
        x[i] *= 0.3 / nrm;
}

/* the options nla_fw_options_create gives, with only tol set */
static nla_fw_options *defaults_with_tol(double tol)
{
    nla_fw_options *o = NULL;
    cr_assert_eq(nla_fw_options_create(&o), NLA_OK);
    cr_assert_eq(nla_fw_options_set_tol(o, tol), NLA_OK);
    return o;
}

/* Solves the planted problem from x with opt (NULL: the defaults) and
   checks, against the planted X*: the status NLA_OK, f - f* <= tol (the
   gap's guarantee; f recomputed here, and the solver's), |X - X*|_F <=
   sqrt(2 (f - f*)) (strong convexity, mu = 1; f - f* up to its rounding,
   slack), and, where check_rank, an active set of the optimum's rank, or
   one more atom: the set is the SVD of the small matrix after a local
   step, and a last FW step may add its atom.  Returns the iterations. */
static int64_t solve_planted(const struct nuclear *q, double *x, nla_fw_options *opt,
                             double tol, int check_rank, const char *what)
{
    int mn = q->m * q->c;
    double f = 0, err = 0, slack = 1e-14 * (1 + q->fstar), below = 1e-12 * (1 + q->fstar);
    nla_fw_set *set = NULL;
    nla_fw_result res;
    nla_status st;

    cr_assert_eq(nla_fw_set_create_nuclear_ball(&set, q->m, q->c, q->tau, 1e-10, 200),
                 NLA_OK);
    st = solve_dist(ctx, set, mn, q->y, x, opt, &res);
    cr_assert_eq(st, NLA_OK, "%s, tau %g: %s after %lld iterations (gap %g, f - f* = %g)",
                 what, q->tau, nla_context_error(ctx), (long long)res.iterations, res.gap,
                 res.f - q->fstar);
    for (int i = 0; i < mn; i++) {
        f += 0.5 * (x[i] - q->y[i]) * (x[i] - q->y[i]);
        err += (x[i] - q->xs[i]) * (x[i] - q->xs[i]);
    }
    cr_assert(f - q->fstar <= tol + slack && f - q->fstar >= -below, "%s, tau %g: f - f* = "
              "%g after %lld iterations (gap %g)", what, q->tau, f - q->fstar,
              (long long)res.iterations, res.gap);
    cr_assert_leq(fabs(res.f - f), slack, "%s: res.f %.17g, f(x) %.17g", what, res.f, f);
    cr_assert_leq(sqrt(err), sqrt(2 * (fmax(f - q->fstar, 0) + slack)) + 1e-7, "%s, tau %g: "
                  "|X - X*|_F = %g, f - f* = %g", what, q->tau, sqrt(err), f - q->fstar);
    if (check_rank)
        cr_assert(res.active_set_size >= q->rank && res.active_set_size <= q->rank + 1,
                  "%s, tau %g: %lld atoms, rank %d", what, q->tau,
                  (long long)res.active_set_size, q->rank);
    nla_fw_set_destroy(set);
    return res.iterations;
}

static const double planted_d[6] = { 3, 1.5, 1, 0.5, 0.25, 0.1 };

/* test_fw.c's planted 8x6 problem, tau 1 (rank-one optimum) and 2 (rank
   two: p = (1.75, 0.25)), options with only tol = 1e-10: NLA_FW_AUTO is
   BPCG there, with adaptive steps.  Measured: 1 iteration for tau 1 (1
   atom), 14 for tau 2 (2 atoms), f - f* = 9e-16 and 7e-15; vanilla is
   sublinear, see below. */
Test(fw_matrix, nuclear_bpcg_defaults_reach_tol_1e10)
{
    for (int k = 0; k < 2; k++) {
        struct nuclear q;
        double x[48];
        int64_t it;

        plant_nuclear(&q, 8, 6, planted_d, k + 1.0, 41);
        cr_assert_eq(q.rank, k + 1);
        start_x0(x, 48);
        it = solve_planted(&q, x, defaults_with_tol(1e-10), 1e-10, 1, "tol 1e-10");
        cr_assert_leq(it, 1000, "tau %d: %lld iterations", k + 1, (long long)it);
    }
}

/* opt = NULL: every default, tol 1e-7, reaches f - f* <= 1e-10 here (the
   target for test_fw.c's planted problems), with the optimum's rank as
   active set.  The local step works in U and W widened by G W and G'U,
   where projected gradient can turn the subspaces; the start's six atoms
   span all of the 8x6 space, so the first local step lands on X*.
   Measured: 1 and 11 iterations, f - f* = 9e-16 and 3e-14. */
Test(fw_matrix, nuclear_bpcg_null_options)
{
    for (int k = 0; k < 2; k++) {
        struct nuclear q;
        double x[48];

        plant_nuclear(&q, 8, 6, planted_d, k + 1.0, 41);
        start_x0(x, 48);
        solve_planted(&q, x, NULL, 1e-10, 1, "opt NULL");
    }
}

/* 40x30, d_i = 3 0.8^i, tau for a rank-four optimum (theta midway between
   d_4 and d_5), from a rank-one start 0.3 a b' with a, b random unit
   vectors: the local steps must turn the start's subspaces.  opt = NULL
   (tol 1e-7): f - f* <= 1e-8 within 20 iterations.  Measured: 16
   iterations, f - f* = 2.9e-10.
   Steps inside the atoms' own subspaces alone take 29 iterations to
   f - f* = 2.8e-8 (doc/tuning.md 8.2). */
Test(fw_matrix, nuclear_bpcg_turns_a_rank_one_start)
{
    struct nuclear q;
    double d[30], a[40], b[30], na, nb, x[40 * 30], theta;
    int64_t it;

    d[0] = 3;
    for (int i = 1; i < 30; i++)
        d[i] = 0.8 * d[i - 1];
    theta = 0.5 * (d[3] + d[4]);
    plant_nuclear(&q, 40, 30, d, d[0] + d[1] + d[2] + d[3] - 4 * theta, 93);
    cr_assert_eq(q.rank, 4);
    ref_fill(a, 40, 95);
    ref_fill(b, 30, 96);
    na = sqrt(ddot(a, a, 40));
    nb = sqrt(ddot(b, b, 30));
    for (int j = 0; j < 30; j++)
        for (int i = 0; i < 40; i++)
            x[i + j * 40] = 0.3 * a[i] * b[j] / (na * nb);
    it = solve_planted(&q, x, NULL, 1e-8, 1, "rank-one start");
    cr_assert_leq(it, 20, "%lld iterations", (long long)it);
}

/* A radius far below |Y| (r = 1e-9, sigma_1(Y) = 3) from test_fw.c's
   start scaled into the ball (|X0|_F = 0.2 r), tol 1e-20 (the gap is of
   order sigma_1(G) r): the projection onto the small ball cancels (s -
   theta with s >> r), and the result must still lie in the ball, |X|_* <=
   r (1 + 1e-12) from dgesvd, with NLA_OK, and |X - X*|_F <= 1e-6 r. */
Test(fw_matrix, nuclear_bpcg_tiny_radius)
{
    struct nuclear q;
    double x[48], s[6], nuc = 0, err = 0;

    plant_nuclear(&q, 8, 6, planted_d, 1e-9, 41);
    start_x0(x, 48);
    for (int i = 0; i < 48; i++)
        x[i] *= 0.2e-9 / 0.3;
    solve_planted(&q, x, defaults_with_tol(1e-20), 1e-20, 1, "r 1e-9");
    svals(x, 8, 6, s);
    for (int i = 0; i < 6; i++)
        nuc += s[i];
    cr_assert_leq(nuc, 1e-9 * (1 + 1e-12), "|X|_* = %.17g", nuc);
    for (int i = 0; i < 48; i++)
        err += (x[i] - q.xs[i]) * (x[i] - q.xs[i]);
    cr_assert_leq(sqrt(err), 1e-6 * 1e-9, "|X - X*|_F = %g", sqrt(err));
}

/* An optimum inside the ball (tau twice sum d: X* = Y, full rank) from
   X = 0 with opt = NULL: the local step may raise the rank by one while
   the iterate is inside, so the rank is not left to FW steps alone.
   f - f* <= 1e-10 within 60 iterations.  Measured: 29 iterations, 31
   atoms, f - f* = 1e-17. */
Test(fw_matrix, nuclear_bpcg_optimum_inside)
{
    struct nuclear q;
    double d[30], x[40 * 30] = {0}, sum = 0;
    int64_t it;

    d[0] = 3;
    for (int i = 1; i < 30; i++)
        d[i] = 0.8 * d[i - 1];
    for (int i = 0; i < 30; i++)
        sum += d[i];
    plant_nuclear(&q, 40, 30, d, 2 * sum, 97);
    cr_assert_eq(q.rank, 30);
    it = solve_planted(&q, x, NULL, 1e-10, 0, "inside");
    cr_assert_leq(it, 60, "%lld iterations", (long long)it);
}

/* BPCG with exact line search at tol 1e-12: |X - X*|_F <= 1e-5 |X*|_F and
   |X|_* <= tau (1 + 1e-12), from dgesvd.  Measured: 1 iteration each
   (the start's atoms span the space). */
Test(fw_matrix, nuclear_bpcg_exact_line_search)
{
    for (int k = 0; k < 2; k++) {
        struct nuclear q;
        double x[48], s[6], err = 0, nrm = 0, nuc = 0;

        plant_nuclear(&q, 8, 6, planted_d, k + 1.0, 41);
        start_x0(x, 48);
        solve_planted(&q, x, options(NLA_FW_BLENDED_PAIRWISE, NLA_FW_EXACT, 0, 1e-12, 5000),
                      1e-12, 1, "exact");
        for (int i = 0; i < 48; i++) {
            err += (x[i] - q.xs[i]) * (x[i] - q.xs[i]);
            nrm += q.xs[i] * q.xs[i];
        }
        cr_assert_leq(sqrt(err), 1e-5 * sqrt(nrm), "tau %g: |X - X*|_F = %g", q.tau,
                      sqrt(err));
        svals(x, 8, 6, s);
        for (int i = 0; i < 6; i++)
            nuc += s[i];
        cr_assert_leq(nuc, q.tau * (1 + 1e-12), "tau %g: |X|_* = %.17g", q.tau, nuc);
    }
}

/* 40x30, d_i = 3 0.8^i, tau = 2.136 (theta = 1.728, midway between d_2 and
   d_3: rank three), from X = 0 with the defaults and tol 1e-9.
   Measured: 19 iterations, 3 atoms, |f - f*| = 1e-15 (rounding). */
Test(fw_matrix, nuclear_bpcg_rank_three_40x30)
{
    struct nuclear q;
    double d[30], x[40 * 30] = {0}, theta;
    int64_t it;

    d[0] = 3;
    for (int i = 1; i < 30; i++)
        d[i] = 0.8 * d[i - 1];
    theta = 0.5 * (d[2] + d[3]);
    plant_nuclear(&q, 40, 30, d, d[0] + d[1] + d[2] - 3 * theta, 91);
    cr_assert_eq(q.rank, 3);
    it = solve_planted(&q, x, defaults_with_tol(1e-9), 1e-9, 1, "40x30");
    cr_assert_leq(it, 1000, "%lld iterations", (long long)it);
}

/* Vanilla stays sublinear on tau 2's rank-two face (not asserted); BPCG,
   the default, must take fewer iterations than vanilla to tol 1e-6, both
   with adaptive steps: the local steps are in play.  Vanilla may stop at
   its cap (then the cap is its count).  Measured: BPCG 9 iterations;
   vanilla stops at the cap of 500 (at 2000, f - f* is still 2.5e-4). */
Test(fw_matrix, nuclear_bpcg_fewer_iterations_than_vanilla)
{
    struct nuclear q;
    double x[48];
    int64_t it[2];
    enum { CAP = 500 };

    plant_nuclear(&q, 8, 6, planted_d, 2, 41);
    for (int v = 0; v < 2; v++) {
        nla_fw_set *set = NULL;
        nla_fw_result res;
        nla_status st;

        start_x0(x, 48);
        cr_assert_eq(nla_fw_set_create_nuclear_ball(&set, 8, 6, 2, 1e-10, 200), NLA_OK);
        st = solve_dist(ctx, set, 48, q.y, x, options(v ? NLA_FW_VANILLA : NLA_FW_AUTO,
                                                      NLA_FW_ADAPTIVE, 0, 1e-6, CAP), &res);
        cr_assert(st == NLA_OK || (v && st == NLA_EMAXITER), "variant %d: %s", v,
                  nla_context_error(ctx));
        if (st == NLA_OK)
            cr_assert_leq(res.f - q.fstar, 1e-6 + 1e-14, "variant %d: f - f* = %g", v,
                          res.f - q.fstar);
        cr_assert_eq(res.active_set_size > 0, !v, "variant %d: %lld atoms", v,
                     (long long)res.active_set_size);
        it[v] = res.iterations;
        nla_fw_set_destroy(set);
    }
    cr_assert_lt(it[0], it[1], "BPCG %lld iterations, vanilla %lld (cap %d)",
                 (long long)it[0], (long long)it[1], CAP);
}
