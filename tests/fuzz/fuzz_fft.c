/*
 * fuzz_fft.c - libFuzzer harness: FFT plan creation (nla_fft_plan_create,
 * nla_fft_plan_1d) and execution (nla_fft_execute and the typed
 * nla_fft_execute_*) with random descriptors.
 *
 * The input picks the routine, a NULL pattern, the descriptor's kind (the
 * Fourier kinds and the DCTs REDFT10 and REDFT01),
 * precision and direction (valid, or any int), n (small, non-powers of two
 * included, or 0, negative, huge), howmany, strides and dists (0, small,
 * negative, overflowing), the scale (NaN and Inf included), in place or
 * out of place, the execution entry point (typed, mistyped, NULL or fake
 * plan, NULL arrays) and, sometimes, a NaN or Inf in the input.  An oracle
 * written here from nla.h decides validity.  Contract (abort on violation):
 *   - invalid: NLA_EINVAL, the message names "routine: argument" (for
 *     nla_fft_plan_1d one of its own arguments), *plan is NULL (untouched
 *     when the plan pointer is NULL) and
 *     both arrays are bytewise unchanged;
 *   - valid plan: NLA_OK and a plan; valid execution: NLA_OK, out of place
 *     the input unchanged, nothing written outside the output (in place:
 *     outside input and output), and each transform equal to a naive DFT
 *     in long double within c*eps*log2(n)*sqrt(n)*|x|*|scale| (2-norm);
 *     a transform whose used input holds NaN or Inf has a non-finite
 *     output, and values nla.h says are ignored (the imaginary parts of
 *     X[0] and X[n/2] for C2R) are.
 */
#include <float.h>
#include <math.h>
#include "fuzz_common.h"

__extension__ typedef __int128 i128;
#define NREAL 8192                 /* doubles per array: 64 KiB */
#define NMAX_EXEC 512              /* the naive DFT is O(n^2) */
#define NMAX_PLAN ((int64_t)1 << 16)

enum { API_CREATE, API_1D };
enum { EX_GENERIC, EX_TYPED, EX_MISTYPED, EX_NULL_IN, EX_NULL_OUT, EX_NULL_PLAN, EX_FAKE_PLAN };

typedef struct call {
    int api, nulls, inplace, exec, nan_at, mistype, data_seed;
    nla_fft_desc d;
} call;

typedef struct resolved {
    int64_t lin, lout, hm, is, id, os, od;
    int esin, esout, real;     /* bytes per element of each side, per real */
} resolved;

static nla_context *ctx;
static _Alignas(64) double buf_in[NREAL], buf_out[NREAL], save_in[NREAL], save_out[NREAL];
static unsigned char mark[NREAL * 2];   /* per real scalar (float: 2*NREAL) */

/* ------------------------------------------------------------- oracle */
static int is_dct(int k) { return k == NLA_FFT_REDFT10 || k == NLA_FFT_REDFT01; }
static int kind_ok(int k)
{
    return k == NLA_FFT_C2C || k == NLA_FFT_R2C || k == NLA_FFT_C2R || is_dct(k);
}
static int prec_ok(int p) { return p == NLA_DOUBLE || p == NLA_FLOAT; }
static int dir_ok(int d) { return d == NLA_FFT_FORWARD || d == NLA_FFT_BACKWARD; }

/* span in elements of (hm-1)*dist + (len-1)*stride + 1, times es bytes
   (saturated past PTRDIFF_MAX) */
static i128 bytes_of(int64_t len, int64_t stride, int64_t dist, int64_t hm, int es)
{
    i128 span = (i128)(hm - 1) * dist + (i128)(len - 1) * stride + 1;
    return span > (i128)PTRDIFF_MAX ? (i128)PTRDIFF_MAX + 1 : span * es;
}

