/* The small-n LU of method "lu": the whole factorization of one n x n
 * matrix with partial pivoting (and, for gesv, the solve) in ONE launch of
 * one thread-block cluster (sm_90). At small n the blocked LU is latency:
 * a chain of per-column kernels, cuBLAS calls and the gaps between them;
 * here a panel of 32 columns costs one cluster barrier, and a column of
 * the panel one block barrier.
 *
 * Layout: [A | B] in column blocks of NB = 32 columns, dealt round-robin
 * over the G blocks of the cluster (column block jb belongs to cluster
 * block jb % G). Where they fit, a block holds its column blocks in its
 * shared memory (slot jb / G, leading dimension n) from the first load to
 * the last store, and B's columns ride along as extra columns, so the
 * forward substitution L Y = P B happens during the factorization, as in
 * LAPACK's dgesv. Where they do not (FP64 above n = 512, FP32 above about
 * 800), the kernel works in place on A's columns, which L2 holds (n <=
 * 1024 is at most 8 MB), and factors only.
 *
 * Right-looking blocked LU with a look-ahead of one panel. Step k:
 *  - panel k was factored in the previous step by its owner and published:
 *    the interchanges as a list of moved rows and its first zero pivot in
 *    the owner's shared memory (read through distributed shared memory),
 *    its columns (L11, L21) in A, read through L2;
 *  - look-ahead: the owner of panel k+1 updates that block with panel k,
 *    factors it and publishes it, then arrives at the cluster barrier;
 *  - every other block arrives at once and updates its own blocks right
 *    of panel k (row interchanges, L11^-1 on the panel's rows, the GEMM
 *    update of the rows below), so the update of the rest overlaps the
 *    next panel.
 * The panel's own factorization (k_lu_small_panel.cuh) keeps rows in
 * place and tracks positions, so a column costs one barrier: the pivot row
 * is final once chosen and every thread updates only its own rows.
 * Interchanges reach the columns of L lazily: panel k's to blocks left of
 * k - 1 at step k + 1, when no block can still be reading them.
 *
 * After the last step the factors go back to A; with right-hand sides,
 * Y goes to B, and block 0 solves U X = Y by 32-column blocks, U read from
 * device memory (L2) and X kept in its shared memory.
 *
 * info is LAPACK's (first exactly zero pivot, the factorization runs on);
 * every block sees every panel's first zero, so all agree on it. ipiv is
 * 1-based, LAPACK's order (idamax: the first largest magnitude, a NaN wins
 * only where the search starts). With info > 0 the solve is skipped and B
 * is left as it was.
 * Defines: lsk_lu_small_d, lsk_lu_small_s, lsk_lu_small_max_blocks_d,
 *   lsk_lu_small_max_blocks_s */
#include <cooperative_groups.h>

#include "cuda/common/k_common.cuh"
#include "cuda/lu/k_lu_small_panel.cuh"
#include "cuda/lu/lu_small.h"

namespace cg = cooperative_groups;

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

/* Columns [c0, c1) of a block S (ld ld) take panel k (rows from k0, width
 * w): its interchanges (*m), U12 = L11^-1 A12 on the panel's rows (a warp
 * two columns, L11 from the local copy), then A22 -= L21 U12 on the rows
 * below, L21 read from Lp (ld ldl: the panel's columns in device memory),
 * U12 from Ub (copied there; FP64 on the tensor cores, FP32 16 columns a
 * thread). Every thread calls it. */
