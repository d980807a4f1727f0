/* The small-n LU of method "lu": the whole factorization of one n x n
 * matrix with partial pivoting (and, for gesv, the solve) in ONE launch of
 * one thread-block cluster (sm_90), the matrix resident in the blocks'
 * shared memory from start to end. At small n the blocked LU is latency:
 * a chain of per-column kernels, cuBLAS calls and the gaps between them;
 * here a column costs one cluster barrier.
 *
 * Layout: the columns of [A | B] are dealt round-robin over the G blocks
 * (column j lives in block j % G, local column j / G, leading dimension n).
 * B's columns ride along as extra columns, so the forward substitution
 * L Y = P B happens during the factorization, as in LAPACK's dgesv.
 *
 * Step k (right-looking, one column a step, one cluster barrier a step):
 *  - column k was factored in the previous step by warp 0 of its owner
 *    (LAPACK's idamax pivot, swap, scale by 1/pivot) and published in the
 *    owner's shared memory: multipliers, pivot row, pivot value, alternating
 *    two slots by the parity of k;
 *  - every block copies them from the owner (DSMEM) into its own buffer;
 *  - look-ahead: warp 0 of the owner of column k+1 applies step k to that
 *    column first, then factors and publishes it;
 *  - meanwhile every other warp applies step k's swap and rank-1 update to
 *    its own columns (one warp a column, so no block barrier inside);
 *  - cluster barrier: step k+1's column is published, and nobody still
 *    reads step k's slot.
 * After the last step the factors go back to A; with right-hand sides,
 * Y goes to B, and block 0 solves U X = Y by 32-column blocks, U read from
 * device memory (L2) and X kept in its shared memory.
 *
 * info is LAPACK's (first exactly zero pivot, the factorization runs on);
 * every block sees every pivot value, so all agree on it. ipiv is 1-based,
 * LAPACK's order. With info > 0 the solve is skipped and B left as it was. */
#include <cooperative_groups.h>

#include "k_batched_pivot.cuh"
#include "k_common.cuh"
#include "lu_small.h"

namespace cg = cooperative_groups;

#define LSK_LUS_WARPS (LSK_LUS_THREADS / 32)

/* The cluster barrier in two halves: arrive as soon as this thread's part
 * of the step's critical path is done, wait only before the next step. */
