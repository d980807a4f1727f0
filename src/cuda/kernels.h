/*
 * C interface of the CUDA kernels (the .cu files). Every launcher takes
 * `dbl` (1 = double, 0 = float), device pointers, a stream, and returns the
 * cudaError_t of cudaGetLastError() right after the launch, so the host code
 * checks every launch. Launch shapes are named here once so the launchers and
 * the kernel registry (kernel_registry.cu) cannot disagree.
 *
 * Matrix element (i, j) of a strided matrix lives at base[i*rs + j*cs]:
 * rs = ld, cs = 1 for the row-major augmented matrices of the seed methods,
 * rs = 1, cs = ld for column-major storage.
 */
#ifndef LS_CUDA_KERNELS_H
#define LS_CUDA_KERNELS_H

#include <cuda_runtime_api.h>
#include "kernel_registry.h"

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
cudaError_t lsk_build_augmented(int dbl, int n, int nrhs, const void *dA, int lda, const void *dB,
                                int ldb, void *dM, long long ldm, cudaStream_t s);
/* X(:, r) = M(:, n+r) (divided by M(i,i) when divide_by_diag). */
cudaError_t lsk_extract_rhs(int dbl, int n, int nrhs, const void *dM, long long ldm,
                            int divide_by_diag, void *dX, int ldx, cudaStream_t s);

/* ---- pivoting (k_pivot.cu) ---- */
/* Row k of column k..: finds the largest |(i,k)|, i in [k,n); d_ipiv[k] = i+1;
 * a zero maximum sets *d_info = k+1 if it is still 0. */
cudaError_t lsk_pivot_search(int dbl, int n, int k, const void *dM, long long rs, long long cs,
                             int *d_ipiv, int *d_info, cudaStream_t s);
/* Swap rows k and d_ipiv[k]-1 over columns [c0, c1). */
cudaError_t lsk_swap_rows(int dbl, int k, int c0, int c1, void *dM, long long rs, long long cs,
                          const int *d_ipiv, cudaStream_t s);
/* Apply interchanges k in [k0, k1) (ipiv 1-based, absolute rows) to the
 * columns [0, ncols) of a column-major matrix, in order: LAPACK laswp. */
cudaError_t lsk_laswp(int dbl, int ncols, void *dA, int lda, int k0, int k1, const int *d_ipiv,
                      cudaStream_t s);

/* ---- Gaussian elimination on the augmented matrix (k_ge.cu) ---- */
/* ge-naive: one thread per row i > k, one launch per pivot. */
cudaError_t lsk_ge_naive_step(int dbl, int n, int w, void *dM, long long ldm, int k,
                              cudaStream_t s);
/* ge-blocked: a block's rows share the pivot row staged in shared memory. */
cudaError_t lsk_ge_blocked_step(int dbl, int n, int w, void *dM, long long ldm, int k,
                                cudaStream_t s);
/* One thread per element (i, j), i in [r0, r1) minus k, j in [c0, w):
 * ge-coalesced (rows below k), gj1 (below, then rhs above), gj2 (all rows). */
cudaError_t lsk_elim_elements(int dbl, int n, int w, void *dM, long long ldm, int k, int r0,
                              int r1, int c0, cudaStream_t s);

/* ---- triangular solve with a tree reduction per row (k_trisolve.cu) ---- */
/* One block per rhs: X = T^-1 X for T lower (unit or not) or upper. */
cudaError_t lsk_trsv_tree(int dbl, int n, int nrhs, const void *dT, long long rs, long long cs,
                          int lower, int unit, void *dX, int ldx, cudaStream_t s);

/* ---- seed 002 LU (k_luseed.cu) ---- */
cudaError_t lsk_seed_multipliers(int dbl, int n, void *dA, int lda, int k, cudaStream_t s);
cudaError_t lsk_seed_update(int dbl, int n, void *dA, int lda, int k, cudaStream_t s);

/* ---- blocked LU panel (k_lu.cu) ---- */
/* Column j of the panel [j0, j0+jb) x rows [j, m): pivot search, swap of the
 * panel's rows, scale by the pivot; one block. */
cudaError_t lsk_panel_column(int dbl, int m, int j, int j0, int jb, void *dA, int lda,
                             int *d_ipiv, int *d_info, cudaStream_t s);
