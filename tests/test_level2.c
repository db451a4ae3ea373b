/*
 * test_level2.c - gemv, gbmv and spmv (s and d) against CBLAS.
 *
 * Every case compares each element of y with cblas_?gemv/gbmv/spmv within
 * |err| <= 4 (k+2) eps (|alpha| sum_j |a_ij x_j| + |beta y_i|), k the inner
 * length, and checks that:
 *   - beta == 0 overwrites a NaN-filled y (the reference gets zeros);
 *   - alpha == 0 reads neither A nor x (both are passed as NULL);
 *   - entries of y between the strided elements are untouched;
 *   - nothing outside the stored band/triangle/rows of A is read (those
 *     entries are NaN);
 *   - results with 1 and 2 threads match CBLAS, and repeated runs with the
 *     same thread count are bitwise identical (gemv and gbmv: also across
 *     thread counts).
 *
 * Calls made from inside a parallel region of the test's own (OpenMP
 * builds) must give the results of the same calls made outside it.
 *
 * Every other test runs once per kernel table (NLA_CPU_ISA=generic, avx2,
 * avx512, set by the test's .init before the library first looks at it;
 * Criterion runs each test in its own process), and the gbmv tests also
 * once per pair of band forms forced by NLA_L2_FORM (rows and diag, cols
 * and dots), each call checked to report the form forced, and the gemv
 * and spmv tests once per forced form (many or few columns a pass); spmv
 * also as chosen with an L3 of 1 MiB (NLA_TUNE_CACHES).  A table the
 * CPU cannot run is skipped, with the reason.  NLA_L2_THREAD_MIN is
 * lowered so that the threads tests' problems are split.  Band widths
 * cover 0, 1, 2, 5, n-1 and more than the matrix.
 *
 * The precision-generic parts are level2_cases.h and level2_threads.h,
 * included once per precision with TT (the type) and TP (its letter)
 * defined.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <criterion/criterion.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "nla.h"
#include "refs.h"

#define SENTINEL 12345.0 /* in y between strided elements */

static const int64_t sizes[] = { 0, 1, 2, 3, 17, 64, 129 };
#define NSIZES (sizeof sizes / sizeof sizes[0])
static const int64_t incs[] = { 1, -1, 2, -2 };
static const double alphas[] = { 0, 1, 0.7 };
/* beta values; the last entry means beta = 0 with NaN in y */
static const double betas[] = { 0, 1, 0.7, -1 };

/* The band form each gbmv call must report (nla_context_last_form), when
   a test forces one; otherwise any "gbmv N" or "gbmv T" form. */
static const char *want_form_n, *want_form_t;
/* gemv's and spmv's forced columns a pass ("many" or "few"), or NULL */
static const char *want_form_gemv;

static void check_form(nla_context *ctx, int trans)
{
    const char *got = nla_context_last_form(ctx);
    const char *want = trans ? want_form_t : want_form_n;

    if (!want)
        want = trans ? "gbmv T " : "gbmv N ";
    cr_assert(strstr(got, want) == got, "gbmv %c ran \"%s\", not \"%s...\"",
              trans ? 'T' : 'N', got, want);
}

/* gemv's: "gemv N axpyf " or "gemv T dotxf ", then the form forced (and
   ": forced") or want, when given */
static void check_gemv_form(nla_context *ctx, int trans, const char *want)
{
    const char *got = nla_context_last_form(ctx);
    char buf[64];

    if (want_form_gemv)
        snprintf(buf, sizeof buf, "gemv %s %s: forced", trans ? "T dotxf" : "N axpyf",
                 want_form_gemv);
    else
        snprintf(buf, sizeof buf, "gemv %s %s", trans ? "T dotxf" : "N axpyf",
                 want ? want : "");
    cr_assert(strstr(got, buf) == got, "gemv %c ran \"%s\", not \"%s...\"",
              trans ? 'T' : 'N', got, buf);
}

/* spmv's: many columns a pass forced, or as chosen, many for a triangle
   over spmv_many_bytes */
static void check_spmv_form(nla_context *ctx, int upper, double bytes)
{
    const char *got = nla_context_last_form(ctx);
    char buf[64];
    double bound = (double)nla_cpu_config_value("spmv_many_bytes");
    int many = bytes > bound;

    snprintf(buf, sizeof buf, "spmv %c %s", upper ? 'U' : 'L',
             want_form_gemv ? want_form_gemv : many ? "many: " : "few: ");
    if (want_form_gemv)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ": forced");
    cr_assert(strstr(got, buf) == got,
              "spmv of a %.0f-byte triangle (spmv_many_bytes %.0f) ran \"%s\", not \"%s...\"",
              bytes, bound, got, buf);
}

