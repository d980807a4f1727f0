/* The seed methods: ge-naive, ge-blocked, ge-coalesced (seed 000, back
 * substitution of seed 004), gj1, gj2 (seed 003) on the row-major augmented
 * matrix, and lu-seed (seed 002) on the column-major matrix. Pivots and the
 * singularity flag stay on the device: the loops only enqueue launches; the
 * host waits once, after the elimination, to read info. */
#include "cuda_backend.h"
#include "kernels.h"

#include <stdio.h>
#include <string.h>

/* Where the 2-D grids of one-thread-per-element kernels stop fitting. */
#define LSC_SEED_MAX_N (65535 * LSK_ELEM_Y)

static int is_augmented_method(ls_method m)
{
    return m == LS_METHOD_GE_NAIVE || m == LS_METHOD_GE_BLOCKED ||
           m == LS_METHOD_GE_COALESCED || m == LS_METHOD_GJ1 || m == LS_METHOD_GJ2;
}

/* Pivot search over rows [k, n) of column k, or, without pivoting, over
 * row k alone: that still records a zero pivot in info. */
static cudaError_t pivot_step(int dbl, int n, int k, int pivot, void *dM, long long rs,
                              long long cs, int *d_ipiv, int *d_info, cudaStream_t s)
{
    int rows_end = pivot == LS_PIVOT_NONE ? k + 1 : n;
    return lsk_pivot_search(dbl, rows_end, k, dM, rs, cs, d_ipiv, d_info, s);
}

static int eliminate_augmented(ls_cuda_ctx *c, const ls_job *job, void *dM, int *d_ipiv,
                               int *d_info, char *err, size_t errlen)
{
    int st = 0, dbl = job->prec == LS_DOUBLE, n = job->n, w = n + job->nrhs;
    long long ldm = w;
    cudaStream_t s = c->stream;
    for (int k = 0; k < n; k++) {
        LSC_CUDA(pivot_step(dbl, n, k, job->pivot, dM, ldm, 1, d_ipiv, d_info, s));
        if (job->pivot != LS_PIVOT_NONE)
            LSC_CUDA(lsk_swap_rows(dbl, k, k, w, dM, ldm, 1, d_ipiv, s));
        switch (job->method) {
        case LS_METHOD_GE_NAIVE: LSC_CUDA(lsk_ge_naive_step(dbl, n, w, dM, ldm, k, s)); break;
        case LS_METHOD_GE_BLOCKED: LSC_CUDA(lsk_ge_blocked_step(dbl, n, w, dM, ldm, k, s)); break;
        case LS_METHOD_GJ2:
            /* model 2: rows above and below the pivot in one pass */
            LSC_CUDA(lsk_elim_elements(dbl, n, w, dM, ldm, k, 0, n, k + 1, s));
            break;
        default: /* ge-coalesced and gj1's forward pass */
            LSC_CUDA(lsk_elim_elements(dbl, n, w, dM, ldm, k, k + 1, n, k + 1, s));
            break;
        }
    }
    if (job->method == LS_METHOD_GJ1)
        /* model 1, backward pass: row k is now zero right of the diagonal in
         * A, so only the right-hand-side columns of the rows above change. */
        for (int k = n - 1; k > 0; k--)
            LSC_CUDA(lsk_elim_elements(dbl, n, w, dM, ldm, k, 0, k, n, s));
done:
    return st;
}

static int eliminate_lu_seed(ls_cuda_ctx *c, const ls_job *job, void *dA, void *dB, int *d_ipiv,
                             int *d_info, char *err, size_t errlen)
{
    int st = 0, dbl = job->prec == LS_DOUBLE, n = job->n;
    cudaStream_t s = c->stream;
    for (int k = 0; k < n; k++) {
        LSC_CUDA(pivot_step(dbl, n, k, job->pivot, dA, 1, n, d_ipiv, d_info, s));
        if (job->pivot != LS_PIVOT_NONE) {
            /* the seed swaps whole rows: L's computed part, U and B */
            LSC_CUDA(lsk_swap_rows(dbl, k, 0, n, dA, 1, n, d_ipiv, s));
            LSC_CUDA(lsk_swap_rows(dbl, k, 0, job->nrhs, dB, 1, n, d_ipiv, s));
        }
        LSC_CUDA(lsk_seed_multipliers(dbl, n, dA, n, k, s));
        LSC_CUDA(lsk_seed_update(dbl, n, dA, n, k, s));
    }
done:
    return st;
}

