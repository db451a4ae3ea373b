/*
 * test_dct.c - DCT-II and DCT-III (NLA_FFT_REDFT10, NLA_FFT_REDFT01)
 * against FFTW's long-double r2r plans (fftw3l), and against themselves:
 * round trip, batches with strides and dists, in place, scale, threads;
 * then the argument checks, and the CPU fallback where the CUDA backend
 * (the mock plugin, and the real one where a device or its emulation
 * exists) has no DCT.
 *
 * Input: uniform in [-0.5, 0.5).  Error: relative L2, ||y - ref|| / ||ref||,
 * computed in long double.  Bound: c*eps*log2(n+1) with c = 3 when the
 * prime factors of n are at most 127, and c = 10 otherwise (Bluestein).
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fftw3.h>
#include "fft_check.h"
#include "refs.h"

static const nla_fft_kind dct_kinds[2] = { NLA_FFT_REDFT10, NLA_FFT_REDFT01 };
static const char *const kind_str[2] = { "REDFT10", "REDFT01" };
static const char *const prec_str[2] = { "double", "float" };

/* the bound's c: n with a prime factor over 127 goes through Bluestein */
static double c_of(int64_t n) { return fc_smooth(n) ? 3.0 : 10.0; }

static double unit(nla_precision p, int64_t n) { return fc_eps_of(p) * log2((double)n + 1); }

/* FFTW's REDFT10 or REDFT01 in long double */
static void ref_dct(nla_fft_kind k, int64_t n, const ld *in, ld *out)
{
    ld *a = fftwl_malloc(sizeof *a * (size_t)n), *b = fftwl_malloc(sizeof *b * (size_t)n);
    fftwl_plan fp;
    cr_assert(a && b);
    fp = fftwl_plan_r2r_1d((int)n, a, b, k == NLA_FFT_REDFT10 ? FFTW_REDFT10 : FFTW_REDFT01,
                           FFTW_ESTIMATE);
    cr_assert(fp);
    memcpy(a, in, sizeof *a * (size_t)n);
    fftwl_execute(fp);
    memcpy(out, b, sizeof *b * (size_t)n);
    fftwl_destroy_plan(fp);
    fftwl_free(a);
    fftwl_free(b);
}

/* a DCT descriptor: forward (REDFT10 and REDFT01 have no direction) */
static nla_fft_desc dct_desc(nla_fft_kind k, nla_precision p, int64_t n)
{
    return fc_desc_of(k, p, NLA_FFT_FORWARD, n);
}

/* One transform of random data against fftw3l, out of place (the input
   must stay as it was) or in place; returns err / (eps log2(n+1)). */
static double dct_err(nla_context *c, nla_precision p, nla_fft_kind k, int64_t n, int inplace)
{
    ld *xin = malloc(sizeof(ld) * (size_t)n), *ref = malloc(sizeof(ld) * (size_t)n);
    void *x = fc_rand_real(p, (size_t)n, (uint64_t)n * 5 + (uint64_t)k, xin);
    void *y = inplace ? x : malloc((size_t)n * fc_rsz(p));
    void *x0 = malloc((size_t)n * fc_rsz(p));
    nla_fft_desc d = dct_desc(k, p, n);
    nla_fft_plan *pl = fc_plan_desc(c, &d);
    double e;

    cr_assert(xin && ref && y && x0);
    memcpy(x0, x, (size_t)n * fc_rsz(p));
    cr_assert_eq(nla_fft_execute(pl, x, y), NLA_OK, "%s", nla_last_error());
    if (!inplace)
        cr_assert(memcmp(x, x0, (size_t)n * fc_rsz(p)) == 0, "out-of-place input modified");
    ref_dct(k, n, xin, ref);
    e = fc_rel_l2(y, p, ref, (size_t)n) / unit(p, n);
    nla_fft_plan_destroy(pl);
    if (!inplace)
        free(y);
    free(x);
    free(x0);
    free(xin);
    free(ref);
    return e;
}

static nla_context *ctx;
static void setup(void) { ctx = ref_cpu_context(); }
static void teardown(void) { nla_context_destroy(ctx); }
TestSuite(dct, .init = setup, .fini = teardown);

/* sizes[] (or 1..nmax when sizes is NULL), both kinds and precisions;
   every size must meet its bound.  Logs the largest ratio to the bound. */
