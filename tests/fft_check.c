/*
 * fft_check.c - the FFT suites' shared checks (fft_check.h).
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fftw3.h>
#include "fft_check.h"
#include "refs.h"

double fc_eps_of(nla_precision p) { return p == NLA_DOUBLE ? DBL_EPSILON : FLT_EPSILON; }
double fc_lg2(int64_t n) { return n > 1 ? log2((double)n) : 1.0; }
size_t fc_rsz(nla_precision p) { return p == NLA_DOUBLE ? sizeof(double) : sizeof(float); }

/* n reals (or n complex: 2n reals) uniform in [-0.5, 0.5), stored in the
   precision p, and the same values in long double. */
void *fc_rand_real(nla_precision p, size_t count, uint64_t seed, ld *copy)
{
    double *d = malloc(count * sizeof *d);
    void *x = malloc(count * fc_rsz(p) + 64);
    cr_assert(d && x);
    ref_fill(d, count, seed);
    for (size_t i = 0; i < count; i++) {
        double v = 0.5 * d[i];
        if (p == NLA_DOUBLE)
            ((double *)x)[i] = v;
        else
            ((float *)x)[i] = (float)v;
        if (copy)
            copy[i] = p == NLA_DOUBLE ? (ld)v : (ld)(float)v;
    }
    free(d);
    return x;
}

ld fc_get(const void *x, nla_precision p, size_t i)
{
    return p == NLA_DOUBLE ? (ld)((const double *)x)[i] : (ld)((const float *)x)[i];
}

/* ||y - ref|| / ||ref|| over count reals */
double fc_rel_l2(const void *y, nla_precision p, const ld *ref, size_t count)
{
    ld num = 0, den = 0;
    for (size_t i = 0; i < count; i++) {
        ld e = fc_get(y, p, i) - ref[i];
        num += e * e;
        den += ref[i] * ref[i];
    }
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}

/* the exact-ish DFT: fftw3l, complex interleaved in long double */
void fc_ref_c2c(int64_t n, int dir, const ld *in, ld *out)
{
    fftwl_complex *a = fftwl_malloc(sizeof *a * (size_t)n), *b = fftwl_malloc(sizeof *b * (size_t)n);
    fftwl_plan fp;
    cr_assert(a && b);
    fp = fftwl_plan_dft_1d((int)n, a, b, dir, FFTW_ESTIMATE);
    for (int64_t i = 0; i < n; i++) {
        a[i][0] = in[2 * i];
        a[i][1] = in[2 * i + 1];
    }
    fftwl_execute(fp);
    for (int64_t i = 0; i < n; i++) {
        out[2 * i] = b[i][0];
        out[2 * i + 1] = b[i][1];
    }
    fftwl_destroy_plan(fp);
    fftwl_free(a);
    fftwl_free(b);
}

nla_fft_plan *fc_plan_desc(nla_context *ctx, const nla_fft_desc *d)
{
    nla_fft_plan *p = NULL;
    nla_status s = nla_fft_plan_create(ctx, d, &p);
    cr_assert_eq(s, NLA_OK, "plan_create: %s", nla_context_error(ctx));
    return p;
}

nla_fft_desc fc_desc_of(nla_fft_kind k, nla_precision p, int dir, int64_t n)
{
    nla_fft_desc d;
    memset(&d, 0, sizeof d);
    d.kind = k;
    d.precision = p;
    d.direction = dir;
    d.n = n;
    return d;
}

/* c2c of random data against fftw3l; returns err / (eps log2 n) */
double fc_c2c_err(nla_context *ctx, nla_precision p, int dir, int64_t n, int inplace)
{
    ld *xin = malloc(sizeof(ld) * 2 * (size_t)n), *ref = malloc(sizeof(ld) * 2 * (size_t)n);
    void *x = fc_rand_real(p, 2 * (size_t)n, (uint64_t)n * 7 + (uint64_t)(dir + 2), xin);
    void *y = inplace ? x : malloc(2 * (size_t)n * fc_rsz(p));
    void *x0 = malloc(2 * (size_t)n * fc_rsz(p));
    nla_fft_desc d = fc_desc_of(NLA_FFT_C2C, p, dir, n);
    nla_fft_plan *pl = fc_plan_desc(ctx, &d);
    double e;

    memcpy(x0, x, 2 * (size_t)n * fc_rsz(p));
    cr_assert_eq(nla_fft_execute(pl, x, y), NLA_OK, "%s", nla_last_error());
    if (!inplace)
        cr_assert(memcmp(x, x0, 2 * (size_t)n * fc_rsz(p)) == 0, "out-of-place input modified");
    fc_ref_c2c(n, dir, xin, ref);
    e = fc_rel_l2(y, p, ref, 2 * (size_t)n) / (fc_eps_of(p) * fc_lg2(n));
    nla_fft_plan_destroy(pl);
    if (!inplace)
        free(y);
    free(x);
    free(x0);
    free(xin);
    free(ref);
    return e;
}


