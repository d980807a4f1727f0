/* The outer block of the batched blocked LU (batched_blocked_impl.h): its
 * g panels' row moves reach the columns right of the block once, composed,
 * instead of once a panel, so that the trailing GEMM can take the block's
 * whole width at once (rank g * jb instead of rank jb: the stack's trailing
 * matrices are read and written g times less).
 *   compose  a block a matrix: the moves of panels p0 .. p0 + g - 1
 *            composed backwards (as k_bblk_left) into one permutation of
 *            rows >= p0 jb, written as the list of rows it changes (at most
 *            2 g jb: each panel changes at most 2 jb rows);
 *   apply    a warp a column right of the block: every source row read
 *            before any destination is written, the list in shared memory.
 * lsk_bblk_compose is one function for both precisions (it moves no data).
 * Defines: lsk_bblk_apply_d, lsk_bblk_apply_s */
#include <cuda_runtime.h>

#include "cuda/batched/k_batched_blocked.h"
#include "cuda/batched/k_batched_moves.cuh"
#include "cuda/common/k_common.cuh"

#define APPLY_THREADS 512
#define PER_LANE (2 * LSK_BBLK_MAXNB / 32) /* list entries a lane holds */

__global__ void __launch_bounds__(LSK_BBLK_THREADS)
k_bblk_compose(int n, int batch, int jb, int p0, int g, const int *moves, int mstride,
               int *out, int ostride)
{
    extern __shared__ int bc_raw[];
    const int tid = threadIdx.x, nt = blockDim.x, base = p0 * jb;
    int *perm = bc_raw, *sp = perm + n; /* rows >= base used */
    __shared__ int s_cnt;
    const long long sys = blockIdx.x;
    for (int i = base + tid; i < n; i += nt)
        perm[i] = i;
    if (tid == 0)
        s_cnt = 0;
    __syncthreads();
    for (int p = p0 + g - 1; p >= p0; p--)
        lsk_bblk_compose_panel(perm, sp, p * jb, n,
                               moves + ((long long)p * batch + sys) * mstride);
    int *o = out + sys * ostride;
    for (int i = base + tid; i < n; i += nt)
        if (perm[i] != i) {
            int c = atomicAdd(&s_cnt, 1);
            o[1 + 2 * c] = i;
            o[2 + 2 * c] = perm[i];
        }
    __syncthreads();
    if (tid == 0)
        o[0] = s_cnt;
}

template <typename T>
__global__ void __launch_bounds__(APPLY_THREADS)
k_bblk_apply(lsk_bstack st, int c0, const int *list, int ostride)
{
    __shared__ int s_dst[2 * LSK_BBLK_MAXNB], s_src[2 * LSK_BBLK_MAXNB];
    const long long sys = blockIdx.x, lda = st.a_cs;
    const int *l = list + sys * ostride, cnt = l[0];
    for (int e = threadIdx.x; e < cnt; e += blockDim.x)
        s_dst[e] = l[1 + 2 * e], s_src[e] = l[2 + 2 * e];
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const int c = c0 + (int)(blockIdx.y * (blockDim.x / 32) + threadIdx.x / 32);
    if (c >= st.n)
        return;
    T *col = (T *)st.A + sys * st.sA + (long long)c * lda;
    T v[PER_LANE];
#pragma unroll
    for (int t = 0; t < PER_LANE; t++)
        if (lane + 32 * t < cnt)
            v[t] = col[s_src[lane + 32 * t]];
    __syncwarp();
#pragma unroll
    for (int t = 0; t < PER_LANE; t++)
        if (lane + 32 * t < cnt)
            col[s_dst[lane + 32 * t]] = v[t];
}

extern "C" cudaError_t lsk_bblk_compose(int n, int batch, int jb, int p0, int g,
                                        const int *moves, int mstride, int *out, int ostride,
                                        cudaStream_t s)
{
    if (jb < 1 || g < 1 || g * jb > LSK_BBLK_MAXNB || (p0 + g - 1) * jb >= n ||
        ostride < 1 + 4 * g * jb)
        return cudaErrorInvalidValue;
    size_t bytes = 2 * (size_t)n * sizeof(int);
    cudaError_t e = cudaFuncSetAttribute(k_bblk_compose,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e != cudaSuccess)
        return e;
    k_bblk_compose<<<(unsigned)batch, LSK_BBLK_THREADS, bytes, s>>>(
        n, batch, jb, p0, g, moves, mstride, out, ostride);
    return cudaGetLastError();
}

template <typename T>
static cudaError_t apply(const lsk_bstack *st, int c0, const int *list, int ostride,
                         cudaStream_t s)
{
    int per = APPLY_THREADS / 32;
    if (st->a_rs != 1 || c0 < 0)
        return cudaErrorInvalidValue;
    if (c0 >= st->n)
        return cudaSuccess;
    dim3 grid((unsigned)st->batch, (unsigned)((st->n - c0 + per - 1) / per));
    k_bblk_apply<T><<<grid, APPLY_THREADS, 0, s>>>(*st, c0, list, ostride);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_BBLK_APPLY_SIG, apply, (st, c0, list, ostride, s))
