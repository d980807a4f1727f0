/* "lu_vs_peer": our solve of A x = b on device memory against cuSOLVER's
 * Xgetrf + Xgetrs, both timed in this process on the backend's stream. Ours
 * is lsc_gesv_device, the path of every front end's solve (ls_?gesv_gpu,
 * the host gesv, Python): one launch of the small-n kernel where it takes
 * the system, else our getrf and getrs queued back to back. The
 * matrix is uploaded once; every run starts from a pristine device copy
 * restored off the clock, and the runs alternate ours first-call, ours
 * replay, peer, so that clock or thermal drift hits all three alike.
 *
 * Two kinds of our runs, because the CUDA backend replays a captured graph
 * when the same shape is solved again on the same pointers (lu_graph.c):
 * - replay: the same A, ipiv, info and b every run, as a caller solving in
 *   place again does; after two warm-ups every timed run is a graph launch;
 * - first call: A, ipiv, info and b allocated afresh for each run (freed
 *   after it, off the clock), as a program that solves a new array does.
 *   The graph cache's key holds A's address, so an address it has seen
 *   could be replayed: cudaMalloc may hand a freed block back, so the run
 *   steps A's start by 256 bytes inside a slightly larger block until its
 *   address is one no earlier run of this request used. */
#include <cusolverDn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/common/cuda_backend.h"
#include "core/perf/perf.h"
#include "cuda/perf/perf.h"

#define MAX_REP 1000
/* Beyond A, its copy and cuSOLVER's workspace: our leaves' workspace, cuBLAS's
 * and the right-hand sides; generous, since the check only guards a refusal. */
#define SLACK_BYTES ((size_t)256 << 20)
/* Floats converted per host-to-device copy when the matrix goes up in FP32. */
#define STAGE_ELEMS ((size_t)1 << 24)
/* Step between candidate starts of a first call's A: cudaMalloc's alignment,
 * so the matrix keeps the alignment a fresh allocation has. */
#define FRESH_STEP 256

enum { FIRST = 2 }; /* our first-call runs, beside OURS and PEER */

enum { OURS = 0, PEER = 1 };

/* Weak until getrs.c is linked into the plugin: dlopen (RTLD_NOW) refuses a
 * plugin with an undefined strong symbol, which would take the whole CUDA
 * backend down; a weak one is NULL instead, and the request says so. */
extern "C" int lsc_gesv_device(ls_cuda_ctx *c, ls_precision p, int n, int nrhs, void *dA, int lda,
                               int *d_ipiv, int *d_info, void *dB, int ldb, int *fused, char *err,
                               size_t errlen) __attribute__((weak));

