/*
 * ls_csr_solve_direct (UMFPACK): every matrix in real/ with b = A*ones,
 * several right-hand sides with ldb > n, 2-D Poisson grids with n = 10^4
 * and ~10^5, singular matrices (a positive status and a message, never a
 * crash), argument errors. Without UMFPACK: the named refusal only.
 * Exit status: the number of failures.
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CSR of a dense matrix (array files such as full.mtx); arrays from malloc. */
static int dense_to_csr(const ls_matrix *m, ls_csr *A)
{
    int64_t n = m->rows, nnz = 0;
    memset(A, 0, sizeof *A);
    for (int64_t i = 0; i < (int64_t)m->rows * m->cols; i++)
        nnz += m->data[i] != 0;
    A->n_rows = m->rows;
    A->n_cols = m->cols;
    A->nnz = nnz;
    A->row_ptr = lt_xmalloc(sizeof(int64_t) * (size_t)(n + 1));
    A->col_idx = lt_xmalloc(sizeof(int64_t) * (size_t)(nnz ? nnz : 1));
    A->val = lt_xmalloc(sizeof(double) * (size_t)(nnz ? nnz : 1));
    int64_t p = 0;
    for (int64_t i = 0; i < n; i++) {
        A->row_ptr[i] = p;
        for (int64_t j = 0; j < m->cols; j++) {
            double v = m->data[i + j * m->ld];
            if (v != 0) {
                A->col_idx[p] = j;
                A->val[p++] = v;
            }
        }
    }
    A->row_ptr[n] = p;
    return 0;
}

static void free_own(ls_csr *A)
{
    free(A->row_ptr);
    free(A->col_idx);
    free(A->val);
    memset(A, 0, sizeof *A);
}

/* b = A * ones, nrhs columns (column j scaled by j+1), leading dimension ld. */
static double *rhs_ones(const ls_csr *A, int nrhs, int64_t ld)
{
    double *B = lt_doubles((size_t)(ld * nrhs));
    for (int j = 0; j < nrhs; j++)
        for (int64_t i = 0; i < A->n_rows; i++)
            for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
                B[i + j * ld] += (j + 1) * A->val[p];
    return B;
}

/* One solve graded as a MAGMA row; singular_ok: a numerically singular
 * matrix may end either way but must say so. */
static int solve_case(const char *name, const ls_csr *A, int nrhs, int64_t ld, int singular_ok)
{
    double *B = rhs_ones(A, nrhs, ld), *X = lt_doubles((size_t)(ld * nrhs));
    ls_csr_direct_report rep;
    char err[256] = "";
    double t0 = now();
    int st = ls_csr_solve_direct(A, nrhs, B, ld, X, ld, &rep, err, sizeof err);
    double t = now() - t0;
    /* The residual again, independently of the report. */
    double res = ls_csr_scaled_residual(A, nrhs, B, ld, X, ld);
    double ferr = 0;
    for (int j = 0; j < nrhs; j++)
        for (int64_t i = 0; i < A->n_rows; i++)
            ferr = fmax(ferr, fabs(X[i + j * ld] - (j + 1)) / (j + 1));
    int ok;
    if (singular_ok)
        ok = (st == 0 && res <= LS_TEST_TOL && strstr(rep.message, "numerically singular")) ||
             (st > 0 && strstr(rep.message, "singular"));
    else
        ok = st == 0 && res <= LS_TEST_TOL && fabs(res - rep.residual) <= 1e-6 * (res + 1e-30);
    printf("%-10s n=%-7lld nnz=%-8lld nnz(LU)=%-9lld rcond=%-8.2g ferr=%-8.2g %s\n", name,
           (long long)A->n_rows, (long long)A->nnz, (long long)rep.nnz_lu, rep.rcond, ferr,
           rep.message);
    int f = lt_row((int)A->n_rows, nrhs, "direct", "cpu", "d", t, 0, res, ok);
    free(B);
    free(X);
    return f;
}

static int real_matrices(const char *dir)
{
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/real", dir);
    DIR *d = opendir(path);
    if (!d)
        return lt_check(0, "open %s", path);
    int failures = 0, count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".mtx"))
            continue;
        snprintf(path, sizeof path, "%s/real/%s", dir, e->d_name);
        ls_csr A;
        int own = 0, st = ls_csr_read_mm(path, &A, err, sizeof err);
        if (st == LS_EUNSUPPORTED) { /* an array file */
            ls_matrix m;
            if ((st = ls_matrix_read(path, &m, err, sizeof err)) == 0) {
                dense_to_csr(&m, &A);
                ls_matrix_free(&m);
                own = 1;
            }
        }
        if (st) {
            failures += lt_check(0, "read %s: %s", path, err);
            continue;
        }
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len - 4), e->d_name);
        failures += solve_case(name, &A, 1, A.n_rows, !strcmp(name, "cryg2500"));
        count++;
        if (own)
            free_own(&A);
        else
            ls_csr_free(&A);
    }
    closedir(d);
    failures += lt_check(count >= 11, "real/ holds the 11 matrices (%d found)", count);
    return failures;
}

