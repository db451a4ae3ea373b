/*
 * level2.cu - gemv, gbmv and spmv on the device (s and d).
 *
 * All three are memory-bound: each matrix entry is read once, with
 * coalesced loads (16-byte vector loads where the addresses allow), and
 * every sum is formed in a fixed order, so results are bitwise repeatable.
 * No atomics: where several blocks contribute to one element of y, they
 * write partial sums to scratch and a second kernel adds them in order.
 *
 *   gemv N   one thread per 16 bytes of rows (2 doubles / 4 floats of a
 *            column); columns are split across blocks when the rows alone
 *            do not fill the GPU (partials, then reduce_parts).
 *   gemv T   one warp per column, a dot product down the contiguous
 *            column; rows are split across blocks for short, wide problems.
 *   gbmv     level2_band.cuh, included below.
 *   spmv     the packed triangle is cut into 64x64 tiles; one block per
 *            stored tile reads it once into shared memory and produces both
 *            of its contributions, A_IJ x_J to rows I and A_IJ' x_I to rows
 *            J (a diagonal tile: its full symmetric product).  Each goes to
 *            its own slot of a scratch table P[row tile][partner tile], and
 *            reduce_tiles adds each row's slots in order.
 *
 * Vectors: x and y point at their lowest address, as in BLAS; the
 * launchers move the base so that element k is base[k*inc], also for
 * negative increments.
 */
#include <math.h>
#include "internal.h"
#include "launch.cuh"

#define L2_THREADS 256
#define SPMV_B 64

namespace {

/* ------------------------------------------------------------ helpers */

template <typename T> struct V16;
template <> struct V16<double> {
    typedef double2 vec;
    static constexpr int W = 2;
};
template <> struct V16<float> {
    typedef float4 vec;
    static constexpr int W = 4;
};

__device__ __forceinline__ void unpack(const double2 &v, double *o)
{
    o[0] = v.x;
    o[1] = v.y;
}

__device__ __forceinline__ void unpack(const float4 &v, float *o)
{
    o[0] = v.x;
    o[1] = v.y;
    o[2] = v.z;
    o[3] = v.w;
}

/* 16 bytes from a 16-byte aligned address of read-only data: __ldg of the
   vector type is one ld.global.nc.v2.f64/.v4.f32 (LDG.E.128), which the
   compiler cannot split into scalar loads as it does a dereferenced vector
   whose halves are used under different conditions (gbmv_t, spmv_tiles) */
template <typename T>
__device__ __forceinline__ void load16(const T *p, T *o)
{
    unpack(__ldg(reinterpret_cast<const typename V16<T>::vec *>(p)), o);
}

/* y[i] = alpha*acc + beta*y[i]; beta == 0 does not read y */
template <typename T>
__device__ __forceinline__ void store_y(T *y, int64_t incy, int64_t i, T acc, T alpha,
                                        T beta)
{
    T *p = y + i * incy;
    T v = alpha * acc;
    if (beta != T(0))
        v = fma(beta, *p, v);
    *p = v;
}

/* lane 0 gets the warp's sum, always added in the same order */
template <typename T>
__device__ __forceinline__ T warp_sum(T v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

template <typename T>
__global__ void scale_y(int64_t len, T beta, T *y, int64_t incy)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < len) {
        T *p = y + i * incy;
        *p = beta == T(0) ? T(0) : beta * *p;
    }
}

/* y[i] = alpha * sum_s part[s*len + i] + beta*y[i] */
template <typename T>
__global__ void reduce_parts(int64_t len, int nparts, const T *__restrict__ part, T alpha,
                             T beta, T *__restrict__ y, int64_t incy)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= len)
        return;
    T s = 0;
    for (int k = 0; k < nparts; k++)
        s += part[(int64_t)k * len + i];
    store_y(y, incy, i, s, alpha, beta);
}

int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

__host__ __device__ __forceinline__ bool aligned16(const void *p)
{
    return ((uintptr_t)p & 15) == 0;
}

