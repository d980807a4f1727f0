/* The fast panel of method "lu": one cooperative launch factors a leaf of up
 * to LSK_COOP_MAXW columns over all rows below it, instead of two launches
 * per column. Each block keeps a slice of the panel's rows in shared memory;
 * per column there is ONE grid-wide barrier: before it, every block publishes
 * its best candidate row (value, index and the row itself) and the owner of
 * the diagonal row publishes that row; after it, every block picks the same
 * winner (largest |a|, ties to the smallest row, as idamax), swaps locally
 * and eliminates its own rows. Publication buffers alternate between two
 * halves by column parity, so a block that runs ahead never overwrites what
 * a slower block is still reading.
 *
 * The leaf's interchanges are then turned into at most 2*w (dst <- src) row
 * moves, applied to every column outside the leaf by lsk_swap_outside in one
 * launch. That replaces LAPACK's level-by-level laswp of the recursive LU.
 * Defines: lsk_panel_coop_scratch_d, lsk_panel_coop_scratch_s,
 *   lsk_panel_coop_shape_d, lsk_panel_coop_shape_s, lsk_panel_coop_d,
 *   lsk_panel_coop_s, lsk_swap_outside_d, lsk_swap_outside_s,
 *   lsk_permute_rows_d, lsk_permute_rows_s, lsk_reg_coop_d, lsk_reg_coop_s */
#include <cooperative_groups.h>
#include <limits.h>

#include "cuda/common/k_common.cuh"
#include "cuda/lu/k_panel_leaf.cuh"
#include "cuda/lu/k_lu.h"

namespace cg = cooperative_groups;

/* Rows [j0, m) x columns [j0, j0+w) of A; block b owns rows
 * [j0 + b*R, j0 + (b+1)*R). pub: 2 halves of G*(w+1) T values (candidate
 * value + row), prow: 2*G ints, krow: 2*w T. pairs: 1 + 2*(2w) ints. */
template <typename T>
__global__ void __launch_bounds__(LSK_COOP_THREADS)
    lsk_panel_coop_kernel(int m, int j0, int w, T *A, int lda, int *ipiv, int *info, int R,
                          T *pub, int *prow, T *krow, int *pairs)
{
    cg::grid_group grid = cg::this_grid();
    extern __shared__ unsigned char lsk_coop_smem[];
    T *s = (T *)lsk_coop_smem; /* R x w, column-major: s[c*R + r] */
    __shared__ T pivrow[LSK_COOP_MAXW];
    __shared__ T red_v[LSK_COOP_THREADS / 32];
    __shared__ int red_r[LSK_COOP_THREADS / 32];
    __shared__ T win_v;
    __shared__ int win_r;
    const int G = gridDim.x, b = blockIdx.x;
    const int r0 = j0 + b * R;
    int nr = m - r0;
    nr = nr < 0 ? 0 : (nr > R ? R : nr);

    for (int idx = threadIdx.x; idx < nr * w; idx += blockDim.x) {
        int c = idx / nr, r = idx - c * nr;
        s[c * R + r] = A[(long long)(r0 + r) + (long long)(j0 + c) * lda];
    }
    __syncthreads();

    for (int k = 0; k < w; k++) {
        const int gk = j0 + k, half = k & 1;
        T *cand = pub + (size_t)half * G * w;
        T v = (T)-1;
        int row = INT_MAX;
        const int rk = gk - r0 > 0 ? gk - r0 : 0; /* first local row still active */
        for (int r = rk + threadIdx.x; r < nr; r += blockDim.x) {
            T a = lsk_abs(s[k * R + r]);
            if (a > v) { /* r ascending per thread: first max kept */
                v = a;
                row = r0 + r;
            }
        }
        lsk_block_argmax(v, row, red_v, red_r);
        if (threadIdx.x == 0) {
            prow[half * G + b] = row;
            ((T *)(prow + 2 * G))[half * G + b] = v; /* values live after the rows */
        }
        if (row != INT_MAX && threadIdx.x < w)
            cand[(size_t)b * w + threadIdx.x] = s[threadIdx.x * R + (row - r0)];
        if (gk >= r0 && gk < r0 + nr && threadIdx.x < w)
            krow[half * w + threadIdx.x] = s[threadIdx.x * R + (gk - r0)];
        grid.sync();

        /* every block reduces the G candidates the same way, in one warp:
         * (largest value, then smallest row) is a total order, so any
         * reduction order gives the same winner */
        T bv = (T)-1;
        int brow = INT_MAX, bwin = 0;
        if (threadIdx.x < 32) {
            const T *vals = (const T *)(prow + 2 * G) + half * G;
            for (int i = threadIdx.x; i < G; i += 32) {
                T ov = vals[i];
                int orow = prow[half * G + i];
                if (orow != INT_MAX && (ov > bv || (ov == bv && orow < brow))) {
                    bv = ov;
                    brow = orow;
                }
            }
            for (int off = 16; off > 0; off >>= 1) {
                T ov = __shfl_xor_sync(0xffffffffu, bv, off);
                int orow = __shfl_xor_sync(0xffffffffu, brow, off);
                if (ov > bv || (ov == bv && orow < brow)) {
                    bv = ov;
                    brow = orow;
                }
            }
            if (threadIdx.x == 0) {
                win_v = bv;
                win_r = brow;
            }
        }
        __syncthreads();
        /* own slots, not red_v/red_r: the next column's first reduction
         * writes those before any barrier a lagging reader would wait at */
        bv = win_v;
        brow = win_r;
        if (brow == INT_MAX || bv == (T)0) {
            /* LAPACK: an exactly zero column gets ipiv = k and no scaling */
            if (b == 0 && threadIdx.x == 0) {
                ipiv[gk] = gk + 1;
                if (*info == 0)
                    *info = gk + 1;
            }
            continue;
        }
        bwin = (brow - j0) / R;
        if (threadIdx.x < w)
            pivrow[threadIdx.x] = cand[(size_t)bwin * w + threadIdx.x];
        if (b == 0 && threadIdx.x == 0)
            ipiv[gk] = brow + 1;
        __syncthreads();
        lsk_leaf_eliminate(s, R, nr, r0, k, w, gk, brow, (const T *)pivrow, krow + half * w);
    }

    for (int idx = threadIdx.x; idx < nr * w; idx += blockDim.x) {
        int c = idx / nr, r = idx - c * nr;
        A[(long long)(r0 + r) + (long long)(j0 + c) * lda] = s[c * R + r];
    }

    /* Block 0 turns the interchanges into row moves for the other columns.
     * Only block 0 wrote ipiv, so no grid barrier is needed here. */
    if (b != 0)
        return;
    __syncthreads();
    if (threadIdx.x < 32)
        lsk_leaf_moves(ipiv, j0, w, pairs);
}

