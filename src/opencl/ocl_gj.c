/* Seed 003's Gauss-Jordan models with partial pivoting: gj1 (forward
 * elimination, then backward elimination of the right-hand sides) and gj2
 * (one pass above and below each pivot), many right-hand sides at once.
 * Timings (ocl_timer.h): t_factor is the elimination that makes A
 * triangular (gj1) or diagonal (gj2), t_solve the rest. */
#include <string.h>

#include "ocl_internal.h"

static int launch_step(ocl_ctx *c, cl_kernel k, cl_mem M, const ocl_system *s, int step,
                       size_t count0, size_t count1, size_t wg, char *err, size_t errlen)
{
    int st = 0;
    size_t l0 = 1, l1 = 1;
    CL_ARG(k, 0, M);
    CL_ARG(k, 1, s->n);
    CL_ARG(k, 2, s->w);
    CL_ARG(k, 3, step);
    ocl_local2(wg, count0, &l0, &l1);
    LS_CHECK(ocl_launch2(c, k, count0, count1, l0, l1, err, errlen));
done:
    return st;
}

int ocl_solve_gj(ocl_ctx *c, const ls_job *job, ocl_tick *ev, char *err, size_t errlen)
{
    int st = 0, info = 0;
    ocl_system s;
    ocl_rm_buffers b;
    ocl_rowops r;
    cl_kernel step_k = NULL, back_k = NULL, result_k = NULL;
    size_t wg_step = 1, wg_back = 1, wg_result = 1;
    const int model2 = job->method == LS_METHOD_GJ2;
    memset(&b, 0, sizeof b);
    memset(&r, 0, sizeof r);
    LS_CHECK(ocl_system_init(&s, job, err, errlen));
    LS_CHECK(ocl_rm_alloc(c, &s, &b, err, errlen));
    LS_CHECK(ocl_rowops_get(c, job->prec, &r, err, errlen));
    LS_CHECK(ocl_kernel_get(c, OCL_FAM_GJ, job->prec, model2 ? "gj2_step" : "gj1_forward",
                            &step_k, &wg_step, err, errlen));
    if (!model2)
        LS_CHECK(ocl_kernel_get(c, OCL_FAM_GJ, job->prec, "gj1_backward", &back_k, &wg_back, err,
                                errlen));
    LS_CHECK(ocl_kernel_get(c, OCL_FAM_GJ, job->prec, "gj_result", &result_k, &wg_result, err,
                            errlen));
    LS_CHECK(ocl_rm_upload(c, &s, job, b.M, b.info, ev, err, errlen));

    const int n = s.n, w = s.w, search = job->pivot != LS_PIVOT_NONE;
    for (int k = 0; k < n; ++k) {
        LS_CHECK(ocl_pivot_step(c, &r, &s, b.M, k, search, b.piv, b.info, 1, err, errlen));
        if (model2)
            LS_CHECK(launch_step(c, step_k, b.M, &s, k, (size_t)(w - k - 1), (size_t)n, wg_step,
                                 err, errlen));
        else if (k < n - 1)
            LS_CHECK(launch_step(c, step_k, b.M, &s, k, (size_t)(w - k - 1), (size_t)(n - k - 1),
                                 wg_step, err, errlen));
        ocl_progress(job, k, n);
    }
    LS_CHECK(ocl_mark(c, &ev[OCL_EV_FACTOR], err, errlen));
    LS_CHECK(ocl_read_info(c, b.info, &info, err, errlen));

    if (info == 0 && s.nrhs > 0) {
        if (!model2)
            for (int k = n - 1; k > 0; --k)
                LS_CHECK(launch_step(c, back_k, b.M, &s, k, (size_t)s.nrhs, (size_t)k, wg_back,
                                     err, errlen));
        size_t l0 = 1, l1 = 1;
        ocl_local2(wg_result, (size_t)n, &l0, &l1);
        CL_ARG(result_k, 0, b.M);
        CL_ARG(result_k, 1, s.n);
        CL_ARG(result_k, 2, s.w);
        CL_ARG(result_k, 3, b.X);
        LS_CHECK(ocl_launch2(c, result_k, (size_t)n, (size_t)s.nrhs, l0, l1, err, errlen));
        LS_CHECK(ocl_mark(c, &ev[OCL_EV_SOLVE], err, errlen));
    }
    LS_CHECK(ocl_rm_download(c, &s, &b, job, info, ev, err, errlen));
    st = info;
done:
    if (step_k)
        clReleaseKernel(step_k);
    if (back_k)
        clReleaseKernel(back_k);
    if (result_k)
        clReleaseKernel(result_k);
    ocl_rowops_release(&r);
    ocl_rm_release(&b);
    return st;
}
