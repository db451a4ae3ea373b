/*
 * fw_face.c - the nuclear ball's local steps for blended pairwise (BPCG):
 * steps inside the subspaces that the active set spans, widened towards
 * the gradient.
 *
 * Over a polytope, BPCG's local step s - a between two atoms keeps the
 * iterate on a face of finitely many vertices, where it converges
 * linearly.  The nuclear ball's atoms -r u w' are all different, and
 * pairwise steps between them converge as slowly as vanilla FW once the
 * optimum has rank two or more.  So here the local step works on the
 * subspaces instead.  With U, W orthonormal bases of the atoms' u and w
 * (ku and kw columns), the iterate is X = U M W', |M|_* = |X|_*.  Two
 * steps:
 *
 *   projected gradient  in U and W widened by G W and G'U (ka and kb
 *       columns), which hold the gradient's part in the tangent space of
 *       X's rank k, U U'G + G W W' - U U'G W W':
 *       M+ = P_r,k'(M - U'GW / L), d = U (M+ - M) W', with P_r,k' keeping
 *       the k' largest singular values and projecting them onto {s >= 0,
 *       sum <= r}.  It turns the subspaces towards the gradient (as a
 *       Riemannian gradient step on the rank-k matrices would) and drops
 *       directions.  k' = k on the boundary, where the optimum's rank is
 *       usually low and FW steps bring new directions; k + 1 inside the
 *       ball, where each step may add one as a FW step would (the plain
 *       projection there doubles the rank a step).  Its slope <G, d> is
 *       the difference of O(1) numbers, so it stalls where |M+ - M| ~
 *       sqrt(eps);
 *   in-face gradient    in U and W alone, with M = P S Q' (k singular
 *       values above the purge), along D = -Gs, Gs = sym(P'U'GWQ), in
 *       {N >= 0, trace N <= r} at N = S, or on the boundary (trace S = r)
 *       along its trace-free part, as far as N stays positive
 *       semidefinite.  Its slope -|D|^2 is formed from the small D, so it
 *       goes on to rounding; it is taken where projected gradient has
 *       stalled.
 *
 * After either step the active set is rebuilt from the new small matrix's
 * SVD (or eigenvectors): one atom per non-zero value, and the zero matrix
 * for the weight an iterate inside the ball leaves over; where that drops
 * a value under the purge, x becomes the atoms' sum again.  The step is
 * taken, as BPCG's, when it promises gap/2: its own FW gap (over the
 * widened small ball for projected gradient, <G, X> + r sigma_1(U'GW);
 * over {N >= 0, trace N <= r} for the in-face step) is at least half the
 * LMO's (Freund, Grigas and Mazumder 2017 call such steps in-face).  The
 * products with G and the bases run on the library's own gemm.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "opt/fw.h"

struct fw_face {
    int64_t m, c, cap;         /* matrix shape; capacity of the bases */
    int64_t ku, kw, k;         /* the bases' sizes; M's rank */
    int64_t ka, kb;            /* the bases with G W and G'U added */
    int pg;                    /* the planned step: projected gradient */
    int purged;                /* the last rebuild dropped a non-zero value */
    double r;
    double *buf;
    double *u, *w;             /* m-by-cap, c-by-cap: the atoms' bases */
    double *up, *wq;           /* m-by-cap, c-by-cap: U P, W Q */
    double *t;                 /* (m + c)-by-cap + c scratch */
    double *mm, *a, *b, *gf;   /* cap-by-cap: M; P S and Q of its SVD; U'GW */
    double *ma, *ga;           /* cap-by-cap: M and U'GW in the wider bases */
    double *dm, *e, *zq;       /* cap-by-cap: the step in the small space */
    double *s, *z;             /* cap each: singular or eigenvalues */
    double *sp, *v1, *v2;      /* cap each: M+'s singular values; scratch */
    nla_exec ex;               /* the library's gemm, during a plan */
    const struct nla_backend_ops *ops;
    nla_status st;             /* its first failure in this plan */
};

