/*
 * ls_csr_solve_iter: every method x preconditioner on four shared matrices,
 * graded against the dense LU answer (scaled residual and forward
 * difference); a run that does not converge must say so. Plus Poisson
 * grids, systems scaled by 1e150 / 1e-150 (equilibration), initial guesses
 * and the argument errors. Exit status: the number of failures.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shared_matrix.h"
#include "testutil.h"

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double *csr_dense(const ls_csr *A)
{
    int64_t n = A->n_rows;
    double *D = lt_doubles((size_t)(n * n));
    for (int64_t i = 0; i < n; i++)
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
            D[i + A->col_idx[p] * n] = A->val[p];
    return D;
}

static double csr_norm_inf(const ls_csr *A)
{
    double m = 0;
    for (int64_t i = 0; i < A->n_rows; i++) {
        double s = 0;
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
            s += fabs(A->val[p]);
        m = fmax(m, s);
    }
    return m;
}

static double norm_inf(int64_t n, const double *x)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* ||b - A x||2 / ||b||2 (values scaled by their largest first) and the
 * scaled residual ||b - A x||inf / (n ||A||inf ||x||inf eps). */
static void residuals(const ls_csr *A, const double *b, const double *x, double *rel,
                      double *scaled)
{
    int64_t n = A->n_rows;
    double *r = lt_doubles((size_t)n);
    ls_csr_matvec(A, x, r);
    for (int64_t i = 0; i < n; i++)
        r[i] = b[i] - r[i];
    double rmax = norm_inf(n, r), bmax = norm_inf(n, b), rs = 0, bs = 0;
    for (int64_t i = 0; i < n; i++) {
        if (rmax > 0)
            rs += (r[i] / rmax) * (r[i] / rmax);
        bs += (b[i] / bmax) * (b[i] / bmax);
    }
    *rel = rmax * sqrt(rs) / (bmax * sqrt(bs));
    *scaled = rmax / ((double)n * csr_norm_inf(A) * norm_inf(n, x) * ls_eps(LS_DOUBLE));
    free(r);
}

/* ||b||2 / (n ||A||inf ||x||inf eps): turns a relative residual bound into
 * a scaled-residual bound. */
static double rel_to_abs(const ls_csr *A, const double *b, const double *x)
{
    int64_t n = A->n_rows;
    double bmax = norm_inf(n, b), s = 0;
    for (int64_t i = 0; i < n; i++)
        s += (b[i] / bmax) * (b[i] / bmax);
    return bmax * sqrt(s) /
           ((double)n * csr_norm_inf(A) * norm_inf(n, x) * ls_eps(LS_DOUBLE));
}

static const char *mname(ls_iter_method m)
{
    return m == LS_ITER_GMRES ? "gmres" : "bicgstab";
}
static const char *pname(ls_precond p)
{
    return p == LS_PRECOND_ILU0 ? "ilu0" : p == LS_PRECOND_JACOBI ? "jacobi" : "none";
}

/* One solve, graded. must: 1 = has to converge. xref: the LU answer (or
 * NULL), cond: the matrix's 2-norm condition number for the forward bound.
 * Returns 1 on failure; *converged tells the caller what happened. */
