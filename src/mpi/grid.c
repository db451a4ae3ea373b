/*
 * grid.c - libnla-mpi's process grids, block-cyclic descriptors, failure
 * messages and the collective agreement on a call's status.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

static _Thread_local char last_error[NLA_MPI_MSG_LEN];

NLA_API const char *nla_mpi_last_error(void)
{
    return last_error;
}

nla_status nla_mpi_fail(nla_status s, const char *fn, const char *fmt, ...)
{
    char body[NLA_MPI_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    snprintf(last_error, sizeof last_error, "%.40s: %.190s", fn, body);
    return s;
}

void nla_mpi_ok(void)
{
    last_error[0] = '\0';
}

nla_status nla_mpi_check_rc(int rc, const char *fn, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS)
        return NLA_OK;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error %d", rc);
    return nla_mpi_fail(NLA_EDEVICE, fn, "%s failed: %.120s", what, s);
}

/* nla_mpi_agree over any communicator (the grid's, or the caller's before
   a grid exists) */
static nla_status agree_on(MPI_Comm comm, int rank, int size, const char *fn, nla_status st,
                           const int64_t *args, const char *const *names, int nargs)
{
    int64_t root[32];
    int key, first, rc;
    struct { int status; char msg[NLA_MPI_MSG_LEN]; } verdict;

    /* rank 0's arguments, then the lowest rank with a complaint */
    if (nargs > 0) {
        memcpy(root, args, (size_t)nargs * sizeof *args);
        rc = MPI_Bcast(root, nargs, MPI_INT64_T, 0, comm);
        if (rc != MPI_SUCCESS)
            return nla_mpi_check_rc(rc, fn, "MPI_Bcast");
    }
    if (st == NLA_OK)
        for (int i = 0; i < nargs; i++)
            if (args[i] != root[i]) {
                st = nla_mpi_fail(NLA_EINVAL, fn, "%s (%lld) differs from rank 0's (%lld)",
                                  names[i], (long long)args[i], (long long)root[i]);
                break;
            }
    key = st == NLA_OK ? size : rank;
    rc = MPI_Allreduce(&key, &first, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS)
        return nla_mpi_check_rc(rc, fn, "MPI_Allreduce");
    if (first == size)
        return NLA_OK;
    verdict.status = (int)st;
    memcpy(verdict.msg, last_error, sizeof verdict.msg);
    rc = MPI_Bcast(&verdict, (int)sizeof verdict, MPI_BYTE, first, comm);
    if (rc != MPI_SUCCESS)
        return nla_mpi_check_rc(rc, fn, "MPI_Bcast");
    verdict.msg[NLA_MPI_MSG_LEN - 1] = '\0';
    snprintf(last_error, sizeof last_error, "%.220s (rank %d)", verdict.msg, first);
    return (nla_status)verdict.status;
}

nla_status nla_mpi_agree(const nla_mpi_grid *g, const char *fn, nla_status st,
                         const int64_t *args, const char *const *names, int nargs)
{
    return agree_on(g->comm, g->rank, g->size, fn, st, args, names, nargs);
}

/* ------------------------------------------------------------------ grid */

