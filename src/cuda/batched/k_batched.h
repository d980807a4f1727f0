/*
 * C interface of the batched LU kernels (k_batched_*.cu), used by the
 * driver batched.c. Every launcher that touches matrix data comes as _d
 * (double) and _s (float), declared from one signature macro (typed.h);
 * it takes the stack's device pointers (A and B hold that precision) and a
 * stream, and returns cudaGetLastError() after its launch.
 *
 * Element (i, j) of system b's matrix is A[b*sA + i*a_rs + j*a_cs], and
 * (i, r) of its right-hand sides B[b*sB + i*b_rs + r*b_cs]: column- and
 * row-major stacks are read and written in place. ipiv (n per system,
 * 1-based) may be NULL: not stored. info[b] is LAPACK's getrf info.
 */
#ifndef LS_CUDA_K_BATCHED_H
#define LS_CUDA_K_BATCHED_H

#include <cuda_runtime_api.h>

#include "cuda/common/typed.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lsk_bstack {
    void *A;
    long long a_rs, a_cs, sA;
    int *ipiv;
    void *B;
    long long b_rs, b_cs, sB;
    int *info;
    int n, batch;
} lsk_bstack;

/* ---- n <= 8: a matrix per thread, in its registers (k_batched_thread.cu) ---- */
#define LSK_BTHREAD_MAXN 8
#define LSK_BTHREAD_MAXRHS 2 /* right-hand sides solved in the same pass */
/* As lsk_bwarp_lu, for n <= LSK_BTHREAD_MAXN and nrhs <= LSK_BTHREAD_MAXRHS. */
#define LSK_BTHREAD_LU_SIG(T, S) \
    cudaError_t lsk_bthread_lu_##S(const lsk_bstack *st, int nrhs, cudaStream_t s)
LSK_DECLARE(LSK_BTHREAD_LU_SIG); /* lsk_bthread_lu_d, lsk_bthread_lu_s */

/* ---- n <= 32: a matrix per NP lanes, rows in registers (k_batched_warp.cu) ---- */
#define LSK_BWARP_MAXN 32
#define LSK_BWARP_MAXRHS 8 /* right-hand sides solved in the same pass */
/* getrf of every system; with nrhs > 0 (<= LSK_BWARP_MAXRHS) also the
 * solve, whose X is written only where info is 0. */
#define LSK_BWARP_LU_SIG(T, S) \
    cudaError_t lsk_bwarp_lu_##S(const lsk_bstack *st, int nrhs, cudaStream_t s)
LSK_DECLARE(LSK_BWARP_LU_SIG); /* lsk_bwarp_lu_d, lsk_bwarp_lu_s */

/* ---- n <= 128: a matrix per block, rows in registers (k_batched_rows*.cu) ---- */
#define LSK_BROWS_MAXRHS 4 /* right-hand sides solved in the same pass */
/* As lsk_bwarp_lu, for n <= 64 (rows64, both precisions) or n <= 128
 * (rows128, FP32 only: the _d launcher refuses) and nrhs <=
 * LSK_BROWS_MAXRHS. */
/* Dynamic shared memory a block needs for n (rows64 or rows128) with
 * nrhs fused right-hand sides. */
#define LSK_BROWS_BYTES_SIG(T, S) size_t lsk_brows_bytes_##S(int n, int nrhs)
LSK_DECLARE(LSK_BROWS_BYTES_SIG); /* lsk_brows_bytes_d, lsk_brows_bytes_s */
#define LSK_BROWS64_LU_SIG(T, S) \
    cudaError_t lsk_brows64_lu_##S(const lsk_bstack *st, int nrhs, cudaStream_t s)
LSK_DECLARE(LSK_BROWS64_LU_SIG); /* lsk_brows64_lu_d, lsk_brows64_lu_s */
#define LSK_BROWS128_LU_SIG(T, S) \
    cudaError_t lsk_brows128_lu_##S(const lsk_bstack *st, int nrhs, cudaStream_t s)
LSK_DECLARE(LSK_BROWS128_LU_SIG); /* lsk_brows128_lu_d, lsk_brows128_lu_s */

/* ---- n <= 256: a matrix per block in shared memory (k_batched_smem.cu) ---- */
#define LSK_BSMEM_MAXN 256
#define LSK_BSMEM_THREADS 512 /* at most; 256 up to n = 64 */
/* Dynamic shared memory one block needs for n with nrhs fused columns. */
#define LSK_BSMEM_BYTES_SIG(T, S) size_t lsk_bsmem_bytes_##S(int n, int nrhs)
LSK_DECLARE(LSK_BSMEM_BYTES_SIG); /* lsk_bsmem_bytes_d, lsk_bsmem_bytes_s */
/* As lsk_bwarp_lu; the caller has checked lsk_bsmem_bytes against the
 * device's opt-in limit max_smem. */
#define LSK_BSMEM_LU_SIG(T, S) \
    cudaError_t lsk_bsmem_lu_##S(const lsk_bstack *st, int nrhs, size_t max_smem, cudaStream_t s)
LSK_DECLARE(LSK_BSMEM_LU_SIG); /* lsk_bsmem_lu_d, lsk_bsmem_lu_s */

/* ---- getrs on the factors (k_batched_getrs.cu) ---- */
#define LSK_BGETRS_ROWS_MAXN 1024 /* rows in registers up to this order */
/* op(A) X = B with the factors and pivots of every system; trans 'N' or
 * 'T'; systems whose skip_info entry is nonzero are left alone (skip_info
 * may be NULL). One block per (system, right-hand side): the rows of x in
 * registers up to LSK_BGETRS_ROWS_MAXN, unless smem (then, and above it,
 * x in shared memory). */
#define LSK_BGETRS_SIG(T, S)                                                    \
    cudaError_t lsk_bgetrs_##S(char trans, const lsk_bstack *st, int nrhs, const int *skip_info, \
                               int smem, cudaStream_t s)
LSK_DECLARE(LSK_BGETRS_SIG); /* lsk_bgetrs_d, lsk_bgetrs_s */

/* ---- helpers (k_batched_aux.cu) ---- */
/* ptrs[b] = A + b*sA (elements), for cuBLAS's pointer-array routines. */
#define LSK_BPOINTERS_SIG(T, S) \
    cudaError_t lsk_bpointers_##S(T *A, long long sA, int batch, T **ptrs, cudaStream_t s)
LSK_DECLARE(LSK_BPOINTERS_SIG); /* lsk_bpointers_d, lsk_bpointers_s */
/* Transpose the leading n x n block of every matrix in place (row- to
 * column-major and back). */
#define LSK_BTRANSPOSE_SIG(T, S)                                                             \
    cudaError_t lsk_btranspose_##S(int n, T *A, long long ld, long long sA, int batch, \
                                   cudaStream_t s)
LSK_DECLARE(LSK_BTRANSPOSE_SIG); /* lsk_btranspose_d, lsk_btranspose_s */
/* info[b] = 0 for every system. */
cudaError_t lsk_bzero_info(int *info, int batch, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
