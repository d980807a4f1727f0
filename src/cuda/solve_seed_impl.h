/* solve_seed.c's seed methods for one precision (REAL, FN: typed.h),
 * instantiated there for double and float. */
/* Pivot search over rows [k, n) of column k, or, without pivoting, over
 * row k alone: that still records a zero pivot in info. */
static cudaError_t FN(pivot_step)(int n, int k, int pivot, REAL *dM, long long rs,
                                  long long cs, int *d_ipiv, int *d_info, cudaStream_t s)
{
    int rows_end = pivot == LS_PIVOT_NONE ? k + 1 : n;
    return FN(lsk_pivot_search)(rows_end, k, dM, rs, cs, d_ipiv, d_info, s);
}

static int FN(eliminate_augmented)(ls_cuda_ctx *c, const ls_job *job, REAL *dM, int *d_ipiv,
                                   int *d_info, char *err, size_t errlen)
{
    int st = 0, n = job->n, w = n + job->nrhs;
    long long ldm = w;
    cudaStream_t s = c->stream;
    for (int k = 0; k < n; k++) {
        LSC_CUDA(FN(pivot_step)(n, k, job->pivot, dM, ldm, 1, d_ipiv, d_info, s));
        if (job->pivot != LS_PIVOT_NONE)
            LSC_CUDA(FN(lsk_swap_rows)(k, k, w, dM, ldm, 1, d_ipiv, s));
        switch (job->method) {
        case LS_METHOD_GE_NAIVE: LSC_CUDA(FN(lsk_ge_naive_step)(n, w, dM, ldm, k, s)); break;
        case LS_METHOD_GE_BLOCKED: LSC_CUDA(FN(lsk_ge_blocked_step)(n, w, dM, ldm, k, s)); break;
        case LS_METHOD_GJ2:
            /* model 2: rows above and below the pivot in one pass */
            LSC_CUDA(FN(lsk_elim_elements)(n, w, dM, ldm, k, 0, n, k + 1, s));
            break;
        default: /* ge-coalesced and gj1's forward pass */
            LSC_CUDA(FN(lsk_elim_elements)(n, w, dM, ldm, k, k + 1, n, k + 1, s));
            break;
        }
    }
    if (job->method == LS_METHOD_GJ1)
        /* model 1, backward pass: row k is now zero right of the diagonal in
         * A, so only the right-hand-side columns of the rows above change. */
        for (int k = n - 1; k > 0; k--)
            LSC_CUDA(FN(lsk_elim_elements)(n, w, dM, ldm, k, 0, k, n, s));
done:
    return st;
}

static int FN(eliminate_lu_seed)(ls_cuda_ctx *c, const ls_job *job, REAL *dA, REAL *dB,
                                 int *d_ipiv, int *d_info, char *err, size_t errlen)
{
    int st = 0, n = job->n;
    cudaStream_t s = c->stream;
    for (int k = 0; k < n; k++) {
        LSC_CUDA(FN(pivot_step)(n, k, job->pivot, dA, 1, n, d_ipiv, d_info, s));
        if (job->pivot != LS_PIVOT_NONE) {
            /* the seed swaps whole rows: L's computed part, U and B */
            LSC_CUDA(FN(lsk_swap_rows)(k, 0, n, dA, 1, n, d_ipiv, s));
            LSC_CUDA(FN(lsk_swap_rows)(k, 0, job->nrhs, dB, 1, n, d_ipiv, s));
        }
        LSC_CUDA(FN(lsk_seed_multipliers)(n, dA, n, k, s));
        LSC_CUDA(FN(lsk_seed_update)(n, dA, n, k, s));
    }
done:
    return st;
}