typedef struct lvp {
    ls_cuda_ctx *c;
    ls_precision prec; /* the cuSOLVER peer takes it as a cudaDataType */
    int n;
    size_t es, nn;
    void *dA, *dA0, *dB0, *dX[3]; /* dX: each run kind's right-hand side / solution */
    int *ipiv;                    /* ours, 32-bit, 1-based */
    int64_t *ipiv64;              /* cuSOLVER's */
    int *info;                    /* [OURS], [PEER]; first calls have their own */
    cusolverDnHandle_t h;
    cusolverDnParams_t params;
    void *dwork, *hwork;
    size_t dsize, hsize;
    cudaEvent_t ev[2];
    uintptr_t *used; /* addresses a first call's A has had: never one twice */
    int nused, max_used;
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

/* Buffers of one first call: A (at a start no earlier run used), ipiv, info
 * and b, filled from the pristine copies, the stream drained. */
typedef struct fresh {
    void *block, *A, *X;
    int *ipiv, *info;
} fresh;

static void fresh_free(fresh *f)
{
    cudaFree(f->block), cudaFree(f->X), cudaFree(f->ipiv), cudaFree(f->info);
    memset(f, 0, sizeof *f);
}

static int fresh_make(lvp *p, fresh *f, char *err, size_t errlen)
{
    int st = 0;
    size_t steps = (size_t)p->max_used + 1; /* one more start than addresses to avoid */
    cudaStream_t s = p->c->stream;
    memset(f, 0, sizeof *f);
    LSC_TRY(lsc_malloc(&f->block, p->nn * p->es + steps * FRESH_STEP, 1, err, errlen));
    for (size_t k = 0; k < steps && !f->A; k++) {
        uintptr_t a = (uintptr_t)f->block + k * FRESH_STEP;
        int seen = 0;
        for (int i = 0; i < p->nused && !seen; i++)
            seen = p->used[i] == a;
        if (!seen)
            f->A = (void *)a;
    }
    if (!f->A || p->nused >= p->max_used) { /* cannot happen: steps > nused */
        st = LSC_FAIL(err, errlen, LS_EINTERNAL, "lu_vs_peer: no unused address for A");
        goto done;
    }
    p->used[p->nused++] = (uintptr_t)f->A;
    LSC_TRY(lsc_malloc(&f->X, (size_t)p->n, p->es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&f->ipiv, (size_t)p->n, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc((void **)&f->info, 1, sizeof(int), err, errlen));
    LSC_CUDA(cudaMemcpyAsync(f->A, p->dA0, p->nn * p->es, cudaMemcpyDeviceToDevice, s));
    LSC_CUDA(cudaMemcpyAsync(f->X, p->dB0, (size_t)p->n * p->es, cudaMemcpyDeviceToDevice, s));
    LSC_CUDA(cudaMemsetAsync(f->info, 0, sizeof(int), s));
    LSC_CUDA(cudaStreamSynchronize(s));
done:
    return st;
}

static int solve_ours(lvp *p, void *dA, int *ipiv, int *info, void *dX, char *err,
                      size_t errlen)
{
    int fused = 0;
    return lsc_gesv_device(p->c, p->prec, p->n, 1, dA, p->n, ipiv, info, dX, p->n, &fused, err,
                           errlen);
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

/* One run of one kind: seconds between two events around factor + solve.
 * A first call's solution is copied to dX[FIRST] before its buffers go. */
static int timed_run(lvp *p, int who, double *t, int *info, char *err, size_t errlen)
{
    int st = 0, inf = 0, *d_info = p->info + (who == FIRST ? 0 : who);
    fresh f;
    memset(&f, 0, sizeof f);
    if (who == FIRST) {
        LSC_TRY(fresh_make(p, &f, err, errlen));
        d_info = f.info;
    } else {
        LSC_TRY(restore(p, who, err, errlen));
    }
    LSC_CUDA(cudaEventRecord(p->ev[0], p->c->stream));
    if (who == PEER)
        LSC_TRY(solve_peer(p, err, errlen));
    else if (who == OURS)
        LSC_TRY(solve_ours(p, p->dA, p->ipiv, d_info, p->dX[OURS], err, errlen));
    else
        LSC_TRY(solve_ours(p, f.A, f.ipiv, d_info, f.X, err, errlen));
    LSC_CUDA(cudaEventRecord(p->ev[1], p->c->stream));
    LSC_CUDA(cudaEventSynchronize(p->ev[1]));
    *t = lsc_elapsed(p->ev[0], p->ev[1]);
    LSC_CUDA(cudaMemcpy(&inf, d_info, sizeof(int), cudaMemcpyDeviceToHost));
    if (*info == 0)
        *info = inf;
    if (who == FIRST)
        LSC_CUDA(cudaMemcpy(p->dX[FIRST], f.X, (size_t)p->n * p->es, cudaMemcpyDeviceToDevice));
done:
    fresh_free(&f);
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

/* ||b - A x||inf / (n ||A||inf ||x||inf eps) for the three solutions in
 * one pass over A by columns (unit stride): at n = 32768 A is 8.6 GB, and
 * a row-wise norm over it would take longer than the timed runs. */
static void residuals(int n, const double *A, const double *b, double *const x[3], double eps,
                      double *w, double res[3])
{
    double *r[3] = {w, w + n, w + 2 * (size_t)n}, *rowsum = w + 3 * (size_t)n;
    for (int i = 0; i < n; i++)
        r[0][i] = r[1][i] = r[2][i] = b[i], rowsum[i] = 0.0;
    for (int k = 0; k < n; k++) {
        const double *a = A + (size_t)k * n;
        double x0 = x[0][k], x1 = x[1][k], x2 = x[2][k];
        for (int i = 0; i < n; i++) {
            r[0][i] -= a[i] * x0;
            r[1][i] -= a[i] * x1;
            r[2][i] -= a[i] * x2;
            rowsum[i] += fabs(a[i]);
        }
    }
    int nan_a = 0;
    double anorm = norm_inf(rowsum, n, &nan_a);
    for (int s = 0; s < 3; s++) {
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
    /* A, its pristine copy and a first call's own A; b, three solutions and a
     * first call's b; both pivot vectors and a first call's */
    o->need_bytes = 3 * p->nn * p->es + (size_t)p->max_used * FRESH_STEP + 5 * nb +
                    (size_t)p->n * (2 * sizeof(int) + sizeof(int64_t)) + p->dsize + SLACK_BYTES;
    o->free_bytes = free_b;
    if (o->need_bytes > free_b) {
        st = LSC_FAIL(err, errlen, LS_EDEVMEM,
                      "n=%d %s needs %.2f GB of device memory (A, its pristine copy and a "
                      "first call's A %.2f GB, cuSOLVER workspace %.3f GB), %.2f GB free of "
                      "%.2f GB",
                      p->n, ls_precision_name(q->prec), o->need_bytes / 1e9,
                      3.0 * p->nn * p->es / 1e9, p->dsize / 1e9, free_b / 1e9, total_b / 1e9);
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
    LSC_TRY(lsc_malloc(&p->dX[FIRST], (size_t)p->n, p->es, err, errlen));
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
    cudaFree(p->dX[PEER]), cudaFree(p->dX[FIRST]), cudaFree(p->ipiv), cudaFree(p->ipiv64), cudaFree(p->info);
    cudaFree(p->dwork);
    free(p->hwork);
    free(p->used);
}

extern "C" int lsc_perf_lu_vs_peer(void *bctx, const ls_perf_lu_vs_peer_in *q,
                                   ls_perf_lu_vs_peer_out *o, char *err, size_t errlen)
{
    int st = 0, n = q->n;
    int repeat = q->repeat < 1 ? 1 : (q->repeat > MAX_REP ? MAX_REP : q->repeat);
    double *t[3] = {NULL, NULL, NULL}, *x[3] = {NULL, NULL, NULL}, *w = NULL, warm = 0.0, res[3];
    lvp p;
    memset(&p, 0, sizeof p);
    memset(o, 0, sizeof *o);
    snprintf(o->ours, sizeof o->ours, "%s", "lsc_gesv_device (small-n kernel or getrf+getrs)");
    snprintf(o->peer, sizeof o->peer, "%s", "cusolverDnXgetrf+Xgetrs");
    if (n < 1 || !q->A || !q->b || (q->prec != LS_DOUBLE && q->prec != LS_SINGLE))
        return LSC_FAIL(err, errlen, LS_EINVAL, "lu_vs_peer: bad arguments n=%d", n);
    if (!lsc_gesv_device)
        return LSC_FAIL(err, errlen, LS_EUNSUPPORTED,
                        "lu_vs_peer: lsc_gesv_device (src/cuda/lu/getrs.c) is not in this plugin");
    p.c = (ls_cuda_ctx *)bctx;
    p.prec = q->prec;
    p.n = n;
    p.es = p.prec == LS_DOUBLE ? sizeof(double) : sizeof(float);
    p.nn = (size_t)n * (size_t)n;
    p.max_used = repeat + 1; /* the first-call warm-up and the timed runs */
    p.used = (uintptr_t *)malloc(sizeof(uintptr_t) * (size_t)p.max_used);
    for (int k = 0; k < 3; k++) {
        t[k] = (double *)malloc(sizeof(double) * (size_t)repeat);
        x[k] = (double *)malloc(sizeof(double) * (size_t)n);
    }
    w = (double *)malloc(4 * sizeof(double) * (size_t)n);
    if (!p.used || !t[OURS] || !t[PEER] || !t[FIRST] || !x[OURS] || !x[PEER] || !x[FIRST] || !w) {
        st = LSC_FAIL(err, errlen, LS_ENOMEM, "lu_vs_peer: out of host memory");
        goto done;
    }
    LSC_TRY(setup(&p, q, o, err, errlen));
    /* Warm-ups, off the record: a first call (our workspaces grow, the
     * modules load), two replay calls (the shape is seen, then captured:
     * every later one is a graph launch) and one of cuSOLVER's. Then first,
     * replay, peer, first, replay, peer, ... */
    LSC_TRY(timed_run(&p, FIRST, &warm, &o->info_ours, err, errlen));
    LSC_TRY(timed_run(&p, OURS, &warm, &o->info_ours, err, errlen));
    LSC_TRY(timed_run(&p, OURS, &warm, &o->info_ours, err, errlen));
    LSC_TRY(timed_run(&p, PEER, &warm, &o->info_peer, err, errlen));
    for (int r = 0; r < repeat; r++) {
        LSC_TRY(timed_run(&p, FIRST, &t[FIRST][r], &o->info_ours, err, errlen));
        LSC_TRY(timed_run(&p, OURS, &t[OURS][r], &o->info_ours, err, errlen));
        LSC_TRY(timed_run(&p, PEER, &t[PEER][r], &o->info_peer, err, errlen));
    }
    o->runs = repeat;
    stats(t[FIRST], repeat, &o->t_ours_first, &o->t_ours_first_min, &o->t_ours_first_max);
    stats(t[OURS], repeat, &o->t_ours, &o->t_ours_min, &o->t_ours_max);
    stats(t[PEER], repeat, &o->t_peer, &o->t_peer_min, &o->t_peer_max);
    for (int k = 0; k < 3; k++)
        LSC_TRY(fetch_x(&p, k, x[k], err, errlen));
    residuals(n, q->A, q->b, x, ls_eps(q->prec), w, res);
    /* ours: the worse of its two kinds of run */
    o->res_ours = res[FIRST] > res[OURS] || res[FIRST] != res[FIRST] ? res[FIRST] : res[OURS];
    o->res_peer = res[PEER];
done:
    teardown(&p);
    for (int k = 0; k < 3; k++)
        free(t[k]), free(x[k]);
    free(w);
    return st;
}
