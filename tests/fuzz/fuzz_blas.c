/*
 * fuzz_blas.c - libFuzzer harness: argument validation and results of every
 * BLAS and storage entry point (gemv, gbmv, spmv, gemm, gemm_strided_batched,
 * band/packed pack/unpack; s and d).
 *
 * The input picks a routine, sizes, leading dimensions, increments, strides,
 * enum values (valid, or any int), alpha/beta and a NULL pattern.  An oracle
 * written here from the BLAS/nla.h rules (after tests/test_badinput.c)
 * decides validity.  Contract (abort on violation):
 *   - invalid: NLA_EINVAL, the message names "routine: argument", and every
 *     buffer is bytewise unchanged;
 *   - valid and small enough for the buffers: NLA_OK, the inputs unchanged,
 *     and the output equal to a naive reference within a rounding bound.
 */
#include <math.h>
#include "fuzz_common.h"

__extension__ typedef __int128 i128;
#define BUF 700

enum { R_GEMV, R_GBMV, R_SPMV, R_GEMM, R_GEMM_SB, R_BPACK, R_BUNPACK, R_PPACK, R_PUNPACK, NR };

typedef struct call {
    int r, dbl, no_ctx, trans, transb, uplo, layout, nulls;
    int64_t m, n, k, kl, ku, lda, ldb, ldc, ldab, incx, incy, sa, sb, sc, batch;
    double alpha, beta;
} call;

static nla_context *ctx;
static double in_a[BUF], in_b[BUF], in_x[BUF], out[BUF], saved[4][BUF], ref[BUF];

/* ------------------------------------------------------------- oracle */
static i128 max1(i128 v) { return v > 1 ? v : 1; }
static i128 mspan(i128 r, i128 c, i128 ld) { return r > 0 && c > 0 ? (c - 1) * ld + r : 0; }
static i128 vspan(i128 len, int64_t inc)
{
    if (len > 0 && inc == INT64_MIN)
        return (i128)PTRDIFF_MAX + 1;
    return len > 0 ? (len - 1) * (inc < 0 ? -(i128)inc : inc) + 1 : 0;
}
static int is_tr(int t) { return t == 'N' || t == 'T'; }
static int is_ul(int u) { return u == 'U' || u == 'L'; }

