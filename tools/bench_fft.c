/*
 * bench_fft.c - the "fft" operation of `nla bench`: libnla's FFT against
 * FFTW (FFTW_MEASURE plans, made once per row before timing) and against
 * GSL's radix-2 routine, both loaded at run time (bench_libs.c).
 *
 * A row is one transform, out = FFT(in), forward:
 *   c2c  complex, n = 2^2 ... 2^22, the mixed-radix n = 1000, 1200, 2187,
 *        15625, 10^5, 10^6, 17*2^12 (the generic pass), and the primes
 *        1009, 4093 (Bluestein),
 *        against FFTW
 *   r2c  real input, n = 2^6 ... 2^22, 1000 and 10^5, against FFTW
 *   c2r  the same lengths, Hermitian half in, n reals out, against FFTW
 *        planned with FFTW_PRESERVE_INPUT: libnla's one-dimensional C2R
 *        leaves its input as it was, and so must the reference (FFTW's
 *        default would overwrite the harness's input between calls)
 *   dct2 DCT-II (REDFT10), n = 1000, 4096, 65536, against FFTW's r2r plan
 *   c2c  n = 2^6 ... 2^22 against gsl_fft_complex_radix2_forward; GSL works
 *        in place, so on these rows both sides copy the input to the output
 *        and transform there
 * Figures follow benchFFT: "mflops" = 5 n log2(n) / t(us) for complex and
 * 2.5 n log2(n) / t(us) for real transforms (the DCT included).  The check before timing: the
 * relative L2 difference from the reference is at most 10 eps log2(n)
 * (times sqrt(n) against GSL, whose float twiddles come by recurrence).
 *
 *   2-D  c2c and r2c, 256^2, 1024^2, 4096^2, and 3-D 64^3, 128^3, 256^3,
 *        against FFTW's multi-dimensional plans
 * The "fftplan" operation times planning instead: an ESTIMATE plan made
 * and destroyed (c2c and r2c, n = 2^10, 2^16, 2^20, 1000, 10^5, 10^6, and
 * the primes 1009, 4093 and 2^20 - 3 through Bluestein) against an
 * FFTW_ESTIMATE plan; its check runs the plans it makes, once.
 * The case's fields are reused: n the length (of each dimension), m the
 * kind (0 c2c, 1 r2c, 2 dct2, 3 c2r), k the reference (0 FFTW, 1 GSL), kl the rank (0
 * means 1).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

enum { FFT_C2C = 0, FFT_R2C = 1, FFT_DCT2 = 2, FFT_C2R = 3 };
enum { REF_FFTW = 0, REF_GSL = 1 };

/* FFTW's calls as bench_libs.c finds them (struct bench_lib's fftw[][]);
   a plan is a pointer FFTW owns */
typedef struct fftw_plan_s *fftw_plan;
typedef void *fftw_malloc_fn(size_t);
typedef void fftw_free_fn(void *);
typedef fftw_plan plan_c2c_fn(int, void *, void *, int, unsigned);
typedef fftw_plan plan_r2c_fn(int, void *, void *, unsigned);
typedef fftw_plan plan_c2r_fn(int, void *, void *, unsigned);
typedef fftw_plan plan_nd_fn(int, const int *, void *, void *, int, unsigned);
typedef fftw_plan plan_nd_r2c_fn(int, const int *, void *, void *, unsigned);
typedef fftw_plan plan_r2r_fn(int, void *, void *, int, unsigned);
typedef void execute_fn(fftw_plan, void *, void *);
typedef void destroy_fn(fftw_plan);
enum { FFTW_MALLOC, FFTW_FREE, FFTW_PLAN_C2C, FFTW_PLAN_R2C, FFTW_EXEC_C2C, FFTW_EXEC_R2C,
       FFTW_DESTROY, FFTW_PLAN_ND, FFTW_PLAN_ND_R2C, FFTW_PLAN_R2R, FFTW_EXEC_R2R,
       FFTW_PLAN_C2R, FFTW_EXEC_C2R };
