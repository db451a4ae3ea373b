/*
 * cpu.c - choose the kernel instruction set once, from CPUID feature bits
 * and the operating system's saved register state (never from family or
 * model tables).  NLA_CPU_ISA=generic|avx2|avx512 overrides the choice,
 * but never selects an ISA the machine cannot run.
 *
 * The tuning that goes with the microarchitecture (GEMM blocks, level-2
 * crossovers, FFT limits) is the CPU configuration of tune.c.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define NLA_X86 1
#endif

static const char *const isa_names[] = { "generic", "avx2", "avx512" };
static nla_isa chosen_isa;
static char chosen_reason[192];
static pthread_once_t isa_once = PTHREAD_ONCE_INIT;

#ifdef NLA_X86
static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* Best ISA the CPU and OS support; why describes the evidence. */
static nla_isa detect(char *why, size_t len)
{
    unsigned a, b, c, d, max;
    int fma, osxsave, avx, avx2, avx512f, avx512dq, ymm_os, zmm_os;
    uint64_t xcr0 = 0;

    if (!__get_cpuid(0, &max, &b, &c, &d) || max < 7) {
        snprintf(why, len, "CPUID leaf 7 unavailable");
        return NLA_ISA_GENERIC;
    }
    __cpuid(1, a, b, c, d);
    fma = (c >> 12) & 1;
    osxsave = (c >> 27) & 1;
    avx = (c >> 28) & 1;
    __cpuid_count(7, 0, a, b, c, d);
    avx2 = (b >> 5) & 1;
    avx512f = (b >> 16) & 1;
    avx512dq = (b >> 17) & 1;
    if (osxsave)
        xcr0 = read_xcr0();
    ymm_os = osxsave && (xcr0 & 0x6) == 0x6;
    zmm_os = osxsave && (xcr0 & 0xe6) == 0xe6;

    if (avx && avx2 && fma && avx512f && avx512dq && zmm_os) {
        snprintf(why, len, "CPUID reports AVX-512F, AVX-512DQ, AVX2 and FMA; "
                 "the OS saves ZMM state");
        return NLA_ISA_AVX512;
    }
    if (avx && avx2 && fma && ymm_os) {
        snprintf(why, len, "CPUID reports AVX2 and FMA%s; the OS saves YMM state",
                 avx512f && !zmm_os ? " (AVX-512F present but ZMM state not enabled)"
                 : avx512f ? " (AVX-512DQ missing)" : ", no AVX-512F");
        return NLA_ISA_AVX2;
    }
    snprintf(why, len, "CPUID reports no usable AVX2+FMA");
    return NLA_ISA_GENERIC;
}

#else
static nla_isa detect(char *why, size_t len)
{
    snprintf(why, len, "not an x86-64 CPU");
    return NLA_ISA_GENERIC;
}

#endif

/* The index of v in names[0..count), or count when it is not there. */
static int name_index(const char *v, const char *const *names, int count)
{
    int i = 0;

    while (i < count && strcmp(v, names[i]) != 0)
        i++;
    return i;
}

static void choose(void)
{
    char why[128];
    nla_isa best = detect(why, sizeof why);
    const char *env = getenv("NLA_CPU_ISA");
    int i;

    chosen_isa = best;
    snprintf(chosen_reason, sizeof chosen_reason, "%s", why);
    if (!env || !*env)
        return;
    i = name_index(env, isa_names, 3);
    if (i == 3) {
        snprintf(chosen_reason, sizeof chosen_reason,
                 "NLA_CPU_ISA=%.16s is unknown and was ignored; %s", env, why);
    } else if ((nla_isa)i > best) {
        snprintf(chosen_reason, sizeof chosen_reason,
                 "NLA_CPU_ISA=%s asked for more than this CPU supports; %s",
                 isa_names[i], why);
    } else {
        chosen_isa = (nla_isa)i;
        snprintf(chosen_reason, sizeof chosen_reason,
                 "forced by NLA_CPU_ISA=%s (the CPU supports %s)", isa_names[i],
                 isa_names[best]);
    }
}

nla_isa nla_cpu_isa_id(void)
{
    pthread_once(&isa_once, choose);
    return chosen_isa;
}

NLA_API const char *nla_cpu_isa(void)
{
    return isa_names[nla_cpu_isa_id()];
}

NLA_API const char *nla_cpu_isa_reason(void)
{
    nla_cpu_isa_id();
    return chosen_reason;
}

int nla_default_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
