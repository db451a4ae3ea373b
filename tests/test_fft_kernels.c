/*
 * test_fft_kernels.c - every FFT kernel table (NLA_CPU_ISA=generic, avx2,
 * avx512), so that each ISA's codelets, passes and real-transform steps
 * are checked whatever this CPU would pick.  A suite whose table this CPU
 * cannot run is skipped, saying so.
 *
 * Against FFTW's long-double transforms (fftw3l, fft_check.h): at most
 * 2*eps*log2(n) for n whose prime factors are at most 127, 10*eps*log2(n)
 * through Bluestein.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fft_check.h"
#include "refs.h"

static nla_context *ctx;

/* The library reads NLA_CPU_ISA (and the caches of the derived
   configuration, when caches is not NULL) once, at its first use: each
   Criterion test is its own process, so the setting holds for the whole
   test. */
static void use_isa(const char *isa, const char *caches)
{
    setenv("NLA_CPU_ISA", isa, 1);
    if (caches) {
        setenv("NLA_CPU_TUNE", "derived", 1);
        setenv("NLA_TUNE_CACHES", caches, 1);
    }
    ctx = ref_cpu_context();
}
static void teardown(void) { nla_context_destroy(ctx); }

static void need_isa(const char *isa)
{
    if (strcmp(nla_cpu_isa(), isa) != 0)
        cr_skip_test("kernel table %s not available: %s", isa, nla_cpu_isa_reason());
}

/* every n up to nmax, then 512 (the longest codelet: float on AVX-512);
   both directions for n <= 64 and the powers of two (the codelets'
   sizes), in and out of place */
static void every_c2c(int64_t nmax)
{
    for (int pi = 0; pi < 2; pi++) {
        nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
        int bad = 0;
        for (int64_t n = 1; n <= nmax || n == 512;
             n = n < nmax ? n + 1 : n < 512 ? 512 : INT64_MAX)
            for (int dir = -1; dir <= 1; dir += 2) {
                if (n > 64 && (n & (n - 1)) != 0 && (dir == 1) != (n % 2 == 1))
                    continue;
                double e = fc_c2c_err(ctx, p, dir, n, (n + (dir > 0)) % 3 == 0);
                double bound = fc_smooth(n) ? 2.0 : 10.0;
                if (e > bound && bad++ < 10)
                    cr_expect(e <= bound, "%s n=%lld dir %d: error %.3g eps*log2(n) > %g",
                              pi ? "float" : "double", (long long)n, dir, e, bound);
            }
        cr_expect(bad == 0, "%s: %d sizes over the bound", pi ? "float" : "double", bad);
    }
}

/* A C2C batch of hm transforms with the given strides and dists (complex
   units) and scale, each transform against fftw3l: the codelets take
   whole batches, the passes interleaved columns. */
static void batch_c2c(nla_precision p, int dir, int64_t n, int64_t hm, int64_t is,
                      int64_t id, int64_t os, int64_t od, double scale, int inplace)
{
    const int64_t ilen = (n - 1) * is + (hm - 1) * id + 1;
    const int64_t olen = inplace ? ilen : (n - 1) * os + (hm - 1) * od + 1;
    ld *xl = malloc(sizeof(ld) * 2 * (size_t)ilen);
    ld *a = malloc(sizeof(ld) * 2 * (size_t)n), *ref = malloc(sizeof(ld) * 2 * (size_t)n);
    void *x = fc_rand_real(p, 2 * (size_t)ilen, 77 + (uint64_t)n * 3 + (uint64_t)hm, xl);
    void *y = inplace ? x : fc_rand_real(p, 2 * (size_t)olen, 5, NULL);
    void *out;
    nla_fft_desc d = fc_desc_of(NLA_FFT_C2C, p, dir, n);
    nla_fft_plan *pl;
    double worst = 0;

    d.howmany = hm;
    d.istride = is;
    d.idist = id;
    d.ostride = inplace ? is : os;
    d.odist = inplace ? id : od;
    d.scale = scale;
    pl = fc_plan_desc(ctx, &d);
    cr_assert_eq(nla_fft_execute(pl, x, y), NLA_OK, "%s", nla_last_error());
    out = y;
    for (int64_t b = 0; b < hm; b++) {
        ld num = 0, den = 0;
        for (int64_t j = 0; j < n; j++) {
            a[2 * j] = xl[2 * (j * is + b * id)];
            a[2 * j + 1] = xl[2 * (j * is + b * id) + 1];
        }
        fc_ref_c2c(n, dir, a, ref);
        for (int64_t k = 0; k < n; k++)
            for (int c = 0; c < 2; c++) {
                ld r = ref[2 * k + c] * (ld)scale;
                ld e = fc_get(out, p, (size_t)(2 * (k * d.ostride + b * d.odist) + c)) - r;
                num += e * e;
                den += r * r;
            }
        double err = (double)sqrtl(num / den) / (fc_eps_of(p) * fc_lg2(n));
        if (err > worst)
            worst = err;
    }
    cr_expect(worst <= 2.0, "%s n=%lld hm=%lld is=%lld id=%lld os=%lld od=%lld scale %g%s: "
              "error %.3g eps*log2(n) > 2", p == NLA_FLOAT ? "float" : "double",
              (long long)n, (long long)hm, (long long)is, (long long)id, (long long)os,
              (long long)od, scale, inplace ? " in place" : "", worst);
    nla_fft_plan_destroy(pl);
    free(xl);
    free(a);
    free(ref);
    free(x);
    if (!inplace)
        free(y);
}

