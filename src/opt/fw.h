/*
 * fw.h - the Frank-Wolfe solver's objects and internal entry points.
 * Not installed.  The front end (src/core/api_opt.c) validates every
 * argument and then calls these; nothing here validates.
 *
 *   fw_set.c        feasible sets: LMOs, structured vertices, feasibility
 *   fw_eig.c        the matrix sets (nuclear ball, spectraplex): Lanczos
 *   fw_assign.c     the Birkhoff polytope's assignment solver
 *   fw_objective.c  objectives: the linear operator of the built-in
 *                   quadratics (gemv/gbmv/spmv through the backend table)
 *   fw_solve.c      the loop: variants, lazy steps, step rules
 *   fw_active.c     the active set of the away, pairwise and blended variants
 *   fw_report.c     stops, the callback, verbose rows and the result
 *   fw_backend.c    the solve on the context's backend (the device loop)
 */
#ifndef NLA_OPT_FW_H
#define NLA_OPT_FW_H

#include <stdint.h>
#include <stdio.h>
#include "core/internal.h"

/* <x, y> with four partial sums: the solver's short dots (n and the rows of
   A, often 30-1000) are latency-bound as one chain of adds. */
static inline double fw_dot(const double *x, const double *y, int64_t n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < n; i++)
        s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

/* ------------------------------------------------------------------ sets */

typedef enum fw_set_kind {
    FW_SET_PROB_SIMPLEX, FW_SET_UNIT_SIMPLEX, FW_SET_L1, FW_SET_LINF, FW_SET_BOX,
    FW_SET_KSPARSE, FW_SET_KNORM, FW_SET_HYPERSIMPLEX, FW_SET_BIRKHOFF, FW_SET_NUCLEAR,
    FW_SET_SPECTRAPLEX, FW_SET_USER
} fw_set_kind;

struct nla_fw_set {
    fw_set_kind kind;
    int64_t n;             /* dimension of the variable (m*cols for matrices) */
    int64_t m, cols;       /* the matrix shape (m = 1, cols = n for vectors) */
    int64_t k;             /* ksparse, knorm, hypersimplex */
    double r;              /* radius (birkhoff: 1) */
    double *lo, *hi;       /* box (owned copies) */
    double tol;            /* nuclear, spectraplex: Lanczos tolerance */
    int64_t max_iter;      /* nuclear, spectraplex: Lanczos products */
    nla_fw_lmo_fn lmo;     /* user */
    void *user;
};

/* A vertex in structured form: v = sum val[i] e_idx[i] (sparse; nnz == 0
   is the zero vector), dense, or s * u v' (rank one, u m, w cols). */
typedef enum fw_vx_kind { FW_VX_SPARSE, FW_VX_DENSE, FW_VX_RANK1 } fw_vx_kind;

typedef struct fw_vertex {
    fw_vx_kind kind;
    int64_t nnz;
    int64_t *idx;
    double *val;
    double *dense;
    double s;
    double *u, *w;
} fw_vertex;

/* Scratch for LMO calls: capacity for any vertex of the set, the sort
   buffer (ksparse, hypersimplex), the assignment solver's (Birkhoff) and
   the matrix sets' Lanczos basis and warm start. */
typedef struct fw_lmo_work {
    fw_vertex v;
    void *sortbuf;
    double *basis;         /* Lanczos: (FW_LANCZOS_K + 1) vectors */
    double *tri;           /* Lanczos: T and its scratch (8 FW_LANCZOS_K) */
    double *opbuf;         /* Lanczos: the operator's scratch */
    double *warm;          /* the previous call's vector */
    int have_warm;
    int refine;            /* the next call: a fresh start, tol/1000, 4x steps */
    uint64_t starts;       /* Lanczos starts so far (each its own direction) */
    double scale;          /* Lanczos: G's scale, a power of two */
} fw_lmo_work;

/* The matrix sets (fw_eig.c): Lanczos restarts after FW_LANCZOS_K steps;
   its vector has fw_eig_side(set) entries. */
#define FW_LANCZOS_K 32
int64_t fw_eig_side(const nla_fw_set *set);
/* 2^-e with max |x_i| in [2^e, 2^(e+1)), or 1 for x = 0 (exact scalings) */
double fw_pow2_scale(const double *x, int64_t n);
nla_status fw_lmo_nuclear(nla_context *ctx, const nla_fw_set *set, const double *g,
                          fw_lmo_work *w);
