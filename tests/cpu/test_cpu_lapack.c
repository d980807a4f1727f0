/*
 * LAPACK semantics of the reference getrf/getrs through the public
 * ls_dgetrf / ls_dgetrs / ls_dgesv / ls_sgesv: -i for each illegal argument,
 * info > 0 at the first exactly-zero pivot (computed by reasoning about the
 * matrix, never copied from a run), a factorization that still runs to the
 * end, P L U = A to rounding, transposed solves, and the singular kind
 * giving info > 0 through every direct method as it does through LAPACK.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#ifdef LS_HAVE_LAPACKE
#include <lapacke.h>
#endif

/* ||P A - L U||_1 / (||A||_1 max(m,n) eps) for the m x n factors in F. */
static double factor_error(int m, int n, const double *A, int lda, const double *F, int ldf,
                           const int *ipiv)
{
    int mn = m < n ? m : n;
    double *PA = lt_xmalloc(sizeof(double) * (size_t)m * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            PA[i + (size_t)j * m] = A[i + (size_t)j * lda];
    for (int k = 0; k < mn; k++) { /* apply the swaps in order, as getrf did */
        int p = ipiv[k] - 1;
        if (p != k)
            for (int j = 0; j < n; j++) {
                double t = PA[k + (size_t)j * m];
                PA[k + (size_t)j * m] = PA[p + (size_t)j * m];
                PA[p + (size_t)j * m] = t;
            }
    }
    double err = 0, anorm = 0;
    for (int j = 0; j < n; j++) {
        double colerr = 0, colnorm = 0;
        for (int i = 0; i < m; i++) {
            double s = 0; /* (L U)(i,j) = sum_k L(i,k) U(k,j), L unit lower m x mn */
            int kmax = i < j ? i : j;
            if (kmax > mn - 1)
                kmax = mn - 1;
            for (int k = 0; k <= kmax; k++) {
                double l = (i == k) ? 1.0 : F[i + (size_t)k * ldf];
                s += l * F[k + (size_t)j * ldf];
            }
            colerr += fabs(PA[i + (size_t)j * m] - s);
            colnorm += fabs(A[i + (size_t)j * lda]);
        }
        if (colerr > err) err = colerr;
        if (colnorm > anorm) anorm = colnorm;
    }
    free(PA);
    double mx = m > n ? m : n;
    return anorm > 0 ? err / (anorm * mx * 2.220446049250313e-16) : err;
}

static int test_illegal_arguments(void)
{
    int f = 0, info = 0, ipiv[4];
    double A[16] = {4, 1, 0, 0, 1, 4, 1, 0, 0, 1, 4, 1, 0, 0, 1, 4}, B[4] = {1, 2, 3, 4};
    float As[16] = {4, 1, 0, 0, 1, 4, 1, 0, 0, 1, 4, 1, 0, 0, 1, 4}, Bs[4] = {1, 2, 3, 4};
    struct { int want, got, info; const char *what; } c[32];
    int k = 0;
#define CASE(want_, call_, what_)                                                           \
    do {                                                                                    \
        info = 12345;                                                                       \
        int got_ = (call_);                                                                 \
        c[k].want = (want_), c[k].got = got_, c[k].info = info, c[k].what = (what_);        \
        k++;                                                                                \
    } while (0)
    CASE(-1, ls_dgesv(-1, 1, A, 4, ipiv, B, 4, &info, NULL), "dgesv n<0");
    CASE(-2, ls_dgesv(4, -1, A, 4, ipiv, B, 4, &info, NULL), "dgesv nrhs<0");
    CASE(-3, ls_dgesv(4, 1, NULL, 4, ipiv, B, 4, &info, NULL), "dgesv A NULL");
    CASE(-4, ls_dgesv(4, 1, A, 3, ipiv, B, 4, &info, NULL), "dgesv lda<n");
    CASE(-5, ls_dgesv(4, 1, A, 4, NULL, B, 4, &info, NULL), "dgesv ipiv NULL");
    CASE(-6, ls_dgesv(4, 1, A, 4, ipiv, NULL, 4, &info, NULL), "dgesv B NULL");
    CASE(-7, ls_dgesv(4, 1, A, 4, ipiv, B, 3, &info, NULL), "dgesv ldb<n");
    CASE(-4, ls_dgesv(0, 1, A, 0, ipiv, B, 1, &info, NULL), "dgesv lda=0 < max(1,0)");
    CASE(-1, ls_sgesv(-3, 1, As, 4, ipiv, Bs, 4, &info, NULL), "sgesv n<0");
    CASE(-7, ls_sgesv(4, 1, As, 4, ipiv, Bs, 2, &info, NULL), "sgesv ldb<n");
    CASE(-1, ls_dgetrf(-1, 4, A, 4, ipiv, &info, NULL), "dgetrf m<0");
    CASE(-2, ls_dgetrf(4, -1, A, 4, ipiv, &info, NULL), "dgetrf n<0");
    CASE(-3, ls_dgetrf(4, 4, NULL, 4, ipiv, &info, NULL), "dgetrf A NULL");
    CASE(-4, ls_dgetrf(4, 4, A, 3, ipiv, &info, NULL), "dgetrf lda<m");
    CASE(-5, ls_dgetrf(4, 4, A, 4, NULL, &info, NULL), "dgetrf ipiv NULL");
    CASE(-4, ls_sgetrf(4, 2, As, 2, ipiv, &info, NULL), "sgetrf lda<m (n<m)");
    CASE(-1, ls_dgetrs('X', 4, 1, A, 4, ipiv, B, 4, &info, NULL), "dgetrs trans 'X'");
    CASE(-2, ls_dgetrs('N', -1, 1, A, 4, ipiv, B, 4, &info, NULL), "dgetrs n<0");
    CASE(-3, ls_dgetrs('N', 4, -1, A, 4, ipiv, B, 4, &info, NULL), "dgetrs nrhs<0");
    CASE(-4, ls_dgetrs('N', 4, 1, NULL, 4, ipiv, B, 4, &info, NULL), "dgetrs A NULL");
    CASE(-5, ls_dgetrs('N', 4, 1, A, 3, ipiv, B, 4, &info, NULL), "dgetrs lda<n");
    CASE(-6, ls_dgetrs('N', 4, 1, A, 4, NULL, B, 4, &info, NULL), "dgetrs ipiv NULL");
    CASE(-7, ls_dgetrs('N', 4, 1, A, 4, ipiv, NULL, 4, &info, NULL), "dgetrs B NULL");
    CASE(-8, ls_dgetrs('N', 4, 1, A, 4, ipiv, B, 3, &info, NULL), "dgetrs ldb<n");
    CASE(0, ls_dgesv(0, 0, A, 1, ipiv, B, 1, &info, NULL), "dgesv n=0 quick return");
    CASE(0, ls_dgetrf(0, 5, A, 1, ipiv, &info, NULL), "dgetrf m=0 quick return");
#undef CASE
    for (int i = 0; i < k; i++)
        f += lt_check(c[i].got == c[i].want && c[i].info == c[i].want,
                      "%-26s returns %d, info %d (want %d)", c[i].what, c[i].got, c[i].info,
                      c[i].want);
    /* The rejected calls must not have touched the data. */
    f += lt_check(A[0] == 4 && A[5] == 4 && B[3] == 4 && As[0] == 4 && Bs[3] == 4,
                  "illegal calls leave A and B untouched");
    return f;
}

/* A random n x n matrix with column zc set to zero: elimination never fills
 * a zero column (each update subtracts a multiple of the pivot row's entry
 * in that column, itself zero), so the first zero pivot is U(zc+1, zc+1):
 * info = zc + 1 whatever happens elsewhere (random pivots are nonzero). The
 * factorization must still finish: P L U = A holds for the whole matrix. */
static int test_zero_column(int n, int zc, ls_context *ctx)
{
    int lda = n + 2, f = 0;
    double *A = lt_xmalloc(sizeof(double) * (size_t)lda * n);
    double *F = lt_xmalloc(sizeof(double) * (size_t)lda * n);
    int *ipiv = lt_xmalloc(sizeof(int) * (size_t)n);
    ls_fill_random(n, n, A, lda, 100 + (uint64_t)zc);
    memset(A + (size_t)zc * lda, 0, sizeof(double) * (size_t)n);
    memcpy(F, A, sizeof(double) * (size_t)lda * n);
    int info = -99;
    int st = ls_dgetrf(n, n, F, lda, ipiv, &info, ctx);
    double ferr = factor_error(n, n, A, lda, F, lda, ipiv);
    f += lt_check(st == zc + 1 && info == zc + 1 && ferr < 30,
                  "dgetrf n=%d zero column %d: info %d (want %d), ||PA-LU|| %.2g%s", n, zc + 1,
                  info, zc + 1, ferr, ctx ? " [cpu ctx]" : "");
    free(A);
    free(F);
    free(ipiv);
    return f;
}

/* [[1,2,3],[2,4,6],[1,1,1]]: pivot 2 (row 2) makes row 1 exactly zero and
 * row 3 (0,-1,-2); the second pivot is -1, and U(3,3) = 0 exactly: info 3.
 * Every step is exact in binary, in double and in float. */
static int test_late_zero_pivot(void)
{
    int f = 0, ipiv[3], info = 0;
    double A[9] = {1, 2, 1, 2, 4, 1, 3, 6, 1}, B[3] = {1, 1, 1};
    float As[9] = {1, 2, 1, 2, 4, 1, 3, 6, 1}, Bs[3] = {1, 1, 1};
    int st = ls_dgesv(3, 1, A, 3, ipiv, B, 3, &info, NULL);
    f += lt_check(st == 3 && info == 3 && ipiv[0] == 2 && ipiv[1] == 3 && ipiv[2] == 3,
                  "dgesv rank-2 3x3: info %d (want 3), ipiv %d %d %d (want 2 3 3)", info,
                  ipiv[0], ipiv[1], ipiv[2]);
    f += lt_check(B[0] == 1 && B[1] == 1 && B[2] == 1, "dgesv skips the solve when info > 0");
    st = ls_sgesv(3, 1, As, 3, ipiv, Bs, 3, &info, NULL);
    f += lt_check(st == 3 && info == 3, "sgesv rank-2 3x3: info %d (want 3)", info);
    return f;
}

/* Rectangular and square factorizations against P L U = A; square ones also
 * against LAPACK's solution when it is linked. */
static int test_factor_accuracy(void)
{
    int f = 0;
    const int shapes[][2] = {{1, 1}, {5, 3}, {3, 5}, {70, 130}, {130, 70}, {200, 200}, {333, 333}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int m = shapes[s][0], n = shapes[s][1], lda = m + 5, mn = m < n ? m : n;
        double *A = lt_xmalloc(sizeof(double) * (size_t)lda * n);
        double *F = lt_xmalloc(sizeof(double) * (size_t)lda * n);
        int *ipiv = lt_xmalloc(sizeof(int) * (size_t)mn);
        ls_fill_random(lda, n, A, lda, 7 + s);
        memcpy(F, A, sizeof(double) * (size_t)lda * n);
        int info = -1;
        ls_dgetrf(m, n, F, lda, ipiv, &info, NULL);
        double ferr = factor_error(m, n, A, lda, F, lda, ipiv);
        int padding_ok = 1; /* rows m..lda-1 belong to the caller */
        for (int j = 0; j < n; j++)
            for (int i = m; i < lda; i++)
                padding_ok &= F[i + (size_t)j * lda] == A[i + (size_t)j * lda];
        int ipiv_ok = 1;
        for (int k = 0; k < mn; k++)
            ipiv_ok &= ipiv[k] >= k + 1 && ipiv[k] <= m;
        f += lt_check(info == 0 && ferr < 30 && padding_ok && ipiv_ok,
                      "dgetrf %dx%d lda %d: info %d, ||PA-LU||/(||A|| n eps) %.3g, padding %s, "
                      "ipiv %s",
                      m, n, lda, info, ferr, padding_ok ? "kept" : "CHANGED",
                      ipiv_ok ? "in range" : "OUT OF RANGE");
        free(A);
        free(F);
        free(ipiv);
    }
    return f;
}

/* Solve A X = B and A^T X = B with getrf + getrs in both precisions. */
static int test_solves(void)
{
    int f = 0;
    const int sizes[] = {1, 2, 31, 64, 65, 200};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int n = sizes[s], lda = n + 3, nrhs = 4;
        double *A = lt_xmalloc(sizeof(double) * (size_t)lda * n);
        double *At = lt_xmalloc(sizeof(double) * (size_t)lda * n);
        double *F = lt_xmalloc(sizeof(double) * (size_t)lda * n);
        double *B = lt_xmalloc(sizeof(double) * (size_t)lda * nrhs);
        double *X = lt_xmalloc(sizeof(double) * (size_t)lda * nrhs);
        float *Fs = lt_xmalloc(sizeof(float) * (size_t)lda * n);
        float *Xs = lt_xmalloc(sizeof(float) * (size_t)lda * nrhs);
        int *ipiv = lt_xmalloc(sizeof(int) * (size_t)n);
        ls_generate(LS_GEN_RANDOM, n, A, lda, 40 + s, 0);
        ls_fill_random(n, nrhs, B, lda, 50 + s);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                At[j + (size_t)i * lda] = A[i + (size_t)j * lda];
        for (int t = 0; t < 2; t++) {
            char trans = t ? 'T' : 'N';
            const double *op = t ? At : A;
            int info = 0;
            memcpy(F, A, sizeof(double) * (size_t)lda * n);
            memcpy(X, B, sizeof(double) * (size_t)lda * nrhs);
            ls_dgetrf(n, n, F, lda, ipiv, &info, NULL);
            ls_dgetrs(trans, n, nrhs, F, lda, ipiv, X, lda, &info, NULL);
            double r = ls_scaled_residual(n, nrhs, op, lda, X, lda, B, lda, ls_eps(LS_DOUBLE));
            f += lt_row(n, nrhs, t ? "dgetrs-T" : "dgetrs-N", "cpu", "double", 0, 0, r,
                        info == 0 && r <= LS_TEST_TOL);
            for (size_t i = 0; i < (size_t)lda * n; i++)
                Fs[i] = (float)A[i];
            for (size_t i = 0; i < (size_t)lda * nrhs; i++)
                Xs[i] = (float)B[i];
            ls_sgetrf(n, n, Fs, lda, ipiv, &info, NULL);
            ls_sgetrs(trans, n, nrhs, Fs, lda, ipiv, Xs, lda, &info, NULL);
            for (size_t i = 0; i < (size_t)lda * nrhs; i++)
                X[i] = Xs[i];
            r = ls_scaled_residual(n, nrhs, op, lda, X, lda, B, lda, ls_eps(LS_SINGLE));
            f += lt_row(n, nrhs, t ? "sgetrs-T" : "sgetrs-N", "cpu", "single", 0, 0, r,
                        info == 0 && r <= LS_TEST_TOL);
        }
#ifdef LS_HAVE_LAPACKE
        /* Same pivots and factors as LAPACK on a well-conditioned matrix. */
        {
            double *G = lt_xmalloc(sizeof(double) * (size_t)lda * n);
            int *jpiv = lt_xmalloc(sizeof(int) * (size_t)n);
            int info = 0;
            memcpy(F, A, sizeof(double) * (size_t)lda * n);
            memcpy(G, A, sizeof(double) * (size_t)lda * n);
            ls_dgetrf(n, n, F, lda, ipiv, &info, NULL);
            LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, G, lda, jpiv);
            int same_piv = 1;
            double diff = 0, gmax = 0;
            for (int i = 0; i < n; i++)
                same_piv &= ipiv[i] == jpiv[i];
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++) {
                    double d = fabs(F[i + (size_t)j * lda] - G[i + (size_t)j * lda]);
                    diff = d > diff ? d : diff;
                    double g = fabs(G[i + (size_t)j * lda]);
                    gmax = g > gmax ? g : gmax;
                }
            /* Pivots are compared only as information: a near tie may
             * legitimately go either way under different rounding. */
            f += lt_check(!same_piv || diff <= 1e-10 * (gmax > 1 ? gmax : 1),
                          "dgetrf n=%d vs LAPACKE_dgetrf: ipiv %s, max factor difference %.2g",
                          n, same_piv ? "identical" : "differ (near tie)", diff);
            free(G);
            free(jpiv);
        }
