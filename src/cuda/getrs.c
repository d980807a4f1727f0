/* getrs on the device: op(A) X = B with the factors and 1-based pivots of
 * lsc_getrf_device. Pivots are applied by a kernel reading them on the
 * device (k_laswp_rhs.cu) and the triangular solves are cuBLAS trsm, all on
 * c->stream: nothing here waits for the device, so getrf and getrs queue
 * back to back with no host round trip between them. */
#include "cuda_backend.h"
#include "kernels.h"

#include <stdio.h>

/* B = op(T)^-1 B for the triangle of the n x n factors in dA. */
static int trsm(ls_cuda_ctx *c, int dbl, cublasFillMode_t uplo, cublasOperation_t op,
                cublasDiagType_t diag, int n, int nrhs, const void *dA, int lda, void *dB,
                int ldb, char *err, size_t errlen)
{
    int st = 0;
    if (dbl) {
        const double one = 1.0;
        LSC_BLAS(cublasDtrsm(c->blas, CUBLAS_SIDE_LEFT, uplo, op, diag, n, nrhs, &one,
                             (const double *)dA, lda, (double *)dB, ldb));
    } else {
        const float one = 1.0f;
        LSC_BLAS(cublasStrsm(c->blas, CUBLAS_SIDE_LEFT, uplo, op, diag, n, nrhs, &one,
                             (const float *)dA, lda, (float *)dB, ldb));
    }
done:
    return st;
}

typedef struct getrs_args {
    ls_cuda_ctx *c;
    int dbl;
    char trans;
    int n, nrhs, lda, ldb;
    const void *dA;
    const int *d_ipiv;
    void *dB;
} getrs_args;

static int getrs_enqueue(ls_cuda_ctx *c, int dbl, char trans, int n, int nrhs, const void *dA,
                         int lda, const int *d_ipiv, void *dB, int ldb, char *err, size_t errlen);

static int getrs_enqueue_fn(void *arg, char *err, size_t errlen)
{
    const getrs_args *a = (const getrs_args *)arg;
    return getrs_enqueue(a->c, a->dbl, a->trans, a->n, a->nrhs, a->dA, a->lda, a->d_ipiv, a->dB,
                         a->ldb, err, errlen);
}

