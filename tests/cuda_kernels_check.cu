/*
 * cuda_kernels_check.cu - standalone check of the project's own CUDA GEMM,
 * level-2 and FFT kernels (src/cuda/gemm.cu, level2.cu, fft.cu, fft_mixed.cu,
 * fft_plan.cu) against naive host computations.  make check runs it on a CPU emulation of CUDA
 * (tests/check-cuda-emu.sh, tests/cuda_emu/), which checks the kernels'
 * logic but not nvcc's code or the hardware; test_cuda.c covers the public
 * API.  On a machine with a GPU (tools/gpu-check.sh does this):
 *
 *   nvcc -std=c++17 -O2 -gencode arch=compute_90,code=sm_90 \
 *        -Iinclude -Isrc -Isrc/cuda tests/cuda_kernels_check.cu src/cuda/gemm.cu \
 *        src/cuda/fft.cu src/cuda/fft_mixed.cu src/cuda/fft_plan.cu src/cuda/level2.cu \
 *        -o cuda_kernels_check && ./cuda_kernels_check
 *
 * Options: --quick (smaller sweeps), --gemm / --fft / --level2 (one part only),
 * --maxlog Q (largest power-of-two FFT, default 22), --bench (timings
 * against cuBLAS / cuFFT; build with -DNLA_CHECK_BENCH -lcublas -lcufft).
 * NLA_CUDA_DGEMM=mma884 or =simt selects the other double GEMM kernels;
 * run the program once per choice to check all three.
 *
 * Every line prints the largest error of a group of cases next to its
 * tolerance; the exit status is 1 if any case failed.
 *   GEMM: |C - Cref| / (|alpha| sum|a||b| + |beta c|), tolerance 2(k+2)eps;
 *         C outside the m x n block must be untouched; beta = 0 must not
 *         read C (C is NaN there); k = 0 and alpha = 0 must not read A, B
 *         (they are NaN there).
 *   Level 2 (gemv, gbmv, spmv; increments +-1, +-2): |y - yref| /
 *         (|alpha| sum|a||x| + |beta y|), tolerance 2(k+2)eps with k the terms
 *         per element; beta = 0 must not read y (NaN there), and elements
 *         between the strided outputs must be untouched.
 *   FFT:  max|out - ref| / max|ref| with ref a long double DFT, tolerance
 *         8 eps (log2 n + 1) (log2 of the Bluestein length for other n);
 *         out-of-place inputs must be unchanged, and elements between the
 *         strided outputs untouched.  The plan must take Bluestein exactly
 *         for the n with a prime factor over 127 (nla_fft::kMixMaxGen) and
 *         real n = 1 (read from the plan, fft_internal.h).
 */
#include "cuda_kernels.h"
#include "internal.h"
#include "fft_internal.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#ifdef NLA_CHECK_BENCH
#include <cublas_v2.h>
#include <cufft.h>
#endif

namespace {

bool g_quick = false;
int g_fail = 0;
long g_cases = 0;

#define CK(call)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(2);                                                                     \
        }                                                                                \
    } while (0)

template <typename T>
struct DevBuf {
    T *p = nullptr;
    size_t n = 0;
    explicit DevBuf(size_t n_) : n(n_) { CK(cudaMalloc((void **)&p, (n ? n : 1) * sizeof(T))); }
    ~DevBuf() { cudaFree(p); }
    void put(const std::vector<T> &h) { CK(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice)); }
    std::vector<T> get() const
    {
        std::vector<T> h(n);
        CK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }
};

/* worst = max(worst, err), where a NaN, once seen, stays */
static inline void keep_worst(double &worst, double err)
{
    if (!(err <= worst) && !std::isnan(worst)) worst = err;
}

struct Stat {
    explicit Stat(const std::string &n) : name(n) {}
    std::string name;
    double worst = 0;
    double tol = 0;
    long cases = 0, bad = 0;
    std::string first_bad;
    void add(double err, double t, const std::string &what)
    {
        cases++;
        g_cases++;
        bool ok = err <= t;   /* false for NaN */
        keep_worst(worst, err);
        if (t > tol) tol = t;
        if (!ok) {
            bad++;
            g_fail++;
            if (first_bad.empty()) first_bad = what;
        }
    }
    void print() const
    {
        printf("%-44s cases %6ld  max err %9.2e  (tol %8.1e)  %s", name.c_str(), cases, worst, tol,
               bad ? "FAIL" : "ok");
        if (bad) printf("  %ld bad, first: %s", bad, first_bad.c_str());
        printf("\n");
        fflush(stdout);
    }
};

/* ------------------------------------------------------------------ GEMM */

template <typename T> constexpr double eps_of() { return sizeof(T) == 8 ? 1.1102230246251565e-16 : 5.9604645e-08; }

template <typename T>
cudaError_t gemm(int ta, int tb, int64_t m, int64_t n, int64_t k, T alpha, const T *a, int64_t lda, int64_t sa,
                 const T *b, int64_t ldb, int64_t sb, T beta, T *c, int64_t ldc, int64_t sc, int64_t batch)
{
    if constexpr (sizeof(T) == 8)
        return nla_cuda_gemm_d(0, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch);
    else
        return nla_cuda_gemm_s(0, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch);
}

struct GemmCase {
    int ta, tb;
    int64_t m, n, k;
    int64_t pad;     /* extra leading-dimension padding (odd values break 16-byte alignment) */
    int64_t off;     /* element offset of every base pointer (1 breaks alignment) */
    int64_t batch;
    double alpha, beta;
};

