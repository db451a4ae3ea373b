/*
 * fw_check.h - what the Frank-Wolfe test suites (test_fw.c, test_fw_quad.c,
 * test_fw_bpcg.c, test_fw_defaults.c, test_fw_sets.c, test_fw_matrix.c)
 * share; fw_check.c holds the functions.
 */
#ifndef NLA_TEST_FW_CHECK_H
#define NLA_TEST_FW_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <criterion/criterion.h>
#include "nla.h"

/* options with the variant, step rule (and its L), tol and max_iter */
static inline nla_fw_options *options(nla_fw_variant v, nla_fw_step_rule rule, double L,
                                      double tol, int64_t max_iter)
{
    nla_fw_options *o = NULL;
    cr_assert_eq(nla_fw_options_create(&o), NLA_OK);
    cr_assert_eq(nla_fw_options_set_variant(o, v), NLA_OK);
    cr_assert_eq(nla_fw_options_set_step(o, rule, L), NLA_OK, "%s", nla_last_error());
    cr_assert_eq(nla_fw_options_set_tol(o, tol), NLA_OK);
    cr_assert_eq(nla_fw_options_set_max_iter(o, max_iter), NLA_OK);
    return o;
}

/* zeroed doubles (asserts on ENOMEM) */
double *dalloc(size_t n);
double ddot(const double *x, const double *y, int64_t n);
/* the largest singular value squared of the m-by-n a */
double sigma_max_sq(const double *a, int64_t m, int64_t n);
/* r = the least-norm solution of A' r = g (A m-by-n, m >= n, full rank) */
void solve_at(const double *a, int64_t m, int64_t n, const double *g, double *r);

/* Least squares over the probability simplex with a planted optimum xs on
   nsupp entries (never entry 0): f* and L = sigma_max(A)^2. */
struct planted {
    int64_t m, n;
    double *a, *b, *xs, fstar, L;
};
struct planted plant_simplex(int64_t m, int64_t n, uint64_t seed, int nsupp);
void planted_free(struct planted *p);
/* Its least-squares objective and the probability simplex of radius 1. */
void planted_objects(const struct planted *p, nla_fw_objective **obj, nla_fw_set **set);

/* The FW gap at x of 1/2 |A x - b|^2 over the simplex of radius 1, from
   CBLAS: <g, x> - min_i g_i. */
double lsq_simplex_gap(const double *a, const double *b, int64_t m, int64_t n,
                       const double *x);
/* Asserts x >= 0 everywhere with nnz non-zeros (one per one-hot atom). */
void expect_in_simplex(const double *x, int64_t n, int64_t nnz, const char *what);

/* splitmix64 on the state *s: uniform in [-1, 1) */
double urand(uint64_t *s);
/* x = n values of urand, or (ties) values in {-1, -1/2, 0, 1/2, 1} */
void fill(double *x, int64_t n, uint64_t *s, int ties);
/* qsort order: doubles descending */
int cmp_desc(const void *a, const void *b);
/* Euclidean projection of s (k <= 64) onto {p >= 0, sum p = r} (le: sum p
   <= r), by sorting */
void proj_simplex(const double *s, int k, double r, int le, double *p);
/* f = 1/2 |x - y|^2 (least squares, A = I in band storage) over set from x
   with opt, which is destroyed here; returns nla_fw_solve's status */
nla_status solve_dist(nla_context *ctx, const nla_fw_set *set, int64_t n, const double *y,
                      double *x, nla_fw_options *opt, nla_fw_result *res);
/* test_fw.c's least squares with its optimum inside the L1 ball: A (30x10)
   and b from ref_fill (seeds 21, 22), xl (30) dgels's solution in its
   first 10; returns |xl|_1. */
enum { L1_IN_M = 30, L1_IN_N = 10 };
/* The quadratic 1/2 x'Qx + c'x (c may be NULL) with the symmetric Q of
   bandwidth k in one storage: 0 dense q (ld n), 1 packed upper qp, 2 band
   qb (2k + 1 rows); asserts that it is created. */
nla_fw_objective *quad_in_storage(int storage, int64_t n, int64_t k, const double *q,
                                  const double *qp, const double *qb, const double *c);
/* Q = tridiag(-1, 4, -1), n-by-n, as q (dense), qp (packed upper) and qb
   (band, 3 rows). */
void tridiag_storages(int64_t n, double *q, double *qp, double *qb);
double l1_inside_problem(double *a, double *b, double *xl);

#endif
