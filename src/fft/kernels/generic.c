/*
 * generic.c - the portable FFT kernel table: 16-byte vectors (SSE2 on
 * x86-64, NEON on AArch64, scalar code elsewhere), default compiler flags.
 */
#define NLA_FKTAB nla_fft_kernels_generic
#define NLA_FKNAME "generic"
#define NLA_FVBYTES 16
#include "kernels_tmpl.h"
