/* libFuzzer target: the Matrix Market coordinate -> CSR reader
 * (ls_csr_read_mm), checked against the CSR invariants linsolve.h promises
 * and, where the dense reader reads the same file, against its values
 * (both readers add duplicates in file order, so they agree exactly). */
#include <math.h>

#include "fuzz_file.h"

static void check_csr(const ls_csr *A, const char *err)
{
    long long cap = ls_fuzz_cap();
    if (A->n_rows < 1 || A->n_cols < 1 || A->n_rows > cap || A->n_cols > cap || A->nnz < 0 ||
        !A->row_ptr || !A->col_idx || !A->val)
        ls_fuzz_file_violation("success with a malformed CSR header", 0, err);
    if (A->row_ptr[0] != 0 || A->row_ptr[A->n_rows] != A->nnz)
        ls_fuzz_file_violation("row_ptr does not run from 0 to nnz", 0, err);
    for (int64_t i = 0; i < A->n_rows; i++) {
        if (A->row_ptr[i + 1] < A->row_ptr[i])
            ls_fuzz_file_violation("row_ptr decreases", 0, err);
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++) {
            if (A->col_idx[p] < 0 || A->col_idx[p] >= A->n_cols)
                ls_fuzz_file_violation("column out of range", 0, err);
            if (p > A->row_ptr[i] && A->col_idx[p] <= A->col_idx[p - 1])
                ls_fuzz_file_violation("columns not strictly increasing in a row", 0, err);
            if (!isfinite(A->val[p]))
                ls_fuzz_file_violation("non-finite value", 0, err);
        }
    }
}

/* Same values as the dense reader, entry for entry (zeros elsewhere). */
static void check_against_dense(const ls_csr *A, const ls_matrix *m, const char *err)
{
    if (m->rows != A->n_rows || m->cols != A->n_cols)
        ls_fuzz_file_violation("dense and CSR readers disagree on the shape", 0, err);
    size_t rows = (size_t)m->rows, stored = 0;
    for (size_t k = 0; k < rows * (size_t)m->cols; k++)
        stored += m->data[k] != 0.0;
    size_t nonzero = 0;
    for (int64_t i = 0; i < A->n_rows; i++)
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++) {
            double d = m->data[(size_t)i + (size_t)A->col_idx[p] * rows];
            if (d != A->val[p])
                ls_fuzz_file_violation("dense and CSR readers disagree on a value", 0, err);
            nonzero += A->val[p] != 0.0;
        }
    if (nonzero != stored)
        ls_fuzz_file_violation("the dense matrix has nonzeros the CSR lacks", 0, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = ls_fuzz_file_put(data, size);
    ls_csr A;
    char err[1024] = "", derr[1024] = "";
    int st = ls_csr_read_mm(path, &A, err, sizeof err);
    ls_matrix m;
    int dst = ls_mm_read(path, &m, derr, sizeof derr);
    if (st == 0) {
        check_csr(&A, err);
        if (dst == 0)
            check_against_dense(&A, &m, err);
        else if (dst != LS_ESIZE) /* the dense cap is on rows x cols, the CSR's is not */
            ls_fuzz_file_violation("the dense reader refuses a file the CSR reader reads", dst,
                                   derr);
    } else {
        if (A.row_ptr || A.col_idx || A.val || A.nnz || A.n_rows || A.n_cols)
            ls_fuzz_file_violation("failure left a matrix behind", st, err);
        ls_fuzz_check_refusal(st, err, path);
        /* an array file is the dense reader's; a CSR's budget can be lower
         * than the dense cap; anything else the two must refuse alike */
        if (dst == 0 && st != LS_EUNSUPPORTED && st != LS_ESIZE)
            ls_fuzz_file_violation("the CSR reader refuses a file the dense reader reads", st,
                                   err);
    }
    ls_csr_free(&A);
    ls_matrix_free(&m);
    return 0;
}
