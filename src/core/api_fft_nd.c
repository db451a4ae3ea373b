/*
 * api_fft_nd.c - multi-dimensional FFT plans (nla_fft_plan_create_nd,
 * nla_fft_plan_2d, nla_fft_plan_3d): the descriptor is checked here, and
 * the transform is made of batched 1-D plans on the context's backend, one
 * for the rows (the last, contiguous dimension) and one for each other
 * dimension, whose transforms are the columns of stride s = the product of
 * the dimensions after it (howmany = s transforms, idist = 1), run in place
 * on the complex array.  R2C does the rows first (real -> complex), C2R
 * last (complex -> real), after the other dimensions on its input.  Rank
 * 3 runs plane by plane (one()); where the backend runs loops on threads
 * (its parallel entry) the planes are shared among the context's threads,
 * each plane on one-thread plans, as a plane's rows and columns are too
 * short to share.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "backend.h"
#include "check.h"
#include "fft_nd.h"
#include "internal.h"

struct nla_fft_nd {
    nla_fft_desc_nd d;            /* resolved: howmany >= 1, scale != 0 */
    int64_t rows, nl, h;          /* rows per array, their length, nl/2+1 */
    int64_t ccount;               /* complex values of one array's complex side */
    int64_t rdist, cdist;         /* the real (or input) and complex side's dist as given */
    size_t real;                  /* bytes of a real */
    nla_fft_plan *row[2];         /* a plane's rows: [0] packed, [1] padded (real, in place) */
    nla_fft_plan *col[2];         /* dimension k < rank-1 */
    int64_t calls[2], step[2];    /* col[k] runs calls[k] times, step[k] complex apart */
    /* rank 3 on a backend with a parallel entry: the planes on ex.nthreads
       threads (row[] and col[1] then run on one) */
    const struct nla_backend_ops *ops;
    nla_exec ex;
};

void nla_fft_nd_free(struct nla_fft_nd *nd)
{
    if (!nd)
        return;
    for (int k = 0; k < 2; k++) {
        nla_fft_plan_destroy(nd->row[k]);
        nla_fft_plan_destroy(nd->col[k]);
    }
    free(nd);
}

/* The dists of one execution: in place (padded real rows) or not; -1 when
   an in-place layout does not fit the descriptor's dists. */
static int dists(const struct nla_fft_nd *nd, int inplace, int64_t *di, int64_t *dout)
{
    const nla_fft_desc_nd *d = &nd->d;
    int64_t c = nd->cdist ? nd->cdist : nd->ccount, r, rpad = 2 * c;
    /* one array in place: any dists (they are not used) */
    const int check = inplace && d->howmany > 1;

    if (d->kind == NLA_FFT_C2C) {
        *di = nd->rdist ? nd->rdist : nd->ccount;
        *dout = c;
        return check && *di != *dout ? -1 : 0;
    }
    r = nd->rdist ? nd->rdist : inplace ? rpad : nd->rows * nd->nl;
    if (check && r != rpad)
        return -1;
    *di = d->kind == NLA_FFT_R2C ? r : c;
    *dout = d->kind == NLA_FFT_R2C ? c : r;
    return 0;
}

int nla_fft_nd_inplace_ok(const struct nla_fft_nd *nd)
{
    int64_t a, b;
    return dists(nd, 1, &a, &b) == 0;
}

/* col[k]'s transforms from call o0 to o1, in place on the complex array z */
static nla_status cols(const struct nla_fft_nd *nd, int k, int64_t o0, int64_t o1, char *z)
{
    for (int64_t o = o0; o < o1; o++) {
        char *p = z + (size_t)(o * nd->step[k]) * 2 * nd->real;
        nla_status s = nla_fft_execute(nd->col[k], p, p);
        if (s != NLA_OK)
            return s;
    }
    return NLA_OK;
}

/* Plane o of one array (n[0] planes of n[1] rows): its rows and its
   columns of dimension 1 while it is in cache (C2R: the columns, then the
   rows) */
struct planes {
    const struct nla_fft_nd *nd;
    int padded;
    char *x, *y;
    size_t in_row, out_row;
    int64_t prow;                 /* rows a plane */
};

