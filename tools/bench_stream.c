/*
 * bench_stream.c - the STREAM triad (a[i] = b[i] + s*c[i]), measured in
 * the same run as the level-2 rows so that their GB/s can be read as a
 * fraction of what this machine's memory delivers now.
 *
 * As in STREAM: three arrays far larger than the last-level cache, static
 * OpenMP schedule over the given threads (the same count as the rows), 24
 * bytes counted per element (no write-allocate), and the best of the
 * repetitions after a warm-up pass.
 */
#include <stdlib.h>
#include <time.h>
#include "bench.h"

#define STREAM_N ((size_t)1 << 24)   /* 128 MiB per array */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
        double t0 = now(), t, s = 3.0 + r * 1e-3;
#pragma omp parallel for schedule(static) num_threads(threads)
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
        t = now() - t0;
        if (r > 0 && 24.0 * (double)n / t * 1e-9 > best)
            best = 24.0 * (double)n / t * 1e-9;
    }
    free(a);
    free(b);
    free(c);
    return best;
}