static void sweep(const int64_t *sizes, size_t count, int64_t nmax, const char *what)
{
    double worst = 0, worst_e = 0;
    int bad = 0;
    for (int pi = 0; pi < 2; pi++)
        for (int ki = 0; ki < 2; ki++)
            for (size_t i = 0; i < (sizes ? count : (size_t)nmax); i++) {
                nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
                int64_t n = sizes ? sizes[i] : (int64_t)i + 1;
                double e = dct_err(ctx, p, dct_kinds[ki], n, (int)(i % 5 == 3));
                if (e / c_of(n) > worst)
                    worst = e / c_of(n);
                if (e > worst_e)
                    worst_e = e;
                if (e > c_of(n) && bad++ < 10)
                    cr_expect(e <= c_of(n), "%s %s n=%lld: error %.3g eps*log2(n+1) > %g",
                              prec_str[pi], kind_str[ki], (long long)n, e, c_of(n));
            }
    cr_expect(bad == 0, "%s: %d sizes over the bound", what, bad);
    cr_log_info("%s: largest error %.3f eps*log2(n+1); largest error / bound %.3f", what,
                worst_e, worst);
}

/* every n from 1 to 1024 (valgrind: to 48), both kinds and precisions */
Test(dct, every_n_against_fftw)
{
    sweep(NULL, 0, REF_SIZE(1024, 48), "n = 1..1024");
}

/* larger sizes: smooth ones, a power of two past the Stockham radix-8
   runs, and primes through Bluestein */
Test(dct, large_n_against_fftw)
{
    static const int64_t full[] = { 1000, 4096, 10007, 65536, 99991, 100000 };
    static const int64_t small[] = { 1000, 4096 };
    if (ref_test_small())
        sweep(small, 2, 0, "large n (small set)");
    else
        sweep(full, sizeof full / sizeof *full, 0, "large n");
}

/* a configuration whose Stockham limit is 1 MiB (the derived one of a
   4 MiB L3): the inner real transform of 2^18 doubles or 2^19 floats is a
   four-step one, run on 2 threads; the same bits as on 1 thread */
static void small_l3(void)
{
    setenv("NLA_CPU_TUNE", "derived", 1);
    setenv("NLA_TUNE_CACHES", "16K,256K,4M", 1);
    setup();
}

Test(dct_small_l3, four_step_inner_on_threads, .init = small_l3, .fini = teardown)
{
    cr_assert_eq(nla_cpu_config_value("fft_stockham_max_bytes"), 1 << 20);
    if (ref_test_small())
        cr_skip_test("n = 2^19 against long double: not with NLA_TEST_SMALL");
    for (int pi = 0; pi < 2; pi++)
        for (int ki = 0; ki < 2; ki++) {
            nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
            int64_t n = pi ? (int64_t)1 << 19 : (int64_t)1 << 18;
            size_t bytes = (size_t)n * fc_rsz(p);
            void *x = fc_rand_real(p, (size_t)n, 7, NULL), *y1 = malloc(bytes);
            double e;
            nla_fft_desc d = dct_desc(dct_kinds[ki], p, n);
            nla_fft_plan *pl;
            cr_assert(y1);
            cr_assert_eq(nla_context_set_threads(ctx, 1), NLA_OK);
            pl = fc_plan_desc(ctx, &d);
            cr_assert_eq(nla_fft_execute(pl, x, y1), NLA_OK);
            nla_fft_plan_destroy(pl);
            cr_assert_eq(nla_context_set_threads(ctx, 2), NLA_OK);
            e = dct_err(ctx, p, dct_kinds[ki], n, 0);
            cr_expect(e <= c_of(n), "%s %s n=%lld: error %.3g eps*log2(n+1)", prec_str[pi],
                      kind_str[ki], (long long)n, e);
            pl = fc_plan_desc(ctx, &d);
            {
                void *y2 = malloc(bytes);
                cr_assert(y2);
                cr_assert_eq(nla_fft_execute(pl, x, y2), NLA_OK);
                cr_expect(memcmp(y1, y2, bytes) == 0, "%s %s: 2 threads differ from 1",
                          prec_str[pi], kind_str[ki]);
                free(y2);
            }
            nla_fft_plan_destroy(pl);
            free(x);
            free(y1);
        }
}

