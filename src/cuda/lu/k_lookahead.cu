/* Pivot bookkeeping of the look-ahead LU (getrf_lookahead.c): a panel
 * factored at (j0, j0) returns panel-relative pivots and its own info.
 * Defines: lsk_moves_apply_d, lsk_moves_apply_s */
#include "cuda/common/k_common.cuh"
#include "cuda/common/k_row_moves.cuh"
#include "cuda/lu/k_lu.h"
#include "cuda/lu/swaps_moves.h"

__global__ void lsk_pivots_shift_kernel(int w, int j0, int *ipiv, const int *pinfo, int *info)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w)
        ipiv[j0 + i] += j0;
    /* the first zero pivot of the whole matrix: earlier panels win */
    if (i == 0 && *pinfo > 0 && *info == 0)
        *info = *pinfo + j0;
}

extern "C" cudaError_t lsk_pivots_shift(int w, int j0, int *d_ipiv, const int *d_pinfo,
                                        int *d_info, cudaStream_t s)
{
    const int threads = 256;
    lsk_pivots_shift_kernel<<<lsk_blocks(w, threads), threads, 0, s>>>(w, j0, d_ipiv, d_pinfo,
                                                                       d_info);
    return cudaGetLastError();
}

/* The same for a panel factored by cuSOLVER's 64-bit API (Xgetrf). */
__global__ void lsk_pivots_shift64_kernel(int w, int j0, const long long *p64, int *ipiv,
                                          const int *pinfo, int *info)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w)
        ipiv[j0 + i] = (int)p64[i] + j0;
    if (i == 0 && *pinfo > 0 && *info == 0)
        *info = *pinfo + j0;
}

extern "C" cudaError_t lsk_pivots_shift64(int w, int j0, const long long *d_p64, int *d_ipiv,
                                          const int *d_pinfo, int *d_info, cudaStream_t s)
{
    const int threads = 256;
    lsk_pivots_shift64_kernel<<<lsk_blocks(w, threads), threads, 0, s>>>(w, j0, d_p64, d_ipiv,
                                                                         d_pinfo, d_info);
    return cudaGetLastError();
}

/* ---- A panel's interchanges on the other columns, as one gather ----
 * LAPACK's laswp applies the panel's swaps one after another, and a thread
 * per column doing so waits for two dependent loads per swap: ~0.2 ms per
 * 512-swap panel on the H100, twice per panel, on the look-ahead's critical
 * path. The swaps are first turned into the permutation they amount to (one
 * small block, rows tracked in shared memory), then every column moves its
 * affected rows at once. */

#define LSK_SWAPS_HASH 4096 /* >= 2 x the most swaps (LSK_SWAPS_MAX): short probes */
#define LSK_SWAPS_THREADS 256

/* The slot of row p (>= the window) in an open-addressing table. */
__device__ __forceinline__ int lsk_swaps_slot(int *keys, int p)
{
    unsigned h = ((unsigned)p * 2654435761u) & (LSK_SWAPS_HASH - 1);
    while (keys[h] != p && keys[h] != -1)
        h = (h + 1) & (LSK_SWAPS_HASH - 1);
    return (int)h;
}

/* moves[0] = count, then (dst, src) pairs: row dst receives row src. */
__global__ void __launch_bounds__(LSK_SWAPS_THREADS)
    lsk_swaps_to_moves_kernel(int k0, int k1, const int *ipiv, int *moves)
{
    __shared__ int win[LSK_SWAPS_MAX];     /* original row now at position k0 + i */
    __shared__ int keys[LSK_SWAPS_HASH];   /* rows below the window that were touched */
    __shared__ int vals[LSK_SWAPS_HASH];   /* the original row now there */
    __shared__ int piv[LSK_SWAPS_MAX];
    __shared__ int count;
    const int nsw = k1 - k0, tid = threadIdx.x;
    for (int i = tid; i < nsw; i += blockDim.x) {
        win[i] = k0 + i;
        piv[i] = ipiv[k0 + i] - 1;
    }
    for (int i = tid; i < LSK_SWAPS_HASH; i += blockDim.x)
        keys[i] = -1;
    if (tid == 0)
        count = 0;
    __syncthreads();
    if (tid == 0) /* the swaps depend on each other: one thread, all in shared memory */
        for (int i = 0; i < nsw; i++) {
            int p = piv[i], a = win[i];
            if (p == k0 + i)
                continue;
            if (p < k1) {
                win[i] = win[p - k0];
                win[p - k0] = a;
            } else {
                int h = lsk_swaps_slot(keys, p);
                if (keys[h] == -1) {
                    keys[h] = p;
                    vals[h] = p;
                }
                win[i] = vals[h];
                vals[h] = a;
            }
        }
    __syncthreads();
    for (int i = tid; i < nsw; i += blockDim.x)
        if (win[i] != k0 + i) {
            int e = atomicAdd(&count, 1);
            moves[1 + 2 * e] = k0 + i;
            moves[2 + 2 * e] = win[i];
        }
    for (int h = tid; h < LSK_SWAPS_HASH; h += blockDim.x)
        if (keys[h] != -1 && vals[h] != keys[h]) {
            int e = atomicAdd(&count, 1);
            moves[1 + 2 * e] = keys[h];
            moves[2 + 2 * e] = vals[h];
        }
    __syncthreads();
    if (tid == 0)
        moves[0] = count;
}

/* Columns [c0, c0 + n0) and [c1, c1 + n1): a block keeps the moves in
 * registers and moves two columns a step (k_row_moves.cuh says why). */
