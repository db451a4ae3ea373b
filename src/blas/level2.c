/*
 * level2.c - the CPU level-2 BLAS: gemv, gbmv (band GAXPY) and spmv
 * (packed GAXPY).  One generic implementation (level2_tmpl.h) instantiated
 * for double and float, over the kernel table of the running ISA
 * (kernels/level2_kernels.h).
 *
 * This file holds the choices: which band form runs (l2_gbmv_form, from the
 * CPU configuration's crossovers, src/core/tune.c), and how many threads a
 * call takes.  The measurements behind the crossovers are in
 * doc/tuning.md.
 *
 * NLA_L2_FORM forces forms, for tests and tuning: a comma-separated list
 * of rows or cols (band NoTrans), diag or dots (band Trans), many or few
 * (gemv's and spmv's columns a pass).
 * NLA_L2_THREAD_MIN (matrix entries) overrides the one-thread threshold.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "blas/blas_cpu.h"
#include "blas/level2_config.h"
#include "core/internal.h"
#include "core/tune.h"
#include "blas/kernels/level2_kernels.h"

/* Thread blocks of the output start at multiples of this many elements. */
#define L2_ALIGN 64

/* The band forms by name, and what a call says it ran. */
static const struct {
    const char *name;
    const char *chosen; /* by the configuration */
    const char *forced; /* by NLA_L2_FORM */
} l2_forms[NLA_L2_GBMV_FORMS] = {
    [NLA_L2_GBMV_N_ROWS] = { "rows", "gbmv N rows: kl+ku+1 <= gbmv_n_rows_w",
                             "gbmv N rows: forced by NLA_L2_FORM" },
    [NLA_L2_GBMV_N_COLS] = { "cols", "gbmv N cols: kl+ku+1 > gbmv_n_rows_w",
                             "gbmv N cols: forced by NLA_L2_FORM" },
    [NLA_L2_GBMV_T_DIAG] = { "diag", "gbmv T diag: kl+ku+1 <= gbmv_t_diag_w",
                             "gbmv T diag: forced by NLA_L2_FORM" },
    [NLA_L2_GBMV_T_DOTS] = { "dots", "gbmv T dots: kl+ku+1 > gbmv_t_diag_w",
                             "gbmv T dots: forced by NLA_L2_FORM" },
};

static struct {
    nla_l2_config cfg;
    int isa;                /* the running ISA's row of the gbmv crossovers */
    int forced_n, forced_t; /* a form, or -1 */
    int forced_many;        /* gemv and spmv: 1 many, 0 few, or -1 */
} l2;
static pthread_once_t l2_once = PTHREAD_ONCE_INIT;

/* The environment variable name as a number >= 0 in *v; 0 when it is
   unset, empty or not such a number. */
static int l2_env_number(const char *name, double *v)
{
    const char *env = getenv(name);
    char *end;

    if (!env || !*env)
        return 0;
    *v = strtod(env, &end);
    return *end == '\0' && *v >= 0;
}

/* NLA_L2_FORM's names, each applied to the transposition it belongs to */
static void l2_parse_forms(const char *list)
{
    char buf[64];
    char *save = NULL;

    snprintf(buf, sizeof buf, "%s", list);
    for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        if (!strcmp(t, "many") || !strcmp(t, "few"))
            l2.forced_many = t[0] == 'm';
        for (int f = 0; f < NLA_L2_GBMV_FORMS; f++)
            if (!strcmp(t, l2_forms[f].name)) {
                if (f <= NLA_L2_GBMV_N_COLS)
                    l2.forced_n = f;
                else
                    l2.forced_t = f;
            }
    }
}

static void l2_init(void)
{
    const char *forms = getenv("NLA_L2_FORM");
    double v;

    l2.cfg = nla_tuning_get()->l2;
    l2.isa = (int)nla_cpu_isa_id();
    l2.forced_n = l2.forced_t = l2.forced_many = -1;
    if (l2_env_number("NLA_L2_THREAD_MIN", &v))
        l2.cfg.thread_min = v < 9e18 ? (int64_t)v : INT64_MAX;
    if (forms)
        l2_parse_forms(forms);
}

static const nla_l2_config *l2_config(void)
{
    pthread_once(&l2_once, l2_init);
    return &l2.cfg;
}
#define L2_THREAD_WORK ((double)l2_config()->thread_min)

/* The band form for a call with w = kl+ku+1 (clipped to the matrix), in
   single (1) or double (0) precision: the one forced, else the
   configuration's crossover.  *say gets why. */
static nla_l2_gbmv_form l2_gbmv_form(int notrans, int64_t w, int single, const char **say)
{
    const nla_l2_config *c = l2_config();
    int forced = notrans ? l2.forced_n : l2.forced_t;
    nla_l2_gbmv_form f;

    if (forced >= 0)
        f = (nla_l2_gbmv_form)forced;
    else if (notrans)
        f = w <= c->gbmv_n_rows_w[l2.isa][single] ? NLA_L2_GBMV_N_ROWS : NLA_L2_GBMV_N_COLS;
    else
        f = w <= c->gbmv_t_diag_w[l2.isa][single] ? NLA_L2_GBMV_T_DIAG : NLA_L2_GBMV_T_DOTS;
    if (say)
        *say = forced >= 0 ? l2_forms[f].forced : l2_forms[f].chosen;
    return f;
}

