/* ls_solve: validate, resolve the method, convert to the working precision,
 * run the backend, bring X back, and check it with the scaled residual. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/methods/methods.h"
#include "core/tool_api.h"
#include "core/util.h"

void ls_options_init(ls_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->method = LS_METHOD_AUTO;
    opt->precision = LS_DOUBLE;
    opt->pivot = LS_PIVOT_PARTIAL;
    opt->rtol = 0.0; /* automatic: see effective_rtol() */
    opt->atol = 0.0;
    opt->max_iter = 2000;
    opt->check = 1;
    opt->refine = 1;
}

void ls_report_clear(ls_report *rep)
{
    if (!rep)
        return;
    free(rep->history);
    memset(rep, 0, sizeof *rep);
}

static int all_finite(int m, int n, const double *A, int lda, int *bad_i, int *bad_j)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            if (!isfinite(A[i + (size_t)j * lda])) {
                *bad_i = i;
                *bad_j = j;
                return 0;
            }
    return 1;
}

/* Copy an m x n double block into a compact working-precision array. */
static void *to_working(ls_precision p, int m, int n, const double *X, int ldx)
{
    size_t count, bytes;
    if (ls_mul_size((size_t)m, (size_t)n, &count) ||
        ls_mul_size(count ? count : 1, p == LS_SINGLE ? sizeof(float) : sizeof(double), &bytes))
        return NULL;
    void *w = ls_malloc(bytes);
    if (!w)
        return NULL;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double v = X[i + (size_t)j * ldx];
            if (p == LS_SINGLE)
                ((float *)w)[i + (size_t)j * m] = (float)v;
            else
                ((double *)w)[i + (size_t)j * m] = v;
        }
    return w;
}

static void from_working(ls_precision p, int m, int n, const void *w, double *X, int ldx)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            X[i + (size_t)j * ldx] = p == LS_SINGLE ? (double)((const float *)w)[i + (size_t)j * m]
                                                    : ((const double *)w)[i + (size_t)j * m];
}

/* ||r||2 <= t ||b||2 gives ||r||inf <= t sqrt(n) ||A||inf ||x||inf, so
 * t = 10 sqrt(n) eps makes the scaled residual <= 10: the same bar (<= 30)
 * the direct methods meet. */
static double effective_rtol(const ls_options *opt, int n)
{
    if (opt->rtol > 0.0)
        return opt->rtol;
    return 10.0 * sqrt((double)(n > 1 ? n : 1)) * ls_eps(opt->precision);
}

/* A direct method whose answer fails the residual check gets up to
 * LS_REFINE_STEPS steps of classical iterative refinement: R = B - A X in
 * double, then a new solve of A D = R with the same backend and method in
 * the working precision, X += D. This is what makes a solver that is not
 * backward stable (Gauss-Jordan model 2: its residual grows with cond(A))
 * usable on ill-conditioned input on every backend. A step is kept only if
 * it lowers the scaled residual; refinement stops at <= 10 (under the bar
 * of 30 with room to spare). Returns the steps kept; the solve's own
 * timings in rep stay those of the first solve. */
#define LS_REFINE_STEPS 4
static int refine(ls_context *ctx, const ls_job *first, const double *A, int lda,
                  const double *B, int ldb, double *X, ls_report *rep)
{
    int n = first->n, nrhs = first->nrhs, steps = 0;
    size_t nb = (size_t)n * (size_t)nrhs;
    double *R = ls_malloc(sizeof(double) * nb), *Xt = ls_malloc(sizeof(double) * nb);
    char err[256];
    for (int it = 0; R && Xt && it < LS_REFINE_STEPS && rep->residual > 10.0; it++) {
        for (int j = 0; j < nrhs; j++) {
            double *r = R + (size_t)j * n;
            const double *x = X + (size_t)j * n;
            memcpy(r, B + (size_t)j * ldb, sizeof(double) * (size_t)n);
            for (int k = 0; k < n; k++)
                for (int i = 0; i < n; i++)
                    r[i] -= A[i + (size_t)k * lda] * x[k];
        }
        void *Aw = to_working(first->prec, n, n, A, lda);
        void *Rw = to_working(first->prec, n, nrhs, R, n);
        int st = -1;
        if (Aw && Rw) {
            ls_job job = *first;
            job.A = Aw, job.lda = n, job.B = Rw, job.ldb = n;
            ls_report r2;
            memset(&r2, 0, sizeof r2);
            st = ctx->iface->solve(ctx->bctx, &job, &r2, err, sizeof err);
            ls_report_clear(&r2);
        }
        if (st == 0) {
            from_working(first->prec, n, nrhs, Rw, Xt, n);
            for (size_t e = 0; e < nb; e++)
                Xt[e] += X[e];
        }
        free(Aw);
        free(Rw);
        if (st != 0)
            break;
        double res = ls_scaled_residual(n, nrhs, A, lda, Xt, n, B, ldb, ls_eps(first->prec));
        if (!(res < rep->residual))
            break;
        memcpy(X, Xt, sizeof(double) * nb);
        rep->residual = res;
        steps++;
    }
    free(R);
    free(Xt);
    return steps;
}

