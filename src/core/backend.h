/*
 * backend.h - the table every backend implements.
 *
 * The front end (src/core/api_*.c) validates every argument, normalises
 * row-major GEMM to column-major, handles the BLAS quick returns, and then
 * calls one of these entries.  A backend therefore never validates, and sees
 * column-major data only.
 *
 * The CUDA backend is a plugin: it exports
 *     int nla_plugin_abi(void);                            returns NLA_PLUGIN_ABI
 *     const struct nla_backend_ops *nla_plugin_ops(void);
 * The loader (plugin.c) refuses a plugin whose ABI number differs.  Bump
 * NLA_PLUGIN_ABI whenever this structure or nla_exec changes.
 */
#ifndef NLA_CORE_BACKEND_H
#define NLA_CORE_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include "nla.h"

/* 2: FFT entries added
   3: mem_alloc, upload, download and synchronize take the nla_exec (a
      backend can describe its failure); is_device_ptr added
   4: fft_execute takes a message buffer (the device's error string)
   5: fw_solve added (the Frank-Wolfe loop on the backend)
   6: nla_exec gains form (the CPU level-2 kernel form a call ran)
   7: set_stream and stream added (the caller's CUDA stream)
   8: nla_exec gains fft_effort (a backend may ignore it)
   9: parallel added (a loop of calls on the backend's threads) */
#define NLA_PLUGIN_ABI 9

/* What a backend entry is given besides its arguments. */
typedef struct nla_exec {
    void *state;     /* the backend's per-context state (from ctx_init) */
    int nthreads;    /* threads the call may use, >= 1 */
    char *msg;       /* on failure a backend may describe it here ...   */
    size_t msglen;   /* ... in at most msglen bytes, NUL included      */
    const char **form; /* the kernel form the call ran, a static string
                          the backend stores here (NULL: none to say) */
    int fft_effort;  /* FFT plans: the context's nla_fft_effort */
} nla_exec;

#define NLA_BACKEND_GEMV(T, name)                                              \
    nla_status (*name)(const nla_exec *ex, nla_trans trans, int64_t m,         \
                       int64_t n, T alpha, const T *a, int64_t lda,            \
                       const T *x, int64_t incx, T beta, T *y, int64_t incy)
#define NLA_BACKEND_GBMV(T, name)                                              \
    nla_status (*name)(const nla_exec *ex, nla_trans trans, int64_t m,         \
                       int64_t n, int64_t kl, int64_t ku, T alpha,             \
                       const T *ab, int64_t ldab, const T *x, int64_t incx,    \
                       T beta, T *y, int64_t incy)
#define NLA_BACKEND_SPMV(T, name)                                              \
    nla_status (*name)(const nla_exec *ex, nla_uplo uplo, int64_t n, T alpha,  \
                       const T *ap, const T *x, int64_t incx, T beta, T *y,    \
                       int64_t incy)
/* column-major only */
#define NLA_BACKEND_GEMM(T, name)                                              \
    nla_status (*name)(const nla_exec *ex, nla_trans transa,                   \
                       nla_trans transb, int64_t m, int64_t n, int64_t k,      \
                       T alpha, const T *a, int64_t lda, int64_t stride_a,     \
                       const T *b, int64_t ldb, int64_t stride_b, T beta,      \
                       T *c, int64_t ldc, int64_t stride_c, int64_t batch)

/* The Frank-Wolfe loop run whole on a backend (fw_solve below): a built-in
   quadratic over a set whose LMO is elementwise or one-hot, vanilla steps.
   It follows src/opt/fw_solve.c step for step: the image w = M x is kept
   up to date (w += gamma M d, recomputed from x every NLA_FW_REFRESH
   steps), f and the gradient come from w, and the step rules are the
   CPU's, with the adaptive rule's constants below. */
#define NLA_FW_REFRESH 100
#define NLA_FW_BACKTRACK_MAX 100
#define NLA_FW_ADAPT_ETA 0.9
#define NLA_FW_ADAPT_TAU 2.0

typedef enum nla_fw_dev_set {
    NLA_FW_DEV_PROB_SIMPLEX,   /* r e_i at the first smallest g_i */
    NLA_FW_DEV_UNIT_SIMPLEX,   /* the same when g_i < 0, else 0 */
    NLA_FW_DEV_L1,             /* -sign(g_i) r e_i at the first largest |g_i| (+r for 0) */
    NLA_FW_DEV_LINF,           /* v_i = g_i > 0 ? -r : r */
    NLA_FW_DEV_BOX             /* v_i = g_i > 0 ? lo_i : hi_i */
} nla_fw_dev_set;

typedef struct nla_fw_dev_problem {
    int quad;                  /* 0: f = 1/2 |M x - b|^2, 1: f = 1/2 x'M x + c'x */
    int op;                    /* 0 dense (ld), 1 band (kl, ku, ld), 2 packed (the
                                  triangle of `upper`) */
    int64_t rows, cols, ld, kl, ku;
    int upper;
    const double *a;           /* M, as the objective holds it */
    const double *b;           /* least squares: rows */
    const double *c;           /* quadratic: cols, or NULL for zero */
    nla_fw_dev_set set;
    double r;                  /* radius (simplices, balls) */
    const double *lo, *hi;     /* box: cols each */
    nla_fw_step_rule rule;
    double L;                  /* short step: L; adaptive: first estimate (0: none) */
} nla_fw_dev_problem;

