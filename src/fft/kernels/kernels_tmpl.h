/*
 * kernels_tmpl.h - the FFT kernels, compiled once per ISA.
 *
 * An ISA file (generic.c, avx2.c, avx512.c) defines
 *   NLA_FKTAB     the table's name (nla_fft_kernels_avx2, ...)
 *   NLA_FKNAME    its printable name
 *   NLA_FVBYTES   the vector width in bytes (16, 32, 64)
 * and includes this file once.  The file includes itself twice, for double
 * and float.  The code uses GCC/Clang vector extensions, so
 * the ISA flags decide the instructions.  Complex products are written out
 * (a*wr + swap(a)*(-wi, wi)); no _Complex arithmetic, so no __muldc3.
 */
#ifndef FK_T /* --------------------------------------------- per ISA, outer */

#include <stddef.h>
#include <stdint.h>
#include "kernels.h"
#if defined(__FMA__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#if !defined(NLA_FKTAB) || !defined(NLA_FVBYTES)
#error "define NLA_FKTAB and NLA_FVBYTES before including kernels_tmpl.h"
#endif

/* cos and sin of 2*pi*k/r, k = 1 .. (r-1)/2, for the odd radices r */
static const double fk_cos[26][12] = {
    [3] = { -0.5 },
    [5] = { 0.309016994374947424102293417183, -0.809016994374947424102293417183 },
    [7] = { 0.623489801858733530525004884004, -0.222520933956314404288902564497,
            -0.900968867902419126236102319507 },
    [9] = { 0.766044443118978035202392650555, 0.173648177666930348851716626769, -0.5,
            -0.939692620785908384054109277325 },
    [11] = { 0.841253532831181168861811648919, 0.41541501300188642552927414923,
             -0.142314838273285140443792668616, -0.654860733945285064056925072466,
             -0.959492973614497389890368057066 },
    [13] = { 0.885456025653209895900375522015, 0.568064746731155802511807559128,
             0.120536680255323053349067687453, -0.3546048870425356259696378926,
             -0.748510748171101098634630599701, -0.970941817426052027156982276294 },
    [25] = { 0.968583161128631119490168375465, 0.876306680043863587308115903922,
             0.728968627421411523146730319055, 0.535826794978996618271308767868,
             0.309016994374947424102293417183, 0.0627905195293133760761782245656,
             -0.187381314585724630542550734447, -0.425779291565072648862502445744,
             -0.637423989748689710176712811676, -0.809016994374947424102293417183,
             -0.929776485888251403660942556222, -0.992114701314477831049793042786 },
};
static const double fk_sin[26][12] = {
    [3] = { 0.866025403784438646763723170753 },
    [5] = { 0.951056516295153572116439333379, 0.587785252292473129168705954639 },
    [7] = { 0.781831482468029808708444526674, 0.974927912181823607018131682994,
            0.433883739117558120475768332848 },
    [9] = { 0.642787609686539326322643409907, 0.98480775301220805936674302459,
            0.866025403784438646763723170753, 0.342020143325668733044099614682 },
    [11] = { 0.540640817455597582107635954319, 0.909631995354518371411715383079,
             0.989821441880932732376092037777, 0.755749574354258283774035843972,
             0.281732556841429697711417915347 },
    [13] = { 0.464723172043768545656015335133, 0.822983865893656394579617423439,
             0.992708874098053992800751649493, 0.935016242685414823439784599838,
             0.663122658240795202376785492667, 0.23931566428755776714875372626 },
    [25] = { 0.248689887164854788242283746006, 0.481753674101715274987191502872,
             0.684547105928688673732283357621, 0.844327925502015078548558063967,
             0.951056516295153572116439333379, 0.998026728428271561952336806863,
             0.982287250728688681085641742865, 0.904827052466019527713668647933,
             0.770513242775789230803009636396, 0.587785252292473129168705954639,
             0.368124552684677959156947147493, 0.125333233564304245373118759817 },
};

