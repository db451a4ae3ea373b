/*
 * bench_libs.c - the references of `nla bench`, found and dlopen'ed when the
 * bench runs, so that the installed nla links libnla only.
 *
 *   CBLAS (gemv, gbmv, spmv, gemm rows)
 *     OpenBLAS   libopenblas.so.0             Debian's libopenblas0
 *     BLIS       libblis.so.4                 Debian's libblis4
 *     Intel MKL  libmkl_rt.so.3 (or .so.2)    pip install mkl
 *     OpenBLAS   libscipy_openblas.so, every name prefixed scipy_
 *                                             pip install scipy-openblas32
 *     netlib     libcblas.so.3, libblas.so.3  only when none of the above is there
 *     --ref LIB[:PREFIX]                      any other, named by the user
 *   FFTW   libfftw3.so.3 and libfftw3f.so.3   fft rows (FFTW_MEASURE plans)
 *   GSL    libgsl.so.28, .27 or .25           fft rows (radix-2)
 *
 * Each library is tried by name through the loader's search, then in the
 * folders of NLA_REF_PATH (colon-separated; each searched a few levels deep,
 * so that a Python venv's lib/ and site-packages/ are found).  Two names that
 * load the same file count once.  The first CBLAS found checks every BLAS row
 * and is the table's ref column; each other one is timed beside it, in a
 * column named by its version (bench_run.c).  Each library's threads follow
 * --threads.
 *
 * Nothing links a reference, so no global symbol stands between a library
 * and its own internal calls; RTLD_DEEPBIND keeps it so should the program
 * run with a BLAS preloaded (sanitizer runtimes refuse it, so not there).
 * MKL runs its LP64 interface and, unless MKL_THREADING_LAYER is set, its
 * GNU threading layer: the libgomp that libnla's OpenMP uses.
 */
#define _GNU_SOURCE /* RTLD_DEEPBIND, dladdr */
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "bench.h"

#if !defined(__SANITIZE_ADDRESS__) && defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define __SANITIZE_ADDRESS__ 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OPEN_FLAGS (RTLD_NOW | RTLD_LOCAL)
#else
#define OPEN_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
#endif

/* The CBLAS enumerations' values (the same in every cblas.h). */
enum { COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112, UPPER = 121, LOWER = 122 };

typedef void dgemv_fn(int, int, int, int, double, const double *, int, const double *, int,
                      double, double *, int);
typedef void sgemv_fn(int, int, int, int, float, const float *, int, const float *, int,
                      float, float *, int);
typedef void dgbmv_fn(int, int, int, int, int, int, double, const double *, int,
                      const double *, int, double, double *, int);
typedef void sgbmv_fn(int, int, int, int, int, int, float, const float *, int, const float *,
                      int, float, float *, int);
typedef void dspmv_fn(int, int, int, double, const double *, const double *, int, double,
                      double *, int);
typedef void sspmv_fn(int, int, int, float, const float *, const float *, int, float, float *,
                      int);
typedef void dgemm_fn(int, int, int, int, int, int, double, const double *, int,
                      const double *, int, double, double *, int);
typedef void sgemm_fn(int, int, int, int, int, int, float, const float *, int, const float *,
                      int, float, float *, int);
typedef void threads_int_fn(int);
typedef void threads_i64_fn(int64_t);
typedef char *get_str_fn(void);
typedef int get_version_fn(char *, int);
typedef int set_layer_fn(int);
typedef int arch_id_fn(void);
typedef int get_int_fn(void);
typedef const char *arch_str_fn(int);
typedef void *handler_fn(void);

/* MKLVersion: three ints (four from 2025 on), then pointers, which start
   at offset 16 either way. */
struct mkl_version { int num[4]; char *status, *build, *processor, *platform; };
typedef void get_version_struct_fn(struct mkl_version *);
enum { MKL_INTERFACE_LP64 = 0, MKL_THREADING_GNU = 3 };

/* The code branch MKL chose for this CPU (MKL_CBWR_Get_Auto_Branch; the
   values of MKL 2026's mkl_types.h) */
static const char *mkl_branch(int b)
{
    switch (b) {
    case 3: return "compatible";
    case 4: return "SSE2";
    case 8: return "SSE4.2";
    case 10: return "AVX2";
    case 12: return "AVX-512";
    case 14: return "AVX-512 E1";
    case 15: return "AVX10";
    default: return NULL;
    }
}

