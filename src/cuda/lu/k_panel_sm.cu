/* The one-SM LU leaf of method "lu": a panel (rows [j0, m), columns
 * [j0, j0+w)) factored by ONE thread block holding the whole panel in its
 * shared memory.
 *
 * Why one block: every multi-block leaf pays a cross-SM exchange per column
 * (grid barrier, cluster barrier or flags: 1-4 us measured), while inside
 * one SM a column costs one __syncthreads and two warp reductions. So the
 * leaf is as narrow as it must be for the panel to fit one SM (w = 32 down
 * to 8), and the recursion above it does the rest with cuBLAS.
 *
 * Per column: each warp reduces its candidates (|value|, LAPACK position,
 * row), one barrier, every warp reduces the warps' results itself, every
 * thread updates its own rows with the pivot row read from shared memory.
 * Rows never move inside the panel: each thread keeps its rows' LAPACK
 * positions in registers (so ties and the NaN rule follow idamax on
 * positions), and rows are written back where LAPACK's interchanges put
 * them. The interchanges reach the other columns through a move list.
 * Defines: lsk_panel_sm_width_d, lsk_panel_sm_width_s, lsk_panel_sm_d,
 *   lsk_panel_sm_s */
#include <climits>

#include "cuda/common/k_common.cuh"
#include "cuda/lu/k_lu.h"

#define LSK_SM_RPT ((LSK_SM_MAXROWS + LSK_SM_THREADS - 1) / LSK_SM_THREADS)

/* idamax's order as one unsigned 64-bit key: larger |x| wins (the bits of
 * a non-negative float order as integers), then the smaller position. A
 * NaN loses to every number (key 1) unless it sits at the diagonal
 * position, where idamax starts and is never beaten (the largest key).
 * Done rows and empty lanes carry key 0. */
__device__ __forceinline__ unsigned long long lsk_sm_bits(double a)
{
    return (unsigned long long)__double_as_longlong(a);
}
__device__ __forceinline__ unsigned long long lsk_sm_bits(float a)
{
    return (unsigned long long)__float_as_uint(a);
}
template <typename T>
__device__ __forceinline__ unsigned long long lsk_sm_key(T x, bool diagonal)
{
    T a = lsk_abs(x);
    return a == a ? lsk_sm_bits(a) + 2ull : (diagonal ? ~0ull : 1ull);
}

__device__ __forceinline__ bool lsk_sm_better(unsigned long long v, int pos,
                                              unsigned long long bv, int bpos)
{
    return v > bv || (v == bv && pos < bpos);
}

/* Warp-wide max of an unsigned word: one instruction from sm_80 on, a
 * shuffle tree before (the PTX build for older GPUs). */
__device__ __forceinline__ unsigned lsk_sm_warp_max(unsigned v)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xffffffffu, v);
#else
    for (int off = 16; off > 0; off >>= 1) {
        unsigned o = __shfl_xor_sync(0xffffffffu, v, off);
        v = o > v ? o : v;
    }
    return v;
#endif
}

/* The best (key, position, row) of the warp, in every lane: one warp-wide
 * max instruction per 32-bit word of the key and one for the position
 * (3-6x fewer instructions than a shuffle tree, which every warp of the
 * block repeats every column). Positions are unique, so one lane wins. */
template <typename T>
__device__ __forceinline__ void lsk_sm_warp_best(unsigned long long &key, int &pos, int &row)
{
    unsigned lo = (unsigned)key, hi = (unsigned)(key >> 32);
    bool top = true;
    if (sizeof(T) == 8) { /* a float's key fits the low word */
        unsigned mhi = lsk_sm_warp_max(hi);
        top = hi == mhi;
        hi = mhi;
    }
    unsigned mlo = lsk_sm_warp_max(top ? lo : 0u);
    top = top && lo == mlo;
    unsigned np = top ? ~(unsigned)pos : 0u; /* the largest ~pos: the smallest position */
    unsigned mnp = lsk_sm_warp_max(np);
    unsigned who = __ballot_sync(0xffffffffu, top && np == mnp);
    row = __shfl_sync(0xffffffffu, row, __ffs(who) - 1);
    pos = (int)~mnp;
    key = ((unsigned long long)hi << 32) | mlo;
}

