/*
 * fw_active.c - the active set of the away, pairwise and blended pairwise
 * variants: the atoms (vertices, cloned compactly) whose convex
 * combination sum lambda_i a_i is the iterate, and how a step moves their
 * weights.
 */
#include <stdlib.h>
#include <string.h>
#include "opt/fw.h"

void fw_active_clear(fw_active *s)
{
    for (int64_t i = 0; i < s->len; i++)
        fw_vx_free(s->a[i].v);
    s->len = 0;
}

void fw_active_free(fw_active *s)
{
    fw_active_clear(s);
    free(s->a);
    s->a = NULL;
    s->cap = 0;
}

static int active_find(const fw_active *s, const fw_vertex *v, int64_t n, int64_t m)
{
    for (int64_t i = 0; i < s->len; i++)
        if (fw_vx_equal(s->a[i].v, v, n, m))
            return (int)i;
    return -1;
}

nla_status fw_active_add(fw_active *s, const fw_vertex *v, double lambda, int64_t n,
                             int64_t m)
{
    fw_vertex *c;
    if (s->len == s->cap) {
        int64_t cap = s->cap ? 2 * s->cap : 16;
        struct fw_atom *a = realloc(s->a, (size_t)cap * sizeof *a);
        if (!a)
            return NLA_ENOMEM;
        s->a = a;
        s->cap = cap;
    }
    if (!(c = fw_vx_clone(v, n, m)))
        return NLA_ENOMEM;
    s->a[s->len].lambda = lambda;
    s->a[s->len].v = c;
    s->len++;
    return NLA_OK;
}

static void active_remove(fw_active *s, int64_t i)
{
    fw_vx_free(s->a[i].v);
    s->a[i] = s->a[--s->len];
}

/* lambda_v += gamma, adding v when it is new */
static nla_status active_credit(fw_active *s, const fw_vertex *v, double gamma, int64_t n,
                                int64_t m)
{
    int i = active_find(s, v, n, m);
    if (i >= 0) {
        s->a[i].lambda += gamma;
        return NLA_OK;
    }
    return fw_active_add(s, v, gamma, n, m);
}

/* Drops the atoms of weight <= FW_PURGE and renormalizes: how many went. */
static int64_t active_purge(fw_active *s)
{
    double sum = 0;
    int64_t len = s->len;
    for (int64_t i = 0; i < s->len;) {
        if (s->a[i].lambda <= FW_PURGE)
            active_remove(s, i);
        else
            sum += s->a[i++].lambda;
    }
    if (sum > 0)
        for (int64_t i = 0; i < s->len; i++)
            s->a[i].lambda /= sum;
    return len - s->len;
}

nla_status fw_active_init(fw_active *s, const double *x, int64_t n, int64_t m)
{
    int64_t nz = 0, at = 0, idx;
    double val;
    fw_vertex v;

    for (int64_t i = 0; i < n; i++)
        if (x[i] != 0) {
            nz++;
            at = i;
        }
    memset(&v, 0, sizeof v);
    if (nz <= 1 && m == 1) {
        v.kind = FW_VX_SPARSE;
        v.nnz = nz;
        idx = at;
        val = x[at];
        v.idx = &idx;
        v.val = &val;
    } else {
        v.kind = FW_VX_DENSE;
        v.dense = (double *)x;
    }
    return fw_active_add(s, &v, 1.0, n, m);
}

void fw_active_extremes(const fw_active *s, const double *g, int64_t n, int64_t m,
                        int64_t *ia, double *ga, int64_t *is, double *gs)
{
    *ia = *is = -1;
    *ga = *gs = 0;
    for (int64_t i = 0; i < s->len; i++) {
        double d = fw_vx_dot(s->a[i].v, g, n, m);
        if (*ia < 0 || d > *ga) {
            *ia = i;
            *ga = d;
        }
        if (*is < 0 || d < *gs) {
            *is = i;
            *gs = d;
        }
    }
}

nla_status fw_active_step(fw_active *s, const fw_move *mv, double gamma, int drop,
                          int64_t n, int64_t m, int64_t *removed)
{
    nla_status st = NLA_OK;

    *removed = 0;
    if (gamma == 0)
        return NLA_OK;
    switch (mv->dir) {
    case FW_DIR_FW:
        if (gamma >= 1 && mv->to_idx >= 0) {
            struct fw_atom keep = s->a[mv->to_idx];
            s->a[mv->to_idx] = s->a[0];
            s->a[0] = keep;
            *removed = s->len - 1;
            while (s->len > 1)
                active_remove(s, s->len - 1);
            s->a[0].lambda = 1;
            return NLA_OK;
        }
        if (gamma >= 1) {
            *removed = s->len;
            fw_active_clear(s);
            return fw_active_add(s, mv->to, 1.0, n, m);
        }
        for (int64_t i = 0; i < s->len; i++)
            s->a[i].lambda *= 1 - gamma;
        if (mv->to_idx >= 0)
            s->a[mv->to_idx].lambda += gamma;
        else
            st = active_credit(s, mv->to, gamma, n, m);
        break;
    case FW_DIR_AWAY:
        for (int64_t i = 0; i < s->len; i++)
            s->a[i].lambda *= 1 + gamma;
        s->a[mv->from].lambda = drop ? 0 : s->a[mv->from].lambda - gamma;
        break;
    case FW_DIR_PAIR:
        s->a[mv->from].lambda = drop ? 0 : s->a[mv->from].lambda - gamma;
        if (mv->to_idx >= 0)
            s->a[mv->to_idx].lambda += gamma;
        else
            st = active_credit(s, mv->to, gamma, n, m);
        break;
    case FW_DIR_FACE:          /* fw_face_commit rebuilds the set */
        break;
    }
    *removed += active_purge(s);
    return st;
}

int fw_active_rebuild(const fw_active *s, double *x, int64_t n)
{
    for (int64_t i = 0; i < s->len; i++)
        if (s->a[i].v->kind != FW_VX_SPARSE)
            return 0;
    memset(x, 0, (size_t)n * sizeof(double));
    for (int64_t i = 0; i < s->len; i++) {
        const fw_vertex *v = s->a[i].v;
        for (int64_t k = 0; k < v->nnz; k++)
            x[v->idx[k]] += s->a[i].lambda * v->val[k];
    }
    return 1;
}
