/*
 * fw_check.c - what the Frank-Wolfe suites share (fw_check.h): small
 * helpers, least squares over the simplex with a planted optimum, and the
 * random data, simplex projection and distance objective of the set suites
 * (test_fw_sets.c, test_fw_matrix.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include <criterion/criterion.h>
#include "refs.h"
#include "fw_check.h"

double *dalloc(size_t n)
{
    double *p = calloc(n ? n : 1, sizeof(double));
    cr_assert(p);
    return p;
}

double ddot(const double *x, const double *y, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* largest singular value squared of the m-by-n a */
double sigma_max_sq(const double *a, int64_t m, int64_t n)
{
    double *c = dalloc((size_t)(m * n)), *s = dalloc((size_t)(m < n ? m : n));
    double r;
    memcpy(c, a, (size_t)(m * n) * sizeof(double));
    cr_assert_eq(LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'N', (int)m, (int)n, c, (int)m, s, NULL,
                                1, NULL, 1), 0);
    r = s[0] * s[0];
    free(c);
    free(s);
    return r;
}

/* r = the least-norm solution of A' r = g (A m-by-n, m >= n, full rank) */
void solve_at(const double *a, int64_t m, int64_t n, const double *g, double *r)
{
    double *c = dalloc((size_t)(m * n));
    memcpy(c, a, (size_t)(m * n) * sizeof(double));
    memset(r, 0, (size_t)m * sizeof(double));
    memcpy(r, g, (size_t)n * sizeof(double));
    cr_assert_eq(LAPACKE_dgels(LAPACK_COL_MAJOR, 'T', (int)m, (int)n, 1, c, (int)m, r,
                               (int)m), 0);
    free(c);
}


/* x* on a support, g* = lambda 1 + mu (mu > 0 off the support): the KKT
   conditions of the simplex; b = A x* - r with A' r = g*. */
struct planted plant_simplex(int64_t m, int64_t n, uint64_t seed, int nsupp)
{
    struct planted p = { m, n, dalloc((size_t)(m * n)), dalloc((size_t)m),
                         dalloc((size_t)n), 0, 0 };
    double *g = dalloc((size_t)n), *r = dalloc((size_t)m), *mu = dalloc((size_t)n);
    int64_t supp[64];
    double w[64], wsum = 0;

    cr_assert_leq(nsupp, 64);
    for (int k = 0; k < nsupp; k++) {
        supp[k] = 2 + k * (n - 2) / nsupp;     /* spread, never index 0 */
        wsum += (w[k] = nsupp + 1 - k);
    }
    for (int k = 0; k < nsupp; k++)
        w[k] /= wsum;

    ref_fill(p.a, (size_t)(m * n), seed);
    ref_fill(mu, (size_t)n, seed + 1);
    for (int64_t i = 0; i < n; i++)
        g[i] = 0.7 + 0.5 + 0.5 * mu[i];       /* mu in [0, 1) + 0.5 */
    for (int k = 0; k < nsupp; k++) {
        p.xs[supp[k]] = w[k];
        g[supp[k]] = 0.7;
    }
    solve_at(p.a, m, n, g, r);
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)m, (int)n, 1.0, p.a, (int)m, p.xs, 1,
                0.0, p.b, 1);
    for (int64_t i = 0; i < m; i++)
        p.b[i] -= r[i];
    p.fstar = 0.5 * ddot(r, r, m);
    p.L = sigma_max_sq(p.a, m, n);
    free(g);
    free(r);
    free(mu);
    return p;
}

void planted_free(struct planted *p)
{
    free(p->a);
    free(p->b);
    free(p->xs);
}

void planted_objects(const struct planted *p, nla_fw_objective **obj, nla_fw_set **set)
{
    cr_assert_eq(nla_fw_objective_create_lsq(obj, p->m, p->n, p->a, p->m, p->b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(set, p->n, 1.0), NLA_OK);
}

/* The FW gap at x of f = 1/2 |A x - b|^2 over the simplex of radius 1,
   from CBLAS: <g, x> - min_i g_i. */
double lsq_simplex_gap(const double *a, const double *b, int64_t m, int64_t n,
                       const double *x)
{
    double *r = dalloc((size_t)m), *g = dalloc((size_t)n), gmin;
    memcpy(r, b, (size_t)m * sizeof(double));
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)m, (int)n, 1.0, a, (int)m, x, 1, -1.0, r,
                1);
    cblas_dgemv(CblasColMajor, CblasTrans, (int)m, (int)n, 1.0, a, (int)m, r, 1, 0.0, g, 1);
    gmin = g[0];
    for (int64_t i = 1; i < n; i++)
        gmin = fmin(gmin, g[i]);
    gmin = ddot(g, x, n) - gmin;
    free(r);
    free(g);
    return gmin;
}

