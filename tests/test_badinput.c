/*
 * test_badinput.c - every public routine, every argument, given bad values.
 *
 * For each rejected call the suite asserts that
 *   - the status is NLA_EINVAL;
 *   - the message (nla_context_error(ctx), or nla_last_error() for routines
 *     without a context) has the documented shape "nla_dgbmv: ldab (3) < ...":
 *     the routine's name, then the name of an argument that really is bad;
 *   - no buffer, output or input, changed by a single byte.
 *
 * Three layers:
 *   1. a table: a valid call per routine, and one mutation at a time to a bad
 *      value, with the argument the message must name written down by hand;
 *   2. a seeded fuzz loop: random argument tuples (sizes, leading dimensions,
 *      increments, strides, enums, NULLs, alpha/beta, huge values that
 *      overflow size_t) judged by an oracle written here from the BLAS and
 *      nla.h rules.  An invalid tuple must be rejected as above; a valid one
 *      small enough for the buffers must return NLA_OK and clear the message;
 *   3. the context, memory and status routines, and the positive cases: empty
 *      calls, alpha == 0 && beta == 1, NULL inputs that BLAS never reads.
 *
 * All calls get small real buffers, so a write that slipped past the checks
 * would be seen (and a read or write far past them is caught by ASan).
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "refs.h"

__extension__ typedef __int128 i128;

#define BUF 2048 /* elements in each buffer */

/* ------------------------------------------------------------ the routines */

enum routine {
    R_GEMV, R_GBMV, R_SPMV, R_GEMM, R_GEMM_SB,
    R_BAND_PACK, R_BAND_UNPACK, R_BAND_DIAG, R_PACKED_PACK, R_PACKED_UNPACK, NR
};

static const char *const rname[NR] = {
    "gemv", "gbmv", "spmv", "gemm", "gemm_strided_batched",
    "band_pack", "band_unpack", "band_from_diagonals", "packed_pack", "packed_unpack",
};

/* pointer roles: two inputs, the vector input, and the output */
enum { ROLE_A, ROLE_B, ROLE_X, ROLE_OUT, NROLES };
#define NUL_A (1 << ROLE_A)
#define NUL_B (1 << ROLE_B)
#define NUL_X (1 << ROLE_X)
#define NUL_OUT (1 << ROLE_OUT)

/* what each role is called in each routine (NULL: not an argument) */
static const char *const role_name[NR][NROLES] = {
    [R_GEMV] = {"a", NULL, "x", "y"},
    [R_GBMV] = {"ab", NULL, "x", "y"},
    [R_SPMV] = {"ap", NULL, "x", "y"},
    [R_GEMM] = {"a", "b", NULL, "c"},
    [R_GEMM_SB] = {"a", "b", NULL, "c"},
    [R_BAND_PACK] = {"a", NULL, NULL, "ab"},
    [R_BAND_UNPACK] = {"ab", NULL, NULL, "a"},
    [R_BAND_DIAG] = {"dg", NULL, NULL, "ab"},
    [R_PACKED_PACK] = {"a", NULL, NULL, "ap"},
    [R_PACKED_UNPACK] = {"ap", NULL, NULL, "a"},
};

static int uses_ctx(enum routine r) { return r <= R_GEMM_SB; }

/* One call.  trans is transa for GEMM; enums are ints so any value fits. */
typedef struct call {
    enum routine r;
    int dbl;
    int no_ctx;
    int trans, transb, uplo, layout;
    int64_t m, n, k, kl, ku, lda, ldb, ldc, ldab, incx, incy, sa, sb, sc, batch;
    double alpha, beta;
    int nulls; /* NUL_* bits */
} call;

/* ------------------------------------------------------------- the buffers */

typedef struct bufs {
    double in[NROLES][BUF];   /* ROLE_OUT's slot is the output */
    double saved[NROLES][BUF];
} bufs;

static bufs *new_bufs(uint64_t seed)
{
    bufs *b = malloc(sizeof *b);
    cr_assert_not_null(b);
    for (int r = 0; r < NROLES; r++)
        ref_fill(b->in[r], BUF, seed + (uint64_t)r);
    return b;
}

/* Random values, and a sentinel pattern in the output (also valid floats). */
static void arm_bufs(bufs *b)
{
    for (int i = 0; i < BUF; i++)
        b->in[ROLE_OUT][i] = 3000.25 + i;
    memcpy(b->saved, b->in, sizeof b->saved);
}

/* The first role whose buffer changed, or -1. */
static int changed_role(const bufs *b)
{
    for (int r = 0; r < NROLES; r++)
        if (memcmp(b->in[r], b->saved[r], sizeof b->in[r]) != 0)
            return r;
    return -1;
}

/* ------------------------------------------------------------ the dispatch */

static nla_context *g_ctx;

#define INVOKE(P, T)                                                           \
    switch (c->r) {                                                            \
    case R_GEMV:                                                               \
        return nla_##P##gemv(ctx, (nla_trans)c->trans, c->m, c->n,            \
                             (T)c->alpha, (const T *)a, c->lda,                \
                             (const T *)x, c->incx, (T)c->beta, (T *)o,        \
                             c->incy);                                         \
    case R_GBMV:                                                               \
        return nla_##P##gbmv(ctx, (nla_trans)c->trans, c->m, c->n, c->kl,      \
                             c->ku, (T)c->alpha, (const T *)a, c->ldab,        \
                             (const T *)x, c->incx, (T)c->beta, (T *)o,        \
                             c->incy);                                         \
    case R_SPMV:                                                               \
        return nla_##P##spmv(ctx, (nla_uplo)c->uplo, c->n, (T)c->alpha,        \
                             (const T *)a, (const T *)x, c->incx, (T)c->beta,  \
                             (T *)o, c->incy);                                 \
    case R_GEMM:                                                               \
        return nla_##P##gemm(ctx, (nla_layout)c->layout, (nla_trans)c->trans,  \
                             (nla_trans)c->transb, c->m, c->n, c->k,           \
                             (T)c->alpha, (const T *)a, c->lda, (const T *)b,  \
                             c->ldb, (T)c->beta, (T *)o, c->ldc);              \
    case R_GEMM_SB:                                                            \
        return nla_##P##gemm_strided_batched(                                  \
            ctx, (nla_layout)c->layout, (nla_trans)c->trans,                   \
            (nla_trans)c->transb, c->m, c->n, c->k, (T)c->alpha,               \
            (const T *)a, c->lda, c->sa, (const T *)b, c->ldb, c->sb,          \
            (T)c->beta, (T *)o, c->ldc, c->sc, c->batch);                      \
    case R_BAND_PACK:                                                          \
        return nla_##P##band_pack(c->m, c->n, c->kl, c->ku, (const T *)a,      \
                                  c->lda, (T *)o, c->ldab);                    \
    case R_BAND_UNPACK:                                                        \
        return nla_##P##band_unpack(c->m, c->n, c->kl, c->ku, (const T *)a,    \
                                    c->ldab, (T *)o, c->lda);                  \
    case R_BAND_DIAG: /* lddg in lda */                                        \
        return nla_##P##band_from_diagonals(c->m, c->n, c->kl, c->ku,          \
                                            (const T *)a, c->lda, (T *)o,      \
                                            c->ldab);                          \
    case R_PACKED_PACK:                                                        \
        return nla_##P##packed_pack((nla_uplo)c->uplo, c->n, (const T *)a,     \
                                    c->lda, (T *)o);                           \
    case R_PACKED_UNPACK:                                                      \
        return nla_##P##packed_unpack((nla_uplo)c->uplo, c->n, (const T *)a,   \
                                      (T *)o, c->lda);                         \
    case NR:                                                                   \
        break;                                                                 \
    }

static nla_status invoke(const call *c, bufs *bf)
{
    nla_context *ctx = c->no_ctx ? NULL : g_ctx;
    const void *a = (c->nulls & NUL_A) ? NULL : bf->in[ROLE_A];
    const void *b = (c->nulls & NUL_B) ? NULL : bf->in[ROLE_B];
    const void *x = (c->nulls & NUL_X) ? NULL : bf->in[ROLE_X];
    void *o = (c->nulls & NUL_OUT) ? NULL : bf->in[ROLE_OUT];
    if (c->dbl) {
        INVOKE(d, double)
    } else {
        INVOKE(s, float)
    }
    cr_assert_fail("unknown routine %d", (int)c->r);
    return NLA_EINVAL;
}

static const char *error_of(const call *c)
{
    return nla_context_error(uses_ctx(c->r) && !c->no_ctx ? g_ctx : NULL);
}

static void routine_name(const call *c, char *out, size_t len)
{
    snprintf(out, len, "nla_%s%s", c->dbl ? "d" : "s", rname[c->r]);
}

