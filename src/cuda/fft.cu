/*
 * fft.cu - the project's own CUDA FFT: C2C, R2C and C2R, batched, any n.
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
 * Real transforms, n = 2^q >= 2: the half-length complex FFT of
 * z_j = x_2j + i*x_2j+1 plus a post-processing kernel (R2C), or a
 * pre-processing kernel plus the half-length FFT storing real pairs (C2R).
 *
 * Every other n (and real n = 1): Bluestein.  a_j = x_j*w_j (w_m =
 * exp(-pi*i*m^2/n)), zero-padded to M = 2^ceil(log2(2n-1)), convolved with
 * conj(w) through two forward power-of-two FFTs of length M and a pointwise
 * product with the plan's precomputed FFT of the chirp, then X_k = w_k*conv_k.
 * The chirp kernels read and write the user's layout directly, including the
 * real input of R2C and the Hermitian input / real output of C2R.
 *
 * Batches run in chunks so that scratch buffers stay at most 2^24 elements
 * each (or one transform).  Execution only reads the plan.
 */
#include "cuda_kernels.h"

#include "fft_radix.cuh"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "launch.cuh"

using nla_fft::cpx;
using nla_fft::mk;

namespace {

constexpr int kMaxPasses = 4;
constexpr int kMaxStages = 16;
constexpr int kMaxThreads = 512;
constexpr int kPassLog2Max = 11;            /* longest pass of a multi-pass transform */
/* Tests may force multi-pass plans at small sizes: a transform of 2^q with
   q > NLA_FFT_TEST_SPLIT runs in passes of at most 2^NLA_FFT_TEST_SPLIT. */
#ifdef NLA_FFT_TEST_SPLIT
constexpr int kTestSplit = NLA_FFT_TEST_SPLIT;
#else
constexpr int kTestSplit = 0;
#endif
constexpr int64_t kChunkElems = (int64_t)1 << 24;

/* Per-precision tuning: elements per thread, elements per block, shared
   padding (one slot every 2^PADSHIFT elements), minimum columns per block. */
template <typename R> struct Prec;
template <> struct Prec<double> {
    static constexpr int LOG_EMAX = 3, LOG_EB = 12, PADSHIFT = 3;
};
template <> struct Prec<float> {
    static constexpr int LOG_EMAX = 4, LOG_EB = 13, PADSHIFT = 4;
};

enum { IO_COMPLEX = 0, IO_REALPAIR = 1 };

struct StageList {
    int n;
    int log2r[kMaxStages];
};

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

/* read-only (table) loads */
__device__ __forceinline__ cpx<double> ldc(const cpx<double> *p)
{
    double2 v = __ldg(reinterpret_cast<const double2 *>(p));
    return mk(v.x, v.y);
}
__device__ __forceinline__ cpx<float> ldc(const cpx<float> *p)
{
    float2 v = __ldg(reinterpret_cast<const float2 *>(p));
    return mk(v.x, v.y);
}

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

/* ------------------------------------------ real transforms, n = 2^q >= 2 */

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
            cpx<R> zk = zb[k & (h - 1)], zm = zb[(h - k) & (h - 1)];
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

/* ------------------------------------------------------------ host side */

int ilog2(int64_t x)
{
    int l = 0;
    while (((int64_t)1 << l) < x) l++;
    return l;
}
bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/* (sin, cos)(pi*num/den) with the argument reduced exactly (num, den >= 0). */
void sincospi_frac(int64_t num, int64_t den, double *s, double *c)
{
    num %= 2 * den;                                 /* [0, 2den) */
    int64_t q = (4 * num + den) / (2 * den);        /* nearest multiple of 1/2: 0..4 */
    double f = (double)(2 * num - q * den) / (double)(2 * den);   /* [-1/4, 1/4] */
    const double pi = 3.14159265358979323846264338327950288;
    double sf = std::sin(pi * f), cf = std::cos(pi * f);
    switch (q & 3) {
    case 0: *s = sf; *c = cf; break;
    case 1: *s = cf; *c = -sf; break;
    case 2: *s = -sf; *c = -cf; break;
    default: *s = -cf; *c = sf; break;
    }
}

/* exp(-2*pi*i*m/N) */
void twiddle(int64_t m, int64_t N, double *re, double *im)
{
    double s, c;
    sincospi_frac(2 * m, N, &s, &c);
    *re = c;
    *im = -s;
}

struct PassCfg {
    int logL, logE, logNs;
    StageList st;
    const void *stw;      /* device stage twiddles (NULL when one stage) */
};

/* A power-of-two forward C2C engine of length 2^logN. */
struct Pow2 {
    int logN = 0, P = 0;
    PassCfg pass[kMaxPasses];
    const void *tw_lo = nullptr, *tw_hi = nullptr;
    int lo_bits = 0;
};

} /* namespace */

