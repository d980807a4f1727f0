/* The small-n LU of method "lu": the whole factorization of one n x n
 * matrix with partial pivoting (and, for gesv, the solve) in ONE launch of
 * one thread-block cluster (sm_90), the matrix resident in the blocks'
 * shared memory from start to end. At small n the blocked LU is latency:
 * a chain of per-column kernels, cuBLAS calls and the gaps between them;
 * here a panel of 32 columns costs one cluster barrier, and a column of
 * the panel one block barrier.
 *
 * Layout: [A | B] in column blocks of NB = 32 columns, dealt round-robin
 * over the G blocks of the cluster (column block jb lives in cluster block
 * jb % G, slot jb / G, leading dimension n). B's columns ride along as
 * extra columns, so the forward substitution L Y = P B happens during the
 * factorization, as in LAPACK's dgesv.
 *
 * Right-looking blocked LU with a look-ahead of one panel. Step k:
 *  - panel k was factored in the previous step by its owner and published:
 *    the interchanges as a list of moved rows, its first zero pivot, and
 *    its columns (L11, L21) in the owner's shared memory;
 *  - every block copies the list and L11 (distributed shared memory);
 *  - look-ahead: the owner of panel k+1 updates that block with panel k,
 *    factors it and publishes it, then arrives at the cluster barrier;
 *  - every other block arrives at once and updates its own blocks right
 *    of panel k (row interchanges, L11^-1 on the panel's rows, the GEMM
 *    update of the rows below, L21 read from the owner), so the update of
 *    the rest overlaps the next panel.
 * The panel's own factorization (lus_panel) keeps rows in place and
 * tracks positions, so a column costs one __syncthreads: the pivot row is
 * final once chosen and every thread updates only its own rows.
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
 * is left as it was. */
#include <cooperative_groups.h>
#include <limits.h>

#include "cuda/common/k_common.cuh"
#include "cuda/lu/lu_small.h"

namespace cg = cooperative_groups;

#define LSK_LUS_WARPS (LSK_LUS_THREADS / 32)
#define LSK_LUS_NB LSK_LUS_PANEL
#define LSK_LUS_LD11 (LSK_LUS_NB + 1)            /* L11's copy, padded against bank conflicts */
#define LSK_LUS_LDU 36                           /* U12's copy: rows 16-byte aligned */
#define LSK_LUS_CHUNK 16 /* columns a thread accumulates in the GEMM update */

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

template <typename T> __device__ __forceinline__ T lus_sfmin();
template <> __device__ __forceinline__ double lus_sfmin<double>() { return 2.2250738585072014e-308; }
template <> __device__ __forceinline__ float lus_sfmin<float>() { return 1.17549435e-38f; }

/* A panel is factored as two halves of LSK_LUS_HALF columns (the
 * recursive LU's first split), each with its rows in registers. */
#define LSK_LUS_HALF (LSK_LUS_NB / 2)

/* The rows one half's interchanges moved (row src goes to row dst; the
 * moved rows permute among themselves). */
struct lus_list {
    int cnt;
    int dst[2 * LSK_LUS_HALF], src[2 * LSK_LUS_HALF];
};

/* What the owner of a panel publishes: both halves' moves, applied in
 * order, and the panel's first zero pivot's column (1-based, 0 for none). */
struct lus_pub {
    int zero;
    lus_list half[2];
};

/* Panel rows a thread holds in a half: all of FP64's (n <= 512 fits the
 * shared memory), up to two of FP32's. */
template <typename T> struct lus_rows {
    static constexpr int R = sizeof(T) == 8 ? 1 : 2;
};

/* Columns [c0, c1) of a block (ld n): the list's moves. All values are
 * read before any is written, so the order of the list does not matter.
 * Every thread of the block calls it. */