nla_status fw_lmo_spectraplex(nla_context *ctx, const nla_fw_set *set, const double *g,
                              fw_lmo_work *w);
/* The SVD of the rows-by-cols a by one-sided Jacobi: a's columns become
   s_j p_j, q (cols-by-cols, or NULL) the right vectors (when rows < cols,
   cols - rows of the s_j are 0). */
void fw_jacobi_svd(double *a, int64_t rows, int64_t cols, double *q, double *s);
/* The eigenvalues z of the symmetric k-by-k a (destroyed), by cyclic
   Jacobi with the same rotations. */
void fw_sym_eig(double *a, int64_t k, double *z);
/* x (m-by-c), or x' when c > m, as a tall array with cols doubles spare
   at its end (NULL: ENOMEM; free() it). */
double *fw_tall_copy(const double *x, int64_t m, int64_t c);
/* |X|_* by one-sided Jacobi (-1: ENOMEM); the least eigenvalue of the
   symmetric part of the spectraplex's X, a Ritz value (NAN: ENOMEM) */
double fw_nuclear_norm(const double *x, int64_t m, int64_t c);
double fw_sym_min_eig(nla_context *ctx, const nla_fw_set *set, const double *x);
/* Whether the set's LMO is exact (all but nuclear and spectraplex). */
static inline int fw_set_exact(const nla_fw_set *set)
{
    return set->kind != FW_SET_NUCLEAR && set->kind != FW_SET_SPECTRAPLEX;
}

/* The Birkhoff LMO (fw_assign.c) and its scratch's size. */
size_t fw_assign_bytes(int64_t n);
void fw_lmo_birkhoff(const double *g, int64_t n, fw_vertex *v, void *buf);

nla_status fw_lmo_work_init(fw_lmo_work *w, const nla_fw_set *set);
void fw_lmo_work_free(fw_lmo_work *w);
/* w->v = LMO(g).  Returns NLA_OK or the kernel's failure. */
nla_status fw_set_lmo(nla_context *ctx, const nla_fw_set *set, const double *g,
                      fw_lmo_work *w);
/* 0 if x lies in the set (up to the documented tolerance); otherwise a
   description of the violation in why (1), or -1 when out of memory. */
int fw_set_infeasible(nla_context *ctx, const nla_fw_set *set, const double *x, char *why,
                      size_t len);
/* A short name of the set's kind ("Birkhoff polytope"). */
const char *fw_set_name(const nla_fw_set *set);

/* Structured vertex operations (n = the set's dimension). */
double fw_vx_dot(const fw_vertex *v, const double *g, int64_t n, int64_t m);
/* y += alpha * v */
void fw_vx_axpy(const fw_vertex *v, double alpha, double *y, int64_t n, int64_t m);
/* a heap copy, compact (NULL on ENOMEM), and its release */
fw_vertex *fw_vx_clone(const fw_vertex *v, int64_t n, int64_t m);
void fw_vx_free(fw_vertex *v);
int fw_vx_equal(const fw_vertex *a, const fw_vertex *b, int64_t n, int64_t m);

/* ------------------------------------------------------------ active set */

/* Atoms whose weight falls to this or below are dropped, and the rest
   renormalized. */
#define FW_PURGE 1e-12

/* The iterate as a convex combination sum lambda_i a_i of vertices. */
struct fw_atom { double lambda; fw_vertex *v; };
typedef struct fw_active {
    struct fw_atom *a;
    int64_t len, cap;
} fw_active;

/* A step's direction d in terms of vertices:
     FW    d = to - x
     AWAY  d = x - a_from
     PAIR  d = to - a_from
     FACE  d = U (M+ - M) W', the nuclear ball's local step (fw_face.c)
   to is the LMO's vertex (to_idx -1) or the active atom to_idx. */
typedef enum fw_dir { FW_DIR_FW, FW_DIR_AWAY, FW_DIR_PAIR, FW_DIR_FACE } fw_dir;
typedef struct fw_move {
    fw_dir dir;
    const fw_vertex *to;
    int64_t to_idx, from;
} fw_move;

void fw_active_free(fw_active *s);
void fw_active_clear(fw_active *s);
/* appends a copy of v with weight lambda (no search for an equal atom) */
nla_status fw_active_add(fw_active *s, const fw_vertex *v, double lambda, int64_t n,
                         int64_t m);
