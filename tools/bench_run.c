/*
 * bench_run.c - the one timing harness of `nla bench`.
 *
 * For each case: fill the inputs with random numbers in [-1, 1]; call
 * libnla and the references once from the same starting output and compare
 * (see check()); warm up; calibrate the calls per sample so that a sample
 * lasts at least cfg->min_sample_s; then take cfg->samples samples of each
 * side, interleaved (libnla, the checking reference, each other reference
 * of the kind, then again), and keep the median and quartiles of the
 * throughput.  The references are those bench_libs.c found.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench.h"

/* The buffers of one case.  y0 is the starting output; libnla and the
   checking reference then work on copies of their own, the other
   references on one they share. */
struct bench_data {
    struct bench_sizes n;
    size_t elsize;
    void *a, *b, *y0, *y_nla, *y_ref, *y_x;
};

/* One side of the comparison. */
struct side {
    nla_context *ctx;              /* NULL: the reference lib */
    const struct bench_lib *lib;
    const struct bench_case *c;
    const void *a, *b;
    void *y;
};

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
    free(d->y_x);
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
    d->y_x = alloc_elems(d->n.y, d->elsize);
    if (!d->a || !d->b || !d->y0 || !d->y_nla || !d->y_ref || !d->y_x) {
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

/* The largest |y_i - y_ref_i| / bound_i (NaN counts as infinite). */
static double worst_err(const struct bench_case *c, const struct bench_data *d,
                        const void *y, const void *bound)
{
    double worst = 0;
    for (size_t i = 0; i < d->n.y; i++) {
        double diff = fabs(elem(y, i, c->prec) - elem(d->y_ref, i, c->prec));
        double b = elem(bound, i, c->prec);
        double e = b > 0 ? diff / b : diff == 0 ? 0 : INFINITY;
        if (!(e <= worst))   /* also catches NaN */
            worst = isnan(e) ? INFINITY : e;
    }
    return worst;
}

/* libnla's result (y_nla) and each other reference's, computed into y_x
   from y0, are compared componentwise with the checking reference's
   (y_ref) against the error bound of a summation of depth terms:
   |y - y_ref|_i <= tol * bound_i, with bound = |alpha| |op(A)| |x| +
   |beta| |y0| (computed by the checking reference on absolute values) and
   tol = 2 (depth + 2) eps, twice gamma_(depth+2) since both sides round.
   max_rel_err is the largest |y - y_ref|_i / bound_i.  fft rows:
   bench_fft_check. */
static int check(const struct bench_case *c, const struct bench_data *d,
                 struct bench_result *r)
{
    double eps = c->prec == BENCH_D ? DBL_EPSILON : FLT_EPSILON;
    int fft = c->op == &bench_op_fft || c->op == &bench_op_fftplan;
    void *aa = fft ? NULL : abs_copy(d->a, d->n.a, c->prec);
    void *ab = fft ? NULL : abs_copy(d->b, d->n.b, c->prec);
    void *bound = fft ? NULL : abs_copy(d->y0, d->n.y, c->prec);

    if (!fft && (!aa || !ab || !bound)) {
        snprintf(r->error, sizeof r->error, "out of memory for the check");
        free(aa);
        free(ab);
        free(bound);
        return -1;
    }
    if (fft) {
        bench_fft_check(c, d->y_nla, d->y_ref, r);
    } else {
        c->op->run_ref(r->ref_lib, c, aa, ab, bound);
        r->max_rel_err = worst_err(c, d, d->y_nla, bound);
        r->tol = 2.0 * (double)(c->op->depth(c) + 2) * eps;
        r->check_ok = r->max_rel_err <= r->tol;
    }
    for (int k = 0; k < r->nextra; k++) {
        struct bench_extra *x = &r->extra[k];
        struct bench_result xr = *r;
        memcpy(d->y_x, d->y0, d->n.y * d->elsize);
        (c->op->check_ref ? c->op->check_ref : c->op->run_ref)(x->lib, c, d->a, d->b, d->y_x);
        if (fft) {
            bench_fft_check(c, d->y_x, d->y_ref, &xr);
            x->max_rel_err = xr.max_rel_err;
        } else {
            x->max_rel_err = worst_err(c, d, d->y_x, bound);
        }
        x->check_ok = x->max_rel_err <= r->tol;
    }
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
            s->c->op->run_ref(s->lib, s->c, s->a, s->b, s->y);
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

/* Interleaved samples of ns sides (libnla, the checking reference, then
   the others that passed the check): throughput in the op's unit
   (work/s scaled by 1e9). */
static nla_status measure(const struct bench_config *cfg, const struct side *sides, int ns,
                          struct bench_result *r)
{
    int S = cfg->samples;
    double work = r->c.op->work(&r->c) * 1e-9;
    double *v = calloc((size_t)(ns + 4) * (size_t)S, sizeof *v);
    double *pair = v + (size_t)ns * S, *tri = pair + S, *frac = tri + S, *ref_frac = frac + S;
    int paired_triad = r->stream_gbs > 0;
    long reps[BENCH_MAX_REFS + 1];
    nla_status st;

    if (!v)
        return NLA_ENOMEM;
    for (int k = 0; k < ns; k++)
        if ((st = calibrate(cfg, &sides[k], &reps[k])) != NLA_OK)
            goto out;
    for (int i = 0; i < S; i++)
        for (int k = 0; k < ns; k++) {
            double t;
            settle(cfg);
            if ((st = time_batch(&sides[k], reps[k], &t)) != NLA_OK)
                goto out;
            v[k * S + i] = work * (double)reps[k] / t;
            /* level-2 rows: a triad sample right after each round, with the
               cores awake, so that the row's fraction of the STREAM triad
               is taken against the memory of the same moment (the best
               triad of the run, taken once at its start, can be 1.5x what
               the same host gives minutes later) */
            if (k == ns - 1 && paired_triad) {
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
    for (int k = 1; k < ns; k++) {
        for (int i = 0; i < S; i++)
            pair[i] = v[i] / v[k * S + i];
        if (k == 1) {
            r->ratio = bench_stats_of(pair, S).median;
            continue;
        }
        for (int x = 0; x < r->nextra; x++)
            if (r->extra[x].lib == sides[k].lib) {
                r->extra[x].ratio = bench_stats_of(pair, S).median;
                r->extra[x].st = bench_stats_of(v + k * S, S);
            }
    }
    if (paired_triad) {
        for (int i = 0; i < S; i++) {
            frac[i] = v[i] / tri[i];
            ref_frac[i] = v[S + i] / tri[i];
        }
        r->stream_frac = bench_stats_of(frac, S).median;
        r->ref_stream_frac = bench_stats_of(ref_frac, S).median;
        r->triad_paired = bench_stats_of(tri, S).median;
    }
    r->nla = bench_stats_of(v, S);
    r->ref = bench_stats_of(v + S, S);
    r->ratio_medians = r->nla.median / r->ref.median;
    r->reps_nla = reps[0];
    r->reps_ref = reps[1];
    r->timed = 1;
out:
    free(v);
    return st;
}

/* The references of case c's kind: the first checks it, the others are
   timed beside it.  0 when there is none, with the row's error set. */
static int find_refs(const struct bench_case *c, struct bench_result *r)
{
    static const char *const what[] = {
        [BENCH_LIB_CBLAS] = "no CBLAS found (Debian: apt-get install libopenblas0)",
        [BENCH_LIB_FFTW] = "no FFTW found (Debian: apt-get install libfftw3-double3 libfftw3-single3)",
        [BENCH_LIB_GSL] = "no GSL found (Debian: apt-get install libgsl27)",
    };
    const struct bench_lib *libs[BENCH_MAX_REFS];
    enum bench_lib_kind kind = c->op->ref_kind(c);
    int n = bench_libs_of(kind, libs, BENCH_MAX_REFS);

    if (n == 0) {
        snprintf(r->error, sizeof r->error, "%s; NLA_REF_PATH names folders to search too",
                 what[kind]);
        return 0;
    }
    r->ref_lib = libs[0];
    r->nextra = n - 1;
    for (int k = 1; k < n; k++)
        r->extra[k - 1].lib = libs[k];
    return n;
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
    if (!find_refs(c, r))
        return -1;
    if (data_init(&d, c) != 0) {
        snprintf(r->error, sizeof r->error, "out of memory for the data");
        return -1;
    }
    st = (c->op->check_nla ? c->op->check_nla : c->op->run_nla)(ctx, c, d.a, d.b, d.y_nla);
    r->ran_on = nla_backend_name(nla_context_last_backend(ctx));
    if (st == NLA_OK)
        st = nla_context_synchronize(ctx);
    if (st != NLA_OK) {
        record_error(ctx, r, st);
        data_free(&d);
        return -1;
    }
    (c->op->check_ref ? c->op->check_ref : c->op->run_ref)(r->ref_lib, c, d.a, d.b, d.y_ref);
    if (check(c, &d, r) == 0) {
        struct side sides[BENCH_MAX_REFS + 1] = {
            { ctx, NULL, c, d.a, d.b, d.y_nla }, { NULL, r->ref_lib, c, d.a, d.b, d.y_ref }
        };
        int ns = 2;
        for (int k = 0; k < r->nextra; k++)
            if (r->extra[k].check_ok)
                sides[ns++] = (struct side){ NULL, r->extra[k].lib, c, d.a, d.b, d.y_x };
        st = measure(cfg, sides, ns, r);
        if (st != NLA_OK)
            record_error(ctx, r, st);
    }
    data_free(&d);
    return r->error[0] || !r->check_ok ? -1 : 0;
}
