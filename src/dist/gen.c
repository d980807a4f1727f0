/*
 * Generated systems in place and their residual, distributed: each rank
 * fills only its own blocks of ls_generate's matrix (ls_generate_block:
 * every entry from (seed, i, j)), and checks an answer with a distributed
 * matrix-vector product. No rank ever holds the whole matrix; the largest
 * thing replicated is X (n x nrhs).
 *
 * Both spread over the rank's OpenMP threads (blocks of A, rows of B and
 * of the residual), each row still summed in column order, so the result
 * is the same bit for bit whatever the thread count: at n = 131072 on two
 * ranks each rank draws 8.6e9 entries of A and, for B = A * ones, its rows
 * whole (1.7e10 more), minutes on one thread. (Under mpirun, bind ranks to
 * more than one core, e.g. --bind-to none, for the threads to help.)
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "dist_internal.h"

/* local rows of a descriptor's process row / columns of its process column */
static int loc_rows(const ls_grid *g, const int *d)
{
    return ls_numroc(d[LS_DESC_M], d[LS_DESC_MB], g->myrow, d[LS_DESC_RSRC], g->nprow);
}
static int loc_cols(const ls_grid *g, const int *d)
{
    return ls_numroc(d[LS_DESC_N], d[LS_DESC_NB], g->mycol, d[LS_DESC_CSRC], g->npcol);
}

/* B's rows laid out as A's: the same blocks on the same process rows */
static int rows_as_a(const int *da, const int *db)
{
    return db[LS_DESC_M] == da[LS_DESC_M] && db[LS_DESC_MB] == da[LS_DESC_MB] &&
           db[LS_DESC_RSRC] == da[LS_DESC_RSRC];
}

LS_API int ls_pdgenerate(ls_gen_kind kind, uint64_t seed, double *A, const int *desca, double *B,
                         const int *descb, ls_grid *g)
{
    if (ls_dist_outside(g))
        return -(400 + LS_DESC_CTXT + 1);
    g->error[0] = '\0';
    const int n = desca ? desca[LS_DESC_M] : 0;
    int st = ls_dist_check_mat(g, n, 4, n, 4, 1, 1, desca, 4);
    if (st == 0 && desca[LS_DESC_N] != n)
        st = -(400 + LS_DESC_N + 1);
    if (st == 0 && descb) {
        st = ls_dist_check_mat(g, n, 6, descb[LS_DESC_N], 6, 1, 1, descb, 6);
        if (st == 0 && !rows_as_a(desca, descb))
            st = -(600 + LS_DESC_MB + 1);
    }
    if (st == 0 && (kind < 0 || kind >= LS_GEN_COUNT_))
        st = -1;
    if (st == 0 && !ls_gen_is_local(kind))
        st = ls_dist_fail(g, LS_EUNSUPPORTED,
                          "%s cannot be generated block by block (no per-entry formula)",
                          ls_gen_name(kind));
    int lr = 0, lc = 0, lcb = 0;
    if (st == 0) {
        lr = loc_rows(g, desca);
        lc = loc_cols(g, desca);
        lcb = descb ? loc_cols(g, descb) : 0;
        if (lr > 0 && lc > 0 && !A)
            st = -3;
        else if (lr > 0 && lcb > 0 && !B)
            st = -5;
    }
    enum { CHUNK = 1024 };
    const int nth = omp_get_max_threads() > 0 ? omp_get_max_threads() : 1;
    double *row = NULL; /* CHUNK entries a thread */
    if (st == 0 && lr > 0 && lcb > 0 &&
        !(row = ls_dist_malloc(g, (size_t)nth * CHUNK * sizeof(double))))
        st = ls_dist_fail(g, LS_ENOMEM, "out of memory for row buffers");
    if ((st = ls_dist_agree(g, st)) != 0) {
        free(row);
        return st;
    }
    const int mb = desca[LS_DESC_MB], nb = desca[LS_DESC_NB], lda = desca[LS_DESC_LLD];
    const int mr = desca[LS_DESC_RSRC], mc = desca[LS_DESC_CSRC];
    const int nbr = (lr + mb - 1) / mb, nbc = (lc + nb - 1) / nb;
    const long long nblocks = (long long)nbr * nbc;
#pragma omp parallel for schedule(dynamic, 1)
    for (long long t = 0; t < nblocks; ++t) {
        const int lj = (int)(t / nbr) * nb, li = (int)(t % nbr) * mb;
        const int gj = ls_dist_l2g(lj, nb, g->mycol, mc, g->npcol);
        const int gi = ls_dist_l2g(li, mb, g->myrow, mr, g->nprow);
        const int w = lc - lj < nb ? lc - lj : nb, h = lr - li < mb ? lr - li : mb;
        ls_generate_block(kind, n, gi, gj, h, w, A + (size_t)lj * (size_t)lda + li, lda, seed);
    }
    /* B = A * ones, each row summed in column order as the serial CLI does */
    if (lcb > 0) {
#pragma omp parallel
        {
            double *mine = row + (size_t)omp_get_thread_num() * CHUNK;
#pragma omp for schedule(dynamic, 16)
            for (int li = 0; li < lr; ++li) {
                const int gi = ls_dist_l2g(li, mb, g->myrow, mr, g->nprow);
                double s = 0.0;
                for (int j0 = 0; j0 < n; j0 += CHUNK) {
                    const int w = n - j0 < CHUNK ? n - j0 : CHUNK;
                    ls_generate_block(kind, n, gi, j0, 1, w, mine, 1, seed);
                    for (int t = 0; t < w; ++t)
                        s += mine[t];
                }
                for (int c = 0; c < lcb; ++c)
                    B[(size_t)c * (size_t)descb[LS_DESC_LLD] + li] = s;
            }
        }
    }
    free(row);
    return 0;
}

