/*
 * test_config.c - the CPU configuration (src/core/tune.[ch]): the entry
 * CPUID family and model choose, NLA_CPU_TUNE forcing each name, the
 * measured values of the entries, a derived configuration from the caches
 * NLA_TUNE_CACHES gives, and the derivation rules themselves (tune.h's
 * static inline functions, compiled into this test).
 *
 * Criterion runs every test in a fresh process, and libnla chooses the
 * configuration once, on first use, so each test sets the environment in
 * its .init function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <criterion/criterion.h>
#include "refs.h"
#include "core/tune.h" /* the derivation rules: static inline, no library symbols */

static void clean_env(void)
{
    unsetenv("NLA_CPU_ISA");
    unsetenv("NLA_CPU_TUNE");
    unsetenv("NLA_TUNE_CACHES");
    unsetenv("NLA_L2_FORM");
}

static void tune(const char *name)
{
    clean_env();
    setenv("NLA_CPU_TUNE", name, 1);
}

static void tune_zen5(void) { tune("zen5"); }
static void tune_zen4(void) { tune("zen4"); }
static void tune_zen3(void) { tune("zen3"); }
static void tune_xeon(void) { tune("xeon"); }
static void tune_derived(void) { tune("derived"); }

static void tune_derived_small(void)
{
    tune("derived");
    setenv("NLA_TUNE_CACHES", "16K,256K,4M", 1);
}

static void tune_caches_bogus(void)
{
    tune("derived");
    setenv("NLA_TUNE_CACHES", "16K,lots", 1);
}

/* C = A*B, 37x29x41, against CBLAS */
static void check_dgemm(void)
{
    enum { M = 37, N = 29, K = 41 };
    double a[M * K], b[K * N], c[M * N], r[M * N];
    nla_context *ctx = ref_cpu_context();

    ref_fill(a, M * K, 1);
    ref_fill(b, K * N, 2);
    ref_fill(c, M * N, 3);
    memcpy(r, c, sizeof c);
    cr_assert_eq(nla_dgemm(ctx, NLA_COL_MAJOR, NLA_NO_TRANS, NLA_TRANS, M, N, K, 0.5,
                           a, M, b, N, 0.25, c, M), NLA_OK, "%s", nla_context_error(ctx));
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, M, N, K, 0.5, a, M, b, N,
                0.25, r, M);
    cr_assert_leq(ref_max_diff(c, r, M * N), 4.0 * K * 0x1p-52);
    nla_context_destroy(ctx);
}

/* The configuration /proc/cpuinfo's first processor should get (the
   table of tune.c, written out again), or NULL if there is no vendor. */
static const char *config_from_cpuinfo(char *why, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096], vendor[32] = "";
    int family = -1, model = -1, amd, m;

    if (!f)
        return NULL;
    while (fgets(line, sizeof line, f) && line[0] != '\n') {
        const char *c = strchr(line, ':');
        if (strncmp(line, "vendor_id", 9) == 0 && c)
            sscanf(c + 1, "%31s", vendor);
        else if (strncmp(line, "cpu family", 10) == 0 && c)
            family = atoi(c + 1);
        else if (strncmp(line, "model\t", 6) == 0 && c)
            model = atoi(c + 1);
    }
    fclose(f);
    snprintf(why, len, "%s family %xh model %xh", vendor, family, model);
    if (!*vendor)
        return NULL;
    amd = strcmp(vendor, "AuthenticAMD") == 0;
    m = model;
    if (amd && family == 0x1a)
        return "zen5";
    if (amd && family == 0x19 && ((m >= 0x10 && m <= 0x1f) || (m >= 0x60 && m <= 0x7f) ||
                                  (m >= 0xa0 && m <= 0xaf)))
        return "zen4";
    if (amd && family == 0x19 && (m <= 0x0f || (m >= 0x20 && m <= 0x5f)))
        return "zen3";
    if (strcmp(vendor, "GenuineIntel") == 0 && family == 6 &&
        (m == 0x8f || m == 0xcf || m == 0xad || m == 0xae))
        return "xeon";
    return "derived";
}