/* REDFT01(REDFT10(x)) = 2n x; with scale 1/(2n) on the second, x */
Test(dct, round_trip)
{
    static const int64_t sizes[] = { 1, 2, 3, 5, 8, 17, 60, 64, 97, 1023, 4096, 10007 };
    for (int pi = 0; pi < 2; pi++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
            int64_t n = sizes[i];
            ld *xin = malloc(sizeof(ld) * (size_t)n), *want = malloc(sizeof(ld) * (size_t)n);
            void *x = fc_rand_real(p, (size_t)n, 31 + i, xin);
            void *y = malloc((size_t)n * fc_rsz(p)), *z = malloc((size_t)n * fc_rsz(p));
            nla_fft_desc d2 = dct_desc(NLA_FFT_REDFT10, p, n), d3 = dct_desc(NLA_FFT_REDFT01, p, n);
            nla_fft_plan *p2, *p3, *p3s;
            double e;
            cr_assert(want && y && z);
            p2 = fc_plan_desc(ctx, &d2);
            p3 = fc_plan_desc(ctx, &d3);
            d3.scale = 1.0 / (2.0 * (double)n);
            p3s = fc_plan_desc(ctx, &d3);
            cr_assert_eq(nla_fft_execute(p2, x, y), NLA_OK);
            cr_assert_eq(nla_fft_execute(p3, y, z), NLA_OK);
            for (int64_t j = 0; j < n; j++)
                want[j] = 2 * (ld)n * xin[j];
            e = fc_rel_l2(z, p, want, (size_t)n) / unit(p, n);
            cr_expect(e <= 2 * c_of(n), "%s n=%lld: round trip error %.3g eps*log2(n+1)",
                      prec_str[pi], (long long)n, e);
            cr_assert_eq(nla_fft_execute(p3s, y, y), NLA_OK);
            e = fc_rel_l2(y, p, xin, (size_t)n) / unit(p, n);
            cr_expect(e <= 2 * c_of(n), "%s n=%lld: scaled round trip error %.3g",
                      prec_str[pi], (long long)n, e);
            nla_fft_plan_destroy(p2);
            nla_fft_plan_destroy(p3);
            nla_fft_plan_destroy(p3s);
            free(x);
            free(y);
            free(z);
            free(xin);
            free(want);
        }
}

/* scale multiplies every output: against the scaled reference */
Test(dct, scale)
{
    static const int64_t sizes[] = { 1, 6, 7, 128, 1000 };
    for (int pi = 0; pi < 2; pi++)
        for (int ki = 0; ki < 2; ki++)
            for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
                nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
                int64_t n = sizes[i];
                ld *xin = malloc(sizeof(ld) * (size_t)n), *ref = malloc(sizeof(ld) * (size_t)n);
                void *x = fc_rand_real(p, (size_t)n, 77 + i, xin), *y = malloc((size_t)n * fc_rsz(p));
                nla_fft_desc d = dct_desc(dct_kinds[ki], p, n);
                nla_fft_plan *pl;
                double e;
                cr_assert(ref && y);
                d.scale = -0.3;
                pl = fc_plan_desc(ctx, &d);
                cr_assert_eq(nla_fft_execute(pl, x, y), NLA_OK);
                ref_dct(dct_kinds[ki], n, xin, ref);
                for (int64_t j = 0; j < n; j++)
                    ref[j] *= (ld)-0.3;
                e = fc_rel_l2(y, p, ref, (size_t)n) / unit(p, n);
                cr_expect(e <= c_of(n), "%s %s n=%lld scale -0.3: error %.3g", prec_str[pi],
                          kind_str[ki], (long long)n, e);
                nla_fft_plan_destroy(pl);
                free(x);
                free(y);
                free(xin);
                free(ref);
            }
}

/* ------------------------------------------------------------- layouts */

#define SENTINEL 12345.0

/* howmany transforms in one layout, against the contiguous plan of one
   transform (the same bits); out of place the input must stay, and every
   output element no transform owns must keep its value. */
