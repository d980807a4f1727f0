/* The mixed-precision solver's operations on the device (algo/mixed.h):
 * an FP32 copy of A factored by our LU (lsc_getrf_device) with its
 * trailing GEMMs in FP32 or on TF32 tensor cores, FP64 residuals with
 * cuBLAS, GMRES vectors on the device. Everything is queued on the
 * context's stream; what comes back to the host is scalars (norms, info,
 * GMRES coefficients), never a vector: one small copy and one wait per
 * refinement step or GMRES step. The device buffers live in the context
 * (c->mixed_ws, grow-only) so that repeated solves neither allocate nor
 * free, and the factorization's CUDA graph (lu_graph.c) finds the same
 * pointers again. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"
#include "algo/mixed.h"
#include "cuda/common/cuda_backend.h"
#include "cuda/mixed/k_mixed.h"
#include "cuda/mixed/genp.h"
#include "cuda/mixed/k_rbt.h"
#include "cuda/mixed/mixed_cuda.h"

/* auto picks FP32 factors at every order by default. Measured on an H100
 * (bench/notes/mixed-cuda.md): our LU is bound by its panel chain, not by
 * the trailing GEMMs, up to n ~ 32768 (FP32 13.4 / 37.0 / 139 ms against
 * FP64 15.2 / 41.4 / 147 ms at n = 4096 / 8192 / 16384), so TF32 GEMMs
 * shorten it little, while TF32 factors need 18-30 GMRES-IR steps where
 * FP32 needs 2-4 IR steps. LS_CUDA_MIXED_TF32_MIN_N=N makes auto pick TF32
 * from order N on (to measure where, if anywhere, it pays). */
/* auto picks the butterfly transform and FP64 factors without interchanges
 * from this order (LS_CUDA_MIXED_RBT_MIN_N overrides). Measured on an H100
 * (bench/notes/mixed-cuda.md): 1.36-1.66x cuSOLVER's dgetrf at 1024-8192,
 * 1.3-1.4x at 16384, with the first solve already passing the FP64 test
 * up to cond 1e10. In FP32 or TF32 the same factorization's growth times
 * the roundoff times cond(A) passes 1 from n ~ 8192, and refinement falls
 * back; partial pivoting's panel chain keeps those at ~1x. */
#define MXC_RBT_MIN_N 1024
_Static_assert(MXC_RBT_MIN_N == LS_KNOB_DEFAULT_CUDA_MIXED_RBT_MIN_N,
               "the knob's default (core/knob_table.h) is this measured order");
/* auto's cheap conditioning estimate: when max|u_ii| / min|u_ii| of the TF32
 * factors times TF32's unit roundoff (2^-11) exceeds this, refinement would
 * crawl, and auto factors again in FP32 (our LU, the fastest accurate
 * low-precision factorization we have). A heuristic: U's diagonal spread is
 * a lower estimate of cond(A). */
#define MXC_ESCALATE 1.0
/* The low solve in FP64 arithmetic on the low factors (GMRES-IR): GMRES
 * needs M^-1 A applied accurately, which FP32 triangular solves are not
 * once cond(A) u32 nears 1. */
#define MXC_LOW_IN_FP64 2

/* The FP64 factorization's panel width (LS_CUDA_MIXED_NB overrides): wider
 * panels mean fewer diagonal blocks on the critical path and larger GEMMs
 * (H100, n = 16384: 139.8 / 113.4 / 104.5 ms at 128 / 256 / 512). */
static int genp_nb(int n)
{
    long long nb = ls_knob_int(LS_KNOB_CUDA_MIXED_NB); /* 0: unset */
    return nb > 0 ? (int)nb : n < 8192 ? 256 : n < 24576 ? 512 : 1024;
}

/* The buffers kept in the context between solves; each only grows. */
struct lsc_mixed_ws {
    float *As;    /* low-precision factors (FP32 storage), n x n */
    double *Ad;   /* n x n: the low factors in FP64 (GMRES-IR), or the copy
                   * of A the residuals read once A holds the FP64 factors */
    double *vec;  /* R, V, T, scales, GMRES h and y, norm bits, equilibration */
    int *iw;      /* pivots (low, FP64), info, range flag, diagonal min/max */
    double *host; /* scalars read back (pinned when the runtime allows) */
    size_t as_bytes, ad_bytes, vec_bytes, iw_bytes, host_bytes;
    int host_pinned;
};

