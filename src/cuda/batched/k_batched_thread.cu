/* Batched LU for the smallest orders (n <= LSK_BTHREAD_MAXN): a matrix per
 * thread, held in its registers from the load to the store.
 *
 * Where a warp shares one matrix (k_batched_warp.cu), each column step
 * pays a cross-lane pivot search and a broadcast of the pivot row; at
 * n <= 8 that overhead is most of the instructions (measured on an H100
 * at n = 8, FP64: about 180 instructions a column step for 4 matrices a
 * warp). Here the pivot search is n - k compares in one thread, the row
 * interchange is selects on registers, and a warp instruction advances 32
 * matrices at once. Every index is a compile-time constant (N is a
 * template parameter, the loops are unrolled), so nothing spills to local
 * memory: a dynamic row index would.
 *
 * A thread reading its own matrix from device memory touches a different
 * line for every thread of the warp (measured on an H100: at n = 4, FP64,
 * twice the time of the warp kernel). So where the block's matrices are
 * one contiguous range (a compact stack, column- or row-major), the block
 * loads them into shared memory together, in coalesced order, and every
 * thread takes its matrix from there (padded by one element against bank
 * conflicts); the factors go back the same way. Other strides load
 * directly.
 *
 * LAPACK's getrf exactly: idamax's pivot (the first largest magnitude; a
 * NaN only where the search starts), whole rows interchanged, multipliers
 * by the reciprocal unless the pivot is below the safe minimum, info the
 * first exactly zero pivot with the factorization run to the end. With
 * right-hand sides (gesv) B's rows are interchanged with A's, L Y = P B
 * and U X = Y follow in registers, and X is written only where info is 0.
 * Defines: lsk_bthread_lu_d, lsk_bthread_lu_s */
#include <cuda_runtime.h>

#include "cuda/batched/k_batched.h"
#include "cuda/common/k_common.cuh"

/* Threads (and matrices) a block: the staged matrices of a block fit the
 * 48 KB of static shared memory up to N = 8 in FP64. */
#define BT_THREADS(N) ((N) <= 5 ? 128 : 64)

/* The block's matrices between registers and device memory. compact: the
 * stack is one contiguous range of N x N matrices (sA = N * N) in the
 * layout row (row-major) or not, so they go through shared memory S. */
template <typename T, int N, bool LOAD>
__device__ __forceinline__ void bt_move(T (&a)[N][N], const lsk_bstack &st, T *S, bool compact,
                                        bool row, long long first, int count)
{
    constexpr int NN = N * N, TPB = BT_THREADS(N);
    T *A = (T *)st.A;
    T *mine = S + threadIdx.x * (NN + 1);
    if (!compact) {
        if (threadIdx.x >= count)
            return;
        T *M = A + (first + threadIdx.x) * st.sA;
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int i = 0; i < N; i++) {
                if (LOAD)
                    a[i][j] = M[i * st.a_rs + j * st.a_cs];
                else
                    M[i * st.a_rs + j * st.a_cs] = a[i][j];
            }
        return;
    }
    T *base = A + first * NN;
    if (LOAD) {
        for (int e = threadIdx.x; e < count * NN; e += TPB)
            S[(e / NN) * (NN + 1) + e % NN] = base[e];
        __syncthreads();
    }
    if (threadIdx.x < count) {
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int i = 0; i < N; i++) {
                const int k = row ? i * N + j : i + j * N;
                if (LOAD)
                    a[i][j] = mine[k];
                else
                    mine[k] = a[i][j];
            }
    }
    if (!LOAD) {
        __syncthreads();
        for (int e = threadIdx.x; e < count * NN; e += TPB)
            base[e] = S[(e / NN) * (NN + 1) + e % NN];
    }
}

