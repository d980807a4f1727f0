/*
 * Right-looking blocked LU with partial pivoting on the 2-D block-cyclic
 * layout, written once for REAL (instantiated by api.c). For each block
 * column of nb columns:
 *   1. the owning process column factors the panel, one column at a time:
 *      a single allreduce over the column finds the pivot (largest |a|, the
 *      smallest row on ties, as LAPACK's idamax) and carries the pivot row
 *      and row j to every rank, so the swap costs no further message; or
 *      gathered whole on every rank of the column and factored by the
 *      engine's getrf (panel_gather_impl.h; device engines by default);
 *   2. the panel (L) and its pivots are broadcast along process rows;
 *   3. the panel's interchanges reach the other columns as one all-to-all
 *      of the rows that move, within each process column (on one process
 *      row, the columns left of the panel get them all at the end:
 *      deferred_swaps_impl.h);
 *   4. the diagonal process row solves U12 = L11^-1 A12 and broadcasts U12
 *      down the process columns;
 *   5. every rank updates its part of the trailing matrix, A22 -= L21 U12,
 *      with its local engine; with look-ahead the next block column first,
 *      whose panel is then factored and sent (MPI_Ibcast) before the rest.
 * Defines: none (every function and object here is static)
 */
#include "../common/real_macros.h"

#define PREC_ (sizeof(REAL) == sizeof(double) ? LS_DOUBLE : LS_SINGLE)
#define MPIT_ (sizeof(REAL) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT)

#include "panel_gather_impl.h"

/* MPI reduction of pivot records: the larger |candidate| wins, the smaller
 * row on ties; row j's contents travel with whichever record has them. */
static void FN(pivot_op)(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int bytes = 0;
    MPI_Type_size(*dt, &bytes);
    for (int r = 0; r < *len; ++r) {
        char *a = (char *)in + (size_t)r * (size_t)bytes;
        char *b = (char *)inout + (size_t)r * (size_t)bytes;
        ls_dist_pivot_head *ha = (ls_dist_pivot_head *)a, *hb = (ls_dist_pivot_head *)b;
        REAL *ra = (REAL *)(ha + 1), *rb = (REAL *)(hb + 1);
        const int w = ha->width;
        if (ha->absval > hb->absval || (ha->absval == hb->absval && ha->row < hb->row)) {
            hb->absval = ha->absval;
            hb->row = ha->row;
            memcpy(rb, ra, (size_t)w * sizeof(REAL));
        }
        if (ha->has_j) {
            hb->has_j = 1;
            memcpy(rb + w, ra + w, (size_t)w * sizeof(REAL));
        }
    }
}

/* Engine memory (host memory for the CPU engine, device memory for CUDA)
 * holds what the local kernels read: L, U12, the exchanged rows. Host
 * memory holds the bookkeeping. */
typedef struct FN(getrf_ws) {
    char *lbuf[2];  /* engine: panel header (info, pivots) + L panel; two for look-ahead */
    int *hdr[2];    /* host copies of the headers (the headers themselves in host memory) */
    size_t lhdr;    /* header bytes */
    REAL *ubuf;     /* engine: U12, nb x local columns */
    REAL *dcand;    /* engine: the pivot row, for ger (device engines) */
    char *rec[2];   /* pivot records in / out */
    size_t rec_bytes;
    void *swap;     /* engine: row exchange buffers */
    size_t swap_entries; /* their size, in entries of REAL */
    int defer;      /* L's interchanges deferred to the end (deferred_swaps_impl.h) */
    void *hswap;    /* host staging of the exchange (device engines, P > 1) */
    int *label, *touched, *dst, *src;
    void *block;    /* host */
    void *eblock;   /* engine memory apart from block (device engines) */
    FN(gather_ws) gather; /* several process rows: the gathered panel (or zeroed) */
} FN(getrf_ws);

static void FN(getrf_free)(const ls_grid *g, FN(getrf_ws) *w)
{
    FN(gather_free)(g, &w->gather);
    free(w->block);
    if (w->eblock)
        g->engine->ws_free(g->engine->context, w->eblock);
    w->block = w->eblock = NULL;
}

