/* LU with partial pivoting on the device (method `lu`, the backend's auto
 * method) and the backend's getrf slot. Column-major, LAPACK semantics:
 * 1-based ipiv, info = first exactly-zero pivot, factorization runs on.
 * Timings: device events at the phase boundaries (ocl_timer.h). */
#include <stdint.h>
#include <string.h>

#include "ocl_internal.h"

typedef struct lu_kernels {
    cl_kernel pivot, swap, scale, update;
    size_t wg_pivot, wg_swap, wg_scale, wg_update;
} lu_kernels;

static void lu_kernels_release(lu_kernels *k)
{
    cl_kernel all[] = {k->pivot, k->swap, k->scale, k->update};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (all[i])
            clReleaseKernel(all[i]);
    memset(k, 0, sizeof *k);
}

static int lu_kernels_get(ocl_ctx *c, ls_precision p, lu_kernels *k, char *err, size_t errlen)
{
    memset(k, 0, sizeof *k);
    int st = ocl_kernel_get(c, OCL_FAM_LU, p, "lu_pivot", &k->pivot, &k->wg_pivot, err, errlen);
    if (!st)
        st = ocl_kernel_get(c, OCL_FAM_LU, p, "lu_swap", &k->swap, &k->wg_swap, err, errlen);
    if (!st)
        st = ocl_kernel_get(c, OCL_FAM_LU, p, "lu_scale", &k->scale, &k->wg_scale, err, errlen);
    if (!st)
        st = ocl_kernel_get(c, OCL_FAM_LU, p, "lu_update", &k->update, &k->wg_update, err,
                            errlen);
    if (st)
        lu_kernels_release(k);
    return st;
}

/* getrf on the device: m x n at A (leading dimension lda), 0-based pivot
 * rows into piv, info into the info buffer. Enqueues only; no sync. */
static int lu_factor(ocl_ctx *c, ls_precision p, cl_mem A, int m, int n, int lda, cl_mem piv,
                     cl_mem info, int search, const ls_job *job, char *err, size_t errlen)
{
    int st = 0;
    lu_kernels k;
    LS_CHECK(lu_kernels_get(c, p, &k, err, errlen));
    size_t es = p == LS_DOUBLE ? sizeof(double) : sizeof(float);
    size_t Lp = ocl_group_size(k.wg_pivot, 256);
    size_t Ls = ocl_group_size(k.wg_swap, 64), Lc = ocl_group_size(k.wg_scale, 64);
    size_t T = ocl_tile_edge(k.wg_update);
    int steps = m < n ? m : n;
    CL_ARG(k.pivot, 0, A);
    CL_ARG(k.pivot, 1, m);
    CL_ARG(k.pivot, 2, lda);
    CL_ARG(k.pivot, 4, search);
    CL_ARG(k.pivot, 5, piv);
    CL_ARG(k.pivot, 6, info);
    CL_LOCAL_ARG(k.pivot, 7, Lp * es);
    CL_LOCAL_ARG(k.pivot, 8, Lp * sizeof(cl_int));
    CL_ARG(k.swap, 0, A);
    CL_ARG(k.swap, 1, n);
    CL_ARG(k.swap, 2, lda);
    CL_ARG(k.swap, 4, piv);
    CL_ARG(k.scale, 0, A);
    CL_ARG(k.scale, 1, m);
    CL_ARG(k.scale, 2, lda);
    CL_ARG(k.update, 0, A);
    CL_ARG(k.update, 1, m);
    CL_ARG(k.update, 2, n);
    CL_ARG(k.update, 3, lda);
    CL_LOCAL_ARG(k.update, 5, T * es);
    CL_LOCAL_ARG(k.update, 6, T * es);
    for (int j = 0; j < steps; ++j) {
        CL_ARG(k.pivot, 3, j);
        LS_CHECK(ocl_launch1(c, k.pivot, Lp, Lp, err, errlen));
        if (search) {
            CL_ARG(k.swap, 3, j);
            LS_CHECK(ocl_launch1(c, k.swap, (size_t)n, Ls, err, errlen));
        }
        CL_ARG(k.scale, 3, j);
        LS_CHECK(ocl_launch1(c, k.scale, (size_t)(m - j - 1), Lc, err, errlen));
        CL_ARG(k.update, 4, j);
        LS_CHECK(ocl_launch2(c, k.update, (size_t)(m - j - 1), (size_t)(n - j - 1), T, T, err,
                             errlen));
        if (job)
            lsg_progress(job, j, steps);
    }
done:
    lu_kernels_release(&k);
    return st;
}

