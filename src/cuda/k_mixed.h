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

#ifdef __cplusplus
}
#endif
#endif
