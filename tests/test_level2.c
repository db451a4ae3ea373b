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
 * The precision-generic part is this file included into itself with TT
 * (the type) and TP (its letter) defined.
 */
#ifndef TT /* ------------------------------------------------------ outer */

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
#include "test_level2.c"
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
#include "test_level2.c"
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

#else /* ------------------------------------------------- per precision */

/* A case: the routine's dense m x n matrix (for the error bound) and the
   call parameters. */
typedef struct X(l2case) {
    const char *routine;
    int trans;               /* 0 NoTrans, 1 Trans (spmv: 0) */
    int64_t m, n, kl, ku;
    double alpha, beta;
    int nan_y;
    int64_t incx, incy;
    int nt;
    char uplo;               /* spmv */
    int64_t lda;             /* gemv; 0: m + 3 */
    const char *form;        /* gemv: the form it must choose, or NULL */
} X(l2case);

static char X(desc)[256];

static const char *X(describe)(const X(l2case) *c)
{
    snprintf(X(desc), sizeof X(desc),
             "%s%s trans=%c uplo=%c m=%lld n=%lld kl=%lld ku=%lld alpha=%g beta=%g%s "
             "incx=%lld incy=%lld threads=%d",
             PS(TP), c->routine, c->trans ? 'T' : 'N', c->uplo ? c->uplo : '-',
             (long long)c->m, (long long)c->n, (long long)c->kl, (long long)c->ku,
             c->alpha, c->beta, c->nan_y ? "(NaN y)" : "", (long long)c->incx,
             (long long)c->incy, c->nt);
    return X(desc);
}

/* A strided vector: pattern elements random (or NaN), others SENTINEL. */
static TT *X(vec_new)(int64_t len, int64_t inc, uint64_t seed, int nan)
{
    size_t size = vec_size(len, inc);
    TT *v = malloc(size * sizeof(TT));
    TT *tmp = malloc((len > 0 ? (size_t)len : 1) * sizeof(TT));

    cr_assert(v && tmp);
    for (size_t i = 0; i < size; i++)
        v[i] = (TT)SENTINEL;
    T_FILL(tmp, (size_t)len, seed);
    for (int64_t i = 0; i < len; i++)
        v[at(len, inc, i)] = nan ? (TT)NAN : tmp[i];
    free(tmp);
    return v;
}

/*
 * Compare y (from libnla) with yref (from CBLAS), element by element, with
 * the bound from the dense matrix dense (m x n, column-major, op by trans),
 * x and the original y (y0; zeros when beta == 0).
 */
static void X(check_y)(const X(l2case) *c, const double *dense, const TT *x,
                       const TT *y0, const TT *yin, const TT *y, const TT *yref)
{
    int64_t lx = c->trans ? c->m : c->n, ly = c->trans ? c->n : c->m;
    int64_t kin = lx;
    size_t size = vec_size(ly, c->incy);
    double beta = c->nan_y ? 0 : c->beta;

    if (c->m == 0 || c->n == 0) {
        /* the BLAS quick return: y is not touched, NaN included */
        for (size_t p = 0; p < size; p++)
            cr_assert(memcmp(&y[p], &yin[p], sizeof(TT)) == 0,
                      "%s: y slot %zu changed by a quick-return call", X(describe)(c), p);
        return;
    }
    for (int64_t i = 0; i < ly; i++) {
        double mag = fabs(beta * y0[at(ly, c->incy, i)]), tol, got, want;
        for (int64_t l = 0; l < lx && c->alpha != 0; l++) {
            double aij = c->trans ? dense[l + i * c->m] : dense[i + l * c->m];
            mag += fabs(c->alpha * aij * x[at(lx, c->incx, l)]);
        }
        tol = 4.0 * (double)(kin + 2) * T_EPS * mag;
        got = y[at(ly, c->incy, i)];
        want = yref[at(ly, c->incy, i)];
        cr_assert(!isnan(got) && fabs(got - want) <= tol,
                  "%s: y[%lld] = %.17g, CBLAS %.17g, |err| %.3g > tol %.3g",
                  X(describe)(c), (long long)i, got, want, fabs(got - want), tol);
    }
    for (size_t p = 0; p < size; p++) {
        int stride_slot = ly > 0 && p < (size_t)(ly - 1) * (size_t)llabs(c->incy) + 1 &&
                          p % (size_t)llabs(c->incy) == 0;
        if (!stride_slot)
            cr_assert(y[p] == (TT)SENTINEL, "%s: y slot %zu between elements changed to %g",
                      X(describe)(c), p, (double)y[p]);
    }
}

/* y buffers for a case: y (for libnla), yref (CBLAS), y0 (the original,
   zeros for NaN), yin (the original as given, NaN included) */
static void X(make_y)(const X(l2case) *c, int64_t ly, TT **y, TT **yref, TT **y0,
                      TT **yin)
{
    size_t size = vec_size(ly, c->incy);
    *y = X(vec_new)(ly, c->incy, 2000 + (uint64_t)ly, c->nan_y);
    *yref = malloc(size * sizeof(TT));
    *y0 = malloc(size * sizeof(TT));
    *yin = malloc(size * sizeof(TT));
    cr_assert(*yref && *y0 && *yin);
    memcpy(*yin, *y, size * sizeof(TT));
    memcpy(*yref, *y, size * sizeof(TT));
    if (c->nan_y)
        for (int64_t i = 0; i < ly; i++)
            (*yref)[at(ly, c->incy, i)] = 0;
    memcpy(*y0, *yref, size * sizeof(TT));
}

