/* Row interchanges of the right-hand sides for getrs (LAPACK laswp on B).
 * The k swaps of one column depend on each other, so they stay serial; what
 * makes them fast is where they happen. lsk_laswp (k_pivot.cu) swaps in
 * global memory, one L2 round trip per access (~0.3 us a swap); here one
 * block stages its column in shared memory with coalesced loads, one thread
 * does the swaps there (about 30 ns each on an H100: n = 4096 in 125 us),
 * and the block writes the column back coalesced. A column too long for
 * shared memory is swapped in place.
 * Defines: lsk_laswp_rhs_staged_d, lsk_laswp_rhs_staged_s, lsk_laswp_rhs_d,
 *   lsk_laswp_rhs_s */
#include "cuda/common/k_common.cuh"
#include "cuda/lu/k_lu.h"

/* Swap x[k] and x[p] without a branch (p == k writes x[k] back); a pivot
 * outside [0, n) is taken as k. */
template <typename T>
__device__ __forceinline__ void lsk_swap_at(T *x, int n, int k, int p)
{
    p = (unsigned)p < (unsigned)n ? p : k;
    T a = x[k], b = x[p];
    x[p] = a;
    x[k] = b;
}

/* One thread applies len interchanges to x: swap t exchanges rows
 * k + t*step and piv[t]. Eight pivots go into registers first, so that a
 * swap's loads wait only for the previous swap's stores, not for a pivot
 * load as well. (Issuing the next swaps' loads ahead of the stores and
 * correcting them afterwards measured slower on an H100: the selects cost
 * more than the latency they hid.) */
template <typename T>
__device__ void lsk_swap_run(T *x, int n, int k, int step, const int *piv, int len)
{
    int t = 0;
    for (; t + 8 <= len; t += 8) {
        int q[8];
#pragma unroll
        for (int u = 0; u < 8; u++)
            q[u] = piv[t + u];
#pragma unroll
        for (int u = 0; u < 8; u++, k += step)
            lsk_swap_at(x, n, k, q[u]);
    }
    for (; t < len; t++, k += step)
        lsk_swap_at(x, n, k, piv[t]);
}

/* One block per column of B. Pivots are staged too, LSK_LASWP_RHS_CHUNK at
 * a time, so that the serial thread never waits on global memory. Rows of
 * invalid pivots (outside [0, n)) are left alone rather than written out of
 * bounds. reverse: k = k1-1 down to k0 (getrs with op(A) = A^T). */
template <typename T, int STAGED>
__global__ void lsk_laswp_rhs_kernel(int n, T *B, int ldb, int k0, int k1, const int *ipiv,
                                     int reverse)
{
    extern __shared__ __align__(16) unsigned char lsk_rhs_smem[];
    __shared__ int piv[LSK_LASWP_RHS_CHUNK];
    T *col = B + (size_t)blockIdx.x * (size_t)ldb;
    T *x = STAGED ? (T *)lsk_rhs_smem : col;
    if (STAGED)
        for (int i = threadIdx.x; i < n; i += blockDim.x)
            x[i] = col[i];
    int count = k1 - k0;
    for (int c0 = 0; c0 < count; c0 += LSK_LASWP_RHS_CHUNK) {
        int len = count - c0 < LSK_LASWP_RHS_CHUNK ? count - c0 : LSK_LASWP_RHS_CHUNK;
        __syncthreads(); /* the column is staged and the last chunk consumed */
        for (int t = threadIdx.x; t < len; t += blockDim.x)
            piv[t] = ipiv[reverse ? k1 - 1 - (c0 + t) : k0 + c0 + t] - 1;
        __syncthreads();
        if (threadIdx.x == 0)
            lsk_swap_run(x, n, reverse ? k1 - 1 - c0 : k0 + c0, reverse ? -1 : 1, piv, len);
    }
    if (STAGED) {
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += blockDim.x)
            col[i] = x[i];
    }
}

/* Dynamic shared memory the staged kernel may take: the opt-in limit less
 * the static pivot chunk. */
static size_t lsk_laswp_rhs_dynamic_max(size_t smem_max)
{
    size_t fixed = sizeof(int) * LSK_LASWP_RHS_CHUNK;
    return smem_max > fixed ? smem_max - fixed : 0;
}

template <typename T>
static int laswp_rhs_staged(int n, size_t smem_max)
{
    size_t es = sizeof(T);
    return n > 0 && (size_t)n * es <= lsk_laswp_rhs_dynamic_max(smem_max);
}
LSK_DEFINE(LSK_LASWP_RHS_STAGED_SIG, laswp_rhs_staged, (n, smem_max))

template <typename T>
static cudaError_t laswp_rhs(int n, int nrhs, T *dB, int ldb, int k0, int k1, const int *d_ipiv,
                             int reverse, size_t smem_max, cudaStream_t s)
{
    if (n <= 0 || nrhs <= 0 || k1 <= k0)
        return cudaSuccess;
    size_t bytes = (size_t)n * sizeof(T);
    if (laswp_rhs_staged<T>(n, smem_max)) {
        /* past the default 48 KiB a kernel must opt in; no sync involved */
        if (bytes > 48 * 1024) {
            cudaError_t e = cudaFuncSetAttribute(lsk_laswp_rhs_kernel<T, 1>,
                                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 (int)bytes);
            if (e != cudaSuccess)
                return e;
        }
        lsk_laswp_rhs_kernel<T, 1><<<(unsigned)nrhs, LSK_LASWP_RHS_THREADS, bytes, s>>>(
            n, dB, ldb, k0, k1, d_ipiv, reverse);
    } else {
        lsk_laswp_rhs_kernel<T, 0><<<(unsigned)nrhs, LSK_LASWP_RHS_THREADS, 0, s>>>(
            n, dB, ldb, k0, k1, d_ipiv, reverse);
    }
    return cudaGetLastError();
}
LSK_DEFINE(LSK_LASWP_RHS_SIG, laswp_rhs, (n, nrhs, dB, ldb, k0, k1, d_ipiv, reverse, smem_max, s))
