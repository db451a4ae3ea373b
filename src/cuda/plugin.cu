/*
 * plugin.cu - libnla-cuda.so: the CUDA backend's table (src/core/backend.h).
 *
 * libnla opens this file with dlopen the first time a context asks for
 * CUDA; it exports nla_plugin_abi and nla_plugin_ops only (everything else,
 * the static CUDA runtime included, is hidden).  The front end has checked
 * every argument before an entry here runs.
 *
 * Contexts.  Each context has its own non-blocking stream (or the caller's,
 * nla_context_set_stream: then it queues its work there), a device
 * workspace grown on demand (staged copies of host arrays and the level-2
 * kernels' partial sums), and two pinned host buffers for staging.  No
 * managed memory.
 *
 * Memory.  A pointer is device memory when cudaPointerGetAttributes says so
 * (nla_malloc on a CUDA context, or any cudaMalloc'ed pointer).  Device
 * pointers are used in place and the call is asynchronous: it returns once
 * the work is queued on the context's stream (nla_context_synchronize
 * waits).  Host pointers are staged: the device copy mirrors the host
 * array's layout (same leading dimensions, strides and offsets, so the
 * kernels see the caller's arguments), but only the elements the routine
 * reads are copied in and only those it writes are copied back, so host
 * memory between strided elements is never touched.  Copies go through the
 * pinned buffers in chunks, the host-side copy of one chunk overlapping
 * the DMA of the other.  A call with any host pointer returns when its
 * results are back on the host.
 *
 * FFT plans.  A plan keeps the creating context's state (nla.h: the
 * context outlives its plans), its own device scratch and staging buffers,
 * and a mutex.  An execution takes the mutex while it queues its work on
 * the context's stream, so executions from several threads are each
 * queued whole and the stream runs them one after another over the one
 * scratch buffer; with device pointers it returns once queued (ordered
 * with the context's other work, asynchronous like every device call), with
 * host pointers it stages and waits, still holding the mutex.  The GPU
 * runs one stream's work in order anyway, so serialising costs little.
 *
 * Errors.  A failing CUDA call maps to NLA_ENOMEM (cudaErrorMemoryAllocation)
 * or NLA_EDEVICE, and its error string goes to the context's message.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "cuda_kernels.h"

#define STAGE_CHUNK ((size_t)8 << 20) /* bytes per pinned buffer; two per owner */
#define WORK_ALIGN ((size_t)256)

namespace {

/* ---------------------------------------------------------------- errors */

nla_status status_of(cudaError_t e)
{
    return e == cudaErrorMemoryAllocation ? NLA_ENOMEM
           : e == cudaErrorNotSupported   ? NLA_ENOTSUP
                                          : NLA_EDEVICE;
}

/* The status of e, its description in msg (if any); clears e unless it
   is sticky. */
nla_status fail_msg(char *msg, size_t msglen, cudaError_t e, const char *what)
{
    cudaGetLastError();
    if (msg && msglen)
        snprintf(msg, msglen, "CUDA error in %s: %s (%s)", what, cudaGetErrorString(e),
                 cudaGetErrorName(e));
    return status_of(e);
}

nla_status fail(const nla_exec *ex, cudaError_t e, const char *what)
{
    return fail_msg(ex ? ex->msg : NULL, ex ? ex->msglen : 0, e, what);
}

#define CU(call, what)                                                         \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess)                                                 \
            return fail(ex, e_, what);                                         \
    } while (0)

/* --------------------------------------------------------------- staging */

/* Two pinned host buffers, each with the event of the last DMA that used it. */
struct pinned {
    char *buf[2];
    cudaEvent_t ev[2];
    int pending[2];
};

cudaError_t pinned_ready(pinned *p)
{
    cudaError_t e = cudaSuccess;
    for (int b = 0; b < 2 && e == cudaSuccess; b++) {
        if (!p->buf[b])
            e = cudaHostAlloc((void **)&p->buf[b], STAGE_CHUNK, cudaHostAllocDefault);
        if (e == cudaSuccess && !p->ev[b])
            e = cudaEventCreateWithFlags(&p->ev[b], cudaEventDisableTiming);
    }
    return e;
}

void pinned_free(pinned *p)
{
    for (int b = 0; b < 2; b++) {
        if (p->ev[b])
            cudaEventSynchronize(p->ev[b]);
        if (p->buf[b])
            cudaFreeHost(p->buf[b]);
        if (p->ev[b])
            cudaEventDestroy(p->ev[b]);
        p->buf[b] = NULL;
        p->ev[b] = NULL;
    }
}

/* The elements of a host array a routine reads or writes: nmat blocks
   mstride elements apart, each nrun runs of rlen contiguous elements
   rstride apart (rstride >= rlen).  base is the array's lowest address; the
   device copy has the same layout from its own base. */
struct runs {
    char *base;
    size_t es;
    int64_t rlen, nrun, rstride, nmat, mstride;
};

int64_t span_elems(const runs *r)
{
    return (r->nmat - 1) * r->mstride + (r->nrun - 1) * r->rstride + r->rlen;
}