/* The codelets (small_tmpl.h) hold n complex values as n/w vectors of w:
   up to 64 vectors, which stay in L1 where they do not fit the registers;
   a codelet reads and writes the data once where the passes do it
   log_r(n) times (doc/tuning.md 4.2). */
#define FK_SMALL_FITS(n, w) ((n) / (w) <= 64)

/* Each precision twice: one complex value a vector (d1, s1: the values
   that do not fill a vector, FK_ONE), then full vectors (dv, sv), whose
   kernels hand those values to the first (FK_TAIL).  With 64-byte vectors
   floats also get half vectors (sh), for the codelets too small for a
   full one (FK_SMALL_TAIL). */
#define FK_T double
#define FK_TSIZE 8
#define FK_ONE 1
#define FK_PFX d1
#define FK_NL 2
#include "kernels_tmpl.h"
#undef FK_PFX
#undef FK_NL
#undef FK_ONE
#define FK_TAIL d1
#define FK_PFX dv
#define FK_NL (NLA_FVBYTES / 8)
#include "kernels_tmpl.h"
#undef FK_T
#undef FK_TSIZE
#undef FK_TAIL
#undef FK_PFX
#undef FK_NL

#define FK_T float
#define FK_TSIZE 4
#define FK_ONE 1
#define FK_PFX s1
#define FK_NL 2
#include "kernels_tmpl.h"
#undef FK_PFX
#undef FK_NL
#undef FK_ONE
#if NLA_FVBYTES == 64
/* half vectors of floats, for the codelets of 16 and 32 values */
#define FK_ONE 1
#define FK_TAIL s1
#define FK_PFX sh
#define FK_NL 8
#include "kernels_tmpl.h"
#undef FK_PFX
#undef FK_NL
#undef FK_ONE
#undef FK_TAIL
#define FK_SMALL_TAIL sh
#endif
#define FK_TAIL s1
#define FK_PFX sv
#define FK_NL (NLA_FVBYTES / 4)
#include "kernels_tmpl.h"
#undef FK_T
#undef FK_TSIZE
#undef FK_TAIL
#undef FK_SMALL_TAIL
#undef FK_PFX
#undef FK_NL