Test(config, follows_family_and_model, .init = clean_env)
{
    char why[96];
    const char *want, *got = nla_cpu_config(), *r = nla_cpu_config_reason();

    if (getenv("NLA_UNDER_VALGRIND"))
        cr_skip_test("under valgrind, whose CPUID is its own (config: %s)", got);
    want = config_from_cpuinfo(why, sizeof why);
    if (!want)
        cr_skip_test("/proc/cpuinfo names no vendor (config: %s)", got);
    cr_assert_str_eq(got, want, "%s: config %s (%s), expected %s", why, got, r, want);
    cr_assert(strstr(r, strcmp(got, "derived") ? "CPUID" : "caches"), "%s", r);
    cr_assert(nla_cpu_config_value("l1d") > 0 && nla_cpu_config_value("l2") > 0 &&
              nla_cpu_config_value("l3") > 0);
    cr_assert_eq(nla_cpu_config_value("no_such_value"), -1);
    cr_assert_eq(nla_cpu_config_value(NULL), -1);
}

/* NLA_CPU_TUNE forces the configuration: name, reason, values */
static void config_forced(const char *name)
{
    char want[64];

    snprintf(want, sizeof want, "forced by NLA_CPU_TUNE=%s", name);
    cr_assert_str_eq(nla_cpu_config(), name, "%s", nla_cpu_config_reason());
    cr_assert(strstr(nla_cpu_config_reason(), want), "%s", nla_cpu_config_reason());
}

/* A table entry keeps the measured blocks of today's kernels for the
   running ISA, and the 8 MiB FFT limit. */
static void config_measured(void)
{
    static const char *const isas[] = { "generic", "avx2", "avx512" };
    static const int64_t d[3][3] = { { 128, 256, 4096 }, { 128, 256, 4092 },
                                     { 144, 384, 1024 } };
    static const int64_t f[3][3] = { { 128, 512, 4096 }, { 128, 512, 4092 },
                                     { 144, 512, 1024 } };
    int i = 0;

    while (strcmp(nla_cpu_isa(), isas[i]) != 0)
        i++;
    cr_assert_eq(nla_cpu_config_value("dgemm_mc"), d[i][0]);
    cr_assert_eq(nla_cpu_config_value("dgemm_kc"), d[i][1]);
    cr_assert_eq(nla_cpu_config_value("dgemm_nc"), d[i][2]);
    cr_assert_eq(nla_cpu_config_value("sgemm_mc"), f[i][0]);
    cr_assert_eq(nla_cpu_config_value("sgemm_kc"), f[i][1]);
    cr_assert_eq(nla_cpu_config_value("sgemm_nc"), f[i][2]);
    cr_assert_eq(nla_cpu_config_value("fft_stockham_max_bytes"), (int64_t)1 << 23);
}

Test(config, forced_zen5, .init = tune_zen5)
{
    config_forced("zen5");
    config_measured();
}

Test(config, forced_zen4, .init = tune_zen4)
{
    config_forced("zen4");
    config_measured();
    cr_assert(strncmp(nla_cpu_tuning(), "zen4: forced by NLA_CPU_TUNE=zen4", 33) == 0, "%s",
              nla_cpu_tuning());
}

Test(config, forced_zen3, .init = tune_zen3)
{
    config_forced("zen3");
    config_measured();
}

Test(config, forced_xeon, .init = tune_xeon)
{
    config_forced("xeon");
    config_measured();
}

Test(config, forced_derived, .init = tune_derived)
{
    config_forced("derived");
    cr_assert(strstr(nla_cpu_config_reason(), "derived from"), "%s", nla_cpu_config_reason());
}

/* The running ISA's blocks of precision p ("d" or "s") of the library are
   the rule's for the caches it reports, and keep the invariants. */
static void config_blocks_follow_rule(const char *p, int elsize)
{
    char key[16];
    int64_t v[5];
    static const char *const f[] = { "mr", "nr", "mc", "kc", "nc" };
    nla_gemm_cache_blocks b;

    for (int i = 0; i < 5; i++) {
        snprintf(key, sizeof key, "%sgemm_%s", p, f[i]);
        v[i] = nla_cpu_config_value(key);
        cr_assert_gt(v[i], 0, "%s = %lld", key, (long long)v[i]);
    }
    b = nla_tuning_derive_gemm(nla_cpu_config_value("l1d"), nla_cpu_config_value("l2"),
                               nla_cpu_config_value("l3"), elsize, (int)v[0], (int)v[1]);
    cr_assert(v[2] == b.mc && v[3] == b.kc && v[4] == b.nc,
              "%sgemm mc %lld kc %lld nc %lld, the rule gives %d %d %d", p,
              (long long)v[2], (long long)v[3], (long long)v[4], b.mc, b.kc, b.nc);
    cr_assert_eq(v[2] % v[0], 0);
    cr_assert_eq(v[4] % v[1], 0);
}

