/*
 * fft.c - distributed complex FFTs over the grid's processes in rank
 * order, in FFTW-MPI's slab layouts.
 *
 * 2-D and 3-D (n0 x n1 [x n2], row-major): the input is split over n0 in
 * blocks of b0 = ceil(n0/P).  Forward: each process transforms its planes
 * over the other dimensions (one batched libnla plan), one global
 * transpose swaps the first two dimensions (each "element" a whole row of
 * the remaining ones), and each process transforms along n0, now local.
 * The output is transposed, n1 x n0 [x n2] split over n1 in blocks of
 * ceil(n1/P) (FFTW_MPI_TRANSPOSED_OUT).  Backward takes that layout in and
 * gives the normal one: the same steps in reverse, one transpose.
 *
 * 1-D, n = N1*N2: the six-step algorithm.  The input, as an N1 x N2 array,
 * is split over its rows; transposed to N2 x N1, each row is a length-N1
 * transform; multiplied by w_n^(j2*k1) as it is packed to be transposed
 * back, each row is a length-N2 transform; a last transpose orders the
 * output (N2 x N1 split over rows, index k2*N1 + k1).  Forward plans take N1 >= N2 and backward
 * plans the reverse, so that a backward plan's input layout is the forward
 * plan's output layout.
 *
 * The transposes are nla_mpi_slab_transpose (transpose.c), with buffers the
 * plan keeps.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_internal.h"

struct nla_mpi_fft_plan {
    nla_mpi_grid view;          /* the grid's processes as 1 x P */
    int rank;
    int64_t n[3];
    nla_fft_direction dir;
    size_t cs;                  /* bytes of a complex value */
    int64_t N1, N2;             /* 1-D: the split */
    int64_t b0, b1;             /* block sizes: of n0 (1-D: N1), of n1 (N2) */
    int64_t in_count, in_start, out_count, out_start;
    int64_t rest;               /* n-D: the values per (i0, i1) */
    int64_t l0, l1;             /* local rows of the first and second layouts */
    nla_fft_plan *p_a, *p_b;    /* n-D: planes, and along n0; 1-D: N1, N2 */
    void *tw;                   /* 1-D: w_n^(j2*k1) for the local j2 rows */
    void *w1, *w2;              /* scratch */
    void *sbuf, *rbuf;          /* the transposes' */
    int *counts;
    MPI_Datatype etype;         /* a transposed element: a value (1-D) or a row */
    int has_etype;
};

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static void plan_free(nla_mpi_fft_plan *p)
{
    if (!p)
        return;
    nla_fft_plan_destroy(p->p_a);
    nla_fft_plan_destroy(p->p_b);
    free(p->tw);
    free(p->w1);
    free(p->w2);
    free(p->sbuf);
    free(p->rbuf);
    free(p->counts);
    if (p->has_etype)
        MPI_Type_free(&p->etype);
    free(p);
}

/* a batched contiguous 1-D transform of length len, howmany rows, or
   strided (stride and dist) */
static nla_status plan_1d(nla_context *ctx, int64_t len, int64_t howmany, int64_t stride,
                          int64_t dist, nla_fft_direction dir, nla_precision prec,
                          nla_fft_plan **p)
{
    nla_fft_desc d;
    memset(&d, 0, sizeof d);
    d.kind = NLA_FFT_C2C;
    d.precision = prec;
    d.direction = dir;
    d.n = len;
    d.howmany = howmany > 0 ? howmany : 1;
    d.istride = d.ostride = stride;
    d.idist = d.odist = dist;
    return nla_fft_plan_create(ctx, &d, p);
}

/* the twiddles w_n^(sign*j2*k1) for rows j2 in [j0, j0+rows), k1 < N1 */
static void twiddles(nla_mpi_fft_plan *p, int64_t j0, int64_t rows)
{
    const int64_t n = p->n[0], N1 = p->N1;
    const long double tau = 6.283185307179586476925286766559L;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t k = 0; k < N1; k++) {
            int64_t e = (int64_t)(((unsigned __int128)(j0 + r) * (unsigned __int128)k) %
                                  (unsigned __int128)n);
            long double a = tau * (long double)e / (long double)n;
            long double c = cosl(a), s = (long double)p->dir * sinl(a);
            if (p->cs == 16) {
                ((double *)p->tw)[2 * (r * N1 + k)] = (double)c;
                ((double *)p->tw)[2 * (r * N1 + k) + 1] = (double)s;
            } else {
                ((float *)p->tw)[2 * (r * N1 + k)] = (float)c;
                ((float *)p->tw)[2 * (r * N1 + k) + 1] = (float)s;
            }
        }
}