/* the base from which element k of a vector of length len is base[k*inc] */
template <typename T>
T *vbase(T *p, int64_t len, int64_t inc)
{
    return inc > 0 || !p ? p : p - (len - 1) * inc;
}

template <typename T>
cudaError_t launch_scale(cudaStream_t st, int64_t len, T beta, T *y, int64_t incy)
{
    NLA_LAUNCH(scale_y<T>, ((unsigned)cdiv(len, L2_THREADS)), L2_THREADS, 0, st)(
        len, beta, vbase(y, len, incy), incy);
    return cudaGetLastError();
}

/* ------------------------------------------------------------- gemv N */

template <typename T, int VW>
__global__ void __launch_bounds__(L2_THREADS)
gemv_n(int64_t m, int64_t n, int64_t cs, T alpha, const T *__restrict__ a, int64_t lda,
       const T *__restrict__ x, int64_t incx, T beta, T *__restrict__ y, int64_t incy,
       T *__restrict__ part)
{
    NLA_BOUNDS(L2_THREADS);
    const int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * VW;
    if (i >= m)
        return;
    const int64_t j0 = (int64_t)blockIdx.y * cs;
    const int64_t j1 = j0 + cs < n ? j0 + cs : n;
    const int rows = m - i < VW ? (int)(m - i) : VW;
    const T *col = a + i + j0 * lda;
    T acc[VW];
#pragma unroll
    for (int r = 0; r < VW; r++)
        acc[r] = 0;
    if constexpr (VW > 1) {
        if (rows == VW) {
#pragma unroll 4
            for (int64_t j = j0; j < j1; j++, col += lda) {
                T v[VW];
                const T xj = x[j * incx];
                load16(col, v);
#pragma unroll
                for (int r = 0; r < VW; r++)
                    acc[r] = fma(v[r], xj, acc[r]);
            }
            col = NULL;
        }
    }
    /* the partial rows: every loop over acc[] runs to VW, unrolled, so that
       acc stays in registers (an index the compiler cannot resolve puts it
       on the stack: local memory) */
    if (col) {
        for (int64_t j = j0; j < j1; j++, col += lda) {
            const T xj = x[j * incx];
#pragma unroll
            for (int r = 0; r < VW; r++)
                if (r < rows)
                    acc[r] = fma(col[r], xj, acc[r]);
        }
    }
#pragma unroll
    for (int r = 0; r < VW; r++) {
        if (r >= rows)
            break;
        if (part)
            part[(int64_t)blockIdx.y * m + i + r] = acc[r];
        else
            store_y(y, incy, i + r, acc[r], alpha, beta);
    }
}

/* ------------------------------------------------------------- gemv T */

template <typename T, int VW>
__global__ void __launch_bounds__(L2_THREADS)
gemv_t(int64_t m, int64_t n, int64_t rs, T alpha, const T *__restrict__ a, int64_t lda,
       const T *__restrict__ x, int64_t incx, T beta, T *__restrict__ y, int64_t incy,
       T *__restrict__ part)
{
    NLA_BOUNDS(L2_THREADS);
    const int lane = threadIdx.x & 31;
    const int64_t j = (int64_t)blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5);
    if (j >= n)
        return; /* the whole warp: one column per warp */
    const int64_t i0 = (int64_t)blockIdx.y * rs;
    const int64_t i1 = i0 + rs < m ? i0 + rs : m;
    const T *col = a + j * lda;
    T acc = 0;
    int64_t i = i0;
    if constexpr (VW > 1) {
        const int64_t nv = (i1 - i0) / VW;
#pragma unroll 4
        for (int64_t v = lane; v < nv; v += 32) {
            T e[VW];
            const int64_t r = i0 + v * VW;
            load16(col + r, e);
#pragma unroll
            for (int k = 0; k < VW; k++)
                acc = fma(e[k], x[(r + k) * incx], acc);
        }
        i = i0 + nv * VW;
    }
    for (int64_t r = i + lane; r < i1; r += 32)
        acc = fma(col[r], x[r * incx], acc);
    acc = warp_sum(acc);
    if (lane == 0) {
        if (part)
            part[(int64_t)blockIdx.y * n + j] = acc;
        else
            store_y(y, incy, j, acc, alpha, beta);
    }
}