static void batches(void)
{
    static const int64_t sizes[] = { 2, 4, 8, 16, 32, 64, 12, 60, 128, 256 };
    for (int pi = 0; pi < 2; pi++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
            const int64_t n = sizes[i];
            const int dir = i % 2 ? 1 : -1;
            /* contiguous, dists that are not n */
            batch_c2c(p, dir, n, 3, 1, n + 1, 1, n + 2, 1.0, 0);
            batch_c2c(p, -dir, n, 4, 1, n + 3, 1, n + 3, 1.0, 1);
            /* adjacent columns that fill their rows: on one thread the
               passes across the array as it lies, on two (a range of
               columns each) gathered blocks, as for 5 of rows of 7 */
            for (int nt = 1; nt <= 2; nt++) {
                nla_context_set_threads(ctx, nt);
                batch_c2c(p, dir, n, 5, 5, 1, 5, 1, 1.0, 0);
                batch_c2c(p, -dir, n, 19, 19, 1, 19, 1, 1.0, 1);
                batch_c2c(p, dir, n, 7, 7, 1, 7, 1, 0.5, 1);
            }
            nla_context_set_threads(ctx, 0);
            batch_c2c(p, dir, n, 5, 7, 1, 7, 1, 1.0, 1);
            batch_c2c(p, -dir, n, 11, 12, 1, 12, 1, 0.25, 0);
            /* scaled, strided */
            batch_c2c(p, dir, n, 2, 3, 3 * n, 2, 2 * n + 1, 0.5, 0);
        }
}

/* d's plan run on x on 1, 2 and 3 threads (3 stays set): the first
   count whose obytes of output differ from one thread's (y1), or 0 */
static int threads_differ(const nla_fft_desc *d, const void *x, size_t obytes, void *y1,
                          void *yt)
{
    int bad = 0;
    for (int nt = 1; nt <= 3; nt++) {
        nla_fft_plan *pl;
        nla_context_set_threads(ctx, nt);
        pl = fc_plan_desc(ctx, d);
        cr_assert_eq(nla_fft_execute(pl, x, nt == 1 ? y1 : yt), NLA_OK, "%s",
                     nla_last_error());
        nla_fft_plan_destroy(pl);
        if (nt > 1 && !bad && memcmp(y1, yt, obytes) != 0)
            bad = nt;
    }
    return bad;
}

/* Columns that fill their rows (a C2C batch, istride == howmany, idist
   == 1): a one-thread plan's passes across the whole array give the bits
   of the gathered blocks that two and three threads take.  Compared on
   the hardware only: valgrind's emulation of the vector code does not
   keep each of its roundings (there 19 columns of 64 in AVX2 gave other
   bits on two threads), so under it the plans only run. */
static void cols_bits(void)
{
    const int compare = !getenv("NLA_UNDER_VALGRIND");
    static const int64_t shapes[][2] = { { 256, 129 }, { 64, 19 }, { 60, 7 }, { 12, 5 },
                                         { 1000, 9 }, { 136, 9 } };
    for (int pi = 0; pi < 2; pi++)
        for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
            const nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
            const int64_t n = shapes[i][0], hm = shapes[i][1];
            const size_t bytes = 2 * (size_t)(n * hm) * fc_rsz(p);
            void *x = fc_rand_real(p, 2 * (size_t)(n * hm), 90 + i, NULL);
            void *y1 = malloc(bytes), *yt = malloc(bytes);
            nla_fft_desc d = fc_desc_of(NLA_FFT_C2C, p, i % 2 ? 1 : -1, n);
            cr_assert(y1 && yt);
            d.howmany = hm;
            d.istride = d.ostride = hm;
            d.idist = d.odist = 1;
            int bad = threads_differ(&d, x, bytes, y1, yt);
            cr_expect(bad == 0 || !compare, "%s %lld columns of %lld: %d threads differ "
                      "from one", pi ? "float" : "double", (long long)hm, (long long)n, bad);
            free(x);
            free(y1);
            free(yt);
        }
    nla_context_set_threads(ctx, 0);
}

static void every_real(int64_t nmax)
{
    for (int pi = 0; pi < 2; pi++)
        for (int64_t n = 1; n <= nmax; n++)
            fc_real_check(ctx, pi ? NLA_FLOAT : NLA_DOUBLE, n, fc_smooth(n) ? 2.0 : 10.0);
}

/* One transform past NLA_FFT_THREADS_MIN_N (2^18) on 1, 2 and 3 threads:
   each step is shared so that every vector holds what it holds on one
   thread, so the bits are the same; and the result is the DFT (the first
   case only with NLA_TEST_SMALL). */
struct thr_case { nla_fft_kind k; nla_precision p; int64_t n; };

static void threads_check(const struct thr_case *cases, size_t nc);

