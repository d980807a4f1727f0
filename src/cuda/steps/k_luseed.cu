/* Pattam's CUDA LU kernels on the column-major matrix: computeMultipliers and
 * updateSubmatrix (16 x 16 tiles with the pivot row and the multipliers
 * staged in shared memory). The seed zeroes multipliers under a 1e-10
 * threshold; we keep LAPACK's rule instead (only an exact zero pivot is
 * singular, reported through info), so the method obeys the same contract
 * as the others.
 * Defines: lsk_seed_multipliers_d, lsk_seed_multipliers_s, lsk_seed_update_d,
 *   lsk_seed_update_s, lsk_reg_luseed_d, lsk_reg_luseed_s */
#include "cuda/common/k_common.cuh"
#include "cuda/steps/k_steps.h"

template <typename T>
__global__ void lsk_seed_multipliers_kernel(int n, T *A, int lda, int k)
{
    int i = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    T pivot = A[k + (long long)k * lda];
    if (i >= n || pivot == (T)0)
        return;
    A[i + (long long)k * lda] /= pivot;
}

/* threadIdx.x runs down a column (coalesced in column-major storage). */
template <typename T>
__global__ void lsk_seed_update_kernel(int n, T *A, int lda, int k)
{
    __shared__ T mult[LSK_SEED_TILE];
    __shared__ T prow[LSK_SEED_TILE];
    int i0 = k + 1 + blockIdx.x * LSK_SEED_TILE;
    int j0 = k + 1 + blockIdx.y * LSK_SEED_TILE;
    int i = i0 + threadIdx.x;
    int j = j0 + threadIdx.y;
    if (threadIdx.y == 0 && i < n)
        mult[threadIdx.x] = A[i + (long long)k * lda];
    if (threadIdx.x == 0 && j < n)
        prow[threadIdx.y] = A[k + (long long)j * lda];
    __syncthreads();
    if (i < n && j < n)
        A[i + (long long)j * lda] -= mult[threadIdx.x] * prow[threadIdx.y];
}

template <typename T>
static cudaError_t seed_multipliers(int n, T *dA, int lda, int k, cudaStream_t s)
{
    int rows = n - k - 1;
    if (rows <= 0)
        return cudaSuccess;
    lsk_seed_multipliers_kernel<T><<<lsk_blocks(rows, LSK_ROWOP_THREADS), LSK_ROWOP_THREADS, 0,
                                     s>>>(n, dA, lda, k);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_SEED_MULTIPLIERS_SIG, seed_multipliers, (n, dA, lda, k, s))

template <typename T>
static cudaError_t seed_update(int n, T *dA, int lda, int k, cudaStream_t s)
{
    int rest = n - k - 1;
    if (rest <= 0)
        return cudaSuccess;
    dim3 block(LSK_SEED_TILE, LSK_SEED_TILE);
    dim3 grid(lsk_blocks(rest, LSK_SEED_TILE), lsk_blocks(rest, LSK_SEED_TILE));
    if (grid.y > 65535u)
        return cudaErrorInvalidConfiguration;
    lsk_seed_update_kernel<T><<<grid, block, 0, s>>>(n, dA, lda, k);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_SEED_UPDATE_SIG, seed_update, (n, dA, lda, k, s))

template <typename T>
static int reg_luseed(ls_cuda_kernel_desc *out)
{
    int count = 0;
    LSK_REG("seed_multipliers", "lu-seed", lsk_seed_multipliers_kernel<T>, LSK_ROWOP_THREADS, 0);
    LSK_REG("seed_update", "lu-seed", lsk_seed_update_kernel<T>, LSK_SEED_TILE * LSK_SEED_TILE,
            2 * LSK_SEED_TILE * sizeof(T));
    return count;
}
LSK_DEFINE(LSK_REG_LUSEED_SIG, reg_luseed, (out))
