/*
 * wisdom.c - `nla wisdom`: measured FFT plans for a list of sizes, their
 * wisdom written out (like fftw-wisdom).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

void nla_wisdom_usage(FILE *f)
{
    fprintf(f,
        "usage: nla wisdom [-o FILE] [--precision d|s|both] [--threads T]\n"
        "                  [--kind c2c|r2c|both] N...\n"
        "\n"
        "Plans each size N (>= 1) with NLA_FFT_MEASURE on the CPU and writes the\n"
        "wisdom (nla_fft_wisdom_export(3)) to FILE, or to standard output.\n"
        "  -o FILE          write the wisdom to FILE\n"
        "  --precision P    d (default), s or both\n"
        "  --threads T      threads of the plans (default: libnla's); the\n"
        "                   measurement itself runs on one\n"
        "  --kind K         c2c (default: forward and backward), r2c (R2C and C2R)\n"
        "                   or both\n"
        "  --in FILE        start from the wisdom in FILE\n"
        "Sizes already in the wisdom are not measured again.\n");
}

/* N as a positive int64, or 0 */
static int64_t parse_size(const char *s)
{
    char *end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 1)
        return 0;
    return (int64_t)v;
}

static int plan_one(nla_context *ctx, nla_fft_kind kind, nla_precision p, int dir, int64_t n)
{
    nla_fft_desc d;
    nla_fft_plan *plan = NULL;
    memset(&d, 0, sizeof d);
    d.kind = kind;
    d.precision = p;
    d.direction = dir < 0 ? NLA_FFT_FORWARD : NLA_FFT_BACKWARD;
    d.n = n;
    if (nla_fft_plan_create(ctx, &d, &plan) != NLA_OK) {
        fprintf(stderr, "nla wisdom: %s\n", nla_context_error(ctx));
        return 1;
    }
    nla_fft_plan_destroy(plan);
    return 0;
}

int nla_wisdom_main(int argc, char **argv)
{
    const char *out = NULL, *in = NULL;
    int prec = 1, kinds = 1, threads = 0, nsize = 0, rc = NLA_EXIT_OK;
    int64_t *sizes = calloc((size_t)argc + 1, sizeof *sizes);
    nla_context *ctx = NULL;

    if (!sizes)
        return NLA_EXIT_FAIL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            nla_wisdom_usage(stdout);
            free(sizes);
            return NLA_EXIT_OK;
        }
        if ((strcmp(a, "-o") == 0 || strcmp(a, "--in") == 0 || strcmp(a, "--precision") == 0 ||
             strcmp(a, "--threads") == 0 || strcmp(a, "--kind") == 0) && !v) {
            fprintf(stderr, "nla wisdom: %s needs a value\n", a);
            rc = NLA_EXIT_USAGE;
            break;
        }
        if (strcmp(a, "-o") == 0) {
            out = argv[++i];
        } else if (strcmp(a, "--in") == 0) {
            in = argv[++i];
        } else if (strcmp(a, "--precision") == 0) {
            i++;
            prec = strcmp(v, "d") == 0 ? 1 : strcmp(v, "s") == 0 ? 2
                 : strcmp(v, "both") == 0 ? 3 : 0;
            if (!prec) {
                fprintf(stderr, "nla wisdom: --precision '%s' (expected d, s or both)\n", v);
                rc = NLA_EXIT_USAGE;
                break;
            }
        } else if (strcmp(a, "--kind") == 0) {
            i++;
            kinds = strcmp(v, "c2c") == 0 ? 1 : strcmp(v, "r2c") == 0 ? 2
                  : strcmp(v, "both") == 0 ? 3 : 0;
            if (!kinds) {
                fprintf(stderr, "nla wisdom: --kind '%s' (expected c2c, r2c or both)\n", v);
                rc = NLA_EXIT_USAGE;
                break;
            }
        } else if (strcmp(a, "--threads") == 0) {
            int64_t t = parse_size(argv[++i]);
            if (t < 1 || t > 4096) {
                fprintf(stderr, "nla wisdom: --threads '%s' (expected 1 to 4096)\n", v);
                rc = NLA_EXIT_USAGE;
                break;
            }
            threads = (int)t;
        } else if ((sizes[nsize] = parse_size(a)) > 0) {
            nsize++;
        } else {
            fprintf(stderr, "nla wisdom: '%s' is not an option or a size >= 1\n", a);
            rc = NLA_EXIT_USAGE;
            break;
        }
    }
    if (rc == NLA_EXIT_OK && nsize == 0) {
        fprintf(stderr, "nla wisdom: no sizes\n\n");
        nla_wisdom_usage(stderr);
        rc = NLA_EXIT_USAGE;
    }
    if (rc == NLA_EXIT_OK && in && nla_fft_wisdom_import_file(in) != NLA_OK) {
        fprintf(stderr, "nla wisdom: %s\n", nla_last_error());
        rc = NLA_EXIT_FAIL;
    }
    if (rc == NLA_EXIT_OK && (nla_context_create(&ctx, NLA_BACKEND_CPU) != NLA_OK ||
                              nla_context_set_threads(ctx, threads) != NLA_OK ||
                              nla_context_set_fft_effort(ctx, NLA_FFT_MEASURE) != NLA_OK)) {
        fprintf(stderr, "nla wisdom: %s\n", nla_last_error());
        rc = NLA_EXIT_FAIL;
    }
    for (int i = 0; rc == NLA_EXIT_OK && i < nsize; i++)
        for (int pi = 0; pi < 2; pi++) {
            nla_precision p = pi ? NLA_FLOAT : NLA_DOUBLE;
            if (!(prec & (1 << pi)))
                continue;
            if (kinds & 1)
                rc |= plan_one(ctx, NLA_FFT_C2C, p, -1, sizes[i]) |
                      plan_one(ctx, NLA_FFT_C2C, p, 1, sizes[i]);
            if (kinds & 2)
                rc |= plan_one(ctx, NLA_FFT_R2C, p, -1, sizes[i]) |
                      plan_one(ctx, NLA_FFT_C2R, p, 1, sizes[i]);
        }
    if (rc == NLA_EXIT_OK) {
        char *w = NULL;
        if (out ? nla_fft_wisdom_export_file(out) != NLA_OK
                : nla_fft_wisdom_export(&w) != NLA_OK || fputs(w, stdout) == EOF ||
                      fflush(stdout) != 0) {
            fprintf(stderr, "nla wisdom: %s\n", out ? nla_last_error() : "cannot write the "
                    "wisdom to standard output");
            rc = NLA_EXIT_FAIL;
        }
        free(w);
    }
    nla_context_destroy(ctx);
    free(sizes);
    return rc ? (rc == NLA_EXIT_USAGE ? NLA_EXIT_USAGE : NLA_EXIT_FAIL) : NLA_EXIT_OK;
}
