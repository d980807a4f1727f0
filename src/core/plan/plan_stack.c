/* The planner's stack paths: "batched" (one call of ls_?gesv_batched or its
 * _gpu form) and "stack-loop" (ls_solve system by system, for a named dense
 * method or, on the host, a precision other than the data's). Both solve every system,
 * a singular one included, and report the first failure's index. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan/plan.h"
#include "core/util.h"

static size_t block_bytes(const ls_problem *p, char which)
{
    long long stride = which == 'A' ? p->strideA : p->strideB;
    int rm = p->layout == LS_ROW_MAJOR;
    size_t ld = (size_t)(which == 'A' ? p->lda : p->ldb);
    size_t other = which == 'A' ? (size_t)p->n : rm ? (size_t)p->n : (size_t)p->nrhs;
    size_t last = ld * other; /* the last system's extent */
    return ls_plan_esize(p) * ((size_t)(p->batch - 1) * (size_t)stride + last);
}

static int first_failure(ls_plan *pl, const int *info)
{
    for (long long i = 0; i < pl->p->batch; i++)
        if (info[i]) {
            pl->index = i;
            pl->rep->info = info[i];
            return ls_plan_fail(pl, info[i], "system %lld: U(%d,%d) is exactly zero: singular",
                                i, info[i], info[i]);
        }
    return 0;
}

/* The scaled residual of every solved system, from copies of A and B made
 * before the factorization overwrote A; the worst one is reported. */
static int check_stack(ls_plan *pl, const ls_problem *before, const int *info)
{
    const ls_problem *p = pl->p;
    size_t n = (size_t)p->n, k = (size_t)p->nrhs;
    double *a = ls_malloc(sizeof(double) * (n * n + 2 * n * k));
    if (!a)
        return ls_plan_fail(pl, LS_ENOMEM, "out of memory for the residual check");
    double *b = a + n * n, *x = b + n * k, worst = 0;
    long long at = -1;
    for (long long i = 0; i < p->batch; i++) {
        if (info[i])
            continue;
        ls_plan_load(before, i, 'A', a);
        ls_plan_load(before, i, 'B', b);
        ls_plan_load(p, i, 'B', x);
        double r = ls_scaled_residual(p->n, p->nrhs, a, p->n, x, p->n, b, p->n,
                                      ls_eps(pl->prec));
        if (!(r <= worst)) { /* NaN counts as the worst */
            worst = r;
            at = i;
            if (isnan(r))
                break;
        }
    }
    free(a);
    pl->rep->residual = worst;
    if (at >= 0 && !(worst <= 30)) {
        pl->index = at;
        return ls_plan_fail(pl, LS_INACCURATE, "system %lld: scaled residual %.3g exceeds 30", at,
                            worst);
    }
    return 0;
}

static int call_batched(ls_plan *pl, int *info)
{
    ls_problem *p = pl->p;
    int dev = p->memory == LS_MEMORY_DEVICE, f = p->dtype == LS_FLOAT32;
    if (dev)
        return f ? ls_sgesv_batched_gpu(p->layout, p->n, p->nrhs, p->A, p->lda, p->strideA, p->ipiv,
                                        p->B, p->ldb, p->strideB, info, p->batch, pl->ctx)
                 : ls_dgesv_batched_gpu(p->layout, p->n, p->nrhs, p->A, p->lda, p->strideA, p->ipiv,
                                        p->B, p->ldb, p->strideB, info, p->batch, pl->ctx);
    return f ? ls_sgesv_batched(p->layout, p->n, p->nrhs, p->A, p->lda, p->strideA, p->ipiv, p->B,
                                p->ldb, p->strideB, info, p->batch, pl->ctx)
             : ls_dgesv_batched(p->layout, p->n, p->nrhs, p->A, p->lda, p->strideA, p->ipiv, p->B,
                                p->ldb, p->strideB, info, p->batch, pl->ctx);
}