runs make_runs(const void *base, size_t es, int64_t rlen, int64_t nrun, int64_t rstride,
               int64_t nmat, int64_t mstride)
{
    runs r;
    r.base = (char *)base;
    r.es = es;
    r.rlen = rlen;
    r.nrun = nrun;
    r.rstride = rstride;
    r.nmat = nmat;
    r.mstride = mstride;
    if (r.nrun == 1 || r.rstride == r.rlen) { /* contiguous runs: one run */
        r.rlen *= r.nrun;
        r.nrun = 1;
        r.rstride = r.rlen;
    }
    if (r.nrun == 1 && (r.nmat == 1 || r.mstride == r.rlen)) {
        r.rlen *= r.nmat;
        r.nmat = 1;
        r.rstride = r.mstride = r.rlen;
    }
    return r;
}

/* a BLAS vector: len elements inc apart, from its lowest address */
runs vec_runs(const void *p, size_t es, int64_t len, int64_t inc)
{
    return make_runs(p, es, 1, len, inc < 0 ? -inc : inc, 1, 0);
}

/* One copy: rows pieces of width bytes, pitch bytes apart, from byte off. */
struct piece {
    size_t off, width, pitch;
    int64_t rows;
};

/* Walks a runs in pieces that fit one pinned buffer. */
struct piece_it {
    const runs *r;
    int64_t mat, run;
    size_t sub; /* bytes of the current run already done (runs > a buffer) */
};

bool next_piece(piece_it *it, piece *p)
{
    const runs *r = it->r;
    const size_t rb = (size_t)r->rlen * r->es;
    if (it->mat >= r->nmat)
        return false;
    p->off = ((size_t)it->mat * (size_t)r->mstride + (size_t)it->run * (size_t)r->rstride) *
             r->es;
    if (rb > STAGE_CHUNK) {
        p->off += it->sub;
        p->width = rb - it->sub < STAGE_CHUNK ? rb - it->sub : STAGE_CHUNK;
        p->pitch = p->width;
        p->rows = 1;
        it->sub += p->width;
        if (it->sub < rb)
            return true;
        it->sub = 0;
        it->run++;
    } else {
        int64_t k = (int64_t)(STAGE_CHUNK / rb);
        if (k > r->nrun - it->run)
            k = r->nrun - it->run;
        p->width = rb;
        p->pitch = (size_t)r->rstride * r->es;
        p->rows = k;
        it->run += k;
    }
    if (it->run == r->nrun) {
        it->run = 0;
        it->mat++;
    }
    return true;
}

/* host elements -> the device mirror at dev, queued on st.  Returns with
   the last copies in flight; the pinned buffers' events track them. */
cudaError_t stage_in(pinned *pin, cudaStream_t st, void *dev, const runs *r)
{
    piece_it it = { r, 0, 0, 0 };
    piece p;
    cudaError_t e = pinned_ready(pin);
    for (int i = 0; e == cudaSuccess && next_piece(&it, &p); i++) {
        const int b = i & 1;
        if (pin->pending[b] && (e = cudaEventSynchronize(pin->ev[b])) != cudaSuccess)
            break;
        pin->pending[b] = 0;
        for (int64_t k = 0; k < p.rows; k++)
            memcpy(pin->buf[b] + k * p.width, r->base + p.off + k * p.pitch, p.width);
        e = cudaMemcpy2DAsync((char *)dev + p.off, p.pitch, pin->buf[b], p.width, p.width,
                              (size_t)p.rows, cudaMemcpyHostToDevice, st);
        if (e == cudaSuccess)
            e = cudaEventRecord(pin->ev[b], st);
        pin->pending[b] = e == cudaSuccess;
    }
    return e;
}

/* the device mirror at dev -> host elements, after the work queued on st;
   returns when they are on the host */
cudaError_t stage_out(pinned *pin, cudaStream_t st, const runs *r, const void *dev)
{
    piece_it it = { r, 0, 0, 0 };
    piece p[2];
    int have_prev = 0;
    cudaError_t e = pinned_ready(pin);
    for (int i = 0; e == cudaSuccess; i++) {
        const int b = i & 1;
        const bool more = next_piece(&it, &p[b]);
        if (more) {
            /* buffer b's last reader is done: stage_in waits, stage_out
               scattered it one iteration ago */
            if (pin->pending[b] && (e = cudaEventSynchronize(pin->ev[b])) != cudaSuccess)
                break;
            e = cudaMemcpy2DAsync(pin->buf[b], p[b].width, (const char *)dev + p[b].off,
                                  p[b].pitch, p[b].width, (size_t)p[b].rows,
                                  cudaMemcpyDeviceToHost, st);
            if (e == cudaSuccess)
                e = cudaEventRecord(pin->ev[b], st);
            pin->pending[b] = e == cudaSuccess;
            if (e != cudaSuccess)
                break;
        }
        if (have_prev) {
            const int a = b ^ 1;
            if ((e = cudaEventSynchronize(pin->ev[a])) != cudaSuccess)
                break;
            pin->pending[a] = 0;
            for (int64_t k = 0; k < p[a].rows; k++)
                memcpy(r->base + p[a].off + k * p[a].pitch, pin->buf[a] + k * p[a].width,
                       p[a].width);
        }
        if (!more)
            break;
        have_prev = 1;
    }
    return e;
}

