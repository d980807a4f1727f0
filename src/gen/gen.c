/*
 * Deterministic test matrices: the same (kind, n, seed, cond) always gives
 * the same bytes, on every platform (splitmix64 from core/util.h).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/util.h"
#include "gen_internal.h"

void ls_fill_random(int m, int n, double *A, int lda, uint64_t seed)
{
    if (m <= 0 || n <= 0 || !A || lda < m)
        return;
    uint64_t state = seed;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            A[i + (size_t)j * lda] = ls_rand_uniform(&state);
}

static void fill_zero(int n, double *A, int lda)
{
    for (int j = 0; j < n; j++)
        memset(A + (size_t)j * lda, 0, sizeof(double) * (size_t)n);
}

/* Strict diagonal dominance by rows: |a_ii| = sum_{j != i} |a_ij| + 1. */
static void make_diagdom(int n, double *A, int lda)
{
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            if (j != i)
                s += fabs(A[i + (size_t)j * lda]);
        A[i + (size_t)i * lda] = s + 1.0;
    }
}

/* Higham's kahan(n, theta = 1.2, pert = 25):
 * diag(1, s, ..., s^(n-1)) (I - c * strict upper ones) + pert*eps*diag(n..1),
 * s = sin(theta), c = cos(theta). Upper triangular with a positive diagonal,
 * hence nonsingular; ill-conditioned (~1e17 by n = 100 in exact terms). */
static void make_kahan(int n, double *A, int lda)
{
    const double theta = 1.2, pert = 25.0;
    double s = sin(theta), c = cos(theta), scale = 1.0;
    fill_zero(n, A, lda);
    for (int i = 0; i < n; i++) {
        A[i + (size_t)i * lda] = scale + pert * DBL_EPSILON * (double)(n - i);
        for (int j = i + 1; j < n; j++)
            A[i + (size_t)j * lda] = -c * scale;
        scale *= s;
    }
}

/* Wilkinson's matrix of maximal growth under partial pivoting: 1 on the
 * diagonal, -1 below it, 1 in the last column; U(n,n) = 2^(n-1). */
static void make_gfpp(int n, double *A, int lda)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            A[i + (size_t)j * lda] = (j == n - 1 || i == j) ? 1.0 : (i > j ? -1.0 : 0.0);
}

int ls_generate(ls_gen_kind kind, int n, double *A, int lda, uint64_t seed, double cond)
{
    if (n < 0 || lda < (n > 1 ? n : 1) || (n > 0 && !A) || kind < 0 || kind >= LS_GEN_COUNT_)
        return LS_EINVAL;
    if (n == 0)
        return 0;
    switch (kind) {
    case LS_GEN_RANDOM:
        ls_fill_random(n, n, A, lda, seed);
        return 0;
    case LS_GEN_DIAGDOM:
        ls_fill_random(n, n, A, lda, seed);
        make_diagdom(n, A, lda);
        return 0;
    case LS_GEN_ZERODIAG:
        ls_fill_random(n, n, A, lda, seed);
        for (int i = 0; i < n; i++)
            A[i + (size_t)i * lda] = 0.0;
        return 0;
    case LS_GEN_HILBERT:
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                A[i + (size_t)j * lda] = 1.0 / (double)(i + j + 1);
        return 0;
    case LS_GEN_GFPP:
        make_gfpp(n, A, lda);
        return 0;
    case LS_GEN_KAHAN:
        make_kahan(n, A, lda);
        return 0;
    case LS_GEN_RANDSVD:
        return ls_gen_randsvd(n, A, lda, seed, cond > 1.0 ? cond : 1e6);
    case LS_GEN_SINGULAR: {
        ls_fill_random(n, n, A, lda, seed);
        /* The zero column is drawn from a stream apart from the entries. */
        uint64_t state = seed ^ 0x5A5A5A5A12345678ull;
        int zc = (int)(ls_rand_u64(&state) % (uint64_t)n);
        memset(A + (size_t)zc * lda, 0, sizeof(double) * (size_t)n);
        return 0;
    }
    case LS_GEN_POISSON2D:
    case LS_GEN_CONVDIFF: {
        int k = (int)llround(sqrt((double)n));
        if ((long long)k * k != n)
            return LS_EINVAL;
        if (kind == LS_GEN_POISSON2D) {
            ls_gen_stencil(k, A, lda, 4.0, -1.0, -1.0, -1.0, -1.0);
        } else {
            /* -Laplace(u) + w . grad(u) on the unit square, h = 1/(k+1),
             * w = (1, 1) * Pe with Pe = 20, central differences, scaled by
             * h^2: the x-neighbours get -1 -/+ Pe h / 2, likewise y. */
            const double pe = 20.0, h = 1.0 / (k + 1.0), g = pe * h / 2.0;
            ls_gen_stencil(k, A, lda, 4.0, -1.0 - g, -1.0 + g, -1.0 - g, -1.0 + g);
        }
        return 0;
    }
    default:
        return LS_EINVAL;
    }
}
