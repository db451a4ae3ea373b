/*
 * api_fft.c - the FFT front end: every argument of plan creation and
 * execution is checked here, the descriptor is resolved (zeros become
 * defaults), and the context's backend builds and runs the plan.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fft_nd.h"

#define PLAN_MAGIC 0x4e4c4146u   /* "NLAF" */

struct nla_fft_plan {
    uint32_t magic;
    nla_fft_desc desc;                   /* resolved: no zeros */
    const struct nla_backend_ops *ops;   /* NULL: no plan on the context's backend */
    void *impl;                          /* the backend's plan */
    /* AUTO context holding CUDA and the CPU (see plan_both): the CPU plan
       for host data that the cost model keeps on the CPU, and the CUDA
       table and state that tell device pointers apart.  NULL otherwise. */
    const struct nla_backend_ops *cpu_ops;
    void *cpu_impl;
    const struct nla_backend_ops *probe;
    void *probe_state;
    struct nla_fft_nd *nd;               /* rank > 1: api_fft_nd.c's plans instead */
};

static const char *kind_name(nla_fft_kind k)
{
    return k == NLA_FFT_C2C ? "C2C" : k == NLA_FFT_R2C ? "R2C" : k == NLA_FFT_C2R ? "C2R"
           : k == NLA_FFT_REDFT10 ? "REDFT10" : "REDFT01";
}

int nla_fft_is_dct(nla_fft_kind k)
{
    return k == NLA_FFT_REDFT10 || k == NLA_FFT_REDFT01;
}

/* Each side's element is real for the R2C input, the C2R output and both
   sides of a DCT; complex otherwise. */
static int real_in(nla_fft_kind k) { return k == NLA_FFT_R2C || nla_fft_is_dct(k); }
static int real_out(nla_fft_kind k) { return k == NLA_FFT_C2R || nla_fft_is_dct(k); }

/* Elements of one transform's input and output (in their own types). */
static void lengths(const nla_fft_desc *d, int64_t *lin, int64_t *lout)
{
    int64_t half = d->n / 2 + 1;
    *lin = d->kind == NLA_FFT_C2R ? half : d->n;
    *lout = d->kind == NLA_FFT_R2C ? half : d->n;
}

/* An enum argument's value, named by the caller ("desc->kind", "dir") */
int nla_fft_chk_kind(nla_check *ck, const char *name, nla_fft_kind k)
{
    if (k != NLA_FFT_C2C && k != NLA_FFT_R2C && k != NLA_FFT_C2R && !nla_fft_is_dct(k))
        return nla_chk_fail(ck, "%s has unknown value %d (expected NLA_FFT_C2C, "
                            "NLA_FFT_R2C, NLA_FFT_C2R, NLA_FFT_REDFT10 or "
                            "NLA_FFT_REDFT01)", name, (int)k);
    return 0;
}

int nla_fft_chk_prec(nla_check *ck, const char *name, nla_precision p)
{
    if (p != NLA_DOUBLE && p != NLA_FLOAT)
        return nla_chk_fail(ck, "%s has unknown value %d (expected NLA_DOUBLE or "
                            "NLA_FLOAT)", name, (int)p);
    return 0;
}

int nla_fft_chk_dir(nla_check *ck, const char *name, nla_fft_direction d)
{
    if (d != NLA_FFT_FORWARD && d != NLA_FFT_BACKWARD)
        return nla_chk_fail(ck, "%s has unknown value %d (expected NLA_FFT_FORWARD "
                            "or NLA_FFT_BACKWARD)", name, (int)d);
    return 0;
}

static int chk_enums(nla_check *ck, const nla_fft_desc *d)
{
    return nla_fft_chk_kind(ck, "desc->kind", d->kind) ||
           nla_fft_chk_prec(ck, "desc->precision", d->precision) ||
           nla_fft_chk_dir(ck, "desc->direction", d->direction);
}

