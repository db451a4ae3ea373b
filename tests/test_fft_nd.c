/*
 * test_fft_nd.c - multi-dimensional FFT plans (nla_fft_plan_create_nd,
 * nla_fft_plan_2d, nla_fft_plan_3d) against FFTW's long-double
 * multi-dimensional plans (fftw3l), for every kind, both precisions, in
 * and out of place, batches and scale; and their argument checks.
 *
 * Input: uniform in [-0.5, 0.5); C2R input is the spectrum of such real
 * data (Hermitian, as FFTW's C2R assumes).  Error: relative L2 against the
 * reference, at most 3*eps*log2(N) for N points a transform.  Rank 3, and
 * one large 1-D transform (the four-step method, forced by a small derived
 * L3), on 1, 2 and 3 threads: the same bits (and the DFT).  With a CUDA
 * device (or make check's emulated plugin), the same plans on a CUDA
 * context against the CPU's (suite cuda).
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fftw3.h>
#include "refs.h"

typedef long double ld;

static nla_context *ctx;
static void setup(void) { ctx = ref_cpu_context(); }
static void teardown(void) { nla_context_destroy(ctx); }
TestSuite(fft_nd, .init = setup, .fini = teardown);
/* the CUDA suite: the plugin make check built (NLA_CUDA_PLUGIN), if any */
static void setup_cuda(void)
{
    const char *p = getenv("NLA_CUDA_PLUGIN");
    if (p && *p)
        setenv("NLA_PLUGIN_PATH", p, 1);
    unsetenv("NLA_BACKEND");
    setup();
}
TestSuite(cuda, .init = setup_cuda, .fini = teardown);

/* one problem: kind, precision, dims, batches, in place or not */
struct nd_case {
    nla_fft_kind kind;
    nla_precision prec;
    int dir, rank;
    int64_t n[3], howmany;
    int inplace;
    double scale;
};

static size_t rsz(nla_precision p) { return p == NLA_DOUBLE ? sizeof(double) : sizeof(float); }

static ld get(const void *x, nla_precision p, size_t i)
{
    return p == NLA_DOUBLE ? (ld)((const double *)x)[i] : (ld)((const float *)x)[i];
}

static void put(void *x, nla_precision p, size_t i, ld v)
{
    if (p == NLA_DOUBLE)
        ((double *)x)[i] = (double)v;
    else
        ((float *)x)[i] = (float)v;
}

/* fftw3l on one array: c2c (2*total reals in, out), r2c (rows of nl reals
   -> rows of h complex), c2r (the reverse; its input is destroyed) */
static void ref_nd(const struct nd_case *c, ld *in, ld *out)
{
    int n[3];
    fftwl_plan fp;
    for (int k = 0; k < c->rank; k++)
        n[k] = (int)c->n[k];
    if (c->kind == NLA_FFT_C2C)
        fp = fftwl_plan_dft(c->rank, n, (fftwl_complex *)in, (fftwl_complex *)out, c->dir,
                            FFTW_ESTIMATE);
    else if (c->kind == NLA_FFT_R2C)
        fp = fftwl_plan_dft_r2c(c->rank, n, in, (fftwl_complex *)out, FFTW_ESTIMATE);
    else
        fp = fftwl_plan_dft_c2r(c->rank, n, (fftwl_complex *)in, out, FFTW_ESTIMATE);
    cr_assert(fp);
    fftwl_execute(fp);
    fftwl_destroy_plan(fp);
}

/* Runs one case and returns the largest error over its arrays, in units
   of eps*log2(N) */
