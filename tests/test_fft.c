/*
 * test_fft.c - the FFT against FFTW's long-double plans (fftw3l), closed
 * forms (impulse, shift) and itself (round trip, linearity, batches, real
 * against complex, threads), plus the argument checks.
 *
 * Input: uniform in [-0.5, 0.5).  Error: relative L2, ||y - ref|| / ||ref||,
 * computed in long double.  Bounds: 2*eps*log2(n) for powers of two and the
 * primes 17, 1009, 4093; 10*eps*log2(n) for other Bluestein sizes.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <fftw3.h>
#include "fft_check.h"
#include "refs.h"

static nla_context *ctx;
static void setup(void) { ctx = ref_cpu_context(); }
static void teardown(void) { nla_context_destroy(ctx); }
TestSuite(fft, .init = setup, .fini = teardown);

Test(fft, c2c_powers_of_two)
{
    for (int pi = 0; pi < 2; pi++) {
        nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
        for (int k = 0; k <= 20; k++) {
            int64_t n = (int64_t)1 << k;
            if (k > 16 && k != 18 && k != 20)
                continue;
            for (int dir = -1; dir <= 1; dir += 2) {
                if (k == 20 && dir == 1)
                    continue;
                double e = fc_c2c_err(ctx, p, dir, n, k % 2);
                cr_expect(e <= 2.0, "%s n=2^%d dir %d: error %.3g eps*log2(n) > 2",
                          pi ? "float" : "double", k, dir, e);
            }
        }
    }
}

Test(fft, c2c_primes)
{
    static const int64_t primes[] = { 17, 1009, 4093 };
    for (int pi = 0; pi < 2; pi++)
        for (int i = 0; i < 3; i++)
            for (int dir = -1; dir <= 1; dir += 2) {
                nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
                double e = fc_c2c_err(ctx, p, dir, primes[i], i == 1);
                cr_expect(e <= 2.0, "%s n=%lld dir %d: error %.3g eps*log2(n) > 2",
                          pi ? "float" : "double", (long long)primes[i], dir, e);
            }
}

Test(fft, c2c_bluestein_sizes)
{
    static const int64_t sizes[] = { 3, 5, 6, 7, 9, 12, 15, 100, 255, 257, 1000, 1536,
                                     4097, 100000 };
    for (int pi = 0; pi < 2; pi++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
            double e = fc_c2c_err(ctx, p, i % 2 ? 1 : -1, sizes[i], i % 3 == 0);
            cr_expect(e <= 10.0, "%s n=%lld: error %.3g eps*log2(n) > 10",
                      pi ? "float" : "double", (long long)sizes[i], e);
        }
}

/* every n up to 4096 in double (1024 in float), each direction, in and out
   of place: 2*eps*log2(n) for smooth n, 10*eps*log2(n) through Bluestein */
Test(fft, c2c_every_n)
{
    for (int pi = 0; pi < 2; pi++) {
        nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
        int64_t nmax = pi ? REF_SIZE(1024, 96) : REF_SIZE(4096, 160);
        int bad = 0;
        for (int64_t n = 1; n <= nmax; n++) {
            double e = fc_c2c_err(ctx, p, n % 2 ? 1 : -1, n, n % 3 == 0);
            double bound = fc_smooth(n) ? 2.0 : 10.0;
            if (e > bound && bad++ < 10)
                cr_expect(e <= bound, "%s n=%lld: error %.3g eps*log2(n) > %g",
                          pi ? "float" : "double", (long long)n, e, bound);
        }
        cr_expect(bad == 0, "%s: %d sizes over the bound", pi ? "float" : "double", bad);
    }
}

/* mixed sizes past a Stockham limit of 1 MiB (forced: the derived
   configuration of a 4 MiB L3): the four-step method with factors of any
   radix (n1 = 400, 288, 625; n2 = 250, 729, 625) */
static void small_l3(void)
{
    setenv("NLA_CPU_TUNE", "derived", 1);
    setenv("NLA_TUNE_CACHES", "16K,256K,4M", 1);
    setup();
}