/* 1 if nla_fft_plan_create (or _1d) must accept; fills *r */
static int plan_valid(const call *c, resolved *r)
{
    const nla_fft_desc *d = &c->d;
    i128 lim = PTRDIFF_MAX;
    memset(r, 0, sizeof *r);
    if (c->nulls & 7)          /* ctx, desc or plan NULL */
        return 0;
    if (!kind_ok(d->kind) || !prec_ok(d->precision) || !dir_ok(d->direction) || d->n < 1)
        return 0;
    if (d->howmany < 0 || d->istride < 0 || d->idist < 0 || d->ostride < 0 || d->odist < 0)
        return 0;
    if (!isfinite(d->scale))
        return 0;
    r->real = d->precision == NLA_DOUBLE ? 8 : 4;
    r->lin = d->kind == NLA_FFT_C2R ? d->n / 2 + 1 : d->n;
    r->lout = d->kind == NLA_FFT_R2C ? d->n / 2 + 1 : d->n;
    r->esin = d->kind == NLA_FFT_R2C || is_dct(d->kind) ? r->real : 2 * r->real;
    r->esout = d->kind == NLA_FFT_C2R || is_dct(d->kind) ? r->real : 2 * r->real;
    r->hm = d->howmany ? d->howmany : 1;
    r->is = d->istride ? d->istride : 1;
    r->os = d->ostride ? d->ostride : 1;
    /* a default dist, length*stride, must be an int64_t */
    if ((i128)r->lin * r->is > INT64_MAX || (i128)r->lout * r->os > INT64_MAX)
        return 0;
    r->id = d->idist ? d->idist : r->lin * r->is;
    r->od = d->odist ? d->odist : r->lout * r->os;
    if (bytes_of(r->lin, r->is, r->id, r->hm, r->esin) > lim ||
        bytes_of(r->lout, r->os, r->od, r->hm, r->esout) > lim)
        return 0;
    if (r->hm > 1 && r->lout > 1 &&
        !((i128)r->od >= (i128)r->lout * r->os || (i128)r->os >= (i128)r->hm * r->od))
        return 0;
    return 1;
}

static int inplace_valid(const call *c, const resolved *r)
{
    if (r->hm == 1)
        return 1;
    switch (c->d.kind) {
    case NLA_FFT_C2C:
    case NLA_FFT_REDFT10:
    case NLA_FFT_REDFT01: return r->is == r->os && r->id == r->od;
    case NLA_FFT_R2C: return r->is == 1 && r->os == 1 && r->id == 2 * r->od;
    default:          return r->is == 1 && r->os == 1 && r->od == 2 * r->id;
    }
}

/* ------------------------------------------------------------ arrays */
static long double rget(const double *buf, int real, int64_t i)
{
    return real == 8 ? (long double)buf[i] : (long double)((const float *)buf)[i];
}

static void fill(const call *c)
{
    uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(c->data_seed + 1);
    for (int i = 0; i < NREAL * 2; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double v = (double)(int64_t)(s >> 11) / (double)(1ull << 53) * 2 - 1;  /* [-1,1) */
        if (c->d.precision == NLA_FLOAT)
            ((float *)buf_in)[i] = (float)v, ((float *)buf_out)[i] = (float)(v + 3);
        else if (i < NREAL)
            buf_in[i] = v, buf_out[i] = v + 3;
    }
}

/* scalar index (in reals) of component comp of element j of transform b */
static i128 at(int64_t b, int64_t dist, int64_t j, int64_t stride, int cplx, int comp)
{
    return ((i128)b * dist + (i128)j * stride) * (cplx ? 2 : 1) + comp;
}

/* --------------------------------------------------------- reference */
/* exp(-2 pi i k/n) for k < n */
static long double (*tw)[2];
static int64_t tw_n;

static void twiddles(int64_t n)
{
    if (tw_n == n)
        return;
    free(tw);
    tw = malloc((size_t)n * sizeof *tw);
    if (!tw)
        abort();
    for (int64_t k = 0; k < n; k++) {
        long double a = -2 * 3.14159265358979323846264338327950288L * (long double)k / (long double)n;
        tw[k][0] = cosl(a);
        tw[k][1] = sinl(a);
    }
    tw_n = n;
}

