/*
 * The CUDA local engine of the distributed LU: the rank's blocks live in
 * its GPU's memory; the trailing update, triangular solves and panel
 * updates are cuBLAS on one stream; a panel held whole by the rank (one
 * process row) is factored by liblinsolve's own device LU (ls_?getrf_gpu)
 * on that stream. Between ranks, device buffers go through NCCL on a
 * second stream, ordered against the first by events (so the look-ahead's
 * panel broadcast overlaps the trailing update), or through host-staged
 * MPI where two ranks share a GPU (NCCL refuses that).
 *
 * cuBLAS and CUDA failures are sticky: the first is kept and reported by
 * finish(), which the algorithm calls at the end of each factorization and
 * solve, so one rank's device failure ends every rank with its message.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <nccl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist_cuda.h"
#include "k_dist.h"

#define STAGE_CHUNK ((size_t)64 << 20) /* host-staged MPI moves this much at a time */

/* LS_DIST_CUDA_PROFILE=1: GPU time of each kind of work, from event pairs
 * around every slot, printed to stderr by finish (one line per rank). */
enum { K_GEMM, K_TRSM, K_PANEL, K_ROWS, K_COPY, K_COMM, K_OTHER, K_COUNT };
static const char *const kind_name[K_COUNT] = {"update gemm", "trsm", "panel LU", "row moves",
                                               "copies", "communication", "other"};
typedef struct prof {
    cudaEvent_t *ev; /* pairs */
    int *kind;
    int n, cap;
} prof;

typedef struct ce {
    ls_dist_engine e; /* first: the table's context is this struct */
    int device, use_nccl;
    cudaStream_t s, c, p; /* compute; communication; the look-ahead's panel */
    cudaStream_t cur;     /* where compute work goes now: s, or p between use_fork */
    cudaEvent_t ev_s, ev_c, ev_f, ev_p;
    cublasHandle_t h;
    ls_context *ls;
    MPI_Comm row, col;
    ncclComm_t nrow, ncol;
    char *pin; /* pinned staging, STAGE_CHUNK bytes */
    int *drows;
    size_t drows_cap;
    int status;
    char msg[200], name[160];
    prof *pf; /* NULL unless LS_DIST_CUDA_PROFILE=1 */
    /* LS_DIST_CUDA_PANEL=cusolver: tall panels by cuSOLVER's getrf, not
     * liblinsolve's device LU (the default) */
    int panel_cusolver;
    cusolverDnHandle_t sh;
    void *pws;
    size_t pws_bytes;
    int *dpiv; /* n pivots, then info */
    int dpiv_cap;
} ce;

static void pf_mark(ce *c, int kind, cudaStream_t st)
{
    prof *f = c->pf;
    if (!f)
        return;
    if (f->n % 2 == 0 && f->n + 2 > f->cap) {
        int cap = f->cap ? 2 * f->cap : 1024;
        cudaEvent_t *ev = realloc(f->ev, (size_t)cap * sizeof *ev);
        int *kd = ev ? realloc(f->kind, (size_t)cap / 2 * sizeof *kd) : NULL;
        if (ev)
            f->ev = ev;
        if (!kd)
            return;
        f->kind = kd;
        for (int i = f->cap; i < cap; ++i)
            cudaEventCreate(&f->ev[i]);
        f->cap = cap;
    }
    if (f->n % 2 == 0)
        f->kind[f->n / 2] = kind;
    cudaEventRecord(f->ev[f->n++], st);
}
#define PF_BEGIN(c, k) pf_mark((c), (k), (c)->cur)
#define PF_END(c) pf_mark((c), 0, (c)->cur)