static int FN(getrf_alloc)(ls_grid *g, int m, int n, int ia0, int ja0, const int *d,
                           FN(getrf_ws) *w)
{
    const int nb = d[LS_DESC_NB];
    size_t locr = (size_t)(ls_dist_count(ia0 + m, nb, g->myrow, d[LS_DESC_RSRC], g->nprow) -
                           ls_dist_count(ia0, nb, g->myrow, d[LS_DESC_RSRC], g->nprow));
    size_t locc = (size_t)(ls_dist_count(ja0 + n, nb, g->mycol, d[LS_DESC_CSRC], g->npcol) -
                           ls_dist_count(ja0, nb, g->mycol, d[LS_DESC_CSRC], g->npcol));
    size_t es = sizeof(REAL), nbz = (size_t)nb;
    w->lhdr = ((nbz + 2) * sizeof(int) + 15) / 16 * 16;
    w->rec_bytes = (sizeof(ls_dist_pivot_head) + 2 * nbz * es + 15) / 16 * 16;
    const ls_dist_engine *e = g->engine;
    const int dev = !e->host_memory;
    size_t lbytes = w->lhdr + locr * nbz * es + 16;
    size_t ubytes = ((nbz * locc + 1) * es + 15) / 16 * 16;
    size_t sbytes = ((4 * nbz * locc + 1) * es + 15) / 16 * 16;
    size_t cbytes = dev ? (2 * nbz * es + 15) / 16 * 16 : 0;
    size_t hsbytes = dev && g->nprow > 1 ? sbytes : 0;
    size_t ibytes = ((size_t)m + 6 * nbz + 4) * sizeof(int);
    lbytes = (lbytes + 15) / 16 * 16;
    size_t ebytes = 2 * lbytes + ubytes + sbytes + cbytes;
    size_t hbytes = 2 * w->rec_bytes + ibytes + 64 + (dev ? 2 * w->lhdr + hsbytes : ebytes);
    char *p = ls_dist_malloc(g, hbytes);
    w->block = p;
    if (!p)
        return ls_dist_fail(g, LS_ENOMEM,
                            "out of memory for the LU workspace (%zu bytes, n = %d, nb = %d)",
                            hbytes, n, nb);
    char *q = p;
    if (dev) {
        if (!(q = w->eblock = e->ws_alloc(e->context, ebytes)))
            return ls_dist_fail(g, LS_EDEVMEM, "out of %s memory for the LU workspace (%zu "
                                "bytes, n = %d, nb = %d)", e->name, ebytes, n, nb);
    } else {
        p += ebytes;
    }
    w->lbuf[0] = q;
    w->lbuf[1] = q + lbytes;
    q += 2 * lbytes;
    w->ubuf = (REAL *)q;
    q += ubytes;
    w->swap = q;
    w->swap_entries = 4 * nbz * locc;
    q += sbytes;
    w->dcand = dev ? (REAL *)q : NULL;
    w->hdr[0] = dev ? (int *)p : (int *)w->lbuf[0];
    w->hdr[1] = dev ? (int *)(p + w->lhdr) : (int *)w->lbuf[1];
    p += dev ? 2 * w->lhdr : 0;
    w->hswap = dev && g->nprow > 1 ? p : NULL;
    p += hsbytes;
    w->rec[0] = p;
    w->rec[1] = p + w->rec_bytes;
    p += 2 * w->rec_bytes;
    w->label = (int *)p;
    w->touched = w->label + m;
    w->dst = w->touched + 2 * nb;
    w->src = w->dst + 2 * nb;
    for (int i = 0; i < m; ++i)
        w->label[i] = -1;
    return FN(gather_alloc)(g, m, ia0, d, &w->gather);
}

/* Factor one panel on its process column; hdr[0] = first zero pivot
 * (relative, 1-based) or 0, hdr[1 + c] = pivot row of column c (relative,
 * 0-based). */
