/*
 * plan_choice.c - choice tokens and the wisdom table (plan_choice.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fft/plan_choice.h"
#include "fft/kernels/kernels.h"

#define WISDOM_HEADER "nla-fft-wisdom 1"
#define WISDOM_END "end"
#define STR_(x) #x
#define STR(x) STR_(x)
#define MAX_GEN STR(NLA_FFT_MAX_GEN)

typedef struct entry {
    int dbl, fwd;
    int64_t n;
    nla_fft_choice c;
} entry;

typedef struct table {
    entry *e;
    size_t count, cap;
} table;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static table wisdom;

int nla_fft_smooth(int64_t n)
{
    if (n < 1)
        return 0;
    while (n % 2 == 0)
        n /= 2;
    for (int64_t p = 3; p <= NLA_FFT_MAX_GEN && n > 1; p += 2)
        while (n % p == 0)
            n /= p;
    return n == 1;
}

/* a radix with a pass: a slot, or an odd prime up to NLA_FFT_MAX_GEN */
static int has_pass(int64_t r)
{
    if (r > NLA_FFT_MAX_GEN)
        return 0;
    if (nla_fft_radix_slot((int)r) >= 0)
        return 1;
    if (r <= NLA_FFT_MAX_ODD || r % 2 == 0)
        return 0;
    for (int64_t d = 3; d * d <= r; d += 2)
        if (r % d == 0)
            return 0;
    return 1;
}

/* Reads a decimal int64 of at most 18 digits (no sign) at *s; -1 if none. */
static int64_t read_num(const char **s)
{
    int64_t v = 0;
    int digits = 0;
    while (**s >= '0' && **s <= '9') {
        if (++digits > 18)
            return -1;
        v = v * 10 + (**s - '0');
        (*s)++;
    }
    return digits ? v : -1;
}

static int bad(char *why, size_t len, const char *msg, const char *tok)
{
    snprintf(why, len, "choice '%.40s' %s", tok, msg);
    return -1;
}

static int parse_passes(const char *tok, int64_t n, nla_fft_choice *c, char *why,
                        size_t len)
{
    const char *s = tok + 1;
    int64_t prod = 1;

    c->nr = 0;
    for (;;) {
        int64_t r = read_num(&s);
        if (r < 0 || !has_pass(r))
            return bad(why, len, "has a radix without a pass (2, 4, 8, 9, 25 or an odd "
                       "prime up to " MAX_GEN ")", tok);
        if (c->nr == NLA_FFT_MAX_PASSES || prod > n / r)
            return bad(why, len, "has radices whose product exceeds n", tok);
        c->r[c->nr++] = (int)r;
        prod *= r;
        if (*s == '\0')
            break;
        if (*s++ != '.')
            return bad(why, len, "is not s<radix>.<radix>...", tok);
    }
    if (prod != n)
        return bad(why, len, "has radices whose product is not n", tok);
    return 0;
}

int nla_fft_choice_parse(const char *tok, int64_t n, nla_fft_choice *c, char *why,
                         size_t len)
{
    memset(c, 0, sizeof *c);
    if (n < 2)
        return bad(why, len, "is for n < 2 (nothing to choose)", tok);
    c->kind = tok[0];
    switch (tok[0]) {
    case 's':
        return parse_passes(tok, n, c, why, len);
    case 'c':
        if (tok[1] != '\0' || (n & (n - 1)) != 0 || n > (1 << NLA_FFT_SMALL_LOG))
            return bad(why, len, "(codelet) needs n = 2^k <= 512", tok);
        return 0;
    case 'f': {
        const char *s = tok + 1;
        c->n1 = read_num(&s);
        if (c->n1 < 0 || *s != '\0')
            return bad(why, len, "is not f<n1>", tok);
        if (c->n1 < 2 || c->n1 > n / 2 || n % c->n1 != 0 || !nla_fft_smooth(n))
            return bad(why, len, "is not a four-step split of n (n1 and n/n1 >= 2, "
                       "prime factors <= " MAX_GEN ")", tok);
        return 0;
    }
    case 'd': {
        const char *s = tok + 1;
        c->n1 = read_num(&s);
        if (c->n1 < 0 || *s != '\0')
            return bad(why, len, "is not d<R>", tok);
        if (c->n1 < 2 || c->n1 > NLA_FFT_TR_MAXB || c->n1 > n / 2 || n % c->n1 != 0 ||
            !nla_fft_smooth(n))
            return bad(why, len, "is not a DIT split of n (2 <= R <= 64, n/R >= 2, "
                       "prime factors <= " MAX_GEN ")", tok);
        return 0;
    }
    case 'b':
        if (tok[1] != '\0')
            return bad(why, len, "is not b (Bluestein)", tok);
        return 0;
    default:
        return bad(why, len, "is not s..., c, f<n1>, d<R> or b", tok);
    }
}

