/*
 * Maximum-product weighted matching with scaling (Duff & Koster, SIAM J.
 * Matrix Anal. Appl. 22 (2001); the problem MC64's job 5 solves), written
 * here from the published algorithm.
 *
 * Find the permutation sigma maximising prod_j |a_sigma(j) j|. With
 * amax_j = max_k |a_kj| and c_ij = log amax_j - log |a_ij| >= 0 (entries
 * that are exactly zero are not edges), this is a minimum-cost perfect
 * matching in the bipartite graph rows x columns. It is solved by
 * successive shortest augmenting paths from each unmatched column
 * (Dijkstra with a binary heap on the reduced costs c_ij - u_i - v_j >= 0),
 * keeping the dual variables u (rows) and v (columns) feasible and tight on
 * the matching. At the end dr_i = exp(u_i) and dc_j = exp(v_j - log amax_j)
 * make |dr_i a_ij dc_j| = exp(u_i + v_j - c_ij) <= 1, with equality on the
 * matched entries. Worst case O(n nnz log n); after the cheap initial
 * matching most columns are matched and each search stays local.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "krylov_csr.h"

/* Rows keyed by their tentative distance; pos[i] < 0: not in the heap. */
typedef struct row_heap {
    int64_t *h, *pos, len;
    const double *key;
} row_heap;

static void heap_up(row_heap *H, int64_t k)
{
    int64_t i = H->h[k];
    double d = H->key[i];
    while (k > 0) {
        int64_t parent = (k - 1) / 2, pi = H->h[parent];
        if (!(H->key[pi] > d))
            break;
        H->h[k] = pi, H->pos[pi] = k;
        k = parent;
    }
    H->h[k] = i, H->pos[i] = k;
}

static void heap_down(row_heap *H, int64_t k)
{
    int64_t i = H->h[k];
    double d = H->key[i];
    for (;;) {
        int64_t c = 2 * k + 1;
        if (c >= H->len)
            break;
        if (c + 1 < H->len && H->key[H->h[c + 1]] < H->key[H->h[c]])
            c++;
        if (!(H->key[H->h[c]] < d))
            break;
        H->h[k] = H->h[c], H->pos[H->h[c]] = k;
        k = c;
    }
    H->h[k] = i, H->pos[i] = k;
}

/* Insert row i, or move it up after its key decreased. */
static void heap_push(row_heap *H, int64_t i)
{
    if (H->pos[i] < 0) {
        H->h[H->len] = i;
        H->pos[i] = H->len++;
    }
    heap_up(H, H->pos[i]);
}

static int64_t heap_pop(row_heap *H)
{
    int64_t top = H->h[0];
    H->pos[top] = -1;
    if (--H->len > 0) {
        H->h[0] = H->h[H->len];
        heap_down(H, 0);
    }
    return top;
}

/* The nonzero entries by column with their costs; amax_j's logarithm. */
typedef struct mc64_graph {
    int64_t *cptr, *crow;
    double *cost, *lmax;
} mc64_graph;

static int build_graph(const ls_csr *A, mc64_graph *G)
{
    int64_t n = A->n_rows, nnz = A->nnz;
    size_t n1 = (size_t)(n ? n : 1), nz1 = (size_t)(nnz ? nnz : 1);
    G->cptr = ls_malloc(sizeof(int64_t) * (n1 + 1));
    G->crow = ls_malloc(sizeof(int64_t) * nz1);
    G->cost = ls_malloc(sizeof(double) * nz1);
    G->lmax = ls_malloc(sizeof(double) * n1);
    int64_t *next = ls_malloc(sizeof(int64_t) * n1);
    double *amax = G->lmax;
    if (!G->cptr || !G->crow || !G->cost || !G->lmax || !next) {
        free(next);
        return LS_ENOMEM;
    }
    memset(G->cptr, 0, sizeof(int64_t) * (n1 + 1));
    for (int64_t j = 0; j < n; j++)
        amax[j] = 0;
    for (int64_t p = 0; p < nnz; p++)
        if (A->val[p] != 0) {
            int64_t j = A->col_idx[p];
            G->cptr[j + 1]++;
            amax[j] = fmax(amax[j], fabs(A->val[p]));
        }
    for (int64_t j = 0; j < n; j++) {
        G->cptr[j + 1] += G->cptr[j];
        next[j] = G->cptr[j];
        amax[j] = amax[j] > 0 ? log(amax[j]) : 0; /* an empty column has no edge */
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++)
            if (A->val[p] != 0) {
                int64_t j = A->col_idx[p], q = next[j]++;
                G->crow[q] = i;
                /* log of a subnormal is finite: no overflow as a quotient could */
                G->cost[q] = fmax(0.0, amax[j] - log(fabs(A->val[p])));
            }
    free(next);
    return 0;
}

