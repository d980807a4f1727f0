/* Batched LU for n <= 32: each matrix belongs to NP lanes of a warp (NP =
 * n rounded up to a power of two), lane r holding row r of A and of B in
 * registers for the whole factorization. Rows are never moved: each lane
 * keeps the position its row has in LAPACK's row order (`pos`), the pivot
 * search and the row exchange only relabel positions, and the final write
 * puts every row where LAPACK's getrf would have left it. With right-hand
 * sides, B rides along as extra columns of the elimination (forward
 * substitution for free) and the back substitution follows in registers,
 * so A and B are read once and written once. Rows r >= n are padding: an
 * identity row that is never a pivot candidate.
 *
 * The cost is in instructions, not bytes: a warp spends one instruction
 * on a whole column step of the pivot row's broadcast. So the pivot is an
 * integer max (k_batched_pivot.cuh), and from NP = 8 the pivot lane
 * writes its row to shared memory in 16-byte pieces and every lane reads
 * it back the same way (two doubles or four floats an instruction, where a
 * shuffle moves half a double). Columns past n and right-hand sides past
 * nrhs are updated too, without a predicate: they hold zeros in the pivot
 * row, are never read by a real column and are never written out.
 *
 * A row-major stack (RM: C-order NumPy and torch stacks) of n > 4 is
 * staged through shared memory, row by row, so that the lanes' loads and stores run along
 * each row; read directly, lane r's row is a strided walk (n elements apart
 * across the lanes) and the whole solve ran 1.6-1.9x slower than on the
 * column-major stack.
 * Defines: lsk_bwarp_lu_d, lsk_bwarp_lu_s */
#include <cuda_runtime.h>

#include "cuda/batched/k_batched.h"
#include "cuda/batched/k_batched_pivot.cuh"
#include "cuda/common/k_common.cuh"

#define WARP_THREADS 128 /* 4 warps a block */
#define SMEM_FROM_NP 8   /* below, shuffles (a row of 2 or 4 is one or two of them) */

/* The pivot lane stores its row element by element (and every lane reads
 * it back with lsk_ld16): a 16-byte store wants its source in an aligned
 * register quad, and ptxas pays for that with a move per register
 * (IMAD.MOV), more than the stores it saves. */
