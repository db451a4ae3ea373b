/*
 * bench_ref.c - `nla bench --ref LIB[:PREFIX]`: the gemv, gbmv, spmv and
 * gemm rows checked and timed against another CBLAS, loaded at run time,
 * instead of the one the command links (Debian's OpenBLAS), so that libnla
 * can be set beside the strongest reference present:
 *
 *   Intel MKL          pip install mkl: libmkl_rt.so.*, plain cblas_* names
 *   OpenBLAS 0.3.34    pip install scipy-openblas32: libscipy_openblas.so,
 *                      every name prefixed (scipy_cblas_dgemv): PREFIX scipy_
 *
 * The library is opened with RTLD_DEEPBIND, so that its own calls inside
 * (an MKL cblas_dgemv calling dgemv_, say) bind to itself and not to the
 * linked OpenBLAS's symbols of the same name.  Its threads follow
 * --threads through PREFIX openblas_set_num_threads or MKL_Set_Num_Threads
 * (the C names: MKL's lower-case ones are its Fortran ones, which take
 * pointers).
 * MKL is set to the LP64 interface and, unless MKL_THREADING_LAYER is set,
 * to its GNU threading layer: the libgomp that libnla's OpenMP uses, so
 * that one OpenMP runtime serves both sides.
 */
#define _GNU_SOURCE                /* RTLD_DEEPBIND */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

/* The CBLAS enumerations' values (the same in every cblas.h). */
enum { COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112, UPPER = 121, LOWER = 122 };

typedef void dgemv_fn(int, int, int, int, double, const double *, int,
                      const double *, int, double, double *, int);
typedef void sgemv_fn(int, int, int, int, float, const float *, int,
                      const float *, int, float, float *, int);
typedef void dgbmv_fn(int, int, int, int, int, int, double, const double *, int,
                      const double *, int, double, double *, int);
typedef void sgbmv_fn(int, int, int, int, int, int, float, const float *, int,
                      const float *, int, float, float *, int);
typedef void dspmv_fn(int, int, int, double, const double *, const double *, int,
                      double, double *, int);
typedef void sspmv_fn(int, int, int, float, const float *, const float *, int,
                      float, float *, int);
typedef void dgemm_fn(int, int, int, int, int, int, double, const double *, int,
                      const double *, int, double, double *, int);
typedef void sgemm_fn(int, int, int, int, int, int, float, const float *, int,
                      const float *, int, float, float *, int);
typedef void set_threads_fn(int);
typedef char *get_str_fn(void);
typedef int get_version_fn(char *, int);
typedef int set_layer_fn(int);

/* The MKLVersion structure: three ints (four from 2025 on) then pointers,
   which start at offset 16 either way. */
struct mkl_version { int num[4]; char *status, *build, *processor, *platform; };
typedef void get_version_struct_fn(struct mkl_version *);

enum { MKL_INTERFACE_LP64 = 0, MKL_THREADING_GNU = 3 };

static struct {
    void *h;
    char path[512], prefix[64];
    dgemv_fn *dgemv;
    sgemv_fn *sgemv;
    dgbmv_fn *dgbmv;
    sgbmv_fn *sgbmv;
    dspmv_fn *dspmv;
    sspmv_fn *sspmv;
    dgemm_fn *dgemm;
    sgemm_fn *sgemm;
    set_threads_fn *set_threads;
    char config[256], core[160], threading[96];
    const struct bench_op *gemv, *gbmv, *spmv, *gemm;
} R;

/* dlsym of PREFIX name; NULL if missing. */
static void *sym(const char *prefix, const char *name)
{
    char full[160];
    snprintf(full, sizeof full, "%s%s", prefix, name);
    return dlsym(R.h, full);
}

/* "LIB" or "LIB:PREFIX"; a colon followed by a slash belongs to the path. */
static void split_spec(const char *spec)
{
    const char *colon = strrchr(spec, ':');
    if (colon && !strchr(colon, '/')) {
        snprintf(R.path, sizeof R.path, "%.*s", (int)(colon - spec), spec);
        snprintf(R.prefix, sizeof R.prefix, "%s", colon + 1);
    } else {
        snprintf(R.path, sizeof R.path, "%s", spec);
        R.prefix[0] = '\0';
    }
}

