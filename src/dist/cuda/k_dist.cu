/*
 * The few device kernels the CUDA local engine needs beyond cuBLAS: rows
 * packed into and out of a contiguous buffer by an index list (the
 * interchanges of the distributed LU), and getf2's division by a pivot too
 * small to invert.
 */
#include <cuda_runtime.h>

#include "k_dist.h"

/* out[i * width + c] <-> X(rows[i], col(c)), col(c) over up to two column
 * ranges; threads run along c, so out is written (read) contiguously. */
template <typename T>
__global__ void k_rows(T *X, long long ldx, int c00, int nc0, int c01, int width, int nrows,
                       const int *rows, T *buf, int pack)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= width)
        return;
    const long long col = c < nc0 ? c00 + c : c01 + (c - nc0);
    for (int i = blockIdx.y; i < nrows; i += gridDim.y) {
        T *x = X + col * ldx + rows[i];
        T *b = buf + (long long)i * width + c;
        if (pack)
            *b = *x;
        else
            *x = *b;
    }
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
    dim3 grid((width + 255) / 256, nrows < 65535 ? nrows : 65535);
    const int c01 = nranges > 1 ? c0[1] : 0;
    if (dbl)
        k_rows<double><<<grid, 256, 0, s>>>((double *)X, ldx, c0[0], nc0, c01, width, nrows,
                                            drows, (double *)buf, pack);
    else
        k_rows<float><<<grid, 256, 0, s>>>((float *)X, ldx, c0[0], nc0, c01, width, nrows, drows,
                                           (float *)buf, pack);
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
