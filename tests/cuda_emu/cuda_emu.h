/*
 * cuda_emu.h - a CPU emulation of the subset of CUDA that libnla's own
 * CUDA files use (src/cuda/*.cu: kernels and plugin glue), so that their
 * logic can be checked by tests/cuda_kernels_check.cu on a machine without a
 * GPU (make check: tests/check-cuda-emu.sh).  See tests/cuda_emu/README.
 *
 * It is NOT a model of a GPU's timing, of its memory model beyond what is
 * stated here, or of its floating-point details beyond IEEE double/float
 * arithmetic as the host compiler does it.  A pass here means the kernels
 * compute the right thing under the execution orders tried; only a run on
 * a real GPU (the nvcc build described in tests/cuda_kernels_check.cu, and
 * tools/gpu-check.sh for the plugin) checks the compiled device code.
 *
 * The source files are compiled as C++17 by the host compiler with
 *   -x c++ -DNLA_CUDA_EMU -I tests/cuda_emu -include cuda_emu.h
 * which turns __global__/__device__ functions into plain functions and
 * replaces the launch syntax (NLA_LAUNCH) and the inline PTX (mma.sync,
 * cp.async: the kernels call emu:: here when NLA_CUDA_EMU is defined).
 *
 * What is emulated, and how:
 *  - Execution: one host thread.  The blocks of a grid run one after the
 *    other; each CUDA thread of a block is a cooperative fiber (ucontext)
 *    with its own 256 KiB stack (a guard page below it).  A fiber runs
 *    until it reaches __syncthreads, a warp-collective operation (the
 *    emulated mma.sync) or its end; nothing else switches.  So between two
 *    barriers a thread's accesses are never interleaved with another's: a
 *    missing barrier is found only through the ORDER in which threads (and
 *    blocks) run, which EMU_ORDER chooses:
 *      EMU_ORDER=fwd (default)  blocks and threads in index order
 *      EMU_ORDER=rev            both in reverse order
 *      EMU_ORDER=rand           blocks shuffled once per launch, threads
 *                               shuffled again at every barrier sweep, from
 *                               a std::mt19937 seeded with EMU_SEED
 *                               (default 12345): a given seed and build
 *                               give the same order on every run.
 *    There are no warp-synchronous semantics: code that relies on the 32
 *    lanes of a warp running in lock step (without __syncwarp/shuffles)
 *    is not modelled.  Atomics, fences and cooperative groups are not
 *    provided (code using them does not compile).  Streams and events are
 *    tokens: every call completes before it returns, except one (below).
 *  - Pageable host-to-device cudaMemcpy: as CUDA allows, the data is taken
 *    at the call but reaches the device only later, on the legacy default
 *    stream: at the next synchronization with it (cudaStreamSynchronize of
 *    stream 0 or of a blocking stream, cudaDeviceSynchronize, cudaFree,
 *    cudaFreeHost, another cudaMemcpy, work queued on stream 0 or a
 *    blocking stream).  Work on a cudaStreamNonBlocking stream does not
 *    wait for it, so a kernel there that reads the destination without
 *    such a synchronization reads the old contents (NaN) and a test fails.
 *    EMU_PAGEABLE=now lands the copy at the call.
 *  - Warp shuffles (__shfl_sync, __shfl_down_sync, __shfl_xor_sync, full
 *    mask only): a warp-collective operation like mma.sync below, so all
 *    32 lanes must reach it; the result is the hardware's, including a
 *    source lane outside the width segment returning the caller's value.
 *  - __syncthreads: every thread of the block must reach it (threads that
 *    exited while others wait are reported as an error, as are threads
 *    waiting at different barriers: deadlock).
 *  - mma.sync.aligned.m16n8k16 / m8n8k4 .row.col.f64 (emu::mma_f64): all 32
 *    lanes of the warp deposit their fragments, then each lane computes its
 *    accumulators with fma in k order; the fragment layouts are those of the
 *    PTX ISA (and of CUTLASS's SM90_16x8x16 / SM80_8x8x4 F64 traits).
 *    The hardware's internal summation order is not modelled.
 *  - cp.async (emu::cp_async/cp_commit/cp_wait): the 8- or 16-byte copy,
 *    with zero fill past src_bytes, lands when the issuing thread's
 *    wait_group retires its group (EMU_CPASYNC=wait, the default), or at
 *    issue (EMU_CPASYNC=now).  Misaligned copies, copies never committed and
 *    groups never waited for are errors.
 *  - Memory: device memory is host memory (cudaMalloc: 256-byte aligned,
 *    filled with 0xff bytes, i.e. NaN); copies are memmove.  Dynamic shared
 *    memory is allocated for each block with exactly the requested size and
 *    filled with 0xff (NaN), so an overflow is a heap overflow (caught under
 *    AddressSanitizer) and a read before write gives NaN.  Static __shared__
 *    arrays are function-local statics: shared by the block as on a GPU, but
 *    neither NaN-filled nor cleared between blocks, and not counted against
 *    the shared-memory limit.
 *  - Launch limits: at most 1024 threads and blockDim.z <= 64, gridDim.y/z
 *    <= 65535, gridDim.x < 2^31, dynamic shared memory <= 48 KiB unless
 *    cudaFuncSetAttribute(MaxDynamicSharedMemorySize) raised it (<= 227 KiB,
 *    sm_90).  __launch_bounds__ is not checked.
 *  - Vector types have CUDA's alignment (double2, float4: 16 bytes; float2:
 *    8); __ldg checks its pointer's alignment, and in the --enable-sanitizers
 *    build UBSan's alignment check stops at any other misaligned vector
 *    access (a load through a reinterpret_cast'ed pointer included), where
 *    a GPU would trap.
 *  - Device queries: one device of compute capability 9.0; its
 *    multiprocessor count is 132 (H100 SXM), or EMU_SMS=n.  Errors abort
 *    with "EMU ERROR: ..." on stderr.
 *  - The runtime calls of the plugin's glue (src/cuda/plugin.cu), for the
 *    emulated plugin tests/libnla-cuda-emu.so: pinned memory is host
 *    memory, cudaMemcpy2DAsync copies row by row, cudaMalloc of more than
 *    141 GiB fails with cudaErrorMemoryAllocation, and
 *    cudaPointerGetAttributes says "device" for addresses inside a
 *    cudaMalloc block (tracked; cudaFree of anything else is an error).
 *    The emulation keeps global state and is for one host thread.
 *  - Under AddressSanitizer, fiber switches are announced to ASan
 *    (__sanitizer_start/finish_switch_fiber), so ASan follows the stacks.
 *
 * Every emulated program prints one line naming the emulation and its
 * settings at its first kernel launch.
 */
