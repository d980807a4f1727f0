/*
 * Blocked right-looking LU with partial pivoting, precision-generic (see
 * real_macros.h). Included by getrf.c once per precision.
 * Defines: ls_cpu_getrf_d, ls_cpu_getrf_s, ls_cpu_getrs_d, ls_cpu_getrs_s
 *
 * Per block column of NB columns: unblocked panel factorization (dgetf2),
 * the panel's row swaps applied to every other column, a unit-lower
 * triangular solve for U12, and the trailing update A22 -= L21 U12 with a
 * packed, register-blocked GEMM parallelised over column panels with OpenMP.
 */
#include "common/real_macros.h"

/* MR x NR is the register block of the GEMM micro-kernel: 4 x 4 doubles or
 * 8 x 4 floats fill 8 SSE registers of accumulators, leaving room for the
 * loads; MC rows of packed L21 (MC x NB) stay in L2 while every column panel
 * of U12 streams past them. */
#define GETRF_MR ((int)(32 / sizeof(REAL)))

static inline REAL FN(absval)(REAL x)
{
    return x < 0 ? -x : x;
}

/* Unblocked LU of rows j0..m-1, columns j0..j0+jb-1 (the panel). Row swaps
 * touch only the panel's columns; the caller applies them elsewhere.
 * Returns the first zero pivot's 1-based column, or 0. */
static int FN(panel_factor)(int m, int j0, int jb, REAL *A, int lda, int *ipiv, int pivot)
{
    const REAL small = sizeof(REAL) == sizeof(float) ? (REAL)FLT_MIN : (REAL)DBL_MIN;
    int info = 0;
    for (int jj = 0; jj < jb; jj++) {
        int j = j0 + jj;
        REAL *col = A + (size_t)j * lda;
        int p = j;
        if (pivot) {
            REAL best = FN(absval)(col[j]);
            for (int i = j + 1; i < m; i++) {
                REAL v = FN(absval)(col[i]);
                if (v > best) {
                    best = v;
                    p = i;
                }
            }
        }
        ipiv[j] = p + 1;
        if (col[p] == 0) {
            if (!info)
                info = j + 1;
            /* Without pivoting the entries below may be nonzero; take their
             * multipliers as zero so the factors stay self-consistent. */
            if (!pivot) {
                for (int i = j + 1; i < m; i++)
                    col[i] = 0;
                continue;
            }
            /* With pivoting (then p == j) they are zeros or NaNs: left
             * unscaled and still applied below, as LAPACK's dgetrf does,
             * so a NaN reaches the trailing matrix there too. */
        } else {
            if (p != j)
                for (int c = j0; c < j0 + jb; c++) {
                    REAL *cc = A + (size_t)c * lda;
                    REAL t = cc[j];
                    cc[j] = cc[p];
                    cc[p] = t;
                }
            REAL piv = col[j];
            /* LAPACK's dgetf2: multiply by the reciprocal unless it would overflow. */
            if (FN(absval)(piv) >= small) {
                REAL r = (REAL)1 / piv;
                for (int i = j + 1; i < m; i++)
                    col[i] *= r;
            } else {
                for (int i = j + 1; i < m; i++)
                    col[i] /= piv;
            }
        }
        for (int c = jj + 1; c < jb; c++) {
            REAL *cc = A + (size_t)(j0 + c) * lda;
            REAL u = cc[j];
            if (u != 0)
                for (int i = j + 1; i < m; i++)
                    cc[i] -= col[i] * u;
        }
    }
    return info;
}

/* Apply the swaps ipiv[j0..j0+jb-1] to columns [c0, c1). */
static void FN(swap_rows)(int c0, int c1, int j0, int jb, REAL *A, int lda, const int *ipiv)
{
#pragma omp parallel for schedule(static) if ((size_t)(c1 - c0) * jb > 4096)
    for (int c = c0; c < c1; c++) {
        REAL *cc = A + (size_t)c * lda;
        for (int j = j0; j < j0 + jb; j++) {
            int p = ipiv[j] - 1;
            if (p != j) {
                REAL t = cc[j];
                cc[j] = cc[p];
                cc[p] = t;
            }
        }
    }
}

