/*
 * test_limits.c - limits and IEEE special values (issue 9).
 *
 *   - NaN propagation: a NaN in A (or x, B) gives NaN in exactly the outputs
 *     that depend on it, for gemv, gbmv, spmv and gemm, on every ISA the
 *     machine has; alpha == 0 never reads A/x/B (NaN-filled) and beta == 0
 *     never reads y/C (NaN-filled), also for the batched GEMM.
 *   - FFT: NaN and Inf in the input propagate (nla.h: execution never checks
 *     values; a non-finite scale is refused at planning).
 *   - Frank-Wolfe: NaN in a built-in objective's data ends the solve with
 *     NLA_ENUMERIC and x untouched; non-finite set parameters, LMO
 *     directions and box bounds are NLA_EINVAL.
 *   - Sizes near INT64_MAX in FFT descriptors and FW constructors are
 *     NLA_EINVAL with nothing written (the BLAS/storage ones are fuzzed in
 *     test_badinput.c).
 *   - Allocation failure: the test interposes malloc (a test-side hook; no
 *     hook in the library).  In a forked child, each allocation libnla makes
 *     during a GEMM (packing buffers), gemv/gbmv/spmv with strided vectors
 *     (workspace), FFT plans (power of two and Bluestein, planning and
 *     execution; a plan's first execution, which makes Bluestein's tables,
   writes nothing when that fails and a second one succeeds) and a
   Frank-Wolfe solve is made to fail in turn: the call
 *     returns NLA_ENOMEM (or NLA_OK where a fallback exists) and every block
 *     it allocated is freed: nothing leaked.  RLIMIT_AS was tried first and
 *     dropped: a thread's malloc arena has 64 MiB reserved up front, which
 *     the cap does not see.  Skipped in sanitizer builds (their runtimes own
 *     malloc).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "refs.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NLA_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NLA_SANITIZED 1
#endif
#endif

static nla_context *ctx;
static void setup(void) { ctx = ref_cpu_context(); }
static void teardown(void) { nla_context_destroy(ctx); }

/* ------------------------------------------------------------------ NaN */

static void isa_generic(void) { setenv("NLA_CPU_ISA", "generic", 1); setup(); }
static void isa_avx2(void) { setenv("NLA_CPU_ISA", "avx2", 1); setup(); }
static void isa_avx512(void) { setenv("NLA_CPU_ISA", "avx512", 1); setup(); }

/* the ISA asked for is the one in use (else the machine lacks it: skip) */
static int isa_is(const char *want)
{
    return strcmp(nla_cpu_isa(), want) == 0;
}

#define M 37
#define N 29
#define K 23

/* y(i) must be NaN exactly where dep[i] is set */
static void expect_nan_pattern(const char *what, const double *y, const int *dep, int len,
                               int inc)
{
    for (int i = 0; i < len; i++) {
        double v = y[i * inc];
        if (dep[i])
            cr_assert(isnan(v), "%s (%s): y[%d] = %g, expected NaN", what, nla_cpu_isa(), i,
                      v);
        else
            cr_assert(isfinite(v), "%s (%s): y[%d] = %g, expected finite", what,
                      nla_cpu_isa(), i, v);
    }
}

