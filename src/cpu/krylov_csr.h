/*
 * Internals of the CSR Krylov solvers (krylov_csr.c, bicgstab_csr.c,
 * gmres_csr.c, precond_csr.c): double precision, 64-bit indices.
 */
#ifndef LS_KRYLOV_CSR_H
#define LS_KRYLOV_CSR_H

#include <stddef.h>
#include <stdint.h>
#include "linsolve.h"

/* z = M^-1 r for one of the preconditioners. */
typedef struct ls_csr_precond {
    ls_precond kind;
    int64_t n;
    double *inv_diag;  /* Jacobi: 1 / a_ii */
    const ls_csr *A;   /* ILU(0): the pattern the factors share */
    double *lu;        /* ILU(0): L (unit, strictly lower) and U values, nnz */
    int64_t *diag;     /* ILU(0): position of a_ii in each row */
    int64_t perturbed; /* ILU(0), ILUT: pivots replaced (setup_ex with perturb) */
    /* ILUT (ilut_csr.c): unit L and strictly upper U in CSR, U's diagonal apart */
    int64_t *l_ptr, *l_idx, *u_ptr, *u_idx;
    double *l_val, *u_val, *u_diag;
} ls_csr_precond;

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
/* A direct solve's arguments (square, n >= 1, nrhs >= 0, B and X set,
 * ldb, ldx >= n, A as ls_csr_check, B finite): 0 or a status, message. */
int ls_csr_direct_check(const ls_csr *A, int nrhs, const double *B, int64_t ldb, const double *X,
                        int64_t ldx, char *msg, size_t len);
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

/* The system a method iterates on (possibly equilibrated). Convergence is
 * judged on the weighted norm ||W (b - A x)||2 <= tol, W = rweight or I:
 * with equilibration W undoes the row scaling, so tol is measured on the
 * caller's system. */
typedef struct ls_krylov_sys {
    const ls_csr *A;
    const double *b;
    int64_t n;
    const ls_csr_precond *P;
    const double *rweight;
    double tol;
    int max_iter, restart;
} ls_krylov_sys;

typedef struct ls_krylov_out {
    int iterations;
    int breakdown;
    double truth; /* last weighted true residual norm */
    char msg[200];
} ls_krylov_out;

/* The vector operations the Krylov methods are written in, so that one
 * algorithm runs on the host (ls_kr_host_ops) or on a device (a backend's
 * csr_krylov_open). Vectors are n doubles in the ops' own memory; scalars
 * come back to the host. An op that fails on a device records it (status)
 * and returns NaN where it returns a value, which the methods treat as a
 * breakdown; the caller then reports the recorded status. */
typedef struct ls_kr_ops {
    void *ctx;
    int64_t n;
    double *(*alloc)(void *ctx, size_t count); /* count * n doubles, contiguous; NULL: none */
    void (*release)(void *ctx, double *v);
    void (*upload)(void *ctx, const double *host, double *v);   /* n values */
    void (*download)(void *ctx, const double *v, double *host); /* n values */
    void (*spmv)(void *ctx, const double *x, double *y);        /* y = A x */
    void (*precond)(void *ctx, const double *r, double *z);     /* z = M^-1 r */
    double (*dot)(void *ctx, const double *x, const double *y);
    double (*residual)(void *ctx, const double *x, double *r);  /* r = b - A x; ||W r||2 */
    void (*zero)(void *ctx, double *v);
    void (*axpby)(void *ctx, double a, const double *x, double b, double *y); /* y = a x + b y;
                                                                  b = 0: y = a x */
    void (*waxpby)(void *ctx, double a, const double *x, double b, const double *y,
                   double *w); /* w = a x + b y */
    /* CG: x += alpha p, r -= alpha q, z = M^-1 r; d = {r . r, r . z, z . q} (one trip
     * back for the three, and one pass over the vectors with Jacobi) */
    void (*cg_step)(void *ctx, double alpha, const double *p, const double *q, double *x,
                    double *r, double *z, double d[3]);
    /* d = {x . y, u . v} */
    void (*dot2)(void *ctx, const double *x, const double *y, const double *u, const double *v,
                 double d[2]);
    /* BiCGStab: p = r + beta (p - omega v) */
    void (*bicg_direction)(void *ctx, double beta, double omega, const double *r,
                           const double *v, double *p);
    /* BiCGStab: x += alpha phat + omega shat, r = s - omega t; returns r . r */
    double (*bicg_update)(void *ctx, double alpha, double omega, const double *phat,
                          const double *shat, const double *s, const double *t, double *x,
                          double *r);
    /* GMRES: w := w - V h, h = the projections of w on the j1 orthonormal
     * columns of V (leading dimension n), into h (host, j1 values) */
    void (*orthogonalize)(void *ctx, const double *V, int j1, double *w, double *h);
    /* GMRES: r = V y, k columns, y on the host */
    void (*combine)(void *ctx, const double *V, int k, const double *y, double *r);
    /* 0, or the failure recorded (LS_EDEVMEM, LS_EDEVICE) with its message */
    int (*status)(void *ctx, char *msg, size_t len);
} ls_kr_ops;

/* The host's operations on s (ctx = s). */
void ls_kr_host_ops(const ls_krylov_sys *s, ls_kr_ops *ops);

/* Each returns 0, LS_NOT_CONVERGED, LS_BREAKDOWN or LS_ENOMEM; x (in the
 * ops' memory): in guess, out iterate. tol, max_iter, restart from s. */
int ls_csr_bicgstab_run(const ls_krylov_sys *s, const ls_kr_ops *ops, double *x,
                        ls_krylov_out *o);
int ls_csr_gmres_run(const ls_krylov_sys *s, const ls_kr_ops *ops, double *x, ls_krylov_out *o);
/* A and the preconditioner symmetric positive definite (else LS_BREAKDOWN). */
int ls_csr_cg_run(const ls_krylov_sys *s, const ls_kr_ops *ops, double *x, ls_krylov_out *o);

/* A backend's device operations on the prepared system s (its A, b,
 * rweight and preconditioner P, host arrays read once here): 0 with *ops
 * filled, or a status with a message; ops->ctx is released by close. */
typedef int (*ls_kr_open_fn)(void *bctx, const ls_krylov_sys *s, ls_kr_ops *ops, char *err,
                             size_t errlen);
typedef void (*ls_kr_close_fn)(void *ops_ctx);

/* ls_csr_solve_iter with the iteration on a backend's operations (open,
 * close NULL: the host's). device names where it ran, for the report. */
int ls_csr_solve_iter_on(const ls_csr *A, const double *b, double *x, const ls_iter_options *opt,
                         ls_iter_report *rep, char *err, size_t errlen, ls_kr_open_fn open,
                         ls_kr_close_fn close, void *bctx, const char *device);

/* Shared vector kernels (OpenMP above a size where threads pay off). */
void ls_kr_spmv(const ls_csr *A, const double *x, double *y);
double ls_kr_dot(int64_t n, const double *x, const double *y);
/* ||diag(w) x||2 without overflow or underflow (w may be NULL). */
double ls_kr_nrm2(int64_t n, const double *x, const double *w);
/* r = b - A x; returns ||W r||2. */
double ls_kr_residual(const ls_krylov_sys *s, const double *x, double *r);
int ls_kr_bad(double v);

#endif
