/*
 * nla_mpi.h - libnla-mpi, libnla beyond one machine (link -lnla-mpi -lnla;
 * pkg-config nla-mpi).
 *
 * Processes form a 2-D grid over an MPI communicator.  A matrix is spread
 * over the grid in ScaLAPACK's 2-D block-cyclic layout: its mb x nb blocks
 * are dealt to the process rows and columns in turn, from the process
 * (rsrc, csrc), and each process keeps its blocks column-major in a local
 * array with leading dimension lld.  The local multiplies run through a
 * libnla context, so on the CPU backend or on CUDA as the context says.
 *
 * Conventions, beyond nla.h's:
 *   - the routines that communicate (grid create and destroy, scatter,
 *     gather, GEMM) are collective over the grid's processes: all of them
 *     call it, with the same sizes, transposes and descriptors (lld and the
 *     local arrays are each process's own).  The others (grid_info,
 *     numroc, the descriptor helpers) are local;
 *   - errors are collective: a bad argument on any process (or sizes that
 *     differ between processes) makes the call return the same status on
 *     every process, nothing is written anywhere, and nla_mpi_last_error()
 *     names the routine, the argument and the rank that found it.  A NULL
 *     grid cannot be agreed on (there is no communicator): that process
 *     alone returns NLA_EINVAL;
 *   - failures are reported through nla_mpi_last_error() (thread-local),
 *     not through the context's message.
 *
 * See nla_mpi(3).
 */
#ifndef NLA_MPI_H
#define NLA_MPI_H

#include <mpi.h>
#include <nla.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Why the last libnla-mpi call made by this thread failed; "" after a
   success. */
NLA_API const char *nla_mpi_last_error(void);

/* ------------------------------------------------------------------ grid */

typedef struct nla_mpi_grid nla_mpi_grid;

/* An nprow x npcol grid over the processes of comm (collective over comm).
   Process (p, q) is rank p*npcol + q of comm, as in BLACS's default "Row"
   order, so a grid made with Cblacs_gridinit(&ictxt, "Row", nprow, npcol)
   over the same communicator has the same coordinates.  nprow*npcol must
   be comm's size; nprow = npcol = 0 chooses the squarest grid (nprow <=
   npcol).  comm is duplicated: the grid's traffic never mixes with the
   caller's.  On failure *grid is NULL. */
NLA_API nla_status nla_mpi_grid_create(MPI_Comm comm, int nprow, int npcol,
                                       nla_mpi_grid **grid);
/* Collective over the grid; NULL is ignored. */
NLA_API void nla_mpi_grid_destroy(nla_mpi_grid *grid);
/* This process's place in the grid (any output may be NULL). */
NLA_API nla_status nla_mpi_grid_info(const nla_mpi_grid *grid, int *nprow, int *npcol,
                                     int *myrow, int *mycol);
/* Bytes of data this process has received in libnla-mpi's calls on this
   grid since it was made: panels, halos, transposes, sums (its own data
   kept in place is not counted, nor the few bytes each call spends
   agreeing on its arguments and status). */
NLA_API int64_t nla_mpi_grid_bytes_received(const nla_mpi_grid *grid);
/* Seconds this process has spent in local kernels (libnla's GEMM, gbmv,
   FFT and gemv, and the FFT's twiddles) within libnla-mpi's calls on this
   grid since it was made: the rest of a call's time is communication and
   packing. */
NLA_API double nla_mpi_grid_local_seconds(const nla_mpi_grid *grid);

/* ----------------------------------------------------- block-cyclic layout */

typedef struct nla_mpi_desc {
    int64_t m, n;     /* the global matrix is m x n */
    int64_t mb, nb;   /* its blocks are mb x nb (the last ones may be smaller) */
    int rsrc, csrc;   /* the process row and column holding the first block */
    int64_t lld;      /* this process's leading dimension, >= max(1, local rows) */
} nla_mpi_desc;

/* How many of n indices dealt in blocks of nb to nprocs processes, from
   process isrc, process iproc holds (ScaLAPACK's NUMROC); -1 if an argument
   is out of range. */
