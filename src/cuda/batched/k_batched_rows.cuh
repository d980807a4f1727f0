/* Batched LU for 32 < n <= NR (64, or 128 in FP32): one block of NR
 * threads a matrix, row r in thread r's registers, the warp kernel's
 * scheme (k_batched_warp.cu) spread over the warps of a block. Rows never
 * move: each keeps its position in LAPACK's row order (`pos`), the pivot
 * search and the exchange only relabel, and the final store puts every
 * row where getrf leaves it. Right-hand sides ride along as extra columns
 * (the forward substitution for free); the back substitution follows
 * with one value a step through shared memory.
 *
 * A step is one barrier. Each warp finds its best candidate (an integer
 * max, k_batched_pivot.cuh) and that row writes itself into a row-major
 * copy of the matrix in shared memory; after the barrier every lane picks
 * the block's winner among the warps' (largest magnitude, then first
 * position: idamax's rule), reads the winning row from the copy by
 * 16-byte broadcasts and updates its registers. The copy ends as the
 * factors: a row's multipliers are stored there as they are made, its U
 * row when it wins, and the final store reads it in the global layout's
 * order.
 *
 * Registers are named at compile time, so the loop over columns runs U
 * steps unrolled and then shifts the row left by U (a[j] holds column
 * kb*U + j): the code is U steps long instead of n. (A form unrolled over
 * all 64 columns, updating only the triangle, ran FP64 n = 64 in 14.1 ms
 * on an H100 against this form's 9.0; not profiled, its code is some
 * 100 KB.) The update and the row's store leave every 8 columns once
 * past the last column of A (n is the block's, so the whole block
 * branches alike): the late steps of a block run short and an order below
 * NR pays little for the padding. Columns past A inside the last piece are
 * updated without a predicate and never stored; reads past a row's end
 * land in slack at the copy's end.
 * Instantiated by k_batched_rows64.cu and k_batched_rows128.cu. */
#ifndef LS_CUDA_K_BATCHED_ROWS_CUH
#define LS_CUDA_K_BATCHED_ROWS_CUH

#include <cuda_runtime.h>
#include <limits.h>

#include "cuda/batched/k_batched.h"
#include "cuda/batched/k_batched_pivot.cuh"
#include "cuda/common/k_common.cuh"

/* Shared memory of the copy for NR rows and RB right-hand sides. */
template <typename T, int NR, int RB, int U>
struct br_shape {
    static constexpr int V = 16 / (int)sizeof(T);
    static constexpr int LDR = NR + V; /* row-major copy's row length */
    static constexpr int W = NR / 32;
    /* the copy, NR elements of slack for the reads past a row's end, B */
    static constexpr size_t bytes = ((size_t)NR * LDR + NR + (size_t)NR * RB) * sizeof(T);
};

