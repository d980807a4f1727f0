/*
 * ILUT (Saad's dual-threshold incomplete LU) on a CSR matrix with sorted
 * rows: row-wise IKJ elimination into a dense work row; entries below
 * tol ||a_i||2 are dropped and each of L and U keeps its largest
 * (A's count in the row + fill) entries, so the factors take at most
 * O(nnz + n fill) memory, sized before the elimination starts.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "krylov_csr.h"

/* Reorder idx[0..m) so that its k entries of largest |w[idx]| come first
 * (quickselect; order within the two parts is arbitrary). */
static void keep_largest(int64_t *idx, int64_t m, int64_t k, const double *w)
{
    int64_t lo = 0, hi = m - 1;
    if (k <= 0 || k >= m)
        return;
    while (lo < hi) {
        double pv = fabs(w[idx[lo + (hi - lo) / 2]]);
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (fabs(w[idx[i]]) > pv)
                i++;
            while (fabs(w[idx[j]]) < pv)
                j--;
            if (i <= j) {
                int64_t t = idx[i];
                idx[i] = idx[j], idx[j] = t;
                i++, j--;
            }
        }
        /* [lo, j] >= pv >= [i, hi] */
        if (k - 1 <= j)
            hi = j;
        else if (k - 1 >= i)
            lo = i;
        else
            return;
    }
}

