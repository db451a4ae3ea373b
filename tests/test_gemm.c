/*
 * test_gemm.c - gemm and gemm_strided_batched (s and d) against CBLAS.
 *
 * Each C element must be within 4 (k+2) eps (|alpha| (|A||B|)_ij + |beta c_ij|)
 * of cblas_?gemm (the magnitudes come from a double-precision CBLAS product
 * of |A| and |B|).  The cases cover both layouts, all four transpose pairs,
 * sizes around the block sizes, k = 0, alpha = 0 (A and B passed as NULL),
 * beta = 0 on a NaN-filled C, and leading dimensions with padding: the
 * padding of A and B is NaN (never read) and that of C a sentinel (never
 * written).  Threads: repeated runs with the same thread count are bitwise
 * identical.  Batches: equal to a loop of single nla GEMMs and close to
 * CBLAS, including a broadcast A (stride_a = 0).  Sizes 1, 7, 31, 257 on
 * every layout and transpose pair, and 1000 on two.  The ISA suites force
 * NLA_CPU_ISA before the library is first used (each test is its own
 * process); the gemm_config suite forces a derived CPU configuration on
 * small caches (NLA_CPU_TUNE=derived, NLA_TUNE_CACHES) the same way.
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
#include "nla.h"
#include "refs.h"

#define SENTINEL 12345.0 /* in C's padding */

static const double alphas[] = { 0, 1, 0.7 };
/* the last entry means beta = 0 with NaN in C */
static const double betas[] = { 0, 1, 0.7, -1 };

/* A logical rows x cols matrix stored in a layout with leading dimension ld:
   the offset of (r, c) and the buffer length. */
static size_t off(nla_layout lay, int64_t ld, int64_t r, int64_t c)
{
    return (size_t)(lay == NLA_COL_MAJOR ? r + c * ld : r * ld + c);
}

static int64_t min_ld(nla_layout lay, int64_t rows, int64_t cols)
{
    int64_t v = lay == NLA_COL_MAJOR ? rows : cols;
    return v > 1 ? v : 1;
}

static size_t buf_len(nla_layout lay, int64_t ld, int64_t rows, int64_t cols)
{
    int64_t outer = lay == NLA_COL_MAJOR ? cols : rows;
    return outer > 0 ? (size_t)(outer * ld) : 1;
}

#define TT double
#define TP d
#define T_EPS 0x1p-52
#define T_FILL ref_fill
#define CB(name) cblas_d##name
#include "test_gemm.c"
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
#include "test_gemm.c"
#undef TT
#undef TP
#undef T_EPS
#undef T_FILL
#undef CB

/* ------------------------------------------------------------ the tests */

Test(gemm, d_small_sweep) { gemm_small_sweep_d(); }
Test(gemm, s_small_sweep) { gemm_small_sweep_s(); }
Test(gemm, d_shapes) { gemm_shapes_d(); }
Test(gemm, d_sizes) { gemm_sizes_d(); }
Test(gemm, s_sizes) { gemm_sizes_s(); }
Test(gemm, s_shapes) { gemm_shapes_s(); }
Test(gemm, d_threads) { gemm_threads_d(); }
Test(gemm, s_threads) { gemm_threads_s(); }
Test(gemm_batched, d) { gemm_batched_d(); }
Test(gemm_batched, s) { gemm_batched_s(); }

static void force_generic(void) { setenv("NLA_CPU_ISA", "generic", 1); }
static void force_avx2(void) { setenv("NLA_CPU_ISA", "avx2", 1); }
static void force_avx512(void) { setenv("NLA_CPU_ISA", "avx512", 1); }

static void isa_is(const char *want)
{
    if (strcmp(nla_cpu_isa(), want) != 0)
        cr_skip_test("the CPU cannot run %s (%s)", want, nla_cpu_isa_reason());
}

