/*
 * l2_avx512.c - the AVX-512 level-2 kernel table (compiled with -mavx512f
 * -mavx512dq -mavx512vl -mavx2 -mfma; x86-64 only).
 */
#if !defined(__AVX512F__) || !defined(__FMA__)
#error "l2_avx512.c must be compiled with -mavx512f -mfma"
#endif
#define NLA_L2TAB nla_l2_kernels_avx512
#define NLA_KNAME "avx512"
#define NLA_VBYTES 64
#include "level2_kernels_tmpl.h"
