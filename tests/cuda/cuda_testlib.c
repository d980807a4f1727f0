#include "cuda_testlib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void *ct_alloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu x %zu)\n", count, size);
        exit(2);
    }
    return p;
}

ls_context *ct_open_or_skip(void)
{
    ls_context *ctx = NULL;
    int st = ls_context_create(&ctx, LS_BACKEND_CUDA, 0);
    if (st != 0) {
        printf("skipped: no CUDA device (%s: %s)\n", ls_strerror(st),
               ctx ? ls_context_error(ctx) : "");
        ls_context_destroy(ctx);
        exit(LT_SKIP);
    }
    printf("device: %s\n", ls_context_device_name(ctx));
    return ctx;
}

static void *to_prec(ls_precision p, size_t count, const double *src)
{
    if (p == LS_DOUBLE) {
        double *d = ct_alloc(count, sizeof *d);
        memcpy(d, src, count * sizeof *d);
        return d;
    }
    float *f = ct_alloc(count, sizeof *f);
    for (size_t i = 0; i < count; i++)
        f[i] = (float)src[i];
    return f;
}

int ct_solve(ls_context *ctx, ls_method m, ls_precision p, ls_pivot pv, int n, int nrhs,
             const double *A, const double *B, double *X, int *ipiv, ct_result *res)
{
    size_t nn = (size_t)n * n, nb = (size_t)n * nrhs;
    ls_job job;
    ls_report rep;
    memset(&job, 0, sizeof job);
    memset(&rep, 0, sizeof rep);
    memset(res, 0, sizeof *res);
    job.method = m;
    job.prec = p;
    job.pivot = pv;
    job.n = n;
    job.nrhs = nrhs;
    job.A = to_prec(p, nn, A);
    job.lda = n > 1 ? n : 1;
    job.B = to_prec(p, nb, B);
    job.ldb = n > 1 ? n : 1;
    job.ipiv = ct_alloc((size_t)n, sizeof(int));
    /* rtol 0: iterate to the working precision, so that a converged
     * bicgstab also meets the direct methods' scaled-residual criterion
     * (the default 1e-10 would not, in FP64) */
    job.rtol = 0.0;
    job.max_iter = 2000;
    double t0 = wall();
    res->status = ctx->iface->solve(ctx->bctx, &job, &rep, res->err, sizeof res->err);
    res->seconds = wall() - t0;
    res->iterations = rep.iterations;
    res->t_h2d = rep.t_h2d;
    res->t_factor = rep.t_factor;
    res->t_solve = rep.t_solve;
    res->t_d2h = rep.t_d2h;
    free(rep.history);
    double *Xd = X ? X : ct_alloc(nb, sizeof *Xd);
    for (size_t i = 0; i < nb; i++)
        Xd[i] = p == LS_DOUBLE ? ((double *)job.B)[i] : (double)((float *)job.B)[i];
    res->residual = NAN;
    if (res->status == 0)
        res->residual = ls_scaled_residual(n, nrhs, A, n, Xd, n, B, n, ls_eps(p));
    if (ipiv)
        memcpy(ipiv, job.ipiv, (size_t)n * sizeof(int));
    if (!X)
        free(Xd);
    free(job.A);
    free(job.B);
    free(job.ipiv);
    return res->status;
}

int ct_reference_info(ls_precision p, int n, const double *A)
{
    size_t nn = (size_t)n * n;
    int info = 0, *ipiv = ct_alloc((size_t)n, sizeof(int));
    void *a = to_prec(p, nn, A);
    if (p == LS_DOUBLE)
        ls_dgetrf(n, n, a, n > 1 ? n : 1, ipiv, &info, NULL);
    else
        ls_sgetrf(n, n, a, n > 1 ? n : 1, ipiv, &info, NULL);
    free(a);
    free(ipiv);
    return info;
}
