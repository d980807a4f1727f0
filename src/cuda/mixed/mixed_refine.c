/* The operations each refinement step of src/algo/mixed.c runs on the
 * device once the factors are there (mixed_factor.c): the norms, FP64
 * residuals with cuBLAS, the correction solve with either level's factors
 * (scaled FP32, or FP64 arithmetic on the low factors for GMRES-IR), the
 * GMRES vectors and their Gram-Schmidt, and the ops table that
 * lsc_mixed_open (mixed_cuda.c) hands out. Each step reads back scalars
 * only: one small copy and one wait. */
#include <stdlib.h>
#include <string.h>

#include "algo/mixed.h"
#include "cuda/common/cuda_backend.h"
#include "cuda/mixed/k_mixed.h"
#include "cuda/mixed/k_rbt.h"
#include "cuda/mixed/mixed_internal.h"

/* The low solve in FP64 arithmetic on the low factors (GMRES-IR): GMRES
 * needs M^-1 A applied accurately, which FP32 triangular solves are not
 * once cond(A) u32 nears 1. */
#define MXC_LOW_IN_FP64 2

static const double *orig_A(const cuda_mx *m, int *lda)
{
    *lda = m->A0 ? m->pb.n : m->pb.lda;
    return m->A0 ? m->A0 : m->pb.A;
}

