/*
 * ls_dsgesv on the CPU: FP32 factors refined in FP64 (IR, GMRES-IR, auto)
 * on randsvd matrices of condition 10 .. 1e12, the FP64 fallback where
 * FP32 cannot do it, and the edges: singular A, NaN input, an A beyond
 * FP32's range, factor precisions the CPU lacks, illegal arguments.
 * Exit status: the number of failures.
 */
#include "mixed_case.h"

static const int sizes[] = {64, 200, 513};
static const double conds[] = {10, 1e4, 1e8, 1e12};

static int contract_sweep(void)
{
    int fails = 0;
    uint64_t seed = 11;
    mx_header();
    for (size_t ci = 0; ci < sizeof conds / sizeof conds[0]; ci++)
        for (size_t ni = 0; ni < sizeof sizes / sizeof sizes[0]; ni++) {
            /* FP32 (u = 6e-8) cannot refine cond 1e12: it must fall back */
            mx_case c = {LS_FACTOR_FP32, LS_REFINE_AUTO, sizes[ni], 1, conds[ci], 1,
                         conds[ci] >= 1e12, 1.0};
            fails += mx_run_case(NULL, &c, seed++);
        }
    /* each refinement kind alone, several right-hand sides, fallback off */
    mx_case more[] = {
        {LS_FACTOR_FP32, LS_REFINE_IR, 200, 3, 1e4, 1, 0, 1.0},
        {LS_FACTOR_FP32, LS_REFINE_GMRES, 200, 3, 1e6, 1, 0, 1.0},
        {LS_FACTOR_AUTO, LS_REFINE_AUTO, 200, 2, 1e2, 1, 0, 1.0},
        {LS_FACTOR_FP32, LS_REFINE_IR, 200, 1, 1e12, 0, 1, 1.0},
        {LS_FACTOR_FP32, LS_REFINE_AUTO, 200, 1, 1e3, 1, 0, 1e-30},
    };
    for (size_t k = 0; k < sizeof more / sizeof more[0]; k++)
        fails += mx_run_case(NULL, &more[k], seed++);
    return fails;
}

/* IR must actually take steps at a moderate condition: the first
 * residual (plain FP32 solve) is far above 30, the last one below. */
static int refinement_happens(void)
{
    int n = 200;
    double *A = lt_doubles((size_t)n * n), *B = lt_doubles(n), *X = lt_doubles(n);
    int *ipiv = lt_xmalloc(sizeof(int) * n);
    ls_generate(LS_GEN_RANDSVD, n, A, n, 5, 1e4);
    ls_fill_random(n, 1, B, n, 6);
    ls_mixed_opts o;
    ls_mixed_opts_init(&o);
    o.refine = LS_REFINE_IR;
    ls_mixed_result r;
    int st = ls_dsgesv(NULL, n, 1, A, n, ipiv, B, n, X, n, &o, &r);
    int ok = st == 0 && r.converged && !r.fell_back && r.iterations >= 1 &&
             r.history_len == r.iterations + 1 && r.history[0] > 30 &&
             r.history[r.history_len - 1] <= 30 && r.refine == LS_REFINE_IR &&
             r.factor == LS_FACTOR_FP32;
    mx_print_history(&r);
    free(A);
    free(B);
    free(X);
    free(ipiv);
    return lt_check(ok, "IR takes %d step(s) from %.2e to %.2e", r.iterations, r.history[0],
                    r.history_len ? r.history[r.history_len - 1] : NAN);
}

static int singular(void)
{
    int n = 65;
    double *A = lt_doubles((size_t)n * n), *B = lt_doubles(n), *X = lt_doubles(n);
    int *ipiv = lt_xmalloc(sizeof(int) * n);
    ls_generate(LS_GEN_SINGULAR, n, A, n, 3, 0);
    ls_fill_random(n, 1, B, n, 4);
    ls_mixed_result r;
    int st = ls_dsgesv(NULL, n, 1, A, n, ipiv, B, n, X, n, NULL, &r);
    int ok = st > 0 && st <= n && r.fell_back && mx_all_finite(n, 1, X) &&
             strstr(r.message, "singular") != NULL;
    printf("         %s\n", r.message);
    free(A);
    free(B);
    free(X);
    free(ipiv);
    return lt_check(ok, "singular A: info = %d, fell_back = %d", st, r.fell_back);
}

