/*
 * small_tmpl.h - whole transforms of n = 2^k <= 64 held in registers (the
 * codelets), included by kernels_tmpl.h once per precision and width, with
 * its FK(), V and W.
 *
 * n = W*L, W complex values a vector: a[j] holds x[W*j .. W*j+W-1], so
 * lane l of a[j] is x[l + W*j].  Then
 *     X[k1 + L*k2] = sum_l W_W^(l*k2) W_n^(l*k1) sum_j x[l + W*j] W_L^(j*k1):
 * an L-point DFT across the vectors (FK(dftn)), lane l of a[k1] times
 * W_n^(l*k1), and for each W vectors a W x W transpose and a W-point DFT
 * across them, which leave X[k1 + L*k2] as whole vectors.  With W == 1 the
 * first step is the whole transform.  n goes up to 512, where L = n/W is
 * at most 64 (FK_SMALL_FITS: 512 in float on AVX-512, 256 in double).
 * Sizes below W*W take a narrower instance (FK_SMALL_TAIL where there is
 * one, else FK_TAIL).  Every index is a compile-time constant once the
 * loops are unrolled, so the twiddles are constants.
 */

/* The codelets' loops are unrolled whole, so that every index and twiddle
   is a constant; address and thread sanitizer builds keep them rolled (the
   same arithmetic, with the arrays in checked memory), which compiles in
   about a minute instead of ten. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FK_SAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FK_SAN_BUILD 1
#endif
#endif
#ifdef FK_SAN_BUILD
#define FK_UNROLL64 _Pragma("GCC unroll 1")
#define FK_UNROLLS _Pragma("GCC unroll 1")
#else
#define FK_UNROLL64 _Pragma("GCC unroll 64")
#define FK_UNROLLS FK_UNROLL
#endif

#ifndef FK_SMALL_TABLE
#define FK_SMALL_TABLE
/* cos(2 pi e/512), e = 0 .. 128: the angles of the longest codelet */
_Static_assert((1 << NLA_FFT_SMALL_LOG) == 512, "fk_q512 is for codelets up to 512");
static const double fk_q512[129] = {
    1.0, 0.999924701839144540921646491196, 0.999698818696204220115765649666,
    0.999322384588349500896221011140, 0.998795456205172392714771604759, 0.998118112900149207125155860684,
    0.997290456678690216135597140183, 0.996312612182778012627226189670, 0.995184726672196886244836953109,
    0.993906970002356041546922813248, 0.992479534598709998156767251661, 0.990902635427780025108237010527,
    0.989176509964780973451673738016, 0.987301418157858382399815801845, 0.985277642388941244774018433179,
    0.983105487431216327180301154674, 0.980785280403230449126182236134, 0.978317370719627633106240096895,
    0.975702130038528544460395766420, 0.972939952205560145467720113904, 0.970031253194543992603984207286,
    0.966976471044852109087220225937, 0.963776065795439866686464355508, 0.960430519415565811199035137655,
    0.956940335732208864935797886980, 0.953306040354193836916740382740, 0.949528180593036667195936074189,
    0.945607325380521325730945386524, 0.941544065183020778412509402600, 0.937339011912574923201899593372,
    0.932992798834738887711660255543, 0.928506080473215565937167395716, 0.923879532511286756128183189397,
    0.919113851690057743908477789359, 0.914209755703530654635014829394, 0.909167983090522376563884787708,
    0.903989293123443331586200297231, 0.898674465693953843041976743733, 0.893224301195515320342416447493,
    0.887639620402853947760181617221, 0.881921264348355029712756863660, 0.876070094195406607095844268268,
    0.870086991108711418652292404484, 0.863972856121586737918147054346, 0.857728610000272069902269984285,
    0.851355193105265142261290311726, 0.844853565249707073259571205105, 0.838224705554838043186996855804,
    0.831469612302545237078788377618, 0.824589302785025264474803737085, 0.817584813151583696504920884131,
    0.810457198252594791726703434245, 0.803207531480644909806676512963, 0.795836904608883536262791915482,
    0.788346427626606262009164705360, 0.780737228572094478301588483780, 0.773010453362736960810906609758,
    0.765167265622458925888815999065, 0.757208846506484547575464053606, 0.749136394523459325469203256767,
    0.740951125354959091175616897495, 0.732654271672412834615546648899, 0.724247082951466920941069243291,
    0.715730825283818654125532623455, 0.707106781186547524400844362105, 0.698376249408972853554813503062,
    0.689540544737066924616730629957, 0.680600997795453050594430464456, 0.671558954847018400625376850427,
    0.662415777590171761113069816957, 0.653172842953776764084203013656, 0.643831542889791465068086063177,
    0.634393284163645498215171613225, 0.624859488142386377084072816281, 0.615231590580626845484913563414,
    0.605511041404325513920626941330, 0.595699304492433343467036528830, 0.585797857456438860328080838119,
    0.575808191417845300745972453816, 0.565731810783613197389765011369, 0.555570233019602224742830813949,
    0.545324988422046422313987347174, 0.534997619887097210663076904637, 0.524589682678468906215098463934,
    0.514102744193221726593693838969, 0.503538383725717558691867071260, 0.492898192229784036873026688759,
    0.482183772079122748517344480797, 0.471396736825997648556387625905, 0.460538710958240023633181486741,
    0.449611329654606600046294579424, 0.438616238538527637647025737546, 0.427555093430282094320966856889,
    0.416429560097637182562598910789, 0.405241314004989870908481305505, 0.393992040061048108596188660890,
    0.382683432365089771728459984030, 0.371317193951837543411934967022, 0.359895036534988148775104572327,
    0.348418680249434568419308587695, 0.336889853392220050689253212619, 0.325310292162262934135954708014,
    0.313681740398891476656478845994, 0.302005949319228067003463231732, 0.290284677254462367636192375817,
    0.278519689385053105207848525957, 0.266712757474898386325286515116, 0.254865659604514571553980778825,
    0.242980179903263889948274162077, 0.231058108280671119643236018473, 0.219101240156869797227737547497,
    0.207111376192218549708116019787, 0.195090322016128267848284868477, 0.183039887955140958516532578477,
    0.170961888760301226363642357208, 0.158858143333861441684385359653, 0.146730474455361751658850129647,
    0.134580708507126186316358409254, 0.122410675199216198498704474151, 0.110222207293883058807899140216,
    0.0980171403295606019941955638886, 0.0857973123444398904615563321468, 0.0735645635996674235294656215752,
    0.0613207363022085777826145929172, 0.0490676743274180142549549769427, 0.0368072229413588323243326909280,
    0.0245412285229122880317345294593, 0.0122715382857199260794082619510, 0.0,
};
#endif

