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
/*
 * double 24x8, float 48x8: 24 accumulators out of 32 zmm registers.
 * Cache blocks for Zen 4/5 (48 KiB L1d, 1 MiB L2, 32 MiB L3), measured:
 *   KC: a B micro-panel (KC x NR) of 24 KiB (d) / 16 KiB (s) stays in L1;
 *   MC: the packed A block (MC x KC) of 432 KiB (d) / 288 KiB (s) in L2;
 *   NC: the packed B block (KC x NC) of 3 MiB (d) / 2 MiB (s) in L3.
 *       NC also bounds the C columns (one page each when ldc is a large
 *       power of two) that one MC x NC sweep touches: NC = 4096 thrashed
 *       the TLB and lost 15-20% at n = 4096 (92 -> 113 GFLOP/s d,
 *       190 -> 233 s on Zen 5); 768..2048 measure the same.
 */
#define D_MV 3
#define D_NR 8
#define D_MC 144
#define D_KC 384
#define D_NC 1024
#define S_MV 3
#define S_NR 8
#define S_MC 144
#define S_KC 512
#define S_NC 1024
#include "kernels_tmpl.h"
