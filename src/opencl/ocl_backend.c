/* The OpenCL backend's interface table and the plugin's exported entry points. */
#include <stdio.h>
#include <string.h>

#include "ocl_internal.h"

/* Methods this backend runs, in the order `supports` lists them. */
static const ls_method ocl_methods[] = {
    LS_METHOD_LU,        LS_METHOD_GJ1,      LS_METHOD_GJ2,       LS_METHOD_GE,
    LS_METHOD_GE_NAIVE,  LS_METHOD_GE_BLOCKED, LS_METHOD_GE_COALESCED, LS_METHOD_GE_LOCAL,
    LS_METHOD_GE_IMAGE,  LS_METHOD_GE_BUFFER};
#define OCL_NMETHODS (sizeof ocl_methods / sizeof ocl_methods[0])

static void ocl_destroy(void *bctx) { ocl_context_close(bctx); }

static void ocl_device_name(void *bctx, char *buf, size_t len)
{
    const ocl_ctx *c = bctx;
    snprintf(buf, len, "%s", c->name);
}

static int ocl_supports(void *bctx, ls_method m, ls_precision p, char *err, size_t errlen)
{
    const ocl_ctx *c = bctx;
    int known = 0;
    for (size_t i = 0; i < OCL_NMETHODS; ++i)
        known |= ocl_methods[i] == m;
    if (!known) {
        char list[256] = "";
        size_t used = 0;
        for (size_t i = 0; i < OCL_NMETHODS && used < sizeof list; ++i) {
            int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                             ocl_method_name(ocl_methods[i]));
            if (w < 0)
                break;
            used += (size_t)w;
        }
        return OCL_FAIL(LS_EUNSUPPORTED, "method %s is not available on opencl; available: %s",
                        ocl_method_name(m), list);
    }
    if (m == LS_METHOD_GE_IMAGE) {
        if (p == LS_DOUBLE)
            return OCL_FAIL(LS_EUNSUPPORTED,
                            "ge-image stores the matrix in an image: float only");
        if (!c->has_images)
            return OCL_FAIL(LS_EUNSUPPORTED, "device %s has no image support (ge-image)",
                            c->name);
    }
    if (p == LS_DOUBLE && !c->has_fp64)
        return OCL_FAIL(LS_EUNSUPPORTED, "device %s has no cl_khr_fp64", c->name);
    return 0;
}

static ls_method ocl_auto_method(void *bctx, ls_precision p) { return LS_METHOD_LU; }

static int ocl_solve(void *bctx, const ls_job *job, ls_report *rep, char *err, size_t errlen)
{
    ocl_ctx *c = bctx;
    if (!job || !rep)
        return OCL_FAIL(LS_EINVAL, "NULL job or report");
    int st = ocl_supports(bctx, job->method, job->prec, err, errlen);
    if (st)
        return st;
    if (job->n < 0 || job->nrhs < 0 || job->lda < (job->n > 1 ? job->n : 1) ||
        job->ldb < (job->n > 1 ? job->n : 1))
        return OCL_FAIL(LS_EINVAL, "bad dimensions n=%d nrhs=%d lda=%d ldb=%d", job->n,
                        job->nrhs, job->lda, job->ldb);
    rep->info = 0;
    rep->t_h2d = rep->t_factor = rep->t_solve = rep->t_d2h = 0.0;
    /* LAPACK quick return. With nrhs == 0 the drivers still factor, for info. */
    if (job->n == 0)
        return 0;
    switch (job->method) {
    case LS_METHOD_LU:
        st = ocl_solve_lu(c, job, rep, err, errlen);
        break;
    case LS_METHOD_GJ1:
    case LS_METHOD_GJ2:
        st = ocl_solve_gj(c, job, rep, err, errlen);
        break;
    case LS_METHOD_GE:
    case LS_METHOD_GE_NAIVE:
    case LS_METHOD_GE_BLOCKED:
    case LS_METHOD_GE_COALESCED:
        st = ocl_solve_ge_seed(c, job, rep, err, errlen);
        break;
    case LS_METHOD_GE_LOCAL:
        st = ocl_solve_ge_local(c, job, rep, err, errlen);
        break;
    case LS_METHOD_GE_IMAGE:
    case LS_METHOD_GE_BUFFER:
        st = ocl_solve_ge_pingpong(c, job, rep, err, errlen);
        break;
    default:
        st = OCL_FAIL(LS_EINTERNAL, "method %s reached the dispatcher", ocl_method_name(job->method));
    }
    if (st >= 0 && st < 1000000)
        rep->info = st;
    if (st == 0)
        snprintf(rep->message, sizeof rep->message, "%s on %s", ocl_method_name(job->method),
                 c->name);
    else if (st > 0 && st < 1000000)
        snprintf(rep->message, sizeof rep->message, "%s on %s: U(%d,%d) is exactly zero",
                 ocl_method_name(job->method), c->name, st, st);
    return st;
}

static int ocl_print_info(void *bctx, FILE *out) { return ocl_print_platforms(out); }

static const ls_backend_iface ocl_iface = {
    .name = "opencl",
    .abi = LS_PLUGIN_ABI,
    .destroy = ocl_destroy,
    .device_name = ocl_device_name,
    .supports = ocl_supports,
    .auto_method = ocl_auto_method,
    .solve = ocl_solve,
    .print_info = ocl_print_info,
    .getrf = ocl_getrf,
    .perf = NULL,
};

/**
 * Plugin entry point (LS_PLUGIN_ENTRY): open a backend context.
 * @param[in]  device index across all OpenCL platforms in enumeration order;
 *                    < 0 picks the first GPU, else the first device. The
 *                    environment variable LS_OPENCL_DEVICE=N overrides it.
 * @param[out] iface  the backend's function table
 * @param[out] bctx   the backend context (free with iface->destroy)
 * @param[out] err    message on failure
 * @param[in]  errlen size of err
 * @return 0, LS_EUNAVAIL (no platform, no device, bad index), LS_ENOMEM, LS_EDEVICE
 */
LS_API int ls_plugin_open(int device, const ls_backend_iface **iface, void **bctx, char *err,
                          size_t errlen)
{
    ocl_ctx *c = NULL;
    int st = ocl_context_open(device, &c, err, errlen);
    if (st)
        return st;
    *iface = &ocl_iface;
    *bctx = c;
    return 0;
}

/**
 * Plugin entry point (LS_PLUGIN_INFO_ENTRY): list platforms and devices.
 * @param[in] out stream to write to
 * @return 0, or LS_EUNAVAIL when there is no platform or device
 */
LS_API int ls_plugin_print_info(FILE *out) { return ocl_print_platforms(out); }
