/*
 * mock_plugin.c - a test-only stand-in for libnla-cuda.so.
 *
 * It implements the backend table with CPU code (libnla's own CPU context,
 * through the public API), so the plugin loader, the ABI check and the
 * dispatch through a plugin's table are exercised on machines with no GPU.
 * Built twice: the second copy (MOCK_ABI=999) must be refused by the loader.
 * NLA_MOCK_NODEVICE=1 makes it report that no device is present.
 * NLA_MOCK_FFT_FAIL=1 gives it FFT plans whose every execution fails with
 * a device error and a reason, the path of a CUDA error string.
 * NLA_MOCK_FW_FAIL=1 gives it a Frank-Wolfe loop that reports one
 * iteration and then fails the same way.
 * Its "device memory" is the inner CPU context's memory; it remembers what
 * it allocated so that is_device_ptr can tell it from other host memory,
 * as the CUDA plugin does, and the AUTO front end's routing can be tested.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "nla.h"
#include "core/backend.h"

#ifndef MOCK_ABI
#define MOCK_ABI NLA_PLUGIN_ABI
#endif

static int mock_available(char *why, size_t len)
{
    const char *e = getenv("NLA_MOCK_NODEVICE");
    if (e && strcmp(e, "1") == 0) {
        snprintf(why, len, "mock plugin: no device");
        return 0;
    }
    return 1;
}

static nla_status mock_init(void **state)
{
    return nla_context_create((nla_context **)state, NLA_BACKEND_CPU);
}

static void mock_fini(void *state)
{
    nla_context_destroy(state);
}

/* what mock_alloc handed out: [start, end) ranges */
#define MOCK_MAX_ALLOCS 64
static struct { uintptr_t start, end; } allocs[MOCK_MAX_ALLOCS];
static pthread_mutex_t allocs_lock = PTHREAD_MUTEX_INITIALIZER;

static nla_status mock_alloc(const nla_exec *ex, void **p, size_t bytes)
{
    nla_status s = nla_malloc(ex->state, p, bytes);
    if (s != NLA_OK)
        return s;
    pthread_mutex_lock(&allocs_lock);
    for (int i = 0; i < MOCK_MAX_ALLOCS; i++)
        if (!allocs[i].start) {
            allocs[i].start = (uintptr_t)*p;
            allocs[i].end = (uintptr_t)*p + (bytes ? bytes : 1);
            break;
        }
    pthread_mutex_unlock(&allocs_lock);
    return NLA_OK;
}

static void mock_free(void *state, void *p)
{
    pthread_mutex_lock(&allocs_lock);
    for (int i = 0; i < MOCK_MAX_ALLOCS; i++)
        if (allocs[i].start == (uintptr_t)p)
            allocs[i].start = allocs[i].end = 0;
    pthread_mutex_unlock(&allocs_lock);
    nla_free(state, p);
}

static int mock_is_device_ptr(void *state, const void *p)
{
    uintptr_t u = (uintptr_t)p;
    int found = 0;
    (void)state;
    pthread_mutex_lock(&allocs_lock);
    for (int i = 0; i < MOCK_MAX_ALLOCS && !found; i++)
        found = allocs[i].start && u >= allocs[i].start && u < allocs[i].end;
    pthread_mutex_unlock(&allocs_lock);
    return found;
}

static nla_status mock_copy(const nla_exec *ex, void *dst, const void *src, size_t bytes)
{
    return nla_upload(ex->state, dst, src, bytes);
}

static nla_status mock_sync(const nla_exec *ex)
{
    return nla_context_synchronize(ex->state);
}

/* the inner CPU context runs with the caller's thread count */
static nla_context *inner(const nla_exec *ex)
{
    nla_context *c = ex->state;
    nla_context_set_threads(c, ex->nthreads);
    return c;
}

