/*
 * fft_tmpl.h - the CPU FFT for one precision.  Included by fft.c with
 *   T  the real type, F(name) the prefixed name (d_name, s_name), and
 *   KVC KBC KLANE KGEN KR2C KC2R KMULC KTRTW KTW KSMALL KSMALLIL  the kernel
 *   table's fields of that precision.
 *
 * A "core" computes one contiguous complex transform of length n, x -> y
 * (x == y allowed; otherwise x is not written), using a scratch area of
 * core->work complex values:
 *   CORE_ONE    n == 1
 *   CORE_STOCK  n with prime factors up to 127 (NLA_FFT_MAX_GEN) whose data
 *               and scratch fit in the last-level cache
 *               (fft.stockham_max_bytes of the CPU configuration, tune.h):
 *               Stockham autosort passes of radix 8 (then 4 or 2), then
 *               13, 11, 9, 7, 5 and 3, then the generic pass (KGEN) of
 *               each larger prime (F(radices)), ping-ponging between y and
 *               scratch; one
 *               transform of n = 2^k <= 2^NLA_FFT_SMALL_LOG runs the
 *               codelet KSMALL instead where the ISA has one, and B > 1
 *               transforms interleaved element by element of n = 2^k <=
 *               2^NLA_FFT_IL_LOG run KSMALLIL, vectors across them
 *   CORE_DIT    the same n past the L2: n = R*M, a transpose, R row FFTs
 *               of length M (in the L2 where an R lets them fit, else the
 *               shortest rows; F(dit_radix)), the twiddles, M column FFTs
 *               of length R (F(dit_run))
 *   CORE_4STEP  the same n past the cache: n = n1*n2, n2 column FFTs of
 *               length n1 on blocks of columns (gathered, so the passes run
 *               in cache and across the block's columns in vectors), the
 *               twiddles W_n^(j2*k1), then n1 column FFTs of length n2
 *   CORE_BLUE   n with a prime factor over 127 (or a small n whose generic
 *               pass would not fill a vector: F(gen_alone)): Bluestein's chirp-z, a
 *               convolution of length m = 2^k >= 2n-1 done with two
 *               length-m cores
 * The plan wraps a core with strides, batches, scale and the real
 * transforms.  All arithmetic on complex values is written out by hand.
 * Cores are built in build_tmpl.h (by the rules above, or by a choice
 * from wisdom or measurement: plan_choice.h, measure_tmpl.h).
 */

/* Columns in blocks: a block gathers this many transforms (128 bytes of
   each row), as the four-step method's column passes do. */
#define COL_BLOCK (64 / (int64_t)sizeof(T))
/* A block's rows lie st apart, a page each once st passes 4 KiB: no
   hardware prefetcher follows them, so the gather and the scatter ask for
   a row's two lines this many rows ahead (doc/tuning.md 4.8) */
#define COL_AHEAD 8
/* the lines of a block's row at a (two when the row passes a line), for
   reading (rw 0) or writing (rw 1) */
#define COL_FETCH(a, rw, two)                                                  \
    do {                                                                       \
        __builtin_prefetch((a), (rw));                                         \
        if (two)                                                               \
            __builtin_prefetch((a) + 64 / sizeof(T), (rw));                    \
    } while (0)

/* bw complex values of a gathered block's row: a whole block's row is a
   copy of known size, which compiles to a few vector moves */
static inline void F(copy_row)(T *dst, const T *src, int64_t bw)
{
    if (bw == COL_BLOCK)
        memcpy(dst, src, (size_t)COL_BLOCK * 2 * sizeof(T));
    else
        memcpy(dst, src, (size_t)bw * 2 * sizeof(T));
}

typedef struct F(stage) {
    int r, slot;         /* radix and its slot in the kernel table (-1: KGEN) */
    int64_t m;           /* length / r: the distance of the legs, in units of s */
    T *tw;               /* [p][k-1], p < m: w^(p*k), broadcast layout */
    T *twl;              /* [k-1][i], i < s*m (s for B = 1): per-lane layout, or NULL */
    T *cs;               /* KGEN's angles: exp(2*pi*i*e/r), e < r, or NULL */
} F(stage);