static int run(const char *label, const ls_csr *A, const double *b, const double *xref,
               double cond, ls_iter_options opt, int must, int *converged)
{
    int64_t n = A->n_rows;
    double *x = lt_doubles((size_t)n);
    ls_iter_report rep;
    char err[256] = "";
    double t0 = now();
    int st = ls_csr_solve_iter(A, b, x, &opt, &rep, err, sizeof err);
    double t = now() - t0;
    double rel = NAN, scaled = NAN, fwd = NAN;
    int ok;
    if (st < 0) {
        /* Only a preconditioner that cannot be built may refuse a real matrix. */
        ok = !must && st == LS_EINVAL && opt.precond != LS_PRECOND_NONE && strstr(err, "row ");
    } else {
        residuals(A, b, x, &rel, &scaled);
        /* The report's residual is the truth, whatever the verdict. */
        ok = fabs(rep.rel_residual - rel) <= 1e-6 * rel + 1e-300;
        if (st == 0) {
            /* The automatic rtol implies a scaled residual <= 10 (bar: 30); an
             * explicit, looser one only what ||r||inf <= rtol ||b||2 gives. */
            double bound = LS_TEST_TOL;
            if (opt.rtol > 0)
                bound = fmax(bound, 1.01 * opt.rtol * rel_to_abs(A, b, x));
            ok = ok && rep.converged && !rep.breakdown && rel <= rep.rtol * 1.000001 &&
                 scaled <= bound;
            if (xref) {
                double d = 0;
                for (int64_t i = 0; i < n; i++)
                    d = fmax(d, fabs(x[i] - xref[i]));
                fwd = d / norm_inf(n, xref);
                ok = ok && fwd <= 10 * cond * (rep.rtol + (double)n * ls_eps(LS_DOUBLE));
            }
        } else {
            ok = ok && !rep.converged && rel > rep.rtol && !must &&
                 (st == LS_NOT_CONVERGED || (st == LS_BREAKDOWN && rep.breakdown));
        }
    }
    *converged = st == 0;
    printf("%-10s %8lld  %-8s %-6s %s  %6d its  %7.3f s  rel %9.2e  scaled %9.2e  fwd %9.2e  "
           "%-18s %s\n",
           label, (long long)n, mname(opt.method), pname(opt.precond), opt.equilibrate ? "eq" : "  ",
           rep.iterations, t, rel, scaled, fwd, ls_status_name(st), ok ? "ok" : "FAILED");
    if (!ok || st)
        printf("        %s\n", st < 0 ? err : rep.message);
    free(x);
    return !ok;
}

/* The dense LU answer of A x = b. */
static double *lu_answer(const ls_csr *A, const double *b)
{
    int n = (int)A->n_rows, info = 0;
    double *D = csr_dense(A), *x = lt_doubles((size_t)n);
    int *ipiv = lt_xmalloc(sizeof(int) * (size_t)n);
    memcpy(x, b, sizeof(double) * (size_t)n);
    int st = ls_dgesv(n, 1, D, n, ipiv, x, n, &info, NULL);
    if (st || info) {
        printf("dense LU failed: %d, info %d\n", st, info);
        free(x);
        x = NULL;
    }
    free(D), free(ipiv);
    return x;
}

typedef struct mat_case {
    const char *name;
    double cond; /* from the matrices' README */
    int gmres_ilu0_must;
} mat_case;

static int shared_matrices(const char *dir)
{
    static const mat_case cases[] = {
        {"pde900", 1.5e2, 1}, {"494_bus", 2.4e6, 0}, {"west0479", 3.3e11, 0}, {"watt_2", 1.4e11, 0}};
    int failures = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ls_csr A;
        if (read_csr(dir, cases[c].name, &A)) {
            failures++;
            continue;
        }
        double *b = lt_doubles((size_t)A.n_rows);
        ls_fill_random((int)A.n_rows, 1, b, (int)A.n_rows, 7 + c);
        double *xref = lu_answer(&A, b);
        failures += xref == NULL;
        /* The automatic rtol, then the README's 1e-10 */
        for (int t = 0; t < 2; t++)
        for (int m = 0; m < 2; m++)
            for (int p = 0; p < 3; p++) {
                ls_iter_options opt;
                ls_iter_options_init(&opt);
                opt.method = (ls_iter_method)m;
                opt.precond = (ls_precond)p;
                opt.rtol = t ? 1e-10 : 0;
                int must = cases[c].gmres_ilu0_must && m == LS_ITER_GMRES && p == LS_PRECOND_ILU0;
                int conv;
                failures += run(cases[c].name, &A, b, xref, cases[c].cond, opt, must, &conv);
            }
        /* An exact initial guess needs no iteration. */
        if (xref) {
            ls_iter_options opt;
            ls_iter_options_init(&opt);
            double *x = lt_doubles((size_t)A.n_rows);
            memcpy(x, xref, sizeof(double) * (size_t)A.n_rows);
            ls_iter_report rep;
            int st = ls_csr_solve_iter(&A, b, x, &opt, &rep, NULL, 0);
            if (st == 0 || cases[c].cond < 1e4)
                failures += lt_check(st == 0 && rep.iterations == 0,
                                     "%s: LU answer as the initial guess: %d its, status %d",
                                     cases[c].name, rep.iterations, st);
            free(x);
        }
        free(b), free(xref);
        ls_csr_free(&A);
    }
    return failures;
}

