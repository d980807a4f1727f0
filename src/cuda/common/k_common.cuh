/* Device helpers shared by the kernel files (C-style, precision templates only). */
#ifndef LS_CUDA_K_COMMON_CUH
#define LS_CUDA_K_COMMON_CUH

#include <cuda_runtime.h>

__device__ __forceinline__ double lsk_abs(double x) { return fabs(x); }
__device__ __forceinline__ float lsk_abs(float x) { return fabsf(x); }

/* LAPACK's dlamch('S') / slamch('S'): below this magnitude a pivot's
 * reciprocal would overflow, so getrf divides by it instead. */
template <typename T> __device__ __forceinline__ T lsk_safe_min();
template <> __device__ __forceinline__ double lsk_safe_min<double>() { return 2.2250738585072014e-308; }
template <> __device__ __forceinline__ float lsk_safe_min<float>() { return 1.17549435e-38f; }

/* 16 bytes from shared memory into registers (p 16-byte aligned): two
 * doubles or four floats an instruction, for rows read by broadcast. */
__device__ __forceinline__ void lsk_ld16(const double *p, double *v)
{
    double2 t = *(const double2 *)p;
    v[0] = t.x, v[1] = t.y;
}
__device__ __forceinline__ void lsk_ld16(const float *p, float *v)
{
    float4 t = *(const float4 *)p;
    v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
}

/* Element (i, j) of a strided matrix; 64-bit offsets so n*ld past 2^31 is fine. */
#define LSK_AT(M, i, j, rs, cs) ((M)[(long long)(i) * (rs) + (long long)(j) * (cs)])

static inline unsigned lsk_blocks(long long work, int threads)
{
    return (unsigned)((work + threads - 1) / threads);
}

#include "cuda/common/typed.h"

/* A launch of one cluster of G blocks (sm_90): grid = cluster = G blocks of
 * `threads`, smem bytes of dynamic shared memory each, on stream s. attr
 * must outlive the launch (cudaLaunchKernelEx or the occupancy query). */
static inline void lsk_one_cluster(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, int G,
                                   int threads, size_t smem, cudaStream_t s)
{
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)G;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    *cfg = cudaLaunchConfig_t{};
    cfg->gridDim = dim3((unsigned)G);
    cfg->blockDim = dim3((unsigned)threads);
    cfg->dynamicSmemBytes = smem;
    cfg->stream = s;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}

/* The two C launchers of a signature macro SIG (typed.h), each calling
 * the template impl<T> with the parenthesised argument list args. */
#define LSK_DEFINE(SIG, impl, args)                          \
    extern "C" SIG(double, d) { return impl<double> args; } \
    extern "C" SIG(float, s) { return impl<float> args; }

/* fd for T = double, fs for T = float: a typed launcher of another file,
 * called from template code as lsk_typed<T>(lsk_foo_d, lsk_foo_s)(...), both
 * names spelled so that grep finds the call. */
template <typename T, typename FD, typename FS>
static inline auto lsk_typed(FD fd, FS fs)
{
    if constexpr (sizeof(T) == sizeof(double))
        return fd;
    else
        return fs;
}

#include "cuda/common/kernel_registry.h"

/* One registry entry (see kernel_registry.h). */
static inline ls_cuda_kernel_desc lsk_desc(const char *name, const char *method, const void *func,
                                           int threads, size_t smem)
{
    ls_cuda_kernel_desc d;
    d.name = name;
    d.method = method;
    d.func = func;
    d.block_threads = threads;
    d.static_smem_hint = smem;
    d.dynamic_smem = NULL;
    return d;
}

#define LSK_REG(name, method, kernel, threads, smem) \
    out[count++] = lsk_desc(name, method, (const void *)(kernel), (threads), (smem))

#endif