static void describe(const call *c, char *out, size_t len)
{
    char fn[64];
    routine_name(c, fn, sizeof fn);
    snprintf(out, len,
             "%s(ctx=%s trans=%d transb=%d uplo=%d layout=%d m=%lld n=%lld k=%lld "
             "kl=%lld ku=%lld lda=%lld ldb=%lld ldc=%lld ldab=%lld incx=%lld incy=%lld "
             "sa=%lld sb=%lld sc=%lld batch=%lld alpha=%g beta=%g nulls=%#x)",
             fn, c->no_ctx ? "NULL" : "ok", c->trans, c->transb, c->uplo, c->layout,
             (long long)c->m, (long long)c->n, (long long)c->k, (long long)c->kl,
             (long long)c->ku, (long long)c->lda, (long long)c->ldb, (long long)c->ldc,
             (long long)c->ldab, (long long)c->incx, (long long)c->incy,
             (long long)c->sa, (long long)c->sb, (long long)c->sc, (long long)c->batch,
             c->alpha, c->beta, (unsigned)c->nulls);
}

/* ---------------------------------------------------------------- the oracle */

/* The BLAS / nla.h rules, written independently of src/core: which
   arguments are bad, and how many elements each buffer must hold. */
typedef struct verdict {
    int nbad;
    const char *bad[40];
    i128 need[NROLES];
} verdict;

static void flag(verdict *v, const char *name)
{
    if (v->nbad < (int)(sizeof v->bad / sizeof v->bad[0]))
        v->bad[v->nbad++] = name;
}

static i128 max1(i128 v) { return v > 1 ? v : 1; }

/* elements spanned by a rows x cols column-major array (0 when empty) */
static i128 mat_span(i128 rows, i128 cols, i128 ld)
{
    return rows > 0 && cols > 0 ? (cols - 1) * ld + rows : 0;
}

/* elements spanned by a vector.  An increment of INT64_MIN is refused even
   for one element: |inc| does not fit in int64_t, and a kernel that negates
   it would overflow; the span is made unrepresentable to say so. */
static i128 vec_span(i128 len, int64_t inc)
{
    i128 ainc = inc < 0 ? -(i128)inc : (i128)inc;
    if (len > 0 && inc == INT64_MIN)
        return (i128)PTRDIFF_MAX + 1;
    return len > 0 ? (len - 1) * ainc + 1 : 0;
}

/* an array of this many elements can exist: its bytes fit in ptrdiff_t */
static int fits(i128 elems, int es) { return elems <= (i128)PTRDIFF_MAX / es; }

static int is_trans(int t) { return t == NLA_NO_TRANS || t == NLA_TRANS; }
static int is_uplo(int u) { return u == NLA_UPPER || u == NLA_LOWER; }
static int is_layout(int l) { return l == NLA_COL_MAJOR || l == NLA_ROW_MAJOR; }

static void check_span(verdict *v, int role, const char *name, i128 span, int es)
{
    if (!fits(span, es))
        flag(v, name);
    v->need[role] = span;
}

static void judge_level2(const call *c, verdict *v, int es)
{
    int64_t m = c->m, n = c->n;
    int work, reads;
    i128 lx, ly;

    if (c->r == R_SPMV) {
        if (!is_uplo(c->uplo)) flag(v, "uplo");
        m = n;
    } else {
        if (!is_trans(c->trans)) flag(v, "trans");
        if (m < 0) flag(v, "m");
    }
    if (n < 0) flag(v, "n");
    if (c->r == R_GEMV && c->lda < max1(m)) flag(v, "lda");
    if (c->r == R_GBMV) {
        if (c->kl < 0) flag(v, "kl");
        if (c->ku < 0) flag(v, "ku");
        if (c->ldab < (i128)c->kl + c->ku + 1) flag(v, "ldab");
    }
    if (c->incx == 0) flag(v, "incx");
    if (c->incy == 0) flag(v, "incy");
    work = m > 0 && n > 0 && !(c->alpha == 0 && c->beta == 1);
    reads = work && c->alpha != 0;
    if (reads && (c->nulls & NUL_A)) flag(v, role_name[c->r][ROLE_A]);
    if (reads && (c->nulls & NUL_X)) flag(v, "x");
    if (work && (c->nulls & NUL_OUT)) flag(v, "y");
    if (m < 0 || n < 0)
        return;
    if (c->r == R_GEMV && c->lda >= 1)
        check_span(v, ROLE_A, "a", mat_span(m, n, c->lda), es);
    if (c->r == R_GBMV && c->kl >= 0 && c->ku >= 0 && c->ldab >= 1)
        check_span(v, ROLE_A, "ab", mat_span(m > 0 ? (i128)c->kl + c->ku + 1 : 0, n,
                                             c->ldab), es);
    if (c->r == R_SPMV)
        check_span(v, ROLE_A, "ap", (i128)n * ((i128)n + 1) / 2, es);
    lx = c->trans == NLA_TRANS ? m : n;
    ly = c->trans == NLA_TRANS ? n : m;
    check_span(v, ROLE_X, "x", vec_span(lx, c->incx), es);
    check_span(v, ROLE_OUT, "y", vec_span(ly, c->incy), es);
}

static void judge_gemm(const call *c, verdict *v, int es)
{
    static const char *const nm[3] = {"a", "b", "c"};
    static const int role[3] = {ROLE_A, ROLE_B, ROLE_OUT};
    int batched = c->r == R_GEMM_SB;
    int64_t m = c->m, n = c->n, k = c->k, batch = batched ? c->batch : 1;
    int row = c->layout == NLA_ROW_MAJOR;
    int ta = c->trans == NLA_TRANS, tb = c->transb == NLA_TRANS;
    /* each array as stored, seen as column-major (a row-major r x c array
       is a column-major c x r one): op(A) m x k, op(B) k x n, C m x n */
    i128 rows[3] = {ta != row ? k : m, tb != row ? n : k, row ? n : m};
    i128 cols[3] = {ta != row ? m : k, tb != row ? k : n, row ? m : n};
    int64_t ld[3] = {c->lda, c->ldb, c->ldc};
    int64_t stride[3] = {batched ? c->sa : 0, batched ? c->sb : 0, batched ? c->sc : 0};
    i128 one[3] = {0, 0, 0};
    int work, reads;

    if (!is_layout(c->layout)) flag(v, "layout");
    if (!is_trans(c->trans)) flag(v, "transa");
    if (!is_trans(c->transb)) flag(v, "transb");
    if (m < 0) flag(v, "m");
    if (n < 0) flag(v, "n");
    if (k < 0) flag(v, "k");
    if (c->lda < max1(rows[0])) flag(v, "lda");
    if (c->ldb < max1(rows[1])) flag(v, "ldb");
    if (c->ldc < max1(rows[2])) flag(v, "ldc");
    if (batched) {
        if (c->sa < 0) flag(v, "stride_a");
        if (c->sb < 0) flag(v, "stride_b");
        if (c->sc < 0) flag(v, "stride_c");
        if (c->batch < 0) flag(v, "batch");
    }
    work = m > 0 && n > 0 && batch > 0 && !((c->alpha == 0 || k == 0) && c->beta == 1);
    reads = work && c->alpha != 0 && k > 0;
    if (reads && (c->nulls & NUL_A)) flag(v, "a");
    if (reads && (c->nulls & NUL_B)) flag(v, "b");
    if (work && (c->nulls & NUL_OUT)) flag(v, "c");
    if (m < 0 || n < 0 || k < 0)
        return;
    for (int i = 0; i < 3; i++) {
        if (ld[i] < 1)
            continue;
        one[i] = mat_span(rows[i], cols[i], ld[i]);
        check_span(v, role[i], nm[i], one[i], es);
        /* matrix j of the batch starts at j*stride */
        if (batch > 1 && stride[i] >= 0 && one[i] > 0)
            check_span(v, role[i], nm[i], (i128)(batch - 1) * stride[i] + one[i], es);
    }
    /* the C matrices of a batch must not overlap */
    if (batched && batch > 1 && one[2] > 0 && c->sc < one[2])
        flag(v, "stride_c");
}

static void judge_storage(const call *c, verdict *v, int es)
{
    int diag = c->r == R_BAND_DIAG;
    int band = c->r == R_BAND_PACK || c->r == R_BAND_UNPACK || diag;
    int pack = c->r == R_BAND_PACK || c->r == R_PACKED_PACK || diag;
    int dense = pack ? ROLE_A : ROLE_OUT, other = pack ? ROLE_OUT : ROLE_A;
    const char *oname = band ? "ab" : "ap", *dname = diag ? "dg" : "a";
    int64_t m = band ? c->m : c->n, n = c->n;
    int work;

    if (band) {
        if (m < 0) flag(v, "m");
        if (n < 0) flag(v, "n");
        if (c->kl < 0) flag(v, "kl");
        if (c->ku < 0) flag(v, "ku");
    } else {
        if (!is_uplo(c->uplo)) flag(v, "uplo");
        if (n < 0) flag(v, "n");
    }
    if (diag ? c->lda < max1(n) : c->lda < max1(m)) flag(v, diag ? "lddg" : "lda");
    if (band && c->ldab < (i128)c->kl + c->ku + 1) flag(v, "ldab");
    work = m > 0 && n > 0;
    if (work && (c->nulls & (1 << dense))) flag(v, dname);
    if (work && (c->nulls & (1 << other))) flag(v, oname);
    if (m < 0 || n < 0)
        return;
    /* dg: an n-by-(kl+ku+1) column-major array */
    if (diag && c->lda >= 1 && c->kl >= 0 && c->ku >= 0)
        check_span(v, dense, "dg", mat_span(work ? n : 0, (i128)c->kl + c->ku + 1, c->lda), es);
    if (!diag && c->lda >= 1)
        check_span(v, dense, "a", mat_span(m, n, c->lda), es);
    if (band && c->kl >= 0 && c->ku >= 0 && c->ldab >= 1)
        check_span(v, other, "ab", mat_span(work ? (i128)c->kl + c->ku + 1 : 0, n, c->ldab),
                   es);
    if (!band)
        check_span(v, other, "ap", (i128)n * ((i128)n + 1) / 2, es);
}