static void nan_level2_d(void)
{
    double a[M * N], ab[(3 + 4 + 1) * N], ap[N * (N + 1) / 2], x[2 * M], y[2 * M];
    int dep[M];
    const int kl = 3, ku = 4, ldab = kl + ku + 1;
    const int ri = 11, cj = 13;   /* the NaN entry A(ri, cj) */

    /* gemv, both transposes, beta 0 and not */
    for (int t = 0; t < 2; t++) {
        nla_trans tr = t ? NLA_TRANS : NLA_NO_TRANS;
        int ly = t ? N : M, lx = t ? M : N;
        ref_fill(a, M * N, 1);
        ref_fill(x, 2 * M, 2);
        ref_fill(y, 2 * M, 3);
        a[ri + cj * M] = NAN;
        cr_assert_eq(nla_dgemv(ctx, tr, M, N, 0.5, a, M, x, 1, t ? 0.0 : 2.0, y, 2), NLA_OK);
        for (int i = 0; i < ly; i++)
            dep[i] = i == (t ? cj : ri);
        expect_nan_pattern(t ? "gemv T, NaN in A" : "gemv N, NaN in A", y, dep, ly, 2);
        /* a NaN in x spreads to every y */
        ref_fill(a, M * N, 1);
        ref_fill(y, 2 * M, 3);
        x[lx / 2] = NAN;
        cr_assert_eq(nla_dgemv(ctx, tr, M, N, 0.5, a, M, x, 1, 1.0, y, 1), NLA_OK);
        for (int i = 0; i < ly; i++)
            dep[i] = 1;
        expect_nan_pattern("gemv, NaN in x", y, dep, ly, 1);
    }
    /* gbmv: A(ri, cj) is inside the band (cj - ri = 2 <= ku) */
    for (int t = 0; t < 2; t++) {
        nla_trans tr = t ? NLA_TRANS : NLA_NO_TRANS;
        int ly = t ? N : M;
        ref_fill(ab, (size_t)ldab * N, 4);
        ref_fill(x, 2 * M, 2);
        ref_fill(y, 2 * M, 3);
        ab[ku + ri - cj + cj * ldab] = NAN;
        cr_assert_eq(nla_dgbmv(ctx, tr, M, N, kl, ku, 1.5, ab, ldab, x, 1, 0.0, y, 1),
                     NLA_OK);
        for (int i = 0; i < ly; i++)
            dep[i] = i == (t ? cj : ri);
        expect_nan_pattern("gbmv, NaN in A", y, dep, ly, 1);
    }
    /* spmv: the NaN at A(ri, cj) = A(cj, ri) reaches y(ri) and y(cj) */
    for (int u = 0; u < 2; u++) {
        nla_uplo up = u ? NLA_LOWER : NLA_UPPER;
        int i0 = u ? cj : ri, j0 = u ? ri : cj;   /* the stored triangle */
        size_t at = u ? (size_t)i0 + (size_t)j0 * (2 * N - j0 - 1) / 2
                      : (size_t)i0 + (size_t)j0 * (j0 + 1) / 2;
        ref_fill(ap, N * (N + 1) / 2, 5);
        ref_fill(x, 2 * M, 2);
        ref_fill(y, 2 * M, 3);
        ap[at] = NAN;
        cr_assert_eq(nla_dspmv(ctx, up, N, 1.0, ap, x, 1, 0.25, y, 1), NLA_OK);
        for (int i = 0; i < N; i++)
            dep[i] = i == ri || i == cj;
        expect_nan_pattern("spmv, NaN in A", y, dep, N, 1);
    }
}

static void nan_gemm_d(void)
{
    static double a[M * K], b[K * N], c[M * N];
    const int ri = 7, kj = 5, bj = 17;
    for (int lay = 0; lay < 2; lay++) {
        nla_layout L = lay ? NLA_ROW_MAJOR : NLA_COL_MAJOR;
        int lda = lay ? K : M, ldb = lay ? N : K, ldc = lay ? N : M;
        ref_fill(a, M * K, 6);
        ref_fill(b, K * N, 7);
        ref_fill(c, M * N, 8);
        /* A(ri, kj) = NaN: row ri of C */
        a[lay ? ri * lda + kj : ri + kj * lda] = NAN;
        cr_assert_eq(nla_dgemm(ctx, L, NLA_NO_TRANS, NLA_NO_TRANS, M, N, K, 1.0, a, lda, b,
                               ldb, lay ? 0.0 : 0.5, c, ldc), NLA_OK);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double v = lay ? c[i * ldc + j] : c[i + j * ldc];
                cr_assert(i == ri ? isnan(v) : isfinite(v), "gemm %s (%s): C(%d,%d) = %g",
                          lay ? "row" : "col", nla_cpu_isa(), i, j, v);
            }
        /* B(kj, bj) = NaN: column bj of C */
        ref_fill(a, M * K, 6);
        b[lay ? kj * ldb + bj : kj + bj * ldb] = NAN;
        cr_assert_eq(nla_dgemm(ctx, L, NLA_NO_TRANS, NLA_NO_TRANS, M, N, K, 2.0, a, lda, b,
                               ldb, 0.0, c, ldc), NLA_OK);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double v = lay ? c[i * ldc + j] : c[i + j * ldc];
                cr_assert(j == bj ? isnan(v) : isfinite(v), "gemm B %s (%s): C(%d,%d) = %g",
                          lay ? "row" : "col", nla_cpu_isa(), i, j, v);
            }
    }
}

