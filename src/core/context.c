/* Contexts: which backend, which device. AUTO tries CUDA, then an OpenCL
 * GPU, then the CPU, and records why in ctx->note. Before it loads a GPU
 * plugin, AUTO probes cheaply for a device the plugin could use (below):
 * the CUDA plugin brings cuBLAS, cuSOLVER and cuSPARSE (about 190 MB
 * resident and 0.3 s to load, measured on a machine without a GPU), and
 * the OpenCL platform query starts every ICD (PoCL: about 60 MB), which a
 * 3x3 solve on the CPU should not pay. A backend asked for by name is
 * loaded without a probe. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/backend.h"
#include "core/util.h"

static int open_kind(ls_context *ctx, ls_backend_kind kind, int device)
{
    ctx->kind = kind;
    ctx->device = device;
    /* -1 = the backend's default: OpenCL picks the first GPU, else the first
     * device; CUDA and the CPU take device 0. */
    if (device < 0 && kind != LS_BACKEND_OPENCL)
        device = 0;
    if (kind == LS_BACKEND_CPU) {
        int st = ls_cpu_backend_open(device, &ctx->iface, &ctx->bctx, ctx->error,
                                     sizeof ctx->error);
        if (st == 0 && (st = ls_backend_roles_check(ctx->iface, ctx->error,
                                                    sizeof ctx->error)) != 0) {
            if (ctx->iface->destroy)
                ctx->iface->destroy(ctx->bctx);
            ctx->iface = NULL;
            ctx->bctx = NULL;
        }
        return st;
    }
    ls_plugin_open_fn open_fn = NULL;
    int st = ls_plugin_load(kind, &open_fn, NULL, &ctx->plugin_handle, ctx->error,
                            sizeof ctx->error);
    if (st)
        return st;
    st = open_fn(ls_core_services_get(), device, &ctx->iface, &ctx->bctx, ctx->error,
                 sizeof ctx->error);
    if (st == 0 && (!ctx->iface || ctx->iface->abi != LS_PLUGIN_ABI))
        st = LS_FAIL(ctx->error, sizeof ctx->error, LS_EUNAVAIL,
                     "the %s plugin's backend table is not plugin ABI %d",
                     ls_backend_name(kind), LS_PLUGIN_ABI);
    else if (st == 0) /* a role without its required slots: refused, never half-called */
        st = ls_backend_roles_check(ctx->iface, ctx->error, sizeof ctx->error);
    if (st) {
        if (ctx->iface && ctx->bctx && ctx->iface->destroy)
            if (ctx->iface->destroy)
                ctx->iface->destroy(ctx->bctx);
        ctx->iface = NULL;
        ctx->bctx = NULL;
        dlclose(ctx->plugin_handle);
        ctx->plugin_handle = NULL;
    }
    return st;
}

/* Is there a CUDA device? Asks the driver itself, as the CUDA runtime
 * would: libcuda.so.1 (absent without the NVIDIA driver), cuInit and
 * cuDeviceGetCount (which honour CUDA_VISIBLE_DEVICES). A few kilobytes
 * where there is no driver; where there is one, the runtime loads the same
 * library and repeats cuInit anyway. 0 and the reason when there is none. */
static int cuda_device_present(char *why, size_t len)
{
    /* NODELETE: once cuInit has run, the driver must stay mapped */
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) {
        snprintf(why, len, "no CUDA driver (libcuda.so.1 not found)");
        return 0;
    }
    typedef int (*cu_init_fn)(unsigned);
    typedef int (*cu_count_fn)(int *);
    cu_init_fn cu_init = NULL;
    cu_count_fn cu_count = NULL;
    *(void **)&cu_init = dlsym(h, "cuInit");
    *(void **)&cu_count = dlsym(h, "cuDeviceGetCount");
    int count = 0, st = -1;
    if (cu_init && cu_count && (st = cu_init(0)) == 0)
        st = cu_count(&count);
    dlclose(h);
    if (st != 0 || count <= 0) {
        if (!cu_init || !cu_count)
            snprintf(why, len, "no CUDA device (libcuda.so.1 lacks cuInit)");
        else if (st == 100 /* CUDA_ERROR_NO_DEVICE */ || (st == 0 && count <= 0))
            snprintf(why, len, "no CUDA device");
        else
            snprintf(why, len, "no CUDA device (the driver's cuInit returned %d)", st);
        return 0;
    }
    return 1;
}

