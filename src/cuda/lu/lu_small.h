/*
 * The small-n LU of method "lu" (k_lu_small.cu, driver lu_small.c): one
 * launch of one thread-block cluster factors an n x n matrix (blocked, a
 * panel of 32 columns per cluster barrier) held in the blocks' shared
 * memory where it fits, else in place in device memory, and, for gesv in
 * shared memory, solves with it. Used for getrf and gesv up to
 * LS_CUDA_LU_SMALL_MAX_N (docs/cuda-lu-small.md).
 */
#ifndef LS_CUDA_LU_SMALL_H
#define LS_CUDA_LU_SMALL_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "cuda/common/typed.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LSK_LUS_THREADS 512   /* threads of each block */
#define LSK_LUS_MAX_BLOCKS 16 /* largest cluster (non-portable size; 8 is portable) */
#define LSK_LU_SMALL_MAX_N 1024 /* a panel's rows: at most two per thread */
#define LSK_LUS_PANEL 32 /* panel width, and the column block of the layout */

/* Factor the n x n dA (lda) with partial pivoting: LU in dA, 1-based
 * d_ipiv, *d_info = LAPACK's info (written, not only raised). With
 * nrhs > 0 also dB (ldb) = A^-1 dB, left alone when info > 0. G blocks in
 * one cluster, smem bytes of dynamic shared memory each; in_smem: the
 * matrix in the blocks' shared memory, else worked on in place in dA
 * (then nrhs is 0) (lsc_lu_small_plan). */
#define LSK_LU_SMALL_SIG(T, S)                                                             \
    cudaError_t lsk_lu_small_##S(int n, int nrhs, T *dA, int lda, T *dB, int ldb, int *d_ipiv, \
                                 int *d_info, int G, size_t smem, int in_smem, cudaStream_t s)
LSK_DECLARE(LSK_LU_SMALL_SIG); /* lsk_lu_small_d, lsk_lu_small_s */
/* The largest cluster (16, 8, 4, 2 or 1 blocks) this device runs with smem
 * bytes of dynamic shared memory a block; 0 when none (before sm_90). */
#define LSK_LU_SMALL_MAX_BLOCKS_SIG(T, S) int lsk_lu_small_max_blocks_##S(size_t smem)
LSK_DECLARE(LSK_LU_SMALL_MAX_BLOCKS_SIG); /* lsk_lu_small_max_blocks_d, lsk_lu_small_max_blocks_s */

#ifndef __CUDACC__
#include "linsolve.h"

struct ls_cuda_ctx;

/* How the small-n path runs a system (lsc_lu_small_plan). */
typedef struct lsc_lu_small_shape {
    int G;       /* blocks of the cluster */
    size_t smem; /* dynamic shared memory a block, bytes */
    int in_smem; /* 1: the matrix in shared memory; 0: in place in A (getrf only) */
} lsc_lu_small_shape;

/* Whether the small-n path takes an n x n system with nrhs right-hand
 * sides here (nrhs 0: getrf only), and how. */
int lsc_lu_small_plan(struct ls_cuda_ctx *c, ls_precision p, int n, int nrhs,
                      lsc_lu_small_shape *sh);
/* getrf (nrhs 0) or gesv through the small-n path, as planned. */
int lsc_lu_small_run(struct ls_cuda_ctx *c, ls_precision p, int n, int nrhs, void *dA, int lda,
                     void *dB, int ldb, int *d_ipiv, int *d_info, const lsc_lu_small_shape *sh,
                     char *err, size_t errlen);
/* Whether LS_CUDA_LU_SMALL_BLOCKS or LS_CUDA_LU_SMALL_IN_PLACE forces the
 * small-n kernel's form (for measuring, testing): then every order it
 * takes goes to it, none to the batched kernels (lsc_gesv_fused). */
int lsc_lu_small_forced(void);
/* gesv in one launch when the small-n path takes it (*fused = 1); else
 * nothing is queued (*fused = 0) and the caller runs getrf and getrs. */
int lsc_lu_small_gesv(struct ls_cuda_ctx *c, ls_precision p, int n, int nrhs, void *dA, int lda,
                      int *d_ipiv, int *d_info, void *dB, int ldb, int *fused, char *err,
                      size_t errlen);
#endif

#ifdef __cplusplus
}
#endif
#endif
