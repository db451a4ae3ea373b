/*
 * mpi_internal.h - libnla-mpi's shared internals: the grid, the failure
 * message, the collective agreement on a call's status, and the
 * redistribution between block-cyclic layouts.
 */
#ifndef NLA_MPI_INTERNAL_H
#define NLA_MPI_INTERNAL_H

#include <stdint.h>
#include "nla_mpi.h"

#define NLA_MPI_MSG_LEN 256

/* what a grid's calls have cost this process (a const grid may bump it) */
typedef struct {
    int64_t bytes;       /* received from other processes */
    double local_s;      /* in local kernels (libnla calls) */
} nla_mpi_counters;

struct nla_mpi_grid {
    MPI_Comm comm;       /* the caller's communicator, duplicated */
    MPI_Comm row_comm;   /* this process's row of the grid, ranked by column */
    MPI_Comm col_comm;   /* this process's column, ranked by row */
    int nprow, npcol, myrow, mycol, rank, size;
    nla_mpi_counters *cnt;
};

/* Add the time since t0 (MPI_Wtime) to the grid's local-kernel seconds. */
static inline void nla_mpi_local_done(const nla_mpi_grid *g, double t0)
{
    g->cnt->local_s += MPI_Wtime() - t0;
}

/* Record "fn: message" as this thread's error and return s. */
nla_status nla_mpi_fail(nla_status s, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void nla_mpi_ok(void);

/* An MPI call's return code: MPI_SUCCESS, or NLA_EDEVICE with the MPI
   error string in the message. */
nla_status nla_mpi_check_rc(int rc, const char *fn, const char *what);

/* The collective verdict of a call.  st is this process's own (its message
   already recorded by nla_mpi_fail); args[0..nargs) must be the same on
   every process (names[] say what they are; nargs the same everywhere,
   args' values unused where st fails).  Every process returns the
   status of the lowest rank that failed or disagrees with rank 0, and gets
   that rank's message with the rank appended. */
nla_status nla_mpi_agree(const nla_mpi_grid *g, const char *fn, nla_status st,
                         const int64_t *args, const char *const *names, int nargs);

/* Local rows or columns of an index range distributed in blocks of nb over
   np processes from src, on process p. */
int64_t nla_mpi_nloc(int64_t n, int64_t nb, int p, int src, int np);

/* The checks every routine makes of a descriptor (this process's part):
   NLA_OK or NLA_EINVAL with a message naming `what`. */
nla_status nla_mpi_check_desc(const char *fn, const char *what, const nla_mpi_desc *d,
                              const nla_mpi_grid *g);

/* d = op(s) between layouts over the same grid: s (layout sd) is m x n,
   d (layout dd) is n x m if trans, else m x n; es is the element size in
   bytes (any: a complex value, or a row of a 3-D array, moves whole).  Collective; the layouts are assumed checked and agreed.  Its own
   allocation failure is agreed on before anything moves. */
nla_status nla_mpi_redist(const nla_mpi_grid *g, const char *fn, size_t es, int trans,
                          const void *s, const nla_mpi_desc *sd, void *d,
                          const nla_mpi_desc *dd);

/* The FFT's global transpose (transpose.c): the row-major R x C array of
   es-byte elements src, split over the processes' rows in blocks of
   ceil(R/P), into dst, C x R split likewise.  sbuf and rbuf hold this
   process's share of each (lR*C and lC*R elements), counts 4*P ints, t an
   MPI type of es contiguous bytes.  Collective; the element counts must
   fit an int (nla_mpi_slab_counts_fit). */
int nla_mpi_slab_counts_fit(int64_t R, int64_t C, int P);
/* tw, when not NULL: complex values (es 16 or 8) laid out as src, that
   multiply src's as they are packed. */
nla_status nla_mpi_slab_transpose(const nla_mpi_grid *g, const char *fn, size_t es, int64_t R,
                                  int64_t C, const void *src, const void *tw, void *dst,
                                  void *sbuf, void *rbuf, int *counts, MPI_Datatype t);

#endif
