/*
 * test_runtime.c - contexts, backend selection, the environment variables,
 * CPU ISA and tuning profile choices (the CPU configuration: test_config.c)
 * and the plugin loader (through a mock plugin).
 *
 * Criterion runs every test in a fresh process, and libnla makes its
 * once-per-process choices (ISA, plugin) on first use, so each test sets
 * the environment in its .init function before any libnla call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cblas.h>
#include <criterion/criterion.h>
#include "refs.h"

static void clean_env(void)
{
    unsetenv("NLA_BACKEND");
    unsetenv("NLA_CPU_ISA");
    unsetenv("NLA_CPU_TUNE");
    unsetenv("NLA_TUNE_CACHES");
    unsetenv("NLA_MOCK_NODEVICE");
    unsetenv("NLA_MOCK_FFT_FAIL");
    /* a path that cannot exist: no plugin, as on a machine without CUDA */
    setenv("NLA_PLUGIN_PATH", "/nonexistent/libnla-cuda.so", 1);
}

static const char *mock_path(const char *var)
{
    const char *p = getenv(var);
    cr_assert(p && *p, "%s is not set (run through make check)", var);
    return p;
}

static void with_mock(void)
{
    clean_env();
    setenv("NLA_PLUGIN_PATH", mock_path("NLA_MOCK_PLUGIN"), 1);
}

static void with_mock_dir(void)
{
    char dir[1024];
    char *slash;
    clean_env();
    snprintf(dir, sizeof dir, "%s", mock_path("NLA_MOCK_PLUGIN"));
    slash = strrchr(dir, '/');
    cr_assert(slash);
    *slash = '\0';
    setenv("NLA_PLUGIN_PATH", dir, 1);
}

static void with_badabi(void)
{
    clean_env();
    setenv("NLA_PLUGIN_PATH", mock_path("NLA_MOCK_BADABI_PLUGIN"), 1);
}

static void with_mock_nodevice(void)
{
    with_mock();
    setenv("NLA_MOCK_NODEVICE", "1", 1);
}

static void with_mock_fftfail(void)
{
    with_mock();
    setenv("NLA_MOCK_FFT_FAIL", "1", 1);
}

static void with_mock_fwfail(void)
{
    with_mock();
    setenv("NLA_MOCK_FW_FAIL", "1", 1);
}

static void env_backend_cpu_with_mock(void)
{
    with_mock();
    setenv("NLA_BACKEND", "cpu", 1);
}

static void env_backend_cuda(void)
{
    clean_env();
    setenv("NLA_BACKEND", "cuda", 1);
}

static void env_backend_bogus(void)
{
    clean_env();
    setenv("NLA_BACKEND", "quantum", 1);
}

static void isa_generic(void)
{
    clean_env();
    setenv("NLA_CPU_ISA", "generic", 1);
}

static void isa_bogus(void)
{
    clean_env();
    setenv("NLA_CPU_ISA", "sse9", 1);
}

static void tune_xeon(void)
{
    clean_env();
    setenv("NLA_CPU_TUNE", "xeon", 1);
}

static void tune_zen5(void)
{
    clean_env();
    setenv("NLA_CPU_TUNE", "zen5", 1);
}

static void tune_zen3(void)
{
    clean_env();
    setenv("NLA_CPU_TUNE", "zen3", 1);
}

static void tune_bogus(void)
{
    clean_env();
    setenv("NLA_CPU_TUNE", "pentium", 1);
}

/* C = A*B, 37x29x41, against CBLAS, on ctx; data in host memory. */
static void check_dgemm_on(nla_context *ctx)
{
    enum { M = 37, N = 29, K = 41 };
    double a[M * K], b[K * N], c[M * N], r[M * N];
    ref_fill(a, M * K, 1);
    ref_fill(b, K * N, 2);
    ref_fill(c, M * N, 3);
    memcpy(r, c, sizeof c);
    cr_assert_eq(nla_dgemm(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_TRANS, M, N, K, 0.5,
                           a, M, b, N, 0.25, c, M), NLA_OK, "%s", nla_context_error(ctx));
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, M, N, K, 0.5, a, M, b, N,
                0.25, r, M);
    cr_assert_leq(ref_max_diff(c, r, M * N), 4.0 * K * 0x1p-52);
}