/* Dynamic shared memory: the panel, R x w column-major (R >= rows). */
template <typename T>
__global__ void __launch_bounds__(LSK_SM_THREADS, 1)
    lsk_panel_sm_kernel(int m, int j0, int w, T *A, int lda, int *ipiv, int *info, int R,
                        int *moves)
{
    extern __shared__ __align__(16) unsigned char lsk_sm_smem[];
    T *s = (T *)lsk_sm_smem;
    __shared__ unsigned long long red_v[2][32];
    __shared__ int red_p[2][32], red_r[2][32];
    __shared__ int n_moves;
    const int tid = threadIdx.x, NT = blockDim.x, lane = tid & 31, warp = tid >> 5;
    const int nw = NT >> 5, M = m - j0;
    const T *src = A + (long long)j0 + (long long)j0 * lda;

    /* 8 loads in flight before their stores: a load from memory costs
     * ~1000 cycles, and one at a time cost ~12 us per 32-column leaf */
    for (int r = tid; r < M; r += NT)
        for (int c0 = 0; c0 < w; c0 += 8) {
            T v[8];
#pragma unroll
            for (int i = 0; i < 8; i++)
                if (c0 + i < w)
                    v[i] = src[r + (long long)(c0 + i) * lda];
#pragma unroll
            for (int i = 0; i < 8; i++)
                if (c0 + i < w)
                    s[(c0 + i) * R + r] = v[i];
        }
    if (tid == 0)
        n_moves = 0;
    int pos[LSK_SM_RPT];
    unsigned done = 0;
#pragma unroll
    for (int q = 0; q < LSK_SM_RPT; q++)
        pos[q] = tid + q * NT;
    __syncthreads();

    /* this thread's candidate for column 0 */
    unsigned long long cv = 0;
    int cp = INT_MAX, crow = -1;
#pragma unroll
    for (int q = 0; q < LSK_SM_RPT; q++) {
        int r = tid + q * NT;
        if (r < M) {
            unsigned long long a = lsk_sm_key(s[r], r == 0);
            if (lsk_sm_better(a, r, cv, cp)) {
                cv = a;
                cp = r;
                crow = r;
            }
        }
    }
    int zero_at = 0; /* first zero pivot (1-based in the panel), thread 0 */
    const T sfmin = lsk_safe_min<T>();
    for (int j = 0; j < w; j++) {
        const int b = j & 1;
        unsigned long long v = cv;
        int p = cp, row = crow;
        lsk_sm_warp_best<T>(v, p, row);
        if (lane == 0) {
            red_v[b][warp] = v;
            red_p[b][warp] = p;
            red_r[b][warp] = row;
        }
        __syncthreads(); /* the only block barrier of a column */
        v = lane < nw ? red_v[b][lane] : 0ull;
        p = lane < nw ? red_p[b][lane] : INT_MAX;
        row = lane < nw ? red_r[b][lane] : -1;
        lsk_sm_warp_best<T>(v, p, row);
        /* p: LAPACK position of the pivot row, row: where it lives here */
        const T piv = s[j * R + row];
        if (tid == 0) {
            ipiv[j0 + j] = j0 + p + 1;
            if (piv == (T)0 && zero_at == 0)
                zero_at = j + 1;
        }
        /* dgetf2: no scaling for an exactly-zero pivot (its column is zero);
         * the reciprocal only where it cannot overflow */
        const bool scale = piv != (T)0, by_rcp = lsk_abs(piv) >= sfmin;
        const T rcp = (T)1 / piv;
        const T *prow = s + row;
        cv = 0;
        cp = INT_MAX;
        crow = -1;
#pragma unroll
        for (int q = 0; q < LSK_SM_RPT; q++) {
            int r = tid + q * NT;
            if (r >= M || (done >> q & 1u))
                continue;
            if (r == row) { /* the pivot row: U's row j from now on */
                done |= 1u << q;
                pos[q] = j;
                continue;
            }
            if (pos[q] == j) /* the row LAPACK's interchange moves down */
                pos[q] = p;
            T *x = s + r;
            T l = x[j * R];
            if (scale)
                l = by_rcp ? l * rcp : l / piv;
            x[j * R] = l;
            if (j + 1 < w) {
                /* the next column first: its candidate is what the next
                 * column's reduction waits for. (Staging a chunk of the
                 * pivot row and this row in registers before the stores
                 * was slower on the H100: 0.71 vs 0.54 ms at n = 256.) */
                T y = x[(j + 1) * R] - l * prow[(j + 1) * R];
                x[(j + 1) * R] = y;
                unsigned long long a = lsk_sm_key(y, pos[q] == j + 1);
                if (lsk_sm_better(a, pos[q], cv, cp)) {
                    cv = a;
                    cp = pos[q];
                    crow = r;
                }
                int k = j + 2;
                /* 4 columns' loads before their stores: the compiler
                 * cannot tell that the rows never alias (H100: 5 % at n = 256) */
                for (; k + 4 <= w; k += 4) {
                        T a0 = x[k * R], a1 = x[(k + 1) * R], a2 = x[(k + 2) * R],
                          a3 = x[(k + 3) * R];
                        T p0 = prow[k * R], p1 = prow[(k + 1) * R], p2 = prow[(k + 2) * R],
                          p3 = prow[(k + 3) * R];
                        x[k * R] = a0 - l * p0;
                        x[(k + 1) * R] = a1 - l * p1;
                        x[(k + 2) * R] = a2 - l * p2;
                        x[(k + 3) * R] = a3 - l * p3;
                    }
                for (; k < w; k++)
                    x[k * R] -= l * prow[k * R];
            }
        }
    }
    /* write the panel back in LAPACK's row order; moved rows go to the
     * move list for the columns outside the panel */
    T *dst = A + (long long)j0 + (long long)j0 * lda;
#pragma unroll
    for (int q = 0; q < LSK_SM_RPT; q++) {
        int r = tid + q * NT;
        if (r >= M)
            continue;
        for (int c = 0; c < w; c++)
            dst[pos[q] + (long long)c * lda] = s[c * R + r];
        if (pos[q] != r && moves) {
            int e = atomicAdd(&n_moves, 1);
            moves[1 + 2 * e] = j0 + pos[q];
            moves[2 + 2 * e] = j0 + r;
        }
    }
    __syncthreads();
    if (tid == 0) {
        if (moves)
            moves[0] = n_moves;
        if (zero_at && *info == 0)
            *info = j0 + zero_at;
    }
}