template <typename T, int NR, int RB, int U>
__global__ void __launch_bounds__(NR)
k_brows_lu(lsk_bstack st, int nrhs)
{
    using K = decltype(lsk_pkey((T)0, false));
    using S = br_shape<T, NR, RB, U>;
    constexpr int V = S::V, LDR = S::LDR, W = S::W;
    constexpr K NAN_FIRST = ~(K)0;
    static_assert(U % V == 0, "a shift keeps 16-byte pieces aligned");
    extern __shared__ __align__(16) unsigned char br_raw[];
    T *M = (T *)br_raw;        /* the copy: row r at M + r * LDR (rows as loaded) */
    T *SB = M + NR * LDR + NR; /* row r's right-hand sides at SB + r * RB */
    __shared__ K s_key[2][W];
    __shared__ int s_row[2][W], s_pos[2][W];
    __shared__ T s_x[2][RB];
    __shared__ int s_inv[NR];

    const int n = st.n, r = threadIdx.x, warp = r / 32;
    const bool real = r < n;
    const long long sys = blockIdx.x;
    T *A = (T *)st.A + sys * st.sA;
    T *B = st.B ? (T *)st.B + sys * st.sB : (T *)st.B;
    const bool rowmajor = st.a_rs != 1;

    T a[NR], b[RB];
#pragma unroll
    for (int j = 0; j < NR; j++) {
        a[j] = j == r ? (T)1 : (T)0;
        if (real && j < n)
            a[j] = A[r * st.a_rs + j * st.a_cs];
    }
#pragma unroll
    for (int c = 0; c < RB; c++)
        b[c] = (real && c < nrhs) ? B[r * st.b_rs + c * st.b_cs] : (T)0;

    int pos = r, my_ipiv = r + 1, info = 0;
    T dinv = (T)1; /* 1 / U(pos, pos) for the back substitution (0: divide) */
    T *mine = M + r * LDR;
    for (int kb = 0; kb * U < n; kb++) {
        /* a[j] is a column of A still to update for j < lim: the loops
         * below leave, every 8 columns, once past it (a branch the whole
         * block takes alike), so late steps run short */
        const int lim = n - kb * U;
#pragma unroll
        for (int t = 0; t < U; t++) {
            const int k = kb * U + t, buf = k & 1;
            if (k >= n)
                break;
            /* this warp's candidate writes its row to the copy */
            const bool cand = real && pos >= k;
            K key = lsk_pkey(a[t], cand);
            if (cand && pos == k && a[t] != a[t])
                key = NAN_FIRST;
            const K m = lsk_kmax<32>(key);
            const int q = lsk_warp_imin(key == m && m != 0 ? pos : INT_MAX);
            if (m != 0 && pos == q) {
#pragma unroll
                for (int j = t; j < NR; j++) {
                    if (j % 8 == 0 && j >= lim)
                        break;
                    if (j < lim)
                        mine[kb * U + j] = a[j];
                }
#pragma unroll
                for (int c = 0; c < RB; c++)
                    SB[r * RB + c] = b[c];
            }
            if ((r & 31) == 0)
                s_key[buf][warp] = m, s_pos[buf][warp] = q;
            if (m != 0 && pos == q)
                s_row[buf][warp] = r;
            __syncthreads();

            /* the block's winner */
            int pp;
            const int bw = lsk_warps_winner<K, W>(s_key[buf], s_pos[buf], &pp);
            const int rw = s_row[buf][bw];
            const T *urow = M + rw * LDR + kb * U;
            const T piv = urow[t];
            const bool won = real && pos == pp;
            if (r == k)
                my_ipiv = pp + 1;
            if (pos == k)
                pos = pp; /* the row at position k goes where the pivot was */
            else if (won)
                pos = k;
            if (piv == (T)0 && info == 0)
                info = k + 1;
            T l = a[t];
            if (piv != (T)0) {
                if (lsk_abs(piv) >= lsk_safe_min<T>()) {
                    const T inv = (T)1 / piv;
                    l *= inv;
                    if (won)
                        dinv = inv;
                } else {
                    l /= piv;
                    if (won)
                        dinv = (T)0; /* 1/piv would overflow: divide in the solve */
                }
            }
            const bool below = real && pos > k;
            if (below)
                mine[k] = l;
#pragma unroll
            for (int j0 = (t + 1) / V * V; j0 < NR; j0 += V) {
                if (j0 % 8 == 0 && j0 >= lim)
                    break;
                T uv[V];
                lsk_ld16(urow + j0, uv);
#pragma unroll
                for (int e = 0; e < V; e++)
                    if (j0 + e > t && below)
                        a[j0 + e] -= l * uv[e];
            }
#pragma unroll
            for (int c = 0; c < RB; c++)
                if (below)
                    b[c] -= l * SB[rw * RB + c];
        }
#pragma unroll
        for (int j = 0; j < NR; j++)
            a[j] = j + U < NR ? a[j + U] : (T)0;
    }

    /* U X = Y; singular systems' X is not stored */
    if (nrhs > 0) {
        for (int k = n - 1; k >= 0; k--) {
            const int buf = k & 1;
            const T uk = mine[k];
            if (real && pos == k)
#pragma unroll
                for (int c = 0; c < RB; c++) {
                    b[c] = dinv != (T)0 ? b[c] * dinv : b[c] / uk;
                    s_x[buf][c] = b[c];
                }
            __syncthreads();
            if (real && pos < k)
#pragma unroll
                for (int c = 0; c < RB; c++)
                    b[c] -= uk * s_x[buf][c];
        }
    }
    if (real)
        s_inv[pos] = r; /* which row of the copy is row i of the factors */
    __syncthreads();

    for (int e = r; e < n * n; e += NR) {
        const int i = rowmajor ? e / n : e % n, j = rowmajor ? e % n : e / n;
        A[i * st.a_rs + j * st.a_cs] = M[s_inv[i] * LDR + j];
    }
    if (r == 0)
        st.info[sys] = info;
    if (!real)
        return;
    if (st.ipiv)
        st.ipiv[sys * n + r] = my_ipiv;
    if (info == 0)
#pragma unroll
        for (int c = 0; c < RB; c++)
            if (c < nrhs)
                B[pos * st.b_rs + c * st.b_cs] = b[c];
}

/* The kernel for NR rows, with registers for one right-hand side or for
 * LSK_BROWS_MAXRHS. */
template <typename T, int NR, int U>
static cudaError_t lsk_brows_launch(const lsk_bstack *st, int nrhs, cudaStream_t s)
{
    const unsigned blocks = (unsigned)st->batch;
    if (nrhs < 0 || nrhs > LSK_BROWS_MAXRHS)
        return cudaErrorInvalidValue;
    if (nrhs <= 1) {
        const size_t bytes = br_shape<T, NR, 1, U>::bytes;
        cudaError_t e = cudaFuncSetAttribute(k_brows_lu<T, NR, 1, U>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (e != cudaSuccess)
            return e;
        k_brows_lu<T, NR, 1, U><<<blocks, NR, bytes, s>>>(*st, nrhs);
    } else {
        const size_t bytes = br_shape<T, NR, LSK_BROWS_MAXRHS, U>::bytes;
        cudaError_t e = cudaFuncSetAttribute(k_brows_lu<T, NR, LSK_BROWS_MAXRHS, U>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (e != cudaSuccess)
            return e;
        k_brows_lu<T, NR, LSK_BROWS_MAXRHS, U><<<blocks, NR, bytes, s>>>(*st, nrhs);
    }
    return cudaGetLastError();
}

#endif
