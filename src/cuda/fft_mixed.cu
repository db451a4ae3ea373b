/*
 * fft_mixed.cu - the mixed-radix engine of the CUDA FFT: forward C2C of a
 * length N > 1, not a power of two, whose prime factors are all <= 127
 * (kMixMaxGen, the CPU FFT's NLA_FFT_MAX_GEN).
 *
 * The same global Stockham autosort as the power-of-two engine (fft.cu):
 * N = L_1 * ... * L_P, and pass p takes the columns col < N/L (L = L_p, Ns
 * the product of the earlier L's):
 *     v[r] = x[col + r*(N/L)] * w_{Ns*L}^(r*(col % Ns)),   r < L
 *     y[(col/Ns)*Ns*L + col%Ns + r*Ns] = DFT_L(v)[r]
 * P = 1 while N <= MIX_EB (2048 complex doubles, 4096 complex floats); the
 * passes of a longer transform are at most MIX_EB/4 long (fft_plan.cu).
 * A block holds T units (transforms or adjacent columns), T*L <= MIX_EB.
 * The DFT_L is an in-block Stockham of radix 2, 3, 4, 5, 7, 8, 11 and 13
 * stages (fft_radix.cuh) and generic stages of the odd primes 17 to 127,
 * between two shared buffers: a stage reads one and writes the other, then
 * the block synchronizes, so no thread ever writes a buffer that another
 * may still read.  Threads stride over the elements (loads, stores) and
 * over the butterflies of each stage (the pairs of a butterfly and an
 * output for a generic stage, mix_gen_stage), so any L and T run on one
 * block shape.  The global twiddle w_N^m, m = r*(col%Ns)*N/(Ns*L)
 * < N, is the product of two table entries (hi/lo split of m); stage
 * twiddles are per-pass tables, and so are the roots w_p^e (e < p) of
 * the generic stages.  All tables are computed in double on the
 * host (fft_plan.cu).  Loads and stores take the strided, batched, real-pair,
 * conjugating and scaling forms of the power-of-two engine, and two more
 * for R2C and C2R of odd n, which run the complex transform of length n: a
 * real input or output, and a Hermitian input read from its first n/2+1
 * elements; R2C stores only the first n/2+1 outputs.
 */
#include "fft_internal.h"

#include <cstdint>

#include "launch.cuh"

using namespace nla_fft;

