/*
 * bench_stats.c - the clock and the sample statistics that every timer of
 * the nla command (CPU, CUDA, Frank-Wolfe) and tools/nla-ab share.
 */
#include <stdlib.h>
#include <time.h>
#include "bench.h"

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* the q-quantile of n sorted values, linear between neighbours */
static double quantile(const double *sorted, int n, double q)
{
    double pos = q * (n - 1);
    int i = (int)pos;
    if (i >= n - 1)
        return sorted[n - 1];
    return sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]);
}

struct bench_stats bench_stats_of(double *v, int n)
{
    struct bench_stats s = { 0, 0, 0, n };
    if (n < 1)
        return s;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    s.p25 = quantile(v, n, 0.25);
    s.median = quantile(v, n, 0.5);
    s.p75 = quantile(v, n, 0.75);
    return s;
}