/* The start point as the first atom: one-hot when it has one non-zero. */
nla_status fw_active_init(fw_active *s, const double *x, int64_t n, int64_t m);
/* The atoms with the largest <g,a> (*ia, *ga) and the least <g,s> (*is,
   *gs), the first on ties; -1 when the set is empty. */
void fw_active_extremes(const fw_active *s, const double *g, int64_t n, int64_t m,
                        int64_t *ia, double *ga, int64_t *is, double *gs);
/* The weights after x += gamma d (drop: the step removes a_from); *removed
   counts the atoms that left. */
nla_status fw_active_step(fw_active *s, const fw_move *mv, double gamma, int drop,
                          int64_t n, int64_t m, int64_t *removed);
/* x = sum lambda_i a_i when every atom is sparse (exact zeros off their
   support): 1, or 0 with x untouched. */
int fw_active_rebuild(const fw_active *s, double *x, int64_t n);

/* The nuclear ball's local steps for BPCG (fw_face.c). */
typedef struct fw_face fw_face;
nla_status fw_face_create(const nla_fw_set *set, fw_face **f);
void fw_face_free(fw_face *f);
/* The start point x as rank-one atoms, by its SVD, when min(m, c) <= 256,
   or the zero atom for x = 0 (a dense atom would keep face steps out until
   it left). */
nla_status fw_face_start(fw_face *f, fw_active *as, const double *x);
/* Whether every atom is rank one (the face step needs it). */
int fw_face_ready(const fw_active *as);
/* The local step at x = sum of the atoms (L: the gradient's Lipschitz
   estimate; products on ctx's CPU gemm): d (m*c), <g, d> and the largest
   step; returns the small ball's gap, or NAN (out of memory: no step). */
double fw_face_plan(nla_context *ctx, fw_face *f, const fw_active *as, const double *g,
                    double L, double *d, double *dg, double *gmax);
/* After x += gamma d: the active set rebuilt from the face's new M, and
   x made the atoms' sum where that dropped a value under the purge (then
   *fresh = 1: f and g must come from x anew). */
nla_status fw_face_commit(fw_face *f, fw_active *as, double gamma, double *x, int *fresh);

/* ------------------------------------------------------------ objectives */

/* USER: f and its gradient; USER_QUAD: the same plus Hessian products;
   LSQ and QUAD: built in, on an operator of the library's own */
typedef enum fw_obj_kind { FW_OBJ_USER, FW_OBJ_USER_QUAD, FW_OBJ_LSQ, FW_OBJ_QUAD } fw_obj_kind;
typedef enum fw_op_kind { FW_OP_DENSE, FW_OP_BAND, FW_OP_PACKED } fw_op_kind;

/* The linear operator M of a built-in objective: A (lsq) or Q (quad),
   rows-by-cols. */
typedef struct fw_op {
    fw_op_kind kind;
    int64_t rows, cols, ld, kl, ku;
    nla_uplo uplo;
    const double *a;
} fw_op;

struct nla_fw_objective {
    fw_obj_kind kind;
    int64_t n;             /* dimension of x */
    fw_op op;
    const double *b;       /* lsq: rows */
    const double *c;       /* quad: n or NULL */
    nla_fw_fn fn;          /* user, user quadratic */
    nla_fw_hv_fn hv;       /* user quadratic */
    void *user;
};

/* A callback objective (no operator of the library's own). */
static inline int fw_obj_is_user(const nla_fw_objective *o)
{
    return o->kind == FW_OBJ_USER || o->kind == FW_OBJ_USER_QUAD;
}

/* y = M x (trans 0) or M' x (trans 1), through the context's backend. */
nla_status fw_op_apply(nla_context *ctx, const fw_op *op, int trans, const double *x,
                       double *y);
/* y = M v for a structured vertex (columns of M when v is sparse);
   scratch holds op->cols doubles. */
nla_status fw_op_apply_vertex(nla_context *ctx, const fw_op *op, const fw_vertex *v,
                              int64_t m, double *y, double *scratch);
/* Length of M x (the "image"): rows. */
static inline int64_t fw_obj_image_len(const nla_fw_objective *o)
{
    return fw_obj_is_user(o) ? 0 : o->op.rows;
}
/* Built-in: f and grad from the image w = M x (grad may be NULL; scratch
   holds image_len doubles). */