/* ---------------------------------------------------------------- gemv */

static void X(gemv_case)(nla_context *ctx, const X(l2case) *c)
{
    int64_t m = c->m, n = c->n, lda = c->lda ? c->lda : (m > 1 ? m : 1) + 3;
    int64_t lx = c->trans ? m : n, ly = c->trans ? n : m;
    TT *a = malloc((size_t)(lda * (n > 0 ? n : 1)) * sizeof(TT));
    double *dense = malloc((size_t)(m * n + 1) * sizeof(double));
    TT *x = X(vec_new)(lx, c->incx, 1000 + (uint64_t)lx, 0), *y, *yref, *y0, *yin;
    TT beta = (TT)(c->nan_y ? 0 : c->beta), alpha = (TT)c->alpha;
    nla_status st;

    cr_assert(a && dense);
    T_FILL(a, (size_t)(lda * n), 7 + (uint64_t)(m * 131 + n));
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < lda; i++) {
            if (i >= m)
                a[i + j * lda] = (TT)NAN; /* padding is never read */
            else
                dense[i + j * m] = a[i + j * lda];
        }
    X(make_y)(c, ly, &y, &yref, &y0, &yin);
    cr_assert(nla_context_set_threads(ctx, c->nt) == NLA_OK);
    st = NLA(gemv)(ctx, c->trans ? NLA_TRANS : NLA_NO_TRANS, m, n, alpha,
                     c->alpha == 0 ? NULL : a, lda, c->alpha == 0 ? NULL : x, c->incx,
                     beta, y, c->incy);
    cr_assert(st == NLA_OK, "%s: status %d (%s)", X(describe)(c), st,
              nla_context_error(ctx));
    if (c->alpha != 0 && m > 0 && n > 0)
        check_gemv_form(ctx, c->trans, c->form);
    CB(gemv)(CblasColMajor, c->trans ? CblasTrans : CblasNoTrans, (int)m, (int)n, alpha, a,
             (int)lda, x, (int)c->incx, beta, yref, (int)c->incy);
    X(check_y)(c, dense, x, y0, yin, y, yref);
    free(a);
    free(dense);
    free(x);
    free(y);
    free(yref);
    free(y0);
    free(yin);
}

static void X(gemv_sweep)(void)
{
    nla_context *ctx = ref_cpu_context();
    X(l2case) c = { .routine = "gemv", .incx = 1, .incy = 1 };

    for (c.nt = 1; c.nt <= 2; c.nt++)
        for (size_t im = 0; im < NSIZES; im++)
            for (size_t in = 0; in < NSIZES; in++)
                for (c.trans = 0; c.trans < 2; c.trans++)
                    for (size_t ia = 0; ia < 3; ia++)
                        for (size_t ib = 0; ib < 4; ib++) {
                            c.m = sizes[im];
                            c.n = sizes[in];
                            c.alpha = alphas[ia];
                            c.nan_y = betas[ib] < 0;
                            c.beta = c.nan_y ? 0 : betas[ib];
                            X(gemv_case)(ctx, &c);
                        }
    nla_context_destroy(ctx);
}

static void X(gemv_lda)(void);
static void X(gemv_passes)(void);

/* strided and reversed x and y; then the columns a pass chosen by lda */
static void X(gemv_incs)(void)
{
    static const int64_t dims[][2] = { { 1, 1 }, { 3, 2 }, { 17, 64 }, { 129, 3 } };
    nla_context *ctx = ref_cpu_context();
    X(l2case) c = { .routine = "gemv", .nt = 1, .alpha = 0.7 };

    for (size_t d = 0; d < 4; d++)
        for (size_t ix = 0; ix < 4; ix++)
            for (size_t iy = 0; iy < 4; iy++)
                for (c.trans = 0; c.trans < 2; c.trans++)
                    for (c.nan_y = 0; c.nan_y < 2; c.nan_y++) {
                        c.m = dims[d][0];
                        c.n = dims[d][1];
                        c.incx = incs[ix];
                        c.incy = incs[iy];
                        c.beta = c.nan_y ? 0 : 0.7;
                        X(gemv_case)(ctx, &c);
                    }
    nla_context_destroy(ctx);
    X(gemv_passes)();
    if (!want_form_gemv)
        X(gemv_lda)();
}

/* A Trans column's sum has the same bits whichever pass takes it: the
   columns of a 17-column call (a pass of 12 or 4, then 4s, then one)
   against each column alone, one thread */
static void X(gemv_passes)(void)
{
    enum { M = 300, LDA = 303, N = 17 };
    nla_context *ctx = ref_cpu_context();
    TT *a = malloc((size_t)LDA * N * sizeof(TT)), x[M], y[N], y1;

    cr_assert(a);
    T_FILL(a, (size_t)LDA * N, 77);
    T_FILL(x, M, 79);
    cr_assert(nla_context_set_threads(ctx, 1) == NLA_OK);
    cr_assert(NLA(gemv)(ctx, NLA_TRANS, M, N, (TT)0.7, a, LDA, x, 1, 0, y, 1) == NLA_OK);
    for (int64_t j = 0; j < N; j++) {
        cr_assert(NLA(gemv)(ctx, NLA_TRANS, M, 1, (TT)0.7, a + j * LDA, LDA, x, 1, 0, &y1,
                            1) == NLA_OK);
        cr_assert(memcmp(&y1, &y[j], sizeof(TT)) == 0,
                  "%sgemv T column %lld: %a in a 17-column call, %a alone", PS(TP),
                  (long long)j, (double)y[j], (double)y1);
    }
    nla_context_destroy(ctx);
    free(a);
}

