/*
 * The Krylov methods' vector operations on host arrays (ls_kr_ops), with
 * OpenMP where the vectors are long enough for threads to pay.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "krylov_csr.h"

enum { PAR = 50000 }; /* below this many values, threads cost more than they give */

#define SYS(c) ((const ls_krylov_sys *)(c))

static double *h_alloc(void *c, size_t count)
{
    size_t n = (size_t)(SYS(c)->n ? SYS(c)->n : 1);
    return count && n > SIZE_MAX / sizeof(double) / count
               ? NULL
               : ls_malloc(sizeof(double) * n * count);
}

static void h_release(void *c, double *v)
{
    (void)c;
    free(v);
}

static void h_copy(void *c, const double *from, double *to)
{
    if (from != to)
        memcpy(to, from, sizeof(double) * (size_t)SYS(c)->n);
}

static void h_spmv(void *c, const double *x, double *y)
{
    ls_kr_spmv(SYS(c)->A, x, y);
}

static void h_precond(void *c, const double *r, double *z)
{
    ls_csr_precond_apply(SYS(c)->P, r, z);
}

static double h_dot(void *c, const double *x, const double *y)
{
    return ls_kr_dot(SYS(c)->n, x, y);
}

static double h_residual(void *c, const double *x, double *r)
{
    return ls_kr_residual(SYS(c), x, r);
}

static void h_zero(void *c, double *v)
{
    memset(v, 0, sizeof(double) * (size_t)SYS(c)->n);
}

static void h_axpby(void *c, double a, const double *x, double b, double *y)
{
    int64_t n = SYS(c)->n;
    if (b == 0) {
#pragma omp parallel for schedule(static) if (n > PAR)
        for (int64_t i = 0; i < n; i++)
            y[i] = a * x[i];
    } else {
#pragma omp parallel for schedule(static) if (n > PAR)
        for (int64_t i = 0; i < n; i++)
            y[i] = a * x[i] + b * y[i];
    }
}

static void h_waxpby(void *c, double a, const double *x, double b, const double *y, double *w)
{
    int64_t n = SYS(c)->n;
#pragma omp parallel for schedule(static) if (n > PAR)
    for (int64_t i = 0; i < n; i++)
        w[i] = a * x[i] + b * y[i];
}

static void h_cg_step(void *c, double alpha, const double *p, const double *q, double *x,
                      double *r, double *z, double d[3])
{
    int64_t n = SYS(c)->n;
    const ls_csr_precond *P = SYS(c)->P;
    const double *dj = P && P->kind == LS_PRECOND_JACOBI ? P->inv_diag : NULL;
    double rr = 0, rz = 0, zq = 0;
    if (dj) { /* everything in one pass */
#pragma omp parallel for reduction(+ : rr, rz, zq) schedule(static) if (n > PAR)
        for (int64_t i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            double ri = r[i] - alpha * q[i], zi = dj[i] * ri;
            r[i] = ri, z[i] = zi;
            rr += ri * ri, rz += ri * zi, zq += zi * q[i];
        }
    } else {
#pragma omp parallel for reduction(+ : rr) schedule(static) if (n > PAR)
        for (int64_t i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            rr += r[i] * r[i];
        }
        ls_csr_precond_apply(P, r, z);
#pragma omp parallel for reduction(+ : rz, zq) schedule(static) if (n > PAR)
        for (int64_t i = 0; i < n; i++)
            rz += r[i] * z[i], zq += z[i] * q[i];
    }
    d[0] = rr, d[1] = rz, d[2] = zq;
}

static void h_dot2(void *c, const double *x, const double *y, const double *u, const double *v,
                   double d[2])
{
    int64_t n = SYS(c)->n;
    double a = 0, b = 0;
#pragma omp parallel for reduction(+ : a, b) schedule(static) if (n > PAR)
    for (int64_t i = 0; i < n; i++)
        a += x[i] * y[i], b += u[i] * v[i];
    d[0] = a, d[1] = b;
}

static void h_bicg_direction(void *c, double beta, double omega, const double *r,
                             const double *v, double *p)
{
    int64_t n = SYS(c)->n;
#pragma omp parallel for schedule(static) if (n > PAR)
    for (int64_t i = 0; i < n; i++)
        p[i] = r[i] + beta * (p[i] - omega * v[i]);
}

static double h_bicg_update(void *c, double alpha, double omega, const double *phat,
                            const double *shat, const double *s, const double *t, double *x,
                            double *r)
{
    int64_t n = SYS(c)->n;
    double rr = 0;
#pragma omp parallel for reduction(+ : rr) schedule(static) if (n > PAR)
    for (int64_t i = 0; i < n; i++) {
        x[i] += alpha * phat[i] + omega * shat[i];
        r[i] = s[i] - omega * t[i];
        rr += r[i] * r[i];
    }
    return rr;
}

/* Modified Gram-Schmidt, one column at a time. */
static void h_orthogonalize(void *c, const double *V, int j1, double *w, double *h)
{
    int64_t n = SYS(c)->n;
    for (int i = 0; i < j1; i++) {
        const double *vi = V + (size_t)i * (size_t)n;
        double hi = ls_kr_dot(n, w, vi);
        h[i] = hi;
#pragma omp parallel for schedule(static) if (n > PAR)
        for (int64_t q = 0; q < n; q++)
            w[q] -= hi * vi[q];
    }
}

static void h_combine(void *c, const double *V, int k, const double *y, double *r)
{
    int64_t n = SYS(c)->n;
#pragma omp parallel for schedule(static) if (n > PAR)
    for (int64_t q = 0; q < n; q++) {
        double sum = 0;
        for (int i = 0; i < k; i++)
            sum += V[(size_t)i * (size_t)n + (size_t)q] * y[i];
        r[q] = sum;
    }
}

static int h_status(void *c, char *msg, size_t len)
{
    (void)c, (void)msg, (void)len;
    return 0;
}

void ls_kr_host_ops(const ls_krylov_sys *s, ls_kr_ops *ops)
{
    memset(ops, 0, sizeof *ops);
    ops->ctx = (void *)(uintptr_t)s;
    ops->n = s->n;
    ops->alloc = h_alloc;
    ops->release = h_release;
    ops->upload = h_copy;
    ops->download = h_copy;
    ops->spmv = h_spmv;
    ops->precond = h_precond;
    ops->dot = h_dot;
    ops->residual = h_residual;
    ops->zero = h_zero;
    ops->axpby = h_axpby;
    ops->waxpby = h_waxpby;
    ops->cg_step = h_cg_step;
    ops->dot2 = h_dot2;
    ops->bicg_direction = h_bicg_direction;
    ops->bicg_update = h_bicg_update;
    ops->orthogonalize = h_orthogonalize;
    ops->combine = h_combine;
    ops->status = h_status;
}
