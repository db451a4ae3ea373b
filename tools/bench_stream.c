/*
 * bench_stream.c - the STREAM triad (a[i] = b[i] + s*c[i]), measured in
 * the same run as the level-2 rows so that their GB/s can be read as a
 * fraction of what this machine's memory delivers now, and a read (the sum
 * of one array), the ceiling for a kernel that only reads: the level-2
 * rows read the matrix and write little.  The read is timed plain, with
 * software prefetch, and as four runs read in step (sum_runs), and the
 * best counts: on the development machine (a
 * 2-vCPU Zen 5 VM) two threads read 33 to 45 GB/s plain and 43 to 72 with
 * prefetch, which the level-2 kernels use, while one thread reads best
 * plain (40 against 37).
 *
 * As in STREAM: arrays far larger than the last-level cache, static OpenMP
 * schedule over the given threads (the same count as the rows), the bytes
 * the loop names counted (24 per triad element, no write-allocate; 8 per
 * element read), and the best of the repetitions after a warm-up pass.
 */
#include <omp.h>
#include <stdlib.h>
#include "bench.h"

#define STREAM_N ((size_t)1 << 24)   /* 128 MiB per array */

double bench_stream_triad(int threads, int quick)
{
    size_t n = quick ? STREAM_N / 2 : STREAM_N;
    double *a = aligned_alloc(64, n * sizeof *a);
    double *b = aligned_alloc(64, n * sizeof *b);
    double *c = aligned_alloc(64, n * sizeof *c);
    double best = 0;
    int reps = quick ? 5 : 10;

    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        return 0;
    }
    if (threads < 1)
        threads = 1;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.5;
    }
    for (int r = 0; r <= reps; r++) {
        double t0 = bench_now(), t, s = 3.0 + r * 1e-3;
#pragma omp parallel for schedule(static) num_threads(threads)
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
        t = bench_now() - t0;
        if (r > 0 && 24.0 * (double)n / t * 1e-9 > best)
            best = 24.0 * (double)n / t * 1e-9;
    }
    free(a);
    free(b);
    free(c);
    return best;
}

/* The triad's arrays for bench_triad_sample, kept from call to call. */
static double *tri_a, *tri_b, *tri_c;
static size_t tri_n;

void bench_triad_free(void)
{
    free(tri_a);
    free(tri_b);
    free(tri_c);
    tri_a = tri_b = tri_c = NULL;
    tri_n = 0;
}

/* One triad sample now, to pair with a level-2 row's samples: passes over
   the triad's arrays (bench_stream_triad's sizes) until min_s has gone,
   in GB/s as bench_stream_triad counts them; 0 without the memory. */
double bench_triad_sample(int threads, int quick, double min_s)
{
    size_t n = quick ? STREAM_N / 2 : STREAM_N;
    double t0, t;
    long passes = 0;

    if (threads < 1)
        threads = 1;
    if (tri_n != n) {
        bench_triad_free();
        tri_a = aligned_alloc(64, n * sizeof *tri_a);
        tri_b = aligned_alloc(64, n * sizeof *tri_b);
        tri_c = aligned_alloc(64, n * sizeof *tri_c);
        if (!tri_a || !tri_b || !tri_c) {
            bench_triad_free();
            return 0;
        }
        tri_n = n;
        /* first touch by the threads that will read them, as in STREAM */
#pragma omp parallel for schedule(static) num_threads(threads)
        for (size_t i = 0; i < n; i++) {
            tri_a[i] = 1.0;
            tri_b[i] = 2.0;
            tri_c[i] = 0.5;
        }
    }
    t0 = bench_now();
    do {
        double *a = tri_a, s = 3.0 + (double)(passes & 7) * 1e-3;
        const double *b = tri_b, *c = tri_c;
#pragma omp parallel for schedule(static) num_threads(threads)
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
        passes++;
        t = bench_now() - t0;
    } while (t < min_s);
    return 24.0 * (double)n * (double)passes / t * 1e-9;
}

/* Four independent sums of four lanes, each taking two 32-byte loads a
   line, compiled for AVX-512, AVX2 and the baseline and picked at load
   time: the memory, not the adder latency or the load width, sets the
   pace.  (A 64-byte vector type was lowered through the stack on the AVX2
   clone, its sums stored and reloaded every line, and those stores set
   the pace: on a Zen 3 VM, nla bench --quick, best of 5, one thread read
   6.3-6.5 GB/s plain and 11.2-11.8 as four runs with it, 8.7-10.0 and
   14.0-16.4 without; two threads 12.2-12.3 and 16.7-18.3 against
   14.9-18.8 and 19.0-27.8.  The baseline clone, SSE2, still splits the
   32-byte type through the stack; x86 machines without AVX2 are not
   among the ones benchmarked.) */
