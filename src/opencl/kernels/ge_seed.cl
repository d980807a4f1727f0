/* Li (2025): three forward-elimination kernels for step k on the row-major
 * augmented matrix M (n rows, w = n + nrhs columns). Column k itself is
 * never written: every work-item of a row reads M[row][k] for its
 * multiplier, and back substitution reads only the upper triangle, so
 * leaving it avoids the read/write race the report's coalesced kernel has. */

/* ge-naive: one work-item per row below the pivot. */
__kernel void ge_naive(__global REAL *M, int n, int w, int k)
{
    int i = k + 1 + (int)get_global_id(0);
    if (i >= n)
        return;
    __global REAL *row = M + (size_t)i * w;
    __global const REAL *prow = M + (size_t)k * w;
    REAL f = LS_MULTIPLIER(row[k], prow[k]);
    if (f == (REAL)0)
        return;
    for (int j = k + 1; j < w; ++j)
        row[j] -= f * prow[j];
}

/* ge-blocked: the work-group caches the pivot row in local memory, in
 * chunks of `chunk` entries so any n fits the device's local memory. */
__kernel void ge_blocked(__global REAL *M, int n, int w, int k, int chunk,
                         __local REAL *pivot_cache)
{
    int lid = (int)get_local_id(0);
    int L = (int)get_local_size(0);
    int i = k + 1 + (int)get_global_id(0);
    __global const REAL *prow = M + (size_t)k * w;
    __global REAL *row = M + (size_t)(i < n ? i : k) * w;
    REAL f = i < n ? LS_MULTIPLIER(row[k], prow[k]) : (REAL)0;
    for (int j0 = k + 1; j0 < w; j0 += chunk) {
        int len = min(chunk, w - j0);
        for (int t = lid; t < len; t += L)
            pivot_cache[t] = prow[j0 + t];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i < n && f != (REAL)0)
            for (int t = 0; t < len; ++t)
                row[j0 + t] -= f * pivot_cache[t];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* ge-coalesced: one work-item per element of the trailing block, adjacent
 * work-items on adjacent columns of one row. */
__kernel void ge_coalesced(__global REAL *M, int n, int w, int k)
{
    size_t g = get_global_id(0);
    size_t cols = (size_t)(w - k - 1);
    if (cols == 0 || g >= (size_t)(n - k - 1) * cols)
        return;
    int i = k + 1 + (int)(g / cols);
    int j = k + 1 + (int)(g % cols);
    REAL f = LS_MULTIPLIER(M[(size_t)i * w + k], M[(size_t)k * w + k]);
    M[(size_t)i * w + j] -= f * M[(size_t)k * w + j];
}
