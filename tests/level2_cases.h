/*
 * level2_cases.h - test_level2's per-precision cases: the case record, its
 * checks against CBLAS, and the gemv, gbmv and spmv sweeps.  Included by
 * tests/test_level2.c once per precision, with TT (the type), TP (its
 * letter), T_EPS, T_FILL and CB defined.
 */

/* A case: the routine's dense m x n matrix (for the error bound) and the
   call parameters. */
typedef struct X(l2case) {
    const char *routine;
    int trans;               /* 0 NoTrans, 1 Trans (spmv: 0) */
    int64_t m, n, kl, ku;
    double alpha, beta;
    int nan_y;
    int64_t incx, incy;
    int nt;
    char uplo;               /* spmv */
    int64_t lda;             /* gemv; 0: m + 3 */
    const char *form;        /* gemv: the form it must choose, or NULL */
} X(l2case);

static char X(desc)[256];

static const char *X(describe)(const X(l2case) *c)
{
    snprintf(X(desc), sizeof X(desc),
             "%s%s trans=%c uplo=%c m=%lld n=%lld kl=%lld ku=%lld alpha=%g beta=%g%s "
             "incx=%lld incy=%lld threads=%d",
             PS(TP), c->routine, c->trans ? 'T' : 'N', c->uplo ? c->uplo : '-',
             (long long)c->m, (long long)c->n, (long long)c->kl, (long long)c->ku,
             c->alpha, c->beta, c->nan_y ? "(NaN y)" : "", (long long)c->incx,
             (long long)c->incy, c->nt);
    return X(desc);
}

/* A strided vector: pattern elements random (or NaN), others SENTINEL. */
static TT *X(vec_new)(int64_t len, int64_t inc, uint64_t seed, int nan)
{
    size_t size = vec_size(len, inc);
    TT *v = malloc(size * sizeof(TT));
    TT *tmp = malloc((len > 0 ? (size_t)len : 1) * sizeof(TT));

    cr_assert(v && tmp);
    for (size_t i = 0; i < size; i++)
        v[i] = (TT)SENTINEL;
    T_FILL(tmp, (size_t)len, seed);
    for (int64_t i = 0; i < len; i++)
        v[at(len, inc, i)] = nan ? (TT)NAN : tmp[i];
    free(tmp);
    return v;
}

/*
 * Compare y (from libnla) with yref (from CBLAS), element by element, with
 * the bound from the dense matrix dense (m x n, column-major, op by trans),
 * x and the original y (y0; zeros when beta == 0).
 */
static void X(check_y)(const X(l2case) *c, const double *dense, const TT *x,
                       const TT *y0, const TT *yin, const TT *y, const TT *yref)
{
    int64_t lx = c->trans ? c->m : c->n, ly = c->trans ? c->n : c->m;
    int64_t kin = lx;
    size_t size = vec_size(ly, c->incy);
    double beta = c->nan_y ? 0 : c->beta;

    if (c->m == 0 || c->n == 0) {
        /* the BLAS quick return: y is not touched, NaN included */
        for (size_t p = 0; p < size; p++)
            cr_assert(memcmp(&y[p], &yin[p], sizeof(TT)) == 0,
                      "%s: y slot %zu changed by a quick-return call", X(describe)(c), p);
        return;
    }
    for (int64_t i = 0; i < ly; i++) {
        double mag = fabs(beta * y0[at(ly, c->incy, i)]), tol, got, want;
        for (int64_t l = 0; l < lx && c->alpha != 0; l++) {
            double aij = c->trans ? dense[l + i * c->m] : dense[i + l * c->m];
            mag += fabs(c->alpha * aij * x[at(lx, c->incx, l)]);
        }
        tol = 4.0 * (double)(kin + 2) * T_EPS * mag;
        got = y[at(ly, c->incy, i)];
        want = yref[at(ly, c->incy, i)];
        cr_assert(!isnan(got) && fabs(got - want) <= tol,
                  "%s: y[%lld] = %.17g, CBLAS %.17g, |err| %.3g > tol %.3g",
                  X(describe)(c), (long long)i, got, want, fabs(got - want), tol);
    }
    for (size_t p = 0; p < size; p++) {
        int stride_slot = ly > 0 && p < (size_t)(ly - 1) * (size_t)llabs(c->incy) + 1 &&
                          p % (size_t)llabs(c->incy) == 0;
        if (!stride_slot)
            cr_assert(y[p] == (TT)SENTINEL, "%s: y slot %zu between elements changed to %g",
                      X(describe)(c), p, (double)y[p]);
    }
}

