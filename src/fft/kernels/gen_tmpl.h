/*
 * gen_tmpl.h - the Stockham pass of a generic odd radix r (kernels.h:
 * dgen, sgen), included by kernels_tmpl.h once per precision and width
 * (its macros in scope).
 *
 * The r-point DFT is the direct sum, O(r^2) a butterfly, from the pairs
 * t_j = a_j + a_(r-j) and u_j = a_j - a_(r-j) as FK(dft_odd) does, with
 * the angles from a table cs of the radix (cs[2e], cs[2e+1] = cos and sin
 * of 2*pi*e/r, e < r) where the codelet radices have constants.  Outputs
 * go GEN_KB at a time, so each t_j and u_j is loaded once for GEN_KB
 * pairs of outputs.  Vectors hold W consecutive q (the broadcast layout
 * of the codelet passes), one twiddle per p; the last values of q, and
 * passes with s < W, go one at a time through the one-value kernels.
 */

/* outputs k and r-k for GEN_KB k at once: 2*GEN_KB accumulators, the pair
   t_j, u_j, and room for the broadcast angles in 16 (AVX2) registers */
#define GEN_KB 4

/* Outputs k0 .. k0+nb-1 and their mirrors r-k into a (a[0] unchanged):
   c = a_0 + sum_j cos(2 pi jk/r) t_j, d = sum_j sin(2 pi jk/r) u_j, then
   a[k] = c + d*(-/+i), a[r-k] = c - d*(-/+i). */
FK_INLINE void FK(gen_outs)(int r, int k0, const int nb, int fwd, const FK_T *cs,
                            const V *t, const V *u, V *a)
{
    const int h = (r - 1) / 2;
    V c[GEN_KB], d[GEN_KB];
    int e[GEN_KB];

    FK_UNROLL
    for (int b = 0; b < nb; b++) {
        c[b] = a[0];
        d[b] = FK(splat)(0);
        e[b] = 0;
    }
    for (int j = 0; j < h; j++) {
        FK_UNROLL
        for (int b = 0; b < nb; b++) {
            e[b] += k0 + b;                  /* (j+1)*(k0+b) mod r */
            e[b] -= e[b] >= r ? r : 0;
            c[b] = FK(fma)(t[j], FK(splat)(cs[2 * e[b]]), c[b]);
            d[b] = FK(fma)(u[j], FK(splat)(cs[2 * e[b] + 1]), d[b]);
        }
    }
    FK_UNROLL
    for (int b = 0; b < nb; b++) {
        V dr = FK(rot)(d[b], fwd);
        a[k0 + b] = c[b] + dr;
        a[r - k0 - b] = c[b] - dr;
    }
}

/* The r-point DFT of a[0..r) in place, through t and u ((r-1)/2 each) */
FK_INLINE void FK(gen_dft)(int r, int fwd, const FK_T *cs, V *a, V *t, V *u)
{
    const int h = (r - 1) / 2;
    V y0 = a[0];
    int k = 1;

    for (int j = 1; j <= h; j++) {
        t[j - 1] = a[j] + a[r - j];
        u[j - 1] = a[j] - a[r - j];
        y0 += t[j - 1];
    }
    for (; k + GEN_KB <= h + 1; k += GEN_KB)
        FK(gen_outs)(r, k, GEN_KB, fwd, cs, t, u, a);
    for (; k <= h; k++)
        FK(gen_outs)(r, k, 1, fwd, cs, t, u, a);
    a[0] = y0;
}

/* q in [q0, q1) of one p (notw: p == 0, all twiddles 1), as FK(bc_p) */
static __attribute__((unused)) void FK(gen_p)(int r, int fwd, const FK_T *cs, int notw, int64_t q0, int64_t q1,
                      int64_t s, int64_t sm, const FK_T *tw, const FK_T *xp, FK_T *yp)
{
    int64_t q = q0;
    for (; q + W <= q1; q += W) {
        V a[NLA_FFT_MAX_GEN], t[NLA_FFT_MAX_GEN / 2], u[NLA_FFT_MAX_GEN / 2];
        a[0] = FK(ld)(xp + 2 * q);
        for (int k = 1; k < r; k++)
            a[k] = FK(ld)(xp + 2 * (q + k * sm));
        FK(gen_dft)(r, fwd, cs, a, t, u);
        FK(st)(yp + 2 * q, a[0]);
        for (int k = 1; k < r; k++)
            FK(st)(yp + 2 * (q + k * s),
                   notw ? a[k]
                        : FK(cmul)(a[k], FK(splat)(tw[2 * (k - 1)]),
                                   FK(splat)(tw[2 * (k - 1) + 1])));
    }
#ifdef FK_TAIL
    if (q < q1)
        FK_N(FK_TAIL, gen_p)(r, fwd, cs, notw, q, q1, s, sm, tw, xp, yp);
#endif
}

#ifndef FK_ONE
/* The pass of kernels.h's dgen/sgen: i = q + s*p in [i0, i1), broadcast
   twiddles tw[p*(r-1) + k-1] */
FK_INLINE void FK(gen)(int r, const FK_T *cs, int fwd, int64_t m, int64_t s, int64_t i0,
                    int64_t i1, const FK_T *tw, const FK_T *x, FK_T *y)
{
    const int64_t sm = s * m;
    for (int64_t p = i0 / s; p < m && p * s < i1; p++) {
        int64_t q0, q1;
        FK(q_span)(p, s, i0, i1, &q0, &q1);
        FK(gen_p)(r, fwd, cs, p == 0, q0, q1, s, sm, tw + 2 * p * (r - 1), x + 2 * s * p,
                  y + 2 * s * r * p);
    }
}

#define FK_GEN_DEF(dir, fwd)                                                   \
    static __attribute__((unused)) void FK(gen##dir)(int r, const FK_T *cs, int64_t m,   \
                                                     int64_t s, int64_t i0, int64_t i1, \
                                                     const FK_T *tw, const FK_T *x,     \
                                                     FK_T *y)                           \
    {                                                                          \
        FK(gen)(r, cs, fwd, m, s, i0, i1, tw, x, y);                           \
    }
FK_GEN_DEF(f, 1)
FK_GEN_DEF(b, 0)
#undef FK_GEN_DEF
#endif

#undef GEN_KB
