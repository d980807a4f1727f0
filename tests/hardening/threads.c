/* Many threads solving at once on the CPU backend, for ThreadSanitizer
 * (docs/threads.md): each thread with its own context, then all threads on
 * one shared context (the library serializes calls on it). Every solve is
 * checked by its scaled residual; one row per phase, MAGMA-style, and the
 * exit status is the number of failures.
 *
 * Every fourth system also sees a singular solve (a failure, which writes
 * the context's error text) and ls_context_supports.
 *
 *   test_threads_tsan [threads] [solves per thread] [backend]
 *
 * test_threads is the same program against the shipped library, for the
 * GPU machine (backend cuda or opencl; exit 77 when it cannot open), where
 * compute-sanitizer --tool racecheck runs it.
 *
 * Run with OMP_NUM_THREADS=1: libgomp is not built with ThreadSanitizer, so
 * its barriers are invisible to it and every parallel region would be
 * reported as a race (false positives); with one OpenMP thread the
 * library's own code is what TSan checks. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linsolve.h"

#define SKIP 77 /* the backend asked for cannot open here */

static ls_backend_kind backend = LS_BACKEND_CPU;

typedef struct job {
    int id, solves;
    ls_context *shared; /* NULL: make an own context */
    int failures;
    double worst;
} job;

static int residual_ok(int n, int nrhs, const double *A, const double *X, const double *B,
                       double *worst)
{
    double r = ls_scaled_residual(n, nrhs, A, n, X, n, B, n, ls_eps(LS_DOUBLE));
    if (r > *worst || isnan(r))
        *worst = r;
    return r < 30.0;
}

static void *worker(void *arg)
{
    job *jb = arg;
    ls_context *ctx = jb->shared;
    if (!ctx && ls_context_create(&ctx, backend, 0) != 0) {
        fprintf(stderr, "thread %d: cannot create a %s context: %s\n", jb->id,
                ls_backend_name(backend), ls_context_error(ctx));
        ls_context_destroy(ctx);
        jb->failures = jb->solves;
        return NULL;
    }
    for (int s = 0; s < jb->solves; s++) {
        int n = 4 + (jb->id * 7 + s * 13) % 60, nrhs = 1 + s % 3;
        size_t nn = (size_t)n * n, nb = (size_t)n * nrhs;
        double *A = malloc(sizeof *A * nn), *LU = malloc(sizeof *LU * nn);
        double *B = malloc(sizeof *B * nb), *X = malloc(sizeof *X * nb);
        int *ipiv = malloc(sizeof *ipiv * (size_t)n);
        if (!A || !LU || !B || !X || !ipiv) {
            jb->failures++;
        } else {
            uint64_t seed = (uint64_t)jb->id * 1000003u + (uint64_t)s;
            ls_fill_random(n, n, A, n, seed);
            for (int i = 0; i < n; i++)
                A[i + (size_t)i * n] += n; /* well conditioned */
            ls_fill_random(n, nrhs, B, n, seed ^ 0x5bd1e995u);
            /* the LAPACK-style entry */
            memcpy(LU, A, sizeof *A * nn);
            memcpy(X, B, sizeof *B * nb);
            int info = 0;
            int st = ls_dgesv(n, nrhs, LU, n, ipiv, X, n, &info, ctx);
            if (st != 0 || info != 0 || !residual_ok(n, nrhs, A, X, B, &jb->worst))
                jb->failures++;
            /* the driver, with a report */
            ls_options opt;
            ls_options_init(&opt);
            opt.method = s % 2 ? LS_METHOD_LU : LS_METHOD_AUTO;
            ls_report rep;
            memcpy(X, B, sizeof *B * nb);
            st = ls_solve(ctx, &opt, n, nrhs, A, n, X, n, &rep);
            if (st != 0 || !residual_ok(n, nrhs, A, X, B, &jb->worst)) {
                fprintf(stderr, "thread %d solve %d: %s %s\n", jb->id, s, ls_status_name(st),
                        rep.message);
                jb->failures++;
            }
            ls_report_clear(&rep);
            /* a failing call writes the context's error text: under the lock
             * on a shared context */
            if (s % 4 == 0) {
                double Z[9] = {0}, z[3] = {1, 2, 3};
                st = ls_solve(ctx, &opt, 3, 1, Z, 3, z, 3, &rep);
                if (st == 0 || !rep.message[0])
                    jb->failures++;
                ls_report_clear(&rep);
                if (ls_context_supports(ctx, LS_METHOD_LU, LS_DOUBLE) != 0)
                    jb->failures++;
            }
        }
        free(A);
        free(LU);
        free(B);
        free(X);
        free(ipiv);
    }
    if (!jb->shared)
        ls_context_destroy(ctx);
    return NULL;
}

static int phase(const char *name, int threads, int solves, ls_context *shared)
{
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    job *jobs = calloc((size_t)threads, sizeof *jobs);
    if (!tid || !jobs) {
        free(tid);
        free(jobs);
        return 1;
    }
    int failures = 0, started = 0;
    for (int t = 0; t < threads; t++) {
        jobs[t] = (job){.id = t, .solves = solves, .shared = shared};
        if (pthread_create(&tid[t], NULL, worker, &jobs[t]) != 0)
            failures += solves;
        else
            started++;
    }
    double worst = 0.0;
    for (int t = 0; t < started; t++) {
        pthread_join(tid[t], NULL);
        failures += jobs[t].failures;
        if (jobs[t].worst > worst)
            worst = jobs[t].worst;
    }
    printf("%-16s %7d %7d %10d %12.3g   %s\n", name, threads, solves * 2, failures, worst,
           failures ? "failed" : "ok");
    free(tid);
    free(jobs);
    return failures;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4, solves = argc > 2 ? atoi(argv[2]) : 12;
    if (threads < 1 || solves < 1 || (argc > 3 && ls_backend_parse(argv[3], &backend) != 0)) {
        fprintf(stderr, "usage: %s [threads] [solves per thread] [cpu|cuda|opencl]\n", argv[0]);
        return 2;
    }
    ls_context *shared = NULL;
    if (ls_context_create(&shared, backend, 0) != 0) {
        printf("skipped: no %s context here: %s\n", ls_backend_name(backend),
               ls_context_error(shared));
        ls_context_destroy(shared);
        return backend == LS_BACKEND_CPU ? 1 : SKIP;
    }
    printf("backend %s (%s)\n", ls_backend_name(backend), ls_context_device_name(shared));
    printf("%-16s %7s %7s %10s %12s   %s\n", "contexts", "threads", "solves", "failures",
           "worst resid", "result");
    int failures = phase("one per thread", threads, solves, NULL);
    failures += phase("one shared", threads, solves, shared);
    ls_context_destroy(shared);
    return failures;
}
