/*
 * fw.cu - the Frank-Wolfe loop on the device (double), for the built-in
 * quadratics over the sets whose LMO is one-hot (simplices, L1 ball) or
 * elementwise (L-inf ball, box), vanilla steps.
 *
 * It is src/opt/fw_solve.c's loop with every vector on the device: the
 * image w = M x, the gradient, the vertex and its image, x itself.  An
 * iteration is a few kernels and level-2 products, and one small record
 * (f, the gap, the step) crosses to the host, where the caller's hook
 * decides whether to take the step.  The step is computed before the
 * decision, into the second x buffer, so that stopping keeps x_t (and a
 * non-finite f or gradient at x_{t+1} keeps x_t as well).
 *
 * Reductions (dot products, argmin, finiteness) are deterministic: a
 * length gives a fixed number of blocks, each thread sums a fixed set of
 * indices in order, blocks combine in shared memory in a fixed tree, and
 * one block adds the blocks' partial sums in order.  Ties in the one-hot
 * LMOs go to the lowest index, as on the CPU.
 *
 * Per iteration, t:
 *   lmo_part, lmo_final   v_t, <g,x>, <g,v>, the gap, finiteness, f_t
 *   vertex_col or M v     the image of the vertex; md = M v - w
 *   dir_part, step        |d|^2, the curvature, gamma by the rule -> record
 *   (hook)
 *   update                x_{t+1} = x_t + gamma d, w += gamma md
 *   (M x_{t+1} -> w every NLA_FW_REFRESH steps)
 *   eval, (M' r)          f and the gradient at x_{t+1}
 */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "launch.cuh"

#define FW_THREADS 256
#define FW_MAXB 128      /* blocks of one reduction */
#define FW_SLOTS 8       /* partial sums per block */

namespace {

int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* blocks of a reduction over len elements */
int nblocks(int64_t len)
{
    int64_t b = cdiv(len, FW_THREADS);
    return (int)(b < 1 ? 1 : b > FW_MAXB ? FW_MAXB : b);
}

/* The vertex, in Scal::idx: an index i (v = val e_i), or one of these */
#define FW_VX_ZERO (-1)    /* v = 0 (unit simplex) */
#define FW_VX_DENSE (-2)   /* v is stored whole (L-inf ball, box) */

/* sets whose vertex is stored whole */
__host__ __device__ __forceinline__ bool dense_vertex(nla_fw_dev_set set)
{
    return set == NLA_FW_DEV_LINF || set == NLA_FW_DEV_BOX;
}

/* v_i, whatever the vertex's kind */
__device__ __forceinline__ double vertex_at(int64_t i, int64_t idx, double val,
                                            const double *__restrict__ v)
{
    return idx == FW_VX_DENSE ? v[i] : i == idx ? val : 0.0;
}

/* The device's scalars. */
struct Scal {
    double f, gx, gv, gap, val, dd, curv, gamma, Lest;
    int64_t idx;       /* the vertex: an index, FW_VX_ZERO or FW_VX_DENSE */
    int finite, adapt_fail;
};

/* What goes to the host each iteration. */
struct Rec {
    double f, gap, gamma;
    int finite, adapt_fail;
};

/* --------------------------------------------------------- reductions */

/* Sum of v over the block in a fixed tree; thread 0 gets it. */
__device__ double block_sum(double v, double *sh)
{
    const int tid = threadIdx.x;
    sh[tid] = v;
    __syncthreads();
    for (int s = FW_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s)
            sh[tid] += sh[tid + s];
        __syncthreads();
    }
    v = sh[0];
    __syncthreads();
    return v;
}

/* The smallest key with the lowest index among equals (NaN keys never win);
   thread 0 gets it. */
__device__ void block_argmin(double *key, int64_t *idx, double *shk, int64_t *shi)
{
    const int tid = threadIdx.x;
    shk[tid] = *key;
    shi[tid] = *idx;
    __syncthreads();
    for (int s = FW_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) {
            const double k2 = shk[tid + s];
            const int64_t i2 = shi[tid + s];
            if (i2 >= 0 && (shi[tid] < 0 || k2 < shk[tid] || (k2 == shk[tid] && i2 < shi[tid]))) {
                shk[tid] = k2;
                shi[tid] = i2;
            }
        }
        __syncthreads();
    }
    *key = shk[0];
    *idx = shi[0];
    __syncthreads();
}

