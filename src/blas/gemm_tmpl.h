/*
 * gemm_tmpl.h - the CPU GEMM driver, one copy per precision.  Included by
 * gemm.c with T (the element type) and P (d or s) defined.
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
#define KBLK_(k, p) ((k)->p##blk)
#define KBLK(k, p) KBLK_(k, p)

/* The operands of one GEMM, column-major. */
typedef struct GL(P, args) {
    nla_trans ta, tb;
    int64_t m, n, k;
    T alpha, beta;
    const T *a, *b;
    int64_t lda, ldb, ldc;
    T *c;
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

/* op(A)[i0.., p0..] rows [s*mr, s*mr+mr) of an mc x kc block into panel
   dst (dst[l*mr + i]), zero rows past mc. */
static void GL(P, pack_a_panel)(const GL(P, args) *g, int64_t i0, int64_t p0,
                                int64_t rows, int64_t kc, int mr, T *dst)
{
    if (g->ta == NLA_NO_TRANS) {
        const T *src = g->a + i0 + p0 * g->lda;
        for (int64_t l = 0; l < kc; l++, dst += mr) {
            const T *col = src + l * g->lda;
            int64_t i = 0;
            for (; i < rows; i++)
                dst[i] = col[i];
            for (; i < mr; i++)
                dst[i] = 0;
        }
    } else {
        /* A is stored k x m: row i of op(A) is a contiguous column of A */
        const T *src = g->a + p0 + i0 * g->lda;
        for (int64_t i = 0; i < mr; i++) {
            if (i < rows) {
                const T *row = src + i * g->lda;
                for (int64_t l = 0; l < kc; l++)
                    dst[l * mr + i] = row[l];
            } else {
                for (int64_t l = 0; l < kc; l++)
                    dst[l * mr + i] = 0;
            }
        }
    }
}

/* op(B)[p0.., j0..] columns [j0, j0+cols) into panel dst (dst[l*nr + j]),
   zero columns past cols. */
static void GL(P, pack_b_panel)(const GL(P, args) *g, int64_t p0, int64_t j0,
                                int64_t cols, int64_t kc, int nr, T *dst)
{
    if (g->tb == NLA_NO_TRANS) {
        const T *src = g->b + p0 + j0 * g->ldb;
        for (int64_t j = 0; j < nr; j++) {
            if (j < cols) {
                const T *col = src + j * g->ldb;
                for (int64_t l = 0; l < kc; l++)
                    dst[l * nr + j] = col[l];
            } else {
                for (int64_t l = 0; l < kc; l++)
                    dst[l * nr + j] = 0;
            }
        }
    } else {
        /* B is stored n x k: row l of op(B) is a contiguous column of B */
        const T *src = g->b + j0 + p0 * g->ldb;
        for (int64_t l = 0; l < kc; l++, dst += nr) {
            const T *row = src + l * g->ldb;
            int64_t j = 0;
            for (; j < cols; j++)
                dst[j] = row[j];
            for (; j < nr; j++)
                dst[j] = 0;
        }
    }
}

/* One MR x NR tile of C (rows x cols of it are real). */
static void GL(P, tile)(const nla_kernels *K, const nla_gemm_blocks *bk, int64_t kc,
                        T alpha, const T *ap, const T *bp, T beta, T *c,
                        int64_t ldc, int64_t rows, int64_t cols)
{
    _Alignas(64) T tmp[NLA_GEMM_MAX_TILE];

    if (rows == bk->mr && cols == bk->nr) {
        KF(K, P, gemm_ukr)(kc, alpha, ap, bp, beta, c, ldc);
        return;
    }
    KF(K, P, gemm_ukr)(kc, alpha, ap, bp, 0, tmp, bk->mr);
    for (int64_t j = 0; j < cols; j++) {
        T *cj = c + j * ldc;
        const T *tj = tmp + j * bk->mr;
        if (beta == 0)
            for (int64_t i = 0; i < rows; i++)
                cj[i] = tj[i];
        else
            for (int64_t i = 0; i < rows; i++)
                cj[i] = beta * cj[i] + tj[i];
    }
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

/*
 * The blocked loops for thread tid of a team of nt (nt > 1 only inside a
 * parallel region of exactly nt threads: it uses barriers).  Requires
 * alpha != 0 and k > 0.
 */
static void GL(P, blocked)(const nla_kernels *K, const GL(P, args) *g,
                           const GL(P, bufs) *buf, int tid, int nt)
{
    const nla_gemm_blocks *bk = &KBLK(K, P);
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
                GL(P, pack_b_panel)(g, pc, jc + s * nr, cols, kc, nr,
                                    buf->b + s * nr * kc);
            }
            GL(P, sync)(nt);
            for (int64_t ic = 0; ic < g->m; ic += bk->mc) {
                int64_t mc = g->m - ic < bk->mc ? g->m - ic : bk->mc;
                int64_t nap = (mc + mr - 1) / mr;

                GL(P, range)(nap, tid, nt, &lo, &hi);
                for (int64_t s = lo; s < hi; s++) {
                    int64_t rows = mc - s * mr < mr ? mc - s * mr : mr;
                    GL(P, pack_a_panel)(g, ic + s * mr, pc, rows, kc, mr,
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
 * Small problems: no packing.  Column j of C is built by axpys of the
 * columns of A (A not transposed) or by dots of its rows (A transposed).
 * Requires alpha != 0, k > 0 and k <= GEMM_SMALL_K.
 */
#define GEMM_SMALL_K 256
static void GL(P, small)(const nla_kernels *K, const GL(P, args) *g)
{
    T bcol[GEMM_SMALL_K];

    for (int64_t j = 0; j < g->n; j++) {
        T *cj = g->c + j * g->ldc;
        const T *bj;

        if (g->tb == NLA_NO_TRANS) {
            bj = g->b + j * g->ldb;
        } else {
            for (int64_t l = 0; l < g->k; l++)
                bcol[l] = g->b[j + l * g->ldb];
            bj = bcol;
        }
        if (g->ta == NLA_NO_TRANS) {
            GL(P, scale_c)(g->m, 1, g->beta, cj, g->ldc);
            for (int64_t l = 0; l < g->k; l++)
                KF(K, P, axpy)(g->m, g->alpha * bj[l], g->a + l * g->lda, cj);
        } else {
            for (int64_t i = 0; i < g->m; i++) {
                T s = g->alpha * KF(K, P, dot)(g->k, g->a + i * g->lda, bj);
                cj[i] = g->beta == 0 ? s : g->beta * cj[i] + s;
            }
        }
    }
}

/* Work (multiply-adds) below which a GEMM runs on one thread / unpacked. */
#define GEMM_SMALL_WORK (48.0 * 48 * 48)
#define GEMM_THREAD_WORK (96.0 * 96 * 96)

static int GL(P, is_small)(const GL(P, args) *g)
{
    return g->k <= GEMM_SMALL_K && (double)g->m * g->n * g->k <= GEMM_SMALL_WORK;
}

static nla_status GL(P, alloc)(const nla_exec *ex, const nla_gemm_blocks *bk,
                               const GL(P, args) *g, GL(P, bufs) *buf)
{
    int64_t kc = g->k < bk->kc ? g->k : bk->kc;
    int64_t mc = g->m < bk->mc ? g->m : bk->mc;
    int64_t nc = g->n < bk->nc ? g->n : bk->nc;
    size_t abytes, bbytes;

    mc = (mc + bk->mr - 1) / bk->mr * bk->mr;
    nc = (nc + bk->nr - 1) / bk->nr * bk->nr;
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

/* One GEMM on up to nt threads; buf is allocated for g's shape (or larger),
   or unused when g is small. */
static void GL(P, one)(const nla_kernels *K, const GL(P, args) *g,
                       const GL(P, bufs) *buf, int nt)
{
    if (g->alpha == 0 || g->k == 0) {
        GL(P, scale_c)(g->m, g->n, g->beta, g->c, g->ldc);
        return;
    }
    if (GL(P, is_small)(g)) {
        GL(P, small)(K, g);
        return;
    }
    if (nt > 1 && (double)g->m * g->n * g->k < GEMM_THREAD_WORK)
        nt = 1;
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
    GL(P, args) g = { transa, transb, m, n, k, alpha, beta, a, b, lda, ldb, ldc, c };
    int nt = ex->nthreads > 1 ? ex->nthreads : 1;
    int reads = alpha != 0 && k > 0;
    int needbuf = reads && !GL(P, is_small)(&g);
    int per_matrix = nt > 1 && batch > 1 && (double)m * n * k < GEMM_THREAD_WORK;
    int nbufs = per_matrix ? nt : 1;
    GL(P, bufs) *bufs = calloc((size_t)nbufs, sizeof *bufs);
    nla_status st = NLA_OK;

    if (!bufs) {
        if (ex->msg && ex->msglen)
            snprintf(ex->msg, ex->msglen, "cannot allocate GEMM buffer descriptors");
        return NLA_ENOMEM;
    }
    for (int t = 0; needbuf && t < nbufs && st == NLA_OK; t++)
        st = GL(P, alloc)(ex, &KBLK(K, P), &g, &bufs[t]);
    if (st != NLA_OK) {
        for (int t = 0; t < nbufs; t++)
            GL(P, free)(&bufs[t]);
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
    free(bufs);
    return NLA_OK;
}

#undef GM_
#undef GM
#undef GL_
#undef GL
#undef KF_
#undef KF
#undef KBLK_
#undef KBLK
#undef GEMM_SMALL_K
#undef GEMM_SMALL_WORK
#undef GEMM_THREAD_WORK