template <typename T>
__device__ void lus_update(T *S, int c0, int c1, int n, int ld, int k0, int w, const T *Lp,
                           int ldl, const lus_pub *m, const T *L11, T *Ub)
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    lus_move_panel(S, ld, c0, c1, m);
    /* U12: a warp solves columns q and q + WARPS together, so that the two
     * chains of w - 1 dependent shuffles overlap (and share L11's loads) */
    static_assert(LSK_LUS_NB == 2 * LSK_LUS_WARPS, "two U12 columns a warp");
    {
        const int q = warp, qb = warp + LSK_LUS_WARPS;
        const bool in_a = c0 + q < c1, in_b = c0 + qb < c1;
        T *a = S + k0 + (long long)(c0 + q) * ld, *ab = S + k0 + (long long)(c0 + qb) * ld;
        T y = in_a && lane < w ? a[lane] : (T)0, yb = in_b && lane < w ? ab[lane] : (T)0;
        for (int kk = 0; kk < w - 1; kk++) {
            const T xk = __shfl_sync(0xffffffffu, y, kk), xb = __shfl_sync(0xffffffffu, yb, kk);
            if (lane > kk && lane < w) {
                const T l = L11[lane + kk * LSK_LUS_LD11];
                y -= l * xk;
                yb -= l * xb;
            }
        }
        if (in_a && lane < w)
            a[lane] = y;
        if (in_b && lane < w)
            ab[lane] = yb;
        Ub[lane * LSK_LUS_LDU + q] = y; /* 0 past the columns: no guard below */
        Ub[lane * LSK_LUS_LDU + qb] = yb;
    }
    __syncthreads();
    const int rows = n - k0 - w, chunks = (c1 - c0 + LSK_LUS_CHUNK - 1) / LSK_LUS_CHUNK;
    if constexpr (sizeof(T) == 8) {
        lus_gemm_tc<LSK_LUS_NB / 4, LSK_LUS_NB / 8, true>(S, c0, c1, ld, k0 + w, rows, w, Lp, ldl,
                                                           Ub);
    } else {
        for (int it = tid; it < rows * chunks; it += LSK_LUS_THREADS) {
            const int i = k0 + w + it % rows, q0 = (it / rows) * LSK_LUS_CHUNK;
            T acc[LSK_LUS_CHUNK];
#pragma unroll
            for (int q = 0; q < LSK_LUS_CHUNK; q++)
                acc[q] = (T)0;
            const T *l = Lp + i;
#pragma unroll 8 /* loads from L2 in flight together */
            for (int kk = 0; kk < w; kk++) /* L2, not L1: the lines are new since launch */
                lus_axpy16(acc, __ldcg(l + (long long)kk * ldl), Ub + kk * LSK_LUS_LDU + q0);
            T *a = S + i + (long long)(c0 + q0) * ld;
#pragma unroll
            for (int q = 0; q < LSK_LUS_CHUNK; q++)
                if (c0 + q0 + q < c1)
                    a[(long long)q * ld] -= acc[q];
        }
    }
    __syncthreads();
}

/* Block 0 after the factorization: B = U^-1 B for the rhs columns, U from
 * A (device memory), rc columns of B at a time in shared memory. A 32 x 32
 * diagonal block is solved by one warp a column, 31 dependent steps: each
 * multiplies by the diagonal's reciprocal, made beforehand in the block's
 * spare row (a division on that chain cost more than the rest of it); the
 * rows above then take all w of the block's columns in one pass of loads
 * (L2 latency once, not once per column). */
template <typename T>
__device__ void lus_back_substitute(int n, int nrhs, const T *A, int lda, T *B, int ldb, T *work,
                                    long long work_elems)
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    T *Ud = work;    /* NB x (NB + 1): row NB holds the diagonal's reciprocals */
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
                const T u = A[(long long)(c0 + i) + (long long)(c0 + j) * lda];
                Ud[i + j * (LSK_LUS_NB + 1)] = u;
                if (i == j) /* a zero never gets here: info > 0 skips the solve */
                    Ud[LSK_LUS_NB + j * (LSK_LUS_NB + 1)] = (T)1 / u;
            }
            __syncthreads(); /* Ud loaded; Y's rows c0.. final but for this block */
            for (int c = warp; c < wr; c += LSK_LUS_WARPS) {
                T y = lane < w ? Y[c0 + lane + c * n] : (T)0;
                for (int kk = w - 1; kk >= 0; kk--) {
                    if (lane == kk)
                        y *= Ud[LSK_LUS_NB + kk * (LSK_LUS_NB + 1)];
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
                const T *u = A + (long long)i + (long long)c0 * lda;
                const T *x = Y + c0 + c * n;
                T s = Y[i + c * n];
#pragma unroll /* every load of the row issued before the first is used */
                for (int kk = 0; kk < LSK_LUS_NB; kk++)
                    if (kk < w)
                        s -= u[(long long)kk * lda] * x[kk];
                Y[i + c * n] = s;
            }
            __syncthreads(); /* Ud and the rows above are free for the next block */
        }
        for (int e = tid; e < n * wr; e += LSK_LUS_THREADS)
            B[(long long)(e % n) + (long long)(r0 + e / n) * ldb] = Y[e];
        __syncthreads();
    }
}