typedef struct F(core) F(core);
struct F(core) {
    fft_mem *mem;                 /* holds the core, its tables and its cores, or NULL */
    int type, fwd;
    int64_t n;
    int small;                    /* log2 n when the codelet KSMALL[fwd][small] does it, else 0 */
    int64_t work;                 /* complex scratch values run() needs */
    /* CORE_STOCK */
    int batch;                    /* runs B > 1 interleaved transforms (F(stage_bc)) */
    int nst;
    F(stage) st[MAX_STAGES];
    /* CORE_4STEP and CORE_DIT */
    int64_t n1, n2, blk;
    int nt;                       /* threads over the column blocks (a plan of one transform) */
    F(core) *c1, *c2;
    int64_t nlo;
    T *lo, *hi;                   /* W_n^t = lo[t % nlo] * hi[t / nlo] (F(tw_pair)) */
    /* CORE_BLUE */
    int64_t m;
    F(core) *cm;                  /* forward, length m */
    T *chirp;                     /* exp(sign*i*pi*j^2/n), j < n */
    T *bf;                        /* FFT_m(conj(chirp), wrapped) / m */
    int made;                     /* chirp and bf are made (F(core_prepare)) */
};

typedef struct F(plan) {
    nla_fft_desc d;      /* first: nla_cpu_fft_execute reads its precision */
    const nla_fft_kernels *kt;
    F(core) *c;          /* C2C: length n; real, even n: n/2; real, odd n: n */
    T *rtw;              /* real transforms, even n: twiddles (F(real_setup)) */
    T *rtv;              /* the separate step's split table, or NULL (F(split_table)) */
    int fused;           /* the real step's form, REAL_* (real_tmpl.h) */
    int64_t runs;        /* its runs r, fused or by pairs (F(edge_radix)) */
    int64_t work;        /* complex scratch values per transform */
    int cols;            /* C2C on adjacent columns: F(c2c_cols) */
    int whole;           /* cols that fill their rows, in the L2 (F(c2c_cols)) */
    /* C2C, unit strides, no scale, n with a codelet: the whole batch in
       one call of it */
    void (*direct)(int64_t hm, int64_t id, int64_t od, const T *x, T *y);
    int nthreads;
    struct scratch_pool pool;
    struct F(dct) *dct;  /* REDFT10/REDFT01 (dct_tmpl.h), else NULL */
    fft_mem mem;         /* its tables and its core's (fft_mem_get) */
    atomic_int ready;    /* the tables of the first execution are made (F(plan_prepare)) */
} F(plan);

static nla_status F(plan_prepare)(F(plan) *p);

/* the DCT plans, in dct_tmpl.h (made by F(dct_plan_create)) */
struct F(dct);
static void F(dct_range)(const F(plan) *p, const T *in, T *out, int64_t b0, int64_t b1,
                         T *work);
static void F(dct_free)(struct F(dct) *t);
static F(plan) *F(dct_inner)(const struct F(dct) *t);

/* the real transforms of even n (real_tmpl.h): their twiddles and form,
   and one transform each way */
static int F(real_setup)(F(plan) *p);
static int F(real_tables)(F(plan) *p);
static void F(r2c_one)(const F(plan) *p, const T *x, T *y, T *work);
static void F(c2r_one)(const F(plan) *p, const T *x, T *y, T *work);

/* building (build_tmpl.h): a core by the rules (ch NULL) or by a choice;
   the plan's core by the effort, wisdom or measurement (measure_tmpl.h) */
static F(core) *F(core_build)(fft_mem *mem, int64_t n, int fwd, const nla_fft_choice *ch);
static void F(core_threads)(F(core) *c, int nt);
static int F(stock_batch)(F(core) *c);
static int F(past_l2)(int64_t n);
static int64_t F(split)(int64_t n);
static nla_status F(core_plan)(fft_mem *mem, int64_t n, int fwd, const nla_exec *ex,
                               F(core) **out);
static void F(core_run)(const F(core) *c, const nla_fft_kernels *kt, const T *x,
                        T *y, T *work);
static void F(core_free)(F(core) *c);
static int F(core_prepare)(F(core) *c);

/* scratch of count complex values, freed with free() */
static T *F(talloc)(int64_t count)
{
    return alloc_aligned((size_t)count * 2 * sizeof(T));
}

/* a table of count complex values from mem (a plan's), or on its own
   (freed with free()) where mem is NULL */
static T *F(tab)(fft_mem *mem, int64_t count)
{
    return mem ? fft_mem_get(mem, (size_t)count * 2 * sizeof(T)) : F(talloc)(count);
}

/* ------------------------------------------------------------- running */

