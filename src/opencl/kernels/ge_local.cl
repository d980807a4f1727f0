/* TendTo's Linear-System-Solver, local-memory variant: one work-group holds the whole augmented
 * matrix (n rows of w = n + nrhs) in local memory, so the steps synchronise
 * with barriers instead of kernel launches: O(1) launches. Partial pivoting
 * (pivot search and swap inside the kernel) unless pivoting == 0. Every
 * loop below has a trip count uniform across the group, so all work-items
 * reach every barrier, and no branch encloses a loop (a loop's bounds say
 * when there is nothing to do): PoCL 5.0's work-group compiler, Ubuntu
 * 24.04's, aborted on a loop inside an `if` between two barriers
 * ("Assertion `region_entry_barrier != NULL' failed"). */
__kernel void ge_local(__global const REAL *M, int n, int w, int pivoting, __global REAL *X,
                       __global int *piv, __global int *info, __local REAL *lm,
                       __local REAL *best, __local int *best_row)
{
    int lid = (int)get_local_id(0);
    int L = (int)get_local_size(0);
    int nrhs = w - n;
    for (size_t t = lid; t < (size_t)n * w; t += L)
        lm[t] = M[t];
    barrier(CLK_LOCAL_MEM_FENCE);

    int zero_at = 0;
    for (int k = 0; k < n; ++k) {
        REAL bv = (REAL)-1;
        int br = k;
        if (!pivoting && lid == 0)
            bv = fabs(lm[k * w + k]);
        for (int i = pivoting ? k + lid : n; i < n; i += L) {
            REAL v = fabs(lm[i * w + k]);
            if (v > bv) {
                bv = v;
                br = i;
            }
        }
        ls_group_argmax(bv, br, best, best_row); /* all work-items: barriers */
        int p = best_row[0];
        if (best[0] == (REAL)0 && zero_at == 0)
            zero_at = k + 1;
        if (lid == 0)
            piv[k] = p;
        barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read best* before reuse */
        for (int j = p != k ? k + lid : w; j < w; j += L) {
            REAL t = lm[k * w + j];
            lm[k * w + j] = lm[p * w + j];
            lm[p * w + j] = t;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        int cols = w - k - 1;
        int count = (n - k - 1) * cols;
        REAL pv = lm[k * w + k];
        for (int t = lid; t < count; t += L) {
            int i = k + 1 + t / cols;
            int j = k + 1 + t % cols;
            REAL f = LS_MULTIPLIER(lm[i * w + k], pv);
            lm[i * w + j] -= f * lm[k * w + j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        info[0] = zero_at;
    /* No early return on a zero pivot even though zero_at is uniform: PoCL 5
     * cannot prove that, and a return before the barriers below trips its
     * region builder. The substitution runs (on garbage) and X is not written. */

    /* Result vector: per row an O(log L) reduction in `best`; solutions
     * replace the right-hand side column in local memory. */
    for (int c = 0; c < nrhs; ++c) {
        for (int i = n - 1; i >= 0; --i) {
            REAL s = (REAL)0;
            for (int j = i + 1 + lid; j < n; j += L)
                s += lm[i * w + j] * lm[j * w + n + c];
            const REAL sum = ls_group_sum(s, best);
            if (lid == 0)
                lm[i * w + n + c] = (lm[i * w + n + c] - sum) / lm[i * w + i];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (int i = lid; i < n && zero_at == 0; i += L)
            X[(size_t)c * n + i] = lm[i * w + n + c];
    }
}
