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
    const struct nla_backend_ops *ops;   /* the backend: its memory is nla_malloc's */
    void *state;                         /* ops' per-context state */
    /* An AUTO context on a machine with CUDA (backend CUDA) also holds the
       CPU backend, for calls on host data that nla_route keeps on the
       CPU.  NULL otherwise. */
    const struct nla_backend_ops *cpu_ops;
    void *cpu_state;
    int nthreads;                        /* 0 = default */
    int fft_effort;                      /* nla_fft_effort of FFT plans */
    char msg[NLA_MSG_LEN];
    const char *form;                    /* the last call's kernel form */
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

/* Prepare an nla_exec for a call on ctx's backend (threads resolved,
   message buffer) and record that backend as where the call runs. */
void nla_exec_init(nla_exec *ex, nla_context *ctx);

/* What a call computes, for AUTO's cost model (context.c). */
typedef enum nla_route_kind {
    NLA_ROUTE_LEVEL2,     /* gemv, gbmv, spmv: memory-bound, host data stays on the CPU */
    NLA_ROUTE_GEMM_D, NLA_ROUTE_GEMM_S,
    NLA_ROUTE_FFT
} nla_route_kind;
/* Pick the backend of one call and prepare ex for it (as nla_exec_init
   does, for that backend).  On a context holding one backend: that one.
   On an AUTO context holding CUDA and the CPU: CUDA when any of the nptrs
   pointers is device memory, else nla_auto_offload's choice.  flops: the
   call's arithmetic; bytes: what staging it would move between host and
   device. */
const struct nla_backend_ops *nla_route(nla_context *ctx, nla_exec *ex,
                                        nla_route_kind kind, double flops,
                                        double bytes, const void *const *ptrs,
                                        int nptrs);
/* 1 if p is memory only ctx's backend can read (device memory); 0 for NULL
   and for host memory. */
int nla_device_ptr(const nla_context *ctx, const void *p);
/* AUTO's cost model for host data: 1 if staging the call to the GPU is
   expected to beat running it on `threads` CPU threads. */
int nla_auto_offload(nla_route_kind kind, double flops, double bytes, int threads);
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
