/* The CUDA backend's mixed-precision operations (mixed_cuda.c). */
#ifndef LS_CUDA_MIXED_CUDA_H
#define LS_CUDA_MIXED_CUDA_H

#include "core/mixed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend's mixed_open slot: resolves pb->factor (auto: fp32 below
 * n = 2048, tf32 above), allocates the device workspace, returns the
 * operations (core/mixed.h). */
int lsc_mixed_open(void *bctx, ls_mixed_problem *pb, const ls_mixed_ops **ops, void **ws,
                   char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
