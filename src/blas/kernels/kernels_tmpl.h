/*
 * kernels_tmpl.h - the portable kernel code, compiled once per ISA.
 *
 * An ISA file (generic.c, avx2.c, avx512.c) defines
 *   NLA_KTAB      the table's name (nla_kernels_avx2, ...)
 *   NLA_KNAME     its printable name ("avx2")
 *   NLA_VBYTES    the vector width in bytes (16, 32, 64)
 *   D_MV, D_NR    double microkernel: MR = D_MV vectors, NR columns
 *   S_MV, S_NR    the same for float
 * and includes this file once.  The file then includes itself once per
 * precision (with KT_T defined) for the typed kernels, and finally defines
 * the table.  The kernels use GCC/Clang vector extensions, so the compiler's
 * ISA flags decide the instructions (FMA is contracted where -mfma is on).
 */
#ifndef KT_T /* ------------------------------------------- per ISA, outer */

#include <stdint.h>
#include "kernels.h"

#if !defined(NLA_KTAB) || !defined(NLA_VBYTES)
#error "define NLA_KTAB, NLA_VBYTES and the tiles before including kernels_tmpl.h"
#endif

#define D_MR (D_MV * (NLA_VBYTES / 8))
#define S_MR (S_MV * (NLA_VBYTES / 4))
_Static_assert(D_MR * D_NR <= NLA_GEMM_MAX_TILE, "double tile too large");
_Static_assert(D_MV <= NLA_GEMM_MAX_MV && S_MV <= NLA_GEMM_MAX_MV, "MV too large");
_Static_assert(S_MR * S_NR <= NLA_GEMM_MAX_TILE, "float tile too large");

#define KT_T double
#define KT_P d
#define KT_VL (NLA_VBYTES / 8)
#define KT_MV D_MV
#define KT_NR D_NR
#include "kernels_tmpl.h"
#undef KT_T
#undef KT_P
#undef KT_VL
#undef KT_MV
#undef KT_NR

#define KT_T float
#define KT_P s
#define KT_VL (NLA_VBYTES / 4)
#define KT_MV S_MV
#define KT_NR S_NR
#include "kernels_tmpl.h"
#undef KT_T
#undef KT_P
#undef KT_VL
#undef KT_MV
#undef KT_NR

const nla_kernels NLA_KTAB = {
    .name = NLA_KNAME,
    .dtile = { D_MR, D_NR, D_MV },
    .stile = { S_MR, S_NR, S_MV },
    .dgemm_ukr = { d_gemm_ukr1, d_gemm_ukr2, d_gemm_ukr3, d_gemm_ukr4 },
    .dgemm_dir = { d_gemm_dir1, d_gemm_dir2, d_gemm_dir3, d_gemm_dir4 },
    .dpack_mr = d_pack_mr,
    .dpack_nr = d_pack_nr,
    .sgemm_ukr = { s_gemm_ukr1, s_gemm_ukr2, s_gemm_ukr3, s_gemm_ukr4 },
    .sgemm_dir = { s_gemm_dir1, s_gemm_dir2, s_gemm_dir3, s_gemm_dir4 },
    .spack_mr = s_pack_mr,
    .spack_nr = s_pack_nr,
};

#else /* ----------------------------------------------- per precision */

#define KT_N_(p, name) p##_##name
#define KT_N(p, name) KT_N_(p, name)
#define KT(name) KT_N(KT_P, name)
#define VEC KT(vec)
#define UVEC KT(uvec)

#if defined(__GNUC__)
typedef KT_T VEC __attribute__((vector_size(NLA_VBYTES)));
/* for element-aligned memory (C, x, y, A columns) */
typedef KT_T UVEC __attribute__((vector_size(NLA_VBYTES), aligned(sizeof(KT_T)),
                                  may_alias));
#define KT_UNROLL _Pragma("GCC unroll 64")
#else
#error "the kernels need GCC or Clang vector extensions"
#endif

/* x - 0 == x exactly (also for -0), so this folds to a broadcast */
#define SPLAT(s) ((KT_T)(s) - (VEC){ 0 })
#define LOADU(p) (*(const UVEC *)(const void *)(p))
#define STOREU(p, v) (*(UVEC *)(void *)(p) = (v))

/* lanes summed in a fixed order */
static inline KT_T KT(hsum)(VEC v)
{
    KT_T s = v[0];
    for (int i = 1; i < KT_VL; i++)
        s += v[i];
    return s;
}

/*
 * The register tile: C[MVX*VL x NR] = alpha * A * B + beta * C with
 * A(i, l) = a[i + l*as] and B(l, j) = b[l*bsl + j*bsj].  The packed
 * kernels pass constant strides (as = MR, bsl = NR, bsj = 1); the direct
 * ones (small GEMMs, unpacked operands) pass the matrices' own.
 */
