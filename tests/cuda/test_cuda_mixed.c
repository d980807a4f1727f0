/*
 * ls_dsgesv / ls_dsgesv_gpu on CUDA: every factor precision (fp32, tf32,
 * tf32x3, bf16, fp16; fp64 with rbt only) x pivoting (partial, rbt) x cond
 * 10, 1e4, 1e8, 1e12 x n 64, 1000, 4097 keeps
 * the contract of tests/common/mixed_case.h (residual <= 30 by refinement
 * or by the reported FP64 fallback); FP16's equilibration on entries of
 * 1e6; the device-array entry point with device and host pivots, host
 * arrays refused by argument number; singular, NaN and Inf inputs. Skips
 * (77) without a CUDA device. Exit status: failures.
 */
#include <math.h>

#include "cuda_testlib.h"
#include "mixed_case.h"

static const ls_factor_prec factors[] = {LS_FACTOR_FP32, LS_FACTOR_TF32, LS_FACTOR_TF32X3,
                                         LS_FACTOR_BF16, LS_FACTOR_FP16, LS_FACTOR_FP64};
static const int sizes[] = {64, 1000, 4097};
static const double conds[] = {10, 1e4, 1e8, 1e12};

/* Unit roundoff of each factor precision's trailing products. */
static double unit_roundoff(ls_factor_prec f)
{
    return f == LS_FACTOR_BF16                               ? 0x1p-8
           : f == LS_FACTOR_TF32 || f == LS_FACTOR_FP16 ? 0x1p-11
           : f == LS_FACTOR_FP64                        ? 0x1p-53
                                                        : 0x1p-24;
}

static int sweep(ls_context *ctx)
{
    int fails = 0;
    uint64_t seed = 101;
    mx_header();
    for (size_t ni = 0; ni < sizeof sizes / sizeof sizes[0]; ni++)
        for (size_t ci = 0; ci < sizeof conds / sizeof conds[0]; ci++, seed++) {
            int n = sizes[ni], lda = n + 2;
            double *A = lt_doubles((size_t)lda * n);
            ls_generate(LS_GEN_RANDSVD, n, A, lda, seed, conds[ci]);
            for (size_t fi = 0; fi < sizeof factors / sizeof factors[0]; fi++)
                for (int rbt = factors[fi] == LS_FACTOR_FP64; rbt < 2; rbt++) {
                    /* beyond 1/u even GMRES-IR has no reason to converge: the
                     * fallback is then expected (a real convergence is checked too) */
                    mx_case c = {factors[fi], LS_REFINE_AUTO, n, 1, conds[ci], 1,
                                 conds[ci] * unit_roundoff(factors[fi]) > 1e3, 1.0,
                                 rbt ? LS_PIVOT_RBT : LS_PIVOT_PARTIAL};
                    fails += mx_run_case_on(ctx, &c, A, lda, seed);
                }
            free(A);
        }
    return fails;
}

/* Entries of about 1e6: FP16 (max 65504) overflows without equilibration;
 * with it, a well-conditioned matrix converges without falling back. */
static int fp16_scaling(ls_context *ctx)
{
    int n = 1000, lda = n, fails = 0;
    double *A = lt_doubles((size_t)n * n);
    ls_generate(LS_GEN_RANDSVD, n, A, lda, 77, 10);
    mx_case c = {LS_FACTOR_FP16, LS_REFINE_AUTO, n, 1, 10, 1, 0, 1e6 * sqrt((double)n),
                 LS_PIVOT_PARTIAL};
    ls_mixed_result r;
    fails += mx_run_case_on(ctx, &c, A, lda, 78);
    /* run it again to read the result: the case must not have fallen back */
    double *B = lt_doubles(n), *X = lt_doubles(n), *As = lt_doubles((size_t)n * n);
    int *ipiv = lt_xmalloc(sizeof(int) * n);
    for (size_t k = 0; k < (size_t)n * n; k++)
        As[k] = A[k] * c.scale;
    ls_fill_random(n, 1, B, n, 79);
    ls_mixed_opts o;
    ls_mixed_opts_init(&o);
    o.factor = LS_FACTOR_FP16;
    int st = ls_dsgesv(ctx, n, 1, As, n, ipiv, B, n, X, n, &o, &r);
    fails += lt_check(st == 0 && r.converged && !r.fell_back,
                      "fp16 on entries of 1e6: converged without fallback (%s)", r.message);
    free(A);
    free(B);
    free(X);
    free(As);
    free(ipiv);
    return fails;
}