/* c = op(a) op(b) (rows-by-cols, inner products of length inner, column
   major) on the library's own gemm. */
static void gemm(fw_face *f, nla_trans ta, nla_trans tb, int64_t rows, int64_t cols,
                 int64_t inner, const double *a, int64_t lda, const double *b, int64_t ldb,
                 double *c, int64_t ldc)
{
    nla_status s;
    if (rows == 0 || cols == 0)
        return;
    if (inner == 0) {
        for (int64_t j = 0; j < cols; j++)
            memset(c + j * ldc, 0, (size_t)rows * sizeof(double));
        return;
    }
    s = f->ops->dgemm(&f->ex, ta, tb, rows, cols, inner, 1.0, a, lda, 0, b, ldb, 0, 0.0, c,
                      ldc, 0, 1);
    if (f->st == NLA_OK)
        f->st = s;
}

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
    total = (size_t)(3 * m * cap + 3 * c * cap + c) + 9 * kk + 5 * (size_t)cap;
    free(f->buf);
    if (!(f->buf = malloc(total * sizeof(double)))) {
        f->cap = 0;
        return -1;
    }
    p = f->buf;
    f->u = p; p += m * cap;
    f->up = p; p += m * cap;
    f->t = p; p += (m + c) * cap + c;
    f->w = p; p += c * cap;
    f->wq = p; p += c * cap;
    f->mm = p; p += kk;
    f->a = p; p += kk;
    f->b = p; p += kk;
    f->gf = p; p += kk;
    f->ma = p; p += kk;
    f->ga = p; p += kk;
    f->dm = p; p += kk;
    f->e = p; p += kk;
    f->zq = p; p += kk;
    f->s = p; p += cap;
    f->sp = p; p += cap;
    f->v1 = p; p += cap;
    f->v2 = p; p += cap;
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

/* tmp = s (k values), sorted descending by insertion */
static void sorted_copy(const double *s, int64_t k, double *tmp)
{
    memcpy(tmp, s, (size_t)k * sizeof(double));
    for (int64_t i = 1; i < k; i++)
        for (int64_t j = i; j > 0 && tmp[j] > tmp[j - 1]; j--) {
            double t = tmp[j];
            tmp[j] = tmp[j - 1];
            tmp[j - 1] = t;
        }
}

/* Keeps the keep largest of the k values s, zeroing the others (tmp k
   doubles); of values tied at the cut, the first. */
static void keep_largest(double *s, int64_t k, int64_t keep, double *tmp)
{
    double thr;
    int64_t ties;
    if (keep >= k)
        return;
    sorted_copy(s, k, tmp);
    thr = keep > 0 ? tmp[keep - 1] : INFINITY;
    ties = keep;                            /* the slots left for s == thr */
    for (int64_t i = 0; i < k; i++)
        ties -= s[i] > thr;
    for (int64_t i = 0; i < k; i++)
        if (!(s[i] > thr) && !(s[i] == thr && ties-- > 0))
            s[i] = 0;
}

