/*
 * test_upper_state.c - every public compute routine returns to its caller
 * with the upper halves of the vector registers clean (x86-64).
 *
 * The AVX2 and AVX-512 kernels must end in a vzeroupper before code that
 * may use legacy SSE runs: otherwise each SSE instruction of the caller
 * waits on the dirty upper state (on the Zen 5 development machine a plain
 * SSE2 triad after a gbmv with kl = 1 read 21 GB/s against 28-34 after a
 * clean return).  The compiler normally inserts it; GCC 12 left it out of
 * the narrow-band gbmv.  This checks the state itself: the caller clears
 * it, calls a routine, and reads XINUSE (XGETBV with ECX = 1), whose bits 2
 * (the upper halves of YMM0-15) and 6 (the upper halves of ZMM0-15) must
 * be clear.  Each kernel table runs in its own test process (NLA_CPU_ISA),
 * with the host's tuning profile, on one thread and on two (the calling
 * thread runs a share of the team), over shapes that reach the band forms
 * by width, padded and not, the increments, beta 0 and 1, gemv's cached
 * and uncached forms, gemm's blocked and small paths, and the FFT's
 * radix-2, Bluestein and real transforms.  Not reached: the other
 * profiles' forms (the zen3 streams) and Trans bands over 32 MiB.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "nla.h"
#include "refs.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define HAVE_XINUSE_CHECK 1

/* bits of XINUSE: the upper halves of YMM0-15 and of ZMM0-15 */
#define DIRTY_UPPER ((1u << 2) | (1u << 6))

static uint64_t xgetbv(unsigned idx)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(idx) : "memory");
    return (uint64_t)hi << 32 | lo;
}

/* AVX with the OS saving the YMM state (XCR0 bits 1 and 2), and XGETBV
   with ECX = 1 */
static int xgetbv1_supported(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
        return 0;
    if ((xgetbv(0) & 6) != 6 || __get_cpuid_max(0, NULL) < 0xd)
        return 0;
    __cpuid_count(0xd, 1, a, b, c, d);
    return (a >> 2) & 1;
}

static uint64_t xinuse(void)
{
    return xgetbv(1);
}

/* vzeroupper, written out: this file is compiled for the baseline ISA,
   and the instruction runs only where the OS keeps the YMM state
   (xgetbv1_supported) */
static void clear_upper(void)
{
    __asm__ volatile("vzeroupper" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
                     "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
                     "xmm14", "xmm15");
}
#else
#define HAVE_XINUSE_CHECK 0
#endif

static nla_context *ctx;

static void isa_force(const char *isa)
{
    setenv("NLA_CPU_ISA", isa, 1);
}
static void isa_avx2(void) { isa_force("avx2"); }
static void isa_avx512(void) { isa_force("avx512"); }

static void start(const char *isa)
{
#if HAVE_XINUSE_CHECK
    if (getenv("NLA_UNDER_VALGRIND"))
        cr_skip_test("under valgrind: its CPU model does not keep the vector upper state");
    if (!xgetbv1_supported())
        cr_skip_test("the CPU cannot report XINUSE (XGETBV with ECX = 1)");
    cr_assert_eq(nla_context_create(&ctx, NLA_BACKEND_CPU), NLA_OK);
    if (strcmp(nla_cpu_isa(), isa) != 0)
        cr_skip_test("kernel table %s not available: %s", isa, nla_cpu_isa_reason());
#else
    (void)isa;
    cr_skip_test("not x86-64: no vector upper state to check");
#endif
}

static void finish(void)
{
    nla_context_destroy(ctx);
    ctx = NULL;
}

#if HAVE_XINUSE_CHECK
/* Runs CALL from a clean state and asserts that it returned NLA_OK with
   the upper state still clean (the FFT reports through nla_last_error). */
#define CHECK_CLEAN(CALL, ...)                                                 \
    do {                                                                       \
        nla_status st_;                                                        \
        uint64_t u_;                                                           \
        clear_upper();                                                         \
        st_ = (CALL);                                                          \
        u_ = xinuse();                                                         \
        cr_assert_eq(st_, NLA_OK, "%s / %s", nla_context_error(ctx),           \
                     nla_last_error());                                        \
        cr_assert_eq(u_ & DIRTY_UPPER, 0,                                      \
                     "upper vector state left dirty by " __VA_ARGS__);           \
    } while (0)
