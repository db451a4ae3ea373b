/*
 * dct_tmpl.h - DCT-II and DCT-III (FFTW's REDFT10 and REDFT01, unnormalized)
 * for one precision, on an inner real transform of the same length n.
 * Included by fft.c right after fft_tmpl.h, with the same T and F(name).
 *
 * With W = exp(-i*pi/(2n)) and h = n/2:
 *   REDFT10: v[j] = x[2j], v[n-1-j] = x[2j+1] (evens forward, odds back
 *     from the end), V = R2C(v); for 1 <= k <= h, z = W^k V[k] gives
 *     Y[k] = 2 Re z and Y[n-k] = -2 Im z (V[n-k] = conj V[k]); Y[0] = 2 V[0].
 *   REDFT01, the same steps reversed: U[0] = X[0],
 *     U[k] = W^-k (X[k] - i X[n-k]) for 1 <= k <= h, u = C2R(U), then
 *     x[2j] = u[j], x[2j+1] = u[n-1-j].
 * Each transform reads its whole input before it writes, so in == out works
 * for one transform.  The work area holds v or u, then V or U, then the
 * inner plan's scratch; each part starts on 64 bytes.
 */

struct F(dct) {
    F(plan) *inner;     /* R2C (REDFT10) or C2R (REDFT01): length n, one transform */
    T *w;               /* W^k, k <= n/2, made in double */
    int64_t ra, rb;     /* complex values of the real buffer and the half spectrum */
};

/* the inner plan (F(plan_prepare)) */
static F(plan) *F(dct_inner)(const struct F(dct) *t)
{
    return t->inner;
}

/* complex values rounded up to whole 64-byte lines (8 complex floats) */
static int64_t F(dct_lines)(int64_t c)
{
    return (c + 7) & ~(int64_t)7;
}

static void F(dct_free)(struct F(dct) *t)
{
    if (!t)
        return;
    F(plan_free)(t->inner);
    free(t->w);
    free(t);
}

static nla_status F(dct_plan_create)(const nla_fft_desc *d, const nla_exec *ex, F(plan) **out)
{
    const int64_t n = d->n, h = n / 2;
    const int fwd = d->kind == NLA_FFT_REDFT10;
    F(plan) *p = calloc(1, sizeof *p);
    struct F(dct) *t = calloc(1, sizeof *t);
    nla_fft_desc id;
    nla_exec iex = *ex;
    nla_status s;

    if (!p || !t) {
        free(p);
        free(t);
        return NLA_ENOMEM;
    }
    p->d = *d;
    p->kt = nla_fft_kernels_get();
    p->nthreads = ex->nthreads > 0 ? ex->nthreads : 1;
    p->dct = t;
    memset(&id, 0, sizeof id);
    id.kind = fwd ? NLA_FFT_R2C : NLA_FFT_C2R;
    id.precision = d->precision;
    id.direction = fwd ? NLA_FFT_FORWARD : NLA_FFT_BACKWARD;
    id.n = n;
    id.howmany = 1;
    id.istride = id.ostride = 1;
    id.idist = fwd ? n : h + 1;
    id.odist = fwd ? h + 1 : n;
    id.scale = 1.0;
    /* one transform: the threads inside it; a batch: the threads over it */
    iex.nthreads = d->howmany == 1 ? p->nthreads : 1;
    s = F(plan_create)(&id, &iex, &t->inner);
    if (s == NLA_OK && !(t->w = F(talloc)(h + 1)))
        s = NLA_ENOMEM;
    if (s != NLA_OK) {
        F(plan_free)(p);
        return s;
    }
    /* W^k = exp(-2*pi*i * k/(4n)), reduced exactly like every twiddle (4n
       stays far below twiddle()'s limit: w's n/2+1 values were allocated) */
    for (int64_t k = 0; k <= h; k++) {
        double re, im;
        twiddle(k, 4 * n, -1, &re, &im);
        t->w[2 * k] = (T)re;
        t->w[2 * k + 1] = (T)im;
    }
    t->ra = F(dct_lines)((n + 1) / 2);
    t->rb = F(dct_lines)(h + 1);
    p->work = t->ra + t->rb + t->inner->work;
    atomic_init(&p->pool.busy, 0);
    atomic_init(&p->ready, 0);
    p->pool.bytes = (size_t)p->work * 2 * sizeof(T);
    *out = p;
    return NLA_OK;
}

/* REDFT10 of one transform: x, y its first elements */
static void F(redft10_one)(const F(plan) *p, const T *x, T *y, T *work)
{
    const struct F(dct) *t = p->dct;
    const int64_t n = p->d.n, h = n / 2, is = p->d.istride, os = p->d.ostride;
    const T s2 = (T)(2.0 * p->d.scale), *w = t->w;
    T *v = work, *V = work + 2 * t->ra, *iw = V + 2 * t->rb;

    for (int64_t j = 0; 2 * j < n; j++)
        v[j] = x[2 * j * is];
    for (int64_t j = 0; 2 * j + 1 < n; j++)
        v[n - 1 - j] = x[(2 * j + 1) * is];
    F(r2c_one)(t->inner, v, V, iw);
    y[0] = s2 * V[0];
    for (int64_t k = 1; k <= h; k++) {
        const T wr = w[2 * k], wi = w[2 * k + 1], vr = V[2 * k], vi = V[2 * k + 1];
        y[k * os] = s2 * (wr * vr - wi * vi);
        if (2 * k != n)
            y[(n - k) * os] = -s2 * (wr * vi + wi * vr);
    }
}

/* REDFT01 of one transform */
static void F(redft01_one)(const F(plan) *p, const T *x, T *y, T *work)
{
    const struct F(dct) *t = p->dct;
    const int64_t n = p->d.n, h = n / 2, is = p->d.istride, os = p->d.ostride;
    const T sc = (T)p->d.scale, *w = t->w;
    T *u = work, *U = work + 2 * t->ra, *iw = U + 2 * t->rb;

    U[0] = x[0];
    U[1] = 0;
    /* conj(W^k) (a - i b) with a = X[k], b = X[n-k] (X[h] twice for even n) */
    for (int64_t k = 1; k <= h; k++) {
        const T wr = w[2 * k], wi = w[2 * k + 1], a = x[k * is], b = x[(n - k) * is];
        U[2 * k] = wr * a - wi * b;
        U[2 * k + 1] = -(wr * b + wi * a);
    }
    F(c2r_one)(t->inner, U, u, iw);
    for (int64_t j = 0; 2 * j < n; j++)
        y[2 * j * os] = sc * u[j];
    for (int64_t j = 0; 2 * j + 1 < n; j++)
        y[(2 * j + 1) * os] = sc * u[n - 1 - j];
}

/* Transforms [b0, b1) of a DCT plan; dists and strides count reals. */
static void F(dct_range)(const F(plan) *p, const T *in, T *out, int64_t b0, int64_t b1,
                         T *work)
{
    const nla_fft_desc *d = &p->d;
    for (int64_t b = b0; b < b1; b++) {
        if (d->kind == NLA_FFT_REDFT10)
            F(redft10_one)(p, in + b * d->idist, out + b * d->odist, work);
        else
            F(redft01_one)(p, in + b * d->idist, out + b * d->odist, work);
    }
}
