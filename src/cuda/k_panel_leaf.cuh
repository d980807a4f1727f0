/* Device pieces shared by the two leaf kernels of method "lu" (cooperative
 * grid: k_panel_coop.cu; thread-block cluster: k_panel_cluster.cu). A leaf
 * block holds rows [r0, r0 + nr) of the panel's w columns in shared memory,
 * column-major with leading dimension R: s[c*R + r]. */
#ifndef LS_CUDA_K_PANEL_LEAF_CUH
#define LS_CUDA_K_PANEL_LEAF_CUH

#include <limits.h>

#include "k_common.cuh"
#include "kernels.h"

/* (largest value, then smallest row) over a warp, the result in every lane:
 * a total order (ties to the smaller row, as idamax), so any reduction order
 * gives every block the same winner. */
template <typename T>
__device__ void lsk_warp_argmax(T &v, int &row)
{
    for (int off = 16; off > 0; off >>= 1) {
        T ov = __shfl_xor_sync(0xffffffffu, v, off);
        int orow = __shfl_xor_sync(0xffffffffu, row, off);
        if (ov > v || (ov == v && orow < row)) {
            v = ov;
            row = orow;
        }
    }
}

/* The same over the block (sv, sr: one slot a warp); all threads get it. */
template <typename T>
__device__ void lsk_block_argmax(T &v, int &row, T *sv, int *sr)
{
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    lsk_warp_argmax(v, row);
    if (lane == 0) {
        sv[warp] = v;
        sr[warp] = row;
    }
    __syncthreads();
    if (warp == 0) {
        int nw = blockDim.x >> 5;
        v = lane < nw ? sv[lane] : (T)-1;
        row = lane < nw ? sr[lane] : INT_MAX;
        lsk_warp_argmax(v, row);
        if (lane == 0) {
            sv[0] = v;
            sr[0] = row;
        }
    }
    __syncthreads();
    v = sv[0];
    row = sr[0];
    __syncthreads();
}

/* Rows the block holds: those of [r0, r0+R) that lie above m. */
__device__ inline int lsk_leaf_rows(int m, int r0, int R)
{
    int nr = m - r0;
    return nr < 0 ? 0 : (nr > R ? R : nr);
}

/* The block's slice (rows [r0, r0+nr) of columns [j0, j0+w) of A) into
 * shared memory, and back. */
template <typename T>
__device__ void lsk_leaf_load(T *s, int R, const T *A, int lda, int r0, int j0, int nr, int w)
{
    for (int idx = threadIdx.x; idx < nr * w; idx += blockDim.x) {
        int c = idx / nr, r = idx - c * nr;
        s[c * R + r] = A[(long long)(r0 + r) + (long long)(j0 + c) * lda];
    }
    __syncthreads();
}
template <typename T>
__device__ void lsk_leaf_store(const T *s, int R, T *A, int lda, int r0, int j0, int nr, int w)
{
    for (int idx = threadIdx.x; idx < nr * w; idx += blockDim.x) {
        int c = idx / nr, r = idx - c * nr;
        A[(long long)(r0 + r) + (long long)(j0 + c) * lda] = s[c * R + r];
    }
}

/* The block's pivot candidate for column k (global gk): largest |a| over its
 * rows at or below gk, first such row; (-1, INT_MAX) when it has none. */
template <typename T>
__device__ void lsk_leaf_candidate(const T *s, int R, int nr, int r0, int k, int gk, T &v,
                                   int &row, T *sv, int *sr)
{
    v = (T)-1;
    row = INT_MAX;
    const int rk = gk - r0 > 0 ? gk - r0 : 0; /* first local row still active */
    for (int r = rk + threadIdx.x; r < nr; r += blockDim.x) {
        T a = lsk_abs(s[k * R + r]);
        if (a > v) { /* r ascending per thread: first max kept */
            v = a;
            row = r0 + r;
        }
    }
    lsk_block_argmax(v, row, sv, sr);
}

/* LAPACK: an exactly zero column gets ipiv = k and no scaling; info is the
 * first such column (block 0 writes both). */
__device__ inline void lsk_leaf_zero_column(int b, int gk, int *ipiv, int *info)
{
    if (b == 0 && threadIdx.x == 0) {
        ipiv[gk] = gk + 1;
        if (*info == 0)
            *info = gk + 1;
    }
}

/* Host: blocks G and rows per block R for a leaf of `rows` rows: about 32
 * rows a block, at most want blocks unless a slice of max_smem bytes needs
 * more; 0 when more than max_blocks would be needed. */
