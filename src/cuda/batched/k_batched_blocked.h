/* C interface of the batched blocked LU kernels (k_batched_blocked.cu),
 * used by batched_blocked.c. Stacks as in k_batched.h, column-major
 * (a_rs == 1); ipiv is required. `moves` holds, per system, mstride >=
 * 1 + 4 jb ints a panel: the count of the panel's row moves, then its
 * (destination, source) rows. */
#ifndef LS_CUDA_K_BATCHED_BLOCKED_H
#define LS_CUDA_K_BATCHED_BLOCKED_H

#include <cuda_runtime_api.h>

#include "cuda/batched/k_batched.h"
#include "cuda/common/typed.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LSK_BBLK_THREADS 256       /* panel; left-hand row moves */
#define LSK_BBLK_RIGHT_THREADS 512 /* a warp a column right of the panel */
#define LSK_BBLK_MAXJB 32

/* Dynamic shared memory of the panel kernel for m rows and jb columns. */
#define LSK_BBLK_PANEL_BYTES_SIG(T, S) size_t lsk_bblk_panel_bytes_##S(int m, int jb)
LSK_DECLARE(LSK_BBLK_PANEL_BYTES_SIG); /* lsk_bblk_panel_bytes_d, lsk_bblk_panel_bytes_s */
/* Factor columns [j0, j0 + jb) of rows [j0, n) of every system; ipiv and
 * info (kept if already set) as LAPACK's getrf; the panel's row moves. */
#define LSK_BBLK_PANEL_SIG(T, S)                                                               \
    cudaError_t lsk_bblk_panel_##S(const lsk_bstack *st, int j0, int jb, int *moves, int mstride, \
                                   cudaStream_t s)
LSK_DECLARE(LSK_BBLK_PANEL_SIG); /* lsk_bblk_panel_d, lsk_bblk_panel_s */
/* Right of the panel: its row moves, then U12 = L11^-1 A12. */
#define LSK_BBLK_RIGHT_SIG(T, S)                                                          \
    cudaError_t lsk_bblk_right_##S(const lsk_bstack *st, int j0, int jb, const int *moves, \
                                   int mstride, cudaStream_t s)
LSK_DECLARE(LSK_BBLK_RIGHT_SIG); /* lsk_bblk_right_d, lsk_bblk_right_s */
/* After the last panel (all of width jb but the last): every panel's moves
 * on the columns left of it; panel p's moves at moves + p * batch * mstride. */
#define LSK_BBLK_LEFT_SIG(T, S)                                                                \
    cudaError_t lsk_bblk_left_##S(const lsk_bstack *st, int jb, const int *moves, int mstride, \
                                  cudaStream_t s)
LSK_DECLARE(LSK_BBLK_LEFT_SIG); /* lsk_bblk_left_d, lsk_bblk_left_s */

#ifdef __cplusplus
}
#endif
#endif