/* each kernel set in turn (the default one is also the gemm suite's) */
Test(gemm_isa, generic, .init = force_generic)
{
    cr_assert_str_eq(nla_cpu_isa(), "generic", "%s", nla_cpu_isa_reason());
    gemm_shapes_d();
    gemm_shapes_s();
    gemm_sizes_d();
    gemm_sizes_s();
    gemm_threads_d();
    gemm_batched_d();
}

Test(gemm_isa, avx2, .init = force_avx2)
{
    isa_is("avx2");
    gemm_shapes_d();
    gemm_shapes_s();
    gemm_sizes_d();
    gemm_sizes_s();
    gemm_threads_s();
    gemm_batched_s();
}

Test(gemm_isa, avx512, .init = force_avx512)
{
    isa_is("avx512");
    gemm_shapes_d();
    gemm_shapes_s();
    gemm_sizes_d();
    gemm_sizes_s();
    gemm_threads_d();
    gemm_batched_s();
}

/* A derived CPU configuration (NLA_CPU_TUNE=derived) on small caches
   (NLA_TUNE_CACHES), so that every shape crosses many blocks, and on caches
   whose blocks are multiples of nothing in particular (kc 39 for double
   AVX-512): the driver must round them to the tile and stay right. */
static void derived_tiny(void)
{
    setenv("NLA_CPU_TUNE", "derived", 1);
    setenv("NLA_TUNE_CACHES", "4K,16K,64K", 1);
}

static void derived_odd(void)
{
    setenv("NLA_CPU_TUNE", "derived", 1);
    setenv("NLA_TUNE_CACHES", "5000,70000,300000", 1);
}

static void derived_tiny_generic(void)
{
    derived_tiny();
    setenv("NLA_CPU_ISA", "generic", 1);
}

static void config_is_derived(void)
{
    cr_assert_str_eq(nla_cpu_config(), "derived", "%s", nla_cpu_config_reason());
    cr_assert(strstr(nla_cpu_config_reason(), "NLA_TUNE_CACHES"), "%s",
              nla_cpu_config_reason());
    cr_assert_eq(nla_cpu_config_value("dgemm_mc") % nla_cpu_config_value("dgemm_mr"), 0);
    cr_assert_eq(nla_cpu_config_value("sgemm_nc") % nla_cpu_config_value("sgemm_nr"), 0);
}

Test(gemm_config, derived_tiny_caches, .init = derived_tiny)
{
    config_is_derived();
    cr_assert_leq(nla_cpu_config_value("dgemm_kc"), 64, "kc %lld",
                  (long long)nla_cpu_config_value("dgemm_kc"));
    gemm_shapes_d();
    gemm_shapes_s();
    gemm_threads_d();
    gemm_batched_s();
}

Test(gemm_config, derived_odd_caches, .init = derived_odd)
{
    config_is_derived();
    gemm_shapes_d();
    gemm_shapes_s();
    gemm_threads_s();
}

Test(gemm_config, derived_tiny_caches_generic, .init = derived_tiny_generic)
{
    config_is_derived();
    cr_assert_str_eq(nla_cpu_isa(), "generic");
    gemm_shapes_d();
    gemm_shapes_s();
}

#else /* ------------------------------------------------- per precision */

typedef struct X(gcase) {
    nla_layout lay;
    int ta, tb;                  /* 1 = transposed */
    int64_t m, n, k;
    double alpha, beta;
    int nan_c;
    int64_t pad;                 /* extra leading dimension */
    int nt;
} X(gcase);

static char X(desc)[256];

static const char *X(describe)(const X(gcase) *c)
{
    snprintf(X(desc), sizeof X(desc),
             "%sgemm %s-major transa=%c transb=%c m=%lld n=%lld k=%lld alpha=%g beta=%g%s "
             "pad=%lld threads=%d isa=%s",
             PS(TP), c->lay == NLA_COL_MAJOR ? "col" : "row", c->ta ? 'T' : 'N',
             c->tb ? 'T' : 'N', (long long)c->m, (long long)c->n, (long long)c->k, c->alpha,
             c->beta, c->nan_c ? "(NaN C)" : "", (long long)c->pad, c->nt, nla_cpu_isa());
    return X(desc);
}

