/*
 * cuda_emu_runtime.h - the CUDA runtime calls of the CPU emulation
 * (tests/cuda_emu/README), included at the end of cuda_emu.h: streams as
 * queues, events, device and pinned memory, copies and device queries, for
 * the kernels' launches, the plugin's glue (src/cuda/plugin.cu) and
 * tests/cuda_kernels_check.cu.
 *
 * Streams are queues.  A launch, an asynchronous copy, an event record and
 * the device-side half of some synchronous copies are queued on their
 * stream and run only when something waits for them: cudaStreamSynchronize,
 * cudaEventSynchronize, cudaDeviceSynchronize, cudaFree(Host), a blocking
 * cudaMemcpy, or a copy into pageable memory.  Within a stream the order is
 * kept.  An item on the legacy stream (0, cudaStreamLegacy) first runs the
 * earlier items of every blocking stream, and an item on a blocking stream
 * first runs the earlier legacy items; a cudaStreamNonBlocking stream waits
 * for nothing but itself.  So a host read without the synchronization CUDA
 * requires sees stale data (device memory starts as NaN), and the tests
 * fail.  Copies follow the runtime's rules on pageable memory: from
 * pageable host memory the data is taken at the call and lands when the
 * queue runs it; into pageable host memory the call returns once it has
 * landed; pinned memory (cudaHostAlloc) is read and written when the queue
 * runs the copy.  EMU_STREAMS=now runs every item at once (the old model).
 */
#pragma once
#include <deque>

enum { cudaStreamNonBlocking = 1, cudaHostAllocDefault = 0, cudaEventDisableTiming = 2 };
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2, cudaMemoryTypeManaged = 3 };
struct cudaPointerAttributes { cudaMemoryType type; int device; void *devicePointer, *hostPointer; };

namespace emu {

/* device allocations (cudaMalloc) and pinned ones (cudaHostAlloc): base -> bytes */
inline std::map<uintptr_t, size_t> &allocs() { static std::map<uintptr_t, size_t> m; return m; }
inline std::map<uintptr_t, size_t> &pinned() { static std::map<uintptr_t, size_t> m; return m; }
inline bool in_blocks(const std::map<uintptr_t, size_t> &m, const void *p)
{
    auto it = m.upper_bound((uintptr_t)p);
    if (it == m.begin()) return false;
    --it;
    return (uintptr_t)p < it->first + (it->second ? it->second : 1);
}
inline bool is_device(const void *p) { return in_blocks(allocs(), p); }
inline bool is_pinned(const void *p) { return in_blocks(pinned(), p); }

/* the streams created and not yet destroyed: handle -> flags.  0 and
   cudaStreamLegacy (1) are the legacy stream, queue 0; cudaStreamPerThread
   (2) is a blocking stream of its own. */
inline std::map<uintptr_t, int> &streams() { static std::map<uintptr_t, int> m; return m; }
inline uintptr_t queue_of(cudaStream_t s) { uintptr_t u = (uintptr_t)s; return u == 1 ? 0 : u; }
inline cudaError_t stream_check(cudaStream_t s)
{
    uintptr_t u = (uintptr_t)s;
    return u <= 2 || streams().count(u) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}
inline bool blocking(uintptr_t q)
{
    auto it = streams().find(q);
    return q == 2 || (it != streams().end() && !(it->second & 1 /* cudaStreamNonBlocking */));
}

struct Work { uint64_t seq; std::function<void()> run; };
inline std::map<uintptr_t, std::deque<Work>> &queues() { static std::map<uintptr_t, std::deque<Work>> m; return m; }
inline uint64_t &last_seq() { static uint64_t s = 0; return s; }
inline bool streams_now()
{
    static int v = [] { const char *e = getenv("EMU_STREAMS"); return e && !strcmp(e, "now") ? 1 : 0; }();
    return v;
}

inline void flush(uintptr_t q, uint64_t upto);
/* run the oldest item of queue q, after the items it waits for */
inline void run_front(uintptr_t q)
{
    std::deque<Work> &dq = queues()[q];
    Work w = std::move(dq.front());
    dq.pop_front();
    if (q == 0) {
        std::vector<uintptr_t> others;
        for (auto &kv : queues()) if (kv.first != 0 && blocking(kv.first)) others.push_back(kv.first);
        for (uintptr_t o : others) flush(o, w.seq - 1);
    } else if (blocking(q)) {
        flush(0, w.seq - 1);
    }
    w.run();
}
/* run queue q's items up to sequence number upto */
inline void flush(uintptr_t q, uint64_t upto)
{
    for (;;) {
        auto it = queues().find(q);
        if (it == queues().end() || it->second.empty() || it->second.front().seq > upto) return;
        run_front(q);
    }
}
/* everything queued anywhere, oldest first (the device synchronizes) */
inline void flush_all()
{
    for (;;) {
        uintptr_t best = 0;
        uint64_t seq = UINT64_MAX;
        for (auto &kv : queues())
            if (!kv.second.empty() && kv.second.front().seq < seq) seq = kv.second.front().seq, best = kv.first;
        if (seq == UINT64_MAX) return;
        run_front(best);
    }
}
/* queue work on stream st; returns its sequence number, 0 for an invalid stream */
inline uint64_t queue_work(cudaStream_t st, std::function<void()> work)
{
    if (stream_check(st) != cudaSuccess) return 0;
    const uintptr_t q = queue_of(st);
    const uint64_t seq = ++last_seq();
    queues()[q].push_back(Work{seq, std::move(work)});
    if (streams_now()) flush(q, seq);
    return seq;
}
inline bool enqueue(cudaStream_t st, std::function<void()> work) { return queue_work(st, std::move(work)) != 0; }
/* a blocking call on the legacy stream: it and all it waits for are done */
inline void legacy_call() { flush(0, queue_work(0, [] {})); }

/* A copy of rows x width bytes, queued on st under the runtime's rules on
   pageable memory (the header). */
inline cudaError_t copy_on(cudaStream_t st, void *d, size_t dpitch, const void *s, size_t spitch,
                           size_t width, size_t rows)
{
    if (stream_check(st) != cudaSuccess) return cudaErrorInvalidResourceHandle;
    if (!width || !rows) return cudaSuccess;
    const bool d_host = !is_device(d), s_host = !is_device(s);
    uint64_t seq;
    if (s_host && !is_pinned(s) && !d_host) {
        /* pageable source: taken now */
        std::vector<char> data(width * rows);
        for (size_t r = 0; r < rows; r++) memcpy(&data[r * width], (const char *)s + r * spitch, width);
        seq = queue_work(st, [d, dpitch, width, rows, data]() {
            for (size_t r = 0; r < rows; r++) memcpy((char *)d + r * dpitch, &data[r * width], width);
        });
    } else {
        seq = queue_work(st, [d, dpitch, s, spitch, width, rows]() {
            for (size_t r = 0; r < rows; r++) memmove((char *)d + r * dpitch, (const char *)s + r * spitch, width);
        });
    }
    /* into pageable host memory (or host to host): returns once landed */
    if (d_host && !is_pinned(d)) flush(queue_of(st), seq);
    return cudaSuccess;
}
} /* namespace emu */

