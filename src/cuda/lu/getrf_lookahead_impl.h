/* The look-ahead getrf of getrf_lookahead.c for one precision (REAL, FN:
 * typed.h), instantiated there for double and float.
 * Defines: lsc_getrf_lookahead_d, lsc_getrf_lookahead_s */
typedef struct FN(la_run) {
    ls_cuda_ctx *c;
    struct lsc_lookahead *la;
    int m, n, lda;
    REAL *A;
    int *ipiv, *info;
    char *err;
    size_t errlen;
    int trsm_block; /* LS_CUDA_LU_TRSM_BLOCK: U12 in diagonal blocks this wide (0: one trsm) */
} FN(la_run);

static REAL *FN(la_at)(const FN(la_run) *r, int i, int j)
{
    return r->A + ((size_t)i + (size_t)j * (size_t)r->lda);
}

/* Factor panel [j0, j0+w) over rows [j0, m) on the panel stream; its pivots
 * (panel-relative) become global ones and its info the global info. */
static int FN(la_panel)(const FN(la_run) *r, int j0, int w)
{
    int st = 0, rows = r->m - j0;
    char *err = r->err;
    size_t errlen = r->errlen;
    struct lsc_lookahead *la = r->la;
    if (FN(lsc_lookahead_panel_ours)(r->c, rows)) {
        LSC_CUDA(cudaMemsetAsync(la->pinfo, 0, sizeof(int), la->panel));
        LSC_TRY(FN(lsc_getrf_panel)(r->c, rows, w, FN(la_at)(r, j0, j0), r->lda, r->ipiv + j0,
                                    la->pinfo, la->blas, la->panel, err, errlen));
    } else if (la->x_alg) {
        cudaDataType dt = LSC_CUDA_R;
        LSC_SOLVER(cusolverDnXgetrf(la->solver, la->params, rows, w, dt, FN(la_at)(r, j0, j0),
                                    r->lda, (int64_t *)la->piv64, dt, la->work, la->work_bytes,
                                    la->hwork, la->hwork_bytes, la->pinfo));
        LSC_CUDA(lsk_pivots_shift64(w, j0, la->piv64, r->ipiv, la->pinfo, r->info, la->panel));
        return 0;
    } else
        LSC_SOLVER(LSC_T(cusolverDn, getrf)(la->solver, rows, w, FN(la_at)(r, j0, j0), r->lda,
                                            (REAL *)la->work, r->ipiv + j0, la->pinfo));
    LSC_CUDA(lsk_pivots_shift(w, j0, r->ipiv, la->pinfo, r->info, la->panel));
done:
    return st;
}

/* On the main stream: A(k rows from j0, cols [c0, c0+nc)) = L11^-1 A12 and
 * A22 -= A21 A12 below. */
static int FN(la_update)(const FN(la_run) *r, int j0, int w, int c0, int nc)
{
    int st = 0, below = r->m - j0 - w;
    char *err = r->err;
    size_t errlen = r->errlen;
    cublasHandle_t h = r->c->blas;
    if (nc <= 0)
        return 0;
    const REAL one = 1, minus = -1;
    LSC_TRY(FN(lsc_trsm_lu)(h, 'L', w, nc, FN(la_at)(r, j0, j0), r->lda, FN(la_at)(r, j0, c0),
                            r->lda, r->trsm_block, err, errlen));
    if (below > 0)
        LSC_BLAS(LSC_T(cublas, gemm)(h, CUBLAS_OP_N, CUBLAS_OP_N, below, nc, w, &minus,
                                     FN(la_at)(r, j0 + w, j0), r->lda, FN(la_at)(r, j0, c0),
                                     r->lda, &one, FN(la_at)(r, j0 + w, c0), r->lda));
done:
    return st;
}