/* Rank-1 update of panel columns (j, j0+jb) for rows (j, m). */
cudaError_t lsk_panel_update(int dbl, int m, int j, int j0, int jb, void *dA, int lda,
                             cudaStream_t s);

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
int lsk_panel_coop_shape(int dbl, int rows, int w, int want_blocks, int max_blocks, int *R);
/* Device scratch bytes lsk_panel_coop needs for G blocks. */
size_t lsk_panel_coop_scratch(int dbl, int G);
/* Factor columns [j0, j0+w) over rows [j0, m) in one cooperative launch
 * (ipiv 1-based, info = first zero pivot), then apply the leaf's
 * interchanges to every other column of [0, ncols). */
cudaError_t lsk_panel_coop(int dbl, int m, int ncols, int j0, int w, void *dA, int lda,
                           int *d_ipiv, int *d_info, void *scratch, int G, int R,
                           cudaStream_t s);
/* The leaf's row moves applied to the columns outside [j0, j0+w). */
cudaError_t lsk_swap_outside(int dbl, int ncols, int j0, int w, void *dA, int lda,
                             const int *pairs, cudaStream_t s);

/* ---- thread-block cluster LU leaf (k_panel_cluster.cu, sm_90) ---- */
#define LSK_CLUSTER_MAX 8                 /* blocks of a cluster (portable size) */
#define LSK_CLUSTER_MAX_SMEM (200 * 1024) /* panel slice per block, bytes */
#define LSK_LEAF_PAIRS (1 + 4 * LSK_COOP_MAXW) /* ints of a leaf's move list */
/* Blocks G (one cluster) and rows per block R for a leaf of `rows` rows; 0
 * when the rows do not fit LSK_CLUSTER_MAX blocks' shared memory. */
int lsk_panel_cluster_shape(int dbl, int rows, int w, int *R);
/* 1 when the device can run the largest cluster leaf (sm_90 and up). */
int lsk_panel_cluster_usable(int dbl);
/* Factor the leaf (as lsk_panel_coop) with one cluster of G blocks, then
 * apply its interchanges outside it; d_pairs: LSK_LEAF_PAIRS ints. */
cudaError_t lsk_panel_cluster(int dbl, int m, int ncols, int j0, int w, void *dA, int lda,
                              int *d_ipiv, int *d_info, int *d_pairs, int G, int R,
                              cudaStream_t s);
/* ---- push-cluster LU leaf (k_panel_push.cu, sm_90) ---- */
#define LSK_PUSH_MAXW 64                     /* widest leaf */
#define LSK_PUSH_MOVES (1 + 4 * LSK_PUSH_MAXW) /* ints of its move list */
/* Blocks G (one cluster, at most G_max) and rows per block R for a leaf of
 * rows x w; 0 when it does not fit smem_max bytes of shared memory a block. */
int lsk_panel_push_shape(int dbl, int rows, int w, int G_max, size_t smem_max, int *R);
/* The largest cluster (16 or 8 blocks) the push leaf can run with smem
 * bytes a block here; 0 when none (before sm_90). */
int lsk_panel_push_max_blocks(int dbl, size_t smem);
/* Factor columns [j0, j0+w) over rows [j0, m) (ipiv 1-based, info = first
 * zero pivot) in one cluster of G blocks, then apply the leaf's
 * interchanges to every other column of [0, ncols); d_moves: LSK_PUSH_MOVES ints. */
cudaError_t lsk_panel_push(int dbl, int m, int ncols, int j0, int w, void *dA, int lda,
                           int *d_ipiv, int *d_info, int *d_moves, int G, int R, cudaStream_t s);
/* Apply a leaf's move list ({count, (dst, src)...}, rows) to every column
 * of [0, ncols) outside [j0, j0+w): one warp a column. */
cudaError_t lsk_apply_moves(int dbl, int ncols, int j0, int w, void *dA, int lda,
                            const int *d_moves, cudaStream_t s);
/* ---- one-SM LU leaf (k_panel_sm.cu) ---- */
#define LSK_SM_THREADS 1024 /* threads of the leaf's one block */
#define LSK_SM_MAXROWS 4096 /* tallest leaf (rows a thread keeps: 4) */
#define LSK_SM_MAXW 32      /* widest leaf; its moves fit LSK_PUSH_MOVES */
/* Widest leaf (<= w_max) of `rows` rows whose panel fits smem_max bytes of
 * one block's shared memory; 0 when none. */
