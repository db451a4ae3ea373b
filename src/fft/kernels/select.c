/*
 * select.c - the FFT kernel table for the instruction set chosen by
 * nla_cpu_isa_id() (src/core/cpu.c), which decides once and honours
 * NLA_CPU_ISA.
 */
#include "core/internal.h"
#include "fft/kernels/kernels.h"

const nla_fft_kernels *nla_fft_kernels_get(void)
{
    switch (nla_cpu_isa_id()) {
#ifdef NLA_HAVE_X86_KERNELS
    case NLA_ISA_AVX512:
        return &nla_fft_kernels_avx512;
    case NLA_ISA_AVX2:
        return &nla_fft_kernels_avx2;
#endif
    default:
        return &nla_fft_kernels_generic;
    }
}