/* single precision: one NaN, one dependent output per routine */
static void nan_single(void)
{
    float a[M * N], x[M], y[M], c[M * N], b[N * N];
    ref_fillf(a, M * N, 9);
    ref_fillf(x, M, 10);
    ref_fillf(y, M, 11);
    a[3 + 4 * M] = NAN;
    cr_assert_eq(nla_sgemv(ctx, NLA_NO_TRANS, M, N, 1, a, M, x, 1, 0, y, 1), NLA_OK);
    for (int i = 0; i < M; i++)
        cr_assert(i == 3 ? isnan(y[i]) : isfinite(y[i]), "sgemv y[%d] = %g", i, y[i]);
    ref_fillf(b, N * N, 12);
    cr_assert_eq(nla_sgemm(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, M, N, N, 1, a, M,
                           b, N, 0, c, M), NLA_OK);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            cr_assert(i == 3 ? isnan(c[i + j * M]) : isfinite(c[i + j * M]),
                      "sgemm C(%d,%d) = %g", i, j, c[i + j * M]);
}

static void nan_all(const char *isa)
{
    if (isa && !isa_is(isa))
        cr_skip_test("this CPU has no %s (running %s)", isa, nla_cpu_isa());
    nan_level2_d();
    nan_gemm_d();
    nan_single();
}

TestSuite(nan, .fini = teardown);
Test(nan, propagates_default_isa, .init = setup) { nan_all(NULL); }
Test(nan, propagates_generic, .init = isa_generic) { nan_all("generic"); }
Test(nan, propagates_avx2, .init = isa_avx2) { nan_all("avx2"); }
Test(nan, propagates_avx512, .init = isa_avx512) { nan_all("avx512"); }

/* alpha == 0 reads neither A nor x/B; beta == 0 never reads y/C */
Test(nan, alpha0_and_beta0_do_not_read, .init = setup)
{
    static double a[M * N * 2], x[M], y[M], c[M * N * 2], want[M * N * 2];
    ref_fill_nan(a, M * N * 2);
    ref_fill_nan(x, M);
    ref_fill(y, M, 1);
    for (int i = 0; i < M; i++)
        want[i] = 0.5 * y[i];
    cr_assert_eq(nla_dgemv(ctx, NLA_NO_TRANS, M, N, 0.0, a, M, x, 1, 0.5, y, 1), NLA_OK);
    cr_assert_eq(memcmp(y, want, M * sizeof(double)), 0, "gemv alpha 0 read A or x");
    ref_fill(y, M, 1);
    cr_assert_eq(nla_dgbmv(ctx, NLA_TRANS, N, M, 2, 3, 0.0, a, 6, x, 1, 0.5, y, 1), NLA_OK);
    cr_assert_eq(memcmp(y, want, M * sizeof(double)), 0, "gbmv alpha 0 read A or x");
    ref_fill(y, M, 1);
    cr_assert_eq(nla_dspmv(ctx, NLA_LOWER, M, 0.0, a, x, 1, 0.5, y, 1), NLA_OK);
    cr_assert_eq(memcmp(y, want, M * sizeof(double)), 0, "spmv alpha 0 read A or x");
    ref_fill(c, M * N * 2, 2);
    for (int i = 0; i < M * N * 2; i++)
        want[i] = 0.5 * c[i];
    cr_assert_eq(nla_dgemm_strided_batched(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, M,
                                           N, K, 0.0, a, M, M * K, x, K, 0, 0.5, c, M,
                                           M * N, 2), NLA_OK);
    cr_assert_eq(memcmp(c, want, sizeof(double) * M * N * 2), 0, "gemm alpha 0 read A or B");
    /* beta == 0: y and C full of NaN, results finite */
    ref_fill(a, M * N * 2, 3);
    ref_fill(x, M, 4);
    ref_fill_nan(y, M);
    cr_assert_eq(nla_dgemv(ctx, NLA_TRANS, N, M, 1.0, a, N, x, 1, 0.0, y, 1), NLA_OK);
    for (int i = 0; i < M; i++)
        cr_assert(isfinite(y[i]), "gemv beta 0 read y");
    ref_fill_nan(y, M);
    cr_assert_eq(nla_dgbmv(ctx, NLA_NO_TRANS, M, N, 1, 1, 1.0, a, 3, x, 1, 0.0, y, 1), NLA_OK);
    for (int i = 0; i < M; i++)
        cr_assert(isfinite(y[i]), "gbmv beta 0 read y");
    ref_fill_nan(y, M);
    cr_assert_eq(nla_dspmv(ctx, NLA_UPPER, M, 1.0, a, x, 1, 0.0, y, 1), NLA_OK);
    for (int i = 0; i < M; i++)
        cr_assert(isfinite(y[i]), "spmv beta 0 read y");
    ref_fill_nan(c, M * N * 2);
    cr_assert_eq(nla_dgemm_strided_batched(ctx, NLA_ROW_MAJOR, NLA_TRANS, NLA_NO_TRANS, M, N,
                                           1, 1.0, a, M, M, x, N, 0, 0.0, c, N, M * N, 2),
                 NLA_OK);
    for (int i = 0; i < M * N * 2; i++)
        cr_assert(isfinite(c[i]), "gemm beta 0 read C at %d", i);
}