int lsc_getrs_device(ls_cuda_ctx *c, int dbl, char trans, int n, int nrhs, const void *dA,
                     int lda, const int *d_ipiv, void *dB, int ldb, char *err, size_t errlen)
{
    getrs_args a = {c, dbl, trans, n, nrhs, lda, ldb, dA, d_ipiv, dB};
    cublasMath_t mode = CUBLAS_DEFAULT_MATH;
    if (n <= 0 || nrhs <= 0)
        return 0;
    if (cublasGetMathMode(c->blas, &mode) != CUBLAS_STATUS_SUCCESS)
        return getrs_enqueue_fn(&a, err, errlen);
    uintptr_t key[LSC_GRAPH_KEY] = {2,
                                    (uintptr_t)dbl,
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
    return lsc_graph_run(c, key, getrs_enqueue_fn, &a, err, errlen);
}

static int getrs_enqueue(ls_cuda_ctx *c, int dbl, char trans, int n, int nrhs, const void *dA,
                         int lda, const int *d_ipiv, void *dB, int ldb, char *err, size_t errlen)
{
    int st = 0, notrans = trans == 'N' || trans == 'n';
    size_t smem = c->prop.sharedMemPerBlockOptin;
    if (n <= 0 || nrhs <= 0)
        return 0;
    if (notrans) {
        /* A = P L U: X = U^-1 L^-1 P^T B, P^T B = the interchanges in order */
        LSC_CUDA(lsk_laswp_rhs(dbl, n, nrhs, dB, ldb, 0, n, d_ipiv, 0, smem, c->stream));
        LSC_TRY(trsm(c, dbl, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, n, nrhs, dA,
                     lda, dB, ldb, err, errlen));
        LSC_TRY(trsm(c, dbl, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, nrhs,
                     dA, lda, dB, ldb, err, errlen));
    } else {
        /* A^T = U^T L^T P^T: X = P L^-T U^-T B, P Y = the interchanges reversed
         * (real data: 'C' is 'T') */
        LSC_TRY(trsm(c, dbl, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, n, nrhs,
                     dA, lda, dB, ldb, err, errlen));
        LSC_TRY(trsm(c, dbl, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, n, nrhs, dA,
                     lda, dB, ldb, err, errlen));
        LSC_CUDA(lsk_laswp_rhs(dbl, n, nrhs, dB, ldb, 0, n, d_ipiv, 1, smem, c->stream));
    }
done:
    return st;
}

int lsc_getrs_host(void *bctx, ls_precision p, char trans, int n, int nrhs, const void *A, int lda,
                   const int *ipiv, void *B, int ldb, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0, dbl = p == LS_DOUBLE;
    size_t es = lsc_elem_size(p), need = 0;
    void *dA = NULL, *dB = NULL;
    int *d_ipiv = NULL;
    if (n <= 0 || nrhs <= 0)
        return 0;
    LSC_CUDA(cudaSetDevice(c->device));
    LSC_TRY(lsc_need_add(&need, (size_t)n * (size_t)n, es, err, errlen));
    LSC_TRY(lsc_need_add(&need, (size_t)n * (size_t)nrhs, es, err, errlen));
    LSC_TRY(lsc_need_add(&need, (size_t)n, sizeof(int), err, errlen));
    LSC_TRY(lsc_mem_check(need, "getrs", err, errlen));
    LSC_TRY(lsc_malloc(&dA, (size_t)n * (size_t)n, es, err, errlen));
    LSC_TRY(lsc_malloc(&dB, (size_t)n * (size_t)nrhs, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_ipiv, (size_t)n, sizeof(int), err, errlen));
    LSC_CUDA(cudaMemcpy2DAsync(dA, (size_t)n * es, A, (size_t)lda * es, (size_t)n * es, (size_t)n,
                               cudaMemcpyHostToDevice, c->stream));
    LSC_CUDA(cudaMemcpy2DAsync(dB, (size_t)n * es, B, (size_t)ldb * es, (size_t)n * es,
                               (size_t)nrhs, cudaMemcpyHostToDevice, c->stream));
    LSC_CUDA(cudaMemcpyAsync(d_ipiv, ipiv, (size_t)n * sizeof(int), cudaMemcpyHostToDevice,
                             c->stream));
    LSC_TRY(lsc_getrs_device(c, dbl, trans, n, nrhs, dA, n, d_ipiv, dB, n, err, errlen));
    LSC_CUDA(cudaMemcpy2DAsync(B, (size_t)ldb * es, dB, (size_t)n * es, (size_t)n * es,
                               (size_t)nrhs, cudaMemcpyDeviceToHost, c->stream));
    LSC_CUDA(cudaStreamSynchronize(c->stream));
    LSC_CUDA(cudaGetLastError());
done:
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(d_ipiv);
    return st;
}

/* The largest device copy lsc_gesv_host keeps for the next call (n = 8192
 * in FP64); larger ones are freed after each call. */
#define LSC_GESV_KEEP ((size_t)600 << 20)

int lsc_gesv_host(void *bctx, ls_precision p, int n, int nrhs, void *A, int lda, int *ipiv,
                  void *B, int ldb, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0, dbl = p == LS_DOUBLE, hinfo = 0;
    size_t es = lsc_elem_size(p), need = 0, a_bytes = (size_t)n * (size_t)n * es;
    size_t b_bytes = (size_t)n * (size_t)nrhs * es;
    char *dmem = NULL;
    if (n <= 0 || nrhs <= 0)
        return 0;
    LSC_CUDA(cudaSetDevice(c->device));
    LSC_TRY(lsc_need_add(&need, (size_t)n * (size_t)n, es, err, errlen));
    LSC_TRY(lsc_need_add(&need, (size_t)n * (size_t)nrhs, es, err, errlen));
    LSC_TRY(lsc_need_add(&need, (size_t)n + 1, sizeof(int), err, errlen));
    LSC_TRY(lsc_mem_check(need, "gesv", err, errlen));
    /* one allocation: A, B, then ipiv and info (256-byte aligned pieces) */
    size_t a_off = 0, b_off = (a_bytes + 255) / 256 * 256;
    size_t i_off = b_off + (b_bytes + 255) / 256 * 256;
    size_t total = i_off + ((size_t)n + 1) * sizeof(int);
    if (c->gesv_ws_bytes >= total) { /* the same pointers again: a repeat replays a graph */
        dmem = c->gesv_ws;
    } else {
        LSC_TRY(lsc_malloc((void **)&dmem, total, 1, err, errlen));
        if (total <= LSC_GESV_KEEP) { /* cudaFree waits for the device: keep small ones */
            cudaFree(c->gesv_ws);
            c->gesv_ws = dmem;
            c->gesv_ws_bytes = total;
        }
    }
    void *dA = dmem + a_off, *dB = dmem + b_off;
    int *d_ipiv = (int *)(dmem + i_off), *d_info = d_ipiv + n;
    /* through pinned staging: pageable copies ran at ~2 GB/s (host_stage.c) */
    LSC_TRY(lsc_stage_h2d(c, dA, (size_t)n * es, A, (size_t)lda * es, (size_t)n * es, (size_t)n,
                          err, errlen));
    LSC_TRY(lsc_stage_h2d(c, dB, (size_t)n * es, B, (size_t)ldb * es, (size_t)n * es,
                          (size_t)nrhs, err, errlen));
    LSC_CUDA(cudaMemsetAsync(d_info, 0, sizeof(int), c->stream));
    LSC_TRY(lsc_getrf_device(c, dbl, n, n, dA, n, d_ipiv, d_info, err, errlen));
    LSC_TRY(lsc_getrs_device(c, dbl, 'N', n, nrhs, dA, n, d_ipiv, dB, n, err, errlen));
    LSC_CUDA(cudaMemcpyAsync(ipiv, d_ipiv, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost,
                             c->stream));
    LSC_CUDA(cudaMemcpyAsync(&hinfo, d_info, sizeof(int), cudaMemcpyDeviceToHost, c->stream));
    LSC_TRY(lsc_stage_d2h(c, A, (size_t)lda * es, dA, (size_t)n * es, (size_t)n * es, (size_t)n,
                          err, errlen));
    LSC_CUDA(cudaStreamSynchronize(c->stream));
    LSC_CUDA(cudaGetLastError());
    if (hinfo == 0) /* LAPACK leaves B alone for a singular A */
        LSC_TRY(lsc_stage_d2h(c, B, (size_t)ldb * es, dB, (size_t)n * es, (size_t)n * es,
                              (size_t)nrhs, err, errlen));
    st = hinfo;
done:
    if (dmem != c->gesv_ws)
        cudaFree(dmem);
    return st;
}