/* gemv's columns a pass as chosen: many for a matrix over gemv_many_bytes,
   unless many columns lda apart would share L1 sets (lda * size a multiple
   of 4 KiB: with the AVX-512 table, and with the others' eight NoTrans
   columns); else few */
static void X(gemv_lda)(void)
{
    const int64_t crowd = 4096 / (int64_t)sizeof(TT);
    const int64_t ldas[] = { 303, crowd, 2 * crowd, crowd + 16 };
    const int64_t many = nla_cpu_config_value("gemv_many_bytes");
    int avx512 = !strcmp(nla_cpu_isa(), "avx512");
    nla_context *ctx = ref_cpu_context();
    X(l2case) c = { .routine = "gemv", .nt = 1, .alpha = 0.7, .beta = 0.3, .incx = 1,
                    .incy = 1, .m = 300 };

    /* (valgrind hides AVX-512, and the other tables' many and few passes
       are the same code: only the small matrices there) */
    int bigs = getenv("NLA_UNDER_VALGRIND") ? 1 : 2;

    cr_assert(many > 0);
    for (size_t k = 0; k < sizeof ldas / sizeof ldas[0]; k++)
        for (int big = 0; big < bigs; big++)
            for (c.trans = 0; c.trans < 2; c.trans++) {
                int crowded = ldas[k] % crowd == 0 && (avx512 || !c.trans);
                c.lda = ldas[k];
                /* over gemv_many_bytes, a group of 4 and single columns left;
                   or within it */
                int64_t under = many / (c.m * (int64_t)sizeof(TT));
                c.n = big ? under / 12 * 12 + 19 : under < 41 ? (under > 1 ? under : 1) : 41;
                c.form = big && !crowded ? "many" : "few";
                X(gemv_case)(ctx, &c);
            }
    nla_context_destroy(ctx);
}

/* ---------------------------------------------------------------- gbmv */

static void X(gbmv_case)(nla_context *ctx, const X(l2case) *c)
{
    /* padded storage, or none (the narrow forms' vector path); the array
       ends with the last column's band, not its padding, so that ASan and
       valgrind see any read past the entries that gbmv may read */
    int64_t m = c->m, n = c->n, kl = c->kl, ku = c->ku, ldab = kl + ku + 1 + (m + n) % 2;
    int64_t lx = c->trans ? m : n, ly = c->trans ? n : m;
    int64_t len = band_len(n, ldab, kl + ku + 1);
    TT *ab = malloc((size_t)len * sizeof(TT));
    double *dense = calloc((size_t)(m * n + 1), sizeof(double));
    TT *x = X(vec_new)(lx, c->incx, 1000 + (uint64_t)lx, 0), *y, *yref, *y0, *yin;
    TT beta = (TT)(c->nan_y ? 0 : c->beta), alpha = (TT)c->alpha;
    nla_status st;

    cr_assert(ab && dense);
    T_FILL(ab, (size_t)len, 11 + (uint64_t)(m * 131 + n));
    /* only the band of the m x n matrix is stored: NaN elsewhere */
    for (int64_t j = 0; j < n; j++)
        for (int64_t r = 0; r < ldab && r + j * ldab < len; r++) {
            int64_t i = r - ku + j;
            if (r > kl + ku || i < 0 || i >= m)
                ab[r + j * ldab] = (TT)NAN;
            else
                dense[i + j * m] = ab[r + j * ldab];
        }
    X(make_y)(c, ly, &y, &yref, &y0, &yin);
    cr_assert(nla_context_set_threads(ctx, c->nt) == NLA_OK);
    st = NLA(gbmv)(ctx, c->trans ? NLA_TRANS : NLA_NO_TRANS, m, n, kl, ku, alpha,
                     c->alpha == 0 ? NULL : ab, ldab, c->alpha == 0 ? NULL : x, c->incx,
                     beta, y, c->incy);
    cr_assert(st == NLA_OK, "%s: status %d (%s)", X(describe)(c), st,
              nla_context_error(ctx));
    if (c->alpha != 0 && m > 0 && n > 0)
        check_form(ctx, c->trans);
    CB(gbmv)(CblasColMajor, c->trans ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)kl,
             (int)ku, alpha, ab, (int)ldab, x, (int)c->incx, beta, yref, (int)c->incy);
    X(check_y)(c, dense, x, y0, yin, y, yref);
    free(ab);
    free(dense);
    free(x);
    free(y);
    free(yref);
    free(y0);
    free(yin);
}

/* band widths: 0, 1, 2, 5, n-1 and more than the matrix */
#define NWIDTHS 6
static int64_t X(width)(int w, int64_t n)
{
    static const int64_t fixed[] = { 0, 1, 2, 5 };
    if (w < 4)
        return fixed[w];
    return w == 4 ? (n > 1 ? n - 1 : 0) : n + 2;
}

