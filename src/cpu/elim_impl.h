/*
 * Gaussian elimination (Li 2025, Algorithm 1) and the two Gauss-Jordan
 * models of Quispe Ccapacca on the augmented system [A | B], precision-generic
 * (see real_macros.h). Included by elim.c once per precision.
 * Defines: ls_cpu_ge_eliminate_d, ls_cpu_ge_eliminate_s,
 *   ls_cpu_back_substitute_d, ls_cpu_back_substitute_s, ls_cpu_gj1_forward_d,
 *   ls_cpu_gj1_forward_s, ls_cpu_gj1_backward_d, ls_cpu_gj1_backward_s,
 *   ls_cpu_gj2_refine_d, ls_cpu_gj2_refine_s, ls_cpu_gj2_d, ls_cpu_gj2_s
 *
 * Both sources write the loops row by row; here the same arithmetic runs in
 * column order, which is the unit-stride order for column-major storage.
 * A zero pivot (exactly 0 after the row exchange) is recorded as LAPACK
 * info, its column is skipped, and the elimination runs to the end.
 */
#include "common/real_macros.h"

static inline REAL FN(elim_abs)(REAL x)
{
    return x < 0 ? -x : x;
}

/* Row of the largest |A(i,k)|, i >= k (the first one on ties, as idamax). */
static int FN(find_pivot_row)(int n, int k, const REAL *A, int lda)
{
    const REAL *col = A + (size_t)k * lda;
    int p = k;
    REAL best = FN(elim_abs)(col[k]);
    for (int i = k + 1; i < n; i++)
        if (FN(elim_abs)(col[i]) > best) {
            best = FN(elim_abs)(col[i]);
            p = i;
        }
    return p;
}

/* Swap rows k and p of A (columns c0..n-1) and of B. */
static void FN(swap_aug_rows)(int n, int nrhs, int k, int p, int c0, REAL *A, int lda, REAL *B,
                              int ldb)
{
    for (int j = c0; j < n; j++) {
        REAL *c = A + (size_t)j * lda;
        REAL t = c[k];
        c[k] = c[p];
        c[p] = t;
    }
    for (int j = 0; j < nrhs; j++) {
        REAL *c = B + (size_t)j * ldb;
        REAL t = c[k];
        c[k] = c[p];
        c[p] = t;
    }
}

/* Rows lo..hi-1 of [A|B], columns k+1.. : row_i -= mult_i * row_k, where
 * the multipliers sit in column k (A(i,k)). */
static void FN(update_rows)(int n, int nrhs, int k, int lo, int hi, REAL *A, int lda, REAL *B,
                            int ldb)
{
    const REAL *mult = A + (size_t)k * lda;
    for (int j = k + 1; j < n; j++) {
        REAL *c = A + (size_t)j * lda;
        REAL pk = c[k];
        if (pk != 0)
            for (int i = lo; i < hi; i++)
                c[i] -= mult[i] * pk;
    }
    for (int j = 0; j < nrhs; j++) {
        REAL *c = B + (size_t)j * ldb;
        REAL pk = c[k];
        if (pk != 0)
            for (int i = lo; i < hi; i++)
                c[i] -= mult[i] * pk;
    }
}

/* Algorithm 1 of Li (2025), single thread on purpose (the report's CPU
 * baseline). On return A holds U above the diagonal (multipliers below),
 * B the reduced right-hand sides. */
int FN(ls_cpu_ge_eliminate)(int n, int nrhs, REAL *A, int lda, REAL *B, int ldb, int *ipiv,
                            int pivot)
{
    int info = 0;
    for (int k = 0; k < n; k++) {
        int p = pivot ? FN(find_pivot_row)(n, k, A, lda) : k;
        ipiv[k] = p + 1;
        if (p != k)
            FN(swap_aug_rows)(n, nrhs, k, p, 0, A, lda, B, ldb);
        REAL *col = A + (size_t)k * lda;
        if (col[k] == 0) {
            if (!info)
                info = k + 1;
            continue;
        }
        for (int i = k + 1; i < n; i++)
            col[i] /= col[k];
        FN(update_rows)(n, nrhs, k, k + 1, n, A, lda, B, ldb);
    }
    return info;
}

