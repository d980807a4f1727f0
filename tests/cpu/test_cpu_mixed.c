/*
 * ls_dsgesv on the CPU: FP32 factors refined in FP64 (IR, GMRES-IR, auto)
 * on randsvd matrices of condition 10 .. 1e12, the FP64 fallback where
 * FP32 cannot do it, and the edges: singular A, NaN input, an A beyond
 * FP32's range, factor precisions the CPU lacks, illegal arguments.
 * Exit status: the number of failures.
 */
#include "algo/mixed.h"
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
                         conds[ci] >= 1e12, 1.0, LS_PIVOT_PARTIAL};
            fails += mx_run_case(NULL, &c, seed++);
        }
    /* each refinement kind alone, several right-hand sides, fallback off */
    mx_case more[] = {
        {LS_FACTOR_FP32, LS_REFINE_IR, 200, 3, 1e4, 1, 0, 1.0, LS_PIVOT_PARTIAL},
        {LS_FACTOR_FP32, LS_REFINE_GMRES, 200, 3, 1e6, 1, 0, 1.0, LS_PIVOT_PARTIAL},
        {LS_FACTOR_AUTO, LS_REFINE_AUTO, 200, 2, 1e2, 1, 0, 1.0, LS_PIVOT_PARTIAL},
        {LS_FACTOR_FP32, LS_REFINE_IR, 200, 1, 1e12, 0, 1, 1.0, LS_PIVOT_PARTIAL},
        {LS_FACTOR_FP32, LS_REFINE_AUTO, 200, 1, 1e3, 1, 0, 1e-30, LS_PIVOT_PARTIAL},
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

/* ---- the shared rules of algo/mixed.c on a scripted backend ----
 * Every backend runs ls_mixed_run; these check its decisions without
 * arithmetic: non-finite input refused before any factorization, a zero
 * pivot in both precisions reported as info with X zeroed, and a backend
 * failure during the fallback passed on as it came. (The CUDA backend got
 * the first two wrong once because a host pointer had faulted its context;
 * the decisions themselves are the same code for every backend.) */
typedef struct mock {
    double anorm, bnorm;
    int info[2];   /* what factor() reports per level */
    int fail_fp64; /* factor(FP64) fails as a device would */
    int factored[2], zeroed, pivots_level;
} mock;

static int mk_norms(void *ws, double *a, double *b, char *err, size_t len)
{
    (void)err, (void)len;
    *a = ((mock *)ws)->anorm;
    *b = ((mock *)ws)->bnorm;
    return 0;
}
static int mk_factor(void *ws, int level, int *info, int *kept, char *err, size_t len)
{
    mock *k = ws;
    k->factored[level]++;
    *kept = 1;
    *info = k->info[level];
    if (level == LS_MX_FP64 && k->fail_fp64) {
        snprintf(err, len, "device failure (scripted)");
        return LS_EDEVICE;
    }
    return 0;
}
static int mk_ok(void *ws, char *err, size_t len)
{
    (void)ws, (void)err, (void)len;
    return 0;
}
static int mk_residual(void *ws, double *r, double *x, char *err, size_t len)
{
    (void)ws, (void)err, (void)len;
    *r = 0; /* an exact answer: the low refinement is done at once */
    *x = 1;
    return 0;
}
static int mk_level(void *ws, int level, char *err, size_t len)
{
    (void)ws, (void)level, (void)err, (void)len;
    return 0;
}
static int mk_gm_start(void *ws, int j, double *beta, char *err, size_t len)
{
    (void)ws, (void)j, (void)err, (void)len;
    *beta = 0;
    return 0;
}
static int mk_gm_step(void *ws, int k, double *h, char *err, size_t len)
{
    (void)ws, (void)err, (void)len;
    for (int i = 0; i <= k; i++)
        h[i] = 0;
    return 0;
}
static int mk_gm_update(void *ws, int j, int k, const double *y, char *err, size_t len)
{
    (void)ws, (void)j, (void)k, (void)y, (void)err, (void)len;
    return 0;
}
static int mk_zero_x(void *ws, char *err, size_t len)
{
    (void)err, (void)len;
    ((mock *)ws)->zeroed = 1;
    return 0;
}
static int mk_pivots(void *ws, int level, char *err, size_t len)
{
    (void)err, (void)len;
    ((mock *)ws)->pivots_level = level;
    return 0;
}
static void mk_close(void *ws) { (void)ws; }

static const ls_mixed_ops mock_ops = {mk_norms,    mk_factor,  mk_ok,        mk_residual,
                                      mk_level,    mk_gm_start, mk_gm_step, mk_gm_update,
                                      mk_zero_x,   mk_pivots,  mk_close,     NULL};

static int mock_run(mock *k, ls_mixed_result *r, char *err, size_t len)
{
    ls_mixed_problem pb = {10, 1, NULL, 10, NULL, NULL, 10, NULL, 10, LS_FACTOR_FP32, 30,
                           LS_PIVOT_PARTIAL};
    ls_mixed_opts o;
    ls_mixed_opts_init(&o);
    memset(r, 0, sizeof *r);
    err[0] = 0;
    return ls_mixed_run(&mock_ops, k, &pb, &o, r, err, len);
}

static int core_rules(void)
{
    int fails = 0;
    char err[512];
    ls_mixed_result r;
    mock k = {NAN, 1, {0, 0}, 0, {0, 0}, 0, -1};
    int st = mock_run(&k, &r, err, sizeof err);
    fails += lt_check(st == LS_ENONFINITE && !k.factored[0] && !k.factored[1] && k.zeroed,
                      "core: NaN in A -> %s before any factorization (%s)", ls_status_name(st),
                      r.message);
    mock k2 = {1, INFINITY, {0, 0}, 0, {0, 0}, 0, -1};
    st = mock_run(&k2, &r, err, sizeof err);
    fails += lt_check(st == LS_ENONFINITE && !k2.factored[0] && strstr(r.message, "B holds"),
                      "core: Inf in B -> %s before any factorization", ls_status_name(st));
    mock k3 = {1, 1, {5, 7}, 0, {0, 0}, 0, -1};
    st = mock_run(&k3, &r, err, sizeof err);
    fails += lt_check(st == 7 && r.fell_back && k3.factored[1] == 1 && k3.zeroed &&
                          k3.pivots_level == LS_MX_FP64 && strstr(r.message, "singular"),
                      "core: zero pivot in FP32 and FP64 -> info %d, X zeroed (%s)", st,
                      r.message);
    mock k4 = {1, 1, {5, 0}, 1, {0, 0}, 0, -1};
    st = mock_run(&k4, &r, err, sizeof err);
    fails += lt_check(st == LS_EDEVICE && strstr(err, "scripted"),
                      "core: a device failure in the fallback is passed on: %s (%s)",
                      ls_status_name(st), err);
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
    fails += core_rules();
    printf("%d failure(s)\n", fails);
    return fails;
}
