/* Batched helpers: cuBLAS's pointer arrays, an in-place transpose for
 * row-major stacks on the cuBLAS path, and zeroing info.
 * Defines: lsk_bpointers_d, lsk_bpointers_s, lsk_btranspose_d, lsk_btranspose_s */
#include <cuda_runtime.h>

#include "cuda/batched/k_batched.h"
#include "cuda/common/k_common.cuh"

#define AUX_THREADS 256

__global__ void k_bpointers(char *A, long long step, int batch, void **ptrs)
{
    long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b < batch)
        ptrs[b] = A + b * step;
}

template <typename T>
static cudaError_t bpointers(T *A, long long sA, int batch, T **ptrs, cudaStream_t s)
{
    long long step = sA * (long long)sizeof(T);
    k_bpointers<<<lsk_blocks(batch, AUX_THREADS), AUX_THREADS, 0, s>>>((char *)A, step, batch,
                                                                        (void **)ptrs);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_BPOINTERS_SIG, bpointers, (A, sA, batch, ptrs, s))

/* Blocks stride over the systems; a block's threads over the pairs i < j. */
/* In-place transpose by 32 x 32 tiles: block (p, y) swaps tile (bi, bj)
 * with tile (bj, bi), bi <= bj the p-th pair of the upper triangle, of
 * systems y, y + gridDim.y, ..., through shared memory, so that every
 * load and store runs along a row (the element-wise swap it replaces read
 * one of each pair down a column and ran at a tenth of the bandwidth). */
#define TR_TILE 32
#define TR_ROWS 8 /* a block is TR_TILE x TR_ROWS threads */
template <typename T>
__global__ void __launch_bounds__(TR_TILE *TR_ROWS)
k_btranspose(int n, T *A, long long ld, long long sA, int batch)
{
    __shared__ T t1[TR_TILE][TR_TILE + 1], t2[TR_TILE][TR_TILE + 1];
    const int p = (int)blockIdx.x;
    int bj = (int)((sqrtf(8.0f * (float)p + 1.0f) - 1.0f) * 0.5f);
    while ((bj + 1) * (bj + 2) / 2 <= p)
        bj++;
    while (bj * (bj + 1) / 2 > p)
        bj--;
    const int bi = p - bj * (bj + 1) / 2, x = threadIdx.x % TR_TILE, y0 = threadIdx.x / TR_TILE;
    const int i0 = bi * TR_TILE, j0 = bj * TR_TILE;
    const bool diag = bi == bj;
    for (long long b = blockIdx.y; b < batch; b += gridDim.y) {
        T *M = A + b * sA;
        for (int k = y0; k < TR_TILE; k += TR_ROWS) { /* t1 = tile (bi, bj), t2 = (bj, bi) */
            if (i0 + k < n && j0 + x < n)
                t1[k][x] = M[(i0 + k) * ld + j0 + x];
            if (!diag && j0 + k < n && i0 + x < n)
                t2[k][x] = M[(j0 + k) * ld + i0 + x];
        }
        __syncthreads();
        for (int k = y0; k < TR_TILE; k += TR_ROWS) {
            if (i0 + k < n && j0 + x < n)
                M[(i0 + k) * ld + j0 + x] = diag ? t1[x][k] : t2[x][k];
            if (!diag && j0 + k < n && i0 + x < n)
                M[(j0 + k) * ld + i0 + x] = t1[x][k];
        }
        __syncthreads(); /* the tiles are free for the next system */
    }
}

template <typename T>
static cudaError_t btranspose(int n, T *A, long long ld, long long sA, int batch, cudaStream_t s)
{
    const int nt = (n + TR_TILE - 1) / TR_TILE;
    dim3 grid((unsigned)(nt * (nt + 1) / 2), batch < 65535 ? (unsigned)batch : 65535u);
    k_btranspose<T><<<grid, TR_TILE * TR_ROWS, 0, s>>>(n, A, ld, sA, batch);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_BTRANSPOSE_SIG, btranspose, (n, A, ld, sA, batch, s))

__global__ void k_bzero_info(int *info, int batch)
{
    long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b < batch)
        info[b] = 0;
}

extern "C" cudaError_t lsk_bzero_info(int *info, int batch, cudaStream_t s)
{
    k_bzero_info<<<lsk_blocks(batch, AUX_THREADS), AUX_THREADS, 0, s>>>(info, batch);
    return cudaGetLastError();
}
