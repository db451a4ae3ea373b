/*
 * avx2.c - the AVX2+FMA FFT kernel table (compiled with -mavx2 -mfma;
 * x86-64 only).
 */
#if !defined(__AVX2__) || !defined(__FMA__)
#error "avx2.c must be compiled with -mavx2 -mfma"
#endif
#define NLA_FKTAB nla_fft_kernels_avx2
#define NLA_FKNAME "avx2"
#define NLA_FVBYTES 32
#include "kernels_tmpl.h"
