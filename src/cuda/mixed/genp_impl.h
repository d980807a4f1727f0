/* LU without interchanges (genp.c) for one precision (REAL, FN: typed.h).
 * Defines: lsc_genp_diag_d, lsc_genp_diag_s, lsc_genp_lu_d, lsc_genp_lu_s */

static REAL *FN(gp_at)(REAL *A, int lda, int i, int j)
{
    return A + (size_t)i + (size_t)j * (size_t)lda;
}

/* The diagonal block [j0, j0 + jb) on stream s with handle h (bound to s). */
static int FN(gp_diag_on)(cublasHandle_t h, cudaStream_t s, REAL *A, int lda, int j0, int jb,
                          int *d_info, char *err, size_t errlen)
{
    int st = 0;
    const REAL one = 1, minus = -1;
    for (int k = j0; k < j0 + jb; k += LSK_GENP_MAX) {
        int kb = j0 + jb - k < LSK_GENP_MAX ? j0 + jb - k : LSK_GENP_MAX, rest = j0 + jb - k - kb;
        LSC_CUDA(FN(lsk_genp_block)(kb, FN(gp_at)(A, lda, k, k), lda, k, d_info, s));
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

int FN(lsc_genp_diag)(ls_cuda_ctx *c, REAL *A, int lda, int j0, int jb, int *d_info, char *err,
                      size_t errlen)
{
    return FN(gp_diag_on)(c->blas, c->stream, A, lda, j0, jb, d_info, err, errlen);
}

/* Step j0's panel with handle h: the diagonal block, then L21 = A21 U11^-1
 * and U12 = L11^-1 A12 by cuBLAS trsm. */
static int FN(gp_panel)(cublasHandle_t h, cudaStream_t s, REAL *A, int lda, int n, int j0,
                        int jb, int *d_info, char *err, size_t errlen)
{
    int st = 0, right = n - j0 - jb;
    const int tb = (int)ls_knob_int(LS_KNOB_CUDA_GENP_TRSM_BLOCK);
    REAL *A11 = FN(gp_at)(A, lda, j0, j0);
    LSC_TRY(FN(gp_diag_on)(h, s, A, lda, j0, jb, d_info, err, errlen));
    if (right <= 0)
        return 0;
    LSC_TRY(FN(lsc_trsm_lu)(h, 'R', right, jb, A11, lda, FN(gp_at)(A, lda, j0 + jb, j0), lda, tb,
                            err, errlen));
    LSC_TRY(FN(lsc_trsm_lu)(h, 'L', jb, right, A11, lda, FN(gp_at)(A, lda, j0, j0 + jb), lda, tb,
                            err, errlen));
done:
    return st;
}

/* C -= A B on handle h: m x n, inner k, all of A's leading dimension. */
static int FN(gp_gemm)(cublasHandle_t h, int m, int n, int k, const REAL *Ab, const REAL *Bb,
                       REAL *Cb, int lda, char *err, size_t errlen)
{
    int st = 0;
    const REAL one = 1, minus = -1;
    if (m > 0 && n > 0)
        LSC_BLAS(LSC_T(cublas, gemm)(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &minus, Ab, lda, Bb,
                                     lda, &one, Cb, lda));
done:
    return st;
}

/* The look-ahead form (LS_CUDA_GENP_LOOKAHEAD): step k+1's panel (diagonal
 * block, L21 and U12) is factored on the look-ahead LU's high-priority
 * stream while the main stream updates the rest of step k's trailing
 * matrix, so the chain of diagonal pieces and trsm runs beside the GEMM
 * instead of between GEMMs. Per step the main stream first updates the
 * next panel's column and row strips, then lets the panel stream start,
 * then updates the rest; the regions the two streams write are disjoint. */
static int FN(gp_lookahead)(ls_cuda_ctx *c, int n, REAL *A, int lda, int nb, int *d_info,
                            char *err, size_t errlen)
{
    int st = 0;
    cudaStream_t ps = NULL;
    cublasHandle_t h = c->blas, hp = NULL;
    cudaEvent_t ready = NULL, factored = NULL;
    LSC_TRY(lsc_lookahead_side(c, &ps, &hp, err, errlen));
    LSC_CUDA(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    LSC_CUDA(cudaEventCreateWithFlags(&factored, cudaEventDisableTiming));
    LSC_CUDA(cudaEventRecord(ready, c->stream)); /* after what the caller queued */
    LSC_CUDA(cudaStreamWaitEvent(ps, ready, 0));
    LSC_TRY(FN(gp_panel)(hp, ps, A, lda, n, 0, n < nb ? n : nb, d_info, err, errlen));
    for (int j0 = 0; j0 < n; j0 += nb) {
        int jb = n - j0 < nb ? n - j0 : nb, j1 = j0 + jb;
        int w1 = n - j1 < nb ? n - j1 : nb, rest = n - j1 - w1;
        LSC_CUDA(cudaEventRecord(factored, ps));
        LSC_CUDA(cudaStreamWaitEvent(c->stream, factored, 0));
        if (w1 <= 0)
            break;
        REAL *L21 = FN(gp_at)(A, lda, j1, j0), *U12 = FN(gp_at)(A, lda, j0, j1);
        /* the next panel's columns (every row below), then its rows */
        LSC_TRY(FN(gp_gemm)(h, n - j1, w1, jb, L21, U12, FN(gp_at)(A, lda, j1, j1), lda, err,
                            errlen));
        LSC_TRY(FN(gp_gemm)(h, w1, rest, jb, L21, FN(gp_at)(A, lda, j0, j1 + w1),
                            FN(gp_at)(A, lda, j1, j1 + w1), lda, err, errlen));
        LSC_CUDA(cudaEventRecord(ready, c->stream));
        LSC_CUDA(cudaStreamWaitEvent(ps, ready, 0));
        LSC_TRY(FN(gp_panel)(hp, ps, A, lda, n, j1, w1, d_info, err, errlen));
        /* the rest of the trailing matrix, beside that panel */
        LSC_TRY(FN(gp_gemm)(h, rest, rest, jb, FN(gp_at)(A, lda, j1 + w1, j0),
                            FN(gp_at)(A, lda, j0, j1 + w1), FN(gp_at)(A, lda, j1 + w1, j1 + w1),
                            lda, err, errlen));
    }
done:
    if (st && ps) /* nothing of the panel stream's may still run when the caller frees A */
        cudaStreamSynchronize(ps);
    if (factored)
        cudaEventDestroy(factored);
    if (ready)
        cudaEventDestroy(ready);
    return st;
}

/* L21 = A21 U11^-1 and U12 = L11^-1 A12 as GEMMs with the diagonal
 * block's triangles inverted first (W: jb x jb twice and T, (n - jb) x jb),
 * in place of gp_panel's trsm. Measured on the H100 (bench/notes/
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
    REAL *W = NULL;
    /* LS_CUDA_GENP_TRSM=inverse: the off-diagonal blocks by inverted triangles (a trial) */
    int inverse = nb < n && ls_knob_is(LS_KNOB_CUDA_GENP_TRSM, "inverse");
    if (nb < n && !inverse && ls_knob_int(LS_KNOB_CUDA_GENP_LOOKAHEAD)) {
        LSC_TRY(FN(gp_lookahead)(c, n, A, lda, nb, d_info, err, errlen));
    } else {
        if (inverse)
            LSC_TRY(lsc_tmp_alloc(c, (void **)&W, (2 * (size_t)nb + (size_t)n) * (size_t)nb *
                                                      sizeof(REAL), err, errlen));
        for (int j0 = 0; j0 < n; j0 += nb) {
            int jb = n - j0 < nb ? n - j0 : nb, right = n - j0 - jb;
            if (W) {
                LSC_TRY(FN(lsc_genp_diag)(c, A, lda, j0, jb, d_info, err, errlen));
                if (right > 0)
                    LSC_TRY(FN(gp_offdiag)(c, A, lda, n, j0, jb, W, err, errlen));
            } else {
                LSC_TRY(FN(gp_panel)(c->blas, c->stream, A, lda, n, j0, jb, d_info, err, errlen));
            }
            LSC_TRY(FN(gp_gemm)(c->blas, right, right, jb, FN(gp_at)(A, lda, j0 + jb, j0),
                                FN(gp_at)(A, lda, j0, j0 + jb),
                                FN(gp_at)(A, lda, j0 + jb, j0 + jb), lda, err, errlen));
        }
    }
    LSC_CUDA(lsk_identity_pivots(n, d_ipiv, c->stream));
done:
    if (W)
        lsc_tmp_free(c, W);
    return st;
}