/* The device-array entry point, pivots in device and in host memory. */
static int device_arrays(ls_context *ctx)
{
    int n = 1000, fails = 0;
    double *A = lt_doubles((size_t)n * n), *B = lt_doubles(n), *X = lt_doubles(n);
    int *ipiv = lt_xmalloc(sizeof(int) * n);
    ls_generate(LS_GEN_RANDSVD, n, A, n, 5, 1e3);
    ls_fill_random(n, 1, B, n, 6);
    double *dA = NULL, *dB = NULL, *dX = NULL;
    int *dipiv = NULL;
    size_t nn = (size_t)n * n * sizeof(double);
    for (int where = 0; where < 2; where++) {
        if (ls_device_malloc(ctx, (void **)&dA, nn) || ls_device_malloc(ctx, (void **)&dB, n * 8) ||
            ls_device_malloc(ctx, (void **)&dX, n * 8) ||
            ls_device_malloc(ctx, (void **)&dipiv, n * sizeof(int)))
            return lt_check(0, "device memory: %s", ls_context_error(ctx));
        ls_device_copy(ctx, dA, A, nn);
        ls_device_copy(ctx, dB, B, n * 8);
        ls_mixed_opts o;
        ls_mixed_opts_init(&o);
        o.factor = LS_FACTOR_TF32;
        ls_mixed_result r;
        int st = ls_dsgesv_gpu(ctx, n, 1, dA, n, where ? ipiv : dipiv, dB, n, dX, n, &o, &r);
        ls_device_copy(ctx, X, dX, n * 8);
        double res = ls_scaled_residual(n, 1, A, n, X, n, B, n, ls_eps(LS_DOUBLE));
        fails += lt_check(st == 0 && res <= 30 && r.converged,
                          "ls_dsgesv_gpu tf32, pivots in %s memory: residual %.2e, %d step(s)",
                          where ? "host" : "device", res, r.iterations);
        ls_device_free(ctx, dA);
        ls_device_free(ctx, dB);
        ls_device_free(ctx, dX);
        ls_device_free(ctx, dipiv);
    }
    /* refused before any kernel: one reading host memory would fault and
     * leave the context unusable for every later call (edges() runs next) */
    ls_mixed_result r;
    int st = ls_dsgesv_gpu(ctx, n, 1, A, n, ipiv, B, n, X, n, NULL, &r);
    fails += lt_check(st == -3, "ls_dsgesv_gpu on host arrays is refused: %d (%s)", st,
                      r.message);
    free(A);
    free(B);
    free(X);
    free(ipiv);
    return fails;
}

/* The butterfly path: a singular matrix falls back and says info; an order
 * with three indices outside the groups of 4 converges; FP16 on entries
 * of 1e6 (equilibration before the transform) converges. */
