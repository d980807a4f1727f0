/* Kernels of the mixed-precision solver (k_mixed.cu): precision
 * conversions with scaling, norms and updates on column-major blocks. All
 * are launched on stream s and return the launch's error. */
#ifndef LS_CUDA_K_MIXED_H
#define LS_CUDA_K_MIXED_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* S = (float)A (m x n); *d_flag = 1 when an entry is beyond FP32's range. */
cudaError_t lsk_mx_d2s(int m, int n, const double *A, int lda, float *S, int lds, int *d_flag,
                       cudaStream_t s);
/* D = (double)S (m x n). */
cudaError_t lsk_mx_s2d(int m, int n, const float *S, int lds, double *D, int ldd, cudaStream_t s);
/* d_max[j] = max_i |R(i,j)| (NaN wins), j < n. */
cudaError_t lsk_mx_colmax(int m, int n, const double *R, int ldr, double *d_max, cudaStream_t s);
/* T = (float)(R(:,j) / d_max[j]) (d_max[j] 0 or not finite: 1). */
cudaError_t lsk_mx_d2s_scaled(int m, int n, const double *R, int ldr, const double *d_max,
                              float *T, int ldt, cudaStream_t s);
/* X(:,j) += d_max[j] * T(:,j) (the scale of lsk_mx_d2s_scaled undone). */
cudaError_t lsk_mx_add_scaled(int m, int n, const float *T, int ldt, const double *d_max,
                              double *X, int ldx, cudaStream_t s);
/* X += D (m x n, FP64). */
cudaError_t lsk_mx_add(int m, int n, const double *D, int ldd, double *X, int ldx,
                       cudaStream_t s);
/* *d_bits = max(*d_bits, bits of max_i sum_j |M(i,j)|): the inf-norm as the
 * bits of a non-negative double (NaN's bits beat every number's). The
 * caller zeroes *d_bits first. */
cudaError_t lsk_mx_norm_inf(int m, int n, const double *M, int ldm,
                            unsigned long long *d_bits, cudaStream_t s);
/* The same with m doubles of scratch, for a wide M: column chunks summed
 * by many blocks at once instead of one thread walking a whole row. */
cudaError_t lsk_mx_norm_inf_wide(int m, int n, const double *M, int ldm, double *d_scratch,
                                 unsigned long long *d_bits, cudaStream_t s);

/* ---- equilibration and the low-precision LU (mixed_lu.c) ---- */
/* d_r[i] = 2^-e with 2^e nearest max_j |A(i,j)| (1 for a zero row). */
cudaError_t lsk_mx_row_scale(int m, int n, const double *A, int lda, double *d_r,
                             cudaStream_t s);
/* d_c[j] = 2^-e with 2^e nearest max_i |d_r[i] A(i,j)| (1 for a zero column). */
cudaError_t lsk_mx_col_scale(int m, int n, const double *A, int lda, const double *d_r,
                             double *d_c, cudaStream_t s);
/* S = (float)(d_r[i] A(i,j) d_c[j]) (NULL scales: 1); *d_flag = 1 for an
 * entry beyond FP32's range. */
cudaError_t lsk_mx_d2s_eq(int m, int n, const double *A, int lda, const double *d_r,
                          const double *d_c, float *S, int lds, int *d_flag, cudaStream_t s);
/* X(i,j) *= d_v[i] (m x n, FP64). */
cudaError_t lsk_mx_row_mul(int m, int n, const double *d_v, double *X, int ldx, cudaStream_t s);
/* Panel pivots k0..k1-1 from panel-relative to absolute (+ k0); *d_info =
 * *d_pinfo + k0 where *d_info is 0 and the panel found a zero pivot. */
cudaError_t lsk_mx_fold_panel(int k0, int k1, int *d_ipiv, const int *d_pinfo, int *d_info,
                              cudaStream_t s);
/* The operands of a low-precision GEMM from an FP32 block (m x n):
 * kind 0: hi = tf32(S), lo = tf32(S - hi) (FP32 storage);
 * kind 1: hi = (half)(S * scale); kind 2: hi = (bfloat16)(S * scale); lo unused.
 * hi and lo are packed m x n (ld m). */
cudaError_t lsk_mx_split(int kind, int m, int n, const float *S, int lds, float scale, void *hi,
                         void *lo, cudaStream_t s);
/* The split-TF32 operands of one GEMM with k tripled: S (m x n, FP32)
 * becomes three parts of tf32 values at out + p * part (ld ldo), the low
 * part (S - hi) at part index lo_at and the high part at the other two.
 * L = [lo hi hi] (lo_at 0, parts side by side) and U = [hi; lo; hi]
 * (lo_at 1, parts stacked) make L U = lo*hi + hi*lo + hi*hi. */
cudaError_t lsk_mx_split3(int m, int n, const float *S, int lds, float *out, int ldo,
                          size_t part, int lo_at, cudaStream_t s);

/* *d_max = max |S(i,j)| over an m x n FP32 block, as float bits (caller zeroes). */
cudaError_t lsk_mx_absmax_f(int m, int n, const float *S, int lds, unsigned *d_max,
                            cudaStream_t s);

/* d_mm[0] = bits of min_i |A(i,i)|, d_mm[1] = bits of max_i |A(i,i)| over
 * n diagonal entries of an FP32 matrix; the caller sets d_mm[0] to +Inf's
 * bits (0x7f800000) and d_mm[1] to 0 first. */
cudaError_t lsk_mx_diag_minmax(int n, const float *A, int lda, unsigned *d_mm, cudaStream_t s);

/* *d_out = ||v||2 (n doubles, scaled so that it neither overflows nor
 * underflows; NaN when v holds one), then v /= *d_out when that is finite
 * and > 0: GMRES's normalisation without a host round trip. */
cudaError_t lsk_mx_nrm2_scale(int n, double *v, double *d_out, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
