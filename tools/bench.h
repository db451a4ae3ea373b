/*
 * bench.h - what the files of the `nla` command share.  Not installed.
 *
 *   nla.c          main: subcommand dispatch, usage
 *   info.c         `nla info`
 *   bench.c        `nla bench`: options, the OpenBLAS re-exec, the driver
 *   bench_ops.c    the table of operations (one entry per kernel)
 *   bench_run.c    the harness: data, the check, timing, statistics
 *   bench_report.c the table and the JSON output
 *   bench_svg.c    the chart (--svg)
 *   bench_cuda.c   --backend cuda: against cuBLAS and cuFFT
 *   bench_load.c   --background-load: a thread that streams memory
 *   bench_libs.c   the references (CBLAS, FFTW, GSL), found and dlopen'ed
 */
#ifndef NLA_TOOLS_BENCH_H
#define NLA_TOOLS_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "nla.h"

/* Exit codes of the `nla` command. */
enum {
    NLA_EXIT_OK = 0,
    NLA_EXIT_FAIL = 1,         /* a check failed or a call returned an error */
    NLA_EXIT_USAGE = 2,        /* unknown subcommand, operation or option */
    NLA_EXIT_NOBACKEND = 3     /* the backend asked for is not available */
};

/* Subcommands: argv[0] is the subcommand's name. */
int nla_info_main(int argc, char **argv);
/* nla wisdom (wisdom.c) */
int nla_wisdom_main(int argc, char **argv);
void nla_wisdom_usage(FILE *f);
/* info_forms.c: the level-2 forms of the bench's band shapes; one shape's */
void nla_info_forms(void);
int nla_info_form_query(int argc, char **argv);
int nla_bench_main(int argc, char **argv);
/* Called by main before anything else when the subcommand is bench: if
   OPENBLAS_CORETYPE or OPENBLAS_L2_SIZE is set (OpenBLAS reads them when it
   loads), remove them and execute the program again.  argv is main's. */
void nla_bench_reexec(int argc, char **argv);
void nla_bench_usage(FILE *f);

/* Every benchmarked call is out = ALPHA*op(in) + BETA*out. */
#define BENCH_ALPHA 1.0
#define BENCH_BETA 0.5

typedef enum bench_prec { BENCH_D = 0, BENCH_S = 1 } bench_prec;

/* One row of the benchmark: an operation and its shape. */
struct bench_case {
    const struct bench_op *op;
    bench_prec prec;
    int64_t m, n, k;           /* gemm: m n k; gemv, gbmv: m n; spmv: n */
    int64_t kl, ku;            /* gbmv */
    nla_trans trans;           /* gemv, gbmv */
    nla_uplo uplo;             /* spmv */
};

/* Element counts of the two inputs (a: the matrix; b: x or B) and of the
   output (y or C). */
struct bench_sizes { size_t a, b, y; };

/* Which dimensions an operation has (for the JSON "dims"). */
enum { BENCH_DIM_K = 1, BENCH_DIM_BAND = 2, BENCH_DIM_TRANS = 4 };

#define BENCH_MAX_CASES 640
#define BENCH_OP_MAX_CASES 128     /* the most one op's cases() gives */

/* bench_libs.c: a reference library, loaded when the bench runs */
enum bench_lib_kind { BENCH_LIB_CBLAS, BENCH_LIB_FFTW, BENCH_LIB_GSL };
#define BENCH_MAX_REFS 8
struct bench_lib {
    enum bench_lib_kind kind;
    char id[48];               /* its column's name, with its version:
                                  "openblas-0.3.21", "mkl-2025.3.0", "fftw-3.3.10" */
    char path[8200];           /* what was loaded (FFTW: both files) */
    char prefix[32];           /* CBLAS: before every name ("scipy_"), or "" */
    char version[256];         /* its own version or configuration string */
    char core[160];            /* the kernel or code path it chose, or "" */
    char threading[96];        /* how its threads run */
    void *h;
    /* FFTW: [double, float][malloc, free, plan_dft_1d, plan_dft_r2c_1d,
       execute_dft, execute_dft_r2c, destroy_plan, plan_dft, plan_dft_r2c,
       plan_r2r_1d, execute_r2r, plan_dft_c2r_1d, execute_dft_c2r] */
    void *fftw[2][13];
    void *gsl[2];              /* GSL: radix-2 forward, double and float */
};

