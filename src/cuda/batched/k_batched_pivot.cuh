/* LAPACK's idamax for the batched kernels, on an integer key: the bits of
 * |v| order like |v| itself, so the largest magnitude is one integer max
 * (REDUX on sm_80+ for a whole warp, xor shuffles of the key otherwise)
 * instead of shuffling the value, its position and its lane at every
 * level. key = bits(|v|) + 1 for a candidate that is not NaN, 0 otherwise. */
#ifndef LS_CUDA_K_BATCHED_PIVOT_CUH
#define LS_CUDA_K_BATCHED_PIVOT_CUH

#include <cuda_runtime.h>

#define LSK_FULL_MASK 0xffffffffu

__device__ __forceinline__ unsigned long long lsk_pkey(double v, bool cand)
{
    return cand && v == v ? (unsigned long long)__double_as_longlong(fabs(v)) + 1ull : 0ull;
}
__device__ __forceinline__ unsigned lsk_pkey(float v, bool cand)
{
    return cand && v == v ? __float_as_uint(fabsf(v)) + 1u : 0u;
}

/* The largest key over groups of NP lanes (NP a power of two <= 32). */
template <int NP>
__device__ __forceinline__ unsigned lsk_kmax(unsigned key)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (NP == 32)
        return __reduce_max_sync(LSK_FULL_MASK, key);
#endif
    unsigned m = key;
#pragma unroll
    for (int off = NP / 2; off >= 1; off /= 2) {
        unsigned o = __shfl_xor_sync(LSK_FULL_MASK, m, off, NP);
        m = o > m ? o : m;
    }
    return m;
}

template <int NP>
__device__ __forceinline__ unsigned long long lsk_kmax(unsigned long long key)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (NP == 32) { /* high words, then the low words of the lanes that hold the top one */
        unsigned hi = (unsigned)(key >> 32);
        unsigned mh = __reduce_max_sync(LSK_FULL_MASK, hi);
        unsigned ml = __reduce_max_sync(LSK_FULL_MASK, hi == mh ? (unsigned)key : 0u);
        return ((unsigned long long)mh << 32) | ml;
    }
#endif
    unsigned long long m = key;
#pragma unroll
    for (int off = NP / 2; off >= 1; off /= 2) {
        unsigned long long o = __shfl_xor_sync(LSK_FULL_MASK, m, off, NP);
        m = o > m ? o : m;
    }
    return m;
}

/* The smallest of x over groups of NP lanes. */
template <int NP>
__device__ __forceinline__ int lsk_imin(int x)
{
#pragma unroll
    for (int off = NP / 2; off >= 1; off /= 2) {
        int o = __shfl_xor_sync(LSK_FULL_MASK, x, off, NP);
        x = o < x ? o : x;
    }
    return x;
}

/* The smallest of x over the whole warp (REDUX on sm_80+). */
__device__ __forceinline__ int lsk_warp_imin(int x)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_min_sync(LSK_FULL_MASK, x);
#else
    return lsk_imin<32>(x);
#endif
}

/* The winner among NP-lane groups: each lane offers value v (candidate or
 * not) and its place `ord` in LAPACK's search order; returns the winning
 * lane within the group (0..NP-1), seg the group's index in the warp.
 * The first largest magnitude wins; a NaN only where the search starts
 * (ord == first), since idamax's running maximum is then NaN and nothing
 * compares larger. If no lane of a group has a key, the result is
 * meaningless: callers guarantee the lane at `first` is a candidate. */
template <typename T, int NP>
__device__ __forceinline__ int lsk_pivot_lane(T v, bool cand, int ord, int first, int seg)
{
    const unsigned segmask = (NP == 32 ? LSK_FULL_MASK : ((1u << NP) - 1u)) << (seg * NP);
    const unsigned nan_first =
        __ballot_sync(LSK_FULL_MASK, cand && ord == first && v != v) & segmask;
    const auto key = lsk_pkey(v, cand);
    const auto m = lsk_kmax<NP>(key);
    const bool top = key == m && m != 0;
    unsigned tied = __ballot_sync(LSK_FULL_MASK, top) & segmask;
    /* equal magnitudes: the first in search order, not in lane order */
    if (__any_sync(LSK_FULL_MASK, __popc(tied) > 1)) {
        const int q = lsk_imin<NP>(top ? ord : 0x7fffffff);
        tied = __ballot_sync(LSK_FULL_MASK, top && ord == q) & segmask;
    }
    const unsigned win = nan_first ? nan_first : tied;
    return __ffs(win) - 1 - seg * NP;
}

/* The block's pivot among W warps' candidates (key, position), as the
 * warps wrote them: the largest key, then the first position (idamax's
 * rule). Returns the winning warp; its position in *win_pos. */
template <typename K, int W>
__device__ __forceinline__ int lsk_warps_winner(const K *key, const int *pos, int *win_pos)
{
    K bk = key[0];
    int pp = pos[0], bw = 0;
#pragma unroll
    for (int w = 1; w < W; w++)
        if (key[w] > bk || (key[w] == bk && pos[w] < pp))
            bk = key[w], pp = pos[w], bw = w;
    *win_pos = pp;
    return bw;
}

/* One warp: the pivot row among rows [k, m) of a column in shared memory,
 * LAPACK's idamax order and NaN rule: each lane keeps the first largest of
 * its rows, then one integer max over the warp. */
template <typename T>
__device__ int lsk_warp_pivot_row(const T *col, int k, int m)
{
    const int lane = threadIdx.x & 31;
    if (col[k] != col[k])
        return k; /* a NaN where the search starts stays the pivot */
    auto best = lsk_pkey(col[k], false); /* 0: nothing yet */
    int p = m;
    for (int i = k + lane; i < m; i += 32) {
        auto key = lsk_pkey(col[i], true); /* a NaN elsewhere (key 0) never wins */
        if (key > best)
            best = key, p = i;
    }
    const auto mx = lsk_kmax<32>(best);
    /* col[k] is no NaN, so mx > 0; the first row holding it */
    const int q = lsk_imin<32>(best == mx ? p : 0x7fffffff);
    return q < m ? q : k;
}

#endif