/* ------------------------------------------------------------------ FFT */

static void fft_special(int64_t n, nla_fft_kind kind, double bad)
{
    nla_fft_desc d;
    nla_fft_plan *p = NULL;
    int64_t nin = kind == NLA_FFT_R2C ? n : 2 * n;
    int64_t nout = kind == NLA_FFT_R2C ? 2 * (n / 2 + 1) : 2 * n;
    double *in = malloc(sizeof(double) * (size_t)nin), *out = malloc(sizeof(double) * (size_t)nout);
    cr_assert(in && out);
    memset(&d, 0, sizeof d);
    d.kind = kind;
    d.precision = NLA_DOUBLE;
    d.direction = NLA_FFT_FORWARD;
    d.n = n;
    cr_assert_eq(nla_fft_plan_create(ctx, &d, &p), NLA_OK);
    ref_fill(in, (size_t)nin, 20);
    in[nin / 3] = bad;
    cr_assert_eq(nla_fft_execute(p, in, out), NLA_OK);
    /* every output depends on every input: each has a non-finite part */
    for (int64_t k = 0; k < nout / 2; k++)
        cr_assert(!isfinite(out[2 * k]) || !isfinite(out[2 * k + 1]),
                  "fft n=%lld kind %d: X[%lld] = (%g, %g) finite after %g in the input",
                  (long long)n, (int)kind, (long long)k, out[2 * k], out[2 * k + 1], bad);
    nla_fft_plan_destroy(p);
    free(in);
    free(out);
}

Test(nan, fft_propagates_nan_and_inf, .init = setup)
{
    static const int64_t sizes[] = {1, 2, 8, 64, 1024, 17, 1000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        fft_special(sizes[i], NLA_FFT_C2C, NAN);
        fft_special(sizes[i], NLA_FFT_R2C, NAN);
        fft_special(sizes[i], NLA_FFT_C2C, INFINITY);
    }
}

/* ---------------------------------------------------------- Frank-Wolfe */

Test(nan, frank_wolfe_numeric_and_nonfinite_arguments, .init = setup)
{
    enum { FN = 6 };
    double q[FN * FN], c[FN], x[FN], x0[FN], g[FN], v[FN], v0[FN], lo[FN], hi[FN];
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL, *sentinel = (nla_fw_set *)&obj;
    nla_fw_result res;

    memset(q, 0, sizeof q);
    for (int i = 0; i < FN; i++)
        q[i + i * FN] = 1.0 + i, c[i] = -1.0;
    q[2 + 3 * FN] = q[3 + 2 * FN] = NAN;
    cr_assert_eq(nla_fw_objective_create_quad(&obj, FN, q, FN, c), NLA_OK);
    cr_assert_eq(nla_fw_set_create_prob_simplex(&set, FN, 1.0), NLA_OK);
    for (int i = 0; i < FN; i++)
        x[i] = 1.0 / FN;
    memcpy(x0, x, sizeof x);
    memset(&res, 0, sizeof res);
    cr_assert_eq(nla_fw_solve(ctx, obj, set, NULL, x, &res), NLA_ENUMERIC);
    cr_assert_eq(res.stop, NLA_FW_STOP_NUMERIC);
    cr_assert_eq(memcmp(x, x0, sizeof x), 0, "x changed although f(x0) was NaN");
    nla_fw_objective_destroy(obj);
    /* NaN in the linear term only: the same */
    q[2 + 3 * FN] = q[3 + 2 * FN] = 0;
    c[4] = INFINITY;
    cr_assert_eq(nla_fw_objective_create_quad(&obj, FN, q, FN, c), NLA_OK);
    cr_assert_eq(nla_fw_solve(ctx, obj, set, NULL, x, &res), NLA_ENUMERIC);
    cr_assert_eq(memcmp(x, x0, sizeof x), 0);
    nla_fw_objective_destroy(obj);
    /* LMO direction with NaN: EINVAL, v untouched */
    ref_fill(g, FN, 3);
    g[1] = NAN;
    ref_fill(v, FN, 4);
    memcpy(v0, v, sizeof v);
    cr_assert_eq(nla_fw_set_lmo(ctx, set, g, v), NLA_EINVAL);
    cr_assert_eq(memcmp(v, v0, sizeof v), 0);
    nla_fw_set_destroy(set);
    /* non-finite parameters */
    set = sentinel;
    cr_assert_eq(nla_fw_set_create_l1_ball(&set, FN, NAN), NLA_EINVAL);
    cr_assert_eq(nla_fw_set_create_linf_ball(&set, FN, INFINITY), NLA_EINVAL);
    cr_assert_eq(nla_fw_set_create_nuclear_ball(&set, 2, 3, 1.0, NAN, 10), NLA_EINVAL);
    for (int i = 0; i < FN; i++)
        lo[i] = -1, hi[i] = 1;
    hi[5] = NAN;
    cr_assert_eq(nla_fw_set_create_box(&set, FN, lo, hi), NLA_EINVAL);
    cr_assert_null(set, "set not NULL after a failed create (nla(3))");
    /* a start point with NaN is not feasible */
    cr_assert_eq(nla_fw_set_create_box(&set, FN, lo, lo), NLA_OK);
    cr_assert_eq(nla_fw_objective_create_quad(&obj, FN, q, FN, NULL), NLA_OK);
    for (int i = 0; i < FN; i++)
        x[i] = -1;
    x[0] = NAN;
    memcpy(x0, x, sizeof x);
    cr_assert_eq(nla_fw_solve(ctx, obj, set, NULL, x, &res), NLA_EINVAL);
    cr_assert_eq(memcmp(x, x0, sizeof x), 0);
    nla_fw_objective_destroy(obj);
    nla_fw_set_destroy(set);
}