static nla_status plane(void *arg, int64_t o)
{
    const struct planes *a = arg;
    const struct nla_fft_nd *nd = a->nd;
    char *xo = a->x + (size_t)(o * a->prow) * a->in_row;
    char *yo = a->y + (size_t)(o * a->prow) * a->out_row;
    nla_status s;

    if (nd->d.kind == NLA_FFT_C2R) {
        s = cols(nd, 1, o, o + 1, a->x);
        return s == NLA_OK ? nla_fft_execute(nd->row[a->padded], xo, yo) : s;
    }
    s = nla_fft_execute(nd->row[a->padded], xo, yo);
    return s == NLA_OK ? cols(nd, 1, o, o + 1, a->y) : s;
}

/* One array.  Rank 3 goes plane by plane (plane(), on the backend's
   threads where nd->ops is set), then dimension 0 across the planes; C2R
   in the reverse order. */
static nla_status one(const struct nla_fft_nd *nd, int padded, char *x, char *y)
{
    const nla_fft_kind kind = nd->d.kind;
    /* bytes of a row on each side (a real row in place: padded) */
    const size_t real_row = (size_t)(padded ? 2 * nd->h : nd->nl) * nd->real;
    const size_t crow = (size_t)nd->h * 2 * nd->real;
    struct planes a = { nd, padded, x, y, kind == NLA_FFT_R2C ? real_row : crow,
                        kind == NLA_FFT_C2R ? real_row : crow, nd->rows / nd->d.n[0] };
    nla_status s = NLA_OK;

    if (kind == NLA_FFT_C2R && nd->d.rank > 1)
        s = cols(nd, 0, 0, nd->calls[0], x);   /* C2R overwrites its input (nla.h) */
    if (s != NLA_OK)
        return s;
    if (nd->d.rank < 3)
        s = nla_fft_execute(nd->row[padded], x, y);
    else if (nd->ops) {
        s = nd->ops->parallel(&nd->ex, nd->d.n[0], plane, &a);
        /* the failed plane may have said why on another thread */
        if (s != NLA_OK)
            nla_fail(NULL, s, "nla_fft_execute", "a plane: %s", nla_strerror(s));
    } else
        for (int64_t o = 0; o < nd->d.n[0] && s == NLA_OK; o++)
            s = plane(&a, o);
    if (s == NLA_OK && kind != NLA_FFT_C2R && nd->d.rank > 1)
        s = cols(nd, 0, 0, nd->calls[0], y);
    return s;
}

nla_status nla_fft_nd_execute(const struct nla_fft_nd *nd, const void *in, void *out)
{
    const nla_fft_desc_nd *d = &nd->d;
    int inplace = in == out, padded = inplace && d->kind != NLA_FFT_C2C;
    int64_t di, dout;
    size_t ei = d->kind == NLA_FFT_R2C ? nd->real : 2 * nd->real;
    size_t eo = d->kind == NLA_FFT_C2R ? nd->real : 2 * nd->real;
    nla_status s = NLA_OK;

    if (dists(nd, inplace, &di, &dout) != 0)
        return NLA_EINVAL;   /* execute() checked this first */
    for (int64_t b = 0; b < d->howmany && s == NLA_OK; b++)
        s = one(nd, padded, (char *)in + (size_t)(b * di) * ei,
                (char *)out + (size_t)(b * dout) * eo);
    return s;
}

/* One 1-D plan of the transform: n points, howmany of them, the given
   strides and dists; the scale only on the step that runs last; on one
   thread where plane() runs it on the backend's threads (one1). */
static nla_status sub_plan(nla_context *ctx, const char *fn, const struct nla_fft_nd *nd,
                           nla_fft_kind kind, int64_t n, int64_t howmany, int64_t stride,
                           int64_t idist, int64_t odist, int last, int one1, nla_fft_plan **p)
{
    nla_fft_desc s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.precision = nd->d.precision;
    s.direction = kind == NLA_FFT_R2C   ? NLA_FFT_FORWARD
                  : kind == NLA_FFT_C2R ? NLA_FFT_BACKWARD
                                        : nd->d.direction;
    s.n = n;
    s.howmany = howmany;
    s.istride = s.ostride = stride;
    s.idist = idist;
    s.odist = odist;
    s.scale = last ? nd->d.scale : 1.0;
    return nla_fft_plan_create_as(ctx, fn, &s, one1 && nd->ops ? 1 : 0, p);
}

