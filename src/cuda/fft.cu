/*
 * fft.cu - the project's own CUDA FFT: C2C, R2C and C2R, batched, any n;
 * the power-of-two engine, the real and Bluestein kernels, execution.
 *
 * Power-of-two engine (fft_pass_kernel).  A length N = 2^q transform is a
 * global Stockham autosort in P passes (P = 1 while a transform fits in one
 * block: N <= 4096 complex doubles / 8192 complex floats).  Pass p takes
 * "columns" col < N/L of length L = L_p:
 *     v[r] = x[col + r*(N/L)] * w_{Ns*L}^(r*(col % Ns)),   r < L
 *     y[(col/Ns)*Ns*L + col%Ns + r*Ns] = DFT_L(v)[r]
 * where Ns is the product of the earlier passes' lengths.  The DFT_L runs
 * inside one block: each thread holds E elements (E = 8 for double, 16 for
 * float), all the radix-E stages (and one smaller radix first when log2 L is
 * not a multiple of log2 E) run from registers, with shared memory used only
 * to exchange data between stages (an in-block Stockham, padded against bank
 * conflicts).  A block holds T units (transforms or adjacent columns), T*L
 * <= 4096/8192 elements, at most 512 threads.  Passes of a multi-pass
 * transform are at most 2^11 long, so a block reads at least 32 contiguous
 * bytes per row.  Loads gather with any stride/dist (also "real pairs" for
 * R2C), stores scatter likewise; the first pass conjugates for backward
 * transforms (backward = conj(forward(conj(x)))), the last one conjugates
 * back and applies the scale.  Twiddles are tabulated per plan, computed in
 * double on the host with exact argument reduction (sincospi).
 *
 * Mixed radix (fft_mixed.cu): every n > 1 whose prime factors are all <= 127
 * (kMixMaxGen, the CPU FFT's limit; not a power of two) runs the same
 * Stockham passes, with in-block stages of radix 2, 3, 4, 5, 7, 8, 11 and
 * 13, and generic stages (direct sums) for the odd primes 17 to 127.
 *
 * Real transforms, even n >= 2: the half-length complex FFT (power-of-two
 * or mixed-radix engine) of z_j = x_2j + i*x_2j+1 plus a post-processing
 * kernel (R2C), or a pre-processing kernel plus the half-length FFT storing
 * real pairs (C2R).  Odd n > 1 with prime factors <= 127: the mixed-radix
 * engine of length n reads the real input (R2C) or the Hermitian half (C2R)
 * and stores the half spectrum or the real part.
 *
 * Every other n (a prime factor over 127, real n = 1):
 * Bluestein.  a_j = x_j*w_j (w_m = exp(-pi*i*m^2/n)), zero-padded to
 * M = 2^ceil(log2(2n-1)), convolved with conj(w) through two forward
 * power-of-two FFTs of length M and a pointwise product with the plan's
 * precomputed FFT of the chirp, then X_k = w_k*conv_k.
 * The chirp kernels read and write the user's layout directly, including the
 * real input of R2C and the Hermitian input / real output of C2R.
 *
 * Batches run in chunks so that scratch buffers stay at most 2^24 elements
 * each (or one transform).  Execution only reads the plan, which
 * fft_plan.cu builds (fft_internal.h lists the files).
 */
#include "fft_internal.h"

#include <cstdint>

#include "launch.cuh"

using namespace nla_fft;

