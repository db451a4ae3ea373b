/*
 * nla-ab.c - A/B timing of level-2 kernels across libnla builds, in one
 * process (a developer's tool; not installed: make tools/nla-ab).
 *
 *   nla-ab OP PREC FORM THREADS REPS LIB...
 *
 * OP is gbmv, gemv, spmv or gemm, PREC d or s, FORM N or T (gbmv, gemv;
 * gemm: op(A) in C = 1.5 op(A) B + 0.5 C) or U or L (spmv).  Each LIB is one of
 *   PATH[@CONFIG][%VAR=VALUE...]  a libnla shared library (a build's
 *        .libs/libnla.so.0.0.0).  Each is copied to a file of its own and
 *        opened from there, so the same build can be listed twice; its
 *        first call runs with NLA_CPU_TUNE=CONFIG (a CPU configuration,
 *        src/core/tune.c) and the VAR=VALUE (NLA_L2_FORM=dots, say)
 *        settings in the environment (libnla reads them once), then they
 *        are removed;
 *   ref   the CBLAS reference this was configured with (cblas_?OP);
 *   cblas:PATH[:PREFIX]  another CBLAS, opened at run time (BLIS's
 *         libblis.so.4, MKL's libmkl_rt.so.2, scipy-openblas32's
 *         libscipy_openblas.so:scipy_); level 2 only;
 *   read  nla bench's plain read over the matrix's bytes, the ceiling of
 *         kernels that read the matrix as one run;
 *   readpf the same read with a software prefetch 4 KiB ahead;
 *   read4 its four-run read (tools/bench_stream.c): each thread's share
 *         in quarters, a line of each in turn.
 * The environment gives the shape: N (default gbmv 2^20, gemm 2048, else
 * 8000; gemm is N x N x N), KL
 * (gbmv kl = ku, default 16), LDAB (gbmv's band storage, default 2 KL + 1:
 * unpadded; GB/s count the band's bytes), and SETTLE, milliseconds of sleep before
 * each sample (default 150 with threads, 0 without: a second core that
 * was idle takes a while to come back to speed).  The matrix, x and y
 * start AOFF, XOFF and YOFF bytes (default 0, multiples of the element
 * size) past the start of pages of their own, to study how their
 * placement against each other matters.
 *
 * Every library's y is compared with the first's.  Then REPS rounds take
 * one sample of each library in turn, each at least 20 ms of calls, so
 * that all sides see the same state of a noisy machine.  It prints each
 * library's median GB/s of matrix bytes (gemm: GFLOP/s, 2 N^3 a call;
 * the reads then give the GB/s of reading A) and the median over the
 * rounds of its sample divided by the first library's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cblas.h>
#include "nla.h"
#include "bench.h"

typedef nla_status (*dgbmv_fn)(nla_context *, nla_trans, int64_t, int64_t, int64_t, int64_t,
                               double, const double *, int64_t, const double *, int64_t,
                               double, double *, int64_t);
typedef nla_status (*sgbmv_fn)(nla_context *, nla_trans, int64_t, int64_t, int64_t, int64_t,
                               float, const float *, int64_t, const float *, int64_t,
                               float, float *, int64_t);
typedef nla_status (*dgemv_fn)(nla_context *, nla_trans, int64_t, int64_t, double,
                               const double *, int64_t, const double *, int64_t, double,
                               double *, int64_t);
typedef nla_status (*sgemv_fn)(nla_context *, nla_trans, int64_t, int64_t, float,
                               const float *, int64_t, const float *, int64_t, float,
                               float *, int64_t);
typedef nla_status (*dspmv_fn)(nla_context *, nla_uplo, int64_t, double, const double *,
                               const double *, int64_t, double, double *, int64_t);
typedef nla_status (*sspmv_fn)(nla_context *, nla_uplo, int64_t, float, const float *,
                               const float *, int64_t, float, float *, int64_t);
typedef nla_status (*dgemm_fn)(nla_context *, nla_layout, nla_trans, nla_trans, int64_t,
                               int64_t, int64_t, double, const double *, int64_t, const double *,
                               int64_t, double, double *, int64_t);
typedef nla_status (*sgemm_fn)(nla_context *, nla_layout, nla_trans, nla_trans, int64_t,
                               int64_t, int64_t, float, const float *, int64_t, const float *,
                               int64_t, float, float *, int64_t);
typedef nla_status (*create_fn)(nla_context **, nla_backend);
typedef nla_status (*threads_fn)(nla_context *, int);

enum kind { LIB_NLA, LIB_REF, LIB_READ, LIB_CBLAS };

struct side {
    const char *spec;
    enum kind kind;
    enum bench_read_kind read;      /* LIB_READ: which of the bench's reads */
    void *handle;
    nla_context *ctx;
    void (*destroy)(nla_context *); /* this copy's nla_context_destroy */
    char *spec_buf;                 /* the split copy of spec */
    void *fn; /* nla_?OP of this copy, or a cblas:'s cblas_?OP */
    double *gbs;
};

