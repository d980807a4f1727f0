/* LU without interchanges (genp.c) for one precision (REAL, FN: typed.h). */

static REAL *FN(gp_at)(REAL *A, int lda, int i, int j)
{
    return A + (size_t)i + (size_t)j * (size_t)lda;
}

int FN(lsc_genp_diag)(ls_cuda_ctx *c, REAL *A, int lda, int j0, int jb, int *d_info, char *err,
                      size_t errlen)
{
    int st = 0;
    cublasHandle_t h = c->blas;
    const REAL one = 1, minus = -1;
    for (int k = j0; k < j0 + jb; k += LSK_GENP_MAX) {
        int kb = j0 + jb - k < LSK_GENP_MAX ? j0 + jb - k : LSK_GENP_MAX, rest = j0 + jb - k - kb;
        LSC_CUDA(FN(lsk_genp_block)(kb, FN(gp_at)(A, lda, k, k), lda, k, d_info, c->stream));
        if (rest <= 0)
            continue;
        LSC_BLAS(LSC_T(cublas, trsm)(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                     CUBLAS_DIAG_UNIT, kb, rest, &one, FN(gp_at)(A, lda, k, k),
                                     lda, FN(gp_at)(A, lda, k, k + kb), lda));
        LSC_BLAS(LSC_T(cublas, trsm)(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                     CUBLAS_DIAG_NON_UNIT, rest, kb, &one,
                                     FN(gp_at)(A, lda, k, k), lda,
                                     FN(gp_at)(A, lda, k + kb, k), lda));
        LSC_BLAS(LSC_T(cublas, gemm)(h, CUBLAS_OP_N, CUBLAS_OP_N, rest, rest, kb, &minus,
                                     FN(gp_at)(A, lda, k + kb, k), lda,
                                     FN(gp_at)(A, lda, k, k + kb), lda, &one,
                                     FN(gp_at)(A, lda, k + kb, k + kb), lda));
    }
done:
    return st;
}

int FN(lsc_genp_lu)(ls_cuda_ctx *c, int n, REAL *A, int lda, int nb, int *d_ipiv, int *d_info,
                    char *err, size_t errlen)
{
    int st = 0;
    cublasHandle_t h = c->blas;
    const REAL one = 1, minus = -1;
    for (int j0 = 0; j0 < n; j0 += nb) {
        int jb = n - j0 < nb ? n - j0 : nb, right = n - j0 - jb;
        LSC_TRY(FN(lsc_genp_diag)(c, A, lda, j0, jb, d_info, err, errlen));
        if (right <= 0)
            continue;
        LSC_BLAS(LSC_T(cublas, trsm)(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                     CUBLAS_DIAG_NON_UNIT, right, jb, &one,
                                     FN(gp_at)(A, lda, j0, j0), lda,
                                     FN(gp_at)(A, lda, j0 + jb, j0), lda));
        LSC_BLAS(LSC_T(cublas, trsm)(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                     CUBLAS_DIAG_UNIT, jb, right, &one,
                                     FN(gp_at)(A, lda, j0, j0), lda,
                                     FN(gp_at)(A, lda, j0, j0 + jb), lda));
        LSC_BLAS(LSC_T(cublas, gemm)(h, CUBLAS_OP_N, CUBLAS_OP_N, right, right, jb, &minus,
                                     FN(gp_at)(A, lda, j0 + jb, j0), lda,
                                     FN(gp_at)(A, lda, j0, j0 + jb), lda, &one,
                                     FN(gp_at)(A, lda, j0 + jb, j0 + jb), lda));
    }
    LSC_CUDA(lsk_identity_pivots(n, d_ipiv, c->stream));
done:
    return st;
}
