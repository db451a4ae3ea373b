/*
 * gemm.cu - the project's own CUDA GEMM kernels (s and d, strided batched).
 *
 * double: FP64 tensor cores through inline PTX.  The default is the sm_90
 *   shape mma.sync.m16n8k16.f64; the sm_80 shape m8n8k4 is kept as a second
 *   instruction choice over the same fragments (NLA_CUDA_DGEMM=mma884).
 *   Block tile 128x128x16 (64x64x16 when the big tiles would not fill the
 *   GPU), warp tile 64x32 (32x32), a 4-stage cp.async pipeline with 16-byte
 *   copies when the operands are aligned (8-byte copies otherwise).  The
 *   shared-memory layout follows the global one (no transposition in the
 *   copies); a padding of 4 doubles per row makes every fragment load of
 *   both layouts conflict-free.
 * float: SIMT FFMA kernel (no TF32: it would change the accuracy), block tile
 *   128x128x8 (64x64x8 for small problems), 8x8 outputs per thread in a
 *   2x2 arrangement of 4x4 sub-tiles, warp tile 64x32, operands staged
 *   through registers into double-buffered shared memory (transposed there
 *   when the operand is k-contiguous in memory), 16-byte loads and stores
 *   when aligned.  The same template serves double with NLA_CUDA_DGEMM=simt,
 *   which exists to cross-check the tensor-core kernels.
 *
 * Tile size: the 128x128 tiles once they alone fill the SMs, else the small
 * ones; NLA_CUDA_GEMM_TILES=big or =small forces one for every call, so that
 * tests reach each kernel at any size.
 *
 * Edges: every copy is predicated (cp.async zero-fills past m, n and k), so
 * any m, n, k and any leading dimension work; the epilogue stores only
 * inside C.  Batches go in gridDim.z (chunks of 65535).  k == 0 or
 * alpha == 0 runs a scaling kernel that never reads A or B; beta == 0 never
 * reads C.
 */
#include "cuda_kernels.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "launch.cuh"

namespace {

/* ------------------------------------------------------------------ common */

template <typename T>
struct GemmArgs {
    int64_t m, n, k;
    T alpha, beta;
    const T *a; int64_t lda, sa;
    const T *b; int64_t ldb, sb;
    T *c; int64_t ldc, sc;
    int64_t tiles_m, tiles_n;
};

constexpr int kGroupM = 8;   /* tile-rows per rasterisation group (L2 reuse) */

/* Block index -> (tile row, tile column), grouped so that consecutive blocks
   share panels of A and B in L2. */
__device__ __forceinline__ void tile_coords(int64_t bid, int64_t tiles_m, int64_t tiles_n,
                                            int64_t *tm, int64_t *tn)
{
    int64_t width = (int64_t)kGroupM * tiles_n;
    int64_t group = bid / width;
    int64_t first = group * kGroupM;
    int64_t gsize = tiles_m - first < kGroupM ? tiles_m - first : kGroupM;
    int64_t r = bid - group * width;
    *tm = first + r % gsize;
    *tn = r / gsize;
}

/* Where a block's tile lies, for batch member blockIdx.z: its origin
   (m0, n0) in C, the origins op(A)(m0, 0) and op(B)(0, n0) of its slabs,
   the rows of op(A) and op(B)' left from there, and the BK-steps of k. */
template <typename T, bool TA, bool TB, int BM, int BN, int BK>
struct TileOrigin {
    int64_t m0, n0, rows_a, rows_b;
    const T *ga, *gb;
    T *gc;
    int nk;
    __device__ explicit TileOrigin(const GemmArgs<T> &p)
    {
        int64_t tm, tn;
        const int64_t z = blockIdx.z;
        tile_coords(blockIdx.x, p.tiles_m, p.tiles_n, &tm, &tn);
        m0 = tm * BM;
        n0 = tn * BN;
        ga = p.a + z * p.sa + (TA ? m0 * p.lda : m0);
        gb = p.b + z * p.sb + (TB ? n0 : n0 * p.ldb);
        gc = p.c + z * p.sc;
        rows_a = p.m - m0;
        rows_b = p.n - n0;
        nk = (int)((p.k + BK - 1) / BK);
    }
};

__device__ __forceinline__ unsigned smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* cp.async with zero fill: copies src_bytes (0..BYTES) and zeroes the rest. */
template <int BYTES> __device__ __forceinline__ void cp_async(void *dst, const void *src, int src_bytes);
#ifdef NLA_CUDA_EMU
template <int BYTES> __device__ __forceinline__ void cp_async(void *dst, const void *src, int src_bytes)
{
    emu::cp_async(dst, src, BYTES, src_bytes);
}
__device__ __forceinline__ void cp_async_commit() { emu::cp_commit(); }
template <int N> __device__ __forceinline__ void cp_async_wait() { emu::cp_wait(N); }
#else
template <> __device__ __forceinline__ void cp_async<16>(void *dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 :: "r"(smem_u32(dst)), "l"(src), "r"(src_bytes) : "memory");
}
template <> __device__ __forceinline__ void cp_async<8>(void *dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n"
                 :: "r"(smem_u32(dst)), "l"(src), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
}
#endif