static int several_rhs(const char *dir)
{
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/real/pde900.mtx", dir);
    ls_csr A;
    if (ls_csr_read_mm(path, &A, err, sizeof err))
        return lt_check(0, "read %s: %s", path, err);
    int f = solve_case("pde900x3", &A, 3, A.n_rows + 5, 0);
    ls_csr_free(&A);
    return f;
}

static int poisson(void)
{
    int failures = 0;
    const int64_t ks[] = {100, 317};
    for (size_t c = 0; c < 2; c++) {
        ls_csr A;
        if (ls_gen_poisson(2, ks[c], &A)) {
            failures += lt_check(0, "ls_gen_poisson(2, %lld)", (long long)ks[c]);
            continue;
        }
        failures += solve_case("poisson2d", &A, 1, A.n_rows, 0);
        ls_csr_free(&A);
    }
    ls_csr A;
    if (ls_gen_poisson(3, 20, &A) == 0) {
        failures += solve_case("poisson3d", &A, 1, A.n_rows, 0);
        ls_csr_free(&A);
    }
    return failures;
}

static int singular(void)
{
    int failures = 0;
    /* [1 2 0; 2 4 0; 0 0 1]: exactly singular in floating point. */
    int64_t rp[] = {0, 2, 4, 5}, ci[] = {0, 1, 0, 1, 2};
    double v[] = {1, 2, 2, 4, 1};
    ls_csr A = {3, 3, 5, rp, ci, v};
    double b[3] = {1, 1, 1}, x[3] = {0, 0, 0};
    ls_csr_direct_report rep;
    char err[256] = "";
    int st = ls_csr_solve_direct(&A, 1, b, 3, x, 3, &rep, err, sizeof err);
    failures += lt_check(st > 0 && rep.singular && strstr(err, "singular") && isnan(x[0]),
                         "singular 3x3: status %d, %s", st, err);
    /* A zero row: structurally singular. */
    int64_t rp2[] = {0, 1, 1, 2}, ci2[] = {0, 2};
    double v2[] = {3, 5};
    ls_csr Z = {3, 3, 2, rp2, ci2, v2};
    st = ls_csr_solve_direct(&Z, 1, b, 3, x, 3, &rep, err, sizeof err);
    failures += lt_check(st > 0 && strstr(err, "singular"), "zero row: status %d, %s", st, err);
    /* Argument errors. */
    ls_csr R = {3, 2, 2, rp2, ci2, v2};
    failures += lt_check(ls_csr_solve_direct(&R, 1, b, 3, x, 3, NULL, err, sizeof err) == LS_ESIZE,
                         "non-square refused: %s", err);
    failures += lt_check(ls_csr_solve_direct(NULL, 1, b, 3, x, 3, NULL, err, sizeof err) ==
                             LS_EINVAL,
                         "NULL A refused: %s", err);
    failures += lt_check(ls_csr_solve_direct(&A, 1, b, 2, x, 3, NULL, err, sizeof err) ==
                             LS_EINVAL,
                         "ldb < n refused: %s", err);
    int64_t ci3[] = {1, 0, 0, 1, 2};
    ls_csr U = {3, 3, 5, rp, ci3, v};
    failures += lt_check(ls_csr_solve_direct(&U, 1, b, 3, x, 3, NULL, err, sizeof err) ==
                             LS_EINVAL,
                         "unsorted columns refused: %s", err);
    return failures;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/matrices";
    if (!ls_csr_direct_available()) {
        int64_t rp[] = {0, 1}, ci[] = {0};
        double v[] = {2}, b = 1, x = 0;
        ls_csr A = {1, 1, 1, rp, ci, v};
        char err[256] = "";
        int st = ls_csr_solve_direct(&A, 1, &b, 1, &x, 1, NULL, err, sizeof err);
        int f = lt_check(st == LS_EUNSUPPORTED && strstr(err, "UMFPACK"),
                         "without UMFPACK: %s", err);
        printf("built without UMFPACK: direct solves skipped\n");
        return f;
    }
    lt_header();
    int failures = real_matrices(dir);
    failures += several_rhs(dir);
    failures += poisson();
    failures += singular();
    printf("%d failure(s)\n", failures);
    return failures;
}
