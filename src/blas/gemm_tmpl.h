/*
 * gemm_tmpl.h - the CPU GEMM driver, one copy per precision.  Included by
 * gemm.c with T (the element type), P (d or s) and PREC (NLA_TUNE_DOUBLE
 * or NLA_TUNE_FLOAT) defined.
 *
 * C = alpha*op(A)*op(B) + beta*C, column-major, BLIS/Goto blocking:
 *
 *   for jc in steps of NC          (columns of C and B)
 *     for pc in steps of KC        (the depth)
 *       pack op(B)[pc.., jc..] into NR-column micro-panels   (shared, L3)
 *       for ic in steps of MC      (rows of C and A)
 *         pack op(A)[ic.., pc..] into MR-row micro-panels    (shared, L2)
 *         for each MR x NR tile: microkernel                 (registers)
 *
 * MR x NR is the kernel table's tile; MC, KC and NC are the CPU's
 * (nla_tuning_get, src/core/tune.h), rounded to the tile.
 *
 * Transposes are handled by the packing routines; the microkernel sees one
 * format.  beta is applied by the first KC block only.
 *
 * Threads share the packed panels and split the packing and the tiles in
 * fixed contiguous ranges.  Every element of C is computed by one thread,
 * in the same order whatever the thread count, so results do not depend on
 * the number of threads.
 */
#define GM_(p, name) nla_cpu_##p##name
#define GM(p, name) GM_(p, name)
#define GL_(p, name) p##gemm_##name
#define GL(p, name) GL_(p, name)
#define KF_(k, p, name) ((k)->p##name)
#define KF(k, p, name) KF_(k, p, name)
#define KTILE_(k, p) ((k)->p##tile)
#define KTILE(k, p) KTILE_(k, p)

/* The kernel's tile with this CPU's cache blocks, rounded to the tile. */
static nla_gemm_blocks GL(P, blocks)(const nla_gemm_tile *t)
{
    nla_gemm_cache_blocks cb = nla_tuning_gemm_blocks(PREC, t->mr, t->nr);
    return (nla_gemm_blocks){ t->mr, t->nr, t->mv, cb.mc, cb.kc, cb.nc };
}

/* The operands of one GEMM, column-major, and its blocking. */
typedef struct GL(P, args) {
    nla_trans ta, tb;
    int64_t m, n, k;
    T alpha, beta;
    const T *a, *b;
    int64_t lda, ldb, ldc;
    T *c;
    const nla_gemm_blocks *bk;
} GL(P, args);

/* Packing buffers for one team: A block (MC x KC) and B block (KC x NC). */
typedef struct GL(P, bufs) {
    T *a, *b;
} GL(P, bufs);

/* C = beta*C on an m x n block (beta == 0 writes zeros, reading nothing). */
static void GL(P, scale_c)(int64_t m, int64_t n, T beta, T *c, int64_t ldc)
{
    if (beta == 1)
        return;
    for (int64_t j = 0; j < n; j++) {
        T *cj = c + j * ldc;
        if (beta == 0)
            for (int64_t i = 0; i < m; i++)
                cj[i] = 0;
        else
            for (int64_t i = 0; i < m; i++)
                cj[i] *= beta;
    }
}

/* op(A)[i0.., p0..]: rows [i0, i0+rows) of a kc-deep block into one
   MR-row micro-panel (zero rows past rows). */
static void GL(P, pack_a_panel)(const nla_kernels *K, const GL(P, args) *g,
                                int64_t i0, int64_t p0, int64_t rows, int64_t kc,
                                T *dst)
{
    if (g->ta == NLA_NO_TRANS)
        KF(K, P, pack_mr)(kc, rows, g->a + i0 + p0 * g->lda, 1, g->lda, dst);
    else /* A is stored k x m: row i of op(A) is a contiguous column of A */
        KF(K, P, pack_mr)(kc, rows, g->a + p0 + i0 * g->lda, g->lda, 1, dst);
}

/* op(B)[p0.., j0..]: columns [j0, j0+cols) into one NR-column micro-panel
   (zero columns past cols). */
static void GL(P, pack_b_panel)(const nla_kernels *K, const GL(P, args) *g,
                                int64_t p0, int64_t j0, int64_t cols, int64_t kc,
                                T *dst)
{
    if (g->tb == NLA_NO_TRANS)
        KF(K, P, pack_nr)(kc, cols, g->b + p0 + j0 * g->ldb, g->ldb, 1, dst);
    else /* B is stored n x k: row l of op(B) is a contiguous column of B */
        KF(K, P, pack_nr)(kc, cols, g->b + j0 + p0 * g->ldb, 1, g->ldb, dst);
}

