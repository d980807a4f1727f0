/* Batched blocked LU for the orders where a block per whole matrix no
 * longer pays (n >= 128): right-looking, a panel of jb columns a step, each
 * step a few launches over the whole stack (the GEMM is cuBLAS's, in
 * batched_blocked.c):
 *   panel  a block a matrix: the (n - j0) x jb panel in shared memory,
 *          factored one column a step in LAPACK getf2's order (idamax's
 *          pivot and NaN rule, reciprocal above sfmin), written back with
 *          its rows exchanged, and its interchanges as a list of row moves
 *          (at most 2 jb rows change place);
 *   moves  the same row moves on the columns left and right of the panel,
 *          a warp a column: all sources read before any destination is
 *          written, so the moves need no order;
 *   trsm   U12 = L11^-1 A12, a thread a column, L11 in shared memory.
 * Stacks are column-major here (the driver transposes row-major ones). */
#include <cuda_runtime.h>

#include "k_batched_blocked.h"
#include "k_batched_pivot.cuh"
#include "k_common.cuh"

template <typename T> __device__ __forceinline__ T bb_sfmin();
template <> __device__ __forceinline__ double bb_sfmin<double>() { return 2.2250738585072014e-308; }
template <> __device__ __forceinline__ float bb_sfmin<float>() { return 1.17549435e-38f; }

/* Warp 0: the pivot row among rows [k, m) of column col (LAPACK's idamax
 * order and NaN rule, as k_batched_smem.cu). */
template <typename T>
__device__ int bb_pivot_row(const T *col, int k, int m)
{
    const int lane = threadIdx.x;
    if (col[k] != col[k])
        return k;
    auto best = lsk_pkey(col[k], false);
    int p = m;
    for (int i = k + lane; i < m; i += 32) {
        auto key = lsk_pkey(col[i], true);
        if (key > best)
            best = key, p = i;
    }
    const auto mx = lsk_kmax<32>(best);
    const int q = lsk_imin<32>(best == mx ? p : 0x7fffffff);
    return q < m ? q : k;
}

template <typename T>
__global__ void __launch_bounds__(LSK_BBLK_THREADS)
k_bblk_panel(lsk_bstack st, int j0, int jb, int *moves, int mstride)
{
    extern __shared__ unsigned char bb_raw[];
    const int n = st.n, m = n - j0, ld = m | 1, tid = threadIdx.x, nt = blockDim.x;
    T *P = (T *)bb_raw;                /* m x jb, column-major, ld */
    int *perm = (int *)(P + (long long)ld * jb); /* row now at i came from perm[i] */
    __shared__ int s_piv, s_info, s_cnt;
    __shared__ T s_pval;
    const long long sys = blockIdx.x, lda = st.a_cs;
    T *A = (T *)st.A + sys * st.sA + j0 + (long long)j0 * lda;

    for (int j = 0; j < jb; j++)
        for (int i = tid; i < m; i += nt)
            P[i + j * ld] = A[i + j * lda];
    for (int i = tid; i < m; i += nt)
        perm[i] = i;
    if (tid == 0)
        s_info = st.info[sys], s_cnt = 0;
    __syncthreads();

    for (int k = 0; k < jb; k++) {
        T *col = P + k * ld;
        if (tid < 32) {
            int p = bb_pivot_row(col, k, m);
            if (tid == 0) {
                s_piv = p;
                s_pval = col[p];
                if (s_pval == (T)0 && s_info == 0)
                    s_info = j0 + k + 1;
                st.ipiv[sys * n + j0 + k] = j0 + p + 1;
            }
        }
        __syncthreads();
        const int p = s_piv;
        const T piv = s_pval;
        if (p != k && piv != (T)0) { /* LAPACK exchanges only for a nonzero pivot */
            for (int j = tid; j < jb; j += nt) {
                T t = P[k + j * ld];
                P[k + j * ld] = P[p + j * ld];
                P[p + j * ld] = t;
            }
            if (tid == 0) {
                int t = perm[k];
                perm[k] = perm[p];
                perm[p] = t;
            }
        }
        __syncthreads();
        for (int i = k + 1 + tid; i < m; i += nt) {
            T l = col[i];
            if (piv != (T)0)
                l = lsk_abs(piv) >= bb_sfmin<T>() ? l * ((T)1 / piv) : l / piv;
            col[i] = l;
            for (int j = k + 1; j < jb; j++)
                P[i + j * ld] -= l * P[k + j * ld];
        }
        __syncthreads();
    }

    for (int j = 0; j < jb; j++)
        for (int i = tid; i < m; i += nt)
            A[i + j * lda] = P[i + j * ld];
    int *mv = moves + sys * mstride;
    for (int i = tid; i < m; i += nt)
        if (perm[i] != i) {
            int c = atomicAdd(&s_cnt, 1);
            mv[1 + 2 * c] = j0 + i;
            mv[2 + 2 * c] = j0 + perm[i];
        }
    __syncthreads();
    if (tid == 0) {
        mv[0] = s_cnt;
        st.info[sys] = s_info;
    }
}

/* A warp a column outside [j0, j0 + jb); at most 2 jb <= 64 moves, two a
 * lane. */
