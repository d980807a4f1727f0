/* The CUDA backend's batched slot (batched.c). */
#ifndef LS_CUDA_BATCHED_CUDA_H
#define LS_CUDA_BATCHED_CUDA_H

#include "cuda_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ls_batched_job;
/* ls_backend_iface.batched: host arrays (copied over and back) or, with
 * job->device, device arrays on the context's stream. */
int lsc_batched(void *bctx, const struct ls_batched_job *job, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
