/*
 * api_fft_wisdom.c - the FFT planning effort of a context, and the
 * process-wide wisdom (src/fft/plan_choice.c holds the table): argument
 * checks, messages and files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "fft/plan_choice.h"

/* a wisdom file is read in pieces of this many bytes, up to the limit */
#define WISDOM_CHUNK 4096
#define WISDOM_FILE_MAX ((size_t)64 << 20)

NLA_API nla_status nla_context_set_fft_effort(nla_context *ctx, nla_fft_effort effort)
{
    static const char fn[] = "nla_context_set_fft_effort";
    if (!ctx)
        return nla_fail(NULL, NLA_EINVAL, fn, "ctx is NULL");
    if (effort != NLA_FFT_ESTIMATE && effort != NLA_FFT_MEASURE &&
        effort != NLA_FFT_WISDOM_ONLY)
        return nla_fail(ctx, NLA_EINVAL, fn, "effort has unknown value %d (expected "
                        "NLA_FFT_ESTIMATE, NLA_FFT_MEASURE or NLA_FFT_WISDOM_ONLY)",
                        (int)effort);
    nla_ok(ctx);
    ctx->fft_effort = (int)effort;
    return NLA_OK;
}

NLA_API nla_status nla_fft_wisdom_export(char **wisdom)
{
    static const char fn[] = "nla_fft_wisdom_export";
    char *text;
    if (!wisdom)
        return nla_fail(NULL, NLA_EINVAL, fn, "wisdom is NULL");
    /* a buffer output is NULL after any failure (nla(3)) */
    *wisdom = NULL;
    text = nla_fft_wisdom_text();
    if (!text)
        return nla_fail(NULL, NLA_ENOMEM, fn, "cannot allocate the wisdom text");
    *wisdom = text;
    return NLA_OK;
}

/* Imports text for routine fn; where names its source in messages. */
static nla_status import_text(const char *fn, const char *where, const char *text)
{
    char why[200];
    int rc = nla_fft_wisdom_take(text, why, sizeof why);
    if (rc > 0)
        return nla_fail(NULL, NLA_EINVAL, fn, "%s%s", where, why);
    if (rc < 0)
        return nla_fail(NULL, NLA_ENOMEM, fn, "cannot allocate the imported wisdom");
    return NLA_OK;
}

NLA_API nla_status nla_fft_wisdom_import(const char *wisdom)
{
    static const char fn[] = "nla_fft_wisdom_import";
    if (!wisdom)
        return nla_fail(NULL, NLA_EINVAL, fn, "wisdom is NULL");
    return import_text(fn, "wisdom ", wisdom);
}

NLA_API nla_status nla_fft_wisdom_export_file(const char *path)
{
    static const char fn[] = "nla_fft_wisdom_export_file";
    char *text;
    FILE *f;
    size_t len;
    int err = 0;

    if (!path)
        return nla_fail(NULL, NLA_EINVAL, fn, "path is NULL");
    text = nla_fft_wisdom_text();
    if (!text)
        return nla_fail(NULL, NLA_ENOMEM, fn, "cannot allocate the wisdom text");
    f = fopen(path, "w");
    if (!f) {
        err = errno;
        free(text);
        return nla_fail(NULL, NLA_EINVAL, fn, "path '%.100s': cannot open it for "
                        "writing (%s)", path, strerror(err));
    }
    len = strlen(text);
    if (fwrite(text, 1, len, f) != len)
        err = errno ? errno : EIO;
    if (fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    free(text);
    if (err)
        return nla_fail(NULL, NLA_EINVAL, fn, "path '%.100s': cannot write it (%s)", path,
                        strerror(err));
    return NLA_OK;
}

/* The whole file as a string (malloc'ed) into *out; 0, or an errno. */
static int read_all(FILE *f, char **out, size_t *len)
{
    size_t cap = WISDOM_CHUNK, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf)
        return ENOMEM;
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        if (cap >= WISDOM_FILE_MAX) {
            free(buf);
            return EFBIG;
        }
        char *nb = realloc(buf, 2 * cap + 1);
        if (!nb) {
            free(buf);
            return ENOMEM;
        }
        buf = nb;
        cap *= 2;
    }
    if (ferror(f)) {
        free(buf);
        return EIO;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

NLA_API nla_status nla_fft_wisdom_import_file(const char *path)
{
    static const char fn[] = "nla_fft_wisdom_import_file";
    char where[128], *text = NULL;
    size_t len = 0;
    nla_status s;
    FILE *f;
    int err;

    if (!path)
        return nla_fail(NULL, NLA_EINVAL, fn, "path is NULL");
    f = fopen(path, "r");
    if (!f) {
        err = errno;
        return nla_fail(NULL, NLA_EINVAL, fn, "path '%.100s': cannot open it (%s)", path,
                        strerror(err));
    }
    err = read_all(f, &text, &len);
    fclose(f);
    if (err == ENOMEM)
        return nla_fail(NULL, NLA_ENOMEM, fn, "path '%.100s': cannot allocate its text",
                        path);
    if (err)
        return nla_fail(NULL, NLA_EINVAL, fn, "path '%.100s': cannot read it (%s)", path,
                        strerror(err));
    if (strlen(text) != len) {
        free(text);
        return nla_fail(NULL, NLA_EINVAL, fn, "path '%.100s': has a NUL byte (not "
                        "wisdom text)", path);
    }
    snprintf(where, sizeof where, "path '%.100s' ", path);
    s = import_text(fn, where, text);
    free(text);
    return s;
}

NLA_API void nla_fft_wisdom_forget(void)
{
    nla_fft_wisdom_clear();
}
