/* The planner's one-system paths: "dense" (ls_solve on the host, the
 * MAGMA-shaped ls_?gesv_gpu on the device) and "mixed" (ls_dsgesv and
 * ls_dsgesv_gpu, also system by system over a stack). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/plan/plan.h"
#include "core/util.h"

/* ls_solve takes column-major FP64: other data goes through scratch. */
static int dense_host(ls_plan *pl)
{
    ls_problem *p = pl->p;
    int n = p->n, k = p->nrhs;
    int as_is = p->dtype == LS_FLOAT64 && p->layout == LS_COL_MAJOR;
    double *sa = NULL, *sb = NULL;
    if (!as_is) {
        sa = ls_malloc(sizeof(double) * (size_t)n * (size_t)n);
        sb = ls_malloc(sizeof(double) * (size_t)n * (size_t)k);
        if (!sa || !sb) {
            free(sa);
            free(sb);
            return ls_plan_fail(pl, LS_ENOMEM, "out of memory for a copy of A and B (n = %d)", n);
        }
        ls_plan_load(p, 0, 'A', sa);
        ls_plan_load(p, 0, 'B', sb);
    }
    int st = ls_solve(pl->ctx, &pl->opt, n, k, as_is ? (const double *)p->A : sa,
                      as_is ? p->lda : n, as_is ? (double *)p->B : sb, as_is ? p->ldb : n,
                      pl->rep);
    if (!as_is && (st == 0 || st == LS_INACCURATE))
        ls_plan_store_b(p, 0, sb);
    free(sa);
    free(sb);
    return st;
}

static int singular(ls_plan *pl, int info)
{
    pl->rep->info = info;
    return ls_plan_fail(pl, info, "U(%d,%d) is exactly zero: the matrix is singular", info, info);
}

/* One system through the batched routine (its row-major addressing), with
 * info in device memory: dinfo, or a temporary read back before return. */
static int dense_device_batched(ls_plan *pl, int *dinfo)
{
    ls_problem *p = pl->p;
    int f = p->dtype == LS_FLOAT32, info = 0, st = 0, *own = NULL;
    if (!dinfo)
        st = ls_device_malloc(pl->ctx, (void **)&own, sizeof(int));
    int *d = dinfo ? dinfo : own;
    if (!st)
        st = f ? ls_sgesv_batched_gpu(p->layout, p->n, p->nrhs, p->A, p->lda, 0, p->ipiv, p->B,
                                      p->ldb, 0, d, 1, pl->ctx)
               : ls_dgesv_batched_gpu(p->layout, p->n, p->nrhs, p->A, p->lda, 0, p->ipiv, p->B,
                                      p->ldb, 0, d, 1, pl->ctx);
    if (!st && own)
        st = ls_device_copy(pl->ctx, &info, own, sizeof(int));
    ls_device_free(pl->ctx, own);
    return st ? st : info > 0 ? singular(pl, info) : 0;
}

/* Row-major A read column-major is A^T, whose LU solves A x = b with 'T'
 * (one right-hand side stored densely); other row-major systems go through
 * the batched routine. Pivots and info come back to the host: it waits. */
static int dense_device_rowmajor(ls_plan *pl, int *ipiv)
{
    ls_problem *p = pl->p;
    int n = p->n, info = 0, st;
    int f = p->dtype == LS_FLOAT32, ld = n > 1 ? n : 1;
    if (p->nrhs != 1 || p->ldb != 1)
        return dense_device_batched(pl, NULL);
    st = f ? ls_sgetrf_gpu(n, n, p->A, p->lda, ipiv, &info, pl->ctx)
           : ls_dgetrf_gpu(n, n, p->A, p->lda, ipiv, &info, pl->ctx);
    if (st < 0 || info > 0)
        return st < 0 ? st : singular(pl, info);
    return f ? ls_sgetrs_gpu('T', n, 1, p->A, p->lda, ipiv, p->B, ld, &info, pl->ctx)
             : ls_dgetrs_gpu('T', n, 1, p->A, p->lda, ipiv, p->B, ld, &info, pl->ctx);
}

