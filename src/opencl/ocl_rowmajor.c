/* The row-major augmented system [A | B] on the device, as the published
 * GPU methods keep it: packing, upload, pivot steps, back substitution and
 * read-back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_internal.h"

#define LS_REAL_IMPL "ocl_pack_impl.h"
#include "common/instantiate_real.h"

int ocl_system_init(ocl_system *s, const ls_job *job, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->n = job->n;
    s->nrhs = job->nrhs;
    s->prec = job->prec;
    s->es = job->prec == LS_DOUBLE ? sizeof(double) : sizeof(float);
    if (job->nrhs > INT32_MAX - job->n)
        return OCL_FAIL(LS_ESIZE, "n + nrhs = %d + %d overflows", job->n, job->nrhs);
    s->w = job->n + job->nrhs;
    size_t cells = 0;
    if (__builtin_mul_overflow((size_t)s->n, (size_t)s->w, &cells) ||
        __builtin_mul_overflow(cells, s->es, &s->bytes))
        return OCL_FAIL(LS_ESIZE, "augmented matrix %d x %d overflows size_t", s->n, s->w);
    /* Kernels index rows with int and elements with size_t. */
    if (cells > (size_t)INT32_MAX * 64)
        return OCL_FAIL(LS_ESIZE, "augmented matrix %d x %d is too large", s->n, s->w);
    return 0;
}

int ocl_system_pack(const ocl_system *s, const ls_job *job, void **host, char *err,
                    size_t errlen)
{
    *host = malloc(s->bytes ? s->bytes : 1);
    if (!*host)
        return OCL_FAIL(LS_ENOMEM, "host staging for [A | B]: %zu bytes", s->bytes);
    size_t n = (size_t)s->n, nrhs = (size_t)s->nrhs, lda = (size_t)job->lda,
           ldb = (size_t)job->ldb;
    if (s->prec == LS_DOUBLE)
        ocl_pack_d(n, nrhs, job->A, lda, job->B, ldb, *host);
    else
        ocl_pack_s(n, nrhs, job->A, lda, job->B, ldb, *host);
    return 0;
}

int ocl_read_x(ocl_ctx *c, const ocl_system *s, cl_mem X, const ls_job *job, char *err,
               size_t errlen)
{
    int st = 0;
    if (s->n == 0 || s->nrhs == 0)
        return 0;
    /* A rectangular read writes straight into B with its leading dimension. */
    size_t origin[3] = {0, 0, 0};
    size_t region[3] = {(size_t)s->n * s->es, (size_t)s->nrhs, 1};
    CL_CHECK(clEnqueueReadBufferRect(c->queue, X, CL_TRUE, origin, origin, region,
                                     (size_t)s->n * s->es, 0, (size_t)job->ldb * s->es, 0,
                                     job->B, 0, NULL, NULL));
done:
    return st;
}

int ocl_read_ipiv(ocl_ctx *c, int n, cl_mem piv, int *ipiv, char *err, size_t errlen)
{
    int st = 0;
    if (!ipiv || n == 0)
        return 0;
    CL_CHECK(clEnqueueReadBuffer(c->queue, piv, CL_TRUE, 0, (size_t)n * sizeof(int), ipiv, 0,
                                 NULL, NULL));
    for (int i = 0; i < n; ++i)
        ipiv[i] += 1;
done:
    return st;
}

int ocl_read_info(ocl_ctx *c, cl_mem info, int *value, char *err, size_t errlen)
{
    int st = 0;
    cl_int v = 0;
    CL_CHECK(clEnqueueReadBuffer(c->queue, info, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL));
    *value = v;
done:
    return st;
}

int ocl_rowops_get(ocl_ctx *c, ls_precision p, ocl_rowops *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    size_t wg = 0;
    int st = ocl_kernel_get(c, OCL_FAM_ROWOPS, p, "pivot_search", &r->pivot, &wg, err, errlen);
    if (st)
        return st;
    r->pivot_local = ocl_group_size(wg, 256);
    st = ocl_kernel_get(c, OCL_FAM_ROWOPS, p, "swap_rows", &r->swap, &wg, err, errlen);
    if (st)
        return st;
    r->swap_local = ocl_group_size(wg, 64);
    st = ocl_kernel_get(c, OCL_FAM_ROWOPS, p, "back_substitute", &r->backsub, &wg, err, errlen);
    if (st)
        return st;
    r->backsub_local = ocl_group_size(wg, 256);
    return 0;
}

void ocl_rowops_release(ocl_rowops *r)
{
    if (r->pivot)
        clReleaseKernel(r->pivot);
    if (r->swap)
        clReleaseKernel(r->swap);
    if (r->backsub)
        clReleaseKernel(r->backsub);
    memset(r, 0, sizeof *r);
}