static void X(gbmv_sweep)(void)
{
    static const int64_t gsizes[] = { 0, 1, 2, 3, 17, 64 };
    nla_context *ctx = ref_cpu_context();
    X(l2case) c = { .routine = "gbmv", .incx = 1, .incy = 1, .nt = 1 };

    for (size_t im = 0; im < 6; im++)
        for (size_t in = 0; in < 6; in++)
            for (int wl = 0; wl < NWIDTHS; wl++)
                for (int wu = 0; wu < NWIDTHS; wu++)
                    for (c.trans = 0; c.trans < 2; c.trans++)
                        for (size_t ia = 0; ia < 3; ia++)
                            for (size_t ib = 0; ib < 4; ib++) {
                                /* every alpha/beta at one band shape, else one */
                                if ((wl != 2 || wu != 1) && (ia != 2 || ib != 2))
                                    continue;
                                c.m = gsizes[im];
                                c.n = gsizes[in];
                                c.kl = X(width)(wl, c.m);
                                c.ku = X(width)(wu, c.n);
                                c.alpha = alphas[ia];
                                c.nan_y = betas[ib] < 0;
                                c.beta = c.nan_y ? 0 : betas[ib];
                                X(gbmv_case)(ctx, &c);
                            }
    /* whole columns between the edges, bands of 9 and more (Trans, AVX2
       and AVX-512: transposed blocks, the remainder gathered (AVX2),
       entry by entry or as one more block, and the aligned vector form),
       unpadded (m+n even) and padded */
    {
        /* (256 with {0, 15}: unpadded, 16 entries a column, so that the
           last vector group ends at the last column, where the loads past
           the band must stop; kl = 0 makes it whole) */
        static const int64_t dims[][2] = { { 300, 300 }, { 300, 257 }, { 257, 300 },
                                           { 256, 256 } };
        /* (AVX-512 float: bands of 9 to 31, and 42, in slabs of 8 rows,
           the last one w mod 8 = 0 to 7 rows) */
        static const int64_t bands[][2] = { { 16, 16 }, { 20, 13 }, { 40, 40 }, { 3, 60 },
                                            { 4, 4 },   { 6, 7 },   { 8, 8 },   { 10, 12 },
                                            { 0, 8 },   { 12, 0 },  { 7, 8 },   { 5, 5 },
                                            { 9, 10 },  { 6, 6 },   { 11, 12 }, { 4, 5 },
                                            { 20, 21 }, { 0, 15 }, { 0, 0 } };
        for (size_t d = 0; d < 4; d++)
            for (size_t b = 0; b < sizeof bands / sizeof bands[0]; b++)
                for (c.trans = 0; c.trans < 2; c.trans++) {
                    c.m = dims[d][0];
                    c.n = dims[d][1];
                    c.kl = bands[b][0];
                    c.ku = bands[b][1];
                    c.alpha = 0.7;
                    /* (the diagonal, {0, 0}, also over a NaN y) */
                    c.nan_y = b == 0 || (c.kl == 0 && c.ku == 0);
                    c.beta = b % 2 && !c.nan_y ? 0.7 : 0;
                    X(gbmv_case)(ctx, &c);
                }
    }
    /* the largest size, fewer shapes */
    c.m = c.n = 129;
    for (int wl = 0; wl < NWIDTHS; wl++)
        for (c.trans = 0; c.trans < 2; c.trans++) {
            c.kl = X(width)(wl, c.m);
            c.ku = X(width)(NWIDTHS - 1 - wl, c.n);
            c.alpha = 0.7;
            c.beta = 0.7;
            c.nan_y = 0;
            X(gbmv_case)(ctx, &c);
        }
    nla_context_destroy(ctx);
}

static void X(gbmv_incs)(void)
{
    static const int64_t dims[][4] = { { 1, 1, 0, 0 }, { 3, 2, 1, 3 }, { 17, 64, 3, 1 },
                                       { 129, 17, 20, 0 } };
    nla_context *ctx = ref_cpu_context();
    X(l2case) c = { .routine = "gbmv", .nt = 1, .alpha = 0.7 };

    for (size_t d = 0; d < 4; d++)
        for (size_t ix = 0; ix < 4; ix++)
            for (size_t iy = 0; iy < 4; iy++)
                for (c.trans = 0; c.trans < 2; c.trans++)
                    for (c.nan_y = 0; c.nan_y < 2; c.nan_y++) {
                        c.m = dims[d][0];
                        c.n = dims[d][1];
                        c.kl = dims[d][2];
                        c.ku = dims[d][3];
                        c.incx = incs[ix];
                        c.incy = incs[iy];
                        c.beta = c.nan_y ? 0 : 0.7;
                        X(gbmv_case)(ctx, &c);
                    }
    nla_context_destroy(ctx);
}

/* ---------------------------------------------------------------- spmv */

