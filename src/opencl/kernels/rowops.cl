/* Row operations on the row-major augmented matrix M = [A | B] (n rows of
 * w = n + nrhs entries), shared by the GE and Gauss-Jordan variants. */

/* One work-group finds the row of largest |M[i][k]| for i >= k; ties go to
 * the smallest row, as LAPACK's i?amax. search == 0 (LS_PIVOT_NONE) takes
 * the diagonal. An exactly zero pivot sets info = k + 1 once (LAPACK). */
__kernel void pivot_search(__global const REAL *M, int n, int w, int k, int search,
                           __global int *piv, __global int *info, __local REAL *best,
                           __local int *best_row)
{
    int lid = (int)get_local_id(0);
    int L = (int)get_local_size(0);
    REAL bv = (REAL)-1;
    int br = k;
    if (search) {
        for (int i = k + lid; i < n; i += L) {
            REAL v = fabs(M[(size_t)i * w + k]);
            if (v > bv) {
                bv = v;
                br = i;
            }
        }
    } else if (lid == 0) {
        bv = fabs(M[(size_t)k * w + k]);
    }
    ls_pivot_record(bv, br, k, piv, info, best, best_row);
}

/* Exchange rows k and piv[k], columns col0 .. w-1; reads the pivot on the
 * device so the host never waits between steps. */
__kernel void swap_rows(__global REAL *M, int w, int k, int col0, __global const int *piv)
{
    int p = piv[k];
    int j = col0 + (int)get_global_id(0);
    if (p == k || j >= w)
        return;
    REAL t = M[(size_t)k * w + j];
    M[(size_t)k * w + j] = M[(size_t)p * w + j];
    M[(size_t)p * w + j] = t;
}

/* Where row i of the final upper-triangular system lives (see the host's
 * ocl_back_substitute): layout 0 one buffer, layout 1 ping-pong pair. */
__global const REAL *final_row(__global const REAL *M0, __global const REAL *M1, int layout,
                               int n, int w, int i)
{
    int which = 0;
    if (layout == 1)
        which = (i < n - 1 ? i + 1 : n - 1) & 1;
    return (which ? M1 : M0) + (size_t)i * w;
}

/* Back substitution, one work-group per right-hand side c (the result
 * vector of TendTo's Linear-System-Solver): each row's sum over the known
 * unknowns is a strided partial sum per work-item and an O(log L) tree
 * reduction, so any n works with a local buffer of the group size. X is column-major n x nrhs. */
__kernel void back_substitute(__global const REAL *M0, __global const REAL *M1, int layout,
                              int n, int w, __global REAL *X, __local REAL *partial)
{
    int c = (int)get_group_id(0);
    int lid = (int)get_local_id(0);
    int L = (int)get_local_size(0);
    __global REAL *x = X + (size_t)c * n;
    for (int i = n - 1; i >= 0; --i) {
        __global const REAL *row = final_row(M0, M1, layout, n, w, i);
        REAL s = (REAL)0;
        for (int j = i + 1 + lid; j < n; j += L)
            s += row[j] * x[j];
        const REAL sum = ls_group_sum(s, partial);
        if (lid == 0)
            x[i] = (row[n + c] - sum) / row[i];
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    }
}
