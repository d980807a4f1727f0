/* Helpers shared by the CUDA tests: open the CUDA backend through the core
 * (the real dlopen path), skip with 77 when there is no GPU, and run one
 * job through the backend table with double inputs converted to the
 * working precision. */
#ifndef LS_TEST_CUDA_TESTLIB_H
#define LS_TEST_CUDA_TESTLIB_H

#include "core/backend.h"
#include "linsolve.h"
#include "testutil.h"

#define LT_SKIP 77

/* Returns the context or exits 77 with "skipped: no CUDA device (...)". */
ls_context *ct_open_or_skip(void);

typedef struct ct_result {
    int status;     /* what the backend returned */
    double residual; /* scaled residual in the working precision's eps (NaN if not solved) */
    double seconds; /* wall time of the backend call */
    int iterations;
    double t_h2d, t_factor, t_solve, t_d2h; /* the backend's event timings */
    char err[LS_ERRLEN];
} ct_result;

/* Solve A X = B (double inputs, n x n, nrhs columns) with method m in
 * precision p and pivoting pv. X (n x nrhs) receives the solution when
 * non-NULL; ipiv (n) receives the pivots when non-NULL. */
int ct_solve(ls_context *ctx, ls_method m, ls_precision p, ls_pivot pv, int n, int nrhs,
             const double *A, const double *B, double *X, int *ipiv, ct_result *res);

/* CPU reference info of A (LAPACK getrf through the core, ctx NULL). */
int ct_reference_info(ls_precision p, int n, const double *A);

/* malloc or exit(2): tests are programs, failing loudly is right here. */
void *ct_alloc(size_t count, size_t size);

#endif
