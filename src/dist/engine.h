/*
 * The local engine: every operation pdgetrf / pdgetrs do on a rank's own
 * blocks, behind a table of function pointers (the ggml backend pattern),
 * so that the distributed algorithm (communication, bookkeeping) never names
 * a BLAS. engine_cpu.c is the CBLAS engine; src/dist/cuda/engine_cuda.c the
 * CUDA one (blocks in device memory, NCCL for the transport).
 *
 * Every slot takes the engine's context first and the precision second;
 * matrices are column-major blocks with a leading dimension, addressed as
 * void * so that one table serves float and double.
 *
 * From version 3 the engine also says where its memory is and moves it
 * between ranks itself (bcast, reduce_sum): a CPU engine hands host arrays
 * to MPI, the CUDA engine (src/dist/cuda/) device buffers to NCCL. The
 * algorithm touches engine memory only through the table when host_memory
 * is 0, and keeps its bookkeeping (pivots, headers) in host memory.
 */
#ifndef LS_DIST_ENGINE_H
#define LS_DIST_ENGINE_H

#include <stddef.h>

#include <mpi.h>

#include "linsolve.h"

#define LS_DIST_ENGINE_API_VERSION 5

/* A transfer left running (look-ahead): the CPU engine's MPI request, or
 * whatever a device engine records (an event). */
typedef struct ls_dist_req {
    MPI_Request mpi;
    void *dev;
    int active;
} ls_dist_req;

typedef struct ls_dist_engine {
    int api_version;
    const char *name;
    void *context;
    /* C -= A B (m x k times k x n): the trailing update */
    void (*gemm_sub)(void *ctx, ls_precision p, int m, int n, int k, const void *A, int lda,
                     const void *B, int ldb, void *C, int ldc);
    /* B = T^-1 B, T m x m: uplo 'L' unit lower (L11), 'U' non-unit upper (U11) */
    void (*trsm)(void *ctx, ls_precision p, char uplo, int m, int n, const void *T, int ldt,
                 void *B, int ldb);
    /* A -= x y^T (m x n; y has unit stride): the panel's rank-1 update */
    void (*ger_sub)(void *ctx, ls_precision p, int m, int n, const void *x, const void *y, void *A,
                    int lda);
    /* x /= pivot, as LAPACK's getf2 does it (a reciprocal unless it would overflow) */
    void (*scal_inv)(void *ctx, ls_precision p, int n, double pivot, void *x);
    /* index of the first largest |x_i|, -1 when n == 0 */
    int (*iamax)(void *ctx, ls_precision p, int n, const void *x);
    /* B = A (m x n blocks, any leading dimensions; m = 1 copies a strided row) */
    void (*lacpy)(void *ctx, ls_precision p, int m, int n, const void *A, int lda, void *B, int ldb);
    /* optional: releases context; NULL means nothing to release */
    void (*destroy)(void *ctx);
    /* optional: LAPACK's getrf on a local m x n block (ipiv 1-based, the
     * return is LAPACK's info); a panel that one rank holds whole is
     * factored by it at BLAS-3 speed. NULL: column by column. */
    int (*getrf)(void *ctx, ls_precision p, int m, int n, void *A, int lda, int *ipiv);
    /* optional (version 2): C = alpha A^T B + beta C (A k x m, B k x n; k may
     * be 0, then C = beta C): a rank's share of the transposed solve's
     * update. NULL: getrs with trans 'T' / 'C' returns LS_EUNSUPPORTED. */
    void (*gemm_tn)(void *ctx, ls_precision p, int m, int n, int k, double alpha, const void *A,
                    int lda, const void *B, int ldb, double beta, void *C, int ldc);
    /* optional (version 2): B = T^-T B, T as in trsm ('L' unit lower, 'U'
     * non-unit upper). NULL: as gemm_tn. */
    void (*trsm_t)(void *ctx, ls_precision p, char uplo, int m, int n, const void *T, int ldt,
                   void *B, int ldb);

    /* version 3 */
    int host_memory; /* 1: engine memory is host memory the algorithm may touch */
    /* workspace in engine memory; NULL when it cannot be had */
    void *(*ws_alloc)(void *ctx, size_t bytes);
    void (*ws_free)(void *ctx, void *ptr);
    /* m x n blocks between host memory H and engine memory A; both return
     * when the copy is complete */
    void (*get)(void *ctx, ls_precision p, int m, int n, const void *A, int lda, void *H, int ldh);
    void (*set)(void *ctx, ls_precision p, int m, int n, const void *H, int ldh, void *A, int lda);
    /* bytes of engine memory from root to every rank of comm (the grid's
     * row or column communicator). req NULL: later slots see the data;
     * else it may still run until wait(req). 0 or an LS_E* status. */
    int (*bcast)(void *ctx, void *buf, size_t bytes, int root, MPI_Comm comm, ls_dist_req *req);
    int (*wait)(void *ctx, ls_dist_req *req);
    /* buf (count entries) summed over comm into root's buf */
    int (*reduce_sum)(void *ctx, ls_precision p, void *buf, size_t count, int root, MPI_Comm comm);
    /* out row i (width entries, contiguous) = local row rows[i] of X over
     * the column ranges c0[r] .. c0[r]+nc[r]-1; unpack_rows the reverse.
     * rows is host memory; out and X engine memory. */
    void (*pack_rows)(void *ctx, ls_precision p, const void *X, int ldx, int nranges,
                      const int *c0, const int *nc, int nrows, const int *rows, void *out);
    void (*unpack_rows)(void *ctx, ls_precision p, const void *in, int nranges, const int *c0,
                        const int *nc, int nrows, const int *rows, void *X, int ldx);
    /* optional: local row i of X becomes the old local row src[i] (for i in
     * dst), over the column ranges, in place: the interchanges of one
     * process row without a pack and an unpack (each entry read and
     * written once). dst and src are host memory and hold the same rows.
     * Returns 0, or nonzero when it cannot take that many rows (the caller
     * then packs). NULL: pack_rows then unpack_rows. */
    int (*move_rows)(void *ctx, ls_precision p, void *X, int ldx, int nranges, const int *c0,
                      const int *nc, int nrows, const int *dst, const int *src);
    /* optional: fork() marks the work queued so far; use_fork(1) sends
     * what follows to a second queue that starts there, so it runs beside
     * the work queued on the first in between (the look-ahead's panel
     * beside the trailing update on one GPU); use_fork(0) returns to the
     * first queue, which then waits for the second. NULL: one queue. */
    void (*fork)(void *ctx);
    void (*use_fork)(void *ctx, int on);
    /* waits for the engine's queued work: 0, or the first failure it met
     * (an LS_E* status, described in msg) */
    int (*finish)(void *ctx, char *msg, size_t len);
    /* optional (version 5): an all-to-all of engine memory over comm (the
     * interchanges between process rows): sc[q] entries of sbuf from
     * offset sd[q] go to rank q, rc[q] entries into rbuf at rd[q] come
     * from rank q (counts and offsets in entries of p), queued like bcast
     * with req NULL. Returns 0, or nonzero when it cannot (ranks sharing a
     * device), and the caller goes through host memory and MPI. NULL: the
     * same. */
    int (*alltoallv)(void *ctx, ls_precision p, const void *sbuf, const int *sc, const int *sd,
                     void *rbuf, const int *rc, const int *rd, MPI_Comm comm);
} ls_dist_engine;

/* The CPU engine (CBLAS); static, nothing to destroy. */
const ls_dist_engine *ls_dist_engine_cpu(void);

#endif
