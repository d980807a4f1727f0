/* Times dgesv_ / sgesv_ as an unmodified program sees it: run it under
 * LD_PRELOAD=liblinsolve_lapack.so with LS_LAPACK_BACKEND=system (the
 * shadowed LAPACK) and =cuda (linsolve on the GPU, host<->device transfers
 * included), and compare. Wall time of each call, one warm-up, median of
 * `repeat`, a fresh copy of A and B before every call (not timed); the
 * scaled residual of the last answer is checked (<= 30).
 * Usage: lapack_crossover d|s REPEAT N...   ->  prec,n,ms,residual lines */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);
void sgesv_(const int *n, const int *nrhs, float *a, const int *lda, int *ipiv, float *b,
            const int *ldb, int *info);

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ||b - A x||_inf / (n ||A||_inf ||x||_inf eps), in double */
static double residual(int n, const double *A, const double *b, const double *x, double eps)
{
    double rmax = 0, anorm = 0, xmax = 0;
    for (int i = 0; i < n; i++) {
        double r = b[i], row = 0;
        for (int j = 0; j < n; j++) {
            r -= A[i + (size_t)j * n] * x[j];
            row += fabs(A[i + (size_t)j * n]);
        }
        rmax = fmax(rmax, fabs(r));
        anorm = fmax(anorm, row);
        xmax = fmax(xmax, fabs(x[i]));
    }
    return rmax / (n * anorm * xmax * eps);
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "d") && strcmp(argv[1], "s"))) {
        fprintf(stderr, "usage: %s d|s REPEAT N...\n", argv[0]);
        return 2;
    }
    int dbl = argv[1][0] == 'd', repeat = atoi(argv[2]), one = 1;
    if (repeat < 1 || repeat > 1000)
        repeat = 5;
    srand(12345);
    for (int a = 3; a < argc; a++) {
        int n = atoi(argv[a]), info = 0;
        if (n < 1 || n > 65536) {
            fprintf(stderr, "%s: n = %s is not in 1..65536\n", argv[0], argv[a]);
            return 2;
        }
        size_t nn = (size_t)n * n;
        double *A = malloc(nn * sizeof *A), *b = malloc((size_t)n * sizeof *b);
        void *W = malloc(nn * (dbl ? 8 : 4)), *x = malloc((size_t)n * (dbl ? 8 : 4));
        int *ipiv = malloc((size_t)n * sizeof *ipiv);
        double *t = malloc((size_t)(repeat + 1) * sizeof *t);
        if (!A || !b || !W || !x || !ipiv || !t) {
            fprintf(stderr, "%s: cannot allocate n = %d\n", argv[0], n);
            return 3;
        }
        for (size_t i = 0; i < nn; i++)
            A[i] = (double)rand() / RAND_MAX - 0.5;
        for (int i = 0; i < n; i++)
            b[i] = (double)rand() / RAND_MAX - 0.5;
        for (int r = 0; r <= repeat; r++) { /* r = 0: warm-up */
            for (size_t i = 0; i < nn; i++)
                dbl ? (void)(((double *)W)[i] = A[i]) : (void)(((float *)W)[i] = (float)A[i]);
            for (int i = 0; i < n; i++)
                dbl ? (void)(((double *)x)[i] = b[i]) : (void)(((float *)x)[i] = (float)b[i]);
            double t0 = now_ms();
            if (dbl)
                dgesv_(&n, &one, W, &n, ipiv, x, &n, &info);
            else
                sgesv_(&n, &one, W, &n, ipiv, x, &n, &info);
            t[r] = now_ms() - t0;
            if (info != 0) {
                fprintf(stderr, "%s: n = %d: info = %d\n", argv[0], n, info);
                return 4;
            }
        }
        qsort(t + 1, (size_t)repeat, sizeof *t, cmp);
        double *xd = malloc((size_t)n * sizeof *xd);
        for (int i = 0; i < n; i++)
            xd[i] = dbl ? ((double *)x)[i] : ((float *)x)[i];
        double res = residual(n, A, b, xd, dbl ? 2.220446049250313e-16 : 1.1920929e-07);
        printf("%s,%d,%.4f,%.3g\n", dbl ? "double" : "single", n, t[1 + repeat / 2], res);
        fflush(stdout);
        free(xd);
        free(A);
        free(b);
        free(W);
        free(x);
        free(ipiv);
        free(t);
        if (!(res <= 30)) {
            fprintf(stderr, "%s: n = %d: scaled residual %.3g > 30\n", argv[0], n, res);
            return 5;
        }
    }
    return 0;
}