/* ------------------------------------------------------------ basics */

Test(runtime, version_and_status_strings, .init = clean_env)
{
    cr_assert(strlen(nla_version()) > 0);
    for (int s = NLA_OK; s <= NLA_ENUMERIC; s++)
        for (int t = s + 1; t <= NLA_ENUMERIC; t++)
            cr_assert_str_neq(nla_strerror(s), nla_strerror(t));
    cr_assert_str_eq(nla_strerror(NLA_OK), "success");
    cr_assert_str_eq(nla_strerror((nla_status)1234), "unknown status");
    cr_assert_str_eq(nla_backend_name(NLA_BACKEND_CPU), "cpu");
    cr_assert_str_eq(nla_backend_name(NLA_BACKEND_CUDA), "cuda");
    cr_assert_str_eq(nla_backend_name(NLA_BACKEND_AUTO), "auto");
}

Test(runtime, cpu_context_and_threads, .init = clean_env)
{
    nla_context *ctx = ref_cpu_context();
    cr_assert_eq(nla_context_backend(ctx), NLA_BACKEND_CPU);
    cr_assert_eq(nla_context_last_backend(ctx), NLA_BACKEND_CPU);
    cr_assert(nla_context_threads(ctx) >= 1);
    cr_assert_eq(nla_context_set_threads(ctx, 3), NLA_OK);
    cr_assert_eq(nla_context_threads(ctx), 3);
    cr_assert_eq(nla_context_set_threads(ctx, -1), NLA_EINVAL);
    cr_assert(strstr(nla_context_error(ctx), "nthreads"), "%s", nla_context_error(ctx));
    cr_assert_eq(nla_context_threads(ctx), 3, "a rejected call changed the context");
    cr_assert_eq(nla_context_set_threads(ctx, 0), NLA_OK);
    cr_assert_str_eq(nla_context_error(ctx), "", "message not cleared by a success");
    cr_assert_eq(nla_context_synchronize(ctx), NLA_OK);
    check_dgemm_on(ctx);
    nla_context_destroy(ctx);
    nla_context_destroy(NULL); /* harmless */
}

Test(runtime, cpu_memory, .init = clean_env)
{
    nla_context *ctx = ref_cpu_context();
    double host[100], back[100];
    void *p = NULL;
    ref_fill(host, 100, 7);
    cr_assert_eq(nla_malloc(ctx, &p, sizeof host), NLA_OK);
    cr_assert_eq((uintptr_t)p % 64, 0, "nla_malloc is not 64-byte aligned");
    cr_assert_eq(nla_upload(ctx, p, host, sizeof host), NLA_OK);
    cr_assert_eq(nla_download(ctx, back, p, sizeof back), NLA_OK);
    cr_assert_eq(memcmp(host, back, sizeof host), 0);
    cr_assert_eq(nla_upload(ctx, p, host, 0), NLA_OK);
    nla_free(ctx, p);
    nla_free(ctx, NULL);
    cr_assert_eq(nla_malloc(ctx, &p, (size_t)-1), NLA_EINVAL);
    cr_assert(strstr(nla_context_error(ctx), "bytes"));
    nla_context_destroy(ctx);
}

/* ------------------------------------------------------ selection */

Test(runtime, cuda_unavailable_without_plugin, .init = clean_env)
{
    nla_context *ctx = NULL;
    cr_assert_eq(nla_backend_available(NLA_BACKEND_CUDA), 0);
    cr_assert_eq(nla_backend_available(NLA_BACKEND_CPU), 1);
    cr_assert(strstr(nla_backend_unavailable_reason(NLA_BACKEND_CUDA), "libnla-cuda.so"),
              "reason: %s", nla_backend_unavailable_reason(NLA_BACKEND_CUDA));
    cr_assert(strstr(nla_backend_unavailable_reason(NLA_BACKEND_CUDA), "not found"));
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_CUDA), NLA_ENOBACKEND);
    cr_assert_null(ctx, "ctx written on failure");
    cr_assert(strstr(nla_last_error(), "not available"), "%s", nla_last_error());
    cr_assert(strstr(nla_context_error(NULL), "nla_context_create"));
}