static void judge(const call *c, verdict *v)
{
    int es = c->dbl ? (int)sizeof(double) : (int)sizeof(float);
    memset(v, 0, sizeof *v);
    if (uses_ctx(c->r) && c->no_ctx)
        flag(v, "ctx");
    switch (c->r) {
    case R_GEMV: case R_GBMV: case R_SPMV:
        judge_level2(c, v, es);
        break;
    case R_GEMM: case R_GEMM_SB:
        judge_gemm(c, v, es);
        break;
    default:
        judge_storage(c, v, es);
        break;
    }
}

static int verdict_has(const verdict *v, const char *name)
{
    for (int i = 0; i < v->nbad; i++)
        if (strcmp(v->bad[i], name) == 0)
            return 1;
    return 0;
}

static void verdict_list(const verdict *v, char *out, size_t len)
{
    out[0] = '\0';
    for (int i = 0; i < v->nbad; i++) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", i ? "," : "", v->bad[i]);
    }
}

/* ------------------------------------------------------ the message shape */

/* The argument a message blames: the word right after "fn: ".  Returns 0
   if the message does not start with the routine's name. */
static int blamed(const char *msg, const char *fn, char *arg, size_t len)
{
    size_t lf = strlen(fn), i = 0;
    const char *p;
    if (strncmp(msg, fn, lf) != 0 || strncmp(msg + lf, ": ", 2) != 0)
        return 0;
    p = msg + lf + 2;
    while ((isalnum((unsigned char)p[i]) || p[i] == '_') && i + 1 < len) {
        arg[i] = p[i];
        i++;
    }
    arg[i] = '\0';
    return i > 0;
}

/* Is name one of the '|'-separated alternatives? */
static int one_of(const char *name, const char *alts)
{
    size_t ln = strlen(name);
    const char *p = alts;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t l = bar ? (size_t)(bar - p) : strlen(p);
        if (l == ln && strncmp(p, name, l) == 0)
            return 1;
        if (!bar)
            break;
        p = bar + 1;
    }
    return 0;
}

/* Call c, which must be rejected: EINVAL, a message naming the routine
   and a bad argument (one of expect, if given), and every buffer intact. */
static void expect_rejected(const call *c, bufs *bf, const verdict *v, const char *expect)
{
    char desc[768], fn[64], arg[64], list[512];
    const char *msg;
    nla_status s;
    int r;

    arm_bufs(bf);
    s = invoke(c, bf);
    describe(c, desc, sizeof desc);
    routine_name(c, fn, sizeof fn);
    verdict_list(v, list, sizeof list);
    cr_assert_eq(s, NLA_EINVAL, "%s: status %d (%s), expected NLA_EINVAL (bad: %s)", desc,
                 (int)s, nla_strerror(s), list);
    msg = error_of(c);
    cr_assert(blamed(msg, fn, arg, sizeof arg),
              "%s: message \"%s\" does not read \"%s: <argument> ...\"", desc, msg, fn);
    cr_assert(verdict_has(v, arg), "%s: message \"%s\" blames '%s', which is fine (bad: %s)",
              desc, msg, arg, list);
    if (expect)
        cr_assert(one_of(arg, expect), "%s: message \"%s\" blames '%s', expected '%s'", desc,
                  msg, arg, expect);
    r = changed_role(bf);
    cr_assert_eq(r, -1, "%s: rejected (\"%s\") but the %s buffer changed", desc, msg,
                 r >= 0 && role_name[c->r][r] ? role_name[c->r][r] : "?");
}

/* Call c, which is valid and fits the buffers: NLA_OK, message cleared,
   inputs intact. */
static void expect_ok(const call *c, bufs *bf)
{
    char desc[768];
    nla_status s;
    arm_bufs(bf);
    s = invoke(c, bf);
    describe(c, desc, sizeof desc);
    cr_assert_eq(s, NLA_OK, "%s: status %d, expected NLA_OK (message \"%s\")", desc, (int)s,
                 error_of(c));
    if (uses_ctx(c->r))
        cr_assert_str_empty(nla_context_error(g_ctx), "%s: success left message \"%s\"",
                            desc, nla_context_error(g_ctx));
    for (int r = ROLE_A; r < ROLE_OUT; r++)
        cr_assert(memcmp(bf->in[r], bf->saved[r], sizeof bf->in[r]) == 0,
                  "%s: the input %s changed", desc, role_name[c->r][r]);
}

static int fits_bufs(const verdict *v)
{
    for (int r = 0; r < NROLES; r++)
        if (v->need[r] > BUF)
            return 0;
    return 1;
}

/* --------------------------------------------------------- the base calls */

static call base_call(enum routine r, int dbl)
{
    call c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.dbl = dbl;
    c.trans = c.transb = NLA_NO_TRANS;
    c.uplo = NLA_UPPER;
    c.layout = NLA_COL_MAJOR;
    c.incx = c.incy = 1;
    c.batch = 1;
    c.alpha = 1;
    c.beta = 0.5;
    c.lda = c.ldb = c.ldc = c.ldab = 1;
    switch (r) {
    case R_GEMV:
        c.m = 3; c.n = 4; c.lda = 5;
        break;
    case R_GBMV:
        c.m = 5; c.n = 4; c.kl = 1; c.ku = 2; c.ldab = 5;
        break;
    case R_SPMV:
        c.n = 4;
        break;
    case R_GEMM_SB:
        c.sa = 6; c.sb = 8; c.sc = 12; c.batch = 2;
        /* fall through */
    case R_GEMM:
        c.m = 3; c.n = 4; c.k = 2; c.lda = 3; c.ldb = 2; c.ldc = 3;
        break;
    case R_BAND_PACK: case R_BAND_UNPACK: case R_BAND_DIAG:
        c.m = 5; c.n = 4; c.kl = 1; c.ku = 2; c.lda = 6; c.ldab = 5;
        break;
    case R_PACKED_PACK: case R_PACKED_UNPACK:
        c.n = 4; c.lda = 5;
        break;
    case NR:
        break;
    }
    return c;
}

/* ------------------------------------------------------------ the table */

enum field {
    F_END, F_CTX, F_TRANS, F_TRANSB, F_UPLO, F_LAYOUT, F_M, F_N, F_K, F_KL, F_KU,
    F_LDA, F_LDB, F_LDC, F_LDAB, F_INCX, F_INCY, F_SA, F_SB, F_SC, F_BATCH,
    F_ALPHA, F_BETA, F_NULL
};

static const char *const field_name[] = {
    "", "ctx", "trans", "transb", "uplo", "layout", "m", "n", "k", "kl", "ku",
    "lda", "ldb", "ldc", "ldab", "incx", "incy", "stride_a", "stride_b", "stride_c",
    "batch", "alpha", "beta", "nulls"
};

typedef struct setting { enum field f; int64_t v; } setting;
/* expect: the argument the message must blame ('|' between alternatives);
   "@A" and "@OUT" stand for the routine's name of that pointer role */
typedef struct mutation { const char *expect; setting set[6]; } mutation;

#define S(f, v) {F_##f, (int64_t)(v)}
#define MUT(e, ...) {e, {__VA_ARGS__}}
#define BIG (INT64_C(1) << 40)
#define HALF (INT64_MAX / 2)

static void apply(call *c, setting s)
{
    switch (s.f) {
    case F_END: break;
    case F_CTX: c->no_ctx = !s.v; break;
    case F_TRANS: c->trans = (int)s.v; break;
    case F_TRANSB: c->transb = (int)s.v; break;
    case F_UPLO: c->uplo = (int)s.v; break;
    case F_LAYOUT: c->layout = (int)s.v; break;
    case F_M: c->m = s.v; break;
    case F_N: c->n = s.v; break;
    case F_K: c->k = s.v; break;
    case F_KL: c->kl = s.v; break;
    case F_KU: c->ku = s.v; break;
    case F_LDA: c->lda = s.v; break;
    case F_LDB: c->ldb = s.v; break;
    case F_LDC: c->ldc = s.v; break;
    case F_LDAB: c->ldab = s.v; break;
    case F_INCX: c->incx = s.v; break;
    case F_INCY: c->incy = s.v; break;
    case F_SA: c->sa = s.v; break;
    case F_SB: c->sb = s.v; break;
    case F_SC: c->sc = s.v; break;
    case F_BATCH: c->batch = s.v; break;
    case F_ALPHA: c->alpha = (double)s.v; break;
    case F_BETA: c->beta = (double)s.v; break;
    case F_NULL: c->nulls = (int)s.v; break;
    }
}

