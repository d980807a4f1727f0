/* Generators that need more than a few lines live in their own files. */
#ifndef LS_GEN_INTERNAL_H
#define LS_GEN_INTERNAL_H

#include <stdint.h>
#include "linsolve.h"

/* U diag(sigma) V^T, sigma geometric from 1 to 1/cond. 0 or LS_ENOMEM. */
int ls_gen_randsvd(int n, double *A, int lda, uint64_t seed, double cond);
/* 5-point stencils on a k x k grid (n = k^2, checked by the caller). */
void ls_gen_stencil(int k, double *A, int lda, double diag, double west, double east,
                    double south, double north);

#endif
