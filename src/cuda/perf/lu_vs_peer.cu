/* "lu_vs_peer": our getrf + getrs on device memory against cuSOLVER's
 * Xgetrf + Xgetrs, both timed in this process on the backend's stream
 * (issue 10's lu-vs-cusolver table). The matrix is uploaded once; every run
 * starts from a pristine device copy restored off the clock, and the runs
 * alternate ours / peer so that clock or thermal drift hits both alike. */
#include <cusolverDn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda_backend.h"
#include "../../core/perf.h"
#include "perf.h"

#define MAX_REP 1000
/* Beyond A, its copy and cuSOLVER's workspace: our leaves' workspace, cuBLAS's
 * and the right-hand sides; generous, since the check only guards a refusal. */
#define SLACK_BYTES ((size_t)256 << 20)
/* Floats converted per host-to-device copy when the matrix goes up in FP32. */
#define STAGE_ELEMS ((size_t)1 << 24)

enum { OURS = 0, PEER = 1 };

/* Weak until getrs.c is linked into the plugin: dlopen (RTLD_NOW) refuses a
 * plugin with an undefined strong symbol, which would take the whole CUDA
 * backend down; a weak one is NULL instead, and the request says so. */
extern "C" int lsc_getrs_device(ls_cuda_ctx *c, ls_precision p, char trans, int n, int nrhs,
                                const void *dA, int lda, const int *d_ipiv, void *dB, int ldb,
                                char *err, size_t errlen) __attribute__((weak));

typedef struct lvp {
    ls_cuda_ctx *c;
    ls_precision prec; /* the cuSOLVER peer takes it as a cudaDataType */
    int n;
    size_t es, nn;
    void *dA, *dA0, *dB0, *dX[2]; /* dX: each side's right-hand side / solution */
    int *ipiv;                    /* ours, 32-bit, 1-based */
    int64_t *ipiv64;              /* cuSOLVER's */
    int *info;                    /* [OURS], [PEER] */
    cusolverDnHandle_t h;
    cusolverDnParams_t params;
    void *dwork, *hwork;
    size_t dsize, hsize;
    cudaEvent_t ev[2];
} lvp;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median, min and max of v (sorted in place). */
static void stats(double *v, int n, double *med, double *lo, double *hi)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    *med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    *lo = v[0];
    *hi = v[n - 1];
}

/* Host doubles to device memory in the working precision; FP32 goes through
 * a bounded staging buffer so that no second host matrix is needed. */
static int upload(const lvp *p, void *dst, const double *src, size_t count, char *err,
                  size_t errlen)
{
    int st = 0;
    float *stage = NULL;
    if (p->prec == LS_DOUBLE) {
        LSC_CUDA(cudaMemcpy(dst, src, count * sizeof(double), cudaMemcpyHostToDevice));
        return 0;
    }
    stage = (float *)malloc((count < STAGE_ELEMS ? count : STAGE_ELEMS) * sizeof(float) + 1);
    if (!stage)
        return LSC_FAIL(err, errlen, LS_ENOMEM, "lu_vs_peer: host staging buffer");
    for (size_t at = 0; at < count; at += STAGE_ELEMS) {
        size_t len = count - at < STAGE_ELEMS ? count - at : STAGE_ELEMS;
        for (size_t i = 0; i < len; i++)
            stage[i] = (float)src[at + i];
        LSC_CUDA(cudaMemcpy((float *)dst + at, stage, len * sizeof(float),
                            cudaMemcpyHostToDevice));
    }
done:
    free(stage);
    return st;
}

/* Back to the pristine A and b, info zeroed, and the stream drained: the
 * timed region then starts from an idle device, as a caller's solve does. */
static int restore(const lvp *p, int who, char *err, size_t errlen)
{
    int st = 0;
    cudaStream_t s = p->c->stream;
    LSC_CUDA(cudaMemcpyAsync(p->dA, p->dA0, p->nn * p->es, cudaMemcpyDeviceToDevice, s));
    LSC_CUDA(cudaMemcpyAsync(p->dX[who], p->dB0, (size_t)p->n * p->es, cudaMemcpyDeviceToDevice,
                             s));
    LSC_CUDA(cudaMemsetAsync(p->info + who, 0, sizeof(int), s));
    LSC_CUDA(cudaStreamSynchronize(s));
done:
    return st;
}