static struct {
    const char *op;
    int dbl, trans; /* trans: T, or L for spmv */
    int threads;
    int64_t n, kl, ldab; /* ldab: gbmv's band storage */
    size_t esz, abytes, ylen; /* ylen: elements of y (C for gemm) */
    double work;              /* bytes of A, or gemm's flops, a call */
    void *a, *x, *y, *y0;
} P;

static volatile double sink;

/* the bench's reads (tools/bench_stream.c) over the matrix's bytes */
static void read_matrix(enum bench_read_kind kind)
{
    sink = bench_read_pass(P.a, P.abytes / sizeof(double), P.threads, kind);
}

static nla_status call_nla(const struct side *sd)
{
    nla_trans tr = P.trans ? NLA_TRANS : NLA_NO_TRANS;
    nla_uplo up = P.trans ? NLA_LOWER : NLA_UPPER;
    int64_t n = P.n, w = P.ldab;

    if (!strcmp(P.op, "gbmv")) {
        if (P.dbl)
            return ((dgbmv_fn)sd->fn)(sd->ctx, tr, n, n, P.kl, P.kl, 1.5, P.a, w, P.x, 1, 0.5,
                                      P.y, 1);
        return ((sgbmv_fn)sd->fn)(sd->ctx, tr, n, n, P.kl, P.kl, 1.5f, P.a, w, P.x, 1, 0.5f,
                                  P.y, 1);
    }
    if (!strcmp(P.op, "gemm")) {
        if (P.dbl)
            return ((dgemm_fn)sd->fn)(sd->ctx, NLA_COL_MAJOR, tr, NLA_NO_TRANS, n, n, n, 1.5,
                                      P.a, n, P.x, n, 0.5, P.y, n);
        return ((sgemm_fn)sd->fn)(sd->ctx, NLA_COL_MAJOR, tr, NLA_NO_TRANS, n, n, n, 1.5f, P.a,
                                  n, P.x, n, 0.5f, P.y, n);
    }
    if (!strcmp(P.op, "gemv")) {
        if (P.dbl)
            return ((dgemv_fn)sd->fn)(sd->ctx, tr, n, n, 1.5, P.a, n, P.x, 1, 0.5, P.y, 1);
        return ((sgemv_fn)sd->fn)(sd->ctx, tr, n, n, 1.5f, P.a, n, P.x, 1, 0.5f, P.y, 1);
    }
    if (P.dbl)
        return ((dspmv_fn)sd->fn)(sd->ctx, up, n, 1.5, P.a, P.x, 1, 0.5, P.y, 1);
    return ((sspmv_fn)sd->fn)(sd->ctx, up, n, 1.5f, P.a, P.x, 1, 0.5f, P.y, 1);
}