#define ALL_NULL (NUL_A | NUL_B | NUL_X | NUL_OUT)

static const mutation gemv_muts[] = {
    MUT("ctx", S(CTX, 0)),
    MUT("trans", S(TRANS, 0)), MUT("trans", S(TRANS, 'X')), MUT("trans", S(TRANS, 'n')),
    MUT("trans", S(TRANS, -1)), MUT("trans", S(TRANS, 'N' + 256)),
    MUT("trans", S(TRANS, NLA_UPPER)), MUT("trans", S(TRANS, NLA_ROW_MAJOR)),
    MUT("m", S(M, -1)), MUT("m", S(M, INT64_MIN)), MUT("n", S(N, -1)), MUT("n", S(N, INT64_MIN)),
    MUT("lda", S(LDA, 2)), MUT("lda", S(LDA, 0)), MUT("lda", S(LDA, -1)),
    MUT("lda", S(LDA, INT64_MIN)), MUT("lda", S(M, 1), S(LDA, 0)), MUT("lda", S(M, 0), S(LDA, 0)),
    MUT("lda", S(TRANS, NLA_TRANS), S(LDA, 2)),
    MUT("incx", S(INCX, 0)), MUT("incy", S(INCY, 0)),
    MUT("incx", S(TRANS, NLA_TRANS), S(INCX, 0)),
    MUT("a", S(NULL, NUL_A)), MUT("x", S(NULL, NUL_X)), MUT("y", S(NULL, NUL_OUT)),
    MUT("y", S(NULL, ALL_NULL), S(ALPHA, 0)), MUT("y", S(NULL, NUL_OUT), S(BETA, 1)),
    MUT("a", S(M, BIG), S(N, BIG), S(LDA, BIG)),
    MUT("a", S(LDA, HALF)), MUT("a", S(LDA, INT64_MAX)),
    MUT("a|y", S(M, INT64_C(1) << 62), S(N, 1), S(LDA, INT64_C(1) << 62)),
    MUT("x", S(INCX, HALF)), MUT("x", S(INCX, -HALF)), MUT("x", S(INCX, INT64_MIN)),
    MUT("x", S(INCX, INT64_MAX)), MUT("x", S(TRANS, NLA_TRANS), S(INCX, HALF)),
    MUT("y", S(INCY, HALF)), MUT("y", S(INCY, INT64_MIN)),
    MUT("y", S(TRANS, NLA_TRANS), S(INCY, -HALF)),
    {NULL, {{F_END, 0}}}
};

static const mutation gbmv_muts[] = {
    MUT("ctx", S(CTX, 0)),
    MUT("trans", S(TRANS, 0)), MUT("trans", S(TRANS, 'X')), MUT("trans", S(TRANS, 't')),
    MUT("m", S(M, -1)), MUT("n", S(N, -1)), MUT("kl", S(KL, -1)), MUT("ku", S(KU, -1)),
    MUT("kl", S(KL, INT64_MIN)), MUT("ku", S(KU, INT64_MIN)),
    MUT("ldab", S(LDAB, 3)), MUT("ldab", S(LDAB, 0)), MUT("ldab", S(LDAB, -1)),
    MUT("ldab", S(KL, 0), S(KU, 0), S(LDAB, 0)),
    MUT("ldab", S(KL, INT64_MAX)), MUT("ldab", S(KU, INT64_MAX)),
    MUT("ldab", S(KL, HALF + 1), S(KU, HALF + 1), S(LDAB, INT64_MAX)),
    MUT("ab", S(KL, INT64_MAX - 1), S(KU, 0), S(LDAB, INT64_MAX)),
    MUT("ab", S(N, BIG), S(LDAB, BIG)),
    MUT("incx", S(INCX, 0)), MUT("incy", S(INCY, 0)),
    MUT("ab", S(NULL, NUL_A)), MUT("x", S(NULL, NUL_X)), MUT("y", S(NULL, NUL_OUT)),
    MUT("y", S(NULL, ALL_NULL), S(ALPHA, 0)),
    MUT("x", S(INCX, HALF)), MUT("x", S(INCX, INT64_MIN)), MUT("y", S(INCY, -HALF)),
    MUT("x", S(TRANS, NLA_TRANS), S(INCX, INT64_MAX)),
    {NULL, {{F_END, 0}}}
};

static const mutation spmv_muts[] = {
    MUT("ctx", S(CTX, 0)),
    MUT("uplo", S(UPLO, 0)), MUT("uplo", S(UPLO, 'X')), MUT("uplo", S(UPLO, 'u')),
    MUT("uplo", S(UPLO, NLA_NO_TRANS)), MUT("uplo", S(UPLO, -1)),
    MUT("n", S(N, -1)), MUT("n", S(N, INT64_MIN)),
    MUT("incx", S(INCX, 0)), MUT("incy", S(INCY, 0)),
    MUT("ap", S(NULL, NUL_A)), MUT("x", S(NULL, NUL_X)), MUT("y", S(NULL, NUL_OUT)),
    MUT("y", S(NULL, ALL_NULL), S(ALPHA, 0)),
    MUT("ap", S(N, INT64_C(1) << 32)), MUT("ap", S(N, INT64_C(3037000500))),
    MUT("ap|x|y", S(N, INT64_MAX)), MUT("ap|x|y", S(N, INT64_MAX - 1)),
    MUT("x", S(INCX, HALF)), MUT("x", S(INCX, INT64_MIN)), MUT("y", S(INCY, -HALF)),
    {NULL, {{F_END, 0}}}
};

/* GEMM, for both gemm and gemm_strided_batched (base: column-major N N,
   m=3 n=4 k=2 lda=3 ldb=2 ldc=3).  Row-major needs lda >= k, ldb >= n,
   ldc >= n for N N, so those rows set all three. */
static const mutation gemm_muts[] = {
    MUT("ctx", S(CTX, 0)),
    MUT("layout", S(LAYOUT, 0)), MUT("layout", S(LAYOUT, 'Z')), MUT("layout", S(LAYOUT, 'c')),
    MUT("layout", S(LAYOUT, NLA_NO_TRANS)), MUT("layout", S(LAYOUT, -1)),
    MUT("transa", S(TRANS, 0)), MUT("transa", S(TRANS, 'X')), MUT("transa", S(TRANS, NLA_LOWER)),
    MUT("transb", S(TRANSB, 0)), MUT("transb", S(TRANSB, 'X')), MUT("transb", S(TRANSB, 't')),
    MUT("m", S(M, -1)), MUT("n", S(N, -1)), MUT("k", S(K, -1)), MUT("k", S(K, INT64_MIN)),
    MUT("lda", S(LDA, 2)), MUT("lda", S(LDA, 0)), MUT("ldb", S(LDB, 1)), MUT("ldb", S(LDB, -1)),
    MUT("ldc", S(LDC, 2)), MUT("ldc", S(LDC, 0)),
    MUT("lda", S(TRANS, NLA_TRANS), S(LDA, 1)),
    MUT("ldb", S(TRANSB, NLA_TRANS), S(LDB, 3)),
    MUT("lda", S(M, 0), S(LDA, 0)), MUT("ldc", S(M, 0), S(LDC, 0)),
    MUT("lda", S(LAYOUT, NLA_ROW_MAJOR), S(LDA, 1), S(LDB, 4), S(LDC, 4)),
    MUT("ldb", S(LAYOUT, NLA_ROW_MAJOR), S(LDA, 2), S(LDB, 3), S(LDC, 4)),
    MUT("ldc", S(LAYOUT, NLA_ROW_MAJOR), S(LDA, 2), S(LDB, 4), S(LDC, 3)),
    MUT("lda", S(LAYOUT, NLA_ROW_MAJOR), S(TRANS, NLA_TRANS), S(LDA, 2), S(LDB, 4), S(LDC, 4)),
    MUT("ldb", S(LAYOUT, NLA_ROW_MAJOR), S(TRANSB, NLA_TRANS), S(LDA, 2), S(LDB, 1), S(LDC, 4)),
    MUT("a", S(NULL, NUL_A)), MUT("b", S(NULL, NUL_B)), MUT("c", S(NULL, NUL_OUT)),
    MUT("c", S(NULL, ALL_NULL), S(ALPHA, 0)), MUT("c", S(NULL, ALL_NULL), S(K, 0)),
    MUT("a", S(LDA, HALF)), MUT("b", S(LDB, HALF)), MUT("c", S(LDC, HALF)),
    MUT("c", S(LDC, INT64_MAX)),
    MUT("a", S(M, BIG), S(K, BIG), S(LDA, BIG), S(LDB, BIG), S(LDC, BIG)),
    MUT("a", S(LAYOUT, NLA_ROW_MAJOR), S(M, BIG), S(K, BIG), S(LDA, BIG), S(LDB, 4),
        S(LDC, 4)),
    {NULL, {{F_END, 0}}}
};

