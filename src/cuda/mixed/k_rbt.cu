/* The random butterfly transform and the pieces of the LU without
 * interchanges (k_rbt.h).
 * Defines: lsk_eye_d, lsk_eye_s, lsk_genp_block_d, lsk_genp_block_s */
#include <float.h>
#include <math.h>

#include "core/rbt.h"
#include "cuda/mixed/k_rbt.h"

#define RBT_THREADS 128

__global__ void k_rbt_mults(int n, double *m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (unsigned l = 0; l < 4; l++)
        m[(size_t)l * n + i] = ls_rbt_mult(l, (unsigned long long)i);
}

/* Group t's matrix (identity 1x1 for a group of one). */
__device__ static int rbt_w(const double *m0, const double *m1, int n, int t, int *first,
                            double W[4][4])
{
    int sz = ls_rbt_group_at(n, t, first);
    if (sz == 4)
        ls_rbt_group(m0, m1, n, t, W);
    else
        W[0][0] = 1.0;
    return sz;
}

/* One thread a (row group, column group) pair: 16 loads, 16 stores. */
template <typename TO>
__global__ void k_rbt_apply(int n, const double *A, int lda, const double *dr, const double *dc,
                            const double *m, TO *S, int lds, int *flag)
{
    int ti = blockIdx.x * blockDim.x + threadIdx.x, groups = ls_rbt_groups(n), q = n / 4;
    if (ti >= groups)
        return;
    double Wu[4][4], Wv[4][4], a[4][4], t[4][4];
    int fr = 0, fc = 0;
    int sr = rbt_w(m + (size_t)LS_RBT_U0 * n, m + (size_t)LS_RBT_U1 * n, n, ti, &fr, Wu);
    for (int tj = blockIdx.y; tj < groups; tj += gridDim.y) {
        int sc = rbt_w(m + (size_t)LS_RBT_V0 * n, m + (size_t)LS_RBT_V1 * n, n, tj, &fc, Wv);
        for (int c = 0; c < sc; c++) {
            int j = fc + c * q;
            double cs = dc ? dc[j] : 1.0;
            for (int r = 0; r < sr; r++) {
                int i = fr + r * q;
                a[r][c] = A[i + (size_t)j * lda] * (dr ? dr[i] : 1.0) * cs;
            }
        }
        for (int r = 0; r < sr; r++) /* t = a V */
            for (int c2 = 0; c2 < sc; c2++) {
                double v = 0;
                for (int c = 0; c < sc; c++)
                    v += a[r][c] * Wv[c][c2];
                t[r][c2] = v;
            }
        for (int c2 = 0; c2 < sc; c2++) /* U^T t */
            for (int r2 = 0; r2 < sr; r2++) {
                double v = 0;
                for (int r = 0; r < sr; r++)
                    v += Wu[r][r2] * t[r][c2];
                if (flag && !(fabs(v) <= (double)FLT_MAX))
                    *flag = 1;
                S[(fr + r2 * q) + (size_t)(fc + c2 * q) * lds] = (TO)v;
            }
    }
}

/* One thread a (group, column); trans: U^T (from U's levels), else V. */
__global__ void k_rbt_vec(int n, int c, double *X, int ldx, const double *m, int trans)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, q = n / 4;
    if (t >= ls_rbt_groups(n))
        return;
    const double *m0 = m + (size_t)(trans ? LS_RBT_U0 : LS_RBT_V0) * n;
    const double *m1 = m + (size_t)(trans ? LS_RBT_U1 : LS_RBT_V1) * n;
    double W[4][4], x[4];
    int f = 0, sz = rbt_w(m0, m1, n, t, &f, W);
    if (sz == 1)
        return;
    for (int j = blockIdx.y; j < c; j += gridDim.y) {
        double *col = X + (size_t)j * ldx;
        for (int k = 0; k < 4; k++)
            x[k] = col[f + k * q];
        for (int k = 0; k < 4; k++) {
            double v = 0;
            for (int l = 0; l < 4; l++)
                v += trans ? W[l][k] * x[l] : W[k][l] * x[l];
            col[f + k * q] = v;
        }
    }
}

#define GENP_THREADS 256

template <typename T>
__global__ void __launch_bounds__(GENP_THREADS) k_genp_block(int nb, T *A, int lda, int col0,
                                                             int *info)
{
    __shared__ T S[LSK_GENP_MAX * (LSK_GENP_MAX + 1)];
    const int ld = LSK_GENP_MAX + 1, tid = threadIdx.x;
    for (int e = tid; e < nb * nb; e += blockDim.x)
        S[e % nb + (e / nb) * ld] = A[e % nb + (size_t)(e / nb) * lda];
    __syncthreads();
    for (int k = 0; k < nb; k++) {
        T p = S[k + k * ld];
        int m = nb - k - 1;
        if (p != (T)0) {
            for (int i = k + 1 + tid; i < nb; i += blockDim.x)
                S[i + k * ld] /= p;
        } else if (tid == 0) {
            atomicCAS(info, 0, col0 + k + 1);
        }
        __syncthreads();
        for (int e = tid; e < m * m; e += blockDim.x) {
            int i = k + 1 + e % m, j = k + 1 + e / m;
            S[i + j * ld] -= S[i + k * ld] * S[k + j * ld];
        }
        __syncthreads();
    }
    for (int e = tid; e < nb * nb; e += blockDim.x)
        A[e % nb + (size_t)(e / nb) * lda] = S[e % nb + (e / nb) * ld];
}

