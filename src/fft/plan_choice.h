/*
 * plan_choice.h - how one FFT core is built, as a choice with a short text
 * token, and the process-wide wisdom table of measured choices.
 *
 * A core is a contiguous complex transform of length n >= 2 in one
 * precision and direction (fft_tmpl.h).  Its choice is one of
 *   s<r>.<r>...  Stockham passes of these radices, in this order (those of
 *                a slot, or an odd prime up to NLA_FFT_MAX_GEN)
 *   c            the codelet of n = 2^k <= 2^NLA_FFT_SMALL_LOG (the ISA's;
 *                the default passes where it has none), also for batches
 *                where it has an interleaved one; s... runs the passes
 *   f<n1>        four-step, n = n1*n2, n2 columns of length n1 first
 *   d<R>         decimation in time by R <= 64: R rows of length n/R in
 *                cache, then n/R columns of length R
 *   b            Bluestein (any n; the rules' choice for n with a prime
 *                factor over NLA_FFT_MAX_GEN)
 * The wisdom text is line-based:
 *   nla-fft-wisdom 1
 *   d 1024 f s8.8.4.4        precision (d/s), n, direction (f/b), choice
 *   end
 * Importing checks every line before it takes any.  The table has a
 * mutex: planning, export and import may run from any thread.
 */
#ifndef NLA_FFT_PLAN_CHOICE_H
#define NLA_FFT_PLAN_CHOICE_H

#include <stddef.h>
#include <stdint.h>

#define NLA_FFT_MAX_PASSES 64
/* a token's longest text, NUL included */
#define NLA_FFT_TOKEN_LEN 192

typedef struct nla_fft_choice {
    char kind;                       /* 's', 'c', 'f', 'd' or 'b' */
    int nr;                          /* 's': the passes' radices, in order */
    int r[NLA_FFT_MAX_PASSES];
    int64_t n1;                      /* 'f': the first factor; 'd': R */
} nla_fft_choice;

/* 1 if n's prime factors are all at most NLA_FFT_MAX_GEN */
int nla_fft_smooth(int64_t n);
/* Parses tok as the choice of a core of length n; 0 on success, else -1
   and a reason in why[0..len). */
int nla_fft_choice_parse(const char *tok, int64_t n, nla_fft_choice *c, char *why,
                         size_t len);
/* The token of c into tok[NLA_FFT_TOKEN_LEN]. */
void nla_fft_choice_format(const nla_fft_choice *c, char *tok);

/* The wisdom entry of (double?, n, forward?): 1 and *c if there is one. */
int nla_fft_wisdom_find(int dbl, int64_t n, int fwd, nla_fft_choice *c);
/* Records a measured choice; 0, or -1 when out of memory. */
int nla_fft_wisdom_put(int dbl, int64_t n, int fwd, const nla_fft_choice *c);
/* The table as text (malloc'ed), or NULL when out of memory. */
char *nla_fft_wisdom_text(void);
/* Imports text, all or nothing: 0; 1 with the first bad line's reason in
   why[0..len) (nothing taken); -1 out of memory (nothing taken). */
int nla_fft_wisdom_take(const char *text, char *why, size_t len);
void nla_fft_wisdom_clear(void);

#endif