Test(runtime, auto_resolves_to_cpu_without_gpu, .init = clean_env)
{
    nla_context *ctx = NULL;
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_AUTO), NLA_OK);
    cr_assert_eq(nla_context_backend(ctx), NLA_BACKEND_CPU);
    check_dgemm_on(ctx);
    cr_assert_eq(nla_context_last_backend(ctx), NLA_BACKEND_CPU);
    nla_context_destroy(ctx);
}

Test(runtime, env_backend_cpu_is_honoured, .init = env_backend_cpu_with_mock)
{
    nla_context *ctx = NULL;
    /* the mock plugin is available, so without NLA_BACKEND AUTO would pick it */
    cr_assert_eq(nla_backend_available(NLA_BACKEND_CUDA), 1);
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_AUTO), NLA_OK);
    cr_assert_eq(nla_context_backend(ctx), NLA_BACKEND_CPU);
    nla_context_destroy(ctx);
}

Test(runtime, env_backend_cuda_without_gpu, .init = env_backend_cuda)
{
    nla_context *ctx = NULL;
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_AUTO), NLA_ENOBACKEND);
    cr_assert_null(ctx);
    cr_assert(strstr(nla_last_error(), "cuda"), "%s", nla_last_error());
}

Test(runtime, env_backend_unknown_value, .init = env_backend_bogus)
{
    nla_context *ctx = NULL;
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_AUTO), NLA_EINVAL);
    cr_assert_null(ctx);
    cr_assert(strstr(nla_last_error(), "NLA_BACKEND"), "%s", nla_last_error());
}

Test(runtime, explicit_cpu_ignores_env, .init = env_backend_cuda)
{
    nla_context *ctx = NULL;
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_CPU), NLA_OK);
    cr_assert_eq(nla_context_backend(ctx), NLA_BACKEND_CPU);
    nla_context_destroy(ctx);
}

/* ------------------------------------------------------------ ISA */

Test(runtime, isa_is_detected, .init = clean_env)
{
    const char *isa = nla_cpu_isa();
    cr_assert(strcmp(isa, "generic") == 0 || strcmp(isa, "avx2") == 0 ||
              strcmp(isa, "avx512") == 0, "isa %s", isa);
    cr_assert(strlen(nla_cpu_isa_reason()) > 0);
}

Test(runtime, isa_forced_generic, .init = isa_generic)
{
    nla_context *ctx = ref_cpu_context();
    cr_assert_str_eq(nla_cpu_isa(), "generic");
    cr_assert(strstr(nla_cpu_isa_reason(), "NLA_CPU_ISA=generic"), "%s",
              nla_cpu_isa_reason());
    check_dgemm_on(ctx);
    nla_context_destroy(ctx);
}

Test(runtime, isa_unknown_value_ignored, .init = isa_bogus)
{
    cr_assert(strstr(nla_cpu_isa_reason(), "ignored"), "%s", nla_cpu_isa_reason());
}

Test(runtime, tuning_forced, .init = tune_xeon)
{
    cr_assert(strncmp(nla_cpu_tuning(), "xeon: forced by NLA_CPU_TUNE", 28) == 0, "%s",
              nla_cpu_tuning());
}

Test(runtime, tuning_forced_zen5, .init = tune_zen5)
{
    cr_assert(strncmp(nla_cpu_tuning(), "zen5: forced by NLA_CPU_TUNE", 28) == 0, "%s",
              nla_cpu_tuning());
}

Test(runtime, tuning_forced_zen3, .init = tune_zen3)
{
    cr_assert(strncmp(nla_cpu_tuning(), "zen3: forced by NLA_CPU_TUNE", 28) == 0, "%s",
              nla_cpu_tuning());
}

