/*
 * test_cuda.c - the CUDA backend (the real plugin, libnla-cuda.so).
 *
 * With a CUDA device, every routine of the plugin is checked against the
 * CPU backend, in both precisions, over size and argument sweeps: gemv and
 * gbmv (N and T), spmv (U and L), gemm (all transposes, both layouts) and
 * strided-batched gemm, and FFTs (C2C both directions, R2C, C2R, batched,
 * strided, in place).  Each case runs twice: on device memory (nla_malloc,
 * nla_upload, the call, nla_context_synchronize, nla_download) and on host
 * memory (staged by the plugin).  Level-2 and GEMM results must agree
 * element by element within 4 (k+2) eps times the magnitude of the terms
 * (|alpha| |op(A)| |x| + |beta| |y|, computed by the CPU backend on absolute
 * values), FFTs within c eps log2(n) in relative L2 norm; beta == 0 must
 * overwrite a NaN y/C, alpha == 0 must not read A or x (both NULL), and
 * nothing between strided elements may change.  Then: AUTO's placement,
 * CUDA errors (status and message), and one FFT plan run from 4 threads.
 * Without a device, each of these tests reports "skipped: no CUDA device"
 * with the reason (Criterion counts it as skipped, not passed; when every
 * test is skipped the program exits 77, SKIP for make check).
 *
 * Without a device but with the plugin built (CI: nvcc, no GPU), the
 * fallback tests load the real plugin: it must pass the loader's ABI check
 * and report itself unavailable (no driver / no device), NLA_BACKEND=cuda
 * must give NLA_ENOBACKEND with that reason, and AUTO must run on the CPU.
 *
 * NLA_CUDA_PLUGIN (set by make check) is the built plugin; NLA_WITH_CUDA
 * says whether it was built.  NLA_TEST_CUDA_QUICK=1 runs a reduced size set
 * (tools/gpu-check.sh uses it under compute-sanitizer).
 *
 * The precision-generic part is this file included into itself with TT
 * (the type) and TP (its letter) defined.
 */
#ifndef TT /* ------------------------------------------------------ outer */

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include "nla.h"
#include "refs.h"

#define SENTINEL 12345.0

static int quick(void)
{
    const char *q = getenv("NLA_TEST_CUDA_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

static int plugin_built(void)
{
    const char *w = getenv("NLA_WITH_CUDA"), *p = getenv("NLA_CUDA_PLUGIN");
    struct stat st;
    return w && strcmp(w, "yes") == 0 && p && stat(p, &st) == 0;
}

/* Every test: the built plugin, no NLA_BACKEND. */
static void use_plugin(void)
{
    unsetenv("NLA_BACKEND");
    if (plugin_built())
        setenv("NLA_PLUGIN_PATH", getenv("NLA_CUDA_PLUGIN"), 1);
    else
        setenv("NLA_PLUGIN_PATH", "/nonexistent/libnla-cuda.so", 1);
}

static void use_plugin_env_cuda(void)
{
    use_plugin();
    setenv("NLA_BACKEND", "cuda", 1);
}

/* The GPU tests: a CUDA context, or the test is skipped. */
static nla_context *need_device(void)
{
    nla_context *ctx = NULL;
    if (!plugin_built())
        cr_skip_test("skipped: no CUDA device (the CUDA plugin was not built)");
    if (!nla_backend_available(NLA_BACKEND_CUDA))
        cr_skip_test("skipped: no CUDA device (%s)",
                     nla_backend_unavailable_reason(NLA_BACKEND_CUDA));
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_CUDA), NLA_OK, "%s", nla_last_error());
    return ctx;
}

/* where element i of a BLAS vector of length len lives */
static size_t at(int64_t len, int64_t inc, int64_t i)
{
    return (size_t)(inc > 0 ? i * inc : (len - 1 - i) * -inc);
}

static size_t vec_size(int64_t len, int64_t inc)
{
    int64_t step = inc < 0 ? -inc : inc;
    return len > 0 ? (size_t)((len - 1) * step + 2) : 1; /* one sentinel past the end */
}

static void *dev_copy(nla_context *ctx, const void *host, size_t bytes)
{
    void *d = NULL;
    cr_assert_eq(nla_malloc(ctx, &d, bytes), NLA_OK, "%s", nla_context_error(ctx));
    cr_assert_eq(nla_upload(ctx, d, host, bytes), NLA_OK, "%s", nla_context_error(ctx));
    return d;
}

/* (alpha, beta) pairs; beta < -1.5 means beta = 0 with NaN in y/C */
static const double ab_pairs[][2] = { { 0.7, 0.3 }, { 1, 0 }, { 0, 0.7 }, { 0.7, 1 },
                                      { -1.3, -2 } };
#define N_AB (sizeof ab_pairs / sizeof ab_pairs[0])
static const int64_t inc_pairs[][2] = { { 1, 1 }, { -1, 2 }, { 3, -2 } };
#define N_INC (sizeof inc_pairs / sizeof inc_pairs[0])

#define TT double
#define TP d
#define T_EPS 0x1p-52
#define T_FILL ref_fill
#include "test_cuda.c"
#undef TT
#undef TP
#undef T_EPS
#undef T_FILL

#define TT float
#define TP s
#define T_EPS 0x1p-23
#define T_FILL ref_fillf
#include "test_cuda.c"
#undef TT
#undef TP
#undef T_EPS
#undef T_FILL

/* ------------------------------------------------------- without a device */

static void need_no_device(void)
{
    if (!plugin_built())
        cr_skip_test("skipped: the CUDA plugin was not built (--without-cuda or no nvcc)");
    if (nla_backend_available(NLA_BACKEND_CUDA))
        cr_skip_test("skipped: a CUDA device is present, so there is no fallback to test");
}

Test(cuda_fallback, plugin_loads_and_reports_no_device, .init = use_plugin)
{
    const char *why;
    need_no_device();
    why = nla_backend_unavailable_reason(NLA_BACKEND_CUDA);
    /* the loader opened the plugin and accepted its ABI: the reason is the
       plugin's own (a missing file, symbols or ABI would say so) */
    cr_assert(!strstr(why, "not found") && !strstr(why, "cannot be loaded") &&
              !strstr(why, "not a libnla plugin") && !strstr(why, "ABI"),
              "the plugin did not load: %s", why);
    cr_assert(strstr(why, "driver") || strstr(why, "device"),
              "the reason names neither the driver nor a device: %s", why);
}

Test(cuda_fallback, explicit_cuda_context_refused, .init = use_plugin)
{
    nla_context *ctx = NULL;
    need_no_device();
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_CUDA), NLA_ENOBACKEND);
    cr_assert_null(ctx);
    cr_assert(strstr(nla_last_error(), nla_backend_unavailable_reason(NLA_BACKEND_CUDA)),
              "%s", nla_last_error());
}

Test(cuda_fallback, env_backend_cuda_refused, .init = use_plugin_env_cuda)
{
    nla_context *ctx = NULL;
    need_no_device();
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_AUTO), NLA_ENOBACKEND);
    cr_assert_null(ctx);
    cr_assert(strstr(nla_last_error(), "cuda"), "%s", nla_last_error());
    cr_assert(strstr(nla_last_error(), nla_backend_unavailable_reason(NLA_BACKEND_CUDA)),
              "%s", nla_last_error());
}

Test(cuda_fallback, auto_runs_on_cpu, .init = use_plugin)
{
    enum { M = 31, N = 17, K = 23 };
    nla_context *ctx = NULL, *cpu = ref_cpu_context();
    double a[M * K], b[K * N], c[M * N], r[M * N];
    need_no_device();
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_AUTO), NLA_OK, "%s", nla_last_error());
    cr_assert_eq(nla_context_backend(ctx), NLA_BACKEND_CPU);
    ref_fill(a, M * K, 1);
    ref_fill(b, K * N, 2);
    ref_fill(c, M * N, 3);
    memcpy(r, c, sizeof c);
    cr_assert_eq(nla_dgemm(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, M, N, K, 1.0, a, M,
                           b, K, 0.5, c, M), NLA_OK);
    cr_assert_eq(nla_context_last_backend(ctx), NLA_BACKEND_CPU);
    cr_assert_eq(nla_dgemm(cpu, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, M, N, K, 1.0, a, M,
                           b, K, 0.5, r, M), NLA_OK);
    cr_assert_eq(memcmp(c, r, sizeof c), 0, "AUTO without CUDA is not the CPU backend");
    nla_context_destroy(ctx);
    nla_context_destroy(cpu);
}

/* ---------------------------------------------------------- with a device */

#define GPU_TEST_INIT(name, body, setup)                                       \
    Test(cuda, name, .init = setup, .timeout = 600)                            \
    {                                                                          \
        nla_context *gpu = need_device(), *cpu = ref_cpu_context();            \
        body(gpu, cpu);                                                        \
        nla_context_destroy(gpu);                                              \
        nla_context_destroy(cpu);                                              \
    }
#define GPU_TEST(name, body) GPU_TEST_INIT(name, body, use_plugin)

GPU_TEST(d_gemv, gemv_sweep_d)
GPU_TEST(s_gemv, gemv_sweep_s)
GPU_TEST(d_gbmv, gbmv_sweep_d)
GPU_TEST(s_gbmv, gbmv_sweep_s)
GPU_TEST(d_spmv, spmv_sweep_d)
GPU_TEST(s_spmv, spmv_sweep_s)
GPU_TEST(d_gemm, gemm_sweep_d)
GPU_TEST(s_gemm, gemm_sweep_s)
GPU_TEST(d_gemm_strided_batched, gemm_batched_sweep_d)
GPU_TEST(s_gemm_strided_batched, gemm_batched_sweep_s)
GPU_TEST(d_fft, fft_sweep_d)
GPU_TEST(s_fft, fft_sweep_s)