int ocl_pivot_step(ocl_ctx *c, ocl_rowops *r, const ocl_system *s, cl_mem M, int k, int search,
                   cl_mem piv, cl_mem info, int do_swap, char *err, size_t errlen)
{
    int st = 0;
    size_t L = r->pivot_local;
    CL_ARG(r->pivot, 0, M);
    CL_ARG(r->pivot, 1, s->n);
    CL_ARG(r->pivot, 2, s->w);
    CL_ARG(r->pivot, 3, k);
    CL_ARG(r->pivot, 4, search);
    CL_ARG(r->pivot, 5, piv);
    CL_ARG(r->pivot, 6, info);
    CL_LOCAL_ARG(r->pivot, 7, L * s->es);
    CL_LOCAL_ARG(r->pivot, 8, L * sizeof(cl_int));
    LS_CHECK(ocl_launch1(c, r->pivot, L, L, err, errlen));
    if (do_swap && search) {
        int col0 = k;
        CL_ARG(r->swap, 0, M);
        CL_ARG(r->swap, 1, s->w);
        CL_ARG(r->swap, 2, k);
        CL_ARG(r->swap, 3, col0);
        CL_ARG(r->swap, 4, piv);
        LS_CHECK(ocl_launch1(c, r->swap, (size_t)(s->w - col0), r->swap_local, err, errlen));
    }
done:
    return st;
}

int ocl_back_substitute(ocl_ctx *c, ocl_rowops *r, const ocl_system *s, cl_mem M0, cl_mem M1,
                        int layout, cl_mem X, char *err, size_t errlen)
{
    int st = 0;
    size_t L = r->backsub_local;
    if (s->nrhs == 0)
        return 0;
    CL_ARG(r->backsub, 0, M0);
    CL_ARG(r->backsub, 1, M1);
    CL_ARG(r->backsub, 2, layout);
    CL_ARG(r->backsub, 3, s->n);
    CL_ARG(r->backsub, 4, s->w);
    CL_ARG(r->backsub, 5, X);
    CL_LOCAL_ARG(r->backsub, 6, L * s->es);
    LS_CHECK(ocl_launch1(c, r->backsub, L * (size_t)s->nrhs, L, err, errlen));
done:
    return st;
}

int ocl_rm_alloc(ocl_ctx *c, const ocl_system *s, ocl_rm_buffers *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    int st = ocl_buffer(c, s->bytes, &b->M, "augmented matrix [A | B]", err, errlen);
    if (!st)
        st = ocl_buffer(c, (size_t)s->n * sizeof(cl_int), &b->piv, "pivot rows", err, errlen);
    if (!st)
        st = ocl_buffer(c, sizeof(cl_int), &b->info, "info", err, errlen);
    if (!st)
        st = ocl_buffer(c, (size_t)s->n * (size_t)s->nrhs * s->es, &b->X, "solution X", err,
                        errlen);
    if (st)
        ocl_rm_release(b);
    return st;
}

void ocl_rm_release(ocl_rm_buffers *b)
{
    cl_mem *all[] = {&b->M, &b->piv, &b->info, &b->X};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (*all[i]) {
            clReleaseMemObject(*all[i]);
            *all[i] = NULL;
        }
}

int ocl_rm_write(ocl_ctx *c, const ocl_system *s, const void *host, cl_mem M, cl_mem info,
                 char *err, size_t errlen)
{
    int st = 0;
    cl_int zero = 0;
    if (s->bytes > 0) {
        /* Drivers allocate lazily: an out-of-memory often surfaces here. */
        cl_int e = clEnqueueWriteBuffer(c->queue, M, CL_TRUE, 0, s->bytes, host, 0, NULL, NULL);
        if (e != CL_SUCCESS)
            return OCL_FAIL(ocl_status_of(e), "uploading [A | B] (%zu bytes): %s (%d)", s->bytes,
                            ocl_error_name(e), (int)e);
    }
    CL_CHECK(clEnqueueWriteBuffer(c->queue, info, CL_TRUE, 0, sizeof zero, &zero, 0, NULL, NULL));
done:
    return st;
}

int ocl_rm_upload(ocl_ctx *c, const ocl_system *s, const ls_job *job, cl_mem M, cl_mem info,
                  ocl_tick *ev, char *err, size_t errlen)
{
    int st = 0;
    void *host = NULL;
    /* The transpose into [A | B] is host work: the device clock cannot see
     * it, so it stays outside t_h2d on either timing method. */
    LS_CHECK(ocl_system_pack(s, job, &host, err, errlen));
    LS_CHECK(ocl_mark(c, &ev[OCL_EV_START], err, errlen));
    LS_CHECK(ocl_rm_write(c, s, host, M, info, err, errlen));
    LS_CHECK(ocl_mark(c, &ev[OCL_EV_H2D], err, errlen));
done:
    free(host);
    return st;
}

int ocl_rm_download(ocl_ctx *c, const ocl_system *s, const ocl_rm_buffers *b, const ls_job *job,
                    int info, ocl_tick *ev, char *err, size_t errlen)
{
    int st = 0;
    if (info == 0)
        LS_CHECK(ocl_read_x(c, s, b->X, job, err, errlen));
    LS_CHECK(ocl_read_ipiv(c, s->n, b->piv, job->ipiv, err, errlen));
    LS_CHECK(ocl_mark(c, &ev[OCL_EV_D2H], err, errlen));
done:
    return st;
}