NLA_API int64_t nla_mpi_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs);
/* Fill *desc for this process of grid; lld = 0 takes the local row count
   (at least 1).  Not collective. */
NLA_API nla_status nla_mpi_desc_init(nla_mpi_desc *desc, const nla_mpi_grid *grid,
                                     int64_t m, int64_t n, int64_t mb, int64_t nb,
                                     int rsrc, int csrc, int64_t lld);
/* This process's local rows and columns of desc's matrix. */
NLA_API nla_status nla_mpi_desc_local(const nla_mpi_desc *desc, const nla_mpi_grid *grid,
                                      int64_t *mloc, int64_t *nloc);
/* To and from ScaLAPACK's 9-integer array descriptor (DTYPE 1): {1, ictxt,
   m, n, mb, nb, rsrc, csrc, lld}.  to_scalapack fails if a field does not
   fit an int. */
NLA_API nla_status nla_mpi_desc_to_scalapack(const nla_mpi_desc *desc, int ictxt,
                                             int scalapack_desc[9]);
NLA_API nla_status nla_mpi_desc_from_scalapack(const int scalapack_desc[9],
                                               nla_mpi_desc *desc);

/* Scatter the m x n column-major matrix a (leading dimension lda, read on
   rank root of the grid only) to the local arrays aloc of desc's layout;
   gather does the reverse (a written on root only).  Collective. */
NLA_API nla_status nla_mpi_dscatter(const nla_mpi_grid *grid, int root, const double *a,
                                    int64_t lda, double *aloc, const nla_mpi_desc *desc);
NLA_API nla_status nla_mpi_sscatter(const nla_mpi_grid *grid, int root, const float *a,
                                    int64_t lda, float *aloc, const nla_mpi_desc *desc);
NLA_API nla_status nla_mpi_dgather(const nla_mpi_grid *grid, int root, const double *aloc,
                                   const nla_mpi_desc *desc, double *a, int64_t lda);
NLA_API nla_status nla_mpi_sgather(const nla_mpi_grid *grid, int root, const float *aloc,
                                   const nla_mpi_desc *desc, float *a, int64_t lda);

/* ------------------------------------------------------------------ GEMM */

/* C = alpha*op(A)*op(B) + beta*C on whole distributed matrices (ScaLAPACK's
   pdgemm with ia = ja = 1): op(A) is m x k, op(B) k x n, C m x n, each in
   its own descriptor's layout, any block sizes.  SUMMA: panels of op(A)
   are broadcast along the process rows and panels of op(B) along the
   columns, the next pair in flight while ctx multiplies the current one.
   An operand whose layout does not line up with C's (a transpose, other
   block sizes or source) is first redistributed.  Collective. */
NLA_API nla_status nla_mpi_dgemm(nla_context *ctx, const nla_mpi_grid *grid,
                                 nla_trans transa, nla_trans transb, int64_t m, int64_t n,
                                 int64_t k, double alpha, const double *a,
                                 const nla_mpi_desc *desca, const double *b,
                                 const nla_mpi_desc *descb, double beta, double *c,
                                 const nla_mpi_desc *descc);
NLA_API nla_status nla_mpi_sgemm(nla_context *ctx, const nla_mpi_grid *grid,
                                 nla_trans transa, nla_trans transb, int64_t m, int64_t n,
                                 int64_t k, float alpha, const float *a,
                                 const nla_mpi_desc *desca, const float *b,
                                 const nla_mpi_desc *descb, float beta, float *c,
                                 const nla_mpi_desc *descc);

/* ------------------------------------------------------------ band GAXPY */