Test(fft_small_l3, c2c_four_step_mixed, .init = small_l3, .fini = teardown)
{
    static const int64_t sizes[] = { 100000, 209952, 390625 };
    cr_assert_eq(nla_cpu_config_value("fft_stockham_max_bytes"), 1 << 20);
    if (ref_test_small())
        cr_skip_test("n up to 4*10^5 against long double: not with NLA_TEST_SMALL");
    for (int pi = 0; pi < 2; pi++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
            double e = fc_c2c_err(ctx, p, i % 2 ? 1 : -1, sizes[i], i == 1);
            cr_expect(e <= 2.0, "%s n=%lld: error %.3g eps*log2(n) > 2",
                      pi ? "float" : "double", (long long)sizes[i], e);
        }
}

/* Radix-25 passes, which the rules take only when data and scratch pass
   the L2 (forced here by a 16 KiB one): every multiple of 25 up to 4096,
   both precisions and directions, then 5^6 and 10^5, and the real
   transforms with a radix-25 edge pass (n/2 = 5^6: first and last; n/2
   = 10^4: last), each form of the real step. */
static void small_l2(void)
{
    setenv("NLA_CPU_TUNE", "derived", 1);
    setenv("NLA_TUNE_CACHES", "32K,16K,1G", 1);
    setup();
}

Test(fft_small_l2, radix_25, .init = small_l2, .fini = teardown)
{
    static const int64_t big[] = { 15625, 100000 }, real[] = { 31250, 20000 };
    cr_assert_eq(nla_cpu_config_value("l2"), 16384);
    for (int pi = 0; pi < 2; pi++) {
        nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
        for (int64_t n = 25; n <= REF_SIZE(4096, 200); n += 25) {
            double e = fc_c2c_err(ctx, p, n % 2 ? 1 : -1, n, n % 3 == 0);
            cr_expect(e <= 2.0, "%s n=%lld: error %.3g eps*log2(n) > 2",
                      pi ? "float" : "double", (long long)n, e);
        }
        for (size_t i = 0; i < 2 && !ref_test_small(); i++) {
            double e = fc_c2c_err(ctx, p, -1, big[i], 0);
            cr_expect(e <= 2.0, "%s n=%lld: error %.3g eps*log2(n) > 2",
                      pi ? "float" : "double", (long long)big[i], e);
            fc_real_check(ctx, p, real[i], 2.0);
        }
    }
}

/* The two forms of the real step (real_tmpl.h), each forced by the
   derived configuration's L1d (fft_real_fuse_bytes = 2*L1d): a 1 KiB L1d
   puts it inside a pass (R2C's last, C2R's first) for every even n whose
   half-length core has two passes or more, a 1 GiB one never.  R2C and
   C2R, out of place and in place (fc_real_check): the fused form for
   every n up to 4096 in double and 1024 in float (fft/real_every_n covers
   the separate one there), then both forms on larger sizes of each radix
   mix (the edge pass a radix 8, 4, 5 or 3, with s even and odd, or the
   generic 17 and 127, the largest, in the fewest columns a block) */
static void real_forced(const char *caches, int64_t fuse_bytes, int every)
{
    static const int64_t big[] = { 1 << 14, 1 << 15, 1 << 17, 6144, 20000, 2 * 3 * 3 * 3 * 3 * 5 * 7,
                                   100000, 2 * 17 * 512, 2 * 127 * 64 };
    setenv("NLA_CPU_TUNE", "derived", 1);
    setenv("NLA_TUNE_CACHES", caches, 1);
    setup();
    cr_assert_eq(nla_cpu_config_value("fft_real_fuse_bytes"), fuse_bytes);
    for (int pi = 0; pi < 2; pi++) {
        int64_t nmax = !every ? 0 : pi ? REF_SIZE(1024, 64) : REF_SIZE(4096, 300);
        for (int64_t n = 1; n <= nmax; n++)
            fc_real_check(ctx, pi ? NLA_FLOAT : NLA_DOUBLE, n, fc_smooth(n) ? 2.0 : 10.0);
        /* NLA_TEST_SMALL: the first only */
        for (size_t i = 0; i < (ref_test_small() ? 1 : sizeof big / sizeof *big); i++)
            fc_real_check(ctx, pi ? NLA_FLOAT : NLA_DOUBLE, big[i], 2.0);
    }
    teardown();
}

