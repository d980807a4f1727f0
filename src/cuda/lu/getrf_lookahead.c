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

#include "core/knobs.h"
#include "cuda/common/cuda_backend.h"
#include "cuda/lu/k_lu.h"
#include "cuda/steps/k_steps.h" /* lsk_laswp (k_pivot.cu) */

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

int lsc_lookahead_side(ls_cuda_ctx *c, cudaStream_t *stream, cublasHandle_t *blas, char *err,
                       size_t errlen)
{
    int st = la_open(c, err, errlen);
    if (!st) {
        *stream = c->la->panel;
        *blas = c->la->blas;
    }
    return st;
}

/* Panel width: wide enough that the GEMM runs near its peak, narrow enough
 * that the first panel (which nothing hides) stays short. */
int lsc_lookahead_nb(int n)
{
    long long nb = ls_knob_int(LS_KNOB_CUDA_LU_NB); /* 0 unless set in [32, 2048] */
    if (nb >= 32 && nb <= 2048)
        return (int)nb;
    /* H100, FP64 (ms, nb = 256 / 512 / 1024): 4096: 15.2 / 15.1 / 15.2;
     * 8192: 43.3 / 41.7 / 41.3; 16384: 161.5 / 149.9 / 146.8 */
    return n >= 8192 ? 1024 : n >= 4096 ? 512 : 256;
}

#define LS_REAL_IMPL "cuda/lu/getrf_lookahead_impl.h"
#include "common/instantiate_real.h"
