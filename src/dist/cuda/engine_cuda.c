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
#include "../../core/knobs.h"
#include "engine_cuda_impl.h"

static void copy2d(ce *c, ls_precision p, int m, int n, const void *A, int lda, void *B, int ldb,
                   enum cudaMemcpyKind kind, const char *what)
{
    if (m <= 0 || n <= 0)
        return;
    const size_t es = ec_esz(p);
    PF_BEGIN(c, K_COPY);
    ec_cu_ok(c,
             cudaMemcpy2DAsync(B, (size_t)ldb * es, A, (size_t)lda * es, (size_t)m * es, (size_t)n,
                               kind, c->cur),
             what);
    PF_END(c);
}

static void x_lacpy(void *ctx, ls_precision p, int m, int n, const void *A, int lda, void *B,
                    int ldb)
{
    copy2d(ctx, p, m, n, A, lda, B, ldb, cudaMemcpyDeviceToDevice, "lacpy");
}

static void x_get(void *ctx, ls_precision p, int m, int n, const void *A, int lda, void *H, int ldh)
{
    ce *c = ctx;
    copy2d(c, p, m, n, A, lda, H, ldh, cudaMemcpyDeviceToHost, "copy to the host");
    ec_cu_ok(c, cudaStreamSynchronize(c->cur), "copy to the host");
}

static void x_set(void *ctx, ls_precision p, int m, int n, const void *H, int ldh, void *A, int lda)
{
    ce *c = ctx;
    copy2d(c, p, m, n, H, ldh, A, lda, cudaMemcpyHostToDevice, "copy to the device");
    ec_cu_ok(c, cudaStreamSynchronize(c->cur), "copy to the device");
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
        ec_fail(c, LS_EDEVICE, "cuSOLVER getrf setup on cuda:%d: status %d", c->device, (int)st);
        return 0;
    }
    size_t bytes = (size_t)lw * ec_esz(p);
    if (bytes > c->pws_bytes) {
        cudaFree(c->pws);
        c->pws = NULL;
        c->pws_bytes = 0;
        if (!ec_cu_ok(c, cudaMalloc(&c->pws, bytes), "panel workspace"))
            return 0;
        c->pws_bytes = bytes;
    }
    if (n + 1 > c->dpiv_cap) {
        cudaFree(c->dpiv);
        c->dpiv = NULL;
        c->dpiv_cap = 0;
        if (!ec_cu_ok(c, cudaMalloc((void **)&c->dpiv, (size_t)(n + 1) * sizeof(int)), "pivots"))
            return 0;
        c->dpiv_cap = n + 1;
    }
    PF_BEGIN(c, K_PANEL);
    st = p == LS_DOUBLE ? cusolverDnDgetrf(c->sh, m, n, A, lda, c->pws, c->dpiv, c->dpiv + n)
                        : cusolverDnSgetrf(c->sh, m, n, A, lda, c->pws, c->dpiv, c->dpiv + n);
    PF_END(c);
    if (st != CUSOLVER_STATUS_SUCCESS) {
        ec_fail(c, LS_EDEVICE, "cuSOLVER getrf on cuda:%d: status %d", c->device, (int)st);
        return 0;
    }
    if (ec_cu_ok(
            c,
            cudaMemcpyAsync(ipiv, c->dpiv, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost, c->cur),
            "pivots") &&
        ec_cu_ok(c,
                 cudaMemcpyAsync(&info, c->dpiv + n, sizeof(int), cudaMemcpyDeviceToHost, c->cur),
                 "info"))
        ec_cu_ok(c, cudaStreamSynchronize(c->cur), "panel");
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
        ec_fail(c, st, "panel LU on cuda:%d: %s", c->device, ls_context_error(c->ls));
        return 0;
    }
    return info;
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
        ec_cu_ok(c, cudaFree(ptr), "cudaFree");
}

/* ---- row moves ---- */

/* The row index lists on the device: room for count entries in c->drows,
 * then lists[i] (n entries each) copied there one after another. Pageable
 * sources: each copy returns once its list has been read. 0 on failure. */
static int index_lists(ce *c, int n, int nlists, const int *const *lists)
{
    const size_t count = (size_t)n * (size_t)nlists;
    if (count > c->drows_cap) {
        cudaFree(c->drows);
        c->drows = NULL;
        c->drows_cap = 0;
        if (!ec_cu_ok(c, cudaMalloc((void **)&c->drows, count * sizeof(int)), "index list"))
            return 0;
        c->drows_cap = count;
    }
    for (int i = 0; i < nlists; ++i)
        if (!ec_cu_ok(c,
                      cudaMemcpyAsync(c->drows + (size_t)i * (size_t)n, lists[i],
                                      (size_t)n * sizeof(int), cudaMemcpyHostToDevice, c->cur),
                      "index list"))
            return 0;
    return 1;
}