template <typename T>
__device__ void lus_move_rows(T *S, int n, int c0, int c1, const lus_list *m)
{
    constexpr int REGS = 2 * LSK_LUS_HALF * LSK_LUS_NB / LSK_LUS_THREADS;
    const int cnt = m->cnt, tot = cnt * (c1 - c0);
    T v[REGS];
#pragma unroll
    for (int t = 0; t < REGS; t++) {
        const int e = threadIdx.x + t * LSK_LUS_THREADS;
        if (e < tot)
            v[t] = S[m->src[e % cnt] + (long long)(c0 + e / cnt) * n];
    }
    __syncthreads();
#pragma unroll
    for (int t = 0; t < REGS; t++) {
        const int e = threadIdx.x + t * LSK_LUS_THREADS;
        if (e < tot)
            S[m->dst[e % cnt] + (long long)(c0 + e / cnt) * n] = v[t];
    }
    __syncthreads();
}

/* Both halves of a panel's moves. */
template <typename T>
__device__ void lus_move_panel(T *S, int n, int c0, int c1, const lus_pub *m)
{
    lus_move_rows(S, n, c0, c1, &m->half[0]);
    lus_move_rows(S, n, c0, c1, &m->half[1]);
}

/* LAPACK's pivot order as an integer: the bits of |v| order like |v|;
 * + 1 so that 0 can mean "no candidate". */
__device__ __forceinline__ unsigned long long lus_key(double v)
{
    return (unsigned long long)__double_as_longlong(fabs(v)) + 1ull;
}
__device__ __forceinline__ unsigned long long lus_key(float v)
{
    return (unsigned long long)__float_as_uint(fabsf(v)) + 1ull;
}

/* The warp's best (key, then the earliest position) in every lane, with
 * its row and the lane that holds it: three single-instruction reductions
 * (redux.sync) and a ballot, not five rounds of shuffles of three values. */
__device__ __forceinline__ int lus_warp_best(unsigned long long &key, int &pos, int &row)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap(); /* redux.sync needs sm_80; the kernel runs on sm_90 only */
    return 0;
#else
    const unsigned hi = (unsigned)(key >> 32), mhi = __reduce_max_sync(0xffffffffu, hi);
    const unsigned at_hi = __ballot_sync(0xffffffffu, hi == mhi);
    if ((at_hi & (at_hi - 1)) == 0) { /* one lane has the largest high word: the usual case */
        const int win = __ffs(at_hi) - 1;
        key = __shfl_sync(0xffffffffu, key, win);
        pos = __shfl_sync(0xffffffffu, pos, win);
        row = __shfl_sync(0xffffffffu, row, win);
        return win;
    }
    const unsigned lo = hi == mhi ? (unsigned)key : 0u, mlo = __reduce_max_sync(0xffffffffu, lo);
    const bool top = hi == mhi && (unsigned)key == mlo;
    const unsigned mp = __reduce_min_sync(0xffffffffu, top ? (unsigned)pos : 0xffffffffu);
    const int win = __ffs(__ballot_sync(0xffffffffu, top && (unsigned)pos == mp)) - 1;
    key = ((unsigned long long)mhi << 32) | mlo;
    pos = (int)mp;
    row = __shfl_sync(0xffffffffu, row, win);
    return win;
#endif
}

/* 1 / v, correctly rounded (what (T)1 / v gives, without the general
 * division's slow path on the column's critical path). */
__device__ __forceinline__ double lus_rcp(double v) { return __drcp_rn(v); }
__device__ __forceinline__ float lus_rcp(float v) { return __frcp_rn(v); }

/* A barrier of the first nt threads of the block (named barrier 1). */
__device__ __forceinline__ void lus_bar(int nt)
{
    asm volatile("bar.sync 1, %0;" ::"r"(nt) : "memory");
}

/* Per-warp pivot candidates of a column, two sets (by the column's
 * parity): key, position, row, and the candidate row's values. */
template <typename T> struct lus_cand {
    unsigned long long key[2][LSK_LUS_WARPS];
    int pos[2][LSK_LUS_WARPS], row[2][LSK_LUS_WARPS];
    T vals[2][LSK_LUS_WARPS][LSK_LUS_HALF];
};

