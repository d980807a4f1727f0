/* Kernels of the mixed solver's LU without interchanges (k_rbt.cu): the
 * random butterfly transform (core/rbt.h) of A and of vectors, the small
 * diagonal-block LU, the identity matrix and identity pivots. All are
 * launched on stream s and return the launch's error. */
#ifndef LS_CUDA_K_RBT_H
#define LS_CUDA_K_RBT_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest diagonal block lsk_genp_block factors in one launch. */
#define LSK_GENP_MAX 64

/* d_m[l n + i] = ls_rbt_mult(l, i) for the 4 levels (4 n doubles). */
cudaError_t lsk_rbt_mults(int n, double *d_m, cudaStream_t s);
/* S = (float)(U^T diag(d_r) A diag(d_c) V) (n x n; NULL scales: 1);
 * *d_flag = 1 when an entry is beyond FP32's range. */
cudaError_t lsk_rbt_d2s(int n, const double *A, int lda, const double *d_r, const double *d_c,
                        const double *d_m, float *S, int lds, int *d_flag, cudaStream_t s);
/* D = U^T A V in FP64 (n x n, D apart from A). */
cudaError_t lsk_rbt_d2d(int n, const double *A, int lda, const double *d_m, double *D, int ldd,
                        cudaStream_t s);
/* X = U^T X, in place (n x c, FP64). */
cudaError_t lsk_rbt_ut(int n, int c, double *X, int ldx, const double *d_m, cudaStream_t s);
/* X = V X, in place (n x c, FP64). */
cudaError_t lsk_rbt_v(int n, int c, double *X, int ldx, const double *d_m, cudaStream_t s);

/* LU without interchanges of the nb x nb block A (nb <= LSK_GENP_MAX) in
 * one block's shared memory. A zero pivot at local column k sets *d_info =
 * col0 + k + 1 when it is still 0, and its column is left unscaled
 * (LAPACK's getf2 rule). */
#define LSK_GENP_BLOCK_SIG(T, S) \
    cudaError_t lsk_genp_block_##S(int nb, T *A, int lda, int col0, int *d_info, cudaStream_t s)
LSK_GENP_BLOCK_SIG(double, d); /* lsk_genp_block_d */
LSK_GENP_BLOCK_SIG(float, s); /* lsk_genp_block_s */
/* A = I (n x n). */
#define LSK_EYE_SIG(T, S) cudaError_t lsk_eye_##S(int n, T *A, int lda, cudaStream_t s)
LSK_EYE_SIG(double, d); /* lsk_eye_d */
LSK_EYE_SIG(float, s); /* lsk_eye_s */
/* ipiv[i] = i + 1 for i < n: no interchanges, in LAPACK's terms. */
cudaError_t lsk_identity_pivots(int n, int *d_ipiv, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
