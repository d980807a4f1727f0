/* ls_dsgesv / ls_dsgesv_gpu: argument checks, which backend's operations
 * run (algo/mixed.h), and the host-array path on a CUDA context (copies
 * to the device, the device path, copies back). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/api/lapack_check.h"
#include "algo/mixed.h"
#include "core/util.h"

static const char *const factor_names[] = {"auto", "fp32", "tf32", "tf32x3", "bf16", "fp16",
                                            "fp64"};
static const char *const refine_names[] = {"auto", "ir", "gmres"};
static const char *const pivot_names[] = {"partial", "none", "rbt", "auto"};

const char *ls_factor_name(ls_factor_prec f)
{
    return f >= 0 && f < LS_FACTOR_COUNT_ ? factor_names[f] : NULL;
}

int ls_factor_parse(const char *name, ls_factor_prec *out)
{
    for (int i = 0; name && i < LS_FACTOR_COUNT_; i++)
        if (!strcmp(name, factor_names[i])) {
            *out = (ls_factor_prec)i;
            return 0;
        }
    return LS_EINVAL;
}

const char *ls_refine_name(ls_refine_kind r)
{
    return r >= 0 && r < LS_REFINE_COUNT_ ? refine_names[r] : NULL;
}

int ls_refine_parse(const char *name, ls_refine_kind *out)
{
    for (int i = 0; name && i < LS_REFINE_COUNT_; i++)
        if (!strcmp(name, refine_names[i])) {
            *out = (ls_refine_kind)i;
            return 0;
        }
    return LS_EINVAL;
}

const char *ls_pivot_name(ls_pivot p)
{
    return p >= 0 && p < LS_PIVOT_COUNT_ ? pivot_names[p] : NULL;
}

int ls_pivot_parse(const char *name, ls_pivot *out)
{
    for (int i = 0; name && i < LS_PIVOT_COUNT_; i++)
        if (!strcmp(name, pivot_names[i])) {
            *out = (ls_pivot)i;
            return 0;
        }
    return LS_EINVAL;
}

void ls_mixed_opts_init(ls_mixed_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->factor = LS_FACTOR_AUTO;
    o->refine = LS_REFINE_AUTO;
    o->max_iter = 30;
    o->restart = 30;
    o->fallback = 1;
    o->pivot = LS_PIVOT_AUTO;
}

/* LAPACK dsgesv's checks, ctx not counted: n, nrhs, A, lda, ipiv, B, ldb,
 * X, ldx, then the options. */
static int check_args(int n, int nrhs, const void *A, int lda, const int *ipiv, const void *B,
                      int ldb, const void *X, int ldx, const ls_mixed_opts *o)
{
    int st = ls_check_gesv(n, nrhs, A, lda, ipiv, B, ldb);
    if (st)
        return st;
    if (!X && n > 0 && nrhs > 0)
        return -8;
    if (ldx < (n > 1 ? n : 1))
        return -9;
    if (o->factor < 0 || o->factor >= LS_FACTOR_COUNT_ || o->refine < 0 ||
        o->refine >= LS_REFINE_COUNT_ || o->max_iter < 0 || o->restart < 1 || o->restart > 64 ||
        o->pivot < 0 || o->pivot >= LS_PIVOT_COUNT_)
        return -10;
    return 0;
}

static const char *const arg_names[] = {"n", "nrhs", "A", "lda", "ipiv", "B", "ldb", "X", "ldx",
                                        "opts"};

static void result_init(ls_mixed_result *res, const ls_mixed_opts *o)
{
    memset(res, 0, sizeof *res);
    res->factor = o->factor;
    res->pivot = o->pivot;
    res->refine = LS_REFINE_AUTO;
    res->residual = NAN;
}

