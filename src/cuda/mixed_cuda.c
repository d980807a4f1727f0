/* The mixed-precision solver's operations on the device (core/mixed.h):
 * an FP32 copy of A factored by our LU (lsc_getrf_device) with its
 * trailing GEMMs in FP32 or on TF32 tensor cores, FP64 residuals with
 * cuBLAS, GMRES vectors on the device. Everything is queued on the
 * context's stream; what comes back to the host is scalars (norms, info,
 * GMRES coefficients), never a vector. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mixed.h"
#include "cuda_backend.h"
#include "k_mixed.h"
#include "mixed_cuda.h"

/* Below this order the tensor cores save too little to pay for the extra
 * refinement steps TF32's 2^-11 costs: auto factors in FP32. */
#define MXC_TF32_MIN_N 2048
/* auto's cheap conditioning estimate: when max|u_ii| / min|u_ii| of the TF32
 * factors times TF32's unit roundoff (2^-11) exceeds this, refinement would
 * crawl, and auto factors again with tf32x3 (FP32-accurate products). A
 * heuristic: U's diagonal spread is a lower estimate of cond(A). */
#define MXC_ESCALATE 1.0
/* The low solve in FP64 arithmetic on the low factors (GMRES-IR): GMRES
 * needs M^-1 A applied accurately, which FP32 triangular solves are not
 * once cond(A) u32 nears 1. */
#define MXC_LOW_IN_FP64 2

typedef struct cuda_mx {
    ls_cuda_ctx *c;
    ls_mixed_problem pb;
    float *As;      /* low-precision factors (FP32 storage), n x n */
    double *Ad;     /* the same in FP64, for GMRES-IR (made on first use) */
    double *A0;     /* the original A once A holds the FP64 factors */
    double *R, *V;  /* n x nrhs; n x (restart + 1) */
    float *T;       /* n x nrhs */
    int *ipiv_s, *ipiv_d, *info; /* low pivots, FP64 pivots, info */
    double *scal;   /* column scales (nrhs), GMRES h (restart + 1) and y (restart) */
    double *eq_r, *eq_c; /* fp16 / bf16: A was factored as diag(eq_r) A diag(eq_c) */
    int auto_pick;       /* the caller asked for auto: tf32 may escalate to tf32x3 */
    unsigned long long *bits; /* two norms */
    int *flag;
} cuda_mx;

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
    unsigned long long h[2] = {0, 0};
    cudaStream_t s = m->c->stream;
    LSC_CUDA(cudaMemsetAsync(m->bits, 0, 2 * sizeof *m->bits, s));
    /* V (n x (restart + 1)) is free between GMRES corrections: scratch here */
    LSC_CUDA(lsk_mx_norm_inf_wide(n, pc, P, ldp, m->V, m->bits, s));
    LSC_CUDA(lsk_mx_norm_inf(n, qc, Q, ldq, m->bits + 1, s));
    LSC_CUDA(cudaMemcpyAsync(h, m->bits, sizeof h, cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaStreamSynchronize(s));
    memcpy(p, &h[0], sizeof *p);
    memcpy(q, &h[1], sizeof *q);
done:
    return st;
}

static int mxc_norms(void *ws, double *anorm, double *bnorm, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    return norms2(m, m->pb.A, m->pb.lda, m->pb.n, m->pb.B, m->pb.ldb, m->pb.nrhs, anorm, bnorm,
                  err, errlen);
}

static int split_factor(ls_factor_prec f)
{
    return f == LS_FACTOR_TF32X3 || f == LS_FACTOR_BF16 || f == LS_FACTOR_FP16;
}

/* auto, after the TF32 factorization: U's diagonal spread as a cheap
 * estimate of cond(A); too large for TF32's refinement -> tf32x3 instead. */
