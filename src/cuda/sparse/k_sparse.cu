/* Vector kernels of the sparse Krylov methods (k_sparse.h): fused updates
 * so each iteration reads its vectors as few times as it can, and
 * reductions in two fixed-order passes. */
#include <math.h>

#include "cuda/common/k_common.cuh"
#include "cuda/sparse/k_sparse.h"

enum { THREADS = 256 };

static unsigned grid_for(int64_t n)
{
    long long b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b < 1 ? 1 : b > (long long)LSK_SP_PARTS ? (long long)LSK_SP_PARTS : b);
}

/* The block's sum (max: the maximum, NaN winning) of v, in thread 0. */
__device__ static double block_reduce(double v, int max)
{
    __shared__ double warp[THREADS / 32];
    for (int o = 16; o > 0; o >>= 1) {
        double u = __shfl_down_sync(0xffffffffu, v, o);
        v = max ? (isnan(u) || u > v ? u : v) : v + u;
    }
    if ((threadIdx.x & 31) == 0)
        warp[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < THREADS / 32 ? warp[threadIdx.x] : 0.0;
        for (int o = 16; o > 0; o >>= 1) {
            double u = __shfl_down_sync(0xffffffffu, v, o);
            v = max ? (isnan(u) || u > v ? u : v) : v + u;
        }
    }
    return v;
}

#define GRID_LOOP(i, n)                                                              \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);      \
         i += (int64_t)gridDim.x * blockDim.x)

__global__ void k_axpby(int64_t n, double a, const double *x, double b, double *y)
{
    GRID_LOOP(i, n) y[i] = b == 0 ? a * x[i] : a * x[i] + b * y[i];
}

__global__ void k_waxpby(int64_t n, double a, const double *x, double b, const double *y,
                         double *w)
{
    GRID_LOOP(i, n) w[i] = a * x[i] + b * y[i];
}

__global__ void k_scale(int64_t n, const double *d, const double *r, double *z)
{
    GRID_LOOP(i, n) z[i] = d[i] * r[i];
}

__global__ void k_cg_update(int64_t n, double alpha, const double *p, const double *q, double *x,
                            double *r, double *part)
{
    double acc = 0;
    GRID_LOOP(i, n)
    {
        x[i] += alpha * p[i];
        double ri = r[i] - alpha * q[i];
        r[i] = ri;
        acc += ri * ri;
    }
    acc = block_reduce(acc, 0);
    if (threadIdx.x == 0)
        part[blockIdx.x] = acc;
}

__global__ void k_cg_step_jacobi(int64_t n, double alpha, const double *p, const double *q,
                                 const double *d, double *x, double *r, double *z, double *part)
{
    double rr = 0, rz = 0, zq = 0;
    GRID_LOOP(i, n)
    {
        x[i] += alpha * p[i];
        double ri = r[i] - alpha * q[i], zi = d[i] * ri;
        r[i] = ri, z[i] = zi;
        rr += ri * ri, rz += ri * zi, zq += zi * q[i];
    }
    rr = block_reduce(rr, 0);
    __syncthreads(); /* block_reduce's shared scratch is reused */
    rz = block_reduce(rz, 0);
    __syncthreads();
    zq = block_reduce(zq, 0);
    if (threadIdx.x == 0) {
        part[blockIdx.x] = rr;
        part[LSK_SP_PARTS + blockIdx.x] = rz;
        part[2 * LSK_SP_PARTS + blockIdx.x] = zq;
    }
}

__global__ void k_bicg_direction(int64_t n, double beta, double omega, const double *r,
                                 const double *v, double *p)
{
    GRID_LOOP(i, n) p[i] = r[i] + beta * (p[i] - omega * v[i]);
}

__global__ void k_bicg_update(int64_t n, double alpha, double omega, const double *phat,
                              const double *shat, const double *sv, const double *t, double *x,
                              double *r, double *part)
{
    double acc = 0;
    GRID_LOOP(i, n)
    {
        x[i] += alpha * phat[i] + omega * shat[i];
        double ri = sv[i] - omega * t[i];
        r[i] = ri;
        acc += ri * ri;
    }
    acc = block_reduce(acc, 0);
    if (threadIdx.x == 0)
        part[blockIdx.x] = acc;
}

__global__ void k_residual(int64_t n, const double *b, const double *w, double *r, double *part)
{
    double m = 0;
    GRID_LOOP(i, n)
    {
        double ri = b[i] - r[i];
        r[i] = ri;
        double a = fabs(w ? w[i] * ri : ri);
        if (isnan(a) || a > m)
            m = a;
    }
    m = block_reduce(m, 1);
    if (threadIdx.x == 0)
        part[blockIdx.x] = m;
}

