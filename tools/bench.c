/*
 * bench.c - `nla bench`: options, the OpenBLAS environment re-exec, the
 * list of cases and the driver.  The harness is in bench_run.c, the
 * operations in bench_ops.c, the output in bench_report.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"

/* Set (to what was removed) in the environment of the re-executed bench. */
#define REEXEC_MARK "NLA_BENCH_REEXEC"

static const char *const openblas_vars[] = { "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE" };
#define N_OPENBLAS_VARS (sizeof openblas_vars / sizeof openblas_vars[0])

struct bench_opts {
    unsigned char sel[8][2];     /* [op][prec]: selected */
    unsigned char any_prec[8];   /* op named without d/s: follow --precision */
    int precs;                   /* bit BENCH_D, bit BENCH_S */
    int64_t n;
    int threads;                 /* the first of thr[] */
    int thr[4], nthr;            /* --threads T[,T...]; nthr 0: not given */
    nla_backend backend;
    int json, quick, keep_env;
    long long settle_ms;         /* -1: the default */
    int passes;                  /* --passes K */
    int fw;                      /* fw named (bench_fw.c) */
    const char *svg;             /* --svg FILE: the chart (bench_svg.c), or NULL */
    int background_load;         /* --background-load (bench_load.c) */
    const char *ref;             /* --ref LIB[:PREFIX] (bench_libs.c), or NULL */
    const char *refs;            /* --refs LIST: the references to keep, or NULL */
};

/* OpenBLAS's workers spin about 2^28 cycles after a call before they
   sleep; libgomp's spin for GOMP_SPINCOUNT pauses.  Wait them out. */
#define DEFAULT_SETTLE_S 0.15

static const char synopsis[] =
    "usage: nla bench [OP...] [--n N] [--precision d|s|both] [--backend cpu|cuda|auto]\n"
    "                 [--threads T] [--settle-ms MS] [--passes K] [--quick]\n"
    "                 [--json] [--keep-openblas-env] [--svg FILE]\n"
    "                 [--background-load] [--ref LIB[:PREFIX]] [--refs LIST]\n";

