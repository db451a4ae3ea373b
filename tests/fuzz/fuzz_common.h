/*
 * fuzz_common.h - shared by the libFuzzer harnesses: a byte reader, the
 * contract check (abort on a violation) and a registry of the distinct
 * invalid-argument patterns seen ("routine: argument"), printed at exit.
 */
#ifndef NLA_FUZZ_COMMON_H
#define NLA_FUZZ_COMMON_H

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nla.h"

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static inline uint64_t rd_u64(reader *r, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) {
        v = (v << 8) | (r->n ? *r->p : 0);
        if (r->n) {
            r->p++;
            r->n--;
        }
    }
    return v;
}

static inline unsigned rd_byte(reader *r) { return (unsigned)rd_u64(r, 1); }

/* A size: mostly small, sometimes negative or huge (near the limits). */
static inline int64_t rd_size(reader *r, int64_t small)
{
    static const int64_t huge[] = {INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1,
                                   (int64_t)1 << 62, (int64_t)1 << 61, (int64_t)1 << 32,
                                   ((int64_t)1 << 31) + 1, (int64_t)1 << 40, -1, -2,
                                   INT64_MAX / 2 + 1, INT64_MAX / 8, 3037000500};
    unsigned sel = rd_byte(r);
    if (sel < 200)
        return (int64_t)(rd_byte(r) % (unsigned)(small + 1));
    if (sel < 240)
        return huge[rd_byte(r) % (sizeof huge / sizeof huge[0])];
    return (int64_t)rd_u64(r, 8);
}

#define FUZZ_ASSERT(cond, ...)                                                 \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "contract violated: %s\n  ", #cond);               \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
            abort();                                                           \
        }                                                                      \
    } while (0)

/* ---- the distinct invalid-argument patterns: "routine: argument" ---- */
#define MAX_PATTERNS 1024
static char fuzz_patterns[MAX_PATTERNS][64];
static int fuzz_npatterns;
static long fuzz_valid, fuzz_invalid;
static int fuzz_registered;

static void fuzz_report(void)
{
    fprintf(stderr, "fuzz: %ld valid calls, %ld rejected calls, %d distinct "
            "invalid-argument patterns (routine: argument)\n",
            fuzz_valid, fuzz_invalid, fuzz_npatterns);
    if (getenv("NLA_FUZZ_LIST"))
        for (int i = 0; i < fuzz_npatterns; i++)
            fprintf(stderr, "  %s\n", fuzz_patterns[i]);
}

/* Record the routine and the argument a message names: "fn: arg ...". */
static inline void fuzz_note_rejection(const char *msg)
{
    char key[64];
    size_t i = 0;
    const char *colon = strstr(msg, ": ");
    if (!fuzz_registered) {
        fuzz_registered = 1;
        atexit(fuzz_report);
    }
    fuzz_invalid++;
    FUZZ_ASSERT(colon != NULL, "message \"%s\" names no routine", msg);
    while (msg + i < colon + 2 && i < sizeof key - 1) {
        key[i] = msg[i];
        i++;
    }
    for (const char *p = colon + 2;
         (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '>' || *p == '*') &&
         i < sizeof key - 1;
         p++)
        key[i++] = *p;
    key[i] = '\0';
    FUZZ_ASSERT(i > (size_t)(colon + 2 - msg), "message \"%s\" names no argument", msg);
    for (int k = 0; k < fuzz_npatterns; k++)
        if (strcmp(fuzz_patterns[k], key) == 0)
            return;
    if (fuzz_npatterns < MAX_PATTERNS)
        strcpy(fuzz_patterns[fuzz_npatterns++], key);
}

static inline void fuzz_note_valid(void)
{
    if (!fuzz_registered) {
        fuzz_registered = 1;
        atexit(fuzz_report);
    }
    fuzz_valid++;
}

#endif
