/* LU with partial pivoting (Pattam's kernels: findPivot, swapRows,
 * computeMultipliers, updateSubmatrix) on a column-major m x n matrix A
 * with leading dimension lda, then getrs' triangular solves. Column-major
 * keeps the pivot column contiguous and lets the host copy LAPACK-layout
 * factors back without a transpose. */

/* One work-group: largest |A(i,k)|, i >= k; ties to the smallest row as
 * LAPACK's i?amax; an exactly zero pivot sets info = k + 1 once. */
__kernel void lu_pivot(__global const REAL *A, int m, int lda, int k, int search,
                       __global int *piv, __global int *info, __local REAL *best,
                       __local int *best_row)
{
    int lid = (int)get_local_id(0);
    int L = (int)get_local_size(0);
    __global const REAL *col = A + (size_t)k * lda;
    REAL bv = (REAL)-1;
    int br = k;
    if (search) {
        for (int i = k + lid; i < m; i += L) {
            REAL v = fabs(col[i]);
            if (v > bv) {
                bv = v;
                br = i;
            }
        }
    } else if (lid == 0) {
        bv = fabs(col[k]);
    }
    ls_pivot_record(bv, br, k, piv, info, best, best_row);
}

/* Exchange rows k and piv[k] over all n columns (L's part too, as LAPACK). */
__kernel void lu_swap(__global REAL *A, int n, int lda, int k, __global const int *piv)
{
    int p = piv[k];
    int j = (int)get_global_id(0);
    if (p == k || j >= n)
        return;
    __global REAL *col = A + (size_t)j * lda;
    REAL t = col[k];
    col[k] = col[p];
    col[p] = t;
}

/* Multipliers L(i,k) = A(i,k) / A(k,k), i > k; a zero pivot leaves the
 * (all-zero) column alone, as LAPACK's getf2 does. */
__kernel void lu_scale(__global REAL *A, int m, int lda, int k)
{
    int i = k + 1 + (int)get_global_id(0);
    __global REAL *col = A + (size_t)k * lda;
    REAL pv = col[k];
    if (i < m && pv != (REAL)0)
        col[i] /= pv;
}

/* Rank-1 update of the trailing block, A(i,j) -= L(i,k) U(k,j), in tiles:
 * each work-group stages its slice of column k and of row k in local
 * memory once instead of every work-item reading both from global. Dim 0
 * runs down a column, so neighbouring work-items touch neighbouring words. */
__kernel void lu_update(__global REAL *A, int m, int n, int lda, int k, __local REAL *colk,
                        __local REAL *rowk)
{
    int li = (int)get_local_id(0);
    int lj = (int)get_local_id(1);
    int i = k + 1 + (int)get_global_id(0);
    int j = k + 1 + (int)get_global_id(1);
    if (lj == 0)
        colk[li] = i < m ? A[(size_t)k * lda + i] : (REAL)0;
    if (li == 0)
        rowk[lj] = j < n ? A[(size_t)j * lda + k] : (REAL)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < m && j < n)
        A[(size_t)j * lda + i] -= colk[li] * rowk[lj];
}

/* getrs step 1: apply the interchanges to B, one work-item per column. */
__kernel void lu_laswp(__global REAL *B, int n, int ldb, int nrhs, __global const int *piv)
{
    int c = (int)get_global_id(0);
    if (c >= nrhs)
        return;
    __global REAL *b = B + (size_t)c * ldb;
    for (int k = 0; k < n; ++k) {
        int p = piv[k];
        if (p != k) {
            REAL t = b[k];
            b[k] = b[p];
            b[p] = t;
        }
    }
}

/* getrs step 2: L y = b (unit lower), one work-group per right-hand side;
 * column by column, the rows below are updated in parallel. */
__kernel void lu_lower_solve(__global const REAL *A, int n, int lda, __global REAL *B, int ldb)
{
    int lid = (int)get_local_id(0);
    int L = (int)get_local_size(0);
    __global REAL *b = B + (size_t)get_group_id(0) * ldb;
    for (int j = 0; j < n; ++j) {
        REAL yj = b[j];
        __global const REAL *col = A + (size_t)j * lda;
        for (int i = j + 1 + lid; i < n; i += L)
            b[i] -= col[i] * yj;
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}

/* getrs step 3: U x = y, same pattern from the bottom up. */
__kernel void lu_upper_solve(__global const REAL *A, int n, int lda, __global REAL *B, int ldb)
{
    int lid = (int)get_local_id(0);
    int L = (int)get_local_size(0);
    __global REAL *b = B + (size_t)get_group_id(0) * ldb;
    for (int j = n - 1; j >= 0; --j) {
        __global const REAL *col = A + (size_t)j * lda;
        REAL xj = b[j] / col[j];
        barrier(CLK_GLOBAL_MEM_FENCE); /* all have read b[j] before it changes */
        if (lid == 0)
            b[j] = xj;
        for (int i = lid; i < j; i += L)
            b[i] -= col[i] * xj;
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}
