/* randsvd and the 5-point stencils (see gen_internal.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "gen_internal.h"

void ls_gen_stencil(int k, double *A, int lda, double diag, double west, double east,
                    double south, double north)
{
    int n = k * k;
    for (int j = 0; j < n; j++)
        memset(A + (size_t)j * lda, 0, sizeof(double) * (size_t)n);
    /* Unknown p = ix + k*iy; row p couples p to its grid neighbours. */
    for (int iy = 0; iy < k; iy++)
        for (int ix = 0; ix < k; ix++) {
            size_t p = (size_t)ix + (size_t)k * iy;
            A[p + p * lda] = diag;
            if (ix > 0)
                A[p + (p - 1) * lda] = west;
            if (ix < k - 1)
                A[p + (p + 1) * lda] = east;
            if (iy > 0)
                A[p + (p - k) * lda] = south;
            if (iy < k - 1)
                A[p + (p + k) * lda] = north;
        }
}

/* Reflectors are applied in blocks of this many: their vectors (n x RB)
 * stay in cache while each column of A takes all of them in turn. */
enum { RANDSVD_RB = 32 };

/* A := H_1 H_2 ... (n random Householder reflectors) A, H = I - 2 v v^T / v^T v.
 * A left product acts on each column separately, so columns run in parallel
 * and each stays in L1 while a block of reflectors passes over it. */
static void apply_random_reflectors(int n, double *A, int lda, uint64_t *state, double *V)
{
    double factor[RANDSVD_RB];
    for (int r0 = 0; r0 < n; r0 += RANDSVD_RB) {
        int rb = n - r0 < RANDSVD_RB ? n - r0 : RANDSVD_RB;
        for (int r = 0; r < rb; r++) {
            double vv = 0, *v = V + (size_t)r * n;
            for (int i = 0; i < n; i++) {
                v[i] = ls_rand_uniform(state);
                vv += v[i] * v[i];
            }
            factor[r] = vv > 0 ? 2.0 / vv : 0.0; /* v = 0: H = I */
        }
#pragma omp parallel for schedule(static) if (n > 128)
        for (int j = 0; j < n; j++) {
            double *a = A + (size_t)j * lda;
            for (int r = 0; r < rb; r++) {
                const double *v = V + (size_t)r * n;
                double d = 0;
                for (int i = 0; i < n; i++)
                    d += v[i] * a[i];
                d *= factor[r];
                for (int i = 0; i < n; i++)
                    a[i] -= d * v[i];
            }
        }
    }
}

static void transpose_in_place(int n, double *A, int lda)
{
    for (int j = 0; j < n; j++)
        for (int i = j + 1; i < n; i++) {
            double t = A[i + (size_t)j * lda];
            A[i + (size_t)j * lda] = A[j + (size_t)i * lda];
            A[j + (size_t)i * lda] = t;
        }
}

/* A = U S V^T with U and V products of n random Householder reflectors:
 * X = U S, then A^T = V X^T, both as left products. Orthogonal to rounding,
 * so the 2-norm condition number is cond to within a few ulps. O(8 n^3). */
int ls_gen_randsvd(int n, double *A, int lda, uint64_t seed, double cond)
{
    size_t count;
    if (ls_mul_size((size_t)n, RANDSVD_RB, &count) || count > SIZE_MAX / sizeof(double))
        return LS_ENOMEM;
    double *V = ls_malloc(count * sizeof(double));
    if (!V)
        return LS_ENOMEM;
    for (int j = 0; j < n; j++) {
        memset(A + (size_t)j * lda, 0, sizeof(double) * (size_t)n);
        A[j + (size_t)j * lda] = n > 1 ? pow(cond, -(double)j / (double)(n - 1)) : 1.0;
    }
    uint64_t state = seed;
    apply_random_reflectors(n, A, lda, &state, V);
    transpose_in_place(n, A, lda);
    apply_random_reflectors(n, A, lda, &state, V);
    transpose_in_place(n, A, lda);
    free(V);
    return 0;
}