static int run(ls_context *ctx, const ls_options *opt, int n, int nrhs, const double *A, int lda,
               double *B, int ldb, ls_report *rep)
{
    char *err = ctx->error;
    size_t errlen = sizeof ctx->error;
    err[0] = '\0';
    if (n < 0) return LS_FAIL(err, errlen, LS_EINVAL, "n = %d must be >= 0", n);
    if (nrhs < 0) return LS_FAIL(err, errlen, LS_EINVAL, "nrhs = %d must be >= 0", nrhs);
    if (lda < (n > 1 ? n : 1)) return LS_FAIL(err, errlen, LS_EINVAL, "lda = %d < max(1, n = %d)", lda, n);
    if (ldb < (n > 1 ? n : 1)) return LS_FAIL(err, errlen, LS_EINVAL, "ldb = %d < max(1, n = %d)", ldb, n);
    if (n > 0 && (!A || (nrhs > 0 && !B)))
        return LS_FAIL(err, errlen, LS_EINVAL, "A or B is NULL");
    if (!ctx->iface)
        return LS_FAIL(err, errlen, LS_EUNAVAIL, "context has no usable backend");
    if (opt->precision != LS_DOUBLE && opt->precision != LS_SINGLE)
        return LS_FAIL(err, errlen, LS_EINVAL, "unknown precision %d", (int)opt->precision);
    if (opt->method < 0 || opt->method >= LS_METHOD_COUNT_)
        return LS_FAIL(err, errlen, LS_EINVAL, "unknown method %d", (int)opt->method);

    ls_method method = opt->method;
    if (method == LS_METHOD_AUTO)
        method = ctx->iface->auto_method(ctx->bctx, opt->precision);
    rep->method = method;
    int st = ctx->iface->supports(ctx->bctx, method, opt->precision, err, errlen);
    if (st)
        return st;
    int bi = 0, bj = 0;
    if (!all_finite(n, n, A, lda, &bi, &bj))
        return LS_FAIL(err, errlen, LS_ENONFINITE, "A(%d,%d) is not finite", bi + 1, bj + 1);
    if (!all_finite(n, nrhs, B, ldb, &bi, &bj))
        return LS_FAIL(err, errlen, LS_ENONFINITE, "B(%d,%d) is not finite", bi + 1, bj + 1);
    if (n == 0 || nrhs == 0)
        return 0;

    /* Linux overcommits: a working copy bigger than the machine would not
     * fail in malloc but later, as a kill. Refuse it here with the numbers. */
    double es = opt->precision == LS_SINGLE ? 4.0 : 8.0;
    double need = es * (double)n * ((double)n + nrhs) + 8.0 * (double)n * nrhs + 4.0 * n;
    double mem = ls_host_memory_bytes();
    if (mem > 0 && need > 0.9 * mem)
        return LS_FAIL(err, errlen, LS_ENOMEM,
                       "n = %d needs %.1f GiB of working memory; this machine has %.1f GiB", n,
                       need / 1073741824.0, mem / 1073741824.0);
    void *Aw = to_working(opt->precision, n, n, A, lda);
    void *Bw = to_working(opt->precision, n, nrhs, B, ldb);
    int *ipiv = ls_malloc(sizeof(int) * (size_t)n);
    double *X = ls_malloc(sizeof(double) * (size_t)n * (size_t)nrhs);
    if (!Aw || !Bw || !ipiv || !X) {
        free(Aw); free(Bw); free(ipiv); free(X);
        return LS_FAIL(err, errlen, LS_ENOMEM, "cannot allocate %.0f bytes of host memory",
                       (double)n * (n + 2.0 * nrhs) * 8.0);
    }
    ls_job job = {
        .method = method, .prec = opt->precision, .pivot = opt->pivot, .n = n, .nrhs = nrhs,
        .A = Aw, .lda = n, .B = Bw, .ldb = n, .ipiv = ipiv, .rtol = effective_rtol(opt, n),
        .atol = opt->atol, .max_iter = opt->max_iter > 0 ? opt->max_iter : 2000,
        .progress = opt->progress, .progress_arg = opt->progress_arg,
    };
    st = ctx->iface->solve(ctx->bctx, &job, rep, err, errlen);
    rep->method = method;
    double t_compute = rep->t_factor + rep->t_solve;
    /* the method table's models, so that solve and bench print one number */
    rep->flops = ls_method_flops(method, n, nrhs, rep->iterations);
    rep->bytes = ls_method_bytes(job.method, n, nrhs, opt->precision == LS_SINGLE ? 4 : 8,
                                 rep->iterations);
    if (t_compute > 0) {
        rep->gflops = rep->flops / t_compute * 1e-9;
        rep->gbps = rep->bytes / t_compute * 1e-9;
    }
    if (st > 0 && st < LS_NOT_CONVERGED) {
        rep->info = st;
        snprintf(rep->message, sizeof rep->message,
                 "matrix is singular: U(%d,%d) is exactly zero", st, st);
        snprintf(err, errlen, "%s", rep->message);
    } else if (st == 0 || st == LS_NOT_CONVERGED || st == LS_BREAKDOWN) {
        from_working(opt->precision, n, nrhs, Bw, X, n);
        if (opt->check || st == 0)
            rep->residual = ls_scaled_residual(n, nrhs, A, lda, X, n, B, ldb,
                                               ls_eps(opt->precision));
        /* refinement: checked direct solves with pivoting only (--pivot
         * none and --no-refine stay as computed, for study; benchmarks run
         * unchecked) */
        if (st == 0 && opt->check && opt->refine &&
            (ls_method_info_of(method)->options & LS_OPT_REFINE) &&
            job.pivot == LS_PIVOT_PARTIAL &&
            !(rep->residual <= 30.0) && isfinite(rep->residual)) {
            double before = rep->residual;
            int steps = refine(ctx, &job, A, lda, B, ldb, X, rep);
            if (steps > 0) {
                rep->iterations += steps;
                snprintf(rep->message, sizeof rep->message,
                         "%s on %s left a scaled residual of %.3g; %d step(s) of iterative "
                         "refinement (each a new %s solve of A D = B - A X) brought it to %.3g",
                         ls_method_name(method), ctx->device_name, before, steps,
                         ls_method_name(method), rep->residual);
            }
        }
        for (int j = 0; j < nrhs; j++)
            memcpy(B + (size_t)j * ldb, X + (size_t)j * n, sizeof(double) * (size_t)n);
        if (st == 0 && opt->check && !(rep->residual <= 30.0)) {
            st = LS_INACCURATE;
            if (ls_method_is_iterative(method))
                snprintf(rep->message, sizeof rep->message,
                         "converged to rtol %.3g after %d iterations, but the scaled residual "
                         "%.3g exceeds 30: use a smaller --rtol",
                         job.rtol, rep->iterations, rep->residual);
            else if (rep->iterations > 0 && strstr(rep->message, "refinement"))
                snprintf(rep->message + strlen(rep->message),
                         sizeof rep->message - strlen(rep->message),
                         ", which still exceeds 30: the answer is not accurate");
            else
                snprintf(rep->message, sizeof rep->message,
                         "scaled residual %.3g exceeds 30: the answer is not accurate",
                         rep->residual);
        } else if (st == 0 && !rep->message[0]) {
            snprintf(rep->message, sizeof rep->message, "solved");
        }
        if (st != 0 && !err[0])
            snprintf(err, errlen, "%s", rep->message);
    }
    free(Aw); free(Bw); free(ipiv); free(X);
    return st;
}

