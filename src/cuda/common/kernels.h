/*
 * C interface of the CUDA kernels (the .cu files). Every launcher that
 * touches matrix data comes as lsk_foo_d (double) and lsk_foo_s (float),
 * declared from one signature macro LSK_FOO_SIG(T, S) (typed.h); it takes
 * device pointers and a stream, and returns the cudaError_t of
 * cudaGetLastError() right after the launch, so the host code checks every
 * launch. Launch shapes are named here once so the launchers and
 * the kernel registry (kernel_registry.cu) cannot disagree.
 *
 * Matrix element (i, j) of a strided matrix lives at base[i*rs + j*cs]:
 * rs = ld, cs = 1 for the row-major augmented matrices of the seed methods,
 * rs = 1, cs = ld for column-major storage.
 */
#ifndef LS_CUDA_KERNELS_H
#define LS_CUDA_KERNELS_H

#include <cuda_runtime_api.h>
#include "cuda/common/kernel_registry.h"
#include "cuda/common/typed.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LSK_PIVOT_THREADS 1024  /* one block per pivot search */
#define LSK_ROWOP_THREADS 256   /* swap, scale, layout kernels */
#define LSK_NAIVE_THREADS 128   /* ge-naive: one thread per row */
#define LSK_BLOCKED_THREADS 128 /* ge-blocked: rows per block */
#define LSK_BLOCKED_CHUNK 1024  /* pivot-row elements staged per pass */
#define LSK_ELEM_X 32           /* one thread per element: 32 x 8 */
#define LSK_ELEM_Y 8
#define LSK_TREE_THREADS 256    /* tree back substitution, one block per rhs */
#define LSK_SEED_TILE 16        /* seed 002 updateSubmatrix: 16 x 16 */
#define LSK_PANEL_THREADS 1024  /* lu: pivot + swap + scale of one column */
#define LSK_PUPD_X 32           /* lu: rank-1 update inside the panel */
#define LSK_PUPD_Y 8
#define LSK_LASWP_THREADS 256
#define LSK_SPMV_THREADS 256    /* bicgstab matvec */
#define LSK_SPMV_ROWS 4         /* p rows per thread (seed 001 figure 4) */
#define LSK_SPMV_XTILE 1024     /* x elements staged in shared memory */
#define LSK_DOT_THREADS 256
#define LSK_DOT_BLOCKS 256      /* first-stage blocks of a dot product */
#define LSK_VEC_THREADS 256

/* ---- layout (k_layout.cu) ---- */
/* M (n x (n+nrhs), row-major, leading dim ldm) = [A | B]. */
#define LSK_BUILD_AUGMENTED_SIG(T, S)                                                       \
    cudaError_t lsk_build_augmented_##S(int n, int nrhs, const T *dA, int lda, const T *dB, \
                                        int ldb, T *dM, long long ldm, cudaStream_t s)
LSK_DECLARE(LSK_BUILD_AUGMENTED_SIG);
/* X(:, r) = M(:, n+r) (divided by M(i,i) when divide_by_diag). */
#define LSK_EXTRACT_RHS_SIG(T, S)                                                     \
    cudaError_t lsk_extract_rhs_##S(int n, int nrhs, const T *dM, long long ldm,      \
                                    int divide_by_diag, T *dX, int ldx, cudaStream_t s)
LSK_DECLARE(LSK_EXTRACT_RHS_SIG);

/* ---- pivoting (k_pivot.cu) ---- */
/* Row k of column k..: finds the largest |(i,k)|, i in [k,n); d_ipiv[k] = i+1;
 * a zero maximum sets *d_info = k+1 if it is still 0. */
#define LSK_PIVOT_SEARCH_SIG(T, S)                                                         \
    cudaError_t lsk_pivot_search_##S(int n, int k, const T *dM, long long rs, long long cs, \
                                     int *d_ipiv, int *d_info, cudaStream_t s)
LSK_DECLARE(LSK_PIVOT_SEARCH_SIG);
/* Swap rows k and d_ipiv[k]-1 over columns [c0, c1). */
#define LSK_SWAP_ROWS_SIG(T, S)                                                       \
    cudaError_t lsk_swap_rows_##S(int k, int c0, int c1, T *dM, long long rs, long long cs, \
                                  const int *d_ipiv, cudaStream_t s)
