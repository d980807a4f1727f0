/* Device pieces shared by the two leaf kernels of method "lu" (cooperative
 * grid: k_panel_coop.cu; thread-block cluster: k_panel_cluster.cu). A leaf
 * block holds rows [r0, r0 + nr) of the panel's w columns in shared memory,
 * column-major with leading dimension R: s[c*R + r]. */
#ifndef LS_CUDA_K_PANEL_LEAF_CUH
#define LS_CUDA_K_PANEL_LEAF_CUH

#include <limits.h>

#include "cuda/common/k_common.cuh"
#include "cuda/lu/k_lu.h"

/* (largest value, then smallest row) over the block: ties go to the smaller
 * row so every run picks the same pivot (as idamax). All threads get it. */
template <typename T>
__device__ void lsk_block_argmax(T &v, int &row, T *sv, int *sr)
{
    /* ties go to the smaller row so every run picks the same pivot */
    for (int off = 16; off > 0; off >>= 1) {
        T ov = __shfl_down_sync(0xffffffffu, v, off);
        int orow = __shfl_down_sync(0xffffffffu, row, off);
        if (ov > v || (ov == v && orow < row)) {
            v = ov;
            row = orow;
        }
    }
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0) {
        sv[warp] = v;
        sr[warp] = row;
    }
    __syncthreads();
    if (warp == 0) {
        int nw = blockDim.x >> 5;
        v = lane < nw ? sv[lane] : (T)-1;
        row = lane < nw ? sr[lane] : INT_MAX;
        for (int off = 16; off > 0; off >>= 1) {
            T ov = __shfl_down_sync(0xffffffffu, v, off);
            int orow = __shfl_down_sync(0xffffffffu, row, off);
            if (ov > v || (ov == v && orow < row)) {
                v = ov;
                row = orow;
            }
        }
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

#endif