namespace {

/* Arguments of one pass kernel launch. */
template <typename R>
struct PassArgs {
    const R *in;          /* complex: element i of batch b at in[2*(b*id + i*is)]; */
    int64_t is, id;       /* real pairs: z_i = (in[b*id + 2i*is], in[b*id + (2i+1)*is]) */
    R *out;
    int64_t os, od;
    int in_mode, out_mode;
    int in_vec, out_vec;  /* complex elements may be moved as one aligned vector */
    int conj_in, conj_out, apply_scale;
    R scale;
    int logN, logL, logE, logNs, logT;
    int tfast;            /* thread -> (unit, j) with the unit index fastest */
    int64_t nunits;       /* (N/L) * batch */
    const cpx<R> *stw;    /* in-block stage twiddles */
    StageList st;
    const cpx<R> *tw_lo, *tw_hi;   /* w_N^m = tw_hi[m >> lo_bits] * tw_lo[m & (2^lo_bits - 1)] */
    int lo_bits;
};

/* Element idx of transform b of an input or output array: complex
   elements at base[2*(b*dist + idx*stride)], real pairs (re, im) at
   base[b*dist + 2*idx*stride] and base[b*dist + (2*idx+1)*stride].  Returns
   the address of element 0 of column/unit start `idx0`; element idx0 + r*rstep
   is r*(2*stride*rstep) further, its imaginary part `second` after it. */
template <typename R>
__device__ __forceinline__ R *elem_addr(const R *base, int mode, int64_t stride, int64_t dist, int64_t b,
                                        int64_t idx0)
{
    return const_cast<R *>(base) + (mode == IO_REALPAIR ? b * dist : 2 * b * dist) + 2 * idx0 * stride;
}

template <typename R>
__device__ __forceinline__ cpx<R> load2(const R *p, int64_t second, int vec)
{
    if (vec) return *reinterpret_cast<const cpx<R> *>(p);
    return mk(p[0], p[second]);
}

template <typename R>
__device__ __forceinline__ void store2(R *p, int64_t second, int vec, cpx<R> v)
{
    if (vec) {
        *reinterpret_cast<cpx<R> *>(p) = v;
    } else {
        p[0] = v.x;
        p[second] = v.y;
    }
}

/* Shared slot of element p of unit t (T units of L elements, padded). */
template <typename R>
__device__ __forceinline__ int sidx(const PassArgs<R> &a, int t, int p)
{
    int q = a.tfast ? (p << a.logT) + t : (t << a.logL) + p;
    return q + (q >> Prec<R>::PADSHIFT);
}

/* One radix-RAD stage of the in-block Stockham FFT.  Thread j holds
   x[j + e*Q], e < E (Q = L/E); it runs E/RAD butterflies, butterfly bq on
   x[jb + r*L/RAD] = v[bq + r*E/RAD], jb = j + bq*Q, twiddled by
   w_{Ns*RAD}^(r*(jb % Ns)), whose outputs go to
   y[(jb/Ns)*Ns*RAD + jb%Ns + r*Ns].  After the last stage (Ns*RAD == L) that
   is y[j + e*Q] = v[e] again, so the last stage needs no exchange. */
template <typename R, int E, int RAD>
__device__ __forceinline__ void fft_stage(cpx<R> (&v)[E], cpx<R> *sm, int t, int j, int logNs,
                                          const cpx<R> *tw, bool last, const PassArgs<R> &a)
{
    if constexpr (RAD <= E) {
        constexpr int G = E / RAD;
        constexpr int LOGRAD = RAD == 2 ? 1 : RAD == 4 ? 2 : RAD == 8 ? 3 : 4;
        const int logQ = a.logL - a.logE, Q = 1 << logQ, Ns = 1 << logNs;
#pragma unroll
        for (int bq = 0; bq < G; bq++) {
            const int jb = j + bq * Q;
            cpx<R> g[RAD];
#pragma unroll
            for (int r = 0; r < RAD; r++) g[r] = v[bq + r * G];
            if (logNs > 0) {
                const cpx<R> *w = tw + (jb & (Ns - 1)) * (RAD - 1);   /* w_{Ns*RAD}^(r*k), r = 1.. */
#pragma unroll
                for (int r = 1; r < RAD; r++) g[r] = cmul(g[r], ldc(w + r - 1));
            }
            nla_fft::dft<RAD>(g);
#pragma unroll
            for (int r = 0; r < RAD; r++) v[bq + r * G] = g[r];
        }
        if (!last) {
#pragma unroll
            for (int bq = 0; bq < G; bq++) {
                const int jb = j + bq * Q;
                const int base = ((jb >> logNs) << (logNs + LOGRAD)) + (jb & (Ns - 1));
#pragma unroll
                for (int r = 0; r < RAD; r++) sm[sidx(a, t, base + r * Ns)] = v[bq + r * G];
            }
            __syncthreads();
#pragma unroll
            for (int e = 0; e < E; e++) v[e] = sm[sidx(a, t, j + e * Q)];
            __syncthreads();
        }
    }
}

/* DFT_L of unit t, held as v[e] = x[j + e*Q]; leaves X[j + e*Q] in v[e]. */
template <typename R, int E>
__device__ __forceinline__ void block_fft(cpx<R> (&v)[E], cpx<R> *sm, int t, int j, const PassArgs<R> &a)
{
    int logNs = 0, twoff = 0;
    for (int s = 0; s < a.st.n; s++) {
        const int lr = a.st.log2r[s];
        const bool last = s == a.st.n - 1;
        const cpx<R> *tw = a.stw + twoff;
        switch (lr) {
        case 1: fft_stage<R, E, 2>(v, sm, t, j, logNs, tw, last, a); break;
        case 2: fft_stage<R, E, 4>(v, sm, t, j, logNs, tw, last, a); break;
        case 3: fft_stage<R, E, 8>(v, sm, t, j, logNs, tw, last, a); break;
        default: fft_stage<R, E, 16>(v, sm, t, j, logNs, tw, last, a); break;
        }
        if (logNs > 0) twoff += (1 << logNs) * ((1 << lr) - 1);
        logNs += lr;
    }
}

template <typename R, int E>
__global__ void __launch_bounds__(kMaxThreads, 2) fft_pass_kernel(const PassArgs<R> a)
{
    NLA_BOUNDS(kMaxThreads);
    NLA_EXTERN_SHARED(unsigned char, fft_smem);
    cpx<R> *sm = reinterpret_cast<cpx<R> *>(fft_smem);
    const int logQ = a.logL - a.logE, Q = 1 << logQ;
    const int logncols = a.logN - a.logL;
    /* thread -> (unit t, element row j); unit -> (batch b, column col).
       Recomputed where needed rather than kept live. */
    auto coords = [&](int *t, int *j, int64_t *b, int64_t *col) {
        const int tid = threadIdx.x;
        if (a.tfast) {
            *t = tid & ((1 << a.logT) - 1);
            *j = tid >> a.logT;
        } else {
            *t = tid >> logQ;
            *j = tid & (Q - 1);
        }
        const int64_t u = ((int64_t)blockIdx.x << a.logT) + *t;
        *b = u >> logncols;
        *col = u & (((int64_t)1 << logncols) - 1);
        return u < a.nunits;
    };
    int t, j;
    int64_t b, col;
    bool active = coords(&t, &j, &b, &col);

    cpx<R> v[E];
    {
        /* x[col + r*ncols], r = j + e*Q */
        const int64_t rstep = (2 * a.is) << logncols;
        const R *p = elem_addr(a.in, a.in_mode, a.is, a.id, b, col) + j * rstep;
        const int64_t second = a.in_mode == IO_REALPAIR ? a.is : 1;
        const int vec = a.in_mode == IO_COMPLEX && a.in_vec;
#pragma unroll
        for (int e = 0; e < E; e++) {
            cpx<R> x = mk(R(0), R(0));
            if (active) x = load2(p + e * Q * rstep, second, vec);
            if (a.conj_in) x.y = -x.y;
            v[e] = x;
        }
    }
    if (a.logNs > 0 && active) {
        /* w_{Ns*L}^(r*(col%Ns)) = w_N^(r*(col%Ns)*N/(Ns*L)) */
        const int64_t cm = col & (((int64_t)1 << a.logNs) - 1);
        const int shift = a.logN - a.logNs - a.logL;
        /* m_e = ((j + e*Q)*cm) << shift, stepped by D = (Q*cm) << shift in
           32-bit halves hi = m >> lo_bits and lo = m & lomask: no 64-bit
           product per element is live next to v[] (lo_bits and logN - lo_bits
           are at most 31 for any N the device holds) */
        const unsigned lomask = (1u << a.lo_bits) - 1;
        const int64_t m0 = ((int64_t)j * cm) << shift, D = ((int64_t)Q * cm) << shift;
        unsigned lo = (unsigned)m0 & lomask, hi = (unsigned)(m0 >> a.lo_bits);
        const unsigned dlo = (unsigned)D & lomask, dhi = (unsigned)(D >> a.lo_bits);
#pragma unroll
        for (int e = 0; e < E; e++) {
            if (e > 0) {
                lo += dlo;
                hi += dhi + (lo >> a.lo_bits);
                lo &= lomask;
            }
            v[e] = cmul(v[e], cmul(ldc(a.tw_hi + hi), ldc(a.tw_lo + lo)));
        }
    }

    /* t and j again rather than live across the twiddles (the double E = 8
       kernel spilled 32 bytes under its 64-register cap before both changes) */
    coords(&t, &j, &b, &col);
    block_fft<R, E>(v, sm, t, j, a);

    active = coords(&t, &j, &b, &col);
    if (active) {
        /* y[(col/Ns)*Ns*L + col%Ns + r*Ns], r = j + e*Q */
        const int64_t nsmask = ((int64_t)1 << a.logNs) - 1;
        const int64_t obase = ((col >> a.logNs) << (a.logNs + a.logL)) + (col & nsmask);
        const int64_t rstep = (2 * a.os) << a.logNs;
        R *p = elem_addr(a.out, a.out_mode, a.os, a.od, b, obase) + j * rstep;
        const int64_t second = a.out_mode == IO_REALPAIR ? a.os : 1;
        const int vec = a.out_mode == IO_COMPLEX && a.out_vec;
#pragma unroll
        for (int e = 0; e < E; e++) {
            cpx<R> x = v[e];
            if (a.conj_out) x.y = -x.y;
            if (a.apply_scale) x = nla_fft::scale(x, a.scale);
            store2(p + e * Q * rstep, second, vec, x);
        }
    }
}

/* ------------------------------------------------ real transforms, even n */

/* X_k = E_k + w_n^k O_k, k = 0..h, from Z = FFT_h(x_even + i x_odd):
   E_k = (Z_k + conj Z_{h-k})/2, O_k = -i (Z_k - conj Z_{h-k})/2. */
template <typename R>
__global__ void r2c_post_kernel(const cpx<R> *z, int64_t h, R *out, int64_t os, int64_t od, int out_vec,
                                const cpx<R> *tw, R scale, int64_t batch)
{
    for (int64_t b = blockIdx.y; b < batch; b += gridDim.y) {
        const cpx<R> *zb = z + b * h;
        for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k <= h;
             k += (int64_t)gridDim.x * blockDim.x) {
            cpx<R> zk = zb[k < h ? k : 0], zm = zb[k > 0 ? h - k : 0];      /* indices mod h */
            cpx<R> s = mk(zk.x + zm.x, zk.y - zm.y);          /* Z_k + conj Z_{h-k} */
            cpx<R> d = mk(zk.x - zm.x, zk.y + zm.y);          /* Z_k - conj Z_{h-k} */
            cpx<R> o = mk(d.y, -d.x);                         /* -i d */
            cpx<R> x = nla_fft::scale(s + cmul(ldc(tw + k), o), R(0.5) * scale);
            R *p = out + 2 * (b * od + k * os);
            if (out_vec) {
                *reinterpret_cast<cpx<R> *>(p) = x;
            } else {
                p[0] = x.x;
                p[1] = x.y;
            }
        }
    }
}