int lsk_panel_sm_width(int dbl, int rows, int w_max, size_t smem_max);
/* Factor columns [j0, j0+w) over rows [j0, m) in one block (ipiv 1-based
 * global rows, info = first zero pivot when still 0), then apply its
 * interchanges to every other column of [0, ncols); d_moves: LSK_PUSH_MOVES ints. */
cudaError_t lsk_panel_sm(int dbl, int m, int ncols, int j0, int w, void *dA, int lda,
                         int *d_ipiv, int *d_info, int *d_moves, size_t smem_max,
                         cudaStream_t s);
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
cudaError_t lsk_moves_apply(int dbl, int c0, int n0, int c1, int n1, void *dA, int lda, int nsw,
                            const int *d_moves, cudaStream_t s);
/* dst(i, c) = src(perm[i], c): a row permutation of an n x nrhs block. */
cudaError_t lsk_permute_rows(int dbl, int n, int nrhs, const int *d_perm, const void *src,
                             int ldsrc, void *dst, int lddst, cudaStream_t s);

/* ---- BiCGStab (k_bicgstab.cu) ---- */
/* y = A x, A column-major n x n, p rows per thread, x staged in shared memory. */
cudaError_t lsk_matvec(int dbl, int n, const void *dA, int lda, const void *dx, void *dy,
                       cudaStream_t s);
/* out[0] = x . y in two stages (partials: LSK_DOT_BLOCKS elements). */
cudaError_t lsk_dot(int dbl, int n, const void *dx, const void *dy, void *partials, void *out,
                    cudaStream_t s);
/* out = a*x + b*y + c*z (a term whose pointer is NULL is left out);
 * out may alias x, y or z: each thread reads its element before writing. */
cudaError_t lsk_axpbypcz(int dbl, int n, double a, const void *x, double b, const void *y,
                         double c, const void *z, void *out, cudaStream_t s);

/* ---- seed 001 tiled GEMM (k_gemm.cu) ---- */
/* C = A B (m x n, k inner), column-major, tile p in {8, 16, 32}. */
cudaError_t lsk_gemm_tiled(int dbl, int tile, int m, int n, int k, const void *dA, int lda,
                           const void *dB, int ldb, void *dC, int ldc, cudaStream_t s);

/* ---- registry: each kernel file appends its kernels for one precision
 * to out (room for LSK_REG_MAX) and returns how many it wrote. ---- */
#define LSK_REG_MAX 16
int lsk_reg_layout(int dbl, ls_cuda_kernel_desc *out);
int lsk_reg_pivot(int dbl, ls_cuda_kernel_desc *out);
int lsk_reg_ge(int dbl, ls_cuda_kernel_desc *out);
int lsk_reg_trisolve(int dbl, ls_cuda_kernel_desc *out);
int lsk_reg_luseed(int dbl, ls_cuda_kernel_desc *out);
int lsk_reg_lu(int dbl, ls_cuda_kernel_desc *out);
int lsk_reg_coop(int dbl, ls_cuda_kernel_desc *out);
int lsk_reg_cluster(int dbl, ls_cuda_kernel_desc *out);
int lsk_reg_bicgstab(int dbl, ls_cuda_kernel_desc *out);
int lsk_reg_gemm(int dbl, ls_cuda_kernel_desc *out);

/* ---- row interchanges of getrs' right-hand sides (k_laswp_rhs.cu) ---- */
#define LSK_LASWP_RHS_THREADS 256
#define LSK_LASWP_RHS_CHUNK 1024 /* pivots staged in shared memory a pass */
/* Apply the interchanges k in [k0, k1) of d_ipiv (1-based, absolute rows)
 * to the n x nrhs column-major B: forward (laswp incx = 1, before getrs'
 * solves with op = N) or, with reverse, k1-1 down to k0 (after the solves
 * with op = T). One block a column, staged in shared memory when n elements
 * fit smem_max bytes a block (the device's opt-in limit), else swapped in
 * global memory. */
cudaError_t lsk_laswp_rhs(int dbl, int n, int nrhs, void *dB, int ldb, int k0, int k1,
                          const int *d_ipiv, int reverse, size_t smem_max, cudaStream_t s);
/* 1 when a column of n elements takes the shared-memory path. */
int lsk_laswp_rhs_staged(int dbl, int n, size_t smem_max);

#ifdef __cplusplus
}
#endif
#endif