/* pde900 and b times 1e150 / 1e-150: the same x. Equilibrated runs must
 * converge; plain ones must at least tell the truth. */
static int scaled_systems(const char *dir)
{
    ls_csr A;
    if (read_csr(dir, "pde900", &A))
        return 1;
    int failures = 0;
    double *b = lt_doubles((size_t)A.n_rows), *bs = lt_doubles((size_t)A.n_rows);
    ls_fill_random((int)A.n_rows, 1, b, (int)A.n_rows, 99);
    double *xref = lu_answer(&A, b);
    const double factors[] = {1e150, 1e-150};
    for (int f = 0; f < 2; f++) {
        ls_csr S = A;
        S.val = lt_doubles((size_t)A.nnz);
        for (int64_t p = 0; p < A.nnz; p++)
            S.val[p] = A.val[p] * factors[f];
        for (int64_t i = 0; i < A.n_rows; i++)
            bs[i] = b[i] * factors[f];
        char label[32];
        snprintf(label, sizeof label, "pde900*%.0e", factors[f]);
        for (int m = 0; m < 2; m++)
            for (int eq = 0; eq < 2; eq++) {
                ls_iter_options opt;
                ls_iter_options_init(&opt);
                opt.method = (ls_iter_method)m;
                opt.precond = m == LS_ITER_GMRES ? LS_PRECOND_ILU0 : LS_PRECOND_NONE;
                opt.equilibrate = eq;
                int conv;
                failures += run(label, &S, bs, xref, 1.5e2, opt, eq, &conv);
            }
        free(S.val);
    }
    free(b), free(bs), free(xref);
    ls_csr_free(&A);
    return failures;
}

/* rtol 0 is the automatic 10 sqrt(n) eps, measured against ||b||: on the
 * larger grids ||A|| ||x|| >> ||b|| puts it below what any method attains
 * in double (the residual stagnates near 6e-13 at k = 300, with a scaled
 * residual of 1e-5), so those grids run with an explicit rtol. */
static int poisson(int64_t k, double rtol, int with_lu, int methods_mask)
{
    ls_csr A;
    if (ls_gen_poisson(2, k, &A)) {
        printf("ls_gen_poisson(2, %lld) failed\n", (long long)k);
        return 1;
    }
    int64_t n = A.n_rows;
    double *b = lt_doubles((size_t)n);
    for (int64_t i = 0; i < n; i++) /* smooth-ish, deterministic */
        b[i] = 1.0 + 0.5 * sin(0.001 * (double)i);
    double *xref = with_lu ? lu_answer(&A, b) : NULL;
    /* 2-D Laplacian: cond ~ 4 (k+1)^2 / pi^2 */
    double cond = 0.5 * (double)((k + 1) * (k + 1));
    char label[32];
    snprintf(label, sizeof label, "poisson%lld", (long long)k);
    int failures = 0, conv;
    ls_iter_options opt;
    if (methods_mask & 1) {
        ls_iter_options_init(&opt);
        opt.method = LS_ITER_BICGSTAB;
        opt.precond = LS_PRECOND_JACOBI;
        opt.max_iter = 20000;
        opt.rtol = rtol;
        failures += run(label, &A, b, xref, cond, opt, 1, &conv);
    }
    if (methods_mask & 2) {
        ls_iter_options_init(&opt);
        opt.method = LS_ITER_GMRES;
        opt.precond = LS_PRECOND_ILU0;
        opt.max_iter = 20000;
        opt.rtol = rtol;
        failures += run(label, &A, b, xref, cond, opt, 1, &conv);
    }
    free(b), free(xref);
    ls_csr_free(&A);
    return failures;
}

/* Real matrices with structurally zero diagonal entries: Jacobi and ILU(0)
 * need a permutation first; here the structural maximum transversal
 * (LS_PERMUTE_MAXTRANS) (A Q y = b, x = Q y). Every run must
 * have applied it, and x is graded on the original A; where a matrix does
 * not converge even permuted, the status must say so. */
