/*
 * level2_band.cuh - gbmv on the device (s and d): part of level2.cu, which
 * includes it after its helpers (L2_THREADS, V16, load16, store_y, cdiv,
 * vbase, aligned16); not a header of its own.
 *
 *   gbmv N   a block owns 256 rows and walks the columns that touch them in
 *            chunks: it stages the chunk's band entries for its rows into
 *            shared memory (coalesced down each column, vector loads when
 *            the band is stored contiguously), then each thread adds its
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

/* Rows [i0, i0+R) of one block; columns that touch them, cc at a time.
   Band staging (!WIDE): tile[r + c*band] = ab[r + j*ldab], r the band
   position of row j+r-ku.  Row staging (WIDE, band > R): tile[(i-i0) + c*R]. */
template <typename T, bool WIDE, bool VEC>
__global__ void __launch_bounds__(L2_THREADS)
gbmv_n(int64_t m, int64_t n, int64_t kl, int64_t ku, T alpha, const T *__restrict__ ab,
       int64_t ldab, const T *__restrict__ x, int64_t incx, T beta, T *__restrict__ y,
       int64_t incy, int cc_max)
{
    NLA_EXTERN_SHARED(unsigned char, smem);
    T *tile = reinterpret_cast<T *>(smem);
    const int R = blockDim.x;
    const int64_t band = kl + ku + 1;
    const int64_t i0 = (int64_t)blockIdx.x * R;
    const int64_t i1 = i0 + R < m ? i0 + R : m;
    const int64_t i = i0 + threadIdx.x;
    const int64_t jlo = i0 - kl > 0 ? i0 - kl : 0;
    const int64_t jhi = i1 + ku < n ? i1 + ku : n;
    const int pitch = WIDE ? R : (int)band;
    T acc = 0;

    for (int64_t jc = jlo; jc < jhi; jc += cc_max) {
        const int cc = jhi - jc < cc_max ? (int)(jhi - jc) : cc_max;
        const int total = pitch * cc;
        if (WIDE) {
            for (int e = threadIdx.x; e < total; e += R) {
                const int c = e / R;
                const int64_t row = i0 + (e - c * R), j = jc + c, r = ku + row - j;
                if (row < i1 && r >= 0 && r < band)
                    tile[e] = ab[r + j * ldab];
            }
        } else {
            /* element e of the chunk is band position e % band of column
               jc + e / band; with ldab == band the chunk is contiguous */
            const T *base = ab + jc * ldab;
            int head = 0, nvec = 0;
            if constexpr (VEC) {
                constexpr int W = V16<T>::W;
                head = (int)(((16 - ((uintptr_t)base & 15)) & 15) / sizeof(T));
                if (head > total)
                    head = total;
                nvec = (total - head) / W;
                for (int v = threadIdx.x; v < nvec; v += R) {
                    const int e = head + v * W;
                    bool need = false;
#pragma unroll
                    for (int k = 0; k < W; k++) {
                        const int c = (e + k) / pitch;
                        const int64_t row = jc + c + (e + k - c * pitch) - ku;
                        need |= row >= i0 && row < i1;
                    }
                    if (need) {
                        T t[W];
                        load16(base + e, t);
#pragma unroll
                        for (int k = 0; k < W; k++)
                            tile[e + k] = t[k];
                    }
                }
            }
            const int tail = head + nvec * V16<T>::W;
            for (int e = threadIdx.x; e < total; e += R) {
                if (VEC && e >= head && e < tail)
                    continue;
                const int c = e / pitch, r = e - c * pitch;
                const int64_t row = jc + c + r - ku;
                if (row >= i0 && row < i1)
                    tile[e] = base[r + c * ldab];
            }
        }
        __syncthreads();
        if (i < i1) {
            const int64_t ja = i - kl > jc ? i - kl : jc;
            const int64_t jb = i + ku + 1 < jc + cc ? i + ku + 1 : jc + cc;
            for (int64_t j = ja; j < jb; j++) {
                const int idx = WIDE ? (int)(i - i0) + (int)(j - jc) * R
                                     : (int)(ku + i - j) + (int)(j - jc) * pitch;
                acc = fma(tile[idx], x[j * incx], acc);
            }
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
        const int cc = (int)(wide ? tile / L2_THREADS : tile / band);
        unsigned grid = (unsigned)cdiv(m, L2_THREADS);
        size_t shm = (size_t)cc * (size_t)(wide ? L2_THREADS : band) * sizeof(T);
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