Test(fft_real_forms, fused) { real_forced("1K,2M,512M", 2048, 1); }
Test(fft_real_forms, separate) { real_forced("1G,2G,4G", (int64_t)2 << 30, 0); }

/* The DIT core's real transforms (a 16 KiB L2, a 1 KiB L1d): half-lengths
   1024 to 4096 take d8 to d32 in double and d8, d16 in float; R2C runs its
   real step inside the core's columns, C2R its pairs in blocks (with the
   same small tables) before the core.  Half-lengths with no R of whole
   lines: 1125 takes d9 and 3000 d25 in double, whose columns run passes,
   so the pairs run alone (r = 25 and 50); 3000 float takes d8, with rows
   of 375 (s odd) */
Test(fft_real_forms, dit)
{
    static const int64_t sizes[] = { 2048, 4096, 6144, 8192, 2250, 6000 };
    setenv("NLA_CPU_TUNE", "derived", 1);
    setenv("NLA_TUNE_CACHES", "1K,16K,1G", 1);
    setup();
    cr_assert_eq(nla_cpu_config_value("l2"), 16384);
    for (int pi = 0; pi < 2; pi++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            fc_real_check(ctx, pi ? NLA_FLOAT : NLA_DOUBLE, sizes[i], 2.0);
    teardown();
}

/* forward then backward with scale 1/n gives x back; unscaled gives n*x */
Test(fft, round_trip)
{
    static const int64_t sizes[] = { 1, 2, 8, 60, 64, 1023, 4096, 1 << 17 };
    for (int pi = 0; pi < 2; pi++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
            int64_t n = sizes[i];
            ld *xin = malloc(sizeof(ld) * 2 * (size_t)n);
            void *x = fc_rand_real(p, 2 * (size_t)n, 99 + (uint64_t)i, xin);
            void *y = malloc(2 * (size_t)n * fc_rsz(p));
            nla_fft_desc df = fc_desc_of(NLA_FFT_C2C, p, NLA_FFT_FORWARD, n);
            nla_fft_desc db = fc_desc_of(NLA_FFT_C2C, p, NLA_FFT_BACKWARD, n);
            nla_fft_plan *pf = fc_plan_desc(ctx, &df), *pb = fc_plan_desc(ctx, &db);
            double e;
            cr_assert_eq(nla_fft_execute(pf, x, y), NLA_OK);
            cr_assert_eq(nla_fft_execute(pb, y, y), NLA_OK);
            for (int64_t j = 0; j < 2 * n; j++)
                xin[j] *= (ld)n;
            e = fc_rel_l2(y, p, xin, 2 * (size_t)n) / (fc_eps_of(p) * fc_lg2(n));
            cr_expect(e <= 4.0, "%s n=%lld: round trip error %.3g eps*log2(n)",
                      pi ? "float" : "double", (long long)n, e);
            nla_fft_plan_destroy(pf);
            nla_fft_plan_destroy(pb);
            free(x);
            free(y);
            free(xin);
        }
}

/* F(a x + b y) = a F(x) + b F(y) */
Test(fft, linearity)
{
    static const int64_t sizes[] = { 16, 1024, 1000, 4093 };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        int64_t n = sizes[i];
        double *x = fc_rand_real(NLA_DOUBLE, 2 * (size_t)n, 5, NULL);
        double *y = fc_rand_real(NLA_DOUBLE, 2 * (size_t)n, 6, NULL);
        double *z = malloc(16 * (size_t)n), *fx = malloc(16 * (size_t)n);
        double *fy = malloc(16 * (size_t)n), *fz = malloc(16 * (size_t)n);
        ld num = 0, den = 0;
        nla_fft_plan *p;
        cr_assert_eq(nla_fft_plan_1d(ctx, n, NLA_FFT_FORWARD, NLA_DOUBLE, &p), NLA_OK);
        for (int64_t j = 0; j < 2 * n; j++)
            z[j] = 0.75 * x[j] - 2.5 * y[j];
        nla_fft_execute(p, x, fx);
        nla_fft_execute(p, y, fy);
        nla_fft_execute(p, z, fz);
        for (int64_t j = 0; j < 2 * n; j++) {
            ld e = (ld)fz[j] - (0.75L * fx[j] - 2.5L * fy[j]);
            num += e * e;
            den += (ld)fz[j] * fz[j];
        }
        cr_expect((double)sqrtl(num / den) <= 10 * DBL_EPSILON * fc_lg2(n),
                  "n=%lld: linearity error %.3g", (long long)n, (double)sqrtl(num / den));
        nla_fft_plan_destroy(p);
        free(x); free(y); free(z); free(fx); free(fy); free(fz);
    }
}

