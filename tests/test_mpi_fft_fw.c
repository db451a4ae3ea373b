/*
 * test_mpi_fft_fw.c - libnla-mpi's FFT against FFTW-MPI and the serial
 * transforms, and its Frank-Wolfe against the serial solver (run by
 * tests/test_mpi.c's main under mpirun).
 */
#include <complex.h>
#include <float.h>
#include <fftw3-mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_mpi.h"

/* ---------------------------------------------------------------- FFT */

/* gather count complex doubles from start (each rank's block) on rank 0 */
static void gather_c(const double *loc, int64_t count, int64_t start, double *all)
{
    int c = (int)(2 * count), d = (int)(2 * start), *cs = NULL, *ds = NULL;
    if (rank == 0) {
        cs = malloc((size_t)size * sizeof *cs);
        ds = malloc((size_t)size * sizeof *ds);
    }
    MPI_Gather(&c, 1, MPI_INT, cs, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&d, 1, MPI_INT, ds, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gatherv(loc, c, MPI_DOUBLE, all, cs, ds, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(cs);
    free(ds);
}

/* max |a - b| / max |b| over count complex values */
static double rel_err(const double *a, const double *b, int64_t count)
{
    double e = 0, m = 0;
    for (int64_t i = 0; i < 2 * count; i++) {
        e = fmax(e, fabs(a[i] - b[i]));
        m = fmax(m, fabs(b[i]));
    }
    return m > 0 ? e / m : e;
}

/* One n-D or 1-D transform, double: against FFTW-MPI (the same layouts:
   transposed out for rank > 1, ordered for rank 1), gathered on rank 0,
   and the round trip through the backward plan. */
static void test_fft_case(nla_context *ctx, const nla_mpi_grid *g, int rk, const int64_t *n)
{
    int64_t tot = 1, ic, is, oc, os, bic, bis, boc, bos;
    nla_mpi_fft_plan *pf, *pb;
    nla_status st;
    double *X = NULL, *x, *y, *z, *Y = NULL, *R = NULL, err = 0, err2 = 0;
    double tol = 0;
    char what[200];
    ptrdiff_t nn[3], lni, lis, lno, los, alloc;
    fftw_complex *fin, *fout;
    fftw_plan fp;
    int serial;

    for (int d = 0; d < rk; d++) {
        tot *= n[d];
        nn[d] = (ptrdiff_t)n[d];
        tol += log2((double)n[d]);
    }
    tol = 10 * DBL_EPSILON * (tol + 1);
    st = nla_mpi_fft_plan_create(ctx, g, rk, n, NLA_FFT_FORWARD, NLA_DOUBLE, &pf);
    snprintf(what, sizeof what, "fft rank %d n0 %lld: plan (%s)", rk, (long long)n[0],
             nla_mpi_last_error());
    expect(st == NLA_OK, what);
    st = nla_mpi_fft_plan_create(ctx, g, rk, n, NLA_FFT_BACKWARD, NLA_DOUBLE, &pb);
    expect(st == NLA_OK, "fft: backward plan");
    nla_mpi_fft_local_size(pf, &ic, &is, &oc, &os);
    nla_mpi_fft_local_size(pb, &bic, &bis, &boc, &bos);
    expect(bic == oc && bis == os && boc == ic && bos == is,
           "fft: the backward plan's input is the forward plan's output");
    X = global(2 * tot, 1); /* the same on every rank */
    x = malloc((size_t)(2 * ic + 2) * sizeof *x);
    y = malloc((size_t)(2 * oc + 2) * sizeof *y);
    z = malloc((size_t)(2 * ic + 2) * sizeof *z);
    memcpy(x, X + 2 * is, (size_t)(2 * ic) * sizeof *x);
    st = nla_mpi_fft_execute(pf, x, y);
    expect(st == NLA_OK, "fft: forward");
    st = nla_mpi_fft_execute(pb, y, z);
    expect(st == NLA_OK, "fft: backward");
    for (int64_t i = 0; i < 2 * ic; i++)
        err2 = fmax(err2, fabs(z[i] / (double)tot - x[i]));
    snprintf(what, sizeof what, "fft rank %d n0 %lld: round trip err %.3g > %.3g", rk,
             (long long)n[0], err2, tol);
    expect(err2 <= tol, what);

    /* FFTW-MPI on the same data; a 1-D length FFTW-MPI does not split (a
       prime, or under 64) against serial FFTW on rank 0 instead */
    serial = rk == 1 && (n[0] < 64 || n[0] == 97);
    if (serial) {
        alloc = (ptrdiff_t)tot;
        lni = lno = lis = los = 0;
    } else if (rk == 1)
        alloc = fftw_mpi_local_size_1d(nn[0], MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE, &lni,
                                       &lis, &lno, &los);
    else
        alloc = fftw_mpi_local_size_many_transposed(rk, nn, 1, FFTW_MPI_DEFAULT_BLOCK,
                                                    FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD, &lni,
                                                    &lis, &lno, &los);
    fin = fftw_alloc_complex((size_t)(alloc > 0 ? alloc : 1));
    fout = fftw_alloc_complex((size_t)(alloc > 0 ? alloc : 1));
    if (serial)
        fp = fftw_plan_dft_1d((int)n[0], fin, fout, FFTW_FORWARD, FFTW_ESTIMATE);
    else if (rk == 1)
        fp = fftw_mpi_plan_dft_1d(nn[0], fin, fout, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE);
    else
        fp = fftw_mpi_plan_dft(rk, nn, fin, fout, MPI_COMM_WORLD, FFTW_FORWARD,
                               FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_OUT);
    {
        /* FFTW-MPI counts rows of the first (transposed: second) dimension */
        int64_t row_in = rk == 1 ? 1 : tot / n[0], row_out = rk == 1 ? 1 : tot / n[1];
        int64_t fis = (int64_t)lis * row_in, fic = (int64_t)lni * row_in;
        int64_t fos = (int64_t)los * row_out, foc = (int64_t)lno * row_out;
        if (serial)
            fic = foc = rank == 0 ? tot : 0;
        memcpy(fin, X + 2 * fis, (size_t)(2 * fic) * sizeof(double));
        if (fp && (!serial || rank == 0))
            fftw_execute(fp);
        if (rank == 0) {
            Y = malloc((size_t)(2 * tot) * sizeof *Y);
            R = malloc((size_t)(2 * tot) * sizeof *R);
        }
        gather_c(y, oc, os, Y);
        gather_c((const double *)fout, foc, fos, R);
    }
    if (rank == 0)
        err = fp ? rel_err(Y, R, tot) : INFINITY;
    snprintf(what, sizeof what, "fft rank %d n %lld x %lld x %lld: vs %s err %.3g > %.3g",
             rk, (long long)n[0], (long long)(rk > 1 ? n[1] : 1),
             (long long)(rk > 2 ? n[2] : 1), serial ? "FFTW" : "FFTW-MPI", err, tol);
    expect(err <= tol, what);
    if (fp)
        fftw_destroy_plan(fp);
    fftw_free(fin);
    fftw_free(fout);
    nla_mpi_fft_plan_destroy(pf);
    nla_mpi_fft_plan_destroy(pb);
    free(X);
    free(x);
    free(y);
    free(z);
    free(Y);
    free(R);
}

/* float: a 2-D forward transform against libnla's serial 2-D plan,
   transposed, on rank 0 */
static void test_fft_float(nla_context *ctx, const nla_mpi_grid *g)
{
    const int64_t n[2] = { 12, 10 }, tot = 120;
    int64_t ic, is, oc, os;
    nla_mpi_fft_plan *p;
    nla_fft_plan *sp;
    float *X = malloc(2 * tot * sizeof *X), *S = malloc(2 * tot * sizeof *S), *x, *y;
    double *yd, *Yd = rank == 0 ? malloc(2 * tot * sizeof *Yd) : NULL, err = 0;
    char what[120];

    for (int64_t i = 0; i < 2 * tot; i++)
        X[i] = (float)urand();
    expect(nla_mpi_fft_plan_create(ctx, g, 2, n, NLA_FFT_FORWARD, NLA_FLOAT, &p) == NLA_OK,
           "fft float: plan");
    nla_mpi_fft_local_size(p, &ic, &is, &oc, &os);
    x = malloc((size_t)(2 * ic + 2) * sizeof *x);
    y = malloc((size_t)(2 * oc + 2) * sizeof *y);
    yd = malloc((size_t)(2 * oc + 2) * sizeof *yd);
    memcpy(x, X + 2 * is, (size_t)(2 * ic) * sizeof *x);
    expect(nla_mpi_fft_execute(p, x, y) == NLA_OK, "fft float: execute");
    for (int64_t i = 0; i < 2 * oc; i++)
        yd[i] = y[i];
    gather_c(yd, oc, os, Yd);
    if (rank == 0) {
        nla_fft_plan_2d(ctx, n[0], n[1], NLA_FFT_FORWARD, NLA_FLOAT, &sp);
        nla_fft_execute(sp, X, S);
        nla_fft_plan_destroy(sp);
        for (int64_t i0 = 0; i0 < n[0]; i0++)
            for (int64_t i1 = 0; i1 < n[1]; i1++)
                for (int c = 0; c < 2; c++)
                    err = fmax(err, fabs(Yd[2 * (i1 * n[0] + i0) + c] - S[2 * (i0 * n[1] + i1) + c]));
    }
    snprintf(what, sizeof what, "fft float 12 x 10 vs the serial plan, transposed: err %.3g", err);
    expect(err <= 1e-4, what);
    nla_mpi_fft_plan_destroy(p);
    free(X);
    free(S);
    free(x);
    free(y);
    free(yd);
    free(Yd);
}

void test_fft(nla_context *ctx, const nla_mpi_grid *g)
{
    static const int64_t sizes[][3] = { { 24, 20, 1 }, { 7, 5, 1 }, { 8, 6, 5 }, { 3, 9, 4 } };
    /* 97: prime, N2 = 1; 1 and 2: the smallest */
    static const int64_t lens[] = { 4096, 1000, 60, 97, 2, 1 };
    for (int c = 0; c < 2; c++)
        test_fft_case(ctx, g, 2, sizes[c]);
    for (int c = 2; c < 4; c++)
        test_fft_case(ctx, g, 3, sizes[c]);
    for (int c = 0; c < 6; c++)
        test_fft_case(ctx, g, 1, &lens[c]);
    test_fft_float(ctx, g);
    {
        /* n[1] < 1 on the last rank */
        int64_t n[2] = { 8, 8 };
        nla_mpi_fft_plan *p = (nla_mpi_fft_plan *)&n;
        char tag[32], what[200];
        nla_status st;
        snprintf(tag, sizeof tag, "(rank %d)", size - 1);
        if (rank == size - 1)
            n[1] = 0;
        st = nla_mpi_fft_plan_create(ctx, g, 2, n, NLA_FFT_FORWARD, NLA_DOUBLE, &p);
        snprintf(what, sizeof what, "fft plan with n[1] = 0 on one rank: %d \"%s\"", (int)st,
                 nla_mpi_last_error());
        expect(st == NLA_EINVAL && p == NULL && strstr(nla_mpi_last_error(), tag), what);
        /* execute: out NULL on the last rank, which holds part of out
           (8 rows on at most 4 processes); in == out on rank 0 */
        n[1] = 8;
        if (nla_mpi_fft_plan_create(ctx, g, 2, n, NLA_FFT_FORWARD, NLA_DOUBLE, &p) == NLA_OK) {
            int64_t ic, oc;
            double *in, *out;
            nla_mpi_fft_local_size(p, &ic, NULL, &oc, NULL);
            in = calloc((size_t)(2 * ic + 2), sizeof *in);
            out = malloc((size_t)(2 * oc + 2) * sizeof *out);
            for (int64_t i = 0; i < 2 * oc + 2; i++)
                out[i] = 3.0;
            st = nla_mpi_fft_execute(p, in, rank == size - 1 ? NULL : out);
            snprintf(what, sizeof what, "fft execute, out NULL on one rank: %d \"%s\"",
                     (int)st, nla_mpi_last_error());
            expect(st == NLA_EINVAL && strstr(nla_mpi_last_error(), "out is NULL") &&
                       strstr(nla_mpi_last_error(), tag) && out[0] == 3.0, what);
            st = nla_mpi_fft_execute(p, in, rank == 0 ? (void *)in : out);
            expect(st == NLA_EINVAL && strstr(nla_mpi_last_error(), "in == out") &&
                       strstr(nla_mpi_last_error(), "(rank 0)") && out[0] == 3.0,
                   "fft execute, in == out on rank 0");
            nla_mpi_fft_plan_destroy(p);
            free(in);
            free(out);
        }
    }
}

/* nla_mpi_fw_solve_lsq against nla_fw_solve with the built-in lsq
   objective on the whole A: the same stop reason and iteration count,
   iterates within 1e-12, and the same bits of x on every rank.  Pairwise
   steps with the exact rule leave <g, v> = <g, a> after each step, a tie
   for the next away atom that rounding breaks either way: there both
   must reach the tolerance at the same f, within the gap bound. */
static void test_fw_case(nla_context *ctx, const nla_mpi_grid *g, nla_fw_variant var,
                         nla_fw_step_rule rule, double tol, int64_t max_iter, int split)
{
    const int64_t m = 60, n = 20;
    double *A = global(m, n), *bvec = global(m, 1), L = 0;
    double x[20], xs[20], xmax[20], xmin[20], dev = 0;
    int64_t r0 = 0, mloc = split_rows(m, split, rank, size), bytes;
    nla_fw_set *set;
    nla_fw_options *opt;
    nla_fw_objective *obj;
    nla_context *cpu;
    nla_fw_result res, ress;
    nla_status st, sts;
    char what[300];

    for (int q = 0; q < rank; q++)
        r0 += split_rows(m, split, q, size);
    for (int64_t i = 0; i < m * n; i++)
        L += A[i] * A[i]; /* |A|_F^2 >= |A|_2^2 */
    nla_fw_set_create_prob_simplex(&set, n, 1.0);
    nla_fw_options_create(&opt);
    nla_fw_options_set_variant(opt, var);
    nla_fw_options_set_step(opt, rule, rule == NLA_FW_AGNOSTIC ? 0.0 : L);
    nla_fw_options_set_tol(opt, tol);
    nla_fw_options_set_max_iter(opt, max_iter);
    for (int64_t i = 0; i < n; i++)
        x[i] = xs[i] = i == 0 ? 1.0 : 0.0;
    bytes = nla_mpi_grid_bytes_received(g);
    st = nla_mpi_fw_solve_lsq(ctx, g, mloc, n, A + r0, m, bvec + r0, set, opt, x, &res);
    bytes = nla_mpi_grid_bytes_received(g) - bytes;
    /* the reference on the CPU, whatever ctx is: the device loop runs
       vanilla steps only */
    nla_context_create(&cpu, NLA_BACKEND_CPU);
    nla_fw_objective_create_lsq(&obj, m, n, A, m, bvec);
    sts = nla_fw_solve(cpu, obj, set, opt, xs, &ress);
    nla_context_destroy(cpu);
    for (int64_t i = 0; i < n; i++)
        dev = fmax(dev, fabs(x[i] - xs[i]));
    MPI_Allreduce(x, xmax, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(x, xmin, (int)n, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    snprintf(what, sizeof what,
             "fw variant %d rule %d split %d: status %d/%d, stop %d/%d, iterations %lld/%lld, "
             "|x - serial| %.3g (%s)",
             (int)var, (int)rule, split, (int)st, (int)sts, (int)res.stop, (int)ress.stop,
             (long long)res.iterations, (long long)ress.iterations, dev,
             nla_mpi_last_error());
    if (var == NLA_FW_PAIRWISE && rule == NLA_FW_EXACT)
        expect(st == sts && st == NLA_OK && res.stop == ress.stop && res.gap <= tol &&
                   fabs(res.f - ress.f) <= res.gap + ress.gap,
               what);
    else
        expect(st == sts && res.stop == ress.stop && res.iterations == ress.iterations &&
                   dev <= 1e-12 && fabs(res.f - ress.f) <= 1e-12 * fmax(1.0, fabs(ress.f)),
               what);
    expect(memcmp(xmax, xmin, sizeof xmax) == 0, "fw: the same bits of x on every rank");
    if (size > 1) {
        /* rounds of n + 2 doubles: one an iteration (H d), one at the
           start and every 100th iterate (the gradient and f), and the last
           (every solver done) */
        int64_t it = res.iterations, want = (int64_t)sizeof(double) * (n + 2) *
                                            (it + 1 + it / 100 + 1);
        snprintf(what, sizeof what, "fw: %lld bytes received for %lld iterations (%lld wanted)",
                 (long long)bytes, (long long)it, (long long)want);
        expect(bytes == want, what);
    }
    nla_fw_objective_destroy(obj);
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(set);
    free(A);
    free(bvec);
}

static int stop_rank0_at_3(const nla_fw_state *s, void *user)
{
    (void)user;
    return rank == 0 && s->t == 3;
}

void test_fw(nla_context *ctx, const nla_mpi_grid *g)
{
    if (nla_context_backend(ctx) == NLA_BACKEND_CUDA) {
        /* the emulated device: 30 iterations of two rules, the products
           on ctx (the rest is libnla-mpi's logic, which the CPU runs
           cover) */
        test_fw_case(ctx, g, NLA_FW_VANILLA, NLA_FW_AGNOSTIC, 0.0, 30, 0);
        test_fw_case(ctx, g, NLA_FW_VANILLA, NLA_FW_EXACT, 0.0, 30, 1);
        return;
    }
    test_fw_case(ctx, g, NLA_FW_VANILLA, NLA_FW_AGNOSTIC, 1e-12, 150, 0);
    test_fw_case(ctx, g, NLA_FW_VANILLA, NLA_FW_EXACT, 1e-9, 5000, 0);
    test_fw_case(ctx, g, NLA_FW_PAIRWISE, NLA_FW_SHORT_STEP, 1e-6, 5000, 1);
    test_fw_case(ctx, g, NLA_FW_AWAY, NLA_FW_ADAPTIVE, 1e-6, 5000, 2);
    test_fw_case(ctx, g, NLA_FW_AWAY, NLA_FW_EXACT, 1e-9, 5000, 1);
    test_fw_case(ctx, g, NLA_FW_PAIRWISE, NLA_FW_EXACT, 1e-9, 5000, 2);
    {
        /* the start differs on the last rank; mloc < 0 there */
        const int64_t n = 4;
        double a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, b[2] = { 1, 1 }, x[4] = { 1, 0, 0, 0 };
        nla_fw_set *set;
        nla_status st;
        char what[200], tag[32];
        nla_fw_set_create_prob_simplex(&set, n, 1.0);
        snprintf(tag, sizeof tag, "(rank %d)", size - 1);
        if (size > 1) {
            if (rank == size - 1)
                x[0] = 0.5, x[1] = 0.5;
            st = nla_mpi_fw_solve_lsq(ctx, g, 2, n, a, 2, b, set, NULL, x, NULL);
            snprintf(what, sizeof what, "fw: a start that differs: %d \"%s\"", (int)st,
                     nla_mpi_last_error());
            expect(st == NLA_EINVAL && strstr(nla_mpi_last_error(), "x differs") &&
                       strstr(nla_mpi_last_error(), tag) &&
                       x[0] == (rank == size - 1 ? 0.5 : 1.0),
                   what);
            x[0] = 1.0, x[1] = 0.0;
        }
        {
            /* a callback that stops rank 0 alone: its solver returns, the
               others' stop at their next sum (NaN), and every rank gets the
               same error instead of a hang; nothing written */
            const int64_t m = 60, nn = 20;
            double *A = global(m, nn), *B = global(m, 1), y[20];
            int64_t r0 = 0, mloc = split_rows(m, 0, rank, size);
            nla_fw_set *s20;
            nla_fw_options *opt;
            nla_fw_result res;
            for (int q = 0; q < rank; q++)
                r0 += split_rows(m, 0, q, size);
            for (int i = 0; i < 20; i++)
                y[i] = i == 0;
            nla_fw_set_create_prob_simplex(&s20, nn, 1.0);
            nla_fw_options_create(&opt);
            nla_fw_options_set_tol(opt, 0.0);
            nla_fw_options_set_max_iter(opt, 20);
            nla_fw_options_set_callback(opt, stop_rank0_at_3, NULL);
            st = nla_mpi_fw_solve_lsq(ctx, g, mloc, nn, A + r0, m, B + r0, s20, opt, y, &res);
            snprintf(what, sizeof what, "fw: a callback that stops rank 0 alone: %d \"%s\"",
                     (int)st, nla_mpi_last_error());
            if (size > 1)
                expect(st == NLA_EINVAL && strstr(nla_mpi_last_error(), "differs from rank 0") &&
                           strstr(nla_mpi_last_error(), "(rank 1)") && y[0] == 1.0,
                       what);
            else
                expect(st == NLA_OK && res.stop == NLA_FW_STOP_CALLBACK && res.iterations == 3,
                       what);
            nla_fw_options_destroy(opt);
            nla_fw_set_destroy(s20);
            free(A);
            free(B);
        }
        {
            /* a time limit: refused everywhere, nothing written */
            nla_fw_options *opt;
            nla_fw_options_create(&opt);
            nla_fw_options_set_time_limit(opt, 10.0);
            st = nla_mpi_fw_solve_lsq(ctx, g, 2, n, a, 2, b, set, opt, x, NULL);
            snprintf(what, sizeof what, "fw: a time limit: %d \"%s\"", (int)st,
                     nla_mpi_last_error());
            expect(st == NLA_ENOTSUP && strstr(nla_mpi_last_error(), "time limit") && x[0] == 1.0,
                   what);
            nla_fw_options_destroy(opt);
        }
        st = nla_mpi_fw_solve_lsq(ctx, g, rank == size - 1 ? -1 : 2, n, a, 2, b, set, NULL, x,
                                  NULL);
        snprintf(what, sizeof what, "fw: mloc < 0 on one rank: %d \"%s\"", (int)st,
                 nla_mpi_last_error());
        expect(st == NLA_EINVAL && strstr(nla_mpi_last_error(), "mloc (-1)") &&
                   strstr(nla_mpi_last_error(), tag) && x[0] == 1.0,
               what);
        nla_fw_set_destroy(set);
    }
}
