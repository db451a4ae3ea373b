/*
 * info.c - `nla info`: what libnla chose on this machine, and why.
 */
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static void print_backend(nla_backend b)
{
    if (nla_backend_available(b))
        printf("  %-5s available\n", nla_backend_name(b));
    else
        printf("  %-5s not available (%s)\n", nla_backend_name(b),
               nla_backend_unavailable_reason(b));
}

/* The plugin links its CUDA runtime statically, so the driver must be at
   least that runtime's: CUDA 13 needs R580, CUDA 12 R525. */
static void print_cuda_driver(void)
{
#ifdef NLA_CUDA_NVCC_VERSION
    const int major = atoi(NLA_CUDA_NVCC_VERSION);
    printf("        this build's plugin: CUDA %s runtime, linked statically; it needs an NVIDIA\n"
           "        driver %s%s\n", NLA_CUDA_NVCC_VERSION,
           major == 13 ? "R580 or newer" : major == 12 ? "R525 or newer" : "for CUDA ",
           major == 13 || major == 12 ? "" : NLA_CUDA_NVCC_VERSION " or newer");
#endif
}

static void print_env(void)
{
    static const char *const vars[] = {
        "NLA_BACKEND", "NLA_CPU_ISA", "NLA_CPU_TUNE", "NLA_TUNE_CACHES", "NLA_L2_FORM",
        "NLA_L2_THREAD_MIN", "NLA_PLUGIN_PATH", "NLA_REF_PATH", "OMP_NUM_THREADS",
        "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"
    };
    int any = 0;
    printf("environment:\n");
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (!v)
            continue;
        printf("  %s=%s%s\n", vars[i], v,
               strncmp(vars[i], "OPENBLAS_", 9) == 0
                   ? "  (reference only; nla bench runs without it)"
               : strcmp(vars[i], "NLA_REF_PATH") == 0
                   ? "  (nla bench: folders to search for its references)" : "");
        any = 1;
    }
    if (!any)
        printf("  (none of NLA_BACKEND NLA_CPU_ISA NLA_CPU_TUNE NLA_TUNE_CACHES NLA_L2_FORM\n"
               "   NLA_L2_THREAD_MIN NLA_PLUGIN_PATH NLA_REF_PATH OMP_NUM_THREADS is set)\n");
}

/* bytes as "48 KiB" or "32 MiB" */
static const char *size_str(int64_t b, char *buf, size_t len)
{
    if (b >= (1 << 20) && b % (1 << 20) == 0)
        snprintf(buf, len, "%lld MiB", (long long)(b >> 20));
    else
        snprintf(buf, len, "%lld KiB", (long long)(b >> 10));
    return buf;
}

/* One precision's GEMM tile and blocks, p = "d" or "s". */
static void print_gemm(const char *label, const char *p)
{
    static const char *const f[] = { "mr", "nr", "mc", "kc", "nc" };
    long long v[5];
    char key[16];

    for (int i = 0; i < 5; i++) {
        snprintf(key, sizeof key, "%sgemm_%s", p, f[i]);
        v[i] = (long long)nla_cpu_config_value(key);
    }
    printf("  %s gemm: tile %lldx%lld, blocks mc %lld kc %lld nc %lld\n", label, v[0],
           v[1], v[2], v[3], v[4]);
}

/* The CPU configuration: name, why, caches, GEMM blocks, FFT limit. */
static void print_config(void)
{
    char a[24], b[24], c[24], d[24], e[24];

    printf("cpu config: %s (%s)\n", nla_cpu_config(), nla_cpu_config_reason());
    printf("  caches: L1d %s, L2 %s, L3 %s\n",
           size_str(nla_cpu_config_value("l1d"), a, sizeof a),
           size_str(nla_cpu_config_value("l2"), b, sizeof b),
           size_str(nla_cpu_config_value("l3"), c, sizeof c));
    print_gemm("double", "d");
    print_gemm("float ", "s");
    printf("  level 2: gbmv N by rows up to kl+ku+1 = %lld (d) / %lld (s), by columns above;\n"
           "           gbmv T by diagonals up to %lld (d) / %lld (s), by column dots above;\n"
           "           gemv many columns a pass over %s matrices, spmv over %s triangles;\n"
           "           one thread under %lld matrix entries\n",
           (long long)nla_cpu_config_value("dgbmv_n_rows_w"),
           (long long)nla_cpu_config_value("sgbmv_n_rows_w"),
           (long long)nla_cpu_config_value("dgbmv_t_diag_w"),
           (long long)nla_cpu_config_value("sgbmv_t_diag_w"),
           size_str(nla_cpu_config_value("gemv_many_bytes"), d, sizeof d),
           size_str(nla_cpu_config_value("spmv_many_bytes"), e, sizeof e),
           (long long)nla_cpu_config_value("l2_thread_min"));
    printf("  fft: Stockham up to %s of data, four-step above; the real step of r2c\n"
           "       and c2r inside a pass past %s of half-length data\n",
           size_str(nla_cpu_config_value("fft_stockham_max_bytes"), a, sizeof a),
           size_str(nla_cpu_config_value("fft_real_fuse_bytes"), b, sizeof b));
}

/* The resolved AUTO backend, or why AUTO cannot make a context. */
static void print_auto(void)
{
    nla_context *ctx;
    const char *env = getenv("NLA_BACKEND");
    if (nla_context_create(&ctx, NLA_BACKEND_AUTO) != NLA_OK) {
        printf("  auto  fails: %s\n", nla_last_error());
        return;
    }
    if (nla_context_backend(ctx) == NLA_BACKEND_CUDA && (!env || !*env))
        printf("  auto  -> cuda, per call: device data and large GEMMs/FFTs on the GPU,\n"
               "           level-2 and small calls on host data on the cpu (man 7 nla)\n");
    else
        printf("  auto  -> %s\n", nla_backend_name(nla_context_backend(ctx)));
    nla_context_destroy(ctx);
}

int nla_info_main(int argc, char **argv)
{
    nla_context *ctx;
    if (argc > 1)
        return nla_info_form_query(argc, argv);
    printf("libnla %s\n", nla_version());
    printf("cpu isa: %s (%s)\n", nla_cpu_isa(), nla_cpu_isa_reason());
    print_config();
    nla_info_forms();
    if (nla_context_create(&ctx, NLA_BACKEND_CPU) == NLA_OK) {
        printf("threads: %d (default of a CPU context)\n", nla_context_threads(ctx));
        nla_context_destroy(ctx);
    } else {
        printf("threads: unknown (%s)\n", nla_last_error());
    }
    printf("backends:\n");
    print_backend(NLA_BACKEND_CPU);
    print_backend(NLA_BACKEND_CUDA);
    print_cuda_driver();
    print_auto();
    print_env();
    return NLA_EXIT_OK;
}
