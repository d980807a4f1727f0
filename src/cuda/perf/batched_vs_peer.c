/* batched_vs_peer (core/perf/perf_batched.h): our batched gesv against cuBLAS
 * getrfBatched + getrsBatched and, when asked, cuSOLVER getrf + getrs
 * looped over the systems; same stream, device events, interleaved runs,
 * each from a pristine stack with L2 flushed. Also the device-to-device
 * copy bandwidth, measured here so the floor comes from the same run. */
#include <cusolverDn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/batched/batched_cuda.h"
#include "cuda/common/cuda_backend.h"
#include "cuda/batched/k_batched.h"
#include "core/batched.h"
#include "core/perf/perf_batched.h"
#include "cuda/perf/batched_perf.h"
#include "cuda/perf/perf.h"

#define MAX_REP 200
#define CUSOLVER_MAX_REP 3
#define FLUSH_BYTES ((size_t)256 << 20) /* five times H100's L2; halves for the copy */
#define SLACK_BYTES ((size_t)128 << 20)
#define CHECK_EACH_END 32 /* systems checked at each end of the stack */

enum { OURS, CUBLAS, CUSOLVER };

typedef struct bvp {
    ls_cuda_ctx *c;
    int fp64, n, batch;
    size_t es, na, nb;
    void *A0, *B0, *A, *B, *flush;
    int *ipiv, *info;
    void **Ap, **Bp;
    cusolverDnHandle_t h;
    cusolverDnParams_t params;
    void *dwork, *hwork;
    size_t dsize, hsize;
    int64_t *ipiv64;
    cudaEvent_t ev[2];
} bvp;

/* Pristine A and b, info zeroed, L2 flushed, the stream drained. */
static int restore(bvp *p, char *err, size_t errlen)
{
    int st = 0;
    cudaStream_t s = p->c->stream;
    LSC_CUDA(cudaMemcpyAsync(p->A, p->A0, p->na * p->es, cudaMemcpyDeviceToDevice, s));
    LSC_CUDA(cudaMemcpyAsync(p->B, p->B0, p->nb * p->es, cudaMemcpyDeviceToDevice, s));
    LSC_CUDA(cudaMemsetAsync(p->info, 0, sizeof(int) * (size_t)p->batch, s));
    LSC_CUDA(cudaMemsetAsync(p->flush, 0, FLUSH_BYTES, s));
    LSC_CUDA(cudaStreamSynchronize(s));
done:
    return st;
}

static int run_ours(bvp *p, char *err, size_t errlen)
{
    ls_batched_job j;
    memset(&j, 0, sizeof j);
    j.op = LS_BATCHED_GESV;
    j.prec = p->fp64 ? LS_DOUBLE : LS_SINGLE;
    j.device = 1;
    j.trans = 'N';
    j.n = p->n, j.nrhs = 1, j.batch = p->batch;
    j.A = p->A, j.a_rs = 1, j.a_cs = p->n, j.strideA = (long long)p->n * p->n;
    j.ipiv = p->ipiv;
    j.B = p->B, j.b_rs = 1, j.b_cs = p->n, j.strideB = p->n;
    j.info = p->info;
    return lsc_batched(p->c, &j, err, errlen);
}

static int run_cublas(bvp *p, char *err, size_t errlen)
{
    int st = 0, hinfo = 0, n = p->n;
    cublasHandle_t h = p->c->blas;
    if (p->fp64) {
        LSC_BLAS(cublasDgetrfBatched(h, n, (double *const *)p->Ap, n, p->ipiv, p->info, p->batch));
        LSC_BLAS(cublasDgetrsBatched(h, CUBLAS_OP_N, n, 1, (const double *const *)p->Ap, n,
                                     p->ipiv, (double *const *)p->Bp, n, &hinfo, p->batch));
    } else {
        LSC_BLAS(cublasSgetrfBatched(h, n, (float *const *)p->Ap, n, p->ipiv, p->info, p->batch));
        LSC_BLAS(cublasSgetrsBatched(h, CUBLAS_OP_N, n, 1, (const float *const *)p->Ap, n,
                                     p->ipiv, (float *const *)p->Bp, n, &hinfo, p->batch));
    }
    if (hinfo != 0)
        st = LSC_FAIL(err, errlen, LS_EDEVICE, "cublasXgetrsBatched: argument %d", -hinfo);
done:
    return st;
}

