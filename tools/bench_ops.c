/*
 * bench_ops.c - the operations `nla bench` knows: one table entry each,
 * with its libnla call, its reference (any CBLAS, bench_libs.c), its sizes, the work one
 * call does and its default cases.  Everything else is in the harness.
 *
 * Work per call (what the throughput figures count):
 *   gemm  2*m*n*k flops                                   -> GFLOP/s
 *   gemv  m*n*elsize bytes of A                           -> GB/s
 *   gbmv  (band elements in range)*elsize bytes, i.e.
 *         sum over j of min(m-1, j+kl) - max(0, j-ku) + 1 -> GB/s
 *   spmv  n*(n+1)/2*elsize bytes of AP                    -> GB/s
 */
#include <string.h>
#include "bench.h"

#define D(p) ((const double *)(p))
#define S(p) ((const float *)(p))
#define DALPHA BENCH_ALPHA
#define DBETA BENCH_BETA
#define SALPHA ((float)BENCH_ALPHA)
#define SBETA ((float)BENCH_BETA)

size_t bench_elsize(bench_prec p)
{
    return p == BENCH_D ? sizeof(double) : sizeof(float);
}

const char *bench_prec_name(bench_prec p)
{
    return p == BENCH_D ? "d" : "s";
}

/* gemv, gbmv, spmv and gemm: every CBLAS found (bench_libs.c) */
static enum bench_lib_kind cblas_kind(const struct bench_case *c)
{
    (void)c;
    return BENCH_LIB_CBLAS;
}

static struct bench_case make_case(const struct bench_op *op, bench_prec p,
                                   int64_t m, int64_t n, int64_t k, nla_trans t)
{
    struct bench_case c;
    memset(&c, 0, sizeof c);
    c.op = op;
    c.prec = p;
    c.m = m;
    c.n = n;
    c.k = k;
    c.trans = t;
    return c;
}

/* Lengths of x and y for op(A) with A m-by-n. */
static void vec_sizes(const struct bench_case *c, struct bench_sizes *s)
{
    int notrans = c->trans == NLA_NO_TRANS;
    s->b = (size_t)(notrans ? c->n : c->m);
    s->y = (size_t)(notrans ? c->m : c->n);
}

/* ------------------------------------------------------------------ gemv */

static const struct bench_op op_gemv;

static void gemv_sizes(const struct bench_case *c, struct bench_sizes *s)
{
    s->a = (size_t)c->m * (size_t)c->n;
    vec_sizes(c, s);
}

static nla_status gemv_nla(nla_context *ctx, const struct bench_case *c,
                           const void *a, const void *x, void *y)
{
    if (c->prec == BENCH_D)
        return nla_dgemv(ctx, c->trans, c->m, c->n, DALPHA, D(a), c->m, D(x), 1,
                         DBETA, y, 1);
    return nla_sgemv(ctx, c->trans, c->m, c->n, SALPHA, S(a), c->m, S(x), 1,
                     SBETA, y, 1);
}


static double gemv_work(const struct bench_case *c)
{
    return (double)c->m * (double)c->n * (double)bench_elsize(c->prec);
}

static int64_t gemv_depth(const struct bench_case *c)
{
    return c->trans == NLA_NO_TRANS ? c->n : c->m;
}

static void gemv_shape(const struct bench_case *c, char *buf, size_t len)
{
    snprintf(buf, len, "%lldx%lld %c", (long long)c->m, (long long)c->n,
             (char)c->trans);
}

static int gemv_cases(bench_prec p, int quick, int64_t n, struct bench_case *out)
{
    static const int64_t full[] = { 1000, 4000, 8000 }, fast[] = { 2000 };
    const int64_t *sz = quick ? fast : full;
    int nsz = n > 0 ? 1 : quick ? 1 : 3, k = 0;
    for (int i = 0; i < nsz; i++) {
        int64_t ni = n > 0 ? n : sz[i];
        out[k++] = make_case(&op_gemv, p, ni, ni, 0, NLA_NO_TRANS);
        out[k++] = make_case(&op_gemv, p, ni, ni, 0, NLA_TRANS);
    }
    return k;
}

static const struct bench_op op_gemv = {
    "gemv", "GB/s", "m*n*elsize bytes of A", BENCH_DIM_TRANS,
    gemv_sizes, gemv_nla, bench_cblas_run, gemv_work, gemv_depth, gemv_shape,
    gemv_cases, cblas_kind, NULL, NULL
};