LS_API int ls_pdresidual(int n, int nrhs, const double *A, const int *desca, const double *X,
                         const int *descx, const double *B, const int *descb, double *resid,
                         ls_grid *g)
{
    if (ls_dist_outside(g))
        return -(400 + LS_DESC_CTXT + 1);
    g->error[0] = '\0';
    int st = ls_dist_check_mat(g, n, 1, n, 1, 1, 1, desca, 4);
    if (st == 0)
        st = ls_dist_check_mat(g, n, 1, nrhs, 2, 1, 1, descx, 6);
    if (st == 0)
        st = ls_dist_check_mat(g, n, 1, nrhs, 2, 1, 1, descb, 8);
    if (st == 0 && !rows_as_a(desca, descx))
        st = -(600 + LS_DESC_MB + 1);
    if (st == 0 && (!rows_as_a(desca, descb) || descb[LS_DESC_NB] != descx[LS_DESC_NB] ||
                    descb[LS_DESC_CSRC] != descx[LS_DESC_CSRC] || descb[LS_DESC_N] != descx[LS_DESC_N]))
        st = -(800 + LS_DESC_NB + 1);
    if (st == 0 && !resid)
        st = -9;
    int lr = 0, lc = 0, lcx = 0;
    double *xg = NULL, *ax = NULL;
    if (st == 0) {
        lr = ls_numroc(n, desca[LS_DESC_MB], g->myrow, desca[LS_DESC_RSRC], g->nprow);
        lc = ls_numroc(n, desca[LS_DESC_NB], g->mycol, desca[LS_DESC_CSRC], g->npcol);
        lcx = ls_numroc(nrhs, descx[LS_DESC_NB], g->mycol, descx[LS_DESC_CSRC], g->npcol);
        size_t cnt = (size_t)n * (size_t)nrhs + 1, acnt = (size_t)lr * ((size_t)nrhs + 2) + 1;
        xg = ls_dist_malloc(g, cnt * sizeof(double));
        ax = ls_dist_malloc(g, acnt * sizeof(double));
        if (!xg || !ax)
            st = ls_dist_fail(g, LS_ENOMEM, "out of memory for X (%d x %d) in the residual", n,
                              nrhs);
    }
    if ((st = ls_dist_agree(g, st)) != 0 || n == 0 || nrhs == 0) {
        free(xg);
        free(ax);
        if (st == 0)
            *resid = 0.0;
        return st;
    }
    /* X on every rank: each entry lives on one rank, so a sum assembles it */
    memset(xg, 0, sizeof(double) * (size_t)n * (size_t)nrhs);
    const int ldx = descx[LS_DESC_LLD], lda = desca[LS_DESC_LLD], ldb = descb[LS_DESC_LLD];
    for (int c = 0; c < lcx; ++c) {
        const int gc = ls_dist_l2g(c, descx[LS_DESC_NB], g->mycol, descx[LS_DESC_CSRC], g->npcol);
        for (int li = 0; li < lr; ++li)
            xg[(size_t)gc * (size_t)n +
               (size_t)ls_dist_l2g(li, descx[LS_DESC_MB], g->myrow, descx[LS_DESC_RSRC],
                                   g->nprow)] = X[(size_t)c * (size_t)ldx + li];
    }
    if (MPI_Allreduce(MPI_IN_PLACE, xg, n * nrhs, MPI_DOUBLE, MPI_SUM, g->comm) != MPI_SUCCESS)
        return free(xg), free(ax), ls_dist_fail(g, LS_EINTERNAL, "MPI_Allreduce (X) failed");
    /* my rows: (A X) over my columns, and the sum of |a_ij| (last column) */
    double *rabs = ax + (size_t)lr * (size_t)nrhs, *rres = rabs + lr;
    memset(ax, 0, sizeof(double) * (size_t)lr * ((size_t)nrhs + 1));
    /* threads take row stripes; within a stripe the columns go in order, so
     * every row is summed as one thread would */
    enum { STRIPE = 256 };
#pragma omp parallel for schedule(dynamic, 1)
    for (int r0 = 0; r0 < lr; r0 += STRIPE) {
        const int r1 = lr - r0 < STRIPE ? lr : r0 + STRIPE;
        for (int lj = 0; lj < lc; ++lj) {
            const int gj =
                ls_dist_l2g(lj, desca[LS_DESC_NB], g->mycol, desca[LS_DESC_CSRC], g->npcol);
            const double *a = A + (size_t)lj * (size_t)lda;
            for (int c = 0; c < nrhs; ++c) {
                const double xj = xg[(size_t)c * (size_t)n + (size_t)gj];
                double *y = ax + (size_t)c * (size_t)lr;
                for (int li = r0; li < r1; ++li)
                    y[li] += a[li] * xj;
            }
            for (int li = r0; li < r1; ++li)
                rabs[li] += fabs(a[li]);
        }
    }
    if (g->npcol > 1 && lr > 0 &&
        MPI_Allreduce(MPI_IN_PLACE, ax, lr * (nrhs + 1), MPI_DOUBLE, MPI_SUM, g->row_comm) !=
            MPI_SUCCESS)
        return free(xg), free(ax), ls_dist_fail(g, LS_EINTERNAL, "MPI_Allreduce (A X) failed");
    /* |B - A X| summed over my columns of B, then over the process row */
    double nan_seen = 0;
    for (int li = 0; li < lr; ++li)
        rres[li] = 0;
    for (int c = 0; c < lcx; ++c) {
        const int gc = ls_dist_l2g(c, descx[LS_DESC_NB], g->mycol, descx[LS_DESC_CSRC], g->npcol);
        for (int li = 0; li < lr; ++li) {
            double r = B[(size_t)c * (size_t)ldb + li] - ax[(size_t)gc * (size_t)lr + li];
            nan_seen = isnan(r) ? 1 : nan_seen;
            rres[li] += fabs(r);
        }
    }
    if (g->npcol > 1 && lr > 0 &&
        MPI_Allreduce(MPI_IN_PLACE, rres, lr, MPI_DOUBLE, MPI_SUM, g->row_comm) != MPI_SUCCESS)
        return free(xg), free(ax), ls_dist_fail(g, LS_EINTERNAL, "MPI_Allreduce (|R|) failed");
    double m[3] = {0, 0, nan_seen}; /* ||R||inf, ||A||inf, NaN seen */
    for (int li = 0; li < lr; ++li) {
        m[0] = rres[li] > m[0] ? rres[li] : m[0];
        m[1] = rabs[li] > m[1] ? rabs[li] : m[1];
        if (isnan(rabs[li]) || isnan(rres[li]))
            m[2] = 1;
    }
    double xnorm = 0;
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int c = 0; c < nrhs; ++c)
            s += fabs(xg[(size_t)c * (size_t)n + (size_t)i]);
        xnorm = s > xnorm || isnan(s) ? s : xnorm;
    }
    free(xg);
    free(ax);
    if (MPI_Allreduce(MPI_IN_PLACE, m, 3, MPI_DOUBLE, MPI_MAX, g->comm) != MPI_SUCCESS)
        return ls_dist_fail(g, LS_EINTERNAL, "MPI_Allreduce (norms) failed");
    /* as ls_scaled_residual */
    if (m[2] != 0 || isnan(xnorm)) {
        *resid = NAN;
    } else if (m[0] == 0.0) {
        *resid = 0.0;
    } else {
        double denom = (double)n * m[1] * xnorm * ls_eps(LS_DOUBLE);
        *resid = denom == 0.0 || !isfinite(denom) ? INFINITY : m[0] / denom;
    }
    return 0;
}
