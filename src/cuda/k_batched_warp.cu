/* Batched LU for n <= 32: each matrix belongs to NP lanes of a warp (NP =
 * n rounded up to a power of two), lane r holding row r of A and of B in
 * registers for the whole factorization. Rows are never moved: each lane
 * keeps the position its row has in LAPACK's row order (`pos`), the pivot
 * search and the row exchange only relabel positions, and the final write
 * puts every row where LAPACK's getrf would have left it. With right-hand
 * sides, B rides along as extra columns of the elimination (forward
 * substitution for free) and the back substitution follows in registers,
 * so A and B are read once and written once. Rows r >= n are padding: an
 * identity row that is never a pivot candidate. */
#include <cuda_runtime.h>

#include "k_batched.h"
#include "k_common.cuh"

#define FULL_MASK 0xffffffffu
#define WARP_THREADS 128 /* 4 warps a block */

template <typename T> __device__ __forceinline__ T bw_sfmin();
template <> __device__ __forceinline__ double bw_sfmin<double>() { return 2.2250738585072014e-308; }
template <> __device__ __forceinline__ float bw_sfmin<float>() { return 1.17549435e-38f; }

/* The pivot of column k among candidate lanes: LAPACK's idamax in position
 * order (first largest magnitude; a NaN wins only at position k, where the
 * search starts). Returns the lane (within the segment) holding it. */
template <typename T, int NP>
__device__ __forceinline__ int bw_pivot_lane(T v, bool cand, int pos, int k, int r, int seg)
{
    unsigned segmask = (NP == 32 ? FULL_MASK : ((1u << NP) - 1u)) << (seg * NP);
    unsigned nan_k = __ballot_sync(FULL_MASK, cand && pos == k && v != v) & segmask;
    T s = cand && v == v ? lsk_abs(v) : (T)-1;
    int p = pos, lane = r;
#pragma unroll
    for (int off = NP / 2; off >= 1; off /= 2) {
        T os = __shfl_xor_sync(FULL_MASK, s, off, NP);
        int op = __shfl_xor_sync(FULL_MASK, p, off, NP);
        int ol = __shfl_xor_sync(FULL_MASK, lane, off, NP);
        if (os > s || (os == s && op < p))
            s = os, p = op, lane = ol;
    }
    return nan_k ? __ffs(nan_k) - 1 - seg * NP : lane;
}

template <typename T, int NP, int RB>
__global__ void __launch_bounds__(WARP_THREADS)
k_bwarp_lu(lsk_bstack st, int nrhs)
{
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
    if (real) {
#pragma unroll
        for (int j = 0; j < NP; j++)
            if (j < n)
                a[j] = A[r * st.a_rs + j * st.a_cs];
    }
#pragma unroll
    for (int c = 0; c < RB; c++)
        b[c] = (real && c < nrhs) ? B[r * st.b_rs + c * st.b_cs] : (T)0;

    int pos = r, my_ipiv = r + 1, info = 0;
#pragma unroll
    for (int k = 0; k < NP; k++) {
        if (k >= n) /* n is the same for the whole grid: no divergence */
            break;
        const bool cand = r < n && pos >= k;
        const int pl = bw_pivot_lane<T, NP>(a[k], cand, pos, k, r, seg);
        const int pp = __shfl_sync(FULL_MASK, pos, pl, NP);
        const T piv = __shfl_sync(FULL_MASK, a[k], pl, NP);
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
        if (piv != (T)0)
            l = lsk_abs(piv) >= bw_sfmin<T>() ? l * ((T)1 / piv) : l / piv;
        if (below)
            a[k] = l;
#pragma unroll
        for (int j = k + 1; j < NP; j++) {
            T u = __shfl_sync(FULL_MASK, a[j], pl, NP);
            if (below && j < n)
                a[j] -= l * u;
        }
#pragma unroll
        for (int c = 0; c < RB; c++) {
            T u = __shfl_sync(FULL_MASK, b[c], pl, NP);
            if (below && c < nrhs)
                b[c] -= l * u;
        }
    }

    /* U X = Y: position k's lane divides, the lanes above subtract. Run by
     * every segment (shuffles need the whole warp); singular systems'
     * results are simply not written. */
    if (nrhs > 0) {
        unsigned segmask = (NP == 32 ? FULL_MASK : ((1u << NP) - 1u)) << (seg * NP);
#pragma unroll
        for (int k = NP - 1; k >= 0; k--) {
            if (k >= n)
                continue;
            unsigned m = __ballot_sync(FULL_MASK, r < n && pos == k) & segmask;
            int ql = __ffs(m) - 1 - seg * NP;
#pragma unroll
            for (int c = 0; c < RB; c++) {
                T x = __shfl_sync(FULL_MASK, b[c] / a[k], ql, NP);
                if (pos == k)
                    b[c] = x;
                else if (r < n && pos < k)
                    b[c] -= a[k] * x;
            }
        }
    }

    if (!real)
        return;
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

template <typename T, int NP>
static cudaError_t launch_np(const lsk_bstack *st, int nrhs, cudaStream_t s)
{
    long long threads = (long long)st->batch * NP;
    unsigned blocks = lsk_blocks(threads, WARP_THREADS);
    /* registers for B only where there are right-hand sides */
    if (nrhs == 0)
        k_bwarp_lu<T, NP, 1><<<blocks, WARP_THREADS, 0, s>>>(*st, 0);
    else if (nrhs <= 2)
        k_bwarp_lu<T, NP, 2><<<blocks, WARP_THREADS, 0, s>>>(*st, nrhs);
    else
        k_bwarp_lu<T, NP, LSK_BWARP_MAXRHS><<<blocks, WARP_THREADS, 0, s>>>(*st, nrhs);
    return cudaGetLastError();
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

extern "C" cudaError_t lsk_bwarp_lu(int dbl, const lsk_bstack *st, int nrhs, cudaStream_t s)
{
    if (st->n < 1 || st->n > LSK_BWARP_MAXN || nrhs < 0 || nrhs > LSK_BWARP_MAXRHS)
        return cudaErrorInvalidValue;
    return dbl ? launch<double>(st, nrhs, s) : launch<float>(st, nrhs, s);
}
