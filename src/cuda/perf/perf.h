/* Measurement requests of the CUDA plugin (the backend's perf slot); the
 * request names and structs are in src/core/perf.h. */
#ifndef LS_CUDA_PERF_H
#define LS_CUDA_PERF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @param[in]  bctx   the CUDA backend context (ls_cuda_ctx)
 * @param[in]  what   request name ("device", "kernels", "copy", "fma",
 *                    "intensity", "gemm", "gemv", "peer", "lu_vs_peer")
 * @param[in]  in     request input struct (src/core/perf.h), may be NULL
 * @param[out] out    request output struct
 * @param[out] err    message with file:line on failure
 * @return 0, LS_EUNSUPPORTED for an unknown request, LS_EINVAL, LS_EDEVMEM,
 *         LS_EDEVICE
 */
int ls_cuda_perf(void *bctx, const char *what, const void *in, void *out, char *err,
                 size_t errlen);

/* The parts, one file each. */
int lsc_perf_device(void *bctx, void *out, char *err, size_t errlen);
int lsc_perf_kernels(void *bctx, const void *in, void *out, char *err, size_t errlen);
int lsc_perf_copy(void *bctx, const void *in, void *out, char *err, size_t errlen);
int lsc_perf_fma(void *bctx, const void *in, void *out, char *err, size_t errlen);
int lsc_perf_intensity(void *bctx, const void *in, void *out, char *err, size_t errlen);
int lsc_perf_gemm(void *bctx, const void *in, void *out, char *err, size_t errlen);
int lsc_perf_gemv(void *bctx, const void *in, void *out, char *err, size_t errlen);
int lsc_perf_peer(void *bctx, const void *in, void *out, char *err, size_t errlen);
int lsc_perf_lu_vs_peer(void *bctx, const void *in, void *out, char *err, size_t errlen);
/* Kernels of src/cuda/perf for the occupancy listing: count, or fill. */
int lsc_perf_own_kernels(int prec, int n, const char **names, const void **funcs, int *threads,
                         int max);

#ifdef __cplusplus
}
#endif
#endif