/* Stockham passes (a 64 MiB L2): lane and broadcast passes, broadcast
   passes whose s is not a multiple of 8 (5^8), mixed radices, the generic
   pass (17*2^14), floats, and
   both real transforms (their real step inside a pass at this size) */
#define STOCK_CACHES "48K,64M,1G"
static void stockham_threads(void)
{
    static const struct thr_case cases[] = {
        { NLA_FFT_C2C, NLA_DOUBLE, 1 << 18 }, { NLA_FFT_C2C, NLA_DOUBLE, 390625 },
        { NLA_FFT_C2C, NLA_DOUBLE, 300000 }, { NLA_FFT_C2C, NLA_FLOAT, 1 << 19 },
        { NLA_FFT_C2C, NLA_DOUBLE, 17 << 14 },
        { NLA_FFT_R2C, NLA_DOUBLE, 1 << 19 }, { NLA_FFT_C2R, NLA_DOUBLE, 1 << 19 } };
    threads_check(cases, sizeof cases / sizeof *cases);
}

/* The DIT core (a 512 KiB L2): d32 for 2^18 double, 2^19 float and the
   real transforms' 2^18, whose rows are decimated by 8 in turn (R2C with
   its real step inside the columns, C2R with its pairs in blocks before
   the core) */
#define DIT_CACHES "48K,512K,1G"
static void dit_threads(void)
{
    static const struct thr_case cases[] = {
        { NLA_FFT_C2C, NLA_DOUBLE, 1 << 18 }, { NLA_FFT_C2C, NLA_FLOAT, 1 << 19 },
        { NLA_FFT_R2C, NLA_DOUBLE, 1 << 19 }, { NLA_FFT_C2R, NLA_DOUBLE, 1 << 19 } };
    cr_assert_eq(nla_cpu_config_value("l2"), 512 * 1024);
    threads_check(cases, sizeof cases / sizeof *cases);
}

static void threads_check(const struct thr_case *cases, size_t nc)
{
    for (size_t i = 0; i < nc; i++) {
        const nla_precision p = cases[i].p;
        const int64_t n = cases[i].n;
        const size_t obytes = (size_t)(cases[i].k == NLA_FFT_C2C ? 2 * n
                                       : cases[i].k == NLA_FFT_R2C ? 2 * (n / 2 + 1) : n) *
                              fc_rsz(p);
        void *x = fc_rand_real(p, 2 * (size_t)n, 40 + i, NULL);
        void *y1 = malloc(obytes), *yt = malloc(obytes);
        nla_fft_desc d = fc_desc_of(cases[i].k, p, NLA_FFT_FORWARD, n);
        cr_assert(y1 && yt);
        int bad = threads_differ(&d, x, obytes, y1, yt);
        cr_expect(bad == 0, "%s %s n=%lld: %d threads differ from one",
                  cases[i].k == NLA_FFT_C2C ? "c2c" : cases[i].k == NLA_FFT_R2C ? "r2c" : "c2r",
                  p == NLA_FLOAT ? "float" : "double", (long long)n, bad);
        /* nt = 3 still set: the result against fftw3l */
        if (i > 0 && ref_test_small()) {
        } else if (cases[i].k == NLA_FFT_C2C) {
            double e = fc_c2c_err(ctx, p, -1, n, 0);
            cr_expect(e <= 2.0, "n=%lld on 3 threads: error %.3g eps*log2(n) > 2",
                      (long long)n, e);
        } else {
            fc_real_check(ctx, p, n, 2.0);
        }
        free(x);
        free(y1);
        free(yt);
    }
}

#define ISA_SUITE(isa)                                                         \
    static void init_##isa(void) { use_isa(#isa, NULL); }                      \
    static void init_##isa##_stock(void) { use_isa(#isa, STOCK_CACHES); }      \
    static void init_##isa##_dit(void) { use_isa(#isa, DIT_CACHES); }          \
    TestSuite(fft_##isa, .init = init_##isa, .fini = teardown);                \
    Test(fft_##isa, c2c_every_n)                                               \
    {                                                                          \
        need_isa(#isa);                                                        \
        every_c2c(REF_SIZE(300, 72));                                          \
    }                                                                          \
    Test(fft_##isa, c2c_batches)                                               \
    {                                                                          \
        need_isa(#isa);                                                        \
        batches();                                                             \
        cols_bits();                                                           \
    }                                                                          \
    Test(fft_##isa, real_every_n)                                              \
    {                                                                          \
        need_isa(#isa);                                                        \
        every_real(REF_SIZE(200, 40));                                         \
    }                                                                          \
    Test(fft_threads_##isa, stockham, .init = init_##isa##_stock,             \
         .fini = teardown)                                                     \
    {                                                                          \
        need_isa(#isa);                                                        \
        stockham_threads();                                                    \
    }                                                                          \
    Test(fft_threads_##isa, dit, .init = init_##isa##_dit, .fini = teardown)   \
    {                                                                          \
        need_isa(#isa);                                                        \
        dit_threads();                                                         \
    }

ISA_SUITE(generic)
ISA_SUITE(avx2)
ISA_SUITE(avx512)