/* y buffers for a case: y (for libnla), yref (CBLAS), y0 (the original,
   zeros for NaN), yin (the original as given, NaN included) */
static void X(make_y)(const X(l2case) *c, int64_t ly, TT **y, TT **yref, TT **y0,
                      TT **yin)
{
    size_t size = vec_size(ly, c->incy);
    *y = X(vec_new)(ly, c->incy, 2000 + (uint64_t)ly, c->nan_y);
    *yref = malloc(size * sizeof(TT));
    *y0 = malloc(size * sizeof(TT));
    *yin = malloc(size * sizeof(TT));
    cr_assert(*yref && *y0 && *yin);
    memcpy(*yin, *y, size * sizeof(TT));
    memcpy(*yref, *y, size * sizeof(TT));
    if (c->nan_y)
        for (int64_t i = 0; i < ly; i++)
            (*yref)[at(ly, c->incy, i)] = 0;
    memcpy(*y0, *yref, size * sizeof(TT));
}

/* ---------------------------------------------------------------- gemv */

static void X(gemv_case)(nla_context *ctx, const X(l2case) *c)
{
    int64_t m = c->m, n = c->n, lda = c->lda ? c->lda : (m > 1 ? m : 1) + 3;
    int64_t lx = c->trans ? m : n, ly = c->trans ? n : m;
    TT *a = malloc((size_t)(lda * (n > 0 ? n : 1)) * sizeof(TT));
    double *dense = malloc((size_t)(m * n + 1) * sizeof(double));
    TT *x = X(vec_new)(lx, c->incx, 1000 + (uint64_t)lx, 0), *y, *yref, *y0, *yin;
    TT beta = (TT)(c->nan_y ? 0 : c->beta), alpha = (TT)c->alpha;
    nla_status st;

    cr_assert(a && dense);
    T_FILL(a, (size_t)(lda * n), 7 + (uint64_t)(m * 131 + n));
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < lda; i++) {
            if (i >= m)
                a[i + j * lda] = (TT)NAN; /* padding is never read */
            else
                dense[i + j * m] = a[i + j * lda];
        }
    X(make_y)(c, ly, &y, &yref, &y0, &yin);
    cr_assert(nla_context_set_threads(ctx, c->nt) == NLA_OK);
    st = NLA(gemv)(ctx, c->trans ? NLA_TRANS : NLA_NO_TRANS, m, n, alpha,
                     c->alpha == 0 ? NULL : a, lda, c->alpha == 0 ? NULL : x, c->incx,
                     beta, y, c->incy);
    cr_assert(st == NLA_OK, "%s: status %d (%s)", X(describe)(c), st,
              nla_context_error(ctx));
    if (c->alpha != 0 && m > 0 && n > 0)
        check_gemv_form(ctx, c->trans, c->form);
    CB(gemv)(CblasColMajor, c->trans ? CblasTrans : CblasNoTrans, (int)m, (int)n, alpha, a,
             (int)lda, x, (int)c->incx, beta, yref, (int)c->incy);
    X(check_y)(c, dense, x, y0, yin, y, yref);
    free(a);
    free(dense);
    free(x);
    free(y);
    free(yref);
    free(y0);
    free(yin);
}