static double nd_err(const struct nd_case *c)
{
    const nla_precision p = c->prec;
    int64_t rows = 1, nl = c->n[c->rank - 1], h = c->kind == NLA_FFT_C2C ? nl : nl / 2 + 1;
    for (int k = 0; k + 1 < c->rank; k++)
        rows *= c->n[k];
    /* reals per row on each side: complex 2h, real nl (padded 2h in place) */
    const int64_t real_row = c->inplace ? 2 * h : nl;
    const int64_t in_row = c->kind == NLA_FFT_R2C ? real_row : 2 * h;
    const int64_t out_row = c->kind == NLA_FFT_C2R ? real_row : 2 * h;
    const int64_t in_len = rows * in_row, out_len = rows * out_row;
    const int64_t ref_in = rows * (c->kind == NLA_FFT_R2C ? nl : 2 * h);
    const int64_t ref_out = rows * (c->kind == NLA_FFT_C2R ? nl : 2 * h);
    const int64_t buf = in_len > out_len ? in_len : out_len;
    void *x = calloc((size_t)(buf * c->howmany), rsz(p));
    void *y = c->inplace ? x : calloc((size_t)(out_len * c->howmany), rsz(p));
    ld *li = fftwl_malloc(sizeof(ld) * (size_t)(ref_in + 2));
    ld *lo = fftwl_malloc(sizeof(ld) * (size_t)(ref_out + 2 * rows * h + 2));
    ld *refs = malloc(sizeof(ld) * (size_t)(ref_out * c->howmany));
    double *r = malloc(sizeof(double) * (size_t)(rows * nl * 2 + 1));
    nla_fft_desc_nd d;
    nla_fft_plan *pl;
    double worst = 0, npts = (double)(rows * nl);

    cr_assert(x && y && li && lo && refs && r);
    for (int64_t b = 0; b < c->howmany; b++) {
        char *xb = (char *)x + (size_t)(b * (c->inplace ? buf : in_len)) * rsz(p);
        ref_fill(r, (size_t)(rows * nl * 2), 1000 + (uint64_t)b + 7 * (uint64_t)nl);
        if (c->kind == NLA_FFT_C2R) {
            /* the spectrum of real data, rounded to p: the input and the
               reference's input */
            ld *re = fftwl_malloc(sizeof(ld) * (size_t)(rows * nl));
            struct nd_case f = *c;
            f.kind = NLA_FFT_R2C;
            for (int64_t i = 0; i < rows * nl; i++)
                re[i] = 0.5L * r[i];
            ref_nd(&f, re, lo);
            fftwl_free(re);
            for (int64_t i = 0; i < rows; i++)
                for (int64_t j = 0; j < 2 * h; j++) {
                    put(xb, p, (size_t)(i * in_row + j), lo[i * 2 * h + j]);
                    li[i * 2 * h + j] = get(xb, p, (size_t)(i * in_row + j));
                }
        } else {
            int64_t w = c->kind == NLA_FFT_R2C ? nl : 2 * h;
            for (int64_t i = 0; i < rows; i++)
                for (int64_t j = 0; j < w; j++) {
                    put(xb, p, (size_t)(i * in_row + j), 0.5L * r[i * w + j]);
                    li[i * w + j] = get(xb, p, (size_t)(i * in_row + j));
                }
        }
        ref_nd(c, li, refs + b * ref_out);
    }
    memset(&d, 0, sizeof d);
    d.kind = c->kind;
    d.precision = p;
    d.direction = c->dir;
    d.rank = c->rank;
    for (int k = 0; k < c->rank; k++)
        d.n[k] = c->n[k];
    d.howmany = c->howmany;
    if (c->inplace && c->howmany > 1) {
        d.idist = c->kind == NLA_FFT_C2C ? 0 : c->kind == NLA_FFT_R2C ? buf : buf / 2;
        d.odist = c->kind == NLA_FFT_C2C ? 0 : c->kind == NLA_FFT_R2C ? buf / 2 : buf;
    }
    d.scale = c->scale;
    cr_assert_eq(nla_fft_plan_create_nd(ctx, &d, &pl), NLA_OK, "%s", nla_context_error(ctx));
    cr_assert_eq(nla_fft_execute(pl, x, y), NLA_OK, "%s", nla_last_error());
    nla_fft_plan_destroy(pl);
    for (int64_t b = 0; b < c->howmany; b++) {
        const char *yb = (const char *)y + (size_t)(b * (c->inplace ? buf : out_len)) * rsz(p);
        const ld *rb = refs + b * ref_out;
        int64_t w = c->kind == NLA_FFT_C2R ? nl : 2 * h;
        ld num = 0, den = 0, sc = c->scale != 0 ? c->scale : 1;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < w; j++) {
                ld e = get(yb, p, (size_t)(i * out_row + j)) - sc * rb[i * w + j];
                num += e * e;
                den += sc * sc * rb[i * w + j] * rb[i * w + j];
            }
        double err = (double)sqrtl(num / (den > 0 ? den : 1)) /
                     ((p == NLA_DOUBLE ? DBL_EPSILON : FLT_EPSILON) *
                      (npts > 1 ? log2(npts) : 1));
        if (err > worst)
            worst = err;
    }
    if (!c->inplace)
        free(y);
    free(x);
    fftwl_free(li);
    fftwl_free(lo);
    free(refs);
    free(r);
    return worst;
}

static void sweep(int rank, const int64_t (*dims)[3], int ndims)
{
    static const nla_fft_kind kinds[] = { NLA_FFT_C2C, NLA_FFT_R2C, NLA_FFT_C2R };
    for (int i = 0; i < ndims; i++)
        for (int k = 0; k < 3; k++)
            for (int v = 0; v < 4; v++) {
                struct nd_case c = { kinds[k], v % 2 ? NLA_FLOAT : NLA_DOUBLE,
                                     (i + v) % 2 ? NLA_FFT_BACKWARD : NLA_FFT_FORWARD,
                                     rank, { dims[i][0], dims[i][1], dims[i][2] },
                                     v / 2 ? 3 : 1, (i + k + v) % 2, v == 3 ? 0.25 : 0 };
                double e = nd_err(&c);
                cr_expect(e <= 3.0, "rank %d %lldx%lldx%lld kind %d %s howmany %lld %s: "
                          "error %.3g eps*log2(N) > 3", rank, (long long)c.n[0],
                          (long long)c.n[1], (long long)c.n[2], (int)c.kind,
                          v % 2 ? "float" : "double", (long long)c.howmany,
                          c.inplace ? "in place" : "out of place", e);
            }
}

