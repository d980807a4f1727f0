/*
 * What the core calls of the CPU backend's reference code (BLIS's
 * "reference" side: portable C11 + OpenMP, column-major), which liblinsolve
 * links in: the LU that other backends are checked against and that the
 * core falls back to for optional backend slots, and the sparse direct
 * solve's argument check. Declared here, on the core's side, so that the
 * core includes no backend header; the CPU's files include it too, so a
 * definition that drifts from it does not compile.
 *
 * Direct solvers return LAPACK's info: 0, or the 1-based column of the first
 * exactly-zero pivot (the elimination still runs to the end, as LAPACK does;
 * the solve step is then skipped by the caller).
 */
#ifndef LS_CORE_REFERENCE_H
#define LS_CORE_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "linsolve.h"

/* getrf: blocked right-looking LU with partial pivoting, ipiv 1-based
 * (cpu/getrf.c). */
int ls_ref_dgetrf(int m, int n, double *A, int lda, int *ipiv);
int ls_ref_sgetrf(int m, int n, float *A, int lda, int *ipiv);
/* getrs: trans 'N' or 'T'; requires a nonsingular factor. */
void ls_ref_dgetrs(char trans, int n, int nrhs, const double *A, int lda, const int *ipiv,
                   double *B, int ldb);
void ls_ref_sgetrs(char trans, int n, int nrhs, const float *A, int lda, const int *ipiv,
                   float *B, int ldb);

/* A direct solve's arguments (square, n >= 1, nrhs >= 0, B and X set,
 * ldb, ldx >= n, A as ls_csr_check, B finite): 0 or a status, message
 * (cpu/direct_csr.c). */
int ls_csr_direct_check(const ls_csr *A, int nrhs, const double *B, int64_t ldb, const double *X,
                        int64_t ldx, char *msg, size_t len);

#endif