#else
#define CHECK_CLEAN(CALL, ...) cr_assert_eq((CALL), NLA_OK)
#endif

static void level2_pass(void)
{
    enum { N = 700, M = 650 };
    static const int64_t kls[] = { 0, 1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 40, 64, 200 };
    static const int64_t incs[][2] = { { 1, 1 }, { 2, -1 }, { -2, 3 } };
    static const double betas[] = { 0.5, 0, 1 };
    double *a = malloc(sizeof(double) * M * N), *x = malloc(sizeof(double) * 3 * N);
    double *y = malloc(sizeof(double) * 3 * N);
    float *fa = malloc(sizeof(float) * M * N), *fx = malloc(sizeof(float) * 3 * N);
    float *fy = malloc(sizeof(float) * 3 * N);

    cr_assert(a && x && y && fa && fx && fy);
    ref_fill(a, (size_t)M * N, 1);
    ref_fill(x, 3 * N, 2);
    ref_fill(y, 3 * N, 3);
    for (int64_t i = 0; i < (int64_t)M * N; i++)
        fa[i] = (float)a[i];
    for (int64_t i = 0; i < 3 * N; i++) {
        fx[i] = (float)x[i];
        fy[i] = (float)y[i];
    }
    for (int tr = 0; tr < 2; tr++) {
        nla_trans t = tr ? NLA_TRANS : NLA_NO_TRANS;
        for (int s = 0; s < 3; s++)
            for (int b = 0; b < 3; b++) {
                int64_t ix = incs[s][0], iy = incs[s][1];
                double be = betas[b];
                for (size_t k = 0; k < sizeof kls / sizeof kls[0]; k++) {
                    int64_t kl = kls[k], ku = kls[k] > 1 ? kls[k] - 1 : kls[k];
                    CHECK_CLEAN(nla_dgbmv(ctx, t, M, N, kl, ku, 0.7, a, kl + ku + 1, x, ix, be,
                                          y, iy),
                                "dgbmv %c kl=%lld ku=%lld incx=%lld beta=%g",
                                (char)t, (long long)kl,
                                (long long)ku, (long long)ix, be);
                    CHECK_CLEAN(nla_sgbmv(ctx, t, M, N, kl, ku, 0.7f, fa, kl + ku + 1, fx, ix,
                                          (float)be, fy, iy),
                                "sgbmv %c kl=%lld ku=%lld incx=%lld beta=%g",
                                (char)t, (long long)kl,
                                (long long)ku, (long long)ix, be);
                    /* padded storage: the unpadded narrow-band forms do not apply */
                    CHECK_CLEAN(nla_dgbmv(ctx, t, M, N, kl, ku, 0.7, a, kl + ku + 2, x, ix, be,
                                          y, iy),
                                "dgbmv %c kl=%lld ldab=w+1", (char)t,
                                (long long)kl);
                }
                CHECK_CLEAN(nla_dgemv(ctx, t, M, N, 0.7, a, M, x, ix, be, y, iy),
                            "dgemv %c incx=%lld beta=%g", (char)t,
                            (long long)ix, be);
                CHECK_CLEAN(nla_sgemv(ctx, t, M, N, 0.7f, fa, M, fx, ix, (float)be, fy, iy),
                            "sgemv %c incx=%lld beta=%g", (char)t,
                            (long long)ix, be);
                CHECK_CLEAN(nla_dgemv(ctx, t, 37, 29, 0.7, a, 40, x, ix, be, y, iy),
                            "dgemv %c 37x29", (char)t);
                CHECK_CLEAN(nla_sgemv(ctx, t, 37, 29, 0.7f, fa, 40, fx, ix, (float)be, fy, iy),
                            "sgemv %c 37x29", (char)t);
                if (tr == 0) {
                    for (int ul = 0; ul < 2; ul++) {
                        nla_uplo u = ul ? NLA_LOWER : NLA_UPPER;
                        CHECK_CLEAN(nla_dspmv(ctx, u, N, 0.7, a, x, ix, be, y, iy),
                                    "dspmv %c incx=%lld beta=%g",
                                    (char)u, (long long)ix, be);
                        CHECK_CLEAN(nla_sspmv(ctx, u, N, 0.7f, fa, fx, ix, (float)be, fy, iy),
                                    "sspmv %c incx=%lld beta=%g",
                                    (char)u, (long long)ix, be);
                        CHECK_CLEAN(nla_dspmv(ctx, u, 13, 0.7, a, x, ix, be, y, iy),
                                    "dspmv %c n=13", (char)u);
                    }
                }
            }
    }
    free(a);
    free(x);
    free(y);
    free(fa);
    free(fx);
    free(fy);
}

