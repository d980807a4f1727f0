/* The panel of the small-n LU (k_lu_small.cu): a 32-column panel of the
 * owner's column block factored by the whole thread block, as two halves
 * of 16 columns with their rows in registers (lus_half), and the row moves
 * that publish its interchanges to the other column blocks.
 *
 * Included by k_lu_small.cu only; it needs LSK_LUS_THREADS and
 * LSK_LUS_PANEL (lu_small.h). */
#ifndef LS_CUDA_K_LU_SMALL_PANEL_CUH
#define LS_CUDA_K_LU_SMALL_PANEL_CUH

#include <limits.h>

#include "cuda/common/k_common.cuh"
#include "cuda/lu/lu_small.h"

#define LSK_LUS_WARPS (LSK_LUS_THREADS / 32)
#define LSK_LUS_NB LSK_LUS_PANEL
#define LSK_LUS_LD11 (LSK_LUS_NB + 1)            /* L11's copy, padded against bank conflicts */
#define LSK_LUS_LDU 36                           /* U12's copy: rows 16-byte aligned */
#define LSK_LUS_CHUNK 16 /* columns a thread accumulates in the GEMM update */

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

/* Panel rows a thread holds in a half (the kernel's R): one where the
 * matrix fits shared memory up to n = 512, two above (n <= 1024). */

/* Columns [c0, c1) of a block (ld ld): the list's moves. All values are
 * read before any is written, so the order of the list does not matter.
 * Every thread of the block calls it. */
template <typename T>
__device__ void lus_move_rows(T *S, int ld, int c0, int c1, const lus_list *m)
{
    constexpr int REGS = 2 * LSK_LUS_HALF * LSK_LUS_NB / LSK_LUS_THREADS;
    const int cnt = m->cnt, tot = cnt * (c1 - c0);
    T v[REGS];
#pragma unroll
    for (int t = 0; t < REGS; t++) {
        const int e = threadIdx.x + t * LSK_LUS_THREADS;
        if (e < tot)
            v[t] = S[m->src[e % cnt] + (long long)(c0 + e / cnt) * ld];
    }
    __syncthreads();
#pragma unroll
    for (int t = 0; t < REGS; t++) {
        const int e = threadIdx.x + t * LSK_LUS_THREADS;
        if (e < tot)
            S[m->dst[e % cnt] + (long long)(c0 + e / cnt) * ld] = v[t];
    }
    __syncthreads();
}

/* Both halves of a panel's moves. */
template <typename T>
__device__ void lus_move_panel(T *S, int ld, int c0, int c1, const lus_pub *m)
{
    lus_move_rows(S, ld, c0, c1, &m->half[0]);
    lus_move_rows(S, ld, c0, c1, &m->half[1]);
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
 * parity): key, position, row, the candidate row's values (16-byte
 * aligned: they are stored as vectors) and the reciprocal of its value in
 * the column (1 for a zero), made before the barrier so that it is not on
 * the column's path after it. */
template <typename T> struct lus_cand {
    __align__(16) T vals[2][LSK_LUS_WARPS][LSK_LUS_HALF];
    T rcp[2][LSK_LUS_WARPS];
    unsigned long long key[2][LSK_LUS_WARPS];
    int pos[2][LSK_LUS_WARPS], row[2][LSK_LUS_WARPS];
};

/* Values c0..15 of a candidate row, c0 even (FP64) or a multiple of 4
 * (FP32), into shared memory as 16-byte vectors: per column every warp
 * stores its candidate, and at 16 warps these shared-memory instructions
 * are a good part of the column's time. (Reading the pivot row back as
 * vectors too held all of it in registers at once and spilled.) */
__device__ __forceinline__ void lus_put_row(double *dst, const double (&v)[LSK_LUS_HALF], int c0)
{
#pragma unroll
    for (int c = 0; c < LSK_LUS_HALF; c += 2)
        if (c >= c0)
            *reinterpret_cast<double2 *>(dst + c) = make_double2(v[c], v[c + 1]);
}
__device__ __forceinline__ void lus_put_row(float *dst, const float (&v)[LSK_LUS_HALF], int c0)
{
#pragma unroll
    for (int c = 0; c < LSK_LUS_HALF; c += 4)
        if (c >= c0)
            *reinterpret_cast<float4 *>(dst + c) = make_float4(v[c], v[c + 1], v[c + 2], v[c + 3]);
}
/* The vector length lus_put_row moves. */
template <typename T> struct lus_vec {
    static constexpr int len = 16 / sizeof(T);
};