static void rows_op(ce *c, ls_precision p, void *X, int ldx, int nranges, const int *c0,
                    const int *nc, int nrows, const int *rows, void *buf, int pack)
{
    if (nrows <= 0 || c->status || !index_lists(c, nrows, 1, &rows))
        return;
    PF_BEGIN(c, K_ROWS);
    ec_cu_ok(c,
             (cudaError_t)ls_dist_k_rows(p == LS_DOUBLE, X, ldx, nranges, c0, nc, nrows, c->drows,
                                         buf, pack, c->cur),
             "k_rows");
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

static int x_move_rows(void *ctx, ls_precision p, void *X, int ldx, int nranges, const int *c0,
                       const int *nc, int nrows, const int *dst, const int *src)
{
    ce *c = ctx;
    if ((size_t)nrows * ec_esz(p) > LS_DIST_K_MOVE_SMEM)
        return 1; /* the caller packs and unpacks */
    const int *lists[2] = {dst, src};
    if (nrows <= 0 || c->status || !index_lists(c, nrows, 2, lists))
        return 0;
    PF_BEGIN(c, K_ROWS);
    ec_cu_ok(c,
             (cudaError_t)ls_dist_k_move(p == LS_DOUBLE, X, ldx, nranges, c0, nc, nrows, c->drows,
                                         c->drows + nrows, c->sms, c->row_moves_regs, c->cur),
             "k_move");
    PF_END(c);
    return 0;
}

/* The look-ahead's panel on its own stream, beside the trailing update. */
static void x_fork(void *ctx)
{
    ce *c = ctx;
    ec_cu_ok(c, cudaEventRecord(c->ev_f, c->s), "cudaEventRecord");
}

static void switch_to(ce *c, cudaStream_t to)
{
    c->cur = to;
    ec_bl_ok(c, cublasSetStream(c->h, to), "cublasSetStream");
    int st = ls_context_set_stream(c->ls, to);
    if (st)
        ec_fail(c, st, "panel stream on cuda:%d: %s", c->device, ls_context_error(c->ls));
}

static void x_use_fork(void *ctx, int on)
{
    ce *c = ctx;
    if (on) {
        ec_cu_ok(c, cudaStreamWaitEvent(c->p, c->ev_f, 0), "cudaStreamWaitEvent");
        switch_to(c, c->p);
    } else {
        ec_cu_ok(c, cudaEventRecord(c->ev_p, c->p), "cudaEventRecord");
        ec_cu_ok(c, cudaStreamWaitEvent(c->s, c->ev_p, 0), "cudaStreamWaitEvent");
        switch_to(c, c->s);
    }
}

static int x_finish(void *ctx, char *msg, size_t len)
{
    ce *c = ctx;
    if (c->cur != c->s)
        switch_to(c, c->s);
    ec_cu_ok(c, cudaStreamSynchronize(c->p), "panel stream");
    ec_cu_ok(c, cudaStreamSynchronize(c->c), "communication stream");
    ec_cu_ok(c, cudaStreamSynchronize(c->s), "compute stream");
    ec_ipc_release(c->irow); /* the other ranks' buffers may be freed after this */
    ec_ipc_release(c->icol);
    ec_pf_report(c);
    if (c->pf) {
        ec_ipc_report(c->irow, c->device);
        ec_ipc_report(c->icol, c->device);
    }
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
    ec_ipc_destroy(c->irow);
    ec_ipc_destroy(c->icol);
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

/* The look-ahead's panel stream at the device's highest priority: its
 * kernels take SMs as the trailing update's blocks retire, instead of
 * queueing behind the whole update (as the single-system LU's panel
 * stream does). LS_DIST_CUDA_PANEL_PRIORITY=0 keeps the default priority,
 * for measuring. */
static cudaError_t panel_stream(cudaStream_t *p)
{
    int least = 0, greatest = 0;
    cudaError_t e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (e != cudaSuccess || !ls_knob_int(LS_KNOB_DIST_CUDA_PANEL_PRIORITY))
        greatest = least;
    return cudaStreamCreateWithPriority(p, cudaStreamNonBlocking, greatest);
}

int ls_dist_cuda_open(int abi, int device, MPI_Comm grid, MPI_Comm row, MPI_Comm col, int transport,
                      ls_dist_engine **out, char *err, size_t errlen)
{
    *out = NULL;
    if (abi != LS_DIST_CUDA_ABI) {
        snprintf(err, errlen, "liblinsolve_dist_cuda speaks ABI %d, not %d", LS_DIST_CUDA_ABI, abi);
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
    int distinct = ec_devices_distinct(grid, device);
    c->use_nccl =
        transport == LS_DIST_TRANSPORT_NCCL || (transport == LS_DIST_TRANSPORT_AUTO && distinct);
    if (ec_cu_ok(c, cudaSetDevice(device), "cudaSetDevice") &&
        ec_cu_ok(c, cudaStreamCreateWithFlags(&c->s, cudaStreamNonBlocking), "cudaStreamCreate") &&
        ec_cu_ok(c, cudaStreamCreateWithFlags(&c->c, cudaStreamNonBlocking), "cudaStreamCreate") &&
        ec_cu_ok(c, panel_stream(&c->p), "cudaStreamCreate") &&
        ec_cu_ok(c, cudaEventCreateWithFlags(&c->ev_f, cudaEventDisableTiming),
                 "cudaEventCreate") &&
        ec_cu_ok(c, cudaEventCreateWithFlags(&c->ev_p, cudaEventDisableTiming),
                 "cudaEventCreate") &&
        ec_cu_ok(c, cudaEventCreateWithFlags(&c->ev_s, cudaEventDisableTiming),
                 "cudaEventCreate") &&
        ec_cu_ok(c, cudaEventCreateWithFlags(&c->ev_c, cudaEventDisableTiming),
                 "cudaEventCreate") &&
        ec_cu_ok(c, cudaMallocHost((void **)&c->pin, STAGE_CHUNK), "cudaMallocHost") &&
        ec_bl_ok(c, cublasCreate(&c->h), "cublasCreate") &&
        ec_bl_ok(c, cublasSetStream(c->h, c->s), "cublasSetStream")) {
        int st = ls_context_create(&c->ls, LS_BACKEND_CUDA, device);
        if (st == 0)
            st = ls_context_set_stream(c->ls, c->s);
        if (st)
            ec_fail(c, st, "liblinsolve's CUDA context on device %d: %s", device,
                    c->ls ? ls_context_error(c->ls) : "not created");
    }
    c->cur = c->s;
    c->panel_cusolver = ls_knob_is(LS_KNOB_DIST_CUDA_PANEL, "cusolver");
    c->trsm_block = (int)ls_knob_int(LS_KNOB_DIST_CUDA_TRSM_BLOCK);
    c->row_moves_regs = !ls_knob_is(LS_KNOB_CUDA_ROW_MOVES, "smem");
    if (c->panel_cusolver && !c->status && cusolverDnCreate(&c->sh) != CUSOLVER_STATUS_SUCCESS)
        ec_fail(c, LS_EDEVICE, "cusolverDnCreate on cuda:%d failed", device);
    if (ls_knob_int(LS_KNOB_DIST_CUDA_PROFILE))
        c->pf = calloc(1, sizeof *c->pf);
    if (c->use_nccl) {
        int ok = c->status == 0, all = 0; /* NCCL's init waits for every rank: agree first */
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, grid);
        if (all) {
            ec_nccl_comm(c, row, &c->nrow);
            ec_nccl_comm(c, col, &c->ncol);
            /* collective: only where every rank asks for it */
            int ipc = ls_knob_is(LS_KNOB_DIST_CUDA_BCAST, "ipc"), every = 0;
            MPI_Allreduce(&ipc, &every, 1, MPI_INT, MPI_MIN, grid);
            if (every) {
                c->irow = ec_ipc_open(c, row);
                c->icol = ec_ipc_open(c, col);
            }
        }
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        snprintf(prop.name, sizeof prop.name, "?");
        prop.multiProcessorCount = 1;
    }
    c->sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    snprintf(c->name, sizeof c->name, "cuda:%d %s, %s", device, prop.name,
             !c->use_nccl                ? "host-staged mpi"
             : c->irow || c->icol        ? "nccl, broadcasts by copy engines (ipc)"
                                         : "nccl");
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
    ec_blas_slots(e);
    e->lacpy = x_lacpy;
    e->destroy = x_destroy;
    e->getrf = x_getrf;
    e->host_memory = 0;
    e->ws_alloc = x_ws_alloc;
    e->ws_free = x_ws_free;
    e->get = x_get;
    e->set = x_set;
    e->bcast = ec_bcast;
    e->wait = ec_wait;
    e->reduce_sum = ec_reduce_sum;
    e->pack_rows = x_pack_rows;
    e->unpack_rows = x_unpack_rows;
    e->move_rows = x_move_rows;
    e->alltoallv = ec_alltoallv;
    e->finish = x_finish;
    e->fork = x_fork;
    e->use_fork = x_use_fork;
    *out = e;
    return 0;
}
