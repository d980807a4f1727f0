/* The Hopper leaf of method "lu": the same leaf as k_panel_coop.cu (a slice
 * of the panel's rows per block, in shared memory; one barrier per column),
 * but the blocks form ONE thread-block cluster (sm_90), so the per-column
 * barrier is the cluster's hardware barrier instead of a grid-wide one, and
 * the candidates are read from the other blocks' shared memory (DSMEM)
 * instead of through L2. A cluster holds at most LSK_CLUSTER_MAX blocks,
 * which bounds the rows a leaf can have (the caller falls back to the
 * cooperative leaf for taller ones).
 *
 * Per column: every block publishes its best candidate (value, row, the
 * row's w entries) and, if it holds it, the diagonal row, in its own shared
 * memory, alternating two halves by column parity; cluster barrier; warp 0
 * of every block reduces the G candidates the same way; the pivot row and
 * the diagonal row are copied from their owners; then swap and eliminate.
 * Defines: lsk_panel_cluster_shape_d, lsk_panel_cluster_shape_s,
 *   lsk_panel_cluster_d, lsk_panel_cluster_s, lsk_panel_cluster_usable_d,
 *   lsk_panel_cluster_usable_s, lsk_reg_cluster_d, lsk_reg_cluster_s */
#include <cooperative_groups.h>
#include <limits.h>

#include "cuda/common/k_common.cuh"
#include "cuda/lu/k_panel_leaf.cuh"
#include "cuda/lu/k_lu.h"

namespace cg = cooperative_groups;

template <typename T>
__global__ void __launch_bounds__(LSK_COOP_THREADS)
    lsk_panel_cluster_kernel(int m, int j0, int w, T *A, int lda, int *ipiv, int *info, int R,
                             int *pairs)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap(); /* clusters need sm_90; the host never launches it below that */
#else
    cg::cluster_group cl = cg::this_cluster();
    extern __shared__ unsigned char lsk_cluster_smem[];
    T *s = (T *)lsk_cluster_smem; /* R x w, column-major: s[c*R + r] */
    __shared__ T pub_row[2][LSK_COOP_MAXW]; /* this block's candidate row */
    __shared__ T pub_k[2][LSK_COOP_MAXW];   /* the diagonal row, if held here */
    __shared__ T pub_v[2];
    __shared__ int pub_r[2];
    __shared__ T pivrow[LSK_COOP_MAXW], kbuf[LSK_COOP_MAXW];
    __shared__ T red_v[LSK_COOP_THREADS / 32];
    __shared__ int red_r[LSK_COOP_THREADS / 32];
    __shared__ T win_v;
    __shared__ int win_r;
    const int G = (int)cl.num_blocks(), b = (int)cl.block_rank();
    const int lane = threadIdx.x & 31;
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
            pub_v[half] = v;
            pub_r[half] = row;
        }
        if (row != INT_MAX && threadIdx.x < w)
            pub_row[half][threadIdx.x] = s[threadIdx.x * R + (row - r0)];
        if (gk >= r0 && gk < r0 + nr && threadIdx.x < w)
            pub_k[half][threadIdx.x] = s[threadIdx.x * R + (gk - r0)];
        /* A block cannot overwrite this half before every block has passed
         * the next column's barrier, i.e. finished reading it. */
        cl.sync();

        if (threadIdx.x < 32) {
            T bv = (T)-1;
            int brow = INT_MAX;
            if (lane < G) {
                int orow = *cl.map_shared_rank(&pub_r[half], lane);
                if (orow != INT_MAX) {
                    brow = orow;
                    bv = *cl.map_shared_rank(&pub_v[half], lane);
                }
            }
            /* (largest value, then smallest row): a total order, so every
             * block picks the same winner */
            for (int off = 16; off > 0; off >>= 1) {
                T ov = __shfl_xor_sync(0xffffffffu, bv, off);
                int orow = __shfl_xor_sync(0xffffffffu, brow, off);
                if (ov > bv || (ov == bv && orow < brow)) {
                    bv = ov;
                    brow = orow;
                }
            }
            if (lane == 0) {
                win_v = bv;
                win_r = brow;
            }
        }
        __syncthreads();
        const T bv = win_v;
        const int brow = win_r;
        if (brow == INT_MAX || bv == (T)0) {
            /* LAPACK: an exactly zero column gets ipiv = k and no scaling */
            if (b == 0 && threadIdx.x == 0) {
                ipiv[gk] = gk + 1;
                if (*info == 0)
                    *info = gk + 1;
            }
            continue;
        }
        if (threadIdx.x < w) {
            pivrow[threadIdx.x] = cl.map_shared_rank(pub_row[half], (brow - j0) / R)[threadIdx.x];
            kbuf[threadIdx.x] = cl.map_shared_rank(pub_k[half], (gk - j0) / R)[threadIdx.x];
        }
        if (b == 0 && threadIdx.x == 0)
            ipiv[gk] = brow + 1;
        __syncthreads();
        lsk_leaf_eliminate(s, R, nr, r0, k, w, gk, brow, (const T *)pivrow, (const T *)kbuf);
    }
    /* no block may leave while another can still read its shared memory */
    cl.sync();

    for (int idx = threadIdx.x; idx < nr * w; idx += blockDim.x) {
        int c = idx / nr, r = idx - c * nr;
        A[(long long)(r0 + r) + (long long)(j0 + c) * lda] = s[c * R + r];
    }
    if (b != 0)
        return;
    __syncthreads();
    if (threadIdx.x < 32)
        lsk_leaf_moves(ipiv, j0, w, pairs);