#define FK_PASS_DIR(pfx, kind, d)                                              \
    { pfx##_##kind##2##d, pfx##_##kind##4##d, pfx##_##kind##8##d,              \
      pfx##_##kind##3##d, pfx##_##kind##5##d, pfx##_##kind##7##d,              \
      pfx##_##kind##11##d, pfx##_##kind##13##d, pfx##_##kind##9##d,            \
      pfx##_##kind##25##d }
#define FK_PASSES(pfx, kind) { FK_PASS_DIR(pfx, kind, b), FK_PASS_DIR(pfx, kind, f) }
/* a codelet where its n/W vectors are at most 64 (cb: bytes a complex) */
#define FK_SMALL_IF(n, cb, fn) (FK_SMALL_FITS(n, NLA_FVBYTES / (cb)) ? fn : NULL)
#define FK_SMALL_DIR(pfx, cb, d)                                               \
    { NULL, pfx##_small1##d, pfx##_small2##d, pfx##_small3##d,                 \
      pfx##_small4##d, pfx##_small5##d, pfx##_small6##d,                       \
      FK_SMALL_IF(128, cb, pfx##_small7##d), FK_SMALL_IF(256, cb, pfx##_small8##d), \
      FK_SMALL_IF(512, cb, pfx##_small9##d) }
#define FK_SMALLS(pfx, cb) { FK_SMALL_DIR(pfx, cb, b), FK_SMALL_DIR(pfx, cb, f) }
#define FK_IL_DIR(pfx, d)                                                      \
    { NULL, pfx##_il1##d, pfx##_il2##d, pfx##_il3##d, pfx##_il4##d,            \
      pfx##_il5##d, pfx##_il6##d }
#define FK_ILS(pfx) { FK_IL_DIR(pfx, b), FK_IL_DIR(pfx, f) }

#include "tw_prod.h"

const nla_fft_kernels NLA_FKTAB = {
    .name = NLA_FKNAME,
    .dvc = NLA_FVBYTES / 16,
    .svc = NLA_FVBYTES / 8,
    .dbc = FK_PASSES(dv, bc),
    .dlane = FK_PASSES(dv, lane),
    .sbc = FK_PASSES(sv, bc),
    .slane = FK_PASSES(sv, lane),
    .dgen = { dv_genb, dv_genf },
    .sgen = { sv_genb, sv_genf },
    .dr2c_post = dv_r2c_post,
    .sr2c_post = sv_r2c_post,
    .dr2c_pairs = dv_r2c_pairs,
    .sr2c_pairs = sv_r2c_pairs,
    .dc2r_pairs = dv_c2r_pairs,
    .sc2r_pairs = sv_c2r_pairs,
    .dc2r_pre = dv_c2r_pre,
    .sc2r_pre = sv_c2r_pre,
    .dsmall = FK_SMALLS(dv, 16),
    .ssmall = FK_SMALLS(sv, 8),
    .dsmall_il = FK_ILS(dv),
    .ssmall_il = FK_ILS(sv),
    .dtranspose_tw = dv_transpose_tw,
    .stranspose_tw = sv_transpose_tw,
    .dtwiddle = dv_twiddle,
    .stwiddle = sv_twiddle,
    .dmulconj = dv_mulconj,
    .smulconj = sv_mulconj,
    .dtw_prod = tw_prod,
};

#else /* ------------------------------------- per precision and width */

#define FK_N_(p, name) p##_##name
#define FK_N(p, name) FK_N_(p, name)
#define FK(name) FK_N(FK_PFX, name)
#define V FK(v)
#define UV FK(uv)
#define W (FK_NL / 2)                 /* complex values per vector */
#define FK_INLINE static inline __attribute__((always_inline))
/* GCC at -O2 does not fully unroll the short loops over the legs, which
   leaves the butterflies in memory; ask for it. */
#define FK_UNROLL _Pragma("GCC unroll 16")

typedef FK_T V __attribute__((vector_size(FK_NL * sizeof(FK_T))));
typedef FK_T UV __attribute__((vector_size(FK_NL * sizeof(FK_T)),
                               aligned(sizeof(FK_T)), may_alias));

/* FK_REV: the complex values of a vector in reverse order */
/* FK_MIRROR(a, b): the complex values (b_0, a_(W-1), ..., a_1) */
#if FK_NL == 2
#define FK_MIRROR(a, b) ((void)(a), (b))
#define FK_REV(a) (a)
#define FK_SWAP(a) __builtin_shufflevector(a, a, 1, 0)
#define FK_DRE(a) __builtin_shufflevector(a, a, 0, 0)
#define FK_DIM(a) __builtin_shufflevector(a, a, 1, 1)
#elif FK_NL == 4
#define FK_MIRROR(a, b) __builtin_shufflevector(a, b, 4, 5, 2, 3)
#define FK_REV(a) __builtin_shufflevector(a, a, 2, 3, 0, 1)
#define FK_SWAP(a) __builtin_shufflevector(a, a, 1, 0, 3, 2)
#define FK_DRE(a) __builtin_shufflevector(a, a, 0, 0, 2, 2)
#define FK_DIM(a) __builtin_shufflevector(a, a, 1, 1, 3, 3)
#elif FK_NL == 8
#define FK_MIRROR(a, b) __builtin_shufflevector(a, b, 8, 9, 6, 7, 4, 5, 2, 3)
#define FK_REV(a) __builtin_shufflevector(a, a, 6, 7, 4, 5, 2, 3, 0, 1)
#define FK_SWAP(a) __builtin_shufflevector(a, a, 1, 0, 3, 2, 5, 4, 7, 6)
#define FK_DRE(a) __builtin_shufflevector(a, a, 0, 0, 2, 2, 4, 4, 6, 6)
#define FK_DIM(a) __builtin_shufflevector(a, a, 1, 1, 3, 3, 5, 5, 7, 7)
#elif FK_NL == 16
#define FK_MIRROR(a, b) __builtin_shufflevector(a, b, 16, 17, 14, 15, 12, 13, 10, 11, 8, \
                                                9, 6, 7, 4, 5, 2, 3)
#define FK_REV(a) __builtin_shufflevector(a, a, 14, 15, 12, 13, 10, 11, 8, 9, 6, 7, \
                                          4, 5, 2, 3, 0, 1)
#define FK_SWAP(a) __builtin_shufflevector(a, a, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, \
                                           11, 10, 13, 12, 15, 14)
#define FK_DRE(a) __builtin_shufflevector(a, a, 0, 0, 2, 2, 4, 4, 6, 6, 8, 8,  \
                                          10, 10, 12, 12, 14, 14)
#define FK_DIM(a) __builtin_shufflevector(a, a, 1, 1, 3, 3, 5, 5, 7, 7, 9, 9,  \
                                          11, 11, 13, 13, 15, 15)
