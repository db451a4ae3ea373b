/*
 * l2_avx2.c - the AVX2+FMA level-2 kernel table (compiled with -mavx2
 * -mfma; x86-64 only).
 */
#if !defined(__AVX2__) || !defined(__FMA__)
#error "l2_avx2.c must be compiled with -mavx2 -mfma"
#endif
#define NLA_L2TAB nla_l2_kernels_avx2
#define NLA_KNAME "avx2"
#define NLA_VBYTES 32
#include "level2_kernels_tmpl.h"
