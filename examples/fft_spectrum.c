/*
 * fft_spectrum.c - the spectrum of a real signal with a real-to-complex FFT.
 * Two tones are planted at known bins; the program prints the bins whose
 * amplitude stands out and checks they are exactly the planted ones, with
 * the planted amplitudes.
 */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <nla.h>

enum { N = 256, BIN1 = 10, BIN2 = 37 };
static const double AMP1 = 3.0, AMP2 = 1.5;

int main(void)
{
    const double pi = acos(-1.0);
    double x[N];
    double complex X[N / 2 + 1];      /* R2C output: bins 0..n/2 */
    nla_fft_desc desc = { .kind = NLA_FFT_R2C, .precision = NLA_DOUBLE,
                          .direction = NLA_FFT_FORWARD, .n = N };
    nla_context *ctx;
    nla_fft_plan *plan;
    int found = 0, ok = 1;

    for (int j = 0; j < N; j++)
        x[j] = AMP1 * cos(2 * pi * BIN1 * j / N) + AMP2 * sin(2 * pi * BIN2 * j / N);

    if (nla_context_create(&ctx, NLA_BACKEND_CPU) != NLA_OK ||
        nla_fft_plan_create(ctx, &desc, &plan) != NLA_OK) {
        fprintf(stderr, "fft_spectrum: %s\n", nla_last_error());
        return 1;
    }
    if (nla_fft_execute(plan, x, X) != NLA_OK) {
        fprintf(stderr, "fft_spectrum: %s\n", nla_last_error());
        ok = 0;
    }
    nla_fft_plan_destroy(plan);
    nla_context_destroy(ctx);

    /* a real tone of amplitude a at bin k gives |X[k]| = a*n/2 */
    for (int k = 0; ok && k <= N / 2; k++) {
        double amp = 2 * cabs(X[k]) / N;
        if (amp < 0.1)
            continue;
        double want = k == BIN1 ? AMP1 : k == BIN2 ? AMP2 : 0;
        printf("peak at bin %3d: amplitude %.6f\n", k, amp);
        ok &= fabs(amp - want) <= 1e-9;
        found++;
    }
    ok &= found == 2;
    printf("R2C FFT (n=%d): peaks %s the planted bins %d and %d\n", N,
           ok ? "are" : "are NOT", BIN1, BIN2);
    return ok ? 0 : 1;
}
