/* Measurement requests of the CUDA backend: the entries of the perf table of
 * its measurement plugin, liblinsolve_cuda_perf.so (perf.cu), typed by
 * src/core/perf/perf.h. Each returns 0,
 * LS_EINVAL, LS_EDEVMEM or LS_EDEVICE, with a message (file:line) in err. */
#ifndef LS_CUDA_PERF_H
#define LS_CUDA_PERF_H

#include <stddef.h>

#include "core/perf/perf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The measurement plugin's one export (perf.cu; core/perf/perf_plugin.h):
 * the table, for a core of the same plugin and perf ABI. */
LS_API void ls_perf_plugin_table(int plugin_abi, int perf_abi, int built[2],
                                 const ls_perf_iface **table);

/* The parts, one file each. */
int lsc_perf_device(void *bctx, ls_perf_device *out, char *err, size_t errlen);
int lsc_perf_kernels(void *bctx, const ls_perf_kernels_in *in, ls_perf_kernels_out *out,
                     char *err, size_t errlen);
int lsc_perf_copy(void *bctx, const ls_perf_copy_in *in, ls_perf_timing *out, char *err,
                  size_t errlen);
int lsc_perf_fma(void *bctx, const ls_perf_fma_in *in, ls_perf_timing *out, char *err,
                 size_t errlen);
int lsc_perf_intensity(void *bctx, const ls_perf_intensity_in *in, ls_perf_timing *out,
                       char *err, size_t errlen);
int lsc_perf_gemm(void *bctx, const ls_perf_gemm_in *in, ls_perf_timing *out, char *err,
                  size_t errlen);
int lsc_perf_gemv(void *bctx, const ls_perf_gemm_in *in, ls_perf_timing *out, char *err,
                  size_t errlen);
int lsc_perf_peer(void *bctx, const ls_perf_peer_in *in, ls_perf_peer_out *out, char *err,
                  size_t errlen);
int lsc_perf_lu_vs_peer(void *bctx, const ls_perf_lu_vs_peer_in *in, ls_perf_lu_vs_peer_out *out,
                        char *err, size_t errlen);
/* ours against cuSOLVER's dgetrf and IRS solvers (mixed_vs_peer.c) */
int lsc_perf_mixed_vs_peer(void *bctx, const ls_perf_mixed_in *in, ls_perf_mixed_out *out,
                           char *err, size_t errlen);
/* ours against cuBLAS getrfBatched + getrsBatched (batched_vs_peer.c) */
int lsc_perf_batched_vs_peer(void *bctx, const ls_perf_batched_in *in, ls_perf_batched_out *out,
                             char *err, size_t errlen);
/* Kernels of src/cuda/perf for the occupancy listing: count, or fill. */
int lsc_perf_own_kernels(int prec, int n, const char **names, const void **funcs, int *threads,
                         int max);

#ifdef __cplusplus
}
#endif
#endif
