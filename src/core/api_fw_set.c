/*
 * api_fw_set.c - the Frank-Wolfe feasible sets' front end: every argument
 * of the nla_fw_set_* routines is checked here, before anything is
 * allocated or written; the LMOs are in src/opt (fw_set.c, fw_eig.c,
 * fw_assign.c).  Messages read "routine: argument ...".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/api_fw.h"

/* ------------------------------------------------------------------ sets */

static nla_status set_new(nla_fw_set **out, const char *fn, fw_set_kind kind, int64_t n,
                          double r)
{
    nla_fw_set *s = calloc(1, sizeof *s);
    if (!s)
        return nomem(fn);
    s->kind = kind;
    s->n = n;
    s->r = r;
    s->m = 1;
    s->cols = n;
    *out = s;
    nla_ok(NULL);
    return NLA_OK;
}

static nla_status radius_set(nla_fw_set **set, const char *fn, fw_set_kind kind,
                             int64_t n, double r)
{
    nla_check ck = NLA_CHECK_INIT(NULL, fn);
    if (chk_out(&ck, "set", set) || chk_pos(&ck, "n", n) || chk_len(&ck, "n", n) ||
        chk_real(&ck, "r", r, 0))
        return ck.status;
    return set_new(set, fn, kind, n, r);
}

NLA_API nla_status nla_fw_set_create_prob_simplex(nla_fw_set **set, int64_t n, double r)
{
    return radius_set(set, "nla_fw_set_create_prob_simplex", FW_SET_PROB_SIMPLEX, n, r);
}

NLA_API nla_status nla_fw_set_create_unit_simplex(nla_fw_set **set, int64_t n, double r)
{
    return radius_set(set, "nla_fw_set_create_unit_simplex", FW_SET_UNIT_SIMPLEX, n, r);
}

NLA_API nla_status nla_fw_set_create_l1_ball(nla_fw_set **set, int64_t n, double r)
{
    return radius_set(set, "nla_fw_set_create_l1_ball", FW_SET_L1, n, r);
}

NLA_API nla_status nla_fw_set_create_linf_ball(nla_fw_set **set, int64_t n, double r)
{
    return radius_set(set, "nla_fw_set_create_linf_ball", FW_SET_LINF, n, r);
}

NLA_API nla_status nla_fw_set_create_box(nla_fw_set **set, int64_t n, const double *lo,
                                         const double *hi)
{
    static const char fn[] = "nla_fw_set_create_box";
    nla_check ck = NLA_CHECK_INIT(NULL, fn);
    nla_fw_set *s = NULL;
    nla_status st;

    if (chk_out(&ck, "set", set) || chk_pos(&ck, "n", n) || chk_len(&ck, "n", n) ||
        nla_chk_ptr(&ck, "lo", lo, 1) || nla_chk_ptr(&ck, "hi", hi, 1))
        return ck.status;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(lo[i]))
            return nla_chk_fail(&ck, "lo[%lld] (%g) is not finite", (long long)i, lo[i]),
                   ck.status;
        if (!isfinite(hi[i]))
            return nla_chk_fail(&ck, "hi[%lld] (%g) is not finite", (long long)i, hi[i]),
                   ck.status;
        if (lo[i] > hi[i])
            return nla_chk_fail(&ck, "lo[%lld] (%g) > hi[%lld] (%g)", (long long)i, lo[i],
                            (long long)i, hi[i]), ck.status;
    }
    if ((st = set_new(&s, fn, FW_SET_BOX, n, 1.0)) != NLA_OK)
        return st;
    s->lo = malloc((size_t)n * sizeof(double));
    s->hi = malloc((size_t)n * sizeof(double));
    if (!s->lo || !s->hi) {
        nla_fw_set_destroy(s);
        return nomem(fn);
    }
    memcpy(s->lo, lo, (size_t)n * sizeof(double));
    memcpy(s->hi, hi, (size_t)n * sizeof(double));
    *set = s;
    return NLA_OK;
}

/* ksparse, knorm_ball, hypersimplex: 1 <= k <= n, r > 0 */
static nla_status k_set(nla_fw_set **set, const char *fn, fw_set_kind kind, int64_t n,
                        int64_t k, double r)
{
    nla_check ck = NLA_CHECK_INIT(NULL, fn);
    nla_status st;

    if (chk_out(&ck, "set", set) || chk_pos(&ck, "n", n) || chk_len(&ck, "n", n) ||
        chk_pos(&ck, "k", k) || chk_real(&ck, "r", r, 0))
        return ck.status;
    if (k > n)
        return nla_chk_fail(&ck, "k (%lld) > n (%lld)", (long long)k, (long long)n), ck.status;
    if ((st = set_new(set, fn, kind, n, r)) == NLA_OK)
        (*set)->k = k;
    return st;
}

NLA_API nla_status nla_fw_set_create_ksparse(nla_fw_set **set, int64_t n, int64_t k,
                                             double r)
{
    return k_set(set, "nla_fw_set_create_ksparse", FW_SET_KSPARSE, n, k, r);
}

NLA_API nla_status nla_fw_set_create_knorm_ball(nla_fw_set **set, int64_t n, int64_t k,
                                                 double r)
{
    return k_set(set, "nla_fw_set_create_knorm_ball", FW_SET_KNORM, n, k, r);
}