/* What a library is called by, and how its threads are set. */
enum { THR_NONE, THR_OPENBLAS, THR_MKL, THR_BLIS };

struct lib {
    struct bench_lib pub;
    void *h2;                      /* FFTW: libfftw3f */
    int thr;
    void *set_threads;
    dgemv_fn *dgemv; sgemv_fn *sgemv; dgbmv_fn *dgbmv; sgbmv_fn *sgbmv;
    dspmv_fn *dspmv; sspmv_fn *sspmv; dgemm_fn *dgemm; sgemm_fn *sgemm;
};

static struct {
    struct lib lib[BENCH_MAX_REFS];
    int n;
    const struct bench_op *gemv, *gbmv, *spmv; /* to tell a case's op at each call */
    char real[BENCH_MAX_REFS][PATH_MAX]; /* the file each one loaded */
    char why[512];                 /* what was not found, for the header */
} L;

/* ------------------------------------------------------------- finding */

/* path, a file named `name` at most depth folders below dir; 0 if found */
static int find_below(const char *dir, const char *name, int depth, char *path, size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = -1;

    if (!d)
        return -1;
    while (found && (e = readdir(d))) {
        char sub[PATH_MAX];
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        if ((size_t)snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name) >= sizeof sub ||
            stat(sub, &st) != 0)
            continue;
        if (strcmp(e->d_name, name) == 0 && S_ISREG(st.st_mode)) {
            snprintf(path, len, "%s", sub);
            found = 0;
        } else if (S_ISDIR(st.st_mode) && depth > 0 && !S_ISLNK(st.st_mode)) {
            found = find_below(sub, name, depth - 1, path, len);
        }
    }
    closedir(d);
    return found;
}

/* Loads the first of names (NULL-terminated) that the loader finds, else
   the first found under NLA_REF_PATH; the handle, and its path in path. */
static void *open_first(const char *const *names, int system, char *path, size_t len)
{
    const char *refpath = getenv("NLA_REF_PATH");
    void *h;

    for (int i = 0; system && names[i]; i++)
        if ((h = dlopen(names[i], OPEN_FLAGS))) {
            snprintf(path, len, "%s", names[i]);
            return h;
        }
    for (int i = 0; refpath && names[i]; i++) {
        char dirs[4096], *save = NULL;
        snprintf(dirs, sizeof dirs, "%s", refpath);
        for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save))
            if (find_below(d, names[i], 6, path, len) == 0 && (h = dlopen(path, OPEN_FLAGS)))
                return h;
    }
    return NULL;
}

/* The file that symbol sym of h came from, resolved; 0 if known. */
static int real_file(void *h, const char *sym, char *out)
{
    Dl_info info;
    void *p = dlsym(h, sym);
    return p && dladdr(p, &info) && info.dli_fname && realpath(info.dli_fname, out) ? 0 : -1;
}

/* Keeps the library in slot L.n unless its file is already loaded. */
static int keep(void *h, const char *sym)
{
    char real[PATH_MAX];
    if (L.n >= BENCH_MAX_REFS || real_file(h, sym, real) != 0)
        return -1;
    for (int i = 0; i < L.n; i++)
        if (strcmp(L.real[i], real) == 0)
            return -1;
    snprintf(L.real[L.n], sizeof L.real[L.n], "%s", real);
    return 0;
}

/* "name-1.2.3": the first word of s that starts with a digit, after tag */
static void make_id(char *id, size_t len, const char *name, const char *s)
{
    const char *v = s;
    while (*v && !(*v >= '0' && *v <= '9' && (v == s || v[-1] == ' ' || v[-1] == '-')))
        v++;
    if (*v)
        snprintf(id, len, "%s-%.*s", name, (int)strcspn(v, " -,"), v);
    else
        snprintf(id, len, "%s", name);
    for (int i = 0; i < L.n; i++)   /* two of one version: tell them apart */
        if (strcmp(L.lib[i].pub.id, id) == 0) {
            size_t n = strlen(id);
            snprintf(id + n, len - n, "#%d", L.n + 1);
        }
}

/* ---------------------------------------------------------------- CBLAS */

static void *sym(struct lib *l, const char *name)
{
    char full[160];
    snprintf(full, sizeof full, "%s%s", l->pub.prefix, name);
    return dlsym(l->pub.h, full);
}