/* Copies of A and B for the residual check (host problems with check on). */
static int keep_copies(ls_plan *pl, ls_problem *before)
{
    *before = *pl->p;
    size_t ba = block_bytes(pl->p, 'A'), bb = block_bytes(pl->p, 'B');
    before->A = ls_malloc(ba);
    before->B = ls_malloc(bb);
    if (!before->A || !before->B) {
        free(before->A);
        free(before->B);
        return ls_plan_fail(pl, LS_ENOMEM, "out of memory for copies of the stack to check");
    }
    memcpy(before->A, pl->p->A, ba);
    memcpy(before->B, pl->p->B, bb);
    return 0;
}

int ls_plan_run_batched(ls_plan *pl)
{
    ls_problem *p = pl->p;
    int dev = p->memory == LS_MEMORY_DEVICE;
    size_t info_bytes = sizeof(int) * (size_t)p->batch;
    /* ipiv: the caller's if given (ls_?gesv_batched may leave them out) */
    int *host_info = p->memory == LS_MEMORY_HOST && p->info ? p->info : ls_malloc(info_bytes);
    int *info = p->info ? p->info : host_info, *own_dev = NULL;
    if (!host_info)
        return ls_plan_fail(pl, LS_ENOMEM, "out of memory for %d infos", p->batch);
    int st = 0;
    if (dev && !p->info) {
        st = ls_device_malloc(pl->ctx, (void **)&own_dev, info_bytes);
        info = own_dev;
    }
    ls_problem before;
    memset(&before, 0, sizeof before);
    int check = !dev && pl->opt.check;
    if (!st && check)
        st = keep_copies(pl, &before);
    double t0 = ls_now();
    if (!st)
        st = call_batched(pl, info);
    /* the caller's device info: queued only, the caller reads it (no wait) */
    int async = dev && p->info;
    if (!st && dev && !async) /* waits for the stream: the time below is the device's */
        st = ls_device_copy(pl->ctx, host_info, info, info_bytes);
    pl->rep->t_total = async ? 0 : ls_now() - t0;
    pl->rep->method = LS_METHOD_LU;
    if (!st && !async)
        st = first_failure(pl, host_info);
    if (check && (st == 0 || ls_plan_is_singular(st))) {
        int c = check_stack(pl, &before, host_info);
        st = st ? st : c;
    }
    free(before.A);
    free(before.B);
    if (own_dev)
        ls_device_free(pl->ctx, own_dev);
    if (host_info != p->info)
        free(host_info);
    return st;
}

int ls_plan_run_stack_loop(ls_plan *pl)
{
    ls_problem *p = pl->p;
    size_t n = (size_t)p->n, k = (size_t)p->nrhs;
    double *a = ls_malloc(sizeof(double) * (n * n + n * k));
    if (!a)
        return ls_plan_fail(pl, LS_ENOMEM, "out of memory for one system's copy");
    double *b = a + n * n, t = 0, worst = 0;
    int st = 0;
    for (long long i = 0; i < p->batch; i++) {
        ls_plan_load(p, i, 'A', a);
        ls_plan_load(p, i, 'B', b);
        ls_report r;
        int s = ls_solve(pl->ctx, &pl->opt, p->n, p->nrhs, a, p->n, b, p->n, &r);
        t += r.t_total;
        if (!(r.residual <= worst))
            worst = r.residual;
        if (s == 0 || s == LS_INACCURATE)
            ls_plan_store_b(p, i, b);
        if (p->info)
            p->info[i] = ls_plan_is_singular(s) ? s : 0;
        if (s && !st) {
            st = s;
            pl->index = i;
            pl->rep->info = ls_plan_is_singular(s) ? s : 0;
            snprintf(pl->rep->message, sizeof pl->rep->message, "system %lld: %s", i, r.message);
        }
        pl->rep->method = r.method;
        ls_report_clear(&r);
        if (s < 0) /* a failure of the library, not of one system */
            break;
    }
    free(a);
    pl->rep->t_total = t;
    pl->rep->residual = pl->opt.check ? worst : NAN;
    return st;
}