/* One half: the w <= HALF columns at H (ld n) of rows r0..n-1, unblocked
 * LU with LAPACK's pivots (ipiv[r0..r0+w-1]); the moves into *out and
 * applied to columns [g0, g1) of the block B holding them. A thread keeps
 * its rows (r0 + tid + r * THREADS) in registers and tracks where the
 * interchanges have put each (pos) instead of moving it. Per column, one
 * barrier of the warps holding rows: each warp's best candidate comes
 * with its row's values, so after the barrier every thread has the pivot
 * row and updates its own rows in registers. */
template <typename T>
__device__ void lus_half(T *H, int n, int r0, int w, int *ipiv, lus_list *out, int *zero,
                         lus_cand<T> *cd, T *B, int g0, int g1)
{
    constexpr int R = lus_rows<T>::R;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int nt = min(LSK_LUS_THREADS, (n - r0 + 31) / 32 * 32), nw = nt / 32;
    int row[R], pos[R];
    bool live[R];
    T a[R][LSK_LUS_HALF];
#pragma unroll
    for (int r = 0; r < R; r++) {
        row[r] = r0 + tid + r * LSK_LUS_THREADS;
        pos[r] = row[r];
        live[r] = row[r] < n;
#pragma unroll
        for (int c = 0; c < LSK_LUS_HALF; c++)
            a[r][c] = live[r] && c < w ? H[row[r] + (long long)c * n] : (T)0;
    }
    if (tid == 0)
        out->cnt = 0; /* seen by the atomics after the barrier below the loop */
    if (warp < nw) { /* the other warps hold no rows: on to that barrier */
#pragma unroll
        for (int j = 0; j < LSK_LUS_HALF; j++) {
            if (j >= w)
                break;
            const int g = r0 + j, par = j & 1;
            unsigned long long bk = 0; /* 0: no candidate */
            int bp = INT_MAX, br = -1, bsel = 0;
#pragma unroll
            for (int r = 0; r < R; r++) {
                if (!live[r])
                    continue;
                const T v = a[r][j];
                /* idamax: a NaN is taken only where the search starts */
                const unsigned long long k = v == v ? lus_key(v) : pos[r] == g ? ~0ull : 0ull;
                if (k > bk || (k == bk && k != 0 && pos[r] < bp))
                    bk = k, bp = pos[r], br = row[r], bsel = r;
            }
            const int win = lus_warp_best(bk, bp, br);
            if (lane == win) {
#pragma unroll
                for (int c = j; c < LSK_LUS_HALF; c++) {
                    T v = a[0][c];
#pragma unroll
                    for (int r = 1; r < R; r++)
                        v = bsel == r ? a[r][c] : v;
                    cd->vals[par][warp][c] = v;
                }
            }
            if (lane == 0) {
                cd->key[par][warp] = bk;
                cd->pos[par][warp] = bp;
                cd->row[par][warp] = br;
            }
            lus_bar(nt);
            int q = 0; /* the winning warp; with one warp holding rows, this one */
            if (nw > 1) {
                if (lane < nw)
                    bk = cd->key[par][lane], bp = cd->pos[par][lane], br = cd->row[par][lane];
                else
                    bk = 0, bp = INT_MAX, br = -1;
                q = lus_warp_best(bk, bp, br); /* the same answer in every warp */
            }
            const T *u = cd->vals[par][q]; /* the pivot row: broadcast reads */
            /* br >= 0: the row at position g is live and always a candidate */
            const T piv = u[j];
            if (tid == 0)
                ipiv[g] = bp + 1;
            if (piv == (T)0 && *zero == 0)
                *zero = g + 1;
            const bool scale = piv != (T)0, mul = lsk_abs(piv) >= lus_sfmin<T>();
            const T rp = scale ? lus_rcp(piv) : (T)1;
#pragma unroll
            for (int r = 0; r < R; r++) {
                if (!live[r])
                    continue;
                if (row[r] == br) { /* the pivot row: to position g, done */
                    pos[r] = g;
                    live[r] = false;
                    continue;
                }
                if (pos[r] == g) /* the row it displaces takes its place */
                    pos[r] = bp;
                T l = a[r][j];
                if (scale)
                    l = mul ? l * rp : l / piv; /* dgetrf2's rule below the safe minimum */
                a[r][j] = l;
#pragma unroll
                for (int c = j + 1; c < LSK_LUS_HALF; c++)
                    a[r][c] -= l * u[c];
            }
        }
    }
#pragma unroll
    for (int r = 0; r < R; r++)
        if (row[r] < n) {
#pragma unroll
            for (int c = 0; c < LSK_LUS_HALF; c++)
                if (c < w)
                    H[row[r] + (long long)c * n] = a[r][c];
        }
    __syncthreads(); /* every row back in place, and cnt = 0, seen */
#pragma unroll
    for (int r = 0; r < R; r++) {
        if (row[r] < n && pos[r] != row[r]) {
            const int e = atomicAdd(&out->cnt, 1);
            out->dst[e] = pos[r];
            out->src[e] = row[r];
        }
    }
    __syncthreads();
    lus_move_rows(B, n, g0, g1, out);
}