/* Why the CBLAS names are missing, when a guess can say. */
static const char *missing_hint(void)
{
    if (!R.prefix[0] && dlsym(R.h, "scipy_cblas_dgemv"))
        return "; its names carry a prefix: try --ref LIB:scipy_";
    if (sym(R.prefix, "cblas_dgemv64_"))
        return "; it is an ILP64 build (64-bit integers, names ending in 64_), "
               "which the bench does not call: use an LP64 one (scipy-openblas32)";
    return "";
}

/* Close the library and say why; the exit status of a bad --ref. */
static int fail(const char *why, const char *hint)
{
    fprintf(stderr, "nla bench: --ref %s%s%s: %s%s\n", R.path, R.prefix[0] ? ":" : "",
            R.prefix, why, hint);
    dlclose(R.h);
    R.h = NULL;
    return NLA_EXIT_USAGE;
}

/* MKL: LP64, its GNU threading layer unless MKL_THREADING_LAYER says,
   and its version.  Before its first call. */
static void setup_mkl(void)
{
    set_layer_fn *iface = (set_layer_fn *)sym(R.prefix, "MKL_Set_Interface_Layer");
    set_layer_fn *layer = (set_layer_fn *)sym(R.prefix, "MKL_Set_Threading_Layer");
    get_version_fn *vs = (get_version_fn *)sym(R.prefix, "MKL_Get_Version_String");
    get_version_struct_fn *v = (get_version_struct_fn *)sym(R.prefix, "MKL_Get_Version");

    if (iface)
        iface(MKL_INTERFACE_LP64);
    if (getenv("MKL_THREADING_LAYER"))
        snprintf(R.threading, sizeof R.threading, "MKL_THREADING_LAYER=%s",
                 getenv("MKL_THREADING_LAYER"));
    else if (layer && layer(MKL_THREADING_GNU) == MKL_THREADING_GNU)
        snprintf(R.threading, sizeof R.threading, "GNU (libgomp, as libnla's)");
    else
        snprintf(R.threading, sizeof R.threading, "MKL's default");
    if (vs) {
        vs(R.config, (int)sizeof R.config);
        R.config[sizeof R.config - 1] = '\0';
        for (size_t n = strlen(R.config); n > 0 && R.config[n - 1] == ' '; n--)
            R.config[n - 1] = '\0';   /* MKL pads it with blanks */
    }
    if (v) {
        struct mkl_version mv[4];      /* room, should the structure grow */
        memset(mv, 0, sizeof mv);
        v(mv);
        if (mv[0].processor)
            snprintf(R.core, sizeof R.core, "%s", mv[0].processor);
    }
}

