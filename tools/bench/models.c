/* Counting models; docs/metrics.md states each one. Sums run in O(n) so
 * they stay exact for any n without closed forms that could drift. */
#include "models.h"

static double ge_family_elems(int n, int r)
{
    /* Per pivot k: the pivot search reads m+1 (m = n-k-1 rows below), a row
     * exchange reads and writes 2 rows of w = n-k+r entries (counted always:
     * the worst case), the elimination reads the pivot row once and reads
     * and writes the m x w trailing block of [A|B]. Back substitution reads
     * the upper triangle once per right-hand-side block and reads/writes X. */
    double e = 0.0;
    for (int k = 0; k < n; k++) {
        double m = n - k - 1, w = n - k + r;
        e += (m + 1) + 4.0 * w + w + 2.0 * m * w;
    }
    return e + 0.5 * (double)n * (n + 1) + 2.0 * (double)n * r;
}

static double gj_elems(int n, int r)
{
    /* Gauss-Jordan: each pivot eliminates in all n-1 other rows over the
     * w = n-k+r columns right of it, after the same search and exchange;
     * the final scaling reads the diagonal and reads/writes X. */
    double e = 0.0;
    for (int k = 0; k < n; k++) {
        double m = n - k - 1, w = n - k + r;
        e += (m + 1) + 4.0 * w + w + 2.0 * (n - 1) * w;
    }
    return e + n + 2.0 * (double)n * r;
}

static double blocked_lu_elems(int n, int r)
{
    /* Right-looking LU with panels of NB: each panel step reads and writes
     * the trailing (n-j) x (n-j) matrix once; getrs reads L and U once and
     * reads/writes B. Cache reuse inside an update is not counted. */
    double e = 0.0;
    for (int j = 0; j < n; j += LS_MODEL_LU_NB) {
        double t = n - j;
        e += 2.0 * t * t;
    }
    return e + (double)n * n + 2.0 * (double)n * r;
}

static double luseed_elems(int n, int r)
{
    /* Seed 002's kernels per column k (m = n-k-1): findPivot reads m+1;
     * swap reads and writes 2 rows of A (n) and of B (r); multipliers read
     * m+1 and write m; the update reads L(:,k) (m), the pivot row once per
     * 16-row block (m*ceil(m/16)/..., modelled m*m/16) and reads and writes
     * the m x m block. Substitutions read each triangle and read/write x. */
    double e = 0.0;
    for (int k = 0; k < n; k++) {
        double m = n - k - 1;
        e += (m + 1) + 4.0 * (n + r) + (2.0 * m + 1) + m + m * m / 16.0 + 2.0 * m * m;
    }
    return e + (double)n * n * r + 4.0 * (double)n * r;
}

double ls_model_bytes(ls_method m, int n, int nrhs, int elem_bytes, int iterations)
{
    if (n <= 0)
        return 0.0;
    double e;
    switch (m) {
    case LS_METHOD_GE:
    case LS_METHOD_GE_NAIVE:
    case LS_METHOD_GE_BLOCKED:
    case LS_METHOD_GE_COALESCED:
    case LS_METHOD_GE_LOCAL:
    case LS_METHOD_GE_IMAGE:
    case LS_METHOD_GE_BUFFER:
        e = ge_family_elems(n, nrhs);
        break;
    case LS_METHOD_GJ1:
    case LS_METHOD_GJ2:
        e = gj_elems(n, nrhs);
        break;
    case LS_METHOD_LU_SEED:
        e = luseed_elems(n, nrhs);
        break;
    case LS_METHOD_BICGSTAB: {
        /* Seed 001's BiCGStab count: 2k+1 matvecs (n^2 + 2n each), 5k dot
         * products (2n), 5k+1 vector updates (3n). */
        double k = iterations > 0 ? iterations : 0;
        e = (2 * k + 1) * ((double)n * n + 2.0 * n) + 5 * k * 2.0 * n + (5 * k + 1) * 3.0 * n;
        e *= nrhs;
        break;
    }
    default:
        e = blocked_lu_elems(n, nrhs);
        break;
    }
    return e * elem_bytes;
}

double ls_model_flops(ls_method m, int n, int nrhs, int iterations)
{
    if (m == LS_METHOD_BICGSTAB) {
        double k = iterations > 0 ? iterations : 0;
        return nrhs * ((2 * k + 1) * (2.0 * n * n - n) + 20.0 * k * n);
    }
    return ls_flops_gesv(n, nrhs);
}

void ls_model_gemm(int m, int p, int elem_bytes, ls_model_xfer *out)
{
    /* (m/p)^2 blocks, m/p steps, each loading two p x p tiles as p^2/16
     * half-warp transactions; one write transaction per 16 results. For
     * p = 16, float: m^3/128 + m^2/16 transactions, V = m^3/2 + 4 m^2 as in
     * seed 001. Aligned, all bytes used: beta = 1. */
    double dm = m, dp = p > 0 ? p : 16;
    out->transactions = dm * dm * dm / (8.0 * dp) + dm * dm / 16.0;
    out->transaction_bytes = 16.0 * elem_bytes;
    out->volume = out->transactions * out->transaction_bytes;
    out->beta = 1.0;
}

void ls_model_gemv(int m, int p, int elem_bytes, ls_model_xfer *out)
{
    /* A: m^2/16 half-warp transactions (column-major rows are coalesced);
     * x: each of m/p blocks loads all of x through shared memory, m/16
     * transactions per block; y: m/16 writes. beta = 1 when p | m. */
    double dm = m, dp = p > 0 ? p : 16;
    out->transactions = dm * dm / 16.0 + (dm / dp) * (dm / 16.0) + dm / 16.0;
    out->transaction_bytes = 16.0 * elem_bytes;
    out->volume = out->transactions * out->transaction_bytes;
    out->beta = 1.0;
}

double ls_model_luseed_threads(int n, double swaps)
{
    /* Seed 002's configuration: findPivot n-k threads, multipliers n-k-1,
     * update (n-k-1)^2, swap n per exchange, and one thread for each of the
     * n steps of forward and of backward substitution. */
    double t = 0.0;
    for (int k = 0; k + 1 < n; k++) {
        double m = n - k - 1;
        t += (m + 1) + m + m * m;
    }
    return t + swaps * n + 2.0 * n;
}

double ls_model_luseed_peak_threads(int n) { return n > 1 ? (double)(n - 1) * (n - 1) : 1.0; }

double ls_model_luseed_cgma(int n, int nrhs, int ideal)
{
    double flops = ls_flops_gesv(n, nrhs);
    double acc = ideal ? 2.0 * (double)n * n + 2.0 * (double)n * nrhs : luseed_elems(n, nrhs);
    return acc > 0 ? flops / acc : 0.0;
}
