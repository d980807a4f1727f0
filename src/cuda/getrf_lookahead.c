/* getrf for large matrices: blocked right-looking LU with look-ahead of one
 * panel. The panel (rows [k nb, m) x nb columns) is factored on a second,
 * high-priority stream while the main stream updates the trailing matrix
 * beyond the next panel, so the latency-bound panel hides behind the
 * flop-bound GEMM instead of adding to it:
 *
 *   panel stream: wait "next panel updated" -> getrf(panel k+1) -> pivots
 *   main stream:  wait "panel k factored" -> row interchanges outside it ->
 *                 trsm + gemm on panel k+1's columns -> "next panel updated"
 *                 -> trsm + gemm on the remaining columns
 *
 * The panel is cuSOLVER's getrf on the tall-skinny block (a building block,
 * as cuBLAS serves the GEMM); the driver, the overlap, the pivot bookkeeping
 * and the interchanges are ours. Pivots and info stay on the device. */
#include <cusolverDn.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "kernels.h"

#define LSC_LA_MAX_EV 2

struct lsc_lookahead {
    cudaStream_t panel;        /* high priority */
    cusolverDnHandle_t solver; /* bound to panel */
    cublasHandle_t blas;       /* bound to panel: our own panel's trsm / gemm */
    cudaEvent_t ready[LSC_LA_MAX_EV], factored[LSC_LA_MAX_EV], fork, join;
    void *work;                /* cuSOLVER workspace (grow-only) */
    size_t work_bytes;
    cusolverDnParams_t params; /* the 64-bit API's algorithm choice (xgetrf panels) */
    long long *piv64;          /* its pivots, one panel's worth */
    void *hwork;               /* its host workspace */
    size_t hwork_bytes;
    int x_alg;                 /* 0: 32-bit getrf; 1 / 2: Xgetrf with CUSOLVER_ALG_0 / _1 */
    int *pinfo;                /* the panel's own info */
    int *moves;                /* a panel's interchanges as row moves (lsk_swaps_to_moves) */
};

void lsc_lookahead_free(ls_cuda_ctx *c)
{
    struct lsc_lookahead *la = c->la;
    if (!la)
        return;
    if (la->solver)
        cusolverDnDestroy(la->solver);
    if (la->blas)
        cublasDestroy(la->blas);
    for (int i = 0; i < LSC_LA_MAX_EV; i++) {
        if (la->ready[i])
            cudaEventDestroy(la->ready[i]);
        if (la->factored[i])
            cudaEventDestroy(la->factored[i]);
    }
    if (la->fork)
        cudaEventDestroy(la->fork);
    if (la->join)
        cudaEventDestroy(la->join);
    if (la->panel)
        cudaStreamDestroy(la->panel);
    cudaFree(la->work);
    cudaFree(la->pinfo);
    cudaFree(la->moves);
    cudaFree(la->piv64);
    free(la->hwork);
    if (la->params)
        cusolverDnDestroyParams(la->params);
    free(la);
    c->la = NULL;
}

static int la_open(ls_cuda_ctx *c, char *err, size_t errlen)
{
    int st = 0, lo = 0, hi = 0;
    if (c->la)
        return 0;
    struct lsc_lookahead *la = calloc(1, sizeof *la);
    if (!la)
        return LSC_FAIL(err, errlen, LS_ENOMEM, "cannot allocate the look-ahead state");
    c->la = la;
    LSC_CUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    LSC_CUDA(cudaStreamCreateWithPriority(&la->panel, cudaStreamNonBlocking, hi));
    for (int i = 0; i < LSC_LA_MAX_EV; i++) {
        LSC_CUDA(cudaEventCreateWithFlags(&la->ready[i], cudaEventDisableTiming));
        LSC_CUDA(cudaEventCreateWithFlags(&la->factored[i], cudaEventDisableTiming));
    }
    LSC_CUDA(cudaEventCreateWithFlags(&la->fork, cudaEventDisableTiming));
    LSC_CUDA(cudaEventCreateWithFlags(&la->join, cudaEventDisableTiming));
    LSC_CUDA(cudaMalloc((void **)&la->pinfo, sizeof(int)));
    LSC_CUDA(cudaMalloc((void **)&la->moves, sizeof(int) * (1 + 4 * (size_t)LSK_SWAPS_MAX)));
    LSC_SOLVER(cusolverDnCreate(&la->solver));
    LSC_SOLVER(cusolverDnSetStream(la->solver, la->panel));
    LSC_BLAS(cublasCreate(&la->blas));
    LSC_BLAS(cublasSetStream(la->blas, la->panel));
done:
    if (st)
        lsc_lookahead_free(c);
    return st;
}

