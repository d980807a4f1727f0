/*
 * The CUDA backend's sparse slots (core/backend.h): the Krylov methods'
 * vector operations on the device (sparse_krylov.c: cuSPARSE SpMV and
 * triangular solves, cuBLAS, k_sparse.cu) and the sparse direct solver
 * (sparse_direct.c: NVIDIA cuDSS, when the build found it).
 */
#ifndef LS_CUDA_SPARSE_CUDA_H
#define LS_CUDA_SPARSE_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include "algo/krylov.h"
#include "linsolve.h"

int lsc_csr_krylov_open(void *bctx, const struct ls_krylov_sys *s, struct ls_kr_ops *ops,
                        char *err, size_t errlen);
void lsc_csr_krylov_close(void *ops_ctx);

/* Defined only when LS_HAVE_CUDSS: returns 0 (X set, rep's times, nnz_lu
 * and a message head such as "solved by cuDSS LU"), k > 0 for a singular
 * A, or a negative status with err set. The core checks the arguments
 * before and judges the residual after. */
int lsc_csr_direct(void *bctx, const ls_csr *A, int nrhs, const double *B, int64_t ldb, double *X,
                   int64_t ldx, ls_csr_direct_report *rep, char *err, size_t errlen);

#endif