void nla_fft_choice_format(const nla_fft_choice *c, char *tok)
{
    size_t at = 0;
    tok[0] = '\0';
    if (c->kind == 's') {
        tok[at++] = 's';
        for (int i = 0; i < c->nr && at + 4 < NLA_FFT_TOKEN_LEN; i++)
            at += (size_t)snprintf(tok + at, NLA_FFT_TOKEN_LEN - at, i ? ".%d" : "%d",
                                   c->r[i]);
        tok[at] = '\0';
    } else if (c->kind == 'f' || c->kind == 'd') {
        snprintf(tok, NLA_FFT_TOKEN_LEN, "%c%lld", c->kind, (long long)c->n1);
    } else {
        tok[0] = c->kind;
        tok[1] = '\0';
    }
}

/* ------------------------------------------------------------ the table */

static int key_cmp(const entry *a, int dbl, int64_t n, int fwd)
{
    if (a->dbl != dbl)
        return a->dbl > dbl ? -1 : 1;       /* d before s */
    if (a->n != n)
        return a->n < n ? -1 : 1;
    if (a->fwd != fwd)
        return a->fwd > fwd ? -1 : 1;       /* f before b */
    return 0;
}

/* The index of the key, or where it goes (*found 0). */
static size_t find(const table *t, int dbl, int64_t n, int fwd, int *found)
{
    size_t lo = 0, hi = t->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = key_cmp(&t->e[mid], dbl, n, fwd);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = 0;
    return lo;
}

static int put(table *t, const entry *e)
{
    int found;
    size_t i = find(t, e->dbl, e->n, e->fwd, &found);
    if (!found) {
        if (t->count == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 16;
            entry *ne = realloc(t->e, cap * sizeof *ne);
            if (!ne)
                return -1;
            t->e = ne;
            t->cap = cap;
        }
        memmove(t->e + i + 1, t->e + i, (t->count - i) * sizeof *t->e);
        t->count++;
    }
    t->e[i] = *e;
    return 0;
}

int nla_fft_wisdom_find(int dbl, int64_t n, int fwd, nla_fft_choice *c)
{
    int found;
    size_t i;
    pthread_mutex_lock(&lock);
    i = find(&wisdom, dbl, n, fwd, &found);
    if (found)
        *c = wisdom.e[i].c;
    pthread_mutex_unlock(&lock);
    return found;
}

int nla_fft_wisdom_put(int dbl, int64_t n, int fwd, const nla_fft_choice *c)
{
    entry e = { .dbl = dbl, .fwd = fwd, .n = n, .c = *c };
    int rc;
    pthread_mutex_lock(&lock);
    rc = put(&wisdom, &e);
    pthread_mutex_unlock(&lock);
    return rc;
}

char *nla_fft_wisdom_text(void)
{
    /* a line: precision, n (<= 19 digits), direction, token, spaces, newline */
    const size_t line = 2 + 20 + 2 + NLA_FFT_TOKEN_LEN + 1;
    char *s, tok[NLA_FFT_TOKEN_LEN];
    size_t at, cap;

    pthread_mutex_lock(&lock);
    cap = sizeof WISDOM_HEADER + sizeof WISDOM_END + 2 + wisdom.count * line;
    s = malloc(cap);
    if (s) {
        at = (size_t)snprintf(s, cap, "%s\n", WISDOM_HEADER);
        for (size_t i = 0; i < wisdom.count; i++) {
            const entry *e = &wisdom.e[i];
            nla_fft_choice_format(&e->c, tok);
            at += (size_t)snprintf(s + at, cap - at, "%c %lld %c %s\n", e->dbl ? 'd' : 's',
                                   (long long)e->n, e->fwd ? 'f' : 'b', tok);
        }
        snprintf(s + at, cap - at, "%s\n", WISDOM_END);
    }
    pthread_mutex_unlock(&lock);
    return s;
}

