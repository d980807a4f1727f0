/*
 * Batched getrf / getrs / gesv as the core hands them to a backend's
 * `batched` slot (core/backend.h) or to the CPU fallback (cpu/batched.c).
 *
 * The core has checked the arguments and turned the layout into strides:
 * element (i, j) of a matrix is at base[i*rs + j*cs], so a row-major
 * (C-order) stack is read and written in place; the factorization is P A =
 * L U of A in either layout.
 */
#ifndef LS_CORE_BATCHED_H
#define LS_CORE_BATCHED_H

#include "linsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ls_batched_op { LS_BATCHED_GETRF = 0, LS_BATCHED_GETRS, LS_BATCHED_GESV } ls_batched_op;

typedef struct ls_batched_job {
    ls_batched_op op;
    ls_precision prec;
    int device;        /* 1: every array is device memory (the _gpu API) */
    char trans;        /* getrs: 'N' or 'T' ('C' arrives as 'T') */
    int n, nrhs, batch;
    void *A;           /* element (i, j) of system b at A[b*strideA + i*a_rs + j*a_cs] */
    long long a_rs, a_cs, strideA;
    int *ipiv;         /* n per system, 1-based; NULL only for gesv (not stored) */
    void *B;           /* element (i, r) of system b at B[b*strideB + i*b_rs + r*b_cs] */
    long long b_rs, b_cs, strideB;
    int *info;         /* batch entries */
} ls_batched_job;

/* The CPU fallback (cpu/batched.c): OpenMP threads over the systems. */
int ls_cpu_batched(const ls_batched_job *job, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