/* (howmany-1)*dist + (len-1)*stride + 1 elements of elsize bytes fit. */
static int chk_extent(nla_check *ck, const char *side, int64_t len, int64_t stride,
                      int64_t dist, int64_t howmany, size_t elsize)
{
    int64_t a, b, span, bytes;
    if (nla_mul_overflows(howmany - 1, dist, &a) ||
        nla_mul_overflows(len - 1, stride, &b) || nla_add_overflows(a, b, &span) ||
        nla_add_overflows(span, 1, &span) ||
        nla_mul_overflows(span, (int64_t)elsize, &bytes) ||
        (uint64_t)bytes > (uint64_t)PTRDIFF_MAX || (uint64_t)bytes > (uint64_t)SIZE_MAX) {
        ck->status = nla_fail(ck->ctx, NLA_EINVAL, ck->fn,
                              "desc: the %s extent (howmany-1)*%sdist+(len-1)*%sstride+1 "
                              "overflows size_t", side, side[0] == 'i' ? "i" : "o",
                              side[0] == 'i' ? "i" : "o");
        return 1;
    }
    return 0;
}

/* Checks *d and writes the resolved copy to *r. */
static int chk_desc(nla_check *ck, const nla_fft_desc *d, nla_fft_desc *r)
{
    int64_t lin, lout;
    size_t real = d->precision == NLA_DOUBLE ? sizeof(double) : sizeof(float);
    size_t esin, esout;

    if (chk_enums(ck, d))
        return 1;
    if (d->n < 1)
        return (ck->status = nla_fail(ck->ctx, NLA_EINVAL, ck->fn,
                "desc->n (%lld) < 1", (long long)d->n)), 1;
    if (nla_chk_nonneg(ck, "desc->howmany", d->howmany) ||
        nla_chk_nonneg(ck, "desc->istride", d->istride) ||
        nla_chk_nonneg(ck, "desc->idist", d->idist) ||
        nla_chk_nonneg(ck, "desc->ostride", d->ostride) ||
        nla_chk_nonneg(ck, "desc->odist", d->odist))
        return 1;
    if (!isfinite(d->scale))
        return (ck->status = nla_fail(ck->ctx, NLA_EINVAL, ck->fn,
                "desc->scale (%g) is not finite", d->scale)), 1;
    *r = *d;
    lengths(d, &lin, &lout);
    r->howmany = d->howmany ? d->howmany : 1;
    r->istride = d->istride ? d->istride : 1;
    r->ostride = d->ostride ? d->ostride : 1;
    esin = real_in(d->kind) ? real : 2 * real;
    esout = real_out(d->kind) ? real : 2 * real;
    /* a default dist is one transform's extent; the extent checks below
       also cover these products */
    if (nla_mul_overflows(lin, r->istride, &r->idist) ||
        nla_mul_overflows(lout, r->ostride, &r->odist))
        return (ck->status = nla_fail(ck->ctx, NLA_EINVAL, ck->fn,
                "desc: the extent of one transform, length*stride, overflows "
                "int64_t")), 1;
    if (d->idist)
        r->idist = d->idist;
    if (d->odist)
        r->odist = d->odist;
    r->scale = d->scale != 0 ? d->scale : 1.0;
    if (chk_extent(ck, "input", lin, r->istride, r->idist, r->howmany, esin) ||
        chk_extent(ck, "output", lout, r->ostride, r->odist, r->howmany, esout))
        return 1;
    if (r->howmany > 1 && lout > 1 &&
        !(r->odist >= lout * r->ostride || r->ostride >= r->howmany * r->odist))
        return (ck->status = nla_fail(ck->ctx, NLA_EINVAL, ck->fn,
                "desc->odist (%lld) and desc->ostride (%lld): the %lld outputs "
                "of %lld elements overlap (need odist >= %lld*ostride or "
                "ostride >= howmany*odist)", (long long)r->odist,
                (long long)r->ostride, (long long)r->howmany, (long long)lout,
                (long long)lout)), 1;
    return 0;
}

/* An AUTO context that holds CUDA and the CPU.  Device data can only run
   on CUDA, so the CUDA plan is always made (unless CUDA declines the
   shape: NLA_ENOTSUP); host data runs where nla_auto_offload says, so the
   CPU plan is made too when it says CPU.  Executions choose by pointer. */