/* Checks *d into nd->d and the sizes: every product fits, the dists hold
   an array. */
static int chk_nd(nla_check *ck, const nla_fft_desc_nd *d, struct nla_fft_nd *nd)
{
    int64_t rows = 1, bytes, span;

    if (nla_fft_chk_kind(ck, "desc->kind", d->kind) ||
        nla_fft_chk_prec(ck, "desc->precision", d->precision) ||
        nla_fft_chk_dir(ck, "desc->direction", d->direction))
        return 1;
    if (nla_fft_is_dct(d->kind))
        return nla_chk_fail(ck, "desc->kind (%s): the DCT kinds are one-dimensional "
                            "only (use nla_fft_plan_create)",
                            d->kind == NLA_FFT_REDFT10 ? "NLA_FFT_REDFT10" : "NLA_FFT_REDFT01");
    if (d->rank < 1 || d->rank > 3)
        return nla_chk_fail(ck, "desc->rank (%d) is not 1, 2 or 3", d->rank);
    for (int k = 0; k < d->rank; k++)
        if (d->n[k] < 1)
            return nla_chk_fail(ck, "desc->n[%d] (%lld) < 1", k, (long long)d->n[k]);
    if (nla_chk_nonneg(ck, "desc->howmany", d->howmany) ||
        nla_chk_nonneg(ck, "desc->idist", d->idist) ||
        nla_chk_nonneg(ck, "desc->odist", d->odist))
        return 1;
    if (!isfinite(d->scale))
        return nla_chk_fail(ck, "desc->scale (%g) is not finite", d->scale);
    nd->d = *d;
    nd->d.howmany = d->howmany ? d->howmany : 1;
    nd->d.scale = d->scale != 0 ? d->scale : 1.0;
    if (d->kind == NLA_FFT_R2C)
        nd->d.direction = NLA_FFT_FORWARD;
    else if (d->kind == NLA_FFT_C2R)
        nd->d.direction = NLA_FFT_BACKWARD;
    nd->real = d->precision == NLA_DOUBLE ? sizeof(double) : sizeof(float);
    nd->nl = d->n[d->rank - 1];
    nd->h = d->kind == NLA_FFT_C2C ? nd->nl : nd->nl / 2 + 1;
    for (int k = 0; k + 1 < d->rank; k++)
        if (nla_mul_overflows(rows, d->n[k], &rows))
            return nla_chk_fail(ck, "desc->n: the product of the dimensions overflows");
    nd->rows = rows;
    /* the largest array: the complex side, or the padded real rows */
    if (nla_mul_overflows(rows, nd->h, &nd->ccount) ||
        nla_mul_overflows(nd->ccount, 4 * (int64_t)nd->real, &bytes) ||
        (uint64_t)bytes > (uint64_t)PTRDIFF_MAX)
        return nla_chk_fail(ck, "desc->n: one array's bytes overflow ptrdiff_t");
    nd->rdist = d->kind == NLA_FFT_C2R ? d->odist : d->idist;
    nd->cdist = d->kind == NLA_FFT_C2R ? d->idist : d->odist;
    if (d->kind == NLA_FFT_C2C && d->idist && d->idist < nd->ccount)
        return nla_chk_fail(ck, "desc->idist (%lld) < one array's %lld complex values",
                            (long long)d->idist, (long long)nd->ccount);
    if (nd->cdist && nd->cdist < nd->ccount)
        return nla_chk_fail(ck, "desc->%s (%lld) < one array's %lld complex values",
                            d->kind == NLA_FFT_C2R ? "idist" : "odist",
                            (long long)nd->cdist, (long long)nd->ccount);
    if (d->kind != NLA_FFT_C2C && nd->rdist && nd->rdist < rows * nd->nl)
        return nla_chk_fail(ck, "desc->%s (%lld) < one array's %lld reals",
                            d->kind == NLA_FFT_C2R ? "odist" : "idist",
                            (long long)nd->rdist, (long long)(rows * nd->nl));
    /* each side's extent, (howmany-1)*dist + one array, in reals (a real
       array as the padded rows of the in-place layout, the larger) */
    for (int side = 0; side < 2; side++) {
        int complex_side = d->kind == NLA_FFT_C2C || (d->kind == NLA_FFT_R2C) == (side == 1);
        int64_t dist = side ? d->odist : d->idist;
        int64_t one = 2 * nd->ccount;                       /* reals */
        int64_t step = complex_side ? 2 * (dist ? dist : nd->ccount) : (dist ? dist : one);
        if (nla_mul_overflows(nd->d.howmany - 1, step, &span) ||
            nla_add_overflows(span, one, &span) ||
            nla_mul_overflows(span, (int64_t)nd->real, &bytes) ||
            (uint64_t)bytes > (uint64_t)PTRDIFF_MAX)
            return nla_chk_fail(ck, "desc: the %s extent (howmany-1)*%s+one array "
                                "overflows ptrdiff_t", side ? "output" : "input",
                                side ? "odist" : "idist");
    }
    return 0;
}

