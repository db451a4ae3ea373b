/*
 * tw_tmpl.h - the twiddle tables of one precision, included by fft.c after
 * fft_tmpl.h with its T and F(name), and TWP, the type the factors are
 * made in: long double for double plans (about half an ulp), double for
 * float plans (29 bits past a float's, without the x87).  TW_DD (double
 * plans) multiplies them as double-doubles in the kernel table's dtw_prod
 * (with FMA: the factors' products correctly rounded, about twice as fast
 * as the x87's; doc/tuning.md 4.12), else in TWP.  The values are
 * W_n^t = exp(+2*pi*i * t/n), made in the base range (tw_base_end) and
 * taken from it elsewhere by exact symmetries (tw_pieces, fft.c).
 */

/* cosl and sinl for long double, cos and sin for double (x + 0: an
   rvalue, whatever the compiler does with a const's qualifier) */
#define TW_COS(x) _Generic((x) + 0, long double: cosl, default: cos)(x)
#define TW_SIN(x) _Generic((x) + 0, long double: sinl, default: sin)(x)

/* cos and sin of 0 <= a <= TW_SMALL by their Taylor series, cos to a^16
   and sin to a^17, whose next terms are under 2^-80: a long double's
   rounding, at a tenth of the cost of sincosl */
#define TW_SMALL 0.3
static void F(small_sincos)(TWP a, TWP *c, TWP *s)
{
    /* 1/(k(k-1)) and 1/((k+1)k), k = 16, 14, ..., 2: 1/k! nested */
    static const TWP rc[8] = { 1.0L / 240, 1.0L / 182, 1.0L / 132, 1.0L / 90,
                               1.0L / 56, 1.0L / 30, 1.0L / 12, 1.0L / 2 };
    static const TWP rs[8] = { 1.0L / 272, 1.0L / 210, 1.0L / 156, 1.0L / 110,
                               1.0L / 72, 1.0L / 42, 1.0L / 20, 1.0L / 6 };
    const TWP x2 = a * a;
    TWP pc = 1, ps = 1;
    for (int i = 0; i < 8; i++) {
        pc = (TWP)1 - x2 * rc[i] * pc;
        ps = (TWP)1 - x2 * rs[i] * ps;
    }
    *c = pc;
    *s = a * ps;
}

#if TW_DD
/* w[t] = lo[t % B] * hi[t / B], t <= top (nh = top/B + 1 values of hi),
   by the kernel table's dtw_prod (FMA's error-free products where it has
   them): lo and hi split into double-doubles, exactly (a long double's 64
   bits fit two doubles).  0, or -1 when out of memory. */
static int F(tw_products)(const TWP *lo, const TWP *hi, int64_t B, int64_t nh, int64_t top,
                          T *w)
{
    double *d = malloc((size_t)(4 * (B + nh)) * sizeof(double)), *dh;
    if (!d)
        return -1;
    dh = d + 4 * B;
    for (int c = 0; c < 2; c++) {
        for (int64_t b = 0; b < B; b++) {
            d[2 * c * B + b] = (double)lo[2 * b + c];
            d[(2 * c + 1) * B + b] = (double)(lo[2 * b + c] - (TWP)d[2 * c * B + b]);
        }
        for (int64_t a = 0; a < nh; a++) {
            dh[4 * a + 2 * c] = (double)hi[2 * a + c];
            dh[4 * a + 2 * c + 1] = (double)(hi[2 * a + c] - (TWP)dh[4 * a + 2 * c]);
        }
    }
    for (int64_t a = 0; a < nh; a++)
        nla_fft_kernels_get()->dtw_prod(top + 1 - a * B < B ? top + 1 - a * B : B, B, d,
                                        dh + 4 * a, w + 2 * a * B);
    free(d);
    return 0;
}
#else
/* w[t] = lo[t % B] * hi[t / B], t <= top (nh = top/B + 1 values of hi),
   each carried in TWP and rounded once; 0 */
static int F(tw_products)(const TWP *lo, const TWP *hi, int64_t B, int64_t nh, int64_t top,
                          T *w)
{
    for (int64_t a = 0; a < nh; a++) {
        const TWP hr = hi[2 * a], hm = hi[2 * a + 1];
        const int64_t nb = top + 1 - a * B < B ? top + 1 - a * B : B;
        T *o = w + 2 * a * B;
        for (int64_t b = 0; b < nb; b++) {
            o[2 * b] = (T)(lo[2 * b] * hr - lo[2 * b + 1] * hm);
            o[2 * b + 1] = (T)(lo[2 * b] * hm + lo[2 * b + 1] * hr);
        }
    }
    return 0;
}
#endif