/* Reduced cost of edge q = (i, j), never negative (rounding aside). */
static double reduced(const mc64_graph *G, const double *u, const double *v, int64_t q,
                      int64_t j)
{
    return fmax(0.0, (G->cost[q] - u[G->crow[q]]) - v[j]);
}

/* Feasible duals (u = row minima, v = column minima of c - u) and a greedy
 * matching on the edges of zero reduced cost. Returns the matched count. */
static int64_t initial_matching(const mc64_graph *G, int64_t n, double *u, double *v,
                                int64_t *col_of_row, int64_t *row_of_col)
{
    for (int64_t i = 0; i < n; i++)
        u[i] = INFINITY, col_of_row[i] = -1;
    for (int64_t q = 0; q < G->cptr[n]; q++)
        u[G->crow[q]] = fmin(u[G->crow[q]], G->cost[q]);
    for (int64_t i = 0; i < n; i++)
        if (u[i] == INFINITY) /* an empty row: never on a path */
            u[i] = 0;
    int64_t matched = 0;
    for (int64_t j = 0; j < n; j++) {
        double m = INFINITY;
        for (int64_t q = G->cptr[j]; q < G->cptr[j + 1]; q++)
            m = fmin(m, G->cost[q] - u[G->crow[q]]);
        v[j] = m == INFINITY ? 0 : m;
        row_of_col[j] = -1;
        for (int64_t q = G->cptr[j]; q < G->cptr[j + 1]; q++) {
            int64_t i = G->crow[q];
            if (col_of_row[i] < 0 && reduced(G, u, v, q, j) == 0) {
                col_of_row[i] = j, row_of_col[j] = i;
                matched++;
                break;
            }
        }
    }
    return matched;
}

typedef struct mc64_work {
    double *d;               /* rows: tentative distance from the root column */
    int64_t *pred;           /* rows: the column they were reached from */
    int64_t *touched, *done; /* rows reached / finalised in this search */
    int64_t ntouched, ndone;
    row_heap H;
} mc64_work;

/* One Dijkstra search from the unmatched column j0; on reaching a free row,
 * update the duals and augment. Returns 1 matched, 0 no augmenting path. */
