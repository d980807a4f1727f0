/* The fused check of solved systems (k_check.h): A, B and X are read once
 * each, every row's residual B(i,:) - A(i,:) X and |A| row sum made in the
 * same pass in FP64 arithmetic, and the per-system norms turned into
 * LAPACK's scaled residual (ls_scaled_residual's rules) and reduced over
 * the systems on the device.
 *
 * Three shapes of work, chosen from n and A's layout so that a warp's
 * loads stay coalesced:
 *   small (n <= 32 with rows contiguous down a column, n <= 8 otherwise):
 *     a group of P = 2^ceil(log2 n) lanes owns a system, a lane a row;
 *     the group reduces its system alone (no atomics, no scratch to clear);
 *   col (column-major, n > 32): a block covers 32 rows, a lane a row, its
 *     8 warps split the columns; rows of 32 contiguous elements per load;
 *   row (row-major, n > 8): a warp a row, its lanes over the columns.
 * col and row may split a system over many blocks: their per-system norms
 * meet in scratch by atomicMax on the bit patterns of non-negative doubles
 * (ordered as the numbers; a NaN's bits beat every number's, so NaN wins),
 * bit 63 -- never set in a non-negative double -- carrying "A or B held
 * NaN or Inf". Then one thread a system makes its ratio, and blocks reduce
 * to (worst, its index, first non-finite index) partials that one last
 * block folds into the four outputs. */
#include <limits.h>
#include <math.h>

#include "cuda/common/k_check.h"
#include "cuda/common/k_common.cuh"

#define CHK_THREADS 256
#define CHK_WARPS (CHK_THREADS / 32)
#define CHK_RHS 4 /* right-hand sides per pass over A's row */
#define CHK_BAD (1ull << 63)
#define CHK_FULL 0xffffffffu
/* 3 blocks an SM (at most 85 registers a thread): enough loads in flight to stream
 * A at memory speed */
#define CHK_MIN_BLOCKS 3

/* One block's (or one system's) outcome. */
typedef struct chk_part {
    double worst;  /* ratio; -1 for none */
    int worst_at;  /* its system, -1 for none */
    int first_bad; /* INT_MAX for none */
} chk_part;

typedef enum { CHK_SMALL, CHK_COL, CHK_ROW } chk_shape;

__device__ __forceinline__ unsigned long long chk_key(double v)
{
    return (unsigned long long)__double_as_longlong(fabs(v));
}

__device__ __forceinline__ double chk_val(unsigned long long k)
{
    return __longlong_as_double((long long)(k & ~CHK_BAD));
}

__device__ __forceinline__ unsigned long long chk_max(unsigned long long a, unsigned long long b)
{
    return a > b ? a : b;
}

/* ls_scaled_residual's rules on the norms of one system. */
__device__ double chk_ratio(double an, double rn, double xn, int n, double eps)
{
    if (isnan(rn) || isnan(xn) || isnan(an))
        return __longlong_as_double(0x7ff8000000000000ll);
    if (rn == 0.0)
        return 0.0;
    double d = (double)n * an * xn * eps;
    if (d == 0.0 || !isfinite(d))
        return __longlong_as_double(0x7ff0000000000000ll);
    return rn / d;
}

/* Is (a, ia) worse -- reported first -- than (b, ib)? NaN beats numbers,
 * then the larger ratio, then the smaller index (-1, none, as the largest). */
__device__ __forceinline__ bool chk_worse(double a, int ia, double b, int ib)
{
    bool na = isnan(a), nb = isnan(b);
    if (na != nb)
        return na;
    if (!na && a != b)
        return a > b;
    return (unsigned)ia < (unsigned)ib;
}

/* (w, at, bad) over the block, valid in thread 0. Every thread calls it. */
__device__ void chk_block_reduce(double &w, int &at, int &bad)
{
    __shared__ double sw[CHK_THREADS];
    __shared__ int sat[CHK_THREADS], sbad[CHK_THREADS];
    int t = threadIdx.x;
    sw[t] = w, sat[t] = at, sbad[t] = bad;
    __syncthreads();
    for (int h = CHK_THREADS / 2; h > 0; h >>= 1) {
        if (t < h) {
            if (chk_worse(sw[t + h], sat[t + h], sw[t], sat[t]))
                sw[t] = sw[t + h], sat[t] = sat[t + h];
            if (sbad[t + h] < sbad[t])
                sbad[t] = sbad[t + h];
        }
        __syncthreads();
    }
    w = sw[0], at = sat[0], bad = sbad[0];
}