/* One half: the w <= HALF columns at H (ld ld) of rows r0..n-1, unblocked
 * LU with LAPACK's pivots (ipiv[r0..r0+w-1]); the moves into *out and
 * applied to columns [g0, g1) of the block B holding them. A thread keeps
 * its rows (r0 + tid + r * THREADS) in registers and tracks where the
 * interchanges have put each (pos) instead of moving it. Per column, one
 * barrier of the warps holding rows: each warp's best candidate comes
 * with its row's values, so after the barrier every thread has the pivot
 * row and updates its own rows in registers. */
template <typename T, int R>
__device__ void lus_half(T *H, int n, int ld, int r0, int w, int *ipiv, lus_list *out, int *zero,
                         lus_cand<T> *cd, T *B, int g0, int g1)
{
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
            a[r][c] = live[r] && c < w ? H[row[r] + (long long)c * ld] : (T)0;
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
            /* every lane's candidate's reciprocal, made while the warp
             * reduction below runs; the winner's travels with its row */
            T cv = a[0][j];
#pragma unroll
            for (int r = 1; r < R; r++)
                cv = bsel == r ? a[r][j] : cv;
            const T crcp = cv != (T)0 ? lus_rcp(cv) : (T)1;
            const int win = lus_warp_best(bk, bp, br);
            /* columns from c0 (j rounded down to a whole vector) travel;
             * those before j are never read */
            constexpr int VL = lus_vec<T>::len;
            const int c0 = j / VL * VL;
            if (lane == win) {
                T v[LSK_LUS_HALF];
#pragma unroll
                for (int c = 0; c < LSK_LUS_HALF; c++) {
                    v[c] = a[0][c];
#pragma unroll
                    for (int r = 1; r < R; r++)
                        v[c] = bsel == r ? a[r][c] : v[c];
                }
                lus_put_row(cd->vals[par][warp], v, c0);
                cd->rcp[par][warp] = crcp;
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
            const bool scale = piv != (T)0, mul = lsk_abs(piv) >= lsk_safe_min<T>();
            const T rp = cd->rcp[par][q]; /* lus_rcp(piv), or 1 for a zero pivot */
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
                    H[row[r] + (long long)c * ld] = a[r][c];
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
    lus_move_rows(B, ld, g0, g1, out);
}

/* acc[q] += l * u[q], q < 16, u 16-byte aligned (shared memory). */
__device__ __forceinline__ void lus_axpy16(double *acc, double l, const double *u);
__device__ __forceinline__ void lus_axpy16(float *acc, float l, const float *u);

/* S[i0.., c0..c1) -= L U for FP64 on the tensor cores (mma m8n8k4): a
 * warp takes 8-row tiles of the rows i0 .. i0+rows-1 across 8 CT columns;
 * L: rows i of columns kk < w (ld ldl; through L2 when CG, for columns
 * another SM wrote), U from Ub (4 KS rows; zero past w and past c1). On
 * one SM these products set the look-ahead's time, and the tensor cores do
 * twice the FP64 multiply-adds a cycle of the FMA units. */
__device__ __forceinline__ void lus_dmma(double (&d)[2], double a, double b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+d"(d[0]), "+d"(d[1])
        : "d"(a), "d"(b));
#endif
}

template <int KS, int CT, bool CG>
__device__ void lus_gemm_tc(double *S, int c0, int c1, int ld, int i0, int rows, int w,
                            const double *L, int ldl, const double *Ub)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    for (int tile = warp; tile * 8 < rows; tile += LSK_LUS_WARPS) {
        const int r = tile * 8 + g; /* A (8 x 4) fragments: row g, column t */
        const double *l = L + i0 + r;
        double af[KS], acc[CT][2];
#pragma unroll
        for (int k = 0; k < KS; k++) {
            const double *x = l + (long long)(k * 4 + t) * ldl;
            af[k] = r < rows && k * 4 + t < w ? (CG ? __ldcg(x) : *x) : 0.0;
        }
#pragma unroll
        for (int ct = 0; ct < CT; ct++)
            acc[ct][0] = acc[ct][1] = 0.0;
#pragma unroll
        for (int k = 0; k < KS; k++)
#pragma unroll
            for (int ct = 0; ct < CT; ct++) /* B (4 x 8): row t, column g */
                lus_dmma(acc[ct], af[k], Ub[(k * 4 + t) * LSK_LUS_LDU + ct * 8 + g]);
        if (r < rows) { /* D (8 x 8): row g, columns 2t and 2t + 1 */
            double *a = S + i0 + r + (long long)c0 * ld;
#pragma unroll
            for (int ct = 0; ct < CT; ct++)
#pragma unroll
                for (int e = 0; e < 2; e++)
                    if (c0 + ct * 8 + 2 * t + e < c1)
                        a[(long long)(ct * 8 + 2 * t + e) * ld] -= acc[ct][e];
        }
    }
}

