/* The relay backend: what a plugin must provide and nothing more (the
 * required core slots of ls_backend_iface, every role table left NULL, and
 * the three entry points of core/backend.h). It runs method lu by calling
 * ls_dgesv / ls_sgesv without a context, i.e. on the CPU reference, so its
 * answers are the CPU's; it exists to count the files a new backend touches
 * (tests/house). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/backend.h"

static const ls_core_services *core;

static const ls_method_support relay_methods[] = {{LS_METHOD_LU, LS_PREC_DS}};

static int relay_fail(char *err, size_t errlen, int status, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    status = core->vfail(err, errlen, status, __FILE__, line, fmt, ap);
    va_end(ap);
    return status;
}

static void relay_destroy(void *bctx)
{
    (void)bctx;
}

static void relay_device_name(void *bctx, char *buf, size_t len)
{
    (void)bctx;
    snprintf(buf, len, "relay: the CPU reference");
}

static int relay_supports(void *bctx, ls_method m, ls_precision p, char *err, size_t errlen)
{
    (void)bctx;
    return core->methods_check(LS_BACKEND_RELAY, relay_methods,
                               sizeof relay_methods / sizeof relay_methods[0], m, p, err, errlen);
}

static ls_method relay_auto_method(void *bctx, ls_precision p)
{
    (void)bctx;
    (void)p;
    return LS_METHOD_LU;
}

static int relay_solve(void *bctx, const ls_job *job, ls_report *rep, char *err, size_t errlen)
{
    (void)bctx;
    if (job->pivot == LS_PIVOT_NONE)
        return relay_fail(err, errlen, LS_EUNSUPPORTED, __LINE__, "relay always pivots");
    int info = 0;
    double t0 = core->now();
    int st = job->prec == LS_SINGLE
                 ? ls_sgesv(job->n, job->nrhs, job->A, job->lda, job->ipiv, job->B, job->ldb,
                            &info, NULL)
                 : ls_dgesv(job->n, job->nrhs, job->A, job->lda, job->ipiv, job->B, job->ldb,
                            &info, NULL);
    rep->t_factor = core->now() - t0;
    if (st < 0)
        return relay_fail(err, errlen, st, __LINE__, "the CPU reference's gesv: %s",
                          core->strerror(st));
    rep->info = info;
    snprintf(rep->message, sizeof rep->message, "solved with lu on relay (the CPU reference)");
    return info;
}

static const ls_backend_iface relay_iface = {
    .name = "relay",
    .abi = LS_PLUGIN_ABI,
    .destroy = relay_destroy,
    .device_name = relay_device_name,
    .supports = relay_supports,
    .auto_method = relay_auto_method,
    .solve = relay_solve,
    /* no role: ls_?getrf/getrs/gesv run the CPU reference, the device,
     * mixed-device, batched-device and sparse-device calls are
     * LS_EUNSUPPORTED (core/backend.h) */
};

LS_API int ls_plugin_abi(void) { return LS_PLUGIN_ABI; }

LS_API int ls_plugin_open(const ls_core_services *services, int device,
                          const ls_backend_iface **iface, void **bctx, char *err, size_t errlen)
{
    if (!services || services->abi != LS_PLUGIN_ABI) {
        snprintf(err, errlen, "the relay plugin needs plugin ABI %d", LS_PLUGIN_ABI);
        return LS_EUNAVAIL;
    }
    core = services;
    if (device > 0)
        return relay_fail(err, errlen, LS_EUNAVAIL, __LINE__,
                          "backend relay has one device (0), not %d", device);
    *iface = &relay_iface;
    *bctx = NULL;
    return 0;
}

LS_API int ls_plugin_print_info(const ls_core_services *services, FILE *out)
{
    if (!services || services->abi != LS_PLUGIN_ABI)
        return LS_EUNAVAIL;
    fprintf(out, "  relay: one device, the CPU reference (method lu)\n");
    return 0;
}
