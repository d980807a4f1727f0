/* The CUDA backend's mixed-precision operations (mixed_cuda.c). */
#ifndef LS_CUDA_MIXED_CUDA_H
#define LS_CUDA_MIXED_CUDA_H

#include "algo/mixed.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ls_cuda_ctx; /* cuda_backend.h */

/* The mixed role's open slot: refuses A, B or X outside this GPU's
 * memory (-3, -6, -8), resolves pb->pivot (auto: rbt from n = 1024 or the
 * order in LS_CUDA_MIXED_RBT_MIN_N, else partial) and pb->factor (auto:
 * fp64 without interchanges; else fp32, or tf32 from the order in
 * LS_CUDA_MIXED_TF32_MIN_N), carves the device workspace kept in the
 * context (grown when too small), returns the operations (algo/mixed.h). */
int lsc_mixed_open(void *bctx, ls_mixed_problem *pb, const ls_mixed_ops **ops, void **ws,
                   char *err, size_t errlen);

/* Releases the workspace kept in c (backend destroy). */
void lsc_mixed_ws_free(struct ls_cuda_ctx *c);
/* LU of the FP32 matrix A (n x n) with the trailing updates in f's
 * precision (mixed_lu.c): with partial pivoting (nopiv 0: tf32x3, fp16 or
 * bf16) or without interchanges (nopiv 1: any factor precision; d_ipiv
 * comes back as the identity); pivots and info as lsc_getrf_device
 * (d_info zeroed by the caller). */
int lsc_mixed_lu(struct ls_cuda_ctx *c, ls_factor_prec f, int nopiv, int n, float *A, int lda,
                 int *d_ipiv, int *d_info, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
