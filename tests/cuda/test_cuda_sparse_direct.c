/*
 * ls_csr_solve_direct_ctx on a CUDA context. Built with cuDSS: a 2-D
 * Poisson grid (n = 100^2), convection-diffusion grids (ls_gen_grid) and
 * the real matrices 494_bus, west0479, pde900 and watt_2, each with 1 and 3
 * right-hand sides (ldb > n), graded by the core's scaled residual (<= 30)
 * and compared with the CPU's UMFPACK solution where the library has it;
 * nrhs = 0 (factor only); a zero row and a zero column (a positive status
 * and a message naming it, X NaN); a numerically singular matrix (never a
 * negative status); argument errors (the core's statuses, no crash).
 * Built without cuDSS: the named refusal. Skips (77) without a CUDA
 * device. Usage: test_cuda_sparse_direct [--matrices DIR]. Exit status:
 * the number of failures.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_testlib.h"

#ifndef LS_TEST_CUDSS
#define LS_TEST_CUDSS 0
#endif

/* B = A * x with x(i, j) = (j + 1) (1 + (i mod 7) / 8), leading dimension ld. */
static double *make_rhs(const ls_csr *A, int nrhs, int64_t ld)
{
    double *B = lt_doubles((size_t)(ld * (nrhs > 0 ? nrhs : 1)));
    for (int j = 0; j < nrhs; j++)
        for (int64_t i = 0; i < A->n_rows; i++)
            for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
                B[i + j * ld] += A->val[p] * (j + 1) * (1 + (double)(A->col_idx[p] % 7) / 8);
    return B;
}

/* One solve on the device, graded as a MAGMA row: the core's residual, the
 * same residual recomputed here, and the distance to UMFPACK's X, which may
 * differ by about eps / rcond where A is ill-conditioned. */
static int solve_case(ls_context *ctx, const char *name, const ls_csr *A, int nrhs)
{
    const int64_t n = A->n_rows, ld = nrhs > 1 ? n + 5 : n;
    double *B = make_rhs(A, nrhs, ld), *X = lt_doubles((size_t)(ld * nrhs));
    ls_csr_direct_report rep;
    char err[LS_ERRLEN] = "";
    int st = ls_csr_solve_direct_ctx(ctx, A, nrhs, B, ld, X, ld, &rep, err, sizeof err);
    double res = ls_csr_scaled_residual(A, nrhs, B, ld, X, ld);
    int ok = st == 0 && res <= LS_TEST_TOL && fabs(res - rep.residual) <= 1e-6 * (res + 1e-30) &&
             rep.nnz_lu >= n && rep.t_factor > 0 && rep.t_solve > 0 &&
             strstr(rep.message, "cuDSS");
    double diff = NAN, bound = NAN;
    if (ok && ls_csr_direct_available()) {
        double *Xc = lt_doubles((size_t)(ld * nrhs)), xmax = 0, dmax = 0;
        ls_csr_direct_report crep;
        if (ls_csr_solve_direct(A, nrhs, B, ld, Xc, ld, &crep, NULL, 0) == 0) {
            for (int j = 0; j < nrhs; j++)
                for (int64_t i = 0; i < n; i++) {
                    xmax = fmax(xmax, fabs(Xc[i + j * ld]));
                    dmax = fmax(dmax, fabs(X[i + j * ld] - Xc[i + j * ld]));
                }
            diff = dmax / xmax;
            bound = crep.rcond > 0 ? fmax(1e-10, 1e3 * DBL_EPSILON / crep.rcond) : INFINITY;
            ok = diff <= bound;
        }
        free(Xc);
    }
    printf("%-10s n=%-7lld nnz=%-8lld nnz(LU)=%-9lld |X-X_umfpack|/|X|=%-8.2g (bound %.2g) %s\n",
           name, (long long)n, (long long)A->nnz, (long long)rep.nnz_lu, diff, bound,
           st ? err : rep.message);
    int f = lt_row((int)n, nrhs, "cudss", "cuda", "d", rep.t_factor + rep.t_solve, 0, res, ok);
    free(B);
    free(X);
    return f;
}

static int both_nrhs(ls_context *ctx, const char *name, const ls_csr *A)
{
    return solve_case(ctx, name, A, 1) + solve_case(ctx, name, A, 3);
}