/* REDFT10 or REDFT01 of transform b, by the definitions (cosines from the
   table of 4n: cos(pi*a/(2n)) = tw[a mod 4n][0]), into y[k][0] */
static long double reference_dct(const call *c, const resolved *r, const double *in,
                                 int64_t b, long double (*y)[2], int *nonfinite)
{
    int64_t n = c->d.n;
    long double norm = 0;
    *nonfinite = 0;
    for (int64_t j = 0; j < n; j++) {
        long double v = rget(in, r->real, (int64_t)at(b, r->id, j, r->is, 0, 0));
        if (!isfinite(v))
            *nonfinite = 1;
        norm += v * v;
    }
    twiddles(4 * n);
    for (int64_t k = 0; k < n; k++) {
        long double s = 0;
        for (int64_t j = 0; j < n; j++) {
            long double v = rget(in, r->real, (int64_t)at(b, r->id, j, r->is, 0, 0));
            int64_t a = c->d.kind == NLA_FFT_REDFT10 ? (2 * j + 1) * k : j * (2 * k + 1);
            s += (c->d.kind == NLA_FFT_REDFT01 && j == 0 ? 1 : 2) * v * tw[a % (4 * n)][0];
        }
        y[k][0] = s;
        y[k][1] = 0;
    }
    return sqrtl(norm);
}

/* Transform b of the call, from the saved input: y (n complex for C2C,
   n/2+1 for R2C, n reals in y[j][0] for C2R and the DCTs).  Returns the
   2-norm of the logical input; *nonfinite says whether a used input value
   is NaN/Inf. */
static long double reference(const call *c, const resolved *r, const double *in, int64_t b,
                             long double (*y)[2], int *nonfinite)
{
    if (is_dct(c->d.kind))
        return reference_dct(c, r, in, b, y, nonfinite);
    int64_t n = c->d.n, dir = c->d.kind == NLA_FFT_R2C ? -1 : c->d.kind == NLA_FFT_C2R ? 1
                                                             : c->d.direction;
    long double (*x)[2] = calloc((size_t)n, sizeof *x), norm = 0;
    if (!x)
        abort();
    *nonfinite = 0;
    for (int64_t j = 0; j < n; j++) {
        if (c->d.kind == NLA_FFT_R2C) {
            x[j][0] = rget(in, r->real, (int64_t)at(b, r->id, j, r->is, 0, 0));
        } else if (c->d.kind == NLA_FFT_C2C) {
            x[j][0] = rget(in, r->real, (int64_t)at(b, r->id, j, r->is, 1, 0));
            x[j][1] = rget(in, r->real, (int64_t)at(b, r->id, j, r->is, 1, 1));
        } else {
            /* the Hermitian extension of X[0..n/2]; Im X[0], Im X[n/2] ignored */
            int64_t k = j <= n / 2 ? j : n - j;
            long double re = rget(in, r->real, (int64_t)at(b, r->id, k, r->is, 1, 0));
            long double im = rget(in, r->real, (int64_t)at(b, r->id, k, r->is, 1, 1));
            if (k == 0 || 2 * k == n)
                im = 0;
            x[j][0] = re;
            x[j][1] = j <= n / 2 ? im : -im;
        }
        if (!isfinite(x[j][0]) || !isfinite(x[j][1]))
            *nonfinite = 1;
        norm += x[j][0] * x[j][0] + x[j][1] * x[j][1];
    }
    twiddles(n);
    for (int64_t k = 0; k < r->lout; k++) {
        long double sr = 0, si = 0;
        for (int64_t j = 0; j < n; j++) {
            int64_t m = (int64_t)(((i128)j * k) % n);
            long double wr = tw[m][0], wi = dir < 0 ? tw[m][1] : -tw[m][1];
            sr += x[j][0] * wr - x[j][1] * wi;
            si += x[j][0] * wi + x[j][1] * wr;
        }
        y[k][0] = sr;
        y[k][1] = c->d.kind == NLA_FFT_C2R ? 0 : si;
    }
    free(x);
    return sqrtl(norm);
}

