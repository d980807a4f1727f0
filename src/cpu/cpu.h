/*
 * The CPU backend's reference kernels (BLIS's "reference" side): portable C11
 * + OpenMP, column-major. Other backends are checked against these; the core
 * falls back to them for optional backend slots.
 *
 * Direct solvers return LAPACK's info: 0, or the 1-based column of the first
 * exactly-zero pivot (the elimination still runs to the end, as LAPACK does;
 * the solve step is then skipped by the caller).
 */
#ifndef LS_CPU_CPU_H
#define LS_CPU_CPU_H

#include "linsolve.h"

/* getrf: blocked right-looking LU with partial pivoting, ipiv 1-based. */
int ls_ref_dgetrf(int m, int n, double *A, int lda, int *ipiv);
int ls_ref_sgetrf(int m, int n, float *A, int lda, int *ipiv);
/* getrs: trans 'N' or 'T'; requires a nonsingular factor. */
void ls_ref_dgetrs(char trans, int n, int nrhs, const double *A, int lda, const int *ipiv,
                   double *B, int ldb);
void ls_ref_sgetrs(char trans, int n, int nrhs, const float *A, int lda, const int *ipiv,
                   float *B, int ldb);

#endif