#else
#error "unsupported vector length"
#endif

#if FK_TSIZE == 8
#define FK_FMADDSUB512 _mm512_fmaddsub_pd
#define FK_FMADDSUB256 _mm256_fmaddsub_pd
#define FK_FMADDSUB128 _mm_fmaddsub_pd
#define FK_FMADD512 _mm512_fmadd_pd
#define FK_FMADD256 _mm256_fmadd_pd
#define FK_FMADD128 _mm_fmadd_pd
#define FK_FMA1 __builtin_fma
#else
#define FK_FMADDSUB512 _mm512_fmaddsub_ps
#define FK_FMADDSUB256 _mm256_fmaddsub_ps
#define FK_FMADDSUB128 _mm_fmaddsub_ps
#define FK_FMADD512 _mm512_fmadd_ps
#define FK_FMADD256 _mm256_fmadd_ps
#define FK_FMADD128 _mm_fmadd_ps
#define FK_FMA1 __builtin_fmaf
#endif

FK_INLINE V FK(ld)(const FK_T *p) { return *(const UV *)(const void *)p; }
FK_INLINE void FK(st)(FK_T *p, V v) { *(UV *)(void *)p = v; }
FK_INLINE V FK(splat)(FK_T s) { return s - (V){ 0 }; }

/* a*b + c rounded once where the ISA has FMA, written out rather than
   left to contraction: every width of a table then rounds alike, and a
   value's bits do not depend on the lane or the tail it takes (nor on
   -ffp-contract; doc/tuning.md 9) */
FK_INLINE V FK(fma)(V a, V b, V c)
{
#if defined(__AVX512F__) && FK_NL * FK_TSIZE == 64
    return (V)FK_FMADD512(a, b, c);
#elif defined(__FMA__) && FK_NL * FK_TSIZE == 32
    return (V)FK_FMADD256(a, b, c);
#elif defined(__FMA__) && FK_NL * FK_TSIZE == 16
    return (V)FK_FMADD128(a, b, c);
#elif defined(__FMA__)
    V r;
    FK_UNROLL
    for (int i = 0; i < FK_NL; i++)
        r[i] = FK_FMA1(a[i], b[i], c[i]);
    return r;
#else
    return a * b + c;
#endif
}

/* (-1, +1, -1, +1, ...): a*wr + swap(a)*(wi*sgn) is the complex a*w */
FK_INLINE V FK(sgn)(void)
{
    V v;
    FK_UNROLL
    for (int i = 0; i < FK_NL; i++)
        v[i] = (i & 1) ? 1 : -1;
    return v;
}

/* the complex a*w, given wr = (re w, re w, ...) and wi = (im w, im w, ...):
   a*wr -/+ swap(a)*wi, one fmaddsub where the ISA has it */
