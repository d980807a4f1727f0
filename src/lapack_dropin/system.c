/* The LAPACK this library shadows. Preloaded or linked before it, the next
 * definition after this object in the lookup order (RTLD_NEXT) is the one
 * the program would have called; when there is none (a program linked only
 * against this library), liblapack.so.3 is loaded privately. A symbol that
 * turns out to be ours (a second copy of this library, or liblapack.so.3
 * pointed at it) is refused: the system path must never come back here. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "dropin.h"
#include "shadow.h"

static const char *const routine_names[3][2] = {
    [LSL_GESV] = {"dgesv_", "sgesv_"},
    [LSL_GETRF] = {"dgetrf_", "sgetrf_"},
    [LSL_GETRS] = {"dgetrs_", "sgetrs_"},
};

/* Resolved once per routine; racing threads store the same pointer. */
static _Atomic(void *) resolved[3][2];
static _Atomic(void *) private_lapack;

static int is_ours(void *sym) { return ls_dropin_is_ours(sym, "liblinsolve_lapack"); }

static void *private_handle(void)
{
    void *h = atomic_load(&private_lapack);
    if (h)
        return h;
    h = dlopen("liblapack.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return NULL;
    void *expected = NULL;
    if (!atomic_compare_exchange_strong(&private_lapack, &expected, h)) {
        dlclose(h); /* another thread was first: keep one reference */
        h = expected;
    }
    return h;
}

void *lsl_system_routine(lsl_op op, ls_precision prec)
{
    int p = prec == LS_SINGLE;
    void *f = atomic_load(&resolved[op][p]);
    if (f)
        return f;
    const char *name = routine_names[op][p];
    f = dlsym(RTLD_NEXT, name);
    if (f && is_ours(f))
        f = NULL;
    if (!f) {
        void *h = private_handle();
        f = h ? dlsym(h, name) : NULL;
        if (f && is_ours(f))
            f = NULL;
    }
    if (f)
        atomic_store(&resolved[op][p], f);
    else
        lsl_warn_once(LSL_WARN_NO_SYSTEM,
                      "no system LAPACK provides %s (nothing after this library, no "
                      "liblapack.so.3): using linsolve's CPU LU instead",
                      name);
    return f;
}

void lsl_xerbla(const char *routine, int position)
{
    typedef void (*xerbla_fn)(const char *srname, const int *info, size_t len);
    xerbla_fn f = (xerbla_fn)dlsym(RTLD_DEFAULT, "xerbla_");
    if (f) {
        f(routine, &position, strlen(routine));
        return;
    }
    fprintf(stderr, "liblinsolve_lapack: %s was called with an illegal value of argument %d\n",
            routine, position);
}