/* y = alpha*op(A)*x + beta*y for an n x n band matrix A with kl sub- and ku
   superdiagonals, its rows split in consecutive blocks over the grid's
   processes in rank order: this process holds the nloc rows from r0, the
   sum of the lower ranks' nloc (any nloc >= 0, 0 included; all of them
   add up to n).  ab: LAPACK band storage (leading dimension ldab >=
   kl+ku+1) of the columns c0 = max(0, r0-kl) .. min(n, r0+nloc+ku)-1 that
   cross those rows, A(i, j) = ab[ku + i - j + (j - c0)*ldab]; only the
   entries in this process's rows are read, so a process may point into a
   copy of the whole band storage at column c0.  x and y are this
   process's nloc entries, for NoTrans and Trans alike.  NoTrans exchanges
   the at most kl + ku values of x next to the rows with the processes
   that own them; Trans sends the partial sums of y there to their owners,
   which add them in rank order.  Collective. */
NLA_API nla_status nla_mpi_dgbmv(nla_context *ctx, const nla_mpi_grid *grid, nla_trans trans,
                                 int64_t n, int64_t kl, int64_t ku, double alpha,
                                 const double *ab, int64_t ldab, int64_t nloc, const double *x,
                                 double beta, double *y);
NLA_API nla_status nla_mpi_sgbmv(nla_context *ctx, const nla_mpi_grid *grid, nla_trans trans,
                                 int64_t n, int64_t kl, int64_t ku, float alpha,
                                 const float *ab, int64_t ldab, int64_t nloc, const float *x,
                                 float beta, float *y);

/* ------------------------------------------------ packed-symmetric GAXPY */

/* y = alpha*A*x + beta*y for an n x n symmetric A whose columns are split
   in consecutive blocks over the grid's processes in rank order: this
   process holds the nloc columns from c0 (the sum of the lower ranks'
   nloc; all add up to n), as the two pieces of uplo's triangle that
   libnla's kernels take:
     t  the diagonal block A(c0:c1, c0:c1), c1 = c0 + nloc, packed (uplo's
        triangle, LAPACK's packed storage of an nloc x nloc matrix);
     r  the rest of uplo's part of those columns, dense column-major with
        leading dimension ldr: A(0:c0, c0:c1) for NLA_UPPER (c0 rows),
        A(c1:n, c0:c1) for NLA_LOWER (n - c1 rows).
   nla_mpi_dpacked_slice cuts them from a whole packed matrix.  x and y are
   this process's nloc entries.  Each process gathers all of x and sends
   its partial sums of the other rows to their owners (MPI_Allgatherv and
   MPI_Reduce_scatter, n values each).  Collective.  s: the same in
   float. */
NLA_API nla_status nla_mpi_dspmv(nla_context *ctx, const nla_mpi_grid *grid, nla_uplo uplo,
                                 int64_t n, double alpha, const double *t, const double *r,
                                 int64_t ldr, int64_t nloc, const double *x, double beta,
                                 double *y);
NLA_API nla_status nla_mpi_sspmv(nla_context *ctx, const nla_mpi_grid *grid, nla_uplo uplo,
                                 int64_t n, float alpha, const float *t, const float *r,
                                 int64_t ldr, int64_t nloc, const float *x, float beta,
                                 float *y);
/* Cut columns [c0, c1) of the packed n x n symmetric matrix ap (uplo's
   triangle) into nla_mpi_[ds]spmv's t and r (ldr >= max(1, r's rows)).
   Not collective. */
NLA_API nla_status nla_mpi_dpacked_slice(nla_uplo uplo, int64_t n, const double *ap,
                                         int64_t c0, int64_t c1, double *r, int64_t ldr,
                                         double *t);
NLA_API nla_status nla_mpi_spacked_slice(nla_uplo uplo, int64_t n, const float *ap,
                                         int64_t c0, int64_t c1, float *r, int64_t ldr,
                                         float *t);

/* ------------------------------------------------------------------- FFT */

