/* Random stacks for the batched benchmark, made on the device: uniform in
 * [-1, 1) from a counter-based hash, so a 2 GB stack costs no host time. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "batched_perf.h"

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

extern "C" cudaError_t lsc_perf_bgen(int dbl, void *x, size_t count, uint64_t seed,
                                     cudaStream_t s)
{
    if (dbl)
        k_bgen<double><<<4096, 256, 0, s>>>((double *)x, count, seed);
    else
        k_bgen<float><<<4096, 256, 0, s>>>((float *)x, count, seed);
    return cudaGetLastError();
}
