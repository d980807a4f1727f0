/* fork() while other threads are inside the drop-in: WORKERS threads call
 * dgesv_ and dgetrf_ (order N) back to back while the main thread forks
 * FORKS times at random moments; each child solves a system of its own with
 * dgesv_ and with dgetrf_ + dgetrs_ and must finish (alarm: a child that
 * hangs is killed and counted) with a scaled residual under 30. Run under
 * LD_PRELOAD with the path set by LS_LAPACK_BACKEND (tests/lapack_dropin/
 * CMakeLists.txt: cpu, system, auto and, where built, opencl). Every other
 * fork is made after the main thread has solved once itself, so that its
 * own context and OpenMP state are inherited too. A fork counts as "busy"
 * when at least one worker was between the entry and the return of a call
 * when fork() was called; fewer than half busy means the test did not test
 * what it says, and fails. Exit status: the number of failures. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a,
             const int *lda, const int *ipiv, double *b, const int *ldb, int *info,
             size_t trans_len);

enum { WORKERS = 3, FORKS = 20, N = 160, CHILD_SECONDS = 10, MAX_HUNG = 2 };

static atomic_int stop, in_flight;
static atomic_long worker_calls;

static double uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / (double)(1ULL << 53) * 2.0 - 1.0;
}

static void fill(double *x, size_t len, uint64_t *seed)
{
    for (size_t i = 0; i < len; i++)
        x[i] = uniform(seed);
}

/* ||A X - B||inf / (n ||A||inf ||X||inf eps), one right-hand side */
static double scaled_residual(int n, const double *A, const double *X, const double *B)
{
    double anorm = 0, rmax = 0, xmax = 0;
    for (int i = 0; i < n; i++) {
        double row = 0, s = -B[i];
        for (int j = 0; j < n; j++) {
            row += fabs(A[i + (size_t)j * n]);
            s += A[i + (size_t)j * n] * X[j];
        }
        anorm = fmax(anorm, row);
        rmax = fmax(rmax, fabs(s));
        xmax = fmax(xmax, fabs(X[i]));
    }
    return rmax / (n * anorm * xmax * DBL_EPSILON);
}

/* One dgesv_ and one dgetrf_ + dgetrs_ on fresh random systems; the worse
 * scaled residual, or INFINITY when a call reports info != 0. */
static double solve_twice(uint64_t *seed, int counted)
{
    int n = N, one = 1, info = 0;
    size_t nn = (size_t)n * n;
    double *A = malloc(nn * sizeof *A), *A0 = malloc(nn * sizeof *A0);
    double *B = malloc((size_t)n * sizeof *B), *B0 = malloc((size_t)n * sizeof *B0);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    double worst = 0;
    for (int round = 0; round < 2; round++) {
        fill(A0, nn, seed);
        fill(B0, (size_t)n, seed);
        memcpy(A, A0, nn * sizeof *A);
        memcpy(B, B0, (size_t)n * sizeof *B);
        if (counted)
            atomic_fetch_add(&in_flight, 1);
        if (round == 0) {
            dgesv_(&n, &one, A, &n, ipiv, B, &n, &info);
        } else {
            dgetrf_(&n, &n, A, &n, ipiv, &info);
            if (info == 0)
                dgetrs_("N", &n, &one, A, &n, ipiv, B, &n, &info, 1);
        }
        if (counted) {
            atomic_fetch_sub(&in_flight, 1);
            atomic_fetch_add(&worker_calls, 1);
        }
        double r = info == 0 ? scaled_residual(n, A0, B, B0) : INFINITY;
        worst = fmax(worst, r);
    }
    free(A), free(A0), free(B), free(B0), free(ipiv);
    return worst;
}

static void *worker(void *arg)
{
    uint64_t seed = 100 + (uint64_t)(intptr_t)arg;
    intptr_t bad = 0;
    while (!atomic_load(&stop))
        bad += !(solve_twice(&seed, 1) < 30);
    return (void *)bad;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The child's exit status, or -1 after killing a child that outlived
 * CHILD_SECONDS (its own alarm should have ended it first). */
static int wait_child(pid_t pid, int *status)
{
    double deadline = now() + CHILD_SECONDS + 5;
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
        if (now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, status, 0);
            return -1;
        }
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
}

int main(void)
{
    pthread_t t[WORKERS];
    for (intptr_t i = 0; i < WORKERS; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)i)) {
            fprintf(stderr, "cannot start thread %ld\n", (long)i);
            return 1;
        }
    setvbuf(stdout, NULL, _IOLBF, 0);
    int failures = 0, busy = 0, hung_children = 0, forks = 0;
    uint64_t seed = 42;
    /* a child that hangs costs CHILD_SECONDS: after MAX_HUNG, stop */
    for (int k = 0; k < FORKS && hung_children < MAX_HUNG; k++, forks++) {
        if (k % 2 && !(solve_twice(&seed, 0) < 30)) {
            fprintf(stderr, "fork %d: the parent's own solve failed\n", k);
            failures++;
        }
        /* a random moment: 0 to 4 ms after the last fork or solve */
        nanosleep(&(struct timespec){0, (long)(uniform(&seed) * 2e6 + 2e6)}, NULL);
        int was_busy = atomic_load(&in_flight) > 0;
        double t0 = now();
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            failures++;
            continue;
        }
        if (pid == 0) {
            alarm(CHILD_SECONDS);
            uint64_t cs = 1000 + (uint64_t)k;
            double r = solve_twice(&cs, 0);
            _exit(r < 30 ? 0 : 3);
        }
        double fork_s = now() - t0;
        busy += was_busy;
        int status = 0;
        int hung = wait_child(pid, &status);
        int ok = !hung && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        printf("fork %2d  busy %d  fork() %.1f ms  child %s\n", k, was_busy, fork_s * 1e3,
               ok                     ? "solved"
               : hung                 ? "hung (killed)"
               : WIFSIGNALED(status)  ? (WTERMSIG(status) == SIGALRM ? "hung (alarm)" : "killed")
               : WEXITSTATUS(status) == 3 ? "wrong answer"
                                          : "failed");
        failures += !ok;
        hung_children += hung || (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM);
    }
    atomic_store(&stop, 1);
    intptr_t worker_bad = 0;
    for (int i = 0; i < WORKERS; i++) {
        void *r = NULL;
        pthread_join(t[i], &r);
        worker_bad += (intptr_t)r;
    }
    printf("%d forks, %d with a call in flight; workers: %ld calls, %ld wrong\n", forks, busy,
           (long)atomic_load(&worker_calls), (long)worker_bad);
    if (busy < forks / 2) {
        fprintf(stderr, "only %d of %d forks happened during a call: not tested\n", busy, forks);
        failures++;
    }
    failures += (int)worker_bad;
    printf("fork_busy: %s\n", failures ? "FAILED" : "ok");
    return failures;
}
