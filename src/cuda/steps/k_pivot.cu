/* Partial pivoting on the device (Pattam's findPivot and swapRows): the
 * pivot row never leaves the GPU, so elimination loops need no host sync.
 * Defines: lsk_pivot_search_d, lsk_pivot_search_s, lsk_swap_rows_d,
 *   lsk_swap_rows_s, lsk_laswp_d, lsk_laswp_s, lsk_reg_pivot_d, lsk_reg_pivot_s */
#include "cuda/common/k_common.cuh"
#include "cuda/steps/k_steps.h"

/* One block: each thread scans a strided slice of rows [k, n), then a
 * shared-memory tree finds the largest |value|; ties keep the lowest row,
 * as LAPACK's i*amax does. */
template <typename T>
__global__ void lsk_pivot_search_kernel(int n, int k, const T *M, long long rs, long long cs,
                                        int *ipiv, int *info)
{
    __shared__ T best_val[LSK_PIVOT_THREADS];
    __shared__ int best_row[LSK_PIVOT_THREADS];
    T v = (T)-1;
    int row = k;
    for (int i = k + threadIdx.x; i < n; i += blockDim.x) {
        T a = lsk_abs(LSK_AT(M, i, k, rs, cs));
        if (a > v) {
            v = a;
            row = i;
        }
    }
    best_val[threadIdx.x] = v;
    best_row[threadIdx.x] = row;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            T ov = best_val[threadIdx.x + half];
            int orow = best_row[threadIdx.x + half];
            if (ov > best_val[threadIdx.x] ||
                (ov == best_val[threadIdx.x] && orow < best_row[threadIdx.x])) {
                best_val[threadIdx.x] = ov;
                best_row[threadIdx.x] = orow;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        ipiv[k] = best_row[0] + 1;
        /* NaN compares false: only an exact zero column counts as singular. */
        if (best_val[0] == (T)0 && *info == 0)
            *info = k + 1;
    }
}

template <typename T>
__global__ void lsk_swap_rows_kernel(int k, int c0, int c1, T *M, long long rs, long long cs,
                                     const int *ipiv)
{
    int p = ipiv[k] - 1;
    int j = c0 + blockIdx.x * blockDim.x + threadIdx.x;
    if (p == k || j >= c1)
        return;
    T t = LSK_AT(M, k, j, rs, cs);
    LSK_AT(M, k, j, rs, cs) = LSK_AT(M, p, j, rs, cs);
    LSK_AT(M, p, j, rs, cs) = t;
}

/* One thread per column applies the interchanges in order. */
template <typename T>
__global__ void lsk_laswp_kernel(int ncols, T *A, int lda, int k0, int k1, const int *ipiv)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= ncols)
        return;
    T *col = A + (long long)j * lda;
    for (int k = k0; k < k1; k++) {
        int p = ipiv[k] - 1;
        if (p != k) {
            T t = col[k];
            col[k] = col[p];
            col[p] = t;
        }
    }
}

template <typename T>
static cudaError_t pivot_search(int n, int k, const T *dM, long long rs, long long cs,
                                int *d_ipiv, int *d_info, cudaStream_t s)
{
    lsk_pivot_search_kernel<T><<<1, LSK_PIVOT_THREADS, 0, s>>>(n, k, dM, rs, cs, d_ipiv, d_info);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_PIVOT_SEARCH_SIG, pivot_search, (n, k, dM, rs, cs, d_ipiv, d_info, s))

template <typename T>
static cudaError_t swap_rows(int k, int c0, int c1, T *dM, long long rs, long long cs,
                             const int *d_ipiv, cudaStream_t s)
{
    if (c1 <= c0)
        return cudaSuccess;
    lsk_swap_rows_kernel<T><<<lsk_blocks(c1 - c0, LSK_ROWOP_THREADS), LSK_ROWOP_THREADS, 0, s>>>(
        k, c0, c1, dM, rs, cs, d_ipiv);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_SWAP_ROWS_SIG, swap_rows, (k, c0, c1, dM, rs, cs, d_ipiv, s))

template <typename T>
static cudaError_t laswp(int ncols, T *dA, int lda, int k0, int k1, const int *d_ipiv,
                         cudaStream_t s)
{
    if (ncols <= 0 || k1 <= k0)
        return cudaSuccess;
    lsk_laswp_kernel<T><<<lsk_blocks(ncols, LSK_LASWP_THREADS), LSK_LASWP_THREADS, 0, s>>>(
        ncols, dA, lda, k0, k1, d_ipiv);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_LASWP_SIG, laswp, (ncols, dA, lda, k0, k1, d_ipiv, s))

template <typename T>
static int reg_pivot(ls_cuda_kernel_desc *out)
{
    int count = 0;
    const char *m = "ge-naive,ge-blocked,ge-coalesced,gj1,gj2,lu-seed";
    LSK_REG("pivot_search", m, lsk_pivot_search_kernel<T>, LSK_PIVOT_THREADS,
            LSK_PIVOT_THREADS * (sizeof(T) + sizeof(int)));
    LSK_REG("swap_rows", m, lsk_swap_rows_kernel<T>, LSK_ROWOP_THREADS, 0);
    LSK_REG("laswp", "lu", lsk_laswp_kernel<T>, LSK_LASWP_THREADS, 0);
    return count;
}
LSK_DEFINE(LSK_REG_PIVOT_SIG, reg_pivot, (out))