LSK_DECLARE(LSK_SWAP_ROWS_SIG);
/* Apply interchanges k in [k0, k1) (ipiv 1-based, absolute rows) to the
 * columns [0, ncols) of a column-major matrix, in order: LAPACK laswp. */
#define LSK_LASWP_SIG(T, S)                                                            \
    cudaError_t lsk_laswp_##S(int ncols, T *dA, int lda, int k0, int k1, const int *d_ipiv, \
                              cudaStream_t s)
LSK_DECLARE(LSK_LASWP_SIG);

/* ---- Gaussian elimination on the augmented matrix (k_ge.cu) ---- */
/* ge-naive: one thread per row i > k, one launch per pivot. */
#define LSK_GE_NAIVE_STEP_SIG(T, S) \
    cudaError_t lsk_ge_naive_step_##S(int n, int w, T *dM, long long ldm, int k, cudaStream_t s)
LSK_DECLARE(LSK_GE_NAIVE_STEP_SIG);
/* ge-blocked: a block's rows share the pivot row staged in shared memory. */
#define LSK_GE_BLOCKED_STEP_SIG(T, S) \
    cudaError_t lsk_ge_blocked_step_##S(int n, int w, T *dM, long long ldm, int k, cudaStream_t s)
LSK_DECLARE(LSK_GE_BLOCKED_STEP_SIG);
/* One thread per element (i, j), i in [r0, r1) minus k, j in [c0, w):
 * ge-coalesced (rows below k), gj1 (below, then rhs above), gj2 (all rows). */
#define LSK_ELIM_ELEMENTS_SIG(T, S)                                                      \
    cudaError_t lsk_elim_elements_##S(int n, int w, T *dM, long long ldm, int k, int r0, \
                                      int r1, int c0, cudaStream_t s)
LSK_DECLARE(LSK_ELIM_ELEMENTS_SIG);

/* ---- triangular solve with a tree reduction per row (k_trisolve.cu) ---- */
/* One block per rhs: X = T^-1 X for T lower (unit or not) or upper. */
#define LSK_TRSV_TREE_SIG(T, S)                                                            \
    cudaError_t lsk_trsv_tree_##S(int n, int nrhs, const T *dT, long long rs, long long cs, \
                                  int lower, int unit, T *dX, int ldx, cudaStream_t s)
LSK_DECLARE(LSK_TRSV_TREE_SIG);

/* ---- seed 002 LU (k_luseed.cu) ---- */
#define LSK_SEED_MULTIPLIERS_SIG(T, S) \
    cudaError_t lsk_seed_multipliers_##S(int n, T *dA, int lda, int k, cudaStream_t s)
LSK_DECLARE(LSK_SEED_MULTIPLIERS_SIG);
#define LSK_SEED_UPDATE_SIG(T, S) \
    cudaError_t lsk_seed_update_##S(int n, T *dA, int lda, int k, cudaStream_t s)
LSK_DECLARE(LSK_SEED_UPDATE_SIG);

/* ---- blocked LU panel (k_lu.cu) ---- */
/* Column j of the panel [j0, j0+jb) x rows [j, m): pivot search, swap of the
 * panel's rows, scale by the pivot; one block. */
#define LSK_PANEL_COLUMN_SIG(T, S)                                                       \
    cudaError_t lsk_panel_column_##S(int m, int j, int j0, int jb, T *dA, int lda, int *d_ipiv, \
                                     int *d_info, cudaStream_t s)
LSK_DECLARE(LSK_PANEL_COLUMN_SIG);
/* Rank-1 update of panel columns (j, j0+jb) for rows (j, m). */
#define LSK_PANEL_UPDATE_SIG(T, S) \
    cudaError_t lsk_panel_update_##S(int m, int j, int j0, int jb, T *dA, int lda, cudaStream_t s)
