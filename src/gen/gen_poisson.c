/* The Dirichlet Laplacian on a k^dims grid, straight into CSR: 5-point in
 * 2-D, 7-point in 3-D, unscaled. Rows are built in parallel, each in column
 * order, from a row-pointer array computed first. */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "linsolve.h"

/* Entries of the row of grid point (ix, iy, iz): itself and its neighbours
 * inside the grid. */
static int64_t row_len(int dims, int64_t k, int64_t ix, int64_t iy, int64_t iz)
{
    int64_t len = 1 + (ix > 0) + (ix < k - 1) + (iy > 0) + (iy < k - 1);
    if (dims == 3)
        len += (iz > 0) + (iz < k - 1);
    return len;
}

int ls_gen_poisson(int dims, int64_t k, ls_csr *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (dims != 2 && dims != 3)
        return -1;
    /* 16 bytes per entry, at most 7 entries a row, must stay addressable:
     * this also keeps k^dims and every index below far from overflow. */
    double n_d = (double)k * (double)k * (dims == 3 ? (double)k : 1.0);
    if (k < 1 || n_d * (7.0 * 16.0 + 8.0) > 4.0e18)
        return -2;
    if (!out)
        return -3;
    const int64_t kk = k * k, n = dims == 3 ? kk * k : kk;
    const int64_t nnz = dims == 3 ? 7 * n - 6 * kk : 5 * n - 4 * k;
    const double diag = dims == 3 ? 6.0 : 4.0;
    int64_t *rp = ls_malloc(sizeof *rp * (size_t)(n + 1));
    int64_t *ci = ls_malloc(sizeof *ci * (size_t)nnz);
    double *v = ls_malloc(sizeof *v * (size_t)nnz);
    if (!rp || !ci || !v) {
        free(rp);
        free(ci);
        free(v);
        return LS_ENOMEM;
    }
    rp[0] = 0;
    for (int64_t p = 0; p < n; p++)
        rp[p + 1] = rp[p] + row_len(dims, k, p % k, (p / k) % k, p / kk);

#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n > 10000)
#endif
    for (int64_t p = 0; p < n; p++) {
        const int64_t ix = p % k, iy = (p / k) % k, iz = p / kk;
        int64_t q = rp[p];
        /* neighbours in increasing column order: -k^2, -k, -1, p, +1, +k, +k^2 */
        if (dims == 3 && iz > 0) {
            ci[q] = p - kk;
            v[q++] = -1.0;
        }
        if (iy > 0) {
            ci[q] = p - k;
            v[q++] = -1.0;
        }
        if (ix > 0) {
            ci[q] = p - 1;
            v[q++] = -1.0;
        }
        ci[q] = p;
        v[q++] = diag;
        if (ix < k - 1) {
            ci[q] = p + 1;
            v[q++] = -1.0;
        }
        if (iy < k - 1) {
            ci[q] = p + k;
            v[q++] = -1.0;
        }
        if (dims == 3 && iz < k - 1) {
            ci[q] = p + kk;
            v[q++] = -1.0;
        }
    }
    out->n_rows = out->n_cols = n;
    out->nnz = nnz;
    out->row_ptr = rp;
    out->col_idx = ci;
    out->val = v;
    return 0;
}
