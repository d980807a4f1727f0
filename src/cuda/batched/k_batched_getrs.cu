/* Batched getrs on factors in device memory: op(A) X = B for every system,
 * one block per (system, right-hand side).
 *
 * Up to LSK_BGETRS_ROWS_MAXN: row r of the right-hand side lives in the
 * registers of thread r % nt, so each of the 2n steps of the two
 * triangular sweeps is one barrier: the owner of row k publishes x_k (over
 * the diagonal where the factor is not unit) to shared memory, every
 * thread updates its rows from it. Each sweep has its own publish array,
 * so no second barrier is needed between a step's reads and the next
 * step's write. The factor's coefficients do not depend on x, so a thread
 * loads those of GETRS_DEPTH steps at once before the chunk's barriers:
 * the latency of a global load is paid once a chunk, not once a step (the
 * shared-memory kernel below, which waited for one load a step, took 3.3
 * ms of a 10.5 ms FP64 solve of 16384 systems of n = 128 on one H200, this
 * one 1.1: bench/results/h200/batched-profile-128-fp64.txt, and its first
 * version in git history).
 * Above it: the column in shared memory, the threads striding over it.
 * Defines: lsk_bgetrs_d, lsk_bgetrs_s */
#include <cuda_runtime.h>

#include "cuda/batched/k_batched.h"
#include "cuda/common/k_common.cuh"

#define GETRS_THREADS 256 /* at most, both kernels */
#define GETRS_DEPTH 8     /* steps whose coefficients are loaded together */
#define GETRS_MAXR (LSK_BGETRS_ROWS_MAXN / GETRS_THREADS) /* rows a thread */

/* One triangular sweep over the rows this thread holds (xr[q] is row
 * tid + q nt). fwd: k = 0 .. n-1, rows below k updated; else k = n-1 .. 0,
 * rows above. unit: x_k is published as it is; else divided by the
 * diagonal first. The coefficient of row r at step k is LU(r, k), or
 * LU(k, r) for the transposed factor. */
template <typename T, int R>
__device__ void sweep(const T *A, long long rs, long long cs, int n, bool fwd, bool unit,
                      T (&xr)[R], T *pub)
{
    const int tid = threadIdx.x, nt = blockDim.x;
    for (int c0 = 0; c0 < n; c0 += GETRS_DEPTH) {
        T cf[R][GETRS_DEPTH];
#pragma unroll
        for (int d = 0; d < GETRS_DEPTH; d++) {
            int k = fwd ? c0 + d : n - 1 - c0 - d;
#pragma unroll
            for (int q = 0; q < R; q++) {
                int r = tid + q * nt;
                bool need = c0 + d < n && r < n && (r == k ? !unit : (fwd ? r > k : r < k));
                cf[q][d] = need ? A[(long long)r * rs + (long long)k * cs] : T(0);
            }
        }
#pragma unroll
        for (int d = 0; d < GETRS_DEPTH; d++) {
            if (c0 + d >= n)
                break;
            int k = fwd ? c0 + d : n - 1 - c0 - d;
#pragma unroll
            for (int q = 0; q < R; q++)
                if (tid + q * nt == k) {
                    if (!unit)
                        xr[q] /= cf[q][d];
                    pub[k] = xr[q];
                }
            __syncthreads();
            T v = pub[k];
#pragma unroll
            for (int q = 0; q < R; q++) {
                int r = tid + q * nt;
                if (r < n && (fwd ? r > k : r < k))
                    xr[q] -= cf[q][d] * v;
            }
        }
    }
}

/* Applies the pivots to x in shared memory: forward (P b) or backward.
 * piv holds ipiv in shared memory, copied by all threads with x before a
 * barrier: the swapping thread reading ipiv from global memory waited for
 * each load in turn, since its swaps write x and the compiler cannot prove
 * that a global pointer does not alias it. */
template <typename T>
__device__ void permute(T *x, const int *piv, int n, bool forward)
{
    if (threadIdx.x == 0)
        for (int s = 0; s < n; s++) {
            int k = forward ? s : n - 1 - s, p = piv[k] - 1;
            T t = x[k];
            x[k] = x[p];
            x[p] = t;
        }
    __syncthreads();
}

