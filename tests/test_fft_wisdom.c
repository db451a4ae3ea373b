/*
 * test_fft_wisdom.c - planning effort and wisdom: measured plans against
 * FFTW's long-double transforms (fftw3l), every kind of choice token
 * against it, the wisdom round trip (bitwise equal outputs), WISDOM_ONLY,
 * malformed wisdom (crafted, truncated, mutated: rejected whole, the table
 * unchanged), files, and the argument checks.
 *
 * Bounds: 2*eps*log2(n), as test_fft.c's for lengths without Bluestein.
 * Criterion runs each test in its own process, so each starts with no
 * wisdom.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fft_check.h"
#include "refs.h"

static nla_context *ctx;
static void setup(void) { ctx = ref_cpu_context(); }
static void teardown(void) { nla_context_destroy(ctx); }
TestSuite(wisdom, .init = setup, .fini = teardown);

static const char *pname(nla_precision p) { return p == NLA_DOUBLE ? "double" : "float"; }

static char *export_now(void)
{
    char *w = NULL;
    cr_assert_eq(nla_fft_wisdom_export(&w), NLA_OK, "%s", nla_last_error());
    cr_assert(w != NULL);
    return w;
}

static void import_ok(const char *text)
{
    cr_assert_eq(nla_fft_wisdom_import(text), NLA_OK, "%s\n%s", nla_last_error(), text);
}

/* one C2C of n values (seeded) by a fresh plan on c; malloc'ed output */
static void *run_c2c(nla_context *c, nla_precision p, nla_fft_direction dir, int64_t n,
                     uint64_t seed)
{
    nla_fft_plan *plan = NULL;
    void *x = fc_rand_real(p, 2 * (size_t)n, seed, NULL);
    void *y = malloc(2 * (size_t)n * fc_rsz(p));
    cr_assert_eq(nla_fft_plan_1d(c, n, dir, p, &plan), NLA_OK, "%s", nla_context_error(c));
    cr_assert_eq(nla_fft_execute(plan, x, y), NLA_OK);
    nla_fft_plan_destroy(plan);
    free(x);
    return y;
}

/* run_c2c forward on ctx after importing tok as the wisdom of (p, n, forward) */
static void *run_token(nla_precision p, int64_t n, const char *tok, uint64_t seed)
{
    char text[128];
    snprintf(text, sizeof text, "nla-fft-wisdom 1\n%c %lld f %s\nend\n",
             p == NLA_DOUBLE ? 'd' : 's', (long long)n, tok);
    import_ok(text);
    return run_c2c(ctx, p, NLA_FFT_FORWARD, n, seed);
}

Test(wisdom, measured_plans_are_accurate)
{
    static const int64_t sizes[] = { 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096,
                                     1 << 16, 6, 60, 1000, 1001, 2187, 15015, 100000 };
    const size_t ns = REF_SIZE(sizeof sizes / sizeof *sizes, 12);
    char *w;
    cr_assert_eq(nla_context_set_fft_effort(ctx, NLA_FFT_MEASURE), NLA_OK);
    for (int pi = 0; pi < 2; pi++)
        for (size_t i = 0; i < ns; i++) {
            nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
            for (int dir = -1; dir <= 1; dir += 2) {
                double e = fc_c2c_err(ctx, p, dir, sizes[i], i % 2);
                cr_expect(e <= 2.0, "%s n=%lld dir %d: error %.3g eps*log2(n) > 2", pname(p),
                          (long long)sizes[i], dir, e);
            }
            fc_real_check(ctx, p, sizes[i] * 2, 2.0);
        }
    w = export_now();
    cr_expect(strncmp(w, "nla-fft-wisdom 1\n", 17) == 0, "%s", w);
    cr_expect(strstr(w, "\nd 1024 f ") && strstr(w, "\ns 1024 b ") &&
              strstr(w, "\nd 64 b ") && strstr(w, "\nend\n"), "%s", w);
    free(w);
}

/* every kind of token, imported, against fftw3l: pass orders, codelet,
   four-step and DIT splits (below the cache limit too; DIT columns by the
   interleaved codelet, R = 2^k <= 64, or by passes), the generic odd
   radix (last, where s fills vectors, and first, one value at a time),
   Bluestein */
