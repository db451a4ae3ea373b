/*
 * fw_face.c - the nuclear ball's local steps for blended pairwise (BPCG):
 * steps inside the subspaces that the active set spans.
 *
 * Over a polytope, BPCG's local step s - a between two atoms keeps the
 * iterate on a face of finitely many vertices, where it converges
 * linearly.  The nuclear ball's atoms -r u w' are all different, and
 * pairwise steps between them converge as slowly as vanilla FW once the
 * optimum has rank two or more.  So here the local step works on the
 * subspaces instead.  With U, W orthonormal bases of the atoms' u and w
 * (ku and kw columns), the iterate is X = U M W', |M|_* = |X|_*, and
 * {U N W' : |N|_* <= r} is a small nuclear ball.  Two steps live there:
 *
 *   projected gradient  M+ = P_r(M - U'GW / L), d = U (M+ - M) W', with
 *       P_r the projection of the singular values onto {s >= 0, sum <= r}:
 *       it can rotate the subspaces and drop directions, so it is the
 *       usual step.  Its slope <G, d> is the difference of O(1) numbers,
 *       so it stalls where |M+ - M| ~ sqrt(eps);
 *   in-face gradient    with M = P S Q' (k singular values above the
 *       purge), along D = -Gs, Gs = sym(P'U'GWQ), in {N >= 0, trace N
 *       <= r} at N = S, or on the boundary (trace S = r) along its
 *       trace-free part, as far as N stays positive semidefinite.  Its
 *       slope -|D|^2 is formed from the small D, so it goes on to
 *       rounding; it is taken where projected gradient has stalled.
 *
 * After either step the active set is rebuilt from the new small matrix's
 * SVD (or eigenvectors): one atom per non-zero value, and the zero matrix
 * for the weight an iterate inside the ball leaves over.  New directions
 * come from FW steps alone.  The step is taken, as BPCG's, when it
 * promises gap/2: its own FW gap (over the small ball for projected
 * gradient, <G, X> + r sigma_1(U'GW); over {N >= 0, trace N <= r} for the
 * in-face step) is at least half the LMO's (Freund, Grigas and Mazumder
 * 2017 call such steps in-face).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "opt/fw.h"

struct fw_face {
    int64_t m, c, cap;         /* matrix shape; capacity of the bases */
    int64_t ku, kw, k;         /* the bases' sizes; M's rank */
    int pg;                    /* the planned step: projected gradient */
    double r;
    double *buf;
    double *u, *w;             /* m-by-cap, c-by-cap: the atoms' bases */
    double *up, *wq;           /* m-by-cap, c-by-cap: U P, W Q */
    double *t;                 /* m-by-cap + c scratch */
    double *mm, *a, *b, *gf;   /* cap-by-cap: M; P S and Q of its SVD; U'GW */
    double *dm, *e, *zq;       /* cap-by-cap: the step in the small space */
    double *s, *z;             /* cap each: singular or eigenvalues */
};

void fw_face_free(fw_face *f)
{
    if (f)
        free(f->buf);
    free(f);
}

nla_status fw_face_create(const nla_fw_set *set, fw_face **out)
{
    fw_face *f = calloc(1, sizeof *f);
    *out = NULL;
    if (!f)
        return NLA_ENOMEM;
    f->m = set->m;
    f->c = set->cols;
    f->r = set->r;
    *out = f;
    return NLA_OK;
}

/* Room for bases of k vectors. */
static int face_reserve(fw_face *f, int64_t k)
{
    int64_t cap = f->cap ? f->cap : 8, m = f->m, c = f->c;
    size_t kk, total;
    double *p;
    if (k <= f->cap)
        return 0;
    while (cap < k)
        cap *= 2;
    kk = (size_t)cap * (size_t)cap;
    total = (size_t)(3 * m * cap + 2 * c * cap + c) + 7 * kk + 2 * (size_t)cap;
    free(f->buf);
    if (!(f->buf = malloc(total * sizeof(double)))) {
        f->cap = 0;
        return -1;
    }
    p = f->buf;
    f->u = p; p += m * cap;
    f->up = p; p += m * cap;
    f->t = p; p += m * cap + c;
    f->w = p; p += c * cap;
    f->wq = p; p += c * cap;
    f->mm = p; p += kk;
    f->a = p; p += kk;
    f->b = p; p += kk;
    f->gf = p; p += kk;
    f->dm = p; p += kk;
    f->e = p; p += kk;
    f->zq = p; p += kk;
    f->s = p; p += cap;
    f->z = p;
    f->cap = cap;
    return 0;
}

