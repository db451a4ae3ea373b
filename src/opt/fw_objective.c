/*
 * fw_objective.c - objectives of the Frank-Wolfe solver.
 *
 * Both built-in objectives are quadratics defined by one linear operator M
 * (A for least squares, Q for the quadratic), dense, band or packed
 * symmetric.  The solver keeps the image w = M x up to date, so that f and
 * the gradient come from w:
 *   lsq:  f = 1/2 |w - b|^2,      grad = M'(w - b)   (one gemv/gbmv/spmv)
 *   quad: f = 1/2 x'w + c'x,      grad = w + c       (no product at all)
 * and M v for a one-hot or sparse vertex is a few columns of M.  All
 * products go through the context's backend table (the library's own
 * kernels), after the front end validated the shapes once at creation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "opt/fw.h"

nla_status fw_op_apply(nla_context *ctx, const fw_op *op, int trans, const double *x,
                       double *y)
{
    nla_trans t = trans ? NLA_TRANS : NLA_NO_TRANS;
    nla_exec ex;
    /* host data, level 2: the CPU (an AUTO context holding CUDA too keeps
       it there) */
    const struct nla_backend_ops *ops = nla_route(ctx, &ex, NLA_ROUTE_LEVEL2, 0, 0, NULL, 0);

    switch (op->kind) {
    case FW_OP_DENSE:
        return ops->dgemv(&ex, t, op->rows, op->cols, 1.0, op->a, op->ld, x, 1, 0.0, y, 1);
    case FW_OP_BAND:
        return ops->dgbmv(&ex, t, op->rows, op->cols, op->kl, op->ku, 1.0, op->a, op->ld,
                          x, 1, 0.0, y, 1);
    case FW_OP_PACKED:
        return ops->dspmv(&ex, op->uplo, op->rows, 1.0, op->a, x, 1, 0.0, y, 1);
    }
    return NLA_EINVAL;
}

/* y += alpha * M[:, j] */
static void op_axpy_column(const fw_op *op, int64_t j, double alpha, double *y)
{
    const double *a = op->a;
    int64_t n = op->rows;

    switch (op->kind) {
    case FW_OP_DENSE:
        a += j * op->ld;
        for (int64_t i = 0; i < n; i++)
            y[i] += alpha * a[i];
        return;
    case FW_OP_BAND: {
        int64_t lo = j - op->ku > 0 ? j - op->ku : 0;
        int64_t hi = j + op->kl < n - 1 ? j + op->kl : n - 1;
        a += op->ku - j + j * op->ld;
        for (int64_t i = lo; i <= hi; i++)
            y[i] += alpha * a[i];
        return;
    }
    case FW_OP_PACKED:
        /* the stored triangle holds column j up to (upper) or from (lower)
           the diagonal; the rest of the column is row j of that triangle */
        if (op->uplo == NLA_UPPER) {
            const double *col = a + j * (j + 1) / 2;
            for (int64_t i = 0; i <= j; i++)
                y[i] += alpha * col[i];
            for (int64_t i = j + 1; i < n; i++)
                y[i] += alpha * a[j + i * (i + 1) / 2];
        } else {
            const double *col = a + j * (2 * n - j - 1) / 2;
            for (int64_t i = 0; i < j; i++)
                y[i] += alpha * a[j + i * (2 * n - i - 1) / 2];
            for (int64_t i = j; i < n; i++)
                y[i] += alpha * col[i];
        }
        return;
    }
}

nla_status fw_op_apply_vertex(nla_context *ctx, const fw_op *op, const fw_vertex *v,
                              int64_t m, double *y, double *scratch)
{
    /* a column costs about rows reads, a full product rows*cols (less for
       band storage, where columns are cheap as well) */
    if (v->kind == FW_VX_SPARSE && (op->kind == FW_OP_BAND || 4 * v->nnz <= op->cols)) {
        memset(y, 0, (size_t)op->rows * sizeof(double));
        for (int64_t i = 0; i < v->nnz; i++)
            op_axpy_column(op, v->idx[i], v->val[i], y);
        return NLA_OK;
    }
    if (v->kind == FW_VX_DENSE)
        return fw_op_apply(ctx, op, 0, v->dense, y);
    memset(scratch, 0, (size_t)op->cols * sizeof(double));
    fw_vx_axpy(v, 1.0, scratch, op->cols, m);
    return fw_op_apply(ctx, op, 0, scratch, y);
}