static int augment_from(const mc64_graph *G, int64_t j0, double *u, double *v,
                        int64_t *col_of_row, int64_t *row_of_col, mc64_work *W)
{
    double *d = W->d;
    int64_t jcur = j0, iend = -1;
    double lsp = 0; /* distance to jcur */
    W->ntouched = W->ndone = 0;
    W->H.len = 0;
    for (;;) {
        for (int64_t q = G->cptr[jcur]; q < G->cptr[jcur + 1]; q++) {
            int64_t i = G->crow[q];
            if (W->H.pos[i] == -2)
                continue; /* finalised */
            double dn = lsp + reduced(G, u, v, q, jcur);
            if (dn < d[i]) {
                if (d[i] == INFINITY)
                    W->touched[W->ntouched++] = i;
                d[i] = dn, W->pred[i] = jcur;
                heap_push(&W->H, i);
            }
        }
        if (W->H.len == 0)
            break;
        int64_t i = heap_pop(&W->H);
        W->H.pos[i] = -2;
        W->done[W->ndone++] = i;
        if (col_of_row[i] < 0) {
            iend = i;
            break;
        }
        jcur = col_of_row[i];
        lsp = d[i]; /* the matched edge has reduced cost 0 */
    }
    if (iend >= 0) {
        /* u_i += dist_i - dmin, v_j += dmin - dist_j on what was finalised
         * (unreached nodes keep theirs): reduced costs stay >= 0 and the
         * path's edges become tight. */
        double dmin = d[iend];
        for (int64_t k = 0; k < W->ndone; k++) {
            int64_t i = W->done[k];
            u[i] += d[i] - dmin;
            if (col_of_row[i] >= 0)
                v[col_of_row[i]] += dmin - d[i];
        }
        v[j0] += dmin;
        for (int64_t i = iend;;) {
            int64_t j = W->pred[i], prev = row_of_col[j];
            row_of_col[j] = i, col_of_row[i] = j;
            if (j == j0)
                break;
            i = prev;
        }
    }
    for (int64_t k = 0; k < W->ntouched; k++) {
        d[W->touched[k]] = INFINITY;
        W->H.pos[W->touched[k]] = -1;
    }
    return iend >= 0;
}

int ls_csr_mc64(const ls_csr *A, int64_t *perm, double *dr, double *dc, int64_t *rank,
                char *msg, size_t msglen)
{
    if (!A || !perm || !rank || A->n_rows != A->n_cols || A->n_rows < 0) {
        snprintf(msg, msglen, "weighted matching: a square matrix and perm, rank are needed");
        return LS_EINVAL;
    }
    int64_t n = A->n_rows;
    size_t n1 = (size_t)(n ? n : 1);
    mc64_graph G = {0};
    mc64_work W = {0};
    double *u = ls_malloc(sizeof(double) * n1), *v = ls_malloc(sizeof(double) * n1);
    int64_t *col_of_row = ls_malloc(sizeof(int64_t) * n1);
    W.d = ls_malloc(sizeof(double) * n1);
    W.pred = ls_malloc(sizeof(int64_t) * n1);
    W.touched = ls_malloc(sizeof(int64_t) * n1);
    W.done = ls_malloc(sizeof(int64_t) * n1);
    W.H.h = ls_malloc(sizeof(int64_t) * n1);
    W.H.pos = ls_malloc(sizeof(int64_t) * n1);
    W.H.key = W.d;
    int st = 0;
    if (!u || !v || !col_of_row || !W.d || !W.pred || !W.touched || !W.done || !W.H.h ||
        !W.H.pos || build_graph(A, &G)) {
        st = LS_ENOMEM;
        snprintf(msg, msglen, "cannot allocate the weighted matching");
        goto out;
    }
    int64_t matched = initial_matching(&G, n, u, v, col_of_row, perm);
    for (int64_t i = 0; i < n; i++)
        W.d[i] = INFINITY, W.H.pos[i] = -1;
    /* A column without an augmenting path now never gets one later, so one
     * search per column gives the structural rank too. */
    for (int64_t j = 0; j < n && matched < n; j++)
        if (perm[j] < 0)
            matched += augment_from(&G, j, u, v, col_of_row, perm, &W);
    *rank = matched;
    if (matched < n) {
        st = LS_EINVAL;
        snprintf(msg, msglen,
                 "structurally singular: a maximum matching pairs %lld of %lld columns "
                 "(structural rank %lld), no permutation gives a zero-free diagonal",
                 (long long)matched, (long long)n, (long long)matched);
        goto out;
    }
    if (dr && dc) {
        /* u + t, v - t is the same scaling: centre u so that neither
         * exponential overflows for a matrix of merely wide range. */
        double umin = INFINITY, umax = -INFINITY;
        for (int64_t i = 0; i < n; i++)
            umin = fmin(umin, u[i]), umax = fmax(umax, u[i]);
        double t = n ? -0.5 * (umin + umax) : 0;
        for (int64_t i = 0; i < n; i++)
            dr[i] = exp(u[i] + t);
        for (int64_t j = 0; j < n; j++)
            dc[j] = exp(v[j] - t - G.lmax[j]);
        /* Rounding in the duals may leave a column a few ulps above 1. */
        double *cmax = W.d;
        for (int64_t j = 0; j < n; j++)
            cmax[j] = 0;
        for (int64_t i = 0; i < n; i++)
            for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++) {
                int64_t j = A->col_idx[p];
                cmax[j] = fmax(cmax[j], fabs(dr[i] * A->val[p] * dc[j]));
            }
        for (int64_t j = 0; j < n; j++)
            if (cmax[j] > 1)
                dc[j] /= cmax[j];
        for (int64_t k = 0; k < n; k++)
            if (!(dr[k] > 0) || !isfinite(dr[k]) || !(dc[k] > 0) || !isfinite(dc[k])) {
                st = LS_ENONFINITE;
                snprintf(msg, msglen, "weighted matching: the scaling of row/column %lld is "
                         "out of the double range", (long long)(k + 1));
                goto out;
            }
    }