/* The operands of a case, with padding set as described above. */
typedef struct X(gdata) {
    int64_t ar, ac, br, bc, lda, ldb, ldc;
    size_t alen, blen, clen;
    TT *a, *b, *c, *cref, *cin;
    double *mag; /* |alpha| |A||B| + |beta C|, column-major m x n */
} X(gdata);

static void X(fill_matrix)(TT *x, nla_layout lay, int64_t ld, int64_t rows, int64_t cols,
                           size_t len, uint64_t seed, double pad_value, int nan)
{
    TT *v = malloc((size_t)(rows * cols + 1) * sizeof(TT));
    cr_assert(v);
    T_FILL(v, (size_t)(rows * cols), seed);
    for (size_t i = 0; i < len; i++)
        x[i] = (TT)pad_value;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++)
            x[off(lay, ld, r, c)] = nan ? (TT)NAN : v[r + c * rows];
    free(v);
}

static void X(gdata_make)(const X(gcase) *c, X(gdata) *d, uint64_t seed)
{
    d->ar = c->ta ? c->k : c->m;
    d->ac = c->ta ? c->m : c->k;
    d->br = c->tb ? c->n : c->k;
    d->bc = c->tb ? c->k : c->n;
    d->lda = min_ld(c->lay, d->ar, d->ac) + c->pad;
    d->ldb = min_ld(c->lay, d->br, d->bc) + c->pad;
    d->ldc = min_ld(c->lay, c->m, c->n) + c->pad;
    d->alen = buf_len(c->lay, d->lda, d->ar, d->ac);
    d->blen = buf_len(c->lay, d->ldb, d->br, d->bc);
    d->clen = buf_len(c->lay, d->ldc, c->m, c->n);
    d->a = malloc(d->alen * sizeof(TT));
    d->b = malloc(d->blen * sizeof(TT));
    d->c = malloc(d->clen * sizeof(TT));
    d->cref = malloc(d->clen * sizeof(TT));
    d->cin = malloc(d->clen * sizeof(TT));
    d->mag = malloc((size_t)(c->m * c->n + 1) * sizeof(double));
    cr_assert(d->a && d->b && d->c && d->cref && d->cin && d->mag);
    X(fill_matrix)(d->a, c->lay, d->lda, d->ar, d->ac, d->alen, seed, NAN, 0);
    X(fill_matrix)(d->b, c->lay, d->ldb, d->br, d->bc, d->blen, seed + 1, NAN, 0);
    X(fill_matrix)(d->c, c->lay, d->ldc, c->m, c->n, d->clen, seed + 2, SENTINEL, c->nan_c);
    memcpy(d->cin, d->c, d->clen * sizeof(TT));
    memcpy(d->cref, d->c, d->clen * sizeof(TT));
    if (c->nan_c)
        for (int64_t i = 0; i < c->m; i++)
            for (int64_t j = 0; j < c->n; j++)
                d->cref[off(c->lay, d->ldc, i, j)] = 0;
}

static void X(gdata_free)(X(gdata) *d)
{
    free(d->a);
    free(d->b);
    free(d->c);
    free(d->cref);
    free(d->cin);
    free(d->mag);
}