/* Whether pass i of c, at stride sl with B transforms interleaved, takes
   the broadcast kernel: vectors along q while s fills one, else along
   q + s*p (the per-lane twiddles are made for B == 1 and s under a vector); a pass of
   one p (m == 1) has no twiddles, which only the broadcast kernels skip */
static int F(pass_bc)(const F(core) *c, const nla_fft_kernels *kt, int i, int64_t sl,
                      int64_t B)
{
    return sl >= kt->KVC || B != 1 || !c->st[i].twl || c->st[i].m == 1;
}

/* Pass i of c at stride sl, the part i0 <= q + s*p < i1, src -> dst */
static void F(pass_range)(const F(core) *c, const nla_fft_kernels *kt, int i, int64_t sl,
                          int64_t B, int64_t i0, int64_t i1, const T *src, T *dst)
{
    const F(stage) *st = &c->st[i];
    if (st->slot < 0)
        kt->KGEN[c->fwd](st->r, st->cs, st->m, sl, i0, i1, st->tw, src, dst);
    else if (F(pass_bc)(c, kt, i, sl, B))
        kt->KBC[c->fwd][st->slot](st->m, sl, i0, i1, st->tw, src, dst);
    else
        kt->KLANE[c->fwd][st->slot](st->m, sl, i0, i1, st->twl, src, dst);
}

/* Passes [first, ns) of F(stock_run) (the last of them writing y, the
   others y and scr in turn), thread id's share of each of nth (the
   caller's threads meet at a barrier after each pass when nth > 1). */
static void F(stock_passes)(const F(core) *c, const nla_fft_kernels *kt, int64_t B, int first,
                            int ns, const T *src, T *y, T *scr, int id, int nth)
{
    int64_t sl = B;
    for (int i = 0; i < first; i++)
        sl *= c->st[i].r;
    for (int i = first; i < ns; i++) {
        T *dst = (ns - 1 - i) % 2 == 0 ? y : scr;
        /* id's share of i = q + s*p, cut where every vector holds the
           values it holds on one thread (the same bits for any count): at
           multiples of 8, or of s for broadcast passes whose s is not one */
        const int64_t tot = sl * c->st[i].m;
        const int64_t unit = !F(pass_bc)(c, kt, i, sl, B) || sl % 8 == 0 ? 8 : sl;
        const int64_t per = ((tot + unit - 1) / unit + nth - 1) / nth * unit;
        const int64_t i0 = id * per < tot ? id * per : tot;
        const int64_t i1 = i0 + per < tot ? i0 + per : tot;
        F(pass_range)(c, kt, i, sl, B, i0, i1, src, dst);
#ifdef _OPENMP
        if (nth > 1) {
#pragma omp barrier
        }
#endif
        src = dst;
        sl *= c->st[i].r;
    }
}

/* The Stockham passes (or the interleaved codelet) on B transforms
   interleaved element by element (element j of transform b at [j*B + b]);
   x may equal y. */
static void F(stock_run)(const F(core) *c, const nla_fft_kernels *kt, int64_t B,
                         const T *x, T *y, T *scr)
{
    const T *src = x;

    if (B > 1 && c->small && c->small <= NLA_FFT_IL_LOG) {
        kt->KSMALLIL[c->fwd][c->small](B, B, x, y);
        return;
    }
    if (x == y && c->nst % 2 == 1) {
        memcpy(scr, x, (size_t)(c->n * B) * 2 * sizeof(T));
        src = scr;
    }
    if (c->nst == 0) {
        if (x != y)
            memcpy(y, x, (size_t)(c->n * B) * 2 * sizeof(T));
        return;
    }
#ifdef _OPENMP
    /* the threads only where the core has them: entering a parallel
       region costs more than a short transform */
    if (B == 1 && c->nt > 1) {
#pragma omp parallel num_threads(c->nt)
        F(stock_passes)(c, kt, B, 0, c->nst, src, y, scr, omp_get_thread_num(),
                        omp_get_num_threads());
        return;
    }
#endif
    F(stock_passes)(c, kt, B, 0, c->nst, src, y, scr, 0, 1);
}

