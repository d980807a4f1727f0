/* The factor operation of the mixed-precision solver on the device
 * (lsc_mx_factor, the ops table's factor slot, and lsc_mx_factor_used): the
 * low-precision factors (FP32 copy of A by our LU, its trailing GEMMs in
 * FP32, TF32 or the split tensor-core precisions of mixed_lu.c; FP64 factors
 * without interchanges of the butterfly-transformed A), auto's escalation
 * from TF32 to FP32, and the FP64 fallback's factorization. Kept apart
 * from the refinement steps (mixed_refine.c), which only apply the factors
 * made here. */
#include <string.h>

#include "core/knobs.h"
#include "algo/mixed.h"
#include "cuda/common/cuda_backend.h"
#include "cuda/mixed/k_mixed.h"
#include "cuda/mixed/genp.h"
#include "cuda/mixed/k_rbt.h"
#include "cuda/mixed/mixed_cuda.h"
#include "cuda/mixed/mixed_internal.h"

/* auto's cheap conditioning estimate: when max|u_ii| / min|u_ii| of the TF32
 * factors times TF32's unit roundoff (2^-11) exceeds the tuning row's
 * mx_escalate, refinement would crawl, and auto factors again in FP32 (our
 * LU, the fastest accurate low-precision factorization we have). A
 * heuristic: U's diagonal spread is a lower estimate of cond(A). */

/* The FP64 factorization's panel width (LS_CUDA_MIXED_NB overrides): wider
 * panels mean fewer diagonal blocks on the critical path and larger GEMMs
 * (H100, n = 16384: 139.8 / 113.4 / 104.5 ms at 128 / 256 / 512). */
static int genp_nb(int n)
{
    long long nb = ls_knob_int(LS_KNOB_CUDA_MIXED_NB); /* 0: unset */
    return nb > 0 ? (int)nb : n < 8192 ? 256 : n < 24576 ? 512 : 1024;
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
    if (m->h_int[0] != 0 || !(lo > 0) || (double)hi / (double)lo * 0x1p-11 <= m->c->tune->mx_escalate)
        return 0; /* a zero pivot is the fallback's business; else TF32 will do */
    m->pb.factor = LS_FACTOR_FP32;
    LSC_CUDA(cudaMemsetAsync(m->info, 0, sizeof(int), s));
    LSC_CUDA(lsk_mx_d2s_eq(n, n, m->pb.A, m->pb.lda, NULL, NULL, m->As, n, m->flag, s));
    st = lsc_getrf_device_s(m->c, n, n, m->As, n, m->ipiv_s, m->info, err, errlen);
done:
    return st;
}

ls_factor_prec lsc_mx_factor_used(void *ws)
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

int lsc_mx_factor(void *ws, int level, int *info, int *kept, char *err, size_t errlen)
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
            LSC_TRY(lsc_mx_ws_grow_ad(m, 0, err, errlen));
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
        if (lsc_mx_ws_grow_ad(m, 1, why, sizeof why)) {
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
