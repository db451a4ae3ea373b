/*
 * backend_cpu.c - the CPU backend's table.  Its memory is ordinary host
 * memory, 64-byte aligned; copies are memcpy.
 */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "internal.h"
#include "blas/blas_cpu.h"
#include "fft/fft_cpu.h"

static int cpu_available(char *why, size_t len)
{
    (void)why;
    (void)len;
    return 1;
}

static nla_status cpu_alloc(const nla_exec *ex, void **ptr, size_t bytes)
{
    void *p;
    size_t rounded = (bytes + 63) & ~(size_t)63;
    (void)ex;
    if (rounded < bytes)
        return NLA_ENOMEM;
    p = aligned_alloc(64, rounded ? rounded : 64);
    if (!p)
        return NLA_ENOMEM;
    *ptr = p;
    return NLA_OK;
}

static void cpu_free(void *state, void *ptr)
{
    (void)state;
    free(ptr);
}

static nla_status cpu_copy(const nla_exec *ex, void *dst, const void *src, size_t bytes)
{
    (void)ex;
    memmove(dst, src, bytes);
    return NLA_OK;
}

/* Each i on one of ex->nthreads threads, in blocks of consecutive i */
static nla_status cpu_parallel(const nla_exec *ex, int64_t count,
                               nla_status (*fn)(void *arg, int64_t i), void *arg)
{
    nla_status first = NLA_OK;
    int64_t at = count;   /* the least i that failed */

#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(ex->nthreads) if (ex->nthreads > 1)
#else
    (void)ex;
#endif
    for (int64_t i = 0; i < count; i++) {
        nla_status s = fn(arg, i);
        if (s != NLA_OK) {
#ifdef _OPENMP
#pragma omp critical
#endif
            if (i < at) {
                at = i;
                first = s;
            }
        }
    }
    return first;
}

const struct nla_backend_ops nla_cpu_backend = {
    .abi = NLA_PLUGIN_ABI,
    .name = "cpu",
    .available = cpu_available,
    .ctx_init = NULL,
    .ctx_fini = NULL,
    .mem_alloc = cpu_alloc,
    .mem_free = cpu_free,
    .upload = cpu_copy,
    .download = cpu_copy,
    .synchronize = NULL,
    .dgemv = nla_cpu_dgemv,
    .sgemv = nla_cpu_sgemv,
    .dgbmv = nla_cpu_dgbmv,
    .sgbmv = nla_cpu_sgbmv,
    .dspmv = nla_cpu_dspmv,
    .sspmv = nla_cpu_sspmv,
    .dgemm = nla_cpu_dgemm,
    .sgemm = nla_cpu_sgemm,
    .fft_plan = nla_cpu_fft_plan,
    .fft_execute = nla_cpu_fft_execute,
    .fft_destroy = nla_cpu_fft_destroy,
    .is_device_ptr = NULL,
    .parallel = cpu_parallel,
};
