/* LU without interchanges on the device (genp.c). */
#ifndef LS_CUDA_GENP_H
#define LS_CUDA_GENP_H

#include <stddef.h>

struct ls_cuda_ctx;

/* The jb x jb diagonal block at (j0, j0) of A, in place, on c->stream; a
 * zero pivot sets *d_info (1-based column) when it is still 0. */
#define LSC_GENP_DIAG_SIG(T, S)                                                                \
    int lsc_genp_diag_##S(struct ls_cuda_ctx *c, T *A, int lda, int j0, int jb, int *d_info, \
                          char *err, size_t errlen)
/* A = L U (n x n, panels of nb); d_ipiv = the identity; d_info as above. */
#define LSC_GENP_LU_SIG(T, S)                                                                 \
    int lsc_genp_lu_##S(struct ls_cuda_ctx *c, int n, T *A, int lda, int nb, int *d_ipiv,    \
                        int *d_info, char *err, size_t errlen)
LSC_GENP_DIAG_SIG(double, d); /* lsc_genp_diag_d */
LSC_GENP_DIAG_SIG(float, s); /* lsc_genp_diag_s */
LSC_GENP_LU_SIG(double, d); /* lsc_genp_lu_d */
LSC_GENP_LU_SIG(float, s); /* lsc_genp_lu_s */

#endif
