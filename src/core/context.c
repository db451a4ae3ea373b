/*
 * context.c - contexts, backend selection and memory.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static const struct nla_backend_ops *ops_for(nla_backend b)
{
    switch (b) {
    case NLA_BACKEND_CPU:  return &nla_cpu_backend;
    case NLA_BACKEND_CUDA: return nla_plugin_cuda();
    default:               return NULL;
    }
}

NLA_API int nla_backend_available(nla_backend b)
{
    if (b == NLA_BACKEND_AUTO)
        return 1;
    return ops_for(b) != NULL;
}

NLA_API const char *nla_backend_name(nla_backend b)
{
    switch (b) {
    case NLA_BACKEND_AUTO: return "auto";
    case NLA_BACKEND_CPU:  return "cpu";
    case NLA_BACKEND_CUDA: return "cuda";
    }
    return "unknown";
}

/* AUTO: NLA_BACKEND, then CUDA if available, then the CPU.  *both: CUDA
   was chosen because it is available (not named by NLA_BACKEND), so the
   context also holds the CPU backend for calls on host data. */
static nla_status resolve_auto(nla_backend *out, int *both)
{
    const char *env = getenv("NLA_BACKEND");
    *both = 0;
    if (env && *env) {
        if (strcmp(env, "cpu") == 0) {
            *out = NLA_BACKEND_CPU;
            return NLA_OK;
        }
        if (strcmp(env, "cuda") == 0) {
            *out = NLA_BACKEND_CUDA;
            return NLA_OK;
        }
        return nla_fail(NULL, NLA_EINVAL, "nla_context_create",
                        "NLA_BACKEND has unknown value '%.32s' (expected cpu or cuda)",
                        env);
    }
    *out = nla_backend_available(NLA_BACKEND_CUDA) ? NLA_BACKEND_CUDA
                                                   : NLA_BACKEND_CPU;
    *both = *out == NLA_BACKEND_CUDA;
    return NLA_OK;
}

NLA_API nla_status nla_context_create(nla_context **ctx, nla_backend backend)
{
    const struct nla_backend_ops *ops;
    nla_context *c;
    nla_status s;
    int both = 0;

    if (!ctx)
        return nla_fail(NULL, NLA_EINVAL, "nla_context_create", "ctx is NULL");
    *ctx = NULL; /* a handle output is NULL after any failure (nla(3)) */
    if (backend != NLA_BACKEND_AUTO && backend != NLA_BACKEND_CPU &&
        backend != NLA_BACKEND_CUDA)
        return nla_fail(NULL, NLA_EINVAL, "nla_context_create",
                        "backend has unknown value %d", (int)backend);
    if (backend == NLA_BACKEND_AUTO && (s = resolve_auto(&backend, &both)) != NLA_OK)
        return s;
    ops = ops_for(backend);
    if (!ops)
        return nla_fail(NULL, NLA_ENOBACKEND, "nla_context_create",
                        "backend %s is not available (%s)",
                        nla_backend_name(backend),
                        nla_backend_unavailable_reason(backend));
    c = calloc(1, sizeof *c);
    if (!c)
        return nla_fail(NULL, NLA_ENOMEM, "nla_context_create",
                        "cannot allocate the context");
    c->backend = c->last = backend;
    c->ops = ops;
    if (ops->ctx_init && (s = ops->ctx_init(&c->state)) != NLA_OK) {
        free(c);
        return nla_fail(NULL, s, "nla_context_create",
                        "the %s backend could not set up a context", ops->name);
    }
    if (both) {
        c->cpu_ops = &nla_cpu_backend;
        if (c->cpu_ops->ctx_init && (s = c->cpu_ops->ctx_init(&c->cpu_state)) != NLA_OK) {
            if (ops->ctx_fini)
                ops->ctx_fini(c->state);
            free(c);
            return nla_fail(NULL, s, "nla_context_create",
                            "the cpu backend could not set up a context");
        }
    }
    *ctx = c;
    return NLA_OK;
}

NLA_API void nla_context_destroy(nla_context *ctx)
{
    if (!ctx)
        return;
    if (ctx->cpu_ops && ctx->cpu_ops->ctx_fini)
        ctx->cpu_ops->ctx_fini(ctx->cpu_state);
    if (ctx->ops->ctx_fini)
        ctx->ops->ctx_fini(ctx->state);
    free(ctx);
}

NLA_API nla_backend nla_context_backend(const nla_context *ctx)
{
    return ctx ? ctx->backend : NLA_BACKEND_AUTO;
}