static int FN(panel)(ls_grid *g, REAL *A, int lld, int ia0, int j0, int jb, int lc, int r_end,
                     const int *d, FN(getrf_ws) *w, MPI_Datatype rt, MPI_Op op, int *hdr)
{
    if (jb <= 0)
        return 0;
    const ls_dist_engine *e = g->engine;
    const int nb = d[LS_DESC_NB], rsrc = d[LS_DESC_RSRC], np = g->nprow, me = g->myrow;
    ls_dist_pivot_head *hin = (ls_dist_pivot_head *)w->rec[0];
    REAL *cin = (REAL *)(hin + 1);
    hdr[0] = 0;
    if (np == 1 && e->getrf) {
        /* One process row: the rank holds the whole panel, so no pivot
         * message is needed and LAPACK's recursive getrf factors it (the
         * pivots land in hdr[1..jb], 1-based from the panel's first row). */
        const int ls0 = ls_dist_count(ia0 + j0, nb, me, rsrc, np);
        REAL *pan = A + (size_t)lc * (size_t)lld;
        int inf = e->getrf(e->context, PREC_, r_end - ls0, jb, pan + ls0, lld, hdr + 1);
        if (inf < 0)
            return ls_dist_fail(g, LS_EINTERNAL, "local getrf refused argument %d", -inf);
        if (inf > 0)
            hdr[0] = j0 + inf;
        for (int c = 0; c < jb; ++c)
            hdr[1 + c] = (int)ls_dist_l2g(ls0 + hdr[1 + c] - 1, nb, me, rsrc, np) - ia0;
        return 0;
    }
    if (w->gather.S)
        return FN(panel_gathered)(g, A, lld, ia0, j0, jb, lc, d, &w->gather, hdr);
    for (int c = 0; c < jb; ++c) {
        const int gj = ia0 + j0 + c;
        const int ls = ls_dist_count(gj, nb, me, rsrc, np);
        REAL *col = A + (size_t)(lc + c) * (size_t)lld;
        REAL *pan = A + (size_t)lc * (size_t)lld;
        hin->absval = -1.0;
        hin->row = LLONG_MAX;
        hin->has_j = 0;
        hin->width = nb;
        if (r_end > ls) {
            int li = ls + e->iamax(e->context, PREC_, r_end - ls, col + ls);
            e->get(e->context, PREC_, 1, jb, pan + li, lld, cin, 1);
            hin->absval = fabs((double)cin[c]);
            hin->row = ls_dist_l2g(li, nb, me, rsrc, np);
        }
        const int jown = ls_dist_owner(gj, nb, rsrc, np) == me;
        if (jown) {
            hin->has_j = 1;
            e->get(e->context, PREC_, 1, jb, pan + ls_dist_g2l(gj, nb, np), lld, cin + nb, 1);
        }
        ls_dist_pivot_head *h = hin;
        if (np > 1) {
            if (MPI_Allreduce(w->rec[0], w->rec[1], 1, rt, op, g->col_comm) != MPI_SUCCESS)
                return ls_dist_fail(g, LS_EINTERNAL, "MPI_Allreduce (pivot search) failed");
            h = (ls_dist_pivot_head *)w->rec[1];
        }
        const REAL *cand = (const REAL *)(h + 1), *rowj = cand + nb;
        const int p = (int)h->row;
        const REAL piv = cand[c];
        hdr[1 + c] = p - ia0;
        if (p != gj) {
            if (jown)
                e->set(e->context, PREC_, 1, jb, cand, 1, pan + ls_dist_g2l(gj, nb, np), lld);
            if (ls_dist_owner(p, nb, rsrc, np) == me)
                e->set(e->context, PREC_, 1, jb, rowj, 1, pan + ls_dist_g2l(p, nb, np), lld);
        }
        const REAL *y = cand; /* ger reads the pivot row from engine memory */
        if (w->dcand && jb - c - 1 > 0 && r_end > ls_dist_count(gj + 1, nb, me, rsrc, np)) {
            e->set(e->context, PREC_, 1, jb, cand, 1, w->dcand, 1);
            y = w->dcand;
        }
        const int ls1 = ls_dist_count(gj + 1, nb, me, rsrc, np);
        if (piv != 0) {
            e->scal_inv(e->context, PREC_, r_end - ls1, (double)piv, col + ls1);
        } else if (hdr[0] == 0) {
            hdr[0] = j0 + c + 1;
        }
        e->ger_sub(e->context, PREC_, r_end - ls1, jb - c - 1, col + ls1, y + c + 1,
                   col + (size_t)lld + ls1, lld);
    }
    return 0;
}

