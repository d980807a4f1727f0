/*
 * C interface of method lu's kernels (lu/k_*.cu) and of its leaves' launch
 * shape (leaf_shape.c), used by the getrf and getrs drivers.
 * Conventions as in common/kernels.h, the hub that includes this header:
 * each launcher comes as _d and _s from one signature macro (LSK_DECLARE),
 * takes device pointers and a stream and returns the launch's cudaError_t.
 * Matrices are column-major (leading dimension lda); pivots 1-based.
 */
#ifndef LS_CUDA_K_LU_H
#define LS_CUDA_K_LU_H

#include <cuda_runtime_api.h>
#include "cuda/common/kernel_registry.h"
#include "cuda/common/typed.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LSK_PANEL_THREADS 1024  /* lu: pivot + swap + scale of one column */
#define LSK_PUPD_X 32           /* lu: rank-1 update inside the panel */
#define LSK_PUPD_Y 8

/* ---- blocked LU panel (k_lu.cu) ---- */
/* Column j of the panel [j0, j0+jb) x rows [j, m): pivot search, swap of the
 * panel's rows, scale by the pivot; one block. */
#define LSK_PANEL_COLUMN_SIG(T, S)                                                       \
    cudaError_t lsk_panel_column_##S(int m, int j, int j0, int jb, T *dA, int lda, int *d_ipiv, \
                                     int *d_info, cudaStream_t s)
LSK_DECLARE(LSK_PANEL_COLUMN_SIG); /* lsk_panel_column_d, lsk_panel_column_s */
/* Rank-1 update of panel columns (j, j0+jb) for rows (j, m). */
#define LSK_PANEL_UPDATE_SIG(T, S) \
    cudaError_t lsk_panel_update_##S(int m, int j, int j0, int jb, T *dA, int lda, cudaStream_t s)
LSK_DECLARE(LSK_PANEL_UPDATE_SIG); /* lsk_panel_update_d, lsk_panel_update_s */

/* ---- LU leaves: launch shape (leaf_shape.c) ---- */
/* Blocks G and rows per block R for a leaf of `rows` rows x w columns of
 * es-byte elements: about 32 rows a block, at most want_blocks unless a
 * slice of max_smem bytes needs more; 0 when more than max_blocks would. */
int lsk_leaf_shape(size_t es, int rows, int w, int want_blocks, int max_blocks, size_t max_smem,
                   int *R);

/* ---- cooperative LU leaf (k_panel_coop.cu) ---- */
#define LSK_COOP_THREADS 256           /* threads per block of the leaf */
#define LSK_COOP_MAXW 32               /* widest leaf */
#define LSK_COOP_MAX_SMEM (160 * 1024) /* panel slice per block, bytes */
/* Blocks G and rows per block R for a leaf of `rows` rows: about 32 rows a
 * block, at most want_blocks unless shared memory needs more; 0 when more
 * than max_blocks would be needed (then the per-column kernels are used). */
#define LSK_PANEL_COOP_SHAPE_SIG(T, S) \
    int lsk_panel_coop_shape_##S(int rows, int w, int want_blocks, int max_blocks, int *R)
LSK_DECLARE(LSK_PANEL_COOP_SHAPE_SIG); /* lsk_panel_coop_shape_d, lsk_panel_coop_shape_s */
/* Device scratch bytes lsk_panel_coop needs for G blocks. */
#define LSK_PANEL_COOP_SCRATCH_SIG(T, S) size_t lsk_panel_coop_scratch_##S(int G)
LSK_DECLARE(LSK_PANEL_COOP_SCRATCH_SIG); /* lsk_panel_coop_scratch_d, lsk_panel_coop_scratch_s */
/* Factor columns [j0, j0+w) over rows [j0, m) in one cooperative launch
 * (ipiv 1-based, info = first zero pivot), then apply the leaf's
 * interchanges to every other column of [0, ncols). */
#define LSK_PANEL_COOP_SIG(T, S)                                                            \
    cudaError_t lsk_panel_coop_##S(int m, int ncols, int j0, int w, T *dA, int lda, int *d_ipiv, \
                                   int *d_info, void *scratch, int G, int R, cudaStream_t s)
LSK_DECLARE(LSK_PANEL_COOP_SIG); /* lsk_panel_coop_d, lsk_panel_coop_s */
/* The leaf's row moves applied to the columns outside [j0, j0+w). */
#define LSK_SWAP_OUTSIDE_SIG(T, S)                                                     \
    cudaError_t lsk_swap_outside_##S(int ncols, int j0, int w, T *dA, int lda, const int *pairs, \
                                     cudaStream_t s)
LSK_DECLARE(LSK_SWAP_OUTSIDE_SIG); /* lsk_swap_outside_d, lsk_swap_outside_s */

/* ---- thread-block cluster LU leaf (k_panel_cluster.cu, sm_90) ---- */
#define LSK_CLUSTER_MAX 8                 /* blocks of a cluster (portable size) */
#define LSK_CLUSTER_MAX_SMEM (200 * 1024) /* panel slice per block, bytes */
#define LSK_LEAF_PAIRS (1 + 4 * LSK_COOP_MAXW) /* ints of a leaf's move list */
/* Blocks G (one cluster) and rows per block R for a leaf of `rows` rows; 0
 * when the rows do not fit LSK_CLUSTER_MAX blocks' shared memory. */
