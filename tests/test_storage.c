/*
 * test_storage.c - band and packed-symmetric conversions.
 *
 * Every result is compared, element by element and bit for bit, with an
 * expected array built here straight from the definitions in nla.h:
 *   band:   A(i,j) = ab[ku + i - j + j*ldab] for max(0,j-ku) <= i <= min(m-1,j+kl)
 *   upper:  A(i,j) = ap[i + j*(j+1)/2]       for i <= j
 *   lower:  A(i,j) = ap[i + j*(2n-j-1)/2]    for i >= j
 * Outputs are first filled with distinct sentinels, so a write outside the
 * band, the triangle or the m rows of a column shows up.  The band GAXPY is
 * checked against CBLAS gemv on the dense matrix.
 *
 * Both precisions run through the same checks: the float routines are
 * wrapped to take and return doubles, which is exact because every value
 * used (random floats, sentinels below 2^24) is a float.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <criterion/criterion.h>
#include "refs.h"

static const int64_t sizes[] = {0, 1, 2, 3, 17, 64, 129};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* ------------------------------------------------------- precision wrappers */

typedef struct prec {
    const char *name;
    /* lens: elements of the dense array and of the band/packed array */
    nla_status (*band_pack)(int64_t m, int64_t n, int64_t kl, int64_t ku,
                            const double *a, int64_t lda, double *ab, int64_t ldab,
                            size_t lena, size_t lenab);
    nla_status (*band_unpack)(int64_t m, int64_t n, int64_t kl, int64_t ku,
                              const double *ab, int64_t ldab, double *a, int64_t lda,
                              size_t lena, size_t lenab);
    nla_status (*band_diag)(int64_t m, int64_t n, int64_t kl, int64_t ku,
                            const double *dg, int64_t lddg, double *ab, int64_t ldab,
                            size_t lendg, size_t lenab);
    nla_status (*packed_pack)(nla_uplo uplo, int64_t n, const double *a, int64_t lda,
                              double *ap, size_t lena, size_t lenap);
    nla_status (*packed_unpack)(nla_uplo uplo, int64_t n, const double *ap, double *a,
                                int64_t lda, size_t lena, size_t lenap);
    void (*fill)(double *x, size_t n, uint64_t seed); /* values of this precision */
} prec;

static nla_status d_band_pack(int64_t m, int64_t n, int64_t kl, int64_t ku,
                              const double *a, int64_t lda, double *ab, int64_t ldab,
                              size_t lena, size_t lenab)
{
    (void)lena; (void)lenab;
    return nla_dband_pack(m, n, kl, ku, a, lda, ab, ldab);
}

static nla_status d_band_unpack(int64_t m, int64_t n, int64_t kl, int64_t ku,
                                const double *ab, int64_t ldab, double *a, int64_t lda,
                                size_t lena, size_t lenab)
{
    (void)lena; (void)lenab;
    return nla_dband_unpack(m, n, kl, ku, ab, ldab, a, lda);
}

static nla_status d_band_diag(int64_t m, int64_t n, int64_t kl, int64_t ku,
                              const double *dg, int64_t lddg, double *ab, int64_t ldab,
                              size_t lendg, size_t lenab)
{
    (void)lendg; (void)lenab;
    return nla_dband_from_diagonals(m, n, kl, ku, dg, lddg, ab, ldab);
}

static nla_status d_packed_pack(nla_uplo uplo, int64_t n, const double *a, int64_t lda,
                                double *ap, size_t lena, size_t lenap)
{
    (void)lena; (void)lenap;
    return nla_dpacked_pack(uplo, n, a, lda, ap);
}

static nla_status d_packed_unpack(nla_uplo uplo, int64_t n, const double *ap, double *a,
                                  int64_t lda, size_t lena, size_t lenap)
{
    (void)lena; (void)lenap;
    return nla_dpacked_unpack(uplo, n, ap, a, lda);
}