/* acc[q] += l * u[q], q < 16, u 16-byte aligned (shared memory). */
__device__ __forceinline__ void lus_axpy16(double *acc, double l, const double *u);
__device__ __forceinline__ void lus_axpy16(float *acc, float l, const float *u);

/* The owner's whole block factors the w columns of panel P (its slot, ld
 * n; rows k0..n-1 up to date), as two halves: the left half (lus_half),
 * U12 = L11^-1 A12 and A22 -= L21 U12 for the right half's columns, the
 * right half. LAPACK's pivots into ipiv[k0..], both halves' moves and the
 * first zero into *pub; the rows in pivot order in all w columns. Then the
 * columns go to Ag (ld lda: the panel's columns of A) for the other
 * blocks. Ub: the block's U12 buffer. */
template <typename T>
__device__ void lus_panel(T *P, int n, int k0, int w, int *ipiv, lus_pub *pub, lus_cand<T> *cd,
                          T *Ub, T *Ag, int lda)
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int h = w < LSK_LUS_HALF ? w : LSK_LUS_HALF, w2 = w - h;
    int zero = 0;
    lus_half(P, n, k0, h, ipiv, &pub->half[0], &zero, cd, P, 0, w);
    if (w2 > 0) {
        T *R = P + (long long)h * n;
        /* U12: a warp a column of the right half, L11 read in place */
        for (int c = warp; c < LSK_LUS_HALF; c += LSK_LUS_WARPS) {
            T y = (T)0;
            if (c < w2) {
                T *x = R + k0 + (long long)c * n;
                y = lane < h ? x[lane] : (T)0;
                for (int kk = 0; kk < h - 1; kk++) {
                    const T xk = __shfl_sync(0xffffffffu, y, kk);
                    if (lane > kk && lane < h)
                        y -= P[k0 + lane + (long long)kk * n] * xk;
                }
                if (lane < h)
                    x[lane] = y;
            }
            if (lane < LSK_LUS_HALF)
                Ub[lane * LSK_LUS_LDU + c] = y;
        }
        __syncthreads();
        for (int i = k0 + h + tid; i < n; i += LSK_LUS_THREADS) {
            T acc[LSK_LUS_HALF];
#pragma unroll
            for (int q = 0; q < LSK_LUS_HALF; q++)
                acc[q] = (T)0;
#pragma unroll 2 /* further, the accumulators spill */
            for (int kk = 0; kk < LSK_LUS_HALF; kk++)
                lus_axpy16(acc, kk < h ? P[i + (long long)kk * n] : (T)0, Ub + kk * LSK_LUS_LDU);
#pragma unroll
            for (int q = 0; q < LSK_LUS_HALF; q++)
                if (q < w2)
                    R[i + (long long)q * n] -= acc[q];
        }
        __syncthreads();
        lus_half(R, n, k0 + h, w2, ipiv, &pub->half[1], &zero, cd, P, 0, w);
    } else if (tid == 0) {
        pub->half[1].cnt = 0;
    }
    if (tid == 0)
        pub->zero = zero;
    /* The factored columns to device memory (the panel's columns of A, rows
     * k0..n-1), where the other blocks read them: L2 serves a block's
     * many concurrent loads far faster than distributed shared memory.
     * The fence orders them before the cluster barrier's release. */
    const int m = n - k0;
    for (int e = tid; e < m * w; e += LSK_LUS_THREADS) {
        const int i = k0 + e % m, c = e / m;
        Ag[i + (long long)c * lda] = P[i + (long long)c * n];
    }
    __threadfence();
}