/* resident blocks per SM of kern as compiled (its registers), a full SM's
   threads if the query fails */
template <typename K>
int blocks_per_sm(K *kern)
{
    int nb = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kern, L2_THREADS, 0) != cudaSuccess ||
        nb < 1) {
        cudaGetLastError();
        nb = 2048 / L2_THREADS;
    }
    return nb;
}

/* the same for gemv_n / gemv_t<T, VW>, asked once per process (a static,
   initialized once): every size of the scratch must agree, and callers
   size it before they set their device (plugin.cu, fw.cu) */
template <typename T, int VW>
int gemv_bps(int trans)
{
    static const int bps[2] = { blocks_per_sm(gemv_n<T, VW>), blocks_per_sm(gemv_t<T, VW>) };
    return bps[trans != 0];
}

/* s <= smax splits of a grid of `per` blocks, in whole waves of `wave`
   blocks (SMs x resident blocks): the fewest waves (up to 4) that the
   blocks fill to 7/8, else the fullest */
int wave_splits(int64_t per, int64_t wave, int64_t smax)
{
    int64_t best = 1, bw = cdiv(per, wave);
    for (int64_t k = 1; k <= 4 && 8 * per * best < 7 * bw * wave; k++) {
        const int64_t s = clamp64(k * wave / per, 1, smax), w = cdiv(per * s, wave);
        if (s * bw > best * w)
            best = s, bw = w;
    }
    return (int)best;
}

/* splits of the summed dimension, in whole waves: N, column splits of
   >= 64 columns; T, row splits of >= 4 vectors per lane */
int gemv_splits(int sms, int bps, int trans, int64_t m, int64_t n, int vw)
{
    const int64_t per = trans ? cdiv(n, L2_THREADS / 32) : cdiv(cdiv(m, vw), L2_THREADS);
    const int64_t smax = clamp64(trans ? m / (32 * vw * 4) : n / 64, 1, 65535);
    return wave_splits(per, (int64_t)sms * bps, smax);
}

template <typename T, int VW>
cudaError_t gemv_launch(const nla_cuda_launch *L, int trans, int64_t m, int64_t n, T alpha,
                        const T *a, int64_t lda, const T *x, int64_t incx, T beta, T *y,
                        int64_t incy)
{
    const int64_t lx = trans ? m : n, ly = trans ? n : m;
    const T *xb = vbase(x, lx, incx);
    T *yb = vbase(y, ly, incy);
    int s = gemv_splits(L->sms, gemv_bps<T, VW>(trans), trans, m, n, VW);
    const int64_t fit = (int64_t)(L->scratch_bytes / (sizeof(T) * (size_t)ly));
    int64_t chunk;
    T *part;

    /* s blocks along the summed dimension, `chunk` long (a whole number of
       vectors per lane for T); with s > 1 they write partial sums */
    if (s > fit)
        s = (int)fit;
    if (s < 1)
        s = 1;
    chunk = trans ? cdiv(cdiv(m, s), 32 * VW) * 32 * VW : cdiv(n, s);
    s = (int)cdiv(trans ? m : n, chunk);
    part = s > 1 ? (T *)L->scratch : NULL;
    if (!trans) {
        dim3 grid((unsigned)cdiv(cdiv(m, VW), L2_THREADS), (unsigned)s);
        NLA_LAUNCH((gemv_n<T, VW>), grid, L2_THREADS, 0, L->stream)(m, n, chunk, alpha, a, lda, xb,
                                                           incx, beta, yb, incy, part);
    } else {
        dim3 grid((unsigned)cdiv(n, L2_THREADS / 32), (unsigned)s);
        NLA_LAUNCH((gemv_t<T, VW>), grid, L2_THREADS, 0, L->stream)(m, n, chunk, alpha, a, lda, xb,
                                                           incx, beta, yb, incy, part);
    }
    if (part)
        NLA_LAUNCH(reduce_parts<T>, ((unsigned)cdiv(ly, L2_THREADS)), L2_THREADS, 0, L->stream)(
            ly, s, part, alpha, beta, yb, incy);
    return cudaGetLastError();
}

} /* namespace */

