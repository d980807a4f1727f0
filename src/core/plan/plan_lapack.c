/* The "dense" path's short way for one FP64 system on the CPU with method
 * auto: one copy of A (the copy numpy.linalg.solve makes too), checked for
 * NaN/Inf as it is made, the linked LAPACK's getrf + getrs (ls_dgesv on the
 * CPU context), X into B, and the scaled residual against the caller's A
 * and B, which were never written. ls_solve's route (a NaN scan, working
 * copies, X copies) costs several more passes over A, which at small n is
 * more than the factorization. A solve whose residual fails the check is
 * handed back to ls_solve, which refines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan/plan.h"
#include "core/util.h"

/* Systems up to this many doubles of A and X live on the stack. */
#define SMALL_ELEMS 4096

/* Copy A into column-major w (ld n), finite check on the way; 0 or the
 * 1-based (row, column) of the first non-finite entry in *bi, *bj. */
static int copy_a(const ls_problem *p, double *w, int *bi, int *bj)
{
    const double *A = p->A;
    int n = p->n, rm = p->layout == LS_ROW_MAJOR, bad = 0;
    for (int j = 0; j < n; j++) {
        double *wj = w + (size_t)j * n;
        for (int i = 0; i < n; i++) {
            double v = rm ? A[(size_t)i * p->lda + j] : A[i + (size_t)j * p->lda];
            wj[i] = v;
            bad |= !isfinite(v);
        }
        if (bad) { /* find it: rare, so the loop above stays branch-free */
            for (int i = 0; i < n; i++)
                if (!isfinite(wj[i])) {
                    *bi = i + 1, *bj = j + 1;
                    return 1;
                }
        }
    }
    return 0;
}

static int copy_b(const ls_problem *p, double *x, int *bi, int *bj)
{
    const double *B = p->B;
    int n = p->n, rm = p->layout == LS_ROW_MAJOR;
    for (int c = 0; c < p->nrhs; c++)
        for (int i = 0; i < n; i++) {
            double v = rm ? B[(size_t)i * p->ldb + c] : B[i + (size_t)c * p->ldb];
            if (!isfinite(v)) {
                *bi = i + 1, *bj = c + 1;
                return 1;
            }
            x[i + (size_t)c * n] = v;
        }
    return 0;
}

/* ||B - A X||inf / (n ||A||inf ||X||inf eps) from the scaled terms. */
static double scaled(double rnorm, double anorm, double xnorm, int nan, int n)
{
    if (nan || isnan(xnorm) || isnan(anorm))
        return NAN;
    if (rnorm == 0)
        return 0;
    double d = (double)n * anorm * xnorm * ls_eps(LS_DOUBLE);
    return d > 0 && isfinite(d) ? rnorm / d : INFINITY;
}

static double max_abs(const double *x, size_t count)
{
    double m = 0;
    for (size_t e = 0; e < count; e++)
        m = fabs(x[e]) > m || isnan(x[e]) ? fabs(x[e]) : m;
    return m;
}

/* The residual on one thread: it is one pass over A, and a thread team
 * woken here would fight the BLAS's threads, still spinning after getrs,
 * for the same cores (measured: 2.8 ms instead of 0.1 at n = 512 on two
 * cores). Row-major A: each row once, four chains so the adds pipeline. */
static double residual_rowmajor(const ls_problem *p, const double *X)
{
    const double *A = p->A, *B = p->B;
    int n = p->n, k = p->nrhs, nan = 0;
    double anorm = 0, rnorm = 0;
    for (int i = 0; i < n; i++) {
        const double *ai = A + (size_t)i * p->lda;
        double rowsum = 0, r1 = 0;
        for (int j = 0; j < n; j++)
            rowsum += fabs(ai[j]);
        anorm = rowsum > anorm ? rowsum : anorm;
        for (int c = 0; c < k; c++) {
            const double *xc = X + (size_t)c * n;
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            int j = 0;
            for (; j + 4 <= n; j += 4) {
                s0 += ai[j] * xc[j];
                s1 += ai[j + 1] * xc[j + 1];
                s2 += ai[j + 2] * xc[j + 2];
                s3 += ai[j + 3] * xc[j + 3];
            }
            for (; j < n; j++)
                s0 += ai[j] * xc[j];
            double r = B[(size_t)i * p->ldb + c] - ((s0 + s1) + (s2 + s3));
            nan |= isnan(r);
            r1 += fabs(r);
        }
        rnorm = r1 > rnorm ? r1 : rnorm;
    }
    return scaled(rnorm, anorm, max_abs(X, (size_t)n * k), nan, n);
}