static void F(fourstep_run)(const F(core) *c, const nla_fft_kernels *kt,
                            const T *x, T *y, T *work)
{
    const int64_t n1 = c->n1, n2 = c->n2, B = c->blk, mx = n1 > n2 ? n1 : n2;
    T *t = x == y ? work : y;                 /* the transposed middle result */

#ifdef _OPENMP
#pragma omp parallel num_threads(c->nt) if (c->nt > 1)
#endif
    {
#ifdef _OPENMP
        const int id = omp_get_thread_num();
#else
        const int id = 0;
#endif
        T *buf = work + 2 * c->n + (size_t)id * 4 * (size_t)(B * mx);
        T *scr = buf + 2 * B * mx;

        /* columns j2 of x (n1 x n2, row-major): FFT over j1, twiddle,
           t[j2*n1 + k1] */
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (int64_t c0 = 0; c0 < n2; c0 += B) {
            const int64_t bw = n2 - c0 < B ? n2 - c0 : B;   /* this block's columns */
            for (int64_t j1 = 0; j1 < n1; j1++)
                F(copy_row)(buf + 2 * j1 * bw, x + 2 * (j1 * n2 + c0), bw);
            F(stock_run)(c->c1, kt, bw, buf, buf, scr);
            kt->KTRTW(n1, bw, c0, n1, c->lo, c->hi, buf, t + 2 * c0 * n1);
        }
        /* columns k1 of t (n2 x n1): FFT over j2, into y[k2*n1 + k1] */
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (int64_t c0 = 0; c0 < n1; c0 += B) {
            const int64_t bw = n1 - c0 < B ? n1 - c0 : B;
            for (int64_t j2 = 0; j2 < n2; j2++)
                F(copy_row)(buf + 2 * j2 * bw, t + 2 * (j2 * n1 + c0), bw);
            F(stock_run)(c->c2, kt, bw, buf, buf, scr);
            for (int64_t k2 = 0; k2 < n2; k2++)
                F(copy_row)(y + 2 * (k2 * n1 + c0), buf + 2 * k2 * bw, bw);
        }
    }
}

/* The DIT core's scratch (complex values): shared, z and, where the
   columns run passes, their scratch; each thread's own, a row's result
   and its core's scratch */
static int64_t F(dit_shared)(const F(core) *c)
{
    return c->c1->small ? c->n : 2 * c->n;
}

static int64_t F(dit_own)(const F(core) *c)
{
    return c->n2 + c->c2->work;
}

/* Thread id of nth's share of M: multiples of 64 (whole vectors, the same
   as on one thread) */
static void F(dit_share)(int64_t M, int id, int nth, int64_t *m0, int64_t *m1)
{
    const int64_t per = ((M + 63) / 64 + nth - 1) / nth * 64;
    *m0 = id * per < M ? id * per : M;
    *m1 = *m0 + per < M ? *m0 + per : M;
}

/* The DIT core's first two steps, thread id of nth's share: z[r*M + m] =
   x[m*R + r], then each row r of z transformed (length M) and
   times W_n^(r*k).  z is work's first n values; the threads (when nth >
   1, all of the enclosing team) meet after each step. */
static void F(dit_rows)(const F(core) *c, const nla_fft_kernels *kt, const T *x, T *work,
                        int id, int nth)
{
    const int64_t R = c->n1, M = c->n2;
    T *z = work, *sub = work + 2 * (F(dit_shared)(c) + id * F(dit_own)(c));
    int64_t m0, m1;

    F(dit_share)(M, id, nth, &m0, &m1);
    if (m1 > m0)
        kt->KTRTW(m1 - m0, R, 0, M, NULL, NULL, x + 2 * m0 * R, z + 2 * m0);
#ifdef _OPENMP
    if (nth > 1) {
#pragma omp barrier
    }
#endif
    for (int64_t r = R * id / nth; r < R * (id + 1) / nth; r++) {
        F(core_run)(c->c2, kt, z + 2 * r * M, sub, sub + 2 * M);
        kt->KTW(M, r, c->nlo, c->lo, c->hi, sub, z + 2 * r * M);
    }
#ifdef _OPENMP
    if (nth > 1) {
#pragma omp barrier
    }
#endif
}

/* The DIT core's columns q in [q0, q1) (length R, M apart), z -> y, by the
   interleaved codelet (R = 2^k <= 2^NLA_FFT_IL_LOG) */
static void F(dit_cols)(const F(core) *c, const nla_fft_kernels *kt, const T *z, T *y,
                        int64_t q0, int64_t q1)
{
    if (q1 > q0)
        kt->KSMALLIL[c->fwd][c->c1->small](q1 - q0, c->n2, z + 2 * q0, y + 2 * q0);
}

