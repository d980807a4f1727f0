/* Kernels of the mixed-precision solver: conversions between FP64 and
 * FP32 with per-column scaling (so that residuals neither underflow nor
 * overflow FP32), and the inf-norms the refinement's stopping test needs. */
#include <float.h>
#include <math.h>

#include "cuda/mixed/k_mixed.h"

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

/* ---- equilibration and the low-precision LU's operands ---- */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

/* 2^-e for the power of two nearest x (> 0), else 1. */
__device__ double mx_pow2_inv(double x)
{
    if (!(x > 0) || !isfinite(x))
        return 1.0;
    int e = 0;
    double f = frexp(x, &e); /* x = f 2^e, f in [0.5, 1) */
    if (f < 0.70710678118654752)
        e -= 1;
    return ldexp(1.0, -e);
}

__global__ void k_mx_row_scale(int m, int n, const double *A, int lda, double *r)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    double v = 0;
    for (int j = 0; j < n; j++)
        v = fmax(v, fabs(A[i + (size_t)j * lda]));
    r[i] = mx_pow2_inv(v);
}

/* One block a column. */
__global__ void k_mx_col_scale(int m, const double *A, int lda, const double *r, double *c)
{
    __shared__ double part[MX_THREADS];
    const double *col = A + (size_t)blockIdx.x * lda;
    double v = 0;
    for (int i = threadIdx.x; i < m; i += blockDim.x)
        v = fmax(v, fabs(r[i] * col[i]));
    part[threadIdx.x] = v;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            part[threadIdx.x] = fmax(part[threadIdx.x], part[threadIdx.x + w]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        c[blockIdx.x] = mx_pow2_inv(part[0]);
}

__global__ void k_mx_d2s_eq(int m, int n, const double *A, int lda, const double *r,
                            const double *c, float *S, int lds, int *flag)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    double ri = r ? r[i] : 1.0;
    for (int j = blockIdx.y; j < n; j += gridDim.y) {
        double a = ri * A[i + (size_t)j * lda] * (c ? c[j] : 1.0);
        if (!(fabs(a) <= (double)FLT_MAX))
            *flag = 1;
        S[i + (size_t)j * lds] = (float)a;
    }
}

__global__ void k_mx_row_mul(int m, int n, const double *v, double *X, int ldx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int j = blockIdx.y; j < n; j += gridDim.y)
        X[i + (size_t)j * ldx] *= v[i];
}

__global__ void k_mx_fold_panel(int k0, int k1, int *ipiv, const int *pinfo, int *info)
{
    int k = k0 + blockIdx.x * blockDim.x + threadIdx.x;
    if (k < k1)
        ipiv[k] += k0;
    if (k == k0 && *info == 0 && *pinfo > 0)
        *info = *pinfo + k0;
}

/* Round to TF32 (10 explicit mantissa bits), nearest, ties away. */
__device__ float mx_tf32(float x)
{
    unsigned u = __float_as_uint(x);
    if ((u & 0x7f800000u) == 0x7f800000u)
        return x; /* Inf, NaN */
    u = (u + 0x1000u) & 0xffffe000u;
    return __uint_as_float(u);
}

__global__ void k_mx_split(int kind, int m, int n, const float *S, int lds, float scale, void *hi,
                           void *lo)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int j = blockIdx.y; j < n; j += gridDim.y) {
        float x = S[i + (size_t)j * lds];
        size_t at = i + (size_t)j * m;
        if (kind == 0) {
            float h = mx_tf32(x);
            ((float *)hi)[at] = h;
            ((float *)lo)[at] = mx_tf32(x - h);
        } else if (kind == 1) {
            ((__half *)hi)[at] = __float2half_rn(x * scale);
        } else {
            ((__nv_bfloat16 *)hi)[at] = __float2bfloat16_rn(x * scale);
        }
    }
}

