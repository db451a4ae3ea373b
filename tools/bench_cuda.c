/*
 * bench_cuda.c - `nla bench --backend cuda`: libnla's own CUDA kernels
 * against NVIDIA's libraries on the same device.
 *
 *   gemm        d and s, m = n = k = 4096 and 8192 (--quick: 4096):
 *               GFLOP/s = 2mnk/t, ratio to cuBLAS ?gemm
 *   gemv gbmv   GB/s of matrix bytes read, as a fraction of a measured
 *   spmv        device-to-device cudaMemcpy (2 x bytes / t), and the ratio
 *               to cuBLAS's same routine.  gemv m = n = 16384, N and T;
 *               gbmv n = 2^22, kl = ku = 1, 16, 64, N and T; spmv n = 16384
 *               and 32768, U and L (--quick: smaller)
 *   fft         c2c forward, d and s, n = 2^10, 2^12, ..., 2^24 in batches
 *               of 2^26 points: "mflops" = 5 n log2(n) howmany / t(us),
 *               ratio to cuFFT (cufftPlanMany, same layout)
 *   fw          Frank-Wolfe's device loop: least squares over the
 *               probability simplex, A 3000x4000 (--quick 1000x500) as in
 *               `nla bench fw`, exact line search; iterations per second
 *               (a sample: solves of 100 iterations each, resuming from the
 *               last result), ratio to pairs of cuBLAS dgemv (N then T, the
 *               two products of a textbook iteration).  Checked first: 20
 *               iterations on the device against 20 on the CPU backend.
 *
 * All data is device memory from nla_malloc, so no figure includes host
 * transfers.  Before timing, libnla's result is compared with the
 * reference's on the same inputs (relative L2 error within c sqrt(k) eps;
 * FFT c eps log2 n); a row that disagrees is FAIL and is not timed.  Each
 * sample times a batch of calls lasting at least 20 ms (--quick 10 ms)
 * with the host's monotonic clock, from the first call to the end of a
 * synchronize (the synchronize costs microseconds against that); samples
 * alternate libnla, reference, ...; the table shows medians, p25..p75 and
 * ratio = libnla median / reference median.  A side whose one call takes
 * over 0.25 s is timed by its warm-up call alone ("one call"; "samples": 1
 * in --json): cuBLAS's gbmv takes seconds a call at these sizes.  With
 * --json, rows go to stderr as they finish and the JSON to stdout at the end.
 *
 * The CUDA runtime, cuBLAS and cuFFT are opened with dlopen (from the
 * loader's search path, then the toolkit configure found), so the `nla`
 * command links no CUDA library and runs, without this mode, where CUDA is
 * absent.  Their few declarations are written out below.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

/* ------------------------------------------------------- the references */

typedef int cu_err;        /* cudaError_t, cublasStatus_t, cufftResult: 0 ok */
typedef void *cublas_h;
typedef int cufft_h;

static struct {
    void *rt, *blas, *fft, *drv;
    cu_err (*deviceSynchronize)(void);
    cu_err (*memcpy)(void *, const void *, size_t, int);
    cu_err (*getDevice)(int *);
    cu_err (*deviceGetAttribute)(int *, int, int);
    cu_err (*runtimeGetVersion)(int *);
    cu_err (*driverGetVersion)(int *);
    const char *(*getErrorString)(cu_err);
    int (*cuInit)(unsigned);
    int (*cuDeviceGetName)(char *, int, int);
    cu_err (*blasCreate)(cublas_h *);
    cu_err (*blasDestroy)(cublas_h);
    cu_err (*dgemm)(cublas_h, int, int, int, int, int, const double *, const double *, int,
                    const double *, int, const double *, double *, int);
    cu_err (*sgemm)(cublas_h, int, int, int, int, int, const float *, const float *, int,
                    const float *, int, const float *, float *, int);
    cu_err (*dgemv)(cublas_h, int, int, int, const double *, const double *, int,
                    const double *, int, const double *, double *, int);
    cu_err (*sgemv)(cublas_h, int, int, int, const float *, const float *, int,
                    const float *, int, const float *, float *, int);
    cu_err (*dgbmv)(cublas_h, int, int, int, int, int, const double *, const double *, int,
                    const double *, int, const double *, double *, int);
    cu_err (*sgbmv)(cublas_h, int, int, int, int, int, const float *, const float *, int,
                    const float *, int, const float *, float *, int);
    cu_err (*dspmv)(cublas_h, int, int, const double *, const double *, const double *, int,
                    const double *, double *, int);
    cu_err (*sspmv)(cublas_h, int, int, const float *, const float *, const float *, int,
                    const float *, float *, int);
    cu_err (*fftPlanMany)(cufft_h *, int, int *, int *, int, int, int *, int, int, int, int);
    cu_err (*fftExecZ2Z)(cufft_h, void *, void *, int);
    cu_err (*fftExecC2C)(cufft_h, void *, void *, int);
    cu_err (*fftDestroy)(cufft_h);
    cublas_h handle;
} R;

