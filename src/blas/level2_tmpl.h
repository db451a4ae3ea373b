/*
 * level2_tmpl.h - the CPU level-2 BLAS drivers, one copy per precision.
 * Included by level2.c with T (the element type) and P (d or s) defined.
 *
 * The drivers reduce every case to unit-stride vectors (a strided or
 * reversed x is copied, pre-scaled by alpha where that is free; a strided y
 * is accumulated in a temporary) and call the per-ISA inner kernels
 * (kernels/kernels.h).  Threads split the output:
 *   - gemv/gbmv NoTrans: row blocks of y (column-axpy form inside a block);
 *   - gemv/gbmv Trans:   blocks of y's elements (one dot each);
 *   - spmv:              column blocks with private accumulators, summed in
 *                        thread order (each stored entry is read once).
 * Block boundaries are multiples of L2_ALIGN elements, and the kernels fix
 * their summation order, so gemv and gbmv give the same bits for any
 * thread count; spmv's result depends on the thread count (fixed order for
 * a fixed count).  Problems below L2_THREAD_WORK run on one thread.
 */
#define L2_(p, name) nla_cpu_##p##name
#define L2(p, name) L2_(p, name)
#define LL_(p, name) p##l2_##name
#define LL(p, name) LL_(p, name)
#define KF_(k, p, name) ((k)->p##name)
#define KF(k, p, name) KF_(k, p, name)

/* Elements of x[] (or y[]) addressed by BLAS increment inc for index i. */
static inline int64_t LL(P, at)(int64_t len, int64_t inc, int64_t i)
{
    return inc > 0 ? i * inc : (len - 1 - i) * -inc;
}

/* dst[i] = s * x(i), unit stride */
static void LL(P, gather)(int64_t len, T s, const T *x, int64_t inc, T *dst)
{
    if (inc == 1) {
        for (int64_t i = 0; i < len; i++)
            dst[i] = s * x[i];
    } else {
        for (int64_t i = 0; i < len; i++)
            dst[i] = s * x[LL(P, at)(len, inc, i)];
    }
}

/* y(i) = beta*y(i) + r[i] for i in [lo, hi); beta == 0 does not read y */
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
    for (int64_t i = 0; i < len; i++)
        y[i * step] = beta == 0 ? 0 : beta * y[i * step];
}

/* Threads for a problem touching `work` matrix entries, and the block
   [lo, hi) of len output elements for thread tid (aligned boundaries). */
static int LL(P, threads)(const nla_exec *ex, double work, int64_t len)
{
    int nt = ex->nthreads > 1 ? ex->nthreads : 1;
    int64_t maxnt = (len + L2_ALIGN - 1) / L2_ALIGN;

    if (work < L2_THREAD_WORK)
        return 1;
    return maxnt < nt ? (int)maxnt : nt;
}

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

/* ---------------------------------------------------------------- gemv */

/* Rows [lo, hi) of y = beta*y + A*xs (xs = alpha*x, unit stride). */
static void LL(P, gemv_rows)(const nla_kernels *K, int64_t m, int64_t n, const T *a,
                             int64_t lda, const T *xs, T beta, T *y, int64_t incy,
                             T *r, int64_t lo, int64_t hi)
{
    if (incy == 1) {
        LL(P, scale)(hi - lo, beta, y + lo, 1);
        KF(K, P, gemv_n)(hi - lo, n, a + lo, lda, xs, y + lo);
        return;
    }
    for (int64_t i = lo; i < hi; i++)
        r[i - lo] = 0;
    KF(K, P, gemv_n)(hi - lo, n, a + lo, lda, xs, r);
    LL(P, update)(m, lo, hi, beta, y, incy, r);
}

/* Elements [lo, hi) of y = beta*y + alpha*A'*x (x unit stride). */
static void LL(P, gemv_cols)(const nla_kernels *K, int64_t m, int64_t n, T alpha,
                             const T *a, int64_t lda, const T *xs, T beta, T *y,
                             int64_t incy, T *r, int64_t lo, int64_t hi)
{
    KF(K, P, gemv_t)(m, hi - lo, a + lo * lda, lda, xs, r);
    for (int64_t j = 0; j < hi - lo; j++)
        r[j] *= alpha;
    LL(P, update)(n, lo, hi, beta, y, incy, r);
}