/* C[rows x cols] = tmp + beta*C (beta == 0: C not read) */
static void GL(P, put_tile)(const T *tmp, int64_t ldt, T beta, T *c, int64_t ldc,
                            int64_t rows, int64_t cols)
{
    for (int64_t j = 0; j < cols; j++) {
        T *cj = c + j * ldc;
        const T *tj = tmp + j * ldt;
        if (beta == 0)
            for (int64_t i = 0; i < rows; i++)
                cj[i] = tj[i];
        else
            for (int64_t i = 0; i < rows; i++)
                cj[i] = beta * cj[i] + tj[i];
    }
}

/* the number of row vectors that cover rows (1..mv) */
static inline int GL(P, vecs)(const nla_gemm_blocks *bk, int64_t rows)
{
    int64_t vl = bk->mr / bk->mv;
    return (int)((rows + vl - 1) / vl);
}

/* One MR x NR tile of C from packed panels (rows x cols of it are real). */
static void GL(P, tile)(const nla_kernels *K, const nla_gemm_blocks *bk, int64_t kc,
                        T alpha, const T *ap, const T *bp, T beta, T *c,
                        int64_t ldc, int64_t rows, int64_t cols)
{
    _Alignas(64) T tmp[NLA_GEMM_MAX_TILE];
    int v = GL(P, vecs)(bk, rows);

    if (cols == bk->nr && rows * bk->mv == (int64_t)v * bk->mr) {
        KF(K, P, gemm_ukr)[v - 1](kc, alpha, ap, bp, beta, c, ldc);
        return;
    }
    KF(K, P, gemm_ukr)[v - 1](kc, alpha, ap, bp, 0, tmp, bk->mr);
    GL(P, put_tile)(tmp, bk->mr, beta, c, ldc, rows, cols);
}

/* [lo, hi) of count items for thread tid of nt */
static inline void GL(P, range)(int64_t count, int tid, int nt, int64_t *lo,
                                int64_t *hi)
{
    *lo = count * tid / nt;
    *hi = count * (tid + 1) / nt;
}

static inline void GL(P, sync)(int nt)
{
    if (nt > 1) {
#pragma omp barrier
    }
}

/* An mc x nc block of C, rows ic.., columns jc..: pack the A block into
   abuf, then the tiles against the packed B block (share tid of nt of
   them: those in a contiguous range, column-panel-major). */
static void GL(P, block)(const nla_kernels *K, const GL(P, args) *g, T *abuf,
                         const T *bbuf, int64_t ic, int64_t mc, int64_t jc,
                         int64_t nc, int64_t pc, int64_t kc, T beta, int tid, int nt)
{
    const nla_gemm_blocks *bk = g->bk;
    const int mr = bk->mr, nr = bk->nr;
    int64_t nap = (mc + mr - 1) / mr, nbp = (nc + nr - 1) / nr, lo, hi;

    for (int64_t s = 0; s < nap; s++) {
        int64_t rows = mc - s * mr < mr ? mc - s * mr : mr;
        GL(P, pack_a_panel)(K, g, ic + s * mr, pc, rows, kc, abuf + s * mr * kc);
    }
    GL(P, range)(nbp * nap, tid, nt, &lo, &hi);
    for (int64_t t = lo; t < hi; t++) {
        int64_t sb = t / nap, sa = t % nap;
        int64_t rows = mc - sa * mr < mr ? mc - sa * mr : mr;
        int64_t cols = nc - sb * nr < nr ? nc - sb * nr : nr;
        GL(P, tile)(K, bk, kc, g->alpha, abuf + sa * mr * kc, bbuf + sb * nr * kc, beta,
                    g->c + (ic + sa * mr) + (jc + sb * nr) * g->ldc, g->ldc, rows, cols);
    }
}

/*
 * The blocked loops for thread tid of a team of nt (nt > 1 only inside a
 * parallel region of exactly nt threads: it uses barriers).  Requires
 * alpha != 0 and k > 0.
 */