nla_status fw_obj_from_image(nla_context *ctx, const nla_fw_objective *o,
                             const double *x, const double *w, double *f,
                             double *grad, double *scratch);
/* Built-in: the curvature d'Hd along d, from x, d, Md. */
double fw_obj_curvature(const nla_fw_objective *o, const double *d, const double *md);
/* Least squares with a dense A over a set of sparse vertices, G no larger
   than A plus 256 MiB (n^2 <= m n + 2^25 doubles):
   the solver may carry the gradient along by G = A'A (fw_solve.c).
   fw_gram_build writes G (n-by-n) and c = A'b; fw_gram_axpy y += alpha G v
   for a sparse vertex v. */
int fw_gram_fits(const nla_fw_objective *o, const nla_fw_set *set);
nla_status fw_gram_build(nla_context *ctx, const nla_fw_objective *o, double *gram,
                         double *c);
void fw_gram_axpy(const double *gram, int64_t n, const fw_vertex *v, double alpha, double *y);
/* Any objective: f(x) and grad (may be NULL). */
nla_status fw_obj_eval(nla_context *ctx, const nla_fw_objective *o, const double *x,
                       double *f, double *grad);

/* ---------------------------------------------------------------- solver */

struct nla_fw_options {
    nla_fw_variant variant;
    nla_fw_step_rule rule;
    double L;
    double tol;
    int64_t max_iter;
    double time_limit;     /* 0: none */
    nla_fw_callback cb;
    void *cb_user;
    FILE *out;
    int64_t every;
    int lazy;
};

void fw_options_default(nla_fw_options *o);
/* The options a solve runs: NLA_FW_AUTO made a variant for set, on the
   device loop (dev) or the CPU's; lazy only with an active set. */
void fw_options_resolve(const nla_fw_options *in, const nla_fw_set *set, int dev,
                        nla_fw_options *out);
/* Clamps x into the set's bounds where it has them (simplices, Birkhoff:
   x >= 0; hypersimplex 0 <= x <= r; box lo <= x <= hi; L-inf ball
   |x_i| <= r): a change of rounding size. */
void fw_set_snap(const nla_fw_set *set, double *x);

/* Shared by the CPU loop and the backend loop's hook (fw_solve.c). */
double fw_now(void);       /* CLOCK_MONOTONIC, seconds */
void fw_verbose_header(FILE *out);
/* The checks before a step, in order (the gap finite, tol, max_iter, the
   time limit): the stop, or -1 to go on.  Tracks the best gap.  A gap
   below floor is never a success: -INFINITY for an exact LMO, minus the
   rounding of the gap for an inexact one. */
int fw_check_stop(const nla_fw_options *opt, double gap, int64_t t, double el, double *best,
                  double floor);
/* The callback and the verbose row of the step about to be taken: the
   stop (the callback's), or -1. */
int fw_report_step(const nla_fw_options *opt, const nla_fw_state *state);
/* What a finished solve reports (x is already written); at_start: f or
   the gradient was not finite at the start point. */
struct fw_end {
    nla_fw_stop stop;
    int64_t t, active, lmo_calls;
    double f, gap, best, el;
    int at_start;
};
/* The status, the last verbose row and *res (may be NULL). */
nla_status fw_finish(nla_context *ctx, const nla_fw_options *opt, const struct fw_end *e,
                     nla_fw_result *res);
/* Arguments already checked; x is feasible.  Writes x and *res. */
nla_status fw_solve(nla_context *ctx, const nla_fw_objective *obj, const nla_fw_set *set,
                    const nla_fw_options *opt, double *x, nla_fw_result *res);

/* The solve as the context's backend loop (backend.h, fw_solve) runs it:
   0 and p filled, or 1 and the reason it cannot (for NLA_ENOTSUP). */
int fw_dev_problem(const nla_fw_objective *obj, const nla_fw_set *set,
                   const nla_fw_options *opt, nla_fw_dev_problem *p, char *why, size_t len);
/* Arguments checked, x feasible, ctx->ops->fw_solve exists: the solve on
   ctx's backend, with the CPU loop's stops, reports and results. */
nla_status fw_solve_backend(nla_context *ctx, const nla_fw_dev_problem *p,
                            const nla_fw_options *opt, double *x, nla_fw_result *res);

#endif
