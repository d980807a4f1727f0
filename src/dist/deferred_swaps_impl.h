/*
 * The interchanges of L's columns, deferred to the end of the factorization
 * (one process row: every 1 x Q grid, one GPU included). A step's
 * interchanges must reach the trailing columns before its U12 solve, but
 * the columns left of its panel (L, already factored) are read again only
 * by the solve. Applied step by step, they cost each step a pass over every
 * earlier block column, 2 nb rows scattered down all n columns; deferred,
 * block column s takes every later step's interchanges at once, as one
 * gather of its rows below the diagonal block: half the entries, one
 * launch or two per block column instead of one per step, and nothing on
 * the path between two panels. LS_DIST_DEFER_SWAPS=0 applies them step by
 * step, for comparison. Written once for REAL; included by pgetrf_impl.h.
 * Defines: none (every function here is static)
 */

/* Rows [r0, m) of the local block column at lc (jb wide) by gm (row i
 * takes the old row gm[i]), in as many column slices as the exchange
 * buffer holds (pack and unpack need nm x width entries twice over). */
static int FN(gather_block)(ls_grid *g, REAL *A, int lld, int ia0, const int *d, int lc, int jb,
                            int r0, int m, const int *gm, int *dst, int *src, FN(getrf_ws) *w)
{
    int nm = 0;
    for (int i = r0; i < m; ++i)
        if (gm[i] != i) {
            dst[nm] = i;
            src[nm++] = gm[i];
        }
    if (nm == 0)
        return 0;
    int slice = (int)(w->swap_entries / 2 / (size_t)nm);
    slice = slice < 1 ? 1 : slice > jb ? jb : slice;
    for (int c = 0; c < jb; c += slice) {
        ls_dist_rows rl = {ia0, d[LS_DESC_NB], d[LS_DESC_RSRC], 1, {lc + c, 0},
                           {jb - c < slice ? jb - c : slice, 0}};
        int st = ls_dist_apply_moves(g, PREC_, A, lld, &rl, nm, dst, src, w->swap, w->hswap);
        if (st)
            return st;
    }
    return 0;
}

/* Every local block column of L gets the interchanges of the steps after
 * its own, read back from ipiv; from the last block column to the first,
 * folding each step into the gather map on the way. */
static int FN(deferred_swaps)(ls_grid *g, REAL *A, int m, int ia0, int ja0, int mn, const int *d,
                              const int *ipiv, FN(getrf_ws) *w)
{
    const int nb = d[LS_DESC_NB], nq = g->npcol, csrc = d[LS_DESC_CSRC];
    const int lld = d[LS_DESC_LLD];
    if (mn <= nb)
        return 0;
    int *gm = ls_dist_malloc(g, (4 * (size_t)m + (size_t)nb) * sizeof(int));
    if (!gm)
        return ls_dist_fail(g, LS_ENOMEM, "out of memory for the deferred interchanges (m = %d)",
                            m);
    int *amap = gm + m, *dst = amap + m, *src = dst + m, *piv = src + m;
    for (int i = 0; i < m; ++i)
        gm[i] = amap[i] = i;
    int st = 0;
    for (int j0 = (mn - 1) / nb * nb; j0 >= 0 && st == 0; j0 -= nb) {
        const int jb = mn - j0 < nb ? mn - j0 : nb;
        /* gm holds the steps after j0: block column j0's rows below it */
        if (ls_dist_owner(ja0 + j0, nb, csrc, nq) == g->mycol)
            st = FN(gather_block)(g, A, lld, ia0, d, ls_dist_g2l(ja0 + j0, nb, nq), jb, j0 + jb, m,
                                  gm, dst, src, w);
        for (int c = 0; c < jb; ++c) /* one process row: local row = global row */
            piv[c] = ipiv[ia0 + j0 + c] - 1 - ia0;
        ls_dist_fold_step(j0, jb, piv, m, gm, amap);
    }
    free(gm);
    return st;
}
