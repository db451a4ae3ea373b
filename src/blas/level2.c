/*
 * level2.c - the CPU level-2 BLAS: gemv, gbmv (band GAXPY) and spmv
 * (packed GAXPY).  One generic implementation (level2_tmpl.h) instantiated
 * for double and float.
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
#include "core/internal.h"
#include "blas/kernels/level2_kernels.h"

/* Thread blocks of the output start at multiples of this many elements. */
#define L2_ALIGN 64
/* gemv NoTrans: on the zen5 and xeon profiles, matrices of at most this
   many bytes stay in the last-level cache across calls and take the
   kernels' cached form (four columns a pass, not eight).  Measured on a
   Zen 5 (a 32 MiB L3 for the VM), against OpenBLAS, interleaved with the
   eight-column form: double 1000 x 1000, one thread, 0.99 -> 1.05, two
   threads 1.26 -> 1.18; float level on one thread, 1.06 -> 1.10 on two;
   and four columns lose from about 16 MB up (double 1600 x 1600, 20 MB:
   19% slower; 2000 x 2000: 20 to 35%).  The L3 size the OS reports there
   is the host's (384 MiB), no guide, so this is a constant.  On Zen 3
   (the zen3 profile) eight columns win at every size (float n = 1000, 1500
   and 2000, two threads, medians of 9 interleaved samples, eight against
   four: 1.11x, 1.19x, 1.13x; one thread 1.03x, 1.08x, 1.03x; double
   n = 1000 1.06x and 1.04x). */
#define L2_GEMV_CACHED_BYTES (12 * 1024 * 1024)
/* spmv: on the zen3 profile, packed matrices under this many bytes are
   read without software prefetch (the zen5 and xeon profiles always
   prefetch).  Zen 3, AVX2 with six columns a pass, upper, medians of 9
   interleaved samples, prefetch -> none: one thread, double n = 1000
   (4 MB) +5%, 1500 (9 MB) +4%, 2000 (16 MB) -10%, 2800 (31 MB) -8%;
   float n = 1000 +8%, 2000 (8 MB) +6%, 2800 (16 MB) +7%, 4000 (32 MB)
   -3% (upper) and -9% (lower); two threads, double 1000 +3%, 1500 +1%,
   2000 +16%, 2800 -22%; float 1500 +6%, 2000 +9%, 2800 -6%.  The L3
   there is 32 MiB. */
#ifndef L2_SPMV_PF_BYTES_ZEN3
#define L2_SPMV_PF_BYTES_ZEN3 (12 * 1024 * 1024)
#endif
/* The zen3 profile's three runs for the transposed Trans form (Trans
   columns of 9 entries up to t_al_bytes_d or _s, L(gbmv_t_tr)), on one
   thread, from bands of this many bytes and columns of 64 bytes.  Zen 3,
   AVX2, one thread, medians of 11-15 rounds of tools/nla-ab, paired, one
   run -> three (GB/s): n = 2^20, float kl = 16 (132-byte columns) 11.3 ->
   15.6, 11.1 -> 15.4 (1.40x; four runs 1.16-1.27x, two 1.24-1.29x),
   double kl = 4 (72 bytes) 12.2 -> 15.4 (1.27x), double kl = 8 12.3 ->
   16.4 (1.27x), float kl = 8 (68 bytes) 1.31x; but float kl = 4 (36
   bytes) 0.86x.  In the L3 (32 MiB there) the runs lose what the
   sequential form's prefetch gains: double kl = 4, n = 2^15 (2.4 MB)
   0.93x, 2^17 (9.4 MB) 0.95x, 2^18 (19 MB) 0.90x, but 2^19 (38 MB)
   1.18-1.21x; float kl = 16, n = 2^18 (35 MB) 1.28-1.33x.  Two threads
   share the memory: float kl = 16 read 0.75x with three runs each. */
#ifndef L2_TR_STREAM_BYTES_ZEN3
#define L2_TR_STREAM_BYTES_ZEN3 (32 * 1024 * 1024)
#endif
/* Matrix entries below which a call runs on one thread.  Measured on the
   2-vCPU development machine, quiet (nla bench --threads 2 --n N, with
   NLA_L2_THREAD_MIN=0 against 1e12): two threads gain from n = 256
   (65536 entries: gemv d 189 against 120 GB/s, spmv d 79 against 58),
   break even at n = 128 and lose at n = 181 (85 against 107).  On a
   machine whose other cores are busy, any second thread can cost far
   more (the fork/join waits for a core); nla_context_set_threads(ctx, 1)
   keeps a context on one.  NLA_L2_THREAD_MIN (entries) overrides the
   threshold, for tests and tuning. */
