/* The device-resident API (linsolve.h, MAGMA's _gpu routines): which
 * contexts can run it, LAPACK's argument checks, then the backend's
 * device role (core/backend.h). The core never touches device
 * memory itself: info may live there, so even an argument error's -i is
 * written through the backend. */
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/api/lapack_check.h"
#include "core/util.h"

int ls_device_backend_open(ls_context *ctx)
{
    if (!ctx)
        return LS_EUNAVAIL;
    if (!ctx->iface) {
        /* keep why the context could not open, said once */
        static const char head[] = "the device API needs the CUDA backend";
        if (!strncmp(ctx->error, head, sizeof head - 1))
            return LS_EUNAVAIL;
        char why[LS_ERRLEN];
        snprintf(why, sizeof why, "%s", ctx->error);
        return LS_FAIL(ctx->error, sizeof ctx->error, LS_EUNAVAIL,
                       "the device API needs the CUDA backend; this context's %s backend did "
                       "not open (%s)",
                       ls_backend_name(ctx->kind), why[0] ? why : "no reason recorded");
    }
    if (ctx->kind == LS_BACKEND_CPU)
        return LS_FAIL(ctx->error, sizeof ctx->error, LS_EUNAVAIL,
                       "the device API needs the CUDA backend; this context runs on the cpu");
    return 0;
}

/* 0 when ctx's backend has the device role; else why, in ctx->error. */
static int device_ctx(ls_context *ctx)
{
    int st = ls_device_backend_open(ctx);
    if (st)
        return st;
    const ls_backend_iface *f = ctx->iface;
    if (!f->device)
        return LS_FAIL(ctx->error, sizeof ctx->error, LS_EUNSUPPORTED,
                       "the device API is not available on the %s backend: it needs the CUDA "
                       "backend",
                       f->name);
    return 0;
}

/* An argument error: info = st wherever info lives, and a message. */
static int arg_error(ls_context *ctx, const char *fn, int st, int *info, const char *const *names)
{
    char err[LS_ERRLEN];
    if (info)
        ctx->iface->device->dev_copy(ctx->bctx, info, &st, sizeof st, err, sizeof err);
    if (names)
        LS_FAIL(ctx->error, sizeof ctx->error, st, "%s: argument %d (%s) is illegal", fn, -st,
                names[-st - 1]);
    return st;
}

/* A status from a slot: -i from the backend (an argument it found bad)
 * is an argument error too; its message is already in ctx->error. */
static int slot_status(ls_context *ctx, int st, int *info)
{
    if (st < 0 && st > -100)
        return arg_error(ctx, NULL, st, info, NULL);
    return st;
}

static int context_set_stream_body(ls_context *ctx, void *stream)
{
    int st = device_ctx(ctx);
    if (st)
        return st;
    return ctx->iface->device->set_stream(ctx->bctx, stream, ctx->error, sizeof ctx->error);
}

int ls_context_set_stream(ls_context *ctx, void *stream)
{
    ls_context_enter(ctx);
    int st = context_set_stream_body(ctx, stream);
    ls_context_leave(ctx);
    return st;
}

void *ls_context_get_stream(const ls_context *ctx)
{
    if (!ctx || !ctx->iface || !ctx->iface->device)
        return NULL;
    return ctx->iface->device->get_stream(ctx->bctx);
}

static int device_malloc_body(ls_context *ctx, void **ptr, size_t bytes)
{
    if (ptr)
        *ptr = NULL;
    int st = device_ctx(ctx);
    if (st)
        return st;
    if (!ptr)
        return LS_FAIL(ctx->error, sizeof ctx->error, LS_EINVAL, "ls_device_malloc: ptr is NULL");
    return ctx->iface->device->dev_malloc(ctx->bctx, ptr, bytes, ctx->error,
                                          sizeof ctx->error);
}

int ls_device_malloc(ls_context *ctx, void **ptr, size_t bytes)
{
    ls_context_enter(ctx);
    int st = device_malloc_body(ctx, ptr, bytes);
    ls_context_leave(ctx);
    return st;
}

static int device_free_body(ls_context *ctx, void *ptr)
{
    int st = device_ctx(ctx);
    if (st || !ptr)
        return st;
    return ctx->iface->device->dev_free(ctx->bctx, ptr, ctx->error, sizeof ctx->error);
}

int ls_device_free(ls_context *ctx, void *ptr)
{
    ls_context_enter(ctx);
    int st = device_free_body(ctx, ptr);
    ls_context_leave(ctx);
    return st;
}

static int device_copy_body(ls_context *ctx, void *dst, const void *src, size_t bytes)
{
    int st = device_ctx(ctx);
    if (st || bytes == 0)
        return st;
    if (!dst || !src)
        return LS_FAIL(ctx->error, sizeof ctx->error, LS_EINVAL,
                       "ls_device_copy: %s is NULL for %zu bytes", dst ? "src" : "dst", bytes);
    return ctx->iface->device->dev_copy(ctx->bctx, dst, src, bytes, ctx->error,
                                        sizeof ctx->error);
}

int ls_device_copy(ls_context *ctx, void *dst, const void *src, size_t bytes)
{
    ls_context_enter(ctx);
    int st = device_copy_body(ctx, dst, src, bytes);
    ls_context_leave(ctx);
    return st;
}

static int device_synchronize_body(ls_context *ctx)
{
    int st = device_ctx(ctx);
    if (st)
        return st;
    return ctx->iface->device->dev_sync(ctx->bctx, ctx->error, sizeof ctx->error);
}

int ls_device_synchronize(ls_context *ctx)
{
    ls_context_enter(ctx);
    int st = device_synchronize_body(ctx);
    ls_context_leave(ctx);
    return st;
}

