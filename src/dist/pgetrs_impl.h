/*
 * Solve sub(A) X = sub(B) with the distributed factors, written once for
 * REAL (instantiated by api.c). The pivots are gathered into one global
 * list and applied to B as a single all-to-all of the rows that move; then
 * block by block, forward with L and backward with U: the block column of
 * the factor is broadcast along process rows, the diagonal process row
 * solves its block of B and broadcasts it down the process columns, and
 * every rank updates its rows of B with one local gemm; on one process
 * row with B on one process column the right-hand sides travel instead of
 * the factor (getrs_fanin: one small reduction a block). The transposed
 * solve (getrs_trans) runs the other way round: U^T, then L^T, then the
 * interchanges in reverse.
 * Defines: none (every function and object here is static)
 */
#include "../common/real_macros.h"

#define PREC_ (sizeof(REAL) == sizeof(double) ? LS_DOUBLE : LS_SINGLE)
#define MPIT_ (sizeof(REAL) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT)

typedef struct FN(getrs_ws) {
    REAL *f;     /* engine: a block column of L or U, local rows x nb */
    REAL *x;     /* engine: a solved block of B, nb x local columns (fan-in: nb x nrhs) */
    REAL *y;     /* engine, fan-in solve only: n x nrhs, this rank's share of B */
    void *swap;  /* engine */
    void *hswap; /* host staging of the exchange (device engines, P > 1) */
    int *piv, *label, *touched, *dst, *src;
    void *block;  /* host */
    void *eblock; /* engine memory apart from block (device engines) */
} FN(getrs_ws);

static void FN(getrs_free)(const ls_grid *g, FN(getrs_ws) *w)
{
    free(w->block);
    if (w->eblock)
        g->engine->ws_free(g->engine->context, w->eblock);
    w->block = w->eblock = NULL;
}

/* The 'N' solve's fan-in form (getrs_fanin): one process row, several
 * process columns, all of B's columns on one of them, and the engine's
 * gemm_tn (which zeroes a block) and reduce_sum. */
static int FN(fanin_ok)(const ls_grid *g, int nrhs, int jb0, const int *db)
{
    const ls_dist_engine *e = g->engine;
    const int nbb = db[LS_DESC_NB];
    return g->nprow == 1 && g->npcol > 1 && nrhs > 0 && e->gemm_tn && e->reduce_sum &&
           jb0 / nbb == (jb0 + nrhs - 1) / nbb;
}

static int FN(getrs_alloc)(ls_grid *g, int n, int nrhs, int ia0, int jb0, const int *da,
                           const int *db, FN(getrs_ws) *w)
{
    const int nb = da[LS_DESC_NB];
    size_t locr = (size_t)(ls_dist_count(ia0 + n, nb, g->myrow, da[LS_DESC_RSRC], g->nprow) -
                           ls_dist_count(ia0, nb, g->myrow, da[LS_DESC_RSRC], g->nprow));
    size_t locc = (size_t)(ls_dist_count(jb0 + nrhs, db[LS_DESC_NB], g->mycol, db[LS_DESC_CSRC],
                                         g->npcol) -
                           ls_dist_count(jb0, db[LS_DESC_NB], g->mycol, db[LS_DESC_CSRC], g->npcol));
    size_t es = sizeof(REAL), nz = (size_t)n;
    const ls_dist_engine *e = g->engine;
    const int dev = !e->host_memory;
    /* one engine process column: the factor is read in place, not copied */
    size_t fbytes = g->npcol > 1 ? ((locr * (size_t)nb + 1) * es + 15) / 16 * 16 : 16;
    const int fanin = FN(fanin_ok)(g, nrhs, jb0, db);
    size_t xcols = fanin && (size_t)nrhs > locc ? (size_t)nrhs : locc;
    size_t xbytes = (((size_t)nb * xcols + 1) * es + 15) / 16 * 16;
    size_t ybytes = fanin ? (((size_t)n * (size_t)nrhs + 1) * es + 15) / 16 * 16 : 0;
    size_t sbytes = ((4 * nz * locc + 1) * es + 15) / 16 * 16, ibytes = 7 * (nz + 1) * sizeof(int);
    size_t hsbytes = dev && g->nprow > 1 ? sbytes : 0;
    size_t ebytes = fbytes + xbytes + ybytes + sbytes;
    size_t total = ibytes + 64 + (dev ? hsbytes : ebytes);
    char *p = ls_dist_malloc(g, total);
    w->block = p;
    if (!p)
        return ls_dist_fail(g, LS_ENOMEM,
                            "out of memory for the solve workspace (%zu bytes, n = %d, nrhs = %d)",
                            total, n, nrhs);
    char *q = p;
    if (dev) {
        if (!(q = w->eblock = e->ws_alloc(e->context, ebytes)))
            return ls_dist_fail(g, LS_EDEVMEM, "out of %s memory for the solve workspace (%zu "
                                "bytes, n = %d, nrhs = %d)", e->name, ebytes, n, nrhs);
        w->hswap = hsbytes ? p : NULL;
        p += hsbytes;
    } else {
        p += ebytes;
    }
    w->f = (REAL *)q;
    q += fbytes;
    w->x = (REAL *)q;
    q += xbytes;
    w->y = fanin ? (REAL *)q : NULL;
    q += ybytes;
    w->swap = q;
    w->piv = (int *)p;
    w->label = w->piv + n + 1;
    w->touched = w->label + n + 1;
    w->dst = w->touched + 2 * (n + 1);
    w->src = w->dst + (n + 1);
    for (int i = 0; i < n; ++i)
        w->label[i] = -1;
    return 0;
}