/* ------------------------------------------------- FP64 tensor-core kernel */

/* d += a*b, 16x8x16 (sm_90).  a[v0 + 2*v1] = A(g + 8*v0, t + 4*v1),
   b[v] = B(t + 4*v, g), d[v0 + 2*v1] = D(g + 8*v1, 2*t + v0), with
   g = lane/4, t = lane%4. */
__device__ __forceinline__ void dmma_16816(double d[4], const double a[8], const double b[4])
{
#ifdef NLA_CUDA_EMU
    emu::mma_f64(1, d, a, b);
#else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, "
                 "{%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
                   "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#endif
}

/* d += a*b, 8x8x4 (sm_80): a = A(g, t), b = B(t, g), d[v] = D(g, 2*t + v). */
__device__ __forceinline__ void dmma_884(double &d0, double &d1, double a, double b)
{
#ifdef NLA_CUDA_EMU
    double d[2] = {d0, d1};
    emu::mma_f64(0, d, &a, &b);
    d0 = d[0];
    d1 = d[1];
#else
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 "
                 "{%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d0), "+d"(d1) : "d"(a), "d"(b));
#endif
}

template <int BM_, int BN_, int WM_, int WN_, int STAGES_>
struct DmmaCfg {
    static constexpr int BM = BM_, BN = BN_, BK = 16, WM = WM_, WN = WN_, STAGES = STAGES_;
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int PAD = 4;   /* doubles; makes every row pitch == 4 (mod 16) */
    /* shared-memory tile sizes in doubles, for the two layouts */
    template <bool KCONTIG, int ROWS> struct Tile {
        /* KCONTIG: [ROWS][BK+PAD]; otherwise [BK][ROWS+PAD] */
        static constexpr int PITCH = KCONTIG ? BK + PAD : ROWS + PAD;
        static constexpr int SIZE = KCONTIG ? ROWS * (BK + PAD) : BK * (ROWS + PAD);
    };
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0, "tile shape");
};

using DmmaBig = DmmaCfg<128, 128, 64, 32, 4>;
using DmmaSmall = DmmaCfg<64, 64, 32, 32, 4>;

template <class Cfg, bool TA, bool TB>
constexpr size_t dmma_smem_bytes()
{
    return sizeof(double) * Cfg::STAGES *
           (Cfg::template Tile<TA, Cfg::BM>::SIZE + Cfg::template Tile<!TB, Cfg::BN>::SIZE);
}

/* Copies of one operand's (ROWS x BK) slab into shared memory.  KCONTIG:
   element (r, kk) is at g[kk + r*ld] and goes to s[r*PITCH + kk]; otherwise
   it is at g[r + kk*ld] and goes to s[kk*PITCH + r].  Either way a copy moves
   VEC elements that are contiguous in memory: element `pos` of `line`, at
   g[pos + line*ld].  Each thread owns the same (pos, line0 + it*LSTEP) copies
   in every k-tile, so its addresses are set up once.  Everything outside
   rows_left x k_left is zero-filled. */
