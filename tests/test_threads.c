/*
 * test_threads.c - reentrancy and determinism under concurrency (issue 9).
 *
 *   - 8 POSIX threads, each with its own context, run GEMM, gbmv and FFTs
 *     (a power of two, a Bluestein size, a batched R2C) at the same time;
 *     every result must be bitwise equal to a single-threaded run of the same
 *     calls made first on the main thread with the same thread count.
 *   - One FFT plan shared by 8 threads (plans are read-only after creation;
 *     the scratch pool is the only state execution touches): every thread's
 *     output is bitwise equal to a solo execution.
 *
 * Each context uses NLA_TEST_CTX_THREADS OpenMP threads (default 2).  The
 * ThreadSanitizer pass in .ci/run sets it to 1 (and OMP_NUM_THREADS=1): TSan
 * does not understand libgomp's futex-based barriers and reports races
 * inside every OpenMP team, so under TSan the library's own OpenMP teams are
 * kept to one thread and TSan checks the concurrency that the library
 * promises itself: contexts, plans, the plan's scratch pool, the kernel
 * tables chosen once, the per-thread error messages.
 */
#ifdef NLA_STANDALONE
#include "standalone.h"
#else
#include <criterion/criterion.h>
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "refs.h"

#define NTHREADS 8
#define ROUNDS 2

/* problem sizes */
#define GM 150
#define GN 130
#define GK 170
#define BM 3000
#define BN 2800
#define BKL 4
#define BKU 9
#define F1 4096      /* power of two, big enough for the plan's scratch pool */
#define F2 1009      /* prime: Bluestein */
#define F3 96        /* batched R2C */
#define F3B 40

static int ctx_threads(void)
{
    const char *e = getenv("NLA_TEST_CTX_THREADS");
    int t = e && *e ? atoi(e) : 2;
    return t > 0 ? t : 1;
}

/* inputs: shared, read-only */
static double *A, *B, *C0, *AB, *X, *Y0, *Z1, *Z2, *R3;

typedef struct results {
    double *c, *y, *f1, *f2, *f3;
} results;

static void alloc_results(results *r)
{
    r->c = malloc(sizeof(double) * GM * GN);
    r->y = malloc(sizeof(double) * BM);
    r->f1 = malloc(sizeof(double) * 2 * F1);
    r->f2 = malloc(sizeof(double) * 2 * F2);
    r->f3 = malloc(sizeof(double) * 2 * (F3 / 2 + 1) * F3B);
    cr_assert(r->c && r->y && r->f1 && r->f2 && r->f3);
}

static void free_results(results *r)
{
    free(r->c);
    free(r->y);
    free(r->f1);
    free(r->f2);
    free(r->f3);
}

static void setup(void)
{
    A = malloc(sizeof(double) * GM * GK);
    B = malloc(sizeof(double) * GK * GN);
    C0 = malloc(sizeof(double) * GM * GN);
    AB = malloc(sizeof(double) * (BKL + BKU + 1) * BN);
    X = malloc(sizeof(double) * BN);
    Y0 = malloc(sizeof(double) * BM);
    Z1 = malloc(sizeof(double) * 2 * F1);
    Z2 = malloc(sizeof(double) * 2 * F2);
    R3 = malloc(sizeof(double) * F3 * F3B);
    cr_assert(A && B && C0 && AB && X && Y0 && Z1 && Z2 && R3);
    ref_fill(A, (size_t)GM * GK, 1);
    ref_fill(B, (size_t)GK * GN, 2);
    ref_fill(C0, (size_t)GM * GN, 3);
    ref_fill(AB, (size_t)(BKL + BKU + 1) * BN, 4);
    ref_fill(X, BN, 5);
    ref_fill(Y0, BM, 6);
    ref_fill(Z1, 2 * F1, 7);
    ref_fill(Z2, 2 * F2, 8);
    ref_fill(R3, (size_t)F3 * F3B, 9);
}

static void teardown(void)
{
    free(A); free(B); free(C0); free(AB); free(X); free(Y0); free(Z1); free(Z2); free(R3);
}

TestSuite(threads, .init = setup, .fini = teardown, .timeout = 600);

