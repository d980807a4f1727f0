/* Pivot bookkeeping of the look-ahead LU (getrf_lookahead.c): a panel
 * factored at (j0, j0) returns panel-relative pivots and its own info. */
#include "k_common.cuh"
#include "kernels.h"

__global__ void lsk_pivots_shift_kernel(int w, int j0, int *ipiv, const int *pinfo, int *info)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w)
        ipiv[j0 + i] += j0;
    /* the first zero pivot of the whole matrix: earlier panels win */
    if (i == 0 && *pinfo > 0 && *info == 0)
        *info = *pinfo + j0;
}

extern "C" cudaError_t lsk_pivots_shift(int w, int j0, int *d_ipiv, const int *d_pinfo,
                                        int *d_info, cudaStream_t s)
{
    const int threads = 256;
    lsk_pivots_shift_kernel<<<lsk_blocks(w, threads), threads, 0, s>>>(w, j0, d_ipiv, d_pinfo,
                                                                       d_info);
    return cudaGetLastError();
}

/* The same for a panel factored by cuSOLVER's 64-bit API (Xgetrf). */
__global__ void lsk_pivots_shift64_kernel(int w, int j0, const long long *p64, int *ipiv,
                                          const int *pinfo, int *info)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w)
        ipiv[j0 + i] = (int)p64[i] + j0;
    if (i == 0 && *pinfo > 0 && *info == 0)
        *info = *pinfo + j0;
}

extern "C" cudaError_t lsk_pivots_shift64(int w, int j0, const long long *d_p64, int *d_ipiv,
                                          const int *d_pinfo, int *d_info, cudaStream_t s)
{
    const int threads = 256;
    lsk_pivots_shift64_kernel<<<lsk_blocks(w, threads), threads, 0, s>>>(w, j0, d_p64, d_ipiv,
                                                                         d_pinfo, d_info);
    return cudaGetLastError();
}
