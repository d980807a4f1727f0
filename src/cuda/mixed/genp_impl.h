/* LU without interchanges (genp.c) for one precision (REAL, FN: typed.h).
 * Defines: lsc_genp_diag_d, lsc_genp_diag_s, lsc_genp_lu_d, lsc_genp_lu_s */

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

/* L21 = A21 U11^-1 and U12 = L11^-1 A12 with cuBLAS trsm (W NULL), or as
 * GEMMs with the diagonal block's triangles inverted first (W: jb x jb
 * twice and T, (n - jb) x jb). Measured on the H100 (bench/notes/
 * mixed-cuda.md): the inverses cost accuracy (4 refinement steps where trsm
 * needed none, one fallback at 32768) and saved no time, so trsm is the
 * default and LS_CUDA_GENP_TRSM=inverse the trial. */
static int FN(gp_offdiag)(ls_cuda_ctx *c, REAL *A, int lda, int n, int j0, int jb, REAL *W,
                          char *err, size_t errlen)
{
    int st = 0, right = n - j0 - jb;
    cublasHandle_t h = c->blas;
    const REAL one = 1, zero = 0;
    REAL *A11 = FN(gp_at)(A, lda, j0, j0), *A21 = FN(gp_at)(A, lda, j0 + jb, j0);
    REAL *A12 = FN(gp_at)(A, lda, j0, j0 + jb);
    if (!W) {
        LSC_BLAS(LSC_T(cublas, trsm)(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                     CUBLAS_DIAG_NON_UNIT, right, jb, &one, A11, lda, A21, lda));
        LSC_BLAS(LSC_T(cublas, trsm)(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                     CUBLAS_DIAG_UNIT, jb, right, &one, A11, lda, A12, lda));
        return 0;
    }
    REAL *Li = W, *Ui = W + (size_t)jb * jb, *T = W + 2 * (size_t)jb * jb;
    size_t es = sizeof(REAL);
    LSC_CUDA(FN(lsk_eye)(jb, Li, jb, c->stream));
    LSC_CUDA(FN(lsk_eye)(jb, Ui, jb, c->stream));
    LSC_BLAS(LSC_T(cublas, trsm)(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                 CUBLAS_DIAG_UNIT, jb, jb, &one, A11, lda, Li, jb));
    LSC_BLAS(LSC_T(cublas, trsm)(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                 CUBLAS_DIAG_NON_UNIT, jb, jb, &one, A11, lda, Ui, jb));
    LSC_BLAS(LSC_T(cublas, gemm)(h, CUBLAS_OP_N, CUBLAS_OP_N, right, jb, jb, &one, A21, lda, Ui,
                                 jb, &zero, T, right));
    LSC_CUDA(cudaMemcpy2DAsync(A21, (size_t)lda * es, T, (size_t)right * es, (size_t)right * es,
                               (size_t)jb, cudaMemcpyDeviceToDevice, c->stream));
    LSC_BLAS(LSC_T(cublas, gemm)(h, CUBLAS_OP_N, CUBLAS_OP_N, jb, right, jb, &one, Li, jb, A12,
                                 lda, &zero, T, jb));
    LSC_CUDA(cudaMemcpy2DAsync(A12, (size_t)lda * es, T, (size_t)jb * es, (size_t)jb * es,
                               (size_t)right, cudaMemcpyDeviceToDevice, c->stream));
done:
    return st;
}

int FN(lsc_genp_lu)(ls_cuda_ctx *c, int n, REAL *A, int lda, int nb, int *d_ipiv, int *d_info,
                    char *err, size_t errlen)
{
    int st = 0;
    cublasHandle_t h = c->blas;
    const REAL one = 1, minus = -1;
    REAL *W = NULL;
    /* LS_CUDA_GENP_TRSM=inverse: the off-diagonal blocks by inverted triangles (a trial) */
    if (nb < n && ls_knob_is(LS_KNOB_CUDA_GENP_TRSM, "inverse"))
        LSC_TRY(lsc_tmp_alloc(c, (void **)&W, (2 * (size_t)nb + (size_t)n) * (size_t)nb *
                                                  sizeof(REAL), err, errlen));
    for (int j0 = 0; j0 < n; j0 += nb) {
        int jb = n - j0 < nb ? n - j0 : nb, right = n - j0 - jb;
        LSC_TRY(FN(lsc_genp_diag)(c, A, lda, j0, jb, d_info, err, errlen));
        if (right <= 0)
            continue;
        LSC_TRY(FN(gp_offdiag)(c, A, lda, n, j0, jb, W, err, errlen));
        LSC_BLAS(LSC_T(cublas, gemm)(h, CUBLAS_OP_N, CUBLAS_OP_N, right, right, jb, &minus,
                                     FN(gp_at)(A, lda, j0 + jb, j0), lda,
                                     FN(gp_at)(A, lda, j0, j0 + jb), lda, &one,
                                     FN(gp_at)(A, lda, j0 + jb, j0 + jb), lda));
    }
    LSC_CUDA(lsk_identity_pivots(n, d_ipiv, c->stream));
done:
    if (W)
        lsc_tmp_free(c, W);
    return st;
}
