/* The level-2 kernels by number, for tools/emu/l2check.py: table 0
   portable, 1 AVX2, 2 AVX-512; single 0 double, 1 float; kernel 0 gemv_n,
   1 gemv_t, 2..5 gbmv[form] (nla_l2_gbmv_form's order), 6 spmv.  The
   fields are read here by name, so l2check.py does not lay
   out nla_l2_kernels itself; NULL for a number outside those. */
#include <stddef.h>
#include "blas/kernels/level2_kernels.h"

void *emu_l2_kernel(int which, int single, int kernel);

#define EMU_L2_PICK(K, P)                                                      \
    switch (kernel) {                                                          \
    case 0: return (void *)(K)->P##gemv_n;                                     \
    case 1: return (void *)(K)->P##gemv_t;                                     \
    case 2: return (void *)(K)->P##gbmv[NLA_L2_GBMV_N_ROWS];                   \
    case 3: return (void *)(K)->P##gbmv[NLA_L2_GBMV_N_COLS];                   \
    case 4: return (void *)(K)->P##gbmv[NLA_L2_GBMV_T_DIAG];                   \
    case 5: return (void *)(K)->P##gbmv[NLA_L2_GBMV_T_DOTS];                   \
    case 6: return (void *)(K)->P##spmv;                                       \
    default: return NULL;                                                      \
    }

void *emu_l2_kernel(int which, int single, int kernel)
{
    const nla_l2_kernels *k = which == 2 ? &nla_l2_kernels_avx512
                              : which == 1 ? &nla_l2_kernels_avx2
                                           : &nla_l2_kernels_generic;

    _Static_assert(NLA_L2_GBMV_FORMS == 4, "tools/emu: a band form was added: "
                   "add it here and to l2check.py's FORMS");
    if (single)
        EMU_L2_PICK(k, s)
    EMU_L2_PICK(k, d)
}