FK_INLINE V FK(cmul)(V a, V wr, V wi)
{
#if defined(__AVX512F__) && FK_NL * FK_TSIZE == 64
    return (V)FK_FMADDSUB512(a, wr, FK_SWAP(a) * wi);
#elif defined(__FMA__) && FK_NL * FK_TSIZE == 32
    return (V)FK_FMADDSUB256(a, wr, FK_SWAP(a) * wi);
#elif defined(__FMA__) && FK_NL * FK_TSIZE == 16
    return (V)FK_FMADDSUB128(a, wr, FK_SWAP(a) * wi);
#else
    return FK(fma)(a, wr, FK_SWAP(a) * (wi * FK(sgn)()));
#endif
}

/* a * (-i) forward, a * (+i) backward */
FK_INLINE V FK(rot)(V a, int fwd)
{
    return FK_SWAP(a) * (fwd ? -FK(sgn)() : FK(sgn)());
}

#define FK_SQRT1_2 ((FK_T)0.70710678118654752440084436210484903928)

/* a * exp(sign*i*pi/4) and a * exp(sign*3i*pi/4) */
FK_INLINE V FK(w8)(V a, int fwd) { return (a + FK(rot)(a, fwd)) * FK_SQRT1_2; }
FK_INLINE V FK(w83)(V a, int fwd) { return (FK(rot)(a, fwd) - a) * FK_SQRT1_2; }

/* The odd r-point DFT in place: with t_j = a_j + a_(r-j) and
   u_j = a_j - a_(r-j) (0 < j <= h = (r-1)/2), output k <= h is
   a_0 + sum_j cos(2 pi jk/r) t_j + i*sign * sum_j sin(2 pi jk/r) u_j, and
   output r-k the same with the sine part negated. */
FK_INLINE void FK(dft_odd)(V *a, const int r, int fwd)
{
    const int h = (r - 1) / 2;
    V t[12], u[12], y0 = a[0];

    FK_UNROLL
    for (int j = 1; j <= h; j++) {
        t[j - 1] = a[j] + a[r - j];
        u[j - 1] = a[j] - a[r - j];
        y0 += t[j - 1];
    }
    FK_UNROLL
    for (int k = 1; k <= h; k++) {
        V c = a[0], d = FK(splat)(0);
        FK_UNROLL
        for (int j = 1; j <= h; j++) {
            int e = j * k % r, f = e <= h ? e : r - e;   /* angle 2 pi e/r */
            if (f == 0) {   /* angle 0: r composite (9) */
                c += t[j - 1];
                continue;
            }
            c = FK(fma)(t[j - 1], FK(splat)((FK_T)fk_cos[r][f - 1]), c);
            d = FK(fma)(u[j - 1],
                        FK(splat)((FK_T)(e <= h ? fk_sin[r][f - 1] : -fk_sin[r][f - 1])), d);
        }
        d = FK(rot)(d, fwd);
        a[k] = c + d;
        a[r - k] = c - d;
    }
    a[0] = y0;
}

/* The r-point DFT in place: for 2, 4 and 8 from radix-2 steps (decimation
   in frequency, outputs in natural order), else FK(dft_odd). */
FK_INLINE void FK(dft)(V *a, int r, int fwd)
{
    if (r % 2 == 1) {
        FK(dft_odd)(a, r, fwd);
    } else if (r == 2) {
        V t = a[0] - a[1];
        a[0] = a[0] + a[1];
        a[1] = t;
    } else if (r == 4) {
        V t0 = a[0] + a[2], t1 = a[0] - a[2];
        V t2 = a[1] + a[3], t3 = FK(rot)(a[1] - a[3], fwd);
        a[0] = t0 + t2;
        a[1] = t1 + t3;
        a[2] = t0 - t2;
        a[3] = t1 - t3;
    } else {
        V u[4], v[4];
        FK_UNROLL
        for (int k = 0; k < 4; k++)
            u[k] = a[k] + a[k + 4];
        v[0] = a[0] - a[4];
        v[1] = FK(w8)(a[1] - a[5], fwd);
        v[2] = FK(rot)(a[2] - a[6], fwd);
        v[3] = FK(w83)(a[3] - a[7], fwd);
        FK(dft)(u, 4, fwd);
        FK(dft)(v, 4, fwd);
        FK_UNROLL
        for (int k = 0; k < 4; k++) {
            a[2 * k] = u[k];
            a[2 * k + 1] = v[k];
        }
    }
}

