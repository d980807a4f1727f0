/*
 * Internal kernels of the CPU backend, one set per precision. Each family is
 * written once in a *_impl.h file and instantiated for double (suffix _d)
 * and float (suffix _s) by including it twice with REAL / LS_SFX defined.
 *
 * Direct kernels return LAPACK's info (0 or the 1-based column of the first
 * exactly-zero pivot); with pivot == 0 they do no row exchanges.
 */
#ifndef LS_CPU_INTERNAL_H
#define LS_CPU_INTERNAL_H

#include <stddef.h>
#include "linsolve.h"

/* Outcome of one BiCGStab run over all right-hand sides. */
typedef struct ls_cpu_iter_result {
    int status;        /* 0, LS_NOT_CONVERGED, LS_BREAKDOWN, LS_ENOMEM */
    int iterations;    /* largest iteration count over the right-hand sides */
    long long total_iterations; /* summed over right-hand sides (traffic model) */
    double *history;   /* malloc'd relative residuals of the first rhs */
    int history_len;
    char message[256];
} ls_cpu_iter_result;

/* gj2 refines X when its scaled residual is above this, at most this often. */
#define LS_GJ_REFINE_AT 10.0
#define LS_GJ_REFINE_STEPS 3

#define LS_CPU_DECLARE_(REAL, SFX)                                                           \
    int ls_cpu_getrf_##SFX(int m, int n, REAL *A, int lda, int *ipiv, int pivot);            \
    void ls_cpu_getrs_##SFX(char trans, int n, int nrhs, const REAL *A, int lda,             \
                            const int *ipiv, REAL *B, int ldb);                              \
    int ls_cpu_ge_eliminate_##SFX(int n, int nrhs, REAL *A, int lda, REAL *B, int ldb,       \
                                  int *ipiv, int pivot);                                     \
    void ls_cpu_back_substitute_##SFX(int n, int nrhs, const REAL *A, int lda, REAL *B,      \
                                      int ldb);                                              \
    int ls_cpu_gj1_forward_##SFX(int n, int nrhs, REAL *A, int lda, REAL *B, int ldb,        \
                                 int *ipiv, int pivot);                                      \
    void ls_cpu_gj1_backward_##SFX(int n, int nrhs, REAL *A, int lda, REAL *B, int ldb);     \
    int ls_cpu_gj2_##SFX(int n, int nrhs, REAL *A, int lda, REAL *B, int ldb, int *ipiv,     \
                         int pivot);                                                         \
    int ls_cpu_gj2_refine_##SFX(int n, int nrhs, const REAL *A0, int lda0, const REAL *B0,   \
                                int ldb0, const REAL *F, int ldf, const int *ipiv, REAL *X,  \
                                int ldx);                                                    \
    void ls_cpu_bicgstab_##SFX(int n, int nrhs, const REAL *A, int lda, REAL *B, int ldb,    \
                               double rtol, double atol, int max_iter,                       \
                               ls_cpu_iter_result *res);

LS_CPU_DECLARE_(double, d) /* ls_cpu_getrf_d, ls_cpu_getrs_d, ls_cpu_ge_eliminate_d,
                              ls_cpu_back_substitute_d, ls_cpu_gj1_forward_d,
                              ls_cpu_gj1_backward_d, ls_cpu_gj2_d, ls_cpu_gj2_refine_d,
                              ls_cpu_bicgstab_d */
LS_CPU_DECLARE_(float, s) /* ls_cpu_getrf_s, ls_cpu_getrs_s, ls_cpu_ge_eliminate_s,
                             ls_cpu_back_substitute_s, ls_cpu_gj1_forward_s,
                             ls_cpu_gj1_backward_s, ls_cpu_gj2_s, ls_cpu_gj2_refine_s,
                             ls_cpu_bicgstab_s */

/* The system LAPACK liblinsolve was linked against (lapack_sym.c), found in
 * liblinsolve's own dependency tree so that a preloaded liblinsolve_lapack.so
 * cannot intercept the `lapack` method. NULL / LS_EUNAVAIL when absent. */
void *ls_cpu_lapack_sym(const char *name);
int ls_cpu_lapack_getrf(ls_precision p, int n, void *A, int lda, int *ipiv, int *info);
int ls_cpu_lapack_getrs(ls_precision p, int n, int nrhs, const void *A, int lda,
                        const int *ipiv, void *B, int ldb, int *info);

#undef LS_CPU_DECLARE_

#endif
