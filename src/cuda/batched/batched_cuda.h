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