static void X(gemv_sweep)(void)
{
    nla_context *ctx = ref_cpu_context();
    X(l2case) c = { .routine = "gemv", .incx = 1, .incy = 1 };

    for (c.nt = 1; c.nt <= 2; c.nt++)
        for (size_t im = 0; im < NSIZES; im++)
            for (size_t in = 0; in < NSIZES; in++)
                for (c.trans = 0; c.trans < 2; c.trans++)
                    for (size_t ia = 0; ia < 3; ia++)
                        for (size_t ib = 0; ib < 4; ib++) {
                            c.m = sizes[im];
                            c.n = sizes[in];
                            c.alpha = alphas[ia];
                            c.nan_y = betas[ib] < 0;
                            c.beta = c.nan_y ? 0 : betas[ib];
                            X(gemv_case)(ctx, &c);
                        }
    nla_context_destroy(ctx);
}

static void X(gemv_lda)(void);
static void X(gemv_passes)(void);

/* strided and reversed x and y; then the columns a pass chosen by lda */
static void X(gemv_incs)(void)
{
    static const int64_t dims[][2] = { { 1, 1 }, { 3, 2 }, { 17, 64 }, { 129, 3 } };
    nla_context *ctx = ref_cpu_context();
    X(l2case) c = { .routine = "gemv", .nt = 1, .alpha = 0.7 };

    for (size_t d = 0; d < 4; d++)
        for (size_t ix = 0; ix < 4; ix++)
            for (size_t iy = 0; iy < 4; iy++)
                for (c.trans = 0; c.trans < 2; c.trans++)
                    for (c.nan_y = 0; c.nan_y < 2; c.nan_y++) {
                        c.m = dims[d][0];
                        c.n = dims[d][1];
                        c.incx = incs[ix];
                        c.incy = incs[iy];
                        c.beta = c.nan_y ? 0 : 0.7;
                        X(gemv_case)(ctx, &c);
                    }
    nla_context_destroy(ctx);
    X(gemv_passes)();
    if (!want_form_gemv)
        X(gemv_lda)();
}

/* A Trans column's sum has the same bits whichever pass takes it: the
   columns of a 17-column call (a pass of 12 or 4, then 4s, then one)
   against each column alone, one thread */
static void X(gemv_passes)(void)
{
    enum { M = 300, LDA = 303, N = 17 };
    nla_context *ctx = ref_cpu_context();
    TT *a = malloc((size_t)LDA * N * sizeof(TT)), x[M], y[N], y1;

    cr_assert(a);
    T_FILL(a, (size_t)LDA * N, 77);
    T_FILL(x, M, 79);
    cr_assert(nla_context_set_threads(ctx, 1) == NLA_OK);
    cr_assert(NLA(gemv)(ctx, NLA_TRANS, M, N, (TT)0.7, a, LDA, x, 1, 0, y, 1) == NLA_OK);
    for (int64_t j = 0; j < N; j++) {
        cr_assert(NLA(gemv)(ctx, NLA_TRANS, M, 1, (TT)0.7, a + j * LDA, LDA, x, 1, 0, &y1,
                            1) == NLA_OK);
        cr_assert(memcmp(&y1, &y[j], sizeof(TT)) == 0,
                  "%sgemv T column %lld: %a in a 17-column call, %a alone", PS(TP),
                  (long long)j, (double)y[j], (double)y1);
    }
    nla_context_destroy(ctx);
    free(a);
}

/* gemv's columns a pass as chosen: many for a matrix over gemv_many_bytes,
   unless many columns lda apart would share L1 sets (lda * size a multiple
   of 4 KiB: with the AVX-512 table, and with the others' eight NoTrans
   columns); else few */