/* cos and sin of 2 pi f/512, f < 512, from the quarter table */
FK_INLINE void FK(cs512)(int f, FK_T *c, FK_T *s)
{
    const int e = f % 128;
    const FK_T ce = (FK_T)fk_q512[e], se = (FK_T)fk_q512[128 - e];
    switch (f / 128) {
    case 0: *c = ce; *s = se; break;
    case 1: *c = -se; *s = ce; break;
    case 2: *c = -ce; *s = -se; break;
    default: *c = se; *s = -ce; break;
    }
}

/* a * W_N^e, W_N = exp(sign*2*pi*i/N), N <= 512 */
FK_INLINE V FK(twc)(V a, int N, int e, int fwd)
{
    const int f = e * (512 / N) % 512;
    FK_T c, s;
    if (f == 0)
        return a;
    if (f == 256)
        return -a;
    if (f == 128 || f == 384)
        return FK(rot)(a, f == 128 ? fwd : !fwd);
    FK(cs512)(f, &c, &s);
    return FK(cmul)(a, FK(splat)(c), FK(splat)(fwd ? -s : s));
}

/* The L-point DFT across a[0..L-1] (L = 2^k <= 64) in natural order:
   L <= 8 by FK(dft), otherwise L = L1*L2 (4*4, 8*4, 8*8), input
   j2 + L2*j1 to output k1 + L1*k2. */