/* FFTW's call f of precision p in lib; FFTW_FN: in the row's library */
#define LIB_FN(lib, p, f, type) ((type *)(lib)->fftw[p][f])
#define FFTW_FN(p, f, type) LIB_FN(cur.fftw, p, f, type)
enum { FFTW_FORWARD_SIGN = -1, FFTW_REDFT10_KIND = 5 };   /* fftw3.h's values */
#define FFTW_MEASURE_FLAG 0U
#define FFTW_ESTIMATE_FLAG (1U << 6)
#define FFTW_PRESERVE_INPUT_FLAG (1U << 4)
typedef int gsl_fft_fn(void *, size_t, size_t);

/* The plans of the row being measured (rows run one after another). */
static struct {
    int valid;
    bench_prec prec;
    int64_t n, kind, ref, rank;
    nla_context *ctx;
    nla_fft_plan *np;
    const struct bench_lib *fftw;  /* its library, with a plan */
    fftw_plan plan;                /* of the row's precision */
} cur;

static void drop_plans(void)
{
    if (!cur.valid)
        return;
    nla_fft_plan_destroy(cur.np);
    if (cur.plan)
        FFTW_FN(cur.prec, FFTW_DESTROY, destroy_fn)(cur.plan);
    memset(&cur, 0, sizeof cur);
}

static int same_row(const struct bench_case *c)
{
    return cur.valid && cur.prec == c->prec && cur.n == c->n && cur.kind == c->m &&
           cur.ref == c->k && cur.rank == c->kl;
}

static int rank_of(const struct bench_case *c)
{
    return c->kl > 1 ? (int)c->kl : 1;
}

/* points of one transform, and the rows of n before the last dimension */
static size_t points(const struct bench_case *c)
{
    size_t p = 1;
    for (int k = 0; k < rank_of(c); k++)
        p *= (size_t)c->n;
    return p;
}

/* FFTW_MEASURE overwrites its arrays while planning: plan on scratch ones,
   then run the plan on the harness's arrays (new-array execute; both are
   at least 16-byte aligned). */
static void make_fftw(const struct bench_case *c)
{
    size_t n = points(c), el = c->prec == BENCH_D ? sizeof(double) : sizeof(float);
    int p = c->prec, nn = (int)c->n, dims[3] = { nn, nn, nn }, rank = rank_of(c);
    void *a, *b;

    if (bench_libs_of(BENCH_LIB_FFTW, &cur.fftw, 1) == 0)
        return;   /* the harness says so before it calls */
    a = FFTW_FN(p, FFTW_MALLOC, fftw_malloc_fn)(2 * n * el + 64);
    b = FFTW_FN(p, FFTW_MALLOC, fftw_malloc_fn)(2 * (n + n / (size_t)nn) * el + 64);
    if (a && b && rank > 1)
        cur.plan = c->m == FFT_C2C
                   ? FFTW_FN(p, FFTW_PLAN_ND, plan_nd_fn)(rank, dims, a, b, FFTW_FORWARD_SIGN,
                                                          FFTW_MEASURE_FLAG)
                   : FFTW_FN(p, FFTW_PLAN_ND_R2C, plan_nd_r2c_fn)(rank, dims, a, b,
                                                                  FFTW_MEASURE_FLAG);
    else if (a && b && c->m == FFT_C2R)
        cur.plan = FFTW_FN(p, FFTW_PLAN_C2R, plan_c2r_fn)(nn, a, b, FFTW_MEASURE_FLAG |
                                                          FFTW_PRESERVE_INPUT_FLAG);
    else if (a && b && c->m == FFT_DCT2)
        cur.plan = FFTW_FN(p, FFTW_PLAN_R2R, plan_r2r_fn)(nn, a, b, FFTW_REDFT10_KIND,
                                                         FFTW_MEASURE_FLAG);
    else if (a && b)
        cur.plan = c->m == FFT_C2C
                   ? FFTW_FN(p, FFTW_PLAN_C2C, plan_c2c_fn)(nn, a, b, FFTW_FORWARD_SIGN,
                                                            FFTW_MEASURE_FLAG)
                   : FFTW_FN(p, FFTW_PLAN_R2C, plan_r2c_fn)(nn, a, b, FFTW_MEASURE_FLAG);
    FFTW_FN(p, FFTW_FREE, fftw_free_fn)(a);
    FFTW_FN(p, FFTW_FREE, fftw_free_fn)(b);
}

