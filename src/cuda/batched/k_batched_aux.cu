/* Batched helpers: getrs on factors in device memory (one block per system
 * and right-hand side, the column in shared memory), cuBLAS's pointer
 * arrays, an in-place transpose for row-major stacks on the cuBLAS path,
 * and zeroing info.
 * Defines: lsk_bgetrs_d, lsk_bgetrs_s, lsk_bpointers_d, lsk_bpointers_s,
 *   lsk_btranspose_d, lsk_btranspose_s */
#include <cuda_runtime.h>

#include "cuda/batched/k_batched.h"
#include "cuda/common/k_common.cuh"

#define GETRS_THREADS 256
#define AUX_THREADS 256

template <typename T>
__global__ void __launch_bounds__(GETRS_THREADS)
k_bgetrs(lsk_bstack st, int trans, const int *skip_info)
{
    extern __shared__ unsigned char gs_raw[];
    T *x = (T *)gs_raw;
    const long long sys = blockIdx.x;
    const int c = blockIdx.y, n = st.n, tid = threadIdx.x, nt = blockDim.x;
    if (skip_info && skip_info[sys] != 0)
        return; /* a singular system keeps its B (the whole block returns) */
    const T *A = (const T *)st.A + sys * st.sA;
    const int *ipiv = st.ipiv + sys * n;
    T *b = (T *)st.B + sys * st.sB + (long long)c * st.b_cs;
#define LU(i, j) A[(long long)(i) * st.a_rs + (long long)(j) * st.a_cs]
    for (int i = tid; i < n; i += nt)
        x[i] = b[i * st.b_rs];
    __syncthreads();
    if (!trans) {
        if (tid == 0)
            for (int k = 0; k < n; k++) {
                int p = ipiv[k] - 1;
                T t = x[k];
                x[k] = x[p];
                x[p] = t;
            }
        __syncthreads();
        for (int k = 0; k < n; k++) { /* L y = P b */
            T xk = x[k];
            for (int i = k + 1 + tid; i < n; i += nt)
                x[i] -= LU(i, k) * xk;
            __syncthreads();
        }
        for (int k = n - 1; k >= 0; k--) { /* U x = y */
            T xk = x[k] / LU(k, k);
            __syncthreads();
            if (tid == 0)
                x[k] = xk;
            for (int i = tid; i < k; i += nt)
                x[i] -= LU(i, k) * xk;
            __syncthreads();
        }
    } else {
        for (int k = 0; k < n; k++) { /* U^T y = b */
            T xk = x[k] / LU(k, k);
            __syncthreads();
            if (tid == 0)
                x[k] = xk;
            for (int j = k + 1 + tid; j < n; j += nt)
                x[j] -= LU(k, j) * xk;
            __syncthreads();
        }
        for (int k = n - 1; k >= 0; k--) { /* L^T z = y */
            T xk = x[k];
            for (int j = tid; j < k; j += nt)
                x[j] -= LU(k, j) * xk;
            __syncthreads();
        }
        if (tid == 0)
            for (int k = n - 1; k >= 0; k--) {
                int p = ipiv[k] - 1;
                T t = x[k];
                x[k] = x[p];
                x[p] = t;
            }
        __syncthreads();
    }
#undef LU
    for (int i = tid; i < n; i += nt)
        b[i * st.b_rs] = x[i];
}

template <typename T>
static cudaError_t bgetrs(char trans, const lsk_bstack *st, int nrhs, const int *skip_info,
                          cudaStream_t s)
{
    if (st->n < 1 || nrhs < 1 || nrhs > 65535 || !st->ipiv)
        return cudaErrorInvalidValue;
    dim3 grid((unsigned)st->batch, (unsigned)nrhs);
    size_t bytes = (size_t)st->n * sizeof(T);
    int t = trans != 'N';
    k_bgetrs<T><<<grid, GETRS_THREADS, bytes, s>>>(*st, t, skip_info);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_BGETRS_SIG, bgetrs, (trans, st, nrhs, skip_info, s))

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
