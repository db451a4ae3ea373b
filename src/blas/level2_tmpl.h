/*
 * level2_tmpl.h - the CPU level-2 BLAS drivers, one copy per precision.
 * Included by level2.c with T (the element type) and P (d or s) defined.
 *
 * The drivers reduce every case to unit-stride vectors: a strided or
 * reversed x is copied, a strided y is gathered into a temporary, updated
 * and scattered back.  Unit-stride x and y are used in place.  The kernels
 * (kernels/level2_kernels.h) then read the matrix once.
 *
 * Each driver's work for one thread is a part function over a job struct;
 * l2_run (level2.c) runs it on the call's threads, or inline on one.  The
 * band form comes from l2_gbmv_form (level2.c), by the shape and the CPU
 * configuration only, never the thread count.
 *
 * Threads split the output, each owning its part of y (no atomics):
 *   - gemv/gbmv NoTrans: row blocks of y;
 *   - gemv/gbmv Trans:   blocks of y's elements (one dot each);
 *   - spmv: column blocks with equal shares of the triangle, each into a
 *     private accumulator, then the accumulators summed in thread order,
 *     row blocks per thread.
 * Block boundaries are multiples of L2_ALIGN elements, and the kernels fix
 * their summation order by the shape alone, so gemv and gbmv give the same
 * bits for any thread count; spmv's depend on the thread count (and are
 * fixed for a fixed count).  Problems below L2_THREAD_WORK matrix entries
 * run on one thread.
 */
#define L2_(p, name) nla_cpu_##p##name
#define L2(p, name) L2_(p, name)
#define LL_(p, name) p##l2_##name
#define LL(p, name) LL_(p, name)
#define KF_(k, p, name) ((k)->p##name)
#define KF(k, p, name) KF_(k, p, name)

/* Where element i of a BLAS vector with increment inc lives. */
static inline int64_t LL(P, at)(int64_t len, int64_t inc, int64_t i)
{
    return inc > 0 ? i * inc : (len - 1 - i) * -inc;
}

/* dst[i] = x(i) */
static void LL(P, gather)(int64_t len, const T *x, int64_t inc, T *dst)
{
    if (inc == 1) {
        memcpy(dst, x, (size_t)len * sizeof(T));
    } else {
        for (int64_t i = 0; i < len; i++)
            dst[i] = x[LL(P, at)(len, inc, i)];
    }
}

/* y(i) = src[i] */
static void LL(P, scatter)(int64_t len, const T *src, T *y, int64_t inc)
{
    for (int64_t i = 0; i < len; i++)
        y[LL(P, at)(len, inc, i)] = src[i];
}

/* y(i) = beta*y(i) + r[i - lo] for i in [lo, hi); beta == 0 does not read y */
static void LL(P, update)(int64_t len, int64_t lo, int64_t hi, T beta, T *y,
                          int64_t inc, const T *r)
{
    for (int64_t i = lo; i < hi; i++) {
        T *yi = y + LL(P, at)(len, inc, i);
        *yi = beta == 0 ? r[i - lo] : beta * *yi + r[i - lo];
    }
}

/* y(i) = beta*y(i) for all i (alpha == 0) */
static void LL(P, scale)(int64_t len, T beta, T *y, int64_t inc)
{
    int64_t step = inc < 0 ? -inc : inc;
    if (beta == 1)
        return;
    for (int64_t i = 0; i < len; i++)
        y[i * step] = beta == 0 ? 0 : beta * y[i * step];
}

/* Threads for a problem touching `work` matrix entries with len outputs. */
static int LL(P, threads)(const nla_exec *ex, double work, int64_t len)
{
    int nt = ex->nthreads > 1 ? ex->nthreads : 1;
    int64_t maxnt = (len + L2_ALIGN - 1) / L2_ALIGN;

    if (work < L2_THREAD_WORK)
        return 1;
    return maxnt < nt ? (int)maxnt : nt;
}

/* The block [lo, hi) of len outputs for thread tid of nt (aligned). */
static void LL(P, block)(int64_t len, int tid, int nt, int64_t *lo, int64_t *hi)
{
    int64_t chunks = (len + L2_ALIGN - 1) / L2_ALIGN;
    *lo = chunks * tid / nt * L2_ALIGN;
    *hi = chunks * (tid + 1) / nt * L2_ALIGN;
    if (*lo > len)
        *lo = len;
    if (*hi > len)
        *hi = len;
}

static nla_status LL(P, nomem)(const nla_exec *ex, size_t bytes)
{
    if (ex->msg && ex->msglen)
        snprintf(ex->msg, ex->msglen, "cannot allocate %zu bytes of workspace", bytes);
    return NLA_ENOMEM;
}

static T *LL(P, alloc)(size_t count)
{
    size_t bytes = (count * sizeof(T) + 63) & ~(size_t)63;
    return aligned_alloc(64, bytes ? bytes : 64);
}

/* Unit-stride views of x (length lx) and y (length ly) in one workspace:
   *xs is x itself when incx == 1, else a copy; *ys is y itself when
   incy == 1, else a copy (not read from y when beta == 0, since the
   kernels do not read it then).  *work is what to free. */