LSK_DECLARE(LSK_PANEL_UPDATE_SIG);

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
LSK_DECLARE(LSK_PANEL_COOP_SHAPE_SIG);
/* Device scratch bytes lsk_panel_coop needs for G blocks. */
#define LSK_PANEL_COOP_SCRATCH_SIG(T, S) size_t lsk_panel_coop_scratch_##S(int G)
LSK_DECLARE(LSK_PANEL_COOP_SCRATCH_SIG);
/* Factor columns [j0, j0+w) over rows [j0, m) in one cooperative launch
 * (ipiv 1-based, info = first zero pivot), then apply the leaf's
 * interchanges to every other column of [0, ncols). */
#define LSK_PANEL_COOP_SIG(T, S)                                                            \
    cudaError_t lsk_panel_coop_##S(int m, int ncols, int j0, int w, T *dA, int lda, int *d_ipiv, \
                                   int *d_info, void *scratch, int G, int R, cudaStream_t s)
LSK_DECLARE(LSK_PANEL_COOP_SIG);
/* The leaf's row moves applied to the columns outside [j0, j0+w). */
#define LSK_SWAP_OUTSIDE_SIG(T, S)                                                     \
    cudaError_t lsk_swap_outside_##S(int ncols, int j0, int w, T *dA, int lda, const int *pairs, \
                                     cudaStream_t s)
LSK_DECLARE(LSK_SWAP_OUTSIDE_SIG);

/* ---- thread-block cluster LU leaf (k_panel_cluster.cu, sm_90) ---- */
#define LSK_CLUSTER_MAX 8                 /* blocks of a cluster (portable size) */
#define LSK_CLUSTER_MAX_SMEM (200 * 1024) /* panel slice per block, bytes */
#define LSK_LEAF_PAIRS (1 + 4 * LSK_COOP_MAXW) /* ints of a leaf's move list */
/* Blocks G (one cluster) and rows per block R for a leaf of `rows` rows; 0
 * when the rows do not fit LSK_CLUSTER_MAX blocks' shared memory. */
#define LSK_PANEL_CLUSTER_SHAPE_SIG(T, S) int lsk_panel_cluster_shape_##S(int rows, int w, int *R)
LSK_DECLARE(LSK_PANEL_CLUSTER_SHAPE_SIG);
/* 1 when the device can run the largest cluster leaf (sm_90 and up). */
#define LSK_PANEL_CLUSTER_USABLE_SIG(T, S) int lsk_panel_cluster_usable_##S(void)
LSK_DECLARE(LSK_PANEL_CLUSTER_USABLE_SIG);
/* Factor the leaf (as lsk_panel_coop) with one cluster of G blocks, then
 * apply its interchanges outside it; d_pairs: LSK_LEAF_PAIRS ints. */
#define LSK_PANEL_CLUSTER_SIG(T, S)                                                        \
    cudaError_t lsk_panel_cluster_##S(int m, int ncols, int j0, int w, T *dA, int lda,      \
                                      int *d_ipiv, int *d_info, int *d_pairs, int G, int R, \
                                      cudaStream_t s)
LSK_DECLARE(LSK_PANEL_CLUSTER_SIG);
/* ---- push-cluster LU leaf (k_panel_push.cu, sm_90) ---- */
#define LSK_PUSH_MAXW 64                     /* widest leaf */
#define LSK_PUSH_MOVES (1 + 4 * LSK_PUSH_MAXW) /* ints of its move list */
/* Blocks G (one cluster, at most G_max) and rows per block R for a leaf of
 * rows x w; 0 when it does not fit smem_max bytes of shared memory a block. */
#define LSK_PANEL_PUSH_SHAPE_SIG(T, S) \
    int lsk_panel_push_shape_##S(int rows, int w, int G_max, size_t smem_max, int *R)
LSK_DECLARE(LSK_PANEL_PUSH_SHAPE_SIG);
/* The largest cluster (16 or 8 blocks) the push leaf can run with smem
 * bytes a block here; 0 when none (before sm_90). */
#define LSK_PANEL_PUSH_MAX_BLOCKS_SIG(T, S) int lsk_panel_push_max_blocks_##S(size_t smem)
LSK_DECLARE(LSK_PANEL_PUSH_MAX_BLOCKS_SIG);
/* Factor columns [j0, j0+w) over rows [j0, m) (ipiv 1-based, info = first
 * zero pivot) in one cluster of G blocks, then apply the leaf's
 * interchanges to every other column of [0, ncols); d_moves: LSK_PUSH_MOVES ints. */