/* n that takes passes on every instruction set, no Bluestein: its prime
   factors are at most 127 (2 to 13 by the codelet passes, the others by
   the generic one), and those over 19, whose generic pass takes
   Bluestein's place only where it fills a vector, leave n/g >= 8 (g their
   product: a generic pass then has s >= 8, a vector of floats at most) */
int fc_smooth(int64_t n)
{
    int64_t g = 1, m = n;
    for (int64_t f = 2; f <= 127; f++)
        while (m % f == 0) {
            m /= f;
            g *= f > 19 ? f : 1;
        }
    return m == 1 && n / g >= 8;
}

/* R2C against the C2C of the real data; C2R against the C2C of the full
   Hermitian array; in place with FFTW's padding as well.  Bound: bf
   eps log2(n). */
void fc_real_check(nla_context *ctx, nla_precision p, int64_t n, double bf)
{
    int64_t h = n / 2 + 1;
    size_t es = fc_rsz(p);
    ld *xl = malloc(sizeof(ld) * (size_t)n), *cin = calloc(2 * (size_t)n, sizeof(ld));
    ld *cout = malloc(sizeof(ld) * 2 * (size_t)n), *rout = malloc(sizeof(ld) * (size_t)n);
    void *x = fc_rand_real(p, (size_t)n, 21 + (uint64_t)n, xl);
    void *X = malloc(2 * (size_t)h * es), *xr = malloc((size_t)n * es);
    void *pad = malloc(2 * (size_t)h * es), *x0 = malloc((size_t)n * es);
    nla_fft_desc dr = fc_desc_of(NLA_FFT_R2C, p, NLA_FFT_FORWARD, n);
    nla_fft_desc dc = fc_desc_of(NLA_FFT_C2R, p, NLA_FFT_BACKWARD, n);
    nla_fft_plan *pr = fc_plan_desc(ctx, &dr), *pc = fc_plan_desc(ctx, &dc);
    double e, bound = bf * fc_eps_of(p) * fc_lg2(n);
    void *X0 = malloc(2 * (size_t)h * es);

    memcpy(x0, x, (size_t)n * es);
    cr_assert_eq(nla_fft_execute(pr, x, X), NLA_OK, "%s", nla_last_error());
    cr_assert(memcmp(x, x0, (size_t)n * es) == 0);
    for (int64_t j = 0; j < n; j++)
        cin[2 * j] = xl[j];
    fc_ref_c2c(n, -1, cin, cout);
    e = fc_rel_l2(X, p, cout, 2 * (size_t)h);
    cr_expect(e <= bound, "%s n=%lld: r2c error %.3g", p == NLA_FLOAT ? "s" : "d", (long long)n, e);
    /* in place: n reals in a buffer of 2h */
    memcpy(pad, x, (size_t)n * es);
    cr_assert_eq(nla_fft_execute(pr, pad, pad), NLA_OK);
    cr_expect(memcmp(pad, X, 2 * (size_t)h * es) == 0, "n=%lld: in-place r2c differs",
              (long long)n);

    /* C2R of the half spectrum X: compare with the C2C backward of its
       Hermitian extension; the input is not modified */
    for (int64_t k = 0; k < n; k++) {
        int64_t kk = k < h ? k : n - k;
        cin[2 * k] = fc_get(X, p, 2 * (size_t)kk);
        cin[2 * k + 1] = (k < h ? 1 : -1) * fc_get(X, p, 2 * (size_t)kk + 1);
    }
    cin[1] = 0;
    if (n % 2 == 0)
        cin[2 * (n / 2) + 1] = 0;
    fc_ref_c2c(n, 1, cin, cout);
    for (int64_t j = 0; j < n; j++)
        rout[j] = cout[2 * j];
    memcpy(X0, X, 2 * (size_t)h * es);
    cr_assert_eq(nla_fft_execute(pc, X, xr), NLA_OK, "%s", nla_last_error());
    cr_assert(memcmp(X, X0, 2 * (size_t)h * es) == 0, "c2r modified its input");
    e = fc_rel_l2(xr, p, rout, (size_t)n);
    cr_expect(e <= bound, "%s n=%lld: c2r error %.3g", p == NLA_FLOAT ? "s" : "d", (long long)n, e);
    memcpy(pad, X, 2 * (size_t)h * es);
    cr_assert_eq(nla_fft_execute(pc, pad, pad), NLA_OK);
    cr_expect(memcmp(pad, xr, (size_t)n * es) == 0, "n=%lld: in-place c2r differs",
              (long long)n);

    nla_fft_plan_destroy(pr);
    nla_fft_plan_destroy(pc);
    free(xl); free(cin); free(cout); free(rout); free(x); free(X); free(xr);
    free(pad); free(x0); free(X0);
}