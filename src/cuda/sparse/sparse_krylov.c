/*
 * The sparse Krylov methods' vector operations on the device (ls_kr_ops,
 * algo/krylov.h): the methods themselves are the host's code, run on
 * these. The prepared system comes from the core on the host; open copies
 * A (32-bit indices when they fit: less to read per SpMV), b, the residual
 * weights and the preconditioner to the device once. SpMV is cuSPARSE's
 * (generic API, preprocessed once), the ILU factors' triangular solves are
 * cuSPARSE SpSV (analysed once), the GMRES projections cuBLAS gemv
 * (classical Gram-Schmidt twice: two passes over the basis instead of j),
 * the rest the fused kernels of k_sparse.cu. Each scalar is one copy back.
 * The first failure is kept; later ops do nothing and return NaN.
 */
#include <cusparse.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/common/cuda_backend.h"
#include "cuda/sparse/k_sparse.h"
#include "cuda/sparse/sparse_cuda.h"

typedef struct dcsr { /* a CSR matrix on the device, with its descriptor */
    void *ptr, *idx;
    double *val;
    cusparseSpMatDescr_t d;
} dcsr;

typedef struct lsc_kr {
    ls_cuda_ctx *cu;
    cudaStream_t s;
    cusparseHandle_t sp;
    cusparseIndexType_t ity;
    int64_t n;
    dcsr A, L, U;
    cusparseDnVecDescr_t vx, vy;
    void *spmv_buf, *svl_buf, *svu_buf;
    cusparseSpSVDescr_t svl, svu;
    ls_precond kind;
    double *b, *w, *inv_diag, *t; /* w: residual weights or NULL; t: between L and U */
    double *part, *dh;            /* reduction parts + scalar; GMRES projections */
    double *hs;                   /* pinned: scalars and projections coming back */
    int hs_len;
    int st;
    char msg[LS_ERRLEN];
} lsc_kr;

/* Record the first failure (later ones follow from it). */
static int fail(lsc_kr *k, int st, const char *file, int line, const char *fmt, const char *a)
{
    if (!k->st) {
        k->st = st;
        char text[LS_ERRLEN];
        snprintf(text, sizeof text, fmt, a);
        lsc_fail_at(k->msg, sizeof k->msg, st, file, line, "%s", text);
    }
    return k->st;
}

static int cu_ok(lsc_kr *k, cudaError_t e, const char *what, const char *file, int line)
{
    if (e == cudaSuccess)
        e = LSC_FAULT(what);
    if (e != cudaSuccess && !k->st)
        k->st = lsc_cuda_fail_at(e, what, k->msg, sizeof k->msg, file, line);
    return e == cudaSuccess && !k->st;
}

static int sp_ok(lsc_kr *k, cusparseStatus_t e, const char *what, const char *file, int line)
{
    if (e != CUSPARSE_STATUS_SUCCESS) {
        char text[LS_ERRLEN];
        snprintf(text, sizeof text, "%s failed: %s", what, cusparseGetErrorString(e));
        fail(k, e == CUSPARSE_STATUS_ALLOC_FAILED || e == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES
                    ? LS_EDEVMEM
                    : LS_EDEVICE,
             file, line, "%s", text);
    }
    return !k->st;
}

static int bl_ok(lsc_kr *k, cublasStatus_t e, const char *what, const char *file, int line)
{
    if (e != CUBLAS_STATUS_SUCCESS && !k->st)
        k->st = lsc_blas_fail_at(e, what, k->msg, sizeof k->msg, file, line);
    return !k->st;
}

#define CU(call) cu_ok(k, (call), #call, __FILE__, __LINE__)
#define SP(call) sp_ok(k, (call), #call, __FILE__, __LINE__)
#define BL(call) bl_ok(k, (call), #call, __FILE__, __LINE__)
#define K(c) ((lsc_kr *)(c))

static void *dev_alloc(lsc_kr *k, size_t bytes)
{
    void *p = NULL;
    if (k->st)
        return NULL;
    char err[LS_ERRLEN];
    int st = lsc_malloc(&p, bytes ? bytes : 1, 1, err, sizeof err);
    if (st) {
        fail(k, st, __FILE__, __LINE__, "%s", err);
        return NULL;
    }
    return p;
}

