/*
 * The panel of a grid with several process rows, gathered (included by
 * pgetrf_impl.h, written for REAL). Every rank of the panel's process
 * column receives the whole panel, its rows in global order, factors it
 * with the engine's getrf and keeps its own rows. The rows are in the same
 * order as the column-by-column search sees them, so partial pivoting picks
 * the same pivots (the first largest |a|, as LAPACK's idamax).
 *
 * Why: the column-by-column search costs one pivot allreduce a column, and
 * on a device engine a host round trip besides (the candidates go through
 * host memory): n = 32768 on 2 x 1 GPUs spent 11.8 s where 1 x 2 took
 * 0.53 s. Gathered, a panel costs one broadcast per process row and one
 * BLAS-3 factorization, repeated on every process row of the column.
 * LS_DIST_PANEL=auto|gather|column chooses (auto: gather where the engine's
 * memory is not the host's).
 * Defines: none (every function and object here is static)
 */

/* Engine memory for the whole panel (S: M x nb column-major, ld M, rows in
 * global order) and one process row's share of it as the broadcast carries
 * it (R: rows of jb entries); host lists of row positions. */
typedef struct FN(gather_ws) {
    REAL *S, *R;
    int *pos;   /* positions in S of one process row's rows */
    int *mypos; /* positions in S of this rank's rows */
    int *loc;   /* this rank's local rows */
    int gend;   /* ia0 + m: one past the last global row */
    void *ebytes, *hbytes;
} FN(gather_ws);

static int FN(gather_wanted)(const ls_grid *g)
{
    const ls_dist_engine *e = g->engine;
    if (g->nprow < 2 || !e->getrf || !e->pack_rows || !e->unpack_rows)
        return 0;
    if (ls_knob_is(LS_KNOB_DIST_PANEL, "column"))
        return 0;
    return ls_knob_is(LS_KNOB_DIST_PANEL, "gather") || !e->host_memory;
}

static void FN(gather_free)(const ls_grid *g, FN(gather_ws) *x)
{
    const ls_dist_engine *e = g->engine;
    if (x->ebytes && !e->host_memory)
        e->ws_free(e->context, x->ebytes);
    else
        free(x->ebytes);
    free(x->hbytes);
    memset(x, 0, sizeof *x);
}

/* Leaves x zeroed (the column-by-column search) unless the panel is gathered. */
static int FN(gather_alloc)(ls_grid *g, int m, int ia0, const int *d, FN(gather_ws) *x)
{
    memset(x, 0, sizeof *x);
    if (!FN(gather_wanted)(g))
        return 0;
    const ls_dist_engine *e = g->engine;
    const int nb = d[LS_DESC_NB], rsrc = d[LS_DESC_RSRC], np = g->nprow;
    int rmax = 0; /* most rows a process row holds */
    for (int q = 0; q < np; ++q) {
        int r = ls_dist_count(ia0 + m, nb, q, rsrc, np) - ls_dist_count(ia0, nb, q, rsrc, np);
        rmax = r > rmax ? r : rmax;
    }
    const size_t es = sizeof(REAL), sb = ((size_t)m * (size_t)nb * es + 255) / 256 * 256;
    const size_t eb = sb + (size_t)rmax * (size_t)nb * es + 256;
    x->ebytes = e->host_memory ? ls_dist_malloc(g, eb) : e->ws_alloc(e->context, eb);
    x->hbytes = ls_dist_malloc(g, 3 * sizeof(int) * ((size_t)rmax + 1));
    if (!x->ebytes || !x->hbytes) {
        int dev = !x->ebytes && !e->host_memory;
        FN(gather_free)(g, x);
        return ls_dist_fail(g, dev ? LS_EDEVMEM : LS_ENOMEM,
                            "out of %s memory for the gathered panel (%zu bytes, m = %d, nb = %d)",
                            dev ? e->name : "host", eb, m, nb);
    }
    x->S = (REAL *)x->ebytes;
    x->R = (REAL *)((char *)x->ebytes + sb);
    x->pos = (int *)x->hbytes;
    x->mypos = x->pos + rmax + 1;
    x->loc = x->mypos + rmax + 1;
    x->gend = ia0 + m;
    return 0;
}

/* Global rows of process row q in the panel starting at global row gj0:
 * positions in S into pos (and local rows into loc when loc), count returned. */
static int FN(gather_rows)(int gj0, int gend, int nb, int q, int rsrc, int np, int *pos, int *loc)
{
    const int l0 = ls_dist_count(gj0, nb, q, rsrc, np), l1 = ls_dist_count(gend, nb, q, rsrc, np);
    for (int i = 0; i < l1 - l0; ++i) {
        pos[i] = ls_dist_l2g(l0 + i, nb, q, rsrc, np) - gj0;
        if (loc)
            loc[i] = l0 + i;
    }
    return l1 - l0;
}

/* The panel of block column j0 (jb wide, local column lc) gathered and
 * factored; hdr as FN(panel) fills it. */
static int FN(panel_gathered)(ls_grid *g, REAL *A, int lld, int ia0, int j0, int jb, int lc,
                              const int *d, FN(gather_ws) *x, int *hdr)
{
    const ls_dist_engine *e = g->engine;
    const int nb = d[LS_DESC_NB], rsrc = d[LS_DESC_RSRC], np = g->nprow, me = g->myrow;
    const int gj0 = ia0 + j0, M = x->gend - gj0, zero = 0;
    const size_t es = sizeof(REAL);
    const int mine = FN(gather_rows)(gj0, x->gend, nb, me, rsrc, np, x->mypos, x->loc);
    for (int q = 0; q < np; ++q) {
        const int nr = FN(gather_rows)(gj0, x->gend, nb, q, rsrc, np, x->pos, NULL);
        if (nr == 0)
            continue;
        if (q == me)
            e->pack_rows(e->context, PREC_, A, lld, 1, &lc, &jb, nr, x->loc, x->R);
        int rc = e->bcast(e->context, x->R, (size_t)nr * (size_t)jb * es, q, g->col_comm, NULL);
        if (rc)
            return ls_dist_fail(g, rc, "broadcast of the gathered panel failed (%s)", e->name);
        e->unpack_rows(e->context, PREC_, x->R, 1, &zero, &jb, nr, x->pos, x->S, M);
    }
    int inf = e->getrf(e->context, PREC_, M, jb, x->S, M, hdr + 1);
    if (inf < 0)
        return ls_dist_fail(g, LS_EINTERNAL, "local getrf refused argument %d", -inf);
    hdr[0] = inf > 0 ? j0 + inf : 0;
    for (int c = 0; c < jb; ++c) /* 1-based in S -> 0-based from ia0 */
        hdr[1 + c] = j0 + hdr[1 + c] - 1;
    if (mine > 0) { /* this rank's rows of the factored panel back into A */
        e->pack_rows(e->context, PREC_, x->S, M, 1, &zero, &jb, mine, x->mypos, x->R);
        e->unpack_rows(e->context, PREC_, x->R, 1, &lc, &jb, mine, x->loc, A, lld);
    }
    return 0;
}
