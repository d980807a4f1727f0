/* ls_solve_problem: the one front door (linsolve.h). Checks the problem,
 * turns the policy and the method name into a plan, picks the path from
 * the table (plan_paths.c) and fills the report's path, why, index, batch
 * and rates. The paths themselves call the LAPACK/MAGMA-shaped routines. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/plan/plan.h"
#include "core/util.h"

void ls_problem_init(ls_problem *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->shape = LS_SHAPE_DENSE;
    p->dtype = LS_FLOAT64;
    p->memory = LS_MEMORY_HOST;
    p->layout = LS_COL_MAJOR;
    p->batch = 1;
    p->policy = LS_POLICY_AUTO;
}

int ls_path_count(void)
{
    return ls_path_total;
}

const char *ls_path_name(int i)
{
    return i >= 0 && i < ls_path_total ? ls_paths[i].name : NULL;
}

const char *ls_path_description(int i)
{
    return i >= 0 && i < ls_path_total ? ls_paths[i].description : NULL;
}

int ls_plan_fail(ls_plan *pl, int st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pl->rep->message, sizeof pl->rep->message, fmt, ap);
    va_end(ap);
    if (pl->ctx)
        snprintf(pl->ctx->error, sizeof pl->ctx->error, "%s", pl->rep->message);
    return st;
}

void ls_plan_more(ls_plan *pl, const char *fmt, ...)
{
    size_t used = strlen(pl->more);
    if (used + 3 >= sizeof pl->more)
        return;
    snprintf(pl->more + used, sizeof pl->more - used, "; ");
    used += 2;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pl->more + used, sizeof pl->more - used, fmt, ap);
    va_end(ap);
}

void ls_sparse_opts_init(ls_sparse_opts *o)
{
    if (o)
        memset(o, 0, sizeof *o);
}

size_t ls_plan_esize(const ls_problem *p)
{
    return p->dtype == LS_FLOAT32 ? sizeof(float) : sizeof(double);
}

/* Element (r, c) of system i's A or B, as stored. */
static size_t offset(const ls_problem *p, long long i, char which, int r, int c)
{
    int a = which == 'A';
    long long stride = a ? p->strideA : p->strideB;
    size_t ld = (size_t)(a ? p->lda : p->ldb);
    size_t at = p->layout == LS_ROW_MAJOR ? (size_t)r * ld + (size_t)c : (size_t)r + (size_t)c * ld;
    return (size_t)(i * stride) + at;
}

void ls_plan_load(const ls_problem *p, long long i, char which, double *dst)
{
    int rows = p->n, cols = which == 'A' ? p->n : p->nrhs;
    const void *src = which == 'A' ? p->A : p->B;
    for (int c = 0; c < cols; c++)
        for (int r = 0; r < rows; r++) {
            size_t o = offset(p, i, which, r, c);
            dst[r + (size_t)c * rows] =
                p->dtype == LS_FLOAT32 ? ((const float *)src)[o] : ((const double *)src)[o];
        }
}

void ls_plan_store_b(ls_problem *p, long long i, const double *src)
{
    for (int c = 0; c < p->nrhs; c++)
        for (int r = 0; r < p->n; r++) {
            size_t o = offset(p, i, 'B', r, c);
            double v = src[r + (size_t)c * p->n];
            if (p->dtype == LS_FLOAT32)
                ((float *)p->B)[o] = (float)v;
            else
                ((double *)p->B)[o] = v;
        }
}

