/*
 * avx2.c - the AVX2+FMA kernel table (compiled with -mavx2 -mfma; x86-64
 * only).
 */
#if !defined(__AVX2__) || !defined(__FMA__)
#error "avx2.c must be compiled with -mavx2 -mfma"
#endif
#define NLA_KTAB nla_kernels_avx2
#define NLA_KNAME "avx2"
#define NLA_VBYTES 32
/* double 8x6, float 16x6: 12 accumulators out of 16 ymm registers */
#define D_MV 2
#define D_NR 6
#define S_MV 2
#define S_NR 6
#include "kernels_tmpl.h"