static int FN(solve_seed)(ls_cuda_ctx *c, const ls_job *job, ls_report *rep, char *err,
                          size_t errlen)
{
    int st = 0, info = 0;
    int n = job->n, nrhs = job->nrhs, augmented = is_augmented_method(job->method);
    size_t es = sizeof(REAL);
    cudaStream_t s = c->stream;
    REAL *dA = NULL, *dB = NULL, *dM = NULL;
    int *d_ipiv = NULL, *d_info = NULL;

    if (n > LSC_SEED_MAX_N)
        return LSC_FAIL(err, errlen, LS_ELIMIT, "%s handles n <= %d (grid limit), not %d",
                        ls_method_name(job->method), LSC_SEED_MAX_N, n);
    LSC_TRY(lsc_malloc((void **)&dA, (size_t)n * n, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&dB, (size_t)n * nrhs, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_ipiv, (size_t)n, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_info, 1, sizeof(int), err, errlen));
    if (augmented)
        LSC_TRY(lsc_malloc((void **)&dM, (size_t)n * (n + nrhs), es, err, errlen));

    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_START], s));
    LSC_CUDA(cudaMemcpy2DAsync(dA, (size_t)n * es, job->A, (size_t)job->lda * es, (size_t)n * es,
                               (size_t)n, cudaMemcpyHostToDevice, s));
    LSC_CUDA(cudaMemcpy2DAsync(dB, (size_t)n * es, job->B, (size_t)job->ldb * es, (size_t)n * es,
                               (size_t)nrhs, cudaMemcpyHostToDevice, s));
    LSC_CUDA(cudaMemsetAsync(d_info, 0, sizeof(int), s));
    /* The transpose into the row-major [A | B] is part of getting the data
     * onto the device in the seeds' layout, so it is counted in t_h2d. */
    if (augmented)
        LSC_CUDA(FN(lsk_build_augmented)(n, nrhs, dA, n, dB, n, dM, n + nrhs, s));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_H2D], s));

    if (augmented)
        LSC_TRY(FN(eliminate_augmented)(c, job, dM, d_ipiv, d_info, err, errlen));
    else
        LSC_TRY(FN(eliminate_lu_seed)(c, job, dA, dB, d_ipiv, d_info, err, errlen));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_FACTOR], s));
    LSC_CUDA(cudaMemcpyAsync(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaStreamSynchronize(s));

    if (info == 0) {
        if (job->method == LS_METHOD_GJ1 || job->method == LS_METHOD_GJ2) {
            LSC_CUDA(FN(lsk_extract_rhs)(n, nrhs, dM, n + nrhs, 1, dB, n, s));
        } else if (augmented) {
            LSC_CUDA(FN(lsk_extract_rhs)(n, nrhs, dM, n + nrhs, 0, dB, n, s));
            LSC_CUDA(FN(lsk_trsv_tree)(n, nrhs, dM, n + nrhs, 1, 0, 0, dB, n, s));
        } else {
            LSC_CUDA(FN(lsk_trsv_tree)(n, nrhs, dA, 1, n, 1, 1, dB, n, s));
            LSC_CUDA(FN(lsk_trsv_tree)(n, nrhs, dA, 1, n, 0, 0, dB, n, s));
        }
    }
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_SOLVE], s));
    if (info == 0)
        LSC_CUDA(cudaMemcpy2DAsync(job->B, (size_t)job->ldb * es, dB, (size_t)n * es,
                                   (size_t)n * es, (size_t)nrhs, cudaMemcpyDeviceToHost, s));
    if (job->ipiv && n > 0)
        LSC_CUDA(cudaMemcpyAsync(job->ipiv, d_ipiv, (size_t)n * sizeof(int),
                                 cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_D2H], s));
    LSC_CUDA(cudaStreamSynchronize(s));
    LSC_CUDA(cudaGetLastError());

    if (rep) {
        rep->info = info;
        rep->t_h2d = lsc_elapsed(c->ev[LSC_EV_START], c->ev[LSC_EV_H2D]);
        rep->t_factor = lsc_elapsed(c->ev[LSC_EV_H2D], c->ev[LSC_EV_FACTOR]);
        rep->t_solve = lsc_elapsed(c->ev[LSC_EV_FACTOR], c->ev[LSC_EV_SOLVE]);
        rep->t_d2h = lsc_elapsed(c->ev[LSC_EV_SOLVE], c->ev[LSC_EV_D2H]);
        snprintf(rep->message, sizeof rep->message, "%s%s on %s", ls_method_name(job->method),
                 job->pivot == LS_PIVOT_NONE ? " (no pivoting)" : "", c->name);
    }
    st = info;
done:
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dM);
    cudaFree(d_ipiv);
    cudaFree(d_info);
    return st;
}
