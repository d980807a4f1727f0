/* Batched blocked LU for the orders where a block per whole matrix no
 * longer pays (n >= 128): right-looking, a panel of jb columns a step, each
 * step three launches over the whole stack (the GEMM is cuBLAS's, in
 * batched_blocked.c):
 *   panel  a block a matrix: the (n - j0) x jb panel in shared memory,
 *          factored one column a step in LAPACK getf2's order (idamax's
 *          pivot and NaN rule, reciprocal above sfmin), written back with
 *          its rows exchanged, and its interchanges as a list of row moves
 *          (at most 2 jb rows change place);
 *   right  a warp a column right of the panel: the panel's row moves (all
 *          sources read before any destination is written, so the moves
 *          need no order), then U12 = L11^-1 A12 on the column's jb rows,
 *          a lane a row, L11 in shared memory;
 * and after the last panel
 *   left   a block a matrix: the moves of every later panel composed into
 *          one gather per column of L, through shared memory, so each
 *          column is read and written once, coalesced (a moved element of a
 *          column-major matrix is otherwise a 32-byte sector for 8 bytes).
 * With an outer block of several panels (batched_blocked_impl.h) right and
 * the GEMM stop at the block's last column, left also runs within the
 * block, and k_batched_outer.cu moves the rest of the matrix's rows once a
 * block.
 * Stacks are column-major here (the driver transposes row-major ones).
 * Defines: lsk_bblk_panel_bytes_d, lsk_bblk_panel_bytes_s, lsk_bblk_panel_d,
 *   lsk_bblk_panel_s, lsk_bblk_right_d, lsk_bblk_right_s, lsk_bblk_left_d,
 *   lsk_bblk_left_s */
#include <cuda_runtime.h>

#include "cuda/batched/k_batched_blocked.h"
#include "cuda/batched/k_batched_moves.cuh"
#include "cuda/batched/k_batched_pivot.cuh"
#include "cuda/common/k_common.cuh"

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
            int p = lsk_warp_pivot_row(col, k, m);
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
                l = lsk_abs(piv) >= lsk_safe_min<T>() ? l * ((T)1 / piv) : l / piv;
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

/* A warp a column of [c0, c1): the panel's row moves, at most 2 jb <= 64
 * (two a lane; none when moves is NULL: they were applied already), then
 * the unit lower solve of its rows j0 .. j0 + jb. */
template <typename T>
__global__ void __launch_bounds__(LSK_BBLK_RIGHT_THREADS)
k_bblk_right(lsk_bstack st, int j0, int jb, int c0, int c1, const int *moves, int mstride)
{
    __shared__ T L[LSK_BBLK_MAXJB * LSK_BBLK_MAXJB];
    const long long sys = blockIdx.x, lda = st.a_cs;
    T *A = (T *)st.A + sys * st.sA;
    for (int e = threadIdx.x; e < jb * jb; e += blockDim.x)
        L[e] = A[j0 + e % jb + (long long)(j0 + e / jb) * lda];
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const int c = c0 + (int)(blockIdx.y * (blockDim.x / 32) + threadIdx.x / 32);
    if (c >= c1)
        return;
    T *col = A + (long long)c * lda;
    if (moves) {
        const int *mv = moves + sys * mstride;
        const int cnt = mv[0];
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
        __syncwarp();
    }
    T x = lane < jb ? col[j0 + lane] : (T)0;
    for (int k = 0; k < jb - 1; k++) {
        T xk = __shfl_sync(LSK_FULL_MASK, x, k);
        if (lane > k && lane < jb)
            x -= L[lane + k * jb] * xk;
    }
    if (lane < jb)
        col[j0 + lane] = x;
}

/* A block a matrix: panels [p_first, p_end) of width jb take the row moves
 * of the later panels of that range, composed backwards into perm (final
 * row i comes from row perm[i]); every group-th panel boundary p (counted
 * from p_first) hands the composition so far, panels p .. p_end - 1, to
 * the group panels' columns before it. group 1: each panel's columns take
 * every later panel's moves; group g: a block of g panels takes only the
 * moves of the blocks after it (its own were applied within the block).
 * Panel p's moves start at moves + (p * batch + system) * mstride. */
