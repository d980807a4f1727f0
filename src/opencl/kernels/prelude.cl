/* Prepended to every kernel family. The host builds each program with
 * -D REAL=float|double -D REAL_IS_DOUBLE=0|1, so one source serves both
 * precisions. */
#if REAL_IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* Multiplier for row elimination. A zero pivot only reaches here when the
 * whole column below it is zero (partial pivoting) or in no-pivot mode; the
 * zero multiplier lets the elimination run to the end as LAPACK's does,
 * while the pivot kernels record info. */
#define LS_MULTIPLIER(a, pivot) ((pivot) != (REAL)0 ? (a) / (pivot) : (REAL)0)

/* Work-group arg-max, the reduction of every pivot search. Each work-item
 * passes its candidate |value| bv (-1 for none) and its row br; on return
 * best[0] holds the largest bv and best_row[0] its row, ties going to the
 * smallest row as LAPACK's i?amax, visible to the whole group. best and
 * best_row have one entry per work-item; the local size is a power of two.
 * It holds barriers: every work-item of the group must call it. */
void ls_group_argmax(REAL bv, int br, __local REAL *best, __local int *best_row)
{
    int lid = (int)get_local_id(0);
    int L = (int)get_local_size(0);
    best[lid] = bv;
    best_row[lid] = br;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = L / 2; s > 0; s >>= 1) {
        if (lid < s) {
            REAL o = best[lid + s];
            int orow = best_row[lid + s];
            if (o > best[lid] || (o == best[lid] && orow < best_row[lid])) {
                best[lid] = o;
                best_row[lid] = orow;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The sum of every work-item's v, returned to all (red: one entry per
 * work-item; the local size is a power of two). Barriers inside, and the
 * caller must pass a barrier before the next call overwrites red[0]. */
REAL ls_group_sum(REAL v, __local REAL *red)
{
    const int t = (int)get_local_id(0), L = (int)get_local_size(0);
    red[t] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (t < h)
            red[t] += red[t + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return red[0];
}

/* The end of a one-group pivot kernel for step k: the arg-max above, then
 * work-item 0 records piv[k] and, for an exactly zero pivot, info = k + 1
 * once (LAPACK). Barriers inside: every work-item must call it. */
void ls_pivot_record(REAL bv, int br, int k, __global int *piv, __global int *info,
                     __local REAL *best, __local int *best_row)
{
    ls_group_argmax(bv, br, best, best_row);
    if (get_local_id(0) == 0) {
        piv[k] = best_row[0];
        if (best[0] == (REAL)0 && info[0] == 0)
            info[0] = k + 1;
    }
}
