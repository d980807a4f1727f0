/* The latency-bound heart of method "lu": one panel (rows [j0, m), columns
 * [j0, j0+w), w <= LSK_PUSH_MAXW) factored by ONE thread-block cluster of up
 * to 16 blocks (sm_90), the panel held in the blocks' shared memory.
 *
 * Per column the critical path is one split cluster barrier and no remote
 * load:
 *  - every block PUSHES its best candidate (value, row, the row's entries and
 *    its last multiplier) into every block's inbox before arriving, so after
 *    the wait all candidates are local;
 *  - between arrive and wait the block applies the previous column's rank-1
 *    update to its rows (hiding the barrier), except on the candidate row it
 *    pushed, which the receivers correct with that multiplier instead;
 *  - rows are never swapped inside the panel: a pivot row simply stops being
 *    updated; positions are tracked (LAPACK's interchange order) and rows are
 *    written back where LAPACK's swaps would have put them.
 * Each thread owns whole rows (r = tid + i*threads), so the update of one
 * column and the multipliers of the next need no block barrier.
 * Defines: lsk_panel_push_shape_d, lsk_panel_push_shape_s, lsk_panel_push_d,
 *   lsk_panel_push_s, lsk_apply_moves_d, lsk_apply_moves_s,
 *   lsk_panel_push_max_blocks_d, lsk_panel_push_max_blocks_s */
#include <cooperative_groups.h>

#include "cuda/common/k_common.cuh"
#include "cuda/lu/k_lu.h"

namespace cg = cooperative_groups;

#ifndef LSK_PUSH_THREADS
#define LSK_PUSH_THREADS 512
#endif

/* -DLSK_PUSH_PROFILE: block 0 / thread 0 prints the cycles of each phase
 * per column at the end of every leaf (for tuning only). */
#ifdef LSK_PUSH_PROFILE
#include <cstdio>
#define LSK_PROF_MARK(i)                      \
    do {                                      \
        long long now_ = clock64();           \
        prof_[i] += now_ - prof_t_;           \
        prof_t_ = now_;                       \
    } while (0)
#else
#define LSK_PROF_MARK(i) \
    do {                 \
    } while (0)
#endif
#define LSK_PUSH_WARPS (LSK_PUSH_THREADS / 32)