static float *to_float(const double *x, size_t n)
{
    float *f = malloc((n ? n : 1) * sizeof *f);
    cr_assert_not_null(f);
    for (size_t i = 0; i < n; i++)
        f[i] = (float)x[i];
    return f;
}

static void from_float(double *x, float *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = f[i];
    free(f);
}

/* a float band conversion (pack, unpack, from diagonals: in -> out), on
   float copies of the double arrays */
typedef nla_status sband_in_fn(int64_t, int64_t, int64_t, int64_t, const float *, int64_t,
                               float *, int64_t);

static nla_status s_band_in(sband_in_fn *fn, int64_t m, int64_t n, int64_t kl, int64_t ku,
                            const double *in, int64_t ldin, double *out, int64_t ldout,
                            size_t lenin, size_t lenout)
{
    float *fin = to_float(in, lenin), *fout = to_float(out, lenout);
    nla_status s = fn(m, n, kl, ku, fin, ldin, fout, ldout);
    free(fin);
    from_float(out, fout, lenout);
    return s;
}

static nla_status s_band_pack(int64_t m, int64_t n, int64_t kl, int64_t ku,
                              const double *a, int64_t lda, double *ab, int64_t ldab,
                              size_t lena, size_t lenab)
{
    return s_band_in(nla_sband_pack, m, n, kl, ku, a, lda, ab, ldab, lena, lenab);
}

static nla_status s_band_unpack(int64_t m, int64_t n, int64_t kl, int64_t ku,
                                const double *ab, int64_t ldab, double *a, int64_t lda,
                                size_t lena, size_t lenab)
{
    return s_band_in(nla_sband_unpack, m, n, kl, ku, ab, ldab, a, lda, lenab, lena);
}

static nla_status s_band_diag(int64_t m, int64_t n, int64_t kl, int64_t ku,
                              const double *dg, int64_t lddg, double *ab, int64_t ldab,
                              size_t lendg, size_t lenab)
{
    return s_band_in(nla_sband_from_diagonals, m, n, kl, ku, dg, lddg, ab, ldab, lendg, lenab);
}

static nla_status s_packed_pack(nla_uplo uplo, int64_t n, const double *a, int64_t lda,
                                double *ap, size_t lena, size_t lenap)
{
    float *fa = to_float(a, lena), *fap = to_float(ap, lenap);
    nla_status s = nla_spacked_pack(uplo, n, fa, lda, fap);
    free(fa);
    from_float(ap, fap, lenap);
    return s;
}

static nla_status s_packed_unpack(nla_uplo uplo, int64_t n, const double *ap, double *a,
                                  int64_t lda, size_t lena, size_t lenap)
{
    float *fa = to_float(a, lena), *fap = to_float(ap, lenap);
    nla_status s = nla_spacked_unpack(uplo, n, fap, fa, lda);
    free(fap);
    from_float(a, fa, lena);
    return s;
}

static void fill_float_values(double *x, size_t n, uint64_t seed)
{
    ref_fill(x, n, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)x[i];
}

static const prec precs[] = {
    {"d", d_band_pack, d_band_unpack, d_band_diag, d_packed_pack, d_packed_unpack, ref_fill},
    {"s", s_band_pack, s_band_unpack, s_band_diag, s_packed_pack, s_packed_unpack,
     fill_float_values},
};

/* ------------------------------------------------------------------ helpers */

/* Distinct, float-exact values that no routine could produce by accident. */
static void fill_sentinel(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = 1000.5 + (double)(i % 4000000);
}

static double *alloc_d(size_t n)
{
    double *p = malloc((n ? n : 1) * sizeof *p);
    cr_assert_not_null(p);
    return p;
}

/* Index of the first element where got and want differ bitwise, or -1. */
static int64_t first_diff(const double *got, const double *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof got[i]) != 0)
            return (int64_t)i;
    return -1;
}

static int in_band(int64_t i, int64_t j, int64_t kl, int64_t ku)
{
    /* i - j <= kl and j - i <= ku, written without overflow for huge kl/ku */
    return (i >= j) ? (i - j <= kl) : (j - i <= ku);
}