static void X(spmv_case)(nla_context *ctx, const X(l2case) *c)
{
    int64_t n = c->n, np = n * (n + 1) / 2;
    int upper = c->uplo == 'U';
    TT *ap = malloc((size_t)(np > 0 ? np : 1) * sizeof(TT));
    double *dense = malloc((size_t)(n * n + 1) * sizeof(double));
    TT *x = X(vec_new)(n, c->incx, 1000 + (uint64_t)n, 0), *y, *yref, *y0, *yin;
    TT beta = (TT)(c->nan_y ? 0 : c->beta), alpha = (TT)c->alpha;
    nla_status st;

    cr_assert(ap && dense);
    T_FILL(ap, (size_t)np, 13 + (uint64_t)n);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            int64_t r = i <= j ? i : j, s = i <= j ? j : i; /* r <= s */
            /* stored entry for (r, s) upper or (s, r) lower */
            dense[i + j * n] = upper ? ap[r + s * (s + 1) / 2]
                                     : ap[s + r * (2 * n - r - 1) / 2];
        }
    X(make_y)(c, n, &y, &yref, &y0, &yin);
    cr_assert(nla_context_set_threads(ctx, c->nt) == NLA_OK);
    st = NLA(spmv)(ctx, upper ? NLA_UPPER : NLA_LOWER, n, alpha,
                     c->alpha == 0 ? NULL : ap, c->alpha == 0 ? NULL : x, c->incx, beta, y,
                     c->incy);
    cr_assert(st == NLA_OK, "%s: status %d (%s)", X(describe)(c), st,
              nla_context_error(ctx));
    if (c->alpha != 0 && n > 0)
        check_spmv_form(ctx, upper, (double)np * sizeof(TT));
    CB(spmv)(CblasColMajor, upper ? CblasUpper : CblasLower, (int)n, alpha, ap, x,
             (int)c->incx, beta, yref, (int)c->incy);
    X(check_y)(c, dense, x, y0, yin, y, yref);
    free(ap);
    free(dense);
    free(x);
    free(y);
    free(yref);
    free(y0);
    free(yin);
}

static void X(spmv_sweep)(void)
{
    nla_context *ctx = ref_cpu_context();
    X(l2case) c = { .routine = "spmv" };

    for (c.nt = 1; c.nt <= 2; c.nt++)
        for (size_t in = 0; in < NSIZES; in++)
            for (int u = 0; u < 2; u++)
                for (size_t ia = 0; ia < 3; ia++)
                    for (size_t ib = 0; ib < 4; ib++)
                        for (size_t ix = 0; ix < 4; ix++)
                            for (size_t iy = 0; iy < 4; iy++) {
                                /* all increments for one alpha/beta */
                                if ((ix || iy) && (ia != 2 || ib != 2))
                                    continue;
                                c.n = c.m = sizes[in];
                                c.uplo = u ? 'L' : 'U';
                                c.alpha = alphas[ia];
                                c.nan_y = betas[ib] < 0;
                                c.beta = c.nan_y ? 0 : betas[ib];
                                c.incx = incs[ix];
                                c.incy = incs[iy];
                                X(spmv_case)(ctx, &c);
                            }
    nla_context_destroy(ctx);
}

/* ------------------------------------------------------- threads, large */

/* Run routine r on a problem big enough to be threaded, with 1 and 2
   threads, twice each: each against CBLAS, and the repeats bitwise. */
typedef void (*X(runner))(nla_context *ctx, const X(l2case) *c, TT *y);

static void X(run_gemv)(nla_context *ctx, const X(l2case) *c, TT *y)
{
    int64_t lda = c->m + 1;
    int64_t lx = c->trans ? c->m : c->n;
    TT *a = malloc((size_t)(lda * c->n) * sizeof(TT));
    TT *x = X(vec_new)(lx, c->incx, 5, 0);
    cr_assert(a);
    T_FILL(a, (size_t)(lda * c->n), 17);
    cr_assert(NLA(gemv)(ctx, c->trans ? NLA_TRANS : NLA_NO_TRANS, c->m, c->n,
                          (TT)c->alpha, a, lda, x, c->incx, (TT)c->beta, y, c->incy) ==
              NLA_OK);
    check_gemv_form(ctx, c->trans, NULL);
    free(a);
    free(x);
}

static void X(run_gbmv)(nla_context *ctx, const X(l2case) *c, TT *y)
{
    int64_t ldab = c->kl + c->ku + 1;
    int64_t lx = c->trans ? c->m : c->n, len = band_len(c->n, ldab, ldab);
    TT *ab = malloc((size_t)len * sizeof(TT));
    TT *x = X(vec_new)(lx, c->incx, 5, 0);
    cr_assert(ab);
    T_FILL(ab, (size_t)len, 19);
    cr_assert(NLA(gbmv)(ctx, c->trans ? NLA_TRANS : NLA_NO_TRANS, c->m, c->n, c->kl,
                          c->ku, (TT)c->alpha, ab, ldab, x, c->incx, (TT)c->beta, y,
                          c->incy) == NLA_OK);
    check_form(ctx, c->trans);
    free(ab);
    free(x);
}

static void X(run_spmv)(nla_context *ctx, const X(l2case) *c, TT *y)
{
    int64_t np = c->n * (c->n + 1) / 2;
    TT *ap = malloc((size_t)np * sizeof(TT));
    TT *x = X(vec_new)(c->n, c->incx, 5, 0);
    cr_assert(ap);
    T_FILL(ap, (size_t)np, 23);
    cr_assert(NLA(spmv)(ctx, c->uplo == 'U' ? NLA_UPPER : NLA_LOWER, c->n, (TT)c->alpha,
                          ap, x, c->incx, (TT)c->beta, y, c->incy) == NLA_OK);
    check_spmv_form(ctx, c->uplo == 'U', (double)np * sizeof(TT));
    free(ap);
    free(x);
}