/* What the loop reports at iteration t, before its step is taken. */
typedef struct nla_fw_dev_iter {
    int64_t t;
    double f, gap, gamma;      /* f(x_t), <g_t, x_t - v_t>, the step's gamma */
    int finite;                /* f(x_t) and every entry of g_t are finite */
    int adapt_fail;            /* the adaptive rule found no L (NLA_FW_BACKTRACK_MAX) */
    const double *x;           /* x_t: on the host when fw_solve was given xhost */
} nla_fw_dev_iter;

/* The caller's decision on iteration t's report. */
enum {
    NLA_FW_DEV_STEP = 0,       /* take the step: x_{t+1} = x_t + gamma d_t */
    NLA_FW_DEV_STOP = 1,       /* stop; the result is x_t */
    NLA_FW_DEV_STOP_PREV = 2   /* stop; the result is x_{t-1} (x_0 when t == 0) */
};
typedef int (*nla_fw_dev_hook)(void *user, const nla_fw_dev_iter *it);

struct nla_backend_ops {
    int abi;              /* NLA_PLUGIN_ABI */
    const char *name;     /* "cpu", "cuda" */

    /* 1 if usable; otherwise 0 and a reason in why[0..len).  Called once,
       while the loader holds its pthread_once: it must not call back into
       libnla's backend queries (nla_backend_available, nla_context_create
       with CUDA or AUTO), which would deadlock. */
    int (*available)(char *why, size_t len);
    nla_status (*ctx_init)(void **state);
    void (*ctx_fini)(void *state);

    nla_status (*mem_alloc)(const nla_exec *ex, void **ptr, size_t bytes);
    void (*mem_free)(void *state, void *ptr);
    /* host -> context memory, context memory -> host; both return when
       the copy is complete (after the work queued before them) */
    nla_status (*upload)(const nla_exec *ex, void *dst, const void *src, size_t bytes);
    nla_status (*download)(const nla_exec *ex, void *dst, const void *src, size_t bytes);
    nla_status (*synchronize)(const nla_exec *ex);

    NLA_BACKEND_GEMV(double, dgemv);
    NLA_BACKEND_GEMV(float, sgemv);
    NLA_BACKEND_GBMV(double, dgbmv);
    NLA_BACKEND_GBMV(float, sgbmv);
    NLA_BACKEND_SPMV(double, dspmv);
    NLA_BACKEND_SPMV(float, sspmv);
    /* batch >= 1; a single GEMM is batch == 1 with strides 0 */
    NLA_BACKEND_GEMM(double, dgemm);
    NLA_BACKEND_GEMM(float, sgemm);

    /* FFT plans.  desc is validated and resolved: howmany >= 1, strides
       and dists >= 1 (no zeros), scale != 0.  The backend's plan (*impl)
       must be safe to execute from many threads at once.  fft_execute gets
       in and out already checked (in == out only in the layouts nla.h
       allows), and msg ("" on entry, msglen bytes) for the reason of a
       failure, such as the device's error string.  A backend may leave all
       three NULL: plans on it are then NLA_ENOTSUP. */
    nla_status (*fft_plan)(const nla_exec *ex, const nla_fft_desc *desc, void **impl);
    nla_status (*fft_execute)(const void *impl, const void *in, void *out, char *msg,
                              size_t msglen);
    void (*fft_destroy)(void *impl);

    /* 1 if p points into memory that only this backend can read (device
       memory); the front end of an AUTO context runs every call that
       touches such a pointer on this backend.  NULL: all memory is host
       memory.  Must be cheap and thread-safe; p may be NULL. */
    int (*is_device_ptr)(void *state, const void *p);

    /* Frank-Wolfe from the start point x (p->cols doubles, feasible):
       calls hook once per iteration until it says stop, then writes the
       result to x and returns NLA_OK.  xhost: NULL, or p->cols host
       doubles that receive x_t before each hook call (it->x points there).
       The arrays of p and x may be host or device memory.  The hook may
       call libnla on the same context.  On failure x is not written.
       NULL: the backend has no such loop. */
    nla_status (*fw_solve)(const nla_exec *ex, const nla_fw_dev_problem *p, double *x,
                           double *xhost, nla_fw_dev_hook hook, void *user);

    /* The stream the context's work goes on.  set_stream: once the work
       queued so far has finished, stream (the backend's handle; NULL: the
       context's own) takes its place.  stream: the one in use.  NULL
       entries: the backend has no streams. */
    nla_status (*set_stream)(const nla_exec *ex, void *stream);
    void *(*stream)(void *state);

    /* fn(arg, i) for every i < count, on up to ex->nthreads threads at
       once (each i on one of them, in no set order); the status of the
       least i that failed, or NLA_OK.  fn calls libnla on one-thread
       plans (the multi-dimensional FFT's planes).  ex carries state and
       nthreads only (msg is NULL, form NULL).  NULL: the front end runs
       the i in order on its own thread. */
    nla_status (*parallel)(const nla_exec *ex, int64_t count,
                           nla_status (*fn)(void *arg, int64_t i), void *arg);
};

typedef int (*nla_plugin_abi_fn)(void);
typedef const struct nla_backend_ops *(*nla_plugin_ops_fn)(void);

/* The CPU backend, part of libnla. */
extern const struct nla_backend_ops nla_cpu_backend;

#endif