/* getrs ('N') on the device: B (n x nrhs, ldb) := A^-1 B with the factors. */
static int lu_solve(ocl_ctx *c, ls_precision p, cl_mem A, int n, int lda, cl_mem B, int ldb,
                    int nrhs, cl_mem piv, char *err, size_t errlen)
{
    int st = 0;
    cl_kernel laswp = NULL, lower = NULL, upper = NULL;
    size_t wg_l = 1, wg_lo = 1, wg_up = 1;
    LS_CHECK(ocl_kernel_get(c, OCL_FAM_LU, p, "lu_laswp", &laswp, &wg_l, err, errlen));
    LS_CHECK(ocl_kernel_get(c, OCL_FAM_LU, p, "lu_lower_solve", &lower, &wg_lo, err, errlen));
    LS_CHECK(ocl_kernel_get(c, OCL_FAM_LU, p, "lu_upper_solve", &upper, &wg_up, err, errlen));
    CL_ARG(laswp, 0, B);
    CL_ARG(laswp, 1, n);
    CL_ARG(laswp, 2, ldb);
    CL_ARG(laswp, 3, nrhs);
    CL_ARG(laswp, 4, piv);
    LS_CHECK(ocl_launch1(c, laswp, (size_t)nrhs, ocl_group_size(wg_l, 64), err, errlen));
    cl_kernel tri[2] = {lower, upper};
    size_t wg[2] = {wg_lo, wg_up};
    for (int t = 0; t < 2; ++t) {
        size_t L = ocl_group_size(wg[t], 256);
        CL_ARG(tri[t], 0, A);
        CL_ARG(tri[t], 1, n);
        CL_ARG(tri[t], 2, lda);
        CL_ARG(tri[t], 3, B);
        CL_ARG(tri[t], 4, ldb);
        LS_CHECK(ocl_launch1(c, tri[t], L * (size_t)nrhs, L, err, errlen));
    }
done:
    if (laswp)
        clReleaseKernel(laswp);
    if (lower)
        clReleaseKernel(lower);
    if (upper)
        clReleaseKernel(upper);
    return st;
}

/* Host (ld_host) <-> device (rows = ld_dev) copies of a column-major block. */
static int copy_block(ocl_ctx *c, int to_device, cl_mem buf, void *host, int rows, int cols,
                      int ld_host, size_t es, char *err, size_t errlen)
{
    int st = 0;
    if (rows == 0 || cols == 0)
        return 0;
    size_t origin[3] = {0, 0, 0};
    size_t region[3] = {(size_t)rows * es, (size_t)cols, 1};
    cl_int e;
    if (to_device)
        e = clEnqueueWriteBufferRect(c->queue, buf, CL_TRUE, origin, origin, region,
                                     (size_t)rows * es, 0, (size_t)ld_host * es, 0, host, 0, NULL,
                                     NULL);
    else
        e = clEnqueueReadBufferRect(c->queue, buf, CL_TRUE, origin, origin, region,
                                    (size_t)rows * es, 0, (size_t)ld_host * es, 0, host, 0, NULL,
                                    NULL);
    /* Drivers allocate lazily: an out-of-memory often surfaces here. */
    if (e != CL_SUCCESS)
        st = OCL_FAIL(ocl_status_of(e), "%s a %d x %d block (%zu bytes): %s (%d)",
                      to_device ? "uploading" : "downloading", rows, cols,
                      (size_t)rows * (size_t)cols * es, ocl_error_name(e), (int)e);
    return st;
}

static int block_bytes(int rows, int cols, size_t es, size_t *out, char *err, size_t errlen)
{
    size_t cells = 0;
    if (__builtin_mul_overflow((size_t)rows, (size_t)cols, &cells) ||
        __builtin_mul_overflow(cells, es, out))
        return OCL_FAIL(LS_ESIZE, "%d x %d matrix overflows size_t", rows, cols);
    return 0;
}