template <typename T, int NP, int RB, bool RM>
__global__ void __launch_bounds__(WARP_THREADS)
k_bwarp_lu(lsk_bstack st, int nrhs)
{
    constexpr int V = 16 / (int)sizeof(T);                /* elements a 16-byte piece */
    constexpr bool SM = NP >= SMEM_FROM_NP;
    /* STREAM: the update reads the pivot row back from shared memory a
     * 16-byte piece at a time instead of holding it whole in registers
     * (LEN fewer a lane: FP64 n = 16 98 -> 72, FP32 n = 32 88 -> 79, so
     * more blocks an SM). H200, batch 10^5, ms: FP64 n = 16 0.278 -> 0.245,
     * FP32 n = 32 0.788 -> 0.745; elsewhere no gain or a loss: FP64 n = 32
     * 1.333 -> 2.079 (its loads wait one by one inside the update), FP32
     * n = 8 0.041-0.043 -> 0.045-0.048, FP32 n = 16 and FP64 n = 8 flat. */
    constexpr bool STREAM = SM && (sizeof(T) == 8 ? NP == 16 : NP == 32);
    constexpr int SEGS = WARP_THREADS / NP;               /* matrices a block */
    constexpr int LEN = (NP + RB + V - 1) / V * V;        /* a row buffer: row, then B */
    __shared__ __align__(16) T s_row[SM ? 2 * SEGS * LEN : V]; /* two: one sync a step */
    constexpr int LDM = NP + 1; /* the staged matrix's row stride: no bank conflicts */
    __shared__ T s_mat[RM ? SEGS * NP * LDM : 1];

    const int n = st.n;
    const int lane32 = threadIdx.x & 31, r = lane32 % NP, seg = lane32 / NP;
    const long long sys = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / NP;
    const bool live = sys < st.batch, real = live && r < n;
    T *A = (T *)st.A + (live ? sys * st.sA : 0);
    T *B = (T *)st.B + (live && st.B ? sys * st.sB : 0);

    T a[NP], b[RB];
#pragma unroll
    for (int j = 0; j < NP; j++)
        a[j] = j == r ? (T)1 : (T)0;
    T *sm = s_mat + (RM ? ((int)threadIdx.x / NP) * NP * LDM : 0); /* this matrix's */
    if (RM) { /* row i through lane j: a coalesced load of each row */
        if (real)
            for (int i = 0; i < n; i++)
                sm[i * LDM + r] = A[i * st.a_rs + r];
        __syncwarp();
    }
    if (real) {
#pragma unroll
        for (int j = 0; j < NP; j++)
            if (j < n)
                a[j] = RM ? sm[r * LDM + j] : A[r * st.a_rs + j * st.a_cs];
    }
#pragma unroll
    for (int c = 0; c < RB; c++)
        b[c] = (real && c < nrhs) ? B[r * st.b_rs + c * st.b_cs] : (T)0;

    int pos = r, my_ipiv = r + 1, info = 0;
    T dinv = (T)1; /* 1 / U(pos, pos), kept for the back substitution (0: divide) */
#pragma unroll
    for (int k = 0; k < NP; k++) {
        if (k >= n) /* n is the same for the whole grid: no divergence */
            break;
        const bool cand = r < n && pos >= k;
        const int pl = lsk_pivot_lane<T, NP>(a[k], cand, pos, k, seg);
        const int pp = __shfl_sync(LSK_FULL_MASK, pos, pl, NP);
        /* the pivot row from column k (B after NP): by shuffles below NP = 8,
         * else through shared memory (STREAM: see above) */
        T *buf = s_row + (SM ? ((k & 1) * SEGS + (int)threadIdx.x / NP) * LEN : 0);
        T u[STREAM ? 1 : LEN];
        T piv;
        if (SM) {
            if (r == pl) {
#pragma unroll
                for (int j = k; j < NP; j++)
                    buf[j] = a[j];
#pragma unroll
                for (int c = 0; c < RB; c++)
                    buf[NP + c] = b[c];
            }
            __syncwarp();
            if (STREAM) {
                piv = buf[k];
            } else {
#pragma unroll
                for (int j = k / V * V; j < LEN; j += V)
                    lsk_ld16(buf + j, u + j);
                piv = u[k];
            }
        } else {
#pragma unroll
            for (int j = k; j < NP; j++)
                u[j] = __shfl_sync(LSK_FULL_MASK, a[j], pl, NP);
#pragma unroll
            for (int c = 0; c < RB; c++)
                u[NP + c] = __shfl_sync(LSK_FULL_MASK, b[c], pl, NP);
            piv = u[k];
        }
        if (r == k)
            my_ipiv = pp + 1;
        if (pos == k)
            pos = pp; /* the row at position k goes where the pivot was */
        else if (r == pl)
            pos = k;
        if (piv == (T)0 && info == 0)
            info = k + 1;
        const bool below = r < n && pos > k;
        T l = a[k];
        if (piv != (T)0) {
            if (lsk_abs(piv) >= lsk_safe_min<T>()) {
                const T inv = (T)1 / piv;
                l *= inv;
                if (r == pl)
                    dinv = inv;
            } else {
                l /= piv;
                if (r == pl)
                    dinv = (T)0; /* 1/piv would overflow: divide in the solve */
            }
        }
        if (below)
            a[k] = l;
        if (STREAM) {
#pragma unroll
            for (int j0 = (k + 1) / V * V; j0 < NP + RB; j0 += V) {
                T v[V];
                lsk_ld16(buf + j0, v);
#pragma unroll
                for (int e = 0; e < V; e++) {
                    const int j = j0 + e;
                    if (j > k && j < NP && below)
                        a[j] -= l * v[e];
                    else if (j >= NP && j < NP + RB && below)
                        b[j - NP] -= l * v[e];
                }
            }
        } else {
#pragma unroll
            for (int j = k + 1; j < NP; j++)
                if (below)
                    a[j] -= l * u[j];
#pragma unroll
            for (int c = 0; c < RB; c++)
                if (below)
                    b[c] -= l * u[NP + c];
        }
    }

    /* U X = Y: position k's lane multiplies by the reciprocal the
     * factorization computed anyway (a division only for a pivot too small
     * to invert, or zero), the lanes above subtract. Run by
     * every segment (shuffles need the whole warp); singular systems'
     * results are simply not written. */
    if (nrhs > 0) {
        const unsigned segmask = (NP == 32 ? LSK_FULL_MASK : ((1u << NP) - 1u)) << (seg * NP);
#pragma unroll
        for (int k = NP - 1; k >= 0; k--) {
            if (k >= n)
                continue;
            unsigned m = __ballot_sync(LSK_FULL_MASK, r < n && pos == k) & segmask;
            int ql = __ffs(m) - 1 - seg * NP;
#pragma unroll
            for (int c = 0; c < RB; c++) {
                T q;
                if (dinv != (T)0)
                    q = b[c] * dinv;
                else
                    q = b[c] / a[k];
                T x = __shfl_sync(LSK_FULL_MASK, q, ql, NP);
                if (pos == k)
                    b[c] = x;
                else if (r < n && pos < k)
                    b[c] -= a[k] * x;
            }
        }
    }

    if (RM) { /* the rows in their final places, then stored row by row */
        __syncwarp();
        if (real)
#pragma unroll
            for (int j = 0; j < NP; j++)
                if (j < n)
                    sm[pos * LDM + j] = a[j];
        __syncwarp();
        if (real)
            for (int i = 0; i < n; i++)
                A[i * st.a_rs + r] = sm[i * LDM + r];
    }
    if (!real)
        return;
    if (!RM)
#pragma unroll
        for (int j = 0; j < NP; j++)
            if (j < n)
                A[pos * st.a_rs + j * st.a_cs] = a[j];
    if (st.ipiv)
        st.ipiv[sys * n + r] = my_ipiv;
    if (r == 0)
        st.info[sys] = info;
    if (info == 0)
#pragma unroll
        for (int c = 0; c < RB; c++)
            if (c < nrhs)
                B[pos * st.b_rs + c * st.b_cs] = b[c];
}

