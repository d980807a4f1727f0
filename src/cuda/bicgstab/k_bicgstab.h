/*
 * C interface of the dense BiCGStab's kernels (k_bicgstab.cu), used by
 * solve_bicgstab_impl.h.
 * Conventions as in common/kernels.h, the hub that includes this header:
 * each launcher comes as _d and _s from one signature macro (LSK_DECLARE),
 * takes device pointers and a stream and returns the launch's cudaError_t.
 */
#ifndef LS_CUDA_K_BICGSTAB_H
#define LS_CUDA_K_BICGSTAB_H

#include <cuda_runtime_api.h>
#include "cuda/common/kernel_registry.h"
#include "cuda/common/typed.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LSK_SPMV_THREADS 256    /* bicgstab matvec */
#define LSK_SPMV_ROWS 4         /* p rows per thread (Panchatcharam et al. 2013, figure 4) */
#define LSK_SPMV_XTILE 1024     /* x elements staged in shared memory */
#define LSK_DOT_THREADS 256
#define LSK_DOT_BLOCKS 256      /* first-stage blocks of a dot product */
#define LSK_VEC_THREADS 256

/* ---- BiCGStab (k_bicgstab.cu) ---- */
/* y = A x, A column-major n x n, p rows per thread, x staged in shared memory. */
#define LSK_MATVEC_SIG(T, S)                                                              \
    cudaError_t lsk_matvec_##S(int n, const T *dA, int lda, const T *dx, T *dy, cudaStream_t s)
LSK_DECLARE(LSK_MATVEC_SIG); /* lsk_matvec_d, lsk_matvec_s */
/* out[0] = x . y in two stages (partials: LSK_DOT_BLOCKS elements). */
#define LSK_DOT_SIG(T, S)                                                               \
    cudaError_t lsk_dot_##S(int n, const T *dx, const T *dy, T *partials, T *out, cudaStream_t s)
LSK_DECLARE(LSK_DOT_SIG); /* lsk_dot_d, lsk_dot_s */
/* out = a*x + b*y + c*z (a term whose pointer is NULL is left out);
 * out may alias x, y or z: each thread reads its element before writing. */
#define LSK_AXPBYPCZ_SIG(T, S)                                                           \
    cudaError_t lsk_axpbypcz_##S(int n, double a, const T *x, double b, const T *y, double c, \
                                 const T *z, T *out, cudaStream_t s)
LSK_DECLARE(LSK_AXPBYPCZ_SIG); /* lsk_axpbypcz_d, lsk_axpbypcz_s */

/* ---- registry rows (kernel_registry.cu): lsk_reg_<file>_d / _s ---- */
#define LSK_REG_BICGSTAB_SIG(T, S) LSK_REG_SIG_(bicgstab, S)
LSK_DECLARE(LSK_REG_BICGSTAB_SIG); /* lsk_reg_bicgstab_d, lsk_reg_bicgstab_s */

#ifdef __cplusplus
}
#endif
#endif