/* --------------------------------------------------------------- limits */

TestSuite(limits, .init = setup, .fini = teardown);

Test(limits, fft_sizes_near_int64_max)
{
    static const int64_t big[] = {INT64_MAX, INT64_MAX - 1, INT64_MAX / 2 + 1,
                                  (int64_t)1 << 62};
    nla_fft_plan *sentinel = (nla_fft_plan *)&ctx, *p;
    nla_fft_desc d;
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        for (int kind = 0; kind < 3; kind++)
            for (int f = 0; f < 6; f++) {
                memset(&d, 0, sizeof d);
                d.kind = (nla_fft_kind)kind;
                d.precision = f & 1 ? NLA_FLOAT : NLA_DOUBLE;
                d.direction = NLA_FFT_FORWARD;
                d.n = f < 2 ? big[i] : 16;
                d.howmany = f >= 2 ? big[i] : 0;
                d.istride = f >= 4 ? big[i] : 0;
                d.odist = f >= 4 ? 1 : 0;
                p = sentinel;
                cr_assert_eq(nla_fft_plan_create(ctx, &d, &p), NLA_EINVAL,
                             "kind %d n %lld howmany %lld istride %lld: %s", kind,
                             (long long)d.n, (long long)d.howmany, (long long)d.istride,
                             nla_context_error(ctx));
                cr_assert_null(p, "plan not NULL after a failed create (nla(3))");
            }
}