static void layout_case(nla_precision p, nla_fft_kind k, int64_t n, int64_t hm, int64_t is,
                        int64_t id, int64_t os, int64_t od, int inplace)
{
    const size_t rs = fc_rsz(p);
    size_t nin = (size_t)((hm - 1) * id + (n - 1) * is + 1);
    size_t nout = (size_t)((hm - 1) * od + (n - 1) * os + 1), nmax = nin > nout ? nin : nout;
    void *x = fc_rand_real(p, nmax, (uint64_t)(n * 13 + hm), NULL), *x0 = malloc(nmax * rs);
    void *y = inplace ? x : malloc(nout * rs), *y0 = malloc(nmax * rs);
    void *g = malloc((size_t)n * rs), *got = malloc((size_t)n * rs);
    char *owned = calloc(nmax, 1);
    nla_fft_desc d = dct_desc(k, p, n), d1 = dct_desc(k, p, n);
    nla_fft_plan *pl, *p1;

    cr_assert(x0 && y && y0 && g && got && owned);
    memcpy(x0, x, nmax * rs);
    if (!inplace)
        for (size_t i = 0; i < nout; i++) {
            if (p == NLA_DOUBLE)
                ((double *)y)[i] = SENTINEL;
            else
                ((float *)y)[i] = (float)SENTINEL;
        }
    memcpy(y0, y, (inplace ? nmax : nout) * rs);
    d.howmany = hm;
    d.istride = is;
    d.idist = id;
    d.ostride = os;
    d.odist = od;
    pl = fc_plan_desc(ctx, &d);
    p1 = fc_plan_desc(ctx, &d1);
    cr_assert_eq(nla_fft_execute(pl, x, y), NLA_OK, "%s", nla_last_error());
    if (!inplace)
        cr_assert(memcmp(x, x0, nin * rs) == 0, "out-of-place input modified");
    for (int64_t b = 0; b < hm; b++) {
        for (int64_t j = 0; j < n; j++) {
            memcpy((char *)g + (size_t)j * rs, (char *)x0 + (size_t)(b * id + j * is) * rs, rs);
            memcpy((char *)got + (size_t)j * rs, (char *)y + (size_t)(b * od + j * os) * rs,
                   rs);
            owned[b * od + j * os] = 1;
        }
        cr_assert_eq(nla_fft_execute(p1, g, g), NLA_OK);
        cr_expect(memcmp(g, got, (size_t)n * rs) == 0,
                  "%s %s n=%lld howmany %lld is %lld id %lld os %lld od %lld%s: "
                  "transform %lld differs from the single one", p ? "float" : "double",
                  k == NLA_FFT_REDFT10 ? "REDFT10" : "REDFT01", (long long)n, (long long)hm,
                  (long long)is, (long long)id, (long long)os, (long long)od,
                  inplace ? " in place" : "", (long long)b);
    }
    for (size_t i = 0; i < (inplace ? nmax : nout); i++)
        if (!owned[i])
            cr_assert(memcmp((char *)y + i * rs, (char *)y0 + i * rs, rs) == 0,
                      "n=%lld: element %zu outside the outputs written", (long long)n, i);
    nla_fft_plan_destroy(pl);
    nla_fft_plan_destroy(p1);
    if (!inplace)
        free(y);
    free(x);
    free(x0);
    free(y0);
    free(g);
    free(got);
    free(owned);
}

/* strided, interleaved and packed batches, out of place and in place,
   on 1 and 2 threads */
Test(dct, batches_and_in_place)
{
    static const int64_t sizes[] = { 1, 2, 5, 16, 33, 100 };
    for (int th = 1; th <= 2; th++) {
        cr_assert_eq(nla_context_set_threads(ctx, th), NLA_OK);
        for (int pi = 0; pi < 2; pi++)
            for (int ki = 0; ki < 2; ki++)
                for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
                    nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
                    nla_fft_kind k = dct_kinds[ki];
                    int64_t n = sizes[i];
                    layout_case(p, k, n, 3, 2, 2 * n + 3, 3, 3 * n + 1, 0);
                    layout_case(p, k, n, 4, 4, 1, 4, 1, 0);
                    layout_case(p, k, n, 5, 1, n, 1, n, 0);
                    layout_case(p, k, n, 1, 1, n, 1, n, 1);
                    layout_case(p, k, n, 1, 3, 3 * n, 3, 3 * n, 1);
                    layout_case(p, k, n, 3, 1, n + 2, 1, n + 2, 1);
                    layout_case(p, k, n, 4, 4, 1, 4, 1, 1);
                }
    }
}