#define LSK_PANEL_PUSH_SIG(T, S)                                                            \
    cudaError_t lsk_panel_push_##S(int m, int ncols, int j0, int w, T *dA, int lda, int *d_ipiv, \
                                   int *d_info, int *d_moves, int G, int R, cudaStream_t s)
LSK_DECLARE(LSK_PANEL_PUSH_SIG);
/* Apply a leaf's move list ({count, (dst, src)...}, rows) to every column
 * of [0, ncols) outside [j0, j0+w): one warp a column. */
#define LSK_APPLY_MOVES_SIG(T, S)                                                     \
    cudaError_t lsk_apply_moves_##S(int ncols, int j0, int w, T *dA, int lda, const int *d_moves, \
                                    cudaStream_t s)
LSK_DECLARE(LSK_APPLY_MOVES_SIG);
/* ---- one-SM LU leaf (k_panel_sm.cu) ---- */
#define LSK_SM_THREADS 1024 /* threads of the leaf's one block */
#define LSK_SM_MAXROWS 4096 /* tallest leaf (rows a thread keeps: 4) */
#define LSK_SM_MAXW 32      /* widest leaf; its moves fit LSK_PUSH_MOVES */
/* Widest leaf (<= w_max) of `rows` rows whose panel fits smem_max bytes of
 * one block's shared memory; 0 when none. */
#define LSK_PANEL_SM_WIDTH_SIG(T, S) \
    int lsk_panel_sm_width_##S(int rows, int w_max, size_t smem_max)
LSK_DECLARE(LSK_PANEL_SM_WIDTH_SIG);
/* Factor columns [j0, j0+w) over rows [j0, m) in one block (ipiv 1-based
 * global rows, info = first zero pivot when still 0), then apply its
 * interchanges to every other column of [0, ncols); d_moves: LSK_PUSH_MOVES ints. */
#define LSK_PANEL_SM_SIG(T, S)                                                            \
    cudaError_t lsk_panel_sm_##S(int m, int ncols, int j0, int w, T *dA, int lda, int *d_ipiv, \
                                 int *d_info, int *d_moves, size_t smem_max, cudaStream_t s)
LSK_DECLARE(LSK_PANEL_SM_SIG);
/* ---- look-ahead LU bookkeeping (k_lookahead.cu) ---- */
/* ipiv[j0 .. j0+w) += j0; info = pinfo + j0 when pinfo > 0 and info is 0. */
cudaError_t lsk_pivots_shift(int w, int j0, int *d_ipiv, const int *d_pinfo, int *d_info,
                             cudaStream_t s);
cudaError_t lsk_pivots_shift64(int w, int j0, const long long *d_p64, int *d_ipiv,
                               const int *d_pinfo, int *d_info, cudaStream_t s);
/* The swaps ipiv[k0 .. k1) (1-based, LAPACK order) as the row moves they
 * amount to: moves[0] = count, then (dst, src) pairs; at most 2 (k1 - k0)
 * moves, k1 - k0 <= LSK_SWAPS_MAX. */
#define LSK_SWAPS_MAX 1024
cudaError_t lsk_swaps_to_moves(int k0, int k1, const int *d_ipiv, int *d_moves, cudaStream_t s);
/* Those moves on columns [c0, c0 + n0) and [c1, c1 + n1); nsw = k1 - k0. */
#define LSK_MOVES_APPLY_SIG(T, S)                                                         \
    cudaError_t lsk_moves_apply_##S(int c0, int n0, int c1, int n1, T *dA, int lda, int nsw, \
                                    const int *d_moves, cudaStream_t s)
LSK_DECLARE(LSK_MOVES_APPLY_SIG);
/* dst(i, c) = src(perm[i], c): a row permutation of an n x nrhs block. */
#define LSK_PERMUTE_ROWS_SIG(T, S)                                                         \
    cudaError_t lsk_permute_rows_##S(int n, int nrhs, const int *d_perm, const T *src, int ldsrc, \
                                     T *dst, int lddst, cudaStream_t s)
LSK_DECLARE(LSK_PERMUTE_ROWS_SIG);