out:
    free(u), free(v), free(col_of_row);
    free(W.d), free(W.pred), free(W.touched), free(W.done), free(W.H.h), free(W.H.pos);
    free(G.cptr), free(G.crow), free(G.cost), free(G.lmax);
    return st;
}

int ls_csr_diag_needs_matching(const ls_csr *A, double small)
{
    int64_t n = A->n_rows;
    double *cmax = ls_malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (!cmax)
        return LS_ENOMEM;
    for (int64_t j = 0; j < n; j++)
        cmax[j] = 0;
    for (int64_t p = 0; p < A->nnz; p++)
        cmax[A->col_idx[p]] = fmax(cmax[A->col_idx[p]], fabs(A->val[p]));
    int needs = 0;
    for (int64_t i = 0; i < n && !needs; i++) {
        double rmax = 0, d = 0;
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++) {
            rmax = fmax(rmax, fabs(A->val[p]));
            if (A->col_idx[p] == i)
                d = fabs(A->val[p]);
        }
        needs = !(d > small * fmax(rmax, cmax[i]));
    }
    free(cmax);
    return needs;
}

int ls_csr_colperm_build_mc64(const ls_csr *A, ls_csr_colperm *T, double *dr, double *dc,
                              char *msg, size_t msglen)
{
    int64_t n = A->n_rows;
    int st;
    if (ls_csr_colperm_alloc(A, T)) {
        st = LS_ENOMEM;
        snprintf(msg, msglen, "cannot allocate the weighted matching");
        goto out;
    }
    st = ls_csr_mc64(A, T->qinv, dr, dc, &T->rank, msg, msglen);
    if (st)
        goto out;
    /* Row perm[j] of A holds the pivot of column j: in A Q that column
     * moves to position perm[j], so Q's inverse is perm itself. */
    if ((st = ls_csr_colperm_fill(A, T)) != 0) {
        snprintf(msg, msglen, "cannot allocate the weighted matching");
        goto out;
    }
    /* Powers of two at or below the scalings: scaling and unscaling are
     * then exact (x is returned without added rounding), |b_ij| <= 1 still
     * and the matched |b_ii| lie in (1/4, 1]. Rounded off this way the
     * iterations on the shared matrices were as good or better. */
    for (int64_t i = 0; i < n; i++) {
        int e;
        frexp(dr[i], &e);
        dr[i] = ldexp(1.0, e - 1);
        frexp(dc[i], &e);
        dc[i] = ldexp(1.0, e - 1);
    }
    for (int64_t j = 0; j < n; j++) {
        T->work[T->qinv[j]] = dc[j];
        T->moved += T->qinv[j] != j;
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t p = T->B.row_ptr[i]; p < T->B.row_ptr[i + 1]; p++)
            T->B.val[p] *= dr[i] * T->work[T->B.col_idx[p]];
out:
    if (st)
        ls_csr_colperm_free(T);
    return st;
}
