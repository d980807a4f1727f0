/* The OpenCL backend's batched role (core/batched.h): a stack of host
 * systems copied to the device as it lies in memory (strides and all), one
 * launch of kernels/batched.cl's bgetrf and one of its bgetrs, and copied
 * back. Before it, a stack on an OpenCL context was a loop of single
 * solves, a few kernel launches and two copies each. Stacks larger than
 * the device's allocation limit go in chunks of systems. Device arrays
 * (the _gpu routines) need the CUDA backend: this backend has no device
 * memory role. */
#include <string.h>

#include "core/batched.h"
#include "ocl_internal.h"

/* The local size: a power of two near the order, at most 64 and what the
 * kernel allows. Small systems leave few work-items idle. */
static size_t group_for(int n, size_t wg)
{
    size_t cap = 1;
    while (cap < (size_t)n && cap < 64)
        cap <<= 1;
    return ocl_group_size(wg, cap);
}

/* Elements from a system's first to its last, inclusive. */
static size_t extent(int rows, int cols, long long rs, long long cs)
{
    if (rows == 0 || cols == 0)
        return 0;
    return (size_t)((long long)(rows - 1) * rs + (long long)(cols - 1) * cs + 1);
}

/* Systems per chunk, so that A's and B's spans fit one allocation and a
 * quarter of the device's memory. */
static int chunk_of(const ocl_ctx *c, const ls_batched_job *j, size_t es, size_t eA, size_t eB)
{
    cl_ulong cap = c->max_alloc < c->global_mem / 4 ? c->max_alloc : c->global_mem / 4;
    size_t lim = (size_t)(cap / es), chunk = (size_t)j->batch;
    if (j->strideA > 0 && lim > eA) {
        size_t k = (lim - eA) / (size_t)j->strideA + 1;
        chunk = k < chunk ? k : chunk;
    }
    if (eB && j->strideB > 0 && lim > eB) {
        size_t k = (lim - eB) / (size_t)j->strideB + 1;
        chunk = k < chunk ? k : chunk;
    }
    if (lim <= eA || (eB && lim <= eB))
        chunk = 1; /* ocl_buffer then names the bytes it could not have */
    return (int)chunk;
}

/* The arguments both kernels open with: the stack of A and its strides,
 * and the order. */
static int stack_args(cl_kernel k, cl_mem dA, const ls_batched_job *j, char *err, size_t errlen)
{
    int st = 0;
    const cl_long sA = j->strideA, ars = j->a_rs, acs = j->a_cs;
    const cl_int n = j->n;
    CL_ARG(k, 0, dA);
    CL_ARG(k, 1, sA);
    CL_ARG(k, 2, ars);
    CL_ARG(k, 3, acs);
    CL_ARG(k, 4, n);
done:
    return st;
}