/* Runs one case; returns the error measure (1e300 when C outside the block
   was touched). */
template <typename T>
double gemm_case(const GemmCase &g, std::mt19937 &rng)
{
    std::uniform_real_distribution<double> U(-1, 1);
    const int64_t ar = g.ta ? g.k : g.m, ac = g.ta ? g.m : g.k;
    const int64_t br = g.tb ? g.n : g.k, bc = g.tb ? g.k : g.n;
    const int64_t lda = std::max<int64_t>(ar, 1) + g.pad, ldb = std::max<int64_t>(br, 1) + g.pad, ldc = g.m + g.pad;
    const int64_t sa = g.batch > 1 ? lda * ac + 3 : 0, sb = g.batch > 1 ? ldb * bc + 5 : 0,
                  sc = g.batch > 1 ? ldc * g.n + 1 : 0;
    const size_t na = (size_t)(g.off + sa * (g.batch - 1) + lda * ac), nb = (size_t)(g.off + sb * (g.batch - 1) + ldb * bc),
                 nc = (size_t)(g.off + sc * (g.batch - 1) + ldc * g.n);
    const bool no_ab = g.k == 0 || g.alpha == 0;
    std::vector<T> A(na), B(nb), C(nc);
    for (auto &x : A) x = no_ab ? (T)NAN : (T)U(rng);
    for (auto &x : B) x = no_ab ? (T)NAN : (T)U(rng);
    for (auto &x : C) x = g.beta == 0 ? (T)NAN : (T)U(rng);
    DevBuf<T> dA(na), dB(nb), dC(nc);
    dA.put(A);
    dB.put(B);
    dC.put(C);
    CK(gemm<T>(g.ta, g.tb, g.m, g.n, g.k, (T)g.alpha, dA.p + g.off, lda, sa, dB.p + g.off, ldb, sb, (T)g.beta,
               dC.p + g.off, ldc, sc, g.batch));
    CK(cudaDeviceSynchronize());
    std::vector<T> R = dC.get();
    double worst = 0;
    std::vector<char> inside(nc, 0);
    for (int64_t z = 0; z < g.batch; z++)
        for (int64_t j = 0; j < g.n; j++)
            for (int64_t i = 0; i < g.m; i++) {
                double s = 0, sabs = 0;
                for (int64_t p = 0; p < g.k && !no_ab; p++) {
                    double a = g.ta ? A[g.off + z * sa + p + i * lda] : A[g.off + z * sa + i + p * lda];
                    double b = g.tb ? B[g.off + z * sb + j + p * ldb] : B[g.off + z * sb + p + j * ldb];
                    s += a * b;
                    sabs += std::fabs(a * b);
                }
                size_t ci = (size_t)(g.off + z * sc + i + j * ldc);
                inside[ci] = 1;
                double c0 = g.beta == 0 ? 0.0 : (double)C[ci];
                double ref = (no_ab ? 0.0 : g.alpha * s) + g.beta * c0;
                double den = std::fabs(g.alpha) * sabs + std::fabs(g.beta * c0);
                double err = std::fabs((double)R[ci] - ref) / (den > 0 ? den : 1.0);
                if (den == 0) err = (double)R[ci] == 0.0 ? 0.0 : 1e300;
                keep_worst(worst, err);
            }
    for (size_t i = 0; i < nc; i++)
        if (!inside[i] && std::memcmp(&R[i], &C[i], sizeof(T)) != 0) return 1e300;
    return worst;
}

