/* getrs.c's device getrs for one precision (REAL, FN: typed.h),
 * instantiated there for double and float.
 * Defines: lsc_getrs_device_d, lsc_getrs_device_s */
/* B = op(T)^-1 B for the triangle of the n x n factors in dA. */
static int FN(trsm)(ls_cuda_ctx *c, cublasFillMode_t uplo, cublasOperation_t op,
                    cublasDiagType_t diag, int n, int nrhs, const REAL *dA, int lda, REAL *dB,
                    int ldb, char *err, size_t errlen)
{
    int st = 0;
    const REAL one = 1;
    LSC_BLAS(LSC_T(cublas, trsm)(c->blas, CUBLAS_SIDE_LEFT, uplo, op, diag, n, nrhs, &one, dA, lda,
                                 dB, ldb));
done:
    return st;
}

typedef struct FN(getrs_args) {
    ls_cuda_ctx *c;
    char trans;
    int n, nrhs, lda, ldb;
    const REAL *dA;
    const int *d_ipiv;
    REAL *dB;
} FN(getrs_args);

static int FN(getrs_enqueue)(ls_cuda_ctx *c, char trans, int n, int nrhs, const REAL *dA,
                             int lda, const int *d_ipiv, REAL *dB, int ldb, char *err,
                             size_t errlen);

static int FN(getrs_enqueue_fn)(void *arg, char *err, size_t errlen)
{
    const FN(getrs_args) *a = (const FN(getrs_args) *)arg;
    return FN(getrs_enqueue)(a->c, a->trans, a->n, a->nrhs, a->dA, a->lda, a->d_ipiv, a->dB,
                             a->ldb, err, errlen);
}

int FN(lsc_getrs_device)(ls_cuda_ctx *c, char trans, int n, int nrhs, const REAL *dA, int lda,
                         const int *d_ipiv, REAL *dB, int ldb, char *err, size_t errlen)
{
    FN(getrs_args) a = {c, trans, n, nrhs, lda, ldb, dA, d_ipiv, dB};
    cublasMath_t mode = CUBLAS_DEFAULT_MATH;
    if (n <= 0 || nrhs <= 0)
        return 0;
    if (cublasGetMathMode(c->blas, &mode) != CUBLAS_STATUS_SUCCESS)
        return FN(getrs_enqueue_fn)(&a, err, errlen);
    uintptr_t key[LSC_GRAPH_KEY] = {2,
                                    (uintptr_t)LSC_IS_DOUBLE,
                                    (uintptr_t)(unsigned char)trans,
                                    (uintptr_t)(unsigned)n,
                                    (uintptr_t)(unsigned)nrhs,
                                    (uintptr_t)dA,
                                    (uintptr_t)(unsigned)lda,
                                    (uintptr_t)d_ipiv,
                                    (uintptr_t)dB,
                                    (uintptr_t)(unsigned)ldb,
                                    (uintptr_t)c->stream,
                                    (uintptr_t)mode};
    return lsc_graph_run(c, n, key, FN(getrs_enqueue_fn), &a, err, errlen);
}

static int FN(getrs_enqueue)(ls_cuda_ctx *c, char trans, int n, int nrhs, const REAL *dA,
                             int lda, const int *d_ipiv, REAL *dB, int ldb, char *err,
                             size_t errlen)
{
    int st = 0, notrans = trans == 'N' || trans == 'n';
    size_t smem = c->prop.sharedMemPerBlockOptin;
    if (n <= 0 || nrhs <= 0)
        return 0;
    if (notrans) {
        /* A = P L U: X = U^-1 L^-1 P^T B, P^T B = the interchanges in order */
        LSC_CUDA(FN(lsk_laswp_rhs)(n, nrhs, dB, ldb, 0, n, d_ipiv, 0, smem, c->stream));
        LSC_TRY(FN(trsm)(c, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, n, nrhs, dA,
                         lda, dB, ldb, err, errlen));
        LSC_TRY(FN(trsm)(c, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, nrhs,
                         dA, lda, dB, ldb, err, errlen));
    } else {
        /* A^T = U^T L^T P^T: X = P L^-T U^-T B, P Y = the interchanges reversed
         * (real data: 'C' is 'T') */
        LSC_TRY(FN(trsm)(c, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, n, nrhs,
                         dA, lda, dB, ldb, err, errlen));
        LSC_TRY(FN(trsm)(c, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, n, nrhs, dA,
                         lda, dB, ldb, err, errlen));
        LSC_CUDA(FN(lsk_laswp_rhs)(n, nrhs, dB, ldb, 0, n, d_ipiv, 1, smem, c->stream));
    }
done:
    return st;
}