static nla_status plan_both(nla_context *ctx, const char *fn, nla_fft_plan *p)
{
    const nla_fft_desc *d = &p->desc;
    int64_t lin, lout;
    double real = d->precision == NLA_DOUBLE ? 8 : 4, flops, bytes;
    int host_on_gpu;
    nla_exec ex;
    nla_status s = NLA_ENOTSUP;

    lengths(d, &lin, &lout);
    flops = (d->kind == NLA_FFT_C2C ? 5.0 : 2.5) * (double)d->n * log2((double)d->n) *
            (double)d->howmany;
    bytes = real * (double)d->howmany *
            ((real_in(d->kind) ? 1.0 : 2.0) * (double)lin +
             (real_out(d->kind) ? 1.0 : 2.0) * (double)lout);
    host_on_gpu = nla_auto_offload(NLA_ROUTE_FFT, flops, bytes, nla_context_threads(ctx));
    p->probe = ctx->ops;
    p->probe_state = ctx->state;
    if (ctx->ops->fft_plan && ctx->ops->fft_execute && ctx->ops->fft_destroy) {
        nla_exec_init(&ex, ctx);
        s = ctx->ops->fft_plan(&ex, d, &p->impl);
        if (s != NLA_OK && s != NLA_ENOTSUP)
            return nla_exec_done(ctx, fn, s);
        if (s == NLA_OK)
            p->ops = ctx->ops;
        if (s == NLA_OK && host_on_gpu)
            return nla_exec_done(ctx, fn, s);
    }
    nla_exec_init(&ex, ctx);
    ex.state = ctx->cpu_state;
    ctx->last = NLA_BACKEND_CPU;
    s = ctx->cpu_ops->fft_plan(&ex, d, &p->cpu_impl);
    if (s != NLA_OK) {
        if (p->ops)
            p->ops->fft_destroy(p->impl);
        p->ops = NULL;
        return nla_exec_done(ctx, fn, s);
    }
    p->cpu_ops = ctx->cpu_ops;
    return nla_exec_done(ctx, fn, NLA_OK);
}

/* Plan creation for routine fn (nla_fft_plan_create or nla_fft_plan_1d);
   nt > 0: the plan runs on nt threads, not the context's count (a context
   of one backend; AUTO's CPU side keeps the context's count) */
static nla_status plan_create(nla_context *ctx, const char *fn, const nla_fft_desc *desc,
                              int nt, nla_fft_plan **plan)
{
    nla_check ck = NLA_CHECK_INIT(ctx, fn);
    nla_fft_desc r;
    nla_fft_plan *p;
    nla_exec ex;
    nla_status s;

    if (plan)
        *plan = NULL; /* a handle output is NULL after any failure (nla(3)) */
    if (nla_chk_ctx(&ck, ctx) || nla_chk_ptr(&ck, "desc", desc, 1) ||
        nla_chk_ptr(&ck, "plan", plan, 1) || chk_desc(&ck, desc, &r))
        return ck.status;
    if (r.kind == NLA_FFT_R2C || r.kind == NLA_FFT_REDFT10)
        r.direction = NLA_FFT_FORWARD;
    else if (r.kind == NLA_FFT_C2R || r.kind == NLA_FFT_REDFT01)
        r.direction = NLA_FFT_BACKWARD;
    nla_ok(ctx);
    if (!ctx->cpu_ops &&
        (!ctx->ops->fft_plan || !ctx->ops->fft_execute || !ctx->ops->fft_destroy))
        return nla_fail(ctx, NLA_ENOTSUP, fn, "the %s backend has no FFT",
                        ctx->ops->name);
    p = calloc(1, sizeof *p);
    if (!p)
        return nla_fail(ctx, NLA_ENOMEM, fn, "cannot allocate the plan");
    p->desc = r;
    if (ctx->cpu_ops) {
        s = plan_both(ctx, fn, p);
    } else {
        p->ops = ctx->ops;
        nla_exec_init(&ex, ctx);
        if (nt > 0)
            ex.nthreads = nt;
        s = nla_exec_done(ctx, fn, ctx->ops->fft_plan(&ex, &r, &p->impl));
    }
    if (s != NLA_OK) {
        free(p);
        return s;
    }
    p->magic = PLAN_MAGIC;
    *plan = p;
    return NLA_OK;
}

