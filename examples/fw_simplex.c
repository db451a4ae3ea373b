/*
 * fw_simplex.c - least squares over the probability simplex with
 * Frank-Wolfe:  minimize 1/2 |A x - b|^2  subject to x >= 0, sum x = 1.
 * b is made from a known point of the simplex, so that point is the answer.
 */
#include <math.h>
#include <stdio.h>
#include <nla.h>

enum { M = 6, N = 4 };

int main(void)
{
    const double x_true[N] = { 0.1, 0.2, 0.3, 0.4 };
    double a[M * N], b[M], x[N] = { 1, 0, 0, 0 };   /* start at a vertex */
    nla_context *ctx;
    nla_fw_objective *obj = NULL;
    nla_fw_set *set = NULL;
    nla_fw_options *opt = NULL;
    nla_fw_result res;
    nla_status s;
    double err = 0;

    /* a full-rank 6x4 A (column-major), b = A x_true */
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++)
            a[i + j * M] = 1.0 / (i + j + 1) + (i == j);
    for (int i = 0; i < M; i++) {
        b[i] = 0;
        for (int j = 0; j < N; j++)
            b[i] += a[i + j * M] * x_true[j];
    }

    if ((s = nla_context_create(&ctx, NLA_BACKEND_CPU)) != NLA_OK) {
        fprintf(stderr, "fw_simplex: %s\n", nla_last_error());
        return 1;
    }
    if ((s = nla_fw_objective_create_lsq(&obj, M, N, a, M, b)) != NLA_OK ||
        (s = nla_fw_set_create_prob_simplex(&set, N, 1.0)) != NLA_OK ||
        (s = nla_fw_options_create(&opt)) != NLA_OK ||
        (s = nla_fw_options_set_variant(opt, NLA_FW_PAIRWISE)) != NLA_OK ||
        (s = nla_fw_options_set_step(opt, NLA_FW_EXACT, 0)) != NLA_OK ||
        (s = nla_fw_options_set_tol(opt, 1e-12)) != NLA_OK)
        fprintf(stderr, "fw_simplex: %s\n", nla_last_error());
    else if ((s = nla_fw_solve(ctx, obj, set, opt, x, &res)) != NLA_OK)
        fprintf(stderr, "fw_simplex: %s\n", nla_context_error(ctx));
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(set);
    nla_fw_objective_destroy(obj);
    nla_context_destroy(ctx);
    if (s != NLA_OK)
        return 1;

    for (int j = 0; j < N; j++) {
        printf("x[%d] = %.9f  (expected %.1f)\n", j, x[j], x_true[j]);
        err = fmax(err, fabs(x[j] - x_true[j]));
    }
    printf("Frank-Wolfe (pairwise, exact line search): %lld iterations, "
           "f = %.3g, gap = %.3g\n", (long long)res.iterations, res.f, res.gap);
    printf("least squares over the simplex: %s (max error %.1e)\n",
           err <= 1e-6 ? "ok" : "WRONG", err);
    return err <= 1e-6 ? 0 : 1;
}
