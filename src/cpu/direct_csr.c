/*
 * ls_csr_solve_direct: a sparse LU from SuiteSparse UMFPACK on CSR input.
 * A's CSR arrays are, read column-wise, the CSC arrays of A^T, so UMFPACK
 * factors A^T and we solve with its transpose (UMFPACK_Aat): no copy of A.
 * Without UMFPACK at build time the entry answers LS_EUNSUPPORTED by name.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "krylov_csr.h"
#include "linsolve.h"

#ifdef LS_HAVE_UMFPACK
#include <umfpack.h>
#endif


static void put(char *dst, size_t len, const char *msg)
{
    if (dst && len)
        snprintf(dst, len, "%s", msg);
}

int ls_csr_direct_available(void)
{
#ifdef LS_HAVE_UMFPACK
    return 1;
#else
    return 0;
#endif
}

double ls_csr_norm_inf(const ls_csr *A)
{
    double m = 0;
    if (!A || !A->row_ptr)
        return 0;
    for (int64_t i = 0; i < A->n_rows; i++) {
        double s = 0;
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
            s += fabs(A->val[p]);
        if (!(s <= m))
            m = s;
    }
    return m;
}

double ls_csr_scaled_residual(const ls_csr *A, int nrhs, const double *B, int64_t ldb,
                              const double *X, int64_t ldx)
{
    int64_t n = A->n_rows;
    double anorm = ls_csr_norm_inf(A), worst = 0;
    for (int j = 0; j < nrhs; j++) {
        const double *b = B + (size_t)j * (size_t)ldb, *x = X + (size_t)j * (size_t)ldx;
        double rmax = 0, xmax = 0;
        for (int64_t i = 0; i < n; i++) {
            double s = b[i];
            for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
                s -= A->val[p] * x[A->col_idx[p]];
            s = fabs(s);
            if (!(s <= rmax))
                rmax = s;
            double a = fabs(x[i]);
            if (!(a <= xmax))
                xmax = a;
        }
        double r;
        if (!isfinite(rmax) || !isfinite(xmax))
            r = INFINITY;
        else if (rmax == 0)
            r = 0;
        else
            r = rmax / ((double)n * anorm * xmax * DBL_EPSILON);
        if (!(r <= worst))
            worst = r;
    }
    return worst;
}

/* What UMFPACK needs: square, row_ptr 0..nnz non-decreasing, columns in
 * range and strictly increasing within a row, values finite. */
int ls_csr_direct_check(const ls_csr *A, int nrhs, const double *B, int64_t ldb, const double *X,
                        int64_t ldx, char *msg, size_t len)
{
    if (!A || !A->row_ptr || A->nnz < 0 || (A->nnz > 0 && (!A->col_idx || !A->val))) {
        snprintf(msg, len, "A is NULL or has no arrays");
        return LS_EINVAL;
    }
    if (A->n_rows != A->n_cols || A->n_rows < 1) {
        snprintf(msg, len, "A is %lld x %lld: a direct solve needs a square matrix",
                 (long long)A->n_rows, (long long)A->n_cols);
        return LS_ESIZE;
    }
    int64_t n = A->n_rows;
    if (nrhs < 0) {
        snprintf(msg, len, "nrhs = %d must be >= 0", nrhs);
        return LS_EINVAL;
    }
    if (nrhs > 0 && (!B || !X)) {
        snprintf(msg, len, "%s is NULL", !B ? "B" : "X");
        return LS_EINVAL;
    }
    if (ldb < n || ldx < n) {
        snprintf(msg, len, "%s = %lld must be >= n = %lld", ldb < n ? "ldb" : "ldx",
                 (long long)(ldb < n ? ldb : ldx), (long long)n);
        return LS_EINVAL;
    }
    int st = ls_csr_check(A, msg, len);
    if (st)
        return st;
    for (int j = 0; j < nrhs; j++)
        for (int64_t i = 0; i < n; i++)
            if (!isfinite(B[(size_t)j * (size_t)ldb + (size_t)i])) {
                snprintf(msg, len, "B: non-finite value at (%lld,%d)", (long long)(i + 1), j + 1);
                return LS_ENONFINITE;
            }
    return 0;
}

#ifdef LS_HAVE_UMFPACK
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

_Static_assert(sizeof(SuiteSparse_long) == sizeof(int64_t), "UMFPACK's long is 64-bit");

static int umf_status(int s)
{
    return s == UMFPACK_ERROR_out_of_memory ? LS_ENOMEM : LS_EINTERNAL;
}

/* 1-based position of the first exactly-zero pivot of U (0 if none). */
static int64_t first_zero_pivot(void *numeric, int64_t n)
{
    double *d = ls_malloc((size_t)n * sizeof(double));
    if (!d)
        return 1; /* we know it is singular; the position is unknown */
    int64_t k = 0;
    if (umfpack_dl_get_numeric(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, d, NULL, NULL,
                               numeric) == UMFPACK_OK) {
        for (int64_t i = 0; i < n && !k; i++)
            if (d[i] == 0)
                k = i + 1;
    }
    free(d);
    return k ? k : 1;
}