#define L2_THREAD_WORK_DEFAULT 65536.0
static double l2_thread_work = L2_THREAD_WORK_DEFAULT;
static pthread_once_t l2_thread_once = PTHREAD_ONCE_INIT;

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

static void l2_thread_init(void)
{
    double v;

    if (l2_env_number("NLA_L2_THREAD_MIN", &v))
        l2_thread_work = v;
}

static double l2_thread_min(void)
{
    pthread_once(&l2_thread_once, l2_thread_init);
    return l2_thread_work;
}
#define L2_THREAD_WORK l2_thread_min()

/* A driver's share of a call: its part of the output for thread tid of
   team, from the call's arguments in job. */
typedef void (*l2_part_fn)(const void *job, int tid, int team);

/* Runs part on nt threads.  One thread calls it directly: an OpenMP region
   costs about 0.75 us a call even when its if clause is false, since
   libgomp still builds a team (a 64 x 64 float gemv took 1.05 us against
   0.29 us for OpenBLAS, measured by a loop of 200000 calls). */
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

/*
 * Band form thresholds by tuning profile (nla_cpu_tune_id, cpu.c).
 *
 * zen5, measured on an AMD EPYC (Zen 5, 2 vCPUs) with nla bench and
 * interleaved A/B runs: the row-vector NoTrans form wins on one thread
 * while its window is small (double w = 17 and float w = 33 by rows,
 * double w = 33 by columns: 1.01x OpenBLAS by rows, 1.22x by columns).
 * With two threads, when the two cores share about 40-46 GB/s, it reads
 * less than the column form once columns reach about 120 bytes (medians
 * of 9, GB/s, rows vs columns: float w = 29 46.9 vs 37.7, w = 31 17.6 vs
 * 39.1, w = 33 31.7-38.1 vs 41.3-46.0, w = 35 38.0 vs 42.7; double w = 25
 * 36.4 vs 40.7).  That form takes two vectors of rows at a time
 * (L(gbmv_n_rowpairs)) wherever it runs on one thread, and with a team
 * for columns under 108 bytes.  One vector at a time is bound by its one
 * chain of multiply-adds: in the L3 (n = 2^14, GB/s, one vector vs two)
 * one thread double w = 17 27-29 vs 60, w = 25 41-42 vs 77, float w = 33
 * 33 vs 70-74; two threads double w = 9 27 vs 76-81, as slow as from
 * memory.  From memory (n = 2^20, paired medians of 7-11, two to four
 * runs, two vectors against one): one thread double w = 13 1.10-1.13x,
 * w = 15 0.97-0.99x, w = 17 0.95-1.0x; float w = 25 1.15-1.25x, w = 29
 * 1.13-1.16x, w = 33 1.0-1.23x, w = 37 0.97-1.0x; two threads double
 * w = 9 1.02-1.29x, w = 11 1.06-1.08x, w = 13 1.05-1.08x; float w = 17
 * 1.15-1.27x, w = 21 1.15-1.17x, w = 25 1.05-1.11x, but w = 29 (116
 * bytes) 0.88-1.03x.  The AVX2 kernels gain alike on this profile (forced
 * on the same machine: one thread double w = 13 1.24x, float w = 33
 * 1.05-1.07x; two threads double w = 9 1.08-1.23x, float w = 17
 * 1.45-1.49x).  Trans: the transposed form below 64 entries a column,
 * the aligned form from 64 (512 bytes double, 256 float; a prefetch into
 * L2 cost the aligned form 10-18%).  Paired medians of 11 rounds of
 * tools/nla-ab, n = 2^20, one thread, transposed over aligned: AVX-512
 * double w = 33 (264 bytes) 1.08-1.24x in three runs of four, 0.99-1.04x
 * in one, w = 41 1.20-1.23x, w = 49 1.06-1.08x, w = 57 0.96-1.15x, w = 65
 * 0.84-0.85x; AVX2 double w = 33 1.38-1.40x, w = 49 1.05-1.06x, w = 65
 * 1.00-1.04x; AVX-512 float w = 33 1.70-1.77x, w = 49 1.33-1.37x, w = 65
 * 0.88-0.92x, w = 97 0.89-0.90x.  Two threads, double w = 33 0.95-1.03x,
 * w = 49 1.07-1.10x, w = 129 0.74-0.78x.  (An earlier measurement put
 * the crossover at 200-260 bytes in both precisions, hence 256 before.)
 *
 * xeon, measured on an Intel Xeon (Emerald Rapids, 2 vCPUs, a 260 MiB L3,
 * one core reads 14-15 GB/s, two 25-30), n = 2^20, kl = ku, medians of
 * 9-11 interleaved samples, GB/s:
 *   NoTrans, one vector of rows at a time against columns: rows won to
 *     a window of about 32 KiB (one thread, double kl = 16 10.6 vs 9.8,
 *     48 10.6 vs 11.4; float 32 10.5 vs 10.1, 48 10.1 vs 10.9), but two
 *     vectors of rows at a time, one chain each, win at every width the
 *     lane table holds (the zen5 profile pairs only narrow bands); the
 *     zen5 thresholds against xeon's (rows paired to VL + w - 1 = 160,
 *     columns beyond), one thread: double kl = 8 10.2 vs 12.4, 16 10.0 vs
 *     11.6, 24 10.3 vs 11.0, 32 10.6 vs 11.1, 48 11.3 vs 11.7, 64 11.3 vs
 *     12.0; float 8 9.2 vs 9.4, 16 7.4 vs 9.2, 24 7.6 vs 9.8, 32 7.7 vs
 *     9.8, 48 10.5 vs 11.2, 64 9.8 vs 11.2; two threads: double 8 13.5
 *     vs 17.3, 16 15.2 vs 19.3, 24 16.7 vs 20.2, 32 17.7 vs 21.9, 48 21.5
 *     vs 21.4, 64 21.7 vs 23.2; float 8 15.1 vs 20.3, 16 14.8 vs 17.9, 24
 *     15.8 vs 20.3, 32 16.9 vs 20.3, 48 19.8 vs 22.2, 64 20.1 vs 21.9;
 *   Trans (the transposed form, the aligned form with an L1 prefetch, the
 *     same with an L2 prefetch), one thread: double kl = 16 11.4, 10.4,
 *     10.5; 24 11.2, 10.8, 11.5; 48 11.5, 12.2, 12.9; 64 11.7, 12.2, 13.5;
 *     float 32 10.8, 10.3, 11.2; 48 9.8, 10.1, 11.3; 64 10.9, 11.4, 13.0;
 *     two threads, double 16 22.8, 18.8, 19.0; 64 22.5, 24.8, 26.9: the
 *     transposed form to 320-byte columns, the aligned one beyond,
 *     prefetching into L2 (float kl = 48 and 64 the aligned form 1.05-1.08x
 *     the slabs of 8 rows); AVX-512 float in slabs of 8 rows at every width
 *     below that (see L(gbmv_t) in level2_kernels_tmpl.h).
 * The figures are for the AVX-512 kernels; the AVX2 ones, forced on the
 * same Xeon, gain alike from the xeon thresholds (one thread, double
 * kl = 16 N 8.6 -> 10.5 GB/s, T 10.2 -> 11.5; float kl = 64 T 10.7 ->
 * 11.8), their lane table kept smaller (L2_RV_MAXJ).
 *
 * zen3, measured on an AMD EPYC (Zen 3, family 19h model 1, 2 vCPUs, a
 * 32 MiB L3, AVX2): the zen5 thresholds (with zen5's earlier pairing of
 * the row vectors: on one thread for columns under 96 bytes, with a team
 * under 64, and its earlier Trans crossover, 256 bytes in both
 * precisions; not re-measured on Zen 3), but the NoTrans column form and
 * the aligned Trans form read four streams (L(gbmv_n_streams),
 * L(gbmv_t_al_to)) while each holds 64 KiB of band.  A sum over 1 GiB on
 * one core (medians of 7) reads 16.6-16.8 GB/s as one sequential run,
 * 22.3-22.8 as four runs 64 KiB or more apart taken a line of each in
 * turn, but 12.0 as four adjacent 1 KiB columns taken so, the pattern of
 * the four-column passes.  n = 2^20, one thread, medians of 9
 * interleaved samples, GB/s, zen5 thresholds -> zen3 (OpenBLAS): double
 * kl = 16 N 8.5 -> 15.3 (10.5), T 11.8 -> 14.7 (9.2); kl = 64 N 11.0 ->
 * 18.0 (13.1), T 10.3 -> 18.0 (12.5); float kl = 64 N 11.1 -> 17.3
 * (11.7), T 9.9 -> 17.0 (11.0).  The streams take no software prefetch:
 * with one 2 KiB ahead of each the aligned form read 13.7 against 17.1
 * (double kl = 64), 4 KiB 11.7.  NoTrans streams against rows (medians
 * of 7): float kl = 8 (68-byte columns) 11.1 vs 12.9, float kl = 16 (132
 * bytes) 14.2 vs 13.0, double kl = 8 (136 bytes) 13.9 vs 12.1, so the
 * streams come first from 100-byte columns.  Trans columns under 256
 * bytes stay transposed: aligned streams read 0.49x (float kl = 8),
 * 0.85x (float kl = 16) and 0.93x (double kl = 8) of it.
 */