/* ------------------------------------------------------------------- band */

static void check_band(const prec *p, int64_t m, int64_t n, int64_t kl, int64_t ku,
                       int64_t lda, int64_t ldab, uint64_t seed)
{
    size_t lena = (size_t)(lda * n), lenab = (size_t)(ldab * n);
    double *a = alloc_d(lena), *ab = alloc_d(lenab), *want = alloc_d(lenab);
    double *back = alloc_d(lena), *wantback = alloc_d(lena);
    int64_t bad;
    nla_status s;

    p->fill(a, lena, seed);

    /* pack: band positions of ab get A(i,j); everything else keeps its sentinel */
    fill_sentinel(ab, lenab);
    fill_sentinel(want, lenab);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            if (in_band(i, j, kl, ku))
                want[ku + i - j + j * ldab] = a[i + j * lda];
    s = p->band_pack(m, n, kl, ku, a, lda, ab, ldab, lena, lenab);
    cr_assert_eq(s, NLA_OK, "nla_%sband_pack(m=%lld n=%lld kl=%lld ku=%lld lda=%lld "
                 "ldab=%lld): status %d (%s)", p->name, (long long)m, (long long)n,
                 (long long)kl, (long long)ku, (long long)lda, (long long)ldab, s,
                 nla_last_error());
    bad = first_diff(ab, want, lenab);
    cr_assert_eq(bad, -1, "nla_%sband_pack(m=%lld n=%lld kl=%lld ku=%lld lda=%lld "
                 "ldab=%lld): ab[%lld] (row %lld, col %lld) = %g, expected %g",
                 p->name, (long long)m, (long long)n, (long long)kl, (long long)ku,
                 (long long)lda, (long long)ldab, (long long)bad,
                 (long long)(bad % (ldab ? ldab : 1)), (long long)(bad / (ldab ? ldab : 1)),
                 bad >= 0 ? ab[bad] : 0.0, bad >= 0 ? want[bad] : 0.0);

    /* the same band from the diagonals: dg's entries outside the matrix
       hold other sentinels, which must not be read; lddg minimal, then
       padded */
    {
        int64_t w = kl + ku + 1;
        for (int pad = 0; pad <= 2; pad += 2) {
            int64_t lddg = (n > 1 ? n : 1) + pad;
            size_t lendg = (size_t)(lddg * w);
            double *dg = alloc_d(lendg), *ab2 = alloc_d(lenab);
            for (size_t t = 0; t < lendg; t++)
                dg[t] = -500.25 - (double)(t % 100000);
            for (int64_t j = 0; j < n; j++)
                for (int64_t r = 0; r < w; r++) {
                    int64_t i = j - ku + r;
                    if (i >= 0 && i < m)
                        dg[j + r * lddg] = a[i + j * lda];
                }
            fill_sentinel(ab2, lenab);
            s = p->band_diag(m, n, kl, ku, dg, lddg, ab2, ldab, lendg, lenab);
            cr_assert_eq(s, NLA_OK, "nla_%sband_from_diagonals(m=%lld n=%lld kl=%lld "
                         "ku=%lld lddg=%lld ldab=%lld): status %d (%s)", p->name,
                         (long long)m, (long long)n, (long long)kl, (long long)ku,
                         (long long)lddg, (long long)ldab, s, nla_last_error());
            bad = first_diff(ab2, want, lenab);
            cr_assert_eq(bad, -1, "nla_%sband_from_diagonals(m=%lld n=%lld kl=%lld ku=%lld "
                         "lddg=%lld ldab=%lld): ab[%lld] = %g, expected %g", p->name,
                         (long long)m, (long long)n, (long long)kl, (long long)ku,
                         (long long)lddg, (long long)ldab, (long long)bad,
                         bad >= 0 ? ab2[bad] : 0.0, bad >= 0 ? want[bad] : 0.0);
            free(dg);
            free(ab2);
        }
    }

    /* unpack the packed ab (its non-band positions hold sentinels, which
       must not be read): the whole m x n a, zeros outside the band, the
       rows from m to lda untouched */
    fill_sentinel(back, lena);
    fill_sentinel(wantback, lena);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            wantback[i + j * lda] = in_band(i, j, kl, ku) ? a[i + j * lda] : 0.0;
    s = p->band_unpack(m, n, kl, ku, ab, ldab, back, lda, lena, lenab);
    cr_assert_eq(s, NLA_OK, "nla_%sband_unpack(m=%lld n=%lld kl=%lld ku=%lld lda=%lld "
                 "ldab=%lld): status %d (%s)", p->name, (long long)m, (long long)n,
                 (long long)kl, (long long)ku, (long long)lda, (long long)ldab, s,
                 nla_last_error());
    bad = first_diff(back, wantback, lena);
    cr_assert_eq(bad, -1, "nla_%sband_unpack(m=%lld n=%lld kl=%lld ku=%lld lda=%lld "
                 "ldab=%lld): a[%lld] (row %lld, col %lld) = %g, expected %g",
                 p->name, (long long)m, (long long)n, (long long)kl, (long long)ku,
                 (long long)lda, (long long)ldab, (long long)bad,
                 (long long)(bad % (lda ? lda : 1)), (long long)(bad / (lda ? lda : 1)),
                 bad >= 0 ? back[bad] : 0.0, bad >= 0 ? wantback[bad] : 0.0);

    free(a); free(ab); free(want); free(back); free(wantback);
}

