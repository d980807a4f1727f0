/* The backend's check_gpu slot (core/backend.h): ls_check_batched_gpu on
 * CUDA. The core has checked the arguments; here the pointers are checked
 * to be device memory of this GPU (a kernel faulting on host memory would
 * leave the CUDA context unusable), the scratch comes from the stream's
 * memory pool and the kernels of k_check.cu are queued on the stream. */
#include "cuda/common/check.h"
#include "cuda/common/k_check.h"

#include <string.h>

/* Positions in ls_check_batched_gpu's argument list (linsolve.h). */
enum { ARG_DA = 5, ARG_DB = 9, ARG_DX = 13, ARG_DOUT = 17 };

static int on_device(const ls_cuda_ctx *c, const void *p)
{
    struct cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* not an error of the caller's work */
        return 0;
    }
    return a.type == cudaMemoryTypeManaged ||
           (a.type == cudaMemoryTypeDevice && a.device == c->device);
}

static int need_device(const ls_cuda_ctx *c, const void *p, int arg, const char *name,
                       char *err, size_t errlen)
{
    if (!p || on_device(c, p))
        return 0;
    return LSC_FAIL(err, errlen, -arg,
                    "ls_check_batched_gpu: argument %d (%s) is not device memory of %s", arg,
                    name, c->name);
}

int lsc_check_gpu(void *bctx, const ls_check_job *job, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0, work = job->n > 0 && job->batch > 0;
    void *scratch = NULL;
    LSC_CUDA(cudaSetDevice(c->device));
    if (work) {
        LSC_TRY(need_device(c, job->A, ARG_DA, "dA", err, errlen));
        if (job->nrhs > 0) {
            LSC_TRY(need_device(c, job->B, ARG_DB, "dB", err, errlen));
            LSC_TRY(need_device(c, job->X, ARG_DX, "dX", err, errlen));
        }
    }
    LSC_TRY(need_device(c, job->out, ARG_DOUT, "dout", err, errlen));
    lsk_check_args g;
    memset(&g, 0, sizeof g);
    g.n = job->n;
    g.nrhs = job->nrhs;
    g.batch = job->batch;
    g.A = job->A;
    g.a_rs = job->a_rs, g.a_cs = job->a_cs, g.sA = job->strideA;
    g.B = job->B;
    g.b_rs = job->b_rs, g.b_cs = job->b_cs, g.sB = job->strideB;
    g.X = job->X; /* with nrhs 0 neither B nor X is read: every residual is 0 */
    g.x_rs = job->x_rs, g.x_cs = job->x_cs, g.sX = job->strideX;
    g.eps = job->eps;
    LSC_TRY(lsc_tmp_alloc(c, &scratch, lsk_check_scratch_bytes(&g), err, errlen));
    LSC_CUDA(lsk_check(job->prec == LS_SINGLE, &g, scratch, job->out, c->stream));
done:
    lsc_tmp_free(c, scratch);
    return st;
}
