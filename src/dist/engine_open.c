/*
 * ls_grid_set_backend: the grid's local engine. The CPU engine is built in;
 * the CUDA engine lives in liblinsolve_dist_cuda.so, opened with dlopen
 * from beside this library (or LS_PLUGIN_DIR, or the loader's path) so
 * that liblinsolve_dist never needs the CUDA runtime to load.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/knobs.h"
#include "cuda/dist_cuda.h"
#include "dist_internal.h"

#define DIST_CUDA_FILE "liblinsolve_dist_cuda.so"

/* The plugin's handle, opened once (RTLD_NODELETE: CUDA and NCCL keep
 * process-wide state), or NULL with the reasons in err. */
void *ls_dist_cuda_plugin(char *err, size_t len)
{
    static void *handle;
    if (handle)
        return handle;
    char path[4096], tried[1024] = "";
    const char *dirs[2] = {ls_knob_str(LS_KNOB_PLUGIN_DIR), NULL};
    Dl_info info;
    char self[3072] = "";
    if (dladdr((void *)&ls_dist_cuda_plugin, &info) && info.dli_fname) {
        snprintf(self, sizeof self, "%s", info.dli_fname);
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            dirs[1] = self;
        }
    }
    for (int i = 0; i <= 2 && !handle; ++i) {
        if (i < 2 && (!dirs[i] || !*dirs[i]))
            continue;
        if (i < 2)
            snprintf(path, sizeof path, "%s/%s", dirs[i], DIST_CUDA_FILE);
        else
            snprintf(path, sizeof path, "%s", DIST_CUDA_FILE);
        handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!handle) {
            const char *why = dlerror();
            size_t used = strlen(tried);
            snprintf(tried + used, sizeof tried - used, "%s%s", used ? "; " : "",
                     why ? why : path);
        }
    }
    if (!handle && err && len)
        snprintf(err, len, "cannot load %s (%s)", DIST_CUDA_FILE, tried);
    return handle;
}