/* ---------------------------------------------------------------- state */

struct cu_state {
    int device, sms;
    cudaStream_t stream; /* where the work goes: own, or the caller's */
    cudaStream_t own;
    void *work; /* device workspace */
    size_t work_bytes;
    pinned pin;
};

int is_device(const void *p)
{
    cudaPointerAttributes at;
    if (!p)
        return 0;
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return at.type == cudaMemoryTypeDevice || at.type == cudaMemoryTypeManaged;
}

size_t round_up(size_t v)
{
    return (v + WORK_ALIGN - 1) / WORK_ALIGN * WORK_ALIGN;
}

/* the workspace, at least bytes; growing it waits for the stream */
nla_status workspace(const nla_exec *ex, cu_state *st, size_t bytes)
{
    size_t want;
    cudaError_t e;
    if (bytes <= st->work_bytes)
        return NLA_OK;
    CU(cudaStreamSynchronize(st->stream), "cudaStreamSynchronize");
    cudaFree(st->work);
    st->work = NULL;
    st->work_bytes = 0;
    want = round_up(bytes + bytes / 4);
    if (want < ((size_t)1 << 20))
        want = (size_t)1 << 20;
    e = cudaMalloc(&st->work, want);
    if (e != cudaSuccess) {
        cudaGetLastError();
        want = round_up(bytes);
        e = cudaMalloc(&st->work, want);
    }
    if (e != cudaSuccess) {
        st->work = NULL;
        return fail(ex, e, "cudaMalloc (workspace)");
    }
    st->work_bytes = want;
    return NLA_OK;
}

/* The arrays of one call.  A host array (not device memory, not NULL) gets
   a mirror in the workspace: dev is where the kernels find it. */
struct arg {
    const void *p; /* as the caller passed it */
    runs r;
    int in, out;   /* the routine reads / writes it */
    int staged;
    void *dev;
};

struct call {
    cu_state *st;
    arg a[3];
    int n;
    int staged;       /* any */
    void *scratch;    /* after the mirrors */
    size_t scratch_bytes;
};

void call_arg(call *c, const void *p, runs r, int in, int out)
{
    arg *a = &c->a[c->n++];
    a->p = p;
    a->r = r;
    a->in = in;
    a->out = out;
    a->staged = 0;
    a->dev = (void *)p;
}

/* mirrors and scratch in the workspace, host inputs copied in */
nla_status call_begin(const nla_exec *ex, call *c, size_t scratch)
{
    cu_state *st = c->st;
    size_t total = 0, off = 0;
    nla_status s;
    CU(cudaSetDevice(st->device), "cudaSetDevice");
    c->staged = 0;
    for (int i = 0; i < c->n; i++) {
        arg *a = &c->a[i];
        a->staged = a->p && (a->in || a->out) && !is_device(a->p);
        if (a->staged)
            total += round_up((size_t)span_elems(&a->r) * a->r.es);
        c->staged |= a->staged;
    }
    total += round_up(scratch);
    if ((s = workspace(ex, st, total)) != NLA_OK)
        return s;
    for (int i = 0; i < c->n; i++) {
        arg *a = &c->a[i];
        if (!a->staged)
            continue;
        /* the caller's pointer sits at the same offset in the mirror */
        a->dev = (char *)st->work + off + ((const char *)a->p - a->r.base);
        if (a->in)
            CU(stage_in(&st->pin, st->stream, (char *)st->work + off, &a->r), "staging to the device");
        off += round_up((size_t)span_elems(&a->r) * a->r.es);
    }
    c->scratch = scratch ? (char *)st->work + off : NULL;
    c->scratch_bytes = scratch;
    return NLA_OK;
}

/* after the kernels: host outputs copied back; a staged call waits */
nla_status call_end(const nla_exec *ex, call *c, cudaError_t launched)
{
    cu_state *st = c->st;
    CU(launched, "a kernel launch");
    if (!c->staged)
        return NLA_OK;
    for (int i = 0; i < c->n; i++) {
        arg *a = &c->a[i];
        if (a->staged && a->out)
            CU(stage_out(&st->pin, st->stream, &a->r,
                         (char *)a->dev - ((const char *)a->p - a->r.base)),
               "staging to the host");
    }
    CU(cudaStreamSynchronize(st->stream), "cudaStreamSynchronize");
    return NLA_OK;
}

nla_cuda_launch launch_of(const call *c)
{
    nla_cuda_launch L;
    L.stream = c->st->stream;
    L.sms = c->st->sms;
    L.scratch = c->scratch;
    L.scratch_bytes = c->scratch_bytes;
    return L;
}

/* ------------------------------------------------------------- backend */

