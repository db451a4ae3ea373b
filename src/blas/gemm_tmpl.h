/* gemm_tmpl.h - included by gemm.c with T and P defined. (first cut) */
#define GMF_(p, name) nla_cpu_##p##name
#define GMF(p, name) GMF_(p, name)

nla_status GMF(P, gemm)(const nla_exec *ex, nla_trans transa, nla_trans transb,
                        int64_t m, int64_t n, int64_t k, T alpha, const T *a,
                        int64_t lda, int64_t stride_a, const T *b, int64_t ldb,
                        int64_t stride_b, T beta, T *c, int64_t ldc,
                        int64_t stride_c, int64_t batch)
{
    (void)ex;
    for (int64_t q = 0; q < batch; q++) {
        const T *A = a + q * stride_a, *B = b + q * stride_b;
        T *C = c + q * stride_c;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                T s = 0;
                if (alpha != 0)
                    for (int64_t l = 0; l < k; l++)
                        s += (transa == NLA_NO_TRANS ? A[i + l * lda] : A[l + i * lda]) *
                             (transb == NLA_NO_TRANS ? B[l + j * ldb] : B[j + l * ldb]);
                C[i + j * ldc] = alpha * s + (beta == 0 ? 0 : beta * C[i + j * ldc]);
            }
    }
    return NLA_OK;
}

#undef GMF_
#undef GMF
