/* One case of the mixed-precision contract (ls_dsgesv), shared by the CPU
 * and GPU tests: solve a randsvd system of a chosen condition, then check
 * what the library says against what it did. Header-only (static). */
#ifndef LS_TEST_MIXED_CASE_H
#define LS_TEST_MIXED_CASE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct mx_case {
    ls_factor_prec factor;
    ls_refine_kind refine;
    int n, nrhs;
    double cond;
    int fallback;   /* opts.fallback */
    int must_fall;  /* 1: the low-precision refinement cannot be expected to converge */
    double scale;   /* A is multiplied by this (1: as generated) */
    ls_pivot pivot; /* opts.pivot (0: partial) */
} mx_case;

static inline void mx_header(void)
{
    printf("%6s %5s  %-24s %-6s %-5s %5s %6s %12s  %s\n", "N", "NRHS", "factor/refine cond",
           "backend", "path", "iters", "inner", "residual", "status");
}

/* Print the result's history on one line. */
static inline void mx_print_history(const ls_mixed_result *r)
{
    printf("         history:");
    for (int i = 0; i < r->history_len; i++)
        printf(" %.2e", r->history[i]);
    printf("%s\n", r->fell_back ? "  -> fell back to fp64" : "");
}

static inline int mx_all_finite(int n, int nrhs, const double *X)
{
    for (size_t i = 0; i < (size_t)n * nrhs; i++)
        if (!isfinite(X[i]))
            return 0;
    return 1;
}

/* Run one case on ctx (NULL: the CPU); returns 1 on failure. The contract:
 * status 0 with an independent FP64 scaled residual <= 30, or (fallback
 * off) an honest LS_NOT_CONVERGED; converged and fell_back never both;
 * fell_back where must_fall says the low precision cannot succeed unless
 * it really did converge (its residual is then checked all the same); A
 * unchanged unless fell_back; X finite. */
static inline int mx_run_case_on(ls_context *ctx, const mx_case *c, const double *Agen, int lda,
                          uint64_t seed);

static inline int mx_run_case(ls_context *ctx, const mx_case *c, uint64_t seed)
{
    int lda = c->n + 2;
    double *A = lt_doubles((size_t)lda * c->n);
    ls_generate(LS_GEN_RANDSVD, c->n, A, lda, seed, c->cond);
    int fail = mx_run_case_on(ctx, c, A, lda, seed);
    free(A);
    return fail;
}

/* As mx_run_case on a matrix made by the caller (scaled by c->scale here),
 * so that one costly randsvd serves several factor precisions. */
static inline int mx_run_case_on(ls_context *ctx, const mx_case *c, const double *Agen, int lda,
                          uint64_t seed)
{
    int n = c->n, nrhs = c->nrhs;
    double *A = lt_doubles((size_t)lda * n), *A0 = lt_doubles((size_t)lda * n);
    double *B = lt_doubles((size_t)n * nrhs), *X = lt_doubles((size_t)n * nrhs);
    int *ipiv = lt_xmalloc(sizeof(int) * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            A[i + (size_t)j * lda] = Agen[i + (size_t)j * lda] * c->scale;
    ls_fill_random(n, nrhs, B, n, seed + 1);
    for (size_t k = 0; k < (size_t)lda * n; k++)
        A0[k] = A[k];
    ls_mixed_opts o;
    ls_mixed_opts_init(&o);
    o.factor = c->factor;
    o.refine = c->refine;
    o.fallback = c->fallback;
    o.pivot = c->pivot;
    ls_mixed_result r;
    int st = ls_dsgesv(ctx, n, nrhs, A, lda, ipiv, B, n, X, n, &o, &r);
    double res = ls_scaled_residual(n, nrhs, A0, lda, X, n, B, n, ls_eps(LS_DOUBLE));
    int a_same = 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            a_same &= A[i + (size_t)j * lda] == A0[i + (size_t)j * lda];
    int ok = mx_all_finite(n, nrhs, X) && !(r.converged && r.fell_back) &&
             r.history_len >= (r.factor == LS_FACTOR_AUTO ? 0 : 1) && a_same == !r.fell_back &&
             (c->pivot == LS_PIVOT_AUTO || r.pivot == c->pivot);
    /* without interchanges the low factors' pivots are the identity */
    for (int i = 0; st == 0 && !r.fell_back && r.pivot != LS_PIVOT_PARTIAL && i < n; i++)
        ok = ok && ipiv[i] == i + 1;
    if (st == 0)
        ok = ok && res <= LS_TEST_TOL && (r.converged || r.fell_back) &&
             fabs(r.residual - res) <= 0.5 * res + 1e-3 && (!c->must_fall || r.fell_back ||
                                                             r.converged);
    else
        ok = ok && st == LS_NOT_CONVERGED && !c->fallback && !r.converged && !r.fell_back;
    if (c->fallback && c->must_fall && st == 0 && !r.fell_back)
        printf("         note: %s converged at cond %.0e (checked above)\n",
               ls_factor_name(r.factor), c->cond);
    char label[64];
    snprintf(label, sizeof label, "%s%s/%s c=%.0e", ls_factor_name(r.factor),
             r.pivot == LS_PIVOT_RBT ? "+rbt" : r.pivot == LS_PIVOT_NONE ? "+nopiv" : "",
             r.refine == LS_REFINE_AUTO ? "-" : ls_refine_name(r.refine), c->cond);
    int fail = !ok;
    printf("%6d %5d  %-24s %-6s %-5s %5d %6d %12.3e  %s\n", n, nrhs, label,
           ctx ? ls_backend_name(ls_context_backend(ctx)) : "cpu", r.fell_back ? "fp64" : "mixed",
           r.iterations, r.inner_iterations, res, ok ? "ok" : "failed");
    if (fail || r.fell_back || c->cond >= 1e8)
        mx_print_history(&r);
    if (fail)
        printf("         status %d (%s): %s\n", st, ls_status_name(st), r.message);
    free(A);
    free(A0);
    free(B);
    free(X);
    free(ipiv);
    return fail;
}

#endif