static void pf_report(ce *c)
{
    prof *f = c->pf;
    if (!f || f->n < 2)
        return;
    double t[K_COUNT] = {0};
    float ms = 0, span = 0;
    for (int i = 0; i + 1 < f->n; i += 2)
        if (cudaEventElapsedTime(&ms, f->ev[i], f->ev[i + 1]) == cudaSuccess)
            t[f->kind[i / 2]] += ms / 1e3;
    cudaEventElapsedTime(&span, f->ev[0], f->ev[f->n - 1]);
    char line[512];
    int len = snprintf(line, sizeof line, "ls_dist_cuda profile (cuda:%d): span %.4f s;",
                       c->device, span / 1e3);
    for (int k = 0; k < K_COUNT && len < (int)sizeof line; ++k)
        len += snprintf(line + len, sizeof line - (size_t)len, " %s %.4f s%s", kind_name[k], t[k],
                        k + 1 < K_COUNT ? "," : "");
    fprintf(stderr, "%s\n", line);
    f->n = 0;
}

static void fail(ce *c, int status, const char *fmt, ...)
{
    if (c->status)
        return;
    c->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
}

static int cu_ok(ce *c, cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 1;
    fail(c, e == cudaErrorMemoryAllocation ? LS_EDEVMEM : LS_EDEVICE, "%s on cuda:%d: %s", what,
         c->device, cudaGetErrorString(e));
    return 0;
}

static int bl_ok(ce *c, cublasStatus_t st, const char *what)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return 1;
    fail(c, LS_EDEVICE, "%s on cuda:%d: cuBLAS status %d", what, c->device, (int)st);
    return 0;
}

static int nc_ok(ce *c, ncclResult_t r, const char *what)
{
    if (r == ncclSuccess)
        return 1;
    fail(c, LS_EDEVICE, "%s on cuda:%d: %s", what, c->device, ncclGetErrorString(r));
    return 0;
}

static size_t esz(ls_precision p) { return p == LS_DOUBLE ? sizeof(double) : sizeof(float); }

/* ---- local kernels ---- */

static void x_gemm_sub(void *ctx, ls_precision p, int m, int n, int k, const void *A, int lda,
                       const void *B, int ldb, void *C, int ldc)
{
    ce *c = ctx;
    if (m <= 0 || n <= 0 || k <= 0)
        return;
    PF_BEGIN(c, K_GEMM);
    if (p == LS_DOUBLE) {
        const double a = -1.0, b = 1.0;
        bl_ok(c, cublasDgemm(c->h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, A, lda, B, ldb, &b, C,
                             ldc), "cublasDgemm");
    } else {
        const float a = -1.0f, b = 1.0f;
        bl_ok(c, cublasSgemm(c->h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, A, lda, B, ldb, &b, C,
                             ldc), "cublasSgemm");
    }
    PF_END(c);
}

static void trsm_op(ce *c, ls_precision p, cublasOperation_t op, char uplo, int m, int n,
                    const void *T, int ldt, void *B, int ldb)
{
    if (m <= 0 || n <= 0)
        return;
    PF_BEGIN(c, K_TRSM);
    cublasFillMode_t ul = uplo == 'L' ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    cublasDiagType_t dg = uplo == 'L' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    if (p == LS_DOUBLE) {
        const double one = 1.0;
        bl_ok(c, cublasDtrsm(c->h, CUBLAS_SIDE_LEFT, ul, op, dg, m, n, &one, T, ldt, B, ldb),
              "cublasDtrsm");
    } else {
        const float one = 1.0f;
        bl_ok(c, cublasStrsm(c->h, CUBLAS_SIDE_LEFT, ul, op, dg, m, n, &one, T, ldt, B, ldb),
              "cublasStrsm");
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
        bl_ok(c, cublasDger(c->h, m, n, &a, x, 1, y, 1, A, lda), "cublasDger");
    } else {
        const float a = -1.0f;
        bl_ok(c, cublasSger(c->h, m, n, &a, x, 1, y, 1, A, lda), "cublasSger");
    }
}

static void x_scal_inv(void *ctx, ls_precision p, int n, double pivot, void *x)
{
    ce *c = ctx;
    if (n <= 0)
        return;
    const double tiny = p == LS_DOUBLE ? DBL_MIN : FLT_MIN;
    if (fabs(pivot) < tiny) { /* 1/pivot would overflow: divide, as getf2 */
        cu_ok(c, (cudaError_t)ls_dist_k_div(p == LS_DOUBLE, n, pivot, x, c->cur), "k_div");
    } else if (p == LS_DOUBLE) {
        const double r = 1.0 / pivot;
        bl_ok(c, cublasDscal(c->h, n, &r, x, 1), "cublasDscal");
    } else {
        const float r = 1.0f / (float)pivot;
        bl_ok(c, cublasSscal(c->h, n, &r, x, 1), "cublasSscal");
    }
}