Test(wisdom, every_choice_is_accurate)
{
    static const struct { int64_t n; const char *tok; } c[] = {
        { 4096, "s8.8.8.8" }, { 4096, "s4.4.4.4.4.4" }, { 4096, "s2.8.4.8.4.2" },
        { 4096, "s2.2.2.2.2.2.2.2.2.2.2.2" }, { 4096, "f64" }, { 4096, "f2" },
        { 4096, "f2048" }, { 4096, "f8" }, { 256, "c" }, { 512, "c" }, { 256, "s2.8.4.4" },
        { 2, "c" }, { 2, "s2" }, { 1000, "s5.8.5.5" }, { 1000, "s5.5.5.2.4" },
        { 1000, "f40" }, { 1000, "f8" }, { 15015, "s3.5.7.11.13" }, { 15015, "f105" },
        { 15015, "s13.11.7.5.3" }, { 1001, "s13.7.11" }, { 30030, "f2" },
        { 131, "b" }, { 262, "b" }, { 1088, "b" }, { 17, "s17" }, { 1088, "s8.8.17" },
        { 2584, "s8.17.19" }, { 2584, "s17.19.8" }, { 381, "s127.3" }, { 4624, "f68" },
        { 23552, "d8" }, { 1 << 16, "f16" }, { 1 << 16, "s4.2.8.8.8.4.4" },
        { 4096, "d8" }, { 4096, "d64" }, { 4096, "d2" }, { 4096, "d32" }, { 1000, "d8" },
        { 1000, "d40" }, { 15015, "d15" }, { 1 << 16, "d16" }, { 30030, "d2" },
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char text[256];
        nla_fft_wisdom_forget();
        snprintf(text, sizeof text, "nla-fft-wisdom 1\nd %lld f %s\nd %lld b %s\n"
                 "s %lld f %s\ns %lld b %s\nend\n", (long long)c[i].n, c[i].tok,
                 (long long)c[i].n, c[i].tok, (long long)c[i].n, c[i].tok,
                 (long long)c[i].n, c[i].tok);
        import_ok(text);
        for (int pi = 0; pi < 2; pi++) {
            nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
            for (int dir = -1; dir <= 1; dir += 2) {
                double e = fc_c2c_err(ctx, p, dir, c[i].n, dir > 0);
                cr_expect(e <= (c[i].tok[0] == 'b' ? 10.0 : 2.0),
                          "%s n=%lld %s dir %d: error %.3g eps*log2(n)", pname(p),
                          (long long)c[i].n, c[i].tok, dir, e);
            }
        }
    }
}

/* a choice is obeyed: other choices for one length give other bits, and
   the rules' token gives the bits of a plan without wisdom */
Test(wisdom, choices_take_effect)
{
    static const char *tok[] = { "s8.8.8.8", "s4.4.4.4.4.4", "s2.8.4.8.4.2", "f64", "f8",
                                 "f2048", "d8", "d16", "d64" };
    enum { N = 4096, K = sizeof tok / sizeof *tok };
    void *y[K], *y0 = run_c2c(ctx, NLA_DOUBLE, NLA_FFT_FORWARD, N, 5);
    for (int i = 0; i < K; i++) {
        y[i] = run_token(NLA_DOUBLE, N, tok[i], 5);
        for (int j = 0; j < i; j++)
            cr_expect(memcmp(y[i], y[j], 2 * N * sizeof(double)) != 0,
                      "%s and %s give the same bits", tok[i], tok[j]);
    }
    cr_expect(memcmp(y[0], y0, 2 * N * sizeof(double)) == 0,
              "s8.8.8.8 (the rules' passes) differs from the plan without wisdom");
    for (int i = 0; i < K; i++)
        free(y[i]);
    free(y0);
}

/* MEASURE, export, forget, import, WISDOM_ONLY on a fresh context: the
   same bits; ESTIMATE after the import: the same bits too */
