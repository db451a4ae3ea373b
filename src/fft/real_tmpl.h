/*
 * real_tmpl.h - the real transforms of fft_tmpl.h's plans (the same T,
 * F(name) and kernel fields), included by fft.c after it.
 *
 * Even n = 2h: a complex transform of length h on the real values taken
 * in pairs, and a real step between its values Z and the half spectrum X
 * (kernels.h: X[k] from Z[k] and Z[h-k] for R2C, and back for C2R).  Odd
 * n: the complex transform of length n.
 *
 * The real step runs in one of three forms (F(real_form) chooses, at
 * plan time):
 *   separate  a sweep of its own after the transform (R2C) or before it
 *             (C2R), each k from aligned loads (r2c_post, c2r_pre)
 *   fused     inside the edge pass next to the real data: R2C's last
 *             pass, C2R's first; or R2C's columns of a DIT core (its
 *             radix R as r, M as s).  The edge pass splits the h values
 *             into r runs s apart (s = h/r), and the mirror of k = q + s*j is
 *             h - k = (s - q) + s*(r-1-j): a block of q and its mirror
 *             block of s - q hold whole pairs (k, h-k).  Block by block,
 *             the pass and the step by pairs (r2c_pairs, c2r_pairs) run
 *             while the block is in L1, so the step costs no sweep.  The
 *             columns q = 0 and q = s/2 pair within themselves.  C2R
 *             on a DIT core runs the same blocks of pairs with no pass
 *             (r = R, s = M): a sweep into z before the core, for the
 *             small tables (the separate step's has h values).
 *   pairs     the same blocks of pairs as a sweep of their own, where
 *             there is no edge pass to join (a DIT core whose columns run
 *             passes, a four-step or Bluestein core): R2C after the core,
 *             C2R before it, r runs of s with r = F(split)(h), so that the
 *             table has about sqrt(h) values where the separate step's
 *             has h.
 * The tables of every form are made at the plan's first execution
 * (F(real_tables), through F(plan_prepare)): the separate step's h values
 * would cost an ESTIMATE plan milliseconds at h = 2^19.
 * The pairs split cache lines on one side (k on the vector grid puts
 * h-k-W+1 off it), which loses in cache; the fused and pairs forms run
 * where the half-length data pass the configuration's fft.real_fuse_bytes
 * (tune.h; doc/tuning.md 4.4).  Their blocks do not depend on the thread
 * count, so neither do their bits.
 */

#ifndef NLA_FFT_REAL_FORMS   /* (once for both precisions) */
#define NLA_FFT_REAL_FORMS
enum { REAL_SEPARATE, REAL_FUSED, REAL_PAIRS };
#endif

/* The form of this plan's real step: fused or pairs for even n, unit
   strides and h values past fft.real_fuse_bytes; fused on a Stockham core
   of two passes or more (or a DIT core whose columns run the interleaved
   codelet), pairs on any other core where h = r*s with r >= 2; else
   separate */
static int F(real_form)(const F(plan) *p)
{
    const F(core) *c = p->c;
    const int stock = c->type == CORE_STOCK && !c->small && c->nst >= 2;
    const int dit = c->type == CORE_DIT && c->c1->small;
    if (p->d.kind == NLA_FFT_C2C || p->d.n % 2 != 0 || p->d.istride != 1 ||
        p->d.ostride != 1 ||
        c->n * 2 * (int64_t)sizeof(T) <= nla_tuning_get()->fft.real_fuse_bytes)
        return REAL_SEPARATE;
    if (stock || dit)
        return REAL_FUSED;
    return F(split)(c->n) >= 2 ? REAL_PAIRS : REAL_SEPARATE;
}

/* The edge pass next to the real data: R2C's last, C2R's first (a DIT
   core: R2C its columns; C2R has none) */
static int F(edge_pass)(const F(plan) *p)
{
    return p->d.kind == NLA_FFT_R2C && p->c->type == CORE_STOCK ? p->c->nst - 1 : 0;
}

/* The runs r of the pairs: the radix of the edge pass (a DIT core: R);
   the pairs form, F(split)(h) */
static int64_t F(edge_radix)(const F(plan) *p)
{
    if (p->fused == REAL_PAIRS)
        return F(split)(p->c->n);
    return p->c->type == CORE_DIT ? p->c->n1 : p->c->st[F(edge_pass)(p)].r;
}

/* Whether the separate step takes the split table rtv (kernels.h,
   r2c_post): where its vectors run (unit strides) in cache; from past the
   L2 its two vectors a value cost more bytes than the shuffles they save. */