/* Run the refinement on a backend's operations over the arrays in pb. */
static int run_ops(ls_mixed_open_fn open, void *bctx, ls_mixed_problem *pb,
                   const ls_mixed_opts *o, ls_mixed_result *res, char *err, size_t errlen)
{
    const ls_mixed_ops *ops = NULL;
    void *ws = NULL;
    int st = open(bctx, pb, &ops, &ws, err, errlen);
    res->factor = pb->factor;
    res->pivot = pb->pivot;
    if (st) {
        snprintf(res->message, sizeof res->message, "%s", err);
        return st;
    }
    st = ls_mixed_run(ops, ws, pb, o, res, err, errlen);
    if (st < 0 && !res->message[0])
        snprintf(res->message, sizeof res->message, "%s", err);
    ops->close(ws);
    return st;
}

/* cols columns of n doubles between a leading dimension of n and ld: one
 * copy when they coincide, else one a column. */
static int copy_cols(ls_context *ctx, double *dst, int ldd, const double *src, int lds, int n,
                     int cols)
{
    const ls_device_role *f = ctx->iface->device;
    size_t es = sizeof(double);
    if (ldd == n && lds == n)
        return f->dev_copy(ctx->bctx, dst, src, (size_t)n * (size_t)cols * es, ctx->error,
                           sizeof ctx->error);
    int st = 0;
    for (int j = 0; !st && j < cols; j++)
        st = f->dev_copy(ctx->bctx, dst + (size_t)j * ldd, src + (size_t)j * lds, (size_t)n * es,
                         ctx->error, sizeof ctx->error);
    return st;
}

/* Host arrays on a context with device operations: A, B up; X, the
 * pivots and (after a fallback) the factors down. */
static int run_via_device(ls_context *ctx, ls_mixed_problem *hp, const ls_mixed_opts *o,
                          ls_mixed_result *res)
{
    const ls_device_role *f = ctx->iface->device;
    char *err = ctx->error;
    size_t errlen = sizeof ctx->error, es = sizeof(double);
    size_t nn = (size_t)hp->n * (size_t)hp->n, nb = (size_t)hp->n * (size_t)hp->nrhs;
    double *dA = NULL, *dB = NULL, *dX = NULL;
    int st = f->dev_malloc(ctx->bctx, (void **)&dA, nn * es, err, errlen);
    if (!st)
        st = f->dev_malloc(ctx->bctx, (void **)&dB, nb * es, err, errlen);
    if (!st)
        st = f->dev_malloc(ctx->bctx, (void **)&dX, nb * es, err, errlen);
    if (!st)
        st = copy_cols(ctx, dA, hp->n, hp->A, hp->lda, hp->n, hp->n);
    if (!st)
        st = copy_cols(ctx, dB, hp->n, hp->B, hp->ldb, hp->n, hp->nrhs);
    if (!st) {
        ls_mixed_problem dp = *hp;
        dp.A = dA;
        dp.lda = hp->n;
        dp.B = dB;
        dp.ldb = hp->n;
        dp.X = dX;
        dp.ldx = hp->n;
        st = run_ops(ctx->iface->mixed->open, ctx->bctx, &dp, o, res, err, errlen);
        hp->factor = dp.factor;
        hp->pivot = dp.pivot;
        /* X is zeros on a failure, never garbage: copy it whenever it exists */
        int copy_st = 0;
        if (st >= 0 || st == LS_NOT_CONVERGED)
            copy_st = copy_cols(ctx, hp->X, hp->ldx, dX, hp->n, hp->n, hp->nrhs);
        if (!copy_st && res->fell_back && st >= 0)
            copy_st = copy_cols(ctx, hp->A, hp->lda, dA, hp->n, hp->n, hp->n);
        if (copy_st)
            st = copy_st;
    }
    if (st < 0) { /* no answer came back: the caller's X says so with zeros */
        for (int j = 0; j < hp->nrhs; j++)
            memset(hp->X + (size_t)j * hp->ldx, 0, (size_t)hp->n * es);
        if (!res->message[0]) /* a failed copy or allocation around the solve */
            snprintf(res->message, sizeof res->message, "%s", err);
    }
    f->dev_free(ctx->bctx, dA, err, errlen);
    f->dev_free(ctx->bctx, dB, err, errlen);
    f->dev_free(ctx->bctx, dX, err, errlen);
    return st;
}

