/*
 * A panel's row interchanges (LAPACK's: row k0+i <-> piv[i] for i = 0 ..
 * nsw-1 in order, piv[i] >= k0+i, rows 0-based) as the row moves they amount
 * to, with a thread per swap instead of one thread walking them in order.
 * Written once for the device (lsk_swaps_to_moves in k_lookahead.cu: the
 * phases below split by barriers) and for the host test
 * (tests/cuda/test_cuda_swaps_moves.c).
 *
 * Why it can be parallel: swap i touches only row k0+i and a row at or
 * below it, so row k0+i is final once swap i is done. Let A(j) be the row
 * that sits at k0+j just before swap j. It is the original row k0+j unless
 * an earlier swap sent a row there (piv[t] == k0+j, t < j; the latest such
 * t is link(j)), and then it is A(link(j)), what that swap brought. Links
 * only point back, so following them ends at a swap r with none, and
 * A(j) = k0 + r: pointer jumping finds every r in log2(nsw) rounds. Then:
 *   - row k0+i ends with what swap i brought: A(i) when piv[i] == k0+i,
 *     else the row at piv[i] just before swap i, which is A(prev(i)) for
 *     the latest earlier swap with the same pivot, or piv[i] itself;
 *   - a row below the window (piv[j] >= k0+nsw) ends with A(j) of the last
 *     swap that chose it.
 * Defines: none (static inline functions only)
 */
#ifndef LSK_SWAPS_MOVES_H
#define LSK_SWAPS_MOVES_H

#ifdef __CUDACC__
#define LSK_SM_FN __host__ __device__ static inline
#else
#define LSK_SM_FN static inline
#endif

/* Phase 1, swap j: root[j] = link(j), or j when there is none; prev[j] =
 * the latest earlier swap with the same pivot, or -1; last[j] = 1 (phase 2
 * clears it where a later swap has the same pivot). */
LSK_SM_FN void lsk_sm_links(int j, int k0, const int *piv, int *root, int *prev, int *last)
{
    const int p = piv[j], me = k0 + j;
    int link = j, pv = -1;
    for (int t = 0; t < j; t++) { /* ascending: the latest match wins */
        const int q = piv[t];
        link = q == me ? t : link;
        pv = q == p ? t : pv;
    }
    root[j] = link;
    prev[j] = pv;
    last[j] = 1;
}

/* Phase 2, swap j (after every phase 1): an earlier swap with the same
 * pivot is not the last to choose it. */
LSK_SM_FN void lsk_sm_not_last(int j, const int *prev, int *last)
{
    if (prev[j] >= 0)
        last[prev[j]] = 0;
}

/* Phase 3 (after pointer jumping has made root[] the ends of the links):
 * the row that ends at k0+i. */
LSK_SM_FN int lsk_sm_window_src(int i, int k0, const int *piv, const int *root, const int *prev)
{
    if (piv[i] == k0 + i)
        return k0 + root[i];
    return prev[i] >= 0 ? k0 + root[prev[i]] : piv[i];
}

#endif