static int transversal_matrices(const char *dir)
{
    static const char *const names[] = {"west0479", "nnc1374", "rajat19", "impcol_a"};
    int failures = 0;
    for (size_t c = 0; c < sizeof names / sizeof names[0]; c++) {
        ls_csr A;
        if (read_csr(dir, names[c], &A)) {
            failures++;
            continue;
        }
        int64_t n = A.n_rows;
        double *b = lt_doubles((size_t)n), *x = lt_doubles((size_t)n);
        ls_fill_random((int)n, 1, b, (int)n, 11 + c);
        for (int m = 0; m < 2; m++)
            for (int eq = 0; eq < 2; eq++) {
                ls_iter_options opt;
                ls_iter_options_init(&opt);
                opt.method = m ? LS_ITER_GMRES : LS_ITER_BICGSTAB;
                opt.precond = LS_PRECOND_ILU0;
                opt.equilibrate = eq;
                opt.permute = LS_PERMUTE_MAXTRANS; /* the weighted matching: test_sparse_mc64 */
                memset(x, 0, sizeof(double) * (size_t)n);
                ls_iter_report rep;
                char err[256] = "";
                double t0 = now();
                int st = ls_csr_solve_iter(&A, b, x, &opt, &rep, err, sizeof err);
                double t = now() - t0, rel = NAN, scaled = NAN;
                int ok = st >= 0 && strstr(rep.message, "columns permuted to a zero-free diagonal");
                if (st >= 0) {
                    residuals(&A, b, x, &rel, &scaled);
                    ok = ok && fabs(rep.rel_residual - rel) <= 1e-6 * rel + 1e-300;
                    if (st == 0)
                        ok = ok && rep.converged && rel <= rep.rtol * 1.000001 &&
                             scaled <= LS_TEST_TOL;
                    else
                        ok = ok && !rep.converged && rel > rep.rtol &&
                             (st == LS_NOT_CONVERGED || (st == LS_BREAKDOWN && rep.breakdown));
                }
                printf("%-10s %8lld  %-8s %-6s %s  %6d its  %7.3f s  rel %9.2e  scaled %9.2e  "
                       "%-18s %s\n",
                       names[c], (long long)n, mname(opt.method), pname(opt.precond),
                       eq ? "eq" : "  ", rep.iterations, t, rel, scaled, ls_status_name(st),
                       ok ? "ok" : "FAILED");
                if (!ok || st)
                    printf("        %s\n", st < 0 ? err : rep.message);
                failures += !ok;
            }
        free(b), free(x);
        ls_csr_free(&A);
    }
    /* Rows 1 and 2 both hold only column 2: structural rank 2 of 3, refused
     * before any iteration. */
    int64_t rp[4] = {0, 1, 2, 5}, ci[5] = {1, 1, 0, 1, 2};
    double v[5] = {1, 2, 3, 4, 5}, sb[3] = {1, 2, 3}, sx[3] = {0, 0, 0};
    ls_csr S = {3, 3, 5, rp, ci, v};
    for (int p = 1; p < 3; p++) {
        ls_iter_options opt;
        ls_iter_options_init(&opt);
        opt.method = LS_ITER_GMRES;
        opt.precond = (ls_precond)p;
        ls_iter_report rep;
        char err[256] = "";
        int st = ls_csr_solve_iter(&S, sb, sx, &opt, &rep, err, sizeof err);
        failures += lt_check(st == LS_EINVAL && rep.iterations == 0 &&
                                 strstr(err, "structurally singular") &&
                                 strstr(err, "structural rank 2"),
                             "structurally singular 3 x 3, %s: %s \"%s\"", pname(opt.precond),
                             ls_status_name(st), err);
    }
    /* A zero-free permuted diagonal after equilibration: x in the caller's
     * order and scale. A = [[0 2e8 0 0] [0 0 3 0] [0 0 0 4e-8] [5 0 0 1]]. */
    int64_t rq[5] = {0, 1, 2, 3, 5}, cq[5] = {1, 2, 3, 0, 3};
    double vq[5] = {2e8, 3, 4e-8, 5, 1}, xt[4] = {1, 2, 3, 4}, qb[4], qx[4];
    ls_csr Q = {4, 4, 5, rq, cq, vq};
    qb[0] = 2e8 * xt[1], qb[1] = 3 * xt[2], qb[2] = 4e-8 * xt[3], qb[3] = 5 * xt[0] + xt[3];
    for (int m = 0; m < 2; m++) {
        ls_iter_options opt;
        ls_iter_options_init(&opt);
        opt.method = m ? LS_ITER_GMRES : LS_ITER_BICGSTAB;
        opt.precond = LS_PRECOND_ILU0;
        opt.equilibrate = 1;
        memset(qx, 0, sizeof qx);
        ls_iter_report rep;
        int st = ls_csr_solve_iter(&Q, qb, qx, &opt, &rep, NULL, 0);
        double d = 0;
        for (int i = 0; i < 4; i++)
            d = fmax(d, fabs(qx[i] - xt[i]));
        failures += lt_check(st == 0 && d < 1e-12, "%s, equilibrated and permuted 4 x 4: %s, "
                             "max |x - x_true| = %.2e \"%s\"", mname(opt.method),
                             ls_status_name(st), d, rep.message);
    }
    return failures;
}