static int x_iamax(void *ctx, ls_precision p, int n, const void *x)
{
    ce *c = ctx;
    int r = 0;
    if (n <= 0)
        return -1;
    if (p == LS_DOUBLE)
        bl_ok(c, cublasIdamax(c->h, n, x, 1, &r), "cublasIdamax");
    else
        bl_ok(c, cublasIsamax(c->h, n, x, 1, &r), "cublasIsamax");
    return r >= 1 && r <= n ? r - 1 : 0;
}

static void copy2d(ce *c, ls_precision p, int m, int n, const void *A, int lda, void *B, int ldb,
                   enum cudaMemcpyKind kind, const char *what)
{
    if (m <= 0 || n <= 0)
        return;
    const size_t es = esz(p);
    PF_BEGIN(c, K_COPY);
    cu_ok(c, cudaMemcpy2DAsync(B, (size_t)ldb * es, A, (size_t)lda * es, (size_t)m * es,
                               (size_t)n, kind, c->cur), what);
    PF_END(c);
}

static void x_lacpy(void *ctx, ls_precision p, int m, int n, const void *A, int lda, void *B,
                    int ldb)
{
    copy2d(ctx, p, m, n, A, lda, B, ldb, cudaMemcpyDeviceToDevice, "lacpy");
}

static void x_get(void *ctx, ls_precision p, int m, int n, const void *A, int lda, void *H,
                  int ldh)
{
    ce *c = ctx;
    copy2d(c, p, m, n, A, lda, H, ldh, cudaMemcpyDeviceToHost, "copy to the host");
    cu_ok(c, cudaStreamSynchronize(c->cur), "copy to the host");
}

static void x_set(void *ctx, ls_precision p, int m, int n, const void *H, int ldh, void *A,
                  int lda)
{
    ce *c = ctx;
    copy2d(c, p, m, n, H, ldh, A, lda, cudaMemcpyHostToDevice, "copy to the device");
    cu_ok(c, cudaStreamSynchronize(c->cur), "copy to the device");
}

/* A tall panel (m >= n) by cuSOLVER, for comparison (LS_DIST_CUDA_PANEL=
 * cusolver): on n x 512 panels it took 4.7 s of GPU time at n = 65536 on
 * one H200, where liblinsolve's device LU took 0.68 s at 32768 on an H100
 * (~2.7 s at 65536, the panels' work growing as n^2); the profiles are in
 * bench/results/h200x2/ and h100/distributed-profile.txt. */
static int panel_cusolver(ce *c, ls_precision p, int m, int n, void *A, int lda, int *ipiv)
{
    int lw = 0, info = 0;
    cusolverStatus_t st = cusolverDnSetStream(c->sh, c->cur);
    if (st == CUSOLVER_STATUS_SUCCESS)
        st = p == LS_DOUBLE ? cusolverDnDgetrf_bufferSize(c->sh, m, n, A, lda, &lw)
                            : cusolverDnSgetrf_bufferSize(c->sh, m, n, A, lda, &lw);
    if (st != CUSOLVER_STATUS_SUCCESS) {
        fail(c, LS_EDEVICE, "cuSOLVER getrf setup on cuda:%d: status %d", c->device, (int)st);
        return 0;
    }
    size_t bytes = (size_t)lw * esz(p);
    if (bytes > c->pws_bytes) {
        cudaFree(c->pws);
        c->pws = NULL;
        c->pws_bytes = 0;
        if (!cu_ok(c, cudaMalloc(&c->pws, bytes), "panel workspace"))
            return 0;
        c->pws_bytes = bytes;
    }
    if (n + 1 > c->dpiv_cap) {
        cudaFree(c->dpiv);
        c->dpiv = NULL;
        c->dpiv_cap = 0;
        if (!cu_ok(c, cudaMalloc((void **)&c->dpiv, (size_t)(n + 1) * sizeof(int)), "pivots"))
            return 0;
        c->dpiv_cap = n + 1;
    }
    PF_BEGIN(c, K_PANEL);
    st = p == LS_DOUBLE ? cusolverDnDgetrf(c->sh, m, n, A, lda, c->pws, c->dpiv, c->dpiv + n)
                        : cusolverDnSgetrf(c->sh, m, n, A, lda, c->pws, c->dpiv, c->dpiv + n);
    PF_END(c);
    if (st != CUSOLVER_STATUS_SUCCESS) {
        fail(c, LS_EDEVICE, "cuSOLVER getrf on cuda:%d: status %d", c->device, (int)st);
        return 0;
    }
    if (cu_ok(c, cudaMemcpyAsync(ipiv, c->dpiv, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost,
                                 c->cur), "pivots") &&
        cu_ok(c, cudaMemcpyAsync(&info, c->dpiv + n, sizeof(int), cudaMemcpyDeviceToHost, c->cur),
              "info"))
        cu_ok(c, cudaStreamSynchronize(c->cur), "panel");
    return info;
}

