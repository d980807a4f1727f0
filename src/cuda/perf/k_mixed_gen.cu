/* Device generators of the mixed-vs-cuSOLVER benchmark: host generation of
 * an n = 32768 randsvd matrix would take hours, the device's QR seconds. */
#include <math.h>
#include <stdint.h>

#include "cuda/perf/k_mixed_gen.h"

#define GEN_THREADS 256

/* splitmix64 of a counter: independent streams per element. */
__device__ uint64_t gen_mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* (0, 1], never 0 so that the logarithm is finite. */
__device__ double gen_unit(uint64_t z)
{
    return ((double)(z >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

__global__ void k_gen_normal(int m, int n, double *A, int lda, unsigned long long seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int j = blockIdx.y; j < n; j += gridDim.y) {
        uint64_t idx = (uint64_t)j * (uint64_t)m + (uint64_t)i;
        uint64_t a = gen_mix(seed ^ gen_mix(2 * idx)), b = gen_mix(seed ^ gen_mix(2 * idx + 1));
        /* Box-Muller, one of the pair */
        A[i + (size_t)j * lda] = sqrt(-2.0 * log(gen_unit(a))) * cospi(2.0 * gen_unit(b));
    }
}

__global__ void k_gen_scale_cols(int m, int n, double *Q, int ldq, double cond)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int j = blockIdx.y; j < n; j += gridDim.y) {
        double s = n > 1 ? pow(cond, -(double)j / (double)(n - 1)) : 1.0;
        Q[i + (size_t)j * ldq] *= s;
    }
}

static dim3 gen_grid(int m, int n)
{
    return dim3((unsigned)((m + GEN_THREADS - 1) / GEN_THREADS), (unsigned)(n < 65535 ? n : 65535));
}

extern "C" cudaError_t lsk_gen_normal(int m, int n, double *A, int lda, unsigned long long seed,
                                      cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    k_gen_normal<<<gen_grid(m, n), GEN_THREADS, 0, s>>>(m, n, A, lda, seed);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_gen_scale_cols(int m, int n, double *Q, int ldq, double cond,
                                          cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    k_gen_scale_cols<<<gen_grid(m, n), GEN_THREADS, 0, s>>>(m, n, Q, ldq, cond);
    return cudaGetLastError();
}