/* ------------------------------------------------------------------ gbmv */

static const struct bench_op op_gbmv;

static int64_t gbmv_ldab(const struct bench_case *c)
{
    return c->kl + c->ku + 1;
}

static void gbmv_sizes(const struct bench_case *c, struct bench_sizes *s)
{
    s->a = (size_t)gbmv_ldab(c) * (size_t)c->n;
    vec_sizes(c, s);
}

static nla_status gbmv_nla(nla_context *ctx, const struct bench_case *c,
                           const void *a, const void *x, void *y)
{
    if (c->prec == BENCH_D)
        return nla_dgbmv(ctx, c->trans, c->m, c->n, c->kl, c->ku, DALPHA, D(a),
                         gbmv_ldab(c), D(x), 1, DBETA, y, 1);
    return nla_sgbmv(ctx, c->trans, c->m, c->n, c->kl, c->ku, SALPHA, S(a),
                     gbmv_ldab(c), S(x), 1, SBETA, y, 1);
}


/* The stored elements that lie inside the m-by-n matrix. */
static double gbmv_work(const struct bench_case *c)
{
    double elems = 0;
    for (int64_t j = 0; j < c->n; j++) {
        int64_t lo = j - c->ku > 0 ? j - c->ku : 0;
        int64_t hi = j + c->kl < c->m - 1 ? j + c->kl : c->m - 1;
        if (hi >= lo)
            elems += (double)(hi - lo + 1);
    }
    return elems * (double)bench_elsize(c->prec);
}

static int64_t gbmv_depth(const struct bench_case *c)
{
    return c->kl + c->ku + 1;
}

static void gbmv_shape(const struct bench_case *c, char *buf, size_t len)
{
    snprintf(buf, len, "%lld kl=%lld ku=%lld %c", (long long)c->n,
             (long long)c->kl, (long long)c->ku, (char)c->trans);
}

static int gbmv_cases(bench_prec p, int quick, int64_t n, struct bench_case *out)
{
    static const int64_t full[] = { 0, 1, 2, 4, 8, 16, 32, 64, 128 }, fast[] = { 1, 16 };
    const int64_t *kb = quick ? fast : full;
    int nk = quick ? 2 : (int)(sizeof full / sizeof full[0]), k = 0;
    int64_t nn = n > 0 ? n : quick ? (int64_t)1 << 18 : (int64_t)1 << 20;
    for (int i = 0; i < nk; i++)
        for (int t = 0; t < 2; t++) {
            out[k] = make_case(&op_gbmv, p, nn, nn, 0, t ? NLA_TRANS : NLA_NO_TRANS);
            out[k].kl = out[k].ku = kb[i];
            k++;
        }
    return k;
}

static const struct bench_op op_gbmv = {
    "gbmv", "GB/s",
    "elsize * (band elements inside A: sum_j min(m-1,j+kl)-max(0,j-ku)+1)",
    BENCH_DIM_BAND | BENCH_DIM_TRANS,
    gbmv_sizes, gbmv_nla, bench_cblas_run, gbmv_work, gbmv_depth, gbmv_shape,
    gbmv_cases, cblas_kind, NULL, NULL
};

/* ------------------------------------------------------------------ spmv */

static const struct bench_op op_spmv;

static void spmv_sizes(const struct bench_case *c, struct bench_sizes *s)
{
    s->a = (size_t)c->n * (size_t)(c->n + 1) / 2;
    s->b = s->y = (size_t)c->n;
}

static nla_status spmv_nla(nla_context *ctx, const struct bench_case *c,
                           const void *a, const void *x, void *y)
{
    if (c->prec == BENCH_D)
        return nla_dspmv(ctx, c->uplo, c->n, DALPHA, D(a), D(x), 1, DBETA, y, 1);
    return nla_sspmv(ctx, c->uplo, c->n, SALPHA, S(a), S(x), 1, SBETA, y, 1);
}


static double spmv_work(const struct bench_case *c)
{
    return (double)c->n * (double)(c->n + 1) / 2 * (double)bench_elsize(c->prec);
}

static int64_t spmv_depth(const struct bench_case *c)
{
    return c->n;
}

