/*
 * level2.c - the CPU level-2 BLAS: gemv, gbmv (band GAXPY) and spmv
 * (packed GAXPY).  One generic implementation (level2_tmpl.h) instantiated
 * for double and float.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "blas/blas_cpu.h"
#include "core/internal.h"
#include "blas/kernels/level2_kernels.h"

/* Thread blocks of the output start at multiples of this many elements. */
#define L2_ALIGN 64
/* gemv NoTrans: matrices of at most this many bytes stay in the last-level
   cache across calls and take the kernels' cached form (four columns a
   pass, not eight).  Measured on the development machine (Zen 5, a 32 MiB
   L3 for the VM), against OpenBLAS, interleaved with the eight-column
   form: double 1000 x 1000, one thread, 0.99 -> 1.05, two threads 1.26 ->
   1.18; float level on one thread, 1.06 -> 1.10 on two; and four columns
   lose from about 16 MB up (double 1600 x 1600, 20 MB: 19% slower; 2000 x
   2000: 20 to 35%).  The L3 size the OS reports here is the host's
   (384 MiB), no guide, so this is a constant. */
#define L2_GEMV_CACHED_BYTES (12.0 * 1024 * 1024)
/* Matrix entries below which a call runs on one thread.  Measured on the
   2-vCPU development machine, quiet (nla bench --threads 2 --n N, with
   NLA_L2_THREAD_MIN=0 against 1e12): two threads gain from n = 256
   (65536 entries: gemv d 189 against 120 GB/s, spmv d 79 against 58),
   break even at n = 128 and lose at n = 181 (85 against 107).  On a
   machine whose other cores are busy, any second thread can cost far
   more (the fork/join waits for a core); nla_context_set_threads(ctx, 1)
   keeps a context on one.  NLA_L2_THREAD_MIN (entries) overrides the
   threshold, for tests and tuning. */
#define L2_THREAD_WORK_DEFAULT 65536.0
static double l2_thread_work = L2_THREAD_WORK_DEFAULT;
static pthread_once_t l2_thread_once = PTHREAD_ONCE_INIT;

static void l2_thread_init(void)
{
    const char *env = getenv("NLA_L2_THREAD_MIN");
    char *end;
    double v;

    if (!env || !*env)
        return;
    v = strtod(env, &end);
    if (*end == '\0' && v >= 0)
        l2_thread_work = v;
}

static double l2_thread_min(void)
{
    pthread_once(&l2_thread_once, l2_thread_init);
    return l2_thread_work;
}
#define L2_THREAD_WORK l2_thread_min()

const nla_l2_kernels *nla_l2_kernels_get(void)
{
    switch (nla_cpu_isa_id()) {
#ifdef NLA_HAVE_X86_KERNELS
    case NLA_ISA_AVX512:
        return &nla_l2_kernels_avx512;
    case NLA_ISA_AVX2:
        return &nla_l2_kernels_avx2;
#endif
    default:
        return &nla_l2_kernels_generic;
    }
}

#define T double
#define P d
#include "level2_tmpl.h"
#undef T
#undef P

#define T float
#define P s
#include "level2_tmpl.h"
#undef T
#undef P