int FN(lsc_getrf_lookahead)(ls_cuda_ctx *c, int m, int n, REAL *dA, int lda, int *d_ipiv,
                            int *d_info, char *err, size_t errlen)
{
    int st = 0, kmin = m < n ? m : n, nb = lsc_lookahead_nb(kmin), lwork = 0;
    LSC_TRY(la_open(c, err, errlen));
    struct lsc_lookahead *la = c->la;
    FN(la_run) r = {c,      la,  m,      n, lda, dA, d_ipiv, d_info,
                    err,    errlen, (int)ls_knob_int(LS_KNOB_CUDA_LU_TRSM_BLOCK)};
    if (nb > kmin)
        nb = kmin;
    /* LS_CUDA_LU_PANEL=xgetrf0|xgetrf1: cuSOLVER's 64-bit getrf and its
     * algorithm choice for the panel (for measuring) */
    la->x_alg = ls_knob_is(LS_KNOB_CUDA_LU_PANEL, "xgetrf0")   ? 1
                : ls_knob_is(LS_KNOB_CUDA_LU_PANEL, "xgetrf1") ? 2
                                                               : 0;
    if (la->x_alg) {
        size_t dbytes = 0, hbytes = 0;
        cudaDataType dt = LSC_CUDA_R;
        if (!la->params)
            LSC_SOLVER(cusolverDnCreateParams(&la->params));
        LSC_SOLVER(cusolverDnSetAdvOptions(la->params, CUSOLVERDN_GETRF,
                                           la->x_alg == 2 ? CUSOLVER_ALG_1 : CUSOLVER_ALG_0));
        LSC_SOLVER(cusolverDnXgetrf_bufferSize(la->solver, la->params, m, nb, dt, dA, lda, dt,
                                               &dbytes, &hbytes));
        if (la->work_bytes < dbytes + 1) {
            cudaFree(la->work);
            la->work = NULL;
            la->work_bytes = 0;
            c->ws_gen++;
            LSC_TRY(lsc_malloc(&la->work, dbytes + 1, 1, err, errlen));
            la->work_bytes = dbytes + 1;
        }
        if (la->hwork_bytes < hbytes + 1) {
            free(la->hwork);
            la->hwork_bytes = 0;
            if (!(la->hwork = malloc(hbytes + 1)))
                return LSC_FAIL(err, errlen, LS_ENOMEM, "cannot allocate %zu bytes", hbytes + 1);
            la->hwork_bytes = hbytes + 1;
        }
        if (!la->piv64) {
            LSC_CUDA(cudaMalloc((void **)&la->piv64, sizeof(long long) * 2048));
            c->ws_gen++;
        }
    }
    /* the tallest panel needs the most workspace */
    if (la->x_alg)
        lwork = 0;
    else
        LSC_SOLVER(LSC_T(cusolverDn, getrf_bufferSize)(la->solver, m, nb, dA, lda, &lwork));
    size_t need = (size_t)(lwork > 0 ? lwork : 1) * sizeof(REAL);
    if (la->work_bytes < need) {
        cudaFree(la->work);
        la->work = NULL;
        la->work_bytes = 0;
        c->ws_gen++;
        LSC_TRY(lsc_malloc(&la->work, need, 1, err, errlen));
        la->work_bytes = need;
    }
    /* LS_CUDA_LU_LASWP=serial: LAPACK's swap-by-swap order (for measuring) */
    const int gather = nb <= LSK_SWAPS_MAX && !ls_knob_is(LS_KNOB_CUDA_LU_LASWP, "serial");
    const int moves_par = ls_knob_int(LS_KNOB_CUDA_LU_MOVES_PAR) != 0;
    const int regs = !ls_knob_is(LS_KNOB_CUDA_ROW_MOVES, "smem");
    /* the panel stream starts after whatever the caller queued */
    LSC_CUDA(cudaEventRecord(la->fork, c->stream));
    LSC_CUDA(cudaStreamWaitEvent(la->panel, la->fork, 0));
    LSC_TRY(FN(la_panel)(&r, 0, nb < kmin ? nb : kmin));
    for (int k = 0, j0 = 0; j0 < kmin; k++, j0 += nb) {
        int w = kmin - j0 < nb ? kmin - j0 : nb;
        int j1 = j0 + w, w1 = kmin - j1 < nb ? kmin - j1 : nb; /* the next panel */
        cudaEvent_t factored = la->factored[k % LSC_LA_MAX_EV], ready = la->ready[k % LSC_LA_MAX_EV];
        LSC_CUDA(cudaEventRecord(factored, la->panel));
        LSC_CUDA(cudaStreamWaitEvent(c->stream, factored, 0));
        /* the panel's interchanges on every other column: as one permutation,
         * the next panel's columns before the rest (H100, n = 8192: the
         * swap-by-swap laswp of both sides took ~10 % of the factorization) */
        if (gather) {
            LSC_CUDA(lsk_swaps_to_moves(j0, j1, d_ipiv, la->moves, moves_par, c->stream));
            LSC_CUDA(FN(lsk_moves_apply)(j1, w1, 0, 0, dA, lda, w, la->moves, regs, c->stream));
        } else {
            LSC_CUDA(FN(lsk_laswp)(j0, FN(la_at)(&r, 0, 0), lda, j0, j1, d_ipiv, c->stream));
            LSC_CUDA(FN(lsk_laswp)(n - j1, FN(la_at)(&r, 0, j1), lda, j0, j1, d_ipiv, c->stream));
        }
        if (w1 > 0) {
            LSC_TRY(FN(la_update)(&r, j0, w, j1, w1));
            LSC_CUDA(cudaEventRecord(ready, c->stream));
            LSC_CUDA(cudaStreamWaitEvent(la->panel, ready, 0));
            LSC_TRY(FN(la_panel)(&r, j1, w1));
        }
        if (gather) /* L to the left, the trailing columns right of the next panel */
            LSC_CUDA(FN(lsk_moves_apply)(0, j0, j1 + w1, n - j1 - w1, dA, lda, w, la->moves,
                                         regs, c->stream));
        /* the rest of the trailing matrix, beside the next panel's factorization */
        LSC_TRY(FN(la_update)(&r, j0, w, j1 + w1, n - j1 - w1));
    }
    /* the caller's stream waits for the panel stream's last work */
    LSC_CUDA(cudaEventRecord(la->join, la->panel));
    LSC_CUDA(cudaStreamWaitEvent(c->stream, la->join, 0));
done:
    return st;
}