/* Rows lr0 .. lr0+nloc-1 of the factor's block column at local column gc
 * (jb wide, on process column pc) on every rank of the process row: read in place with one
 * process column, else copied by its owner and broadcast. NULL: failed. */
static const REAL *FN(factor_column)(ls_grid *g, const REAL *A, int lda, int gc, int jb, int lr0,
                                     int nloc, int pc, FN(getrs_ws) *w, int *ldf)
{
    const ls_dist_engine *e = g->engine;
    if (g->npcol == 1) {
        *ldf = lda;
        return A + (size_t)gc * (size_t)lda + lr0;
    }
    *ldf = nloc > 1 ? nloc : 1;
    if (g->mycol == pc)
        e->lacpy(e->context, PREC_, nloc, jb, A + (size_t)gc * (size_t)lda + lr0, lda, w->f,
                 *ldf);
    if (e->bcast(e->context, w->f, (size_t)nloc * (size_t)jb * sizeof(REAL), pc, g->row_comm,
                 NULL) != 0)
        return NULL;
    return w->f;
}

/* 'T' / 'C' (real: the same): A^T X = U^T L^T P^T X = B, so forward with
 * U^T, backward with L^T, then the interchanges in reverse order (LAPACK's
 * getrs). Block k of the solution needs the factor's block column k (U's
 * rows above it, or L's below) against the rows of B already solved; those
 * rows are spread over the process rows as the factor's are, so each rank
 * multiplies its own rows (gemm_tn), one reduction down the process column
 * sums them on the diagonal process row, which solves its block (trsm_t). */