template <typename T>
__global__ void __launch_bounds__(LSK_BBLK_THREADS)
k_bblk_left(lsk_bstack st, int jb, int p_first, int p_end, int group, const int *moves,
            int mstride)
{
    extern __shared__ unsigned char bl_raw[];
    const int n = st.n, tid = threadIdx.x, nt = blockDim.x;
    T *buf = (T *)bl_raw;
    int *perm = (int *)(buf + n), *sp = perm + n;
    const long long sys = blockIdx.x, lda = st.a_cs;
    T *A = (T *)st.A + sys * st.sA;
    for (int i = tid; i < n; i += nt)
        perm[i] = i;
    for (int p = p_end - 1; p > p_first; p--) {
        const int r0 = p * jb; /* panel p moves rows >= r0 only */
        lsk_bblk_compose_panel(perm, sp, r0, n,
                               moves + ((long long)p * st.batch + sys) * mstride);
        if ((p - p_first) % group)
            continue;
        for (int c = r0 - group * jb; c < r0; c++) {
            T *col = A + (long long)c * lda;
            for (int i = r0 + tid; i < n; i += nt)
                buf[i] = col[i];
            __syncthreads();
            for (int i = r0 + tid; i < n; i += nt)
                col[i] = buf[perm[i]];
            __syncthreads();
        }
    }
}

template <typename T>
static size_t panel_bytes(int m, int jb)
{
    return (size_t)(m | 1) * (size_t)jb * sizeof(T) + (size_t)m * sizeof(int);
}
LSK_DEFINE(LSK_BBLK_PANEL_BYTES_SIG, panel_bytes, (m, jb))

template <typename T>
static cudaError_t panel(const lsk_bstack *st, int j0, int jb, int *moves, int mstride,
                         cudaStream_t s)
{
    if (jb < 1 || jb > LSK_BBLK_MAXJB || j0 < 0 || j0 + jb > st->n || st->a_rs != 1 ||
        mstride < 1 + 4 * jb)
        return cudaErrorInvalidValue;
    size_t bytes = panel_bytes<T>(st->n - j0, jb);
    cudaError_t e = cudaFuncSetAttribute(k_bblk_panel<T>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e != cudaSuccess)
        return e;
    k_bblk_panel<T><<<(unsigned)st->batch, LSK_BBLK_THREADS, bytes, s>>>(*st, j0, jb, moves,
                                                                         mstride);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_BBLK_PANEL_SIG, panel, (st, j0, jb, moves, mstride, s))

template <typename T>
static cudaError_t right(const lsk_bstack *st, int j0, int jb, int c0, int c1, const int *moves,
                         int mstride, cudaStream_t s)
{
    int per = LSK_BBLK_RIGHT_THREADS / 32;
    if (jb < 1 || jb > LSK_BBLK_MAXJB || st->a_rs != 1 || c0 < j0 + jb || c1 > st->n)
        return cudaErrorInvalidValue;
    if (c1 <= c0)
        return cudaSuccess;
    dim3 grid((unsigned)st->batch, (unsigned)((c1 - c0 + per - 1) / per));
    k_bblk_right<T><<<grid, LSK_BBLK_RIGHT_THREADS, 0, s>>>(*st, j0, jb, c0, c1, moves, mstride);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_BBLK_RIGHT_SIG, right, (st, j0, jb, c0, c1, moves, mstride, s))

template <typename T>
static cudaError_t left(const lsk_bstack *st, int jb, int p_first, int p_end, int group,
                        const int *moves, int mstride, cudaStream_t s)
{
    size_t bytes = (size_t)st->n * (sizeof(T) + 2 * sizeof(int));
    if (jb < 1 || jb > LSK_BBLK_MAXJB || st->a_rs != 1 || group < 1 || p_first < 0 ||
        (long long)p_end * jb >= (long long)st->n + jb)
        return cudaErrorInvalidValue;
    if (p_end - p_first < 2)
        return cudaSuccess;
    cudaError_t e = cudaFuncSetAttribute(k_bblk_left<T>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e != cudaSuccess)
        return e;
    k_bblk_left<T><<<(unsigned)st->batch, LSK_BBLK_THREADS, bytes, s>>>(*st, jb, p_first, p_end,
                                                                        group, moves, mstride);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_BBLK_LEFT_SIG, left, (st, jb, p_first, p_end, group, moves, mstride, s))
