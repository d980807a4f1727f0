/* The planner's sparse paths: "sparse-direct" (ls_csr_solve_direct_ctx:
 * UMFPACK or cuDSS) and "sparse-krylov" (ls_csr_solve_iter_ctx, one
 * right-hand side at a time). B is host FP64; X replaces it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "util.h"

/* B as a column-major block with leading dimension n (row-major B is
 * copied; column-major B is used in place). */
static double *rhs_block(ls_plan *pl, int *copied)
{
    ls_problem *p = pl->p;
    *copied = p->layout != LS_COL_MAJOR || p->ldb != p->n;
    if (!*copied)
        return p->B;
    double *b = ls_malloc(sizeof(double) * (size_t)p->n * (size_t)p->nrhs);
    if (b)
        ls_plan_load(p, 0, 'B', b);
    return b;
}

int ls_plan_run_sparse_direct(ls_plan *pl)
{
    ls_problem *p = pl->p;
    size_t nk = (size_t)p->n * (size_t)p->nrhs;
    int copied;
    double *b = rhs_block(pl, &copied);
    double *x = ls_malloc(sizeof(double) * nk);
    if (!b || !x) {
        free(x);
        if (copied)
            free(b);
        return ls_plan_fail(pl, LS_ENOMEM, "out of memory for X (n = %d)", p->n);
    }
    ls_csr_direct_report r;
    memset(&r, 0, sizeof r);
    char err[256] = "";
    double t0 = ls_now();
    int st = ls_csr_solve_direct_ctx(pl->ctx, p->csr, p->nrhs, b, p->n, x, p->n, &r, err,
                                     sizeof err);
    pl->rep->t_total = ls_now() - t0;
    pl->rep->t_factor = r.t_factor;
    pl->rep->t_solve = r.t_solve;
    pl->rep->residual = r.residual;
    snprintf(pl->rep->message, sizeof pl->rep->message, "%s", st && err[0] ? err : r.message);
    if (st == 0 || st == LS_INACCURATE) {
        memcpy(b, x, sizeof(double) * nk);
        if (copied)
            ls_plan_store_b(p, 0, b);
    }
    if (ls_plan_is_singular(st))
        pl->rep->info = st;
    free(x);
    if (copied)
        free(b);
    return st;
}

int ls_plan_run_sparse_krylov(ls_plan *pl)
{
    ls_problem *p = pl->p;
    ls_iter_options io;
    ls_iter_options_init(&io);
    io.method = pl->iter_named ? pl->iter : LS_ITER_GMRES;
    io.precond = LS_PRECOND_ILU0;
    io.rtol = pl->opt.rtol;
    io.max_iter = pl->opt.max_iter > 0 ? pl->opt.max_iter : io.max_iter;
    int copied;
    double *b = rhs_block(pl, &copied);
    double *x = ls_malloc(sizeof(double) * (size_t)(p->n > 0 ? p->n : 1));
    if (!b || !x) {
        free(x);
        if (copied)
            free(b);
        return ls_plan_fail(pl, LS_ENOMEM, "out of memory for x (n = %d)", p->n);
    }
    int st = 0;
    double t0 = ls_now(), worst = 0;
    for (int j = 0; j < p->nrhs && !st; j++) {
        double *bj = b + (size_t)j * p->n;
        memset(x, 0, sizeof(double) * (size_t)p->n);
        ls_iter_report r;
        memset(&r, 0, sizeof r);
        char err[256] = "";
        st = ls_csr_solve_iter_ctx(pl->ctx, p->csr, bj, x, &io, &r, err, sizeof err);
        pl->rep->iterations += r.iterations;
        if (st && p->nrhs > 1)
            snprintf(pl->rep->message, sizeof pl->rep->message, "right-hand side %d: %s", j + 1,
                     err[0] ? err : r.message);
        else
            snprintf(pl->rep->message, sizeof pl->rep->message, "%s", err[0] ? err : r.message);
        if (st)
            break;
        /* the scaled residual against this column of B, before X replaces it */
        double res = ls_csr_scaled_residual(p->csr, 1, bj, p->n, x, p->n);
        if (!(res <= worst))
            worst = res;
        memcpy(bj, x, sizeof(double) * (size_t)p->n);
    }
    pl->rep->t_total = ls_now() - t0;
    pl->rep->t_solve = pl->rep->t_total;
    pl->rep->residual = st ? NAN : worst;
    if (copied && !st)
        ls_plan_store_b(p, 0, b);
    free(x);
    if (copied)
        free(b);
    return st;
}