NLA_API nla_status nla_mpi_grid_create(MPI_Comm comm, int nprow, int npcol,
                                       nla_mpi_grid **grid)
{
    static const char fn[] = "nla_mpi_grid_create";
    nla_mpi_grid *g;
    int size, rank, rc;
    nla_status st = NLA_OK;

    if (grid)
        *grid = NULL;
    if (comm == MPI_COMM_NULL)
        return nla_mpi_fail(NLA_EINVAL, fn, "comm is MPI_COMM_NULL");
    if ((rc = MPI_Comm_size(comm, &size)) != MPI_SUCCESS ||
        (rc = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS)
        return nla_mpi_check_rc(rc, fn, "MPI_Comm_size");
    if (nprow == 0 && npcol == 0) {
        /* the squarest grid: the largest divisor of size at most its root */
        nprow = 1;
        for (int p = 1; (int64_t)p * p <= size; p++)
            if (size % p == 0)
                nprow = p;
        npcol = size / nprow;
    }
    /* a NULL grid is agreed on too: the communicator is known */
    if (!grid)
        st = nla_mpi_fail(NLA_EINVAL, fn, "grid is NULL");
    else if (nprow < 1)
        st = nla_mpi_fail(NLA_EINVAL, fn, "nprow (%d) < 1", nprow);
    else if (npcol < 1)
        st = nla_mpi_fail(NLA_EINVAL, fn, "npcol (%d) < 1", npcol);
    else if ((int64_t)nprow * npcol != size)
        st = nla_mpi_fail(NLA_EINVAL, fn, "nprow*npcol (%d*%d) != the communicator's size (%d)",
                          nprow, npcol, size);
    g = calloc(1, sizeof *g);
    if (g)
        g->cnt = calloc(1, sizeof *g->cnt);
    if (st == NLA_OK && (!g || !g->cnt))
        st = nla_mpi_fail(NLA_ENOMEM, fn, "out of memory for the grid");
    /* agree over the caller's communicator before duplicating it, on the
       shape too: each process checks only its own product */
    {
        int64_t args[2] = { nprow, npcol };
        static const char *const names[2] = { "nprow", "npcol" };
        st = agree_on(comm, rank, size, fn, st, args, names, 2);
    }
    if (st != NLA_OK) {
        if (g)
            free(g->cnt);
        free(g);
        return st;
    }
    g->comm = g->row_comm = g->col_comm = MPI_COMM_NULL;
    g->nprow = nprow;
    g->npcol = npcol;
    g->rank = rank;
    g->size = size;
    g->myrow = rank / npcol;
    g->mycol = rank % npcol;
    rc = MPI_Comm_dup(comm, &g->comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_errhandler(g->comm, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_split(g->comm, g->myrow, g->mycol, &g->row_comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_split(g->comm, g->mycol, g->myrow, &g->col_comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_errhandler(g->row_comm, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_errhandler(g->col_comm, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) {
        /* (not agreed: an MPI failure here is the MPI library's) */
        if (g->row_comm != MPI_COMM_NULL)
            MPI_Comm_free(&g->row_comm);
        if (g->col_comm != MPI_COMM_NULL)
            MPI_Comm_free(&g->col_comm);
        if (g->comm != MPI_COMM_NULL)
            MPI_Comm_free(&g->comm);
        free(g->cnt);
        free(g);
        return nla_mpi_check_rc(rc, fn, "MPI_Comm_dup/split");
    }
    *grid = g;
    nla_mpi_ok();
    return NLA_OK;
}

NLA_API void nla_mpi_grid_destroy(nla_mpi_grid *grid)
{
    if (!grid)
        return;
    MPI_Comm_free(&grid->row_comm);
    MPI_Comm_free(&grid->col_comm);
    MPI_Comm_free(&grid->comm);
    free(grid->cnt);
    free(grid);
}

NLA_API nla_status nla_mpi_grid_info(const nla_mpi_grid *grid, int *nprow, int *npcol,
                                     int *myrow, int *mycol)
{
    if (!grid)
        return nla_mpi_fail(NLA_EINVAL, "nla_mpi_grid_info", "grid is NULL");
    if (nprow)
        *nprow = grid->nprow;
    if (npcol)
        *npcol = grid->npcol;
    if (myrow)
        *myrow = grid->myrow;
    if (mycol)
        *mycol = grid->mycol;
    nla_mpi_ok();
    return NLA_OK;
}

NLA_API int64_t nla_mpi_grid_bytes_received(const nla_mpi_grid *grid)
{
    return grid ? grid->cnt->bytes : 0;
}

NLA_API double nla_mpi_grid_local_seconds(const nla_mpi_grid *grid)
{
    return grid ? grid->cnt->local_s : 0;
}

/* ----------------------------------------------------- block-cyclic layout */

int64_t nla_mpi_nloc(int64_t n, int64_t nb, int p, int src, int np)
{
    int64_t nblocks = n / nb, mine = (p - src + np) % np, r;
    r = nblocks / np * nb;
    if (mine < nblocks % np)
        r += nb;
    else if (mine == nblocks % np)
        r += n % nb;
    return r;
}

NLA_API int64_t nla_mpi_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs)
{
    if (n < 0 || nb < 1 || nprocs < 1 || iproc < 0 || iproc >= nprocs || isrc < 0 ||
        isrc >= nprocs)
        return -1;
    return nla_mpi_nloc(n, nb, iproc, isrc, nprocs);
}

nla_status nla_mpi_check_desc(const char *fn, const char *what, const nla_mpi_desc *d,
                              const nla_mpi_grid *g)
{
    int64_t mloc;
    if (!d)
        return nla_mpi_fail(NLA_EINVAL, fn, "%s is NULL", what);
    if (d->m < 0 || d->n < 0)
        return nla_mpi_fail(NLA_EINVAL, fn, "%s: m (%lld) or n (%lld) < 0", what,
                            (long long)d->m, (long long)d->n);
    if (d->mb < 1 || d->nb < 1)
        return nla_mpi_fail(NLA_EINVAL, fn, "%s: mb (%lld) or nb (%lld) < 1", what,
                            (long long)d->mb, (long long)d->nb);
    if (d->rsrc < 0 || d->rsrc >= g->nprow)
        return nla_mpi_fail(NLA_EINVAL, fn, "%s: rsrc (%d) outside the grid's %d rows", what,
                            d->rsrc, g->nprow);
    if (d->csrc < 0 || d->csrc >= g->npcol)
        return nla_mpi_fail(NLA_EINVAL, fn, "%s: csrc (%d) outside the grid's %d columns", what,
                            d->csrc, g->npcol);
    mloc = nla_mpi_nloc(d->m, d->mb, g->myrow, d->rsrc, g->nprow);
    if (d->lld < (mloc > 1 ? mloc : 1))
        return nla_mpi_fail(NLA_EINVAL, fn, "%s: lld (%lld) < max(1, local rows (%lld))", what,
                            (long long)d->lld, (long long)mloc);
    if ((uint64_t)d->lld * (uint64_t)nla_mpi_nloc(d->n, d->nb, g->mycol, d->csrc, g->npcol) >
        (uint64_t)INT64_MAX / 8)
        return nla_mpi_fail(NLA_EINVAL, fn, "%s: lld*local columns overflows", what);
    return NLA_OK;
}

NLA_API nla_status nla_mpi_desc_init(nla_mpi_desc *desc, const nla_mpi_grid *grid,
                                     int64_t m, int64_t n, int64_t mb, int64_t nb,
                                     int rsrc, int csrc, int64_t lld)
{
    static const char fn[] = "nla_mpi_desc_init";
    nla_mpi_desc d = { m, n, mb, nb, rsrc, csrc, lld };
    nla_status st;

    if (!desc)
        return nla_mpi_fail(NLA_EINVAL, fn, "desc is NULL");
    if (!grid)
        return nla_mpi_fail(NLA_EINVAL, fn, "grid is NULL");
    if (lld < 0)
        return nla_mpi_fail(NLA_EINVAL, fn, "lld (%lld) < 0", (long long)lld);
    if (lld == 0 && mb >= 1 && rsrc >= 0 && rsrc < grid->nprow && m >= 0) {
        int64_t mloc = nla_mpi_nloc(m, mb, grid->myrow, rsrc, grid->nprow);
        d.lld = mloc > 1 ? mloc : 1;
    }
    st = nla_mpi_check_desc(fn, "desc", &d, grid);
    if (st != NLA_OK)
        return st;
    *desc = d;
    nla_mpi_ok();
    return NLA_OK;
}

NLA_API nla_status nla_mpi_desc_local(const nla_mpi_desc *desc, const nla_mpi_grid *grid,
                                      int64_t *mloc, int64_t *nloc)
{
    static const char fn[] = "nla_mpi_desc_local";
    nla_status st;
    if (!grid)
        return nla_mpi_fail(NLA_EINVAL, fn, "grid is NULL");
    st = nla_mpi_check_desc(fn, "desc", desc, grid);
    if (st != NLA_OK)
        return st;
    if (mloc)
        *mloc = nla_mpi_nloc(desc->m, desc->mb, grid->myrow, desc->rsrc, grid->nprow);
    if (nloc)
        *nloc = nla_mpi_nloc(desc->n, desc->nb, grid->mycol, desc->csrc, grid->npcol);
    nla_mpi_ok();
    return NLA_OK;
}

NLA_API nla_status nla_mpi_desc_to_scalapack(const nla_mpi_desc *desc, int ictxt,
                                             int scalapack_desc[9])
{
    static const char fn[] = "nla_mpi_desc_to_scalapack";
    if (!desc)
        return nla_mpi_fail(NLA_EINVAL, fn, "desc is NULL");
    if (!scalapack_desc)
        return nla_mpi_fail(NLA_EINVAL, fn, "scalapack_desc is NULL");
    if (desc->m < 0 || desc->n < 0 || desc->mb < 1 || desc->nb < 1 || desc->lld < 1 ||
        desc->rsrc < 0 || desc->csrc < 0)
        return nla_mpi_fail(NLA_EINVAL, fn, "desc has a negative size or a block under 1");
    if (desc->m > INT_MAX || desc->n > INT_MAX || desc->mb > INT_MAX || desc->nb > INT_MAX ||
        desc->lld > INT_MAX)
        return nla_mpi_fail(NLA_EINVAL, fn, "desc has a field over INT_MAX (ScaLAPACK's int)");
    scalapack_desc[0] = 1;
    scalapack_desc[1] = ictxt;
    scalapack_desc[2] = (int)desc->m;
    scalapack_desc[3] = (int)desc->n;
    scalapack_desc[4] = (int)desc->mb;
    scalapack_desc[5] = (int)desc->nb;
    scalapack_desc[6] = desc->rsrc;
    scalapack_desc[7] = desc->csrc;
    scalapack_desc[8] = (int)desc->lld;
    nla_mpi_ok();
    return NLA_OK;
}

NLA_API nla_status nla_mpi_desc_from_scalapack(const int scalapack_desc[9],
                                               nla_mpi_desc *desc)
{
    static const char fn[] = "nla_mpi_desc_from_scalapack";
    const int *s = scalapack_desc;
    if (!s)
        return nla_mpi_fail(NLA_EINVAL, fn, "scalapack_desc is NULL");
    if (!desc)
        return nla_mpi_fail(NLA_EINVAL, fn, "desc is NULL");
    if (s[0] != 1)
        return nla_mpi_fail(NLA_EINVAL, fn, "DTYPE (%d) is not 1 (dense block-cyclic)", s[0]);
    if (s[2] < 0 || s[3] < 0 || s[4] < 1 || s[5] < 1 || s[6] < 0 || s[7] < 0 || s[8] < 1)
        return nla_mpi_fail(NLA_EINVAL, fn, "a negative size, a block under 1 or lld < 1");
    desc->m = s[2];
    desc->n = s[3];
    desc->mb = s[4];
    desc->nb = s[5];
    desc->rsrc = s[6];
    desc->csrc = s[7];
    desc->lld = s[8];
    nla_mpi_ok();
    return NLA_OK;
}
