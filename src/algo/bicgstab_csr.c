/*
 * Right-preconditioned BiCGStab on CSR: iterates on A M^-1 u = b, x = M^-1 u,
 * so the recurrence residual is the unpreconditioned one and the stopping
 * test needs no preconditioned norms. Success is declared only after the
 * true residual b - A x meets the tolerance.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "krylov.h"

/* The recurrence threshold that stands for s->tol on the true residual:
 * with equilibration the iterated norm and the caller's norm differ by the
 * ratio seen at the last true check. */
static double next_threshold(const ls_krylov_sys *s, double plain, double truth)
{
    if (!(truth > 0) || !(plain > 0))
        return s->tol;
    return 0.9 * s->tol * (plain / truth);
}

/* The recurrence says converged: check the true residual (left in r). 1:
 * it holds; 0: go on with the recurrence's norm and a corrected threshold. */
static int truth_holds(const ls_krylov_sys *s, const ls_kr_ops *ops, const double *x, double *r,
                       ls_krylov_out *o, double *rnorm, double *itol)
{
    o->truth = ops->residual(ops->ctx, x, r);
    if (o->truth <= s->tol)
        return 1;
    *rnorm = sqrt(ops->dot(ops->ctx, r, r));
    *itol = next_threshold(s, *rnorm, o->truth);
    return 0;
}

int ls_csr_bicgstab_run(const ls_krylov_sys *s, const ls_kr_ops *ops, double *x,
                        ls_krylov_out *o)
{
    void *c = ops->ctx;
    memset(o, 0, sizeof *o);
    double *w = ops->alloc(c, 8);
    if (!w) {
        snprintf(o->msg, sizeof o->msg, "cannot allocate BiCGStab workspace");
        return LS_ENOMEM;
    }
    int64_t n = ops->n;
    double *r = w, *rhat = w + n, *p = w + 2 * n, *v = w + 3 * n, *sv = w + 4 * n;
    double *t = w + 5 * n, *phat = w + 6 * n, *shat = w + 7 * n;
    int st = LS_NOT_CONVERGED;
    o->truth = ops->residual(c, x, r);
    if (o->truth <= s->tol) {
        st = 0;
        goto done;
    }
    double rnorm = sqrt(ops->dot(c, r, r));
    double itol = next_threshold(s, rnorm, o->truth);
    double rho0 = 1, alpha = 1, omega0 = 1;
    int restarted_at = 0, since_restart = 0;
    ops->axpby(c, 1.0, r, 0.0, rhat);
    ops->zero(c, p);
    ops->zero(c, v);
    for (int it = 1; it <= s->max_iter; it++) {
        o->iterations = it;
        since_restart++;
        const char *what = NULL;
        double bad = 0;
        double rho = ops->dot(c, rhat, r);
        if (ls_kr_bad(rho)) {
            what = "rho = (r_hat . r)", bad = rho;
            goto breakdown;
        }
        double beta = (rho / rho0) * (alpha / omega0);
        ops->bicg_direction(c, beta, omega0, r, v, p);
        ops->precond(c, p, phat);
        ops->spmv(c, phat, v);
        double rv = ops->dot(c, rhat, v);
        if (ls_kr_bad(rv)) {
            what = "(r_hat . v)", bad = rv;
            goto breakdown;
        }
        alpha = rho / rv;
        ops->waxpby(c, 1.0, r, -alpha, v, sv);
        double snorm = sqrt(ops->dot(c, sv, sv));
        if (snorm <= itol) {
            /* Half step already converged: x += alpha phat, then the truth. */
            ops->axpby(c, alpha, phat, 1.0, x);
            if (truth_holds(s, ops, x, r, o, &rnorm, &itol)) {
                st = 0;
                goto done;
            }
            goto restart;
        }
        ops->precond(c, sv, shat);
        ops->spmv(c, shat, t);
        double d[2];
        ops->dot2(c, t, t, t, sv, d);
        double tt = d[0], omega = tt > 0 ? d[1] / tt : 0;
        if (ls_kr_bad(omega)) {
            what = "omega", bad = omega;
            goto breakdown;
        }
        rnorm = sqrt(ops->bicg_update(c, alpha, omega, phat, shat, sv, t, x, r));
        if (!isfinite(rnorm)) {
            what = "the residual norm", bad = rnorm;
            goto breakdown;
        }
        if (rnorm <= itol && truth_holds(s, ops, x, r, o, &rnorm, &itol)) {
            st = 0;
            goto done;
        }
        rho0 = rho;
        omega0 = omega;
        continue;
    breakdown:
        /* One fresh start from the true residual (a new shadow vector) is
         * worth a try if the last one made progress; a second breakdown
         * right after it is reported. */
        o->truth = ops->residual(c, x, r);
        if (o->truth <= s->tol) {
            st = 0;
            goto done;
        }
        if (!isfinite(o->truth) || since_restart <= 1) {
            o->breakdown = 1;
            snprintf(o->msg, sizeof o->msg,
                     "BiCGStab breakdown: %s = %g at iteration %d (restarted at %d)", what, bad,
                     it, restarted_at);
            st = LS_BREAKDOWN;
            goto done;
        }
        rnorm = sqrt(ops->dot(c, r, r));
        itol = next_threshold(s, rnorm, o->truth);
    restart:
        restarted_at = it;
        since_restart = 0;
        rho0 = 1, alpha = 1, omega0 = 1;
        ops->axpby(c, 1.0, r, 0.0, rhat);
        ops->zero(c, p);
        ops->zero(c, v);
    }
    o->truth = ops->residual(c, x, r);
    if (o->truth <= s->tol) {
        st = 0;
        goto done;
    }
    snprintf(o->msg, sizeof o->msg, "BiCGStab did not converge in %d iterations", s->max_iter);
done:
    if (st == 0)
        snprintf(o->msg, sizeof o->msg, "BiCGStab converged in %d iterations (true residual)",
                 o->iterations);
    ops->release(c, w);
    return st;
}
