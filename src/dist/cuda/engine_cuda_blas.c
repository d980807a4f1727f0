/*
 * The CUDA engine's BLAS slots: the trailing update (gemm), U12 = L11^-1 A12
 * (trsm, or in diagonal blocks with gemm updates: LS_DIST_CUDA_TRSM_BLOCK),
 * the transposed solve's gemm and trsm, and the column-by-column panel's
 * ger, scal and iamax; cuBLAS on the engine's current stream, failures
 * sticky (engine_cuda_util.c).
 */
#include "engine_cuda_impl.h"

static void x_gemm_sub(void *ctx, ls_precision p, int m, int n, int k, const void *A, int lda,
                       const void *B, int ldb, void *C, int ldc)
{
    ce *c = ctx;
    if (m <= 0 || n <= 0 || k <= 0)
        return;
    PF_BEGIN(c, K_GEMM);
    if (p == LS_DOUBLE) {
        const double a = -1.0, b = 1.0;
        ec_bl_ok(
            c, cublasDgemm(c->h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, A, lda, B, ldb, &b, C, ldc),
            "cublasDgemm");
    } else {
        const float a = -1.0f, b = 1.0f;
        ec_bl_ok(
            c, cublasSgemm(c->h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, A, lda, B, ldb, &b, C, ldc),
            "cublasSgemm");
    }
    PF_END(c);
}

/* One cuBLAS trsm with side left: B = op(T)^-1 B. */
static void trsm_call(ce *c, ls_precision p, cublasOperation_t op, char uplo, int m, int n,
                      const void *T, int ldt, void *B, int ldb)
{
    cublasFillMode_t ul = uplo == 'L' ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    cublasDiagType_t dg = uplo == 'L' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    if (p == LS_DOUBLE) {
        const double one = 1.0;
        ec_bl_ok(c, cublasDtrsm(c->h, CUBLAS_SIDE_LEFT, ul, op, dg, m, n, &one, T, ldt, B, ldb),
                 "cublasDtrsm");
    } else {
        const float one = 1.0f;
        ec_bl_ok(c, cublasStrsm(c->h, CUBLAS_SIDE_LEFT, ul, op, dg, m, n, &one, T, ldt, B, ldb),
                 "cublasStrsm");
    }
}

/* trsm_call, or, for L11^-1 A12 where LS_DIST_CUDA_TRSM_BLOCK = tb (128
 * unless set) is below m, tb-wide diagonal blocks by trsm with the rows
 * below each updated by a gemm, so that most of the flops run at the gemm's
 * rate (the blocked form of LAPACK's own trsm; no inverse is formed, so the
 * rounding is a trsm's). On one H100, 1 x 1, nb 1024, it took U12's GPU
 * time from 0.077 to 0.066 s at n = 32768 and from 0.33 to 0.28 s at 65536;
 * blocks of 256 and 512 were no faster than one trsm. */
static void trsm_op(ce *c, ls_precision p, cublasOperation_t op, char uplo, int m, int n,
                    const void *T, int ldt, void *B, int ldb)
{
    if (m <= 0 || n <= 0)
        return;
    PF_BEGIN(c, K_TRSM);
    const int tb = c->trsm_block;
    if (op != CUBLAS_OP_N || uplo != 'L' || tb <= 0 || tb >= m) {
        trsm_call(c, p, op, uplo, m, n, T, ldt, B, ldb);
        PF_END(c);
        return;
    }
    const size_t es = ec_esz(p);
    const char *t = T;
    char *b = B;
    for (int i = 0; i < m; i += tb) {
        const int ib = m - i < tb ? m - i : tb, below = m - i - ib;
        const void *tii = t + ((size_t)i + (size_t)i * ldt) * es;
        const void *l21 = t + ((size_t)(i + ib) + (size_t)i * ldt) * es;
        void *bi = b + (size_t)i * es, *below_b = b + (size_t)(i + ib) * es;
        trsm_call(c, p, op, uplo, ib, n, tii, ldt, bi, ldb);
        if (below <= 0)
            continue;
        if (p == LS_DOUBLE) {
            const double a = -1.0, one = 1.0;
            ec_bl_ok(c,
                     cublasDgemm(c->h, CUBLAS_OP_N, CUBLAS_OP_N, below, n, ib, &a, l21, ldt, bi,
                                 ldb, &one, below_b, ldb),
                     "cublasDgemm (trsm)");
        } else {
            const float a = -1.0f, one = 1.0f;
            ec_bl_ok(c,
                     cublasSgemm(c->h, CUBLAS_OP_N, CUBLAS_OP_N, below, n, ib, &a, l21, ldt, bi,
                                 ldb, &one, below_b, ldb),
                     "cublasSgemm (trsm)");
        }
    }
    PF_END(c);
}