/* ----------------------------------------------------------- execute */
/* the typed entry point for kind and prec */
static nla_status exec_typed(int kind, int prec, const nla_fft_plan *p, const void *in,
                             void *out)
{
    switch (kind * 2 + prec) {
    case 0: return nla_fft_execute_c2c_d(p, in, out);
    case 1: return nla_fft_execute_c2c_s(p, in, out);
    case 2: return nla_fft_execute_r2c_d(p, in, out);
    case 3: return nla_fft_execute_r2c_s(p, in, out);
    case 4: return nla_fft_execute_c2r_d(p, in, out);
    case 5: return nla_fft_execute_c2r_s(p, in, out);
    case 6: case 8: return nla_fft_execute_r2r_d(p, in, out);
    default: return nla_fft_execute_r2r_s(p, in, out);
    }
}

static void check_unchanged(const char *what)
{
    FUZZ_ASSERT(!memcmp(buf_in, save_in, sizeof buf_in) && !memcmp(buf_out, save_out, sizeof buf_out),
                "%s (%s) but an array changed", what, nla_last_error());
}

static void check_rejected(nla_status s, const char *what)
{
    FUZZ_ASSERT(s == NLA_EINVAL, "%s returned %d (%s)", what, (int)s, nla_last_error());
    check_unchanged(what);
    fuzz_note_rejection(nla_last_error());
}