/* The bandwidths to try for an m x n matrix: 0, 1, 3, n-1, and more than
   m and n. */
static int bandwidths(int64_t m, int64_t n, int64_t *out)
{
    int64_t big = (m > n ? m : n) + 5;
    int cnt = 0;
    out[cnt++] = 0;
    out[cnt++] = 1;
    out[cnt++] = 3;
    if (n - 1 > 3)
        out[cnt++] = n - 1;
    if (m - 1 > 3 && m != n)
        out[cnt++] = m - 1;
    out[cnt++] = big;
    return cnt;
}

static void band_sweep(const prec *p)
{
    uint64_t seed = 1;
    int cases = 0;
    for (size_t im = 0; im < NSIZES; im++)
        for (size_t in = 0; in < NSIZES; in++) {
            int64_t m = sizes[im], n = sizes[in], kls[8];
            int nk = bandwidths(m, n, kls);
            for (int x = 0; x < nk; x++)
                for (int y = 0; y < nk; y++) {
                    int64_t kl = kls[x], ku = kls[y];
                    int64_t lda0 = m > 1 ? m : 1, ldab0 = kl + ku + 1;
                    /* minimal leading dimensions, then padded ones */
                    check_band(p, m, n, kl, ku, lda0, ldab0, seed++);
                    check_band(p, m, n, kl, ku, lda0 + 3, ldab0 + 2, seed++);
                    cases += 2;
                }
        }
    cr_assert_gt(cases, 500, "band sweep ran only %d cases", cases);
}

Test(storage, band_pack_unpack_d) { band_sweep(&precs[0]); }
Test(storage, band_pack_unpack_s) { band_sweep(&precs[1]); }

/* kl and ku far beyond m and n, where ku + i - j must be computed without
   trouble: ldab is huge but n is 1, so ab stays small. */
Test(storage, band_huge_bandwidth_one_column)
{
    for (int ip = 0; ip < 2; ip++)
        for (int64_t m = 0; m <= 5; m++) {
            check_band(&precs[ip], m, 1, 1000, 0, m + 1, 1001, 7);
            check_band(&precs[ip], m, 1, 0, 1000, m + 1, 1001, 8);
            check_band(&precs[ip], m, 1, 500, 500, m + 1, 1001, 9);
        }
}

/* ----------------------------------------------------------------- packed */

