/*
 * Every CPU method through the public ls_solve, double and single, on
 * random, diagonally dominant, zero-diagonal and ill-conditioned (randsvd)
 * matrices, lda = n + 3, nrhs 1 and 3; each answer graded by the scaled
 * residual. Plus no-pivoting runs and BiCGStab's honesty on hard inputs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/methods/methods.h"
#include "testutil.h"

static const int sizes[] = {1, 2, 3, 17, 64, 255, 512};
/* The CPU's direct methods (lt_direct_methods): the first n_nopivot honour
 * pivot none. */
static ls_method direct_methods[LS_METHOD_COUNT_];
static int n_direct, n_nopivot;

typedef struct kind_case {
    ls_gen_kind kind;
    const char *label;
} kind_case;

static const kind_case kinds[] = {{LS_GEN_RANDOM, "random"},
                                  {LS_GEN_DIAGDOM, "diagdom"},
                                  {LS_GEN_ZERODIAG, "zerodiag"},
                                  {LS_GEN_RANDSVD, "randsvd"}};

/* Relative tolerance for BiCGStab that still leaves the scaled residual of
 * a converged answer well under 30 (||r||inf <= ||r||2 <= rtol sqrt(n) ||b||2). */
static double bicgstab_rtol(ls_precision p)
{
    return p == LS_SINGLE ? 2e-6 : 1e-13;
}

/* What a case must give: a solution with a good residual; or, for BiCGStab on
 * a matrix it need not handle, that or an honest NOT_CONVERGED/BREAKDOWN;
 * or info = 1 (the 1 x 1 zero-diagonal matrix is exactly singular). */
enum { MUST_SOLVE = 0, MAY_NOT_CONVERGE = -1, SINGULAR_AT_1 = 1 };

/* Solve one case; returns 1 on failure. */
static int run_case(ls_context *ctx, ls_method m, ls_precision p, ls_pivot piv, int n, int nrhs,
                    const double *A, int lda, const double *B, const char *label, int expect)
{
    int ldb = n + 1;
    double *X = lt_doubles((size_t)ldb * nrhs);
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < ldb; i++)
            X[i + (size_t)j * ldb] = i < n ? B[i + (size_t)j * lda] : 7.0;
    ls_options opt;
    ls_options_init(&opt);
    opt.method = m;
    opt.precision = p;
    opt.pivot = piv;
    if (m == LS_METHOD_BICGSTAB)
        opt.rtol = bicgstab_rtol(p);
    ls_report rep;
    int st = ls_solve(ctx, &opt, n, nrhs, A, lda, X, ldb, &rep);
    double res = ls_scaled_residual(n, nrhs, A, lda, X, ldb, B, lda, ls_eps(p));
    int ok;
    if (expect == SINGULAR_AT_1)
        ok = st == 1 && rep.info == 1;
    else if (st == 0)
        ok = res <= LS_TEST_TOL;
    else
        ok = expect == MAY_NOT_CONVERGE && (st == LS_NOT_CONVERGED || st == LS_BREAKDOWN);
    if (st == 0 && m == LS_METHOD_BICGSTAB && n > 1) {
        /* A converged run has a history that ends at or below rtol. */
        ok = ok && rep.history && rep.history_len >= 1 && rep.history_len <= rep.iterations &&
             rep.history[rep.history_len - 1] <= bicgstab_rtol(p);
    }
    /* The padding rows of X (ldb > n) are the caller's: never written. */
    for (int j = 0; j < nrhs; j++)
        if (X[n + (size_t)j * ldb] != 7.0)
            ok = 0;
    char name[48];
    snprintf(name, sizeof name, "%s%s/%s", ls_method_name(m), piv == LS_PIVOT_NONE ? "-np" : "",
             label);
    double t = rep.t_factor + rep.t_solve;
    int fail = lt_row(n, nrhs, name, "cpu", ls_precision_name(p), t, rep.gflops, res, ok);
    if (fail || (m == LS_METHOD_BICGSTAB && st))
        printf("        status %d (%s): %s\n", st, ls_status_name(st), rep.message);
    ls_report_clear(&rep);
    free(X);
    return fail;
}

