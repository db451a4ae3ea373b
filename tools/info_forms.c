/*
 * info_forms.c - `nla info`'s level-2 part: which kernel form a call of a
 * given shape runs on this machine, and why, as the library itself reports
 * it (nla_context_last_form) after running a call of that shape.
 *
 *   nla info                                the forms of the bench's shapes
 *   nla info gbmv d|s N|T M N KL KU          one band shape
 *   nla info gemv d|s N|T M N LDA            one dense shape
 *   nla info spmv d|s U|L N                  one packed shape
 *
 * A band's form depends on its width clipped to the matrix, so the call is
 * made with the clipped KL and KU on a matrix of at most KL+KU+16 rows and
 * columns.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

/* The form a gbmv of this shape runs ("?" when the call fails). */
static const char *gbmv_form(nla_context *ctx, int single, int trans, int64_t m, int64_t n,
                             int64_t kl, int64_t ku, char *buf, size_t len)
{
    int64_t kl1 = kl < m - 1 ? kl : m - 1, ku1 = ku < n - 1 ? ku : n - 1;
    int64_t ms = m < kl1 + ku1 + 16 ? m : kl1 + ku1 + 16;
    int64_t ns = n < kl1 + ku1 + 16 ? n : kl1 + ku1 + 16, ldab = kl1 + ku1 + 1;
    size_t es = single ? sizeof(float) : sizeof(double);
    void *ab = calloc((size_t)(ldab * ns), es), *x = calloc((size_t)(ms + ns), es);
    void *y = calloc((size_t)(ms + ns), es);
    nla_trans tr = trans ? NLA_TRANS : NLA_NO_TRANS;
    nla_status st = NLA_ENOMEM;

    if (ab && x && y)
        st = single ? nla_sgbmv(ctx, tr, ms, ns, kl1, ku1, 1.0f, ab, ldab, x, 1, 0.0f, y, 1)
                    : nla_dgbmv(ctx, tr, ms, ns, kl1, ku1, 1.0, ab, ldab, x, 1, 0.0, y, 1);
    snprintf(buf, len, "%s", st == NLA_OK ? nla_context_last_form(ctx) : "?");
    free(ab);
    free(x);
    free(y);
    return buf;
}

/* The form an m x n gemv with this lda runs.  It depends on the matrix's
   bytes against gemv_many_bytes and on lda (past 4096, on lda mod 4096
   alone), so the call is made with lda 4096 + lda % 4096 past 4096, that
   many rows, and enough columns to fall on the same side of the bound. */
static const char *gemv_form(nla_context *ctx, int single, int trans, int64_t m, int64_t n,
                             int64_t lda, char *buf, size_t len)
{
    int64_t ld = lda < 4096 ? lda : 4096 + lda % 4096;
    int64_t es = single ? (int64_t)sizeof(float) : (int64_t)sizeof(double);
    double bytes = (double)m * (double)n * (double)es, col = (double)(ld * es);
    double many = (double)nla_cpu_config_value("gemv_many_bytes");
    int64_t n1 = bytes > many ? (int64_t)(many / col) + 1 : (int64_t)(bytes / col);
    void *a = NULL, *x = NULL, *y = NULL;
    nla_trans tr = trans ? NLA_TRANS : NLA_NO_TRANS;
    nla_status st = NLA_ENOMEM;

    if (bytes <= many && (double)n1 * col > (double)(16 << 20))
        n1 = (int64_t)((double)(16 << 20) / col); /* any part of it is as small */
    n1 = n1 > 1 ? n1 : 1;
    if (lda >= m && many > 0) {
        a = calloc((size_t)(ld * n1), (size_t)es);
        x = calloc((size_t)(ld + n1), (size_t)es);
        y = calloc((size_t)(ld + n1), (size_t)es);
    }
    if (a && x && y)
        st = single ? nla_sgemv(ctx, tr, ld, n1, 1.0f, a, ld, x, 1, 0.0f, y, 1)
                    : nla_dgemv(ctx, tr, ld, n1, 1.0, a, ld, x, 1, 0.0, y, 1);
    snprintf(buf, len, "%s", st == NLA_OK ? nla_context_last_form(ctx) : "?");
    free(a);
    free(x);
    free(y);
    return buf;
}

/* The form an n x n spmv runs.  It depends on the triangle's bytes against
   spmv_many_bytes alone, so the call is made on the smallest triangle over
   the bound, or on one of at most 64 columns within it. */
static const char *spmv_form(nla_context *ctx, int single, int upper, int64_t n, char *buf,
                             size_t len)
{
    double es = single ? sizeof(float) : sizeof(double);
    double many = (double)nla_cpu_config_value("spmv_many_bytes");
    int64_t n1 = n < 64 ? n : 64;
    void *ap = NULL, *x = NULL, *y = NULL;
    nla_uplo ul = upper ? NLA_UPPER : NLA_LOWER;
    nla_status st = NLA_ENOMEM;

    if ((double)n * (n + 1) / 2 * es > many) {
        n1 = (int64_t)sqrt(2 * many / es);
        while ((double)n1 * (n1 + 1) / 2 * es <= many)
            n1++;
    }
    if (many >= 0 && many < (double)(1 << 30)) {
        ap = calloc((size_t)n1 * (size_t)(n1 + 1) / 2, (size_t)es);
        x = calloc((size_t)n1, (size_t)es);
        y = calloc((size_t)n1, (size_t)es);
    }
    if (ap && x && y)
        st = single ? nla_sspmv(ctx, ul, n1, 1.0f, ap, x, 1, 0.0f, y, 1)
                    : nla_dspmv(ctx, ul, n1, 1.0, ap, x, 1, 0.0, y, 1);
    snprintf(buf, len, "%s", st == NLA_OK ? nla_context_last_form(ctx) : "?");
    free(ap);
    free(x);
    free(y);
    return buf;
}

