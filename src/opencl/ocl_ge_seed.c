/* Seed 000's Gaussian elimination variants (ge-naive, ge-blocked,
 * ge-coalesced; `ge` runs ge-coalesced): per step a pivot search and row
 * swap (rowops.cl), then one elimination launch; back substitution last.
 *
 * Timings: device events at the phase boundaries (ocl_timer.h); t_factor
 * spans the n steps' launches, so it includes any time the device waits
 * for the host to enqueue the next step. */
#include <stdio.h>

#include "ocl_internal.h"

void ocl_progress(const ls_job *job, int k, int n)
{
    /* About 32 calls per solve: enough for a progress bar, no sync needed. */
    if (job->progress && n > 0 && (k % (n / 32 + 1)) == 0)
        job->progress(job->progress_arg, (double)k / (double)n, "eliminating");
}

int ocl_solve_ge_seed(ocl_ctx *c, const ls_job *job, ocl_tick *ev, char *err, size_t errlen)
{
    int st = 0, info = 0;
    ocl_system s;
    ocl_rm_buffers b;
    ocl_rowops r;
    cl_kernel kern = NULL;
    size_t wg = 1;
    b.M = b.piv = b.info = b.X = NULL;
    r.pivot = r.swap = r.backsub = NULL;

    const char *name = "ge_coalesced";
    if (job->method == LS_METHOD_GE_NAIVE)
        name = "ge_naive";
    else if (job->method == LS_METHOD_GE_BLOCKED)
        name = "ge_blocked";
    LS_CHECK(ocl_system_init(&s, job, err, errlen));
    LS_CHECK(ocl_rm_alloc(c, &s, &b, err, errlen));
    LS_CHECK(ocl_rowops_get(c, job->prec, &r, err, errlen));
    LS_CHECK(ocl_kernel_get(c, OCL_FAM_GE_SEED, job->prec, name, &kern, &wg, err, errlen));
    LS_CHECK(ocl_rm_upload(c, &s, job, b.M, b.info, ev, err, errlen));

    const int n = s.n, w = s.w;
    const int search = job->pivot != LS_PIVOT_NONE;
    /* The pivot-row cache of ge-blocked, in chunks of 256 entries (2 KiB
     * in double): small enough for any device's local memory next to other
     * groups, and large n walks the row in several chunks. */
    int chunk = (int)(c->local_mem / 2 / s.es);
    if (chunk > 256)
        chunk = 256;
    if (chunk > w)
        chunk = w;
    if (chunk < 1)
        chunk = 1;
    for (int k = 0; k < n; ++k) {
        LS_CHECK(ocl_pivot_step(c, &r, &s, b.M, k, search, b.piv, b.info, 1, err, errlen));
        if (k == n - 1)
            break;
        CL_ARG(kern, 0, b.M);
        CL_ARG(kern, 1, s.n);
        CL_ARG(kern, 2, s.w);
        CL_ARG(kern, 3, k);
        if (job->method == LS_METHOD_GE_NAIVE) {
            LS_CHECK(ocl_launch1(c, kern, (size_t)(n - k - 1), ocl_group_size(wg, 64), err,
                                 errlen));
        } else if (job->method == LS_METHOD_GE_BLOCKED) {
            CL_ARG(kern, 4, chunk);
            CL_LOCAL_ARG(kern, 5, (size_t)chunk * s.es);
            LS_CHECK(ocl_launch1(c, kern, (size_t)(n - k - 1), ocl_group_size(wg, 64), err,
                                 errlen));
        } else {
            LS_CHECK(ocl_launch1(c, kern, (size_t)(n - k - 1) * (size_t)(w - k - 1),
                                 ocl_group_size(wg, 256), err, errlen));
        }
        ocl_progress(job, k, n);
    }
    LS_CHECK(ocl_mark(c, &ev[OCL_EV_FACTOR], err, errlen));
    LS_CHECK(ocl_read_info(c, b.info, &info, err, errlen));

    if (info == 0) {
        LS_CHECK(ocl_back_substitute(c, &r, &s, b.M, b.M, 0, b.X, err, errlen));
        LS_CHECK(ocl_mark(c, &ev[OCL_EV_SOLVE], err, errlen));
    }
    LS_CHECK(ocl_rm_download(c, &s, &b, job, info, ev, err, errlen));
    st = info;
done:
    if (kern)
        clReleaseKernel(kern);
    ocl_rowops_release(&r);
    ocl_rm_release(&b);
    return st;
}