/* 0, or the status for the first field that cannot be right. */
static int check_problem(ls_plan *pl)
{
    const ls_problem *p = pl->p;
    if ((unsigned)p->shape > LS_SHAPE_CSR)
        return ls_plan_fail(pl, LS_EINVAL, "problem.shape %d is not a shape", (int)p->shape);
    if ((unsigned)p->dtype > LS_FLOAT32 || (unsigned)p->memory > LS_MEMORY_DEVICE ||
        (unsigned)p->policy > LS_POLICY_MIXED ||
        (p->layout != LS_COL_MAJOR && p->layout != LS_ROW_MAJOR))
        return ls_plan_fail(pl, LS_EINVAL, "problem.dtype, memory, policy or layout out of range");
    if (p->shape == LS_SHAPE_CSR) {
        if (!p->csr)
            return ls_plan_fail(pl, LS_EINVAL, "problem.csr is NULL for a sparse problem");
        if (p->memory != LS_MEMORY_HOST || p->dtype != LS_FLOAT64)
            return ls_plan_fail(pl, LS_EUNSUPPORTED,
                                "a sparse problem is FP64 CSR in host memory");
        if (p->csr->n_rows != p->csr->n_cols)
            return ls_plan_fail(pl, LS_ESIZE, "sparse A is %lld x %lld: not square",
                                (long long)p->csr->n_rows, (long long)p->csr->n_cols);
        if (p->csr->n_rows > INT32_MAX)
            return ls_plan_fail(pl, LS_ESIZE, "sparse A of order %lld: more than 2^31 - 1",
                                (long long)p->csr->n_rows);
        if (p->n != (int)p->csr->n_rows)
            return ls_plan_fail(pl, LS_EINVAL, "problem.n %d is not the order %lld of csr",
                                p->n, (long long)p->csr->n_rows);
    }
    if (p->n < 0 || p->nrhs < 0 || (p->shape == LS_SHAPE_STACK && p->batch < 0))
        return ls_plan_fail(pl, LS_EINVAL, "negative problem.n, nrhs or batch");
    int empty = p->n == 0 || p->nrhs == 0 || (p->shape == LS_SHAPE_STACK && p->batch == 0);
    if (empty)
        return 0;
    if (p->shape != LS_SHAPE_CSR && !p->A)
        return ls_plan_fail(pl, LS_EINVAL, "problem.A is NULL");
    if (!p->B)
        return ls_plan_fail(pl, LS_EINVAL, "problem.B is NULL");
    int rm = p->layout == LS_ROW_MAJOR;
    int lda_min = p->n > 1 ? p->n : 1;
    int ldb_min = rm ? (p->nrhs > 1 ? p->nrhs : 1) : (p->n > 1 ? p->n : 1);
    if (p->shape != LS_SHAPE_CSR && p->lda < lda_min)
        return ls_plan_fail(pl, LS_EINVAL, "problem.lda %d < %d", p->lda, lda_min);
    if (p->ldb < ldb_min)
        return ls_plan_fail(pl, LS_EINVAL, "problem.ldb %d < %d", p->ldb, ldb_min);
    if (p->policy == LS_POLICY_MIXED && p->dtype != LS_FLOAT64)
        return ls_plan_fail(pl, LS_EINVAL,
                            "mixed precision returns an FP64 answer: pass FP64 data");
    if (p->memory == LS_MEMORY_DEVICE && ls_context_backend(pl->ctx) != LS_BACKEND_CUDA)
        return ls_plan_fail(pl, LS_EUNAVAIL, "device memory needs a CUDA context (this is %s)",
                            ls_backend_name(ls_context_backend(pl->ctx)));
    return 0;
}

/* The method name: a path, a dense method, or for CSR a sparse one. */
static int resolve_method(ls_plan *pl, const char *name)
{
    pl->method = name && name[0] ? name : "auto";
    if (!strcmp(pl->method, "auto"))
        return 0;
    for (int i = 0; i < ls_path_total; i++)
        if (!strcmp(pl->method, ls_paths[i].name))
            return 0;
    if (pl->p->shape == LS_SHAPE_CSR) {
        static const struct { const char *name; ls_iter_method m; } iters[] = {
            {"bicgstab", LS_ITER_BICGSTAB}, {"gmres", LS_ITER_GMRES}, {"cg", LS_ITER_CG}};
        for (size_t i = 0; i < sizeof iters / sizeof iters[0]; i++)
            if (!strcmp(pl->method, iters[i].name)) {
                pl->iter_named = 1;
                pl->iter = iters[i].m;
                return 0;
            }
        if (!strcmp(pl->method, "direct")) {
            pl->direct_named = 1;
            return 0;
        }
        return ls_plan_fail(pl, LS_EINVAL, "method '%s' is not a sparse method (auto, direct, "
                            "bicgstab, gmres, cg)", pl->method);
    }
    ls_method m;
    if (ls_method_parse(pl->method, &m))
        return ls_plan_fail(pl, LS_EINVAL, "unknown method '%s'", pl->method);
    pl->opt.method = m;
    pl->dense_named = m != LS_METHOD_AUTO;
    return 0;
}