template <typename T, int NP, bool RM>
static cudaError_t launch_layout(const lsk_bstack *st, int nrhs, cudaStream_t s)
{
    long long threads = (long long)st->batch * NP;
    unsigned blocks = lsk_blocks(threads, WARP_THREADS);
    /* registers for B only where there are right-hand sides: one for
     * getrf alone (the solve is skipped) and for the common nrhs = 1 */
    if (nrhs <= 1)
        k_bwarp_lu<T, NP, 1, RM><<<blocks, WARP_THREADS, 0, s>>>(*st, nrhs);
    else if (nrhs == 2)
        k_bwarp_lu<T, NP, 2, RM><<<blocks, WARP_THREADS, 0, s>>>(*st, nrhs);
    else
        k_bwarp_lu<T, NP, LSK_BWARP_MAXRHS, RM><<<blocks, WARP_THREADS, 0, s>>>(*st, nrhs);
    return cudaGetLastError();
}
template <typename T, int NP>
static cudaError_t launch_np(const lsk_bstack *st, int nrhs, cudaStream_t s)
{
    /* row-major: element (i, j) at i * a_rs + j (a_cs 1); rows of 2 are
     * read directly (staged, FP64 n = 2 took 0.089 ms against 0.018 for
     * batch 10^5 on an H100, not looked into) */
    constexpr bool stage = NP >= SMEM_FROM_NP;
    return stage && st->a_rs != 1 && st->a_cs == 1 ? launch_layout<T, NP, stage>(st, nrhs, s)
                                                   : launch_layout<T, NP, false>(st, nrhs, s);
}
template <typename T>
static cudaError_t launch(const lsk_bstack *st, int nrhs, cudaStream_t s)
{
    int n = st->n;
    if (n <= 2) return launch_np<T, 2>(st, nrhs, s);
    if (n <= 4) return launch_np<T, 4>(st, nrhs, s);
    if (n <= 8) return launch_np<T, 8>(st, nrhs, s);
    if (n <= 16) return launch_np<T, 16>(st, nrhs, s);
    return launch_np<T, 32>(st, nrhs, s);
}

template <typename T>
static cudaError_t bwarp_lu(const lsk_bstack *st, int nrhs, cudaStream_t s)
{
    if (st->n < 1 || st->n > LSK_BWARP_MAXN || nrhs < 0 || nrhs > LSK_BWARP_MAXRHS)
        return cudaErrorInvalidValue;
    return launch<T>(st, nrhs, s);
}
LSK_DEFINE(LSK_BWARP_LU_SIG, bwarp_lu, (st, nrhs, s))
