/*
 * The sparse solvers on a context's backend (linsolve.h): the CPU runs
 * them in the library itself; another backend through its optional sparse
 * slots (core/backend.h). The Krylov methods are the same code on every
 * backend (algo/krylov.h): only their vector operations move.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "algo/krylov.h"
#include "core/reference.h"
#include "core/tool_api.h"
#include "core/util.h"

/* 0 when ctx runs on the CPU (or is NULL); 1 for an open backend; else why. */
static int which(ls_context *ctx, char *err, size_t errlen)
{
    if (!ctx || ctx->kind == LS_BACKEND_CPU)
        return 0;
    if (!ctx->iface)
        return LS_FAIL(err, errlen, LS_EUNAVAIL, "the %s backend did not open (%s)",
                       ls_backend_name(ctx->kind), ctx->error[0] ? ctx->error : "no reason");
    return 1;
}

/* The message in ctx->error too (ls_context_error), unless the context
 * never opened: its error says why, and stays as it is. */
static void keep(ls_context *ctx, const char *msg)
{
    if (ctx && ctx->iface && msg && msg[0])
        snprintf(ctx->error, sizeof ctx->error, "%s", msg);
}

int ls_csr_solve_iter_ctx(ls_context *ctx, const ls_csr *A, const double *b, double *x,
                          const ls_iter_options *opt, ls_iter_report *rep, char *err,
                          size_t errlen)
{
    char msg[LS_ERRLEN] = "";
    int on = which(ctx, msg, sizeof msg);
    if (on == 0)
        return ls_csr_solve_iter(A, b, x, opt, rep, err, errlen);
    ls_iter_report local;
    if (!rep)
        rep = &local;
    const ls_sparse_role *sp = on > 0 ? ctx->iface->sparse : NULL;
    if (on < 0 || !sp || !sp->krylov_open) {
        if (on > 0)
            on = LS_FAIL(msg, sizeof msg, LS_EUNSUPPORTED,
                         "unsupported: the %s backend has no sparse iterative solvers",
                         ctx->iface->name);
        memset(rep, 0, sizeof *rep);
        ls_message_split(msg, rep->message, sizeof rep->message, NULL, 0);
        keep(ctx, msg);
        if (err && errlen)
            snprintf(err, errlen, "%s", rep->message);
        return on;
    }
    ls_context_enter(ctx);
    int st = ls_csr_solve_iter_on(A, b, x, opt, rep, err, errlen, sp->krylov_open,
                                  sp->krylov_close, ctx->bctx, ctx->device_name);
    if (st)
        keep(ctx, rep->message);
    ls_context_leave(ctx);
    return st;
}

int ls_csr_direct_available_ctx(ls_context *ctx)
{
    char msg[LS_ERRLEN];
    int on = which(ctx, msg, sizeof msg);
    if (on == 0)
        return ls_csr_direct_available();
    return on > 0 && ctx->iface->sparse && ctx->iface->sparse->direct != NULL;
}

int ls_csr_solve_direct_ctx(ls_context *ctx, const ls_csr *A, int nrhs, const double *B,
                            int64_t ldb, double *X, int64_t ldx, ls_csr_direct_report *rep,
                            char *err, size_t errlen)
{
    char msg[LS_ERRLEN] = "";
    int on = which(ctx, msg, sizeof msg);
    if (on == 0)
        return ls_csr_solve_direct(A, nrhs, B, ldb, X, ldx, rep, err, errlen);
    ls_csr_direct_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    rep->residual = NAN;
    rep->rcond = NAN;
    int st = on;
    const ls_sparse_role *sp = on > 0 ? ctx->iface->sparse : NULL;
    if (on > 0 && (!sp || !sp->direct))
        st = LS_FAIL(msg, sizeof msg, LS_EUNSUPPORTED,
                     "unsupported: the %s backend has no sparse direct solver%s",
                     ctx->iface->name,
                     ctx->kind == LS_BACKEND_CUDA ? " (it was built without cuDSS)" : "");
    else if (on > 0)
        st = ls_csr_direct_check(A, nrhs, B, ldb, X, ldx, msg, sizeof msg);
    if (st == 0) {
        ls_context_enter(ctx);
        st = sp->direct(ctx->bctx, A, nrhs, B, ldb, X, ldx, rep, msg, sizeof msg);
        ls_context_leave(ctx);
        if (st == 0) {
            /* the verdict is the caller's residual, on the host's CSR */
            rep->residual = nrhs > 0 ? ls_csr_scaled_residual(A, nrhs, B, ldb, X, ldx) : 0;
            char head[sizeof rep->message];
            snprintf(head, sizeof head, "%s", rep->message);
            if (rep->residual <= 30) {
                snprintf(rep->message, sizeof rep->message, "%s: scaled residual %.3g", head,
                         rep->residual);
                return 0;
            }
            snprintf(rep->message, sizeof rep->message, "%s: scaled residual %.3g > 30", head,
                     rep->residual);
            st = LS_INACCURATE;
            snprintf(msg, sizeof msg, "%s", rep->message);
        }
    }
    if (st < 0 || !rep->message[0])
        ls_message_split(msg, rep->message, sizeof rep->message, NULL, 0);
    keep(ctx, msg);
    if (err && errlen)
        snprintf(err, errlen, "%s", rep->message);
    return st;
}
