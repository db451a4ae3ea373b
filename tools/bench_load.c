/*
 * bench_load.c - `nla bench --background-load`: a second thread, a plain
 * pthread outside OpenMP and unpinned, that streams memory for the whole
 * run, so that the rows are measured beside a busy neighbour as on a
 * user's machine where another core is at work.  It reads and writes a
 * buffer far larger than the L3 (BENCH_LOAD_BYTES), one sweep after the
 * other, until it is told to stop.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

/* Doubles per step between two looks at the stop flag (512 KiB). */
#define LOAD_CHUNK ((size_t)1 << 16)

static struct {
    pthread_t thread;
    int running;
    atomic_int stop;
    atomic_ullong bytes;       /* read plus written so far */
    double t0, t1;             /* start, and stop (0 while it runs) */
    double *buf;
} load;

static void *load_main(void *arg)
{
    double *b = arg;
    size_t n = BENCH_LOAD_BYTES / sizeof *b;

    while (!atomic_load_explicit(&load.stop, memory_order_relaxed))
        for (size_t i = 0; i < n; i += LOAD_CHUNK) {
            for (size_t j = i; j < i + LOAD_CHUNK; j++)
                b[j] = b[j] * 0.5 + 1.0;    /* one read and one write each */
            atomic_fetch_add_explicit(&load.bytes, 2 * LOAD_CHUNK * sizeof *b,
                                      memory_order_relaxed);
            if (atomic_load_explicit(&load.stop, memory_order_relaxed))
                break;
        }
    return NULL;
}

int bench_load_start(void)
{
    int e;

    if (load.running)
        return 0;
    if (!(load.buf = aligned_alloc(64, BENCH_LOAD_BYTES)))
        return -1;
    memset(load.buf, 0, BENCH_LOAD_BYTES);   /* its pages, before it runs */
    atomic_store(&load.stop, 0);
    atomic_store(&load.bytes, 0);
    load.t0 = bench_now();
    load.t1 = 0;
    if ((e = pthread_create(&load.thread, NULL, load_main, load.buf)) != 0) {
        free(load.buf);
        load.buf = NULL;
        errno = e;
        return -1;
    }
    load.running = 1;
    return 0;
}

double bench_load_gbs(void)
{
    double t = (load.t1 > 0 ? load.t1 : bench_now()) - load.t0;
    if (load.t0 <= 0 || t <= 0)
        return 0;
    return (double)atomic_load(&load.bytes) * 1e-9 / t;
}

int bench_load_stop(void)
{
    int e;
    if (!load.running)
        return 0;
    atomic_store(&load.stop, 1);
    if ((e = pthread_join(load.thread, NULL)) != 0) {
        errno = e;    /* it may still run: keep its buffer */
        return -1;
    }
    load.t1 = bench_now();
    load.running = 0;
    free(load.buf);
    load.buf = NULL;
    return 0;
}
