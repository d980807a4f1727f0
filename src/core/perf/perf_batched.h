/*
 * The batched_vs_peer measurement request of the CUDA plugin's perf table
 * (core/perf/perf.h): our batched gesv (ls_?gesv_batched_gpu's path)
 * against cuBLAS getrfBatched + getrsBatched and, on request, cuSOLVER's
 * getrf + getrs looped over the systems, in the same process on the same
 * stream. The stack (batch random n x n matrices, column-major, lda = n,
 * and one right-hand side each) is generated on the device; every timed
 * run starts from a pristine copy restored off the clock, with L2 flushed,
 * after one warm-up of each; ours and cuBLAS's runs are interleaved.
 */
#ifndef LS_CORE_PERF_BATCHED_H
#define LS_CORE_PERF_BATCHED_H

#include <stddef.h>
#include "linsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ls_perf_batched_in {
    ls_precision prec;
    int n, batch;
    int repeat;   /* timed runs of each, medians kept */
    int cusolver; /* 1: also cuSOLVER Xgetrf + Xgetrs looped over the systems */
} ls_perf_batched_in;

typedef struct ls_perf_batched_out {
    double t_ours, t_cublas, t_cusolver; /* medians, seconds, device events; 0: not run */
    double copy_gbps;   /* cudaMemcpy device to device, (read + written bytes) / s */
    double bytes;       /* A and b read and written once: the memory floor's traffic */
    double res_ours, res_cublas; /* worst scaled residual over the systems checked */
    int checked;        /* systems whose residual was computed (first and last ones) */
    int singular_ours, singular_cublas; /* systems with info > 0 */
    int runs;
    size_t need_bytes, free_bytes;
} ls_perf_batched_out;

#ifdef __cplusplus
}
#endif
#endif
