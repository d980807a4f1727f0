/* The CUDA backend's batched getrf / getrs / gesv (the `batched` slot,
 * core/batched.h). Kernels by order n:
 *   3 <= n <= 7       a matrix per thread, in its registers (k_batched_thread.cu)
 *   n <= 32           a matrix per warp segment, in registers (k_batched_warp.cu)
 *   n <= 64 (FP64),   a matrix per block, its rows in registers
 *   n <= 128 (FP32)   (k_batched_rows.cuh)
 *   n < 128, fits     a matrix per block, in shared memory (k_batched_smem.cu)
 *   larger            by panels with cuBLAS's batched GEMM (batched_blocked.c),
 *                     then our batched getrs; cuBLAS getrfBatched where no
 *                     panel fits shared memory
 * LS_CUDA_BATCHED_PATH=thread|warp|rows|smem|blocked|cublas forces a kernel
 * where it can run (for measurements).
 * gesv is one pass over A and B where the kernel can hold the right-hand
 * sides too; otherwise getrf then getrs, the latter skipping systems whose
 * info is nonzero so that their B is kept. Host arrays are copied to the
 * device, solved there and copied back. */
#include "core/knobs.h"
#include "cuda/batched/batched_cuda.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/batched.h"
#include "cuda/batched/k_batched.h"

/* Argument positions in linsolve.h, for the -i of a pointer that is not
 * device memory: {A, ipiv, B, info} per op. */
static const int ARG_POS[3][4] = {{3, 6, 0, 7}, {5, 8, 9, 12}, {4, 7, 8, 11}};

/* -arg unless p is device memory of this context's GPU (managed counts). */
static int need_device(const ls_cuda_ctx *c, const void *p, int arg, const char *name,
                       char *err, size_t errlen)
{
    struct cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    if (!p)
        return 0;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        a.type = cudaMemoryTypeHost;
    }
    if (a.type == cudaMemoryTypeManaged || (a.type == cudaMemoryTypeDevice && a.device == c->device))
        return 0;
    return LSC_FAIL(err, errlen, -arg, "argument %d (%s) is not device memory of %s", arg, name,
                    c->name);
}

static lsk_bstack stack_of(const ls_batched_job *j, void *A, int *ipiv, void *B, int *info)
{
    lsk_bstack s;
    s.A = A, s.a_rs = j->a_rs, s.a_cs = j->a_cs, s.sA = j->strideA;
    s.ipiv = ipiv;
    s.B = B, s.b_rs = j->b_rs, s.b_cs = j->b_cs, s.sB = j->strideB;
    s.info = info;
    s.n = j->n, s.batch = j->batch;
    return s;
}

/* The orders at which the factor kernel changes (a matrix per thread, a
 * warp segment, a block, panels) are the context's tuning row (c->tune:
 * bthread_min_n, bthread_max_n, bblk_min_n; common/tuning.h). A matrix per
 * thread beats a warp segment between its orders because both keep the
 * matrix in registers and the thread needs no cross-lane pivot search or
 * row broadcast. */
enum { PATH_THREAD, PATH_WARP, PATH_ROWS, PATH_SMEM, PATH_BLOCKED, PATH_CUBLAS, PATH_COUNT };
static const char *const PATH_NAMES[PATH_COUNT] = {"thread", "warp",    "rows",
                                                   "smem",   "blocked", "cublas"};

/* The separate solve keeps x in shared memory rather than registers
 * (LS_CUDA_BATCHED_GETRS=smem: the earlier kernel, for measurements). */
static int getrs_smem(void)
{
    return ls_knob_is(LS_KNOB_CUDA_BATCHED_GETRS, "smem");
}

#define LS_REAL_IMPL "cuda/batched/batched_impl.h"
#include "common/instantiate_real.h"

/* The work on device arrays, queued on the context's stream. */
static int run_device(ls_cuda_ctx *c, const ls_batched_job *j, void *A, int *ipiv, void *B,
                      int *info, char *err, size_t errlen)
{
    return j->prec == LS_DOUBLE
               ? run_device_d(c, j, (double *)A, ipiv, (double *)B, info, err, errlen)
               : run_device_s(c, j, (float *)A, ipiv, (float *)B, info, err, errlen);
}

/* Elements from a strided stack's first to its last. */
static size_t span(int batch, long long stride, int n, long long rs, int cols, long long cs)
{
    if (batch == 0 || n == 0 || cols == 0)
        return 0;
    return (size_t)((long long)(batch - 1) * stride + (long long)(n - 1) * rs +
                    (long long)(cols - 1) * cs + 1);
}