/* Column-major A: r = b - sum_j A(:,j) x_j, column by column (unit
 * stride), into scratch r of n; the row sums of |A| the same way. */
static double residual_colmajor(const ls_problem *p, const double *X, double *r, double *rowsum)
{
    const double *A = p->A, *B = p->B;
    int n = p->n, k = p->nrhs, nan = 0;
    double rnorm = 0, anorm = 0;
    memset(rowsum, 0, sizeof(double) * (size_t)n);
    for (int j = 0; j < n; j++) {
        const double *aj = A + (size_t)j * p->lda;
        for (int i = 0; i < n; i++)
            rowsum[i] += fabs(aj[i]);
    }
    for (int i = 0; i < n; i++)
        anorm = rowsum[i] > anorm ? rowsum[i] : anorm;
    memset(rowsum, 0, sizeof(double) * (size_t)n); /* now sum over c of |r_i| */
    for (int c = 0; c < k; c++) {
        const double *xc = X + (size_t)c * n;
        memcpy(r, B + (size_t)c * p->ldb, sizeof(double) * (size_t)n);
        for (int j = 0; j < n; j++) {
            const double *aj = A + (size_t)j * p->lda;
            double xj = xc[j];
            for (int i = 0; i < n; i++)
                r[i] -= aj[i] * xj;
        }
        for (int i = 0; i < n; i++) {
            nan |= isnan(r[i]);
            rowsum[i] += fabs(r[i]);
        }
    }
    for (int i = 0; i < n; i++)
        rnorm = rowsum[i] > rnorm ? rowsum[i] : rnorm;
    return scaled(rnorm, anorm, max_abs(X, (size_t)n * k), nan, n);
}

int ls_plan_dense_lapack_fits(const ls_plan *pl)
{
    const ls_problem *p = pl->p;
    return p->memory == LS_MEMORY_HOST && p->dtype == LS_FLOAT64 && pl->prec == LS_DOUBLE &&
           !pl->dense_named && pl->opt.pivot == LS_PIVOT_PARTIAL && !pl->opt.progress &&
           ls_context_backend(pl->ctx) == LS_BACKEND_CPU;
}

int ls_plan_run_dense_lapack(ls_plan *pl, int *retry)
{
    ls_problem *p = pl->p;
    ls_report *rep = pl->rep;
    int n = p->n, k = p->nrhs, bi = 0, bj = 0, info = 0, st;
    size_t elems = (size_t)n * n + (size_t)n * k + 2 * (size_t)n; /* A, X, residual scratch */
    double small[SMALL_ELEMS];
    int spiv[64];
    double *w = elems <= SMALL_ELEMS ? small : ls_malloc(sizeof(double) * elems);
    int *ipiv = n <= 64 ? spiv : ls_malloc(sizeof(int) * (size_t)n);
    double t0 = ls_now();
    *retry = 0;
    if (!w || !ipiv)
        st = ls_plan_fail(pl, LS_ENOMEM, "out of memory for a copy of A (n = %d)", n);
    else if (copy_a(p, w, &bi, &bj))
        st = ls_plan_fail(pl, LS_ENONFINITE, "A(%d,%d) is not finite", bi, bj);
    else if (copy_b(p, w + (size_t)n * n, &bi, &bj))
        st = ls_plan_fail(pl, LS_ENONFINITE, "B(%d,%d) is not finite", bi, bj);
    else {
        double *x = w + (size_t)n * n;
        st = ls_dgesv(n, k, w, n, ipiv, x, n, &info, pl->ctx);
        rep->t_factor = ls_now() - t0;
        rep->method = LS_METHOD_LAPACK;
        if (ls_plan_is_singular(st)) {
            rep->info = st;
            st = ls_plan_fail(pl, st, "matrix is singular: U(%d,%d) is exactly zero", st, st);
        } else if (!st) {
            rep->residual = !pl->opt.check ? NAN
                            : p->layout == LS_ROW_MAJOR
                                ? residual_rowmajor(p, x)
                                : residual_colmajor(p, x, x + (size_t)n * k,
                                                    x + (size_t)n * k + n);
            if (pl->opt.check && !(rep->residual <= 30.0))
                *retry = 1; /* X not stored: ls_solve refines from the caller's A and B */
            else {
                ls_plan_store_b(p, 0, x);
                snprintf(rep->message, sizeof rep->message, "solved");
            }
        }
    }
    rep->t_total = ls_now() - t0;
    if (w != small)
        free(w);
    if (ipiv != spiv)
        free(ipiv);
    return st;
}