static int bad_arguments(void)
{
    int failures = 0;
    char err[256];
    double b[3] = {1, 2, 3}, x[3] = {0, 0, 0};
    ls_iter_options opt;
    ls_iter_options_init(&opt);
    failures += lt_check(opt.method == LS_ITER_BICGSTAB && opt.precond == LS_PRECOND_NONE &&
                             opt.rtol == 0 && opt.max_iter == 2000 && opt.restart == 30 &&
                             !opt.equilibrate,
                         "ls_iter_options_init defaults");
    /* [[0 1] [1 0]] with its zero diagonal stored: CG's Jacobi and ILU(0) refuse
     * row 1 (A Q would not be symmetric); BiCGStab's permute the columns. */
    int64_t rp[3] = {0, 2, 4}, ci[4] = {0, 1, 0, 1};
    double v[4] = {0, 1, 1, 0};
    ls_csr Z = {2, 2, 4, rp, ci, v};
    opt.method = LS_ITER_CG;
    opt.precond = LS_PRECOND_ILU0;
    int st = ls_csr_solve_iter(&Z, b, x, &opt, NULL, err, sizeof err);
    failures += lt_check(st == LS_EINVAL && strstr(err, "row 1"), "CG ILU(0) zero pivot: %d \"%s\"",
                         st, err);
    opt.precond = LS_PRECOND_JACOBI;
    st = ls_csr_solve_iter(&Z, b, x, &opt, NULL, err, sizeof err);
    failures += lt_check(st == LS_EINVAL && strstr(err, "row 1"),
                         "CG Jacobi zero diagonal: %d \"%s\"", st, err);
    opt.method = LS_ITER_BICGSTAB;
    for (int p = 1; p < 3; p++) {
        ls_iter_report zr;
        opt.precond = (ls_precond)p;
        x[0] = x[1] = 0;
        st = ls_csr_solve_iter(&Z, b, x, &opt, &zr, err, sizeof err);
        failures += lt_check(st == 0 && fabs(x[0] - 2) < 1e-14 && fabs(x[1] - 1) < 1e-14 &&
                                 strstr(zr.message, "MC64 weighted matching and scaling"),
                             "%s, zero diagonal, permuted: %d x = (%g, %g) \"%s\"", pname(opt.precond),
                             st, x[0], x[1], zr.message);
    }
    /* [[1 1] [1 0]] without a stored (2,2): CG's ILU(0) names row 2. */
    int64_t rp2[3] = {0, 2, 3}, ci2[3] = {0, 1, 0};
    double v2[3] = {1, 1, 1};
    ls_csr M = {2, 2, 3, rp2, ci2, v2};
    opt.method = LS_ITER_CG;
    opt.precond = LS_PRECOND_ILU0;
    st = ls_csr_solve_iter(&M, b, x, &opt, NULL, err, sizeof err);
    failures += lt_check(st == LS_EINVAL && strstr(err, "row 2"),
                         "CG ILU(0) missing diagonal: %d \"%s\"", st, err);
    opt.method = LS_ITER_BICGSTAB;
    opt.precond = LS_PRECOND_NONE;
    st = ls_csr_solve_iter(NULL, b, x, &opt, NULL, err, sizeof err);
    failures += lt_check(st == LS_EINVAL, "A NULL: %d \"%s\"", st, err);
    st = ls_csr_solve_iter(&M, NULL, x, &opt, NULL, err, sizeof err);
    failures += lt_check(st == LS_EINVAL, "b NULL: %d \"%s\"", st, err);
    st = ls_csr_solve_iter(&M, b, NULL, &opt, NULL, err, sizeof err);
    failures += lt_check(st == LS_EINVAL, "x NULL: %d \"%s\"", st, err);
    int64_t rp3[3] = {0, 1, 2}, ci3[2] = {0, 2};
    double v3[2] = {1, 1};
    ls_csr R = {2, 3, 2, rp3, ci3, v3};
    st = ls_csr_solve_iter(&R, b, x, &opt, NULL, err, sizeof err);
    failures += lt_check(st == LS_ESIZE, "2 x 3: %d \"%s\"", st, err);
    opt.method = LS_ITER_GMRES;
    opt.restart = 0;
    st = ls_csr_solve_iter(&M, b, x, &opt, NULL, err, sizeof err);
    failures += lt_check(st == LS_EINVAL, "restart 0: %d \"%s\"", st, err);
    ls_iter_options_init(&opt);
    opt.rtol = -1;
    st = ls_csr_solve_iter(&M, b, x, &opt, NULL, err, sizeof err);
    failures += lt_check(st == LS_EINVAL, "rtol -1: %d \"%s\"", st, err);
    /* b = 0 gives x = 0 at once. */
    ls_iter_options_init(&opt);
    double zb[2] = {0, 0}, zx[2] = {5, 5};
    ls_iter_report rep;
    st = ls_csr_solve_iter(&M, zb, zx, &opt, &rep, err, sizeof err);
    failures += lt_check(st == 0 && rep.converged && zx[0] == 0 && zx[1] == 0, "b = 0: x = 0");
    /* max_iter 1 on pde-like hard case: honest NOT_CONVERGED, not success. */
    ls_csr P;
    if (ls_gen_poisson(2, 30, &P) == 0) {
        double *pb = lt_doubles((size_t)P.n_rows), *px = lt_doubles((size_t)P.n_rows);
        for (int64_t i = 0; i < P.n_rows; i++)
            pb[i] = 1;
        opt.max_iter = 1;
        for (int m = 0; m < 2; m++) {
            opt.method = (ls_iter_method)m;
            memset(px, 0, sizeof(double) * (size_t)P.n_rows);
            st = ls_csr_solve_iter(&P, pb, px, &opt, &rep, err, sizeof err);
            failures += lt_check(st == LS_NOT_CONVERGED && !rep.converged &&
                                     rep.rel_residual > rep.rtol && strstr(err, "not converge"),
                                 "%s, 1 iteration: %s \"%s\"", mname(opt.method),
                                 ls_status_name(st), err);
        }
        free(pb), free(px);
        ls_csr_free(&P);
    }
    return failures;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/matrices";
    int failures = 0;
    printf("matrix            n  method   prec   eq  iterations  time  ||b-Ax||2/||b||2  "
           "scaled-residual  forward-diff  status\n");
    failures += shared_matrices(dir);
    failures += scaled_systems(dir);
    failures += poisson(30, 0, 1, 3);
    failures += poisson(100, 0, 0, 3);
    int64_t big = 300;
    const char *env = getenv("LS_SPARSE_BIG_K");
    if (env)
        big = strtoll(env, NULL, 10);
    /* k = 1000 (n = 1e6) takes over 10 s on two cores: k = 300 here, the
     * larger grid through LS_SPARSE_BIG_K=1000. */
    failures += poisson(big, 1e-10, 0, 1);
    failures += transversal_matrices(dir);
    failures += bad_arguments();
    printf("%d failure(s)\n", failures);
    return failures;
}