__device__ __forceinline__ void lus_arrive(void)
{
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void lus_wait(void)
{
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
#define LSK_LUS_NB 32 /* column block of the back substitution */

template <typename T> __device__ __forceinline__ T lus_sfmin();
template <> __device__ __forceinline__ double lus_sfmin<double>() { return 2.2250738585072014e-308; }
template <> __device__ __forceinline__ float lus_sfmin<float>() { return 1.17549435e-38f; }

/* One warp: apply step k (rows k <-> p, then rows i > k minus l_i times
 * the new row k) to column c; j < k (a column of L) is only swapped. Every
 * lane reads the two rows it needs before any lane writes. */
template <typename T>
__device__ __forceinline__ void lus_apply_step(T *c, int j, int k, int p, const T *L, int n)
{
    const int lane = threadIdx.x & 31;
    if (j < k) {
        if (p != k && lane == 0) {
            T t = c[k];
            c[k] = c[p];
            c[p] = t;
        }
        return;
    }
    const T u = c[p], akj = c[k];
    __syncwarp();
#pragma unroll 4
    for (int i = k + 1 + lane; i < n; i += 32) {
        T v = i == p ? akj : c[i];
        c[i] = v - L[i] * u;
    }
    if (lane == 0)
        c[k] = u;
    __syncwarp();
}

/* One warp: factor column k (rows k..n-1 up to date): LAPACK's pivot,
 * the swap inside the column, the scaling (dgetrf2's rule for tiny
 * pivots), the multipliers copied to pub, the pivot row and value to
 * *pp and *pv, ipiv[k]. A zero pivot leaves the column unscaled. */
template <typename T>
__device__ __forceinline__ void lus_factor_column(T *c, int k, int n, T *pub, int *pp, T *pv, int *ipiv)
{
    const int lane = threadIdx.x & 31;
    const int p = lsk_warp_pivot_row(c, k, n);
    const T ck = c[k], piv = c[p];
    const bool scale = piv != (T)0, mul = lsk_abs(piv) >= lus_sfmin<T>();
    const T r = scale ? (T)1 / piv : (T)1;
    __syncwarp();
#pragma unroll 4
    for (int i = k + 1 + lane; i < n; i += 32) {
        T v = i == p ? ck : c[i];
        if (scale)
            v = mul ? v * r : v / piv;
        c[i] = v;
        pub[i] = v;
    }
    if (lane == 0) {
        c[k] = piv;
        *pp = p;
        *pv = piv;
        ipiv[k] = p + 1;
    }
    __syncwarp();
}

/* Block 0 after the factorization: B = U^-1 B for the rhs columns, U from
 * A (device memory), rc columns of B at a time in shared memory. */
template <typename T>
__device__ void lus_back_substitute(int n, int nrhs, const T *A, int lda, T *B, int ldb, T *work,
                                    long long work_elems)
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    T *Ud = work;                             /* NB x (NB + 1) */
    T *Y = work + LSK_LUS_NB * (LSK_LUS_NB + 1); /* n x rc */
    long long fit = (work_elems - LSK_LUS_NB * (LSK_LUS_NB + 1)) / n;
    const int rc = fit < nrhs ? (int)fit : nrhs; /* >= 1: the host sized work so */
    for (int r0 = 0; r0 < nrhs; r0 += rc) {
        const int wr = nrhs - r0 < rc ? nrhs - r0 : rc;
        for (int e = tid; e < n * wr; e += LSK_LUS_THREADS)
            Y[e] = B[(long long)(e % n) + (long long)(r0 + e / n) * ldb];
        for (int c0 = (n - 1) / LSK_LUS_NB * LSK_LUS_NB; c0 >= 0; c0 -= LSK_LUS_NB) {
            const int w = n - c0 < LSK_LUS_NB ? n - c0 : LSK_LUS_NB;
            for (int e = tid; e < w * w; e += LSK_LUS_THREADS) {
                int i = e % w, j = e / w;
                Ud[i + j * (LSK_LUS_NB + 1)] = A[(long long)(c0 + i) + (long long)(c0 + j) * lda];
            }
            __syncthreads(); /* Ud loaded; Y's rows c0.. final but for this block */
            for (int c = warp; c < wr; c += LSK_LUS_WARPS) {
                T y = lane < w ? Y[c0 + lane + c * n] : (T)0;
                for (int kk = w - 1; kk >= 0; kk--) {
                    if (lane == kk)
                        y /= Ud[kk + kk * (LSK_LUS_NB + 1)];
                    const T xk = __shfl_sync(0xffffffffu, y, kk);
                    if (lane < kk)
                        y -= Ud[lane + kk * (LSK_LUS_NB + 1)] * xk;
                }
                if (lane < w)
                    Y[c0 + lane + c * n] = y;
            }
            __syncthreads(); /* X's rows c0 .. c0+w known */
            for (int e = tid; e < c0 * wr; e += LSK_LUS_THREADS) {
                const int i = e % c0, c = e / c0;
                T s = Y[i + c * n];
                for (int kk = 0; kk < w; kk++)
                    s -= A[(long long)i + (long long)(c0 + kk) * lda] * Y[c0 + kk + c * n];
                Y[i + c * n] = s;
            }
            __syncthreads(); /* Ud and the rows above are free for the next block */
        }
        for (int e = tid; e < n * wr; e += LSK_LUS_THREADS)
            B[(long long)(e % n) + (long long)(r0 + e / n) * ldb] = Y[e];
        __syncthreads();
    }
}

template <typename T>
__global__ void __launch_bounds__(LSK_LUS_THREADS)
    lsk_lu_small_kernel(int n, int nrhs, T *A, int lda, T *B, int ldb, int *ipiv, int *info,
                        long long smem_elems)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap(); /* clusters need sm_90; the host never launches it below that */
#else
    cg::cluster_group cl = cg::this_cluster();
    extern __shared__ __align__(16) unsigned char lus_raw[];
    __shared__ int pub_p[2], s_p[2];
    __shared__ T pub_v[2], s_pv[2];
    const int G = (int)cl.num_blocks(), b = (int)cl.block_rank();
    const int tid = threadIdx.x, warp = tid >> 5, ncol = n + nrhs;
    const int nl = b < ncol ? (ncol - b + G - 1) / G : 0; /* this block's columns */
    const int nlmax = (ncol + G - 1) / G;
    T *M = (T *)lus_raw;                 /* nlmax x n, column-major, ld n */
    T *pub = M + (long long)nlmax * n;   /* 2 x n: published multipliers */
    T *Lbuf = pub + 2LL * n;             /* 2 x n: the step's multipliers, local */

    for (long long e = tid; e < (long long)nl * n; e += LSK_LUS_THREADS) {
        const int jl = (int)(e / n), i = (int)(e % n), j = b + jl * G;
        M[e] = j < n ? A[(long long)i + (long long)j * lda]
                     : B[(long long)i + (long long)(j - n) * ldb];
    }
    __syncthreads();
    if (b == 0 && warp == 0) /* column 0 is block 0's local column 0 */
        lus_factor_column(M, 0, n, pub, &pub_p[0], &pub_v[0], ipiv);
    lus_arrive();

    /* Step k: wait for column k's publication, copy it, arrive as soon as
     * the look-ahead is published, then update the own columns while the
     * other blocks get there. Why the halves are safe:
     *  - a slot of pub is rewritten two steps after it was read, by a warp
     *    past the wait that needs every thread's arrive, which follows its
     *    reads;
     *  - Lbuf, s_p and s_pv alternate by step, and are rewritten two steps
     *    on, after the __syncthreads of the step between, which every warp
     *    passes only once done with its update;
     *  - the look-ahead column was updated by its own block's warps in the
     *    step before: that __syncthreads again. */
    int first_zero = 0;
    for (int k = 0; k < n; k++) {
        const int owner = k % G, slot = k & 1;
        T *L = Lbuf + (long long)slot * n;
        lus_wait();
        const T *src = cl.map_shared_rank(pub + (long long)slot * n, owner);
        for (int i = k + 1 + tid; i < n; i += LSK_LUS_THREADS)
            L[i] = src[i];
        if (tid == 0) {
            s_p[slot] = *cl.map_shared_rank(&pub_p[slot], owner);
            s_pv[slot] = *cl.map_shared_rank(&pub_v[slot], owner);
        }
        __syncthreads();
        const int p = s_p[slot];
        if (s_pv[slot] == (T)0 && first_zero == 0)
            first_zero = k + 1;
        const int next = k + 1 < n && (k + 1) % G == b ? k + 1 : -1;
        if (next >= 0 && warp == 0) {
            T *c = M + (long long)(next / G) * n;
            lus_apply_step(c, next, k, p, L, n);
            lus_factor_column(c, next, n, pub + (long long)(next & 1) * n, &pub_p[next & 1],
                              &pub_v[next & 1], ipiv);
        }
        lus_arrive();
        for (int jl = warp; jl < nl; jl += LSK_LUS_WARPS) {
            const int j = b + jl * G;
            if (j != k && j != next) /* column k: swapped when it was factored */
                lus_apply_step(M + (long long)jl * n, j, k, p, L, n);
        }
    }
    lus_wait();      /* nobody reads this block's pub any more */
    __syncthreads(); /* every warp's last update done */

    for (long long e = tid; e < (long long)nl * n; e += LSK_LUS_THREADS) {
        const int jl = (int)(e / n), i = (int)(e % n), j = b + jl * G;
        if (j < n)
            A[(long long)i + (long long)j * lda] = M[e];
        else if (first_zero == 0) /* LAPACK's dgesv leaves B alone for a singular A */
            B[(long long)i + (long long)(j - n) * ldb] = M[e];
    }
    if (b == 0 && tid == 0)
        *info = first_zero;
    if (nrhs == 0 || first_zero != 0) /* the same in every block */
        return;
    __threadfence(); /* U and Y in device memory before block 0 reads them */
    cl.sync();
    if (b != 0)
        return;
    lus_back_substitute(n, nrhs, (const T *)A, lda, B, ldb, M, smem_elems);
#endif
}

