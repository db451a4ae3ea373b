/*
 * packed_gaxpy.c - y = A*x for a symmetric A kept in packed storage (upper
 * triangle, column by column), with nla_dspmv, checked against a plain loop.
 */
#include <math.h>
#include <stdio.h>
#include <nla.h>

enum { N = 5 };

/* the symmetric matrix: the Hilbert matrix, A(i,j) = 1/(i+j+1) */
static double hilbert(int i, int j) { return 1.0 / (i + j + 1); }

int main(void)
{
    double ap[N * (N + 1) / 2], x[N], y[N];
    nla_context *ctx;
    nla_status s;
    int ok = 1;

    for (int j = 0; j < N; j++)          /* upper: A(i,j) = ap[i + j*(j+1)/2], i <= j */
        for (int i = 0; i <= j; i++)
            ap[i + j * (j + 1) / 2] = hilbert(i, j);
    for (int i = 0; i < N; i++) {
        x[i] = 1.0;
        y[i] = 1.0;
    }
    if (nla_context_create(&ctx, NLA_BACKEND_CPU) != NLA_OK) {
        fprintf(stderr, "packed_gaxpy: %s\n", nla_last_error());
        return 1;
    }
    /* y = 2*A*x - y */
    s = nla_dspmv(ctx, NLA_UPPER, N, 2.0, ap, x, 1, -1.0, y, 1);
    if (s != NLA_OK) {
        fprintf(stderr, "packed_gaxpy: %s\n", nla_context_error(ctx));
        nla_context_destroy(ctx);
        return 1;
    }
    nla_context_destroy(ctx);

    for (int i = 0; i < N; i++) {
        double ref = -1.0;
        for (int j = 0; j < N; j++)
            ref += 2.0 * hilbert(i, j) * x[j];
        printf("y[%d] = %.15f  (expected %.15f)\n", i, y[i], ref);
        ok &= fabs(y[i] - ref) <= 1e-14;
    }
    printf("packed-symmetric GAXPY (n=%d, upper): %s\n", N, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
