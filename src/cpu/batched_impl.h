/* One system of a batched solve, written once for REAL / SFX (see
 * real_macros.h): LU with partial pivoting and the triangular solves on a
 * strided matrix, element (i, j) at M[i*rs + j*cs], so that row- and
 * column-major stacks are both walked in place. The loops run along the
 * unit stride. The pivot search is idamax's (the first largest magnitude;
 * a NaN wins only where the search starts), and the column is scaled by
 * the pivot's reciprocal unless that would overflow, as LAPACK's getf2.
 * Defines: none (every function and object here is static) */
#include "common/real_macros.h"

#define AT(M, i, j, rs, cs) ((M)[(long long)(i) * (rs) + (long long)(j) * (cs)])

static int FN(ls_cpu_bgetf2)(int n, REAL *A, long long rs, long long cs, int *ipiv)
{
    const REAL sfmin = sizeof(REAL) == sizeof(float) ? FLT_MIN : DBL_MIN;
    int info = 0;
    for (int k = 0; k < n; k++) {
        int p = k;
        REAL best = (REAL)fabs((double)AT(A, k, k, rs, cs));
        for (int i = k + 1; i < n; i++) {
            REAL v = (REAL)fabs((double)AT(A, i, k, rs, cs));
            if (v > best)
                best = v, p = i;
        }
        ipiv[k] = p + 1;
        REAL piv = AT(A, p, k, rs, cs);
        if (piv != 0) {
            if (p != k)
                for (int j = 0; j < n; j++) {
                    REAL t = AT(A, k, j, rs, cs);
                    AT(A, k, j, rs, cs) = AT(A, p, j, rs, cs);
                    AT(A, p, j, rs, cs) = t;
                }
            if (fabs((double)piv) >= sfmin) {
                REAL r = 1 / piv;
                for (int i = k + 1; i < n; i++)
                    AT(A, i, k, rs, cs) *= r;
            } else {
                for (int i = k + 1; i < n; i++)
                    AT(A, i, k, rs, cs) /= piv;
            }
        } else if (info == 0) {
            info = k + 1;
        }
        if (rs == 1) { /* column-major: down each column */
            for (int j = k + 1; j < n; j++) {
                REAL u = AT(A, k, j, rs, cs);
                REAL *col = &AT(A, 0, j, rs, cs);
                const REAL *l = &AT(A, 0, k, rs, cs);
                for (int i = k + 1; i < n; i++)
                    col[i] -= l[i] * u;
            }
        } else { /* row-major: along each row */
            const REAL *urow = &AT(A, k, 0, rs, cs);
            for (int i = k + 1; i < n; i++) {
                REAL *row = &AT(A, i, 0, rs, cs);
                REAL l = row[k * cs];
                for (int j = k + 1; j < n; j++)
                    row[j * cs] -= l * urow[j * cs];
            }
        }
    }
    return info;
}

/* op(A) X = B with the factors of ls_cpu_bgetf2; trans 'N' or 'T'. */
static void FN(ls_cpu_bgetrs)(char trans, int n, int nrhs, const REAL *A, long long rs, long long cs,
                       const int *ipiv, REAL *B, long long brs, long long bcs)
{
    for (int r = 0; r < nrhs; r++) {
        REAL *b = B + (long long)r * bcs;
#define BX(i) b[(long long)(i) * brs]
        if (trans == 'N') {
            for (int k = 0; k < n; k++) {
                int p = ipiv[k] - 1;
                if (p != k) {
                    REAL t = BX(k);
                    BX(k) = BX(p);
                    BX(p) = t;
                }
            }
            for (int k = 0; k < n; k++) { /* L y = P b, unit diagonal */
                REAL y = BX(k);
                for (int i = k + 1; i < n; i++)
                    BX(i) -= AT(A, i, k, rs, cs) * y;
            }
            for (int k = n - 1; k >= 0; k--) { /* U x = y */
                REAL x = BX(k) / AT(A, k, k, rs, cs);
                BX(k) = x;
                for (int i = 0; i < k; i++)
                    BX(i) -= AT(A, i, k, rs, cs) * x;
            }
        } else {
            for (int k = 0; k < n; k++) { /* U^T y = b */
                REAL s = BX(k);
                for (int i = 0; i < k; i++)
                    s -= AT(A, i, k, rs, cs) * BX(i);
                BX(k) = s / AT(A, k, k, rs, cs);
            }
            for (int k = n - 1; k >= 0; k--) { /* L^T z = y */
                REAL s = BX(k);
                for (int i = k + 1; i < n; i++)
                    s -= AT(A, i, k, rs, cs) * BX(i);
                BX(k) = s;
            }
            for (int k = n - 1; k >= 0; k--) { /* x = P z */
                int p = ipiv[k] - 1;
                if (p != k) {
                    REAL t = BX(k);
                    BX(k) = BX(p);
                    BX(p) = t;
                }
            }
        }
#undef BX
    }
}

#undef AT
