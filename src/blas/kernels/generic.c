/*
 * generic.c - the portable kernel table: 16-byte vectors (SSE2 on x86-64,
 * NEON on AArch64, scalar code elsewhere), default compiler flags.
 */
#define NLA_KTAB nla_kernels_generic
#define NLA_KNAME "generic"
#define NLA_VBYTES 16
/* double 4x4, float 8x4: 8 accumulators out of 16 registers */
#define D_MV 2
#define D_NR 4
#define S_MV 2
#define S_NR 4
#include "kernels_tmpl.h"
