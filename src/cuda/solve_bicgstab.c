/* Method "bicgstab" (seed 001, algorithm 2): unpreconditioned BiCGStab per
 * right-hand side, vectors and the matrix on the device, scalars on the
 * host (the iteration's branches need them there anyway). Convergence is
 * declared only after the true residual b - A x has been recomputed: the
 * recursively updated residual can drift below it. */
#include "cuda_backend.h"
#include "kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { V_R, V_R0, V_P, V_V, V_S, V_T, V_COUNT };

typedef struct bicg {
    ls_cuda_ctx *c;
    int dbl, n;
    size_t es;
    const void *A;
    void *vec[V_COUNT];
    void *partials, *scal; /* dot products land in scal[0..3] */
    char *err;
    size_t errlen;
} bicg;

/* Dot products x_i . y_i into scal[i]; copies them to host doubles. */
static int dots(bicg *b, int count, const void *const *xs, const void *const *ys, double *out)
{
    int st = 0;
    char *err = b->err;
    size_t errlen = b->errlen;
    unsigned char host[4 * sizeof(double)];
    for (int i = 0; i < count; i++)
        LSC_CUDA(lsk_dot(b->dbl, b->n, xs[i], ys[i], b->partials, (char *)b->scal + i * b->es,
                         b->c->stream));
    LSC_CUDA(cudaMemcpyAsync(host, b->scal, (size_t)count * b->es, cudaMemcpyDeviceToHost,
                             b->c->stream));
    LSC_CUDA(cudaStreamSynchronize(b->c->stream));
    for (int i = 0; i < count; i++) {
        if (b->dbl) {
            double v;
            memcpy(&v, host + i * sizeof(double), sizeof v);
            out[i] = v;
        } else {
            float v;
            memcpy(&v, host + i * sizeof(float), sizeof v);
            out[i] = (double)v;
        }
    }
done:
    return st;
}

static int norm2(bicg *b, const void *x, double *out)
{
    const void *xs[1] = {x};
    int st = dots(b, 1, xs, xs, out);
    if (st == 0)
        *out = sqrt(fabs(*out));
    return st;
}

/* r = b - A x: the true residual. */
static int true_residual(bicg *b, const void *db, const void *dx, void *r, double *rnorm)
{
    int st = 0;
    char *err = b->err;
    size_t errlen = b->errlen;
    LSC_CUDA(lsk_matvec(b->dbl, b->n, b->A, b->n, dx, r, b->c->stream));
    LSC_CUDA(lsk_axpbypcz(b->dbl, b->n, 1.0, db, -1.0, r, 0.0, NULL, r, b->c->stream));
    LSC_TRY(norm2(b, r, rnorm));
done:
    return st;
}

typedef struct bicg_result {
    int iterations;
    int status; /* 0, LS_NOT_CONVERGED, LS_BREAKDOWN */
    double true_rel;
} bicg_result;