template <typename T, int N, int RB>
__global__ void __launch_bounds__(BT_THREADS(N)) k_bthread_lu(lsk_bstack st, int nrhs)
{
    constexpr int NN = N * N, TPB = BT_THREADS(N);
    __shared__ T S[TPB * (NN + 1)];
    const long long first = (long long)blockIdx.x * TPB, sys = first + threadIdx.x;
    const int count = st.batch - first < TPB ? (int)(st.batch - first) : TPB;
    const bool row = st.a_rs == N && st.a_cs == 1;
    const bool compact = st.sA == NN && (row || (st.a_rs == 1 && st.a_cs == N));
    T a[N][N], b[N][RB];
    /* Every thread of the block passes the same two barriers (in the load
     * and the store), a thread past the stack's end too. */
    bt_move<T, N, true>(a, st, S, compact, row, first, count);
    const bool live = sys < st.batch;
    int info = 0, piv[N];
    T dinv[N]; /* 1 / U(k, k), or 0: divide (a pivot below the safe minimum, or zero) */
#pragma unroll
    for (int i = 0; i < N; i++)
#pragma unroll
        for (int c = 0; c < RB; c++)
            b[i][c] = live && c < nrhs ? ((const T *)st.B)[sys * st.sB + i * st.b_rs + c * st.b_cs]
                                       : (T)0;
#pragma unroll
    for (int k = 0; k < N && live; k++) {
        /* idamax over rows k..N-1 of column k */
        int p = k;
        T best = lsk_abs(a[k][k]);
#pragma unroll
        for (int i = k + 1; i < N; i++) {
            const T v = lsk_abs(a[i][k]);
            if (v > best)
                best = v, p = i;
        }
        piv[k] = p;
        /* rows k and p change places (whole rows, and B's) */
#pragma unroll
        for (int i = k + 1; i < N; i++) {
            if (p == i) {
#pragma unroll
                for (int j = 0; j < N; j++) {
                    const T t = a[k][j];
                    a[k][j] = a[i][j];
                    a[i][j] = t;
                }
#pragma unroll
                for (int c = 0; c < RB; c++) {
                    const T t = b[k][c];
                    b[k][c] = b[i][c];
                    b[i][c] = t;
                }
            }
        }
        const T d = a[k][k];
        const bool scale = d != (T)0, recip = lsk_abs(d) >= lsk_safe_min<T>();
        if (!scale && info == 0)
            info = k + 1;
        const T r = scale && recip ? (T)1 / d : (T)0;
        dinv[k] = r;
#pragma unroll
        for (int i = k + 1; i < N; i++) {
            T l = a[i][k];
            if (scale)
                l = recip ? l * r : l / d;
            a[i][k] = l;
#pragma unroll
            for (int j = k + 1; j < N; j++)
                a[i][j] -= l * a[k][j];
#pragma unroll
            for (int c = 0; c < RB; c++)
                b[i][c] -= l * b[k][c]; /* L Y = P B, column by column */
        }
    }

    bt_move<T, N, false>(a, st, S, compact, row, first, count);
    if (!live)
        return;
    if (st.ipiv)
#pragma unroll
        for (int k = 0; k < N; k++)
            st.ipiv[sys * N + k] = piv[k] + 1;
    st.info[sys] = info;
    if (nrhs == 0 || info != 0)
        return;
    /* U X = Y */
#pragma unroll
    for (int k = N - 1; k >= 0; k--) {
#pragma unroll
        for (int c = 0; c < RB; c++) {
            const T x = dinv[k] != (T)0 ? b[k][c] * dinv[k] : b[k][c] / a[k][k];
            b[k][c] = x;
#pragma unroll
            for (int i = 0; i < k; i++)
                b[i][c] -= a[i][k] * x;
        }
    }
    T *B = (T *)st.B + sys * st.sB;
#pragma unroll
    for (int i = 0; i < N; i++)
#pragma unroll
        for (int c = 0; c < RB; c++)
            if (c < nrhs)
                B[i * st.b_rs + c * st.b_cs] = b[i][c];
}

template <typename T, int N>
static cudaError_t launch_n(const lsk_bstack *st, int nrhs, cudaStream_t s)
{
    const unsigned blocks = lsk_blocks(st->batch, BT_THREADS(N));
    if (nrhs <= 1)
        k_bthread_lu<T, N, 1><<<blocks, BT_THREADS(N), 0, s>>>(*st, nrhs);
    else
        k_bthread_lu<T, N, LSK_BTHREAD_MAXRHS><<<blocks, BT_THREADS(N), 0, s>>>(*st, nrhs);
    return cudaGetLastError();
}

template <typename T>
static cudaError_t bthread_lu(const lsk_bstack *st, int nrhs, cudaStream_t s)
{
    if (nrhs < 0 || nrhs > LSK_BTHREAD_MAXRHS)
        return cudaErrorInvalidValue;
    switch (st->n) {
    case 1: return launch_n<T, 1>(st, nrhs, s);
    case 2: return launch_n<T, 2>(st, nrhs, s);
    case 3: return launch_n<T, 3>(st, nrhs, s);
    case 4: return launch_n<T, 4>(st, nrhs, s);
    case 5: return launch_n<T, 5>(st, nrhs, s);
    case 6: return launch_n<T, 6>(st, nrhs, s);
    case 7: return launch_n<T, 7>(st, nrhs, s);
    case 8: return launch_n<T, 8>(st, nrhs, s);
    default: return cudaErrorInvalidValue;
    }
}
LSK_DEFINE(LSK_BTHREAD_LU_SIG, bthread_lu, (st, nrhs, s))
