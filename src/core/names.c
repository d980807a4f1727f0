/* String names of the public enumerations, from their macro tables (the
 * methods' from the method table, methods.c), and the one list of backends:
 * the core, the CLI and the plugins (through the core's services) take
 * their names from here. */
#include <string.h>

#include "core/backend.h"
#include "linsolve.h"
#include "core/methods/methods.h"

/* plugin: built as liblinsolve_<name>.so and dlopen'd (core/plugin.c) */
static const struct {
    const char *name;
    int plugin;
} backends[LS_BACKEND_COUNT_] = {
    [LS_BACKEND_AUTO] = {"auto", 0},
    [LS_BACKEND_CPU] = {"cpu", 0},
    [LS_BACKEND_CUDA] = {"cuda", 1},
    [LS_BACKEND_OPENCL] = {"opencl", 1},
};

const char *ls_method_name(ls_method m)
{
    const ls_method_info *i = ls_method_info_of(m);
    return i ? i->name : "?";
}

const char *ls_method_description(ls_method m)
{
    const ls_method_info *i = ls_method_info_of(m);
    return i ? i->description : "?";
}

int ls_method_parse(const char *name, ls_method *out)
{
    for (int i = 0; name && i < LS_METHOD_COUNT_; i++)
        if (strcmp(name, ls_method_name((ls_method)i)) == 0) {
            *out = (ls_method)i;
            return 0;
        }
    return LS_EINVAL;
}

const char *ls_backend_name(ls_backend_kind b)
{
    return (b >= 0 && b < LS_BACKEND_COUNT_) ? backends[b].name : "?";
}

int ls_backend_is_plugin(ls_backend_kind b)
{
    return b >= 0 && b < LS_BACKEND_COUNT_ && backends[b].plugin;
}

int ls_backend_parse(const char *name, ls_backend_kind *out)
{
    for (int i = 0; name && i < LS_BACKEND_COUNT_; i++)
        if (strcmp(name, backends[i].name) == 0) {
            *out = (ls_backend_kind)i;
            return 0;
        }
    return LS_EINVAL;
}

const char *ls_precision_name(ls_precision p)
{
    return p == LS_SINGLE ? "single" : "double";
}

int ls_precision_parse(const char *name, ls_precision *out)
{
    if (!name)
        return LS_EINVAL;
    if (!strcmp(name, "double") || !strcmp(name, "d") || !strcmp(name, "fp64")) {
        *out = LS_DOUBLE;
        return 0;
    }
    if (!strcmp(name, "single") || !strcmp(name, "s") || !strcmp(name, "fp32")) {
        *out = LS_SINGLE;
        return 0;
    }
    return LS_EINVAL;
}
