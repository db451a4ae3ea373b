/*
 * level2_band.cuh - gbmv on the device (s and d): part of level2.cu, which
 * includes it after its helpers (L2_THREADS, V16, load16, store_y, cdiv,
 * vbase, aligned16); not a header of its own.
 *
 *   gbmv N   a block owns 256 rows and walks the columns that touch them in
 *            chunks: it stages the chunk's band entries for its rows into
 *            shared memory (one coalesced walk in storage order, 16-byte
 *            loads when the band is stored contiguously; a tile of odd
 *            pitch, read without bank conflicts), then each thread adds its
 *            row's entries.  Bands wider than the block stage by row
 *            instead of by band position, so shared memory stays bounded.
 *   gbmv T   a group of L lanes per column, L growing with the band: column
 *            j of A is column j of the band storage, contiguous.
 */
#ifndef NLA_CUDA_LEVEL2_BAND_CUH
#define NLA_CUDA_LEVEL2_BAND_CUH

#define GBMV_TILE_BYTES (24 * 1024)

namespace {

/* ------------------------------------------------------------- gbmv N */

/* band tile pitch, odd: a warp's reads, pitch elements apart, hit 32 banks
   (8-byte elements: 16 distinct bank pairs per half-warp) for every band */
__host__ __device__ __forceinline__ int gbmv_pitch(int64_t band)
{
    return (int)(band | 1);
}

/* Rows [i0, i0+R) of one block; columns that touch them, cc at a time.
   Band staging (!WIDE): tile[r + c*pitch] = ab[r + j*ldab], r the band
   position of row j+r-ku.  Row staging (WIDE, band > R): tile[(i-i0) + c*R]. */
template <typename T, bool WIDE, bool VEC>
__global__ void __launch_bounds__(L2_THREADS)
gbmv_n(int64_t m, int64_t n, int64_t kl, int64_t ku, T alpha, const T *__restrict__ ab,
       int64_t ldab, const T *__restrict__ x, int64_t incx, T beta, T *__restrict__ y,
       int64_t incy, int cc_max)
{
    NLA_BOUNDS(L2_THREADS);
    NLA_EXTERN_SHARED(unsigned char, smem);
    T *tile = reinterpret_cast<T *>(smem);
    constexpr int R = L2_THREADS, W = VEC ? V16<T>::W : 1;
    const int tid = threadIdx.x;
    const int64_t band = kl + ku + 1;
    const int64_t i0 = (int64_t)blockIdx.x * R;
    const int64_t i1 = i0 + R < m ? i0 + R : m;
    const int64_t i = i0 + tid;
    const int64_t jlo = i0 - kl > 0 ? i0 - kl : 0;
    const int64_t jhi = i1 + ku < n ? i1 + ku : n;
    const int pitch = WIDE ? R : gbmv_pitch(band);
    /* band staging walks the chunk in storage order, element e = c*band + r
       (base[e] when VEC: ldab == band), W at a time from `head`, the first
       16-byte boundary: the same in every chunk, cc_max*band*sizeof(T) being
       a multiple of 16.  The thread's first unit is at (c0, r0); R*W
       elements on is (qc, qr) further: no division in the walk. */
    const int bw = WIDE ? 1 : (int)band;
    const int head = VEC ? (int)(((16 - ((uintptr_t)(ab + jlo * ldab) & 15)) & 15) / sizeof(T)) : 0;
    const int c0 = (head + tid * W) / bw, r0 = head + tid * W - c0 * bw;
    const int qc = R * W / bw, qr = R * W - qc * bw;
    T acc = 0;

    for (int64_t jc = jlo; jc < jhi; jc += cc_max) {
        const int cc = jhi - jc < cc_max ? (int)(jhi - jc) : cc_max;
        if (WIDE) {
            for (int c = 0; c < cc; c++) {
                const int64_t j = jc + c, r = ku + i - j;
                if (i < i1 && r >= 0 && r < band)
                    tile[tid + c * R] = ab[r + j * ldab];
            }
        } else {
            /* element (c, r) is row jc - ku + c + r: needed when c + r is in [lo, hi) */
            const T *base = ab + jc * ldab;
            const int total = bw * cc, lo = (int)(i0 - jc + ku), hi = (int)(i1 - jc + ku);
            int e = head + tid * W, c = c0, r = r0;
            if (VEC && tid == R - 1) /* the head, fewer than W elements */
                for (int h = 0, hc = 0, hr = 0; h < head && h < total; h++) {
                    if (hc + hr >= lo && hc + hr < hi)
                        tile[hr + hc * pitch] = base[h];
                    if (++hr == bw)
                        hr = 0, hc++;
                }
#pragma unroll 1 /* one unit in flight: 32 registers, 8 blocks per SM */
            for (; e < total; e += R * W) {
                int idx[W];
                bool in[W], any = false;
#pragma unroll
                for (int k = 0, uc = c, ur = r; k < W; k++) {
                    in[k] = uc + ur >= lo && uc + ur < hi && e + k < total;
                    idx[k] = ur + uc * pitch;
                    any |= in[k];
                    if (++ur == bw)
                        ur = 0, uc++;
                }
                if (any) {
                    T t[W];
                    if (VEC && e + W <= total)
                        load16(base + e, t);
                    else
#pragma unroll
                        for (int k = 0; k < W; k++)
                            t[k] = in[k] ? base[VEC ? e + k : r + c * ldab] : T(0);
#pragma unroll
                    for (int k = 0; k < W; k++)
                        if (in[k])
                            tile[idx[k]] = t[k];
                }
                c += qc, r += qr;
                if (r >= bw)
                    r -= bw, c++;
            }
        }
        __syncthreads();
        /* row i's columns jc + [ja, jb): (i, j) is tile[ku+i-j + (j-jc)*pitch]
           (band), tile[tid + (j-jc)*R] (WIDE) */
        const int ja = i - kl > jc ? (int)(i - kl - jc) : 0;
        const int jb = i + ku + 1 < jc + cc ? (int)(i + ku + 1 - jc) : cc;
        if (i < i1 && ja < jb) {
            const int step = WIDE ? R : pitch - 1;
            const T *t = tile + (WIDE ? tid : (int)(ku + i - jc)) + ja * step;
            const T *xj = x + (jc + ja) * incx;
            for (int j = ja; j < jb; j++, t += step, xj += incx)
                acc = fma(*t, *xj, acc);
        }
        __syncthreads();
    }
    if (i < i1)
        store_y(y, incy, i, acc, alpha, beta);
}

/* ------------------------------------------------------------- gbmv T */

/* L lanes per column j: y_j = sum_r ab[r + j*ldab] x[j-ku+r] over the band
   positions r whose row j-ku+r lies in [0, m). */
template <typename T, int L, bool VEC>
__global__ void __launch_bounds__(L2_THREADS)
gbmv_t(int64_t m, int64_t n, int64_t kl, int64_t ku, T alpha, const T *__restrict__ ab,
       int64_t ldab, const T *__restrict__ x, int64_t incx, T beta, T *__restrict__ y,
       int64_t incy)
{
    NLA_BOUNDS(L2_THREADS);
    const int l = threadIdx.x % L;
    const int64_t j = (int64_t)blockIdx.x * (blockDim.x / L) + threadIdx.x / L;
    const int64_t band = kl + ku + 1;
    T acc = 0;
    /* no early return: every lane of the warp takes part in the shuffles */
    if (j < n) {
        const int64_t r0 = ku - j > 0 ? ku - j : 0;
        const int64_t r1 = m + ku - j < band ? m + ku - j : band;
        const T *col = ab + j * ldab;
        if (VEC && j < n - 1) {
            /* ldab % W == 0: vectors up to the rounded-up band stay in the
               column's ldab slots; the last column's do not */
            constexpr int W = V16<T>::W;
            for (int64_t v = r0 / W + l; v * W < r1; v += L) {
                T e[W];
                load16(col + v * W, e);
#pragma unroll
                for (int k = 0; k < W; k++) {
                    const int64_t r = v * W + k;
                    if (r >= r0 && r < r1)
                        acc = fma(e[k], x[(j - ku + r) * incx], acc);
                }
            }
        } else {
            for (int64_t r = r0 + l; r < r1; r += L)
                acc = fma(col[r], x[(j - ku + r) * incx], acc);
        }
    }
    for (int o = L / 2; o > 0; o >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, o, L);
    if (j < n && l == 0)
        store_y(y, incy, j, acc, alpha, beta);
}

template <typename T, bool VEC>
cudaError_t gbmv_t_launch(cudaStream_t st, int lanes, int64_t m, int64_t n, int64_t kl,
                          int64_t ku, T alpha, const T *ab, int64_t ldab, const T *x,
                          int64_t incx, T beta, T *y, int64_t incy)
{
    unsigned grid = (unsigned)cdiv(n, L2_THREADS / lanes);
#define GBMV_T_CASE(LN)                                                        \
    case LN:                                                                   \
        NLA_LAUNCH((gbmv_t<T, LN, VEC>), grid, L2_THREADS, 0, st)(m, n, kl, ku, alpha,   \
                                                        ab, ldab, x, incx,     \
                                                        beta, y, incy);        \
        break;
    switch (lanes) {
        GBMV_T_CASE(1)
        GBMV_T_CASE(2)
        GBMV_T_CASE(4)
        GBMV_T_CASE(8)
        GBMV_T_CASE(16)
        default:
        GBMV_T_CASE(32)
    }
#undef GBMV_T_CASE
    return cudaGetLastError();
}

template <typename T>
cudaError_t gbmv_launch(const nla_cuda_launch *L, int trans, int64_t m, int64_t n,
                        int64_t kl, int64_t ku, T alpha, const T *ab, int64_t ldab,
                        const T *x, int64_t incx, T beta, T *y, int64_t incy)
{
    constexpr int W = V16<T>::W;
    const int64_t lx = trans ? m : n, ly = trans ? n : m;
    const int64_t band = kl + ku + 1;
    const T *xb = vbase(x, lx, incx);
    T *yb = vbase(y, ly, incy);

    if (!trans) {
        const int tile = GBMV_TILE_BYTES / (int)sizeof(T);
        const bool wide = band > L2_THREADS;
        const bool vec = !wide && ldab == band;
        const int pitch = wide ? L2_THREADS : gbmv_pitch(band);
        /* whole 16-byte units per chunk (see gbmv_n's walk) */
        const int cc = wide ? tile / pitch : tile / pitch / W * W;
        unsigned grid = (unsigned)cdiv(m, L2_THREADS);
        size_t shm = (size_t)cc * (size_t)pitch * sizeof(T);
        if (wide)
            NLA_LAUNCH((gbmv_n<T, true, false>), grid, L2_THREADS, shm, L->stream)(
                m, n, kl, ku, alpha, ab, ldab, xb, incx, beta, yb, incy, cc);
        else if (vec)
            NLA_LAUNCH((gbmv_n<T, false, true>), grid, L2_THREADS, shm, L->stream)(
                m, n, kl, ku, alpha, ab, ldab, xb, incx, beta, yb, incy, cc);
        else
            NLA_LAUNCH((gbmv_n<T, false, false>), grid, L2_THREADS, shm, L->stream)(
                m, n, kl, ku, alpha, ab, ldab, xb, incx, beta, yb, incy, cc);
        return cudaGetLastError();
    }
    /* lanes per column: about two vectors per lane down the band */
    int lanes = 1;
    while (lanes < 32 && (int64_t)lanes * 2 * W < band)
        lanes *= 2;
    if (aligned16(ab) && ldab % W == 0)
        return gbmv_t_launch<T, true>(L->stream, lanes, m, n, kl, ku, alpha, ab, ldab, xb,
                                      incx, beta, yb, incy);
    return gbmv_t_launch<T, false>(L->stream, lanes, m, n, kl, ku, alpha, ab, ldab, xb,
                                   incx, beta, yb, incy);
}

} /* namespace */

#endif