/* ---------------------------------------------------------------- memory */

inline cudaError_t cudaMalloc(void **p, size_t n)
{
    /* an H200 holds 141 GB: more is out of memory, as on the device */
    if (n > ((size_t)141 << 30)) return *p = nullptr, cudaErrorMemoryAllocation;
    *p = aligned_alloc(256, ((n ? n : 1) + 255) & ~(size_t)255);
    if (!*p) return cudaErrorMemoryAllocation;
    memset(*p, 0xff, n);
    emu::allocs()[(uintptr_t)*p] = n;
    return cudaSuccess;
}
template <typename T> inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }
inline cudaError_t cudaFree(void *p)
{
    emu::flush_all();   /* cudaFree synchronizes the device */
    if (!p) return cudaSuccess;
    if (!emu::allocs().erase((uintptr_t)p)) emu::fail("cudaFree of a pointer cudaMalloc did not return");
    free(p);
    return cudaSuccess;
}
inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned)
{
    *p = malloc(n ? n : 1);
    if (!*p) return cudaErrorMemoryAllocation;
    emu::pinned()[(uintptr_t)*p] = n;
    return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void *p)
{
    emu::flush_all();
    if (!p) return cudaSuccess;
    if (!emu::pinned().erase((uintptr_t)p)) emu::fail("cudaFreeHost of a pointer cudaHostAlloc did not return");
    free(p);
    return cudaSuccess;
}

/* ---------------------------------------------------------------- copies */