typedef struct la_run {
    ls_cuda_ctx *c;
    struct lsc_lookahead *la;
    int dbl, m, n, lda;
    size_t es;
    char *A;
    int *ipiv, *info;
    char *err;
    size_t errlen;
} la_run;

static void *la_at(const la_run *r, int i, int j)
{
    return r->A + ((size_t)i + (size_t)j * (size_t)r->lda) * r->es;
}

/* Factor panel [j0, j0+w) over rows [j0, m) on the panel stream; its pivots
 * (panel-relative) become global ones and its info the global info. */
static int la_panel(const la_run *r, int j0, int w)
{
    int st = 0, rows = r->m - j0;
    char *err = r->err;
    size_t errlen = r->errlen;
    struct lsc_lookahead *la = r->la;
    if (lsc_lookahead_panel_ours(r->c, r->dbl, rows)) {
        LSC_CUDA(cudaMemsetAsync(la->pinfo, 0, sizeof(int), la->panel));
        LSC_TRY(lsc_getrf_panel(r->c, r->dbl, rows, w, la_at(r, j0, j0), r->lda, r->ipiv + j0,
                                la->pinfo, la->blas, la->panel, err, errlen));
    } else if (la->x_alg) {
        cudaDataType dt = r->dbl ? CUDA_R_64F : CUDA_R_32F;
        LSC_SOLVER(cusolverDnXgetrf(la->solver, la->params, rows, w, dt, la_at(r, j0, j0), r->lda,
                                    (int64_t *)la->piv64, dt, la->work, la->work_bytes, la->hwork,
                                    la->hwork_bytes, la->pinfo));
        LSC_CUDA(lsk_pivots_shift64(w, j0, la->piv64, r->ipiv, la->pinfo, r->info, la->panel));
        return 0;
    } else if (r->dbl)
        LSC_SOLVER(cusolverDnDgetrf(la->solver, rows, w, (double *)la_at(r, j0, j0), r->lda,
                                    (double *)la->work, r->ipiv + j0, la->pinfo));
    else
        LSC_SOLVER(cusolverDnSgetrf(la->solver, rows, w, (float *)la_at(r, j0, j0), r->lda,
                                    (float *)la->work, r->ipiv + j0, la->pinfo));
    LSC_CUDA(lsk_pivots_shift(w, j0, r->ipiv, la->pinfo, r->info, la->panel));
done:
    return st;
}

/* On the main stream: A(k rows from j0, cols [c0, c0+nc)) = L11^-1 A12 and
 * A22 -= A21 A12 below. */
static int la_update(const la_run *r, int j0, int w, int c0, int nc)
{
    int st = 0, below = r->m - j0 - w;
    char *err = r->err;
    size_t errlen = r->errlen;
    cublasHandle_t h = r->c->blas;
    if (nc <= 0)
        return 0;
    if (r->dbl) {
        const double one = 1.0, minus = -1.0;
        LSC_BLAS(cublasDtrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                             CUBLAS_DIAG_UNIT, w, nc, &one, la_at(r, j0, j0), r->lda,
                             la_at(r, j0, c0), r->lda));
        if (below > 0)
            LSC_BLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, below, nc, w, &minus,
                                 la_at(r, j0 + w, j0), r->lda, la_at(r, j0, c0), r->lda, &one,
                                 la_at(r, j0 + w, c0), r->lda));
    } else {
        const float one = 1.0f, minus = -1.0f;
        LSC_BLAS(cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                             CUBLAS_DIAG_UNIT, w, nc, &one, la_at(r, j0, j0), r->lda,
                             la_at(r, j0, c0), r->lda));
        if (below > 0)
            LSC_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, below, nc, w, &minus,
                                 la_at(r, j0 + w, j0), r->lda, la_at(r, j0, c0), r->lda, &one,
                                 la_at(r, j0 + w, c0), r->lda));
    }
done:
    return st;
}

/* Panel width: wide enough that the GEMM runs near its peak, narrow enough
 * that the first panel (which nothing hides) stays short. */
