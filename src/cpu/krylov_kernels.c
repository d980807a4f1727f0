/*
 * The host's vector kernels of the Krylov methods (OpenMP above a size where
 * threads pay off) and the CSR structure check that the Krylov solvers and
 * the UMFPACK path share.
 */
#include <math.h>
#include <stdio.h>

#include "krylov_csr.h"

enum { LS_KR_PAR = 50000 }; /* below this many values, threads cost more than they give */

void ls_kr_spmv(const ls_csr *A, const double *x, double *y)
{
    int64_t n = A->n_rows;
#pragma omp parallel for schedule(static) if (A->nnz > LS_KR_PAR)
    for (int64_t i = 0; i < n; i++) {
        double s = 0;
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
            s += A->val[p] * x[A->col_idx[p]];
        y[i] = s;
    }
}

double ls_kr_dot(int64_t n, const double *x, const double *y)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (n > LS_KR_PAR)
    for (int64_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

double ls_kr_nrm2(int64_t n, const double *x, const double *w)
{
    double amax = 0;
    for (int64_t i = 0; i < n; i++) {
        double a = fabs(w ? w[i] * x[i] : x[i]);
        if (!(a <= amax)) /* also catches NaN */
            amax = a;
    }
    if (amax == 0 || !isfinite(amax))
        return amax;
    double inv = 1.0 / amax, s = 0;
    if (!isfinite(inv)) /* amax subnormal: scale by a power of two instead */
        inv = ldexp(1.0, 1000);
#pragma omp parallel for reduction(+ : s) schedule(static) if (n > LS_KR_PAR)
    for (int64_t i = 0; i < n; i++) {
        double a = (w ? w[i] * x[i] : x[i]) * inv;
        s += a * a;
    }
    return sqrt(s) / inv;
}

double ls_kr_residual(const ls_krylov_sys *s, const double *x, double *r)
{
    ls_kr_spmv(s->A, x, r);
#pragma omp parallel for schedule(static) if (s->n > LS_KR_PAR)
    for (int64_t i = 0; i < s->n; i++)
        r[i] = s->b[i] - r[i];
    return ls_kr_nrm2(s->n, r, s->rweight);
}

/* A's structure and values: what the Krylov methods and UMFPACK rely on. */
int ls_csr_check(const ls_csr *A, char *msg, size_t len)
{
    int64_t n = A->n_rows;
    if (A->row_ptr[0] != 0 || A->row_ptr[n] != A->nnz) {
        snprintf(msg, len, "A: row_ptr must run from 0 to nnz = %lld", (long long)A->nnz);
        return LS_EINVAL;
    }
    for (int64_t i = 0; i < n; i++) {
        if (A->row_ptr[i + 1] < A->row_ptr[i]) {
            snprintf(msg, len, "A: row_ptr decreases at row %lld", (long long)(i + 1));
            return LS_EINVAL;
        }
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++) {
            int64_t c = A->col_idx[p];
            if (c < 0 || c >= A->n_cols || (p > A->row_ptr[i] && c <= A->col_idx[p - 1])) {
                snprintf(msg, len,
                         "A: row %lld has column indices out of range or not increasing",
                         (long long)(i + 1));
                return LS_EINVAL;
            }
            if (!isfinite(A->val[p])) {
                snprintf(msg, len, "A: non-finite value in row %lld", (long long)(i + 1));
                return LS_ENONFINITE;
            }
        }
    }
    return 0;
}
