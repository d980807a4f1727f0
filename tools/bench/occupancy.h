/*
 * Occupancy from device properties and a kernel's attributes, by the
 * formula (2.2)-(2.8) of Panchatcharam, Sundar & Klar (2013), with the
 * symbols mapped to what CUDA exposes and the allocation rules of CUDA's
 * occupancy calculator (cuda_occupancy.h), so the
 * result can be set beside cudaOccupancyMaxActiveBlocksPerMultiprocessor and
 * must agree with it. Plain C: no CUDA needed to compile or test it.
 */
#ifndef LS_BENCH_OCCUPANCY_H
#define LS_BENCH_OCCUPANCY_H

#include <stddef.h>

/* The GPU side: one SM's limits (the paper's fixed-per-GPU parameters). */
typedef struct ls_occ_gpu {
    int cc_major, cc_minor;
    int warp_size;              /* phi */
    int max_warps_per_sm;       /* gamma_max = maxThreadsPerMultiProcessor / warpSize */
    int max_blocks_per_sm;      /* zeta_max */
    int max_threads_per_block;
    int regs_per_sm;            /* eta */
    int regs_per_block;         /* per-block register cap (hardware check) */
    size_t smem_per_sm;         /* alpha (default carveout = the maximum) */
    size_t smem_per_block;      /* default per-block cap (48 KB) */
    size_t smem_per_block_optin;
    size_t reserved_smem_per_block; /* 1 KB on sm_80+ */
} ls_occ_gpu;

/* The kernel side at its launch configuration. */
typedef struct ls_occ_kernel {
    int block_threads;          /* mu_reqB */
    int regs_per_thread;        /* gamma_reqT (the paper's name) = numRegs */
    size_t static_smem;         /* sharedSizeBytes */
    size_t dynamic_smem;        /* launch's dynamic shared memory */
    size_t max_dynamic_smem;    /* maxDynamicSharedSizeBytes (0: not known) */
} ls_occ_kernel;

/* Each intermediate of (2.2)-(2.8), so tools can print the working. */
typedef struct ls_occ_result {
    int warps_per_block;        /* gamma_PB (2.3) */
    int regs_per_warp;          /* eta per warp, rounded to eta_U */
    int regs_per_block;         /* eta_PB (2.4) */
    size_t smem_per_block;      /* xi_PB (2.5), incl. reserved, rounded to alpha_U */
    int limit_warps;            /* zeta_lim|gamma (2.6) */
    int limit_regs;             /* zeta_lim|eta */
    int limit_smem;             /* zeta_lim|alpha */
    int blocks_per_sm;          /* psi (2.7) */
    int warps_per_sm;           /* gamma_SM (2.2) */
    double occupancy;           /* lambda (2.8) */
    const char *limiter;        /* "warps", "registers", "shared memory", "block size" */
} ls_occ_result;

/* Allocation units by compute capability (CUDA's calculator tables).
 * @return 0, or -1 for an unknown architecture (units then guessed). */
int ls_occ_units(int cc_major, int cc_minor, int *reg_unit, int *smem_unit, int *sub_partitions);

/**
 * Blocks and warps co-resident on one SM, and the occupancy lambda.
 * @param[in]  gpu  the device's limits
 * @param[in]  k    the kernel at its launch configuration
 * @param[out] r    every intermediate; r->blocks_per_sm == 0 if it cannot run
 * @return 0, or -1 if an argument is out of range (r still filled with zeros)
 */
int ls_occ_compute(const ls_occ_gpu *gpu, const ls_occ_kernel *k, ls_occ_result *r);

/* Fill a ls_occ_gpu with the published limits of one architecture (for
 * tests and for `metrics --cc X.Y` without a device). @return 0 or -1. */
int ls_occ_gpu_preset(int cc_major, int cc_minor, ls_occ_gpu *gpu);

#endif
