/*
 * A column permutation Q with a zero-free diagonal in A Q (a maximum
 * transversal, Duff's MC21 as SuiteSparse BTF's btf_l_maxtrans implements
 * it), so that Jacobi and ILU(0) can be built for a matrix whose diagonal
 * is structurally zero. Without BTF ls_csr_colperm_build says so and the
 * caller keeps the preconditioner's own refusal.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "krylov_csr.h"
#ifdef LS_HAVE_BTF
#include <btf.h>
#endif

int ls_csr_needs_transversal(const ls_csr *A)
{
    for (int64_t i = 0; i < A->n_rows; i++) {
        int found = 0;
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
            if (A->col_idx[p] == i && A->val[p] != 0)
                found = 1;
        if (!found)
            return 1;
    }
    return 0;
}

void ls_csr_colperm_free(ls_csr_colperm *T)
{
    free(T->qinv), free(T->work), free(T->B.col_idx), free(T->B.val);
    memset(T, 0, sizeof *T);
}

void ls_csr_colperm_to(const ls_csr_colperm *T, double *x)
{
    for (int64_t j = 0; j < T->B.n_rows; j++)
        T->work[T->qinv[j]] = x[j];
    memcpy(x, T->work, sizeof(double) * (size_t)T->B.n_rows);
}

void ls_csr_colperm_from(const ls_csr_colperm *T, double *y)
{
    for (int64_t j = 0; j < T->B.n_rows; j++)
        T->work[j] = y[T->qinv[j]];
    memcpy(y, T->work, sizeof(double) * (size_t)T->B.n_rows);
}

int ls_csr_colperm_alloc(const ls_csr *A, ls_csr_colperm *T)
{
    memset(T, 0, sizeof *T);
    int64_t n = A->n_rows, nnz = A->nnz;
    size_t n1 = (size_t)(n ? n : 1), nz1 = (size_t)(nnz ? nnz : 1);
    T->B = *A;
    T->B.col_idx = ls_malloc(sizeof(int64_t) * nz1);
    T->B.val = ls_malloc(sizeof(double) * nz1);
    T->qinv = ls_malloc(sizeof(int64_t) * n1);
    T->work = ls_malloc(sizeof(double) * n1);
    return T->B.col_idx && T->B.val && T->qinv && T->work ? 0 : LS_ENOMEM;
}

/* B = A Q with sorted rows: bucket the entries by their new column (rows
 * come out ascending in each), then back by row (columns ascending). */
int ls_csr_colperm_fill(const ls_csr *A, ls_csr_colperm *T)
{
    int64_t n = A->n_rows, nnz = A->nnz;
    size_t nz1 = (size_t)(nnz ? nnz : 1);
    int64_t *cptr = ls_malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *crow = ls_malloc(sizeof(int64_t) * nz1);
    double *cval = ls_malloc(sizeof(double) * nz1);
    int64_t *next = ls_malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    int st = LS_ENOMEM;
    if (!cptr || !crow || !cval || !next)
        goto out;
    memset(cptr, 0, sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t p = 0; p < nnz; p++)
        cptr[T->qinv[A->col_idx[p]] + 1]++;
    for (int64_t k = 0; k < n; k++)
        cptr[k + 1] += cptr[k];
    memcpy(next, cptr, sizeof(int64_t) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++) {
            int64_t q = next[T->qinv[A->col_idx[p]]]++;
            crow[q] = i;
            cval[q] = A->val[p];
        }
    memcpy(next, A->row_ptr, sizeof(int64_t) * (size_t)n);
    for (int64_t k = 0; k < n; k++)
        for (int64_t q = cptr[k]; q < cptr[k + 1]; q++) {
            int64_t p = next[crow[q]]++;
            T->B.col_idx[p] = k;
            T->B.val[p] = cval[q];
        }
    st = 0;
out:
    free(cptr), free(crow), free(cval), free(next);
    return st;
}

