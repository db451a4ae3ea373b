/*
 * tune.c - the CPU configuration (tune.h): a table of measured entries
 * chosen by CPUID vendor, family and model, and for any other CPU values
 * derived from the cache sizes CPUID reports (never another vendor's
 * entry).  NLA_CPU_TUNE=zen5|zen4|zen3|xeon forces an entry, "derived"
 * forces the derivation; NLA_TUNE_CACHES=l1d,l2,l3 replaces the cache
 * sizes the derivation reads.  Chosen once, like the ISA (cpu.c).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "tune.h"
#include "blas/kernels/kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define NLA_X86 1
#endif

/*
 * GEMM cache blocks, [precision][generic, avx2, avx512] x {mc, kc, nc}.
 * The avx512 ones were measured on Zen 4/5 (48 KiB L1d, 1 MiB L2, 32 MiB
 * L3) with the 24x8 (d) / 48x8 (s) tiles:
 *   KC: a B micro-panel (KC x NR) of 24 KiB (d) / 16 KiB (s) stays in L1;
 *   MC: the packed A block (MC x KC) of 432 KiB (d) / 288 KiB (s) in L2;
 *   NC: the packed B block (KC x NC) of 3 MiB (d) / 2 MiB (s) in L3.
 *       NC also bounds the C columns (one page each when ldc is a large
 *       power of two) that one MC x NC sweep touches, so it stays well
 *       under the TLB's reach (doc/tuning.md, 3).
 * The generic and avx2 ones are those of the first kernel tables.  Every
 * entry keeps all of them until it is measured on its own.
 */
#define GEMM_MEASURED                                                        \
    { { { 128, 256, 4096 }, { 128, 256, 4092 }, { 144, 384, 1024 } },        \
      { { 128, 512, 4096 }, { 128, 512, 4092 }, { 144, 512, 1024 } } }
/* 8 MiB: data and scratch fit in a 32 MiB L3 (Zen 5, measured: fft.c) */
#define FFT_MEASURED { .stockham_max_bytes = (int64_t)1 << 23 }
#define ENTRY(nm, l2cfg) { .name = nm, .gemm = GEMM_MEASURED, .l2 = l2cfg, \
                          .fft = FFT_MEASURED }

/* An Intel Xeon's AVX-512 NoTrans vectors of rows keep up with wider
   bands than Zen 4's, against the column form: its own measured
   crossovers (doc/tuning.md, 5.0.9) */
static const nla_tuning entries[] = {
    ENTRY("zen5", NLA_L2_CONFIG_DEFAULT), ENTRY("zen4", NLA_L2_CONFIG_DEFAULT),
    ENTRY("zen3", NLA_L2_CONFIG_DEFAULT), ENTRY("xeon", NLA_L2_CONFIG(31, 64)),
};
#define NENTRIES (int)(sizeof entries / sizeof entries[0])

/* Which entry a CPUID vendor, family and model range gets. */
static const struct match {
    const char *vendor;
    unsigned family, lo, hi;
    const char *entry;
} matches[] = {
    { "AuthenticAMD", 0x1a, 0x00, 0xff, "zen5" },
    { "AuthenticAMD", 0x19, 0x10, 0x1f, "zen4" },
    { "AuthenticAMD", 0x19, 0x60, 0x7f, "zen4" },
    { "AuthenticAMD", 0x19, 0xa0, 0xaf, "zen4" },
    { "AuthenticAMD", 0x19, 0x00, 0x0f, "zen3" },
    { "AuthenticAMD", 0x19, 0x20, 0x5f, "zen3" },
    /* Sapphire Rapids, Emerald Rapids, Granite Rapids (X and D) */
    { "GenuineIntel", 0x06, 0x8f, 0x8f, "xeon" },
    { "GenuineIntel", 0x06, 0xcf, 0xcf, "xeon" },
    { "GenuineIntel", 0x06, 0xad, 0xae, "xeon" },
};

/* What CPUID says about the processor and its caches. */
typedef struct cpu_id {
    char vendor[13];
    unsigned family, model;
    int have_id;
    int64_t l1d, l2, l3;
    const char *cache_src;
} cpu_id;

static nla_tuning chosen;
static char chosen_reason[320];
static pthread_once_t tuning_once = PTHREAD_ONCE_INIT;