/* Z'_k = (X_k + conj X_{h-k}) + i conj(w_n^k) (X_k - conj X_{h-k}), k < h,
   whose inverse half-length DFT is y_2j + i y_2j+1; stores conj(Z'_k) so
   that a forward FFT and a conjugating store finish the job.  The imaginary
   parts of X_0 and X_h are ignored. */
template <typename R>
__global__ void c2r_pre_kernel(const R *in, int64_t is, int64_t id, int64_t h, cpx<R> *z, const cpx<R> *tw,
                               int64_t batch)
{
    for (int64_t b = blockIdx.y; b < batch; b += gridDim.y) {
        const R *ib = in + 2 * b * id;
        for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < h;
             k += (int64_t)gridDim.x * blockDim.x) {
            const R *pk = ib + 2 * k * is, *pm = ib + 2 * (h - k) * is;
            cpx<R> xk = mk(pk[0], k == 0 ? R(0) : pk[1]);
            cpx<R> xm = mk(pm[0], k == 0 ? R(0) : pm[1]);     /* h-k == h iff k == 0 */
            cpx<R> s = mk(xk.x + xm.x, xk.y - xm.y);
            cpx<R> d = mk(xk.x - xm.x, xk.y + xm.y);
            cpx<R> cd = cmul(nla_fft::conj(ldc(tw + k)), d);
            cpx<R> zz = mk(s.x - cd.y, s.y + cd.x);           /* s + i*cd */
            z[b * h + k] = nla_fft::conj(zz);
        }
    }
}

