/*
 * C interface of the CUDA kernels (the .cu files). Every launcher that
 * touches matrix data comes as lsk_foo_d (double) and lsk_foo_s (float),
 * declared from one signature macro LSK_FOO_SIG(T, S) (typed.h); it takes
 * device pointers and a stream, and returns the cudaError_t of
 * cudaGetLastError() right after the launch, so the host code checks every
 * launch. Launch shapes are named in the headers once so the launchers and
 * the kernel registry (kernel_registry.cu) cannot disagree.
 *
 * The declarations live with their family: steps/k_steps.h, lu/k_lu.h,
 * bicgstab/k_bicgstab.h; batched/k_batched.h, mixed/k_mixed.h,
 * mixed/k_rbt.h, sparse/k_sparse.h and common/k_check.h are included by
 * their own drivers only. A driver may include its family's header alone;
 * this hub gathers the first three and the tiled GEMM below, for the
 * registry and for code that spans families.
 */
#ifndef LS_CUDA_KERNELS_H
#define LS_CUDA_KERNELS_H

#include "cuda/bicgstab/k_bicgstab.h"
#include "cuda/lu/k_lu.h"
#include "cuda/steps/k_steps.h"

#include <cuda_runtime_api.h>
#include "cuda/common/kernel_registry.h"
#include "cuda/common/typed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- tiled GEMM of Panchatcharam et al. 2013 (k_gemm.cu) ---- */
/* C = A B (m x n, k inner), column-major, tile p in {8, 16, 32}. */
#define LSK_GEMM_TILED_SIG(T, S)                                                            \
    cudaError_t lsk_gemm_tiled_##S(int tile, int m, int n, int k, const T *dA, int lda,       \
                                   const T *dB, int ldb, T *dC, int ldc, cudaStream_t s)
LSK_DECLARE(LSK_GEMM_TILED_SIG); /* lsk_gemm_tiled_d, lsk_gemm_tiled_s */

/* ---- registry rows (kernel_registry.cu): lsk_reg_<file>_d / _s ---- */
#define LSK_REG_GEMM_SIG(T, S) LSK_REG_SIG_(gemm, S)
LSK_DECLARE(LSK_REG_GEMM_SIG); /* lsk_reg_gemm_d, lsk_reg_gemm_s */

#ifdef __cplusplus
}
#endif
#endif