#ifdef NLA_X86
/* Vendor, display family and model (the extended fields folded in). */
static int read_id(cpu_id *c)
{
    unsigned max, v[3], a, b, d, base;

    if (!__get_cpuid(0, &max, &v[0], &v[2], &v[1]) || max < 1)
        return 0;
    memcpy(c->vendor, v, 12);
    c->vendor[12] = '\0';
    __cpuid(1, a, b, v[0], d);
    base = (a >> 8) & 0xf;
    c->family = base == 0xf ? base + ((a >> 20) & 0xff) : base;
    c->model = (a >> 4) & 0xf;
    if (base == 0x6 || base == 0xf)
        c->model |= ((a >> 16) & 0xf) << 4;
    return 1;
}

/* Data caches from a deterministic cache leaf (4 on Intel, 8000001Dh on
   AMD: the same layout); 1 if it gave at least L1d. */
static int read_cache_leaf(unsigned leaf, cpu_id *c)
{
    unsigned a, b, cc, d;

    for (unsigned i = 0; i < 16; i++) {
        __cpuid_count(leaf, i, a, b, cc, d);
        unsigned type = a & 31, level = (a >> 5) & 7;
        int64_t size = (int64_t)((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) *
                       ((b & 0xfff) + 1) * ((int64_t)cc + 1);
        if (type == 0)
            break;
        if (type == 2) /* instruction cache */
            continue;
        if (level == 1)
            c->l1d = size;
        else if (level == 2)
            c->l2 = size;
        else if (level == 3)
            c->l3 = size;
    }
    return c->l1d > 0;
}

static int read_cpuid_caches(cpu_id *c)
{
    unsigned max, b, cc, d;

    if (strcmp(c->vendor, "GenuineIntel") == 0 && __get_cpuid(0, &max, &b, &cc, &d) &&
        max >= 4 && read_cache_leaf(4, c)) {
        c->cache_src = "CPUID leaf 4";
        return 1;
    }
    if (strcmp(c->vendor, "AuthenticAMD") == 0 &&
        __get_cpuid(0x80000000, &max, &b, &cc, &d) && max >= 0x8000001d &&
        read_cache_leaf(0x8000001d, c)) {
        c->cache_src = "CPUID leaf 8000001Dh";
        return 1;
    }
    return 0;
}
#else
static int read_id(cpu_id *c)
{
    (void)c;
    return 0;
}

static int read_cpuid_caches(cpu_id *c)
{
    (void)c;
    return 0;
}
#endif

/* glibc's view (from sysfs or CPUID) when CPUID's own leaves say nothing. */
static void read_sysconf_caches(cpu_id *c)
{
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
    long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE),
         l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l1 > 0) {
        c->l1d = l1;
        c->l2 = l2 > 0 ? l2 : 0;
        c->l3 = l3 > 0 ? l3 : 0;
        c->cache_src = "sysconf";
    }
#else
    (void)c;
#endif
}

/* "l1d,l2,l3" in bytes, each with an optional K, M or G (binary); 1 if
   all three parse and are positive. */
static int parse_caches(const char *s, int64_t out[3])
{
    char *end;

    for (int i = 0; i < 3; i++) {
        long long v = strtoll(s, &end, 10);
        if (end == s || v <= 0)
            return 0;
        if (*end == 'K' || *end == 'k')
            v <<= 10, end++;
        else if (*end == 'M' || *end == 'm')
            v <<= 20, end++;
        else if (*end == 'G' || *end == 'g')
            v <<= 30, end++;
        out[i] = v;
        if (*end != (i < 2 ? ',' : '\0'))
            return 0;
        s = end + 1;
    }
    return 1;
}

/* The caches, from NLA_TUNE_CACHES, CPUID, sysconf or (none of them)
   sizes small enough for any current core; a missing L2/L3 is taken
   as the level below it.  note gets why NLA_TUNE_CACHES was ignored. */
static void read_caches(cpu_id *c, char *note, size_t len)
{
    const char *env = getenv("NLA_TUNE_CACHES");
    int64_t v[3];

    note[0] = '\0';
    if (env && *env) {
        if (parse_caches(env, v)) {
            c->l1d = v[0], c->l2 = v[1], c->l3 = v[2];
            c->cache_src = "NLA_TUNE_CACHES";
            return;
        }
        snprintf(note, len, "; NLA_TUNE_CACHES=%.24s is not l1d,l2,l3 and was ignored",
                 env);
    }
    if (!(c->have_id && read_cpuid_caches(c)))
        read_sysconf_caches(c);
    if (c->l1d <= 0) {
        c->l1d = 32 << 10, c->l2 = 256 << 10, c->l3 = 8 << 20;
        c->cache_src = "fixed defaults";
    }
    if (c->l2 <= 0)
        c->l2 = c->l1d;
    if (c->l3 <= 0)
        c->l3 = c->l2;
}

