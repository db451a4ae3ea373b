/*
 * tw_prod.h - kernels.h's dtw_prod for one ISA table, included once by
 * kernels_tmpl.h's outer part (the ISA flags decide the instructions).
 */
/* kernels.h, dtw_prod.  The exact-error steps must not be contracted:
   TwoSum(p1, -p2) needs p1 and p2 rounded. */
#if defined(__FMA__) && defined(__AVX2__)
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif
/* re = lr hr - li hi and im = lr hi + li hr: the high products exactly
   (fma), their sum by TwoSum, then the low terms */
#define TW_PROD_DD(ADD, SUB, MUL, FMS, lr, lrl, li, lil, hr, hrl, hi, hil, re, im) \
    do {                                                                       \
        const __typeof__(lr) p1_ = MUL(lr, hr), e1_ = FMS(lr, hr, p1_);          \
        const __typeof__(lr) p2_ = MUL(li, hi), e2_ = FMS(li, hi, p2_);          \
        const __typeof__(lr) s_ = SUB(p1_, p2_), sb_ = SUB(s_, p1_);             \
        const __typeof__(lr) es_ = SUB(SUB(p1_, SUB(s_, sb_)), ADD(p2_, sb_));   \
        const __typeof__(lr) q1_ = MUL(lr, hi), f1_ = FMS(lr, hi, q1_);          \
        const __typeof__(lr) q2_ = MUL(li, hr), f2_ = FMS(li, hr, q2_);          \
        const __typeof__(lr) u_ = ADD(q1_, q2_), ub_ = SUB(u_, q1_);             \
        const __typeof__(lr) eu_ = ADD(SUB(q1_, SUB(u_, ub_)), SUB(q2_, ub_));   \
        re = ADD(s_, ADD(ADD(SUB(e1_, e2_), es_),                                \
                         SUB(ADD(MUL(lr, hrl), MUL(lrl, hr)),                    \
                             ADD(MUL(li, hil), MUL(lil, hi)))));                 \
        im = ADD(u_, ADD(ADD(ADD(f1_, f2_), eu_),                                \
                         ADD(ADD(MUL(lr, hil), MUL(lrl, hi)),                    \
                             ADD(MUL(li, hrl), MUL(lil, hr)))));                 \
    } while (0)
#define TW_SADD(a, b) ((a) + (b))
#define TW_SSUB(a, b) ((a) - (b))
#define TW_SMUL(a, b) ((a) * (b))
#define TW_SFMS(a, b, c) __builtin_fma((a), (b), -(c))
static void tw_prod(int64_t nb, int64_t ls, const double *l, const double *h, double *o)
{
    const __m256d vhr = _mm256_set1_pd(h[0]), vhrl = _mm256_set1_pd(h[1]);
    const __m256d vhi = _mm256_set1_pd(h[2]), vhil = _mm256_set1_pd(h[3]);
    int64_t b = 0;
    for (; b + 4 <= nb; b += 4) {
        const __m256d lr = _mm256_loadu_pd(l + b), lrl = _mm256_loadu_pd(l + ls + b);
        const __m256d li = _mm256_loadu_pd(l + 2 * ls + b);
        const __m256d lil = _mm256_loadu_pd(l + 3 * ls + b);
        __m256d re, im;
        TW_PROD_DD(_mm256_add_pd, _mm256_sub_pd, _mm256_mul_pd, _mm256_fmsub_pd, lr, lrl, li,
                   lil, vhr, vhrl, vhi, vhil, re, im);
        const __m256d t0 = _mm256_unpacklo_pd(re, im), t1 = _mm256_unpackhi_pd(re, im);
        _mm256_storeu_pd(o + 2 * b, _mm256_permute2f128_pd(t0, t1, 0x20));
        _mm256_storeu_pd(o + 2 * b + 4, _mm256_permute2f128_pd(t0, t1, 0x31));
    }
    for (; b < nb; b++) {
        double re, im;
        TW_PROD_DD(TW_SADD, TW_SSUB, TW_SMUL, TW_SFMS, l[b], l[ls + b], l[2 * ls + b],
                   l[3 * ls + b], h[0], h[1], h[2], h[3], re, im);
        o[2 * b] = re;
        o[2 * b + 1] = im;
    }
}
#undef TW_PROD_DD
#undef TW_SADD
#undef TW_SSUB
#undef TW_SMUL
#undef TW_SFMS
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
#else
static void tw_prod(int64_t nb, int64_t ls, const double *l, const double *h, double *o)
{
    const long double hr = (long double)h[0] + h[1], hi = (long double)h[2] + h[3];
    for (int64_t b = 0; b < nb; b++) {
        const long double lr = (long double)l[b] + l[ls + b];
        const long double li = (long double)l[2 * ls + b] + l[3 * ls + b];
        o[2 * b] = (double)(lr * hr - li * hi);
        o[2 * b + 1] = (double)(lr * hi + li * hr);
    }
}
#endif
