/* Quispe Ccapacca's Gauss-Jordan models on the row-major augmented matrix M (n
 * rows, w = n + nrhs), with partial pivoting (rowops.cl) before each step.
 * The source normalises the pivot row inside every work-item, a race; here
 * rows keep their pivot and gj_result divides once at the end, which gives
 * the same reduced system. No kernel writes what another of its work-items
 * reads: column k and row k are read-only during step k. */

/* Model 1, forward: eliminate below pivot k, columns k+1 .. w-1. */
__kernel void gj1_forward(__global REAL *M, int n, int w, int k)
{
    int j = k + 1 + (int)get_global_id(0);
    int i = k + 1 + (int)get_global_id(1);
    if (j >= w || i >= n)
        return;
    REAL f = LS_MULTIPLIER(M[(size_t)i * w + k], M[(size_t)k * w + k]);
    M[(size_t)i * w + j] -= f * M[(size_t)k * w + j];
}

/* Model 1, backward: with A upper triangular only the right-hand sides
 * change: rows i < k lose A[i][k] x_k, x_k = B[k] / A[k][k]. */
__kernel void gj1_backward(__global REAL *M, int n, int w, int k)
{
    int c = (int)get_global_id(0);
    int i = (int)get_global_id(1);
    int nrhs = w - n;
    if (c >= nrhs || i >= k)
        return;
    REAL xk = M[(size_t)k * w + n + c] / M[(size_t)k * w + k];
    M[(size_t)i * w + n + c] -= M[(size_t)i * w + k] * xk;
}

/* Model 2: one pass eliminating above and below pivot k. */
__kernel void gj2_step(__global REAL *M, int n, int w, int k)
{
    int j = k + 1 + (int)get_global_id(0);
    int i = (int)get_global_id(1);
    if (j >= w || i >= n || i == k)
        return;
    REAL f = LS_MULTIPLIER(M[(size_t)i * w + k], M[(size_t)k * w + k]);
    M[(size_t)i * w + j] -= f * M[(size_t)k * w + j];
}

/* Quispe Ccapacca's kernel 4: X from the reduced right-hand sides (diagonal
 * system). */
__kernel void gj_result(__global const REAL *M, int n, int w, __global REAL *X)
{
    int i = (int)get_global_id(0);
    int c = (int)get_global_id(1);
    if (i >= n || c >= w - n)
        return;
    X[(size_t)c * n + i] = M[(size_t)i * w + n + c] / M[(size_t)i * w + i];
}