/* MKL: LP64, its GNU threading layer unless MKL_THREADING_LAYER says, and
   its version.  Before its first call. */
static void describe_mkl(struct lib *l)
{
    set_layer_fn *iface = (set_layer_fn *)sym(l, "MKL_Set_Interface_Layer");
    set_layer_fn *layer = (set_layer_fn *)sym(l, "MKL_Set_Threading_Layer");
    get_version_fn *vs = (get_version_fn *)sym(l, "MKL_Get_Version_String");
    get_version_struct_fn *v = (get_version_struct_fn *)sym(l, "MKL_Get_Version");
    get_int_fn *branch = (get_int_fn *)sym(l, "MKL_CBWR_Get_Auto_Branch");
    struct bench_lib *p = &l->pub;

    if (iface)
        iface(MKL_INTERFACE_LP64);
    if (getenv("MKL_THREADING_LAYER"))
        snprintf(p->threading, sizeof p->threading, "MKL_THREADING_LAYER=%s",
                 getenv("MKL_THREADING_LAYER"));
    else if (layer && layer(MKL_THREADING_GNU) == MKL_THREADING_GNU)
        snprintf(p->threading, sizeof p->threading, "GNU (libgomp, as libnla's)");
    else
        snprintf(p->threading, sizeof p->threading, "MKL's default");
    snprintf(p->version, sizeof p->version, "Intel MKL");
    if (vs) {
        vs(p->version, (int)sizeof p->version);
        p->version[sizeof p->version - 1] = '\0';
        for (size_t n = strlen(p->version); n > 0 && p->version[n - 1] == ' '; n--)
            p->version[n - 1] = '\0';   /* MKL pads it with blanks */
    }
    if (branch && mkl_branch(branch())) {
        snprintf(p->core, sizeof p->core, "%s", mkl_branch(branch()));
    } else if (v) {
        struct mkl_version mv[4];      /* room, should the structure grow */
        memset(mv, 0, sizeof mv);
        v(mv);
        if (mv[0].processor)
            snprintf(p->core, sizeof p->core, "%s", mv[0].processor);
    }
    make_id(p->id, sizeof p->id, "mkl", strstr(p->version, "Version") ? strstr(p->version,
            "Version") : p->version);
}

/* The library's version, kernel and thread setter. */
static void describe_cblas(struct lib *l, const char *name)
{
    struct bench_lib *p = &l->pub;
    get_str_fn *cfg = (get_str_fn *)sym(l, "openblas_get_config");
    get_str_fn *core = (get_str_fn *)sym(l, "openblas_get_corename");
    get_str_fn *blis_v = (get_str_fn *)sym(l, "bli_info_get_version_str");
    arch_id_fn *arch = (arch_id_fn *)sym(l, "bli_arch_query_id");
    arch_str_fn *arch_s = (arch_str_fn *)sym(l, "bli_arch_string");

    if ((l->set_threads = sym(l, "openblas_set_num_threads"))) {
        l->thr = THR_OPENBLAS;
        snprintf(p->version, sizeof p->version, "%s", cfg ? cfg() : "OpenBLAS");
        snprintf(p->core, sizeof p->core, "%s", core ? core() : "");
        snprintf(p->threading, sizeof p->threading, "OpenBLAS's own");
        make_id(p->id, sizeof p->id, "openblas", p->version);
    } else if ((l->set_threads = sym(l, "MKL_Set_Num_Threads"))) {
        l->thr = THR_MKL;
        describe_mkl(l);
    } else if ((l->set_threads = sym(l, "bli_thread_set_num_threads"))) {
        l->thr = THR_BLIS;
        snprintf(p->version, sizeof p->version, "BLIS %s", blis_v ? blis_v() : "");
        snprintf(p->core, sizeof p->core, "%s", arch && arch_s ? arch_s(arch()) : "");
        snprintf(p->threading, sizeof p->threading, "BLIS's own");
        make_id(p->id, sizeof p->id, "blis", p->version);
    } else {
        l->thr = THR_NONE;
        snprintf(p->version, sizeof p->version, "%s (no version string)", name);
        snprintf(p->threading, sizeof p->threading, "one thread (no thread setter)");
        make_id(p->id, sizeof p->id, name, "");
    }
}

