/*
 * The mixed-precision solver's contract between the core and a backend.
 * The refinement and fallback logic lives once, in algo/mixed.c; a backend
 * supplies the operations below on its own memory (host arrays on the CPU,
 * device arrays on CUDA). Every operation returns a status (0, or a
 * negative failure with file:line in err); scalars come back to the host,
 * vectors never do.
 *
 * Names: A and B are the caller's FP64 arrays, X the answer, R = B - A X
 * (n x nrhs), M = P L U the factors of the current level (low precision,
 * or FP64 after the fallback), V the GMRES basis (n x (restart + 1)).
 */
#ifndef LS_ALGO_MIXED_H
#define LS_ALGO_MIXED_H

#include <stddef.h>
#include "linsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { LS_MX_LOW = 0, LS_MX_FP64 = 1 };

/* info from factor(): A does not fit the low precision (an entry beyond its
 * range even after scaling): go to FP64 at once, as LAPACK's dsgesv does. */
#define LS_MX_INFO_RANGE (-1)

typedef struct ls_mixed_problem {
    int n, nrhs;
    double *A; /* device or host, as the backend's operations expect */
    int lda;
    int *ipiv; /* the caller's: the used factors' pivots are left there */
    const double *B;
    int ldb;
    double *X;
    int ldx;
    ls_factor_prec factor; /* in: what the caller asked (may be AUTO); out: resolved */
    int restart;           /* GMRES basis size less one */
    ls_pivot pivot;   /* in: what the caller asked (may be AUTO); out: resolved */
} ls_mixed_problem;

typedef struct ls_mixed_ops {
    /* ||A||inf and ||B||inf (NaN or Inf when either holds one). */
    int (*norms)(void *ws, double *anorm, double *bnorm, char *err, size_t errlen);
    /* Factor A at a level; *info as LAPACK (or LS_MX_INFO_RANGE). LOW keeps
     * A; FP64 first copies A aside for later residuals (the copy may be
     * refused for memory: then *kept = 0), then factors A in place. */
    int (*factor)(void *ws, int level, int *info, int *kept, char *err, size_t errlen);
    /* X = 0, R = B. */
    int (*start)(void *ws, char *err, size_t errlen);
    /* R = B - A X with the original A; ||R||inf and ||X||inf (row sums). */
    int (*residual)(void *ws, double *rnorm, double *xnorm, char *err, size_t errlen);
    /* X += M^-1 R with the level's factors (R is consumed). */
    int (*ir_step)(void *ws, int level, char *err, size_t errlen);
    /* GMRES on column j: v0 = M^-1 r_j, *beta = ||v0||2, v0 /= beta. */
    int (*gm_start)(void *ws, int j, double *beta, char *err, size_t errlen);
    /* w = M^-1 A v_{k-1}, orthogonalised against v_0..v_{k-1} twice
     * (classical Gram-Schmidt, reorthogonalised); h[0..k-1] its
     * coefficients, h[k] = ||w||2, v_k = w / h[k] (when h[k] > 0). */
    int (*gm_step)(void *ws, int k, double *h, char *err, size_t errlen);
    /* x_j += V(:, 0..k-1) y. */
    int (*gm_update)(void *ws, int j, int k, const double *y, char *err, size_t errlen);
    /* X = 0: nothing non-finite leaves on a failure. */
    int (*zero_x)(void *ws, char *err, size_t errlen);
    /* Leave the pivots of the level's factors in the caller's ipiv. */
    int (*pivots)(void *ws, int level, char *err, size_t errlen);
    /* Release the workspace. */
    void (*close)(void *ws);
    /* optional: the low precision the factors are in, when the backend
     * changed it while factoring (auto's escalation); NULL -> pb->factor. */
    ls_factor_prec (*factor_used)(void *ws);
} ls_mixed_ops;

/* A backend's entry: resolve pb->factor (LS_EUNSUPPORTED naming it when
 * the backend lacks it), allocate the workspace, return the table. */
typedef int (*ls_mixed_open_fn)(void *bctx, ls_mixed_problem *pb, const ls_mixed_ops **ops,
                                void **ws, char *err, size_t errlen);

/* The CPU backend's operations (src/cpu/mixed_cpu.c), on host arrays. */
int ls_cpu_mixed_open(void *bctx, ls_mixed_problem *pb, const ls_mixed_ops **ops, void **ws,
                      char *err, size_t errlen);

/* The refinement and fallback (algo/mixed.c), on any backend's operations.
 * Fills res; returns the public status of ls_dsgesv. Exported for the
 * plugins' measurement requests, which time it without a public context. */
LS_API int ls_mixed_run(const ls_mixed_ops *ops, void *ws, const ls_mixed_problem *pb,
                 const ls_mixed_opts *opts, ls_mixed_result *res, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