int ls_solve(ls_context *ctx, const ls_options *opt, int n, int nrhs, const double *A, int lda,
             double *B, int ldb, ls_report *rep)
{
    ls_options defaults;
    ls_report local;
    ls_context *own = NULL;
    if (!opt) {
        ls_options_init(&defaults);
        opt = &defaults;
    }
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    if (!ctx) {
        int st = ls_context_create(&own, LS_BACKEND_CPU, 0);
        if (st) {
            ls_context_destroy(own);
            return st;
        }
        ctx = own;
    }
    rep->backend = ctx->kind;
    rep->precision = opt->precision;
    rep->n = n;
    rep->nrhs = nrhs;
    rep->method = opt->method;
    snprintf(rep->device, sizeof rep->device, "%s", ctx->device_name);
    ls_context_enter(ctx);
    double t0 = ls_now();
    int st = run(ctx, opt, n, nrhs, A, lda, B, ldb, rep);
    rep->t_total = ls_now() - t0;
    /* The report speaks plain words; where a failure was raised goes to its
     * own field (ctx->error keeps both, as ls_context_error promises). */
    char text[sizeof ctx->error], where[sizeof rep->where];
    if (st) {
        ls_message_split(ctx->error[0] ? ctx->error : ls_strerror(st), text, sizeof text,
                         rep->where, sizeof rep->where);
        if (!rep->message[0])
            snprintf(rep->message, sizeof rep->message, "%s", text);
    }
    ls_message_split(rep->message, rep->message, sizeof rep->message, where, sizeof where);
    if (!rep->where[0])
        snprintf(rep->where, sizeof rep->where, "%s", where);
    ls_context_leave(ctx);
    if (rep == &local)
        ls_report_clear(&local);
    ls_context_destroy(own);
    return st;
}