/* where element i of a BLAS vector of length len lives */
static size_t at(int64_t len, int64_t inc, int64_t i)
{
    return (size_t)(inc > 0 ? i * inc : (len - 1 - i) * -inc);
}

static size_t vec_size(int64_t len, int64_t inc)
{
    int64_t step = inc < 0 ? -inc : inc;
    /* one extra slot past the end, also a sentinel */
    return len > 0 ? (size_t)((len - 1) * step + 2) : 1;
}

/* entries a band array needs: n columns of ldab, the last one's padding
   left out (gbmv reads no further); at least one, for malloc */
static int64_t band_len(int64_t n, int64_t ldab, int64_t w)
{
    return n > 0 ? (n - 1) * ldab + w : 1;
}

#define TT double
#define TP d
#define T_EPS 0x1p-52
#define T_FILL ref_fill
#define CB(name) cblas_d##name
#include "level2_cases.h"
#include "level2_threads.h"
#undef TT
#undef TP
#undef T_EPS
#undef T_FILL
#undef CB

#define TT float
#define TP s
#define T_EPS 0x1p-23
#define T_FILL ref_fillf
#define CB(name) cblas_s##name
#include "level2_cases.h"
#include "level2_threads.h"
#undef TT
#undef TP
#undef T_EPS
#undef T_FILL
#undef CB

/* ------------------------------------------------------------ the tests */

/* Force a kernel table; the library reads NLA_CPU_ISA once, at its first
   call, which in Criterion's per-test process comes after this. */
static void isa_force(const char *isa)
{
    setenv("NLA_CPU_ISA", isa, 1);
    /* thread every problem of these tests' sizes (the default threshold is
       65536 entries) */
    setenv("NLA_L2_THREAD_MIN", "4096", 1);
}
static void isa_generic(void) { isa_force("generic"); }
static void isa_avx2(void) { isa_force("avx2"); }
static void isa_avx512(void) { isa_force("avx512"); }

static void require_isa(const char *isa)
{
    if (strcmp(nla_cpu_isa(), isa) != 0)
        cr_skip_test("kernel table %s not available: %s", isa, nla_cpu_isa_reason());
}

