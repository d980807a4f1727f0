/* Benchmark-only peers: cuSOLVER's getrf+getrs (64-bit API, FP64 or FP32)
 * and its mixed-precision iterative-refinement solver cusolverDnIRSXgesv
 * (FP64 in and out, FP32 factorization). Same protocol as our methods:
 * device events around each phase, one warm-up, medians of repeat. */
#include <cusolverDn.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/common/cuda_backend.h"
#include "core/perf/perf.h"
#include "cuda/perf/perf.h"

#define MAX_REP 64

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

extern "C" int lsc_perf_peer(void *bctx, const ls_perf_peer_in *q, ls_perf_peer_out *o,
                             char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0;
    int n = q->n, nrhs = q->nrhs;
    int irs = q->kind == LS_PEER_CUSOLVER_IRS;
    int fp64 = irs || q->prec == LS_DOUBLE;
    size_t es = fp64 ? 8 : 4, nn = (size_t)n * n, nb = (size_t)n * nrhs;
    cusolverDnHandle_t h = NULL;
    cusolverDnParams_t params = NULL;
    cusolverDnIRSParams_t iparams = NULL;
    cusolverDnIRSInfos_t iinfos = NULL;
    void *dA = NULL, *dB = NULL, *dX = NULL, *dwork = NULL, *hwork = NULL, *hA = NULL, *hB = NULL;
    int64_t *dipiv = NULL;
    int *dinfo = NULL;
    size_t dsize = 0, hsize = 0;
    cudaEvent_t ev[5] = {NULL, NULL, NULL, NULL, NULL};
    double th[MAX_REP], tf[MAX_REP], ts[MAX_REP], td[MAX_REP];
    int repeat = q->repeat < 1 ? 1 : (q->repeat > MAX_REP ? MAX_REP : q->repeat);
    cudaDataType dt = fp64 ? CUDA_R_64F : CUDA_R_32F;

    if (n < 1 || nrhs < 1 || !q->A || !q->B || !o->X)
        return LSC_FAIL(err, errlen, LS_EINVAL, "peer: bad arguments n=%d nrhs=%d", n, nrhs);
    o->info = 0, o->iterations = 0;
    snprintf(o->name, sizeof o->name, "%s", irs ? "cusolverDnIRSXgesv" : "cusolverDnXgetrf+Xgetrs");
    /* Host copies in the working precision, converted once, off the clock. */
    hA = malloc(nn * es + 1);
    hB = malloc(nb * es + 1);
    if (!hA || !hB) {
        st = LSC_FAIL(err, errlen, LS_ENOMEM, "peer: out of host memory");
        goto done;
    }
    for (size_t i = 0; i < nn; i++)
        fp64 ? (void)(((double *)hA)[i] = q->A[i]) : (void)(((float *)hA)[i] = (float)q->A[i]);
    for (size_t i = 0; i < nb; i++)
        fp64 ? (void)(((double *)hB)[i] = q->B[i]) : (void)(((float *)hB)[i] = (float)q->B[i]);

    LSC_TRY(lsc_malloc(&dA, nn, es, err, errlen));
    LSC_TRY(lsc_malloc(&dB, nb, es, err, errlen));
    LSC_TRY(lsc_malloc(&dX, nb, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&dipiv, (size_t)n, sizeof(int64_t), err, errlen));
    LSC_TRY(lsc_malloc((void **)&dinfo, 1, sizeof(int), err, errlen));
    for (int i = 0; i < 5; i++)
        LSC_CUDA(cudaEventCreate(&ev[i]));
    LSC_SOLVER(cusolverDnCreate(&h));
    LSC_SOLVER(cusolverDnSetStream(h, c->stream));
    if (irs) {
        LSC_SOLVER(cusolverDnIRSParamsCreate(&iparams));
        LSC_SOLVER(cusolverDnIRSInfosCreate(&iinfos));
        LSC_SOLVER(cusolverDnIRSParamsSetSolverPrecisions(iparams, CUSOLVER_R_64F, CUSOLVER_R_32F));
        LSC_SOLVER(cusolverDnIRSParamsSetRefinementSolver(iparams, CUSOLVER_IRS_REFINE_CLASSICAL));
        LSC_SOLVER(cusolverDnIRSParamsEnableFallback(iparams));
        LSC_SOLVER(cusolverDnIRSXgesv_bufferSize(h, iparams, n, nrhs, &dsize));
    } else {
        LSC_SOLVER(cusolverDnCreateParams(&params));
        LSC_SOLVER(cusolverDnXgetrf_bufferSize(h, params, n, n, dt, dA, n, dt, &dsize, &hsize));
        if (hsize && !(hwork = malloc(hsize))) {
            st = LSC_FAIL(err, errlen, LS_ENOMEM, "peer: host workspace");
            goto done;
        }
    }
    LSC_TRY(lsc_malloc(&dwork, dsize ? dsize : 1, 1, err, errlen));

    for (int r = -1; r < repeat; r++) {
        int niters = 0;
        LSC_CUDA(cudaEventRecord(ev[0], c->stream));
        LSC_CUDA(cudaMemcpyAsync(dA, hA, nn * es, cudaMemcpyHostToDevice, c->stream));
        LSC_CUDA(cudaMemcpyAsync(dB, hB, nb * es, cudaMemcpyHostToDevice, c->stream));
        LSC_CUDA(cudaEventRecord(ev[1], c->stream));
        if (irs) {
            LSC_SOLVER(cusolverDnIRSXgesv(h, iparams, iinfos, n, nrhs, dA, n, dB, n, dX, n, dwork,
                                          dsize, &niters, dinfo));
            LSC_CUDA(cudaEventRecord(ev[2], c->stream));
            LSC_CUDA(cudaEventRecord(ev[3], c->stream));
        } else {
            LSC_SOLVER(cusolverDnXgetrf(h, params, n, n, dt, dA, n, dipiv, dt, dwork, dsize, hwork,
                                        hsize, dinfo));
            LSC_CUDA(cudaEventRecord(ev[2], c->stream));
            LSC_SOLVER(cusolverDnXgetrs(h, params, CUBLAS_OP_N, n, nrhs, dt, dA, n, dipiv, dt, dB, n,
                                        dinfo));
            LSC_CUDA(cudaEventRecord(ev[3], c->stream));
        }
        LSC_CUDA(cudaMemcpyAsync(hB, irs ? dX : dB, nb * es, cudaMemcpyDeviceToHost, c->stream));
        LSC_CUDA(cudaEventRecord(ev[4], c->stream));
        LSC_CUDA(cudaEventSynchronize(ev[4]));
        LSC_CUDA(cudaMemcpy(&o->info, dinfo, sizeof(int), cudaMemcpyDeviceToHost));
        o->iterations = niters;
        if (r >= 0) {
            th[r] = lsc_elapsed(ev[0], ev[1]);
            tf[r] = lsc_elapsed(ev[1], ev[2]);
            ts[r] = lsc_elapsed(ev[2], ev[3]);
            td[r] = lsc_elapsed(ev[3], ev[4]);
        }
        if (r < repeat - 1) /* restore B: the solve overwrote the host copy */
            for (size_t i = 0; i < nb; i++)
                fp64 ? (void)(((double *)hB)[i] = q->B[i]) : (void)(((float *)hB)[i] = (float)q->B[i]);
    }
    for (size_t i = 0; i < nb; i++)
        o->X[i] = fp64 ? ((double *)hB)[i] : (double)((float *)hB)[i];
    o->t_h2d = median(th, repeat);
    o->t_factor = median(tf, repeat);
    o->t_solve = median(ts, repeat);
    o->t_d2h = median(td, repeat);
done:
    for (int i = 0; i < 5; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    if (iparams)
        cusolverDnIRSParamsDestroy(iparams);
    if (iinfos)
        cusolverDnIRSInfosDestroy(iinfos);
    if (params)
        cusolverDnDestroyParams(params);
    if (h)
        cusolverDnDestroy(h);
    cudaFree(dA), cudaFree(dB), cudaFree(dX), cudaFree(dwork), cudaFree(dipiv), cudaFree(dinfo);
    free(hwork), free(hA), free(hB);
    return st;
}