/* Complex FFTs over the grid's processes in rank order, unnormalized with
   nla.h's sign convention, in FFTW-MPI's slab layouts.  Arrays are
   row-major with complex values interleaved; each process holds a block
   of consecutive values of the flattened global array, out_count values
   from out_start (nla_mpi_fft_local_size).
     rank 2, 3 (n[0] x n[1] [x n[2]]): forward takes the array split over
       n[0] in blocks of ceil(n[0]/P) and gives it transposed, n[1] x n[0]
       [x n[2]] split over n[1] in blocks of ceil(n[1]/P), with one global
       transpose (FFTW_MPI_TRANSPOSED_OUT); backward takes that transposed
       layout and gives the first (FFTW_MPI_TRANSPOSED_IN).
     rank 1 (n[0] = N1*N2): the six-step algorithm, three transposes; the
       input and output are both in order, in blocks that
       nla_mpi_fft_local_size gives; a backward plan's input blocks are
       the forward plan's output blocks.
   A process may hold nothing (more processes than rows).  A 1-D length
   whose largest divisor up to sqrt(n) is small spreads poorly: the steps
   over that dimension use only as many processes, and a prime n runs on
   one process, correct but not spread.  Local transforms run
   on ctx; the grid must outlive the plan.  A plan keeps its scratch, so
   one thread at a time executes it.  Create, execute and destroy are
   collective; a NULL plan to execute or destroy is that process's alone,
   as a NULL grid. */
typedef struct nla_mpi_fft_plan nla_mpi_fft_plan;
NLA_API nla_status nla_mpi_fft_plan_create(nla_context *ctx, const nla_mpi_grid *grid,
                                           int rank, const int64_t *n, nla_fft_direction dir,
                                           nla_precision prec, nla_mpi_fft_plan **plan);
/* This process's part: in_count complex values from index in_start of the
   flattened input, out_count from out_start of the output (any may be
   NULL). */
NLA_API nla_status nla_mpi_fft_local_size(const nla_mpi_fft_plan *plan, int64_t *in_count,
                                          int64_t *in_start, int64_t *out_count,
                                          int64_t *out_start);
/* out = FFT(in), out of place; in is not modified. */
NLA_API nla_status nla_mpi_fft_execute(const nla_mpi_fft_plan *plan, const void *in,
                                       void *out);
NLA_API void       nla_mpi_fft_plan_destroy(nla_mpi_fft_plan *plan);

/* ------------------------------------------------------------ Frank-Wolfe */

/* Frank-Wolfe for least squares, f = 1/2 |A x - b|^2, with the rows of A
   and b spread over the grid's processes: this process holds mloc of them
   (any mloc >= 0), a (mloc x n, column-major, lda >= max(1, mloc)) and b
   (mloc).  x (n doubles) is replicated: every process passes the same
   start (NLA_EINVAL otherwise) and gets the same result.  Every process
   runs nla_fw_solve with set and opt (the same on every process), so the
   LMO and the steps are replicated.  The objective is a user quadratic
   (nla_fw_objective_create_user_quad, H = A'A): an iteration sums the
   processes' A_loc'(A_loc d) for its direction d, which gives the line
   search's curvature and the next gradient; f and the gradient
   themselves, A_loc'(A_loc x - b_loc) and the local |r|^2/2, are summed at
   the start and every 100th iterate.  Each sum is one MPI_Allreduce of
   n + 2 doubles (with a count of the processes whose solver has
   returned), and one more ends the solve.  The products run on ctx; the
   loop on a CPU context (its own when ctx is not CPU-only).  Every step
   rule, the exact line search included; the steps are those of
   nla_fw_solve with the built-in lsq objective on the whole A, up to
   rounding.  Stop by tol or max_iter; a time limit is NLA_ENOTSUP (each
   process's clock would stop its solver at its own iteration).  A callback
   should decide from the state it is given, which is the same on every
   process: one that stops some processes only makes every process return
   NLA_EINVAL (the solvers' verdicts differ), as does a local failure on
   one (its status).  Returns and writes x and res as nla_fw_solve does.
   Collective. */
NLA_API nla_status nla_mpi_fw_solve_lsq(nla_context *ctx, const nla_mpi_grid *grid,
                                        int64_t mloc, int64_t n, const double *a, int64_t lda,
                                        const double *b, const nla_fw_set *set,
                                        const nla_fw_options *opt, double *x,
                                        nla_fw_result *res);

#ifdef __cplusplus
}
#endif
#endif /* NLA_MPI_H */