static void X(gemv_lda)(void)
{
    const int64_t crowd = 4096 / (int64_t)sizeof(TT);
    const int64_t ldas[] = { 303, crowd, 2 * crowd, crowd + 16 };
    const int64_t many = nla_cpu_config_value("gemv_many_bytes");
    int avx512 = !strcmp(nla_cpu_isa(), "avx512");
    nla_context *ctx = ref_cpu_context();
    X(l2case) c = { .routine = "gemv", .nt = 1, .alpha = 0.7, .beta = 0.3, .incx = 1,
                    .incy = 1, .m = 300 };

    /* (valgrind hides AVX-512, and the other tables' many and few passes
       are the same code: only the small matrices there) */
    int bigs = getenv("NLA_UNDER_VALGRIND") ? 1 : 2;

    cr_assert(many > 0);
    for (size_t k = 0; k < sizeof ldas / sizeof ldas[0]; k++)
        for (int big = 0; big < bigs; big++)
            for (c.trans = 0; c.trans < 2; c.trans++) {
                int crowded = ldas[k] % crowd == 0 && (avx512 || !c.trans);
                c.lda = ldas[k];
                /* over gemv_many_bytes, a group of 4 and single columns left;
                   or within it */
                int64_t under = many / (c.m * (int64_t)sizeof(TT));
                c.n = big ? under / 12 * 12 + 19 : under < 41 ? (under > 1 ? under : 1) : 41;
                c.form = big && !crowded ? "many" : "few";
                X(gemv_case)(ctx, &c);
            }
    nla_context_destroy(ctx);
}

/* ---------------------------------------------------------------- gbmv */

static void X(gbmv_case)(nla_context *ctx, const X(l2case) *c)
{
    /* padded storage, or none (the narrow forms' vector path); the array
       ends with the last column's band, not its padding, so that ASan and
       valgrind see any read past the entries that gbmv may read */
    int64_t m = c->m, n = c->n, kl = c->kl, ku = c->ku, ldab = kl + ku + 1 + (m + n) % 2;
    int64_t lx = c->trans ? m : n, ly = c->trans ? n : m;
    int64_t len = band_len(n, ldab, kl + ku + 1);
    TT *ab = malloc((size_t)len * sizeof(TT));
    double *dense = calloc((size_t)(m * n + 1), sizeof(double));
    TT *x = X(vec_new)(lx, c->incx, 1000 + (uint64_t)lx, 0), *y, *yref, *y0, *yin;
    TT beta = (TT)(c->nan_y ? 0 : c->beta), alpha = (TT)c->alpha;
    nla_status st;

    cr_assert(ab && dense);
    T_FILL(ab, (size_t)len, 11 + (uint64_t)(m * 131 + n));
    /* only the band of the m x n matrix is stored: NaN elsewhere */
    for (int64_t j = 0; j < n; j++)
        for (int64_t r = 0; r < ldab && r + j * ldab < len; r++) {
            int64_t i = r - ku + j;
            if (r > kl + ku || i < 0 || i >= m)
                ab[r + j * ldab] = (TT)NAN;
            else
                dense[i + j * m] = ab[r + j * ldab];
        }
    X(make_y)(c, ly, &y, &yref, &y0, &yin);
    cr_assert(nla_context_set_threads(ctx, c->nt) == NLA_OK);
    st = NLA(gbmv)(ctx, c->trans ? NLA_TRANS : NLA_NO_TRANS, m, n, kl, ku, alpha,
                     c->alpha == 0 ? NULL : ab, ldab, c->alpha == 0 ? NULL : x, c->incx,
                     beta, y, c->incy);
    cr_assert(st == NLA_OK, "%s: status %d (%s)", X(describe)(c), st,
              nla_context_error(ctx));
    if (c->alpha != 0 && m > 0 && n > 0)
        check_form(ctx, c->trans);
    CB(gbmv)(CblasColMajor, c->trans ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)kl,
             (int)ku, alpha, ab, (int)ldab, x, (int)c->incx, beta, yref, (int)c->incy);
    X(check_y)(c, dense, x, y0, yin, y, yref);
    free(ab);
    free(dense);
    free(x);
    free(y);
    free(yref);
    free(y0);
    free(yin);
}

/* band widths: 0, 1, 2, 5, n-1 and more than the matrix */
#define NWIDTHS 6
static int64_t X(width)(int w, int64_t n)
{
    static const int64_t fixed[] = { 0, 1, 2, 5 };
    if (w < 4)
        return fixed[w];
    return w == 4 ? (n > 1 ? n - 1 : 0) : n + 2;
}