static int generated(ls_context *ctx)
{
    int f = 0;
    ls_csr A;
    if (ls_gen_poisson(2, 100, &A) == 0) {
        f += both_nrhs(ctx, "poisson2d", &A);
        ls_csr_free(&A);
    } else {
        f += lt_check(0, "ls_gen_poisson(2, 100)");
    }
    if (ls_gen_grid(2, 100, 100, 1, 20.0, &A) == 0) {
        f += both_nrhs(ctx, "convdiff2d", &A);
        ls_csr_free(&A);
    } else {
        f += lt_check(0, "ls_gen_grid(2, 100, 100, 1, 20)");
    }
    if (ls_gen_grid(3, 24, 20, 16, 5.0, &A) == 0) {
        f += both_nrhs(ctx, "convdiff3d", &A);
        ls_csr_free(&A);
    } else {
        f += lt_check(0, "ls_gen_grid(3, 24, 20, 16, 5)");
    }
    return f;
}

static int real_matrices(ls_context *ctx, const char *dir)
{
    static const char *const names[] = {"494_bus", "west0479", "pde900", "watt_2"};
    int f = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[1024], err[LS_ERRLEN] = "";
        snprintf(path, sizeof path, "%s/real/%s.mtx", dir, names[k]);
        ls_csr A;
        if (ls_csr_read_mm(path, &A, err, sizeof err)) {
            f += lt_check(0, "read %s: %s", path, err);
            continue;
        }
        f += both_nrhs(ctx, names[k], &A);
        ls_csr_free(&A);
    }
    return f;
}

/* nrhs = 0: analysis and factorization only; B and X may be NULL. */
static int factor_only(ls_context *ctx)
{
    ls_csr A;
    if (ls_gen_poisson(2, 30, &A))
        return lt_check(0, "ls_gen_poisson(2, 30)");
    ls_csr_direct_report rep;
    char err[LS_ERRLEN] = "";
    int st = ls_csr_solve_direct_ctx(ctx, &A, 0, NULL, A.n_rows, NULL, A.n_rows, &rep, err,
                                     sizeof err);
    int f = lt_check(st == 0 && rep.nnz_lu >= A.n_rows && rep.residual == 0,
                     "nrhs = 0 factors only: status %d, nnz(LU) %lld, %s", st,
                     (long long)rep.nnz_lu, st ? err : rep.message);
    ls_csr_free(&A);
    return f;
}

static int singular(ls_context *ctx)
{
    int f = 0;
    double b[3] = {1, 1, 1}, x[3] = {0, 0, 0};
    ls_csr_direct_report rep;
    char err[LS_ERRLEN] = "";
    /* Row 2 is zero: structurally singular. */
    int64_t rp[] = {0, 1, 1, 2}, ci[] = {0, 2};
    double v[] = {3, 5};
    ls_csr Z = {3, 3, 2, rp, ci, v};
    int st = ls_csr_solve_direct_ctx(ctx, &Z, 1, b, 3, x, 3, &rep, err, sizeof err);
    f += lt_check(st > 0 && rep.singular && strstr(err, "singular") && strstr(err, "row 2") &&
                      isnan(x[0]) && isnan(x[2]),
                  "zero row: status %d, %s", st, err);
    /* Column 2 is zero. */
    int64_t rp2[] = {0, 1, 2, 3}, ci2[] = {0, 0, 2};
    double v2[] = {1, 2, 1};
    ls_csr C = {3, 3, 3, rp2, ci2, v2};
    st = ls_csr_solve_direct_ctx(ctx, &C, 1, b, 3, x, 3, &rep, err, sizeof err);
    f += lt_check(st > 0 && rep.singular && strstr(err, "column 2") && isnan(x[1]),
                  "zero column: status %d, %s", st, err);
    /* [1 2 0; 2 4 0; 0 0 1], b in its range: exactly singular in floating
     * point, but whether cuDSS meets a zero pivot or perturbs it is its own
     * affair; a positive status or a solution that passes the residual
     * check are both right, a device error or a crash are not. */
    int64_t rp3[] = {0, 2, 4, 5}, ci3[] = {0, 1, 0, 1, 2};
    double v3[] = {1, 2, 2, 4, 1}, b3[3] = {3, 6, 1};
    ls_csr S = {3, 3, 5, rp3, ci3, v3};
    st = ls_csr_solve_direct_ctx(ctx, &S, 1, b3, 3, x, 3, &rep, err, sizeof err);
    f += lt_check(st > 0 || (st == 0 && rep.residual <= LS_TEST_TOL),
                  "numerically singular: status %d, %s", st, st ? err : rep.message);
    return f;
}