/* The execution step on a live plan p of a valid call. */
static void run_plan(const call *c, const resolved *r, nla_fft_plan *p)
{
    int real = r->real, nper = NREAL * 8 / real;   /* scalars per array */
    double *in = buf_in, *out = c->inplace ? buf_in : buf_out;
    int ex = c->exec, ip_ok = !c->inplace || inplace_valid(c, r);
    static _Alignas(64) unsigned char fake[256];
    long double (*y)[2];
    nla_status s;
    i128 bin = bytes_of(r->lin, r->is, r->id, r->hm, r->esin);
    i128 bout = bytes_of(r->lout, r->os, r->od, r->hm, r->esout);

    if (c->d.n > NMAX_EXEC || bin > (i128)sizeof buf_in || bout > (i128)sizeof buf_out)
        return;   /* valid but too big for the arrays: not executed */
    if (c->nan_at >= 0) {
        /* a NaN or Inf at a scalar of transform 0's input */
        int64_t j = c->nan_at % r->lin;
        int comp = r->esin > real ? (c->nan_at / r->lin) & 1 : 0;
        double v = c->nan_at & 2 ? NAN : -INFINITY;
        i128 k = at(0, r->id, j, r->is, r->esin > real, comp);
        if (real == 8) buf_in[k] = v; else ((float *)buf_in)[k] = (float)v;
    }
    memcpy(save_in, buf_in, sizeof buf_in);
    memcpy(save_out, buf_out, sizeof buf_out);
    switch (ex) {
    case EX_GENERIC: s = nla_fft_execute(p, in, out); break;
    case EX_TYPED: s = exec_typed(c->d.kind, c->d.precision, p, in, out); break;
    case EX_MISTYPED: {
        /* kind 3: the r2r entry, which takes either DCT kind */
        int k = c->mistype % 8, kind = k / 2, prec = k % 2;
        int same = kind == 3 ? is_dct(c->d.kind) : kind == (int)c->d.kind;
        if (same && prec == (int)c->d.precision)
            kind = (kind + 1) % 4;
        kind = kind == 3 ? NLA_FFT_REDFT10 : kind;
        s = exec_typed(kind, prec, p, in, out);
        check_rejected(s, "mistyped execution");
        return;
    }
    case EX_NULL_IN: s = nla_fft_execute(p, NULL, out); check_rejected(s, "in NULL"); return;
    case EX_NULL_OUT: s = nla_fft_execute(p, in, NULL); check_rejected(s, "out NULL"); return;
    case EX_NULL_PLAN:
        s = c->mistype & 1 ? nla_fft_execute(NULL, in, out)
                           : exec_typed(c->d.kind, c->d.precision, NULL, in, out);
        check_rejected(s, "NULL plan");
        return;
    default:
        memset(fake, c->mistype & 0xff, sizeof fake);
        s = nla_fft_execute((const nla_fft_plan *)(void *)fake, in, out);
        check_rejected(s, "a buffer that is not a plan");
        return;
    }
    if (!ip_ok) {
        check_rejected(s, "in place with a layout that cannot run in place");
        return;
    }
    FUZZ_ASSERT(s == NLA_OK, "kind %d prec %d n %lld hm %lld: valid execution returned %d (%s)",
                c->d.kind, c->d.precision, (long long)c->d.n, (long long)r->hm, (int)s,
                nla_last_error());
    if (!c->inplace)
        FUZZ_ASSERT(!memcmp(buf_in, save_in, sizeof buf_in), "out of place: the input changed");

    /* nothing written outside the output (in place: outside input and output) */
    memset(mark, 0, sizeof mark);
    for (int64_t b = 0; b < r->hm; b++) {
        for (int64_t j = 0; j < r->lout; j++)
            for (int comp = 0; comp < r->esout / real; comp++)
                mark[at(b, r->od, j, r->os, r->esout > real, comp)] = 1;
        if (c->inplace)
            for (int64_t j = 0; j < r->lin; j++)
                for (int comp = 0; comp < r->esin / real; comp++)
                    mark[at(b, r->id, j, r->is, r->esin > real, comp)] = 1;
    }
    for (int i = 0; i < nper; i++)
        if (!mark[i]) {
            const unsigned char *now = (const unsigned char *)out + (size_t)i * real;
            const unsigned char *was = (const unsigned char *)(c->inplace ? save_in : save_out) +
                                       (size_t)i * real;
            FUZZ_ASSERT(!memcmp(now, was, (size_t)real),
                        "kind %d n %lld: scalar %d outside the output was written", c->d.kind,
                        (long long)c->d.n, i);
        }

    /* each transform against the naive DFT */
    y = malloc((size_t)r->lout * sizeof *y);
    if (!y)
        abort();
    {
        double eps = real == 8 ? DBL_EPSILON : FLT_EPSILON;
        double lg = c->d.n > 1 ? log2((double)c->d.n) : 1;
        double sc = c->d.scale != 0 ? c->d.scale : 1;
        for (int64_t b = 0; b < r->hm; b++) {
            int nonfinite, any_nf = 0;
            long double norm = reference(c, r, save_in, b, y, &nonfinite), err = 0, rn = 0;
            for (int64_t j = 0; j < r->lout; j++)
                for (int comp = 0; comp < r->esout / real; comp++) {
                    long double got = rget(out, real, (int64_t)at(b, r->od, j, r->os,
                                                                  r->esout > real, comp));
                    long double want = y[j][comp] * sc;
                    if (!isfinite(got))
                        any_nf = 1;
                    err += (got - want) * (got - want);
                    rn += want * want;
                }
            if (nonfinite) {
                FUZZ_ASSERT(any_nf, "kind %d n %lld: transform %lld has NaN/Inf input but a "
                            "finite output", c->d.kind, (long long)c->d.n, (long long)b);
                continue;
            }
            /* the sqrt(n)*|x| is |DFT(x)| (Parseval); a DCT's matrix has
               norm at most 2*sqrt(n) */
            double bound = 8 * eps * (lg + 1) * sqrt((double)c->d.n) * (double)norm * fabs(sc) *
                           (is_dct(c->d.kind) ? 2 : 1) + 1e-300;
            double e = (double)sqrtl(err);
            if (getenv("NLA_FUZZ_VERBOSE"))
                fprintf(stderr, "  b %lld err %.3g bound %.3g ratio %.3g\n", (long long)b, e,
                        bound, e / bound);
            FUZZ_ASSERT(e <= bound, "kind %d prec %d dir %d n %lld b %lld/%lld inplace %d: "
                        "|y - ref| = %.3g > %.3g (|ref| = %.3g)", c->d.kind, c->d.precision,
                        c->d.direction, (long long)c->d.n, (long long)b, (long long)r->hm,
                        c->inplace, e, bound, (double)sqrtl(rn));
        }
    }
    free(y);
    fuzz_note_valid();
}