struct bench_op {
    const char *name;          /* "gemv" */
    const char *unit;          /* "GFLOP/s" or "GB/s" */
    const char *work_doc;      /* the formula of work(), for --help */
    int dims;                  /* BENCH_DIM_* */
    void (*sizes)(const struct bench_case *c, struct bench_sizes *s);
    nla_status (*run_nla)(nla_context *ctx, const struct bench_case *c,
                          const void *a, const void *b, void *y);
    /* the reference call, with a library of ref_kind(c) */
    void (*run_ref)(const struct bench_lib *lib, const struct bench_case *c,
                    const void *a, const void *b, void *y);
    double (*work)(const struct bench_case *c);    /* flops or bytes per call */
    int64_t (*depth)(const struct bench_case *c);  /* terms summed per output */
    void (*shape)(const struct bench_case *c, char *buf, size_t len);
    /* Append the default cases (n > 0: that size instead); returns how many. */
    int (*cases)(bench_prec p, int quick, int64_t n, struct bench_case *out);
    enum bench_lib_kind (*ref_kind)(const struct bench_case *c);
    /* The check's calls where they differ from the timed ones (fftplan:
       the timed calls make and destroy a plan, the check's runs it too),
       or NULL */
    nla_status (*check_nla)(nla_context *ctx, const struct bench_case *c,
                            const void *a, const void *b, void *y);
    void (*check_ref)(const struct bench_lib *lib, const struct bench_case *c,
                      const void *a, const void *b, void *y);
};

/* bench_ops.c */
extern const struct bench_op *const bench_ops[];   /* NULL-terminated */
/* bench_fft.c: the fft op, and fftplan (the time to make a plan) */
extern const struct bench_op bench_op_fft, bench_op_fftplan;
const struct bench_op *bench_op_find(const char *name);
size_t bench_elsize(bench_prec p);
const char *bench_prec_name(bench_prec p);

/* How the measurement is run and what the header says. */
struct bench_config {
    int threads;               /* effective, on both sides (of the rows now run) */
    const char *threads_list;  /* "1,2" when several counts are run, else NULL */
    double stream_gbs;         /* STREAM triad GB/s at `threads`, 0: not measured */
    double read_gbs;           /* read GB/s at `threads` (the best of plain,
                                  prefetched and four runs), 0: not measured */
    double read_kinds[3];      /* those three reads (enum bench_read_kind) */
    int quick, json;
    int samples;               /* per side */
    int passes;                /* --passes: times each row is run */
    double min_sample_s;       /* each timed batch lasts at least this */
    double settle_s;           /* pause before each sample (threads > 1) */
    nla_backend backend_req;   /* as asked */
    nla_backend backend;       /* what the context resolved to */
    const char *backend_note;  /* why AUTO did not pick CUDA, or NULL */
    const char *openblas_core;  /* the checking CBLAS's kernel and version */
    const char *openblas_config;
    const char *env_removed;   /* OPENBLAS_* removed by the re-exec, or NULL */
    const char *env_kept;      /* OPENBLAS_* kept (--keep-openblas-env), or NULL */
    int background_load;       /* --background-load: bench_load.c's thread runs */
};

/* bench_stats.c: the medians and quartiles of a row's samples (n of them) */
struct bench_stats { double median, p25, p75; int n; };
double bench_now(void); /* seconds, monotonic */
/* sorts v; quartiles linear between neighbours */
struct bench_stats bench_stats_of(double *v, int n);

struct bench_result {
    struct bench_case c;
    char shape[64];
    int threads;
    const char *ran_on;        /* nla_context_last_backend after the check */
    const struct bench_lib *ref_lib; /* the reference that checked the row */
    struct bench_stats nla, ref;
    double ratio;              /* median of the paired ratios: libnla's sample i
                                  / the reference's sample i, taken after it */
    double ratio_medians;      /* nla.median / ref.median */
    int passes;                /* > 1: this is the pass with the median ratio
                                  of that many (nla bench --passes) */
    double ratio_lo, ratio_hi; /* the lowest and highest pass's ratio */
    double max_rel_err, tol;
    int check_ok;
    int timed;                 /* 0: not timed (see error) */
    double stream_gbs;         /* STREAM triad GB/s at this row's threads (GB/s
                                  rows), 0: not measured */
    double read_gbs;           /* read GB/s, likewise */
    double read_kinds[3];      /* its plain, prefetched and four-run reads */
    double moved_per_work;     /* GB/s rows: bytes moved a call (the matrix,
                                  x once, y read and written) / its work
                                  (the matrix bytes); the read limit is
                                  read_gbs / moved_per_work GB/s of work */
    double triad_paired;       /* the median of the triad samples taken with
                                  the row's samples (GB/s rows with
                                  stream_gbs), 0: none */
    double stream_frac, ref_stream_frac; /* the medians of each side's sample
                                  / the triad sample taken after it */
    long reps_nla, reps_ref;   /* calls per sample */
    /* the other references of the row's kind, timed beside it */
    int nextra;
    struct bench_extra {
        const struct bench_lib *lib;
        int check_ok;          /* its result agreed with ref_lib's (else not timed) */
        double max_rel_err;
        struct bench_stats st;
        double ratio;          /* median of libnla's sample i / its sample i */
    } extra[BENCH_MAX_REFS - 1];
    char error[256];           /* a call failed: what it said */
};