/* returns 1 if valid; need[] = elements each role spans */
static int valid(const call *c, i128 need[4])
{
    int es = c->dbl ? 8 : 4, ok = 1, work, reads;
    i128 lim = (i128)PTRDIFF_MAX / es;
    int64_t m = c->m, n = c->n, k = c->k;
    memset(need, 0, 4 * sizeof(i128));
#define BAD(cond) do { if (cond) ok = 0; } while (0)
    BAD(c->r <= R_GEMM_SB && c->no_ctx);
    switch (c->r) {
    case R_GEMV: case R_GBMV: case R_SPMV: {
        if (c->r == R_SPMV) { BAD(!is_ul(c->uplo)); m = n; } else { BAD(!is_tr(c->trans)); BAD(m < 0); }
        BAD(n < 0);
        if (c->r == R_GEMV) BAD(c->lda < max1(m));
        if (c->r == R_GBMV) { BAD(c->kl < 0); BAD(c->ku < 0); BAD(c->ldab < (i128)c->kl + c->ku + 1); }
        BAD(c->incx == 0); BAD(c->incy == 0);
        if (!ok) return 0;
        work = m > 0 && n > 0 && !(c->alpha == 0 && c->beta == 1);
        reads = work && c->alpha != 0;
        BAD(reads && (c->nulls & 1)); BAD(reads && (c->nulls & 4)); BAD(work && (c->nulls & 8));
        i128 lx = c->trans == 'T' ? m : n, ly = c->trans == 'T' ? n : m;
        need[0] = c->r == R_GEMV ? mspan(m, n, c->lda)
                : c->r == R_GBMV ? mspan(m > 0 ? (i128)c->kl + c->ku + 1 : 0, n, c->ldab)
                : (i128)n * ((i128)n + 1) / 2;
        need[2] = vspan(lx, c->incx);
        need[3] = vspan(ly, c->incy);
        break;
    }
    case R_GEMM: case R_GEMM_SB: {
        int row = c->layout == 'R', sb = c->r == R_GEMM_SB;
        int ta = c->trans == 'T', tb = c->transb == 'T';
        int64_t batch = sb ? c->batch : 1;
        BAD(c->layout != 'C' && c->layout != 'R'); BAD(!is_tr(c->trans)); BAD(!is_tr(c->transb));
        BAD(m < 0); BAD(n < 0); BAD(k < 0);
        if (!ok) return 0;
        i128 rows[3] = {ta != row ? k : m, tb != row ? n : k, row ? n : m};
        i128 cols[3] = {ta != row ? m : k, tb != row ? k : n, row ? m : n};
        int64_t ld[3] = {c->lda, c->ldb, c->ldc}, st[3] = {c->sa, c->sb, c->sc};
        for (int i = 0; i < 3; i++) BAD(ld[i] < max1(rows[i]));
        if (sb) { BAD(c->sa < 0); BAD(c->sb < 0); BAD(c->sc < 0); BAD(c->batch < 0); }
        if (!ok) return 0;
        work = m > 0 && n > 0 && batch > 0 && !((c->alpha == 0 || k == 0) && c->beta == 1);
        reads = work && c->alpha != 0 && k > 0;
        BAD(reads && (c->nulls & 1)); BAD(reads && (c->nulls & 2)); BAD(work && (c->nulls & 8));
        int role[3] = {0, 1, 3};
        for (int i = 0; i < 3; i++) {
            i128 one = mspan(rows[i], cols[i], ld[i]);
            need[role[i]] = one;
            if (one > lim) ok = 0;
            if (sb && batch > 1 && one > 0) need[role[i]] = (i128)(batch - 1) * st[i] + one;
        }
        if (sb && batch > 1 && need[3] > 0 && c->sc < mspan(rows[2], cols[2], ld[2])) ok = 0;
        for (int i = 0; i < 4; i++) BAD(need[i] > lim);
        if (!reads) need[0] = need[1] = 0;   /* A and B are not read */
        break;
    }
    default: {
        int band = c->r == R_BPACK || c->r == R_BUNPACK, pack = c->r == R_BPACK || c->r == R_PPACK;
        int64_t mm = band ? m : n;
        if (band) { BAD(mm < 0); BAD(n < 0); BAD(c->kl < 0); BAD(c->ku < 0);
                    BAD(c->ldab < (i128)c->kl + c->ku + 1); }
        else { BAD(!is_ul(c->uplo)); BAD(n < 0); }
        BAD(c->lda < max1(mm));
        if (!ok) return 0;
        work = mm > 0 && n > 0;
        BAD(work && (c->nulls & 1)); BAD(work && (c->nulls & 8));
        i128 dense = mspan(mm, n, c->lda);
        i128 other = band ? mspan(work ? (i128)c->kl + c->ku + 1 : 0, n, c->ldab)
                          : (i128)n * ((i128)n + 1) / 2;
        need[pack ? 0 : 3] = dense;
        need[pack ? 3 : 0] = other;
        break;
    }
    }
    for (int i = 0; i < 4; i++) BAD(need[i] > lim);
#undef BAD
    return ok;
}

/* ------------------------------------------------------------ invoke */
#define INVOKE(P, T)                                                                     \
    switch (c->r) {                                                                      \
    case R_GEMV: return nla_##P##gemv(cx, c->trans, c->m, c->n, (T)c->alpha, (T *)a, c->lda, \
                                      (T *)x, c->incx, (T)c->beta, (T *)o, c->incy);     \
    case R_GBMV: return nla_##P##gbmv(cx, c->trans, c->m, c->n, c->kl, c->ku, (T)c->alpha, \
                                      (T *)a, c->ldab, (T *)x, c->incx, (T)c->beta, (T *)o, \
                                      c->incy);                                          \
    case R_SPMV: return nla_##P##spmv(cx, c->uplo, c->n, (T)c->alpha, (T *)a, (T *)x, c->incx, \
                                      (T)c->beta, (T *)o, c->incy);                      \
    case R_GEMM: return nla_##P##gemm(cx, c->layout, c->trans, c->transb, c->m, c->n, c->k, \
                                      (T)c->alpha, (T *)a, c->lda, (T *)b, c->ldb,       \
                                      (T)c->beta, (T *)o, c->ldc);                       \
    case R_GEMM_SB: return nla_##P##gemm_strided_batched(cx, c->layout, c->trans, c->transb, \
                                      c->m, c->n, c->k, (T)c->alpha, (T *)a, c->lda, c->sa, \
                                      (T *)b, c->ldb, c->sb, (T)c->beta, (T *)o, c->ldc, \
                                      c->sc, c->batch);                                  \
    case R_BPACK: return nla_##P##band_pack(c->m, c->n, c->kl, c->ku, (T *)a, c->lda, (T *)o, \
                                            c->ldab);                                    \
    case R_BUNPACK: return nla_##P##band_unpack(c->m, c->n, c->kl, c->ku, (T *)a, c->ldab, \
                                                (T *)o, c->lda);                         \
    case R_PPACK: return nla_##P##packed_pack(c->uplo, c->n, (T *)a, c->lda, (T *)o);    \
    default: return nla_##P##packed_unpack(c->uplo, c->n, (T *)a, (T *)o, c->lda);       \
    }