int main(void)
{
    ls_context *ctx = NULL;
    int st = ls_context_create(&ctx, LS_BACKEND_CPU, 0);
    if (st) {
        printf("cannot create a cpu context: %s\n", ctx ? ls_context_error(ctx) : "");
        ls_context_destroy(ctx);
        return 1;
    }
    int have_lapack = ls_context_supports(ctx, LS_METHOD_LAPACK, LS_DOUBLE) == 0;
    printf("device: %s; lapack method %s\n", ls_context_device_name(ctx),
           have_lapack ? "available" : "not built");
    n_direct = lt_direct_methods(ctx, direct_methods, LS_METHOD_COUNT_, &n_nopivot);
    lt_header();
    /* ge, lu, gj1, gj2 at least, and lapack where built: never an empty sweep */
    int failures = lt_check(n_nopivot >= 4 && n_direct >= n_nopivot + have_lapack,
                            "direct methods found: %d, %d of them honour pivot none", n_direct,
                            n_nopivot);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int n = sizes[si], lda = n + 3;
        double *A = lt_doubles((size_t)lda * n), *B = lt_doubles((size_t)lda * 3);
        for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
            for (int pi = 0; pi < 2; pi++) {
                ls_precision p = pi ? LS_SINGLE : LS_DOUBLE;
                uint64_t seed = 1000u * n + 10u * ki + pi;
                double cond = p == LS_SINGLE ? 1e3 : 1e8;
                failures += lt_check(ls_generate(kinds[ki].kind, n, A, lda, seed, cond) == 0,
                                     "generate %s n=%d", kinds[ki].label, n);
                ls_fill_random(n, 3, B, lda, seed + 7);
                int expect = (kinds[ki].kind == LS_GEN_ZERODIAG && n == 1) ? SINGULAR_AT_1
                                                                           : MUST_SOLVE;
                for (int nrhs = 1; nrhs <= 3; nrhs += 2) {
                    for (int mi = 0; mi < n_direct; mi++) {
                        ls_method m = direct_methods[mi];
                        if (m == LS_METHOD_LAPACK && !have_lapack)
                            continue;
                        failures += run_case(ctx, m, p, LS_PIVOT_PARTIAL, n, nrhs, A, lda, B,
                                             kinds[ki].label, expect);
                    }
                    if (kinds[ki].kind == LS_GEN_DIAGDOM)
                        failures += run_case(ctx, LS_METHOD_BICGSTAB, p, LS_PIVOT_PARTIAL, n,
                                             nrhs, A, lda, B, kinds[ki].label, MUST_SOLVE);
                    else if (n <= 64 && kinds[ki].kind == LS_GEN_RANDOM)
                        failures += run_case(ctx, LS_METHOD_BICGSTAB, p, LS_PIVOT_PARTIAL, n,
                                             nrhs, A, lda, B, kinds[ki].label, MAY_NOT_CONVERGE);
                    /* No pivoting is safe on diagonally dominant matrices. */
                    if (kinds[ki].kind == LS_GEN_DIAGDOM && n <= 64)
                        for (int mi = 0; mi < n_nopivot; mi++)
                            failures += run_case(ctx, direct_methods[mi], p, LS_PIVOT_NONE, n,
                                                 nrhs, A, lda, B, kinds[ki].label, MUST_SOLVE);
                }
            }
        }
        free(A);
        free(B);
    }

    /* Many right-hand sides: the code paths that split work over rhs columns
     * (getrs) and over rows of a wide B (gj1's backward phase). */
    {
        int n = 300, lda = n + 3, nrhs = 250;
        double *A = lt_doubles((size_t)lda * n), *B = lt_doubles((size_t)lda * nrhs);
        ls_generate(LS_GEN_RANDOM, n, A, lda, 77, 0);
        ls_fill_random(n, nrhs, B, lda, 78);
        for (int pi = 0; pi < 2; pi++)
            for (int mi = 0; mi < n_direct; mi++) {
                if (direct_methods[mi] == LS_METHOD_LAPACK && !have_lapack)
                    continue;
                failures += run_case(ctx, direct_methods[mi], pi ? LS_SINGLE : LS_DOUBLE,
                                     LS_PIVOT_PARTIAL, n, nrhs, A, lda, B, "random", MUST_SOLVE);
            }
        free(A);
        free(B);
    }

    /* Without pivoting a zero diagonal stops at the first column: info = 1,
     * and ls_solve returns it (no answer is claimed). */
    {
        int n = 17, lda = n + 3;
        double *A = lt_doubles((size_t)lda * n), *B = lt_doubles((size_t)lda);
        ls_generate(LS_GEN_ZERODIAG, n, A, lda, 5, 0);
        for (int mi = 0; mi < n_nopivot; mi++) {
            ls_fill_random(n, 1, B, lda, 6);
            ls_options opt;
            ls_options_init(&opt);
            opt.method = direct_methods[mi];
            opt.pivot = LS_PIVOT_NONE;
            ls_report rep;
            st = ls_solve(ctx, &opt, n, 1, A, lda, B, lda, &rep);
            failures += lt_check(st == 1 && rep.info == 1,
                                 "%s without pivoting on zerodiag: status %d info %d (want 1)",
                                 ls_method_name(opt.method), st, rep.info);
            ls_report_clear(&rep);
        }
        free(A);
        free(B);
    }

    /* What the report carries: the backend's timings, the method table's
     * traffic model, the method AUTO picks, BiCGStab's history. */
    {
        int n = 200, nrhs = 2;
        double *A = lt_doubles((size_t)n * n), *B = lt_doubles((size_t)n * nrhs);
        ls_generate(LS_GEN_DIAGDOM, n, A, n, 31, 0);
        ls_options opt;
        ls_options_init(&opt);
        ls_report rep;
        ls_fill_random(n, nrhs, B, n, 32);
        st = ls_solve(ctx, &opt, n, nrhs, A, n, B, n, &rep);
        ls_method want_auto = have_lapack ? LS_METHOD_LAPACK : LS_METHOD_LU;
        failures += lt_check(st == 0 && rep.method == want_auto,
                             "auto on cpu runs %s (got %s)", ls_method_name(want_auto),
                             ls_method_name(rep.method));
        ls_report_clear(&rep);
        opt.method = LS_METHOD_LU;
        ls_fill_random(n, nrhs, B, n, 32);
        st = ls_solve(ctx, &opt, n, nrhs, A, n, B, n, &rep);
        double want_bytes = ls_method_bytes(LS_METHOD_LU, n, nrhs, 8, 0);
        failures += lt_check(st == 0 && rep.t_factor > 0 && rep.t_solve > 0 && rep.info == 0 &&
                                 fabs(rep.bytes - want_bytes) <= 1e-9 * want_bytes &&
                                 !rep.history && strncmp(rep.device, "cpu: ", 5) == 0,
                             "lu report: t_factor %.2g t_solve %.2g bytes %.4g (model %.4g), "
                             "device \"%s\"",
                             rep.t_factor, rep.t_solve, rep.bytes, want_bytes, rep.device);
        ls_report_clear(&rep);
        opt.method = LS_METHOD_BICGSTAB;
        opt.rtol = 1e-12;
        ls_fill_random(n, nrhs, B, n, 32);
        st = ls_solve(ctx, &opt, n, nrhs, A, n, B, n, &rep);
        int hist_ok = rep.history && rep.history_len >= 1;
        for (int i = 0; hist_ok && i < rep.history_len; i++)
            hist_ok = isfinite(rep.history[i]) && rep.history[i] >= 0;
        failures += lt_check(st == 0 && rep.iterations >= 1 && hist_ok && rep.bytes > 0 &&
                                 rep.t_solve > 0 && strstr(rep.message, "converged"),
                             "bicgstab report: %d iterations, history of %d, message \"%s\"",
                             rep.iterations, rep.history_len, rep.message);
        ls_report_clear(&rep);
        /* A 50-iteration cap on a hopeless system: an honest NOT_CONVERGED. */
        ls_generate(LS_GEN_RANDSVD, n, A, n, 33, 1e12);
        opt.max_iter = 50;
        ls_fill_random(n, nrhs, B, n, 32);
        st = ls_solve(ctx, &opt, n, nrhs, A, n, B, n, &rep);
        failures += lt_check((st == LS_NOT_CONVERGED && strstr(rep.message, "did not converge") &&
                              rep.iterations == 50) ||
                                 (st == LS_BREAKDOWN && strstr(rep.message, "breakdown")),
                             "bicgstab on randsvd 1e12, 50 its: %s, \"%s\"",
                             ls_status_name(st), rep.message);
        ls_report_clear(&rep);
        if (have_lapack) {
            opt.method = LS_METHOD_LAPACK;
            opt.pivot = LS_PIVOT_NONE;
            st = ls_solve(ctx, &opt, n, nrhs, A, n, B, n, &rep);
            failures += lt_check(st == LS_EUNSUPPORTED, "lapack without pivoting refused (%s)",
                                 ls_status_name(st));
            ls_report_clear(&rep);
        }
        free(A);
        free(B);
    }

    /* Methods other backends own must be refused by name. */
    {
        char err[256] = "";
        const ls_method foreign[] = {LS_METHOD_GE_NAIVE, LS_METHOD_LU_SEED, LS_METHOD_GE_IMAGE};
        for (int i = 0; i < 3; i++) {
            st = ls_context_supports(ctx, foreign[i], LS_DOUBLE);
            snprintf(err, sizeof err, "%s", ls_context_error(ctx));
            failures += lt_check(st == LS_EUNSUPPORTED && strstr(err, ls_method_name(foreign[i])) &&
                                     strstr(err, "available: ge lu gj1 gj2 bicgstab"),
                                 "%s refused on cpu: \"%s\"", ls_method_name(foreign[i]), err);
        }
    }

    /* ls_print_info shows the cpu section the backend writes. */
    {
        FILE *f = tmpfile();
        char text[4096] = "";
        if (f) {
            ls_print_info(f);
            rewind(f);
            size_t got = fread(text, 1, sizeof text - 1, f);
            text[got] = '\0';
            fclose(f);
        }
        failures += lt_check(strstr(text, "OpenMP max threads") && strstr(text, "LAPACKE") &&
                                 strstr(text, "model:"),
                             "ls_print_info lists the cpu model, threads and LAPACKE");
    }

    ls_context_destroy(ctx);
    printf("%d failure(s)\n", failures);
    return failures;
}
