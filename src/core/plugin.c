/* Loads backend plugins (liblinsolve_<name>.so) with dlopen and lends them
 * the core's services. They are looked for, in order: in $LS_PLUGIN_DIR;
 * beside liblinsolve itself (build tree and install tree keep them
 * together); then by bare name (LD_LIBRARY_PATH, rpath). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/knobs.h"
#include "core/methods/methods.h"
#include "core/util.h"

static int services_methods_check(ls_backend_kind b, const ls_method_support *list, size_t count,
                                  ls_method m, ls_precision p, char *err, size_t errlen)
{
    return ls_methods_check(ls_backend_name(b), list, count, m, p, err, errlen);
}

static int services_vfail(char *err, size_t errlen, int status, const char *file, int line,
                          const char *fmt, va_list ap)
{
    char text[LS_ERRTEXT_MAX];
    vsnprintf(text, sizeof text, fmt, ap);
    return ls_fail_at(err, errlen, status, file, line, "%s", text);
}

static const ls_core_services core_services = {
    .abi = LS_PLUGIN_ABI,
    .backend_name = ls_backend_name,
    .method_name = ls_method_name,
    .precision_name = ls_precision_name,
    .strerror = ls_strerror,
    .methods_check = services_methods_check,
    .methods_resolve = ls_methods_resolve,
    .vfail = services_vfail,
    .now = ls_now,
};

const ls_core_services *ls_core_services_get(void)
{
    return &core_services;
}

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

int ls_plugin_load(ls_backend_kind kind, ls_plugin_open_fn *open_fn, ls_plugin_info_fn *info_fn,
                   void **handle, char *err, size_t errlen)
{
    char file[64], path[4096], dir[3072];
    char tried[1024] = "";
    const char *name = ls_backend_name(kind);
    if (!ls_backend_is_plugin(kind))
        return LS_FAIL(err, errlen, LS_EINTERNAL, "backend %s is not a plugin", name);
    snprintf(file, sizeof file, "liblinsolve_%s.so", name);
    void *h = NULL;
    const char *env = ls_knob_str(LS_KNOB_PLUGIN_DIR);
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
    /* The ABI first: an entry point of another ABI must not be called. */
    ls_plugin_abi_fn abi_fn = NULL;
    *(void **)&abi_fn = dlsym(h, LS_PLUGIN_ABI_ENTRY);
    int abi = abi_fn ? abi_fn() : 0;
    if (abi != LS_PLUGIN_ABI) {
        dlclose(h);
        if (!abi)
            return LS_FAIL(err, errlen, LS_EUNAVAIL,
                           "%s backend unavailable: %s predates plugin ABI %d (no %s)", name,
                           file, LS_PLUGIN_ABI, LS_PLUGIN_ABI_ENTRY);
        return LS_FAIL(err, errlen, LS_EUNAVAIL,
                       "%s backend unavailable: %s was built for plugin ABI %d, this "
                       "liblinsolve uses %d", name, file, abi, LS_PLUGIN_ABI);
    }
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

/* The first slot of a table that a backend must fill and left NULL, or
 * NULL when none is missing (backend.h says which slots are required). */
static const char *missing_slot(const ls_backend_iface *f)
{
    if (!f->destroy || !f->device_name || !f->supports || !f->auto_method || !f->solve)
        return "a core slot (destroy, device_name, supports, auto_method, solve)";
    const ls_device_role *d = f->device;
    if (d && (!d->set_stream || !d->get_stream || !d->dev_malloc || !d->dev_free ||
              !d->dev_copy || !d->dev_sync || !d->getrf_gpu || !d->getrs_gpu || !d->gesv_gpu))
        return "a required slot of the device role";
    if (f->mixed && (!f->mixed->open || !d))
        return "the mixed role's open, or the device role it needs";
    if (f->batched && !f->batched->run)
        return "the batched role's run";
    if (f->sparse && !f->sparse->krylov_open != !f->sparse->krylov_close)
        return "one of the sparse role's krylov_open and krylov_close without the other";
    return NULL;
}

int ls_backend_roles_check(const ls_backend_iface *f, char *err, size_t errlen)
{
    const char *missing = missing_slot(f);
    if (missing)
        return LS_FAIL(err, errlen, LS_EUNAVAIL, "the %s backend's table lacks %s",
                       f->name ? f->name : "(unnamed)", missing);
    return 0;
}
