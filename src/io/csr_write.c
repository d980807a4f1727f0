/* CSR -> Matrix Market coordinate real general, row by row. The matrix is
 * checked before the file is created, so that whatever is written,
 * ls_csr_read_mm reads back, bit for bit ("%.17g" round-trips every double
 * through strtod). The file is written through ls_outfile (outfile.c): a
 * failed write leaves the old file as it was. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/tool_api.h"
#include "core/util.h"
#include "io_internal.h"

static int check_csr(const char *name, const ls_csr *A, char *err, size_t errlen)
{
    if (!A || !A->row_ptr || (A->nnz > 0 && (!A->col_idx || !A->val)))
        return LS_FAIL(err, errlen, LS_EINVAL, "%s: csr write: no matrix data", name);
    if (A->n_rows < 1 || A->n_cols < 1 || A->nnz < 0)
        return LS_FAIL(err, errlen, LS_EINVAL,
                       "%s: csr write: expected n_rows, n_cols >= 1 and nnz >= 0, got %lld x "
                       "%lld, nnz %lld",
                       name, (long long)A->n_rows, (long long)A->n_cols, (long long)A->nnz);
    long long cells =
        A->n_rows > LLONG_MAX / A->n_cols ? LLONG_MAX : (long long)(A->n_rows * A->n_cols);
    if (A->nnz > cells)
        return LS_FAIL(err, errlen, LS_EINVAL,
                       "%s: csr write: nnz %lld is more than rows*cols = %lld", name,
                       (long long)A->nnz, cells);
    if (A->row_ptr[0] != 0 || A->row_ptr[A->n_rows] != A->nnz)
        return LS_FAIL(err, errlen, LS_EINVAL,
                       "%s: csr write: expected row_ptr[0] = 0 and row_ptr[n_rows] = nnz = %lld, "
                       "got %lld and %lld",
                       name, (long long)A->nnz, (long long)A->row_ptr[0],
                       (long long)A->row_ptr[A->n_rows]);
    for (int64_t i = 0; i < A->n_rows; i++) {
        if (A->row_ptr[i + 1] < A->row_ptr[i])
            return LS_FAIL(err, errlen, LS_EINVAL,
                           "%s: csr write: row_ptr decreases at row %lld (%lld -> %lld)", name,
                           (long long)i + 1, (long long)A->row_ptr[i],
                           (long long)A->row_ptr[i + 1]);
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++) {
            if (A->col_idx[p] < 0 || A->col_idx[p] >= A->n_cols)
                return LS_FAIL(err, errlen, LS_EINVAL,
                               "%s: csr write: column index %lld of row %lld is outside "
                               "0..%lld",
                               name, (long long)A->col_idx[p], (long long)i + 1,
                               (long long)A->n_cols - 1);
            if (!isfinite(A->val[p]))
                return LS_FAIL(err, errlen, LS_ENONFINITE,
                               "%s: csr write: entry (%lld, %lld) is %f; refusing to write a "
                               "non-finite value",
                               name, (long long)i + 1, (long long)A->col_idx[p] + 1, A->val[p]);
        }
    }
    return 0;
}

int ls_csr_write_mm(const char *path, const ls_csr *A, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!path)
        return LS_FAIL(err, errlen, LS_EINVAL, "csr write: path is NULL");
    int st = check_csr(path, A, err, errlen);
    if (st)
        return st;
    ls_outfile *out = NULL;
    if ((st = ls_outfile_open(path, &out, err, errlen)) != 0)
        return st;
    FILE *f = ls_outfile_stream(out);
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%% written by linsolve %d.%d.%d\n", LS_VERSION_MAJOR, LS_VERSION_MINOR,
            LS_VERSION_PATCH);
    fprintf(f, "%lld %lld %lld\n", (long long)A->n_rows, (long long)A->n_cols,
            (long long)A->nnz);
    for (int64_t i = 0; i < A->n_rows && !ferror(f); i++)
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
            fprintf(f, "%lld %lld %.17g\n", (long long)i + 1, (long long)A->col_idx[p] + 1,
                    A->val[p]);
    /* checks every write; replaces the file only when all went well */
    return ls_outfile_commit(out, err, errlen);
}