/* n = R*M (R = n1, M = n2), decimation in time by R: F(dit_rows), then
   the M columns of z (length R, M apart) into y, each step streaming the
   data once.  Threads share the rows of x, the rows of z and the
   columns, cut where the work is the same as on one thread. */
static void F(dit_part)(const F(core) *c, const nla_fft_kernels *kt, const T *x, T *y,
                        T *work, int id, int nth)
{
    int64_t q0, q1;
    F(dit_rows)(c, kt, x, work, id, nth);
    F(dit_share)(c->n2, id, nth, &q0, &q1);
    if (c->c1->small)
        F(dit_cols)(c, kt, work, y, q0, q1);
    else
        F(stock_passes)(c->c1, kt, c->n2, 0, c->c1->nst, work, y, work + 2 * c->n, id, nth);
}

static void F(dit_run)(const F(core) *c, const nla_fft_kernels *kt, const T *x, T *y,
                       T *work)
{
#ifdef _OPENMP
#pragma omp parallel num_threads(c->nt) if (c->nt > 1)
    F(dit_part)(c, kt, x, y, work, omp_get_thread_num(), omp_get_num_threads());
#else
    F(dit_part)(c, kt, x, y, work, 0, 1);
#endif
}

static void F(blue_run)(const F(core) *c, const nla_fft_kernels *kt, const T *x,
                        T *y, T *work)
{
    const int64_t n = c->n, m = c->m;
    const T *ch = c->chirp;
    T *a = work;

    for (int64_t j = 0; j < n; j++) {
        T xr = x[2 * j], xi = x[2 * j + 1];
        a[2 * j] = xr * ch[2 * j] - xi * ch[2 * j + 1];
        a[2 * j + 1] = xr * ch[2 * j + 1] + xi * ch[2 * j];
    }
    memset(a + 2 * n, 0, (size_t)(m - n) * 2 * sizeof(T));
    F(core_run)(c->cm, kt, a, a, work + 2 * m);
    /* conj(A * Bf); transforming it forward gives m * conj(the convolution) */
    kt->KMULC(m, a, c->bf, a);
    F(core_run)(c->cm, kt, a, a, work + 2 * m);
    for (int64_t k = 0; k < n; k++) {
        T ar = a[2 * k], ai = -a[2 * k + 1];
        y[2 * k] = ar * ch[2 * k] - ai * ch[2 * k + 1];
        y[2 * k + 1] = ar * ch[2 * k + 1] + ai * ch[2 * k];
    }
}

static void F(core_run)(const F(core) *c, const nla_fft_kernels *kt, const T *x,
                        T *y, T *work)
{
    switch (c->type) {
    case CORE_ONE:
        y[0] = x[0];
        y[1] = x[1];
        break;
    case CORE_STOCK:
        if (c->small)
            kt->KSMALL[c->fwd][c->small](1, 0, 0, x, y);
        else
            F(stock_run)(c, kt, 1, x, y, work);
        break;
    case CORE_4STEP:
        F(fourstep_run)(c, kt, x, y, work);
        break;
    case CORE_DIT:
        F(dit_run)(c, kt, x, y, work);
        break;
    default:
        F(blue_run)(c, kt, x, y, work);
        break;
    }
}

/* ----------------------------------------------- one transform of a plan */

static void F(scale)(T *y, int64_t len, int64_t stride, int cplx, T sc)
{
    for (int64_t j = 0; j < len; j++) {
        y[cplx ? 2 * j * stride : j * stride] *= sc;
        if (cplx)
            y[2 * j * stride + 1] *= sc;
    }
}

/* x, y: this transform's first element; work: plan->work complex values */
static void F(c2c_one)(const F(plan) *p, const T *x, T *y, T *work)
{
    const nla_fft_desc *d = &p->d;
    const int64_t n = d->n, is = d->istride, os = d->ostride;
    T *g = work, *cw = work + 2 * n;

    if (is == 1 && os == 1) {
        F(core_run)(p->c, p->kt, x, y, work);
    } else {
        for (int64_t j = 0; j < n; j++) {
            g[2 * j] = x[2 * j * is];
            g[2 * j + 1] = x[2 * j * is + 1];
        }
        F(core_run)(p->c, p->kt, g, g, cw);
        for (int64_t j = 0; j < n; j++) {
            y[2 * j * os] = g[2 * j];
            y[2 * j * os + 1] = g[2 * j + 1];
        }
    }
    if (d->scale != 1.0)
        F(scale)(y, n, os, 1, (T)d->scale);
}