/* 1 / (||A||1 ||A^-1||1) by Hager's estimator (LAPACK's dlacon idea) on the
 * factors: a handful of solves, far better than UMFPACK's pivot ratio. */
static double rcond_estimate(const ls_csr *A, void *numeric, const SuiteSparse_long *ap,
                             const SuiteSparse_long *ai, double *control)
{
    const int64_t n = A->n_rows;
    double info[UMFPACK_INFO], est = 0, anorm = 0;
    double *x = ls_malloc(3 * (size_t)n * sizeof(double)), *y = x ? x + n : NULL,
           *z = x ? x + 2 * n : NULL;
    if (!x)
        return NAN;
    double save = control[UMFPACK_IRSTEP];
    control[UMFPACK_IRSTEP] = 0;
    for (int64_t i = 0; i < n; i++)
        z[i] = 0;
    for (int64_t p = 0; p < A->nnz; p++) /* column sums of |A| */
        z[A->col_idx[p]] += fabs(A->val[p]);
    for (int64_t i = 0; i < n; i++) {
        anorm = z[i] > anorm ? z[i] : anorm;
        x[i] = 1.0 / (double)n;
    }
    for (int it = 0; it < 5; it++) {
        umfpack_dl_solve(UMFPACK_Aat, ap, ai, A->val, y, x, numeric, control, info); /* A^-1 x */
        double e = 0;
        for (int64_t i = 0; i < n; i++) {
            e += fabs(y[i]);
            y[i] = y[i] >= 0 ? 1.0 : -1.0;
        }
        if (!isfinite(e) || e <= est)
            break;
        est = e;
        umfpack_dl_solve(UMFPACK_A, ap, ai, A->val, z, y, numeric, control, info); /* A^-T s */
        int64_t j = 0;
        double zx = 0;
        for (int64_t i = 0; i < n; i++) {
            zx += z[i] * x[i];
            if (fabs(z[i]) > fabs(z[j]))
                j = i;
        }
        if (fabs(z[j]) <= zx)
            break;
        for (int64_t i = 0; i < n; i++)
            x[i] = 0;
        x[j] = 1;
    }
    control[UMFPACK_IRSTEP] = save;
    free(x);
    if (!(est > 0) || !(anorm > 0))
        return 0;
    return 1.0 / (anorm * est);
}

static int solve_umfpack(const ls_csr *A, int nrhs, const double *B, int64_t ldb, double *X,
                         int64_t ldx, ls_csr_direct_report *rep)
{
    const int64_t n = A->n_rows;
    const SuiteSparse_long *ap = (const SuiteSparse_long *)A->row_ptr;
    const SuiteSparse_long *ai = (const SuiteSparse_long *)A->col_idx;
    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    void *symbolic = NULL, *numeric = NULL;
    umfpack_dl_defaults(control);

    double t0 = now_s();
    int s = (int)umfpack_dl_symbolic(n, n, ap, ai, A->val, &symbolic, control, info);
    if (s != UMFPACK_OK) {
        snprintf(rep->message, sizeof rep->message, "UMFPACK symbolic analysis failed (status %d)",
                 s);
        return umf_status(s);
    }
    s = (int)umfpack_dl_numeric(ap, ai, A->val, symbolic, &numeric, control, info);
    umfpack_dl_free_symbolic(&symbolic);
    rep->t_factor = now_s() - t0;
    rep->rcond = info[UMFPACK_RCOND];
    rep->nnz_lu = (int64_t)(info[UMFPACK_LNZ] + info[UMFPACK_UNZ] - (double)n);
    if (s == UMFPACK_WARNING_singular_matrix) {
        int64_t k = first_zero_pivot(numeric, n);
        umfpack_dl_free_numeric(&numeric);
        for (int j = 0; j < nrhs; j++)
            for (int64_t i = 0; i < n; i++)
                X[(size_t)j * (size_t)ldx + (size_t)i] = NAN;
        rep->residual = INFINITY;
        rep->singular = 1;
        snprintf(rep->message, sizeof rep->message,
                 "singular: UMFPACK found an exactly zero pivot (U(%lld,%lld) of the permuted "
                 "factors, UMFPACK_WARNING_singular_matrix); no solution computed",
                 (long long)k, (long long)k);
        return k > INT32_MAX ? INT32_MAX : (int)k;
    }
    if (s != UMFPACK_OK) {
        if (numeric)
            umfpack_dl_free_numeric(&numeric);
        snprintf(rep->message, sizeof rep->message, "UMFPACK factorization failed (status %d)", s);
        return umf_status(s);
    }
    rep->rcond = rcond_estimate(A, numeric, ap, ai, control);
    t0 = now_s();
    for (int j = 0; j < nrhs; j++) {
        s = (int)umfpack_dl_solve(UMFPACK_Aat, ap, ai, A->val, X + (size_t)j * (size_t)ldx,
                                  B + (size_t)j * (size_t)ldb, numeric, control, info);
        if (s != UMFPACK_OK && s != UMFPACK_WARNING_singular_matrix) {
            umfpack_dl_free_numeric(&numeric);
            snprintf(rep->message, sizeof rep->message, "UMFPACK solve failed (status %d)", s);
            return umf_status(s);
        }
    }
    rep->t_solve = now_s() - t0;
    umfpack_dl_free_numeric(&numeric);
    return 0;
}
#endif