/* The panel of block column j0 on its process column (factored, copied to
 * the L buffer), and its broadcast along process rows: started here, with
 * req set when it is nonblocking (look-ahead). */
static int FN(panel_and_send)(ls_grid *g, REAL *A, int ia0, int ja0, int j0, int mn, int r_end,
                              int c_end, const int *d, FN(getrf_ws) *w, int which,
                              MPI_Datatype rt, MPI_Op op, ls_dist_req *req)
{
    const ls_dist_engine *e = g->engine;
    const int np = g->nprow, nq = g->npcol, nb = d[LS_DESC_NB], lld = d[LS_DESC_LLD];
    const int jb = mn - j0 < nb ? mn - j0 : nb;
    const int pc = ls_dist_owner(ja0 + j0, nb, d[LS_DESC_CSRC], nq);
    const int lr0 = ls_dist_count(ia0 + j0, nb, g->myrow, d[LS_DESC_RSRC], np);
    const int nloc = r_end - lr0, ldl = nloc > 1 ? nloc : 1;
    const int lc = g->mycol == pc ? ls_dist_g2l(ja0 + j0, nb, nq) : c_end;
    char *lbuf = w->lbuf[which];
    int *hdr = w->hdr[which];
    if (g->mycol == pc) {
        int st = FN(panel)(g, A, lld, ia0, j0, jb, lc, r_end, d, w, rt, op, hdr);
        if (st)
            return st;
        e->lacpy(e->context, PREC_, nloc, jb, A + (size_t)lc * (size_t)lld + lr0, lld,
                 (REAL *)(lbuf + w->lhdr), ldl);
        if (hdr != (int *)lbuf && nq > 1) /* the header travels with L: 4-byte words */
            e->set(e->context, LS_SINGLE, (int)(w->lhdr / 4), 1, hdr, (int)(w->lhdr / 4), lbuf,
                   (int)(w->lhdr / 4));
    }
    if (nq == 1)
        return 0;
    const size_t bytes = w->lhdr + (size_t)nloc * (size_t)jb * sizeof(REAL);
    int rc = e->bcast(e->context, lbuf, bytes, pc, g->row_comm, req);
    return rc == 0 ? 0 : ls_dist_fail(g, rc, "broadcast of the panel failed (%s)", e->name);
}

/* The panel's interchanges on up to two ranges of local columns, [a0,
 * a0+na) and [b0, b0+nbr): the moves of ls_dist_moves_of in w. */
static int FN(moves_on)(ls_grid *g, REAL *A, int lld, int ia0, const int *d, int nm,
                        FN(getrf_ws) *w, int a0, int na, int b0, int nbr)
{
    ls_dist_rows rl = {ia0, d[LS_DESC_NB], d[LS_DESC_RSRC], 0, {0, 0}, {0, 0}};
    if (na > 0) {
        rl.c0[rl.nranges] = a0;
        rl.nc[rl.nranges++] = na;
    }
    if (nbr > 0) {
        rl.c0[rl.nranges] = b0;
        rl.nc[rl.nranges++] = nbr;
    }
    if (rl.nranges == 0)
        return 0;
    return ls_dist_apply_moves(g, PREC_, A, lld, &rl, nm, w->dst, w->src, w->swap, w->hswap);
}

/* Columns [c0, c0+nc) of one process row's step: the interchanges, U12 =
 * L11^-1 A12 in place, and A22 -= L21 U12 (U12 read where it lies). */