static int solve_ours(lvp *p, char *err, size_t errlen)
{
    int st = lsc_getrf_device(p->c, p->prec, p->n, p->n, p->dA, p->n, p->ipiv, p->info + OURS,
                              err, errlen);
    if (st == 0)
        st = lsc_getrs_device(p->c, p->prec, 'N', p->n, 1, p->dA, p->n, p->ipiv, p->dX[OURS],
                              p->n, err, errlen);
    return st;
}

static int solve_peer(lvp *p, char *err, size_t errlen)
{
    int st = 0;
    cudaDataType dt = p->prec == LS_DOUBLE ? CUDA_R_64F : CUDA_R_32F;
    LSC_SOLVER(cusolverDnXgetrf(p->h, p->params, p->n, p->n, dt, p->dA, p->n, p->ipiv64, dt,
                                p->dwork, p->dsize, p->hwork, p->hsize, p->info + PEER));
    LSC_SOLVER(cusolverDnXgetrs(p->h, p->params, CUBLAS_OP_N, p->n, 1, dt, p->dA, p->n, p->ipiv64,
                                dt, p->dX[PEER], p->n, p->info + PEER));
done:
    return st;
}

/* One run of one side: seconds between two events around factor + solve. */
static int timed_run(lvp *p, int who, double *t, int *info, char *err, size_t errlen)
{
    int st = 0, inf = 0;
    LSC_TRY(restore(p, who, err, errlen));
    LSC_CUDA(cudaEventRecord(p->ev[0], p->c->stream));
    LSC_TRY(who == OURS ? solve_ours(p, err, errlen) : solve_peer(p, err, errlen));
    LSC_CUDA(cudaEventRecord(p->ev[1], p->c->stream));
    LSC_CUDA(cudaEventSynchronize(p->ev[1]));
    *t = lsc_elapsed(p->ev[0], p->ev[1]);
    LSC_CUDA(cudaMemcpy(&inf, p->info + who, sizeof(int), cudaMemcpyDeviceToHost));
    if (*info == 0)
        *info = inf;
done:
    return st;
}

/* One side's last solution, back on the host in FP64. */
static int fetch_x(const lvp *p, int who, double *x, char *err, size_t errlen)
{
    int st = 0;
    LSC_CUDA(cudaMemcpy(x, p->dX[who], (size_t)p->n * p->es, cudaMemcpyDeviceToHost));
    if (p->prec != LS_DOUBLE) /* widen in place, from the back so no float is overwritten unread */
        for (int i = p->n - 1; i >= 0; i--)
            x[i] = (double)((float *)x)[i];
done:
    return st;
}

static double norm_inf(const double *v, int n, int *nan_seen)
{
    double m = 0.0;
    for (int i = 0; i < n; i++) {
        *nan_seen |= isnan(v[i]);
        m = fabs(v[i]) > m ? fabs(v[i]) : m;
    }
    return m;
}

/* ||b - A x||inf / (n ||A||inf ||x||inf eps) for both solutions in one
 * pass over A by columns (unit stride): at n = 32768 A is 8.6 GB, and a
 * row-wise norm over it would take longer than the timed runs. */
static void residuals(int n, const double *A, const double *b, double *const x[2], double eps,
                      double *w, double res[2])
{
    double *r[2] = {w, w + n}, *rowsum = w + 2 * (size_t)n;
    for (int i = 0; i < n; i++)
        r[0][i] = r[1][i] = b[i], rowsum[i] = 0.0;
    for (int k = 0; k < n; k++) {
        const double *a = A + (size_t)k * n;
        double x0 = x[0][k], x1 = x[1][k];
        for (int i = 0; i < n; i++) {
            r[0][i] -= a[i] * x0;
            r[1][i] -= a[i] * x1;
            rowsum[i] += fabs(a[i]);
        }
    }
    int nan_a = 0;
    double anorm = norm_inf(rowsum, n, &nan_a);
    for (int s = 0; s < 2; s++) {
        int nan_seen = nan_a;
        double rnorm = norm_inf(r[s], n, &nan_seen), xnorm = norm_inf(x[s], n, &nan_seen);
        double denom = (double)n * anorm * xnorm * eps;
        if (nan_seen)
            res[s] = NAN;
        else if (rnorm == 0.0)
            res[s] = 0.0;
        else if (denom == 0.0 || !isfinite(denom))
            res[s] = INFINITY;
        else
            res[s] = rnorm / denom;
    }
}

