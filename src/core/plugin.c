/* Loads backend plugins (liblinsolve_<name>.so) with dlopen. They are looked
 * for, in order: in $LS_PLUGIN_DIR; beside liblinsolve itself (build tree and
 * install tree keep them together); then by bare name (LD_LIBRARY_PATH, rpath). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "util.h"

static int self_dir(char *buf, size_t len)
{
    Dl_info info;
    if (!dladdr((void *)&self_dir, &info) || !info.dli_fname)
        return -1;
    snprintf(buf, len, "%s", info.dli_fname);
    char *slash = strrchr(buf, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return 0;
}

/* Plugins are opened RTLD_NODELETE: GPU runtimes and OpenCL ICD loaders keep
 * process-wide state (platform lists, driver threads) that must not be
 * unloaded and reloaded with the plugin; dlclose then only drops our handle. */

/* Append the loader's reason (or the path tried) to the list of attempts. */
static void note_failure(char *tried, size_t len, const char *fallback)
{
    const char *why = dlerror();
    size_t used = strlen(tried);
    snprintf(tried + used, len - used, "%s%s", used ? "; " : "", why ? why : fallback);
}

int ls_plugin_load(const char *name, ls_plugin_open_fn *open_fn, ls_plugin_info_fn *info_fn,
                   void **handle, char *err, size_t errlen)
{
    char file[64], path[4096], dir[3072];
    char tried[1024] = "";
    snprintf(file, sizeof file, "liblinsolve_%s.so", name);
    void *h = NULL;
    const char *env = getenv("LS_PLUGIN_DIR");
    const char *dirs[2] = {env, NULL};
    if (self_dir(dir, sizeof dir) == 0)
        dirs[1] = dir;
    for (int i = 0; i < 2 && !h; i++) {
        if (!dirs[i] || !*dirs[i])
            continue;
        snprintf(path, sizeof path, "%s/%s", dirs[i], file);
        if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)))
            note_failure(tried, sizeof tried, path);
    }
    if (!h && !(h = dlopen(file, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)))
        note_failure(tried, sizeof tried, file);
    if (!h)
        return LS_FAIL(err, errlen, LS_EUNAVAIL,
                       "%s backend unavailable: cannot load %s (%s)", name, file, tried);
    *(void **)open_fn = dlsym(h, LS_PLUGIN_ENTRY);
    if (info_fn)
        *(void **)info_fn = dlsym(h, LS_PLUGIN_INFO_ENTRY);
    if (!*open_fn) {
        dlclose(h);
        return LS_FAIL(err, errlen, LS_EUNAVAIL, "%s has no symbol %s", file, LS_PLUGIN_ENTRY);
    }
    *handle = h;
    return 0;
}
