/*
 * The public ls_p?getrf / ls_p?getrs / ls_p?gesv / ls_p?scatter /
 * ls_p?gather for REAL (instantiated by api.c): ScaLAPACK's argument
 * checks, one agreement among the ranks on the checks and the workspace,
 * then the algorithm.
 * Defines: ls_pdgetrf, ls_psgetrf, ls_pdgetrf_gpu, ls_psgetrf_gpu, ls_pdgetrs,
 *   ls_psgetrs, ls_pdgetrs_gpu, ls_psgetrs_gpu, ls_pdgesv, ls_psgesv,
 *   ls_pdgesv_gpu, ls_psgesv_gpu, ls_pdscatter, ls_psscatter, ls_pdgather,
 *   ls_psgather
 */
#include "../common/real_macros.h"

#define PREC_ (sizeof(REAL) == sizeof(double) ? LS_DOUBLE : LS_SINGLE)

#define PN__(s, x) ls_p##s##x
#define PN_(s, x) PN__(s, x)
#define PN(x) PN_(SFX, x)

/* ScaLAPACK's layout demands on sub(A) (pdgetrf's checks): blocks square,
 * sub(A) starting on a block boundary. dpos numbers desca. */
static int FN(check_align_a)(int ia, int ja, const int *da, int dpos)
{
    if ((ia - 1) % da[LS_DESC_MB] != 0)
        return -(dpos - 2);
    if ((ja - 1) % da[LS_DESC_NB] != 0)
        return -(dpos - 1);
    if (da[LS_DESC_MB] != da[LS_DESC_NB])
        return -(dpos * 100 + LS_DESC_NB + 1);
    return 0;
}

/* B's rows laid out as A's (pdgesv's and pdgetrs's checks). */
static int FN(check_align_b)(const ls_grid *g, int ia, const int *da, int ib, const int *db, int dbpos)
{
    int np = g->nprow;
    int pa = ls_dist_owner(ia - 1, da[LS_DESC_MB], da[LS_DESC_RSRC], np);
    int pb = ls_dist_owner(ib - 1, db[LS_DESC_MB], db[LS_DESC_RSRC], np);
    if ((ib - 1) % db[LS_DESC_MB] != 0 || pa != pb)
        return -(dbpos - 2);
    if (db[LS_DESC_MB] != da[LS_DESC_NB])
        return -(dbpos * 100 + LS_DESC_MB + 1);
    return 0;
}

static int FN(finish)(ls_grid *g, int st, int *info)
{
    if (st < 0 && st > -1001 && !g->error[0])
        ls_dist_fail(g, st, "illegal argument: info = %d", st);
    if (info)
        *info = st;
    return st;
}

static int FN(check_getrs)(ls_grid *g, int n, int nrhs, int ia, int ja, const int *da, int ib,
                           int jb, const int *db, int base)
{
    /* base: the position of n among the arguments (getrs 2, gesv 1) */
    int st = ls_dist_check_mat(g, n, base, n, base, ia, ja, da, base + 5);
    if (st == 0)
        st = ls_dist_check_mat(g, n, base, nrhs, base + 1, ib, jb, db, base + 10);
    if (st == 0)
        st = FN(check_align_a)(ia, ja, da, base + 5);
    if (st == 0)
        st = FN(check_align_b)(g, ia, da, ib, db, base + 10);
    return st;
}

/* The local array of X (LLD x LOCc(N_X) entries, desc d) in the engine's
 * memory: X itself for a host-memory engine, else a copy on the device
 * (host = 1: the caller's arrays are host memory). */
static int FN(stage_in)(ls_grid *g, int host, const REAL *X, const int *d, REAL **dX)
{
    const ls_dist_engine *e = g->engine;
    *dX = (REAL *)X;
    if (!host || e->host_memory || !X)
        return 0;
    const int lc = ls_numroc(d[LS_DESC_N], d[LS_DESC_NB], g->mycol, d[LS_DESC_CSRC], g->npcol);
    const int ld = d[LS_DESC_LLD];
    const size_t bytes = (size_t)ld * (size_t)lc * sizeof(REAL);
    if (!(*dX = e->ws_alloc(e->context, bytes)))
        return ls_dist_fail(g, LS_EDEVMEM, "out of %s memory for a local array (%zu bytes)",
                            e->name, bytes);
    if (lc > 0)
        e->set(e->context, PREC_, ld, lc, X, ld, *dX, ld);
    return 0;
}