/* Could an OpenCL GPU exist here? Every GPU driver an OpenCL implementation
 * runs on has a device node: DRM render nodes (Intel, AMD, Mesa's rusticl),
 * AMD's /dev/kfd, NVIDIA's, Arm Mali's, Qualcomm Adreno's, and /dev/dxg under
 * WSL. Without any, an OpenCL platform can offer only CPU devices (PoCL,
 * Intel's CPU runtime), which AUTO does not take: the ICDs are not even
 * started. With one, the plugin is loaded and asked, as before. */
static int opencl_gpu_possible(char *why, size_t len)
{
    static const char *const nodes[] = {"/dev/kfd", "/dev/nvidiactl", "/dev/dxg",
                                        "/dev/kgsl-3d0"};
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
        if (access(nodes[i], F_OK) == 0)
            return 1;
    static const char *const patterns[] = {"/dev/dri/renderD*", "/dev/mali*"};
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        glob_t g;
        int found = glob(patterns[i], GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;
        globfree(&g);
        if (found)
            return 1;
    }
    snprintf(why, len, "no GPU device node for OpenCL (/dev/dri/renderD*, /dev/kfd, ...)");
    return 0;
}

/* Does the OpenCL device the plugin picked count as a GPU? AUTO only takes
 * OpenCL for a GPU; an OpenCL CPU device (PoCL) is slower than our CPU path. */
static int opencl_is_gpu(ls_context *ctx)
{
    char name[160] = "";
    ctx->iface->device_name(ctx->bctx, name, sizeof name);
    return strstr(name, "GPU") != NULL || strstr(name, "gpu") != NULL;
}

/* The first clause of an error, without the loader's details in parentheses
 * or the [file:line] tag: short enough for a one-line note. */
static void first_clause(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src);
    char *cut = strstr(dst, " (");
    if (!cut)
        cut = strstr(dst, " [");
    if (cut)
        *cut = '\0';
}

static void close_backend(ls_context *ctx)
{
    if (ctx->iface && ctx->iface->destroy && ctx->bctx)
        ctx->iface->destroy(ctx->bctx);
    ctx->iface = NULL;
    ctx->bctx = NULL;
    if (ctx->plugin_handle)
        dlclose(ctx->plugin_handle);
    ctx->plugin_handle = NULL;
}

int ls_context_create(ls_context **out, ls_backend_kind backend, int device)
{
    if (!out)
        return LS_EINVAL;
    *out = NULL;
    ls_context *ctx = ls_calloc(1, sizeof *ctx);
    if (!ctx)
        return LS_ENOMEM;
    *out = ctx;
    pthread_mutexattr_t attr;
    if (pthread_mutexattr_init(&attr) == 0) {
        if (pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE) == 0 &&
            pthread_mutex_init(&ctx->lock, &attr) == 0)
            ctx->lock_ready = 1;
        pthread_mutexattr_destroy(&attr);
    }
    if (!ctx->lock_ready) {
        free(ctx);
        *out = NULL;
        return LS_ENOMEM;
    }
    if (backend < 0 || backend >= LS_BACKEND_COUNT_ || device < -1) {
        ctx->kind = LS_BACKEND_AUTO;
        return LS_FAIL(ctx->error, sizeof ctx->error, LS_EINVAL,
                       "invalid backend (%d) or device index (%d)", (int)backend, device);
    }
    int st;
    if (backend != LS_BACKEND_AUTO) {
        st = open_kind(ctx, backend, device);
    } else {
        char why_cuda[LS_ERRLEN] = "", why_ocl[LS_ERRLEN] = "";
        st = LS_EUNAVAIL;
        if (cuda_device_present(why_cuda, sizeof why_cuda)) {
            st = open_kind(ctx, LS_BACKEND_CUDA, device);
            if (st)
                first_clause(why_cuda, sizeof why_cuda, ctx->error);
        }
        if (st && opencl_gpu_possible(why_ocl, sizeof why_ocl)) {
            st = open_kind(ctx, LS_BACKEND_OPENCL, device);
            if (st == 0 && !opencl_is_gpu(ctx)) {
                snprintf(why_ocl, sizeof why_ocl, "the OpenCL device is not a GPU");
                close_backend(ctx);
                st = LS_EUNAVAIL;
            } else if (st) {
                first_clause(why_ocl, sizeof why_ocl, ctx->error);
            }
        }
        if (st) {
            st = open_kind(ctx, LS_BACKEND_CPU, 0);
            snprintf(ctx->note, sizeof ctx->note, "no GPU backend available, using cpu (%.110s; %.110s)",
                     why_cuda, why_ocl);
        } else {
            snprintf(ctx->note, sizeof ctx->note, "auto selected %s", ls_backend_name(ctx->kind));
        }
        if (st == 0)
            ctx->error[0] = '\0';
    }
    if (st == 0 && ctx->iface && ctx->iface->device_name)
        ctx->iface->device_name(ctx->bctx, ctx->device_name, sizeof ctx->device_name);
    if (st && ctx->iface == NULL)
        ctx->kind = backend;
    return st;
}

