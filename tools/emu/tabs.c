/* The level-2 kernel tables by number, for tools/emu/l2check.py:
   0 portable, 1 AVX2, 2 AVX-512; and the size of the tuning struct, which
   l2check.py lays out itself. */
#include <stddef.h>
#include "blas/kernels/level2_kernels.h"

const nla_l2_kernels *emu_l2_table(int which);
size_t emu_l2_tune_size(void);

size_t emu_l2_tune_size(void)
{
    return sizeof(nla_l2_tune);
}

const nla_l2_kernels *emu_l2_table(int which)
{
    if (which == 2)
        return &nla_l2_kernels_avx512;
    if (which == 1)
        return &nla_l2_kernels_avx2;
    return &nla_l2_kernels_generic;
}
