/* LAPACK's exact operation counts (as in LAPACK's testing/lin, MAGMA's
 * flops.h), kept in one place. */
#include <float.h>

#include "linsolve.h"

double ls_flops_getrf(double m, double n)
{
    /* MAGMA's FMULS_GETRF + FADDS_GETRF; for m == n this is
     * 2n^3/3 - n^2/2 + 5n/6. */
    if (m < n) {
        double muls = 0.5 * m * (m * (n - m / 3.0 - 1.0) + n) + 2.0 * m / 3.0;
        double adds = 0.5 * m * (m * (n - m / 3.0) - n) + m / 6.0;
        return muls + adds;
    }
    double muls = 0.5 * n * (n * (m - n / 3.0 - 1.0) + m) + 2.0 * n / 3.0;
    double adds = 0.5 * n * (n * (m - n / 3.0) - m) + n / 6.0;
    return muls + adds;
}

double ls_flops_getrs(double n, double nrhs)
{
    return nrhs * (2.0 * n * n - n);
}

double ls_flops_gesv(double n, double nrhs)
{
    return ls_flops_getrf(n, n) + ls_flops_getrs(n, nrhs);
}

double ls_eps(ls_precision p)
{
    /* LAPACK's dlamch('E') is the unit roundoff (2^-53); the scaled-residual
     * tests in LAPACK use that. FLT/DBL_EPSILON are twice that. */
    return p == LS_SINGLE ? FLT_EPSILON * 0.5 : DBL_EPSILON * 0.5;
}
