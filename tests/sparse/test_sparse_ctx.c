/*
 * The sparse solvers on a context (ls_csr_solve_iter_ctx,
 * ls_csr_solve_direct_ctx): ctx NULL and a CPU context give exactly the
 * CPU's answer; a backend without sparse solvers (OpenCL, where one opens)
 * and a CUDA context that did not open say so by name (the reason once)
 * and touch nothing.
 * Runs everywhere; the CUDA solves themselves are tests/cuda's.
 * Exit status: the number of failures.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Why a context did not open is said once, however many calls ask. */
static int said_once(const char *text, const char *what)
{
    const char *first = strstr(text, what);
    return !first || !strstr(first + 1, what);
}

int main(void)
{
    int fails = 0;
    ls_csr A;
    if (ls_gen_poisson(2, 30, &A) != 0)
        return 1;
    const int64_t n = A.n_rows;
    double *b = lt_doubles((size_t)n), *x0 = lt_doubles((size_t)n), *x1 = lt_doubles((size_t)n);
    for (int64_t i = 0; i < n; i++)
        b[i] = 1.0 + (double)(i % 5);
    ls_iter_options o;
    ls_iter_options_init(&o);
    o.method = LS_ITER_CG;
    o.precond = LS_PRECOND_ILU0;
    ls_iter_report r0, r1;
    char err[512];

    int s0 = ls_csr_solve_iter(&A, b, x0, &o, &r0, NULL, 0);
    int s1 = ls_csr_solve_iter_ctx(NULL, &A, b, x1, &o, &r1, err, sizeof err);
    fails += lt_check(s0 == 0 && s1 == 0 && !memcmp(x0, x1, sizeof(double) * (size_t)n) &&
                          r0.iterations == r1.iterations,
                      "ctx NULL is the CPU (%d and %d iterations)", r0.iterations, r1.iterations);

    ls_context *cpu = NULL;
    if (ls_context_create(&cpu, LS_BACKEND_CPU, 0) == 0) {
        memset(x1, 0, sizeof(double) * (size_t)n);
        s1 = ls_csr_solve_iter_ctx(cpu, &A, b, x1, &o, &r1, err, sizeof err);
        fails += lt_check(s1 == 0 && !memcmp(x0, x1, sizeof(double) * (size_t)n),
                          "a CPU context is the CPU");
        double *X = lt_doubles((size_t)n);
        ls_csr_direct_report dr;
        int sd = ls_csr_solve_direct_ctx(cpu, &A, 1, b, n, X, n, &dr, err, sizeof err);
        fails += lt_check(ls_csr_direct_available_ctx(cpu) == ls_csr_direct_available() &&
                              (sd == 0 || (sd == LS_EUNSUPPORTED && !ls_csr_direct_available())),
                          "direct on a CPU context: %s", ls_status_name(sd));
        free(X);
    } else {
        fails += lt_check(0, "a CPU context opens");
    }
    ls_context_destroy(cpu);

    /* OpenCL (PoCL in CI) has no sparse solvers; CUDA without a GPU does
     * not open. Either way: a named refusal, x untouched. */
    const ls_backend_kind kinds[] = {LS_BACKEND_OPENCL, LS_BACKEND_CUDA};
    for (int k = 0; k < 2; k++) {
        ls_context *ctx = NULL;
        int open = ls_context_create(&ctx, kinds[k], -1);
        if (open == 0 && kinds[k] == LS_BACKEND_CUDA) {
            ls_context_destroy(ctx); /* a GPU: tests/cuda covers it */
            continue;
        }
        for (int64_t i = 0; i < n; i++)
            x1[i] = 7.0;
        err[0] = '\0';
        s1 = ls_csr_solve_iter_ctx(ctx, &A, b, x1, &o, &r1, err, sizeof err);
        int untouched = 1;
        for (int64_t i = 0; i < n; i++)
            untouched &= x1[i] == 7.0;
        const char *name = ls_backend_name(kinds[k]);
        fails += lt_check(s1 < 0 && s1 != LS_EINVAL && untouched && strstr(err, name) != NULL &&
                              !strcmp(err, r1.message),
                          "iterative on %s (%s): %s: %s", name, open ? "not open" : "open",
                          ls_status_name(s1), err);
        double *X = lt_doubles((size_t)n);
        ls_csr_direct_report dr;
        int sd = ls_csr_solve_direct_ctx(ctx, &A, 1, b, n, X, n, &dr, err, sizeof err);
        fails += lt_check(sd < 0 && strstr(err, name) != NULL && said_once(err, "did not open") &&
                              !ls_csr_direct_available_ctx(ctx),
                          "direct on %s: %s: %s", name, ls_status_name(sd), err);
        free(X);
        ls_context_destroy(ctx);
    }
    free(b), free(x0), free(x1);
    ls_csr_free(&A);
    return fails;
}
