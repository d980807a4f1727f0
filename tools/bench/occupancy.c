/*
 * The occupancy formula (2.2)-(2.8) of Panchatcharam, Sundar & Klar (2013).
 * Symbol mapping (docs/metrics.md):
 *   phi        warpSize
 *   mu_reqB    threads per block of the launch
 *   gamma_PB   warps per block = ceil(mu_reqB / phi)                    (2.3)
 *   gamma_reqT registers per thread (cudaFuncAttributes.numRegs)
 *   eta_U      register allocation unit: 256 registers, per warp
 *   gamma_AU   warp allocation granularity: the SM's 4 sub-partitions
 *   eta        registers per SM; eta_PB registers of one block          (2.4)
 *   alpha      shared memory per SM; alpha_PB shared memory of one block
 *   alpha_U    shared memory allocation unit (128 B on sm_80+)
 *   xi_PB      alpha_PB + reserved, rounded up to alpha_U                (2.5)
 *   zeta_max   max blocks per SM; gamma_max max warps per SM
 * The paper's register branch (2.4) is written for whole-SM allocation; CUDA
 * allocates registers per sub-partition (eta/4 each), so the register limit
 * is floor(eta/4 / eta_warp) * 4 warps, as cuda_occupancy.h computes it.
 * Without that refinement the formula disagrees with CUDA on e.g. 96-thread
 * blocks, and the result must agree with CUDA's own calculator.
 */
#include "occupancy.h"

#include <limits.h>
#include <string.h>

static long round_up(long x, long unit) { return unit > 0 ? (x + unit - 1) / unit * unit : x; }
static int min_int(int a, int b) { return a < b ? a : b; }

int ls_occ_units(int cc_major, int cc_minor, int *reg_unit, int *smem_unit, int *sub_partitions)
{
    int known = cc_major >= 3 && cc_major <= 12;
    *reg_unit = 256;
    *smem_unit = cc_major >= 8 ? 128 : 256;
    *sub_partitions = (cc_major == 6 && cc_minor == 0) ? 2 : 4;
    return known ? 0 : -1;
}

int ls_occ_compute(const ls_occ_gpu *gpu, const ls_occ_kernel *k, ls_occ_result *r)
{
    memset(r, 0, sizeof *r);
    r->limiter = "block size";
    if (!gpu || !k || gpu->warp_size <= 0 || gpu->max_warps_per_sm <= 0 || k->block_threads <= 0 ||
        k->regs_per_thread < 0)
        return -1;
    int reg_unit, smem_unit, parts;
    ls_occ_units(gpu->cc_major, gpu->cc_minor, &reg_unit, &smem_unit, &parts);

    /* (2.3) */
    r->warps_per_block = (k->block_threads + gpu->warp_size - 1) / gpu->warp_size;
    if (k->block_threads > gpu->max_threads_per_block)
        return 0; /* cannot launch at all: zero blocks */

    /* (2.6), warp limit */
    r->limit_warps = min_int(gpu->max_blocks_per_sm, gpu->max_warps_per_sm / r->warps_per_block);

    /* (2.4): registers per warp rounded to eta_U; the per-block hardware
     * check assumes the block's warps are spread over all sub-partitions. */
    r->regs_per_warp = (int)round_up((long)k->regs_per_thread * gpu->warp_size, reg_unit);
    r->regs_per_block = r->regs_per_warp * r->warps_per_block;
    long regs_assumed = (long)r->regs_per_warp * round_up(r->warps_per_block, parts);
    if (k->regs_per_thread > 256 || regs_assumed > gpu->regs_per_block ||
        r->regs_per_block > gpu->regs_per_block) {
        r->limit_regs = 0;
    } else if (r->regs_per_warp > 0) {
        int warps_per_part = (gpu->regs_per_sm / parts) / r->regs_per_warp;
        r->limit_regs = warps_per_part * parts / r->warps_per_block;
    } else {
        r->limit_regs = gpu->max_blocks_per_sm;
    }

    /* (2.5) and the shared-memory limit; the driver's reserved 1 KB per
     * block (sm_80+) counts even when the kernel uses none. */
    size_t reserved = gpu->cc_major >= 8 ? gpu->reserved_smem_per_block : 0;
    size_t used = k->static_smem + k->dynamic_smem + reserved;
    r->smem_per_block = (size_t)round_up((long)used, smem_unit);
    size_t cap = gpu->smem_per_block;
    if (k->static_smem + k->dynamic_smem > gpu->smem_per_block && k->max_dynamic_smem > 0 &&
        k->dynamic_smem <= k->max_dynamic_smem)
        cap = gpu->smem_per_block_optin; /* the kernel opted in to more */
    cap += reserved;
    if (r->smem_per_block > cap)
        r->limit_smem = 0;
    else if (r->smem_per_block > 0)
        r->limit_smem = (int)(gpu->smem_per_sm / r->smem_per_block);
    else
        r->limit_smem = INT_MAX;

    /* (2.7), (2.2), (2.8) */
    r->blocks_per_sm = min_int(r->limit_warps, min_int(r->limit_regs, r->limit_smem));
    r->warps_per_sm = r->blocks_per_sm * r->warps_per_block;
    r->occupancy = (double)r->warps_per_sm / gpu->max_warps_per_sm;
    if (r->blocks_per_sm == r->limit_warps)
        r->limiter = "warps";
    else if (r->blocks_per_sm == r->limit_regs)
        r->limiter = "registers";
    else
        r->limiter = "shared memory";
    return 0;
}

int ls_occ_gpu_preset(int cc_major, int cc_minor, ls_occ_gpu *g)
{
    memset(g, 0, sizeof *g);
    g->cc_major = cc_major;
    g->cc_minor = cc_minor;
    g->warp_size = 32;
    g->max_threads_per_block = 1024;
    g->regs_per_sm = 65536;
    g->regs_per_block = 65536;
    g->smem_per_block = 49152;
    int cc = cc_major * 10 + cc_minor;
    switch (cc) {
    case 70: g->max_warps_per_sm = 64; g->max_blocks_per_sm = 32; g->smem_per_sm = 98304; g->smem_per_block_optin = 98304; break;
    case 75: g->max_warps_per_sm = 32; g->max_blocks_per_sm = 16; g->smem_per_sm = 65536; g->smem_per_block_optin = 65536; break;
    case 80: g->max_warps_per_sm = 64; g->max_blocks_per_sm = 32; g->smem_per_sm = 167936; g->smem_per_block_optin = 166912; g->reserved_smem_per_block = 1024; break;
    case 86: g->max_warps_per_sm = 48; g->max_blocks_per_sm = 16; g->smem_per_sm = 102400; g->smem_per_block_optin = 101376; g->reserved_smem_per_block = 1024; break;
    case 89: g->max_warps_per_sm = 48; g->max_blocks_per_sm = 24; g->smem_per_sm = 102400; g->smem_per_block_optin = 101376; g->reserved_smem_per_block = 1024; break;
    case 90: g->max_warps_per_sm = 64; g->max_blocks_per_sm = 32; g->smem_per_sm = 233472; g->smem_per_block_optin = 232448; g->reserved_smem_per_block = 1024; break;
    default: return -1;
    }
    return 0;
}