/* Each GEMM kernel, whatever the size picks: the 128x128 and the small
   tiles of every path (NLA_CUDA_GEMM_TILES), double on its three kernels
   (NLA_CUDA_DGEMM), all transposes, alpha/beta and layouts of the sweep. */
#define GEMM_KERNEL_TEST(name, body, dgemm, tiles)                             \
    static void init_##name(void)                                              \
    {                                                                          \
        use_plugin();                                                          \
        setenv("NLA_CUDA_DGEMM", dgemm, 1);                                    \
        setenv("NLA_CUDA_GEMM_TILES", tiles, 1);                               \
    }                                                                          \
    GPU_TEST_INIT(name, body, init_##name)

GEMM_KERNEL_TEST(d_gemm_mma16816_big, gemm_sweep_d, "mma16816", "big")
GEMM_KERNEL_TEST(d_gemm_mma16816_small, gemm_sweep_d, "mma16816", "small")
GEMM_KERNEL_TEST(d_gemm_mma884_big, gemm_sweep_d, "mma884", "big")
GEMM_KERNEL_TEST(d_gemm_mma884_small, gemm_sweep_d, "mma884", "small")
GEMM_KERNEL_TEST(d_gemm_simt, gemm_sweep_d, "simt", "big")
GEMM_KERNEL_TEST(s_gemm_big, gemm_sweep_s, "mma16816", "big")
GEMM_KERNEL_TEST(s_gemm_small, gemm_sweep_s, "mma16816", "small")

/* device work is asynchronous until nla_context_synchronize, host work is
   not; errors carry the CUDA message */
Test(cuda, memory_and_errors, .init = use_plugin)
{
    nla_context *ctx = need_device();
    double h[1000], back[1000];
    void *d = NULL, *huge = NULL;
    ref_fill(h, 1000, 5);
    d = dev_copy(ctx, h, sizeof h);
    cr_assert_eq(nla_download(ctx, back, d, sizeof back), NLA_OK);
    cr_assert_eq(memcmp(h, back, sizeof h), 0);
    /* device to device through nla_upload (cudaMemcpyDefault semantics) */
    cr_assert_eq(nla_context_synchronize(ctx), NLA_OK);
    nla_free(ctx, d);
    cr_assert_eq(nla_malloc(ctx, &huge, (size_t)1 << 60), NLA_ENOMEM);
    cr_assert_null(huge);
    cr_assert(strstr(nla_context_error(ctx), "CUDA error"), "%s", nla_context_error(ctx));
    /* the context still works after the failure */
    cr_assert_eq(nla_malloc(ctx, &d, 64), NLA_OK, "%s", nla_context_error(ctx));
    nla_free(ctx, d);
    nla_context_destroy(ctx);
}

/* z = A (A x) on the host, for caller_stream */
static void twice_ref(int n, const double *a, const double *x, double *z)
{
    double *y = calloc((size_t)n, sizeof *y);
    cr_assert_not_null(y);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            y[i] += a[i + (size_t)j * n] * x[j];
    for (int i = 0; i < n; i++)
        z[i] = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            z[i] += a[i + (size_t)j * n] * y[j];
    free(y);
}

/* nla_context_set_stream: a context on another's stream.  y = A x is
   queued by one context and z = A y by the other, and only the stream
   they share orders them (on a GPU the first call is still running when
   the second is queued).  Back on its own stream with NULL; destroying the
   borrower leaves the stream to its owner. */
Test(cuda, caller_stream, .init = use_plugin)
{
    enum { N = 512 };
    nla_context *owner = need_device(), *borrow = NULL;
    double *a = malloc(sizeof(double) * N * N), x[N], z[N], zref[N], tol = 0;
    void *s = nla_context_stream(owner), *mine, *da, *dx, *dy, *dz;

    cr_assert_not_null(a);
    cr_assert_not_null(s, "a CUDA context has a stream");
    ref_fill(a, (size_t)N * N, 11);
    ref_fill(x, N, 12);
    twice_ref(N, a, x, zref);
    for (int i = 0; i < N; i++)   /* two sums of N terms, rounded on both sides */
        tol = fmax(tol, 16.0 * N * 0x1p-52 * fabs(zref[i]));
    cr_assert_eq(nla_context_create(&borrow, NLA_BACKEND_CUDA), NLA_OK, "%s", nla_last_error());
    mine = nla_context_stream(borrow);
    cr_assert_neq(mine, s, "two contexts share a stream");
    if (getenv("NLA_TEST_CUDA_EMULATED")) {
        /* a handle the runtime never gave (on a GPU that may fault) */
        int bogus;
        cr_assert_eq(nla_context_set_stream(borrow, &bogus), NLA_EDEVICE);
        cr_assert(strstr(nla_context_error(borrow), "stream"), "%s",
                  nla_context_error(borrow));
        cr_assert_eq(nla_context_stream(borrow), mine, "a refused stream was kept");
    }
    cr_assert_eq(nla_context_set_stream(borrow, s), NLA_OK, "%s", nla_context_error(borrow));
    cr_assert_eq(nla_context_stream(borrow), s);
    da = dev_copy(owner, a, sizeof(double) * N * N);
    dx = dev_copy(owner, x, sizeof x);
    dy = dev_copy(owner, x, sizeof x);
    dz = dev_copy(owner, x, sizeof x);
    for (int r = 0; r < 3; r++) {
        cr_assert_eq(nla_dgemv(borrow, NLA_NO_TRANS, N, N, 1.0, da, N, dx, 1, 0.0, dy, 1),
                     NLA_OK, "%s", nla_context_error(borrow));
        cr_assert_eq(nla_dgemv(owner, NLA_NO_TRANS, N, N, 1.0, da, N, dy, 1, 0.0, dz, 1),
                     NLA_OK, "%s", nla_context_error(owner));
        cr_assert_eq(nla_download(owner, z, dz, sizeof z), NLA_OK);
        cr_assert_leq(ref_max_diff(z, zref, N), tol, "round %d: %g > %g", r,
                      ref_max_diff(z, zref, N), tol);
        memset(z, 0, sizeof z);
        cr_assert_eq(nla_upload(owner, dz, z, sizeof z), NLA_OK);
    }
    cr_assert_eq(nla_context_set_stream(borrow, NULL), NLA_OK, "%s", nla_context_error(borrow));
    cr_assert_eq(nla_context_stream(borrow), mine);
    cr_assert_eq(nla_context_set_stream(borrow, s), NLA_OK);
    nla_context_destroy(borrow);
    /* the owner's stream outlives the borrower */
    cr_assert_eq(nla_dgemv(owner, NLA_NO_TRANS, N, N, 1.0, da, N, dx, 1, 0.0, dy, 1), NLA_OK,
                 "%s", nla_context_error(owner));
    cr_assert_eq(nla_dgemv(owner, NLA_NO_TRANS, N, N, 1.0, da, N, dy, 1, 0.0, dz, 1), NLA_OK);
    cr_assert_eq(nla_context_synchronize(owner), NLA_OK, "%s", nla_context_error(owner));
    cr_assert_eq(nla_download(owner, z, dz, sizeof z), NLA_OK);
    cr_assert_leq(ref_max_diff(z, zref, N), tol);
    nla_free(owner, da);
    nla_free(owner, dx);
    nla_free(owner, dy);
    nla_free(owner, dz);
    nla_context_destroy(owner);
    free(a);
}

/* AUTO with CUDA: device pointers -> CUDA; level-2 on host data -> CPU;
   a large GEMM on host data -> CUDA, a small one -> CPU */
Test(cuda, auto_placement, .init = use_plugin)
{
    enum { N = 1024, S = 8 };
    nla_context *gpu = need_device(), *ctx = NULL;
    double *a = malloc(sizeof(double) * N * N), *c = malloc(sizeof(double) * N * N);
    double x[S], y[S], *dy;
    cr_assert(a && c);
    nla_context_destroy(gpu);
    ref_fill(a, (size_t)N * N, 1);
    ref_fill(x, S, 2);
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_AUTO), NLA_OK, "%s", nla_last_error());
    cr_assert_eq(nla_context_backend(ctx), NLA_BACKEND_CUDA);
    cr_assert_eq(nla_context_set_threads(ctx, 1), NLA_OK);
    cr_assert_eq(nla_dgemm(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, S, S, S, 1.0, a,
                           N, a, N, 0.0, c, S), NLA_OK);
    cr_assert_eq(nla_context_last_backend(ctx), NLA_BACKEND_CPU);
    cr_assert_eq(nla_dgemm(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, N, N, N, 1.0, a,
                           N, a, N, 0.0, c, N), NLA_OK, "%s", nla_context_error(ctx));
    cr_assert_eq(nla_context_last_backend(ctx), NLA_BACKEND_CUDA);
    cr_assert_eq(nla_dgemv(ctx, NLA_NO_TRANS, S, S, 1.0, a, N, x, 1, 0.0, y, 1), NLA_OK);
    cr_assert_eq(nla_context_last_backend(ctx), NLA_BACKEND_CPU);
    dy = dev_copy(ctx, y, sizeof y);
    cr_assert_eq(nla_dgemv(ctx, NLA_NO_TRANS, S, S, 1.0, a, N, x, 1, 0.0, dy, 1), NLA_OK);
    cr_assert_eq(nla_context_last_backend(ctx), NLA_BACKEND_CUDA);
    cr_assert_eq(nla_download(ctx, c, dy, sizeof y), NLA_OK);
    cr_assert_leq(ref_max_diff(c, y, S), 64 * 0x1p-52);
    nla_free(ctx, dy);
    nla_context_destroy(ctx);
    free(a);
    free(c);
}

