/*
 * l2_generic.c - the portable level-2 kernel table: 16-byte vectors (SSE2
 * on x86-64, NEON on AArch64, scalar code elsewhere), default flags.
 */
#define NLA_L2TAB nla_l2_kernels_generic
#define NLA_KNAME "generic"
#define NLA_VBYTES 16
#include "level2_kernels_tmpl.h"