/* X = U^{-1} B, column-oriented; U must have a nonzero diagonal. */
void FN(ls_cpu_back_substitute)(int n, int nrhs, const REAL *A, int lda, REAL *B, int ldb)
{
    for (int c = 0; c < nrhs; c++) {
        REAL *b = B + (size_t)c * ldb;
        for (int k = n - 1; k >= 0; k--) {
            const REAL *uk = A + (size_t)k * lda;
            b[k] /= uk[k];
            REAL x = b[k];
            if (x != 0)
                for (int i = 0; i < k; i++)
                    b[i] -= uk[i] * x;
        }
    }
}

/* Split rows lo..hi-1 into nearly equal chunks, one per thread: "OpenMP over
 * rows" with each chunk still walked column by column. */
static void FN(chunk)(int lo, int hi, int part, int parts, int *a, int *b)
{
    long long len = hi - lo;
    *a = lo + (int)(len * part / parts);
    *b = lo + (int)(len * (part + 1) / parts);
}

/* Every pivot step needs a barrier (the next pivot search reads the whole
 * updated column). A barrier costs far more than a small step's work, and on
 * a loaded machine a spinning thread can wait a whole time slice for one
 * that was descheduled; so steps whose active block is smaller than
 * GJ_SEQ_TAIL rows/columns run on one thread, after the parallel region. */
#define GJ_SEQ_TAIL 256

/* Pivot choice and row exchange for step k; returns 1 if the pivot is zero. */
static int FN(pivot_step)(int n, int nrhs, int k, REAL *A, int lda, REAL *B, int ldb, int *ipiv,
                          int pivot)
{
    int p = pivot ? FN(find_pivot_row)(n, k, A, lda) : k;
    ipiv[k] = p + 1;
    /* Columns left of k hold nothing either model reads again. */
    if (p != k)
        FN(swap_aug_rows)(n, nrhs, k, p, k, A, lda, B, ldb);
    return A[k + (size_t)k * lda] == 0;
}

/* Model 1, forward step k on rows lo..hi-1 (all > k). */
static void FN(gj1_rows)(int n, int nrhs, int k, int lo, int hi, REAL *A, int lda, REAL *B,
                         int ldb)
{
    REAL *col = A + (size_t)k * lda;
    for (int i = lo; i < hi; i++)
        col[i] /= col[k];
    FN(update_rows)(n, nrhs, k, lo, hi, A, lda, B, ldb);
}

/* Gauss-Jordan's pivot loop, both models: per pivot, the pivot step (one
 * thread; model 2 also normalises the pivot row), then the rows it clears
 * shared among the threads -- model 1: the rows below it (forward
 * elimination to upper triangular over [A|B], ge's arithmetic); model 2:
 * every other row. The last GJ_SEQ_TAIL pivots run outside the parallel
 * region. Returns info (the first zero pivot's column). */
static void FN(gj2_rows)(int n, int nrhs, int k, int lo, int hi, REAL *A, int lda, REAL *B,
                         int ldb);
static void FN(gj2_normalise)(int n, int nrhs, int k, REAL *A, int lda, REAL *B, int ldb);
static int FN(gj_pivot)(int model, int n, int nrhs, int k, REAL *A, int lda, REAL *B, int ldb,
                        int *ipiv, int pivot)
{
    int zero = FN(pivot_step)(n, nrhs, k, A, lda, B, ldb, ipiv, pivot);
    if (!zero && model == 2)
        FN(gj2_normalise)(n, nrhs, k, A, lda, B, ldb);
    return zero;
}
static void FN(gj_rows)(int model, int n, int nrhs, int k, int lo, int hi, REAL *A, int lda,
                        REAL *B, int ldb)
{
    if (model == 1)
        FN(gj1_rows)(n, nrhs, k, lo, hi, A, lda, B, ldb);
    else
        FN(gj2_rows)(n, nrhs, k, lo, hi, A, lda, B, ldb);
}
static int FN(gj_sweep)(int model, int n, int nrhs, REAL *A, int lda, REAL *B, int ldb, int *ipiv,
                        int pivot)
{
    int info = 0;
    int kpar = n - GJ_SEQ_TAIL > 0 ? n - GJ_SEQ_TAIL : 0;
#pragma omp parallel if (kpar > 0)
    for (int k = 0; k < kpar; k++) {
        int zero;
#pragma omp single copyprivate(zero)
        {
            zero = FN(gj_pivot)(model, n, nrhs, k, A, lda, B, ldb, ipiv, pivot);
            if (zero && !info)
                info = k + 1;
        }
        if (zero)
            continue;
        int lo, hi;
        FN(chunk)(model == 1 ? k + 1 : 0, n, omp_get_thread_num(), omp_get_num_threads(), &lo,
                  &hi);
        FN(gj_rows)(model, n, nrhs, k, lo, hi, A, lda, B, ldb);
#pragma omp barrier
    }
    for (int k = kpar; k < n; k++) {
        if (FN(gj_pivot)(model, n, nrhs, k, A, lda, B, ldb, ipiv, pivot)) {
            if (!info)
                info = k + 1;
            continue;
        }
        FN(gj_rows)(model, n, nrhs, k, model == 1 ? k + 1 : 0, n, A, lda, B, ldb);
    }
    return info;
}