static nla_status LL(P, views)(const nla_exec *ex, int64_t lx, const T *x,
                               int64_t incx, int64_t ly, T beta, T *y, int64_t incy,
                               const T **xs, T **ys, T **work)
{
    int copyx = incx != 1, copyy = incy != 1;
    size_t count = (copyx ? (size_t)lx : 0) + (copyy ? (size_t)ly : 0);

    *work = NULL;
    *xs = x;
    *ys = y;
    if (!count)
        return NLA_OK;
    *work = LL(P, alloc)(count);
    if (!*work)
        return LL(P, nomem)(ex, count * sizeof(T));
    if (copyy) {
        *ys = *work;
        if (beta != 0)
            LL(P, gather)(ly, y, incy, *ys);
    }
    if (copyx) {
        T *xc = *work + (copyy ? ly : 0);
        LL(P, gather)(lx, x, incx, xc);
        *xs = xc;
    }
    return NLA_OK;
}

/* --------------------------------------------------------- gemv, gbmv */

/* One gemv or gbmv call: form is a band form, or -1 for gemv (a, lda:
   the matrix or the band) */
struct LL(P, mv_job) {
    const nla_l2_kernels *K;
    int form, notrans, many; /* many: gemv's many columns a pass */
    int64_t m, n, kl, ku;
    T alpha, beta;
    const T *a;
    int64_t lda;
    const T *xs;
    T *ys;
};

static void LL(P, mv_part)(const void *job, int tid, int team)
{
    const struct LL(P, mv_job) *g = job;
    int64_t lo, hi;

    LL(P, block)(g->notrans ? g->m : g->n, tid, team, &lo, &hi);
    if (lo >= hi)
        return;
    if (g->form >= 0) {
        KF(g->K, P, gbmv)[g->form](g->m, g->n, g->kl, g->ku, g->a, g->lda, g->xs, g->alpha,
                                   g->beta, g->ys, lo, hi);
    } else if (g->notrans) {
        /* the kernel takes alpha x[j] once a column; Trans scales the dots */
        LL(P, scale)(hi - lo, g->beta, g->ys + lo, 1);
        KF(g->K, P, gemv_n)(hi - lo, g->n, g->a + lo, g->lda, g->xs, g->alpha, g->ys + lo,
                            g->many);
    } else {
        KF(g->K, P, gemv_t)(g->m, hi - lo, g->a + lo * g->lda, g->lda, g->xs, g->alpha,
                            g->beta, g->ys + lo, g->many);
    }
}

/* The frame both share: alpha == 0 only scales y; else unit-stride views
   of x and y, the parts on the threads that `entries` matrix entries
   take, y scattered back.  what: the form, for ex->form. */
static nla_status LL(P, mv)(const nla_exec *ex, struct LL(P, mv_job) *g, double entries,
                            const T *x, int64_t incx, T *y, int64_t incy, const char *what)
{
    int64_t lx = g->notrans ? g->n : g->m, ly = g->notrans ? g->m : g->n;
    int nt = LL(P, threads)(ex, entries, ly);
    T *work;
    nla_status st;

    if (g->alpha == 0) {
        LL(P, scale)(ly, g->beta, y, incy);
        return NLA_OK;
    }
    st = LL(P, views)(ex, lx, x, incx, ly, g->beta, y, incy, &g->xs, &g->ys, &work);
    if (st != NLA_OK)
        return st;
    l2_say(ex, what);
    l2_run(nt, LL(P, mv_part), g);
    if (incy != 1)
        LL(P, scatter)(ly, g->ys, y, incy);
    free(work);
    return NLA_OK;
}

nla_status L2(P, gemv)(const nla_exec *ex, nla_trans trans, int64_t m, int64_t n,
                       T alpha, const T *a, int64_t lda, const T *x, int64_t incx,
                       T beta, T *y, int64_t incy)
{
    int notrans = trans == NLA_NO_TRANS;
    const nla_l2_kernels *K = nla_l2_kernels_get();
    const char *what;
    struct LL(P, mv_job) g = { .K = K, .form = -1, .notrans = notrans, .m = m, .n = n,
                               .alpha = alpha, .beta = beta, .a = a, .lda = lda };

    g.many = l2_gemv_many(!notrans, K, lda, sizeof(T), (double)m * n * sizeof(T), &what);
    return LL(P, mv)(ex, &g, (double)m * n, x, incx, y, incy, what);
}

nla_status L2(P, gbmv)(const nla_exec *ex, nla_trans trans, int64_t m, int64_t n,
                       int64_t kl, int64_t ku, T alpha, const T *ab, int64_t ldab,
                       const T *x, int64_t incx, T beta, T *y, int64_t incy)
{
    int notrans = trans == NLA_NO_TRANS;
    /* diagonals outside the matrix are never read: clip the band to it
       (A(i,j) = ab[ku + i - j + j*ldab] stays the same entry) */
    int64_t kl1 = kl < m - 1 ? kl : m - 1, ku1 = ku < n - 1 ? ku : n - 1;
    const char *what;
    int form = (int)l2_gbmv_form(notrans, kl1 + ku1 + 1, sizeof(T) == 4, &what);
    struct LL(P, mv_job) g = { .K = nla_l2_kernels_get(), .form = form, .notrans = notrans,
                               .m = m, .n = n, .kl = kl1, .ku = ku1, .alpha = alpha,
                               .beta = beta, .a = ab ? ab + (ku - ku1) : ab, /* NULL: alpha 0 */
                               .lda = ldab };

    return LL(P, mv)(ex, &g, (double)(kl1 + ku1 + 1) * (double)(m < n ? m : n), x, incx, y,
                     incy, what);
}