/* ---- BiCGStab (k_bicgstab.cu) ---- */
/* y = A x, A column-major n x n, p rows per thread, x staged in shared memory. */
#define LSK_MATVEC_SIG(T, S)                                                              \
    cudaError_t lsk_matvec_##S(int n, const T *dA, int lda, const T *dx, T *dy, cudaStream_t s)
LSK_DECLARE(LSK_MATVEC_SIG);
/* out[0] = x . y in two stages (partials: LSK_DOT_BLOCKS elements). */
#define LSK_DOT_SIG(T, S)                                                               \
    cudaError_t lsk_dot_##S(int n, const T *dx, const T *dy, T *partials, T *out, cudaStream_t s)
LSK_DECLARE(LSK_DOT_SIG);
/* out = a*x + b*y + c*z (a term whose pointer is NULL is left out);
 * out may alias x, y or z: each thread reads its element before writing. */
#define LSK_AXPBYPCZ_SIG(T, S)                                                           \
    cudaError_t lsk_axpbypcz_##S(int n, double a, const T *x, double b, const T *y, double c, \
                                 const T *z, T *out, cudaStream_t s)
LSK_DECLARE(LSK_AXPBYPCZ_SIG);

/* ---- seed 001 tiled GEMM (k_gemm.cu) ---- */
/* C = A B (m x n, k inner), column-major, tile p in {8, 16, 32}. */
#define LSK_GEMM_TILED_SIG(T, S)                                                            \
    cudaError_t lsk_gemm_tiled_##S(int tile, int m, int n, int k, const T *dA, int lda,       \
                                   const T *dB, int ldb, T *dC, int ldc, cudaStream_t s)
LSK_DECLARE(LSK_GEMM_TILED_SIG);

/* ---- registry: each kernel file appends its kernels for one precision
 * to out (room for LSK_REG_MAX) and returns how many it wrote:
 * lsk_reg_<file>_d / _s. ---- */
#define LSK_REG_MAX 16
#define LSK_REG_SIG_(file, S) int lsk_reg_##file##_##S(ls_cuda_kernel_desc *out)
#define LSK_REG_LAYOUT_SIG(T, S) LSK_REG_SIG_(layout, S)
#define LSK_REG_PIVOT_SIG(T, S) LSK_REG_SIG_(pivot, S)
#define LSK_REG_GE_SIG(T, S) LSK_REG_SIG_(ge, S)
#define LSK_REG_TRISOLVE_SIG(T, S) LSK_REG_SIG_(trisolve, S)
#define LSK_REG_LUSEED_SIG(T, S) LSK_REG_SIG_(luseed, S)
#define LSK_REG_LU_SIG(T, S) LSK_REG_SIG_(lu, S)
#define LSK_REG_COOP_SIG(T, S) LSK_REG_SIG_(coop, S)
#define LSK_REG_CLUSTER_SIG(T, S) LSK_REG_SIG_(cluster, S)
#define LSK_REG_BICGSTAB_SIG(T, S) LSK_REG_SIG_(bicgstab, S)
#define LSK_REG_GEMM_SIG(T, S) LSK_REG_SIG_(gemm, S)
LSK_DECLARE(LSK_REG_LAYOUT_SIG);
LSK_DECLARE(LSK_REG_PIVOT_SIG);
LSK_DECLARE(LSK_REG_GE_SIG);
LSK_DECLARE(LSK_REG_TRISOLVE_SIG);
LSK_DECLARE(LSK_REG_LUSEED_SIG);
LSK_DECLARE(LSK_REG_LU_SIG);
LSK_DECLARE(LSK_REG_COOP_SIG);
LSK_DECLARE(LSK_REG_CLUSTER_SIG);
LSK_DECLARE(LSK_REG_BICGSTAB_SIG);
LSK_DECLARE(LSK_REG_GEMM_SIG);

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
LSK_DECLARE(LSK_LASWP_RHS_SIG);
/* 1 when a column of n elements takes the shared-memory path. */
#define LSK_LASWP_RHS_STAGED_SIG(T, S) int lsk_laswp_rhs_staged_##S(int n, size_t smem_max)
LSK_DECLARE(LSK_LASWP_RHS_STAGED_SIG);

#ifdef __cplusplus
}
#endif
#endif