/* gbmv N and T, on the helpers above */
#include "level2_band.cuh"

namespace {

/* --------------------------------------------------------------- spmv */

/* column j's packed storage, indexed by row: A(i,j) = col[i] */
template <typename T, bool UPPER>
__device__ __forceinline__ const T *packed_col(const T *ap, int64_t n, int64_t j)
{
    return UPPER ? ap + j * (j + 1) / 2 : ap + j * (2 * n - j - 1) / 2;
}

/* rows f .. f+W-1 of a tile column (those in [0, B)): A where stored,
   rows [a, b), else 0 */
template <typename T>
__device__ __forceinline__ void spmv_slot(T *sc, const T *col, int f, int a, int b)
{
#pragma unroll
    for (int k = 0; k < V16<T>::W; k++)
        if (f + k >= 0 && f + k < SPMV_B)
            sc[f + k] = f + k >= a && f + k < b ? col[f + k] : T(0);
}

/* One stored 64x64 tile (I, J) per block.  Row part: A_IJ x_J -> P[I][J];
   column part (off-diagonal tiles): A_IJ' x_I -> P[J][I]; diagonal tile:
   the symmetric product -> P[I][I]. */
template <typename T, bool UPPER>
__global__ void __launch_bounds__(L2_THREADS)
spmv_tiles(int64_t n, int64_t nb, const T *__restrict__ ap, const T *__restrict__ x,
           int64_t incx, T *__restrict__ P)
{
    NLA_BOUNDS(L2_THREADS);
    constexpr int B = SPMV_B, LD = SPMV_B + 1, W = V16<T>::W;
    __shared__ T s[B * LD];
    __shared__ T xi[B], xj[B];
    __shared__ T rpart[4][B], cpart[4][B];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

    /* tile number -> (lo, hi) tile pair, hi*(hi+1)/2 + lo, lo <= hi */
    const int64_t t = blockIdx.x;
    int64_t hi = (int64_t)((sqrt(8.0 * (double)t + 1.0) - 1.0) / 2.0);
    while (hi * (hi + 1) / 2 > t)
        hi--;
    while ((hi + 1) * (hi + 2) / 2 <= t)
        hi++;
    const int64_t lo = t - hi * (hi + 1) / 2;
    const int64_t bi = UPPER ? lo : hi, bj = UPPER ? hi : lo;
    const int64_t I0 = bi * B, J0 = bj * B;
    const bool diag = bi == bj;

    for (int k = tid; k < B; k += blockDim.x) {
        xi[k] = I0 + k < n ? x[(I0 + k) * incx] : T(0);
        xj[k] = J0 + k < n ? x[(J0 + k) * incx] : T(0);
    }
    /* s[jj*LD + ii] = A(I0+ii, J0+jj), 0 where not stored.  A column's
       stored rows [a, b) are contiguous, sh elements past a 16-byte
       boundary: slot q (rows q*W - sh ..) is one 16-byte load when wholly
       stored, else element by element (slot LPC, partial, is the last
       lane's too).  LPC lanes per column, CPP columns a pass, U passes'
       loads issued before their stores (one column at a time kept 20 KB,
       d, or 16 KB, s, in flight per SM); 5 blocks per SM (d: shared
       memory, s: registers). */
    /* in flight per SM: 5 blocks x 8 warps x U*32*16 B = 40 KB >= 4.8 TB/s / 132 SMs x 0.7 us */
    constexpr int LPC = B / W, CPP = 32 / LPC, U = 2;
    const int q = lane % LPC;
    for (int jj0 = warp * U * CPP; jj0 < B; jj0 += L2_THREADS / 32 * U * CPP) {
        typename V16<T>::vec v[U];
        const T *col[U];
        int a[U], b[U], f[U];
        bool full[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t j = J0 + jj0 + u * CPP + lane / LPC;
            const bool in = j < n;
            col[u] = packed_col<T, UPPER>(ap, n, in ? j : 0) + I0;
            a[u] = UPPER || j < I0 ? 0 : (int)(j - I0);
            const int64_t end = UPPER ? j + 1 : n; /* past the column's stored rows */
            b[u] = !in ? 0 : (int)(end - I0 < B ? end - I0 : B);
            f[u] = q * W - (int)(((uintptr_t)col[u] & 15) / sizeof(T));
            full[u] = f[u] >= a[u] && f[u] + W <= b[u];
            if (full[u])
                v[u] = __ldg(reinterpret_cast<const typename V16<T>::vec *>(col[u] + f[u]));
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            T *sc = s + (jj0 + u * CPP + lane / LPC) * LD;
            if (full[u]) {
                T e[W];
                unpack(v[u], e);
#pragma unroll
                for (int k = 0; k < W; k++)
                    sc[f[u] + k] = e[k];
            } else {
                spmv_slot(sc, col[u], f[u], a[u], b[u]);
            }
            if (q == LPC - 1)
                spmv_slot(sc, col[u], f[u] + W, a[u], b[u]);
        }
    }
    __syncthreads();
    if (diag) {
        /* fill the other triangle from the stored one */
        for (int e = tid; e < B * B; e += blockDim.x) {
            const int ii = e % B, jj = e / B;
            if (UPPER ? ii > jj : ii < jj)
                s[jj * LD + ii] = s[ii * LD + jj];
        }
        __syncthreads();
    }
    {
        const int q = tid / B, k = tid % B; /* 4 quarters of 16 terms */
        T r = 0, c = 0;
        for (int u = q * 16; u < q * 16 + 16; u++) {
            r = fma(s[u * LD + k], xj[u], r); /* row k:    sum_u A(k,u) x_J[u] */
            if (!diag)
                c = fma(s[k * LD + u], xi[u], c); /* column k: sum_u A(u,k) x_I[u] */
        }
        rpart[q][k] = r;
        cpart[q][k] = c;
    }
    __syncthreads();
    if (tid < B) {
        P[(bi * nb + bj) * B + tid] = ((rpart[0][tid] + rpart[1][tid]) + rpart[2][tid]) +
                                      rpart[3][tid];
        if (!diag)
            P[(bj * nb + bi) * B + tid] = ((cpart[0][tid] + cpart[1][tid]) + cpart[2][tid]) +
                                          cpart[3][tid];
    }
}

/* y_i = alpha * sum_k P[i/B][k][i%B] + beta*y_i, k in order */
template <typename T>
__global__ void reduce_tiles(int64_t n, int64_t nb, const T *__restrict__ P, T alpha,
                             T beta, T *__restrict__ y, int64_t incy)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const T *p = P + (i / SPMV_B) * nb * SPMV_B + i % SPMV_B;
    T s = 0;
    for (int64_t k = 0; k < nb; k++)
        s += p[k * SPMV_B];
    store_y(y, incy, i, s, alpha, beta);
}