/* ------------------------------------------------------------ bad input */

#define EXPECT_MSG(s, want, needle)                                            \
    do {                                                                       \
        cr_expect_eq((s), (want));                                             \
        cr_expect(strstr(nla_last_error(), (needle)) != NULL,                  \
                  "message '%s' lacks '%s'", nla_last_error(), (needle));      \
    } while (0)

Test(dct, typed_execute)
{
    nla_fft_desc d = dct_desc(NLA_FFT_REDFT10, NLA_DOUBLE, 8);
    nla_fft_plan *p2 = fc_plan_desc(ctx, &d), *p3, *pf, *pc;
    double x[16], y[16], y0[16];
    float xf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, yf[8];

    for (int i = 0; i < 16; i++)
        x[i] = i, y[i] = y0[i] = -1;
    d.kind = NLA_FFT_REDFT01;
    p3 = fc_plan_desc(ctx, &d);
    d.precision = NLA_FLOAT;
    pf = fc_plan_desc(ctx, &d);
    d = dct_desc(NLA_FFT_C2C, NLA_DOUBLE, 8);
    pc = fc_plan_desc(ctx, &d);
    EXPECT_MSG(nla_fft_execute_r2r_s(p2, (float *)x, (float *)y), NLA_EINVAL,
               "nla_fft_execute_r2r_s: plan is a double REDFT10 plan, not float REDFT10 or "
               "REDFT01");
    EXPECT_MSG(nla_fft_execute_r2r_d(pf, x, y), NLA_EINVAL,
               "plan is a float REDFT01 plan, not double REDFT10 or REDFT01");
    EXPECT_MSG(nla_fft_execute_r2r_d(pc, x, y), NLA_EINVAL,
               "nla_fft_execute_r2r_d: plan is a double C2C plan, not double REDFT10");
    EXPECT_MSG(nla_fft_execute_c2c_d(p2, x, y), NLA_EINVAL, "not double C2C");
    EXPECT_MSG(nla_fft_execute_r2c_d(p3, x, y), NLA_EINVAL,
               "plan is a double REDFT01 plan, not double R2C");
    EXPECT_MSG(nla_fft_execute_c2r_d(p2, x, y), NLA_EINVAL, "not double C2R");
    EXPECT_MSG(nla_fft_execute_r2r_d(p2, NULL, y), NLA_EINVAL, "nla_fft_execute_r2r_d: in is NULL");
    EXPECT_MSG(nla_fft_execute_r2r_d(p2, x, NULL), NLA_EINVAL, "out is NULL");
    EXPECT_MSG(nla_fft_execute_r2r_d(NULL, x, y), NLA_EINVAL, "plan is NULL");
    cr_expect(memcmp(y, y0, sizeof y) == 0, "output written on failure");
    cr_expect_eq(nla_fft_execute_r2r_d(p2, x, y), NLA_OK, "%s", nla_last_error());
    cr_expect_eq(nla_fft_execute_r2r_d(p3, y, y), NLA_OK, "%s", nla_last_error());
    for (int i = 0; i < 8; i++)
        cr_expect(fabs(y[i] - 16 * x[i]) <= 1e-12 * 16 * 8, "y[%d] = %g, not 16*%g", i, y[i], x[i]);
    cr_expect_eq(nla_fft_execute_r2r_s(pf, xf, yf), NLA_OK, "%s", nla_last_error());
    cr_expect_eq(nla_fft_execute(pf, xf, xf), NLA_OK, "%s", nla_last_error());
    cr_expect(memcmp(xf, yf, sizeof xf) == 0, "in place differs from out of place");
    nla_fft_plan_destroy(p2);
    nla_fft_plan_destroy(p3);
    nla_fft_plan_destroy(pf);
    nla_fft_plan_destroy(pc);
}