/* the band, dense and packed routines on one thread and on two, and a
   gemv too large for its cached form (more than 12 MiB) */
static void level2(void)
{
    enum { GN = 1400 };
    double *a = malloc(sizeof(double) * GN * GN), *x = malloc(sizeof(double) * GN);
    double *y = malloc(sizeof(double) * GN);

    cr_assert(a && x && y);
    ref_fill(a, (size_t)GN * GN, 11);
    ref_fill(x, GN, 12);
    ref_fill(y, GN, 13);
    for (int t = 1; t <= 2; t++) {
        cr_assert_eq(nla_context_set_threads(ctx, t), NLA_OK);
        level2_pass();
        for (int tr = 0; tr < 2; tr++)
            CHECK_CLEAN(nla_dgemv(ctx, tr ? NLA_TRANS : NLA_NO_TRANS, GN, GN, 0.7, a, GN, x, 1,
                                  0.5, y, 1),
                        "dgemv %d x %d, %d threads", GN, GN, t);
    }
    free(a);
    free(x);
    free(y);
}

static void gemm(void)
{
    static const int64_t dims[][3] = { { 1, 1, 1 },     { 7, 5, 3 },     { 64, 64, 64 },
                                       { 200, 130, 90 }, { 300, 300, 300 }, { 517, 33, 700 },
                                       { 33, 517, 700 } };
    size_t len = 700 * 700;
    double *a = malloc(sizeof(double) * len), *b = malloc(sizeof(double) * len);
    double *c = malloc(sizeof(double) * len * 2);
    float *fa = malloc(sizeof(float) * len), *fb = malloc(sizeof(float) * len);
    float *fc = malloc(sizeof(float) * len * 2);

    cr_assert(a && b && c && fa && fb && fc);
    ref_fill(a, len, 4);
    ref_fill(b, len, 5);
    ref_fill(c, len * 2, 6);
    for (size_t i = 0; i < len; i++) {
        fa[i] = (float)a[i];
        fb[i] = (float)b[i];
    }
    for (size_t i = 0; i < 2 * len; i++)
        fc[i] = (float)c[i];
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int lay = 0; lay < 2; lay++) {
                    int64_t m = dims[d][0], n = dims[d][1], k = dims[d][2];
                    nla_layout l = lay ? NLA_ROW_MAJOR : NLA_COL_MAJOR;
                    nla_trans opa = ta ? NLA_TRANS : NLA_NO_TRANS;
                    nla_trans opb = tb ? NLA_TRANS : NLA_NO_TRANS;
                    /* leading dimensions big enough for every orientation */
                    int64_t ld = 700, ldc = 520;
                    CHECK_CLEAN(nla_dgemm(ctx, l, opa, opb, m, n, k, 0.5, a, ld, b, ld,
                                          d % 2 ? 0.0 : 0.25, c, ldc),
                                "dgemm %lldx%lldx%lld %c%c %c",
                                (long long)m, (long long)n, (long long)k, (char)opa, (char)opb,
                                (char)l);
                    CHECK_CLEAN(nla_sgemm(ctx, l, opa, opb, m, n, k, 0.5f, fa, ld, fb, ld,
                                          d % 2 ? 0.0f : 0.25f, fc, ldc),
                                "sgemm %lldx%lldx%lld %c%c %c",
                                (long long)m, (long long)n, (long long)k, (char)opa, (char)opb,
                                (char)l);
                }
    CHECK_CLEAN(nla_dgemm_strided_batched(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_TRANS, 40, 30,
                                          20, 1.0, a, 40, 800, b, 30, 600, 0.5, c, 40, 1200,
                                          5),
                "dgemm_strided_batched");
    CHECK_CLEAN(nla_sgemm_strided_batched(ctx, NLA_COL_MAJOR, NLA_TRANS, NLA_NO_TRANS, 40, 30,
                                          20, 1.0f, fa, 20, 800, fb, 20, 0, 0.5f, fc, 40, 1200,
                                          5),
                "sgemm_strided_batched");
    free(a);
    free(b);
    free(c);
    free(fa);
    free(fb);
    free(fc);
}