/* One entry line (without its newline) into *e; 0, or -1 and why. */
static int parse_line(const char *l, entry *e, char *why, size_t len)
{
    const char *s = l;
    char tok[NLA_FFT_TOKEN_LEN];
    size_t tl;

    if ((s[0] != 'd' && s[0] != 's') || s[1] != ' ') {
        snprintf(why, len, "expected 'd' or 's' (the precision), a space");
        return -1;
    }
    e->dbl = s[0] == 'd';
    s += 2;
    e->n = read_num(&s);
    if (e->n < 2 || *s != ' ') {
        snprintf(why, len, "expected n (2 to 18 digits), a space");
        return -1;
    }
    s++;
    if ((s[0] != 'f' && s[0] != 'b') || s[1] != ' ') {
        snprintf(why, len, "expected 'f' or 'b' (the direction), a space");
        return -1;
    }
    e->fwd = s[0] == 'f';
    s += 2;
    tl = strlen(s);
    if (tl == 0 || tl >= sizeof tok || strchr(s, ' ')) {
        snprintf(why, len, "expected one choice token at the end");
        return -1;
    }
    memcpy(tok, s, tl + 1);
    return nla_fft_choice_parse(tok, e->n, &e->c, why, len);
}

/* The whole text into t; 0, 1 (why names the line) or -1 (memory). */
static int parse_text(const char *text, table *t, char *why, size_t len)
{
    char buf[2 + 20 + 2 + NLA_FFT_TOKEN_LEN + 2], msg[160];
    const char *p = text;
    int lineno = 0, ended = 0;

    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t ll = nl ? (size_t)(nl - p) : strlen(p);
        entry e;
        lineno++;
        if (ended) {
            snprintf(why, len, "line %d: text after '%s'", lineno, WISDOM_END);
            return 1;
        }
        if (ll >= sizeof buf) {
            snprintf(why, len, "line %d: longer than any wisdom line", lineno);
            return 1;
        }
        memcpy(buf, p, ll);
        buf[ll] = '\0';
        p += ll + (nl ? 1 : 0);
        if (lineno == 1) {
            if (strcmp(buf, WISDOM_HEADER) != 0) {
                snprintf(why, len, "line 1: not '%s' (not libnla FFT wisdom, or "
                         "another version)", WISDOM_HEADER);
                return 1;
            }
            continue;
        }
        if (strcmp(buf, WISDOM_END) == 0) {
            ended = 1;
            continue;
        }
        if (parse_line(buf, &e, msg, sizeof msg) != 0) {
            snprintf(why, len, "line %d: %s", lineno, msg);
            return 1;
        }
        if (put(t, &e) != 0)
            return -1;
    }
    if (!ended) {
        snprintf(why, len, "line %d: the text ends before its '%s' line", lineno + 1,
                 WISDOM_END);
        return 1;
    }
    return 0;
}

int nla_fft_wisdom_take(const char *text, char *why, size_t len)
{
    table t = { 0 };
    int rc = parse_text(text, &t, why, len);

    if (rc == 0) {
        pthread_mutex_lock(&lock);
        /* room for every entry first, so the merge itself cannot fail */
        if (wisdom.cap < wisdom.count + t.count) {
            entry *ne = realloc(wisdom.e, (wisdom.count + t.count) * sizeof *ne);
            if (ne) {
                wisdom.e = ne;
                wisdom.cap = wisdom.count + t.count;
            } else {
                rc = -1;
            }
        }
        for (size_t i = 0; rc == 0 && i < t.count; i++)
            put(&wisdom, &t.e[i]);
        pthread_mutex_unlock(&lock);
    }
    free(t.e);
    return rc;
}

void nla_fft_wisdom_clear(void)
{
    pthread_mutex_lock(&lock);
    free(wisdom.e);
    wisdom.e = NULL;
    wisdom.count = wisdom.cap = 0;
    pthread_mutex_unlock(&lock);
}
