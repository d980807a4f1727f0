/* The tables of linsolve metrics; each returns the number of failures
 * (a formula disagreeing with CUDA, a solve failing its residual). */
#ifndef LS_BENCH_METRICS_PARTS_H
#define LS_BENCH_METRICS_PARTS_H

#include "bench_util.h"

typedef struct ls_metrics_opts {
    ls_precision prec;
    int n, repeat;
    int cgma[LS_BENCH_MAX_LIST], ncgma;
    int brk[LS_BENCH_MAX_LIST], nbreak;
    int gemm[LS_BENCH_MAX_LIST], ngemm;
} ls_metrics_opts;

int ls_metrics_occupancy(ls_out *o, ls_context *ctx, const ls_metrics_opts *m);
int ls_metrics_transactions(ls_out *o, ls_context *ctx, const ls_metrics_opts *m);
int ls_metrics_cgma(ls_out *o, const ls_metrics_opts *m);
int ls_metrics_breakdown(ls_out *o, ls_context *ctx, const ls_metrics_opts *m);

/* Device limits of the perf "device" answer, in the formula's terms. */
void ls_metrics_gpu_from_device(const ls_perf_device *d, void *occ_gpu);

#endif
