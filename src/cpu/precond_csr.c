/* Jacobi, ILU(0) (and ILUT, ilut_csr.c) preconditioners on a CSR matrix with sorted rows. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "krylov_csr.h"

/* Position of a_ii in row i (columns sorted), or -1. */
static int64_t find_diag(const ls_csr *A, int64_t i)
{
    int64_t lo = A->row_ptr[i], hi = A->row_ptr[i + 1] - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (A->col_idx[mid] == i)
            return mid;
        if (A->col_idx[mid] < i)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static int setup_jacobi(ls_csr_precond *P, const ls_csr *A, char *msg, size_t msglen)
{
    P->inv_diag = ls_malloc(sizeof(double) * (size_t)(A->n_rows ? A->n_rows : 1));
    if (!P->inv_diag) {
        snprintf(msg, msglen, "cannot allocate the Jacobi preconditioner");
        return LS_ENOMEM;
    }
    for (int64_t i = 0; i < A->n_rows; i++) {
        int64_t d = find_diag(A, i);
        if (d < 0 || A->val[d] == 0) {
            snprintf(msg, msglen, "Jacobi preconditioner: diagonal entry of row %lld is %s",
                     (long long)(i + 1), d < 0 ? "not stored" : "zero");
            return LS_EINVAL;
        }
        P->inv_diag[i] = 1.0 / A->val[d];
    }
    return 0;
}

/* ILU(0), IKJ order: row i is eliminated by the earlier rows k its pattern
 * names, updates restricted to row i's own pattern (found through iw). */
static int setup_ilu0(ls_csr_precond *P, const ls_csr *A, int perturb, char *msg, size_t msglen)
{
    int64_t n = A->n_rows, nnz = A->nnz;
    P->A = A;
    P->lu = ls_malloc(sizeof(double) * (size_t)(nnz ? nnz : 1));
    P->diag = ls_malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    int64_t *iw = ls_malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!P->lu || !P->diag || !iw) {
        free(iw);
        snprintf(msg, msglen, "cannot allocate the ILU(0) factors");
        return LS_ENOMEM;
    }
    memcpy(P->lu, A->val, sizeof(double) * (size_t)nnz);
    for (int64_t i = 0; i < n; i++) {
        P->diag[i] = find_diag(A, i);
        if (P->diag[i] < 0) {
            free(iw);
            snprintf(msg, msglen, "ILU(0): row %lld has no stored diagonal entry",
                     (long long)(i + 1));
            return LS_EINVAL;
        }
        iw[i] = -1;
    }
    double *lu = P->lu;
    for (int64_t i = 0; i < n; i++) {
        int64_t r0 = A->row_ptr[i], r1 = A->row_ptr[i + 1];
        for (int64_t p = r0; p < r1; p++)
            iw[A->col_idx[p]] = p;
        for (int64_t p = r0; p < P->diag[i]; p++) {
            int64_t k = A->col_idx[p];
            double lik = lu[p] / lu[P->diag[k]];
            lu[p] = lik;
            for (int64_t q = P->diag[k] + 1; q < A->row_ptr[k + 1]; q++) {
                int64_t at = iw[A->col_idx[q]];
                if (at >= 0)
                    lu[at] -= lik * lu[q];
            }
        }
        for (int64_t p = r0; p < r1; p++)
            iw[A->col_idx[p]] = -1;
        double piv = lu[P->diag[i]];
        if (perturb && isfinite(piv)) {
            /* A transversal's pivots can cancel exactly in the elimination:
             * a small pivot of the row's scale keeps the factors usable, and
             * the Krylov method corrects for the difference. */
            double amax = 0;
            for (int64_t p = r0; p < r1; p++)
                amax = fmax(amax, fabs(A->val[p]));
            if (amax == 0)
                amax = 1;
            if (fabs(piv) <= DBL_EPSILON * amax) {
                lu[P->diag[i]] = piv = (piv < 0 ? -1 : 1) * sqrt(DBL_EPSILON) * amax;
                P->perturbed++;
            }
        }
        if (piv == 0 || !isfinite(piv)) {
            free(iw);
            snprintf(msg, msglen, "ILU(0): pivot of row %lld is %g (zero or not finite)",
                     (long long)(i + 1), piv);
            return LS_EINVAL;
        }
    }
    free(iw);
    return 0;
}

int ls_csr_precond_setup(ls_csr_precond *P, ls_precond kind, const ls_csr *A, char *msg,
                         size_t msglen)
{
    return ls_csr_precond_setup_ex(P, kind, A, 0, msg, msglen);
}

int ls_csr_precond_setup_ex(ls_csr_precond *P, ls_precond kind, const ls_csr *A, int perturb,
                            char *msg, size_t msglen)
{
    memset(P, 0, sizeof *P);
    P->kind = kind;
    P->n = A->n_rows;
    int st = 0;
    if (kind == LS_PRECOND_JACOBI)
        st = setup_jacobi(P, A, msg, msglen);
    else if (kind == LS_PRECOND_ILU0)
        st = setup_ilu0(P, A, perturb, msg, msglen);
    else if (kind == LS_PRECOND_ILUT)
        st = ls_csr_ilut_setup(P, A, 1e-4, 10, msg, msglen);
    if (st)
        ls_csr_precond_free(P);
    return st;
}

void ls_csr_precond_apply(const ls_csr_precond *P, const double *r, double *z)
{
    int64_t n = P->n;
    if (P->kind == LS_PRECOND_JACOBI) {
#pragma omp parallel for schedule(static) if (n > 50000)
        for (int64_t i = 0; i < n; i++)
            z[i] = P->inv_diag[i] * r[i];
    } else if (P->kind == LS_PRECOND_ILU0) {
        const ls_csr *A = P->A;
        const double *lu = P->lu;
        /* L z = r (unit diagonal), then U z = z: sequential by nature. */
        for (int64_t i = 0; i < n; i++) {
            double s = r[i];
            for (int64_t p = A->row_ptr[i]; p < P->diag[i]; p++)
                s -= lu[p] * z[A->col_idx[p]];
            z[i] = s;
        }
        for (int64_t i = n - 1; i >= 0; i--) {
            double s = z[i];
            for (int64_t p = P->diag[i] + 1; p < A->row_ptr[i + 1]; p++)
                s -= lu[p] * z[A->col_idx[p]];
            z[i] = s / lu[P->diag[i]];
        }
    } else if (P->kind == LS_PRECOND_ILUT) {
        ls_csr_ilut_apply(P, r, z);
    } else if (z != r) {
        memcpy(z, r, sizeof(double) * (size_t)n);
    }
}

void ls_csr_precond_free(ls_csr_precond *P)
{
    if (!P)
        return;
    free(P->inv_diag);
    free(P->lu);
    free(P->diag);
    free(P->l_ptr), free(P->l_idx), free(P->l_val);
    free(P->u_ptr), free(P->u_idx), free(P->u_val), free(P->u_diag);
    memset(P, 0, sizeof *P);
}
