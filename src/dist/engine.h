/*
 * The local engine: every operation pdgetrf / pdgetrs do on a rank's own
 * blocks, behind a table of function pointers (the ggml backend pattern),
 * so that the distributed algorithm (communication, bookkeeping) never names
 * a BLAS. engine_cpu.c is the CBLAS engine; a GPU engine (blocks in device
 * memory, NCCL for the transport) would add its own table beside it.
 *
 * Every slot takes the engine's context first and the precision second;
 * matrices are column-major blocks with a leading dimension, addressed as
 * void * so that one table serves float and double.
 */
#ifndef LS_DIST_ENGINE_H
#define LS_DIST_ENGINE_H

#include "linsolve.h"

#define LS_DIST_ENGINE_API_VERSION 2

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
} ls_dist_engine;

/* The CPU engine (CBLAS); static, nothing to destroy. */
const ls_dist_engine *ls_dist_engine_cpu(void);

#endif