static_assert(2 * LSK_SWAPS_MAX <= LSK_RMOVES_MAX, "a panel's moves must fit one block's registers");
template <typename T>
__global__ void __launch_bounds__(LSK_RMOVES_THREADS)
    lsk_moves_regs_kernel(int c0, int n0, int c1, int n1, T *A, long long lda, const int *moves)
{
    lsk_row_moves_block<T>(A, lda, c0, n0, c1, (long long)n0 + n1, moves[0], moves + 1,
                           moves + 2, 2);
}

/* The same with a warp per column reading every moved row into shared
 * memory, then writing them where they go (LS_CUDA_ROW_MOVES=smem). */
template <typename T>
__global__ void lsk_moves_apply_kernel(int c0, int n0, int c1, int n1, T *A, long long lda,
                                       int nsw, const int *moves)
{
    extern __shared__ __align__(16) unsigned char lsk_moves_smem[];
    const int wib = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const long long w = (long long)blockIdx.x * (blockDim.x >> 5) + wib;
    if (w >= (long long)n0 + n1)
        return;
    const int cnt = moves[0];
    T *buf = (T *)lsk_moves_smem + (size_t)wib * 2 * nsw; /* at most 2 nsw moves */
    T *col = A + (w < n0 ? c0 + w : c1 + (w - n0)) * lda;
    for (int e = lane; e < cnt; e += 32)
        buf[e] = col[moves[2 + 2 * e]];
    __syncwarp();
    for (int e = lane; e < cnt; e += 32)
        col[moves[1 + 2 * e]] = buf[e];
}

/* The same moves with a thread per swap (swaps_moves.h says why that is
 * possible): the one-thread walk above waits for a chain of dependent
 * shared-memory loads, 163 us for a 1024-swap panel on an H100 (ncu,
 * bench/results/h100/lu-profile-8192.txt), on the path between two panels.
 * One block of LSK_SWAPS_MAX threads, so every phase is one pass. */
__global__ void __launch_bounds__(LSK_SWAPS_MAX)
    lsk_swaps_to_moves_par_kernel(int k0, int k1, const int *ipiv, int *moves)
{
    __shared__ int piv[LSK_SWAPS_MAX], root[LSK_SWAPS_MAX], prev[LSK_SWAPS_MAX];
    __shared__ int last[LSK_SWAPS_MAX];
    __shared__ int count;
    const int nsw = k1 - k0, j = threadIdx.x, mine = j < nsw;
    if (mine)
        piv[j] = ipiv[k0 + j] - 1;
    if (j == 0)
        count = 0;
    __syncthreads();
    if (mine)
        lsk_sm_links(j, k0, piv, root, prev, last);
    __syncthreads();
    if (mine) /* each swap is the prev of at most one other: no two writers */
        lsk_sm_not_last(j, prev, last);
    for (int span = 1; span < nsw; span <<= 1) { /* pointer jumping */
        __syncthreads();
        const int r = mine ? root[root[j]] : 0;
        __syncthreads();
        if (mine)
            root[j] = r;
    }
    __syncthreads();
    if (mine) {
        const int src = lsk_sm_window_src(j, k0, piv, root, prev);
        if (src != k0 + j) {
            const int e = atomicAdd(&count, 1);
            moves[1 + 2 * e] = k0 + j;
            moves[2 + 2 * e] = src;
        }
        if (piv[j] >= k1 && last[j]) {
            const int e = atomicAdd(&count, 1);
            moves[1 + 2 * e] = piv[j];
            moves[2 + 2 * e] = k0 + root[j];
        }
    }
    __syncthreads();
    if (j == 0)
        moves[0] = count;
}

extern "C" cudaError_t lsk_swaps_to_moves(int k0, int k1, const int *d_ipiv, int *d_moves,
                                          int parallel, cudaStream_t s)
{
    if (k1 - k0 < 1 || k1 - k0 > LSK_SWAPS_MAX)
        return cudaErrorInvalidValue;
    if (parallel)
        lsk_swaps_to_moves_par_kernel<<<1, LSK_SWAPS_MAX, 0, s>>>(k0, k1, d_ipiv, d_moves);
    else
        lsk_swaps_to_moves_kernel<<<1, LSK_SWAPS_THREADS, 0, s>>>(k0, k1, d_ipiv, d_moves);
    return cudaGetLastError();
}

template <typename T>
static cudaError_t moves_apply(int c0, int n0, int c1, int n1, T *dA, int lda, int nsw,
                               const int *d_moves, int regs, cudaStream_t s)
{
    size_t es = sizeof(T), per_warp = es * 2 * (size_t)nsw;
    if (n0 < 0 || n1 < 0 || nsw < 1 || nsw > LSK_SWAPS_MAX)
        return cudaErrorInvalidValue;
    if (n0 + n1 == 0)
        return cudaSuccess;
    if (regs) {
        lsk_moves_regs_kernel<T><<<lsk_row_moves_blocks((long long)n0 + n1), LSK_RMOVES_THREADS,
                                   0, s>>>(c0, n0, c1, n1, dA, (long long)lda, d_moves);
        return cudaGetLastError();
    }
    /* up to 8 columns a block within the default 48 KB of shared memory */
    int warps = (int)(49152 / per_warp);
    warps = warps < 1 ? 1 : warps > 8 ? 8 : warps;
    size_t smem = (size_t)warps * per_warp;
    unsigned blocks = (unsigned)(((long long)n0 + n1 + warps - 1) / warps);
    lsk_moves_apply_kernel<T><<<blocks, warps * 32, smem, s>>>(c0, n0, c1, n1, dA, (long long)lda,
                                                                nsw, d_moves);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_MOVES_APPLY_SIG, moves_apply, (c0, n0, c1, n1, dA, lda, nsw, d_moves, regs, s))
