/*
 * The sparse Krylov methods written once over a table of vector operations
 * (krylov_csr.c drives them; bicgstab_csr.c, gmres_csr.c and cg_csr.c are
 * the methods): the same code runs on the host (the CPU's ls_kr_host_ops,
 * cpu/krylov_csr.h) and on a device (a backend's sparse role, krylov_open,
 * core/backend.h). Double precision, 64-bit indices.
 */
#ifndef LS_ALGO_KRYLOV_H
#define LS_ALGO_KRYLOV_H

#include <stddef.h>
#include <stdint.h>
#include "linsolve.h"

/* z = M^-1 r for one of the preconditioners. Built on the host (the CPU's
 * ls_csr_precond_setup*, cpu/krylov_csr.h); a device backend reads it to
 * copy the factors over. */
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
 * sparse role, krylov_open). Vectors are n doubles in the ops' own memory;
 * scalars come back to the host. An op that fails on a device records it (status)
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

/* 1 when a scalar the methods divide by is zero or not finite (a breakdown). */
int ls_kr_bad(double v);

#endif