/* Whether gemv (trans: 0 NoTrans, 1 Trans) with the kernels K takes their
   many columns a pass, for a matrix of `bytes` with columns lda elements
   of esize bytes apart; *say gets why.  Many runs read at once keep more
   lines in flight, which pays for lines from L3 or memory: a matrix over
   the configuration's gemv_many_bytes (twice the L2).  An x86 L1 data
   cache spans 4 KiB a way (8 ways or more): columns in lines apart whose
   offsets mod 4 KiB lie within two lines share sets, and more than 6 such
   evict each other (lda * esize near a multiple of 2 KiB).  doc/tuning.md
   5.0.7. */
static int l2_gemv_many(int trans, const nla_l2_kernels *K, int64_t lda, int64_t esize,
                        double bytes, const char **say)
{
    static const char *says[2][5] = {
        { "gemv N axpyf few: 8 columns a pass, more would crowd an L1 set",
          "gemv N axpyf few: 8 columns a pass, the matrix is within twice the L2",
          "gemv N axpyf many: 12 (AVX-512) or 8 columns a pass, from L3 or memory",
          "gemv N axpyf few: forced by NLA_L2_FORM", "gemv N axpyf many: forced by NLA_L2_FORM" },
        { "gemv T dotxf few: 4 dots a pass, more would crowd an L1 set",
          "gemv T dotxf few: 4 dots a pass, the matrix is within twice the L2",
          "gemv T dotxf many: 12 (AVX-512) or 4 dots a pass, from L3 or memory",
          "gemv T dotxf few: forced by NLA_L2_FORM", "gemv T dotxf many: forced by NLA_L2_FORM" },
    };
    /* an lda past 4096 as 4096 + lda % 4096: the same sets, no overflow */
    int64_t ld_bytes = (lda < 4096 ? lda : 4096 + lda % 4096) * esize;
    int cols = K->gemv_cols[trans], crowded = 0;

    pthread_once(&l2_once, l2_init);
    if (l2.forced_many >= 0) {
        *say = says[trans][3 + l2.forced_many];
        return l2.forced_many;
    }
    if (bytes <= (double)l2.cfg.gemv_many_bytes) {
        *say = says[trans][1];
        return 0;
    }
    for (int k = 0; k < cols && !crowded; k++) {
        int near = 0;
        for (int j = 0; j < cols; j++) {
            int64_t d = (int64_t)((uint64_t)((j - k) * ld_bytes) % 4096);
            int64_t apart = (j > k ? j - k : k - j) * ld_bytes;
            near += j == k || ((d < 128 || d > 4096 - 128) && apart >= 128);
        }
        crowded = near > 6;
    }
    *say = says[trans][crowded ? 0 : 2];
    return !crowded;
}

/* Whether spmv (upper: 1 U, 0 L) takes many columns a pass, for a
   triangle of `bytes`: from memory, over the configuration's
   spmv_many_bytes (a quarter of the L3); *say gets why (doc/tuning.md,
   5.0.8). */
static int l2_spmv_many(int upper, double bytes, const char **say)
{
    static const char *says[2][4] = {
        { "spmv L few: 8 (AVX-512), 6 or 4 columns a pass, within a quarter of the L3",
          "spmv L many: 12 (AVX-512) or as few columns a pass, from memory",
          "spmv L few: forced by NLA_L2_FORM", "spmv L many: forced by NLA_L2_FORM" },
        { "spmv U few: 8 (AVX-512), 6 or 4 columns a pass, within a quarter of the L3",
          "spmv U many: 12 (AVX-512) or as few columns a pass, from memory",
          "spmv U few: forced by NLA_L2_FORM", "spmv U many: forced by NLA_L2_FORM" },
    };
    int forced, many;

    pthread_once(&l2_once, l2_init);
    forced = l2.forced_many >= 0;
    many = forced ? l2.forced_many : bytes > (double)l2.cfg.spmv_many_bytes;
    *say = says[upper][2 * forced + many];
    return many;
}

static void l2_say(const nla_exec *ex, const char *what)
{
    if (ex->form)
        *ex->form = what;
}

/* A driver's share of a call: its part of the output for thread tid of
   team, from the call's arguments in job. */
typedef void (*l2_part_fn)(const void *job, int tid, int team);

/* Runs part on nt threads.  One thread calls it directly: an OpenMP region
   costs about 0.75 us a call even when its if clause is false. */
static void l2_run(int nt, l2_part_fn part, const void *job)
{
#ifdef _OPENMP
    if (nt > 1) {
#pragma omp parallel num_threads(nt)
        part(job, omp_get_thread_num(), omp_get_num_threads());
        return;
    }
#else
    (void)nt;
#endif
    part(job, 0, 1);
}

const nla_l2_kernels *nla_l2_kernels_get(void)
{
    switch (nla_cpu_isa_id()) {
#ifdef NLA_HAVE_X86_KERNELS
    case NLA_ISA_AVX512:
        return &nla_l2_kernels_avx512;
    case NLA_ISA_AVX2:
        return &nla_l2_kernels_avx2;
#endif
    default:
        return &nla_l2_kernels_generic;
    }
}

#define T double
#define P d
#include "level2_tmpl.h"
#undef T
#undef P

#define T float
#define P s
#include "level2_tmpl.h"
#undef T
#undef P