template <typename T>
__global__ void k_eye(int n, T *A, int lda)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int j = blockIdx.y; j < n; j += gridDim.y)
        A[i + (size_t)j * lda] = i == j ? (T)1 : (T)0;
}

template <typename T>
static cudaError_t eye(int n, T *A, int lda, cudaStream_t s)
{
    if (n <= 0)
        return cudaSuccess;
    dim3 g((unsigned)((n + 255) / 256), (unsigned)(n < 65535 ? n : 65535));
    k_eye<T><<<g, 256, 0, s>>>(n, A, lda);
    return cudaGetLastError();
}

extern "C" LSK_EYE_SIG(double, d) { return eye<double>(n, A, lda, s); }
extern "C" LSK_EYE_SIG(float, s) { return eye<float>(n, A, lda, s); }

__global__ void k_identity_pivots(int n, int *ipiv)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        ipiv[i] = i + 1;
}

static dim3 grid_2d(int m, int n, int threads)
{
    unsigned gx = (unsigned)((m + threads - 1) / threads);
    unsigned gy = (unsigned)(n < 65535 ? n : 65535);
    return dim3(gx ? gx : 1, gy ? gy : 1);
}

extern "C" cudaError_t lsk_rbt_mults(int n, double *d_m, cudaStream_t s)
{
    if (n <= 0)
        return cudaSuccess;
    k_rbt_mults<<<(n + RBT_THREADS - 1) / RBT_THREADS, RBT_THREADS, 0, s>>>(n, d_m);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_rbt_d2s(int n, const double *A, int lda, const double *d_r,
                                   const double *d_c, const double *d_m, float *S, int lds,
                                   int *d_flag, cudaStream_t s)
{
    int g = ls_rbt_groups(n);
    if (g <= 0)
        return cudaSuccess;
    k_rbt_apply<float><<<grid_2d(g, g, RBT_THREADS), RBT_THREADS, 0, s>>>(n, A, lda, d_r, d_c,
                                                                         d_m, S, lds, d_flag);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_rbt_d2d(int n, const double *A, int lda, const double *d_m, double *D,
                                   int ldd, cudaStream_t s)
{
    int g = ls_rbt_groups(n);
    if (g <= 0)
        return cudaSuccess;
    k_rbt_apply<double><<<grid_2d(g, g, RBT_THREADS), RBT_THREADS, 0, s>>>(
        n, A, lda, NULL, NULL, d_m, D, ldd, NULL);
    return cudaGetLastError();
}

static cudaError_t rbt_vec(int n, int c, double *X, int ldx, const double *d_m, int trans,
                           cudaStream_t s)
{
    int g = ls_rbt_groups(n);
    if (g <= 0 || c <= 0)
        return cudaSuccess;
    k_rbt_vec<<<grid_2d(g, c, RBT_THREADS), RBT_THREADS, 0, s>>>(n, c, X, ldx, d_m, trans);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_rbt_ut(int n, int c, double *X, int ldx, const double *d_m,
                                  cudaStream_t s)
{
    return rbt_vec(n, c, X, ldx, d_m, 1, s);
}

extern "C" cudaError_t lsk_rbt_v(int n, int c, double *X, int ldx, const double *d_m,
                                 cudaStream_t s)
{
    return rbt_vec(n, c, X, ldx, d_m, 0, s);
}

template <typename T>
static cudaError_t genp_block(int nb, T *A, int lda, int col0, int *d_info, cudaStream_t s)
{
    if (nb <= 0)
        return cudaSuccess;
    if (nb > LSK_GENP_MAX)
        return cudaErrorInvalidValue;
    k_genp_block<T><<<1, GENP_THREADS, 0, s>>>(nb, A, lda, col0, d_info);
    return cudaGetLastError();
}

extern "C" LSK_GENP_BLOCK_SIG(double, d) { return genp_block<double>(nb, A, lda, col0, d_info, s); }
extern "C" LSK_GENP_BLOCK_SIG(float, s) { return genp_block<float>(nb, A, lda, col0, d_info, s); }

extern "C" cudaError_t lsk_identity_pivots(int n, int *d_ipiv, cudaStream_t s)
{
    if (n <= 0)
        return cudaSuccess;
    k_identity_pivots<<<(n + 255) / 256, 256, 0, s>>>(n, d_ipiv);
    return cudaGetLastError();
}
