/*
 * test_mpi.h - what tests/test_mpi.c shares with tests/test_mpi_fft_fw.c and
 * tests/test_mpi_spmv.c.
 */
#ifndef NLA_TEST_MPI_H
#define NLA_TEST_MPI_H

#include <stdint.h>
#include "nla_mpi.h"

extern int rank, size;   /* in MPI_COMM_WORLD */

/* one check on this rank; the verdict is agreed (any rank failing fails) */
void expect(int ok, const char *what);
/* uniform in [-1, 1), the same sequence on every rank */
double urand(void);
/* an m x n matrix of urand(), the same on every rank */
double *global(int64_t m, int64_t n);
/* process q's share of n rows: 0 even, 1 rank 0 none, 2 one each but the
   last, 3 the odd ranks none (empty ranks between others) */
int64_t split_rows(int64_t n, int kind, int q, int P);

void test_spmv(nla_context *ctx, const nla_mpi_grid *g);
void test_fft(nla_context *ctx, const nla_mpi_grid *g);
void test_fw(nla_context *ctx, const nla_mpi_grid *g);

#endif