/* ---------------------------------------------------------------- spmv */

/* Column split with equal shares of the triangle: thread t of nt starts
   where the stored entries reach t/nt of the total. */
static int64_t LL(P, spmv_split)(int upper, int64_t n, int t, int nt)
{
    double f = (double)t / nt;
    double c;

    if (t <= 0)
        return 0;
    if (t >= nt)
        return n;
    /* upper: entries in columns < c are ~ c^2/2; lower: n^2/2 - (n-c)^2/2 */
    c = upper ? n * sqrt(f) : n * (1 - sqrt(1 - f));
    return (int64_t)c;
}

struct LL(P, spmv_job) {
    const nla_l2_kernels *K;
    int upper, many;
    int64_t n;
    T alpha, beta;
    const T *ap, *xs;
    T *work; /* one accumulator of n per thread */
    T *y;
    int64_t incy;
};

static void LL(P, spmv_part)(const void *job, int tid, int team)
{
    const struct LL(P, spmv_job) *g = job;
    const nla_l2_kernels *K = g->K;
    int upper = g->upper;
    int64_t n = g->n;
    T *work = g->work;
    int64_t c0 = LL(P, spmv_split)(upper, n, tid, team);
    int64_t c1 = LL(P, spmv_split)(upper, n, tid + 1, team);
    T *acc = work + (size_t)n * tid;
    int64_t lo, hi;

    /* the rows these columns touch: [0, c1) upper, [c0, n) lower */
    if (upper)
        memset(acc, 0, (size_t)c1 * sizeof(T));
    else
        memset(acc + c0, 0, (size_t)(n - c0) * sizeof(T));
    KF(K, P, spmv)(upper, n, g->ap, g->xs, acc, c0, c1, g->many);
    /* only inside l2_run's region: called inline, an orphaned barrier
       would bind to a region of the caller's */
#ifdef _OPENMP
    if (team > 1) {
#pragma omp barrier
    }
#endif
    /* sum the accumulators in thread order, over this thread's rows,
       into thread 0's (row i is read and written by this thread only):
       s = 0, then + each accumulator whose columns touch row i */
    LL(P, block)(n, tid, team, &lo, &hi);
    for (int t = 0; t < team; t++) {
        int64_t t0 = LL(P, spmv_split)(upper, n, t, team);
        int64_t t1 = LL(P, spmv_split)(upper, n, t + 1, team);
        /* rows [r0, r1) of [lo, hi) that thread t's columns touch */
        int64_t r0 = upper ? lo : (t0 > lo ? t0 : lo);
        int64_t r1 = upper ? (t1 < hi ? t1 : hi) : hi;
        const T *a = work + (size_t)n * t;
        if (t0 >= t1)
            r1 = r0;
        if (t == 0) {
            for (int64_t i = lo; i < hi; i++)
                work[i] = i >= r0 && i < r1 ? (T)0 + a[i] : (T)0;
        } else {
            for (int64_t i = r0; i < r1; i++)
                work[i] += a[i];
        }
    }
    for (int64_t i = lo; i < hi; i++)
        work[i] *= g->alpha;
    LL(P, update)(n, lo, hi, g->beta, g->y, g->incy, work + lo);
}

nla_status L2(P, spmv)(const nla_exec *ex, nla_uplo uplo, int64_t n, T alpha,
                       const T *ap, const T *x, int64_t incx, T beta, T *y,
                       int64_t incy)
{
    const nla_l2_kernels *K = nla_l2_kernels_get();
    int upper = uplo == NLA_UPPER;
    double entries = (double)n * (n + 1) / 2;
    int nt = LL(P, threads)(ex, entries, n);
    size_t count;
    const T *xs = x;
    T *work;

    if (alpha == 0) {
        LL(P, scale)(n, beta, y, incy);
        return NLA_OK;
    }
    count = (size_t)n * ((size_t)nt + (incx != 1));
    work = LL(P, alloc)(count);
    if (!work)
        return LL(P, nomem)(ex, count * sizeof(T));
    if (incx != 1) {
        LL(P, gather)(n, x, incx, work + (size_t)n * nt);
        xs = work + (size_t)n * nt;
    }

    {
        const char *what;
        int many = l2_spmv_many(upper, entries * sizeof(T), &what);
        struct LL(P, spmv_job) job = { K, upper, many, n, alpha, beta, ap, xs, work, y, incy };
        l2_say(ex, what);
        l2_run(nt, LL(P, spmv_part), &job);
    }
    free(work);
    return NLA_OK;
}

#undef L2_
#undef L2
#undef LL_
#undef LL
#undef KF_
#undef KF
