/*
 * In-place row moves on the columns of a column-major matrix, shared by the
 * look-ahead LU (cuda/lu/k_lookahead.cu) and the distributed engine
 * (dist/cuda/k_dist.cu): X(dst[e], col) = old X(src[e], col) for e < cnt,
 * dst and src holding the same set of rows (a permutation of them).
 *
 * In column-major storage each moved entry of a scattered row is its own
 * 32-byte sector, so the kernel's speed is how many such loads it keeps in
 * flight. A block of LSK_RMOVES_THREADS threads loads its moves' indices
 * into registers once (LSK_RMOVES_K a thread) and keeps them for all of
 * its columns; it moves LSK_RMOVES_CT columns a step, issuing every load of
 * the step before one block barrier and every store after it, so no source
 * is overwritten before it is read and each thread has CT x K independent
 * loads in flight. The kernels this replaces took a column per warp or per
 * block through shared memory, each data load waiting on its index load.
 * Defines: none (a device template, instantiated by its includers)
 */
#ifndef LS_CUDA_K_ROW_MOVES_CUH
#define LS_CUDA_K_ROW_MOVES_CUH

#define LSK_RMOVES_THREADS 256
#define LSK_RMOVES_K 8 /* moves a thread: cnt <= 2048 */
#define LSK_RMOVES_MAX (LSK_RMOVES_THREADS * LSK_RMOVES_K)
#define LSK_RMOVES_CT 2 /* columns a step */

/* Columns w = 0 .. width-1 of the block's share (a grid-stride loop over
 * steps of CT columns); column w is X + col(w) * ldx with col(w) = c00 + w
 * for w < nc0, else c01 + (w - nc0). dst[e * stride], src[e * stride]:
 * both lists, or one interleaved list with stride 2. Every thread of the
 * block must call it (it has block barriers). */
template <typename T>
__device__ __forceinline__ void lsk_row_moves_block(T *X, long long ldx, int c00, long long nc0,
                                                    int c01, long long width, int cnt,
                                                    const int *dst, const int *src, int stride)
{
    int d[LSK_RMOVES_K], s[LSK_RMOVES_K];
#pragma unroll
    for (int k = 0; k < LSK_RMOVES_K; k++) {
        const int e = threadIdx.x + k * LSK_RMOVES_THREADS;
        d[k] = e < cnt ? dst[(long long)e * stride] : -1;
        s[k] = e < cnt ? src[(long long)e * stride] : 0;
    }
    const long long step = (long long)gridDim.x * LSK_RMOVES_CT;
    for (long long w0 = (long long)blockIdx.x * LSK_RMOVES_CT; w0 < width; w0 += step) {
        T v[LSK_RMOVES_CT][LSK_RMOVES_K];
        T *col[LSK_RMOVES_CT];
#pragma unroll
        for (int c = 0; c < LSK_RMOVES_CT; c++) {
            const long long w = w0 + c;
            col[c] = w < width ? X + (w < nc0 ? c00 + w : c01 + (w - nc0)) * ldx : NULL;
#pragma unroll
            for (int k = 0; k < LSK_RMOVES_K; k++)
                if (col[c] && d[k] >= 0)
                    v[c][k] = col[c][s[k]];
        }
        __syncthreads(); /* every source of these columns read */
#pragma unroll
        for (int c = 0; c < LSK_RMOVES_CT; c++)
#pragma unroll
            for (int k = 0; k < LSK_RMOVES_K; k++)
                if (col[c] && d[k] >= 0)
                    col[c][d[k]] = v[c][k];
    }
}

/* Blocks for width columns: enough steps for every SM several times over,
 * each block then looping (its indices loaded once). */
static inline unsigned lsk_row_moves_blocks(long long width)
{
    long long steps = (width + LSK_RMOVES_CT - 1) / LSK_RMOVES_CT;
    return (unsigned)(steps < 1024 ? steps : 1024);
}

#endif