/* With the caller's info (and, column-major, pivots) in device memory the
 * solve is only queued: nothing waits for the device (MAGMA's convention). */
static int dense_device_async(ls_plan *pl)
{
    ls_problem *p = pl->p;
    pl->rep->t_total = 0;
    snprintf(pl->rep->message, sizeof pl->rep->message,
             "queued on the stream: info is the caller's to read");
    if (p->layout == LS_ROW_MAJOR || !p->ipiv)
        return dense_device_batched(pl, p->info);
    return p->dtype == LS_FLOAT32
               ? ls_sgesv_gpu(p->n, p->nrhs, p->A, p->lda, p->ipiv, p->B, p->ldb, p->info, pl->ctx)
               : ls_dgesv_gpu(p->n, p->nrhs, p->A, p->lda, p->ipiv, p->B, p->ldb, p->info, pl->ctx);
}

static int dense_device(ls_plan *pl)
{
    ls_problem *p = pl->p;
    int n = p->n, info = 0, st;
    if (p->dtype == LS_FLOAT64 ? pl->prec != LS_DOUBLE : pl->prec != LS_SINGLE)
        return ls_plan_fail(pl, LS_EUNSUPPORTED,
                            "in device memory the working precision is the data's");
    pl->rep->method = LS_METHOD_LU;
    if (p->info)
        return dense_device_async(pl);
    int *ipiv = p->ipiv ? p->ipiv : ls_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!ipiv)
        return ls_plan_fail(pl, LS_ENOMEM, "out of memory for %d pivots", n);
    double t0 = ls_now();
    if (p->layout == LS_ROW_MAJOR)
        st = dense_device_rowmajor(pl, ipiv);
    else {
        st = p->dtype == LS_FLOAT32
                 ? ls_sgesv_gpu(n, p->nrhs, p->A, p->lda, ipiv, p->B, p->ldb, &info, pl->ctx)
                 : ls_dgesv_gpu(n, p->nrhs, p->A, p->lda, ipiv, p->B, p->ldb, &info, pl->ctx);
        if (ls_plan_is_singular(st))
            st = singular(pl, st);
    }
    /* info came back to the host: the device has finished */
    pl->rep->t_total = ls_now() - t0;
    if (ipiv != p->ipiv)
        free(ipiv);
    return st;
}

int ls_plan_run_dense(ls_plan *pl)
{
    if (pl->p->memory == LS_MEMORY_DEVICE)
        return dense_device(pl);
    if (ls_plan_dense_lapack_fits(pl)) {
        int retry, st = ls_plan_run_dense_lapack(pl, &retry);
        if (!retry)
            return st;
    }
    return dense_host(pl);
}

/* One system's outcome into the report, and into the caller's
 * mixed_result (a stack's last system solved: its first failure, if any). */
static void mixed_report(ls_plan *pl, const ls_mixed_result *r, int st)
{
    ls_report *rep = pl->rep;
    if (!(rep->residual > r->residual))
        rep->residual = r->residual;
    rep->iterations += r->iterations;
    rep->method = LS_METHOD_LU;
    if (ls_plan_is_singular(st))
        rep->info = st;
    snprintf(rep->message, sizeof rep->message, "%s", r->message);
    if (pl->p->mixed_result)
        *pl->p->mixed_result = *r;
}

/* System i of a host problem, column-major FP64 through scratch. */
static int mixed_host_one(ls_plan *pl, long long i, double *a, double *b, double *x, int *ipiv,
                          const ls_mixed_opts *mo)
{
    ls_problem *p = pl->p;
    int n = p->n, k = p->nrhs;
    ls_plan_load(p, i, 'A', a);
    ls_plan_load(p, i, 'B', b);
    ls_mixed_result r;
    int st = ls_dsgesv(pl->ctx, n, k, a, n, ipiv, b, n, x, n, mo, &r);
    mixed_report(pl, &r, st);
    if (p->info && p->memory == LS_MEMORY_HOST)
        p->info[i] = ls_plan_is_singular(st) ? st : 0;
    if (st == 0 || st == LS_INACCURATE)
        ls_plan_store_b(p, i, x);
    return st;
}

