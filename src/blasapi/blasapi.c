/*
 * blasapi.c - libnlablas: the reference BLAS and CBLAS entry points for
 * gemm, gemv, gbmv and spmv (s and d), forwarded to libnla.
 *
 * A program built against any BLAS gets libnla's kernels for these
 * routines by putting libnlablas first in its link order, or with
 * LD_PRELOAD.  The rest of this library is a shim:
 *   - Fortran ABI (LP64): 32-bit INTEGERs, everything by reference, and
 *     the hidden CHARACTER lengths that compilers append are ignored.
 *   - Arguments are checked exactly as reference BLAS checks them, in the
 *     same order, and a bad one is reported through the process's xerbla_
 *     (CBLAS: cblas_xerbla) with the reference routine name and INFO; then
 *     the routine returns without computing.  libnlablas defines neither
 *     handler (see "errors" below).
 *   - CBLAS works as reference CBLAS does: enum checks in C (INFO 1, 2,
 *     3), then the column-major problem (row-major is its transpose) is
 *     checked by the Fortran rules, reported with INFO + 1 (the layout
 *     argument comes first).
 *   - Each thread gets its own libnla context on first use (a context is
 *     used by one thread at a time); it is destroyed when the thread ends.
 *
 * Only the BLAS routines are exported: the library is built with
 * -fvisibility=hidden and BLAS_API marks them.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "nla.h"

#define BLAS_API __attribute__((visibility("default")))

/* The CBLAS enumerations (cblas.h), by value. */
enum { CBLAS_ROW = 101, CBLAS_COL = 102 };
enum { CBLAS_NOTRANS = 111, CBLAS_TRANS = 112, CBLAS_CONJTRANS = 113 };
enum { CBLAS_UPPER = 121, CBLAS_LOWER = 122 };

/* ------------------------------------------------------------ errors */

/* The error handlers belong to the process, not to libnlablas.  A
   definition here, preloaded, would come first in the global scope and take
   the handler over from every library loaded later (NumPy's LAPACK module
   defines xerbla_ to raise ValueError).  So these are weak references,
   bound at load time to the program's handler or to the BLAS it links; with
   none, libnlablas prints the reference message itself and returns
   (reference XERBLA would stop; libnla never exits). */
extern void xerbla_(const char *srname, const int *info, size_t srname_len)
    __attribute__((weak, visibility("default")));
extern void cblas_xerbla(int info, const char *rout, const char *form, ...)
    __attribute__((weak, visibility("default")));

/* Reference CBLAS's cblas_xerbla reports the position in the row-major
   call the user made: it undoes the argument swap of the transposed
   problem. */
static int user_position(int row_major, int info, const char *rout)
{
    static const struct { const char *name; int a, b; } swaps[] = {
        { "gemm", 4, 5 }, { "gemm", 9, 11 }, { "gemv", 3, 4 },
        { "gbmv", 3, 4 }, { "gbmv", 5, 6 },
    };
    if (!row_major)
        return info;
    for (size_t i = 0; i < sizeof swaps / sizeof swaps[0]; i++)
        if (strstr(rout, swaps[i].name)) {
            if (info == swaps[i].a)
                return swaps[i].b;
            if (info == swaps[i].b)
                return swaps[i].a;
        }
    return info;
}

/* Fortran routine name, blank-padded to 6 as reference BLAS passes it. */
static void fortran_error(const char *name6, int info)
{
    if (xerbla_) {
        xerbla_(name6, &info, 6);
        return;
    }
    int len = (int)strnlen(name6, 6);
    while (len > 0 && name6[len - 1] == ' ')
        len--;
    fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n", len,
            name6, info);
}

static void cblas_error(int row_major, const char *rout, int info, const char *form,
                        int value)
{
    if (cblas_xerbla) {
        cblas_xerbla(info, rout, form, value);
        return;
    }
    info = user_position(row_major, info, rout);
    if (info)
        fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
    fprintf(stderr, form, value);
}

/* ----------------------------------------------------------- context */

static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;
static pthread_key_t ctx_key;
static int ctx_key_ok;

static void ctx_destroy(void *p)
{
    nla_context_destroy(p);
}

static void ctx_key_make(void)
{
    ctx_key_ok = pthread_key_create(&ctx_key, ctx_destroy) == 0;
}

