/*
 * mpi_gemm.c - C = A*A^T on every process of MPI_COMM_WORLD with
 * libnla-mpi, checked against libnla's serial GEMM on rank 0.
 *
 *   mpicc -o mpi_gemm mpi_gemm.c $(pkg-config --cflags --libs nla-mpi)
 *   mpiexec -n 4 ./mpi_gemm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <nla_mpi.h>

static void check(nla_status st)
{
    if (st != NLA_OK) {
        fprintf(stderr, "%s\n", nla_mpi_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    const int64_t n = 300, nb = 32;
    double *a = NULL, *c = NULL, *ref = NULL, *aloc, *cloc;
    nla_context *ctx;
    nla_mpi_grid *grid;
    nla_mpi_desc desc;
    int64_t mloc, nloc;
    size_t len;
    int rank, bad = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (nla_context_create(&ctx, NLA_BACKEND_CPU) != NLA_OK) {
        fprintf(stderr, "%s\n", nla_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* the squarest grid of the processes, A and C in 32 x 32 blocks */
    check(nla_mpi_grid_create(MPI_COMM_WORLD, 0, 0, &grid));
    check(nla_mpi_desc_init(&desc, grid, n, n, nb, nb, 0, 0, 0));
    check(nla_mpi_desc_local(&desc, grid, &mloc, &nloc));
    len = (size_t)(desc.lld * (nloc > 0 ? nloc : 1));
    aloc = malloc(len * sizeof(double));
    cloc = malloc(len * sizeof(double));
    if (rank == 0) { /* the whole A on rank 0 only */
        a = malloc((size_t)(n * n) * sizeof(double));
        c = malloc((size_t)(n * n) * sizeof(double));
        ref = malloc((size_t)(n * n) * sizeof(double));
        for (int64_t i = 0; i < n * n; i++)
            a[i] = (double)(i % 7) - 3.0;
    }
    check(nla_mpi_dscatter(grid, 0, a, n, aloc, &desc));
    /* A serves as B too; op(B) = A^T is redistributed first */
    check(nla_mpi_dgemm(ctx, grid, NLA_NO_TRANS, NLA_TRANS, n, n, n, 1.0, aloc, &desc, aloc,
                        &desc, 0.0, cloc, &desc));
    check(nla_mpi_dgather(grid, 0, cloc, &desc, c, n));
    if (rank == 0) {
        /* small integers: every sum is exact, so the bits must agree */
        nla_dgemm(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_TRANS, n, n, n, 1.0, a, n, a, n, 0.0,
                  ref, n);
        for (int64_t i = 0; i < n * n; i++)
            bad += c[i] != ref[i];
        printf("C = A*A^T, %lld x %lld: %s (c[0] = %g)\n", (long long)n, (long long)n,
               bad ? "WRONG" : "ok", c[0]);
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    nla_mpi_grid_destroy(grid);
    nla_context_destroy(ctx);
    free(a);
    free(c);
    free(ref);
    free(aloc);
    free(cloc);
    MPI_Finalize();
    return bad ? 1 : 0;
}