/* Two inf-norms read back with one copy (the one wait of a step). */
static int norms2(cuda_mx *m, const double *P, int ldp, int pc, const double *Q, int ldq, int qc,
                  double *p, double *q, char *err, size_t errlen)
{
    int st = 0, n = m->pb.n;
    cudaStream_t s = m->c->stream;
    LSC_CUDA(cudaMemsetAsync(m->bits, 0, 2 * sizeof *m->bits, s));
    /* V (n x (restart + 1)) is free between GMRES corrections: scratch here */
    LSC_CUDA(lsk_mx_norm_inf_wide(n, pc, P, ldp, m->V, m->bits, s));
    LSC_CUDA(lsk_mx_norm_inf(n, qc, Q, ldq, m->bits + 1, s));
    LSC_CUDA(cudaMemcpyAsync(m->h_bits, m->bits, 2 * sizeof *m->bits, cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaStreamSynchronize(s));
    memcpy(p, &m->h_bits[0], sizeof *p);
    memcpy(q, &m->h_bits[1], sizeof *q);
done:
    return st;
}

static int mxc_norms(void *ws, double *anorm, double *bnorm, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    return norms2(m, m->pb.A, m->pb.lda, m->pb.n, m->pb.B, m->pb.ldb, m->pb.nrhs, anorm, bnorm,
                  err, errlen);
}

/* R = B. */
static int mxc_start_r(cuda_mx *m, char *err, size_t errlen)
{
    int st = 0;
    size_t es = sizeof(double), rows = (size_t)m->pb.n * es;
    LSC_CUDA(cudaMemcpy2DAsync(m->R, rows, m->pb.B, (size_t)m->pb.ldb * es, rows,
                               (size_t)m->pb.nrhs, cudaMemcpyDeviceToDevice, m->c->stream));
done:
    return st;
}

static int mxc_start(void *ws, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0;
    size_t es = sizeof(double), rows = (size_t)m->pb.n * es;
    LSC_CUDA(cudaMemset2DAsync(m->pb.X, (size_t)m->pb.ldx * es, 0, rows, (size_t)m->pb.nrhs,
                               m->c->stream));
    st = mxc_start_r(m, err, errlen);
done:
    return st;
}

static int mxc_residual(void *ws, double *rnorm, double *xnorm, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0, n = m->pb.n, c = m->pb.nrhs, lda = 0;
    const double *A = orig_A(m, &lda);
    const double minus = -1, one = 1;
    LSC_TRY(mxc_start_r(m, err, errlen));
    if (c == 1)
        LSC_BLAS(cublasDgemv(m->c->blas, CUBLAS_OP_N, n, n, &minus, A, lda, m->pb.X, 1, &one,
                             m->R, 1));
    else
        LSC_BLAS(cublasDgemm(m->c->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, c, n, &minus, A, lda,
                             m->pb.X, m->pb.ldx, &one, m->R, n));
    st = norms2(m, m->R, n, c, m->pb.X, m->pb.ldx, c, rnorm, xnorm, err, errlen);
done:
    return st;
}

/* y = M^-1 x (c columns, FP64, x may be y) with the level's factors. The
 * FP32 solve sees each column divided by its largest magnitude. */
static int solve_level(cuda_mx *m, int level, int c, double *x, double *y, char *err,
                       size_t errlen)
{
    int st = 0, n = m->pb.n;
    cudaStream_t s = m->c->stream;
    if (level == LS_MX_LOW && m->pb.factor == LS_FACTOR_FP64)
        level = MXC_LOW_IN_FP64; /* the low factors are FP64 already, in Ad */
    int eq = level != LS_MX_FP64 && m->eq_r, rbt = level != LS_MX_FP64 && m->rbt_m;
    if (y != x && (eq || rbt || level != LS_MX_LOW)) { /* these work on y in place */
        LSC_CUDA(cudaMemcpyAsync(y, x, (size_t)n * (size_t)c * sizeof(double),
                                 cudaMemcpyDeviceToDevice, s));
        x = y;
    }
    if (eq) /* M = diag(eq_r)^-1 U^-T L U V^-1 diag(eq_c)^-1 (U, V: identity, or rbt's) */
        LSC_CUDA(lsk_mx_row_mul(n, c, m->eq_r, y, n, s));
    if (rbt)
        LSC_CUDA(lsk_rbt_ut(n, c, y, n, m->rbt_m, s));
    if (level == LS_MX_FP64 || level == MXC_LOW_IN_FP64) {
        int fp64 = level == LS_MX_FP64;
        LSC_TRY(lsc_getrs_device_d(m->c, 'N', n, c, fp64 ? m->pb.A : m->Ad,
                                   fp64 ? m->pb.lda : n, fp64 ? m->ipiv_d : m->ipiv_s, y, n, err,
                                   errlen));
        if (rbt)
            LSC_CUDA(lsk_rbt_v(n, c, y, n, m->rbt_m, s));
        if (eq)
            LSC_CUDA(lsk_mx_row_mul(n, c, m->eq_c, y, n, s));
        return 0;
    }
    LSC_CUDA(lsk_mx_colmax(n, c, x, n, m->scal, s));
    LSC_CUDA(lsk_mx_d2s_scaled(n, c, x, n, m->scal, m->T, n, s));
    LSC_TRY(lsc_getrs_device_s(m->c, 'N', n, c, m->As, n, m->ipiv_s, m->T, n, err, errlen));
    /* x is in T by now, so y may be x */
    LSC_CUDA(cudaMemsetAsync(y, 0, (size_t)n * (size_t)c * sizeof(double), s));
    LSC_CUDA(lsk_mx_add_scaled(n, c, m->T, n, m->scal, y, n, s));
    if (rbt)
        LSC_CUDA(lsk_rbt_v(n, c, y, n, m->rbt_m, s));
    if (eq)
        LSC_CUDA(lsk_mx_row_mul(n, c, m->eq_c, y, n, s));
done:
    return st;
}

static int mxc_ir_step(void *ws, int level, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0, n = m->pb.n, c = m->pb.nrhs;
    if (level == LS_MX_LOW && !m->eq_r && !m->rbt_m) { /* X += scale (LU)^-1 (R / scale), straight into X */
        cudaStream_t s = m->c->stream;
        LSC_CUDA(lsk_mx_colmax(n, c, m->R, n, m->scal, s));
        LSC_CUDA(lsk_mx_d2s_scaled(n, c, m->R, n, m->scal, m->T, n, s));
        LSC_TRY(lsc_getrs_device_s(m->c, 'N', n, c, m->As, n, m->ipiv_s, m->T, n, err, errlen));
        LSC_CUDA(lsk_mx_add_scaled(n, c, m->T, n, m->scal, m->pb.X, m->pb.ldx, s));
        return 0;
    }
    LSC_TRY(solve_level(m, level, c, m->R, m->R, err, errlen));
    LSC_CUDA(lsk_mx_add(n, c, m->R, n, m->pb.X, m->pb.ldx, m->c->stream));
done:
    return st;
}

/* Read back count doubles of gh (one copy, one wait). */
static int read_gh(cuda_mx *m, int count, char *err, size_t errlen)
{
    int st = 0;
    cudaStream_t s = m->c->stream;
    LSC_CUDA(cudaMemcpyAsync(m->h_h, m->gh, (size_t)count * sizeof(double),
                             cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaStreamSynchronize(s));
done:
    return st;
}

static int mxc_gm_start(void *ws, int j, double *beta, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0, n = m->pb.n;
    if (!m->Ad) {
        LSC_TRY(lsc_mx_ws_grow_ad(m, 0, err, errlen));
        m->Ad = m->w->Ad;
        LSC_CUDA(lsk_mx_s2d(n, n, m->As, n, m->Ad, n, m->c->stream));
    }
    LSC_TRY(solve_level(m, MXC_LOW_IN_FP64, 1, m->R + (size_t)j * n, m->V, err, errlen));
    LSC_CUDA(lsk_mx_nrm2_scale(n, m->V, m->gh, m->c->stream)); /* v0 /= beta on the device */
    LSC_TRY(read_gh(m, 1, err, errlen));
    *beta = m->h_h[0];
done:
    return st;
}

static int mxc_gm_step(void *ws, int k, double *h, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0, n = m->pb.n, lda = 0;
    const double *A = orig_A(m, &lda);
    const double one = 1, zero = 0, minus = -1;
    double *vk = m->V + (size_t)k * n;
    cudaStream_t s = m->c->stream;
    LSC_BLAS(cublasDgemv(m->c->blas, CUBLAS_OP_N, n, n, &one, A, lda, m->V + (size_t)(k - 1) * n,
                         1, &zero, vk, 1));
    LSC_TRY(solve_level(m, MXC_LOW_IN_FP64, 1, vk, vk, err, errlen));
    /* classical Gram-Schmidt twice, each pass two matrix-vector products;
     * the passes' coefficients in gh[0, k) and gh[k, 2k), the norm in gh[2k] */
    for (int pass = 0; pass < 2; pass++) {
        double *dh = m->gh + (size_t)pass * k;
        LSC_BLAS(cublasDgemv(m->c->blas, CUBLAS_OP_T, n, k, &one, m->V, n, vk, 1, &zero, dh, 1));
        LSC_BLAS(cublasDgemv(m->c->blas, CUBLAS_OP_N, n, k, &minus, m->V, n, dh, 1, &one, vk, 1));
    }
    LSC_CUDA(lsk_mx_nrm2_scale(n, vk, m->gh + 2 * (size_t)k, s));
    LSC_TRY(read_gh(m, 2 * k + 1, err, errlen));
    for (int i = 0; i < k; i++)
        h[i] = m->h_h[i] + m->h_h[k + i];
    h[k] = m->h_h[2 * k];
done:
    return st;
}

static int mxc_gm_update(void *ws, int j, int k, const double *y, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0, n = m->pb.n;
    const double one = 1;
    /* through the workspace's host buffer, so that no wait is needed: it is
     * next written after a later step has waited on the stream */
    memcpy(m->h_y, y, (size_t)k * sizeof(double));
    LSC_CUDA(cudaMemcpyAsync(m->gy, m->h_y, (size_t)k * sizeof(double), cudaMemcpyHostToDevice,
                             m->c->stream));
    LSC_BLAS(cublasDgemv(m->c->blas, CUBLAS_OP_N, n, k, &one, m->V, n, m->gy, 1, &one,
                         m->pb.X + (size_t)j * m->pb.ldx, 1));
done:
    return st;
}

static int mxc_zero_x(void *ws, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0;
    LSC_CUDA(cudaMemset2DAsync(m->pb.X, (size_t)m->pb.ldx * sizeof(double), 0,
                               (size_t)m->pb.n * sizeof(double), (size_t)m->pb.nrhs,
                               m->c->stream));
    LSC_CUDA(cudaStreamSynchronize(m->c->stream));
done:
    return st;
}

static int mxc_pivots(void *ws, int level, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0;
    /* the caller's ipiv may be host or device memory: the runtime tells */
    LSC_CUDA(cudaMemcpyAsync(m->pb.ipiv, level == LS_MX_LOW ? m->ipiv_s : m->ipiv_d,
                             (size_t)m->pb.n * sizeof(int), cudaMemcpyDefault, m->c->stream));
    LSC_CUDA(cudaStreamSynchronize(m->c->stream));
done:
    return st;
}

/* The buffers stay in the context for the next solve; work still queued
 * on them is ordered before any later use by the stream. */
static void mxc_close(void *ws)
{
    free(ws);
}

const ls_mixed_ops lsc_mx_cuda_ops = {mxc_norms,    lsc_mx_factor, mxc_start,     mxc_residual,
                                      mxc_ir_step,  mxc_gm_start,  mxc_gm_step,   mxc_gm_update,
                                      mxc_zero_x,   mxc_pivots,    mxc_close,     lsc_mx_factor_used};
