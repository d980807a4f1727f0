/*
 * A whole global matrix between one rank and the block-cyclic layout,
 * written once for REAL (instantiated by api.c): the root packs each
 * rank's local piece in turn and sends it (one message per rank).
 * Defines: none (every function and object here is static)
 */
#include "../common/real_macros.h"

#define MPIT_ (sizeof(REAL) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT)
#define LS_DIST_TAG_MOVE 7301

/* Copy between a global matrix G and the local piece (lr x lc, leading
 * dimension ldl) of process (pr, pc); to_local chooses the direction. */
static void FN(copy_piece)(REAL *G, int ldg, REAL *loc, int ldl, int lr, int lc, int pr, int pc,
                           const int *d, const ls_grid *g, int to_local)
{
    const int mb = d[LS_DESC_MB], nb = d[LS_DESC_NB];
    for (int lj = 0; lj < lc; ++lj) {
        const int gjj = ls_dist_l2g(lj, nb, pc, d[LS_DESC_CSRC], g->npcol);
        REAL *gc = G + (size_t)gjj * (size_t)ldg;
        REAL *lcol = loc + (size_t)lj * (size_t)ldl;
        for (int li = 0; li < lr; li += mb) {
            const int gi = ls_dist_l2g(li, mb, pr, d[LS_DESC_RSRC], g->nprow);
            const int cnt = lr - li < mb ? lr - li : mb;
            if (to_local)
                memcpy(lcol + li, gc + gi, (size_t)cnt * sizeof(REAL));
            else
                memcpy(gc + gi, lcol + li, (size_t)cnt * sizeof(REAL));
        }
    }
}

static int FN(move)(int root, REAL *G, int ldg, REAL *A, const int *d, ls_grid *g, int scatter)
{
    if (ls_dist_outside(g))
        return -(500 + LS_DESC_CTXT + 1);
    int st = ls_dist_check_mat(g, d ? d[LS_DESC_M] : 0, 5, d ? d[LS_DESC_N] : 0, 5, 1, 1, d, 5);
    const int size = g->nprow * g->npcol;
    if (st == 0 && (root < 0 || root >= size))
        st = -1;
    if (st == 0 && g->rank == root && (ldg < (d[LS_DESC_M] > 1 ? d[LS_DESC_M] : 1) ||
                                       (!G && d[LS_DESC_M] > 0 && d[LS_DESC_N] > 0)))
        st = G ? -3 : -2;
    REAL *tmp = NULL;
    int lr = 0, lc = 0;
    if (st == 0) {
        lr = ls_numroc(d[LS_DESC_M], d[LS_DESC_MB], g->myrow, d[LS_DESC_RSRC], g->nprow);
        lc = ls_numroc(d[LS_DESC_N], d[LS_DESC_NB], g->mycol, d[LS_DESC_CSRC], g->npcol);
        if (!A && lr > 0 && lc > 0)
            st = -4;
        size_t most = (size_t)lr * (size_t)lc;
        if (g->rank == root) /* the root packs every rank's piece in turn */
            for (int q = 0; q < size; ++q) {
                size_t s = (size_t)ls_numroc(d[LS_DESC_M], d[LS_DESC_MB], q / g->npcol,
                                             d[LS_DESC_RSRC], g->nprow) *
                           (size_t)ls_numroc(d[LS_DESC_N], d[LS_DESC_NB], q % g->npcol,
                                             d[LS_DESC_CSRC], g->npcol);
                most = s > most ? s : most;
            }
        if (st == 0 && !(tmp = ls_dist_malloc(g, most * sizeof(REAL))))
            st = ls_dist_fail(g, LS_ENOMEM, "out of memory for a %zu-entry staging buffer", most);
    }
    if ((st = ls_dist_agree(g, st)) != 0) {
        free(tmp);
        return st;
    }
    const int ldl = d[LS_DESC_LLD];
    if (g->rank == root) {
        for (int q = 0; q < size && st == 0; ++q) {
            const int pr = q / g->npcol, pc = q % g->npcol;
            const int qr = ls_numroc(d[LS_DESC_M], d[LS_DESC_MB], pr, d[LS_DESC_RSRC], g->nprow);
            const int qc = ls_numroc(d[LS_DESC_N], d[LS_DESC_NB], pc, d[LS_DESC_CSRC], g->npcol);
            if (q == root) {
                FN(copy_piece)(G, ldg, A, ldl, qr, qc, pr, pc, d, g, scatter);
                continue;
            }
            if (qr == 0 || qc == 0)
                continue;
            int rc;
            if (scatter) {
                FN(copy_piece)(G, ldg, tmp, qr, qr, qc, pr, pc, d, g, 1);
                rc = MPI_Send(tmp, qr * qc, MPIT_, q, LS_DIST_TAG_MOVE, g->comm);
            } else {
                rc = MPI_Recv(tmp, qr * qc, MPIT_, q, LS_DIST_TAG_MOVE, g->comm, MPI_STATUS_IGNORE);
                FN(copy_piece)(G, ldg, tmp, qr, qr, qc, pr, pc, d, g, 0);
            }
            if (rc != MPI_SUCCESS)
                st = ls_dist_fail(g, LS_EINTERNAL, "MPI point-to-point with rank %d failed", q);
        }
    } else if (lr > 0 && lc > 0) {
        int rc;
        if (scatter) {
            rc = MPI_Recv(tmp, lr * lc, MPIT_, root, LS_DIST_TAG_MOVE, g->comm, MPI_STATUS_IGNORE);
            for (int j = 0; j < lc; ++j)
                memcpy(A + (size_t)j * (size_t)ldl, tmp + (size_t)j * (size_t)lr,
                       (size_t)lr * sizeof(REAL));
        } else {
            for (int j = 0; j < lc; ++j)
                memcpy(tmp + (size_t)j * (size_t)lr, A + (size_t)j * (size_t)ldl,
                       (size_t)lr * sizeof(REAL));
            rc = MPI_Send(tmp, lr * lc, MPIT_, root, LS_DIST_TAG_MOVE, g->comm);
        }
        if (rc != MPI_SUCCESS)
            st = ls_dist_fail(g, LS_EINTERNAL, "MPI point-to-point with rank %d failed", root);
    }
    free(tmp);
    return st;
}

#undef MPIT_
#undef LS_DIST_TAG_MOVE