__device__ __forceinline__ void lsk_cluster_arrive(void)
{
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void lsk_cluster_wait(void)
{
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* (larger key, then smaller row) wins: a total order, so every block and
 * every thread picks the same winner. Rows < 0 never win. Keys are never
 * NaN (lsk_key). */
template <typename T>
__device__ __forceinline__ bool lsk_better(T v, int r, T bv, int br)
{
    return r >= 0 && (br < 0 || v > bv || (v == bv && r < br));
}

/* The best (value, row) over the warp, in every lane. */
template <typename T>
__device__ __forceinline__ void lsk_warp_best(T &v, int &r)
{
    for (int off = 16; off > 0; off >>= 1) {
        T ov = __shfl_xor_sync(0xffffffffu, v, off);
        int orr = __shfl_xor_sync(0xffffffffu, r, off);
        if (lsk_better(ov, orr, v, r)) {
            v = ov;
            r = orr;
        }
    }
}

/* The pivot search's key for x: |x|, except that a NaN, as in LAPACK's
 * idamax, loses to every number (-1/2) unless it sits at the diagonal
 * position, where idamax starts and is never beaten (+infinity). */
template <typename T>
__device__ __forceinline__ T lsk_key(T x, bool diagonal)
{
    T a = lsk_abs(x);
    return a == a ? a : (diagonal ? (T)HUGE_VAL : (T)-0.5);
}

/* Shared memory (dynamic): the panel slice s (R x w, column-major), the
 * inbox (2 slots x G candidates x (w + 3) values: entries, multiplier,
 * signed pivot value, its reciprocal), the inbox rows (2 x G ints), each row's pivot step
 * (R ints). */
template <typename T>
__global__ void __launch_bounds__(LSK_PUSH_THREADS, 1)
    lsk_panel_push_kernel(int m, int j0, int w, T *A, int lda, int *ipiv, int *info, int R,
                          int *moves)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap(); /* clusters need sm_90; the host never launches it below that */
#else
    cg::cluster_group cl = cg::this_cluster();
    extern __shared__ __align__(16) unsigned char lsk_push_smem[];
    const int G = (int)cl.num_blocks(), b = (int)cl.block_rank();
    const int W2 = w + 3, tid = threadIdx.x, NT = blockDim.x;
    T *s = (T *)lsk_push_smem;
    T *inbox = s + (size_t)R * w;
    int *inrow = (int *)(inbox + 2 * G * W2);
    int *pivstep = inrow + 2 * G;
    __shared__ T prow[2][LSK_PUSH_MAXW];
    __shared__ T red_v[LSK_PUSH_WARPS];
    __shared__ int red_r[LSK_PUSH_WARPS];
    /* interchange bookkeeping (LAPACK order), kept by thread 0 of each block */
    __shared__ int atpos[LSK_PUSH_MAXW]; /* panel row at position p < w */
    __shared__ int posof[LSK_PUSH_MAXW]; /* position of panel row r < w */
    __shared__ int ipl[LSK_PUSH_MAXW], perm[LSK_PUSH_MAXW];

    const int M = m - j0, rb = b * R;
    int nr = M - rb;
    nr = nr < 0 ? 0 : (nr > R ? R : nr);

    for (int idx = tid; idx < nr * w; idx += NT) {
        int c = idx / nr, r = idx - c * nr;
        s[c * R + r] = A[(long long)(j0 + rb + r) + (long long)(j0 + c) * lda];
    }
    for (int r = tid; r < nr; r += NT)
        pivstep[r] = -1;
    if (tid < w) {
        prow[0][tid] = prow[1][tid] = (T)0;
        atpos[tid] = posof[tid] = tid;
    }
    __syncthreads();

    /* this thread's candidate for column 0 */
    T cv = (T)-1;
    int cr = -1;
    for (int r = tid; r < nr; r += NT) {
        T a = lsk_key(s[r], rb + r == 0);
        if (lsk_better(a, rb + r, cv, cr < 0 ? -1 : rb + cr)) {
            cv = a;
            cr = r;
        }
    }
    cl.sync(); /* every block is running before anyone writes to its inbox */

    /* (c)'s fixed (row, first column, column stride) per thread, so that
     * the loop divides nothing: short slices spread a row over threads */
    const int kc = nr > 0 && nr <= NT ? NT / nr : 1;
    const int c_row = nr > 0 && nr <= NT ? tid % nr : tid, c_col = nr > 0 && nr <= NT ? tid / nr : 0;
    const bool c_on = nr > 0 && (nr <= NT ? tid < kc * nr : true);
    unsigned pmask = 0; /* bit i: row tid + i*NT of (h) is a pivot row */
    bool pending = false; /* a rank-1 update of step j-1 still owed to columns > j */
    const int keeper = NT - 1; /* keeps the interchange bookkeeping, off the critical path */
#ifdef LSK_PUSH_PROFILE
    long long prof_[7] = {0, 0, 0, 0, 0, 0, 0}, prof_t_ = clock64();
#endif
    for (int j = 0; j < w; j++) {
        const int slot = j & 1;
        /* (a) the block's candidate: warp shuffles, one barrier, then every
         * warp reduces the warps' results itself */
        T v = cv;
        int gr = cr < 0 ? -1 : rb + cr;
        lsk_warp_best(v, gr);
        if ((tid & 31) == 0) {
            red_v[tid >> 5] = v;
            red_r[tid >> 5] = gr;
        }
        __syncthreads();
        {
            const int q = tid & 31;
            v = q < (NT >> 5) ? red_v[q] : (T)-1;
            gr = q < (NT >> 5) ? red_r[q] : -1;
            lsk_warp_best(v, gr);
        }
        const int br = gr < 0 ? -1 : gr - rb; /* local row of the block's candidate */
        LSK_PROF_MARK(0);
        /* push it: entries j..w-1 (those right of j+1 still owe step j-1's
         * update), its multiplier of step j-1, the signed value and its
         * reciprocal, the row */
        if (br >= 0 && (tid >> 5) < G) {
            /* warp g writes to block g: lanes over the entries */
            T *dst = cl.map_shared_rank(inbox, tid >> 5) + (size_t)(slot * G + b) * W2;
            for (int k = (tid & 31); k < w - j + 3; k += 32) {
                if (k < w - j)
                    dst[j + k] = s[(j + k) * R + br];
                else if (k == w - j)
                    dst[w] = j > 0 ? s[(j - 1) * R + br] : (T)0;
                else if (k == w - j + 1)
                    dst[w + 1] = s[j * R + br];
                else
                    dst[w + 2] = (T)1 / s[j * R + br];
            }
        }
        if (tid < G)
            cl.map_shared_rank(inrow, tid)[slot * G + b] = gr;
        LSK_PROF_MARK(1);
        lsk_cluster_arrive();
        LSK_PROF_MARK(2);

        /* (c) step j-1's update of columns > j, hidden behind the barrier;
         * spread over (row, column) pairs: a block may hold few rows */
        const T *pp = prow[slot ^ 1];
        if (pending && c_on) {
            for (int r = c_row; r < nr; r += NT) {
                if (pivstep[r] >= 0 || r == br)
                    continue;
                const T l = s[(j - 1) * R + r];
                for (int c = j + 1 + c_col; c < w; c += kc)
                    s[c * R + r] -= l * pp[c];
            }
        }
        LSK_PROF_MARK(3);
        lsk_cluster_wait();
        LSK_PROF_MARK(4);

        /* (e) the winner, from the local inbox: lane g reads candidate g */
        T wv = (T)-1;
        int wr = -1, wg = 0;
        {
            /* rows and blocks packed: row*32 + block orders as the row does */
            const int g = tid & 31;
            int rg = -1;
            if (g < G) {
                int r = inrow[slot * G + g];
                if (r >= 0) {
                    wv = lsk_key(inbox[(size_t)(slot * G + g) * W2 + w + 1], r == atpos[j]);
                    rg = r * 32 + g;
                }
            }
            lsk_warp_best(wv, rg);
            if (rg >= 0) {
                wr = rg >> 5;
                wg = rg & 31;
            }
        }
        const bool zero = wr < 0 || wv == (T)0; /* exactly zero: LAPACK's info */
        const T *win = inbox + (size_t)(slot * G + wg) * W2;
        const T wl = zero ? (T)0 : win[w];
        if (zero)
            wr = atpos[j]; /* LAPACK: no interchange, no scaling */
        /* the row at position j+1 once this step's interchange is done (read
         * here: the keeper rewrites the tables after the barrier below) */
        int nxt = -1;
        if (j + 1 < w) {
            const int pw = zero ? j : (wr < w ? posof[wr] : wr);
            nxt = pw == j + 1 ? atpos[j] : atpos[j + 1];
        }
        /* the held-back row gets its update; (f) the pivot row, corrected
         * for the update its owner held back */
        if (pending && br >= 0 && tid > j && tid < w)
            s[tid * R + br] -= s[(j - 1) * R + br] * pp[tid];
        if (tid >= j && tid < w)
            prow[slot][tid] = zero ? (T)0 : (tid == j ? win[w + 1] : win[tid] - wl * pp[tid]);
        __syncthreads(); /* (c) and the held-back row are seen by every row's owner */
        LSK_PROF_MARK(5);

        /* (g) bookkeeping, by one thread while the others eliminate */
        if (tid == keeper) {
            int pw = zero ? j : (wr < w ? posof[wr] : wr);
            int x = atpos[j];
            ipl[j] = pw;
            perm[j] = wr;
            atpos[j] = wr;
            posof[x] = pw; /* x < w: rows at positions < w started there */
            if (pw < w)
                atpos[pw] = x;
            if (wr < w)
                posof[wr] = j;
            if (zero && b == 0 && *info == 0)
                *info = j0 + j + 1;
        }
        /* (h) multipliers of column j, column j+1 updated, next candidates */
        cv = (T)-1;
        cr = -1;
        const int wloc = wr - rb; /* the pivot row, if this block holds it */
        const T piv = zero ? (T)1 : win[w + 1];
        /* LAPACK's rule: multiply by the reciprocal unless it would overflow */
        const bool recip = lsk_abs(piv) >= lsk_safe_min<T>();
        const T rp = zero ? (T)0 : win[w + 2];
        const T pn = zero || j + 1 >= w ? (T)0 : win[j + 1] - wl * pp[j + 1];
        for (int r = tid, i = 0; r < nr; r += NT, i++) {
            if (r == wloc) {
                pivstep[r] = j;
                pmask |= 1u << i;
                continue;
            }
            if (pmask & (1u << i))
                continue;
            T l = s[j * R + r];
            if (!zero) {
                l = recip ? l * rp : l / piv;
                s[j * R + r] = l;
            }
            if (j + 1 < w) {
                T a = s[(j + 1) * R + r];
                if (!zero) {
                    a -= l * pn;
                    s[(j + 1) * R + r] = a;
                }
                a = lsk_key(a, rb + r == nxt);
                if (lsk_better(a, rb + r, cv, cr < 0 ? -1 : rb + cr)) {
                    cv = a;
                    cr = r;
                }
            }
        }
        pending = !zero;
        LSK_PROF_MARK(6);
    }
#ifdef LSK_PUSH_PROFILE
    if (b == 0 && tid == 0)
        printf("push-prof j0=%d M=%d w=%d G=%d R=%d cycles/col: reduce %lld push %lld arrive %lld "
               "update %lld wait %lld winner %lld elim %lld\n",
               j0, M, w, G, R, prof_[0] / w, prof_[1] / w, prof_[2] / w, prof_[3] / w,
               prof_[4] / w, prof_[5] / w, prof_[6] / w);
#endif
    __syncthreads();

    /* rows go where LAPACK's interchanges put them */
    for (int idx = tid; idx < nr * w; idx += NT) {
        int c = idx / nr, r = idx - c * nr, pr = rb + r;
        int fp = pivstep[r] >= 0 ? pivstep[r] : (pr < w ? posof[pr] : pr);
        A[(long long)(j0 + fp) + (long long)(j0 + c) * lda] = s[c * R + r];
    }
    if (b == 0 && tid == 0) {
        int n_moves = 0;
        for (int j = 0; j < w; j++) {
            ipiv[j0 + j] = j0 + ipl[j] + 1;
            if (perm[j] != j) {
                moves[1 + 2 * n_moves] = j0 + j;
                moves[2 + 2 * n_moves] = j0 + perm[j];
                n_moves++;
            }
        }
        /* after w steps positions < w hold pivots: a row r < w still at
         * a position >= w was moved out there */
        for (int r = 0; r < w; r++)
            if (posof[r] >= w) {
                moves[1 + 2 * n_moves] = j0 + posof[r];
                moves[2 + 2 * n_moves] = j0 + r;
                n_moves++;
            }
        moves[0] = n_moves;
    }
#endif
}

/* One warp per column outside [j0, j0+w): read every moved row, then write
 * (moves = {count, (dst, src)...}, at most 2w pairs). */
template <typename T>
__global__ void lsk_push_moves_kernel(int ncols, int j0, int w, T *A, int lda, const int *moves)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (warp >= ncols - w)
        return;
    int c = warp < j0 ? warp : warp + w, cnt = moves[0];
    T *col = A + (long long)c * lda;
    T v[LSK_PUSH_MAXW * 2 / 32];
    int d[LSK_PUSH_MAXW * 2 / 32];
#pragma unroll
    for (int q = 0; q < LSK_PUSH_MAXW * 2 / 32; q++) {
        int e = lane + 32 * q;
        d[q] = e < cnt ? moves[1 + 2 * e] : -1;
        v[q] = e < cnt ? col[moves[2 + 2 * e]] : (T)0;
    }
    __syncwarp();
#pragma unroll
    for (int q = 0; q < LSK_PUSH_MAXW * 2 / 32; q++)
        if (d[q] >= 0)
            col[d[q]] = v[q];
}