int ls_csr_ilut_setup(ls_csr_precond *P, const ls_csr *A, double tol, int fill, char *msg,
                      size_t msglen)
{
    int64_t n = A->n_rows;
    size_t nn = (size_t)(n ? n : 1);
    int64_t p = fill < 0 ? 0 : fill;
    if (p > n)
        p = n;
    /* Capacity: row i of L holds at most min(i, nnzL_i + p) entries, of U
     * (off the diagonal) min(n - 1 - i, nnzU_i + p). */
    int64_t capl = 0, capu = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t nl = 0, nu = 0;
        for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; q++)
            nl += A->col_idx[q] < i, nu += A->col_idx[q] > i;
        capl += nl + p < i ? nl + p : i;
        capu += nu + p < n - 1 - i ? nu + p : n - 1 - i;
    }
    P->l_ptr = ls_malloc(sizeof(int64_t) * (nn + 1));
    P->u_ptr = ls_malloc(sizeof(int64_t) * (nn + 1));
    P->l_idx = ls_malloc(sizeof(int64_t) * (size_t)(capl ? capl : 1));
    P->u_idx = ls_malloc(sizeof(int64_t) * (size_t)(capu ? capu : 1));
    P->l_val = ls_malloc(sizeof(double) * (size_t)(capl ? capl : 1));
    P->u_val = ls_malloc(sizeof(double) * (size_t)(capu ? capu : 1));
    P->u_diag = ls_malloc(sizeof(double) * nn);
    double *w = ls_malloc(sizeof(double) * nn);
    int64_t *mark = ls_malloc(sizeof(int64_t) * nn);
    int64_t *jl = ls_malloc(sizeof(int64_t) * nn);
    int64_t *ju = ls_malloc(sizeof(int64_t) * nn);
    int st = 0;
    if (!P->l_ptr || !P->u_ptr || !P->l_idx || !P->u_idx || !P->l_val || !P->u_val ||
        !P->u_diag || !w || !mark || !jl || !ju) {
        snprintf(msg, msglen, "cannot allocate the ILUT factors (fill %lld per row)", (long long)p);
        st = LS_ENOMEM;
        goto out;
    }
    for (int64_t j = 0; j < n; j++)
        w[j] = 0, mark[j] = 0;
    P->l_ptr[0] = P->u_ptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t r0 = A->row_ptr[i], r1 = A->row_ptr[i + 1], nl = 0, nu = 0, nal = 0, nau = 0;
        double amax = 0;
        /* mark[j]: 1 in L's list, 2 in U's, 0 absent. The diagonal is
         * always listed, so that it can be perturbed if it stays zero. */
        mark[i] = 2;
        for (int64_t q = r0; q < r1; q++) {
            int64_t c = A->col_idx[q];
            w[c] = A->val[q];
            amax = fmax(amax, fabs(A->val[q]));
            if (c < i)
                jl[nl++] = c, mark[c] = 1, nal++;
            else if (c > i)
                ju[nu++] = c, mark[c] = 2, nau++;
        }
        double thr = tol * ls_kr_nrm2(r1 - r0, A->val + r0, NULL);
        /* Eliminate with the earlier rows in increasing column order; fill
         * in L joins the list, so the next one is found by a scan. */
        int64_t kept = 0;
        for (int64_t d = 0; d < nl; d++) {
            int64_t best = d;
            for (int64_t e = d + 1; e < nl; e++)
                if (jl[e] < jl[best])
                    best = e;
            int64_t k = jl[best];
            jl[best] = jl[d], jl[d] = k;
            double lik = w[k] / P->u_diag[k];
            if (!(fabs(lik) >= thr) || lik == 0) {
                w[k] = 0;
                continue; /* dropped: stays marked, so fill cannot bring it back */
            }
            w[k] = lik;
            jl[d] = jl[kept], jl[kept++] = k; /* kept ones first, dropped ones after */
            for (int64_t q = P->u_ptr[k]; q < P->u_ptr[k + 1]; q++) {
                int64_t c = P->u_idx[q];
                w[c] -= lik * P->u_val[q];
                if (!mark[c]) {
                    if (c < i)
                        jl[nl++] = c, mark[c] = 1;
                    else
                        ju[nu++] = c, mark[c] = 2;
                }
            }
        }
        /* L: the largest min(kept, nal + p). */
        int64_t keep = kept < nal + p ? kept : nal + p;
        keep_largest(jl, kept, keep, w);
        int64_t at = P->l_ptr[i];
        for (int64_t e = 0; e < keep; e++)
            P->l_idx[at] = jl[e], P->l_val[at++] = w[jl[e]];
        P->l_ptr[i + 1] = at;
        /* U off the diagonal: drop small, then the largest nau + p. */
        int64_t ukept = 0;
        for (int64_t e = 0; e < nu; e++)
            if (fabs(w[ju[e]]) >= thr && w[ju[e]] != 0)
                ju[ukept++] = ju[e];
        keep = ukept < nau + p ? ukept : nau + p;
        keep_largest(ju, ukept, keep, w);
        at = P->u_ptr[i];
        for (int64_t e = 0; e < keep; e++)
            P->u_idx[at] = ju[e], P->u_val[at++] = w[ju[e]];
        P->u_ptr[i + 1] = at;
        double piv = w[i];
        /* Dropping perturbs A already; a pivot that cancelled to (near)
         * zero is replaced as ILU(0)'s is, at the row's scale. */
        if (amax == 0)
            amax = 1;
        if (isfinite(piv) && fabs(piv) <= DBL_EPSILON * amax) {
            piv = (piv < 0 ? -1 : 1) * sqrt(DBL_EPSILON) * amax;
            P->perturbed++;
        }
        P->u_diag[i] = piv;
        for (int64_t e = 0; e < nl; e++)
            w[jl[e]] = 0, mark[jl[e]] = 0;
        for (int64_t e = 0; e < nu; e++)
            w[ju[e]] = 0, mark[ju[e]] = 0;
        w[i] = 0, mark[i] = 0;
        if (!isfinite(piv)) {
            snprintf(msg, msglen, "ILUT: pivot of row %lld is not finite", (long long)(i + 1));
            st = LS_EINVAL;
            goto out;
        }
    }
out:
    free(w), free(mark), free(jl), free(ju);
    return st;
}

void ls_csr_ilut_apply(const ls_csr_precond *P, const double *r, double *z)
{
    int64_t n = P->n;
    for (int64_t i = 0; i < n; i++) {
        double s = r[i];
        for (int64_t q = P->l_ptr[i]; q < P->l_ptr[i + 1]; q++)
            s -= P->l_val[q] * z[P->l_idx[q]];
        z[i] = s;
    }
    for (int64_t i = n - 1; i >= 0; i--) {
        double s = z[i];
        for (int64_t q = P->u_ptr[i]; q < P->u_ptr[i + 1]; q++)
            s -= P->u_val[q] * z[P->u_idx[q]];
        z[i] = s / P->u_diag[i];
    }
}