/* r[j] += sum over k = k0, k0 + ks, ... < n of A(i,k) X(k, c0 + j), j < nc,
 * in FP64; on the first pass also |A(i,k)| into asum and its finiteness. */
template <typename T>
__device__ __forceinline__ void chk_dot(const T *Ai, long long a_cs, const T *Xc, long long x_rs,
                                        long long x_cs, int n, int k0, int ks, int nc, bool first,
                                        double r[CHK_RHS], double &asum, int &bad)
{
#pragma unroll 4
    for (int k = k0; k < n; k += ks) {
        double a = (double)Ai[k * a_cs];
        if (first) {
            asum += fabs(a);
            bad |= !isfinite(a);
        }
#pragma unroll
        for (int j = 0; j < CHK_RHS; j++)
            if (j < nc)
                r[j] = fma(a, (double)Xc[k * x_rs + j * x_cs], r[j]);
    }
}

/* Row i's share of rhs c0 .. c0+nc-1 once its sums r are complete:
 * rrow += |B(i,c) - r|, xrow += |X(i,c)|, and B's finiteness. */
template <typename T>
__device__ __forceinline__ void chk_finish(const lsk_check_args &g, long long s, int i, int c0,
                                           int nc, const double r[CHK_RHS], double &rrow,
                                           double &xrow, int &bad)
{
    const T *Bi = (const T *)g.B + s * g.sB + i * g.b_rs;
    const T *Xi = (const T *)g.X + s * g.sX + i * g.x_rs;
#pragma unroll
    for (int j = 0; j < CHK_RHS; j++)
        if (j < nc) {
            double b = (double)Bi[(c0 + j) * g.b_cs];
            bad |= !isfinite(b);
            rrow += fabs(b - r[j]);
            xrow += fabs((double)Xi[(c0 + j) * g.x_cs]);
        }
}

/* Without X: B's row i only looked at. */
template <typename T>
__device__ __forceinline__ int chk_b_bad(const lsk_check_args &g, long long s, int i)
{
    const T *Bi = (const T *)g.B + s * g.sB + i * g.b_rs;
    int bad = 0;
    for (int c = 0; c < g.nrhs; c++)
        bad |= !isfinite((double)Bi[c * g.b_cs]);
    return bad;
}

/* Passes over A's row: one per CHK_RHS right-hand sides, at least one. */
__device__ __forceinline__ int chk_passes(const lsk_check_args &g)
{
    return g.X && g.nrhs > 0 ? (g.nrhs + CHK_RHS - 1) / CHK_RHS : 1;
}

__device__ __forceinline__ int chk_width(const lsk_check_args &g, int c0)
{
    return g.X ? min(CHK_RHS, g.nrhs - c0) : 0;
}

/* A system's ratio from its three norms (0 without X or right-hand sides). */
__device__ __forceinline__ double chk_system_ratio(const lsk_check_args &g, double an, double rn,
                                                   double xn)
{
    return g.X && g.nrhs > 0 ? chk_ratio(an, rn, xn, g.n, g.eps) : 0.0;
}

/* small: a group of P lanes a system, a lane a row, CHK_THREADS / P
 * systems a block; one partial a block. */
