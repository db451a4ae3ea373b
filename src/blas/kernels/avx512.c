/*
 * avx512.c - the AVX-512 kernel table (compiled with -mavx512f -mavx512dq
 * -mavx512vl -mavx2 -mfma; x86-64 only).
 */
#if !defined(__AVX512F__) || !defined(__FMA__)
#error "avx512.c must be compiled with -mavx512f -mfma"
#endif
#define NLA_KTAB nla_kernels_avx512
#define NLA_KNAME "avx512"
#define NLA_VBYTES 64
/* double 24x8, float 48x8: 24 accumulators out of 32 zmm registers (the
   cache blocks are the CPU's: src/core/tune.c) */
#define D_MV 3
#define D_NR 8
#define S_MV 3
#define S_NR 8
#include "kernels_tmpl.h"
