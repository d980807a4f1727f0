/* The CUDA measurement plugin's perf table (liblinsolve_cuda_perf.so, whose
 * only export is ls_perf_plugin_table): every entry makes the context's
 * device current first, then runs its part; device properties and the
 * kernel listing with CUDA's own occupancy figure (metrics sets its formula
 * beside it) are here. The backend context an entry gets was made by
 * liblinsolve_cuda.so; both plugins link the same ls_cuda_impl, so they
 * agree on its layout, and the CUDA handles in it (stream, events, pool,
 * cuBLAS) are the driver's, valid in either plugin's CUDA runtime. */
#include <stdio.h>
#include <string.h>

#include "core/perf/perf_plugin.h"
#include "cuda/common/cuda_backend.h"
#include "cuda/common/kernel_registry.h"
#include "cuda/perf/perf.h"

/* The calling thread may have another device current (as in solve). */
static int current(void *bctx, char *err, size_t errlen)
{
    if (!bctx)
        return LSC_FAIL(err, errlen, LS_EINVAL, "perf: NULL context");
    cudaError_t e = cudaSetDevice(((ls_cuda_ctx *)bctx)->device);
    if (e != cudaSuccess)
        return lsc_cuda_fail_at(e, "cudaSetDevice", err, errlen, __FILE__, __LINE__);
    return 0;
}

/* One typed entry: NULL input or output refused, the device made current. */
#define LSC_PERF_ENTRY(name, In, Out)                                                        \
    static int entry_##name(void *bctx, const In *in, Out *out, char *err, size_t errlen)    \
    {                                                                                        \
        if (!in || !out)                                                                     \
            return LSC_FAIL(err, errlen, LS_EINVAL, "perf " #name ": NULL input or output"); \
        int st = current(bctx, err, errlen);                                                 \
        return st ? st : lsc_perf_##name(bctx, in, out, err, errlen);                        \
    }
LSC_PERF_ENTRY(kernels, ls_perf_kernels_in, ls_perf_kernels_out)
LSC_PERF_ENTRY(copy, ls_perf_copy_in, ls_perf_timing)
LSC_PERF_ENTRY(fma, ls_perf_fma_in, ls_perf_timing)
LSC_PERF_ENTRY(intensity, ls_perf_intensity_in, ls_perf_timing)
LSC_PERF_ENTRY(gemm, ls_perf_gemm_in, ls_perf_timing)
LSC_PERF_ENTRY(gemv, ls_perf_gemm_in, ls_perf_timing)
LSC_PERF_ENTRY(peer, ls_perf_peer_in, ls_perf_peer_out)
LSC_PERF_ENTRY(lu_vs_peer, ls_perf_lu_vs_peer_in, ls_perf_lu_vs_peer_out)
LSC_PERF_ENTRY(mixed_vs_peer, ls_perf_mixed_in, ls_perf_mixed_out)
LSC_PERF_ENTRY(batched_vs_peer, ls_perf_batched_in, ls_perf_batched_out)
#undef LSC_PERF_ENTRY

static int entry_device(void *bctx, ls_perf_device *out, char *err, size_t errlen)
{
    if (!out)
        return LSC_FAIL(err, errlen, LS_EINVAL, "perf device: NULL output");
    int st = current(bctx, err, errlen);
    return st ? st : lsc_perf_device(bctx, out, err, errlen);
}

static const ls_perf_iface cuda_perf_iface = {
    entry_device,     entry_kernels, entry_copy, entry_fma,        entry_intensity,
    entry_gemm,       entry_gemv,    entry_peer, entry_lu_vs_peer, entry_mixed_vs_peer,
    entry_batched_vs_peer,
};

extern "C" LS_API void ls_perf_plugin_table(int plugin_abi, int perf_abi, int built[2],
                                            const ls_perf_iface **table)
{
    const ls_perf_plugin_fn as_declared = ls_perf_plugin_table; /* the contract's type */
    (void)as_declared;
    if (built)
        built[0] = LS_PLUGIN_ABI, built[1] = LS_PERF_ABI;
    if (table)
        *table = plugin_abi == LS_PLUGIN_ABI && perf_abi == LS_PERF_ABI ? &cuda_perf_iface : NULL;
}

/* FP32 / FP64 lanes per SM by architecture, for the theoretical peaks the
 * roofline sets beside the measured ones (CUDA programming guide's
 * throughput table). */
static void lanes_per_sm(int major, int minor, int *fp32, int *fp64)
{
    *fp32 = 64, *fp64 = 2;
    if (major == 7) *fp32 = 64, *fp64 = (minor == 0) ? 32 : 2;
    if (major == 8) *fp32 = (minor == 0) ? 64 : 128, *fp64 = (minor == 0) ? 32 : 2;
    if (major == 9) *fp32 = 128, *fp64 = 64;
    if (major >= 10) *fp32 = 128, *fp64 = 64;
}

extern "C" int lsc_perf_device(void *bctx, ls_perf_device *d, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0;
    int v = 0;
    memset(d, 0, sizeof *d);
    const cudaDeviceProp *p = &c->prop;
    snprintf(d->name, sizeof d->name, "%s", p->name);
    d->cc_major = p->major, d->cc_minor = p->minor;
    d->sm_count = p->multiProcessorCount;
    d->warp_size = p->warpSize;
    d->max_threads_per_sm = p->maxThreadsPerMultiProcessor;
    d->max_blocks_per_sm = p->maxBlocksPerMultiProcessor;
    d->max_threads_per_block = p->maxThreadsPerBlock;
    d->regs_per_sm = p->regsPerMultiprocessor;
    d->regs_per_block = p->regsPerBlock;
    d->smem_per_sm = p->sharedMemPerMultiprocessor;
    d->smem_per_block_optin = p->sharedMemPerBlockOptin;
    d->reserved_smem_per_block = p->reservedSharedMemPerBlock;
    d->l2_bytes = (size_t)p->l2CacheSize;
    d->global_mem_bytes = p->totalGlobalMem;
    d->mem_bus_bits = p->memoryBusWidth;
    LSC_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, c->device));
    d->clock_khz = v;
    LSC_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, c->device));
    d->mem_clock_khz = v;
    LSC_CUDA(cudaDriverGetVersion(&d->driver_version));
    LSC_CUDA(cudaRuntimeGetVersion(&d->runtime_version));
    d->peak_bw_gbs = 2.0 * d->mem_clock_khz * 1e3 * (d->mem_bus_bits / 8.0) / 1e9;
    {
        int f32, f64;
        lanes_per_sm(p->major, p->minor, &f32, &f64);
        double ghz = d->clock_khz / 1e6;
        d->peak_fp32_gflops = 2.0 * f32 * d->sm_count * ghz;
        d->peak_fp64_gflops = 2.0 * f64 * d->sm_count * ghz;
    }