/* ------------------------------------------------------------- kernels */

/* Iteration t, first pass over g (n): the LMO's candidates (one-hot sets) or
   the vertex itself (written to v), <g, x>, <g, v> and the count of
   non-finite g_i; slots 0..4 of P[block]. */
__global__ void __launch_bounds__(FW_THREADS)
lmo_part(int64_t n, nla_fw_dev_set set, double r, const double *__restrict__ g,
         const double *__restrict__ x, const double *__restrict__ lo,
         const double *__restrict__ hi, double *__restrict__ v, double *__restrict__ P)
{
    NLA_BOUNDS(FW_THREADS);
    __shared__ double sh[FW_THREADS];
    __shared__ int64_t shi[FW_THREADS];
    const int64_t stride = (int64_t)gridDim.x * FW_THREADS;
    double gx = 0, gv = 0, bad = 0, key = 0;
    int64_t idx = -1;

    for (int64_t i = (int64_t)blockIdx.x * FW_THREADS + threadIdx.x; i < n; i += stride) {
        const double gi = g[i];
        gx += gi * x[i];
        bad += isfinite(gi) ? 0.0 : 1.0;
        if (dense_vertex(set)) {
            const double vi = set == NLA_FW_DEV_LINF ? (gi > 0 ? -r : r) : (gi > 0 ? lo[i] : hi[i]);
            v[i] = vi;
            gv += gi * vi;
        } else {
            /* the first smallest g_i, or the first largest |g_i| */
            const double k = set == NLA_FW_DEV_L1 ? -fabs(gi) : gi;
            if (idx < 0 || k < key) {
                key = k;
                idx = i;
            }
        }
    }
    gx = block_sum(gx, sh);
    gv = block_sum(gv, sh);
    bad = block_sum(bad, sh);
    block_argmin(&key, &idx, sh, shi);
    if (threadIdx.x == 0) {
        double *p = P + (int64_t)blockIdx.x * FW_SLOTS;
        p[0] = gx;
        p[1] = gv;
        p[2] = bad;
        p[3] = key;
        p[4] = (double)idx;
    }
}

/* One thread: the blocks of lmo_part and of eval in order -> S: the vertex
   (idx, val), <g,x>, <g,v>, the gap, f and finiteness. */
__global__ void lmo_final(int nb, int nbf, int quad, nla_fw_dev_set set, double r,
                          const double *__restrict__ g, const double *__restrict__ P,
                          const double *__restrict__ Pf, Scal *S)
{
    double gx = 0, gv = 0, bad = 0, key = 0, f0 = 0, f1 = 0;
    int64_t idx = -1;
    if (threadIdx.x != 0)
        return;
    for (int b = 0; b < nb; b++) {
        const double *p = P + (int64_t)b * FW_SLOTS;
        const int64_t i = (int64_t)p[4];
        gx += p[0];
        gv += p[1];
        bad += p[2];
        if (i >= 0 && (idx < 0 || p[3] < key || (p[3] == key && i < idx))) {
            key = p[3];
            idx = i;
        }
    }
    for (int b = 0; b < nbf; b++) {
        f0 += Pf[(int64_t)b * 2];
        f1 += Pf[(int64_t)b * 2 + 1];
    }
    S->f = quad ? 0.5 * f0 + f1 : 0.5 * f0;
    if (idx < 0)
        idx = 0; /* every key NaN: the record says so, any vertex will do */
    if (set == NLA_FW_DEV_PROB_SIMPLEX || set == NLA_FW_DEV_UNIT_SIMPLEX) {
        if (set == NLA_FW_DEV_UNIT_SIMPLEX && !(g[idx] < 0)) {
            S->idx = FW_VX_ZERO;
            S->val = 0;
        } else {
            S->idx = idx;
            S->val = r;
        }
        gv = S->idx == FW_VX_ZERO ? 0.0 : S->val * g[idx];
    } else if (set == NLA_FW_DEV_L1) {
        S->idx = idx;
        S->val = g[idx] > 0 ? -r : r;
        gv = S->val * g[idx];
    } else {
        S->idx = FW_VX_DENSE;
        S->val = 0;
    }
    S->gx = gx;
    S->gv = gv;
    S->gap = gx - gv;
    S->finite = bad == 0 && isfinite(S->f);
}

