/* The batched benchmark's parts in the CUDA plugin (batched_vs_peer.c,
 * k_batched_gen.cu); the request itself is core/perf/perf_batched.h. */
#ifndef LS_CUDA_BATCHED_PERF_H
#define LS_CUDA_BATCHED_PERF_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda/common/typed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* count uniform [-1, 1) values into x. */
#define LSC_PERF_BGEN_SIG(T, S) \
    cudaError_t lsc_perf_bgen_##S(T *x, size_t count, uint64_t seed, cudaStream_t s)
LSK_DECLARE(LSC_PERF_BGEN_SIG); /* lsc_perf_bgen_d, lsc_perf_bgen_s */

#ifdef __cplusplus
}
#endif
#endif