static void call_ref(void)
{
    enum CBLAS_TRANSPOSE tr = P.trans ? CblasTrans : CblasNoTrans;
    enum CBLAS_UPLO up = P.trans ? CblasLower : CblasUpper;
    int n = (int)P.n, kl = (int)P.kl, w = (int)P.ldab;

    if (!strcmp(P.op, "gbmv")) {
        if (P.dbl)
            cblas_dgbmv(CblasColMajor, tr, n, n, kl, kl, 1.5, P.a, w, P.x, 1, 0.5, P.y, 1);
        else
            cblas_sgbmv(CblasColMajor, tr, n, n, kl, kl, 1.5f, P.a, w, P.x, 1, 0.5f, P.y, 1);
    } else if (!strcmp(P.op, "gemm")) {
        if (P.dbl)
            cblas_dgemm(CblasColMajor, tr, CblasNoTrans, n, n, n, 1.5, P.a, n, P.x, n, 0.5, P.y,
                        n);
        else
            cblas_sgemm(CblasColMajor, tr, CblasNoTrans, n, n, n, 1.5f, P.a, n, P.x, n, 0.5f,
                        P.y, n);
    } else if (!strcmp(P.op, "gemv")) {
        if (P.dbl)
            cblas_dgemv(CblasColMajor, tr, n, n, 1.5, P.a, n, P.x, 1, 0.5, P.y, 1);
        else
            cblas_sgemv(CblasColMajor, tr, n, n, 1.5f, P.a, n, P.x, 1, 0.5f, P.y, 1);
    } else {
        if (P.dbl)
            cblas_dspmv(CblasColMajor, up, n, 1.5, P.a, P.x, 1, 0.5, P.y, 1);
        else
            cblas_sspmv(CblasColMajor, up, n, 1.5f, P.a, P.x, 1, 0.5f, P.y, 1);
    }
}

/* a cblas: side's cblas_?OP, called through the CBLAS ABI (enums as
   ints: 102 column major, 111/112 no/trans, 121/122 upper/lower) */
typedef void (*cgbmv_fn)(int, int, int, int, int, int, double, const void *, int, const void *,
                         int, double, void *, int);
typedef void (*cgbmvf_fn)(int, int, int, int, int, int, float, const void *, int, const void *,
                          int, float, void *, int);
typedef void (*cgemv_fn)(int, int, int, int, double, const void *, int, const void *, int,
                         double, void *, int);
typedef void (*cgemvf_fn)(int, int, int, int, float, const void *, int, const void *, int,
                          float, void *, int);
typedef void (*cspmv_fn)(int, int, int, double, const void *, const void *, int, double, void *,
                         int);
typedef void (*cspmvf_fn)(int, int, int, float, const void *, const void *, int, float, void *,
                          int);

static void call_cblas(const struct side *sd)
{
    int tr = P.trans ? 112 : 111, up = P.trans ? 122 : 121;
    int n = (int)P.n, kl = (int)P.kl, w = (int)P.ldab;

    if (!strcmp(P.op, "gbmv") && P.dbl)
        ((cgbmv_fn)sd->fn)(102, tr, n, n, kl, kl, 1.5, P.a, w, P.x, 1, 0.5, P.y, 1);
    else if (!strcmp(P.op, "gbmv"))
        ((cgbmvf_fn)sd->fn)(102, tr, n, n, kl, kl, 1.5f, P.a, w, P.x, 1, 0.5f, P.y, 1);
    else if (!strcmp(P.op, "gemv") && P.dbl)
        ((cgemv_fn)sd->fn)(102, tr, n, n, 1.5, P.a, n, P.x, 1, 0.5, P.y, 1);
    else if (!strcmp(P.op, "gemv"))
        ((cgemvf_fn)sd->fn)(102, tr, n, n, 1.5f, P.a, n, P.x, 1, 0.5f, P.y, 1);
    else if (P.dbl)
        ((cspmv_fn)sd->fn)(102, up, n, 1.5, P.a, P.x, 1, 0.5, P.y, 1);
    else
        ((cspmvf_fn)sd->fn)(102, up, n, 1.5f, P.a, P.x, 1, 0.5f, P.y, 1);
}