/* M(i, j) of the operator */
__device__ __forceinline__ double op_elem(int op, int upper, int64_t i, int64_t j,
                                          int64_t n, int64_t ld, int64_t kl, int64_t ku,
                                          const double *__restrict__ a)
{
    if (op == 0)
        return a[i + j * ld];
    if (op == 1)
        return i - j > kl || j - i > ku ? 0.0 : a[ku + i - j + j * ld];
    if (upper ? i > j : i < j) {
        const int64_t t = i;
        i = j;
        j = t;
    }
    return upper ? a[i + j * (j + 1) / 2] : a[i + j * (2 * n - j - 1) / 2];
}

/* one-hot vertex: md = val * M[:, idx] - w (FW_VX_ZERO: md = -w) */
__global__ void vertex_col(int64_t rows, int op, int upper, int64_t ld, int64_t kl,
                           int64_t ku, const double *__restrict__ a, const Scal *S,
                           const double *__restrict__ w, double *__restrict__ md)
{
    const int64_t i = (int64_t)blockIdx.x * FW_THREADS + threadIdx.x;
    if (i >= rows)
        return;
    const int64_t j = S->idx;
    const double mv =
        j == FW_VX_ZERO ? 0.0 : S->val * op_elem(op, upper, i, j, rows, ld, kl, ku, a);
    md[i] = mv - w[i];
}

/* |d|^2 over n and the curvature (lsq: |md|^2 over rows; quad: <d, md>),
   d = v - x; a dense vertex's md = mv - w is formed here.  Slots 0, 1. */
__global__ void __launch_bounds__(FW_THREADS)
dir_part(int64_t n, int64_t rows, int quad, const Scal *S, const double *__restrict__ x,
         const double *__restrict__ v, const double *__restrict__ mv,
         const double *__restrict__ w, double *__restrict__ md, double *__restrict__ P)
{
    NLA_BOUNDS(FW_THREADS);
    __shared__ double sh[FW_THREADS];
    const int64_t stride = (int64_t)gridDim.x * FW_THREADS, len = n > rows ? n : rows;
    const int64_t idx = S->idx;
    const double val = S->val;
    double dd = 0, cv = 0;

    for (int64_t i = (int64_t)blockIdx.x * FW_THREADS + threadIdx.x; i < len; i += stride) {
        double mdi = 0;
        if (i < rows) {
            if (idx == FW_VX_DENSE)
                md[i] = mv[i] - w[i];
            mdi = md[i];
            if (!quad)
                cv += mdi * mdi;
        }
        if (i < n) {
            const double di = vertex_at(i, idx, val, v) - x[i];
            dd += di * di;
            if (quad)
                cv += di * mdi;
        }
    }
    dd = block_sum(dd, sh);
    cv = block_sum(cv, sh);
    if (threadIdx.x == 0) {
        P[(int64_t)blockIdx.x * FW_SLOTS] = dd;
        P[(int64_t)blockIdx.x * FW_SLOTS + 1] = cv;
    }
}

__device__ __forceinline__ double clip1(double g)
{
    return !(g > 0) ? 0.0 : g < 1 ? g : 1.0;
}

/* One thread: |d|^2 and the curvature from dir_part's blocks, gamma by the
   rule (src/opt/fw_solve.c), the record. */