template <typename T, int R>
__global__ void __launch_bounds__(GETRS_THREADS)
k_bgetrs_rows(lsk_bstack st, int trans, const int *skip_info)
{
    extern __shared__ unsigned char gr_raw[];
    const int n = st.n, tid = threadIdx.x, nt = blockDim.x;
    T *x = (T *)gr_raw, *pub1 = x + n, *pub2 = pub1 + n;
    int *piv = (int *)(pub2 + n);
    const long long sys = blockIdx.x;
    if (skip_info && skip_info[sys] != 0)
        return; /* a singular system keeps its B (the whole block returns) */
    const T *A = (const T *)st.A + sys * st.sA;
    const int *ipiv = st.ipiv + sys * n;
    T *b = (T *)st.B + sys * st.sB + (long long)blockIdx.y * st.b_cs;
    for (int i = tid; i < n; i += nt) {
        x[i] = b[i * st.b_rs];
        piv[i] = ipiv[i];
    }
    __syncthreads();
    if (!trans)
        permute(x, piv, n, true);
    T xr[R];
#pragma unroll
    for (int q = 0; q < R; q++)
        xr[q] = tid + q * nt < n ? x[tid + q * nt] : T(0);
    /* A^T's coefficient LU(k, r) is LU(r, k) with the strides exchanged */
    long long rs = trans ? st.a_cs : st.a_rs, cs = trans ? st.a_rs : st.a_cs;
    sweep<T, R>(A, rs, cs, n, true, trans == 0, xr, pub1); /* L y = P b, U^T y = b */
    sweep<T, R>(A, rs, cs, n, false, trans != 0, xr, pub2); /* U x = y, L^T z = y */
    if (!trans) {
#pragma unroll
        for (int q = 0; q < R; q++)
            if (tid + q * nt < n)
                b[(tid + q * nt) * st.b_rs] = xr[q];
        return;
    }
    __syncthreads(); /* every read of x above is done */
#pragma unroll
    for (int q = 0; q < R; q++)
        if (tid + q * nt < n)
            x[tid + q * nt] = xr[q];
    __syncthreads();
    permute(x, piv, n, false);
    for (int i = tid; i < n; i += nt)
        b[i * st.b_rs] = x[i];
}

template <typename T>
__global__ void __launch_bounds__(GETRS_THREADS)
k_bgetrs(lsk_bstack st, int trans, const int *skip_info)
{
    extern __shared__ unsigned char gs_raw[];
    T *x = (T *)gs_raw;
    int *piv = (int *)(x + st.n);
    const long long sys = blockIdx.x;
    const int c = blockIdx.y, n = st.n, tid = threadIdx.x, nt = blockDim.x;
    if (skip_info && skip_info[sys] != 0)
        return; /* a singular system keeps its B (the whole block returns) */
    const T *A = (const T *)st.A + sys * st.sA;
    const int *ipiv = st.ipiv + sys * n;
    T *b = (T *)st.B + sys * st.sB + (long long)c * st.b_cs;
#define LU(i, j) A[(long long)(i) * st.a_rs + (long long)(j) * st.a_cs]
    for (int i = tid; i < n; i += nt) {
        x[i] = b[i * st.b_rs];
        piv[i] = ipiv[i];
    }
    __syncthreads();
    if (!trans) {
        permute(x, piv, n, true);
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
        permute(x, piv, n, false);
    }
#undef LU
    for (int i = tid; i < n; i += nt)
        b[i * st.b_rs] = x[i];
}

template <typename T, int R>
static void launch_rows(dim3 grid, int n, const lsk_bstack *st, int t, const int *skip_info,
                        cudaStream_t s)
{
    int nt = (n + R - 1) / R;
    nt = (nt + 31) / 32 * 32;
    size_t bytes = (size_t)n * (3 * sizeof(T) + sizeof(int)); /* x, two publish arrays, pivots */
    k_bgetrs_rows<T, R><<<grid, nt, bytes, s>>>(*st, t, skip_info);
}

template <typename T>
static cudaError_t bgetrs(char trans, const lsk_bstack *st, int nrhs, const int *skip_info,
                          int smem, cudaStream_t s)
{
    if (st->n < 1 || nrhs < 1 || nrhs > 65535 || !st->ipiv)
        return cudaErrorInvalidValue;
    dim3 grid((unsigned)st->batch, (unsigned)nrhs);
    int n = st->n, t = trans != 'N';
    if (n > LSK_BGETRS_ROWS_MAXN || smem) {
        size_t bytes = (size_t)n * (sizeof(T) + sizeof(int)); /* x, pivots */
        /* above the default 48 KB (FP64 n > 4096) a launch must ask for it */
        cudaError_t e = cudaFuncSetAttribute(
            k_bgetrs<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (e != cudaSuccess)
            return e;
        k_bgetrs<T><<<grid, GETRS_THREADS, bytes, s>>>(*st, t, skip_info);
    } else if (n <= GETRS_THREADS)
        launch_rows<T, 1>(grid, n, st, t, skip_info, s);
    else if (n <= 2 * GETRS_THREADS)
        launch_rows<T, 2>(grid, n, st, t, skip_info, s);
    else
        launch_rows<T, GETRS_MAXR>(grid, n, st, t, skip_info, s);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_BGETRS_SIG, bgetrs, (trans, st, nrhs, skip_info, smem, s))
