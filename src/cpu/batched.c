/* The CPU's batched getrf / getrs / gesv (core/batched.h): OpenMP threads
 * over the systems. Small systems go through our strided kernels
 * (batched_impl.h), which read row- and column-major stacks in place;
 * from LS_CPU_BATCHED_LAPACK_N up, where blocking pays, the linked LAPACK's
 * getrf factors each one (a row-major matrix through a per-thread
 * column-major copy). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/batched.h"
#include "core/util.h"
#include "cpu_internal.h"

#define LS_REAL_IMPL "cpu/batched_impl.h"
#include "common/instantiate_real.h"

/* Measured on OpenBLAS: its blocked getrf overtakes the unblocked loop
 * around n = 64 and is several times faster at n = 512. */
#define LS_CPU_BATCHED_LAPACK_N 64

typedef struct worker {
    int *piv;     /* n pivots when the caller gives none (gesv) */
    void *square; /* n x n column-major copy for LAPACK */
} worker;

static size_t elem(ls_precision p)
{
    return p == LS_SINGLE ? sizeof(float) : sizeof(double);
}

/* Copy between the strided matrix and a compact column-major one. */
static void copy_square(const ls_batched_job *j, void *M, void *C, int to_compact)
{
    int n = j->n;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++) {
            long long s = (long long)r * j->a_rs + (long long)c * j->a_cs, d = r + (long long)c * n;
            if (j->prec == LS_SINGLE) {
                float *m = M, *q = C;
                if (to_compact) q[d] = m[s]; else m[s] = q[d];
            } else {
                double *m = M, *q = C;
                if (to_compact) q[d] = m[s]; else m[s] = q[d];
            }
        }
}

/* getrf of system A (strided) into ipiv; returns its info. */
static int factor_one(const ls_batched_job *j, void *A, int *ipiv, worker *w)
{
    int n = j->n;
#ifdef LS_HAVE_LAPACKE
    int info = 0;
    if (n >= LS_CPU_BATCHED_LAPACK_N && w->square) {
        int direct = j->a_rs == 1 && j->a_cs <= 0x7fffffff;
        void *M = direct ? A : w->square;
        if (!direct)
            copy_square(j, A, w->square, 1);
        if (ls_cpu_lapack_getrf(j->prec, n, M, direct ? (int)j->a_cs : n, ipiv, &info) == 0) {
            if (!direct)
                copy_square(j, A, w->square, 0);
            return info;
        }
    }
#else
    (void)w;
    (void)copy_square;
#endif
    return j->prec == LS_SINGLE ? ls_cpu_bgetf2_s(n, A, j->a_rs, j->a_cs, ipiv)
                                : ls_cpu_bgetf2_d(n, A, j->a_rs, j->a_cs, ipiv);
}

static void solve_one(const ls_batched_job *j, char trans, const void *A, const int *ipiv,
                      void *B)
{
    if (j->prec == LS_SINGLE)
        ls_cpu_bgetrs_s(trans, j->n, j->nrhs, A, j->a_rs, j->a_cs, ipiv, B, j->b_rs, j->b_cs);
    else
        ls_cpu_bgetrs_d(trans, j->n, j->nrhs, A, j->a_rs, j->a_cs, ipiv, B, j->b_rs, j->b_cs);
}

static void run_one(const ls_batched_job *j, long long b, worker *w)
{
    size_t es = elem(j->prec);
    char *A = (char *)j->A + (size_t)b * (size_t)j->strideA * es;
    char *B = j->B ? (char *)j->B + (size_t)b * (size_t)j->strideB * es : NULL;
    int *ipiv = j->ipiv ? j->ipiv + (size_t)b * (size_t)j->n : w->piv;
    if (j->op == LS_BATCHED_GETRS) {
        solve_one(j, j->trans, A, ipiv, B);
        j->info[b] = 0;
        return;
    }
    int info = factor_one(j, A, ipiv, w);
    j->info[b] = info;
    /* LAPACK's rule per system: no solve after a zero pivot, B kept */
    if (j->op == LS_BATCHED_GESV && info == 0 && j->nrhs > 0)
        solve_one(j, 'N', A, ipiv, B);
}

int ls_cpu_batched(const ls_batched_job *j, char *err, size_t errlen)
{
    if (j->device)
        return LS_FAIL(err, errlen, LS_EUNSUPPORTED,
                       "batched solves on device memory need the CUDA backend");
    if (j->n == 0) {
        for (int b = 0; b < j->batch; b++)
            j->info[b] = 0;
        return 0;
    }
    int failed = 0;
    size_t n = (size_t)j->n;
    /* small systems: many to a thread's turn, so scheduling costs nothing */
    int chunk = j->n < 32 ? 256 : 1;
    double work = (double)j->batch * n * n * n;
#pragma omp parallel if (work > 1e6 && j->batch > 1)
    {
        worker w = {ls_malloc(n * sizeof(int)), NULL};
#ifdef LS_HAVE_LAPACKE
        if (j->op != LS_BATCHED_GETRS && j->n >= LS_CPU_BATCHED_LAPACK_N)
            w.square = malloc(n * n * elem(j->prec)); /* NULL: our kernel instead */
#endif
        if (!w.piv) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, chunk)
        for (int b = 0; b < j->batch; b++)
            if (w.piv)
                run_one(j, b, &w);
        free(w.piv);
        free(w.square);
    }
    if (failed)
        return LS_FAIL(err, errlen, LS_ENOMEM, "batched solve: no memory for %zu pivots", n);
    return 0;
}
