/* Triangular solve with an O(log n) tree reduction per row (TendTo's Linear-System-Solver):
 * row i's dot product with the solved unknowns is split over the block's
 * threads and summed in shared memory; thread 0 finishes x(i). One block
 * per right-hand side, so right-hand sides run in parallel.
 * Defines: lsk_trsv_tree_d, lsk_trsv_tree_s, lsk_reg_trisolve_d,
 *   lsk_reg_trisolve_s */
#include "cuda/common/k_common.cuh"
#include "cuda/steps/k_steps.h"

template <typename T>
__global__ void lsk_trsv_tree_kernel(int n, const T *Tm, long long rs, long long cs, int lower,
                                     int unit, T *X, int ldx)
{
    __shared__ T partial[LSK_TREE_THREADS];
    T *x = X + (long long)blockIdx.x * ldx;
    for (int step = 0; step < n; step++) {
        int i = lower ? step : n - 1 - step;
        int j0 = lower ? 0 : i + 1;
        int j1 = lower ? i : n;
        T sum = (T)0;
        for (int j = j0 + threadIdx.x; j < j1; j += blockDim.x)
            sum += LSK_AT(Tm, i, j, rs, cs) * x[j];
        partial[threadIdx.x] = sum;
        __syncthreads();
        for (int half = blockDim.x / 2; half > 0; half /= 2) {
            if (threadIdx.x < half)
                partial[threadIdx.x] += partial[threadIdx.x + half];
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            T v = x[i] - partial[0];
            x[i] = unit ? v : v / LSK_AT(Tm, i, i, rs, cs);
        }
        /* x(i) must be visible to the whole block before the next row. */
        __syncthreads();
    }
}

template <typename T>
static cudaError_t trsv_tree(int n, int nrhs, const T *dT, long long rs, long long cs, int lower,
                             int unit, T *dX, int ldx, cudaStream_t s)
{
    if (n <= 0 || nrhs <= 0)
        return cudaSuccess;
    lsk_trsv_tree_kernel<T><<<nrhs, LSK_TREE_THREADS, 0, s>>>(n, dT, rs, cs, lower, unit, dX, ldx);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_TRSV_TREE_SIG, trsv_tree, (n, nrhs, dT, rs, cs, lower, unit, dX, ldx, s))

template <typename T>
static int reg_trisolve(ls_cuda_kernel_desc *out)
{
    int count = 0;
    LSK_REG("trsv_tree", "ge-naive,ge-blocked,ge-coalesced,lu-seed", lsk_trsv_tree_kernel<T>,
            LSK_TREE_THREADS, LSK_TREE_THREADS * sizeof(T));
    return count;
}
LSK_DEFINE(LSK_REG_TRISOLVE_SIG, reg_trisolve, (out))