static int bad_arguments(ls_context *ctx)
{
    int f = 0;
    int64_t rp[] = {0, 2, 4, 5}, ci[] = {0, 1, 0, 1, 2}, unsorted[] = {1, 0, 0, 1, 2};
    double v[] = {4, 1, 1, 4, 2}, b[3] = {1, 1, 1}, x[3], nanb[3] = {1, NAN, 1};
    ls_csr A = {3, 3, 5, rp, ci, v};
    ls_csr R = {3, 2, 5, rp, ci, v};
    ls_csr U = {3, 3, 5, rp, unsorted, v};
    char err[LS_ERRLEN] = "";
#define EXPECT(status, call, what)                                                     \
    do {                                                                               \
        err[0] = 0;                                                                    \
        int got_ = (call);                                                             \
        f += lt_check(got_ == (status), "%s: %s (%s)", what, ls_strerror(got_), err); \
    } while (0)
    EXPECT(LS_ESIZE, ls_csr_solve_direct_ctx(ctx, &R, 1, b, 3, x, 3, NULL, err, sizeof err),
           "non-square refused");
    EXPECT(LS_EINVAL, ls_csr_solve_direct_ctx(ctx, NULL, 1, b, 3, x, 3, NULL, err, sizeof err),
           "NULL A refused");
    EXPECT(LS_EINVAL, ls_csr_solve_direct_ctx(ctx, &A, 1, NULL, 3, x, 3, NULL, err, sizeof err),
           "NULL B refused");
    EXPECT(LS_EINVAL, ls_csr_solve_direct_ctx(ctx, &A, -1, b, 3, x, 3, NULL, err, sizeof err),
           "nrhs < 0 refused");
    EXPECT(LS_EINVAL, ls_csr_solve_direct_ctx(ctx, &A, 1, b, 2, x, 3, NULL, err, sizeof err),
           "ldb < n refused");
    EXPECT(LS_EINVAL, ls_csr_solve_direct_ctx(ctx, &A, 1, b, 3, x, 2, NULL, err, sizeof err),
           "ldx < n refused");
    EXPECT(LS_EINVAL, ls_csr_solve_direct_ctx(ctx, &U, 1, b, 3, x, 3, NULL, err, sizeof err),
           "unsorted columns refused");
    EXPECT(LS_ENONFINITE,
           ls_csr_solve_direct_ctx(ctx, &A, 1, nanb, 3, x, 3, NULL, err, sizeof err),
           "NaN in B refused");
#undef EXPECT
    /* and the context still works */
    int st = ls_csr_solve_direct_ctx(ctx, &A, 1, b, 3, x, 3, NULL, err, sizeof err);
    f += lt_check(st == 0, "a good solve after the refusals: %s", err);
    return f;
}

/* Built without cuDSS: the core's refusal, naming what is missing. */
static int refusal(ls_context *ctx)
{
    int64_t rp[] = {0, 1}, ci[] = {0};
    double v[] = {2}, b = 1, x = 0;
    ls_csr A = {1, 1, 1, rp, ci, v};
    ls_csr_direct_report rep;
    char err[LS_ERRLEN] = "";
    int st = ls_csr_solve_direct_ctx(ctx, &A, 1, &b, 1, &x, 1, &rep, err, sizeof err);
    return lt_check(st == LS_EUNSUPPORTED && strstr(err, "cuDSS") &&
                        strstr(rep.message, "cuDSS") && strstr(ls_context_error(ctx), "cuDSS"),
                    "without cuDSS: %s, %s", ls_strerror(st), err);
}

int main(int argc, char **argv)
{
    const char *dir = "../shared/matrices";
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--matrices") && i + 1 < argc)
            dir = argv[++i];
    ls_context *ctx = ct_open_or_skip();
    int have = ls_csr_direct_available_ctx(ctx);
    int f = lt_check(have == LS_TEST_CUDSS, "the CUDA backend %s a sparse direct solver (%s)",
                     have ? "has" : "has no",
                     LS_TEST_CUDSS ? "built with cuDSS" : "built without cuDSS");
    if (!have) {
        f += refusal(ctx);
    } else {
        lt_header();
        f += generated(ctx);
        f += real_matrices(ctx, dir);
        f += factor_only(ctx);
        f += singular(ctx);
        f += bad_arguments(ctx);
    }
    ls_context_destroy(ctx);
    printf("%d failure(s)\n", f);
    return f;
}