Test(dct, bad_plan_arguments)
{
    nla_fft_desc d = dct_desc(NLA_FFT_REDFT01, NLA_DOUBLE, 16), b;
    nla_fft_plan *sentinel = (nla_fft_plan *)&d, *p = sentinel;

    b = d; b.kind = (nla_fft_kind)5;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL,
               "nla_fft_plan_create: desc->kind has unknown value 5");
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "NLA_FFT_REDFT01)");
    cr_expect_null(p, "plan not NULL after a failed create (nla(3))");
    b = d; b.n = 0;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->n (0) < 1");
    b = d; b.direction = (nla_fft_direction)0;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->direction");
    b = d; b.precision = (nla_precision)2;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->precision");
    b = d; b.istride = -1;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->istride (-1) < 0");
    b = d; b.odist = -2;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->odist (-2) < 0");
    b = d; b.scale = INFINITY;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->scale");
    /* the outputs of a batch: n reals each, odist 15 < 16 overlaps */
    b = d; b.howmany = 2; b.odist = 15;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "overlap");
    b.odist = 16;
    cr_expect_eq(nla_fft_plan_create(ctx, &b, &p), NLA_OK, "%s", nla_last_error());
    nla_fft_plan_destroy(p);
    p = sentinel;
    /* n reals of 8 bytes: 2^60 fit in ptrdiff_t, 2^61 do not */
    b = d; b.n = (int64_t)1 << 61;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "input extent");
    b = d; b.howmany = (int64_t)1 << 40; b.istride = 1; b.idist = (int64_t)1 << 30;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "input extent");
    b = d; b.howmany = (int64_t)1 << 40; b.odist = (int64_t)1 << 30;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "output extent");
    cr_expect_null(p, "plan not NULL after a failed create (nla(3))");
}

/* in == out only where each output sits on its own input */
Test(dct, bad_in_place)
{
    nla_fft_desc d = dct_desc(NLA_FFT_REDFT10, NLA_DOUBLE, 4);
    nla_fft_plan *p;
    double y[32], y0[32];
    for (int i = 0; i < 32; i++)
        y[i] = y0[i] = i;
    d.howmany = 2;
    d.ostride = 2;
    p = fc_plan_desc(ctx, &d);
    EXPECT_MSG(nla_fft_execute(p, y, y), NLA_EINVAL, "in == out");
    EXPECT_MSG(nla_fft_execute(p, y, y), NLA_EINVAL, "REDFT10");
    cr_expect(memcmp(y, y0, sizeof y) == 0, "array written on failure");
    nla_fft_plan_destroy(p);
    d.ostride = 1;
    d.odist = 5;
    p = fc_plan_desc(ctx, &d);
    EXPECT_MSG(nla_fft_execute_r2r_d(p, y, y), NLA_EINVAL, "in == out");
    cr_expect(memcmp(y, y0, sizeof y) == 0, "array written on failure");
    nla_fft_plan_destroy(p);
}

/* nla_fft_plan_create_nd has no DCT (of any rank): NLA_EINVAL naming
   desc->kind, plan NULL */
Test(dct, nd_plans_reject_dct)
{
    for (int ki = 0; ki < 2; ki++)
        for (int rank = 1; rank <= 3; rank++) {
            nla_fft_desc_nd d;
            nla_fft_plan *p = (nla_fft_plan *)&d;
            memset(&d, 0, sizeof d);
            d.kind = dct_kinds[ki];
            d.precision = NLA_DOUBLE;
            d.direction = NLA_FFT_FORWARD;
            d.rank = rank;
            d.n[0] = d.n[1] = d.n[2] = 8;
            cr_expect_eq(nla_fft_plan_create_nd(ctx, &d, &p), NLA_EINVAL);
            cr_expect_null(p, "rank %d: plan not NULL", rank);
            cr_expect(strstr(nla_context_error(ctx), "nla_fft_plan_create_nd: desc->kind") &&
                      strstr(nla_context_error(ctx), kind_str[ki]),
                      "rank %d: \"%s\" does not name desc->kind", rank, nla_context_error(ctx));
        }
}

/* ---------------------------------------------- CUDA backends: no DCT */

/* An AUTO context on a CUDA backend runs a DCT on the CPU (the same bits
   as a CPU context) and refuses device memory; a CUDA context has none. */
