/*
 * internal.h - what the front end shares between its files.  Not installed.
 */
#ifndef NLA_CORE_INTERNAL_H
#define NLA_CORE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "nla.h"
#include "backend.h"

#define NLA_MSG_LEN 256

struct nla_context {
    nla_backend backend;                 /* resolved, never AUTO */
    nla_backend last;                    /* where the last call ran */
    const struct nla_backend_ops *ops;
    void *state;                         /* ops' per-context state */
    int nthreads;                        /* 0 = default */
    char msg[NLA_MSG_LEN];
};

/* Record a failure of routine fn: the message goes to the thread's last
   error and, when ctx is not NULL, to the context.  Returns s. */
nla_status nla_fail(nla_context *ctx, nla_status s, const char *fn,
                    const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Clear the context's message at the start of a call. */
void nla_ok(nla_context *ctx);

/* Prepare an nla_exec for a call on ctx (threads resolved, message buffer). */
void nla_exec_init(nla_exec *ex, nla_context *ctx);
/* After a backend call: record where it ran; on failure make sure the
   context message says something, prefixed with the routine. */
nla_status nla_exec_done(nla_context *ctx, const char *fn, nla_status s);

/* ---- CPU features (cpu.c) ---- */
typedef enum nla_isa { NLA_ISA_GENERIC = 0, NLA_ISA_AVX2, NLA_ISA_AVX512 } nla_isa;
nla_isa nla_cpu_isa_id(void);       /* chosen once, by CPUID and NLA_CPU_ISA */
int nla_default_threads(void);

/* ---- plugin loader (plugin.c) ---- */
/* The CUDA backend's table, or NULL (and a reason from
   nla_backend_unavailable_reason) if it cannot be used. Loads once. */
const struct nla_backend_ops *nla_plugin_cuda(void);

#endif