/* mag = |alpha| |op(A)| |op(B)| + |beta C0|, by CBLAS in double */
static void X(magnitudes)(const X(gcase) *c, X(gdata) *d)
{
    double *aa = calloc((size_t)(c->m * c->k + 1), sizeof(double));
    double *bb = calloc((size_t)(c->k * c->n + 1), sizeof(double));
    double beta = c->nan_c ? 0 : c->beta;

    cr_assert(aa && bb);
    for (int64_t i = 0; i < c->m; i++)
        for (int64_t l = 0; l < c->k; l++)
            aa[i + l * c->m] = fabs((double)d->a[c->ta ? off(c->lay, d->lda, l, i)
                                                        : off(c->lay, d->lda, i, l)]);
    for (int64_t l = 0; l < c->k; l++)
        for (int64_t j = 0; j < c->n; j++)
            bb[l + j * c->k] = fabs((double)d->b[c->tb ? off(c->lay, d->ldb, j, l)
                                                        : off(c->lay, d->ldb, l, j)]);
    for (int64_t i = 0; i < c->m; i++)
        for (int64_t j = 0; j < c->n; j++)
            d->mag[i + j * c->m] = fabs(beta * (double)d->cref[off(c->lay, d->ldc, i, j)]);
    if (c->m > 0 && c->n > 0 && c->k > 0)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)c->m, (int)c->n,
                    (int)c->k, fabs(c->alpha), aa, (int)c->m, bb, (int)c->k, 1.0, d->mag,
                    (int)c->m);
    free(aa);
    free(bb);
}

/* C against CBLAS's cref within the bound; C's padding untouched; for the
   BLAS quick return (m or n zero, or alpha or k zero with beta one) C is
   bitwise unchanged. */
static void X(check_c)(const X(gcase) *c, X(gdata) *d, const TT *cc)
{
    X(magnitudes)(c, d);
    for (int64_t i = 0; i < c->m; i++)
        for (int64_t j = 0; j < c->n; j++) {
            size_t o = off(c->lay, d->ldc, i, j);
            double got = cc[o], want = d->cref[o];
            double tol = 4.0 * (double)(c->k + 2) * T_EPS * d->mag[i + j * c->m];
            cr_assert(!isnan(got) && fabs(got - want) <= tol,
                      "%s: C(%lld,%lld) = %.17g, CBLAS %.17g, |err| %.3g > tol %.3g",
                      X(describe)(c), (long long)i, (long long)j, got, want,
                      fabs(got - want), tol);
        }
    for (size_t o = 0; o < d->clen; o++) {
        int64_t r = c->lay == NLA_COL_MAJOR ? (int64_t)o % d->ldc : (int64_t)o / d->ldc;
        int64_t s = c->lay == NLA_COL_MAJOR ? (int64_t)o / d->ldc : (int64_t)o % d->ldc;
        if (r >= c->m || s >= c->n)
            cr_assert(cc[o] == (TT)SENTINEL, "%s: C padding at %zu changed to %g",
                      X(describe)(c), o, (double)cc[o]);
    }
    if ((c->alpha == 0 || c->k == 0) && c->beta == 1 && !c->nan_c)
        cr_assert(memcmp(cc, d->cin, d->clen * sizeof(TT)) == 0,
                  "%s: quick return changed C", X(describe)(c));
}

static enum CBLAS_ORDER X(order)(const X(gcase) *c)
{
    return c->lay == NLA_COL_MAJOR ? CblasColMajor : CblasRowMajor;
}

static void X(reference)(const X(gcase) *c, X(gdata) *d)
{
    TT beta = (TT)(c->nan_c ? 0 : c->beta);
    if (c->m > 0 && c->n > 0)
        CB(gemm)(X(order)(c), c->ta ? CblasTrans : CblasNoTrans,
                 c->tb ? CblasTrans : CblasNoTrans, (int)c->m, (int)c->n, (int)c->k,
                 (TT)c->alpha, d->a, (int)d->lda, d->b, (int)d->ldb, beta, d->cref,
                 (int)d->ldc);
}

static nla_status X(call)(nla_context *ctx, const X(gcase) *c, const X(gdata) *d,
                          TT *cc)
{
    int noread = c->alpha == 0;
    return NLA(gemm)(ctx, c->lay, c->ta ? NLA_TRANS : NLA_NO_TRANS,
                     c->tb ? NLA_TRANS : NLA_NO_TRANS, c->m, c->n, c->k, (TT)c->alpha,
                     noread ? NULL : d->a, d->lda, noread ? NULL : d->b, d->ldb,
                     (TT)(c->nan_c ? 0 : c->beta), cc, d->ldc);
}

