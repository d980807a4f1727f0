/* Batched LU with partial pivoting and its triangular solves: one
 * work-group per system (per system and right-hand side for the solves),
 * so a whole stack is one launch instead of a loop of single solves.
 * Element (i, j) of system s is at A[s*sA + i*rs + j*cs]: row- and
 * column-major stacks are read in place (core/batched.h). The arithmetic
 * is LAPACK getf2's, as the CPU's batched kernels (cpu/batched_impl.h):
 * the pivot is the first largest magnitude (a NaN wins only where the
 * search starts), the column is scaled by the pivot's reciprocal unless
 * that would overflow, and an exactly zero pivot sets info once while the
 * factorization runs on. The local size is a power of two. */

#define AT(M, i, j) (M)[(long)(i) * rs + (long)(j) * cs]

#if REAL_IS_DOUBLE
#define LS_SFMIN DBL_MIN
#else
#define LS_SFMIN FLT_MIN
#endif

#define SYNC() barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)

__kernel void bgetrf(__global REAL *A0, long sA, long rs, long cs, int n, __global int *ipiv0,
                     __global int *info, __local REAL *best, __local int *best_row)
{
    const long s = get_group_id(0);
    const int t = (int)get_local_id(0), L = (int)get_local_size(0);
    __global REAL *A = A0 + s * sA;
    __global int *ipiv = ipiv0 + s * n;
    int inf = 0;
    for (int k = 0; k < n; k++) {
        REAL bv = (REAL)-1;
        int br = n;
        int i = k + t;
        if (t == 0) { /* the search starts at the diagonal, as idamax */
            bv = fabs(AT(A, k, k));
            br = k;
            i = k + L;
        }
        for (; i < n; i += L) {
            REAL v = fabs(AT(A, i, k));
            if (v > bv) {
                bv = v;
                br = i;
            }
        }
        ls_group_argmax(bv, br, best, best_row);
        const int p = best_row[0];
        const REAL piv = AT(A, p, k);
        SYNC(); /* every work-item has read the pivot before the swap */
        if (t == 0)
            ipiv[k] = p + 1;
        if (piv == (REAL)0 && inf == 0)
            inf = k + 1;
        /* Every barrier is reached by every work-item and no branch
         * encloses a loop: the swap and the scaling are loops whose bounds
         * leave nothing to do where there is nothing to do. (Ubuntu 24.04's
         * PoCL 5.0 aborted building the work-group function of the form
         * with a barrier inside `if (piv != 0)` and the loops inside
         * branches: "Assertion `region_entry_barrier != NULL' failed".) */
        const int swap_from = piv != (REAL)0 && p != k ? t : n;
        for (int j = swap_from; j < n; j += L) {
            REAL x = AT(A, k, j);
            AT(A, k, j) = AT(A, p, j);
            AT(A, p, j) = x;
        }
        SYNC();
        /* the column scaled by the reciprocal, or divided where the
         * reciprocal would overflow: one of the two loops runs */
        const bool recip = fabs(piv) >= LS_SFMIN;
        const REAL r = recip ? (REAL)1 / piv : (REAL)1;
        for (int q = recip ? k + 1 + t : n; q < n; q += L)
            AT(A, q, k) *= r;
        for (int q = piv != (REAL)0 && !recip ? k + 1 + t : n; q < n; q += L)
            AT(A, q, k) /= piv;
        SYNC();
        /* the trailing update, down each column so that neighbouring
         * work-items touch neighbouring words of a column-major stack */
        const int m = n - k - 1;
        for (long e = t; e < (long)m * m; e += L) {
            const int q = k + 1 + (int)(e % m), j = k + 1 + (int)(e / m);
            AT(A, q, j) -= AT(A, q, k) * AT(A, k, j);
        }
        SYNC();
    }
    if (t == 0)
        info[s] = inf;
}

/* op(A) X = B with bgetrf's factors, one work-group per system and
 * right-hand side (group g: system g / nrhs, column g % nrhs). trans 0:
 * P, then L (unit) and U; 1: U^T, L^T, then P backwards. skip_singular:
 * a system whose info is not 0 keeps its B (gesv, as LAPACK). */
__kernel void bgetrs(__global const REAL *A0, long sA, long rs, long cs, int n, int nrhs,
                     __global const int *ipiv0, __global REAL *B0, long sB, long brs, long bcs,
                     int trans, __global const int *info, int skip_singular,
                     __local REAL *red)
{
    const long g = get_group_id(0), s = g / nrhs;
    const int t = (int)get_local_id(0), L = (int)get_local_size(0);
    if (skip_singular && info[s] != 0)
        return; /* the whole group */
    __global const REAL *A = A0 + s * sA;
    __global const int *ipiv = ipiv0 + s * n;
    __global REAL *b = B0 + s * sB + (g % nrhs) * bcs;
#define BX(i) b[(long)(i) * brs]
    if (!trans) {
        if (t == 0)
            for (int k = 0; k < n; k++) {
                const int p = ipiv[k] - 1;
                if (p != k) {
                    REAL x = BX(k);
                    BX(k) = BX(p);
                    BX(p) = x;
                }
            }
        SYNC();
        for (int k = 0; k < n; k++) { /* L y = P b */
            const REAL y = BX(k);
            for (int i = k + 1 + t; i < n; i += L)
                BX(i) -= AT(A, i, k) * y;
            SYNC();
        }
        for (int k = n - 1; k >= 0; k--) { /* U x = y */
            const REAL x = BX(k) / AT(A, k, k);
            SYNC(); /* every work-item has read b(k) before it is written */
            for (int i = t; i < k; i += L)
                BX(i) -= AT(A, i, k) * x;
            if (t == 0)
                BX(k) = x;
            SYNC();
        }
    } else {
        for (int k = 0; k < n; k++) { /* U^T y = b */
            REAL part = 0;
            for (int i = t; i < k; i += L)
                part += AT(A, i, k) * BX(i);
            const REAL sum = ls_group_sum(part, red);
            if (t == 0)
                BX(k) = (BX(k) - sum) / AT(A, k, k);
            SYNC();
        }
        for (int k = n - 1; k >= 0; k--) { /* L^T z = y */
            REAL part = 0;
            for (int i = k + 1 + t; i < n; i += L)
                part += AT(A, i, k) * BX(i);
            const REAL sum = ls_group_sum(part, red);
            if (t == 0)
                BX(k) -= sum;
            SYNC();
        }
        if (t == 0)
            for (int k = n - 1; k >= 0; k--) { /* x = P z */
                const int p = ipiv[k] - 1;
                if (p != k) {
                    REAL x = BX(k);
                    BX(k) = BX(p);
                    BX(p) = x;
                }
            }
    }
#undef BX
}