static void spmv_shape(const struct bench_case *c, char *buf, size_t len)
{
    snprintf(buf, len, "%lld %c", (long long)c->n, (char)c->uplo);
}

static int spmv_cases(bench_prec p, int quick, int64_t n, struct bench_case *out)
{
    static const int64_t full[] = { 1000, 4000, 8000 }, fast[] = { 2000 };
    const int64_t *sz = quick ? fast : full;
    int nsz = n > 0 ? 1 : quick ? 1 : 3, k = 0;
    for (int i = 0; i < nsz; i++)
        for (int u = 0; u < 2; u++) {
            int64_t ni = n > 0 ? n : sz[i];
            out[k] = make_case(&op_spmv, p, ni, ni, 0, NLA_NO_TRANS);
            out[k++].uplo = u ? NLA_LOWER : NLA_UPPER;
        }
    return k;
}

static const struct bench_op op_spmv = {
    "spmv", "GB/s", "n*(n+1)/2*elsize bytes of AP", 0,
    spmv_sizes, spmv_nla, bench_cblas_run, spmv_work, spmv_depth, spmv_shape,
    spmv_cases, cblas_kind, NULL, NULL
};

/* ------------------------------------------------------------------ gemm */

static const struct bench_op op_gemm;

static void gemm_sizes(const struct bench_case *c, struct bench_sizes *s)
{
    s->a = (size_t)c->m * (size_t)c->k;
    s->b = (size_t)c->k * (size_t)c->n;
    s->y = (size_t)c->m * (size_t)c->n;
}

static nla_status gemm_nla(nla_context *ctx, const struct bench_case *c,
                           const void *a, const void *b, void *y)
{
    if (c->prec == BENCH_D)
        return nla_dgemm(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, c->m,
                         c->n, c->k, DALPHA, D(a), c->m, D(b), c->k, DBETA, y,
                         c->m);
    return nla_sgemm(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, c->m, c->n,
                     c->k, SALPHA, S(a), c->m, S(b), c->k, SBETA, y, c->m);
}


static double gemm_work(const struct bench_case *c)
{
    return 2.0 * (double)c->m * (double)c->n * (double)c->k;
}

static int64_t gemm_depth(const struct bench_case *c)
{
    return c->k;
}

static void gemm_shape(const struct bench_case *c, char *buf, size_t len)
{
    snprintf(buf, len, "%lldx%lldx%lld NN", (long long)c->m, (long long)c->n,
             (long long)c->k);
}

static int gemm_cases(bench_prec p, int quick, int64_t n, struct bench_case *out)
{
    /* square sizes, then skinny shapes { m, n, k } */
    static const int64_t full[] = { 64, 256, 1024, 2048, 4096 }, fast[] = { 64, 256, 1024 };
    static const int64_t skinny[][3] = { { 4096, 4096, 64 }, { 64, 4096, 4096 } };
    const int64_t *sz = quick ? fast : full;
    int nsz = quick ? 3 : 5, nsk = quick ? 1 : 2, k = 0;
    if (n > 0) {
        out[0] = make_case(&op_gemm, p, n, n, n, NLA_NO_TRANS);
        return 1;
    }
    for (int i = 0; i < nsz; i++)
        out[k++] = make_case(&op_gemm, p, sz[i], sz[i], sz[i], NLA_NO_TRANS);
    for (int i = 0; i < nsk; i++)
        out[k++] = make_case(&op_gemm, p, skinny[i][0], skinny[i][1], skinny[i][2],
                             NLA_NO_TRANS);
    return k;
}

static const struct bench_op op_gemm = {
    "gemm", "GFLOP/s", "2*m*n*k flops", BENCH_DIM_K,
    gemm_sizes, gemm_nla, bench_cblas_run, gemm_work, gemm_depth, gemm_shape,
    gemm_cases, cblas_kind, NULL, NULL
};

/* ------------------------------------------------------------------ table */

const struct bench_op *const bench_ops[] = {
    &op_gemv, &op_gbmv, &op_spmv, &op_gemm, &bench_op_fft, &bench_op_fftplan, NULL
};

const struct bench_op *bench_op_find(const char *name)
{
    for (int i = 0; bench_ops[i]; i++)
        if (strcmp(bench_ops[i]->name, name) == 0)
            return bench_ops[i];
    return NULL;
}