/* open "cblas:PATH[:PREFIX]" (spec is modified) */
static int open_cblas(struct side *sd, char *spec)
{
    char *path = spec + strlen("cblas:"), *prefix = strchr(path, ':'), fname[64];

    if (prefix)
        *prefix++ = '\0';
    if (!strcmp(P.op, "gemm")) {
        fprintf(stderr, "nla-ab: cblas: sides time level 2 only\n");
        return 0;
    }
    {
        /* the library's threads, read when it loads (OpenMP, OpenBLAS,
           MKL, BLIS) */
        char t[16];
        snprintf(t, sizeof t, "%d", P.threads);
        setenv("OMP_NUM_THREADS", t, 1);
        setenv("OPENBLAS_NUM_THREADS", t, 1);
        setenv("MKL_NUM_THREADS", t, 1);
        setenv("BLIS_NUM_THREADS", t, 1);
    }
    sd->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!sd->handle) {
        fprintf(stderr, "nla-ab: %s\n", dlerror());
        return 0;
    }
    snprintf(fname, sizeof fname, "%scblas_%c%s", prefix ? prefix : "", P.dbl ? 'd' : 's',
             P.op);
    sd->fn = dlsym(sd->handle, fname);
    if (!sd->fn) {
        fprintf(stderr, "nla-ab: %s has no %s\n", path, fname);
        return 0;
    }
    return 1;
}

/* whether spec names one of the bench's reads, that read in *kind */
static int read_kind(const char *spec, enum bench_read_kind *kind)
{
    static const struct {
        const char *name;
        enum bench_read_kind kind;
    } reads[] = { { "read", BENCH_READ_PLAIN },
                  { "readpf", BENCH_READ_PREFETCHED },
                  { "read4", BENCH_READ_RUNS } };

    for (size_t k = 0; k < sizeof reads / sizeof reads[0]; k++)
        if (!strcmp(spec, reads[k].name)) {
            *kind = reads[k].kind;
            return 1;
        }
    return 0;
}

static void call(const struct side *sd)
{
    if (sd->kind == LIB_READ)
        read_matrix(sd->read);
    else if (sd->kind == LIB_REF)
        call_ref();
    else if (sd->kind == LIB_CBLAS)
        call_cblas(sd);
    else
        call_nla(sd);
}

/* the median of k values, v left as it is */
static double median(const double *v, int k)
{
    double *c = malloc((size_t)k * sizeof *c), r;

    if (!c)
        return NAN;
    memcpy(c, v, (size_t)k * sizeof *c);
    r = bench_stats_of(c, k).median;
    free(c);
    return r;
}

static double elem(const void *v, int64_t i)
{
    return P.dbl ? ((const double *)v)[i] : (double)((const float *)v)[i];
}

/* copy src to a new file in dir; its path in out */
static int copy_file(const char *src, const char *dir, int idx, char *out, size_t len)
{
    char buf[1 << 16];
    int in, fd, ok = 1;
    ssize_t r = 0;

    snprintf(out, len, "%s/lib%d.so", dir, idx);
    in = open(src, O_RDONLY);
    if (in < 0)
        return 0;
    fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0700);
    if (fd < 0) {
        close(in);
        return 0;
    }
    while (ok && (r = read(in, buf, sizeof buf)) > 0)
        ok = write(fd, buf, (size_t)r) == r;
    ok = ok && r == 0;
    close(in);
    return close(fd) == 0 && ok;
}

/* open a libnla copy with its settings in the environment for its first
   call; spec is modified (split at '@' and '%') */
