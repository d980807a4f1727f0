/* The device-resident API on CUDA (MAGMA's _gpu routines): the context's
 * stream, device memory, and getrf / getrs / gesv on the caller's device
 * arrays. The core has checked the arguments. ipiv and info may each be
 * host or device memory: device memory keeps the call asynchronous on the
 * context's stream; host memory makes it synchronise and copy back.
 * Also the device-memory check of the host-array paths. */
#include "cuda/common/cuda_backend.h"
#include "cuda/lu/lu_small.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int lsc_need_add(size_t *need, size_t count, size_t elem, char *err, size_t errlen)
{
    if (elem != 0 && count > (SIZE_MAX - *need) / elem)
        return LSC_FAIL(err, errlen, LS_ESIZE, "device buffers of %zu + %zu x %zu bytes overflow",
                        *need, count, elem);
    *need += count * elem;
    return 0;
}

int lsc_mem_check(size_t need, const char *what, char *err, size_t errlen)
{
    size_t free_b = 0, total_b = 0;
    cudaError_t e = cudaMemGetInfo(&free_b, &total_b);
    if (e != cudaSuccess)
        return lsc_cuda_fail_at(e, "cudaMemGetInfo", err, errlen, __FILE__, __LINE__);
    if (need > free_b)
        return LSC_FAIL(err, errlen, LS_EDEVMEM,
                        "%s needs %zu bytes of device memory; %zu are free (of %zu)", what, need,
                        free_b, total_b);
    return 0;
}

enum { PTR_HOST, PTR_DEVICE, PTR_OTHER_DEVICE };

/* Pageable and pinned host memory count as host (the caller reads it
 * without synchronising); managed memory counts as device. */
static int ptr_kind(const ls_cuda_ctx *c, const void *p)
{
    struct cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    if (!p)
        return PTR_HOST;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* not an error of the caller's work */
        return PTR_HOST;
    }
    if (a.type == cudaMemoryTypeManaged)
        return PTR_DEVICE;
    if (a.type == cudaMemoryTypeDevice)
        return a.device == c->device ? PTR_DEVICE : PTR_OTHER_DEVICE;
    return PTR_HOST;
}

/* -arg when a matrix argument is not device memory of this context's GPU:
 * a kernel would fault on it and leave the CUDA context unusable. */
static int need_device(const ls_cuda_ctx *c, const void *p, int arg, const char *name, char *err,
                       size_t errlen)
{
    int k = ptr_kind(c, p);
    if (k == PTR_DEVICE)
        return 0;
    return LSC_FAIL(err, errlen, -arg, "argument %d (%s) is %s, not device memory of %s", arg,
                    name, k == PTR_HOST ? "host memory" : "memory of another GPU", c->name);
}

/* Temporaries are stream-ordered where the device has memory pools:
 * cudaFree would wait for every stream of the device, the caller's too. */
static int pooled(ls_cuda_ctx *c)
{
    if (!c->pooled) {
        int v = 0;
        c->pooled = cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, c->device) ==
                                cudaSuccess &&
                            v
                        ? 1
                        : -1;
    }
    return c->pooled > 0;
}

/* The context's own pool, whose release threshold keeps freed memory for
 * the next call: the device's default pool gives its memory back at every
 * synchronization, and each cudaMallocAsync then maps it anew (measured
 * 145 us a call on an H100, more than a small solve). */
static int tmp_pool(ls_cuda_ctx *c, char *err, size_t errlen)
{
    int st = 0;
    if (c->tmp_pool)
        return 0;
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = c->device;
    LSC_CUDA(cudaMemPoolCreate(&c->tmp_pool, &props));
    unsigned long long keep = ~0ULL;
    LSC_CUDA(cudaMemPoolSetAttribute(c->tmp_pool, cudaMemPoolAttrReleaseThreshold, &keep));
done:
    return st;
}

int lsc_tmp_alloc(ls_cuda_ctx *c, void **p, size_t bytes, char *err, size_t errlen)
{
    int st = 0;
    *p = NULL;
    if (pooled(c)) {
        LSC_TRY(tmp_pool(c, err, errlen));
        LSC_CUDA(cudaMallocFromPoolAsync(p, bytes ? bytes : 1, c->tmp_pool, c->stream));
    } else
        LSC_TRY(lsc_malloc(p, bytes ? bytes : 1, 1, err, errlen));
done:
    return st;
}

void lsc_tmp_free(ls_cuda_ctx *c, void *p)
{
    if (!p)
        return;
    if (pooled(c))
        cudaFreeAsync(p, c->stream);
    else
        cudaFree(p);
}

/* Where the pivots and info live for the kernels: the caller's device
 * memory, or one temporary standing in for the caller's host memory. */
typedef struct piv_info {
    int *ipiv, *info;       /* the caller's (info may be NULL) */
    int *d_ipiv, *d_info;   /* what the kernels read and write */
    int dev_ipiv, dev_info; /* the caller's is device memory */
    int npiv;
    void *tmp;
} piv_info;