NLA_API nla_status nla_fft_plan_create(nla_context *ctx, const nla_fft_desc *desc,
                                       nla_fft_plan **plan)
{
    return plan_create(ctx, "nla_fft_plan_create", desc, 0, plan);
}

nla_status nla_fft_plan_create_as(nla_context *ctx, const char *fn, const nla_fft_desc *desc,
                                  int nt, nla_fft_plan **plan)
{
    return plan_create(ctx, fn, desc, nt, plan);
}

nla_status nla_fft_plan_wrap_nd(nla_context *ctx, const char *fn, const nla_fft_desc *sum,
                                struct nla_fft_nd *nd, nla_fft_plan **plan)
{
    nla_fft_plan *p = calloc(1, sizeof *p);
    if (!p)
        return nla_fail(ctx, NLA_ENOMEM, fn, "cannot allocate the plan");
    p->desc = *sum;
    p->nd = nd;
    p->magic = PLAN_MAGIC;
    *plan = p;
    nla_ok(ctx);
    return NLA_OK;
}

NLA_API nla_status nla_fft_plan_1d(nla_context *ctx, int64_t n, nla_fft_direction dir,
                                   nla_precision prec, nla_fft_plan **plan)
{
    static const char fn[] = "nla_fft_plan_1d";
    nla_check ck = NLA_CHECK_INIT(ctx, fn);
    nla_fft_desc d;

    if (plan)
        *plan = NULL; /* a handle output is NULL after any failure (nla(3)) */
    /* name this routine's own arguments, not the descriptor built from them */
    if (nla_chk_ctx(&ck, ctx))
        return ck.status;
    if (n < 1)
        return nla_fail(ctx, NLA_EINVAL, fn, "n (%lld) < 1", (long long)n);
    if (nla_fft_chk_dir(&ck, "dir", dir) || nla_fft_chk_prec(&ck, "prec", prec))
        return ck.status;
    /* the descriptor's extent check would otherwise name desc */
    if ((uint64_t)n > (uint64_t)PTRDIFF_MAX / (prec == NLA_DOUBLE ? 16 : 8))
        return nla_fail(ctx, NLA_EINVAL, fn, "n (%lld): n complex values overflow size_t",
                        (long long)n);
    memset(&d, 0, sizeof d);
    d.kind = NLA_FFT_C2C;
    d.precision = prec;
    d.direction = dir;
    d.n = n;
    return plan_create(ctx, fn, &d, 0, plan);
}

/* in == out: allowed for one transform, or when each transform's output
   occupies exactly the bytes of its own input (see nla.h). */
static int inplace_ok(const nla_fft_desc *d)
{
    if (d->howmany == 1)
        return 1;
    switch (d->kind) {
    case NLA_FFT_C2C:
    case NLA_FFT_REDFT10:
    case NLA_FFT_REDFT01: return d->istride == d->ostride && d->idist == d->odist;
    case NLA_FFT_R2C:
        return d->istride == 1 && d->ostride == 1 && d->idist == 2 * d->odist;
    default:
        return d->istride == 1 && d->ostride == 1 && d->odist == 2 * d->idist;
    }
}

/* AUTO plans: in or out is device memory */
static int on_device(const nla_fft_plan *p, const void *in, const void *out)
{
    return p->probe && p->probe->is_device_ptr &&
           (p->probe->is_device_ptr(p->probe_state, in) ||
            p->probe->is_device_ptr(p->probe_state, out));
}

/* Inlined in each entry point: the checks cost a few compares, so the
   smallest transforms are not dominated by the call path. */