/* W_n^t for t < count (count <= n) into w, (cos, sin) pairs, conjugated
   when conj: the base range is lo[t % B] * hi[t / B], each carried in TWP
   and rounded once; the rest by exact symmetries, piece by piece.  For
   e = tw_base_end(n) (n/8 when 8 | n): about e products, 4*sqrt(e) short
   series (lo, small angles) and sqrt(e)/4 sines and cosines (hi).  0, or
   -1 when out of memory. */
static int F(tw_values)(int64_t n, int64_t count, int conj, T *w)
{
    const int64_t e = tw_base_end(n);
    const int64_t top = count - 1 < e ? count - 1 : e;
    const TWP step = (TWP)6.28318530717958647692528676655900577L / (TWP)n;
    struct tw_piece pc[8];
    const int np = tw_pieces(n, pc);
    int64_t B = 1, nh, t = top + 1;
    TWP *lo, *hi;

    while (B * B < 16 * (top + 1))
        B++;
    if (B > top + 1)
        B = top + 1;
    nh = top / B + 1;
    lo = malloc((size_t)(B + nh) * 2 * sizeof(TWP));
    if (!lo)
        return -1;
    hi = lo + 2 * B;
    for (int64_t j = 0; j < B + nh; j++) {
        const TWP a = step * (TWP)(j < B ? j : (j - B) * B);
        if (a <= (TWP)TW_SMALL) {
            F(small_sincos)(a, &lo[2 * j], &lo[2 * j + 1]);
        } else {
            lo[2 * j] = TW_COS(a);
            lo[2 * j + 1] = TW_SIN(a);
        }
    }
    if (F(tw_products)(lo, hi, B, nh, top, w) != 0) {
        free(lo);
        return -1;
    }
    free(lo);
    for (int j = 1; j < np; j++)
        for (; t < pc[j].end && t < count; t++) {
            const T *v = w + 2 * (pc[j].a + pc[j].dir * t);
            w[2 * t] = (T)pc[j].cr * v[pc[j].sw];
            w[2 * t + 1] = (T)pc[j].ci * v[1 - pc[j].sw];
        }
    for (t = 0; conj && t < count; t++)
        w[2 * t + 1] = -w[2 * t + 1];
    return 0;
}

/* W_n^t, t < count, conjugated when fwd (F(tab) from mem), or NULL */
static T *F(tw_table)(fft_mem *mem, int64_t n, int64_t count, int fwd)
{
    T *w = F(tab)(mem, count);
    if (w && F(tw_values)(n, count, fwd, w) != 0) {
        if (!mem)
            free(w);
        return NULL;
    }
    return w;
}

/* the base range alone, for F(tw_fill) */
static T *F(tw_base)(int64_t n)
{
    return F(tw_table)(NULL, n, tw_base_end(n) + 1, 0);
}

/* o[i*os] = W_n^(t0 + i*dt), its imaginary part times sg, i < cnt, from
   b = F(tw_base)(n) piece by piece (tw_pieces): the values of
   F(tw_table)(n, n, 0) without writing and reading back all n of them.
   t0 + (cnt-1)*dt < n. */
static void F(tw_fill)(const T *b, int64_t n, int64_t t0, int64_t dt, int64_t cnt, T sg,
                       T *o, int64_t os)
{
    struct tw_piece pc[8];
    const int np = tw_pieces(n, pc);
    int64_t i = 0;
    for (int j = 0; j < np && i < cnt; j++) {
        const struct tw_piece *q = &pc[j];
        const T cr = (T)q->cr, ci = (T)q->ci * sg;
        const int64_t vs = 2 * q->dir * dt;
        int64_t i1 = cnt;
        if (t0 + i * dt >= q->end)
            continue;
        if (dt > 0 && (q->end - 1 - t0) / dt + 1 < cnt)
            i1 = (q->end - 1 - t0) / dt + 1;
        const int sr = q->sw, si = 1 - q->sw;
        int64_t v = 2 * (q->a + q->dir * (t0 + i * dt)), u = 2 * i * os;
        for (; i < i1; i++, v += vs, u += 2 * os) {
            o[u] = cr * b[v + sr];
            o[u + 1] = ci * b[v + si];
        }
    }
}

#undef TW_COS
#undef TW_SMALL
#undef TW_SIN