static void X(gbmv_sweep)(void)
{
    static const int64_t gsizes[] = { 0, 1, 2, 3, 17, 64 };
    nla_context *ctx = ref_cpu_context();
    X(l2case) c = { .routine = "gbmv", .incx = 1, .incy = 1, .nt = 1 };

    for (size_t im = 0; im < 6; im++)
        for (size_t in = 0; in < 6; in++)
            for (int wl = 0; wl < NWIDTHS; wl++)
                for (int wu = 0; wu < NWIDTHS; wu++)
                    for (c.trans = 0; c.trans < 2; c.trans++)
                        for (size_t ia = 0; ia < 3; ia++)
                            for (size_t ib = 0; ib < 4; ib++) {
                                /* every alpha/beta at one band shape, else one */
                                if ((wl != 2 || wu != 1) && (ia != 2 || ib != 2))
                                    continue;
                                c.m = gsizes[im];
                                c.n = gsizes[in];
                                c.kl = X(width)(wl, c.m);
                                c.ku = X(width)(wu, c.n);
                                c.alpha = alphas[ia];
                                c.nan_y = betas[ib] < 0;
                                c.beta = c.nan_y ? 0 : betas[ib];
                                X(gbmv_case)(ctx, &c);
                            }
    /* whole columns between the edges, bands of 9 and more (Trans, AVX2
       and AVX-512: transposed blocks, the remainder gathered (AVX2),
       entry by entry or as one more block, and the aligned vector form),
       unpadded (m+n even) and padded */
    {
        /* (256 with {0, 15}: unpadded, 16 entries a column, so that the
           last vector group ends at the last column, where the loads past
           the band must stop; kl = 0 makes it whole) */
        static const int64_t dims[][2] = { { 300, 300 }, { 300, 257 }, { 257, 300 },
                                           { 256, 256 } };
        /* (AVX-512 float: bands of 9 to 31, and 42, in slabs of 8 rows,
           the last one w mod 8 = 0 to 7 rows) */
        static const int64_t bands[][2] = { { 16, 16 }, { 20, 13 }, { 40, 40 }, { 3, 60 },
                                            { 4, 4 },   { 6, 7 },   { 8, 8 },   { 10, 12 },
                                            { 0, 8 },   { 12, 0 },  { 7, 8 },   { 5, 5 },
                                            { 9, 10 },  { 6, 6 },   { 11, 12 }, { 4, 5 },
                                            { 20, 21 }, { 0, 15 }, { 0, 0 } };
        for (size_t d = 0; d < 4; d++)
            for (size_t b = 0; b < sizeof bands / sizeof bands[0]; b++)
                for (c.trans = 0; c.trans < 2; c.trans++) {
                    c.m = dims[d][0];
                    c.n = dims[d][1];
                    c.kl = bands[b][0];
                    c.ku = bands[b][1];
                    c.alpha = 0.7;
                    /* (the diagonal, {0, 0}, also over a NaN y) */
                    c.nan_y = b == 0 || (c.kl == 0 && c.ku == 0);
                    c.beta = b % 2 && !c.nan_y ? 0.7 : 0;
                    X(gbmv_case)(ctx, &c);
                }
    }
    /* the largest size, fewer shapes */
    c.m = c.n = 129;
    for (int wl = 0; wl < NWIDTHS; wl++)
        for (c.trans = 0; c.trans < 2; c.trans++) {
            c.kl = X(width)(wl, c.m);
            c.ku = X(width)(NWIDTHS - 1 - wl, c.n);
            c.alpha = 0.7;
            c.beta = 0.7;
            c.nan_y = 0;
            X(gbmv_case)(ctx, &c);
        }
    nla_context_destroy(ctx);
}

