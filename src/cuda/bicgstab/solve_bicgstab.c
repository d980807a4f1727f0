/* Method "bicgstab" (Panchatcharam, Sundar & Klar 2013, algorithm 2): unpreconditioned BiCGStab per
 * right-hand side, vectors and the matrix on the device, scalars on the
 * host (the iteration's branches need them there anyway). Convergence is
 * declared only after the true residual b - A x has been recomputed: the
 * recursively updated residual can drift below it. */
#include "cuda/common/cuda_backend.h"
#include "cuda/bicgstab/k_bicgstab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { V_R, V_R0, V_P, V_V, V_S, V_T, V_COUNT };

typedef struct bicg_result {
    int iterations;
    int status; /* 0, LS_NOT_CONVERGED, LS_BREAKDOWN */
    double true_rel;
} bicg_result;

#define LS_REAL_IMPL "cuda/bicgstab/solve_bicgstab_impl.h"
#include "common/instantiate_real.h"

int lsc_solve_bicgstab(ls_cuda_ctx *c, const ls_job *job, ls_report *rep, char *err,
                       size_t errlen)
{
    return job->prec == LS_DOUBLE ? solve_bicgstab_d(c, job, rep, err, errlen)
                                  : solve_bicgstab_s(c, job, rep, err, errlen);
}