static int mixed_host(ls_plan *pl, const ls_mixed_opts *mo)
{
    ls_problem *p = pl->p;
    size_t n = (size_t)p->n, k = (size_t)p->nrhs;
    /* ls_dsgesv runs on the CPU where the backend has no mixed kernels:
     * the report, which names the context's device, says so */
    const ls_backend_iface *f = pl->ctx ? pl->ctx->iface : NULL;
    ls_backend_kind kind = ls_context_backend(pl->ctx);
    if (kind != LS_BACKEND_CPU && !(f && f->mixed && f->device))
        ls_plan_more(pl, "on the CPU: the %s backend has no mixed-precision kernels",
                     ls_backend_name(kind));
    long long count = p->shape == LS_SHAPE_STACK ? p->batch : 1;
    double *a = ls_malloc(sizeof(double) * n * n);
    double *b = ls_malloc(sizeof(double) * n * k * 2);
    int *ipiv = ls_malloc(sizeof(int) * n);
    int st = 0;
    if (!a || !b || !ipiv)
        st = ls_plan_fail(pl, LS_ENOMEM, "out of memory for the mixed solve's scratch");
    for (long long i = 0; !st && i < count; i++) {
        st = mixed_host_one(pl, i, a, b, b + n * k, ipiv, mo);
        if (st && count > 1)
            pl->index = i;
        if (ls_plan_is_singular(st))
            pl->rep->info = st;
    }
    free(a);
    free(b);
    free(ipiv);
    return st;
}

/* Device: column-major only (ls_dsgesv_gpu has no transposed solve). */
static int mixed_device(ls_plan *pl, const ls_mixed_opts *mo)
{
    ls_problem *p = pl->p;
    int n = p->n, k = p->nrhs, st;
    if (p->layout != LS_COL_MAJOR || p->shape != LS_SHAPE_DENSE)
        return ls_plan_fail(pl, LS_EUNSUPPORTED, "mixed precision in device memory takes one "
                            "column-major system");
    size_t col = sizeof(double) * (size_t)n;
    double *dx = NULL;
    int *ipiv = ls_malloc(sizeof(int) * (size_t)n);
    if (!ipiv)
        return ls_plan_fail(pl, LS_ENOMEM, "out of memory for %d pivots", n);
    st = ls_device_malloc(pl->ctx, (void **)&dx, col * (size_t)k);
    ls_mixed_result r;
    memset(&r, 0, sizeof r);
    r.residual = NAN;
    if (!st) {
        st = ls_dsgesv_gpu(pl->ctx, n, k, p->A, p->lda, ipiv, p->B, p->ldb, dx, n, mo, &r);
        mixed_report(pl, &r, st);
    }
    for (int j = 0; (st == 0 || st == LS_INACCURATE) && j < k; j++) {
        int c = ls_device_copy(pl->ctx, (double *)p->B + (size_t)j * p->ldb, dx + (size_t)j * n,
                               col);
        st = c ? c : st;
    }
    if (dx)
        ls_device_synchronize(pl->ctx);
    ls_device_free(pl->ctx, dx);
    free(ipiv);
    if (ls_plan_is_singular(st))
        pl->rep->info = st;
    return st;
}

int ls_plan_run_mixed(ls_plan *pl)
{
    ls_mixed_opts mo;
    if (pl->p->mixed)
        mo = *pl->p->mixed;
    else
        ls_mixed_opts_init(&mo);
    pl->rep->residual = -1; /* mixed_report keeps the largest */
    double t0 = ls_now();
    int st = pl->p->memory == LS_MEMORY_DEVICE ? mixed_device(pl, &mo) : mixed_host(pl, &mo);
    pl->rep->t_total = ls_now() - t0;
    if (pl->rep->residual < 0)
        pl->rep->residual = NAN;
    return st;
}