static void GL(P, blocked)(const nla_kernels *K, const GL(P, args) *g,
                           const GL(P, bufs) *buf, int tid, int nt)
{
    const nla_gemm_blocks *bk = g->bk;
    const int mr = bk->mr, nr = bk->nr;

    for (int64_t jc = 0; jc < g->n; jc += bk->nc) {
        int64_t nc = g->n - jc < bk->nc ? g->n - jc : bk->nc;
        int64_t nbp = (nc + nr - 1) / nr;
        for (int64_t pc = 0; pc < g->k; pc += bk->kc) {
            int64_t kc = g->k - pc < bk->kc ? g->k - pc : bk->kc;
            T beta = pc == 0 ? g->beta : 1;
            int64_t lo, hi;

            GL(P, range)(nbp, tid, nt, &lo, &hi);
            for (int64_t s = lo; s < hi; s++) {
                int64_t cols = nc - s * nr < nr ? nc - s * nr : nr;
                GL(P, pack_b_panel)(K, g, pc, jc + s * nr, cols, kc,
                                    buf->b + s * nr * kc);
            }
            GL(P, sync)(nt);
            if (nt > 1 && (g->m + mr - 1) / mr >= 4 * nt) {
                /* rows split by thread, each with its own A block: the
                   only barriers are around the shared B block */
                int64_t r0, r1, mcap = g->m < bk->mc ? g->m : bk->mc;
                mcap = (mcap + mr - 1) / mr * mr; /* as in alloc() */
                GL(P, range)((g->m + mr - 1) / mr, tid, nt, &r0, &r1);
                r0 *= mr;
                r1 = r1 * mr < g->m ? r1 * mr : g->m;
                for (int64_t ic = r0; ic < r1; ic += bk->mc) {
                    int64_t mc = r1 - ic < bk->mc ? r1 - ic : bk->mc;
                    GL(P, block)(K, g, buf->a + (int64_t)tid * mcap * kc,
                                 buf->b, ic, mc, jc, nc, pc, kc, beta, 0, 1);
                }
                GL(P, sync)(nt); /* the B block is repacked next */
                continue;
            }
            for (int64_t ic = 0; ic < g->m; ic += bk->mc) {
                int64_t mc = g->m - ic < bk->mc ? g->m - ic : bk->mc;
                int64_t nap = (mc + mr - 1) / mr;

                GL(P, range)(nap, tid, nt, &lo, &hi);
                for (int64_t s = lo; s < hi; s++) {
                    int64_t rows = mc - s * mr < mr ? mc - s * mr : mr;
                    GL(P, pack_a_panel)(K, g, ic + s * mr, pc, rows, kc,
                                        buf->a + s * mr * kc);
                }
                GL(P, sync)(nt);
                /* tiles column-panel-major: a thread keeps its B panels in L1 */
                GL(P, range)(nbp * nap, tid, nt, &lo, &hi);
                for (int64_t t = lo; t < hi; t++) {
                    int64_t sb = t / nap, sa = t % nap;
                    int64_t rows = mc - sa * mr < mr ? mc - sa * mr : mr;
                    int64_t cols = nc - sb * nr < nr ? nc - sb * nr : nr;
                    GL(P, tile)(K, bk, kc, g->alpha, buf->a + sa * mr * kc,
                                buf->b + sb * nr * kc, beta,
                                g->c + (ic + sa * mr) + (jc + sb * nr) * g->ldc,
                                g->ldc, rows, cols);
                }
                GL(P, sync)(nt); /* the A block is repacked next */
            }
        }
    }
}

/*
 * Small problems: no packing.  The direct kernels read A and B where they
 * are; only what they cannot read in place is copied into one micro-panel
 * (a transposed A, or the rows or columns of an edge tile).  Row panels
 * [lo, hi) of MR rows; buf->a holds MR*k and buf->b NR*k elements.
 * Requires alpha != 0 and k > 0.
 */
static void GL(P, small)(const nla_kernels *K, const GL(P, args) *g,
                         const GL(P, bufs) *buf, int64_t lo, int64_t hi)
{
    const nla_gemm_blocks *bk = g->bk;
    const int64_t mr = bk->mr, nr = bk->nr;
    _Alignas(64) T tmp[NLA_GEMM_MAX_TILE];

    const int64_t vl = mr / bk->mv, nv = (g->m + vl - 1) / vl;
    const int64_t np = (nv + bk->mv - 1) / bk->mv, base = nv / np, extra = nv % np;

    for (int64_t s = lo; s < hi; s++) {
        /* the nv row vectors spread evenly over the np panels */
        int64_t i0 = vl * (s * base + (s < extra ? s : extra));
        int64_t rows = vl * (base + (s < extra));
        rows = g->m - i0 < rows ? g->m - i0 : rows;
        int v = GL(P, vecs)(bk, rows);
        int exact = rows * bk->mv == (int64_t)v * mr;
        const T *ap = g->a + i0;
        int64_t as = g->lda;

        if (g->ta != NLA_NO_TRANS || !exact) {
            GL(P, pack_a_panel)(K, g, i0, 0, rows, g->k, buf->a);
            ap = buf->a;
            as = mr;
        }
        for (int64_t j0 = 0; j0 < g->n; j0 += nr) {
            int64_t cols = g->n - j0 < nr ? g->n - j0 : nr;
            const T *bp;
            int64_t bsl, bsj;
            T *c = g->c + i0 + j0 * g->ldc;

            if (cols < nr) {
                GL(P, pack_b_panel)(K, g, 0, j0, cols, g->k, buf->b);
                bp = buf->b;
                bsl = nr;
                bsj = 1;
            } else if (g->tb == NLA_NO_TRANS) {
                bp = g->b + j0 * g->ldb;
                bsl = 1;
                bsj = g->ldb;
            } else {
                bp = g->b + j0;
                bsl = g->ldb;
                bsj = 1;
            }
            if (exact && cols == nr) {
                KF(K, P, gemm_dir)[v - 1](g->k, g->alpha, ap, as, bp, bsl, bsj,
                                          g->beta, c, g->ldc);
            } else {
                KF(K, P, gemm_dir)[v - 1](g->k, g->alpha, ap, as, bp, bsl, bsj,
                                          0, tmp, mr);
                GL(P, put_tile)(tmp, mr, g->beta, c, g->ldc, rows, cols);
            }
        }
    }
}