/* One warp per column outside [j0, j0+w): read every moved row, then write. */
template <typename T>
__global__ void lsk_swap_outside_kernel(int ncols, int j0, int w, T *A, int lda, const int *pairs)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    int c = warp < j0 ? warp : warp + w;
    if (warp >= ncols - w)
        return;
    int moves = pairs[0];
    T *col = A + (long long)c * lda;
    T v0 = 0, v1 = 0;
    int d0 = -1, d1 = -1;
    if (lane < moves) {
        d0 = pairs[1 + 2 * lane];
        v0 = col[pairs[2 + 2 * lane]];
    }
    if (lane + 32 < moves) {
        d1 = pairs[1 + 2 * (lane + 32)];
        v1 = col[pairs[2 + 2 * (lane + 32)]];
    }
    __syncwarp();
    if (d0 >= 0)
        col[d0] = v0;
    if (d1 >= 0)
        col[d1] = v1;
}

/* Scratch needed by lsk_panel_coop for G blocks (bytes). */
template <typename T>
static size_t panel_coop_scratch(int G)
{
    size_t es = sizeof(T);
    return es * (size_t)2 * G * LSK_COOP_MAXW /* candidates */ + sizeof(int) * 2 * (size_t)G +
           es * 2 * (size_t)G /* candidate values */ + es * 2 * LSK_COOP_MAXW /* diag rows */ +
           sizeof(int) * (1 + 4 * LSK_COOP_MAXW) + 64;
}
LSK_DEFINE(LSK_PANEL_COOP_SCRATCH_SIG, panel_coop_scratch, (G))

/* How many blocks and rows per block a leaf of m - j0 rows uses: about 32
 * rows a block, at most want_blocks, but as many as the slice's shared
 * memory needs; 0 blocks when that is more than max_blocks (all must be
 * resident: the caller then uses per-column kernels). */
template <typename T>
static int panel_coop_shape(int rows, int w, int want_blocks, int max_blocks, int *R)
{
    return lsk_leaf_shape(sizeof(T), rows, w, want_blocks, max_blocks, LSK_COOP_MAX_SMEM, R);
}
LSK_DEFINE(LSK_PANEL_COOP_SHAPE_SIG, panel_coop_shape, (rows, w, want_blocks, max_blocks, R))

template <typename T>
static cudaError_t swap_outside(int ncols, int j0, int w, T *dA, int lda, const int *pairs,
                                cudaStream_t s);