/* Dynamic shared memory of a block: L11's copy, U12's copy, then the
 * block's slots of [A | B] (slot s at s * NB columns, ld n). */
#define LSK_LUS_L11_ELEMS (LSK_LUS_NB * LSK_LUS_LD11)
#define LSK_LUS_UB_ELEMS (LSK_LUS_NB * LSK_LUS_LDU)
#define LSK_LUS_HEAD_ELEMS (LSK_LUS_L11_ELEMS + LSK_LUS_UB_ELEMS)

/* IN_SMEM: the column blocks live in the blocks' shared memory (ld n) and
 * A is read once and written once; else they are A's own columns (ld lda,
 * in place, the matrix served by L2), and nrhs is 0. R: panel rows a
 * thread holds (1 in shared memory up to n = 512, else 2). Both are
 * compile-time: a run-time choice cost registers and spills. */
template <typename T, int R, bool IN_SMEM>
__global__ void __launch_bounds__(LSK_LUS_THREADS, 1)
    lsk_lu_small_kernel(int n, int nrhs, T *A, int lda, T *B, int ldb, int *ipiv, int *info,
                        long long smem_elems)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap(); /* clusters need sm_90; the host never launches it below that */
#else
    constexpr bool in_smem = IN_SMEM;
    cg::cluster_group cl = cg::this_cluster();
    extern __shared__ __align__(16) unsigned char lus_raw[];
    __shared__ lus_pub pub[2], loc[2]; /* published by this block; copies of the owner's */
    __shared__ lus_cand<T> cd;
    const int G = (int)cl.num_blocks(), b = (int)cl.block_rank(), tid = threadIdx.x;
    const int ncol = n + nrhs, nblk = (ncol + LSK_LUS_NB - 1) / LSK_LUS_NB;
    const int np = (n + LSK_LUS_NB - 1) / LSK_LUS_NB; /* panels: the blocks holding A */
    T *L11 = (T *)lus_raw, *Ub = L11 + LSK_LUS_L11_ELEMS, *M = L11 + LSK_LUS_HEAD_ELEMS;
    const int ld = in_smem ? n : lda; /* of the column blocks */
#define LUS_SLOT(jb)                                                                             \
    (in_smem ? M + (long long)((jb) / G) * LSK_LUS_NB * n : A + (long long)(jb) * LSK_LUS_NB * lda)
