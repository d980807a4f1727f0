/*
 * The CUDA measurement requests live in their own plugin
 * (src/core/perf/perf_plugin.h). Runs on every machine, GPU or not: the
 * plugins are only loaded, no device is touched.
 *
 *   test_cuda_perf_plugin <liblinsolve_cuda.so> <liblinsolve_cuda_perf.so>
 *
 * - the solve plugin has the backend entry points and not the perf one;
 * - the measurement plugin has the perf entry point and none of the
 *   backend's, so the core can never take one for the other;
 * - its entry reports the ABIs it was built for, hands out a table with
 *   every request filled for the core's own ABIs, and none for another.
 * tests/cuda/plugin_split.sh checks the symbol tables themselves.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

#include "core/backend.h"
#include "core/perf/perf_plugin.h"
#include "testutil.h"

static void *open_plugin(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        printf("cannot open %s: %s\n", path, dlerror());
    return h;
}

static int has(void *h, const char *sym)
{
    return dlsym(h, sym) != NULL;
}

static int table_full(const ls_perf_iface *t)
{
    return t->device && t->kernels && t->copy && t->fma && t->intensity && t->gemm && t->gemv &&
           t->peer && t->lu_vs_peer && t->mixed_vs_peer && t->batched_vs_peer;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        printf("usage: %s <liblinsolve_cuda.so> <liblinsolve_cuda_perf.so>\n", argv[0]);
        return 2;
    }
    void *solve = open_plugin(argv[1]), *perf = open_plugin(argv[2]);
    if (!solve || !perf)
        return 1;
    int bad = 0;
    bad += lt_check(has(solve, LS_PLUGIN_ENTRY) && has(solve, LS_PLUGIN_ABI_ENTRY),
                    "the solve plugin has %s and %s", LS_PLUGIN_ENTRY, LS_PLUGIN_ABI_ENTRY);
    bad += lt_check(!has(solve, LS_PERF_PLUGIN_ENTRY), "the solve plugin has no %s",
                    LS_PERF_PLUGIN_ENTRY);
    bad += lt_check(!has(perf, LS_PLUGIN_ENTRY) && !has(perf, LS_PLUGIN_ABI_ENTRY) &&
                        !has(perf, LS_PLUGIN_INFO_ENTRY),
                    "the measurement plugin has none of the backend entry points");

    ls_perf_plugin_fn entry = NULL;
    *(void **)&entry = dlsym(perf, LS_PERF_PLUGIN_ENTRY);
    bad += lt_check(entry != NULL, "the measurement plugin has %s", LS_PERF_PLUGIN_ENTRY);
    if (entry) {
        int built[2] = {-1, -1};
        const ls_perf_iface *t = NULL;
        entry(LS_PLUGIN_ABI, LS_PERF_ABI, built, &t);
        bad += lt_check(built[0] == LS_PLUGIN_ABI && built[1] == LS_PERF_ABI,
                        "built for plugin ABI %d (core %d), perf ABI %d (core %d)", built[0],
                        LS_PLUGIN_ABI, built[1], LS_PERF_ABI);
        bad += lt_check(t && table_full(t), "the table for the core's ABIs has every request");
        t = (const ls_perf_iface *)1;
        entry(LS_PLUGIN_ABI, LS_PERF_ABI + 1, built, &t);
        bad += lt_check(t == NULL, "no table for another perf ABI");
        t = (const ls_perf_iface *)1;
        entry(LS_PLUGIN_ABI - 1, LS_PERF_ABI, built, &t);
        bad += lt_check(t == NULL, "no table for another plugin ABI");
    }
    dlclose(perf);
    dlclose(solve);
    return bad;
}
