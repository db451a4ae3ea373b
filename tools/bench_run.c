/*
 * bench_run.c - the one timing harness of `nla bench`.
 *
 * For each case: fill the inputs with random numbers in [-1, 1]; call
 * libnla and the reference once from the same starting output and compare
 * (see check()); warm up; calibrate the calls per sample so that a sample
 * lasts at least cfg->min_sample_s; then take cfg->samples samples of each
 * side, interleaved A B A B, and keep the median and quartiles of the
 * throughput.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench.h"

/* The buffers of one case.  y0 is the starting output; each side then
   works on its own copy. */
struct bench_data {
    struct bench_sizes n;
    size_t elsize;
    void *a, *b, *y0, *y_nla, *y_ref;
};

/* One side of the comparison. */
struct side {
    nla_context *ctx;              /* NULL: the reference */
    const struct bench_case *c;
    const void *a, *b;
    void *y;
};

/* The reference call: --ref's library for the ops it covers (bench_ref.c),
   else the op's own. */
static void run_ref(const struct bench_case *c, const void *a, const void *b, void *y)
{
    if (!bench_ref_run(c, a, b, y))
        c->op->run_ref(c, a, b, y);
}

/* ------------------------------------------------------------------ data */

static void *alloc_elems(size_t count, size_t elsize)
{
    size_t bytes;
    if (count > (SIZE_MAX - 64) / elsize)
        return NULL;
    bytes = (count ? count : 1) * elsize;
    bytes = (bytes + 63) / 64 * 64;
    return aligned_alloc(64, bytes);
}

static uint64_t rng_next(uint64_t *s)
{
    /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static void fill_random(void *p, size_t count, bench_prec prec, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (size_t i = 0; i < count; i++) {
        double v = (double)(rng_next(&s) >> 11) * 0x1p-52 - 1.0;  /* [-1, 1) */
        if (prec == BENCH_D)
            ((double *)p)[i] = v;
        else
            ((float *)p)[i] = (float)v;
    }
}

static double elem(const void *p, size_t i, bench_prec prec)
{
    return prec == BENCH_D ? ((const double *)p)[i] : ((const float *)p)[i];
}

static void *abs_copy(const void *p, size_t count, bench_prec prec)
{
    void *q = alloc_elems(count, prec == BENCH_D ? 8 : 4);
    if (!q)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        if (prec == BENCH_D)
            ((double *)q)[i] = fabs(((const double *)p)[i]);
        else
            ((float *)q)[i] = fabsf(((const float *)p)[i]);
    }
    return q;
}

static void data_free(struct bench_data *d)
{
    free(d->a);
    free(d->b);
    free(d->y0);
    free(d->y_nla);
    free(d->y_ref);
}

static int data_init(struct bench_data *d, const struct bench_case *c)
{
    memset(d, 0, sizeof *d);
    c->op->sizes(c, &d->n);
    d->elsize = bench_elsize(c->prec);
    d->a = alloc_elems(d->n.a, d->elsize);
    d->b = alloc_elems(d->n.b, d->elsize);
    d->y0 = alloc_elems(d->n.y, d->elsize);
    d->y_nla = alloc_elems(d->n.y, d->elsize);
    d->y_ref = alloc_elems(d->n.y, d->elsize);
    if (!d->a || !d->b || !d->y0 || !d->y_nla || !d->y_ref) {
        data_free(d);
        return -1;
    }
    fill_random(d->a, d->n.a, c->prec, 1);
    fill_random(d->b, d->n.b, c->prec, 2);
    fill_random(d->y0, d->n.y, c->prec, 3);
    memcpy(d->y_nla, d->y0, d->n.y * d->elsize);
    memcpy(d->y_ref, d->y0, d->n.y * d->elsize);
    return 0;
}

/* ----------------------------------------------------------------- check */

/* Both results are compared componentwise against the error bound of a
   summation of depth terms: |y_nla - y_ref|_i <= tol * bound_i, with
   bound = |alpha| |op(A)| |x| + |beta| |y0| (computed by the reference on
   absolute values) and tol = 2 (depth + 2) eps, twice gamma_(depth+2) since
   both sides round.  max_rel_err is the largest |y_nla - y_ref|_i / bound_i. */