NLA_API nla_backend nla_context_last_backend(const nla_context *ctx)
{
    return ctx ? ctx->last : NLA_BACKEND_AUTO;
}

NLA_API const char *nla_context_last_form(const nla_context *ctx)
{
    return ctx && ctx->form ? ctx->form : "";
}

NLA_API const char *nla_context_error(const nla_context *ctx)
{
    return ctx ? ctx->msg : nla_last_error();
}

NLA_API nla_status nla_context_set_threads(nla_context *ctx, int nthreads)
{
    if (!ctx)
        return nla_fail(NULL, NLA_EINVAL, "nla_context_set_threads", "ctx is NULL");
    if (nthreads < 0)
        return nla_fail(ctx, NLA_EINVAL, "nla_context_set_threads",
                        "nthreads (%d) < 0", nthreads);
    nla_ok(ctx);
    ctx->nthreads = nthreads;
    return NLA_OK;
}

NLA_API int nla_context_threads(const nla_context *ctx)
{
    if (!ctx)
        return 0;
    return ctx->nthreads > 0 ? ctx->nthreads : nla_default_threads();
}

void nla_exec_init(nla_exec *ex, nla_context *ctx)
{
    ex->state = ctx->state;
    ex->nthreads = nla_context_threads(ctx);
    ex->msg = ctx->msg;
    ex->msglen = sizeof ctx->msg;
    ctx->msg[0] = '\0';
    ctx->last = ctx->backend;
    ctx->form = "";
    ex->form = &ctx->form;
    ex->fft_effort = ctx->fft_effort;
}

/*
 * AUTO's cost model.  A call on host data is staged to the GPU when the
 * CPU would take longer than the copies:
 *
 *     flops / (rate * threads)  >  bytes / LINK_BPS + CALL_S
 *
 * flops is the call's arithmetic (GEMM 2mnk per matrix, FFT 5 n log2 n per
 * complex transform, half that for real ones), bytes what staging moves
 * (inputs in, outputs out), rate a CPU thread's typical throughput for
 * that kind of call, LINK_BPS the host<->device bandwidth through pinned
 * buffers (PCIe 4/5 with the host-side copy) and CALL_S the fixed cost of
 * a synchronous staged call.  The GPU's own time is left out: next to the
 * CPU's it is small.  Level-2 calls move as many bytes as they do flops
 * and always stay on the CPU.  The constants are deliberately plain; a
 * program that knows better uses device memory (always CUDA) or a CPU
 * context.
 */
#define AUTO_LINK_BPS 20e9
#define AUTO_CALL_S 50e-6
#define AUTO_RATE_GEMM_D 50e9
#define AUTO_RATE_GEMM_S 100e9
#define AUTO_RATE_FFT 6e9

int nla_auto_offload(nla_route_kind kind, double flops, double bytes, int threads)
{
    double rate;
    switch (kind) {
    case NLA_ROUTE_GEMM_D: rate = AUTO_RATE_GEMM_D; break;
    case NLA_ROUTE_GEMM_S: rate = AUTO_RATE_GEMM_S; break;
    case NLA_ROUTE_FFT:    rate = AUTO_RATE_FFT; break;
    default:               return 0;
    }
    if (threads < 1)
        threads = 1;
    return flops / (rate * threads) > bytes / AUTO_LINK_BPS + AUTO_CALL_S;
}

int nla_device_ptr(const nla_context *ctx, const void *p)
{
    return p && ctx->ops->is_device_ptr && ctx->ops->is_device_ptr(ctx->state, p);
}

const struct nla_backend_ops *nla_route(nla_context *ctx, nla_exec *ex,
                                        nla_route_kind kind, double flops,
                                        double bytes, const void *const *ptrs,
                                        int nptrs)
{
    nla_exec_init(ex, ctx);
    if (!ctx->cpu_ops)
        return ctx->ops;
    for (int i = 0; i < nptrs; i++)
        if (nla_device_ptr(ctx, ptrs[i]))
            return ctx->ops;
    if (nla_auto_offload(kind, flops, bytes, ex->nthreads))
        return ctx->ops;
    ex->state = ctx->cpu_state;
    ctx->last = NLA_BACKEND_CPU;
    return ctx->cpu_ops;
}

nla_status nla_exec_done(nla_context *ctx, const char *fn, nla_status s)
{
    if (s == NLA_OK) {
        ctx->msg[0] = '\0';
        return s;
    }
    if (ctx->msg[0]) {
        char detail[NLA_MSG_LEN];
        memcpy(detail, ctx->msg, sizeof detail);
        return nla_fail(ctx, s, fn, "%s", detail);
    }
    return nla_fail(ctx, s, fn, "%s", nla_strerror(s));
}