/* Appends x (n) to the orthonormal basis b (k columns) unless it lies in
   its span: classical Gram-Schmidt, twice. */
static void basis_add(double *b, int64_t n, int64_t *k, const double *x)
{
    double *v = b + *k * n, nx = sqrt(fw_dot(x, x, n)), nv;
    memcpy(v, x, (size_t)n * sizeof(double));
    for (int pass = 0; pass < 2; pass++)
        for (int64_t j = 0; j < *k; j++) {
            double h = fw_dot(b + j * n, v, n);
            for (int64_t i = 0; i < n; i++)
                v[i] -= h * b[j * n + i];
        }
    nv = sqrt(fw_dot(v, v, n));
    if (nv > 1e-10 * nx) {
        for (int64_t i = 0; i < n; i++)
            v[i] /= nv;
        (*k)++;
    }
}

/* s onto {s >= 0, sum s <= r}, in place (k values; tmp k doubles). */
static void project_l1(double *s, int64_t k, double r, double *tmp)
{
    double sum = 0, cs = 0, theta = 0;
    for (int64_t i = 0; i < k; i++)
        sum += s[i] = fmax(s[i], 0);
    if (sum <= r)
        return;
    memcpy(tmp, s, (size_t)k * sizeof(double));
    for (int64_t i = 1; i < k; i++)          /* insertion sort, descending */
        for (int64_t j = i; j > 0 && tmp[j] > tmp[j - 1]; j--) {
            double t = tmp[j];
            tmp[j] = tmp[j - 1];
            tmp[j - 1] = t;
        }
    for (int64_t i = 0; i < k; i++)
        if (tmp[i] > ((cs += tmp[i]) - r) / (double)(i + 1))
            theta = (cs - r) / (double)(i + 1);
    for (int64_t i = 0; i < k; i++)
        s[i] = fmax(s[i] - theta, 0);
}

static double max_of(const double *z, int64_t k)
{
    double m = 0;
    for (int64_t i = 0; i < k; i++)
        m = fmax(m, z[i]);
    return m;
}

static double min_of(const double *z, int64_t k)
{
    double m = INFINITY;
    for (int64_t i = 0; i < k; i++)
        m = fmin(m, z[i]);
    return m;
}

/* An iterate whose singular values sum to r (1 - this) or more is on the
   boundary, where the face step keeps the trace. */
#define FW_FACE_EDGE 1e-12

/* Starts up to this size (the smaller side) are split into rank-one atoms
   by an SVD, O(min(m,c)^2 max(m,c)) a sweep. */
#define FW_FACE_START_MAX 256

/* as += lambda * sc u w' (sc = -r: a vertex; 0: the zero matrix, which
   holds the weight that an iterate inside the ball leaves over). */
static nla_status add_atom(fw_face *f, fw_active *as, const double *u, const double *w,
                           double sc, double lambda)
{
    fw_vertex v;
    memset(&v, 0, sizeof v);
    v.kind = FW_VX_RANK1;
    v.s = sc;
    v.u = (double *)u;
    v.w = (double *)w;
    return fw_active_add(as, &v, lambda, f->m * f->c, f->m);
}

nla_status fw_face_start(fw_face *f, fw_active *as, const double *x)
{
    int64_t m = f->m, c = f->c, rows = m >= c ? m : c, cols = m >= c ? c : m;
    double *a, *q, *s, total = 0, smax;
    nla_status st = NLA_OK;

    if (cols > FW_FACE_START_MAX)
        return NLA_OK;
    a = fw_tall_copy(x, m, c);
    q = malloc((size_t)(cols * cols + rows) * sizeof(double));
    if (!a || !q) {
        free(a);
        free(q);
        return NLA_ENOMEM;
    }
    s = a + rows * cols;
    fw_jacobi_svd(a, rows, cols, q, s);
    fw_active_clear(as);
    smax = max_of(s, cols);
    for (int64_t j = 0; j < cols && st == NLA_OK; j++) {
        double *p = a + j * rows, *neg = q + cols * cols;
        if (!(s[j] > FW_PURGE * smax))
            continue;
        for (int64_t i = 0; i < rows; i++)
            p[i] /= s[j];
        /* x = sum s_j p_j q_j' (or its transpose) = sum (s_j/r)(-r)(-u)w' */
        if (m >= c) {
            for (int64_t i = 0; i < m; i++)
                neg[i] = -p[i];
            st = add_atom(f, as, neg, q + j * cols, -f->r, s[j] / f->r);
        } else {
            for (int64_t i = 0; i < m; i++)
                neg[i] = -q[i + j * cols];
            st = add_atom(f, as, neg, p, -f->r, s[j] / f->r);
        }
        total += s[j] / f->r;
    }
    if (st == NLA_OK && (as->len == 0 || total < 1 - FW_PURGE)) {
        memset(q, 0, (size_t)(cols * cols + rows) * sizeof(double));
        q[0] = 1;                            /* 0 = 0 e_1 e_1' */
        st = add_atom(f, as, q, q, 0, as->len == 0 ? 1 : 1 - total);
    }
    free(a);
    free(q);
    return st;
}

