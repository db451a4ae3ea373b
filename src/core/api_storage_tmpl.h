/*
 * api_storage_tmpl.h - front end of the storage conversions, one copy per
 * precision (T, P, PS as in api_blas_tmpl.h).  These routines have no
 * context: failures are reported through nla_last_error().
 */
#define FN_(p, name) nla_##p##name
#define FN(p, name) FN_(p, name)
#define IMPL_(p, name) nla_storage_##p##name
#define IMPL(p, name) IMPL_(p, name)

/* Shared checks of the band routines; band is ab (ldab).  other is the
   dense a (lda), or with diag the n-by-(kl+ku+1) diagonals dg (lddg). */
static int IMPL(P, band_checks)(nla_check *ck, int64_t m, int64_t n, int64_t kl,
                                int64_t ku, const T *other, int64_t ld, int diag,
                                const T *band, int64_t ldab)
{
    int work = m > 0 && n > 0;
    const char *oname = diag ? "dg" : "a";
    if (nla_chk_nonneg(ck, "m", m) || nla_chk_nonneg(ck, "n", n) ||
        nla_chk_nonneg(ck, "kl", kl) || nla_chk_nonneg(ck, "ku", ku) ||
        (diag ? nla_chk_ld(ck, "lddg", ld, "max(1,n)", n > 1 ? n : 1)
              : nla_chk_ld(ck, "lda", ld, "max(1,m)", m > 1 ? m : 1)) ||
        nla_chk_ldab(ck, ldab, kl, ku))
        return 1;
    /* kl + ku + 1 <= ldab now, so the band's width cannot overflow */
    return nla_chk_ptr(ck, oname, other, work) || nla_chk_ptr(ck, "ab", band, work) ||
           (diag ? nla_chk_matrix_extent(ck, oname, work ? n : 0, kl + ku + 1, ld, sizeof(T))
                 : nla_chk_matrix_extent(ck, oname, m, n, ld, sizeof(T))) ||
           nla_chk_matrix_extent(ck, "ab", work ? kl + ku + 1 : 0, n, ldab, sizeof(T));
}

NLA_API nla_status FN(P, band_pack)(int64_t m, int64_t n, int64_t kl, int64_t ku,
                                    const T *a, int64_t lda, T *ab, int64_t ldab)
{
    nla_check ck = NLA_CHECK_INIT(NULL, "nla_" PS "band_pack");
    if (IMPL(P, band_checks)(&ck, m, n, kl, ku, a, lda, 0, ab, ldab))
        return ck.status;
    if (m > 0 && n > 0)
        IMPL(P, band_pack)(m, n, kl, ku, a, lda, ab, ldab);
    return NLA_OK;
}

NLA_API nla_status FN(P, band_unpack)(int64_t m, int64_t n, int64_t kl, int64_t ku,
                                      const T *ab, int64_t ldab, T *a, int64_t lda)
{
    nla_check ck = NLA_CHECK_INIT(NULL, "nla_" PS "band_unpack");
    if (IMPL(P, band_checks)(&ck, m, n, kl, ku, a, lda, 0, ab, ldab))
        return ck.status;
    if (m > 0 && n > 0)
        IMPL(P, band_unpack)(m, n, kl, ku, ab, ldab, a, lda);
    return NLA_OK;
}

NLA_API nla_status FN(P, band_from_diagonals)(int64_t m, int64_t n, int64_t kl, int64_t ku,
                                              const T *dg, int64_t lddg, T *ab, int64_t ldab)
{
    nla_check ck = NLA_CHECK_INIT(NULL, "nla_" PS "band_from_diagonals");
    if (IMPL(P, band_checks)(&ck, m, n, kl, ku, dg, lddg, 1, ab, ldab))
        return ck.status;
    if (m > 0 && n > 0)
        IMPL(P, band_from_diagonals)(m, n, kl, ku, dg, lddg, ab, ldab);
    return NLA_OK;
}

static int IMPL(P, packed_checks)(nla_check *ck, nla_uplo uplo, int64_t n,
                                  const T *dense, int64_t lda, const T *packed)
{
    return nla_chk_uplo(ck, "uplo", uplo) || nla_chk_nonneg(ck, "n", n) ||
           nla_chk_ld(ck, "lda", lda, "max(1,n)", n > 1 ? n : 1) ||
           nla_chk_ptr(ck, "a", dense, n > 0) || nla_chk_ptr(ck, "ap", packed, n > 0) ||
           nla_chk_matrix_extent(ck, "a", n, n, lda, sizeof(T)) ||
           nla_chk_packed_extent(ck, "ap", n, sizeof(T));
}

NLA_API nla_status FN(P, packed_pack)(nla_uplo uplo, int64_t n, const T *a, int64_t lda,
                                      T *ap)
{
    nla_check ck = NLA_CHECK_INIT(NULL, "nla_" PS "packed_pack");
    if (IMPL(P, packed_checks)(&ck, uplo, n, a, lda, ap))
        return ck.status;
    if (n > 0)
        IMPL(P, packed_pack)(uplo, n, a, lda, ap);
    return NLA_OK;
}

NLA_API nla_status FN(P, packed_unpack)(nla_uplo uplo, int64_t n, const T *ap, T *a,
                                        int64_t lda)
{
    nla_check ck = NLA_CHECK_INIT(NULL, "nla_" PS "packed_unpack");
    if (IMPL(P, packed_checks)(&ck, uplo, n, a, lda, ap))
        return ck.status;
    if (n > 0)
        IMPL(P, packed_unpack)(uplo, n, ap, a, lda);
    return NLA_OK;
}

#undef FN_
#undef FN
#undef IMPL_
#undef IMPL