static void round_trip(const int64_t *sizes, size_t ns)
{
    void *ym[2][2][16];
    char *w1, *w2;
    nla_context *c2, *c3;

    cr_assert(ns <= 16);
    cr_assert_eq(nla_context_set_fft_effort(ctx, NLA_FFT_MEASURE), NLA_OK);
    for (int pi = 0; pi < 2; pi++)
        for (int d = 0; d < 2; d++)
            for (size_t i = 0; i < ns; i++)
                ym[pi][d][i] = run_c2c(ctx, pi ? NLA_FLOAT : NLA_DOUBLE,
                                       d ? NLA_FFT_BACKWARD : NLA_FFT_FORWARD, sizes[i],
                                       7 + i);
    w1 = export_now();
    nla_fft_wisdom_forget();
    w2 = export_now();
    cr_expect_str_eq(w2, "nla-fft-wisdom 1\nend\n");
    free(w2);
    import_ok(w1);
    w2 = export_now();
    cr_expect_str_eq(w2, w1);
    c2 = ref_cpu_context();
    c3 = ref_cpu_context();
    cr_assert_eq(nla_context_set_fft_effort(c2, NLA_FFT_WISDOM_ONLY), NLA_OK);
    nla_context_set_threads(c3, 2);
    for (int pi = 0; pi < 2; pi++)
        for (int d = 0; d < 2; d++)
            for (size_t i = 0; i < ns; i++) {
                nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
                nla_fft_direction dir = d ? NLA_FFT_BACKWARD : NLA_FFT_FORWARD;
                size_t bytes = 2 * (size_t)sizes[i] * fc_rsz(p);
                void *y2 = run_c2c(c2, p, dir, sizes[i], 7 + i);
                void *y3 = run_c2c(c3, p, dir, sizes[i], 7 + i);
                cr_expect(memcmp(ym[pi][d][i], y2, bytes) == 0,
                          "%s n=%lld dir %d: WISDOM_ONLY differs from MEASURE", pname(p),
                          (long long)sizes[i], (int)dir);
                cr_expect(memcmp(ym[pi][d][i], y3, bytes) == 0,
                          "%s n=%lld dir %d: ESTIMATE after import differs", pname(p),
                          (long long)sizes[i], (int)dir);
                free(y2);
                free(y3);
                free(ym[pi][d][i]);
            }
    free(w1);
    free(w2);
    nla_context_destroy(c2);
    nla_context_destroy(c3);
}

Test(wisdom, round_trip_is_bitwise)
{
    static const int64_t sizes[] = { 8, 64, 256, 1000, 1024, 4096, 15015, 1 << 16 };
    round_trip(sizes, REF_SIZE(8, 5));
}

/* a Stockham limit of 1 MiB (the derived configuration of a 4 MiB L3):
   lengths around it choose between passes and four-step splits */
static void small_l3(void)
{
    setenv("NLA_CPU_TUNE", "derived", 1);
    setenv("NLA_TUNE_CACHES", "16K,256K,4M", 1);
    setup();
}

Test(wisdom_small_l3, measured_past_the_cache, .init = small_l3, .fini = teardown)
{
    static const int64_t sizes[] = { 1 << 15, 1 << 16, 100000, 1 << 18, 209952 };
    char *w;
    cr_assert_eq(nla_cpu_config_value("fft_stockham_max_bytes"), 1 << 20);
    if (ref_test_small())
        cr_skip_test("n up to 2^18 against long double: not with NLA_TEST_SMALL");
    cr_assert_eq(nla_context_set_fft_effort(ctx, NLA_FFT_MEASURE), NLA_OK);
    for (int pi = 0; pi < 2; pi++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
            double e = fc_c2c_err(ctx, p, i % 2 ? 1 : -1, sizes[i], i == 1);
            cr_expect(e <= 2.0, "%s n=%lld: error %.3g eps*log2(n) > 2", pname(p),
                      (long long)sizes[i], e);
        }
    w = export_now();
    cr_expect(strstr(w, "\nd 262144 b f") != NULL, "2^18 double is past 4x the limit: "
              "four-step only\n%s", w);
    free(w);
}

/* A plan of n without wisdom gives the bits of the token rule, other bits
   than other's, and an error of at most bound eps*log2(n). */
static void expect_rule(nla_precision p, int64_t n, const char *rule, const char *other,
                        double bound)
{
    const char pc = p == NLA_DOUBLE ? 'd' : 's';
    const size_t bytes = 2 * (size_t)n * fc_rsz(p);
    void *y0 = run_c2c(ctx, p, NLA_FFT_FORWARD, n, 7);
    void *yd = run_token(p, n, rule, 7);
    void *ys = run_token(p, n, other, 7);
    cr_expect(memcmp(y0, yd, bytes) == 0, "%c %lld: the rules' plan is not %s", pc,
              (long long)n, rule);
    cr_expect(memcmp(yd, ys, bytes) != 0, "%c %lld: %s gives the bits of %s", pc,
              (long long)n, rule, other);
    nla_fft_wisdom_forget();
    cr_expect(fc_c2c_err(ctx, p, -1, n, 0) <= bound, "%c %lld: error over %g eps*log2(n)", pc,
              (long long)n, bound);
    free(y0);
    free(yd);
    free(ys);
}

