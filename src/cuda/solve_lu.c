/* Method "lu" on the CUDA backend, host arrays in and out: copy in, getrf
 * on the device (getrf.c), getrs on the device, copy out. */
#include "cuda_backend.h"
#include "kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* perm[i] = the row of B that row i of P B comes from, for LAPACK's ipiv
 * (interchanges applied in order): O(n) on the host instead of n dependent
 * swaps per column on the device. */
static void ipiv_to_perm(int n, const int *ipiv, int *perm)
{
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = 0; i < n; i++) {
        int p = ipiv[i] - 1, t = perm[i];
        perm[i] = perm[p];
        perm[p] = t;
    }
}

/* X = U^-1 L^-1 P B on the device. h_ipiv is the host copy of the pivots,
 * perm (host, n ints) and d_perm/dW (device: n ints, n x nrhs) are the
 * caller's, allocated before its timed region; the permuted B goes to dW. */
static int getrs_device(ls_cuda_ctx *c, int dbl, int n, int nrhs, void *dA, int lda,
                        const int *h_ipiv, int *perm, int *d_perm, void *dW, void *dB, int ldb,
                        char *err, size_t errlen)
{
    int st = 0;
    size_t es = dbl ? sizeof(double) : sizeof(float);
    ipiv_to_perm(n, h_ipiv, perm);
    LSC_CUDA(cudaMemcpyAsync(d_perm, perm, sizeof(int) * (size_t)n, cudaMemcpyHostToDevice,
                             c->stream));
    LSC_CUDA(lsk_permute_rows(dbl, n, nrhs, d_perm, dB, ldb, dW, n, c->stream));
    LSC_CUDA(cudaMemcpy2DAsync(dB, (size_t)ldb * es, dW, (size_t)n * es, (size_t)n * es,
                               (size_t)nrhs, cudaMemcpyDeviceToDevice, c->stream));
    if (dbl) {
        const double one = 1.0;
        LSC_BLAS(cublasDtrsm(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                             CUBLAS_DIAG_UNIT, n, nrhs, &one, dA, lda, dB, ldb));
        LSC_BLAS(cublasDtrsm(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                             CUBLAS_DIAG_NON_UNIT, n, nrhs, &one, dA, lda, dB, ldb));
    } else {
        const float one = 1.0f;
        LSC_BLAS(cublasStrsm(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                             CUBLAS_DIAG_UNIT, n, nrhs, &one, dA, lda, dB, ldb));
        LSC_BLAS(cublasStrsm(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                             CUBLAS_DIAG_NON_UNIT, n, nrhs, &one, dA, lda, dB, ldb));
    }
done:
    return st;
}

