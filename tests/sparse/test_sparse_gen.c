/*
 * Grid generators (ls_gen_grid, ls_gen_grid_write_mm) and the direct
 * solver's cost estimate that `--method auto` decides by:
 * - 2-D grids equal the dense generator's poisson2d / convdiff entry for
 *   entry; 3-D and rectangular grids have the stencil's nnz, are symmetric
 *   for Poisson, and rows sum to 0 inside the grid;
 * - the streamed file reads back as the same CSR, bit for bit, and writing
 *   n = 10^6 (a 100 MiB file) grows the peak RSS by a few MiB at most;
 * - ls_csr_direct_estimate: positive, growing with the grid, 3-D dearer
 *   than 2-D at equal n, the 2-D n = 10^4 figure within a factor 2 of the
 *   fill the factorization really has; bad arguments refused.
 * Exit status: the number of failures.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "testutil.h"

static int same_csr(const ls_csr *A, const ls_csr *B)
{
    if (A->n_rows != B->n_rows || A->n_cols != B->n_cols || A->nnz != B->nnz)
        return 0;
    return !memcmp(A->row_ptr, B->row_ptr, sizeof(int64_t) * (size_t)(A->n_rows + 1)) &&
           !memcmp(A->col_idx, B->col_idx, sizeof(int64_t) * (size_t)A->nnz) &&
           !memcmp(A->val, B->val, sizeof(double) * (size_t)A->nnz);
}

/* The CSR entries against a column-major dense n x n matrix. */
static int equals_dense(const ls_csr *A, const double *D)
{
    int64_t n = A->n_rows, count = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
            if (D[i + A->col_idx[p] * n] != A->val[p])
                return 0;
    for (int64_t k = 0; k < n * n; k++)
        count += D[k] != 0;
    return count == A->nnz;
}

static int test_against_dense(void)
{
    int f = 0;
    const int k = 7, n = k * k;
    double *D = lt_doubles((size_t)n * n);
    ls_csr A;
    int st = ls_gen_grid(2, k, k, 1, 0.0, &A);
    f += lt_check(st == 0 && ls_generate(LS_GEN_POISSON2D, n, D, n, 1, 0) == 0 &&
                      equals_dense(&A, D),
                  "grid 7x7 peclet 0 = ls_generate(poisson2d, 49)");
    ls_csr P;
    f += lt_check(ls_gen_poisson(2, k, &P) == 0 && same_csr(&A, &P),
                  "ls_gen_poisson(2, 7) = ls_gen_grid(2, 7, 7, 1, 0)");
    ls_csr_free(&A);
    ls_csr_free(&P);
    st = ls_gen_grid(2, k, k, 1, 20.0, &A);
    f += lt_check(st == 0 && ls_generate(LS_GEN_CONVDIFF, n, D, n, 1, 0) == 0 &&
                      equals_dense(&A, D),
                  "grid 7x7 peclet 20 = ls_generate(convdiff, 49)");
    ls_csr_free(&A);
    free(D);
    return f;
}

static int symmetric(const ls_csr *A)
{
    for (int64_t i = 0; i < A->n_rows; i++)
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++) {
            int64_t j = A->col_idx[p], q;
            for (q = A->row_ptr[j]; q < A->row_ptr[j + 1] && A->col_idx[q] != i; q++)
                ;
            if (q == A->row_ptr[j + 1] || A->val[q] != A->val[p])
                return 0;
        }
    return 1;
}

