/* LAPACK-shaped drivers: argument checks with LAPACK's -i numbering, then
 * the backend's getrf / getrs where it has them, else the CPU reference. */
#include <stdlib.h>

#include "backend.h"
#include "cpu/cpu.h"
#include "lapack_check.h"

#define LS_MAX1(x) ((x) > 1 ? (x) : 1)

int ls_check_getrf(int m, int n, const void *A, int lda, const int *ipiv)
{
    if (m < 0) return -1;
    if (n < 0) return -2;
    if (!A && m > 0 && n > 0) return -3;
    if (lda < LS_MAX1(m)) return -4;
    if (!ipiv && m > 0 && n > 0) return -5;
    return 0;
}

int ls_check_getrs(char trans, int n, int nrhs, const void *A, int lda, const int *ipiv,
                       const void *B, int ldb)
{
    if (trans != 'N' && trans != 'n' && trans != 'T' && trans != 't' && trans != 'C' &&
        trans != 'c')
        return -1;
    if (n < 0) return -2;
    if (nrhs < 0) return -3;
    if (!A && n > 0) return -4;
    if (lda < LS_MAX1(n)) return -5;
    if (!ipiv && n > 0) return -6;
    if (!B && n > 0 && nrhs > 0) return -7;
    if (ldb < LS_MAX1(n)) return -8;
    return 0;
}

int ls_check_gesv(int n, int nrhs, const void *A, int lda, const int *ipiv, const void *B,
                      int ldb)
{
    if (n < 0) return -1;
    if (nrhs < 0) return -2;
    if (!A && n > 0) return -3;
    if (lda < LS_MAX1(n)) return -4;
    if (!ipiv && n > 0) return -5;
    if (!B && n > 0 && nrhs > 0) return -6;
    if (ldb < LS_MAX1(n)) return -7;
    return 0;
}

static int getrf_body(ls_precision p, int m, int n, void *A, int lda, int *ipiv, int *info,
                      ls_context *ctx)
{
    int st = ls_check_getrf(m, n, A, lda, ipiv);
    if (info) *info = st;
    if (st) return st;
    if (m == 0 || n == 0) return 0;
    int inf = 0;
    if (ctx && ctx->iface && ctx->iface->getrf) {
        st = ctx->iface->getrf(ctx->bctx, p, m, n, A, lda, ipiv, &inf, ctx->error,
                               sizeof ctx->error);
        if (st < 0) {
            if (info) *info = st;
            return st;
        }
    } else {
        inf = p == LS_SINGLE ? ls_ref_sgetrf(m, n, (float *)A, lda, ipiv)
                             : ls_ref_dgetrf(m, n, (double *)A, lda, ipiv);
    }
    if (info) *info = inf;
    return inf;
}

/* One call at a time on a shared context (docs/threads.md). */
static int getrf_any(ls_precision p, int m, int n, void *A, int lda, int *ipiv, int *info,
                     ls_context *ctx)
{
    ls_context_enter(ctx);
    int st = getrf_body(p, m, n, A, lda, ipiv, info, ctx);
    ls_context_leave(ctx);
    return st;
}

static char upper_trans(char t)
{
    return (t == 'n' || t == 'N') ? 'N' : 'T'; /* real: 'C' == 'T' */
}

int ls_dgetrf(int m, int n, double *A, int lda, int *ipiv, int *info, ls_context *ctx)
{
    return getrf_any(LS_DOUBLE, m, n, A, lda, ipiv, info, ctx);
}

int ls_sgetrf(int m, int n, float *A, int lda, int *ipiv, int *info, ls_context *ctx)
{
    return getrf_any(LS_SINGLE, m, n, A, lda, ipiv, info, ctx);
}

/* The backend's getrs where it has one (CUDA: copy in, solve on the
 * device, copy out), else the CPU reference. */