#define MOCK_OPS(T, P)                                                         \
    static nla_status mock_##P##gemv(const nla_exec *ex, nla_trans tr,         \
        int64_t m, int64_t n, T al, const T *a, int64_t lda, const T *x,       \
        int64_t incx, T be, T *y, int64_t incy)                                \
    {                                                                          \
        return nla_##P##gemv(inner(ex), tr, m, n, al, a, lda, x, incx, be, y,  \
                             incy);                                            \
    }                                                                          \
    static nla_status mock_##P##gbmv(const nla_exec *ex, nla_trans tr,         \
        int64_t m, int64_t n, int64_t kl, int64_t ku, T al, const T *ab,       \
        int64_t ldab, const T *x, int64_t incx, T be, T *y, int64_t incy)      \
    {                                                                          \
        return nla_##P##gbmv(inner(ex), tr, m, n, kl, ku, al, ab, ldab, x,     \
                             incx, be, y, incy);                               \
    }                                                                          \
    static nla_status mock_##P##spmv(const nla_exec *ex, nla_uplo up,          \
        int64_t n, T al, const T *ap, const T *x, int64_t incx, T be, T *y,    \
        int64_t incy)                                                          \
    {                                                                          \
        return nla_##P##spmv(inner(ex), up, n, al, ap, x, incx, be, y, incy);  \
    }                                                                          \
    static nla_status mock_##P##gemm(const nla_exec *ex, nla_trans ta,         \
        nla_trans tb, int64_t m, int64_t n, int64_t k, T al, const T *a,       \
        int64_t lda, int64_t sa, const T *b, int64_t ldb, int64_t sb, T be,    \
        T *c, int64_t ldc, int64_t sc, int64_t batch)                          \
    {                                                                          \
        return nla_##P##gemm_strided_batched(inner(ex), NLA_COL_MAJOR, ta, tb, \
            m, n, k, al, a, lda, sa, b, ldb, sb, be, c, ldc, sc, batch);       \
    }

MOCK_OPS(double, d)
MOCK_OPS(float, s)

/* FFT plans that fail on execution, as a device would */
static nla_status mock_fft_plan(const nla_exec *ex, const nla_fft_desc *desc, void **impl)
{
    /* as the real plugin: no DCT */
    if (desc->kind == NLA_FFT_REDFT10 || desc->kind == NLA_FFT_REDFT01) {
        snprintf(ex->msg, ex->msglen, "mock plugin: no real-to-real (REDFT) transform");
        return NLA_ENOTSUP;
    }
    *impl = malloc(1);
    return *impl ? NLA_OK : NLA_ENOMEM;
}

static nla_status mock_fft_execute(const void *impl, const void *in, void *out, char *msg,
                                   size_t msglen)
{
    (void)impl;
    (void)in;
    (void)out;
    snprintf(msg, msglen, "mock plugin: the FFT failed on the device");
    return NLA_EDEVICE;
}

static void mock_fft_destroy(void *impl)
{
    free(impl);
}

/* a Frank-Wolfe loop that fails on the device after its first report
   (which the hook may answer with "stop": the failure comes first) */
static nla_status mock_fw_solve(const nla_exec *ex, const nla_fw_dev_problem *p, double *x,
                                double *xhost, nla_fw_dev_hook hook, void *user)
{
    nla_fw_dev_iter it = { 0, 1.0, 1.0, 0.5, 1, 0, xhost };
    (void)p;
    (void)x;
    if (xhost)
        xhost[0] = 42;
    (void)hook(user, &it);
    snprintf(ex->msg, ex->msglen, "mock plugin: the Frank-Wolfe loop failed on the device");
    return NLA_EDEVICE;
}

#define MOCK_TABLE(FFT_PLAN, FFT_EXECUTE, FFT_DESTROY, FW)                     \
    {                                                                          \
        .abi = MOCK_ABI, .name = "cuda", .available = mock_available,          \
        .ctx_init = mock_init, .ctx_fini = mock_fini, .mem_alloc = mock_alloc, \
        .mem_free = mock_free, .upload = mock_copy, .download = mock_copy,     \
        .synchronize = mock_sync, .dgemv = mock_dgemv, .sgemv = mock_sgemv,    \
        .dgbmv = mock_dgbmv, .sgbmv = mock_sgbmv, .dspmv = mock_dspmv,         \
        .sspmv = mock_sspmv, .dgemm = mock_dgemm, .sgemm = mock_sgemm,         \
        .fft_plan = FFT_PLAN, .fft_execute = FFT_EXECUTE,                      \
        .fft_destroy = FFT_DESTROY, .is_device_ptr = mock_is_device_ptr,       \
        .fw_solve = FW,                                                        \
    }
static const struct nla_backend_ops mock_ops = MOCK_TABLE(NULL, NULL, NULL, NULL);
static const struct nla_backend_ops mock_ops_fftfail =
    MOCK_TABLE(mock_fft_plan, mock_fft_execute, mock_fft_destroy, NULL);
static const struct nla_backend_ops mock_ops_fwfail =
    MOCK_TABLE(NULL, NULL, NULL, mock_fw_solve);

int nla_plugin_abi(void);
const struct nla_backend_ops *nla_plugin_ops(void);

int nla_plugin_abi(void)
{
    return MOCK_ABI;
}

const struct nla_backend_ops *nla_plugin_ops(void)
{
    const char *e = getenv("NLA_MOCK_FFT_FAIL"), *f = getenv("NLA_MOCK_FW_FAIL");
    if (f && strcmp(f, "1") == 0)
        return &mock_ops_fwfail;
    return e && strcmp(e, "1") == 0 ? &mock_ops_fftfail : &mock_ops;
}