/* Host arrays: up, solve, down. */
static int run_host(ls_cuda_ctx *c, const ls_batched_job *j, char *err, size_t errlen)
{
    int st = 0;
    size_t es = lsc_elem_size(j->prec), need = 0;
    size_t na = span(j->batch, j->strideA, j->n, j->a_rs, j->n, j->a_cs);
    size_t nb = j->op == LS_BATCHED_GETRF ? 0
                                          : span(j->batch, j->strideB, j->n, j->b_rs, j->nrhs,
                                                 j->b_cs);
    size_t np = j->ipiv ? (size_t)j->n * j->batch : 0;
    void *dA = NULL, *dB = NULL;
    int *dP = NULL, *dI = NULL;
    LSC_TRY(lsc_need_add(&need, na, es, err, errlen));
    LSC_TRY(lsc_need_add(&need, nb, es, err, errlen));
    LSC_TRY(lsc_need_add(&need, np + (size_t)j->batch, sizeof(int), err, errlen));
    LSC_TRY(lsc_mem_check(need, "batched solve", err, errlen));
    LSC_TRY(lsc_malloc(&dA, na ? na : 1, es, err, errlen));
    LSC_TRY(lsc_malloc(&dB, nb ? nb : 1, es, err, errlen));
    LSC_TRY(lsc_malloc((void **)&dP, np ? np : 1, sizeof(int), err, errlen));
    LSC_TRY(lsc_malloc((void **)&dI, (size_t)j->batch, sizeof(int), err, errlen));
    LSC_CUDA(cudaMemcpyAsync(dA, j->A, na * es, cudaMemcpyHostToDevice, c->stream));
    if (nb)
        LSC_CUDA(cudaMemcpyAsync(dB, j->B, nb * es, cudaMemcpyHostToDevice, c->stream));
    if (np && j->op == LS_BATCHED_GETRS)
        LSC_CUDA(cudaMemcpyAsync(dP, j->ipiv, np * sizeof(int), cudaMemcpyHostToDevice,
                                 c->stream));
    LSC_TRY(run_device(c, j, dA, np ? dP : NULL, nb ? dB : NULL, dI, err, errlen));
    if (j->op != LS_BATCHED_GETRS) {
        LSC_CUDA(cudaMemcpyAsync(j->A, dA, na * es, cudaMemcpyDeviceToHost, c->stream));
        if (np)
            LSC_CUDA(cudaMemcpyAsync(j->ipiv, dP, np * sizeof(int), cudaMemcpyDeviceToHost,
                                     c->stream));
    }
    if (nb)
        LSC_CUDA(cudaMemcpyAsync(j->B, dB, nb * es, cudaMemcpyDeviceToHost, c->stream));
    LSC_CUDA(cudaMemcpyAsync(j->info, dI, (size_t)j->batch * sizeof(int),
                             cudaMemcpyDeviceToHost, c->stream));
    LSC_CUDA(cudaStreamSynchronize(c->stream));
done:
    cudaFree(dA), cudaFree(dB), cudaFree(dP), cudaFree(dI);
    return st;
}

int lsc_batched_gesv_one(ls_cuda_ctx *c, ls_precision p, int n, int nrhs, void *dA, int lda,
                         int *d_ipiv, int *d_info, void *dB, int ldb, char *err, size_t errlen)
{
    ls_batched_job j;
    memset(&j, 0, sizeof j);
    j.op = LS_BATCHED_GESV, j.prec = p, j.device = 1, j.trans = 'N';
    j.n = n, j.nrhs = nrhs, j.batch = 1;
    j.A = dA, j.a_rs = 1, j.a_cs = lda;
    j.ipiv = d_ipiv;
    j.B = dB, j.b_rs = 1, j.b_cs = ldb;
    j.info = d_info;
    return run_device(c, &j, dA, d_ipiv, dB, d_info, err, errlen);
}

int lsc_batched(void *bctx, const ls_batched_job *j, char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0;
    LSC_CUDA(cudaSetDevice(c->device));
    if (!j->device)
        return run_host(c, j, err, errlen);
    const int *pos = ARG_POS[j->op];
    if (j->n > 0) {
        LSC_TRY(need_device(c, j->A, pos[0], "dA", err, errlen));
        LSC_TRY(need_device(c, j->ipiv, pos[1], "dipiv", err, errlen));
        if (j->op != LS_BATCHED_GETRF && j->nrhs > 0)
            LSC_TRY(need_device(c, j->B, pos[2], "dB", err, errlen));
    }
    LSC_TRY(need_device(c, j->info, pos[3], "dinfo", err, errlen));
    st = run_device(c, j, j->A, j->ipiv, j->B, j->info, err, errlen);
done:
    return st;
}
