/* The driver of the published GPU methods (docs/references.md), once for
 * every GPU backend: Li (2025)'s Gaussian elimination (ge-naive,
 * ge-blocked, ge-coalesced, with the back substitution of TendTo's
 * Linear-System-Solver), Quispe Ccapacca's Gauss-Jordan models (gj1, gj2)
 * and Pattam's LU (lu-seed). Per step a pivot (search and swap) and one
 * elimination launch; the host waits once, after the elimination, to read
 * info. The kernels behind each step are the backend's (lsg_seed_ops). */
#include <stdarg.h>

#include "gpu_driver.h"

static int driver_fail(const ls_core_services *core, char *err, size_t errlen, int status,
                       int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    status = core->vfail(err, errlen, status, __FILE__, line, fmt, ap);
    va_end(ap);
    return status;
}

typedef int (*step_fn)(void *q, int k, char *err, size_t errlen);

/* The method's step, or NULL when the backend lacks a slot it needs. */
static step_fn method_step(const lsg_seed_ops *ops, ls_method m)
{
    int has_solve = m == LS_METHOD_GJ1 || m == LS_METHOD_GJ2 ? ops->gj_extract != NULL
                                                             : ops->trsolve != NULL;
    if (!has_solve)
        return NULL;
    switch (m) {
    case LS_METHOD_GE_NAIVE: return ops->ge_naive_step;
    case LS_METHOD_GE_BLOCKED: return ops->ge_blocked_step;
    case LS_METHOD_GE_COALESCED: return ops->ge_coalesced_step;
    case LS_METHOD_GJ1: return ops->gj1_backward_step ? ops->gj1_forward_step : NULL;
    case LS_METHOD_GJ2: return ops->gj2_step;
    case LS_METHOD_LU_SEED: return ops->lu_seed_step;
    default: return NULL;
    }
}

/* The phase's mark, remembered for the report. */
static int mark(const lsg_seed_ops *ops, void *q, lsg_phase p, unsigned *marked, char *err,
                size_t errlen)
{
    int st = ops->mark(q, p, err, errlen);
    if (st == 0)
        *marked |= 1u << p;
    return st;
}

#define TRY(call)          \
    do {                   \
        st = (call);       \
        if (st != 0)       \
            goto done;     \
    } while (0)

static int eliminate(const lsg_seed_ops *ops, void *q, step_fn step, const ls_job *job,
                     char *err, size_t errlen)
{
    int st = 0;
    const int n = job->n, search = job->pivot != LS_PIVOT_NONE;
    const int gj = job->method == LS_METHOD_GJ1 || job->method == LS_METHOD_GJ2;
    for (int k = 0; k < n; ++k) {
        TRY(ops->pivot(q, k, search, err, errlen));
        /* Below the last pivot there is nothing left to eliminate; only
         * gj2 still clears the rows above it. */
        if (k < n - 1 || job->method == LS_METHOD_GJ2)
            TRY(step(q, k, err, errlen));
        else if (!gj)
            break;
        lsg_progress(job, k, n);
    }
done:
    return st;
}

/* X from the factors: gj1's backward pass over the right-hand sides (row
 * k is zero right of the diagonal in A by then, so only B's columns of the
 * rows above change), then x = c / d; or the triangular solve(s). */
static int solve_factored(const lsg_seed_ops *ops, void *q, const ls_job *job, char *err,
                          size_t errlen)
{
    int st = 0;
    if (job->method == LS_METHOD_GJ1)
        for (int k = job->n - 1; k > 0; --k)
            TRY(ops->gj1_backward_step(q, k, err, errlen));
    if (job->method == LS_METHOD_GJ1 || job->method == LS_METHOD_GJ2)
        TRY(ops->gj_extract(q, err, errlen));
    else
        TRY(ops->trsolve(q, err, errlen));
done:
    return st;
}

int lsg_seed_solve(const lsg_seed_ops *ops, void *q, const ls_core_services *core,
                   const ls_job *job, ls_report *rep, char *err, size_t errlen)
{
    int st = 0, info = 0;
    unsigned marked = 0;
    step_fn step = method_step(ops, job->method);
    if (!step)
        return driver_fail(core, err, errlen, LS_EINTERNAL, __LINE__,
                           "method %s has no primitives on this backend",
                           core->method_name(job->method));

    TRY(ops->begin(q, job, err, errlen));
    TRY(mark(ops, q, LSG_START, &marked, err, errlen));
    TRY(ops->upload(q, err, errlen));
    TRY(mark(ops, q, LSG_H2D, &marked, err, errlen));

    TRY(eliminate(ops, q, step, job, err, errlen));
    TRY(mark(ops, q, LSG_FACTOR, &marked, err, errlen));
    /* The read of info belongs to t_solve: the host needs it to decide. */
    TRY(ops->read_info(q, &info, err, errlen));
    if (info == 0 && job->nrhs > 0) {
        TRY(solve_factored(ops, q, job, err, errlen));
        TRY(mark(ops, q, LSG_SOLVE, &marked, err, errlen));
    }

    TRY(ops->download(q, info, err, errlen));
    TRY(mark(ops, q, LSG_D2H, &marked, err, errlen));
    if (ops->finish)
        TRY(ops->finish(q, err, errlen));
    if (rep)
        lsg_phases_report(ops->elapsed, q, marked, rep);
    st = info;
done:
    ops->end(q);
    return st;
}
