/*
 * The distributed benchmark's device-drawn random matrix (src/dist/cuda/
 * k_gen.cu) against the host generator: every column each of g devices
 * holds in cuSOLVERMg's 1-D block-cyclic layout equals ls_generate_block's
 * bit for bit, b = A * ones and the row sums of |A| equal the host's sums
 * in column order bit for bit, and b - A x matches the host's to rounding.
 * n in {1, 63, 300}, nb in {1, 32, 64}, g in {1, 2, 3}, on device 0 (the
 * layout's device index only picks the columns). 77 without a GPU.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k_gen.h"
#include "linsolve.h"

static int fails;

static void check(int ok, const char *what, int n, int nb, int g)
{
    if (!ok) {
        fprintf(stderr, "FAILED: %s (n %d, nb %d, g %d)\n", what, n, nb, g);
        ++fails;
    }
}

static void *dev(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc of %zu bytes failed\n", bytes);
        exit(1);
    }
    return p;
}

static void columns(int n, int nb, int g, uint64_t seed, double *host_col)
{
    const int nblk = (n + nb - 1) / nb;
    const long long ncols = (long long)((nblk + g - 1) / g) * nb;
    double *dA = dev(sizeof(double) * (size_t)n * (size_t)ncols);
    double *A = malloc(sizeof(double) * (size_t)n * (size_t)ncols);
    for (int d = 0; d < g; ++d) {
        int e = ls_dist_k_gen_random_cols(n, nb, g, d, ncols, dA, n, seed, 0);
        e |= (int)cudaMemcpy(A, dA, sizeof(double) * (size_t)n * (size_t)ncols,
                             cudaMemcpyDeviceToHost);
        check(e == 0, "launch", n, nb, g);
        for (long long lj = 0; lj < ncols; ++lj) {
            const long long j = ((lj / nb) * g + d) * nb + lj % nb;
            if (j >= n)
                continue;
            ls_generate_block(LS_GEN_RANDOM, n, 0, (int)j, n, 1, host_col, n, seed);
            if (memcmp(host_col, A + lj * n, sizeof(double) * (size_t)n) != 0) {
                check(0, "a column differs from ls_generate_block's", n, nb, g);
                break;
            }
        }
    }
    cudaFree(dA);
    free(A);
}

static void sums(int n, uint64_t seed)
{
    double *A = malloc(sizeof(double) * (size_t)n * (size_t)n);
    double *h = calloc(6 * (size_t)n, sizeof(double)); /* b, |A| sums, x, r; device b, |A| */
    double *hb = h, *ha = h + n, *x = h + 2 * n, *r = h + 3 * n, *db = h + 4 * n, *da = h + 5 * n;
    double *d = dev(sizeof(double) * 4 * (size_t)n);
    ls_generate_block(LS_GEN_RANDOM, n, 0, 0, n, n, A, n, seed);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            hb[i] += A[i + (size_t)j * n];
            ha[i] += fabs(A[i + (size_t)j * n]);
        }
    int e = ls_dist_k_gen_random_rowsums(n, seed, d, d + n, 0);
    e |= (int)cudaMemcpy(db, d, sizeof(double) * 2 * (size_t)n, cudaMemcpyDeviceToHost);
    check(e == 0 && memcmp(hb, db, sizeof(double) * n) == 0, "b = A * ones differs", n, 0, 0);
    check(e == 0 && memcmp(ha, da, sizeof(double) * n) == 0, "row sums of |A| differ", n, 0, 0);
    for (int i = 0; i < n; ++i)
        x[i] = 1.0 + (double)i / n;
    e = (int)cudaMemcpy(d + 2 * (size_t)n, x, sizeof(double) * n, cudaMemcpyHostToDevice);
    e |= ls_dist_k_gen_random_residual(n, seed, d + 2 * (size_t)n, d, d + 3 * (size_t)n, 0);
    e |= (int)cudaMemcpy(r, d + 3 * (size_t)n, sizeof(double) * n, cudaMemcpyDeviceToHost);
    double worst = 0, scale = 0;
    for (int i = 0; i < n; ++i) {
        double s = hb[i];
        for (int j = 0; j < n; ++j)
            s -= A[i + (size_t)j * n] * x[j];
        worst = fmax(worst, fabs(s - r[i]));
        scale = fmax(scale, ha[i] * 2.0);
    }
    check(e == 0 && worst <= 4.0 * n * 1.1e-16 * scale, "b - A x differs", n, 0, 0);
    /* and a wrong x must show: the check above is not vacuous */
    check(fabs(r[0]) > 0 || n == 1, "b - A x is exactly zero for x != ones", n, 0, 0);
    cudaFree(d);
    free(A);
    free(h);
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    const int ns[] = {1, 63, 300}, nbs[] = {1, 32, 64};
    double *col = malloc(sizeof(double) * 300);
    for (int a = 0; a < 3; ++a) {
        const uint64_t seed = 11u + (uint64_t)ns[a];
        for (int b = 0; b < 3; ++b)
            for (int g = 1; g <= 3; ++g)
                columns(ns[a], nbs[b], g, seed, col);
        sums(ns[a], seed);
    }
    free(col);
    printf("%s: device-drawn random matrix, %d failure(s)\n", fails ? "FAILED" : "ok", fails);
    return fails != 0;
}