/* The whole plan for routine fn: checks, the 1-D plans, the handle. */
static nla_status create_nd(nla_context *ctx, const char *fn, const nla_fft_desc_nd *desc,
                            nla_fft_plan **plan)
{
    nla_check ck = NLA_CHECK_INIT(ctx, fn);
    struct nla_fft_nd *nd;
    const nla_fft_desc_nd *d;
    nla_fft_desc sum;
    nla_status s = NLA_OK;
    int64_t stride;
    int c2r, nt;

    if (plan)
        *plan = NULL; /* a handle output is NULL after any failure (nla(3)) */
    if (nla_chk_ctx(&ck, ctx) || nla_chk_ptr(&ck, "desc", desc, 1) ||
        nla_chk_ptr(&ck, "plan", plan, 1))
        return ck.status;
    nd = calloc(1, sizeof *nd);
    if (!nd)
        return nla_fail(ctx, NLA_ENOMEM, fn, "cannot allocate the plan");
    if (chk_nd(&ck, desc, nd)) {
        free(nd);
        return ck.status;
    }
    d = &nd->d;
    if (d->rank == 1 && d->howmany == 1) {
        /* one 1-D transform: the plain plan, with no layer between */
        memset(&sum, 0, sizeof sum);
        sum.kind = d->kind;
        sum.precision = d->precision;
        sum.direction = d->direction;
        sum.n = d->n[0];
        sum.scale = d->scale;
        free(nd);
        return nla_fft_plan_create_as(ctx, fn, &sum, 0, plan);
    }
    c2r = d->kind == NLA_FFT_C2R;
    /* rank 3 on a backend with loops on threads (one backend: an AUTO
       context with CUDA routes each call by where its data lie), with at
       least 4 planes a thread: one plane more on some costs at most a
       quarter.  nd->ex carries the state and the count only. */
    nt = nla_context_threads(ctx);
    if (d->rank == 3 && !ctx->cpu_ops && ctx->ops->parallel && nt > 1 &&
        d->n[0] >= 4 * (int64_t)nt) {
        nd->ops = ctx->ops;
        nd->ex.state = ctx->state;
        nd->ex.nthreads = nt;
    }
    /* the rows: packed out of place, padded in place (C2C: one plan) */
    for (int ip = 0; ip < (d->kind == NLA_FFT_C2C ? 1 : 2) && s == NLA_OK; ip++) {
        int64_t real_dist = ip ? 2 * nd->h : nd->nl;
        int64_t di = d->kind == NLA_FFT_C2C ? nd->nl : d->kind == NLA_FFT_R2C ? real_dist : nd->h;
        int64_t dout = d->kind == NLA_FFT_C2C ? nd->nl : c2r ? real_dist : nd->h;
        s = sub_plan(ctx, fn, nd, d->kind, nd->nl, d->rank == 3 ? d->n[1] : nd->rows, 1, di,
                     dout, c2r || d->rank == 1, 1, &nd->row[ip]);
    }
    /* dimension k's columns: stride = the product of the later dimensions */
    stride = nd->h;
    for (int k = d->rank - 2; k >= 0 && s == NLA_OK; k--) {
        nd->calls[k] = nd->rows / d->n[k] / (stride / nd->h);
        nd->step[k] = d->n[k] * stride;
        s = sub_plan(ctx, fn, nd, NLA_FFT_C2C, d->n[k], stride, stride, 1, 1, !c2r && k == 0,
                     k == 1, &nd->col[k]);
        stride *= d->n[k];
    }
    memset(&sum, 0, sizeof sum);
    sum.kind = d->kind;
    sum.precision = d->precision;
    sum.direction = d->direction;
    sum.n = nd->nl;
    sum.howmany = d->howmany;
    sum.scale = d->scale;
    if (s == NLA_OK)
        s = nla_fft_plan_wrap_nd(ctx, fn, &sum, nd, plan);
    if (s != NLA_OK)
        nla_fft_nd_free(nd);
    return s;
}