static inline __attribute__((always_inline)) void
KT(ukr_body)(const int MVX, int64_t k, KT_T alpha, const KT_T *a, int64_t as,
             const KT_T *b, int64_t bsl, int64_t bsj, KT_T beta, KT_T *c,
             int64_t ldc)
{
    VEC acc[KT_NR][KT_MV];

    KT_UNROLL
    for (int j = 0; j < KT_NR; j++) {
        KT_UNROLL
        for (int v = 0; v < MVX; v++) {
            acc[j][v] = SPLAT(0);
            __builtin_prefetch(c + j * ldc + v * KT_VL, 1);
        }
    }
    _Pragma("GCC unroll 4")
    for (int64_t l = 0; l < k; l++) {
        /* indexed, not stepped: stepping would form a pointer one huge
           stride past the operand after the last iteration */
        const KT_T *al = a + l * as, *bl = b + l * bsl;
        VEC av[KT_MV];
        KT_UNROLL
        for (int v = 0; v < MVX; v++)
            av[v] = LOADU(al + v * KT_VL);
        KT_UNROLL
        for (int j = 0; j < KT_NR; j++) {
            VEC bj = SPLAT(bl[j * bsj]);
            KT_UNROLL
            for (int v = 0; v < MVX; v++)
                acc[j][v] += av[v] * bj;
        }
    }
    KT_UNROLL
    for (int j = 0; j < KT_NR; j++) {
        KT_UNROLL
        for (int v = 0; v < MVX; v++) {
            KT_T *cp = c + j * ldc + v * KT_VL;
            VEC r = SPLAT(alpha) * acc[j][v];
            if (beta != 0)
                r += SPLAT(beta) * LOADU(cp);
            STOREU(cp, r);
        }
    }
}

#define KT_MR (KT_MV * KT_VL)
/* packed micro-panels, the first v of MV vectors of rows */
#define KT_UKR_PACKED(v)                                                       \
    static void KT(gemm_ukr##v)(int64_t k, KT_T alpha, const KT_T *a,          \
                                const KT_T *b, KT_T beta, KT_T *c, int64_t ldc)\
    {                                                                          \
        KT(ukr_body)(v < KT_MV ? v : KT_MV, k, alpha, a, KT_MR, b, KT_NR, 1,   \
                     beta, c, ldc);                                            \
    }
/* unpacked operands */
#define KT_UKR_DIRECT(v)                                                       \
    static void KT(gemm_dir##v)(int64_t k, KT_T alpha, const KT_T *a,          \
                                int64_t as, const KT_T *b, int64_t bsl,        \
                                int64_t bsj, KT_T beta, KT_T *c, int64_t ldc)  \
    {                                                                          \
        KT(ukr_body)(v < KT_MV ? v : KT_MV, k, alpha, a, as, b, bsl, bsj,      \
                     beta, c, ldc);                                            \
    }
KT_UKR_PACKED(1)
KT_UKR_PACKED(2)
KT_UKR_PACKED(3)
KT_UKR_PACKED(4)
KT_UKR_DIRECT(1)
KT_UKR_DIRECT(2)
KT_UKR_DIRECT(3)
KT_UKR_DIRECT(4)
#undef KT_UKR_PACKED
#undef KT_UKR_DIRECT
#undef KT_MR

/*
 * One W-wide micro-panel: dst[l*W + i] = src[i*si + l*sl] for i < len,
 * zero for len <= i < W, l < kc.  W is a constant in each caller, so the
 * loops unroll and vectorize.  The common cases are contiguous along i
 * (si == 1: op(A) not transposed, op(B) transposed) or along l (sl == 1).
 */
static inline __attribute__((always_inline)) void
KT(pack_w)(const int W, int64_t kc, int64_t len, const KT_T *restrict src,
           int64_t si, int64_t sl, KT_T *restrict dst)
{
    if (len == W && si == 1) {
        for (int64_t l = 0; l < kc; l++, dst += W) {
            const KT_T *s = src + l * sl;
            __builtin_prefetch(s + 8 * sl);
            if (W % KT_VL == 0) {
                KT_UNROLL
                for (int v = 0; v < W / KT_VL; v++)
                    *(VEC *)(void *)(dst + v * KT_VL) = LOADU(s + v * KT_VL);
            } else {
                KT_UNROLL
                for (int i = 0; i < W; i++)
                    dst[i] = s[i];
            }
        }
    } else if (len == W && sl == 1) {
        /* W streams along l; blocks of 8 steps keep each stream's line hot */
        int64_t l = 0;
        for (; l + 8 <= kc; l += 8, dst += 8 * W) {
            KT_UNROLL
            for (int i = 0; i < W; i++) {
                const KT_T *s = src + i * si + l;
                KT_UNROLL
                for (int u = 0; u < 8; u++)
                    dst[u * W + i] = s[u];
            }
        }
        for (; l < kc; l++, dst += W) {
            KT_UNROLL
            for (int i = 0; i < W; i++)
                dst[i] = src[i * si + l];
        }
    } else {
        for (int64_t l = 0; l < kc; l++, dst += W) {
            int64_t i = 0;
            for (; i < len; i++)
                dst[i] = src[i * si + l * sl];
            for (; i < W; i++)
                dst[i] = 0;
        }
    }
}

static void KT(pack_mr)(int64_t kc, int64_t len, const KT_T *src, int64_t si,
                        int64_t sl, KT_T *dst)
{
    KT(pack_w)(KT_MV * KT_VL, kc, len, src, si, sl, dst);
}

static void KT(pack_nr)(int64_t kc, int64_t len, const KT_T *src, int64_t si,
                        int64_t sl, KT_T *dst)
{
    KT(pack_w)(KT_NR, kc, len, src, si, sl, dst);
}

#undef KT_N_
#undef KT_N
#undef KT
#undef VEC
#undef UVEC
#undef KT_UNROLL
#undef SPLAT
#undef LOADU
#undef STOREU

#endif
