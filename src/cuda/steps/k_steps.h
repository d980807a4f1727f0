/*
 * C interface of the step-per-launch methods' kernels (steps/k_*.cu), whose
 * launchers seed_prims_impl.h calls; lsk_laswp (k_pivot.cu) is also the
 * in-place row interchanges of lu/ and mixed/.
 * Conventions as in common/kernels.h, the hub that includes this header:
 * each launcher comes as _d and _s from one signature macro (LSK_DECLARE),
 * takes device pointers and a stream and returns the launch's cudaError_t.
 * Element (i, j) of a strided matrix lives at base[i*rs + j*cs]: rs = ld,
 * cs = 1 for the row-major augmented matrices [A | B], rs = 1, cs = ld for
 * column-major storage.
 */
#ifndef LS_CUDA_K_STEPS_H
#define LS_CUDA_K_STEPS_H

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
#define LSK_SEED_TILE 16        /* Pattam's updateSubmatrix: 16 x 16 */
#define LSK_LASWP_THREADS 256   /* laswp: one thread per column */

/* ---- layout (k_layout.cu) ---- */
/* M (n x (n+nrhs), row-major, leading dim ldm) = [A | B]. */
#define LSK_BUILD_AUGMENTED_SIG(T, S)                                                       \
    cudaError_t lsk_build_augmented_##S(int n, int nrhs, const T *dA, int lda, const T *dB, \
                                        int ldb, T *dM, long long ldm, cudaStream_t s)
LSK_DECLARE(LSK_BUILD_AUGMENTED_SIG); /* lsk_build_augmented_d, lsk_build_augmented_s */
/* X(:, r) = M(:, n+r) (divided by M(i,i) when divide_by_diag). */
#define LSK_EXTRACT_RHS_SIG(T, S)                                                     \
    cudaError_t lsk_extract_rhs_##S(int n, int nrhs, const T *dM, long long ldm,      \
                                    int divide_by_diag, T *dX, int ldx, cudaStream_t s)
LSK_DECLARE(LSK_EXTRACT_RHS_SIG); /* lsk_extract_rhs_d, lsk_extract_rhs_s */

/* ---- pivoting (k_pivot.cu) ---- */
/* Row k of column k..: finds the largest |(i,k)|, i in [k,n); d_ipiv[k] = i+1;
 * a zero maximum sets *d_info = k+1 if it is still 0. */
#define LSK_PIVOT_SEARCH_SIG(T, S)                                                         \
    cudaError_t lsk_pivot_search_##S(int n, int k, const T *dM, long long rs, long long cs, \
                                     int *d_ipiv, int *d_info, cudaStream_t s)
LSK_DECLARE(LSK_PIVOT_SEARCH_SIG); /* lsk_pivot_search_d, lsk_pivot_search_s */
/* Swap rows k and d_ipiv[k]-1 over columns [c0, c1). */
#define LSK_SWAP_ROWS_SIG(T, S)                                                       \
    cudaError_t lsk_swap_rows_##S(int k, int c0, int c1, T *dM, long long rs, long long cs, \
                                  const int *d_ipiv, cudaStream_t s)
LSK_DECLARE(LSK_SWAP_ROWS_SIG); /* lsk_swap_rows_d, lsk_swap_rows_s */
/* Apply interchanges k in [k0, k1) (ipiv 1-based, absolute rows) to the
 * columns [0, ncols) of a column-major matrix, in order: LAPACK laswp. */
#define LSK_LASWP_SIG(T, S)                                                            \
    cudaError_t lsk_laswp_##S(int ncols, T *dA, int lda, int k0, int k1, const int *d_ipiv, \
                              cudaStream_t s)
LSK_DECLARE(LSK_LASWP_SIG); /* lsk_laswp_d, lsk_laswp_s */

/* ---- Gaussian elimination on the augmented matrix (k_ge.cu) ---- */
/* ge-naive: one thread per row i > k, one launch per pivot. */
#define LSK_GE_NAIVE_STEP_SIG(T, S) \
    cudaError_t lsk_ge_naive_step_##S(int n, int w, T *dM, long long ldm, int k, cudaStream_t s)