#ifdef LS_HAVE_BTF
typedef struct mag_col {
    double mag;
    SuiteSparse_long col;
} mag_col;

static int by_magnitude(const void *a, const void *b)
{
    const mag_col *x = a, *y = b;
    return x->mag > y->mag ? -1 : x->mag < y->mag ? 1 : (x->col > y->col) - (x->col < y->col);
}

#endif

int ls_csr_colperm_build(const ls_csr *A, ls_csr_colperm *T, char *msg, size_t msglen)
{
    memset(T, 0, sizeof *T);
#ifndef LS_HAVE_BTF
    (void)A;
    snprintf(msg, msglen, "built without SuiteSparse BTF: no maximum transversal");
    return LS_EUNSUPPORTED;
#else
    int64_t n = A->n_rows, nnz = A->nnz;
    size_t n1 = (size_t)(n ? n : 1), nz1 = (size_t)(nnz ? nnz : 1);
    int alloc = ls_csr_colperm_alloc(A, T);
    /* BTF reads a column-compressed pattern: A's rows are A^T's columns, so
     * Match[i] = j pairs column i of A with row j, a_ji != 0. Explicit zeros
     * are left out of the pattern: they would make no usable pivot. */
    SuiteSparse_long *ap = ls_malloc(sizeof(SuiteSparse_long) * (size_t)(n + 1));
    SuiteSparse_long *ai = ls_malloc(sizeof(SuiteSparse_long) * nz1);
    SuiteSparse_long *match = ls_malloc(sizeof(SuiteSparse_long) * n1);
    SuiteSparse_long *w = ls_malloc(sizeof(SuiteSparse_long) * 5 * n1);
    int st = 0;
    if (alloc || !ap || !ai || !match || !w) {
        st = LS_ENOMEM;
        snprintf(msg, msglen, "cannot allocate the maximum transversal");
        goto out;
    }
    /* MC21 takes the first free entry it scans: listing each row's entries
     * by decreasing magnitude steers the matching to large pivots, which
     * leaves ILU(0) fewer exactly cancelled ones. */
    int64_t maxrow = 1;
    for (int64_t i = 0; i < n; i++)
        if (A->row_ptr[i + 1] - A->row_ptr[i] > maxrow)
            maxrow = A->row_ptr[i + 1] - A->row_ptr[i];
    mag_col *row = ls_malloc(sizeof(mag_col) * (size_t)maxrow);
    if (!row) {
        st = LS_ENOMEM;
        snprintf(msg, msglen, "cannot allocate the maximum transversal");
        goto out;
    }
    SuiteSparse_long k = 0;
    ap[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        size_t len = 0;
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
            if (A->val[p] != 0)
                row[len++] = (mag_col){fabs(A->val[p]), (SuiteSparse_long)A->col_idx[p]};
        qsort(row, len, sizeof *row, by_magnitude);
        for (size_t q = 0; q < len; q++)
            ai[k++] = row[q].col;
        ap[i + 1] = k;
    }
    free(row);
    double work = 0;
    SuiteSparse_long rank = btf_l_maxtrans((SuiteSparse_long)n, (SuiteSparse_long)n, ap, ai, 0,
                                           &work, match, w);
    T->rank = (int64_t)rank;
    if (rank < n) {
        st = LS_EINVAL;
        snprintf(msg, msglen,
                 "structurally singular: a maximum transversal matches %lld of %lld columns "
                 "(structural rank %lld), no permutation gives a zero-free diagonal",
                 (long long)rank, (long long)n, (long long)rank);
        goto out;
    }
    for (int64_t j = 0; j < n; j++)
        T->qinv[j] = (int64_t)match[j];
    st = ls_csr_colperm_fill(A, T);
    for (int64_t j = 0; j < n; j++)
        T->moved += T->qinv[j] != j;
    if (st)
        snprintf(msg, msglen, "cannot allocate the maximum transversal");
out:
    free(ap), free(ai), free(match), free(w);
    if (st)
        ls_csr_colperm_free(T);
    return st;
#endif
}