static void X(gemm_case)(nla_context *ctx, const X(gcase) *c)
{
    X(gdata) d;
    nla_status st;

    X(gdata_make)(c, &d, 100 + (uint64_t)(c->m * 7 + c->n * 5 + c->k * 3));
    cr_assert(nla_context_set_threads(ctx, c->nt) == NLA_OK);
    st = X(call)(ctx, c, &d, d.c);
    cr_assert(st == NLA_OK, "%s: status %d (%s)", X(describe)(c), st,
              nla_context_error(ctx));
    X(reference)(c, &d);
    X(check_c)(c, &d, d.c);
    X(gdata_free)(&d);
}

/* every layout, transpose pair, alpha and beta on the sizes {0,1,2,3,17}^3 */
static void X(gemm_small_sweep)(void)
{
    static const int64_t sz[] = { 0, 1, 2, 3, 17 };
    nla_context *ctx = ref_cpu_context();
    X(gcase) c = { .nt = 1, .pad = 2 };

    for (int lay = 0; lay < 2; lay++)
        for (int t = 0; t < 4; t++)
            for (size_t im = 0; im < 5; im++)
                for (size_t in = 0; in < 5; in++)
                    for (size_t ik = 0; ik < 5; ik++)
                        for (size_t ia = 0; ia < 3; ia++)
                            for (size_t ib = 0; ib < 4; ib++) {
                                c.lay = lay ? NLA_ROW_MAJOR : NLA_COL_MAJOR;
                                c.ta = t & 1;
                                c.tb = t >> 1;
                                c.m = sz[im];
                                c.n = sz[in];
                                c.k = sz[ik];
                                c.alpha = alphas[ia];
                                c.nan_c = betas[ib] < 0;
                                c.beta = c.nan_c ? 0 : betas[ib];
                                X(gemm_case)(ctx, &c);
                            }
    nla_context_destroy(ctx);
}

/* sizes around the block sizes, m != n != k, blocked and small paths */
static void X(gemm_shapes)(void)
{
    /* NLA_TEST_SMALL (refs.h): the largest shape keeps m past MC and k past
       two double KCs and the float KC */
    const int64_t shapes[][3] = {
        { 64, 64, 64 }, { 129, 129, 129 }, { 7, 31, 257 }, { 257, 7, 31 },
        { 31, 257, 7 }, { 129, 64, 17 }, { 17, 129, 64 }, { 257, 31, 129 },
        { REF_SIZE(200, 130), REF_SIZE(150, 20), REF_SIZE(600, 521) }, { 3, 300, 300 },
        { 300, 3, 300 }, { 1, 1, 700 },
    };
    nla_context *ctx = ref_cpu_context();
    X(gcase) c = { .nt = 1 };

    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int lay = 0; lay < 2; lay++)
            for (int t = 0; t < 4; t++) {
                c.lay = lay ? NLA_ROW_MAJOR : NLA_COL_MAJOR;
                c.ta = t & 1;
                c.tb = t >> 1;
                c.m = shapes[s][0];
                c.n = shapes[s][1];
                c.k = shapes[s][2];
                c.pad = (int64_t)(s % 3) * 5;
                /* rotate alpha/beta (incl. NaN C) through the shapes */
                c.alpha = (s + (size_t)t) % 5 == 4 ? 1 : 0.7;
                c.nan_c = (s + (size_t)t) % 4 == 0;
                c.beta = c.nan_c ? 0 : ((s + (size_t)lay) % 2 ? 0.7 : 1);
                c.nt = 1 + (int)(s % 2);
                X(gemm_case)(ctx, &c);
            }
    nla_context_destroy(ctx);
}

/* sizes that are not multiples of any MR, NR, MC or KC: every layout and
   transpose pair on { 1, 7, 31, 257 }, and 1000 for two of them */