static void fft(void)
{
    static const int64_t ns[] = { 1, 2, 8, 64, 1000, 1009, 4096, 1 << 15, 100000 };
    size_t cap = 2 * 4 * ((size_t)1 << 17);
    double *in = calloc(cap, sizeof(double)), *out = calloc(cap, sizeof(double));
    float *fin = calloc(cap, sizeof(float));

    cr_assert(in && out && fin);
    ref_fill(in, cap / 2, 7);
    ref_fillf(fin, cap / 2, 7);
    for (size_t q = 0; q < sizeof ns / sizeof ns[0]; q++)
        for (int prec = 0; prec < 2; prec++)
            for (int kind = 0; kind < 3; kind++)
                for (int batch = 1; batch <= 3; batch += 2) {
                    nla_fft_desc d = { 0 };
                    nla_fft_plan *p = NULL;
                    d.kind = kind == 0 ? NLA_FFT_C2C : kind == 1 ? NLA_FFT_R2C : NLA_FFT_C2R;
                    d.precision = prec ? NLA_FLOAT : NLA_DOUBLE;
                    d.direction = NLA_FFT_FORWARD;
                    d.n = ns[q];
                    d.howmany = ns[q] > 5000 ? 1 : batch;
                    cr_assert_eq(nla_fft_plan_create(ctx, &d, &p), NLA_OK, "%s",
                                 nla_context_error(ctx));
                    CHECK_CLEAN(nla_fft_execute(p, prec ? (const void *)fin : in, out),
                                "fft kind %d %s n=%lld x%lld",
                                kind, prec ? "s" : "d",
                                (long long)ns[q], (long long)d.howmany);
                    nla_fft_plan_destroy(p);
                }
    free(in);
    free(out);
    free(fin);
}

static void fw(void)
{
    enum { M = 60, N = 40, KL = 2, KU = 3 };
    double a[M * N], ab[(KL + KU + 1) * N], b[M], x[N];
    nla_fw_objective *obj = NULL, *objb = NULL;
    nla_fw_set *set = NULL;
    nla_fw_options *opt = NULL;
    nla_fw_result res;

    ref_fill(a, M * N, 8);
    ref_fill(ab, (KL + KU + 1) * N, 9);
    ref_fill(b, M, 10);
    cr_assert_eq(nla_fw_objective_create_lsq(&obj, M, N, a, M, b), NLA_OK);
    cr_assert_eq(nla_fw_objective_create_lsq_band(&objb, M, N, KL, KU, ab, KL + KU + 1, b),
                 NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, N, 1.0), NLA_OK);
    cr_assert_eq(nla_fw_options_create(&opt), NLA_OK);
    /* a loose tolerance: a few steps, ending NLA_OK */
    cr_assert_eq(nla_fw_options_set_tol(opt, 1e-1), NLA_OK);
    cr_assert_eq(nla_fw_options_set_max_iter(opt, 100000), NLA_OK);
    memset(x, 0, sizeof x);
    x[0] = 1;
    CHECK_CLEAN(nla_fw_solve(ctx, obj, set, opt, x, &res), "fw_solve lsq");
    memset(x, 0, sizeof x);
    x[0] = 1;
    CHECK_CLEAN(nla_fw_solve(ctx, objb, set, opt, x, &res), "fw_solve lsq_band");
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(objb);
    nla_fw_objective_destroy(obj);
}

#define UPPER_TESTS(isa)                                                       \
    Test(upper_state_##isa, level2, .init = isa_##isa, .fini = finish)         \
    {                                                                          \
        start(#isa);                                                           \
        level2();                                                              \
    }                                                                          \
    Test(upper_state_##isa, gemm, .init = isa_##isa, .fini = finish)           \
    {                                                                          \
        start(#isa);                                                           \
        gemm();                                                                \
    }                                                                          \
    Test(upper_state_##isa, fft, .init = isa_##isa, .fini = finish)            \
    {                                                                          \
        start(#isa);                                                           \
        fft();                                                                 \
    }                                                                          \
    Test(upper_state_##isa, fw, .init = isa_##isa, .fini = finish)             \
    {                                                                          \
        start(#isa);                                                           \
        fw();                                                                  \
    }

UPPER_TESTS(avx2)
UPPER_TESTS(avx512)
