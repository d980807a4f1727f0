/* Random stacks for the batched benchmark, made on the device: uniform in
 * [-1, 1) from a counter-based hash, so a 2 GB stack costs no host time.
 * Defines: lsc_perf_bgen_d, lsc_perf_bgen_s */
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/perf/batched_perf.h"
#include "cuda/common/k_common.cuh"

__device__ __forceinline__ uint64_t bg_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

template <typename T>
__global__ void k_bgen(T *x, size_t count, uint64_t seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t u = bg_mix(seed + 0x9E3779B97F4A7C15ull * (i + 1));
        x[i] = (T)((double)(u >> 11) * 0x1.0p-52 - 1.0);
    }
}

template <typename T>
static cudaError_t bgen(T *x, size_t count, uint64_t seed, cudaStream_t s)
{
    k_bgen<T><<<4096, 256, 0, s>>>(x, count, seed);
    return cudaGetLastError();
}
LSK_DEFINE(LSC_PERF_BGEN_SIG, bgen, (x, count, seed, s))