NLA_API nla_status nla_context_synchronize(nla_context *ctx)
{
    nla_exec ex;
    if (!ctx)
        return nla_fail(NULL, NLA_EINVAL, "nla_context_synchronize", "ctx is NULL");
    nla_exec_init(&ex, ctx);
    if (!ctx->ops->synchronize)
        return NLA_OK;
    return nla_exec_done(ctx, "nla_context_synchronize", ctx->ops->synchronize(&ex));
}

NLA_API nla_status nla_context_set_stream(nla_context *ctx, void *stream)
{
    static const char fn[] = "nla_context_set_stream";
    nla_exec ex;
    if (!ctx)
        return nla_fail(NULL, NLA_EINVAL, fn, "ctx is NULL");
    if (!ctx->ops->set_stream && stream)
        return nla_fail(ctx, NLA_ENOTSUP, fn, "stream is not NULL, and the %s backend has "
                        "no streams", ctx->ops->name);
    nla_ok(ctx);
    if (!ctx->ops->set_stream)
        return NLA_OK;
    nla_exec_init(&ex, ctx);
    return nla_exec_done(ctx, fn, ctx->ops->set_stream(&ex, stream));
}

NLA_API void *nla_context_stream(const nla_context *ctx)
{
    return ctx && ctx->ops->stream ? ctx->ops->stream(ctx->state) : NULL;
}

/* ---- memory ---- */

NLA_API nla_status nla_malloc(nla_context *ctx, void **ptr, size_t bytes)
{
    nla_status s;
    nla_exec ex;
    if (ptr)
        *ptr = NULL; /* a handle output is NULL after any failure (nla(3)) */
    if (!ctx)
        return nla_fail(NULL, NLA_EINVAL, "nla_malloc", "ctx is NULL");
    if (!ptr)
        return nla_fail(ctx, NLA_EINVAL, "nla_malloc", "ptr is NULL");
    if (bytes > (size_t)PTRDIFF_MAX)
        return nla_fail(ctx, NLA_EINVAL, "nla_malloc",
                        "bytes (%zu) exceeds PTRDIFF_MAX", bytes);
    nla_ok(ctx);
    nla_exec_init(&ex, ctx);
    s = ctx->ops->mem_alloc(&ex, ptr, bytes);
    if (s != NLA_OK && ctx->msg[0]) {
        char detail[NLA_MSG_LEN];
        memcpy(detail, ctx->msg, sizeof detail);
        return nla_fail(ctx, s, "nla_malloc", "cannot allocate %zu bytes: %.200s",
                        bytes, detail);
    }
    if (s != NLA_OK)
        return nla_fail(ctx, s, "nla_malloc", "cannot allocate %zu bytes", bytes);
    return NLA_OK;
}

NLA_API void nla_free(nla_context *ctx, void *ptr)
{
    if (ctx && ptr)
        ctx->ops->mem_free(ctx->state, ptr);
}

static nla_status copy_checked(nla_context *ctx, const char *fn, void *dst,
                               const void *src, size_t bytes, int up)
{
    nla_exec ex;

    if (!ctx)
        return nla_fail(NULL, NLA_EINVAL, fn, "ctx is NULL");
    if (bytes > 0 && !dst)
        return nla_fail(ctx, NLA_EINVAL, fn, up ? "dst is NULL" : "host_dst is NULL");
    if (bytes > 0 && !src)
        return nla_fail(ctx, NLA_EINVAL, fn, up ? "host_src is NULL" : "src is NULL");
    if (bytes > (size_t)PTRDIFF_MAX)
        return nla_fail(ctx, NLA_EINVAL, fn, "bytes (%zu) exceeds PTRDIFF_MAX", bytes);
    nla_ok(ctx);
    if (bytes == 0)
        return NLA_OK;
    nla_exec_init(&ex, ctx);
    return nla_exec_done(ctx, fn, up ? ctx->ops->upload(&ex, dst, src, bytes)
                                     : ctx->ops->download(&ex, dst, src, bytes));
}

NLA_API nla_status nla_upload(nla_context *ctx, void *dst, const void *host_src,
                              size_t bytes)
{
    return copy_checked(ctx, "nla_upload", dst, host_src, bytes, 1);
}

NLA_API nla_status nla_download(nla_context *ctx, void *host_dst, const void *src,
                                size_t bytes)
{
    return copy_checked(ctx, "nla_download", host_dst, src, bytes, 0);
}