#pragma once
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMU_ASAN 1
#endif
#endif
#ifdef EMU_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#ifndef NLA_CUDA_EMU
#define NLA_CUDA_EMU 1
#endif
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static
#define NLA_EXTERN_SHARED(T, name) T *name = reinterpret_cast<T *>(emu::dyn_smem())

using std::fma;

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNotSupported = 801,
    cudaErrorLaunchFailure = 719,
    cudaErrorInvalidResourceHandle = 400,
} cudaError_t;
typedef struct CUstream_st *cudaStream_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum cudaDeviceAttr {
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76
};

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint3e { unsigned x, y, z; };
/* CUDA's alignments (vector_types.h) */
struct alignas(16) double2 { double x, y; };
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
inline double2 make_double2(double x, double y) { return double2{x, y}; }
inline float2 make_float2(float x, float y) { return float2{x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
inline size_t __cvta_generic_to_shared(const void *) { return 0; }

namespace emu {

enum State { READY, AT_BLOCK, AT_WARP, DONE };

/* A fiber stack: mmap'ed, with an inaccessible guard page below it, so a
   stack overflow faults instead of corrupting memory. */
struct Stack {
    static constexpr size_t kSize = 256 * 1024;
    char *base = nullptr;   /* usable area: [base, base + kSize) */
};

struct Fiber {
    ucontext_t ctx;
    Stack stack;
    State state;
    uint3e tid;
    int lin;
    /* cp.async groups: pending copies, and committed groups */
    struct Copy { void *dst; const void *src; int bytes, src_bytes; };
    std::vector<Copy> pending;
    std::vector<std::vector<Copy>> groups;
};

struct Ctx {
    std::vector<Fiber> fibers;
    ucontext_t sched;
    Fiber *cur = nullptr;
    uint3e block{0, 0, 0};
    dim3 bdim, gdim;
    std::vector<unsigned char> dsmem;
    cudaError_t err = cudaSuccess;
    std::map<const void *, int> smem_limit;
    std::mt19937 rng;
    unsigned seed;
    /* warp-collective scratch: per thread, 16 doubles */
    std::vector<double> wscratch;
    long long launches = 0, blocks_run = 0;
    /* the scheduler's stack, for ASan's fiber switches */
    const void *sched_bottom = nullptr;
    size_t sched_size = 0;
    Ctx()
    {
        const char *e = getenv("EMU_SEED");
        seed = e && *e ? (unsigned)strtoul(e, nullptr, 0) : 12345u;
        rng.seed(seed);
    }
};
inline Ctx &ctx() { static Ctx c; return c; }
inline Fiber *cur() { return ctx().cur; }
inline void *dyn_smem() { return ctx().dsmem.data(); }

[[noreturn]] inline void fail(const char *msg)
{
    fflush(stdout);
    fprintf(stderr, "EMU ERROR: %s\n", msg);
    if (ctx().err == cudaSuccess) ctx().err = cudaErrorLaunchFailure;
    abort();
}

inline void alloc_stack(Stack &s)
{
    if (s.base) return;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = mmap(nullptr, Stack::kSize + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) fail("cannot allocate a fiber stack");
    if (mprotect(p, page, PROT_NONE) != 0) fail("cannot protect a fiber stack's guard page");
    s.base = static_cast<char *>(p) + page;
}

/* fiber -> scheduler */
inline void yield(State s)
{
    Ctx &c = ctx();
    Fiber *f = c.cur;
    f->state = s;
#ifdef EMU_ASAN
    void *fake = nullptr;
    /* a finished fiber never resumes: let ASan drop its fake stack */
    __sanitizer_start_switch_fiber(s == DONE ? nullptr : &fake, c.sched_bottom, c.sched_size);
#endif
    swapcontext(&f->ctx, &c.sched);
#ifdef EMU_ASAN
    __sanitizer_finish_switch_fiber(fake, &c.sched_bottom, &c.sched_size);
#endif
}

/* scheduler -> fiber */
inline void resume(Fiber &f)
{
    Ctx &c = ctx();
    c.cur = &f;
#ifdef EMU_ASAN
    void *fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, f.stack.base, Stack::kSize);
#endif
    swapcontext(&c.sched, &f.ctx);
#ifdef EMU_ASAN
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
    c.cur = nullptr;
}

inline void syncthreads() { yield(AT_BLOCK); }
inline void syncwarp_collective() { yield(AT_WARP); }

inline bool cpasync_deferred()
{
    static int v = [] { const char *e = getenv("EMU_CPASYNC"); return (e && !strcmp(e, "now")) ? 0 : 1; }();
    return v;
}
inline void do_copy(const Fiber::Copy &c)
{
    if (c.src_bytes > 0) memcpy(c.dst, c.src, c.src_bytes);
    if (c.bytes > c.src_bytes) memset((char *)c.dst + c.src_bytes, 0, c.bytes - c.src_bytes);
}
inline void cp_async(void *dst, const void *src, int bytes, int src_bytes)
{
    if (src_bytes < 0 || src_bytes > bytes) fail("cp.async src-size out of range");
    if (((uintptr_t)dst % bytes) || (src_bytes > 0 && ((uintptr_t)src % bytes))) fail("cp.async misaligned");
    Fiber::Copy c{dst, src, bytes, src_bytes};
    if (cpasync_deferred()) cur()->pending.push_back(c);
    else do_copy(c);
}
inline void cp_commit()
{
    Fiber *f = cur();
    f->groups.push_back(f->pending);
    f->pending.clear();
}
/* cp.async.wait_group n: all but the n most recent groups have landed */
inline void cp_wait(int n)
{
    Fiber *f = cur();
    while ((int)f->groups.size() > n) {
        for (auto &c : f->groups.front()) do_copy(c);
        f->groups.erase(f->groups.begin());
    }
}

struct KernelBase { virtual void run() = 0; virtual ~KernelBase() {} };
inline KernelBase *&cur_kernel() { static KernelBase *k; return k; }

inline void trampoline()
{
#ifdef EMU_ASAN
    Ctx &c = ctx();
    __sanitizer_finish_switch_fiber(nullptr, &c.sched_bottom, &c.sched_size);
#endif
    cur_kernel()->run();
    yield(DONE);
}

/* 0: forward, 1: reverse, 2: shuffled */
inline int order_mode()
{
    static int v = [] {
        const char *e = getenv("EMU_ORDER");
        if (!e || !*e || !strcmp(e, "fwd")) return 0;
        if (!strcmp(e, "rev")) return 1;
        if (!strcmp(e, "rand")) return 2;
        fail("EMU_ORDER must be fwd, rev or rand");
    }();
    return v;
}

inline void run_block(KernelBase *k)
{
    Ctx &c = ctx();
    int nt = c.bdim.x * c.bdim.y * c.bdim.z;
    if ((int)c.fibers.size() < nt) c.fibers.resize(nt);
    for (int i = 0; i < nt; i++) {
        Fiber &f = c.fibers[i];
        alloc_stack(f.stack);
        f.state = READY;
        f.lin = i;
        f.tid = uint3e{(unsigned)(i % c.bdim.x), (unsigned)((i / c.bdim.x) % c.bdim.y), (unsigned)(i / (c.bdim.x * c.bdim.y))};
        f.pending.clear();
        f.groups.clear();
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack.base;
        f.ctx.uc_stack.ss_size = Stack::kSize;
        f.ctx.uc_link = nullptr;
        makecontext(&f.ctx, trampoline, 0);
    }
    cur_kernel() = k;
    std::vector<int> order(nt);
    for (int i = 0; i < nt; i++) order[i] = i;
    for (;;) {
        if (order_mode() == 1) std::reverse(order.begin(), order.end());
        if (order_mode() == 2) std::shuffle(order.begin(), order.end(), c.rng);
        bool ran = false;
        for (int i : order) {
            Fiber &f = c.fibers[i];
            if (f.state != READY) continue;
            resume(f);
            ran = true;
        }
        if (order_mode() == 1) std::reverse(order.begin(), order.end());
        int done = 0, atb = 0, atw = 0;
        for (int i = 0; i < nt; i++) {
            State s = c.fibers[i].state;
            done += s == DONE; atb += s == AT_BLOCK; atw += s == AT_WARP;
        }
        if (done == nt) break;
        if (atw) {
            /* release every warp whose lanes all arrived */
            bool rel = false;
            for (int w = 0; w * 32 < nt; w++) {
                int lanes = std::min(32, nt - w * 32), arrived = 0, live = 0;
                for (int l = 0; l < lanes; l++) {
                    State s = c.fibers[w * 32 + l].state;
                    live += s != DONE; arrived += s == AT_WARP;
                }
                if (arrived && arrived == lanes) {
                    for (int l = 0; l < lanes; l++) c.fibers[w * 32 + l].state = READY;
                    rel = true;
                } else if (arrived && arrived == live) {
                    fail("warp-collective operation with lanes that have exited");
                }
            }
            if (rel) continue;
        }
        if (atb + done == nt && atb > 0) {
            if (done > 0) fail("__syncthreads reached by only part of the block (others exited)");
            for (int i = 0; i < nt; i++) c.fibers[i].state = READY;
            continue;
        }
        if (!ran) fail("deadlock: threads wait at different barriers / collectives");
    }
    for (int i = 0; i < nt; i++) {
        if (!c.fibers[i].pending.empty()) fail("cp.async copies never committed");
        for (auto &g : c.fibers[i].groups) if (!g.empty()) fail("cp.async group never waited for");
    }
}

struct KernelFn : KernelBase {
    std::function<void()> f;
    void run() override { f(); }
};

inline void banner()
{
    static bool shown = false;
    if (shown) return;
    shown = true;
    static const char *const orders[] = {"fwd", "rev", "rand"};
    printf("[cuda_emu] kernels run on a CPU emulation of CUDA (tests/cuda_emu/cuda_emu.h), not on a GPU: "
           "EMU_ORDER=%s", orders[order_mode()]);
    if (order_mode() == 2) printf(" EMU_SEED=%u", ctx().seed);
    printf(" EMU_CPASYNC=%s\n", cpasync_deferred() ? "wait" : "now");
    fflush(stdout);
}

template <typename F>
struct Launcher {
    F *fn;
    dim3 grid, block;
    size_t smem;
    template <typename... Args> void operator()(Args... args)
    {
        Ctx &c = ctx();
        banner();
        c.launches++;
        size_t nt = (size_t)block.x * block.y * block.z;
        if (nt == 0 || nt > 1024 || block.z > 64) { fprintf(stderr, "bad block %u %u %u\n", block.x, block.y, block.z); fail("block size"); }
        if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.y > 65535 || grid.z > 65535 || grid.x > 0x7fffffffu) fail("grid size");
        int lim = 48 * 1024;
        auto it = c.smem_limit.find((const void *)fn);
        if (it != c.smem_limit.end()) lim = it->second;
        if (smem > (size_t)lim) { fprintf(stderr, "dynamic smem %zu > limit %d\n", smem, lim); fail("smem"); }
        KernelFn k;
        F *f = fn;
        k.f = [f, args...]() { f(args...); };
        c.bdim = block;
        c.gdim = grid;
        /* block order: EMU_ORDER (blocks are independent on a GPU) */
        const uint64_t nb = (uint64_t)grid.x * grid.y * grid.z;
        std::vector<uint64_t> blocks(nb);
        for (uint64_t b = 0; b < nb; b++) blocks[b] = b;
        if (order_mode() == 1) std::reverse(blocks.begin(), blocks.end());
        if (order_mode() == 2) std::shuffle(blocks.begin(), blocks.end(), c.rng);
        for (uint64_t b : blocks) {
            c.block = uint3e{(unsigned)(b % grid.x), (unsigned)((b / grid.x) % grid.y), (unsigned)(b / ((uint64_t)grid.x * grid.y))};
            c.dsmem.clear(); c.dsmem.shrink_to_fit(); c.dsmem.assign(smem ? smem : 1, 0xff);
            run_block(&k);
            c.blocks_run++;
        }
    }
};
template <typename F> Launcher<F> launch(F *fn, dim3 g, dim3 b, size_t smem) { return Launcher<F>{fn, g, b, smem}; }

/* Warp-collective f64 MMA (mma.sync.aligned.{m16n8k16,m8n8k4}.row.col.f64):
   every lane deposits its fragments, then computes its own accumulators
   from the whole warp's operands.  Layouts (g = lane/4, t = lane%4):
     m16n8k16: a[v0 + 2*v1] = A(g + 8*v0, t + 4*v1), b[v] = B(t + 4*v, g),
               d[v0 + 2*v1] = D(g + 8*v1, 2*t + v0)
     m8n8k4:   a = A(g, t), b = B(t, g), d[v] = D(g, 2*t + v) */
inline double *lane_slot(int lane_off)
{
    Ctx &c = ctx();
    int nt = c.bdim.x * c.bdim.y * c.bdim.z;
    if ((int)c.wscratch.size() < nt * 16) c.wscratch.resize(nt * 16);
    return &c.wscratch[(cur()->lin & ~31) * 16 + lane_off * 16];
}
inline void mma_f64(int k16, double *d, const double *a, const double *b)
{
    {
        Ctx &c = ctx();
        int nt = c.bdim.x * c.bdim.y * c.bdim.z;
        if (nt - (cur()->lin & ~31) < 32) fail("mma.sync in a warp of fewer than 32 threads");
    }
    int lane = cur()->lin & 31;
    double *mine = lane_slot(lane);
    int na = k16 ? 8 : 1, nb = k16 ? 4 : 1;
    for (int i = 0; i < na; i++) mine[i] = a[i];
    for (int i = 0; i < nb; i++) mine[8 + i] = b[i];
    syncwarp_collective();
    const int g = lane >> 2, t = lane & 3;
    if (k16) {
        double A[16][16], B[16][8];
        for (int l = 0; l < 32; l++) {
            const double *s = lane_slot(l);
            int gl = l >> 2, tl = l & 3;
            for (int v0 = 0; v0 < 2; v0++)
                for (int v1 = 0; v1 < 4; v1++) A[gl + 8 * v0][tl + 4 * v1] = s[v0 + 2 * v1];
            for (int v = 0; v < 4; v++) B[tl + 4 * v][gl] = s[8 + v];
        }
        for (int v0 = 0; v0 < 2; v0++)
            for (int v1 = 0; v1 < 2; v1++) {
                double acc = d[v0 + 2 * v1];
                for (int k = 0; k < 16; k++) acc = fma(A[g + 8 * v1][k], B[k][2 * t + v0], acc);
                d[v0 + 2 * v1] = acc;
            }
    } else {
        double A[8][4], B[4][8];
        for (int l = 0; l < 32; l++) {
            const double *s = lane_slot(l);
            A[l >> 2][l & 3] = s[0];
            B[l & 3][l >> 2] = s[8];
        }
        for (int v = 0; v < 2; v++) {
            double acc = d[v];
            for (int k = 0; k < 4; k++) acc = fma(A[g][k], B[k][2 * t + v], acc);
            d[v] = acc;
        }
    }
    /* no lane may overwrite its slot before every lane has read them all */
    syncwarp_collective();
}

/* Warp shuffles (__shfl_sync, __shfl_down_sync, __shfl_xor_sync), as a
   warp-collective operation: every lane deposits its value, then each reads
   its source lane's.  Only the full mask is accepted, and a shuffle in a
   warp with lanes that have exited is an error, as for mma.sync.  width
   (a power of two <= 32) cuts the warp into segments; a source outside the
   lane's segment returns the lane's own value, as on the hardware. */
template <typename V> inline V shfl(unsigned mask, V v, int width, int (*src)(int, int, int), int arg)
{
    static_assert(sizeof(V) <= sizeof(double), "shuffle of a type wider than 8 bytes");
    if (mask != 0xffffffffu) fail("warp shuffle with a partial mask");
    if (width < 1 || width > 32 || (width & (width - 1))) fail("warp shuffle width not a power of two <= 32");
    {
        Ctx &c = ctx();
        int nt = c.bdim.x * c.bdim.y * c.bdim.z;
        if (nt - (cur()->lin & ~31) < 32) fail("warp shuffle in a warp of fewer than 32 threads");
    }
    const int lane = cur()->lin & 31;
    memcpy(lane_slot(lane), &v, sizeof v);
    syncwarp_collective();
    const int base = lane & ~(width - 1), s = src(lane - base, width, arg);
    V out = v;
    if (s >= 0 && s < width) memcpy(&out, lane_slot(base + s), sizeof out);
    /* every lane reads before any lane's next shuffle overwrites its slot */
    syncwarp_collective();
    return out;
}
inline int shfl_src_idx(int, int width, int arg) { return arg & (width - 1); }
inline int shfl_src_down(int l, int, int arg) { return l + arg; }
inline int shfl_src_xor(int l, int, int arg) { return l ^ arg; }

} /* namespace emu */

