/* The CPU local engine: the rank's own BLAS (OpenBLAS through CBLAS). */
#include <cblas.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

static void cpu_gemm_sub(void *ctx, ls_precision p, int m, int n, int k, const void *A, int lda,
                         const void *B, int ldb, void *C, int ldc)
{
    if (m <= 0 || n <= 0 || k <= 0)
        return;
    if (p == LS_DOUBLE)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, -1.0, A, lda, B, ldb, 1.0,
                    C, ldc);
    else
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, -1.0f, A, lda, B, ldb,
                    1.0f, C, ldc);
}

static void cpu_trsm(void *ctx, ls_precision p, char uplo, int m, int n, const void *T, int ldt,
                     void *B, int ldb)
{
    if (m <= 0 || n <= 0)
        return;
    CBLAS_UPLO ul = uplo == 'L' ? CblasLower : CblasUpper;
    CBLAS_DIAG dg = uplo == 'L' ? CblasUnit : CblasNonUnit;
    if (p == LS_DOUBLE)
        cblas_dtrsm(CblasColMajor, CblasLeft, ul, CblasNoTrans, dg, m, n, 1.0, T, ldt, B, ldb);
    else
        cblas_strsm(CblasColMajor, CblasLeft, ul, CblasNoTrans, dg, m, n, 1.0f, T, ldt, B, ldb);
}

static void cpu_ger_sub(void *ctx, ls_precision p, int m, int n, const void *x, const void *y,
                        void *A, int lda)
{
    if (m <= 0 || n <= 0)
        return;
    if (p == LS_DOUBLE)
        cblas_dger(CblasColMajor, m, n, -1.0, x, 1, y, 1, A, lda);
    else
        cblas_sger(CblasColMajor, m, n, -1.0f, x, 1, y, 1, A, lda);
}

/* getf2: multiply by the reciprocal when it is representable, else divide. */
static void cpu_scal_inv(void *ctx, ls_precision p, int n, double pivot, void *x)
{
    if (n <= 0)
        return;
    if (p == LS_DOUBLE) {
        double *v = x;
        if (fabs(pivot) >= DBL_MIN) {
            cblas_dscal(n, 1.0 / pivot, v, 1);
        } else {
            for (int i = 0; i < n; ++i)
                v[i] /= pivot;
        }
    } else {
        float *v = x, pv = (float)pivot;
        if (fabsf(pv) >= FLT_MIN) {
            cblas_sscal(n, 1.0f / pv, v, 1);
        } else {
            for (int i = 0; i < n; ++i)
                v[i] /= pv;
        }
    }
}

static int cpu_iamax(void *ctx, ls_precision p, int n, const void *x)
{
    if (n <= 0)
        return -1;
    return p == LS_DOUBLE ? (int)cblas_idamax(n, x, 1) : (int)cblas_isamax(n, x, 1);
}

static void cpu_lacpy(void *ctx, ls_precision p, int m, int n, const void *A, int lda, void *B,
                      int ldb)
{
    size_t es = p == LS_DOUBLE ? sizeof(double) : sizeof(float);
    const char *a = A;
    char *b = B;
    if (m <= 0 || n <= 0)
        return;
    if (m == lda && m == ldb) {
        memcpy(b, a, (size_t)m * (size_t)n * es);
        return;
    }
    if (m == 1) {
        if (p == LS_DOUBLE)
            cblas_dcopy(n, A, lda, B, ldb);
        else
            cblas_scopy(n, A, lda, B, ldb);
        return;
    }
    for (int j = 0; j < n; ++j)
        memcpy(b + (size_t)j * (size_t)ldb * es, a + (size_t)j * (size_t)lda * es, (size_t)m * es);
}

/* LAPACK's own getrf (in OpenBLAS): recursive, BLAS-3. */
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);

static int cpu_getrf(void *ctx, ls_precision p, int m, int n, void *A, int lda, int *ipiv)
{
    (void)ctx;
    int info = 0;
    if (m <= 0 || n <= 0)
        return 0;
    if (p == LS_DOUBLE)
        dgetrf_(&m, &n, (double *)A, &lda, ipiv, &info);
    else
        sgetrf_(&m, &n, (float *)A, &lda, ipiv, &info);
    return info;
}

static void cpu_gemm_tn(void *ctx, ls_precision p, int m, int n, int k, double alpha,
                        const void *A, int lda, const void *B, int ldb, double beta, void *C,
                        int ldc)
{
    (void)ctx;
    if (m <= 0 || n <= 0)
        return;
    if (k <= 0) { /* BLAS may return early here; the contract says C = beta C */
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i) {
                size_t at = (size_t)j * (size_t)ldc + (size_t)i;
                if (p == LS_DOUBLE)
                    ((double *)C)[at] = beta == 0 ? 0.0 : beta * ((double *)C)[at];
                else
                    ((float *)C)[at] = beta == 0 ? 0.0f : (float)beta * ((float *)C)[at];
            }
        return;
    }
    if (p == LS_DOUBLE)
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, n, k, alpha, A, lda, B, ldb, beta,
                    C, ldc);
    else
        cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, n, k, (float)alpha, A, lda, B,
                    ldb, (float)beta, C, ldc);
}