/* s onto {s >= 0, sum s <= r}, in place (k values; tmp k doubles). */
static void project_l1(double *s, int64_t k, double r, double *tmp)
{
    double sum = 0, cs = 0, theta = 0;
    for (int64_t i = 0; i < k; i++)
        sum += s[i] = fmax(s[i], 0);
    if (sum <= r)
        return;
    sorted_copy(s, k, tmp);
    for (int64_t i = 0; i < k; i++)
        if (tmp[i] > ((cs += tmp[i]) - r) / (double)(i + 1))
            theta = (cs - r) / (double)(i + 1);
    sum = 0;
    for (int64_t i = 0; i < k; i++)
        sum += s[i] = fmax(s[i] - theta, 0);
    /* s - theta cancels where s >> r (errors of eps s): sum <= r all the
       same */
    if (sum > r)
        for (int64_t i = 0; i < k; i++)
            s[i] *= r / sum;
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
   by an SVD, O(min(m,c)^2 max(m,c)) a sweep; X = 0 is the zero atom at
   any size. */
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
    int64_t m = f->m, c = f->c, rows = m >= c ? m : c, cols = m >= c ? c : m, nz = 0;
    double *a, *q, *s, total = 0, smax;
    nla_status st = NLA_OK;

    while (nz < m * c && x[nz] == 0)
        nz++;
    if (nz == m * c) {          /* X = 0: the zero atom, whatever the size */
        if (!(q = calloc((size_t)(m + c), sizeof(double))))
            return NLA_ENOMEM;
        q[0] = q[m] = 1;
        fw_active_clear(as);
        st = add_atom(f, as, q, q + m, 0, 1);
        free(q);
        return st;
    }
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
    gemm(f, NLA_NO_TRANS, NLA_NO_TRANS, m, k, ku, f->u, m, f->a, ku, f->up, m);
    gemm(f, NLA_NO_TRANS, NLA_NO_TRANS, c, k, kw, f->w, c, f->b, kw, f->wq, c);
    return sum;
}

/* The projected gradient step: f->dm = P_r,k(M - Gf/L) - M in the wider
   bases (ka-by-kb: f->ma, f->ga);
   returns <Gf, dm>, or 0 where rounding may hide its sign. */
