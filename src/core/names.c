/* String names of the public enumerations, from their macro tables. */
#include <string.h>

#include "linsolve.h"

static const char *const method_names[] = {
#define LS_METHOD_NAME_(id, name, desc) name,
    LS_METHOD_MAP(LS_METHOD_NAME_)
#undef LS_METHOD_NAME_
};
static const char *const method_descs[] = {
#define LS_METHOD_DESC_(id, name, desc) desc,
    LS_METHOD_MAP(LS_METHOD_DESC_)
#undef LS_METHOD_DESC_
};
static const char *const backend_names[] = {"auto", "cpu", "cuda", "opencl"};

const char *ls_method_name(ls_method m)
{
    return (m >= 0 && m < LS_METHOD_COUNT_) ? method_names[m] : "?";
}

const char *ls_method_description(ls_method m)
{
    return (m >= 0 && m < LS_METHOD_COUNT_) ? method_descs[m] : "?";
}

int ls_method_parse(const char *name, ls_method *out)
{
    for (int i = 0; name && i < LS_METHOD_COUNT_; i++)
        if (strcmp(name, method_names[i]) == 0) {
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