template <typename T>
void gemm_suite()
{
    const char *tn = sizeof(T) == 8 ? "d" : "s";
    const char *kern = getenv("NLA_CUDA_DGEMM");
    std::mt19937 rng(1234);
    std::string base = std::string("gemm_") + tn + (sizeof(T) == 8 ? std::string(" [") + (kern ? kern : "mma16816") + "]" : "");
    Stat edges{base + " m,n,k in 1..67"}, special{base + " k=0, alpha=0, beta=0 (NaN)"},
        batch{base + " batched, misaligned"}, large{base + " larger sizes"};
    auto tol = [](int64_t k) { return 2.0 * (double)(k + 2) * eps_of<T>(); };
    char what[160];
    /* every trans combination on m = n = k = 1..67 and on random (m, n, k) */
    std::uniform_int_distribution<int> S(1, 67);
    const int nrand = g_quick ? 24 : 400;
    for (int it = 0; it < 67 + nrand; it++) {
        int64_t m, n, k;
        if (it < 67) m = n = k = it + 1;
        else m = S(rng), n = S(rng), k = S(rng);
        if (g_quick && it < 67 && it % 6 != 0) continue;
        for (int t = 0; t < 4; t++) {
            GemmCase g{t & 1, t >> 1, m, n, k, (int64_t)(it % 3), 0, 1, 1.5, it % 2 ? -0.5 : 1.0};
            snprintf(what, sizeof what, "ta=%d tb=%d m=%lld n=%lld k=%lld pad=%lld", g.ta, g.tb, (long long)m,
                     (long long)n, (long long)k, (long long)g.pad);
            edges.add(gemm_case<T>(g, rng), tol(k), what);
        }
    }
    edges.print();
    for (int t = 0; t < 4; t++)
        for (int64_t s : {1, 7, 64, 65}) {
            GemmCase cases[] = {
                {t & 1, t >> 1, s, s + 2, 0, 1, 0, 1, 1.5, 0.75},     /* k = 0: C = beta*C */
                {t & 1, t >> 1, s, s + 2, 0, 1, 0, 2, 1.5, 0.0},      /* k = 0, beta = 0 */
                {t & 1, t >> 1, s, s + 2, 9, 0, 0, 1, 0.0, -2.0},     /* alpha = 0 */
                {t & 1, t >> 1, s, s + 2, 9, 0, 0, 1, 0.0, 0.0},      /* alpha = beta = 0 */
                {t & 1, t >> 1, s, s + 2, 33, 2, 0, 1, 1.0, 0.0},     /* beta = 0 with NaN C */
                {t & 1, t >> 1, s, s + 2, 33, 1, 1, 2, -1.0, 0.0},
            };
            for (const GemmCase &g : cases) {
                snprintf(what, sizeof what, "ta=%d tb=%d m=%lld k=%lld alpha=%g beta=%g", g.ta, g.tb, (long long)g.m,
                         (long long)g.k, g.alpha, g.beta);
                special.add(gemm_case<T>(g, rng), tol(g.k), what);
            }
        }
    special.print();
    for (int t = 0; t < 4; t++)
        for (int64_t off : {0, 1})
            for (int64_t pad : {0, 1, 2, 3}) {
                if (g_quick && pad > 1) continue;
                GemmCase g{t & 1, t >> 1, 37 + pad * 30, 70 - pad * 11, 45 + pad * 17, pad, off, 3, 0.75, pad % 2 ? 0.0 : 0.5};
                snprintf(what, sizeof what, "ta=%d tb=%d off=%lld pad=%lld batch=3", g.ta, g.tb, (long long)off, (long long)pad);
                batch.add(gemm_case<T>(g, rng), tol(g.k), what);
            }
    /* a batch large enough to pass the 65535 gridDim.z limit, tiny matrices */
    if (!g_quick) {
        GemmCase g{0, 1, 3, 2, 5, 0, 0, 70000, 1.0, 1.0};
        batch.add(gemm_case<T>(g, rng), tol(g.k), "batch=70000");
    }
    batch.print();
    const int64_t big[][3] = {{128, 128, 16}, {129, 255, 257}, {256, 256, 256}, {1000, 300, 77}, {64, 1500, 300},
                              {513, 511, 1029}};
    for (int t = 0; t < 4; t++)
        for (const auto &s : big) {
            if (g_quick && s[0] * s[1] * s[2] > 300 * 300 * 300 / 8) continue;
            GemmCase g{t & 1, t >> 1, s[0], s[1], s[2], 0, 0, 1, 1.0, 0.5};
            snprintf(what, sizeof what, "ta=%d tb=%d %lldx%lldx%lld", g.ta, g.tb, (long long)s[0], (long long)s[1],
                     (long long)s[2]);
            large.add(gemm_case<T>(g, rng), tol(g.k), what);
        }
    large.print();
}

/* --------------------------------------------------------------- level 2 */

/* One gemv/gbmv/spmv case, 'g', 'b' or 'p', against a long double
   reference: returns max_i |y - yref| / (|alpha| sum_j |a_ij x_j| + |beta y_i|)
   over the touched elements, or 1e300 when an element between the strided
   outputs changed or beta = 0 read y (NaN there). */
struct L2Case {
    char op;
    int trans;       /* gemv/gbmv: 0 N, 1 T; spmv: 1 upper, 0 lower */
    int64_t m, n, kl, ku, pad, incx, incy;
    double alpha, beta;
};

