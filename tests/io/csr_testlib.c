#include "csr_testlib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

int csr_well_formed(const ls_csr *A, char *why, size_t len)
{
    if (A->n_rows < 1 || A->n_cols < 1 || A->nnz < 0 || !A->row_ptr || !A->col_idx || !A->val) {
        snprintf(why, len, "dimensions or arrays missing");
        return 0;
    }
    if (A->row_ptr[0] != 0 || A->row_ptr[A->n_rows] != A->nnz) {
        snprintf(why, len, "row_ptr ends %lld..%lld, nnz %lld", (long long)A->row_ptr[0],
                 (long long)A->row_ptr[A->n_rows], (long long)A->nnz);
        return 0;
    }
    for (int64_t i = 0; i < A->n_rows; i++) {
        if (A->row_ptr[i + 1] < A->row_ptr[i]) {
            snprintf(why, len, "row_ptr decreases at row %lld", (long long)i);
            return 0;
        }
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++) {
            int64_t c = A->col_idx[p];
            if (c < 0 || c >= A->n_cols || (p > A->row_ptr[i] && c <= A->col_idx[p - 1]) ||
                !isfinite(A->val[p])) {
                snprintf(why, len, "row %lld entry %lld: column %lld value %g", (long long)i,
                         (long long)p, (long long)c, A->val[p]);
                return 0;
            }
        }
    }
    return 1;
}

double *csr_densify(const ls_csr *A)
{
    if ((double)A->n_rows * (double)A->n_cols > 1e8)
        return NULL;
    double *D = calloc((size_t)A->n_rows * (size_t)A->n_cols, sizeof *D);
    if (!D)
        return NULL;
    for (int64_t i = 0; i < A->n_rows; i++)
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
            D[(size_t)i + (size_t)A->col_idx[p] * (size_t)A->n_rows] += A->val[p];
    return D;
}

int csr_expect_status(const char *path, int want, const char *where, const char *word)
{
    ls_csr A;
    char err[1024] = "", why[160] = "";
    int st = ls_csr_read_mm(path, &A, err, sizeof err);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int ok = st == want;
    if (st == 0) {
        ok = ok && csr_well_formed(&A, why, sizeof why);
    } else {
        ok = ok && A.row_ptr == NULL && A.col_idx == NULL && A.val == NULL && A.nnz == 0 &&
             strstr(err, base) && (!where || strstr(err, where)) && (!word || strstr(err, word));
    }
    ls_csr_free(&A);
    return lt_check(ok, "csr read %-26s -> %-16s (want %s) %s%s", base, ls_status_name(st),
                    ls_status_name(want), err, why);
}

int csr_same_bits(const ls_csr *a, const ls_csr *b)
{
    if (a->n_rows != b->n_rows || a->n_cols != b->n_cols || a->nnz != b->nnz)
        return 0;
    size_t nnz = (size_t)a->nnz;
    return memcmp(a->row_ptr, b->row_ptr, sizeof(int64_t) * ((size_t)a->n_rows + 1)) == 0 &&
           memcmp(a->col_idx, b->col_idx, sizeof(int64_t) * nnz) == 0 &&
           memcmp(a->val, b->val, sizeof(double) * nnz) == 0;
}