nla_status L2(P, gemv)(const nla_exec *ex, nla_trans trans, int64_t m, int64_t n,
                       T alpha, const T *a, int64_t lda, const T *x, int64_t incx,
                       T beta, T *y, int64_t incy)
{
    const nla_kernels *K = nla_kernels_get();
    int notrans = trans == NLA_NO_TRANS;
    int64_t lx = notrans ? n : m, ly = notrans ? m : n;
    int nt = LL(P, threads)(ex, (double)m * n, ly);
    int unitx = incx == 1 && !notrans;
    size_t count = (unitx ? 0 : (size_t)lx) + (size_t)ly;
    T *work, *xs;

    if (alpha == 0) {
        LL(P, scale)(ly, beta, y, incy);
        return NLA_OK;
    }
    work = LL(P, alloc)(count);
    if (!work)
        return LL(P, nomem)(ex, count * sizeof(T));
    /* NoTrans folds alpha into the copy of x; Trans scales the dots */
    xs = unitx ? (T *)x : work + ly;
    if (!unitx)
        LL(P, gather)(lx, notrans ? alpha : 1, x, incx, xs);

#pragma omp parallel num_threads(nt) if (nt > 1)
    {
#ifdef _OPENMP
        int tid = omp_get_thread_num(), team = omp_get_num_threads();
#else
        int tid = 0, team = 1;
#endif
        int64_t lo, hi;
        LL(P, block)(ly, tid, team, &lo, &hi);
        if (notrans)
            LL(P, gemv_rows)(K, m, n, a, lda, xs, beta, y, incy, work + lo, lo, hi);
        else
            LL(P, gemv_cols)(K, m, n, alpha, a, lda, xs, beta, y, incy, work + lo,
                             lo, hi);
    }
    free(work);
    return NLA_OK;
}

/* ---------------------------------------------------------------- gbmv */

/* Rows [lo, hi) of r = A*xs, band A (column-axpy form). */
static void LL(P, gbmv_rows)(const nla_kernels *K, int64_t n, int64_t kl, int64_t ku,
                             const T *ab, int64_t ldab, const T *xs, T *r,
                             int64_t lo, int64_t hi)
{
    int64_t j0 = lo - kl > 0 ? lo - kl : 0;
    int64_t j1 = hi - 1 + ku < n - 1 ? hi - 1 + ku : n - 1;

    for (int64_t i = lo; i < hi; i++)
        r[i - lo] = 0;
    for (int64_t j = j0; j <= j1; j++) {
        int64_t i0 = j - ku > lo ? j - ku : lo;
        int64_t i1 = j + kl < hi - 1 ? j + kl : hi - 1;
        if (i0 <= i1)
            KF(K, P, axpy)(i1 - i0 + 1, xs[j], ab + ku + i0 - j + j * ldab, r + i0 - lo);
    }
}

/* Elements [lo, hi) of r = A'*xs, band A (one dot per column). */
static void LL(P, gbmv_cols)(const nla_kernels *K, int64_t m, int64_t kl, int64_t ku,
                             const T *ab, int64_t ldab, const T *xs, T *r,
                             int64_t lo, int64_t hi)
{
    for (int64_t j = lo; j < hi; j++) {
        int64_t i0 = j - ku > 0 ? j - ku : 0;
        int64_t i1 = j + kl < m - 1 ? j + kl : m - 1;
        r[j - lo] = i0 <= i1 ? KF(K, P, dot)(i1 - i0 + 1, ab + ku + i0 - j + j * ldab,
                                             xs + i0)
                             : 0;
    }
}

nla_status L2(P, gbmv)(const nla_exec *ex, nla_trans trans, int64_t m, int64_t n,
                       int64_t kl, int64_t ku, T alpha, const T *ab, int64_t ldab,
                       const T *x, int64_t incx, T beta, T *y, int64_t incy)
{
    const nla_kernels *K = nla_kernels_get();
    int notrans = trans == NLA_NO_TRANS;
    int64_t lx = notrans ? n : m, ly = notrans ? m : n;
    double band = (double)(kl < m ? kl : m) + (double)(ku < n ? ku : n) + 1;
    int nt = LL(P, threads)(ex, band * (double)(m < n ? m : n), ly);
    size_t count = (size_t)lx + (size_t)ly;
    T *work, *xs;

    if (alpha == 0) {
        LL(P, scale)(ly, beta, y, incy);
        return NLA_OK;
    }
    work = LL(P, alloc)(count);
    if (!work)
        return LL(P, nomem)(ex, count * sizeof(T));
    xs = work + ly;
    LL(P, gather)(lx, 1, x, incx, xs);

#pragma omp parallel num_threads(nt) if (nt > 1)
    {
#ifdef _OPENMP
        int tid = omp_get_thread_num(), team = omp_get_num_threads();
#else
        int tid = 0, team = 1;
#endif
        int64_t lo, hi;
        LL(P, block)(ly, tid, team, &lo, &hi);
        if (lo < hi) {
            if (notrans)
                LL(P, gbmv_rows)(K, n, kl, ku, ab, ldab, xs, work + lo, lo, hi);
            else
                LL(P, gbmv_cols)(K, m, kl, ku, ab, ldab, xs, work + lo, lo, hi);
            for (int64_t i = lo; i < hi; i++)
                work[i] *= alpha;
            LL(P, update)(ly, lo, hi, beta, y, incy, work + lo);
        }
    }
    free(work);
    return NLA_OK;
}