/* Solve A x = db for one column; x starts at 0. hist[it] = max(hist[it], ||r||/||b||). */
static int solve_one(bicg *b, const ls_job *job, const void *db, void *dx, double *hist,
                     bicg_result *res)
{
    int st = 0, n = b->n;
    char *err = b->err;
    size_t errlen = b->errlen;
    void **v = b->vec;
    double eps = job->prec == LS_SINGLE ? 5.9604644775390625e-08 : 1.1102230246251565e-16;
    double bnorm = 0.0, rnorm = 0.0, rho_old = 1.0, alpha = 1.0, omega = 1.0;
    /* rtol below what the working precision can deliver is raised to it:
     * the recursion stops at 4 sqrt(n) u, and the recomputed true residual
     * (itself carrying about sqrt(n) u ||A|| ||x|| of rounding) is accepted
     * at 16 sqrt(n) u. rtol = 0 thus means "as far as the precision goes". */
    double stop_rel = fmax(job->rtol, 4.0 * sqrt((double)n) * eps);
    double accept_rel = fmax(job->rtol, 16.0 * sqrt((double)n) * eps);
    res->iterations = 0;
    res->status = LS_NOT_CONVERGED;
    res->true_rel = 1.0;

    LSC_CUDA(cudaMemsetAsync(dx, 0, (size_t)n * b->es, b->c->stream));
    LSC_TRY(norm2(b, db, &bnorm));
    if (bnorm == 0.0) { /* x = 0 is exact */
        res->status = 0;
        res->true_rel = 0.0;
        return 0;
    }
    if (!isfinite(bnorm))
        return LSC_FAIL(err, errlen, LS_ENONFINITE, "right-hand side has a non-finite value");
    LSC_CUDA(cudaMemcpyAsync(v[V_R], db, (size_t)n * b->es, cudaMemcpyDeviceToDevice,
                             b->c->stream));
    LSC_CUDA(cudaMemcpyAsync(v[V_R0], db, (size_t)n * b->es, cudaMemcpyDeviceToDevice,
                             b->c->stream));
    int fresh = 1; /* restart: p = r */
    for (int it = 1; it <= job->max_iter; it++) {
        double rho = 0.0, den = 0.0, tt_ts[2] = {0.0, 0.0};
        const void *x1[1] = {v[V_R0]}, *y1[1] = {v[V_R]};
        LSC_TRY(dots(b, 1, x1, y1, &rho));
        if (rho == 0.0 || !isfinite(rho)) {
            res->status = LS_BREAKDOWN;
            break;
        }
        if (fresh) {
            LSC_CUDA(cudaMemcpyAsync(v[V_P], v[V_R], (size_t)n * b->es,
                                     cudaMemcpyDeviceToDevice, b->c->stream));
            fresh = 0;
        } else {
            double beta = (rho / rho_old) * (alpha / omega);
            /* p = r + beta (p - omega v) */
            LSC_CUDA(lsk_axpbypcz(b->dbl, n, 1.0, v[V_R], beta, v[V_P], -beta * omega, v[V_V],
                                  v[V_P], b->c->stream));
        }
        LSC_CUDA(lsk_matvec(b->dbl, n, b->A, n, v[V_P], v[V_V], b->c->stream));
        const void *y2[1] = {v[V_V]};
        LSC_TRY(dots(b, 1, x1, y2, &den));
        if (den == 0.0 || !isfinite(den)) {
            res->status = LS_BREAKDOWN;
            break;
        }
        alpha = rho / den;
        /* s = r - alpha v */
        LSC_CUDA(lsk_axpbypcz(b->dbl, n, 1.0, v[V_R], -alpha, v[V_V], 0.0, NULL, v[V_S],
                              b->c->stream));
        LSC_CUDA(lsk_matvec(b->dbl, n, b->A, n, v[V_S], v[V_T], b->c->stream));
        const void *x3[2] = {v[V_T], v[V_T]}, *y3[2] = {v[V_T], v[V_S]};
        LSC_TRY(dots(b, 2, x3, y3, tt_ts));
        omega = tt_ts[0] > 0.0 ? tt_ts[1] / tt_ts[0] : 0.0;
        /* x += alpha p + omega s ; r = s - omega t */
        LSC_CUDA(lsk_axpbypcz(b->dbl, n, 1.0, dx, alpha, v[V_P], omega, v[V_S], dx,
                              b->c->stream));
        LSC_CUDA(lsk_axpbypcz(b->dbl, n, 1.0, v[V_S], -omega, v[V_T], 0.0, NULL, v[V_R],
                              b->c->stream));
        LSC_TRY(norm2(b, v[V_R], &rnorm));
        res->iterations = it;
        if (!isfinite(rnorm)) {
            res->status = LS_BREAKDOWN;
            break;
        }
        if (rnorm / bnorm > hist[it - 1])
            hist[it - 1] = rnorm / bnorm;
        if (rnorm <= fmax(stop_rel * bnorm, job->atol)) {
            double tnorm;
            LSC_TRY(true_residual(b, db, dx, v[V_R], &tnorm));
            res->true_rel = tnorm / bnorm;
            if (tnorm <= fmax(accept_rel * bnorm, job->atol)) {
                res->status = 0;
                break;
            }
            /* the recursion drifted: restart from the true residual */
            LSC_CUDA(cudaMemcpyAsync(v[V_R0], v[V_R], (size_t)n * b->es,
                                     cudaMemcpyDeviceToDevice, b->c->stream));
            fresh = 1;
        }
        if (omega == 0.0) {
            res->status = LS_BREAKDOWN;
            break;
        }
        rho_old = rho;
    }
    if (res->status != 0) {
        double tnorm;
        LSC_TRY(true_residual(b, db, dx, v[V_R], &tnorm));
        res->true_rel = tnorm / bnorm;
    }
done:
    return st;
}

