/* Shared test helpers: MAGMA-style result rows and the scaled-residual check. */
#ifndef LS_TESTUTIL_H
#define LS_TESTUTIL_H

#include <stdio.h>
#include "linsolve.h"

/* LAPACK's threshold on the scaled residual. */
#define LS_TEST_TOL 30.0

/* Print the header once:
 * "    N  NRHS  method        backend prec   time(s)   GFLOP/s  residual  status" */
void lt_header(void);
/* Print one row and return 1 if it failed (ok==0), else 0. */
int lt_row(int n, int nrhs, const char *method, const char *backend, const char *prec,
           double time_s, double gflops, double residual, int ok);
/* Print a free-form check line ("name ... ok|FAILED (detail)"); returns 1 on failure. */
int lt_check(int ok, const char *fmt, ...);
/* malloc that ends the test program (exit 99) when memory runs out: tests
 * have nothing sensible to do without their buffers. */
void *lt_xmalloc(size_t bytes);
/* count doubles, zeroed */
double *lt_doubles(size_t count);
/* Has a GPU of this backend? If not, tests print why and exit 77 (skip). */
int lt_backend_available(ls_backend_kind kind, char *why, size_t len);
/* The direct methods ctx runs in FP64, from the method table and the
 * backend's support list (a method added to either is tested with no edit
 * to the tests): those that honour pivot none first (*nopivot of them),
 * then the others, each group in the table's order. Returns how many went
 * into out (at most cap). */
int lt_direct_methods(ls_context *ctx, ls_method *out, int cap, int *nopivot);

#endif