static inline __attribute__((always_inline)) nla_status
execute(const char *fn, const nla_fft_plan *plan, const void *in, void *out, int typed,
        nla_fft_kind kind, nla_precision prec)
{
    char why[256];
    nla_status s;
    why[0] = '\0';  /* the backend writes a reason only on failure */
    if (!plan)
        return nla_fail(NULL, NLA_EINVAL, fn, "plan is NULL");
    if (plan->magic != PLAN_MAGIC)
        return nla_fail(NULL, NLA_EINVAL, fn, "plan is not a live FFT plan");
    /* the typed r2r executes take either DCT kind */
    if (typed && ((nla_fft_is_dct(kind) ? !nla_fft_is_dct(plan->desc.kind)
                                        : plan->desc.kind != kind) ||
                  plan->desc.precision != prec))
        return nla_fail(NULL, NLA_EINVAL, fn, "plan is a %s %s plan, not %s %s",
                        plan->desc.precision == NLA_DOUBLE ? "double" : "float",
                        kind_name(plan->desc.kind),
                        prec == NLA_DOUBLE ? "double" : "float",
                        nla_fft_is_dct(kind) ? "REDFT10 or REDFT01" : kind_name(kind));
    if (!in)
        return nla_fail(NULL, NLA_EINVAL, fn, "in is NULL");
    if (!out)
        return nla_fail(NULL, NLA_EINVAL, fn, "out is NULL");
    if (plan->nd) {
        if (in == out && !nla_fft_nd_inplace_ok(plan->nd))
            return nla_fail(NULL, NLA_EINVAL, fn,
                            "in == out, but this %s plan's idist and odist do not give "
                            "FFTW's in-place layout (see nla.h)", kind_name(plan->desc.kind));
        s = nla_fft_nd_execute(plan->nd, in, out);
        /* a failed step has said why (nla_last_error) */
        return s;
    }
    if (in == out && !inplace_ok(&plan->desc))
        return nla_fail(NULL, NLA_EINVAL, fn,
                        "in == out, but this %s plan's layout cannot run in place "
                        "(istride %lld, idist %lld, ostride %lld, odist %lld; see nla.h)",
                        kind_name(plan->desc.kind), (long long)plan->desc.istride,
                        (long long)plan->desc.idist, (long long)plan->desc.ostride,
                        (long long)plan->desc.odist);
    if (plan->cpu_ops && !on_device(plan, in, out))
        s = plan->cpu_ops->fft_execute(plan->cpu_impl, in, out, why, sizeof why);
    else if (plan->ops)
        s = plan->ops->fft_execute(plan->impl, in, out, why, sizeof why);
    else
        return nla_fail(NULL, NLA_ENOTSUP, fn, "in or out is %s memory, but this plan "
                        "runs on the cpu only (the %s backend has no FFT of this shape)",
                        plan->probe->name, plan->probe->name);
    if (s != NLA_OK)
        return nla_fail(NULL, s, fn, "%s", why[0] ? why : nla_strerror(s));
    return NLA_OK;
}

NLA_API nla_status nla_fft_execute(const nla_fft_plan *plan, const void *in, void *out)
{
    return execute("nla_fft_execute", plan, in, out, 0, NLA_FFT_C2C, NLA_DOUBLE);
}

#define TYPED(name, T, K, PREC)                                                \
    NLA_API nla_status nla_fft_execute_##name(const nla_fft_plan *plan,        \
                                              const T *in, T *out)             \
    {                                                                          \
        return execute("nla_fft_execute_" #name, plan, in, out, 1, K, PREC);   \
    }
TYPED(c2c_d, double, NLA_FFT_C2C, NLA_DOUBLE)
TYPED(c2c_s, float, NLA_FFT_C2C, NLA_FLOAT)
TYPED(r2c_d, double, NLA_FFT_R2C, NLA_DOUBLE)
TYPED(r2c_s, float, NLA_FFT_R2C, NLA_FLOAT)
TYPED(c2r_d, double, NLA_FFT_C2R, NLA_DOUBLE)
TYPED(c2r_s, float, NLA_FFT_C2R, NLA_FLOAT)
TYPED(r2r_d, double, NLA_FFT_REDFT10, NLA_DOUBLE)
TYPED(r2r_s, float, NLA_FFT_REDFT10, NLA_FLOAT)

NLA_API void nla_fft_plan_destroy(nla_fft_plan *plan)
{
    if (!plan || plan->magic != PLAN_MAGIC)
        return;
    plan->magic = 0;
    if (plan->ops)
        plan->ops->fft_destroy(plan->impl);
    if (plan->cpu_ops)
        plan->cpu_ops->fft_destroy(plan->cpu_impl);
    nla_fft_nd_free(plan->nd);
    free(plan);
}