template <typename T>
double l2_case(const L2Case &c, std::mt19937 &rng)
{
    std::uniform_real_distribution<double> U(-1, 1);
    const bool band = c.op == 'b', packed = c.op == 'p';
    const int64_t m = packed ? c.n : c.m, n = c.n;
    const int64_t lx = c.op != 'p' && c.trans ? m : n, ly = c.op != 'p' && c.trans ? n : m;
    const int64_t ld = band ? c.kl + c.ku + 1 + c.pad : m + c.pad;
    const int64_t alen = packed ? n * (n + 1) / 2 : ld * n;
    const int64_t ax = std::abs(c.incx), ay = std::abs(c.incy);
    std::vector<T> a(alen), x(1 + (lx - 1) * ax), y(1 + (ly - 1) * ay);
    for (auto &v : a) v = (T)U(rng);
    for (auto &v : x) v = (T)U(rng);
    for (auto &v : y) v = c.beta == 0 ? (T)NAN : (T)U(rng);
    /* A(i, j) as the kernels must read it */
    auto A = [&](int64_t i, int64_t j) -> long double {
        if (band) return (i - j > c.kl || j - i > c.ku) ? 0 : a[c.ku + i - j + j * ld];
        if (packed) {
            int64_t r = i, q = j;
            if (c.trans ? r > q : r < q) std::swap(r, q);
            return c.trans ? a[r + q * (q + 1) / 2] : a[r + q * (2 * n - q - 1) / 2];
        }
        return a[i + j * ld];
    };
    auto X = [&](int64_t k) { return x[c.incx > 0 ? k * ax : (lx - 1 - k) * ax]; };
    auto Yi = [&](int64_t k) { return c.incy > 0 ? k * ay : (ly - 1 - k) * ay; };
    DevBuf<T> da(alen), dx(x.size()), dy(y.size());
    da.put(a);
    dx.put(x);
    dy.put(y);
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    size_t sb = packed ? nla_cuda_spmv_scratch(sms, n, sizeof(T))
              : band ? nla_cuda_gbmv_scratch(sms, c.trans, m, n, c.kl, c.ku, sizeof(T))
                     : nla_cuda_gemv_scratch(sms, c.trans, m, n, sizeof(T));
    DevBuf<unsigned char> scratch(sb);
    nla_cuda_launch L{0, sms, sb ? scratch.p : nullptr, sb};
    const T al = (T)c.alpha, be = (T)c.beta;
    if constexpr (sizeof(T) == 8) {
        if (c.op == 'g') CK(nla_cuda_gemv_d(&L, c.trans, m, n, al, da.p, ld, dx.p, c.incx, be, dy.p, c.incy));
        else if (band) CK(nla_cuda_gbmv_d(&L, c.trans, m, n, c.kl, c.ku, al, da.p, ld, dx.p, c.incx, be, dy.p, c.incy));
        else CK(nla_cuda_spmv_d(&L, c.trans, n, al, da.p, dx.p, c.incx, be, dy.p, c.incy));
    } else {
        if (c.op == 'g') CK(nla_cuda_gemv_s(&L, c.trans, m, n, al, da.p, ld, dx.p, c.incx, be, dy.p, c.incy));
        else if (band) CK(nla_cuda_gbmv_s(&L, c.trans, m, n, c.kl, c.ku, al, da.p, ld, dx.p, c.incx, be, dy.p, c.incy));
        else CK(nla_cuda_spmv_s(&L, c.trans, n, al, da.p, dx.p, c.incx, be, dy.p, c.incy));
    }
    CK(cudaDeviceSynchronize());
    std::vector<T> out = dy.get();
    std::vector<char> hit(y.size(), 0);
    double worst = 0;
    for (int64_t k = 0; k < ly; k++) {
        long double s = 0, mag = 0;
        for (int64_t q = 0; q < lx; q++) {
            long double e = c.op != 'p' && c.trans ? A(q, k) : A(k, q);
            s += e * (long double)X(q);
            mag += std::fabs(e * (long double)X(q));
        }
        const int64_t yi = Yi(k);
        hit[yi] = 1;
        long double ref = (long double)c.alpha * s, scale = std::fabs((long double)c.alpha) * mag;
        if (c.beta != 0) {
            ref += (long double)c.beta * (long double)y[yi];
            scale += std::fabs((long double)c.beta * (long double)y[yi]);
        }
        double err = (double)(std::fabs((long double)out[yi] - ref) / (scale > 0 ? scale : 1));
        keep_worst(worst, err);
    }
    for (size_t i = 0; i < y.size(); i++)
        if (!hit[i] && std::memcmp(&out[i], &y[i], sizeof(T)) != 0) return 1e300;
    return worst;
}

template <typename T>
void level2_suite()
{
    const char *tn = sizeof(T) == 8 ? "d" : "s";
    std::mt19937 rng(99);
    std::string p = std::string(tn);
    Stat gemv{p + "gemv shapes, incs, alpha/beta"}, gbmv{p + "gbmv widths 0..n+3, incs"},
        spmv{p + "spmv sizes 1..200, incs"};
    char what[160];
    const double ab[][2] = {{1.0, 0.0}, {-1.5, 0.5}, {0.75, 1.0}};
    const int64_t incs[][2] = {{1, 1}, {-1, 2}, {2, -1}, {-2, -2}};
    const int64_t shapes[][2] = {{1, 1}, {7, 5}, {33, 64}, {64, 33}, {130, 257}, {300, 17}, {17, 700}, {1025, 96}};
    for (int t = 0; t < 2; t++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
            for (int v = 0; v < 4; v++) {
                if (g_quick && v != (int)(si % 4) && v != 0) continue;
                const double *q = ab[(si + v) % 3];
                L2Case c{'g', t, shapes[si][0], shapes[si][1], 0, 0, (int64_t)(v & 1), incs[v][0], incs[v][1], q[0], q[1]};
                snprintf(what, sizeof what, "trans=%d m=%lld n=%lld pad=%lld incx=%lld incy=%lld", t,
                         (long long)c.m, (long long)c.n, (long long)c.pad, (long long)c.incx, (long long)c.incy);
                gemv.add(l2_case<T>(c, rng), 2.0 * (double)(std::max(c.m, c.n) + 2) * eps_of<T>(), what);
            }
    gemv.print();
    /* 700 x 650 with bands of 65 (odd kl) and 64: NoTrans stages several
       chunks, later ones from past a 16-byte boundary */
    const int64_t bshapes[][2] = {{1, 1}, {9, 9}, {40, 31}, {31, 40}, {300, 300}, {600, 520}, {700, 650}};
    const int64_t widths[][2] = {{0, 0}, {1, 1}, {2, 0}, {0, 3}, {5, 2}, {16, 16}, {40, 7}, {70, 70}, {400, 3},
                                 {33, 31}, {31, 32}, {32, 33}};
    for (int t = 0; t < 2; t++)
        for (size_t si = 0; si < sizeof bshapes / sizeof *bshapes; si++)
            for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++) {
                const int v = (int)((si + wi) % 4);
                if (g_quick && (si + wi) % 2) continue;
                const int64_t m = bshapes[si][0], n = bshapes[si][1];
                const int64_t kl = std::min(widths[wi][0], m + 3), ku = std::min(widths[wi][1], n + 3);
                const double *q = ab[(si + wi) % 3];
                L2Case c{'b', t, m, n, kl, ku, (int64_t)(wi % 3), incs[v][0], incs[v][1], q[0], q[1]};
                snprintf(what, sizeof what, "trans=%d m=%lld n=%lld kl=%lld ku=%lld pad=%lld incx=%lld incy=%lld", t,
                         (long long)m, (long long)n, (long long)kl, (long long)ku, (long long)c.pad,
                         (long long)c.incx, (long long)c.incy);
                gbmv.add(l2_case<T>(c, rng), 2.0 * (double)(kl + ku + 3) * eps_of<T>(), what);
            }
    gbmv.print();
    for (int up = 0; up < 2; up++)
        for (int64_t n : {1, 2, 63, 64, 65, 129, 200})
            for (int v = 0; v < 4; v++) {
                if (g_quick && v != (int)(n % 4)) continue;
                const double *q = ab[(n + v) % 3];
                L2Case c{'p', up, n, n, 0, 0, 0, incs[v][0], incs[v][1], q[0], q[1]};
                snprintf(what, sizeof what, "upper=%d n=%lld incx=%lld incy=%lld", up, (long long)n,
                         (long long)c.incx, (long long)c.incy);
                spmv.add(l2_case<T>(c, rng), 2.0 * (double)(n + 2) * eps_of<T>(), what);
            }
    spmv.print();
}

