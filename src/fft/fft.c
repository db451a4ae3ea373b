/*
 * fft.c - the CPU FFT: single twiddles and the tables' symmetries,
 * scratch, and the backend entries.  The transforms themselves are in
 * fft_tmpl.h, the twiddle tables in tw_tmpl.h and the DCTs in dct_tmpl.h,
 * included once per precision.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "core/internal.h"
#include "core/tune.h"
#include "fft/fft_cpu.h"
#include "fft/kernels/kernels.h"
#include "fft/plan_choice.h"

/* exp(sign * 2*pi*i * k/n), accurate to about an ulp: k is reduced to the
   first octant in integers (as FFTW does), so the angle given to cos and
   sin is at most pi/4.  n < 2^60. */
static void twiddle(int64_t k, int64_t n, int sign, double *re, double *im)
{
    int64_t n4 = 4 * n, m, q = n;   /* angle = 2*pi*m/n4 */
    unsigned octant = 0;
    double c, s, t, theta;

    k %= n;
    if (k < 0)
        k += n;
    m = 4 * k;
    if (m > n4 - m) {
        m = n4 - m;
        octant |= 4;
    }
    if (m - q > 0) {
        m -= q;
        octant |= 2;
    }
    if (m > q - m) {
        m = q - m;
        octant |= 1;
    }
    theta = 6.283185307179586476925286766559 * ((double)m / (double)n4);
    c = cos(theta);
    s = sin(theta);
    if (octant & 1) {
        t = c;
        c = s;
        s = t;
    }
    if (octant & 2) {
        t = c;
        c = -s;
        s = t;
    }
    if (octant & 4)
        s = -s;
    *re = c;
    *im = sign < 0 ? -s : s;
}

/* exp(sign * i*pi * (j^2 mod 2n)/n): the Bluestein chirp, exact angle
   reduction in integers (j^2 mod 2n by unsigned 128-bit arithmetic). */
static void chirp(int64_t j, int64_t n, int sign, double *re, double *im)
{
    unsigned __int128 jj = (unsigned __int128)(uint64_t)j * (uint64_t)j;
    int64_t r = (int64_t)(jj % (unsigned __int128)(uint64_t)(2 * n));
    twiddle(r, 2 * n, sign, re, im);
}

/* The base range of the twiddle tables: t <= e with e = n/8 when 8 | n,
   n/4 when 4 | n, else n/2 (the values F(tw_values) computes; tw_pieces gives
   the rest) */
static int64_t tw_base_end(int64_t n)
{
    return n % 8 == 0 ? n / 8 : n % 4 == 0 ? n / 4 : n / 2;
}

/* W_n^t on the pieces of [0, n), each a copy of one place of the base range
   b (tw_base_end): on piece j (t < pc[j].end, t >= the end before), with
   v = b[a + dir*t], W_n^t = (cr * v[sw], ci * v[1-sw]), exactly.  The
   symmetries pi/2 - the angle of n/4 - t, then pi/2 + that of t - n/4,
   then 2*pi - that of n - t, each applied to the values before it,
   unrolled.  Piece 0 is the base range.  Returns the number of pieces. */
struct tw_piece {
    int64_t end, a;
    int dir, sw;
    double cr, ci;
};

static int tw_pieces(int64_t n, struct tw_piece *pc)
{
    const int64_t e = tw_base_end(n), q = n / 8, f = n / 4;
    int k = 0;
    pc[k++] = (struct tw_piece){ e + 1, 0, 1, 0, 1, 1 };
    if (n % 8 == 0) {
        pc[k++] = (struct tw_piece){ 2 * q + 1, 2 * q, -1, 1, 1, 1 };
        pc[k++] = (struct tw_piece){ 3 * q + 1, -2 * q, 1, 1, -1, 1 };
        pc[k++] = (struct tw_piece){ 4 * q + 1, 4 * q, -1, 0, -1, 1 };
        pc[k++] = (struct tw_piece){ 5 * q, -4 * q, 1, 0, -1, -1 };
        pc[k++] = (struct tw_piece){ 6 * q, 6 * q, -1, 1, -1, -1 };
        pc[k++] = (struct tw_piece){ 7 * q, -6 * q, 1, 1, 1, -1 };
        pc[k++] = (struct tw_piece){ n, 8 * q, -1, 0, 1, -1 };
    } else if (n % 4 == 0) {
        pc[k++] = (struct tw_piece){ 2 * f + 1, -f, 1, 1, -1, 1 };
        pc[k++] = (struct tw_piece){ 3 * f, 3 * f, -1, 1, -1, -1 };
        pc[k++] = (struct tw_piece){ n, 4 * f, -1, 0, 1, -1 };
    } else {
        pc[k++] = (struct tw_piece){ n, n, -1, 0, 1, -1 };
    }
    return k;
}