/* The owner's whole block factors the w columns of panel P (its slot, ld
 * ld; rows k0..n-1 up to date), as two halves: the left half (lus_half),
 * U12 = L11^-1 A12 and A22 -= L21 U12 for the right half's columns, the
 * right half. LAPACK's pivots into ipiv[k0..], both halves' moves and the
 * first zero into *pub; the rows in pivot order in all w columns. Then the
 * columns go to Ag (ld lda: the panel's columns of A) for the other
 * blocks; Ag null: P is A's own columns already. Ub: the block's U12
 * buffer. */
template <typename T, int R>
__device__ void lus_panel(T *P, int n, int ld, int k0, int w, int *ipiv, lus_pub *pub,
                          lus_cand<T> *cd, T *Ub, T *Ag, int lda)
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int h = w < LSK_LUS_HALF ? w : LSK_LUS_HALF, w2 = w - h;
    int zero = 0;
    lus_half<T, R>(P, n, ld, k0, h, ipiv, &pub->half[0], &zero, cd, P, 0, w);
    if (w2 > 0) {
        T *Q = P + (long long)h * ld; /* the right half */
        /* U12: a warp a column of the right half, L11 read in place */
        for (int c = warp; c < LSK_LUS_HALF; c += LSK_LUS_WARPS) {
            T y = (T)0;
            if (c < w2) {
                T *x = Q + k0 + (long long)c * ld;
                y = lane < h ? x[lane] : (T)0;
                for (int kk = 0; kk < h - 1; kk++) {
                    const T xk = __shfl_sync(0xffffffffu, y, kk);
                    if (lane > kk && lane < h)
                        y -= P[k0 + lane + (long long)kk * ld] * xk;
                }
                if (lane < h)
                    x[lane] = y;
            }
            if (lane < LSK_LUS_HALF)
                Ub[lane * LSK_LUS_LDU + c] = y;
        }
        __syncthreads();
        if constexpr (sizeof(T) == 8) {
            lus_gemm_tc<LSK_LUS_HALF / 4, LSK_LUS_HALF / 8, false>(Q, 0, w2, ld, k0 + h, n - k0 - h,
                                                                   h, P, ld, Ub);
        } else {
            for (int i = k0 + h + tid; i < n; i += LSK_LUS_THREADS) {
                T acc[LSK_LUS_HALF];
#pragma unroll
                for (int q = 0; q < LSK_LUS_HALF; q++)
                    acc[q] = (T)0;
#pragma unroll 2 /* further, the accumulators spill */
                for (int kk = 0; kk < LSK_LUS_HALF; kk++)
                    lus_axpy16(acc, kk < h ? P[i + (long long)kk * ld] : (T)0,
                               Ub + kk * LSK_LUS_LDU);
#pragma unroll
                for (int q = 0; q < LSK_LUS_HALF; q++)
                    if (q < w2)
                        Q[i + (long long)q * ld] -= acc[q];
            }
        }
        __syncthreads();
        lus_half<T, R>(Q, n, ld, k0 + h, w2, ipiv, &pub->half[1], &zero, cd, P, 0, w);
    } else if (tid == 0) {
        pub->half[1].cnt = 0;
    }
    if (tid == 0)
        pub->zero = zero;
    /* The factored columns to device memory (the panel's columns of A, rows
     * k0..n-1), where the other blocks read them: L2 serves a block's
     * many concurrent loads far faster than distributed shared memory.
     * In place (Ag null) they are there already. The fence orders them
     * before the cluster barrier's release. */
    const int m = n - k0;
    if (Ag)
        for (int e = tid; e < m * w; e += LSK_LUS_THREADS) {
            const int i = k0 + e % m, c = e / m;
            Ag[i + (long long)c * lda] = P[i + (long long)c * ld];
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

#endif