static void X(gemm_sizes)(void)
{
    /* NLA_TEST_SMALL (refs.h): 257^3 keeps m and k at 257 (past MC and KC,
       still the unpacked path) */
    const int64_t shapes[][3] = {
        { 1, 1, 1 }, { 7, 7, 7 }, { 31, 31, 31 }, { 7, 31, 257 }, { 257, 7, 31 },
        { 31, 257, 7 }, { 257, REF_SIZE(257, 20), 257 }, { 1, 257, 31 }, { 257, 1, 7 },
        { 7, 257, 1 },
    };
    nla_context *ctx = ref_cpu_context();
    X(gcase) c = { .nt = 1, .alpha = 0.7 };

    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int lay = 0; lay < 2; lay++)
            for (int t = 0; t < 4; t++) {
                c.lay = lay ? NLA_ROW_MAJOR : NLA_COL_MAJOR;
                c.ta = t & 1;
                c.tb = t >> 1;
                c.m = shapes[s][0];
                c.n = shapes[s][1];
                c.k = shapes[s][2];
                c.pad = (int64_t)(s % 2) * 3;
                c.nan_c = (s + (size_t)t) % 3 == 0;
                c.beta = c.nan_c ? 0 : 0.7;
                X(gemm_case)(ctx, &c);
            }
    for (int t = 0; t < 4; t += 3) {
        c.lay = t ? NLA_ROW_MAJOR : NLA_COL_MAJOR;
        c.ta = t & 1;
        c.tb = t >> 1;
        /* NLA_TEST_SMALL: m = n = 130 and k = 521, still past MC, two double
           KCs and the float KC, on the packed path, multiples of no MR or NR */
        c.m = c.n = REF_SIZE(1000, 130);
        c.k = REF_SIZE(1000, 521);
        c.pad = 1;
        c.nan_c = 0;
        c.beta = 0.7;
        X(gemm_case)(ctx, &c);
    }
    nla_context_destroy(ctx);
}

/* the same product twice with 1 and with 2 threads: bitwise repeatable,
   and right */
static void X(gemm_threads)(void)
{
    /* NLA_TEST_SMALL (refs.h): still one packed (k past KC) and one unpacked
       shape, both above the threading threshold */
    const int64_t shapes[][3] = { { REF_SIZE(300, 260), REF_SIZE(280, 40), REF_SIZE(260, 521) },
                                  { 97, REF_SIZE(530, 130), 301 } };
    nla_context *ctx = ref_cpu_context();
    X(gcase) c = { .lay = NLA_COL_MAJOR, .alpha = 0.7, .beta = 0.7, .pad = 1 };

    for (size_t s = 0; s < 2; s++)
        for (int t = 0; t < 4; t += 3) {
            X(gdata) d;
            TT *r[2];
            c.ta = t & 1;
            c.tb = t >> 1;
            c.m = shapes[s][0];
            c.n = shapes[s][1];
            c.k = shapes[s][2];
            X(gdata_make)(&c, &d, 77);
            X(reference)(&c, &d);
            for (c.nt = 1; c.nt <= 2; c.nt++) {
                for (int rep = 0; rep < 2; rep++) {
                    r[rep] = malloc(d.clen * sizeof(TT));
                    cr_assert(r[rep]);
                    memcpy(r[rep], d.cin, d.clen * sizeof(TT));
                    cr_assert(nla_context_set_threads(ctx, c.nt) == NLA_OK);
                    cr_assert(X(call)(ctx, &c, &d, r[rep]) == NLA_OK, "%s: %s",
                              X(describe)(&c), nla_context_error(ctx));
                }
                cr_assert(memcmp(r[0], r[1], d.clen * sizeof(TT)) == 0,
                          "%s: two runs differ", X(describe)(&c));
                X(check_c)(&c, &d, r[0]);
                free(r[0]);
                free(r[1]);
            }
            X(gdata_free)(&d);
        }
    nla_context_destroy(ctx);
}

