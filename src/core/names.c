/* String names of the public enumerations, from their macro tables (the
 * methods' from the method table, methods.c). */
#include <string.h>

#include "linsolve.h"
#include "methods.h"

static const char *const backend_names[] = {"auto", "cpu", "cuda", "opencl"};

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
    return (b >= 0 && b < LS_BACKEND_COUNT_) ? backend_names[b] : "?";
}

int ls_backend_parse(const char *name, ls_backend_kind *out)
{
    for (int i = 0; name && i < LS_BACKEND_COUNT_; i++)
        if (strcmp(name, backend_names[i]) == 0) {
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