template <typename T>
static cudaError_t lus_configure(int G, size_t smem)
{
    cudaError_t e = cudaFuncSetAttribute(lsk_lu_small_kernel<T>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e == cudaSuccess && G > 8)
        e = cudaFuncSetAttribute(lsk_lu_small_kernel<T>,
                                 cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    return e;
}

static void lus_launch_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, int G,
                              size_t smem, cudaStream_t s)
{
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)G;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    *cfg = cudaLaunchConfig_t{};
    cfg->gridDim = dim3((unsigned)G);
    cfg->blockDim = dim3(LSK_LUS_THREADS);
    cfg->dynamicSmemBytes = smem;
    cfg->stream = s;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}

template <typename T>
static cudaError_t lu_small(int n, int nrhs, T *dA, int lda, T *dB, int ldb, int *d_ipiv,
                            int *d_info, int G, size_t smem, cudaStream_t s)
{
    cudaError_t e = lus_configure<T>(G, smem);
    if (e != cudaSuccess)
        return e;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[1];
    lus_launch_config(&cfg, attr, G, smem, s);
    return cudaLaunchKernelEx(&cfg, lsk_lu_small_kernel<T>, n, nrhs, dA, lda, dB, ldb, d_ipiv,
                              d_info, (long long)(smem / sizeof(T)));
}
LSK_DEFINE(LSK_LU_SMALL_SIG, lu_small, (n, nrhs, dA, lda, dB, ldb, d_ipiv, d_info, G, smem, s))

/* The largest cluster (16, 8, 4, 2 or 1 blocks) that runs with smem bytes
 * of dynamic shared memory a block here; 0 before sm_90. */
template <typename T>
static int lu_small_max_blocks(size_t smem)
{
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        major < 9)
        return 0;
    for (int G = LSK_LUS_MAX_BLOCKS; G >= 1; G /= 2) {
        int clusters = 0;
        cudaError_t e = lus_configure<T>(G, smem);
        if (e == cudaSuccess) {
            cudaLaunchConfig_t cfg;
            cudaLaunchAttribute attr[1];
            lus_launch_config(&cfg, attr, G, smem, 0);
            e = cudaOccupancyMaxActiveClusters(&clusters, lsk_lu_small_kernel<T>, &cfg);
        }
        if (e != cudaSuccess)
            (void)cudaGetLastError();
        else if (clusters >= 1)
            return G;
    }
    return 0;
}
LSK_DEFINE(LSK_LU_SMALL_MAX_BLOCKS_SIG, lu_small_max_blocks, (smem))