/* U12 = L11^{-1} A12 with L11 unit lower (jb x jb at A(j0,j0)). */
static void FN(trsm_lower_unit)(int j0, int jb, int c0, int c1, REAL *A, int lda)
{
    const REAL *L = A + j0 + (size_t)j0 * lda;
#pragma omp parallel for schedule(static) if ((size_t)(c1 - c0) * jb * jb > 65536)
    for (int c = c0; c < c1; c++) {
        REAL *b = A + j0 + (size_t)c * lda;
        for (int k = 0; k < jb; k++) {
            REAL x = b[k];
            if (x != 0)
                for (int i = k + 1; i < jb; i++)
                    b[i] -= L[i + (size_t)k * lda] * x;
        }
    }
}

/* c(mr x nr) -= a_panel * b_panel over kk; a is MR-interleaved, b NR-interleaved. */
static void FN(micro_kernel)(int kk, const REAL *restrict a, const REAL *restrict b,
                             REAL *restrict c, int ldc, int mr, int nr)
{
    enum { MR = GETRF_MR, NR = 4 };
    REAL acc[NR][MR];
    for (int j = 0; j < NR; j++)
        for (int i = 0; i < MR; i++)
            acc[j][i] = 0;
    for (int p = 0; p < kk; p++) {
        const REAL *ap = a + (size_t)p * MR;
        const REAL *bp = b + (size_t)p * NR;
        for (int j = 0; j < NR; j++)
            for (int i = 0; i < MR; i++)
                acc[j][i] += ap[i] * bp[j];
    }
    if (mr == MR && nr == NR) {
        for (int j = 0; j < NR; j++)
            for (int i = 0; i < MR; i++)
                c[i + (size_t)j * ldc] -= acc[j][i];
    } else {
        for (int j = 0; j < nr; j++)
            for (int i = 0; i < mr; i++)
                c[i + (size_t)j * ldc] -= acc[j][i];
    }
}

/* C(mm x nn) -= A(mm x kk) B(kk x nn); Ap holds MC x kk, Bp ceil(nn/NR)*NR x kk. */
static void FN(gemm_update)(int mm, int nn, int kk, const REAL *A, int lda, const REAL *B, int ldb,
                            REAL *C, int ldc, REAL *Ap, REAL *Bp, int mc)
{
    enum { MR = GETRF_MR, NR = 4 };
    int npanels = (nn + NR - 1) / NR;
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int jp = 0; jp < npanels; jp++) {
            REAL *dst = Bp + (size_t)jp * NR * kk;
            int j0 = jp * NR;
            int nr = nn - j0 < NR ? nn - j0 : NR;
            for (int p = 0; p < kk; p++)
                for (int j = 0; j < NR; j++)
                    dst[(size_t)p * NR + j] = j < nr ? B[p + (size_t)(j0 + j) * ldb] : 0;
        }
        for (int ic = 0; ic < mm; ic += mc) {
            int mcur = mm - ic < mc ? mm - ic : mc;
            int mpanels = (mcur + MR - 1) / MR;
#pragma omp for schedule(static)
            for (int ip = 0; ip < mpanels; ip++) {
                REAL *dst = Ap + (size_t)ip * MR * kk;
                int i0 = ic + ip * MR;
                int mr = mm - i0 < MR ? mm - i0 : MR;
                for (int p = 0; p < kk; p++) {
                    const REAL *src = A + i0 + (size_t)p * lda;
                    for (int i = 0; i < MR; i++)
                        dst[(size_t)p * MR + i] = i < mr ? src[i] : 0;
                }
            }
#pragma omp for schedule(static)
            for (int jp = 0; jp < npanels; jp++) {
                int j0 = jp * NR;
                int nr = nn - j0 < NR ? nn - j0 : NR;
                for (int ip = 0; ip < mpanels; ip++) {
                    int i0 = ic + ip * MR;
                    int mr = mm - i0 < MR ? mm - i0 : MR;
                    FN(micro_kernel)(kk, Ap + (size_t)ip * MR * kk, Bp + (size_t)jp * NR * kk,
                                     C + i0 + (size_t)j0 * ldc, ldc, mr, nr);
                }
            }
        }
    }
}

/* Fallback when the packing buffers cannot be allocated: slower, same result. */
static void FN(gemm_update_plain)(int mm, int nn, int kk, const REAL *A, int lda, const REAL *B,
                                  int ldb, REAL *C, int ldc)
{
#pragma omp parallel for schedule(static)
    for (int j = 0; j < nn; j++)
        for (int p = 0; p < kk; p++) {
            REAL u = B[p + (size_t)j * ldb];
            if (u != 0)
                for (int i = 0; i < mm; i++)
                    C[i + (size_t)j * ldc] -= A[i + (size_t)p * lda] * u;
        }
}