void nla_bench_usage(FILE *f)
{
    fputs(synopsis, f);
    fputs("\n"
          "Times libnla against its references, in one process.  The references are\n"
          "found and loaded when the bench runs (the nla command links libnla only):\n"
          "every CBLAS present for gemv, gbmv, spmv and gemm (OpenBLAS, BLIS, Intel\n"
          "MKL, the OpenBLAS of scipy-openblas32), FFTW and GSL for fft, cuBLAS and\n"
          "cuFFT for --backend cuda.  They are looked for by the loader's search and\n"
          "in the folders NLA_REF_PATH lists (colon-separated, searched a few levels\n"
          "deep: a Python venv with `pip install mkl scipy-openblas32` will do).\n"
          "The first CBLAS found (Debian's OpenBLAS, when installed) checks each\n"
          "row and is the ref column; every other one is timed beside it and shown\n"
          "as a ratio named by its version (vs mkl-2025.3.0 1.05).\n"
          "\n"
          "OP        gemv gbmv spmv gemm fft fftplan fw (default: all).  A d or s prefix (dgemm,\n"
          "          sgemv, ...) picks one precision; a bare name uses --precision.\n"
          "          fw: Frank-Wolfe, every variant (vanilla, away, pairwise,\n"
          "          blended pairwise, and lazy) on FrankWolfe.jl's problems: least\n"
          "          squares over the simplex at 100x30, 1000x500, 3000x4000 (vertex\n"
          "          and face optima), over the L1 ball and the K-sparse polytope at\n"
          "          1000x500, matrix completion over the nuclear ball at 1000x1000,\n"
          "          the Birkhoff polytope at n = 200 (--quick: 100x30, the\n"
          "          1000x500 face and the L1 ball): time to\n"
          "          gap 1e-4, 1e-6, 1e-8, iterations and LMO calls, then time per\n"
          "          iteration against its two gemv calls (double only, first\n"
          "          --threads count).  With --json it prints its own JSON object,\n"
          "          on its own line.\n"
          "--n N     one size for every op instead of the defaults:\n"
          "            gemm  m=n=k=64,256,1024,2048,4096, and m=n=4096 k=64,\n"
          "                  m=64 n=k=4096; 1 and 2 threads unless --threads\n"
          "                  (--quick: 64,256,1024 and 4096x4096x64)\n"
          "            gemv  m=n=1000,4000,8000, N and T (--quick: 2000)\n"
          "            gbmv  n=2^20, kl=ku=0,1,2,4,8,16,32,64,128, N and T\n"
          "                  (--quick: n=2^18, kl=ku=1,16)\n"
          "            spmv  n=1000,4000,8000, upper and lower (--quick: 2000)\n"
          "            (gemv, gbmv and spmv rows also give their fraction of the\n"
          "            STREAM triad, sampled beside each of the row's samples,\n"
          "            and of the best triad and of a read, plain, prefetched or\n"
          "            as four runs in step, measured at the start; all in the\n"
          "            same run and thread count.  \"of read\" counts the bytes\n"
          "            each call moves: the matrix, x, and y read and written;\n"
          "            \"of plain\" the same over the plain read alone)\n"
          "            fft   c2c n=2^2..2^22, c2c n=1000,1009,1200,2187,4093,\n"
          "                  15625,10^5,10^6,17*2^12, r2c and c2r n=2^6..2^22,1000,\n"
          "                  10^5 vs FFTW MEASURE (c2r: with PRESERVE_INPUT, as\n"
          "                  libnla's C2R); 2-D c2c and r2c 256^2, 1024^2, 4096^2 and\n"
          "                  3-D 64^3, 128^3, 256^3 vs FFTW's multi-dimensional\n"
          "                  plans; dct2 (REDFT10) n=1000,4096,65536 vs FFTW's\n"
          "                  r2r plan; c2c 2^6..2^22 vs GSL radix-2\n"
          "                  (--quick: c2c 2^6,2^10,2^14,2^16,1000,1009, r2c\n"
          "                  2^10,2^16, c2r 2^10; dct2 4096; gsl 2^10,2^16)\n"
          "            fftplan  c2c and r2c plans (ESTIMATE) of n=2^10,2^16,2^20,\n"
          "                  1000,10^5,10^6,1009,4093,2^20-3 made and destroyed vs\n"
          "                  FFTW_ESTIMATE (--quick: c2c 1009, r2c 2^16)\n"
          "--precision d|s|both   for bare op names (default both)\n"
          "--backend B   cpu (default), cuda, or auto (NLA_BACKEND, else cuda if\n"
          "          available, else cpu).  cuda: libnla's CUDA kernels on device\n"
          "          memory against cuBLAS and cuFFT (loaded at run time): gemm\n"
          "          n=4096,8192; gemv, gbmv, spmv as GB/s and as a fraction of a\n"
          "          device-to-device memcpy; c2c fft n=2^10..2^24 in batches of\n"
          "          2^26 points; fw: the device loop's iterations per second\n"
          "          against pairs of cuBLAS dgemv.  An unavailable cuda exits 3.\n"
          "--threads T[,T...]   threads for libnla and the references (default 1,\n"
          "          and 1,2 for gemm, gemv, gbmv, spmv; 0 means libnla's default,\n"
          "          OpenMP's maximum);\n"
          "          a list runs every row once per count\n"
          "--settle-ms MS   pause before each sample so that the other side's\n"
          "          worker threads stop spinning (default 150 with T > 1, else 0)\n"
          "--passes K   run the rows K times over (1 to 25, default 1), each\n"
          "          thread count's rows in turn, and show each row's pass with\n"
          "          the median ratio and the lowest..highest pass ratio: a few\n"
          "          seconds when the machine's memory is busy elsewhere then\n"
          "          tilt one pass, not the row\n"
          "--quick   smaller sizes, 1 thread unless --threads, and 5 samples of\n"
          "          >= 10 ms (default 9 of >= 20 ms)\n"
          "--json    print one JSON object instead of the table\n"
          "--svg FILE   also write the run as an SVG chart: throughput against size,\n"
          "          libnla and reference, one panel per operation and precision\n"
          "--keep-openblas-env   do not re-run without OPENBLAS_CORETYPE and\n"
          "          OPENBLAS_L2_SIZE (by default the bench removes them and\n"
          "          executes itself again, so OpenBLAS picks its best kernel)\n"
          "--background-load   while the rows run, a second thread (a pthread,\n"
          "          not pinned) reads and writes a 256 MiB buffer sweep after\n"
          "          sweep, as a busy neighbour on a user's machine would; it\n"
          "          starts before the stream baselines and the first row and\n"
          "          stops after the last.  With 1 bench thread on a 2-CPU\n"
          "          machine it takes the other CPU; with --threads 2 (and the\n"
          "          default 1,2 sweep's 2-thread rows) it competes with the\n"
          "          bench's own threads for the CPUs.  The header says it is on,\n"
          "          the footer gives its GB/s; --json: \"background_load\": true\n"
          "--ref LIB[:PREFIX]   one more CBLAS for gemv, gbmv, spmv and gemm: LIB\n"
          "          (a path, or a name dlopen finds), PREFIX before every name\n"
          "          (scipy_ for scipy_cblas_dgemv).  It is timed beside the\n"
          "          others (it checks the rows when it is the only one).  Every\n"
          "          library's threads follow --threads (openblas_set_num_threads,\n"
          "          MKL_Set_Num_Threads, bli_thread_set_num_threads); MKL runs on\n"
          "          its GNU threading layer (libgomp, as libnla) unless\n"
          "          MKL_THREADING_LAYER is set.  A library that cannot be loaded\n"
          "          or lacks a symbol exits 2.  For example:\n"
          "            --ref /opt/lib/libmyblas.so\n"
          "--refs LIST   keep only the references whose names (as the header\n"
          "          lists them) start with a word of the comma-separated LIST:\n"
          "          --refs openblas,fftw,gsl leaves out MKL and BLIS; a word that\n"
          "          matches none exits 2\n"
          "\n"
          "Every call is out = 1.0*op(in) + 0.5*out, column-major, on random data in\n"
          "[-1,1].  Before timing, libnla's result must agree with the reference:\n"
          "|nla-ref|_i <= 2(d+2)eps * (|op(A)||x| + |beta||y0|)_i, d = terms per sum;\n"
          "a row that does not is FAIL.  Samples alternate libnla, reference, ...;\n"
          "the table shows the median and p25..p75 of the throughput, and the\n"
          "ratio: the median of libnla's sample i / the reference's sample i\n"
          "(taken right after it; --json also gives the ratio of the medians).\n"
          "Units:\n", f);
    for (int i = 0; bench_ops[i]; i++)
        fprintf(f, "  %-5s %-8s %s per call\n", bench_ops[i]->name,
                bench_ops[i]->unit, bench_ops[i]->work_doc);
    fputs("\nExit status: 0 all rows ok, 1 a check failed or a call failed,\n"
          "2 usage error, 3 the backend asked for is not available.\n", f);
}

