/*
 * real_step_tmpl.h - the real transforms' step between the half-length
 * complex transform Z and the half spectrum X (kernels.h), included by
 * kernels_tmpl.h once per precision and width (its macros in scope):
 * r2c_post and c2r_pre, a sweep each (src/fft/real_tmpl.h's separate
 * form), and r2c_pairs and c2r_pairs, the pairs (k, h-k) of a block (its
 * fused form).
 */

/* The vectors start at k = 0 and read z at multiples of W, where the
   transform just stored whole vectors (a load across two of them would
   wait for both stores); the mirror values z[(h - k) % h] come from two
   such loads.  A transform too short for W*W values was stored in
   narrower vectors, so it is read in them too (FK_SMALL_TAIL, FK_TAIL).
   Lane k = 0 gives X[0]; the caller writes X[0] and X[h] after this.
   With the split table tv (kernels.h) a vector takes no shuffle but the
   mirror's and one swap. */
static __attribute__((unused)) void FK(r2c_post)(int64_t h, const FK_T *z, const FK_T *w,
                                                 const FK_T *tv, FK_T sc, FK_T *y,
                                                 int64_t os)
{
    int64_t k = 0;
#if defined(FK_SMALL_TAIL) && !defined(FK_ONE)
    if (h < W * W) {
        FK_N(FK_SMALL_TAIL, r2c_post)(h, z, w, NULL, sc, y, os);
        return;
    }
#elif defined(FK_TAIL)
    if (h < W * W) {
        FK_N(FK_TAIL, r2c_post)(h, z, w, NULL, sc, y, os);
        return;
    }
#endif
    if (os == 1 && tv) {
        const V cj = -FK(sgn)(), c = FK(splat)(sc / 2);
        for (; k + W <= h; k += W) {
            V a = FK(ld)(z + 2 * k), lo = FK(ld)(z + 2 * (h - k - W));
            V m = FK_MIRROR(lo, FK(ld)(z + 2 * (k ? h - k : 0))) * cj;
            V s = a + m, d = a - m;
            const FK_T *t = tv + 4 * k;
            FK(st)(y + 2 * k, s * c + d * FK(ld)(t) + FK_SWAP(d) * FK(ld)(t + FK_NL));
        }
    } else if (os == 1) {
        const V cj = -FK(sgn)(), half = FK(splat)((FK_T)0.5), scv = FK(splat)(sc);
        for (; k + W <= h; k += W) {
            V a = FK(ld)(z + 2 * k), lo = FK(ld)(z + 2 * (h - k - W));
            V b = FK_MIRROR(lo, FK(ld)(z + 2 * (k ? h - k : 0))) * cj;
            V e = (a + b) * half, o = FK(rot)((a - b) * half, 1), wv = FK(ld)(w + 2 * k);
            FK(st)(y + 2 * k, (e + FK(cmul)(o, FK_DRE(wv), FK_DIM(wv))) * scv);
        }
    }
    for (k = k ? k : 1; k < h; k++) {
        FK_T ar = z[2 * k], ai = z[2 * k + 1];
        FK_T br = z[2 * (h - k)], bi = -z[2 * (h - k) + 1];
        FK_T er = (ar + br) / 2, ei = (ai + bi) / 2;
        FK_T or_ = (ai - bi) / 2, oi = -(ar - br) / 2;
        FK_T wr = w[2 * k], wi = w[2 * k + 1];
        y[2 * k * os] = (er + (or_ * wr - oi * wi)) * sc;
        y[2 * k * os + 1] = (ei + (or_ * wi + oi * wr)) * sc;
    }
}

#ifndef FK_ONE
/* The vectors start at k = 0 and store whole vectors of z, which the
   transform then loads; lane k = 0 gets z[0] = (X[0] + X[h], X[0] - X[h])
   (real parts), which the caller has also written. */
static void FK(c2r_pre)(int64_t h, const FK_T *x, int64_t is, const FK_T *w,
                        const FK_T *tv, FK_T *z)
{
    int64_t k = 0;
    if (is == 1 && tv) {
        const V cj = -FK(sgn)();
        for (; k + W <= h; k += W) {
            V a = FK(ld)(x + 2 * k), m = FK_REV(FK(ld)(x + 2 * (h - k - W + 1))) * cj;
            V s = a + m, d = a - m;
            const FK_T *t = tv + 4 * k;
            V r = s + d * FK(ld)(t) + FK_SWAP(d) * FK(ld)(t + FK_NL);
            if (k == 0) {
                r[0] = x[0] + x[2 * h];
                r[1] = x[0] - x[2 * h];
            }
            FK(st)(z + 2 * k, r);
        }
    } else if (is == 1) {
        const V cj = -FK(sgn)();
        for (; k + W <= h; k += W) {
            V a = FK(ld)(x + 2 * k), b = FK_REV(FK(ld)(x + 2 * (h - k - W + 1))) * cj;
            V wv = FK(ld)(w + 2 * k), o = FK(cmul)(a - b, FK_DRE(wv), -FK_DIM(wv));
            V r = a + b + FK(rot)(o, 0);
            if (k == 0) {
                r[0] = x[0] + x[2 * h];
                r[1] = x[0] - x[2 * h];
            }
            FK(st)(z + 2 * k, r);
        }
    }
    for (k = k ? k : 1; k < h; k++) {
        FK_T ar = x[2 * k * is], ai = x[2 * k * is + 1];
        FK_T br = x[2 * (h - k) * is], bi = -x[2 * (h - k) * is + 1];
        FK_T er = ar + br, ei = ai + bi, dr = ar - br, di = ai - bi;
        FK_T wr = w[2 * k], wi = -w[2 * k + 1];
        FK_T or_ = dr * wr - di * wi, oi = dr * wi + di * wr;
        z[2 * k] = er - oi;
        z[2 * k + 1] = ei + or_;
    }
}