static size_t lsk_push_smem_bytes(size_t es, int G, int R, int w)
{
    return es * ((size_t)R * w + 2 * (size_t)G * (w + 3)) + sizeof(int) * (2 * (size_t)G + R);
}

/* Blocks G and rows per block R for a panel of `rows` x w; 0 when it does
 * not fit G_max blocks' shared memory. */
template <typename T>
static int panel_push_shape(int rows, int w, int G_max, size_t smem_max, int *R)
{
    size_t es = sizeof(T);
    if (w < 1 || w > LSK_PUSH_MAXW || rows < 1 || G_max < 1)
        return 0;
    if (G_max > LSK_PUSH_WARPS) /* warp g pushes to block g */
        G_max = LSK_PUSH_WARPS;
    /* fewer blocks for short panels: a block per ~32 rows, at least 2 */
    int G = (rows + 31) / 32;
    G = G < 2 ? 2 : (G > G_max ? G_max : G);
    int r = (rows + G - 1) / G;
    r |= 1; /* an odd stride: a row's entries fall in different banks */
    if (lsk_push_smem_bytes(es, G, r, w) > smem_max)
        return 0;
    *R = r;
    return G;
}
LSK_DEFINE(LSK_PANEL_PUSH_SHAPE_SIG, panel_push_shape, (rows, w, G_max, smem_max, R))