int cu_available(char *why, size_t len)
{
    int n = 0, dev = 0, major = 0, minor = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        /* no driver gives cudaErrorInsufficientDriver (35), not NoDevice;
           the runtime is linked statically, so the driver must support its
           version (CUDA 13: R580 or newer) */
        int drv = 0;
        cudaDriverGetVersion(&drv);
        char have[32] = "none";
        if (drv > 0)
            snprintf(have, sizeof have, "CUDA %d.%d", drv / 1000, drv % 1000 / 10);
        snprintf(why, len, "no usable CUDA driver or device: %s; the plugin needs a driver "
                 "for CUDA %d.%d+ (R580+), this one: %s", cudaGetErrorName(e),
                 CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, have);
        cudaGetLastError();
        return 0;
    }
    if (n == 0) {
        snprintf(why, len, "no CUDA device");
        return 0;
    }
    if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)) !=
            cudaSuccess ||
        (e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev)) !=
            cudaSuccess) {
        snprintf(why, len, "CUDA device %d cannot be queried: %s", dev, cudaGetErrorString(e));
        cudaGetLastError();
        return 0;
    }
    if (major < 9) {
        snprintf(why, len, "CUDA device %d has compute capability %d.%d; libnla-cuda.so "
                 "is built for 9.0 and later", dev, major, minor);
        return 0;
    }
    return 1;
}

nla_status cu_ctx_init(void **state)
{
    cu_state *st = (cu_state *)calloc(1, sizeof *st);
    cudaError_t e;
    if (!st)
        return NLA_ENOMEM;
    if ((e = cudaGetDevice(&st->device)) != cudaSuccess ||
        (e = cudaSetDevice(st->device)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&st->sms, cudaDevAttrMultiProcessorCount, st->device)) !=
            cudaSuccess ||
        (e = cudaStreamCreateWithFlags(&st->own, cudaStreamNonBlocking)) != cudaSuccess) {
        cudaGetLastError();
        free(st);
        return status_of(e);
    }
    st->stream = st->own;
    *state = st;
    return NLA_OK;
}

/* the caller's stream keeps running; only the context's own goes */
void cu_ctx_fini(void *state)
{
    cu_state *st = (cu_state *)state;
    cudaSetDevice(st->device);
    cudaStreamSynchronize(st->stream);
    cudaStreamSynchronize(st->own);
    pinned_free(&st->pin);
    cudaFree(st->work);
    cudaStreamDestroy(st->own);
    free(st);
}

/* The work queued so far finishes first: the workspace and the staging
   buffers are then free for work on the new stream.  cudaStreamGetFlags
   rejects a handle the runtime does not know (as far as it can tell). */
nla_status cu_set_stream(const nla_exec *ex, void *stream)
{
    cu_state *st = (cu_state *)ex->state;
    cudaStream_t next = stream ? (cudaStream_t)stream : st->own;
    unsigned flags;
    CU(cudaSetDevice(st->device), "cudaSetDevice");
    CU(cudaStreamGetFlags(next, &flags), "the stream");
    CU(cudaStreamSynchronize(st->stream), "cudaStreamSynchronize");
    st->stream = next;
    return NLA_OK;
}

void *cu_stream(void *state)
{
    return (void *)((cu_state *)state)->stream;
}

nla_status cu_alloc(const nla_exec *ex, void **ptr, size_t bytes)
{
    cu_state *st = (cu_state *)ex->state;
    void *p = NULL;
    CU(cudaSetDevice(st->device), "cudaSetDevice");
    CU(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
    *ptr = p;
    return NLA_OK;
}

void cu_free(void *state, void *ptr)
{
    cudaSetDevice(((cu_state *)state)->device);
    cudaFree(ptr); /* waits for the device */
}

/* host -> device (or any direction cudaMemcpyDefault knows); waits */
nla_status cu_copy(const nla_exec *ex, void *dst, const void *src, size_t bytes)
{
    cu_state *st = (cu_state *)ex->state;
    int ddev, sdev;
    CU(cudaSetDevice(st->device), "cudaSetDevice");
    ddev = is_device(dst);
    sdev = is_device(src);
    if (!ddev && !sdev) {
        /* both host: after the work queued before this call */
        CU(cudaStreamSynchronize(st->stream), "cudaStreamSynchronize");
        memmove(dst, src, bytes);
        return NLA_OK;
    }
    if (ddev && !sdev) {
        runs r = make_runs(src, 1, (int64_t)bytes, 1, (int64_t)bytes, 1, 0);
        CU(stage_in(&st->pin, st->stream, dst, &r), "staging to the device");
    } else if (!ddev) {
        runs r = make_runs(dst, 1, (int64_t)bytes, 1, (int64_t)bytes, 1, 0);
        CU(stage_out(&st->pin, st->stream, &r, src), "staging to the host");
    } else {
        CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st->stream),
           "cudaMemcpyAsync");
    }
    CU(cudaStreamSynchronize(st->stream), "cudaStreamSynchronize");
    return NLA_OK;
}

nla_status cu_sync(const nla_exec *ex)
{
    cu_state *st = (cu_state *)ex->state;
    CU(cudaSetDevice(st->device), "cudaSetDevice");
    CU(cudaStreamSynchronize(st->stream), "cudaStreamSynchronize");
    return NLA_OK;
}