/* d_info = 0; with ipiv_in, host pivots are uploaded. arg: the position
 * of ipiv in the caller's argument list (info's is given by info_arg). */
static int pi_open(ls_cuda_ctx *c, piv_info *pi, const int *ipiv, int npiv, int *info, int ipiv_in,
                   int arg, int info_arg, char *err, size_t errlen)
{
    int st = 0, kp = npiv == 0 ? PTR_DEVICE : ptr_kind(c, ipiv), ki = ptr_kind(c, info);
    size_t count = 0;
    memset(pi, 0, sizeof *pi);
    /* the host cannot write there and our kernels may not reach it */
    if (kp == PTR_OTHER_DEVICE || ki == PTR_OTHER_DEVICE)
        return LSC_FAIL(err, errlen, kp == PTR_OTHER_DEVICE ? -arg : -info_arg,
                        "argument %d (%s) is memory of another GPU than %s",
                        kp == PTR_OTHER_DEVICE ? arg : info_arg,
                        kp == PTR_OTHER_DEVICE ? "ipiv" : "info", c->name);
    pi->ipiv = (int *)ipiv;
    pi->info = info;
    pi->npiv = npiv;
    pi->dev_ipiv = kp == PTR_DEVICE;
    pi->dev_info = info && ki == PTR_DEVICE;
    count = (pi->dev_ipiv ? 0 : (size_t)npiv) + (pi->dev_info ? 0 : 1);
    if (count)
        LSC_TRY(lsc_tmp_alloc(c, &pi->tmp, count * sizeof(int), err, errlen));
    pi->d_ipiv = pi->dev_ipiv ? pi->ipiv : (int *)pi->tmp;
    pi->d_info = pi->dev_info ? info : (int *)pi->tmp + (pi->dev_ipiv ? 0 : npiv);
    if (ipiv_in && !pi->dev_ipiv)
        LSC_CUDA(cudaMemcpyAsync(pi->d_ipiv, ipiv, (size_t)npiv * sizeof(int),
                                 cudaMemcpyHostToDevice, c->stream));
    LSC_CUDA(cudaMemsetAsync(pi->d_info, 0, sizeof(int), c->stream));
done:
    return st;
}

/* After the work (st: its status): host pivots (ipiv_out) and host info
 * (into *hinfo) are copied back and waited for; the temporary released. */
static int pi_close(ls_cuda_ctx *c, piv_info *pi, int ipiv_out, int *hinfo, int st, char *err,
                    size_t errlen)
{
    if (st != 0)
        goto done;
    if (ipiv_out && !pi->dev_ipiv)
        LSC_CUDA(cudaMemcpyAsync(pi->ipiv, pi->d_ipiv, (size_t)pi->npiv * sizeof(int),
                                 cudaMemcpyDeviceToHost, c->stream));
    if (!pi->dev_info)
        LSC_CUDA(cudaMemcpyAsync(hinfo, pi->d_info, sizeof(int), cudaMemcpyDeviceToHost,
                                 c->stream));
    if (pi->tmp) /* some of the caller's memory is host memory: it reads it next */
        LSC_CUDA(cudaStreamSynchronize(c->stream));
done:
    lsc_tmp_free(c, pi->tmp);
    pi->tmp = NULL;
    return st;
}

/* info = 0 for a quick return, wherever info lives. */
static int zero_info(ls_cuda_ctx *c, int *info, char *err, size_t errlen)
{
    int st = 0;
    if (info && ptr_kind(c, info) != PTR_HOST)
        LSC_CUDA(cudaMemsetAsync(info, 0, sizeof(int), c->stream));
    else if (info)
        *info = 0;
done:
    return st;
}

int lsc_set_stream(void *bctx, void *stream, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0;
    cudaStream_t s = stream ? (cudaStream_t)stream : c->own_stream;
    LSC_CUDA(cudaSetDevice(c->device));
    if (stream) {
        cudaError_t e = cudaStreamQuery(s);
        if (e == cudaErrorInvalidResourceHandle) {
            (void)cudaGetLastError();
            return LSC_FAIL(err, errlen, LS_EINVAL, "%p is not a CUDA stream of %s", stream,
                            c->name);
        }
        if (e != cudaSuccess && e != cudaErrorNotReady)
            return lsc_cuda_fail_at(e, "cudaStreamQuery", err, errlen, __FILE__, __LINE__);
    }
    /* the cuBLAS calls of getrf and getrs must queue where the kernels do */
    LSC_BLAS(cublasSetStream(c->blas, s));
    c->stream = s;
done:
    return st;
}

void *lsc_get_stream(void *bctx)
{
    return (void *)((ls_cuda_ctx *)bctx)->stream;
}

int lsc_dev_malloc(void *bctx, void **ptr, size_t bytes, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0;
    *ptr = NULL;
    if (bytes == 0)
        return 0;
    LSC_CUDA(cudaSetDevice(c->device));
    st = lsc_malloc(ptr, bytes, 1, err, errlen);
done:
    return st;
}

