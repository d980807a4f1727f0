/* TendTo's Linear-System-Solver, buffer ping-pong: step k reads `in` and writes `out`, so no
 * work-item ever reads an element another one writes in the same launch.
 * Partial pivoting is folded into the frame: the pivot row p = piv[k]
 * (found on `in` by pivot_search) is written to out row k, and the old row
 * k takes row p's place, so no separate swap launch is needed. Rows < k are
 * final and not copied: row i ends in buffer (i+1)%2 (row n-1 in (n-1)%2),
 * which back_substitute's layout 1 knows. */
__kernel void frame_buffer(__global const REAL *in, __global REAL *out, int n, int w, int k,
                           __global const int *piv)
{
    int j = k + (int)get_global_id(0);
    int i = k + (int)get_global_id(1);
    if (j >= w || i >= n)
        return;
    int p = piv[k];
    __global const REAL *prow = in + (size_t)p * w;
    if (i == k) {
        out[(size_t)k * w + j] = prow[j];
        return;
    }
    int src = i == p ? k : i;
    __global const REAL *srow = in + (size_t)src * w;
    REAL f = LS_MULTIPLIER(srow[k], prow[k]);
    out[(size_t)i * w + j] = srow[j] - f * prow[j];
}