int ocl_batched(void *bctx, const ls_batched_job *j, char *err, size_t errlen)
{
    ocl_ctx *c = bctx;
    if (j->device)
        return OCL_FAIL(LS_EUNSUPPORTED,
                        "batched solves on device memory need the CUDA backend (this context "
                        "runs on OpenCL: %s)",
                        c->name);
    if (j->prec == LS_DOUBLE && !c->has_fp64)
        return OCL_FAIL(LS_EUNSUPPORTED, "device %s has no cl_khr_fp64", c->name);
    if (j->n == 0 || j->op == LS_BATCHED_GETRS) /* getrs reports no singularity */
        for (int b = 0; b < j->batch; b++)
            j->info[b] = 0;
    if (j->n == 0 || j->batch == 0)
        return 0;
    const int n = j->n, factor = j->op != LS_BATCHED_GETRS;
    const int solve = j->op != LS_BATCHED_GETRF && j->nrhs > 0;
    const size_t es = j->prec == LS_DOUBLE ? sizeof(double) : sizeof(float);
    const size_t eA = extent(n, n, j->a_rs, j->a_cs);
    const size_t eB = solve ? extent(n, j->nrhs, j->b_rs, j->b_cs) : 0;
    const int chunk = chunk_of(c, j, es, eA, eB);
    int st = 0;
    cl_kernel kf = NULL, ks = NULL;
    cl_mem dA = NULL, dB = NULL, dpiv = NULL, dinfo = NULL;
    size_t wf = 1, ws = 1;
    if (factor)
        LS_CHECK(ocl_kernel_get(c, OCL_FAM_BATCHED, j->prec, "bgetrf", &kf, &wf, err, errlen));
    if (solve)
        LS_CHECK(ocl_kernel_get(c, OCL_FAM_BATCHED, j->prec, "bgetrs", &ks, &ws, err, errlen));
    const size_t Lf = group_for(n, wf), Ls = group_for(n, ws);
    const size_t spanA = (size_t)(chunk - 1) * (size_t)j->strideA + eA;
    const size_t spanB = eB ? (size_t)(chunk - 1) * (size_t)j->strideB + eB : 0;
    LS_CHECK(ocl_buffer(c, spanA * es, &dA, "the stack of A", err, errlen));
    if (solve)
        LS_CHECK(ocl_buffer(c, spanB * es, &dB, "the stack of B", err, errlen));
    LS_CHECK(ocl_buffer(c, (size_t)chunk * (size_t)n * sizeof(cl_int), &dpiv, "the pivots", err,
                        errlen));
    LS_CHECK(ocl_buffer(c, (size_t)chunk * sizeof(cl_int), &dinfo, "info", err, errlen));
    const cl_long sB = j->strideB, brs = j->b_rs, bcs = j->b_cs;
    const cl_int trans = j->trans != 'N', skip = j->op == LS_BATCHED_GESV, nrhs = j->nrhs;
    if (factor) {
        LS_CHECK(stack_args(kf, dA, j, err, errlen));
        CL_ARG(kf, 5, dpiv);
        CL_ARG(kf, 6, dinfo);
        CL_LOCAL_ARG(kf, 7, Lf * es);
        CL_LOCAL_ARG(kf, 8, Lf * sizeof(cl_int));
    }
    if (solve) {
        LS_CHECK(stack_args(ks, dA, j, err, errlen));
        CL_ARG(ks, 5, nrhs);
        CL_ARG(ks, 6, dpiv);
        CL_ARG(ks, 7, dB);
        CL_ARG(ks, 8, sB);
        CL_ARG(ks, 9, brs);
        CL_ARG(ks, 10, bcs);
        CL_ARG(ks, 11, trans);
        CL_ARG(ks, 12, dinfo);
        CL_ARG(ks, 13, skip);
        CL_LOCAL_ARG(ks, 14, Ls * es);
    }
    for (int b0 = 0; b0 < j->batch; b0 += chunk) {
        const int cnt = j->batch - b0 < chunk ? j->batch - b0 : chunk;
        char *hA = (char *)j->A + (size_t)b0 * (size_t)j->strideA * es;
        char *hB = solve ? (char *)j->B + (size_t)b0 * (size_t)j->strideB * es : NULL;
        int *hpiv = j->ipiv ? j->ipiv + (size_t)b0 * (size_t)n : NULL;
        const size_t bytesA = ((size_t)(cnt - 1) * (size_t)j->strideA + eA) * es;
        const size_t bytesB = solve ? ((size_t)(cnt - 1) * (size_t)j->strideB + eB) * es : 0;
        const size_t bytesP = (size_t)cnt * (size_t)n * sizeof(cl_int);
        CL_CHECK(clEnqueueWriteBuffer(c->queue, dA, CL_FALSE, 0, bytesA, hA, 0, NULL, NULL));
        if (solve)
            CL_CHECK(clEnqueueWriteBuffer(c->queue, dB, CL_FALSE, 0, bytesB, hB, 0, NULL, NULL));
        if (!factor)
            CL_CHECK(clEnqueueWriteBuffer(c->queue, dpiv, CL_FALSE, 0, bytesP, hpiv, 0, NULL,
                                          NULL));
        if (factor)
            LS_CHECK(ocl_launch1(c, kf, (size_t)cnt * Lf, Lf, err, errlen));
        if (solve)
            LS_CHECK(ocl_launch1(c, ks, (size_t)cnt * (size_t)nrhs * Ls, Ls, err, errlen));
        if (factor) {
            CL_CHECK(clEnqueueReadBuffer(c->queue, dA, CL_FALSE, 0, bytesA, hA, 0, NULL, NULL));
            CL_CHECK(clEnqueueReadBuffer(c->queue, dinfo, CL_FALSE, 0, (size_t)cnt * sizeof(cl_int),
                                         j->info + b0, 0, NULL, NULL));
            if (hpiv)
                CL_CHECK(clEnqueueReadBuffer(c->queue, dpiv, CL_FALSE, 0, bytesP, hpiv, 0, NULL,
                                             NULL));
        }
        if (solve)
            CL_CHECK(clEnqueueReadBuffer(c->queue, dB, CL_FALSE, 0, bytesB, hB, 0, NULL, NULL));
        CL_CHECK(clFinish(c->queue)); /* the host arrays are the caller's again */
    }
done:
    if (st)
        clFinish(c->queue); /* no copy may still read or write the caller's arrays */
    cl_mem bufs[] = {dA, dB, dpiv, dinfo};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    if (kf)
        clReleaseKernel(kf);
    if (ks)
        clReleaseKernel(ks);
    return st;
}