template <typename T>
cudaError_t spmv_launch(const nla_cuda_launch *L, int upper, int64_t n, T alpha,
                        const T *ap, const T *x, int64_t incx, T beta, T *y, int64_t incy)
{
    const int64_t nb = cdiv(n, SPMV_B);
    const int64_t tiles = nb * (nb + 1) / 2;
    const T *xb = vbase(x, n, incx);
    T *yb = vbase(y, n, incy);
    T *P = (T *)L->scratch;

    if (L->scratch_bytes < nla_cuda_spmv_scratch(L->sms, n, sizeof(T)) || tiles > 0x7fffffff)
        return cudaErrorInvalidValue;
    if (upper)
        NLA_LAUNCH((spmv_tiles<T, true>), (unsigned)tiles, L2_THREADS, 0, L->stream)(n, nb, ap, xb,
                                                                           incx, P);
    else
        NLA_LAUNCH((spmv_tiles<T, false>), (unsigned)tiles, L2_THREADS, 0, L->stream)(n, nb, ap, xb,
                                                                            incx, P);
    NLA_LAUNCH(reduce_tiles<T>, ((unsigned)cdiv(n, L2_THREADS)), L2_THREADS, 0, L->stream)(
        n, nb, P, alpha, beta, yb, incy);
    return cudaGetLastError();
}

} /* namespace */