namespace {

/* Arguments of one mixed-radix pass launch (layouts as in fft.cu's PassArgs). */
template <typename R>
struct MixArgs {
    const R *in;          /* complex: element i of batch b at in[2*(b*id + i*is)]; */
    int64_t is, id;       /* real pairs: z_i = (in[b*id + 2i*is], in[b*id + (2i+1)*is]) */
    R *out;
    int64_t os, od;
    int in_mode, out_mode;
    int64_t nout;         /* elements stored per transform: those with index < nout */
    int conj_in, conj_out, apply_scale;
    R scale;
    int64_t N, Ns, ncols, nunits;   /* ncols = N/L columns, nunits = ncols * batch */
    int64_t twstep;                  /* N/(Ns*L): w_{Ns*L}^e = w_N^(e*twstep) */
    int L, T, pitch, tfast;         /* units per block, shared row pitch, loads by unit index fastest */
    int nst;
    int rad[kMixMaxStages];
    const cpx<R> *stw;              /* stage twiddles, laid out as in fft.cu */
    const cpx<R> *groots;           /* w_p^e, e < p, for each generic stage in turn */
    const cpx<R> *tw_lo, *tw_hi;    /* w_N^m = tw_hi[m >> lo_bits] * tw_lo[m & (2^lo_bits - 1)] */
    int lo_bits;
};

/* Element q of the block -> unit t and row r, the unit index fastest or
   the row. */
template <typename R>
__device__ __forceinline__ void unit_row(const MixArgs<R> &a, bool tfast, int q, int *t, int *r)
{
    if (tfast) {
        *t = q % a.T;
        *r = q / a.T;
    } else {
        *t = q / a.L;
        *r = q - *t * a.L;
    }
}

/* Element idx of transform b of the input (forms: IO_* in fft_internal.h). */
template <typename R>
__device__ __forceinline__ cpx<R> mix_load(const MixArgs<R> &a, int64_t b, int64_t idx)
{
    switch (a.in_mode) {
    case IO_REALPAIR: {
        const R *p = a.in + b * a.id + 2 * idx * a.is;
        return mk(p[0], p[a.is]);
    }
    case IO_REAL: return mk(a.in[b * a.id + idx * a.is], R(0));
    case IO_HERM: {
        const bool lo = 2 * idx <= a.N;
        const int64_t j = lo ? idx : a.N - idx;
        const R *p = a.in + 2 * (b * a.id + j * a.is);
        return mk(p[0], j == 0 || 2 * j == a.N ? R(0) : lo ? p[1] : -p[1]);
    }
    default: {
        const R *p = a.in + 2 * (b * a.id + idx * a.is);
        return mk(p[0], p[1]);
    }
    }
}

template <typename R>
__device__ __forceinline__ void mix_store(const MixArgs<R> &a, int64_t b, int64_t idx, cpx<R> x)
{
    if (a.out_mode == IO_REAL) {
        a.out[b * a.od + idx * a.os] = x.x;
    } else if (a.out_mode == IO_REALPAIR) {
        R *p = a.out + b * a.od + 2 * idx * a.os;
        p[0] = x.x;
        p[a.os] = x.y;
    } else {
        R *p = a.out + 2 * (b * a.od + idx * a.os);
        p[0] = x.x;
        p[1] = x.y;
    }
}

/* One radix-RAD stage of the in-block Stockham DFT of each unit, after
   stages whose radices multiply to ns: butterfly jb < L/RAD takes
   x[jb + r*L/RAD] twiddled by w_{ns*RAD}^(r*(jb % ns)) and writes its
   outputs to y[(jb/ns)*ns*RAD + jb%ns + r*ns]. */
template <typename R, int RAD>
__device__ __forceinline__ void mix_stage(const cpx<R> *src, cpx<R> *dst, int ns, const cpx<R> *tw,
                                          const MixArgs<R> &a)
{
    const int m = a.L / RAD;
    for (int i = threadIdx.x; i < a.T * m; i += blockDim.x) {
        const int t = i / m, jb = i - t * m, k = jb % ns;
        const cpx<R> *x = src + t * a.pitch + jb;
        cpx<R> g[RAD];
#pragma unroll
        for (int r = 0; r < RAD; r++) g[r] = x[r * m];
        if (ns > 1) {
            const cpx<R> *w = tw + k * (RAD - 1);
#pragma unroll
            for (int r = 1; r < RAD; r++) g[r] = cmul(g[r], ldc(w + r - 1));
        }
        nla_fft::dft<RAD>(g);
        cpx<R> *y = dst + t * a.pitch + (jb - k) * RAD + k;
#pragma unroll
        for (int r = 0; r < RAD; r++) y[r * ns] = g[r];
    }
}

/* The same butterflies for an odd prime p over kMixMaxOdd (no in-register
   DFT), each output a direct sum.  With v_j the twiddled inputs, h =
   (p-1)/2, a_j = v_j + v_(p-j), b_j = v_j - v_(p-j) and w_p^e = c_e - i*s_e
   (roots[e]):
       X_0 = v_0 + sum_{j=1..h} a_j
       X_k, X_(p-k) = v_0 + sum_{j=1..h} a_j c_jk -/+ i sum_{j=1..h} b_j s_jk
   for 1 <= k <= h, the roots taken at e = jk mod p.  Threads stride over
   the items (butterfly jb, k <= h), jb fastest; item k writes X_k and, for
   k > 0, X_(p-k).  After earlier stages (ns > 1) the inputs are twiddled
   in place in src first, each by one thread, and the block synchronizes
   before the sums read them. */
template <typename R>
__device__ __forceinline__ void mix_gen_stage(cpx<R> *src, cpx<R> *dst, int p, int ns, const cpx<R> *tw,
                                              const cpx<R> *roots, const MixArgs<R> &a)
{
    const int m = a.L / p, h = (p - 1) / 2, tm = a.T * m;
    if (ns > 1) {
        for (int i = threadIdx.x; i < tm * (p - 1); i += blockDim.x) {
            const int r = 1 + i / tm, u = i - (r - 1) * tm, t = u / m, jb = u - t * m;
            cpx<R> *x = src + t * a.pitch + jb + r * m;
            *x = cmul(*x, ldc(tw + (jb % ns) * (p - 1) + r - 1));
        }
        __syncthreads();
    }
    for (int i = threadIdx.x; i < tm * (h + 1); i += blockDim.x) {
        const int k = i / tm, u = i - k * tm, t = u / m, jb = u - t * m, kb = jb % ns;
        const cpx<R> *x = src + t * a.pitch + jb;
        cpx<R> re = x[0], im = mk(R(0), R(0));    /* im: sum b_j * (-s_jk) */
        int e = 0;
        for (int j = 1; j <= h; j++) {
            e += k;
            if (e >= p) e -= p;
            const cpx<R> v = x[j * m], vr = x[(p - j) * m], w = ldc(roots + e);
            const cpx<R> s = v + vr, d = v - vr;
            re.x = fma(s.x, w.x, re.x);
            re.y = fma(s.y, w.x, re.y);
            im.x = fma(d.x, w.y, im.x);
            im.y = fma(d.y, w.y, im.y);
        }
        cpx<R> *y = dst + t * a.pitch + (jb - kb) * p + kb;
        y[k * ns] = mk(re.x - im.y, re.y + im.x);               /* re + i*im */
        if (k > 0) y[(p - k) * ns] = mk(re.x + im.y, re.y - im.x);   /* re - i*im */
    }
}

template <typename R>
__global__ void __launch_bounds__(kMixThreads) fft_mixed_kernel(const MixArgs<R> a)
{
    NLA_BOUNDS(kMixThreads);
    NLA_EXTERN_SHARED(unsigned char, fft_mix_smem);
    cpx<R> *src = reinterpret_cast<cpx<R> *>(fft_mix_smem);
    cpx<R> *dst = src + a.T * a.pitch;
    const int TL = a.T * a.L;
    const int64_t u0 = (int64_t)blockIdx.x * a.T;

    /* v[r] = x[col + r*ncols] * w_{Ns*L}^(r*(col%Ns)) into src */
    for (int q = threadIdx.x; q < TL; q += blockDim.x) {
        int t, r;
        unit_row(a, a.tfast, q, &t, &r);
        const int64_t u = u0 + t;
        cpx<R> x = mk(R(0), R(0));
        if (u < a.nunits) {
            const int64_t b = u / a.ncols, col = u - b * a.ncols;
            x = mix_load(a, b, col + r * a.ncols);
            if (a.conj_in) x.y = -x.y;
            if (a.Ns > 1) {
                const int64_t e = (int64_t)r * (col % a.Ns) * a.twstep;    /* < N */
                const cpx<R> w = cmul(ldc(a.tw_hi + (e >> a.lo_bits)), ldc(a.tw_lo + (e & ((1 << a.lo_bits) - 1))));
                x = cmul(x, w);
            }
        }
        src[t * a.pitch + r] = x;
    }
    __syncthreads();

    int ns = 1;
    const cpx<R> *tw = a.stw, *roots = a.groots;
    for (int s = 0; s < a.nst; s++) {
        const int rad = a.rad[s];
        switch (rad) {
        case 2: mix_stage<R, 2>(src, dst, ns, tw, a); break;
        case 3: mix_stage<R, 3>(src, dst, ns, tw, a); break;
        case 4: mix_stage<R, 4>(src, dst, ns, tw, a); break;
        case 5: mix_stage<R, 5>(src, dst, ns, tw, a); break;
        case 7: mix_stage<R, 7>(src, dst, ns, tw, a); break;
        case 8: mix_stage<R, 8>(src, dst, ns, tw, a); break;
        case 11: mix_stage<R, 11>(src, dst, ns, tw, a); break;
        case 13: mix_stage<R, 13>(src, dst, ns, tw, a); break;
        default:
            mix_gen_stage<R>(src, dst, rad, ns, tw, roots, a);
            roots += rad;
            break;
        }
        /* every read of src and write of dst of this stage is done before
           the next stage writes src */
        __syncthreads();
        if (ns > 1) tw += ns * (rad - 1);
        ns *= rad;
        cpx<R> *tmp = src;
        src = dst;
        dst = tmp;
    }

    /* y[(col/Ns)*Ns*L + col%Ns + r*Ns] = DFT_L(v)[r] from src: adjacent
       columns are adjacent there when Ns > 1, the rows of a unit when not */
    for (int q = threadIdx.x; q < TL; q += blockDim.x) {
        int t, r;
        unit_row(a, a.Ns > 1, q, &t, &r);
        const int64_t u = u0 + t;
        if (u < a.nunits) {
            const int64_t b = u / a.ncols, col = u - b * a.ncols, cm = col % a.Ns;
            const int64_t idx = (col - cm) * a.L + cm + r * a.Ns;
            cpx<R> x = src[t * a.pitch + r];
            if (a.conj_out) x.y = -x.y;
            if (a.apply_scale) x = nla_fft::scale(x, a.scale);
            if (idx < a.nout) mix_store(a, b, idx, x);
        }
    }
}

constexpr size_t mix_smem_bytes(size_t elem) { return 2 * elem; }

} /* namespace */