template <typename T>
__global__ void __launch_bounds__(CHK_THREADS, CHK_MIN_BLOCKS)
    k_chk_small(lsk_check_args g, int P, chk_part *parts)
{
    int t = threadIdx.x, i = t % P;
    long long s = (long long)blockIdx.x * (CHK_THREADS / P) + t / P;
    double asum = 0, rrow = 0, xrow = 0;
    int bad = 0;
    if (s < g.batch && i < g.n) {
        const T *Ai = (const T *)g.A + s * g.sA + i * g.a_rs;
        const T *X = g.X ? (const T *)g.X + s * g.sX : NULL;
        for (int p = 0, c0 = 0; p < chk_passes(g); p++, c0 += CHK_RHS) {
            int nc = chk_width(g, c0);
            double r[CHK_RHS] = {0, 0, 0, 0};
            chk_dot<T>(Ai, g.a_cs, X ? X + c0 * g.x_cs : X, g.x_rs, g.x_cs, g.n, 0, 1, nc, p == 0,
                       r, asum, bad);
            if (nc > 0)
                chk_finish<T>(g, s, i, c0, nc, r, rrow, xrow, bad);
        }
        if (!g.X)
            bad |= chk_b_bad<T>(g, s, i);
    }
    /* groups are aligned within the warp: xor offsets below P stay inside */
    unsigned long long ka = chk_key(asum), kr = chk_key(rrow), kx = chk_key(xrow);
    for (int o = P / 2; o > 0; o >>= 1) {
        ka = chk_max(ka, __shfl_xor_sync(CHK_FULL, ka, o));
        kr = chk_max(kr, __shfl_xor_sync(CHK_FULL, kr, o));
        kx = chk_max(kx, __shfl_xor_sync(CHK_FULL, kx, o));
        bad |= __shfl_xor_sync(CHK_FULL, bad, o);
    }
    double w = -1.0;
    int at = -1, first_bad = INT_MAX;
    if (i == 0 && s < g.batch) {
        w = chk_system_ratio(g, chk_val(ka), chk_val(kr), chk_val(kx));
        at = (int)s;
        first_bad = bad ? (int)s : INT_MAX;
    }
    chk_block_reduce(w, at, first_bad);
    if (t == 0)
        parts[blockIdx.x] = chk_part{w, at, first_bad};
}

/* Row i of system s done: its norms into the system's scratch. */
__device__ __forceinline__ void chk_post(unsigned long long *sys, long long s,
                                         unsigned long long ka, unsigned long long kr,
                                         unsigned long long kx, int bad)
{
    atomicMax(sys + 3 * s, ka | (bad ? CHK_BAD : 0ull));
    atomicMax(sys + 3 * s + 1, kr);
    atomicMax(sys + 3 * s + 2, kx);
}

/* col: column-major A, n > 32. Block b: system b / ntiles, rows
 * 32 (b % ntiles) .. + 31, a lane a row; warp w takes columns w, w + 8, ... */