/* One plan, 4 threads at once, host and device data: every result equals
   the single-threaded one bitwise. */
struct fft_job {
    const nla_fft_plan *plan;
    nla_context *ctx;
    const double *in;
    double *out;
    int device;
    nla_status st;
};

static void *fft_thread(void *p)
{
    struct fft_job *j = p;
    for (int r = 0; r < 5 && j->st == NLA_OK; r++)
        j->st = nla_fft_execute(j->plan, j->in, j->out);
    return NULL;
}

Test(cuda, fft_plan_from_threads, .init = use_plugin)
{
    enum { N = 4096, H = 4, T = 4 };
    nla_context *ctx = need_device();
    if (getenv("NLA_TEST_CUDA_EMULATED"))
        cr_skip_test("skipped: the CUDA emulation (tests/cuda_emu) runs one host thread");
    nla_fft_desc d = { NLA_FFT_C2C, NLA_DOUBLE, NLA_FFT_FORWARD, N, H, 0, 0, 0, 0, 0 };
    nla_fft_plan *plan = NULL;
    size_t bytes = sizeof(double) * 2 * N * H;
    double *in = malloc(bytes), *want = malloc(bytes), *got[T];
    void *din[T], *dout[T];
    struct fft_job jobs[T];
    pthread_t th[T];

    cr_assert(in && want);
    ref_fill(in, 2 * N * H, 9);
    cr_assert_eq(nla_fft_plan_create(ctx, &d, &plan), NLA_OK, "%s", nla_context_error(ctx));
    cr_assert_eq(nla_fft_execute(plan, in, want), NLA_OK, "%s", nla_last_error());
    for (int t = 0; t < T; t++) {
        got[t] = malloc(bytes);
        cr_assert(got[t]);
        din[t] = dev_copy(ctx, in, bytes);
        cr_assert_eq(nla_malloc(ctx, &dout[t], bytes), NLA_OK);
        jobs[t] = (struct fft_job){ plan, ctx, t & 1 ? din[t] : in, t & 1 ? dout[t] : got[t],
                                    t & 1, NLA_OK };
        cr_assert_eq(pthread_create(&th[t], NULL, fft_thread, &jobs[t]), 0);
    }
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        cr_assert_eq(jobs[t].st, NLA_OK, "thread %d: %s", t, nla_strerror(jobs[t].st));
    }
    cr_assert_eq(nla_context_synchronize(ctx), NLA_OK);
    for (int t = 0; t < T; t++) {
        if (t & 1)
            cr_assert_eq(nla_download(ctx, got[t], dout[t], bytes), NLA_OK);
        cr_assert_eq(memcmp(got[t], want, bytes), 0, "thread %d differs", t);
        nla_free(ctx, din[t]);
        nla_free(ctx, dout[t]);
        free(got[t]);
    }
    nla_fft_plan_destroy(plan);
    nla_context_destroy(ctx);
    free(in);
    free(want);
}

/* ------------------------------------------------------------ Frank-Wolfe */

/* One problem for the device loop: every built-in objective kind over every
   set the device LMO handles, its arrays on the host or in device memory. */
enum { FW_M = 45, FW_N = 30, FW_KL = 3, FW_KU = 2 };
#define FW_OBJS 7
#define FW_SETS 5

struct fw_prob {
    double a[FW_M * FW_N], b[FW_M], c[FW_N], lo[FW_N], hi[FW_N], x0[FW_N];
    void *dev[3];            /* device copies of a, b|c, x when on the device */
    nla_fw_objective *obj;   /* on the arrays the problem uses (device or host) */
    nla_fw_objective *host;  /* on the host arrays: the CPU reference never reads
                                device memory (obj itself when that is the host) */
    nla_fw_set *set;
};

static const char *const fw_obj_names[FW_OBJS] = { "lsq", "lsq_band", "lsq_packed(U)",
                                                   "quad", "quad_band", "quad_packed(L)",
                                                   "lsq_packed(L)" };
static const char *const fw_set_names[FW_SETS] = { "prob_simplex", "unit_simplex", "l1_ball",
                                                   "linf_ball", "box" };

/* Q = B'B + I in the storage of objective kind k (dense, band k=FW_KL, packed) */
static void fw_spd(double *q, int k, uint64_t seed)
{
    double bm[FW_N * FW_N], full[FW_N * FW_N];
    ref_fill(bm, FW_N * FW_N, seed);
    for (int i = 0; i < FW_N; i++)
        for (int j = 0; j < FW_N; j++) {
            double s = i == j ? FW_N : 0;
            for (int l = 0; l < FW_N; l++)
                s += bm[l + i * FW_N] * bm[l + j * FW_N] / FW_N;
            full[i + j * FW_N] = s;
        }
    for (int j = 0, p = 0; j < FW_N; j++)
        for (int i = 0; i < FW_N; i++) {
            if (k == 3)
                q[i + j * FW_N] = full[i + j * FW_N];
            else if (k == 4 && abs(i - j) <= FW_KL)
                q[FW_KL + i - j + j * (2 * FW_KL + 1)] = full[i + j * FW_N] +
                                                         (i == j ? FW_N : 0);
            else if (k == 5 && i >= j)
                q[p++] = full[i + j * FW_N];
        }
}

/* objective kind k on a and b|c */
static nla_fw_objective *fw_obj_make(int k, const double *a, const double *bc)
{
    nla_fw_objective *obj = NULL;
    nla_status st = NLA_EINVAL;
    switch (k) {
    case 0: st = nla_fw_objective_create_lsq(&obj, FW_M, FW_N, a, FW_M, bc); break;
    case 1:
        st = nla_fw_objective_create_lsq_band(&obj, FW_M, FW_N, FW_KL, FW_KU, a,
                                              FW_KL + FW_KU + 1, bc);
        break;
    case 2: st = nla_fw_objective_create_lsq_packed(&obj, NLA_UPPER, FW_N, a, bc); break;
    case 3: st = nla_fw_objective_create_quad(&obj, FW_N, a, FW_N, bc); break;
    case 4: st = nla_fw_objective_create_quad_band(&obj, FW_N, FW_KL, a, 2 * FW_KL + 1, bc); break;
    case 5: st = nla_fw_objective_create_quad_packed(&obj, NLA_LOWER, FW_N, a, bc); break;
    case 6: st = nla_fw_objective_create_lsq_packed(&obj, NLA_LOWER, FW_N, a, bc); break;
    }
    cr_assert_eq(st, NLA_OK, "%s", nla_last_error());
    return obj;
}

/* the problem (objective k, set s); device: a, b or c and x0 in device memory */
static void fw_prob_make(nla_context *gpu, struct fw_prob *p, int k, int s, int device)
{
    const double r = 0.8;
    memset(p, 0, sizeof *p);
    ref_fill(p->a, FW_M * FW_N, 11 + (uint64_t)k);
    ref_fill(p->b, FW_M, 12);
    ref_fill(p->c, FW_N, 13);
    if (k >= 3 && k <= 5)
        fw_spd(p->a, k, 14);
    for (int i = 0; i < FW_N; i++) {
        p->lo[i] = -0.3 - 0.01 * i;
        p->hi[i] = 0.2 + 0.02 * i;
        p->x0[i] = s == 0 ? (i == 3 ? r : 0) : s == 4 ? 0.5 * (p->lo[i] + p->hi[i]) : 0;
    }
    if (device) {
        size_t an = k == 1 ? (FW_KL + FW_KU + 1) * FW_N : k == 4 ? (2 * FW_KL + 1) * FW_N
                    : k == 2 || k == 5 || k == 6 ? FW_N * (FW_N + 1) / 2 : FW_M * FW_N;
        p->dev[0] = dev_copy(gpu, p->a, an * sizeof(double));
        p->dev[1] = k >= 3 && k <= 5 ? dev_copy(gpu, p->c, sizeof p->c)
                                     : dev_copy(gpu, p->b, sizeof p->b);
        p->dev[2] = dev_copy(gpu, p->x0, sizeof p->x0);
    }
    const double *bc = k >= 3 && k <= 5 ? p->c : p->b;
    nla_status st = NLA_EINVAL;
    p->host = fw_obj_make(k, p->a, bc);
    p->obj = device ? fw_obj_make(k, p->dev[0], p->dev[1]) : p->host;
    switch (s) {
    case 0: st = nla_fw_set_create_prob_simplex(&p->set, FW_N, r); break;
    case 1: st = nla_fw_set_create_unit_simplex(&p->set, FW_N, r); break;
    case 2: st = nla_fw_set_create_l1_ball(&p->set, FW_N, r); break;
    case 3: st = nla_fw_set_create_linf_ball(&p->set, FW_N, 0.25); break;
    case 4: st = nla_fw_set_create_box(&p->set, FW_N, p->lo, p->hi); break;
    }
    cr_assert_eq(st, NLA_OK, "%s", nla_last_error());
}

static void fw_prob_free(nla_context *gpu, struct fw_prob *p)
{
    for (int i = 0; i < 3; i++)
        nla_free(gpu, p->dev[i]);
    if (p->obj != p->host)
        nla_fw_objective_destroy(p->obj);
    nla_fw_objective_destroy(p->host);
    nla_fw_set_destroy(p->set);
}

/* Options for the device loop's tests: vanilla with the agnostic rule (the
   defaults choose blended pairwise on the CPU, which the device loop does
   not run). */