/* Work (multiply-adds) below which a GEMM runs on one thread / unpacked.
   Unpacked up to 260^3: at 256^3 the packing costs more than it saves
   (AVX-512 Zen 5, one thread: d 110 -> 116, s 213 -> 239 GFLOP/s). */
#define GEMM_SMALL_K 512
#define GEMM_SMALL_WORK (260.0 * 260 * 260)
#define GEMM_THREAD_WORK (96.0 * 96 * 96)

static int GL(P, is_small)(const GL(P, args) *g)
{
    return g->k <= GEMM_SMALL_K && (double)g->m * g->n * g->k <= GEMM_SMALL_WORK;
}

/* Buffers for g: the packed blocks, or for a small g, copies (one per
   thread) of an A and a B micro-panel. */
static nla_status GL(P, alloc)(const nla_exec *ex, const nla_gemm_blocks *bk,
                               const GL(P, args) *g, int copies, GL(P, bufs) *buf)
{
    int64_t kc = g->k < bk->kc ? g->k : bk->kc;
    int64_t mc = g->m < bk->mc ? g->m : bk->mc;
    int64_t nc = g->n < bk->nc ? g->n : bk->nc;
    size_t abytes, bbytes;

    if (GL(P, is_small)(g)) {
        kc = g->k;
        mc = (int64_t)copies * bk->mr;
        nc = (int64_t)copies * bk->nr;
    }
    mc = (mc + bk->mr - 1) / bk->mr * bk->mr;
    nc = (nc + bk->nr - 1) / bk->nr * bk->nr;
    if (!GL(P, is_small)(g))
        mc *= copies; /* one A block per thread */
    abytes = ((size_t)mc * kc * sizeof(T) + 63) & ~(size_t)63;
    bbytes = ((size_t)nc * kc * sizeof(T) + 63) & ~(size_t)63;
    buf->a = aligned_alloc(64, abytes);
    buf->b = aligned_alloc(64, bbytes);
    if (!buf->a || !buf->b) {
        free(buf->a);
        free(buf->b);
        buf->a = buf->b = NULL;
        if (ex->msg && ex->msglen)
            snprintf(ex->msg, ex->msglen, "cannot allocate %zu bytes of GEMM packing buffers",
                     abytes + bbytes);
        return NLA_ENOMEM;
    }
    return NLA_OK;
}

static void GL(P, free)(GL(P, bufs) *buf)
{
    free(buf->a);
    free(buf->b);
}

/* A small GEMM on nt threads, each with a range of row panels and its own
   slice of buf. */
static void GL(P, small_par)(const nla_kernels *K, const GL(P, args) *g,
                             const GL(P, bufs) *buf, int nt)
{
    const nla_gemm_blocks *bk = g->bk;
    int64_t np = (g->m + bk->mr - 1) / bk->mr;

    if (nt > np)
        nt = (int)np;
    if (nt <= 1) {
        GL(P, small)(K, g, buf, 0, np);
        return;
    }
#pragma omp parallel num_threads(nt)
    {
#ifdef _OPENMP
        int tid = omp_get_thread_num(), team = omp_get_num_threads();
#else
        int tid = 0, team = 1;
#endif
        GL(P, bufs) mine = { buf->a + (int64_t)tid * bk->mr * g->k,
                             buf->b + (int64_t)tid * bk->nr * g->k };
        int64_t lo, hi;
        GL(P, range)(np, tid, team, &lo, &hi);
        GL(P, small)(K, g, &mine, lo, hi);
    }
}

