/* TendTo's local-memory elimination (ge-local): one work-group, the whole
 * augmented matrix in local memory, one launch. Refuses with LS_ELIMIT when
 * the system does not fit the device's local memory.
 * Timing (ocl_timer.h): elimination and the result vector run in one
 * kernel, so t_factor holds both and t_solve stays 0 (no SOLVE mark). */
#include <stdint.h>
#include <string.h>

#include "ocl_internal.h"

int ocl_solve_ge_local(ocl_ctx *c, const ls_job *job, ocl_tick *ev, char *err, size_t errlen)
{
    int st = 0, info = 0;
    ocl_system s;
    ocl_rm_buffers b;
    cl_kernel kern = NULL;
    size_t wg = 1;
    memset(&b, 0, sizeof b);
    LS_CHECK(ocl_system_init(&s, job, err, errlen));
    LS_CHECK(ocl_kernel_get(c, OCL_FAM_GE_LOCAL, job->prec, "ge_local", &kern, &wg, err, errlen));

    size_t L = ocl_group_size(wg, 256);
    cl_ulong static_local = 0;
    CL_CHECK(clGetKernelWorkGroupInfo(kern, c->device, CL_KERNEL_LOCAL_MEM_SIZE,
                                      sizeof static_local, &static_local, NULL));
    /* s.bytes is overflow-checked; the scratch is two arrays of L entries. */
    size_t scratch = L * (s.es + sizeof(cl_int));
    size_t need = s.bytes + scratch + (size_t)static_local;
    if (s.bytes > (size_t)c->local_mem || need > (size_t)c->local_mem)
        return OCL_FAIL(LS_ELIMIT,
                        "ge-local: n=%d (nrhs=%d) needs %zu bytes of local memory; device has "
                        "%llu",
                        s.n, s.nrhs, need, (unsigned long long)c->local_mem);
    /* Local indices in the kernel are int. */
    if ((size_t)s.n * (size_t)s.w > (size_t)INT32_MAX)
        return OCL_FAIL(LS_ELIMIT, "ge-local: %d x %d exceeds int indexing", s.n, s.w);

    LS_CHECK(ocl_rm_alloc(c, &s, &b, err, errlen));
    LS_CHECK(ocl_rm_upload(c, &s, job, b.M, b.info, ev, err, errlen));
    int pivoting = job->pivot != LS_PIVOT_NONE;
    CL_ARG(kern, 0, b.M);
    CL_ARG(kern, 1, s.n);
    CL_ARG(kern, 2, s.w);
    CL_ARG(kern, 3, pivoting);
    CL_ARG(kern, 4, b.X);
    CL_ARG(kern, 5, b.piv);
    CL_ARG(kern, 6, b.info);
    CL_LOCAL_ARG(kern, 7, s.bytes);
    CL_LOCAL_ARG(kern, 8, L * s.es);
    CL_LOCAL_ARG(kern, 9, L * sizeof(cl_int));
    LS_CHECK(ocl_launch1(c, kern, L, L, err, errlen));
    LS_CHECK(ocl_mark(c, &ev[OCL_EV_FACTOR], err, errlen));
    LS_CHECK(ocl_read_info(c, b.info, &info, err, errlen));
    LS_CHECK(ocl_rm_download(c, &s, &b, job, info, ev, err, errlen));
    st = info;
done:
    if (kern)
        clReleaseKernel(kern);
    ocl_rm_release(&b);
    return st;
}
