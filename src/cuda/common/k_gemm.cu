/* Panchatcharam, Sundar & Klar (2013), figure 2: C = A B with p x p tiles of A and B staged in shared
 * memory; any m, n, k (edge tiles are padded with zeros). Column-major.
 * Defines: lsk_gemm_tiled_d, lsk_gemm_tiled_s, lsk_reg_gemm_d, lsk_reg_gemm_s */
#include "cuda/common/k_common.cuh"
#include "cuda/common/kernels.h"

template <typename T, int P>
__global__ void lsk_gemm_tiled_kernel(int m, int n, int k, const T *A, int lda, const T *B,
                                      int ldb, T *C, int ldc)
{
    /* +1 column of padding: threads of a warp read a tile row across banks. */
    __shared__ T As[P][P + 1];
    __shared__ T Bs[P][P + 1];
    int tx = threadIdx.x, ty = threadIdx.y; /* tx runs down rows: coalesced */
    int i = blockIdx.x * P + tx;
    int j = blockIdx.y * P + ty;
    T acc = (T)0;
    for (int t0 = 0; t0 < k; t0 += P) {
        /* As[row][col] = A(i, t0+ty); Bs[row][col] = B(t0+tx, j) */
        As[tx][ty] = (i < m && t0 + ty < k) ? A[i + (long long)(t0 + ty) * lda] : (T)0;
        Bs[tx][ty] = (t0 + tx < k && j < n) ? B[(t0 + tx) + (long long)j * ldb] : (T)0;
        __syncthreads();
#pragma unroll
        for (int t = 0; t < P; t++)
            acc += As[tx][t] * Bs[t][ty];
        __syncthreads();
    }
    if (i < m && j < n)
        C[i + (long long)j * ldc] = acc;
}

template <typename T>
static cudaError_t lsk_gemm_launch(int tile, int m, int n, int k, const T *A, int lda, const T *B,
                                   int ldb, T *C, int ldc, cudaStream_t s)
{
    dim3 block(tile, tile);
    dim3 grid(lsk_blocks(m, tile), lsk_blocks(n, tile));
    if (grid.y > 65535u)
        return cudaErrorInvalidConfiguration;
    switch (tile) {
    case 8: lsk_gemm_tiled_kernel<T, 8><<<grid, block, 0, s>>>(m, n, k, A, lda, B, ldb, C, ldc); break;
    case 16: lsk_gemm_tiled_kernel<T, 16><<<grid, block, 0, s>>>(m, n, k, A, lda, B, ldb, C, ldc); break;
    case 32: lsk_gemm_tiled_kernel<T, 32><<<grid, block, 0, s>>>(m, n, k, A, lda, B, ldb, C, ldc); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

template <typename T>
static cudaError_t gemm_tiled(int tile, int m, int n, int k, const T *dA, int lda, const T *dB,
                              int ldb, T *dC, int ldc, cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    return lsk_gemm_launch<T>(tile, m, n, k, dA, lda, dB, ldb, dC, ldc, s);
}
LSK_DEFINE(LSK_GEMM_TILED_SIG, gemm_tiled, (tile, m, n, k, dA, lda, dB, ldb, dC, ldc, s))

template <typename T>
static int reg_gemm(ls_cuda_kernel_desc *out)
{
    int count = 0;
    LSK_REG("gemm_tiled_p8", "gemm", (lsk_gemm_tiled_kernel<T, 8>), 64, 2 * 8 * 9 * sizeof(T));
    LSK_REG("gemm_tiled_p16", "gemm", (lsk_gemm_tiled_kernel<T, 16>), 256,
            2 * 16 * 17 * sizeof(T));
    LSK_REG("gemm_tiled_p32", "gemm", (lsk_gemm_tiled_kernel<T, 32>), 1024,
            2 * 32 * 33 * sizeof(T));
    return count;
}
LSK_DEFINE(LSK_REG_GEMM_SIG, reg_gemm, (out))