/* ------------------------------------------------------------- entries */

size_t nla_cuda_gemv_scratch(int sms, int trans, int64_t m, int64_t n, size_t es)
{
    /* the larger of the vector (16 bytes a thread) and unaligned kernels' */
    const bool d = es == sizeof(double);
    const int sv = gemv_splits(sms, d ? gemv_bps<double, 2>(trans) : gemv_bps<float, 4>(trans),
                               trans, m, n, (int)(16 / es));
    const int s1 = gemv_splits(sms, d ? gemv_bps<double, 1>(trans) : gemv_bps<float, 1>(trans),
                               trans, m, n, 1);
    const int s = sv > s1 ? sv : s1;
    return s > 1 ? (size_t)s * (size_t)(trans ? n : m) * es : 0;
}

size_t nla_cuda_gbmv_scratch(int sms, int trans, int64_t m, int64_t n, int64_t kl,
                             int64_t ku, size_t es)
{
    (void)sms, (void)trans, (void)m, (void)n, (void)kl, (void)ku, (void)es;
    return 0;
}

size_t nla_cuda_spmv_scratch(int sms, int64_t n, size_t es)
{
    const int64_t nb = cdiv(n, SPMV_B);
    (void)sms;
    return (size_t)nb * (size_t)nb * SPMV_B * es;
}

#define ENTRIES(T, p)                                                          \
    cudaError_t nla_cuda_gemv_##p(const nla_cuda_launch *L, int trans,         \
        int64_t m, int64_t n, T alpha, const T *a, int64_t lda, const T *x,    \
        int64_t incx, T beta, T *y, int64_t incy)                              \
    {                                                                          \
        if (alpha == T(0))                                                     \
            return launch_scale<T>(L->stream, trans ? n : m, beta, y, incy);   \
        if (aligned16(a) && lda % V16<T>::W == 0)                              \
            return gemv_launch<T, V16<T>::W>(L, trans, m, n, alpha, a, lda, x, \
                                             incx, beta, y, incy);             \
        return gemv_launch<T, 1>(L, trans, m, n, alpha, a, lda, x, incx, beta, \
                                 y, incy);                                     \
    }                                                                          \
    cudaError_t nla_cuda_gbmv_##p(const nla_cuda_launch *L, int trans,         \
        int64_t m, int64_t n, int64_t kl, int64_t ku, T alpha, const T *ab,    \
        int64_t ldab, const T *x, int64_t incx, T beta, T *y, int64_t incy)    \
    {                                                                          \
        if (alpha == T(0))                                                     \
            return launch_scale<T>(L->stream, trans ? n : m, beta, y, incy);   \
        return gbmv_launch<T>(L, trans, m, n, kl, ku, alpha, ab, ldab, x,      \
                              incx, beta, y, incy);                            \
    }                                                                          \
    cudaError_t nla_cuda_spmv_##p(const nla_cuda_launch *L, int upper,         \
        int64_t n, T alpha, const T *ap, const T *x, int64_t incx, T beta,     \
        T *y, int64_t incy)                                                    \
    {                                                                          \
        if (alpha == T(0))                                                     \
            return launch_scale<T>(L->stream, n, beta, y, incy);               \
        return spmv_launch<T>(L, upper, n, alpha, ap, x, incx, beta, y, incy); \
    }

ENTRIES(double, d)
ENTRIES(float, s)
