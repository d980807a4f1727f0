/*
 * Measurement requests: a backend's `perf` table, answered by its
 * measurement plugin (liblinsolve_<backend>_perf.so, built beside the
 * backend plugin and never shipped in the Python wheel; perf_plugin.h says
 * how the core finds it). Only the measurement tools (linsolve bench,
 * metrics, roofline) send them; solvers never do. Every request is one
 * typed entry of ls_perf_iface with its own input and output structs,
 * declared here (and in perf_mixed.h, perf_batched.h), so the plugin and the
 * tools agree on layout without sharing code, and the compiler checks both.
 *
 *   entry            in                      out
 *   device           -                       ls_perf_device
 *   kernels          ls_perf_kernels_in      ls_perf_kernels_out
 *   copy             ls_perf_copy_in         ls_perf_timing
 *   fma              ls_perf_fma_in          ls_perf_timing
 *   intensity        ls_perf_intensity_in    ls_perf_timing
 *   gemm, gemv       ls_perf_gemm_in         ls_perf_timing
 *   peer             ls_perf_peer_in         ls_perf_peer_out
 *   lu_vs_peer       ls_perf_lu_vs_peer_in   ls_perf_lu_vs_peer_out
 *   mixed_vs_peer    ls_perf_mixed_in        ls_perf_mixed_out    (perf_mixed.h)
 *   batched_vs_peer  ls_perf_batched_in      ls_perf_batched_out  (perf_batched.h)
 *
 * Timings are medians over `repeat` runs after one warm-up, taken with
 * device events. A NULL entry is a request the backend does not answer; the
 * tools report it by name (tools/bench/bench_util.h, LS_BENCH_PERF).
 */
#ifndef LS_CORE_PERF_H
#define LS_CORE_PERF_H

#include <stddef.h>

#include "linsolve.h"
#include "core/errlen.h"
#include "core/perf/perf_batched.h"
#include "core/perf/perf_mixed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the table below and of the structs it takes, checked
 * when the measurement plugin is loaded (perf_plugin.h). 1: the table in a
 * plugin of its own, out of the backend table (plugin ABI 10). */
#define LS_PERF_ABI 1

#define LS_PERF_NAME_LEN 64
#define LS_PERF_MAX_KERNELS 96

/* Device properties the occupancy formula ((2.2)-(2.8) of Panchatcharam,
 * Sundar & Klar 2013) needs,
 * plus what the machine header prints. */
typedef struct ls_perf_device {
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    int clock_khz;           /* SM clock */
    int mem_clock_khz;
    int mem_bus_bits;
    int driver_version;      /* e.g. 13000 */
    int runtime_version;
    int warp_size;
    int max_threads_per_sm;
    int max_blocks_per_sm;
    int max_threads_per_block;
    int regs_per_sm;
    int regs_per_block;
    size_t smem_per_sm;       /* bytes */
    size_t smem_per_block_optin;
    size_t reserved_smem_per_block; /* 1 KB on sm_80+ */
    size_t l2_bytes;
    size_t global_mem_bytes;
    double peak_bw_gbs;       /* 2 * mem clock * bus width / 8 (DDR) */
    double peak_fp32_gflops;  /* SMs * FP32 lanes/SM * 2 * clock (table by cc) */
    double peak_fp64_gflops;
} ls_perf_device;

typedef struct ls_perf_kernels_in {
    ls_precision prec;
    int n, nrhs;              /* size the launch configuration is taken at */
} ls_perf_kernels_in;

/* One kernel at its actual launch configuration. */
typedef struct ls_perf_kernel {
    char name[LS_PERF_NAME_LEN];
    char method[32];          /* method(s) launching it; "perf" for measurement kernels */
    int block_threads;
    int num_regs;             /* cudaFuncAttributes */
    size_t static_smem;
    size_t dynamic_smem;
    size_t local_bytes;
    int max_threads_per_block;
    size_t max_dynamic_smem;  /* maxDynamicSharedSizeBytes */
    int cuda_active_blocks;   /* cudaOccupancyMaxActiveBlocksPerMultiprocessor */
} ls_perf_kernel;

typedef struct ls_perf_kernels_out {
    int count;
    ls_perf_kernel k[LS_PERF_MAX_KERNELS];
} ls_perf_kernels_out;

typedef struct ls_perf_timing {
    double seconds;  /* median of repeat */
    double flops;    /* counted operations of one run */
    double bytes;    /* modelled device-memory bytes of one run */
    double gflops, gbps;
} ls_perf_timing;

/* Device-to-device copy: bytes read + bytes written count. */
typedef struct ls_perf_copy_in {
    size_t bytes;
    int repeat;
} ls_perf_copy_in;

/* Dedicated FMA-throughput kernel. */
typedef struct ls_perf_fma_in {
    ls_precision prec;
    int repeat;
} ls_perf_fma_in;

/* Li (2025)'s intensity sweep: one coalesced elimination update over an
 * n x n matrix, with `loop` data-dependent FMAs per element added. */
typedef struct ls_perf_intensity_in {
    ls_precision prec;
    int n;
    int loop;
    int repeat;
} ls_perf_intensity_in;

/* The tiled GEMM (m x m, tile p x p) and GEMV (m x m times m) of
 * Panchatcharam, Sundar & Klar (2013). */
typedef struct ls_perf_gemm_in {
    ls_precision prec;
    int m;
    int p;
    int repeat;
} ls_perf_gemm_in;

typedef enum ls_perf_peer_kind {
    LS_PEER_CUSOLVER_GETRF = 0, /* cusolverDnXgetrf + Xgetrs in prec */
    LS_PEER_CUSOLVER_IRS = 1    /* cusolverDnIRSXgesv: FP64 in/out, FP32 inner */
} ls_perf_peer_kind;