/* The handle and workspace query, then the memory check, then the buffers. */
static int setup(lvp *p, const ls_perf_lu_vs_peer_in *q, ls_perf_lu_vs_peer_out *o, char *err,
                 size_t errlen)
{
    int st = 0;
    size_t nb = (size_t)p->n * p->es, free_b = 0, total_b = 0;
    cudaDataType dt = p->prec == LS_DOUBLE ? CUDA_R_64F : CUDA_R_32F;
    LSC_SOLVER(cusolverDnCreate(&p->h));
    LSC_SOLVER(cusolverDnSetStream(p->h, p->c->stream));
    LSC_SOLVER(cusolverDnCreateParams(&p->params));
    /* A size query: cuSOLVER reads neither A nor its contents here. */
    LSC_SOLVER(cusolverDnXgetrf_bufferSize(p->h, p->params, p->n, p->n, dt, NULL, p->n, dt,
                                           &p->dsize, &p->hsize));
    LSC_CUDA(cudaMemGetInfo(&free_b, &total_b));
    o->need_bytes = 2 * p->nn * p->es + 3 * nb + (size_t)p->n * (sizeof(int) + sizeof(int64_t)) +
                    p->dsize + SLACK_BYTES;
    o->free_bytes = free_b;
    if (o->need_bytes > free_b) {
        st = LSC_FAIL(err, errlen, LS_EDEVMEM,
                      "n=%d %s needs %.2f GB of device memory (A and its pristine copy %.2f GB, "
                      "cuSOLVER workspace %.3f GB), %.2f GB free of %.2f GB",
                      p->n, ls_precision_name(q->prec), o->need_bytes / 1e9,
                      2.0 * p->nn * p->es / 1e9, p->dsize / 1e9, free_b / 1e9, total_b / 1e9);
        goto done;
    }
    if (p->hsize && !(p->hwork = malloc(p->hsize))) {
        st = LSC_FAIL(err, errlen, LS_ENOMEM, "lu_vs_peer: cuSOLVER host workspace");
        goto done;
    }
    LSC_TRY(lsc_malloc(&p->dA, p->nn, p->es, err, errlen));
    LSC_TRY(lsc_malloc(&p->dA0, p->nn, p->es, err, errlen));
    LSC_TRY(lsc_malloc(&p->dB0, (size_t)p->n, p->es, err, errlen));
    LSC_TRY(lsc_malloc(&p->dX[OURS], (size_t)p->n, p->es, err, errlen));
    LSC_TRY(lsc_malloc(&p->dX[PEER], (size_t)p->n, p->es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&p->ipiv, (size_t)p->n, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc((void **)&p->ipiv64, (size_t)p->n, sizeof(int64_t), err, errlen));
    LSC_TRY(lsc_malloc((void **)&p->info, 2, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc(&p->dwork, p->dsize ? p->dsize : 1, 1, err, errlen));
    LSC_CUDA(cudaEventCreate(&p->ev[0]));
    LSC_CUDA(cudaEventCreate(&p->ev[1]));
    LSC_TRY(upload(p, p->dA0, q->A, p->nn, err, errlen));
    LSC_TRY(upload(p, p->dB0, q->b, (size_t)p->n, err, errlen));
done:
    return st;
}

static void teardown(lvp *p)
{
    for (int i = 0; i < 2; i++)
        if (p->ev[i])
            cudaEventDestroy(p->ev[i]);
    if (p->params)
        cusolverDnDestroyParams(p->params);
    if (p->h)
        cusolverDnDestroy(p->h);
    cudaFree(p->dA), cudaFree(p->dA0), cudaFree(p->dB0), cudaFree(p->dX[OURS]);
    cudaFree(p->dX[PEER]), cudaFree(p->ipiv), cudaFree(p->ipiv64), cudaFree(p->info);
    cudaFree(p->dwork);
    free(p->hwork);
}

extern "C" int lsc_perf_lu_vs_peer(void *bctx, const ls_perf_lu_vs_peer_in *q,
                                   ls_perf_lu_vs_peer_out *o, char *err, size_t errlen)
{
    int st = 0, n = q->n;
    int repeat = q->repeat < 1 ? 1 : (q->repeat > MAX_REP ? MAX_REP : q->repeat);
    double *t[2] = {NULL, NULL}, *x[2] = {NULL, NULL}, *w = NULL, warm = 0.0, res[2];
    lvp p;
    memset(&p, 0, sizeof p);
    memset(o, 0, sizeof *o);
    snprintf(o->ours, sizeof o->ours, "%s", "lsc_getrf_device+lsc_getrs_device");
    snprintf(o->peer, sizeof o->peer, "%s", "cusolverDnXgetrf+Xgetrs");
    if (n < 1 || !q->A || !q->b || (q->prec != LS_DOUBLE && q->prec != LS_SINGLE))
        return LSC_FAIL(err, errlen, LS_EINVAL, "lu_vs_peer: bad arguments n=%d", n);
    if (!lsc_getrs_device)
        return LSC_FAIL(err, errlen, LS_EUNSUPPORTED,
                        "lu_vs_peer: lsc_getrs_device (src/cuda/getrs.c) is not in this plugin");
    p.c = (ls_cuda_ctx *)bctx;
    p.prec = q->prec;
    p.n = n;
    p.es = p.prec == LS_DOUBLE ? sizeof(double) : sizeof(float);
    p.nn = (size_t)n * (size_t)n;
    t[OURS] = (double *)malloc(sizeof(double) * (size_t)repeat);
    t[PEER] = (double *)malloc(sizeof(double) * (size_t)repeat);
    x[OURS] = (double *)malloc(sizeof(double) * (size_t)n);
    x[PEER] = (double *)malloc(sizeof(double) * (size_t)n);
    w = (double *)malloc(3 * sizeof(double) * (size_t)n);
    if (!t[OURS] || !t[PEER] || !x[OURS] || !x[PEER] || !w) {
        st = LSC_FAIL(err, errlen, LS_ENOMEM, "lu_vs_peer: out of host memory");
        goto done;
    }
    LSC_TRY(setup(&p, q, o, err, errlen));
    /* One warm-up of each (our leaves' workspace and cuSOLVER's first-call
     * costs land there), then ours, peer, ours, peer, ... */
    LSC_TRY(timed_run(&p, OURS, &warm, &o->info_ours, err, errlen));
    LSC_TRY(timed_run(&p, PEER, &warm, &o->info_peer, err, errlen));
    for (int r = 0; r < repeat; r++) {
        LSC_TRY(timed_run(&p, OURS, &t[OURS][r], &o->info_ours, err, errlen));
        LSC_TRY(timed_run(&p, PEER, &t[PEER][r], &o->info_peer, err, errlen));
    }
    o->runs = repeat;
    stats(t[OURS], repeat, &o->t_ours, &o->t_ours_min, &o->t_ours_max);
    stats(t[PEER], repeat, &o->t_peer, &o->t_peer_min, &o->t_peer_max);
    LSC_TRY(fetch_x(&p, OURS, x[OURS], err, errlen));
    LSC_TRY(fetch_x(&p, PEER, x[PEER], err, errlen));
    residuals(n, q->A, q->b, x, ls_eps(q->prec), w, res);
    o->res_ours = res[OURS], o->res_peer = res[PEER];
done:
    teardown(&p);
    free(t[OURS]), free(t[PEER]), free(x[OURS]), free(x[PEER]), free(w);
    return st;
}
