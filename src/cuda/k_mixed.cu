/* Kernels of the mixed-precision solver: conversions between FP64 and
 * FP32 with per-column scaling (so that residuals neither underflow nor
 * overflow FP32), and the inf-norms the refinement's stopping test needs. */
#include <float.h>
#include <math.h>

#include "k_mixed.h"

#define MX_THREADS 256

static dim3 grid_2d(int m, int n)
{
    unsigned gx = (unsigned)((m + MX_THREADS - 1) / MX_THREADS);
    unsigned gy = (unsigned)(n < 65535 ? n : 65535);
    return dim3(gx ? gx : 1, gy ? gy : 1);
}

__global__ void k_mx_d2s(int m, int n, const double *A, int lda, float *S, int lds, int *flag)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int j = blockIdx.y; j < n; j += gridDim.y) {
        double a = A[i + (size_t)j * lda];
        if (!(fabs(a) <= (double)FLT_MAX))
            *flag = 1;
        S[i + (size_t)j * lds] = (float)a;
    }
}

__global__ void k_mx_s2d(int m, int n, const float *S, int lds, double *D, int ldd)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int j = blockIdx.y; j < n; j += gridDim.y)
        D[i + (size_t)j * ldd] = (double)S[i + (size_t)j * lds];
}

/* One block a column. */
__global__ void k_mx_colmax(int m, const double *R, int ldr, double *out)
{
    __shared__ double part[MX_THREADS];
    const double *col = R + (size_t)blockIdx.x * ldr;
    double v = 0;
    for (int i = threadIdx.x; i < m; i += blockDim.x) {
        double a = fabs(col[i]);
        v = (a > v || isnan(a)) ? a : v;
    }
    part[threadIdx.x] = v;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) {
            double a = part[threadIdx.x + w], b = part[threadIdx.x];
            part[threadIdx.x] = (a > b || isnan(a)) ? a : b;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = part[0];
}

__device__ double mx_scale_of(const double *d_max, int j)
{
    double s = d_max[j];
    return s > 0 && isfinite(s) ? s : 1.0;
}

__global__ void k_mx_d2s_scaled(int m, int n, const double *R, int ldr, const double *d_max,
                                float *T, int ldt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int j = blockIdx.y; j < n; j += gridDim.y)
        T[i + (size_t)j * ldt] = (float)(R[i + (size_t)j * ldr] / mx_scale_of(d_max, j));
}

__global__ void k_mx_add_scaled(int m, int n, const float *T, int ldt, const double *d_max,
                                double *X, int ldx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int j = blockIdx.y; j < n; j += gridDim.y)
        X[i + (size_t)j * ldx] += mx_scale_of(d_max, j) * (double)T[i + (size_t)j * ldt];
}

__global__ void k_mx_add(int m, int n, const double *D, int ldd, double *X, int ldx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int j = blockIdx.y; j < n; j += gridDim.y)
        X[i + (size_t)j * ldx] += D[i + (size_t)j * ldd];
}

/* One thread a row (consecutive threads read consecutive addresses of a
 * column); the block's largest row sum goes to *bits with one atomic. */
__global__ void k_mx_norm_inf(int m, int n, const double *M, int ldm, unsigned long long *bits)
{
    __shared__ unsigned long long part[MX_THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double sum = 0;
    if (i < m)
        for (int j = 0; j < n; j++)
            sum += fabs(M[i + (size_t)j * ldm]);
    part[threadIdx.x] = (unsigned long long)__double_as_longlong(sum);
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w && part[threadIdx.x + w] > part[threadIdx.x])
            part[threadIdx.x] = part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicMax(bits, part[0]);
}

extern "C" cudaError_t lsk_mx_d2s(int m, int n, const double *A, int lda, float *S, int lds,
                                  int *d_flag, cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    k_mx_d2s<<<grid_2d(m, n), MX_THREADS, 0, s>>>(m, n, A, lda, S, lds, d_flag);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_mx_s2d(int m, int n, const float *S, int lds, double *D, int ldd,
                                  cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    k_mx_s2d<<<grid_2d(m, n), MX_THREADS, 0, s>>>(m, n, S, lds, D, ldd);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_mx_colmax(int m, int n, const double *R, int ldr, double *d_max,
                                     cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    k_mx_colmax<<<n, MX_THREADS, 0, s>>>(m, R, ldr, d_max);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_mx_d2s_scaled(int m, int n, const double *R, int ldr,
                                         const double *d_max, float *T, int ldt, cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    k_mx_d2s_scaled<<<grid_2d(m, n), MX_THREADS, 0, s>>>(m, n, R, ldr, d_max, T, ldt);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_mx_add_scaled(int m, int n, const float *T, int ldt,
                                         const double *d_max, double *X, int ldx, cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    k_mx_add_scaled<<<grid_2d(m, n), MX_THREADS, 0, s>>>(m, n, T, ldt, d_max, X, ldx);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_mx_add(int m, int n, const double *D, int ldd, double *X, int ldx,
                                  cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    k_mx_add<<<grid_2d(m, n), MX_THREADS, 0, s>>>(m, n, D, ldd, X, ldx);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_mx_norm_inf(int m, int n, const double *M, int ldm,
                                       unsigned long long *d_bits, cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    k_mx_norm_inf<<<(m + MX_THREADS - 1) / MX_THREADS, MX_THREADS, 0, s>>>(m, n, M, ldm, d_bits);
    return cudaGetLastError();
}
