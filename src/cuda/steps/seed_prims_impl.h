/* The CUDA primitives of the seed methods that touch elements, for one
 * precision (REAL, SFX: see common/real_macros.h); instantiated twice by
 * seed_prims.c into lsc_seed_ops_d and lsc_seed_ops_s. Every call of the
 * kernels' launchers (kernels.h) for the seed methods is here, the typed
 * launcher of this precision picked by FN.
 * Defines: none (every function and object here is static) */
#include "common/real_macros.h"


static int FN(seed_begin)(void *q, const ls_job *job, char *err, size_t errlen)
{
    lsc_seed *p = q;
    int st = 0, n = job->n, nrhs = job->nrhs;
    const size_t es = sizeof(REAL);
    p->job = job;
    p->augmented = job->method != LS_METHOD_LU_SEED;
    if (n > LSC_SEED_MAX_N)
        return LSC_FAIL(err, errlen, LS_ELIMIT, "%s handles n <= %d (grid limit), not %d",
                        ls_method_name(job->method), LSC_SEED_MAX_N, n);
    LSC_TRY(lsc_malloc(&p->dA, (size_t)n * n, es, err, errlen));
    LSC_TRY(lsc_malloc(&p->dB, (size_t)n * nrhs, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&p->d_ipiv, (size_t)n, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc((void **)&p->d_info, 1, sizeof(int), err, errlen));
    if (p->augmented)
        LSC_TRY(lsc_malloc(&p->dM, (size_t)n * (n + nrhs), es, err, errlen));
done:
    return st;
}

static int FN(seed_upload)(void *q, char *err, size_t errlen)
{
    lsc_seed *p = q;
    const ls_job *job = p->job;
    int st = 0, n = job->n, nrhs = job->nrhs;
    const size_t es = sizeof(REAL);
    cudaStream_t s = p->c->stream;
    REAL *dA = p->dA, *dB = p->dB, *dM = p->dM;
    LSC_CUDA(cudaMemcpy2DAsync(dA, (size_t)n * es, job->A, (size_t)job->lda * es, (size_t)n * es,
                               (size_t)n, cudaMemcpyHostToDevice, s));
    LSC_CUDA(cudaMemcpy2DAsync(dB, (size_t)n * es, job->B, (size_t)job->ldb * es, (size_t)n * es,
                               (size_t)nrhs, cudaMemcpyHostToDevice, s));
    LSC_CUDA(cudaMemsetAsync(p->d_info, 0, sizeof(int), s));
    /* The transpose into the row-major [A | B] is part of getting the data
     * onto the device in the published methods' layout, so it is counted in t_h2d. */
    if (p->augmented)
        LSC_CUDA(FN(lsk_build_augmented)(n, nrhs, dA, n, dB, n, dM, n + nrhs, s));
done:
    return st;
}

/* Without search the "search" covers row k alone: that still records a
 * zero pivot in info. */
static int FN(seed_pivot)(void *q, int k, int search, char *err, size_t errlen)
{
    lsc_seed *p = q;
    int st = 0, n = p->job->n, nrhs = p->job->nrhs;
    int rows_end = search ? n : k + 1;
    cudaStream_t s = p->c->stream;
    REAL *dA = p->dA, *dB = p->dB, *dM = p->dM;
    if (p->augmented) {
        int w = n + nrhs;
        long long ldm = w;
        LSC_CUDA(FN(lsk_pivot_search)(rows_end, k, dM, ldm, 1, p->d_ipiv, p->d_info, s));
        if (search)
            LSC_CUDA(FN(lsk_swap_rows)(k, k, w, dM, ldm, 1, p->d_ipiv, s));
    } else {
        LSC_CUDA(FN(lsk_pivot_search)(rows_end, k, dA, 1, n, p->d_ipiv, p->d_info, s));
        if (search) {
            /* the seed swaps whole rows: L's computed part, U and B */
            LSC_CUDA(FN(lsk_swap_rows)(k, 0, n, dA, 1, n, p->d_ipiv, s));
            LSC_CUDA(FN(lsk_swap_rows)(k, 0, nrhs, dB, 1, n, p->d_ipiv, s));
        }
    }
done:
    return st;
}

static int FN(ge_naive_step)(void *q, int k, char *err, size_t errlen)
{
    lsc_seed *p = q;
    int st = 0, n = p->job->n, w = n + p->job->nrhs;
    REAL *dM = p->dM;
    LSC_CUDA(FN(lsk_ge_naive_step)(n, w, dM, (long long)w, k, p->c->stream));
done:
    return st;
}

static int FN(ge_blocked_step)(void *q, int k, char *err, size_t errlen)
{
    lsc_seed *p = q;
    int st = 0, n = p->job->n, w = n + p->job->nrhs;
    REAL *dM = p->dM;
    LSC_CUDA(FN(lsk_ge_blocked_step)(n, w, dM, (long long)w, k, p->c->stream));
done:
    return st;
}

/* One thread per element of rows [r0, r1) minus k, columns [c0, w). */
static int FN(elim_elements)(lsc_seed *p, int k, int r0, int r1, int c0, char *err,
                             size_t errlen)
{
    int st = 0, n = p->job->n, w = n + p->job->nrhs;
    REAL *dM = p->dM;
    LSC_CUDA(FN(lsk_elim_elements)(n, w, dM, (long long)w, k, r0, r1, c0, p->c->stream));
done:
    return st;
}

/* ge-coalesced and gj1's forward pass: the rows below k. */
static int FN(below_step)(void *q, int k, char *err, size_t errlen)
{
    lsc_seed *p = q;
    return FN(elim_elements)(p, k, k + 1, p->job->n, k + 1, err, errlen);
}

/* gj1's backward pass: the right-hand-side columns of the rows above k. */
static int FN(gj1_backward_step)(void *q, int k, char *err, size_t errlen)
{
    lsc_seed *p = q;
    return FN(elim_elements)(p, k, 0, k, p->job->n, err, errlen);
}

/* gj2: the rows above and below the pivot in one pass. */
static int FN(gj2_step)(void *q, int k, char *err, size_t errlen)
{
    lsc_seed *p = q;
    return FN(elim_elements)(p, k, 0, p->job->n, k + 1, err, errlen);
}

static int FN(lu_seed_step)(void *q, int k, char *err, size_t errlen)
{
    lsc_seed *p = q;
    int st = 0, n = p->job->n;
    cudaStream_t s = p->c->stream;
    REAL *dA = p->dA;
    LSC_CUDA(FN(lsk_seed_multipliers)(n, dA, n, k, s));
    LSC_CUDA(FN(lsk_seed_update)(n, dA, n, k, s));
done:
    return st;
}

static int FN(seed_trsolve)(void *q, char *err, size_t errlen)
{
    lsc_seed *p = q;
    int st = 0, n = p->job->n, nrhs = p->job->nrhs;
    cudaStream_t s = p->c->stream;
    REAL *dA = p->dA, *dB = p->dB, *dM = p->dM;
    if (p->augmented) {
        LSC_CUDA(FN(lsk_extract_rhs)(n, nrhs, dM, n + nrhs, 0, dB, n, s));
        LSC_CUDA(FN(lsk_trsv_tree)(n, nrhs, dM, n + nrhs, 1, 0, 0, dB, n, s));
    } else {
        LSC_CUDA(FN(lsk_trsv_tree)(n, nrhs, dA, 1, n, 1, 1, dB, n, s));
        LSC_CUDA(FN(lsk_trsv_tree)(n, nrhs, dA, 1, n, 0, 0, dB, n, s));
    }
done:
    return st;
}

static int FN(seed_gj_extract)(void *q, char *err, size_t errlen)
{
    lsc_seed *p = q;
    int st = 0, n = p->job->n, nrhs = p->job->nrhs;
    REAL *dB = p->dB, *dM = p->dM;
    LSC_CUDA(FN(lsk_extract_rhs)(n, nrhs, dM, n + nrhs, 1, dB, n, p->c->stream));
done:
    return st;
}

static int FN(seed_download)(void *q, int info, char *err, size_t errlen)
{
    lsc_seed *p = q;
    const ls_job *job = p->job;
    int st = 0, n = job->n, nrhs = job->nrhs;
    const size_t es = sizeof(REAL);
    cudaStream_t s = p->c->stream;
    if (info == 0)
        LSC_CUDA(cudaMemcpy2DAsync(job->B, (size_t)job->ldb * es, p->dB, (size_t)n * es,
                                   (size_t)n * es, (size_t)nrhs, cudaMemcpyDeviceToHost, s));
    if (job->ipiv && n > 0)
        LSC_CUDA(cudaMemcpyAsync(job->ipiv, p->d_ipiv, (size_t)n * sizeof(int),
                                 cudaMemcpyDeviceToHost, s));
done:
    return st;
}

static const lsg_seed_ops FN(lsc_seed_ops) = {
    .begin = FN(seed_begin),
    .end = seed_end,
    .mark = seed_mark,
    .elapsed = seed_elapsed,
    .upload = FN(seed_upload),
    .pivot = FN(seed_pivot),
    .ge_naive_step = FN(ge_naive_step),
    .ge_blocked_step = FN(ge_blocked_step),
    .ge_coalesced_step = FN(below_step),
    .gj1_forward_step = FN(below_step),
    .gj1_backward_step = FN(gj1_backward_step),
    .gj2_step = FN(gj2_step),
    .lu_seed_step = FN(lu_seed_step),
    .trsolve = FN(seed_trsolve),
    .gj_extract = FN(seed_gj_extract),
    .read_info = seed_read_info,
    .download = FN(seed_download),
    .finish = seed_finish,
};
