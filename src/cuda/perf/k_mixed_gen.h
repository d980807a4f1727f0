/* Device generators of the mixed-vs-cuSOLVER benchmark (k_mixed_gen.cu). */
#ifndef LS_CUDA_PERF_K_MIXED_GEN_H
#define LS_CUDA_PERF_K_MIXED_GEN_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A (m x n) = independent N(0,1) entries, deterministic in seed. */
cudaError_t lsk_gen_normal(int m, int n, double *A, int lda, unsigned long long seed,
                           cudaStream_t s);
/* Column j of Q (m x n) times cond^(-j/(n-1)): Q diag(s) of randsvd. */
cudaError_t lsk_gen_scale_cols(int m, int n, double *Q, int ldq, double cond, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
