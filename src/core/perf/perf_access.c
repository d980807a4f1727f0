/* The measurement tools' accessors of a context's backend (core/perf/perf.h):
 * the tools see ls_context only through linsolve.h and these. */
#include "core/backend.h"
#include "core/perf/perf.h"

const ls_perf_iface *ls_perf_table(const ls_context *ctx)
{
    return ctx && ctx->iface ? ctx->iface->perf : NULL;
}

void *ls_perf_backend_ctx(const ls_context *ctx)
{
    return ctx ? ctx->bctx : NULL;
}

ls_method ls_perf_auto_method(const ls_context *ctx, ls_precision p)
{
    return ctx && ctx->iface && ctx->iface->auto_method ? ctx->iface->auto_method(ctx->bctx, p)
                                                        : LS_METHOD_AUTO;
}