/* ------------------------------------------------------------------- FFT */

typedef std::complex<long double> cld;
const long double kPi = 3.141592653589793238462643383279502884L;

/* exp(sign*2*pi*i*m/n) with exact reduction of m/n */
cld root(int64_t m, int64_t n, int sign)
{
    m %= n;
    if (m < 0) m += n;
    long double a = 2 * kPi * (long double)m / (long double)n;
    return cld(cosl(a), sign * sinl(a));
}

void ref_fft_pow2(std::vector<cld> &a, int sign)
{
    const size_t n = a.size();
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) std::swap(a[i], a[j]);
    }
    std::vector<cld> w(n / 2 + 1);
    for (size_t k = 0; k < n / 2; k++) w[k] = root((int64_t)k, (int64_t)n, sign);
    for (size_t len = 2; len <= n; len <<= 1)
        for (size_t i = 0; i < n; i += len)
            for (size_t k = 0; k < len / 2; k++) {
                cld u = a[i + k], v = a[i + k + len / 2] * w[k * (n / len)];
                a[i + k] = u + v;
                a[i + k + len / 2] = u - v;
            }
}

/* Decimation in time on the smallest prime factor p of n: the p
   subsequences x[j + p*i] recursively, then X[k] = sum_j w^(j*k) Y_j[k mod n/p];
   w: the roots of unity of length N, n | N (w_n^m = w[m*N/n]). */
void ref_fft_rec(const cld *x, size_t stride, size_t n, const std::vector<cld> &w, cld *y)
{
    const size_t N = w.size();
    size_t p = 2;
    while (p * p <= n && n % p) p++;
    if (p * p > n) p = n;
    if (p == n) {
        for (size_t k = 0; k < n; k++) {
            cld s = 0;
            for (size_t j = 0; j < n; j++) s += x[j * stride] * w[(j * k % n) * (N / n)];
            y[k] = s;
        }
        return;
    }
    const size_t m = n / p;
    std::vector<cld> sub(n);
    for (size_t j = 0; j < p; j++) ref_fft_rec(x + j * stride, stride * p, m, w, &sub[j * m]);
    for (size_t k = 0; k < n; k++) {
        cld s = 0;
        for (size_t j = 0; j < p; j++) s += sub[j * m + k % m] * w[(j * k % n) * (N / n)];
        y[k] = s;
    }
}

std::vector<cld> ref_dft(const std::vector<cld> &x, int sign)
{
    const size_t n = x.size();
    if (n > 64 && (n & (n - 1)) == 0) {
        std::vector<cld> a = x;
        ref_fft_pow2(a, sign);
        return a;
    }
    if (n > 64) {
        std::vector<cld> w(n), y(n);
        for (size_t m = 0; m < n; m++) w[m] = root((int64_t)m, (int64_t)n, sign);
        ref_fft_rec(x.data(), 1, n, w, y.data());
        return y;
    }
    std::vector<cld> w(n);
    for (size_t m = 0; m < n; m++) w[m] = root((int64_t)m, (int64_t)n, sign);
    std::vector<cld> y(n);
    for (size_t k = 0; k < n; k++) {
        cld s = 0;
        for (size_t j = 0; j < n; j++) s += x[j] * w[(j * k) % n];
        y[k] = s;
    }
    return y;
}

struct FftCase {
    nla_fft_kind kind;
    int64_t n, howmany;
    int dir;                   /* -1 forward, +1 backward (C2C) */
    int64_t is, id, os, od;
    bool inplace;
    double scale;
};

/* prime factors all <= kMixMaxGen: the mixed-radix (or power-of-two)
   engine's lengths */
bool smooth_gen(int64_t n)
{
    for (int64_t p = 2; p <= nla_fft::kMixMaxGen && n > 1; p++)
        while (n % p == 0) n /= p;
    return n == 1;
}