/* only gemm_strided_batched (base adds stride_a=6 stride_b=8 stride_c=12 batch=2) */
static const mutation batched_muts[] = {
    MUT("stride_a", S(SA, -1)), MUT("stride_b", S(SB, -1)), MUT("stride_c", S(SC, -1)),
    MUT("stride_a", S(SA, INT64_MIN)),
    MUT("batch", S(BATCH, -1)), MUT("batch", S(BATCH, INT64_MIN)),
    MUT("stride_c", S(SC, 11)), MUT("stride_c", S(SC, 0)), MUT("stride_c", S(SC, 1)),
    MUT("stride_c", S(LAYOUT, NLA_ROW_MAJOR), S(LDA, 2), S(LDB, 4), S(LDC, 4), S(SC, 11)),
    MUT("stride_c", S(NULL, ALL_NULL), S(ALPHA, 0), S(BETA, 1), S(SC, 0)),
    MUT("a", S(SA, HALF)), MUT("b", S(SB, HALF)), MUT("c", S(SC, HALF)),
    MUT("a", S(SA, INT64_MAX)), MUT("c", S(SC, INT64_MAX)),
    MUT("c", S(BATCH, INT64_C(1) << 61), S(SA, 0), S(SB, 0)),
    MUT("a|b|c", S(BATCH, INT64_MAX)),
    MUT("a", S(BATCH, 3), S(SA, HALF / 2 + 1)),
    {NULL, {{F_END, 0}}}
};

/* band pack and unpack: base m=5 n=4 kl=1 ku=2 lda=6 ldab=5 */
static const mutation band_muts[] = {
    MUT("m", S(M, -1)), MUT("n", S(N, -1)), MUT("kl", S(KL, -1)), MUT("ku", S(KU, -1)),
    MUT("m", S(M, INT64_MIN)), MUT("ku", S(KU, INT64_MIN)),
    MUT("lda", S(LDA, 4)), MUT("lda", S(LDA, 0)), MUT("lda", S(LDA, -1)),
    MUT("lda", S(M, 0), S(LDA, 0)), MUT("lda", S(M, 1), S(LDA, 0)),
    MUT("ldab", S(LDAB, 3)), MUT("ldab", S(LDAB, 0)),
    MUT("ldab", S(KL, 0), S(KU, 0), S(LDAB, 0)),
    MUT("ldab", S(KL, INT64_MAX)), MUT("ldab", S(KU, INT64_MAX)),
    MUT("ldab", S(KL, HALF + 1), S(KU, HALF + 1), S(LDAB, INT64_MAX)),
    MUT("@A", S(NULL, NUL_A)), MUT("@OUT", S(NULL, NUL_OUT)),
    MUT("a", S(LDA, HALF)), MUT("ab", S(LDAB, HALF)),
    MUT("a", S(M, BIG), S(N, BIG), S(LDA, BIG)),
    MUT("ab", S(KL, INT64_MAX - 1), S(KU, 0), S(LDAB, INT64_MAX)),
    {NULL, {{F_END, 0}}}
};

/* band from diagonals: base m=5 n=4 kl=1 ku=2 lddg=6 (in lda) ldab=5 */
static const mutation band_diag_muts[] = {
    MUT("m", S(M, -1)), MUT("n", S(N, -1)), MUT("kl", S(KL, -1)), MUT("ku", S(KU, -1)),
    MUT("n", S(N, INT64_MIN)), MUT("kl", S(KL, INT64_MIN)),
    MUT("lddg", S(LDA, 3)), MUT("lddg", S(LDA, 0)), MUT("lddg", S(LDA, -1)),
    MUT("lddg", S(N, 0), S(LDA, 0)), MUT("lddg", S(N, 1), S(LDA, 0)),
    MUT("ldab", S(LDAB, 3)), MUT("ldab", S(LDAB, 0)),
    MUT("ldab", S(KL, INT64_MAX)), MUT("ldab", S(KU, INT64_MAX)),
    MUT("@A", S(NULL, NUL_A)), MUT("@OUT", S(NULL, NUL_OUT)),
    MUT("dg", S(LDA, HALF)), MUT("ab", S(LDAB, HALF)),
    MUT("dg", S(KL, BIG), S(LDA, BIG), S(LDAB, BIG + 3)),
    MUT("dg", S(KL, HALF), S(KU, 0), S(LDAB, INT64_MAX)),
    {NULL, {{F_END, 0}}}
};

/* packed pack and unpack: base n=4 lda=5 upper */
static const mutation packed_muts[] = {
    MUT("uplo", S(UPLO, 0)), MUT("uplo", S(UPLO, 'X')), MUT("uplo", S(UPLO, 'l')),
    MUT("uplo", S(UPLO, NLA_COL_MAJOR)), MUT("uplo", S(UPLO, -1)),
    MUT("n", S(N, -1)), MUT("n", S(N, INT64_MIN)),
    MUT("lda", S(LDA, 3)), MUT("lda", S(LDA, 0)), MUT("lda", S(N, 0), S(LDA, 0)),
    MUT("@A", S(NULL, NUL_A)), MUT("@OUT", S(NULL, NUL_OUT)),
    MUT("a", S(LDA, HALF)),
    MUT("a|ap", S(N, INT64_C(3037000500)), S(LDA, INT64_C(3037000500))),
    MUT("a|ap", S(N, INT64_C(1) << 32), S(LDA, INT64_C(1) << 32)),
    MUT("a|ap", S(N, INT64_MAX), S(LDA, INT64_MAX)),
    {NULL, {{F_END, 0}}}
};

static const mutation *const muts_of[NR][2] = {
    [R_GEMV] = {gemv_muts, NULL},
    [R_GBMV] = {gbmv_muts, NULL},
    [R_SPMV] = {spmv_muts, NULL},
    [R_GEMM] = {gemm_muts, NULL},
    [R_GEMM_SB] = {gemm_muts, batched_muts},
    [R_BAND_PACK] = {band_muts, NULL},
    [R_BAND_UNPACK] = {band_muts, NULL},
    [R_BAND_DIAG] = {band_diag_muts, NULL},
    [R_PACKED_PACK] = {packed_muts, NULL},
    [R_PACKED_UNPACK] = {packed_muts, NULL},
};

static bufs *g_bufs;

static void setup(void)
{
    g_ctx = ref_cpu_context();
    g_bufs = new_bufs(42);
}

static void teardown(void)
{
    nla_context_destroy(g_ctx);
    free(g_bufs);
}

TestSuite(badinput, .init = setup, .fini = teardown);

static int run_mutations(enum routine r, int dbl, const mutation *list)
{
    int count = 0;
    for (const mutation *mu = list; mu->expect; mu++) {
        call c = base_call(r, dbl);
        verdict v;
        const char *expect = mu->expect;
        for (int i = 0; i < 6 && mu->set[i].f != F_END; i++)
            apply(&c, mu->set[i]);
        if (strcmp(expect, "@A") == 0)
            expect = role_name[r][ROLE_A];
        else if (strcmp(expect, "@OUT") == 0)
            expect = role_name[r][ROLE_OUT];
        judge(&c, &v);
        {
            char desc[768];
            describe(&c, desc, sizeof desc);
            cr_assert_gt(v.nbad, 0, "table row %d (%s): the oracle finds %s valid",
                         (int)(mu - list), expect, desc);
        }
        expect_rejected(&c, g_bufs, &v, expect);
        count++;
    }
    return count;
}

Test(badinput, table_one_bad_argument_at_a_time)
{
    int total = 0;
    for (int dbl = 0; dbl < 2; dbl++)
        for (int r = 0; r < NR; r++) {
            call c = base_call((enum routine)r, dbl);
            verdict v;
            judge(&c, &v);
            cr_assert_eq(v.nbad, 0, "the base call of %s is not valid", rname[r]);
            expect_ok(&c, g_bufs);
            for (int l = 0; l < 2; l++)
                if (muts_of[r][l])
                    total += run_mutations((enum routine)r, dbl, muts_of[r][l]);
        }
    cr_log_info("table: %d rejected calls checked", total);
    cr_assert_gt(total, 400, "only %d table rows ran", total);
}

/* ------------------------------------------------------------- the fuzz */

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#define PICK(s, pool) ((pool)[rnd(s) % (sizeof(pool) / sizeof((pool)[0]))])

static const int64_t huge_pool[] = {
    INT64_MAX, INT64_MAX - 1, HALF, HALF + 1, INT64_C(1) << 31, INT64_C(1) << 32,
    INT64_C(3037000500), BIG, INT64_C(1) << 61, INT64_C(1) << 62,
    PTRDIFF_MAX / 8, PTRDIFF_MAX / 8 + 1, PTRDIFF_MAX / 4 + 1,
};
static const int64_t neg_pool[] = {-1, -2, -7, INT64_MIN, INT64_MIN + 1};

static int64_t rnd_size(uint64_t *s)
{
    unsigned r = (unsigned)(rnd(s) % 100);
    if (r < 75)
        return (int64_t)(rnd(s) % 7);
    if (r < 85)
        return PICK(s, neg_pool);
    return PICK(s, huge_pool);
}

