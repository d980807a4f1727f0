/* Names, descriptions and parsing of the generator kinds (LS_GEN_MAP). */
#include <string.h>

#include "linsolve.h"

static const char *const gen_names[] = {
#define LS_GEN_NAME_(id, name, desc) name,
    LS_GEN_MAP(LS_GEN_NAME_)
#undef LS_GEN_NAME_
};

static const char *const gen_descriptions[] = {
#define LS_GEN_DESC_(id, name, desc) desc,
    LS_GEN_MAP(LS_GEN_DESC_)
#undef LS_GEN_DESC_
};

const char *ls_gen_name(ls_gen_kind k)
{
    return (k >= 0 && k < LS_GEN_COUNT_) ? gen_names[k] : "unknown";
}

const char *ls_gen_description(ls_gen_kind k)
{
    return (k >= 0 && k < LS_GEN_COUNT_) ? gen_descriptions[k] : "unknown generator";
}

int ls_gen_parse(const char *name, ls_gen_kind *out)
{
    if (!name || !out)
        return LS_EINVAL;
    for (int k = 0; k < LS_GEN_COUNT_; k++)
        if (strcmp(name, gen_names[k]) == 0) {
            *out = (ls_gen_kind)k;
            return 0;
        }
    return LS_EINVAL;
}

int ls_gen_is_sparse(ls_gen_kind k)
{
    return k == LS_GEN_POISSON2D || k == LS_GEN_CONVDIFF;
}