static int maybe_escalate(cuda_mx *m, char *err, size_t errlen)
{
    int st = 0, n = m->pb.n, info = 0;
    unsigned mm[2] = {0x7f800000u, 0};
    float lo = 0, hi = 0;
    cudaStream_t s = m->c->stream;
    unsigned *d_mm = (unsigned *)m->flag + 1; /* beside the range flag */
    LSC_CUDA(cudaMemcpyAsync(d_mm, mm, sizeof mm, cudaMemcpyHostToDevice, s));
    LSC_CUDA(lsk_mx_diag_minmax(n, m->As, n, d_mm, s));
    LSC_CUDA(cudaMemcpyAsync(mm, d_mm, sizeof mm, cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaMemcpyAsync(&info, m->info, sizeof info, cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaStreamSynchronize(s));
    memcpy(&lo, &mm[0], sizeof lo);
    memcpy(&hi, &mm[1], sizeof hi);
    if (info != 0 || !(lo > 0) || (double)hi / (double)lo * 0x1p-11 <= MXC_ESCALATE)
        return 0; /* a zero pivot is the fallback's business; else TF32 will do */
    m->pb.factor = LS_FACTOR_TF32X3;
    LSC_CUDA(cudaMemsetAsync(m->info, 0, sizeof(int), s));
    LSC_CUDA(lsk_mx_d2s_eq(n, n, m->pb.A, m->pb.lda, NULL, NULL, m->As, n, m->flag, s));
    st = lsc_mixed_lu(m->c, LS_FACTOR_TF32X3, n, m->As, n, m->ipiv_s, m->info, err, errlen);
done:
    return st;
}

static ls_factor_prec mxc_factor_used(void *ws)
{
    return ((cuda_mx *)ws)->pb.factor;
}

/* Our LU in FP32 with the trailing GEMMs in the factor precision: FP32 and
 * TF32 through the math mode of the context's handle (restored after),
 * the others through the blocked driver of mixed_lu.c. */
static int factor_low(cuda_mx *m, char *err, size_t errlen)
{
    int st = 0, n = m->pb.n;
    if (split_factor(m->pb.factor))
        return lsc_mixed_lu(m->c, m->pb.factor, n, m->As, n, m->ipiv_s, m->info, err, errlen);
    cublasMath_t before = CUBLAS_DEFAULT_MATH;
    LSC_BLAS(cublasGetMathMode(m->c->blas, &before));
    if (m->pb.factor == LS_FACTOR_TF32)
        LSC_BLAS(cublasSetMathMode(m->c->blas, CUBLAS_TF32_TENSOR_OP_MATH));
    st = lsc_getrf_device(m->c, 0, n, n, m->As, n, m->ipiv_s, m->info, err, errlen);
    cublasSetMathMode(m->c->blas, before);
    if (st == 0 && m->auto_pick && m->pb.factor == LS_FACTOR_TF32)
        st = maybe_escalate(m, err, errlen);
done:
    return st;
}

static int mxc_factor(void *ws, int level, int *info, int *kept, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0, n = m->pb.n, flag = 0;
    cudaStream_t s = m->c->stream;
    *info = 0;
    *kept = 1;
    LSC_CUDA(cudaMemsetAsync(m->info, 0, sizeof(int), s));
    if (level == LS_MX_LOW) {
        LSC_CUDA(cudaMemsetAsync(m->flag, 0, sizeof(int), s));
        if (m->eq_r) { /* powers of two: no rounding, and FP16 cannot overflow */
            LSC_CUDA(lsk_mx_row_scale(n, n, m->pb.A, m->pb.lda, m->eq_r, s));
            LSC_CUDA(lsk_mx_col_scale(n, n, m->pb.A, m->pb.lda, m->eq_r, m->eq_c, s));
        }
        LSC_CUDA(lsk_mx_d2s_eq(n, n, m->pb.A, m->pb.lda, m->eq_r, m->eq_c, m->As, n, m->flag, s));
        LSC_CUDA(cudaMemcpyAsync(&flag, m->flag, sizeof flag, cudaMemcpyDeviceToHost, s));
        LSC_CUDA(cudaStreamSynchronize(s));
        if (flag) {
            *info = LS_MX_INFO_RANGE;
            return 0;
        }
        LSC_TRY(factor_low(m, err, errlen));
    } else {
        /* the low factors are done with: their memory goes to the copy of A */
        cudaFree(m->As);
        cudaFree(m->Ad);
        m->As = NULL;
        m->Ad = NULL;
        char why[LS_ERRLEN];
        if (lsc_malloc((void **)&m->A0, (size_t)n * (size_t)n, sizeof(double), why, sizeof why)) {
            (void)cudaGetLastError(); /* no room for the copy: no residual check, said */
            m->A0 = NULL;
            *kept = 0;
        } else {
            LSC_CUDA(cudaMemcpy2DAsync(m->A0, (size_t)n * sizeof(double), m->pb.A,
                                       (size_t)m->pb.lda * sizeof(double),
                                       (size_t)n * sizeof(double), (size_t)n,
                                       cudaMemcpyDeviceToDevice, s));
        }
        LSC_TRY(lsc_getrf_device(m->c, 1, n, n, m->pb.A, m->pb.lda, m->ipiv_d, m->info, err,
                                 errlen));
    }
    LSC_CUDA(cudaMemcpyAsync(info, m->info, sizeof(int), cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaStreamSynchronize(s));
done:
    return st;
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
    int eq = level != LS_MX_FP64 && m->eq_r;
    if (y != x && (eq || level != LS_MX_LOW)) { /* these work on y in place */
        LSC_CUDA(cudaMemcpyAsync(y, x, (size_t)n * (size_t)c * sizeof(double),
                                 cudaMemcpyDeviceToDevice, s));
        x = y;
    }
    if (eq) /* M = diag(eq_r)^-1 L U diag(eq_c)^-1 */
        LSC_CUDA(lsk_mx_row_mul(n, c, m->eq_r, y, n, s));
    if (level == LS_MX_FP64 || level == MXC_LOW_IN_FP64) {
        int fp64 = level == LS_MX_FP64;
        LSC_TRY(lsc_getrs_device(m->c, 1, 'N', n, c, fp64 ? m->pb.A : m->Ad, fp64 ? m->pb.lda : n,
                                 fp64 ? m->ipiv_d : m->ipiv_s, y, n, err, errlen));
        if (eq)
            LSC_CUDA(lsk_mx_row_mul(n, c, m->eq_c, y, n, s));
        return 0;
    }
    LSC_CUDA(lsk_mx_colmax(n, c, x, n, m->scal, s));
    LSC_CUDA(lsk_mx_d2s_scaled(n, c, x, n, m->scal, m->T, n, s));
    LSC_TRY(lsc_getrs_device(m->c, 0, 'N', n, c, m->As, n, m->ipiv_s, m->T, n, err, errlen));
    /* x is in T by now, so y may be x */
    LSC_CUDA(cudaMemsetAsync(y, 0, (size_t)n * (size_t)c * sizeof(double), s));
    LSC_CUDA(lsk_mx_add_scaled(n, c, m->T, n, m->scal, y, n, s));
    if (eq)
        LSC_CUDA(lsk_mx_row_mul(n, c, m->eq_c, y, n, s));
done:
    return st;
}

static int mxc_ir_step(void *ws, int level, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0, n = m->pb.n, c = m->pb.nrhs;
    if (level == LS_MX_LOW && !m->eq_r) { /* X += scale (LU)^-1 (R / scale), straight into X */
        cudaStream_t s = m->c->stream;
        LSC_CUDA(lsk_mx_colmax(n, c, m->R, n, m->scal, s));
        LSC_CUDA(lsk_mx_d2s_scaled(n, c, m->R, n, m->scal, m->T, n, s));
        LSC_TRY(lsc_getrs_device(m->c, 0, 'N', n, c, m->As, n, m->ipiv_s, m->T, n, err, errlen));
        LSC_CUDA(lsk_mx_add_scaled(n, c, m->T, n, m->scal, m->pb.X, m->pb.ldx, s));
        return 0;
    }
    LSC_TRY(solve_level(m, level, c, m->R, m->R, err, errlen));
    LSC_CUDA(lsk_mx_add(n, c, m->R, n, m->pb.X, m->pb.ldx, m->c->stream));
done:
    return st;
}

static int mxc_gm_start(void *ws, int j, double *beta, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0, n = m->pb.n;
    if (!m->Ad) {
        LSC_TRY(lsc_malloc((void **)&m->Ad, (size_t)n * (size_t)n, sizeof(double), err, errlen));
        LSC_CUDA(lsk_mx_s2d(n, n, m->As, n, m->Ad, n, m->c->stream));
    }
    LSC_TRY(solve_level(m, MXC_LOW_IN_FP64, 1, m->R + (size_t)j * n, m->V, err, errlen));
    LSC_BLAS(cublasDnrm2(m->c->blas, n, m->V, 1, beta)); /* host pointer mode: waits */
    if (*beta > 0 && isfinite(*beta)) {
        double inv = 1.0 / *beta;
        LSC_BLAS(cublasDscal(m->c->blas, n, &inv, m->V, 1));
    }
done:
    return st;
}

static int mxc_gm_step(void *ws, int k, double *h, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0, n = m->pb.n, lda = 0;
    const double *A = orig_A(m, &lda);
    const double one = 1, zero = 0, minus = -1;
    double *vk = m->V + (size_t)k * n, *dh = m->scal + m->pb.nrhs, h2[65];
    cudaStream_t s = m->c->stream;
    LSC_BLAS(cublasDgemv(m->c->blas, CUBLAS_OP_N, n, n, &one, A, lda, m->V + (size_t)(k - 1) * n,
                         1, &zero, vk, 1));
    LSC_TRY(solve_level(m, MXC_LOW_IN_FP64, 1, vk, vk, err, errlen));
    /* classical Gram-Schmidt twice, each pass two matrix-vector products */
    for (int pass = 0; pass < 2; pass++) {
        LSC_BLAS(cublasDgemv(m->c->blas, CUBLAS_OP_T, n, k, &one, m->V, n, vk, 1, &zero, dh, 1));
        LSC_BLAS(cublasDgemv(m->c->blas, CUBLAS_OP_N, n, k, &minus, m->V, n, dh, 1, &one, vk, 1));
        LSC_CUDA(cudaMemcpyAsync(pass ? h2 : h, dh, (size_t)k * sizeof(double),
                                 cudaMemcpyDeviceToHost, s));
    }
    LSC_BLAS(cublasDnrm2(m->c->blas, n, vk, 1, &h[k])); /* waits, the copies above too */
    LSC_CUDA(cudaStreamSynchronize(s));
    for (int i = 0; i < k; i++)
        h[i] += h2[i];
    if (h[k] > 0 && isfinite(h[k])) {
        double inv = 1.0 / h[k];
        LSC_BLAS(cublasDscal(m->c->blas, n, &inv, vk, 1));
    }
done:
    return st;
}

static int mxc_gm_update(void *ws, int j, int k, const double *y, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0, n = m->pb.n;
    const double one = 1;
    double *dy = m->scal + m->pb.nrhs + m->pb.restart + 1;
    LSC_CUDA(cudaMemcpyAsync(dy, y, (size_t)k * sizeof(double), cudaMemcpyHostToDevice,
                             m->c->stream));
    LSC_BLAS(cublasDgemv(m->c->blas, CUBLAS_OP_N, n, k, &one, m->V, n, dy, 1, &one,
                         m->pb.X + (size_t)j * m->pb.ldx, 1));
    /* y is the caller's stack: the copy must be done before it returns */
    LSC_CUDA(cudaStreamSynchronize(m->c->stream));
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

static void mxc_close(void *ws)
{
    cuda_mx *m = ws;
    if (!m)
        return;
    cudaStreamSynchronize(m->c->stream);
    cudaFree(m->As);
    cudaFree(m->Ad);
    cudaFree(m->A0);
    cudaFree(m->R);
    cudaFree(m->V);
    cudaFree(m->T);
    cudaFree(m->ipiv_s);
    cudaFree(m->scal);
    free(m);
}

static const ls_mixed_ops cuda_mx_ops = {mxc_norms,    mxc_factor,   mxc_start,
                                         mxc_residual, mxc_ir_step,  mxc_gm_start,
                                         mxc_gm_step,  mxc_gm_update, mxc_zero_x,
                                         mxc_pivots,   mxc_close,    mxc_factor_used};

/* auto: FP32 for small n, TF32 above; what the device cannot do, by name. */
static int resolve_factor(ls_cuda_ctx *c, ls_mixed_problem *pb, char *err, size_t errlen)
{
    if (pb->factor == LS_FACTOR_AUTO)
        pb->factor = pb->n >= MXC_TF32_MIN_N && c->prop.major >= 8 ? LS_FACTOR_TF32
                                                                   : LS_FACTOR_FP32;
    switch (pb->factor) {
    case LS_FACTOR_FP32:
        return 0;
    case LS_FACTOR_TF32:
    case LS_FACTOR_TF32X3:
    case LS_FACTOR_BF16:
    case LS_FACTOR_FP16: {
        int need = pb->factor == LS_FACTOR_FP16 ? 7 : 8; /* FP16 MMA from Volta, the rest Ampere */
        if (c->prop.major >= need)
            return 0;
        return LSC_FAIL(err, errlen, LS_EUNSUPPORTED,
                        "factor precision %s needs tensor cores of compute capability %d.0 or "
                        "newer; %s is %d.%d",
                        ls_factor_name(pb->factor), need, c->name, c->prop.major, c->prop.minor);
    }
    default:
        return LSC_FAIL(err, errlen, LS_EUNSUPPORTED, "factor precision %d is unknown",
                        (int)pb->factor);
    }
}

int lsc_mixed_open(void *bctx, ls_mixed_problem *pb, const ls_mixed_ops **ops, void **ws,
                   char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0, n = pb->n, nrhs = pb->nrhs, m1 = pb->restart + 1;
    size_t nn = (size_t)n * (size_t)n, need = 0;
    cuda_mx *m = NULL;
    *ops = NULL;
    *ws = NULL;
    LSC_CUDA(cudaSetDevice(c->device));
    int auto_pick = pb->factor == LS_FACTOR_AUTO;
    LSC_TRY(resolve_factor(c, pb, err, errlen));
    LSC_TRY(lsc_need_add(&need, nn, sizeof(float), err, errlen));
    LSC_TRY(lsc_need_add(&need, (size_t)n * (size_t)(nrhs + m1), sizeof(double), err, errlen));
    LSC_TRY(lsc_mem_check(need, "the mixed-precision solve", err, errlen));
    m = calloc(1, sizeof *m);
    if (!m)
        return LSC_FAIL(err, errlen, LS_ENOMEM, "no host memory for the mixed solver");
    m->c = c;
    m->pb = *pb;
    m->auto_pick = auto_pick;
    LSC_TRY(lsc_malloc((void **)&m->As, nn, sizeof(float), err, errlen));
    LSC_TRY(lsc_malloc((void **)&m->R, (size_t)n * (size_t)nrhs, sizeof(double), err, errlen));
    LSC_TRY(lsc_malloc((void **)&m->V, (size_t)n * (size_t)m1, sizeof(double), err, errlen));
    LSC_TRY(lsc_malloc((void **)&m->T, (size_t)n * (size_t)nrhs, sizeof(float), err, errlen));
    /* pivots (low, FP64), info, the range flag and auto's diagonal min/max in one piece */
    LSC_TRY(lsc_malloc((void **)&m->ipiv_s, 2 * (size_t)n + 4, sizeof(int), err, errlen));
    m->ipiv_d = m->ipiv_s + n;
    m->info = m->ipiv_d + n;
    m->flag = m->info + 1;
    /* column scales, GMRES h and y, then the two norms' bits */
    size_t nscal = (size_t)nrhs + 2 * (size_t)m1;
    int eq = pb->factor == LS_FACTOR_FP16 || pb->factor == LS_FACTOR_BF16;
    LSC_TRY(lsc_malloc((void **)&m->scal, nscal + 2 + (eq ? 2 * (size_t)n : 0), sizeof(double),
                       err, errlen));
    m->bits = (unsigned long long *)(m->scal + nscal);
    if (eq) {
        m->eq_r = m->scal + nscal + 2;
        m->eq_c = m->eq_r + n;
    }
    *ops = &cuda_mx_ops;
    *ws = m;
    return 0;
done:
    mxc_close(m);
    return st;
}