static int64_t clamp_add(int64_t a, int64_t d)
{
    i128 v = (i128)a + d;
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

/* mostly near a size the routine might need, sometimes anything */
static int64_t rnd_ld(uint64_t *s, int64_t want)
{
    static const int64_t delta[] = {-1, 0, 0, 0, 1, 2, 5};
    unsigned r = (unsigned)(rnd(s) % 100);
    if (r < 70)
        return clamp_add(want > 1 ? want : 1, PICK(s, delta));
    if (r < 82) {
        static const int64_t small[] = {0, -1, 1, 2, 3};
        return PICK(s, small);
    }
    if (r < 88)
        return PICK(s, neg_pool);
    return PICK(s, huge_pool);
}

static int64_t rnd_inc(uint64_t *s)
{
    static const int64_t ok[] = {1, 1, 1, 2, -1, -2, 3};
    static const int64_t huge[] = {INT64_MAX, INT64_MIN, HALF, -HALF, BIG, -BIG,
                                   INT64_MIN + 1};
    unsigned r = (unsigned)(rnd(s) % 100);
    if (r < 78)
        return PICK(s, ok);
    if (r < 86)
        return 0;
    return PICK(s, huge);
}

static int rnd_enum(uint64_t *s, int v1, int v2)
{
    static const int junk[] = {0, -1, 'X', 'n', 't', 'u', 'l', 'c', 'r', 'N' + 256,
                               NLA_NO_TRANS, NLA_TRANS, NLA_UPPER, NLA_LOWER,
                               NLA_COL_MAJOR, NLA_ROW_MAJOR};
    unsigned r = (unsigned)(rnd(s) % 100);
    if (r < 88)
        return r & 1 ? v1 : v2;
    return PICK(s, junk);
}

static int64_t max3(int64_t a, int64_t b, int64_t c)
{
    int64_t m = a > b ? a : b;
    return m > c ? m : c;
}

static call rnd_call(uint64_t *s)
{
    static const double scal[] = {0, 1, 0.5, -2};
    static const double betas[] = {1, 1, 0, 0.5, -1};
    call c;
    int64_t big;
    memset(&c, 0, sizeof c);
    c.r = (enum routine)(rnd(s) % NR);
    c.dbl = (int)(rnd(s) & 1);
    c.no_ctx = rnd(s) % 40 == 0;
    c.trans = rnd_enum(s, NLA_NO_TRANS, NLA_TRANS);
    c.transb = rnd_enum(s, NLA_NO_TRANS, NLA_TRANS);
    c.uplo = rnd_enum(s, NLA_UPPER, NLA_LOWER);
    c.layout = rnd_enum(s, NLA_COL_MAJOR, NLA_ROW_MAJOR);
    c.m = rnd_size(s);
    c.n = rnd_size(s);
    c.k = rnd_size(s);
    c.kl = rnd(s) % 3 ? (int64_t)(rnd(s) % 9) : rnd_size(s);
    c.ku = rnd(s) % 3 ? (int64_t)(rnd(s) % 9) : rnd_size(s);
    big = max3(c.m, c.n, c.k);
    /* one of the sizes, or the largest: sometimes right, sometimes short */
    {
        int64_t dims[] = {c.m, c.n, c.k, big, big, big};
        c.lda = rnd_ld(s, PICK(s, dims));
        c.ldb = rnd_ld(s, PICK(s, dims));
        c.ldc = rnd_ld(s, PICK(s, dims));
    }
    c.ldab = rnd_ld(s, clamp_add(clamp_add(c.kl, c.ku), 1));
    c.incx = rnd_inc(s);
    c.incy = rnd_inc(s);
    {
        /* strides: often one matrix's extent or more, sometimes less */
        int64_t ld = max3(c.lda, c.ldb, c.ldc);
        int64_t one = ld > 0 && big > 0 && ld < 64 && big < 64 ? ld * big : 8;
        int64_t *st[3] = {&c.sa, &c.sb, &c.sc};
        for (int i = 0; i < 3; i++) {
            unsigned r = (unsigned)(rnd(s) % 100);
            *st[i] = r < 15 ? 0 : r < 75 ? (int64_t)(rnd(s) % (uint64_t)(one + 4))
                   : r < 85 ? PICK(s, neg_pool) : PICK(s, huge_pool);
        }
    }
    c.batch = rnd(s) % 100 < 80 ? (int64_t)(rnd(s) % 4) : rnd_size(s);
    c.alpha = PICK(s, scal);
    c.beta = PICK(s, betas);
    for (int r = 0; r < NROLES; r++)
        if (rnd(s) % 100 < 7)
            c.nulls |= 1 << r;
    return c;
}

Test(badinput, fuzz_random_argument_tuples)
{
    uint64_t seed = 0x6e6c61u; /* fixed: the run is reproducible */
    int rejected = 0, accepted = 0, skipped = 0, iters = 100000;
    int per[NR][2] = {{0}};
    for (int it = 0; it < iters; it++) {
        call c = rnd_call(&seed);
        verdict v;
        judge(&c, &v);
        if (v.nbad > 0) {
            expect_rejected(&c, g_bufs, &v, NULL);
            rejected++;
            per[c.r][0]++;
        } else if (fits_bufs(&v)) {
            expect_ok(&c, g_bufs);
            accepted++;
            per[c.r][1]++;
        } else {
            skipped++; /* valid, but larger than the buffers */
        }
    }
    cr_log_info("fuzz: %d rejected, %d accepted, %d valid but too large to run", rejected,
                accepted, skipped);
    for (int r = 0; r < NR; r++) {
        cr_assert_gt(per[r][0], 200, "fuzz: only %d rejected calls of %s", per[r][0], rname[r]);
        cr_assert_gt(per[r][1], 100, "fuzz: only %d accepted calls of %s", per[r][1], rname[r]);
    }
}

/* ------------------------------------------- context, memory and status */

/* msg must read "fn: arg ..." */
static void assert_blames(const char *msg, const char *fn, const char *arg, const char *what)
{
    char got[64];
    cr_assert(blamed(msg, fn, got, sizeof got) && strcmp(got, arg) == 0,
              "%s: message \"%s\", expected \"%s: %s ...\"", what, msg, fn, arg);
}

Test(badinput, context_create)
{
    static const int bad_backends[] = {3, 4, -1, 100, 'C', INT_MAX, INT_MIN};
    nla_context *sentinel = (nla_context *)&sentinel, *c;
    nla_status s;

    s = nla_context_create(NULL, NLA_BACKEND_CPU);
    cr_assert_eq(s, NLA_EINVAL, "nla_context_create(NULL, CPU): status %d", (int)s);
    assert_blames(nla_last_error(), "nla_context_create", "ctx", "create(NULL)");
    for (size_t i = 0; i < sizeof bad_backends / sizeof bad_backends[0]; i++) {
        c = sentinel;
        s = nla_context_create(&c, (nla_backend)bad_backends[i]);
        cr_assert_eq(s, NLA_EINVAL, "nla_context_create(backend=%d): status %d",
                     bad_backends[i], (int)s);
        cr_assert_null(c, "nla_context_create(backend=%d): *ctx not NULL after a failure",
                       bad_backends[i]);
        assert_blames(nla_last_error(), "nla_context_create", "backend", "bad backend");
        /* a bad backend is also never "available" */
        cr_assert_eq(nla_backend_available((nla_backend)bad_backends[i]), 0,
                     "backend %d reported available", bad_backends[i]);
        cr_assert_str_not_empty(nla_backend_name((nla_backend)bad_backends[i]));
    }
    /* CUDA is either there or cleanly absent; never EINVAL, never a half-made ctx */
    c = sentinel;
    s = nla_context_create(&c, NLA_BACKEND_CUDA);
    cr_assert(s == NLA_OK || s == NLA_ENOBACKEND, "create(CUDA): status %d", (int)s);
    if (s == NLA_OK)
        nla_context_destroy(c);
    else
        cr_assert_null(c, "create(CUDA) failed but *ctx is not NULL");
}

Test(badinput, context_create_bad_environment)
{
    nla_context *sentinel = (nla_context *)&sentinel, *c = sentinel;
    nla_status s;
    /* each Criterion test runs in its own process, so setenv stays here */
    setenv("NLA_BACKEND", "gpu-please", 1);
    s = nla_context_create(&c, NLA_BACKEND_AUTO);
    cr_assert_eq(s, NLA_EINVAL, "AUTO with NLA_BACKEND=gpu-please: status %d", (int)s);
    cr_assert_null(c, "AUTO with a bad NLA_BACKEND: *ctx not NULL");
    assert_blames(nla_last_error(), "nla_context_create", "NLA_BACKEND", "bad environment");
    /* an explicit backend does not look at the variable */
    s = nla_context_create(&c, NLA_BACKEND_CPU);
    cr_assert_eq(s, NLA_OK, "CPU with a bad NLA_BACKEND: status %d", (int)s);
    nla_context_destroy(c);
    unsetenv("NLA_BACKEND");
}

Test(badinput, context_set_threads_and_synchronize)
{
    static const int bad[] = {-1, -2, INT_MIN};
    nla_status s = nla_context_set_threads(NULL, 2);
    cr_assert_eq(s, NLA_EINVAL, "set_threads(NULL): status %d", (int)s);
    assert_blames(nla_last_error(), "nla_context_set_threads", "ctx", "set_threads(NULL)");
    cr_assert_eq(nla_context_set_threads(g_ctx, 3), NLA_OK);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s = nla_context_set_threads(g_ctx, bad[i]);
        cr_assert_eq(s, NLA_EINVAL, "set_threads(%d): status %d", bad[i], (int)s);
        assert_blames(nla_context_error(g_ctx), "nla_context_set_threads", "nthreads",
                      "set_threads(<0)");
        cr_assert_eq(nla_context_threads(g_ctx), 3, "set_threads(%d) changed the count to %d",
                     bad[i], nla_context_threads(g_ctx));
    }
    s = nla_context_synchronize(NULL);
    cr_assert_eq(s, NLA_EINVAL, "synchronize(NULL): status %d", (int)s);
    assert_blames(nla_last_error(), "nla_context_synchronize", "ctx", "synchronize(NULL)");
    /* the queries take NULL quietly */
    cr_assert_eq(nla_context_threads(NULL), 0);
    cr_assert_eq(nla_context_error(NULL), nla_last_error());
    nla_context_destroy(NULL);
    nla_free(g_ctx, NULL);
    nla_free(NULL, NULL);
}