#define LSK_PANEL_CLUSTER_SHAPE_SIG(T, S) int lsk_panel_cluster_shape_##S(int rows, int w, int *R)
LSK_DECLARE(LSK_PANEL_CLUSTER_SHAPE_SIG); /* lsk_panel_cluster_shape_d, lsk_panel_cluster_shape_s */
/* 1 when the device can run the largest cluster leaf (sm_90 and up). */
#define LSK_PANEL_CLUSTER_USABLE_SIG(T, S) int lsk_panel_cluster_usable_##S(void)
LSK_DECLARE(LSK_PANEL_CLUSTER_USABLE_SIG); /* lsk_panel_cluster_usable_d,
                                              lsk_panel_cluster_usable_s */
/* Factor the leaf (as lsk_panel_coop) with one cluster of G blocks, then
 * apply its interchanges outside it; d_pairs: LSK_LEAF_PAIRS ints. */
#define LSK_PANEL_CLUSTER_SIG(T, S)                                                        \
    cudaError_t lsk_panel_cluster_##S(int m, int ncols, int j0, int w, T *dA, int lda,      \
                                      int *d_ipiv, int *d_info, int *d_pairs, int G, int R, \
                                      cudaStream_t s)
LSK_DECLARE(LSK_PANEL_CLUSTER_SIG); /* lsk_panel_cluster_d, lsk_panel_cluster_s */
/* ---- push-cluster LU leaf (k_panel_push.cu, sm_90) ---- */
#define LSK_PUSH_MAXW 64                     /* widest leaf */
#define LSK_PUSH_MOVES (1 + 4 * LSK_PUSH_MAXW) /* ints of its move list */
/* Blocks G (one cluster, at most G_max) and rows per block R for a leaf of
 * rows x w; 0 when it does not fit smem_max bytes of shared memory a block. */
#define LSK_PANEL_PUSH_SHAPE_SIG(T, S) \
    int lsk_panel_push_shape_##S(int rows, int w, int G_max, size_t smem_max, int *R)
LSK_DECLARE(LSK_PANEL_PUSH_SHAPE_SIG); /* lsk_panel_push_shape_d, lsk_panel_push_shape_s */
/* The largest cluster (16 or 8 blocks) the push leaf can run with smem
 * bytes a block here; 0 when none (before sm_90). */
#define LSK_PANEL_PUSH_MAX_BLOCKS_SIG(T, S) int lsk_panel_push_max_blocks_##S(size_t smem)
LSK_DECLARE(LSK_PANEL_PUSH_MAX_BLOCKS_SIG); /* lsk_panel_push_max_blocks_d,
                                               lsk_panel_push_max_blocks_s */
/* Factor columns [j0, j0+w) over rows [j0, m) (ipiv 1-based, info = first
 * zero pivot) in one cluster of G blocks, then apply the leaf's
 * interchanges to every other column of [0, ncols); d_moves: LSK_PUSH_MOVES ints. */
#define LSK_PANEL_PUSH_SIG(T, S)                                                            \
    cudaError_t lsk_panel_push_##S(int m, int ncols, int j0, int w, T *dA, int lda, int *d_ipiv, \
                                   int *d_info, int *d_moves, int G, int R, cudaStream_t s)
LSK_DECLARE(LSK_PANEL_PUSH_SIG); /* lsk_panel_push_d, lsk_panel_push_s */
/* Apply a leaf's move list ({count, (dst, src)...}, rows) to every column
 * of [0, ncols) outside [j0, j0+w): one warp a column. */
#define LSK_APPLY_MOVES_SIG(T, S)                                                     \
    cudaError_t lsk_apply_moves_##S(int ncols, int j0, int w, T *dA, int lda, const int *d_moves, \
                                    cudaStream_t s)
LSK_DECLARE(LSK_APPLY_MOVES_SIG); /* lsk_apply_moves_d, lsk_apply_moves_s */
/* ---- one-SM LU leaf (k_panel_sm.cu) ---- */
#define LSK_SM_THREADS 1024 /* threads of the leaf's one block */
#define LSK_SM_MAXROWS 4096 /* tallest leaf (rows a thread keeps: 4) */
#define LSK_SM_MAXW 32      /* widest leaf; its moves fit LSK_PUSH_MOVES */
/* Widest leaf (<= w_max) of `rows` rows whose panel fits smem_max bytes of
 * one block's shared memory; 0 when none. */
#define LSK_PANEL_SM_WIDTH_SIG(T, S) \
    int lsk_panel_sm_width_##S(int rows, int w_max, size_t smem_max)
LSK_DECLARE(LSK_PANEL_SM_WIDTH_SIG); /* lsk_panel_sm_width_d, lsk_panel_sm_width_s */
/* Factor columns [j0, j0+w) over rows [j0, m) in one block (ipiv 1-based
 * global rows, info = first zero pivot when still 0), then apply its
 * interchanges to every other column of [0, ncols); d_moves: LSK_PUSH_MOVES ints. */