int fw_face_ready(const fw_active *as)
{
    for (int64_t i = 0; i < as->len; i++)
        if (as->a[i].v->kind != FW_VX_RANK1)
            return 0;
    return as->len > 0;
}

/* U and W from the atoms, M = U'XW (f->mm, ku-by-kw) and its SVD: f->a
   (columns s_j p_j), f->b (Q); f->up = U P, f->wq = W Q for the singular
   values above the purge, whose count is f->k and values f->s.  Returns
   their sum. */
static double face_basis(fw_face *f, const fw_active *as)
{
    int64_t m = f->m, c = f->c, ku = 0, kw = 0, k = 0;
    double sum = 0, smax;

    for (int64_t i = 0; i < as->len; i++) {
        basis_add(f->u, m, &ku, as->a[i].v->u);
        basis_add(f->w, c, &kw, as->a[i].v->w);
    }
    f->ku = ku;
    f->kw = kw;
    memset(f->mm, 0, (size_t)(ku * kw) * sizeof(double));
    for (int64_t i = 0; i < as->len; i++) {
        const fw_vertex *v = as->a[i].v;
        for (int64_t x = 0; x < ku; x++)
            f->z[x] = fw_dot(f->u + x * m, v->u, m);
        for (int64_t y = 0; y < kw; y++) {
            double h = as->a[i].lambda * v->s * fw_dot(f->w + y * c, v->w, c);
            for (int64_t x = 0; x < ku; x++)
                f->mm[x + y * ku] += f->z[x] * h;
        }
    }
    memcpy(f->a, f->mm, (size_t)(ku * kw) * sizeof(double));
    fw_jacobi_svd(f->a, ku, kw, f->b, f->s);
    smax = max_of(f->s, kw);
    for (int64_t j = 0; j < kw; j++) {
        if (!(f->s[j] > FW_PURGE * smax))
            continue;
        for (int64_t x = 0; x < ku; x++)       /* P's column, then Q's */
            f->a[x + k * ku] = f->a[x + j * ku] / f->s[j];
        for (int64_t y = 0; y < kw; y++)
            f->b[y + k * kw] = f->b[y + j * kw];
        f->s[k] = f->s[j];
        sum += f->s[k++];
    }
    f->k = k;
    memset(f->up, 0, (size_t)(m * k) * sizeof(double));
    memset(f->wq, 0, (size_t)(c * k) * sizeof(double));
    for (int64_t j = 0; j < k; j++) {
        for (int64_t x = 0; x < ku; x++)
            for (int64_t i = 0; i < m; i++)
                f->up[i + j * m] += f->a[x + j * ku] * f->u[i + x * m];
        for (int64_t y = 0; y < kw; y++)
            for (int64_t i = 0; i < c; i++)
                f->wq[i + j * c] += f->b[y + j * kw] * f->w[i + y * c];
    }
    return sum;
}

/* The projected gradient step: f->dm = P_r(M - Gf/L) - M (ku-by-kw);
   returns <Gf, dm>, or 0 where rounding may hide its sign. */