static int open_nla(struct side *sd, char *spec, const char *dir, int idx)
{
    char *settings = strchr(spec, '%'), *profile, path[4096], fname[16];
    char *names[16];
    int nnames = 0;
    create_fn create;
    threads_fn set_threads;

    if (settings)
        *settings++ = '\0';
    profile = strchr(spec, '@');
    if (profile)
        *profile++ = '\0';
    if (!copy_file(spec, dir, idx, path, sizeof path)) {
        fprintf(stderr, "nla-ab: cannot copy %s: %s\n", spec, strerror(errno));
        return 0;
    }
    sd->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    unlink(path);
    if (!sd->handle) {
        fprintf(stderr, "nla-ab: %s\n", dlerror());
        return 0;
    }
    snprintf(fname, sizeof fname, "nla_%c%s", P.dbl ? 'd' : 's', P.op);
    sd->fn = dlsym(sd->handle, fname);
    *(void **)&create = dlsym(sd->handle, "nla_context_create");
    *(void **)&set_threads = dlsym(sd->handle, "nla_context_set_threads");
    *(void **)&sd->destroy = dlsym(sd->handle, "nla_context_destroy");
    if (!sd->fn || !create || !set_threads || !sd->destroy) {
        fprintf(stderr, "nla-ab: %s lacks %s or the context functions\n", spec, fname);
        return 0;
    }
    while (settings) {
        char *next = strchr(settings, '%'), *eq;
        if (next)
            *next++ = '\0';
        eq = strchr(settings, '=');
        if (!eq || nnames == 16) {
            fprintf(stderr, "nla-ab: %s: at most 16 settings, each VAR=VALUE\n", settings);
            return 0;
        }
        *eq = '\0';
        setenv(settings, eq + 1, 1);
        names[nnames++] = settings;
        settings = next;
    }
    if (profile)
        setenv("NLA_CPU_TUNE", profile, 1);
    if (create(&sd->ctx, NLA_BACKEND_CPU) != NLA_OK || set_threads(sd->ctx, P.threads) != NLA_OK) {
        fprintf(stderr, "nla-ab: %s: no CPU context with %d threads\n", spec, P.threads);
        return 0;
    }
    memcpy(P.y, P.y0, P.ylen * P.esz);
    if (call_nla(sd) != NLA_OK) { /* the first call reads the environment */
        fprintf(stderr, "nla-ab: %s: nla_%c%s failed\n", spec, P.dbl ? 'd' : 's', P.op);
        return 0;
    }
    unsetenv("NLA_CPU_TUNE");
    for (int i = 0; i < nnames; i++)
        unsetenv(names[i]);
    return 1;
}

/* room for `bytes` bytes, starting `off` bytes past a page boundary;
   *base is what to free */
static void *page_offset(size_t bytes, int64_t off, void **base)
{
    size_t pad = ((size_t)off + 4095) / 4096 * 4096;
    char *p = aligned_alloc(4096, (bytes + pad + 4095) / 4096 * 4096);

    *base = p;
    return p ? p + off : NULL;
}

static int64_t env_int(const char *name, int64_t def)
{
    const char *v = getenv(name);
    return v && *v ? strtoll(v, NULL, 10) : def;
}