/* Streams belong to the CUDA backend: a CPU context takes NULL only, and
   stays usable after a refused stream. */
Test(badinput, context_set_stream)
{
    int token;
    nla_status s = nla_context_set_stream(NULL, NULL);
    cr_assert_eq(s, NLA_EINVAL, "set_stream(NULL ctx): status %d", (int)s);
    assert_blames(nla_last_error(), "nla_context_set_stream", "ctx", "set_stream(NULL)");
    cr_assert_null(nla_context_stream(NULL));
    cr_assert_eq(nla_context_backend(g_ctx), NLA_BACKEND_CPU);
    s = nla_context_set_stream(g_ctx, &token);
    cr_assert_eq(s, NLA_ENOTSUP, "set_stream(cpu, stream): status %d", (int)s);
    assert_blames(nla_context_error(g_ctx), "nla_context_set_stream", "stream",
                  "set_stream(cpu, stream)");
    cr_assert_null(nla_context_stream(g_ctx));
    cr_assert_eq(nla_context_set_stream(g_ctx, NULL), NLA_OK, "%s", nla_context_error(g_ctx));
    cr_assert_str_empty(nla_context_error(g_ctx));
    cr_assert_eq(nla_context_synchronize(g_ctx), NLA_OK);
}

Test(badinput, memory_routines)
{
    static const size_t too_big[] = {SIZE_MAX, (size_t)PTRDIFF_MAX + 1};
    void *sentinel = (void *)&sentinel, *p = sentinel;
    unsigned char src[64], dst[64], keep[64];
    nla_status s;

    for (int i = 0; i < 64; i++)
        src[i] = (unsigned char)i, dst[i] = keep[i] = 0xA5;

    s = nla_malloc(NULL, &p, 16);
    cr_assert_eq(s, NLA_EINVAL, "malloc(ctx=NULL): status %d", (int)s);
    cr_assert_null(p, "malloc(ctx=NULL): *ptr not NULL after a failure");
    assert_blames(nla_last_error(), "nla_malloc", "ctx", "malloc(ctx=NULL)");
    s = nla_malloc(g_ctx, NULL, 16);
    cr_assert_eq(s, NLA_EINVAL, "malloc(ptr=NULL): status %d", (int)s);
    assert_blames(nla_context_error(g_ctx), "nla_malloc", "ptr", "malloc(ptr=NULL)");
    for (size_t i = 0; i < sizeof too_big / sizeof too_big[0]; i++) {
        p = sentinel;
        s = nla_malloc(g_ctx, &p, too_big[i]);
        cr_assert_eq(s, NLA_EINVAL, "malloc(%zu): status %d", too_big[i], (int)s);
        cr_assert_null(p, "malloc(%zu): *ptr not NULL after a failure", too_big[i]);
        assert_blames(nla_context_error(g_ctx), "nla_malloc", "bytes", "malloc(huge)");
    }

    s = nla_upload(NULL, dst, src, sizeof src);
    cr_assert_eq(s, NLA_EINVAL, "upload(ctx=NULL): status %d", (int)s);
    assert_blames(nla_last_error(), "nla_upload", "ctx", "upload(ctx=NULL)");
    s = nla_upload(g_ctx, NULL, src, sizeof src);
    cr_assert_eq(s, NLA_EINVAL, "upload(dst=NULL): status %d", (int)s);
    assert_blames(nla_context_error(g_ctx), "nla_upload", "dst", "upload(dst=NULL)");
    s = nla_upload(g_ctx, dst, NULL, sizeof src);
    cr_assert_eq(s, NLA_EINVAL, "upload(host_src=NULL): status %d", (int)s);
    assert_blames(nla_context_error(g_ctx), "nla_upload", "host_src", "upload(src=NULL)");
    s = nla_download(NULL, dst, src, sizeof src);
    cr_assert_eq(s, NLA_EINVAL, "download(ctx=NULL): status %d", (int)s);
    assert_blames(nla_last_error(), "nla_download", "ctx", "download(ctx=NULL)");
    s = nla_download(g_ctx, NULL, src, sizeof src);
    cr_assert_eq(s, NLA_EINVAL, "download(host_dst=NULL): status %d", (int)s);
    assert_blames(nla_context_error(g_ctx), "nla_download", "host_dst", "download(dst=NULL)");
    s = nla_download(g_ctx, dst, NULL, sizeof src);
    cr_assert_eq(s, NLA_EINVAL, "download(src=NULL): status %d", (int)s);
    assert_blames(nla_context_error(g_ctx), "nla_download", "src", "download(src=NULL)");
    /* no object is larger than PTRDIFF_MAX bytes: such a count is a bad argument */
    for (size_t i = 0; i < sizeof too_big / sizeof too_big[0]; i++) {
        s = nla_upload(g_ctx, dst, src, too_big[i]);
        cr_assert_eq(s, NLA_EINVAL, "upload(%zu bytes): status %d", too_big[i], (int)s);
        assert_blames(nla_context_error(g_ctx), "nla_upload", "bytes", "upload(huge)");
        s = nla_download(g_ctx, dst, src, too_big[i]);
        cr_assert_eq(s, NLA_EINVAL, "download(%zu bytes): status %d", too_big[i], (int)s);
        assert_blames(nla_context_error(g_ctx), "nla_download", "bytes", "download(huge)");
    }
    cr_assert(memcmp(dst, keep, sizeof dst) == 0, "a rejected copy wrote to dst");

    /* zero bytes: nothing to touch, so NULL is fine */
    cr_assert_eq(nla_upload(g_ctx, NULL, NULL, 0), NLA_OK, "%s", nla_context_error(g_ctx));
    cr_assert_eq(nla_download(g_ctx, NULL, NULL, 0), NLA_OK, "%s", nla_context_error(g_ctx));
    cr_assert_str_empty(nla_context_error(g_ctx));
}

Test(badinput, strerror_distinct)
{
    const char *seen[NLA_ENUMERIC + 1];
    for (int s = NLA_OK; s <= NLA_ENUMERIC; s++) {
        seen[s] = nla_strerror((nla_status)s);
        cr_assert(seen[s] && seen[s][0], "nla_strerror(%d) is empty", s);
        for (int t = 0; t < s; t++)
            cr_assert(strcmp(seen[s], seen[t]) != 0, "nla_strerror(%d) == nla_strerror(%d): %s",
                      s, t, seen[s]);
    }
    cr_assert(nla_strerror((nla_status)99) && nla_strerror((nla_status)99)[0]);
    cr_assert(nla_strerror((nla_status)-1) && nla_strerror((nla_status)-1)[0]);
}

/* ------------------------------------------------------ the positive cases */

/* A valid call that must leave every buffer alone. */
static void expect_untouched_ok(call c, const char *what)
{
    char desc[768];
    nla_status s;
    int r;
    arm_bufs(g_bufs);
    s = invoke(&c, g_bufs);
    describe(&c, desc, sizeof desc);
    cr_assert_eq(s, NLA_OK, "%s: %s: status %d (%s)", what, desc, (int)s, error_of(&c));
    r = changed_role(g_bufs);
    cr_assert_eq(r, -1, "%s: %s wrote to %s", what, desc,
                 r >= 0 && role_name[c.r][r] ? role_name[c.r][r] : "?");
    /* and with every pointer NULL, since nothing is touched */
    c.nulls = ALL_NULL;
    s = invoke(&c, g_bufs);
    cr_assert_eq(s, NLA_OK, "%s with NULL pointers: %s: status %d (%s)", what, desc, (int)s,
                 error_of(&c));
}