static int check(const struct bench_case *c, const struct bench_data *d,
                 struct bench_result *r)
{
    double eps = c->prec == BENCH_D ? DBL_EPSILON : FLT_EPSILON;
    void *aa = abs_copy(d->a, d->n.a, c->prec);
    void *ab = abs_copy(d->b, d->n.b, c->prec);
    void *bound = abs_copy(d->y0, d->n.y, c->prec);
    double worst = 0;

    if (c->op == &bench_op_fft) {
        free(aa);
        free(ab);
        free(bound);
        return bench_fft_check(c, d->y_nla, d->y_ref, r);
    }
    if (!aa || !ab || !bound) {
        snprintf(r->error, sizeof r->error, "out of memory for the check");
        free(aa);
        free(ab);
        free(bound);
        return -1;
    }
    run_ref(c, aa, ab, bound);
    for (size_t i = 0; i < d->n.y; i++) {
        double diff = fabs(elem(d->y_nla, i, c->prec) - elem(d->y_ref, i, c->prec));
        double b = elem(bound, i, c->prec);
        double e = b > 0 ? diff / b : diff == 0 ? 0 : INFINITY;
        if (!(e <= worst))   /* also catches NaN */
            worst = isnan(e) ? INFINITY : e;
    }
    r->max_rel_err = worst;
    r->tol = 2.0 * (double)(c->op->depth(c) + 2) * eps;
    r->check_ok = worst <= r->tol;
    free(aa);
    free(ab);
    free(bound);
    return 0;
}

/* ---------------------------------------------------------------- timing */

/* With several threads, the workers of the side that just ran keep
   spinning for a while after a call (libgomp's GOMP_SPINCOUNT, OpenBLAS's
   thread timeout) and would steal the cores from the other side.  Let
   them park first. */
static void settle(const struct bench_config *cfg)
{
    if (cfg->settle_s > 0) {
        struct timespec ts;
        ts.tv_sec = (time_t)cfg->settle_s;
        ts.tv_nsec = (long)((cfg->settle_s - (double)ts.tv_sec) * 1e9);
        nanosleep(&ts, NULL);
    }
}

static nla_status time_batch(const struct side *s, long reps, double *sec)
{
    nla_status st = NLA_OK;
    double t0 = bench_now();
    for (long i = 0; i < reps && st == NLA_OK; i++) {
        if (s->ctx)
            st = s->c->op->run_nla(s->ctx, s->c, s->a, s->b, s->y);
        else
            run_ref(s->c, s->a, s->b, s->y);
    }
    if (s->ctx && st == NLA_OK)
        st = nla_context_synchronize(s->ctx);
    *sec = bench_now() - t0;
    return st;
}

/* Grow the batch until it lasts min_s; the first batch is the warm-up. */
static nla_status calibrate(const struct bench_config *cfg, const struct side *s,
                            long *reps)
{
    long n = 1;
    double t;
    nla_status st;

    settle(cfg);
    st = time_batch(s, 1, &t);   /* warm-up */
    for (; st == NLA_OK; ) {
        st = time_batch(s, n, &t);
        if (st != NLA_OK || t >= cfg->min_sample_s)
            break;
        double f = t > 0 ? 1.2 * cfg->min_sample_s / t : 100;
        f = f < 2 ? 2 : f > 100 ? 100 : f;
        n = (long)ceil((double)n * f);
    }
    *reps = n;
    return st;
}

static void record_error(nla_context *ctx, struct bench_result *r, nla_status st)
{
    const char *msg = nla_context_error(ctx);
    snprintf(r->error, sizeof r->error, "%s", msg && *msg ? msg : nla_strerror(st));
}

/* Interleaved samples: throughput in the op's unit (work/s scaled by 1e9). */
static nla_status measure(const struct bench_config *cfg, struct side sides[2],
                          struct bench_result *r)
{
    double work = r->c.op->work(&r->c) * 1e-9;
    double *v = calloc(6 * (size_t)cfg->samples, sizeof *v);
    double *pair = v + 2 * cfg->samples, *tri = v + 3 * cfg->samples;
    double *frac = v + 4 * cfg->samples, *ref_frac = v + 5 * cfg->samples;
    int paired_triad = r->stream_gbs > 0;
    long reps[2];
    nla_status st;