Test(config, derived_from_given_caches, .init = tune_derived_small)
{
    config_forced("derived");
    cr_assert_eq(nla_cpu_config_value("l1d"), 16 << 10);
    cr_assert_eq(nla_cpu_config_value("l2"), 256 << 10);
    cr_assert_eq(nla_cpu_config_value("l3"), 4 << 20);
    cr_assert(strstr(nla_cpu_config_reason(), "NLA_TUNE_CACHES caches L1d 16 KiB, L2 256 KiB, "
                                              "L3 4 MiB"), "%s", nla_cpu_config_reason());
    config_blocks_follow_rule("d", 8);
    config_blocks_follow_rule("s", 4);
    cr_assert_eq(nla_cpu_config_value("fft_stockham_max_bytes"), 1 << 20);
    check_dgemm();
}

Test(config, bad_caches_ignored, .init = tune_caches_bogus)
{
    const char *r = nla_cpu_config_reason();
    cr_assert(strstr(r, "NLA_TUNE_CACHES=16K,lots is not l1d,l2,l3 and was ignored"), "%s", r);
    cr_assert(!strstr(r, "from NLA_TUNE_CACHES"), "%s", r);
    config_blocks_follow_rule("d", 8);
}

/* The rule on caches l1d, l2, l3 for a tile: whole tiles within the
   ranges, an A block within half of L2 (unless one tile already exceeds it). */
static nla_gemm_cache_blocks rule_checked(int64_t l1d, int64_t l2, int64_t l3, int elsize,
                                          int mr, int nr)
{
    nla_gemm_cache_blocks b = nla_tuning_derive_gemm(l1d, l2, l3, elsize, mr, nr);

    cr_assert(b.mc > 0 && b.mc % mr == 0 && b.mc <= 1024, "mc %d (mr %d)", b.mc, mr);
    cr_assert(b.nc > 0 && b.nc % nr == 0 && b.nc <= 2048, "nc %d (nr %d)", b.nc, nr);
    cr_assert(b.kc >= 32 && b.kc <= 512, "kc %d", b.kc);
    cr_assert((int64_t)b.mc * b.kc * elsize <= l2 / 2 || b.mc == mr, "mc %d kc %d, L2 %lld",
              b.mc, b.kc, (long long)l2);
    return b;
}

/* The rule itself: for every tile and element size, each block grows
   (never shrinks) with its own cache level while the others stay. */
Test(config, derivation_rule_invariants_and_growth)
{
    static const int tiles[][2] = { { 4, 4 }, { 8, 4 }, { 8, 6 }, { 16, 6 }, { 24, 8 },
                                    { 48, 8 } };
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
        for (int e = 4; e <= 8; e += 4) {
            int mr = tiles[t][0], nr = tiles[t][1];
            nla_gemm_cache_blocks p1 = { 0, 0, 0 }, p2 = p1, p3 = p1, b;
            for (int64_t s = 1 << 10; s <= 1 << 20; s *= 2) {
                b = rule_checked(s, 1 << 20, 32 << 20, e, mr, nr); /* L1d grows */
                cr_assert(b.kc >= p1.kc, "kc shrank at l1d %lld", (long long)s);
                p1 = b;
                b = rule_checked(48 << 10, s * 16, 32 << 20, e, mr, nr); /* L2 grows */
                cr_assert(b.mc >= p2.mc, "mc shrank at l2 %lld", (long long)s * 16);
                p2 = b;
                b = rule_checked(48 << 10, 1 << 20, s * 512, e, mr, nr); /* L3 grows */
                cr_assert(b.nc >= p3.nc, "nc shrank at l3 %lld", (long long)s * 512);
                p3 = b;
            }
            cr_assert(p1.kc > 32 && p2.mc > mr && p3.nc > nr, "blocks never grew");
        }
    /* Zen 5's caches and the AVX-512 tiles: kc as measured, mc and nc larger */
    nla_gemm_cache_blocks z = nla_tuning_derive_gemm(48 << 10, 1 << 20, 32 << 20, 8, 24, 8);
    cr_assert(z.mc == 168 && z.kc == 384 && z.nc == 2048, "%d %d %d", z.mc, z.kc, z.nc);
    z = nla_tuning_derive_gemm(48 << 10, 1 << 20, 32 << 20, 4, 48, 8);
    cr_assert(z.mc == 240 && z.kc == 512 && z.nc == 2048, "%d %d %d", z.mc, z.kc, z.nc);
    /* the FFT limit: a quarter of L3, a power of two in [1 MiB, 64 MiB] */
    cr_assert_eq(nla_tuning_derive_fft(32 << 20), 8 << 20);
    cr_assert_eq(nla_tuning_derive_fft(48 << 20), 8 << 20);
    cr_assert_eq(nla_tuning_derive_fft(1 << 20), 1 << 20);
    cr_assert_eq(nla_tuning_derive_fft((int64_t)1 << 34), (int64_t)1 << 26);
    for (int64_t l3 = 1 << 18, prev = 0; l3 <= (int64_t)1 << 32; l3 = l3 * 3 / 2) {
        int64_t v = nla_tuning_derive_fft(l3);
        cr_assert(v >= prev && (v & (v - 1)) == 0 && v >= 1 << 20 && v <= 1 << 26);
        prev = v;
    }
}