template <typename T>
__global__ void __launch_bounds__(LSK_BBLK_THREADS)
k_bblk_moves(lsk_bstack st, int j0, int jb, const int *moves, int mstride)
{
    const long long sys = blockIdx.x, lda = st.a_cs;
    const int lane = threadIdx.x & 31;
    int c = (int)(blockIdx.y * (blockDim.x / 32) + threadIdx.x / 32);
    if (c >= st.n - jb)
        return;
    if (c >= j0)
        c += jb;
    const int *mv = moves + sys * mstride;
    const int cnt = mv[0];
    T *col = (T *)st.A + sys * st.sA + (long long)c * lda;
    int d0 = -1, d1 = -1;
    T v0 = 0, v1 = 0;
    if (lane < cnt)
        d0 = mv[1 + 2 * lane], v0 = col[mv[2 + 2 * lane]];
    if (lane + 32 < cnt)
        d1 = mv[1 + 2 * (lane + 32)], v1 = col[mv[2 + 2 * (lane + 32)]];
    __syncwarp();
    if (d0 >= 0)
        col[d0] = v0;
    if (d1 >= 0)
        col[d1] = v1;
}

/* U12 = L11^-1 A12: a thread a column c of A12, jb <= JB rows in registers. */
template <typename T, int JB>
__global__ void __launch_bounds__(LSK_BBLK_TRSM_THREADS)
k_bblk_trsm(lsk_bstack st, int j0, int jb)
{
    __shared__ T L[JB * JB];
    const long long sys = blockIdx.x, lda = st.a_cs;
    const T *A = (const T *)st.A + sys * st.sA;
    for (int e = threadIdx.x; e < jb * jb; e += blockDim.x)
        L[e] = A[j0 + e % jb + (long long)(j0 + e / jb) * lda];
    __syncthreads();
    const int c = j0 + jb + (int)(blockIdx.y * blockDim.x + threadIdx.x);
    if (c >= st.n)
        return;
    T *x = (T *)st.A + sys * st.sA + j0 + (long long)c * lda;
    T r[JB];
#pragma unroll
    for (int i = 0; i < JB; i++)
        r[i] = i < jb ? x[i] : (T)0;
#pragma unroll
    for (int k = 0; k < JB; k++)
#pragma unroll
        for (int i = k + 1; i < JB; i++)
            if (i < jb)
                r[i] -= L[i + k * jb] * r[k];
#pragma unroll
    for (int i = 0; i < JB; i++)
        if (i < jb)
            x[i] = r[i];
}

extern "C" size_t lsk_bblk_panel_bytes(int dbl, int n, int jb)
{
    return (size_t)(n | 1) * (size_t)jb * (dbl ? sizeof(double) : sizeof(float)) +
           (size_t)n * sizeof(int);
}

template <typename T>
static cudaError_t panel(const lsk_bstack *st, int j0, int jb, int *moves, int mstride,
                         cudaStream_t s)
{
    size_t bytes = lsk_bblk_panel_bytes(sizeof(T) == 8, st->n - j0, jb);
    cudaError_t e = cudaFuncSetAttribute(k_bblk_panel<T>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e != cudaSuccess)
        return e;
    k_bblk_panel<T><<<(unsigned)st->batch, LSK_BBLK_THREADS, bytes, s>>>(*st, j0, jb, moves,
                                                                         mstride);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_bblk_panel(int dbl, const lsk_bstack *st, int j0, int jb, int *moves,
                                      int mstride, cudaStream_t s)
{
    if (jb < 1 || jb > LSK_BBLK_MAXJB || j0 < 0 || j0 + jb > st->n || st->a_rs != 1 ||
        mstride < 1 + 4 * jb)
        return cudaErrorInvalidValue;
    return dbl ? panel<double>(st, j0, jb, moves, mstride, s)
               : panel<float>(st, j0, jb, moves, mstride, s);
}

extern "C" cudaError_t lsk_bblk_moves(int dbl, const lsk_bstack *st, int j0, int jb,
                                      const int *moves, int mstride, cudaStream_t s)
{
    int ncols = st->n - jb, per = LSK_BBLK_THREADS / 32;
    if (ncols <= 0)
        return cudaSuccess;
    dim3 grid((unsigned)st->batch, (unsigned)((ncols + per - 1) / per));
    if (dbl)
        k_bblk_moves<double><<<grid, LSK_BBLK_THREADS, 0, s>>>(*st, j0, jb, moves, mstride);
    else
        k_bblk_moves<float><<<grid, LSK_BBLK_THREADS, 0, s>>>(*st, j0, jb, moves, mstride);
    return cudaGetLastError();
}

template <typename T>
static cudaError_t trsm(const lsk_bstack *st, int j0, int jb, cudaStream_t s)
{
    int ncols = st->n - j0 - jb, t = LSK_BBLK_TRSM_THREADS;
    dim3 grid((unsigned)st->batch, (unsigned)((ncols + t - 1) / t));
    if (jb <= 8)
        k_bblk_trsm<T, 8><<<grid, t, 0, s>>>(*st, j0, jb);
    else if (jb <= 16)
        k_bblk_trsm<T, 16><<<grid, t, 0, s>>>(*st, j0, jb);
    else
        k_bblk_trsm<T, 32><<<grid, t, 0, s>>>(*st, j0, jb);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_bblk_trsm(int dbl, const lsk_bstack *st, int j0, int jb,
                                     cudaStream_t s)
{
    if (jb < 1 || jb > LSK_BBLK_MAXJB || st->a_rs != 1)
        return cudaErrorInvalidValue;
    if (j0 + jb >= st->n)
        return cudaSuccess;
    return dbl ? trsm<double>(st, j0, jb, s) : trsm<float>(st, j0, jb, s);
}