NLA_API nla_status nla_fw_set_create_hypersimplex(nla_fw_set **set, int64_t n, int64_t k,
                                                  double r)
{
    return k_set(set, "nla_fw_set_create_hypersimplex", FW_SET_HYPERSIMPLEX, n, k, r);
}

/* An m-by-n matrix set (m*n fits); the Lanczos sets check tol and
   max_iter (lanczos). */
static nla_status matrix_set(nla_fw_set **set, const char *fn, fw_set_kind kind,
                             int64_t m, int64_t n, double r, int lanczos, double tol,
                             int64_t max_iter)
{
    nla_check ck = NLA_CHECK_INIT(NULL, fn);
    nla_status st;
    int64_t mn;
    const char *dims = kind == FW_SET_NUCLEAR ? "m*n" : "n*n";

    if (chk_out(&ck, "set", set) || (kind == FW_SET_NUCLEAR && chk_pos(&ck, "m", m)) ||
        chk_pos(&ck, "n", n) || chk_real(&ck, "r", r, 0) ||
        (lanczos && chk_pos(&ck, "max_iter", max_iter)))
        return ck.status;
    if (nla_mul_overflows(m, n, &mn) || chk_len(&ck, dims, mn))
        return nla_chk_fail(&ck, "%s (%lld*%lld) overflows", dims, (long long)m,
                            (long long)n), ck.status;
    if (lanczos && !(tol > 0 && tol < 1))
        return nla_chk_fail(&ck, "tol (%g) is not in (0, 1)", tol), ck.status;
    if ((st = set_new(set, fn, kind, mn, r)) == NLA_OK) {
        (*set)->m = m;
        (*set)->cols = n;
        (*set)->tol = tol;
        (*set)->max_iter = max_iter;
    }
    return st;
}

NLA_API nla_status nla_fw_set_create_nuclear_ball(nla_fw_set **set, int64_t m, int64_t n,
                                                  double r, double tol, int64_t max_iter)
{
    return matrix_set(set, "nla_fw_set_create_nuclear_ball", FW_SET_NUCLEAR, m, n, r, 1, tol,
                      max_iter);
}

NLA_API nla_status nla_fw_set_create_spectraplex(nla_fw_set **set, int64_t n, double r,
                                                 double tol, int64_t max_iter)
{
    return matrix_set(set, "nla_fw_set_create_spectraplex", FW_SET_SPECTRAPLEX, n, n, r, 1,
                      tol, max_iter);
}

NLA_API nla_status nla_fw_set_create_birkhoff(nla_fw_set **set, int64_t n)
{
    return matrix_set(set, "nla_fw_set_create_birkhoff", FW_SET_BIRKHOFF, n, n, 1.0, 0, 0, 0);
}

NLA_API nla_status nla_fw_set_create_user(nla_fw_set **set, int64_t n, nla_fw_lmo_fn lmo,
                                          void *user)
{
    static const char fn[] = "nla_fw_set_create_user";
    nla_check ck = NLA_CHECK_INIT(NULL, fn);
    nla_status st;

    if (chk_out(&ck, "set", set) || chk_pos(&ck, "n", n) || chk_len(&ck, "n", n) ||
        nla_chk_ptr(&ck, "lmo", (const void *)(uintptr_t)lmo, 1))
        return ck.status;
    if ((st = set_new(set, fn, FW_SET_USER, n, 1.0)) == NLA_OK) {
        (*set)->lmo = lmo;
        (*set)->user = user;
    }
    return st;
}

NLA_API void nla_fw_set_destroy(nla_fw_set *set)
{
    if (!set)
        return;
    free(set->lo);
    free(set->hi);
    free(set);
}

NLA_API int64_t nla_fw_set_dim(const nla_fw_set *set)
{
    return set ? set->n : -1;
}

static int chk_finite_vec(nla_check *ck, const char *name, const double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return nla_chk_fail(ck, "%s[%lld] (%g) is not finite", name, (long long)i, v[i]);
    return 0;
}

NLA_API nla_status nla_fw_set_lmo(nla_context *ctx, const nla_fw_set *set, const double *g,
                                  double *v)
{
    static const char fn[] = "nla_fw_set_lmo";
    nla_check ck = NLA_CHECK_INIT(ctx, fn);
    fw_lmo_work w;
    nla_status s;

    if (nla_chk_ctx(&ck, ctx) || nla_chk_ptr(&ck, "set", set, 1) ||
        nla_chk_ptr(&ck, "g", g, 1) || nla_chk_ptr(&ck, "v", v, 1) ||
        chk_cpu(&ck, ctx, 2, (const void *const[]){ g, v }, (const char *const[]){ "g", "v" }) ||
        chk_finite_vec(&ck, "g", g, set->n))
        return ck.status;
    nla_ok(ctx);
    if ((s = fw_lmo_work_init(&w, set)) != NLA_OK)
        return nla_fail(ctx, s, fn, "cannot allocate the workspace");
    s = fw_set_lmo(ctx, set, g, &w);
    if (s == NLA_OK) {
        memset(v, 0, (size_t)set->n * sizeof(double));
        fw_vx_axpy(&w.v, 1.0, v, set->n, set->m);
    }
    fw_lmo_work_free(&w);
    return s == NLA_OK ? s : nla_fail(ctx, s, fn, "%s", nla_strerror(s));
}