static nla_status use_row(nla_context *ctx, const struct bench_case *c)
{
    nla_fft_desc_nd d;
    nla_status s;
    if (same_row(c) && cur.ctx == ctx)
        return NLA_OK;
    drop_plans();
    if (c->m == FFT_DCT2) {    /* one dimension: nla_fft_plan_create */
        nla_fft_desc d1;
        memset(&d1, 0, sizeof d1);
        d1.kind = NLA_FFT_REDFT10;
        d1.precision = c->prec == BENCH_D ? NLA_DOUBLE : NLA_FLOAT;
        d1.direction = NLA_FFT_FORWARD;
        d1.n = c->n;
        s = nla_fft_plan_create(ctx, &d1, &cur.np);
    } else {
        memset(&d, 0, sizeof d);
        d.kind = c->m == FFT_C2C ? NLA_FFT_C2C : c->m == FFT_R2C ? NLA_FFT_R2C : NLA_FFT_C2R;
        d.precision = c->prec == BENCH_D ? NLA_DOUBLE : NLA_FLOAT;
        d.direction = c->m == FFT_C2R ? NLA_FFT_BACKWARD : NLA_FFT_FORWARD;
        d.rank = rank_of(c);
        d.n[0] = d.n[1] = d.n[2] = c->n;
        s = nla_fft_plan_create_nd(ctx, &d, &cur.np);
    }
    if (s != NLA_OK)
        return s;
    if (c->k == REF_FFTW)
        make_fftw(c);
    cur.valid = 1;
    cur.prec = c->prec;
    cur.n = c->n;
    cur.kind = c->m;
    cur.ref = c->k;
    cur.rank = c->kl;
    cur.ctx = ctx;
    return NLA_OK;
}

static size_t out_reals(const struct bench_case *c)
{
    size_t rows = points(c) / (size_t)c->n;
    if (c->m == FFT_DCT2 || c->m == FFT_C2R)
        return points(c);
    return c->m == FFT_C2C ? 2 * points(c) : 2 * rows * ((size_t)c->n / 2 + 1);
}

static void fft_sizes(const struct bench_case *c, struct bench_sizes *s)
{
    s->a = c->m == FFT_C2C ? 2 * points(c) : c->m == FFT_C2R ? 2 * ((size_t)c->n / 2 + 1)
                                                                : points(c);
    s->b = 0;
    s->y = out_reals(c);
}

static nla_status fft_nla(nla_context *ctx, const struct bench_case *c,
                          const void *a, const void *b, void *y)
{
    nla_status s = use_row(ctx, c);
    (void)b;
    if (s != NLA_OK)
        return s;
    if (c->k == REF_GSL) {
        memcpy(y, a, out_reals(c) * bench_elsize(c->prec));
        return nla_fft_execute(cur.np, y, y);
    }
    return nla_fft_execute(cur.np, a, y);
}

static void fft_ref(const struct bench_lib *lib, const struct bench_case *c, const void *a,
                    const void *b, void *y)
{
    (void)b;
    if (!same_row(c))   /* the harness calls libnla first; never happens */
        return;
    if (c->k == REF_GSL) {
        memcpy(y, a, out_reals(c) * bench_elsize(c->prec));
        ((gsl_fft_fn *)lib->gsl[c->prec])(y, 1, (size_t)c->n);
    } else if (cur.plan) {
        /* new-array execute: the harness's arrays are 64-byte aligned */
        static const int exec[] = { FFTW_EXEC_C2C, FFTW_EXEC_R2C, FFTW_EXEC_R2R,
                                    FFTW_EXEC_C2R };
        FFTW_FN(c->prec, exec[c->m], execute_fn)(cur.plan, (void *)a, y);
    }
}