/* The most legs a pass has */
#define FK_RMAX 25

/* q in [q0, q1) of one p of a broadcast pass (notw: p == 0, all twiddles
   1): vectors of W values of q, the rest by the one-value kernels. */
FK_INLINE void FK(bc_p)(int r, int fwd, int notw, int64_t q0, int64_t q1, int64_t s,
                        int64_t sm, const FK_T *tw, const FK_T *xp, FK_T *yp)
{
    V wr[FK_RMAX - 1], wi[FK_RMAX - 1];
    int64_t q = q0;
    if (!notw) {
        FK_UNROLL
        for (int k = 1; k < r; k++) {
            wr[k - 1] = FK(splat)(tw[2 * (k - 1)]);
            wi[k - 1] = FK(splat)(tw[2 * (k - 1) + 1]);
        }
    }
    for (; q + W <= q1; q += W) {
        V a[FK_RMAX];
        FK_UNROLL
        for (int k = 0; k < r; k++)
            a[k] = FK(ld)(xp + 2 * (q + k * sm));
        FK(dft)(a, r, fwd);
        FK(st)(yp + 2 * q, a[0]);
        FK_UNROLL
        for (int k = 1; k < r; k++)
            FK(st)(yp + 2 * (q + k * s), notw ? a[k] : FK(cmul)(a[k], wr[k - 1], wi[k - 1]));
    }
#ifdef FK_TAIL
    if (q < q1)
        FK_N(FK_TAIL, bc_p)(r, fwd, notw, q, q1, s, sm, tw, xp, yp);
#endif
}

/* The values q of p in the share i0 <= i = q + s*p < i1: [*q0, *q1) */
FK_INLINE void FK(q_span)(int64_t p, int64_t s, int64_t i0, int64_t i1, int64_t *q0,
                          int64_t *q1)
{
    *q0 = i0 > p * s ? i0 - p * s : 0;
    *q1 = i1 - p * s < s ? i1 - p * s : s;
}

/* Broadcast twiddles, any s (full vectors when s % W == 0), i = q + s*p
   in [i0, i1). */
FK_INLINE void FK(pass_bc)(int r, int fwd, int64_t m, int64_t s, int64_t i0, int64_t i1,
                           const FK_T *tw, const FK_T *x, FK_T *y)
{
    const int64_t sm = s * m;
    for (int64_t p = i0 / s; p < m && p * s < i1; p++) {
        int64_t q0, q1;
        FK(q_span)(p, s, i0, i1, &q0, &q1);
        if (p == 0)
            FK(bc_p)(r, fwd, 1, q0, q1, s, sm, tw, x, y);
        else
            FK(bc_p)(r, fwd, 0, q0, q1, s, sm, tw + 2 * p * (r - 1), x + 2 * s * p,
                     y + 2 * s * r * p);
    }
}

/* Interleave the complex values of a and b: lo = (a0 b0 a1 b1 ...), hi the
   rest. */