static int run_cusolver(bvp *p, char *err, size_t errlen)
{
    int st = 0, n = p->n;
    cudaDataType dt = p->fp64 ? CUDA_R_64F : CUDA_R_32F;
    for (int b = 0; b < p->batch; b++) {
        char *A = (char *)p->A + (size_t)b * n * n * p->es;
        char *B = (char *)p->B + (size_t)b * n * p->es;
        LSC_SOLVER(cusolverDnXgetrf(p->h, p->params, n, n, dt, A, n, p->ipiv64, dt, p->dwork,
                                    p->dsize, p->hwork, p->hsize, p->info + b));
        LSC_SOLVER(cusolverDnXgetrs(p->h, p->params, CUBLAS_OP_N, n, 1, dt, A, n, p->ipiv64, dt,
                                    B, n, p->info + b));
    }
done:
    return st;
}

static int timed(bvp *p, int who, double *t, char *err, size_t errlen)
{
    int st = 0;
    LSC_TRY(restore(p, err, errlen));
    LSC_CUDA(cudaEventRecord(p->ev[0], p->c->stream));
    LSC_TRY(who == OURS     ? run_ours(p, err, errlen)
            : who == CUBLAS ? run_cublas(p, err, errlen)
                            : run_cusolver(p, err, errlen));
    LSC_CUDA(cudaEventRecord(p->ev[1], p->c->stream));
    LSC_CUDA(cudaEventSynchronize(p->ev[1]));
    *t = lsc_elapsed(p->ev[0], p->ev[1]);
done:
    return st;
}

/* Device-to-device copy of half the flush buffer into the other half. */
static int copy_bandwidth(bvp *p, double *gbps, char *err, size_t errlen)
{
    int st = 0;
    double t[7];
    size_t half = FLUSH_BYTES / 2;
    for (int r = 0; r < 8; r++) {
        LSC_CUDA(cudaEventRecord(p->ev[0], p->c->stream));
        LSC_CUDA(cudaMemcpyAsync(p->flush, (char *)p->flush + half, half,
                                 cudaMemcpyDeviceToDevice, p->c->stream));
        LSC_CUDA(cudaEventRecord(p->ev[1], p->c->stream));
        LSC_CUDA(cudaEventSynchronize(p->ev[1]));
        if (r > 0) /* the first is the warm-up */
            t[r - 1] = lsc_elapsed(p->ev[0], p->ev[1]);
    }
    *gbps = 2.0 * (double)half / lsc_median(t, 7) / 1e9;
done:
    return st;
}

/* One system's scaled residual from host copies in the working precision. */
static double residual(const bvp *p, const char *A, const char *b, const char *x)
{
    int n = p->n;
    double anorm = 0, xnorm = 0, rnorm = 0;
#define V(base, k) (p->fp64 ? ((const double *)(base))[k] : (double)((const float *)(base))[k])
    for (int i = 0; i < n; i++) {
        double r = V(b, i), row = 0;
        for (int j = 0; j < n; j++) {
            r -= V(A, i + (size_t)j * n) * V(x, j);
            row += fabs(V(A, i + (size_t)j * n));
        }
        if (isnan(r))
            return INFINITY;
        rnorm = fabs(r) > rnorm ? fabs(r) : rnorm;
        anorm = row > anorm ? row : anorm;
        xnorm = fabs(V(x, i)) > xnorm ? fabs(V(x, i)) : xnorm;
    }
#undef V
    double d = n * anorm * xnorm * ls_eps(p->fp64 ? LS_DOUBLE : LS_SINGLE);
    return rnorm == 0 ? 0 : d > 0 ? rnorm / d : INFINITY;
}

/* After a final run of `who`: singular count and the worst residual over
 * the first and last systems. */