/* The form's name: the last word before the colon ("gbmv N rows: ..."). */
static const char *form_word(const char *form, char *buf, size_t len)
{
    size_t k = strcspn(form, ":");
    const char *p = form + k;

    while (p > form && p[-1] != ' ')
        p--;
    k = (size_t)(form + k - p);
    snprintf(buf, len, "%.*s", (int)(k < len ? k : len - 1), p);
    return buf;
}

/* The bench's band widths (kl = ku, n = 2^20), each precision and
   transposition on one line. */
void nla_info_forms(void)
{
    static const int64_t kls[] = { 0, 1, 2, 4, 8, 16, 32, 64, 128 };
    static const int64_t dims[] = { 1000, 4000, 8000 }; /* gemv (m = n = lda), spmv */
    nla_context *ctx;
    char form[160], word[16];

    if (nla_context_create(&ctx, NLA_BACKEND_CPU) != NLA_OK)
        return;
    nla_context_set_threads(ctx, 1);
    printf("level-2 forms, by kl = ku at n = 2^20 (nla info gbmv d|s N|T M N KL KU: why):\n");
    printf("  kl = ku         ");
    for (size_t k = 0; k < sizeof kls / sizeof kls[0]; k++)
        printf(" %5lld", (long long)kls[k]);
    printf("\n");
    for (int single = 0; single < 2; single++)
        for (int trans = 0; trans < 2; trans++) {
            printf("  gbmv %c %c        ", single ? 's' : 'd', trans ? 'T' : 'N');
            for (size_t k = 0; k < sizeof kls / sizeof kls[0]; k++)
                printf(" %5s", form_word(gbmv_form(ctx, single, trans, 1 << 20, 1 << 20, kls[k],
                                                   kls[k], form, sizeof form),
                                         word, sizeof word));
            printf("\n");
        }
    printf("  gemv, lda = m = n  1000  4000  8000 (nla info gemv d|s N|T M N LDA: why)\n");
    for (int single = 0; single < 2; single++)
        for (int trans = 0; trans < 2; trans++) {
            printf("  gemv %c %c        ", single ? 's' : 'd', trans ? 'T' : 'N');
            for (size_t k = 0; k < sizeof dims / sizeof dims[0]; k++)
                printf(" %5s", form_word(gemv_form(ctx, single, trans, dims[k], dims[k], dims[k],
                                                   form, sizeof form),
                                         word, sizeof word));
            printf("\n");
        }
    printf("  spmv, n          1000  4000  8000 (nla info spmv d|s U|L N: why)\n");
    for (int single = 0; single < 2; single++)
        for (int upper = 1; upper >= 0; upper--) {
            printf("  spmv %c %c        ", single ? 's' : 'd', upper ? 'U' : 'L');
            for (size_t k = 0; k < sizeof dims / sizeof dims[0]; k++)
                printf(" %5s", form_word(spmv_form(ctx, single, upper, dims[k], form,
                                                   sizeof form),
                                         word, sizeof word));
            printf("\n");
        }
    nla_context_destroy(ctx);
}

static int64_t parse_size(const char *s, int *ok)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < 0)
        *ok = 0;
    return v;
}

/* nla info gbmv d|s N|T M N KL KU, gemv d|s N|T M N LDA, or spmv d|s U|L N */
int nla_info_form_query(int argc, char **argv)
{
    nla_context *ctx;
    char form[160];
    int band = argc == 8 && !strcmp(argv[1], "gbmv");
    int packed = argc == 5 && !strcmp(argv[1], "spmv");
    int ok = (band || packed || (argc == 7 && !strcmp(argv[1], "gemv"))) &&
             (!strcmp(argv[2], "d") || !strcmp(argv[2], "s")) &&
             (packed ? !strcmp(argv[3], "U") || !strcmp(argv[3], "L")
                     : !strcmp(argv[3], "N") || !strcmp(argv[3], "T"));
    int64_t v[4] = { 1, 1, 1, 0 };
    int single, tu; /* float; Trans (gemv, gbmv) or Upper (spmv) */

    for (int i = 0; ok && i < argc - 4; i++)
        v[i] = parse_size(argv[4 + i], &ok);
    if (!ok || v[0] < 1 || v[1] < 1 || (!band && !packed && v[2] < v[0])) {
        fprintf(stderr, "usage: nla info [gbmv d|s N|T M N KL KU | gemv d|s N|T M N LDA | "
                        "spmv d|s U|L N]\n");
        return NLA_EXIT_USAGE;
    }
    if (nla_context_create(&ctx, NLA_BACKEND_CPU) != NLA_OK) {
        fprintf(stderr, "nla info: %s\n", nla_last_error());
        return NLA_EXIT_FAIL;
    }
    single = argv[2][0] == 's';
    tu = argv[3][0] == 'T' || argv[3][0] == 'U';
    printf("%s\n", packed ? spmv_form(ctx, single, tu, v[0], form, sizeof form)
                   : band  ? gbmv_form(ctx, single, tu, v[0], v[1], v[2], v[3], form, sizeof form)
                           : gemv_form(ctx, single, tu, v[0], v[1], v[2], form, sizeof form));
    nla_context_destroy(ctx);
    return NLA_EXIT_OK;
}
