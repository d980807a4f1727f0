/* The measurement tools' accessors of a context's backend (core/perf/perf.h):
 * the tools see ls_context only through linsolve.h and these. The perf
 * table comes from the backend's measurement plugin (perf_plugin.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/backend.h"
#include "core/perf/perf.h"
#include "core/perf/perf_plugin.h"
#include "core/util.h"

/* Every entry of a stand-in table fails with `why`, so that a tool prints
 * the reason under the request it sent (bench_util.h, LS_BENCH_PERF). */
#define ABSENT_ENTRY(why, name, In, Out)                                                   \
    static int why##_##name(void *bctx, const In *in, Out *out, char *err, size_t errlen) \
    {                                                                                      \
        (void)bctx, (void)in, (void)out;                                                   \
        return why(err, errlen);                                                           \
    }
#define ABSENT_TABLE(why)                                                                    \
    static int why##_device(void *bctx, ls_perf_device *out, char *err, size_t errlen)       \
    {                                                                                        \
        (void)bctx, (void)out;                                                               \
        return why(err, errlen);                                                             \
    }                                                                                        \
    ABSENT_ENTRY(why, kernels, ls_perf_kernels_in, ls_perf_kernels_out)                      \
    ABSENT_ENTRY(why, copy, ls_perf_copy_in, ls_perf_timing)                                 \
    ABSENT_ENTRY(why, fma, ls_perf_fma_in, ls_perf_timing)                                   \
    ABSENT_ENTRY(why, intensity, ls_perf_intensity_in, ls_perf_timing)                       \
    ABSENT_ENTRY(why, gemm, ls_perf_gemm_in, ls_perf_timing)                                 \
    ABSENT_ENTRY(why, gemv, ls_perf_gemm_in, ls_perf_timing)                                 \
    ABSENT_ENTRY(why, peer, ls_perf_peer_in, ls_perf_peer_out)                               \
    ABSENT_ENTRY(why, lu_vs_peer, ls_perf_lu_vs_peer_in, ls_perf_lu_vs_peer_out)             \
    ABSENT_ENTRY(why, mixed_vs_peer, ls_perf_mixed_in, ls_perf_mixed_out)                    \
    ABSENT_ENTRY(why, batched_vs_peer, ls_perf_batched_in, ls_perf_batched_out)              \
    static const ls_perf_iface why##_table = {                                               \
        why##_device, why##_kernels,    why##_copy,       why##_fma,                         \
        why##_intensity, why##_gemm,    why##_gemv,       why##_peer,                        \
        why##_lu_vs_peer, why##_mixed_vs_peer, why##_batched_vs_peer,                        \
    };

static int cuda_missing(char *err, size_t errlen)
{
    return LS_FAIL(err, errlen, LS_EUNAVAIL,
                   "CUDA measurement plugin not built/installed: no liblinsolve_cuda_perf.so "
                   "beside liblinsolve_cuda.so (build the target linsolve_cuda_perf; "
                   "cmake --install puts it beside the backend plugin)");
}

static int cuda_refused(char *err, size_t errlen)
{
    return LS_FAIL(err, errlen, LS_EUNAVAIL,
                   "CUDA measurement plugin unusable: liblinsolve_cuda_perf.so beside "
                   "liblinsolve_cuda.so does not load, or was built for another plugin or "
                   "perf ABI than this liblinsolve (rebuild it with the backend plugin)");
}

ABSENT_TABLE(cuda_missing)
ABSENT_TABLE(cuda_refused)

/* The backends that answer measurement requests: for them a measurement
 * plugin that cannot be used is a fault the tools report; any other
 * plugin backend has none unless its plugin is found. */
static const struct {
    ls_backend_kind kind;
    const ls_perf_iface *missing, *refused;
} measured[] = {
    {LS_BACKEND_CUDA, &cuda_missing_table, &cuda_refused_table},
};

/* What stands in when kind's measurement plugin is absent (exists: the
 * file is there but was refused), or NULL for a backend without one. */
static const ls_perf_iface *stand_in(ls_backend_kind kind, int exists)
{
    for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++)
        if (measured[i].kind == kind)
            return exists ? measured[i].refused : measured[i].missing;
    return NULL;
}

/* The measurement plugin is looked for in the folder of the backend plugin
 * itself (the one ctx->iface lives in), so that its entries receive a
 * backend context made by the same build. Opened RTLD_NODELETE, as the
 * backend plugins are (plugin.c), so the table stays valid after the
 * handle is dropped; opening it again is the loader's reference count. */
const ls_perf_iface *ls_perf_table(const ls_context *ctx)
{
    if (!ctx || !ctx->iface || !ls_backend_is_plugin(ctx->kind))
        return NULL;
    Dl_info info;
    char file[64], path[4096];
    snprintf(file, sizeof file, LS_PERF_PLUGIN_FILE, ls_backend_name(ctx->kind));
    if (dladdr((const void *)ctx->iface, &info) && info.dli_fname &&
        strrchr(info.dli_fname, '/'))
        snprintf(path, sizeof path, "%.*s/%s",
                 (int)(strrchr(info.dli_fname, '/') - info.dli_fname), info.dli_fname, file);
    else
        snprintf(path, sizeof path, "%s", file);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h)
        return stand_in(ctx->kind, access(path, F_OK) == 0);
    ls_perf_plugin_fn entry = NULL;
    *(void **)&entry = dlsym(h, LS_PERF_PLUGIN_ENTRY);
    const ls_perf_iface *table = NULL;
    int built[2] = {0, 0};
    if (entry)
        entry(LS_PLUGIN_ABI, LS_PERF_ABI, built, &table);
    dlclose(h);
    if (!table || built[0] != LS_PLUGIN_ABI || built[1] != LS_PERF_ABI)
        return stand_in(ctx->kind, 1);
    return table;
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