static int F(split_wanted)(const F(plan) *p)
{
    const int r2c = p->d.kind == NLA_FFT_R2C;
    return !p->fused && !F(past_l2)(p->d.n / 2) &&
           (r2c ? p->d.ostride : p->d.istride) == 1;
}

/* values of rtw before the fused forms' r run twiddles */
static int64_t F(real_nw)(const F(plan) *p)
{
    const int64_t h = p->d.n / 2;
    return p->fused ? h / p->runs / 2 + 1 : h + 1;
}

/* The real step's form, and room for its tables (F(real_tables)): the
   twiddles W_n^k, k <= n/2 (separate); fused, W_n^k for k = q + s*j as
   rtw[q] * rtw[s/2 + 1 + j] (q <= s/2, j < r), a table that stays in L1
   across the r runs.  -1: no memory. */
static int F(real_setup)(F(plan) *p)
{
    const int64_t W = p->kt->KVC, hp = (p->d.n / 2 + W - 1) / W * W;

    p->fused = F(real_form)(p);
    p->runs = p->fused ? F(edge_radix)(p) : 0;
    p->rtw = F(tab)(&p->mem, F(real_nw)(p) + p->runs);
    if (!p->rtw)
        return -1;
    if (F(split_wanted)(p) && !(p->rtv = F(tab)(&p->mem, 2 * hp)))
        return -1;
    return 0;
}

/* The tables F(real_setup) made room for, and the split table rtv from
   w = p->rtw.  -1: no memory. */
static int F(real_tables)(F(plan) *p)
{
    const int64_t n = p->d.n, h = n / 2, r = p->runs, nw = F(real_nw)(p);
    const int64_t W = p->kt->KVC, hp = (h + W - 1) / W * W;
    const int r2c = p->d.kind == NLA_FFT_R2C;
    const double c = r2c ? p->d.scale / 2 : 1.0;
    const T *w = p->rtw;

    /* W_n^k = exp(-2*pi*i*k/n) */
    if (F(tw_values)(n, nw, 1, p->rtw) != 0)
        return -1;
    for (int64_t j = 0; j < r; j++) {
        double re, im;
        twiddle(h / r * j, n, -1, &re, &im);
        p->rtw[2 * (nw + j)] = (T)re;
        p->rtw[2 * (nw + j) + 1] = (T)im;
    }
    for (int64_t k = 0; p->rtv && k < hp; k++) {
        /* w_k = W_n^k = wr + i wi; R2C u = -i w c, C2R u = i conj(w) */
        const double wr = k < h ? w[2 * k] : 0, wi = k < h ? w[2 * k + 1] : 0;
        const double ur = r2c ? c * wi : wi, ui = r2c ? -c * wr : wr;
        T *t = p->rtv + 4 * W * (k / W) + 2 * (k % W);
        t[0] = t[1] = (T)ur;
        t[2 * W] = (T)-ui;
        t[2 * W + 1] = (T)ui;
    }
    return 0;
}

/* One fused transform's state: the edge pass e (radix r, its runs s = h/r
   apart, at stride sl), the buffers, and where the pairs go: R2C in place
   in y, C2R from the input x into z */
typedef struct F(fused) {
    const F(plan) *p;
    int e, r2c, edge;    /* edge: the pairs run beside an edge pass */
    int64_t r, h, s, sl;
    const T *x;   /* C2R: the half spectrum */
    T *y;         /* R2C: Z in, X out; C2R: Z out */
} F(fused);

/* The pairs k = q + s*j, q in [q0, q1), for the runs j in [j0, j1), and
   their mirrors; W_n^k = rtw[q] * rtw[s/2 + 1 + j] (F(real_setup)) */
static void F(pairs_run)(const F(fused) *f, int64_t q0, int64_t q1, int64_t j0,
                         int64_t j1)
{
    const F(plan) *p = f->p;
    for (int64_t j = j0; j < j1; j++) {
        const T *pw = p->rtw + 2 * q0, *wc = p->rtw + 2 * (f->s / 2 + 1 + j);
        const int64_t k0 = q0 + f->s * j, k1 = q1 + f->s * j;
        if (f->r2c)
            p->kt->KR2CP(f->h, k0, k1, f->y, pw, wc, (T)p->d.scale, f->y);
        else
            p->kt->KC2RP(f->h, k0, k1, f->x, pw, wc, f->y);
    }
}

/* The edge pass (src -> dst) on q in [qa, qb) and [ma, mb), and the pairs
   of q in [q0, qb) over the runs j < nj: R2C the pass then the pairs, C2R the
   pairs then the pass (if any) */