static nla_status invoke(const call *c)
{
    nla_context *cx = c->no_ctx ? NULL : ctx;
    void *a = c->nulls & 1 ? NULL : in_a, *b = c->nulls & 2 ? NULL : in_b;
    void *x = c->nulls & 4 ? NULL : in_x, *o = c->nulls & 8 ? NULL : out;
    if (c->dbl) { INVOKE(d, double) } else { INVOKE(s, float) }
}

/* ----------------------------------------------------------- reference */
/* element i of a buffer in the call's precision */
static double get(const call *c, const double *buf, i128 i)
{
    return c->dbl ? buf[i] : (double)((const float *)buf)[i];
}

static i128 vix(int64_t len, int64_t inc, int64_t i) { return inc > 0 ? (i128)i * inc : (i128)(len - 1 - i) * -inc; }

/* out_ref (doubles, laid out like the output) = what the call should write;
   bound[] = absolute error bound per element */
static void reference(const call *c, double *r, double *bound)
{
    double eps = c->dbl ? 2.3e-16 : 1.2e-7;
    int64_t m = c->m, n = c->n, k = c->k;
    for (int i = 0; i < BUF; i++) { r[i] = get(c, out, i); bound[i] = 0; }
    switch (c->r) {
    case R_GEMV: case R_GBMV: case R_SPMV: {
        if (c->r == R_SPMV) m = n;
        int t = c->r != R_SPMV && c->trans == 'T';
        int64_t lx = t ? m : n, ly = t ? n : m;
        if (m == 0 || n == 0 || (c->alpha == 0 && c->beta == 1)) return;
        for (int64_t i = 0; i < ly; i++) {
            double s = 0, sa = 0;
            for (int64_t j = 0; j < lx && c->alpha != 0; j++) {
                int64_t row = t ? j : i, col = t ? i : j;
                double aij;
                if (c->r == R_GEMV) aij = get(c, in_a, (i128)row + (i128)col * c->lda);
                else if (c->r == R_GBMV) {
                    if (row - col > c->kl || col - row > c->ku) continue;
                    aij = get(c, in_a, (i128)c->ku + row - col + (i128)col * c->ldab);
                } else {
                    int64_t ii = row, jj = col;
                    if ((c->uplo == 'U') != (ii <= jj)) { int64_t tt = ii; ii = jj; jj = tt; }
                    aij = get(c, in_a, c->uplo == 'U' ? (i128)ii + (i128)jj * (jj + 1) / 2
                                                      : (i128)ii + (i128)jj * (2 * n - jj - 1) / 2);
                }
                double xj = get(c, in_x, vix(lx, c->incx, j));
                s += aij * xj;
                sa += fabs(aij * xj);
            }
            i128 yi = vix(ly, c->incy, i);
            double y0 = c->beta == 0 ? 0 : get(c, out, yi);
            r[yi] = c->alpha * s + c->beta * y0;
            bound[yi] = 4 * eps * ((double)lx + 2) * (fabs(c->alpha) * sa + fabs(c->beta * y0)) + 1e-300;
        }
        return;
    }
    case R_GEMM: case R_GEMM_SB: {
        int row = c->layout == 'R';
        int64_t batch = c->r == R_GEMM_SB ? c->batch : 1;
        if (m == 0 || n == 0 || batch == 0 || ((c->alpha == 0 || k == 0) && c->beta == 1)) return;
        for (int64_t p = 0; p < batch; p++)
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    double s = 0, sa = 0;
                    for (int64_t l = 0; l < k && c->alpha != 0; l++) {
                        /* op(A)(i,l), op(B)(l,j) */
                        int64_t ar = c->trans == 'T' ? l : i, ac = c->trans == 'T' ? i : l;
                        int64_t br = c->transb == 'T' ? j : l, bc = c->transb == 'T' ? l : j;
                        i128 ai = row ? (i128)ar * c->lda + ac : (i128)ar + (i128)ac * c->lda;
                        i128 bi = row ? (i128)br * c->ldb + bc : (i128)br + (i128)bc * c->ldb;
                        if (c->r == R_GEMM_SB) { ai += (i128)p * c->sa; bi += (i128)p * c->sb; }
                        double v = get(c, in_a, ai) * get(c, in_b, bi);
                        s += v;
                        sa += fabs(v);
                    }
                    i128 ci = row ? (i128)i * c->ldc + j : (i128)i + (i128)j * c->ldc;
                    if (c->r == R_GEMM_SB) ci += (i128)p * c->sc;
                    double c0 = c->beta == 0 ? 0 : get(c, out, ci);
                    r[ci] = c->alpha * s + c->beta * c0;
                    bound[ci] = 4 * eps * ((double)k + 2) * (fabs(c->alpha) * sa + fabs(c->beta * c0)) + 1e-300;
                }
        return;
    }
    case R_BPACK: case R_BUNPACK:
        if (m == 0 || n == 0)
            return;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                int in_band = i - j <= c->kl && j - i <= c->ku;
                i128 d = (i128)i + (i128)j * c->lda, b = (i128)c->ku + i - j + (i128)j * c->ldab;
                if (c->r == R_BPACK && in_band) r[b] = get(c, in_a, d);
                if (c->r == R_BUNPACK) r[d] = in_band ? get(c, in_a, b) : 0;
            }
        return;
    default:
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) {
                int stored = c->uplo == 'U' ? i <= j : i >= j;
                int64_t ii = stored ? i : j, jj = stored ? j : i;
                i128 pi = c->uplo == 'U' ? (i128)ii + (i128)jj * (jj + 1) / 2
                                         : (i128)ii + (i128)jj * (2 * n - jj - 1) / 2;
                i128 d = (i128)i + (i128)j * c->lda;
                if (c->r == R_PPACK && stored) r[pi] = get(c, in_a, d);
                if (c->r == R_PUNPACK) r[d] = get(c, in_a, pi);
            }
        return;
    }
}