int lsc_solve_seed(ls_cuda_ctx *c, const ls_job *job, ls_report *rep, char *err, size_t errlen)
{
    int st = 0, info = 0, dbl = job->prec == LS_DOUBLE;
    int n = job->n, nrhs = job->nrhs, augmented = is_augmented_method(job->method);
    size_t es = lsc_elem_size(job->prec);
    cudaStream_t s = c->stream;
    void *dA = NULL, *dB = NULL, *dM = NULL;
    int *d_ipiv = NULL, *d_info = NULL;

    if (n > LSC_SEED_MAX_N)
        return LSC_FAIL(err, errlen, LS_ELIMIT, "%s handles n <= %d (grid limit), not %d",
                        ls_method_name(job->method), LSC_SEED_MAX_N, n);
    LSC_TRY(lsc_malloc(&dA, (size_t)n * n, es, err, errlen));
    LSC_TRY(lsc_malloc(&dB, (size_t)n * nrhs, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_ipiv, (size_t)n, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc((void **)&d_info, 1, sizeof(int), err, errlen));
    if (augmented)
        LSC_TRY(lsc_malloc(&dM, (size_t)n * (n + nrhs), es, err, errlen));

    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_START], s));
    LSC_CUDA(cudaMemcpy2DAsync(dA, (size_t)n * es, job->A, (size_t)job->lda * es, (size_t)n * es,
                               (size_t)n, cudaMemcpyHostToDevice, s));
    LSC_CUDA(cudaMemcpy2DAsync(dB, (size_t)n * es, job->B, (size_t)job->ldb * es, (size_t)n * es,
                               (size_t)nrhs, cudaMemcpyHostToDevice, s));
    LSC_CUDA(cudaMemsetAsync(d_info, 0, sizeof(int), s));
    /* The transpose into the row-major [A | B] is part of getting the data
     * onto the device in the seeds' layout, so it is counted in t_h2d. */
    if (augmented)
        LSC_CUDA(lsk_build_augmented(dbl, n, nrhs, dA, n, dB, n, dM, n + nrhs, s));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_H2D], s));

    if (augmented)
        LSC_TRY(eliminate_augmented(c, job, dM, d_ipiv, d_info, err, errlen));
    else
        LSC_TRY(eliminate_lu_seed(c, job, dA, dB, d_ipiv, d_info, err, errlen));
    LSC_CUDA(cudaEventRecord(c->ev[LSC_EV_FACTOR], s));
    LSC_CUDA(cudaMemcpyAsync(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaStreamSynchronize(s));

    if (info == 0) {
        if (job->method == LS_METHOD_GJ1 || job->method == LS_METHOD_GJ2) {
            LSC_CUDA(lsk_extract_rhs(dbl, n, nrhs, dM, n + nrhs, 1, dB, n, s));
        } else if (augmented) {
            LSC_CUDA(lsk_extract_rhs(dbl, n, nrhs, dM, n + nrhs, 0, dB, n, s));
            LSC_CUDA(lsk_trsv_tree(dbl, n, nrhs, dM, n + nrhs, 1, 0, 0, dB, n, s));
        } else {
            LSC_CUDA(lsk_trsv_tree(dbl, n, nrhs, dA, 1, n, 1, 1, dB, n, s));
            LSC_CUDA(lsk_trsv_tree(dbl, n, nrhs, dA, 1, n, 0, 0, dB, n, s));
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
