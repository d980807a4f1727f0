/*
 * The random butterfly transform of the mixed solver's LS_PIVOT_RBT, one
 * definition for the CPU and the CUDA kernels (host and device code).
 *
 * A' = U^T A V, with U and V butterflies of depth 2 (Parker's RBT, as in
 * MAGMA's gesv_rbt). Each is block diagonal on groups of 4 indices
 * {g, g + q, g + 2q, g + 3q} (q = n / 4, g < q); the up to 3 indices from
 * 4q on are groups of one with weight 1. On a group, W = B1 B0:
 *   B0 pairs (g, g+2q) and (g+q, g+3q), B1 pairs (g, g+q) and (g+2q, g+3q),
 *   each pair (x, y) -> ((a x + b y) / sqrt2, (a x - b y) / sqrt2),
 * with a, b the level's multipliers at the pair's two indices. Multipliers
 * are exp((u - 1/2) / 10), u uniform in [0, 1) from a fixed hash of
 * (level, index): the transform is the same on every run and backend.
 * A x = b becomes A' y = U^T b, x = V y.
 */
#ifndef LS_CORE_RBT_H
#define LS_CORE_RBT_H

#include <math.h>

#if defined(__CUDACC__)
#define LS_RBT_FN static __host__ __device__ inline
#else
#define LS_RBT_FN static inline
#endif

/* Levels of the multipliers: U's B0, U's B1, V's B0, V's B1. */
enum { LS_RBT_U0 = 0, LS_RBT_U1 = 1, LS_RBT_V0 = 2, LS_RBT_V1 = 3 };

LS_RBT_FN double ls_rbt_mult(unsigned level, unsigned long long i)
{
    unsigned long long z = i + 0x9E3779B97F4A7C15ull * (level + 1ull) + 0x6C73726274ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; /* splitmix64's finaliser */
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    double u = (double)(z >> 11) * 0x1p-53;
    return exp((u - 0.5) / 10.0);
}

/* The group of 4 at g (< n/4) as W[r][c] (z_r = sum_c W[r][c] x_c over the
 * group's indices g + c q), from the side's two levels of multipliers
 * m0 (B0) and m1 (B1), each n long. */
LS_RBT_FN void ls_rbt_group(const double *m0, const double *m1, int n, int g, double W[4][4])
{
    int q = n / 4;
    double a0 = m0[g], a1 = m0[g + q], a2 = m0[g + 2 * q], a3 = m0[g + 3 * q];
    double b0 = m1[g], b1 = m1[g + q], b2 = m1[g + 2 * q], b3 = m1[g + 3 * q];
    W[0][0] = 0.5 * b0 * a0, W[0][1] = 0.5 * b1 * a1, W[0][2] = 0.5 * b0 * a2, W[0][3] = 0.5 * b1 * a3;
    W[1][0] = 0.5 * b0 * a0, W[1][1] = -0.5 * b1 * a1, W[1][2] = 0.5 * b0 * a2, W[1][3] = -0.5 * b1 * a3;
    W[2][0] = 0.5 * b2 * a0, W[2][1] = 0.5 * b3 * a1, W[2][2] = -0.5 * b2 * a2, W[2][3] = -0.5 * b3 * a3;
    W[3][0] = 0.5 * b2 * a0, W[3][1] = -0.5 * b3 * a1, W[3][2] = -0.5 * b2 * a2, W[3][3] = 0.5 * b3 * a3;
}

/* Groups over n indices: n/4 groups of 4, then n % 4 groups of one. */
LS_RBT_FN int ls_rbt_groups(int n)
{
    return n / 4 + n % 4;
}

/* Group t's size (4 or 1) and its first index; index k of it is first + k q. */
LS_RBT_FN int ls_rbt_group_at(int n, int t, int *first)
{
    int q = n / 4;
    *first = t < q ? t : 4 * q + (t - q);
    return t < q ? 4 : 1;
}

#endif
