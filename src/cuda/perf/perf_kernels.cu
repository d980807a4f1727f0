/* Measurement kernels: device copy bandwidth, FP32/FP64 FMA throughput,
 * Li's (2025) intensity sweep kernel, and the GEMV of Panchatcharam et al. (2013) (the tiled
 * GEMM is the backend's own, ls_cuda_gemm_tiled). Each is timed with
 * events on the backend's stream: one warm-up, then the median of repeat. */
#include <stdlib.h>
#include <string.h>

#include "cuda/common/cuda_backend.h"
#include "core/perf/perf.h"
#include "cuda/perf/perf.h"

#define FMA_CHAINS 8
#define FMA_ITERS 8192
#define FMA_THREADS 256
#define ELEM_THREADS 256
#define GEMV_P 128

__global__ void lsp_copy(const float4 *src, float4 *dst, size_t n4)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

/* Independent FMA chains hide the pipeline latency; a and b come from the
 * host and the result is stored, so nothing can be folded away. */
template <typename T> __global__ void lsp_fma(T *out, T a, T b, int iters)
{
    T x[FMA_CHAINS];
    for (int c = 0; c < FMA_CHAINS; c++)
        x[c] = (T)(threadIdx.x + c);
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int c = 0; c < FMA_CHAINS; c++)
            x[c] = x[c] * a + b;
    T s = 0;
    for (int c = 0; c < FMA_CHAINS; c++)
        s += x[c];
    out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = s;
}

/* Li's (2025) coalesced elimination update A(i,j) -= l(i) u(j), one thread
 * per element (consecutive threads on consecutive rows of a column-major
 * matrix), followed by `loop` dependent multiply-adds whose scale and shift
 * come from the data and a runtime argument (Li's factor*(j*1e-10)
 * trick), so the compiler can neither drop nor fold them. */
template <typename T>
__global__ void lsp_intensity(T *A, const T *l, const T *u, int n, int loop, T scale)
{
    size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (idx >= (size_t)n * n)
        return;
    int i = (int)(idx % n), j = (int)(idx / n);
    T f = l[i];
    T v = A[idx] - f * u[j];
    T shift = f * ((T)j * (T)1e-10);
    for (int t = 0; t < loop; t++)
        v = v * scale + shift;
    A[idx] = v;
}

/* y = A x, column-major A, one row per thread; x goes through shared memory
 * in tiles of GEMV_P so each block reads it once. */
template <typename T> __global__ void lsp_gemv(const T *A, const T *x, T *y, int m)
{
    __shared__ T xs[GEMV_P];
    int i = blockIdx.x * GEMV_P + threadIdx.x;
    T acc = 0;
    for (int t = 0; t < m; t += GEMV_P) {
        xs[threadIdx.x] = t + threadIdx.x < m ? x[t + threadIdx.x] : (T)0;
        __syncthreads();
        if (i < m)
            for (int j = 0; j < GEMV_P && t + j < m; j++)
                acc += A[i + (size_t)(t + j) * m] * xs[j];
        __syncthreads();
    }
    if (i < m)
        y[i] = acc;
}

