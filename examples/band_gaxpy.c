/*
 * band_gaxpy.c - y = A*x for a band matrix A, with nla_dband_pack and
 * nla_dgbmv, checked against a plain loop over the dense matrix.
 */
#include <math.h>
#include <stdio.h>
#include <nla.h>

enum { M = 7, N = 6, KL = 1, KU = 2, LDAB = KL + KU + 1 };

int main(void)
{
    double a[M * N] = { 0 };          /* dense, column-major */
    double ab[LDAB * N] = { 0 };      /* LAPACK band storage */
    double x[N], y[M], ref[M];
    nla_context *ctx;
    nla_status s;
    int ok = 1;

    /* A(i,j) = 10*i + j inside the band, zero outside */
    for (int j = 0; j < N; j++) {
        x[j] = j + 1;
        for (int i = 0; i < M; i++)
            if (i - j <= KL && j - i <= KU)
                a[i + j * M] = 10 * i + j;
    }
    if ((s = nla_dband_pack(M, N, KL, KU, a, M, ab, LDAB)) != NLA_OK ||
        (s = nla_context_create(&ctx, NLA_BACKEND_CPU)) != NLA_OK) {
        fprintf(stderr, "band_gaxpy: %s\n", nla_last_error());
        return 1;
    }
    s = nla_dgbmv(ctx, NLA_NO_TRANS, M, N, KL, KU, 1.0, ab, LDAB, x, 1, 0.0, y, 1);
    if (s != NLA_OK) {
        fprintf(stderr, "band_gaxpy: %s\n", nla_context_error(ctx));
        nla_context_destroy(ctx);
        return 1;
    }
    nla_context_destroy(ctx);

    for (int i = 0; i < M; i++) {
        ref[i] = 0;
        for (int j = 0; j < N; j++)
            ref[i] += a[i + j * M] * x[j];
        printf("y[%d] = %6.1f  (expected %6.1f)\n", i, y[i], ref[i]);
        ok &= fabs(y[i] - ref[i]) <= 1e-12 * fabs(ref[i]);
    }
    printf("band GAXPY (m=%d n=%d kl=%d ku=%d): %s\n", M, N, KL, KU, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