/* ---------------------------------------------------------------- plan */

static void F(plan_free)(F(plan) *p)
{
    if (!p)
        return;
    F(core_free)(p->c);
    F(dct_free)(p->dct);
    fft_mem_free(&p->mem);
    free(p->pool.mem);
    free(p);
}

/* ex: the threads, the planning effort, and room for why planning failed */
static nla_status F(plan_create)(const nla_fft_desc *d, const nla_exec *ex, F(plan) **out)
{
    F(plan) *p = calloc(1, sizeof *p);
    int64_t n = d->n, len;
    int even_real = d->kind != NLA_FFT_C2C && n % 2 == 0;
    nla_status s;

    if (!p)
        return NLA_ENOMEM;
    p->d = *d;
    p->kt = nla_fft_kernels_get();
    p->nthreads = ex->nthreads > 0 ? ex->nthreads : 1;
    len = even_real ? n / 2 : n;
    s = F(core_plan)(&p->mem, len,
                     d->kind == NLA_FFT_C2C ? d->direction < 0 : d->kind == NLA_FFT_R2C, ex, &p->c);
    if (s != NLA_OK) {
        F(plan_free)(p);
        return s;
    }
    /* one transform: the threads inside it; a batch: the threads over it */
    if (d->howmany == 1)
        F(core_threads)(p->c, p->nthreads);
    if (even_real && F(real_setup)(p) != 0) {
        F(plan_free)(p);
        return NLA_ENOMEM;
    }
    /* a gather/staging buffer of len values, then the core's scratch */
    p->work = len + p->c->work;
    p->cols = d->kind == NLA_FFT_C2C && p->c->type == CORE_STOCK && d->howmany > 1 &&
              d->istride > 1 && d->ostride == d->istride && d->idist == 1 && d->odist == 1;
    if (p->cols && F(stock_batch)(p->c) != 0) {
        F(plan_free)(p);
        return NLA_ENOMEM;
    }
    if (p->cols && p->work < 2 * COL_BLOCK * n)
        p->work = 2 * COL_BLOCK * n;
    /* one thread only: a batch's threads take ranges of columns */
    p->whole = p->cols && p->nthreads <= 1 && d->istride == d->howmany &&
               !F(past_l2)(n * d->howmany);
    if (p->whole && p->work < n * d->howmany)
        p->work = n * d->howmany;
    if (d->kind == NLA_FFT_C2C && p->c->small && d->istride == 1 && d->ostride == 1 &&
        d->scale == 1.0)
        p->direct = p->kt->KSMALL[p->c->fwd][p->c->small];
    atomic_init(&p->pool.busy, 0);
    p->pool.bytes = (size_t)p->work * 2 * sizeof(T);
    atomic_init(&p->ready, 0);
    /* MEASURE takes its time at planning: the first execution's tables too */
    if (ex->fft_effort == NLA_FFT_MEASURE && F(plan_prepare)(p) != NLA_OK) {
        F(plan_free)(p);
        return NLA_ENOMEM;
    }
    *out = p;
    return NLA_OK;
}

/* Transforms [b0, b1) of a C2C batch of adjacent columns (istride ==
   ostride, idist == odist == 1, a Stockham core).  Columns that fill their
   rows, all of them at once, with data and scratch in the L2 (p->whole):
   the passes across the array as it lies, no gather.  Else blocks of up
   to COL_BLOCK columns gathered with their rows side by side, the passes
   run across the block in vectors, the block scattered back.  A column's
   values are the same bits either way (the passes treat each lane alike),
   so a batch's threads, which take ranges of columns, give the bits of
   one. */