template <class Cfg, bool KCONTIG, int ROWS, int VEC>
struct DmmaSlab {
    static constexpr int BK = Cfg::BK;
    static constexpr int PITCH = Cfg::template Tile<KCONTIG, ROWS>::PITCH;
    static constexpr int CPL = (KCONTIG ? BK : ROWS) / VEC;   /* copies per line */
    static constexpr int LINES = KCONTIG ? ROWS : BK;
    static constexpr int LSTEP = Cfg::THREADS / CPL;           /* lines per pass of the block */
    static constexpr int ITERS = LINES / LSTEP;
    static_assert(Cfg::THREADS % CPL == 0 && LINES % LSTEP == 0, "copies must divide evenly");

    const double *safe;   /* the tile origin: a valid address for empty copies */
    const double *g;      /* this thread's first copy in k-tile 0 */
    int64_t step;         /* LSTEP lines */
    int64_t ktile;        /* one k-tile further */
    int64_t pos_left;     /* room along the vector (KCONTIG: filled in per tile) */
    int64_t lines_left;   /* KCONTIG: rows left; otherwise k left (per tile) */
    int soff;             /* shared offset of the first copy */
    int pos, line0;

    __device__ __forceinline__ DmmaSlab(const double *tile, int64_t ld, int64_t rows_left, int tid)
    {
        safe = tile;
        pos = (tid % CPL) * VEC;
        line0 = tid / CPL;
        g = tile + pos + line0 * ld;
        step = (int64_t)LSTEP * ld;
        ktile = KCONTIG ? (int64_t)BK : (int64_t)BK * ld;
        pos_left = KCONTIG ? 0 : rows_left - pos;
        lines_left = KCONTIG ? rows_left - line0 : 0;
        soff = line0 * PITCH + pos;
    }
    __device__ __forceinline__ void load(double *s, int kt, int64_t k_left) const
    {
        const double *src = g + kt * ktile;
        int64_t along = KCONTIG ? k_left - pos : pos_left;
        int64_t lines = KCONTIG ? lines_left : k_left - line0;
        int full = along >= VEC ? VEC : (along > 0 ? (int)along : 0);
#pragma unroll
        for (int it = 0; it < ITERS; it++) {
            int cnt = it * LSTEP < lines ? full : 0;
            cp_async<8 * VEC>(s + soff + it * LSTEP * PITCH, cnt ? src : safe, 8 * cnt);
            src += step;
        }
    }
};

template <class Cfg, bool TA, bool TB, int VEC, bool K16>
__global__ void __launch_bounds__(Cfg::THREADS, 1) dgemm_mma_kernel(GemmArgs<double> p)
{
    NLA_BOUNDS(Cfg::THREADS);
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, WM = Cfg::WM, WN = Cfg::WN;
    constexpr int STAGES = Cfg::STAGES;
    constexpr int MT = WM / 16, NT = WN / 8;
    using TileA = typename Cfg::template Tile<TA, BM>;
    using TileB = typename Cfg::template Tile<!TB, BN>;
    constexpr int PA = TileA::PITCH, PB = TileB::PITCH;

    NLA_EXTERN_SHARED(double, smem);
    double *sA = smem;
    double *sB = smem + STAGES * TileA::SIZE;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wrow = (warp % Cfg::WARPS_M) * WM, wcol = (warp / Cfg::WARPS_M) * WN;

    const TileOrigin<double, TA, TB, BM, BN, BK> o(p);
    const int64_t m0 = o.m0, n0 = o.n0, rows_a = o.rows_a, rows_b = o.rows_b;
    const double *ga = o.ga, *gb = o.gb;
    double *gc = o.gc;
    const int nk = o.nk;

    const DmmaSlab<Cfg, TA, BM, VEC> slab_a(ga, p.lda, rows_a, tid);
    const DmmaSlab<Cfg, !TB, BN, VEC> slab_b(gb, p.ldb, rows_b, tid);
    auto load_stage = [&](int stage, int kt) {
        int64_t k_left = p.k - (int64_t)kt * BK;
        slab_a.load(sA + stage * TileA::SIZE, kt, k_left);
        slab_b.load(sB + stage * TileB::SIZE, kt, k_left);
    };

    double acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int v = 0; v < 4; v++) acc[i][j][v] = 0.0;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nk) load_stage(s, s);
        cp_async_commit();
    }

    for (int kt = 0; kt < nk; kt++) {
        cp_async_wait<STAGES - 2>();   /* this thread's copies of tile kt landed */
        __syncthreads();               /* everyone's landed; everyone is done with tile kt-1 */
        {
            int nt = kt + STAGES - 1;  /* refill the stage tile kt-1 used */
            if (nt < nk) load_stage(nt % STAGES, nt);
            cp_async_commit();
        }
        const double *a = sA + (kt % STAGES) * TileA::SIZE;
        const double *b = sB + (kt % STAGES) * TileB::SIZE;
        /* fragments: the k index of the v-th value of lane (g, t) is t + 4*v */
        double bf[NT][4];
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int v = 0; v < 4; v++) {
                int col = wcol + j * 8 + g, kk = t + 4 * v;
                bf[j][v] = TB ? b[kk * PB + col] : b[col * PB + kk];
            }