static int FN(getrs_trans)(ls_grid *g, int n, const REAL *A, int ia0, int ja0, const int *da,
                           REAL *Bc, int ib0, int nc, const int *db, FN(getrs_ws) *w)
{
    const ls_dist_engine *e = g->engine;
    const int np = g->nprow, nq = g->npcol, myr = g->myrow;
    const int nb = da[LS_DESC_NB], rsa = da[LS_DESC_RSRC], csa = da[LS_DESC_CSRC];
    const int lda = da[LS_DESC_LLD], rsb = db[LS_DESC_RSRC], ldb = db[LS_DESC_LLD];
    const int nblk = (n + nb - 1) / nb;
    for (int pass = 0; pass < 2; ++pass) { /* 0: U^T (forward), 1: L^T (backward) */
        for (int t = 0; t < nblk; ++t) {
            const int k = pass == 0 ? t : nblk - 1 - t;
            const int j0 = k * nb, jb = n - j0 < nb ? n - j0 : nb;
            const int pr = ls_dist_owner(ia0 + j0, nb, rsa, np);
            const int pc = ls_dist_owner(ja0 + j0, nb, csa, nq);
            /* the factor's block column: from the top through block k (U),
             * or from block k down (L) */
            const int lr0 = ls_dist_count(pass == 0 ? ia0 : ia0 + j0, nb, myr, rsa, np);
            const int lr1 = ls_dist_count(pass == 0 ? ia0 + j0 + jb : ia0 + n, nb, myr, rsa, np);
            const int nloc = lr1 - lr0;
            int ldf;
            const REAL *f = FN(factor_column)(g, A, lda, ls_dist_g2l(ja0 + j0, nb, nq), jb,
                                                  lr0, nloc, pc, w, &ldf);
            if (!f)
                return ls_dist_fail(g, LS_EINTERNAL, "broadcast of a factor column failed (%s)",
                                    e->name);
            if (nc <= 0)
                continue;
            const int lb0 = ls_dist_count(pass == 0 ? ib0 : ib0 + j0, nb, myr, rsb, np);
            const int lb1 = ls_dist_count(pass == 0 ? ib0 + j0 + jb : ib0 + n, nb, myr, rsb, np);
            const int skip = myr == pr ? jb : 0, nsolved = lb1 - lb0 - skip;
            /* the diagonal block: last (U) or first (L) rows of the range;
             * the solved rows of B: the others */
            const int dk = pass == 0 ? nloc - jb : 0, bk = pass == 0 ? lb1 - jb : lb0;
            const REAL *fo = pass == 0 ? f : f + skip;
            const REAL *yo = pass == 0 ? Bc + lb0 : Bc + lb0 + skip;
            if (myr == pr)
                e->lacpy(e->context, PREC_, jb, nc, Bc + bk, ldb, w->x, jb);
            e->gemm_tn(e->context, PREC_, jb, nc, nsolved, -1.0, fo, ldf, yo, ldb,
                       myr == pr ? 1.0 : 0.0, w->x, jb);
            int rc;
            if (np > 1 && (rc = e->reduce_sum(e->context, PREC_, w->x, (size_t)jb * (size_t)nc,
                                              pr, g->col_comm)) != 0)
                return ls_dist_fail(g, rc, "sum of the solved rows failed (%s)", e->name);
            if (myr == pr) {
                e->trsm_t(e->context, PREC_, pass == 0 ? 'U' : 'L', jb, nc, f + dk, ldf, w->x,
                          jb);
                e->lacpy(e->context, PREC_, jb, nc, w->x, jb, Bc + bk, ldb);
            }
        }
    }
    return 0;
}

/* 'N' on one process row (1 x Q), B on one process column: the factor
 * stays where it lies and the right-hand sides travel. Every rank keeps Y
 * (n x nrhs): B on B's process column, zeros elsewhere, less the products
 * of its own factor columns with the blocks it has solved. Block k's rows
 * of Y summed over the ranks onto the owner of block column k are what it
 * solves; the others then zero theirs. One reduction of jb x nrhs entries
 * a block, where the broadcast form moves the factor's block column, n x nb
 * (0.11-0.13 s of a 0.15 s solve at n = 65536 on 1 x 2 GPUs). At the end
 * each rank holds its own blocks of X and zeros: one sum onto B's column. */
