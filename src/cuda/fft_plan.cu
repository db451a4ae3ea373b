/*
 * fft_plan.cu - plans of the CUDA FFT (fft.cu describes the algorithms):
 * the method for each length, the passes and in-block stages of the
 * power-of-two and mixed-radix engines, and their twiddle tables, computed
 * in double on the host with the argument reduced exactly, then uploaded.
 * Host code only; the kernels are in fft.cu and fft_mixed.cu.
 */
#include "fft_internal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

using namespace nla_fft;

namespace {

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

/* Stage twiddles of one in-block DFT whose stages have radices rad[0..nst):
   stage s >= 1 of radix Rs after Ns: w_{Ns*Rs}^(r*k), k < Ns, 1 <= r < Rs
   (both engines lay them out so). */
template <typename R>
void stage_twiddles(const int *rad, int nst, std::vector<cpx<R>> *tw)
{
    int64_t ns = 1;
    for (int s = 0; s < nst; s++) {
        const int64_t rs = rad[s];
        if (s > 0)
            for (int64_t k = 0; k < ns; k++)
                for (int64_t r = 1; r < rs; r++) {
                    double re, im;
                    twiddle(r * k, ns * rs, &re, &im);
                    tw->push_back(mk((R)re, (R)im));
                }
        ns *= rs;
    }
}

/* w_N^m = hi[m >> lo_bits] * lo[m & (2^lo_bits - 1)], m < N */
template <typename R>
cudaError_t split_twiddles(nla_cuda_fft *p, int64_t N, int *lo_bits, const void **tw_lo, const void **tw_hi)
{
    *lo_bits = (ilog2(N) + 1) / 2;
    const int64_t nlo = (int64_t)1 << *lo_bits, nhi = (N + nlo - 1) >> *lo_bits;
    std::vector<cpx<R>> lo((size_t)nlo), hi((size_t)nhi);
    for (int64_t m = 0; m < nlo; m++) {
        double re, im;
        twiddle(m, N, &re, &im);
        lo[(size_t)m] = mk((R)re, (R)im);
    }
    for (int64_t m = 0; m < nhi; m++) {
        double re, im;
        twiddle(m << *lo_bits, N, &re, &im);
        hi[(size_t)m] = mk((R)re, (R)im);
    }
    cudaError_t e = upload(p, lo, tw_lo);
    if (e == cudaSuccess) e = upload(p, hi, tw_hi);
    return e;
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
        std::vector<cpx<R>> tw;
        int rad[kMaxStages];
        for (int s = 0; s < c.st.n; s++) rad[s] = 1 << c.st.log2r[s];
        stage_twiddles<R>(rad, c.st.n, &tw);
        if (!tw.empty()) {
            cudaError_t e = upload(p, tw, &c.stw);
            if (e != cudaSuccess) return e;
        }
    }
    if (g->P > 1) return split_twiddles<R>(p, (int64_t)1 << logN, &g->lo_bits, &g->tw_lo, &g->tw_hi);
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
cudaError_t build_mixed(nla_cuda_fft *p, Mixed *g)
{
    for (int i = 0; i < g->P; i++) {
        MixPass &c = g->pass[i];
        std::vector<cpx<R>> tw;
        stage_twiddles<R>(c.rad, c.nst, &tw);
        if (!tw.empty()) {
            cudaError_t e = upload(p, tw, &c.stw);
            if (e != cudaSuccess) return e;
        }
        /* the generic stages' roots w_p^e, e < p, in stage order */
        std::vector<cpx<R>> roots;
        for (int s = 0; s < c.nst; s++)
            if (c.rad[s] > kMixMaxOdd)
                for (int e = 0; e < c.rad[s]; e++) {
                    double re, im;
                    twiddle(e, c.rad[s], &re, &im);
                    roots.push_back(mk((R)re, (R)im));
                }
        if (!roots.empty()) {
            cudaError_t e = upload(p, roots, &c.groots);
            if (e != cudaSuccess) return e;
        }
    }
    if (g->P > 1) return split_twiddles<R>(p, g->N, &g->lo_bits, &g->tw_lo, &g->tw_hi);
    return cudaSuccess;
}

} /* namespace */

/* n = 2^a 3^b 5^c 7^d 11^e 13^f times odd primes from 17 to kMixMaxGen
   (generic stages).  Radices: the odd primes, and the power of two as 8s
   then at most two 4s or one 2.  One pass while n fits a block,
   else the fewest passes of at most MIX_EB/4 (so that a block holds at least
   3 adjacent columns), the radices spread largest first over the pass with
   the smallest product they fit in. */