/* Why a library's CBLAS names are missing, when a guess can say. */
static const char *missing_hint(struct lib *l)
{
    if (!l->pub.prefix[0] && dlsym(l->pub.h, "scipy_cblas_dgemv"))
        return "; its names carry a prefix: try --ref LIB:scipy_";
    if (sym(l, "cblas_dgemv64_"))
        return "; it is an ILP64 build (64-bit integers, names ending in 64_), which the "
               "bench does not call: use an LP64 one (scipy-openblas32)";
    return "";
}

/* The CBLAS in h (names prefixed) as the next library; 0, or -1 with why
   set when it lacks a function. */
static int add_cblas(void *h, const char *path, const char *prefix, const char *name,
                     char *why, size_t len)
{
    static const char *const names[8] = { "cblas_dgemv", "cblas_sgemv", "cblas_dgbmv",
                                          "cblas_sgbmv", "cblas_dspmv", "cblas_sspmv",
                                          "cblas_dgemm", "cblas_sgemm" };
    struct lib *l = &L.lib[L.n];
    void *f[8];
    char full[160];

    memset(l, 0, sizeof *l);
    l->pub.kind = BENCH_LIB_CBLAS;
    l->pub.h = h;
    snprintf(l->pub.path, sizeof l->pub.path, "%s", path);
    snprintf(l->pub.prefix, sizeof l->pub.prefix, "%s", prefix);
    for (int i = 0; i < 8; i++)
        if (!(f[i] = sym(l, names[i]))) {
            snprintf(why, len, "no symbol %s%s%s", prefix, names[i], missing_hint(l));
            return -1;
        }
    snprintf(full, sizeof full, "%s%s", prefix, names[0]);
    if (keep(h, full) != 0) {
        snprintf(why, len, "already loaded");
        return -1;
    }
    l->dgemv = (dgemv_fn *)f[0];
    l->sgemv = (sgemv_fn *)f[1];
    l->dgbmv = (dgbmv_fn *)f[2];
    l->sgbmv = (sgbmv_fn *)f[3];
    l->dspmv = (dspmv_fn *)f[4];
    l->sspmv = (sspmv_fn *)f[5];
    l->dgemm = (dgemm_fn *)f[6];
    l->sgemm = (sgemm_fn *)f[7];
    describe_cblas(l, name);
    L.n++;
    return 0;
}

static void try_cblas(const char *const *names, int system, const char *prefix,
                      const char *name)
{
    char path[PATH_MAX], why[256];
    void *h = open_first(names, system, path, sizeof path);
    if (h && add_cblas(h, path, prefix, name, why, sizeof why) != 0)
        dlclose(h);
}

/* ---------------------------------------------------------- FFTW, GSL */

static void find_fftw(void)
{
    static const char *const d[] = { "libfftw3.so.3", "libfftw3.so", NULL };
    static const char *const f[] = { "libfftw3f.so.3", "libfftw3f.so", NULL };
    static const char *const fn[13] = { "malloc", "free", "plan_dft_1d", "plan_dft_r2c_1d",
                                        "execute_dft", "execute_dft_r2c", "destroy_plan",
                                        "plan_dft", "plan_dft_r2c", "plan_r2r_1d",
                                        "execute_r2r", "plan_dft_c2r_1d",
                                        "execute_dft_c2r" };
    char path[PATH_MAX], pathf[PATH_MAX], name[64];
    struct lib *l = &L.lib[L.n];
    void *h = open_first(d, 1, path, sizeof path), *hf = NULL;
    const char *version;

    if (!h || !(hf = open_first(f, 1, pathf, sizeof pathf)) || keep(h, "fftw_execute"))
        goto missing;
    memset(l, 0, sizeof *l);
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < 13; i++) {
            snprintf(name, sizeof name, "fftw%s_%s", p ? "f" : "", fn[i]);
            if (!(l->pub.fftw[p][i] = dlsym(p ? hf : h, name)))
                goto missing;
        }
    l->pub.kind = BENCH_LIB_FFTW;
    l->pub.h = h;
    l->h2 = hf;
    version = dlsym(h, "fftw_version");   /* "fftw-3.3.10-sse2-avx" */
    snprintf(l->pub.version, sizeof l->pub.version, "%s", version ? version : "FFTW 3");
    if (version && !strncmp(version, "fftw-", 5)) {   /* then the SIMD it was built with */
        const char *simd = version + 5 + strcspn(version + 5, "-");
        snprintf(l->pub.core, sizeof l->pub.core, "%s", *simd ? simd + 1 : "");
    }
    make_id(l->pub.id, sizeof l->pub.id, "fftw", version ? version : "");
    snprintf(l->pub.path, sizeof l->pub.path, "%s, %s", path, pathf);
    snprintf(l->pub.threading, sizeof l->pub.threading, "one thread (plans made without "
             "threads)");
    L.n++;
    return;