static nla_fw_options *device_options(void)
{
    nla_fw_options *opt = NULL;
    cr_assert_eq(nla_fw_options_create(&opt), NLA_OK);
    cr_assert_eq(nla_fw_options_set_variant(opt, NLA_FW_VANILLA), NLA_OK);
    cr_assert_eq(nla_fw_options_set_step(opt, NLA_FW_AGNOSTIC, 0), NLA_OK);
    return opt;
}

/* Solve on gpu (x in device memory when the problem is) and on the CPU
   from the same start; the two runs take the same steps, so everything
   they report must agree up to the rounding of sums taken in another
   order. */
static void fw_compare(nla_context *gpu, struct fw_prob *p, const nla_fw_options *opt,
                       const char *what)
{
    nla_context *cpu = ref_cpu_context();
    double xg[FW_N], xc[FW_N];
    nla_fw_result rg, rc;
    nla_status sg, sc;
    double scale = 1;

    memcpy(xc, p->x0, sizeof xc);
    sc = nla_fw_solve(cpu, p->host, p->set, opt, xc, &rc);
    if (p->dev[2]) {
        sg = nla_fw_solve(gpu, p->obj, p->set, opt, p->dev[2], &rg);
        cr_assert_eq(nla_download(gpu, xg, p->dev[2], sizeof xg), NLA_OK);
    } else {
        memcpy(xg, p->x0, sizeof xg);
        sg = nla_fw_solve(gpu, p->obj, p->set, opt, xg, &rg);
    }
    cr_assert_eq(nla_context_last_backend(gpu), NLA_BACKEND_CUDA, "%s", what);
    cr_assert_eq(sg, sc, "%s: %s on CUDA (%s), %s on the CPU", what, nla_strerror(sg),
                 nla_context_error(gpu), nla_strerror(sc));
    cr_assert_eq(rg.stop, rc.stop, "%s: stop %d, CPU %d", what, rg.stop, rc.stop);
    cr_assert_eq(rg.iterations, rc.iterations, "%s: %lld iterations, CPU %lld", what,
                 (long long)rg.iterations, (long long)rc.iterations);
    cr_assert_eq(rg.active_set_size, 0);
    for (int i = 0; i < FW_N; i++)
        scale = fmax(scale, fabs(xc[i]));
    cr_assert_leq(ref_max_diff(xg, xc, FW_N), 1e-9 * scale, "%s: x differs by %g", what,
                  ref_max_diff(xg, xc, FW_N));
    cr_assert_leq(fabs(rg.f - rc.f), 1e-10 * fmax(1, fabs(rc.f)), "%s: f %.17g, CPU %.17g",
                  what, rg.f, rc.f);
    cr_assert_leq(fabs(rg.gap - rc.gap), 1e-9 * fmax(1, fabs(rc.f)),
                  "%s: gap %.17g, CPU %.17g", what, rg.gap, rc.gap);
    cr_assert_leq(fabs(rg.best_gap - rc.best_gap), 1e-9 * fmax(1, fabs(rc.f)), "%s", what);
    nla_context_destroy(cpu);
}

/* every objective kind, set and step rule, host and device data */
Test(cuda, fw_matches_cpu, .init = use_plugin, .timeout = 600)
{
    static const nla_fw_step_rule rules[] = { NLA_FW_AGNOSTIC, NLA_FW_SHORT_STEP, NLA_FW_EXACT,
                                              NLA_FW_ADAPTIVE };
    nla_context *gpu = need_device();
    nla_fw_options *opt = NULL;
    char what[160];
    int iters = quick() ? 40 : 150;

    opt = device_options();
    cr_assert_eq(nla_fw_options_set_tol(opt, 1e-12), NLA_OK);
    cr_assert_eq(nla_fw_options_set_max_iter(opt, iters), NLA_OK);
    for (int k = 0; k < FW_OBJS; k++)
        for (int s = 0; s < FW_SETS; s++)
            for (int v = 0; v < 2; v++) {
                const int rule = (k + s + 2 * v) % 4, device = (k + s + v) % 2;
                struct fw_prob p;
                /* L for the short step: an upper bound on the curvature */
                cr_assert_eq(nla_fw_options_set_step(opt, rules[rule],
                                                     rules[rule] == NLA_FW_SHORT_STEP ? 400
                                                                                      : 0),
                             NLA_OK);
                fw_prob_make(gpu, &p, k, s, device);
                snprintf(what, sizeof what, "%s over %s, rule %d, %s data", fw_obj_names[k],
                         fw_set_names[s], rule, device ? "device" : "host");
                fw_compare(gpu, &p, opt, what);
                fw_prob_free(gpu, &p);
            }
    nla_fw_options_destroy(opt);
    nla_context_destroy(gpu);
}

/* Ties: f = |x|^2 - sum x (Q = 2I in band storage, c = -1) from a vertex
   has a gradient with equal entries, so the LMO's choice is its tie rule
   (the lowest index).  n > 128 blocks of 256 threads puts ties in one
   thread's entries, across threads and across blocks. */
Test(cuda, fw_ties_lowest_index, .init = use_plugin, .timeout = 600)
{
    enum { N = 33000 };
    nla_context *gpu = need_device(), *cpu = ref_cpu_context();
    double *q = malloc(N * sizeof(double)), *c = malloc(N * sizeof(double));
    double *xg = calloc(N, sizeof(double)), *xc = calloc(N, sizeof(double));
    nla_fw_objective *obj = NULL;
    nla_fw_options *opt = NULL;
    nla_fw_result rg, rc;

    cr_assert(q && c && xg && xc);
    for (int i = 0; i < N; i++) {
        q[i] = 2;
        c[i] = -1;
    }
    cr_assert_eq(nla_fw_objective_create_quad_band(&obj, N, 0, q, 1, c), NLA_OK);
    opt = device_options();
    cr_assert_eq(nla_fw_options_set_max_iter(opt, 5), NLA_OK);
    /* the unit simplex shares the prob simplex's reduction */
    for (int s = 0; s < 3; s += 2) {
        nla_fw_set *set = NULL;
        cr_assert_eq(s == 0 ? nla_fw_set_create_prob_simplex(&set, N, 1)
                            : nla_fw_set_create_l1_ball(&set, N, 1), NLA_OK);
        memset(xg, 0, N * sizeof(double));
        xg[N - 7] = 1;
        memcpy(xc, xg, N * sizeof(double));
        cr_assert_eq(nla_fw_solve(cpu, obj, set, opt, xc, &rc), NLA_EMAXITER);
        cr_assert_eq(nla_fw_solve(gpu, obj, set, opt, xg, &rg), NLA_EMAXITER, "%s",
                     nla_context_error(gpu));
        cr_assert_eq(rg.iterations, rc.iterations);
        /* the CPU put weight on e_0 .. e_4 (and e_{N-7}) */
        cr_assert_gt(xc[0], 0);
        cr_assert_leq(ref_max_diff(xg, xc, N), 1e-12, "%s: x differs by %g",
                      fw_set_names[s], ref_max_diff(xg, xc, N));
        nla_fw_set_destroy(set);
    }
    nla_fw_options_destroy(opt);
    nla_fw_objective_destroy(obj);
    free(q);
    free(c);
    free(xg);
    free(xc);
    nla_context_destroy(gpu);
    nla_context_destroy(cpu);
}

/* The callback sees the same iterates (on the host) as on the CPU and can
   stop the solve; verbose rows; the time limit; NaN at the start. */
struct fw_trace {
    int64_t n;
    double f[64], gap[64], gamma[64], x3[64];
    int stop_at;
};

static int fw_trace_cb(const nla_fw_state *st, void *user)
{
    struct fw_trace *tr = user;
    if (st->t < 64) {
        tr->f[st->t] = st->f;
        tr->gap[st->t] = st->gap;
        tr->gamma[st->t] = st->gamma;
        tr->x3[st->t] = st->x[3];
    }
    tr->n = st->t + 1;
    cr_assert_eq(st->type, NLA_FW_STEP_FW);
    return st->t == tr->stop_at;
}

static int count_lines(FILE *f)
{
    int n = 0, ch;
    rewind(f);
    while ((ch = fgetc(f)) != EOF)
        n += ch == '\n';
    return n;
}

