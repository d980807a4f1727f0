/* The correctness measure used everywhere: LAPACK's scaled residual
 * ||B - A X||inf / (n ||A||inf ||X||inf eps), computed in double from the
 * original double A and B, so it measures the X actually returned. */
#include <math.h>
#include <stdlib.h>

#include "linsolve.h"
#include "core/util.h"

double ls_scaled_residual(int n, int nrhs, const double *A, int lda, const double *X, int ldx,
                          const double *B, int ldb, double eps)
{
    if (n <= 0 || nrhs <= 0)
        return 0.0;
    double anorm = ls_norm_inf(n, n, A, lda);
    double xnorm = ls_norm_inf(n, nrhs, X, ldx);
    double rnorm = 0.0;
    int nan_seen = 0;
    /* Row blocks in parallel; within a block walk A by columns (unit stride). */
    enum { RB = 256 };
    int nblocks = (n + RB - 1) / RB;
    /* one block: no team to wake (that costs more than the work below n = 256) */
#pragma omp parallel for schedule(dynamic) reduction(max : rnorm) reduction(| : nan_seen) \
    if (nblocks > 1)
    for (int b = 0; b < nblocks; b++) {
        int i0 = b * RB, i1 = i0 + RB < n ? i0 + RB : n;
        double r[RB], rowsum[RB] = {0};
        for (int c = 0; c < nrhs; c++) {
            for (int i = i0; i < i1; i++)
                r[i - i0] = B[i + (size_t)c * ldb];
            for (int k = 0; k < n; k++) {
                double xk = X[k + (size_t)c * ldx];
                const double *ak = A + (size_t)k * lda;
                for (int i = i0; i < i1; i++)
                    r[i - i0] -= ak[i] * xk;
            }
            for (int i = i0; i < i1; i++) {
                if (isnan(r[i - i0]))
                    nan_seen = 1;
                rowsum[i - i0] += fabs(r[i - i0]);
            }
        }
        for (int i = i0; i < i1; i++)
            if (rowsum[i - i0] > rnorm)
                rnorm = rowsum[i - i0];
    }
    if (nan_seen || isnan(xnorm) || isnan(anorm))
        return NAN;
    if (rnorm == 0.0)
        return 0.0;
    double denom = (double)n * anorm * xnorm * eps;
    if (denom == 0.0 || !isfinite(denom))
        return INFINITY;
    return rnorm / denom;
}