missing:
    if (hf)
        dlclose(hf);
    if (h)
        dlclose(h);
}

static void find_gsl(void)
{
    static const char *const names[] = { "libgsl.so.28", "libgsl.so.27", "libgsl.so.25",
                                         "libgsl.so", NULL };
    char path[PATH_MAX];
    struct lib *l = &L.lib[L.n];
    void *h = open_first(names, 1, path, sizeof path);
    handler_fn *off;
    const char *const *version;

    if (!h)
        return;
    memset(l, 0, sizeof *l);
    l->pub.gsl[0] = dlsym(h, "gsl_fft_complex_radix2_forward");
    l->pub.gsl[1] = dlsym(h, "gsl_fft_complex_float_radix2_forward");
    off = (handler_fn *)dlsym(h, "gsl_set_error_handler_off");
    if (!l->pub.gsl[0] || !l->pub.gsl[1] || !off || keep(h, "gsl_fft_complex_radix2_forward")) {
        dlclose(h);
        return;
    }
    off();   /* never abort: the bench's sizes are powers of two */
    l->pub.kind = BENCH_LIB_GSL;
    l->pub.h = h;
    version = dlsym(h, "gsl_version");   /* const char *gsl_version */
    snprintf(l->pub.version, sizeof l->pub.version, "GSL %s", version ? *version : "");
    make_id(l->pub.id, sizeof l->pub.id, "gsl", l->pub.version);
    snprintf(l->pub.path, sizeof l->pub.path, "%s", path);
    snprintf(l->pub.threading, sizeof l->pub.threading, "one thread");
    L.n++;
}

/* ---------------------------------------------------------------- public */

/* "LIB" or "LIB:PREFIX"; a colon followed by a slash belongs to the path. */
static void split_spec(const char *spec, char *path, size_t plen, char *prefix, size_t xlen)
{
    const char *colon = strrchr(spec, ':');
    if (colon && !strchr(colon, '/')) {
        snprintf(path, plen, "%.*s", (int)(colon - spec), spec);
        snprintf(prefix, xlen, "%s", colon + 1);
    } else {
        snprintf(path, plen, "%s", spec);
        prefix[0] = '\0';
    }
}

/* Keeps the libraries whose id starts with a name of the comma-separated
   list; -1 when a name matches none. */
static int filter(const char *only)
{
    char buf[256], *save = NULL;
    int keepit[BENCH_MAX_REFS] = { 0 }, n = 0;

    snprintf(buf, sizeof buf, "%s", only);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int hit = 0;
        for (int i = 0; i < L.n; i++)
            if (strncmp(L.lib[i].pub.id, t, strlen(t)) == 0)
                keepit[i] = hit = 1;
        if (!hit) {
            fprintf(stderr, "nla bench: --refs: no reference found is named '%s'; found:", t);
            for (int i = 0; i < L.n; i++)
                fprintf(stderr, " %s", L.lib[i].pub.id);
            fputs("\n", stderr);
            return -1;
        }
    }
    for (int i = 0; i < L.n; i++)
        if (keepit[i]) {
            L.lib[n] = L.lib[i];
            memcpy(L.real[n++], L.real[i], sizeof L.real[i]);
        }
    L.n = n;
    return 0;
}

