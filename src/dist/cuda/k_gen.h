/* Launchers of k_gen.cu: 0 or a cudaError_t. The random matrix of
 * `linsolve gen random` (ls_generate_block's LS_GEN_RANDOM entries, bit for
 * bit) made on the device, so the benchmark's peer needs no host copy of A. */
#ifndef LS_DIST_K_GEN_H
#define LS_DIST_K_GEN_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device d's share of a 1-D column block-cyclic layout over g devices: local
 * column lj holds global column ((lj / nb) * g + d) * nb + lj % nb, all n
 * rows, leading dimension lda; local columns past n are left alone. */
int ls_dist_k_gen_random_cols(int n, int nb, int g, int d, long long ncols, double *A,
                              long long lda, unsigned long long seed, cudaStream_t s);
/* b[i] = sum_j a_ij and abssum[i] = sum_j |a_ij|, each summed over j in
 * increasing order, as the host sums A * ones. */
int ls_dist_k_gen_random_rowsums(int n, unsigned long long seed, double *b, double *abssum,
                                 cudaStream_t s);
/* r[i] = b[i] - sum_j a_ij x[j] (x, b, r device vectors of n) */
int ls_dist_k_gen_random_residual(int n, unsigned long long seed, const double *x,
                                  const double *b, double *r, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