void ls_context_destroy(ls_context *ctx)
{
    if (!ctx)
        return;
    close_backend(ctx);
    if (ctx->lock_ready)
        pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

void ls_context_enter(ls_context *ctx)
{
    if (ctx && ctx->lock_ready)
        pthread_mutex_lock(&ctx->lock);
}

void ls_context_leave(ls_context *ctx)
{
    if (ctx && ctx->lock_ready)
        pthread_mutex_unlock(&ctx->lock);
}

ls_backend_kind ls_context_backend(const ls_context *ctx)
{
    return ctx ? ctx->kind : LS_BACKEND_CPU;
}

const char *ls_context_device_name(const ls_context *ctx)
{
    return ctx ? ctx->device_name : ls_backend_name(LS_BACKEND_CPU);
}

const char *ls_context_note(const ls_context *ctx)
{
    return ctx ? ctx->note : "";
}

const char *ls_context_error(const ls_context *ctx)
{
    return ctx ? ctx->error : "";
}

int ls_context_supports(ls_context *ctx, ls_method m, ls_precision p)
{
    if (!ctx || !ctx->iface)
        return LS_EUNAVAIL;
    if (m == LS_METHOD_AUTO)
        return 0;
    ls_context_enter(ctx);
    int st = ctx->iface->supports(ctx->bctx, m, p, ctx->error, sizeof ctx->error);
    ls_context_leave(ctx);
    return st;
}

static void print_plugin(FILE *f, ls_backend_kind kind)
{
    ls_plugin_open_fn open_fn = NULL;
    ls_plugin_info_fn info_fn = NULL;
    void *handle = NULL;
    char err[LS_ERRLEN];
    fprintf(f, "\n[%s]\n", ls_backend_name(kind));
    if (ls_plugin_load(kind, &open_fn, &info_fn, &handle, err, sizeof err)) {
        fprintf(f, "  unavailable: %s\n", err);
        return;
    }
    if (info_fn) {
        int st = info_fn(ls_core_services_get(), f);
        if (st)
            fprintf(f, "  unavailable: %s\n", ls_strerror(st));
    } else {
        fprintf(f, "  (plugin lists no devices)\n");
    }
    dlclose(handle);
}

int ls_print_info(void *file)
{
    FILE *f = file ? (FILE *)file : stdout;
    fprintf(f, "liblinsolve %d.%d.%d\n", LS_VERSION_MAJOR, LS_VERSION_MINOR, LS_VERSION_PATCH);
    fprintf(f, "\n[%s]\n", ls_backend_name(LS_BACKEND_CPU));
    ls_context *ctx = NULL;
    int st = ls_context_create(&ctx, LS_BACKEND_CPU, 0);
    if (st == 0 && ctx->iface->print_info)
        ctx->iface->print_info(ctx->bctx, f);
    else if (st == 0)
        fprintf(f, "  %s\n", ctx->device_name);
    else
        fprintf(f, "  unavailable: %s\n", ls_context_error(ctx));
    ls_context_destroy(ctx);
    for (int k = 0; k < LS_BACKEND_COUNT_; k++)
        if (ls_backend_is_plugin((ls_backend_kind)k))
            print_plugin(f, (ls_backend_kind)k);
    return 0;
}