/* the transform of the impulse at j0 is exp(sign 2 pi i j0 k / n) */
Test(fft, impulse)
{
    static const int64_t sizes[] = { 1, 8, 256, 12, 1009 };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (int dir = -1; dir <= 1; dir += 2) {
            int64_t n = sizes[i], j0 = n / 3;
            double *x = calloc(2 * (size_t)n, sizeof *x), *y = malloc(16 * (size_t)n);
            ld *ref = malloc(sizeof(ld) * 2 * (size_t)n);
            nla_fft_plan *p;
            x[2 * j0] = 1;
            cr_assert_eq(nla_fft_plan_1d(ctx, n, dir, NLA_DOUBLE, &p), NLA_OK);
            nla_fft_execute(p, x, y);
            for (int64_t k = 0; k < n; k++) {
                ld a = 2 * 3.14159265358979323846264338327950288L * (ld)((j0 * k) % n) / (ld)n;
                ref[2 * k] = cosl(a);
                ref[2 * k + 1] = dir * sinl(a);
            }
            cr_expect(fc_rel_l2(y, NLA_DOUBLE, ref, 2 * (size_t)n) <= 4 * DBL_EPSILON * fc_lg2(n),
                      "n=%lld dir %d: impulse", (long long)n, dir);
            nla_fft_plan_destroy(p);
            free(x); free(y); free(ref);
        }
}

/* a circular shift by s multiplies X[k] by exp(-2 pi i s k / n) */
Test(fft, shift)
{
    static const int64_t sizes[] = { 64, 4096, 100 };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        int64_t n = sizes[i], s = n / 4 + 1;
        double *x = fc_rand_real(NLA_DOUBLE, 2 * (size_t)n, 11, NULL);
        double *xs = malloc(16 * (size_t)n), *fx = malloc(16 * (size_t)n), *fs = malloc(16 * (size_t)n);
        ld num = 0, den = 0;
        nla_fft_plan *p;
        for (int64_t j = 0; j < n; j++) {
            xs[2 * ((j + s) % n)] = x[2 * j];
            xs[2 * ((j + s) % n) + 1] = x[2 * j + 1];
        }
        cr_assert_eq(nla_fft_plan_1d(ctx, n, NLA_FFT_FORWARD, NLA_DOUBLE, &p), NLA_OK);
        nla_fft_execute(p, x, fx);
        nla_fft_execute(p, xs, fs);
        for (int64_t k = 0; k < n; k++) {
            ld a = -2 * 3.14159265358979323846264338327950288L * (ld)((s * k) % n) / (ld)n;
            ld c = cosl(a), sn = sinl(a);
            ld er = fx[2 * k] * c - fx[2 * k + 1] * sn - fs[2 * k];
            ld ei = fx[2 * k] * sn + fx[2 * k + 1] * c - fs[2 * k + 1];
            num += er * er + ei * ei;
            den += (ld)fs[2 * k] * fs[2 * k] + (ld)fs[2 * k + 1] * fs[2 * k + 1];
        }
        cr_expect((double)sqrtl(num / den) <= 8 * DBL_EPSILON * fc_lg2(n), "n=%lld: shift",
                  (long long)n);
        nla_fft_plan_destroy(p);
        free(x); free(xs); free(fx); free(fs);
    }
}