/* bytes as "48 KiB" or "32 MiB" */
static const char *fmt_size(int64_t b, char *buf, size_t len)
{
    if (b >= (1 << 20) && b % (1 << 20) == 0)
        snprintf(buf, len, "%lld MiB", (long long)(b >> 20));
    else
        snprintf(buf, len, "%lld KiB", (long long)(b >> 10));
    return buf;
}

static const nla_tuning *find_entry(const char *name)
{
    for (int i = 0; i < NENTRIES; i++)
        if (strcmp(entries[i].name, name) == 0)
            return &entries[i];
    return NULL;
}

int nla_tuning_known(const char *name)
{
    return strcmp(name, "derived") == 0 || find_entry(name) != NULL;
}

/* The table's entry for this CPU, or NULL. */
static const nla_tuning *match_entry(const cpu_id *c)
{
    for (size_t i = 0; c->have_id && i < sizeof matches / sizeof matches[0]; i++) {
        const struct match *m = &matches[i];
        if (strcmp(c->vendor, m->vendor) == 0 && c->family == m->family &&
            c->model >= m->lo && c->model <= m->hi)
            return find_entry(m->entry);
    }
    return NULL;
}

/* The tile of precision prec in kernel table K (or generic's, for an ISA
   this build has no table for). */
static const nla_gemm_tile *tile_of(nla_isa isa, int prec)
{
    const nla_kernels *K = nla_kernels_of(isa);
    if (!K)
        K = &nla_kernels_generic;
    return prec == NLA_TUNE_DOUBLE ? &K->dtile : &K->stile;
}

/* Every block of t from its caches, for every ISA's tile. */
static void derive(nla_tuning *t)
{
    static const int elsize[2] = { 8, 4 };

    t->name = "derived";
    for (int p = 0; p < 2; p++)
        for (int isa = 0; isa < 3; isa++) {
            const nla_gemm_tile *k = tile_of((nla_isa)isa, p);
            t->gemm[p][isa] = nla_tuning_derive_gemm(t->cache.l1d, t->cache.l2,
                                                     t->cache.l3, elsize[p], k->mr, k->nr);
        }
    t->l2 = (nla_l2_config)NLA_L2_CONFIG_DEFAULT;
    t->fft.stockham_max_bytes = nla_tuning_derive_fft(t->cache.l3);
}

/* "CPUID AuthenticAMD family 19h model 11h" */
static void describe_id(const cpu_id *c, char *buf, size_t len)
{
    if (c->have_id)
        snprintf(buf, len, "CPUID %s family %xh model %xh", c->vendor, c->family,
                 c->model);
    else
        snprintf(buf, len, "no CPUID");
}

/* chosen = derived from c's caches; reason says so, after prefix. */
static void choose_derived(const cpu_id *c, const char *prefix)
{
    char a[24], b[24], d[24];

    chosen.cache.l1d = c->l1d, chosen.cache.l2 = c->l2, chosen.cache.l3 = c->l3;
    derive(&chosen);
    snprintf(chosen_reason, sizeof chosen_reason,
             "%s: derived from %s caches L1d %s, L2 %s, L3 %s", prefix, c->cache_src,
             fmt_size(c->l1d, a, sizeof a), fmt_size(c->l2, b, sizeof b),
             fmt_size(c->l3, d, sizeof d));
}

static void choose(void)
{
    cpu_id c = { .cache_src = "" };
    const char *env = getenv("NLA_CPU_TUNE");
    const nla_tuning *forced = env && *env ? find_entry(env) : NULL;
    const nla_tuning *e;
    char id[96], note[96], why[160];
    size_t n;

    c.have_id = read_id(&c);
    read_caches(&c, note, sizeof note);
    describe_id(&c, id, sizeof id);
    e = forced ? forced : match_entry(&c);
    if (env && strcmp(env, "derived") == 0) {
        choose_derived(&c, "forced by NLA_CPU_TUNE=derived");
    } else if (e) {
        chosen = *e;
        chosen.cache.l1d = c.l1d, chosen.cache.l2 = c.l2, chosen.cache.l3 = c.l3;
        if (forced)
            snprintf(chosen_reason, sizeof chosen_reason,
                     "forced by NLA_CPU_TUNE=%s (%s)", e->name, id);
        else
            snprintf(chosen_reason, sizeof chosen_reason, "%s", id);
    } else {
        snprintf(why, sizeof why, "%s is not in the table", id);
        choose_derived(&c, why);
    }
    chosen.l2.gemv_many_bytes = nla_tuning_derive_gemv_many(chosen.cache.l2);
    chosen.l2.spmv_many_bytes = nla_tuning_derive_spmv_many(chosen.cache.l3);
    chosen.fft.real_fuse_bytes = nla_tuning_derive_real_fuse(chosen.cache.l1d);
    n = strlen(chosen_reason);
    if (env && *env && !nla_tuning_known(env))
        snprintf(chosen_reason + n, sizeof chosen_reason - n,
                 "; NLA_CPU_TUNE=%.16s is unknown and was ignored", env);
    n = strlen(chosen_reason);
    snprintf(chosen_reason + n, sizeof chosen_reason - n, "%s", note);
}

