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
#define LSK_BBLK_MAXNB 256 /* widest outer block (k_batched_outer.cu) */

/* Dynamic shared memory of the panel kernel for m rows and jb columns. */
#define LSK_BBLK_PANEL_BYTES_SIG(T, S) size_t lsk_bblk_panel_bytes_##S(int m, int jb)
LSK_DECLARE(LSK_BBLK_PANEL_BYTES_SIG); /* lsk_bblk_panel_bytes_d, lsk_bblk_panel_bytes_s */
/* Factor columns [j0, j0 + jb) of rows [j0, n) of every system; ipiv and
 * info (kept if already set) as LAPACK's getrf; the panel's row moves. */
#define LSK_BBLK_PANEL_SIG(T, S)                                                               \
    cudaError_t lsk_bblk_panel_##S(const lsk_bstack *st, int j0, int jb, int *moves, int mstride, \
                                   cudaStream_t s)
LSK_DECLARE(LSK_BBLK_PANEL_SIG); /* lsk_bblk_panel_d, lsk_bblk_panel_s */
/* As lsk_bblk_panel, for panels of at most LSK_BBLK_ROWS_MAXM rows (n - j0),
 * rows in registers (k_batched_panel_rows.cu). */
#define LSK_BBLK_ROWS_MAXM 128
#define LSK_BBLK_PANEL_ROWS_SIG(T, S)                                                       \
    cudaError_t lsk_bblk_panel_rows_##S(const lsk_bstack *st, int j0, int jb, int *moves,    \
                                        int mstride, cudaStream_t s)
LSK_DECLARE(LSK_BBLK_PANEL_ROWS_SIG); /* lsk_bblk_panel_rows_d, lsk_bblk_panel_rows_s */
/* Columns [c0, c1), right of the panel (c0 >= j0 + jb): the panel's row
 * moves (none if moves is NULL), then U12 = L11^-1 A12 on rows j0 .. j0 + jb. */
#define LSK_BBLK_RIGHT_SIG(T, S)                                                           \
    cudaError_t lsk_bblk_right_##S(const lsk_bstack *st, int j0, int jb, int c0, int c1,    \
                                   const int *moves, int mstride, cudaStream_t s)
LSK_DECLARE(LSK_BBLK_RIGHT_SIG); /* lsk_bblk_right_d, lsk_bblk_right_s */
/* Panels [p_first, p_end) of width jb (the last may be narrower): the
 * columns of each block of `group` panels take the moves of every later
 * panel of the range from the next block on (group 1: every later panel);
 * panel p's moves at moves + p * batch * mstride. */
#define LSK_BBLK_LEFT_SIG(T, S)                                                             \
    cudaError_t lsk_bblk_left_##S(const lsk_bstack *st, int jb, int p_first, int p_end,     \
                                  int group, const int *moves, int mstride, cudaStream_t s)
LSK_DECLARE(LSK_BBLK_LEFT_SIG); /* lsk_bblk_left_d, lsk_bblk_left_s */

/* ---- the outer block of g panels (k_batched_outer.cu) ---- */
/* The moves of panels p0 .. p0 + g - 1 (width jb; at moves + p * batch *
 * mstride) composed, per system, into one list at out + system * ostride
 * (ostride >= 1 + 4 g jb): its count, then (destination, source) rows. */
cudaError_t lsk_bblk_compose(int n, int batch, int jb, int p0, int g, const int *moves,
                             int mstride, int *out, int ostride, cudaStream_t s);
/* Columns [c0, n) take each system's composed list. */
#define LSK_BBLK_APPLY_SIG(T, S)                                                              \
    cudaError_t lsk_bblk_apply_##S(const lsk_bstack *st, int c0, const int *list, int ostride, \
                                   cudaStream_t s)
LSK_DECLARE(LSK_BBLK_APPLY_SIG); /* lsk_bblk_apply_d, lsk_bblk_apply_s */

#ifdef __cplusplus
}
#endif
#endif
