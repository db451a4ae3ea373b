/*
 * mpi_bench.c - libnla-mpi's benchmark, run under mpirun (a developer's
 * tool, not installed: make tools/nla-mpi-bench).
 *
 *   mpirun -np 4 tools/nla-mpi-bench [--quick] [--reps N] [--only dgemm|dgbmv|dspmv|sspmv|fft|fw]
 *
 * For each operation, on all the processes (the squarest grid):
 *   - time a call: the slowest process's, median of N paired samples;
 *   - the reference measured beside it where there is one (ScaLAPACK's
 *     pdgemm on the same descriptors, FFTW-MPI with FFTW_MEASURE on the
 *     same layouts), and libnla's time over the reference's;
 *   - bytes received a call by the process that received most, against
 *     the algorithm's model;
 *   - the share of the time spent in local kernels (the mean over ranks).
 * The 2-vCPU machines cannot show speed-up; the bytes are the cost that
 * carries to a cluster (doc/distributed.md).
 */
#include <complex.h>
#include <fftw3-mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nla_mpi.h"
#include "scalapack.h"   /* in tests/: the reference */

static int rank, size, reps = 5;
/* FFTW-MPI's planning: MEASURE, the usual reference; --quick (make check,
   sanitizer builds included) plans by ESTIMATE, in milliseconds */
static unsigned fftw_effort = FFTW_MEASURE;
static const char *only; /* --only WORD: the operations whose name starts so */