int cu_is_device_ptr(void *state, const void *p)
{
    (void)state;
    return is_device(p);
}

/* --------------------------------------------------------------- BLAS */

#define L2_OVERLOADS(T, p)                                                     \
    cudaError_t l2_gemv(const nla_cuda_launch *L, int t, int64_t m, int64_t n, \
        T al, const T *a, int64_t lda, const T *x, int64_t ix, T be, T *y,     \
        int64_t iy)                                                            \
    {                                                                          \
        return nla_cuda_gemv_##p(L, t, m, n, al, a, lda, x, ix, be, y, iy);    \
    }                                                                          \
    cudaError_t l2_gbmv(const nla_cuda_launch *L, int t, int64_t m, int64_t n, \
        int64_t kl, int64_t ku, T al, const T *ab, int64_t ldab, const T *x,   \
        int64_t ix, T be, T *y, int64_t iy)                                    \
    {                                                                          \
        return nla_cuda_gbmv_##p(L, t, m, n, kl, ku, al, ab, ldab, x, ix, be,  \
                                 y, iy);                                       \
    }                                                                          \
    cudaError_t l2_spmv(const nla_cuda_launch *L, int up, int64_t n, T al,     \
        const T *ap, const T *x, int64_t ix, T be, T *y, int64_t iy)           \
    {                                                                          \
        return nla_cuda_spmv_##p(L, up, n, al, ap, x, ix, be, y, iy);          \
    }                                                                          \
    cudaError_t gemm_kernel(cudaStream_t st, int ta, int tb, int64_t m,        \
        int64_t n, int64_t k, T al, const T *a, int64_t lda, int64_t sa,       \
        const T *b, int64_t ldb, int64_t sb, T be, T *c, int64_t ldc,          \
        int64_t sc, int64_t batch)                                             \
    {                                                                          \
        return nla_cuda_gemm_##p(st, ta, tb, m, n, k, al, a, lda, sa, b, ldb,  \
                                 sb, be, c, ldc, sc, batch);                   \
    }
L2_OVERLOADS(double, d)
L2_OVERLOADS(float, s)

/* gemv (kl < 0) or gbmv: the matrix's rows the routine reads in every
   column (all m, or the band's kl + ku + 1: nla.h's extent), x and y */
template <typename T>
nla_status cu_gemv_gbmv(const nla_exec *ex, nla_trans trans, int64_t m, int64_t n,
                        int64_t kl, int64_t ku, T alpha, const T *a, int64_t lda,
                        const T *x, int64_t incx, T beta, T *y, int64_t incy)
{
    call c;
    nla_cuda_launch L;
    nla_status s;
    const int t = trans == NLA_TRANS, band = kl >= 0;
    const int64_t lx = t ? m : n, ly = t ? n : m;
    const int rd = alpha != T(0);
    c.st = (cu_state *)ex->state;
    c.n = 0;
    call_arg(&c, rd ? a : NULL, make_runs(a, sizeof(T), band ? kl + ku + 1 : m, n, lda, 1, 0),
             rd, 0);
    call_arg(&c, rd ? x : NULL, vec_runs(x, sizeof(T), lx, incx), rd, 0);
    call_arg(&c, y, vec_runs(y, sizeof(T), ly, incy), beta != T(0), 1);
    if ((s = call_begin(ex, &c,
                        band ? nla_cuda_gbmv_scratch(c.st->sms, t, m, n, kl, ku, sizeof(T))
                             : nla_cuda_gemv_scratch(c.st->sms, t, m, n, sizeof(T)))) != NLA_OK)
        return s;
    L = launch_of(&c);
    const T *da = (const T *)c.a[0].dev, *dx = (const T *)c.a[1].dev;
    T *dy = (T *)c.a[2].dev;
    return call_end(ex, &c,
                    band ? l2_gbmv(&L, t, m, n, kl, ku, alpha, da, lda, dx, incx, beta, dy, incy)
                         : l2_gemv(&L, t, m, n, alpha, da, lda, dx, incx, beta, dy, incy));
}

template <typename T>
nla_status cu_gemv(const nla_exec *ex, nla_trans trans, int64_t m, int64_t n, T alpha,
                   const T *a, int64_t lda, const T *x, int64_t incx, T beta, T *y,
                   int64_t incy)
{
    return cu_gemv_gbmv<T>(ex, trans, m, n, -1, -1, alpha, a, lda, x, incx, beta, y, incy);
}

template <typename T>
nla_status cu_gbmv(const nla_exec *ex, nla_trans trans, int64_t m, int64_t n, int64_t kl,
                   int64_t ku, T alpha, const T *ab, int64_t ldab, const T *x, int64_t incx,
                   T beta, T *y, int64_t incy)
{
    return cu_gemv_gbmv<T>(ex, trans, m, n, kl, ku, alpha, ab, ldab, x, incx, beta, y, incy);
}