static int FN(getrs_fanin)(ls_grid *g, int n, int nrhs, const REAL *A, int ia0, int ja0,
                           const int *da, REAL *Bc, int lb0, int jb0, const int *db,
                           FN(getrs_ws) *w)
{
    const ls_dist_engine *e = g->engine;
    const int nq = g->npcol, myc = g->mycol, nb = da[LS_DESC_NB], csa = da[LS_DESC_CSRC];
    const int lda = da[LS_DESC_LLD], ldb = db[LS_DESC_LLD], ldy = n > 1 ? n : 1;
    const int pb = ls_dist_owner(jb0, db[LS_DESC_NB], db[LS_DESC_CSRC], nq);
    const int nblk = (n + nb - 1) / nb;
    REAL *Y = w->y, *x = w->x;
    if (myc == pb)
        e->lacpy(e->context, PREC_, n, nrhs, Bc + lb0, ldb, Y, ldy);
    else /* C = 0: gemm_tn with k = 0 and beta 0 */
        e->gemm_tn(e->context, PREC_, n, nrhs, 0, 1.0, NULL, 1, NULL, 1, 0.0, Y, ldy);
    for (int pass = 0; pass < 2; ++pass) { /* 0: L (forward), 1: U (backward) */
        for (int t = 0; t < nblk; ++t) {
            const int k = pass == 0 ? t : nblk - 1 - t;
            const int j0 = k * nb, jb = n - j0 < nb ? n - j0 : nb;
            const int pc = ls_dist_owner(ja0 + j0, nb, csa, nq);
            e->lacpy(e->context, PREC_, jb, nrhs, Y + j0, ldy, x, jb);
            int rc = e->reduce_sum(e->context, PREC_, x, (size_t)jb * (size_t)nrhs, pc,
                                   g->row_comm);
            if (rc)
                return ls_dist_fail(g, rc, "sum of a block of the solve failed (%s)", e->name);
            if (myc != pc) {
                e->gemm_tn(e->context, PREC_, jb, nrhs, 0, 1.0, NULL, 1, NULL, 1, 0.0, Y + j0,
                           ldy);
                continue;
            }
            const REAL *col = A + (size_t)ls_dist_g2l(ja0 + j0, nb, nq) * (size_t)lda + ia0;
            e->trsm(e->context, PREC_, pass == 0 ? 'L' : 'U', jb, nrhs, col + j0, lda, x, jb);
            e->lacpy(e->context, PREC_, jb, nrhs, x, jb, Y + j0, ldy);
            if (pass == 0 && n - j0 - jb > 0) /* the rows below, with L's */
                e->gemm_sub(e->context, PREC_, n - j0 - jb, nrhs, jb, col + j0 + jb, lda, x, jb,
                            Y + j0 + jb, ldy);
            if (pass == 1 && j0 > 0) /* the rows above, with U's */
                e->gemm_sub(e->context, PREC_, j0, nrhs, jb, col, lda, x, jb, Y, ldy);
        }
    }
    int rc = e->reduce_sum(e->context, PREC_, Y, (size_t)n * (size_t)nrhs, pb, g->row_comm);
    if (rc)
        return ls_dist_fail(g, rc, "sum of the solution failed (%s)", e->name);
    if (myc == pb)
        e->lacpy(e->context, PREC_, n, nrhs, Y, ldy, Bc + lb0, ldb);
    return 0;
}

/* The engine's queued work done, and its first failure if any. */
static int FN(getrs_finish)(ls_grid *g)
{
    char msg[200];
    int fin = g->engine->finish(g->engine->context, msg, sizeof msg);
    return fin ? ls_dist_fail(g, fin, "%s", msg) : 0;
}

