/* LU with partial pivoting of an FP32 matrix whose trailing updates run on
 * tensor cores in a precision our recursive LU's cuBLAS calls do not use:
 * split TF32 (3 products, FP32-accurate), FP16 or BF16 inputs with FP32
 * accumulation. Blocked right-looking: each panel of nb columns is factored
 * in FP32 by our LU (lsc_getrf_device on the tall panel), its interchanges
 * applied left and right, U12 solved in FP32, and A22 -= L21 U12 done with
 * cublasGemmEx on converted copies of L21 and U12. Pivots and info stay on
 * the device; FP16 reads one scalar back per panel (the scale of U12). */
#include <cuda_fp16.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuda_backend.h"
#include "k_mixed.h"
#include "kernels.h"
#include "mixed_cuda.h"

/* U12 scaled so that its largest entry is about 2^14: FP16 (max 65504)
 * keeps a margin, and small entries stay above FP16's subnormals. */
#define MXL_FP16_TOP 14

enum { SPLIT_TF32 = 0, SPLIT_FP16 = 1, SPLIT_BF16 = 2 };

typedef struct mxl {
    ls_cuda_ctx *c;
    int kind, n, lda;
    float *A;
    void *Lh, *Ll, *Uh, *Ul; /* converted operands, packed */
    int *pinfo;
    unsigned *umax;
} mxl;

static float *at(const mxl *r, int i, int j)
{
    return r->A + (size_t)i + (size_t)j * (size_t)r->lda;
}

/* 2^k with 2^k * umax about 2^MXL_FP16_TOP (1 for a zero U12). */
static int u_scale(mxl *r, const float *U, int jb, int nr, float *scale, char *err,
                   size_t errlen)
{
    int st = 0;
    unsigned bits = 0;
    float umax = 0;
    cudaStream_t s = r->c->stream;
    *scale = 1.0f;
    LSC_CUDA(cudaMemsetAsync(r->umax, 0, sizeof *r->umax, s));
    LSC_CUDA(lsk_mx_absmax_f(jb, nr, U, r->lda, r->umax, s));
    LSC_CUDA(cudaMemcpyAsync(&bits, r->umax, sizeof bits, cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaStreamSynchronize(s));
    memcpy(&umax, &bits, sizeof umax);
    if (umax > 0 && isfinite(umax)) {
        int e = 0;
        frexpf(umax, &e);
        *scale = ldexpf(1.0f, MXL_FP16_TOP - e);
    }
done:
    return st;
}

/* A22 -= L21 U12 (rows and columns from i0 = j0 + jb on) in the split precision. */
static int update(mxl *r, int j0, int jb, char *err, size_t errlen)
{
    int st = 0, i0 = j0 + jb, mr = r->n - i0, nr = r->n - i0;
    cudaStream_t s = r->c->stream;
    cublasHandle_t h = r->c->blas;
    const float *L = at(r, i0, j0), *U = at(r, j0, i0);
    float *C = at(r, i0, i0);
    const float one = 1.0f, minus = -1.0f;
    if (mr <= 0 || nr <= 0)
        return 0;
    if (r->kind == SPLIT_TF32) {
        LSC_CUDA(lsk_mx_split(0, mr, jb, L, r->lda, 1.0f, r->Lh, r->Ll, s));
        LSC_CUDA(lsk_mx_split(0, jb, nr, U, r->lda, 1.0f, r->Uh, r->Ul, s));
        /* the small products first: they are rounded into a larger sum last */
        const void *pa[3] = {r->Ll, r->Lh, r->Lh}, *pb[3] = {r->Uh, r->Ul, r->Uh};
        for (int k = 0; k < 3; k++)
            LSC_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, mr, nr, jb, &minus, pa[k],
                                  CUDA_R_32F, mr, pb[k], CUDA_R_32F, jb, &one, C, CUDA_R_32F,
                                  r->lda, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
        return 0;
    }
    float scale = 1.0f;
    if (r->kind == SPLIT_FP16) /* BF16 has FP32's range: no scale needed */
        LSC_TRY(u_scale(r, U, jb, nr, &scale, err, errlen));
    cudaDataType t = r->kind == SPLIT_FP16 ? CUDA_R_16F : CUDA_R_16BF;
    float alpha = -1.0f / scale;
    LSC_CUDA(lsk_mx_split(r->kind, mr, jb, L, r->lda, 1.0f, r->Lh, NULL, s));
    LSC_CUDA(lsk_mx_split(r->kind, jb, nr, U, r->lda, scale, r->Uh, NULL, s));
    LSC_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, mr, nr, jb, &alpha, r->Lh, t, mr, r->Uh, t,
                          jb, &one, C, CUDA_R_32F, r->lda, CUBLAS_COMPUTE_32F,
                          CUBLAS_GEMM_DEFAULT));
done:
    return st;
}

int lsc_mixed_lu(ls_cuda_ctx *c, ls_factor_prec f, int n, float *A, int lda, int *d_ipiv,
                 int *d_info, char *err, size_t errlen)
{
    int st = 0, nb = n >= 8192 ? 512 : 256;
    mxl r;
    memset(&r, 0, sizeof r);
    r.c = c, r.n = n, r.lda = lda, r.A = A;
    r.kind = f == LS_FACTOR_TF32X3 ? SPLIT_TF32 : f == LS_FACTOR_FP16 ? SPLIT_FP16 : SPLIT_BF16;
    nb = nb < n ? nb : n;
    size_t panel = (size_t)n * (size_t)nb; /* the largest L21 or U12 */
    char *buf = NULL;
    LSC_TRY(lsc_malloc((void **)&buf, 4 * panel * sizeof(float) + 256, 1, err, errlen));
    r.Lh = buf, r.Ll = buf + panel * sizeof(float);
    r.Uh = buf + 2 * panel * sizeof(float), r.Ul = buf + 3 * panel * sizeof(float);
    r.pinfo = (int *)(buf + 4 * panel * sizeof(float));
    r.umax = (unsigned *)(r.pinfo + 1);
    for (int j0 = 0; j0 < n; j0 += nb) {
        int jb = n - j0 < nb ? n - j0 : nb, right = n - j0 - jb;
        LSC_CUDA(cudaMemsetAsync(r.pinfo, 0, sizeof(int), c->stream));
        LSC_TRY(lsc_getrf_device_s(c, n - j0, jb, at(&r, j0, j0), lda, d_ipiv + j0, r.pinfo, err,
                                   errlen));
        LSC_CUDA(lsk_mx_fold_panel(j0, j0 + jb, d_ipiv, r.pinfo, d_info, c->stream));
        LSC_CUDA(lsk_laswp_s(j0, A, lda, j0, j0 + jb, d_ipiv, c->stream));
        if (right <= 0)
            continue;
        LSC_CUDA(lsk_laswp_s(right, at(&r, 0, j0 + jb), lda, j0, j0 + jb, d_ipiv, c->stream));
        const float one = 1.0f;
        LSC_BLAS(cublasStrsm(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                             CUBLAS_DIAG_UNIT, jb, right, &one, at(&r, j0, j0), lda,
                             at(&r, j0, j0 + jb), lda));
        LSC_TRY(update(&r, j0, jb, err, errlen));
    }
done:
    if (buf) {
        cudaStreamSynchronize(c->stream);
        cudaFree(buf);
    }
    return st;
}