/* One gbmv of band width w (kl = w-1, ku = 0) on a small matrix: the form
   it reports, "gbmv N rows: ..." and the like. */
static const char *band_form(int single, int trans, int64_t w)
{
    static char form[128];
    int64_t n = w + 20;
    double *ab = calloc((size_t)(w * n), sizeof(double)), *x = calloc((size_t)n, sizeof(double));
    double *y = calloc((size_t)n, sizeof(double));
    nla_context *ctx;
    nla_trans tr = trans ? NLA_TRANS : NLA_NO_TRANS;

    cr_assert(ab && x && y && nla_context_create(&ctx, NLA_BACKEND_CPU) == NLA_OK);
    if (single)
        cr_assert(nla_sgbmv(ctx, tr, n, n, w - 1, 0, 1.0f, (float *)ab, w, (float *)x, 1, 0.0f,
                            (float *)y, 1) == NLA_OK);
    else
        cr_assert(nla_dgbmv(ctx, tr, n, n, w - 1, 0, 1.0, ab, w, x, 1, 0.0, y, 1) == NLA_OK);
    snprintf(form, sizeof form, "%s", nla_context_last_form(ctx));
    nla_context_destroy(ctx);
    free(ab);
    free(x);
    free(y);
    return form;
}

/* gbmv takes its narrow forms up to the configuration's crossovers, as
   nla_cpu_config_value reports them, and its wide forms beyond */
Test(config, gbmv_forms_follow_crossovers, .init = clean_env)
{
    static const char *const keys[2][2] = { { "dgbmv_n_rows_w", "dgbmv_t_diag_w" },
                                            { "sgbmv_n_rows_w", "sgbmv_t_diag_w" } };
    static const char *const narrow[2] = { "gbmv N rows: ", "gbmv T diag: " };
    static const char *const wide[2] = { "gbmv N cols: ", "gbmv T dots: " };

    for (int single = 0; single < 2; single++)
        for (int trans = 0; trans < 2; trans++) {
            int64_t w = nla_cpu_config_value(keys[single][trans]);
            const char *f;
            cr_assert(w >= 1 && w < 1000, "%s = %lld", keys[single][trans], (long long)w);
            f = band_form(single, trans, w);
            cr_assert(strncmp(f, narrow[trans], strlen(narrow[trans])) == 0, "w = %lld: %s",
                      (long long)w, f);
            f = band_form(single, trans, w + 1);
            cr_assert(strncmp(f, wide[trans], strlen(wide[trans])) == 0, "w = %lld: %s",
                      (long long)w + 1, f);
        }
    cr_assert(nla_cpu_config_value("l2_thread_min") >= 0);
    cr_assert(nla_cpu_config_value("gemv_many_bytes") == 2 * nla_cpu_config_value("l2"));
    cr_assert(nla_cpu_config_value("spmv_many_bytes") == nla_cpu_config_value("l3") / 4);
}

/* The xeon entry's NoTrans crossovers are its own, measured on a Xeon
   (doc/tuning.md 5.0.9): AVX-512 rows up to 31 (d) and 64 (s) diagonals;
   the other ISAs keep the default 9 */
Test(config, xeon_crossovers, .init = tune_xeon)
{
    int avx512 = strcmp(nla_cpu_isa(), "avx512") == 0;
    const int64_t want[2] = { avx512 ? 31 : 9, avx512 ? 64 : 9 };
    static const char *const keys[2] = { "dgbmv_n_rows_w", "sgbmv_n_rows_w" };

    for (int single = 0; single < 2; single++) {
        const char *f;
        cr_assert_eq(nla_cpu_config_value(keys[single]), want[single], "%s", keys[single]);
        f = band_form(single, 0, want[single]);
        cr_assert(strncmp(f, "gbmv N rows: ", 13) == 0, "%s", f);
        f = band_form(single, 0, want[single] + 1);
        cr_assert(strncmp(f, "gbmv N cols: ", 13) == 0, "%s", f);
    }
}
