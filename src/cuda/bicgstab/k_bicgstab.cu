/* BiCGStab building blocks (Panchatcharam, Sundar & Klar 2013): a dense matrix-vector product in
 * which each thread owns LSK_SPMV_ROWS rows and the block stages x in
 * shared memory tile by tile (figure 4), dot products by a two-stage block
 * reduction (deterministic, no double atomics), and one fused three-term
 * vector update that covers every axpy-type step of the iteration.
 * Defines: lsk_matvec_d, lsk_matvec_s, lsk_dot_d, lsk_dot_s, lsk_axpbypcz_d,
 *   lsk_axpbypcz_s, lsk_reg_bicgstab_d, lsk_reg_bicgstab_s */
#include "cuda/common/k_common.cuh"
#include "cuda/bicgstab/k_bicgstab.h"

/* Rows of one thread are blockDim.x apart, so at every column a warp reads
 * 32 consecutive elements of the column-major A (coalesced). */
template <typename T>
__global__ void lsk_matvec_kernel(int n, const T *A, int lda, const T *x, T *y)
{
    __shared__ T xs[LSK_SPMV_XTILE];
    int base = blockIdx.x * blockDim.x * LSK_SPMV_ROWS + threadIdx.x;
    T acc[LSK_SPMV_ROWS];
#pragma unroll
    for (int r = 0; r < LSK_SPMV_ROWS; r++)
        acc[r] = (T)0;
    for (int t0 = 0; t0 < n; t0 += LSK_SPMV_XTILE) {
        int len = min(LSK_SPMV_XTILE, n - t0);
        __syncthreads();
        for (int t = threadIdx.x; t < len; t += blockDim.x)
            xs[t] = x[t0 + t];
        __syncthreads();
        for (int t = 0; t < len; t++) {
            const T *col = A + (long long)(t0 + t) * lda;
#pragma unroll
            for (int r = 0; r < LSK_SPMV_ROWS; r++) {
                int i = base + r * blockDim.x;
                if (i < n)
                    acc[r] += col[i] * xs[t];
            }
        }
    }
#pragma unroll
    for (int r = 0; r < LSK_SPMV_ROWS; r++) {
        int i = base + r * blockDim.x;
        if (i < n)
            y[i] = acc[r];
    }
}

template <typename T>
__device__ void lsk_block_sum(T *buf, T v)
{
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            buf[threadIdx.x] += buf[threadIdx.x + half];
        __syncthreads();
    }
}

/* Stage 1: each block sums a grid-strided slice into partials[blockIdx.x]. */
template <typename T>
__global__ void lsk_dot_partial_kernel(int n, const T *x, const T *y, T *partials)
{
    __shared__ T buf[LSK_DOT_THREADS];
    T v = (T)0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        v += x[i] * y[i];
    lsk_block_sum(buf, v);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = buf[0];
}

/* Stage 2: one block sums the partials. */
template <typename T>
__global__ void lsk_dot_final_kernel(int count, const T *partials, T *out)
{
    __shared__ T buf[LSK_DOT_THREADS];
    T v = (T)0;
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        v += partials[i];
    lsk_block_sum(buf, v);
    if (threadIdx.x == 0)
        *out = buf[0];
}

template <typename T>
__global__ void lsk_axpbypcz_kernel(int n, T a, const T *x, T b, const T *y, T c, const T *z,
                                    T *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    T v = x ? a * x[i] : (T)0;
    if (y)
        v += b * y[i];
    if (z)
        v += c * z[i];
    out[i] = v;
}

template <typename T>
static cudaError_t matvec(int n, const T *dA, int lda, const T *dx, T *dy, cudaStream_t s)
{
    if (n <= 0)
        return cudaSuccess;
    unsigned grid = lsk_blocks(n, LSK_SPMV_THREADS * LSK_SPMV_ROWS);
    lsk_matvec_kernel<T><<<grid, LSK_SPMV_THREADS, 0, s>>>(n, dA, lda, dx, dy);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_MATVEC_SIG, matvec, (n, dA, lda, dx, dy, s))

template <typename T>
static cudaError_t dot(int n, const T *dx, const T *dy, T *partials, T *out, cudaStream_t s)
{
    int blocks = (int)lsk_blocks(n > 0 ? n : 1, LSK_DOT_THREADS);
    if (blocks > LSK_DOT_BLOCKS)
        blocks = LSK_DOT_BLOCKS;
    lsk_dot_partial_kernel<T><<<blocks, LSK_DOT_THREADS, 0, s>>>(n, dx, dy, partials);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return e;
    lsk_dot_final_kernel<T><<<1, LSK_DOT_THREADS, 0, s>>>(blocks, (const T *)partials, out);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_DOT_SIG, dot, (n, dx, dy, partials, out, s))

template <typename T>
static cudaError_t axpbypcz(int n, double a, const T *x, double b, const T *y, double c,
                            const T *z, T *out, cudaStream_t s)
{
    if (n <= 0)
        return cudaSuccess;
    lsk_axpbypcz_kernel<T><<<lsk_blocks(n, LSK_VEC_THREADS), LSK_VEC_THREADS, 0, s>>>(
        n, (T)a, x, (T)b, y, (T)c, z, out);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_AXPBYPCZ_SIG, axpbypcz, (n, a, x, b, y, c, z, out, s))

template <typename T>
static int reg_bicgstab(ls_cuda_kernel_desc *out)
{
    int count = 0;
    LSK_REG("matvec", "bicgstab", lsk_matvec_kernel<T>, LSK_SPMV_THREADS,
            LSK_SPMV_XTILE * sizeof(T));
    LSK_REG("dot_partial", "bicgstab", lsk_dot_partial_kernel<T>, LSK_DOT_THREADS,
            LSK_DOT_THREADS * sizeof(T));
    LSK_REG("dot_final", "bicgstab", lsk_dot_final_kernel<T>, LSK_DOT_THREADS,
            LSK_DOT_THREADS * sizeof(T));
    LSK_REG("axpbypcz", "bicgstab", lsk_axpbypcz_kernel<T>, LSK_VEC_THREADS, 0);
    return count;
}
LSK_DEFINE(LSK_REG_BICGSTAB_SIG, reg_bicgstab, (out))
