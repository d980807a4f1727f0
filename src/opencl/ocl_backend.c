/* The OpenCL backend's interface table and the plugin's exported entry points. */
#include <stdio.h>
#include <string.h>

#include "ocl_internal.h"

/* What this backend runs, against the method table (ge runs as the table's
 * runs_as, ge-coalesced), in the order `supports` lists them. */
static const ls_method_support ocl_methods[] = {
    {LS_METHOD_LU, LS_PREC_DS},         {LS_METHOD_GJ1, LS_PREC_DS},
    {LS_METHOD_GJ2, LS_PREC_DS},        {LS_METHOD_GE_NAIVE, LS_PREC_DS},
    {LS_METHOD_GE_BLOCKED, LS_PREC_DS}, {LS_METHOD_GE_COALESCED, LS_PREC_DS},
    {LS_METHOD_GE_LOCAL, LS_PREC_DS},   {LS_METHOD_GE_IMAGE, LS_PREC_S}, /* an image of floats */
    {LS_METHOD_GE_BUFFER, LS_PREC_DS}};
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
    int st = ocl_core()->methods_check(LS_BACKEND_OPENCL, ocl_methods, OCL_NMETHODS, m, p, err,
                                       errlen);
    if (st)
        return st;
    if (m == LS_METHOD_GE_IMAGE && !c->has_images)
        return OCL_FAIL(LS_EUNSUPPORTED, "device %s has no image support (ge-image)", c->name);
    if (p == LS_DOUBLE && !c->has_fp64)
        return OCL_FAIL(LS_EUNSUPPORTED, "device %s has no cl_khr_fp64", c->name);
    return 0;
}

static ls_method ocl_auto_method(void *bctx, ls_precision p) { return LS_METHOD_LU; }

/* The job is checked (core/backend.h, solve). */
static int ocl_solve(void *bctx, const ls_job *job, ls_report *rep, char *err, size_t errlen)
{
    ocl_ctx *c = bctx;
    const char *method = ocl_core()->method_name(job->method);
    int st = 0, timed = 0; /* timed: the driver filled rep's times itself */
    rep->info = 0;
    rep->t_h2d = rep->t_factor = rep->t_solve = rep->t_d2h = 0.0;
    /* LAPACK quick return. With nrhs == 0 the drivers still factor, for info. */
    if (job->n == 0)
        return 0;
    ocl_tick ev[OCL_EV_COUNT_];
    memset(ev, 0, sizeof ev);
    ls_job run = *job;
    run.method = ocl_core()->methods_resolve(ocl_methods, OCL_NMETHODS, job->method);
    switch (run.method) {
    case LS_METHOD_LU:
        st = ocl_solve_lu(c, &run, ev, err, errlen);
        break;
    case LS_METHOD_GJ1:
    case LS_METHOD_GJ2:
    case LS_METHOD_GE_NAIVE:
    case LS_METHOD_GE_BLOCKED:
    case LS_METHOD_GE_COALESCED:
        st = ocl_solve_seed(c, &run, ev, rep, err, errlen);
        timed = 1;
        break;
    case LS_METHOD_GE_LOCAL:
        st = ocl_solve_ge_local(c, &run, ev, err, errlen);
        break;
    case LS_METHOD_GE_IMAGE:
    case LS_METHOD_GE_BUFFER:
        st = ocl_solve_ge_pingpong(c, &run, ev, err, errlen);
        break;
    default:
        st = OCL_FAIL(LS_EINTERNAL, "method %s reached the dispatcher", method);
    }
    /* The phase times, as CUDA reads its events: after the last mark. */
    if (st >= 0 && !timed)
        ocl_ticks_report(ev, rep);
    ocl_ticks_release(ev);
    const char *clock = c->profiling ? "" : " (timed by clFinish + wall clock)";
    if (st >= 0 && st < 1000000)
        rep->info = st;
    if (st == 0)
        snprintf(rep->message, sizeof rep->message, "%s on %s%s", method, c->name, clock);
    else if (st > 0 && st < 1000000)
        snprintf(rep->message, sizeof rep->message, "%s on %s: U(%d,%d) is exactly zero%s",
                 method, c->name, st, st, clock);
    return st;
}

static int ocl_print_info(void *bctx, FILE *out) { return ocl_print_platforms(out); }

/* ls_?getrf on an opencl context (getrs: the CPU reference) */
static const ls_dense_role ocl_dense = {
    .getrf = ocl_getrf,
};

/* ls_?*_batched on host arrays: one launch for the whole stack. A
 * work-group a system: on PoCL (bench/results/cpu/stack-paths.csv and the
 * crossover rows in bench/results/README.md) it is 1.5x the single-system
 * LU at n = 256, even at 448 and 0.8x at 513, whose steps spread over the
 * device; above max_n the planner goes system by system. */
static const ls_batched_role ocl_batched_role = {
    .run = ocl_batched,
    .max_n = 384,
};

/* no device, mixed or sparse role, no measurement requests */
static const ls_backend_iface ocl_iface = {
    .name = "opencl",
    .abi = LS_PLUGIN_ABI,
    .destroy = ocl_destroy,
    .device_name = ocl_device_name,
    .supports = ocl_supports,
    .auto_method = ocl_auto_method,
    .solve = ocl_solve,
    .print_info = ocl_print_info,
    .dense = &ocl_dense,
    .batched = &ocl_batched_role,
};

/** LS_PLUGIN_ABI as this plugin was built; the core reads it first. */
LS_API int ls_plugin_abi(void) { return LS_PLUGIN_ABI; }

/**
 * Plugin entry point (LS_PLUGIN_ENTRY): open a backend context.
 * @param[in]  core   the core's services, used for every name, message and time
 * @param[in]  device index across all OpenCL platforms in enumeration order;
 *                    < 0 picks the first GPU, else the first device. The
 *                    environment variable LS_OPENCL_DEVICE=N overrides it.
 * @param[out] iface  the backend's function table
 * @param[out] bctx   the backend context (free with iface->destroy)
 * @param[out] err    message on failure
 * @param[in]  errlen size of err
 * @return 0, LS_EUNAVAIL (no platform, no device, bad index), LS_ENOMEM, LS_EDEVICE
 */
LS_API int ls_plugin_open(const ls_core_services *core, int device,
                          const ls_backend_iface **iface, void **bctx, char *err, size_t errlen)
{
    ocl_ctx *c = NULL;
    if (!core || core->abi != LS_PLUGIN_ABI) {
        snprintf(err, errlen, "the OpenCL plugin needs plugin ABI %d", LS_PLUGIN_ABI);
        return LS_EUNAVAIL;
    }
    ocl_core_set(core);
    int st = ocl_context_open(device, &c, err, errlen);
    if (st)
        return st;
    *iface = &ocl_iface;
    *bctx = c;
    return 0;
}

/**
 * Plugin entry point (LS_PLUGIN_INFO_ENTRY): list platforms and devices.
 * @param[in] core the core's services
 * @param[in] out  stream to write to
 * @return 0, or LS_EUNAVAIL when there is no platform or device
 */
LS_API int ls_plugin_print_info(const ls_core_services *core, FILE *out)
{
    if (!core || core->abi != LS_PLUGIN_ABI)
        return LS_EUNAVAIL;
    ocl_core_set(core);
    return ocl_print_platforms(out);
}