static int choose(ls_plan *pl, const ls_path **out)
{
    char why[sizeof pl->rep->why];
    int named = -1, at = -1;
    for (int i = 0; i < ls_path_total; i++)
        if (!strcmp(pl->method, ls_paths[i].name))
            named = i;
    /* first without words (a few microseconds a row at small n), then the
     * chosen row's reason, or the reason of the one that was asked for or
     * of the first that could not run the problem */
    for (int i = 0; i < ls_path_total && at < 0; i++)
        if ((named < 0 || i == named) && ls_paths[i].fits(pl, NULL, 0))
            at = i;
    if (at >= 0) {
        *out = &ls_paths[at];
        ls_paths[at].fits(pl, pl->rep->why, sizeof pl->rep->why);
        return 0;
    }
    why[0] = 0;
    for (int i = 0; i < ls_path_total && !why[0]; i++)
        if (named < 0 || i == named)
            ls_paths[i].fits(pl, why, sizeof why);
    return ls_plan_fail(pl, LS_EUNSUPPORTED, "no path solves this problem%s%s",
                        why[0] ? ": " : "", why);
}

static void fill_rates(ls_plan *pl)
{
    ls_report *r = pl->rep;
    const ls_problem *p = pl->p;
    if (p->shape != LS_SHAPE_CSR && r->flops <= 0)
        r->flops = (double)r->batch * ls_flops_gesv(p->n, p->nrhs);
    double t = r->t_factor + r->t_solve;
    if (!(t > 0))
        t = r->t_total;
    if (t > 0 && r->gflops <= 0 && r->flops > 0)
        r->gflops = r->flops / t / 1e9;
}

int ls_solve_problem(ls_context *ctx, const ls_options *opt, ls_problem *problem, ls_report *rep)
{
    ls_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    rep->index = -1;
    rep->residual = NAN;
    if (!problem)
        return LS_EINVAL;
    ls_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.p = problem;
    pl.rep = rep;
    pl.index = -1;
    if (opt)
        pl.opt = *opt;
    else
        ls_options_init(&pl.opt);
    ls_context *own = NULL;
    if (!ctx) {
        int st = ls_context_create(&own, LS_BACKEND_CPU, 0);
        if (st) {
            ls_context_destroy(own);
            return st;
        }
        ctx = own;
    }
    pl.ctx = ctx;
    if (problem->sparse_result)
        memset(problem->sparse_result, 0, sizeof *problem->sparse_result);
    if (problem->mixed_result) {
        memset(problem->mixed_result, 0, sizeof *problem->mixed_result);
        problem->mixed_result->residual = NAN;
    }
    pl.mixed = problem->policy == LS_POLICY_MIXED;
    pl.prec = problem->policy == LS_POLICY_SINGLE ||
                      (problem->policy == LS_POLICY_AUTO && problem->dtype == LS_FLOAT32)
                  ? LS_SINGLE
                  : LS_DOUBLE;
    pl.opt.precision = pl.prec;
    double t0 = ls_now();
    const ls_path *path = NULL;
    int st = check_problem(&pl);
    if (!st)
        st = resolve_method(&pl, problem->method ? problem->method
                                                 : ls_method_name(pl.opt.method));
    if (!st && problem->shape == LS_SHAPE_CSR && !pl.iter_named && !pl.direct_named &&
        (!strcmp(pl.method, "auto") || !strcmp(pl.method, "sparse-krylov")))
        st = ls_plan_sparse_decide(&pl);
    if (!st)
        st = choose(&pl, &path);
    /* the runners fill the report's own fields; the plan's stay */
    char why[sizeof rep->why];
    snprintf(why, sizeof why, "%s", rep->why);
    if (!st && path) {
        snprintf(rep->path, sizeof rep->path, "%s", path->name);
        int empty = problem->n == 0 || problem->nrhs == 0 ||
                    (problem->shape == LS_SHAPE_STACK && problem->batch == 0);
        st = empty ? 0 : path->run(&pl);
    }
    snprintf(rep->why, sizeof rep->why, "%s%s", why, pl.more);
    rep->index = pl.index;
    if (path)
        snprintf(rep->path, sizeof rep->path, "%s", pl.ran ? pl.ran : path->name);
    rep->backend = ls_context_backend(ctx);
    rep->precision = pl.prec;
    rep->n = problem->n;
    rep->nrhs = problem->nrhs;
    rep->batch = problem->shape == LS_SHAPE_STACK ? problem->batch : 1;
    if (!rep->device[0])
        snprintf(rep->device, sizeof rep->device, "%s", ls_context_device_name(ctx));
    if (!(rep->t_total > 0))
        rep->t_total = ls_now() - t0;
    fill_rates(&pl);
    if (st && !rep->message[0])
        snprintf(rep->message, sizeof rep->message, "%s",
                 ctx->error[0] ? ctx->error : ls_strerror(st));
    if (rep == &local)
        ls_report_clear(&local);
    ls_context_destroy(own);
    return st;
}