/* acc[q] += l * u[q], q < 16, u 16-byte aligned (shared memory). */
__device__ __forceinline__ void lus_axpy16(double *acc, double l, const double *u)
{
    const double2 *u2 = reinterpret_cast<const double2 *>(u);
#pragma unroll
    for (int h = 0; h < 8; h++) {
        const double2 t = u2[h];
        acc[2 * h] += l * t.x;
        acc[2 * h + 1] += l * t.y;
    }
}
__device__ __forceinline__ void lus_axpy16(float *acc, float l, const float *u)
{
    const float4 *u4 = reinterpret_cast<const float4 *>(u);
#pragma unroll
    for (int h = 0; h < 4; h++) {
        const float4 t = u4[h];
        acc[4 * h] += l * t.x;
        acc[4 * h + 1] += l * t.y;
        acc[4 * h + 2] += l * t.z;
        acc[4 * h + 3] += l * t.w;
    }
}

/* Columns [c0, c1) of a block S (ld n) take panel k (rows from k0, width
 * w): its interchanges (*m), U12 = L11^-1 A12 on the panel's rows (a warp
 * a column, L11 from the local copy), then A22 -= L21 U12 on the rows
 * below, L21 read from Lp (ld ldl: the panel's columns in device memory),
 * U12 from Ub (copied there, 16 columns a thread). Every thread calls it. */
template <typename T>
__device__ void lus_update(T *S, int c0, int c1, int n, int k0, int w, const T *Lp, int ldl,
                           const lus_pub *m, const T *L11, T *Ub)
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    lus_move_panel(S, n, c0, c1, m);
    for (int q = warp; q < LSK_LUS_NB; q += LSK_LUS_WARPS) {
        const int c = c0 + q;
        T y = (T)0;
        if (c < c1) {
            T *a = S + k0 + (long long)c * n;
            y = lane < w ? a[lane] : (T)0;
            for (int kk = 0; kk < w - 1; kk++) {
                const T xk = __shfl_sync(0xffffffffu, y, kk);
                if (lane > kk && lane < w)
                    y -= L11[lane + kk * LSK_LUS_LD11] * xk;
            }
            if (lane < w)
                a[lane] = y;
        }
        Ub[lane * LSK_LUS_LDU + q] = y; /* 0 past the columns: no guard below */
    }
    __syncthreads();
    const int rows = n - k0 - w, chunks = (c1 - c0 + LSK_LUS_CHUNK - 1) / LSK_LUS_CHUNK;
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
        T *a = S + i + (long long)(c0 + q0) * n;
#pragma unroll
        for (int q = 0; q < LSK_LUS_CHUNK; q++)
            if (c0 + q0 + q < c1)
                a[(long long)q * n] -= acc[q];
    }
    __syncthreads();
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

/* Dynamic shared memory of a block: L11's copy, U12's copy, then the
 * block's slots of [A | B] (slot s at s * NB columns, ld n). */
#define LSK_LUS_L11_ELEMS (LSK_LUS_NB * LSK_LUS_LD11)
#define LSK_LUS_UB_ELEMS (LSK_LUS_NB * LSK_LUS_LDU)
#define LSK_LUS_HEAD_ELEMS (LSK_LUS_L11_ELEMS + LSK_LUS_UB_ELEMS)

