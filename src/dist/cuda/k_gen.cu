/*
 * `linsolve gen random`'s matrix on the device. Entry (i, j) is one
 * splitmix64 draw from seed + (j n + i) * golden (src/gen/gen_block.c,
 * src/core/util.c), so a kernel reproduces it bit for bit: the host never
 * holds A, which at n = 131072 is 137 GB and would take one host thread
 * minutes to draw for every upload.
 */
#include <cuda_runtime.h>

#include "k_gen.h"

#define GOLDEN 0x9E3779B97F4A7C15ull

/* ls_rand_uniform of the state seed + (j n + i) * golden: [-1, 1) */
__device__ __forceinline__ double draw(unsigned long long state)
{
    unsigned long long z = state + GOLDEN;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    /* 53 bits to [0, 1), then 2u - 1: both steps are exact, as on the host */
    const double u = (double)(z >> 11) * 0x1.0p-53;
    return __dsub_rn(__dmul_rn(2.0, u), 1.0);
}

__global__ void k_cols(int n, int nb, int g, int d, long long ncols, double *A, long long lda,
                       unsigned long long seed)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (long long lj = blockIdx.y; lj < ncols; lj += gridDim.y) {
        const long long j = ((lj / nb) * g + d) * nb + lj % nb;
        if (j < n)
            A[lj * lda + i] = draw(seed + ((unsigned long long)j * (unsigned long long)n +
                                           (unsigned long long)i) * GOLDEN);
    }
}

/* One thread a row, j in increasing order: the host's summation order. */
__global__ void k_rowsums(int n, unsigned long long seed, double *b, double *abssum)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const unsigned long long step = (unsigned long long)n * GOLDEN;
    unsigned long long state = seed + (unsigned long long)i * GOLDEN;
    double s = 0, a = 0;
    for (int j = 0; j < n; ++j, state += step) {
        const double v = draw(state);
        s = __dadd_rn(s, v);
        a = __dadd_rn(a, fabs(v));
    }
    b[i] = s;
    abssum[i] = a;
}

__global__ void k_residual(int n, unsigned long long seed, const double *x, const double *b,
                           double *r)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const unsigned long long step = (unsigned long long)n * GOLDEN;
    unsigned long long state = seed + (unsigned long long)i * GOLDEN;
    double s = b[i];
    for (int j = 0; j < n; ++j, state += step)
        s -= draw(state) * __ldg(x + j);
    r[i] = s;
}

/* 128 threads a block: at n = 131072 the row kernels' 1024 blocks still
 * spread over every SM. */
enum { ROWS_PER_BLOCK = 128 };

static int launched(void)
{
    return (int)cudaGetLastError();
}

extern "C" int ls_dist_k_gen_random_cols(int n, int nb, int g, int d, long long ncols, double *A,
                                         long long lda, unsigned long long seed, cudaStream_t s)
{
    if (n <= 0 || ncols <= 0)
        return 0;
    const dim3 grid((unsigned)((n + 255) / 256), (unsigned)(ncols < 65535 ? ncols : 65535));
    k_cols<<<grid, 256, 0, s>>>(n, nb, g, d, ncols, A, lda, seed);
    return launched();
}

extern "C" int ls_dist_k_gen_random_rowsums(int n, unsigned long long seed, double *b,
                                            double *abssum, cudaStream_t s)
{
    if (n <= 0)
        return 0;
    k_rowsums<<<(n + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, ROWS_PER_BLOCK, 0, s>>>(n, seed, b,
                                                                                  abssum);
    return launched();
}

extern "C" int ls_dist_k_gen_random_residual(int n, unsigned long long seed, const double *x,
                                             const double *b, double *r, cudaStream_t s)
{
    if (n <= 0)
        return 0;
    k_residual<<<(n + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, ROWS_PER_BLOCK, 0, s>>>(n, seed, x, b,
                                                                                   r);
    return launched();
}
