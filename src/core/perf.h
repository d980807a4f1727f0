/*
 * Measurement requests for the backend's optional `perf` slot
 * (ls_backend_iface.perf). Only the measurement tools (linsolve bench,
 * metrics, roofline) send them; solvers never do. Every request is a name
 * plus an input and an output struct declared here, so the plugin and the
 * tools agree on layout without sharing code.
 *
 *   what            in                      out
 *   "device"        NULL                    ls_perf_device
 *   "kernels"       ls_perf_kernels_in      ls_perf_kernels_out
 *   "copy"          ls_perf_copy_in         ls_perf_timing
 *   "fma"           ls_perf_fma_in          ls_perf_timing
 *   "intensity"     ls_perf_intensity_in    ls_perf_timing
 *   "gemm"          ls_perf_gemm_in         ls_perf_timing
 *   "gemv"          ls_perf_gemm_in         ls_perf_timing
 *   "peer"          ls_perf_peer_in         ls_perf_peer_out
 *   "lu_vs_peer"    ls_perf_lu_vs_peer_in   ls_perf_lu_vs_peer_out
 *
 * Timings are medians over `repeat` runs after one warm-up, taken with
 * device events. A backend answers LS_EUNSUPPORTED for names it lacks.
 */
#ifndef LS_CORE_PERF_H
#define LS_CORE_PERF_H

#include "linsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LS_PERF_NAME_LEN 64
#define LS_PERF_MAX_KERNELS 96

/* Device properties the occupancy formula (seed 001, (2.2)-(2.8)) needs,
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

/* Seed 000's intensity sweep: one coalesced elimination update over an
 * n x n matrix, with `loop` data-dependent FMAs per element added. */
typedef struct ls_perf_intensity_in {
    ls_precision prec;
    int n;
    int loop;
    int repeat;
} ls_perf_intensity_in;

/* Seed 001's tiled GEMM (m x m, tile p x p) and GEMV (m x m times m). */
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
 * device copy restored before every run (off the clock), one warm-up of
 * each, then runs interleaved ours, peer, ours, peer, ... with nrhs = 1.
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
} ls_perf_lu_vs_peer_out;

#ifdef __cplusplus
}
#endif
#endif