/* bench_run.c: check and time one case; returns 0 when the row passed. */
int bench_run_case(nla_context *ctx, const struct bench_config *cfg,
                   const struct bench_case *c, struct bench_result *r);
/* bench_fft.c: the fft rows' check, relative L2 against the reference
   (used by bench_run.c instead of the BLAS bound) */
int bench_fft_check(const struct bench_case *c, const void *y_nla, const void *y_ref,
                    struct bench_result *r);

/* bench_fw.c: the Frank-Wolfe section (`nla bench fw`); returns the
   number of failed rows. */
int bench_fw_run(nla_context *ctx, const struct bench_config *cfg);

/* bench_cuda.c: `nla bench --backend cuda`, libnla's CUDA kernels against
   cuBLAS and cuFFT (dlopen'ed); returns an exit status */
struct bench_cuda_opts {
    int quick, json;
    int64_t n;                 /* --n, 0: the defaults */
    /* per operation, the precisions to run: bit BENCH_D, bit BENCH_S */
    int gemm, gemv, gbmv, spmv, fft;
    int fw;                    /* fw named or implied: the device loop's row */
};
int bench_cuda_main(const struct bench_cuda_opts *o);

/* bench_stream.c: the STREAM triad in GB/s (24 bytes per element, best
   of the repetitions) on `threads` OpenMP threads; 0 if out of memory. */
double bench_stream_triad(int threads, int quick);
/* One triad sample of at least min_s seconds (GB/s, counted alike), to
   pair with a level-2 row's samples; its arrays are kept until
   bench_triad_free. */
double bench_triad_sample(int threads, int quick, double min_s);
void bench_triad_free(void);
/* The same for a read (the sum of one array as large as the triad's three,
   8 bytes per element), timed plain, with software prefetch, and as four
   runs a quarter of each thread's share apart, read a line of each in
   turn: the best of the three (returned; each in kinds[], in the order of
   enum bench_read_kind) is the read ceiling of the level-2 rows. */
enum bench_read_kind { BENCH_READ_PLAIN, BENCH_READ_PREFETCHED, BENCH_READ_RUNS };
double bench_stream_read(int threads, int quick, double kinds[3]);
/* One untimed pass of one kind of that read over a[0, n) on `threads`
   threads, each its static share; returns the sum (for a sink).  Also the
   read, readpf and read4 sides of tools/nla-ab. */
double bench_read_pass(const double *a, size_t n, int threads, enum bench_read_kind kind);

/* bench_load.c: --background-load, a pthread (outside OpenMP, not pinned)
   that reads and writes a BENCH_LOAD_BYTES buffer, sweep after sweep,
   from bench_load_start until bench_load_stop (which joins it and frees
   the buffer).  Both return -1 (errno set) or 0; bench_load_gbs: the GB/s
   it has read and written, on average, so far or until it stopped. */
#define BENCH_LOAD_BYTES ((size_t)256 << 20)
int bench_load_start(void);
int bench_load_stop(void);
double bench_load_gbs(void);

/* bench_libs.c.  bench_libs_open finds and loads the references, with
   --ref LIB[:PREFIX] (or NULL) as one more CBLAS, and keeps those whose
   names start with a word of --refs LIST (NULL: all): -1, or an exit
   status after a message.  bench_libs_of: those of one kind, in the order
   found (the first checks the rows); returns how many. */
int bench_libs_open(const char *ref, const char *only);
int bench_libs_count(void);
const struct bench_lib *bench_libs_get(int i);
int bench_libs_of(enum bench_lib_kind kind, const struct bench_lib **out, int max);
void bench_libs_threads(int threads);
/* the CBLAS call of a gemv, gbmv, spmv or gemm case (their run_ref) */
void bench_cblas_run(const struct bench_lib *lib, const struct bench_case *c, const void *a,
                     const void *b, void *y);

/* bench_report.c */
void bench_report_header(FILE *f, const struct bench_config *cfg);
/* the references found (bench_libs.c), a line or two each */
void bench_report_refs(FILE *f);
void bench_report_row(FILE *f, const struct bench_result *r);
void bench_report_footer(FILE *f, int nrows, int nfail, double seconds);
void bench_report_json(FILE *f, const struct bench_config *cfg,
                       const struct bench_result *r, int nrows, int nfail,
                       double seconds);

/* bench_svg.c: the rows as an SVG chart; 0 on success, -1 (errno set)
   when the file cannot be written. */
int bench_svg_write(const char *path, const struct bench_config *cfg,
                    const struct bench_result *r, int nrows);

#endif