#define CUDA_MEMCPY_D2D 3
#define CUDA_ATTR_SMS 16
#define CUDA_ATTR_CC_MAJOR 75
#define CUDA_ATTR_CC_MINOR 76
#define CUBLAS_FILL_LOWER 0
#define CUBLAS_FILL_UPPER 1
#define CUFFT_C2C 0x29
#define CUFFT_Z2Z 0x69
#define CUFFT_FORWARD (-1)

static void *open_first(const char *const *names, char *why, size_t len)
{
    void *h;
    for (int i = 0; names[i]; i++)
        if ((h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)))
            return h;
#ifdef NLA_CUDA_LIBDIR
    for (int i = 0; names[i]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", NLA_CUDA_LIBDIR, names[i]);
        if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
            return h;
    }
#endif
    snprintf(why, len, "cannot open %s (%s)", names[0], dlerror());
    return NULL;
}

/* dlsym into a function pointer; 0 if missing */
#define SYM(lib, field, name)                                                  \
    (*(void **)&R.field = dlsym(R.lib, name), R.field != NULL ||               \
     (snprintf(why, len, "%s is missing from the library", name), 0))

static int load_refs(char *why, size_t len)
{
    static const char *const rt[] = { "libcudart.so", "libcudart.so.13", "libcudart.so.12",
                                      NULL };
    static const char *const blas[] = { "libcublas.so", "libcublas.so.13", "libcublas.so.12",
                                        NULL };
    static const char *const fft[] = { "libcufft.so", "libcufft.so.12", "libcufft.so.11",
                                       "libcufft.so.13", NULL };
    if (!(R.rt = open_first(rt, why, len)) || !(R.blas = open_first(blas, why, len)) ||
        !(R.fft = open_first(fft, why, len)))
        return -1;
    R.drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!SYM(rt, deviceSynchronize, "cudaDeviceSynchronize") ||
        !SYM(rt, memcpy, "cudaMemcpy") || !SYM(rt, getDevice, "cudaGetDevice") ||
        !SYM(rt, deviceGetAttribute, "cudaDeviceGetAttribute") ||
        !SYM(rt, runtimeGetVersion, "cudaRuntimeGetVersion") ||
        !SYM(rt, driverGetVersion, "cudaDriverGetVersion") ||
        !SYM(rt, getErrorString, "cudaGetErrorString") ||
        !SYM(blas, blasCreate, "cublasCreate_v2") ||
        !SYM(blas, blasDestroy, "cublasDestroy_v2") || !SYM(blas, dgemm, "cublasDgemm_v2") ||
        !SYM(blas, sgemm, "cublasSgemm_v2") || !SYM(blas, dgemv, "cublasDgemv_v2") ||
        !SYM(blas, sgemv, "cublasSgemv_v2") || !SYM(blas, dgbmv, "cublasDgbmv_v2") ||
        !SYM(blas, sgbmv, "cublasSgbmv_v2") || !SYM(blas, dspmv, "cublasDspmv_v2") ||
        !SYM(blas, sspmv, "cublasSspmv_v2") || !SYM(fft, fftPlanMany, "cufftPlanMany") ||
        !SYM(fft, fftExecZ2Z, "cufftExecZ2Z") || !SYM(fft, fftExecC2C, "cufftExecC2C") ||
        !SYM(fft, fftDestroy, "cufftDestroy"))
        return -1;
    if (R.drv) {
        *(void **)&R.cuInit = dlsym(R.drv, "cuInit");
        *(void **)&R.cuDeviceGetName = dlsym(R.drv, "cuDeviceGetName");
    }
    if (R.blasCreate(&R.handle) != 0) {
        snprintf(why, len, "cublasCreate failed");
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- timing */

/* One side: run() queues one call (0 on success), sync() waits for it. */
struct side {
    int (*run)(void *arg, int ref);
    void *arg;
    int ref;
    nla_context *ctx;
};

static int side_sync(const struct side *s)
{
    if (s->ref)
        return R.deviceSynchronize();
    return nla_context_synchronize(s->ctx) != NLA_OK;
}

/* seconds for reps calls, or < 0 on failure */
static double time_reps(const struct side *s, long reps)
{
    double t0 = bench_now();
    for (long i = 0; i < reps; i++)
        if (s->run(s->arg, s->ref))
            return -1;
    if (side_sync(s))
        return -1;
    return bench_now() - t0;
}

struct tcfg { int samples; double min_s; };

/* A side whose one call takes longer than this is timed by that call alone
   (cuBLAS's gbmv took 3.6 s a call at n = 2^22 on an H200): the row then
   costs seconds, not minutes. */
#define ONE_CALL_S 0.25

/* work/second medians of both sides, alternating; -1 on failure */
static int measure(const struct tcfg *tc, struct side *sd, double work, struct bench_stats *out)
{
    long reps[2] = { 1, 1 };
    double v[2][16];
    int slow[2];
    for (int k = 0; k < 2; k++) {
        double t = time_reps(&sd[k], 1); /* warm-up */
        if (t <= 0)
            return -1;
        v[k][0] = work / t;
        if ((slow[k] = t > ONE_CALL_S))
            continue;
        while ((t = time_reps(&sd[k], reps[k])) >= 0 && t < tc->min_s && reps[k] < (1L << 20))
            reps[k] *= t > 0 ? (long)fmin(16, ceil(tc->min_s / t * 1.2)) : 16;
        if (t < 0)
            return -1;
    }
    for (int i = 0; i < tc->samples; i++)
        for (int k = 0; k < 2; k++) {
            double t;
            if (slow[k])
                continue;
            if ((t = time_reps(&sd[k], reps[k])) <= 0)
                return -1;
            v[k][i] = work * (double)reps[k] / t;
        }
    for (int k = 0; k < 2; k++)
        out[k] = bench_stats_of(v[k], slow[k] ? 1 : tc->samples);
    return 0;
}

/* ----------------------------------------------------------------- data */

static void fill(void *host, size_t count, int dbl, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (size_t i = 0; i < count; i++) {
        double v;
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        v = (double)((s * 0x2545F4914F6CDD1DULL) >> 11) * 0x1p-52 - 1.0;
        if (dbl)
            ((double *)host)[i] = v;
        else
            ((float *)host)[i] = (float)v;
    }
}

/* device buffer of count random elements */
static void *dev_random(nla_context *ctx, size_t count, int dbl, uint64_t seed)
{
    size_t es = dbl ? 8 : 4;
    void *h = malloc(count * es), *d = NULL;
    if (!h)
        return NULL;
    fill(h, count, dbl, seed);
    if (nla_malloc(ctx, &d, count * es) != NLA_OK || nla_upload(ctx, d, h, count * es) != NLA_OK) {
        nla_free(ctx, d);
        d = NULL;
    }
    free(h);
    return d;
}

/* relative L2 distance of two device arrays of count reals */
static double rel_l2(nla_context *ctx, const void *a, const void *b, size_t count, int dbl)
{
    size_t es = dbl ? 8 : 4;
    void *ha = malloc(count * es), *hb = malloc(count * es);
    double num = 0, den = 0;
    if (!ha || !hb || nla_download(ctx, ha, a, count * es) != NLA_OK ||
        nla_download(ctx, hb, b, count * es) != NLA_OK) {
        free(ha);
        free(hb);
        return INFINITY;
    }
    for (size_t i = 0; i < count; i++) {
        double x = dbl ? ((double *)ha)[i] : ((float *)ha)[i];
        double y = dbl ? ((double *)hb)[i] : ((float *)hb)[i];
        num += (x - y) * (x - y);
        den += y * y;
    }
    free(ha);
    free(hb);
    return isnan(num) ? INFINITY : sqrt(num / (den > 0 ? den : 1));
}

/* ----------------------------------------------------------------- rows */

struct row {
    char op[16], shape[48];
    const char *unit;
    struct bench_stats nla, ref;
    double ratio, frac, err, tol;
    int ok, timed;
};

struct run {
    nla_context *ctx;
    struct tcfg tc;
    double memcpy_gbs;
    struct row rows[96];
    int nrows, nfail;
    int json;
};

/* A BLAS case: op, precision, shape and its device arrays. */
struct blas_case {
    char op;         /* 'm' gemm, 'v' gemv, 'b' gbmv, 'p' spmv */
    int dbl, trans, upper;
    int64_t m, n, k, kl, ku;
    void *a, *b, *y, *yref;   /* b: x (or B); y: libnla's output; yref: cuBLAS's */
    nla_context *ctx;
};

static int blas_run(void *arg, int ref)
{
    struct blas_case *c = arg;
    const double ad = 1.0, bd = 0.5;
    const float as = 1.0f, bs = 0.5f;
    nla_trans t = c->trans ? NLA_TRANS : NLA_NO_TRANS;
    void *y = ref ? c->yref : c->y;
    int m = (int)c->m, n = (int)c->n, k = (int)c->k, kl = (int)c->kl, ku = (int)c->ku;
    int band = kl + ku + 1;
    if (ref) {
        switch (c->op) {
        case 'm':
            return c->dbl ? R.dgemm(R.handle, 0, 0, m, n, k, &ad, c->a, m, c->b, k, &bd, y, m)
                          : R.sgemm(R.handle, 0, 0, m, n, k, &as, c->a, m, c->b, k, &bs, y, m);
        case 'v':
            return c->dbl ? R.dgemv(R.handle, c->trans, m, n, &ad, c->a, m, c->b, 1, &bd, y, 1)
                          : R.sgemv(R.handle, c->trans, m, n, &as, c->a, m, c->b, 1, &bs, y, 1);
        case 'b':
            return c->dbl ? R.dgbmv(R.handle, c->trans, m, n, kl, ku, &ad, c->a, band, c->b, 1,
                                    &bd, y, 1)
                          : R.sgbmv(R.handle, c->trans, m, n, kl, ku, &as, c->a, band, c->b, 1,
                                    &bs, y, 1);
        default:
            return c->dbl ? R.dspmv(R.handle, c->upper ? CUBLAS_FILL_UPPER : CUBLAS_FILL_LOWER,
                                    n, &ad, c->a, c->b, 1, &bd, y, 1)
                          : R.sspmv(R.handle, c->upper ? CUBLAS_FILL_UPPER : CUBLAS_FILL_LOWER,
                                    n, &as, c->a, c->b, 1, &bs, y, 1);
        }
    }
    switch (c->op) {
    case 'm':
        return c->dbl ? nla_dgemm(c->ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, m, n, k, ad,
                                  c->a, m, c->b, k, bd, y, m) != NLA_OK
                      : nla_sgemm(c->ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, m, n, k, as,
                                  c->a, m, c->b, k, bs, y, m) != NLA_OK;
    case 'v':
        return c->dbl ? nla_dgemv(c->ctx, t, m, n, ad, c->a, m, c->b, 1, bd, y, 1) != NLA_OK
                      : nla_sgemv(c->ctx, t, m, n, as, c->a, m, c->b, 1, bs, y, 1) != NLA_OK;
    case 'b':
        return c->dbl ? nla_dgbmv(c->ctx, t, m, n, kl, ku, ad, c->a, band, c->b, 1, bd, y, 1) !=
                            NLA_OK
                      : nla_sgbmv(c->ctx, t, m, n, kl, ku, as, c->a, band, c->b, 1, bs, y, 1) !=
                            NLA_OK;
    default:
        return c->dbl ? nla_dspmv(c->ctx, c->upper ? NLA_UPPER : NLA_LOWER, n, ad, c->a, c->b,
                                  1, bd, y, 1) != NLA_OK
                      : nla_sspmv(c->ctx, c->upper ? NLA_UPPER : NLA_LOWER, n, as, c->a, c->b,
                                  1, bs, y, 1) != NLA_OK;
    }
}

/* A row as it is measured: on stdout, or with --json on stderr, so that a
   run stopped part-way still shows how far it came. */
static void print_row(const struct run *r, const struct row *w)
{
    FILE *out = r->json ? stderr : stdout;
    if (!w->timed) {
        fprintf(out, "%-7s %-26s %s (max rel. err %.2g, tol %.2g)\n", w->op, w->shape,
                w->ok ? "not timed" : "FAIL", w->err, w->tol);
    } else {
        fprintf(out, "%-7s %-26s %9.1f %9.1f %-8s %6.3f", w->op, w->shape, w->nla.median,
                w->ref.median, w->unit, w->ratio);
        if (w->frac > 0)
            fprintf(out, "  %5.1f%% of memcpy", 100 * w->frac);
        fprintf(out, "   [nla %.1f..%.1f]%s%s\n", w->nla.p25, w->nla.p75,
                w->nla.n == 1 ? " (libnla: one call)" : "",
                w->ref.n == 1 ? " (ref: one call)" : "");
    }
    fflush(out);
}

/* check, then time; work per call in the unit's numerator (flops or bytes) */
static void finish_row(struct run *r, struct row *w, struct side *sd, double work, double unit)
{
    struct bench_stats st[2];
    w->timed = 0;
    if (w->ok && measure(&r->tc, sd, work / unit, st) == 0) {
        w->nla = st[0];
        w->ref = st[1];
        w->ratio = st[0].median / st[1].median;
        w->timed = 1;
        if (strcmp(w->unit, "GB/s") == 0 && r->memcpy_gbs > 0)
            w->frac = st[0].median / r->memcpy_gbs;
    } else if (w->ok) {
        w->ok = 0;
        w->err = NAN;
    }
    r->nfail += !w->ok;
    print_row(r, w);
    r->nrows++;
}

static void blas_row(struct run *r, struct blas_case *c)
{
    struct row *w = &r->rows[r->nrows < 95 ? r->nrows : 95];
    struct side sd[2] = { { blas_run, c, 0, r->ctx }, { blas_run, c, 1, r->ctx } };
    const size_t es = c->dbl ? 8 : 4;
    int64_t ylen = c->op == 'm' ? c->m * c->n : c->op == 'p' ? c->n : c->trans ? c->n : c->m;
    int64_t alen, blen, inner;
    double bytes, work;

    memset(w, 0, sizeof *w);
    c->ctx = r->ctx;
    switch (c->op) {
    case 'm':
        alen = c->m * c->k;
        blen = c->k * c->n;
        inner = c->k;
        snprintf(w->op, sizeof w->op, "%cgemm", c->dbl ? 'd' : 's');
        snprintf(w->shape, sizeof w->shape, "%lldx%lldx%lld", (long long)c->m,
                 (long long)c->n, (long long)c->k);
        break;
    case 'v':
        alen = c->m * c->n;
        blen = c->trans ? c->m : c->n;
        inner = blen;
        snprintf(w->op, sizeof w->op, "%cgemv", c->dbl ? 'd' : 's');
        snprintf(w->shape, sizeof w->shape, "%c %lldx%lld", c->trans ? 'T' : 'N',
                 (long long)c->m, (long long)c->n);
        break;
    case 'b':
        alen = (c->kl + c->ku + 1) * c->n;
        blen = c->trans ? c->m : c->n;
        inner = c->kl + c->ku + 1;
        snprintf(w->op, sizeof w->op, "%cgbmv", c->dbl ? 'd' : 's');
        if ((c->n & (c->n - 1)) == 0)
            snprintf(w->shape, sizeof w->shape, "%c n=2^%d kl=ku=%lld", c->trans ? 'T' : 'N',
                     (int)log2((double)c->n), (long long)c->kl);
        else
            snprintf(w->shape, sizeof w->shape, "%c n=%lld kl=ku=%lld", c->trans ? 'T' : 'N',
                     (long long)c->n, (long long)c->kl);
        break;
    default:
        alen = c->n * (c->n + 1) / 2;
        blen = c->n;
        inner = c->n;
        snprintf(w->op, sizeof w->op, "%cspmv", c->dbl ? 'd' : 's');
        snprintf(w->shape, sizeof w->shape, "%c n=%lld", c->upper ? 'U' : 'L', (long long)c->n);
        break;
    }
    w->unit = c->op == 'm' ? "GFLOP/s" : "GB/s";
    c->a = dev_random(r->ctx, (size_t)alen, c->dbl, 1);
    c->b = dev_random(r->ctx, (size_t)blen, c->dbl, 2);
    c->y = dev_random(r->ctx, (size_t)ylen, c->dbl, 3);
    c->yref = NULL;
    if (c->y && nla_malloc(r->ctx, &c->yref, (size_t)ylen * es) == NLA_OK)
        nla_upload(r->ctx, c->yref, c->y, (size_t)ylen * es); /* device to device */
    w->tol = 16.0 * sqrt((double)inner) * (c->dbl ? 0x1p-52 : 0x1p-23);
    if (!c->a || !c->b || !c->y || !c->yref) {
        w->err = NAN;
    } else if (blas_run(c, 0) || blas_run(c, 1) || nla_context_synchronize(r->ctx) != NLA_OK ||
               R.deviceSynchronize()) {
        w->err = NAN;
        fprintf(stderr, "nla bench: %s %s: %s\n", w->op, w->shape, nla_context_error(r->ctx));
    } else {
        w->err = rel_l2(r->ctx, c->y, c->yref, (size_t)ylen, c->dbl);
        w->ok = w->err <= w->tol;
    }
    bytes = (double)alen * (double)es;
    work = c->op == 'm' ? 2.0 * (double)c->m * (double)c->n * (double)c->k : bytes;
    finish_row(r, w, sd, work, 1e9);
    nla_free(r->ctx, c->a);
    nla_free(r->ctx, c->b);
    nla_free(r->ctx, c->y);
    nla_free(r->ctx, c->yref);
}

/* ------------------------------------------------------------------ FFT */

struct fft_case {
    int dbl;
    int64_t n, howmany;
    const nla_fft_plan *plan;
    cufft_h ref;
    void *in, *out, *outref;
};

static int fft_run(void *arg, int ref)
{
    struct fft_case *c = arg;
    if (ref)
        return c->dbl ? R.fftExecZ2Z(c->ref, c->in, c->outref, CUFFT_FORWARD)
                      : R.fftExecC2C(c->ref, c->in, c->outref, CUFFT_FORWARD);
    return nla_fft_execute(c->plan, c->in, c->out) != NLA_OK;
}

static void fft_row(struct run *r, int dbl, int lg)
{
    struct row *w = &r->rows[r->nrows < 95 ? r->nrows : 95];
    struct fft_case c;
    struct side sd[2] = { { fft_run, &c, 0, r->ctx }, { fft_run, &c, 1, r->ctx } };
    nla_fft_desc d;
    nla_fft_plan *plan = NULL;
    int n32;
    size_t total;

    memset(w, 0, sizeof *w);
    memset(&c, 0, sizeof c);
    c.dbl = dbl;
    c.n = (int64_t)1 << lg;
    c.howmany = c.n >= ((int64_t)1 << 26) ? 1 : ((int64_t)1 << 26) / c.n;
    total = (size_t)(c.n * c.howmany) * 2;
    snprintf(w->op, sizeof w->op, "%cfft", dbl ? 'z' : 'c');
    snprintf(w->shape, sizeof w->shape, "c2c n=2^%d x%lld", lg, (long long)c.howmany);
    w->unit = "GFLOP/s";
    w->tol = 16.0 * (dbl ? 0x1p-52 : 0x1p-23) * (lg + 1);
    memset(&d, 0, sizeof d);
    d.kind = NLA_FFT_C2C;
    d.precision = dbl ? NLA_DOUBLE : NLA_FLOAT;
    d.direction = NLA_FFT_FORWARD;
    d.n = c.n;
    d.howmany = c.howmany;
    n32 = (int)c.n;
    c.ref = -1;
    c.in = dev_random(r->ctx, total, dbl, 5);
    if (nla_malloc(r->ctx, &c.out, total * (dbl ? 8 : 4)) != NLA_OK ||
        nla_malloc(r->ctx, &c.outref, total * (dbl ? 8 : 4)) != NLA_OK || !c.in) {
        w->err = NAN;
    } else if (nla_fft_plan_create(r->ctx, &d, &plan) != NLA_OK) {
        fprintf(stderr, "nla bench: %s %s: %s\n", w->op, w->shape, nla_context_error(r->ctx));
        w->err = NAN;
    } else if (R.fftPlanMany(&c.ref, 1, &n32, NULL, 1, n32, NULL, 1, n32,
                             dbl ? CUFFT_Z2Z : CUFFT_C2C, (int)c.howmany) != 0) {
        fprintf(stderr, "nla bench: %s %s: cufftPlanMany failed\n", w->op, w->shape);
        c.ref = -1;
        w->err = NAN;
    } else {
        c.plan = plan;
        if (fft_run(&c, 0) || fft_run(&c, 1) || nla_context_synchronize(r->ctx) != NLA_OK ||
            R.deviceSynchronize()) {
            fprintf(stderr, "nla bench: %s %s: %s\n", w->op, w->shape, nla_last_error());
            w->err = NAN;
        } else {
            w->err = rel_l2(r->ctx, c.out, c.outref, total, dbl);
            w->ok = w->err <= w->tol;
        }
    }
    finish_row(r, w, sd, 5.0 * (double)c.n * lg * (double)c.howmany, 1e9);
    if (c.ref >= 0)
        R.fftDestroy(c.ref);
    nla_fft_plan_destroy(plan);
    nla_free(r->ctx, c.in);
    nla_free(r->ctx, c.out);
    nla_free(r->ctx, c.outref);
}

/* ------------------------------------------------------------- memcpy */

struct copy_case { void *a, *b; size_t bytes; };

static int copy_run(void *arg, int ref)
{
    struct copy_case *c = arg;
    (void)ref;
    return R.memcpy(c->b, c->a, c->bytes, CUDA_MEMCPY_D2D);
}

/* device-to-device copy bandwidth, read + write counted: 2 bytes / t */
static double memcpy_gbs(struct run *r, int quick)
{
    struct copy_case c = { NULL, NULL, (size_t)(quick ? 256 : 1024) << 20 };
    struct side s = { copy_run, &c, 1, r->ctx };
    double v[16];
    long reps = 1;
    double t;
    if (nla_malloc(r->ctx, &c.a, c.bytes) != NLA_OK || nla_malloc(r->ctx, &c.b, c.bytes) != NLA_OK)
        return 0;
    time_reps(&s, 1);
    while ((t = time_reps(&s, reps)) > 0 && t < r->tc.min_s && reps < 4096)
        reps *= 2;
    for (int i = 0; i < r->tc.samples; i++)
        v[i] = 2.0 * (double)c.bytes * (double)reps / time_reps(&s, reps) * 1e-9;
    nla_free(r->ctx, c.a);
    nla_free(r->ctx, c.b);
    return bench_stats_of(v, r->tc.samples).median;
}

/* ---------------------------------------------------------- Frank-Wolfe */

#define FW_ITERS 100

struct fw_case {
    nla_context *ctx;
    nla_fw_objective *obj;
    nla_fw_set *set;
    nla_fw_options *opt;
    int64_t m, n;
    double *a, *x, *y, *g;    /* device: A, the iterate, A x, A' y */
};

static int fw_run(void *arg, int ref)
{
    struct fw_case *c = arg;
    const double one = 1, zero = 0;
    nla_status st;
    if (ref) {
        for (int i = 0; i < FW_ITERS; i++)
            if (R.dgemv(R.handle, 0, (int)c->m, (int)c->n, &one, c->a, (int)c->m, c->x, 1,
                        &zero, c->y, 1) ||
                R.dgemv(R.handle, 1, (int)c->m, (int)c->n, &one, c->a, (int)c->m, c->y, 1,
                        &zero, c->g, 1))
                return 1;
        return 0;
    }
    /* tol 0: FW_ITERS iterations from the last solve's result */
    st = nla_fw_solve(c->ctx, c->obj, c->set, c->opt, c->x, NULL);
    return st != NLA_EMAXITER && st != NLA_OK;
}

static void fw_row(struct run *r, int quick)
{
    struct row *w = &r->rows[r->nrows < 95 ? r->nrows : 95];
    struct fw_case c;
    struct side sd[2] = { { fw_run, &c, 0, r->ctx }, { fw_run, &c, 1, r->ctx } };
    nla_context *cpu = NULL;
    double *ha = NULL, *hb = NULL, *xc = NULL, *xg = NULL, *db = NULL;
    size_t an;

    memset(w, 0, sizeof *w);
    memset(&c, 0, sizeof c);
    c.ctx = r->ctx;
    c.m = quick ? 1000 : 3000;
    c.n = quick ? 500 : 4000;
    an = (size_t)(c.m * c.n);
    snprintf(w->op, sizeof w->op, "dfw");
    snprintf(w->shape, sizeof w->shape, "lsq simplex %lldx%lld", (long long)c.m,
             (long long)c.n);
    w->unit = "it/s";
    w->tol = 1e-9;
    w->err = NAN;
    ha = malloc(an * sizeof(double));
    hb = malloc((size_t)c.m * sizeof(double));
    xc = calloc((size_t)c.n, sizeof(double));
    xg = calloc((size_t)c.n, sizeof(double));
    if (!ha || !hb || !xc || !xg)
        goto done;
    fill(ha, an, 1, 11);
    fill(hb, (size_t)c.m, 1, 12);
    xc[0] = xg[0] = 1;
    c.a = dev_random(r->ctx, an, 1, 11); /* the same values as ha */
    db = dev_random(r->ctx, (size_t)c.m, 1, 12);
    c.x = dev_random(r->ctx, (size_t)c.n, 1, 13);
    c.y = dev_random(r->ctx, (size_t)c.m, 1, 14);
    c.g = dev_random(r->ctx, (size_t)c.n, 1, 15);
    if (!c.a || !db || !c.x || !c.y || !c.g ||
        nla_upload(r->ctx, c.x, xg, (size_t)c.n * sizeof(double)) != NLA_OK ||
        nla_context_create(&cpu, NLA_BACKEND_CPU) != NLA_OK ||
        nla_fw_objective_create_lsq(&c.obj, c.m, c.n, c.a, c.m, db) != NLA_OK ||
        nla_fw_set_create_prob_simplex(&c.set, c.n, 1.0) != NLA_OK ||
        nla_fw_options_create(&c.opt) != NLA_OK ||
        nla_fw_options_set_step(c.opt, NLA_FW_EXACT, 0) != NLA_OK ||
        nla_fw_options_set_tol(c.opt, 0) != NLA_OK ||
        nla_fw_options_set_max_iter(c.opt, 20) != NLA_OK)
        goto done;
    {
        /* the check: 20 iterations here and on the CPU from e_1 */
        nla_fw_objective *hobj = NULL;
        nla_status sg = nla_fw_solve(r->ctx, c.obj, c.set, c.opt, c.x, NULL), sc = NLA_EINVAL;
        if (nla_fw_objective_create_lsq(&hobj, c.m, c.n, ha, c.m, hb) == NLA_OK)
            sc = nla_fw_solve(cpu, hobj, c.set, c.opt, xc, NULL);
        nla_fw_objective_destroy(hobj);
        if (sg == sc && nla_download(r->ctx, xg, c.x, (size_t)c.n * sizeof(double)) == NLA_OK) {
            w->err = 0;
            for (int64_t i = 0; i < c.n; i++)
                w->err = fmax(w->err, fabs(xg[i] - xc[i]));
            w->ok = w->err <= w->tol;
        } else {
            fprintf(stderr, "nla bench: dfw: %s / %s\n", nla_context_error(r->ctx),
                    nla_context_error(cpu));
        }
    }
    nla_fw_options_set_max_iter(c.opt, FW_ITERS);
    finish_row(r, w, sd, FW_ITERS, 1);
    goto cleanup;
done:
    fprintf(stderr, "nla bench: dfw: set-up failed: %s\n", nla_last_error());
    finish_row(r, w, sd, FW_ITERS, 1);
cleanup:
    nla_fw_options_destroy(c.opt);
    nla_fw_set_destroy(c.set);
    nla_fw_objective_destroy(c.obj);
    nla_context_destroy(cpu);
    nla_free(r->ctx, c.a);
    nla_free(r->ctx, db);
    nla_free(r->ctx, c.x);
    nla_free(r->ctx, c.y);
    nla_free(r->ctx, c.g);
    free(ha);
    free(hb);
    free(xc);
    free(xg);
}

/* --------------------------------------------------------------- report */

static void header(const struct run *r)
{
    int dev = 0, sms = 0, ma = 0, mi = 0, rv = 0, dv = 0;
    char name[128] = "unknown";
    R.getDevice(&dev);
    R.deviceGetAttribute(&sms, CUDA_ATTR_SMS, dev);
    R.deviceGetAttribute(&ma, CUDA_ATTR_CC_MAJOR, dev);
    R.deviceGetAttribute(&mi, CUDA_ATTR_CC_MINOR, dev);
    R.runtimeGetVersion(&rv);
    R.driverGetVersion(&dv);
    if (R.cuInit && R.cuDeviceGetName && R.cuInit(0) == 0)
        R.cuDeviceGetName(name, sizeof name, dev);
    if (r->json) {
        printf("{\"backend\": \"cuda\", \"nla_version\": \"%s\", \"device\": \"%s\", "
               "\"sms\": %d, \"compute_capability\": \"%d.%d\", \"runtime\": %d, "
               "\"driver\": %d, \"includes_transfers\": false, \"samples\": %d, "
               "\"min_sample_seconds\": %g, \"memcpy_gbs\": %.6g, \"rows\": [\n",
               nla_version(), name, sms, ma, mi, rv, dv, r->tc.samples, r->tc.min_s,
               r->memcpy_gbs);
        return;
    }
    printf("nla bench --backend cuda: libnla %s against cuBLAS and cuFFT\n", nla_version());
    printf("device %d: %s, %d SMs, compute capability %d.%d; runtime %d, driver %d\n", dev,
           name, sms, ma, mi, rv, dv);
    printf("device memory only (no host copies); %d samples of >= %.0f ms, alternating\n",
           r->tc.samples, r->tc.min_s * 1e3);
    printf("device-to-device cudaMemcpy: %.1f GB/s (read + write)\n\n", r->memcpy_gbs);
    printf("%-7s %-26s %9s %9s %-8s %6s\n", "op", "shape", "libnla", "ref", "unit", "ratio");
}

static void json_rows(const struct run *r)
{
    for (int i = 0; i < r->nrows; i++) {
        const struct row *w = &r->rows[i];
        printf("  {\"op\": \"%s\", \"shape\": \"%s\", \"unit\": \"%s\", \"check\": \"%s\", "
               "\"max_rel_err\": %.3g, \"tol\": %.3g", w->op, w->shape, w->unit,
               w->ok ? "ok" : "FAIL", isfinite(w->err) ? w->err : -1, w->tol);
        if (w->timed)
            printf(", \"nla\": {\"median\": %.6g, \"p25\": %.6g, \"p75\": %.6g, "
                   "\"samples\": %d}, "
                   "\"ref\": {\"median\": %.6g, \"p25\": %.6g, \"p75\": %.6g, "
                   "\"samples\": %d}, \"ratio\": %.4f, \"memcpy_fraction\": %.4f",
                   w->nla.median, w->nla.p25, w->nla.p75, w->nla.n, w->ref.median,
                   w->ref.p25, w->ref.p75, w->ref.n, w->ratio, w->frac);
        printf("}%s\n", i + 1 < r->nrows ? "," : "");
    }
    printf("], \"rows_failed\": %d}\n", r->nfail);
}

/* ----------------------------------------------------------------- main */

int bench_cuda_main(const struct bench_cuda_opts *o)
{
    static struct run r;
    char why[512] = "";
    double t0 = bench_now();

    if (!nla_backend_available(NLA_BACKEND_CUDA)) {
        fprintf(stderr, "CUDA backend not available: %s\n",
                nla_backend_unavailable_reason(NLA_BACKEND_CUDA));
        return NLA_EXIT_NOBACKEND;
    }
    if (load_refs(why, sizeof why) != 0) {
        fprintf(stderr, "nla bench: the CUDA references cannot be used: %s\n", why);
        return NLA_EXIT_FAIL;
    }
    memset(&r, 0, sizeof r);
    if (nla_context_create(&r.ctx, NLA_BACKEND_CUDA) != NLA_OK) {
        fprintf(stderr, "nla bench: %s\n", nla_last_error());
        return NLA_EXIT_NOBACKEND;
    }
    r.json = o->json;
    r.tc.samples = o->quick ? 5 : 9;
    r.tc.min_s = o->quick ? 0.010 : 0.020;
    if (o->gemv || o->gbmv || o->spmv)
        r.memcpy_gbs = memcpy_gbs(&r, o->quick);
    header(&r);
    for (int p = BENCH_D; p <= BENCH_S; p++) {
        struct blas_case c;
        static const int64_t bands[] = { 1, 16, 64 };
        const int dbl = p == BENCH_D;
        for (int i = 0; (o->gemm >> p & 1) && i < (o->quick || o->n ? 1 : 2); i++) {
            memset(&c, 0, sizeof c);
            c.op = 'm';
            c.dbl = dbl;
            c.m = c.n = c.k = o->n ? o->n : i ? 8192 : 4096;
            blas_row(&r, &c);
        }
        for (int t = 0; (o->gemv >> p & 1) && t < 2; t++) {
            memset(&c, 0, sizeof c);
            c.op = 'v';
            c.dbl = dbl;
            c.trans = t;
            c.m = c.n = o->n ? o->n : o->quick ? 8192 : 16384;
            blas_row(&r, &c);
        }
        for (int b = 0; (o->gbmv >> p & 1) && b < 3; b++)
            for (int t = 0; t < 2; t++) {
                memset(&c, 0, sizeof c);
                c.op = 'b';
                c.dbl = dbl;
                c.trans = t;
                c.m = c.n = o->n ? o->n : o->quick ? (int64_t)1 << 20 : (int64_t)1 << 22;
                c.kl = c.ku = bands[b];
                blas_row(&r, &c);
            }
        for (int s = 0; (o->spmv >> p & 1) && s < (o->quick || o->n ? 1 : 2); s++)
            for (int u = 0; u < 2; u++) {
                memset(&c, 0, sizeof c);
                c.op = 'p';
                c.dbl = dbl;
                c.upper = u;
                c.n = o->n ? o->n : o->quick ? 8192 : s ? 32768 : 16384;
                blas_row(&r, &c);
            }
        for (int lg = 10; (o->fft >> p & 1) && lg <= 24; lg += o->quick ? 6 : 2)
            fft_row(&r, dbl, lg);
    }
    if (o->fw)
        fw_row(&r, o->quick);
    if (r.json)
        json_rows(&r);
    else
        printf("\n%d rows, %d failed, %.1f s\n", r.nrows, r.nfail, bench_now() - t0);
    R.blasDestroy(R.handle);
    nla_context_destroy(r.ctx);
    return r.nfail ? NLA_EXIT_FAIL : NLA_EXIT_OK;
}