/* Gauss-Jordan model 1, phase 1: forward elimination to upper triangular. */
int FN(ls_cpu_gj1_forward)(int n, int nrhs, REAL *A, int lda, REAL *B, int ldb, int *ipiv,
                           int pivot)
{
    return FN(gj_sweep)(1, n, nrhs, A, lda, B, ldb, ipiv, pivot);
}

/* Gauss-Jordan model 1, phase 2: from the last pivot up, normalise the
 * pivot row and clear the column above it. Only B changes numerically: the
 * part of A right of each pivot is already zero in the rows below, so A's
 * upper triangle is read, never rewritten. Leaves X in B. The work is only
 * n^2 nrhs, so threads (over rows) pay off only with many right-hand sides. */
void FN(ls_cpu_gj1_backward)(int n, int nrhs, REAL *A, int lda, REAL *B, int ldb)
{
#pragma omp parallel if ((size_t)n * nrhs >= 65536)
    for (int k = n - 1; k >= 0; k--) {
        const REAL *col = A + (size_t)k * lda;
        int parts = omp_get_num_threads(), lo, hi;
        FN(chunk)(0, k, omp_get_thread_num(), parts, &lo, &hi);
        for (int c = 0; c < nrhs; c++) {
            REAL *b = B + (size_t)c * ldb;
            REAL x = b[k] / col[k];
            for (int i = lo; i < hi; i++)
                b[i] -= col[i] * x;
        }
#pragma omp barrier
#pragma omp single
        for (int c = 0; c < nrhs; c++)
            B[k + (size_t)c * ldb] /= col[k];
        /* the single's barrier: row k is final before the next step reads it */
    }
}

/* Model 2, step k on rows lo..hi-1 (any rows but k): clear column k using
 * the normalised pivot row. The multipliers stay in column k (nothing reads
 * that column again), so the reduction can be replayed on a residual. */
static void FN(gj2_rows)(int n, int nrhs, int k, int lo, int hi, REAL *A, int lda, REAL *B,
                         int ldb)
{
    if (lo <= k && k < hi) {
        FN(update_rows)(n, nrhs, k, lo, k, A, lda, B, ldb);
        FN(update_rows)(n, nrhs, k, k + 1, hi, A, lda, B, ldb);
    } else {
        FN(update_rows)(n, nrhs, k, lo, hi, A, lda, B, ldb);
    }
}

/* Normalise pivot row k of [A|B] (columns k+1..); the pivot itself stays on
 * the diagonal for the replay. */
static void FN(gj2_normalise)(int n, int nrhs, int k, REAL *A, int lda, REAL *B, int ldb)
{
    REAL r = A[k + (size_t)k * lda];
    for (int j = k + 1; j < n; j++)
        A[k + (size_t)j * lda] /= r;
    for (int j = 0; j < nrhs; j++)
        B[k + (size_t)j * ldb] /= r;
}

/* Replay a finished model-2 reduction (pivots on F's diagonal, multipliers
 * off it, interchanges in ipiv) on R: R = A^-1 R in O(n^2) per column. */
static void FN(gj2_replay)(int n, int nrhs, const REAL *F, int ldf, const int *ipiv, REAL *R,
                           int ldr)
{
    for (int c = 0; c < nrhs; c++) {
        REAL *r = R + (size_t)c * ldr;
        for (int k = 0; k < n; k++) {
            const REAL *col = F + (size_t)k * ldf;
            int p = ipiv[k] - 1;
            REAL t = r[k];
            r[k] = r[p];
            r[p] = t;
            REAL rk = r[k] /= col[k];
            if (rk == 0)
                continue;
            for (int i = 0; i < n; i++)
                if (i != k)
                    r[i] -= col[i] * rk;
        }
    }
}