static int test_shapes(void)
{
    int f = 0;
    static const int64_t grids[][4] = {{3, 5, 4, 3}, {2, 6, 1, 2}, {3, 1, 1, 1}, {3, 9, 2, 1}};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        int dims = (int)grids[g][0];
        int64_t kx = grids[g][1], ky = grids[g][2], kz = dims == 3 ? grids[g][3] : 1;
        int64_t n = kx * ky * kz;
        int64_t nnz = n + 2 * ((kx - 1) * ky * kz + kx * (ky - 1) * kz + kx * ky * (kz - 1));
        ls_csr A;
        int st = ls_gen_grid(dims, kx, ky, kz, 0.0, &A);
        int interior_zero = 1, diag_ok = 1;
        for (int64_t i = 0; st == 0 && i < n; i++) {
            double s = 0;
            int64_t len = A.row_ptr[i + 1] - A.row_ptr[i];
            for (int64_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; p++) {
                s += A.val[p];
                if (A.col_idx[p] == i)
                    diag_ok &= A.val[p] == 2.0 * dims;
            }
            if (len == 2 * dims + 1)
                interior_zero &= s == 0;
        }
        f += lt_check(st == 0 && A.n_rows == n && A.nnz == nnz && symmetric(&A) &&
                          interior_zero && diag_ok,
                      "grid %dD %lldx%lldx%lld: n %lld, nnz %lld, symmetric, diagonal %d, "
                      "interior rows sum to 0",
                      dims, (long long)kx, (long long)ky, (long long)kz, (long long)n,
                      (long long)nnz, 2 * dims);
        ls_csr_free(&A);
    }
    ls_csr A;
    f += lt_check(ls_gen_grid(3, 4, 4, 4, 5.0, &A) == 0 && !symmetric(&A) && A.nnz == 7 * 64 - 6 * 16,
                  "convection-diffusion 3-D: nonsymmetric, 7-point");
    ls_csr_free(&A);
    f += lt_check(ls_gen_grid(4, 2, 2, 2, 0, &A) == -1 && ls_gen_grid(2, 0, 2, 1, 0, &A) == -2 &&
                      ls_gen_grid(2, 2, 2, 1, 0, NULL) == -3 &&
                      ls_gen_grid(2, 2, 2, 1, -1.0, &A) == -4 &&
                      ls_gen_grid(3, 1 << 21, 1 << 21, 1 << 21, 0, &A) == -2,
                  "bad dims, side, out, peclet, and a grid past addressing are refused");
    char err[256] = "";
    f += lt_check(ls_gen_grid_write_mm(NULL, "/nonexistent-dir/x.mtx", 2, 3, 3, 1, 0, NULL, err,
                                       sizeof err) == LS_EIO &&
                      strstr(err, "nonexistent-dir"),
                  "write to a missing folder: LS_EIO naming it (%s)", err);
    f += lt_check(ls_gen_grid_write_mm(NULL, "x.mtx", 5, 3, 3, 1, 0, NULL, err, sizeof err) ==
                      LS_EINVAL,
                  "write with dims 5: LS_EINVAL (%s)", err);
    return f;
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static int test_stream(void)
{
    int f = 0;
    char path[] = "/tmp/ls_test_grid_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return lt_check(0, "mkstemp");
    close(fd);
    static const struct {
        int dims;
        int64_t kx, ky, kz;
        double pe;
    } cases[] = {{2, 1000, 1000, 1, 0.0}, {3, 23, 17, 11, 20.0}, {2, 1, 1, 1, 0.0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char err[256] = "";
        long before = peak_rss_kib();
        int st = ls_gen_grid_write_mm(NULL, path, cases[c].dims, cases[c].kx, cases[c].ky,
                                      cases[c].kz, cases[c].pe, "test", err, sizeof err);
        long grew = peak_rss_kib() - before;
        ls_csr F, G;
        int rd = st == 0 ? ls_csr_read_mm(path, &F, err, sizeof err) : -1;
        int gd = ls_gen_grid(cases[c].dims, cases[c].kx, cases[c].ky, cases[c].kz, cases[c].pe,
                             &G);
        /* CSR of n = 10^6 would be 88 MB: the writer must not come close */
        f += lt_check(st == 0 && rd == 0 && gd == 0 && same_csr(&F, &G) && grew < 8 * 1024,
                      "stream %dD %lldx%lldx%lld (n %lld, nnz %lld): reads back as "
                      "ls_gen_grid's CSR bit for bit; peak RSS grew %ld KiB while writing %s",
                      cases[c].dims, (long long)cases[c].kx, (long long)cases[c].ky,
                      (long long)cases[c].kz, (long long)G.n_rows, (long long)G.nnz, grew, err);
        if (rd == 0)
            ls_csr_free(&F);
        ls_csr_free(&G);
    }
    FILE *s = tmpfile();
    char err[256] = "", line[256] = "";
    int st = s ? ls_gen_grid_write_mm(s, NULL, 2, 4, 4, 1, 0, NULL, err, sizeof err) : -1;
    if (s)
        rewind(s);
    int banner = s && fgets(line, sizeof line, s) &&
                 !strcmp(line, "%%MatrixMarket matrix coordinate real general\n");
    int left_open = s && fgets(line, sizeof line, s) && fgets(line, sizeof line, s) &&
                    !strcmp(line, "16 16 64\n");
    f += lt_check(st == 0 && banner && left_open, "to an open stream: banner, size line, left open");
    if (s)
        fclose(s);
    remove(path);
    return f;
}

static int test_estimate(void)
{
    int f = 0;
    ls_csr_direct_cost c2, c2big, c3;
    ls_csr A2, A2big, A3;
    char err[256] = "";
    if (!ls_csr_direct_available()) {
        ls_gen_poisson(2, 10, &A2);
        f += lt_check(ls_csr_direct_estimate(&A2, &c2, err, sizeof err) == LS_EUNSUPPORTED,
                      "without UMFPACK: LS_EUNSUPPORTED (%s)", err);
        ls_csr_free(&A2);
        return f;
    }
    /* n = 10^4 in 2-D (100 x 100) and in 3-D (22 x 22 x 21 ~ 1.02e4) */
    int st = ls_gen_poisson(2, 100, &A2) | ls_gen_poisson(2, 200, &A2big) |
             ls_gen_grid(3, 22, 22, 21, 0.0, &A3);
    st |= ls_csr_direct_estimate(&A2, &c2, err, sizeof err);
    st |= ls_csr_direct_estimate(&A2big, &c2big, err, sizeof err);
    st |= ls_csr_direct_estimate(&A3, &c3, err, sizeof err);
    f += lt_check(st == 0 && c2.peak_bytes > 0 && c2.flops > 0 && c2.nnz_lu >= (double)A2.nnz,
                  "estimate 2-D n = 1e4: peak %.3g B, %.3g flop, nnz(L+U) %.3g >= nnz(A) %s",
                  c2.peak_bytes, c2.flops, c2.nnz_lu, err);
    f += lt_check(c2big.flops > 4 * c2.flops && c2big.nnz_lu > 4 * c2.nnz_lu,
                  "4x the unknowns: more than 4x the flops (%.3g) and fill (%.3g)", c2big.flops,
                  c2big.nnz_lu);
    f += lt_check(c3.flops > 5 * c2.flops && c3.nnz_lu > c2.nnz_lu,
                  "3-D at the same n: dearer (flops %.3g vs %.3g, fill %.3g vs %.3g)", c3.flops,
                  c2.flops, c3.nnz_lu, c2.nnz_lu);
    double *b = lt_doubles((size_t)A2.n_rows), *x = lt_doubles((size_t)A2.n_rows);
    for (int64_t i = 0; i < A2.n_rows; i++)
        b[i] = 1.0;
    ls_csr_direct_report rep;
    st = ls_csr_solve_direct(&A2, 1, b, A2.n_rows, x, A2.n_rows, &rep, err, sizeof err);
    double ratio = (double)rep.nnz_lu / c2.nnz_lu;
    f += lt_check(st == 0 && ratio > 0.5 && ratio < 2,
                  "estimated fill %.3g vs the factorization's %lld (ratio %.2f)", c2.nnz_lu,
                  (long long)rep.nnz_lu, ratio);
    free(b);
    free(x);
    f += lt_check(ls_csr_direct_estimate(&A2, NULL, err, sizeof err) == LS_EINVAL &&
                      ls_csr_direct_estimate(NULL, &c2, err, sizeof err) == LS_EINVAL,
                  "NULL cost or A: LS_EINVAL");
    ls_csr R = A2;
    R.n_cols = A2.n_cols + 1;
    f += lt_check(ls_csr_direct_estimate(&R, &c2, err, sizeof err) == LS_ESIZE,
                  "not square: LS_ESIZE (%s)", err);
    ls_csr_free(&A2);
    ls_csr_free(&A2big);
    ls_csr_free(&A3);
    return f;
}

int main(void)
{
    int f = 0;
    f += test_against_dense();
    f += test_shapes();
    f += test_stream();
    f += test_estimate();
    printf("%s: %d failure(s)\n", f ? "FAILED" : "ok", f);
    return f;
}