static int judge(bvp *p, int who, int *singular, double *worst, int *checked, char *err,
                 size_t errlen)
{
    int st = 0, n = p->n;
    int *info = malloc(sizeof(int) * (size_t)p->batch);
    char *A = malloc(p->es * (size_t)n * n), *b = malloc(p->es * n), *x = malloc(p->es * n);
    if (!info || !A || !b || !x) {
        st = LSC_FAIL(err, errlen, LS_ENOMEM, "batched_vs_peer: host buffers");
        goto done;
    }
    double t;
    LSC_TRY(timed(p, who, &t, err, errlen));
    LSC_CUDA(cudaMemcpy(info, p->info, sizeof(int) * (size_t)p->batch, cudaMemcpyDeviceToHost));
    *singular = 0;
    for (int k = 0; k < p->batch; k++)
        *singular += info[k] > 0;
    *worst = 0, *checked = 0;
    for (int k = 0; k < p->batch; k++) {
        if (k >= CHECK_EACH_END && k < p->batch - CHECK_EACH_END)
            continue;
        if (info[k] != 0)
            continue;
        size_t offA = (size_t)k * n * n * p->es, offb = (size_t)k * n * p->es;
        LSC_CUDA(cudaMemcpy(A, (char *)p->A0 + offA, p->es * (size_t)n * n, cudaMemcpyDeviceToHost));
        LSC_CUDA(cudaMemcpy(b, (char *)p->B0 + offb, p->es * n, cudaMemcpyDeviceToHost));
        LSC_CUDA(cudaMemcpy(x, (char *)p->B + offb, p->es * n, cudaMemcpyDeviceToHost));
        double r = residual(p, A, b, x);
        *worst = r > *worst || isnan(r) ? r : *worst;
        (*checked)++;
    }
done:
    free(info), free(A), free(b), free(x);
    return st;
}