Test(limits, frank_wolfe_sizes_near_int64_max)
{
    double a[4] = {1, 2, 3, 4}, b[4] = {0};
    nla_fw_set *sentinel = (nla_fw_set *)&ctx, *s = sentinel;
    nla_fw_objective *osent = (nla_fw_objective *)&ctx, *o = osent;
    const int64_t H = INT64_MAX;

    cr_assert_eq(nla_fw_set_create_prob_simplex(&s, H, 1.0), NLA_EINVAL);
    cr_assert_eq(nla_fw_set_create_unit_simplex(&s, H / 8 + 1, 1.0), NLA_EINVAL);
    cr_assert_eq(nla_fw_set_create_ksparse(&s, H, H, 1.0), NLA_EINVAL);
    cr_assert_eq(nla_fw_set_create_nuclear_ball(&s, H, 2, 1.0, 1e-9, 10), NLA_EINVAL);
    s = sentinel;
    cr_assert_eq(nla_fw_set_create_nuclear_ball(&s, (int64_t)1 << 31, (int64_t)1 << 31, 1.0,
                                                1e-9, 10), NLA_EINVAL);
    cr_assert_null(s, "set not NULL after a failed create (nla(3))");
    cr_assert_eq(nla_fw_objective_create_lsq(&o, 2, H, a, 2, b), NLA_EINVAL);
    cr_assert_eq(nla_fw_objective_create_lsq(&o, H, 2, a, H, b), NLA_EINVAL);
    cr_assert_eq(nla_fw_objective_create_lsq(&o, 2, 2, a, H / 2, b), NLA_EINVAL);
    cr_assert_eq(nla_fw_objective_create_lsq_band(&o, 2, 2, H - 1, 0, a, H, b), NLA_EINVAL);
    cr_assert_eq(nla_fw_objective_create_lsq_band(&o, 2, 2, H, H, a, H, b), NLA_EINVAL);
    cr_assert_eq(nla_fw_objective_create_lsq_packed(&o, NLA_UPPER, H, a, b), NLA_EINVAL);
    cr_assert_eq(nla_fw_objective_create_lsq_packed(&o, NLA_UPPER, (int64_t)1 << 32, a, b),
                 NLA_EINVAL);
    cr_assert_eq(nla_fw_objective_create_quad(&o, H, a, H, NULL), NLA_EINVAL);
    cr_assert_eq(nla_fw_objective_create_quad_packed(&o, NLA_LOWER, H - 1, a, NULL),
                 NLA_EINVAL);
    cr_assert_eq(nla_fw_objective_create_quad_band(&o, 2, H / 2, a, H, NULL), NLA_EINVAL);
    cr_assert_eq(nla_fw_objective_create_quad_band(&o, H, 1, a, 3, NULL), NLA_EINVAL);
    o = osent;
    cr_assert_eq(nla_fw_objective_create_user(&o, H, NULL, NULL), NLA_EINVAL);
    cr_assert_null(o, "objective not NULL after a failed create (nla(3))");
}

/* ---------------------------------------------------- allocation failure */

/* The test program interposes the allocator (not in sanitizer builds,
   whose runtimes own malloc): while `track` is set every block allocated
   is remembered until freed, so a leak is exactly a block still listed
   after the call, and allocation number `fail_at` can be made to fail. */
#ifndef NLA_SANITIZED
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

#define MAX_LIVE 4096
static int track, overflow;
static long nalloc, fail_at;
static void *live[MAX_LIVE];
static int nlive;

/* Only libnla's own allocations are counted and failed: libgomp, for one,
   exits when its allocations fail, which is outside libnla's contract. */
static int from_libnla(void *ra)
{
    Dl_info info;
    return dladdr(ra, &info) && info.dli_fname && strstr(info.dli_fname, "libnla");
}

static int inject_at(void *ra)
{
    if (!track || !from_libnla(ra))
        return 0;
    nalloc++;
    return fail_at > 0 && nalloc == fail_at;
}
#define inject() inject_at(__builtin_return_address(0))

static void *note(void *p)
{
    if (p && track) {
        if (nlive < MAX_LIVE)
            live[nlive++] = p;
        else
            overflow = 1;
    }
    return p;
}

static void forget(void *p)
{
    if (!p || !track)
        return;
    for (int i = nlive - 1; i >= 0; i--)
        if (live[i] == p) {
            live[i] = live[--nlive];
            return;
        }
}

void *malloc(size_t n) { return inject() ? NULL : note(__libc_malloc(n)); }
void *calloc(size_t c, size_t n) { return inject() ? NULL : note(__libc_calloc(c, n)); }
void *aligned_alloc(size_t al, size_t n) { return inject() ? NULL : note(__libc_memalign(al, n)); }
void *memalign(size_t al, size_t n) { return inject() ? NULL : note(__libc_memalign(al, n)); }
void free(void *p)
{
    forget(p);
    __libc_free(p);
}
void *realloc(void *p, size_t n)
{
    void *q;
    if (inject())
        return NULL;
    q = __libc_realloc(p, n);
    if (q || n == 0)
        forget(p);
    return note(q);
}
int posix_memalign(void **pp, size_t al, size_t n)
{
    void *p = inject() ? NULL : note(__libc_memalign(al, n));
    if (!p)
        return 12; /* ENOMEM */
    *pp = p;
    return 0;
}

static void track_start(long fail)
{
    nalloc = 0;
    nlive = 0;
    overflow = 0;
    fail_at = fail;
    track = 1;
}

/* blocks still live from the tracked call (-1: too many to tell) */
static int track_stop(void)
{
    track = 0;
    return overflow ? -1 : nlive;
}

typedef nla_status (*alloc_case)(nla_context *c, void *arg);