/* ------------------------------------------------------------- decode */
/* the FFT kind: the three Fourier kinds, the two DCTs, or any int */
static int rd_kind(reader *r)
{
    unsigned s = rd_byte(r);
    if (s < 64) return NLA_FFT_C2C;
    if (s < 128) return NLA_FFT_R2C;
    if (s < 192) return NLA_FFT_C2R;
    if (s < 216) return NLA_FFT_REDFT10;
    if (s < 240) return NLA_FFT_REDFT01;
    return (int)(int32_t)rd_u64(r, 4);
}

static int rd_enum2(reader *r, int v1, int v2)
{
    unsigned s = rd_byte(r);
    if (s < 120) return v1;
    if (s < 240) return v2;
    return (int)(int32_t)rd_u64(r, 4);
}

/* n: mostly up to 64, sometimes up to NMAX_EXEC, or anything */
static int64_t rd_n(reader *r)
{
    unsigned s = rd_byte(r);
    if (s < 170) return (int64_t)(rd_byte(r) % 65);
    if (s < 200) return (int64_t)(rd_u64(r, 2) % (NMAX_EXEC + 1));
    return rd_size(r, 64);
}

/* a stride (small) or dist (up to 150): mostly 0 (the default) */
static int64_t rd_layout(reader *r, int64_t small)
{
    unsigned s = rd_byte(r);
    if (s < 140) return 0;
    if (s < 225) return (int64_t)(rd_byte(r) % (unsigned)(small + 1));
    return rd_size(r, small);
}