static int64_t packed_index(nla_uplo uplo, int64_t n, int64_t i, int64_t j)
{
    return uplo == NLA_UPPER ? i + j * (j + 1) / 2 : i + j * (2 * n - j - 1) / 2;
}

static void check_packed(const prec *p, nla_uplo uplo, int64_t n, int64_t lda,
                         uint64_t seed)
{
    const char *ul = uplo == NLA_UPPER ? "upper" : "lower";
    size_t lena = (size_t)(lda * n), lenp = (size_t)(n * (n + 1) / 2), guard = 5;
    double *a = alloc_d(lena), *ap = alloc_d(lenp + guard), *want = alloc_d(lenp + guard);
    double *back = alloc_d(lena), *wantback = alloc_d(lena);
    int64_t bad;
    nla_status s;

    /* the other triangle (and the padding rows) hold NaN: pack must not read them */
    p->fill(a, lena, seed);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < lda; i++)
            if (i >= n || (uplo == NLA_UPPER ? i > j : i < j))
                a[i + j * lda] = NAN;

    fill_sentinel(ap, lenp + guard);
    fill_sentinel(want, lenp + guard);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++)
            if (uplo == NLA_UPPER ? i <= j : i >= j)
                want[packed_index(uplo, n, i, j)] = a[i + j * lda];
    s = p->packed_pack(uplo, n, a, lda, ap, lena, lenp + guard);
    cr_assert_eq(s, NLA_OK, "nla_%spacked_pack(%s n=%lld lda=%lld): status %d (%s)",
                 p->name, ul, (long long)n, (long long)lda, s, nla_last_error());
    bad = first_diff(ap, want, lenp + guard);
    cr_assert_eq(bad, -1, "nla_%spacked_pack(%s n=%lld lda=%lld): ap[%lld] = %g, "
                 "expected %g (%s)", p->name, ul, (long long)n, (long long)lda,
                 (long long)bad, bad >= 0 ? ap[bad] : 0.0, bad >= 0 ? want[bad] : 0.0,
                 bad >= (int64_t)lenp ? "past the end of ap" : "inside ap");

    /* unpack: the full symmetric matrix, padding rows untouched */
    fill_sentinel(back, lena);
    fill_sentinel(wantback, lena);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            int64_t r = i, c = j;
            if (uplo == NLA_UPPER ? i > j : i < j) {
                r = j;
                c = i;
            }
            wantback[i + j * lda] = ap[packed_index(uplo, n, r, c)];
        }
    s = p->packed_unpack(uplo, n, ap, back, lda, lena, lenp + guard);
    cr_assert_eq(s, NLA_OK, "nla_%spacked_unpack(%s n=%lld lda=%lld): status %d (%s)",
                 p->name, ul, (long long)n, (long long)lda, s, nla_last_error());
    bad = first_diff(back, wantback, lena);
    cr_assert_eq(bad, -1, "nla_%spacked_unpack(%s n=%lld lda=%lld): a[%lld] (row %lld, "
                 "col %lld) = %g, expected %g", p->name, ul, (long long)n, (long long)lda,
                 (long long)bad, (long long)(bad % (lda ? lda : 1)),
                 (long long)(bad / (lda ? lda : 1)), bad >= 0 ? back[bad] : 0.0,
                 bad >= 0 ? wantback[bad] : 0.0);

    /* pack then unpack is the symmetrization of the chosen triangle of a */
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            int in_tri = uplo == NLA_UPPER ? i <= j : i >= j;
            double sym = in_tri ? a[i + j * lda] : a[j + i * lda];
            cr_assert(memcmp(&back[i + j * lda], &sym, sizeof sym) == 0,
                      "nla_%spacked pack+unpack(%s n=%lld lda=%lld): A(%lld,%lld) = %g, "
                      "the symmetrized matrix has %g", p->name, ul, (long long)n,
                      (long long)lda, (long long)i, (long long)j, back[i + j * lda], sym);
        }

    free(a); free(ap); free(want); free(back); free(wantback);
}