/* One GEMM on up to nt threads; buf is allocated for g's shape (or larger;
   for a small g, with nt copies). */
static void GL(P, one)(const nla_kernels *K, const GL(P, args) *g,
                       const GL(P, bufs) *buf, int nt)
{
    if (g->alpha == 0 || g->k == 0) {
        GL(P, scale_c)(g->m, g->n, g->beta, g->c, g->ldc);
        return;
    }
    if (nt > 1 && (double)g->m * g->n * g->k < GEMM_THREAD_WORK)
        nt = 1;
    if (GL(P, is_small)(g)) {
        GL(P, small_par)(K, g, buf, nt);
        return;
    }
    if (nt == 1) {
        GL(P, blocked)(K, g, buf, 0, 1);
        return;
    }
#pragma omp parallel num_threads(nt)
    {
#ifdef _OPENMP
        int tid = omp_get_thread_num(), team = omp_get_num_threads();
#else
        int tid = 0, team = 1;
#endif
        GL(P, blocked)(K, g, buf, tid, team);
    }
}

nla_status GM(P, gemm)(const nla_exec *ex, nla_trans transa, nla_trans transb,
                       int64_t m, int64_t n, int64_t k, T alpha, const T *a,
                       int64_t lda, int64_t stride_a, const T *b, int64_t ldb,
                       int64_t stride_b, T beta, T *c, int64_t ldc,
                       int64_t stride_c, int64_t batch)
{
    const nla_kernels *K = nla_kernels_get();
    const nla_gemm_blocks blk = GL(P, blocks)(&KTILE(K, P)), *bk = &blk;
    GL(P, args) g = { transa, transb, m, n, k, alpha, beta, a, b, lda, ldb, ldc, c, bk };
    int nt = ex->nthreads > 1 ? ex->nthreads : 1;
    int reads = alpha != 0 && k > 0;
    /* the small path copies only a transposed A and partial panels */
    int needbuf = reads && (!GL(P, is_small)(&g) || transa != NLA_NO_TRANS ||
                            m % (bk->mr / bk->mv) != 0 || n % bk->nr != 0);
    int per_matrix = nt > 1 && batch > 1 && (double)m * n * k < GEMM_THREAD_WORK;
    int nbufs = per_matrix ? nt : 1;
    GL(P, bufs) few[4] = { { NULL, NULL } };
    GL(P, bufs) *bufs = nbufs <= 4 ? few : calloc((size_t)nbufs, sizeof *bufs);
    nla_status st = NLA_OK;

    if (!bufs) {
        if (ex->msg && ex->msglen)
            snprintf(ex->msg, ex->msglen, "cannot allocate GEMM buffer descriptors");
        return NLA_ENOMEM;
    }
    for (int t = 0; needbuf && t < nbufs && st == NLA_OK; t++)
        st = GL(P, alloc)(ex, bk, &g, per_matrix ? 1 : nt, &bufs[t]);
    if (st != NLA_OK) {
        for (int t = 0; t < nbufs; t++)
            GL(P, free)(&bufs[t]);
        if (bufs != few)
            free(bufs);
        return st;
    }
    if (per_matrix) {
        /* small matrices: one thread per matrix, each with its own buffers */
        int64_t q;
#pragma omp parallel for num_threads(nt) schedule(static)
        for (q = 0; q < batch; q++) {
#ifdef _OPENMP
            int tid = omp_get_thread_num();
#else
            int tid = 0;
#endif
            GL(P, args) gq = g;
            if (reads) { /* a, b may be NULL otherwise */
                gq.a = a + q * stride_a;
                gq.b = b + q * stride_b;
            }
            gq.c = c + q * stride_c;
            GL(P, one)(K, &gq, &bufs[tid], 1);
        }
    } else {
        for (int64_t q = 0; q < batch; q++) {
            GL(P, args) gq = g;
            if (reads) { /* a, b may be NULL otherwise */
                gq.a = a + q * stride_a;
                gq.b = b + q * stride_b;
            }
            gq.c = c + q * stride_c;
            GL(P, one)(K, &gq, &bufs[0], nt);
        }
    }
    for (int t = 0; t < nbufs; t++)
        GL(P, free)(&bufs[t]);
    if (bufs != few)
        free(bufs);
    return NLA_OK;
}

#undef GM_
#undef GM
#undef GL_
#undef GL
#undef KF_
#undef KF
#undef KTILE_
#undef KTILE
#undef GEMM_SMALL_K
#undef GEMM_SMALL_WORK
#undef GEMM_THREAD_WORK