int lsc_solve_lu(ls_cuda_ctx *c, const ls_job *job, ls_report *rep, char *err, size_t errlen)
{
    int st = 0, info = 0, dbl = job->prec == LS_DOUBLE, n = job->n, nrhs = job->nrhs;
    size_t es = lsc_elem_size(job->prec);
    cudaStream_t s = c->stream;
    void *dA = NULL, *dB = NULL, *dW = NULL, *ws = NULL;
    int *d_ipiv = NULL, *d_info = NULL, *h_ipiv = NULL, *perm = NULL, *d_perm = NULL;
    int *pairs = NULL;

    if (job->pivot == LS_PIVOT_NONE)
        return LSC_FAIL(err, errlen, LS_EUNSUPPORTED,
                        "method lu always pivots; --pivot none is for the seed methods");
    LSC_TRY(lsc_malloc(&dA, (size_t)n * n, es, err, errlen));
    LSC_TRY(lsc_malloc(&dB, (size_t)n * nrhs, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_ipiv, (size_t)n, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_info, 1, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc(&dW, (size_t)n * nrhs, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_perm, (size_t)n, sizeof(int), err, errlen));
    LSC_TRY(lsc_lu_workspace(c, dbl, n, &ws, &pairs, err, errlen)); /* before the clock starts */
    h_ipiv = malloc(sizeof(int) * (size_t)n);
    perm = malloc(sizeof(int) * (size_t)n);
    if (!h_ipiv || !perm) {
        st = LSC_FAIL(err, errlen, LS_ENOMEM, "cannot allocate 2 x %d ints", n);
        goto done;
    }

    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_START], s));
    LSC_CUDA(cudaMemcpy2DAsync(dA, (size_t)n * es, job->A, (size_t)job->lda * es, (size_t)n * es,
                               (size_t)n, cudaMemcpyHostToDevice, s));
    LSC_CUDA(cudaMemcpy2DAsync(dB, (size_t)n * es, job->B, (size_t)job->ldb * es, (size_t)n * es,
                               (size_t)nrhs, cudaMemcpyHostToDevice, s));
    LSC_CUDA(cudaMemsetAsync(d_info, 0, sizeof(int), s));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_H2D], s));
    LSC_TRY(lsc_getrf_device(c, dbl, n, n, dA, n, d_ipiv, d_info, err, errlen));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_FACTOR], s));
    LSC_CUDA(cudaMemcpyAsync(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaMemcpyAsync(h_ipiv, d_ipiv, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaStreamSynchronize(s));
    if (info == 0)
        LSC_TRY(getrs_device(c, dbl, n, nrhs, dA, n, h_ipiv, perm, d_perm, dW, dB, n, err,
                             errlen));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_SOLVE], s));
    if (info == 0)
        LSC_CUDA(cudaMemcpy2DAsync(job->B, (size_t)job->ldb * es, dB, (size_t)n * es,
                                   (size_t)n * es, (size_t)nrhs, cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_D2H], s));
    LSC_CUDA(cudaStreamSynchronize(s));
    LSC_CUDA(cudaGetLastError());
    if (job->ipiv)
        memcpy(job->ipiv, h_ipiv, (size_t)n * sizeof(int));
    if (rep) {
        rep->info = info;
        rep->t_h2d = lsc_elapsed(c->ev[LSC_EV_START], c->ev[LSC_EV_H2D]);
        rep->t_factor = lsc_elapsed(c->ev[LSC_EV_H2D], c->ev[LSC_EV_FACTOR]);
        rep->t_solve = lsc_elapsed(c->ev[LSC_EV_FACTOR], c->ev[LSC_EV_SOLVE]);
        rep->t_d2h = lsc_elapsed(c->ev[LSC_EV_SOLVE], c->ev[LSC_EV_D2H]);
        /* model: the blocked LU touches A a few times; cuBLAS gemm is compute-bound */
        rep->bytes = (double)es * (3.0 * n * (double)n + 3.0 * n * (double)nrhs);
        snprintf(rep->message, sizeof rep->message, "lu (recursive, %s leaf, cuBLAS trsm/gemm) on %s",
                 lsc_lu_leaf_kind(c, dbl, n), c->name);
    }
    st = info;
done:
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(d_ipiv);
    cudaFree(d_info);
    cudaFree(dW);
    cudaFree(d_perm);
    free(h_ipiv);
    free(perm);
    return st;
}

int lsc_getrf_host(void *bctx, ls_precision p, int m, int n, void *A, int lda, int *ipiv,
                   int *info, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0, dbl = p == LS_DOUBLE, kmin = m < n ? m : n, hinfo = 0;
    size_t es = lsc_elem_size(p);
    void *dA = NULL;
    int *d_ipiv = NULL, *d_info = NULL;
    if (info)
        *info = 0;
    if (m < 0)
        return -1;
    if (n < 0)
        return -2;
    if (lda < (m > 1 ? m : 1))
        return -4;
    if (kmin == 0)
        return 0;
    LSC_TRY(lsc_malloc(&dA, (size_t)m * n, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_ipiv, (size_t)kmin, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_info, 1, sizeof(int), err, errlen));
    LSC_CUDA(cudaMemcpy2DAsync(dA, (size_t)m * es, A, (size_t)lda * es, (size_t)m * es, (size_t)n,
                               cudaMemcpyHostToDevice, c->stream));
    LSC_CUDA(cudaMemsetAsync(d_info, 0, sizeof(int), c->stream));
    LSC_TRY(lsc_getrf_device(c, dbl, m, n, dA, m, d_ipiv, d_info, err, errlen));
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
