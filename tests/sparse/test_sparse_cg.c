/*
 * ls_csr_solve_iter with LS_ITER_CG: converges on symmetric positive
 * definite grids (2-D, 3-D, rectangular) with every preconditioner, with
 * and without (symmetric) equilibration, to the requested tolerance on the
 * caller's own residual; IC(0) = ILU(0) of a symmetric A takes far fewer
 * iterations than none; a system scaled by 2^-600 still converges once
 * equilibrated; an indefinite or negative definite A is a breakdown that
 * names the product, never a false success; a start at the answer is 0
 * iterations. Exit status: the number of failures.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* ||b - A x||2 / ||b||2 on the caller's system. */
static double rel_residual(const ls_csr *A, const double *b, const double *x)
{
    int64_t n = A->n_rows;
    double *r = lt_doubles((size_t)n), rr = 0, bb = 0, s = 0;
    ls_csr_matvec(A, x, r);
    for (int64_t i = 0; i < n; i++)
        s = fmax(s, fabs(b[i]));
    for (int64_t i = 0; i < n; i++) { /* scaled by max |b|: b may be 2^-600 small */
        rr += (b[i] - r[i]) / s * ((b[i] - r[i]) / s);
        bb += b[i] / s * (b[i] / s);
    }
    free(r);
    return sqrt(rr / bb);
}

/* b = A x_true with x_true(i) = 1 + i mod 7. */
static double *rhs_of(const ls_csr *A)
{
    int64_t n = A->n_rows;
    double *x = lt_doubles((size_t)n), *b = lt_doubles((size_t)n);
    for (int64_t i = 0; i < n; i++)
        x[i] = 1.0 + (double)(i % 7);
    ls_csr_matvec(A, x, b);
    free(x);
    return b;
}

static int solve_case(const char *name, const ls_csr *A, ls_precond pc, int equil, double rtol,
                      int *its)
{
    static const char *pcn[] = {"none", "jacobi", "ilu0"};
    int64_t n = A->n_rows;
    double *b = rhs_of(A), *x = lt_doubles((size_t)n);
    ls_iter_options o;
    ls_iter_options_init(&o);
    o.method = LS_ITER_CG;
    o.precond = pc;
    o.equilibrate = equil;
    o.rtol = rtol;
    o.max_iter = 5000;
    ls_iter_report rep;
    char err[256] = "";
    int st = ls_csr_solve_iter(A, b, x, &o, &rep, err, sizeof err);
    double rel = rel_residual(A, b, x);
    double tol = rtol > 0 ? rtol : rep.rtol;
    *its = rep.iterations;
    int f = lt_check(st == 0 && rep.converged && rel <= tol && fabs(rel - rep.rel_residual) <=
                                                                   1e-3 * tol + 1e-300,
                     "CG %-14s precond %-6s%s: %4d its, ||r||/||b|| %.2e <= %.1e (%s)", name,
                     pcn[pc], equil ? " equil" : "      ", rep.iterations, rel, tol, rep.message);
    free(b);
    free(x);
    return f;
}

static int test_grids(void)
{
    int f = 0, its[3] = {0, 0, 0}, it;
    ls_csr A;
    ls_gen_poisson(2, 60, &A);
    for (int pc = 0; pc < 3; pc++) {
        f += solve_case("poisson2d 60^2", &A, (ls_precond)pc, 0, 0, &its[pc]);
        f += solve_case("poisson2d 60^2", &A, (ls_precond)pc, 1, 0, &it);
    }
    f += lt_check(its[2] * 2 < its[0], "IC(0) needs under half CG's plain iterations (%d vs %d)",
                  its[2], its[0]);
    ls_csr_free(&A);
    ls_gen_grid(3, 12, 9, 7, 0.0, &A);
    f += solve_case("poisson3d 12x9x7", &A, LS_PRECOND_ILU0, 1, 1e-10, &it);
    f += solve_case("poisson3d 12x9x7", &A, LS_PRECOND_JACOBI, 0, 1e-8, &it);
    /* 2^-600 on every value: only the equilibrated run sees an O(1) system */
    for (int64_t p = 0; p < A.nnz; p++)
        A.val[p] = ldexp(A.val[p], -600);
    f += solve_case("3d * 2^-600", &A, LS_PRECOND_ILU0, 1, 1e-10, &it);
    ls_csr_free(&A);
    return f;
}

static int test_not_spd(void)
{
    int f = 0;
    ls_csr A;
    ls_gen_poisson(2, 20, &A);
    int64_t n = A.n_rows;
    double *b = rhs_of(&A), *x = lt_doubles((size_t)n);
    ls_iter_options o;
    ls_iter_options_init(&o);
    o.method = LS_ITER_CG;
    ls_iter_report rep;
    char err[256] = "";
    /* start at the answer: no iteration */
    for (int64_t i = 0; i < n; i++)
        x[i] = 1.0 + (double)(i % 7);
    int st = ls_csr_solve_iter(&A, b, x, &o, &rep, err, sizeof err);
    f += lt_check(st == 0 && rep.iterations == 0, "CG from the answer: 0 iterations (%d)",
                  rep.iterations);
    /* -A: negative definite */
    for (int64_t p = 0; p < A.nnz; p++)
        A.val[p] = -A.val[p];
    memset(x, 0, sizeof(double) * (size_t)n);
    st = ls_csr_solve_iter(&A, b, x, &o, &rep, err, sizeof err);
    f += lt_check(st == LS_BREAKDOWN && rep.breakdown && strstr(err, "A p"),
                  "CG on -A (negative definite): LS_BREAKDOWN naming p . A p (%s)", err);
    /* indefinite: the diagonal shifted to 4 - 6 = -2 in the middle half */
    for (int64_t p = 0; p < A.nnz; p++)
        A.val[p] = -A.val[p];
    for (int64_t i = n / 4; i < 3 * n / 4; i++)
        for (int64_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; p++)
            if (A.col_idx[p] == i)
                A.val[p] -= 6.0;
    memset(x, 0, sizeof(double) * (size_t)n);
    st = ls_csr_solve_iter(&A, b, x, &o, &rep, err, sizeof err);
    f += lt_check(st == LS_BREAKDOWN || st == LS_NOT_CONVERGED ||
                      (st == 0 && rel_residual(&A, b, x) <= rep.rtol),
                  "CG on an indefinite A: a breakdown or an honest answer (status %d: %s)", st,
                  err);
    o.precond = LS_PRECOND_ILU0;
    memset(x, 0, sizeof(double) * (size_t)n);
    st = ls_csr_solve_iter(&A, b, x, &o, &rep, err, sizeof err);
    f += lt_check(st != 0 ? rep.converged == 0 : rel_residual(&A, b, x) <= rep.rtol,
                  "CG + ILU(0) on it: status %d agrees with the residual (%s)", st, rep.message);
    free(b);
    free(x);
    ls_csr_free(&A);
    return f;
}

int main(void)
{
    int f = test_grids();
    f += test_not_spd();
    printf("%s: %d failure(s)\n", f ? "FAILED" : "ok", f);
    return f;
}