/* Back to the caller's host array (copy = 0: only release the copy). */
static void FN(stage_out)(ls_grid *g, int copy, REAL *X, const int *d, REAL *dX)
{
    const ls_dist_engine *e = g->engine;
    if (!dX || dX == X)
        return;
    const int lc = ls_numroc(d[LS_DESC_N], d[LS_DESC_NB], g->mycol, d[LS_DESC_CSRC], g->npcol);
    if (copy && lc > 0)
        e->get(e->context, PREC_, d[LS_DESC_LLD], lc, dX, d[LS_DESC_LLD], X, d[LS_DESC_LLD]);
    e->ws_free(e->context, dX);
}

static int FN(getrf_mem)(int host, int m, int n, REAL *A, int ia, int ja, const int *desca,
                         int *ipiv, int *info, ls_grid *g)
{
    if (ls_dist_outside(g))
        return info ? (*info = -(600 + LS_DESC_CTXT + 1)) : -(600 + LS_DESC_CTXT + 1);
    g->error[0] = '\0';
    int st = ls_dist_check_mat(g, m, 1, n, 2, ia, ja, desca, 6);
    if (st == 0)
        st = FN(check_align_a)(ia, ja, desca, 6);
    if (st == 0 && m > 0 && n > 0 && !ipiv)
        st = -7;
    if (st == 0 && !info)
        st = -8;
    FN(getrf_ws) w = {0};
    REAL *dA = NULL;
    if (st == 0 && m > 0 && n > 0)
        st = FN(getrf_alloc)(g, m, n, ia - 1, ja - 1, desca, &w);
    if (st == 0 && m > 0 && n > 0)
        st = FN(stage_in)(g, host, A, desca, &dA);
    if ((st = ls_dist_agree(g, st)) == 0 && m > 0 && n > 0) {
        /* info > 0 is the same everywhere; a device's failure may not be */
        int r = FN(getrf_core)(g, m, n, dA, ia - 1, ja - 1, desca, ipiv, &w);
        int lib = ls_dist_agree(g, r < 0 ? r : 0);
        st = lib ? lib : r;
    }
    FN(stage_out)(g, st >= 0, A, desca, dA);
    FN(getrf_free)(g, &w);
    return FN(finish)(g, st, info);
}

static int FN(getrs_mem)(int host, char trans, int n, int nrhs, const REAL *A, int ia, int ja,
                         const int *desca, const int *ipiv, REAL *B, int ib, int jb,
                         const int *descb, int *info, ls_grid *g)
{
    if (ls_dist_outside(g))
        return info ? (*info = -(700 + LS_DESC_CTXT + 1)) : -(700 + LS_DESC_CTXT + 1);
    g->error[0] = '\0';
    int st = 0;
    /* real matrices: 'C' (the conjugate transpose) is 'T' */
    const int tr = trans == 'T' || trans == 't' || trans == 'C' || trans == 'c';
    if (!tr && trans != 'N' && trans != 'n')
        st = -1;
    else if (tr && (!g->engine->gemm_tn || !g->engine->trsm_t))
        st = ls_dist_fail(g, LS_EUNSUPPORTED, "trans = '%c': the %s engine has no transposed "
                          "solve", trans, g->engine->name);
    if (st == 0)
        st = FN(check_getrs)(g, n, nrhs, ia, ja, desca, ib, jb, descb, 2);
    if (st == 0 && n > 0 && !ipiv)
        st = -8;
    if (st == 0 && !info)
        st = -13;
    FN(getrs_ws) w = {0};
    REAL *dA = NULL, *dB = NULL;
    if (st == 0 && n > 0 && nrhs > 0)
        st = FN(getrs_alloc)(g, n, nrhs, ia - 1, jb - 1, desca, descb, &w);
    if (st == 0 && n > 0 && nrhs > 0)
        st = FN(stage_in)(g, host, A, desca, &dA);
    if (st == 0 && n > 0 && nrhs > 0)
        st = FN(stage_in)(g, host, B, descb, &dB);
    if ((st = ls_dist_agree(g, st)) == 0 && n > 0 && nrhs > 0)
        st = ls_dist_agree(g, FN(getrs_core)(g, tr, n, nrhs, dA, ia - 1, ja - 1, desca, ipiv, dB,
                                             ib - 1, jb - 1, descb, &w));
    FN(stage_out)(g, st == 0, B, descb, dB);
    FN(stage_out)(g, 0, (REAL *)A, desca, dA);
    FN(getrs_free)(g, &w);
    return FN(finish)(g, st, info);
}