nla_status fw_obj_from_image(nla_context *ctx, const nla_fw_objective *o,
                             const double *x, const double *w, double *f,
                             double *grad, double *scratch)
{
    int64_t rows = o->op.rows, n = o->n;

    if (o->kind == FW_OBJ_LSQ) {
        for (int64_t i = 0; i < rows; i++)
            scratch[i] = w[i] - o->b[i];
        *f = 0.5 * fw_dot(scratch, scratch, rows);
        return grad ? fw_op_apply(ctx, &o->op, 1, scratch, grad) : NLA_OK;
    }
    *f = 0.5 * fw_dot(x, w, n) + (o->c ? fw_dot(o->c, x, n) : 0.0);
    if (grad)
        for (int64_t i = 0; i < n; i++)
            grad[i] = w[i] + (o->c ? o->c[i] : 0.0);
    return NLA_OK;
}

double fw_obj_curvature(const nla_fw_objective *o, const double *d, const double *md)
{
    if (o->kind == FW_OBJ_LSQ)
        return fw_dot(md, md, o->op.rows);
    return fw_dot(d, md, o->n);
}

nla_status fw_obj_eval(nla_context *ctx, const nla_fw_objective *o, const double *x,
                       double *f, double *grad)
{
    double *w, *scratch;
    nla_status s;

    if (fw_obj_is_user(o)) {
        *f = o->fn(o->n, x, grad, o->user);
        return NLA_OK;
    }
    w = malloc((size_t)o->op.rows * sizeof(double));
    scratch = malloc((size_t)o->op.rows * sizeof(double));
    s = !w || !scratch ? NLA_ENOMEM : fw_op_apply(ctx, &o->op, 0, x, w);
    if (s == NLA_OK)
        s = fw_obj_from_image(ctx, o, x, w, f, grad, scratch);
    free(w);
    free(scratch);
    return s;
}

int fw_gram_fits(const nla_fw_objective *o, const nla_fw_set *set)
{
    if (o->kind != FW_OBJ_LSQ || o->op.kind != FW_OP_DENSE)
        return 0;
    switch (set->kind) {
    case FW_SET_PROB_SIMPLEX:
    case FW_SET_UNIT_SIMPLEX:
    case FW_SET_L1:
    case FW_SET_KSPARSE:
    case FW_SET_HYPERSIMPLEX:
        /* G's n^2 doubles: at most A's m n and 256 MiB more */
        return (double)o->op.cols * (double)o->op.cols <=
               (double)o->op.rows * (double)o->op.cols + (double)(1 << 25);
    default:
        return 0;
    }
}

/* G = A'A is built by panels of GRAM_NB columns, each with the rows of G
   above it, so that gemm does about half of A'A's work (the upper
   triangle, plus n GRAM_NB / 2), and the lower triangle is then mirrored:
   G is exactly symmetric. */
#define GRAM_NB 512

nla_status fw_gram_build(nla_context *ctx, const nla_fw_objective *o, double *gram,
                         double *c)
{
    const fw_op *op = &o->op;
    int64_t m = op->rows, n = op->cols;
    nla_exec ex;
    const struct nla_backend_ops *ops = nla_route(ctx, &ex, NLA_ROUTE_LEVEL2, 0, 0, NULL, 0);
    nla_status s = NLA_OK;

    for (int64_t j0 = 0; j0 < n && s == NLA_OK; j0 += GRAM_NB) {
        int64_t jb = n - j0 < GRAM_NB ? n - j0 : GRAM_NB;
        s = ops->dgemm(&ex, NLA_TRANS, NLA_NO_TRANS, j0 + jb, jb, m, 1.0, op->a, op->ld, 0,
                       op->a + j0 * op->ld, op->ld, 0, 0.0, gram + j0 * n, n, 0, 1);
    }
    if (s != NLA_OK)
        return s;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = j + 1; i < n; i++)
            gram[i + j * n] = gram[j + i * n];
    return ops->dgemv(&ex, NLA_TRANS, m, n, 1.0, op->a, op->ld, o->b, 1, 0.0, c, 1);
}

void fw_gram_axpy(const double *gram, int64_t n, const fw_vertex *v, double alpha, double *y)
{
    for (int64_t k = 0; k < v->nnz; k++) {
        const double *col = gram + v->idx[k] * n;
        double s = alpha * v->val[k];
        for (int64_t i = 0; i < n; i++)
            y[i] += s * col[i];
    }
}