static int x_getrf(void *ctx, ls_precision p, int m, int n, void *A, int lda, int *ipiv)
{
    ce *c = ctx;
    int info = 0;
    if (m <= 0 || n <= 0)
        return 0;
    if (c->panel_cusolver && m >= n)
        return panel_cusolver(c, p, m, n, A, lda, ipiv);
    PF_BEGIN(c, K_PANEL);
    int st = p == LS_DOUBLE ? ls_dgetrf_gpu(m, n, A, lda, ipiv, &info, c->ls)
                            : ls_sgetrf_gpu(m, n, A, lda, ipiv, &info, c->ls);
    PF_END(c);
    if (st < 0 && st > -1001)
        return st;
    if (st < 0) {
        fail(c, st, "panel LU on cuda:%d: %s", c->device, ls_context_error(c->ls));
        return 0;
    }
    return info;
}

static void x_gemm_tn(void *ctx, ls_precision p, int m, int n, int k, double alpha, const void *A,
                      int lda, const void *B, int ldb, double beta, void *C, int ldc)
{
    ce *c = ctx;
    if (m <= 0 || n <= 0)
        return;
    const size_t es = esz(p);
    if (k <= 0 && beta == 0) { /* C = 0 without reading C */
        cu_ok(c, cudaMemset2DAsync(C, (size_t)ldc * es, 0, (size_t)m * es, (size_t)n, c->cur),
              "memset");
        return;
    }
    if (k <= 0 && beta == 1)
        return;
    if (p == LS_DOUBLE)
        bl_ok(c, cublasDgemm(c->h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, A, lda, B, ldb,
                             &beta, C, ldc), "cublasDgemm (T)");
    else {
        const float a = (float)alpha, b = (float)beta;
        bl_ok(c, cublasSgemm(c->h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &a, A, lda, B, ldb, &b, C,
                             ldc), "cublasSgemm (T)");
    }
}

/* ---- memory ---- */

static void *x_ws_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 16) != cudaSuccess) {
        cudaGetLastError(); /* not sticky: the caller reports it */
        return NULL;
    }
    return p;
}

static void x_ws_free(void *ctx, void *ptr)
{
    ce *c = ctx;
    if (ptr)
        cu_ok(c, cudaFree(ptr), "cudaFree");
}

/* ---- transport ---- */

static ncclComm_t nccl_of(ce *c, MPI_Comm comm)
{
    return comm == c->row ? c->nrow : comm == c->col ? c->ncol : NULL;
}

/* The communication stream starts after what the compute stream has queued. */
static void comm_after_compute(ce *c)
{
    cu_ok(c, cudaEventRecord(c->ev_s, c->cur), "cudaEventRecord");
    cu_ok(c, cudaStreamWaitEvent(c->c, c->ev_s, 0), "cudaStreamWaitEvent");
}

/* The compute stream waits for the communication queued so far (req NULL),
 * or the caller's request will (an event of its own). */
