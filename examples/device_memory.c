/*
 * device_memory.c - the same code on the CPU or on a GPU: an AUTO context
 * picks the CUDA backend when it is available (or the one NLA_BACKEND
 * names), nla_malloc allocates in that backend's memory, and the data goes
 * there with nla_upload and comes back with nla_download.
 */
#include <math.h>
#include <stdio.h>
#include <nla.h>

enum { M = 300, N = 200 };

int main(void)
{
    static double a[M * N], x[N], y[M];
    double *da = NULL, *dx = NULL, *dy = NULL;
    nla_context *ctx;
    nla_status s;
    double err = 0;

    for (int j = 0; j < N; j++) {
        x[j] = 1.0 / (j + 1);
        for (int i = 0; i < M; i++)
            a[i + j * M] = (double)((i + 2 * j) % 7) - 3;
    }
    if (nla_context_create(&ctx, NLA_BACKEND_AUTO) != NLA_OK) {
        fprintf(stderr, "device_memory: %s\n", nla_last_error());
        return 1;
    }
    if ((s = nla_malloc(ctx, (void **)&da, sizeof a)) != NLA_OK ||
        (s = nla_malloc(ctx, (void **)&dx, sizeof x)) != NLA_OK ||
        (s = nla_malloc(ctx, (void **)&dy, sizeof y)) != NLA_OK ||
        (s = nla_upload(ctx, da, a, sizeof a)) != NLA_OK ||
        (s = nla_upload(ctx, dx, x, sizeof x)) != NLA_OK ||
        (s = nla_dgemv(ctx, NLA_NO_TRANS, M, N, 1.0, da, M, dx, 1, 0.0, dy, 1)) != NLA_OK ||
        (s = nla_context_synchronize(ctx)) != NLA_OK ||
        (s = nla_download(ctx, y, dy, sizeof y)) != NLA_OK)
        fprintf(stderr, "device_memory: %s\n", nla_context_error(ctx));
    else
        printf("gemv ran on the %s backend\n",
               nla_backend_name(nla_context_last_backend(ctx)));
    nla_free(ctx, dy);
    nla_free(ctx, dx);
    nla_free(ctx, da);
    nla_context_destroy(ctx);
    if (s != NLA_OK)
        return 1;

    for (int i = 0; i < M; i++) {
        double ref = 0;
        for (int j = 0; j < N; j++)
            ref += a[i + j * M] * x[j];
        err = fmax(err, fabs(y[i] - ref));
    }
    printf("device memory gemv (m=%d n=%d): %s (max error %.1e)\n", M, N,
           err <= 1e-12 ? "ok" : "WRONG", err);
    return err <= 1e-12 ? 0 : 1;
}