static void cpu_trsm_t(void *ctx, ls_precision p, char uplo, int m, int n, const void *T, int ldt,
                       void *B, int ldb)
{
    (void)ctx;
    if (m <= 0 || n <= 0)
        return;
    CBLAS_UPLO ul = uplo == 'L' ? CblasLower : CblasUpper;
    CBLAS_DIAG dg = uplo == 'L' ? CblasUnit : CblasNonUnit;
    if (p == LS_DOUBLE)
        cblas_dtrsm(CblasColMajor, CblasLeft, ul, CblasTrans, dg, m, n, 1.0, T, ldt, B, ldb);
    else
        cblas_strsm(CblasColMajor, CblasLeft, ul, CblasTrans, dg, m, n, 1.0f, T, ldt, B, ldb);
}

/* Engine memory is host memory: workspace and transfers are plain. */
static void *cpu_ws_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    return malloc(bytes ? bytes : 1);
}

static void cpu_ws_free(void *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
}

static void cpu_get(void *ctx, ls_precision p, int m, int n, const void *A, int lda, void *H,
                    int ldh)
{
    cpu_lacpy(ctx, p, m, n, A, lda, H, ldh);
}

static void cpu_set(void *ctx, ls_precision p, int m, int n, const void *H, int ldh, void *A,
                    int lda)
{
    cpu_lacpy(ctx, p, m, n, H, ldh, A, lda);
}

static int cpu_bcast(void *ctx, void *buf, size_t bytes, int root, MPI_Comm comm,
                     ls_dist_req *req)
{
    (void)ctx;
    if (bytes > (size_t)INT_MAX)
        return LS_EINVAL;
    int rc;
    if (req) {
        rc = MPI_Ibcast(buf, (int)bytes, MPI_BYTE, root, comm, &req->mpi);
        req->active = rc == MPI_SUCCESS;
    } else {
        rc = MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, comm);
    }
    return rc == MPI_SUCCESS ? 0 : LS_EINTERNAL;
}

static int cpu_wait(void *ctx, ls_dist_req *req)
{
    (void)ctx;
    if (!req || !req->active)
        return 0;
    req->active = 0;
    return MPI_Wait(&req->mpi, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : LS_EINTERNAL;
}

static int cpu_reduce_sum(void *ctx, ls_precision p, void *buf, size_t count, int root,
                          MPI_Comm comm)
{
    (void)ctx;
    int me = 0;
    MPI_Comm_rank(comm, &me);
    if (count > (size_t)INT_MAX)
        return LS_EINVAL;
    MPI_Datatype t = p == LS_DOUBLE ? MPI_DOUBLE : MPI_FLOAT;
    int rc = MPI_Reduce(me == root ? MPI_IN_PLACE : buf, me == root ? buf : NULL, (int)count, t,
                        MPI_SUM, root, comm);
    return rc == MPI_SUCCESS ? 0 : LS_EINTERNAL;
}

static void cpu_pack_rows(void *ctx, ls_precision p, const void *X, int ldx, int nranges,
                          const int *c0, const int *nc, int nrows, const int *rows, void *out)
{
    const size_t es = p == LS_DOUBLE ? sizeof(double) : sizeof(float);
    char *o = out;
    for (int i = 0; i < nrows; ++i)
        for (int r = 0; r < nranges; ++r) {
            cpu_lacpy(ctx, p, 1, nc[r], (const char *)X + ((size_t)c0[r] * (size_t)ldx +
                                                           (size_t)rows[i]) * es,
                      ldx, o, 1);
            o += (size_t)nc[r] * es;
        }
}

static void cpu_unpack_rows(void *ctx, ls_precision p, const void *in, int nranges,
                            const int *c0, const int *nc, int nrows, const int *rows, void *X,
                            int ldx)
{
    const size_t es = p == LS_DOUBLE ? sizeof(double) : sizeof(float);
    const char *s = in;
    for (int i = 0; i < nrows; ++i)
        for (int r = 0; r < nranges; ++r) {
            cpu_lacpy(ctx, p, 1, nc[r], s, 1,
                      (char *)X + ((size_t)c0[r] * (size_t)ldx + (size_t)rows[i]) * es, ldx);
            s += (size_t)nc[r] * es;
        }
}

static int cpu_finish(void *ctx, char *msg, size_t len)
{
    (void)ctx;
    if (msg && len)
        msg[0] = '\0';
    return 0;
}

static const ls_dist_engine cpu_engine = {
    .api_version = LS_DIST_ENGINE_API_VERSION,
    .name = "cpu (CBLAS)",
    .gemm_sub = cpu_gemm_sub,
    .trsm = cpu_trsm,
    .ger_sub = cpu_ger_sub,
    .scal_inv = cpu_scal_inv,
    .iamax = cpu_iamax,
    .lacpy = cpu_lacpy,
    .getrf = cpu_getrf,
    .gemm_tn = cpu_gemm_tn,
    .trsm_t = cpu_trsm_t,
    .host_memory = 1,
    .ws_alloc = cpu_ws_alloc,
    .ws_free = cpu_ws_free,
    .get = cpu_get,
    .set = cpu_set,
    .bcast = cpu_bcast,
    .wait = cpu_wait,
    .reduce_sum = cpu_reduce_sum,
    .pack_rows = cpu_pack_rows,
    .unpack_rows = cpu_unpack_rows,
    .finish = cpu_finish,
};

const ls_dist_engine *ls_dist_engine_cpu(void) { return &cpu_engine; }