static int dsgesv_any(int device, ls_context *ctx, int n, int nrhs, double *A, int lda, int *ipiv,
                      const double *B, int ldb, double *X, int ldx, const ls_mixed_opts *opts,
                      ls_mixed_result *res)
{
    ls_mixed_opts o;
    ls_mixed_result own;
    char local[LS_ERRLEN] = "";
    char *err = ctx ? ctx->error : local;
    size_t errlen = ctx ? sizeof ctx->error : sizeof local;
    const char *fn = device ? "ls_dsgesv_gpu" : "ls_dsgesv";
    if (opts)
        o = *opts;
    else
        ls_mixed_opts_init(&o);
    if (!res)
        res = &own;
    result_init(res, &o);
    int st = check_args(n, nrhs, A, lda, ipiv, B, ldb, X, ldx, &o);
    if (st) {
        LS_FAIL(err, errlen, st, "%s: argument %d (%s) is illegal", fn, -st, arg_names[-st - 1]);
        snprintf(res->message, sizeof res->message, "argument %d (%s) is illegal", -st,
                 arg_names[-st - 1]);
        return st;
    }
    ls_mixed_problem pb = {n, nrhs, A, lda, ipiv, B, ldb, X, ldx, o.factor,
                           o.restart, o.pivot};
    const ls_backend_iface *f = ctx ? ctx->iface : NULL;
    /* the mixed role comes with the device role (ls_backend_roles_check) */
    int has_device = f && ctx->kind != LS_BACKEND_CPU && f->mixed && f->device;
    if (device && !has_device) {
        st = ctx && f && ctx->kind != LS_BACKEND_CPU ? LS_EUNSUPPORTED : LS_EUNAVAIL;
        LS_FAIL(err, errlen, st, "ls_dsgesv_gpu needs the CUDA backend; this context runs on %s",
                ctx ? ls_backend_name(ctx->kind) : "the cpu (no context)");
        snprintf(res->message, sizeof res->message, "%s", err);
        return st;
    }
    if (n == 0 || nrhs == 0) {
        res->residual = 0;
        res->converged = 1;
        snprintf(res->message, sizeof res->message, "nothing to solve (n = %d, nrhs = %d)", n,
                 nrhs);
        return 0;
    }
    if (device)
        st = run_ops(f->mixed->open, ctx->bctx, &pb, &o, res, err, errlen);
    else if (has_device)
        st = run_via_device(ctx, &pb, &o, res);
    else
        st = run_ops(ls_cpu_mixed_open, NULL, &pb, &o, res, err, errlen);
    return st;
}

int ls_dsgesv(ls_context *ctx, int n, int nrhs, double *A, int lda, int *ipiv, const double *B,
              int ldb, double *X, int ldx, const ls_mixed_opts *opts, ls_mixed_result *res)
{
    ls_context_enter(ctx); /* a shared context: one call at a time (docs/threads.md) */
    int st = dsgesv_any(0, ctx, n, nrhs, A, lda, ipiv, B, ldb, X, ldx, opts, res);
    ls_context_leave(ctx);
    return st;
}

int ls_dsgesv_gpu(ls_context *ctx, int n, int nrhs, double *dA, int ldda, int *ipiv,
                  const double *dB, int lddb, double *dX, int lddx, const ls_mixed_opts *opts,
                  ls_mixed_result *res)
{
    ls_context_enter(ctx);
    int st = dsgesv_any(1, ctx, n, nrhs, dA, ldda, ipiv, dB, lddb, dX, lddx, opts, res);
    ls_context_leave(ctx);
    return st;
}
