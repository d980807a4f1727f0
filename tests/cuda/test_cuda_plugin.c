/*
 * The CUDA plugin as the core sees it; runs everywhere (no skip):
 *  - without a usable GPU, opening it must fail with LS_EUNAVAIL and a
 *    message that starts "no CUDA device" (or names the missing plugin),
 *    and the library must keep working on the CPU (AUTO falls back);
 *  - with a GPU, every CUDA method is supported in both precisions, other
 *    methods are refused with LS_EUNSUPPORTED naming the available ones,
 *    and print_info describes the device.
 * Exit status: number of failures.
 */
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "linsolve.h"
#include "testutil.h"

static const ls_method cuda_methods[] = {
    LS_METHOD_LU,       LS_METHOD_GE,      LS_METHOD_GE_NAIVE, LS_METHOD_GE_BLOCKED,
    LS_METHOD_GE_COALESCED, LS_METHOD_LU_SEED, LS_METHOD_GJ1,  LS_METHOD_GJ2,
    LS_METHOD_BICGSTAB,
};

static int without_gpu(int st, ls_context *ctx)
{
    int fails = 0;
    const char *why = ctx ? ls_context_error(ctx) : "";
    fails += lt_check(st == LS_EUNAVAIL, "no GPU: cuda context fails with LS_EUNAVAIL (%d %s)",
                      st, ls_status_name(st));
    fails += lt_check(strstr(why, "no CUDA device") != NULL || strstr(why, "cuda") != NULL,
                      "no GPU: the error says why: \"%s\"", why);
    ls_context *auto_ctx = NULL;
    int st2 = ls_context_create(&auto_ctx, LS_BACKEND_AUTO, 0);
    fails += lt_check(st2 == 0 && auto_ctx && ls_context_backend(auto_ctx) != LS_BACKEND_CUDA,
                      "no GPU: AUTO still gives a context (%s; note \"%s\")",
                      auto_ctx ? ls_backend_name(ls_context_backend(auto_ctx)) : "none",
                      auto_ctx ? ls_context_note(auto_ctx) : "");
    ls_context_destroy(auto_ctx);
    return fails;
}

static int with_gpu(ls_context *ctx)
{
    int fails = 0;
    const char *name = ls_context_device_name(ctx);
    fails += lt_check(strncmp(name, "cuda:0 ", 7) == 0, "device name \"%s\"", name);
    for (size_t i = 0; i < sizeof cuda_methods / sizeof cuda_methods[0]; i++)
        for (int p = 0; p < 2; p++) {
            int st = ls_context_supports(ctx, cuda_methods[i], (ls_precision)p);
            fails += lt_check(st == 0, "supports %s %s", ls_method_name(cuda_methods[i]),
                              ls_precision_name((ls_precision)p));
        }
    const ls_method others[] = {LS_METHOD_LAPACK, LS_METHOD_GE_LOCAL, LS_METHOD_GE_IMAGE,
                                LS_METHOD_GE_BUFFER};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        char err[LS_ERRLEN] = "";
        int st = ctx->iface->supports(ctx->bctx, others[i], LS_DOUBLE, err, sizeof err);
        fails += lt_check(st == LS_EUNSUPPORTED && strstr(err, "available: lu") != NULL,
                          "refuses %s: \"%s\"", ls_method_name(others[i]), err);
    }
    fails += lt_check(ctx->iface->auto_method(ctx->bctx, LS_DOUBLE) == LS_METHOD_LU,
                      "auto method is lu");
    FILE *f = tmpfile();
    if (f) {
        char buf[4096] = "";
        ctx->iface->print_info(ctx->bctx, f);
        rewind(f);
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        buf[got] = '\0';
        fclose(f);
        fails += lt_check(strstr(buf, "compute capability") && strstr(buf, "SMs") &&
                              strstr(buf, "driver"),
                          "print_info names cc, SMs, driver (%zu bytes)", got);
    }
    return fails;
}

int main(void)
{
    ls_context *ctx = NULL;
    int st = ls_context_create(&ctx, LS_BACKEND_CUDA, 0);
    int fails = st == 0 ? with_gpu(ctx) : without_gpu(st, ctx);
    ls_context_destroy(ctx);
    printf("%d failure(s)\n", fails);
    return fails > 76 ? 76 : fails;
}
