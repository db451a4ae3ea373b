/*
 * storage.h - band and packed-symmetric conversions (src/storage).  Called
 * by the front end after validation.
 */
#ifndef NLA_STORAGE_H
#define NLA_STORAGE_H

#include <stdint.h>
#include "nla.h"

#define NLA_STORAGE_DECLS(T, P)                                                \
    void nla_storage_##P##band_pack(int64_t m, int64_t n, int64_t kl,          \
        int64_t ku, const T *a, int64_t lda, T *ab, int64_t ldab);             \
    void nla_storage_##P##band_unpack(int64_t m, int64_t n, int64_t kl,        \
        int64_t ku, const T *ab, int64_t ldab, T *a, int64_t lda);             \
    void nla_storage_##P##band_from_diagonals(int64_t m, int64_t n,           \
        int64_t kl, int64_t ku, const T *dg, int64_t lddg, T *ab,              \
        int64_t ldab);                                                         \
    void nla_storage_##P##packed_pack(nla_uplo uplo, int64_t n, const T *a,    \
        int64_t lda, T *ap);                                                   \
    void nla_storage_##P##packed_unpack(nla_uplo uplo, int64_t n, const T *ap, \
        T *a, int64_t lda);

NLA_STORAGE_DECLS(double, d)
NLA_STORAGE_DECLS(float, s)

#endif