static double plan_pg(fw_face *f, double L, double sum)
{
    int64_t ka = f->ka, kb = f->kb, kk = ka * kb;
    double *z = f->e, *q = f->zq, *sp = f->z, slope = 0, nm = 0, ng = 0;

    for (int64_t i = 0; i < kk; i++)
        z[i] = f->ma[i] - f->ga[i] / L;
    fw_jacobi_svd(z, ka, kb, q, sp);
    for (int64_t j = 0; j < kb; j++)            /* z's singular values */
        f->dm[j] = sp[j];
    keep_largest(f->dm, kb, f->k + (sum < f->r * (1 - FW_FACE_EDGE)), f->dm + kb);
    project_l1(f->dm, kb, f->r, f->dm + kb);
    memcpy(f->sp, f->dm, (size_t)kb * sizeof(double));
    memset(f->dm + kb, 0, (size_t)kk * sizeof(double));
    for (int64_t j = 0; j < kb; j++) {          /* M+ = sum s+_j p_j q_j' */
        double sc = sp[j] > 0 ? f->dm[j] / sp[j] : 0;
        for (int64_t y = 0; y < kb && sc != 0; y++)
            for (int64_t x = 0; x < ka; x++)
                f->dm[kb + x + y * ka] += sc * q[y + j * kb] * z[x + j * ka];
    }
    for (int64_t i = 0; i < kk; i++) {
        f->dm[i] = f->dm[kb + i] - f->ma[i];
        slope += f->ga[i] * f->dm[i];
        nm += f->ma[i] * f->ma[i];
        ng += f->ga[i] * f->ga[i];
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
    gemm(f, NLA_NO_TRANS, NLA_NO_TRANS, m, kr, kl, lb, m, sm, kl, f->t, m);
    gemm(f, NLA_NO_TRANS, NLA_TRANS, m, c, kr, f->t, m, rb, c, d, m);
}

/* The largest singular value of the rows-by-cols a by the power method on
   a'a from a's largest column (x: cols, y: rows), on a scaled by a power
   of two so that the squares neither overflow nor underflow; it only
   weighs the local step against a FW step, so a few digits do. */
static double top_sv(const double *a, int64_t rows, int64_t cols, double *x, double *y)
{
    const double sc = fw_pow2_scale(a, rows * cols);
    double big = 0, s = 0;
    int64_t jmax = 0;
    for (int64_t i = 0; i < rows * cols; i++)
        if (fabs(a[i]) > big) {
            big = fabs(a[i]);
            jmax = i / rows;
        }
    if (!(big > 0))
        return 0;
    for (int64_t i = 0; i < rows; i++)
        y[i] = sc * a[i + jmax * rows];
    for (int it = 0; it < 100; it++) {
        double nx = 0, prev = s;
        for (int64_t j = 0; j < cols; j++) {        /* x = a'y / |a'y| */
            x[j] = sc * fw_dot(a + j * rows, y, rows);
            nx += x[j] * x[j];
        }
        nx = sqrt(nx);
        for (int64_t j = 0; j < cols; j++)
            x[j] /= nx;
        memset(y, 0, (size_t)rows * sizeof(double));
        for (int64_t j = 0; j < cols; j++)          /* y = a x */
            for (int64_t i = 0; i < rows; i++)
                y[i] += sc * x[j] * a[i + j * rows];
        s = fmax(s, sqrt(fw_dot(y, y, rows)));
        if (s - prev <= 1e-10 * s)
            break;
    }
    return s / sc;
}

/* Widens U by G W and W by G'U (kept where independent: f->ka, f->kb
   columns), so that U N W' holds the gradient's part in the tangent space
   of the iterate's rank, U U'G + G W W' - U U'G W W', and the projected
   gradient step can turn the subspaces towards it; f->ma = M and f->ga =
   U'GW in them, f->gf = U'GW in the atoms' own (the in-face step's).  f->t
   holds G W (m-by-kw) on entry. */
static void widen(fw_face *f, const double *g)
{
    int64_t m = f->m, c = f->c, ku = f->ku, kw = f->kw, ka = ku, kb = kw;
    double *s = f->t + m * kw;

    for (int64_t y = 0; y < kw; y++)
        basis_add(f->u, m, &ka, f->t + y * m);
    gemm(f, NLA_TRANS, NLA_NO_TRANS, c, ku, m, g, m, f->u, m, s, c);     /* S = G'U */
    for (int64_t x = 0; x < ku; x++)
        basis_add(f->w, c, &kb, s + x * c);
    /* T = G W for W's new columns (G W for the old ones is there) */
    gemm(f, NLA_NO_TRANS, NLA_NO_TRANS, m, kb - kw, c, g, m, f->w + kw * c, c, f->t + kw * m,
         m);
    gemm(f, NLA_TRANS, NLA_NO_TRANS, ka, kb, m, f->u, m, f->t, m, f->ga, ka);
    memset(f->ma, 0, (size_t)(ka * kb) * sizeof(double));
    for (int64_t y = 0; y < kw; y++)
        for (int64_t x = 0; x < ku; x++) {
            f->ma[x + y * ka] = f->mm[x + y * ku];
            f->gf[x + y * ku] = f->ga[x + y * ka];
        }
    f->ka = ka;
    f->kb = kb;
}

double fw_face_plan(nla_context *ctx, fw_face *f, const fw_active *as, const double *g,
                    double L, double *d, double *dg, double *gmax)
{
    int64_t m = f->m, c = f->c;
    double sum, gap = 0;

    /* ka, kb <= 2 len, and plan_pg's dm + kb + ka kb stays under cap^2 */
    if (face_reserve(f, 2 * (as->len + 1)) != 0)
        return NAN;
    f->ops = nla_route(ctx, &f->ex, NLA_ROUTE_LEVEL2, 0, 0, NULL, 0);
    f->st = NLA_OK;
    sum = face_basis(f, as);
    if (f->k == 0)
        return NAN;
    /* T = G W; widen adds the rest, Gf = U'GW and M in the wider bases */
    gemm(f, NLA_NO_TRANS, NLA_NO_TRANS, m, f->kw, c, g, m, f->w, c, f->t, m);
    widen(f, g);
    /* the small ball's gap: <Gf, M> + r sigma_1(Gf), in the wider bases */
    for (int64_t i = 0; i < f->ka * f->kb; i++)
        gap += f->ga[i] * f->ma[i];
    gap += f->r * top_sv(f->ga, f->ka, f->kb, f->v1, f->v2);
    f->pg = 1;
    *gmax = 1;
    if ((*dg = plan_pg(f, L, sum)) < 0) {
        expand(f, f->u, f->ka, f->dm, f->kb, f->w, d);
    } else {
        f->pg = 0;
        *dg = plan_inface(f, sum, gmax, &gap);
        expand(f, f->up, f->k, f->dm, f->k, f->wq, d);
    }
    return f->st == NLA_OK ? gap : NAN;
}

/* as = the atoms of U N W' from N's SVD: N = sum val_j p_j q_j' with p_j =
   lp_j / lsc_j (lp k1-by-k2, q k2-by-k2, U m-by-k1, W c-by-k2): one per
   value above the purge, and the zero matrix for the weight left over. */
static nla_status atoms_from_svd(fw_face *f, fw_active *as, const double *ub, int64_t k1,
                                 const double *lp, const double *lsc, const double *val,
                                 const double *q, int64_t k2, const double *wb)
{
    int64_t m = f->m, c = f->c;
    double *uw = f->t, total = 0, vmax = max_of(val, k2);
    nla_status s = NLA_OK;

    fw_active_clear(as);
    f->purged = 0;
    for (int64_t j = 0; j < k2 && s == NLA_OK; j++) {
        double lam = val[j] / f->r;
        if (!(val[j] > FW_PURGE * vmax)) {  /* relative: r may be large */
            f->purged |= val[j] > 0;
            continue;
        }
        memset(uw, 0, (size_t)(m + c) * sizeof(double));
        for (int64_t x = 0; x < k1; x++) {
            double h = lp[x + j * k1] / lsc[j];
            for (int64_t i = 0; i < m; i++)
                uw[i] -= h * ub[i + x * m];
        }
        for (int64_t y = 0; y < k2; y++) {
            double h = q[y + j * k2];
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

/* as = the atoms of U N W' (k1-by-k2 N, destroyed). */
static nla_status rebuild(fw_face *f, fw_active *as, const double *ub, int64_t k1,
                          double *nm, int64_t k2, const double *wb)
{
    fw_jacobi_svd(nm, k1, k2, f->zq, f->z);
    return atoms_from_svd(f, as, ub, k1, nm, f->z, f->z, f->zq, k2, wb);
}

nla_status fw_face_commit(fw_face *f, fw_active *as, double gamma, double *x, int *fresh)
{
    int64_t k = f->k, mc = f->m * f->c;
    nla_status s;
    if (f->pg && gamma == 1) { /* M+ = sum s+_j p_j q_j', from plan_pg's SVD */
        s = atoms_from_svd(f, as, f->u, f->ka, f->e, f->z, f->sp, f->zq, f->kb, f->w);
    } else if (f->pg) {
        for (int64_t i = 0; i < f->ka * f->kb; i++)
            f->e[i] = f->ma[i] + gamma * f->dm[i];
        s = rebuild(f, as, f->u, f->ka, f->e, f->kb, f->w);
    } else {
        for (int64_t y = 0; y < k; y++)
            for (int64_t i = 0; i < k; i++)
                f->e[i + y * k] = gamma * f->dm[i + y * k] + (i == y ? f->s[i] : 0);
        s = rebuild(f, as, f->up, k, f->e, k, f->wq);
    }
    /* x is the atoms' sum again, so that purged values do not stay in x
       while later steps, made from the atoms, fill the ball without them */
    if (s == NLA_OK && f->purged) {
        *fresh = 1;
        memset(x, 0, (size_t)mc * sizeof(double));
        for (int64_t i = 0; i < as->len; i++)
            fw_vx_axpy(as->a[i].v, as->a[i].lambda, x, mc, f->m);
    }
    return s;
}