enum { M_POW2 = 0, M_REAL2 = 1, M_BLUE = 2 };

struct nla_cuda_fft {
    nla_fft_kind kind;
    nla_precision prec;
    int backward;            /* C2C backward (C2R is always backward, R2C forward) */
    int64_t n, howmany, is, id, os, od;
    double scale;
    int method;
    Pow2 eng;                /* length n (POW2), n/2 (REAL2) or M (BLUE) */
    int64_t len;             /* eng length */
    int64_t M;
    const void *chirp, *bhat, *rtw;
    int64_t chunk;           /* transforms per chunk */
    int nbuf;
    size_t buf_bytes;
    std::vector<void *> allocs;
};

namespace {

template <typename R>
cudaError_t upload(nla_cuda_fft *p, const std::vector<cpx<R>> &h, const void **dst)
{
    void *d = nullptr;
    cudaError_t e = cudaMalloc(&d, h.size() * sizeof(cpx<R>));
    if (e != cudaSuccess) return e;
    p->allocs.push_back(d);
    e = cudaMemcpy(d, h.data(), h.size() * sizeof(cpx<R>), cudaMemcpyHostToDevice);
    *dst = d;
    return e;
}

StageList stages_for(int logL, int logE)
{
    StageList s;
    s.n = 0;
    if (logL == 0) return s;
    int rem = logL % logE;
    if (rem) s.log2r[s.n++] = rem;
    for (int i = 0; i < logL / logE; i++) s.log2r[s.n++] = logE;
    return s;
}

template <typename R>
cudaError_t build_pow2(nla_cuda_fft *p, int logN, Pow2 *g)
{
    g->logN = logN;
    const int single = kTestSplit > 0 ? kTestSplit : Prec<R>::LOG_EB;
    const int passmax = kTestSplit > 0 ? kTestSplit : kPassLog2Max;
    if (logN <= single) {
        g->P = 1;
        g->pass[0].logL = logN;
    } else {
        g->P = (logN + passmax - 1) / passmax;
        if (g->P > kMaxPasses) return cudaErrorInvalidValue;
        for (int i = 0; i < g->P; i++) g->pass[i].logL = logN / g->P + (i < logN % g->P ? 1 : 0);
    }
    int logNs = 0;
    for (int i = 0; i < g->P; i++) {
        PassCfg &c = g->pass[i];
        c.logE = c.logL < Prec<R>::LOG_EMAX ? c.logL : Prec<R>::LOG_EMAX;
        c.logNs = logNs;
        logNs += c.logL;
        c.st = stages_for(c.logL, c.logE);
        c.stw = nullptr;
        /* stage s >= 1 of radix Rs after Ns: w_{Ns*Rs}^(r*k), k < Ns, 1 <= r < Rs */
        std::vector<cpx<R>> tw;
        int lns = 0;
        for (int s = 0; s < c.st.n; s++) {
            int64_t ns = (int64_t)1 << lns, rs = (int64_t)1 << c.st.log2r[s];
            if (s > 0)
                for (int64_t k = 0; k < ns; k++)
                    for (int64_t r = 1; r < rs; r++) {
                        double re, im;
                        twiddle(r * k, ns * rs, &re, &im);
                        tw.push_back(mk((R)re, (R)im));
                    }
            lns += c.st.log2r[s];
        }
        if (!tw.empty()) {
            cudaError_t e = upload(p, tw, &c.stw);
            if (e != cudaSuccess) return e;
        }
    }
    if (g->P > 1) {
        int64_t N = (int64_t)1 << logN;
        g->lo_bits = (logN + 1) / 2;
        std::vector<cpx<R>> lo((size_t)1 << g->lo_bits), hi((size_t)1 << (logN - g->lo_bits));
        for (size_t m = 0; m < lo.size(); m++) {
            double re, im;
            twiddle((int64_t)m, N, &re, &im);
            lo[m] = mk((R)re, (R)im);
        }
        for (size_t m = 0; m < hi.size(); m++) {
            double re, im;
            twiddle((int64_t)m << g->lo_bits, N, &re, &im);
            hi[m] = mk((R)re, (R)im);
        }
        cudaError_t e = upload(p, lo, &g->tw_lo);
        if (e == cudaSuccess) e = upload(p, hi, &g->tw_hi);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

/* In-place iterative radix-2 forward FFT in double (host, for the plan's
   Bluestein kernel spectrum). */
void host_fft(std::vector<double> &re, std::vector<double> &im)
{
    size_t n = re.size();
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            std::swap(re[i], re[j]);
            std::swap(im[i], im[j]);
        }
    }
    std::vector<double> wr(n / 2 + 1), wi(n / 2 + 1);
    for (size_t k = 0; k < n / 2; k++) twiddle((int64_t)k, (int64_t)n, &wr[k], &wi[k]);
    for (size_t len = 2; len <= n; len <<= 1) {
        size_t step = n / len;
        for (size_t i = 0; i < n; i += len)
            for (size_t k = 0; k < len / 2; k++) {
                double c = wr[k * step], s = wi[k * step];
                size_t a = i + k, b = i + k + len / 2;
                double xr = re[b] * c - im[b] * s, xi = re[b] * s + im[b] * c;
                re[b] = re[a] - xr;
                im[b] = im[a] - xi;
                re[a] += xr;
                im[a] += xi;
            }
    }
}

/* Only the E = EMAX kernel uses shared memory (E < L implies E == EMAX). */
template <typename R>
cudaError_t set_smem_limits()
{
    constexpr size_t slots = (size_t)1 << Prec<R>::LOG_EB;
    constexpr int bytes = (int)((slots + (slots >> Prec<R>::PADSHIFT)) * sizeof(cpx<R>));
    void (*kern)(const PassArgs<R>) = fft_pass_kernel<R, 1 << Prec<R>::LOG_EMAX>;
    return cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}

template <typename R>
cudaError_t create_tables(nla_cuda_fft *p)
{
    cudaError_t e = set_smem_limits<R>();
    if (e != cudaSuccess) return e;
    const int64_t n = p->n;
    if (p->method == M_POW2) {
        p->len = n;
        return build_pow2<R>(p, ilog2(n), &p->eng);
    }
    if (p->method == M_REAL2) {
        int64_t h = n / 2;
        p->len = h;
        std::vector<cpx<R>> tw((size_t)h + 1);
        for (int64_t k = 0; k <= h; k++) {
            double re, im;
            twiddle(k, n, &re, &im);
            tw[(size_t)k] = mk((R)re, (R)im);
        }
        e = upload(p, tw, &p->rtw);
        if (e != cudaSuccess) return e;
        return build_pow2<R>(p, ilog2(h), &p->eng);
    }
    /* Bluestein */
    int64_t M = 1;
    while (M < 2 * n - 1) M <<= 1;
    p->M = M;
    p->len = M;
    std::vector<cpx<R>> chirp((size_t)n);
    std::vector<double> br((size_t)M, 0.0), bi((size_t)M, 0.0);
    for (int64_t m = 0; m < n; m++) {
        /* w_m = exp(-pi*i*m^2/n), m^2 reduced mod 2n exactly */
        int64_t sq = (int64_t)(((unsigned __int128)m * (unsigned __int128)m) % (unsigned __int128)(2 * n));
        double s, c;
        sincospi_frac(sq, n, &s, &c);
        chirp[(size_t)m] = mk((R)c, (R)-s);
        br[(size_t)m] = c;     /* b_m = conj(w_m) */
        bi[(size_t)m] = s;
        if (m > 0) {
            br[(size_t)(M - m)] = c;
            bi[(size_t)(M - m)] = s;
        }
    }
    host_fft(br, bi);
    std::vector<cpx<R>> bhat((size_t)M);
    for (int64_t k = 0; k < M; k++) bhat[(size_t)k] = mk((R)(br[(size_t)k] / (double)M), (R)(bi[(size_t)k] / (double)M));
    e = upload(p, chirp, &p->chirp);
    if (e == cudaSuccess) e = upload(p, bhat, &p->bhat);
    if (e != cudaSuccess) return e;
    return build_pow2<R>(p, ilog2(M), &p->eng);
}

/* ----------------------------------------------------------- execution */

struct IoDesc {
    const void *ptr;
    int64_t stride, dist;
    int mode;
};

template <typename R, int E>
void launch_pass(const PassArgs<R> &a, int64_t blocks, int threads, size_t smem, cudaStream_t st)
{
    void (*kern)(const PassArgs<R>) = fft_pass_kernel<R, E>;
    NLA_LAUNCH(kern, dim3((unsigned)blocks), dim3(threads), smem, st)(a);
}

bool vec_ok(const void *p, int64_t stride, int64_t dist, size_t align)
{
    (void)stride;
    (void)dist;
    return (reinterpret_cast<uintptr_t>(p) & (align - 1)) == 0;
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
        a.in_vec = vec_ok(in.ptr, in.stride, in.dist, sizeof(cpx<R>));
        a.out_vec = vec_ok(out.ptr, out.stride, out.dist, sizeof(cpx<R>));
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
    case M_POW2:
        return run_pow2<R>(p->eng, cb, IoDesc{in, p->is, p->id, IO_COMPLEX}, IoDesc{out, p->os, p->od, IO_COMPLEX},
                           w0, w1, p->backward, p->backward, scale, 1, st);
    case M_REAL2: {
        const int64_t h = len;
        const cpx<R> *tw = static_cast<const cpx<R> *>(p->rtw);
        if (p->kind == NLA_FFT_R2C) {
            cudaError_t e = run_pow2<R>(p->eng, cb, IoDesc{in, p->is, p->id, IO_REALPAIR},
                                        IoDesc{w0, 1, h, IO_COMPLEX}, w1, w2, 0, 0, scale, 0, st);
            if (e != cudaSuccess) return e;
            elem_grid(h + 1, cb, &grid);
            NLA_LAUNCH(r2c_post_kernel<R>, grid, dim3(256), 0, st)
            (static_cast<const cpx<R> *>(w0), h, out, p->os, p->od, vec_ok(out, 0, 0, sizeof(cpx<R>)), tw, scale, cb);
            return cudaGetLastError();
        }
        elem_grid(h, cb, &grid);
        NLA_LAUNCH(c2r_pre_kernel<R>, grid, dim3(256), 0, st)(in, p->is, p->id, h, static_cast<cpx<R> *>(w0), tw, cb);
        return run_pow2<R>(p->eng, cb, IoDesc{w0, 1, h, IO_COMPLEX}, IoDesc{out, p->os, p->od, IO_REALPAIR}, w1, w0,
                           0, 1, scale, 1, st);
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

extern "C" cudaError_t nla_cuda_fft_create(const nla_fft_desc *desc, nla_cuda_fft **plan)
{
    if (!desc || !plan) return cudaErrorInvalidValue;
    *plan = nullptr;
    const nla_fft_desc &d = *desc;
    if (d.kind != NLA_FFT_C2C && d.kind != NLA_FFT_R2C && d.kind != NLA_FFT_C2R) return cudaErrorInvalidValue;
    if (d.precision != NLA_DOUBLE && d.precision != NLA_FLOAT) return cudaErrorInvalidValue;
    if (d.n < 1 || d.howmany < 1 || d.istride < 1 || d.ostride < 1 || d.idist < 1 || d.odist < 1 ||
        d.scale == 0.0 || d.n > ((int64_t)1 << 40))
        return cudaErrorInvalidValue;
    nla_cuda_fft *p = new (std::nothrow) nla_cuda_fft();
    if (!p) return cudaErrorMemoryAllocation;
    p->kind = d.kind;
    p->prec = d.precision;
    p->backward = d.kind == NLA_FFT_C2R || (d.kind == NLA_FFT_C2C && d.direction == NLA_FFT_BACKWARD);
    p->n = d.n;
    p->howmany = d.howmany;
    p->is = d.istride;
    p->id = d.idist;
    p->os = d.ostride;
    p->od = d.odist;
    p->scale = d.scale;
    p->chirp = p->bhat = p->rtw = nullptr;
    p->M = 0;
    if (d.kind == NLA_FFT_C2C)
        p->method = is_pow2(d.n) ? M_POW2 : M_BLUE;
    else
        p->method = is_pow2(d.n) && d.n >= 2 ? M_REAL2 : M_BLUE;
    cudaError_t e = d.precision == NLA_DOUBLE ? create_tables<double>(p) : create_tables<float>(p);
    /* The tables went up with cudaMemcpy from pageable memory, which may
       return before the DMA lands, on stream 0, which a non-blocking
       context stream does not wait for: the plan is ready once it lands. */
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(0);
    if (e != cudaSuccess) {
        nla_cuda_fft_destroy(p);
        return e;
    }
    /* scratch buffers per chunk (see exec_chunk) */
    const int P = p->eng.P;
    if (p->method == M_POW2) p->nbuf = P == 1 ? 0 : P == 2 ? 1 : 2;
    else if (p->method == M_REAL2) p->nbuf = p->kind == NLA_FFT_R2C ? (P >= 3 ? 3 : P) : (P == 1 ? 1 : 2);
    else p->nbuf = P == 1 ? 2 : 3;
    p->chunk = p->howmany;
    if (p->nbuf > 0) {
        int64_t c = kChunkElems / p->len;
        if (c < 1) c = 1;
        if (c < p->chunk) p->chunk = c;
    }
    const size_t elem = d.precision == NLA_DOUBLE ? 16 : 8;
    p->buf_bytes = ((size_t)p->chunk * (size_t)p->len * elem + 255) & ~(size_t)255;
    *plan = p;
    return cudaSuccess;
}

extern "C" size_t nla_cuda_fft_workspace(const nla_cuda_fft *plan)
{
    return plan ? (size_t)plan->nbuf * plan->buf_bytes : 0;
}

extern "C" cudaError_t nla_cuda_fft_exec(const nla_cuda_fft *plan, cudaStream_t st, const void *in, void *out,
                                         void *work)
{
    if (!plan || !in || !out || (plan->nbuf > 0 && !work)) return cudaErrorInvalidValue;
    return plan->prec == NLA_DOUBLE ? exec_all<double>(plan, st, in, out, work)
                                    : exec_all<float>(plan, st, in, out, work);
}

extern "C" void nla_cuda_fft_destroy(nla_cuda_fft *plan)
{
    if (!plan) return;
    for (void *d : plan->allocs) cudaFree(d);
    delete plan;
}
