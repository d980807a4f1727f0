/* For a drop-in library that shadows another one's symbols: whether a
 * symbol found by dlsym is this library's own (the same object, or a file
 * named like it), so that the "system" path never leads back here. Static
 * inline: the address taken is the including library's own copy. Needs
 * _GNU_SOURCE and <dlfcn.h>. */
#ifndef LS_DROPIN_SHADOW_H
#define LS_DROPIN_SHADOW_H

#include <string.h>

static inline int ls_dropin_is_ours(void *sym, const char *file_prefix)
{
    Dl_info where, self;
    if (!dladdr(sym, &where) || !dladdr((void *)&ls_dropin_is_ours, &self))
        return 1; /* cannot tell: do not risk a loop */
    if (where.dli_fbase == self.dli_fbase)
        return 1;
    const char *base = where.dli_fname ? strrchr(where.dli_fname, '/') : NULL;
    base = base ? base + 1 : where.dli_fname;
    return base && strncmp(base, file_prefix, strlen(file_prefix)) == 0;
}

#endif