__global__ void k_mx_split3(int m, int n, const float *S, int lds, float *out, int ldo,
                            size_t part, int lo_at)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int j = blockIdx.y; j < n; j += gridDim.y) {
        float x = S[i + (size_t)j * lds], h = mx_tf32(x), l = mx_tf32(x - h);
        size_t at = i + (size_t)j * ldo;
        for (int p = 0; p < 3; p++)
            out[at + (size_t)p * part] = p == lo_at ? l : h;
    }
}

__global__ void k_mx_absmax_f(int m, int n, const float *S, int lds, unsigned *out)
{
    __shared__ unsigned part[MX_THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0;
    if (i < m)
        for (int j = blockIdx.y; j < n; j += gridDim.y)
            v = fmaxf(v, fabsf(S[i + (size_t)j * lds]));
    part[threadIdx.x] = __float_as_uint(v); /* non-negative floats order as their bits */
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w && part[threadIdx.x + w] > part[threadIdx.x])
            part[threadIdx.x] = part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicMax(out, part[0]);
}

extern "C" cudaError_t lsk_mx_row_scale(int m, int n, const double *A, int lda, double *d_r,
                                        cudaStream_t s)
{
    if (m <= 0)
        return cudaSuccess;
    k_mx_row_scale<<<(m + MX_THREADS - 1) / MX_THREADS, MX_THREADS, 0, s>>>(m, n, A, lda, d_r);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_mx_col_scale(int m, int n, const double *A, int lda, const double *d_r,
                                        double *d_c, cudaStream_t s)
{
    if (n <= 0)
        return cudaSuccess;
    k_mx_col_scale<<<n, MX_THREADS, 0, s>>>(m, A, lda, d_r, d_c);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_mx_d2s_eq(int m, int n, const double *A, int lda, const double *d_r,
                                     const double *d_c, float *S, int lds, int *d_flag,
                                     cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    k_mx_d2s_eq<<<grid_2d(m, n), MX_THREADS, 0, s>>>(m, n, A, lda, d_r, d_c, S, lds, d_flag);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_mx_row_mul(int m, int n, const double *d_v, double *X, int ldx,
                                      cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    k_mx_row_mul<<<grid_2d(m, n), MX_THREADS, 0, s>>>(m, n, d_v, X, ldx);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_mx_fold_panel(int k0, int k1, int *d_ipiv, const int *d_pinfo,
                                         int *d_info, cudaStream_t s)
{
    if (k1 <= k0)
        return cudaSuccess;
    k_mx_fold_panel<<<(k1 - k0 + MX_THREADS - 1) / MX_THREADS, MX_THREADS, 0, s>>>(k0, k1, d_ipiv,
                                                                                  d_pinfo, d_info);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_mx_split(int kind, int m, int n, const float *S, int lds, float scale,
                                    void *hi, void *lo, cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    k_mx_split<<<grid_2d(m, n), MX_THREADS, 0, s>>>(kind, m, n, S, lds, scale, hi, lo);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_mx_absmax_f(int m, int n, const float *S, int lds, unsigned *d_max,
                                       cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    dim3 g = grid_2d(m, n);
    g.y = g.y < 64 ? g.y : 64; /* each thread walks columns: fewer atomics */
    k_mx_absmax_f<<<g, MX_THREADS, 0, s>>>(m, n, S, lds, d_max);
    return cudaGetLastError();
}

__global__ void k_mx_diag_minmax(int n, const float *A, int lda, unsigned *mm)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned b = __float_as_uint(fabsf(A[i + (size_t)i * lda]));
    atomicMin(mm, b);
    atomicMax(mm + 1, b);
}

extern "C" cudaError_t lsk_mx_diag_minmax(int n, const float *A, int lda, unsigned *d_mm,
                                          cudaStream_t s)
{
    if (n <= 0)
        return cudaSuccess;
    k_mx_diag_minmax<<<(n + MX_THREADS - 1) / MX_THREADS, MX_THREADS, 0, s>>>(n, A, lda, d_mm);
    return cudaGetLastError();
}

#define MX_NORM_CHUNK 256 /* columns a block sums */

__global__ void k_mx_rowsum_chunk(int m, int n, const double *M, int ldm, double *sums)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j0 = blockIdx.y * MX_NORM_CHUNK;
    if (i >= m)
        return;
    int j1 = j0 + MX_NORM_CHUNK < n ? j0 + MX_NORM_CHUNK : n;
    double sum = 0;
    for (int j = j0; j < j1; j++)
        sum += fabs(M[i + (size_t)j * ldm]);
    atomicAdd(sums + i, sum);
}

__global__ void k_mx_max_bits(int m, const double *v, unsigned long long *bits)
{
    __shared__ unsigned long long part[MX_THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < m ? (unsigned long long)__double_as_longlong(fabs(v[i])) : 0ULL;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w && part[threadIdx.x + w] > part[threadIdx.x])
            part[threadIdx.x] = part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicMax(bits, part[0]);
}

extern "C" cudaError_t lsk_mx_norm_inf_wide(int m, int n, const double *M, int ldm,
                                            double *d_scratch, unsigned long long *d_bits,
                                            cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    if (n <= MX_NORM_CHUNK || !d_scratch)
        return lsk_mx_norm_inf(m, n, M, ldm, d_bits, s);
    cudaError_t e = cudaMemsetAsync(d_scratch, 0, (size_t)m * sizeof(double), s);
    if (e != cudaSuccess)
        return e;
    dim3 g((unsigned)((m + MX_THREADS - 1) / MX_THREADS),
           (unsigned)((n + MX_NORM_CHUNK - 1) / MX_NORM_CHUNK));
    k_mx_rowsum_chunk<<<g, MX_THREADS, 0, s>>>(m, n, M, ldm, d_scratch);
    k_mx_max_bits<<<(m + MX_THREADS - 1) / MX_THREADS, MX_THREADS, 0, s>>>(m, d_scratch, d_bits);
    return cudaGetLastError();
}

#define MX_NRM2_THREADS 1024

/* One block: the largest magnitude, the scaled sum of squares, then the
 * division; a vector of n = 32768 is 256 KiB, a few microseconds. */
__global__ void k_mx_nrm2_scale(int n, double *v, double *out)
{
    __shared__ double part[MX_NRM2_THREADS];
    __shared__ double norm;
    int t = threadIdx.x;
    double a = 0;
    for (int i = t; i < n; i += blockDim.x) {
        double x = fabs(v[i]);
        a = (x > a || isnan(x)) ? x : a;
    }
    part[t] = a;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (t < w) {
            double x = part[t + w], y = part[t];
            part[t] = (x > y || isnan(x)) ? x : y;
        }
        __syncthreads();
    }
    double amax = part[0];
    __syncthreads();
    double sum = 0;
    if (amax > 0 && isfinite(amax))
        for (int i = t; i < n; i += blockDim.x) {
            double x = v[i] / amax;
            sum += x * x;
        }
    part[t] = sum;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (t < w)
            part[t] += part[t + w];
        __syncthreads();
    }
    if (t == 0) {
        norm = amax > 0 && isfinite(amax) ? amax * sqrt(part[0]) : amax; /* 0, NaN or Inf */
        *out = norm;
    }
    __syncthreads();
    double nv = norm;
    if (nv > 0 && isfinite(nv)) {
        double inv = 1.0 / nv;
        for (int i = t; i < n; i += blockDim.x)
            v[i] *= inv;
    }
}

extern "C" cudaError_t lsk_mx_nrm2_scale(int n, double *v, double *d_out, cudaStream_t s)
{
    if (n <= 0)
        return cudaMemsetAsync(d_out, 0, sizeof *d_out, s);
    k_mx_nrm2_scale<<<1, MX_NRM2_THREADS, 0, s>>>(n, v, d_out);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_mx_split3(int m, int n, const float *S, int lds, float *out, int ldo,
                                     size_t part, int lo_at, cudaStream_t s)
{
    if (m <= 0 || n <= 0)
        return cudaSuccess;
    k_mx_split3<<<grid_2d(m, n), MX_THREADS, 0, s>>>(m, n, S, lds, out, ldo, part, lo_at);
    return cudaGetLastError();
}