/* m or n 0 returns at once, as reference BLAS does: y (C) is not scaled by
   beta (0.5 here) even where it is not empty, as the man pages say */
Test(badinput, empty_calls_touch_nothing)
{
    static const enum field dims[] = {F_M, F_N, F_K, F_BATCH};
    for (int dbl = 0; dbl < 2; dbl++)
        for (int r = 0; r < NR; r++)
            for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
                call c = base_call((enum routine)r, dbl);
                int64_t *f = dims[d] == F_M ? &c.m : dims[d] == F_N ? &c.n
                           : dims[d] == F_K ? &c.k : &c.batch;
                if (dims[d] == F_K && r != R_GEMM && r != R_GEMM_SB)
                    continue;
                if (dims[d] == F_BATCH && r != R_GEMM_SB)
                    continue;
                if (dims[d] == F_M && (r == R_SPMV || r >= R_PACKED_PACK))
                    continue; /* no m */
                if (dims[d] == F_K) /* k == 0 scales C by beta: make beta 1 */
                    c.beta = 1;
                *f = 0;
                expect_untouched_ok(c, field_name[dims[d]]);
            }
}

Test(badinput, alpha0_beta1_is_a_no_op)
{
    for (int dbl = 0; dbl < 2; dbl++)
        for (int r = R_GEMV; r <= R_GEMM_SB; r++) {
            call c = base_call((enum routine)r, dbl);
            c.alpha = 0;
            c.beta = 1;
            expect_untouched_ok(c, "alpha=0 beta=1");
        }
}

/* alpha == 0: A, B and x are never read, so they may be NULL; y (C) is
   still scaled by beta, so it may not. */
Test(badinput, alpha0_reads_only_y)
{
    for (int dbl = 0; dbl < 2; dbl++)
        for (int r = R_GEMV; r <= R_GEMM_SB; r++) {
            call c = base_call((enum routine)r, dbl);
            /* elements of y (or of every C, ldc == m, stride_c == m*n) */
            int64_t len = r == R_SPMV ? c.n : r == R_GEMM ? c.m * c.n
                        : r == R_GEMM_SB ? c.sc * c.batch : c.m;
            double *o = g_bufs->in[ROLE_OUT];
            char desc[768];
            nla_status s;
            c.alpha = 0;
            c.beta = 0.5;
            c.nulls = NUL_A | NUL_B | NUL_X;
            arm_bufs(g_bufs);
            for (int64_t i = 0; i < len; i++) {
                if (dbl)
                    o[i] = 2.0 + (double)i;
                else
                    ((float *)o)[i] = 2.0f + (float)i;
            }
            s = invoke(&c, g_bufs);
            describe(&c, desc, sizeof desc);
            cr_assert_eq(s, NLA_OK, "%s: status %d (%s)", desc, (int)s, error_of(&c));
            for (int64_t i = 0; i < len; i++) {
                double got = dbl ? o[i] : (double)((float *)o)[i];
                cr_assert_eq(got, 0.5 * (2.0 + (double)i), "%s: y[%lld] = %g, expected %g",
                             desc, (long long)i, got, 0.5 * (2.0 + (double)i));
            }
            /* and y itself is required */
            c.nulls = ALL_NULL;
            {
                verdict v;
                judge(&c, &v);
                expect_rejected(&c, g_bufs, &v, r >= R_GEMM ? "c" : "y");
            }
        }
}

Test(badinput, row_major_leading_dimensions)
{
    /* row-major C = A*B with A m x k: lda >= k, not m */
    double a[3 * 2], b[2 * 4], c[3 * 4];
    ref_fill(a, 6, 1);
    ref_fill(b, 8, 2);
    ref_fill(c, 12, 3);
    cr_assert_eq(nla_dgemm(g_ctx, NLA_ROW_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, 3, 4, 2, 1.0, a,
                           2, b, 4, 0.0, c, 4), NLA_OK, "%s", nla_context_error(g_ctx));
    cr_assert_eq(nla_dgemm(g_ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, 3, 4, 2, 1.0, a,
                           2, b, 4, 0.0, c, 4), NLA_EINVAL);
    assert_blames(nla_context_error(g_ctx), "nla_dgemm", "lda", "col-major lda=k<m");
    /* row-major A^T (A stored k x m): lda >= m */
    cr_assert_eq(nla_dgemm(g_ctx, NLA_ROW_MAJOR, NLA_TRANS, NLA_NO_TRANS, 3, 4, 2, 1.0, a,
                           3, b, 4, 0.0, c, 4), NLA_OK, "%s", nla_context_error(g_ctx));
    cr_assert_eq(nla_dgemm(g_ctx, NLA_ROW_MAJOR, NLA_TRANS, NLA_NO_TRANS, 3, 4, 2, 1.0, a,
                           2, b, 4, 0.0, c, 4), NLA_EINVAL);
    assert_blames(nla_context_error(g_ctx), "nla_dgemm", "lda", "row-major A^T lda=k<m");
}

/* The overflow limit is on bytes, so it depends on the element size: an
   array of PTRDIFF_MAX/8 + 1 elements cannot exist in double but can in
   float.  alpha == 0 && beta == 1 keeps the valid call from touching it. */
Test(badinput, extent_limit_is_in_bytes)
{
    int64_t m = PTRDIFF_MAX / 8 + 1;
    nla_status s = nla_dgemv(g_ctx, NLA_NO_TRANS, m, 1, 0.0, NULL, m, NULL, 1, 1.0, NULL, 1);
    cr_assert_eq(s, NLA_EINVAL, "dgemv(m=PTRDIFF_MAX/8+1): status %d", (int)s);
    s = nla_sgemv(g_ctx, NLA_NO_TRANS, m, 1, 0.0f, NULL, m, NULL, 1, 1.0f, NULL, 1);
    cr_assert_eq(s, NLA_OK, "sgemv(m=PTRDIFF_MAX/8+1): status %d (%s)", (int)s,
                 nla_context_error(g_ctx));
    s = nla_sgemv(g_ctx, NLA_NO_TRANS, 2 * m, 1, 0.0f, NULL, 2 * m, NULL, 1, 1.0f, NULL, 1);
    cr_assert_eq(s, NLA_EINVAL, "sgemv(m=PTRDIFF_MAX/4+2): status %d", (int)s);
}

/* A failed call leaves a message; the next good call on the context clears it. */
Test(badinput, message_cleared_by_success)
{
    double y[4] = {1, 2, 3, 4}, x[4] = {1, 1, 1, 1}, a[16] = {0};
    cr_assert_eq(nla_dgemv(g_ctx, NLA_NO_TRANS, 4, 4, 1.0, a, 3, x, 1, 0.0, y, 1), NLA_EINVAL);
    cr_assert_str_not_empty(nla_context_error(g_ctx));
    cr_assert_str_not_empty(nla_last_error());
    cr_assert_eq(nla_dgemv(g_ctx, NLA_NO_TRANS, 4, 4, 1.0, a, 4, x, 1, 0.0, y, 1), NLA_OK);
    cr_assert_str_empty(nla_context_error(g_ctx), "message after success: \"%s\"",
                        nla_context_error(g_ctx));
}

/* nla_fft_plan_1d names its own arguments, not the descriptor it builds. */
Test(badinput, fft_plan_1d_names_its_arguments)
{
    nla_context *ctx = ref_cpu_context();
    nla_fft_plan *p = NULL;
    static const struct {
        int64_t n;
        int dir, prec;
        const char *arg;
    } bad[] = {
        { 0, NLA_FFT_FORWARD, NLA_DOUBLE, "n (0)" },
        { -5, NLA_FFT_FORWARD, NLA_DOUBLE, "n (-5)" },
        { 8, 0, NLA_DOUBLE, "dir" },
        { 8, NLA_FFT_BACKWARD, 7, "prec" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = (nla_fft_plan *)&ctx; /* a failure sets it to NULL (nla(3)) */
        cr_assert_eq(nla_fft_plan_1d(ctx, bad[i].n, (nla_fft_direction)bad[i].dir,
                                     (nla_precision)bad[i].prec, &p), NLA_EINVAL);
        cr_assert_null(p, "case %zu: plan not NULL after a failure", i);
        cr_assert(strstr(nla_context_error(ctx), "nla_fft_plan_1d: ") &&
                  strstr(nla_context_error(ctx), bad[i].arg), "case %zu: %s", i,
                  nla_context_error(ctx));
    }
    cr_assert_eq(nla_fft_plan_1d(ctx, 8, NLA_FFT_FORWARD, NLA_DOUBLE, NULL), NLA_EINVAL);
    cr_assert(strstr(nla_context_error(ctx), "plan"), "%s", nla_context_error(ctx));
    cr_assert_eq(nla_fft_plan_1d(NULL, 8, NLA_FFT_FORWARD, NLA_DOUBLE, &p), NLA_EINVAL);
    cr_assert(strstr(nla_last_error(), "nla_fft_plan_1d: ctx"), "%s", nla_last_error());
    nla_context_destroy(ctx);
}
