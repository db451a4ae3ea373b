/*
 * level2_threads.h - test_level2's per-precision threads tests: large
 * problems on 1 and 2 threads (bitwise repeats), the band at every offset
 * of a vector, and calls from inside a caller's parallel region.  Included
 * by tests/test_level2.c after level2_cases.h, with the same macros.
 */

/* ------------------------------------------------------- threads, large */

/* Run routine r on a problem big enough to be threaded, with 1 and 2
   threads, twice each: each against CBLAS, and the repeats bitwise. */
typedef void (*X(runner))(nla_context *ctx, const X(l2case) *c, TT *y);

static void X(run_gemv)(nla_context *ctx, const X(l2case) *c, TT *y)
{
    int64_t lda = c->m + 1;
    int64_t lx = c->trans ? c->m : c->n;
    TT *a = malloc((size_t)(lda * c->n) * sizeof(TT));
    TT *x = X(vec_new)(lx, c->incx, 5, 0);
    cr_assert(a);
    T_FILL(a, (size_t)(lda * c->n), 17);
    cr_assert(NLA(gemv)(ctx, c->trans ? NLA_TRANS : NLA_NO_TRANS, c->m, c->n,
                          (TT)c->alpha, a, lda, x, c->incx, (TT)c->beta, y, c->incy) ==
              NLA_OK);
    check_gemv_form(ctx, c->trans, NULL);
    free(a);
    free(x);
}

static void X(run_gbmv)(nla_context *ctx, const X(l2case) *c, TT *y)
{
    int64_t ldab = c->kl + c->ku + 1;
    int64_t lx = c->trans ? c->m : c->n, len = band_len(c->n, ldab, ldab);
    TT *ab = malloc((size_t)len * sizeof(TT));
    TT *x = X(vec_new)(lx, c->incx, 5, 0);
    cr_assert(ab);
    T_FILL(ab, (size_t)len, 19);
    cr_assert(NLA(gbmv)(ctx, c->trans ? NLA_TRANS : NLA_NO_TRANS, c->m, c->n, c->kl,
                          c->ku, (TT)c->alpha, ab, ldab, x, c->incx, (TT)c->beta, y,
                          c->incy) == NLA_OK);
    check_form(ctx, c->trans);
    free(ab);
    free(x);
}

static void X(run_spmv)(nla_context *ctx, const X(l2case) *c, TT *y)
{
    int64_t np = c->n * (c->n + 1) / 2;
    TT *ap = malloc((size_t)np * sizeof(TT));
    TT *x = X(vec_new)(c->n, c->incx, 5, 0);
    cr_assert(ap);
    T_FILL(ap, (size_t)np, 23);
    cr_assert(NLA(spmv)(ctx, c->uplo == 'U' ? NLA_UPPER : NLA_LOWER, c->n, (TT)c->alpha,
                          ap, x, c->incx, (TT)c->beta, y, c->incy) == NLA_OK);
    check_spmv_form(ctx, c->uplo == 'U', (double)np * sizeof(TT));
    free(ap);
    free(x);
}