/* The real step by pairs: X[k] and X[h-k] = conj(E - w_k O) sc from Z[k]
   and Z[h-k], k in [k0, k1), with the twiddle w_k = w[k - k0] * wc (one
   complex constant wc); both written after both are read, so z == y
   works, and the mirrors (h-k1, h-k0] must not meet [k0, k1).  A vector
   of k takes its mirrors in one reversed load. */
static void FK(r2c_pairs)(int64_t h, int64_t k0, int64_t k1, const FK_T *z, const FK_T *w,
                          const FK_T *wc, FK_T sc, FK_T *y)
{
    const V cj = -FK(sgn)(), half = FK(splat)((FK_T)0.5), scv = FK(splat)(sc);
    const V cr = FK(splat)(wc[0]), ci = FK(splat)(wc[1]);
    int64_t k = k0;
    for (; k + W <= k1; k += W) {
        V a = FK(ld)(z + 2 * k), b = FK_REV(FK(ld)(z + 2 * (h - k - W + 1))) * cj;
        V e = (a + b) * half, o = FK(rot)((a - b) * half, 1);
        V wv = FK(cmul)(FK(ld)(w + 2 * (k - k0)), cr, ci);
        V t = FK(cmul)(o, FK_DRE(wv), FK_DIM(wv));
        FK(st)(y + 2 * (h - k - W + 1), FK_REV((e - t) * cj) * scv);
        FK(st)(y + 2 * k, (e + t) * scv);
    }
    for (; k < k1; k++) {
        FK_T ar = z[2 * k], ai = z[2 * k + 1];
        FK_T br = z[2 * (h - k)], bi = -z[2 * (h - k) + 1];
        FK_T er = (ar + br) / 2, ei = (ai + bi) / 2;
        FK_T or_ = (ai - bi) / 2, oi = -(ar - br) / 2;
        FK_T vr = w[2 * (k - k0)], vi = w[2 * (k - k0) + 1];
        FK_T wr = vr * wc[0] - vi * wc[1], wi = vr * wc[1] + vi * wc[0];
        FK_T tr = or_ * wr - oi * wi, ti = or_ * wi + oi * wr;
        y[2 * (h - k)] = (er - tr) * sc;
        y[2 * (h - k) + 1] = (ti - ei) * sc;
        y[2 * k] = (er + tr) * sc;
        y[2 * k + 1] = (ei + ti) * sc;
    }
}

/* C2R's step by pairs: Z[k] = E' + i O' and Z[h-k] = conj(E' - i O')
   (E' = X[k] + conj X[h-k], O' = (X[k] - conj X[h-k]) conj w_k) from
   X[k] and X[h-k], k in [k0, k1), w_k = w[k - k0] * wc; the mirrors
   (h-k1, h-k0] must not meet [k0, k1). */
static void FK(c2r_pairs)(int64_t h, int64_t k0, int64_t k1, const FK_T *x, const FK_T *w,
                          const FK_T *wc, FK_T *z)
{
    const V cj = -FK(sgn)(), cr = FK(splat)(wc[0]), ci = FK(splat)(wc[1]);
    int64_t k = k0;
    for (; k + W <= k1; k += W) {
        V a = FK(ld)(x + 2 * k), b = FK_REV(FK(ld)(x + 2 * (h - k - W + 1))) * cj;
        V wv = FK(cmul)(FK(ld)(w + 2 * (k - k0)), cr, ci);
        V io = FK(rot)(FK(cmul)(a - b, FK_DRE(wv), -FK_DIM(wv)), 0);
        FK(st)(z + 2 * (h - k - W + 1), FK_REV((a + b - io) * cj));
        FK(st)(z + 2 * k, a + b + io);
    }
    for (; k < k1; k++) {
        FK_T ar = x[2 * k], ai = x[2 * k + 1];
        FK_T br = x[2 * (h - k)], bi = -x[2 * (h - k) + 1];
        FK_T er = ar + br, ei = ai + bi, dr = ar - br, di = ai - bi;
        FK_T vr = w[2 * (k - k0)], vi = w[2 * (k - k0) + 1];
        FK_T wr = vr * wc[0] - vi * wc[1], wi = -(vr * wc[1] + vi * wc[0]);
        FK_T or_ = dr * wr - di * wi, oi = dr * wi + di * wr;
        z[2 * (h - k)] = er + oi;
        z[2 * (h - k) + 1] = or_ - ei;
        z[2 * k] = er - oi;
        z[2 * k + 1] = ei + or_;
    }
}
#endif