typedef struct cuda_mx {
    ls_cuda_ctx *c;
    struct lsc_mixed_ws *w;
    ls_mixed_problem pb;
    float *As;      /* w->As */
    double *Ad;     /* w->Ad once it holds the low factors in FP64, else NULL */
    double *A0;     /* w->Ad once it holds the original A, else NULL */
    double *R, *V;  /* n x nrhs; n x (restart + 1) */
    float *T;       /* n x nrhs */
    int *ipiv_s, *ipiv_d, *info, *flag; /* low pivots, FP64 pivots, info, range flag */
    unsigned *mm;   /* auto's diagonal min and max (float bits) */
    double *scal;   /* column scales (nrhs) */
    double *gh;     /* GMRES: two Gram-Schmidt passes' coefficients and the norm (2 m1 + 1) */
    double *gy;     /* GMRES: y (m1) */
    double *eq_r, *eq_c; /* fp16 / bf16: A was factored as diag(eq_r) A diag(eq_c) */
    double *rbt_m;       /* rbt: the butterflies' multipliers (4 n), else NULL */
    int nopiv;           /* rbt or none: LU without interchanges */
    int auto_pick;       /* the caller asked for auto: tf32 may escalate to fp32 */
    unsigned long long *bits; /* two norms */
    /* host side of the read-backs (w->host) */
    unsigned long long *h_bits; /* 2 */
    int *h_int;                 /* info, flag, diagonal min, max */
    double *h_h, *h_y;          /* 2 m1 + 1; m1 */
} cuda_mx;

static void ws_host_free(struct lsc_mixed_ws *w)
{
    if (w->host_pinned)
        cudaFreeHost(w->host);
    else
        free(w->host);
    w->host = NULL;
    w->host_bytes = 0;
    w->host_pinned = 0;
}

void lsc_mixed_ws_free(ls_cuda_ctx *c)
{
    struct lsc_mixed_ws *w = c ? c->mixed_ws : NULL;
    if (!w)
        return;
    cudaFree(w->As);
    cudaFree(w->Ad);
    cudaFree(w->vec);
    cudaFree(w->iw);
    ws_host_free(w);
    free(w);
    c->mixed_ws = NULL;
}

/* *p holds at least bytes afterwards (its contents are not kept). */
static int ws_grow(void **p, size_t *have, size_t bytes, char *err, size_t errlen)
{
    if (*p && *have >= bytes)
        return 0;
    cudaFree(*p);
    *p = NULL;
    *have = 0;
    int st = lsc_malloc(p, bytes, 1, err, errlen);
    if (st == 0)
        *have = bytes;
    return st;
}

static int ws_grow_host(struct lsc_mixed_ws *w, size_t bytes, char *err, size_t errlen)
{
    if (w->host && w->host_bytes >= bytes)
        return 0;
    ws_host_free(w);
    if (cudaMallocHost((void **)&w->host, bytes) == cudaSuccess) {
        w->host_pinned = 1;
    } else { /* pageable works too, the copies just wait */
        (void)cudaGetLastError();
        w->host = malloc(bytes);
        if (!w->host)
            return LSC_FAIL(err, errlen, LS_ENOMEM, "no host memory for the mixed solver");
    }
    w->host_bytes = bytes;
    return 0;
}

/* The FP64 n x n buffer; when the device is full and the low factors are
 * done with (fallback), their buffer is given up first. */
static int ws_grow_ad(cuda_mx *m, int may_drop_low, char *err, size_t errlen)
{
    struct lsc_mixed_ws *w = m->w;
    size_t bytes = (size_t)m->pb.n * (size_t)m->pb.n * sizeof(double);
    int st = ws_grow((void **)&w->Ad, &w->ad_bytes, bytes, err, errlen);
    if (st == LS_EDEVMEM && may_drop_low && w->As) {
        (void)cudaGetLastError();
        cudaFree(w->As);
        w->As = NULL;
        w->as_bytes = 0;
        m->As = NULL;
        st = ws_grow((void **)&w->Ad, &w->ad_bytes, bytes, err, errlen);
    }
    return st;
}

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