#pragma unroll
        for (int i = 0; i < MT; i++) {
            double af[8];
#pragma unroll
            for (int v1 = 0; v1 < 4; v1++)
#pragma unroll
                for (int v0 = 0; v0 < 2; v0++) {
                    int row = wrow + i * 16 + g + 8 * v0, kk = t + 4 * v1;
                    af[v0 + 2 * v1] = TA ? a[row * PA + kk] : a[kk * PA + row];
                }
#pragma unroll
            for (int j = 0; j < NT; j++) {
                if (K16) {
                    dmma_16816(acc[i][j], af, bf[j]);
                } else {
#pragma unroll
                    for (int v = 0; v < 4; v++) {
                        dmma_884(acc[i][j][0], acc[i][j][1], af[2 * v], bf[j][v]);
                        dmma_884(acc[i][j][2], acc[i][j][3], af[2 * v + 1], bf[j][v]);
                    }
                }
            }
        }
    }
    cp_async_wait<0>();

    const double alpha = p.alpha, beta = p.beta;
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int v = 0; v < 4; v++) {
                int64_t row = m0 + wrow + i * 16 + g + 8 * (v >> 1);
                int64_t col = n0 + wcol + j * 8 + 2 * t + (v & 1);
                if (row < p.m && col < p.n) {
                    double *cp = gc + row + col * p.ldc;
                    double r = alpha * acc[i][j][v];
                    if (beta != 0.0) r = fma(beta, *cp, r);
                    *cp = r;
                }
            }
}

/* ------------------------------------------------------------ SIMT kernel */

/* four consecutive elements; p must be 16-byte aligned */
__device__ __forceinline__ void ld4(float (&r)[4], const float *p)
{
    float4 v = *reinterpret_cast<const float4 *>(p);
    r[0] = v.x; r[1] = v.y; r[2] = v.z; r[3] = v.w;
}
__device__ __forceinline__ void ld4(double (&r)[4], const double *p)
{
    double2 v0 = reinterpret_cast<const double2 *>(p)[0];
    double2 v1 = reinterpret_cast<const double2 *>(p)[1];
    r[0] = v0.x; r[1] = v0.y; r[2] = v1.x; r[3] = v1.y;
}
__device__ __forceinline__ void st4(float *p, const float (&r)[4])
{
    *reinterpret_cast<float4 *>(p) = make_float4(r[0], r[1], r[2], r[3]);
}
__device__ __forceinline__ void st4(double *p, const double (&r)[4])
{
    reinterpret_cast<double2 *>(p)[0] = make_double2(r[0], r[1]);
    reinterpret_cast<double2 *>(p)[1] = make_double2(r[2], r[3]);
}

template <typename T, int BM_, int BN_>
struct SimtCfg {
    static constexpr int BM = BM_, BN = BN_, BK = 8;
    static constexpr int WM = 64, WN = 32;            /* lanes 8 (m) x 4 (n), 8x8 each */
    static constexpr int THREADS = 32 * (BM / WM) * (BN / WN);
    static constexpr int PA = BM + 4, PB = BN + 4;    /* keeps 16-byte rows, spreads transposed stores */
    static constexpr int MIN_BLOCKS = sizeof(T) == 4 ? 2 : 1;
};