FK_INLINE void FK(dftn)(V *a, int L, int fwd)
{
    if (L <= 8) {
        if (L > 1)
            FK(dft)(a, L, fwd);
        return;
    }
    const int L1 = L == 16 ? 4 : 8, L2 = L / L1;
    V t[64];
    FK_UNROLLS
    for (int j2 = 0; j2 < L2; j2++) {
        V b[8];
        FK_UNROLLS
        for (int j1 = 0; j1 < L1; j1++)
            b[j1] = a[j2 + L2 * j1];
        FK(dft)(b, L1, fwd);
        FK_UNROLLS
        for (int k1 = 0; k1 < L1; k1++)
            t[j2 + L2 * k1] = FK(twc)(b[k1], L, j2 * k1, fwd);
    }
    FK_UNROLLS
    for (int k1 = 0; k1 < L1; k1++) {
        V c[8];
        FK_UNROLLS
        for (int j2 = 0; j2 < L2; j2++)
            c[j2] = t[j2 + L2 * k1];
        FK(dft)(c, L2, fwd);
        FK_UNROLLS
        for (int k2 = 0; k2 < L2; k2++)
            a[k1 + L1 * k2] = c[k2];
    }
}

/* One transform of n = W*L >= W*W, L <= 64 (the header's steps); x == y
   allowed */
FK_INLINE void FK(small1)(int n, int fwd, const FK_T *x, FK_T *y)
{
    const int L = n / W;
    V a[64];
    if (!FK_SMALL_FITS(n, W))
        return;           /* not in the table */
    FK_UNROLL64
    for (int j = 0; j < L; j++)
        a[j] = FK(ld)(x + 2 * W * j);
    FK(dftn)(a, L, fwd);
#if W > 1
    FK_UNROLL64
    for (int k1 = 1; k1 < L; k1++) {
        V wr, wi;
        FK_UNROLLS
        for (int l = 0; l < W; l++) {
            FK_T c, s;
            FK(cs512)(l * k1 * (512 / n) % 512, &c, &s);
            wr[2 * l] = wr[2 * l + 1] = c;
            wi[2 * l] = wi[2 * l + 1] = fwd ? -s : s;
        }
        a[k1] = FK(cmul)(a[k1], wr, wi);
    }
    FK_UNROLLS
    for (int g = 0; g < L; g += W) {
        V b[W];
        FK_UNROLLS
        for (int t = 0; t < W; t++)
            b[t] = a[g + t];
        FK(shuffle_rounds)(b, W);
        FK(dft)(b, W, fwd);
        FK_UNROLLS
        for (int k2 = 0; k2 < W; k2++)
            FK(st)(y + 2 * (g + L * k2), b[k2]);
    }
#else
    FK_UNROLL64
    for (int k = 0; k < L; k++)
        FK(st)(y + 2 * k, a[k]);
#endif
}

/* hm transforms, x + b*id -> y + b*od (complex units) */
FK_INLINE void FK(small_run)(int n, int fwd, int64_t hm, int64_t id, int64_t od,
                             const FK_T *x, FK_T *y)
{
#if defined(FK_SMALL_TAIL) && !defined(FK_ONE)
    if (n < W * W) {
        FK_N(FK_SMALL_TAIL, small_run)(n, fwd, hm, id, od, x, y);
        return;
    }
#elif defined(FK_TAIL)
    if (n < W * W) {
        FK_N(FK_TAIL, small_run)(n, fwd, hm, id, od, x, y);
        return;
    }
#endif
    for (int64_t b = 0; b < hm; b++)
        FK(small1)(n, fwd, x + 2 * b * id, y + 2 * b * od);
}

