/*
 * api_fw.h - the argument checks that the Frank-Wolfe front end's files
 * (api_opt.c: objectives, options, the solve; api_fw_set.c: the feasible
 * sets) share.  Not installed.
 */
#ifndef NLA_CORE_API_FW_H
#define NLA_CORE_API_FW_H

#include <math.h>
#include "check.h"
#include "opt/fw.h"

/* a finite v > 0 (or >= 0 when zero_ok) */
static inline int chk_real(nla_check *ck, const char *name, double v, int zero_ok)
{
    if (isfinite(v) && (v > 0 || (zero_ok && v == 0)))
        return 0;
    return nla_chk_fail(ck, "%s (%g) is not a finite number %s 0", name, v,
                    zero_ok ? ">=" : ">");
}

static inline int chk_pos(nla_check *ck, const char *name, int64_t v)
{
    if (v >= 1)
        return 0;
    return nla_chk_fail(ck, "%s (%lld) < 1", name, (long long)v);
}

/* n doubles fit in memory */
static inline int chk_len(nla_check *ck, const char *name, int64_t n)
{
    return nla_chk_vector_extent(ck, name, n, 1, sizeof(double));
}

/* The LMO and objective entry points run on the CPU: a CPU context, or an
   AUTO context that holds the CPU beside CUDA, with all the data (the
   names[i] arrays p[i], NULL ones skipped) in host memory.  nla_fw_solve
   routes itself. */
static inline int chk_cpu(nla_check *ck, nla_context *ctx, int np, const void *const *p,
                   const char *const *names)
{
    if (ctx->backend != NLA_BACKEND_CPU && !ctx->cpu_ops) {
        ck->status = nla_fail(ctx, NLA_ENOTSUP, ck->fn,
                              "ctx: this runs on the CPU backend only (ctx is %s)",
                              nla_backend_name(ctx->backend));
        return 1;
    }
    for (int i = 0; i < np; i++)
        if (nla_device_ptr(ctx, p[i])) {
            ck->status = nla_fail(ctx, NLA_ENOTSUP, ck->fn,
                                  "%s: device memory, and this runs on the CPU only",
                                  names[i]);
            return 1;
        }
    return 0;
}

/* A create function's handle output: NULL after any failure (nla(3)), so it is
   cleared before anything is checked. */
#define chk_out(ck, name, out) ((out) ? (void)(*(out) = NULL) : (void)0, \
                                nla_chk_ptr((ck), (name), (out), 1))

static inline nla_status nomem(const char *fn)
{
    return nla_fail(NULL, NLA_ENOMEM, fn, "cannot allocate the object");
}

#endif