FK_INLINE void FK(zip)(V a, V b, V *lo, V *hi)
{
#if FK_NL == 2
    *lo = a;
    *hi = b;
#elif FK_NL == 4
    *lo = __builtin_shufflevector(a, b, 0, 1, 4, 5);
    *hi = __builtin_shufflevector(a, b, 2, 3, 6, 7);
#elif FK_NL == 8
    *lo = __builtin_shufflevector(a, b, 0, 1, 8, 9, 2, 3, 10, 11);
    *hi = __builtin_shufflevector(a, b, 4, 5, 12, 13, 6, 7, 14, 15);
#else
    *lo = __builtin_shufflevector(a, b, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20,
                                  21, 6, 7, 22, 23);
    *hi = __builtin_shufflevector(a, b, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13,
                                  28, 29, 14, 15, 30, 31);
#endif
}

/* log2(g) rounds of the perfect shuffle on v[0..g-1] (g a power of two,
   g <= W): for g == W a transpose of complex values; for g < W, v[j]
   then holds values j*W .. j*W+W-1 of the g-way interleaving
   (v[0][0], v[1][0], ..., v[g-1][0], v[0][1], ...). */
FK_INLINE void FK(shuffle_rounds)(V *v, int g)
{
    FK_UNROLL
    for (int h = g; h > 1; h /= 2) {
        V t[8];
        FK_UNROLL
        for (int j = 0; j < g / 2; j++)
            FK(zip)(v[j], v[j + g / 2], &t[2 * j], &t[2 * j + 1]);
        FK_UNROLL
        for (int j = 0; j < g; j++)
            v[j] = t[j];
    }
}

/* One radix-r butterfly on the W lanes starting at i: a[k] = x[i + k*stride],
   the DFT, then a[k] *= twl[(k-1)*stride + i] (per-lane twiddles). */
FK_INLINE void FK(butterfly_lane)(int r, int fwd, int64_t stride, int64_t i,
                                  const FK_T *twl, const FK_T *x, V *a)
{
    FK_UNROLL
    for (int k = 0; k < r; k++)
        a[k] = FK(ld)(x + 2 * (i + k * stride));
    FK(dft)(a, r, fwd);
    FK_UNROLL
    for (int k = 1; k < r; k++) {
        V w = FK(ld)(twl + 2 * ((k - 1) * stride + i));
        a[k] = FK(cmul)(a[k], FK_DRE(w), FK_DIM(w));
    }
}

/* i = q + s*p in [i0, i1) of a pass with per-lane twiddles: vectors of W
   consecutive i, each lane stored on its own; the rest by the one-value
   kernels. */
FK_INLINE void FK(lane_range)(int r, int fwd, int64_t m, int64_t s, const FK_T *twl,
                              const FK_T *x, FK_T *y, int64_t i0, int64_t i1)
{
    const int64_t sm = s * m;
    int64_t i = i0;
    for (; i + W <= i1; i += W) {
        V a[FK_RMAX];
        FK_T t[FK_RMAX][FK_NL];
        FK(butterfly_lane)(r, fwd, sm, i, twl, x, a);
        FK_UNROLL
        for (int k = 0; k < r; k++)
            FK(st)(t[k], a[k]);
        FK_UNROLL
        for (int l = 0; l < W; l++) {
            int64_t p = (i + l) / s, q = (i + l) % s;
            FK_UNROLL
            for (int k = 0; k < r; k++) {
                FK_T *d = y + 2 * (q + s * (r * p + k));
                d[0] = t[k][2 * l];
                d[1] = t[k][2 * l + 1];
            }
        }
    }
#ifdef FK_TAIL
    if (i < i1)
        FK_N(FK_TAIL, lane_range)(r, fwd, m, s, twl, x, y, i, i1);
#endif
}

#include "small_tmpl.h"

#include "real_step_tmpl.h"

#include "twiddle_tmpl.h"

#include "gen_tmpl.h"

#ifndef FK_ONE
/* The s == 1 pass of a power-of-two radix with per-lane twiddles
   twl[(k-1)*m + p]: vectors of W consecutive p in [i0, i1), as many as
   fill, outputs y[r*p + k] put together in registers, so every store is a
   full vector.  Returns the first p not done. */
