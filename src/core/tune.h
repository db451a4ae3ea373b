/*
 * tune.h - one CPU configuration per microarchitecture, held as data: the
 * GEMM cache blocks, the level-2 crossovers and the FFT limits, chosen once
 * by CPUID vendor, family and model (tune.c), or derived from the cache
 * sizes CPUID reports for a CPU the table does not know.
 *
 * The register tile (MR x NR) is the kernel's shape and stays in the kernel
 * tables (src/blas/kernels); the blocks here are rounded to it by
 * nla_tuning_gemm_blocks.
 */
#ifndef NLA_CORE_TUNE_H
#define NLA_CORE_TUNE_H

#include <stdint.h>
#include "blas/level2_config.h"

enum { NLA_TUNE_DOUBLE = 0, NLA_TUNE_FLOAT = 1 };   /* gemm[precision] */

typedef struct nla_gemm_cache_blocks {
    int mc, kc, nc;
} nla_gemm_cache_blocks;

typedef struct nla_tuning {
    const char *name;        /* "zen5", "zen4", "zen3", "xeon" or "derived" */
    struct {
        int64_t l1d, l2, l3; /* data cache bytes: L1d and L2 per core, L3
                                shared, as CPUID reports (or NLA_TUNE_CACHES) */
    } cache;
    nla_gemm_cache_blocks gemm[2][3];  /* [precision][nla_isa] */
    nla_l2_config l2;
    struct {
        int64_t stockham_max_bytes;    /* larger transforms (prime factors <= 127)
                                          take the four-step method */
        int64_t real_fuse_bytes;       /* real transforms: the real step inside
                                          the edge pass when the half-length
                                          data pass this */
    } fft;
} nla_tuning;

/* The configuration of this CPU, chosen once (pthread_once), honouring
   NLA_CPU_TUNE and NLA_TUNE_CACHES. */
const nla_tuning *nla_tuning_get(void);
/* Why it was chosen, e.g. "CPUID AuthenticAMD family 19h model 11h". */
const char *nla_tuning_reason(void);
/* 1 if name is a configuration NLA_CPU_TUNE can force. */
int nla_tuning_known(const char *name);
/* The cache blocks of precision prec (NLA_TUNE_DOUBLE/FLOAT) for the
   running ISA, rounded down to the kernel's mr x nr tile: mc % mr == 0,
   nc % nr == 0, at least one tile each. */
nla_gemm_cache_blocks nla_tuning_gemm_blocks(int prec, int mr, int nr);

/* ---- the rules for a CPU not in the table (also read by the tests) ---- */

/* v rounded down to a multiple of unit, at least one unit. */
static inline int nla_tuning_round(int64_t v, int unit)
{
    v = v / unit * unit;
    return v < unit ? unit : (int)v;
}

/* lo <= v <= hi */
static inline int64_t nla_tuning_clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/*
 * GEMM cache blocks from cache sizes, for elements of elsize bytes and an
 * mr x nr tile.  On Zen 5's caches (48 KiB L1d, 1 MiB L2, 32 MiB L3) with
 * the AVX-512 tiles (d 24x8, s 48x8) it gives d mc 168 kc 384 nc 2048 and
 * s mc 240 kc 512 nc 2048: kc reproduces the measured table, mc and nc
 * come out larger than the measured 144 and 1024 (the measured A block
 * takes 0.42 of L2, and nc was cut for the TLB, not for L3).
 */
static inline nla_gemm_cache_blocks nla_tuning_derive_gemm(int64_t l1d, int64_t l2,
                                                           int64_t l3, int elsize,
                                                           int mr, int nr)
{
    nla_gemm_cache_blocks b;
    int64_t row;

    /* kc: a KC x NR packed B micro-panel takes about half of L1d (at most
       512, the deepest block of the measured tables) */
    b.kc = (int)nla_tuning_clamp(l1d / 2 / ((int64_t)nr * elsize), 32, 512);
    row = (int64_t)b.kc * elsize; /* bytes of one packed row or column */
    /* mc: an MC x KC packed A block takes about half of L2 */
    b.mc = nla_tuning_round(nla_tuning_clamp(l2 / 2 / row, mr, 1024), mr);
    /* nc: a KC x NC packed B block takes about a quarter of L3 (at most
       2048: wider blocks touch a page of C per column and thrashed the
       TLB, measured on Zen 5 at n = 4096) */
    b.nc = nla_tuning_round(nla_tuning_clamp(l3 / 4 / row, nr, 2048), nr);
    return b;
}

/* gemv: many columns a pass pay for lines from L3 or memory, so for a
   matrix over twice the L2 (doc/tuning.md, 5.0.7). */
static inline int64_t nla_tuning_derive_gemv_many(int64_t l2)
{
    return l2 < INT64_MAX / 2 ? 2 * l2 : INT64_MAX;
}

/* spmv: its wider pass pays for a triangle over a quarter of the L3 (from
   memory and the L3's far part); within it, it costs a little
   (doc/tuning.md, 5.0.8) */
static inline int64_t nla_tuning_derive_spmv_many(int64_t l3)
{
    return l3 / 4;
}

/* FFT: the real transforms take their real step inside the pass next to
   the real data (in pairs, one side of each off the vector grid) where
   the half-length transform's values pass twice the L1d; below, the
   separate step re-reads them from cache with aligned loads, and wins
   (doc/tuning.md, 4.4). */
static inline int64_t nla_tuning_derive_real_fuse(int64_t l1d)
{
    return 2 * l1d;
}

/* FFT: the Stockham sequence wins while data and scratch (2x) fit in the
   last-level cache, so l3/4 rounded down to a power of two, kept in
   [1 MiB, 64 MiB]. */
static inline int64_t nla_tuning_derive_fft(int64_t l3)
{
    int64_t p = (int64_t)1 << 20;

    while (p * 2 <= l3 / 4 && p < ((int64_t)1 << 26))
        p *= 2;
    return p;
}

#endif
