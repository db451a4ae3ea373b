/*
 * storage_tmpl.h - band and packed conversions, one copy per precision.
 * Included by storage.c with T (the element type) and P (d or s) defined.
 *
 * The front end has validated every argument: sizes are >= 0, the leading
 * dimensions are large enough, and every extent fits in ptrdiff_t, so the
 * index arithmetic below cannot overflow.  kl and ku may exceed m and n.
 * Every loop walks down a column, so both sides are unit-stride except the
 * mirrored half of packed unpack.
 */
#define STOR_(p, name) nla_storage_##p##name
#define STOR(p, name) STOR_(p, name)

/* Rows of column j inside the band: [*lo, *hi), clamped to [0, m).
   Written so that a huge kl or ku cannot overflow. */
static void STOR(P, band_rows)(int64_t m, int64_t kl, int64_t ku, int64_t j,
                               int64_t *lo, int64_t *hi)
{
    int64_t l = j > ku ? j - ku : 0;
    int64_t h = kl >= m - j ? m : j + kl + 1; /* j + kl + 1 <= m here */
    *lo = l < m ? l : m;
    *hi = h > *lo ? h : *lo;
}

void STOR(P, band_pack)(int64_t m, int64_t n, int64_t kl, int64_t ku,
                        const T *a, int64_t lda, T *ab, int64_t ldab)
{
    for (int64_t j = 0; j < n; j++) {
        int64_t lo, hi;
        STOR(P, band_rows)(m, kl, ku, j, &lo, &hi);
        const T *src = a + j * lda;
        /* row i of column j lands at ab[ku + i - j + j*ldab]; index from lo
           so no pointer is formed outside the array */
        T *dst = ab + j * ldab + (ku + lo - j);
        for (int64_t i = lo; i < hi; i++)
            dst[i - lo] = src[i];
    }
}

void STOR(P, band_unpack)(int64_t m, int64_t n, int64_t kl, int64_t ku,
                          const T *ab, int64_t ldab, T *a, int64_t lda)
{
    for (int64_t j = 0; j < n; j++) {
        int64_t lo, hi, i;
        STOR(P, band_rows)(m, kl, ku, j, &lo, &hi);
        const T *src = ab + j * ldab + (ku + lo - j);
        T *dst = a + j * lda;
        for (i = 0; i < lo; i++)
            dst[i] = 0;
        for (; i < hi; i++)
            dst[i] = src[i - lo];
        for (; i < m; i++)
            dst[i] = 0;
    }
}

/* row r of column j's band is diagonal ku - r: dg's column r, row j */
void STOR(P, band_from_diagonals)(int64_t m, int64_t n, int64_t kl, int64_t ku,
                                  const T *dg, int64_t lddg, T *ab, int64_t ldab)
{
    for (int64_t j = 0; j < n; j++) {
        int64_t lo, hi;
        STOR(P, band_rows)(m, kl, ku, j, &lo, &hi);
        if (lo >= hi)
            continue; /* the band leaves the matrix: lo - j may be < -ku */
        T *dst = ab + j * ldab + (ku + lo - j);
        const T *src = dg + j + (ku + lo - j) * lddg;
        for (int64_t i = lo; i < hi; i++)
            dst[i - lo] = src[(i - lo) * lddg];
    }
}

void STOR(P, packed_pack)(nla_uplo uplo, int64_t n, const T *a, int64_t lda, T *ap)
{
    /* ap is walked in order: column j of the triangle follows column j-1 */
    if (uplo == NLA_UPPER) {
        for (int64_t j = 0; j < n; j++) {
            const T *src = a + j * lda;
            for (int64_t i = 0; i <= j; i++)
                ap[i] = src[i];
            ap += j + 1;
        }
    } else {
        for (int64_t j = 0; j < n; j++) {
            const T *src = a + j * lda;
            for (int64_t i = j; i < n; i++)
                ap[i - j] = src[i];
            ap += n - j;
        }
    }
}

void STOR(P, packed_unpack)(nla_uplo uplo, int64_t n, const T *ap, T *a, int64_t lda)
{
    /* Copy the stored triangle column by column (unit stride), then mirror it
       into the other triangle of a (one side of a transpose is strided). */
    const T *col = ap;
    if (uplo == NLA_UPPER) {
        for (int64_t j = 0; j < n; j++) {
            T *dst = a + j * lda;
            for (int64_t i = 0; i <= j; i++)
                dst[i] = col[i];
            col += j + 1;
        }
        for (int64_t j = 0; j < n; j++) {
            T *dst = a + j * lda;
            for (int64_t i = j + 1; i < n; i++)
                dst[i] = a[j + i * lda];
        }
    } else {
        for (int64_t j = 0; j < n; j++) {
            T *dst = a + j * lda;
            for (int64_t i = j; i < n; i++)
                dst[i] = col[i - j];
            col += n - j;
        }
        for (int64_t j = 1; j < n; j++) {
            T *dst = a + j * lda;
            for (int64_t i = 0; i < j; i++)
                dst[i] = a[j + i * lda];
        }
    }
}

#undef STOR_
#undef STOR