static void F(edge_block)(const F(fused) *f, const T *src, T *dst, int64_t qa, int64_t qb,
                          int64_t ma, int64_t mb, int64_t q0, int64_t nj)
{
    const F(core) *c = f->p->c;
    if (!f->r2c)
        F(pairs_run)(f, q0, qb, 0, nj);
    for (int i = 0; i < 2 && f->edge; i++) {
        const int64_t a = i ? ma : qa, b = i ? mb : qb;
        if (a >= b)
            continue;
        if (c->type == CORE_DIT)
            F(dit_cols)(c, f->p->kt, src, dst, a, b);
        else
            F(pass_range)(c, f->p->kt, f->e, f->sl, 1, a, b, src, dst);
    }
    if (f->r2c)
        F(pairs_run)(f, q0, qb, 0, nj);
}

/* The fused edge pass and pair step, thread id of nth's share of the
   blocks of q and their mirror blocks of s - q.  Thread 0, whose first
   block holds q = 0, also does the columns q = 0 (runs j and r-j pair;
   Z[0] is X[0] and X[h]) and q = s/2 (runs j and r-1-j pair); C2R's
   column q = 0 comes first, as the pass on q = 0 reads it. */
static void F(fused_edge)(const F(fused) *f, const T *src, T *dst, int id, int nth)
{
    const int64_t h = f->h, s = f->s, qmid = (s + 1) / 2;
    /* beside a pass, the 2r runs of a block fill about 32 KiB; with none,
       the runs need not stay in the L1 together (2r runs s = 2^k apart
       alias in its sets once 2r passes its ways): longer blocks, taken
       run by run */
    const int64_t Be = 32768 / (int64_t)(4 * f->r * sizeof(T)) / 8 * 8;
    const int64_t B = !f->edge ? 1024 : Be < 8 ? 8 : Be;
    const int64_t nb = (qmid + B - 1) / B, b0 = nb * id / nth, b1 = nb * (id + 1) / nth;
    T *y = f->y;

    if (id == 0 && !f->r2c) {
        y[0] = f->x[0] + f->x[2 * h];
        y[1] = f->x[0] - f->x[2 * h];
        F(pairs_run)(f, 0, 1, 1, f->r / 2 + 1);
    }
    for (int64_t b = b0; b < b1; b++) {
        const int64_t qa = b * B, qb = qa + B < qmid ? qa + B : qmid;
        F(edge_block)(f, src, dst, qa, qb, s - qb + 1, s - qa + 1 < s ? s - qa + 1 : s,
                      qa ? qa : 1, f->r);
    }
    if (id != 0)
        return;
    if (s % 2 == 0)
        F(edge_block)(f, src, dst, s / 2, s / 2 + 1, 0, 0, s / 2, (f->r + 1) / 2);
    if (f->r2c) {
        const T sc = (T)f->p->d.scale, z0 = y[0], z1 = y[1];
        F(pairs_run)(f, 0, 1, 1, f->r / 2 + 1);
        y[0] = (z0 + z1) * sc;
        y[1] = 0;
        y[2 * h] = (z0 - z1) * sc;
        y[2 * h + 1] = 0;
    }
}

/* Thread id of nth's share of one fused transform.  A DIT core: R2C its
   rows into z, then its columns and the pairs into y; C2R the pairs into
   z, then the core z -> y on scr.  R2C: the passes but
   the last into z (x read as h complex values; out of place, y is their
   other buffer), then the last pass and the pairs into y; x == y works,
   as the first pass has read x before the last writes y.  C2R: the pairs
   into z and the first pass into scr, block by block, then the other
   passes, the last into y; x == y works, as nothing writes y before every
   block has read x.  The pairs form: the pairs alone (its core runs
   before or after, F(real_fused)). */
static void F(fused_part)(const F(fused) *f, const T *x, T *y, T *z, T *scr, int id, int nth)
{
    const F(core) *c = f->p->c;
    if (f->p->fused == REAL_PAIRS) {
        F(fused_edge)(f, NULL, NULL, id, nth);
        return;
    }
    if (f->r2c) {
        if (c->type == CORE_DIT)
            F(dit_rows)(c, f->p->kt, x, z, id, nth);
        else
            F(stock_passes)(c, f->p->kt, 1, 0, c->nst - 1, x, z, x != y ? y : scr, id, nth);
        F(fused_edge)(f, z, y, id, nth);
        return;
    }
    /* C2R: the pairs (with the first pass, or none on a DIT core), then the
       rest of the core */
    F(fused_edge)(f, z, scr, id, nth);
#ifdef _OPENMP
    if (nth > 1) {
#pragma omp barrier
    }
#endif
    if (c->type == CORE_DIT)
        F(dit_part)(c, f->p->kt, z, y, scr, id, nth);
    else
        F(stock_passes)(c, f->p->kt, 1, 1, c->nst, scr, y, z, id, nth);
}