template <typename T>
__global__ void __launch_bounds__(CHK_THREADS, CHK_MIN_BLOCKS)
    k_chk_col(lsk_check_args g, int ntiles, unsigned long long *sys)
{
    __shared__ double red[CHK_RHS + 1][CHK_WARPS][32];
    __shared__ int red_bad[CHK_WARPS][32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    long long s = blockIdx.x / ntiles;
    int i = (int)(blockIdx.x % ntiles) * 32 + lane;
    bool row = i < g.n;
    const T *Ai = row ? (const T *)g.A + s * g.sA + i * g.a_rs : NULL;
    const T *X = g.X ? (const T *)g.X + s * g.sX : NULL;
    double asum = 0, rrow = 0, xrow = 0;
    int bad = 0;
    for (int p = 0, c0 = 0; p < chk_passes(g); p++, c0 += CHK_RHS) {
        int nc = chk_width(g, c0);
        double r[CHK_RHS] = {0, 0, 0, 0};
        if (row)
            chk_dot<T>(Ai, g.a_cs, X ? X + c0 * g.x_cs : X, g.x_rs, g.x_cs, g.n, w, CHK_WARPS, nc,
                       p == 0, r, asum, bad);
        if (nc == 0)
            continue;
#pragma unroll
        for (int j = 0; j < CHK_RHS; j++)
            red[j][w][lane] = r[j];
        __syncthreads();
        if (w == 0 && row) {
            for (int v = 1; v < CHK_WARPS; v++)
#pragma unroll
                for (int j = 0; j < CHK_RHS; j++)
                    r[j] += red[j][v][lane];
            chk_finish<T>(g, s, i, c0, nc, r, rrow, xrow, bad);
        }
        __syncthreads();
    }
    red[CHK_RHS][w][lane] = asum;
    red_bad[w][lane] = bad;
    __syncthreads();
    if (w != 0)
        return;
    for (int v = 1; v < CHK_WARPS; v++) {
        asum += red[CHK_RHS][v][lane];
        bad |= red_bad[v][lane];
    }
    if (row && !g.X)
        bad |= chk_b_bad<T>(g, s, i);
    unsigned long long ka = chk_key(asum), kr = chk_key(rrow), kx = chk_key(xrow);
    for (int o = 16; o > 0; o >>= 1) {
        ka = chk_max(ka, __shfl_xor_sync(CHK_FULL, ka, o));
        kr = chk_max(kr, __shfl_xor_sync(CHK_FULL, kr, o));
        kx = chk_max(kx, __shfl_xor_sync(CHK_FULL, kx, o));
        bad |= __shfl_xor_sync(CHK_FULL, bad, o);
    }
    if (lane == 0)
        chk_post(sys, s, ka, kr, kx, bad);
}

/* row: row-major A (or any layout not column-major), n > 8. Block b:
 * system b / ntiles, rows 8 (b % ntiles) .. + 7, a warp a row, its lanes
 * over the columns. */
template <typename T>
__global__ void __launch_bounds__(CHK_THREADS, CHK_MIN_BLOCKS)
    k_chk_row(lsk_check_args g, int ntiles, unsigned long long *sys)
{
    __shared__ unsigned long long red[3][CHK_WARPS];
    __shared__ int red_bad[CHK_WARPS];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    long long s = blockIdx.x / ntiles;
    int i = (int)(blockIdx.x % ntiles) * CHK_WARPS + w;
    bool row = i < g.n; /* the same for the whole warp */
    double asum = 0, rrow = 0, xrow = 0;
    int bad = 0;
    if (row) {
        const T *Ai = (const T *)g.A + s * g.sA + i * g.a_rs;
        const T *X = g.X ? (const T *)g.X + s * g.sX : NULL;
        for (int p = 0, c0 = 0; p < chk_passes(g); p++, c0 += CHK_RHS) {
            int nc = chk_width(g, c0);
            double r[CHK_RHS] = {0, 0, 0, 0};
            chk_dot<T>(Ai, g.a_cs, X ? X + c0 * g.x_cs : X, g.x_rs, g.x_cs, g.n, lane, 32, nc,
                       p == 0, r, asum, bad);
            if (nc == 0)
                continue;
            for (int o = 16; o > 0; o >>= 1)
#pragma unroll
                for (int j = 0; j < CHK_RHS; j++)
                    r[j] += __shfl_xor_sync(CHK_FULL, r[j], o);
            if (lane == 0)
                chk_finish<T>(g, s, i, c0, nc, r, rrow, xrow, bad);
        }
        for (int o = 16; o > 0; o >>= 1)
            asum += __shfl_xor_sync(CHK_FULL, asum, o);
        bad = __any_sync(CHK_FULL, bad);
        if (lane == 0 && !g.X)
            bad |= chk_b_bad<T>(g, s, i);
    }
    if (lane == 0) {
        red[0][w] = chk_key(asum), red[1][w] = chk_key(rrow), red[2][w] = chk_key(xrow);
        red_bad[w] = bad;
    }
    __syncthreads();
    if (threadIdx.x != 0)
        return;
    unsigned long long ka = 0, kr = 0, kx = 0;
    for (int v = 0; v < CHK_WARPS; v++) {
        ka = chk_max(ka, red[0][v]), kr = chk_max(kr, red[1][v]), kx = chk_max(kx, red[2][v]);
        bad |= red_bad[v];
    }
    chk_post(sys, s, ka, kr, kx, bad);
}

/* One thread a system: its ratio from the scratch of col / row; one
 * partial a block. */
__global__ void __launch_bounds__(CHK_THREADS)
    k_chk_systems(lsk_check_args g, const unsigned long long *sys, chk_part *parts)
{
    long long s = (long long)blockIdx.x * CHK_THREADS + threadIdx.x;
    double w = -1.0;
    int at = -1, first_bad = INT_MAX;
    if (s < g.batch) {
        unsigned long long ka = sys[3 * s];
        w = chk_system_ratio(g, chk_val(ka), chk_val(sys[3 * s + 1]), chk_val(sys[3 * s + 2]));
        at = (int)s;
        first_bad = (ka & CHK_BAD) ? (int)s : INT_MAX;
    }
    chk_block_reduce(w, at, first_bad);
    if (threadIdx.x == 0)
        parts[blockIdx.x] = chk_part{w, at, first_bad};
}

/* One block: the partials folded into the four outputs. */
__global__ void __launch_bounds__(CHK_THREADS)
    k_chk_final(const chk_part *parts, int nparts, int has_x, double *out)
{
    double w = -1.0;
    int at = -1, first_bad = INT_MAX;
    for (int p = threadIdx.x; p < nparts; p += CHK_THREADS) {
        chk_part q = parts[p];
        if (chk_worse(q.worst, q.worst_at, w, at))
            w = q.worst, at = q.worst_at;
        if (q.first_bad < first_bad)
            first_bad = q.first_bad;
    }
    chk_block_reduce(w, at, first_bad);
    if (threadIdx.x != 0)
        return;
    bool none = !has_x || at < 0;
    out[0] = none ? 0.0 : w;
    out[1] = none ? -1.0 : (double)at;
    out[2] = first_bad != INT_MAX ? 1.0 : 0.0;
    out[3] = first_bad != INT_MAX ? (double)first_bad : -1.0;
}

static chk_shape shape_of(const lsk_check_args *g)
{
    int col_major = g->a_rs == 1 && g->a_cs != 1;
    if (g->n <= 8 || (col_major && g->n <= 32))
        return CHK_SMALL;
    return col_major ? CHK_COL : CHK_ROW;
}

static int group_of(int n)
{
    int p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

/* Blocks of the first kernel, and the partials the reduction folds. */
static long long blocks_of(const lsk_check_args *g, chk_shape sh, int *ntiles)
{
    if (sh == CHK_SMALL) {
        *ntiles = 0;
        return ((long long)g->batch + CHK_THREADS / group_of(g->n) - 1) /
               (CHK_THREADS / group_of(g->n));
    }
    int rows = sh == CHK_COL ? 32 : CHK_WARPS;
    *ntiles = (g->n + rows - 1) / rows;
    return (long long)*ntiles * g->batch;
}

static long long parts_of(const lsk_check_args *g, chk_shape sh, long long blocks)
{
    return sh == CHK_SMALL ? blocks : ((long long)g->batch + CHK_THREADS - 1) / CHK_THREADS;
}

extern "C" size_t lsk_check_scratch_bytes(const lsk_check_args *g)
{
    if (g->n <= 0 || g->batch <= 0)
        return 16;
    int ntiles;
    chk_shape sh = shape_of(g);
    long long blocks = blocks_of(g, sh, &ntiles);
    size_t sys = sh == CHK_SMALL ? 0 : (size_t)g->batch * 3 * sizeof(unsigned long long);
    return sys + (size_t)parts_of(g, sh, blocks) * sizeof(chk_part);
}

template <typename T>
static cudaError_t check_impl(const lsk_check_args *g, void *scratch, double *out, cudaStream_t s)
{
    if (g->n <= 0 || g->batch <= 0) {
        k_chk_final<<<1, CHK_THREADS, 0, s>>>(NULL, 0, g->X != NULL, out);
        return cudaGetLastError();
    }
    int ntiles;
    chk_shape sh = shape_of(g);
    long long blocks = blocks_of(g, sh, &ntiles);
    long long nparts = parts_of(g, sh, blocks);
    if (blocks > INT_MAX || nparts > INT_MAX)
        return cudaErrorInvalidConfiguration;
    unsigned long long *sys = (unsigned long long *)scratch;
    chk_part *parts = (chk_part *)scratch;
    if (sh == CHK_SMALL) {
        k_chk_small<T><<<(unsigned)blocks, CHK_THREADS, 0, s>>>(*g, group_of(g->n), parts);
    } else {
        size_t sys_bytes = (size_t)g->batch * 3 * sizeof(unsigned long long);
        parts = (chk_part *)((char *)scratch + sys_bytes);
        cudaError_t e = cudaMemsetAsync(sys, 0, sys_bytes, s);
        if (e != cudaSuccess)
            return e;
        if (sh == CHK_COL)
            k_chk_col<T><<<(unsigned)blocks, CHK_THREADS, 0, s>>>(*g, ntiles, sys);
        else
            k_chk_row<T><<<(unsigned)blocks, CHK_THREADS, 0, s>>>(*g, ntiles, sys);
        k_chk_systems<<<(unsigned)nparts, CHK_THREADS, 0, s>>>(*g, sys, parts);
    }
    k_chk_final<<<1, CHK_THREADS, 0, s>>>(parts, (int)nparts, g->X != NULL, out);
    return cudaGetLastError();
}

extern "C" cudaError_t lsk_check(int single, const lsk_check_args *g, void *scratch, double *out,
                                 cudaStream_t s)
{
    return single ? check_impl<float>(g, scratch, out, s) : check_impl<double>(g, scratch, out, s);
}
