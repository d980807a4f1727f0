/*
 * Preconditioned conjugate gradients on CSR, for symmetric positive definite
 * A. The preconditioner must be symmetric positive definite too: Jacobi is;
 * ILU(0) of a symmetric A is L D L^T (incomplete Cholesky, IC(0)) up to
 * rounding. That rounding makes M^-1 very slightly nonsymmetric, so beta is
 * Polak-Ribiere's z_new . (r_new - r_old) / z_old . r_old (flexible CG),
 * which keeps the convergence where Fletcher-Reeves' formula can stall.
 * p^T A p <= 0 or r^T z <= 0 means A or M is not positive definite: that is
 * reported as a breakdown, for the caller to try GMRES instead. Success is
 * declared only after the true residual b - A x meets the tolerance.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "krylov.h"

int ls_csr_cg_run(const ls_krylov_sys *s, const ls_kr_ops *ops, double *x, ls_krylov_out *o)
{
    void *c = ops->ctx;
    memset(o, 0, sizeof *o);
    double *w = ops->alloc(c, 4);
    if (!w) {
        snprintf(o->msg, sizeof o->msg, "cannot allocate CG workspace");
        return LS_ENOMEM;
    }
    int64_t n = ops->n;
    double *r = w, *z = w + n, *p = w + 2 * n, *q = w + 3 * n;
    int st = LS_NOT_CONVERGED, fresh = 1;
    double rz = 0, itol = s->tol;
    o->truth = ops->residual(c, x, r);
    for (int it = 1; it <= s->max_iter && o->truth > s->tol; it++) {
        o->iterations = it;
        if (fresh) {
            /* Start (or restart from the true residual): p = z = M^-1 r. The
             * recurrence threshold stands for s->tol on the caller's norm. */
            ops->precond(c, r, z);
            rz = ops->dot(c, r, z);
            double plain = sqrt(ops->dot(c, r, r));
            itol = o->truth > 0 && plain > 0 ? 0.9 * s->tol * plain / o->truth : s->tol;
            ops->axpby(c, 1.0, z, 0.0, p);
            fresh = 0;
        }
        const char *what = NULL;
        double bad = 0;
        if (!(rz > 0) || !isfinite(rz)) {
            what = "r . M^-1 r (the preconditioner is not positive definite)", bad = rz;
            goto breakdown;
        }
        ops->spmv(c, p, q);
        double pq = ops->dot(c, p, q);
        if (!(pq > 0) || !isfinite(pq)) {
            what = "p . A p (A is not positive definite)", bad = pq;
            goto breakdown;
        }
        double alpha = rz / pq, d[3];
        ops->cg_step(c, alpha, p, q, x, r, z, d);
        const double rr = d[0];
        if (!isfinite(rr)) {
            what = "the residual norm", bad = rr;
            goto breakdown;
        }
        if (sqrt(rr) <= itol) {
            o->truth = ops->residual(c, x, r);
            fresh = 1; /* not there yet: go on from the true residual */
            continue;
        }
        double rz_new = d[1], zq = d[2];
        /* r_new - r_old = -alpha q */
        double beta = -alpha * zq / rz;
        if (!isfinite(beta)) {
            what = "beta", bad = beta;
            goto breakdown;
        }
        rz = rz_new;
        ops->axpby(c, 1.0, z, beta, p);
        continue;
    breakdown:
        o->truth = ops->residual(c, x, r);
        if (o->truth <= s->tol)
            break;
        o->breakdown = 1;
        snprintf(o->msg, sizeof o->msg, "CG breakdown: %s = %g at iteration %d", what, bad, it);
        st = LS_BREAKDOWN;
        goto done;
    }
    if (o->truth <= s->tol) {
        st = 0;
        snprintf(o->msg, sizeof o->msg, "CG converged in %d iterations (true residual)",
                 o->iterations);
    } else {
        snprintf(o->msg, sizeof o->msg, "CG did not converge in %d iterations", s->max_iter);
    }
done:
    ops->release(c, w);
    return st;
}