/* the CBLAS result for the same data as the runners */
static void X(run_ref)(const X(l2case) *c, TT *y)
{
    int64_t lx = c->trans ? c->m : c->n;
    TT *x = X(vec_new)(lx, c->incx, 5, 0);
    enum CBLAS_TRANSPOSE tr = c->trans ? CblasTrans : CblasNoTrans;

    if (c->routine[1] == 'e') { /* gemv */
        int64_t lda = c->m + 1;
        TT *a = malloc((size_t)(lda * c->n) * sizeof(TT));
        T_FILL(a, (size_t)(lda * c->n), 17);
        CB(gemv)(CblasColMajor, tr, (int)c->m, (int)c->n, (TT)c->alpha, a, (int)lda, x,
                 (int)c->incx, (TT)c->beta, y, (int)c->incy);
        free(a);
    } else if (c->routine[1] == 'b') { /* gbmv */
        int64_t ldab = c->kl + c->ku + 1;
        TT *ab = malloc((size_t)(ldab * c->n) * sizeof(TT));
        T_FILL(ab, (size_t)(ldab * c->n), 19);
        CB(gbmv)(CblasColMajor, tr, (int)c->m, (int)c->n, (int)c->kl, (int)c->ku,
                 (TT)c->alpha, ab, (int)ldab, x, (int)c->incx, (TT)c->beta, y,
                 (int)c->incy);
        free(ab);
    } else {
        int64_t np = c->n * (c->n + 1) / 2;
        TT *ap = malloc((size_t)np * sizeof(TT));
        T_FILL(ap, (size_t)np, 23);
        CB(spmv)(CblasColMajor, c->uplo == 'U' ? CblasUpper : CblasLower, (int)c->n,
                 (TT)c->alpha, ap, x, (int)c->incx, (TT)c->beta, y, (int)c->incy);
        free(ap);
    }
    free(x);
}

static void X(threads_case)(X(runner) run, X(l2case) *c)
{
    nla_context *ctx = ref_cpu_context();
    int64_t ly = c->trans ? c->n : c->m;
    size_t size = vec_size(ly, c->incy);
    /* inner length for the bound: band width for gbmv, else the dimension */
    int64_t kin = c->routine[1] == 'b' ? c->kl + c->ku + 1 : (c->trans ? c->m : c->n);
    TT *yref = X(vec_new)(ly, c->incy, 3, 0), *y[2][2];

    X(run_ref)(c, yref);
    for (c->nt = 1; c->nt <= 2; c->nt++)
        for (int rep = 0; rep < 2; rep++) {
            y[c->nt - 1][rep] = X(vec_new)(ly, c->incy, 3, 0);
            cr_assert(nla_context_set_threads(ctx, c->nt) == NLA_OK);
            run(ctx, c, y[c->nt - 1][rep]);
        }
    /* gemv and gbmv fix each sum's order by the shape alone */
    c->nt = 2; /* (for the message) */
    if (c->routine[1] != 'p')
        cr_assert(memcmp(y[0][0], y[1][0], size * sizeof(TT)) == 0,
                  "%s: 1 and 2 threads give different bits", X(describe)(c));
    for (int t = 0; t < 2; t++) {
        c->nt = t + 1;
        cr_assert(memcmp(y[t][0], y[t][1], size * sizeof(TT)) == 0,
                  "%s: two runs differ", X(describe)(c));
        /* entries are sums of |values| < 1: the bound uses kin as magnitude */
        for (int64_t i = 0; i < ly; i++) {
            double got = y[t][0][at(ly, c->incy, i)], want = yref[at(ly, c->incy, i)];
            double tol = 4.0 * (double)(kin + 2) * T_EPS * (double)(kin + 1);
            cr_assert(fabs(got - want) <= tol, "%s: y[%lld] = %.17g, CBLAS %.17g",
                      X(describe)(c), (long long)i, got, want);
        }
    }
    for (int t = 0; t < 2; t++)
        for (int rep = 0; rep < 2; rep++)
            free(y[t][rep]);
    free(yref);
    nla_context_destroy(ctx);
}

static void X(gemv_threads)(void)
{
    /* column counts that leave groups of four and single columns after
       the passes of 12 or 8 (700, 1300, 301) and single ones only (1850);
       the 200 x 301 matrix takes few columns a pass (within an L2 of 256
       KiB or more), the others many (over it, on an L2 of 1 MiB).  Small
       (valgrind, which hides AVX-512: there many and few are one code),
       290 for the big one: single columns left too */
    const int64_t big = REF_SIZE(sizeof(TT) == 8 ? 1300 : 1850, 290);
    const int64_t dims[3][2] = { { 900, 700 }, { big, big }, { 200, 301 } };
    X(l2case) c = { .routine = "gemv", .alpha = 0.7, .beta = 0.3 };
    for (int d = 0; d < 3; d++)
        for (c.trans = 0; c.trans < 2; c.trans++) {
            c.m = dims[d][0];
            c.n = dims[d][1];
            c.incx = 1;
            c.incy = 1;
            X(threads_case)(X(run_gemv), &c);
            c.incx = -2;
            c.incy = 2;
            X(threads_case)(X(run_gemv), &c);
        }
}