Test(runtime, tuning_unknown_value_ignored, .init = tune_bogus)
{
    const char *t = nla_cpu_tuning(), *r = nla_cpu_config_reason();
    cr_assert(strstr(t, "NLA_CPU_TUNE=pentium is unknown and was ignored"), "%s", t);
    cr_assert(strncmp(t, nla_cpu_config(), strlen(nla_cpu_config())) == 0, "%s", t);
    cr_assert(strstr(r, "NLA_CPU_TUNE=pentium is unknown and was ignored"), "%s", r);
    cr_assert(!strstr(r, "forced"), "%s", r);
}

/* ---------------------------------------------------- plugin loader */

Test(plugin, mock_plugin_loads_and_computes, .init = with_mock)
{
    enum { M = 23, N = 19, K = 31 };
    nla_context *ctx = NULL, *autoctx = NULL;
    double a[M * K], b[K * N], c[M * N], r[M * N];
    void *da, *db, *dc;

    cr_assert_eq(nla_backend_available(NLA_BACKEND_CUDA), 1, "%s",
                 nla_backend_unavailable_reason(NLA_BACKEND_CUDA));
    cr_assert_str_eq(nla_backend_unavailable_reason(NLA_BACKEND_CUDA), "");
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_CUDA), NLA_OK, "%s",
                 nla_last_error());
    cr_assert_eq(nla_context_backend(ctx), NLA_BACKEND_CUDA);
    /* AUTO prefers CUDA when it is available */
    cr_assert_eq(nla_context_create(&autoctx, NLA_BACKEND_AUTO), NLA_OK);
    cr_assert_eq(nla_context_backend(autoctx), NLA_BACKEND_CUDA);
    nla_context_destroy(autoctx);

    /* host pointers through the plugin's table */
    check_dgemm_on(ctx);
    cr_assert_eq(nla_context_last_backend(ctx), NLA_BACKEND_CUDA);

    /* "device" memory: malloc, upload, compute in place, download */
    ref_fill(a, M * K, 11);
    ref_fill(b, K * N, 12);
    ref_fill(c, M * N, 13);
    memcpy(r, c, sizeof c);
    cr_assert_eq(nla_malloc(ctx, &da, sizeof a), NLA_OK);
    cr_assert_eq(nla_malloc(ctx, &db, sizeof b), NLA_OK);
    cr_assert_eq(nla_malloc(ctx, &dc, sizeof c), NLA_OK);
    cr_assert_eq(nla_upload(ctx, da, a, sizeof a), NLA_OK);
    cr_assert_eq(nla_upload(ctx, db, b, sizeof b), NLA_OK);
    cr_assert_eq(nla_upload(ctx, dc, c, sizeof c), NLA_OK);
    cr_assert_eq(nla_dgemm(ctx, NLA_ROW_MAJOR, NLA_TRANS, NLA_NO_TRANS, M, N, K, 1.5,
                           da, M, db, N, -1.0, dc, N), NLA_OK, "%s", nla_context_error(ctx));
    cr_assert_eq(nla_context_synchronize(ctx), NLA_OK);
    cr_assert_eq(nla_download(ctx, c, dc, sizeof c), NLA_OK);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, M, N, K, 1.5, a, M, b, N,
                -1.0, r, N);
    cr_assert_leq(ref_max_diff(c, r, M * N), 4.0 * K * 0x1p-52 * 2);
    nla_free(ctx, da);
    nla_free(ctx, db);
    nla_free(ctx, dc);

    /* validation still happens in the front end, before the plugin */
    cr_assert_eq(nla_dgemv(ctx, NLA_NO_TRANS, 4, 4, 1.0, a, 3, b, 1, 0.0, c, 1),
                 NLA_EINVAL);
    cr_assert(strstr(nla_context_error(ctx), "lda"));
    nla_context_destroy(ctx);
}