static void X(gbmv_incs)(void)
{
    static const int64_t dims[][4] = { { 1, 1, 0, 0 }, { 3, 2, 1, 3 }, { 17, 64, 3, 1 },
                                       { 129, 17, 20, 0 } };
    nla_context *ctx = ref_cpu_context();
    X(l2case) c = { .routine = "gbmv", .nt = 1, .alpha = 0.7 };

    for (size_t d = 0; d < 4; d++)
        for (size_t ix = 0; ix < 4; ix++)
            for (size_t iy = 0; iy < 4; iy++)
                for (c.trans = 0; c.trans < 2; c.trans++)
                    for (c.nan_y = 0; c.nan_y < 2; c.nan_y++) {
                        c.m = dims[d][0];
                        c.n = dims[d][1];
                        c.kl = dims[d][2];
                        c.ku = dims[d][3];
                        c.incx = incs[ix];
                        c.incy = incs[iy];
                        c.beta = c.nan_y ? 0 : 0.7;
                        X(gbmv_case)(ctx, &c);
                    }
    nla_context_destroy(ctx);
}

/* ---------------------------------------------------------------- spmv */

static void X(spmv_case)(nla_context *ctx, const X(l2case) *c)
{
    int64_t n = c->n, np = n * (n + 1) / 2;
    int upper = c->uplo == 'U';
    TT *ap = malloc((size_t)(np > 0 ? np : 1) * sizeof(TT));
    double *dense = malloc((size_t)(n * n + 1) * sizeof(double));
    TT *x = X(vec_new)(n, c->incx, 1000 + (uint64_t)n, 0), *y, *yref, *y0, *yin;
    TT beta = (TT)(c->nan_y ? 0 : c->beta), alpha = (TT)c->alpha;
    nla_status st;

    cr_assert(ap && dense);
    T_FILL(ap, (size_t)np, 13 + (uint64_t)n);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            int64_t r = i <= j ? i : j, s = i <= j ? j : i; /* r <= s */
            /* stored entry for (r, s) upper or (s, r) lower */
            dense[i + j * n] = upper ? ap[r + s * (s + 1) / 2]
                                     : ap[s + r * (2 * n - r - 1) / 2];
        }
    X(make_y)(c, n, &y, &yref, &y0, &yin);
    cr_assert(nla_context_set_threads(ctx, c->nt) == NLA_OK);
    st = NLA(spmv)(ctx, upper ? NLA_UPPER : NLA_LOWER, n, alpha,
                     c->alpha == 0 ? NULL : ap, c->alpha == 0 ? NULL : x, c->incx, beta, y,
                     c->incy);
    cr_assert(st == NLA_OK, "%s: status %d (%s)", X(describe)(c), st,
              nla_context_error(ctx));
    if (c->alpha != 0 && n > 0)
        check_spmv_form(ctx, upper, (double)np * sizeof(TT));
    CB(spmv)(CblasColMajor, upper ? CblasUpper : CblasLower, (int)n, alpha, ap, x,
             (int)c->incx, beta, yref, (int)c->incy);
    X(check_y)(c, dense, x, y0, yin, y, yref);
    free(ap);
    free(dense);
    free(x);
    free(y);
    free(yref);
    free(y0);
    free(yin);
}

static void X(spmv_sweep)(void)
{
    nla_context *ctx = ref_cpu_context();
    X(l2case) c = { .routine = "spmv" };

    for (c.nt = 1; c.nt <= 2; c.nt++)
        for (size_t in = 0; in < NSIZES; in++)
            for (int u = 0; u < 2; u++)
                for (size_t ia = 0; ia < 3; ia++)
                    for (size_t ib = 0; ib < 4; ib++)
                        for (size_t ix = 0; ix < 4; ix++)
                            for (size_t iy = 0; iy < 4; iy++) {
                                /* all increments for one alpha/beta */
                                if ((ix || iy) && (ia != 2 || ib != 2))
                                    continue;
                                c.n = c.m = sizes[in];
                                c.uplo = u ? 'L' : 'U';
                                c.alpha = alphas[ia];
                                c.nan_y = betas[ib] < 0;
                                c.beta = c.nan_y ? 0 : betas[ib];
                                c.incx = incs[ix];
                                c.incy = incs[iy];
                                X(spmv_case)(ctx, &c);
                            }
    nla_context_destroy(ctx);
}