/* The panel's column stride in shared memory. */
static int lsk_sm_stride(int rows)
{
    return rows | 1; /* an odd stride spreads a row over the banks */
}

template <typename T>
static int panel_sm_width(int rows, int w_max, size_t smem_max)
{
    size_t es = sizeof(T);
    if (rows < 1 || rows > LSK_SM_MAXROWS)
        return 0;
    int w = w_max < LSK_SM_MAXW ? w_max : LSK_SM_MAXW;
    while (w >= 1 && (size_t)lsk_sm_stride(rows) * w * es > smem_max)
        w--;
    return w;
}
LSK_DEFINE(LSK_PANEL_SM_WIDTH_SIG, panel_sm_width, (rows, w_max, smem_max))

template <typename T>
static cudaError_t panel_sm(int m, int ncols, int j0, int w, T *dA, int lda, int *d_ipiv,
                            int *d_info, int *d_moves, size_t smem_max, cudaStream_t s)
{
    int rows = m - j0, R = lsk_sm_stride(rows);
    size_t es = sizeof(T), smem = (size_t)R * w * es;
    if (rows < 1 || rows > LSK_SM_MAXROWS || w < 1 || w > LSK_SM_MAXW || smem > smem_max)
        return cudaErrorInvalidConfiguration;
    int threads = (rows + 31) / 32 * 32;
    threads = threads > LSK_SM_THREADS ? LSK_SM_THREADS : threads;
    int *mv = ncols > w ? d_moves : NULL;
    cudaError_t e = cudaFuncSetAttribute(lsk_panel_sm_kernel<T>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem_max);
    if (e != cudaSuccess)
        return e;
    lsk_panel_sm_kernel<T><<<1, threads, smem, s>>>(m, j0, w, dA, lda, d_ipiv, d_info, R, mv);
    e = cudaGetLastError();
    if (e != cudaSuccess || ncols <= w)
        return e;
    return lsk_typed<T>(lsk_apply_moves_d, lsk_apply_moves_s)(ncols, j0, w, dA, lda, d_moves, s);
}
LSK_DEFINE(LSK_PANEL_SM_SIG, panel_sm,
           (m, ncols, j0, w, dA, lda, d_ipiv, d_info, d_moves, smem_max, s))
