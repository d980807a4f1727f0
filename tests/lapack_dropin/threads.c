/* Many threads calling the drop-in at once, then a fork: 16 threads x 100
 * solves of different orders through dgesv_, dgetrf_ + dgetrs_ (N, T, C)
 * and sgesv_, each on its own matrices, checked by their scaled residuals;
 * after the threads end, a forked child solves once more and must finish.
 * Built with -fsanitize=thread against an instrumented copy of the
 * drop-in (tests/lapack_dropin/CMakeLists.txt): a data race in its lazy
 * set-up, routing or trace makes ThreadSanitizer fail the test. That build
 * runs with --no-fork: ThreadSanitizer does not support a child that starts
 * threads after a multi-threaded fork (OpenMP's, here), and such a child
 * can hang inside its runtime; the fork is checked by the plain build. The
 * path comes from the environment (LS_LAPACK_BACKEND, LS_LAPACK_MIN_N) of
 * each ctest entry. Exit status: the number of failures. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);
void sgesv_(const int *n, const int *nrhs, float *a, const int *lda, int *ipiv, float *b,
            const int *ldb, int *info);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a,
             const int *lda, const int *ipiv, double *b, const int *ldb, int *info,
             size_t trans_len);

enum { THREADS = 16, SOLVES = 100, NRHS = 2 };
static const int orders[] = {1, 2, 3, 8, 17, 31, 64, 65, 97, 130};
static atomic_long calls; /* LAPACK calls made, for the trace count */

static double uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / (double)(1ULL << 53) * 2.0 - 1.0;
}

/* ||op(A) X - B||inf / (n ||A||inf ||X||inf eps), A0 and B0 the inputs */
static double scaled_residual(int n, const double *A0, int lda, char trans, const double *X,
                              const double *B0, double eps)
{
    double worst = 0, anorm = 0;
    for (int i = 0; i < n; i++) {
        double row = 0;
        for (int j = 0; j < n; j++)
            row += fabs(A0[i + (size_t)j * lda]);
        anorm = fmax(anorm, row);
    }
    for (int c = 0; c < NRHS; c++) {
        double rmax = 0, xmax = 0;
        for (int i = 0; i < n; i++) {
            double s = -B0[i + (size_t)c * n];
            for (int j = 0; j < n; j++)
                s += (trans == 'N' ? A0[i + (size_t)j * lda] : A0[j + (size_t)i * lda]) *
                     X[j + (size_t)c * n];
            rmax = fmax(rmax, fabs(s));
            xmax = fmax(xmax, fabs(X[i + (size_t)c * n]));
        }
        double r = rmax / (n * anorm * xmax * eps);
        worst = fmax(worst, r);
    }
    return worst;
}

/* One solve of order n, lda = n + 3; kind picks the routine. 0 or 1 failure. */
static int one_solve(int n, int kind, uint64_t *seed)
{
    int lda = n + 3, info = -99, nrhs = NRHS;
    size_t na = (size_t)lda * n, nb = (size_t)n * NRHS;
    double *A = malloc(na * sizeof *A), *A0 = malloc(na * sizeof *A0);
    double *B = malloc(nb * sizeof *B), *B0 = malloc(nb * sizeof *B0);
    float *As = malloc(na * sizeof *As), *Bs = malloc(nb * sizeof *Bs);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    for (size_t i = 0; i < na; i++)
        A0[i] = A[i] = uniform(seed);
    for (size_t i = 0; i < nb; i++)
        B0[i] = B[i] = uniform(seed);
    char trans = "NTC"[kind % 3];
    double eps = DBL_EPSILON;
    if (kind == 3) {
        for (size_t i = 0; i < na; i++)
            As[i] = (float)A0[i], A0[i] = As[i];
        for (size_t i = 0; i < nb; i++)
            Bs[i] = (float)B0[i], B0[i] = Bs[i];
        sgesv_(&n, &nrhs, As, &lda, ipiv, Bs, &n, &info);
        calls++;
        for (size_t i = 0; i < nb; i++)
            B[i] = Bs[i];
        trans = 'N';
        eps = FLT_EPSILON;
    } else if (kind == 0) {
        dgesv_(&n, &nrhs, A, &lda, ipiv, B, &n, &info);
        calls++;
    } else {
        dgetrf_(&n, &n, A, &lda, ipiv, &info);
        calls++;
        if (info == 0) {
            dgetrs_(&trans, &n, &nrhs, A, &lda, ipiv, B, &n, &info, 1);
            calls++;
        }
    }
    double r = info == 0 ? scaled_residual(n, A0, lda, trans == 'N' ? 'N' : 'T', B, B0, eps) : -1;
    int bad = info != 0 || !(r < 30);
    if (bad)
        fprintf(stderr, "n=%d kind=%d info=%d scaled residual %.3g: failed\n", n, kind, info, r);
    free(A), free(A0), free(B), free(B0), free(As), free(Bs), free(ipiv);
    return bad;
}

static void *worker(void *arg)
{
    intptr_t id = (intptr_t)arg;
    uint64_t seed = 1000 + (uint64_t)id;
    intptr_t failures = 0;
    for (int k = 0; k < SOLVES; k++) {
        int n = orders[(k + id) % (int)(sizeof orders / sizeof orders[0])];
        failures += one_solve(n, (k + (int)id) % 4, &seed);
    }
    return (void *)failures;
}

/* A child forked after the calls above must be able to solve, not hang,
 * also when the forking thread itself has just solved (on the cpu path its
 * OpenMP workers do not survive the fork). */
static int fork_check(void)
{
    uint64_t seed0 = 3;
    if (one_solve(130, 0, &seed0))
        return 1;
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        alarm(60);
        uint64_t seed = 7;
        long before = calls;
        int bad = one_solve(130, 0, &seed) + one_solve(65, 1, &seed);
        printf("child calls: %ld\n", calls - before);
        fflush(stdout);
        _exit(bad);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "forked child: %s %d: failed\n",
                WIFSIGNALED(status) ? "signal" : "exit status",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int fork_too = !(argc > 1 && strcmp(argv[1], "--no-fork") == 0);
    pthread_t t[THREADS];
    long failures = 0;
    for (intptr_t i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)i)) {
            fprintf(stderr, "cannot start thread %ld\n", (long)i);
            return 1;
        }
    for (int i = 0; i < THREADS; i++) {
        void *r = NULL;
        pthread_join(t[i], &r);
        failures += (intptr_t)r;
    }
    printf("%d threads x %d solves: %ld failed\n", THREADS, SOLVES, failures);
    fflush(stdout);
    int forked = fork_too ? fork_check() : 0;
    printf("calls: %ld\n", (long)calls);
    printf("fork: %s\n", !fork_too ? "not checked (--no-fork)" : forked ? "failed" : "ok");
    return (int)(failures + forked);
}