/* ------------------------------------------------------------ re-exec */

void nla_bench_reexec(int argc, char **argv)
{
    char removed[512] = "";
    size_t len = 0;

    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--keep-openblas-env") == 0)
            return;
    if (getenv(REEXEC_MARK))
        return;
    for (size_t i = 0; i < N_OPENBLAS_VARS; i++) {
        const char *v = getenv(openblas_vars[i]);
        if (v && len < sizeof removed)
            len += (size_t)snprintf(removed + len, sizeof removed - len, "%s%s=%s",
                                    len ? " " : "", openblas_vars[i], v);
    }
    if (!len)
        return;
    for (size_t i = 0; i < N_OPENBLAS_VARS; i++)
        unsetenv(openblas_vars[i]);
    setenv(REEXEC_MARK, removed, 1);
    fflush(NULL);
    execv("/proc/self/exe", argv);
    fprintf(stderr, "nla bench: warning: cannot execute /proc/self/exe (%s); "
            "OpenBLAS keeps %s\n", strerror(errno), removed);
    unsetenv(REEXEC_MARK);
}

/* The OPENBLAS_* variables in effect, for the header; NULL if none. */
static const char *kept_openblas_env(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_OPENBLAS_VARS; i++) {
        const char *v = getenv(openblas_vars[i]);
        if (v && len < size)
            len += (size_t)snprintf(buf + len, size - len, "%s%s=%s",
                                    len ? " " : "", openblas_vars[i], v);
    }
    return len ? buf : NULL;
}