LSK_DECLARE(LSK_GE_NAIVE_STEP_SIG); /* lsk_ge_naive_step_d, lsk_ge_naive_step_s */
/* ge-blocked: a block's rows share the pivot row staged in shared memory. */
#define LSK_GE_BLOCKED_STEP_SIG(T, S) \
    cudaError_t lsk_ge_blocked_step_##S(int n, int w, T *dM, long long ldm, int k, cudaStream_t s)
LSK_DECLARE(LSK_GE_BLOCKED_STEP_SIG); /* lsk_ge_blocked_step_d, lsk_ge_blocked_step_s */
/* One thread per element (i, j), i in [r0, r1) minus k, j in [c0, w):
 * ge-coalesced (rows below k), gj1 (below, then rhs above), gj2 (all rows). */
#define LSK_ELIM_ELEMENTS_SIG(T, S)                                                      \
    cudaError_t lsk_elim_elements_##S(int n, int w, T *dM, long long ldm, int k, int r0, \
                                      int r1, int c0, cudaStream_t s)
LSK_DECLARE(LSK_ELIM_ELEMENTS_SIG); /* lsk_elim_elements_d, lsk_elim_elements_s */

/* ---- triangular solve with a tree reduction per row (k_trisolve.cu) ---- */
/* One block per rhs: X = T^-1 X for T lower (unit or not) or upper. */
#define LSK_TRSV_TREE_SIG(T, S)                                                            \
    cudaError_t lsk_trsv_tree_##S(int n, int nrhs, const T *dT, long long rs, long long cs, \
                                  int lower, int unit, T *dX, int ldx, cudaStream_t s)
LSK_DECLARE(LSK_TRSV_TREE_SIG); /* lsk_trsv_tree_d, lsk_trsv_tree_s */

/* ---- Pattam's LU (k_luseed.cu) ---- */
#define LSK_SEED_MULTIPLIERS_SIG(T, S) \
    cudaError_t lsk_seed_multipliers_##S(int n, T *dA, int lda, int k, cudaStream_t s)
LSK_DECLARE(LSK_SEED_MULTIPLIERS_SIG); /* lsk_seed_multipliers_d, lsk_seed_multipliers_s */
#define LSK_SEED_UPDATE_SIG(T, S) \
    cudaError_t lsk_seed_update_##S(int n, T *dA, int lda, int k, cudaStream_t s)
LSK_DECLARE(LSK_SEED_UPDATE_SIG); /* lsk_seed_update_d, lsk_seed_update_s */

/* ---- registry rows (kernel_registry.cu): lsk_reg_<file>_d / _s ---- */
#define LSK_REG_LAYOUT_SIG(T, S) LSK_REG_SIG_(layout, S)
#define LSK_REG_PIVOT_SIG(T, S) LSK_REG_SIG_(pivot, S)
#define LSK_REG_GE_SIG(T, S) LSK_REG_SIG_(ge, S)
#define LSK_REG_TRISOLVE_SIG(T, S) LSK_REG_SIG_(trisolve, S)
#define LSK_REG_LUSEED_SIG(T, S) LSK_REG_SIG_(luseed, S)
LSK_DECLARE(LSK_REG_LAYOUT_SIG); /* lsk_reg_layout_d, lsk_reg_layout_s */
LSK_DECLARE(LSK_REG_PIVOT_SIG); /* lsk_reg_pivot_d, lsk_reg_pivot_s */
LSK_DECLARE(LSK_REG_GE_SIG); /* lsk_reg_ge_d, lsk_reg_ge_s */
LSK_DECLARE(LSK_REG_TRISOLVE_SIG); /* lsk_reg_trisolve_d, lsk_reg_trisolve_s */
LSK_DECLARE(LSK_REG_LUSEED_SIG); /* lsk_reg_luseed_d, lsk_reg_luseed_s */

#ifdef __cplusplus
}
#endif
#endif