#endif
        free(A); free(At); free(F); free(B); free(X); free(Fs); free(Xs); free(ipiv);
    }
    return f;
}

/* The singular kind: every direct method reports info > 0 through
 * ls_solve, as LAPACK does, and getrf names the zero column exactly. */
static int test_singular_agreement(ls_context *ctx)
{
    int f = 0;
    ls_method methods[LS_METHOD_COUNT_];
    int nopivot = 0, count = lt_direct_methods(ctx, methods, LS_METHOD_COUNT_, &nopivot);
    /* ge, lu, gj1, gj2 at least: never an empty agreement */
    f += lt_check(count >= 4, "direct methods on the cpu: %d", count);
    const int sizes[] = {1, 5, 40, 300};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int n = sizes[s], lda = n;
        double *A = lt_xmalloc(sizeof(double) * (size_t)n * n);
        double *F = lt_xmalloc(sizeof(double) * (size_t)n * n);
        double *B = lt_xmalloc(sizeof(double) * (size_t)n);
        int *ipiv = lt_xmalloc(sizeof(int) * (size_t)n);
        ls_generate(LS_GEN_SINGULAR, n, A, lda, 900 + s, 0);
        int zc = -1; /* find the zero column the generator chose */
        for (int j = 0; j < n && zc < 0; j++) {
            int zero = 1;
            for (int i = 0; i < n; i++)
                zero &= A[i + (size_t)j * lda] == 0;
            if (zero)
                zc = j;
        }
        memcpy(F, A, sizeof(double) * (size_t)n * n);
        int info = 0;
        ls_dgetrf(n, n, F, lda, ipiv, &info, NULL);
        f += lt_check(zc >= 0 && info == zc + 1, "singular n=%d: zero column %d, getrf info %d",
                      n, zc + 1, info);
        for (int mi = 0; mi < count; mi++) {
            for (int p = 0; p < 2; p++) {
                ls_options opt;
                ls_options_init(&opt);
                opt.method = methods[mi];
                opt.precision = p ? LS_SINGLE : LS_DOUBLE;
                ls_report rep;
                ls_fill_random(n, 1, B, n, 3);
                int st = ls_solve(ctx, &opt, n, 1, A, lda, B, n, &rep);
                /* Partial pivoting meets the zero column at step zc: no earlier
                 * pivot is zero, so every method must name the same column. */
                f += lt_check(st > 0 && st < LS_NOT_CONVERGED && rep.info == zc + 1,
                              "singular n=%d %s %s: status %d info %d (want %d, as LAPACK)", n,
                              ls_method_name(opt.method), ls_precision_name(opt.precision), st,
                              rep.info, zc + 1);
                ls_report_clear(&rep);
            }
        }
        free(A); free(F); free(B); free(ipiv);
    }
    return f;
}

int main(void)
{
    ls_context *ctx = NULL;
    if (ls_context_create(&ctx, LS_BACKEND_CPU, 0)) {
        printf("cannot create a cpu context: %s\n", ctx ? ls_context_error(ctx) : "");
        ls_context_destroy(ctx);
        return 1;
    }
    int f = 0;
    f += test_illegal_arguments();
    f += test_zero_column(20, 0, NULL);
    f += test_zero_column(20, 5, NULL);
    f += test_zero_column(20, 19, NULL);
    f += test_zero_column(150, 100, ctx); /* crosses block columns (NB = 64) */
    f += test_late_zero_pivot();
    f += test_factor_accuracy();
    lt_header();
    f += test_solves();
    f += test_singular_agreement(ctx);
    ls_context_destroy(ctx);
    printf("%d failure(s)\n", f);
    return f;
}
