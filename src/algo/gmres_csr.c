/*
 * Restarted, right-preconditioned GMRES(m) on CSR: Arnoldi on A M^-1 with
 * Gram-Schmidt (the ops' orthogonalize: modified on the host, classical
 * twice on a GPU) and Givens rotations. Memory is (m + 1) n for the basis
 * plus two work vectors; each cycle ends with x += M^-1 V y and a true
 * residual, which is what decides convergence.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "krylov.h"

int ls_csr_gmres_run(const ls_krylov_sys *s, const ls_kr_ops *ops, double *x, ls_krylov_out *o)
{
    void *c = ops->ctx;
    int m = s->restart;
    memset(o, 0, sizeof *o);
    double *V = ops->alloc(c, (size_t)m + 1);
    double *r = ops->alloc(c, 2);
    double *H = ls_malloc(sizeof(double) * ((size_t)(m + 1) * m + 5 * (size_t)(m + 1)));
    if (!V || !r || !H) {
        if (V)
            ops->release(c, V);
        if (r)
            ops->release(c, r);
        free(H);
        snprintf(o->msg, sizeof o->msg, "cannot allocate GMRES(%d) workspace", m);
        return LS_ENOMEM;
    }
    const int64_t n = ops->n;
    double *z = r + n;
    double *cs = H + (size_t)(m + 1) * m, *sn = cs + (m + 1), *g = sn + (m + 1), *y = g + (m + 1);
    double *h = y + (m + 1);
#define HH(i, j) H[(i) + (size_t)(j) * (m + 1)]
#define VCOL(j) (V + (size_t)(j) * (size_t)n)
    int st = LS_NOT_CONVERGED;
    o->truth = ops->residual(c, x, r);
    double beta = sqrt(ops->dot(c, r, r));
    double itol = s->tol;
    if (o->truth > 0 && beta > 0)
        itol = 0.9 * s->tol * (beta / o->truth);
    int its = 0;
    while (o->truth > s->tol && its < s->max_iter) {
        if (!isfinite(beta) || beta == 0) {
            o->breakdown = 1;
            snprintf(o->msg, sizeof o->msg, "GMRES breakdown: residual norm %g at iteration %d",
                     beta, its);
            st = LS_BREAKDOWN;
            goto done;
        }
        ops->axpby(c, 1.0 / beta, r, 0.0, VCOL(0));
        memset(g, 0, sizeof(double) * (size_t)(m + 1));
        g[0] = beta;
        int k = 0;
        for (int j = 0; j < m && its < s->max_iter; j++) {
            its++;
            double *w = VCOL(j + 1);
            ops->precond(c, VCOL(j), z);
            ops->spmv(c, z, w);
            ops->orthogonalize(c, V, j + 1, w, h);
            for (int i = 0; i <= j; i++)
                HH(i, j) = h[i];
            double hn = sqrt(ops->dot(c, w, w));
            HH(j + 1, j) = hn;
            for (int i = 0; i < j; i++) {
                double a = HH(i, j), b = HH(i + 1, j);
                HH(i, j) = cs[i] * a + sn[i] * b;
                HH(i + 1, j) = -sn[i] * a + cs[i] * b;
            }
            double a = HH(j, j), b = HH(j + 1, j), d = hypot(a, b);
            cs[j] = d > 0 ? a / d : 1;
            sn[j] = d > 0 ? b / d : 0;
            HH(j, j) = d;
            HH(j + 1, j) = 0;
            g[j + 1] = -sn[j] * g[j];
            g[j] = cs[j] * g[j];
            k = j + 1;
            double est = fabs(g[j + 1]);
            if (!isfinite(est) || !isfinite(d)) {
                o->breakdown = 1;
                snprintf(o->msg, sizeof o->msg,
                         "GMRES breakdown: non-finite Hessenberg entry at iteration %d", its);
                st = LS_BREAKDOWN;
                goto done;
            }
            if (hn == 0 || est <= itol)
                break; /* exact in this subspace, or the estimate says done */
            ops->axpby(c, 1.0 / hn, w, 0.0, w);
        }
        /* y = H(0:k,0:k)^-1 g; a zero on U's diagonal means A M^-1 is singular
         * on the Krylov space. */
        for (int i = k - 1; i >= 0; i--) {
            double sum = g[i];
            for (int q = i + 1; q < k; q++)
                sum -= HH(i, q) * y[q];
            if (HH(i, i) == 0) {
                o->breakdown = 1;
                snprintf(o->msg, sizeof o->msg,
                         "GMRES breakdown: singular Hessenberg matrix at iteration %d", its);
                st = LS_BREAKDOWN;
                goto done;
            }
            y[i] = sum / HH(i, i);
        }
        /* r = V y (r is free until the true residual), z = M^-1 r, x += z. */
        ops->combine(c, V, k, y, r);
        ops->precond(c, r, z);
        ops->axpby(c, 1.0, z, 1.0, x);
        o->truth = ops->residual(c, x, r);
        beta = sqrt(ops->dot(c, r, r));
        if (o->truth > s->tol && o->truth > 0 && beta > 0 && fabs(g[k]) <= itol)
            itol = 0.9 * s->tol * (beta / o->truth); /* estimate ran ahead of the truth */
        if (!isfinite(o->truth)) {
            o->breakdown = 1;
            snprintf(o->msg, sizeof o->msg, "GMRES breakdown: residual %g at iteration %d",
                     o->truth, its);
            st = LS_BREAKDOWN;
            goto done;
        }
    }
    o->iterations = its;
    if (o->truth <= s->tol) {
        st = 0;
        snprintf(o->msg, sizeof o->msg, "GMRES(%d) converged in %d iterations (true residual)",
                 m, its);
    } else {
        snprintf(o->msg, sizeof o->msg, "GMRES(%d) did not converge in %d iterations", m,
                 s->max_iter);
    }
#undef HH
#undef VCOL
done:
    o->iterations = its;
    ops->release(c, V), ops->release(c, r), free(H);
    return st;
}
