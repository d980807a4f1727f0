/*
 * The host's side of the CSR Krylov solvers, whose methods and driver are
 * written once in src/algo (algo/krylov.h): the preconditioners
 * (precond_csr.c, ilut_csr.c), the column permutations (maxtrans_csr.c,
 * mc64_csr.c), the CSR checks and the host's vector kernels
 * (krylov_kernels.c) and operations (krylov_ops_host.c). Double
 * precision, 64-bit indices.
 */
#ifndef LS_KRYLOV_CSR_H
#define LS_KRYLOV_CSR_H

#include <stddef.h>
#include <stdint.h>
#include "algo/krylov.h"
#include "core/reference.h"
#include "linsolve.h"

int ls_csr_precond_setup(ls_csr_precond *P, ls_precond kind, const ls_csr *A, char *msg,
                         size_t msglen);
/* perturb: an ILU(0) pivot |u_ii| <= eps max|a_ij| becomes +-sqrt(eps) max|a_ij|. */
int ls_csr_precond_setup_ex(ls_csr_precond *P, ls_precond kind, const ls_csr *A, int perturb,
                            char *msg, size_t msglen);
/* ILUT with drop tolerance tol (relative to ||a_i||2) and fill extra entries
 * per row in each of L and U; tiny pivots are always perturbed (counted).
 * P zeroed with kind and n set; on failure the caller frees P. */
int ls_csr_ilut_setup(ls_csr_precond *P, const ls_csr *A, double tol, int fill, char *msg,
                      size_t msglen);
void ls_csr_ilut_apply(const ls_csr_precond *P, const double *r, double *z);
void ls_csr_precond_apply(const ls_csr_precond *P, const double *r, double *z);
void ls_csr_precond_free(ls_csr_precond *P);

/* A Q with a zero-free diagonal (maxtrans_csr.c): A Q y = b, x = Q y. */
typedef struct ls_csr_colperm {
    ls_csr B;      /* A Q: row_ptr is A's, col_idx and val owned, rows sorted */
    int64_t *qinv; /* column j of A is column qinv[j] of A Q */
    double *work;  /* n, for the in-place vector permutations */
    int64_t rank;  /* structural rank found */
    int64_t moved; /* columns j with qinv[j] != j */
} ls_csr_colperm;

/* 1 when some a_ii is not stored or is zero. */
/* row_ptr 0..nnz non-decreasing, columns in range and strictly increasing
 * within a row, values finite: LS_EINVAL / LS_ENONFINITE with a message. */
int ls_csr_check(const ls_csr *A, char *msg, size_t len);
/* ls_csr_direct_check: core/reference.h. */
int ls_csr_needs_transversal(const ls_csr *A);
/* 0; LS_EINVAL structurally singular (T->rank < n, message says so);
 * LS_EUNSUPPORTED built without BTF; LS_ENOMEM. On failure T holds nothing. */
LS_API int ls_csr_colperm_build(const ls_csr *A, ls_csr_colperm *T, char *msg, size_t msglen);
/* T zeroed, T->B = A's shape with its own col_idx and val, qinv and work
 * allocated: 0 or LS_ENOMEM (ls_csr_colperm_free releases either way). */
int ls_csr_colperm_alloc(const ls_csr *A, ls_csr_colperm *T);
/* B = A Q from T->qinv (T->B's arrays allocated, row_ptr A's): 0 or LS_ENOMEM. */
int ls_csr_colperm_fill(const ls_csr *A, ls_csr_colperm *T);

/* Maximum-product weighted matching with scaling (mc64_csr.c; Duff and
 * Koster's algorithm, the problem of MC64 job 5), exported for the tests.
 * perm[j] = the row matched with column j: row perm[j] of A is row j of
 * P A, so (P A)_jj = a_{perm[j], j}, and prod_j |a_{perm[j], j}| is the
 * largest over all permutations. Exact zeros are not entries. dr, dc
 * (optional, both or neither): |dr_i a_ij dc_j| <= 1, = 1 up to rounding on
 * the matched entries. *rank = the matched columns. Returns 0; LS_EINVAL
 * structurally singular (*rank < n, the message gives the structural rank)
 * or not square; LS_ENONFINITE a scaling outside the double range; LS_ENOMEM. */
LS_API int ls_csr_mc64(const ls_csr *A, int64_t *perm, double *dr, double *dc, int64_t *rank,
                       char *msg, size_t msglen);
/* 1 when some |a_ii| <= small max(|row i|, |column i|): missing, zero or
 * small against its row or column (the weighted matching is worth it);
 * 0 when none is; LS_ENOMEM. */
int ls_csr_diag_needs_matching(const ls_csr *A, double small);
/* T->B = Dr A Dc Q with the weighted matching on its diagonal, Dr and Dc
 * ls_csr_mc64's rounded down to powers of two (|b_ij| <= 1, 1/4 < |b_ii| <= 1),
 * so A x = b is B y = Dr b with x = Dc Q y; dr and dc (n each, the
 * caller's) get the scalings in A's order. Statuses: ls_csr_mc64's. */
int ls_csr_colperm_build_mc64(const ls_csr *A, ls_csr_colperm *T, double *dr, double *dc,
                              char *msg, size_t msglen);
void ls_csr_colperm_to(const ls_csr_colperm *T, double *x);   /* x := Q^T x */
void ls_csr_colperm_from(const ls_csr_colperm *T, double *y); /* y := Q y */
LS_API void ls_csr_colperm_free(ls_csr_colperm *T);

/* The host's operations on s (ctx = s; krylov_ops_host.c). */
void ls_kr_host_ops(const ls_krylov_sys *s, ls_kr_ops *ops);

/* Shared vector kernels (OpenMP above a size where threads pay off). */
void ls_kr_spmv(const ls_csr *A, const double *x, double *y);
double ls_kr_dot(int64_t n, const double *x, const double *y);
/* ||diag(w) x||2 without overflow or underflow (w may be NULL). */
double ls_kr_nrm2(int64_t n, const double *x, const double *w);
/* r = b - A x; returns ||W r||2. */
double ls_kr_residual(const ls_krylov_sys *s, const double *x, double *r);

#endif
