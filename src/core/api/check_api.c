/* ls_check_batched_gpu (linsolve.h): the fused residual and finiteness
 * check of solved systems in device memory. LAPACK-style argument checks
 * with -i numbering, the layouts turned into element strides, then the
 * backend's optional check_gpu slot (core/backend.h). */
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/util.h"

#define LS_MAX1(x) ((x) > 1 ? (x) : 1)

static const char *const CHECK_ARGS[] = {
    "prec",    "n",    "nrhs",    "layoutA", "dA",   "ldda",    "strideA", "layoutB", "dB",
    "lddb",    "strideB", "layoutX", "dX",   "lddx", "strideX", "batch",   "dout"};

typedef struct check_call {
    ls_precision prec;
    int n, nrhs, batch;
    ls_layout layout[3]; /* A, B, X */
    const void *M[3];
    int ld[3];
    long long stride[3];
    double *dout;
} check_call;

static int bad_layout(ls_layout l) { return l != LS_COL_MAJOR && l != LS_ROW_MAJOR; }

/* 0, or -i for the first illegal argument. */
static int check_args(const check_call *c)
{
    int any = c->n > 0 && c->batch > 0;
    if (c->prec != LS_DOUBLE && c->prec != LS_SINGLE) return -1;
    if (c->n < 0) return -2;
    if (c->nrhs < 0) return -3;
    for (int m = 0; m < 3; m++) {
        int base = 4 + 4 * m; /* layout, pointer, ld, stride */
        int cols = m == 0 ? c->n : c->nrhs;
        int ld_min = LS_MAX1(c->layout[m] == LS_ROW_MAJOR ? cols : c->n);
        if (bad_layout(c->layout[m])) return -base;
        if (m == 2 && !c->M[m])
            continue; /* no X: finiteness only */
        if (!c->M[m] && any && cols > 0) return -(base + 1);
        if (c->ld[m] < ld_min) return -(base + 2);
        if (c->stride[m] < 0) return -(base + 3);
    }
    if (c->batch < 0) return -16;
    if (!c->dout) return -17;
    return 0;
}

/* Element strides of a layout: (row, column). */
static void strides(ls_layout l, int ld, long long *rs, long long *cs)
{
    *rs = l == LS_ROW_MAJOR ? ld : 1;
    *cs = l == LS_ROW_MAJOR ? 1 : ld;
}

static int check_locked(const check_call *c, ls_context *ctx)
{
    static const char fn[] = "ls_check_batched_gpu";
    int open = ls_device_backend_open(ctx);
    if (open)
        return open;
    const ls_device_role *dev = ctx->iface->device;
    if (!dev || !dev->check_gpu)
        return LS_FAIL(ctx->error, sizeof ctx->error, LS_EUNSUPPORTED,
                       "%s: the fused check is not available on the %s backend: it needs the "
                       "CUDA backend",
                       fn, ctx->iface->name);
    int st = check_args(c);
    if (st)
        return LS_FAIL(ctx->error, sizeof ctx->error, st, "%s: argument %d (%s) is illegal", fn,
                       -st, CHECK_ARGS[-st - 1]);
    ls_check_job job = {0};
    job.prec = c->prec;
    job.n = c->n;
    job.nrhs = c->nrhs;
    job.batch = c->batch;
    job.A = c->M[0];
    job.B = c->M[1];
    job.X = c->M[2];
    strides(c->layout[0], c->ld[0], &job.a_rs, &job.a_cs);
    strides(c->layout[1], c->ld[1], &job.b_rs, &job.b_cs);
    strides(c->layout[2], c->ld[2], &job.x_rs, &job.x_cs);
    job.strideA = c->stride[0];
    job.strideB = c->stride[1];
    job.strideX = c->stride[2];
    job.eps = ls_eps(c->prec);
    job.out = c->dout;
    return dev->check_gpu(ctx->bctx, &job, ctx->error, sizeof ctx->error);
}

int ls_check_batched_gpu(ls_precision prec, int n, int nrhs, ls_layout layoutA, const void *dA,
                         int ldda, long long strideA, ls_layout layoutB, const void *dB, int lddb,
                         long long strideB, ls_layout layoutX, const void *dX, int lddx,
                         long long strideX, int batch, double *dout, ls_context *ctx)
{
    check_call c = {prec,
                    n,
                    nrhs,
                    batch,
                    {layoutA, layoutB, layoutX},
                    {dA, dB, dX},
                    {ldda, lddb, lddx},
                    {strideA, strideB, strideX},
                    dout};
    ls_context_enter(ctx);
    int st = check_locked(&c, ctx);
    ls_context_leave(ctx);
    return st;
}
