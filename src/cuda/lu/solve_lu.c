/* Method "lu" on the CUDA backend, host arrays in and out: copy in, getrf
 * on the device (getrf.c), getrs on the device (getrs.c) on the same
 * stream, copy out. Before allocating, the bytes the solve needs are
 * checked against the free device memory. */
#include "cuda/common/cuda_backend.h"
#include "cuda/lu/k_lu.h"
#include "cuda/lu/lu_small.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lsc_solve_lu(ls_cuda_ctx *c, const ls_job *job, ls_report *rep, char *err, size_t errlen)
{
    int st = 0, info = 0, n = job->n, nrhs = job->nrhs, fused = 0;
    const ls_precision p = job->prec;
    size_t es = lsc_elem_size(job->prec), need = 0;
    cudaStream_t s = c->stream;
    void *dA = NULL, *dB = NULL, *ws = NULL;
    int *d_ipiv = NULL, *d_info = NULL, *pairs = NULL;

    if (job->pivot == LS_PIVOT_NONE)
        return LSC_FAIL(err, errlen, LS_EUNSUPPORTED,
                        "method lu always pivots; --pivot none is for ge-naive, ge-blocked, "
                        "ge-coalesced, gj1, gj2 and lu-seed");
    LSC_TRY(lsc_need_add(&need, (size_t)n * (size_t)n, es, err, errlen));
    LSC_TRY(lsc_need_add(&need, (size_t)n * (size_t)nrhs, es, err, errlen));
    LSC_TRY(lsc_need_add(&need, (size_t)n + 1, sizeof(int), err, errlen));
    LSC_TRY(lsc_mem_check(need, "lu", err, errlen));
    LSC_TRY(lsc_malloc(&dA, (size_t)n * (size_t)n, es, err, errlen));
    LSC_TRY(lsc_malloc(&dB, (size_t)n * (size_t)nrhs, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_ipiv, (size_t)n, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_info, 1, sizeof(int), err, errlen));
    /* before the clock starts */
    LSC_TRY(p == LS_DOUBLE ? lsc_lu_workspace_d(c, n, &ws, &pairs, err, errlen)
                           : lsc_lu_workspace_s(c, n, &ws, &pairs, err, errlen));

    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_START], s));
    LSC_CUDA(cudaMemcpy2DAsync(dA, (size_t)n * es, job->A, (size_t)job->lda * es, (size_t)n * es,
                               (size_t)n, cudaMemcpyHostToDevice, s));
    LSC_CUDA(cudaMemcpy2DAsync(dB, (size_t)n * es, job->B, (size_t)job->ldb * es, (size_t)n * es,
                               (size_t)nrhs, cudaMemcpyHostToDevice, s));
    LSC_CUDA(cudaMemsetAsync(d_info, 0, sizeof(int), s));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_H2D], s));
    /* small n: factor and solve in one launch (the solve's time then
     * counts as the factorization's) */
    LSC_TRY(lsc_gesv_fused(c, p, n, nrhs, dA, n, d_ipiv, d_info, dB, n, &fused, err, errlen));
    if (!fused)
        LSC_TRY(lsc_getrf_device(c, p, n, n, dA, n, d_ipiv, d_info, err, errlen));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_FACTOR], s));
    /* getrs queued right behind getrf, pivots read on the device: no host
     * round trip. After a zero pivot it solves with a singular U (X then
     * holds Inf/NaN), and X is not copied out. */
    if (!fused)
        LSC_TRY(lsc_getrs_device(c, p, 'N', n, nrhs, dA, n, d_ipiv, dB, n, err, errlen));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_SOLVE], s));
    LSC_CUDA(cudaMemcpyAsync(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost, s));
    if (job->ipiv)
        LSC_CUDA(cudaMemcpyAsync(job->ipiv, d_ipiv, (size_t)n * sizeof(int),
                                 cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaStreamSynchronize(s)); /* the one wait: info decides whether X comes back */
    if (info == 0)
        LSC_CUDA(cudaMemcpy2DAsync(job->B, (size_t)job->ldb * es, dB, (size_t)n * es,
                                   (size_t)n * es, (size_t)nrhs, cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_D2H], s));
    LSC_CUDA(cudaStreamSynchronize(s));
    LSC_CUDA(cudaGetLastError());
    if (rep) {
        rep->info = info;
        rep->t_h2d = lsc_elapsed(c->ev[LSC_EV_START], c->ev[LSC_EV_H2D]);
        rep->t_factor = lsc_elapsed(c->ev[LSC_EV_H2D], c->ev[LSC_EV_FACTOR]);
        rep->t_solve = lsc_elapsed(c->ev[LSC_EV_FACTOR], c->ev[LSC_EV_SOLVE]);
        rep->t_d2h = lsc_elapsed(c->ev[LSC_EV_SOLVE], c->ev[LSC_EV_D2H]);
        snprintf(rep->message, sizeof rep->message, "lu (%s; cuBLAS trsm/gemm) on %s",
                 p == LS_DOUBLE ? lsc_lu_leaf_kind_d(c, n) : lsc_lu_leaf_kind_s(c, n), c->name);
    }
    st = info;
done:
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(d_ipiv);
    cudaFree(d_info);
    return st;
}

int lsc_getrf_host(void *bctx, ls_precision p, int m, int n, void *A, int lda, int *ipiv,
                   int *info, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0, kmin = m < n ? m : n, hinfo = 0;
    size_t es = lsc_elem_size(p), need = 0;
    void *dA = NULL;
    int *d_ipiv = NULL, *d_info = NULL;
    if (info)
        *info = 0;
    if (kmin == 0) /* the arguments are checked (core/backend.h, getrf) */
        return 0;
    LSC_CUDA(cudaSetDevice(c->device));
    LSC_TRY(lsc_need_add(&need, (size_t)m * (size_t)n, es, err, errlen));
    LSC_TRY(lsc_need_add(&need, (size_t)kmin + 1, sizeof(int), err, errlen));
    LSC_TRY(lsc_mem_check(need, "getrf", err, errlen));
    LSC_TRY(lsc_malloc(&dA, (size_t)m * (size_t)n, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_ipiv, (size_t)kmin, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_info, 1, sizeof(int), err, errlen));
    LSC_CUDA(cudaMemcpy2DAsync(dA, (size_t)m * es, A, (size_t)lda * es, (size_t)m * es, (size_t)n,
                               cudaMemcpyHostToDevice, c->stream));
    LSC_CUDA(cudaMemsetAsync(d_info, 0, sizeof(int), c->stream));
    LSC_TRY(lsc_getrf_device(c, p, m, n, dA, m, d_ipiv, d_info, err, errlen));
    LSC_CUDA(cudaMemcpy2DAsync(A, (size_t)lda * es, dA, (size_t)m * es, (size_t)m * es, (size_t)n,
                               cudaMemcpyDeviceToHost, c->stream));
    LSC_CUDA(cudaMemcpyAsync(ipiv, d_ipiv, (size_t)kmin * sizeof(int), cudaMemcpyDeviceToHost,
                             c->stream));
    LSC_CUDA(cudaMemcpyAsync(&hinfo, d_info, sizeof(int), cudaMemcpyDeviceToHost, c->stream));
    LSC_CUDA(cudaStreamSynchronize(c->stream));
    LSC_CUDA(cudaGetLastError());
    if (info)
        *info = hinfo;
    st = hinfo;
done:
    cudaFree(dA);
    cudaFree(d_ipiv);
    cudaFree(d_info);
    return st;
}