int bench_libs_open(const char *ref, const char *only)
{
    static const char *const openblas[] = { "libopenblas.so.0", "libopenblas.so", NULL };
    static const char *const blis[] = { "libblis.so.4", "libblis.so.3", "libblis.so", NULL };
    static const char *const mkl[] = { "libmkl_rt.so.3", "libmkl_rt.so.2", "libmkl_rt.so",
                                       NULL };
    static const char *const scipy[] = { "libscipy_openblas.so", NULL };
    static const char *const netlib[] = { "libcblas.so.3", "libblas.so.3", NULL };

    L.gemv = bench_op_find("gemv");
    L.gbmv = bench_op_find("gbmv");
    L.spmv = bench_op_find("spmv");
    try_cblas(openblas, 1, "", "openblas");
    try_cblas(blis, 1, "", "blis");
    try_cblas(mkl, 1, "", "mkl");
    try_cblas(scipy, 0, "scipy_", "openblas");
    if (L.n == 0)
        try_cblas(netlib, 1, "", "cblas");
    if (ref) {
        char path[PATH_MAX], prefix[64], why[256];
        void *h;
        split_spec(ref, path, sizeof path, prefix, sizeof prefix);
        if (!(h = dlopen(path, OPEN_FLAGS))) {
            fprintf(stderr, "nla bench: --ref: cannot load %s: %s\n", path, dlerror());
            return NLA_EXIT_USAGE;
        }
        if (add_cblas(h, path, prefix, "cblas", why, sizeof why) != 0) {
            dlclose(h);
            if (strcmp(why, "already loaded") != 0) {   /* else it has its column */
                fprintf(stderr, "nla bench: --ref %s: %s\n", ref, why);
                return NLA_EXIT_USAGE;
            }
        }
    }
    find_fftw();
    find_gsl();
    if (only && filter(only) != 0)
        return NLA_EXIT_USAGE;
    return -1;
}

int bench_libs_count(void)
{
    return L.n;
}

const struct bench_lib *bench_libs_get(int i)
{
    return i >= 0 && i < L.n ? &L.lib[i].pub : NULL;
}

int bench_libs_of(enum bench_lib_kind kind, const struct bench_lib **out, int max)
{
    int n = 0;
    for (int i = 0; i < L.n && n < max; i++)
        if (L.lib[i].pub.kind == kind)
            out[n++] = &L.lib[i].pub;
    return n;
}

void bench_libs_threads(int threads)
{
    for (int i = 0; i < L.n; i++) {
        struct lib *l = &L.lib[i];
        if (l->thr == THR_OPENBLAS || l->thr == THR_MKL)
            ((threads_int_fn *)l->set_threads)(threads);
        else if (l->thr == THR_BLIS)
            ((threads_i64_fn *)l->set_threads)(threads);
    }
}

static int trans(nla_trans t)
{
    return t == NLA_TRANS ? TRANS : NO_TRANS;
}

void bench_cblas_run(const struct bench_lib *lib, const struct bench_case *c, const void *a,
                     const void *b, void *y)
{
    const struct lib *l = (const struct lib *)(const void *)lib;   /* pub is first */
    const double al = BENCH_ALPHA, be = BENCH_BETA;
    const float sal = (float)BENCH_ALPHA, sbe = (float)BENCH_BETA;
    const struct bench_op *op = c->op;   /* the timed calls: pointers, not names */
    int d = c->prec == BENCH_D, m = (int)c->m, n = (int)c->n, k = (int)c->k;
    int kl = (int)c->kl, ku = (int)c->ku, ldab = kl + ku + 1;
    int uplo = c->uplo == NLA_LOWER ? LOWER : UPPER;

    if (op == L.gemv && d)
        l->dgemv(COL_MAJOR, trans(c->trans), m, n, al, a, m, b, 1, be, y, 1);
    else if (op == L.gemv)
        l->sgemv(COL_MAJOR, trans(c->trans), m, n, sal, a, m, b, 1, sbe, y, 1);
    else if (op == L.gbmv && d)
        l->dgbmv(COL_MAJOR, trans(c->trans), m, n, kl, ku, al, a, ldab, b, 1, be, y, 1);
    else if (op == L.gbmv)
        l->sgbmv(COL_MAJOR, trans(c->trans), m, n, kl, ku, sal, a, ldab, b, 1, sbe, y, 1);
    else if (op == L.spmv && d)
        l->dspmv(COL_MAJOR, uplo, n, al, a, b, 1, be, y, 1);
    else if (op == L.spmv)
        l->sspmv(COL_MAJOR, uplo, n, sal, a, b, 1, sbe, y, 1);
    else if (d)
        l->dgemm(COL_MAJOR, NO_TRANS, NO_TRANS, m, n, k, al, a, m, b, k, be, y, m);
    else
        l->sgemm(COL_MAJOR, NO_TRANS, NO_TRANS, m, n, k, sal, a, m, b, k, sbe, y, m);
}