/* ------------------------------------------------------------ options */

static int usage_error(const char *fmt, const char *arg)
{
    fputs("nla bench: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    fputs(synopsis, stderr);
    fputs("'nla help bench' describes each option.\n", stderr);
    return NLA_EXIT_USAGE;
}

static int parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* An op name: "gemv", "dgemv" or "sgemv". */
static int select_op(struct bench_opts *o, const char *name)
{
    int prec = -1;
    if (strcmp(name, "all") == 0) {
        for (int i = 0; bench_ops[i]; i++)
            o->any_prec[i] = 1;
        o->fw = 1;
        return 0;
    }
    if (strcmp(name, "fw") == 0 || strcmp(name, "dfw") == 0) {
        o->fw = 1;
        return 0;
    }
    if ((name[0] == 'd' || name[0] == 's') && !bench_op_find(name)) {
        prec = name[0] == 'd' ? BENCH_D : BENCH_S;
        name++;
    }
    for (int i = 0; bench_ops[i]; i++) {
        if (strcmp(bench_ops[i]->name, name) != 0)
            continue;
        if (prec < 0)
            o->any_prec[i] = 1;
        else
            o->sel[i][prec] = 1;
        return 0;
    }
    return -1;
}

static int set_option(struct bench_opts *o, const char *opt, const char *val)
{
    long long v;
    if (strcmp(opt, "--n") == 0) {
        if (parse_int(val, 1, INT_MAX, &v))   /* CBLAS takes int sizes */
            return usage_error("--n wants a size from 1 to 2^31-1, not '%s'", val);
        o->n = v;
    } else if (strcmp(opt, "--threads") == 0) {
        char item[32];
        const char *p = val;
        o->nthr = 0;
        do {
            size_t len = strcspn(p, ",");
            snprintf(item, sizeof item, "%.*s", (int)(len < 31 ? len : 31), p);
            if (o->nthr == 4 || parse_int(item, 0, 4096, &v))
                return usage_error("--threads wants up to 4 counts >= 0 (1,2), not '%s'",
                                   val);
            o->thr[o->nthr++] = (int)v;
            p += len;
        } while (*p++ == ',');
        o->threads = o->thr[0];
    } else if (strcmp(opt, "--settle-ms") == 0) {
        if (parse_int(val, 0, 10000, &v))
            return usage_error("--settle-ms wants milliseconds >= 0, not '%s'", val);
        o->settle_ms = v;
    } else if (strcmp(opt, "--passes") == 0) {
        if (parse_int(val, 1, 25, &v))
            return usage_error("--passes wants a count from 1 to 25, not '%s'", val);
        o->passes = (int)v;
    } else if (strcmp(opt, "--backend") == 0) {
        if (strcmp(val, "cpu") == 0)
            o->backend = NLA_BACKEND_CPU;
        else if (strcmp(val, "cuda") == 0)
            o->backend = NLA_BACKEND_CUDA;
        else if (strcmp(val, "auto") == 0)
            o->backend = NLA_BACKEND_AUTO;
        else
            return usage_error("--backend wants cpu, cuda or auto, not '%s'", val);
    } else if (strcmp(opt, "--svg") == 0) {
        o->svg = val;
    } else if (strcmp(opt, "--ref") == 0) {
        o->ref = val;
    } else if (strcmp(opt, "--refs") == 0) {
        o->refs = val;
    } else if (strcmp(opt, "--precision") == 0) {
        if (strcmp(val, "d") == 0)
            o->precs = 1 << BENCH_D;
        else if (strcmp(val, "s") == 0)
            o->precs = 1 << BENCH_S;
        else if (strcmp(val, "both") == 0)
            o->precs = 1 << BENCH_D | 1 << BENCH_S;
        else
            return usage_error("--precision wants d, s or both, not '%s'", val);
    } else {
        return usage_error("unknown option '%s'", opt);
    }
    return 0;
}

static int set_flag(struct bench_opts *o, const char *arg)
{
    if (strcmp(arg, "--json") == 0)
        o->json = 1;
    else if (strcmp(arg, "--quick") == 0)
        o->quick = 1;
    else if (strcmp(arg, "--keep-openblas-env") == 0)
        o->keep_env = 1;
    else if (strcmp(arg, "--background-load") == 0)
        o->background_load = 1;
    else
        return -1;
    return 0;
}

static int is_valued(const char *opt)
{
    static const char *const names[] = { "--n", "--threads", "--backend", "--precision",
                                         "--settle-ms", "--passes", "--svg", "--ref",
                                         "--refs" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(opt, names[i]) == 0)
            return 1;
    return 0;
}

/* Returns -1 to go on, or an exit status. */
static int parse_args(struct bench_opts *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->precs = 1 << BENCH_D | 1 << BENCH_S;
    o->threads = 1;
    o->settle_ms = -1;
    o->passes = 1;
    o->backend = NLA_BACKEND_CPU;
    for (int i = 1; i < argc; i++) {
        char opt[32];
        const char *a = argv[i], *eq = strchr(a, '=');
        int rc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            nla_bench_usage(stdout);
            return NLA_EXIT_OK;
        }
        if (a[0] != '-') {
            if (select_op(o, a))
                return usage_error("unknown operation '%s'", a);
            continue;
        }
        if (set_flag(o, a) == 0)
            continue;
        snprintf(opt, sizeof opt, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        if (!is_valued(opt))
            return usage_error("unknown option '%s'", a);
        if (!eq && i + 1 >= argc)
            return usage_error("%s needs a value", a);
        if ((rc = set_option(o, opt, eq ? eq + 1 : argv[++i])) != 0)
            return rc;
    }
    return -1;
}

/* ------------------------------------------------------------- cases */

/* 1 if an operation of the table was named (fw is not in the table). */
static int ops_named(const struct bench_opts *o)
{
    int any = 0;
    for (int i = 0; bench_ops[i]; i++)
        any |= o->any_prec[i] | o->sel[i][0] | o->sel[i][1];
    return any;
}

static int build_cases(const struct bench_opts *o, struct bench_case *out)
{
    int any = 0, n = 0;
    for (int i = 0; bench_ops[i]; i++)
        any |= o->any_prec[i] | o->sel[i][0] | o->sel[i][1];
    for (int i = 0; bench_ops[i]; i++)
        for (int p = BENCH_D; p <= BENCH_S; p++) {
            int want = o->sel[i][p] || ((!any || o->any_prec[i]) && (o->precs >> p & 1));
            /* room for the longest list an op gives (fft: 100) */
            if (want && n + BENCH_OP_MAX_CASES <= BENCH_MAX_CASES)
                n += bench_ops[i]->cases((bench_prec)p, o->quick, o->n, out + n);
        }
    return n;
}

/* --backend cuda: libnla's CUDA kernels against cuBLAS/cuFFT (bench_cuda.c) */
static int run_cuda(const struct bench_opts *o)
{
    struct bench_cuda_opts c;
    int all = !ops_named(o) && !o->fw; /* no op named: all of them */
    memset(&c, 0, sizeof c);
    c.quick = o->quick;
    c.json = o->json;
    c.n = o->n;
    c.fw = o->fw || all;
    for (int i = 0; bench_ops[i]; i++) {
        const char *name = bench_ops[i]->name;
        int precs = o->sel[i][0] << BENCH_D | o->sel[i][1] << BENCH_S;
        if (all || o->any_prec[i])
            precs |= o->precs;
        if (strcmp(name, "gemm") == 0)
            c.gemm = precs;
        else if (strcmp(name, "gemv") == 0)
            c.gemv = precs;
        else if (strcmp(name, "gbmv") == 0)
            c.gbmv = precs;
        else if (strcmp(name, "spmv") == 0)
            c.spmv = precs;
        else if (strcmp(name, "fft") == 0)
            c.fft = precs;
    }
    return bench_cuda_main(&c);
}

/* ------------------------------------------------------------ context */

static int open_context(const struct bench_opts *o, struct bench_config *cfg,
                        nla_context **ctx)
{
    nla_status s;
    if (o->backend == NLA_BACKEND_CUDA && !nla_backend_available(NLA_BACKEND_CUDA)) {
        fprintf(stderr, "cuda: not available (%s)\n",
                nla_backend_unavailable_reason(NLA_BACKEND_CUDA));
        return NLA_EXIT_NOBACKEND;
    }
    if ((s = nla_context_create(ctx, o->backend)) != NLA_OK) {
        fprintf(stderr, "nla bench: %s\n", nla_last_error());
        return s == NLA_ENOBACKEND ? NLA_EXIT_NOBACKEND : NLA_EXIT_FAIL;
    }
    cfg->backend_req = o->backend;
    cfg->backend = nla_context_backend(*ctx);
    if (o->backend == NLA_BACKEND_AUTO && cfg->backend == NLA_BACKEND_CPU &&
        !nla_backend_available(NLA_BACKEND_CUDA))
        cfg->backend_note = nla_backend_unavailable_reason(NLA_BACKEND_CUDA);
    if ((s = nla_context_set_threads(*ctx, o->threads)) != NLA_OK) {
        fprintf(stderr, "nla bench: %s\n", nla_context_error(*ctx));
        nla_context_destroy(*ctx);
        return NLA_EXIT_FAIL;
    }
    cfg->threads = nla_context_threads(*ctx);
    return -1;
}

/* Every reference on cfg->threads threads; the checking CBLAS's kernel
   and version for the header. */
static void setup_reference(struct bench_config *cfg)
{
    const struct bench_lib *l;

    bench_libs_threads(cfg->threads);
    if (bench_libs_of(BENCH_LIB_CBLAS, &l, 1)) {
        cfg->openblas_core = l->core[0] ? l->core : "unknown";
        cfg->openblas_config = l->version;
    } else {
        cfg->openblas_core = "none";
        cfg->openblas_config = "no CBLAS found";
    }
}

/* -------------------------------------------------------------- main */

/* The thread counts to run: --threads as given, else 1 and (for gemm
   and level-2 rows only) 2.  Returns how many; *gemm_only: the counts after the first
   apply to gemm rows only. */
static int thread_counts(const struct bench_opts *o, int *thr, int *gemm_only)
{
    *gemm_only = o->nthr == 0;
    if (o->nthr == 0 && o->quick) {
        /* the tour stays short: one thread unless asked */
        thr[0] = 1;
        return 1;
    }
    if (o->nthr == 0) {
        thr[0] = 1;
        thr[1] = 2;
        return 2;
    }
    memcpy(thr, o->thr, sizeof o->thr);
    return o->nthr;
}

/* Sets both sides to t threads; -1 on success, else an exit status. */
static int use_threads(nla_context *ctx, struct bench_config *cfg, int t,
                       long long settle_ms)
{
    if (nla_context_set_threads(ctx, t) != NLA_OK) {
        fprintf(stderr, "nla bench: %s\n", nla_context_error(ctx));
        return NLA_EXIT_FAIL;
    }
    cfg->threads = nla_context_threads(ctx);
    cfg->settle_s = settle_ms >= 0 ? settle_ms * 1e-3 : cfg->threads > 1 ? DEFAULT_SETTLE_S : 0;
    setup_reference(cfg);
    return -1;
}

/* Level-2 rows (GB/s of matrix bytes): also run at 2 threads by default,
   and reported against the STREAM triad. */
static int row_is_l2(const struct bench_op *op)
{
    return strcmp(op->unit, "GB/s") == 0;
}

/* The STREAM triad and the read at cfg->threads, in this run, if a
   level-2 row is in. */
static void measure_stream(struct bench_config *cfg, const struct bench_case *cases,
                           int ncases)
{
    cfg->stream_gbs = cfg->read_gbs = 0;
    memset(cfg->read_kinds, 0, sizeof cfg->read_kinds);
    for (int i = 0; i < ncases; i++)
        if (row_is_l2(cases[i].op)) {
            const char *s = cfg->threads == 1 ? "" : "s";
            const double *k = cfg->read_kinds;
            cfg->stream_gbs = bench_stream_triad(cfg->threads, cfg->quick);
            cfg->read_gbs = bench_stream_read(cfg->threads, cfg->quick, cfg->read_kinds);
            if (!cfg->json)
                printf("stream triad, %d thread%s: %.2f GB/s; read: %.2f GB/s (plain %.2f, "
                       "prefetched %.2f, four runs %.2f; best of %d each)\n",
                       cfg->threads, s, cfg->stream_gbs, cfg->read_gbs, k[0], k[1], k[2],
                       cfg->quick ? 5 : 10);
            return;
        }
}

/* *out = the pass of one row (of k) with the median ratio (the lower of
   the two middle ones for even k), with the range of the passes' ratios;
   a row that failed in any pass (bench_run_case) shows that pass. */
static void median_pass(struct bench_result *out, const struct bench_result *p, int k)
{
    int idx[25], n = 0;

    for (int i = 0; i < k; i++)
        if (p[i].error[0] || !p[i].check_ok) {
            *out = p[i];
            return;
        }
    for (int i = 0; i < k; i++)
        if (p[i].timed)
            idx[n++] = i;
    if (n == 0) {
        *out = p[0];
        return;
    }
    for (int i = 1; i < n; i++)   /* insertion sort by ratio */
        for (int j = i; j > 0 && p[idx[j]].ratio < p[idx[j - 1]].ratio; j--) {
            int s = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = s;
        }
    *out = p[idx[(n - 1) / 2]];
    out->passes = k;
    out->ratio_lo = p[idx[0]].ratio;
    out->ratio_hi = p[idx[n - 1]].ratio;
}

/* With --passes on a terminal the rows come only after their last pass:
   until then one line on stderr, rewritten, says how far the run is
   (quiet with --json or when stderr is not a terminal). */
static void progress(const struct bench_config *cfg, int pass, int row, int nrows,
                     const struct bench_case *c)
{
    char shape[64];

    if (cfg->json || cfg->passes <= 1 || !isatty(STDERR_FILENO))
        return;
    if (!c) {   /* done: clear the line */
        fprintf(stderr, "\r%78s\r", "");
        return;
    }
    c->op->shape(c, shape, sizeof shape);
    fprintf(stderr, "\r  pass %d of %d, row %d of %d: %s%s %-32.32s", pass + 1, cfg->passes,
            row + 1, nrows, bench_prec_name(c->prec), c->op->name, shape);
    fflush(stderr);
}

/* Whether case c runs at the t-th thread count: past the first, a gemm
   sweep runs only gemm and the level-2 rows. */
static int case_runs(const struct bench_case *c, int t, int gemm_only)
{
    return t == 0 || !gemm_only || c->op == bench_op_find("gemm") || row_is_l2(c->op);
}

static int run_all(nla_context *ctx, struct bench_config *cfg, const struct bench_opts *o,
                   const struct bench_case *cases, int ncases)
{
    int thr[4], gemm_only, nt = thread_counts(o, thr, &gemm_only);
    struct bench_result *res = calloc((size_t)(ncases * nt), sizeof *res);
    struct bench_result *pass = calloc((size_t)ncases * (size_t)cfg->passes, sizeof *pass);
    char list[64] = "";
    double t0 = bench_now();
    int nfail = 0, nrows = 0, rc;

    if (!res || !pass) {
        fputs("nla bench: out of memory\n", stderr);
        free(res);
        free(pass);
        return NLA_EXIT_FAIL;
    }
    for (int t = 0, len = 0; t < nt && len < (int)sizeof list; t++)
        len += snprintf(list + len, sizeof list - (size_t)len, "%s%d", t ? "," : "", thr[t]);
    cfg->threads_list = nt > 1 ? list : NULL;
    if (!cfg->json)
        bench_report_header(stdout, cfg);
    for (int t = 0; t < nt; t++) {
        if ((rc = use_threads(ctx, cfg, thr[t], o->settle_ms)) >= 0) {
            free(res);
            free(pass);
            return rc;
        }
        measure_stream(cfg, cases, ncases);
        for (int p = 0; p < cfg->passes; p++)
            for (int i = 0; i < ncases; i++) {
                struct bench_result *r = &pass[i * cfg->passes + p];
                if (!case_runs(&cases[i], t, gemm_only))
                    continue;
                progress(cfg, p, i, ncases, &cases[i]);
                bench_run_case(ctx, cfg, &cases[i], r);
                if (!cfg->json && cfg->passes == 1)   /* one pass: as it ends */
                    bench_report_row(stdout, r);
            }
        progress(cfg, 0, 0, 0, NULL);
        for (int i = 0; i < ncases; i++) {
            if (!case_runs(&cases[i], t, gemm_only))
                continue;
            median_pass(&res[nrows], pass + i * cfg->passes, cfg->passes);
            nfail += res[nrows].error[0] || !res[nrows].check_ok;
            if (!cfg->json && cfg->passes > 1)
                bench_report_row(stdout, &res[nrows]);
            nrows++;
        }
        bench_triad_free();
    }
    free(pass);
    if (cfg->json)
        bench_report_json(stdout, cfg, res, nrows, nfail, bench_now() - t0);
    else
        bench_report_footer(stdout, nrows, nfail, bench_now() - t0);
    if (cfg->background_load && !cfg->json)
        printf("background load: %.1f GB/s read and written so far\n", bench_load_gbs());
    if (o->svg && bench_svg_write(o->svg, cfg, res, nrows) != 0) {
        fprintf(stderr, "nla bench: cannot write %s: %s\n", o->svg, strerror(errno));
        nfail++;
    } else if (o->svg) {
        fprintf(cfg->json ? stderr : stdout, "chart: %s\n", o->svg);
    }
    free(res);
    return nfail ? NLA_EXIT_FAIL : NLA_EXIT_OK;
}

int nla_bench_main(int argc, char **argv)
{
    static struct bench_case cases[BENCH_MAX_CASES];
    struct bench_opts o;
    struct bench_config cfg;
    nla_context *ctx = NULL;
    char kept[512];
    int rc, ncases;

    if ((rc = parse_args(&o, argc, argv)) >= 0)
        return rc;
    if (o.backend == NLA_BACKEND_CUDA && (o.background_load || o.ref || o.refs))
        return usage_error("%s: --background-load, --ref and --refs are for the cpu backend",
                           "--backend cuda");
    if (o.backend == NLA_BACKEND_CUDA)
        return run_cuda(&o);
    if ((rc = bench_libs_open(o.ref, o.refs)) >= 0)
        return rc;
    memset(&cfg, 0, sizeof cfg);
    if ((rc = open_context(&o, &cfg, &ctx)) >= 0)
        return rc;
    cfg.quick = o.quick;
    cfg.json = o.json;
    cfg.samples = o.quick ? 5 : 9;
    cfg.passes = o.passes;
    cfg.min_sample_s = o.quick ? 0.010 : 0.020;
    cfg.settle_s = o.settle_ms >= 0 ? o.settle_ms * 1e-3
                   : cfg.threads > 1 ? DEFAULT_SETTLE_S : 0;
    cfg.env_removed = getenv(REEXEC_MARK);
    cfg.env_kept = kept_openblas_env(kept, sizeof kept);
    setup_reference(&cfg);
    if (cfg.env_removed && cfg.json)
        fprintf(stderr, "nla bench: re-executed without %s; OpenBLAS chose core %s\n",
                cfg.env_removed, cfg.openblas_core);
    ncases = build_cases(&o, cases);
    if ((cfg.background_load = o.background_load) && bench_load_start() != 0) {
        fprintf(stderr, "nla bench: --background-load: %s\n", strerror(errno));
        nla_context_destroy(ctx);
        return NLA_EXIT_FAIL;
    }
    rc = NLA_EXIT_OK;
    if (!o.fw || ops_named(&o))
        rc = run_all(ctx, &cfg, &o, cases, ncases);
    if ((o.fw || (!ops_named(&o) && (o.precs >> BENCH_D & 1))) && rc != NLA_EXIT_USAGE) {
        int trc = use_threads(ctx, &cfg, o.threads, o.settle_ms);
        if (!cfg.json && (!o.fw || ops_named(&o)))
            fputc('\n', stdout);
        if (trc >= 0 || bench_fw_run(ctx, &cfg) != 0)
            rc = NLA_EXIT_FAIL;
    }
    if (cfg.background_load && bench_load_stop() != 0)
        fprintf(stderr, "nla bench: --background-load: cannot stop: %s\n", strerror(errno));
    nla_context_destroy(ctx);
    return rc;
}
