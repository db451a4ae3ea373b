/*
 * gemm_rowmajor.c - C = A*B with C arrays in their natural (row-major)
 * layout, using nla_dgemm with NLA_ROW_MAJOR; checked against a plain loop.
 */
#include <math.h>
#include <stdio.h>
#include <nla.h>

enum { M = 2, K = 3, N = 4 };

int main(void)
{
    const double a[M][K] = { { 1, 2, 3 }, { 4, 5, 6 } };
    const double b[K][N] = { { 1, 0, 0, 1 }, { 0, 1, 0, 1 }, { 0, 0, 1, 1 } };
    double c[M][N];
    nla_context *ctx;
    nla_status s;
    int ok = 1;

    if (nla_context_create(&ctx, NLA_BACKEND_CPU) != NLA_OK) {
        fprintf(stderr, "gemm_rowmajor: %s\n", nla_last_error());
        return 1;
    }
    /* row-major: the leading dimension is the length of a row */
    s = nla_dgemm(ctx, NLA_ROW_MAJOR, NLA_NO_TRANS, NLA_NO_TRANS, M, N, K,
                  1.0, &a[0][0], K, &b[0][0], N, 0.0, &c[0][0], N);
    if (s != NLA_OK) {
        fprintf(stderr, "gemm_rowmajor: %s\n", nla_context_error(ctx));
        nla_context_destroy(ctx);
        return 1;
    }
    nla_context_destroy(ctx);

    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            double ref = 0;
            for (int p = 0; p < K; p++)
                ref += a[i][p] * b[p][j];
            printf(" %5.1f", c[i][j]);
            ok &= fabs(c[i][j] - ref) <= 1e-12;
        }
        printf("\n");
    }
    printf("row-major GEMM (%dx%d = %dx%d * %dx%d): %s\n", M, N, M, K, K, N,
           ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