static double plan_pg(fw_face *f, double L)
{
    int64_t ku = f->ku, kw = f->kw, kk = ku * kw;
    double *z = f->e, *q = f->zq, *sp = f->z, slope = 0, nm = 0, ng = 0;

    for (int64_t i = 0; i < kk; i++)
        z[i] = f->mm[i] - f->gf[i] / L;
    fw_jacobi_svd(z, ku, kw, q, sp);
    for (int64_t j = 0; j < kw; j++)            /* z's singular values */
        f->dm[j] = sp[j];
    project_l1(f->dm, kw, f->r, f->dm + kw);
    memset(f->dm + kw, 0, (size_t)kk * sizeof(double));
    for (int64_t j = 0; j < kw; j++) {          /* M+ = sum s+_j p_j q_j' */
        double sc = sp[j] > 0 ? f->dm[j] / sp[j] : 0;
        for (int64_t y = 0; y < kw && sc != 0; y++)
            for (int64_t x = 0; x < ku; x++)
                f->dm[kw + x + y * ku] += sc * q[y + j * kw] * z[x + j * ku];
    }
    for (int64_t i = 0; i < kk; i++) {
        f->dm[i] = f->dm[kw + i] - f->mm[i];
        slope += f->gf[i] * f->dm[i];
        nm += f->mm[i] * f->mm[i];
        ng += f->gf[i] * f->gf[i];
    }
    /* M+ carries errors of eps (|M| + |Gf|/L) from the SVD */
    if (!(slope < -64 * DBL_EPSILON * sqrt(ng) * (sqrt(nm) + sqrt(ng) / L)))
        return 0;
    return slope;
}

/* The in-face step (k-by-k, in the SVD basis of M): f->dm = D; returns
   <Gs, D> = -|D|^2, the largest step in *gmax and the step's own gap. */
static double plan_inface(fw_face *f, double sum, double *gmax, double *gap)
{
    int64_t ku = f->ku, kw = f->kw, k = f->k;
    double tr = 0, nd = 0, trd = 0, shift, lo;
    int tangent;

    /* Gs = sym(P' Gf Q) */
    for (int64_t y = 0; y < k; y++)
        for (int64_t x = 0; x < k; x++) {
            double h = 0;
            for (int64_t b = 0; b < kw; b++)
                h += fw_dot(f->a + x * ku, f->gf + b * ku, ku) * f->b[b + y * kw];
            f->e[x + y * k] = h;
        }
    for (int64_t y = 0; y < k; y++)
        for (int64_t x = 0; x < k; x++)
            f->dm[x + y * k] = 0.5 * (f->e[x + y * k] + f->e[y + x * k]);
    for (int64_t i = 0; i < k; i++)
        tr += f->dm[i + i * k];
    /* its gap over {N >= 0, trace N <= r}: <Gs, S> - r min(lambda_min(Gs), 0) */
    memcpy(f->e, f->dm, (size_t)(k * k) * sizeof(double));
    fw_sym_eig(f->e, k, f->z);
    *gap = -f->r * fmin(min_of(f->z, k), 0);
    for (int64_t i = 0; i < k; i++)
        *gap += f->dm[i + i * k] * f->s[i];
    /* D = -Gs, or on the boundary, where -Gs would raise the trace, its
       trace-free part; <Gs, D> = -|D|^2 either way */
    tangent = sum >= f->r * (1 - FW_FACE_EDGE) && tr < 0;
    shift = tangent ? tr / (double)k : 0;
    for (int64_t y = 0; y < k; y++)
        for (int64_t x = 0; x < k; x++) {
            double dxy = -f->dm[x + y * k] + (x == y ? shift : 0);
            f->dm[x + y * k] = dxy;
            nd += dxy * dxy;
            if (x == y)
                trd += dxy;
        }
    /* S + gamma D >= 0: 1 + gamma lambda_min(S^-1/2 D S^-1/2) >= 0; and
       trace(S + gamma D) <= r */
    for (int64_t y = 0; y < k; y++)
        for (int64_t x = 0; x < k; x++)
            f->e[x + y * k] = f->dm[x + y * k] / sqrt(f->s[x] * f->s[y]);
    fw_sym_eig(f->e, k, f->z);
    lo = min_of(f->z, k);
    *gmax = lo < 0 ? -1 / lo : INFINITY;
    if (!tangent && trd > 0)
        *gmax = fmin(*gmax, fmax(f->r - sum, 0) / trd);
    return -nd;
}

/* d = L S R' for the m-by-kl L, kl-by-kr S, c-by-kr R. */
static void expand(fw_face *f, const double *lb, int64_t kl, const double *sm, int64_t kr,
                   const double *rb, double *d)
{
    int64_t m = f->m, c = f->c;
    memset(f->t, 0, (size_t)(m * kr) * sizeof(double));
    for (int64_t y = 0; y < kr; y++)
        for (int64_t x = 0; x < kl; x++) {
            double h = sm[x + y * kl];
            for (int64_t i = 0; i < m; i++)
                f->t[i + y * m] += h * lb[i + x * m];
        }
    memset(d, 0, (size_t)(m * c) * sizeof(double));
    for (int64_t l = 0; l < c; l++)
        for (int64_t y = 0; y < kr; y++) {
            double h = rb[l + y * c];
            for (int64_t i = 0; i < m; i++)
                d[i + l * m] += h * f->t[i + y * m];
        }
}

