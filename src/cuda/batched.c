/* The CUDA backend's batched getrf / getrs / gesv (the `batched` slot,
 * core/batched.h). Kernels by order n:
 *   n <= 32           a matrix per warp segment, in registers (k_batched_warp.cu)
 *   n < 128, fits     a matrix per block, in shared memory (k_batched_smem.cu)
 *   larger            by panels with cuBLAS's batched GEMM (batched_blocked.c),
 *                     then our batched getrs; cuBLAS getrfBatched where no
 *                     panel fits shared memory
 * LS_CUDA_BATCHED_PATH=warp|smem|blocked|cublas forces a kernel where it
 * can run (for measurements).
 * gesv is one pass over A and B where the kernel can hold the right-hand
 * sides too; otherwise getrf then getrs, the latter skipping systems whose
 * info is nonzero so that their B is kept. Host arrays are copied to the
 * device, solved there and copied back. */
#include "batched_cuda.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/batched.h"
#include "k_batched.h"

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

/* cuBLAS's getrfBatched on column-major matrices (a row-major stack is
 * transposed in place before and after, so its factors land row-major). */
static int getrf_cublas(ls_cuda_ctx *c, int dbl, const lsk_bstack *s, char *err, size_t errlen)
{
    int st = 0, rowmajor = s->a_rs != 1;
    int lda = (int)(rowmajor ? s->a_rs : s->a_cs);
    void **ptrs = NULL;
    LSC_TRY(lsc_tmp_alloc(c, (void **)&ptrs, sizeof(void *) * (size_t)s->batch, err, errlen));
    LSC_CUDA(lsk_bpointers(dbl, s->A, s->sA, s->batch, ptrs, c->stream));
    if (rowmajor)
        LSC_CUDA(lsk_btranspose(dbl, s->n, s->A, lda, s->sA, s->batch, c->stream));
    if (dbl)
        LSC_BLAS(cublasDgetrfBatched(c->blas, s->n, (double *const *)ptrs, lda, s->ipiv, s->info,
                                     s->batch));
    else
        LSC_BLAS(cublasSgetrfBatched(c->blas, s->n, (float *const *)ptrs, lda, s->ipiv, s->info,
                                     s->batch));
    if (rowmajor)
        LSC_CUDA(lsk_btranspose(dbl, s->n, s->A, lda, s->sA, s->batch, c->stream));
done:
    lsc_tmp_free(c, ptrs);
    return st;
}

/* From this order the panels beat a block per whole matrix (H100, n = 128:
 * FP64 16.2 ms against 29.1, FP32 12.1 against 11.4; so FP32 keeps the
 * block per matrix while it fits, batched-variants.txt). */
#define LSC_BBLK_MIN_N 128

enum { PATH_WARP, PATH_SMEM, PATH_BLOCKED, PATH_CUBLAS };

static int factor_path(int dbl, int n, size_t optin)
{
    int can[4] = {n <= LSK_BWARP_MAXN,
                  n <= LSK_BSMEM_MAXN && lsk_bsmem_bytes(dbl, n, 0) <= optin,
                  lsc_bblk_width(dbl, n, optin) > 0, 1};
    static const char *const names[4] = {"warp", "smem", "blocked", "cublas"};
    const char *e = getenv("LS_CUDA_BATCHED_PATH");
    for (int p = 0; e && p < 4; p++)
        if (!strcmp(e, names[p]) && can[p])
            return p;
    if (can[PATH_WARP])
        return PATH_WARP;
    if (can[PATH_SMEM] && (n < LSC_BBLK_MIN_N || !dbl))
        return PATH_SMEM;
    return can[PATH_BLOCKED] ? PATH_BLOCKED : can[PATH_SMEM] ? PATH_SMEM : PATH_CUBLAS;
}

/* The work on device arrays, queued on the context's stream. */
static int run_device(ls_cuda_ctx *c, const ls_batched_job *j, void *A, int *ipiv, void *B,
                      int *info, char *err, size_t errlen)
{
    int st = 0, dbl = j->prec == LS_DOUBLE, n = j->n;
    int fused = j->op == LS_BATCHED_GESV ? j->nrhs : 0;
    int *piv_tmp = NULL;
    size_t optin = c->prop.sharedMemPerBlockOptin;
    if (n == 0) {
        LSC_CUDA(lsk_bzero_info(info, j->batch, c->stream));
        return 0;
    }
    if (j->op == LS_BATCHED_GETRS) {
        lsk_bstack s = stack_of(j, A, ipiv, B, info);
        if (j->nrhs > 65535)
            return LSC_FAIL(err, errlen, LS_ELIMIT, "batched getrs: nrhs %d > 65535", j->nrhs);
        if (j->nrhs > 0)
            LSC_CUDA(lsk_bgetrs(dbl, j->trans, &s, j->nrhs, NULL, c->stream));
        LSC_CUDA(lsk_bzero_info(info, j->batch, c->stream));
        return 0;
    }
    /* which factor kernel, and whether it solves too */
    int path = factor_path(dbl, n, optin);
    int warp = path == PATH_WARP, smem = path == PATH_SMEM;
    int in_pass = (warp && fused <= LSK_BWARP_MAXRHS) ||
                  (smem && lsk_bsmem_bytes(dbl, n, fused) <= optin);
    int later = fused > 0 && !in_pass; /* a separate getrs after the factorization */
    if (later && j->nrhs > 65535)
        return LSC_FAIL(err, errlen, LS_ELIMIT, "batched gesv: nrhs %d > 65535 at n = %d",
                        j->nrhs, n);
    if (!ipiv && (later || (!warp && !smem))) {
        LSC_TRY(lsc_tmp_alloc(c, (void **)&piv_tmp, sizeof(int) * (size_t)n * j->batch, err,
                          errlen));
        ipiv = piv_tmp;
    }
    lsk_bstack s = stack_of(j, A, ipiv, B, info);
    int nr = in_pass ? fused : 0;
    if (warp)
        LSC_CUDA(lsk_bwarp_lu(dbl, &s, nr, c->stream));
    else if (smem)
        LSC_CUDA(lsk_bsmem_lu(dbl, &s, nr, optin, c->stream));
    else if (path == PATH_BLOCKED)
        LSC_TRY(lsc_bblk_getrf(c, dbl, &s, optin, err, errlen));
    else
        LSC_TRY(getrf_cublas(c, dbl, &s, err, errlen));
    if (later)
        LSC_CUDA(lsk_bgetrs(dbl, 'N', &s, j->nrhs, info, c->stream));
done:
    lsc_tmp_free(c, piv_tmp);
    return st;
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
