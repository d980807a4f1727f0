/* Checks on the caller's arrays: the scaled residual of one system of a
 * stack, read straight from a, b and X where they lie (the planner's own
 * stack check has to copy A and B first, because the batched LU overwrites
 * them: here they are the caller's, untouched), and the NaN/Inf scan. */
#include "lsx.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline double get(const char *p, char fmt)
{
    if (fmt == 'd') {
        double v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    float f;
    memcpy(&f, p, sizeof f);
    return f;
}

static double scaled(double rnorm, double anorm, double xnorm, int n, double eps)
{
    if (rnorm == 0.0)
        return 0.0;
    double denom = (double)n * anorm * xnorm * eps;
    if (denom == 0.0 || !isfinite(denom))
        return INFINITY;
    return rnorm / denom;
}

/* All FP64, strides in elements: the common case, in loops that compilers
 * unroll and vectorize (A by rows, X by columns). */
static double residual_d(int n, int k, const double *A, Py_ssize_t ars, Py_ssize_t acs,
                         const double *B, Py_ssize_t brs, Py_ssize_t bcs, const double *X,
                         Py_ssize_t xrs, Py_ssize_t xcs, double eps)
{
    double anorm = 0, xnorm = 0, rnorm = 0;
    for (int r = 0; r < n; r++) {
        const double *ar = A + r * ars;
        double arow = 0, xrow = 0, rrow = 0;
        for (int c = 0; c < n; c++)
            arow += fabs(ar[c * acs]);
        for (int c = 0; c < k; c++) {
            const double *xc = X + c * xcs;
            double s = 0;
            for (int m = 0; m < n; m++)
                s += ar[m * acs] * xc[m * xrs];
            rrow += fabs(B[r * brs + c * bcs] - s);
            xrow += fabs(xc[r * xrs]);
        }
        if (isnan(arow) || isnan(xrow) || isnan(rrow))
            return NAN;
        anorm = arow > anorm ? arow : anorm;
        xnorm = xrow > xnorm ? xrow : xnorm;
        rnorm = rrow > rnorm ? rrow : rnorm;
    }
    return scaled(rnorm, anorm, xnorm, n, eps);
}

/* ||B - A X||inf / (n ||A||inf ||X||inf eps), as ls_scaled_residual. */
double lsx_residual(const lsx_pack_src *A, const lsx_pack_src *B, const lsx_pack_src *X,
                    double eps)
{
    int n = A->rows, k = B->cols;
    if (n <= 0 || k <= 0)
        return 0.0;
    if (A->fmt == 'd' && B->fmt == 'd' && X->fmt == 'd' && !(A->rs % 8) && !(A->cs % 8) &&
        !(B->rs % 8) && !(B->cs % 8) && !(X->rs % 8) && !(X->cs % 8) &&
        !((uintptr_t)A->base % 8) && !((uintptr_t)B->base % 8) && !((uintptr_t)X->base % 8))
        return residual_d(n, k, (const double *)A->base, A->rs / 8, A->cs / 8,
                          (const double *)B->base, B->rs / 8, B->cs / 8,
                          (const double *)X->base, X->rs / 8, X->cs / 8, eps);
    double anorm = 0, xnorm = 0, rnorm = 0;
    for (int r = 0; r < n; r++) {
        double arow = 0, xrow = 0, rrow = 0;
        const char *ar = A->base + r * A->rs;
        for (int c = 0; c < n; c++)
            arow += fabs(get(ar + c * A->cs, A->fmt));
        for (int c = 0; c < k; c++) {
            double s = get(B->base + r * B->rs + c * B->cs, B->fmt);
            for (int m = 0; m < n; m++)
                s -= get(ar + m * A->cs, A->fmt) * get(X->base + m * X->rs + c * X->cs, X->fmt);
            rrow += fabs(s);
            xrow += fabs(get(X->base + r * X->rs + c * X->cs, X->fmt));
        }
        if (isnan(arow) || isnan(xrow) || isnan(rrow))
            return NAN;
        anorm = arow > anorm ? arow : anorm;
        xnorm = xrow > xnorm ? xrow : xnorm;
        rnorm = rrow > rnorm ? rrow : rnorm;
    }
    return scaled(rnorm, anorm, xnorm, n, eps);
}

/* A value is NaN or Inf when its exponent bits are all ones. The blocks are
 * tested with an OR of integer compares, which compilers vectorize; only a
 * block with a hit is searched element by element. */
#define LSX_SCAN_BLOCK 512
#define LSX_SCAN(T, U, EXP)                                                   \
    for (Py_ssize_t i0 = 0; i0 < count; i0 += LSX_SCAN_BLOCK) {               \
        Py_ssize_t i1 = i0 + LSX_SCAN_BLOCK < count ? i0 + LSX_SCAN_BLOCK : count; \
        U bad = 0;                                                            \
        for (Py_ssize_t i = i0; i < i1; i++) {                                \
            U u;                                                              \
            memcpy(&u, p + i * (Py_ssize_t)sizeof(T), sizeof u);              \
            bad |= (U)((u & EXP) == EXP);                                     \
        }                                                                     \
        if (bad)                                                              \
            for (Py_ssize_t i = i0; i < i1; i++) {                            \
                T v;                                                          \
                memcpy(&v, p + i * (Py_ssize_t)sizeof(T), sizeof v);          \
                if (!isfinite(v))                                             \
                    return i;                                                 \
            }                                                                 \
    }                                                                         \
    return -1

Py_ssize_t lsx_scan(const char *p, char fmt, Py_ssize_t count)
{
    if (fmt == 'd') {
        LSX_SCAN(double, uint64_t, UINT64_C(0x7ff0000000000000));
    } else {
        LSX_SCAN(float, uint32_t, UINT32_C(0x7f800000));
    }
}

/* memcpy and scan in one pass over memory: each block is scanned while it
 * is still in cache from its copy. */
Py_ssize_t lsx_copy_scan(char *dst, const char *src, char fmt, Py_ssize_t count)
{
    Py_ssize_t es = fmt == 'd' ? 8 : 4, block = 4096;
    for (Py_ssize_t i0 = 0; i0 < count; i0 += block) {
        Py_ssize_t len = count - i0 < block ? count - i0 : block;
        memcpy(dst + i0 * es, src + i0 * es, (size_t)(len * es));
        Py_ssize_t at = lsx_scan(dst + i0 * es, fmt, len);
        if (at >= 0)
            return i0 + at;
    }
    return -1;
}