/* The whole workload on one context; returns 0 or a failing status. */
static nla_status workload(nla_context *ctx, results *r)
{
    nla_fft_plan *p1 = NULL, *p2 = NULL, *p3 = NULL;
    nla_fft_desc d;
    nla_status s;

    memcpy(r->c, C0, sizeof(double) * GM * GN);
    memcpy(r->y, Y0, sizeof(double) * BM);
    s = nla_dgemm(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_TRANS, GM, GN, GK, 0.75, A, GM,
                  B, GN, -0.5, r->c, GM);
    if (s == NLA_OK)
        s = nla_dgbmv(ctx, NLA_NO_TRANS, BM, BN, BKL, BKU, 1.25, AB, BKL + BKU + 1, X, 1,
                      0.5, r->y, 1);
    if (s == NLA_OK)
        s = nla_fft_plan_1d(ctx, F1, NLA_FFT_FORWARD, NLA_DOUBLE, &p1);
    if (s == NLA_OK)
        s = nla_fft_plan_1d(ctx, F2, NLA_FFT_BACKWARD, NLA_DOUBLE, &p2);
    if (s == NLA_OK) {
        memset(&d, 0, sizeof d);
        d.kind = NLA_FFT_R2C;
        d.precision = NLA_DOUBLE;
        d.direction = NLA_FFT_FORWARD;
        d.n = F3;
        d.howmany = F3B;
        s = nla_fft_plan_create(ctx, &d, &p3);
    }
    if (s == NLA_OK)
        s = nla_fft_execute(p1, Z1, r->f1);
    if (s == NLA_OK)
        s = nla_fft_execute(p2, Z2, r->f2);
    if (s == NLA_OK)
        s = nla_fft_execute(p3, R3, r->f3);
    nla_fft_plan_destroy(p1);
    nla_fft_plan_destroy(p2);
    nla_fft_plan_destroy(p3);
    return s;
}

static int same(const results *a, const results *b)
{
    return memcmp(a->c, b->c, sizeof(double) * GM * GN) == 0 &&
           memcmp(a->y, b->y, sizeof(double) * BM) == 0 &&
           memcmp(a->f1, b->f1, sizeof(double) * 2 * F1) == 0 &&
           memcmp(a->f2, b->f2, sizeof(double) * 2 * F2) == 0 &&
           memcmp(a->f3, b->f3, sizeof(double) * 2 * (F3 / 2 + 1) * F3B) == 0;
}

typedef struct worker {
    pthread_t tid;
    const results *expect;
    pthread_barrier_t *start;
    int ok_rounds;         /* rounds whose results matched */
    nla_status status;
    char msg[256];
} worker;

static void *run_worker(void *arg)
{
    worker *w = arg;
    nla_context *ctx = NULL;
    results r;

    r.c = malloc(sizeof(double) * GM * GN);
    r.y = malloc(sizeof(double) * BM);
    r.f1 = malloc(sizeof(double) * 2 * F1);
    r.f2 = malloc(sizeof(double) * 2 * F2);
    r.f3 = malloc(sizeof(double) * 2 * (F3 / 2 + 1) * F3B);
    w->status = nla_context_create(&ctx, NLA_BACKEND_CPU);
    if (w->status == NLA_OK)
        w->status = nla_context_set_threads(ctx, ctx_threads());
    pthread_barrier_wait(w->start);
    for (int i = 0; i < ROUNDS && w->status == NLA_OK; i++) {
        if (!r.c || !r.y || !r.f1 || !r.f2 || !r.f3) {
            w->status = NLA_ENOMEM;
            break;
        }
        w->status = workload(ctx, &r);
        if (w->status != NLA_OK)
            snprintf(w->msg, sizeof w->msg, "%s | %s", nla_context_error(ctx),
                     nla_last_error());
        else if (same(&r, w->expect))
            w->ok_rounds++;
    }
    nla_context_destroy(ctx);
    free(r.c); free(r.y); free(r.f1); free(r.f2); free(r.f3);
    return NULL;
}