/* Global -> registers: the (rows x BK) slab of an operand in chunks of four
   elements along the contiguous dimension (KCONTIG: along k).  Elements
   outside rows_left x k_left are zero. */
template <class Cfg, typename T, bool KCONTIG, int ROWS, bool VEC>
struct SimtSlab {
    static constexpr int BK = Cfg::BK;
    static constexpr int CPL = (KCONTIG ? BK : ROWS) / 4;
    static constexpr int NCHUNK = (KCONTIG ? ROWS : BK) * CPL;
    static constexpr int PER_THREAD = NCHUNK / Cfg::THREADS;
    static_assert(NCHUNK % Cfg::THREADS == 0, "chunks must divide evenly");

    static __device__ __forceinline__ void chunk(int c, int *r, int *kk)
    {
        int line = c / CPL, pos = (c % CPL) * 4;
        if (KCONTIG) { *r = line; *kk = pos; } else { *r = pos; *kk = line; }
    }
    static __device__ __forceinline__ void load(T (&v)[PER_THREAD][4], const T *g, int64_t ld,
                                                int64_t rows_left, int64_t k_left, int tid)
    {
#pragma unroll
        for (int it = 0; it < PER_THREAD; it++) {
            int r, kk;
            chunk(tid + it * Cfg::THREADS, &r, &kk);
            int64_t along = KCONTIG ? k_left - kk : rows_left - r;
            bool other = KCONTIG ? r < rows_left : kk < k_left;
            const T *src = KCONTIG ? g + kk + r * ld : g + r + kk * ld;
            if (VEC && other && along >= 4) {
                ld4(v[it], src);
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++) v[it][q] = (other && q < along) ? src[q] : T(0);
            }
        }
    }
    /* registers -> shared [BK][ROWS + 4] (row index contiguous) */
    static __device__ __forceinline__ void store(T *s, const T (&v)[PER_THREAD][4], int tid)
    {
        constexpr int P = ROWS + 4;
#pragma unroll
        for (int it = 0; it < PER_THREAD; it++) {
            int r, kk;
            chunk(tid + it * Cfg::THREADS, &r, &kk);
            if (KCONTIG) {
#pragma unroll
                for (int q = 0; q < 4; q++) s[(kk + q) * P + r] = v[it][q];
            } else {
                st4(s + kk * P + r, v[it]);
            }
        }
    }
};

template <typename T, class Cfg, bool TA, bool TB, bool VEC>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) gemm_simt_kernel(GemmArgs<T> p)
{
    NLA_BOUNDS(Cfg::THREADS);
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, PA = Cfg::PA, PB = Cfg::PB;
    using SlabA = SimtSlab<Cfg, T, TA, BM, VEC>;
    using SlabB = SimtSlab<Cfg, T, !TB, BN, VEC>;
    __shared__ __align__(16) T sA[2][BK * PA];
    __shared__ __align__(16) T sB[2][BK * PB];

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int tm = lane & 7, tn = lane >> 3;
    const int wrow = (warp % (BM / Cfg::WM)) * Cfg::WM, wcol = (warp / (BM / Cfg::WM)) * Cfg::WN;

    const TileOrigin<T, TA, TB, BM, BN, BK> o(p);
    const int64_t m0 = o.m0, n0 = o.n0, rows_a = o.rows_a, rows_b = o.rows_b;
    const T *ga = o.ga, *gb = o.gb;
    T *gc = o.gc;
    const int nk = o.nk;

    T ra[SlabA::PER_THREAD][4], rb[SlabB::PER_THREAD][4];
    auto gload = [&](int kt) {
        int64_t k0 = (int64_t)kt * BK;
        SlabA::load(ra, ga + (TA ? k0 : k0 * p.lda), p.lda, rows_a, p.k - k0, tid);
        SlabB::load(rb, gb + (TB ? k0 * p.ldb : k0), p.ldb, rows_b, p.k - k0, tid);
    };

    T acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) acc[i][j] = T(0);

    gload(0);
    SlabA::store(sA[0], ra, tid);
    SlabB::store(sB[0], rb, tid);
    __syncthreads();

    for (int kt = 0; kt < nk; kt++) {
        const int cur = kt & 1;
        if (kt + 1 < nk) gload(kt + 1);     /* in flight during the FMAs */
        const T *a = sA[cur] + wrow + tm * 4;
        const T *b = sB[cur] + wcol + tn * 4;
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            T af[8], bf[8];
            ld4(*reinterpret_cast<T(*)[4]>(af), a + kk * PA);
            ld4(*reinterpret_cast<T(*)[4]>(af + 4), a + kk * PA + 32);
            ld4(*reinterpret_cast<T(*)[4]>(bf), b + kk * PB);
            ld4(*reinterpret_cast<T(*)[4]>(bf + 4), b + kk * PB + 16);
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++) acc[i][j] = fma(af[i], bf[j], acc[i][j]);
        }
        if (kt + 1 < nk) {
            /* the other buffer was last read in iteration kt-1, before its barrier */
            SlabA::store(sA[cur ^ 1], ra, tid);
            SlabB::store(sB[cur ^ 1], rb, tid);
        }
        __syncthreads();
    }

    /* rows wrow + tm*4 + {0..3} (+32), columns wcol + tn*4 + {0..3} (+16) */
    const bool cvec = VEC && ((reinterpret_cast<uintptr_t>(gc) & 15) == 0) &&
                      (p.ldc % (16 / (int64_t)sizeof(T)) == 0);
    const T alpha = p.alpha, beta = p.beta;
