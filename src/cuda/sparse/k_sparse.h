/* Vector kernels of the sparse Krylov methods on the device (k_sparse.cu).
 * All run on stream s and return the launch's error. A reduction writes
 * one value per block into part (LSK_SP_PARTS doubles per value: value j
 * at part + j LSK_SP_PARTS), then lsk_sp_finish adds (or takes the max
 * of) them in a fixed order into out[j], so results do not depend on
 * timing. */
#ifndef LS_CUDA_K_SPARSE_H
#define LS_CUDA_K_SPARSE_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { LSK_SP_PARTS = 1024 };

/* y = a x + b y; b = 0: y = a x (y's old values are not read). */
cudaError_t lsk_sp_axpby(int64_t n, double a, const double *x, double b, double *y,
                         cudaStream_t s);
/* w = a x + b y */
cudaError_t lsk_sp_waxpby(int64_t n, double a, const double *x, double b, const double *y,
                          double *w, cudaStream_t s);
/* z = d .* r */
cudaError_t lsk_sp_scale(int64_t n, const double *d, const double *r, double *z, cudaStream_t s);
/* x += alpha p, r -= alpha q; part: r . r */
cudaError_t lsk_sp_cg_update(int64_t n, double alpha, const double *p, const double *q,
                             double *x, double *r, double *part, cudaStream_t s);
/* x += alpha p, r -= alpha q, z = d .* r; part: r . r, r . z, z . q */
cudaError_t lsk_sp_cg_step_jacobi(int64_t n, double alpha, const double *p, const double *q,
                                  const double *d, double *x, double *r, double *z, double *part,
                                  cudaStream_t s);
/* p = r + beta (p - omega v) */
cudaError_t lsk_sp_bicg_direction(int64_t n, double beta, double omega, const double *r,
                                  const double *v, double *p, cudaStream_t s);
/* x += alpha phat + omega shat, r = sv - omega t; part: r . r */
cudaError_t lsk_sp_bicg_update(int64_t n, double alpha, double omega, const double *phat,
                               const double *shat, const double *sv, const double *t,
                               double *x, double *r, double *part, cudaStream_t s);
/* r = b - r (r holding A x); part: max |w r| (w NULL: 1; NaN wins) */
cudaError_t lsk_sp_residual(int64_t n, const double *b, const double *w, double *r, double *part,
                            cudaStream_t s);
/* part: sum of (scale w r)^2 (w NULL: 1) */
cudaError_t lsk_sp_sumsq(int64_t n, double scale, const double *w, const double *r, double *part,
                         cudaStream_t s);
/* part: x . y */
cudaError_t lsk_sp_dot(int64_t n, const double *x, const double *y, double *part, cudaStream_t s);
/* part: x . y, u . v */
cudaError_t lsk_sp_dot2(int64_t n, const double *x, const double *y, const double *u,
                        const double *v, double *part, cudaStream_t s);
/* out[j] = the sum (max: the maximum, NaN winning) of value j's parts, j <
 * count, that the last reduction over n values wrote. */
cudaError_t lsk_sp_finish(int64_t n, const double *part, int count, int max, double *out,
                          cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
