/* Host <-> device copies of column-major blocks through two pinned staging
 * buffers. A copy from pageable memory runs at ~2 GB/s on an H100
 * host (the driver stages it itself, one piece at a time): at n = 2048 in
 * FP64 a LAPACK dgesv_ spent 35 of its 41 ms moving A up and its factors
 * back. Here the host packs one chunk into pinned memory while the DMA of
 * the previous chunk runs. */
#include "core/knobs.h"
#include "cuda/common/cuda_backend.h"

#include <stdlib.h>
#include <string.h>

#define LSC_STAGE_BYTES ((size_t)8 << 20)

struct lsc_stage {
    void *buf[2];
    cudaEvent_t done[2];
};

void lsc_stage_free(ls_cuda_ctx *c)
{
    struct lsc_stage *s = c->stage;
    if (!s)
        return;
    for (int i = 0; i < 2; i++) {
        if (s->buf[i])
            cudaFreeHost(s->buf[i]);
        if (s->done[i])
            cudaEventDestroy(s->done[i]);
    }
    free(s);
    c->stage = NULL;
}

/* The staging buffers, made on first use; NULL when pinned memory cannot be
 * had or LS_CUDA_STAGE=0 (the caller then copies from pageable memory). */
static struct lsc_stage *stage_get(ls_cuda_ctx *c)
{
    if (c->stage)
        return c->stage;
    if (!ls_knob_int(LS_KNOB_CUDA_STAGE))
        return NULL;
    struct lsc_stage *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    for (int i = 0; i < 2; i++)
        if (cudaMallocHost(&s->buf[i], LSC_STAGE_BYTES) != cudaSuccess ||
            cudaEventCreateWithFlags(&s->done[i], cudaEventDisableTiming) != cudaSuccess) {
            (void)cudaGetLastError();
            c->stage = s;
            lsc_stage_free(c);
            return NULL;
        }
    c->stage = s;
    return s;
}

int lsc_stage_h2d(ls_cuda_ctx *c, void *dst, size_t ldd, const void *src, size_t lds,
                  size_t width, size_t cols, char *err, size_t errlen)
{
    int st = 0;
    struct lsc_stage *s = width <= LSC_STAGE_BYTES ? stage_get(c) : NULL;
    if (!s || cols == 0 || width == 0) {
        LSC_CUDA(cudaMemcpy2DAsync(dst, ldd, src, lds, width, cols, cudaMemcpyHostToDevice,
                                   c->stream));
        return 0;
    }
    size_t per = LSC_STAGE_BYTES / width;
    for (size_t j0 = 0, k = 0; j0 < cols; j0 += per, k++) {
        size_t nc = cols - j0 < per ? cols - j0 : per;
        char *b = (char *)s->buf[k & 1];
        /* this buffer's previous chunk (of this call or the last) has left */
        LSC_CUDA(cudaEventSynchronize(s->done[k & 1]));
        for (size_t j = 0; j < nc; j++)
            memcpy(b + j * width, (const char *)src + (j0 + j) * lds, width);
        LSC_CUDA(cudaMemcpy2DAsync((char *)dst + j0 * ldd, ldd, b, width, width, nc,
                                   cudaMemcpyHostToDevice, c->stream));
        LSC_CUDA(cudaEventRecord(s->done[k & 1], c->stream));
    }
done:
    return st;
}

int lsc_stage_d2h(ls_cuda_ctx *c, void *dst, size_t ldd, const void *src, size_t lds,
                  size_t width, size_t cols, char *err, size_t errlen)
{
    int st = 0;
    struct lsc_stage *s = width <= LSC_STAGE_BYTES ? stage_get(c) : NULL;
    if (!s || cols == 0 || width == 0) {
        LSC_CUDA(cudaMemcpy2DAsync(dst, ldd, src, lds, width, cols, cudaMemcpyDeviceToHost,
                                   c->stream));
        LSC_CUDA(cudaStreamSynchronize(c->stream));
        return 0;
    }
    size_t per = LSC_STAGE_BYTES / width, chunks = (cols + per - 1) / per;
    /* chunk k + 1 is on its way while the host unpacks chunk k */
    for (size_t k = 0; k <= chunks; k++) {
        if (k < chunks) {
            size_t j0 = k * per, nc = cols - j0 < per ? cols - j0 : per;
            LSC_CUDA(cudaMemcpy2DAsync(s->buf[k & 1], width, (const char *)src + j0 * lds, lds,
                                       width, nc, cudaMemcpyDeviceToHost, c->stream));
            LSC_CUDA(cudaEventRecord(s->done[k & 1], c->stream));
        }
        if (k >= 1) {
            size_t p = k - 1, j0 = p * per, nc = cols - j0 < per ? cols - j0 : per;
            const char *b = (const char *)s->buf[p & 1];
            LSC_CUDA(cudaEventSynchronize(s->done[p & 1]));
            for (size_t j = 0; j < nc; j++)
                memcpy((char *)dst + (j0 + j) * ldd, b + j * width, width);
        }
    }
done:
    return st;
}
