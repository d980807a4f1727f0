/* Counting models; docs/metrics.md states each one. A solve's bytes and
 * flops are the method table's (core/methods/methods.c), the same numbers `solve`
 * reports; the kernel models of the measurement tools live here. */
#include "core/methods/methods.h"
#include "models.h"

double ls_model_bytes(ls_method m, int n, int nrhs, int elem_bytes, int iterations)
{
    return ls_method_bytes(m, n, nrhs, elem_bytes, iterations);
}

double ls_model_flops(ls_method m, int n, int nrhs, int iterations)
{
    return ls_method_flops(m, n, nrhs, iterations);
}

void ls_model_gemm(int m, int p, int elem_bytes, ls_model_xfer *out)
{
    /* (m/p)^2 blocks, m/p steps, each loading two p x p tiles as p^2/16
     * half-warp transactions; one write transaction per 16 results. For
     * p = 16, float: m^3/128 + m^2/16 transactions, V = m^3/2 + 4 m^2 as in
     * Panchatcharam, Sundar & Klar (2013). Aligned, all bytes used: beta = 1. */
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
    /* Pattam's configuration: findPivot n-k threads, multipliers n-k-1,
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
    double acc = ideal ? 2.0 * (double)n * n + 2.0 * (double)n * nrhs
                       : ls_method_bytes(LS_METHOD_LU_SEED, n, nrhs, 1, 0);
    return acc > 0 ? flops / acc : 0.0;
}