/* strided batches equal a loop of single nla GEMMs, and CBLAS */
static void X(gemm_batched)(void)
{
    static const int64_t shapes[][4] = {
        /* m, n, k, batch */
        { 20, 18, 22, 7 }, { 5, 3, 4, 9 }, { 130, 120, 110, 3 },
    };
    nla_context *ctx = ref_cpu_context();

    for (size_t s = 0; s < 3; s++)
        for (int lay = 0; lay < 2; lay++)
            for (int bcast = 0; bcast < 2; bcast++)
                for (int nt = 1; nt <= 2; nt++) {
                    X(gcase) c = { .lay = lay ? NLA_ROW_MAJOR : NLA_COL_MAJOR,
                                   .ta = bcast, .tb = (int)s & 1, .m = shapes[s][0],
                                   .n = shapes[s][1], .k = shapes[s][2], .alpha = 0.7,
                                   .beta = s == 1 ? 0 : 0.7, .pad = 1, .nt = nt };
                    int64_t batch = shapes[s][3];
                    X(gdata) d;
                    int64_t sa, sb, sc;
                    TT *a, *b, *cb, *cl;

                    X(gdata_make)(&c, &d, 500);
                    sa = bcast ? 0 : (int64_t)d.alen + 3;
                    sb = (int64_t)d.blen + 1;
                    sc = (int64_t)d.clen + 2;
                    a = malloc((size_t)(sa * (batch - 1) + (int64_t)d.alen) * sizeof(TT));
                    b = malloc((size_t)(sb * batch) * sizeof(TT));
                    cb = malloc((size_t)(sc * batch) * sizeof(TT));
                    cl = malloc((size_t)(sc * batch) * sizeof(TT));
                    cr_assert(a && b && cb && cl);
                    T_FILL(a, (size_t)(sa * (batch - 1) + (int64_t)d.alen), 31);
                    T_FILL(b, (size_t)(sb * batch), 37);
                    T_FILL(cb, (size_t)(sc * batch), 41);
                    for (int64_t q = 0; q < batch; q++) /* padding: sentinels */
                        memcpy(cb + q * sc, d.cin, d.clen * sizeof(TT));
                    memcpy(cl, cb, (size_t)(sc * batch) * sizeof(TT));
                    cr_assert(nla_context_set_threads(ctx, nt) == NLA_OK);
                    cr_assert(NLA(gemm_strided_batched)(ctx, c.lay,
                                  c.ta ? NLA_TRANS : NLA_NO_TRANS,
                                  c.tb ? NLA_TRANS : NLA_NO_TRANS, c.m, c.n, c.k,
                                  (TT)c.alpha, a, d.lda, sa, b, d.ldb, sb, (TT)c.beta, cb,
                                  d.ldc, sc, batch) == NLA_OK,
                              "%s batch=%lld: %s", X(describe)(&c), (long long)batch,
                              nla_context_error(ctx));
                    for (int64_t q = 0; q < batch; q++) {
                        X(gdata) dq = d;
                        dq.a = a + q * sa;
                        dq.b = b + q * sb;
                        cr_assert(X(call)(ctx, &c, &dq, cl + q * sc) == NLA_OK);
                        /* CBLAS on the same inputs */
                        memcpy(d.a, a + q * sa, d.alen * sizeof(TT));
                        memcpy(d.b, b + q * sb, d.blen * sizeof(TT));
                        memcpy(d.cref, d.cin, d.clen * sizeof(TT));
                        X(reference)(&c, &d);
                        X(check_c)(&c, &d, cb + q * sc);
                    }
                    cr_assert(memcmp(cb, cl, (size_t)(sc * batch) * sizeof(TT)) == 0,
                              "%s batch=%lld stride_a=%lld: batched differs from a loop "
                              "of single GEMMs",
                              X(describe)(&c), (long long)batch, (long long)sa);
                    X(gdata_free)(&d);
                    free(a);
                    free(b);
                    free(cb);
                    free(cl);
                }
    nla_context_destroy(ctx);
}

#endif