/* The generic odd radix: a prime over 13 takes its pass, last, where s
   fills vectors (17*64, 8*17*19, 127*16; data and scratch well inside
   any L2 of 256 KiB), and alone up to 19 (17).  A
   larger one whose pass would go a value at a time (23 alone, where a
   vector holds 2 or more doubles) takes Bluestein. */
Test(wisdom, rules_take_the_generic_pass)
{
    static const struct { nla_precision p; int64_t n; const char *rule, *other; } c[] = {
        { NLA_DOUBLE, 1088, "s8.8.17", "b" }, { NLA_FLOAT, 1088, "s8.8.17", "b" },
        { NLA_DOUBLE, 2584, "s8.17.19", "b" }, { NLA_FLOAT, 2584, "s8.17.19", "s17.19.8" },
        { NLA_DOUBLE, 2032, "s8.2.127", "b" }, { NLA_DOUBLE, 17, "s17", "b" },
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        expect_rule(c[i].p, c[i].n, c[i].rule, c[i].other, 2.0);
    if (strcmp(nla_cpu_isa(), "generic") != 0)
        expect_rule(NLA_DOUBLE, 23, "b", "s23", 10.0);
}

/* A 16 KiB L2: the rules take the DIT core for lengths whose data,
   scratch and first pass's table pass it, with R a multiple of 8 whose
   rows are whole cache lines, a power of two at most 32: the least power
   of two whose row transforms fit a quarter of the L2 (4096 double: d32,
   float: d16), and never 64 (8192 double: d32, not d64).  Where none fits
   and the data pass the L2, the largest power of two if its rows fit half
   the L2 or have an R of their own (32768 double: d32, rows of 1024
   decimated by 8; 12288 = 3*4096 double: d32, not d48), else another
   multiple of 8 up to 64 (8000: d40, as its rows have no factor 8).  Where
   no R makes whole lines and the data and scratch pass the L2, the
   largest radix of one pass whose rows fit half the L2 (1125: d9; 3000
   float: d8), else the radix of a pass with the shortest rows (3000
   double: d25), never one whose rows would take Bluestein (16675 =
   25*23*29 double: d5, as 23*29 alone would); the passes below that (375
   double).  A
   plan without wisdom gives the bits of the rules' token, other bits than
   the other's, and the error of an accurate transform. */
static void small_l2(void)
{
    setenv("NLA_CPU_TUNE", "derived", 1);
    setenv("NLA_TUNE_CACHES", "32K,16K,1G", 1);
    setup();
}

Test(wisdom_small_l2, rules_take_dit, .init = small_l2, .fini = teardown)
{
    static const struct { nla_precision p; int64_t n; const char *rule, *other; } c[] = {
        { NLA_DOUBLE, 4096, "d32", "s8.8.8.8" }, { NLA_FLOAT, 4096, "d16", "s8.8.8.8" },
        { NLA_DOUBLE, 8192, "d32", "d64" },
        { NLA_DOUBLE, 8000, "d40", "d16" }, { NLA_FLOAT, 8000, "d40", "d8" },
        { NLA_DOUBLE, 32768, "d32", "s8.8.8.8.8" }, { NLA_DOUBLE, 12288, "d32", "d48" },
        { NLA_DOUBLE, 1125, "d9", "d25" }, { NLA_FLOAT, 1125, "d9", "s9.5.5.5" },
        { NLA_DOUBLE, 3000, "d25", "d8" }, { NLA_FLOAT, 3000, "d8", "d25" },
        { NLA_DOUBLE, 375, "s5.5.5.3", "d25" }, { NLA_DOUBLE, 16675, "d5", "d25" } };
    cr_assert_eq(nla_cpu_config_value("l2"), 16384);
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        expect_rule(c[i].p, c[i].n, c[i].rule, c[i].other, 2.0);
}

/* R2C of n reals with unit strides (the fused or pairs form where h = n/2
   values pass fft_real_fuse_bytes), or from an input stride of 2 (the
   separate form always, otherwise the same arithmetic) */
static void *run_r2c(nla_precision p, int64_t n, int64_t istride)
{
    const size_t es = fc_rsz(p), h = (size_t)n / 2 + 1;
    char *x = fc_rand_real(p, (size_t)n, 3 + (uint64_t)n, NULL);
    char *xs = calloc((size_t)(n * istride), es);
    void *y = malloc(2 * h * es);
    nla_fft_desc d = fc_desc_of(NLA_FFT_R2C, p, NLA_FFT_FORWARD, n);
    nla_fft_plan *pl;
    for (int64_t j = 0; j < n; j++)
        memcpy(xs + (size_t)(j * istride) * es, x + (size_t)j * es, es);
    d.istride = istride;
    pl = fc_plan_desc(ctx, &d);
    cr_assert_eq(nla_fft_execute(pl, xs, y), NLA_OK, "%s", nla_last_error());
    nla_fft_plan_destroy(pl);
    free(x);
    free(xs);
    return y;
}

/* The real step's pairs form (real_tmpl.h) on the cores with no edge pass
   to join, each forced by the half length's wisdom: a four-step, a DIT
   whose columns run passes (R = 25), Bluestein; with r and s even (9000:
   r = 90, s = 100) and odd (10125: r = 81, s = 125).  R2C and C2R, in
   place and out, are accurate (fc_real_check), and R2C gives other bits
   than the separate form (an input stride of 2), so the pairs did run.
   (NLA_TEST_SMALL: double only.) */
Test(wisdom, real_pairs)
{
    static const struct { int64_t h; const char *tok; } c[] = {
        { 9000, "f90" }, { 9000, "d25" }, { 9000, "b" },
        { 10125, "f81" }, { 10125, "d25" }, { 10125, "b" } };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        for (int pi = 0; pi < REF_SIZE(2, 1); pi++) {
            nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
            const char pc = pi ? 's' : 'd';
            const int64_t n = 2 * c[i].h;
            char text[160];
            void *y1, *y2;
            nla_fft_wisdom_forget();
            snprintf(text, sizeof text, "nla-fft-wisdom 1\n%c %lld f %s\n%c %lld b %s\nend\n",
                     pc, (long long)c[i].h, c[i].tok, pc, (long long)c[i].h, c[i].tok);
            import_ok(text);
            cr_assert(c[i].h * 2 * (int64_t)fc_rsz(p) >
                      nla_cpu_config_value("fft_real_fuse_bytes"));
            fc_real_check(ctx, p, n, c[i].tok[0] == 'b' ? 10.0 : 2.0);
            y1 = run_r2c(p, n, 1);
            y2 = run_r2c(p, n, 2);
            cr_expect(memcmp(y1, y2, (size_t)(n + 2) * fc_rsz(p)) != 0,
                      "%c %lld %s: the pairs give the bits of the separate form", pc,
                      (long long)n, c[i].tok);
            free(y1);
            free(y2);
        }
}

Test(wisdom_small_l3, round_trip_past_the_cache, .init = small_l3, .fini = teardown)
{
    static const int64_t sizes[] = { 1 << 16, 100000, 1 << 18 };
    if (ref_test_small())
        cr_skip_test("n up to 2^18: not with NLA_TEST_SMALL");
    round_trip(sizes, 3);
}

Test(wisdom, wisdom_only_needs_wisdom)
{
    nla_fft_plan *plan = (nla_fft_plan *)&plan;
    nla_fft_desc d = fc_desc_of(NLA_FFT_R2C, NLA_DOUBLE, -1, 2048);
    cr_assert_eq(nla_context_set_fft_effort(ctx, NLA_FFT_WISDOM_ONLY), NLA_OK);
    cr_expect_eq(nla_fft_plan_1d(ctx, 1024, NLA_FFT_FORWARD, NLA_DOUBLE, &plan),
                 NLA_ENOTSUP);
    cr_expect(plan == NULL);
    cr_expect(strstr(nla_context_error(ctx), "nla_fft_plan_1d") &&
              strstr(nla_context_error(ctx), "1024"), "%s", nla_context_error(ctx));
    /* a real transform of 2048 runs a complex core of 1024 */
    cr_expect_eq(nla_fft_plan_create(ctx, &d, &plan), NLA_ENOTSUP);
    cr_expect(strstr(nla_context_error(ctx), "1024"), "%s", nla_context_error(ctx));
    /* ND and DCT plans too */
    cr_expect_eq(nla_fft_plan_2d(ctx, 8, 16, NLA_FFT_FORWARD, NLA_DOUBLE, &plan),
                 NLA_ENOTSUP);
    d = fc_desc_of(NLA_FFT_REDFT10, NLA_FLOAT, -1, 64);
    cr_expect_eq(nla_fft_plan_create(ctx, &d, &plan), NLA_ENOTSUP);
    /* length 1 has nothing to choose */
    cr_expect_eq(nla_fft_plan_1d(ctx, 1, NLA_FFT_FORWARD, NLA_DOUBLE, &plan), NLA_OK);
    nla_fft_plan_destroy(plan);
    /* with wisdom it plans */
    import_ok("nla-fft-wisdom 1\nd 1024 f s8.8.4.4\nd 8 f s8\nd 16 f f4\nend\n");
    cr_expect_eq(nla_fft_plan_1d(ctx, 1024, NLA_FFT_FORWARD, NLA_DOUBLE, &plan), NLA_OK,
                 "%s", nla_context_error(ctx));
    nla_fft_plan_destroy(plan);
    d = fc_desc_of(NLA_FFT_R2C, NLA_DOUBLE, -1, 2048);
    cr_expect_eq(nla_fft_plan_create(ctx, &d, &plan), NLA_OK, "%s", nla_context_error(ctx));
    nla_fft_plan_destroy(plan);
    cr_expect_eq(nla_fft_plan_2d(ctx, 8, 16, NLA_FFT_FORWARD, NLA_DOUBLE, &plan), NLA_OK,
                 "%s", nla_context_error(ctx));
    nla_fft_plan_destroy(plan);
}

/* MEASURE through ND and DCT plans records their lengths */
Test(wisdom, nd_and_dct_measure)
{
    nla_fft_plan *plan = NULL;
    nla_fft_desc d = fc_desc_of(NLA_FFT_REDFT10, NLA_FLOAT, -1, 96);
    char *w;
    cr_assert_eq(nla_context_set_fft_effort(ctx, NLA_FFT_MEASURE), NLA_OK);
    cr_assert_eq(nla_fft_plan_2d(ctx, 12, 40, NLA_FFT_BACKWARD, NLA_DOUBLE, &plan), NLA_OK);
    nla_fft_plan_destroy(plan);
    cr_assert_eq(nla_fft_plan_create(ctx, &d, &plan), NLA_OK, "%s", nla_context_error(ctx));
    nla_fft_plan_destroy(plan);
    w = export_now();
    cr_expect(strstr(w, "\nd 12 b ") && strstr(w, "\nd 40 b ") && strstr(w, "\ns 48 f "),
              "%s", w);
    free(w);
}

static const char valid[] = "nla-fft-wisdom 1\nd 64 f s4.4.4\nd 64 b c\nd 1000 f f40\n"
                            "s 4096 b s8.8.8.8\ns 131 f b\nend\n";

static void expect_rejected(const char *text, const char *before)
{
    char *after;
    cr_expect_eq(nla_fft_wisdom_import(text), NLA_EINVAL, "accepted:\n%s", text);
    cr_expect(strstr(nla_last_error(), "nla_fft_wisdom_import") &&
              strstr(nla_last_error(), "line "), "%s", nla_last_error());
    after = export_now();
    cr_expect_str_eq(after, before, "wisdom changed by:\n%s", text);
    free(after);
}

Test(wisdom, malformed_is_rejected_whole)
{
    static const char *bad[] = {
        "", "nla-fft-wisdom 2\nend\n", "nla-fft-wisdom 1\n", "nla-fft-wisdom 1\nd 64 f c\n",
        "nla-fft-wisdom 1\nd 64 f c\nend\nd 8 f c\n", "nla-fft-wisdom 1\nend\n\n",
        "nla-fft-wisdom 1\nx 64 f c\nend\n", "nla-fft-wisdom 1\nd 64 x c\nend\n",
        "nla-fft-wisdom 1\nd 0 f c\nend\n", "nla-fft-wisdom 1\nd -64 f c\nend\n",
        "nla-fft-wisdom 1\nd 1 f s\nend\n", "nla-fft-wisdom 1\nd 64 f s4.4\nend\n",
        "nla-fft-wisdom 1\nd 64 f s4.4.4.1\nend\n", "nla-fft-wisdom 1\nd 64 f s16.4\nend\n",
        "nla-fft-wisdom 1\nd 64 f s4..4.4\nend\n", "nla-fft-wisdom 1\nd 64 f s4.4.4.\nend\n",
        "nla-fft-wisdom 1\nd 64 f s\nend\n", "nla-fft-wisdom 1\nd 96 f c\nend\n",
        "nla-fft-wisdom 1\nd 1024 f c\nend\n", "nla-fft-wisdom 1\nd 64 f f3\nend\n",
        "nla-fft-wisdom 1\nd 64 f f64\nend\n", "nla-fft-wisdom 1\nd 64 f f1\nend\n",
        "nla-fft-wisdom 1\nd 262 f f2\nend\n", "nla-fft-wisdom 1\nd 64 f bb\nend\n",
        "nla-fft-wisdom 1\nd 131 f s131\nend\n", "nla-fft-wisdom 1\nd 64 f q\nend\n",
        "nla-fft-wisdom 1\nd 21 f s21\nend\n", "nla-fft-wisdom 1\nd 34 f s2.17.1\nend\n",
        "nla-fft-wisdom 1\nd 64 f c \nend\n", "nla-fft-wisdom 1\nd  64 f c\nend\n",
        "nla-fft-wisdom 1\nd 64 f c\r\nend\n", "nla-fft-wisdom 1\n\nend\n",
        "nla-fft-wisdom 1\nd 99999999999999999999 f c\nend\n",
        "nla-fft-wisdom 1\nd 64 f s2.2.2.2.2.2.2.2.2.2.2.2.2.2.2.2.2.2.2.2.2.2.2.2.2\nend\n",
        "nla-fft-wisdom 1\nd 64 f s4.4.4\nd 64 b c\nd 64 f f5\nend\n",
        "nla-fft-wisdom 1\nd 64 f d64\nend\n", "nla-fft-wisdom 1\nd 64 f d1\nend\n",
        "nla-fft-wisdom 1\nd 256 f d128\nend\n", "nla-fft-wisdom 1\nd 64 f d3\nend\n",
        "nla-fft-wisdom 1\nd 262 f d2\nend\n", "nla-fft-wisdom 1\nd 64 f d\nend\n",
        "nla-fft-wisdom 1\nd 64 f d8x\nend\n",
    };
    char *before;
    import_ok("nla-fft-wisdom 1\nd 32 f s8.4\ns 9 b s3.3\nend\n");
    before = export_now();
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_rejected(bad[i], before);
    free(before);
}

/* every truncation of a valid text but the whole (and the whole less its
   last newline) is rejected; single-byte mutations are rejected or taken
   whole, never in part */
Test(wisdom, fuzzed_is_rejected_whole)
{
    const size_t len = strlen(valid);
    char *before, *text = malloc(len + 1);
    uint64_t s = 12345;
    int rejected = 0, tries = REF_SIZE(2000, 200);

    import_ok("nla-fft-wisdom 1\nd 32 f s8.4\nend\n");
    before = export_now();
    for (size_t cut = 0; cut + 1 < len; cut++) {
        memcpy(text, valid, cut);
        text[cut] = '\0';
        expect_rejected(text, before);
    }
    for (int i = 0; i < tries; i++) {
        nla_status st;
        size_t at;
        s = s * 6364136223846793005u + 1442695040888963407u;
        at = (size_t)(s >> 33) % len;
        memcpy(text, valid, len + 1);
        text[at] = " \n.0123456789abcdfsx-\t"[(s >> 13) % 22];
        st = nla_fft_wisdom_import(text);
        cr_assert(st == NLA_OK || st == NLA_EINVAL);
        if (st == NLA_EINVAL) {
            char *after = export_now();
            rejected++;
            cr_expect_str_eq(after, before, "wisdom changed by:\n%s", text);
            free(after);
        } else {
            nla_fft_wisdom_forget();
            import_ok(before);
        }
    }
    cr_expect(rejected > tries / 2, "only %d of %d mutations rejected", rejected, tries);
    free(before);
    free(text);
}

Test(wisdom, files)
{
    char path[] = "/tmp/nla-wisdom-XXXXXX", bad[64], *w1, *w2;
    int fd = mkstemp(path);
    FILE *f;
    cr_assert(fd >= 0);
    close(fd);
    import_ok(valid);
    w1 = export_now();
    cr_assert_eq(nla_fft_wisdom_export_file(path), NLA_OK, "%s", nla_last_error());
    nla_fft_wisdom_forget();
    cr_assert_eq(nla_fft_wisdom_import_file(path), NLA_OK, "%s", nla_last_error());
    w2 = export_now();
    cr_expect_str_eq(w2, w1);
    free(w2);
    /* cannot open, cannot read (a directory), cannot write, bad content */
    snprintf(bad, sizeof bad, "%s.none/w", path);
    cr_expect_eq(nla_fft_wisdom_import_file(bad), NLA_EINVAL);
    cr_expect(strstr(nla_last_error(), bad), "%s", nla_last_error());
    cr_expect_eq(nla_fft_wisdom_export_file(bad), NLA_EINVAL);
    cr_expect(strstr(nla_last_error(), bad), "%s", nla_last_error());
    cr_expect_eq(nla_fft_wisdom_import_file("/"), NLA_EINVAL);
    cr_expect(strstr(nla_last_error(), "'/'"), "%s", nla_last_error());
    if (access("/dev/full", W_OK) == 0) {
        cr_expect_eq(nla_fft_wisdom_export_file("/dev/full"), NLA_EINVAL);
        cr_expect(strstr(nla_last_error(), "/dev/full"), "%s", nla_last_error());
    }
    f = fopen(path, "w");
    cr_assert(f);
    fputs("nla-fft-wisdom 1\nd 64 f s4.4\nend\n", f);
    fclose(f);
    cr_expect_eq(nla_fft_wisdom_import_file(path), NLA_EINVAL);
    cr_expect(strstr(nla_last_error(), path) && strstr(nla_last_error(), "line 2"), "%s",
              nla_last_error());
    w2 = export_now();
    cr_expect_str_eq(w2, w1);
    free(w2);
    free(w1);
    unlink(path);
}

Test(wisdom, argument_checks)
{
    cr_expect_eq(nla_context_set_fft_effort(NULL, NLA_FFT_MEASURE), NLA_EINVAL);
    cr_expect(strstr(nla_last_error(), "ctx"), "%s", nla_last_error());
    cr_expect_eq(nla_context_set_fft_effort(ctx, (nla_fft_effort)3), NLA_EINVAL);
    cr_expect(strstr(nla_context_error(ctx), "nla_context_set_fft_effort: effort"), "%s",
              nla_context_error(ctx));
    cr_expect_eq(nla_context_set_fft_effort(ctx, (nla_fft_effort)-1), NLA_EINVAL);
    cr_expect(strstr(nla_context_error(ctx), "effort"), "%s", nla_context_error(ctx));
    cr_expect_eq(nla_fft_wisdom_export(NULL), NLA_EINVAL);
    cr_expect(strstr(nla_last_error(), "wisdom is NULL"), "%s", nla_last_error());
    cr_expect_eq(nla_fft_wisdom_import(NULL), NLA_EINVAL);
    cr_expect(strstr(nla_last_error(), "wisdom is NULL"), "%s", nla_last_error());
    cr_expect_eq(nla_fft_wisdom_export_file(NULL), NLA_EINVAL);
    cr_expect(strstr(nla_last_error(), "path is NULL"), "%s", nla_last_error());
    cr_expect_eq(nla_fft_wisdom_import_file(NULL), NLA_EINVAL);
    cr_expect(strstr(nla_last_error(), "path is NULL"), "%s", nla_last_error());
    /* a rejected effort leaves the context's */
    cr_assert_eq(nla_context_set_fft_effort(ctx, NLA_FFT_WISDOM_ONLY), NLA_OK);
    cr_expect_eq(nla_context_set_fft_effort(ctx, (nla_fft_effort)7), NLA_EINVAL);
    cr_expect_eq(nla_fft_plan_1d(ctx, 64, NLA_FFT_FORWARD, NLA_DOUBLE,
                                 &(nla_fft_plan *){ NULL }), NLA_ENOTSUP);
}

/* planning with MEASURE, exporting and importing from several threads */
static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    nla_context *c = NULL;
    for (int i = 0; i < 20; i++) {
        nla_fft_plan *plan = NULL;
        char *w = NULL;
        if (nla_context_create(&c, NLA_BACKEND_CPU) != NLA_OK)
            return (void *)1;
        nla_context_set_threads(c, 1);
        nla_context_set_fft_effort(c, NLA_FFT_MEASURE);
        if (nla_fft_plan_1d(c, 8 << ((id + i) % 6), NLA_FFT_FORWARD, NLA_DOUBLE, &plan) !=
            NLA_OK)
            return (void *)1;
        nla_fft_plan_destroy(plan);
        nla_context_destroy(c);
        if (nla_fft_wisdom_export(&w) != NLA_OK || nla_fft_wisdom_import(w) != NLA_OK)
            return (void *)1;
        free(w);
    }
    return NULL;
}

Test(wisdom, threads)
{
    pthread_t t[4];
    char *w;
    for (int i = 0; i < 4; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i), 0);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        cr_expect(r == NULL, "thread %d failed", i);
    }
    w = export_now();
    for (int k = 3; k < 9; k++) {
        char line[32];
        snprintf(line, sizeof line, "\nd %d f ", 1 << k);
        cr_expect(strstr(w, line), "no %s in\n%s", line + 1, w);
    }
    free(w);
}