/* cudaMemcpy: on the legacy stream.  From pageable host memory to the
   device it returns once the data is taken (it lands when the queue runs);
   device to device it only queues; otherwise it returns when done.
   n == 0 is valid, with any pointers. */
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind)
{
    if (!n) return cudaSuccess;
    /* only queued: to the device from anything but pinned memory */
    const bool queued = emu::is_device(d) && !emu::is_pinned(s);
    cudaError_t e = emu::copy_on(0, d, n, s, n, n, 1);
    if (e == cudaSuccess && !queued) emu::legacy_call();
    return e;
}
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t st = 0)
{
    return emu::copy_on(st, d, n, s, n, n, 1);
}
inline cudaError_t cudaMemcpy2DAsync(void *d, size_t dpitch, const void *s, size_t spitch, size_t width, size_t rows,
                                     cudaMemcpyKind, cudaStream_t st = 0)
{
    if (width > dpitch || width > spitch) return cudaErrorInvalidValue;
    return emu::copy_on(st, d, dpitch, s, spitch, width, rows);
}
inline cudaError_t cudaMemset(void *d, int v, size_t n)
{
    if (n) emu::queue_work(0, [d, v, n]() { memset(d, v, n); });
    return cudaSuccess;
}

/* ------------------------------------------------- streams and events */

inline cudaError_t cudaDeviceSynchronize() { emu::flush_all(); return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    if (emu::stream_check(s) != cudaSuccess) return cudaErrorInvalidResourceHandle;
    emu::flush(emu::queue_of(s), UINT64_MAX);
    return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    *s = reinterpret_cast<struct CUstream_st *>(new char[1]);
    emu::streams()[(uintptr_t)*s] = (int)flags;
    return cudaSuccess;
}
/* the stream's queued work still runs, as on a GPU */
inline cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    if ((uintptr_t)s <= 2 || !emu::streams().count((uintptr_t)s)) return cudaErrorInvalidResourceHandle;
    emu::flush((uintptr_t)s, UINT64_MAX);
    emu::streams().erase((uintptr_t)s);
    emu::queues().erase((uintptr_t)s);
    delete[] reinterpret_cast<char *>(s);
    return cudaSuccess;
}
inline cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned *f)
{
    if (emu::stream_check(s) != cudaSuccess) return cudaErrorInvalidResourceHandle;
    *f = (uintptr_t)s <= 2 ? 0 : (unsigned)emu::streams()[(uintptr_t)s];
    return cudaSuccess;
}
/* an event is the position of its last record in its stream's queue */
struct CUevent_st { uintptr_t queue; uint64_t seq; };
typedef struct CUevent_st *cudaEvent_t;
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) { *e = new CUevent_st{0, 0}; return cudaSuccess; }
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t st = 0)
{
    uint64_t seq = emu::queue_work(st, [] {});
    if (!seq) return cudaErrorInvalidResourceHandle;
    e->queue = emu::queue_of(st);
    e->seq = seq;
    return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    if (e->seq) emu::flush(e->queue, e->seq);
    return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }

/* --------------------------------------------------- errors and queries */

inline cudaError_t cudaGetLastError() { cudaError_t e = emu::ctx().err; emu::ctx().err = cudaSuccess; return e; }
inline cudaError_t cudaPeekAtLastError() { return emu::ctx().err; }
inline cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
inline cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
#define CUDART_VERSION 13000
inline cudaError_t cudaDriverGetVersion(int *v) { *v = 13000; return cudaSuccess; }
inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int)
{
    *v = a == cudaDevAttrMultiProcessorCount ? (getenv("EMU_SMS") ? atoi(getenv("EMU_SMS")) : 132)
       : a == cudaDevAttrComputeCapabilityMajor ? 9 : 0;
    return cudaSuccess;
}
inline const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    }
    return "unknown error";
}
inline const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    }
    return "cudaErrorUnknown";
}
inline cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : cudaErrorInvalidValue; }
inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p)
{
    memset(a, 0, sizeof *a);
    a->type = emu::is_device(p) ? cudaMemoryTypeDevice : cudaMemoryTypeUnregistered;
    return cudaSuccess;
}
/* Resident blocks per multiprocessor: the emulation knows no registers, so
   only sm_90's thread (2048), block (32) and shared-memory (228 KiB) limits
   apply; EMU_OCCUPANCY=n answers n instead (a kernel the register file
   holds fewer times). */
template <typename F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *nb, F *, int block, size_t smem)
{
    if (block < 1 || block > 1024) return cudaErrorInvalidValue;
    const char *e = getenv("EMU_OCCUPANCY");
    int n = std::min(32, 2048 / block);
    if (smem) n = std::min<int>(n, (int)((size_t)228 * 1024 / (smem + 1024)));
    *nb = e && *e ? atoi(e) : n;
    return cudaSuccess;
}
template <typename F> inline cudaError_t cudaFuncSetAttribute(F *fn, cudaFuncAttribute, int v)
{
    if (v > 227 * 1024) return cudaErrorInvalidValue;
    emu::ctx().smem_limit[(const void *)fn] = v;
    return cudaSuccess;
}
