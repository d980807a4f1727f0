/* The CSR type's own operations: release and y = A x. */
#include <stdlib.h>
#include <string.h>

#include "linsolve.h"

void ls_csr_free(ls_csr *A)
{
    if (!A)
        return;
    free(A->row_ptr);
    free(A->col_idx);
    free(A->val);
    memset(A, 0, sizeof *A);
}

int ls_csr_matvec(const ls_csr *A, const double *x, double *y)
{
    if (!A || A->n_rows < 0 || A->n_cols < 0 || A->nnz < 0 || !A->row_ptr ||
        (A->nnz > 0 && (!A->col_idx || !A->val)))
        return -1;
    if (!x && A->n_cols > 0)
        return -2;
    if (!y && A->n_rows > 0)
        return -3;
    const int64_t n = A->n_rows;
    const int64_t *rp = A->row_ptr, *ci = A->col_idx;
    const double *v = A->val;
    /* Rows are independent; the guard keeps this file free of OpenMP for
     * builds without it (the sanitizer test compiles src/io on its own). */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (A->nnz > 100000)
#endif
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t p = rp[i]; p < rp[i + 1]; p++)
            s += v[p] * x[ci[p]];
        y[i] = s;
    }
    return 0;
}