FK_INLINE int64_t FK(pass_lane1)(int r, int fwd, int64_t m, int64_t i0, int64_t i1,
                                 const FK_T *twl, const FK_T *x, FK_T *y)
{
    const int g = r < W ? r : W;
    int64_t i = i0;
    for (; i + W <= i1; i += W) {
        V a[FK_RMAX];
        FK(butterfly_lane)(r, fwd, m, i, twl, x, a);
        FK_UNROLL
        for (int b = 0; b < r; b += g)
            FK(shuffle_rounds)(a + b, g);
        if (g == W) {
            FK_UNROLL
            for (int b = 0; b < r; b += W)
                FK_UNROLL
                for (int j = 0; j < W; j++)
                    FK(st)(y + 2 * (r * (i + j) + b), a[b + j]);
        } else {
            FK_UNROLL
            for (int j = 0; j < r; j++)
                FK(st)(y + 2 * (r * i + j * W), a[j]);
        }
    }
    return i;
}

/* Per-lane twiddles, any s and m, i = q + s*p in [i0, i1) (s == 1 and r
   a power of two: FK(pass_lane1) first). */
FK_INLINE void FK(pass_lane)(int r, int fwd, int64_t m, int64_t s, int64_t i0, int64_t i1,
                             const FK_T *twl, const FK_T *x, FK_T *y)
{
    int64_t i = i0;
    if (s == 1 && (r & (r - 1)) == 0)
        i = FK(pass_lane1)(r, fwd, m, i0, i1, twl, x, y);
    FK(lane_range)(r, fwd, m, s, twl, x, y, i, i1);
}

#define FK_DEF(kind, r, dir, fwd)                                              \
    static __attribute__((unused)) void FK(kind##r##dir)(int64_t m, int64_t s, \
                                 int64_t i0, int64_t i1, const FK_T *tw,       \
                                 const FK_T *x, FK_T *y)                       \
    {                                                                          \
        FK(pass_##kind)(r, fwd, m, s, i0, i1, tw, x, y);                       \
    }
#define FK_DEF_R(r)                                                            \
    FK_DEF(bc, r, f, 1)                                                        \
    FK_DEF(bc, r, b, 0)                                                        \
    FK_DEF(lane, r, f, 1)                                                      \
    FK_DEF(lane, r, b, 0)
FK_DEF_R(2)
FK_DEF_R(4)
FK_DEF_R(8)
FK_DEF_R(3)
FK_DEF_R(5)
FK_DEF_R(7)
FK_DEF_R(11)
FK_DEF_R(13)
FK_DEF_R(9)
FK_DEF_R(25)
#undef FK_DEF_R
#undef FK_DEF

static __attribute__((unused)) void FK(mulconj)(int64_t n, const FK_T *a,
                                                const FK_T *b, FK_T *y)
{
    const V sg = FK(sgn)();
    int64_t i = 0;
    for (; i + W <= n; i += W) {
        V bv = FK(ld)(b + 2 * i);
        V prod = FK(cmul)(FK(ld)(a + 2 * i), FK_DRE(bv), FK_DIM(bv));
        FK(st)(y + 2 * i, prod * -sg);
    }
    for (; i < n; i++) {
        FK_T ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * i], bi = b[2 * i + 1];
        y[2 * i] = ar * br - ai * bi;
        y[2 * i + 1] = -(ar * bi + ai * br);
    }
}

#endif /* !FK_ONE */

#undef FK_N_
#undef FK_N
#undef FK
#undef V
#undef UV
#undef W
#undef FK_INLINE
#undef FK_UNROLL
#undef FK_FMADDSUB512
#undef FK_FMADDSUB256
#undef FK_FMADDSUB128
#undef FK_FMADD512
#undef FK_FMADD256
#undef FK_FMADD128
#undef FK_FMA1
#undef FK_SWAP
#undef FK_REV
#undef FK_MIRROR
#undef FK_DRE
#undef FK_DIM
#undef FK_SQRT1_2
#undef FK_RMAX

#endif
