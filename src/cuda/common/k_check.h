/* The fused check of solved systems on the device (k_check.cu), behind
 * ls_check_batched_gpu: one pass over A, B and X per system gives the
 * scaled residual ||B - A X||inf / (n ||A||inf ||X||inf eps) and whether
 * A or B holds NaN or Inf; the worst system and the first non-finite one
 * are reduced on the device into four doubles. */
#ifndef LS_CUDA_K_CHECK_H
#define LS_CUDA_K_CHECK_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One stack of systems: element (i, j) of system s of M is
 * M[s * sM + i * m_rs + j * m_cs]. X NULL: only the finiteness of A and B. */
typedef struct lsk_check_args {
    int n, nrhs, batch;
    const void *A;
    long long a_rs, a_cs, sA;
    const void *B;
    long long b_rs, b_cs, sB;
    const void *X; /* may be NULL */
    long long x_rs, x_cs, sX;
    double eps; /* of the data's precision (ls_eps) */
} lsk_check_args;

/* Device scratch the launch needs, in bytes (at least 16). */
size_t lsk_check_scratch_bytes(const lsk_check_args *g);

/* Queue the check on stream s, with scratch of lsk_check_scratch_bytes
 * (its contents need no initialisation) and out (4 doubles of device
 * memory): out[0] the worst scaled residual (NaN beats every number; 0
 * without X or systems), out[1] that system's index (the first of equal
 * ones; -1 without X or systems), out[2] 1 when some entry of A or B is
 * NaN or Inf, else 0, out[3] the first such system's index or -1.
 * single: the data are float, else double. Returns the launches' error;
 * cudaErrorInvalidConfiguration for a grid beyond CUDA's limit. */
cudaError_t lsk_check(int single, const lsk_check_args *g, void *scratch, double *out,
                      cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
