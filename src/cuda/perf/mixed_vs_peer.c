/* mixed_vs_peer (core/perf/perf_mixed.h): our mixed-precision solve against
 * cuSOLVER's FP64 dgetrf + dgetrs and its IRS solvers, on one device
 * matrix, in this process, on the backend's stream. Runs of ours and of
 * dgetrf alternate, so that clock or thermal drift hits both alike; each
 * IRS configuration is timed in turn and the fastest one that solves the
 * system (scaled residual <= 30) is kept. */
#include <cusolverDn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/common/cuda_backend.h"
#include "cuda/mixed/k_mixed.h"
#include "cuda/mixed/mixed_cuda.h"
#include "core/perf/perf_mixed.h"
#include "cuda/perf/k_mixed_gen.h"
#include "cuda/perf/perf.h"

#define MVP_MAX_REP 100

typedef struct mvp {
    ls_cuda_ctx *c;
    const ls_perf_mixed_in *in;
    int n;
    double *dA0, *dA, *dB, *dX, *dR; /* pristine A, working A, b, x, residual */
    int *ipiv, *info;
    unsigned long long *bits;
    double anorm;
    cusolverDnHandle_t h;
    double *work; /* dgetrf's */
    int lwork;
    cudaEvent_t ev[2];
} mvp;

/* randsvd on the device: Q1 diag(s) Q2^T with Q1, Q2 the Q factors of two
 * normal matrices; normal: the entries alone. */
static int generate(mvp *p, char *err, size_t errlen)
{
    int st = 0, n = p->n, lw1 = 0, lw2 = 0;
    size_t nn = (size_t)n * (size_t)n;
    double *Q1 = NULL, *Q2 = NULL, *tau = NULL, *w = NULL;
    cudaStream_t s = p->c->stream;
    if (p->in->matrix == LS_PERF_MX_NORMAL) {
        LSC_CUDA(lsk_gen_normal(n, n, p->dA0, n, p->in->seed, s));
        return 0;
    }
    LSC_TRY(lsc_malloc((void **)&Q1, nn, sizeof(double), err, errlen));
    LSC_TRY(lsc_malloc((void **)&Q2, nn, sizeof(double), err, errlen));
    LSC_TRY(lsc_malloc((void **)&tau, (size_t)n, sizeof(double), err, errlen));
    LSC_CUDA(lsk_gen_normal(n, n, Q1, n, p->in->seed, s));
    LSC_CUDA(lsk_gen_normal(n, n, Q2, n, p->in->seed + 0x5bd1e995ULL, s));
    LSC_SOLVER(cusolverDnDgeqrf_bufferSize(p->h, n, n, Q1, n, &lw1));
    LSC_SOLVER(cusolverDnDorgqr_bufferSize(p->h, n, n, n, Q1, n, tau, &lw2));
    lw1 = lw1 > lw2 ? lw1 : lw2;
    LSC_TRY(lsc_malloc((void **)&w, (size_t)lw1, sizeof(double), err, errlen));
    for (int k = 0; k < 2; k++) {
        double *Q = k ? Q2 : Q1;
        LSC_SOLVER(cusolverDnDgeqrf(p->h, n, n, Q, n, tau, w, lw1, p->info));
        LSC_SOLVER(cusolverDnDorgqr(p->h, n, n, n, Q, n, tau, w, lw1, p->info));
    }
    LSC_CUDA(lsk_gen_scale_cols(n, n, Q1, n, p->in->cond, s));
    const double one = 1, zero = 0;
    LSC_BLAS(cublasDgemm(p->c->blas, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, Q1, n, Q2, n, &zero,
                         p->dA0, n));
    LSC_CUDA(cudaStreamSynchronize(s));
done:
    cudaFree(Q1);
    cudaFree(Q2);
    cudaFree(tau);
    cudaFree(w);
    return st;
}