static inline int lsk_leaf_shape(size_t es, int rows, int w, int want, int max_blocks,
                                 size_t max_smem, int *R)
{
    int fit = (int)(max_smem / ((size_t)w * es)); /* rows a block can hold */
    int G = (rows + 31) / 32, need = (rows + fit - 1) / fit;
    if (G > want)
        G = want;
    if (G < need)
        G = need;
    if (G < 1)
        G = 1;
    *R = (rows + G - 1) / G;
    if (G > max_blocks || (size_t)(*R) * w * es > max_smem)
        return 0;
    return G;
}

/* Column k of the leaf (global column gk), once every block knows the pivot
 * row brow: pivrow holds row brow's w entries and krow row gk's (both as
 * published before the barrier). Swaps the two rows where this block holds
 * them, computes the multipliers and applies the rank-1 update spread over
 * (row, column) pairs so no thread walks a whole row. Ends synchronised. */
template <typename T>
__device__ void lsk_leaf_eliminate(T *s, int R, int nr, int r0, int k, int w, int gk, int brow,
                                   const T *pivrow, const T *krow)
{
    if (brow != gk && threadIdx.x < w) {
        if (gk >= r0 && gk < r0 + nr)
            s[threadIdx.x * R + (gk - r0)] = pivrow[threadIdx.x];
        if (brow >= r0 && brow < r0 + nr)
            s[threadIdx.x * R + (brow - r0)] = krow[threadIdx.x];
    }
    __syncthreads();
    const T piv = pivrow[k];
    const int r1 = gk + 1 - r0 > 0 ? gk + 1 - r0 : 0, rows = nr - r1, cols = w - k - 1;
    for (int r = r1 + threadIdx.x; r < nr; r += blockDim.x)
        s[k * R + r] /= piv; /* division, not a reciprocal: tiny pivots stay finite */
    __syncthreads();
    if (rows > 0 && cols > 0) {
        const int step_c = blockDim.x / rows, step_r = blockDim.x - step_c * rows;
        int c = threadIdx.x / rows, r = threadIdx.x - c * rows;
        for (; c < cols; c += step_c, r += step_r) {
            if (r >= rows) {
                r -= rows;
                c++;
                if (c >= cols)
                    break;
            }
            s[(k + 1 + c) * R + r1 + r] -= s[k * R + r1 + r] * pivrow[k + 1 + c];
        }
    }
    __syncthreads();
}

/* One warp (of the block that wrote ipiv) turns the leaf's w interchanges
 * into at most 2w row moves for the columns outside the leaf: rows[e]
 * receives the content of row src[e]. pairs = {count, (dst, src)...}. */
__device__ inline void lsk_leaf_moves(const int *ipiv, int j0, int w, int *pairs)
{
    __shared__ int rows[2 * LSK_COOP_MAXW], src[2 * LSK_COOP_MAXW];
    __shared__ int cnt;
    const int lane = threadIdx.x & 31;
    if (lane == 0)
        cnt = 0;
    __syncwarp();
    for (int k = 0; k < w; k++) {
        int a = j0 + k, p = ipiv[j0 + k] - 1;
        if (p == a)
            continue;
        int ia = -1, ip = -1;
        for (int e = lane; e < cnt; e += 32) {
            if (rows[e] == a) ia = e;
            if (rows[e] == p) ip = e;
        }
        for (int off = 16; off > 0; off >>= 1) {
            ia = max(ia, __shfl_xor_sync(0xffffffffu, ia, off));
            ip = max(ip, __shfl_xor_sync(0xffffffffu, ip, off));
        }
        if (lane == 0) {
            if (ia < 0) {
                ia = cnt++;
                rows[ia] = a;
                src[ia] = a;
            }
            if (ip < 0) {
                ip = cnt++;
                rows[ip] = p;
                src[ip] = p;
            }
            int t = src[ia];
            src[ia] = src[ip];
            src[ip] = t;
        }
        __syncwarp();
    }
    int n_moves = 0;
    if (lane == 0) {
        for (int e = 0; e < cnt; e++)
            if (rows[e] != src[e]) {
                pairs[1 + 2 * n_moves] = rows[e];
                pairs[2 + 2 * n_moves] = src[e];
                n_moves++;
            }
        pairs[0] = n_moves;
    }
}

/* End of a leaf kernel: the slice back to A, then block 0 (the one that
 * wrote ipiv) lists the row moves for the columns outside the leaf. */
template <typename T>
__device__ void lsk_leaf_finish(const T *s, int R, T *A, int lda, int r0, int j0, int nr, int w,
                                int b, const int *ipiv, int *pairs)
{
    lsk_leaf_store(s, R, A, lda, r0, j0, nr, w);
    if (b != 0)
        return;
    __syncthreads();
    if (threadIdx.x < 32)
        lsk_leaf_moves(ipiv, j0, w, pairs);
}

#endif
