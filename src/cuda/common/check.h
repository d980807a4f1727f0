/* The CUDA backend's check_gpu slot (check.c): ls_check_batched_gpu's
 * fused residual and finiteness check, queued on the context's stream. */
#ifndef LS_CUDA_CHECK_H
#define LS_CUDA_CHECK_H

#include "cuda/common/cuda_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

int lsc_check_gpu(void *bctx, const ls_check_job *job, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