template <typename T>
__global__ void __launch_bounds__(LSK_LUS_THREADS, 1)
    lsk_lu_small_kernel(int n, int nrhs, T *A, int lda, T *B, int ldb, int *ipiv, int *info,
                        long long smem_elems)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap(); /* clusters need sm_90; the host never launches it below that */
#else
    cg::cluster_group cl = cg::this_cluster();
    extern __shared__ __align__(16) unsigned char lus_raw[];
    __shared__ lus_pub pub[2], loc[2]; /* published by this block; copies of the owner's */
    __shared__ lus_cand<T> cd;
    const int G = (int)cl.num_blocks(), b = (int)cl.block_rank(), tid = threadIdx.x;
    const int ncol = n + nrhs, nblk = (ncol + LSK_LUS_NB - 1) / LSK_LUS_NB;
    const int np = (n + LSK_LUS_NB - 1) / LSK_LUS_NB; /* panels: the blocks holding A */
    T *L11 = (T *)lus_raw, *Ub = L11 + LSK_LUS_L11_ELEMS, *M = L11 + LSK_LUS_HEAD_ELEMS;
#define LUS_SLOT(jb) (M + (long long)((jb) / G) * LSK_LUS_NB * n)
#define LUS_WIDTH(jb) (ncol - (jb) * LSK_LUS_NB < LSK_LUS_NB ? ncol - (jb) * LSK_LUS_NB : LSK_LUS_NB)
#define LUS_PANEL_W(k) (n - (k) * LSK_LUS_NB < LSK_LUS_NB ? n - (k) * LSK_LUS_NB : LSK_LUS_NB)

    for (int jb = b; jb < nblk; jb += G) {
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
        lus_panel(M, n, 0, LUS_PANEL_W(0), ipiv, &pub[0], &cd, Ub, A, lda);
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
            lus_update(S, 0, LUS_WIDTH(nx), n, k0, w, Lp, lda, m, L11, Ub);
            lus_panel(S, n, nx * LSK_LUS_NB, LUS_PANEL_W(nx), ipiv, &pub[nx & 1], &cd, Ub,
                      A + (long long)nx * LSK_LUS_NB * lda, lda);
        }
        lus_arrive();
        for (int jb = b; jb < nblk; jb += G) {
            T *S = LUS_SLOT(jb);
            if (jb > k && !(ahead && jb == nx))
                lus_update(S, 0, LUS_WIDTH(jb), n, k0, w, Lp, lda, m, L11, Ub);
            else if (jb == k && LUS_WIDTH(jb) > w) /* B's columns beside the last panel */
                lus_update(S, w, LUS_WIDTH(jb), n, k0, w, Lp, lda, m, L11, Ub);
            else if (jb + 2 <= k) /* the lazy interchanges of panel k - 1 */
                lus_move_panel(S, n, 0, LSK_LUS_NB, &loc[(k - 1) & 1]);
        }
    }
    lus_wait(); /* nobody reads this block's shared memory any more */
    for (int jb = b; jb + 2 <= np; jb += G)
        lus_move_panel(LUS_SLOT(jb), n, 0, LSK_LUS_NB, &loc[(np - 1) & 1]);
    __syncthreads();

    for (int jb = b; jb < nblk; jb += G) {
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

template <typename T>
static cudaError_t lu_small(int n, int nrhs, T *dA, int lda, T *dB, int ldb, int *d_ipiv,
                            int *d_info, int G, size_t smem, cudaStream_t s)
{
    cudaError_t e = lus_configure<T>(G, smem);
    if (e != cudaSuccess)
        return e;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[1];
    lsk_one_cluster(&cfg, attr, G, LSK_LUS_THREADS, smem, s);
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
            lsk_one_cluster(&cfg, attr, G, LSK_LUS_THREADS, smem, 0);
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