static void packed_sweep(const prec *p)
{
    uint64_t seed = 100;
    for (size_t in = 0; in < NSIZES; in++) {
        int64_t n = sizes[in], lda0 = n > 1 ? n : 1;
        for (int u = 0; u < 2; u++) {
            nla_uplo uplo = u ? NLA_LOWER : NLA_UPPER;
            check_packed(p, uplo, n, lda0, seed++);
            check_packed(p, uplo, n, lda0 + 4, seed++);
        }
    }
}

Test(storage, packed_pack_unpack_d) { packed_sweep(&precs[0]); }
Test(storage, packed_pack_unpack_s) { packed_sweep(&precs[1]); }

/* Packing a symmetric matrix with either triangle gives the same matrix back. */
Test(storage, packed_upper_lower_agree)
{
    int64_t n = 17, lda = 20;
    double a[20 * 17], ap[17 * 18 / 2], up[20 * 17], lo[20 * 17];
    ref_fill(a, sizeof a / sizeof a[0], 55);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = j + 1; i < n; i++)
            a[i + j * lda] = a[j + i * lda];
    fill_sentinel(up, sizeof up / sizeof up[0]);
    fill_sentinel(lo, sizeof lo / sizeof lo[0]);
    cr_assert_eq(nla_dpacked_pack(NLA_UPPER, n, a, lda, ap), NLA_OK);
    cr_assert_eq(nla_dpacked_unpack(NLA_UPPER, n, ap, up, lda), NLA_OK);
    cr_assert_eq(nla_dpacked_pack(NLA_LOWER, n, a, lda, ap), NLA_OK);
    cr_assert_eq(nla_dpacked_unpack(NLA_LOWER, n, ap, lo, lda), NLA_OK);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < lda; i++)
            cr_assert(memcmp(&up[i + j * lda], &lo[i + j * lda], sizeof(double)) == 0 &&
                      (i >= n || up[i + j * lda] == a[i + j * lda]),
                      "upper/lower round trips differ at (%lld,%lld): %g vs %g",
                      (long long)i, (long long)j, up[i + j * lda], lo[i + j * lda]);
}

/* ------------------------------------------------ band GAXPY against CBLAS */

static double gbmv_tol(double eps, int64_t len, double alpha, double amax, double xmax,
                       double beta, double ymax)
{
    return 4.0 * eps * (double)(len + 2) *
           (fabs(alpha) * amax * xmax * (double)(len + 1) + fabs(beta) * ymax) + 1e-300;
}