/* ------------------------------------------------------------- Bluestein */

enum { BL_C2C = 0, BL_R2C = 1, BL_C2R = 2 };

/* a_j = x_j w_j for j < n, 0 for n <= j < M.  x is read in the user's layout:
   complex (C2C), real (R2C) or the Hermitian half expanded (C2R). */
template <typename R>
__global__ void blue_chirp_in_kernel(const R *in, int64_t is, int64_t id, int mode, int conj_in, int64_t n,
                                     int64_t M, const cpx<R> *chirp, cpx<R> *a, int64_t batch)
{
    for (int64_t b = blockIdx.y; b < batch; b += gridDim.y) {
        for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < M;
             j += (int64_t)gridDim.x * blockDim.x) {
            cpx<R> x = mk(R(0), R(0));
            if (j < n) {
                if (mode == BL_R2C) {
                    x = mk(in[b * id + j * is], R(0));
                } else if (mode == BL_C2C) {
                    const R *p = in + 2 * (b * id + j * is);
                    x = mk(p[0], p[1]);
                } else {
                    int64_t jj = j <= n / 2 ? j : n - j;
                    const R *p = in + 2 * (b * id + jj * is);
                    bool real = jj == 0 || 2 * jj == n;
                    x = mk(p[0], real ? R(0) : (j <= n / 2 ? p[1] : -p[1]));
                }
                if (conj_in) x.y = -x.y;
                x = cmul(x, ldc(chirp + j));
            }
            a[b * M + j] = x;
        }
    }
}

