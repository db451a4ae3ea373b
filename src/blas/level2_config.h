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
       (the ISAs' narrow kernels differ) */
    int64_t gbmv_n_rows_w[3][2];
    /* gbmv Trans: at most this many by diagonals, wider by column dots;
       the same indices */
    int64_t gbmv_t_diag_w[3][2];
    /* calls over fewer matrix entries run on one thread */
    int64_t thread_min;
    /* gemv takes many columns a pass for a matrix over this many bytes
       (set from the L2's size: nla_tuning_derive_gemv_many) */
    int64_t gemv_many_bytes;
    /* spmv takes many columns a pass for a triangle over this many bytes
       (a quarter of the L3: nla_tuning_derive_spmv_many) */
    int64_t spmv_many_bytes;
} nla_l2_config;

/* The crossovers, with the AVX-512 NoTrans ones (d, s) as arguments: the
   rest were measured on a Zen 4 (doc/tuning.md, 5.0-5.0.2) and held by
   every entry.  The AVX2 and portable narrow forms go a row or column at
   a time, the diagonals unrolled up to 9 (L2_W_CASES): they stop there.
   AVX-512's vectors of rows reach further; its Trans diagonals (regrouped
   in registers) give way to the folded column vectors once a column is
   longer than a few entries. */
#define NLA_L2_CONFIG(rows_d, rows_s)                                          \
    { .gbmv_n_rows_w = { { 9, 9 }, { 9, 9 }, { (rows_d), (rows_s) } },          \
      .gbmv_t_diag_w = { { 9, 9 }, { 9, 9 }, { 6, 8 } }, .thread_min = 65536 }
/* Zen 4's NoTrans crossovers, those of every entry not measured on its own */
#define NLA_L2_CONFIG_DEFAULT NLA_L2_CONFIG(21, 37)

#endif