/* a monotonic clock, in seconds (plan-time measurement) */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *alloc_aligned(size_t bytes)
{
    size_t rounded = (bytes + 63) & ~(size_t)63;
    if (rounded < bytes)
        return NULL;
    return aligned_alloc(64, rounded ? rounded : 64);
}

/* A plan's memory: its cores and tables, carved from one block where the
   first block's size holds them (fft_mem.first), else from more, each
   twice the last; freed together.  In a loop of plans, malloc keeps one
   block a plan (it trims its top only past twice the largest block freed),
   where the many tables a plan had freed at once went back to the kernel,
   for the next plan to fault in again (doc/tuning.md, 4.11). */
struct fft_blk {
    struct fft_blk *next;
    char *base;      /* the pieces' memory: after this header, or (alone) apart */
    size_t cap, used;
};
typedef struct fft_mem {
    struct fft_blk *blk;
    size_t first;    /* bytes of the first block */
} fft_mem;

#define FFT_BLK_HEAD ((size_t)64)
/* AddressSanitizer gives each table a block of its own, with the header
   apart, so that it sees both of a table's ends */
#if defined(__SANITIZE_ADDRESS__)
#define FFT_BLK_ALONE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FFT_BLK_ALONE 1
#endif
#endif
#ifndef FFT_BLK_ALONE
#define FFT_BLK_ALONE 0
#endif

/* bytes from m, 64-byte aligned, or NULL */
static void *fft_mem_get(fft_mem *m, size_t bytes)
{
    const size_t need = (bytes + 63) & ~(size_t)63;
    struct fft_blk *b = m->blk;
    void *r;

    if (need < bytes || need > SIZE_MAX / 2 - FFT_BLK_HEAD)
        return NULL;
    if (FFT_BLK_ALONE || !b || b->cap - b->used < need) {
        size_t cap = FFT_BLK_ALONE ? need : !b ? m->first : b->cap < SIZE_MAX / 4 ? 2 * b->cap : 0;
        const size_t head = FFT_BLK_ALONE ? 0 : FFT_BLK_HEAD;
        if (cap < need + head)
            cap = need + head;
        b = FFT_BLK_ALONE ? malloc(sizeof *b) : alloc_aligned(cap);
        if (!b || !(b->base = FFT_BLK_ALONE ? alloc_aligned(cap) : (char *)b)) {
            free(b);
            return NULL;
        }
        b->next = m->blk;
        b->cap = cap;
        b->used = head;
        m->blk = b;
    }
    r = b->base + b->used;
    b->used += need;
    return r;
}

static void fft_mem_free(fft_mem *m)
{
    while (m->blk) {
        struct fft_blk *b = m->blk;
        m->blk = b->next;
        if (b->base != (char *)b)
            free(b->base);
        free(b);
    }
}

/* A plan's cached scratch: taken by one execution at a time; the others
   allocate their own.  This keeps execution thread-safe without a lock. */
struct scratch_pool {
    atomic_int busy;
    void *mem;
    size_t bytes;
};

static void *scratch_get(struct scratch_pool *sp, int *from_pool)
{
    int expected = 0;
    *from_pool = 0;
    if (sp->bytes == 0)
        return NULL;
    if (atomic_compare_exchange_strong(&sp->busy, &expected, 1)) {
        if (!sp->mem)
            sp->mem = alloc_aligned(sp->bytes);
        if (sp->mem) {
            *from_pool = 1;
            return sp->mem;
        }
        atomic_store(&sp->busy, 0);
        return NULL;
    }
    return alloc_aligned(sp->bytes);
}

static void scratch_put(struct scratch_pool *sp, void *mem, int from_pool)
{
    if (from_pool)
        atomic_store(&sp->busy, 0);
    else
        free(mem);
}

/* Power-of-two transforms of at most the CPU configuration's
   fft.stockham_max_bytes (bytes of data, src/core/tune.h) stay in one
   Stockham sequence; larger ones use the four-step method.  With
   full-vector passes the Stockham sequence stays ahead of the four-step
   while the data and its scratch (twice the data) fit in the last-level
   cache (doc/tuning.md, 4). */