/* zen5: the NoTrans column form scales y as its passes reach it, and
   takes two columns a pass from 192-byte columns, for bands of this many
   bytes (four times the L3 of the machine measured: bands of 35 to 69 MB
   that the L3 partly keeps lost there; see L(gbmv_n_cols) in
   level2_kernels_tmpl.h for the figures).  Not measured on the other
   profiles, which scale y first and keep four or eight columns.
   NLA_L2_COL2_BYTES (bytes, 0: never) overrides it on every profile, for
   tests and tuning. */
#ifndef L2_N_COL2_BAND_BYTES_ZEN5
#define L2_N_COL2_BAND_BYTES_ZEN5 (128 * 1024 * 1024)
#endif
static nla_l2_tune l2_tunes[] = {
    [NLA_TUNE_ZEN5] = { .gemv_cached_bytes = L2_GEMV_CACHED_BYTES, .rowvec_bytes = 8192, .rowvec_team_col_bytes = 120,
                        .rv_pair_col_bytes = INT64_MAX, .rv_pair_team_col_bytes = 108,
                        .t_al_bytes_d = 512, .t_al_bytes_s = 256, .t_al_pf_l2 = 0,
                        .n_col2_band_bytes = L2_N_COL2_BAND_BYTES_ZEN5 },
    [NLA_TUNE_XEON] = { .gemv_cached_bytes = L2_GEMV_CACHED_BYTES, .rowvec_bytes = INT64_MAX,
                        .rowvec_team_col_bytes = INT64_MAX,
                        .rv_pair_col_bytes = INT64_MAX, .rv_pair_team_col_bytes = INT64_MAX,
                        .rowvec_paired = 1, .t_al_bytes_d = 320, .t_al_bytes_s = 320, .t_al_pf_l2 = 1,
                        .t_tr8_all = 1 },
    [NLA_TUNE_ZEN3] = { .gemv_cached_bytes = 0, .rowvec_bytes = 8192, .rowvec_team_col_bytes = 120,
                        .rv_pair_col_bytes = 96, .rv_pair_team_col_bytes = 64,
                        .t_al_bytes_d = 256, .t_al_bytes_s = 256, .t_al_pf_l2 = 0, .stream_bytes = 65536,
                        .stream_col_bytes = 100, .spmv_pf_bytes = L2_SPMV_PF_BYTES_ZEN3,
                        .t_tr_stream_bytes = L2_TR_STREAM_BYTES_ZEN3, .t_tr_stream_col_bytes = 64 },
};

static pthread_once_t l2_tune_once = PTHREAD_ONCE_INIT;

static void l2_tune_init(void)
{
    double v;

    if (!l2_env_number("NLA_L2_COL2_BYTES", &v))
        return;
    for (size_t k = 0; k < sizeof l2_tunes / sizeof l2_tunes[0]; k++)
        l2_tunes[k].n_col2_band_bytes = v < 9e18 ? (int64_t)v : INT64_MAX;
}

const nla_l2_tune *nla_l2_tune_get(void)
{
    pthread_once(&l2_tune_once, l2_tune_init);
    return &l2_tunes[nla_cpu_tune_id()];
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