Test(threads, eight_contexts_match_a_single_threaded_run)
{
    nla_context *ctx = ref_cpu_context();
    pthread_barrier_t start;
    worker w[NTHREADS];
    results ref;
    nla_status s;

    alloc_results(&ref);
    cr_assert_eq(nla_context_set_threads(ctx, ctx_threads()), NLA_OK);
    s = workload(ctx, &ref);
    cr_assert_eq(s, NLA_OK, "reference run: %s", nla_context_error(ctx));
    nla_context_destroy(ctx);

    pthread_barrier_init(&start, NULL, NTHREADS);
    memset(w, 0, sizeof w);
    for (int i = 0; i < NTHREADS; i++) {
        w[i].expect = &ref;
        w[i].start = &start;
        cr_assert_eq(pthread_create(&w[i].tid, NULL, run_worker, &w[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(w[i].tid, NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < NTHREADS; i++) {
        cr_expect_eq(w[i].status, NLA_OK, "thread %d: status %d (%s)", i, (int)w[i].status,
                     w[i].msg);
        cr_expect_eq(w[i].ok_rounds, ROUNDS,
                     "thread %d: %d of %d rounds bitwise equal to the single-threaded run",
                     i, w[i].ok_rounds, ROUNDS);
    }
    free_results(&ref);
}

/* ------------------------------------------------------- one shared plan */

typedef struct sharer {
    pthread_t tid;
    const nla_fft_plan *plan;
    const double *in, *expect;
    int64_t len;           /* doubles of output */
    pthread_barrier_t *start;
    int ok, runs;
    nla_status status;
} sharer;

#define SHARED_RUNS 6

static void *run_sharer(void *arg)
{
    sharer *sh = arg;
    double *out = malloc(sizeof(double) * (size_t)sh->len);
    pthread_barrier_wait(sh->start);
    for (int i = 0; i < SHARED_RUNS && out; i++) {
        memset(out, 0, sizeof(double) * (size_t)sh->len);
        sh->status = nla_fft_execute(sh->plan, sh->in, out);
        if (sh->status != NLA_OK)
            break;
        sh->runs++;
        sh->ok += memcmp(out, sh->expect, sizeof(double) * (size_t)sh->len) == 0;
    }
    free(out);
    return NULL;
}

/* The threads all run plan d, made on one context.  fresh: the plan's
   first execution is theirs, all at once (it makes Bluestein's tables);
   the bits expected come from another plan of d.  Else the plan has run
   once already and gives the bits expected. */
static void shared_plan(const nla_fft_desc *d, const double *in, int64_t outlen, int fresh)
{
    nla_context *ctx = ref_cpu_context();
    nla_fft_plan *plan = NULL;
    pthread_barrier_t start;
    sharer sh[NTHREADS];
    double *expect = malloc(sizeof(double) * (size_t)outlen);

    cr_assert_not_null(expect);
    cr_assert_eq(nla_context_set_threads(ctx, ctx_threads()), NLA_OK);
    cr_assert_eq(nla_fft_plan_create(ctx, d, &plan), NLA_OK, "%s", nla_context_error(ctx));
    cr_assert_eq(nla_fft_execute(plan, in, expect), NLA_OK, "%s", nla_last_error());
    if (fresh) {
        nla_fft_plan_destroy(plan);
        plan = NULL;
        cr_assert_eq(nla_fft_plan_create(ctx, d, &plan), NLA_OK, "%s",
                     nla_context_error(ctx));
    }
    pthread_barrier_init(&start, NULL, NTHREADS);
    memset(sh, 0, sizeof sh);
    for (int i = 0; i < NTHREADS; i++) {
        sh[i].plan = plan;
        sh[i].in = in;
        sh[i].expect = expect;
        sh[i].len = outlen;
        sh[i].start = &start;
        cr_assert_eq(pthread_create(&sh[i].tid, NULL, run_sharer, &sh[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(sh[i].tid, NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < NTHREADS; i++) {
        cr_expect_eq(sh[i].status, NLA_OK, "n=%lld thread %d: status %d", (long long)d->n, i,
                     (int)sh[i].status);
        cr_expect_eq(sh[i].runs, SHARED_RUNS, "n=%lld thread %d ran %d times",
                     (long long)d->n, i, sh[i].runs);
        cr_expect_eq(sh[i].ok, sh[i].runs, "n=%lld thread %d: %d of %d outputs bitwise equal",
                     (long long)d->n, i, sh[i].ok, sh[i].runs);
    }
    nla_fft_plan_destroy(plan);
    nla_context_destroy(ctx);
    free(expect);
}

Test(threads, one_plan_shared_by_eight_threads)
{
    nla_fft_desc d;
    memset(&d, 0, sizeof d);
    d.kind = NLA_FFT_C2C;
    d.precision = NLA_DOUBLE;
    d.direction = NLA_FFT_FORWARD;
    d.n = F1;                       /* scratch pool: taken by one, others allocate */
    shared_plan(&d, Z1, 2 * F1, 0);
    d.n = F2;                       /* Bluestein: its own inner plans */
    d.direction = NLA_FFT_BACKWARD;
    d.scale = 1.0 / F2;
    shared_plan(&d, Z2, 2 * F2, 0);
    d.kind = NLA_FFT_R2C;           /* a batch: the plan's own OpenMP split */
    d.n = F3;
    d.howmany = F3B;
    d.scale = 0;
    shared_plan(&d, R3, 2 * (F3 / 2 + 1) * F3B, 0);
}

/* Bluestein's tables and the real step's are made at a plan's first
   execution: eight threads that execute a new plan together make them
   once and all get the bits of another plan of the same transform. */
Test(threads, first_execution_shared_by_eight_threads)
{
    nla_fft_desc d;
    memset(&d, 0, sizeof d);
    d.kind = NLA_FFT_C2C;
    d.precision = NLA_DOUBLE;
    d.direction = NLA_FFT_FORWARD;
    d.n = F2;
    shared_plan(&d, Z2, 2 * F2, 1);
    d.howmany = 2;                  /* a batch of two primes over 127 */
    d.n = 503;
    d.idist = d.odist = 503;
    shared_plan(&d, Z2, 2 * 2 * 503, 1);
    d.howmany = 1;
    d.idist = d.odist = 0;
    d.kind = NLA_FFT_REDFT10;       /* the DCT's inner real plan: its real step's */
    d.n = 2 * 503;                  /* twiddles and Bluestein's tables, h = 503 */
    shared_plan(&d, Z2, 2 * 503, 1);
}