template <typename T>
static cudaError_t lsk_push_config(int G, size_t smem)
{
    cudaError_t e = cudaFuncSetAttribute(lsk_panel_push_kernel<T>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e == cudaSuccess && G > 8)
        e = cudaFuncSetAttribute(lsk_panel_push_kernel<T>,
                                 cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    return e;
}

template <typename T>
static cudaError_t panel_push(int m, int ncols, int j0, int w, T *dA, int lda, int *d_ipiv,
                              int *d_info, int *d_moves, int G, int R, cudaStream_t s)
{
    size_t smem = lsk_push_smem_bytes(sizeof(T), G, R, w);
    cudaLaunchConfig_t cfg; /* attributes set once by lsk_panel_push_max_blocks */
    cudaLaunchAttribute attr[1];
    lsk_one_cluster(&cfg, attr, G, LSK_PUSH_THREADS, smem, s);
    cudaError_t e = cudaLaunchKernelEx(&cfg, lsk_panel_push_kernel<T>, m, j0, w, dA, lda, d_ipiv,
                                       d_info, R, d_moves);
    if (e != cudaSuccess)
        return e;
    if (ncols > w) {
        const int threads = 256;
        lsk_push_moves_kernel<T><<<lsk_blocks((long long)(ncols - w) * 32, threads), threads, 0,
                                   s>>>(ncols, j0, w, dA, lda, d_moves);
    }
    return cudaGetLastError();
}
LSK_DEFINE(LSK_PANEL_PUSH_SIG, panel_push,
           (m, ncols, j0, w, dA, lda, d_ipiv, d_info, d_moves, G, R, s))

template <typename T>
static cudaError_t apply_moves(int ncols, int j0, int w, T *dA, int lda, const int *d_moves,
                               cudaStream_t s)
{
    const int threads = 256;
    if (ncols <= w)
        return cudaSuccess;
    lsk_push_moves_kernel<T><<<lsk_blocks((long long)(ncols - w) * 32, threads), threads, 0, s>>>(
        ncols, j0, w, dA, lda, d_moves);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_APPLY_MOVES_SIG, apply_moves, (ncols, j0, w, dA, lda, d_moves, s))

/* The largest cluster (16, else 8, else 0 blocks) that can run with smem
 * bytes of dynamic shared memory per block on this device. */
template <typename T>
static int panel_push_max_blocks(size_t smem)
{
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        major < 9)
        return 0;
    for (int G = 16; G >= 8; G /= 2) {
        int clusters = 0;
        cudaError_t e = lsk_push_config<T>(G, smem);
        if (e == cudaSuccess) {
            cudaLaunchConfig_t cfg;
            cudaLaunchAttribute attr[1];
            lsk_one_cluster(&cfg, attr, G, LSK_PUSH_THREADS, smem, 0);
            e = cudaOccupancyMaxActiveClusters(&clusters, lsk_panel_push_kernel<T>, &cfg);
        }
        if (e != cudaSuccess)
            cudaGetLastError();
        else if (clusters >= 1)
            return G;
    }
    return 0;
}
LSK_DEFINE(LSK_PANEL_PUSH_MAX_BLOCKS_SIG, panel_push_max_blocks, (smem))