static void X(gbmv_threads)(void)
{
    /* narrow and wide bands (some ku odd, so that the four-column groups
       of Trans fall differently in the 1- and 2-thread blocks), unpadded,
       and a diagonal (by vectors, m != n, a tail past the last whole
       vector): one and two threads must agree bit for bit */
    static const int64_t shapes[][4] = { { 20000, 19000, 9, 5 }, { 60000, 60003, 1, 2 },
                                         { 3001, 3500, 70, 41 }, { 4000, 3000, 40, 23 },
                                         { 5000, 4002, 8, 8 },   { 6000, 6001, 16, 16 },
                                         { 9000, 9001, 4, 4 },   { 7000, 7001, 7, 6 },
                                         { 7000, 7003, 14, 14 }, { 30001, 30003, 0, 0 } };
    X(l2case) c = { .routine = "gbmv", .alpha = 0.7, .beta = 0.3 };
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++)
        for (c.trans = 0; c.trans < 2; c.trans++) {
            c.m = shapes[s][0];
            c.n = shapes[s][1];
            c.kl = shapes[s][2];
            c.ku = shapes[s][3];
            c.incx = 1;
            c.incy = 1;
            c.beta = 0.3;
            X(threads_case)(X(run_gbmv), &c);
            /* beta 1 and 0 start y's sums differently: every form alike */
            c.incx = 2;
            c.incy = -1;
            for (int b1 = 0; b1 < 2; b1++) {
                c.beta = b1;
                X(threads_case)(X(run_gbmv), &c);
            }
        }
}

/* The same band, x and y copied to every offset of a vector's width from
   a 64-byte boundary: the result's bits may not depend on where the
   arrays lie (the Trans kernel for wide bands loads the storage on its
   aligned vectors). */
static void X(gbmv_placement)(void)
{
    static const int64_t shapes[][4] = { { 3000, 3000, 16, 16 }, { 2000, 2100, 64, 64 },
                                         { 2500, 2400, 40, 23 }, { 3000, 2900, 9, 5 } };
    nla_context *ctx = ref_cpu_context();

    for (int s = 0; s < 4; s++)
        for (int trans = 0; trans < 2; trans++) {
            int64_t m = shapes[s][0], n = shapes[s][1], kl = shapes[s][2], ku = shapes[s][3];
            int64_t ldab = kl + ku + 1, lx = trans ? m : n, ly = trans ? n : m;
            size_t nab = (size_t)(ldab * n), pad = 64 / sizeof(TT);
            TT *ab0 = malloc(nab * sizeof(TT)), *x0 = malloc((size_t)lx * sizeof(TT));
            TT *y0 = malloc((size_t)ly * sizeof(TT)), *yref = malloc((size_t)ly * sizeof(TT));
            /* sizes in whole 64-byte lines, as aligned_alloc requires */
            TT *ab = aligned_alloc(64, (nab + 2 * pad) / pad * 64);
            TT *x = aligned_alloc(64, ((size_t)lx + 2 * pad) / pad * 64);
            TT *y = aligned_alloc(64, ((size_t)ly + 2 * pad) / pad * 64);

            cr_assert(ab0 && x0 && y0 && yref && ab && x && y);
            T_FILL(ab0, nab, 29 + (uint64_t)s);
            T_FILL(x0, (size_t)lx, 31);
            T_FILL(y0, (size_t)ly, 37);
            for (size_t off = 0; off < pad; off++) {
                memcpy(ab + off, ab0, nab * sizeof(TT));
                memcpy(x + (pad - 1 - off), x0, (size_t)lx * sizeof(TT));
                memcpy(y + off, y0, (size_t)ly * sizeof(TT));
                cr_assert(NLA(gbmv)(ctx, trans ? NLA_TRANS : NLA_NO_TRANS, m, n, kl, ku, 0.7,
                                    ab + off, ldab, x + (pad - 1 - off), 1, 0.3, y + off,
                                    1) == NLA_OK);
                check_form(ctx, trans);
                if (off == 0)
                    memcpy(yref, y, (size_t)ly * sizeof(TT));
                cr_assert(memcmp(y + off, yref, (size_t)ly * sizeof(TT)) == 0,
                          "%cgbmv trans=%c m=%lld n=%lld kl=%lld ku=%lld: the band %zu "
                          "elements past a 64-byte boundary gives other bits",
                          sizeof(TT) == 8 ? 'd' : 's', trans ? 'T' : 'N', (long long)m, (long long)n,
                          (long long)kl, (long long)ku, off);
            }
            free(ab0);
            free(x0);
            free(y0);
            free(yref);
            free(ab);
            free(x);
            free(y);
        }
    nla_context_destroy(ctx);
}

static void X(spmv_threads)(void)
{
    X(l2case) c = { .routine = "spmv", .alpha = 0.7, .beta = 0.3 };
    c.m = c.n = 1100;
    for (int u = 0; u < 2; u++) {
        c.uplo = u ? 'L' : 'U';
        c.incx = 1;
        c.incy = 1;
        X(threads_case)(X(run_spmv), &c);
        c.incx = -1;
        c.incy = -2;
        X(threads_case)(X(run_spmv), &c);
    }
}


#ifdef _OPENMP
/* ---------------------------------------- inside the caller's region */

static nla_status X(call)(nla_context *ctx, const X(l2case) *c, const TT *a, const TT *x,
                          TT *y)
{
    nla_trans tr = c->trans ? NLA_TRANS : NLA_NO_TRANS;

    if (c->routine[1] == 'e')
        return NLA(gemv)(ctx, tr, c->m, c->n, (TT)c->alpha, a, c->m, x, 1, (TT)c->beta, y,
                         1);
    if (c->routine[1] == 'b')
        return NLA(gbmv)(ctx, tr, c->m, c->n, c->kl, c->ku, (TT)c->alpha, a,
                         c->kl + c->ku + 1, x, 1, (TT)c->beta, y, 1);
    return NLA(spmv)(ctx, c->uplo == 'U' ? NLA_UPPER : NLA_LOWER, c->n, (TT)c->alpha, a, x,
                     1, (TT)c->beta, y, 1);
}