static void F(c2c_cols)(const F(plan) *p, const T *in, T *out, int64_t b0, int64_t b1,
                        T *work)
{
    const int64_t n = p->d.n, st = p->d.istride;
    T *buf = work, *scr = work + 2 * COL_BLOCK * n;

    if (p->whole && b0 == 0 && b1 == st) {
        F(stock_run)(p->c, p->kt, st, in, out, work);
        if (p->d.scale != 1.0)
            F(scale)(out, n * st, 1, 1, (T)p->d.scale);
        return;
    }
    for (int64_t c0 = b0; c0 < b1; c0 += COL_BLOCK) {
        const int64_t bw = b1 - c0 < COL_BLOCK ? b1 - c0 : COL_BLOCK;
        const int two = 2 * bw * (int64_t)sizeof(T) > 64;   /* a row's block passes a line */
        for (int64_t j = 0; j < n; j++) {
            if (j + COL_AHEAD < n)
                COL_FETCH(in + 2 * ((j + COL_AHEAD) * st + c0), 0, two);
            F(copy_row)(buf + 2 * j * bw, in + 2 * (j * st + c0), bw);
        }
        F(stock_run)(p->c, p->kt, bw, buf, buf, scr);
        if (p->d.scale != 1.0)
            F(scale)(buf, n * bw, 1, 1, (T)p->d.scale);
        for (int64_t k = 0; k < n; k++) {
            if (k + COL_AHEAD < n)
                COL_FETCH(out + 2 * ((k + COL_AHEAD) * st + c0), 1, two);
            F(copy_row)(out + 2 * (k * st + c0), buf + 2 * k * bw, bw);
        }
    }
}

static void F(run_range)(const F(plan) *p, const T *in, T *out, int64_t b0,
                         int64_t b1, T *work)
{
    if (p->direct) {
        const int64_t id = p->d.idist, od = p->d.odist;
        p->direct(b1 - b0, id, od, in + 2 * b0 * id, out + 2 * b0 * od);
        return;
    }
    if (p->cols) {
        F(c2c_cols)(p, in, out, b0, b1, work);
        return;
    }
    if (p->dct) {
        F(dct_range)(p, in, out, b0, b1, work);
        return;
    }
    const nla_fft_desc *d = &p->d;
    /* dists count elements of each side's own type */
    const int64_t ie = d->kind == NLA_FFT_R2C ? 1 : 2, oe = d->kind == NLA_FFT_C2R ? 1 : 2;
    for (int64_t b = b0; b < b1; b++) {
        const T *x = in + b * d->idist * ie;
        T *y = out + b * d->odist * oe;
        if (d->kind == NLA_FFT_C2C)
            F(c2c_one)(p, x, y, work);
        else if (d->kind == NLA_FFT_R2C)
            F(r2c_one)(p, x, y, work);
        else
            F(c2r_one)(p, x, y, work);
    }
}

static nla_status F(plan_run)(const F(plan) *pc, const void *in, void *out)
{
    F(plan) *p = (F(plan) *)pc;   /* only the scratch pool and readiness change */
    const int64_t hm = p->d.howmany;
    int nt = p->nthreads;
    nla_status st = NLA_OK;

    if (!atomic_load_explicit(&p->ready, memory_order_acquire) &&
        (st = F(plan_prepare)(p)) != NLA_OK)
        return st;
    if (nt > hm)
        nt = (int)hm;
    if (nt <= 1) {
        _Alignas(64) T stack[NLA_FFT_STACK_BYTES / sizeof(T)];
        int from_pool = 0;
        T *work = p->pool.bytes <= sizeof stack ? stack : scratch_get(&p->pool, &from_pool);
        if (!work)
            return NLA_ENOMEM;
        F(run_range)(p, in, out, 0, hm, work);
        if (work != stack)
            scratch_put(&p->pool, work, from_pool);
        return NLA_OK;
    }
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), nth = omp_get_num_threads();
        int64_t b0 = hm * t / nth, b1 = hm * (t + 1) / nth;
        T *work = alloc_aligned(p->pool.bytes ? p->pool.bytes : 64);
        if (work)
            F(run_range)(p, in, out, b0, b1, work);
        else {
#pragma omp atomic write
            st = NLA_ENOMEM;
        }
        free(work);
    }
#else
    {
        T *work = alloc_aligned(p->pool.bytes ? p->pool.bytes : 64);
        if (!work)
            return NLA_ENOMEM;
        F(run_range)(p, in, out, 0, hm, work);
        free(work);
    }
#endif
    return st;
}

/* A codelet's plan on one thread calls it straight away: the path of the
   smallest transforms stays a few instructions long. */
static inline nla_status F(plan_execute)(const F(plan) *p, const void *in, void *out)
{
    if (p->direct && (p->d.howmany == 1 || p->nthreads <= 1)) {
        p->direct(p->d.howmany, p->d.idist, p->d.odist, in, out);
        return NLA_OK;
    }
    return F(plan_run)(p, in, out);
}

#undef COL_BLOCK
#undef COL_AHEAD
#undef COL_FETCH