/* An AUTO context with (mock) CUDA available holds both backends and
   places each call: device pointers -> CUDA, level-2 on host data -> CPU,
   GEMM on host data -> CUDA when the cost model says the copies pay. */
Test(plugin, auto_routes_each_call, .init = with_mock)
{
    enum { N = 384, S = 16 };
    nla_context *ctx = NULL;
    double *a = malloc(sizeof(double) * N * N), *b = malloc(sizeof(double) * N * N);
    double *c = malloc(sizeof(double) * N * N), *r = malloc(sizeof(double) * N * N);
    double x[S], y[S];
    void *dy = NULL;
    nla_fft_plan *plan = NULL;
    double z[2 * S];

    cr_assert(a && b && c && r);
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_AUTO), NLA_OK, "%s", nla_last_error());
    cr_assert_eq(nla_context_backend(ctx), NLA_BACKEND_CUDA);
    cr_assert_eq(nla_context_set_threads(ctx, 1), NLA_OK);

    /* small GEMM on host data: the copies would cost more than the CPU */
    check_dgemm_on(ctx);
    cr_assert_eq(nla_context_last_backend(ctx), NLA_BACKEND_CPU);

    /* large GEMM on host data: 2*384^3 flops on one thread pay for 4.7 MB */
    ref_fill(a, N * N, 21);
    ref_fill(b, N * N, 22);
    ref_fill(c, N * N, 23);
    memcpy(r, c, sizeof(double) * N * N);
    cr_assert_eq(nla_dgemm(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, N, N, N, 1.0,
                           a, N, b, N, 0.5, c, N), NLA_OK, "%s", nla_context_error(ctx));
    cr_assert_eq(nla_context_last_backend(ctx), NLA_BACKEND_CUDA);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0, a, N, b, N, 0.5,
                r, N);
    cr_assert_leq(ref_max_diff(c, r, (size_t)N * N), 4.0 * N * 0x1p-52 * 2);

    /* level-2 on host data stays on the CPU, on device data goes to CUDA */
    ref_fill(x, S, 24);
    cr_assert_eq(nla_dgemv(ctx, NLA_NO_TRANS, S, S, 1.0, a, N, x, 1, 0.0, y, 1), NLA_OK);
    cr_assert_eq(nla_context_last_backend(ctx), NLA_BACKEND_CPU);
    cr_assert_eq(nla_malloc(ctx, &dy, sizeof y), NLA_OK);
    cr_assert_eq(nla_dgemv(ctx, NLA_NO_TRANS, S, S, 1.0, a, N, x, 1, 0.0, dy, 1), NLA_OK,
                 "%s", nla_context_error(ctx));
    cr_assert_eq(nla_context_last_backend(ctx), NLA_BACKEND_CUDA);
    cr_assert_eq(nla_download(ctx, r, dy, sizeof y), NLA_OK);
    cr_assert_eq(memcmp(r, y, sizeof y), 0, "device and host gemv differ");
    nla_free(ctx, dy);

    /* the mock has no FFT: an AUTO plan runs host data on the CPU */
    cr_assert_eq(nla_fft_plan_1d(ctx, S, NLA_FFT_FORWARD, NLA_DOUBLE, &plan), NLA_OK, "%s",
                 nla_context_error(ctx));
    ref_fill(z, 2 * S, 25);
    cr_assert_eq(nla_fft_execute(plan, z, z), NLA_OK, "%s", nla_last_error());
    /* ... and cannot take device memory */
    cr_assert_eq(nla_malloc(ctx, &dy, sizeof z), NLA_OK);
    cr_assert_eq(nla_fft_execute(plan, dy, dy), NLA_ENOTSUP);
    cr_assert(strstr(nla_last_error(), "cpu only"), "%s", nla_last_error());
    nla_free(ctx, dy);
    nla_fft_plan_destroy(plan);

    /* Frank-Wolfe runs on the CPU of an AUTO context holding CUDA too */
    {
        nla_fw_objective *obj = NULL;
        double f = -1, fref = 0, bb[S];
        ref_fill(bb, S, 26);
        cr_assert_eq(nla_fw_objective_create_lsq(&obj, S, S, a, N, bb), NLA_OK);
        cr_assert_eq(nla_fw_objective_eval(ctx, obj, x, &f, NULL), NLA_OK, "%s",
                     nla_context_error(ctx));
        cr_assert_eq(nla_context_last_backend(ctx), NLA_BACKEND_CPU);
        for (int i = 0; i < S; i++) {
            double t = -bb[i];
            for (int j = 0; j < S; j++)
                t += a[i + (size_t)j * N] * x[j];
            fref += 0.5 * t * t;
        }
        cr_assert_leq(fabs(f - fref), 64 * 0x1p-52 * fref, "f %g, reference %g", f, fref);
        nla_fw_objective_destroy(obj);
    }

    nla_context_destroy(ctx);
    free(a);
    free(b);
    free(c);
    free(r);
}