static enum bench_lib_kind fft_kind(const struct bench_case *c)
{
    return c->k == REF_GSL ? BENCH_LIB_GSL : BENCH_LIB_FFTW;
}

/* benchFFT's mflops, scaled so that the harness's work/s * 1e-9 gives
   mflops */
static double fft_work(const struct bench_case *c)
{
    double n = (double)points(c);
    return (c->m == FFT_C2C ? 5.0 : 2.5) * n * log2(n) * 1e3;
}

static int64_t fft_depth(const struct bench_case *c)
{
    return (int64_t)points(c);
}

static void fft_shape(const struct bench_case *c, char *buf, size_t len)
{
    static const char *const kinds[] = { "c2c", "r2c", "dct2", "c2r" };
    const char *kind = kinds[c->m];
    int64_t n = c->n;
    int k = 0;
    while (((int64_t)1 << k) < n)
        k++;
    if (rank_of(c) > 1)
        snprintf(buf, len, "%s %lld^%d vs fftw", kind, (long long)n, rank_of(c));
    else if (((int64_t)1 << k) == n)
        snprintf(buf, len, "%s 2^%d vs %s", kind, k, c->k == REF_GSL ? "gsl" : "fftw");
    else
        snprintf(buf, len, "%s %lld vs %s", kind, (long long)n,
                 c->k == REF_GSL ? "gsl" : "fftw");
}

int bench_fft_check(const struct bench_case *c, const void *y_nla, const void *y_ref,
                    struct bench_result *r)
{
    size_t m = out_reals(c);
    double num = 0, den = 0, eps = c->prec == BENCH_D ? DBL_EPSILON : FLT_EPSILON;
    for (size_t i = 0; i < m; i++) {
        double u = c->prec == BENCH_D ? ((const double *)y_nla)[i] : ((const float *)y_nla)[i];
        double v = c->prec == BENCH_D ? ((const double *)y_ref)[i] : ((const float *)y_ref)[i];
        num += (u - v) * (u - v);
        den += v * v;
    }
    r->max_rel_err = den > 0 ? sqrt(num / den) : sqrt(num);
    if (isnan(r->max_rel_err))
        r->max_rel_err = INFINITY;
    r->tol = 10.0 * eps * (points(c) > 1 ? log2((double)points(c)) : 1.0);
    /* GSL's float radix-2 makes its twiddles by recurrence in float: its
       own error grows like eps*sqrt(n), so allow that on GSL rows */
    if (c->k == REF_GSL)
        r->tol *= sqrt((double)c->n);
    r->check_ok = r->max_rel_err <= r->tol;
    return 0;
}

static struct bench_case fft_case(bench_prec p, int64_t n, int kind, int ref)
{
    struct bench_case c;
    memset(&c, 0, sizeof c);
    c.op = &bench_op_fft;
    c.prec = p;
    c.n = n;
    c.m = kind;
    c.k = ref;
    c.trans = NLA_NO_TRANS;
    return c;
}