/* Scaled residual of X (working precision's eps), residual R = B - A X
 * accumulated in double. */
static double FN(residual)(int n, int nrhs, const REAL *A, int lda, const REAL *B, int ldb,
                           const REAL *X, int ldx, REAL *R, int ldr)
{
    double anorm = 0, xnorm = 0, rnorm = 0;
    double *acc = malloc(sizeof(double) * (size_t)n);
    if (!acc)
        return INFINITY;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += fabs((double)A[i + (size_t)j * lda]);
        anorm = s > anorm ? s : anorm;
    }
    for (int c = 0; c < nrhs; c++) {
        const REAL *x = X + (size_t)c * ldx;
        for (int i = 0; i < n; i++)
            acc[i] = B[i + (size_t)c * ldb];
        for (int j = 0; j < n; j++) {
            const REAL *a = A + (size_t)j * lda;
            double xj = x[j];
            for (int i = 0; i < n; i++)
                acc[i] -= (double)a[i] * xj;
        }
        for (int i = 0; i < n; i++) {
            R[i + (size_t)c * ldr] = (REAL)acc[i];
            rnorm = fabs(acc[i]) > rnorm ? fabs(acc[i]) : rnorm;
            xnorm = fabs((double)x[i]) > xnorm ? fabs((double)x[i]) : xnorm;
        }
    }
    free(acc);
    if (rnorm == 0)
        return 0;
    if (!(rnorm == rnorm))
        return INFINITY;
    return rnorm / ((double)n * anorm * xnorm * (sizeof(REAL) == sizeof(float) ? 0x1p-24 : 0x1p-53));
}

/* Gauss-Jordan is forward stable but not backward stable (Peters and
 * Wilkinson): on nnc1374 (cond 3.7e14) model 2 leaves a scaled residual of
 * 3e6. When the residual of X is above LS_GJ_REFINE_AT, up to
 * LS_GJ_REFINE_STEPS steps of iterative refinement (residual in double,
 * correction by replaying the reduction) bring it back; a step that does not
 * reduce the residual is undone. Returns the steps kept, or -1 when out of
 * memory (X is then left as it was). */
int FN(ls_cpu_gj2_refine)(int n, int nrhs, const REAL *A0, int lda0, const REAL *B0, int ldb0,
                          const REAL *F, int ldf, const int *ipiv, REAL *X, int ldx)
{
    size_t count = (size_t)n * nrhs;
    REAL *R = malloc(sizeof(REAL) * count), *keep = malloc(sizeof(REAL) * count);
    int kept = 0;
    if (!R || !keep) {
        free(R);
        free(keep);
        return -1;
    }
    double res = FN(residual)(n, nrhs, A0, lda0, B0, ldb0, X, ldx, R, n);
    for (int step = 0; step < LS_GJ_REFINE_STEPS && res > LS_GJ_REFINE_AT; step++) {
        for (int c = 0; c < nrhs; c++)
            memcpy(keep + (size_t)c * n, X + (size_t)c * ldx, sizeof(REAL) * (size_t)n);
        FN(gj2_replay)(n, nrhs, F, ldf, ipiv, R, n);
        for (int c = 0; c < nrhs; c++)
            for (int i = 0; i < n; i++)
                X[i + (size_t)c * ldx] += R[i + (size_t)c * n];
        double next = FN(residual)(n, nrhs, A0, lda0, B0, ldb0, X, ldx, R, n);
        if (!(next < res)) {
            for (int c = 0; c < nrhs; c++)
                memcpy(X + (size_t)c * ldx, keep + (size_t)c * n, sizeof(REAL) * (size_t)n);
            break;
        }
        res = next;
        kept++;
    }
    free(R);
    free(keep);
    return kept;
}

/* Gauss-Jordan model 2: one pass; for each pivot, exchange rows, normalise
 * the pivot row and clear the pivot column above and below. A ends with the
 * pivots on its diagonal and the multipliers off it (the identity is
 * implied), B as X. */
int FN(ls_cpu_gj2)(int n, int nrhs, REAL *A, int lda, REAL *B, int ldb, int *ipiv, int pivot)
{
    return FN(gj_sweep)(2, n, nrhs, A, lda, B, ldb, ipiv, pivot);
}

#undef GJ_SEQ_TAIL