static double rd_scale(reader *r, int64_t n)
{
    static const double v[] = {0, 1, -1, 0.5, 2, -3.25, 1e30, 1e-30, 0.1};
    unsigned s = rd_byte(r);
    if (s < 200) return v[s % 9];
    if (s < 225) return n > 0 ? 1.0 / (double)n : 0.0;
    switch (s % 4) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    default: return -NAN;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader rd = {data, size};
    call c;
    resolved r;
    nla_fft_plan *plan = (nla_fft_plan *)(uintptr_t)0x5a5a5a5a0ull, *const sentinel = plan;
    nla_status s;
    int ok;

    if (!ctx && nla_context_create(&ctx, NLA_BACKEND_CPU) != NLA_OK)
        abort();
    memset(&c, 0, sizeof c);
    c.api = rd_byte(&rd) < 32 ? API_1D : API_CREATE;
    c.nulls = rd_byte(&rd) > 235 ? (int)(rd_byte(&rd) & 7) : 0;
    c.d.kind = (nla_fft_kind)rd_kind(&rd);
    c.d.precision = (nla_precision)rd_enum2(&rd, NLA_DOUBLE, NLA_FLOAT);
    c.d.direction = (nla_fft_direction)rd_enum2(&rd, NLA_FFT_FORWARD, NLA_FFT_BACKWARD);
    c.d.n = rd_n(&rd);
    {
        unsigned s8 = rd_byte(&rd);
        c.d.howmany = s8 < 150 ? (int64_t)(s8 & 1) : s8 < 225 ? (int64_t)(s8 % 5)
                                                                : rd_size(&rd, 4);
    }
    c.d.istride = rd_layout(&rd, 3);
    c.d.idist = rd_layout(&rd, 150);
    c.d.ostride = rd_layout(&rd, 3);
    c.d.odist = rd_layout(&rd, 150);
    c.d.scale = rd_scale(&rd, c.d.n);
    c.inplace = rd_byte(&rd) & 1;
    {
        unsigned e = rd_byte(&rd);
        c.exec = e < 110 ? EX_GENERIC : e < 200 ? EX_TYPED : EX_MISTYPED + (int)(e % 5);
    }
    c.mistype = (int)rd_byte(&rd);
    c.data_seed = (int)rd_byte(&rd);
    c.nan_at = rd_byte(&rd) > 240 ? (int)rd_u64(&rd, 2) : -1;
    if (c.api == API_1D) {
        /* nla_fft_plan_1d: one C2C transform, the other fields are defaults */
        nla_fft_desc d1 = {NLA_FFT_C2C, c.d.precision, c.d.direction, c.d.n, 0, 0, 0, 0, 0, 0};
        c.d = d1;
        c.nulls &= 5;    /* no desc */
    }

    ok = plan_valid(&c, &r);
    if (getenv("NLA_FUZZ_VERBOSE"))
        fprintf(stderr, "api%d nulls%d kind%d prec%d dir%d n%lld hm%lld is%lld id%lld os%lld "
                "od%lld scale%g inplace%d exec%d nan%d valid%d\n", c.api, c.nulls, c.d.kind,
                c.d.precision, c.d.direction, (long long)c.d.n, (long long)c.d.howmany,
                (long long)c.d.istride, (long long)c.d.idist, (long long)c.d.ostride,
                (long long)c.d.odist, c.d.scale, c.inplace, c.exec, c.nan_at, ok);
    if (ok && c.d.n > NMAX_PLAN)
        return 0;   /* valid, but its tables would be large: not created */
    fill(&c);
    memcpy(save_in, buf_in, sizeof buf_in);
    memcpy(save_out, buf_out, sizeof buf_out);
    {
        nla_context *cx = c.nulls & 1 ? NULL : ctx;
        nla_fft_plan **pp = c.nulls & 4 ? NULL : &plan;
        if (c.api == API_1D)
            s = nla_fft_plan_1d(cx, c.d.n, c.d.direction, c.d.precision, pp);
        else
            s = nla_fft_plan_create(cx, c.nulls & 2 ? NULL : &c.d, pp);
    }
    if (!ok) {
        const char *msg = nla_last_error();
        /* a failed create leaves *plan NULL (nla(3)); a NULL plan pointer: untouched */
        FUZZ_ASSERT(plan == (c.nulls & 4 ? sentinel : NULL), "rejected (%s) but *plan is not %s",
                    msg, c.nulls & 4 ? "untouched" : "NULL");
        check_rejected(s, c.api == API_1D ? "nla_fft_plan_1d" : "nla_fft_plan_create");
        if (c.api == API_1D) {
            /* nla_fft_plan_1d names its own arguments, not a descriptor */
            static const char *const args[] = {"ctx ", "n ", "dir ", "prec ", "plan "};
            const char *a = strstr(msg, ": ");
            int named = 0;
            for (size_t i = 0; a && i < sizeof args / sizeof args[0]; i++)
                named |= !strncmp(a + 2, args[i], strlen(args[i]));
            FUZZ_ASSERT(named, "nla_fft_plan_1d's message \"%s\" names no argument of it", msg);
        }
        return 0;
    }
    FUZZ_ASSERT(s == NLA_OK, "kind %d prec %d n %lld hm %lld: valid plan returned %d (%s)",
                c.d.kind, c.d.precision, (long long)c.d.n, (long long)r.hm, (int)s,
                nla_last_error());
    FUZZ_ASSERT(plan != sentinel && plan != NULL, "NLA_OK but no plan");
    check_unchanged("plan creation");
    run_plan(&c, &r, plan);
    nla_fft_plan_destroy(plan);
    return 0;
}
