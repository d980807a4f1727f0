/* Batched getrf / getrs / gesv (linsolve.h): LAPACK-style argument checks
 * with -i numbering, the layout turned into strides, then the backend's
 * `batched` slot, or the CPU fallback for host arrays. */
#include <string.h>

#include "core/backend.h"
#include "core/batched.h"
#include "core/util.h"

#define LS_MAX1(x) ((x) > 1 ? (x) : 1)

/* Positions of each argument in the three signatures (0: not there). */
enum { P_LAYOUT, P_TRANS, P_N, P_NRHS, P_A, P_LDA, P_STRIDEA, P_IPIV, P_B, P_LDB, P_STRIDEB,
       P_INFO, P_BATCH, P_COUNT };
typedef int arg_pos[P_COUNT];
static const arg_pos GESV_POS = {1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const arg_pos GETRF_POS = {1, 0, 2, 0, 3, 4, 5, 6, 0, 0, 0, 7, 8};
static const arg_pos GETRS_POS = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
static const char *const ARG_NAMES[P_COUNT] = {"layout", "trans",   "n",    "nrhs", "A",
                                               "lda",    "strideA", "ipiv", "B",    "ldb",
                                               "strideB", "info",   "batch"};

typedef struct call {
    ls_batched_op op;
    const char *fn;
    ls_layout layout;
    char trans;
    int n, nrhs, lda, ldb, batch;
    long long strideA, strideB;
    const void *A, *B;
    const int *ipiv, *info;
} call;

/* 0, or -i for the first illegal argument (LAPACK's order). */
static int check(const call *c, const int *p)
{
    int rm = c->layout == LS_ROW_MAJOR, any = c->batch > 0 && c->n > 0;
    if (c->layout != LS_COL_MAJOR && !rm) return -p[P_LAYOUT];
    if (p[P_TRANS] && !strchr("NnTtCc", c->trans ? c->trans : '?')) return -p[P_TRANS];
    if (c->n < 0) return -p[P_N];
    if (p[P_NRHS] && c->nrhs < 0) return -p[P_NRHS];
    if (!c->A && any) return -p[P_A];
    if (c->lda < LS_MAX1(c->n)) return -p[P_LDA];
    if (c->strideA < 0 || (c->batch > 1 && c->strideA < (long long)c->lda * c->n))
        return -p[P_STRIDEA];
    /* gesv may leave the pivots out; getrf and getrs need them */
    if (!c->ipiv && any && c->op != LS_BATCHED_GESV) return -p[P_IPIV];
    if (p[P_B]) {
        int ld_dim = rm ? c->nrhs : c->n, other = rm ? c->n : c->nrhs;
        if (!c->B && any && c->nrhs > 0) return -p[P_B];
        if (c->ldb < LS_MAX1(ld_dim)) return -p[P_LDB];
        if (c->strideB < 0 || (c->batch > 1 && c->strideB < (long long)c->ldb * other))
            return -p[P_STRIDEB];
    }
    if (!c->info && c->batch > 0) return -p[P_INFO];
    if (c->batch < 0) return -p[P_BATCH];
    return 0;
}

static const char *arg_name(const int *p, int i)
{
    for (int k = 0; k < P_COUNT; k++)
        if (p[k] == i)
            return ARG_NAMES[k];
    return "?";
}

static void to_job(const call *c, ls_precision prec, int device, ls_batched_job *job)
{
    int rm = c->layout == LS_ROW_MAJOR;
    memset(job, 0, sizeof *job);
    job->op = c->op;
    job->prec = prec;
    job->device = device;
    job->trans = c->trans == 'N' || c->trans == 'n' ? 'N' : 'T'; /* real data: 'C' is 'T' */
    job->n = c->n;
    job->nrhs = c->op == LS_BATCHED_GETRF ? 0 : c->nrhs;
    job->batch = c->batch;
    job->A = (void *)c->A;
    job->a_rs = rm ? c->lda : 1;
    job->a_cs = rm ? 1 : c->lda;
    job->strideA = c->strideA;
    job->ipiv = (int *)c->ipiv;
    job->B = (void *)c->B;
    job->b_rs = rm ? c->ldb : 1;
    job->b_cs = rm ? 1 : c->ldb;
    job->strideB = c->strideB;
    job->info = (int *)c->info;
}

static const int *positions(ls_batched_op op)
{
    return op == LS_BATCHED_GESV ? GESV_POS : op == LS_BATCHED_GETRF ? GETRF_POS : GETRS_POS;
}

/* Host arrays: the backend's slot where it has one, else the CPU. */
static int run_host_locked(const call *c, ls_precision prec, ls_context *ctx)
{
    char local[LS_ERRLEN];
    char *err = ctx ? ctx->error : local;
    size_t errlen = ctx ? sizeof ctx->error : sizeof local;
    int st = check(c, positions(c->op));
    if (st)
        return LS_FAIL(err, errlen, st, "%s: argument %d (%s) is illegal", c->fn, -st,
                       arg_name(positions(c->op), -st));
    if (c->batch == 0)
        return 0;
    ls_batched_job job;
    to_job(c, prec, 0, &job);
    if (ctx && ctx->iface && ctx->iface->batched)
        return ctx->iface->batched->run(ctx->bctx, &job, err, errlen);
    return ls_cpu_batched(&job, err, errlen);
}

/* Device arrays: a CUDA context with the slot, as the other _gpu routines. */
static int run_device_locked(const call *c, ls_precision prec, ls_context *ctx)
{
    if (!ctx)
        return LS_EUNAVAIL;
    if (!ctx->iface || ctx->kind == LS_BACKEND_CPU)
        return LS_FAIL(ctx->error, sizeof ctx->error, LS_EUNAVAIL,
                       "%s: the device API needs the CUDA backend; this context runs on the %s",
                       c->fn, ctx->iface ? "cpu" : "backend that did not open");
    if (!ctx->iface->batched || !ctx->iface->device)
        return LS_FAIL(ctx->error, sizeof ctx->error, LS_EUNSUPPORTED,
                       "%s: batched solves on device memory are not available on the %s "
                       "backend: they need the CUDA backend",
                       c->fn, ctx->iface->name);
    int st = check(c, positions(c->op));
    if (st)
        return LS_FAIL(ctx->error, sizeof ctx->error, st, "%s: argument %d (%s) is illegal",
                       c->fn, -st, arg_name(positions(c->op), -st));
    if (c->batch == 0)
        return 0;
    ls_batched_job job;
    to_job(c, prec, 1, &job);
    return ctx->iface->batched->run(ctx->bctx, &job, ctx->error, sizeof ctx->error);
}

/* A shared context runs one call at a time (docs/threads.md). */
static int run_host(const call *c, ls_precision prec, ls_context *ctx)
{
    ls_context_enter(ctx);
    int st = run_host_locked(c, prec, ctx);
    ls_context_leave(ctx);
    return st;
}

static int run_device(const call *c, ls_precision prec, ls_context *ctx)
{
    ls_context_enter(ctx);
    int st = run_device_locked(c, prec, ctx);
    ls_context_leave(ctx);
    return st;
}

#define GESV_CALL(fn_, layout_, A_, B_)                                                         \
    call c = {LS_BATCHED_GESV, fn_, layout_, 'N', n, nrhs, lda, ldb, batch, strideA, strideB,    \
              A_, B_, ipiv, info}
#define GETRF_CALL(fn_, layout_, A_)                                                           \
    call c = {LS_BATCHED_GETRF, fn_, layout_, 'N', n, 0, lda, 1, batch, strideA, 0, A_, NULL, \
              ipiv, info}
#define GETRS_CALL(fn_, layout_, A_, B_)                                                       \
    call c = {LS_BATCHED_GETRS, fn_, layout_, trans, n, nrhs, lda, ldb, batch, strideA,        \
              strideB, A_, B_, ipiv, info}

int ls_dgesv_batched(ls_layout layout, int n, int nrhs, double *A, int lda, long long strideA,
                     int *ipiv, double *B, int ldb, long long strideB, int *info, int batch,
                     ls_context *ctx)
{
    GESV_CALL("ls_dgesv_batched", layout, A, B);
    return run_host(&c, LS_DOUBLE, ctx);
}

int ls_sgesv_batched(ls_layout layout, int n, int nrhs, float *A, int lda, long long strideA,
                     int *ipiv, float *B, int ldb, long long strideB, int *info, int batch,
                     ls_context *ctx)
{
    GESV_CALL("ls_sgesv_batched", layout, A, B);
    return run_host(&c, LS_SINGLE, ctx);
}

int ls_dgetrf_batched(ls_layout layout, int n, double *A, int lda, long long strideA, int *ipiv,
                      int *info, int batch, ls_context *ctx)
{
    GETRF_CALL("ls_dgetrf_batched", layout, A);
    return run_host(&c, LS_DOUBLE, ctx);
}

int ls_sgetrf_batched(ls_layout layout, int n, float *A, int lda, long long strideA, int *ipiv,
                      int *info, int batch, ls_context *ctx)
{
    GETRF_CALL("ls_sgetrf_batched", layout, A);
    return run_host(&c, LS_SINGLE, ctx);
}

int ls_dgetrs_batched(ls_layout layout, char trans, int n, int nrhs, const double *A, int lda,
                      long long strideA, const int *ipiv, double *B, int ldb, long long strideB,
                      int *info, int batch, ls_context *ctx)
{
    GETRS_CALL("ls_dgetrs_batched", layout, A, B);
    return run_host(&c, LS_DOUBLE, ctx);
}

int ls_sgetrs_batched(ls_layout layout, char trans, int n, int nrhs, const float *A, int lda,
                      long long strideA, const int *ipiv, float *B, int ldb, long long strideB,
                      int *info, int batch, ls_context *ctx)
{
    GETRS_CALL("ls_sgetrs_batched", layout, A, B);
    return run_host(&c, LS_SINGLE, ctx);
}

int ls_dgesv_batched_gpu(ls_layout layout, int n, int nrhs, double *A, int lda, long long strideA,
                         int *ipiv, double *B, int ldb, long long strideB, int *info, int batch,
                         ls_context *ctx)
{
    GESV_CALL("ls_dgesv_batched_gpu", layout, A, B);
    return run_device(&c, LS_DOUBLE, ctx);
}

int ls_sgesv_batched_gpu(ls_layout layout, int n, int nrhs, float *A, int lda, long long strideA,
                         int *ipiv, float *B, int ldb, long long strideB, int *info, int batch,
                         ls_context *ctx)
{
    GESV_CALL("ls_sgesv_batched_gpu", layout, A, B);
    return run_device(&c, LS_SINGLE, ctx);
}

int ls_dgetrf_batched_gpu(ls_layout layout, int n, double *A, int lda, long long strideA,
                          int *ipiv, int *info, int batch, ls_context *ctx)
{
    GETRF_CALL("ls_dgetrf_batched_gpu", layout, A);
    return run_device(&c, LS_DOUBLE, ctx);
}

int ls_sgetrf_batched_gpu(ls_layout layout, int n, float *A, int lda, long long strideA,
                          int *ipiv, int *info, int batch, ls_context *ctx)
{
    GETRF_CALL("ls_sgetrf_batched_gpu", layout, A);
    return run_device(&c, LS_SINGLE, ctx);
}

int ls_dgetrs_batched_gpu(ls_layout layout, char trans, int n, int nrhs, const double *A,
                          int lda, long long strideA, const int *ipiv, double *B, int ldb,
                          long long strideB, int *info, int batch, ls_context *ctx)
{
    GETRS_CALL("ls_dgetrs_batched_gpu", layout, A, B);
    return run_device(&c, LS_DOUBLE, ctx);
}

int ls_sgetrs_batched_gpu(ls_layout layout, char trans, int n, int nrhs, const float *A, int lda,
                          long long strideA, const int *ipiv, float *B, int ldb,
                          long long strideB, int *info, int batch, ls_context *ctx)
{
    GETRS_CALL("ls_sgetrs_batched_gpu", layout, A, B);
    return run_device(&c, LS_SINGLE, ctx);
}