int lsc_dev_free(void *bctx, void *ptr, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0;
    LSC_CUDA(cudaSetDevice(c->device));
    if (ptr_kind(c, ptr) == PTR_HOST)
        return LSC_FAIL(err, errlen, LS_EINVAL, "%p is not device memory: not freed", ptr);
    LSC_CUDA(cudaFree(ptr));
done:
    return st;
}

int lsc_dev_copy(void *bctx, void *dst, const void *src, size_t bytes, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0;
    LSC_CUDA(cudaSetDevice(c->device));
    int host = ptr_kind(c, dst) == PTR_HOST || ptr_kind(c, src) == PTR_HOST;
    LSC_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, c->stream));
    if (host) /* the caller may use its host buffer as soon as this returns */
        LSC_CUDA(cudaStreamSynchronize(c->stream));
done:
    return st;
}

int lsc_dev_sync(void *bctx, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0;
    LSC_CUDA(cudaSetDevice(c->device));
    LSC_CUDA(cudaStreamSynchronize(c->stream));
done:
    return st;
}

int lsc_getrf_gpu(void *bctx, ls_precision p, int m, int n, void *dA, int ldda, int *ipiv,
                  int *info, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0, hinfo = 0, kmin = m < n ? m : n;
    piv_info pi;
    memset(&pi, 0, sizeof pi);
    LSC_CUDA(cudaSetDevice(c->device));
    if (kmin == 0)
        return zero_info(c, info, err, errlen);
    LSC_TRY(need_device(c, dA, 3, "dA", err, errlen));
    LSC_TRY(pi_open(c, &pi, ipiv, kmin, info, 0, 5, 6, err, errlen));
    LSC_TRY(lsc_getrf_device(c, p, m, n, dA, ldda, pi.d_ipiv, pi.d_info, err,
                             errlen));
done:
    st = pi_close(c, &pi, 1, &hinfo, st, err, errlen);
    if (st == 0 && !pi.dev_info) {
        if (info)
            *info = hinfo;
        st = hinfo;
    }
    return st;
}

int lsc_getrs_gpu(void *bctx, ls_precision p, char trans, int n, int nrhs, const void *dA,
                  int ldda, const int *ipiv, void *dB, int lddb, int *info, char *err,
                  size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0, hinfo = 0;
    piv_info pi;
    memset(&pi, 0, sizeof pi);
    LSC_CUDA(cudaSetDevice(c->device));
    if (n == 0 || nrhs == 0)
        return zero_info(c, info, err, errlen);
    LSC_TRY(need_device(c, dA, 4, "dA", err, errlen));
    LSC_TRY(need_device(c, dB, 7, "dB", err, errlen));
    LSC_TRY(pi_open(c, &pi, ipiv, n, info, 1, 6, 9, err, errlen));
    LSC_TRY(lsc_getrs_device(c, p, trans, n, nrhs, dA, ldda, pi.d_ipiv, dB, lddb,
                             err, errlen));
done:
    st = pi_close(c, &pi, 0, &hinfo, st, err, errlen);
    if (st == 0 && info && !pi.dev_info)
        *info = 0;
    return st;
}

int lsc_gesv_gpu(void *bctx, ls_precision p, int n, int nrhs, void *dA, int ldda, int *ipiv,
                 void *dB, int lddb, int *info, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0, hinfo = 0, fused = 0;
    piv_info pi;
    memset(&pi, 0, sizeof pi);
    LSC_CUDA(cudaSetDevice(c->device));
    if (n == 0)
        return zero_info(c, info, err, errlen);
    LSC_TRY(need_device(c, dA, 3, "dA", err, errlen));
    if (nrhs > 0)
        LSC_TRY(need_device(c, dB, 6, "dB", err, errlen));
    LSC_TRY(pi_open(c, &pi, ipiv, n, info, 0, 5, 8, err, errlen));
    LSC_TRY(lsc_gesv_fused(c, p, n, nrhs, dA, ldda, pi.d_ipiv, pi.d_info, dB, lddb, &fused, err,
                           errlen));
    if (fused) /* factors and solution in one launch; B untouched when info > 0 */
        goto done;
    LSC_TRY(lsc_getrf_device(c, p, n, n, dA, ldda, pi.d_ipiv, pi.d_info, err, errlen));
    if (!pi.dev_info) {
        /* info in host memory: LAPACK's rule, no solve after a zero pivot */
        LSC_CUDA(cudaMemcpyAsync(&hinfo, pi.d_info, sizeof(int), cudaMemcpyDeviceToHost,
                                 c->stream));
        LSC_CUDA(cudaStreamSynchronize(c->stream));
    }
    /* info in device memory: the solve is queued regardless (B is then
     * undefined when info > 0), so that nothing waits for the factors */
    if (hinfo == 0)
        LSC_TRY(lsc_getrs_device(c, p, 'N', n, nrhs, dA, ldda, pi.d_ipiv, dB, lddb, err,
                                 errlen));
done:
    st = pi_close(c, &pi, 1, &hinfo, st, err, errlen);
    if (st == 0 && !pi.dev_info) {
        if (info)
            *info = hinfo;
        st = hinfo;
    }
    return st;
}