Test(fft, real_transforms)
{
    static const int64_t sizes[] = { 1, 2, 3, 4, 5, 8, 15, 16, 17, 100, 1000, 1024, 4093,
                                     1 << 16, 1 << 18 };
    for (int pi = 0; pi < 2; pi++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            fc_real_check(ctx, pi ? NLA_FLOAT : NLA_DOUBLE, sizes[i], sizes[i] == 4093 ? 2.0 : 10.0);
}

/* every n up to 4096 in double (1024 in float): 2*eps*log2(n) for smooth
   n, 10*eps*log2(n) through Bluestein */
Test(fft, real_every_n)
{
    for (int pi = 0; pi < 2; pi++) {
        int64_t nmax = pi ? REF_SIZE(1024, 64) : REF_SIZE(4096, 128);
        for (int64_t n = 1; n <= nmax; n++)
            fc_real_check(ctx, pi ? NLA_FLOAT : NLA_DOUBLE, n, fc_smooth(n) ? 2.0 : 10.0);
    }
}

/* C2R ignores the imaginary parts of X[0] and X[n/2] */
Test(fft, c2r_ignores_imaginary_dc)
{
    int64_t n = 16;
    double X[18], Y[18], a[16], b[16];
    nla_fft_desc d = fc_desc_of(NLA_FFT_C2R, NLA_DOUBLE, NLA_FFT_BACKWARD, n);
    nla_fft_plan *p = fc_plan_desc(ctx, &d);
    ref_fill(X, 18, 3);
    memcpy(Y, X, sizeof X);
    Y[1] = 123;
    Y[17] = -7;
    nla_fft_execute(p, X, a);
    nla_fft_execute(p, Y, b);
    X[1] = X[17] = 0;
    nla_fft_execute(p, X, Y);
    cr_expect(memcmp(a, b, sizeof a) == 0 && memcmp(a, Y, sizeof a) == 0);
    nla_fft_plan_destroy(p);
}

/* A batch with strides and dists against single transforms of gathered
   data, for each kind, double and float. */
static void batch_case(nla_fft_kind kind, nla_precision p, int64_t n, int64_t hm,
                       int64_t is, int64_t id, int64_t os, int64_t od, double scale,
                       int threads)
{
    const int64_t lin = kind == NLA_FFT_C2R ? n / 2 + 1 : n;
    const int64_t lout = kind == NLA_FFT_R2C ? n / 2 + 1 : n;
    const int ci = kind == NLA_FFT_R2C ? 1 : 2, co = kind == NLA_FFT_C2R ? 1 : 2;
    const size_t es = fc_rsz(p);
    const int64_t is1 = is ? is : 1, os1 = os ? os : 1;
    const int64_t id1 = id ? id : lin * is1, od1 = od ? od : lout * os1;
    const int64_t inext = (hm - 1) * id1 + (lin - 1) * is1 + 1;
    const int64_t onext = (hm - 1) * od1 + (lout - 1) * os1 + 1;
    nla_fft_desc d = fc_desc_of(kind, p, kind == NLA_FFT_C2R ? 1 : -1, n), d1;
    nla_fft_plan *pb, *p1;
    char *in = fc_rand_real(p, (size_t)(inext * ci), (uint64_t)(n + hm), NULL);
    char *out = malloc((size_t)(onext * co) * es);
    char *g = malloc((size_t)(lin * ci) * es), *r = malloc((size_t)(lout * co) * es);
    ld *ref = malloc(sizeof(ld) * (size_t)(lout * co));

    d.howmany = hm;
    d.istride = is;
    d.idist = id;
    d.ostride = os;
    d.odist = od;
    d.scale = scale;
    d1 = fc_desc_of(kind, p, d.direction, n);
    d1.scale = scale;
    nla_context_set_threads(ctx, threads);
    pb = fc_plan_desc(ctx, &d);
    p1 = fc_plan_desc(ctx, &d1);
    nla_context_set_threads(ctx, 1);
    cr_assert_eq(nla_fft_execute(pb, in, out), NLA_OK, "%s", nla_last_error());
    for (int64_t b = 0; b < hm; b++) {
        for (int64_t j = 0; j < lin; j++)
            memcpy(g + (size_t)(j * ci) * es, in + (size_t)((b * id1 + j * is1) * ci) * es,
                   (size_t)ci * es);
        cr_assert_eq(nla_fft_execute(p1, g, r), NLA_OK);
        for (int64_t j = 0; j < lout * co; j++)
            ref[j] = fc_get(r, p, (size_t)j);
        for (int64_t j = 0; j < lout; j++)
            for (int c = 0; c < co; c++) {
                ld v = fc_get(out, p, (size_t)((b * od1 + j * os1) * co + c));
                cr_assert(fabsl(v - ref[j * co + c]) <= 4 * fc_eps_of(p) * fc_lg2(n) *
                                                             (1 + fabsl(ref[j * co + c])),
                          "kind %d n=%lld hm=%lld transform %lld element %lld: %Lg vs %Lg", (int)kind,
                          (long long)n, (long long)hm, (long long)b, (long long)j, v, ref[j * co + c]);
            }
    }
    nla_fft_plan_destroy(pb);
    nla_fft_plan_destroy(p1);
    free(in); free(out); free(g); free(r); free(ref);
}

Test(fft, batches)
{
    for (int pi = 0; pi < 2; pi++) {
        nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
        for (int kind = 0; kind < 3; kind++) {
            int64_t hl = kind == NLA_FFT_R2C ? 33 : 64;
            /* packed, contiguous */
            batch_case(kind, p, 64, 5, 0, 0, 0, 0, 0, 1);
            /* interleaved: element j of transform b at b + j*howmany */
            batch_case(kind, p, 64, 7, 7, 1, 7, 1, 0, 1);
            /* rows of a column-major 9 x 60 matrix with lda 11, out packed */
            batch_case(kind, p, 60, 9, 11, 1, 0, 0, 0.5, 1);
            /* gaps between transforms, strided output */
            batch_case(kind, p, 64, 3, 2, 200, 3, 3 * hl + 5, 0, 1);
            /* many small transforms over two threads */
            batch_case(kind, p, 16, 50, 0, 0, 0, 0, 0, 2);
            batch_case(kind, p, 1000, 4, 1, 1001, 1, 1003, 0, 2);
        }
    }
}

/* Batches on DIT cores over two threads, each thread on whole transforms
   (a 16 KiB L2 and a 1 KiB L1d: R2C 16384 double and 32768 float take d32,
   rows decimated in turn, with the real step inside the columns), against
   single transforms */
Test(fft_small_l2, dit_batches, .fini = teardown, .timeout = 600)
{
    setenv("NLA_CPU_TUNE", "derived", 1);
    setenv("NLA_TUNE_CACHES", "1K,16K,1G", 1);
    setup();
    cr_assert_eq(nla_cpu_config_value("l2"), 16384);
    for (int pi = 0; pi < 2; pi++)
        for (int kind = 0; kind < 3; kind++)
            batch_case(kind, pi ? NLA_FLOAT : NLA_DOUBLE, pi ? 32768 : 16384, 3, 0, 0, 0, 0,
                       0, 2);
}

/* in place with howmany > 1: C2C with equal layouts, R2C/C2R padded rows */
Test(fft, batches_in_place)
{
    int64_t n = 32, hm = 4, h = n / 2 + 1;
    double *a = fc_rand_real(NLA_DOUBLE, (size_t)(2 * n * hm), 8, NULL);
    double *b = malloc(sizeof(double) * (size_t)(2 * n * hm));
    nla_fft_desc d = fc_desc_of(NLA_FFT_R2C, NLA_DOUBLE, -1, n), c;
    nla_fft_plan *pi, *po;
    d.howmany = hm;
    d.idist = 2 * h;
    d.odist = h;
    c = d;
    pi = fc_plan_desc(ctx, &d);
    po = fc_plan_desc(ctx, &c);
    cr_assert_eq(nla_fft_execute(po, a, b), NLA_OK);
    cr_assert_eq(nla_fft_execute(pi, a, a), NLA_OK, "%s", nla_last_error());
    cr_expect(memcmp(a, b, sizeof(double) * (size_t)(2 * h * hm)) == 0);
    nla_fft_plan_destroy(pi);
    nla_fft_plan_destroy(po);
    /* C2C in place, batched */
    d = fc_desc_of(NLA_FFT_C2C, NLA_DOUBLE, -1, n);
    d.howmany = hm;
    pi = fc_plan_desc(ctx, &d);
    ref_fill(a, (size_t)(2 * n * hm), 4);
    cr_assert_eq(nla_fft_execute(pi, a, b), NLA_OK);
    cr_assert_eq(nla_fft_execute(pi, a, a), NLA_OK);
    cr_expect(memcmp(a, b, sizeof(double) * (size_t)(2 * n * hm)) == 0);
    nla_fft_plan_destroy(pi);
    free(a);
    free(b);
}

/* one plan, four threads, each on its own arrays: bitwise the results of
   one thread */
struct thr_arg {
    const nla_fft_plan *p;
    const double *x;
    double *y;
    int64_t len;
    int reps;
    nla_status st;
};

static void *thr_main(void *v)
{
    struct thr_arg *a = v;
    a->st = NLA_OK;
    for (int r = 0; r < a->reps && a->st == NLA_OK; r++)
        a->st = nla_fft_execute(a->p, a->x, a->y);
    return NULL;
}

Test(fft, shared_plan_threads)
{
    static const int64_t sizes[] = { 256, 1000, 1 << 17 };
    for (size_t i = 0; i < 3; i++) {
        int64_t n = sizes[i];
        double *x = fc_rand_real(NLA_DOUBLE, 2 * (size_t)n, 77, NULL);
        double *y1 = malloc(16 * (size_t)n);
        struct thr_arg a[4];
        pthread_t t[4];
        nla_fft_plan *p;
        cr_assert_eq(nla_fft_plan_1d(ctx, n, NLA_FFT_FORWARD, NLA_DOUBLE, &p), NLA_OK);
        cr_assert_eq(nla_fft_execute(p, x, y1), NLA_OK);
        for (int k = 0; k < 4; k++) {
            a[k] = (struct thr_arg){ p, x, malloc(16 * (size_t)n), n, n > 4096 ? 3 : 50, NLA_OK };
            cr_assert_eq(pthread_create(&t[k], NULL, thr_main, &a[k]), 0);
        }
        for (int k = 0; k < 4; k++) {
            pthread_join(t[k], NULL);
            cr_expect_eq(a[k].st, NLA_OK);
            cr_expect(memcmp(a[k].y, y1, 16 * (size_t)n) == 0, "n=%lld thread %d differs",
                      (long long)n, k);
            free(a[k].y);
        }
        nla_fft_plan_destroy(p);
        free(x);
        free(y1);
    }
}

/* ------------------------------------------------------------ bad input */

#define EXPECT_MSG(s, want, needle)                                            \
    do {                                                                       \
        cr_expect_eq((s), (want));                                             \
        cr_expect(strstr(nla_last_error(), (needle)) != NULL,                  \
                  "message '%s' lacks '%s'", nla_last_error(), (needle));      \
    } while (0)

Test(fft, bad_plan_arguments)
{
    nla_fft_desc d = fc_desc_of(NLA_FFT_C2C, NLA_DOUBLE, NLA_FFT_FORWARD, 16), b;
    nla_fft_plan *sentinel = (nla_fft_plan *)&d, *p = sentinel;

    EXPECT_MSG(nla_fft_plan_create(NULL, &d, &p), NLA_EINVAL, "nla_fft_plan_create: ctx is NULL");
    EXPECT_MSG(nla_fft_plan_create(ctx, NULL, &p), NLA_EINVAL, "desc is NULL");
    EXPECT_MSG(nla_fft_plan_create(ctx, &d, NULL), NLA_EINVAL, "plan is NULL");
    b = d; b.n = 0;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "nla_fft_plan_create: desc->n (0) < 1");
    cr_expect_str_eq(nla_context_error(ctx), "nla_fft_plan_create: desc->n (0) < 1");
    b = d; b.n = -5;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->n (-5) < 1");
    b = d; b.kind = (nla_fft_kind)7;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->kind");
    b = d; b.precision = (nla_precision)3;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->precision");
    b = d; b.direction = (nla_fft_direction)0;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->direction");
    b = d; b.howmany = -1;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->howmany (-1) < 0");
    b = d; b.istride = -2;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->istride (-2) < 0");
    b = d; b.idist = -2;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->idist (-2) < 0");
    b = d; b.ostride = -3;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->ostride (-3) < 0");
    b = d; b.odist = -4;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->odist (-4) < 0");
    b = d; b.scale = NAN;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "desc->scale");
    b = d; b.n = (int64_t)1 << 61;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "overflows");
    b = d; b.howmany = (int64_t)1 << 40; b.istride = (int64_t)1 << 30;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "input extent");
    b = d; b.howmany = 4; b.odist = 8;
    p = sentinel;
    EXPECT_MSG(nla_fft_plan_create(ctx, &b, &p), NLA_EINVAL, "overlap");
    cr_expect_null(p, "plan not NULL after a failed create (nla(3))");
    p = sentinel;
    EXPECT_MSG(nla_fft_plan_create(NULL, &d, &p), NLA_EINVAL, "ctx is NULL");
    cr_expect_null(p, "plan not NULL after create(ctx=NULL)");
    p = sentinel;
    EXPECT_MSG(nla_fft_plan_1d(NULL, 16, NLA_FFT_FORWARD, NLA_DOUBLE, &p), NLA_EINVAL,
               "ctx is NULL");
    cr_expect_null(p, "plan not NULL after plan_1d(ctx=NULL)");
    p = sentinel;
    EXPECT_MSG(nla_fft_plan_1d(ctx, 0, NLA_FFT_FORWARD, NLA_DOUBLE, &p), NLA_EINVAL, "n (0)");
    cr_expect_null(p, "plan not NULL after plan_1d(n=0)");
}

