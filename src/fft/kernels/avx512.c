/*
 * avx512.c - the AVX-512F FFT kernel table (compiled with -mavx512f and
 * friends; x86-64 only).
 */
#if !defined(__AVX512F__)
#error "avx512.c must be compiled with -mavx512f"
#endif
#define NLA_FKTAB nla_fft_kernels_avx512
#define NLA_FKNAME "avx512"
#define NLA_FVBYTES 64
#include "kernels_tmpl.h"