/* ------------------------------------------------------------- decode */
static int rd_enum(reader *r, int v1, int v2)
{
    unsigned s = rd_byte(r);
    if (s < 120) return v1;
    if (s < 240) return v2;
    return (int)(int32_t)rd_u64(r, 4);
}

static double rd_scalar(reader *r)
{
    static const double v[] = {0, 1, -1, 0.5, 2, -0.25, 1.5};
    return v[rd_byte(r) % 7];
}

static int64_t rd_inc(reader *r)
{
    unsigned s = rd_byte(r);
    if (s < 150) return 1;
    if (s < 230) return (int64_t)(s % 7) - 3;
    {
        int64_t v = rd_size(r, 4);
        return (s & 1) && v != INT64_MIN ? -v : v;
    }
}

/* values in the call's precision (floats fill the first half) */
static void fill(int dbl)
{
    for (int i = 0; i < BUF; i++) {
        double a = ((i * 37) % 101) / 50.0 - 1, b = ((i * 53) % 97) / 48.0 - 1;
        double x = ((i * 29) % 89) / 44.0 - 1, o = 3000.25 + i;
        if (dbl) {
            in_a[i] = a, in_b[i] = b, in_x[i] = x, out[i] = o;
        } else {
            ((float *)in_a)[i] = (float)a, ((float *)in_b)[i] = (float)b;
            ((float *)in_x)[i] = (float)x, ((float *)out)[i] = (float)o;
        }
    }
    memcpy(saved[0], in_a, sizeof in_a);
    memcpy(saved[1], in_b, sizeof in_b);
    memcpy(saved[2], in_x, sizeof in_x);
    memcpy(saved[3], out, sizeof out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader rd = {data, size};
    call c;
    i128 need[4];
    static double bound[BUF];
    nla_status s;
    int ok;

    if (!ctx && nla_context_create(&ctx, NLA_BACKEND_CPU) != NLA_OK)
        abort();
    memset(&c, 0, sizeof c);
    c.r = (int)(rd_byte(&rd) % NR);
    c.dbl = rd_byte(&rd) & 1;
    c.no_ctx = rd_byte(&rd) > 250;
    c.trans = rd_enum(&rd, 'N', 'T');
    c.transb = rd_enum(&rd, 'N', 'T');
    c.uplo = rd_enum(&rd, 'U', 'L');
    c.layout = rd_enum(&rd, 'C', 'R');
    c.m = rd_size(&rd, 9);
    c.n = rd_size(&rd, 9);
    c.k = rd_size(&rd, 9);
    c.kl = rd_size(&rd, 4);
    c.ku = rd_size(&rd, 4);
    c.lda = rd_size(&rd, 12);
    c.ldb = rd_size(&rd, 12);
    c.ldc = rd_size(&rd, 12);
    c.ldab = rd_size(&rd, 12);
    c.incx = rd_inc(&rd);
    c.incy = rd_inc(&rd);
    c.sa = rd_size(&rd, 120);
    c.sb = rd_size(&rd, 120);
    c.sc = rd_size(&rd, 120);
    c.batch = rd_size(&rd, 4);
    c.alpha = rd_scalar(&rd);
    c.beta = rd_scalar(&rd);
    c.nulls = rd_byte(&rd) > 220 ? (int)(rd_byte(&rd) & 15) : 0;

    ok = valid(&c, need);
    if (getenv("NLA_FUZZ_VERBOSE"))
        fprintf(stderr, "r%d dbl%d ctx%d tr%d/%d uplo%d lay%d m%lld n%lld k%lld kl%lld ku%lld "
                "ld %lld/%lld/%lld/%lld inc %lld/%lld s %lld/%lld/%lld batch %lld a%g b%g "
                "nulls%d valid%d\n", c.r, c.dbl, !c.no_ctx, c.trans, c.transb, c.uplo,
                c.layout, (long long)c.m, (long long)c.n, (long long)c.k, (long long)c.kl,
                (long long)c.ku, (long long)c.lda, (long long)c.ldb, (long long)c.ldc,
                (long long)c.ldab, (long long)c.incx, (long long)c.incy, (long long)c.sa,
                (long long)c.sb, (long long)c.sc, (long long)c.batch, c.alpha, c.beta, c.nulls,
                ok);
    if (ok)
        for (int i = 0; i < 4; i++)
            if (need[i] > BUF)
                return 0;   /* valid but too big for the buffers: not called */
    fill(c.dbl);
    if (ok)
        reference(&c, ref, bound);
    s = invoke(&c);
    if (!ok) {
        const char *msg = nla_context_error(c.r <= R_GEMM_SB && !c.no_ctx ? ctx : NULL);
        FUZZ_ASSERT(s == NLA_EINVAL, "routine %d: invalid call returned %d (%s)", c.r, (int)s, msg);
        FUZZ_ASSERT(!memcmp(saved[0], in_a, sizeof in_a) && !memcmp(saved[1], in_b, sizeof in_b) &&
                    !memcmp(saved[2], in_x, sizeof in_x) && !memcmp(saved[3], out, sizeof out),
                    "routine %d: rejected (%s) but a buffer changed", c.r, msg);
        fuzz_note_rejection(msg);
        return 0;
    }
    FUZZ_ASSERT(s == NLA_OK, "routine %d dbl %d m %lld n %lld k %lld: valid call returned %d (%s)",
                c.r, c.dbl, (long long)c.m, (long long)c.n, (long long)c.k, (int)s,
                nla_context_error(c.r <= R_GEMM_SB ? ctx : NULL));
    FUZZ_ASSERT(!memcmp(saved[0], in_a, sizeof in_a) && !memcmp(saved[1], in_b, sizeof in_b) &&
                !memcmp(saved[2], in_x, sizeof in_x), "routine %d: an input changed", c.r);
    for (int i = 0; i < BUF; i++) {
        double got = get(&c, out, i);
        FUZZ_ASSERT(fabs(got - ref[i]) <= bound[i] || got == ref[i],
                    "routine %d dbl %d: element %d is %.17g, reference %.17g (bound %g)", c.r,
                    c.dbl, i, got, ref[i], bound[i]);
    }
    fuzz_note_valid();
    return 0;
}