    if (!v)
        return NLA_ENOMEM;
    for (int k = 0; k < 2; k++)
        if ((st = calibrate(cfg, &sides[k], &reps[k])) != NLA_OK)
            goto out;
    for (int i = 0; i < cfg->samples; i++)
        for (int k = 0; k < 2; k++) {
            double t;
            settle(cfg);
            if ((st = time_batch(&sides[k], reps[k], &t)) != NLA_OK)
                goto out;
            v[k * cfg->samples + i] = work * (double)reps[k] / t;
            /* level-2 rows: a triad sample right after each pair, with the
               cores awake, so that the row's fraction of the STREAM triad
               is taken against the memory of the same moment (the best
               triad of the run, taken once at its start, can be 1.5x what
               the same host gives minutes later) */
            if (k == 1 && paired_triad) {
                double w;
                if ((tri[i] = bench_triad_sample(cfg->threads, cfg->quick,
                                                 cfg->min_sample_s)) <= 0)
                    paired_triad = 0;
                /* the triad's 384 MiB have swept the caches: one untimed
                   libnla call brings the row's data back, so that its next
                   sample starts as warm as the reference's does */
                else if ((st = time_batch(&sides[0], 1, &w)) != NLA_OK)
                    goto out;
            }
        }
    /* the ratio of each libnla sample to the reference sample taken right
       after it, before the sort: a pair shares the machine's state, so a
       shift in the memory bandwidth the host gives this VM during a row
       (it moves by up to 1.7x here, for minutes at a time) does not tilt
       the ratio the way it can tilt a ratio of two medians */
    for (int i = 0; i < cfg->samples; i++)
        pair[i] = v[i] / v[cfg->samples + i];
    r->ratio = bench_stats_of(pair, cfg->samples).median;
    if (paired_triad) {
        for (int i = 0; i < cfg->samples; i++) {
            frac[i] = v[i] / tri[i];
            ref_frac[i] = v[cfg->samples + i] / tri[i];
        }
        r->stream_frac = bench_stats_of(frac, cfg->samples).median;
        r->ref_stream_frac = bench_stats_of(ref_frac, cfg->samples).median;
        r->triad_paired = bench_stats_of(tri, cfg->samples).median;
    }
    r->nla = bench_stats_of(v, cfg->samples);
    r->ref = bench_stats_of(v + cfg->samples, cfg->samples);
    r->ratio_medians = r->nla.median / r->ref.median;
    r->reps_nla = reps[0];
    r->reps_ref = reps[1];
    r->timed = 1;
out:
    free(v);
    return st;
}

int bench_run_case(nla_context *ctx, const struct bench_config *cfg,
                   const struct bench_case *c, struct bench_result *r)
{
    struct bench_data d;
    nla_status st;

    memset(r, 0, sizeof *r);
    r->c = *c;
    r->threads = cfg->threads;
    if (strcmp(c->op->unit, "GB/s") == 0) {
        struct bench_sizes sz = { 0 };
        double work = c->op->work(c);
        c->op->sizes(c, &sz);
        r->stream_gbs = cfg->stream_gbs;
        r->read_gbs = cfg->read_gbs;
        memcpy(r->read_kinds, cfg->read_kinds, sizeof r->read_kinds);
        /* a narrow band also moves x and y, about as much as its matrix */
        r->moved_per_work =
            work > 0 ? (work + (double)bench_elsize(c->prec) * (double)(sz.b + 2 * sz.y)) / work
                     : 1;
    }
    c->op->shape(c, r->shape, sizeof r->shape);
    r->ran_on = nla_backend_name(nla_context_backend(ctx));
    if (data_init(&d, c) != 0) {
        snprintf(r->error, sizeof r->error, "out of memory for the data");
        return -1;
    }
    st = c->op->run_nla(ctx, c, d.a, d.b, d.y_nla);
    r->ran_on = nla_backend_name(nla_context_last_backend(ctx));
    if (st == NLA_OK)
        st = nla_context_synchronize(ctx);
    if (st != NLA_OK) {
        record_error(ctx, r, st);
        data_free(&d);
        return -1;
    }
    run_ref(c, d.a, d.b, d.y_ref);
    if (check(c, &d, r) == 0) {
        struct side sides[2] = {
            { ctx, c, d.a, d.b, d.y_nla }, { NULL, c, d.a, d.b, d.y_ref }
        };
        st = measure(cfg, sides, r);
        if (st != NLA_OK)
            record_error(ctx, r, st);
    }
    data_free(&d);
    return r->error[0] || !r->check_ok ? -1 : 0;
}