int FN(ls_cpu_getrf)(int m, int n, REAL *A, int lda, int *ipiv, int pivot)
{
    enum { NB = 64, MC = 256 };
    int mn = m < n ? m : n;
    if (mn <= 0)
        return 0;
    int info = 0;
    REAL *Ap = NULL, *Bp = NULL;
    if (n > NB) {
        size_t bcols = ((size_t)n + 3) / 4 * 4, bsize;
        if (!ls_mul_size(bcols, NB * sizeof(REAL), &bsize)) {
            Ap = malloc((size_t)MC * NB * sizeof(REAL));
            Bp = malloc(bsize);
        }
    }
    for (int j0 = 0; j0 < mn; j0 += NB) {
        int jb = mn - j0 < NB ? mn - j0 : NB;
        int pinfo = FN(panel_factor)(m, j0, jb, A, lda, ipiv, pivot);
        if (pinfo && !info)
            info = pinfo;
        if (pivot) {
            FN(swap_rows)(0, j0, j0, jb, A, lda, ipiv);
            FN(swap_rows)(j0 + jb, n, j0, jb, A, lda, ipiv);
        }
        int c0 = j0 + jb;
        if (c0 >= n)
            continue;
        FN(trsm_lower_unit)(j0, jb, c0, n, A, lda);
        if (c0 >= m)
            continue;
        const REAL *L21 = A + c0 + (size_t)j0 * lda;
        const REAL *U12 = A + j0 + (size_t)c0 * lda;
        REAL *A22 = A + c0 + (size_t)c0 * lda;
        if (Ap && Bp)
            FN(gemm_update)(m - c0, n - c0, jb, L21, lda, U12, lda, A22, lda, Ap, Bp, MC);
        else
            FN(gemm_update_plain)(m - c0, n - c0, jb, L21, lda, U12, lda, A22, lda);
    }
    free(Ap);
    free(Bp);
    return info;
}

void FN(ls_cpu_getrs)(char trans, int n, int nrhs, const REAL *A, int lda, const int *ipiv,
                      REAL *B, int ldb)
{
    if (n <= 0 || nrhs <= 0)
        return;
    int notrans = trans == 'N' || trans == 'n';
#pragma omp parallel for schedule(static) if (nrhs > 1 && (size_t)n * n * nrhs > 100000)
    for (int c = 0; c < nrhs; c++) {
        REAL *b = B + (size_t)c * ldb;
        if (notrans) {
            for (int i = 0; i < n; i++) {
                int p = ipiv[i] - 1;
                if (p != i) {
                    REAL t = b[i];
                    b[i] = b[p];
                    b[p] = t;
                }
            }
            for (int k = 0; k < n; k++) {
                REAL x = b[k];
                const REAL *lk = A + (size_t)k * lda;
                if (x != 0)
                    for (int i = k + 1; i < n; i++)
                        b[i] -= lk[i] * x;
            }
            for (int k = n - 1; k >= 0; k--) {
                const REAL *uk = A + (size_t)k * lda;
                b[k] /= uk[k];
                REAL x = b[k];
                if (x != 0)
                    for (int i = 0; i < k; i++)
                        b[i] -= uk[i] * x;
            }
        } else {
            /* A^T = U^T L^T P: solve U^T, then L^T, then undo the swaps backwards. */
            for (int k = 0; k < n; k++) {
                const REAL *uk = A + (size_t)k * lda;
                REAL s = b[k];
                for (int i = 0; i < k; i++)
                    s -= uk[i] * b[i];
                b[k] = s / uk[k];
            }
            for (int k = n - 1; k >= 0; k--) {
                const REAL *lk = A + (size_t)k * lda;
                REAL s = b[k];
                for (int i = k + 1; i < n; i++)
                    s -= lk[i] * b[i];
                b[k] = s;
            }
            for (int i = n - 1; i >= 0; i--) {
                int p = ipiv[i] - 1;
                if (p != i) {
                    REAL t = b[i];
                    b[i] = b[p];
                    b[p] = t;
                }
            }
        }
    }
}

#undef GETRF_MR
