/* Internals of the CUDA local engine (engine_cuda.c, engine_cuda_blas.c,
 * engine_cuda_comm.c, engine_cuda_util.c): its state, failures, profile and transport. */
#ifndef LS_DIST_ENGINE_CUDA_IMPL_H
#define LS_DIST_ENGINE_CUDA_IMPL_H

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
typedef struct prof {
    cudaEvent_t *ev; /* pairs */
    int *kind;
    int n, cap;
} prof;

typedef struct ec_ipc ec_ipc; /* engine_cuda_ipc.c */

typedef struct ce {
    ls_dist_engine e; /* first: the table's context is this struct */
    int device, use_nccl;
    int sms; /* the device's SM count, for the grids of k_dist.cu */
    cudaStream_t s, c, p; /* compute; communication; the look-ahead's panel */
    cudaStream_t cur;     /* where compute work goes now: s, or p between use_fork */
    cudaEvent_t ev_s, ev_c, ev_f, ev_p;
    cublasHandle_t h;
    ls_context *ls;
    MPI_Comm row, col;
    ncclComm_t nrow, ncol;
    ec_ipc *irow, *icol; /* broadcasts by the copy engines (NULL: LS_DIST_CUDA_BCAST=nccl, several hosts) */
    char *pin; /* pinned staging, STAGE_CHUNK bytes */
    int *drows;
    size_t drows_cap;
    int status;
    char msg[200], name[160];
    prof *pf; /* NULL unless LS_DIST_CUDA_PROFILE=1 */
    /* LS_DIST_CUDA_PANEL=cusolver: tall panels by cuSOLVER's getrf, not
     * liblinsolve's device LU (the default) */
    int panel_cusolver;
    int trsm_block;     /* LS_DIST_CUDA_TRSM_BLOCK: L11^-1 A12 in diagonal blocks this wide */
    int row_moves_regs; /* LS_CUDA_ROW_MOVES: in-place row moves by k_row_moves.cuh's kernel */
    cusolverDnHandle_t sh;
    void *pws;
    size_t pws_bytes;
    int *dpiv; /* n pivots, then info */
    int dpiv_cap;
} ce;

static inline size_t ec_esz(ls_precision p)
{
    return p == LS_DOUBLE ? sizeof(double) : sizeof(float);
}

/* The first failure is kept (sticky) and reported by finish. */
void ec_fail(ce *c, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int ec_cu_ok(ce *c, cudaError_t e, const char *what);
int ec_bl_ok(ce *c, cublasStatus_t st, const char *what);
int ec_nc_ok(ce *c, ncclResult_t r, const char *what);

/* The profile's event pairs: begin with a kind, end with any. */
void ec_pf_mark(ce *c, int kind, cudaStream_t st);
void ec_pf_report(ce *c);
#define PF_BEGIN(c, k) ec_pf_mark((c), (k), (c)->cur)
#define PF_END(c) ec_pf_mark((c), 0, (c)->cur)

/* The BLAS slots of the table (engine_cuda_blas.c): gemm_sub, trsm,
 * ger_sub, scal_inv, iamax, gemm_tn, trsm_t. */
void ec_blas_slots(ls_dist_engine *e);

/* The transport (engine_cuda_comm.c): the table's bcast, wait, reduce_sum,
 * and NCCL's setup. */
int ec_bcast(void *ctx, void *buf, size_t bytes, int root, MPI_Comm comm, ls_dist_req *req);
int ec_wait(void *ctx, ls_dist_req *req);
int ec_alltoallv(void *ctx, ls_precision p, const void *sbuf, const int *sc, const int *sd,
                 void *rbuf, const int *rc, const int *rd, MPI_Comm comm);
int ec_reduce_sum(void *ctx, ls_precision p, void *buf, size_t count, int root, MPI_Comm comm);
int ec_devices_distinct(MPI_Comm grid, int device);
int ec_nccl_comm(ce *c, MPI_Comm comm, ncclComm_t *out);

/* Broadcasts by the copy engines through CUDA IPC (engine_cuda_ipc.c):
 * open is collective over comm and gives NULL where a rank cannot;
 * ec_ipc_bcast returns 1 when queued, 0 when the ranks fall back to NCCL
 * for this one; release closes the buffers mapped so far. */
ec_ipc *ec_ipc_open(ce *c, MPI_Comm comm);
int ec_ipc_bcast(ce *c, ec_ipc *x, void *buf, size_t bytes, int root);
void ec_ipc_release(ec_ipc *x);
void ec_ipc_destroy(ec_ipc *x);
/* LS_DIST_CUDA_PROFILE: the host's time in mapping and in MPI, since the last report */
void ec_ipc_report(ec_ipc *x, int device);

#endif