int ls_csr_direct_estimate(const ls_csr *A, ls_csr_direct_cost *cost, char *err, size_t errlen)
{
    if (!cost) {
        put(err, errlen, "cost is NULL");
        return LS_EINVAL;
    }
    memset(cost, 0, sizeof *cost);
#ifndef LS_HAVE_UMFPACK
    (void)A;
    put(err, errlen, "unsupported: built without UMFPACK");
    return LS_EUNSUPPORTED;
#else
    char msg[256];
    int st = ls_csr_direct_check(A, 0, NULL, A ? A->n_rows : 0, NULL, A ? A->n_rows : 0, msg,
                         sizeof msg);
    if (st) {
        put(err, errlen, msg);
        return st;
    }
    const int64_t n = A->n_rows;
    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    void *symbolic = NULL;
    umfpack_dl_defaults(control);
    double t0 = now_s();
    /* The same analysis ls_csr_solve_direct starts with (ordering and
     * symbolic factorization of A^T): its estimates are upper bounds. */
    int s = (int)umfpack_dl_symbolic(n, n, (const SuiteSparse_long *)A->row_ptr,
                                     (const SuiteSparse_long *)A->col_idx, A->val, &symbolic,
                                     control, info);
    cost->t_analysis = now_s() - t0;
    if (s != UMFPACK_OK) {
        snprintf(msg, sizeof msg, "UMFPACK symbolic analysis failed (status %d)", s);
        put(err, errlen, msg);
        return umf_status(s);
    }
    umfpack_dl_free_symbolic(&symbolic);
    if (info[UMFPACK_STRATEGY_USED] == UMFPACK_STRATEGY_SYMMETRIC &&
        info[UMFPACK_SYMMETRIC_LUNZ] > 0 && info[UMFPACK_SYMMETRIC_FLOPS] > 0) {
        /* The symmetric strategy factors with AMD's ordering of A + A^T, for
         * which UMFPACK counts the fill and flops exactly (no pivoting off
         * the diagonal assumed). The general estimates are loose upper
         * bounds here: 91 GiB and 3.9e13 flop for a 2-D Poisson n = 10^6
         * that takes 1.4 GiB and 3.6e10. Peak: the factors' values and
         * indices plus a fifth for the frontal work. */
        cost->nnz_lu = info[UMFPACK_SYMMETRIC_LUNZ];
        cost->flops = info[UMFPACK_SYMMETRIC_FLOPS];
        cost->peak_bytes = 1.2 * 16.0 * cost->nnz_lu + 16.0 * (double)A->nnz;
    } else {
        cost->peak_bytes = info[UMFPACK_PEAK_MEMORY_ESTIMATE] * info[UMFPACK_SIZE_OF_UNIT];
        cost->flops = info[UMFPACK_FLOPS_ESTIMATE];
        cost->nnz_lu = info[UMFPACK_LNZ_ESTIMATE] + info[UMFPACK_UNZ_ESTIMATE] - (double)n;
    }
    return 0;
#endif
}

int ls_csr_solve_direct(const ls_csr *A, int nrhs, const double *B, int64_t ldb, double *X,
                        int64_t ldx, ls_csr_direct_report *rep, char *err, size_t errlen)
{
    ls_csr_direct_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    rep->residual = NAN;
    rep->rcond = NAN;
#ifndef LS_HAVE_UMFPACK
    
    snprintf(rep->message, sizeof rep->message, "unsupported: built without UMFPACK");
    put(err, errlen, rep->message);
    return LS_EUNSUPPORTED;
#else
    int st = ls_csr_direct_check(A, nrhs, B, ldb, X, ldx, rep->message, sizeof rep->message);
    if (st == 0)
        st = solve_umfpack(A, nrhs, B, ldb, X, ldx, rep);
    if (st != 0) {
        put(err, errlen, rep->message);
        return st;
    }
    rep->residual = nrhs > 0 ? ls_csr_scaled_residual(A, nrhs, B, ldb, X, ldx) : 0;
    const int ill = !(rep->rcond >= DBL_EPSILON);
    if (rep->residual <= 30) {
        snprintf(rep->message, sizeof rep->message,
                 "solved by UMFPACK LU: scaled residual %.3g, rcond estimate %.2g%s",
                 rep->residual, rep->rcond,
                 ill ? " (numerically singular: the residual is small but the forward error "
                       "may be large)"
                     : "");
        return 0;
    }
    snprintf(rep->message, sizeof rep->message,
             "UMFPACK LU gave scaled residual %.3g > 30 (rcond estimate %.2g%s)", rep->residual,
             rep->rcond, ill ? ", numerically singular" : "");
    put(err, errlen, rep->message);
    return LS_INACCURATE;
#endif
}
