/*
 * refs.c - see refs.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef NLA_STANDALONE
#include "standalone.h"
#else
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#endif
#include "refs.h"

#ifndef NLA_STANDALONE
/* Criterion's summary line leaves skipped tests out, and prints why only
   with --verbose: every test program links this file, so each skip is
   named in its log with its reason ("SKIP: suite::test: why"), which
   quickstart.sh counts.  On stderr, in order with Criterion's lines. */
ReportHook(POST_TEST)(struct criterion_test_stats *st)
{
    if (st->test_status == CR_STATUS_SKIPPED)
        fprintf(stderr, "SKIP: %s::%s: %s\n", st->test->category, st->test->name,
                st->message ? st->message : "");
}
#endif

/* splitmix64: small, fast, and the same on every machine */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
    return (double)(next(s) >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

void ref_fill(double *x, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        x[i] = uniform(&seed);
}

void ref_fillf(float *x, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)uniform(&seed);
}

void ref_fill_nan(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = NAN;
}

void ref_fill_nanf(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = NAN;
}

double ref_max_diff(const double *a, const double *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(a[i]) != isnan(b[i]))
            return NAN;
        if (!isnan(a[i]) && fabs(a[i] - b[i]) > m)
            m = fabs(a[i] - b[i]);
    }
    return m;
}

double ref_max_difff(const float *a, const float *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(a[i]) != isnan(b[i]))
            return NAN;
        if (!isnan(a[i]) && fabs((double)a[i] - (double)b[i]) > m)
            m = fabs((double)a[i] - (double)b[i]);
    }
    return m;
}

double ref_max_abs(const double *a, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(a[i]) > m)
            m = fabs(a[i]);
    return m;
}

double ref_max_absf(const float *a, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs((double)a[i]) > m)
            m = fabs((double)a[i]);
    return m;
}

int ref_test_small(void)
{
    const char *e = getenv("NLA_TEST_SMALL");
    return e && *e && strcmp(e, "0") != 0;
}

nla_context *ref_cpu_context(void)
{
    nla_context *ctx = NULL;
    nla_status s = nla_context_create(&ctx, NLA_BACKEND_CPU);
    cr_assert_eq(s, NLA_OK, "nla_context_create(CPU): %s", nla_last_error());
    return ctx;
}
