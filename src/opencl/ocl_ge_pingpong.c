/* TendTo's ping-pong elimination: ge-buffer (two buffers) and ge-image
 * (two CL_R/CL_FLOAT images), one frame launch per pivot with the pivot
 * search between frames (pivot_search + the swap folded into the frame).
 * Timings: device events at the phase boundaries (ocl_timer.h). */
#include <stdlib.h>
#include <string.h>

#include "ocl_internal.h"

static int image_checks(ocl_ctx *c, const ocl_system *s, char *err, size_t errlen)
{
    if (!c->has_images)
        return OCL_FAIL(LS_EUNSUPPORTED, "device %s has no image support (ge-image)", c->name);
    if ((size_t)s->w > c->image2d_max_w || (size_t)s->n > c->image2d_max_h)
        return OCL_FAIL(LS_ELIMIT,
                        "ge-image: [A | B] is %d x %d texels; device images are at most %zu "
                        "wide and %zu high",
                        s->w, s->n, c->image2d_max_w, c->image2d_max_h);
    cl_uint count = 0;
    int st = 0, found = 0;
    cl_image_format *formats = NULL;
    CL_CHECK(clGetSupportedImageFormats(c->context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0,
                                        NULL, &count));
    formats = calloc(count ? count : 1, sizeof *formats);
    if (!formats)
        return OCL_FAIL(LS_ENOMEM, "image format list (%u entries)", (unsigned)count);
    CL_CHECK(clGetSupportedImageFormats(c->context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D,
                                        count, formats, NULL));
    for (cl_uint i = 0; i < count; ++i)
        found |= formats[i].image_channel_order == CL_R &&
                 formats[i].image_channel_data_type == CL_FLOAT;
    if (!found)
        st = OCL_FAIL(LS_EUNSUPPORTED, "device %s has no CL_R/CL_FLOAT read-write images",
                      c->name);
done:
    free(formats);
    return st;
}

static int image_create(ocl_ctx *c, const ocl_system *s, cl_mem *img, char *err, size_t errlen)
{
    cl_image_format fmt = {CL_R, CL_FLOAT};
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = (size_t)s->w;
    desc.image_height = (size_t)s->n;
    cl_int e = CL_SUCCESS;
    *img = clCreateImage(c->context, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &e);
    if (e != CL_SUCCESS) {
        *img = NULL;
        return OCL_FAIL(ocl_status_of(e), "clCreateImage(%d x %d float, %zu bytes): %s (%d)",
                        s->w, s->n, s->bytes, ocl_error_name(e), (int)e);
    }
    return 0;
}

/* One frame of step k, in -> out: frame_image and frame_buffer take the
 * same arguments (n, w, k, piv) over the trailing (w - k) x (n - k) block. */
static int frame_launch(ocl_ctx *c, cl_kernel frame, cl_mem in, cl_mem out, const ocl_system *s,
                        int k, cl_mem piv, size_t Lf, char *err, size_t errlen)
{
    int st = 0;
    CL_ARG(frame, 0, in);
    CL_ARG(frame, 1, out);
    CL_ARG(frame, 2, s->n);
    CL_ARG(frame, 3, s->w);
    CL_ARG(frame, 4, k);
    CL_ARG(frame, 5, piv);
    LS_CHECK(ocl_launch2(c, frame, (size_t)(s->w - k), (size_t)(s->n - k), Lf, 1, err, errlen));
done:
    return st;
}

/* Image variant: upload, frames, back substitution into b->X. */
static int run_image(ocl_ctx *c, const ocl_system *s, const ls_job *job, ocl_rm_buffers *b,
                     ocl_tick *ev, int *info, char *err, size_t errlen)
{
    int st = 0;
    cl_mem img[2] = {NULL, NULL};
    cl_kernel frame = NULL, pivot = NULL, backsub = NULL;
    size_t wg_frame = 1, wg_pivot = 1, wg_back = 1;
    void *host = NULL;
    LS_CHECK(image_checks(c, s, err, errlen));
    LS_CHECK(image_create(c, s, &img[0], err, errlen));
    LS_CHECK(image_create(c, s, &img[1], err, errlen));
    LS_CHECK(ocl_kernel_get(c, OCL_FAM_IMAGE, LS_SINGLE, "frame_image", &frame, &wg_frame, err,
                            errlen));
    LS_CHECK(ocl_kernel_get(c, OCL_FAM_IMAGE, LS_SINGLE, "pivot_search_image", &pivot, &wg_pivot,
                            err, errlen));
    LS_CHECK(ocl_kernel_get(c, OCL_FAM_IMAGE, LS_SINGLE, "back_substitute_image", &backsub,
                            &wg_back, err, errlen));

    cl_int zero = 0;
    LS_CHECK(ocl_system_pack(s, job, &host, err, errlen)); /* host work, before the clock */
    LS_CHECK(ocl_mark(c, &ev[OCL_EV_START], err, errlen));
    size_t origin[3] = {0, 0, 0}, region[3] = {(size_t)s->w, (size_t)s->n, 1};
    CL_CHECK(clEnqueueWriteImage(c->queue, img[0], CL_TRUE, origin, region,
                                 (size_t)s->w * sizeof(float), 0, host, 0, NULL, NULL));
    CL_CHECK(clEnqueueWriteBuffer(c->queue, b->info, CL_TRUE, 0, sizeof zero, &zero, 0, NULL,
                                  NULL));
    LS_CHECK(ocl_mark(c, &ev[OCL_EV_H2D], err, errlen));

    const int n = s->n, search = job->pivot != LS_PIVOT_NONE;
    size_t Lp = ocl_group_size(wg_pivot, 256), Lf = ocl_group_size(wg_frame, 64);
    for (int k = 0; k < n; ++k) {
        cl_mem in = img[k & 1], out = img[(k + 1) & 1];
        CL_ARG(pivot, 0, in);
        CL_ARG(pivot, 1, s->n);
        CL_ARG(pivot, 2, k);
        CL_ARG(pivot, 3, search);
        CL_ARG(pivot, 4, b->piv);
        CL_ARG(pivot, 5, b->info);
        CL_LOCAL_ARG(pivot, 6, Lp * sizeof(float));
        CL_LOCAL_ARG(pivot, 7, Lp * sizeof(cl_int));
        LS_CHECK(ocl_launch1(c, pivot, Lp, Lp, err, errlen));
        if (k == n - 1)
            break;
        LS_CHECK(frame_launch(c, frame, in, out, s, k, b->piv, Lf, err, errlen));
        lsg_progress(job, k, n);
    }
    LS_CHECK(ocl_mark(c, &ev[OCL_EV_FACTOR], err, errlen));
    LS_CHECK(ocl_read_info(c, b->info, info, err, errlen));
    if (*info == 0 && s->nrhs > 0) {
        size_t L = ocl_group_size(wg_back, 256);
        CL_ARG(backsub, 0, img[0]);
        CL_ARG(backsub, 1, img[1]);
        CL_ARG(backsub, 2, s->n);
        CL_ARG(backsub, 3, b->X);
        CL_LOCAL_ARG(backsub, 4, L * sizeof(float));
        LS_CHECK(ocl_launch1(c, backsub, L * (size_t)s->nrhs, L, err, errlen));
        LS_CHECK(ocl_mark(c, &ev[OCL_EV_SOLVE], err, errlen));
    }
done:
    free(host);
    for (int i = 0; i < 2; ++i)
        if (img[i])
            clReleaseMemObject(img[i]);
    if (frame)
        clReleaseKernel(frame);
    if (pivot)
        clReleaseKernel(pivot);
    if (backsub)
        clReleaseKernel(backsub);
    return st;
}