__global__ void step(int nb, int64_t t, nla_fw_step_rule rule, double L,
                     const double *__restrict__ P, Scal *S, Rec *R)
{
    double dd = 0, cv = 0, dg, gamma = 0;
    int fail = 0;
    if (threadIdx.x != 0)
        return;
    for (int b = 0; b < nb; b++) {
        dd += P[(int64_t)b * FW_SLOTS];
        cv += P[(int64_t)b * FW_SLOTS + 1];
    }
    dg = S->gv - S->gx;
    switch (rule) {
    case NLA_FW_SHORT_STEP:
        gamma = dd > 0 ? clip1(-dg / (L * dd)) : 0.0;
        break;
    case NLA_FW_EXACT:
        gamma = cv > 0 ? clip1(-dg / cv) : dg < 0 ? 1.0 : 0.0;
        break;
    case NLA_FW_ADAPTIVE:
        if (dd > 0) {
            double Le = S->Lest, M;
            if (Le <= 0) {
                Le = cv / dd;
                if (!(Le > 0) || !isfinite(Le))
                    Le = 1;
            }
            M = NLA_FW_ADAPT_ETA * Le;
            fail = 1;
            for (int k = 0; k < NLA_FW_BACKTRACK_MAX; k++) {
                gamma = clip1(-dg / (M * dd));
                if (gamma == 0 || cv <= M * dd) {
                    fail = 0;
                    S->Lest = M;
                    break;
                }
                M *= NLA_FW_ADAPT_TAU;
            }
            if (fail) {
                gamma = 0;
                S->Lest = Le;
            }
        }
        break;
    default:
        gamma = clip1(2.0 / ((double)t + 2.0));
        break;
    }
    S->dd = dd;
    S->curv = cv;
    S->gamma = gamma;
    R->f = S->f;
    R->gap = S->gap;
    R->gamma = gamma;
    R->finite = S->finite;
    R->adapt_fail = fail;
}

/* xn = x + gamma (v - x) over n, w += gamma md over rows */
__global__ void update(int64_t n, int64_t rows, const Scal *S, const double *__restrict__ x,
                       const double *__restrict__ v, double *__restrict__ xn,
                       double *__restrict__ w, const double *__restrict__ md)
{
    const int64_t i = (int64_t)blockIdx.x * FW_THREADS + threadIdx.x;
    const double gamma = S->gamma, val = S->val;
    const int64_t idx = S->idx;
    if (i < n) {
        xn[i] = x[i] + gamma * (vertex_at(i, idx, val, v) - x[i]);
    }
    if (i < rows)
        w[i] += gamma * md[i];
}

/* f's partial sums at x from w (slots 0, 1 of Pf[block]): lsq
   res = w - b and |res|^2; quad g = w + c, <x, w> and <c, x>. */
__global__ void __launch_bounds__(FW_THREADS)
eval(int64_t rows, int quad, const double *__restrict__ x, const double *__restrict__ w,
     const double *__restrict__ b, const double *__restrict__ c, double *__restrict__ res,
     double *__restrict__ g, double *__restrict__ Pf)
{
    NLA_BOUNDS(FW_THREADS);
    __shared__ double sh[FW_THREADS];
    const int64_t stride = (int64_t)gridDim.x * FW_THREADS;
    double s0 = 0, s1 = 0;
    for (int64_t i = (int64_t)blockIdx.x * FW_THREADS + threadIdx.x; i < rows; i += stride) {
        if (quad) {
            const double ci = c ? c[i] : 0.0;
            g[i] = w[i] + ci;
            s0 += x[i] * w[i];
            s1 += ci * x[i];
        } else {
            const double ri = w[i] - b[i];
            res[i] = ri;
            s0 += ri * ri;
        }
    }
    s0 = block_sum(s0, sh);
    s1 = block_sum(s1, sh);
    if (threadIdx.x == 0) {
        Pf[(int64_t)blockIdx.x * 2] = s0;
        Pf[(int64_t)blockIdx.x * 2 + 1] = s1;
    }
}

/* ---------------------------------------------------------------- host */

/* The workspace: every vector and the partial sums, 256-byte aligned. */
struct Ws {
    double *x[2], *g, *v, *w, *mv, *md, *res, *P, *Pf;
    Scal *S;
    Rec *R;
    void *l2;
    size_t l2_bytes, total;
};

