/* Which LAPACK the `lapack` method really calls: the dgetrf_ of
 * liblinsolve's own dependency tree (lapack_sym.c), which may be OpenBLAS's
 * own (tuned, parallel) or a reference liblapack.so.3 on top of OpenBLAS's
 * BLAS, depending on how the dynamic linker resolved them: benchmarks print
 * this so that the CPU baseline is named for what it is. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "linsolve.h"
#include "cpu_internal.h"

int ls_lapack_library(char *buf, size_t len)
{
    if (!buf || len == 0)
        return LS_EINVAL;
    buf[0] = '\0';
#ifdef LS_HAVE_LAPACKE
    void *getrf = ls_cpu_lapack_sym("dgetrf_");
    Dl_info where;
    memset(&where, 0, sizeof where);
    if (!getrf || !dladdr(getrf, &where) || !where.dli_fname) {
        snprintf(buf, len, "dgetrf_ not found in the process");
        return LS_EUNAVAIL;
    }
    typedef char *(*config_fn)(void);
    typedef int (*int_fn)(void);
    config_fn config = (config_fn)dlsym(RTLD_DEFAULT, "openblas_get_config");
    int_fn parallel = (int_fn)dlsym(RTLD_DEFAULT, "openblas_get_parallel");
    int_fn threads = (int_fn)dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    static const char *const kinds[] = {"sequential", "pthreads", "OpenMP"};
    int par = parallel ? parallel() : -1;
    int n = snprintf(buf, len, "dgetrf_ from %s", where.dli_fname);
    if (config && n >= 0 && (size_t)n < len) {
        const char *cfg = config();
        n += snprintf(buf + n, len - (size_t)n, "; %s, %s, %d thread(s)", cfg,
                      par >= 0 && par <= 2 ? kinds[par] : "threading unknown",
                      threads ? threads() : -1);
        /* OpenBLAS's run-time CPU detection falls back to its generic
         * Prescott kernels on CPUs it does not recognise (seen on virtual
         * machines that report "Intel(R) Xeon(R) Processor"): about 3x
         * slower there, so say it and how to fix it. */
        const char *fix = NULL;
#if defined(__x86_64__) && defined(__GNUC__)
        if (strstr(cfg, " Prescott ") || strstr(cfg, " Core2 "))
            fix = __builtin_cpu_supports("avx512f") ? "SkylakeX"
                  : __builtin_cpu_supports("avx2")  ? "Haswell"
                                                    : NULL;
#endif
        if (fix && n >= 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n,
                     " -- WARNING: generic kernels on a CPU with %s; set OPENBLAS_CORETYPE=%s "
                     "before starting the program",
                     strcmp(fix, "SkylakeX") ? "AVX2" : "AVX-512", fix);
    }
    return 0;
#else
    snprintf(buf, len, "not linked (method lapack unavailable)");
    return LS_EUNAVAIL;
#endif
}