enum { CHILD_OK = 20, CHILD_NOMEM, CHILD_LEAK = 50, CHILD_SETUP = 60 };

/* Child: run fn once to warm up (one-time set-up such as libgomp's team
   cache is not a leak), then make libnla's allocation number fail fail
   (0: none) and run fn again.  Exit code: CHILD_*, or 30+s for another status (not
   0 or 1: libgomp exits with 1 when it cannot allocate); stdout gets the number of allocations made. */
static int child_run(alloc_case fn, void *arg, void *warm, long fail)
{
    nla_context *c = NULL;
    nla_status s;
    int left;

    if (nla_context_create(&c, NLA_BACKEND_CPU) != NLA_OK ||
        nla_context_set_threads(c, 1) != NLA_OK)
        return CHILD_SETUP;
    (void)fn(c, warm);
    track_start(fail);
    s = fn(c, arg);
    left = track_stop();
    printf("%ld\n", nalloc);
    fflush(stdout);
    if (left != 0) {
        fprintf(stderr, "%d blocks left by the call (status %d)\n", left, (int)s);
        return CHILD_LEAK;
    }
    nla_context_destroy(c);
    if (getenv("NLA_TEST_LIMITS_DEBUG"))
        fprintf(stderr, "fail %ld: status %d, %ld allocations\n", fail, (int)s, nalloc);
    return s == NLA_OK ? CHILD_OK : s == NLA_ENOMEM ? CHILD_NOMEM : 30 + (int)s;
}

/* Run fn in a child with the given cap and failure; returns 1 for
   NLA_ENOMEM, 0 for NLA_OK (anything else fails the test), and the
   allocation count. */
static int in_child(const char *what, alloc_case fn, void *arg, void *warm, long fail,
                    long *count)
{
    int st, code, fd[2];
    char buf[64] = {0};
    pid_t pid;

    cr_assert_eq(pipe(fd), 0);
    fflush(NULL);
    pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        _exit(child_run(fn, arg, warm, fail));
    }
    close(fd[1]);
    if (read(fd[0], buf, sizeof buf - 1) < 0)
        buf[0] = 0;
    close(fd[0]);
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st), "%s, failing allocation %ld: the child died (signal %d)", what, fail, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    code = WEXITSTATUS(st);
    cr_assert_neq(code, CHILD_LEAK, "%s, failing allocation %ld: memory leaked", what, fail);
    cr_assert(code == CHILD_OK || code == CHILD_NOMEM,
              "%s, failing allocation %ld: exit code %d", what, fail, code);
    if (count)
        *count = atol(buf);
    return code == CHILD_NOMEM;
}

/* Fail allocation 1, 2, ... of the call in turn: each gives NLA_ENOMEM
   (or NLA_OK where the library has a fallback) and leaks nothing.
   Returns the number of allocations the call makes. */
static long inject_each(const char *what, alloc_case fn, void *arg, void *warm)
{
    long count = 0, nomem = 0;
    in_child(what, fn, arg, warm, 0, &count);
    for (long k = 1; k <= count; k++)
        nomem += in_child(what, fn, arg, warm, k, NULL);
    cr_expect_gt(nomem, 0, "%s: no injected failure gave NLA_ENOMEM", what);
    return count;
}

#define GEMM_N 600
static double *ga, *gb, *gc;

/* arg points to the size (at most GEMM_N; FFT: n) */
static nla_status gemm_case(nla_context *c, void *arg)
{
    int64_t n = *(int64_t *)arg;
    return nla_dgemm(c, NLA_COL_MAJOR, NLA_TRANS, NLA_NO_TRANS, n, n, n, 1.0, ga, n, gb, n,
                     0.0, gc, n);
}

static nla_status l2_case(nla_context *c, void *arg)
{
    /* strided x and y: the kernels gather into workspace */
    int64_t n = *(int64_t *)arg;
    nla_status s = nla_dgemv(c, NLA_NO_TRANS, n, n, 1.0, ga, n, gb, 3, 0.5, gc, 2);
    if (s == NLA_OK)
        s = nla_dgbmv(c, NLA_TRANS, n, n, 2, 3, 1.0, ga, 6, gb, -2, 0.5, gc, 3);
    if (s == NLA_OK)
        s = nla_dspmv(c, NLA_LOWER, n, 1.0, ga, gb, 2, 0.5, gc, -3);
    return s;
}

