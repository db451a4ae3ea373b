/*
 * twiddle_tmpl.h - the twiddles and transposes between the sub-transforms
 * of the four-step and DIT cores (kernels.h: transpose_tw, twiddle),
 * included by kernels_tmpl.h once per precision and width (its macros in
 * scope).
 *
 * Both take W_n^e as lo[e % nlo] * hi[e / nlo] (lo: W_n^t, t < nlo; hi:
 * W_n^(t*nlo); transpose_tw with nlo = n1), never a recurrence: one
 * product of two table entries a value, or in vectors the product of two
 * such products (a broadcast one times one per lane).
 */

FK_INLINE void FK(tw_w)(const FK_T *lo, const FK_T *hi, int64_t el, int64_t eh, FK_T *wr,
                        FK_T *wi)
{
    const FK_T *l = lo + 2 * el, *h = hi + 2 * eh;
    *wr = l[0] * h[0] - l[1] * h[1];
    *wi = l[0] * h[1] + l[1] * h[0];
}

/* transpose_tw's column b (j = j0 + b), rows k0 <= k < n1, one value at a
   time */
static __attribute__((unused)) void FK(tw_col)(int64_t n1, int64_t bw, int64_t b, int64_t j,
                                               int64_t k0, int64_t ld, const FK_T *lo,
                                               const FK_T *hi, const FK_T *x, FK_T *t)
{
    const int64_t dl = j % n1, dh = j / n1;
    int64_t el = j * k0 % n1, eh = j * k0 / n1;
    FK_T *tr = t + 2 * b * ld;

    for (int64_t k = k0; k < n1; k++) {
        FK_T wr, wi, ar = x[2 * (k * bw + b)], ai = x[2 * (k * bw + b) + 1];
        if (!lo) {
            tr[2 * k] = ar;
            tr[2 * k + 1] = ai;
            continue;
        }
        FK(tw_w)(lo, hi, el, eh, &wr, &wi);
        el += dl;
        eh += dh + (el >= n1);
        el -= el >= n1 ? n1 : 0;
        tr[2 * k] = ar * wr - ai * wi;
        tr[2 * k + 1] = ar * wi + ai * wr;
    }
}

#ifndef FK_ONE
/* Tiles of W rows by W columns, transposed in registers so that every
   load and store is a whole vector.  With twiddles, lane l of the vector
   at row k takes W_n^(j*k) (one product of lo and hi, broadcast) times
   W_n^(j*l) (made once per column). */
static __attribute__((unused)) void FK(transpose_tw)(int64_t n1, int64_t bw, int64_t j0,
                                                     int64_t ld, const FK_T *lo,
                                                     const FK_T *hi, const FK_T *x, FK_T *t)
{
    const int64_t kv = n1 - n1 % W, bv = bw - bw % W;
    V p[NLA_FFT_TR_MAXB];
    int64_t el[NLA_FFT_TR_MAXB], eh[NLA_FFT_TR_MAXB], dl[NLA_FFT_TR_MAXB],
        dh[NLA_FFT_TR_MAXB];

    /* (with no vector rows, kv = 0, j*l / n1 could pass hi's end) */
    for (int64_t b = 0; lo && kv && b < bv; b++) {
        const int64_t j = j0 + b;
        FK_T pw[FK_NL];
        for (int l = 0; l < W; l++)
            FK(tw_w)(lo, hi, j * l % n1, j * l / n1, &pw[2 * l], &pw[2 * l + 1]);
        p[b] = FK(ld)(pw);
        el[b] = eh[b] = 0;
        dl[b] = j * W % n1;
        dh[b] = j * W / n1;
    }
    for (int64_t k = 0; k < kv; k += W)
        for (int64_t b0 = 0; b0 < bv; b0 += W) {
            V v[W];
            FK_UNROLL
            for (int i = 0; i < W; i++)
                v[i] = FK(ld)(x + 2 * ((k + i) * bw + b0));
            FK(shuffle_rounds)(v, W);
            FK_UNROLL
            for (int i = 0; i < W; i++) {
                const int64_t b = b0 + i;
                if (lo) {
                    FK_T sr, si;
                    FK(tw_w)(lo, hi, el[b], eh[b], &sr, &si);
                    const V w = FK(cmul)(p[b], FK(splat)(sr), FK(splat)(si));
                    v[i] = FK(cmul)(v[i], FK_DRE(w), FK_DIM(w));
                    el[b] += dl[b];
                    eh[b] += dh[b] + (el[b] >= n1);
                    el[b] -= el[b] >= n1 ? n1 : 0;
                }
                FK(st)(t + 2 * (b * ld + k), v[i]);
            }
        }
    for (int64_t b = 0; b < bw; b++)
        FK(tw_col)(n1, bw, b, j0 + b, b < bv ? kv : 0, ld, lo, hi, x, t);
}

/* Groups of FK_TWG vectors: one product of lo and hi a group, broadcast,
   times a table of W_n^(j*l), l < W*FK_TWG, made once a call (real and
   imaginary parts apart, so that forming the twiddle takes no shuffle) */
#define FK_TWG 8
static __attribute__((unused)) void FK(twiddle)(int64_t n1, int64_t j, int64_t nlo,
                                                const FK_T *lo, const FK_T *hi, const FK_T *x,
                                                FK_T *z)
{
    const int64_t gl = W * FK_TWG, kv = n1 >= gl ? n1 - n1 % gl : 0;
    const int64_t dl = j * gl % nlo, dh = j * gl / nlo;
    int64_t el = 0, eh = 0;
    V qr[FK_TWG], qi[FK_TWG];

    for (int g = 0; kv && g < FK_TWG; g++)
        for (int l = 0; l < W; l++) {
            const int64_t e = j * (W * g + l);
            FK_T wr, wi;
            FK(tw_w)(lo, hi, e % nlo, e / nlo, &wr, &wi);
            qr[g][2 * l] = qr[g][2 * l + 1] = wr;
            qi[g][2 * l] = qi[g][2 * l + 1] = wi;
        }
    for (int64_t k = 0; k < kv; k += gl) {
        FK_T sr, si;
        FK(tw_w)(lo, hi, el, eh, &sr, &si);
        const V svr = FK(splat)(sr), svi = FK(splat)(si);
        FK_UNROLL
        for (int g = 0; g < FK_TWG; g++) {
            const V wr = qr[g] * svr - qi[g] * svi, wi = qr[g] * svi + qi[g] * svr;
            FK(st)(z + 2 * (k + W * g), FK(cmul)(FK(ld)(x + 2 * (k + W * g)), wr, wi));
        }
        el += dl;
        eh += dh + (el >= nlo);
        el -= el >= nlo ? nlo : 0;
    }
    for (int64_t k = kv; k < n1; k++) {
        const int64_t e = j * k;
        FK_T wr, wi, ar = x[2 * k], ai = x[2 * k + 1];
        FK(tw_w)(lo, hi, e % nlo, e / nlo, &wr, &wi);
        z[2 * k] = ar * wr - ai * wi;
        z[2 * k + 1] = ar * wi + ai * wr;
    }
}
#undef FK_TWG
#endif