/* One transform, fused or by pairs, on the core's threads: the pairs R2C
   after the core (in place in y), C2R before it (into z) */
static void F(real_fused)(const F(plan) *p, const T *x, T *y, T *work)
{
    const F(core) *c = p->c;
    const int r2c = p->d.kind == NLA_FFT_R2C, e = F(edge_pass)(p);
    const int pairs = p->fused == REAL_PAIRS;
    const int64_t r = p->runs;
    T *z = work, *scr = work + 2 * c->n;
    const F(fused) f = { p, e, r2c, !pairs && (r2c || c->type != CORE_DIT), r, c->n,
                         c->n / r, e ? c->n / r : 1, x, r2c ? y : z };

    if (pairs && r2c)
        F(core_run)(c, p->kt, x, y, work);
#ifdef _OPENMP
#pragma omp parallel num_threads(c->nt) if (c->nt > 1)
    F(fused_part)(&f, x, y, z, scr, omp_get_thread_num(), omp_get_num_threads());
#else
    F(fused_part)(&f, x, y, z, scr, 0, 1);
#endif
    if (pairs && !r2c)
        F(core_run)(c, p->kt, z, y, scr);
    if (!r2c && p->d.scale != 1.0)
        F(scale)(y, p->d.n, 1, 0, (T)p->d.scale);
}

/* One transform of the plan: x, y its first elements; work: plan->work
   complex values */
static void F(r2c_one)(const F(plan) *p, const T *x, T *y, T *work)
{
    const nla_fft_desc *d = &p->d;
    const int64_t n = d->n, is = d->istride, os = d->ostride;
    const T sc = (T)d->scale;

    if (p->fused) {
        F(real_fused)(p, x, y, work);
    } else if (n % 2 == 0) {
        const int64_t h = n / 2;
        T *z = work, *cw = work + 2 * h;
        const T *w = p->rtw;
        if (is == 1) {
            F(core_run)(p->c, p->kt, x, z, cw);
        } else {
            for (int64_t j = 0; j < n; j++)
                z[j] = x[j * is];
            F(core_run)(p->c, p->kt, z, z, cw);
        }
        p->kt->KR2C(h, z, w, p->rtv, sc, y, os);
        y[0] = (z[0] + z[1]) * sc;
        y[1] = 0;
        y[2 * h * os] = (z[0] - z[1]) * sc;
        y[2 * h * os + 1] = 0;
    } else {
        T *g = work, *cw = work + 2 * n;
        for (int64_t j = 0; j < n; j++) {
            g[2 * j] = x[j * is];
            g[2 * j + 1] = 0;
        }
        F(core_run)(p->c, p->kt, g, g, cw);
        for (int64_t k = 0; k <= n / 2; k++) {
            y[2 * k * os] = g[2 * k] * sc;
            y[2 * k * os + 1] = g[2 * k + 1] * sc;
        }
    }
}

static void F(c2r_one)(const F(plan) *p, const T *x, T *y, T *work)
{
    const nla_fft_desc *d = &p->d;
    const int64_t n = d->n, is = d->istride, os = d->ostride;
    const T sc = (T)d->scale;

    if (p->fused) {
        F(real_fused)(p, x, y, work);
    } else if (n % 2 == 0) {
        const int64_t h = n / 2;
        T *z = work, *cw = work + 2 * h;
        const T *w = p->rtw;
        T x0 = x[0], xh = x[2 * h * is];
        z[0] = x0 + xh;
        z[1] = x0 - xh;
        p->kt->KC2R(h, x, is, w, p->rtv, z);
        if (os == 1) {
            F(core_run)(p->c, p->kt, z, y, cw);
            if (sc != 1)
                F(scale)(y, n, 1, 0, sc);
        } else {
            F(core_run)(p->c, p->kt, z, z, cw);
            for (int64_t j = 0; j < n; j++)
                y[j * os] = z[j] * sc;
        }
    } else {
        T *g = work, *cw = work + 2 * n;
        g[0] = x[0];
        g[1] = 0;
        for (int64_t k = 1; k <= n / 2; k++) {
            T r = x[2 * k * is], i = x[2 * k * is + 1];
            g[2 * k] = r;
            g[2 * k + 1] = i;
            g[2 * (n - k)] = r;
            g[2 * (n - k) + 1] = -i;
        }
        F(core_run)(p->c, p->kt, g, g, cw);
        for (int64_t j = 0; j < n; j++)
            y[j * os] = g[2 * j] * sc;
    }
}

