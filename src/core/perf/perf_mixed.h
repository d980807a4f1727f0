/* The mixed_vs_peer measurement request of the CUDA plugin's perf table
 * (src/cuda/perf/mixed_vs_peer.c), for `linsolve bench --mixed-vs-cusolver`:
 * our mixed-precision solve (ls_dsgesv_gpu's path) against cuSOLVER's FP64
 * dgetrf + dgetrs and its IRS solvers (cusolverDnIRSXgesv, FP32 / TF32 /
 * FP16 / BF16 factors with classical and GMRES refinement, the best kept),
 * in one process on one stream, nrhs = 1, FP64 data on the device. The
 * matrix is generated on the device, kept pristine, and restored before
 * every run off the clock; each solver gets one warm-up, then its runs are
 * timed with events and the median kept. */
#ifndef LS_CORE_PERF_MIXED_H
#define LS_CORE_PERF_MIXED_H

#include "linsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { LS_PERF_MX_NORMAL = 0, LS_PERF_MX_RANDSVD = 1 };

typedef struct ls_perf_mixed_in {
    int n;
    int matrix;            /* LS_PERF_MX_NORMAL: entries N(0,1); RANDSVD: Q1 diag(s) Q2^T */
    double cond;           /* randsvd: s_j = cond^(-j/(n-1)) */
    unsigned long long seed;
    ls_factor_prec factor; /* ours (auto allowed) */
    int repeat;            /* timed runs of each solver */
    ls_pivot pivot;   /* ours (auto allowed) */
} ls_perf_mixed_in;

typedef struct ls_perf_mixed_out {
    double t_mixed, t_dgetrf, t_irs; /* medians, seconds (t_irs: the best configuration) */
    double res_mixed, res_dgetrf, res_irs; /* FP64 scaled residuals of the last runs */
    int status_mixed;                /* ls_dsgesv's status */
    ls_mixed_result mixed;           /* our last run's report */
    int irs_iters;                   /* the best IRS configuration's niters (< 0: fell back) */
    char irs_name[64];               /* e.g. "IRS tf32/gmres" */
    int irs_tried, irs_ok;           /* configurations run, and of those the ones that solved */
    int runs;
} ls_perf_mixed_out;

#ifdef __cplusplus
}
#endif
#endif
