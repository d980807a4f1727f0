/* Launchers of k_dist.cu: 0 or a cudaError_t. */
#ifndef LS_DIST_K_DIST_H
#define LS_DIST_K_DIST_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* pack = 1: buf row i = X row drows[i] over the column ranges (c0, nc);
 * pack = 0: the reverse. drows is device memory. */
int ls_dist_k_rows(int dbl, void *X, long long ldx, int nranges, const int *c0, const int *nc,
                   int nrows, const int *drows, void *buf, int pack, cudaStream_t s);
/* X(ddst[i], c) = old X(dsrc[i], c) over the column ranges, in place;
 * ddst and dsrc (device memory) hold the same rows. nrows entries must fit
 * LS_DIST_K_MOVE_SMEM bytes (cudaErrorInvalidValue otherwise); sms, the
 * device's SM count, sizes the grid. regs: up to 2048 rows by the
 * block-wide kernel of cuda/common/k_row_moves.cuh (more: a block per
 * column through shared memory, as regs = 0). */
#define LS_DIST_K_MOVE_SMEM (48 * 1024)
int ls_dist_k_move(int dbl, void *X, long long ldx, int nranges, const int *c0, const int *nc,
                   int nrows, const int *ddst, const int *dsrc, int sms, int regs,
                   cudaStream_t s);
/* x /= pivot, entry by entry */
int ls_dist_k_div(int dbl, int n, double pivot, void *x, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