static nla_status fft_case(nla_context *c, void *arg)
{
    int64_t n = *(int64_t *)arg;
    nla_fft_plan *p = NULL;
    nla_status s = nla_fft_plan_1d(c, n, NLA_FFT_FORWARD, NLA_DOUBLE, &p);
    if (s == NLA_OK && n <= GEMM_N * GEMM_N / 2)
        s = nla_fft_execute(p, ga, gc);
    nla_fft_plan_destroy(p);
    return s;
}

/* A Bluestein plan makes its tables at its first execution: where that
   fails, nothing is written and the next execution makes them, giving
   the bits of gb (another plan's, made by the test).  Another outcome is
   NLA_EINVAL here, which the caller reports as a failure. */
static nla_status fft_first_case(nla_context *c, void *arg)
{
    int64_t n = *(int64_t *)arg;
    nla_fft_plan *p = NULL;
    nla_status s = nla_fft_plan_1d(c, n, NLA_FFT_FORWARD, NLA_DOUBLE, &p);
    if (s != NLA_OK)
        return s;
    for (int64_t i = 0; i < 2 * n; i++)
        gc[i] = -7.0;
    s = nla_fft_execute(p, ga, gc);
    for (int64_t i = 0; s == NLA_ENOMEM && i < 2 * n; i++)
        if (gc[i] != -7.0)
            s = NLA_EINVAL;
    if (s == NLA_ENOMEM && (nla_fft_execute(p, ga, gc) != NLA_OK ||
                            memcmp(gc, gb, (size_t)(2 * n) * sizeof(double)) != 0))
        s = NLA_EINVAL;
    nla_fft_plan_destroy(p);
    return s;
}

static nla_status fw_case(nla_context *c, void *arg)
{
    int64_t n = *(int64_t *)arg * *(int64_t *)arg;
    nla_fw_set *set = NULL;
    nla_fw_objective *obj = NULL;
    nla_fw_options *opt = NULL;
    nla_status s;
    for (int64_t i = 0; i < n; i++)
        gc[i] = i == 0;
    s = nla_fw_set_create_prob_simplex(&set, n, 1.0);
    if (s == NLA_OK)
        s = nla_fw_objective_create_quad_band(&obj, n, 0, ga, 1, gb);
    if (s == NLA_OK)
        s = nla_fw_options_create(&opt);
    if (s == NLA_OK)
        s = nla_fw_options_set_max_iter(opt, 3);
    if (s == NLA_OK)
        s = nla_fw_options_set_variant(opt, NLA_FW_PAIRWISE);
    if (s == NLA_OK)
        s = nla_fw_solve(c, obj, set, opt, gc, NULL);
    if (s == NLA_EMAXITER)
        s = NLA_OK;
    nla_fw_options_destroy(opt);
    nla_fw_objective_destroy(obj);
    nla_fw_set_destroy(set);
    return s;
}

#endif /* !NLA_SANITIZED */

Test(limits, allocation_failure_is_enomem_and_leaks_nothing)
{
#ifdef NLA_SANITIZED
    cr_skip_test("sanitizer build: its runtime owns malloc");
#else
    size_t len = (size_t)GEMM_N * GEMM_N;
    int64_t big;

    ga = malloc(len * sizeof(double));
    gb = malloc(len * sizeof(double));
    gc = malloc(2 * len * sizeof(double));
    cr_assert(ga && gb && gc);
    ref_fill(ga, len, 1);
    ref_fill(gb, len, 2);
    ref_fill(gc, 2 * len, 3);
    /* every single allocation failing in turn (warm-up: the same call) */
    big = 300;
    inject_each("gemm", gemm_case, &big, &big);
    inject_each("gemv/gbmv/spmv", l2_case, &big, &big);
    inject_each("frank-wolfe", fw_case, &big, &big);
    big = 1024;
    inject_each("fft 1024", fft_case, &big, &big);
    big = 1009;
    inject_each("fft 1009", fft_case, &big, &big);
    {
        nla_fft_plan *p = NULL;
        cr_assert_eq(nla_fft_plan_1d(ctx, big, NLA_FFT_FORWARD, NLA_DOUBLE, &p), NLA_OK);
        cr_assert_eq(nla_fft_execute(p, ga, gb), NLA_OK);
        nla_fft_plan_destroy(p);
    }
    /* warmed up on another prime: its tables, in memory the plan may get
       again, are not those of 1009 */
    int64_t warm = 1013;
    inject_each("fft 1009, a new plan's first execution", fft_first_case, &big, &warm);
    free(ga);
    free(gb);
    free(gc);
#endif
}
