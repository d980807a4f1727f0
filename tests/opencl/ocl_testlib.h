/* Helpers shared by the OpenCL tests: contexts, and one graded solve. */
#ifndef LS_OCL_TESTLIB_H
#define LS_OCL_TESTLIB_H

#include "testutil.h"

/* Opens an OpenCL context (device from LS_OPENCL_DEVICE or 0) and a CPU one.
 * Returns 0, or 77 (skip) when there is no OpenCL platform at all, or 1. */
int ot_open(ls_context **ocl, ls_context **cpu);

/* One generated system and, in double, the CPU reference solution. */
typedef struct ot_problem {
    ls_gen_kind kind;
    ls_precision prec;
    ls_pivot pivot;
    int n, nrhs, lda, ldb;
    double *A, *B, *R; /* R: CPU solution (NULL in single precision) */
    int ref_status;    /* CPU status (info > 0 for a singular matrix) */
} ot_problem;

/* Generates A (kind, seed, lda = n + 2) and B (ldb = n + 1); solves on the
 * CPU with lu. Returns 0, or 1 after printing why. */
int ot_problem_make(ot_problem *pb, ls_context *cpu, ls_gen_kind kind, ls_precision p,
                    ls_pivot piv, int n, int nrhs, unsigned seed);
void ot_problem_free(ot_problem *pb);
/* Solves pb with method m on the OpenCL context, prints one row, returns 1
 * on failure. ge-local may refuse a large size with LS_ELIMIT. */
int ot_run(ls_context *ocl, const ot_problem *pb, ls_method m);

/* Solves the given A on the OpenCL context (B = A * ones) and grades it by the
 * scaled residual; tag labels the row. Returns 1 on failure. */
int ot_solve_given(ls_context *ocl, ls_method m, ls_precision p, int n, const double *A, int lda,
                   const char *tag);

#endif