double fw_face_plan(fw_face *f, const fw_active *as, const double *g, double L, double *d,
                    double *dg, double *gmax)
{
    int64_t m = f->m, c = f->c, ku, kw;
    double sum, gap = 0, smax = 0;

    if (face_reserve(f, as->len + 1) != 0)
        return NAN;
    sum = face_basis(f, as);
    ku = f->ku;
    kw = f->kw;
    if (f->k == 0)
        return NAN;
    /* Gf = U'GW: T = G W, then U'T */
    memset(f->t, 0, (size_t)(m * kw) * sizeof(double));
    for (int64_t l = 0; l < c; l++)
        for (int64_t y = 0; y < kw; y++) {
            double h = f->w[l + y * c];
            for (int64_t i = 0; i < m; i++)
                f->t[i + y * m] += h * g[i + l * m];
        }
    for (int64_t y = 0; y < kw; y++)
        for (int64_t x = 0; x < ku; x++) {
            f->gf[x + y * ku] = fw_dot(f->u + x * m, f->t + y * m, m);
            gap += f->gf[x + y * ku] * f->mm[x + y * ku];
        }
    /* the small ball's gap: <Gf, M> + r sigma_1(Gf) */
    memcpy(f->e, f->gf, (size_t)(ku * kw) * sizeof(double));
    fw_jacobi_svd(f->e, ku, kw, f->zq, f->z);
    for (int64_t j = 0; j < kw; j++)
        smax = fmax(smax, f->z[j]);
    gap += f->r * smax;
    f->pg = 1;
    *gmax = 1;
    if ((*dg = plan_pg(f, L)) < 0) {
        expand(f, f->u, ku, f->dm, kw, f->w, d);
        return gap;
    }
    f->pg = 0;
    *dg = plan_inface(f, sum, gmax, &gap);
    expand(f, f->up, f->k, f->dm, f->k, f->wq, d);
    return gap;
}

/* as = the atoms of U N W' (k1-by-k2 N, destroyed, with U m-by-k1 and W
   c-by-k2): one per singular value above the purge, and the zero matrix
   for the weight left over. */
static nla_status rebuild(fw_face *f, fw_active *as, const double *ub, int64_t k1,
                          double *nm, int64_t k2, const double *wb)
{
    int64_t m = f->m, c = f->c;
    double *uw = f->t, total = 0, zmax;
    nla_status s = NLA_OK;

    fw_jacobi_svd(nm, k1, k2, f->zq, f->z);
    zmax = max_of(f->z, k2);
    fw_active_clear(as);
    for (int64_t j = 0; j < k2 && s == NLA_OK; j++) {
        double lam = f->z[j] / f->r;
        if (!(f->z[j] > FW_PURGE * zmax))    /* relative: r may be large */
            continue;
        memset(uw, 0, (size_t)(m + c) * sizeof(double));
        for (int64_t x = 0; x < k1; x++) {
            double h = nm[x + j * k1] / f->z[j];
            for (int64_t i = 0; i < m; i++)
                uw[i] -= h * ub[i + x * m];
        }
        for (int64_t y = 0; y < k2; y++) {
            double h = f->zq[y + j * k2];
            for (int64_t i = 0; i < c; i++)
                uw[m + i] += h * wb[i + y * c];
        }
        s = add_atom(f, as, uw, uw + m, -f->r, lam);
        total += lam;
    }
    if (s == NLA_OK && (as->len == 0 || total < 1 - FW_PURGE)) {
        memset(uw, 0, (size_t)(m + c) * sizeof(double));
        uw[0] = uw[m] = 1;
        s = add_atom(f, as, uw, uw + m, 0, as->len == 0 ? 1 : 1 - total);
    }
    return s;
}

nla_status fw_face_commit(fw_face *f, fw_active *as, double gamma)
{
    int64_t k = f->k;
    if (f->pg) {
        for (int64_t i = 0; i < f->ku * f->kw; i++)
            f->e[i] = f->mm[i] + gamma * f->dm[i];
        return rebuild(f, as, f->u, f->ku, f->e, f->kw, f->w);
    }
    for (int64_t y = 0; y < k; y++)
        for (int64_t x = 0; x < k; x++)
            f->e[x + y * k] = gamma * f->dm[x + y * k] + (x == y ? f->s[x] : 0);
    return rebuild(f, as, f->up, k, f->e, k, f->wq);
}
