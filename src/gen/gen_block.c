/*
 * One block of a generated matrix without the rest of it: every entry of
 * the kinds below is a function of (seed, i, j) alone, or of its row (the
 * diagonally dominant kind's diagonal), so a distributed run fills only
 * its own blocks and still gets ls_generate's matrix bit for bit.
 * splitmix64 is counter-based: ls_fill_random's entry i + j n is the hash
 * of seed + (i + j n + 1) * golden, i.e. one ls_rand_uniform from
 * seed + (i + j n) * golden.
 */
#include <float.h>
#include <math.h>

#include "core/util.h"
#include "gen_internal.h"

#define LS_GOLDEN_ 0x9E3779B97F4A7C15ull

static double random_entry(int n, int i, int j, uint64_t seed)
{
    uint64_t state = seed + ((uint64_t)j * (uint64_t)n + (uint64_t)i) * LS_GOLDEN_;
    return ls_rand_uniform(&state);
}

/* make_diagdom's diagonal: the row's other |entries| summed in column order */
static double diagdom_diag(int n, int i, uint64_t seed)
{
    double s = 0;
    for (int j = 0; j < n; j++)
        if (j != i)
            s += fabs(random_entry(n, i, j, seed));
    return s + 1.0;
}

int ls_gen_is_local(ls_gen_kind kind)
{
    switch (kind) {
    case LS_GEN_RANDOM:
    case LS_GEN_DIAGDOM:
    case LS_GEN_ZERODIAG:
    case LS_GEN_HILBERT:
    case LS_GEN_GFPP:
    case LS_GEN_KAHAN:
    case LS_GEN_SINGULAR:
        return 1;
    default:
        return 0;
    }
}

int ls_generate_block(ls_gen_kind kind, int n, int i0, int j0, int m, int nc, double *A, int lda,
                      uint64_t seed)
{
    if (kind < 0 || kind >= LS_GEN_COUNT_ || n < 0 || m < 0 || nc < 0 || i0 < 0 || j0 < 0 ||
        i0 > n - m || j0 > n - nc || lda < (m > 1 ? m : 1) || (m > 0 && nc > 0 && !A))
        return LS_EINVAL;
    if (!ls_gen_is_local(kind))
        return LS_EUNSUPPORTED;
    int zc = -1;
    if (kind == LS_GEN_SINGULAR && n > 0) { /* as ls_generate draws it */
        uint64_t state = seed ^ 0x5A5A5A5A12345678ull;
        zc = (int)(ls_rand_u64(&state) % (uint64_t)n);
    }
    const double theta = 1.2, pert = 25.0, ks = sin(theta), kc = cos(theta);
    double scale0 = 1.0; /* make_kahan's s^i, by the same products */
    if (kind == LS_GEN_KAHAN)
        for (int i = 0; i < i0; i++)
            scale0 *= ks;
    for (int jj = 0; jj < nc; jj++) {
        const int j = j0 + jj;
        double *col = A + (size_t)jj * (size_t)lda;
        double scale = scale0;
        for (int ii = 0; ii < m; ii++) {
            const int i = i0 + ii;
            double v;
            switch (kind) {
            case LS_GEN_RANDOM:
                v = random_entry(n, i, j, seed);
                break;
            case LS_GEN_DIAGDOM:
                v = i == j ? diagdom_diag(n, i, seed) : random_entry(n, i, j, seed);
                break;
            case LS_GEN_ZERODIAG:
                v = i == j ? 0.0 : random_entry(n, i, j, seed);
                break;
            case LS_GEN_SINGULAR:
                v = j == zc ? 0.0 : random_entry(n, i, j, seed);
                break;
            case LS_GEN_HILBERT:
                v = 1.0 / (double)(i + j + 1);
                break;
            case LS_GEN_GFPP:
                v = (j == n - 1 || i == j) ? 1.0 : (i > j ? -1.0 : 0.0);
                break;
            default: /* LS_GEN_KAHAN */
                v = i == j ? scale + pert * DBL_EPSILON * (double)(n - i)
                           : (j > i ? -kc * scale : 0.0);
                scale *= ks;
                break;
            }
            col[ii] = v;
        }
    }
    return 0;
}