/* y = conj(y * bhat): with bhat = FFT(b)/M, a forward FFT of y gives conj(conv). */
template <typename R>
__global__ void blue_mul_kernel(cpx<R> *y, const cpx<R> *bhat, int64_t M, int64_t batch)
{
    for (int64_t b = blockIdx.y; b < batch; b += gridDim.y)
        for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < M;
             k += (int64_t)gridDim.x * blockDim.x)
            y[b * M + k] = nla_fft::conj(cmul(y[b * M + k], ldc(bhat + k)));
}

/* X_k = w_k conv_k = w_k conj(c_k), k < nout, stored in the user's layout. */
template <typename R>
__global__ void blue_chirp_out_kernel(const cpx<R> *c, int64_t M, const cpx<R> *chirp, int64_t nout, int mode,
                                      int conj_out, R scale, R *out, int64_t os, int64_t od, int64_t batch)
{
    for (int64_t b = blockIdx.y; b < batch; b += gridDim.y) {
        for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nout;
             k += (int64_t)gridDim.x * blockDim.x) {
            cpx<R> x = cmul(ldc(chirp + k), nla_fft::conj(c[b * M + k]));
            if (conj_out) x.y = -x.y;
            x = nla_fft::scale(x, scale);
            if (mode == BL_C2R) {
                out[b * od + k * os] = x.x;
            } else {
                R *p = out + 2 * (b * od + k * os);
                p[0] = x.x;
                p[1] = x.y;
            }
        }
    }
}

} /* namespace */