#define LUS_WIDTH(jb) (ncol - (jb) * LSK_LUS_NB < LSK_LUS_NB ? ncol - (jb) * LSK_LUS_NB : LSK_LUS_NB)
#define LUS_PANEL_W(k) (n - (k) * LSK_LUS_NB < LSK_LUS_NB ? n - (k) * LSK_LUS_NB : LSK_LUS_NB)

    for (int jb = b; in_smem && jb < nblk; jb += G) {
        T *S = LUS_SLOT(jb);
        const int wS = LUS_WIDTH(jb);
        for (long long e = tid; e < (long long)wS * n; e += LSK_LUS_THREADS) {
            const int i = (int)(e % n), j = jb * LSK_LUS_NB + (int)(e / n);
            S[e] = j < n ? A[(long long)i + (long long)j * lda]
                         : B[(long long)i + (long long)(j - n) * ldb];
        }
    }
    __syncthreads();
    if (b == 0) /* panel 0 is block 0's slot 0 */
        lus_panel<T, R>(LUS_SLOT(0), n, ld, 0, LUS_PANEL_W(0), ipiv, &pub[0], &cd, Ub,
                        in_smem ? A : nullptr, lda);
    lus_arrive();

    /* Why the halves of the barrier are enough:
     *  - pub[k & 1] last held panel k - 2, which every block copied in step
     *    k - 2 before its arrive; panel k's owner rewrites it in step
     *    k - 1, after the wait that needs all those arrives;
     *  - panel k's columns are read (L21) by other blocks during step k,
     *    up to their arrive of step k + 1; the owner changes them only by
     *    the lazy interchanges of step k + 2, after the wait for it;
     *  - loc, L11 and Ub are this block's own, rewritten after barriers of
     *    its own that every thread passes only once done with them. */
    int first_zero = 0;
    for (int k = 0; k < np; k++) {
        const int o = k % G, k0 = k * LSK_LUS_NB, w = LUS_PANEL_W(k), nx = k + 1;
        lus_pub *m = &loc[k & 1];
        lus_wait();
        const int *rp = (const int *)cl.map_shared_rank(&pub[k & 1], o);
        const T *Lp = A + (long long)k0 * lda; /* panel k's columns, as its owner published them */
        for (int e = tid; e < (int)(sizeof(lus_pub) / sizeof(int)); e += LSK_LUS_THREADS)
            ((int *)m)[e] = rp[e];
        for (int e = tid; e < w * w; e += LSK_LUS_THREADS)
            L11[e % w + (e / w) * LSK_LUS_LD11] = __ldcg(Lp + k0 + e % w + (long long)(e / w) * lda);
        __syncthreads();
        if (first_zero == 0)
            first_zero = m->zero;
        const bool ahead = nx < np && nx % G == b;
        if (ahead) {
            T *S = LUS_SLOT(nx);
            lus_update(S, 0, LUS_WIDTH(nx), n, ld, k0, w, Lp, lda, m, L11, Ub);
            lus_panel<T, R>(S, n, ld, nx * LSK_LUS_NB, LUS_PANEL_W(nx), ipiv, &pub[nx & 1], &cd,
                            Ub, in_smem ? A + (long long)nx * LSK_LUS_NB * lda : nullptr, lda);
        }
        lus_arrive();
        for (int jb = b; jb < nblk; jb += G) {
            T *S = LUS_SLOT(jb);
            if (jb > k && !(ahead && jb == nx))
                lus_update(S, 0, LUS_WIDTH(jb), n, ld, k0, w, Lp, lda, m, L11, Ub);
            else if (jb == k && LUS_WIDTH(jb) > w) /* B's columns beside the last panel */
                lus_update(S, w, LUS_WIDTH(jb), n, ld, k0, w, Lp, lda, m, L11, Ub);
            else if (jb + 2 <= k) /* the lazy interchanges of panel k - 1 */
                lus_move_panel(S, ld, 0, LSK_LUS_NB, &loc[(k - 1) & 1]);
        }
    }
    lus_wait(); /* nobody reads this block's shared memory any more */
    for (int jb = b; jb + 2 <= np; jb += G)
        lus_move_panel(LUS_SLOT(jb), ld, 0, LSK_LUS_NB, &loc[(np - 1) & 1]);
    __syncthreads();

    for (int jb = b; in_smem && jb < nblk; jb += G) {
        const T *S = LUS_SLOT(jb);
        const int wS = LUS_WIDTH(jb);
        for (long long e = tid; e < (long long)wS * n; e += LSK_LUS_THREADS) {
            const int i = (int)(e % n), j = jb * LSK_LUS_NB + (int)(e / n);
            if (j < n)
                A[(long long)i + (long long)j * lda] = S[e];
            else if (first_zero == 0) /* LAPACK's dgesv leaves B alone for a singular A */
                B[(long long)i + (long long)(j - n) * ldb] = S[e];
        }
    }
#undef LUS_SLOT
#undef LUS_WIDTH
#undef LUS_PANEL_W
    if (b == 0 && tid == 0)
        *info = first_zero;
    if (nrhs == 0 || first_zero != 0) /* the same in every block */
        return;
    __threadfence(); /* U and Y in device memory before block 0 reads them */
    cl.sync();
    if (b != 0)
        return;
    lus_back_substitute(n, nrhs, (const T *)A, lda, B, ldb, M, smem_elems - LSK_LUS_HEAD_ELEMS);
#endif
}

/* The instances: in shared memory one panel row a thread up to n = 512
 * (FP64 fits shared memory only that far), two above (FP32 to about 850);
 * in place two, both precisions. */