#pragma unroll
    for (int j = 0; j < 8; j++) {
        int64_t col = n0 + wcol + tn * 4 + (j & 3) + (j >> 2) * 16;
        if (col >= p.n) continue;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int64_t row = m0 + wrow + tm * 4 + h * 32;
            T *cp = gc + row + col * p.ldc;
            T r[4];
#pragma unroll
            for (int q = 0; q < 4; q++) r[q] = alpha * acc[h * 4 + q][j];
            if (cvec && row + 4 <= p.m) {
                if (beta != T(0)) {
                    T old[4];
                    ld4(old, cp);
#pragma unroll
                    for (int q = 0; q < 4; q++) r[q] = fma(beta, old[q], r[q]);
                }
                st4(cp, r);
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++)
                    if (row + q < p.m) cp[q] = beta != T(0) ? fma(beta, cp[q], r[q]) : r[q];
            }
        }
    }
}

/* ------------------------------------------------------- C = beta*C only */

template <typename T>
__global__ void gemm_scale_kernel(int64_t m, int64_t n, T beta, T *c, int64_t ldc, int64_t sc)
{
    T *cz = c + (int64_t)blockIdx.z * sc;
    for (int64_t col = blockIdx.y; col < n; col += gridDim.y)
        for (int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; row < m;
             row += (int64_t)gridDim.x * blockDim.x) {
            T *cp = cz + row + col * ldc;
            *cp = beta != T(0) ? beta * *cp : T(0);
        }
}

/* --------------------------------------------------------------- launches */

constexpr int64_t kMaxGridZ = 65535;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int device_sms()
{
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms < 1)
        sms = 1;
    return sms;
}

/* NLA_CUDA_GEMM_TILES=big | small: every GEMM on the 128x128 tiles or on
   the small ones, whatever its size, so that tests and the GPU check reach
   both kernels of each path; otherwise the big tiles once they alone fill
   the SMs. */
bool big_tiles(int64_t tiles)
{
    static const int forced = [] {
        const char *e = std::getenv("NLA_CUDA_GEMM_TILES");
        return e && std::strcmp(e, "big") == 0 ? 1 : e && std::strcmp(e, "small") == 0 ? 0 : -1;
    }();
    return forced >= 0 ? forced == 1 : tiles >= device_sms();
}