size_t l2_scratch(int sms, const nla_fw_dev_problem *p)
{
    size_t a = 0, b = 0;
    if (p->op == 0) {
        a = nla_cuda_gemv_scratch(sms, 0, p->rows, p->cols, sizeof(double));
        b = nla_cuda_gemv_scratch(sms, 1, p->rows, p->cols, sizeof(double));
    } else if (p->op == 1) {
        a = nla_cuda_gbmv_scratch(sms, 0, p->rows, p->cols, p->kl, p->ku, sizeof(double));
        b = nla_cuda_gbmv_scratch(sms, 1, p->rows, p->cols, p->kl, p->ku, sizeof(double));
    } else {
        a = nla_cuda_spmv_scratch(sms, p->cols, sizeof(double));
    }
    return a > b ? a : b;
}

/* Lays the workspace out from base (NULL: only the size). */
Ws layout(char *base, int sms, const nla_fw_dev_problem *p)
{
    Ws s;
    size_t off = 0;
    const size_t n = (size_t)p->cols, rows = (size_t)p->rows;
    auto take = [&](size_t bytes) -> void * {
        void *q = base ? base + off : NULL;
        off += (bytes + 255) / 256 * 256;
        return q;
    };
    const bool dense_v = dense_vertex(p->set);
    s.x[0] = (double *)take(n * sizeof(double));
    s.x[1] = (double *)take(n * sizeof(double));
    s.g = (double *)take(n * sizeof(double));
    s.v = dense_v ? (double *)take(n * sizeof(double)) : NULL;
    s.w = (double *)take(rows * sizeof(double));
    s.mv = dense_v ? (double *)take(rows * sizeof(double)) : NULL;
    s.md = (double *)take(rows * sizeof(double));
    s.res = p->quad ? NULL : (double *)take(rows * sizeof(double));
    s.P = (double *)take(FW_MAXB * FW_SLOTS * sizeof(double));
    s.Pf = (double *)take(FW_MAXB * 2 * sizeof(double));
    s.S = (Scal *)take(sizeof(Scal));
    s.R = (Rec *)take(sizeof(Rec));
    s.l2_bytes = l2_scratch(sms, p);
    s.l2 = take(s.l2_bytes);
    s.total = off;
    return s;
}

/* y = M x (trans 0) or M' x (1) */
cudaError_t apply(const nla_cuda_launch *L, const nla_fw_dev_problem *p, int trans,
                  const double *x, double *y)
{
    if (p->op == 0)
        return nla_cuda_gemv_d(L, trans, p->rows, p->cols, 1.0, p->a, p->ld, x, 1, 0.0, y, 1);
    if (p->op == 1)
        return nla_cuda_gbmv_d(L, trans, p->rows, p->cols, p->kl, p->ku, 1.0, p->a, p->ld, x,
                               1, 0.0, y, 1);
    return nla_cuda_spmv_d(L, p->upper, p->cols, 1.0, p->a, x, 1, 0.0, y, 1);
}

/* f and the gradient at x, from w */
cudaError_t evaluate(const nla_cuda_launch *L, const nla_fw_dev_problem *p, const Ws &s,
                     const double *x)
{
    NLA_LAUNCH(eval, nblocks(p->rows), FW_THREADS, 0, L->stream)(p->rows, p->quad, x, s.w,
                                                                 p->b, p->c, s.res, s.g, s.Pf);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && !p->quad)
        e = apply(L, p, 1, s.res, s.g);
    return e;
}

} /* namespace */

size_t nla_cuda_fw_workspace(int sms, const nla_fw_dev_problem *p)
{
    return layout(NULL, sms, p).total;
}

