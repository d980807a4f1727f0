/* ls_?getrf, ls_?getrs, ls_?gesv for one precision (REAL, SFX: see
 * common/real_macros.h), instantiated twice by lapack_api.c. Each takes the
 * context's lock (docs/threads.md), checks its arguments as LAPACK does,
 * then runs on the backend's slot where it has one, else on the CPU
 * reference.
 * Defines: ls_dgetrf, ls_sgetrf, ls_dgetrs, ls_sgetrs, ls_dgesv, ls_sgesv */
#include "common/real_macros.h"

#define LSA_CAT3_(a, b, c) a##b##c
#define LSA_CAT3(a, b, c) LSA_CAT3_(a, b, c)
/* LSA_API(getrf) -> ls_dgetrf, LSA_REF(getrf) -> ls_ref_dgetrf when SFX is d */
#define LSA_API(name) LSA_CAT3(ls_, SFX, name)
#define LSA_REF(name) LSA_CAT3(ls_ref_, SFX, name)
#define LSA_PREC (sizeof(REAL) == sizeof(float) ? LS_SINGLE : LS_DOUBLE)

static int FN(getrf_body)(int m, int n, REAL *A, int lda, int *ipiv, int *info, ls_context *ctx)
{
    int st = ls_check_getrf(m, n, A, lda, ipiv);
    if (info) *info = st;
    if (st) return st;
    if (m == 0 || n == 0) return 0;
    int inf = 0;
    const ls_dense_role *dr = ctx && ctx->iface ? ctx->iface->dense : NULL;
    if (dr && dr->getrf) {
        st = dr->getrf(ctx->bctx, LSA_PREC, m, n, A, lda, ipiv, &inf, ctx->error,
                       sizeof ctx->error);
        if (st < 0) {
            if (info) *info = st;
            return st;
        }
    } else {
        inf = LSA_REF(getrf)(m, n, A, lda, ipiv);
    }
    if (info) *info = inf;
    return inf;
}

int LSA_API(getrf)(int m, int n, REAL *A, int lda, int *ipiv, int *info, ls_context *ctx)
{
    ls_context_enter(ctx);
    int st = FN(getrf_body)(m, n, A, lda, ipiv, info, ctx);
    ls_context_leave(ctx);
    return st;
}

/* The backend's getrs where it has one (CUDA: copy in, solve on the
 * device, copy out), else the CPU reference. */
static int FN(getrs_body)(char trans, int n, int nrhs, const REAL *A, int lda, const int *ipiv,
                          REAL *B, int ldb, int *info, ls_context *ctx)
{
    int st = ls_check_getrs(trans, n, nrhs, A, lda, ipiv, B, ldb);
    if (info) *info = st;
    if (st || n == 0 || nrhs == 0) return st;
    const ls_dense_role *dr = ctx && ctx->iface ? ctx->iface->dense : NULL;
    if (dr && dr->getrs) {
        st = dr->getrs(ctx->bctx, LSA_PREC, upper_trans(trans), n, nrhs, A, lda, ipiv, B, ldb,
                       ctx->error, sizeof ctx->error);
        if (info) *info = st;
        return st;
    }
    LSA_REF(getrs)(upper_trans(trans), n, nrhs, A, lda, ipiv, B, ldb);
    return 0;
}

int LSA_API(getrs)(char trans, int n, int nrhs, const REAL *A, int lda, const int *ipiv, REAL *B,
                   int ldb, int *info, ls_context *ctx)
{
    ls_context_enter(ctx);
    int st = FN(getrs_body)(trans, n, nrhs, A, lda, ipiv, B, ldb, info, ctx);
    ls_context_leave(ctx);
    return st;
}

/* The backend's one-pass gesv where it has one (CUDA: A and B cross the
 * bus once), else getrf then getrs. */
static int FN(gesv_body)(int n, int nrhs, REAL *A, int lda, int *ipiv, REAL *B, int ldb,
                         int *info, ls_context *ctx)
{
    int st = ls_check_gesv(n, nrhs, A, lda, ipiv, B, ldb);
    if (info) *info = st;
    if (st) return st;
    const ls_dense_role *dr = ctx && ctx->iface ? ctx->iface->dense : NULL;
    if (n > 0 && nrhs > 0 && dr && dr->gesv) {
        st = dr->gesv(ctx->bctx, LSA_PREC, n, nrhs, A, lda, ipiv, B, ldb, ctx->error,
                      sizeof ctx->error);
        if (info) *info = st;
        return st;
    }
    st = LSA_API(getrf)(n, n, A, lda, ipiv, info, ctx);
    if (st) return st;
    return LSA_API(getrs)('N', n, nrhs, A, lda, ipiv, B, ldb, info, ctx);
}

int LSA_API(gesv)(int n, int nrhs, REAL *A, int lda, int *ipiv, REAL *B, int ldb, int *info,
                  ls_context *ctx)
{
    ls_context_enter(ctx);
    int st = FN(gesv_body)(n, nrhs, A, lda, ipiv, B, ldb, info, ctx);
    ls_context_leave(ctx);
    return st;
}

#undef LSA_PREC