bool aligned16(const void *p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

/* Launch `kern` over the tiles of each batch member, batches in gridDim.z. */
template <typename T, typename K>
cudaError_t launch_tiles(K kern, int bm, int bn, int threads, size_t smem, cudaStream_t st,
                         GemmArgs<T> p, int64_t batch)
{
    p.tiles_m = ceil_div(p.m, bm);
    p.tiles_n = ceil_div(p.n, bn);
    int64_t tiles = p.tiles_m * p.tiles_n;
    if (tiles > 0x7fffffff) return cudaErrorInvalidConfiguration;
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return e;
    }
    for (int64_t z0 = 0; z0 < batch; z0 += kMaxGridZ) {
        GemmArgs<T> q = p;
        q.a += z0 * p.sa;
        q.b += z0 * p.sb;
        q.c += z0 * p.sc;
        int64_t nz = batch - z0 < kMaxGridZ ? batch - z0 : kMaxGridZ;
        NLA_LAUNCH(kern, dim3((unsigned)tiles, 1, (unsigned)nz), dim3(threads), smem, st)(q);
    }
    return cudaGetLastError();
}

template <typename T>
cudaError_t launch_scale(cudaStream_t st, int64_t m, int64_t n, T beta, T *c, int64_t ldc, int64_t sc,
                         int64_t batch)
{
    unsigned gx = (unsigned)(ceil_div(m, 256) < 64 ? ceil_div(m, 256) : 64);
    unsigned gy = (unsigned)(n < 1024 ? n : 1024);
    for (int64_t z0 = 0; z0 < batch; z0 += kMaxGridZ) {
        int64_t nz = batch - z0 < kMaxGridZ ? batch - z0 : kMaxGridZ;
        void (*kern)(int64_t, int64_t, T, T *, int64_t, int64_t) = gemm_scale_kernel<T>;
        NLA_LAUNCH(kern, dim3(gx, gy, (unsigned)nz), dim3(256), 0, st)(m, n, beta, c + z0 * sc, ldc, sc);
    }
    return cudaGetLastError();
}

template <typename T, class Cfg, bool TA, bool TB>
cudaError_t launch_simt_tt(const GemmArgs<T> &p, int64_t batch, bool vec, cudaStream_t st)
{
    if (vec)
        return launch_tiles<T>(gemm_simt_kernel<T, Cfg, TA, TB, true>, Cfg::BM, Cfg::BN, Cfg::THREADS,
                               0, st, p, batch);
    return launch_tiles<T>(gemm_simt_kernel<T, Cfg, TA, TB, false>, Cfg::BM, Cfg::BN, Cfg::THREADS, 0,
                           st, p, batch);
}

template <typename T, class Cfg>
cudaError_t launch_simt(int ta, int tb, const GemmArgs<T> &p, int64_t batch, bool vec, cudaStream_t st)
{
    if (!ta && !tb) return launch_simt_tt<T, Cfg, false, false>(p, batch, vec, st);
    if (!ta && tb) return launch_simt_tt<T, Cfg, false, true>(p, batch, vec, st);
    if (ta && !tb) return launch_simt_tt<T, Cfg, true, false>(p, batch, vec, st);
    return launch_simt_tt<T, Cfg, true, true>(p, batch, vec, st);
}

template <class Cfg, bool TA, bool TB, bool K16>
cudaError_t launch_dmma_tt(const GemmArgs<double> &p, int64_t batch, bool vec, cudaStream_t st)
{
    constexpr size_t smem = dmma_smem_bytes<Cfg, TA, TB>();
    if (vec)
        return launch_tiles<double>(dgemm_mma_kernel<Cfg, TA, TB, 2, K16>, Cfg::BM, Cfg::BN, Cfg::THREADS,
                                    smem, st, p, batch);
    return launch_tiles<double>(dgemm_mma_kernel<Cfg, TA, TB, 1, K16>, Cfg::BM, Cfg::BN, Cfg::THREADS,
                                smem, st, p, batch);
}

template <class Cfg, bool K16>
cudaError_t launch_dmma(int ta, int tb, const GemmArgs<double> &p, int64_t batch, bool vec, cudaStream_t st)
{
    if (!ta && !tb) return launch_dmma_tt<Cfg, false, false, K16>(p, batch, vec, st);
    if (!ta && tb) return launch_dmma_tt<Cfg, false, true, K16>(p, batch, vec, st);
    if (ta && !tb) return launch_dmma_tt<Cfg, true, false, K16>(p, batch, vec, st);
    return launch_dmma_tt<Cfg, true, true, K16>(p, batch, vec, st);
}

