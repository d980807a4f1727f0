/* Error reporting and allocation helpers of the CUDA plugin. The plugin
 * keeps its own copies rather than reaching into liblinsolve's hidden
 * util.c symbols. */
#include "cuda/common/cuda_backend.h"

#include <stdlib.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int lsc_fail_at(char *err, size_t errlen, int status, const char *file, int line, const char *fmt,
                ...)
{
    if (err && errlen) {
        const char *base = strrchr(file, '/');
        base = base ? base + 1 : file;
        char text[400];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(text, sizeof text, fmt, ap);
        va_end(ap);
        snprintf(err, errlen, "%s [%s:%d]", text, base, line);
    }
    return status;
}

int lsc_cuda_fail_at(cudaError_t e, const char *what, char *err, size_t errlen, const char *file,
                     int line)
{
    if (e == cudaErrorMemoryAllocation)
        return lsc_fail_at(err, errlen, LS_EDEVMEM, file, line, "out of device memory in %s%s",
                           what, lsc_fault_note());
    return lsc_fail_at(err, errlen, LS_EDEVICE, file, line, "CUDA error %s (%s) in %s%s",
                       cudaGetErrorName(e), cudaGetErrorString(e), what, lsc_fault_note());
}

int lsc_blas_fail_at(cublasStatus_t e, const char *what, char *err, size_t errlen,
                     const char *file, int line)
{
    int status = e == CUBLAS_STATUS_ALLOC_FAILED ? LS_EDEVMEM : LS_EDEVICE;
    return lsc_fail_at(err, errlen, status, file, line, "cuBLAS error %s (%s) in %s",
                       cublasGetStatusName(e), cublasGetStatusString(e), what);
}

int lsc_malloc(void **ptr, size_t count, size_t elem, char *err, size_t errlen)
{
    size_t bytes;
    *ptr = NULL;
    if (elem != 0 && count > SIZE_MAX / elem)
        return LSC_FAIL(err, errlen, LS_ESIZE, "device buffer of %zu x %zu bytes overflows",
                        count, elem);
    bytes = count * elem;
    if (bytes == 0)
        bytes = 1; /* a valid pointer keeps the kernels' argument checks simple */
    cudaError_t e = LSC_FAULT("cudaMalloc"); /* test hook: cudaSuccess unless injected */
    if (e == cudaSuccess)
        e = cudaMalloc(ptr, bytes);
    if (e == cudaErrorMemoryAllocation) {
        size_t free_b = 0, total_b = 0;
        (void)cudaGetLastError(); /* clear the sticky-free allocation error */
        cudaMemGetInfo(&free_b, &total_b);
        *ptr = NULL;
        return LSC_FAIL(err, errlen, LS_EDEVMEM,
                        "out of device memory: asked for %zu bytes (free %zu of %zu)%s", bytes,
                        free_b, total_b, lsc_fault_note());
    }
    if (e != cudaSuccess) {
        *ptr = NULL;
        return lsc_cuda_fail_at(e, "cudaMalloc", err, errlen, __FILE__, __LINE__);
    }
    return 0;
}

double lsc_elapsed(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess)
        return 0.0;
    return 1e-3 * (double)ms;
}

size_t lsc_elem_size(ls_precision p) { return p == LS_SINGLE ? sizeof(float) : sizeof(double); }

static int lsc_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double lsc_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, lsc_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
