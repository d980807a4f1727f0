/*
 * The few device kernels the CUDA local engine needs beyond cuBLAS: the
 * interchanges of the distributed LU, as rows packed into and out of a
 * contiguous buffer by an index list (k_rows) or, on one process row, moved
 * in place (k_move), and getf2's division by a pivot too small to invert.
 */
#include <cuda_runtime.h>

#include "cuda/common/k_row_moves.cuh"
#include "k_dist.h"

/* buf[i * width + c] <-> X(rows[i], col(c)), col(c) over up to two column
 * ranges. X is column-major and buf row-major, so the kernel moves a tile of
 * TR rows x TC columns through shared memory: lanes run along i when they
 * touch X (the interchanges' destination rows are consecutive, so half the
 * traffic coalesces) and along c when they touch buf (always consecutive).
 * Lanes along c on X, as a plain kernel would have them, cost one 32-byte
 * sector per element. */
enum { TR = 32, TC = 32, TY = 8 };

template <typename T>
__global__ void k_rows(T *X, long long ldx, int c00, int nc0, int c01, int width, int nrows,
                       const int *rows, T *buf, int pack)
{
    __shared__ T tile[TC][TR + 1]; /* +1: no bank conflicts on the turn */
    const int i0 = blockIdx.y * TR, cb = blockIdx.x * TC;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i = i0 + tx;
    const int r = i < nrows ? rows[i] : 0;
    if (pack) {
        for (int k = ty; k < TC; k += TY) { /* X -> tile, lanes along rows */
            const int c = cb + k;
            if (c < width && i < nrows) {
                const long long col = c < nc0 ? c00 + c : c01 + (c - nc0);
                tile[k][tx] = X[col * ldx + r];
            }
        }
        __syncthreads();
        for (int k = ty; k < TR; k += TY) { /* tile -> buf, lanes along columns */
            const int ii = i0 + k, c = cb + tx;
            if (ii < nrows && c < width)
                buf[(long long)ii * width + c] = tile[tx][k];
        }
    } else {
        for (int k = ty; k < TR; k += TY) { /* buf -> tile, lanes along columns */
            const int ii = i0 + k, c = cb + tx;
            if (ii < nrows && c < width)
                tile[tx][k] = buf[(long long)ii * width + c];
        }
        __syncthreads();
        for (int k = ty; k < TC; k += TY) { /* tile -> X, lanes along rows */
            const int c = cb + k;
            if (c < width && i < nrows) {
                const long long col = c < nc0 ? c00 + c : c01 + (c - nc0);
                X[col * ldx + r] = tile[k][tx];
            }
        }
    }
}

/* X(dst[i], col(c)) = old X(src[i], col(c)) for every i, in place: a
 * block takes a column at a time, reads its nrows sources into shared
 * memory, then writes them to their destinations (dst and src hold the
 * same rows, so every source is read before any is overwritten). One read
 * and one write per entry, against two of each through a buffer. */
template <typename T>
__global__ void k_move(T *X, long long ldx, int c00, int nc0, int c01, int width, int nrows,
                       const int *dst, const int *src)
{
    extern __shared__ unsigned char k_move_smem[];
    T *v = (T *)k_move_smem;
    for (int c = blockIdx.x; c < width; c += gridDim.x) {
        const long long col = c < nc0 ? c00 + c : c01 + (c - nc0);
        T *x = X + col * ldx;
        for (int i = threadIdx.x; i < nrows; i += blockDim.x)
            v[i] = x[src[i]];
        __syncthreads();
        for (int i = threadIdx.x; i < nrows; i += blockDim.x)
            x[dst[i]] = v[i];
        __syncthreads();
    }
}

/* The same for up to LSK_RMOVES_MAX rows, a block moving many columns with
 * the indices in registers (k_row_moves.cuh). */
template <typename T>
__global__ void __launch_bounds__(LSK_RMOVES_THREADS)
    k_move_regs(T *X, long long ldx, int c00, int nc0, int c01, int width, int nrows,
                const int *dst, const int *src)
{
    lsk_row_moves_block<T>(X, ldx, c00, nc0, c01, width, nrows, dst, src, 1);
}

template <typename T>
__global__ void k_div(int n, T pivot, T *x)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] /= pivot;
}

extern "C" int ls_dist_k_rows(int dbl, void *X, long long ldx, int nranges, const int *c0,
                              const int *nc, int nrows, const int *drows, void *buf, int pack,
                              cudaStream_t s)
{
    const int nc0 = nc[0], nc1 = nranges > 1 ? nc[1] : 0, width = nc0 + nc1;
    if (width <= 0 || nrows <= 0)
        return 0;
    const int ytiles = (nrows + TR - 1) / TR;
    if (ytiles > 65535) /* the grid's y limit: 2 million rows a call */
        return (int)cudaErrorInvalidConfiguration;
    dim3 grid((width + TC - 1) / TC, ytiles), block(TR, TY);
    const int c01 = nranges > 1 ? c0[1] : 0;
    if (dbl)
        k_rows<double><<<grid, block, 0, s>>>((double *)X, ldx, c0[0], nc0, c01, width, nrows,
                                              drows, (double *)buf, pack);
    else
        k_rows<float><<<grid, block, 0, s>>>((float *)X, ldx, c0[0], nc0, c01, width, nrows,
                                             drows, (float *)buf, pack);
    return (int)cudaGetLastError();
}

extern "C" int ls_dist_k_move(int dbl, void *X, long long ldx, int nranges, const int *c0,
                              const int *nc, int nrows, const int *ddst, const int *dsrc,
                              int sms, int regs, cudaStream_t s)
{
    const int nc0 = nc[0], nc1 = nranges > 1 ? nc[1] : 0, width = nc0 + nc1;
    const size_t smem = (size_t)nrows * (dbl ? sizeof(double) : sizeof(float));
    if (width <= 0 || nrows <= 0)
        return 0;
    if (smem > LS_DIST_K_MOVE_SMEM)
        return (int)cudaErrorInvalidValue;
    const int c01 = nranges > 1 ? c0[1] : 0;
    if (regs && nrows <= LSK_RMOVES_MAX) {
        const unsigned g = lsk_row_moves_blocks(width);
        if (dbl)
            k_move_regs<double><<<g, LSK_RMOVES_THREADS, 0, s>>>((double *)X, ldx, c0[0], nc0,
                                                                 c01, width, nrows, ddst, dsrc);
        else
            k_move_regs<float><<<g, LSK_RMOVES_THREADS, 0, s>>>((float *)X, ldx, c0[0], nc0, c01,
                                                                width, nrows, ddst, dsrc);
        return (int)cudaGetLastError();
    }
    const int blocks = width < 8 * sms ? width : 8 * sms; /* a column each, looping */
    if (dbl)
        k_move<double><<<blocks, 256, smem, s>>>((double *)X, ldx, c0[0], nc0, c01, width, nrows,
                                                 ddst, dsrc);
    else
        k_move<float><<<blocks, 256, smem, s>>>((float *)X, ldx, c0[0], nc0, c01, width, nrows,
                                                ddst, dsrc);
    return (int)cudaGetLastError();
}

extern "C" int ls_dist_k_div(int dbl, int n, double pivot, void *x, cudaStream_t s)
{
    if (n <= 0)
        return 0;
    const int blocks = (n + 255) / 256 < 1024 ? (n + 255) / 256 : 1024;
    if (dbl)
        k_div<double><<<blocks, 256, 0, s>>>(n, pivot, (double *)x);
    else
        k_div<float><<<blocks, 256, 0, s>>>(n, (float)pivot, (float *)x);
    return (int)cudaGetLastError();
}