Test(fft, bad_execute_arguments)
{
    nla_fft_desc d = fc_desc_of(NLA_FFT_C2C, NLA_DOUBLE, NLA_FFT_FORWARD, 8);
    nla_fft_plan *p = fc_plan_desc(ctx, &d), *pr;
    double x[16], y[16], y0[16];
    for (int i = 0; i < 16; i++)
        x[i] = i, y[i] = y0[i] = -1;
    EXPECT_MSG(nla_fft_execute(NULL, x, y), NLA_EINVAL, "nla_fft_execute: plan is NULL");
    EXPECT_MSG(nla_fft_execute(p, NULL, y), NLA_EINVAL, "nla_fft_execute: in is NULL");
    EXPECT_MSG(nla_fft_execute(p, x, NULL), NLA_EINVAL, "nla_fft_execute: out is NULL");
    EXPECT_MSG(nla_fft_execute_c2c_s(p, (float *)x, (float *)y), NLA_EINVAL,
               "nla_fft_execute_c2c_s: plan is a double C2C plan, not float C2C");
    EXPECT_MSG(nla_fft_execute_r2c_d(p, x, y), NLA_EINVAL, "not double R2C");
    cr_expect(memcmp(y, y0, sizeof y) == 0, "output written on failure");
    cr_expect_eq(nla_fft_execute_c2c_d(p, x, y), NLA_OK);
    /* batched R2C in place needs the padded layout */
    d = fc_desc_of(NLA_FFT_R2C, NLA_DOUBLE, NLA_FFT_FORWARD, 6);
    d.howmany = 2;
    pr = fc_plan_desc(ctx, &d);
    memcpy(y, y0, sizeof y);
    EXPECT_MSG(nla_fft_execute(pr, y, y), NLA_EINVAL, "in == out");
    cr_expect(memcmp(y, y0, sizeof y) == 0, "output written on failure");
    nla_fft_plan_destroy(pr);
    nla_fft_plan_destroy(p);
    nla_fft_plan_destroy(NULL);
}