const nla_tuning *nla_tuning_get(void)
{
    pthread_once(&tuning_once, choose);
    return &chosen;
}

const char *nla_tuning_reason(void)
{
    nla_tuning_get();
    return chosen_reason;
}

/* "name: reason", made once */
static char tuning_line[sizeof chosen_reason + 16];
static pthread_once_t line_once = PTHREAD_ONCE_INIT;

static void make_line(void)
{
    snprintf(tuning_line, sizeof tuning_line, "%s: %s", nla_tuning_get()->name,
             nla_tuning_reason());
}

NLA_API const char *nla_cpu_tuning(void)
{
    pthread_once(&line_once, make_line);
    return tuning_line;
}

nla_gemm_cache_blocks nla_tuning_gemm_blocks(int prec, int mr, int nr)
{
    nla_gemm_cache_blocks b = nla_tuning_get()->gemm[prec][nla_cpu_isa_id()];

    /* any configuration works with any tile: whole tiles, at least one */
    b.mc = nla_tuning_round(b.mc, mr);
    b.nc = nla_tuning_round(b.nc, nr);
    b.kc = b.kc > 0 ? b.kc : 1;
    return b;
}

NLA_API const char *nla_cpu_config(void)
{
    return nla_tuning_get()->name;
}

NLA_API const char *nla_cpu_config_reason(void)
{
    return nla_tuning_reason();
}

/* A GEMM value of precision prec for the running ISA: tile or block. */
static int64_t gemm_value(int prec, const char *what)
{
    const nla_gemm_tile *k = tile_of(nla_cpu_isa_id(), prec);
    nla_gemm_cache_blocks b = nla_tuning_gemm_blocks(prec, k->mr, k->nr);
    static const char *const names[] = { "mr", "nr", "mc", "kc", "nc" };
    const int64_t v[] = { k->mr, k->nr, b.mc, b.kc, b.nc };

    for (int i = 0; i < 5; i++)
        if (strcmp(what, names[i]) == 0)
            return v[i];
    return -1;
}

NLA_API int64_t nla_cpu_config_value(const char *key)
{
    const nla_tuning *t = nla_tuning_get();

    if (!key)
        return -1;
    if (strncmp(key, "dgemm_", 6) == 0 || strncmp(key, "sgemm_", 6) == 0)
        return gemm_value(key[0] == 'd' ? NLA_TUNE_DOUBLE : NLA_TUNE_FLOAT, key + 6);
    if (strcmp(key, "l1d") == 0)
        return t->cache.l1d;
    if (strcmp(key, "l2") == 0)
        return t->cache.l2;
    if (strcmp(key, "l3") == 0)
        return t->cache.l3;
    if (strcmp(key, "fft_stockham_max_bytes") == 0)
        return t->fft.stockham_max_bytes;
    if (strcmp(key, "fft_real_fuse_bytes") == 0)
        return t->fft.real_fuse_bytes;
    if ((key[0] == 'd' || key[0] == 's') && strcmp(key + 1, "gbmv_n_rows_w") == 0)
        return t->l2.gbmv_n_rows_w[nla_cpu_isa_id()][key[0] == 's'];
    if ((key[0] == 'd' || key[0] == 's') && strcmp(key + 1, "gbmv_t_diag_w") == 0)
        return t->l2.gbmv_t_diag_w[nla_cpu_isa_id()][key[0] == 's'];
    if (strcmp(key, "l2_thread_min") == 0)
        return t->l2.thread_min;
    if (strcmp(key, "gemv_many_bytes") == 0)
        return t->l2.gemv_many_bytes;
    if (strcmp(key, "spmv_many_bytes") == 0)
        return t->l2.spmv_many_bytes;
    return -1;
}