template <typename T>
static cudaError_t panel_coop(int m, int ncols, int j0, int w, T *dA, int lda, int *d_ipiv,
                              int *d_info, void *scratch, int G, int R, cudaStream_t s)
{
    size_t es = sizeof(T);
    char *p = (char *)scratch;
    void *pub = p;
    p += es * (size_t)2 * G * LSK_COOP_MAXW;
    int *prow = (int *)p; /* 2G rows, then 2G values (aligned by es below) */
    p += sizeof(int) * 2 * (size_t)G + es * 2 * (size_t)G;
    void *krow = p;
    p += es * 2 * LSK_COOP_MAXW;
    int *pairs = (int *)p;
    size_t smem = (size_t)R * w * es;
    cudaError_t e = cudaFuncSetAttribute(lsk_panel_coop_kernel<T>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess)
        return e;
    T *Ap = dA;
    T *pubp = (T *)pub, *krowp = (T *)krow;
    void *args[] = {&m, &j0, &w, &Ap, &lda, &d_ipiv, &d_info, &R, &pubp, &prow, &krowp, &pairs};
    e = cudaLaunchCooperativeKernel((const void *)lsk_panel_coop_kernel<T>, dim3(G),
                                    dim3(LSK_COOP_THREADS), args, smem, s);
    if (e != cudaSuccess)
        return e;
    return swap_outside<T>(ncols, j0, w, dA, lda, pairs, s);
}
LSK_DEFINE(LSK_PANEL_COOP_SIG, panel_coop,
           (m, ncols, j0, w, dA, lda, d_ipiv, d_info, scratch, G, R, s))

/* The leaf's row moves (pairs, on the device) applied to every column
 * outside [j0, j0+w), one warp a column, in one launch. */
template <typename T>
static cudaError_t swap_outside(int ncols, int j0, int w, T *dA, int lda, const int *pairs,
                                cudaStream_t s)
{
    if (ncols <= w)
        return cudaSuccess;
    long long threads = 32LL * (ncols - w);
    lsk_swap_outside_kernel<T><<<lsk_blocks(threads, 256), 256, 0, s>>>(ncols, j0, w, dA, lda,
                                                                         pairs);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_SWAP_OUTSIDE_SIG, swap_outside, (ncols, j0, w, dA, lda, pairs, s))

template <typename T>
__global__ void lsk_permute_rows_kernel(int n, int nrhs, const int *perm, const T *src, int ldsrc,
                                        T *dst, int lddst)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)n * nrhs)
        return;
    int i = (int)(idx % n), c = (int)(idx / n);
    dst[i + (long long)c * lddst] = src[perm[i] + (long long)c * ldsrc];
}

template <typename T>
static cudaError_t permute_rows(int n, int nrhs, const int *d_perm, const T *src, int ldsrc,
                                T *dst, int lddst, cudaStream_t s)
{
    if (n <= 0 || nrhs <= 0)
        return cudaSuccess;
    lsk_permute_rows_kernel<T><<<lsk_blocks((long long)n * nrhs, 256), 256, 0, s>>>(
        n, nrhs, d_perm, src, ldsrc, dst, lddst);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_PERMUTE_ROWS_SIG, permute_rows, (n, nrhs, d_perm, src, ldsrc, dst, lddst, s))

/* Dynamic shared memory of the first (largest) leaf at size n, assuming
 * one block per SM of a 132-SM H100, as lsc_getrf_device launches it there. */
template <typename T>
static size_t coop_smem(int n, int nrhs)
{
    int R = 0;
    (void)nrhs;
    return panel_coop_shape<T>(n, LSK_COOP_MAXW, 132, 132, &R)
               ? (size_t)R * LSK_COOP_MAXW * sizeof(T)
               : 0;
}

template <typename T>
static int reg_coop(ls_cuda_kernel_desc *out)
{
    int count = 0;
    /* static shared memory: pivrow, the two reduction arrays and the winner, the move
     * list and its count, rounded up to 16 bytes as the compiler lays it out */
    size_t st_smem = ((LSK_COOP_MAXW * sizeof(T) +
                       (LSK_COOP_THREADS / 32 + 1) * (sizeof(T) + sizeof(int)) +
                       4 * LSK_COOP_MAXW * sizeof(int) + sizeof(int) + 15) /
                      16) * 16;
    LSK_REG("panel_coop", "lu", lsk_panel_coop_kernel<T>, LSK_COOP_THREADS, st_smem);
    out[count - 1].dynamic_smem = coop_smem<T>;
    LSK_REG("swap_outside", "lu", lsk_swap_outside_kernel<T>, 256, 0);
    LSK_REG("permute_rows", "lu", lsk_permute_rows_kernel<T>, 256, 0);
    return count;
}
LSK_DEFINE(LSK_REG_COOP_SIG, reg_coop, (out))