Test(cuda, fw_callback_verbose_numeric, .init = use_plugin, .timeout = 600)
{
    nla_context *gpu = need_device(), *cpu = ref_cpu_context();
    nla_fw_options *opt = NULL;
    struct fw_prob p;
    struct fw_trace tg, tc;
    nla_fw_result rg, rc;
    double xg[FW_N], xc[FW_N];
    FILE *vg = tmpfile(), *vc = tmpfile();

    cr_assert(vg && vc);
    /* the CPU's verbose table would add a row where least squares moves to
       A'A, which the device loop does not do: products only */
    cr_assert_eq(setenv("NLA_FW_GRAM", "never", 1), 0);
    fw_prob_make(gpu, &p, 0, 0, 1);
    opt = device_options();
    cr_assert_eq(nla_fw_options_set_step(opt, NLA_FW_EXACT, 0), NLA_OK);
    memset(&tg, 0, sizeof tg);
    memset(&tc, 0, sizeof tc);
    tg.stop_at = tc.stop_at = 17;
    cr_assert_eq(nla_fw_options_set_callback(opt, fw_trace_cb, &tg), NLA_OK);
    cr_assert_eq(nla_fw_options_set_verbose(opt, vg, 5), NLA_OK);
    memcpy(xg, p.x0, sizeof xg);
    cr_assert_eq(nla_fw_solve(gpu, p.obj, p.set, opt, xg, &rg), NLA_OK, "%s",
                 nla_context_error(gpu));
    cr_assert_eq(nla_fw_options_set_callback(opt, fw_trace_cb, &tc), NLA_OK);
    cr_assert_eq(nla_fw_options_set_verbose(opt, vc, 5), NLA_OK);
    memcpy(xc, p.x0, sizeof xc);
    cr_assert_eq(nla_fw_solve(cpu, p.host, p.set, opt, xc, &rc), NLA_OK);
    cr_assert_eq(rg.stop, NLA_FW_STOP_CALLBACK);
    cr_assert_eq(rc.stop, NLA_FW_STOP_CALLBACK);
    cr_assert_eq(rg.iterations, 17);
    cr_assert_eq(tg.n, 18);
    cr_assert_eq(tc.n, 18);
    for (int t = 0; t < 18; t++) {
        cr_assert_leq(fabs(tg.f[t] - tc.f[t]), 1e-10 * fmax(1, fabs(tc.f[t])), "t=%d", t);
        cr_assert_leq(fabs(tg.gap[t] - tc.gap[t]), 1e-9 * fmax(1, fabs(tc.f[t])), "t=%d", t);
        cr_assert_leq(fabs(tg.gamma[t] - tc.gamma[t]), 1e-9, "t=%d", t);
        cr_assert_leq(fabs(tg.x3[t] - tc.x3[t]), 1e-9, "t=%d: x_3 %g, CPU %g", t, tg.x3[t],
                      tc.x3[t]);
    }
    cr_assert_leq(ref_max_diff(xg, xc, FW_N), 1e-9);
    /* header, rows at t = 0, 5, 10, 15, "last" */
    cr_assert_eq(count_lines(vg), count_lines(vc));
    cr_assert_eq(count_lines(vg), 6);
    /* a NaN in b: f(x0) is NaN, x is x0, no step taken */
    nla_fw_objective_destroy(p.obj);
    p.b[5] = NAN;
    cr_assert_eq(nla_fw_objective_create_lsq(&p.obj, FW_M, FW_N, p.a, FW_M, p.b), NLA_OK);
    cr_assert_eq(nla_fw_options_set_callback(opt, NULL, NULL), NLA_OK);
    cr_assert_eq(nla_fw_options_set_verbose(opt, NULL, 1), NLA_OK);
    memcpy(xg, p.x0, sizeof xg);
    cr_assert_eq(nla_fw_solve(gpu, p.obj, p.set, opt, xg, &rg), NLA_ENUMERIC);
    cr_assert_eq(rg.stop, NLA_FW_STOP_NUMERIC);
    cr_assert_eq(rg.iterations, 0);
    cr_assert_eq(memcmp(xg, p.x0, sizeof xg), 0);
    fclose(vg);
    fclose(vc);
    nla_fw_options_destroy(opt);
    fw_prob_free(gpu, &p);
    nla_context_destroy(gpu);
    nla_context_destroy(cpu);
}

/* What the device loop does not run: NLA_ENOTSUP naming why, x untouched.
   AUTO: host data stays on the CPU, device data runs on CUDA. */
static double fw_user_f(int64_t n, const double *x, double *g, void *u)
{
    double f = 0;
    (void)u;
    for (int64_t i = 0; i < n; i++) {
        f += 0.5 * x[i] * x[i];
        if (g)
            g[i] = x[i];
    }
    return f;
}

Test(cuda, fw_unsupported_and_auto, .init = use_plugin, .timeout = 600)
{
    nla_context *gpu = need_device(), *autoc = NULL;
    nla_fw_options *opt = NULL;
    nla_fw_objective *user = NULL;
    nla_fw_set *ks = NULL;
    struct fw_prob p;
    double x[FW_N], keep[FW_N];
    nla_fw_result res;

    fw_prob_make(gpu, &p, 0, 0, 0);
    opt = device_options();
    memcpy(x, p.x0, sizeof x);
    memcpy(keep, x, sizeof x);
    cr_assert_eq(nla_fw_objective_create_user(&user, FW_N, fw_user_f, NULL), NLA_OK);
    cr_assert_eq(nla_fw_solve(gpu, user, p.set, opt, x, &res), NLA_ENOTSUP);
    cr_assert(strstr(nla_context_error(gpu), "user objective"), "%s", nla_context_error(gpu));
    cr_assert_eq(nla_fw_options_set_variant(opt, NLA_FW_AWAY), NLA_OK);
    cr_assert_eq(nla_fw_solve(gpu, p.obj, p.set, opt, x, &res), NLA_ENOTSUP);
    cr_assert(strstr(nla_context_error(gpu), "away"), "%s", nla_context_error(gpu));
    cr_assert_eq(nla_fw_options_set_variant(opt, NLA_FW_VANILLA), NLA_OK);
    cr_assert_eq(nla_fw_set_create_ksparse(&ks, FW_N, 2, 0.5), NLA_OK);
    memset(x, 0, sizeof x);
    cr_assert_eq(nla_fw_solve(gpu, p.obj, ks, opt, x, &res), NLA_ENOTSUP);
    cr_assert(strstr(nla_context_error(gpu), "K-sparse"), "%s", nla_context_error(gpu));
    memcpy(x, p.x0, sizeof x);
    /* AUTO */
    cr_assert_eq(nla_context_create(&autoc, NLA_BACKEND_AUTO), NLA_OK);
    cr_assert_eq(nla_fw_options_set_max_iter(opt, 20), NLA_OK);
    cr_assert_eq(nla_fw_solve(autoc, p.obj, p.set, opt, x, &res), NLA_EMAXITER);
    cr_assert_eq(nla_context_last_backend(autoc), NLA_BACKEND_CPU);
    cr_assert_eq(nla_fw_solve(autoc, user, p.set, opt, keep, &res), NLA_EMAXITER);
    cr_assert_eq(nla_context_last_backend(autoc), NLA_BACKEND_CPU);
    fw_prob_free(gpu, &p);
    fw_prob_make(autoc, &p, 0, 0, 1);
    fw_compare(autoc, &p, opt, "AUTO, device data");
    /* device data with what only the CPU runs: refused, not read on the host */
    cr_assert_eq(nla_fw_options_set_variant(opt, NLA_FW_PAIRWISE), NLA_OK);
    cr_assert_eq(nla_fw_solve(autoc, p.obj, p.set, opt, p.dev[2], &res), NLA_ENOTSUP);
    {
        double f = -1, v[FW_N];
        cr_assert_eq(nla_fw_objective_eval(autoc, p.obj, p.x0, &f, NULL), NLA_ENOTSUP);
        cr_assert(strstr(nla_context_error(autoc), "obj (its matrix)"), "%s",
                  nla_context_error(autoc));
        cr_assert_eq(f, -1);
        cr_assert_eq(nla_fw_set_lmo(autoc, p.set, p.dev[2], v), NLA_ENOTSUP);
        cr_assert(strstr(nla_context_error(autoc), "g: device memory"), "%s",
                  nla_context_error(autoc));
        cr_assert_eq(nla_fw_objective_eval(gpu, user, keep, &f, NULL), NLA_ENOTSUP);
        cr_assert(strstr(nla_context_error(gpu), "CPU backend only"), "%s",
                  nla_context_error(gpu));
    }
    /* the defaults (NLA_FW_AUTO) run the device loop as vanilla */
    {
        nla_fw_options *dflt = NULL;
        nla_fw_result rv;
        double xv[FW_N];
        cr_assert_eq(nla_fw_options_create(&dflt), NLA_OK);
        cr_assert_eq(nla_fw_options_set_max_iter(dflt, 20), NLA_OK);
        cr_assert_eq(nla_fw_options_set_step(opt, NLA_FW_ADAPTIVE, 0), NLA_OK);
        cr_assert_eq(nla_fw_options_set_variant(opt, NLA_FW_VANILLA), NLA_OK);
        memcpy(x, p.x0, sizeof x);
        memcpy(xv, p.x0, sizeof xv);
        cr_assert_eq(nla_fw_solve(gpu, p.host, p.set, dflt, x, &res), NLA_EMAXITER, "%s",
                     nla_context_error(gpu));
        cr_assert_eq(nla_context_last_backend(gpu), NLA_BACKEND_CUDA);
        cr_assert_eq(nla_fw_solve(gpu, p.host, p.set, opt, xv, &rv), NLA_EMAXITER);
        cr_assert_eq(res.active_set_size, 0);
        cr_assert_eq(res.lmo_calls, 21);
        cr_assert_eq(memcmp(x, xv, sizeof x), 0, "AUTO and vanilla differ on the device");
        nla_fw_options_destroy(dflt);
    }
    fw_prob_free(autoc, &p);
    nla_fw_set_destroy(ks);
    nla_fw_objective_destroy(user);
    nla_fw_options_destroy(opt);
    nla_context_destroy(autoc);
    nla_context_destroy(gpu);
}

/* ---------------------------------------------------------------- main */

/* When every test was skipped (no plugin, or no device and a GPU-only
   --filter), exit 77 so that make check reports SKIP, not PASS; under
   make check-valgrind, which wants 0, only the Criterion summary says so. */
static size_t n_passed, n_failed;

ReportHook(POST_ALL)(struct criterion_global_stats *st)
{
    n_passed = st->tests_passed;
    n_failed = st->tests_failed + st->tests_crashed;
}

int main(int argc, char *argv[])
{
    struct criterion_test_set *tests = criterion_initialize();
    int ok;
    if (!criterion_handle_args(argc, argv, true)) { /* --help, --list, ... */
        criterion_finalize(tests);
        return 0;
    }
    ok = criterion_run_all_tests(tests);
    criterion_finalize(tests);
    if (ok && n_passed == 0 && n_failed == 0 && !getenv("NLA_UNDER_VALGRIND"))
        return 77;
    return ok ? 0 : 1;
}

#else /* ------------------------------------------------- per precision */