/* The rank's index among the grid's ranks on its host. */
static int local_rank(const ls_grid *g)
{
    MPI_Comm node;
    int r = 0;
    if (MPI_Comm_split_type(g->comm, MPI_COMM_TYPE_SHARED, g->rank, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS)
        return g->rank;
    MPI_Comm_rank(node, &r);
    MPI_Comm_free(&node);
    return r;
}

static int open_cuda(ls_grid *g, int device, ls_dist_engine **out)
{
    char err[256] = "";
    void *h = ls_dist_cuda_plugin(err, sizeof err);
    if (!h)
        return ls_dist_fail(g, LS_EUNAVAIL, "cuda backend unavailable: %s", err);
    ls_dist_cuda_open_fn open_fn = NULL;
    *(void **)&open_fn = dlsym(h, "ls_dist_cuda_open");
    if (!open_fn)
        return ls_dist_fail(g, LS_EUNAVAIL, "%s has no ls_dist_cuda_open", DIST_CUDA_FILE);
    if (device < 0)
        device = -1 - local_rank(g); /* the plugin takes it modulo the host's devices */
    int transport = LS_DIST_TRANSPORT_AUTO;
    if (ls_knob_is(LS_KNOB_DIST_TRANSPORT, "nccl"))
        transport = LS_DIST_TRANSPORT_NCCL;
    else if (ls_knob_is(LS_KNOB_DIST_TRANSPORT, "mpi"))
        transport = LS_DIST_TRANSPORT_MPI;
    int st = open_fn(LS_DIST_CUDA_ABI, device, g->comm, g->row_comm, g->col_comm, transport, out,
                     err, sizeof err);
    return st ? ls_dist_fail(g, st, "%s", err) : 0;
}

static void drop_engine(ls_grid *g)
{
    if (g->owned && g->owned->destroy)
        g->owned->destroy(g->owned->context);
    g->owned = NULL;
    g->engine = ls_dist_engine_cpu();
}

int ls_grid_set_backend(ls_grid *g, ls_backend_kind backend, int device)
{
    if (ls_dist_outside(g))
        return LS_EINVAL;
    g->error[0] = '\0';
    int st = 0;
    ls_dist_engine *e = NULL;
    if (backend == LS_BACKEND_CPU)
        st = 0;
    else if (backend == LS_BACKEND_CUDA)
        st = open_cuda(g, device, &e);
    else
        st = ls_dist_fail(g, LS_EUNSUPPORTED, "the %s backend has no distributed engine "
                          "(cpu and cuda have)", ls_backend_name(backend));
    if ((st = ls_dist_agree(g, st)) != 0) {
        if (e && e->destroy)
            e->destroy(e->context);
        return st;
    }
    drop_engine(g);
    if (e) {
        g->owned = e;
        g->engine = e;
    }
    return 0;
}

const char *ls_grid_engine_name(const ls_grid *g)
{
    return g && g->engine ? g->engine->name : "none";
}

int ls_grid_engine_host_memory(const ls_grid *g) { return !g || g->engine->host_memory; }

void ls_dist_engine_release(ls_grid *g) { drop_engine(g); }

int ls_grid_malloc(ls_grid *g, void **ptr, size_t bytes)
{
    if (!ptr)
        return LS_EINVAL;
    *ptr = NULL;
    if (ls_dist_outside(g))
        return LS_EINVAL;
    *ptr = g->engine->ws_alloc(g->engine->context, bytes);
    if (*ptr)
        return 0;
    ls_dist_fail(g, g->engine->host_memory ? LS_ENOMEM : LS_EDEVMEM,
                 "out of %s memory (%zu bytes)", g->engine->name, bytes);
    return g->engine->host_memory ? LS_ENOMEM : LS_EDEVMEM;
}

void ls_grid_free(ls_grid *g, void *ptr)
{
    if (ptr && !ls_dist_outside(g))
        g->engine->ws_free(g->engine->context, ptr);
}

/* In 4-byte words, columns of at most 2^28 (the copy slots take ints). */
int ls_grid_memcpy(ls_grid *g, void *dst, const void *src, size_t bytes, int to_engine)
{
    if (ls_dist_outside(g) || (bytes && (!dst || !src)) || bytes % 4)
        return LS_EINVAL;
    const ls_dist_engine *e = g->engine;
    const size_t col = (size_t)1 << 28, words = bytes / 4;
    for (size_t off = 0; off < words; off += col) {
        const int m = (int)(words - off < col ? words - off : col);
        const float *s = (const float *)src + off;
        float *d = (float *)dst + off;
        if (to_engine)
            e->set(e->context, LS_SINGLE, m, 1, s, m, d, m);
        else
            e->get(e->context, LS_SINGLE, m, 1, s, m, d, m);
    }
    char msg[200];
    int st = e->finish(e->context, msg, sizeof msg);
    return st ? ls_dist_fail(g, st, "%s", msg) : 0;
}

int ls_peer_cusolvermg(ls_gen_kind kind, uint64_t seed, int n, int nb, int ngpus, int repeat,
                       double *seconds, double *residual, int *info, char *err, size_t errlen)
{
    char why[256] = "";
    void *h = ls_dist_cuda_plugin(why, sizeof why);
    ls_dist_cuda_peer_fn fn = NULL;
    if (h)
        *(void **)&fn = dlsym(h, "ls_dist_cuda_peer_cusolvermg");
    if (!fn) {
        if (err && errlen)
            snprintf(err, errlen, "cuSOLVERMg peer unavailable: %s",
                     why[0] ? why : "no ls_dist_cuda_peer_cusolvermg");
        return LS_EUNAVAIL;
    }
    ls_dist_peer_args a = {(int)kind, seed, n, nb, ngpus, repeat};
    ls_dist_peer_result r;
    memset(&r, 0, sizeof r);
    int st = fn(LS_DIST_CUDA_ABI, &a, &r);
    if (seconds)
        *seconds = r.seconds;
    if (residual)
        *residual = r.residual;
    if (info)
        *info = r.info;
    if (err && errlen)
        snprintf(err, errlen, "%s", st ? r.error : "");
    return st;
}