done:
    return st;
}

static int describe(const char *name, const char *method, const void *func, int threads,
                    size_t dyn, ls_perf_kernel *k, char *err, size_t errlen)
{
    int st = 0;
    cudaFuncAttributes a;
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", name);
    snprintf(k->method, sizeof k->method, "%s", method ? method : "");
    k->block_threads = threads;
    k->dynamic_smem = dyn;
    LSC_CUDA(cudaFuncGetAttributes(&a, func));
    k->num_regs = a.numRegs;
    k->static_smem = a.sharedSizeBytes;
    k->local_bytes = a.localSizeBytes;
    k->max_threads_per_block = a.maxThreadsPerBlock;
    k->max_dynamic_smem = (size_t)a.maxDynamicSharedSizeBytes;
    LSC_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k->cuda_active_blocks, func, threads,
                                                           dyn));
done:
    return st;
}

extern "C" int lsc_perf_kernels(void *bctx, const ls_perf_kernels_in *q, ls_perf_kernels_out *o,
                                char *err, size_t errlen)
{
    (void)bctx;
    int st = 0;
    const char *names[16];
    const void *funcs[16];
    int threads[16];
    int own = 0;
    o->count = 0;
    const ls_cuda_kernel_desc *reg = NULL;
    int nreg = ls_cuda_kernel_registry((int)q->prec, &reg);
    for (int i = 0; i < nreg && o->count < LS_PERF_MAX_KERNELS; i++) {
        size_t dyn = reg[i].dynamic_smem ? reg[i].dynamic_smem(q->n, q->nrhs) : 0;
        LSC_TRY(describe(reg[i].name, reg[i].method, reg[i].func, reg[i].block_threads, dyn,
                         &o->k[o->count], err, errlen));
        o->count++;
    }
    own = lsc_perf_own_kernels((int)q->prec, q->n, names, funcs, threads, 16);
    for (int i = 0; i < own && o->count < LS_PERF_MAX_KERNELS; i++) {
        LSC_TRY(describe(names[i], "perf", funcs[i], threads[i], 0, &o->k[o->count], err, errlen));
        o->count++;
    }
done:
    return st;
}