__global__ void k_sumsq(int64_t n, double scale, const double *w, const double *r, double *part)
{
    double acc = 0;
    GRID_LOOP(i, n)
    {
        double a = scale * (w ? w[i] * r[i] : r[i]);
        acc += a * a;
    }
    acc = block_reduce(acc, 0);
    if (threadIdx.x == 0)
        part[blockIdx.x] = acc;
}

__global__ void k_dot(int64_t n, const double *x, const double *y, double *part)
{
    double acc = 0;
    GRID_LOOP(i, n) acc += x[i] * y[i];
    acc = block_reduce(acc, 0);
    if (threadIdx.x == 0)
        part[blockIdx.x] = acc;
}

__global__ void k_dot2(int64_t n, const double *x, const double *y, const double *u,
                       const double *v, double *part)
{
    double a = 0, b = 0;
    GRID_LOOP(i, n) a += x[i] * y[i], b += u[i] * v[i];
    a = block_reduce(a, 0);
    __syncthreads();
    b = block_reduce(b, 0);
    if (threadIdx.x == 0)
        part[blockIdx.x] = a, part[LSK_SP_PARTS + blockIdx.x] = b;
}

/* One block per value. */
__global__ void k_finish(int parts, const double *part, int max, double *out)
{
    double v = 0;
    part += (size_t)blockIdx.x * LSK_SP_PARTS;
    out += blockIdx.x;
    for (int i = threadIdx.x; i < parts; i += THREADS) {
        double u = part[i];
        v = max ? (isnan(u) || u > v ? u : v) : v + u;
    }
    v = block_reduce(v, max);
    if (threadIdx.x == 0)
        *out = v;
}

#define LAUNCH(kernel, n, ...)                                     \
    do {                                                           \
        kernel<<<grid_for(n), THREADS, 0, s>>>((n), __VA_ARGS__);  \
        return cudaGetLastError();                                 \
    } while (0)

extern "C" {
cudaError_t lsk_sp_axpby(int64_t n, double a, const double *x, double b, double *y,
                         cudaStream_t s)
{
    LAUNCH(k_axpby, n, a, x, b, y);
}
cudaError_t lsk_sp_waxpby(int64_t n, double a, const double *x, double b, const double *y,
                          double *w, cudaStream_t s)
{
    LAUNCH(k_waxpby, n, a, x, b, y, w);
}
cudaError_t lsk_sp_scale(int64_t n, const double *d, const double *r, double *z, cudaStream_t s)
{
    LAUNCH(k_scale, n, d, r, z);
}
cudaError_t lsk_sp_cg_update(int64_t n, double alpha, const double *p, const double *q,
                             double *x, double *r, double *part, cudaStream_t s)
{
    LAUNCH(k_cg_update, n, alpha, p, q, x, r, part);
}
cudaError_t lsk_sp_cg_step_jacobi(int64_t n, double alpha, const double *p, const double *q,
                                  const double *d, double *x, double *r, double *z, double *part,
                                  cudaStream_t s)
{
    LAUNCH(k_cg_step_jacobi, n, alpha, p, q, d, x, r, z, part);
}
cudaError_t lsk_sp_bicg_direction(int64_t n, double beta, double omega, const double *r,
                                  const double *v, double *p, cudaStream_t s)
{
    LAUNCH(k_bicg_direction, n, beta, omega, r, v, p);
}
cudaError_t lsk_sp_bicg_update(int64_t n, double alpha, double omega, const double *phat,
                               const double *shat, const double *sv, const double *t,
                               double *x, double *r, double *part, cudaStream_t s)
{
    LAUNCH(k_bicg_update, n, alpha, omega, phat, shat, sv, t, x, r, part);
}
cudaError_t lsk_sp_residual(int64_t n, const double *b, const double *w, double *r, double *part,
                            cudaStream_t s)
{
    LAUNCH(k_residual, n, b, w, r, part);
}
cudaError_t lsk_sp_sumsq(int64_t n, double scale, const double *w, const double *r, double *part,
                         cudaStream_t s)
{
    LAUNCH(k_sumsq, n, scale, w, r, part);
}
cudaError_t lsk_sp_dot(int64_t n, const double *x, const double *y, double *part, cudaStream_t s)
{
    LAUNCH(k_dot, n, x, y, part);
}
cudaError_t lsk_sp_dot2(int64_t n, const double *x, const double *y, const double *u,
                        const double *v, double *part, cudaStream_t s)
{
    LAUNCH(k_dot2, n, x, y, u, v, part);
}
cudaError_t lsk_sp_finish(int64_t n, const double *part, int count, int max, double *out,
                          cudaStream_t s)
{
    k_finish<<<count, THREADS, 0, s>>>((int)grid_for(n), part, max, out);
    return cudaGetLastError();
}
}
