/*
 * check.h - argument checks shared by every public routine.
 *
 * Each check returns 0 when the argument is acceptable.  Otherwise it records
 * "routine: what is wrong" (naming the argument) through nla_fail and returns
 * non-zero, so a routine reads as a chain of checks joined by ||, and then
 * returns ck.status.
 */
#ifndef NLA_CORE_CHECK_H
#define NLA_CORE_CHECK_H

#include "internal.h"

typedef struct nla_check {
    nla_context *ctx;   /* may be NULL: routines without a context */
    const char *fn;     /* routine name, for messages */
    nla_status status;  /* NLA_EINVAL after a failed check */
} nla_check;

#define NLA_CHECK_INIT(ctx_, fn_) { (ctx_), (fn_), NLA_OK }

/* Record an EINVAL whose message is fmt (naming the argument); returns 1. */
int nla_chk_fail(nla_check *ck, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int nla_chk_ctx(nla_check *ck, const nla_context *ctx);
int nla_chk_trans(nla_check *ck, const char *name, nla_trans t);
int nla_chk_uplo(nla_check *ck, const char *name, nla_uplo u);
int nla_chk_layout(nla_check *ck, const char *name, nla_layout l);
/* v >= 0 */
int nla_chk_nonneg(nla_check *ck, const char *name, int64_t v);
/* ld >= min; minexpr spells min for the message, e.g. "max(1,m)" */
int nla_chk_ld(nla_check *ck, const char *name, int64_t ld, const char *minexpr,
               int64_t min);
/* ldab >= kl+ku+1 (kl, ku >= 0); a sum past INT64_MAX fits no ldab */
int nla_chk_ldab(nla_check *ck, int64_t ldab, int64_t kl, int64_t ku);
/* inc != 0 */
int nla_chk_inc(nla_check *ck, const char *name, int64_t inc);
/* p != NULL whenever the routine will touch it (needed != 0) */
int nla_chk_ptr(nla_check *ck, const char *name, const void *p, int needed);
/* The elements a matrix spans, (cols-1)*ld + rows, times elsize, fit in
   size_t and ptrdiff_t.  rows, cols >= 0; nothing spans 0 elements. */
int nla_chk_matrix_extent(nla_check *ck, const char *name, int64_t rows,
                          int64_t cols, int64_t ld, size_t elsize);
/* The elements a vector spans, (len-1)*|inc| + 1, times elsize, fit. */
int nla_chk_vector_extent(nla_check *ck, const char *name, int64_t len,
                          int64_t inc, size_t elsize);
/* A packed triangle's n(n+1)/2 elements, times elsize, fit. */
int nla_chk_packed_extent(nla_check *ck, const char *name, int64_t n,
                          size_t elsize);
/* A strided batch spans (batch-1)*stride + one elements, times elsize,
   and that fits; one is the extent of one matrix in elements. */
int nla_chk_batch_extent(nla_check *ck, const char *name, int64_t one,
                         int64_t stride, int64_t batch, size_t elsize);

/* a*b with overflow detection: returns 0 and sets *r, or 1 on overflow
   (operands >= 0). */
int nla_mul_overflows(int64_t a, int64_t b, int64_t *r);
int nla_add_overflows(int64_t a, int64_t b, int64_t *r);

#endif