Test(plugin, mock_plugin_found_through_directory, .init = with_mock_dir)
{
    /* the mock is named libnla-mock.so, so a folder lookup must not find it */
    cr_assert_eq(nla_backend_available(NLA_BACKEND_CUDA), 0);
    cr_assert(strstr(nla_backend_unavailable_reason(NLA_BACKEND_CUDA),
                     "libnla-cuda.so not found"), "%s",
              nla_backend_unavailable_reason(NLA_BACKEND_CUDA));
}

Test(plugin, wrong_abi_is_refused, .init = with_badabi)
{
    nla_context *ctx = NULL;
    cr_assert_eq(nla_backend_available(NLA_BACKEND_CUDA), 0);
    cr_assert(strstr(nla_backend_unavailable_reason(NLA_BACKEND_CUDA), "ABI 999"),
              "%s", nla_backend_unavailable_reason(NLA_BACKEND_CUDA));
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_CUDA), NLA_ENOBACKEND);
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_AUTO), NLA_OK);
    cr_assert_eq(nla_context_backend(ctx), NLA_BACKEND_CPU);
    nla_context_destroy(ctx);
}

Test(plugin, no_device_means_unavailable, .init = with_mock_nodevice)
{
    cr_assert_eq(nla_backend_available(NLA_BACKEND_CUDA), 0);
    cr_assert(strstr(nla_backend_unavailable_reason(NLA_BACKEND_CUDA), "no device"),
              "%s", nla_backend_unavailable_reason(NLA_BACKEND_CUDA));
}

/* A backend's reason for a failed FFT execution (the CUDA plugin: the CUDA
   error string) reaches nla_last_error(), after the routine's name. */
Test(plugin, fft_failure_carries_the_backend_reason, .init = with_mock_fftfail)
{
    nla_context *ctx = NULL;
    nla_fft_plan *plan = NULL;
    double in[16] = { 1 }, out[16];
    nla_status s;

    for (int i = 0; i < 16; i++)
        out[i] = -7;
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_CUDA), NLA_OK, "%s", nla_last_error());
    cr_assert_eq(nla_fft_plan_1d(ctx, 8, NLA_FFT_FORWARD, NLA_DOUBLE, &plan), NLA_OK, "%s",
                 nla_last_error());
    s = nla_fft_execute(plan, in, out);
    cr_assert_eq(s, NLA_EDEVICE, "status %d: %s", s, nla_last_error());
    cr_assert(strstr(nla_last_error(), "nla_fft_execute"), "%s", nla_last_error());
    cr_assert(strstr(nla_last_error(), "mock plugin: the FFT failed on the device"), "%s",
              nla_last_error());
    for (int i = 0; i < 16; i++)
        cr_assert_eq(out[i], -7, "out[%d] was written", i);
    nla_fft_plan_destroy(plan);
    nla_context_destroy(ctx);
}

/* Frank-Wolfe on a backend: a solve the backend has no loop for is
   NLA_ENOTSUP; one whose loop fails mid-way is NLA_EDEVICE with the
   backend's reason.  Neither writes x or res. */