/* A Stockham or DIT transform of at least this many values shares each
   pass (each step) among the plan's threads.  A pass over 2^18 complex values takes about
   0.2 ms on one core, against about 1 us for the barrier that ends it on
   idle cores; a shorter transform stays on one thread, where a busy other
   core cannot hold it at every barrier (a descheduled thread costs a
   time slice per barrier). */
#define NLA_FFT_THREADS_MIN_N ((int64_t)1 << 18)
/* Bytes of scratch that execution keeps on the stack. */
#define NLA_FFT_STACK_BYTES 16384

/* Held while a plan makes the tables of its first execution
   (F(plan_prepare)): the first executions of plans, once each. */
static pthread_mutex_t prep_lock = PTHREAD_MUTEX_INITIALIZER;

enum { CORE_ONE, CORE_STOCK, CORE_4STEP, CORE_DIT, CORE_BLUE };
#define MAX_STAGES 64

#define T double
#define F(name) d_##name
#define TWP long double
#define TW_DD 1
#define KVC dvc
#define KBC dbc
#define KLANE dlane
#define KGEN dgen
#define KMULC dmulconj
#define KTRTW dtranspose_tw
#define KTW dtwiddle
#define KR2C dr2c_post
#define KR2CP dr2c_pairs
#define KC2R dc2r_pre
#define KC2RP dc2r_pairs
#define KSMALL dsmall
#define KSMALLIL dsmall_il
#include "fft_tmpl.h"
#include "tw_tmpl.h"
#include "real_tmpl.h"
#include "build_tmpl.h"
#include "measure_tmpl.h"
#include "dct_tmpl.h"
#undef T
#undef F
#undef TWP
#undef TW_DD
#undef KVC
#undef KBC
#undef KLANE
#undef KGEN
#undef KMULC
#undef KTRTW
#undef KTW
#undef KR2C
#undef KR2CP
#undef KC2R
#undef KC2RP
#undef KSMALL
#undef KSMALLIL

#define T float
#define F(name) s_##name
#define TWP double
#define TW_DD 0
#define KVC svc
#define KBC sbc
#define KLANE slane
#define KGEN sgen
#define KMULC smulconj
#define KTRTW stranspose_tw
#define KTW stwiddle
#define KR2C sr2c_post
#define KR2CP sr2c_pairs
#define KC2R sc2r_pre
#define KC2RP sc2r_pairs
#define KSMALL ssmall
#define KSMALLIL ssmall_il
#include "fft_tmpl.h"
#include "tw_tmpl.h"
#include "real_tmpl.h"
#include "build_tmpl.h"
#include "measure_tmpl.h"
#include "dct_tmpl.h"
#undef T
#undef F
#undef TWP
#undef TW_DD
#undef KVC
#undef KBC
#undef KLANE
#undef KGEN
#undef KMULC
#undef KTRTW
#undef KTW
#undef KR2C
#undef KR2CP
#undef KC2R
#undef KC2RP
#undef KSMALL
#undef KSMALLIL

/* The backend's plan is a d_plan or an s_plan, each of which begins with
   its descriptor: the precision says which. */
nla_status nla_cpu_fft_plan(const nla_exec *ex, const nla_fft_desc *desc, void **impl)
{
    if (desc->kind == NLA_FFT_REDFT10 || desc->kind == NLA_FFT_REDFT01)
        return desc->precision == NLA_DOUBLE
            ? d_dct_plan_create(desc, ex, (d_plan **)impl)
            : s_dct_plan_create(desc, ex, (s_plan **)impl);
    return desc->precision == NLA_DOUBLE
        ? d_plan_create(desc, ex, (d_plan **)impl)
        : s_plan_create(desc, ex, (s_plan **)impl);
}

nla_status nla_cpu_fft_execute(const void *impl, const void *in, void *out, char *msg,
                                size_t msglen)
{
    (void)msg; /* its only failure, NLA_ENOMEM, says enough */
    (void)msglen;
    return ((const nla_fft_desc *)impl)->precision == NLA_DOUBLE
        ? d_plan_execute(impl, in, out) : s_plan_execute(impl, in, out);
}

void nla_cpu_fft_destroy(void *impl)
{
    if (!impl)
        return;
    if (((const nla_fft_desc *)impl)->precision == NLA_DOUBLE)
        d_plan_free(impl);
    else
        s_plan_free(impl);
}