static int FN(update_cols)(ls_grid *g, REAL *A, int ia0, const int *d, int nm, FN(getrf_ws) *w,
                           const REAL *L, int ldl, int lr0, int lrb, int r_end, int jb, int c0,
                           int nc)
{
    const ls_dist_engine *e = g->engine;
    const int lld = d[LS_DESC_LLD];
    if (nc <= 0)
        return 0;
    int st = FN(moves_on)(g, A, lld, ia0, d, nm, w, c0, nc, 0, 0);
    if (st)
        return st;
    REAL *a12 = A + (size_t)c0 * (size_t)lld + lr0;
    e->trsm(e->context, PREC_, 'L', jb, nc, L, ldl, a12, lld);
    e->gemm_sub(e->context, PREC_, r_end - lrb, nc, jb, L + (lrb - lr0), ldl, a12, lld,
                A + (size_t)c0 * (size_t)lld + lrb, lld);
    return 0;
}

/* Steps 3-5 with look-ahead on one process row (P = 1): block column j1
 * first (interchanges, U12, update), then panel j1 and its broadcast, and
 * the rest of the columns beside it: on a device the rest is queued first
 * on the main queue and the panel runs on the second, so panel j1 waits
 * only for its own columns. L's columns (left of the panel) get their
 * interchanges with the rest, or at the end (w->defer). */
static int FN(step_one_row)(ls_grid *g, REAL *A, int ia0, int ja0, int j0, int jb, int mn,
                            int r_end, int c_begin, int c_end, const int *d, FN(getrf_ws) *w,
                            int cur, int nm, MPI_Datatype rt, MPI_Op op, ls_dist_req *req)
{
    const ls_dist_engine *e = g->engine;
    const int nq = g->npcol, myc = g->mycol, nb = d[LS_DESC_NB], csrc = d[LS_DESC_CSRC];
    const int lld = d[LS_DESC_LLD], j1 = j0 + jb;
    const int pc = ls_dist_owner(ja0 + j0, nb, csrc, nq);
    const int pc1 = ls_dist_owner(ja0 + j1, nb, csrc, nq);
    const int lr0 = ls_dist_count(ia0 + j0, nb, 0, d[LS_DESC_RSRC], 1);
    const int lrb = lr0 + jb, ldl = r_end - lr0 > 1 ? r_end - lr0 : 1;
    const int rc0 = ls_dist_count(ja0 + j1, nb, myc, csrc, nq);
    const int lc = myc == pc ? ls_dist_g2l(ja0 + j0, nb, nq) : rc0;
    const int d1 = myc == pc1 ? (mn - j1 < nb ? mn - j1 : nb) : 0; /* block column j1 */
    const REAL *L = (const REAL *)(w->lbuf[cur] + w->lhdr);
    int st = FN(update_cols)(g, A, ia0, d, nm, w, L, ldl, lr0, lrb, r_end, jb, rc0, d1);
    if (st)
        return st;
    if (e->fork) {
        e->fork(e->context);
        if (w->defer || (st = FN(moves_on)(g, A, lld, ia0, d, nm, w, c_begin, lc - c_begin, 0,
                                           0)) == 0)
            st = FN(update_cols)(g, A, ia0, d, nm, w, L, ldl, lr0, lrb, r_end, jb, rc0 + d1,
                                 c_end - rc0 - d1);
        e->use_fork(e->context, 1);
        if (st == 0)
            st = FN(panel_and_send)(g, A, ia0, ja0, j1, mn, r_end, c_end, d, w, !cur, rt, op,
                                    req);
        e->use_fork(e->context, 0);
        return st;
    }
    st = FN(panel_and_send)(g, A, ia0, ja0, j1, mn, r_end, c_end, d, w, !cur, rt, op, req);
    if (st == 0 && !w->defer)
        st = FN(moves_on)(g, A, lld, ia0, d, nm, w, c_begin, lc - c_begin, 0, 0);
    if (st == 0)
        st = FN(update_cols)(g, A, ia0, d, nm, w, L, ldl, lr0, lrb, r_end, jb, rc0 + d1,
                             c_end - rc0 - d1);
    return st;
}