Test(fft_nd, rank2)
{
    static const int64_t dims[][3] = { { 1, 1 }, { 1, 6 }, { 5, 1 }, { 3, 5 }, { 16, 16 },
                                       { 12, 10 }, { 7, 9 }, { 64, 48 }, { 17, 8 } };
    sweep(2, dims, (int)(sizeof dims / sizeof *dims));
}

Test(fft_nd, rank3)
{
    static const int64_t dims[][3] = { { 4, 6, 8 }, { 5, 3, 7 }, { 8, 1, 9 },
                                       { 16, 16, 16 }, { 2, 11, 6 } };
    sweep(3, dims, (int)(sizeof dims / sizeof *dims));
}

/* Rank 3 on 1, 2 and 3 threads (the planes shared among them, each on
   one-thread plans, then dimension 0): the same bits, every kind, out of
   place (C2R from a copy of its input, which it overwrites) */
Test(fft_nd, rank3_threads)
{
    static const int64_t dims[][3] = { { 16, 12, 10 }, { 7, 33, 8 } };
    static const nla_fft_kind kinds[] = { NLA_FFT_C2C, NLA_FFT_R2C, NLA_FFT_C2R };
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++)
            for (int pi = 0; pi < 2; pi++) {
                const nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
                const int64_t n = dims[i][0] * dims[i][1] * dims[i][2];
                const int64_t cplx = dims[i][0] * dims[i][1] * (dims[i][2] / 2 + 1);
                const size_t ilen = (size_t)(kinds[k] == NLA_FFT_C2C ? 2 * n
                                             : kinds[k] == NLA_FFT_R2C ? n : 2 * cplx);
                const size_t olen = (size_t)(kinds[k] == NLA_FFT_C2C ? 2 * n
                                             : kinds[k] == NLA_FFT_R2C ? 2 * cplx : n);
                double *r = malloc(sizeof(double) * ilen);
                void *x0 = malloc(ilen * rsz(p)), *x = malloc(ilen * rsz(p));
                void *y1 = malloc(olen * rsz(p)), *yt = malloc(olen * rsz(p));
                nla_fft_desc_nd d;
                cr_assert(r && x0 && x && y1 && yt);
                ref_fill(r, ilen, 77 + (uint64_t)(i * 6 + k * 2 + pi));
                for (size_t j = 0; j < ilen; j++)
                    put(x0, p, j, (ld)r[j]);
                memset(&d, 0, sizeof d);
                d.kind = kinds[k];
                d.precision = p;
                d.direction = NLA_FFT_FORWARD;
                d.rank = 3;
                memcpy(d.n, dims[i], sizeof d.n);
                for (int nt = 1; nt <= 3; nt++) {
                    nla_fft_plan *pl;
                    nla_context_set_threads(ctx, nt);
                    memcpy(x, x0, ilen * rsz(p));
                    cr_assert_eq(nla_fft_plan_create_nd(ctx, &d, &pl), NLA_OK, "%s",
                                 nla_context_error(ctx));
                    cr_assert_eq(nla_fft_execute(pl, x, nt == 1 ? y1 : yt), NLA_OK);
                    nla_fft_plan_destroy(pl);
                    cr_expect(nt == 1 || memcmp(y1, yt, olen * rsz(p)) == 0,
                              "%lldx%lldx%lld kind %d %s: %d threads differ from one",
                              (long long)dims[i][0], (long long)dims[i][1],
                              (long long)dims[i][2], (int)kinds[k], pi ? "float" : "double",
                              nt);
                }
                nla_context_set_threads(ctx, 0);
                free(r);
                free(x0);
                free(x);
                free(y1);
                free(yt);
            }
}

Test(fft_nd, rank1)
{
    static const int64_t dims[][3] = { { 1 }, { 12 }, { 1000 }, { 17 } };
    sweep(1, dims, (int)(sizeof dims / sizeof *dims));
}

/* nla_fft_plan_2d and _3d: the same bits as the descriptor's plan */
Test(fft_nd, wrappers)
{
    const int64_t n0 = 6, n1 = 10, n2 = 4, total = n0 * n1 * n2;
    double *x = malloc(sizeof(double) * 2 * (size_t)total);
    double *a = malloc(sizeof(double) * 2 * (size_t)total);
    double *b = malloc(sizeof(double) * 2 * (size_t)total);
    nla_fft_desc_nd d;
    nla_fft_plan *p, *q;

    ref_fill(x, 2 * (size_t)total, 5);
    memset(&d, 0, sizeof d);
    d.kind = NLA_FFT_C2C;
    d.precision = NLA_DOUBLE;
    d.direction = NLA_FFT_BACKWARD;
    d.rank = 2;
    d.n[0] = n0;
    d.n[1] = n1 * n2;
    cr_assert_eq(nla_fft_plan_2d(ctx, n0, n1 * n2, NLA_FFT_BACKWARD, NLA_DOUBLE, &p), NLA_OK);
    cr_assert_eq(nla_fft_plan_create_nd(ctx, &d, &q), NLA_OK);
    cr_assert_eq(nla_fft_execute_c2c_d(p, x, a), NLA_OK);
    cr_assert_eq(nla_fft_execute_c2c_d(q, x, b), NLA_OK);
    cr_expect(memcmp(a, b, sizeof(double) * 2 * (size_t)total) == 0, "2d wrapper differs");
    nla_fft_plan_destroy(p);
    nla_fft_plan_destroy(q);
    d.rank = 3;
    d.n[1] = n1;
    d.n[2] = n2;
    cr_assert_eq(nla_fft_plan_3d(ctx, n0, n1, n2, NLA_FFT_BACKWARD, NLA_DOUBLE, &p), NLA_OK);
    cr_assert_eq(nla_fft_plan_create_nd(ctx, &d, &q), NLA_OK);
    cr_assert_eq(nla_fft_execute(p, x, a), NLA_OK);
    cr_assert_eq(nla_fft_execute(q, x, b), NLA_OK);
    cr_expect(memcmp(a, b, sizeof(double) * 2 * (size_t)total) == 0, "3d wrapper differs");
    /* typed execution checks the kind and precision */
    cr_expect_eq(nla_fft_execute_c2c_s(p, (const float *)x, (float *)a), NLA_EINVAL);
    cr_expect_eq(nla_fft_execute_r2c_d(p, x, a), NLA_EINVAL);
    nla_fft_plan_destroy(p);
    nla_fft_plan_destroy(q);
    free(x);
    free(a);
    free(b);
}