extern "C" int lsc_perf_own_kernels(int prec, int n, const char **names, const void **funcs,
                                    int *threads, int max)
{
    (void)n;
    int k = 0;
    int fp64 = prec == LS_DOUBLE;
    if (max < 5)
        return 0;
    names[k] = "lsp_copy", funcs[k] = (const void *)lsp_copy, threads[k++] = ELEM_THREADS;
    names[k] = fp64 ? "lsp_fma<double>" : "lsp_fma<float>";
    funcs[k] = fp64 ? (const void *)lsp_fma<double> : (const void *)lsp_fma<float>;
    threads[k++] = FMA_THREADS;
    names[k] = fp64 ? "lsp_intensity<double>" : "lsp_intensity<float>";
    funcs[k] = fp64 ? (const void *)lsp_intensity<double> : (const void *)lsp_intensity<float>;
    threads[k++] = ELEM_THREADS;
    names[k] = fp64 ? "lsp_gemv<double>" : "lsp_gemv<float>";
    funcs[k] = fp64 ? (const void *)lsp_gemv<double> : (const void *)lsp_gemv<float>;
    threads[k++] = GEMV_P;
    return k;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Times launch(arg) with events: warm-up, then the median of repeat. */
typedef cudaError_t (*launch_fn)(void *arg, cudaStream_t s);
static int time_median(ls_cuda_ctx *c, launch_fn launch, void *arg, int repeat, double *secs,
                       char *err, size_t errlen)
{
    int st = 0;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double t[256];
    if (repeat < 1)
        repeat = 1;
    if (repeat > 256)
        repeat = 256;
    LSC_CUDA(cudaEventCreate(&e0));
    LSC_CUDA(cudaEventCreate(&e1));
    LSC_CUDA(launch(arg, c->stream));
    LSC_CUDA(cudaStreamSynchronize(c->stream));
    for (int r = 0; r < repeat; r++) {
        float ms = 0;
        LSC_CUDA(cudaEventRecord(e0, c->stream));
        LSC_CUDA(launch(arg, c->stream));
        LSC_CUDA(cudaEventRecord(e1, c->stream));
        LSC_CUDA(cudaEventSynchronize(e1));
        LSC_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        t[r] = ms * 1e-3;
    }
    qsort(t, (size_t)repeat, sizeof t[0], cmp_d);
    *secs = repeat % 2 ? t[repeat / 2] : 0.5 * (t[repeat / 2 - 1] + t[repeat / 2]);
done:
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    return st;
}

static void fill_rates(ls_perf_timing *o)
{
    o->gflops = o->seconds > 0 ? o->flops / o->seconds / 1e9 : 0;
    o->gbps = o->seconds > 0 ? o->bytes / o->seconds / 1e9 : 0;
}

/* ---------------------------------------------------------------- copy */
typedef struct { const float4 *src; float4 *dst; size_t n4; int blocks; } copy_args;
static cudaError_t launch_copy(void *p, cudaStream_t s)
{
    copy_args *a = (copy_args *)p;
    lsp_copy<<<a->blocks, ELEM_THREADS, 0, s>>>(a->src, a->dst, a->n4);
    return cudaGetLastError();
}

extern "C" int lsc_perf_copy(void *bctx, const ls_perf_copy_in *q, ls_perf_timing *o, char *err,
                             size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0;
    void *src = NULL, *dst = NULL;
    size_t n4 = q->bytes / sizeof(float4);
    memset(o, 0, sizeof *o);
    if (n4 == 0)
        return LSC_FAIL(err, errlen, LS_EINVAL, "copy: %zu bytes is too small", q->bytes);
    LSC_TRY(lsc_malloc(&src, n4, sizeof(float4), err, errlen));
    LSC_TRY(lsc_malloc(&dst, n4, sizeof(float4), err, errlen));
    LSC_CUDA(cudaMemsetAsync(src, 1, n4 * sizeof(float4), c->stream));
    {
        copy_args a = {(const float4 *)src, (float4 *)dst, n4, c->prop.multiProcessorCount * 8};
        LSC_TRY(time_median(c, launch_copy, &a, q->repeat, &o->seconds, err, errlen));
    }
    o->bytes = 2.0 * (double)n4 * sizeof(float4); /* read + write */
    fill_rates(o);
done:
    cudaFree(src);
    cudaFree(dst);
    return st;
}

/* ---------------------------------------------------------------- fma */
typedef struct { void *out; int fp64, blocks, iters; } fma_args;
static cudaError_t launch_fma(void *p, cudaStream_t s)
{
    fma_args *a = (fma_args *)p;
    if (a->fp64)
        lsp_fma<double><<<a->blocks, FMA_THREADS, 0, s>>>((double *)a->out, 0.999999, 1e-7, a->iters);
    else
        lsp_fma<float><<<a->blocks, FMA_THREADS, 0, s>>>((float *)a->out, 0.999999f, 1e-7f, a->iters);
    return cudaGetLastError();
}

extern "C" int lsc_perf_fma(void *bctx, const ls_perf_fma_in *q, ls_perf_timing *o, char *err,
                            size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0;
    void *buf = NULL;
    fma_args a;
    memset(o, 0, sizeof *o);
    a.fp64 = q->prec == LS_DOUBLE;
    a.blocks = c->prop.multiProcessorCount * 16;
    a.iters = a.fp64 ? FMA_ITERS / 4 : FMA_ITERS;
    LSC_TRY(lsc_malloc(&buf, (size_t)a.blocks * FMA_THREADS, 8, err, errlen));
    a.out = buf;
    LSC_TRY(time_median(c, launch_fma, &a, q->repeat, &o->seconds, err, errlen));
    o->flops = 2.0 * FMA_CHAINS * (double)a.iters * a.blocks * FMA_THREADS;
    o->bytes = (double)a.blocks * FMA_THREADS * (a.fp64 ? 8 : 4);
    fill_rates(o);
done:
    cudaFree(buf);
    return st;
}

/* ---------------------------------------------------------------- intensity */
typedef struct { void *A, *l, *u; int n, loop, fp64; } int_args;
static cudaError_t launch_intensity(void *p, cudaStream_t s)
{
    int_args *a = (int_args *)p;
    size_t elems = (size_t)a->n * a->n;
    unsigned blocks = (unsigned)((elems + ELEM_THREADS - 1) / ELEM_THREADS);
    if (a->fp64)
        lsp_intensity<double><<<blocks, ELEM_THREADS, 0, s>>>((double *)a->A, (const double *)a->l,
                                                              (const double *)a->u, a->n, a->loop,
                                                              0.9999999);
    else
        lsp_intensity<float><<<blocks, ELEM_THREADS, 0, s>>>((float *)a->A, (const float *)a->l,
                                                             (const float *)a->u, a->n, a->loop,
                                                             0.9999999f);
    return cudaGetLastError();
}

extern "C" int lsc_perf_intensity(void *bctx, const ls_perf_intensity_in *q, ls_perf_timing *o,
                                  char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0;
    int_args a;
    memset(&a, 0, sizeof a);
    memset(o, 0, sizeof *o);
    if (q->n < 1 || q->n > 46340 || q->loop < 0)
        return LSC_FAIL(err, errlen, LS_EINVAL, "intensity: n=%d loop=%d out of range", q->n, q->loop);
    size_t es = q->prec == LS_DOUBLE ? 8 : 4;
    a.n = q->n, a.loop = q->loop, a.fp64 = q->prec == LS_DOUBLE;
    LSC_TRY(lsc_malloc(&a.A, (size_t)q->n * q->n, es, err, errlen));
    LSC_TRY(lsc_malloc(&a.l, (size_t)q->n, es, err, errlen));
    LSC_TRY(lsc_malloc(&a.u, (size_t)q->n, es, err, errlen));
    /* Small nonzero bytes: finite values, not zeros (zeros can run faster). */
    LSC_CUDA(cudaMemsetAsync(a.A, 0x3c, (size_t)q->n * q->n * es, c->stream));
    LSC_CUDA(cudaMemsetAsync(a.l, 0x3c, (size_t)q->n * es, c->stream));
    LSC_CUDA(cudaMemsetAsync(a.u, 0x3c, (size_t)q->n * es, c->stream));
    LSC_TRY(time_median(c, launch_intensity, &a, q->repeat, &o->seconds, err, errlen));
    {
        double e = (double)q->n * q->n;
        o->flops = e * (2.0 + 2.0 * q->loop);
        o->bytes = (2.0 * e + 2.0 * q->n) * (double)es;
    }
    fill_rates(o);
done:
    cudaFree(a.A);
    cudaFree(a.l);
    cudaFree(a.u);
    return st;
}

/* ---------------------------------------------------------------- gemv / gemm */
typedef struct { void *A, *x, *y; int m, fp64, p; } mv_args;
static cudaError_t launch_gemv(void *p, cudaStream_t s)
{
    mv_args *a = (mv_args *)p;
    unsigned blocks = (unsigned)((a->m + GEMV_P - 1) / GEMV_P);
    if (a->fp64)
        lsp_gemv<double><<<blocks, GEMV_P, 0, s>>>((const double *)a->A, (const double *)a->x,
                                                   (double *)a->y, a->m);
    else
        lsp_gemv<float><<<blocks, GEMV_P, 0, s>>>((const float *)a->A, (const float *)a->x,
                                                  (float *)a->y, a->m);
    return cudaGetLastError();
}
static cudaError_t launch_gemm(void *p, cudaStream_t s)
{
    mv_args *a = (mv_args *)p;
    int rc = ls_cuda_gemm_tiled(a->fp64 ? LS_DOUBLE : LS_SINGLE, a->p, a->m, a->m, a->m, a->A, a->m,
                                a->x, a->m, a->y, a->m, s);
    return rc ? cudaErrorInvalidValue : cudaGetLastError();
}

static int mat_measure(void *bctx, const ls_perf_gemm_in *q, ls_perf_timing *o, int gemm,
                       char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0;
    mv_args a;
    memset(&a, 0, sizeof a);
    memset(o, 0, sizeof *o);
    if (q->m < 1 || q->m > 46340)
        return LSC_FAIL(err, errlen, LS_EINVAL, "gemm/gemv: m=%d out of range", q->m);
    size_t es = q->prec == LS_DOUBLE ? 8 : 4, mm = (size_t)q->m * q->m;
    a.m = q->m, a.fp64 = q->prec == LS_DOUBLE, a.p = gemm ? q->p : GEMV_P;
    LSC_TRY(lsc_malloc(&a.A, mm, es, err, errlen));
    LSC_TRY(lsc_malloc(&a.x, gemm ? mm : (size_t)q->m, es, err, errlen));
    LSC_TRY(lsc_malloc(&a.y, gemm ? mm : (size_t)q->m, es, err, errlen));
    LSC_CUDA(cudaMemsetAsync(a.A, 0x3c, mm * es, c->stream));
    LSC_CUDA(cudaMemsetAsync(a.x, 0x3c, (gemm ? mm : (size_t)q->m) * es, c->stream));
    LSC_TRY(time_median(c, gemm ? launch_gemm : launch_gemv, &a, q->repeat, &o->seconds, err, errlen));
    o->flops = gemm ? 2.0 * q->m * (double)mm : 2.0 * (double)mm;
    o->bytes = gemm ? 3.0 * mm * es : (mm + 2.0 * q->m) * es; /* compulsory bytes */
    fill_rates(o);
done:
    cudaFree(a.A);
    cudaFree(a.x);
    cudaFree(a.y);
    return st;
}

extern "C" int lsc_perf_gemm(void *bctx, const ls_perf_gemm_in *in, ls_perf_timing *out,
                             char *err, size_t errlen)
{
    return mat_measure(bctx, in, out, 1, err, errlen);
}

extern "C" int lsc_perf_gemv(void *bctx, const ls_perf_gemm_in *in, ls_perf_timing *out,
                             char *err, size_t errlen)
{
    return mat_measure(bctx, in, out, 0, err, errlen);
}