int lsc_solve_bicgstab(ls_cuda_ctx *c, const ls_job *job, ls_report *rep, char *err,
                       size_t errlen)
{
    int st = 0, n = job->n, nrhs = job->nrhs, worst = 0, max_its = 0;
    size_t es = lsc_elem_size(job->prec);
    cudaStream_t s = c->stream;
    void *dA = NULL, *dB = NULL, *dX = NULL;
    double *hist = NULL, worst_rel = 0.0;
    bicg b;
    memset(&b, 0, sizeof b);
    b.c = c;
    b.dbl = job->prec == LS_DOUBLE;
    b.n = n;
    b.es = es;
    b.err = err;
    b.errlen = errlen;
    if (job->max_iter < 1)
        return LSC_FAIL(err, errlen, LS_EINVAL, "max_iter must be >= 1, not %d", job->max_iter);
    hist = (double *)calloc((size_t)job->max_iter, sizeof(double));
    if (!hist)
        return LSC_FAIL(err, errlen, LS_ENOMEM, "no host memory for %d history entries",
                        job->max_iter);
    LSC_TRY(lsc_malloc(&dA, (size_t)n * n, es, err, errlen));
    LSC_TRY(lsc_malloc(&dB, (size_t)n * nrhs, es, err, errlen));
    LSC_TRY(lsc_malloc(&dX, (size_t)n * nrhs, es, err, errlen));
    for (int i = 0; i < V_COUNT; i++)
        LSC_TRY(lsc_malloc(&b.vec[i], (size_t)n, es, err, errlen));
    LSC_TRY(lsc_malloc(&b.partials, LSK_DOT_BLOCKS, es, err, errlen));
    LSC_TRY(lsc_malloc(&b.scal, 4, es, err, errlen));
    b.A = dA;

    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_START], s));
    LSC_CUDA(cudaMemcpy2DAsync(dA, (size_t)n * es, job->A, (size_t)job->lda * es, (size_t)n * es,
                               (size_t)n, cudaMemcpyHostToDevice, s));
    LSC_CUDA(cudaMemcpy2DAsync(dB, (size_t)n * es, job->B, (size_t)job->ldb * es, (size_t)n * es,
                               (size_t)nrhs, cudaMemcpyHostToDevice, s));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_H2D], s));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_FACTOR], s)); /* no factorization */
    for (int r = 0; r < nrhs; r++) {
        bicg_result res;
        LSC_TRY(solve_one(&b, job, (char *)dB + (size_t)r * n * es, (char *)dX + (size_t)r * n * es,
                          hist, &res));
        if (res.iterations > max_its)
            max_its = res.iterations;
        if (res.true_rel > worst_rel)
            worst_rel = res.true_rel;
        /* breakdown outranks non-convergence in what we report */
        if (res.status == LS_BREAKDOWN || (res.status != 0 && worst == 0))
            worst = res.status;
    }
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_SOLVE], s));
    LSC_CUDA(cudaMemcpy2DAsync(job->B, (size_t)job->ldb * es, dX, (size_t)n * es, (size_t)n * es,
                               (size_t)nrhs, cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_D2H], s));
    LSC_CUDA(cudaStreamSynchronize(s));
    LSC_CUDA(cudaGetLastError());
    if (rep) {
        rep->info = 0;
        rep->iterations = max_its;
        rep->history = hist;
        rep->history_len = max_its;
        hist = NULL;
        rep->t_h2d = lsc_elapsed(c->ev[LSC_EV_START], c->ev[LSC_EV_H2D]);
        rep->t_factor = 0.0;
        rep->t_solve = lsc_elapsed(c->ev[LSC_EV_FACTOR], c->ev[LSC_EV_SOLVE]);
        rep->t_d2h = lsc_elapsed(c->ev[LSC_EV_SOLVE], c->ev[LSC_EV_D2H]);
        snprintf(rep->message, sizeof rep->message,
                 "bicgstab: %s after %d iterations, worst true ||b-Ax||/||b|| = %.3e (history: "
                 "max over right-hand sides)",
                 worst == 0 ? "converged" : worst == LS_BREAKDOWN ? "breakdown" : "not converged",
                 max_its, worst_rel);
    }
    st = worst;
done:
    free(hist);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dX);
    for (int i = 0; i < V_COUNT; i++)
        cudaFree(b.vec[i]);
    cudaFree(b.partials);
    cudaFree(b.scal);
    return st;
}