static int getrs_body(ls_precision p, char trans, int n, int nrhs, const void *A, int lda,
                      const int *ipiv, void *B, int ldb, int *info, ls_context *ctx)
{
    int st = ls_check_getrs(trans, n, nrhs, A, lda, ipiv, B, ldb);
    if (info) *info = st;
    if (st || n == 0 || nrhs == 0) return st;
    if (ctx && ctx->iface && ctx->iface->getrs) {
        st = ctx->iface->getrs(ctx->bctx, p, upper_trans(trans), n, nrhs, A, lda, ipiv, B, ldb,
                               ctx->error, sizeof ctx->error);
        if (info) *info = st;
        return st;
    }
    if (p == LS_SINGLE)
        ls_ref_sgetrs(upper_trans(trans), n, nrhs, (const float *)A, lda, ipiv, (float *)B, ldb);
    else
        ls_ref_dgetrs(upper_trans(trans), n, nrhs, (const double *)A, lda, ipiv, (double *)B, ldb);
    return 0;
}

/* One call at a time on a shared context (docs/threads.md). */
static int getrs_any(ls_precision p, char trans, int n, int nrhs, const void *A, int lda,
                     const int *ipiv, void *B, int ldb, int *info, ls_context *ctx)
{
    ls_context_enter(ctx);
    int st = getrs_body(p, trans, n, nrhs, A, lda, ipiv, B, ldb, info, ctx);
    ls_context_leave(ctx);
    return st;
}

int ls_dgetrs(char trans, int n, int nrhs, const double *A, int lda, const int *ipiv, double *B,
              int ldb, int *info, ls_context *ctx)
{
    return getrs_any(LS_DOUBLE, trans, n, nrhs, A, lda, ipiv, B, ldb, info, ctx);
}

int ls_sgetrs(char trans, int n, int nrhs, const float *A, int lda, const int *ipiv, float *B,
              int ldb, int *info, ls_context *ctx)
{
    return getrs_any(LS_SINGLE, trans, n, nrhs, A, lda, ipiv, B, ldb, info, ctx);
}

/* The backend's one-pass gesv where it has one (CUDA: A and B cross the
 * bus once), else getrf then getrs. */
static int gesv_body(ls_precision p, int n, int nrhs, void *A, int lda, int *ipiv, void *B,
                     int ldb, int *info, ls_context *ctx)
{
    int st = ls_check_gesv(n, nrhs, A, lda, ipiv, B, ldb);
    if (info) *info = st;
    if (st) return st;
    if (n > 0 && nrhs > 0 && ctx && ctx->iface && ctx->iface->gesv) {
        st = ctx->iface->gesv(ctx->bctx, p, n, nrhs, A, lda, ipiv, B, ldb, ctx->error,
                              sizeof ctx->error);
        if (info) *info = st;
        return st;
    }
    st = p == LS_SINGLE ? ls_sgetrf(n, n, (float *)A, lda, ipiv, info, ctx)
                        : ls_dgetrf(n, n, (double *)A, lda, ipiv, info, ctx);
    if (st) return st;
    return p == LS_SINGLE
               ? ls_sgetrs('N', n, nrhs, (const float *)A, lda, ipiv, (float *)B, ldb, info, ctx)
               : ls_dgetrs('N', n, nrhs, (const double *)A, lda, ipiv, (double *)B, ldb, info,
                           ctx);
}

/* One call at a time on a shared context (docs/threads.md). */
static int gesv_any(ls_precision p, int n, int nrhs, void *A, int lda, int *ipiv, void *B,
                    int ldb, int *info, ls_context *ctx)
{
    ls_context_enter(ctx);
    int st = gesv_body(p, n, nrhs, A, lda, ipiv, B, ldb, info, ctx);
    ls_context_leave(ctx);
    return st;
}

int ls_dgesv(int n, int nrhs, double *A, int lda, int *ipiv, double *B, int ldb, int *info,
             ls_context *ctx)
{
    return gesv_any(LS_DOUBLE, n, nrhs, A, lda, ipiv, B, ldb, info, ctx);
}

int ls_sgesv(int n, int nrhs, float *A, int lda, int *ipiv, float *B, int ldb, int *info,
             ls_context *ctx)
{
    return gesv_any(LS_SINGLE, n, nrhs, A, lda, ipiv, B, ldb, info, ctx);
}