cudaError_t nla_cuda_fw_run(const nla_cuda_launch *L, const nla_fw_dev_problem *p, double *x,
                            nla_fw_dev_hook hook, void *user)
{
    const int64_t n = p->cols, rows = p->rows;
    const bool dense_v = dense_vertex(p->set);
    const int nbn = nblocks(n), nbd = nblocks(n > rows ? n : rows), nbf = nblocks(rows);
    const unsigned gu = (unsigned)cdiv(n > rows ? n : rows, FW_THREADS);
    const unsigned gr = (unsigned)cdiv(rows, FW_THREADS);
    nla_cuda_launch l2;
    Scal s0;
    Rec rec;
    cudaError_t e;
    int cur = 0;

    if (L->scratch_bytes < nla_cuda_fw_workspace(L->sms, p))
        return cudaErrorInvalidValue;
    Ws s = layout((char *)L->scratch, L->sms, p);
    l2.stream = L->stream;
    l2.sms = L->sms;
    l2.scratch = s.l2;
    l2.scratch_bytes = s.l2_bytes;
    memset(&s0, 0, sizeof s0);
    s0.Lest = p->rule == NLA_FW_ADAPTIVE ? p->L : 0;
#define FW_CK(call)                                                            \
    do {                                                                       \
        if ((e = (call)) != cudaSuccess)                                       \
            return e;                                                          \
    } while (0)
#define FW_LAUNCHED() FW_CK(cudaGetLastError())
    FW_CK(cudaMemcpyAsync(s.S, &s0, sizeof s0, cudaMemcpyHostToDevice, L->stream));
    FW_CK(cudaMemcpyAsync(s.x[0], x, (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice,
                          L->stream));
    FW_CK(apply(&l2, p, 0, s.x[0], s.w));
    FW_CK(evaluate(&l2, p, s, s.x[0]));
    for (int64_t t = 0;; t++) {
        nla_fw_dev_iter it;
        int act;
        NLA_LAUNCH(lmo_part, nbn, FW_THREADS, 0, L->stream)(n, p->set, p->r, s.g, s.x[cur],
                                                            p->lo, p->hi, s.v, s.P);
        FW_LAUNCHED();
        NLA_LAUNCH(lmo_final, 1, 32, 0, L->stream)(nbn, nbf, p->quad, p->set, p->r, s.g, s.P,
                                                   s.Pf, s.S);
        FW_LAUNCHED();
        if (dense_v) {
            FW_CK(apply(&l2, p, 0, s.v, s.mv));
        } else {
            NLA_LAUNCH(vertex_col, gr, FW_THREADS, 0, L->stream)(rows, p->op, p->upper, p->ld,
                                                                 p->kl, p->ku, p->a, s.S, s.w,
                                                                 s.md);
            FW_LAUNCHED();
        }
        NLA_LAUNCH(dir_part, nbd, FW_THREADS, 0, L->stream)(n, rows, p->quad, s.S, s.x[cur],
                                                            s.v, s.mv, s.w, s.md, s.P);
        FW_LAUNCHED();
        NLA_LAUNCH(step, 1, 32, 0, L->stream)(nbd, t, p->rule, p->L, s.P, s.S, s.R);
        FW_LAUNCHED();
        FW_CK(cudaMemcpyAsync(&rec, s.R, sizeof rec, cudaMemcpyDeviceToHost, L->stream));
        FW_CK(cudaStreamSynchronize(L->stream));
        it.t = t;
        it.f = rec.f;
        it.gap = rec.gap;
        it.gamma = rec.gamma;
        it.finite = rec.finite;
        it.adapt_fail = rec.adapt_fail;
        it.x = s.x[cur];
        act = hook(user, &it);
        if (act != NLA_FW_DEV_STEP) {
            const int res = act == NLA_FW_DEV_STOP_PREV && t > 0 ? cur ^ 1 : cur;
            FW_CK(cudaMemcpyAsync(x, s.x[res], (size_t)n * sizeof(double),
                                  cudaMemcpyDeviceToDevice, L->stream));
            return cudaSuccess;
        }
        NLA_LAUNCH(update, gu, FW_THREADS, 0, L->stream)(n, rows, s.S, s.x[cur], s.v,
                                                         s.x[cur ^ 1], s.w, s.md);
        FW_LAUNCHED();
        cur ^= 1;
        if ((t + 1) % NLA_FW_REFRESH == 0)
            FW_CK(apply(&l2, p, 0, s.x[cur], s.w));
        FW_CK(evaluate(&l2, p, s, s.x[cur]));
    }
#undef FW_LAUNCHED
#undef FW_CK
}