static void x_trsm(void *ctx, ls_precision p, char uplo, int m, int n, const void *T, int ldt,
                   void *B, int ldb)
{
    trsm_op(ctx, p, CUBLAS_OP_N, uplo, m, n, T, ldt, B, ldb);
}

static void x_trsm_t(void *ctx, ls_precision p, char uplo, int m, int n, const void *T, int ldt,
                     void *B, int ldb)
{
    trsm_op(ctx, p, CUBLAS_OP_T, uplo, m, n, T, ldt, B, ldb);
}

static void x_ger_sub(void *ctx, ls_precision p, int m, int n, const void *x, const void *y,
                      void *A, int lda)
{
    ce *c = ctx;
    if (m <= 0 || n <= 0)
        return;
    if (p == LS_DOUBLE) {
        const double a = -1.0;
        ec_bl_ok(c, cublasDger(c->h, m, n, &a, x, 1, y, 1, A, lda), "cublasDger");
    } else {
        const float a = -1.0f;
        ec_bl_ok(c, cublasSger(c->h, m, n, &a, x, 1, y, 1, A, lda), "cublasSger");
    }
}

static void x_scal_inv(void *ctx, ls_precision p, int n, double pivot, void *x)
{
    ce *c = ctx;
    if (n <= 0)
        return;
    const double tiny = p == LS_DOUBLE ? DBL_MIN : FLT_MIN;
    if (fabs(pivot) < tiny) { /* 1/pivot would overflow: divide, as getf2 */
        ec_cu_ok(c, (cudaError_t)ls_dist_k_div(p == LS_DOUBLE, n, pivot, x, c->cur), "k_div");
    } else if (p == LS_DOUBLE) {
        const double r = 1.0 / pivot;
        ec_bl_ok(c, cublasDscal(c->h, n, &r, x, 1), "cublasDscal");
    } else {
        const float r = 1.0f / (float)pivot;
        ec_bl_ok(c, cublasSscal(c->h, n, &r, x, 1), "cublasSscal");
    }
}

static int x_iamax(void *ctx, ls_precision p, int n, const void *x)
{
    ce *c = ctx;
    int r = 0;
    if (n <= 0)
        return -1;
    if (p == LS_DOUBLE)
        ec_bl_ok(c, cublasIdamax(c->h, n, x, 1, &r), "cublasIdamax");
    else
        ec_bl_ok(c, cublasIsamax(c->h, n, x, 1, &r), "cublasIsamax");
    return r >= 1 && r <= n ? r - 1 : 0;
}

static void x_gemm_tn(void *ctx, ls_precision p, int m, int n, int k, double alpha, const void *A,
                      int lda, const void *B, int ldb, double beta, void *C, int ldc)
{
    ce *c = ctx;
    if (m <= 0 || n <= 0)
        return;
    const size_t es = ec_esz(p);
    if (k <= 0 && beta == 0) { /* C = 0 without reading C */
        ec_cu_ok(c, cudaMemset2DAsync(C, (size_t)ldc * es, 0, (size_t)m * es, (size_t)n, c->cur),
                 "memset");
        return;
    }
    if (k <= 0 && beta == 1)
        return;
    if (p == LS_DOUBLE)
        ec_bl_ok(c,
                 cublasDgemm(c->h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, A, lda, B, ldb, &beta,
                             C, ldc),
                 "cublasDgemm (T)");
    else {
        const float a = (float)alpha, b = (float)beta;
        ec_bl_ok(
            c, cublasSgemm(c->h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &a, A, lda, B, ldb, &b, C, ldc),
            "cublasSgemm (T)");
    }
}

void ec_blas_slots(ls_dist_engine *e)
{
    e->gemm_sub = x_gemm_sub;
    e->trsm = x_trsm;
    e->ger_sub = x_ger_sub;
    e->scal_inv = x_scal_inv;
    e->iamax = x_iamax;
    e->gemm_tn = x_gemm_tn;
    e->trsm_t = x_trsm_t;
}
