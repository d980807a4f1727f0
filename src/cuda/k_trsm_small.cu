/* B = L^-1 B for a small unit lower triangular L (k <= LSK_TRSM_SMALL_K),
 * as the recursive LU needs at the bottom of its recursion, where cuBLAS's
 * trsm costs 11-13 us a call on the H100 (ncu, n = 256 and 1024) for a few
 * thousand flops. One thread a column of B, the column in registers, L in
 * shared memory (zero-padded to K x K so the unrolled loops need no
 * bounds), every thread reading the same L element at a time (broadcast). */
#include "k_common.cuh"
#include "kernels.h"

#define LSK_TRSM_SMALL_THREADS 64

template <typename T, int K>
__global__ void __launch_bounds__(LSK_TRSM_SMALL_THREADS)
    lsk_trsm_small_kernel(int k, int nc, const T *L, int ldl, T *B, int ldb)
{
    __shared__ T sl[K * K];
    for (int idx = threadIdx.x; idx < K * K; idx += blockDim.x) {
        int i = idx % K, p = idx / K;
        sl[idx] = i < k && p < k && i > p ? L[i + (long long)p * ldl] : (T)0;
    }
    __syncthreads();
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= nc)
        return;
    T *b = B + (long long)c * ldb;
    T x[K];
#pragma unroll
    for (int i = 0; i < K; i++)
        x[i] = i < k ? b[i] : (T)0;
#pragma unroll
    for (int p = 0; p < K - 1; p++)
#pragma unroll
        for (int i = p + 1; i < K; i++)
            x[i] -= sl[p * K + i] * x[p];
#pragma unroll
    for (int i = 0; i < K; i++)
        if (i < k)
            b[i] = x[i];
}

extern "C" cudaError_t lsk_trsm_small(int dbl, int k, int nc, const void *dL, int ldl, void *dB,
                                      int ldb, cudaStream_t s)
{
    if (k <= 0 || nc <= 0)
        return cudaSuccess;
    if (k > LSK_TRSM_SMALL_K)
        return cudaErrorInvalidValue;
    unsigned blocks = lsk_blocks(nc, LSK_TRSM_SMALL_THREADS);
#define LSK_TRSM_LAUNCH(T, K)                                                             \
    lsk_trsm_small_kernel<T, K><<<blocks, LSK_TRSM_SMALL_THREADS, 0, s>>>(k, nc, (const T *)dL, \
                                                                         ldl, (T *)dB, ldb)
    LSK_DISPATCH(dbl, {
        if (k <= 16)
            LSK_TRSM_LAUNCH(T, 16);
        else
            LSK_TRSM_LAUNCH(T, 32);
    });
#undef LSK_TRSM_LAUNCH
    return cudaGetLastError();
}