int lsc_lookahead_nb(int n)
{
    const char *e = getenv("LS_CUDA_LU_NB");
    int nb = e ? atoi(e) : 0;
    if (nb >= 32 && nb <= 2048)
        return nb;
    /* H100, FP64 (ms, nb = 256 / 512 / 1024): 4096: 15.2 / 15.1 / 15.2;
     * 8192: 43.3 / 41.7 / 41.3; 16384: 161.5 / 149.9 / 146.8 */
    return n >= 8192 ? 1024 : n >= 4096 ? 512 : 256;
}

int lsc_getrf_lookahead(ls_cuda_ctx *c, int dbl, int m, int n, void *dA, int lda, int *d_ipiv,
                        int *d_info, char *err, size_t errlen)
{
    int st = 0, kmin = m < n ? m : n, nb = lsc_lookahead_nb(kmin), lwork = 0;
    LSC_TRY(la_open(c, err, errlen));
    struct lsc_lookahead *la = c->la;
    la_run r = {c, la, dbl, m, n, lda, dbl ? sizeof(double) : sizeof(float), (char *)dA, d_ipiv,
                d_info, err, errlen};
    if (nb > kmin)
        nb = kmin;
    /* LS_CUDA_LU_PANEL=xgetrf0|xgetrf1: cuSOLVER's 64-bit getrf and its
     * algorithm choice for the panel (for measuring) */
    const char *pe = getenv("LS_CUDA_LU_PANEL");
    la->x_alg = pe && !strcmp(pe, "xgetrf0") ? 1 : pe && !strcmp(pe, "xgetrf1") ? 2 : 0;
    if (la->x_alg) {
        size_t dbytes = 0, hbytes = 0;
        cudaDataType dt = dbl ? CUDA_R_64F : CUDA_R_32F;
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
    else if (dbl)
        LSC_SOLVER(cusolverDnDgetrf_bufferSize(la->solver, m, nb, (double *)dA, lda, &lwork));
    else
        LSC_SOLVER(cusolverDnSgetrf_bufferSize(la->solver, m, nb, (float *)dA, lda, &lwork));
    size_t need = (size_t)(lwork > 0 ? lwork : 1) * r.es;
    if (la->work_bytes < need) {
        cudaFree(la->work);
        la->work = NULL;
        la->work_bytes = 0;
        c->ws_gen++;
        LSC_TRY(lsc_malloc(&la->work, need, 1, err, errlen));
        la->work_bytes = need;
    }
    /* LS_CUDA_LU_LASWP=serial: LAPACK's swap-by-swap order (for measuring) */
    const char *lw = getenv("LS_CUDA_LU_LASWP");
    const int gather = nb <= LSK_SWAPS_MAX && !(lw && !strcmp(lw, "serial"));
    /* the panel stream starts after whatever the caller queued */
    LSC_CUDA(cudaEventRecord(la->fork, c->stream));
    LSC_CUDA(cudaStreamWaitEvent(la->panel, la->fork, 0));
    LSC_TRY(la_panel(&r, 0, nb < kmin ? nb : kmin));
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
            LSC_CUDA(lsk_swaps_to_moves(j0, j1, d_ipiv, la->moves, c->stream));
            LSC_CUDA(lsk_moves_apply(dbl, j1, w1, 0, 0, dA, lda, w, la->moves, c->stream));
        } else {
            LSC_CUDA(lsk_laswp(dbl, j0, la_at(&r, 0, 0), lda, j0, j1, d_ipiv, c->stream));
            LSC_CUDA(lsk_laswp(dbl, n - j1, la_at(&r, 0, j1), lda, j0, j1, d_ipiv, c->stream));
        }
        if (w1 > 0) {
            LSC_TRY(la_update(&r, j0, w, j1, w1));
            LSC_CUDA(cudaEventRecord(ready, c->stream));
            LSC_CUDA(cudaStreamWaitEvent(la->panel, ready, 0));
            LSC_TRY(la_panel(&r, j1, w1));
        }
        if (gather) /* L to the left, the trailing columns right of the next panel */
            LSC_CUDA(lsk_moves_apply(dbl, 0, j0, j1 + w1, n - j1 - w1, dA, lda, w, la->moves,
                                     c->stream));
        /* the rest of the trailing matrix, beside the next panel's factorization */
        LSC_TRY(la_update(&r, j0, w, j1 + w1, n - j1 - w1));
    }
    /* the caller's stream waits for the panel stream's last work */
    LSC_CUDA(cudaEventRecord(la->join, la->panel));
    LSC_CUDA(cudaStreamWaitEvent(c->stream, la->join, 0));
done:
    return st;
}