template <typename R>
bool nla_fft::plan_mixed(int64_t n, Mixed *g)
{
    if (n < 2) return false;
    std::vector<int> rads;
    int64_t m = n;
    for (int q : {13, 11, 7, 5, 3})
        while (m % q == 0) {
            rads.push_back(q);
            m /= q;
        }
    /* upwards, so that every q that divides m is prime: its smaller
       factors are gone */
    for (int q = kMixMaxOdd + 2; q <= kMixMaxGen; q += 2)
        while (m % q == 0) {
            rads.push_back(q);
            m /= q;
        }
    int a = 0;
    while (m % 2 == 0) {
        m /= 2;
        a++;
    }
    if (m != 1) return false;
    while (a > 4 || a == 3) {
        rads.push_back(8);
        a -= 3;
    }
    for (; a >= 2; a -= 2) rads.push_back(4);
    if (a == 1) rads.push_back(2);
    std::sort(rads.begin(), rads.end(), [](int x, int y) { return x > y; });

    const int64_t single = kTestSplit > 0 ? (int64_t)1 << kTestSplit : Prec<R>::MIX_EB;
    const int64_t passmax = kTestSplit > 0 ? (int64_t)1 << kTestSplit : Prec<R>::MIX_EB / 4;
    *g = Mixed();
    g->N = n;
    for (int P = 1; P <= kMixMaxPasses; P++) {
        if (P == 1 && n > single) continue;
        const int64_t cap = P == 1 ? single : passmax;
        int64_t prod[kMixMaxPasses];
        int nst[kMixMaxPasses];
        std::vector<int> which(rads.size());
        bool ok = true;
        for (int i = 0; i < P; i++) prod[i] = 1, nst[i] = 0;
        for (size_t k = 0; k < rads.size() && ok; k++) {
            int best = -1;
            for (int i = 0; i < P; i++)
                if (prod[i] * rads[k] <= cap && nst[i] < kMixMaxStages && (best < 0 || prod[i] < prod[best]))
                    best = i;
            if (best < 0) ok = false;
            else {
                prod[best] *= rads[k];
                nst[best]++;
                which[k] = best;
            }
        }
        for (int i = 0; i < P && ok; i++) ok = prod[i] > 1;
        if (!ok) continue;
        g->P = P;
        int64_t ns = 1;
        for (int i = 0; i < P; i++) {
            MixPass &c = g->pass[i];
            c.L = (int)prod[i];
            c.Ns = ns;
            ns *= prod[i];
            for (size_t k = 0; k < rads.size(); k++)
                if (which[k] == i) c.rad[c.nst++] = rads[k];
        }
        return true;
    }
    return false;
}

template bool nla_fft::plan_mixed<double>(int64_t, Mixed *);
template bool nla_fft::plan_mixed<float>(int64_t, Mixed *);

namespace {

template <typename R>
cudaError_t create_tables(nla_cuda_fft *p)
{
    cudaError_t e = set_smem_limits<R>();
    if (e == cudaSuccess) e = set_mixed_smem_limits<R>();
    if (e != cudaSuccess) return e;
    const int64_t n = p->n;
    if (p->method == M_POW2) {
        p->len = n;
        return p->mixed ? build_mixed<R>(p, &p->mix) : build_pow2<R>(p, ilog2(n), &p->eng);
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
        return p->mixed ? build_mixed<R>(p, &p->mix) : build_pow2<R>(p, ilog2(h), &p->eng);
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
    /* C2C and odd real n: an engine of length n; R2C and C2R with even n: of
       length n/2; the power-of-two or the mixed-radix engine, else Bluestein
       (the power-of-two engine takes no real or Hermitian array: not n = 1) */
    const bool half = d.kind != NLA_FFT_C2C && d.n % 2 == 0;
    const int64_t elen = half ? d.n / 2 : d.n;
    p->mixed = 0;
    p->method = M_BLUE;
    if (!is_pow2(elen))
        p->mixed = d.precision == NLA_DOUBLE ? plan_mixed<double>(elen, &p->mix) : plan_mixed<float>(elen, &p->mix);
    if (p->mixed || (is_pow2(elen) && (half || d.kind == NLA_FFT_C2C))) p->method = half ? M_REAL2 : M_POW2;
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
    const int P = p->mixed ? p->mix.P : p->eng.P;
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

extern "C" void nla_cuda_fft_destroy(nla_cuda_fft *plan)
{
    if (!plan) return;
    for (void *d : plan->allocs) cudaFree(d);
    delete plan;
}