/* Bad descriptors: NLA_EINVAL, the message names the field, plan NULL */
Test(fft_nd, bad_arguments)
{
    struct { const char *field; int rank; int64_t n0, n1, howmany, idist, odist; int kind;
             double scale; } bad[] = {
        { "desc->rank", 0, 4, 4, 0, 0, 0, NLA_FFT_C2C, 0 },
        { "desc->rank", 4, 4, 4, 0, 0, 0, NLA_FFT_C2C, 0 },
        { "desc->n[0]", 2, 0, 4, 0, 0, 0, NLA_FFT_C2C, 0 },
        { "desc->n[1]", 2, 4, -3, 0, 0, 0, NLA_FFT_C2C, 0 },
        { "desc->howmany", 2, 4, 4, -1, 0, 0, NLA_FFT_C2C, 0 },
        { "desc->idist", 2, 4, 4, 2, 15, 0, NLA_FFT_C2C, 0 },
        { "desc->odist", 2, 4, 4, 2, 0, 11, NLA_FFT_R2C, 0 },
        { "desc->idist", 2, 4, 4, 2, 15, 0, NLA_FFT_R2C, 0 },
        { "desc->kind", 2, 4, 4, 0, 0, 0, 7, 0 },
        { "desc->scale", 2, 4, 4, 0, 0, 0, NLA_FFT_C2C, INFINITY },
        { "desc->n", 2, (int64_t)1 << 40, (int64_t)1 << 40, 0, 0, 0, NLA_FFT_C2C, 0 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        nla_fft_desc_nd d;
        nla_fft_plan *p = (nla_fft_plan *)&d;
        memset(&d, 0, sizeof d);
        d.kind = (nla_fft_kind)bad[i].kind;
        d.precision = NLA_DOUBLE;
        d.direction = NLA_FFT_FORWARD;
        d.rank = bad[i].rank;
        d.n[0] = bad[i].n0;
        d.n[1] = bad[i].n1;
        d.n[2] = 3;
        d.howmany = bad[i].howmany;
        d.idist = bad[i].idist;
        d.odist = bad[i].odist;
        d.scale = bad[i].scale;
        cr_expect_eq(nla_fft_plan_create_nd(ctx, &d, &p), NLA_EINVAL, "case %zu", i);
        cr_expect_null(p, "case %zu: plan not NULL", i);
        cr_expect(strstr(nla_context_error(ctx), bad[i].field) != NULL,
                  "case %zu: \"%s\" does not name %s", i, nla_context_error(ctx),
                  bad[i].field);
    }
    {
        nla_fft_plan *p = NULL;
        cr_expect_eq(nla_fft_plan_2d(ctx, 4, 0, NLA_FFT_FORWARD, NLA_DOUBLE, &p), NLA_EINVAL);
        cr_expect(strstr(nla_context_error(ctx), "n1") != NULL, "%s", nla_context_error(ctx));
        cr_expect_eq(nla_fft_plan_3d(ctx, 4, 4, 4, (nla_fft_direction)3, NLA_DOUBLE, &p),
                     NLA_EINVAL);
        cr_expect(strstr(nla_context_error(ctx), "dir") != NULL, "%s", nla_context_error(ctx));
        cr_expect_eq(nla_fft_plan_create_nd(ctx, NULL, &p), NLA_EINVAL);
        cr_expect_eq(nla_fft_plan_create_nd(NULL, NULL, &p), NLA_EINVAL);
        cr_expect_eq(nla_fft_plan_2d(ctx, (int64_t)1 << 40, (int64_t)1 << 40, NLA_FFT_FORWARD,
                                     NLA_DOUBLE, &p), NLA_EINVAL);
        cr_expect(strstr(nla_context_error(ctx), "nla_fft_plan_2d: n1") != NULL, "%s",
                  nla_context_error(ctx));
        cr_expect_eq(nla_fft_plan_3d(ctx, 4, 4, 4, NLA_FFT_FORWARD, (nla_precision)7, &p),
                     NLA_EINVAL);
        cr_expect(strstr(nla_context_error(ctx), "prec") != NULL, "%s", nla_context_error(ctx));
        {
            nla_fft_desc_nd d;
            memset(&d, 0, sizeof d);
            d.rank = 2;
            d.n[0] = d.n[1] = 4;
            cr_expect_eq(nla_fft_plan_create_nd(ctx, &d, NULL), NLA_EINVAL);
            cr_expect(strstr(nla_context_error(ctx), "plan") != NULL, "%s",
                         nla_context_error(ctx));
            d.precision = (nla_precision)3;
            cr_expect_eq(nla_fft_plan_create_nd(ctx, &d, &p), NLA_EINVAL);
            cr_expect(strstr(nla_context_error(ctx), "desc->precision"), "%s",
                      nla_context_error(ctx));
            d.precision = NLA_DOUBLE;
            d.direction = (nla_fft_direction)0;
            cr_expect_eq(nla_fft_plan_create_nd(ctx, &d, &p), NLA_EINVAL);
            cr_expect(strstr(nla_context_error(ctx), "desc->direction"), "%s",
                      nla_context_error(ctx));
            /* a C2C idist of 2^58 complex values: its extent overflows */
            d.direction = NLA_FFT_FORWARD;
            d.howmany = 3;
            d.idist = (int64_t)1 << 58;
            cr_expect_eq(nla_fft_plan_create_nd(ctx, &d, &p), NLA_EINVAL);
            cr_expect(strstr(nla_context_error(ctx), "idist"), "%s", nla_context_error(ctx));
        }
    }
    /* in place with dists that do not give FFTW's padded layout */
    {
        nla_fft_desc_nd d;
        nla_fft_plan *p;
        float buf[4 * 2 * 5 * 2] = { 0 };
        memset(&d, 0, sizeof d);
        d.kind = NLA_FFT_R2C;
        d.precision = NLA_FLOAT;
        d.direction = NLA_FFT_FORWARD;
        d.rank = 2;
        d.n[0] = 4;
        d.n[1] = 8;
        d.howmany = 2;
        d.idist = 32;   /* packed: not the padded 2*odist */
        cr_assert_eq(nla_fft_plan_create_nd(ctx, &d, &p), NLA_OK);
        cr_expect_eq(nla_fft_execute(p, buf, buf), NLA_EINVAL);
        cr_expect(strstr(nla_last_error(), "in == out") != NULL, "%s", nla_last_error());
        nla_fft_plan_destroy(p);
        /* one array in place: its dists are not used, any will do */
        d.howmany = 1;
        cr_assert_eq(nla_fft_plan_create_nd(ctx, &d, &p), NLA_OK);
        cr_expect_eq(nla_fft_execute(p, buf, buf), NLA_OK, "%s", nla_last_error());
        nla_fft_plan_destroy(p);
    }
}

/* Random descriptors, valid and not, against an oracle written here from
   nla.h: an invalid one gives NLA_EINVAL, a NULL plan and a message
   "nla_fft_plan_create_nd: desc..."; a valid one runs out of place and
   writes nothing outside its arrays (the gaps between them and past the
   last keep their sentinels) and, except C2R of rank > 1, leaves its
   input as it was. */
static uint64_t fz_state = 88172645463325252ull;
static int64_t fz_pick(int64_t k)
{
    fz_state ^= fz_state << 13;
    fz_state ^= fz_state >> 7;
    fz_state ^= fz_state << 17;
    return (int64_t)(fz_state % (uint64_t)k);
}

Test(fft_nd, fuzz_descriptors)
{
    static const int64_t dims[] = { -1, 0, 1, 2, 3, 5, 8, 12 };
    static const double scales[] = { 0, 0.5, NAN, INFINITY };
    int iters = REF_SIZE(3000, 300), ran = 0;

    for (int it = 0; it < iters; it++) {
        nla_fft_desc_nd d;
        nla_fft_plan *pl = (nla_fft_plan *)&d;
        int64_t rows = 1, nl, h, ccount, rreal, need_i, need_o;
        int valid;
        nla_status st;

        memset(&d, 0, sizeof d);
        d.kind = (nla_fft_kind)(fz_pick(8) == 0 ? 5 : fz_pick(3));
        d.precision = (nla_precision)(fz_pick(10) == 0 ? 2 : fz_pick(2));
        d.direction = fz_pick(10) == 0 ? (nla_fft_direction)0
                                        : fz_pick(2) ? NLA_FFT_FORWARD : NLA_FFT_BACKWARD;
        d.rank = fz_pick(10) == 0 ? (int)fz_pick(6) - 1 : 1 + (int)fz_pick(3);
        for (int k = 0; k < 3; k++)
            d.n[k] = fz_pick(6) == 0 ? dims[fz_pick(2)] : dims[2 + fz_pick(6)];
        if (d.rank >= 2 && d.rank <= 3 && fz_pick(40) == 0)
            d.n[0] = d.n[1] = (int64_t)1 << 40;   /* their product overflows */
        d.howmany = fz_pick(8) == 0 ? -1 : fz_pick(4);
        d.scale = fz_pick(6) == 0 ? scales[2 + fz_pick(2)] : scales[fz_pick(2)];
        valid = (unsigned)d.kind <= 2 && (unsigned)d.precision <= 1 &&
                (d.direction == NLA_FFT_FORWARD || d.direction == NLA_FFT_BACKWARD) &&
                d.rank >= 1 && d.rank <= 3 && d.howmany >= 0 && isfinite(d.scale);
        for (int k = 0; valid && k < d.rank; k++)
            valid = d.n[k] >= 1 && d.n[k] < ((int64_t)1 << 40);
        /* the arrays' sizes, and dists: 0, the least, one less, or more */
        nl = d.rank >= 1 && d.rank <= 3 ? d.n[d.rank - 1] : 1;
        h = d.kind == NLA_FFT_C2C ? nl : nl / 2 + 1;
        for (int k = 0; d.rank <= 3 && k + 1 < d.rank; k++)
            rows *= d.n[k] > 0 && d.n[k] < 4096 ? d.n[k] : 1;
        ccount = rows * h;
        rreal = rows * nl;
        need_i = d.kind == NLA_FFT_R2C ? rreal : ccount;
        need_o = d.kind == NLA_FFT_C2R ? rreal : ccount;
        for (int side = 0; side < 2; side++) {
            int64_t need = side ? need_o : need_i, v;
            switch (fz_pick(5)) {
            case 0: case 1: v = 0; break;
            case 2: v = need; break;
            case 3: v = need + 1 + fz_pick(5); break;
            default: v = fz_pick(3) ? need - 1 : -1; break;
            }
            if (side)
                d.odist = v;
            else
                d.idist = v;
            if (valid && v != 0 && v < need)
                valid = 0;
        }
        st = nla_fft_plan_create_nd(ctx, &d, &pl);
        cr_assert_eq(st, valid ? NLA_OK : NLA_EINVAL, "iteration %d: status %d, oracle %s: %s",
                     it, (int)st, valid ? "valid" : "invalid", nla_context_error(ctx));
        if (!valid) {
            cr_assert_null(pl, "iteration %d: a failed plan is not NULL", it);
            cr_assert(strncmp(nla_context_error(ctx), "nla_fft_plan_create_nd: desc", 28) == 0,
                      "iteration %d: \"%s\"", it, nla_context_error(ctx));
            continue;
        }
        {
            const size_t es = rsz(d.precision);
            const int64_t hm = d.howmany ? d.howmany : 1;
            const int64_t di = d.idist ? d.idist : need_i, dout = d.odist ? d.odist : need_o;
            const int64_t si = d.kind == NLA_FFT_R2C ? 1 : 2, so = d.kind == NLA_FFT_C2R ? 1 : 2;
            const size_t in_n = (size_t)(((hm - 1) * di + need_i) * si);
            const size_t out_n = (size_t)(((hm - 1) * dout + need_o) * so) + 8;
            void *x = malloc(in_n * es), *x0 = malloc(in_n * es), *y = malloc(out_n * es);
            double *r = malloc(sizeof(double) * in_n);
            ref_fill(r, in_n, (uint64_t)it);
            for (size_t j = 0; j < in_n; j++)
                put(x, d.precision, j, 0.5L * r[j]);
            for (size_t j = 0; j < out_n; j++)
                put(y, d.precision, j, 12345.0L);
            memcpy(x0, x, in_n * es);
            cr_assert_eq(nla_fft_execute(pl, x, y), NLA_OK, "iteration %d: %s", it,
                         nla_last_error());
            for (int64_t b = 0; b < hm; b++) {
                int64_t gap0 = (b * dout + need_o) * so;
                int64_t gap1 = b + 1 < hm ? (b + 1) * dout * so : (int64_t)out_n;
                for (int64_t j = gap0; j < gap1; j++)
                    cr_assert(get(y, d.precision, (size_t)j) == 12345.0L,
                              "iteration %d: element %lld past array %lld written", it,
                              (long long)j, (long long)b);
            }
            if (!(d.kind == NLA_FFT_C2R && d.rank > 1))
                cr_assert(memcmp(x, x0, in_n * es) == 0, "iteration %d: input changed", it);
            nla_fft_plan_destroy(pl);
            free(x);
            free(x0);
            free(y);
            free(r);
            ran++;
        }
    }
    cr_expect(ran > iters / 10, "only %d valid descriptors ran", ran);
}

/* ------------------------------------------------------------- threads */

/* One large transform on 1, 2 and 3 threads (wisdom's token for it where
   tok is not NULL): its shares of work are the same for any thread count,
   so are the bits; and the result is the DFT. */
struct thr_case { nla_precision p; int64_t n; const char *tok; };

static void one_transform_threads(const struct thr_case *cs, size_t nc)
{
    for (size_t i = 0; i < nc; i++) {
        if (cs[i].tok) {
            char text[128];
            snprintf(text, sizeof text, "nla-fft-wisdom 1\n%c %lld f %s\nend\n",
                     cs[i].p == NLA_FLOAT ? 's' : 'd', (long long)cs[i].n, cs[i].tok);
            cr_assert_eq(nla_fft_wisdom_import(text), NLA_OK);
        }
        size_t bytes = 2 * (size_t)cs[i].n * rsz(cs[i].p);
        double *r = malloc(sizeof(double) * 2 * (size_t)cs[i].n);
        void *x = malloc(bytes), *y1 = malloc(bytes), *yt = malloc(bytes);
        ref_fill(r, 2 * (size_t)cs[i].n, 3 + i);
        for (size_t j = 0; j < 2 * (size_t)cs[i].n; j++)
            put(x, cs[i].p, j, r[j]);
        for (int nt = 1; nt <= 3; nt++) {
            nla_fft_plan *pl;
            nla_context_set_threads(ctx, nt);
            cr_assert_eq(nla_fft_plan_1d(ctx, cs[i].n, NLA_FFT_FORWARD, cs[i].p, &pl),
                         NLA_OK);
            cr_assert_eq(nla_fft_execute(pl, x, nt == 1 ? y1 : yt), NLA_OK);
            nla_fft_plan_destroy(pl);
            if (nt > 1)
                cr_expect(memcmp(y1, yt, bytes) == 0, "n=%lld %s: %d threads differ from one",
                          (long long)cs[i].n, cs[i].p == NLA_FLOAT ? "float" : "double",
                          nt);
        }
        {
            /* the DFT: against fftw3l, as a 1-D "rank 1" case of ref_nd */
            struct nd_case c = { NLA_FFT_C2C, cs[i].p, NLA_FFT_FORWARD, 1,
                                 { cs[i].n, 0, 0 }, 1, 0, 0 };
            ld *li = fftwl_malloc(sizeof(ld) * 2 * (size_t)cs[i].n);
            ld *lo = fftwl_malloc(sizeof(ld) * 2 * (size_t)cs[i].n);
            ld num = 0, den = 0;
            for (size_t j = 0; j < 2 * (size_t)cs[i].n; j++)
                li[j] = get(x, cs[i].p, j);
            ref_nd(&c, li, lo);
            for (size_t j = 0; j < 2 * (size_t)cs[i].n; j++) {
                ld e = get(y1, cs[i].p, j) - lo[j];
                num += e * e;
                den += lo[j] * lo[j];
            }
            cr_expect((double)sqrtl(num / den) <=
                          2 * (cs[i].p == NLA_FLOAT ? FLT_EPSILON : DBL_EPSILON) *
                              log2((double)cs[i].n),
                      "n=%lld: error %.3g", (long long)cs[i].n, (double)sqrtl(num / den));
            fftwl_free(li);
            fftwl_free(lo);
        }
        nla_context_set_threads(ctx, 1);
        free(r);
        free(x);
        free(y1);
        free(yt);
    }
    nla_fft_wisdom_forget();
}

/* The derived configuration of these caches (L1d, L2, L3), then setup() */
static void derived_caches(const char *caches)
{
    setenv("NLA_CPU_TUNE", "derived", 1);
    setenv("NLA_TUNE_CACHES", caches, 1);
    setup();
}

/* A Stockham limit of 1 MiB (the derived configuration of a 4 MiB L3), so
   that these sizes take the four-step method (its column blocks) on any
   machine */
static void small_l3(void) { derived_caches("16K,256K,4M"); }

Test(fft_small_l3, one_transform_threads, .init = small_l3, .fini = teardown)
{
    static const struct thr_case cases[] = {
        { NLA_DOUBLE, 1 << 18, NULL }, { NLA_DOUBLE, 177147, NULL }, { NLA_FLOAT, 1 << 19, NULL } };
    cr_assert_eq(nla_cpu_config_value("fft_stockham_max_bytes"), 1 << 20);
    one_transform_threads(cases, sizeof cases / sizeof *cases);
}

/* A 512 KiB L2 and a large L3, so that these sizes take the DIT core on any
   machine (2^18 and 3*2^16 double: d32, rows decimated in turn; 2^18 float:
   d32), and wisdom's d24 its columns by passes rather than the interleaved
   codelet */
static void small_l2(void) { derived_caches("32K,512K,1G"); }

Test(fft_small_l2, one_transform_threads, .init = small_l2, .fini = teardown)
{
    static const struct thr_case cases[] = {
        { NLA_DOUBLE, 1 << 18, NULL }, { NLA_DOUBLE, 3 << 16, NULL },
        { NLA_FLOAT, 1 << 18, NULL }, { NLA_DOUBLE, 3 << 16, "d24" } };
    cr_assert_eq(nla_cpu_config_value("l2"), 512 * 1024);
    one_transform_threads(cases, sizeof cases / sizeof *cases);
}

/* ------------------------------------------------------------------ CUDA */

/* The multi-dimensional plans on a CUDA context, on device memory, against
   the CPU context's results: 4*eps*log2(N) in relative L2.  The suite is
   named cuda so that make check's emulated-plugin run and
   tools/gpu-check.sh pick it (and a skip there is seen as one). */
static double rel_diff(const void *a, const void *b, nla_precision p, size_t count)
{
    ld num = 0, den = 0;
    for (size_t i = 0; i < count; i++) {
        ld e = get(a, p, i) - get(b, p, i);
        num += e * e;
        den += get(b, p, i) * get(b, p, i);
    }
    return (double)sqrtl(num / (den > 0 ? den : 1));
}

Test(cuda, fft_nd)
{
    static const int64_t dims[][3] = { { 12, 10, 0 }, { 16, 16, 0 }, { 4, 6, 8 }, { 5, 3, 7 } };
    nla_context *gpu;

    if (!nla_backend_available(NLA_BACKEND_CUDA))
        cr_skip_test("no CUDA device: %s", nla_backend_unavailable_reason(NLA_BACKEND_CUDA));
    cr_assert_eq(nla_context_create(&gpu, NLA_BACKEND_CUDA), NLA_OK, "%s", nla_last_error());
    for (size_t i = 0; i < sizeof dims / sizeof *dims; i++)
        for (int k = 0; k < 3; k++)
            for (int v = 0; v < 4; v++) {
                nla_fft_desc_nd d;
                nla_precision p = v % 2 ? NLA_FLOAT : NLA_DOUBLE;
                int rank = dims[i][2] ? 3 : 2;
                int64_t rows = dims[i][0] * (rank == 3 ? dims[i][1] : 1);
                int64_t nl = dims[i][rank - 1], h = k == 0 ? nl : nl / 2 + 1;
                int64_t howmany = v / 2 ? 2 : 1;
                size_t in_n = (size_t)(rows * (k == 1 ? nl : 2 * h) * howmany);
                size_t out_n = (size_t)(rows * (k == 2 ? nl : 2 * h) * howmany);
                size_t es = rsz(p);
                void *x = malloc(in_n * es), *xc = malloc(in_n * es), *ycpu = malloc(out_n * es);
                void *ygpu = malloc(out_n * es), *dx = NULL, *dy = NULL;
                double *r = malloc(sizeof(double) * in_n);
                nla_fft_plan *pc, *pg;

                memset(&d, 0, sizeof d);
                d.kind = (nla_fft_kind)k;
                d.precision = p;
                d.direction = v % 3 ? NLA_FFT_BACKWARD : NLA_FFT_FORWARD;
                d.rank = rank;
                for (int j = 0; j < rank; j++)
                    d.n[j] = dims[i][j];
                d.howmany = howmany;
                ref_fill(r, in_n, 77 + i + (size_t)k);
                for (size_t j = 0; j < in_n; j++)
                    put(x, p, j, 0.5L * r[j]);
                if (k == 2) {
                    /* a Hermitian input: the CPU's R2C of real data */
                    nla_fft_desc_nd f = d;
                    void *re = malloc((size_t)(rows * nl * howmany) * es);
                    f.kind = NLA_FFT_R2C;
                    for (size_t j = 0; j < (size_t)(rows * nl * howmany); j++)
                        put(re, p, j, 0.5L * r[j]);
                    cr_assert_eq(nla_fft_plan_create_nd(ctx, &f, &pc), NLA_OK);
                    cr_assert_eq(nla_fft_execute(pc, re, x), NLA_OK);
                    nla_fft_plan_destroy(pc);
                    free(re);
                }
                memcpy(xc, x, in_n * es);
                cr_assert_eq(nla_fft_plan_create_nd(ctx, &d, &pc), NLA_OK, "%s",
                             nla_context_error(ctx));
                cr_assert_eq(nla_fft_execute(pc, xc, ycpu), NLA_OK, "%s", nla_last_error());
                cr_assert_eq(nla_fft_plan_create_nd(gpu, &d, &pg), NLA_OK, "%s",
                             nla_context_error(gpu));
                cr_assert_eq(nla_malloc(gpu, &dx, in_n * es), NLA_OK);
                cr_assert_eq(nla_malloc(gpu, &dy, out_n * es), NLA_OK);
                cr_assert_eq(nla_upload(gpu, dx, x, in_n * es), NLA_OK);
                cr_assert_eq(nla_fft_execute(pg, dx, dy), NLA_OK, "%s", nla_last_error());
                cr_assert_eq(nla_context_synchronize(gpu), NLA_OK);
                cr_assert_eq(nla_download(gpu, ygpu, dy, out_n * es), NLA_OK);
                {
                    double npts = (double)(rows * nl);
                    double e = rel_diff(ygpu, ycpu, p, out_n) /
                               ((p == NLA_DOUBLE ? DBL_EPSILON : FLT_EPSILON) * log2(npts));
                    cr_expect(e <= 4.0, "rank %d %lldx%lld kind %d %s howmany %lld: CUDA "
                              "against the CPU %.3g eps*log2(N) > 4", rank,
                              (long long)dims[i][0], (long long)dims[i][1], k,
                              p == NLA_FLOAT ? "float" : "double", (long long)howmany, e);
                }
                nla_free(gpu, dx);
                nla_free(gpu, dy);
                nla_fft_plan_destroy(pc);
                nla_fft_plan_destroy(pg);
                free(x);
                free(xc);
                free(ycpu);
                free(ygpu);
                free(r);
            }
    nla_context_destroy(gpu);
}