/* the CBLAS result for the same data as the runners */
static void X(run_ref)(const X(l2case) *c, TT *y)
{
    int64_t lx = c->trans ? c->m : c->n;
    TT *x = X(vec_new)(lx, c->incx, 5, 0);
    enum CBLAS_TRANSPOSE tr = c->trans ? CblasTrans : CblasNoTrans;

    if (c->routine[1] == 'e') { /* gemv */
        int64_t lda = c->m + 1;
        TT *a = malloc((size_t)(lda * c->n) * sizeof(TT));
        T_FILL(a, (size_t)(lda * c->n), 17);
        CB(gemv)(CblasColMajor, tr, (int)c->m, (int)c->n, (TT)c->alpha, a, (int)lda, x,
                 (int)c->incx, (TT)c->beta, y, (int)c->incy);
        free(a);
    } else if (c->routine[1] == 'b') { /* gbmv */
        int64_t ldab = c->kl + c->ku + 1;
        TT *ab = malloc((size_t)(ldab * c->n) * sizeof(TT));
        T_FILL(ab, (size_t)(ldab * c->n), 19);
        CB(gbmv)(CblasColMajor, tr, (int)c->m, (int)c->n, (int)c->kl, (int)c->ku,
                 (TT)c->alpha, ab, (int)ldab, x, (int)c->incx, (TT)c->beta, y,
                 (int)c->incy);
        free(ab);
    } else {
        int64_t np = c->n * (c->n + 1) / 2;
        TT *ap = malloc((size_t)np * sizeof(TT));
        T_FILL(ap, (size_t)np, 23);
        CB(spmv)(CblasColMajor, c->uplo == 'U' ? CblasUpper : CblasLower, (int)c->n,
                 (TT)c->alpha, ap, x, (int)c->incx, (TT)c->beta, y, (int)c->incy);
        free(ap);
    }
    free(x);
}

static void X(threads_case)(X(runner) run, X(l2case) *c)
{
    nla_context *ctx = ref_cpu_context();
    int64_t ly = c->trans ? c->n : c->m;
    size_t size = vec_size(ly, c->incy);
    /* inner length for the bound: band width for gbmv, else the dimension */
    int64_t kin = c->routine[1] == 'b' ? c->kl + c->ku + 1 : (c->trans ? c->m : c->n);
    TT *yref = X(vec_new)(ly, c->incy, 3, 0), *y[2][2];

    X(run_ref)(c, yref);
    for (c->nt = 1; c->nt <= 2; c->nt++)
        for (int rep = 0; rep < 2; rep++) {
            y[c->nt - 1][rep] = X(vec_new)(ly, c->incy, 3, 0);
            cr_assert(nla_context_set_threads(ctx, c->nt) == NLA_OK);
            run(ctx, c, y[c->nt - 1][rep]);
        }
    /* gemv and gbmv fix each sum's order by the shape alone */
    c->nt = 2; /* (for the message) */
    if (c->routine[1] != 'p')
        cr_assert(memcmp(y[0][0], y[1][0], size * sizeof(TT)) == 0,
                  "%s: 1 and 2 threads give different bits", X(describe)(c));
    for (int t = 0; t < 2; t++) {
        c->nt = t + 1;
        cr_assert(memcmp(y[t][0], y[t][1], size * sizeof(TT)) == 0,
                  "%s: two runs differ", X(describe)(c));
        /* entries are sums of |values| < 1: the bound uses kin as magnitude */
        for (int64_t i = 0; i < ly; i++) {
            double got = y[t][0][at(ly, c->incy, i)], want = yref[at(ly, c->incy, i)];
            double tol = 4.0 * (double)(kin + 2) * T_EPS * (double)(kin + 1);
            cr_assert(fabs(got - want) <= tol, "%s: y[%lld] = %.17g, CBLAS %.17g",
                      X(describe)(c), (long long)i, got, want);
        }
    }
    for (int t = 0; t < 2; t++)
        for (int rep = 0; rep < 2; rep++)
            free(y[t][rep]);
    free(yref);
    nla_context_destroy(ctx);
}

static void X(gemv_threads)(void)
{
    /* column counts that leave groups of four and single columns after
       the passes of 12 or 8 (700, 1300, 301) and single ones only (1850);
       the 200 x 301 matrix takes few columns a pass (within an L2 of 256
       KiB or more), the others many (over it, on an L2 of 1 MiB).  Small
       (valgrind, which hides AVX-512: there many and few are one code),
       290 for the big one: single columns left too */
    const int64_t big = REF_SIZE(sizeof(TT) == 8 ? 1300 : 1850, 290);
    const int64_t dims[3][2] = { { 900, 700 }, { big, big }, { 200, 301 } };
    X(l2case) c = { .routine = "gemv", .alpha = 0.7, .beta = 0.3 };
    for (int d = 0; d < 3; d++)
        for (c.trans = 0; c.trans < 2; c.trans++) {
            c.m = dims[d][0];
            c.n = dims[d][1];
            c.incx = 1;
            c.incy = 1;
            X(threads_case)(X(run_gemv), &c);
            c.incx = -2;
            c.incy = 2;
            X(threads_case)(X(run_gemv), &c);
        }
}