/* Only the E = EMAX kernel uses shared memory (E < L implies E == EMAX). */
template <typename R>
cudaError_t nla_fft::set_smem_limits()
{
    constexpr size_t slots = (size_t)1 << Prec<R>::LOG_EB;
    constexpr int bytes = (int)((slots + (slots >> Prec<R>::PADSHIFT)) * sizeof(cpx<R>));
    void (*kern)(const PassArgs<R>) = fft_pass_kernel<R, 1 << Prec<R>::LOG_EMAX>;
    return cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}
template cudaError_t nla_fft::set_smem_limits<double>();
template cudaError_t nla_fft::set_smem_limits<float>();

namespace {

/* ----------------------------------------------------------- execution */

template <typename R, int E>
void launch_pass(const PassArgs<R> &a, int64_t blocks, int threads, size_t smem, cudaStream_t st)
{
    void (*kern)(const PassArgs<R>) = fft_pass_kernel<R, E>;
    NLA_LAUNCH(kern, dim3((unsigned)blocks), dim3(threads), smem, st)(a);
}

/* Run the power-of-two engine on `batch` transforms from src to dst.  With
   P > 1 the intermediate results alternate between scratch buffers x and y
   (neither may be dst; either may be the src buffer). */
template <typename R>
cudaError_t run_pow2(const Pow2 &g, int64_t batch, IoDesc src, IoDesc dst, void *x, void *y, int conj_in,
                     int conj_out, R scale, int apply_scale, cudaStream_t st)
{
    const int64_t N = (int64_t)1 << g.logN;
    const void *prev = src.ptr;
    for (int p = 0; p < g.P; p++) {
        const PassCfg &c = g.pass[p];
        IoDesc in = p == 0 ? src : IoDesc{prev, 1, N, IO_COMPLEX};
        IoDesc out = dst;
        if (p < g.P - 1) out = IoDesc{prev == x ? y : x, 1, N, IO_COMPLEX};
        PassArgs<R> a;
        a.in = static_cast<const R *>(in.ptr);
        a.is = in.stride;
        a.id = in.dist;
        a.in_mode = in.mode;
        a.out = static_cast<R *>(const_cast<void *>(out.ptr));
        a.os = out.stride;
        a.od = out.dist;
        a.out_mode = out.mode;
        a.in_vec = vec_ok(in.ptr, sizeof(cpx<R>));
        a.out_vec = vec_ok(out.ptr, sizeof(cpx<R>));
        a.conj_in = p == 0 ? conj_in : 0;
        a.conj_out = p == g.P - 1 ? conj_out : 0;
        a.apply_scale = p == g.P - 1 ? apply_scale : 0;
        a.scale = scale;
        a.logN = g.logN;
        a.logL = c.logL;
        a.logE = c.logE;
        a.logNs = c.logNs;
        a.stw = static_cast<const cpx<R> *>(c.stw);
        a.st = c.st;
        a.tw_lo = static_cast<const cpx<R> *>(g.tw_lo);
        a.tw_hi = static_cast<const cpx<R> *>(g.tw_hi);
        a.lo_bits = g.lo_bits;
        const int logQ = c.logL - c.logE;
        const int64_t ncols = N >> c.logL;
        /* units per block: fill up to 2^LOG_EB elements and kMaxThreads threads */
        int logT = Prec<R>::LOG_EB - c.logL;
        if (logT > ilog2(kMaxThreads) - logQ) logT = ilog2(kMaxThreads) - logQ;
        if (logT < 0) logT = 0;
        if (ncols == 1) {
            int lb = ilog2(batch);
            if (logT > lb) logT = lb;
            a.tfast = 0;
        } else {
            if (logT > g.logN - c.logL) logT = g.logN - c.logL;
            a.tfast = 1;
        }
        a.logT = logT;
        a.nunits = ncols * batch;
        const int64_t blocks = (a.nunits + ((int64_t)1 << logT) - 1) >> logT;
        if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
        const int threads = 1 << (logT + logQ);
        size_t smem = 0;
        if (c.logL > c.logE) {
            size_t slots = (size_t)1 << (logT + c.logL);
            smem = (slots + ((slots - 1) >> Prec<R>::PADSHIFT)) * sizeof(cpx<R>);
        }
        switch (c.logE) {
        case 0: launch_pass<R, 1>(a, blocks, threads, smem, st); break;
        case 1: launch_pass<R, 2>(a, blocks, threads, smem, st); break;
        case 2: launch_pass<R, 4>(a, blocks, threads, smem, st); break;
        case 3: launch_pass<R, 8>(a, blocks, threads, smem, st); break;
        default:
            if constexpr (Prec<R>::LOG_EMAX >= 4) launch_pass<R, 16>(a, blocks, threads, smem, st);
            break;
        }
        prev = out.ptr;
    }
    return cudaGetLastError();
}

/* The plan's engine of length n (C2C) or n/2 (real): power of two or mixed. */
template <typename R>
cudaError_t run_eng(const nla_cuda_fft *p, int64_t batch, IoDesc src, IoDesc dst, void *x, void *y, int conj_in,
                    int conj_out, R scale, int apply_scale, cudaStream_t st)
{
    if (p->mixed) {
        const int64_t nout = p->method == M_POW2 && p->kind == NLA_FFT_R2C ? p->n / 2 + 1 : p->mix.N;
        return run_mixed<R>(p->mix, batch, src, dst, x, y, conj_in, conj_out, scale, apply_scale, nout, st);
    }
    return run_pow2<R>(p->eng, batch, src, dst, x, y, conj_in, conj_out, scale, apply_scale, st);
}

/* Grid for the element-wise kernels: x over elements, y over the batch. */
void elem_grid(int64_t count, int64_t batch, dim3 *grid)
{
    int64_t gx = (count + 255) / 256;
    if (gx > 4096) gx = 4096;
    if (gx < 1) gx = 1;
    int64_t gy = batch < 65535 ? batch : 65535;
    *grid = dim3((unsigned)gx, (unsigned)gy);
}

template <typename R>
cudaError_t exec_chunk(const nla_cuda_fft *p, cudaStream_t st, const R *in, R *out, int64_t cb, void *w0,
                       void *w1, void *w2)
{
    const R scale = (R)p->scale;
    const int64_t n = p->n, len = p->len;
    dim3 grid;
    switch (p->method) {
    case M_POW2: {
        /* odd real n (mixed engine): real in, Hermitian half out or back */
        const int im = p->kind == NLA_FFT_R2C ? IO_REAL : p->kind == NLA_FFT_C2R ? IO_HERM : IO_COMPLEX;
        const int om = p->kind == NLA_FFT_C2R ? IO_REAL : IO_COMPLEX;
        return run_eng<R>(p, cb, IoDesc{in, p->is, p->id, im}, IoDesc{out, p->os, p->od, om}, w0, w1, p->backward,
                          p->backward, scale, 1, st);
    }
    case M_REAL2: {
        const int64_t h = len;
        const cpx<R> *tw = static_cast<const cpx<R> *>(p->rtw);
        if (p->kind == NLA_FFT_R2C) {
            cudaError_t e = run_eng<R>(p, cb, IoDesc{in, p->is, p->id, IO_REALPAIR}, IoDesc{w0, 1, h, IO_COMPLEX},
                                       w1, w2, 0, 0, scale, 0, st);
            if (e != cudaSuccess) return e;
            elem_grid(h + 1, cb, &grid);
            NLA_LAUNCH(r2c_post_kernel<R>, grid, dim3(256), 0, st)
            (static_cast<const cpx<R> *>(w0), h, out, p->os, p->od, vec_ok(out, sizeof(cpx<R>)), tw, scale, cb);
            return cudaGetLastError();
        }
        elem_grid(h, cb, &grid);
        NLA_LAUNCH(c2r_pre_kernel<R>, grid, dim3(256), 0, st)(in, p->is, p->id, h, static_cast<cpx<R> *>(w0), tw, cb);
        return run_eng<R>(p, cb, IoDesc{w0, 1, h, IO_COMPLEX}, IoDesc{out, p->os, p->od, IO_REALPAIR}, w1, w0, 0,
                          1, scale, 1, st);
    }
    default: {
        const int64_t M = p->M;
        const cpx<R> *chirp = static_cast<const cpx<R> *>(p->chirp);
        const int mode = p->kind == NLA_FFT_C2C ? BL_C2C : p->kind == NLA_FFT_R2C ? BL_R2C : BL_C2R;
        const int conj = p->kind == NLA_FFT_C2R || (p->kind == NLA_FFT_C2C && p->backward);
        const int64_t nout = p->kind == NLA_FFT_R2C ? n / 2 + 1 : n;
        elem_grid(M, cb, &grid);
        NLA_LAUNCH(blue_chirp_in_kernel<R>, grid, dim3(256), 0, st)
        (in, p->is, p->id, mode, conj, n, M, chirp, static_cast<cpx<R> *>(w0), cb);
        cudaError_t e = run_pow2<R>(p->eng, cb, IoDesc{w0, 1, M, IO_COMPLEX}, IoDesc{w1, 1, M, IO_COMPLEX}, w2, w0, 0,
                                    0, scale, 0, st);
        if (e != cudaSuccess) return e;
        NLA_LAUNCH(blue_mul_kernel<R>, grid, dim3(256), 0, st)
        (static_cast<cpx<R> *>(w1), static_cast<const cpx<R> *>(p->bhat), M, cb);
        e = run_pow2<R>(p->eng, cb, IoDesc{w1, 1, M, IO_COMPLEX}, IoDesc{w0, 1, M, IO_COMPLEX}, w2, w1, 0, 0, scale, 0,
                        st);
        if (e != cudaSuccess) return e;
        elem_grid(nout, cb, &grid);
        NLA_LAUNCH(blue_chirp_out_kernel<R>, grid, dim3(256), 0, st)
        (static_cast<const cpx<R> *>(w0), M, chirp, nout, mode, conj, scale, out, p->os, p->od, cb);
        return cudaGetLastError();
    }
    }
}

template <typename R>
cudaError_t exec_all(const nla_cuda_fft *p, cudaStream_t st, const void *in, void *out, void *work)
{
    /* element units of the input and output arrays, in R */
    const int64_t iu = p->kind == NLA_FFT_R2C ? 1 : 2, ou = p->kind == NLA_FFT_C2R ? 1 : 2;
    char *wb = static_cast<char *>(work);
    void *w[3] = {nullptr, nullptr, nullptr};
    for (int i = 0; i < p->nbuf; i++) w[i] = wb + i * p->buf_bytes;
    for (int64_t b0 = 0; b0 < p->howmany; b0 += p->chunk) {
        int64_t cb = p->howmany - b0 < p->chunk ? p->howmany - b0 : p->chunk;
        const R *ib = static_cast<const R *>(in) + b0 * p->id * iu;
        R *ob = static_cast<R *>(out) + b0 * p->od * ou;
        cudaError_t e = exec_chunk<R>(p, st, ib, ob, cb, w[0], w[1], w[2]);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

} /* namespace */

extern "C" cudaError_t nla_cuda_fft_exec(const nla_cuda_fft *plan, cudaStream_t st, const void *in, void *out,
                                         void *work)
{
    if (!plan || !in || !out || (plan->nbuf > 0 && !work)) return cudaErrorInvalidValue;
    return plan->prec == NLA_DOUBLE ? exec_all<double>(plan, st, in, out, work)
                                    : exec_all<float>(plan, st, in, out, work);
}