static int rbt_edges(ls_context *ctx)
{
    int n = 303, fails = 0;
    double *A = lt_doubles((size_t)n * n), *B = lt_doubles(n), *X = lt_doubles(n);
    int *ipiv = lt_xmalloc(sizeof(int) * n);
    ls_mixed_opts o;
    ls_mixed_opts_init(&o);
    o.pivot = LS_PIVOT_RBT;
    ls_mixed_result r;
    ls_generate(LS_GEN_SINGULAR, n, A, n, 3, 0);
    ls_fill_random(n, 1, B, n, 4);
    int st = ls_dsgesv(ctx, n, 1, A, n, ipiv, B, n, X, n, &o, &r);
    fails += lt_check(st > 0 && st <= n && r.fell_back && r.pivot == LS_PIVOT_RBT &&
                          mx_all_finite(n, 1, X),
                      "singular, rbt: info %d (%s)", st, r.message);
    ls_generate(LS_GEN_RANDOM, n, A, n, 5, 0);
    mx_case c = {LS_FACTOR_TF32X3, LS_REFINE_AUTO, n, 2, 0, 1, 0, 1.0, LS_PIVOT_RBT};
    fails += mx_run_case_on(ctx, &c, A, n, 6);
    mx_case h = {LS_FACTOR_FP16, LS_REFINE_AUTO, n, 1, 0, 1, 0, 1e6, LS_PIVOT_RBT};
    fails += mx_run_case_on(ctx, &h, A, n, 7);
    mx_case z = {LS_FACTOR_FP32, LS_REFINE_AUTO, n, 1, 0, 1, 0, 1.0, LS_PIVOT_NONE};
    fails += mx_run_case_on(ctx, &z, A, n, 8);
    mx_case d = {LS_FACTOR_FP64, LS_REFINE_AUTO, n, 1, 0, 1, 0, 1.0, LS_PIVOT_RBT};
    fails += mx_run_case_on(ctx, &d, A, n, 9);
    o.factor = LS_FACTOR_FP64;
    o.pivot = LS_PIVOT_PARTIAL;
    st = ls_dsgesv(ctx, n, 1, A, n, ipiv, B, n, X, n, &o, &r);
    fails += lt_check(st == LS_EUNSUPPORTED, "fp64 factors with partial pivoting refused: %s (%s)",
                      ls_status_name(st), r.message);
    double *S = lt_doubles((size_t)n * n);
    ls_generate(LS_GEN_SINGULAR, n, S, n, 3, 0);
    o.pivot = LS_PIVOT_RBT;
    st = ls_dsgesv(ctx, n, 1, S, n, ipiv, B, n, X, n, &o, &r);
    fails += lt_check(st > 0 && st <= n && r.fell_back && mx_all_finite(n, 1, X),
                      "singular, fp64 + rbt: info %d (%s)", st, r.message);
    free(S);
    o.factor = LS_FACTOR_AUTO;
    o.pivot = LS_PIVOT_AUTO;
    st = ls_dsgesv(ctx, n, 1, A, n, ipiv, B, n, X, n, &o, &r);
    fails += lt_check(st == 0 && r.pivot == LS_PIVOT_PARTIAL,
                      "auto below LS_CUDA_MIXED_RBT_MIN_N: partial (%s)", r.message);
    free(A);
    free(B);
    free(X);
    free(ipiv);
    return fails;
}

static int edges(ls_context *ctx)
{
    int n = 300, fails = 0;
    double *A = lt_doubles((size_t)n * n), *B = lt_doubles(n), *X = lt_doubles(n);
    int *ipiv = lt_xmalloc(sizeof(int) * n);
    ls_mixed_result r;
    ls_generate(LS_GEN_SINGULAR, n, A, n, 3, 0);
    ls_fill_random(n, 1, B, n, 4);
    int st = ls_dsgesv(ctx, n, 1, A, n, ipiv, B, n, X, n, NULL, &r);
    fails += lt_check(st > 0 && st <= n && r.fell_back && mx_all_finite(n, 1, X),
                      "singular on cuda: info %d (%s)", st, r.message);
    ls_generate(LS_GEN_RANDOM, n, A, n, 3, 0);
    A[17] = NAN;
    st = ls_dsgesv(ctx, n, 1, A, n, ipiv, B, n, X, n, NULL, &r);
    fails += lt_check(st == LS_ENONFINITE && mx_all_finite(n, 1, X), "NaN in A on cuda: %s (%s)",
                      ls_status_name(st), r.message);
    A[17] = 0.5;
    B[3] = INFINITY;
    st = ls_dsgesv(ctx, n, 1, A, n, ipiv, B, n, X, n, NULL, &r);
    fails += lt_check(st == LS_ENONFINITE && mx_all_finite(n, 1, X), "Inf in B on cuda: %s (%s)",
                      ls_status_name(st), r.message);
    ls_fill_random(n, 1, B, n, 4); /* and the context still solves */
    st = ls_dsgesv(ctx, n, 1, A, n, ipiv, B, n, X, n, NULL, &r);
    fails += lt_check(st == 0 && r.converged, "a solve after the refusals: %s (%s)",
                      ls_status_name(st), r.message);
    free(A);
    free(B);
    free(X);
    free(ipiv);
    return fails + rbt_edges(ctx);
}

int main(void)
{
    ls_context *ctx = ct_open_or_skip();
    int fails = sweep(ctx);
    fails += fp16_scaling(ctx);
    fails += device_arrays(ctx);
    fails += edges(ctx);
    printf("%d failure(s)\n", fails);
    ls_context_destroy(ctx);
    return fails;
}