template <typename V> inline V __shfl_sync(unsigned mask, V v, int lane, int width = 32)
{
    return emu::shfl(mask, v, width, emu::shfl_src_idx, lane);
}
template <typename V> inline V __shfl_down_sync(unsigned mask, V v, unsigned delta, int width = 32)
{
    return emu::shfl(mask, v, width, emu::shfl_src_down, (int)delta);
}
template <typename V> inline V __shfl_xor_sync(unsigned mask, V v, int lanemask, int width = 32)
{
    return emu::shfl(mask, v, width, emu::shfl_src_xor, lanemask);
}

/* read-only cached load: a plain load, with the alignment check the
   hardware's vector loads imply */
template <typename T> inline T __ldg(const T *p)
{
    if ((uintptr_t)p % alignof(T)) emu::fail("misaligned __ldg");
    return *p;
}

#define NLA_LAUNCH(kern, grid, block, smem, st) emu::on_stream(st), emu::launch(kern, dim3(grid), dim3(block), (smem))
#define threadIdx (emu::cur()->tid)
#define blockIdx (emu::ctx().block)
#define blockDim (emu::ctx().bdim)
#define gridDim (emu::ctx().gdim)
inline void __syncthreads() { emu::syncthreads(); }

namespace emu {
/* device allocations: base -> bytes, for cudaPointerGetAttributes */
inline std::map<uintptr_t, size_t> &allocs() { static std::map<uintptr_t, size_t> m; return m; }
/* the streams created and not yet destroyed (each its own token); 0 and
   the legacy and per-thread handles (1, 2) are always valid */
inline std::map<uintptr_t, int> &streams() { static std::map<uintptr_t, int> m; return m; }

/* pageable host-to-device copies taken but not yet landed (see the header) */
struct pending_copy { void *dst; std::vector<char> data; };
inline std::vector<pending_copy> &pending() { static std::vector<pending_copy> v; return v; }
inline void land_pending()
{
    for (pending_copy &c : pending()) memcpy(c.dst, c.data.data(), c.data.size());
    pending().clear();
}
/* work on stream s waits for the legacy stream's: 0, the legacy and
   per-thread handles, and the streams created blocking */
inline bool syncs_with_legacy(cudaStream_t s)
{
    uintptr_t u = (uintptr_t)s;
    return u <= 2 || (streams().count(u) && !(streams()[u] & 1 /* cudaStreamNonBlocking */));
}
inline void on_stream(cudaStream_t s)
{
    if (syncs_with_legacy(s)) land_pending();
}
inline cudaError_t stream_check(cudaStream_t s)
{
    uintptr_t u = (uintptr_t)s;
    return u <= 2 || streams().count(u) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}
inline bool is_device(const void *p)
{
    auto &m = allocs();
    auto it = m.upper_bound((uintptr_t)p);
    if (it == m.begin()) return false;
    --it;
    return (uintptr_t)p < it->first + (it->second ? it->second : 1);
}
} /* namespace emu */

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
    emu::land_pending();   /* cudaFree synchronizes the device */
    if (!p) return cudaSuccess;
    if (!emu::allocs().erase((uintptr_t)p)) emu::fail("cudaFree of a pointer cudaMalloc did not return");
    free(p);
    return cudaSuccess;
}
/* n == 0 is valid in CUDA, with any pointers (memmove/memset want non-null) */
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k)
{
    static const bool now = getenv("EMU_PAGEABLE") && !strcmp(getenv("EMU_PAGEABLE"), "now");
    bool h2d = k == cudaMemcpyHostToDevice ||
               (k == cudaMemcpyDefault && emu::is_device(d) && !emu::is_device(s));
    if (n && h2d && !now) {   /* taken now, landed later (the header) */
        emu::pending().push_back({ d, std::vector<char>((const char *)s, (const char *)s + n) });
        return cudaSuccess;
    }
    emu::land_pending();
    if (n) memmove(d, s, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t st = 0)
{
    if (emu::stream_check(st) != cudaSuccess) return cudaErrorInvalidResourceHandle;
    emu::on_stream(st);
    if (n) memmove(d, s, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemset(void *d, int v, size_t n) { if (n) memset(d, v, n); return cudaSuccess; }
inline cudaError_t cudaGetLastError() { cudaError_t e = emu::ctx().err; emu::ctx().err = cudaSuccess; return e; }
inline cudaError_t cudaPeekAtLastError() { return emu::ctx().err; }
inline cudaError_t cudaDeviceSynchronize() { emu::land_pending(); return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    if (emu::stream_check(s) != cudaSuccess) return cudaErrorInvalidResourceHandle;
    emu::on_stream(s);
    return cudaSuccess;
}
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

/* The runtime calls of the plugin's glue (src/cuda/plugin.cu), for the
   emulated plugin (tests/libnla-cuda-emu.so): one device of compute
   capability 9.0; streams and events are tokens (every call completes
   when it returns), a stream one of its own that synchronize, memcpy and
   destroy check (emu::stream_check: an unknown or destroyed one is an
   invalid handle); pinned memory is host memory; a pointer is device
   memory when it lies in a cudaMalloc block. */
struct CUevent_st { int dummy; };
typedef struct CUevent_st *cudaEvent_t;
enum { cudaStreamNonBlocking = 1, cudaHostAllocDefault = 0, cudaEventDisableTiming = 2 };
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2, cudaMemoryTypeManaged = 3 };
struct cudaPointerAttributes { cudaMemoryType type; int device; void *devicePointer, *hostPointer; };
inline cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : cudaErrorInvalidValue; }
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    *s = reinterpret_cast<struct CUstream_st *>(new char[1]);
    emu::streams()[(uintptr_t)*s] = (int)flags;
    return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    if (!emu::streams().erase((uintptr_t)s)) return cudaErrorInvalidResourceHandle;
    delete[] reinterpret_cast<char *>(s);
    return cudaSuccess;
}
inline cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned *f)
{
    if (emu::stream_check(s) != cudaSuccess) return cudaErrorInvalidResourceHandle;
    *f = (uintptr_t)s <= 2 ? 0 : (unsigned)emu::streams()[(uintptr_t)s];
    return cudaSuccess;
}
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) { *e = new CUevent_st(); return cudaSuccess; }
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = 0) { return cudaSuccess; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }
inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned) { *p = malloc(n ? n : 1); return *p ? cudaSuccess : cudaErrorMemoryAllocation; }
inline cudaError_t cudaFreeHost(void *p) { emu::land_pending(); free(p); return cudaSuccess; }
inline cudaError_t cudaMemcpy2DAsync(void *d, size_t dpitch, const void *s, size_t spitch, size_t width, size_t rows,
                                     cudaMemcpyKind, cudaStream_t st = 0)
{
    if (width > dpitch || width > spitch) return cudaErrorInvalidValue;
    if (emu::stream_check(st) != cudaSuccess) return cudaErrorInvalidResourceHandle;
    emu::on_stream(st);
    for (size_t r = 0; r < rows; r++) memmove((char *)d + r * dpitch, (const char *)s + r * spitch, width);
    return cudaSuccess;
}
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