int main(int argc, char **argv)
{
    struct side *sides;
    int nsides, reps, first = -1;
    double settle;
    int64_t aoff, xoff, yoff, band;
    char dir[] = "/tmp/nla-ab.XXXXXX";
    void *ref, *bases[3];

    if (argc < 7 || (strcmp(argv[1], "gbmv") && strcmp(argv[1], "gemv") &&
                     strcmp(argv[1], "spmv") && strcmp(argv[1], "gemm"))) {
        fprintf(stderr, "usage: nla-ab gbmv|gemv|spmv|gemm d|s N|T|U|L THREADS REPS "
                        "LIB[@PROFILE][%%VAR=VALUE...]|ref|cblas:PATH[:PREFIX]|read|readpf|read4...\n"
                        "  environment: N, KL, LDAB (gbmv), SETTLE (ms), AOFF, XOFF, YOFF (bytes)\n");
        return 2;
    }
    P.op = argv[1];
    P.dbl = argv[2][0] == 'd';
    P.trans = argv[3][0] == 'T' || argv[3][0] == 'L';
    P.threads = atoi(argv[4]);
    reps = atoi(argv[5]);
    if (P.threads < 1 || reps < 1) {
        fprintf(stderr, "nla-ab: THREADS and REPS must be at least 1\n");
        return 2;
    }
    nsides = argc - 6;
    P.esz = P.dbl ? sizeof(double) : sizeof(float);
    P.kl = env_int("KL", 16);
    P.n = env_int("N", !strcmp(P.op, "gbmv") ? 1 << 20 : !strcmp(P.op, "gemm") ? 2048 : 8000);
    settle = (double)env_int("SETTLE", P.threads > 1 ? 150 : 0);
    aoff = env_int("AOFF", 0);
    xoff = env_int("XOFF", 0);
    yoff = env_int("YOFF", 0);
    band = 2 * P.kl + 1; /* gbmv's diagonals */
    P.ldab = env_int("LDAB", band);
    if (P.n < 1 || P.kl < 0 || P.kl >= P.n || P.ldab < band || P.ldab > (1 << 20)) {
        fprintf(stderr, "nla-ab: need N >= 1, 0 <= KL < N and 2 KL + 1 <= LDAB <= 2^20\n");
        return 2;
    }
    if (aoff < 0 || xoff < 0 || yoff < 0 || aoff % (int64_t)P.esz || xoff % (int64_t)P.esz ||
        yoff % (int64_t)P.esz) {
        fprintf(stderr, "nla-ab: AOFF, XOFF and YOFF are multiples of %zu bytes, at least 0\n",
                P.esz);
        return 2;
    }
    if (!strcmp(P.op, "gbmv"))
        P.abytes = (size_t)P.ldab * (size_t)P.n * P.esz;
    else if (!strcmp(P.op, "gemv") || !strcmp(P.op, "gemm"))
        P.abytes = (size_t)P.n * (size_t)P.n * P.esz;
    else
        P.abytes = (size_t)P.n * (size_t)(P.n + 1) / 2 * P.esz;
    P.ylen = !strcmp(P.op, "gemm") ? (size_t)P.n * (size_t)P.n : (size_t)P.n;
    /* gbmv: the band's bytes, not the padding's */
    P.work = !strcmp(P.op, "gemm")   ? 2.0 * (double)P.n * (double)P.n * (double)P.n
             : !strcmp(P.op, "gbmv") ? (double)band * (double)P.n * (double)P.esz
                                     : (double)P.abytes;

    P.a = page_offset(P.abytes, aoff, &bases[0]);
    P.x = page_offset(P.ylen * P.esz, xoff, &bases[1]);
    P.y = page_offset(P.ylen * P.esz, yoff, &bases[2]);
    P.y0 = malloc(P.ylen * P.esz);
    ref = malloc(P.ylen * P.esz);
    sides = calloc((size_t)nsides, sizeof *sides);
    if (!P.a || !P.x || !P.y || !P.y0 || !ref || !sides || !mkdtemp(dir)) {
        fprintf(stderr, "nla-ab: out of memory or no temporary directory\n");
        return 1;
    }
    srand(1);
    for (size_t i = 0; i < P.abytes / P.esz; i++) {
        double v = rand() / (double)RAND_MAX - 0.5;
        if (P.dbl)
            ((double *)P.a)[i] = v;
        else
            ((float *)P.a)[i] = (float)v;
    }
    for (size_t i = 0; i < P.ylen; i++) {
        double v = rand() / (double)RAND_MAX - 0.5;
        if (P.dbl)
            ((double *)P.x)[i] = ((double *)P.y0)[i] = v;
        else
            ((float *)P.x)[i] = ((float *)P.y0)[i] = (float)v;
    }
#ifdef NLA_REF_OPENBLAS
    openblas_set_num_threads(P.threads);
#endif

    for (int i = 0; i < nsides; i++) {
        struct side *sd = &sides[i];
        sd->spec = argv[6 + i];
        sd->gbs = calloc((size_t)reps, sizeof *sd->gbs);
        if (!sd->gbs)
            return 1;
        if (read_kind(sd->spec, &sd->read))
            sd->kind = LIB_READ;
        else if (!strcmp(sd->spec, "ref"))
            sd->kind = LIB_REF;
        else if (!strncmp(sd->spec, "cblas:", 6)) {
            sd->kind = LIB_CBLAS;
            if (!(sd->spec_buf = strdup(sd->spec)) || !open_cblas(sd, sd->spec_buf)) {
                rmdir(dir);
                return 1;
            }
        } else if (!(sd->spec_buf = strdup(sd->spec)) ||
                 !open_nla(sd, sd->spec_buf, dir, i)) {
            rmdir(dir);
            return 1;
        }
    }
    rmdir(dir);

    /* every y against the first library's */
    for (int i = 0; i < nsides; i++) {
        double diff = 0, big = 0;
        if (sides[i].kind == LIB_READ)
            continue;
        memcpy(P.y, P.y0, P.ylen * P.esz);
        call(&sides[i]);
        if (first < 0) {
            first = i;
            memcpy(ref, P.y, P.ylen * P.esz);
            continue;
        }
        for (size_t k = 0; k < P.ylen; k++) {
            diff = fmax(diff, fabs(elem(P.y, k) - elem(ref, k)));
            big = fmax(big, fabs(elem(ref, k)));
        }
        /* gemm sums n products in its own order */
        if (diff > big * (P.dbl ? 1e-10 : 1e-3) * (!strcmp(P.op, "gemm") ? (double)P.n : 1))
            printf("MISMATCH %s: max difference %g (max |y| %g) against %s\n", sides[i].spec,
                   diff, big, sides[first].spec);
    }

    for (int r = 0; r < reps; r++)
        for (int i = 0; i < nsides; i++) {
            int calls = 0;
            double t0, t;
            if (settle > 0)
                usleep((useconds_t)(settle * 1000));
            call(&sides[i]); /* warm */
            t0 = bench_now();
            do {
                call(&sides[i]);
                calls++;
                t = bench_now() - t0;
            } while (t < 0.02);
            sides[i].gbs[r] = (sides[i].kind == LIB_READ ? (double)P.abytes : P.work) * 1e-9 /
                              (t / calls);
        }

    printf("%s%s %c n=%lld", P.dbl ? "d" : "s", P.op, argv[3][0], (long long)P.n);
    if (!strcmp(P.op, "gbmv"))
        printf(" kl=ku=%lld", (long long)P.kl);
    if (!strcmp(P.op, "gbmv") && P.ldab != band)
        printf(" ldab=%lld (GB/s: the band's bytes; the reads': all of them)",
               (long long)P.ldab);
    printf(", %d thread%s, medians of %d; ratio: paired, against %s\n", P.threads,
           P.threads > 1 ? "s" : "", reps, sides[0].spec);
    for (int i = 0; i < nsides; i++) {
        double *ratio = malloc((size_t)reps * sizeof *ratio);
        if (!ratio)
            return 1;
        for (int r = 0; r < reps; r++)
            ratio[r] = sides[i].gbs[r] / sides[0].gbs[r];
        printf("%-40s %8.2f %s  x%.3f\n", sides[i].spec, median(sides[i].gbs, reps),
               strcmp(P.op, "gemm") || sides[i].kind == LIB_READ ? "GB/s" : "GFLOP/s",
               median(ratio, reps));
        free(ratio);
    }
    /* (the libraries stay open: their worker threads may still exist) */
    for (int i = 0; i < nsides; i++) {
        if (sides[i].ctx)
            sides[i].destroy(sides[i].ctx);
        free(sides[i].spec_buf);
        free(sides[i].gbs);
    }
    for (int k = 0; k < 3; k++)
        free(bases[k]);
    free(P.y0);
    free(ref);
    free(sides);
    return 0;
}