/* NLA_CUDA_DGEMM=mma16816 (default) | mma884 | simt: which double kernel. */
enum { DGEMM_MMA16816, DGEMM_MMA884, DGEMM_SIMT };
int dgemm_kernel_choice()
{
    static const int choice = [] {
        const char *e = std::getenv("NLA_CUDA_DGEMM");
        if (e && std::strcmp(e, "mma884") == 0) return (int)DGEMM_MMA884;
        if (e && std::strcmp(e, "simt") == 0) return (int)DGEMM_SIMT;
        return (int)DGEMM_MMA16816;
    }();
    return choice;
}

template <typename T>
bool bad_args(int ta, int tb, int64_t m, int64_t n, int64_t k, const T *a, int64_t lda, const T *b,
              int64_t ldb, const T *c, int64_t ldc, int64_t batch, bool reads)
{
    if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1)) return true;
    if (m < 1 || n < 1 || k < 0 || batch < 1 || !c || ldc < m) return true;
    /* alpha == 0 or k == 0 reads neither A nor B: they may be NULL */
    if (reads && (!a || !b || lda < (ta ? k : m) || ldb < (tb ? n : k))) return true;
    return false;
}

} /* namespace */

extern "C" cudaError_t nla_cuda_gemm_d(cudaStream_t st, int ta, int tb, int64_t m, int64_t n, int64_t k,
                                       double alpha, const double *a, int64_t lda, int64_t sa,
                                       const double *b, int64_t ldb, int64_t sb, double beta,
                                       double *c, int64_t ldc, int64_t sc, int64_t batch)
{
    if (bad_args(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, batch, k > 0 && alpha != 0.0))
        return cudaErrorInvalidValue;
    if (k == 0 || alpha == 0.0) return launch_scale<double>(st, m, n, beta, c, ldc, sc, batch);
    GemmArgs<double> p{m, n, k, alpha, beta, a, lda, sa, b, ldb, sb, c, ldc, sc, 0, 0};
    /* 16-byte copies need every slab row to start 16-byte aligned */
    const bool vec = aligned16(a) && aligned16(b) && lda % 2 == 0 && ldb % 2 == 0 && sa % 2 == 0 &&
                     sb % 2 == 0;
    const int choice = dgemm_kernel_choice();
    if (choice == DGEMM_SIMT) return launch_simt<double, SimtCfg<double, 128, 128>>(ta, tb, p, batch, vec, st);
    const bool big = big_tiles(ceil_div(m, DmmaBig::BM) * ceil_div(n, DmmaBig::BN) * batch);
    if (choice == DGEMM_MMA884)
        return big ? launch_dmma<DmmaBig, false>(ta, tb, p, batch, vec, st)
                   : launch_dmma<DmmaSmall, false>(ta, tb, p, batch, vec, st);
    return big ? launch_dmma<DmmaBig, true>(ta, tb, p, batch, vec, st)
               : launch_dmma<DmmaSmall, true>(ta, tb, p, batch, vec, st);
}

extern "C" cudaError_t nla_cuda_gemm_s(cudaStream_t st, int ta, int tb, int64_t m, int64_t n, int64_t k,
                                       float alpha, const float *a, int64_t lda, int64_t sa,
                                       const float *b, int64_t ldb, int64_t sb, float beta, float *c,
                                       int64_t ldc, int64_t sc, int64_t batch)
{
    if (bad_args(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, batch, k > 0 && alpha != 0.0f))
        return cudaErrorInvalidValue;
    if (k == 0 || alpha == 0.0f) return launch_scale<float>(st, m, n, beta, c, ldc, sc, batch);
    GemmArgs<float> p{m, n, k, alpha, beta, a, lda, sa, b, ldb, sb, c, ldc, sc, 0, 0};
    const bool vec = aligned16(a) && aligned16(b) && lda % 4 == 0 && ldb % 4 == 0 && sa % 4 == 0 &&
                     sb % 4 == 0;
    const bool big = big_tiles(ceil_div(m, 128) * ceil_div(n, 128) * batch);
    return big ? launch_simt<float, SimtCfg<float, 128, 128>>(ta, tb, p, batch, vec, st)
               : launch_simt<float, SimtCfg<float, 64, 64>>(ta, tb, p, batch, vec, st);
}