static int FN(getrs_core)(ls_grid *g, int trans, int n, int nrhs, const REAL *A, int ia0,
                          int ja0, const int *da, const int *ipiv, REAL *B, int ib0, int jb0,
                          const int *db, FN(getrs_ws) *w)
{
    const ls_dist_engine *e = g->engine;
    const int np = g->nprow, nq = g->npcol, myr = g->myrow, myc = g->mycol;
    const int nb = da[LS_DESC_NB], rsa = da[LS_DESC_RSRC], csa = da[LS_DESC_CSRC];
    const int lda = da[LS_DESC_LLD], rsb = db[LS_DESC_RSRC], ldb = db[LS_DESC_LLD];
    const int bc0 = ls_dist_count(jb0, db[LS_DESC_NB], myc, db[LS_DESC_CSRC], nq);
    const int nc = ls_dist_count(jb0 + nrhs, db[LS_DESC_NB], myc, db[LS_DESC_CSRC], nq) - bc0;
    REAL *Bc = B + (size_t)bc0 * (size_t)ldb;

    /* P: the global pivot list, then one exchange of the rows that move */
    for (int r = 0; r < n; ++r)
        w->piv[r] = ls_dist_owner(ia0 + r, nb, rsa, np) == myr
                        ? ipiv[ls_dist_g2l(ia0 + r, nb, np)] - 1 - ia0
                        : -1;
    if (np > 1 &&
        MPI_Allreduce(MPI_IN_PLACE, w->piv, n, MPI_INT, MPI_MAX, g->col_comm) != MPI_SUCCESS)
        return ls_dist_fail(g, LS_EINTERNAL, "MPI_Allreduce (pivots) failed");
    int st = 0;
    for (int r = 0; r < n && st == 0; ++r)
        if (w->piv[r] < r || w->piv[r] >= n)
            st = ls_dist_fail(g, -8, "ipiv of global row %d is %d: not a row of sub(A) at or "
                              "below it", ia0 + r + 1, w->piv[r] + ia0 + 1);
    if ((st = ls_dist_agree(g, st)) != 0)
        return st;
    int nm = ls_dist_moves_of(0, n, w->piv, w->dst, w->src, w->label, w->touched);
    ls_dist_rows rl = {ib0, nb, rsb, 1, {bc0, 0}, {nc, 0}};
    if (trans) {
        /* the interchanges last and in reverse order: the inverse
         * permutation, i.e. the same moves with source and target swapped */
        st = FN(getrs_trans)(g, n, A, ia0, ja0, da, Bc, ib0, nc, db, w);
        if (st == 0)
            st = ls_dist_apply_moves(g, PREC_, B, ldb, &rl, nm, w->src, w->dst, w->swap, w->hswap);
        return st ? st : FN(getrs_finish)(g);
    }
    st = ls_dist_apply_moves(g, PREC_, B, ldb, &rl, nm, w->dst, w->src, w->swap, w->hswap);
    if (st)
        return st;
    if (w->y) {
        st = FN(getrs_fanin)(g, n, nrhs, A, ia0, ja0, da, Bc, ls_dist_count(ib0, nb, myr, rsb, np),
                             jb0, db, w);
        return st ? st : FN(getrs_finish)(g);
    }

    const int nblk = (n + nb - 1) / nb;
    for (int pass = 0; pass < 2; ++pass) { /* 0: L (forward), 1: U (backward) */
        for (int t = 0; t < nblk; ++t) {
            const int k = pass == 0 ? t : nblk - 1 - t;
            const int j0 = k * nb, jb = n - j0 < nb ? n - j0 : nb;
            const int pr = ls_dist_owner(ia0 + j0, nb, rsa, np);
            const int pc = ls_dist_owner(ja0 + j0, nb, csa, nq);
            /* rows of the factor's block column: from block k down (L), or
             * from the top through block k (U) */
            const int lr0 = ls_dist_count(pass == 0 ? ia0 + j0 : ia0, nb, myr, rsa, np);
            const int lr1 = ls_dist_count(pass == 0 ? ia0 + n : ia0 + j0 + jb, nb, myr, rsa, np);
            const int nloc = lr1 - lr0;
            int ldf;
            const REAL *f = FN(factor_column)(g, A, lda, ls_dist_g2l(ja0 + j0, nb, nq), jb,
                                                  lr0, nloc, pc, w, &ldf);
            if (!f)
                return ls_dist_fail(g, LS_EINTERNAL, "broadcast of a factor column failed (%s)",
                                    e->name);
            if (nc <= 0)
                continue;
            const int lb0 = ls_dist_count(pass == 0 ? ib0 + j0 : ib0, nb, myr, rsb, np);
            const int lb1 = ls_dist_count(pass == 0 ? ib0 + n : ib0 + j0 + jb, nb, myr, rsb, np);
            /* the diagonal block's rows: first (L) or last (U) of this range */
            const int dk = pass == 0 ? 0 : nloc - jb, bk = pass == 0 ? lb0 : lb1 - jb;
            if (myr == pr) {
                e->trsm(e->context, PREC_, pass == 0 ? 'L' : 'U', jb, nc, f + dk, ldf, Bc + bk,
                        ldb);
                e->lacpy(e->context, PREC_, jb, nc, Bc + bk, ldb, w->x, jb);
            }
            int rc;
            if (np > 1 && (rc = e->bcast(e->context, w->x, (size_t)jb * (size_t)nc * sizeof(REAL),
                                         pr, g->col_comm, NULL)) != 0)
                return ls_dist_fail(g, rc, "broadcast of a solution block failed (%s)", e->name);
            const int skip = myr == pr ? jb : 0;
            if (pass == 0)
                e->gemm_sub(e->context, PREC_, lb1 - lb0 - skip, nc, jb, f + skip, ldf, w->x, jb,
                            Bc + lb0 + skip, ldb);
            else
                e->gemm_sub(e->context, PREC_, lb1 - lb0 - skip, nc, jb, f, ldf, w->x, jb,
                            Bc + lb0, ldb);
        }
    }
    return FN(getrs_finish)(g);
}

#undef PREC_
#undef MPIT_