NLA_API nla_status nla_mpi_fft_plan_create(nla_context *ctx, const nla_mpi_grid *grid,
                                           int rank, const int64_t *n, nla_fft_direction dir,
                                           nla_precision prec, nla_mpi_fft_plan **plan)
{
    static const char fn[] = "nla_mpi_fft_plan_create";
    const nla_mpi_grid *g = grid;
    nla_mpi_fft_plan *p = NULL;
    nla_status st = NLA_OK;
    int P;

    if (plan)
        *plan = NULL;
    if (!g)
        return nla_mpi_fail(NLA_EINVAL, fn, "grid is NULL");
    P = g->size;
    if (!plan) /* agreed on below, as every argument */
        st = nla_mpi_fail(NLA_EINVAL, fn, "plan is NULL");
    else if (!ctx)
        st = nla_mpi_fail(NLA_EINVAL, fn, "ctx is NULL");
    else if (rank < 1 || rank > 3)
        st = nla_mpi_fail(NLA_EINVAL, fn, "rank (%d) is not 1, 2 or 3", rank);
    else if (!n)
        st = nla_mpi_fail(NLA_EINVAL, fn, "n is NULL");
    else if (dir != NLA_FFT_FORWARD && dir != NLA_FFT_BACKWARD)
        st = nla_mpi_fail(NLA_EINVAL, fn, "dir (%d) is not NLA_FFT_FORWARD or _BACKWARD",
                          (int)dir);
    else if (prec != NLA_DOUBLE && prec != NLA_FLOAT)
        st = nla_mpi_fail(NLA_EINVAL, fn, "prec (%d) is not NLA_DOUBLE or NLA_FLOAT", (int)prec);
    else
        for (int d = 0; d < rank; d++)
            if (n[d] < 1) {
                st = nla_mpi_fail(NLA_EINVAL, fn, "n[%d] (%lld) < 1", d, (long long)n[d]);
                break;
            }
    if (st == NLA_OK && !(p = calloc(1, sizeof *p)))
        st = nla_mpi_fail(NLA_ENOMEM, fn, "out of memory for the plan");
    if (st == NLA_OK) {
        p->view = *g;
        p->view.nprow = 1;
        p->view.npcol = P;
        p->view.myrow = 0;
        p->view.mycol = g->rank;
        p->rank = rank;
        p->dir = dir;
        p->cs = prec == NLA_DOUBLE ? 16 : 8;
        for (int d = 0; d < 3; d++)
            p->n[d] = d < rank ? n[d] : 1;
        if (rank == 1) {
            /* n = N1*N2, N2 the largest divisor at most sqrt(n) */
            int64_t a = 1;
            for (int64_t f = 1; f * f <= p->n[0]; f++)
                if (p->n[0] % f == 0)
                    a = f;
            p->N2 = dir == NLA_FFT_FORWARD ? a : p->n[0] / a;
            p->N1 = p->n[0] / p->N2;
            p->b0 = ceil_div(p->N1, P);
            p->b1 = ceil_div(p->N2, P);
            p->l0 = nla_mpi_nloc(p->N1, p->b0, g->rank, 0, P);
            p->l1 = nla_mpi_nloc(p->N2, p->b1, g->rank, 0, P);
            p->in_count = p->l0 * p->N2;
            p->in_start = g->rank * p->b0 * p->N2;
            p->out_count = p->l1 * p->N1;
            p->out_start = g->rank * p->b1 * p->N1;
        } else {
            p->rest = rank == 3 ? p->n[2] : 1;
            p->b0 = ceil_div(p->n[0], P);
            p->b1 = ceil_div(p->n[1], P);
            p->l0 = nla_mpi_nloc(p->n[0], p->b0, g->rank, 0, P);
            p->l1 = nla_mpi_nloc(p->n[1], p->b1, g->rank, 0, P);
            p->in_count = p->l0 * p->n[1] * p->rest;
            p->out_count = p->l1 * p->n[0] * p->rest;
            if (dir == NLA_FFT_BACKWARD) {
                int64_t c = p->in_count;
                p->in_count = p->out_count;
                p->out_count = c;
            }
            p->in_start = g->rank * (dir == NLA_FFT_FORWARD ? p->b0 * p->n[1]
                                                            : p->b1 * p->n[0]) * p->rest;
            p->out_start = g->rank * (dir == NLA_FFT_FORWARD ? p->b1 * p->n[0]
                                                             : p->b0 * p->n[1]) * p->rest;
        }
        if (p->in_start > p->n[0] * p->n[1] * p->n[2])
            p->in_start = p->n[0] * p->n[1] * p->n[2];
        if (p->out_start > p->n[0] * p->n[1] * p->n[2])
            p->out_start = p->n[0] * p->n[1] * p->n[2];
    }
    if (st == NLA_OK) {
        /* the local plans and scratch */
        int64_t big = p->in_count > p->out_count ? p->in_count : p->out_count;
        if (rank == 1) {
            st = plan_1d(ctx, p->N1, p->l1, 1, p->N1, dir, prec, &p->p_a);
            if (st == NLA_OK)
                st = plan_1d(ctx, p->N2, p->l0, 1, p->N2, dir, prec, &p->p_b);
            if (st == NLA_OK && !(p->tw = malloc((size_t)(p->l1 * p->N1 + 1) * p->cs)))
                st = NLA_ENOMEM;
            if (st == NLA_OK)
                twiddles(p, g->rank * p->b1, p->l1);
        } else {
            /* the planes over dims 1.. (rank - 1 dims, l0 of them), and
               one plane's transforms along n0 (stride rest) */
            nla_fft_desc_nd d;
            memset(&d, 0, sizeof d);
            d.kind = NLA_FFT_C2C;
            d.precision = prec;
            d.direction = dir;
            d.rank = rank - 1;
            d.n[0] = p->n[1];
            d.n[1] = p->n[2];
            d.howmany = p->l0 > 0 ? p->l0 : 1;
            st = nla_fft_plan_create_nd(ctx, &d, &p->p_a);
            if (st == NLA_OK)
                st = plan_1d(ctx, p->n[0], p->rest, p->rest, 1, dir, prec, &p->p_b);
        }
        if (st != NLA_OK) {
            st = nla_mpi_fail(st, fn, "the local plans: %.180s",
                              st == NLA_ENOMEM ? "out of memory" : nla_last_error());
        } else if (!nla_mpi_slab_counts_fit(rank == 1 ? p->N1 : p->n[0],
                                            rank == 1 ? p->N2 : p->n[1], P) ||
                   p->rest > INT_MAX / (int64_t)p->cs) {
            st = nla_mpi_fail(NLA_ENOTSUP, fn, "a process's share or a row is over INT_MAX "
                              "values (MPI's counts are int)");
        } else {
            size_t es = rank == 1 ? p->cs : (size_t)p->rest * p->cs;
            p->w1 = malloc((size_t)(big + 1) * p->cs);
            p->w2 = malloc((size_t)(big + 1) * p->cs);
            p->sbuf = malloc((size_t)(big + 1) * p->cs);
            p->rbuf = malloc((size_t)(big + 1) * p->cs);
            p->counts = malloc((size_t)(4 * P) * sizeof *p->counts);
            if (!p->w1 || !p->w2 || !p->sbuf || !p->rbuf || !p->counts)
                st = nla_mpi_fail(NLA_ENOMEM, fn, "out of memory for the scratch");
            else if (MPI_Type_contiguous((int)es, MPI_BYTE, &p->etype) != MPI_SUCCESS)
                st = nla_mpi_fail(NLA_EDEVICE, fn, "MPI_Type_contiguous failed");
            else if ((p->has_etype = 1, MPI_Type_commit(&p->etype) != MPI_SUCCESS))
                st = nla_mpi_fail(NLA_EDEVICE, fn, "MPI_Type_commit failed");
        }
    }
    {
        int64_t args[6] = { rank, dir, prec, 0, 0, 0 };
        static const char *const names[6] = { "rank", "dir", "prec", "n[0]", "n[1]", "n[2]" };
        for (int d = 0; n && d < rank && d < 3; d++)
            args[3 + d] = n[d];
        st = nla_mpi_agree(g, fn, st, args, names, 6);
    }
    if (st != NLA_OK) {
        plan_free(p);
        return st;
    }
    *plan = p;
    nla_mpi_ok();
    return NLA_OK;
}