/* The n rows are n streams, B apart, read and written: with up to 64 rows
   more than an L2 streamer follows (32), so each row's line two lines
   (128 bytes) ahead is asked for in software, the output's for writing,
   once a line (doc/tuning.md 4.8) */
#define FK_IL_AHEAD (128 / (2 * FK_TSIZE))
#define FK_IL_LINE (64 / (2 * FK_TSIZE))   /* complex values a line: one prefetch each */

/* cnt transforms of n = 2^k <= 64 interleaved element by element, stride
   B (element j of transform b at [j*B + b]): vectors across W transforms,
   the n-point DFT across the n vectors; the last cnt % W transforms by
   the one-complex-value instance.  x == y allowed. */
FK_INLINE void FK(small_il)(int n, int fwd, int64_t cnt, int64_t B, const FK_T *x, FK_T *y)
{
    int64_t b = 0;
    for (; b + W <= cnt; b += W) {
        V a[64];
        if (b % FK_IL_LINE == 0 && b + FK_IL_AHEAD + W <= cnt) {
            FK_UNROLL64
            for (int j = 0; j < n; j++) {
                __builtin_prefetch(x + 2 * (j * B + b + FK_IL_AHEAD), 0, 3);
                __builtin_prefetch(y + 2 * (j * B + b + FK_IL_AHEAD), 1, 3);
            }
        }
        FK_UNROLL64
        for (int j = 0; j < n; j++)
            a[j] = FK(ld)(x + 2 * (j * B + b));
        FK(dftn)(a, n, fwd);
        FK_UNROLL64
        for (int k = 0; k < n; k++)
            FK(st)(y + 2 * (k * B + b), a[k]);
    }
#ifdef FK_TAIL
    if (b < cnt)
        FK_N(FK_TAIL, small_il)(n, fwd, cnt - b, B, x + 2 * b, y + 2 * b);
#endif
}

#ifndef FK_ONE
#define FK_SMALL_DEF(k, n)                                                     \
    static void FK(small##k##f)(int64_t hm, int64_t id, int64_t od,            \
                                const FK_T *x, FK_T *y)                        \
    {                                                                          \
        FK(small_run)(n, 1, hm, id, od, x, y);                                 \
    }                                                                          \
    static void FK(small##k##b)(int64_t hm, int64_t id, int64_t od,            \
                                const FK_T *x, FK_T *y)                        \
    {                                                                          \
        FK(small_run)(n, 0, hm, id, od, x, y);                                 \
    }
FK_SMALL_DEF(1, 2)
FK_SMALL_DEF(2, 4)
FK_SMALL_DEF(3, 8)
FK_SMALL_DEF(4, 16)
FK_SMALL_DEF(5, 32)
FK_SMALL_DEF(6, 64)
FK_SMALL_DEF(7, 128)
FK_SMALL_DEF(8, 256)
FK_SMALL_DEF(9, 512)
#undef FK_SMALL_DEF
#define FK_IL_DEF(k, n)                                                        \
    static void FK(il##k##f)(int64_t cnt, int64_t B, const FK_T *x, FK_T *y)   \
    {                                                                          \
        FK(small_il)(n, 1, cnt, B, x, y);                                      \
    }                                                                          \
    static void FK(il##k##b)(int64_t cnt, int64_t B, const FK_T *x, FK_T *y)   \
    {                                                                          \
        FK(small_il)(n, 0, cnt, B, x, y);                                      \
    }
FK_IL_DEF(1, 2)
FK_IL_DEF(2, 4)
FK_IL_DEF(3, 8)
FK_IL_DEF(4, 16)
FK_IL_DEF(5, 32)
FK_IL_DEF(6, 64)
#undef FK_IL_DEF
#endif

#undef FK_UNROLL64
#undef FK_IL_AHEAD
#undef FK_IL_LINE
#undef FK_UNROLLS
#undef FK_SAN_BUILD
