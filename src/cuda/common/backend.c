/* The CUDA backend plugin (liblinsolve_cuda.so): context, the backend
 * table the core dlopens, method dispatch and device information. The
 * measurement requests are in liblinsolve_cuda_perf.so (src/cuda/perf). */
#include "core/methods/methods.h"
#include "cuda/batched/batched_cuda.h"
#include "cuda/common/check.h"
#include "cuda/sparse/sparse_cuda.h"
#include "cuda/common/cuda_backend.h"
#include "cuda/common/kernels.h"
#include "cuda/mixed/mixed_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What this backend runs, against the method table; ge runs as the table's
 * runs_as (ge-coalesced). */
static const ls_method_support lsc_methods[] = {
    {LS_METHOD_LU, LS_PREC_DS},           {LS_METHOD_GE_NAIVE, LS_PREC_DS},
    {LS_METHOD_GE_BLOCKED, LS_PREC_DS},   {LS_METHOD_GE_COALESCED, LS_PREC_DS},
    {LS_METHOD_LU_SEED, LS_PREC_DS},      {LS_METHOD_GJ1, LS_PREC_DS},
    {LS_METHOD_GJ2, LS_PREC_DS},          {LS_METHOD_BICGSTAB, LS_PREC_DS},
};
#define LSC_NMETHODS (sizeof lsc_methods / sizeof lsc_methods[0])

static void lsc_destroy(void *bctx)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    if (!c)
        return;
    cudaSetDevice(c->device);
    lsc_graphs_free(c);
    cudaFree(c->gesv_ws);
    lsc_stage_free(c);
    lsc_lookahead_free(c);
    lsc_mixed_ws_free(c);
    cudaFree(c->lu_ws);
    if (c->tmp_pool) { /* its blocks are freed in stream order: let the frees land */
        cudaDeviceSynchronize();
        cudaMemPoolDestroy(c->tmp_pool);
    }
    if (c->blas)
        cublasDestroy(c->blas);
    for (int i = 0; i < LSC_EV_COUNT; i++)
        if (c->ev[i])
            cudaEventDestroy(c->ev[i]);
    /* stream may be the caller's (ls_context_set_stream): not ours to destroy */
    if (c->own_stream)
        cudaStreamDestroy(c->own_stream);
    free(c);
}

static void lsc_device_name(void *bctx, char *buf, size_t len)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    snprintf(buf, len, "%s", c->name);
}

static int lsc_supports(void *bctx, ls_method m, ls_precision p, char *err, size_t errlen)
{
    const ls_cuda_ctx *c = (const ls_cuda_ctx *)bctx;
    return c->core->methods_check(LS_BACKEND_CUDA, lsc_methods, LSC_NMETHODS, m, p, err, errlen);
}

static ls_method lsc_auto_method(void *bctx, ls_precision p)
{
    (void)bctx;
    (void)p;
    return LS_METHOD_LU;
}

/* The job is checked (core/backend.h, solve). */
static int lsc_solve(void *bctx, const ls_job *job, ls_report *rep, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    if (rep) {
        rep->info = 0;
        snprintf(rep->device, sizeof rep->device, "%s", c->name);
    }
    if (job->n == 0 || job->nrhs == 0)
        return 0;
    cudaError_t e = cudaSetDevice(c->device);
    if (e != cudaSuccess)
        return lsc_cuda_fail_at(e, "cudaSetDevice", err, errlen, __FILE__, __LINE__);
    ls_job run = *job;
    run.method = c->core->methods_resolve(lsc_methods, LSC_NMETHODS, job->method);
    switch (run.method) {
    case LS_METHOD_LU: return lsc_solve_lu(c, &run, rep, err, errlen);
    case LS_METHOD_BICGSTAB: return lsc_solve_bicgstab(c, &run, rep, err, errlen);
    default: return lsc_solve_seed(c, &run, rep, err, errlen);
    }
}

static void print_device(FILE *out, int dev, const struct cudaDeviceProp *p)
{
    int clock_khz = 0, mem_clock_khz = 0, bus_bits = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
    cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, dev);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev);
    double bw = 2.0 * mem_clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    fprintf(out, "  cuda:%d %s\n", dev, p->name);
    fprintf(out, "    compute capability %d.%d, %d SMs, SM clock %.0f MHz\n", p->major, p->minor,
            p->multiProcessorCount, clock_khz / 1e3);
    fprintf(out, "    memory %.1f GiB, bus %d bits, memory clock %.0f MHz, peak %.0f GB/s\n",
            (double)p->totalGlobalMem / (1024.0 * 1024.0 * 1024.0), bus_bits,
            mem_clock_khz / 1e3, bw);
    fprintf(out, "    L2 %.1f MiB, shared memory %zu KiB/SM (%zu KiB/block opt-in)\n",
            p->l2CacheSize / (1024.0 * 1024.0), p->sharedMemPerMultiprocessor / 1024,
            p->sharedMemPerBlockOptin / 1024);
    fprintf(out, "    %d threads/SM, %d registers/SM, warp %d, %d async engines\n",
            p->maxThreadsPerMultiProcessor, p->regsPerMultiprocessor, p->warpSize,
            p->asyncEngineCount);
    lsc_tuning_print(lsc_tuning_for(p->major, p->minor), out, "    ");
}

LS_API int ls_plugin_abi(void) { return LS_PLUGIN_ABI; }

