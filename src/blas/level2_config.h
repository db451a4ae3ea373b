/*
 * level2_config.h - the level-2 part of a CPU configuration (src/core/tune.h):
 * the crossovers that pick a kernel form for gemv, gbmv and spmv.  The
 * values for each microarchitecture live in the configuration table; the
 * measurements behind them are in doc/tuning.md.
 */
#ifndef NLA_BLAS_LEVEL2_CONFIG_H
#define NLA_BLAS_LEVEL2_CONFIG_H

#include <stdint.h>

typedef struct nla_l2_config {
    /* gbmv NoTrans: bands of at most this many diagonals (kl+ku+1) by rows,
       wider ones by columns; [ISA: generic, avx2, avx512][0 double, 1 float]
       (the ISAs' row kernels differ) */
    int64_t gbmv_n_rows_w[3][2];
    /* gbmv Trans: at most this many by diagonals, wider by column dots */
    int64_t gbmv_t_diag_w[2];
    /* calls over fewer matrix entries run on one thread */
    int64_t thread_min;
} nla_l2_config;

/* The crossovers measured on a Zen 4 (doc/tuning.md, 5.0), the values of
   every entry until it is measured on its own: by rows while a row's
   diagonals fit the row kernel better than short column segments fit
   vectors (AVX-512's vectors of rows reach further than the others'
   scalar rows); by diagonals while a column is shorter than a vector or
   two. */
#define NLA_L2_CONFIG_DEFAULT                                                  \
    { .gbmv_n_rows_w = { { 15, 20 }, { 15, 20 }, { 21, 37 } },                  \
      .gbmv_t_diag_w = { 6, 8 }, .thread_min = 65536 }

#endif
