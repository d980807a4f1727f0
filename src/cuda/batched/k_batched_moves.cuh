/* The blocked batched LU's row moves, composed (k_batched_blocked.cu's
 * left-hand columns, k_batched_outer.cu's outer block): a panel's moves are
 * its count, then (destination, source) row pairs, all rows >= the panel's
 * first. */
#ifndef LS_CUDA_K_BATCHED_MOVES_CUH
#define LS_CUDA_K_BATCHED_MOVES_CUH

#include <cuda_runtime.h>

/* The whole block: perm (row i of the result comes from row perm[i]) takes
 * one earlier panel's moves, mv, on rows [r0, n): perm = sp o perm, with
 * sp the panel's moves as a map. Composing backwards, from the last panel
 * to the first, gives every later panel's moves as one gather. */
__device__ __forceinline__ void lsk_bblk_compose_panel(int *perm, int *sp, int r0, int n,
                                                       const int *mv)
{
    const int tid = threadIdx.x, nt = blockDim.x, cnt = mv[0];
    for (int i = r0 + tid; i < n; i += nt)
        sp[i] = i;
    __syncthreads();
    for (int m = tid; m < cnt; m += nt)
        sp[mv[1 + 2 * m]] = mv[2 + 2 * m];
    __syncthreads();
    for (int i = r0 + tid; i < n; i += nt)
        perm[i] = sp[perm[i]];
    __syncthreads();
}

#endif
