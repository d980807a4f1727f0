/* solve_bicgstab.c's solver for one precision (REAL, FN: typed.h),
 * instantiated there for double and float.
 * Defines: none (every function and object here is static) */
typedef struct FN(bicg) {
    ls_cuda_ctx *c;
    int n;
    size_t es;
    const REAL *A;
    REAL *vec[V_COUNT];
    REAL *partials, *scal; /* dot products land in scal[0..3] */
    char *err;
    size_t errlen;
} FN(bicg);

/* Dot products x_i . y_i into scal[i]; copies them to host doubles. */
static int FN(dots)(FN(bicg) *b, int count, const REAL *const *xs, const REAL *const *ys,
                    double *out)
{
    int st = 0;
    char *err = b->err;
    size_t errlen = b->errlen;
    REAL host[4];
    for (int i = 0; i < count; i++)
        LSC_CUDA(FN(lsk_dot)(b->n, xs[i], ys[i], b->partials, b->scal + i, b->c->stream));
    LSC_CUDA(cudaMemcpyAsync(host, b->scal, (size_t)count * b->es, cudaMemcpyDeviceToHost,
                             b->c->stream));
    LSC_CUDA(cudaStreamSynchronize(b->c->stream));
    for (int i = 0; i < count; i++)
        out[i] = (double)host[i];
done:
    return st;
}

static int FN(norm2)(FN(bicg) *b, const REAL *x, double *out)
{
    const REAL *xs[1] = {x};
    int st = FN(dots)(b, 1, xs, xs, out);
    if (st == 0)
        *out = sqrt(fabs(*out));
    return st;
}

/* r = b - A x: the true residual. */
static int FN(true_residual)(FN(bicg) *b, const REAL *db, const REAL *dx, REAL *r, double *rnorm)
{
    int st = 0;
    char *err = b->err;
    size_t errlen = b->errlen;
    LSC_CUDA(FN(lsk_matvec)(b->n, b->A, b->n, dx, r, b->c->stream));
    LSC_CUDA(FN(lsk_axpbypcz)(b->n, 1.0, db, -1.0, r, 0.0, NULL, r, b->c->stream));
    LSC_TRY(FN(norm2)(b, r, rnorm));
done:
    return st;
}

/* Solve A x = db for one column; x starts at 0. hist[it] = max(hist[it], ||r||/||b||). */
static int FN(solve_one)(FN(bicg) *b, const ls_job *job, const REAL *db, REAL *dx, double *hist,
                         bicg_result *res)
{
    int st = 0, n = b->n;
    char *err = b->err;
    size_t errlen = b->errlen;
    REAL **v = b->vec;
    double eps = LSC_IS_DOUBLE ? 1.1102230246251565e-16 : 5.9604644775390625e-08;
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
    LSC_TRY(FN(norm2)(b, db, &bnorm));
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
        const REAL *x1[1] = {v[V_R0]}, *y1[1] = {v[V_R]};
        LSC_TRY(FN(dots)(b, 1, x1, y1, &rho));
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
            LSC_CUDA(FN(lsk_axpbypcz)(n, 1.0, v[V_R], beta, v[V_P], -beta * omega, v[V_V], v[V_P],
                                      b->c->stream));
        }
        LSC_CUDA(FN(lsk_matvec)(n, b->A, n, v[V_P], v[V_V], b->c->stream));
        const REAL *y2[1] = {v[V_V]};
        LSC_TRY(FN(dots)(b, 1, x1, y2, &den));
        if (den == 0.0 || !isfinite(den)) {
            res->status = LS_BREAKDOWN;
            break;
        }
        alpha = rho / den;
        /* s = r - alpha v */
        LSC_CUDA(FN(lsk_axpbypcz)(n, 1.0, v[V_R], -alpha, v[V_V], 0.0, NULL, v[V_S],
                                  b->c->stream));
        LSC_CUDA(FN(lsk_matvec)(n, b->A, n, v[V_S], v[V_T], b->c->stream));
        const REAL *x3[2] = {v[V_T], v[V_T]}, *y3[2] = {v[V_T], v[V_S]};
        LSC_TRY(FN(dots)(b, 2, x3, y3, tt_ts));
        omega = tt_ts[0] > 0.0 ? tt_ts[1] / tt_ts[0] : 0.0;
        /* x += alpha p + omega s ; r = s - omega t */
        LSC_CUDA(FN(lsk_axpbypcz)(n, 1.0, dx, alpha, v[V_P], omega, v[V_S], dx, b->c->stream));
        LSC_CUDA(FN(lsk_axpbypcz)(n, 1.0, v[V_S], -omega, v[V_T], 0.0, NULL, v[V_R],
                                  b->c->stream));
        LSC_TRY(FN(norm2)(b, v[V_R], &rnorm));
        res->iterations = it;
        if (!isfinite(rnorm)) {
            res->status = LS_BREAKDOWN;
            break;
        }
        if (rnorm / bnorm > hist[it - 1])
            hist[it - 1] = rnorm / bnorm;
        if (rnorm <= fmax(stop_rel * bnorm, job->atol)) {
            double tnorm;
            LSC_TRY(FN(true_residual)(b, db, dx, v[V_R], &tnorm));
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
        LSC_TRY(FN(true_residual)(b, db, dx, v[V_R], &tnorm));
        res->true_rel = tnorm / bnorm;
    }
done:
    return st;
}

static int FN(solve_bicgstab)(ls_cuda_ctx *c, const ls_job *job, ls_report *rep, char *err,
                              size_t errlen)
{
    int st = 0, n = job->n, nrhs = job->nrhs, worst = 0, max_its = 0;
    size_t es = sizeof(REAL);
    cudaStream_t s = c->stream;
    REAL *dA = NULL, *dB = NULL, *dX = NULL;
    double *hist = NULL, worst_rel = 0.0;
    FN(bicg) b;
    memset(&b, 0, sizeof b);
    b.c = c;
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
    LSC_TRY(lsc_malloc((void **)&dA, (size_t)n * n, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&dB, (size_t)n * nrhs, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&dX, (size_t)n * nrhs, es, err, errlen));
    for (int i = 0; i < V_COUNT; i++)
        LSC_TRY(lsc_malloc((void **)&b.vec[i], (size_t)n, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&b.partials, LSK_DOT_BLOCKS, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&b.scal, 4, es, err, errlen));
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
        LSC_TRY(FN(solve_one)(&b, job, dB + (size_t)r * n, dX + (size_t)r * n, hist, &res));
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
