/* getrs on the device: op(A) X = B with the factors and 1-based pivots of
 * lsc_getrf_device. Pivots are applied by a kernel reading them on the
 * device (k_laswp_rhs.cu) and the triangular solves are cuBLAS trsm, all on
 * c->stream: nothing here waits for the device, so getrf and getrs queue
 * back to back with no host round trip between them. gesv on device memory
 * (lsc_gesv_fused: one launch where a kernel takes the whole solve, the
 * batched kernels with a stack of one at the smallest orders or the
 * small-n LU; lsc_gesv_device: else getrf and getrs) and the backend's
 * host getrs and gesv slots live here too. */
#include "cuda/batched/batched_cuda.h"
#include "cuda/common/cuda_backend.h"
#include "cuda/lu/k_lu.h"
#include "cuda/lu/lu_small.h"

#include <stdio.h>

#define LS_REAL_IMPL "cuda/lu/getrs_impl.h"
#include "common/instantiate_real.h"

int lsc_getrs_device(ls_cuda_ctx *c, ls_precision p, char trans, int n, int nrhs,
                     const void *dA, int lda, const int *d_ipiv, void *dB, int ldb, char *err,
                     size_t errlen)
{
    return p == LS_DOUBLE ? lsc_getrs_device_d(c, trans, n, nrhs, (const double *)dA, lda, d_ipiv,
                                               (double *)dB, ldb, err, errlen)
                          : lsc_getrs_device_s(c, trans, n, nrhs, (const float *)dA, lda, d_ipiv,
                                               (float *)dB, ldb, err, errlen);
}

int lsc_getrs_host(void *bctx, ls_precision p, char trans, int n, int nrhs, const void *A, int lda,
                   const int *ipiv, void *B, int ldb, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0;
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
    LSC_TRY(lsc_getrs_device(c, p, trans, n, nrhs, dA, n, d_ipiv, dB, n, err, errlen));
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

int lsc_gesv_fused(ls_cuda_ctx *c, ls_precision p, int n, int nrhs, void *dA, int lda,
                   int *d_ipiv, int *d_info, void *dB, int ldb, int *fused, char *err,
                   size_t errlen)
{
    const int batch1_max = p == LS_DOUBLE ? c->tune->lu_batch1_max_n_d
                                          : c->tune->lu_batch1_max_n_s;
    if (n >= 1 && n <= batch1_max && !lsc_lu_small_forced()) {
        *fused = 1;
        return lsc_batched_gesv_one(c, p, n, nrhs, dA, lda, d_ipiv, d_info, dB, ldb, err,
                                    errlen);
    }
    return lsc_lu_small_gesv(c, p, n, nrhs, dA, lda, d_ipiv, d_info, dB, ldb, fused, err,
                             errlen);
}

int lsc_gesv_device(ls_cuda_ctx *c, ls_precision p, int n, int nrhs, void *dA, int lda,
                    int *d_ipiv, int *d_info, void *dB, int ldb, int *fused, char *err,
                    size_t errlen)
{
    int st = 0;
    LSC_TRY(lsc_gesv_fused(c, p, n, nrhs, dA, lda, d_ipiv, d_info, dB, ldb, fused, err, errlen));
    if (!*fused) {
        LSC_TRY(lsc_getrf_device(c, p, n, n, dA, lda, d_ipiv, d_info, err, errlen));
        LSC_TRY(lsc_getrs_device(c, p, 'N', n, nrhs, dA, lda, d_ipiv, dB, ldb, err, errlen));
    }
done:
    return st;
}

/* The largest device copy lsc_gesv_host keeps for the next call (n = 8192
 * in FP64); larger ones are freed after each call. */
#define LSC_GESV_KEEP ((size_t)600 << 20)

int lsc_gesv_host(void *bctx, ls_precision p, int n, int nrhs, void *A, int lda, int *ipiv,
                  void *B, int ldb, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0, hinfo = 0, fused = 0;
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
    LSC_TRY(lsc_gesv_device(c, p, n, nrhs, dA, n, d_ipiv, d_info, dB, n, &fused, err, errlen));
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