/*
 * Calls made from inside a parallel region of the caller's, four threads:
 * thread t makes t + 1 calls of each routine, on a context and a y of its
 * own, with a context of one thread (the library runs the call inline) and
 * of two (its region nests: one thread, unless the caller enabled nested
 * parallelism).  An OpenMP barrier of the library's that bound to the
 * caller's region would hang here, since the threads make different
 * numbers of calls; team numbers taken from the caller's region would
 * give each thread a part of y only.  Every y must equal the same call
 * made outside the region: bitwise for gemv and gbmv, whose bits do not
 * depend on the thread count, and within the threads tests' bound for
 * spmv, whose do.
 */
#define INSIDE_THREADS 4
static void X(inside_region)(void)
{
    static const X(l2case) cases[] = {
        { .routine = "gemv", .trans = 0, .m = 300, .n = 200 },
        { .routine = "gemv", .trans = 1, .m = 1500, .n = 1400 },
        { .routine = "gbmv", .trans = 0, .m = 3000, .n = 2900, .kl = 9, .ku = 5 },
        { .routine = "gbmv", .trans = 1, .m = 9000, .n = 9001, .kl = 16, .ku = 16 },
        { .routine = "spmv", .uplo = 'U', .m = 150, .n = 150 },
        { .routine = "spmv", .uplo = 'L', .m = 1100, .n = 1100 },
    };

    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int nt = 1; nt <= 2; nt++) {
            X(l2case) c = cases[k];
            int spmv = c.routine[1] == 'p', gbmv = c.routine[1] == 'b';
            int64_t lx = c.trans ? c.m : c.n, ly = c.trans ? c.n : c.m;
            size_t na = spmv ? (size_t)(c.n * (c.n + 1) / 2)
                             : (size_t)((gbmv ? c.kl + c.ku + 1 : c.m) * c.n);
            TT *a = malloc(na * sizeof(TT)), *x = malloc((size_t)lx * sizeof(TT));
            TT *y0 = malloc((size_t)ly * sizeof(TT)), *ysolo = malloc((size_t)ly * sizeof(TT));
            TT *y[INSIDE_THREADS];
            nla_status st[INSIDE_THREADS];
            nla_context *ctx = ref_cpu_context();
            /* spmv: an entry is a sum of n products of |values| < 1 */
            double tol = 2 * 4.0 * (double)(c.n + 2) * T_EPS * (double)(c.n + 1);

            c.alpha = 0.7;
            c.beta = 0.3;
            c.incx = c.incy = 1;
            c.nt = nt;
            cr_assert(a && x && y0 && ysolo);
            T_FILL(a, na, 41 + (uint64_t)k);
            T_FILL(x, (size_t)lx, 43);
            T_FILL(y0, (size_t)ly, 47);
            memcpy(ysolo, y0, (size_t)ly * sizeof(TT));
            cr_assert(nla_context_set_threads(ctx, nt) == NLA_OK);
            cr_assert(X(call)(ctx, &c, a, x, ysolo) == NLA_OK, "%s: %s", X(describe)(&c),
                      nla_context_error(ctx));
            nla_context_destroy(ctx);
            for (int t = 0; t < INSIDE_THREADS; t++) {
                y[t] = malloc((size_t)ly * sizeof(TT));
                cr_assert(y[t]);
                st[t] = NLA_EINVAL;
            }
#pragma omp parallel num_threads(INSIDE_THREADS)
            {
                int t = omp_get_thread_num();
                nla_context *mine = NULL;
                nla_status s = nla_context_create(&mine, NLA_BACKEND_CPU);
                if (s == NLA_OK)
                    s = nla_context_set_threads(mine, nt);
                for (int r = 0; r <= t && s == NLA_OK; r++) {
                    memcpy(y[t], y0, (size_t)ly * sizeof(TT));
                    s = X(call)(mine, &c, a, x, y[t]);
                }
                st[t] = s;
                nla_context_destroy(mine);
            }
            for (int t = 0; t < INSIDE_THREADS; t++) {
                cr_assert(st[t] == NLA_OK, "%s: caller's thread %d: status %d",
                          X(describe)(&c), t, (int)st[t]);
                if (!spmv)
                    cr_assert(memcmp(y[t], ysolo, (size_t)ly * sizeof(TT)) == 0,
                              "%s: caller's thread %d gives other bits than a call "
                              "outside its region", X(describe)(&c), t);
                for (int64_t i = 0; spmv && i < ly; i++)
                    cr_assert(fabs((double)y[t][i] - (double)ysolo[i]) <= tol,
                              "%s: caller's thread %d: y[%lld] = %.17g, outside its "
                              "region %.17g", X(describe)(&c), t, (long long)i,
                              (double)y[t][i], (double)ysolo[i]);
                free(y[t]);
            }
            free(a);
            free(x);
            free(y0);
            free(ysolo);
        }
}
#undef INSIDE_THREADS
#endif /* _OPENMP */

#endif