template <typename T>
double fft_case(const FftCase &c, std::string *why)
{
    nla_fft_desc d;
    std::memset(&d, 0, sizeof d);
    d.kind = c.kind;
    d.precision = sizeof(T) == 8 ? NLA_DOUBLE : NLA_FLOAT;
    d.direction = c.dir < 0 ? NLA_FFT_FORWARD : NLA_FFT_BACKWARD;
    d.n = c.n;
    d.howmany = c.howmany;
    d.istride = c.is;
    d.idist = c.id;
    d.ostride = c.os;
    d.odist = c.od;
    d.scale = c.scale;
    const int64_t n = c.n, nin = c.kind == NLA_FFT_C2R ? n / 2 + 1 : n, nout = c.kind == NLA_FFT_R2C ? n / 2 + 1 : n;
    const int iu = c.kind == NLA_FFT_R2C ? 1 : 2, ou = c.kind == NLA_FFT_C2R ? 1 : 2;
    const size_t insz = (size_t)((c.howmany - 1) * c.id + (nin - 1) * c.is + 1) * iu;
    const size_t outsz = (size_t)((c.howmany - 1) * c.od + (nout - 1) * c.os + 1) * ou;
    std::mt19937 rng((unsigned)(n * 7919 + c.howmany * 31 + c.is));
    std::uniform_real_distribution<double> U(-1, 1);
    std::vector<T> in(insz);
    for (auto &x : in) x = (T)U(rng);
    const size_t bufsz = c.inplace ? std::max(insz, outsz) : outsz;
    std::vector<T> outinit(bufsz, (T)NAN);
    if (c.inplace) std::copy(in.begin(), in.end(), outinit.begin());

    nla_cuda_fft *plan = nullptr;
    cudaError_t e = nla_cuda_fft_create(&d, &plan);
    if (e != cudaSuccess) {
        *why = std::string("create: ") + cudaGetErrorString(e);
        return 1e300;
    }
    /* Bluestein exactly where no engine of length n (or n/2) takes it
       (unless a test build splits passes below the generic primes) */
    const bool blue = !smooth_gen(n) || (c.kind != NLA_FFT_C2C && n == 1);
    if (nla_fft::kTestSplit == 0 && (plan->method == M_BLUE) != blue) {
        nla_cuda_fft_destroy(plan);
        *why = blue ? "plan: not Bluestein" : "plan: Bluestein, not the mixed-radix or power-of-two engine";
        return 1e300;
    }
    const size_t ws = nla_cuda_fft_workspace(plan);
    DevBuf<unsigned char> work(ws);
    DevBuf<T> din(c.inplace ? 0 : insz), dout(bufsz);
    dout.put(outinit);
    if (!c.inplace) din.put(in);
    e = nla_cuda_fft_exec(plan, 0, c.inplace ? (const void *)dout.p : (const void *)din.p, dout.p, ws ? work.p : nullptr);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    nla_cuda_fft_destroy(plan);
    if (e != cudaSuccess) {
        *why = std::string("exec: ") + cudaGetErrorString(e);
        return 1e300;
    }
    std::vector<T> out = dout.get();
    if (!c.inplace && std::memcmp(din.get().data(), in.data(), insz * sizeof(T)) != 0) {
        *why = "input modified";
        return 1e300;
    }
    /* elements that are not outputs keep their initial value */
    std::vector<char> isout(bufsz, 0);
    double err = 0, mag = 0;
    for (int64_t b = 0; b < c.howmany; b++) {
        std::vector<cld> x((size_t)n);
        if (c.kind == NLA_FFT_C2C) {
            for (int64_t j = 0; j < n; j++) {
                size_t p = (size_t)(2 * (b * c.id + j * c.is));
                x[(size_t)j] = cld(in[p], in[p + 1]);
            }
        } else if (c.kind == NLA_FFT_R2C) {
            for (int64_t j = 0; j < n; j++) x[(size_t)j] = cld(in[(size_t)(b * c.id + j * c.is)], 0);
        } else {
            for (int64_t k = 0; k <= n / 2; k++) {
                size_t p = (size_t)(2 * (b * c.id + k * c.is));
                cld v(in[p], (k == 0 || 2 * k == n) ? 0 : in[p + 1]);
                x[(size_t)k] = v;
                if (k > 0) x[(size_t)(n - k)] = std::conj(v);
            }
        }
        const int sign = c.kind == NLA_FFT_R2C ? -1 : c.kind == NLA_FFT_C2R ? 1 : c.dir;
        std::vector<cld> y = ref_dft(x, sign);
        for (int64_t k = 0; k < nout; k++) {
            cld r = y[(size_t)k] * (long double)c.scale, got;
            if (c.kind == NLA_FFT_C2R) {
                size_t p = (size_t)(b * c.od + k * c.os);
                isout[p] = 1;
                got = cld(out[p], 0);
                r = cld(r.real(), 0);
            } else {
                size_t p = (size_t)(2 * (b * c.od + k * c.os));
                isout[p] = isout[p + 1] = 1;
                got = cld(out[p], out[p + 1]);
            }
            double d1 = (double)std::abs(got - r);
            if (!(d1 <= err)) err = d1;
            mag = std::max(mag, (double)std::abs(r));
        }
    }
    for (size_t i = 0; i < bufsz; i++)
        if (!isout[i] && std::memcmp(&out[i], &outinit[i], sizeof(T)) != 0) {
            *why = "wrote outside the outputs";
            return 1e300;
        }
    return err / (mag > 0 ? mag : 1.0);
}

/* prime factors all <= 13 */
bool smooth13(int64_t n)
{
    for (int64_t p : {2, 3, 5, 7, 11, 13})
        while (n % p == 0) n /= p;
    return n == 1;
}

/* Length of the FFT the plan runs: n when its prime factors are at most
   127 (the engine is n/2 long for even real n), else Bluestein's power of
   two. */
