/* The LAPACK routines that liblinsolve itself was linked against, looked up
 * in liblinsolve's own dependency tree rather than in the process's global
 * scope. Under LD_PRELOAD=liblinsolve_lapack.so the global dgetrf_ is the
 * drop-in's, which may route back into linsolve (or to a GPU): the `lapack`
 * method is the system-LAPACK baseline and must reach the real one. The
 * drop-in depends on liblinsolve, never the other way round, so it is not in
 * this tree. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "cpu_internal.h"

static void *lookup(const char *name)
{
    Dl_info self;
    if (!dladdr((void *)&ls_cpu_lapack_sym, &self) || !self.dli_fname)
        return NULL;
    /* RTLD_NOLOAD: a new reference to the already-loaded liblinsolve. */
    void *h = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return NULL;
    /* dlsym on a handle searches that object, then its dependencies
     * breadth-first: liblapacke, OpenBLAS, ..., never the drop-in. */
    void *sym = dlsym(h, name);
    dlclose(h);
    return sym;
}

/* Found once per name: dladdr, dlopen and dlclose take the loader's lock
 * and cost ~100 us, more than a whole solve of a small system. */
#define LSC_SYM_CACHE 16
static struct {
    char name[24];
    void *sym;
} sym_cache[LSC_SYM_CACHE];
static int sym_cached;
static pthread_mutex_t sym_lock = PTHREAD_MUTEX_INITIALIZER;

void *ls_cpu_lapack_sym(const char *name)
{
    void *sym = NULL;
    int found = 0;
    if (!name)
        return NULL;
    pthread_mutex_lock(&sym_lock);
    for (int i = 0; i < sym_cached && !found; i++)
        if (!strcmp(sym_cache[i].name, name)) {
            sym = sym_cache[i].sym;
            found = 1;
        }
    if (!found) {
        sym = lookup(name);
        if (sym && sym_cached < LSC_SYM_CACHE && strlen(name) < sizeof sym_cache[0].name) {
            strcpy(sym_cache[sym_cached].name, name);
            sym_cache[sym_cached++].sym = sym;
        }
    }
    pthread_mutex_unlock(&sym_lock);
    return sym;
}

/* LAPACK's Fortran interfaces (LP64); getrs takes the hidden length of
 * its character argument last. */
typedef void (*getrf_fn)(const int *m, const int *n, void *A, const int *lda, int *ipiv,
                         int *info);
typedef void (*getrs_fn)(const char *trans, const int *n, const int *nrhs, const void *A,
                         const int *lda, const int *ipiv, void *B, const int *ldb, int *info,
                         size_t trans_len);

int ls_cpu_lapack_getrf(ls_precision p, int n, void *A, int lda, int *ipiv, int *info)
{
    getrf_fn f = (getrf_fn)ls_cpu_lapack_sym(p == LS_SINGLE ? "sgetrf_" : "dgetrf_");
    if (!f)
        return LS_EUNAVAIL;
    f(&n, &n, A, &lda, ipiv, info);
    return 0;
}

int ls_cpu_lapack_getrs(ls_precision p, int n, int nrhs, const void *A, int lda,
                        const int *ipiv, void *B, int ldb, int *info)
{
    getrs_fn f = (getrs_fn)ls_cpu_lapack_sym(p == LS_SINGLE ? "sgetrs_" : "dgetrs_");
    if (!f)
        return LS_EUNAVAIL;
    f("N", &n, &nrhs, A, &lda, ipiv, B, &ldb, info, 1);
    return 0;
}