#endif
}

template <typename T>
static int panel_cluster_shape(int rows, int w, int *R)
{
    return lsk_leaf_shape(sizeof(T), rows, w, LSK_CLUSTER_MAX, LSK_CLUSTER_MAX,
                          LSK_CLUSTER_MAX_SMEM, R);
}
LSK_DEFINE(LSK_PANEL_CLUSTER_SHAPE_SIG, panel_cluster_shape, (rows, w, R))

template <typename T>
static cudaError_t panel_cluster(int m, int ncols, int j0, int w, T *dA, int lda, int *d_ipiv,
                                 int *d_info, int *d_pairs, int G, int R, cudaStream_t s)
{
    size_t smem = (size_t)R * w * sizeof(T);
    cudaError_t e = cudaFuncSetAttribute(lsk_panel_cluster_kernel<T>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess)
        return e;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[1];
    lsk_one_cluster(&cfg, attr, G, LSK_COOP_THREADS, smem, s);
    e = cudaLaunchKernelEx(&cfg, lsk_panel_cluster_kernel<T>, m, j0, w, dA, lda, d_ipiv, d_info,
                           R, d_pairs);
    if (e != cudaSuccess)
        return e;
    return lsk_typed<T>(lsk_swap_outside_d, lsk_swap_outside_s)(ncols, j0, w, dA, lda, d_pairs, s);
}
LSK_DEFINE(LSK_PANEL_CLUSTER_SIG, panel_cluster,
           (m, ncols, j0, w, dA, lda, d_ipiv, d_info, d_pairs, G, R, s))

/* Can this device run the largest cluster the leaf uses (LSK_CLUSTER_MAX
 * blocks with the largest slice)? sm_90 and the occupancy API's word. */
template <typename T>
static int panel_cluster_usable(void)
{
    int dev = 0, major = 0, clusters = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        major < 9)
        return 0;
    cudaError_t e = cudaFuncSetAttribute(lsk_panel_cluster_kernel<T>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)LSK_CLUSTER_MAX_SMEM);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[1];
    lsk_one_cluster(&cfg, attr, LSK_CLUSTER_MAX, LSK_COOP_THREADS, LSK_CLUSTER_MAX_SMEM, 0);
    e = cudaOccupancyMaxActiveClusters(&clusters, lsk_panel_cluster_kernel<T>, &cfg);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return clusters >= 1;
}
LSK_DEFINE(LSK_PANEL_CLUSTER_USABLE_SIG, panel_cluster_usable, ())

/* Dynamic shared memory of the first (largest) cluster leaf at size n. */
template <typename T>
static size_t cluster_smem(int n, int nrhs)
{
    int R = 0;
    (void)nrhs;
    return panel_cluster_shape<T>(n, LSK_COOP_MAXW, &R) ? (size_t)R * LSK_COOP_MAXW * sizeof(T)
                                                        : 0;
}

/* Static shared memory as the compiler lays it out: the published rows
 * (2 halves x 2), pivrow and kbuf, pub_v/pub_r, the reduction arrays, the
 * winner, and the move list (2 x 2w ints and a count), rounded to 16. */
static size_t lsk_cluster_static_smem(size_t es)
{
    size_t b = es * (6 * LSK_COOP_MAXW + 2 + LSK_COOP_THREADS / 32 + 1) +
               sizeof(int) * (2 + LSK_COOP_THREADS / 32 + 1 + 4 * LSK_COOP_MAXW + 1);
    return (b + 15) / 16 * 16;
}

template <typename T>
static int reg_cluster(ls_cuda_kernel_desc *out)
{
    int count = 0;
    LSK_REG("panel_cluster", "lu", lsk_panel_cluster_kernel<T>, LSK_COOP_THREADS,
            lsk_cluster_static_smem(sizeof(T)));
    out[count - 1].dynamic_smem = cluster_smem<T>;
    return count;
}
LSK_DEFINE(LSK_REG_CLUSTER_SIG, reg_cluster, (out))