static void fallback_checks(const char *who)
{
    nla_context *au = NULL, *cu = NULL, *cpu = ref_cpu_context();
    nla_fft_desc d = dct_desc(NLA_FFT_REDFT10, NLA_DOUBLE, 1000);
    nla_fft_plan *pa = NULL, *pc, *pcu = (nla_fft_plan *)&d;
    enum { N = 1000 * 64 };
    double *x = malloc(sizeof(double) * N), *ya = malloc(sizeof(double) * N),
           *yc = malloc(sizeof(double) * N);
    void *dev = NULL;

    cr_assert(x && ya && yc);
    ref_fill(x, N, 5);
    d.howmany = 64;     /* large enough to offload, were there a device DCT */
    cr_assert_eq(nla_context_create(&au, NLA_BACKEND_AUTO), NLA_OK, "%s", nla_last_error());
    cr_assert_eq(nla_context_backend(au), NLA_BACKEND_CUDA, "%s: AUTO did not pick CUDA", who);
    cr_assert_eq(nla_fft_plan_create(au, &d, &pa), NLA_OK, "%s: %s", who,
                 nla_context_error(au));
    cr_expect_eq(nla_context_last_backend(au), NLA_BACKEND_CPU, "%s", who);
    pc = fc_plan_desc(cpu, &d);
    cr_assert_eq(nla_fft_execute(pa, x, ya), NLA_OK, "%s: %s", who, nla_last_error());
    cr_assert_eq(nla_fft_execute(pc, x, yc), NLA_OK);
    cr_expect(memcmp(ya, yc, sizeof(double) * N) == 0, "%s: AUTO differs from the CPU", who);
    cr_assert_eq(nla_malloc(au, &dev, sizeof(double) * N), NLA_OK, "%s", nla_context_error(au));
    EXPECT_MSG(nla_fft_execute(pa, dev, dev), NLA_ENOTSUP, "runs on the cpu only");
    nla_free(au, dev);
    cr_assert_eq(nla_context_create(&cu, NLA_BACKEND_CUDA), NLA_OK, "%s", nla_last_error());
    cr_expect_eq(nla_fft_plan_create(cu, &d, &pcu), NLA_ENOTSUP, "%s", who);
    cr_expect(strstr(nla_context_error(cu), "nla_fft_plan_create") &&
              strstr(nla_context_error(cu), "REDFT"), "%s: \"%s\"", who, nla_context_error(cu));
    cr_expect_null(pcu, "%s: plan not NULL", who);
    nla_fft_plan_destroy(pa);
    nla_fft_plan_destroy(pc);
    nla_context_destroy(au);
    nla_context_destroy(cu);
    nla_context_destroy(cpu);
    free(x);
    free(ya);
    free(yc);
}

/* the mock plugin (tests/mock_plugin.c) whose FFTs fail on the "device":
   a DCT must never reach it */
static void with_mock_fftfail(void)
{
    const char *m = getenv("NLA_MOCK_PLUGIN");
    cr_assert(m && *m, "NLA_MOCK_PLUGIN is not set (run through make check)");
    unsetenv("NLA_BACKEND");
    unsetenv("NLA_MOCK_NODEVICE");
    setenv("NLA_PLUGIN_PATH", m, 1);
    setenv("NLA_MOCK_FFT_FAIL", "1", 1);
}

Test(dct_plugin, mock_cuda_falls_back_to_cpu, .init = with_mock_fftfail)
{
    fallback_checks("mock plugin");
}

/* the real plugin (make check's NLA_CUDA_PLUGIN) on a device or on its
   emulation (tests/check-cuda-emu-plugin.sh) */
static int cuda_plugin_built(void)
{
    const char *w = getenv("NLA_WITH_CUDA"), *pl = getenv("NLA_CUDA_PLUGIN");
    struct stat st;
    return w && strcmp(w, "yes") == 0 && pl && stat(pl, &st) == 0;
}

static void with_cuda_plugin(void)
{
    unsetenv("NLA_BACKEND");
    setenv("NLA_PLUGIN_PATH",
           cuda_plugin_built() ? getenv("NLA_CUDA_PLUGIN") : "/nonexistent/libnla-cuda.so", 1);
}

Test(cuda, dct_falls_back_to_cpu, .init = with_cuda_plugin)
{
    if (!cuda_plugin_built())
        cr_skip_test("skipped: no CUDA device (the CUDA plugin was not built)");
    if (!nla_backend_available(NLA_BACKEND_CUDA))
        cr_skip_test("skipped: no CUDA device (%s)",
                     nla_backend_unavailable_reason(NLA_BACKEND_CUDA));
    fallback_checks("cuda plugin");
}