static const char *const getrf_args[] = {"m", "n", "dA", "ldda", "ipiv", "info"};
static const char *const getrs_args[] = {"trans", "n",    "nrhs", "dA",  "ldda",
                                         "ipiv",  "dB",   "lddb", "info"};
static const char *const gesv_args[] = {"n", "nrhs", "dA", "ldda", "ipiv", "dB", "lddb", "info"};

static int getrf_gpu_body(ls_precision p, const char *fn, int m, int n, void *dA, int ldda,
                          int *ipiv, int *info, ls_context *ctx)
{
    int st = device_ctx(ctx);
    if (st)
        return st;
    st = ls_check_getrf(m, n, dA, ldda, ipiv);
    if (st)
        return arg_error(ctx, fn, st, info, getrf_args);
    st = ctx->iface->device->getrf_gpu(ctx->bctx, p, m, n, dA, ldda, ipiv, info, ctx->error,
                                       sizeof ctx->error);
    return slot_status(ctx, st, info);
}

static int getrf_gpu(ls_precision p, const char *fn, int m, int n, void *dA, int ldda, int *ipiv,
                     int *info, ls_context *ctx)
{
    ls_context_enter(ctx);
    int st = getrf_gpu_body(p, fn, m, n, dA, ldda, ipiv, info, ctx);
    ls_context_leave(ctx);
    return st;
}

static int getrs_gpu_body(ls_precision p, const char *fn, char trans, int n, int nrhs,
                          const void *dA, int ldda, const int *ipiv, void *dB, int lddb,
                          int *info, ls_context *ctx)
{
    int st = device_ctx(ctx);
    if (st)
        return st;
    st = ls_check_getrs(trans, n, nrhs, dA, ldda, ipiv, dB, lddb);
    if (st)
        return arg_error(ctx, fn, st, info, getrs_args);
    /* real data: 'C' is 'T' */
    char t = trans == 'N' || trans == 'n' ? 'N' : 'T';
    st = ctx->iface->device->getrs_gpu(ctx->bctx, p, t, n, nrhs, dA, ldda, ipiv, dB, lddb, info,
                                       ctx->error, sizeof ctx->error);
    return slot_status(ctx, st, info);
}

static int getrs_gpu(ls_precision p, const char *fn, char trans, int n, int nrhs, const void *dA,
                     int ldda, const int *ipiv, void *dB, int lddb, int *info, ls_context *ctx)
{
    ls_context_enter(ctx);
    int st = getrs_gpu_body(p, fn, trans, n, nrhs, dA, ldda, ipiv, dB, lddb, info, ctx);
    ls_context_leave(ctx);
    return st;
}

static int gesv_gpu_body(ls_precision p, const char *fn, int n, int nrhs, void *dA, int ldda,
                         int *ipiv, void *dB, int lddb, int *info, ls_context *ctx)
{
    int st = device_ctx(ctx);
    if (st)
        return st;
    st = ls_check_gesv(n, nrhs, dA, ldda, ipiv, dB, lddb);
    if (st)
        return arg_error(ctx, fn, st, info, gesv_args);
    st = ctx->iface->device->gesv_gpu(ctx->bctx, p, n, nrhs, dA, ldda, ipiv, dB, lddb, info,
                                      ctx->error, sizeof ctx->error);
    return slot_status(ctx, st, info);
}

static int gesv_gpu(ls_precision p, const char *fn, int n, int nrhs, void *dA, int ldda, int *ipiv,
                    void *dB, int lddb, int *info, ls_context *ctx)
{
    ls_context_enter(ctx);
    int st = gesv_gpu_body(p, fn, n, nrhs, dA, ldda, ipiv, dB, lddb, info, ctx);
    ls_context_leave(ctx);
    return st;
}

int ls_dgetrf_gpu(int m, int n, double *dA, int ldda, int *ipiv, int *info, ls_context *ctx)
{
    return getrf_gpu(LS_DOUBLE, "ls_dgetrf_gpu", m, n, dA, ldda, ipiv, info, ctx);
}

int ls_sgetrf_gpu(int m, int n, float *dA, int ldda, int *ipiv, int *info, ls_context *ctx)
{
    return getrf_gpu(LS_SINGLE, "ls_sgetrf_gpu", m, n, dA, ldda, ipiv, info, ctx);
}

int ls_dgetrs_gpu(char trans, int n, int nrhs, const double *dA, int ldda, const int *ipiv,
                  double *dB, int lddb, int *info, ls_context *ctx)
{
    return getrs_gpu(LS_DOUBLE, "ls_dgetrs_gpu", trans, n, nrhs, dA, ldda, ipiv, dB, lddb, info,
                     ctx);
}

int ls_sgetrs_gpu(char trans, int n, int nrhs, const float *dA, int ldda, const int *ipiv,
                  float *dB, int lddb, int *info, ls_context *ctx)
{
    return getrs_gpu(LS_SINGLE, "ls_sgetrs_gpu", trans, n, nrhs, dA, ldda, ipiv, dB, lddb, info,
                     ctx);
}

int ls_dgesv_gpu(int n, int nrhs, double *dA, int ldda, int *ipiv, double *dB, int lddb,
                 int *info, ls_context *ctx)
{
    return gesv_gpu(LS_DOUBLE, "ls_dgesv_gpu", n, nrhs, dA, ldda, ipiv, dB, lddb, info, ctx);
}

int ls_sgesv_gpu(int n, int nrhs, float *dA, int ldda, int *ipiv, float *dB, int lddb, int *info,
                 ls_context *ctx)
{
    return gesv_gpu(LS_SINGLE, "ls_sgesv_gpu", n, nrhs, dA, ldda, ipiv, dB, lddb, info, ctx);
}
