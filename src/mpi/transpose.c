/*
 * transpose.c - the FFT's global transpose: a row-major R x C array of
 * es-byte elements split over the processes' rows in blocks of ceil(R/P)
 * becomes the C x R array split likewise, in one MPI_Alltoallv.
 *
 * Each process packs, for each destination, the destination's columns of
 * each of its rows (one memcpy a row, or a product by the six-step FFT's
 * twiddles, which then cost no pass of their own), and unpacks what it
 * receives in
 * tiles, so that both sides of the local transpose stay in cache.  The
 * buffers are the caller's (a plan keeps them), so no call faults in new
 * pages.
 */
#include <limits.h>
#include <string.h>
#include "mpi_internal.h"

/* element tiles of the unpack: TILE x TILE elements of up to 16 bytes fit
   the L1 on both sides */
#define TILE 32

static int64_t block_of(int64_t n, int P)
{
    return n > 0 ? (n + P - 1) / P : 1;
}

static int64_t first(int64_t n, int64_t b, int q)
{
    int64_t f = (int64_t)q * b;
    return f < n ? f : n;
}

int nla_mpi_slab_counts_fit(int64_t R, int64_t C, int P)
{
    int64_t bR = block_of(R, P), bC = block_of(C, P);
    return bR <= INT_MAX / (C > 0 ? C : 1) && bC <= INT_MAX / (R > 0 ? R : 1);
}

/* n values of a row into the send buffer: copied, or (tw) multiplied by
   the twiddles of the same places, complex double (es 16) or float (8) */
static void pack_row(char *d, const char *s, const char *tw, int64_t n, size_t es)
{
    if (!tw) {
        memcpy(d, s, (size_t)n * es);
    } else if (es == 16) {
        double *o = (double *)(void *)d;
        const double *x = (const double *)(const void *)s, *w = (const double *)(const void *)tw;
        for (int64_t i = 0; i < n; i++) {
            double re = x[2 * i] * w[2 * i] - x[2 * i + 1] * w[2 * i + 1];
            double im = x[2 * i] * w[2 * i + 1] + x[2 * i + 1] * w[2 * i];
            o[2 * i] = re;
            o[2 * i + 1] = im;
        }
    } else {
        float *o = (float *)(void *)d;
        const float *x = (const float *)(const void *)s, *w = (const float *)(const void *)tw;
        for (int64_t i = 0; i < n; i++) {
            float re = x[2 * i] * w[2 * i] - x[2 * i + 1] * w[2 * i + 1];
            float im = x[2 * i] * w[2 * i + 1] + x[2 * i + 1] * w[2 * i];
            o[2 * i] = re;
            o[2 * i + 1] = im;
        }
    }
}

nla_status nla_mpi_slab_transpose(const nla_mpi_grid *g, const char *fn, size_t es, int64_t R,
                                  int64_t C, const void *src, const void *tw, void *dst,
                                  void *sbuf, void *rbuf, int *counts, MPI_Datatype t)
{
    const int P = g->size, me = g->rank;
    const int64_t bR = block_of(R, P), bC = block_of(C, P);
    const int64_t r0 = first(R, bR, me), lR = first(R, bR, me + 1) - r0;
    const int64_t lC = first(C, bC, me + 1) - first(C, bC, me);
    int *scnt = counts, *sdsp = counts + P, *rcnt = counts + 2 * P, *rdsp = counts + 3 * P;
    int64_t so = 0, ro = 0;
    int rc;

    /* pack: to q, q's columns of each of my rows */
    for (int q = 0; q < P; q++) {
        int64_t qc0 = first(C, bC, q), nq = first(C, bC, q + 1) - qc0;
        int64_t qr0 = first(R, bR, q), mq = first(R, bR, q + 1) - qr0;
        for (int64_t r = 0; r < lR; r++)
            pack_row((char *)sbuf + (size_t)(so + r * nq) * es,
                     (const char *)src + (size_t)(r * C + qc0) * es,
                     tw ? (const char *)tw + (size_t)(r * C + qc0) * es : NULL, nq, es);
        scnt[q] = (int)(lR * nq);
        sdsp[q] = (int)so;
        so += lR * nq;
        rcnt[q] = (int)(mq * lC);
        rdsp[q] = (int)ro;
        ro += mq * lC;
    }
    rc = MPI_Alltoallv(sbuf, scnt, sdsp, t, rbuf, rcnt, rdsp, t, g->comm);
    if (rc != MPI_SUCCESS)
        return nla_mpi_check_rc(rc, fn, "MPI_Alltoallv");
    g->cnt->bytes += (ro - (int64_t)rcnt[me]) * (int64_t)es;
    /* unpack: from q, its rows (mq) of my columns (lC): dst[j][qr0 + r] */
    for (int q = 0; q < P; q++) {
        int64_t qr0 = first(R, bR, q), mq = first(R, bR, q + 1) - qr0;
        const char *in = (const char *)rbuf + (size_t)rdsp[q] * es;
        for (int64_t rt = 0; rt < mq; rt += TILE)
            for (int64_t jt = 0; jt < lC; jt += TILE) {
                int64_t re = rt + TILE < mq ? rt + TILE : mq;
                int64_t je = jt + TILE < lC ? jt + TILE : lC;
                /* a constant size inlines the copy: the complex values */
#define UNPACK(SZ)                                                             \
    for (int64_t j = jt; j < je; j++)                                          \
        for (int64_t r = rt; r < re; r++)                                      \
            memcpy((char *)dst + (size_t)(j * R + qr0 + r) * (SZ),             \
                   in + (size_t)(r * lC + j) * (SZ), (SZ))
                if (es == 16)
                    UNPACK(16);
                else if (es == 8)
                    UNPACK(8);
                else
                    UNPACK(es);
#undef UNPACK
            }
    }
    return NLA_OK;
}