static void check_gbmv(nla_context *ctx, int dbl, nla_trans trans, int64_t m, int64_t n,
                       int64_t kl, int64_t ku, int64_t incx, int64_t incy, uint64_t seed)
{
    int64_t lda = (m > 1 ? m : 1) + 1, ldab = kl + ku + 2;
    int64_t lx = trans == NLA_NO_TRANS ? n : m, ly = trans == NLA_NO_TRANS ? m : n;
    size_t lena = (size_t)(lda * n), lenab = (size_t)(ldab * n);
    size_t nx = (size_t)(lx > 0 ? (lx - 1) * llabs(incx) + 1 : 1);
    size_t ny = (size_t)(ly > 0 ? (ly - 1) * llabs(incy) + 1 : 1);
    double alpha = 1.25, beta = -0.5;
    double *a = alloc_d(lena), *ab = alloc_d(lenab), *x = alloc_d(nx);
    double *y = alloc_d(ny), *yref = alloc_d(ny);
    nla_status s;
    double diff, tol;
    const char *tn = trans == NLA_NO_TRANS ? "N" : "T";

    precs[dbl ? 0 : 1].fill(a, lena, seed);
    precs[dbl ? 0 : 1].fill(x, nx, seed + 1);
    precs[dbl ? 0 : 1].fill(y, ny, seed + 2);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            if (!in_band(i, j, kl, ku))
                a[i + j * lda] = 0;
    memcpy(yref, y, ny * sizeof *y);
    fill_sentinel(ab, lenab);

    if (dbl) {
        cr_assert_eq(nla_dband_pack(m, n, kl, ku, a, lda, ab, ldab), NLA_OK, "%s",
                     nla_last_error());
        s = nla_dgbmv(ctx, trans, m, n, kl, ku, alpha, ab, ldab, x, incx, beta, y, incy);
        cblas_dgemv(CblasColMajor, trans == NLA_NO_TRANS ? CblasNoTrans : CblasTrans,
                    (int)m, (int)n, alpha, a, (int)lda, x, (int)incx, beta, yref,
                    (int)incy);
    } else {
        float *fa = to_float(a, lena), *fab = to_float(ab, lenab);
        float *fx = to_float(x, nx), *fy = to_float(y, ny), *fyref = to_float(yref, ny);
        cr_assert_eq(nla_sband_pack(m, n, kl, ku, fa, lda, fab, ldab), NLA_OK, "%s",
                     nla_last_error());
        s = nla_sgbmv(ctx, trans, m, n, kl, ku, (float)alpha, fab, ldab, fx, incx,
                      (float)beta, fy, incy);
        cblas_sgemv(CblasColMajor, trans == NLA_NO_TRANS ? CblasNoTrans : CblasTrans,
                    (int)m, (int)n, (float)alpha, fa, (int)lda, fx, (int)incx,
                    (float)beta, fyref, (int)incy);
        free(fa); free(fab); free(fx);
        from_float(y, fy, ny);
        from_float(yref, fyref, ny);
    }
    cr_assert_eq(s, NLA_OK, "nla_%sgbmv(%s m=%lld n=%lld kl=%lld ku=%lld incx=%lld "
                 "incy=%lld): status %d (%s)", dbl ? "d" : "s", tn, (long long)m,
                 (long long)n, (long long)kl, (long long)ku, (long long)incx,
                 (long long)incy, s, nla_context_error(ctx));
    diff = ref_max_diff(y, yref, ny);
    tol = gbmv_tol(dbl ? 0x1p-52 : 0x1p-23, m > n ? m : n, alpha, ref_max_abs(a, lena),
                   ref_max_abs(x, nx), beta, ref_max_abs(yref, ny) + 1);
    cr_assert(diff <= tol, "nla_%sgbmv(%s m=%lld n=%lld kl=%lld ku=%lld incx=%lld "
              "incy=%lld) vs cblas_%sgemv: max diff %g > tol %g", dbl ? "d" : "s", tn,
              (long long)m, (long long)n, (long long)kl, (long long)ku, (long long)incx,
              (long long)incy, dbl ? "d" : "s", diff, tol);
    free(a); free(ab); free(x); free(y); free(yref);
}

static void gbmv_sweep(int dbl)
{
    static const int64_t gs[] = {0, 1, 2, 3, 7, 17, 40};
    static const int64_t incs[][2] = {{1, 1}, {2, 3}, {-1, 1}, {1, -2}, {-3, -1}};
    nla_context *ctx = ref_cpu_context();
    uint64_t seed = 900;
    for (size_t im = 0; im < sizeof gs / sizeof gs[0]; im++)
        for (size_t in = 0; in < sizeof gs / sizeof gs[0]; in++) {
            int64_t m = gs[im], n = gs[in], kls[8];
            int nk = bandwidths(m, n, kls);
            for (int x = 0; x < nk; x++)
                for (int y = 0; y < nk; y++)
                    for (int t = 0; t < 2; t++)
                        for (size_t ii = 0; ii < sizeof incs / sizeof incs[0]; ii++)
                            check_gbmv(ctx, dbl, t ? NLA_TRANS : NLA_NO_TRANS, m, n,
                                       kls[x], kls[y], incs[ii][0], incs[ii][1], seed++);
        }
    nla_context_destroy(ctx);
}

Test(storage, gbmv_matches_dense_gemv_d) { gbmv_sweep(1); }
Test(storage, gbmv_matches_dense_gemv_s) { gbmv_sweep(0); }