NLA_API void nla_mpi_fft_plan_destroy(nla_mpi_fft_plan *plan)
{
    plan_free(plan);
}

NLA_API nla_status nla_mpi_fft_local_size(const nla_mpi_fft_plan *plan, int64_t *in_count,
                                          int64_t *in_start, int64_t *out_count,
                                          int64_t *out_start)
{
    if (!plan)
        return nla_mpi_fail(NLA_EINVAL, "nla_mpi_fft_local_size", "plan is NULL");
    if (in_count)
        *in_count = plan->in_count;
    if (in_start)
        *in_start = plan->in_start;
    if (out_count)
        *out_count = plan->out_count;
    if (out_start)
        *out_start = plan->out_start;
    nla_mpi_ok();
    return NLA_OK;
}

/* a local transform, timed */
static nla_status local_fft(const nla_mpi_fft_plan *p, const nla_fft_plan *lp, const void *in,
                            void *out)
{
    double t0 = MPI_Wtime();
    nla_status st = nla_fft_execute(lp, in, out);
    nla_mpi_local_done(&p->view, t0);
    return st;
}

/* The steps run whatever a local transform returns, so that every
   process takes part in every transpose; the first local failure is
   kept in *lst and agreed on by the caller. */
static void step(nla_status *lst, nla_status st)
{
    if (*lst == NLA_OK)
        *lst = st;
}