template <typename T>
nla_status cu_spmv(const nla_exec *ex, nla_uplo uplo, int64_t n, T alpha, const T *ap,
                   const T *x, int64_t incx, T beta, T *y, int64_t incy)
{
    call c;
    nla_cuda_launch L;
    nla_status s;
    const int rd = alpha != T(0);
    c.st = (cu_state *)ex->state;
    c.n = 0;
    call_arg(&c, rd ? ap : NULL, make_runs(ap, sizeof(T), n * (n + 1) / 2, 1, 0, 1, 0), rd, 0);
    call_arg(&c, rd ? x : NULL, vec_runs(x, sizeof(T), n, incx), rd, 0);
    call_arg(&c, y, vec_runs(y, sizeof(T), n, incy), beta != T(0), 1);
    if ((s = call_begin(ex, &c, rd ? nla_cuda_spmv_scratch(c.st->sms, n, sizeof(T)) : 0)) !=
        NLA_OK)
        return s;
    L = launch_of(&c);
    return call_end(ex, &c, l2_spmv(&L, uplo == NLA_UPPER, n, alpha, (const T *)c.a[0].dev,
                                    (const T *)c.a[1].dev, incx, beta, (T *)c.a[2].dev,
                                    incy));
}

template <typename T>
nla_status cu_gemm(const nla_exec *ex, nla_trans transa, nla_trans transb, int64_t m,
                   int64_t n, int64_t k, T alpha, const T *a, int64_t lda, int64_t sa,
                   const T *b, int64_t ldb, int64_t sb, T beta, T *c_, int64_t ldc,
                   int64_t sc, int64_t batch)
{
    call c;
    nla_status s;
    const int ta = transa == NLA_TRANS, tb = transb == NLA_TRANS;
    const int rd = alpha != T(0) && k > 0;
    const int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    c.st = (cu_state *)ex->state;
    c.n = 0;
    call_arg(&c, rd ? a : NULL,
             make_runs(a, sizeof(T), ar, ac, lda, sa ? batch : 1, sa), rd, 0);
    call_arg(&c, rd ? b : NULL,
             make_runs(b, sizeof(T), br, bc, ldb, sb ? batch : 1, sb), rd, 0);
    call_arg(&c, c_, make_runs(c_, sizeof(T), m, n, ldc, sc ? batch : 1, sc), beta != T(0), 1);
    if ((s = call_begin(ex, &c, 0)) != NLA_OK)
        return s;
    return call_end(ex, &c, gemm_kernel(c.st->stream, ta, tb, m, n, k, alpha,
                                        (const T *)c.a[0].dev, lda, sa,
                                        (const T *)c.a[1].dev, ldb, sb, beta,
                                        (T *)c.a[2].dev, ldc, sc, batch));
}

/* ---------------------------------------------------------------- FFT */

struct cu_fft {
    cu_state *st;           /* the creating context's */
    nla_fft_desc d;
    nla_cuda_fft *plan;
    size_t work_bytes;      /* scratch of one execution */
    void *work;             /* that scratch (device) */
    void *stage;            /* host executions: device mirrors of in and out */
    size_t stage_bytes;
    pinned pin;
    pthread_mutex_t lock;
};

/* the elements of one side of a transform, as runs */
runs fft_runs(const nla_fft_desc *d, const void *p, int out)
{
    const size_t real = d->precision == NLA_DOUBLE ? sizeof(double) : sizeof(float);
    const int64_t half = d->n / 2 + 1;
    const int64_t len = out ? (d->kind == NLA_FFT_R2C ? half : d->n)
                            : (d->kind == NLA_FFT_C2R ? half : d->n);
    const size_t es = (out ? d->kind == NLA_FFT_C2R : d->kind == NLA_FFT_R2C) ? real
                                                                              : 2 * real;
    const int64_t stride = out ? d->ostride : d->istride;
    const int64_t dist = out ? d->odist : d->idist;
    if (stride == 1)
        return make_runs(p, es, len, 1, len, d->howmany, dist);
    /* a batch of transforms element-interleaved (stride > dist) or strided */
    return make_runs(p, es, 1, len, stride, d->howmany, dist);
}

nla_status cu_fft_plan(const nla_exec *ex, const nla_fft_desc *desc, void **impl)
{
    cu_state *st = (cu_state *)ex->state;
    cu_fft *f;
    cudaError_t e;
    /* no DCT here: an AUTO context then plans it on the CPU */
    if (desc->kind != NLA_FFT_C2C && desc->kind != NLA_FFT_R2C && desc->kind != NLA_FFT_C2R) {
        snprintf(ex->msg, ex->msglen, "the cuda backend has no real-to-real (REDFT) transform");
        return NLA_ENOTSUP;
    }
    CU(cudaSetDevice(st->device), "cudaSetDevice");
    f = (cu_fft *)calloc(1, sizeof *f);
    if (!f)
        return NLA_ENOMEM;
    f->st = st;
    f->d = *desc;
    if ((e = nla_cuda_fft_create(desc, &f->plan)) != cudaSuccess) {
        free(f);
        return fail(ex, e, "nla_cuda_fft_create");
    }
    f->work_bytes = nla_cuda_fft_workspace(f->plan);
    if (f->work_bytes && (e = cudaMalloc(&f->work, f->work_bytes)) != cudaSuccess) {
        nla_cuda_fft_destroy(f->plan);
        free(f);
        return fail(ex, e, "cudaMalloc (FFT scratch)");
    }
    pthread_mutex_init(&f->lock, NULL);
    *impl = f;
    return NLA_OK;
}