/* ----------------------------------------------------------- level 2 */

typedef struct X(l2case) {
    char r;                 /* 'v' gemv, 'b' gbmv, 'p' spmv */
    int trans;              /* gemv, gbmv */
    char uplo;              /* spmv */
    int64_t m, n, kl, ku, ld;
    double alpha, beta;
    int nan_y;
    int64_t incx, incy;
    int dev;                /* device memory (else host memory, staged) */
} X(l2case);

static const char *X(l2desc)(const X(l2case) *c)
{
    static char buf[256];
    snprintf(buf, sizeof buf,
             "%s%s%s trans=%c uplo=%c m=%lld n=%lld kl=%lld ku=%lld ld=%lld alpha=%g "
             "beta=%g%s incx=%lld incy=%lld",
             PS(TP), c->r == 'v' ? "gemv" : c->r == 'b' ? "gbmv" : "spmv",
             c->dev ? " (device memory)" : " (host memory)", c->trans ? 'T' : 'N',
             c->uplo ? c->uplo : '-', (long long)c->m, (long long)c->n, (long long)c->kl,
             (long long)c->ku, (long long)c->ld, c->alpha, c->beta,
             c->nan_y ? "(NaN y)" : "", (long long)c->incx, (long long)c->incy);
    return buf;
}

static nla_status X(l2_call)(nla_context *ctx, const X(l2case) *c, TT alpha, TT beta,
                             const TT *a, const TT *x, TT *y)
{
    nla_trans t = c->trans ? NLA_TRANS : NLA_NO_TRANS;
    switch (c->r) {
    case 'v':
        return NLA(gemv)(ctx, t, c->m, c->n, alpha, a, c->ld, x, c->incx, beta, y, c->incy);
    case 'b':
        return NLA(gbmv)(ctx, t, c->m, c->n, c->kl, c->ku, alpha, a, c->ld, x, c->incx, beta,
                         y, c->incy);
    default:
        return NLA(spmv)(ctx, (nla_uplo)c->uplo, c->n, alpha, a, x, c->incx, beta, y,
                         c->incy);
    }
}

/* the stored matrix, random where the routine reads it, NaN elsewhere */
static size_t X(l2_storage)(const X(l2case) *c, TT **a)
{
    size_t size;
    TT *v;
    if (c->r == 'p')
        size = (size_t)(c->n * (c->n + 1) / 2);
    else
        size = (size_t)(c->ld * c->n);
    v = malloc((size ? size : 1) * sizeof(TT));
    cr_assert(v);
    T_FILL(v, size, 7 + (uint64_t)c->m * 31 + (uint64_t)c->n);
    for (int64_t j = 0; c->r != 'p' && j < c->n; j++)
        for (int64_t r = 0; r < c->ld; r++) {
            int used = c->r == 'v' ? r < c->m
                                   : r <= c->kl + c->ku && r - c->ku + j >= 0 &&
                                         r - c->ku + j < c->m;
            if (!used)
                v[r + j * c->ld] = (TT)NAN;
        }
    *a = v;
    return size;
}

static TT *X(vec_new)(int64_t len, int64_t inc, uint64_t seed, int nan)
{
    size_t size = vec_size(len, inc);
    TT *v = malloc(size * sizeof(TT)), *tmp = malloc((size_t)(len > 0 ? len : 1) * sizeof(TT));
    cr_assert(v && tmp);
    for (size_t i = 0; i < size; i++)
        v[i] = (TT)SENTINEL;
    T_FILL(tmp, (size_t)len, seed);
    for (int64_t i = 0; i < len; i++)
        v[at(len, inc, i)] = nan ? (TT)NAN : tmp[i];
    free(tmp);
    return v;
}

static TT *X(abs_copy)(const TT *v, size_t n)
{
    TT *w = malloc((n ? n : 1) * sizeof(TT));
    cr_assert(w);
    for (size_t i = 0; i < n; i++)
        w[i] = isnan(v[i]) ? 0 : (TT)fabs((double)v[i]);
    return w;
}

static void X(l2_case)(nla_context *gpu, nla_context *cpu, const X(l2case) *c)
{
    const int64_t lx = c->r == 'p' ? c->n : c->trans ? c->m : c->n;
    const int64_t ly = c->r == 'p' ? c->n : c->trans ? c->n : c->m;
    const TT alpha = (TT)c->alpha, beta = c->nan_y ? 0 : (TT)c->beta;
    const size_t ysize = vec_size(ly, c->incy), xsize = vec_size(lx, c->incx);
    TT *a, *x = X(vec_new)(lx, c->incx, 100 + (uint64_t)lx, 0);
    TT *y = X(vec_new)(ly, c->incy, 200 + (uint64_t)ly, c->nan_y);
    TT *yref = malloc(ysize * sizeof(TT)), *yin = malloc(ysize * sizeof(TT));
    TT *ab, *xb, *yb;
    size_t asize = X(l2_storage)(c, &a);
    const TT *pa = c->alpha != 0 ? a : NULL, *px = c->alpha != 0 ? x : NULL;
    nla_status s;

    cr_assert(yref && yin);
    memcpy(yref, y, ysize * sizeof(TT));
    memcpy(yin, y, ysize * sizeof(TT));
    cr_assert_eq(X(l2_call)(cpu, c, alpha, beta, pa, px, yref), NLA_OK, "%s",
                 nla_context_error(cpu));
    /* the size of the terms: |alpha| |A| |x| + |beta| |y| */
    ab = X(abs_copy)(a, asize);
    xb = X(abs_copy)(x, xsize);
    yb = X(abs_copy)(yin, ysize);
    cr_assert_eq(X(l2_call)(cpu, c, (TT)fabs(c->alpha), (TT)fabs((double)beta),
                            c->alpha != 0 ? ab : NULL, c->alpha != 0 ? xb : NULL, yb),
                 NLA_OK);
    if (c->dev) {
        void *da = c->alpha != 0 && asize ? dev_copy(gpu, a, asize * sizeof(TT)) : NULL;
        void *dx = c->alpha != 0 ? dev_copy(gpu, x, xsize * sizeof(TT)) : NULL;
        void *dy = dev_copy(gpu, y, ysize * sizeof(TT));
        s = X(l2_call)(gpu, c, alpha, beta, da, dx, dy);
        cr_assert_eq(s, NLA_OK, "%s: %s", X(l2desc)(c), nla_context_error(gpu));
        cr_assert_eq(nla_context_last_backend(gpu), NLA_BACKEND_CUDA);
        cr_assert_eq(nla_context_synchronize(gpu), NLA_OK, "%s", nla_context_error(gpu));
        cr_assert_eq(nla_download(gpu, y, dy, ysize * sizeof(TT)), NLA_OK);
        nla_free(gpu, da);
        nla_free(gpu, dx);
        nla_free(gpu, dy);
    } else {
        s = X(l2_call)(gpu, c, alpha, beta, pa, px, y);
        cr_assert_eq(s, NLA_OK, "%s: %s", X(l2desc)(c), nla_context_error(gpu));
    }
    for (int64_t i = 0; i < ly; i++) {
        size_t p = at(ly, c->incy, i);
        int64_t k = c->r == 'b' ? c->kl + c->ku + 1 : lx;
        double tol = 4.0 * (double)(k + 2) * T_EPS * (double)yb[p];
        cr_assert(!isnan((double)y[p]) && fabs((double)y[p] - (double)yref[p]) <= tol,
                  "%s: y[%lld] = %.10g, CPU %.10g, |err| %.3g > %.3g", X(l2desc)(c),
                  (long long)i, (double)y[p], (double)yref[p],
                  fabs((double)y[p] - (double)yref[p]), tol);
    }
    for (size_t p = 0; p < ysize; p++) {
        int slot = p < (size_t)(ly - 1) * (size_t)llabs(c->incy) + 1 &&
                   p % (size_t)llabs(c->incy) == 0;
        if (!slot)
            cr_assert(y[p] == (TT)SENTINEL, "%s: y slot %zu between elements changed",
                      X(l2desc)(c), p);
    }
    free(a);
    free(x);
    free(y);
    free(yref);
    free(yin);
    free(ab);
    free(xb);
    free(yb);
}

/* every (alpha, beta), increment pair and memory kind for one shape */
static void X(l2_all)(nla_context *gpu, nla_context *cpu, X(l2case) c)
{
    for (size_t ab = 0; ab < N_AB; ab++)
        for (size_t in = 0; in < N_INC; in++)
            for (int dev = 0; dev < 2; dev++) {
                if (quick() && (in + ab) % 2)
                    continue;
                c.alpha = ab_pairs[ab][0];
                c.beta = ab_pairs[ab][1];
                c.nan_y = c.beta < -1.5;
                c.incx = inc_pairs[in][0];
                c.incy = inc_pairs[in][1];
                c.dev = dev;
                X(l2_case)(gpu, cpu, &c);
            }
}

static void X(gemv_sweep)(nla_context *gpu, nla_context *cpu)
{
    /* rows x columns: tiny, odd, and shapes that split columns (few rows,
       many columns) or rows (many rows, few columns) across blocks */
    static const int64_t shapes[][2] = { { 1, 1 }, { 2, 3 }, { 17, 64 }, { 129, 17 },
                                         { 64, 5000 }, { 5000, 8 }, { 1031, 777 } };
    size_t ns = quick() ? 4 : sizeof shapes / sizeof shapes[0];
    for (size_t s = 0; s < ns; s++)
        for (int t = 0; t < 2; t++)
            for (int pad = 0; pad < 2; pad++) {
                X(l2case) c;
                memset(&c, 0, sizeof c);
                c.r = 'v';
                c.trans = t;
                c.m = shapes[s][0];
                c.n = shapes[s][1];
                c.ld = c.m + (pad ? 3 : 0); /* lda == m: the 16-byte vector path */
                X(l2_all)(gpu, cpu, c);
            }
}