static int fft_cases(bench_prec p, int quick, int64_t n, struct bench_case *out)
{
    static const int quick_lg[] = { 6, 10, 14, 16 };
    /* 69632 = 17*2^12: the generic odd radix */
    static const int64_t other[] = { 1000, 1009, 1200, 2187, 4093, 15625, 100000, 1000000,
                                     69632 };
    static const int64_t nd[][2] = { { 2, 256 }, { 2, 1024 }, { 2, 4096 },
                                     { 3, 64 },  { 3, 128 },  { 3, 256 } };   /* rank, n */
    int k = 0;

    if (n > 0) {
        int pow2 = (n & (n - 1)) == 0;
        out[k++] = fft_case(p, n, FFT_C2C, REF_FFTW);
        out[k++] = fft_case(p, n, FFT_R2C, REF_FFTW);
        out[k++] = fft_case(p, n, FFT_C2R, REF_FFTW);
        out[k++] = fft_case(p, n, FFT_DCT2, REF_FFTW);
        if (pow2)
            out[k++] = fft_case(p, n, FFT_C2C, REF_GSL);
        return k;
    }
    if (quick) {
        for (int i = 0; i < 4; i++)
            out[k++] = fft_case(p, (int64_t)1 << quick_lg[i], FFT_C2C, REF_FFTW);
        out[k++] = fft_case(p, 1 << 10, FFT_R2C, REF_FFTW);
        out[k++] = fft_case(p, 1 << 16, FFT_R2C, REF_FFTW);
        out[k++] = fft_case(p, 1 << 10, FFT_C2R, REF_FFTW);
        out[k++] = fft_case(p, other[0], FFT_C2C, REF_FFTW);
        out[k++] = fft_case(p, other[1], FFT_C2C, REF_FFTW);
        out[k++] = fft_case(p, 1 << 12, FFT_DCT2, REF_FFTW);
        out[k++] = fft_case(p, 1 << 10, FFT_C2C, REF_GSL);
        out[k++] = fft_case(p, 1 << 16, FFT_C2C, REF_GSL);
        return k;
    }
    for (int lg = 2; lg <= 22; lg++)
        out[k++] = fft_case(p, (int64_t)1 << lg, FFT_C2C, REF_FFTW);
    for (size_t i = 0; i < sizeof other / sizeof *other; i++)
        out[k++] = fft_case(p, other[i], FFT_C2C, REF_FFTW);
    for (int kind = FFT_R2C; kind <= FFT_C2R; kind += FFT_C2R - FFT_R2C) {
        for (int lg = 6; lg <= 22; lg++)
            out[k++] = fft_case(p, (int64_t)1 << lg, kind, REF_FFTW);
        out[k++] = fft_case(p, other[0], kind, REF_FFTW);
        out[k++] = fft_case(p, other[6], kind, REF_FFTW);
    }
    out[k++] = fft_case(p, 1000, FFT_DCT2, REF_FFTW);
    out[k++] = fft_case(p, 1 << 12, FFT_DCT2, REF_FFTW);
    out[k++] = fft_case(p, 1 << 16, FFT_DCT2, REF_FFTW);
    for (int i = 0; i < 6; i++)
        for (int kind = FFT_C2C; kind <= FFT_R2C; kind++) {
            out[k] = fft_case(p, nd[i][1], kind, REF_FFTW);
            out[k++].kl = nd[i][0];
        }
    for (int lg = 6; lg <= 22; lg++)
        out[k++] = fft_case(p, (int64_t)1 << lg, FFT_C2C, REF_GSL);
    return k;
}

const struct bench_op bench_op_fft = {
    .name = "fft",
    .unit = "mflops",
    .work_doc = "5 n log2(n) (c2c) or 2.5 n log2(n) (r2c, c2r, dct2) / t(us), benchFFT's\n"
                "                 mflops; rows vs FFTW (MEASURE) and vs GSL radix-2",
    .dims = 0,
    .sizes = fft_sizes,
    .run_nla = fft_nla,
    .run_ref = fft_ref,
    .work = fft_work,
    .depth = fft_depth,
    .shape = fft_shape,
    .cases = fft_cases,
    .ref_kind = fft_kind,
};

/* ------------------------------------------------------------- fftplan */

/* a c2c or r2c plan of c (ESTIMATE: the context's default effort) */
static nla_status plan_one(nla_context *ctx, const struct bench_case *c, nla_fft_plan **p)
{
    nla_fft_desc d;
    memset(&d, 0, sizeof d);
    d.kind = c->m == FFT_C2C ? NLA_FFT_C2C : NLA_FFT_R2C;
    d.precision = c->prec == BENCH_D ? NLA_DOUBLE : NLA_FLOAT;
    d.direction = NLA_FFT_FORWARD;
    d.n = c->n;
    return nla_fft_plan_create(ctx, &d, p);
}

/* A plan of c made and destroyed, and with run executed once in between:
   the timed call (run 0) and the check's (run 1), on each side. */
static nla_status plan_nla_do(nla_context *ctx, const struct bench_case *c, const void *a,
                              void *y, int run)
{
    nla_fft_plan *p = NULL;
    nla_status s = plan_one(ctx, c, &p);
    if (s == NLA_OK && run)
        s = nla_fft_execute(p, a, y);
    nla_fft_plan_destroy(p);
    return s;
}