static int compute_after_comm(ce *c, ls_dist_req *req)
{
    if (!req) {
        cu_ok(c, cudaEventRecord(c->ev_c, c->c), "cudaEventRecord");
        cu_ok(c, cudaStreamWaitEvent(c->cur, c->ev_c, 0), "cudaStreamWaitEvent");
        return c->status;
    }
    cudaEvent_t ev;
    if (!cu_ok(c, cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreate"))
        return c->status;
    cu_ok(c, cudaEventRecord(ev, c->c), "cudaEventRecord");
    req->dev = ev;
    req->active = 1;
    return c->status;
}

/* Host-staged broadcast, in chunks through the pinned buffer. Every rank
 * takes part in every MPI call even after a device failure (the failure
 * is reported by finish), or the others would wait forever. */
static int staged_bcast(ce *c, char *buf, size_t bytes, int root, MPI_Comm comm)
{
    int me = 0;
    MPI_Comm_rank(comm, &me);
    cu_ok(c, cudaStreamSynchronize(c->cur), "synchronize before a broadcast");
    for (size_t off = 0; off < bytes; off += STAGE_CHUNK) {
        size_t len = bytes - off < STAGE_CHUNK ? bytes - off : STAGE_CHUNK;
        if (me == root && !c->status)
            cu_ok(c, cudaMemcpy(c->pin, buf + off, len, cudaMemcpyDeviceToHost),
                  "staging a broadcast");
        if (MPI_Bcast(c->pin, (int)len, MPI_BYTE, root, comm) != MPI_SUCCESS)
            fail(c, LS_EINTERNAL, "MPI_Bcast failed");
        if (me != root && !c->status)
            cu_ok(c, cudaMemcpy(buf + off, c->pin, len, cudaMemcpyHostToDevice),
                  "unstaging a broadcast");
    }
    return c->status;
}

/* NCCL's collectives are entered whatever failed before, as MPI's are. */
static int x_bcast(void *ctx, void *buf, size_t bytes, int root, MPI_Comm comm, ls_dist_req *req)
{
    ce *c = ctx;
    if (req)
        req->active = 0;
    if (bytes == 0)
        return c->status;
    ncclComm_t nc = c->use_nccl ? nccl_of(c, comm) : NULL;
    if (!nc)
        return staged_bcast(c, buf, bytes, root, comm);
    comm_after_compute(c);
    pf_mark(c, K_COMM, c->c);
    nc_ok(c, ncclBroadcast(buf, buf, bytes, ncclUint8, root, nc, c->c), "ncclBroadcast");
    pf_mark(c, 0, c->c);
    if (c->status)
        return c->status;
    return compute_after_comm(c, req);
}

static int x_wait(void *ctx, ls_dist_req *req)
{
    ce *c = ctx;
    if (!req || !req->active)
        return c->status;
    req->active = 0;
    cudaEvent_t ev = req->dev;
    cu_ok(c, cudaStreamWaitEvent(c->cur, ev, 0), "cudaStreamWaitEvent");
    cudaEventDestroy(ev);
    req->dev = NULL;
    return c->status;
}

static int x_reduce_sum(void *ctx, ls_precision p, void *buf, size_t count, int root,
                        MPI_Comm comm)
{
    ce *c = ctx;
    if (count == 0)
        return c->status;
    ncclComm_t nc = c->use_nccl ? nccl_of(c, comm) : NULL;
    if (nc) {
        comm_after_compute(c);
        nc_ok(c, ncclReduce(buf, buf, count, p == LS_DOUBLE ? ncclDouble : ncclFloat, ncclSum,
                            root, nc, c->c), "ncclReduce");
        return compute_after_comm(c, NULL);
    }
    const size_t bytes = count * esz(p);
    int me = 0;
    MPI_Comm_rank(comm, &me);
    void *h = malloc(bytes);
    if (!h) {
        fail(c, LS_ENOMEM, "out of host memory staging a sum (%zu bytes)", bytes);
        return c->status;
    }
    memset(h, 0, bytes);
    if (cu_ok(c, cudaStreamSynchronize(c->cur), "synchronize before a sum"))
        cu_ok(c, cudaMemcpy(h, buf, bytes, cudaMemcpyDeviceToHost), "staging a sum");
    MPI_Datatype t = p == LS_DOUBLE ? MPI_DOUBLE : MPI_FLOAT; /* entered whatever failed */
    if (MPI_Reduce(me == root ? MPI_IN_PLACE : h, me == root ? h : NULL, (int)count, t, MPI_SUM,
                   root, comm) != MPI_SUCCESS)
        fail(c, LS_EINTERNAL, "MPI_Reduce failed");
    else if (me == root && !c->status)
        cu_ok(c, cudaMemcpy(buf, h, bytes, cudaMemcpyHostToDevice), "unstaging a sum");
    free(h);
    return c->status;
}

/* ---- row moves ---- */

static void rows_op(ce *c, ls_precision p, void *X, int ldx, int nranges, const int *c0,
                    const int *nc, int nrows, const int *rows, void *buf, int pack)
{
    if (nrows <= 0 || c->status)
        return;
    if ((size_t)nrows > c->drows_cap) {
        cudaFree(c->drows);
        c->drows = NULL;
        c->drows_cap = 0;
        if (!cu_ok(c, cudaMalloc((void **)&c->drows, (size_t)nrows * sizeof(int)),
                   "index list"))
            return;
        c->drows_cap = (size_t)nrows;
    }
    /* pageable source: the call returns once rows has been read */
    if (!cu_ok(c, cudaMemcpyAsync(c->drows, rows, (size_t)nrows * sizeof(int),
                                  cudaMemcpyHostToDevice, c->cur), "index list"))
        return;
    PF_BEGIN(c, K_ROWS);
    cu_ok(c, (cudaError_t)ls_dist_k_rows(p == LS_DOUBLE, X, ldx, nranges, c0, nc, nrows,
                                         c->drows, buf, pack, c->cur), "k_rows");
    PF_END(c);
}

static void x_pack_rows(void *ctx, ls_precision p, const void *X, int ldx, int nranges,
                        const int *c0, const int *nc, int nrows, const int *rows, void *out)
{
    rows_op(ctx, p, (void *)X, ldx, nranges, c0, nc, nrows, rows, out, 1);
}

static void x_unpack_rows(void *ctx, ls_precision p, const void *in, int nranges, const int *c0,
                          const int *nc, int nrows, const int *rows, void *X, int ldx)
{
    rows_op(ctx, p, X, ldx, nranges, c0, nc, nrows, rows, (void *)in, 0);
}

/* The look-ahead's panel on its own stream, beside the trailing update. */
static void x_fork(void *ctx)
{
    ce *c = ctx;
    cu_ok(c, cudaEventRecord(c->ev_f, c->s), "cudaEventRecord");
}

static void switch_to(ce *c, cudaStream_t to)
{
    c->cur = to;
    bl_ok(c, cublasSetStream(c->h, to), "cublasSetStream");
    int st = ls_context_set_stream(c->ls, to);
    if (st)
        fail(c, st, "panel stream on cuda:%d: %s", c->device, ls_context_error(c->ls));
}

static void x_use_fork(void *ctx, int on)
{
    ce *c = ctx;
    if (on) {
        cu_ok(c, cudaStreamWaitEvent(c->p, c->ev_f, 0), "cudaStreamWaitEvent");
        switch_to(c, c->p);
    } else {
        cu_ok(c, cudaEventRecord(c->ev_p, c->p), "cudaEventRecord");
        cu_ok(c, cudaStreamWaitEvent(c->s, c->ev_p, 0), "cudaStreamWaitEvent");
        switch_to(c, c->s);
    }
}

static int x_finish(void *ctx, char *msg, size_t len)
{
    ce *c = ctx;
    if (c->cur != c->s)
        switch_to(c, c->s);
    cu_ok(c, cudaStreamSynchronize(c->p), "panel stream");
    cu_ok(c, cudaStreamSynchronize(c->c), "communication stream");
    cu_ok(c, cudaStreamSynchronize(c->s), "compute stream");
    pf_report(c);
    if (msg && len)
        snprintf(msg, len, "%s", c->status ? c->msg : "");
    int st = c->status;
    c->status = 0; /* reported once; the next call starts clean */
    c->msg[0] = '\0';
    return st;
}

static void x_destroy(void *ctx)
{
    ce *c = ctx;
    if (!c)
        return;
    cudaSetDevice(c->device);
    if (c->s)
        cudaStreamSynchronize(c->s);
    if (c->c)
        cudaStreamSynchronize(c->c);
    if (c->nrow)
        ncclCommDestroy(c->nrow);
    if (c->ncol)
        ncclCommDestroy(c->ncol);
    if (c->ls)
        ls_context_destroy(c->ls);
    if (c->h)
        cublasDestroy(c->h);
    if (c->ev_s)
        cudaEventDestroy(c->ev_s);
    if (c->ev_c)
        cudaEventDestroy(c->ev_c);
    if (c->ev_f)
        cudaEventDestroy(c->ev_f);
    if (c->ev_p)
        cudaEventDestroy(c->ev_p);
    if (c->p)
        cudaStreamDestroy(c->p);
    if (c->s)
        cudaStreamDestroy(c->s);
    if (c->c)
        cudaStreamDestroy(c->c);
    cudaFree(c->drows);
    cudaFreeHost(c->pin);
    cudaFree(c->pws);
    cudaFree(c->dpiv);
    if (c->sh)
        cusolverDnDestroy(c->sh);
    if (c->pf) {
        for (int i = 0; i < c->pf->cap; ++i)
            cudaEventDestroy(c->pf->ev[i]);
        free(c->pf->ev);
        free(c->pf->kind);
        free(c->pf);
    }
    free(c);
}

/* ---- opening ---- */

/* NCCL needs a GPU per rank: true when no two ranks of grid share a
 * (host, device) pair. */
static int devices_distinct(MPI_Comm grid, int device)
{
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    unsigned long long key = 1469598103934665603ULL; /* FNV-1a of the host name */
    for (const char *p = host; *p; ++p)
        key = (key ^ (unsigned char)*p) * 1099511628211ULL;
    key = key * 131 + (unsigned long long)device;
    int size = 0, distinct = 1;
    MPI_Comm_size(grid, &size);
    unsigned long long *all = malloc((size_t)size * sizeof *all);
    if (!all)
        return 0;
    MPI_Allgather(&key, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, grid);
    for (int i = 0; i < size && distinct; ++i)
        for (int j = i + 1; j < size && distinct; ++j)
            distinct = all[i] != all[j];
    free(all);
    return distinct;
}

/* Collective over comm: NULL (and no error) for a communicator of one. */
static int nccl_comm(ce *c, MPI_Comm comm, ncclComm_t *out)
{
    int size = 0, me = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &me);
    *out = NULL;
    if (size < 2)
        return 1;
    ncclUniqueId id;
    if (me == 0 && !nc_ok(c, ncclGetUniqueId(&id), "ncclGetUniqueId"))
        memset(&id, 0, sizeof id);
    MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, comm);
    return nc_ok(c, ncclCommInitRank(out, size, id, me), "ncclCommInitRank");
}