/* x >= 0 everywhere, and its non-zeros number nnz (one per one-hot atom) */
void expect_in_simplex(const double *x, int64_t n, int64_t nnz, const char *what)
{
    int64_t nz = 0;
    for (int64_t i = 0; i < n; i++) {
        cr_assert_geq(x[i], 0.0, "%s: x[%lld] = %g", what, (long long)i, x[i]);
        nz += x[i] != 0;
    }
    cr_assert_eq(nz, nnz, "%s: %lld non-zeros, %lld active atoms", what, (long long)nz,
                 (long long)nnz);
}

/* splitmix64: uniform in [-1, 1) */
double urand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) / (double)(1ull << 52) - 1;
}

/* uniform, or (ties) in {-1, -1/2, 0, 1/2, 1} */
void fill(double *x, int64_t n, uint64_t *s, int ties)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = ties ? 0.5 * round(2 * urand(s)) : urand(s);
}

int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* Euclidean projection of s onto {p >= 0, sum p = r} (le: sum p <= r) */
void proj_simplex(const double *s, int k, double r, int le, double *p)
{
    double u[64], cs = 0, theta = 0, sum = 0;
    cr_assert(k >= 1 && k <= 64);
    for (int i = 0; i < k; i++)
        sum += fmax(s[i], 0);
    if (!(le && sum <= r)) {
        memcpy(u, s, (size_t)k * sizeof(double));
        qsort(u, (size_t)k, sizeof(double), cmp_desc);
        for (int i = 0; i < k; i++)
            if (u[i] > ((cs += u[i]) - r) / (i + 1))
                theta = (cs - r) / (i + 1);
    }
    for (int i = 0; i < k; i++)
        p[i] = fmax(s[i] - theta, 0);
}

/* f = 1/2 |x - y|^2 (least squares, A = I in band storage) over set from
   x with the given options (destroyed here); returns the status */
nla_status solve_dist(nla_context *ctx, const nla_fw_set *set, int64_t n, const double *y,
                      double *x, nla_fw_options *opt, nla_fw_result *res)
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

double l1_inside_problem(double *a, double *b, double *xl)
{
    enum { M = L1_IN_M, N = L1_IN_N };
    double c[M * N], r = 0;
    ref_fill(a, M * N, 21);
    ref_fill(b, M, 22);
    memcpy(c, a, sizeof c);
    memcpy(xl, b, M * sizeof(double));
    cr_assert_eq(LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', M, N, 1, c, M, xl, M), 0);
    for (int i = 0; i < N; i++)
        r += fabs(xl[i]);
    return r;
}

nla_fw_objective *quad_in_storage(int storage, int64_t n, int64_t k, const double *q,
                                  const double *qp, const double *qb, const double *c)
{
    nla_fw_objective *obj = NULL;
    cr_assert_eq(storage == 0   ? nla_fw_objective_create_quad(&obj, n, q, n, c)
                 : storage == 1 ? nla_fw_objective_create_quad_packed(&obj, NLA_UPPER, n, qp,
                                                                      c)
                                : nla_fw_objective_create_quad_band(&obj, n, k, qb, 2 * k + 1,
                                                                    c),
                 NLA_OK, "storage %d", storage);
    return obj;
}

void tridiag_storages(int64_t n, double *q, double *qp, double *qb)
{
    memset(q, 0, (size_t)(n * n) * sizeof(double));
    for (int64_t i = 0; i < n; i++) {
        q[i + i * n] = 4;
        if (i + 1 < n)
            q[i + (i + 1) * n] = q[i + 1 + i * n] = -1;
    }
    cr_assert_eq(nla_dpacked_pack(NLA_UPPER, n, q, n, qp), NLA_OK);
    cr_assert_eq(nla_dband_pack(n, n, 1, 1, q, n, qb, 3), NLA_OK);
}