static nla_status exec_1d(const nla_mpi_fft_plan *p, const char *fn, const void *in, void *out,
                          nla_status *lst)
{
    const nla_mpi_grid *v = &p->view;
    nla_status st;
    /* x (N1 x N2) -> N2 x N1: rows of length N1, transformed, twiddled */
    st = nla_mpi_slab_transpose(v, fn, p->cs, p->N1, p->N2, in, NULL, p->w1, p->sbuf,
                                p->rbuf, p->counts, p->etype);
    if (st == NLA_OK && p->l1 > 0)
        step(lst, local_fft(p, p->p_a, p->w1, p->w1));
    /* back to N1 x N2, twiddled as it is packed: rows of length N2 */
    if (st == NLA_OK)
        st = nla_mpi_slab_transpose(v, fn, p->cs, p->N2, p->N1, p->w1, p->tw, p->w2, p->sbuf,
                                    p->rbuf, p->counts, p->etype);
    if (st == NLA_OK && p->l0 > 0)
        step(lst, local_fft(p, p->p_b, p->w2, p->w2));
    /* ordered: out[k2*N1 + k1] */
    if (st == NLA_OK)
        st = nla_mpi_slab_transpose(v, fn, p->cs, p->N1, p->N2, p->w2, NULL, out, p->sbuf,
                                    p->rbuf, p->counts, p->etype);
    return st;
}

static nla_status exec_nd(const nla_mpi_fft_plan *p, const char *fn, const void *in, void *out,
                          nla_status *lst)
{
    const nla_mpi_grid *v = &p->view;
    size_t row = (size_t)p->rest * p->cs, plane = (size_t)p->n[0] * row;
    nla_status st = NLA_OK;

    if (p->dir == NLA_FFT_FORWARD) {
        if (p->l0 > 0)
            step(lst, local_fft(p, p->p_a, in, p->w1));
        st = nla_mpi_slab_transpose(v, fn, row, p->n[0], p->n[1], p->w1, NULL, out, p->sbuf,
                                    p->rbuf, p->counts, p->etype);
        for (int64_t k = 0; st == NLA_OK && k < p->l1; k++)
            step(lst, local_fft(p, p->p_b, (char *)out + k * plane, (char *)out + k * plane));
    } else {
        if (p->l1 > 0)
            memcpy(p->w1, in, (size_t)p->l1 * plane);
        for (int64_t k = 0; k < p->l1; k++)
            step(lst, local_fft(p, p->p_b, (char *)p->w1 + k * plane,
                                (char *)p->w1 + k * plane));
        st = nla_mpi_slab_transpose(v, fn, row, p->n[1], p->n[0], p->w1, NULL, out, p->sbuf,
                                    p->rbuf, p->counts, p->etype);
        if (st == NLA_OK && p->l0 > 0)
            step(lst, local_fft(p, p->p_a, out, out));
    }
    return st;
}

NLA_API nla_status nla_mpi_fft_execute(const nla_mpi_fft_plan *plan, const void *in, void *out)
{
    static const char fn[] = "nla_mpi_fft_execute";
    nla_status st = NLA_OK;
    if (!plan)
        return nla_mpi_fail(NLA_EINVAL, fn, "plan is NULL");
    if (plan->in_count > 0 && !in)
        st = nla_mpi_fail(NLA_EINVAL, fn, "in is NULL");
    else if (plan->out_count > 0 && !out)
        st = nla_mpi_fail(NLA_EINVAL, fn, "out is NULL");
    else if (in && out && in == out)
        st = nla_mpi_fail(NLA_EINVAL, fn, "in == out: the transform is out of place");
    st = nla_mpi_agree(&plan->view, fn, st, NULL, NULL, 0);
    if (st != NLA_OK)
        return st;
    {
        nla_status lst = NLA_OK;
        st = plan->rank == 1 ? exec_1d(plan, fn, in, out, &lst)
                             : exec_nd(plan, fn, in, out, &lst);
        if (st == NLA_OK && lst != NLA_OK)
            st = nla_mpi_fail(lst, fn, "a local transform failed: %.180s", nla_last_error());
    }
    st = nla_mpi_agree(&plan->view, fn, st, NULL, NULL, 0);
    if (st == NLA_OK)
        nla_mpi_ok();
    return st;
}