static int split_factor(ls_factor_prec f)
{
    return f == LS_FACTOR_TF32X3 || f == LS_FACTOR_BF16 || f == LS_FACTOR_FP16;
}

/* auto, after the TF32 factorization: U's diagonal spread as a cheap
 * estimate of cond(A); too large for TF32's refinement -> FP32 instead. */
static int maybe_escalate(cuda_mx *m, char *err, size_t errlen)
{
    int st = 0, n = m->pb.n;
    float lo = 0, hi = 0;
    cudaStream_t s = m->c->stream;
    m->h_int[2] = 0x7f800000; /* +Inf's bits, and 0 */
    m->h_int[3] = 0;
    LSC_CUDA(cudaMemcpyAsync(m->mm, &m->h_int[2], 2 * sizeof(int), cudaMemcpyHostToDevice, s));
    LSC_CUDA(lsk_mx_diag_minmax(n, m->As, n, m->mm, s));
    /* info and the flag sit before mm: one copy back */
    LSC_CUDA(cudaMemcpyAsync(m->h_int, m->info, 4 * sizeof(int), cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaStreamSynchronize(s));
    memcpy(&lo, &m->h_int[2], sizeof lo);
    memcpy(&hi, &m->h_int[3], sizeof hi);
    if (m->h_int[0] != 0 || !(lo > 0) || (double)hi / (double)lo * 0x1p-11 <= MXC_ESCALATE)
        return 0; /* a zero pivot is the fallback's business; else TF32 will do */
    m->pb.factor = LS_FACTOR_FP32;
    LSC_CUDA(cudaMemsetAsync(m->info, 0, sizeof(int), s));
    LSC_CUDA(lsk_mx_d2s_eq(n, n, m->pb.A, m->pb.lda, NULL, NULL, m->As, n, m->flag, s));
    st = lsc_getrf_device_s(m->c, n, n, m->As, n, m->ipiv_s, m->info, err, errlen);
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
    if (m->nopiv || split_factor(m->pb.factor))
        return lsc_mixed_lu(m->c, m->pb.factor, m->nopiv, n, m->As, n, m->ipiv_s, m->info, err,
                            errlen);
    cublasMath_t before = CUBLAS_DEFAULT_MATH;
    LSC_BLAS(cublasGetMathMode(m->c->blas, &before));
    if (m->pb.factor == LS_FACTOR_TF32)
        LSC_BLAS(cublasSetMathMode(m->c->blas, CUBLAS_TF32_TENSOR_OP_MATH));
    st = lsc_getrf_device_s(m->c, n, n, m->As, n, m->ipiv_s, m->info, err, errlen);
    cublasSetMathMode(m->c->blas, before);
    if (st == 0 && m->auto_pick && m->pb.factor == LS_FACTOR_TF32)
        st = maybe_escalate(m, err, errlen);
done:
    return st;
}

static int mxc_factor(void *ws, int level, int *info, int *kept, char *err, size_t errlen)
{
    cuda_mx *m = ws;
    int st = 0, n = m->pb.n;
    cudaStream_t s = m->c->stream;
    *info = 0;
    *kept = 1;
    if (level == LS_MX_LOW) {
        LSC_CUDA(cudaMemsetAsync(m->info, 0, 2 * sizeof(int), s)); /* info and the flag */
        if (m->eq_r) { /* powers of two: no rounding, and FP16 cannot overflow */
            LSC_CUDA(lsk_mx_row_scale(n, n, m->pb.A, m->pb.lda, m->eq_r, s));
            LSC_CUDA(lsk_mx_col_scale(n, n, m->pb.A, m->pb.lda, m->eq_r, m->eq_c, s));
        }
        if (m->pb.factor == LS_FACTOR_FP64) { /* A' = U^T A V (or A) in w->Ad, factored there */
            LSC_TRY(ws_grow_ad(m, 0, err, errlen));
            m->Ad = m->w->Ad;
            if (m->rbt_m) {
                LSC_CUDA(lsk_rbt_mults(n, m->rbt_m, s));
                LSC_CUDA(lsk_rbt_d2d(n, m->pb.A, m->pb.lda, m->rbt_m, m->Ad, n, s));
            } else {
                LSC_CUDA(cudaMemcpy2DAsync(m->Ad, (size_t)n * sizeof(double), m->pb.A,
                                           (size_t)m->pb.lda * sizeof(double),
                                           (size_t)n * sizeof(double), (size_t)n,
                                           cudaMemcpyDeviceToDevice, s));
            }
            LSC_TRY(lsc_genp_lu_d(m->c, n, m->Ad, n, genp_nb(n), m->ipiv_s, m->info, err,
                                  errlen));
        } else if (m->rbt_m) { /* A' = U^T A V, rounded once */
            LSC_CUDA(lsk_rbt_mults(n, m->rbt_m, s));
            LSC_CUDA(lsk_rbt_d2s(n, m->pb.A, m->pb.lda, m->eq_r, m->eq_c, m->rbt_m, m->As, n,
                                 m->flag, s));
        } else {
            LSC_CUDA(lsk_mx_d2s_eq(n, n, m->pb.A, m->pb.lda, m->eq_r, m->eq_c, m->As, n,
                                   m->flag, s));
        }
        if (m->pb.factor != LS_FACTOR_FP64) {
            LSC_CUDA(cudaMemcpyAsync(&m->h_int[1], m->flag, sizeof(int), cudaMemcpyDeviceToHost,
                                     s));
            LSC_CUDA(cudaStreamSynchronize(s));
            if (m->h_int[1]) {
                *info = LS_MX_INFO_RANGE;
                return 0;
            }
            LSC_TRY(factor_low(m, err, errlen));
        }
    } else {
        /* the copy of A goes where the FP64 low factors were (GMRES-IR is
         * over); the FP32 factors' buffer is given up if the device is full */
        m->Ad = NULL;
        char why[LS_ERRLEN];
        if (ws_grow_ad(m, 1, why, sizeof why)) {
            (void)cudaGetLastError(); /* no room for the copy: no residual check, said */
            *kept = 0;
        } else {
            m->A0 = m->w->Ad;
            LSC_CUDA(cudaMemcpy2DAsync(m->A0, (size_t)n * sizeof(double), m->pb.A,
                                       (size_t)m->pb.lda * sizeof(double),
                                       (size_t)n * sizeof(double), (size_t)n,
                                       cudaMemcpyDeviceToDevice, s));
        }
        LSC_CUDA(cudaMemsetAsync(m->info, 0, sizeof(int), s));
        LSC_TRY(lsc_getrf_device_d(m->c, n, n, m->pb.A, m->pb.lda, m->ipiv_d, m->info, err,
                                   errlen));
    }
    LSC_CUDA(cudaMemcpyAsync(&m->h_int[0], m->info, sizeof(int), cudaMemcpyDeviceToHost, s));
    LSC_CUDA(cudaStreamSynchronize(s));
    *info = m->h_int[0];
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
        LSC_TRY(ws_grow_ad(m, 0, err, errlen));
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

static const ls_mixed_ops cuda_mx_ops = {mxc_norms,    mxc_factor,   mxc_start,
                                         mxc_residual, mxc_ir_step,  mxc_gm_start,
                                         mxc_gm_step,  mxc_gm_update, mxc_zero_x,
                                         mxc_pivots,   mxc_close,    mxc_factor_used};

/* The order from which auto picks TF32 (LS_CUDA_MIXED_TF32_MIN_N; 0 and
 * unset: INT_MAX, never). */
static int tf32_min_n(void)
{
    long long v = ls_knob_int(LS_KNOB_CUDA_MIXED_TF32_MIN_N);
    return v > 0 ? (int)v : INT_MAX;
}

/* The order from which auto picks rbt (LS_CUDA_MIXED_RBT_MIN_N, by default
 * MXC_RBT_MIN_N; 0: INT_MAX, never). */
static int rbt_min_n(void)
{
    long long v = ls_knob_int(LS_KNOB_CUDA_MIXED_RBT_MIN_N);
    return v > 0 ? (int)v : INT_MAX;
}

/* pivot auto: rbt from rbt_min_n(), else partial; factor auto: FP64 without
 * interchanges, else FP32, or TF32 from tf32_min_n(); what the device
 * cannot do, by name. */
static int resolve_factor(ls_cuda_ctx *c, ls_mixed_problem *pb, char *err, size_t errlen)
{
    if (pb->pivot == LS_PIVOT_AUTO)
        pb->pivot = pb->n >= rbt_min_n() &&
                            (pb->factor == LS_FACTOR_AUTO || pb->factor == LS_FACTOR_FP64)
                        ? LS_PIVOT_RBT
                        : LS_PIVOT_PARTIAL;
    if (pb->pivot != LS_PIVOT_PARTIAL && pb->pivot != LS_PIVOT_RBT && pb->pivot != LS_PIVOT_NONE)
        return LSC_FAIL(err, errlen, LS_EUNSUPPORTED, "pivoting %d is unknown", (int)pb->pivot);
    if (pb->factor == LS_FACTOR_AUTO && pb->pivot != LS_PIVOT_PARTIAL)
        pb->factor = LS_FACTOR_FP64;
    if (pb->factor == LS_FACTOR_AUTO)
        pb->factor = pb->n >= tf32_min_n() && c->prop.major >= 8 ? LS_FACTOR_TF32
                                                                 : LS_FACTOR_FP32;
    switch (pb->factor) {
    case LS_FACTOR_FP32:
        return 0;
    case LS_FACTOR_FP64:
        if (pb->pivot != LS_PIVOT_PARTIAL)
            return 0;
        return LSC_FAIL(err, errlen, LS_EUNSUPPORTED,
                        "factor precision fp64 is for factors without interchanges (pivot rbt "
                        "or none); with partial pivoting use the FP64 solver (ls_dgesv)");
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

/* -arg unless p is device memory of this context's GPU (managed counts): a
 * kernel reading host memory would fault and leave the CUDA context
 * unusable for every later call. */
static int need_device(const ls_cuda_ctx *c, const void *p, int arg, const char *name,
                       char *err, size_t errlen)
{
    struct cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        a.type = cudaMemoryTypeHost;
    }
    if (a.type == cudaMemoryTypeManaged || (a.type == cudaMemoryTypeDevice && a.device == c->device))
        return 0;
    return LSC_FAIL(err, errlen, -arg, "argument %d (%s) is %s, not device memory of %s", arg,
                    name, a.type == cudaMemoryTypeDevice ? "memory of another GPU" : "host memory",
                    c->name);
}

/* Carve the context's buffers for this problem, growing them as needed. */
static int carve(cuda_mx *m, size_t as_bytes, char *err, size_t errlen)
{
    int st = 0, n = m->pb.n, nrhs = m->pb.nrhs, m1 = m->pb.restart + 1;
    struct lsc_mixed_ws *w = m->w;
    size_t nv = 0, nt = ((size_t)n * (size_t)nrhs + 1) / 2; /* T's floats, in doubles */
    /* R, V, T, scales, gh, gy, the norms' bits, the two equilibration vectors */
    LSC_TRY(lsc_need_add(&nv, (size_t)n * (size_t)nrhs, sizeof(double), err, errlen));
    LSC_TRY(lsc_need_add(&nv, (size_t)n * (size_t)m1, sizeof(double), err, errlen));
    LSC_TRY(lsc_need_add(&nv, nt, sizeof(double), err, errlen));
    LSC_TRY(lsc_need_add(&nv, (size_t)nrhs + 3 * (size_t)m1 + 3 + 6 * (size_t)n, sizeof(double),
                         err, errlen));
    st = ws_grow((void **)&w->As, &w->as_bytes, as_bytes, err, errlen);
    if (st == LS_EDEVMEM && w->Ad) { /* the FP64 buffer is made again when needed */
        (void)cudaGetLastError();
        cudaFree(w->Ad);
        w->Ad = NULL;
        w->ad_bytes = 0;
        st = ws_grow((void **)&w->As, &w->as_bytes, as_bytes, err, errlen);
    }
    if (st)
        goto done;
    LSC_TRY(ws_grow((void **)&w->vec, &w->vec_bytes, nv, err, errlen));
    LSC_TRY(ws_grow((void **)&w->iw, &w->iw_bytes, (2 * (size_t)n + 4) * sizeof(int), err,
                    errlen));
    LSC_TRY(ws_grow_host(w, (4 + 3 * (size_t)m1 + 1) * sizeof(double), err, errlen));
    m->As = w->As;
    m->R = w->vec;
    m->V = m->R + (size_t)n * nrhs;
    m->T = (float *)(m->V + (size_t)n * m1);
    m->scal = (double *)m->T + nt;
    m->gh = m->scal + nrhs;
    m->gy = m->gh + 2 * (size_t)m1 + 1;
    m->bits = (unsigned long long *)(m->gy + m1);
    if (m->pb.factor == LS_FACTOR_FP16 || m->pb.factor == LS_FACTOR_BF16) {
        m->eq_r = (double *)(m->bits + 2);
        m->eq_c = m->eq_r + n;
    }
    if (m->pb.pivot == LS_PIVOT_RBT)
        m->rbt_m = (double *)(m->bits + 2) + 2 * (size_t)n;
    m->nopiv = m->pb.pivot != LS_PIVOT_PARTIAL;
    m->ipiv_s = w->iw;
    m->ipiv_d = m->ipiv_s + n;
    m->info = m->ipiv_d + n;
    m->flag = m->info + 1;
    m->mm = (unsigned *)(m->flag + 1);
    m->h_bits = (unsigned long long *)w->host;
    m->h_int = (int *)(w->host + 2);
    m->h_h = w->host + 4;
    m->h_y = m->h_h + 2 * (size_t)m1 + 1;
done:
    return st;
}

int lsc_mixed_open(void *bctx, ls_mixed_problem *pb, const ls_mixed_ops **ops, void **ws,
                   char *err, size_t errlen)
{
    ls_cuda_ctx *c = (ls_cuda_ctx *)bctx;
    int st = 0, n = pb->n;
    size_t as_bytes = 0, ad_bytes = 0;
    cuda_mx *m = NULL;
    *ops = NULL;
    *ws = NULL;
    LSC_CUDA(cudaSetDevice(c->device));
    LSC_TRY(need_device(c, pb->A, 3, "A", err, errlen));
    LSC_TRY(need_device(c, pb->B, 6, "B", err, errlen));
    LSC_TRY(need_device(c, pb->X, 8, "X", err, errlen));
    int auto_pick = pb->factor == LS_FACTOR_AUTO;
    LSC_TRY(resolve_factor(c, pb, err, errlen));
    LSC_TRY(lsc_need_add(&as_bytes, pb->factor == LS_FACTOR_FP64 ? 1 : (size_t)n * (size_t)n,
                         sizeof(float), err, errlen));
    LSC_TRY(lsc_need_add(&ad_bytes, (size_t)n * (size_t)n, sizeof(double), err, errlen));
    if (!c->mixed_ws && !(c->mixed_ws = calloc(1, sizeof *c->mixed_ws)))
        return LSC_FAIL(err, errlen, LS_ENOMEM, "no host memory for the mixed solver");
    m = calloc(1, sizeof *m);
    if (!m)
        return LSC_FAIL(err, errlen, LS_ENOMEM, "no host memory for the mixed solver");
    m->c = c;
    m->w = c->mixed_ws;
    m->pb = *pb;
    m->auto_pick = auto_pick;
    LSC_TRY(carve(m, as_bytes, err, errlen));
    *ops = &cuda_mx_ops;
    *ws = m;
    return 0;
done:
    free(m);
    return st;
}