static nla_status plan_nla(nla_context *ctx, const struct bench_case *c, const void *a,
                           const void *b, void *y)
{
    (void)b;
    return plan_nla_do(ctx, c, a, y, 0);
}

static nla_status plan_nla_check(nla_context *ctx, const struct bench_case *c, const void *a,
                                 const void *b, void *y)
{
    (void)b;
    return plan_nla_do(ctx, c, a, y, 1);
}

static void plan_ref_do(const struct bench_lib *lib, const struct bench_case *c,
                        const void *a, void *y, int run)
{
    int p = c->prec, nn = (int)c->n;
    fftw_plan f = c->m == FFT_C2C
                  ? LIB_FN(lib, p, FFTW_PLAN_C2C, plan_c2c_fn)(nn, (void *)a, y,
                                                              FFTW_FORWARD_SIGN,
                                                              FFTW_ESTIMATE_FLAG)
                  : LIB_FN(lib, p, FFTW_PLAN_R2C, plan_r2c_fn)(nn, (void *)a, y,
                                                              FFTW_ESTIMATE_FLAG);
    if (!f)
        return;
    if (run)
        LIB_FN(lib, p, c->m == FFT_C2C ? FFTW_EXEC_C2C : FFTW_EXEC_R2C, execute_fn)(
            f, (void *)a, y);
    LIB_FN(lib, p, FFTW_DESTROY, destroy_fn)(f);
}

static void plan_ref(const struct bench_lib *lib, const struct bench_case *c, const void *a,
                     const void *b, void *y)
{
    (void)b;
    plan_ref_do(lib, c, a, y, 0);
}

static void plan_ref_check(const struct bench_lib *lib, const struct bench_case *c,
                           const void *a, const void *b, void *y)
{
    (void)b;
    plan_ref_do(lib, c, a, y, 1);
}

/* a call is one plan: the harness's work/s * 1e-9 gives plans a ms */
static double plan_work(const struct bench_case *c)
{
    (void)c;
    return 1e6;
}

static void plan_shape(const struct bench_case *c, char *buf, size_t len)
{
    char s[48];
    fft_shape(c, s, sizeof s);
    snprintf(buf, len, "plan %s", s);
}

static int plan_cases(bench_prec p, int quick, int64_t n, struct bench_case *out)
{
    static const int64_t lens[] = { 1 << 10, 1 << 16, 1 << 20, 1000, 100000, 1000000,
                                    1009, 4093, (1 << 20) - 3 };
    int k = 0;

    if (n > 0 || quick) {
        out[k++] = fft_case(p, n > 0 ? n : 1009, FFT_C2C, REF_FFTW);
        out[k++] = fft_case(p, n > 0 ? n : 1 << 16, FFT_R2C, REF_FFTW);
    } else {
        for (int kind = FFT_C2C; kind <= FFT_R2C; kind++)
            for (size_t i = 0; i < sizeof lens / sizeof *lens; i++)
                out[k++] = fft_case(p, lens[i], kind, REF_FFTW);
    }
    for (int i = 0; i < k; i++)
        out[i].op = &bench_op_fftplan;
    return k;
}

static enum bench_lib_kind plan_kind(const struct bench_case *c)
{
    (void)c;
    return BENCH_LIB_FFTW;
}

const struct bench_op bench_op_fftplan = {
    .name = "fftplan",
    .unit = "plans/ms",
    .work_doc = "1 plan (ESTIMATE) made and destroyed, against an FFTW_ESTIMATE\n"
                "                 plan (100 us a plan is 10 plans/ms)",
    .dims = 0,
    .sizes = fft_sizes,
    .run_nla = plan_nla,
    .run_ref = plan_ref,
    .work = plan_work,
    .depth = fft_depth,
    .shape = plan_shape,
    .cases = plan_cases,
    .ref_kind = plan_kind,
    .check_nla = plan_nla_check,
    .check_ref = plan_ref_check,
};