#define LUS_INSTANCE(T, R, in_smem) lsk_lu_small_kernel<T, (R), (in_smem)>

template <typename T, int R, bool IN_SMEM>
static cudaError_t lus_configure(int G, size_t smem)
{
    cudaError_t e = cudaFuncSetAttribute(LUS_INSTANCE(T, R, IN_SMEM),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e == cudaSuccess && G > 8)
        e = cudaFuncSetAttribute(LUS_INSTANCE(T, R, IN_SMEM),
                                 cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    return e;
}

template <typename T, int R, bool IN_SMEM>
static cudaError_t lus_launch(int n, int nrhs, T *dA, int lda, T *dB, int ldb, int *d_ipiv,
                              int *d_info, int G, size_t smem, cudaStream_t s)
{
    cudaError_t e = lus_configure<T, R, IN_SMEM>(G, smem);
    if (e != cudaSuccess)
        return e;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[1];
    lsk_one_cluster(&cfg, attr, G, LSK_LUS_THREADS, smem, s);
    return cudaLaunchKernelEx(&cfg, LUS_INSTANCE(T, R, IN_SMEM), n, nrhs, dA, lda, dB, ldb, d_ipiv,
                              d_info, (long long)(smem / sizeof(T)));
}

template <typename T>
static cudaError_t lu_small(int n, int nrhs, T *dA, int lda, T *dB, int ldb, int *d_ipiv,
                            int *d_info, int G, size_t smem, int in_smem, cudaStream_t s)
{
    if (!in_smem)
        return lus_launch<T, 2, false>(n, nrhs, dA, lda, dB, ldb, d_ipiv, d_info, G, smem, s);
    if (n <= LSK_LUS_THREADS)
        return lus_launch<T, 1, true>(n, nrhs, dA, lda, dB, ldb, d_ipiv, d_info, G, smem, s);
    if constexpr (sizeof(T) == 8)
        return cudaErrorInvalidValue; /* FP64 fits shared memory to n = 512: never asked */
    else
        return lus_launch<T, 2, true>(n, nrhs, dA, lda, dB, ldb, d_ipiv, d_info, G, smem, s);
}
LSK_DEFINE(LSK_LU_SMALL_SIG, lu_small,
           (n, nrhs, dA, lda, dB, ldb, d_ipiv, d_info, G, smem, in_smem, s))

/* Whether one cluster of G blocks of this instance runs with smem bytes of
 * dynamic shared memory a block. */
template <typename T, int R, bool IN_SMEM>
static bool lus_cluster_runs(int G, size_t smem)
{
    int clusters = 0;
    cudaError_t e = lus_configure<T, R, IN_SMEM>(G, smem);
    if (e == cudaSuccess) {
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr[1];
        lsk_one_cluster(&cfg, attr, G, LSK_LUS_THREADS, smem, 0);
        e = cudaOccupancyMaxActiveClusters(&clusters, LUS_INSTANCE(T, R, IN_SMEM), &cfg);
    }
    if (e != cudaSuccess)
        (void)cudaGetLastError();
    return e == cudaSuccess && clusters >= 1;
}

/* Whether every instance lu_small may launch for T runs that cluster. */
template <typename T>
static bool lus_instances_run(int G, size_t smem)
{
    bool ok = lus_cluster_runs<T, 1, true>(G, smem) && lus_cluster_runs<T, 2, false>(G, smem);
    if constexpr (sizeof(T) == 4)
        ok = ok && lus_cluster_runs<T, 2, true>(G, smem);
    return ok;
}

/* The largest cluster (16, 8, 4, 2 or 1 blocks) that runs with smem bytes
 * of dynamic shared memory a block here, in shared memory and in place;
 * 0 before sm_90. */
template <typename T>
static int lu_small_max_blocks(size_t smem)
{
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        major < 9)
        return 0;
    for (int G = LSK_LUS_MAX_BLOCKS; G >= 1; G /= 2)
        if (lus_instances_run<T>(G, smem))
            return G;
    return 0;
}
LSK_DEFINE(LSK_LU_SMALL_MAX_BLOCKS_SIG, lu_small_max_blocks, (smem))