int64_t engine_len(int64_t n, int kind)
{
    if (smooth_gen(n) && (kind == NLA_FFT_C2C || n > 1)) return n;
    int64_t m = 1;
    while (m < 2 * n - 1) m <<= 1;
    return m;
}

template <typename T>
void fft_suite(int maxlog)
{
    const char *tn = sizeof(T) == 8 ? "d" : "s";
    const char *kn[] = {"c2c", "r2c", "c2r"};
    auto tol = [](int64_t n, int kind) { return 8.0 * eps_of<T>() * (std::log2((double)engine_len(n, kind)) + 1); };
    char what[200];
    for (int kind = 0; kind < 3; kind++) {
        Stat small{std::string("fft_") + tn + " " + kn[kind] + " n=1..70, 5 layouts"};
        Stat pow2{std::string("fft_") + tn + " " + kn[kind] + " n=2^7..2^" + std::to_string(maxlog)};
        Stat mixed{std::string("fft_") + tn + " " + kn[kind] + " n>70, not 2^q"};
        Stat gen{std::string("fft_") + tn + " " + kn[kind] + " n>70, a prime 17..127"};
        std::vector<int64_t> ns;
        for (int64_t n = 1; n <= 70; n++) ns.push_back(n);
        for (int q = 7; q <= maxlog; q++) ns.push_back((int64_t)1 << q);
        for (int64_t n : {97, 127, 243, 1000, 4095, 4097, 10007})
            if (!g_quick || n < 2000) ns.push_back(n);
        /* mixed radix: one pass (<= 2048 / 4096), several passes, the
           primes 7, 11, 13; 1009 and 2 * 1009 stay Bluestein */
        for (int64_t n : {100, 1001, 1009, 1200, 2018, 2187, 3125, 6000, 15625, 17303, 69984, 100000, 371293,
                          823543, 1000000, 1594323})
            if (!g_quick || n <= 100000) ns.push_back(n);
        /* generic stages (primes 17..127; 97 and 127 above): with smaller
           radices (285 = 19*3*5, 1016 = 127*8, 2032 = 127*16), two in one
           pass, the second twiddled (1147 = 31*37, 1581 = 3*17*31), in
           several passes (2176 = 17*2^7 and 7429 = 17*19*23 in double,
           16129 = 127^2, 20677 = 23*29*31, 69632 = 17*2^12, 510510 =
           2*3*5*7*11*13*17), in the even real transforms' half length
           (254, 1016, 2032, 2176, 69632, 510510); 131 and 262 = 2*131 stay
           Bluestein */
        for (int64_t n : {131, 254, 262, 285, 1016, 1147, 1581, 2032, 2176, 7429, 16129, 20677, 69632, 510510})
            if (!g_quick || n <= 100000) ns.push_back(n);
        for (int64_t n : ns) {
            const bool big = n > 70, p2 = (n & (n - 1)) == 0, mix = !p2 && smooth_gen(n);
            if (g_quick && big && n > 8192 && !mix) continue;
            const int64_t nin = kind == 2 ? n / 2 + 1 : n, nout = kind == 1 ? n / 2 + 1 : n;
            for (int v = 0; v < 5; v++) {
                FftCase c{(nla_fft_kind)kind, n, 1, -1, 1, nin, 1, nout, false, 1.0};
                switch (v) {
                case 0: break;                                    /* contiguous, forward */
                case 1:                                           /* strided batch, backward, scaled */
                    c.howmany = 3; c.is = 2; c.id = 2 * nin + 1; c.os = 3; c.od = 3 * nout + 2;
                    c.dir = 1; c.scale = 0.5;
                    break;
                case 2:                                           /* in place, batched (FFTW padded for real) */
                    c.howmany = 5; c.dir = 1; c.scale = 1.0 / (double)n; c.inplace = true;
                    if (kind == 1) { c.id = 2 * (n / 2 + 1); c.od = n / 2 + 1; }
                    if (kind == 2) { c.id = n / 2 + 1; c.od = 2 * (n / 2 + 1); }
                    break;
                case 3:                                           /* in place, one transform, other strides */
                    c.inplace = true; c.is = 2; c.os = kind == 0 ? 3 : 1;
                    break;
                case 4:                                           /* transposed batch: ostride > odist */
                    c.howmany = 4; c.is = 4; c.id = 1; c.os = 4; c.od = 1;
                    break;
                }
                if (big && n > 4096 && v != 0 && !(p2 && v == 2) && !(mix && v == 1)) continue;
                if (big && n > 4096) c.howmany = std::min<int64_t>(c.howmany, 2);
                if (big && n >= (1 << 20) && v != 0) continue;
                std::string why;
                double err = fft_case<T>(c, &why);
                snprintf(what, sizeof what, "n=%lld layout=%d %s", (long long)n, v, why.c_str());
                (big ? (p2 ? pow2 : mix && !smooth13(n) ? gen : mixed) : small).add(err, tol(n, kind), what);
            }
        }
        small.print();
        pow2.print();
        mixed.print();
        gen.print();
    }
}

/* ------------------------------------------------------------ benchmarks */

#ifdef NLA_CHECK_BENCH
template <typename F>
float time_ms(F f, int reps)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    f();
    cudaEventRecord(a);
    for (int i = 0; i < reps; i++) f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms / reps;
}