typedef double bench_v4d __attribute__((vector_size(32)));
typedef double bench_v4du __attribute__((vector_size(32), aligned(8), may_alias));
#define BENCH_READ_PF 512 /* how far the prefetching read looks ahead: 4 KiB */
static volatile double bench_stream_sink;

/* the line of 8 doubles at p, as the sum of its two halves */
#define BENCH_LINE(p)                                                          \
    (((const bench_v4du *)(const void *)(p))[0] + ((const bench_v4du *)(const void *)(p))[1])

/* the sum of the lanes of four sums, s0 overwritten (a macro: a function
   taking vectors would have the baseline's calling convention inside the
   wider clones) */
#define BENCH_HSUM(s0, s1, s2, s3)                                             \
    ((s0) += (s1) + (s2) + (s3), ((s0)[0] + (s0)[1]) + ((s0)[2] + (s0)[3]))

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static double sum_block(const double *p, size_t n, int prefetch)
{
    bench_v4d s0 = { 0 }, s1 = { 0 }, s2 = { 0 }, s3 = { 0 };
    double t;
    size_t i = 0;

    for (; i + 32 <= n; i += 32) {
        if (prefetch) /* the four lines 4 KiB ahead (past the end: harmless) */
            for (int k = 0; k < 32; k += 8)
                __builtin_prefetch(p + i + BENCH_READ_PF + k);
        s0 += BENCH_LINE(p + i);
        s1 += BENCH_LINE(p + i + 8);
        s2 += BENCH_LINE(p + i + 16);
        s3 += BENCH_LINE(p + i + 24);
    }
    t = BENCH_HSUM(s0, s1, s2, s3);
    for (; i < n; i++)
        t += p[i];
    return t;
}

/* The same sum over four runs, the quarters of [p, p+n), a line of each
   in turn: what a memory system gives to four streams read in step (the
   level-2 kernels read one run: doc/tuning.md, 5.0). */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static double sum_runs(const double *p, size_t n)
{
    bench_v4d s0 = { 0 }, s1 = { 0 }, s2 = { 0 }, s3 = { 0 };
    size_t q = n / 4 / 8 * 8; /* a whole number of lines */
    const double *p1 = p + q, *p2 = p1 + q, *p3 = p2 + q;
    double t;

    for (size_t i = 0; i < q; i += 8) {
        s0 += BENCH_LINE(p + i);
        s1 += BENCH_LINE(p1 + i);
        s2 += BENCH_LINE(p2 + i);
        s3 += BENCH_LINE(p3 + i);
    }
    t = BENCH_HSUM(s0, s1, s2, s3);
    for (size_t i = 4 * q; i < n; i++)
        t += p[i];
    return t;
}

double bench_read_pass(const double *a, size_t n, int threads, enum bench_read_kind kind)
{
    double total = 0;

#pragma omp parallel num_threads(threads > 1 ? threads : 1) reduction(+ : total)
    {
        int id = omp_get_thread_num(), nt = omp_get_num_threads();
        size_t lo = n / 32 * (size_t)id / (size_t)nt * 32;
        size_t hi = id == nt - 1 ? n : n / 32 * (size_t)(id + 1) / (size_t)nt * 32;
        total += kind == BENCH_READ_RUNS ? sum_runs(a + lo, hi - lo)
                                         : sum_block(a + lo, hi - lo, kind == BENCH_READ_PREFETCHED);
    }
    return total;
}

double bench_stream_read(int threads, int quick, double kinds[3])
{
    size_t n = 3 * (quick ? STREAM_N / 2 : STREAM_N);   /* the triad's footprint */
    double *a = aligned_alloc(64, n * sizeof *a);
    double *best = kinds, sink = 0, top = 0;
    int reps = quick ? 5 : 10;

    best[0] = best[1] = best[2] = 0;
    if (!a)
        return 0;
    if (threads < 1)
        threads = 1;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++)
        a[i] = 1.0 + (double)(i & 7);
    /* the three kinds alternate, so that all see the same machine */
    for (int r = 0; r <= reps; r++)
        for (int kind = 0; kind < 3; kind++) {
            double t0 = bench_now(), gbs;
            double total = bench_read_pass(a, n, threads, (enum bench_read_kind)kind);
            gbs = 8.0 * (double)n / (bench_now() - t0) * 1e-9;
            sink += total;
            if (r > 0 && gbs > best[kind])
                best[kind] = gbs;
        }
    free(a);
    bench_stream_sink = sink; /* the sums are used: the loads stay */
    for (int kind = 0; kind < 3; kind++)
        top = best[kind] > top ? best[kind] : top;
    return top;
}
