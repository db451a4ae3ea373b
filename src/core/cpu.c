/*
 * cpu.c - choose the kernel instruction set once, from CPUID feature bits
 * and the operating system's saved register state (never from family or
 * model tables).  NLA_CPU_ISA=generic|avx2|avx512 overrides the choice,
 * but never selects an ISA the machine cannot run.
 *
 * Apart from the ISA, a tuning profile picks between kernel forms that
 * run the same instructions but favour different cores (which band
 * widths take which level-2 form, how far a form prefetches).  It comes
 * from the CPUID vendor, because the crossovers were measured on one core
 * of each vendor and went opposite ways: "xeon" (measured on a Xeon,
 * Emerald Rapids) for GenuineIntel, "zen3" (measured on an EPYC, Zen 3)
 * for AMD family 19h without AVX-512F (Zen 3; Zen 4, the same family,
 * has AVX-512), "zen5" (measured on an EPYC, Zen 5) for every other CPU.
 * NLA_CPU_TUNE=zen5|xeon|zen3 overrides it.  The other names NLA_CPU_TUNE
 * takes (zen4, derived) choose a CPU configuration (tune.c) and leave the
 * profile to the CPU.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "internal.h"
#include "tune.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define NLA_X86 1
#endif

static const char *const isa_names[] = { "generic", "avx2", "avx512" };
static nla_isa chosen_isa;
static char chosen_reason[192];
static pthread_once_t isa_once = PTHREAD_ONCE_INIT;

static const char *const tune_names[] = { "zen5", "xeon", "zen3" };
#define NLA_NTUNES (int)(sizeof tune_names / sizeof tune_names[0])
static nla_tune chosen_tune;
static char tune_reason[160];
static pthread_once_t tune_once = PTHREAD_ONCE_INIT;

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

/* The profile for this CPU's vendor (and, on AMD, family 19h without
   AVX-512F: Zen 3); why names what decided it. */
static nla_tune detect_tune(char *why, size_t len)
{
    unsigned max, v[3], eax, ebx, ecx, edx, family;
    char vendor[13];

    if (!__get_cpuid(0, &max, &v[0], &v[2], &v[1])) {
        snprintf(why, len, "CPUID vendor unavailable");
        return NLA_TUNE_ZEN5;
    }
    memcpy(vendor, v, 12);
    vendor[12] = '\0';
    snprintf(why, len, "CPUID vendor %s", vendor);
    if (strcmp(vendor, "GenuineIntel") == 0)
        return NLA_TUNE_XEON;
    if (strcmp(vendor, "AuthenticAMD") == 0 && max >= 7) {
        __cpuid(1, eax, ebx, ecx, edx);
        family = (eax >> 8) & 0xf;
        if (family == 0xf)
            family += (eax >> 20) & 0xff;
        __cpuid_count(7, 0, eax, ebx, ecx, edx);
        if (family == 0x19 && !(ebx & (1u << 16))) {
            snprintf(why, len, "CPUID vendor %s, family 19h, no AVX-512F", vendor);
            return NLA_TUNE_ZEN3;
        }
    }
    return NLA_TUNE_ZEN5;
}
#else
static nla_isa detect(char *why, size_t len)
{
    snprintf(why, len, "not an x86-64 CPU");
    return NLA_ISA_GENERIC;
}

static nla_tune detect_tune(char *why, size_t len)
{
    snprintf(why, len, "not an x86-64 CPU");
    return NLA_TUNE_ZEN5;
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

static void choose_tune(void)
{
    char why[64];
    const char *env = getenv("NLA_CPU_TUNE");
    nla_tune best = detect_tune(why, sizeof why);
    int i;

    chosen_tune = best;
    snprintf(tune_reason, sizeof tune_reason, "%s: %s", tune_names[best], why);
    if (!env || !*env)
        return;
    i = name_index(env, tune_names, NLA_NTUNES);
    if (i == NLA_NTUNES && nla_tuning_known(env)) {
        snprintf(tune_reason, sizeof tune_reason,
                 "%s: %s; NLA_CPU_TUNE=%.16s names a CPU configuration, not a "
                 "level-2 profile", tune_names[best], why, env);
    } else if (i == NLA_NTUNES) {
        snprintf(tune_reason, sizeof tune_reason,
                 "%s: %s; NLA_CPU_TUNE=%.16s is unknown and was ignored",
                 tune_names[best], why, env);
    } else {
        chosen_tune = (nla_tune)i;
        snprintf(tune_reason, sizeof tune_reason, "%s: forced by NLA_CPU_TUNE (%s)",
                 tune_names[i], why);
    }
}

nla_tune nla_cpu_tune_id(void)
{
    pthread_once(&tune_once, choose_tune);
    return chosen_tune;
}

NLA_API const char *nla_cpu_tuning(void)
{
    nla_cpu_tune_id();
    return tune_reason;
}

int nla_default_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