static int nonfinite(int in_b)
{
    int n = 40;
    double *A = lt_doubles((size_t)n * n), *B = lt_doubles(n), *X = lt_doubles(n);
    int *ipiv = lt_xmalloc(sizeof(int) * n);
    ls_generate(LS_GEN_RANDOM, n, A, n, 3, 0);
    ls_fill_random(n, 1, B, n, 4);
    if (in_b)
        B[7] = INFINITY;
    else
        A[5 + 9 * n] = NAN;
    ls_mixed_result r;
    int st = ls_dsgesv(NULL, n, 1, A, n, ipiv, B, n, X, n, NULL, &r);
    int ok = st == LS_ENONFINITE && mx_all_finite(n, 1, X) &&
             strstr(r.message, in_b ? "B holds NaN or Inf" : "A holds NaN or Inf") != NULL;
    printf("         %s\n", r.message);
    free(A);
    free(B);
    free(X);
    free(ipiv);
    return lt_check(ok, "non-finite %s: status %s", in_b ? "B" : "A", ls_status_name(st));
}

/* Entries beyond FP32's range: LAPACK's dsgesv goes to FP64 at once. */
static int beyond_fp32(void)
{
    int n = 50;
    double *A = lt_doubles((size_t)n * n), *A0 = lt_doubles((size_t)n * n);
    double *B = lt_doubles(n), *X = lt_doubles(n);
    int *ipiv = lt_xmalloc(sizeof(int) * n);
    ls_generate(LS_GEN_RANDOM, n, A, n, 8, 0);
    for (int k = 0; k < n * n; k++)
        A0[k] = A[k] *= 1e300;
    ls_fill_random(n, 1, B, n, 9);
    ls_mixed_result r;
    int st = ls_dsgesv(NULL, n, 1, A, n, ipiv, B, n, X, n, NULL, &r);
    double res = ls_scaled_residual(n, 1, A0, n, X, n, B, n, ls_eps(LS_DOUBLE));
    int ok = st == 0 && r.fell_back && res <= 30 && strstr(r.message, "does not fit") != NULL;
    printf("         %s\n", r.message);
    free(A);
    free(A0);
    free(B);
    free(X);
    free(ipiv);
    return lt_check(ok, "A of 1e300: fell back, residual %.2e", res);
}

static int unsupported_and_args(void)
{
    int fails = 0, n = 8;
    double A[64], B[8], X[8];
    int ipiv[8];
    ls_generate(LS_GEN_DIAGDOM, n, A, n, 1, 0);
    ls_fill_random(n, 1, B, n, 2);
    ls_mixed_opts o;
    ls_mixed_result r;
    const ls_factor_prec gpu_only[] = {LS_FACTOR_TF32, LS_FACTOR_TF32X3, LS_FACTOR_BF16,
                                       LS_FACTOR_FP16};
    for (size_t k = 0; k < 4; k++) {
        ls_mixed_opts_init(&o);
        o.factor = gpu_only[k];
        int st = ls_dsgesv(NULL, n, 1, A, n, ipiv, B, n, X, n, &o, &r);
        fails += lt_check(st == LS_EUNSUPPORTED && strstr(r.message, ls_factor_name(o.factor)),
                          "factor %s on the cpu: %s (\"%s\")", ls_factor_name(o.factor),
                          ls_status_name(st), r.message);
    }
    fails += lt_check(ls_dsgesv(NULL, -1, 1, A, n, ipiv, B, n, X, n, NULL, &r) == -1,
                      "n = -1 -> -1");
    fails += lt_check(ls_dsgesv(NULL, n, 1, A, n - 1, ipiv, B, n, X, n, NULL, &r) == -4,
                      "lda < n -> -4");
    fails += lt_check(ls_dsgesv(NULL, n, 1, A, n, NULL, B, n, X, n, NULL, &r) == -5,
                      "ipiv NULL -> -5");
    fails += lt_check(ls_dsgesv(NULL, n, 1, A, n, ipiv, B, n, X, n - 1, NULL, &r) == -9,
                      "ldx < n -> -9");
    ls_mixed_opts_init(&o);
    o.restart = 0;
    fails += lt_check(ls_dsgesv(NULL, n, 1, A, n, ipiv, B, n, X, n, &o, &r) == -10,
                      "restart 0 -> -10");
    fails += lt_check(ls_dsgesv_gpu(NULL, n, 1, A, n, ipiv, B, n, X, n, NULL, &r) == LS_EUNAVAIL,
                      "ls_dsgesv_gpu without CUDA -> LS_EUNAVAIL");
    ls_factor_prec f;
    ls_refine_kind k;
    fails += lt_check(!ls_factor_parse("tf32x3", &f) && f == LS_FACTOR_TF32X3 &&
                          !ls_refine_parse("gmres", &k) && k == LS_REFINE_GMRES &&
                          ls_factor_parse("fp8", &f) == LS_EINVAL,
                      "factor and refinement names round-trip");
    return fails;
}

int main(void)
{
    int fails = contract_sweep();
    fails += refinement_happens();
    fails += singular();
    fails += nonfinite(0);
    fails += nonfinite(1);
    fails += beyond_fp32();
    fails += unsupported_and_args();
    printf("%d failure(s)\n", fails);
    return fails;
}