#define L2_TEST(suite, name, isa, body)                                        \
    Test(suite##_##isa, name, .init = isa_##isa)                               \
    {                                                                          \
        require_isa(#isa);                                                     \
        body();                                                                \
    }

#define L2_TESTS(isa)                                                          \
    L2_TEST(gemv, d_sweep, isa, gemv_sweep_d)                                  \
    L2_TEST(gemv, s_sweep, isa, gemv_sweep_s)                                  \
    L2_TEST(gemv, d_increments, isa, gemv_incs_d)                              \
    L2_TEST(gemv, s_increments, isa, gemv_incs_s)                              \
    L2_TEST(gemv, d_threads, isa, gemv_threads_d)                              \
    L2_TEST(gemv, s_threads, isa, gemv_threads_s)                              \
    L2_TEST(gbmv, d_sweep, isa, gbmv_sweep_d)                                  \
    L2_TEST(gbmv, s_sweep, isa, gbmv_sweep_s)                                  \
    L2_TEST(gbmv, d_increments, isa, gbmv_incs_d)                              \
    L2_TEST(gbmv, s_increments, isa, gbmv_incs_s)                              \
    L2_TEST(gbmv, d_threads, isa, gbmv_threads_d)                              \
    L2_TEST(gbmv, s_threads, isa, gbmv_threads_s)                              \
    L2_TEST(gbmv, d_placement, isa, gbmv_placement_d)                          \
    L2_TEST(gbmv, s_placement, isa, gbmv_placement_s)                          \
    L2_TEST(spmv, d_sweep, isa, spmv_sweep_d)                                  \
    L2_TEST(spmv, s_sweep, isa, spmv_sweep_s)                                  \
    L2_TEST(spmv, d_threads, isa, spmv_threads_d)                              \
    L2_TEST(spmv, s_threads, isa, spmv_threads_s)

L2_TESTS(generic)
L2_TESTS(avx2)
L2_TESTS(avx512)

/* The band tests again with each form forced (NLA_L2_FORM), whatever
   the configuration would choose: the narrow forms (rows, diag) and the
   wide ones (cols, dots) on every width, each call checked to have run
   the form forced. */
#define L2_FORM_TESTS(isa, nf, tf)                                             \
    static void form_##isa##_##nf(void)                                        \
    {                                                                          \
        isa_force(#isa);                                                       \
        setenv("NLA_L2_FORM", #nf "," #tf, 1);                                 \
        want_form_n = "gbmv N " #nf ": forced";                                \
        want_form_t = "gbmv T " #tf ": forced";                                \
    }                                                                          \
    L2_FORM_TEST(isa, nf, d_sweep, gbmv_sweep_d)                               \
    L2_FORM_TEST(isa, nf, s_sweep, gbmv_sweep_s)                               \
    L2_FORM_TEST(isa, nf, d_increments, gbmv_incs_d)                           \
    L2_FORM_TEST(isa, nf, s_increments, gbmv_incs_s)                           \
    L2_FORM_TEST(isa, nf, d_threads, gbmv_threads_d)                           \
    L2_FORM_TEST(isa, nf, s_threads, gbmv_threads_s)                           \
    L2_FORM_TEST(isa, nf, d_placement, gbmv_placement_d)                       \
    L2_FORM_TEST(isa, nf, s_placement, gbmv_placement_s)
#define L2_FORM_TEST(isa, nf, name, body)                                      \
    Test(form_##nf##_##isa, name, .init = form_##isa##_##nf)                   \
    {                                                                          \
        require_isa(#isa);                                                     \
        body();                                                                \
    }
L2_FORM_TESTS(generic, rows, diag)
L2_FORM_TESTS(generic, cols, dots)
L2_FORM_TESTS(avx2, rows, diag)
L2_FORM_TESTS(avx2, cols, dots)
L2_FORM_TESTS(avx512, rows, diag)
L2_FORM_TESTS(avx512, cols, dots)

/* The gemv and spmv tests again with their columns a pass forced (many,
   few), each call checked to have run the form forced (gemv's threads
   tests run both forms as chosen).  Not under valgrind, where many and few
   are one code (it hides AVX-512; the repeats would add a tenth to its
   time). */
#define L2_NOT_UNDER_VALGRIND(what)                                            \
    if (getenv("NLA_UNDER_VALGRIND"))                                          \
        cr_skip_test("%s's forced forms: not under valgrind (no AVX-512 there: " \
                     "many and few are one code)", what)
static void gemv_forced(void)
{
    L2_NOT_UNDER_VALGRIND("gemv");
    gemv_sweep_d();
    gemv_sweep_s();
    gemv_incs_d();
    gemv_incs_s();
}
static void spmv_forced(void)
{
    L2_NOT_UNDER_VALGRIND("spmv");
    spmv_sweep_d();
    spmv_sweep_s();
    spmv_threads_d();
    spmv_threads_s();
}
#define MANY_FEW_TESTS(isa, form)                                              \
    static void form_##isa##_##form(void)                                      \
    {                                                                          \
        isa_force(#isa);                                                       \
        setenv("NLA_L2_FORM", #form, 1);                                       \
        want_form_gemv = #form;                                                \
    }                                                                          \
    L2_FORM_TEST(isa, form, gemv, gemv_forced)                                 \
    L2_FORM_TEST(isa, form, spmv, spmv_forced)
MANY_FEW_TESTS(generic, many)
MANY_FEW_TESTS(generic, few)
MANY_FEW_TESTS(avx2, many)
MANY_FEW_TESTS(avx2, few)
MANY_FEW_TESTS(avx512, many)
MANY_FEW_TESTS(avx512, few)

/* spmv as chosen with an L3 of 1 MiB (a bound of 256 KiB): its threads
   tests' triangles are over spmv_many_bytes, the sweeps' within it (the
   best table; under valgrind, where many and few are one code, the choice
   in double only) */
static void small_l3(void)
{
    setenv("NLA_TUNE_CACHES", "32K,256K,1M", 1);
    setenv("NLA_L2_THREAD_MIN", "4096", 1);
}
Test(spmv_small_l3, chosen, .init = small_l3)
{
    cr_assert(nla_cpu_config_value("spmv_many_bytes") == 1 << 18);
    spmv_threads_d();
    if (getenv("NLA_UNDER_VALGRIND"))
        return;
    spmv_sweep_d();
    spmv_threads_s();
}

#ifdef _OPENMP
/* the threads tests' threshold, so that two-thread contexts split */
static void thread_min(void) { setenv("NLA_L2_THREAD_MIN", "4096", 1); }
Test(openmp, d_inside_callers_region, .init = thread_min, .timeout = 300)
{
    inside_region_d();
}
Test(openmp, s_inside_callers_region, .init = thread_min, .timeout = 300)
{
    inside_region_s();
}
#endif