/* ---------------------------------------------------------------- spmv */

/* Columns [j0, j1) of the packed matrix into acc (length n, zeroed on the
   rows these columns touch); each stored entry is read once and serves
   both A(i,j) and A(j,i). */
static void LL(P, spmv_cols)(const nla_kernels *K, int upper, int64_t n,
                             const T *ap, const T *xs, T *acc, int64_t j0, int64_t j1)
{
    if (upper) {
        for (int64_t i = 0; i < j1; i++)
            acc[i] = 0;
        for (int64_t j = j0; j < j1; j++) {
            const T *col = ap + j * (j + 1) / 2;
            T s = KF(K, P, axpy_dot)(j, xs[j], col, xs, acc);
            acc[j] += xs[j] * col[j] + s;
        }
    } else {
        for (int64_t i = j0; i < n; i++)
            acc[i] = 0;
        for (int64_t j = j0; j < j1; j++) {
            const T *col = ap + j * (2 * n - j - 1) / 2;
            T s = KF(K, P, axpy_dot)(n - j - 1, xs[j], col + j + 1, xs + j + 1,
                                     acc + j + 1);
            acc[j] += xs[j] * col[j] + s;
        }
    }
}

/* Column split with equal shares of the triangle: thread t of nt gets the
   columns up to where the stored entries reach (t+1)/nt of the total. */
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

nla_status L2(P, spmv)(const nla_exec *ex, nla_uplo uplo, int64_t n, T alpha,
                       const T *ap, const T *x, int64_t incx, T beta, T *y,
                       int64_t incy)
{
    const nla_kernels *K = nla_kernels_get();
    int upper = uplo == NLA_UPPER;
    int nt = LL(P, threads)(ex, (double)n * (n + 1) / 2, n);
    size_t count;
    T *work, *xs;

    if (alpha == 0) {
        LL(P, scale)(n, beta, y, incy);
        return NLA_OK;
    }
    count = (size_t)n * ((size_t)nt + 1);
    work = LL(P, alloc)(count);
    if (!work)
        return LL(P, nomem)(ex, count * sizeof(T));
    xs = work + (size_t)n * nt;
    LL(P, gather)(n, 1, x, incx, xs);

#pragma omp parallel num_threads(nt) if (nt > 1)
    {
#ifdef _OPENMP
        int tid = omp_get_thread_num(), team = omp_get_num_threads();
#else
        int tid = 0, team = 1;
#endif
        int64_t lo, hi;
        LL(P, spmv_cols)(K, upper, n, ap, xs, work + (size_t)n * tid,
                         LL(P, spmv_split)(upper, n, tid, team),
                         LL(P, spmv_split)(upper, n, tid + 1, team));
#pragma omp barrier
        /* sum the accumulators in thread order, over this thread's rows */
        LL(P, block)(n, tid, team, &lo, &hi);
        for (int64_t i = lo; i < hi; i++) {
            T s = 0;
            for (int t = 0; t < team; t++) {
                int64_t c0 = LL(P, spmv_split)(upper, n, t, team);
                int64_t c1 = LL(P, spmv_split)(upper, n, t + 1, team);
                /* rows thread t touched: [0, c1) upper, [c0, n) lower */
                if (c0 < c1 && (upper ? i < c1 : i >= c0))
                    s += work[(size_t)n * t + i];
            }
            work[i] = alpha * s; /* row i is read and written by this thread only */
        }
        LL(P, update)(n, lo, hi, beta, y, incy, work + lo);
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