NLA_API nla_status nla_fft_plan_create_nd(nla_context *ctx, const nla_fft_desc_nd *desc,
                                          nla_fft_plan **plan)
{
    return create_nd(ctx, "nla_fft_plan_create_nd", desc, plan);
}

/* nla_fft_plan_2d and _3d: their own arguments named, then the plan */
static nla_status plan_dims(const char *fn, nla_context *ctx, int rank, const int64_t *n,
                            nla_fft_direction dir, nla_precision prec, nla_fft_plan **plan)
{
    static const char *const names[] = { "n0", "n1", "n2" };
    nla_check ck = NLA_CHECK_INIT(ctx, fn);
    nla_fft_desc_nd d;
    int64_t total = 1, bytes;

    if (plan)
        *plan = NULL;
    if (nla_chk_ctx(&ck, ctx))
        return ck.status;

    for (int k = 0; k < rank; k++) {
        if (n[k] < 1)
            return nla_fail(ctx, NLA_EINVAL, fn, "%s (%lld) < 1", names[k], (long long)n[k]);
        /* the descriptor's extent check would otherwise name desc */
        if (nla_mul_overflows(total, n[k], &total) ||
            nla_mul_overflows(total, prec == NLA_FLOAT ? 8 : 16, &bytes) ||
            (uint64_t)bytes > (uint64_t)PTRDIFF_MAX)
            return nla_fail(ctx, NLA_EINVAL, fn, "%s (%lld): the %s complex values "
                            "overflow ptrdiff_t", names[k], (long long)n[k],
                            rank == 2 ? "n0*n1" : "n0*n1*n2");
    }
    if (nla_fft_chk_dir(&ck, "dir", dir) || nla_fft_chk_prec(&ck, "prec", prec))
        return ck.status;
    memset(&d, 0, sizeof d);
    d.kind = NLA_FFT_C2C;
    d.precision = prec;
    d.direction = dir;
    d.rank = rank;
    for (int k = 0; k < rank; k++)
        d.n[k] = n[k];
    return create_nd(ctx, fn, &d, plan);
}

NLA_API nla_status nla_fft_plan_2d(nla_context *ctx, int64_t n0, int64_t n1,
                                   nla_fft_direction dir, nla_precision prec,
                                   nla_fft_plan **plan)
{
    const int64_t n[2] = { n0, n1 };
    return plan_dims("nla_fft_plan_2d", ctx, 2, n, dir, prec, plan);
}

NLA_API nla_status nla_fft_plan_3d(nla_context *ctx, int64_t n0, int64_t n1, int64_t n2,
                                   nla_fft_direction dir, nla_precision prec,
                                   nla_fft_plan **plan)
{
    const int64_t n[3] = { n0, n1, n2 };
    return plan_dims("nla_fft_plan_3d", ctx, 3, n, dir, prec, plan);
}