static int setup(bvp *p, const ls_perf_batched_in *q, ls_perf_batched_out *o, char *err,
                 size_t errlen)
{
    int st = 0;
    size_t free_b = 0, total_b = 0;
    cudaDataType dt = p->fp64 ? CUDA_R_64F : CUDA_R_32F;
    if (q->cusolver) {
        LSC_SOLVER(cusolverDnCreate(&p->h));
        LSC_SOLVER(cusolverDnSetStream(p->h, p->c->stream));
        LSC_SOLVER(cusolverDnCreateParams(&p->params));
        LSC_SOLVER(cusolverDnXgetrf_bufferSize(p->h, p->params, p->n, p->n, dt, NULL, p->n, dt,
                                               &p->dsize, &p->hsize));
    }
    LSC_CUDA(cudaMemGetInfo(&free_b, &total_b));
    o->need_bytes = 2 * (p->na + p->nb) * p->es + (size_t)p->batch * (p->n + 1) * sizeof(int) +
                    2 * (size_t)p->batch * sizeof(void *) + FLUSH_BYTES + p->dsize + SLACK_BYTES;
    o->free_bytes = free_b;
    if (o->need_bytes > free_b) {
        st = LSC_FAIL(err, errlen, LS_EDEVMEM, "n=%d batch=%d needs %.2f GB, %.2f GB free",
                      p->n, p->batch, o->need_bytes / 1e9, free_b / 1e9);
        goto done;
    }
    if (p->hsize && !(p->hwork = malloc(p->hsize))) {
        st = LSC_FAIL(err, errlen, LS_ENOMEM, "batched_vs_peer: cuSOLVER host workspace");
        goto done;
    }
    LSC_TRY(lsc_malloc(&p->A0, p->na, p->es, err, errlen));
    LSC_TRY(lsc_malloc(&p->A, p->na, p->es, err, errlen));
    LSC_TRY(lsc_malloc(&p->B0, p->nb, p->es, err, errlen));
    LSC_TRY(lsc_malloc(&p->B, p->nb, p->es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&p->ipiv, (size_t)p->batch * p->n, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc((void **)&p->info, (size_t)p->batch, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc((void **)&p->Ap, (size_t)p->batch, sizeof(void *), err, errlen));
    LSC_TRY(lsc_malloc((void **)&p->Bp, (size_t)p->batch, sizeof(void *), err, errlen));
    LSC_TRY(lsc_malloc(&p->flush, FLUSH_BYTES, 1, err, errlen));
    if (q->cusolver) {
        LSC_TRY(lsc_malloc((void **)&p->ipiv64, (size_t)p->n, sizeof(int64_t), err, errlen));
        LSC_TRY(lsc_malloc(&p->dwork, p->dsize ? p->dsize : 1, 1, err, errlen));
    }
    LSC_CUDA(cudaEventCreate(&p->ev[0]));
    LSC_CUDA(cudaEventCreate(&p->ev[1]));
    if (p->fp64) {
        LSC_CUDA(lsc_perf_bgen_d(p->A0, p->na, 12345u + (uint64_t)p->n, p->c->stream));
        LSC_CUDA(lsc_perf_bgen_d(p->B0, p->nb, 777u + (uint64_t)p->n, p->c->stream));
        LSC_CUDA(lsk_bpointers_d(p->A, (long long)p->n * p->n, p->batch, (double **)p->Ap,
                                 p->c->stream));
        LSC_CUDA(lsk_bpointers_d(p->B, p->n, p->batch, (double **)p->Bp, p->c->stream));
    } else {
        LSC_CUDA(lsc_perf_bgen_s(p->A0, p->na, 12345u + (uint64_t)p->n, p->c->stream));
        LSC_CUDA(lsc_perf_bgen_s(p->B0, p->nb, 777u + (uint64_t)p->n, p->c->stream));
        LSC_CUDA(lsk_bpointers_s(p->A, (long long)p->n * p->n, p->batch, (float **)p->Ap,
                                 p->c->stream));
        LSC_CUDA(lsk_bpointers_s(p->B, p->n, p->batch, (float **)p->Bp, p->c->stream));
    }
    LSC_CUDA(cudaStreamSynchronize(p->c->stream));
done:
    return st;
}

static void teardown(bvp *p)
{
    for (int i = 0; i < 2; i++)
        if (p->ev[i])
            cudaEventDestroy(p->ev[i]);
    if (p->params)
        cusolverDnDestroyParams(p->params);
    if (p->h)
        cusolverDnDestroy(p->h);
    cudaFree(p->A0), cudaFree(p->A), cudaFree(p->B0), cudaFree(p->B), cudaFree(p->ipiv);
    cudaFree(p->info), cudaFree(p->Ap), cudaFree(p->Bp), cudaFree(p->flush);
    cudaFree(p->ipiv64), cudaFree(p->dwork);
    free(p->hwork);
}

int lsc_perf_batched_vs_peer(void *bctx, const ls_perf_batched_in *q, ls_perf_batched_out *o,
                             char *err, size_t errlen)
{
    int st = 0, repeat = q->repeat < 1 ? 1 : (q->repeat > MAX_REP ? MAX_REP : q->repeat);
    double *t[3] = {NULL, NULL, NULL}, warm = 0;
    bvp p;
    memset(&p, 0, sizeof p);
    memset(o, 0, sizeof *o);
    if (q->n < 1 || q->batch < 1 || (q->prec != LS_DOUBLE && q->prec != LS_SINGLE))
        return LSC_FAIL(err, errlen, LS_EINVAL, "batched_vs_peer: n=%d batch=%d", q->n, q->batch);
    p.c = (ls_cuda_ctx *)bctx;
    p.fp64 = q->prec == LS_DOUBLE;
    p.n = q->n, p.batch = q->batch;
    p.es = p.fp64 ? sizeof(double) : sizeof(float);
    p.na = (size_t)q->batch * q->n * q->n;
    p.nb = (size_t)q->batch * q->n;
    for (int k = 0; k < 3; k++)
        if (!(t[k] = malloc(sizeof(double) * (size_t)repeat))) {
            st = LSC_FAIL(err, errlen, LS_ENOMEM, "batched_vs_peer: timings");
            goto done;
        }
    LSC_TRY(setup(&p, q, o, err, errlen));
    LSC_TRY(copy_bandwidth(&p, &o->copy_gbps, err, errlen));
    o->bytes = 2.0 * (double)(p.na + p.nb) * p.es;
    LSC_TRY(timed(&p, OURS, &warm, err, errlen));
    LSC_TRY(timed(&p, CUBLAS, &warm, err, errlen));
    for (int r = 0; r < repeat; r++) {
        LSC_TRY(timed(&p, OURS, &t[OURS][r], err, errlen));
        LSC_TRY(timed(&p, CUBLAS, &t[CUBLAS][r], err, errlen));
    }
    o->runs = repeat;
    o->t_ours = lsc_median(t[OURS], repeat);
    o->t_cublas = lsc_median(t[CUBLAS], repeat);
    if (q->cusolver) {
        int rs = repeat < CUSOLVER_MAX_REP ? repeat : CUSOLVER_MAX_REP;
        LSC_TRY(timed(&p, CUSOLVER, &warm, err, errlen));
        for (int r = 0; r < rs; r++)
            LSC_TRY(timed(&p, CUSOLVER, &t[CUSOLVER][r], err, errlen));
        o->t_cusolver = lsc_median(t[CUSOLVER], rs);
    }
    LSC_TRY(judge(&p, OURS, &o->singular_ours, &o->res_ours, &o->checked, err, errlen));
    LSC_TRY(judge(&p, CUBLAS, &o->singular_cublas, &o->res_cublas, &o->checked, err, errlen));
done:
    teardown(&p);
    free(t[0]), free(t[1]), free(t[2]);
    return st;
}