/* host (or mixed) execution, under f->lock */
cudaError_t fft_staged(cu_fft *f, const void *in, void *out, int din, int dout)
{
    cu_state *st = f->st;
    runs ri = fft_runs(&f->d, in, 0), ro = fft_runs(&f->d, out, 1);
    const size_t bi = (size_t)span_elems(&ri) * ri.es, bo = (size_t)span_elems(&ro) * ro.es;
    /* in place: one mirror for both (same base) */
    const int inplace = in == out;
    const size_t need = inplace ? (bi > bo ? bi : bo) : round_up(bi) + round_up(bo);
    const void *dev_in = in;
    void *dev_out = out;
    cudaError_t e;

    if (need > f->stage_bytes) {
        cudaFree(f->stage); /* waits for the device */
        f->stage = NULL;
        f->stage_bytes = 0;
        if ((e = cudaMalloc(&f->stage, need)) != cudaSuccess)
            return e;
        f->stage_bytes = need;
    }
    if (!din) {
        dev_in = f->stage;
        if ((e = stage_in(&f->pin, st->stream, f->stage, &ri)) != cudaSuccess)
            return e;
    }
    if (!dout)
        dev_out = inplace ? f->stage : (char *)f->stage + round_up(bi);
    if ((e = nla_cuda_fft_exec(f->plan, st->stream, dev_in, dev_out, f->work)) != cudaSuccess)
        return e;
    if (!dout)
        return stage_out(&f->pin, st->stream, &ro, dev_out);
    return cudaStreamSynchronize(st->stream);
}

nla_status cu_fft_execute(const void *impl, const void *in, void *out, char *msg,
                          size_t msglen)
{
    cu_fft *f = (cu_fft *)impl;
    const int din = is_device(in), dout = is_device(out);
    cudaError_t e = cudaSetDevice(f->st->device);
    if (e != cudaSuccess)
        return fail_msg(msg, msglen, e, "cudaSetDevice");
    pthread_mutex_lock(&f->lock);
    if (din && dout)
        e = nla_cuda_fft_exec(f->plan, f->st->stream, in, out, f->work);
    else
        e = fft_staged(f, in, out, din, dout);
    pthread_mutex_unlock(&f->lock);
    if (e != cudaSuccess)
        return fail_msg(msg, msglen, e, din && dout ? "the FFT" : "the FFT (staged through the device)");
    return NLA_OK;
}

void cu_fft_destroy(void *impl)
{
    cu_fft *f = (cu_fft *)impl;
    cudaSetDevice(f->st->device);
    cudaStreamSynchronize(f->st->stream); /* queued executions use the plan */
    pinned_free(&f->pin);
    cudaFree(f->stage);
    cudaFree(f->work);
    nla_cuda_fft_destroy(f->plan);
    pthread_mutex_destroy(&f->lock);
    free(f);
}

/* -------------------------------------------------------- Frank-Wolfe */

/* Between fw.cu's loop and the caller's hook: x_t to the host first when
   the caller asked for it. */
struct fw_hook_ctx {
    nla_fw_dev_hook hook;
    void *user;
    double *xhost;
    size_t bytes;
    cudaStream_t stream;
    int device;
    cudaError_t err;
};