int bench_ref_open(const char *spec)
{
    static const char *const names[8] = {
        "cblas_dgemv", "cblas_sgemv", "cblas_dgbmv", "cblas_sgbmv",
        "cblas_dspmv", "cblas_sspmv", "cblas_dgemm", "cblas_sgemm"
    };
    void *f[8];
    get_str_fn *cfg, *core;

    split_spec(spec);
    if (!(R.h = dlopen(R.path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND))) {
        fprintf(stderr, "nla bench: --ref: cannot load %s: %s\n", R.path, dlerror());
        return NLA_EXIT_USAGE;
    }
    for (int i = 0; i < 8; i++)
        if (!(f[i] = sym(R.prefix, names[i]))) {
            char why[192];
            snprintf(why, sizeof why, "no symbol %s%s", R.prefix, names[i]);
            return fail(why, missing_hint());
        }
    R.dgemv = (dgemv_fn *)f[0];
    R.sgemv = (sgemv_fn *)f[1];
    R.dgbmv = (dgbmv_fn *)f[2];
    R.sgbmv = (sgbmv_fn *)f[3];
    R.dspmv = (dspmv_fn *)f[4];
    R.sspmv = (sspmv_fn *)f[5];
    R.dgemm = (dgemm_fn *)f[6];
    R.sgemm = (sgemm_fn *)f[7];

    if ((R.set_threads = (set_threads_fn *)sym(R.prefix, "openblas_set_num_threads"))) {
        cfg = (get_str_fn *)sym(R.prefix, "openblas_get_config");
        core = (get_str_fn *)sym(R.prefix, "openblas_get_corename");
        snprintf(R.config, sizeof R.config, "%s", cfg ? cfg() : "OpenBLAS");
        if (core)
            snprintf(R.core, sizeof R.core, "%s", core());
        snprintf(R.threading, sizeof R.threading, "OpenBLAS's own");
    } else if ((R.set_threads = (set_threads_fn *)sym(R.prefix, "MKL_Set_Num_Threads"))) {
        setup_mkl();
    } else {
        return fail("neither openblas_set_num_threads nor MKL_Set_Num_Threads (with "
                    "the prefix) to give it --threads", "");
    }
    R.gemv = bench_op_find("gemv");
    R.gbmv = bench_op_find("gbmv");
    R.spmv = bench_op_find("spmv");
    R.gemm = bench_op_find("gemm");
    return 0;
}

void bench_ref_threads(int threads)
{
    if (R.h)
        R.set_threads(threads);
}

void bench_ref_describe(struct bench_config *cfg)
{
    if (!R.h)
        return;
    cfg->ref_lib = R.path;
    cfg->ref_prefix = R.prefix;
    cfg->ref_config = R.config[0] ? R.config : NULL;
    cfg->ref_core = R.core[0] ? R.core : NULL;
    cfg->ref_threading = R.threading;
}

int bench_ref_covers(const struct bench_op *op)
{
    return R.h && (op == R.gemv || op == R.gbmv || op == R.spmv || op == R.gemm);
}

static int trans(nla_trans t)
{
    return t == NLA_TRANS ? TRANS : NO_TRANS;
}

int bench_ref_run(const struct bench_case *c, const void *a, const void *b, void *y)
{
    const double al = BENCH_ALPHA, be = BENCH_BETA;
    const float sal = (float)BENCH_ALPHA, sbe = (float)BENCH_BETA;
    int d = c->prec == BENCH_D, m = (int)c->m, n = (int)c->n, k = (int)c->k;
    int kl = (int)c->kl, ku = (int)c->ku, ldab = kl + ku + 1;

    if (!bench_ref_covers(c->op))
        return 0;
    if (c->op == R.gemv && d)
        R.dgemv(COL_MAJOR, trans(c->trans), m, n, al, a, m, b, 1, be, y, 1);
    else if (c->op == R.gemv)
        R.sgemv(COL_MAJOR, trans(c->trans), m, n, sal, a, m, b, 1, sbe, y, 1);
    else if (c->op == R.gbmv && d)
        R.dgbmv(COL_MAJOR, trans(c->trans), m, n, kl, ku, al, a, ldab, b, 1, be, y, 1);
    else if (c->op == R.gbmv)
        R.sgbmv(COL_MAJOR, trans(c->trans), m, n, kl, ku, sal, a, ldab, b, 1, sbe, y, 1);
    else if (c->op == R.spmv && d)
        R.dspmv(COL_MAJOR, c->uplo == NLA_LOWER ? LOWER : UPPER, n, al, a, b, 1, be, y, 1);
    else if (c->op == R.spmv)
        R.sspmv(COL_MAJOR, c->uplo == NLA_LOWER ? LOWER : UPPER, n, sal, a, b, 1, sbe, y, 1);
    else if (d)
        R.dgemm(COL_MAJOR, NO_TRANS, NO_TRANS, m, n, k, al, a, m, b, k, be, y, m);
    else
        R.sgemm(COL_MAJOR, NO_TRANS, NO_TRANS, m, n, k, sal, a, m, b, k, sbe, y, m);
    return 1;
}