int ocl_solve_lu(ocl_ctx *c, const ls_job *job, ocl_tick *ev, char *err, size_t errlen)
{
    int st = 0, info = 0;
    const int n = job->n, nrhs = job->nrhs;
    size_t es = job->prec == LS_DOUBLE ? sizeof(double) : sizeof(float);
    size_t a_bytes = 0, b_bytes = 0;
    cl_mem A = NULL, B = NULL, piv = NULL, infob = NULL;
    cl_int zero = 0;
    LS_CHECK(block_bytes(n, n, es, &a_bytes, err, errlen));
    LS_CHECK(block_bytes(n, nrhs, es, &b_bytes, err, errlen));
    LS_CHECK(ocl_buffer(c, a_bytes, &A, "matrix A", err, errlen));
    LS_CHECK(ocl_buffer(c, b_bytes, &B, "right-hand sides B", err, errlen));
    LS_CHECK(ocl_buffer(c, (size_t)n * sizeof(cl_int), &piv, "pivot rows", err, errlen));
    LS_CHECK(ocl_buffer(c, sizeof(cl_int), &infob, "info", err, errlen));

    LS_CHECK(ocl_mark(c, &ev[OCL_EV_START], err, errlen));
    LS_CHECK(copy_block(c, 1, A, job->A, n, n, job->lda, es, err, errlen));
    LS_CHECK(copy_block(c, 1, B, job->B, n, nrhs, job->ldb, es, err, errlen));
    CL_CHECK(clEnqueueWriteBuffer(c->queue, infob, CL_TRUE, 0, sizeof zero, &zero, 0, NULL,
                                  NULL));
    LS_CHECK(ocl_mark(c, &ev[OCL_EV_H2D], err, errlen));

    LS_CHECK(lu_factor(c, job->prec, A, n, n, n, piv, infob, job->pivot != LS_PIVOT_NONE, job,
                       err, errlen));
    LS_CHECK(ocl_mark(c, &ev[OCL_EV_FACTOR], err, errlen));
    LS_CHECK(ocl_read_info(c, infob, &info, err, errlen));
    if (info == 0 && nrhs > 0) {
        LS_CHECK(lu_solve(c, job->prec, A, n, n, B, n, nrhs, piv, err, errlen));
        LS_CHECK(ocl_mark(c, &ev[OCL_EV_SOLVE], err, errlen));
    }
    if (info == 0)
        LS_CHECK(copy_block(c, 0, B, job->B, n, nrhs, job->ldb, es, err, errlen));
    LS_CHECK(ocl_read_ipiv(c, n, piv, job->ipiv, err, errlen));
    LS_CHECK(ocl_mark(c, &ev[OCL_EV_D2H], err, errlen));
    st = info;
done:
    if (A)
        clReleaseMemObject(A);
    if (B)
        clReleaseMemObject(B);
    if (piv)
        clReleaseMemObject(piv);
    if (infob)
        clReleaseMemObject(infob);
    return st;
}

int ocl_getrf(void *bctx, ls_precision p, int m, int n, void *Ahost, int lda, int *ipiv,
              int *info, char *err, size_t errlen)
{
    ocl_ctx *c = bctx;
    int st = 0, inf = 0;
    size_t es = p == LS_DOUBLE ? sizeof(double) : sizeof(float);
    size_t a_bytes = 0;
    int steps = m < n ? m : n;
    cl_mem A = NULL, piv = NULL, infob = NULL;
    cl_int zero = 0;
    if (p == LS_DOUBLE && !c->has_fp64)
        return OCL_FAIL(LS_EUNSUPPORTED, "device %s has no cl_khr_fp64", c->name);
    if (m <= 0 || n <= 0) {
        *info = 0;
        return 0;
    }
    LS_CHECK(block_bytes(m, n, es, &a_bytes, err, errlen));
    LS_CHECK(ocl_buffer(c, a_bytes, &A, "matrix A", err, errlen));
    LS_CHECK(ocl_buffer(c, (size_t)steps * sizeof(cl_int), &piv, "pivot rows", err, errlen));
    LS_CHECK(ocl_buffer(c, sizeof(cl_int), &infob, "info", err, errlen));
    LS_CHECK(copy_block(c, 1, A, Ahost, m, n, lda, es, err, errlen));
    CL_CHECK(clEnqueueWriteBuffer(c->queue, infob, CL_TRUE, 0, sizeof zero, &zero, 0, NULL,
                                  NULL));
    LS_CHECK(lu_factor(c, p, A, m, n, m, piv, infob, 1, NULL, err, errlen));
    LS_CHECK(copy_block(c, 0, A, Ahost, m, n, lda, es, err, errlen));
    LS_CHECK(ocl_read_ipiv(c, steps, piv, ipiv, err, errlen));
    LS_CHECK(ocl_read_info(c, infob, &inf, err, errlen));
    *info = inf;
done:
    if (A)
        clReleaseMemObject(A);
    if (piv)
        clReleaseMemObject(piv);
    if (infob)
        clReleaseMemObject(infob);
    return st;
}
