/* The CUDA backend's batched slot (batched.c). */
#ifndef LS_CUDA_BATCHED_CUDA_H
#define LS_CUDA_BATCHED_CUDA_H

#include "cuda/common/cuda_backend.h"
#include "cuda/common/typed.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ls_batched_job;
/* ls_batched_role.run: host arrays (copied over and back) or, with
 * job->device, device arrays on the context's stream. */
int lsc_batched(void *bctx, const struct ls_batched_job *job, char *err, size_t errlen);
/* gesv of one column-major system on device memory through the batched
 * kernels (a stack of one), queued on the context's stream: one launch
 * where the kernel fuses the solve (lu/getrs.c takes it for the smallest
 * orders). LAPACK's pivots and info in d_ipiv, d_info; after a zero pivot
 * B is left as it was. */
int lsc_batched_gesv_one(ls_cuda_ctx *c, ls_precision p, int n, int nrhs, void *dA, int lda,
                         int *d_ipiv, int *d_info, void *dB, int ldb, char *err, size_t errlen);

struct lsk_bstack;
/* getrf of a column- or row-major stack by panels (batched_blocked.c);
 * ipiv required. lsc_bblk_width: its panel width for n, 0 if none fits. */
#define LSC_BBLK_GETRF_SIG(T, S)                                                           \
    int lsc_bblk_getrf_##S(ls_cuda_ctx *c, const struct lsk_bstack *s, size_t optin, char *err, \
                           size_t errlen)
LSK_DECLARE(LSC_BBLK_GETRF_SIG); /* lsc_bblk_getrf_d, lsc_bblk_getrf_s */
#define LSC_BBLK_WIDTH_SIG(T, S) int lsc_bblk_width_##S(int n, size_t optin)
LSK_DECLARE(LSC_BBLK_WIDTH_SIG); /* lsc_bblk_width_d, lsc_bblk_width_s */

#ifdef __cplusplus
}
#endif
#endif