typedef struct ls_perf_peer_in {
    ls_perf_peer_kind kind;
    ls_precision prec;
    int n, nrhs;
    const double *A; /* n x n, lda = n */
    const double *B; /* n x nrhs, ldb = n */
    int repeat;
} ls_perf_peer_in;

typedef struct ls_perf_peer_out {
    double *X;        /* caller-owned n x nrhs: the solution of the last run */
    double t_h2d, t_factor, t_solve, t_d2h; /* medians, seconds */
    int info;
    int iterations;   /* IRS outer iterations (negative: fell back to FP64) */
    char name[LS_PERF_NAME_LEN];
} ls_perf_peer_out;

/* Our getrf + getrs on device memory against cuSOLVER's Xgetrf + Xgetrs,
 * in the same process on the same stream: A and b uploaded once, a pristine
 * device copy restored before every run (off the clock), warm-ups of each,
 * then runs interleaved ours first-call, ours replay, peer, ... with nrhs
 * = 1. A first call gets buffers allocated for it alone (never seen by the
 * CUDA graph cache, so nothing can be replayed); a replay call reuses the
 * same buffers every time, as a caller solving again in place does.
 * Before allocating, the device memory the case needs is compared with
 * what is free: LS_EDEVMEM (need_bytes, free_bytes set) when it does not
 * fit. */
typedef struct ls_perf_lu_vs_peer_in {
    ls_precision prec;
    int n;
    const double *A; /* host, n x n, lda = n (converted to prec for the device) */
    const double *b; /* host, n */
    int repeat;      /* timed runs of each, after the warm-ups */
} ls_perf_lu_vs_peer_in;

typedef struct ls_perf_lu_vs_peer_out {
    double t_ours, t_peer;         /* medians, seconds: getrf + getrs, device events */
    double t_ours_min, t_ours_max; /* spread of the timed runs */
    double t_peer_min, t_peer_max;
    double res_ours, res_peer;     /* ||b - A x||inf / (n ||A||inf ||x||inf eps), last run */
    int info_ours, info_peer;      /* first nonzero info of any run, else 0 */
    int runs;                      /* timed runs of each */
    size_t need_bytes, free_bytes; /* device memory the case needs, and found free */
    char ours[LS_PERF_NAME_LEN], peer[LS_PERF_NAME_LEN];
    /* ours on fresh buffers every run (t_ours above: the same buffers, replayed);
     * res_ours and info_ours cover both kinds of run */
    double t_ours_first, t_ours_first_min, t_ours_first_max;
} ls_perf_lu_vs_peer_out;

/* The typed requests. Each entry is optional: NULL -> LS_EUNSUPPORTED,
 * named by the tool that asked. Every entry gets the backend context, its
 * input (none for device), its output, and err for a message with
 * file:line; it returns 0 or a status (LS_EINVAL, LS_EDEVMEM, LS_EDEVICE). */
typedef struct ls_perf_iface {
    int (*device)(void *bctx, ls_perf_device *out, char *err, size_t errlen);
    int (*kernels)(void *bctx, const ls_perf_kernels_in *in, ls_perf_kernels_out *out, char *err,
                   size_t errlen);
    int (*copy)(void *bctx, const ls_perf_copy_in *in, ls_perf_timing *out, char *err,
                size_t errlen);
    int (*fma)(void *bctx, const ls_perf_fma_in *in, ls_perf_timing *out, char *err,
               size_t errlen);
    int (*intensity)(void *bctx, const ls_perf_intensity_in *in, ls_perf_timing *out, char *err,
                     size_t errlen);
    int (*gemm)(void *bctx, const ls_perf_gemm_in *in, ls_perf_timing *out, char *err,
                size_t errlen);
    int (*gemv)(void *bctx, const ls_perf_gemm_in *in, ls_perf_timing *out, char *err,
                size_t errlen);
    int (*peer)(void *bctx, const ls_perf_peer_in *in, ls_perf_peer_out *out, char *err,
                size_t errlen);
    int (*lu_vs_peer)(void *bctx, const ls_perf_lu_vs_peer_in *in, ls_perf_lu_vs_peer_out *out,
                      char *err, size_t errlen);
    int (*mixed_vs_peer)(void *bctx, const ls_perf_mixed_in *in, ls_perf_mixed_out *out,
                         char *err, size_t errlen);
    int (*batched_vs_peer)(void *bctx, const ls_perf_batched_in *in, ls_perf_batched_out *out,
                           char *err, size_t errlen);
} ls_perf_iface;

/* The tools' way to a context's backend (perf_access.c), so that they do
 * not read ls_context's internals (core/backend.h):
 *  - ls_perf_table: ctx's measurement table, from its backend's
 *    measurement plugin; NULL when its backend has none. For a backend
 *    that should have one (CUDA) but whose plugin is missing or refused,
 *    a table whose every entry fails with LS_EUNAVAIL saying so ("CUDA
 *    measurement plugin not built/installed ...");
 *  - ls_perf_backend_ctx: the backend context the table's entries take;
 *  - ls_perf_auto_method: the method ctx's backend picks itself for
 *    method `auto` in precision p (LS_METHOD_AUTO when it leaves the
 *    choice to the library). */
LS_API const ls_perf_iface *ls_perf_table(const ls_context *ctx);
LS_API void *ls_perf_backend_ctx(const ls_context *ctx);
LS_API ls_method ls_perf_auto_method(const ls_context *ctx, ls_precision p);

#ifdef __cplusplus
}
#endif
#endif