#define LSK_PANEL_SM_SIG(T, S)                                                            \
    cudaError_t lsk_panel_sm_##S(int m, int ncols, int j0, int w, T *dA, int lda, int *d_ipiv, \
                                 int *d_info, int *d_moves, size_t smem_max, cudaStream_t s)
LSK_DECLARE(LSK_PANEL_SM_SIG); /* lsk_panel_sm_d, lsk_panel_sm_s */
/* ---- look-ahead LU bookkeeping (k_lookahead.cu) ---- */
/* ipiv[j0 .. j0+w) += j0; info = pinfo + j0 when pinfo > 0 and info is 0. */
cudaError_t lsk_pivots_shift(int w, int j0, int *d_ipiv, const int *d_pinfo, int *d_info,
                             cudaStream_t s);
cudaError_t lsk_pivots_shift64(int w, int j0, const long long *d_p64, int *d_ipiv,
                               const int *d_pinfo, int *d_info, cudaStream_t s);
/* The swaps ipiv[k0 .. k1) (1-based, LAPACK order) as the row moves they
 * amount to: moves[0] = count, then (dst, src) pairs in no set order; at
 * most 2 (k1 - k0) moves, k1 - k0 <= LSK_SWAPS_MAX. parallel: a thread per
 * swap (swaps_moves.h; LS_CUDA_LU_MOVES_PAR), else one thread in order. */
#define LSK_SWAPS_MAX 1024
cudaError_t lsk_swaps_to_moves(int k0, int k1, const int *d_ipiv, int *d_moves, int parallel,
                               cudaStream_t s);
/* Those moves on columns [c0, c0 + n0) and [c1, c1 + n1); nsw = k1 - k0.
 * regs: the block-wide kernel of k_row_moves.cuh, else a warp per column
 * (LS_CUDA_ROW_MOVES). */
#define LSK_MOVES_APPLY_SIG(T, S)                                                         \
    cudaError_t lsk_moves_apply_##S(int c0, int n0, int c1, int n1, T *dA, int lda, int nsw, \
                                    const int *d_moves, int regs, cudaStream_t s)
LSK_DECLARE(LSK_MOVES_APPLY_SIG); /* lsk_moves_apply_d, lsk_moves_apply_s */
/* dst(i, c) = src(perm[i], c): a row permutation of an n x nrhs block. */
#define LSK_PERMUTE_ROWS_SIG(T, S)                                                         \
    cudaError_t lsk_permute_rows_##S(int n, int nrhs, const int *d_perm, const T *src, int ldsrc, \
                                     T *dst, int lddst, cudaStream_t s)
LSK_DECLARE(LSK_PERMUTE_ROWS_SIG); /* lsk_permute_rows_d, lsk_permute_rows_s */

/* ---- row interchanges of getrs' right-hand sides (k_laswp_rhs.cu) ---- */
#define LSK_LASWP_RHS_THREADS 256
#define LSK_LASWP_RHS_CHUNK 1024 /* pivots staged in shared memory a pass */
/* Apply the interchanges k in [k0, k1) of d_ipiv (1-based, absolute rows)
 * to the n x nrhs column-major B: forward (laswp incx = 1, before getrs'
 * solves with op = N) or, with reverse, k1-1 down to k0 (after the solves
 * with op = T). One block a column, staged in shared memory when n elements
 * fit smem_max bytes a block (the device's opt-in limit), else swapped in
 * global memory. */
#define LSK_LASWP_RHS_SIG(T, S)                                                          \
    cudaError_t lsk_laswp_rhs_##S(int n, int nrhs, T *dB, int ldb, int k0, int k1,        \
                                  const int *d_ipiv, int reverse, size_t smem_max,        \
                                  cudaStream_t s)
LSK_DECLARE(LSK_LASWP_RHS_SIG); /* lsk_laswp_rhs_d, lsk_laswp_rhs_s */
/* 1 when a column of n elements takes the shared-memory path. */
#define LSK_LASWP_RHS_STAGED_SIG(T, S) int lsk_laswp_rhs_staged_##S(int n, size_t smem_max)
LSK_DECLARE(LSK_LASWP_RHS_STAGED_SIG); /* lsk_laswp_rhs_staged_d, lsk_laswp_rhs_staged_s */
/* ---- registry rows (kernel_registry.cu): lsk_reg_<file>_d / _s ---- */
#define LSK_REG_LU_SIG(T, S) LSK_REG_SIG_(lu, S)
#define LSK_REG_COOP_SIG(T, S) LSK_REG_SIG_(coop, S)
#define LSK_REG_CLUSTER_SIG(T, S) LSK_REG_SIG_(cluster, S)
LSK_DECLARE(LSK_REG_LU_SIG); /* lsk_reg_lu_d, lsk_reg_lu_s */
LSK_DECLARE(LSK_REG_COOP_SIG); /* lsk_reg_coop_d, lsk_reg_coop_s */
LSK_DECLARE(LSK_REG_CLUSTER_SIG); /* lsk_reg_cluster_d, lsk_reg_cluster_s */

#ifdef __cplusplus
}
#endif
#endif