static void X(gbmv_threads)(void)
{
    /* narrow and wide bands (some ku odd, so that the four-column groups
       of Trans fall differently in the 1- and 2-thread blocks), unpadded,
       and a diagonal (by vectors, m != n, a tail past the last whole
       vector): one and two threads must agree bit for bit */
    static const int64_t shapes[][4] = { { 20000, 19000, 9, 5 }, { 60000, 60003, 1, 2 },
                                         { 3001, 3500, 70, 41 }, { 4000, 3000, 40, 23 },
                                         { 5000, 4002, 8, 8 },   { 6000, 6001, 16, 16 },
                                         { 9000, 9001, 4, 4 },   { 7000, 7001, 7, 6 },
                                         { 7000, 7003, 14, 14 }, { 30001, 30003, 0, 0 } };
    X(l2case) c = { .routine = "gbmv", .alpha = 0.7, .beta = 0.3 };
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++)
        for (c.trans = 0; c.trans < 2; c.trans++) {
            c.m = shapes[s][0];
            c.n = shapes[s][1];
            c.kl = shapes[s][2];
            c.ku = shapes[s][3];
            c.incx = 1;
            c.incy = 1;
            c.beta = 0.3;
            X(threads_case)(X(run_gbmv), &c);
            /* beta 1 and 0 start y's sums differently: every form alike */
            c.incx = 2;
            c.incy = -1;
            for (int b1 = 0; b1 < 2; b1++) {
                c.beta = b1;
                X(threads_case)(X(run_gbmv), &c);
            }
        }
}

/* The same band, x and y copied to every offset of a vector's width from
   a 64-byte boundary: the result's bits may not depend on where the
   arrays lie (the Trans kernel for wide bands loads the storage on its
   aligned vectors). */
static void X(gbmv_placement)(void)
{
    static const int64_t shapes[][4] = { { 3000, 3000, 16, 16 }, { 2000, 2100, 64, 64 },
                                         { 2500, 2400, 40, 23 }, { 3000, 2900, 9, 5 } };
    nla_context *ctx = ref_cpu_context();

    for (int s = 0; s < 4; s++)
        for (int trans = 0; trans < 2; trans++) {
            int64_t m = shapes[s][0], n = shapes[s][1], kl = shapes[s][2], ku = shapes[s][3];
            int64_t ldab = kl + ku + 1, lx = trans ? m : n, ly = trans ? n : m;
            size_t nab = (size_t)(ldab * n), pad = 64 / sizeof(TT);
            TT *ab0 = malloc(nab * sizeof(TT)), *x0 = malloc((size_t)lx * sizeof(TT));
            TT *y0 = malloc((size_t)ly * sizeof(TT)), *yref = malloc((size_t)ly * sizeof(TT));
            /* sizes in whole 64-byte lines, as aligned_alloc requires */
            TT *ab = aligned_alloc(64, (nab + 2 * pad) / pad * 64);
            TT *x = aligned_alloc(64, ((size_t)lx + 2 * pad) / pad * 64);
            TT *y = aligned_alloc(64, ((size_t)ly + 2 * pad) / pad * 64);

            cr_assert(ab0 && x0 && y0 && yref && ab && x && y);
            T_FILL(ab0, nab, 29 + (uint64_t)s);
            T_FILL(x0, (size_t)lx, 31);
            T_FILL(y0, (size_t)ly, 37);
            for (size_t off = 0; off < pad; off++) {
                memcpy(ab + off, ab0, nab * sizeof(TT));
                memcpy(x + (pad - 1 - off), x0, (size_t)lx * sizeof(TT));
                memcpy(y + off, y0, (size_t)ly * sizeof(TT));
                cr_assert(NLA(gbmv)(ctx, trans ? NLA_TRANS : NLA_NO_TRANS, m, n, kl, ku, 0.7,
                                    ab + off, ldab, x + (pad - 1 - off), 1, 0.3, y + off,
                                    1) == NLA_OK);
                check_form(ctx, trans);
                if (off == 0)
                    memcpy(yref, y, (size_t)ly * sizeof(TT));
                cr_assert(memcmp(y + off, yref, (size_t)ly * sizeof(TT)) == 0,
                          "%cgbmv trans=%c m=%lld n=%lld kl=%lld ku=%lld: the band %zu "
                          "elements past a 64-byte boundary gives other bits",
                          sizeof(TT) == 8 ? 'd' : 's', trans ? 'T' : 'N', (long long)m, (long long)n,
                          (long long)kl, (long long)ku, off);
            }
            free(ab0);
            free(x0);
            free(y0);
            free(yref);
            free(ab);
            free(x);
            free(y);
        }
    nla_context_destroy(ctx);
}