static void X(gbmv_sweep)(nla_context *gpu, nla_context *cpu)
{
    static const int64_t shapes[][2] = { { 1, 1 }, { 17, 17 }, { 129, 64 }, { 64, 129 },
                                         { 1000, 1000 }, { 3000, 700 } };
    /* band widths: diagonal, tridiagonal, lopsided, wide, wider than a
       block of rows (kl + ku + 1 > 256) */
    static const int64_t bands[][2] = { { 0, 0 }, { 1, 1 }, { 2, 5 }, { 16, 3 },
                                        { 64, 64 }, { 300, 2 } };
    size_t ns = quick() ? 4 : sizeof shapes / sizeof shapes[0];
    size_t nb = quick() ? 4 : sizeof bands / sizeof bands[0];
    for (size_t s = 0; s < ns; s++)
        for (size_t b = 0; b < nb; b++)
            for (int t = 0; t < 2; t++)
                for (int pad = 0; pad < 2; pad++) {
                    X(l2case) c;
                    memset(&c, 0, sizeof c);
                    c.r = 'b';
                    c.trans = t;
                    c.m = shapes[s][0];
                    c.n = shapes[s][1];
                    c.kl = bands[b][0];
                    c.ku = bands[b][1];
                    /* ldab == band: contiguous band, vector loads */
                    c.ld = c.kl + c.ku + 1 + (pad ? 1 : 0);
                    X(l2_all)(gpu, cpu, c);
                }
    /* NoTrans over several chunks of columns per block of rows: an odd band
       with odd kl (blocks after the first stage from past a 16-byte
       boundary) and an even one (the staging tile's padded pitch) */
    for (int b = 0; b < 2; b++)
        for (int pad = 0; pad < 2; pad++) {
            X(l2case) c;
            memset(&c, 0, sizeof c);
            c.r = 'b';
            c.m = 700;
            c.n = 650;
            c.kl = b ? 31 : 33;
            c.ku = b ? 32 : 31;
            c.ld = c.kl + c.ku + 1 + pad;
            X(l2_all)(gpu, cpu, c);
        }
}

static void X(spmv_sweep)(nla_context *gpu, nla_context *cpu)
{
    static const int64_t sizes[] = { 1, 2, 17, 64, 65, 129, 1000, 2049 };
    size_t ns = quick() ? 5 : sizeof sizes / sizeof sizes[0];
    for (size_t s = 0; s < ns; s++)
        for (int u = 0; u < 2; u++) {
            X(l2case) c;
            memset(&c, 0, sizeof c);
            c.r = 'p';
            c.uplo = u ? 'U' : 'L';
            c.m = c.n = sizes[s];
            X(l2_all)(gpu, cpu, c);
        }
}

/* ---------------------------------------------------------------- GEMM */

typedef struct X(gemmcase) {
    nla_layout layout;
    nla_trans ta, tb;
    int64_t m, n, k, batch;
    int shared_a;           /* stride_a = 0 */
    double alpha, beta;
    int nan_c, dev;
} X(gemmcase);

static const char *X(gemmdesc)(const X(gemmcase) *c)
{
    static char buf[256];
    snprintf(buf, sizeof buf,
             "%sgemm%s %s %c%c m=%lld n=%lld k=%lld batch=%lld%s alpha=%g beta=%g%s",
             PS(TP), c->dev ? " (device memory)" : " (host memory)",
             c->layout == NLA_ROW_MAJOR ? "row" : "col", (char)c->ta, (char)c->tb,
             (long long)c->m, (long long)c->n, (long long)c->k, (long long)c->batch,
             c->shared_a ? " shared A" : "", c->alpha, c->beta, c->nan_c ? " (NaN C)" : "");
    return buf;
}

static void X(gemm_case)(nla_context *gpu, nla_context *cpu, const X(gemmcase) *c)
{
    const int row = c->layout == NLA_ROW_MAJOR;
    /* stored rows x columns in the column-major view */
    int64_t ar = c->ta == NLA_NO_TRANS ? c->m : c->k, ac = c->ta == NLA_NO_TRANS ? c->k : c->m;
    int64_t br = c->tb == NLA_NO_TRANS ? c->k : c->n, bc = c->tb == NLA_NO_TRANS ? c->n : c->k;
    int64_t cr = c->m, cc = c->n, t;
    int64_t lda, ldb, ldc, sa, sb, sc;
    size_t na, nb, nc;
    TT *a, *b, *cm, *cref, *aa, *ba, *cb;
    const TT alpha = (TT)c->alpha, beta = c->nan_c ? 0 : (TT)c->beta;
    const int rd = c->alpha != 0 && c->k > 0;

    if (row) {
        t = ar; ar = ac; ac = t;
        t = br; br = bc; bc = t;
        t = cr; cr = cc; cc = t;
    }
    lda = ar + 1;
    ldb = br + 2;
    ldc = cr + 1;
    sa = c->shared_a || c->batch == 1 ? 0 : lda * ac + 5;
    sb = c->batch == 1 ? 0 : ldb * bc + 3;
    sc = c->batch == 1 ? 0 : ldc * cc + 7;
    na = (size_t)(sa * (c->batch - 1) + lda * ac + 1);
    nb = (size_t)(sb * (c->batch - 1) + ldb * bc + 1);
    nc = (size_t)(sc * (c->batch - 1) + ldc * cc + 1);
    a = malloc(na * sizeof(TT));
    b = malloc(nb * sizeof(TT));
    cm = malloc(nc * sizeof(TT));
    cref = malloc(nc * sizeof(TT));
    cr_assert(a && b && cm && cref);
    T_FILL(a, na, 301);
    T_FILL(b, nb, 302);
    T_FILL(cm, nc, 303);
    for (size_t i = 0; c->nan_c && i < nc; i++)
        cm[i] = (TT)NAN;
    /* C's padding rows and gaps: sentinels, to prove they stay */
    for (int64_t q = 0; q < c->batch; q++)
        for (int64_t j = 0; j < cc; j++)
            for (int64_t i = cr; i < ldc; i++)
                cm[q * sc + j * ldc + i] = (TT)SENTINEL;
    memcpy(cref, cm, nc * sizeof(TT));
    cr_assert_eq(NLA(gemm_strided_batched)(cpu, c->layout, c->ta, c->tb, c->m, c->n, c->k,
                                           alpha, rd ? a : NULL, lda, sa, rd ? b : NULL, ldb,
                                           sb, beta, cref, ldc, sc, c->batch),
                 NLA_OK, "%s", nla_context_error(cpu));
    aa = X(abs_copy)(a, na);
    ba = X(abs_copy)(b, nb);
    cb = X(abs_copy)(cm, nc);
    cr_assert_eq(NLA(gemm_strided_batched)(cpu, c->layout, c->ta, c->tb, c->m, c->n, c->k,
                                           (TT)fabs(c->alpha), rd ? aa : NULL, lda, sa,
                                           rd ? ba : NULL, ldb, sb, (TT)fabs((double)beta),
                                           cb, ldc, sc, c->batch),
                 NLA_OK);
    if (c->dev) {
        void *da = rd ? dev_copy(gpu, a, na * sizeof(TT)) : NULL;
        void *db = rd ? dev_copy(gpu, b, nb * sizeof(TT)) : NULL;
        void *dc = dev_copy(gpu, cm, nc * sizeof(TT));
        cr_assert_eq(NLA(gemm_strided_batched)(gpu, c->layout, c->ta, c->tb, c->m, c->n,
                                               c->k, alpha, da, lda, sa, db, ldb, sb, beta,
                                               dc, ldc, sc, c->batch),
                     NLA_OK, "%s: %s", X(gemmdesc)(c), nla_context_error(gpu));
        cr_assert_eq(nla_context_synchronize(gpu), NLA_OK, "%s", nla_context_error(gpu));
        cr_assert_eq(nla_download(gpu, cm, dc, nc * sizeof(TT)), NLA_OK);
        nla_free(gpu, da);
        nla_free(gpu, db);
        nla_free(gpu, dc);
    } else if (c->batch == 1) {
        cr_assert_eq(NLA(gemm)(gpu, c->layout, c->ta, c->tb, c->m, c->n, c->k, alpha,
                               rd ? a : NULL, lda, rd ? b : NULL, ldb, beta, cm, ldc),
                     NLA_OK, "%s: %s", X(gemmdesc)(c), nla_context_error(gpu));
    } else {
        cr_assert_eq(NLA(gemm_strided_batched)(gpu, c->layout, c->ta, c->tb, c->m, c->n,
                                               c->k, alpha, rd ? a : NULL, lda, sa,
                                               rd ? b : NULL, ldb, sb, beta, cm, ldc, sc,
                                               c->batch),
                     NLA_OK, "%s: %s", X(gemmdesc)(c), nla_context_error(gpu));
    }
    for (size_t i = 0; i < nc; i++) {
        double tol = 4.0 * (double)(c->k + 2) * T_EPS * (double)cb[i];
        if (cref[i] == (TT)SENTINEL)
            cr_assert(cm[i] == (TT)SENTINEL, "%s: C slot %zu outside the matrices changed",
                      X(gemmdesc)(c), i);
        else if (!isnan((double)cref[i]))
            cr_assert(fabs((double)cm[i] - (double)cref[i]) <= tol,
                      "%s: C[%zu] = %.10g, CPU %.10g, |err| %.3g > %.3g", X(gemmdesc)(c), i,
                      (double)cm[i], (double)cref[i], fabs((double)cm[i] - (double)cref[i]),
                      tol);
    }
    free(a);
    free(b);
    free(cm);
    free(cref);
    free(aa);
    free(ba);
    free(cb);
}

