/*
 * select.c - the kernel table for the instruction set chosen by
 * nla_cpu_isa_id() (src/core/cpu.c), which decides once and honours
 * NLA_CPU_ISA.
 */
#include "core/internal.h"
#include "blas/kernels/kernels.h"

const nla_kernels *nla_kernels_of(int isa)
{
    switch (isa) {
    case NLA_ISA_GENERIC:
        return &nla_kernels_generic;
#ifdef NLA_HAVE_X86_KERNELS
    case NLA_ISA_AVX512:
        return &nla_kernels_avx512;
    case NLA_ISA_AVX2:
        return &nla_kernels_avx2;
#endif
    default:
        return NULL;
    }
}

const nla_kernels *nla_kernels_get(void)
{
    const nla_kernels *k = nla_kernels_of(nla_cpu_isa_id());
    return k ? k : &nla_kernels_generic;
}