#include "deferred_swaps_impl.h"

/*
 * With look-ahead (the default; LS_DIST_LOOKAHEAD=0 turns it off), the
 * process column that owns block column k+1 updates those columns first,
 * factors panel k+1 and starts its broadcast (MPI_Ibcast) before the rest
 * of step k's trailing update: the other columns' gemm runs while panel
 * k+1 is factored, instead of every rank waiting for it at the start of
 * step k+1. Two L buffers: panel k+1 arrives while panel k's L is in use.
 * On one process row (P = 1: every 1 x Q grid, one GPU included) block
 * column k+1 gets its interchanges, U12 and update before any other
 * column (step_one_row), so panel k+1 waits only for its own columns.
 */
static int FN(getrf_core)(ls_grid *g, int m, int n, REAL *A, int ia0, int ja0, const int *d,
                          int *ipiv, FN(getrf_ws) *w)
{
    const ls_dist_engine *e = g->engine;
    const int np = g->nprow, nq = g->npcol, myr = g->myrow, myc = g->mycol;
    const int nb = d[LS_DESC_NB], rsrc = d[LS_DESC_RSRC], csrc = d[LS_DESC_CSRC];
    const int lld = d[LS_DESC_LLD];
    const int mn = m < n ? m : n;
    const int r_end = ls_dist_count(ia0 + m, nb, myr, rsrc, np);
    const int c_begin = ls_dist_count(ja0, nb, myc, csrc, nq);
    const int c_end = ls_dist_count(ja0 + n, nb, myc, csrc, nq);
    const int lookahead = ls_knob_int(LS_KNOB_DIST_LOOKAHEAD) != 0;
    int info = 0, st = 0, cur = 0, ready = 0; /* ready: panel j0 factored and sent */
    ls_dist_req req = {MPI_REQUEST_NULL, NULL, 0};
    MPI_Datatype rt;
    MPI_Op op;
    MPI_Type_contiguous((int)w->rec_bytes, MPI_BYTE, &rt);
    MPI_Type_commit(&rt);
    MPI_Op_create(FN(pivot_op), 1, &op);
    w->defer = np == 1 && ls_knob_int(LS_KNOB_DIST_DEFER_SWAPS) != 0;
    for (int j0 = 0; j0 < mn && st == 0; j0 += nb, cur = !cur) {
        const int jb = mn - j0 < nb ? mn - j0 : nb;
        const int pr = ls_dist_owner(ia0 + j0, nb, rsrc, np);
        const int pc = ls_dist_owner(ja0 + j0, nb, csrc, nq);
        const int lr0 = ls_dist_count(ia0 + j0, nb, myr, rsrc, np);
        const int nloc = r_end - lr0, ldl = nloc > 1 ? nloc : 1;
        const int lc = myc == pc ? ls_dist_g2l(ja0 + j0, nb, nq) : c_end;
        int *hdr = w->hdr[cur];
        REAL *L = (REAL *)(w->lbuf[cur] + w->lhdr);
        /* 1-2. panel, and L with its pivots along the process row */
        if (!ready)
            st = FN(panel_and_send)(g, A, ia0, ja0, j0, mn, r_end, c_end, d, w, cur, rt, op, NULL);
        else if ((st = e->wait(e->context, &req)) != 0)
            st = ls_dist_fail(g, st, "broadcast of the panel failed (%s)", e->name);
        ready = 0;
        if (st)
            break;
        if (hdr != (int *)w->lbuf[cur] && myc != pc) /* the header that came with L */
            e->get(e->context, LS_SINGLE, (int)(w->lhdr / 4), 1, w->lbuf[cur],
                   (int)(w->lhdr / 4), hdr, (int)(w->lhdr / 4));
        if (info == 0 && hdr[0] > 0)
            info = hdr[0];
        if (myr == pr)
            for (int c = 0; c < jb; ++c)
                ipiv[ls_dist_g2l(ia0 + j0 + c, nb, np)] = ia0 + hdr[1 + c] + 1;
        /* 3. the interchanges on the columns left and right of the panel */
        int nm = ls_dist_moves_of(j0, jb, hdr + 1, w->dst, w->src, w->label, w->touched);
        const int j1 = j0 + jb;
        if (lookahead && np == 1 && j1 < mn) {
            st = FN(step_one_row)(g, A, ia0, ja0, j0, jb, mn, r_end, c_begin, c_end, d, w, cur,
                                  nm, rt, op, &req);
            ready = st == 0;
            continue;
        }
        const int rc0 = ls_dist_count(ja0 + j1, nb, myc, csrc, nq);
        const int nr = c_end - rc0;
        const int left = w->defer ? 0 : (myc == pc ? lc : rc0) - c_begin;
        if ((st = FN(moves_on)(g, A, lld, ia0, d, nm, w, c_begin, left, rc0, nr)) != 0)
            break;
        /* 4. U12 on the diagonal process row, down the process columns */
        REAL *a12 = A + (size_t)rc0 * (size_t)lld + lr0;
        /* one process row: the update reads U12 where the solve left it */
        const REAL *U = np > 1 ? w->ubuf : a12;
        const int ldu = np > 1 ? jb : lld;
        if (nr > 0 && myr == pr) {
            e->trsm(e->context, PREC_, 'L', jb, nr, L, ldl, a12, lld);
            if (np > 1)
                e->lacpy(e->context, PREC_, jb, nr, a12, lld, w->ubuf, jb);
        }
        if (nr > 0 && np > 1 &&
            (st = e->bcast(e->context, w->ubuf, (size_t)jb * (size_t)nr * sizeof(REAL), pr,
                           g->col_comm, NULL)) != 0) {
            st = ls_dist_fail(g, st, "broadcast of U12 failed (%s)", e->name);
            break;
        }
        /* 5. trailing update; with look-ahead, block column j1 first, then
         * its panel and broadcast, then the rest */
        const int lrb = ls_dist_count(ia0 + j1, nb, myr, rsrc, np);
        int done = 0; /* local trailing columns already updated */
        if (lookahead && j1 < mn) {
            const int pc1 = ls_dist_owner(ja0 + j1, nb, csrc, nq);
            if (myc == pc1) {
                done = mn - j1 < nb ? mn - j1 : nb;
                e->gemm_sub(e->context, PREC_, r_end - lrb, done, jb, L + (lrb - lr0), ldl, U,
                            ldu, A + (size_t)rc0 * (size_t)lld + lrb, lld);
            }
            if (e->fork) {
                /* a device: the rest of the update is queued first, and the
                 * panel runs beside it on the second queue */
                e->fork(e->context);
                if (nr > done)
                    e->gemm_sub(e->context, PREC_, r_end - lrb, nr - done, jb, L + (lrb - lr0),
                                ldl, U + (size_t)done * (size_t)ldu, ldu,
                                A + (size_t)(rc0 + done) * (size_t)lld + lrb, lld);
                done = nr;
                e->use_fork(e->context, 1);
            }
            st = FN(panel_and_send)(g, A, ia0, ja0, j1, mn, r_end, c_end, d, w, !cur, rt, op,
                                    &req);
            if (e->fork)
                e->use_fork(e->context, 0);
            if (st)
                break;
            ready = 1;
        }
        if (nr > done)
            e->gemm_sub(e->context, PREC_, r_end - lrb, nr - done, jb, L + (lrb - lr0), ldl,
                        U + (size_t)done * (size_t)ldu, ldu,
                        A + (size_t)(rc0 + done) * (size_t)lld + lrb, lld);
    }
    e->wait(e->context, &req);
    if (st == 0 && w->defer)
        st = FN(deferred_swaps)(g, A, m, ia0, ja0, mn, d, ipiv, w);
    MPI_Op_free(&op);
    MPI_Type_free(&rt);
    char msg[200];
    int fin = e->finish(e->context, msg, sizeof msg);
    if (!st && fin)
        st = ls_dist_fail(g, fin, "%s", msg);
    return st ? st : info;
}

#undef PREC_
#undef MPIT_