template <typename R>
cudaError_t nla_fft::set_mixed_smem_limits()
{
    constexpr int bytes = (int)mix_smem_bytes((size_t)Prec<R>::MIX_EB * sizeof(cpx<R>));
    void (*kern)(const MixArgs<R>) = fft_mixed_kernel<R>;
    return cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}

template <typename R>
cudaError_t nla_fft::run_mixed(const Mixed &g, int64_t batch, IoDesc src, IoDesc dst, void *x, void *y,
                               int conj_in, int conj_out, R scale, int apply_scale, int64_t nout, cudaStream_t st)
{
    const int64_t N = g.N;
    const void *prev = src.ptr;
    for (int p = 0; p < g.P; p++) {
        const MixPass &c = g.pass[p];
        IoDesc in = p == 0 ? src : IoDesc{prev, 1, N, IO_COMPLEX};
        IoDesc out = dst;
        if (p < g.P - 1) out = IoDesc{prev == x ? y : x, 1, N, IO_COMPLEX};
        MixArgs<R> a;
        a.in = static_cast<const R *>(in.ptr);
        a.is = in.stride;
        a.id = in.dist;
        a.in_mode = in.mode;
        a.out = static_cast<R *>(const_cast<void *>(out.ptr));
        a.os = out.stride;
        a.od = out.dist;
        a.out_mode = out.mode;
        a.nout = p == g.P - 1 ? nout : N;
        a.conj_in = p == 0 ? conj_in : 0;
        a.conj_out = p == g.P - 1 ? conj_out : 0;
        a.apply_scale = p == g.P - 1 ? apply_scale : 0;
        a.scale = scale;
        a.N = N;
        a.Ns = c.Ns;
        a.L = c.L;
        a.ncols = N / c.L;
        a.twstep = N / (c.Ns * c.L);
        a.nunits = a.ncols * batch;
        a.nst = c.nst;
        for (int s = 0; s < c.nst; s++) a.rad[s] = c.rad[s];
        a.stw = static_cast<const cpx<R> *>(c.stw);
        a.groots = static_cast<const cpx<R> *>(c.groots);
        a.tw_lo = static_cast<const cpx<R> *>(g.tw_lo);
        a.tw_hi = static_cast<const cpx<R> *>(g.tw_hi);
        a.lo_bits = g.lo_bits;
        /* units per block: rows of L (odd pitch against bank conflicts when
           several) filling MIX_EB elements; adjacent columns are adjacent
           in memory, so the unit index runs fastest unless one column */
        int64_t T = c.L == Prec<R>::MIX_EB ? 1 : Prec<R>::MIX_EB / (c.L | 1);
        if (T > a.nunits) T = a.nunits;
        if (T < 1) T = 1;
        a.T = (int)T;
        a.pitch = T > 1 ? c.L | 1 : c.L;
        a.tfast = a.ncols > 1;
        const int64_t blocks = (a.nunits + T - 1) / T;
        if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
        int threads = (int)((T * c.L / 4 + 31) / 32 * 32);
        if (threads < 32) threads = 32;
        if (threads > kMixThreads) threads = kMixThreads;
        const size_t smem = mix_smem_bytes((size_t)T * (size_t)a.pitch * sizeof(cpx<R>));
        NLA_LAUNCH(fft_mixed_kernel<R>, dim3((unsigned)blocks), dim3(threads), smem, st)(a);
        prev = out.ptr;
    }
    return cudaGetLastError();
}

template cudaError_t nla_fft::set_mixed_smem_limits<double>();
template cudaError_t nla_fft::set_mixed_smem_limits<float>();
template cudaError_t nla_fft::run_mixed<double>(const Mixed &, int64_t, IoDesc, IoDesc, void *, void *, int, int,
                                                double, int, int64_t, cudaStream_t);
template cudaError_t nla_fft::run_mixed<float>(const Mixed &, int64_t, IoDesc, IoDesc, void *, void *, int, int,
                                               float, int, int64_t, cudaStream_t);