static int FN(gesv_mem)(int host, int n, int nrhs, REAL *A, int ia, int ja, const int *desca,
                        int *ipiv, REAL *B, int ib, int jb, const int *descb, int *info,
                        ls_grid *g)
{
    if (ls_dist_outside(g))
        return info ? (*info = -(600 + LS_DESC_CTXT + 1)) : -(600 + LS_DESC_CTXT + 1);
    g->error[0] = '\0';
    int st = FN(check_getrs)(g, n, nrhs, ia, ja, desca, ib, jb, descb, 1);
    if (st == 0 && n > 0 && !ipiv)
        st = -7;
    if (st == 0 && !info)
        st = -12;
    FN(getrf_ws) wf = {0};
    FN(getrs_ws) ws = {0};
    REAL *dA = NULL, *dB = NULL;
    if (st == 0 && n > 0)
        st = FN(getrf_alloc)(g, n, n, ia - 1, ja - 1, desca, &wf);
    if (st == 0 && n > 0 && nrhs > 0)
        st = FN(getrs_alloc)(g, n, nrhs, ia - 1, jb - 1, desca, descb, &ws);
    if (st == 0 && n > 0)
        st = FN(stage_in)(g, host, A, desca, &dA);
    if (st == 0 && n > 0 && nrhs > 0)
        st = FN(stage_in)(g, host, B, descb, &dB);
    int solved = 0;
    if ((st = ls_dist_agree(g, st)) == 0 && n > 0) {
        int r = FN(getrf_core)(g, n, n, dA, ia - 1, ja - 1, desca, ipiv, &wf);
        int lib = ls_dist_agree(g, r < 0 ? r : 0);
        st = lib ? lib : r;
        if (st == 0 && nrhs > 0) {
            st = ls_dist_agree(g, FN(getrs_core)(g, 0, n, nrhs, dA, ia - 1, ja - 1, desca, ipiv,
                                                 dB, ib - 1, jb - 1, descb, &ws));
            solved = st == 0;
        }
    }
    FN(stage_out)(g, st >= 0, A, desca, dA);
    FN(stage_out)(g, solved, B, descb, dB);
    FN(getrf_free)(g, &wf);
    FN(getrs_free)(g, &ws);
    return FN(finish)(g, st, info);
}

LS_API int PN(getrf)(int m, int n, REAL *A, int ia, int ja, const int *desca, int *ipiv,
                     int *info, ls_grid *g)
{
    return FN(getrf_mem)(1, m, n, A, ia, ja, desca, ipiv, info, g);
}

LS_API int PN(getrf_gpu)(int m, int n, REAL *dA, int ia, int ja, const int *desca, int *ipiv,
                         int *info, ls_grid *g)
{
    return FN(getrf_mem)(0, m, n, dA, ia, ja, desca, ipiv, info, g);
}

LS_API int PN(getrs)(char trans, int n, int nrhs, const REAL *A, int ia, int ja, const int *desca,
                     const int *ipiv, REAL *B, int ib, int jb, const int *descb, int *info,
                     ls_grid *g)
{
    return FN(getrs_mem)(1, trans, n, nrhs, A, ia, ja, desca, ipiv, B, ib, jb, descb, info, g);
}

LS_API int PN(getrs_gpu)(char trans, int n, int nrhs, const REAL *dA, int ia, int ja,
                         const int *desca, const int *ipiv, REAL *dB, int ib, int jb,
                         const int *descb, int *info, ls_grid *g)
{
    return FN(getrs_mem)(0, trans, n, nrhs, dA, ia, ja, desca, ipiv, dB, ib, jb, descb, info, g);
}

LS_API int PN(gesv)(int n, int nrhs, REAL *A, int ia, int ja, const int *desca, int *ipiv,
                    REAL *B, int ib, int jb, const int *descb, int *info, ls_grid *g)
{
    return FN(gesv_mem)(1, n, nrhs, A, ia, ja, desca, ipiv, B, ib, jb, descb, info, g);
}

LS_API int PN(gesv_gpu)(int n, int nrhs, REAL *dA, int ia, int ja, const int *desca, int *ipiv,
                        REAL *dB, int ib, int jb, const int *descb, int *info, ls_grid *g)
{
    return FN(gesv_mem)(0, n, nrhs, dA, ia, ja, desca, ipiv, dB, ib, jb, descb, info, g);
}

LS_API int PN(scatter)(int root, const REAL *G, int ldg, REAL *A, const int *desc, ls_grid *g)
{
    if (g && !ls_dist_outside(g))
        g->error[0] = '\0';
    return FN(move)(root, (REAL *)G, ldg, A, desc, g, 1);
}

LS_API int PN(gather)(int root, REAL *G, int ldg, const REAL *A, const int *desc, ls_grid *g)
{
    if (g && !ls_dist_outside(g))
        g->error[0] = '\0';
    return FN(move)(root, G, ldg, (REAL *)A, desc, g, 0);
}

#undef PREC_
#undef PN
#undef PN_
#undef PN__