/* ||b - A0 x||inf / (n ||A0||inf ||x||inf eps) of the current dX. */
static int residual(mvp *p, double *res, char *err, size_t errlen)
{
    int st = 0, n = p->n;
    const double minus = -1, one = 1;
    unsigned long long h[2] = {0, 0};
    double rn = 0, xn = 0;
    cudaStream_t s = p->c->stream;
    LSC_CUDA(cudaMemcpyAsync(p->dR, p->dB, (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice,
                             s));
    LSC_BLAS(cublasDgemv(p->c->blas, CUBLAS_OP_N, n, n, &minus, p->dA0, n, p->dX, 1, &one, p->dR,
                         1));
    LSC_CUDA(cudaMemsetAsync(p->bits, 0, 2 * sizeof *p->bits, s));
    LSC_CUDA(lsk_mx_norm_inf(n, 1, p->dR, n, p->bits, s));
    LSC_CUDA(lsk_mx_norm_inf(n, 1, p->dX, n, p->bits + 1, s));
    LSC_CUDA(cudaMemcpyAsync(h, p->bits, sizeof h, cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaStreamSynchronize(s));
    memcpy(&rn, &h[0], sizeof rn);
    memcpy(&xn, &h[1], sizeof xn);
    *res = rn == 0 ? 0 : rn / ((double)n * p->anorm * xn * 0x1p-53);
    if (!isfinite(xn) || isnan(rn))
        *res = NAN;
done:
    return st;
}

/* Pristine A, x = b (getrs solves in place), the stream drained. */
static int restore(mvp *p, char *err, size_t errlen)
{
    int st = 0;
    size_t nn = (size_t)p->n * (size_t)p->n;
    cudaStream_t s = p->c->stream;
    LSC_CUDA(cudaMemcpyAsync(p->dA, p->dA0, nn * sizeof(double), cudaMemcpyDeviceToDevice, s));
    LSC_CUDA(cudaMemcpyAsync(p->dX, p->dB, (size_t)p->n * sizeof(double),
                             cudaMemcpyDeviceToDevice, s));
    LSC_CUDA(cudaStreamSynchronize(s));
done:
    return st;
}

enum { OURS = 0, DGETRF = 1, IRS = 2 };

typedef struct irs_cfg {
    cusolverPrecType_t low;
    cusolverIRSRefinement_t ref;
    const char *name;
} irs_cfg;

static const irs_cfg irs_cfgs[] = {
    {CUSOLVER_R_32F, CUSOLVER_IRS_REFINE_CLASSICAL, "IRS fp32/classical"},
    {CUSOLVER_R_32F, CUSOLVER_IRS_REFINE_GMRES, "IRS fp32/gmres"},
    {CUSOLVER_R_TF32, CUSOLVER_IRS_REFINE_CLASSICAL, "IRS tf32/classical"},
    {CUSOLVER_R_TF32, CUSOLVER_IRS_REFINE_GMRES, "IRS tf32/gmres"},
    {CUSOLVER_R_16F, CUSOLVER_IRS_REFINE_CLASSICAL, "IRS fp16/classical"},
    {CUSOLVER_R_16F, CUSOLVER_IRS_REFINE_GMRES, "IRS fp16/gmres"},
    {CUSOLVER_R_16BF, CUSOLVER_IRS_REFINE_CLASSICAL, "IRS bf16/classical"},
    {CUSOLVER_R_16BF, CUSOLVER_IRS_REFINE_GMRES, "IRS bf16/gmres"},
};
#define MVP_NIRS (int)(sizeof irs_cfgs / sizeof irs_cfgs[0])

typedef struct irs_run {
    cusolverDnIRSParams_t params;
    cusolverDnIRSInfos_t infos;
    void *work;
    size_t bytes;
    int niters;
} irs_run;

/* One solve of one kind; *t its event time. */
static int run_one(mvp *p, int who, irs_run *ir, ls_perf_mixed_out *o, double *t, char *err,
                   size_t errlen)
{
    int st = 0, n = p->n;
    LSC_TRY(restore(p, err, errlen));
    LSC_CUDA(cudaEventRecord(p->ev[0], p->c->stream));
    if (who == OURS) {
        ls_mixed_opts opts;
        ls_mixed_opts_init(&opts);
        opts.factor = p->in->factor;
        opts.pivot = p->in->pivot;
        ls_mixed_problem pb = {n, 1, p->dA, n, p->ipiv, p->dB, n, p->dX, n, opts.factor,
                               opts.restart, opts.pivot};
        const ls_mixed_ops *ops = NULL;
        void *ws = NULL;
        LSC_TRY(lsc_mixed_open(p->c, &pb, &ops, &ws, err, errlen));
        o->status_mixed = ls_mixed_run(ops, ws, &pb, &opts, &o->mixed, err, errlen);
        ops->close(ws);
        if (o->status_mixed < 0) {
            st = o->status_mixed;
            goto done;
        }
    } else if (who == DGETRF) {
        LSC_SOLVER(cusolverDnDgetrf(p->h, n, n, p->dA, n, p->work, p->ipiv, p->info));
        LSC_SOLVER(cusolverDnDgetrs(p->h, CUBLAS_OP_N, n, 1, p->dA, n, p->ipiv, p->dX, n,
                                    p->info));
    } else {
        LSC_SOLVER(cusolverDnIRSXgesv(p->h, ir->params, ir->infos, n, 1, p->dA, n, p->dB, n,
                                      p->dX, n, ir->work, ir->bytes, &ir->niters, p->info));
    }
    LSC_CUDA(cudaEventRecord(p->ev[1], p->c->stream));
    LSC_CUDA(cudaEventSynchronize(p->ev[1]));
    *t = lsc_elapsed(p->ev[0], p->ev[1]);
done:
    return st;
}

/* Ours and dgetrf, alternating: one warm-up each, then repeat runs. */
static int time_ours_and_dgetrf(mvp *p, ls_perf_mixed_out *o, char *err, size_t errlen)
{
    int st = 0, rep = p->in->repeat;
    double t[2][MVP_MAX_REP], w = 0;
    LSC_TRY(run_one(p, OURS, NULL, o, &w, err, errlen));
    LSC_TRY(run_one(p, DGETRF, NULL, o, &w, err, errlen));
    for (int r = 0; r < rep; r++) {
        LSC_TRY(run_one(p, OURS, NULL, o, &t[OURS][r], err, errlen));
        if (r == rep - 1)
            LSC_TRY(residual(p, &o->res_mixed, err, errlen));
        LSC_TRY(run_one(p, DGETRF, NULL, o, &t[DGETRF][r], err, errlen));
        if (r == rep - 1)
            LSC_TRY(residual(p, &o->res_dgetrf, err, errlen));
    }
    o->t_mixed = lsc_median(t[OURS], rep);
    o->t_dgetrf = lsc_median(t[DGETRF], rep);
    o->runs = rep;
done:
    return st;
}

/* One IRS configuration: 0 with its median, or a status (then skipped). */
static int time_irs(mvp *p, const irs_cfg *cfg, double *med, double *res, int *niters,
                    char *err, size_t errlen)
{
    int st = 0, rep = p->in->repeat;
    double t[MVP_MAX_REP], w = 0;
    irs_run ir;
    memset(&ir, 0, sizeof ir);
    LSC_SOLVER(cusolverDnIRSParamsCreate(&ir.params));
    LSC_SOLVER(cusolverDnIRSInfosCreate(&ir.infos));
    LSC_SOLVER(cusolverDnIRSParamsSetSolverPrecisions(ir.params, CUSOLVER_R_64F, cfg->low));
    LSC_SOLVER(cusolverDnIRSParamsSetRefinementSolver(ir.params, cfg->ref));
    LSC_SOLVER(cusolverDnIRSXgesv_bufferSize(p->h, ir.params, p->n, 1, &ir.bytes));
    LSC_TRY(lsc_malloc(&ir.work, ir.bytes ? ir.bytes : 1, 1, err, errlen));
    LSC_TRY(run_one(p, IRS, &ir, NULL, &w, err, errlen));
    for (int r = 0; r < rep; r++)
        LSC_TRY(run_one(p, IRS, &ir, NULL, &t[r], err, errlen));
    LSC_TRY(residual(p, res, err, errlen));
    *niters = ir.niters;
    *med = lsc_median(t, rep);
done:
    cudaFree(ir.work);
    if (ir.infos)
        cusolverDnIRSInfosDestroy(ir.infos);
    if (ir.params)
        cusolverDnIRSParamsDestroy(ir.params);
    return st;
}

static int open_case(mvp *p, char *err, size_t errlen)
{
    int st = 0, n = p->n;
    size_t nn = (size_t)n * (size_t)n;
    LSC_TRY(lsc_malloc((void **)&p->dA0, nn, sizeof(double), err, errlen));
    LSC_TRY(lsc_malloc((void **)&p->dA, nn, sizeof(double), err, errlen));
    LSC_TRY(lsc_malloc((void **)&p->dB, 3 * (size_t)n, sizeof(double), err, errlen));
    p->dX = p->dB + n;
    p->dR = p->dX + n;
    LSC_TRY(lsc_malloc((void **)&p->ipiv, (size_t)n + 1, sizeof(int), err, errlen));
    p->info = p->ipiv + n;
    LSC_TRY(lsc_malloc((void **)&p->bits, 2, sizeof *p->bits, err, errlen));
    LSC_SOLVER(cusolverDnCreate(&p->h));
    LSC_SOLVER(cusolverDnSetStream(p->h, p->c->stream));
    LSC_CUDA(cudaEventCreate(&p->ev[0]));
    LSC_CUDA(cudaEventCreate(&p->ev[1]));
    LSC_TRY(generate(p, err, errlen));
    LSC_CUDA(lsk_gen_normal(n, 1, p->dB, n, p->in->seed + 17, p->c->stream));
    unsigned long long h = 0;
    LSC_CUDA(cudaMemsetAsync(p->bits, 0, sizeof h, p->c->stream));
    LSC_CUDA(lsk_mx_norm_inf(n, n, p->dA0, n, p->bits, p->c->stream));
    LSC_CUDA(cudaMemcpyAsync(&h, p->bits, sizeof h, cudaMemcpyDeviceToHost, p->c->stream));
    LSC_SOLVER(cusolverDnDgetrf_bufferSize(p->h, n, n, p->dA, n, &p->lwork));
    LSC_TRY(lsc_malloc((void **)&p->work, (size_t)p->lwork + 1, sizeof(double), err, errlen));
    LSC_CUDA(cudaStreamSynchronize(p->c->stream));
    memcpy(&p->anorm, &h, sizeof p->anorm);
done:
    return st;
}

static void close_case(mvp *p)
{
    cudaStreamSynchronize(p->c->stream);
    cudaFree(p->dA0);
    cudaFree(p->dA);
    cudaFree(p->dB);
    cudaFree(p->ipiv);
    cudaFree(p->bits);
    cudaFree(p->work);
    if (p->h)
        cusolverDnDestroy(p->h);
    if (p->ev[0])
        cudaEventDestroy(p->ev[0]);
    if (p->ev[1])
        cudaEventDestroy(p->ev[1]);
}

int lsc_perf_mixed_vs_peer(void *bctx, const ls_perf_mixed_in *in, ls_perf_mixed_out *o,
                           char *err, size_t errlen)
{
    mvp p;
    int st = 0;
    memset(o, 0, sizeof *o);
    memset(&p, 0, sizeof p);
    o->t_irs = o->res_irs = NAN;
    if (in->n < 1 || in->repeat < 1 || in->repeat > MVP_MAX_REP)
        return LSC_FAIL(err, errlen, LS_EINVAL, "mixed_vs_peer: n = %d, repeat = %d", in->n,
                        in->repeat);
    p.c = (ls_cuda_ctx *)bctx;
    p.in = in;
    p.n = in->n;
    LSC_TRY(open_case(&p, err, errlen));
    LSC_TRY(time_ours_and_dgetrf(&p, o, err, errlen));
    snprintf(o->irs_name, sizeof o->irs_name, "none solved");
    for (int k = 0; k < MVP_NIRS; k++) {
        double med = NAN, res = NAN;
        int it = 0;
        char why[LS_ERRLEN];
        o->irs_tried++;
        if (time_irs(&p, &irs_cfgs[k], &med, &res, &it, why, sizeof why) != 0) {
            (void)cudaGetLastError(); /* a configuration the library refuses: skipped */
            continue;
        }
        if (!(res <= 30))
            continue;
        o->irs_ok++;
        if (isnan(o->t_irs) || med < o->t_irs) {
            o->t_irs = med;
            o->res_irs = res;
            o->irs_iters = it;
            snprintf(o->irs_name, sizeof o->irs_name, "%s", irs_cfgs[k].name);
        }
    }
done:
    close_case(&p);
    return st;
}