static void X(spmv_threads)(void)
{
    X(l2case) c = { .routine = "spmv", .alpha = 0.7, .beta = 0.3 };
    c.m = c.n = 1100;
    for (int u = 0; u < 2; u++) {
        c.uplo = u ? 'L' : 'U';
        c.incx = 1;
        c.incy = 1;
        X(threads_case)(X(run_spmv), &c);
        c.incx = -1;
        c.incy = -2;
        X(threads_case)(X(run_spmv), &c);
    }
}


#ifdef _OPENMP
/* ---------------------------------------- inside the caller's region */

static nla_status X(call)(nla_context *ctx, const X(l2case) *c, const TT *a, const TT *x,
                          TT *y)
{
    nla_trans tr = c->trans ? NLA_TRANS : NLA_NO_TRANS;

    if (c->routine[1] == 'e')
        return NLA(gemv)(ctx, tr, c->m, c->n, (TT)c->alpha, a, c->m, x, 1, (TT)c->beta, y,
                         1);
    if (c->routine[1] == 'b')
        return NLA(gbmv)(ctx, tr, c->m, c->n, c->kl, c->ku, (TT)c->alpha, a,
                         c->kl + c->ku + 1, x, 1, (TT)c->beta, y, 1);
    return NLA(spmv)(ctx, c->uplo == 'U' ? NLA_UPPER : NLA_LOWER, c->n, (TT)c->alpha, a, x,
                     1, (TT)c->beta, y, 1);
}

/*
 * Calls made from inside a parallel region of the caller's, four threads:
 * thread t makes t + 1 calls of each routine, on a context and a y of its
 * own, with a context of one thread (the library runs the call inline) and
 * of two (its region nests: one thread, unless the caller enabled nested
 * parallelism).  An OpenMP barrier of the library's that bound to the
 * caller's region would hang here, since the threads make different
 * numbers of calls; team numbers taken from the caller's region would
 * give each thread a part of y only.  Every y must equal the same call
 * made outside the region: bitwise for gemv and gbmv, whose bits do not
 * depend on the thread count, and within the threads tests' bound for
 * spmv, whose do.
 */
