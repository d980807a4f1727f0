/* LU of an FP32 matrix whose trailing updates run on tensor cores in a
 * precision our recursive LU's cuBLAS calls do not use: split TF32 (3
 * products, FP32-accurate, as one GEMM over a tripled k), FP16 or BF16
 * inputs with FP32 accumulation; and LU without interchanges (after the
 * butterfly transform, LS_PIVOT_RBT) in every factor precision.
 * Blocked right-looking. With partial pivoting each panel of nb columns is
 * factored in FP32 by our LU (lsc_getrf_device on the tall panel), its
 * interchanges applied left and right; without, the diagonal block is
 * factored by lsk_genp_block in pieces and L21 = A21 U11^-1 is a trsm: no
 * pivot search over the tall panel, the chain that bounds our partial-
 * pivoting LU. Then U12 is solved in FP32 and A22 -= L21 U12 runs in the
 * factor precision. Pivots and info stay on the device; FP16 reads one
 * scalar back per panel (the scale of U12). */
#include <cuda_fp16.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"
#include "cuda/common/cuda_backend.h"
#include "cuda/mixed/k_mixed.h"
#include "cuda/mixed/genp.h"
#include "cuda/mixed/k_rbt.h"
#include "cuda/steps/k_steps.h"
#include "cuda/mixed/mixed_cuda.h"

/* U12 scaled so that its largest entry is about 2^14: FP16 (max 65504)
 * keeps a margin, and small entries stay above FP16's subnormals. */
#define MXL_FP16_TOP 14

/* the update's precision; the first three are lsk_mx_split's kinds */
enum { SPLIT_TF32 = 0, SPLIT_FP16 = 1, SPLIT_BF16 = 2, PLAIN_FP32 = 3, PLAIN_TF32 = 4 };

typedef struct mxl {
    ls_cuda_ctx *c;
    int kind, n, lda;
    float *A;
    void *Lh, *Uh; /* converted operands, packed (split TF32: three parts each) */
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
    if (r->kind == PLAIN_FP32 || r->kind == PLAIN_TF32) {
        LSC_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, mr, nr, jb, &minus, L, CUDA_R_32F,
                              r->lda, U, CUDA_R_32F, r->lda, &one, C, CUDA_R_32F, r->lda,
                              r->kind == PLAIN_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                    : CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
        return 0;
    }
    if (r->kind == SPLIT_TF32) { /* [Ll Lh Lh] [Uh; Ul; Uh]: the small products first */
        LSC_CUDA(lsk_mx_split3(mr, jb, L, r->lda, r->Lh, mr, (size_t)mr * jb, 0, s));
        LSC_CUDA(lsk_mx_split3(jb, nr, U, r->lda, r->Uh, 3 * jb, (size_t)jb, 1, s));
        LSC_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, mr, nr, 3 * jb, &minus, r->Lh,
                              CUDA_R_32F, mr, r->Uh, CUDA_R_32F, 3 * jb, &one, C, CUDA_R_32F,
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

/* The panel width: LS_CUDA_MIXED_NB, else by n (and a multiple of the
 * diagonal pieces without interchanges). */
static int panel_width(int n, int nopiv)
{
    int nb = (int)ls_knob_int(LS_KNOB_CUDA_MIXED_NB); /* 0: unset */
    if (nb <= 0)
        nb = nopiv ? 256 : n >= 8192 ? 512 : 256;
    return nb < n ? nb : n;
}

int lsc_mixed_lu(ls_cuda_ctx *c, ls_factor_prec f, int nopiv, int n, float *A, int lda,
                 int *d_ipiv, int *d_info, char *err, size_t errlen)
{
    int st = 0, nb = panel_width(n, nopiv);
    mxl r;
    memset(&r, 0, sizeof r);
    r.c = c, r.n = n, r.lda = lda, r.A = A;
    r.kind = f == LS_FACTOR_TF32X3 ? SPLIT_TF32
             : f == LS_FACTOR_FP16 ? SPLIT_FP16
             : f == LS_FACTOR_BF16 ? SPLIT_BF16
             : f == LS_FACTOR_TF32 ? PLAIN_TF32
                                   : PLAIN_FP32;
    size_t panel = 3 * (size_t)n * (size_t)nb; /* the largest L21 or U12, three parts */
    char *buf = NULL;
    LSC_TRY(lsc_malloc((void **)&buf, 2 * panel * sizeof(float) + 256, 1, err, errlen));
    r.Lh = buf, r.Uh = buf + panel * sizeof(float);
    r.pinfo = (int *)(buf + 2 * panel * sizeof(float));
    r.umax = (unsigned *)(r.pinfo + 1);
    const float one = 1.0f;
    for (int j0 = 0; j0 < n; j0 += nb) {
        int jb = n - j0 < nb ? n - j0 : nb, right = n - j0 - jb;
        if (nopiv) {
            LSC_TRY(lsc_genp_diag_s(c, A, lda, j0, jb, d_info, err, errlen));
            if (right > 0)
                LSC_BLAS(cublasStrsm(c->blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER,
                                     CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, right, jb, &one,
                                     at(&r, j0, j0), lda, at(&r, j0 + jb, j0), lda));
        } else {
            LSC_CUDA(cudaMemsetAsync(r.pinfo, 0, sizeof(int), c->stream));
            LSC_TRY(lsc_getrf_device_s(c, n - j0, jb, at(&r, j0, j0), lda, d_ipiv + j0, r.pinfo,
                                       err, errlen));
            LSC_CUDA(lsk_mx_fold_panel(j0, j0 + jb, d_ipiv, r.pinfo, d_info, c->stream));
            LSC_CUDA(lsk_laswp_s(j0, A, lda, j0, j0 + jb, d_ipiv, c->stream));
            if (right > 0)
                LSC_CUDA(lsk_laswp_s(right, at(&r, 0, j0 + jb), lda, j0, j0 + jb, d_ipiv,
                                     c->stream));
        }
        if (right <= 0)
            continue;
        LSC_BLAS(cublasStrsm(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                             CUBLAS_DIAG_UNIT, jb, right, &one, at(&r, j0, j0), lda,
                             at(&r, j0, j0 + jb), lda));
        LSC_TRY(update(&r, j0, jb, err, errlen));
    }
    if (nopiv)
        LSC_CUDA(lsk_identity_pivots(n, d_ipiv, c->stream));
done:
    if (buf) {
        cudaStreamSynchronize(c->stream);
        cudaFree(buf);
    }
    return st;
}
