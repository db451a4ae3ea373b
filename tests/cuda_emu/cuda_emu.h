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
 *    provided (code using them does not compile).
 *  - Streams are queues (cuda_emu_runtime.h has the rules): a launch, an
 *    asynchronous copy or an event record runs only when something waits
 *    for it, a cudaStreamNonBlocking stream runs out of order with respect
 *    to the legacy stream, and a copy from pageable memory is taken at the
 *    call but lands later.  A missing synchronization leaves the host or
 *    another stream reading stale data (NaN) and a test fails.
 *    EMU_STREAMS=now runs everything at the call.
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
 *    sm_90).  A block larger than the kernel's __launch_bounds__ (stated
 *    again by NLA_BOUNDS at the top of its body, src/cuda/launch.cuh) is an
 *    error, as the GPU refuses that launch.  Registers and static shared
 *    memory are checked in the compiled plugin (tests/check-cuda-sass.sh).
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
 *    memory (tracked, for the copy rules), cudaMemcpy2DAsync copies row by
 *    row, cudaMalloc of more than 141 GiB fails with
 *    cudaErrorMemoryAllocation, and cudaPointerGetAttributes says "device"
 *    for addresses inside a cudaMalloc block (tracked; cudaFree of anything
 *    else is an error).  The emulation keeps global state and is for one
 *    host thread.
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
#define NLA_BOUNDS(n) emu::bounds(n)

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
/* NLA_BOUNDS(n): the block may not exceed the kernel's __launch_bounds__ */
inline void bounds(unsigned n)
{
    Ctx &c = ctx();
    const unsigned nt = c.bdim.x * c.bdim.y * c.bdim.z;
    if (nt > n) {
        fprintf(stderr, "block of %u threads, kernel bounded to %u\n", nt, n);
        fail("block larger than the kernel's __launch_bounds__ (a GPU refuses the launch)");
    }
}
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
    printf(" EMU_CPASYNC=%s EMU_STREAMS=%s\n", cpasync_deferred() ? "wait" : "now",
           getenv("EMU_STREAMS") && !strcmp(getenv("EMU_STREAMS"), "now") ? "now" : "queue");
    fflush(stdout);
}

/* The grid runs when its stream's queue reaches it (cuda_emu_runtime.h); the
   configuration is checked at the launch, as cudaGetLastError reports it. */
inline bool enqueue(cudaStream_t st, std::function<void()> work);

template <typename F>
struct Launcher {
    F *fn;
    dim3 grid, block;
    size_t smem;
    cudaStream_t st;
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
        F *f = fn;
        const dim3 g = grid, b = block;
        const size_t sm = smem;
        if (!enqueue(st, [f, g, b, sm, args...]() { run_grid([f, args...]() { f(args...); }, g, b, sm); }))
            c.err = cudaErrorInvalidResourceHandle;
    }
    static void run_grid(std::function<void()> body, dim3 grid, dim3 block, size_t smem)
    {
        Ctx &c = ctx();
        KernelFn k;
        k.f = std::move(body);
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
template <typename F> Launcher<F> launch(F *fn, dim3 g, dim3 b, size_t smem, cudaStream_t st) { return Launcher<F>{fn, g, b, smem, st}; }

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

#define NLA_LAUNCH(kern, grid, block, smem, st) emu::launch(kern, dim3(grid), dim3(block), (smem), (st))
#define threadIdx (emu::cur()->tid)
#define blockIdx (emu::ctx().block)
#define blockDim (emu::ctx().bdim)
#define gridDim (emu::ctx().gdim)
inline void __syncthreads() { emu::syncthreads(); }

#include "cuda_emu_runtime.h"