#define INSIDE_THREADS 4
static void X(inside_region)(void)
{
    static const X(l2case) cases[] = {
        { .routine = "gemv", .trans = 0, .m = 300, .n = 200 },
        { .routine = "gemv", .trans = 1, .m = 1500, .n = 1400 },
        { .routine = "gbmv", .trans = 0, .m = 3000, .n = 2900, .kl = 9, .ku = 5 },
        { .routine = "gbmv", .trans = 1, .m = 9000, .n = 9001, .kl = 16, .ku = 16 },
        { .routine = "spmv", .uplo = 'U', .m = 150, .n = 150 },
        { .routine = "spmv", .uplo = 'L', .m = 1100, .n = 1100 },
    };

    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int nt = 1; nt <= 2; nt++) {
            X(l2case) c = cases[k];
            int spmv = c.routine[1] == 'p', gbmv = c.routine[1] == 'b';
            int64_t lx = c.trans ? c.m : c.n, ly = c.trans ? c.n : c.m;
            size_t na = spmv ? (size_t)(c.n * (c.n + 1) / 2)
                             : (size_t)((gbmv ? c.kl + c.ku + 1 : c.m) * c.n);
            TT *a = malloc(na * sizeof(TT)), *x = malloc((size_t)lx * sizeof(TT));
            TT *y0 = malloc((size_t)ly * sizeof(TT)), *ysolo = malloc((size_t)ly * sizeof(TT));
            TT *y[INSIDE_THREADS];
            nla_status st[INSIDE_THREADS];
            nla_context *ctx = ref_cpu_context();
            /* spmv: an entry is a sum of n products of |values| < 1 */
            double tol = 2 * 4.0 * (double)(c.n + 2) * T_EPS * (double)(c.n + 1);

            c.alpha = 0.7;
            c.beta = 0.3;
            c.incx = c.incy = 1;
            c.nt = nt;
            cr_assert(a && x && y0 && ysolo);
            T_FILL(a, na, 41 + (uint64_t)k);
            T_FILL(x, (size_t)lx, 43);
            T_FILL(y0, (size_t)ly, 47);
            memcpy(ysolo, y0, (size_t)ly * sizeof(TT));
            cr_assert(nla_context_set_threads(ctx, nt) == NLA_OK);
            cr_assert(X(call)(ctx, &c, a, x, ysolo) == NLA_OK, "%s: %s", X(describe)(&c),
                      nla_context_error(ctx));
            nla_context_destroy(ctx);
            for (int t = 0; t < INSIDE_THREADS; t++) {
                y[t] = malloc((size_t)ly * sizeof(TT));
                cr_assert(y[t]);
                st[t] = NLA_EINVAL;
            }
#pragma omp parallel num_threads(INSIDE_THREADS)
            {
                int t = omp_get_thread_num();
                nla_context *mine = NULL;
                nla_status s = nla_context_create(&mine, NLA_BACKEND_CPU);
                if (s == NLA_OK)
                    s = nla_context_set_threads(mine, nt);
                for (int r = 0; r <= t && s == NLA_OK; r++) {
                    memcpy(y[t], y0, (size_t)ly * sizeof(TT));
                    s = X(call)(mine, &c, a, x, y[t]);
                }
                st[t] = s;
                nla_context_destroy(mine);
            }
            for (int t = 0; t < INSIDE_THREADS; t++) {
                cr_assert(st[t] == NLA_OK, "%s: caller's thread %d: status %d",
                          X(describe)(&c), t, (int)st[t]);
                if (!spmv)
                    cr_assert(memcmp(y[t], ysolo, (size_t)ly * sizeof(TT)) == 0,
                              "%s: caller's thread %d gives other bits than a call "
                              "outside its region", X(describe)(&c), t);
                for (int64_t i = 0; spmv && i < ly; i++)
                    cr_assert(fabs((double)y[t][i] - (double)ysolo[i]) <= tol,
                              "%s: caller's thread %d: y[%lld] = %.17g, outside its "
                              "region %.17g", X(describe)(&c), t, (long long)i,
                              (double)y[t][i], (double)ysolo[i]);
                free(y[t]);
            }
            free(a);
            free(x);
            free(y0);
            free(ysolo);
        }
}
#undef INSIDE_THREADS
#endif /* _OPENMP */