static int lsc_print_devices(FILE *out)
{
    int count = 0, drv = 0, rt = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    fprintf(out, "CUDA: driver %d.%d, runtime %d.%d\n", drv / 1000, (drv % 1000) / 10, rt / 1000,
            (rt % 1000) / 10);
    if (e != cudaSuccess || count == 0) {
        fprintf(out, "  no CUDA device: %s\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "no devices found");
        return 0;
    }
    for (int d = 0; d < count; d++) {
        struct cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, d) == cudaSuccess)
            print_device(out, d, &p);
    }
    return 0;
}

LS_API int ls_plugin_print_info(const ls_core_services *core, FILE *out)
{
    (void)core;
    return lsc_print_devices(out);
}

static int lsc_print_info(void *bctx, FILE *out)
{
    (void)bctx;
    return lsc_print_devices(out);
}

/* ls_?getrf/getrs/gesv on host arrays: copied over, solved, copied back */
static const ls_dense_role lsc_dense = {
    .getrf = lsc_getrf_host,
    .getrs = lsc_getrs_host,
    .gesv = lsc_gesv_host,
};

/* the device-resident API (device_api.c) */
static const ls_device_role lsc_device = {
    .set_stream = lsc_set_stream,
    .get_stream = lsc_get_stream,
    .dev_malloc = lsc_dev_malloc,
    .dev_free = lsc_dev_free,
    .dev_copy = lsc_dev_copy,
    .dev_sync = lsc_dev_sync,
    .getrf_gpu = lsc_getrf_gpu,
    .getrs_gpu = lsc_getrs_gpu,
    .gesv_gpu = lsc_gesv_gpu,
    .check_gpu = lsc_check_gpu, /* ls_check_batched_gpu (check.c, k_check.cu) */
};

/* ls_dsgesv(_gpu) (mixed_cuda.c) */
static const ls_mixed_role lsc_mixed = {
    .open = lsc_mixed_open,
};

/* ls_?*_batched(_gpu) (batched.c) */
static const ls_batched_role lsc_batched_role = {
    .run = lsc_batched,
};

static const ls_sparse_role lsc_sparse = {
    .krylov_open = lsc_csr_krylov_open, /* ls_csr_solve_iter_ctx (sparse_krylov.c) */
    .krylov_close = lsc_csr_krylov_close,
#ifdef LS_HAVE_CUDSS
    .direct = lsc_csr_direct, /* ls_csr_solve_direct_ctx (sparse_direct.c) */
#endif
};

static const ls_backend_iface lsc_iface = {
    .name = "cuda",
    .abi = LS_PLUGIN_ABI,
    .destroy = lsc_destroy,
    .device_name = lsc_device_name,
    .supports = lsc_supports,
    .auto_method = lsc_auto_method,
    .solve = lsc_solve,
    .print_info = lsc_print_info,
    .dense = &lsc_dense,
    .device = &lsc_device,
    .mixed = &lsc_mixed,
    .batched = &lsc_batched_role,
    .sparse = &lsc_sparse,
};

LS_API int ls_plugin_open(const ls_core_services *core, int device,
                          const ls_backend_iface **iface, void **bctx, char *err, size_t errlen)
{
    int st = 0, count = 0;
    ls_cuda_ctx *c = NULL;
    *bctx = NULL;
    *iface = NULL;
    if (!core || core->abi != LS_PLUGIN_ABI)
        return LSC_FAIL(err, errlen, LS_EUNAVAIL, "the CUDA plugin needs plugin ABI %d",
                        LS_PLUGIN_ABI);
    cudaError_t e = cudaGetDeviceCount(&count);
    int drv = 0;
    /* With no NVIDIA driver at all the runtime says "driver version is
     * insufficient"; say what the user needs to know first. */
    if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&drv) == cudaSuccess && drv == 0)
        return LSC_FAIL(err, errlen, LS_EUNAVAIL, "no CUDA device: no NVIDIA driver is installed");
    if (e != cudaSuccess)
        return LSC_FAIL(err, errlen, LS_EUNAVAIL, "no CUDA device: %s", cudaGetErrorString(e));
    if (count == 0)
        return LSC_FAIL(err, errlen, LS_EUNAVAIL, "no CUDA device: none found");
    if (device < 0 || device >= count)
        return LSC_FAIL(err, errlen, LS_EUNAVAIL, "no CUDA device %d (%d present)", device,
                        count);
    c = (ls_cuda_ctx *)calloc(1, sizeof *c);
    if (!c)
        return LSC_FAIL(err, errlen, LS_ENOMEM, "no host memory for the CUDA context");
    c->core = core;
    c->device = device;
    LSC_CUDA(cudaSetDevice(device));
    LSC_CUDA(cudaGetDeviceProperties(&c->prop, device));
    c->tune = lsc_tuning_for(c->prop.major, c->prop.minor);
    /* blocking: ordered after the caller's legacy-default-stream uploads */
    LSC_CUDA(cudaStreamCreateWithFlags(&c->own_stream, cudaStreamDefault));
    c->stream = c->own_stream;
    for (int i = 0; i < LSC_EV_COUNT; i++)
        LSC_CUDA(cudaEventCreate(&c->ev[i]));
    LSC_BLAS(cublasCreate(&c->blas));
    LSC_BLAS(cublasSetStream(c->blas, c->stream));
    snprintf(c->name, sizeof c->name, "cuda:%d %s (%d SMs, cc %d.%d)", device, c->prop.name,
             c->prop.multiProcessorCount, c->prop.major, c->prop.minor);
    *bctx = c;
    *iface = &lsc_iface;
    return 0;
done:
    lsc_destroy(c);
    return st;
}