static void X(gemm_shapes)(nla_context *gpu, nla_context *cpu, int batched)
{
    static const int64_t shapes[][3] = { { 1, 1, 1 }, { 17, 13, 5 }, { 64, 64, 64 },
                                         { 129, 65, 33 }, { 7, 300, 1 }, { 300, 200, 500 },
                                         { 33, 17, 0 } };
    static const nla_trans tr[] = { NLA_NO_TRANS, NLA_TRANS };
    size_t ns = quick() ? 4 : sizeof shapes / sizeof shapes[0];
    for (size_t s = 0; s < ns; s++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (size_t ab = 0; ab < N_AB; ab++)
                    for (int dev = 0; dev < 2; dev++) {
                        X(gemmcase) c;
                        if (quick() && (ab + (size_t)ta + (size_t)tb) % 2)
                            continue;
                        memset(&c, 0, sizeof c);
                        c.layout = (ab + s) % 2 ? NLA_ROW_MAJOR : NLA_COL_MAJOR;
                        c.ta = tr[ta];
                        c.tb = tr[tb];
                        c.m = shapes[s][0];
                        c.n = shapes[s][1];
                        c.k = shapes[s][2];
                        c.batch = batched ? 3 : 1;
                        c.shared_a = batched && ab % 2;
                        c.alpha = ab_pairs[ab][0];
                        c.beta = ab_pairs[ab][1];
                        c.nan_c = c.beta < -1.5;
                        c.dev = dev;
                        X(gemm_case)(gpu, cpu, &c);
                    }
}

static void X(gemm_sweep)(nla_context *gpu, nla_context *cpu)
{
    X(gemm_shapes)(gpu, cpu, 0);
}

static void X(gemm_batched_sweep)(nla_context *gpu, nla_context *cpu)
{
    X(gemm_shapes)(gpu, cpu, 1);
}

/* ----------------------------------------------------------------- FFT */

typedef struct X(fftcase) {
    nla_fft_kind kind;
    nla_fft_direction dir;
    int64_t n, howmany;
    int layout;             /* 0 packed, 1 strided, 2 in place */
    int dev;
} X(fftcase);

static void X(fft_case)(nla_context *gpu, nla_context *cpu, const X(fftcase) *c)
{
    const nla_precision prec = sizeof(TT) == sizeof(double) ? NLA_DOUBLE : NLA_FLOAT;
    const int64_t half = c->n / 2 + 1;
    const int64_t lin = c->kind == NLA_FFT_C2R ? half : c->n;
    const int64_t lout = c->kind == NLA_FFT_R2C ? half : c->n;
    const int cin = c->kind == NLA_FFT_R2C ? 1 : 2, cout = c->kind == NLA_FFT_C2R ? 1 : 2;
    nla_fft_desc d;
    nla_fft_plan *pg = NULL, *pc = NULL;
    size_t nin, nout, nbuf;
    TT *in, *out, *ref;
    double err = 0, mag = 0;
    char what[160];

    memset(&d, 0, sizeof d);
    d.kind = c->kind;
    d.precision = prec;
    d.direction = c->dir;
    d.n = c->n;
    d.howmany = c->howmany;
    if (c->layout == 1) {
        d.istride = 2;
        d.idist = 2 * lin + 1;
        d.ostride = 3;
        d.odist = 3 * lout + 2;
    } else if (c->layout == 2 && c->kind != NLA_FFT_C2C) {
        /* FFTW's padded in-place rows: 2*(n/2+1) reals */
        d.istride = d.ostride = 1;
        d.idist = c->kind == NLA_FFT_R2C ? 2 * half : half;
        d.odist = c->kind == NLA_FFT_R2C ? half : 2 * half;
    }
    snprintf(what, sizeof what, "%sfft %s dir=%d n=%lld howmany=%lld layout=%d%s", PS(TP),
             c->kind == NLA_FFT_C2C ? "c2c" : c->kind == NLA_FFT_R2C ? "r2c" : "c2r",
             (int)c->dir, (long long)c->n, (long long)c->howmany, c->layout,
             c->dev ? " (device memory)" : " (host memory)");
    cr_assert_eq(nla_fft_plan_create(gpu, &d, &pg), NLA_OK, "%s: %s", what,
                 nla_context_error(gpu));
    cr_assert_eq(nla_fft_plan_create(cpu, &d, &pc), NLA_OK, "%s", nla_context_error(cpu));
    {
        int64_t is = d.istride ? d.istride : 1, os = d.ostride ? d.ostride : 1;
        int64_t id = d.idist ? d.idist : lin * is, od = d.odist ? d.odist : lout * os;
        nin = (size_t)((c->howmany - 1) * id + (lin - 1) * is + 1) * (size_t)cin;
        nout = (size_t)((c->howmany - 1) * od + (lout - 1) * os + 1) * (size_t)cout;
    }
    nbuf = nin > nout ? nin : nout;
    in = malloc(nbuf * sizeof(TT));
    out = malloc(nbuf * sizeof(TT));
    ref = malloc(nbuf * sizeof(TT));
    cr_assert(in && out && ref);
    T_FILL(in, nbuf, 400 + (uint64_t)c->n);
    for (size_t i = 0; i < nbuf; i++)
        out[i] = ref[i] = (TT)SENTINEL;
    if (c->layout == 2) {
        memcpy(ref, in, nbuf * sizeof(TT));
        memcpy(out, in, nbuf * sizeof(TT));
        cr_assert_eq(nla_fft_execute(pc, ref, ref), NLA_OK, "%s", nla_last_error());
    } else {
        cr_assert_eq(nla_fft_execute(pc, in, ref), NLA_OK, "%s", nla_last_error());
    }
    if (c->dev) {
        void *din = dev_copy(gpu, c->layout == 2 ? out : in, nbuf * sizeof(TT));
        void *dout = c->layout == 2 ? din : dev_copy(gpu, out, nbuf * sizeof(TT));
        cr_assert_eq(nla_fft_execute(pg, din, dout), NLA_OK, "%s: %s", what, nla_last_error());
        cr_assert_eq(nla_context_synchronize(gpu), NLA_OK);
        cr_assert_eq(nla_download(gpu, out, dout, nbuf * sizeof(TT)), NLA_OK);
        nla_free(gpu, din);
        if (dout != din)
            nla_free(gpu, dout);
    } else {
        cr_assert_eq(nla_fft_execute(pg, c->layout == 2 ? out : in, out), NLA_OK, "%s: %s",
                     what, nla_last_error());
    }
    /* relative L2 over the outputs; slots that are no output keep their
       value (out of place: the sentinel) */
    for (int64_t q = 0; q < c->howmany; q++)
        for (int64_t j = 0; j < lout; j++)
            for (int p = 0; p < cout; p++) {
                int64_t os = d.ostride ? d.ostride : 1, od = d.odist ? d.odist : lout * os;
                size_t i = (size_t)((q * od + j * os) * cout + p);
                double e = (double)out[i] - (double)ref[i];
                err += e * e;
                mag += (double)ref[i] * (double)ref[i];
                out[i] = ref[i] = (TT)SENTINEL;
            }
    cr_assert(sqrt(err) <= 16.0 * T_EPS * (log2((double)c->n) + 1) * sqrt(mag) + 1e-300,
              "%s: relative L2 error %.3g", what, sqrt(err / (mag > 0 ? mag : 1)));
    if (c->layout != 2)
        for (size_t i = 0; i < nbuf; i++)
            cr_assert(out[i] == (TT)SENTINEL, "%s: slot %zu outside the outputs changed",
                      what, i);
    nla_fft_plan_destroy(pg);
    nla_fft_plan_destroy(pc);
    free(in);
    free(out);
    free(ref);
}

static void X(fft_sweep)(nla_context *gpu, nla_context *cpu)
{
    /* powers of two, lengths whose prime factors are at most 13 (mixed
       radix: one pass, then 2187, 15625 and 69984 in several; odd real
       lengths as complex transforms), lengths with a prime factor from 17
       to 127 (the mixed radix engine's generic stages: 17, 285 = 19*3*5,
       1016 = 127*8, 1581 = 3*17*31 in one pass, 16129 = 127^2 and 69632 =
       17*2^12 in two), and others (Bluestein: 1009) */
    static const int64_t ns[] = { 1, 2, 8, 64, 1024, 4096, 12, 45, 100, 1001, 1009, 1200, 2187, 15625,
                                  69984, 17, 285, 1016, 1581, 16129, 69632, 65536 };
    static const int64_t hm[] = { 1, 3 };
    size_t nn = sizeof ns / sizeof ns[0] - (quick() ? 1 : 0);   /* quick: not 65536 */
    for (size_t i = 0; i < nn; i++)
        for (size_t h = 0; h < 2; h++)
            for (int kind = 0; kind < 4; kind++)
                for (int layout = 0; layout < 3; layout++)
                    for (int dev = 0; dev < 2; dev++) {
                        X(fftcase) c;
                        if (quick() && (layout + dev + (int)h) % 2)
                            continue;
                        c.kind = kind < 2 ? NLA_FFT_C2C : kind == 2 ? NLA_FFT_R2C : NLA_FFT_C2R;
                        c.dir = kind == 1 || kind == 3 ? NLA_FFT_BACKWARD : NLA_FFT_FORWARD;
                        c.n = ns[i];
                        c.howmany = hm[h];
                        c.layout = layout;
                        c.dev = dev;
                        X(fft_case)(gpu, cpu, &c);
                    }
}

#endif