/* Buffer variant: b->M and a second buffer alternate as input and output. */
static int run_buffer(ocl_ctx *c, const ocl_system *s, const ls_job *job, ocl_rm_buffers *b,
                      ocl_tick *ev, int *info, char *err, size_t errlen)
{
    int st = 0;
    cl_mem other = NULL;
    cl_kernel frame = NULL;
    ocl_rowops r;
    size_t wg = 1;
    memset(&r, 0, sizeof r);
    LS_CHECK(ocl_buffer(c, s->bytes, &other, "second ping-pong buffer", err, errlen));
    LS_CHECK(ocl_rowops_get(c, s->prec, &r, err, errlen));
    LS_CHECK(ocl_kernel_get(c, OCL_FAM_PINGPONG, s->prec, "frame_buffer", &frame, &wg, err,
                            errlen));
    LS_CHECK(ocl_rm_upload(c, s, job, b->M, b->info, ev, err, errlen));

    const int n = s->n, search = job->pivot != LS_PIVOT_NONE;
    cl_mem buf[2] = {b->M, other};
    size_t Lf = ocl_group_size(wg, 64);
    for (int k = 0; k < n; ++k) {
        LS_CHECK(ocl_pivot_step(c, &r, s, buf[k & 1], k, search, b->piv, b->info, 0, err,
                                errlen));
        if (k == n - 1)
            break;
        LS_CHECK(frame_launch(c, frame, buf[k & 1], buf[(k + 1) & 1], s, k, b->piv, Lf, err,
                              errlen));
        lsg_progress(job, k, n);
    }
    LS_CHECK(ocl_mark(c, &ev[OCL_EV_FACTOR], err, errlen));
    LS_CHECK(ocl_read_info(c, b->info, info, err, errlen));
    if (*info == 0) {
        LS_CHECK(ocl_back_substitute(c, &r, s, buf[0], buf[1], 1, b->X, err, errlen));
        LS_CHECK(ocl_mark(c, &ev[OCL_EV_SOLVE], err, errlen));
    }
done:
    if (other)
        clReleaseMemObject(other);
    if (frame)
        clReleaseKernel(frame);
    ocl_rowops_release(&r);
    return st;
}

int ocl_solve_ge_pingpong(ocl_ctx *c, const ls_job *job, ocl_tick *ev, char *err,
                          size_t errlen)
{
    int st = 0, info = 0;
    ocl_system s;
    ocl_rm_buffers b;
    memset(&b, 0, sizeof b);
    LS_CHECK(ocl_system_init(&s, job, err, errlen));
    if (job->method == LS_METHOD_GE_IMAGE && s.prec != LS_SINGLE)
        return OCL_FAIL(LS_EUNSUPPORTED, "ge-image stores the matrix in an image: float only");
    LS_CHECK(ocl_rm_alloc(c, &s, &b, err, errlen));
    if (job->method == LS_METHOD_GE_IMAGE) {
        /* The images replace the matrix buffer; give its memory back. */
        clReleaseMemObject(b.M);
        b.M = NULL;
        LS_CHECK(run_image(c, &s, job, &b, ev, &info, err, errlen));
    } else {
        LS_CHECK(run_buffer(c, &s, job, &b, ev, &info, err, errlen));
    }
    LS_CHECK(ocl_rm_download(c, &s, &b, job, info, ev, err, errlen));
    st = info;
done:
    ocl_rm_release(&b);
    return st;
}
