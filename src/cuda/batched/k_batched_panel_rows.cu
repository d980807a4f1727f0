/* The blocked batched LU's panel where it has at most LSK_BBLK_ROWS_MAXM
 * rows (the last panels of every order, all of n = 128): a block of 128
 * threads a matrix, panel row r in thread r's registers, one barrier a
 * column, the scheme of k_batched_rows.cuh. Rows never move while the
 * panel is factored: each keeps its position in LAPACK's row order
 * (`pos`), the pivot search and the exchange only relabel, and the final
 * store puts every row where getf2 leaves it, so the row moves come out
 * of the positions. Each warp's candidate (first largest magnitude, a NaN
 * only where the search starts: idamax) writes its row's remaining
 * columns to a slot in shared memory (two sets, by the column's parity,
 * so that no second barrier is needed before the next column's writes);
 * after the barrier every thread picks the block's winner among the
 * warps' and updates its row from that slot. The shared-memory panel
 * (k_batched_blocked.cu) spends three barriers and a serial column loop a
 * thread on each column instead.
 * Defines: lsk_bblk_panel_rows_d, lsk_bblk_panel_rows_s */
#include <cuda_runtime.h>
#include <limits.h>

#include "cuda/batched/k_batched_blocked.h"
#include "cuda/batched/k_batched_pivot.cuh"
#include "cuda/common/k_common.cuh"

#define NR LSK_BBLK_ROWS_MAXM
#define NW (NR / 32)
#define JB LSK_BBLK_MAXJB

template <typename T>
__global__ void __launch_bounds__(NR)
k_bblk_panel_rows(lsk_bstack st, int j0, int jb, int *moves, int mstride)
{
    using K = decltype(lsk_pkey((T)0, false));
    constexpr K NAN_FIRST = ~(K)0;
    __shared__ T s_urow[2][NW][JB];
    __shared__ K s_key[2][NW];
    __shared__ int s_pos[2][NW];
    __shared__ int s_cnt;
    const int n = st.n, m = n - j0, r = threadIdx.x, warp = r / 32;
    const bool real = r < m;
    const long long sys = blockIdx.x, lda = st.a_cs;
    T *P = (T *)st.A + sys * st.sA + j0 + (long long)j0 * lda; /* the panel */

    T a[JB];
#pragma unroll
    for (int j = 0; j < JB; j++)
        a[j] = (real && j < jb) ? P[r + j * lda] : (T)0;
    int pos = r, info = st.info[sys];
    if (r == 0)
        s_cnt = 0;

#pragma unroll
    for (int k = 0; k < JB; k++) {
        if (k >= jb)
            break;
        const int buf = k & 1;
        const bool cand = real && pos >= k;
        K key = lsk_pkey(a[k], cand);
        if (cand && pos == k && a[k] != a[k])
            key = NAN_FIRST; /* idamax: a NaN where the search starts stays */
        const K mx = lsk_kmax<32>(key);
        const int q = lsk_warp_imin(key == mx && mx != 0 ? pos : INT_MAX);
        if (mx != 0 && pos == q)
#pragma unroll
            for (int j = k; j < JB; j++)
                s_urow[buf][warp][j] = a[j];
        if ((r & 31) == 0)
            s_key[buf][warp] = mx, s_pos[buf][warp] = q;
        __syncthreads();

        int pp;
        const T *urow = s_urow[buf][lsk_warps_winner<K, NW>(s_key[buf], s_pos[buf], &pp)];
        const T piv = urow[k];
        if (r == 0)
            st.ipiv[sys * n + j0 + k] = j0 + pp + 1;
        if (piv == (T)0 && info == 0)
            info = j0 + k + 1;
        if (pos == k)
            pos = pp; /* the row at position k goes where the pivot was */
        else if (real && pos == pp)
            pos = k;
        if (real && pos > k) {
            T l = a[k];
            if (piv != (T)0)
                l = lsk_abs(piv) >= lsk_safe_min<T>() ? l * ((T)1 / piv) : l / piv;
            a[k] = l;
#pragma unroll
            for (int j = k + 1; j < JB; j++)
                a[j] -= l * urow[j];
        }
    }

    /* every thread read its row before the first barrier: store in place */
    if (real) {
#pragma unroll
        for (int j = 0; j < JB; j++)
            if (j < jb)
                P[pos + j * lda] = a[j];
        if (pos != r) {
            int *mv = moves + sys * mstride;
            const int c = atomicAdd(&s_cnt, 1);
            mv[1 + 2 * c] = j0 + pos;
            mv[2 + 2 * c] = j0 + r;
        }
    }
    __syncthreads();
    if (r == 0) {
        moves[sys * mstride] = s_cnt;
        st.info[sys] = info;
    }
}

template <typename T>
static cudaError_t panel_rows(const lsk_bstack *st, int j0, int jb, int *moves, int mstride,
                              cudaStream_t s)
{
    if (jb < 1 || jb > JB || j0 < 0 || j0 + jb > st->n || st->n - j0 > NR || st->a_rs != 1 ||
        mstride < 1 + 4 * jb)
        return cudaErrorInvalidValue;
    k_bblk_panel_rows<T><<<(unsigned)st->batch, NR, 0, s>>>(*st, j0, jb, moves, mstride);
    return cudaGetLastError();
}
LSK_DEFINE(LSK_BBLK_PANEL_ROWS_SIG, panel_rows, (st, j0, jb, moves, mstride, s))