/* This thread's context; NULL only when it cannot be made (out of
   memory), and then the call computes nothing: BLAS has no way to say so. */
static nla_context *thread_context(void)
{
    nla_context *ctx;
    pthread_once(&ctx_once, ctx_key_make);
    if (!ctx_key_ok)
        return NULL;
    ctx = pthread_getspecific(ctx_key);
    if (ctx)
        return ctx;
    if (nla_context_create(&ctx, NLA_BACKEND_AUTO) != NLA_OK)
        return NULL;
    if (pthread_setspecific(ctx_key, ctx) != 0) {
        nla_context_destroy(ctx);
        return NULL;
    }
    return ctx;
}

/* ------------------------------------------------- option characters */

/* LSAME: case-insensitive.  'C' (conjugate transpose) is 'T' for reals. */
static int f_trans(char c, nla_trans *t)
{
    c = (char)toupper((unsigned char)c);
    if (c == 'N')
        *t = NLA_NO_TRANS;
    else if (c == 'T' || c == 'C')
        *t = NLA_TRANS;
    else
        return -1;
    return 0;
}

static int f_uplo(char c, nla_uplo *u)
{
    c = (char)toupper((unsigned char)c);
    if (c == 'U')
        *u = NLA_UPPER;
    else if (c == 'L')
        *u = NLA_LOWER;
    else
        return -1;
    return 0;
}

static int cblas_trans(int t, nla_trans *out)
{
    if (t == CBLAS_NOTRANS)
        *out = NLA_NO_TRANS;
    else if (t == CBLAS_TRANS || t == CBLAS_CONJTRANS)
        *out = NLA_TRANS;
    else
        return -1;
    return 0;
}

static nla_trans flip(nla_trans t)
{
    return t == NLA_NO_TRANS ? NLA_TRANS : NLA_NO_TRANS;
}

static int imax1(int x)
{
    return x > 1 ? x : 1;
}

/* ---------------------------------------------- reference INFO rules */

/* The INFO reference BLAS gives for the column-major problem, 0 if the
   arguments are valid.  Positions are those of the Fortran routine. */

static int gemm_info(int ta_ok, int tb_ok, nla_trans ta, nla_trans tb, int m, int n,
                     int k, int lda, int ldb, int ldc)
{
    if (!ta_ok)
        return 1;
    if (!tb_ok)
        return 2;
    if (m < 0)
        return 3;
    if (n < 0)
        return 4;
    if (k < 0)
        return 5;
    if (lda < imax1(ta == NLA_NO_TRANS ? m : k))
        return 8;
    if (ldb < imax1(tb == NLA_NO_TRANS ? k : n))
        return 10;
    if (ldc < imax1(m))
        return 13;
    return 0;
}

static int gemv_info(int t_ok, int m, int n, int lda, int incx, int incy)
{
    if (!t_ok)
        return 1;
    if (m < 0)
        return 2;
    if (n < 0)
        return 3;
    if (lda < imax1(m))
        return 6;
    if (incx == 0)
        return 8;
    if (incy == 0)
        return 11;
    return 0;
}

static int gbmv_info(int t_ok, int m, int n, int kl, int ku, int lda, int incx, int incy)
{
    if (!t_ok)
        return 1;
    if (m < 0)
        return 2;
    if (n < 0)
        return 3;
    if (kl < 0)
        return 4;
    if (ku < 0)
        return 5;
    if (lda < kl + ku + 1)
        return 8;
    if (incx == 0)
        return 10;
    if (incy == 0)
        return 13;
    return 0;
}

static int spmv_info(int u_ok, int n, int incx, int incy)
{
    if (!u_ok)
        return 1;
    if (n < 0)
        return 2;
    if (incx == 0)
        return 6;
    if (incy == 0)
        return 9;
    return 0;
}

/* ------------------------------------------------ the s and d copies */

#define T double
#define P d
#define FNAME(up) "D" up
#define CNAME(lo) "cblas_d" lo
#include "blasapi_tmpl.h"
#undef T
#undef P
#undef FNAME
#undef CNAME

#define T float
#define P s
#define FNAME(up) "S" up
#define CNAME(lo) "cblas_s" lo
#include "blasapi_tmpl.h"
#undef T
#undef P
#undef FNAME
#undef CNAME