void bench()
{
    cublasHandle_t h;
    cublasCreate(&h);
    printf("\nGEMM (no transposes), TFLOP/s: libnla vs cuBLAS\n");
    for (int64_t n : {2048, 4096, 8192}) {
        DevBuf<double> A(n * n), B(n * n), C(n * n);
        DevBuf<float> As(n * n), Bs(n * n), Cs(n * n);
        cudaMemset(A.p, 0, n * n * 8); cudaMemset(B.p, 0, n * n * 8); cudaMemset(C.p, 0, n * n * 8);
        cudaMemset(As.p, 0, n * n * 4); cudaMemset(Bs.p, 0, n * n * 4); cudaMemset(Cs.p, 0, n * n * 4);
        double one = 1, zero = 0;
        float ones = 1, zeros = 0;
        int reps = n >= 8192 ? 3 : 10;
        float t1 = time_ms([&] { nla_cuda_gemm_d(0, 0, 0, n, n, n, 1.0, A.p, n, 0, B.p, n, 0, 0.0, C.p, n, 0, 1); }, reps);
        float t2 = time_ms([&] { cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)n, (int)n, &one, A.p, (int)n, B.p, (int)n, &zero, C.p, (int)n); }, reps);
        float t3 = time_ms([&] { nla_cuda_gemm_s(0, 0, 0, n, n, n, 1.0f, As.p, n, 0, Bs.p, n, 0, 0.0f, Cs.p, n, 0, 1); }, reps);
        float t4 = time_ms([&] { cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)n, (int)n, &ones, As.p, (int)n, Bs.p, (int)n, &zeros, Cs.p, (int)n); }, reps);
        double fl = 2.0 * n * n * n * 1e-9;
        printf("  n=%5lld  dgemm %7.2f vs %7.2f (ratio %.2f)   sgemm %7.2f vs %7.2f (ratio %.2f)\n", (long long)n,
               fl / t1, fl / t2, t2 / t1, fl / t3, fl / t4, t4 / t3);
    }
    cublasDestroy(h);
    printf("\nFFT C2C forward, batches of 2^26 points (2^25 for double at 2^25+), mflops 5 n log2 n / t\n");
    for (int dbl = 1; dbl >= 0; dbl--)
        for (int q = 10; q <= 24; q += 2) {
            int64_t n = (int64_t)1 << q, total = (int64_t)1 << 26, batch = total / n;
            size_t esz = dbl ? 16 : 8;
            DevBuf<unsigned char> x(total * esz), y(total * esz);
            cudaMemset(x.p, 0, total * esz);
            nla_fft_desc d;
            std::memset(&d, 0, sizeof d);
            d.kind = NLA_FFT_C2C; d.precision = dbl ? NLA_DOUBLE : NLA_FLOAT; d.direction = NLA_FFT_FORWARD;
            d.n = n; d.howmany = batch; d.istride = d.ostride = 1; d.idist = d.odist = n; d.scale = 1;
            nla_cuda_fft *p;
            CK(nla_cuda_fft_create(&d, &p));
            DevBuf<unsigned char> w(nla_cuda_fft_workspace(p));
            cufftHandle cp;
            int nn = (int)n;
            cufftPlanMany(&cp, 1, &nn, nullptr, 1, nn, nullptr, 1, nn, dbl ? CUFFT_Z2Z : CUFFT_C2C, (int)batch);
            float t1 = time_ms([&] { nla_cuda_fft_exec(p, 0, x.p, y.p, w.p); }, 10);
            float t2 = time_ms([&] {
                if (dbl) cufftExecZ2Z(cp, (cufftDoubleComplex *)x.p, (cufftDoubleComplex *)y.p, CUFFT_FORWARD);
                else cufftExecC2C(cp, (cufftComplex *)x.p, (cufftComplex *)y.p, CUFFT_FORWARD);
            }, 10);
            double mf = 5.0 * (double)total * q / 1e3;   /* per ms -> mflops */
            printf("  %s n=2^%d x %lld: %9.0f vs %9.0f mflops (ratio %.2f)\n", dbl ? "z" : "c", q, (long long)batch,
                   mf / t1, mf / t2, t2 / t1);
            cufftDestroy(cp);
            nla_cuda_fft_destroy(p);
        }
}
#endif

} /* namespace */

int main(int argc, char **argv)
{
    bool do_gemm = true, do_fft = true, do_l2 = true, do_bench = false;
    int maxlog = 22;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) g_quick = true;
        else if (!strcmp(argv[i], "--gemm")) do_fft = do_l2 = false;
        else if (!strcmp(argv[i], "--fft")) do_gemm = do_l2 = false;
        else if (!strcmp(argv[i], "--level2")) do_gemm = do_fft = false;
        else if (!strcmp(argv[i], "--bench")) do_bench = true;
        else if (!strcmp(argv[i], "--maxlog") && i + 1 < argc) maxlog = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--quick] [--gemm|--fft|--level2] [--maxlog Q] [--bench]\n", argv[0]);
            return 2;
        }
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("skipped: no CUDA device\n");
        return 77;
    }
    if (g_quick && maxlog > 14) maxlog = 14;
    if (do_gemm) {
        gemm_suite<double>();
        gemm_suite<float>();
    }
    if (do_l2) {
        level2_suite<double>();
        level2_suite<float>();
    }
    if (do_fft) {
        fft_suite<double>(maxlog);
        fft_suite<float>(maxlog);
    }
#ifdef NLA_CHECK_BENCH
    if (do_bench) bench();
#else
    if (do_bench) printf("--bench: rebuild with -DNLA_CHECK_BENCH -lcublas -lcufft\n");
#endif
    printf("%ld cases, %d failed\n", g_cases, g_fail);
    return g_fail ? 1 : 0;
}
