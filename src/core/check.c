/*
 * check.c - argument checks.  Every public routine validates through these,
 * so each message has the same shape: "nla_dgbmv: ldab (3) < kl+ku+1 (4)".
 */
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include "check.h"

int nla_mul_overflows(int64_t a, int64_t b, int64_t *r)
{
    if (a < 0 || b < 0)
        return 1;
    if (a != 0 && b > INT64_MAX / a)
        return 1;
    *r = a * b;
    return 0;
}

int nla_add_overflows(int64_t a, int64_t b, int64_t *r)
{
    if (a < 0 || b < 0 || a > INT64_MAX - b)
        return 1;
    *r = a + b;
    return 0;
}

int nla_chk_fail(nla_check *ck, const char *fmt, ...)
{
    char buf[NLA_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ck->status = nla_fail(ck->ctx, NLA_EINVAL, ck->fn, "%s", buf);
    return 1;
}

int nla_chk_ctx(nla_check *ck, const nla_context *ctx)
{
    if (ctx)
        return 0;
    return nla_chk_fail(ck, "ctx is NULL");
}

static int chk_enum(nla_check *ck, const char *name, int v, int ok,
                    const char *expected)
{
    if (ok)
        return 0;
    return nla_chk_fail(ck, "%s has unknown value %d (expected %s)", name, v, expected);
}

int nla_chk_trans(nla_check *ck, const char *name, nla_trans t)
{
    return chk_enum(ck, name, (int)t, t == NLA_NO_TRANS || t == NLA_TRANS,
                    "NLA_NO_TRANS or NLA_TRANS");
}

int nla_chk_uplo(nla_check *ck, const char *name, nla_uplo u)
{
    return chk_enum(ck, name, (int)u, u == NLA_UPPER || u == NLA_LOWER,
                    "NLA_UPPER or NLA_LOWER");
}

int nla_chk_layout(nla_check *ck, const char *name, nla_layout l)
{
    return chk_enum(ck, name, (int)l, l == NLA_COL_MAJOR || l == NLA_ROW_MAJOR,
                    "NLA_COL_MAJOR or NLA_ROW_MAJOR");
}

int nla_chk_nonneg(nla_check *ck, const char *name, int64_t v)
{
    if (v >= 0)
        return 0;
    return nla_chk_fail(ck, "%s (%lld) < 0", name, (long long)v);
}

int nla_chk_ld(nla_check *ck, const char *name, int64_t ld, const char *minexpr,
               int64_t min)
{
    if (ld >= min)
        return 0;
    return nla_chk_fail(ck, "%s (%lld) < %s (%lld)", name, (long long)ld, minexpr,
                (long long)min);
}

int nla_chk_ldab(nla_check *ck, int64_t ldab, int64_t kl, int64_t ku)
{
    int64_t width;
    if (nla_add_overflows(kl, ku, &width) || nla_add_overflows(width, 1, &width))
        return nla_chk_fail(ck, "ldab (%lld) < kl+ku+1 (%lld+%lld+1 exceeds INT64_MAX)",
                    (long long)ldab, (long long)kl, (long long)ku);
    return nla_chk_ld(ck, "ldab", ldab, "kl+ku+1", width);
}

int nla_chk_inc(nla_check *ck, const char *name, int64_t inc)
{
    if (inc != 0)
        return 0;
    return nla_chk_fail(ck, "%s is 0", name);
}

int nla_chk_ptr(nla_check *ck, const char *name, const void *p, int needed)
{
    if (p || !needed)
        return 0;
    return nla_chk_fail(ck, "%s is NULL", name);
}

/* elements * elsize must fit in both size_t and ptrdiff_t */
static int extent_fits(int64_t elements, size_t elsize)
{
    int64_t bytes;
    if (nla_mul_overflows(elements, (int64_t)elsize, &bytes))
        return 0;
    return (uint64_t)bytes <= (uint64_t)PTRDIFF_MAX &&
           (uint64_t)bytes <= (uint64_t)SIZE_MAX;
}

static int extent_fail(nla_check *ck, const char *name, const char *what)
{
    return nla_chk_fail(ck, "%s: the extent %s overflows size_t", name, what);
}

int nla_chk_matrix_extent(nla_check *ck, const char *name, int64_t rows,
                          int64_t cols, int64_t ld, size_t elsize)
{
    int64_t span;
    if (rows == 0 || cols == 0)
        return 0;
    if (nla_mul_overflows(cols - 1, ld, &span) ||
        nla_add_overflows(span, rows, &span) || !extent_fits(span, elsize))
        return extent_fail(ck, name, "(cols-1)*ld+rows");
    return 0;
}

int nla_chk_vector_extent(nla_check *ck, const char *name, int64_t len,
                          int64_t inc, size_t elsize)
{
    int64_t span, ainc;
    if (len == 0)
        return 0;
    if (inc == INT64_MIN)
        return extent_fail(ck, name, "(len-1)*|inc|+1");
    ainc = inc < 0 ? -inc : inc;
    if (nla_mul_overflows(len - 1, ainc, &span) ||
        nla_add_overflows(span, 1, &span) || !extent_fits(span, elsize))
        return extent_fail(ck, name, "(len-1)*|inc|+1");
    return 0;
}

int nla_chk_packed_extent(nla_check *ck, const char *name, int64_t n,
                          size_t elsize)
{
    int64_t count, a, b;
    if (n == 0)
        return 0;
    if (n == INT64_MAX)   /* before forming n+1, which would overflow */
        return extent_fail(ck, name, "n*(n+1)/2");
    a = n;
    b = n + 1;
    if (a % 2 == 0)
        a /= 2;
    else
        b /= 2;
    if (nla_mul_overflows(a, b, &count) || !extent_fits(count, elsize))
        return extent_fail(ck, name, "n*(n+1)/2");
    return 0;
}

int nla_chk_batch_extent(nla_check *ck, const char *name, int64_t one,
                         int64_t stride, int64_t batch, size_t elsize)
{
    int64_t span;
    if (one == 0 || batch == 0)
        return 0;
    if (nla_mul_overflows(batch - 1, stride, &span) ||
        nla_add_overflows(span, one, &span) || !extent_fits(span, elsize))
        return extent_fail(ck, name, "(batch-1)*stride+one");
    return 0;
}