static int want(const char *op)
{
    return !only || strncmp(op, only, strlen(only)) == 0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double maxall(double x)
{
    double m;
    MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static double sumall(double x)
{
    double m;
    MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return m;
}

static void row(const char *op, double t, double ref, double bytes, double model, double local)
{
    if (rank != 0)
        return;
    printf("%-30s %10.3f ", op, 1e3 * t);
    if (ref > 0)
        printf("%10.3f %6.2f ", 1e3 * ref, ref / t);
    else
        printf("%10s %6s ", "-", "-");
    printf("%12.0f %12.0f %6.3f %6.1f%%\n", bytes, model, model > 0 ? bytes / model : 0,
           100 * local);
}

static void fill(double *x, int64_t n, unsigned seed)
{
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (double)(seed >> 8) / 16777216.0 - 0.5;
    }
}

/* one call timed on every process, the slowest taken */
#define TIMED(out, call)                                                       \
    do {                                                                       \
        double t0_;                                                            \
        MPI_Barrier(MPI_COMM_WORLD);                                           \
        t0_ = MPI_Wtime();                                                     \
        call;                                                                  \
        out = maxall(MPI_Wtime() - t0_);                                       \
    } while (0)

static void bench_gemm(nla_context *ctx, const nla_mpi_grid *g, int64_t n, int64_t nb)
{
    int pr, pc, ictxt, one = 1, ni = (int)n, sd[9];
    int64_t ml, nl;
    nla_mpi_desc d;
    double *a, *b, *c, t[64], r[64], by = 0, loc = 0, alpha = 1, beta = 0;
    char name[64];

    nla_mpi_grid_info(g, &pr, &pc, NULL, NULL);
    Cblacs_get(-1, 0, &ictxt);
    Cblacs_gridinit(&ictxt, "Row", pr, pc);
    nla_mpi_desc_init(&d, g, n, n, nb, nb, 0, 0, 0);
    nla_mpi_desc_local(&d, g, &ml, &nl);
    nla_mpi_desc_to_scalapack(&d, ictxt, sd);
    a = malloc((size_t)(d.lld * (nl + 1)) * sizeof *a);
    b = malloc((size_t)(d.lld * (nl + 1)) * sizeof *b);
    c = malloc((size_t)(d.lld * (nl + 1)) * sizeof *c);
    fill(a, d.lld * nl, 1u + (unsigned)rank);
    fill(b, d.lld * nl, 7u + (unsigned)rank);
    fill(c, d.lld * nl, 3u);
    /* warm both up once */
    nla_mpi_dgemm(ctx, g, NLA_NO_TRANS, NLA_NO_TRANS, n, n, n, 1.0, a, &d, b, &d, 0.0, c, &d);
    pdgemm_("N", "N", &ni, &ni, &ni, &alpha, a, &one, &one, sd, b, &one, &one, sd, &beta, c,
            &one, &one, sd);
    for (int s = 0; s < reps; s++) {
        int64_t b0 = nla_mpi_grid_bytes_received(g);
        double l0 = nla_mpi_grid_local_seconds(g);
        TIMED(t[s], nla_mpi_dgemm(ctx, g, NLA_NO_TRANS, NLA_NO_TRANS, n, n, n, 1.0, a, &d, b,
                                  &d, 0.0, c, &d));
        by = maxall((double)(nla_mpi_grid_bytes_received(g) - b0));
        loc += sumall(nla_mpi_grid_local_seconds(g) - l0) / size / t[s];
        TIMED(r[s], pdgemm_("N", "N", &ni, &ni, &ni, &alpha, a, &one, &one, sd, b, &one, &one,
                            sd, &beta, c, &one, &one, sd));
    }
    snprintf(name, sizeof name, "dgemm n=%lld nb=%lld %dx%d", (long long)n, (long long)nb, pr,
             pc);
    /* SUMMA: each process gets its rows of A (n/pr x n) and its columns of
       B (n x n/pc): 2 n^2 / sqrt(P) words on a square grid */
    row(name, median(t, reps), median(r, reps), by,
        8.0 * ((double)n * n / pr + (double)n * n / pc), loc / reps);
    Cblacs_gridexit(ictxt);
    free(a);
    free(b);
    free(c);
}

static void bench_gbmv(nla_context *ctx, const nla_mpi_grid *g, int64_t n, int64_t k, char tr)
{
    int64_t nloc = n / size + (rank < n % size), r0 = 0, ldab = 2 * k + 1, c0, c1;
    double *ab, *x, *y, t[64], by = 0, loc = 0;
    char name[64];

    for (int q = 0; q < rank; q++)
        r0 += n / size + (q < n % size);
    c0 = r0 - k > 0 ? r0 - k : 0;
    c1 = r0 + nloc + k < n ? r0 + nloc + k : n;
    ab = malloc((size_t)(ldab * (c1 - c0)) * sizeof *ab);
    x = malloc((size_t)nloc * sizeof *x);
    y = malloc((size_t)nloc * sizeof *y);
    fill(ab, ldab * (c1 - c0), 5u);
    fill(x, nloc, 9u);
    fill(y, nloc, 11u);
    nla_mpi_dgbmv(ctx, g, (nla_trans)tr, n, k, k, 1.0, ab, ldab, nloc, x, 0.5, y);
    for (int s = 0; s < reps; s++) {
        int64_t b0 = nla_mpi_grid_bytes_received(g);
        double l0 = nla_mpi_grid_local_seconds(g);
        TIMED(t[s], nla_mpi_dgbmv(ctx, g, (nla_trans)tr, n, k, k, 1.0, ab, ldab, nloc, x, 0.5,
                                  y));
        by = maxall((double)(nla_mpi_grid_bytes_received(g) - b0));
        loc += sumall(nla_mpi_grid_local_seconds(g) - l0) / size / t[s];
    }
    snprintf(name, sizeof name, "dgbmv %c n=2^%d kl=ku=%lld", tr, (int)log2((double)n),
             (long long)k);
    /* an inner process: kl + ku values of x (N) or partial sums of y (T) */
    row(name, median(t, reps), 0, by, size > 1 ? 8.0 * (size > 2 ? 2 * k : k) : 0,
        loc / reps);
    free(ab);
    free(x);
    free(y);
}

/* as_float: the same values in a float copy (x freed), for sspmv */
static void *as_float(double *x, int64_t n)
{
    float *f = malloc((size_t)(n + 1) * sizeof *f);
    for (int64_t i = 0; i < n; i++)
        f[i] = (float)x[i];
    free(x);
    return f;
}

static nla_status spmv_call(nla_context *ctx, const nla_mpi_grid *g, int dbl, int64_t n,
                            const void *t, const void *r, int64_t ldr, int64_t nloc,
                            const void *x, void *y)
{
    return dbl ? nla_mpi_dspmv(ctx, g, NLA_UPPER, n, 1.0, t, r, ldr, nloc, x, 0.5, y)
               : nla_mpi_sspmv(ctx, g, NLA_UPPER, n, 1.0f, t, r, ldr, nloc, x, 0.5f, y);
}

static void bench_spmv(nla_context *ctx, const nla_mpi_grid *g, int64_t n, int dbl)
{
    int64_t nloc = n / size + (rank < n % size), c0 = 0, ldr, lt;
    double *t, *r, *x, *y, tt[64], by = 0, loc = 0, es = dbl ? 8.0 : 4.0;
    void *tv, *rv, *xv, *yv;
    char name[64];

    for (int q = 0; q < rank; q++)
        c0 += n / size + (q < n % size);
    ldr = c0 > 1 ? c0 : 1;
    lt = nloc * (nloc + 1) / 2;
    t = malloc((size_t)(lt + 1) * sizeof *t);
    r = malloc((size_t)(ldr * nloc + 1) * sizeof *r);
    x = malloc((size_t)(nloc + 1) * sizeof *x);
    y = malloc((size_t)(nloc + 1) * sizeof *y);
    fill(t, lt, 21u);
    fill(r, ldr * nloc, 23u);
    fill(x, nloc, 25u);
    fill(y, nloc, 27u);
    tv = dbl ? (void *)t : as_float(t, lt);
    rv = dbl ? (void *)r : as_float(r, ldr * nloc);
    xv = dbl ? (void *)x : as_float(x, nloc);
    yv = dbl ? (void *)y : as_float(y, nloc);
    spmv_call(ctx, g, dbl, n, tv, rv, ldr, nloc, xv, yv);
    for (int s = 0; s < reps; s++) {
        int64_t b0 = nla_mpi_grid_bytes_received(g);
        double l0 = nla_mpi_grid_local_seconds(g);
        TIMED(tt[s], spmv_call(ctx, g, dbl, n, tv, rv, ldr, nloc, xv, yv));
        by = maxall((double)(nla_mpi_grid_bytes_received(g) - b0));
        loc += sumall(nla_mpi_grid_local_seconds(g) - l0) / size / tt[s];
    }
    snprintf(name, sizeof name, "%sspmv U n=%lld (column blocks)", dbl ? "d" : "s",
             (long long)n);
    /* the rest of x in, the other rows' sums out: 2 (n - nloc) values */
    row(name, median(tt, reps), 0, by, size > 1 ? 2.0 * es * (double)(n - n / size) : 0,
        loc / reps);
    free(tv);
    free(rv);
    free(xv);
    free(yv);
}

static void bench_fft(nla_context *ctx, const nla_mpi_grid *g, int rk, const int64_t *n)
{
    nla_mpi_fft_plan *p;
    int64_t ic, is, oc, os, tot = 1;
    ptrdiff_t nn[3], lni, lis, lno, los, alloc;
    fftw_complex *fin, *fout;
    fftw_plan fp;
    double *x, *y, t[64], r[64], by = 0, loc = 0;
    char name[64];

    for (int d = 0; d < rk; d++) {
        tot *= n[d];
        nn[d] = (ptrdiff_t)n[d];
    }
    nla_mpi_fft_plan_create(ctx, g, rk, n, NLA_FFT_FORWARD, NLA_DOUBLE, &p);
    nla_mpi_fft_local_size(p, &ic, &is, &oc, &os);
    x = malloc((size_t)(2 * ic + 2) * sizeof *x);
    y = malloc((size_t)(2 * oc + 2) * sizeof *y);
    fill(x, 2 * ic, 13u + (unsigned)rank);
    if (rk == 1)
        alloc = fftw_mpi_local_size_1d(nn[0], MPI_COMM_WORLD, FFTW_FORWARD, fftw_effort, &lni,
                                       &lis, &lno, &los);
    else
        alloc = fftw_mpi_local_size_many_transposed(rk, nn, 1, FFTW_MPI_DEFAULT_BLOCK,
                                                    FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD, &lni,
                                                    &lis, &lno, &los);
    fin = fftw_alloc_complex((size_t)alloc + 1);
    fout = fftw_alloc_complex((size_t)alloc + 1);
    fp = rk == 1 ? fftw_mpi_plan_dft_1d(nn[0], fin, fout, MPI_COMM_WORLD, FFTW_FORWARD,
                                        fftw_effort)
                 : fftw_mpi_plan_dft(rk, nn, fin, fout, MPI_COMM_WORLD, FFTW_FORWARD,
                                     fftw_effort | FFTW_MPI_TRANSPOSED_OUT);
    memset(fin, 0, (size_t)alloc * sizeof *fin);
    nla_mpi_fft_execute(p, x, y);
    for (int s = 0; s < reps; s++) {
        int64_t b0 = nla_mpi_grid_bytes_received(g);
        double l0 = nla_mpi_grid_local_seconds(g);
        TIMED(t[s], nla_mpi_fft_execute(p, x, y));
        by = maxall((double)(nla_mpi_grid_bytes_received(g) - b0));
        loc += sumall(nla_mpi_grid_local_seconds(g) - l0) / size / t[s];
        TIMED(r[s], if (fp) fftw_execute(fp));
    }
    if (rk == 1)
        snprintf(name, sizeof name, "fft c2c d n=%lld", (long long)n[0]);
    else
        snprintf(name, sizeof name, "fft c2c d %lld^%d (slabs)", (long long)n[0], rk);
    /* a transpose brings (1 - 1/P) of a process's share: one for slabs,
       three for the six steps */
    row(name, median(t, reps), fp ? median(r, reps) : 0, by,
        (rk == 1 ? 3.0 : 1.0) * 16.0 * (double)tot / size * (1.0 - 1.0 / size),
        loc / reps);
    if (fp)
        fftw_destroy_plan(fp);
    fftw_free(fin);
    fftw_free(fout);
    nla_mpi_fft_plan_destroy(p);
    free(x);
    free(y);
}

static void bench_fw(nla_context *ctx, const nla_mpi_grid *g, int64_t m, int64_t n, int64_t it)
{
    int64_t mloc = m / size + (rank < m % size);
    double *a = malloc((size_t)(mloc * n + 1) * sizeof *a), *b = malloc((size_t)(mloc + 1) * 8);
    double *x = malloc((size_t)n * sizeof *x), t[64], by = 0, loc = 0;
    nla_fw_set *set;
    nla_fw_options *opt;
    nla_fw_result res;
    char name[64];

    fill(a, mloc * n, 17u + (unsigned)rank);
    fill(b, mloc, 19u + (unsigned)rank);
    nla_fw_set_create_prob_simplex(&set, n, 1.0);
    nla_fw_options_create(&opt);
    nla_fw_options_set_step(opt, NLA_FW_EXACT, 0.0);
    nla_fw_options_set_tol(opt, 0.0);
    nla_fw_options_set_max_iter(opt, it);
    res.iterations = 1;
    for (int s = 0; s < reps; s++) {
        int64_t b0 = nla_mpi_grid_bytes_received(g);
        double l0 = nla_mpi_grid_local_seconds(g);
        for (int64_t i = 0; i < n; i++)
            x[i] = i == 0;
        TIMED(t[s], nla_mpi_fw_solve_lsq(ctx, g, mloc, n, a, mloc > 1 ? mloc : 1, b, set, opt,
                                         x, &res));
        by = maxall((double)(nla_mpi_grid_bytes_received(g) - b0)) / (double)res.iterations;
        loc += sumall(nla_mpi_grid_local_seconds(g) - l0) / size / t[s];
        t[s] /= (double)res.iterations;
    }
    snprintf(name, sizeof name, "fw lsq %lldx%lld exact, an iteration", (long long)m,
             (long long)n);
    /* rounds of n + 2 doubles: H d a step, the gradient and f at the start
       and every 100th iterate, and the last (every solver done) */
    row(name, median(t, reps), 0, by,
        size > 1 ? 8.0 * (double)(n + 2) *
                       (1.0 + (double)(2 + res.iterations / 100) / (double)res.iterations)
                 : 0,
        loc / reps);
    nla_fw_options_destroy(opt);
    nla_fw_set_destroy(set);
    free(a);
    free(b);
    free(x);
}

int main(int argc, char **argv)
{
    int quick = 0;
    nla_context *ctx;
    nla_mpi_grid *g;

    MPI_Init(&argc, &argv);
    fftw_mpi_init();
    fftw_set_timelimit(20.0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1, reps = 3, fftw_effort = FFTW_ESTIMATE;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
    }
    if (reps < 1 || reps > 64)
        reps = 5;
    if (nla_context_create(&ctx, NLA_BACKEND_CPU) != NLA_OK ||
        nla_mpi_grid_create(MPI_COMM_WORLD, 0, 0, &g) != NLA_OK) {
        fprintf(stderr, "nla-mpi-bench: %s%s\n", nla_last_error(), nla_mpi_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    nla_context_set_threads(ctx, 1);
    if (rank == 0) {
        printf("libnla-mpi bench: %d processes, %d sample%s a row (medians; the slowest "
               "process's time)\n", size, reps, reps > 1 ? "s" : "");
        printf("%-30s %10s %10s %6s %12s %12s %6s %7s\n", "operation", "ms", "ref ms",
               "ref/ms", "bytes/rank", "model", "b/mod", "local");
    }
    if (want("dgemm"))
        bench_gemm(ctx, g, quick ? 256 : 2048, quick ? 32 : 128);
    if (want("dgbmv")) {
        bench_gbmv(ctx, g, quick ? 1 << 14 : 1 << 20, 16, 'N');
        bench_gbmv(ctx, g, quick ? 1 << 14 : 1 << 20, 16, 'T');
    }
    if (want("dspmv"))
        bench_spmv(ctx, g, quick ? 500 : 8000, 1);
    if (want("sspmv"))
        bench_spmv(ctx, g, quick ? 500 : 8000, 0);
    if (want("fft")) {
        int64_t n3[3] = { quick ? 32 : 256, quick ? 32 : 256, quick ? 32 : 256 };
        int64_t n1[1] = { quick ? 1 << 14 : 1 << 22 };
        bench_fft(ctx, g, 3, n3);
        bench_fft(ctx, g, 1, n1);
    }
    if (want("fw"))
        bench_fw(ctx, g, quick ? 400 : 4000, quick ? 50 : 500, quick ? 20 : 100);
    nla_mpi_grid_destroy(g);
    nla_context_destroy(ctx);
    fftw_mpi_cleanup();
    MPI_Finalize();
    return 0;
}