struct fw_small {
    double a[6], b[3], x[2];
    nla_fw_objective *obj;
    nla_fw_set *set;
    nla_fw_options *opt;
    nla_fw_result res;
    int seen;
};

static int fw_seen_cb(const nla_fw_state *st, void *user)
{
    *(int *)user += 1;
    cr_assert_eq(st->x[0], 42.0, "the callback sees the backend's x_t");
    return 0;
}

static nla_status fw_small_solve(struct fw_small *p, nla_context **ctx)
{
    const double a[6] = { 1, 2, 3, 4, 5, 6 }, b[3] = { 1, 0, 1 };
    memcpy(p->a, a, sizeof a);
    memcpy(p->b, b, sizeof b);
    p->x[0] = 1;
    p->x[1] = 0;
    p->seen = 0;
    memset(&p->res, 0x5a, sizeof p->res);
    cr_assert_eq(nla_fw_objective_create_lsq(&p->obj, 3, 2, p->a, 3, p->b), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&p->set, 2, 1), NLA_OK);
    cr_assert_eq(nla_fw_options_create(&p->opt), NLA_OK);
    cr_assert_eq(nla_fw_options_set_callback(p->opt, fw_seen_cb, &p->seen), NLA_OK);
    cr_assert_eq(nla_context_create(ctx, NLA_BACKEND_CUDA), NLA_OK, "%s", nla_last_error());
    return nla_fw_solve(*ctx, p->obj, p->set, p->opt, p->x, &p->res);
}

static void fw_small_done(struct fw_small *p, nla_context *ctx)
{
    cr_assert(p->x[0] == 1 && p->x[1] == 0, "x was written");
    cr_assert_eq(p->res.iterations, (int64_t)0x5a5a5a5a5a5a5a5a, "res was written");
    nla_context_destroy(ctx);
    nla_fw_options_destroy(p->opt);
    nla_fw_set_destroy(p->set);
    nla_fw_objective_destroy(p->obj);
}

Test(plugin, fw_on_a_backend_without_its_loop, .init = with_mock)
{
    struct fw_small p;
    nla_context *ctx = NULL;
    nla_status s = fw_small_solve(&p, &ctx);
    cr_assert_eq(s, NLA_ENOTSUP, "status %d: %s", s, nla_context_error(ctx));
    cr_assert(strstr(nla_context_error(ctx), "no Frank-Wolfe loop"), "%s",
              nla_context_error(ctx));
    cr_assert_eq(p.seen, 0);
    fw_small_done(&p, ctx);
}

Test(plugin, fw_failure_carries_the_backend_reason, .init = with_mock_fwfail)
{
    struct fw_small p;
    nla_context *ctx = NULL;
    nla_status s = fw_small_solve(&p, &ctx);
    cr_assert_eq(s, NLA_EDEVICE, "status %d: %s", s, nla_context_error(ctx));
    cr_assert_eq(p.seen, 1, "the hook ran %d times", p.seen);
    cr_assert(strstr(nla_context_error(ctx), "nla_fw_solve"), "%s", nla_context_error(ctx));
    cr_assert(strstr(nla_context_error(ctx), "the Frank-Wolfe loop failed on the device"),
              "%s", nla_context_error(ctx));
    fw_small_done(&p, ctx);
}

Test(plugin, not_a_plugin_is_refused, .init = clean_env)
{
    /* libnla itself is a shared object without the plugin entry points */
    char path[1024];
    const char *b = getenv("NLA_BUILDDIR");
    cr_assert(b, "NLA_BUILDDIR is not set (run through make check)");
    snprintf(path, sizeof path, "%s/.libs/libnla.so", b);
    setenv("NLA_PLUGIN_PATH", path, 1);
    cr_assert_eq(nla_backend_available(NLA_BACKEND_CUDA), 0);
    cr_assert(strstr(nla_backend_unavailable_reason(NLA_BACKEND_CUDA), "not a libnla plugin"),
              "%s", nla_backend_unavailable_reason(NLA_BACKEND_CUDA));
}