int fw_hook_adapter(void *u, const nla_fw_dev_iter *it)
{
    fw_hook_ctx *h = (fw_hook_ctx *)u;
    nla_fw_dev_iter mine = *it;
    mine.x = NULL;
    if (h->xhost) {
        cudaError_t e = cudaMemcpyAsync(h->xhost, it->x, h->bytes, cudaMemcpyDeviceToHost,
                                        h->stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(h->stream);
        if (e != cudaSuccess) {
            h->err = e;
            return NLA_FW_DEV_STOP;
        }
        mine.x = h->xhost;
    }
    int act = h->hook(h->user, &mine);
    /* the caller's callback may have made another device current (a
       context on another GPU, cudaSetDevice): the loop's stream is on ours */
    cudaError_t e = cudaSetDevice(h->device);
    if (e != cudaSuccess) {
        h->err = e;
        return NLA_FW_DEV_STOP;
    }
    return act;
}

/* The solve in its own device allocation (a hook that calls libnla on this
   context may grow the context's workspace): mirrors of the host arrays,
   the working x, fw.cu's workspace.  The caller's x is written last, and
   only when everything succeeded. */
nla_status cu_fw_solve(const nla_exec *ex, const nla_fw_dev_problem *p, double *x,
                       double *xhost, nla_fw_dev_hook hook, void *user)
{
    cu_state *st = (cu_state *)ex->state;
    nla_fw_dev_problem q = *p;
    const int64_t n = p->cols, rows = p->rows;
    const size_t xb = (size_t)n * sizeof(double), wsz = nla_cuda_fw_workspace(st->sms, p);
    const int64_t ar = p->op == 0 ? rows : p->op == 1 ? p->kl + p->ku + 1 : n * (n + 1) / 2;
    const runs rr[5] = {
        make_runs(p->a, sizeof(double), ar, p->op == 2 ? 1 : n, p->op == 2 ? ar : p->ld, 1, 0),
        vec_runs(p->b, sizeof(double), rows, 1), vec_runs(p->c, sizeof(double), n, 1),
        vec_runs(p->lo, sizeof(double), n, 1), vec_runs(p->hi, sizeof(double), n, 1)
    };
    const double **dst[5] = { &q.a, &q.b, &q.c, &q.lo, &q.hi };
    const runs xr = vec_runs(x, sizeof(double), n, 1);
    const int xdev = is_device(x);
    int stage[5];
    size_t total = round_up(xb) + round_up(wsz), off = 0;
    char *mem = NULL;
    double *xd;
    nla_cuda_launch L;
    fw_hook_ctx h;
    cudaError_t e;
    const char *what = "cudaMalloc (Frank-Wolfe workspace)";

    CU(cudaSetDevice(st->device), "cudaSetDevice");
    for (int i = 0; i < 5; i++) {
        stage[i] = *dst[i] && !is_device(*dst[i]);
        if (stage[i])
            total += round_up((size_t)span_elems(&rr[i]) * sizeof(double));
    }
    if ((e = cudaMalloc((void **)&mem, total)) != cudaSuccess)
        return fail(ex, e, what);
    what = "staging to the device";
    for (int i = 0; i < 5 && e == cudaSuccess; i++) {
        if (!stage[i])
            continue;
        *dst[i] = (const double *)(mem + off);
        e = stage_in(&st->pin, st->stream, mem + off, &rr[i]);
        off += round_up((size_t)span_elems(&rr[i]) * sizeof(double));
    }
    xd = (double *)(mem + off);
    off += round_up(xb);
    if (e == cudaSuccess)
        e = xdev ? cudaMemcpyAsync(xd, x, xb, cudaMemcpyDeviceToDevice, st->stream)
                 : stage_in(&st->pin, st->stream, xd, &xr);
    if (e == cudaSuccess) {
        L.stream = st->stream;
        L.sms = st->sms;
        L.scratch = mem + off;
        L.scratch_bytes = wsz;
        h.hook = hook;
        h.user = user;
        h.xhost = xhost;
        h.bytes = xb;
        h.stream = st->stream;
        h.device = st->device;
        h.err = cudaSuccess;
        what = "the Frank-Wolfe loop";
        e = nla_cuda_fw_run(&L, &q, xd, fw_hook_adapter, &h);
        if (e == cudaSuccess)
            e = h.err;
    }
    if (e == cudaSuccess) {
        what = "copying the result";
        e = xdev ? cudaMemcpyAsync(x, xd, xb, cudaMemcpyDeviceToDevice, st->stream)
                 : stage_out(&st->pin, st->stream, &xr, xd);
    }
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(st->stream);
    if (e != cudaSuccess) {
        nla_status s = fail(ex, e, what);
        cudaStreamSynchronize(st->stream);
        cudaFree(mem);
        return s;
    }
    cudaFree(mem);
    return NLA_OK;
}

/* ---------------------------------------------------------------- table */

struct nla_backend_ops make_ops()
{
    struct nla_backend_ops o;
    memset(&o, 0, sizeof o);
    o.abi = NLA_PLUGIN_ABI;
    o.name = "cuda";
    o.available = cu_available;
    o.ctx_init = cu_ctx_init;
    o.ctx_fini = cu_ctx_fini;
    o.mem_alloc = cu_alloc;
    o.mem_free = cu_free;
    o.upload = cu_copy;
    o.download = cu_copy;
    o.synchronize = cu_sync;
    o.dgemv = cu_gemv<double>;
    o.sgemv = cu_gemv<float>;
    o.dgbmv = cu_gbmv<double>;
    o.sgbmv = cu_gbmv<float>;
    o.dspmv = cu_spmv<double>;
    o.sspmv = cu_spmv<float>;
    o.dgemm = cu_gemm<double>;
    o.sgemm = cu_gemm<float>;
    o.fft_plan = cu_fft_plan;
    o.fft_execute = cu_fft_execute;
    o.fft_destroy = cu_fft_destroy;
    o.is_device_ptr = cu_is_device_ptr;
    o.fw_solve = cu_fw_solve;
    o.set_stream = cu_set_stream;
    o.stream = cu_stream;
    return o;
}

const struct nla_backend_ops cuda_ops = make_ops();

} /* namespace */

extern "C" {
__attribute__((visibility("default"))) int nla_plugin_abi(void);
__attribute__((visibility("default"))) const struct nla_backend_ops *nla_plugin_ops(void);
}

int nla_plugin_abi(void)
{
    return NLA_PLUGIN_ABI;
}

const struct nla_backend_ops *nla_plugin_ops(void)
{
    return &cuda_ops;
}