int ls_dist_cuda_open(int abi, int device, MPI_Comm grid, MPI_Comm row, MPI_Comm col,
                      int transport, ls_dist_engine **out, char *err, size_t errlen)
{
    *out = NULL;
    if (abi != LS_DIST_CUDA_ABI) {
        snprintf(err, errlen, "liblinsolve_dist_cuda speaks ABI %d, not %d", LS_DIST_CUDA_ABI,
                 abi);
        return LS_EUNAVAIL;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        cudaGetLastError();
        snprintf(err, errlen, "no CUDA device on this rank");
        return LS_EUNAVAIL;
    }
    if (device < 0)
        device = (-1 - device) % ndev;
    if (device >= ndev) {
        snprintf(err, errlen, "CUDA device %d: this host has %d", device, ndev);
        return LS_EINVAL;
    }
    ce *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of host memory");
        return LS_ENOMEM;
    }
    c->device = device;
    c->row = row;
    c->col = col;
    /* every rank takes part in the collectives below, whatever failed */
    int distinct = devices_distinct(grid, device);
    c->use_nccl = transport == LS_DIST_TRANSPORT_NCCL ||
                  (transport == LS_DIST_TRANSPORT_AUTO && distinct);
    if (cu_ok(c, cudaSetDevice(device), "cudaSetDevice") &&
        cu_ok(c, cudaStreamCreateWithFlags(&c->s, cudaStreamNonBlocking), "cudaStreamCreate") &&
        cu_ok(c, cudaStreamCreateWithFlags(&c->c, cudaStreamNonBlocking), "cudaStreamCreate") &&
        cu_ok(c, cudaStreamCreateWithFlags(&c->p, cudaStreamNonBlocking), "cudaStreamCreate") &&
        cu_ok(c, cudaEventCreateWithFlags(&c->ev_f, cudaEventDisableTiming), "cudaEventCreate") &&
        cu_ok(c, cudaEventCreateWithFlags(&c->ev_p, cudaEventDisableTiming), "cudaEventCreate") &&
        cu_ok(c, cudaEventCreateWithFlags(&c->ev_s, cudaEventDisableTiming), "cudaEventCreate") &&
        cu_ok(c, cudaEventCreateWithFlags(&c->ev_c, cudaEventDisableTiming), "cudaEventCreate") &&
        cu_ok(c, cudaMallocHost((void **)&c->pin, STAGE_CHUNK), "cudaMallocHost") &&
        bl_ok(c, cublasCreate(&c->h), "cublasCreate") &&
        bl_ok(c, cublasSetStream(c->h, c->s), "cublasSetStream")) {
        int st = ls_context_create(&c->ls, LS_BACKEND_CUDA, device);
        if (st == 0)
            st = ls_context_set_stream(c->ls, c->s);
        if (st)
            fail(c, st, "liblinsolve's CUDA context on device %d: %s", device,
                 c->ls ? ls_context_error(c->ls) : "not created");
    }
    c->cur = c->s;
    const char *pp = getenv("LS_DIST_CUDA_PANEL");
    c->panel_cusolver = pp && !strcmp(pp, "cusolver");
    if (!c->status && cusolverDnCreate(&c->sh) != CUSOLVER_STATUS_SUCCESS)
        fail(c, LS_EDEVICE, "cusolverDnCreate on cuda:%d failed", device);
    const char *pe = getenv("LS_DIST_CUDA_PROFILE");
    if (pe && pe[0] == '1')
        c->pf = calloc(1, sizeof *c->pf);
    if (c->use_nccl) {
        int ok = c->status == 0, all = 0; /* NCCL's init waits for every rank: agree first */
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, grid);
        if (all) {
            nccl_comm(c, row, &c->nrow);
            nccl_comm(c, col, &c->ncol);
        }
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess)
        snprintf(prop.name, sizeof prop.name, "?");
    snprintf(c->name, sizeof c->name, "cuda:%d %s, %s", device, prop.name,
             c->use_nccl ? "nccl" : "host-staged mpi");
    if (c->status) {
        int st = c->status;
        snprintf(err, errlen, "%s", c->msg);
        x_destroy(c);
        return st;
    }
    ls_dist_engine *e = &c->e;
    e->api_version = LS_DIST_ENGINE_API_VERSION;
    e->name = c->name;
    e->context = c;
    e->gemm_sub = x_gemm_sub;
    e->trsm = x_trsm;
    e->ger_sub = x_ger_sub;
    e->scal_inv = x_scal_inv;
    e->iamax = x_iamax;
    e->lacpy = x_lacpy;
    e->destroy = x_destroy;
    e->getrf = x_getrf;
    e->gemm_tn = x_gemm_tn;
    e->trsm_t = x_trsm_t;
    e->host_memory = 0;
    e->ws_alloc = x_ws_alloc;
    e->ws_free = x_ws_free;
    e->get = x_get;
    e->set = x_set;
    e->bcast = x_bcast;
    e->wait = x_wait;
    e->reduce_sum = x_reduce_sum;
    e->pack_rows = x_pack_rows;
    e->unpack_rows = x_unpack_rows;
    e->finish = x_finish;
    e->fork = x_fork;
    e->use_fork = x_use_fork;
    *out = e;
    return 0;
}