/* Copy a host CSR (64-bit indices) into d, in the index type of k. */
static int put_csr(lsc_kr *k, int64_t n, const int64_t *ptr, const int64_t *idx,
                   const double *val, dcsr *d)
{
    const int64_t nnz = ptr[n];
    const size_t isz = k->ity == CUSPARSE_INDEX_32I ? 4 : 8;
    d->ptr = dev_alloc(k, isz * (size_t)(n + 1));
    d->idx = dev_alloc(k, isz * (size_t)(nnz ? nnz : 1));
    d->val = dev_alloc(k, sizeof(double) * (size_t)(nnz ? nnz : 1));
    if (k->st)
        return k->st;
    if (isz == 8) {
        CU(cudaMemcpy(d->ptr, ptr, 8 * (size_t)(n + 1), cudaMemcpyHostToDevice));
        CU(cudaMemcpy(d->idx, idx, 8 * (size_t)nnz, cudaMemcpyHostToDevice));
    } else {
        int32_t *tmp = malloc(4 * (size_t)((nnz > n ? nnz : n) + 1));
        if (!tmp)
            return fail(k, LS_ENOMEM, __FILE__, __LINE__, "%s",
                        "out of host memory for the 32-bit index copy");
        for (int64_t i = 0; i <= n; i++)
            tmp[i] = (int32_t)ptr[i];
        CU(cudaMemcpy(d->ptr, tmp, 4 * (size_t)(n + 1), cudaMemcpyHostToDevice));
        for (int64_t p = 0; p < nnz; p++)
            tmp[p] = (int32_t)idx[p];
        CU(cudaMemcpy(d->idx, tmp, 4 * (size_t)nnz, cudaMemcpyHostToDevice));
        free(tmp);
    }
    CU(cudaMemcpy(d->val, val, sizeof(double) * (size_t)nnz, cudaMemcpyHostToDevice));
    if (!k->st)
        SP(cusparseCreateCsr(&d->d, n, n, nnz, d->ptr, d->idx, d->val, k->ity, k->ity,
                             CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    return k->st;
}

static void free_csr(dcsr *d)
{
    if (d->d)
        cusparseDestroySpMat(d->d);
    cudaFree(d->ptr), cudaFree(d->idx), cudaFree(d->val);
    memset(d, 0, sizeof *d);
}

/* The incomplete factors as two CSR matrices with explicit diagonals (L's
 * ones included), columns increasing: what SpSV takes without question. */
typedef struct hcsr {
    int64_t *ptr, *idx;
    double *val;
} hcsr;

static void sort_row(int64_t *idx, double *val, int64_t m)
{
    for (int64_t a = 1; a < m; a++) /* rows are short: insertion sort */
        for (int64_t b = a; b > 0 && idx[b - 1] > idx[b]; b--) {
            int64_t ti = idx[b];
            double tv = val[b];
            idx[b] = idx[b - 1], val[b] = val[b - 1];
            idx[b - 1] = ti, val[b - 1] = tv;
        }
}

static int split_factors(const ls_csr_precond *P, hcsr *L, hcsr *U)
{
    const int64_t n = P->n;
    int64_t nl = n, nu = n; /* the diagonals */
    for (int64_t i = 0; i < n; i++) {
        if (P->kind == LS_PRECOND_ILU0) {
            nl += P->diag[i] - P->A->row_ptr[i];
            nu += P->A->row_ptr[i + 1] - P->diag[i] - 1;
        } else {
            nl += P->l_ptr[i + 1] - P->l_ptr[i];
            nu += P->u_ptr[i + 1] - P->u_ptr[i];
        }
    }
    L->ptr = malloc(8 * (size_t)(n + 1)), U->ptr = malloc(8 * (size_t)(n + 1));
    L->idx = malloc(8 * (size_t)nl), U->idx = malloc(8 * (size_t)nu);
    L->val = malloc(8 * (size_t)nl), U->val = malloc(8 * (size_t)nu);
    if (!L->ptr || !U->ptr || !L->idx || !U->idx || !L->val || !U->val)
        return LS_ENOMEM;
    int64_t ql = 0, qu = 0;
    for (int64_t i = 0; i < n; i++) {
        L->ptr[i] = ql, U->ptr[i] = qu;
        U->idx[qu] = i;
        if (P->kind == LS_PRECOND_ILU0) {
            const ls_csr *A = P->A;
            for (int64_t p = A->row_ptr[i]; p < P->diag[i]; p++)
                L->idx[ql] = A->col_idx[p], L->val[ql++] = P->lu[p];
            U->val[qu++] = P->lu[P->diag[i]];
            for (int64_t p = P->diag[i] + 1; p < A->row_ptr[i + 1]; p++)
                U->idx[qu] = A->col_idx[p], U->val[qu++] = P->lu[p];
        } else {
            int64_t l0 = ql, u0 = qu + 1;
            for (int64_t p = P->l_ptr[i]; p < P->l_ptr[i + 1]; p++)
                L->idx[ql] = P->l_idx[p], L->val[ql++] = P->l_val[p];
            sort_row(L->idx + l0, L->val + l0, ql - l0);
            U->val[qu++] = P->u_diag[i];
            for (int64_t p = P->u_ptr[i]; p < P->u_ptr[i + 1]; p++)
                U->idx[qu] = P->u_idx[p], U->val[qu++] = P->u_val[p];
            sort_row(U->idx + u0, U->val + u0, qu - u0);
        }
        L->idx[ql] = i, L->val[ql++] = 1.0;
    }
    L->ptr[n] = ql, U->ptr[n] = qu;
    return 0;
}

static void free_h(hcsr *h)
{
    free(h->ptr), free(h->idx), free(h->val);
}

/* One triangle for SpSV: attributes, buffer, analysis. */
static void analyse(lsc_kr *k, dcsr *M, cusparseFillMode_t fill, cusparseSpSVDescr_t *sv,
                    void **buf)
{
    cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
    const double one = 1.0;
    size_t bytes = 0;
    if (!SP(cusparseSpMatSetAttribute(M->d, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill)) ||
        !SP(cusparseSpMatSetAttribute(M->d, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag)) ||
        !SP(cusparseSpSV_createDescr(sv)) ||
        !SP(cusparseSpSV_bufferSize(k->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M->d, k->vx,
                                    k->vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, *sv, &bytes)))
        return;
    *buf = dev_alloc(k, bytes);
    if (*buf)
        SP(cusparseSpSV_analysis(k->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M->d, k->vx,
                                 k->vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, *sv, *buf));
}

static void set_vecs(lsc_kr *k, const double *x, double *y)
{
    SP(cusparseDnVecSetValues(k->vx, (void *)(uintptr_t)x));
    SP(cusparseDnVecSetValues(k->vy, y));
}

/* ------------------------------------------------------------------ ops */

static double *d_alloc(void *c, size_t count)
{
    lsc_kr *k = K(c);
    if (count && (size_t)k->n > SIZE_MAX / sizeof(double) / count) {
        fail(k, LS_EDEVMEM, __FILE__, __LINE__, "%s", "Krylov vectors too large");
        return NULL;
    }
    double *v = dev_alloc(k, sizeof(double) * (size_t)k->n * count);
    return v;
}

static void d_release(void *c, double *v)
{
    (void)c;
    cudaFree(v);
}

static void d_upload(void *c, const double *h, double *v)
{
    lsc_kr *k = K(c);
    if (!k->st)
        CU(cudaMemcpyAsync(v, h, sizeof(double) * (size_t)k->n, cudaMemcpyHostToDevice, k->s));
}

static void d_download(void *c, const double *v, double *h)
{
    lsc_kr *k = K(c);
    if (!k->st && CU(cudaMemcpyAsync(h, v, sizeof(double) * (size_t)k->n,
                                     cudaMemcpyDeviceToHost, k->s)))
        CU(cudaStreamSynchronize(k->s));
}

static void d_spmv(void *c, const double *x, double *y)
{
    lsc_kr *k = K(c);
    const double one = 1.0, zero = 0.0;
    if (k->st)
        return;
    set_vecs(k, x, y);
    SP(cusparseSpMV(k->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, k->A.d, k->vx, &zero, k->vy,
                    CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, k->spmv_buf));
}

static void d_precond(void *c, const double *r, double *z)
{
    lsc_kr *k = K(c);
    const double one = 1.0;
    if (k->st)
        return;
    if (k->kind == LS_PRECOND_JACOBI) {
        CU(lsk_sp_scale(k->n, k->inv_diag, r, z, k->s));
    } else if (k->kind == LS_PRECOND_ILU0 || k->kind == LS_PRECOND_ILUT) {
        set_vecs(k, r, k->t);
        SP(cusparseSpSV_solve(k->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, k->L.d, k->vx,
                              k->vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, k->svl));
        set_vecs(k, k->t, z);
        SP(cusparseSpSV_solve(k->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, k->U.d, k->vx,
                              k->vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, k->svu));
    } else if (z != r) {
        CU(cudaMemcpyAsync(z, r, sizeof(double) * (size_t)k->n, cudaMemcpyDeviceToDevice, k->s));
    }
}

enum { MAXVALS = 3 }; /* values one reduction makes at most */

/* The count values the last reduction left in its parts, on the host. */
static void fetch_n(lsc_kr *k, int count, int max, double *v)
{
    double *out = k->part + MAXVALS * LSK_SP_PARTS;
    if (!k->st && CU(lsk_sp_finish(k->n, k->part, count, max, out, k->s)) &&
        CU(cudaMemcpyAsync(k->hs, out, sizeof(double) * (size_t)count, cudaMemcpyDeviceToHost,
                           k->s)) &&
        CU(cudaStreamSynchronize(k->s))) {
        memcpy(v, k->hs, sizeof(double) * (size_t)count);
        return;
    }
    for (int j = 0; j < count; j++)
        v[j] = NAN;
}

static double fetch(lsc_kr *k, int max)
{
    double v;
    fetch_n(k, 1, max, &v);
    return v;
}

static double d_dot(void *c, const double *x, const double *y)
{
    lsc_kr *k = K(c);
    if (k->st || !CU(lsk_sp_dot(k->n, x, y, k->part, k->s)))
        return NAN;
    return fetch(k, 0);
}

/* ||W r||2 scaled by its largest entry, as the host's ls_kr_nrm2. */
static double d_residual(void *c, const double *x, double *r)
{
    lsc_kr *k = K(c);
    d_spmv(c, x, r);
    if (k->st || !CU(lsk_sp_residual(k->n, k->b, k->w, r, k->part, k->s)))
        return NAN;
    double amax = fetch(k, 1);
    if (amax == 0 || !isfinite(amax))
        return amax;
    double inv = 1.0 / amax;
    if (!isfinite(inv))
        inv = ldexp(1.0, 1000);
    if (!CU(lsk_sp_sumsq(k->n, inv, k->w, r, k->part, k->s)))
        return NAN;
    return sqrt(fetch(k, 0)) / inv;
}

static void d_zero(void *c, double *v)
{
    lsc_kr *k = K(c);
    if (!k->st)
        CU(cudaMemsetAsync(v, 0, sizeof(double) * (size_t)k->n, k->s));
}

static void d_axpby(void *c, double a, const double *x, double b, double *y)
{
    lsc_kr *k = K(c);
    if (!k->st)
        CU(lsk_sp_axpby(k->n, a, x, b, y, k->s));
}

static void d_waxpby(void *c, double a, const double *x, double b, const double *y, double *w)
{
    lsc_kr *k = K(c);
    if (!k->st)
        CU(lsk_sp_waxpby(k->n, a, x, b, y, w, k->s));
}

static void d_cg_step(void *c, double alpha, const double *p, const double *q, double *x,
                      double *r, double *z, double d[3])
{
    lsc_kr *k = K(c);
    d[0] = d[1] = d[2] = NAN;
    if (k->st)
        return;
    if (k->kind == LS_PRECOND_JACOBI) {
        CU(lsk_sp_cg_step_jacobi(k->n, alpha, p, q, k->inv_diag, x, r, z, k->part, k->s));
    } else { /* r . r in value 0, then r . z and z . q in values 1 and 2 */
        CU(lsk_sp_cg_update(k->n, alpha, p, q, x, r, k->part, k->s));
        d_precond(c, r, z);
        if (!k->st)
            CU(lsk_sp_dot2(k->n, r, z, z, q, k->part + LSK_SP_PARTS, k->s));
    }
    fetch_n(k, 3, 0, d);
}

static void d_dot2(void *c, const double *x, const double *y, const double *u, const double *v,
                   double d[2])
{
    lsc_kr *k = K(c);
    d[0] = d[1] = NAN;
    if (!k->st && CU(lsk_sp_dot2(k->n, x, y, u, v, k->part, k->s)))
        fetch_n(k, 2, 0, d);
}

static void d_bicg_direction(void *c, double beta, double omega, const double *r,
                             const double *v, double *p)
{
    lsc_kr *k = K(c);
    if (!k->st)
        CU(lsk_sp_bicg_direction(k->n, beta, omega, r, v, p, k->s));
}

static double d_bicg_update(void *c, double alpha, double omega, const double *phat,
                            const double *shat, const double *sv, const double *t, double *x,
                            double *r)
{
    lsc_kr *k = K(c);
    if (k->st ||
        !CU(lsk_sp_bicg_update(k->n, alpha, omega, phat, shat, sv, t, x, r, k->part, k->s)))
        return NAN;
    return fetch(k, 0);
}

static void d_orthogonalize(void *c, const double *V, int j1, double *w, double *h)
{
    lsc_kr *k = K(c);
    const double one = 1.0, mone = -1.0, zero = 0.0;
    cublasHandle_t bl = k->cu->blas;
    for (int i = 0; i < j1; i++)
        h[i] = NAN;
    if (k->st || 2 * j1 > k->hs_len)
        return;
    for (int pass = 0; pass < 2; pass++) {
        double *hp = k->dh + pass * j1;
        if (!BL(cublasDgemv_64(bl, CUBLAS_OP_T, k->n, j1, &one, V, k->n, w, 1, &zero, hp, 1)) ||
            !BL(cublasDgemv_64(bl, CUBLAS_OP_N, k->n, j1, &mone, V, k->n, hp, 1, &one, w, 1)))
            return;
    }
    if (CU(cudaMemcpyAsync(k->hs, k->dh, sizeof(double) * 2 * (size_t)j1,
                           cudaMemcpyDeviceToHost, k->s)) &&
        CU(cudaStreamSynchronize(k->s)))
        for (int i = 0; i < j1; i++)
            h[i] = k->hs[i] + k->hs[j1 + i];
}

static void d_combine(void *c, const double *V, int kk, const double *y, double *r)
{
    lsc_kr *k = K(c);
    const double one = 1.0, zero = 0.0;
    if (k->st || kk > k->hs_len)
        return;
    memcpy(k->hs, y, sizeof(double) * (size_t)kk);
    if (CU(cudaMemcpyAsync(k->dh, k->hs, sizeof(double) * (size_t)kk, cudaMemcpyHostToDevice,
                           k->s)))
        BL(cublasDgemv_64(k->cu->blas, CUBLAS_OP_N, k->n, kk, &one, V, k->n, k->dh, 1, &zero, r,
                          1));
    if (kk == 0)
        d_zero(c, r);
    CU(cudaStreamSynchronize(k->s)); /* the pinned y may be reused at once */
}

static int d_status(void *c, char *msg, size_t len)
{
    lsc_kr *k = K(c);
    if (k->st && msg && len)
        snprintf(msg, len, "%s", k->msg);
    return k->st;
}

void lsc_csr_krylov_close(void *ops_ctx)
{
    lsc_kr *k = ops_ctx;
    if (!k)
        return;
    if (k->s)
        cudaStreamSynchronize(k->s);
    free_csr(&k->A), free_csr(&k->L), free_csr(&k->U);
    if (k->svl)
        cusparseSpSV_destroyDescr(k->svl);
    if (k->svu)
        cusparseSpSV_destroyDescr(k->svu);
    if (k->vx)
        cusparseDestroyDnVec(k->vx);
    if (k->vy)
        cusparseDestroyDnVec(k->vy);
    if (k->sp)
        cusparseDestroy(k->sp);
    cudaFree(k->spmv_buf), cudaFree(k->svl_buf), cudaFree(k->svu_buf);
    cudaFree(k->b), cudaFree(k->w), cudaFree(k->inv_diag), cudaFree(k->t);
    cudaFree(k->part), cudaFree(k->dh);
    cudaFreeHost(k->hs);
    free(k);
}

static int64_t factor_nnz(const ls_csr_precond *P)
{
    if (P->kind == LS_PRECOND_ILU0)
        return P->A->nnz + P->n;
    if (P->kind == LS_PRECOND_ILUT)
        return P->l_ptr[P->n] + P->u_ptr[P->n] + 2 * P->n;
    return 0;
}

int lsc_csr_krylov_open(void *bctx, const struct ls_krylov_sys *s, struct ls_kr_ops *ops,
                        char *err, size_t errlen)
{
    lsc_kr *k = calloc(1, sizeof *k);
    if (!k)
        return LSC_FAIL(err, errlen, LS_ENOMEM, "out of host memory");
    k->cu = bctx;
    k->s = k->cu->stream;
    k->n = s->n;
    k->kind = s->P ? s->P->kind : LS_PRECOND_NONE;
    const int64_t n = s->n, big = 2147483647;
    k->ity = n < big && s->A->nnz < big && (!s->P || factor_nnz(s->P) < big)
                 ? CUSPARSE_INDEX_32I
                 : CUSPARSE_INDEX_64I;
    k->hs_len = 2 * (s->restart > 0 ? s->restart + 1 : 1) + 2;
    const double one = 1.0, zero = 0.0;
    size_t bytes = 0;
    CU(cudaSetDevice(k->cu->device));
    if (!k->st && SP(cusparseCreate(&k->sp)))
        SP(cusparseSetStream(k->sp, k->s));
    if (!k->st)
        CU(cudaMallocHost((void **)&k->hs, sizeof(double) * (size_t)k->hs_len));
    k->part = dev_alloc(k, sizeof(double) * (MAXVALS * LSK_SP_PARTS + MAXVALS));
    k->dh = dev_alloc(k, sizeof(double) * (size_t)k->hs_len);
    k->b = dev_alloc(k, sizeof(double) * (size_t)n);
    k->t = dev_alloc(k, sizeof(double) * (size_t)n);
    if (s->rweight)
        k->w = dev_alloc(k, sizeof(double) * (size_t)n);
    if (!k->st)
        put_csr(k, n, s->A->row_ptr, s->A->col_idx, s->A->val, &k->A);
    if (!k->st)
        CU(cudaMemcpy(k->b, s->b, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice));
    if (!k->st && k->w)
        CU(cudaMemcpy(k->w, s->rweight, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice));
    if (!k->st && SP(cusparseCreateDnVec(&k->vx, n, k->b, CUDA_R_64F)) &&
        SP(cusparseCreateDnVec(&k->vy, n, k->t, CUDA_R_64F)) &&
        SP(cusparseSpMV_bufferSize(k->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, k->A.d, k->vx,
                                   &zero, k->vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes)) &&
        (k->spmv_buf = dev_alloc(k, bytes)) != NULL)
        SP(cusparseSpMV_preprocess(k->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, k->A.d, k->vx,
                                   &zero, k->vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT,
                                   k->spmv_buf));
    if (!k->st && k->kind == LS_PRECOND_JACOBI) {
        k->inv_diag = dev_alloc(k, sizeof(double) * (size_t)n);
        if (k->inv_diag)
            CU(cudaMemcpy(k->inv_diag, s->P->inv_diag, sizeof(double) * (size_t)n,
                          cudaMemcpyHostToDevice));
    } else if (!k->st && (k->kind == LS_PRECOND_ILU0 || k->kind == LS_PRECOND_ILUT)) {
        hcsr L = {0}, U = {0};
        if (split_factors(s->P, &L, &U))
            fail(k, LS_ENOMEM, __FILE__, __LINE__, "%s",
                 "out of host memory for the triangular factors");
        if (!k->st)
            put_csr(k, n, L.ptr, L.idx, L.val, &k->L);
        if (!k->st)
            put_csr(k, n, U.ptr, U.idx, U.val, &k->U);
        free_h(&L), free_h(&U);
        if (!k->st)
            analyse(k, &k->L, CUSPARSE_FILL_MODE_LOWER, &k->svl, &k->svl_buf);
        if (!k->st)
            analyse(k, &k->U, CUSPARSE_FILL_MODE_UPPER, &k->svu, &k->svu_buf);
    }
    if (!k->st)
        CU(cudaStreamSynchronize(k->s));
    if (k->st) {
        int st = k->st;
        snprintf(err, errlen, "%s", k->msg);
        lsc_csr_krylov_close(k);
        return st;
    }
    memset(ops, 0, sizeof *ops);
    ops->ctx = k;
    ops->n = n;
    ops->alloc = d_alloc;
    ops->release = d_release;
    ops->upload = d_upload;
    ops->download = d_download;
    ops->spmv = d_spmv;
    ops->precond = d_precond;
    ops->dot = d_dot;
    ops->residual = d_residual;
    ops->zero = d_zero;
    ops->axpby = d_axpby;
    ops->waxpby = d_waxpby;
    ops->cg_step = d_cg_step;
    ops->dot2 = d_dot2;
    ops->bicg_direction = d_bicg_direction;
    ops->bicg_update = d_bicg_update;
    ops->orthogonalize = d_orthogonalize;
    ops->combine = d_combine;
    ops->status = d_status;
    return 0;
}
