/*
 * test_mpi_spmv.c - libnla-mpi's packed-symmetric GAXPY, both precisions,
 * against the serial spmv, and its collective errors (run by
 * tests/test_mpi.c's main under mpirun).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_mpi.h"

/* nla_mpi_dspmv against nla_dspmv on the whole packed matrix, both
   triangles, three column splits; each rank's pieces cut by
   nla_mpi_dpacked_slice */
void test_spmv(nla_context *ctx, const nla_mpi_grid *g)
{
    const int64_t n = 37;
    for (int u = 0; u < 2; u++)
        for (int split = 0; split < 3; split++) {
            nla_uplo uplo = u ? NLA_LOWER : NLA_UPPER;
            double *AP = global(n * (n + 1) / 2, 1), *X = global(n, 1), *Y = global(n, 1);
            double *Yref = malloc((size_t)n * sizeof *Yref), *t, *r, *y, err = 0;
            double alpha = 1.5, beta = split == 1 ? 0.0 : -0.5, tol;
            int64_t c0 = 0, nloc = split_rows(n, split, rank, size), rr, ldr;
            nla_status st;
            char what[200];
            for (int q = 0; q < rank; q++)
                c0 += split_rows(n, split, q, size);
            rr = u ? n - c0 - nloc : c0;
            ldr = rr + 1;
            if (beta == 0)
                for (int64_t i = 0; i < n; i++)
                    Y[i] = NAN;
            memcpy(Yref, Y, (size_t)n * sizeof *Y);
            nla_dspmv(ctx, uplo, n, alpha, AP, X, 1, beta, Yref, 1);
            t = malloc((size_t)(nloc * (nloc + 1) / 2 + 1) * sizeof *t);
            r = malloc((size_t)(ldr * nloc + 1) * sizeof *r);
            y = malloc((size_t)(nloc + 1) * sizeof *y);
            memcpy(y, Y + c0, (size_t)nloc * sizeof *y);
            expect(nla_mpi_dpacked_slice(uplo, n, AP, c0, c0 + nloc, r, ldr, t) == NLA_OK,
                   "dpacked_slice");
            st = nla_mpi_dspmv(ctx, g, uplo, n, alpha, t, r, ldr, nloc, X + c0, beta, y);
            tol = 4.0 * (n + 1) * DBL_EPSILON * (alpha * n + 0.5);
            for (int64_t i = 0; i < nloc; i++)
                err = isnan(y[i]) ? INFINITY : fmax(err, fabs(y[i] - Yref[c0 + i]));
            snprintf(what, sizeof what, "dspmv %c split %d: %s, max err %.3g > %.3g",
                     (char)uplo, split, st == NLA_OK ? "ok" : nla_mpi_last_error(), err, tol);
            expect(st == NLA_OK && err <= tol, what);
            {
                /* float, against nla_sspmv on the same values rounded */
                int64_t len = n * (n + 1) / 2;
                float *APf = malloc((size_t)len * sizeof *APf), *Xf = malloc((size_t)n * 4);
                float *Yf = malloc((size_t)n * 4), *tf = malloc((size_t)(nloc * (nloc + 1) / 2 + 1) * 4);
                float *rf = malloc((size_t)(ldr * nloc + 1) * 4), *yf = malloc((size_t)(nloc + 1) * 4);
                for (int64_t i = 0; i < len; i++)
                    APf[i] = (float)AP[i];
                for (int64_t i = 0; i < n; i++) {
                    Xf[i] = (float)X[i];
                    Yf[i] = (float)Y[i];
                }
                memcpy(yf, Yf + c0, (size_t)nloc * sizeof *yf);
                nla_sspmv(ctx, uplo, n, (float)alpha, APf, Xf, 1, (float)beta, Yf, 1);
                expect(nla_mpi_spacked_slice(uplo, n, APf, c0, c0 + nloc, rf, ldr, tf) == NLA_OK,
                       "spacked_slice");
                st = nla_mpi_sspmv(ctx, g, uplo, n, (float)alpha, tf, rf, ldr, nloc, Xf + c0,
                                   (float)beta, yf);
                err = 0;
                tol *= (double)FLT_EPSILON / DBL_EPSILON;
                for (int64_t i = 0; i < nloc; i++)
                    err = isnan(yf[i]) ? INFINITY : fmax(err, fabs((double)yf[i] - Yf[c0 + i]));
                snprintf(what, sizeof what, "sspmv %c split %d: %s, max err %.3g > %.3g",
                         (char)uplo, split, st == NLA_OK ? "ok" : nla_mpi_last_error(), err, tol);
                expect(st == NLA_OK && err <= tol, what);
                free(APf);
                free(Xf);
                free(Yf);
                free(tf);
                free(rf);
                free(yf);
            }
            free(AP);
            free(X);
            free(Y);
            free(Yref);
            free(t);
            free(r);
            free(y);
        }
    {
        /* ldr too small on the last rank (which holds a rectangle above
           its columns when it is not rank 0) */
        double t[16 * 17 / 2] = { 0 }, r[16 * 16] = { 0 }, x[16] = { 0 }, y[16];
        int64_t nloc = split_rows(16, 0, rank, size), c0 = 0;
        nla_status st;
        char what[200], tag[32];
        int untouched = 1;
        for (int q = 0; q < rank; q++)
            c0 += split_rows(16, 0, q, size);
        for (int i = 0; i < 16; i++)
            y[i] = 5.0;
        snprintf(tag, sizeof tag, "(rank %d)", size - 1);
        st = nla_mpi_dspmv(ctx, g, NLA_UPPER, 16, 1.0, t, r,
                           rank == size - 1 && c0 > 1 ? c0 - 1 : (c0 > 1 ? c0 : 1), nloc, x, 0.0,
                           y);
        for (int i = 0; i < 16; i++)
            untouched &= y[i] == 5.0;
        snprintf(what, sizeof what, "dspmv, ldr < rows on the last rank: %d \"%s\"", (int)st,
                 nla_mpi_last_error());
        if (size > 1)
            expect(st == NLA_EINVAL && strstr(nla_mpi_last_error(), "ldr") &&
                       strstr(nla_mpi_last_error(), tag) && untouched, what);
    }
    {
        /* float: the nloc do not add up to n, and the slice's c1 > n */
        float t[16 * 17 / 2] = { 0 }, r[16 * 16] = { 0 }, x[16] = { 0 }, y[16];
        int64_t nloc = split_rows(16, 0, rank, size) - (rank == size - 1);
        nla_status st;
        char what[200];
        int untouched = 1;
        for (int i = 0; i < 16; i++)
            y[i] = 5.0f;
        st = nla_mpi_sspmv(ctx, g, NLA_LOWER, 16, 1.0f, t, r, 16, nloc, x, 0.0f, y);
        for (int i = 0; i < 16; i++)
            untouched &= y[i] == 5.0f;
        snprintf(what, sizeof what, "sspmv, nloc short on the last rank: %d \"%s\"", (int)st,
                 nla_mpi_last_error());
        expect(st == NLA_EINVAL && strstr(nla_mpi_last_error(), "nla_mpi_sspmv") &&
                   strstr(nla_mpi_last_error(), "add up to") && untouched, what);
        st = nla_mpi_spacked_slice(NLA_UPPER, 4, t, 0, 5, r, 4, t);
        snprintf(what, sizeof what, "spacked_slice, c1 > n: %d \"%s\"", (int)st,
                 nla_mpi_last_error());
        expect(st == NLA_EINVAL && strstr(nla_mpi_last_error(), "nla_mpi_spacked_slice") &&
                   strstr(nla_mpi_last_error(), "c1 (5)"), what);
    }
}
