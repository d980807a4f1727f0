/* The process grid, descriptors, argument checks and agreement among ranks. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/knobs.h"
#include "dist_internal.h"

int ls_dist_count(int g, int nb, int p, int src, int np)
{
    if (g <= 0)
        return 0;
    int mydist = (np + p - src) % np;
    int nblocks = g / nb;
    int cnt = (nblocks / np) * nb;
    int extra = nblocks % np;
    if (mydist < extra)
        cnt += nb;
    else if (mydist == extra)
        cnt += g % nb;
    return cnt;
}

int ls_numroc(int n, int nb, int iproc, int isrcproc, int nprocs)
{
    if (n <= 0 || nb <= 0 || nprocs <= 0)
        return 0;
    return ls_dist_count(n, nb, iproc, isrcproc, nprocs);
}

int ls_dist_fail(ls_grid *g, int status, const char *fmt, ...)
{
    va_list ap;
    int len = snprintf(g->error, sizeof g->error, "rank %d (process %d,%d): ", g->rank, g->myrow,
                       g->mycol);
    if (len < 0 || (size_t)len >= sizeof g->error)
        len = 0;
    va_start(ap, fmt);
    vsnprintf(g->error + len, sizeof g->error - (size_t)len, fmt, ap);
    va_end(ap);
    return status;
}

void *ls_dist_malloc(const ls_grid *g, size_t bytes)
{
    if (ls_knob_int(LS_KNOB_DIST_FAULT_ALLOC) == g->rank) /* -1 when unset */
        return NULL;
    return malloc(bytes ? bytes : 1);
}

/* Order of badness: library failures (most negative first), then argument
 * errors with the smallest |info|, then success. */
static int agree_key(int status)
{
    if (status <= -1001)
        return INT_MIN / 2 + (status + 1001); /* <= INT_MIN/2 */
    if (status < 0)
        return -status; /* 1 .. 999999 */
    return INT_MAX;
}

int ls_dist_agree(ls_grid *g, int status)
{
    struct {
        int key, rank;
    } in = {agree_key(status), g->rank}, out;
    if (MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, g->comm) != MPI_SUCCESS)
        return ls_dist_fail(g, LS_EINTERNAL, "MPI_Allreduce failed");
    if (out.key == INT_MAX)
        return 0;
    if (out.key > 0)
        return -out.key;
    /* A library failure: everyone learns the failing rank's words. */
    MPI_Bcast(g->error, (int)sizeof g->error, MPI_CHAR, out.rank, g->comm);
    g->error[sizeof g->error - 1] = '\0';
    return out.key - INT_MIN / 2 - 1001;
}

/* The grid of the ranks with in = 1, ordered row-major by (myrow, mycol). */
int ls_dist_grid_make(ls_grid **grid, MPI_Comm comm, int nprow, int npcol, int in, int myrow,
                      int mycol, int ctxt)
{
    *grid = NULL;
    ls_grid *g = calloc(1, sizeof *g);
    int ok = g != NULL, all_ok = 0;
    /* Everyone must learn if one rank could not allocate, or some would
     * wait in MPI_Comm_split forever. */
    if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS || !all_ok) {
        free(g);
        return all_ok ? LS_EINTERNAL : LS_ENOMEM;
    }
    g->nprow = nprow;
    g->npcol = npcol;
    g->engine = ls_dist_engine_cpu();
    g->comm = g->row_comm = g->col_comm = MPI_COMM_NULL;
    g->rank = in ? myrow * npcol + mycol : -1;
    g->myrow = in ? myrow : -1;
    g->mycol = in ? mycol : -1;
    if (MPI_Comm_split(comm, in ? 0 : MPI_UNDEFINED, in ? g->rank : 0, &g->comm) != MPI_SUCCESS) {
        free(g);
        return LS_EINTERNAL;
    }
    if (in) {
        MPI_Comm_split(g->comm, g->myrow, g->mycol, &g->row_comm);
        MPI_Comm_split(g->comm, g->mycol, g->myrow, &g->col_comm);
        g->ctxt = ctxt != INT_MIN ? ctxt : (int)MPI_Comm_c2f(g->comm);
    } else {
        g->ctxt = -1;
    }
    *grid = g;
    return 0;
}

int ls_grid_create(ls_grid **grid, MPI_Comm comm, int nprow, int npcol)
{
    int size = 0, rank = 0;
    if (!grid)
        return -1;
    *grid = NULL;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        return LS_EINTERNAL;
    if (nprow < 1 || nprow > size)
        return -3;
    if (npcol < 1 || npcol > size / nprow)
        return -4;
    int in = rank < nprow * npcol;
    return ls_dist_grid_make(grid, comm, nprow, npcol, in, in ? rank / npcol : -1,
                             in ? rank % npcol : -1, INT_MIN);
}

void ls_grid_destroy(ls_grid *g)
{
    if (!g)
        return;
    ls_dist_engine_release(g);
    if (g->row_comm != MPI_COMM_NULL)
        MPI_Comm_free(&g->row_comm);
    if (g->col_comm != MPI_COMM_NULL)
        MPI_Comm_free(&g->col_comm);
    if (g->comm != MPI_COMM_NULL)
        MPI_Comm_free(&g->comm);
    free(g);
}

void ls_grid_info(const ls_grid *g, int *nprow, int *npcol, int *myrow, int *mycol)
{
    if (nprow)
        *nprow = g ? g->nprow : -1;
    if (npcol)
        *npcol = g ? g->npcol : -1;
    if (myrow)
        *myrow = g ? g->myrow : -1;
    if (mycol)
        *mycol = g ? g->mycol : -1;
}

int ls_grid_context(const ls_grid *g) { return g ? g->ctxt : -1; }
MPI_Comm ls_grid_comm(const ls_grid *g) { return g ? g->comm : MPI_COMM_NULL; }
const char *ls_grid_error(const ls_grid *g) { return g ? g->error : "no grid"; }

int ls_descinit(int *desc, int m, int n, int mb, int nb, int irsrc, int icsrc, const ls_grid *g,
                int lld)
{
    if (!desc)
        return -1;
    int info = 0;
    if (m < 0)
        info = -2;
    else if (n < 0)
        info = -3;
    else if (mb < 1)
        info = -4;
    else if (nb < 1)
        info = -5;
    else if (!g || irsrc < 0 || irsrc >= g->nprow)
        info = -6;
    else if (icsrc < 0 || icsrc >= g->npcol)
        info = -7;
    else if (g->myrow >= 0 && lld < (ls_numroc(m, mb, g->myrow, irsrc, g->nprow) > 1
                                          ? ls_numroc(m, mb, g->myrow, irsrc, g->nprow)
                                          : 1))
        info = -9;
    desc[LS_DESC_DTYPE] = 1;
    desc[LS_DESC_CTXT] = g ? g->ctxt : -1;
    desc[LS_DESC_M] = m > 0 ? m : 0;
    desc[LS_DESC_N] = n > 0 ? n : 0;
    desc[LS_DESC_MB] = mb > 1 ? mb : 1;
    desc[LS_DESC_NB] = nb > 1 ? nb : 1;
    desc[LS_DESC_RSRC] = irsrc;
    desc[LS_DESC_CSRC] = icsrc;
    desc[LS_DESC_LLD] = lld > 1 ? lld : 1;
    return info;
}

int ls_dist_check_mat(const ls_grid *g, int m, int mpos, int n, int npos, int ix, int jx,
                      const int *desc, int dpos)
{
#define BAD_ENTRY(e) (-(dpos * 100 + (e) + 1))
    if (!desc)
        return -dpos;
    if (desc[LS_DESC_DTYPE] != 1)
        return BAD_ENTRY(LS_DESC_DTYPE);
    if (desc[LS_DESC_CTXT] != g->ctxt)
        return BAD_ENTRY(LS_DESC_CTXT);
    if (m < 0)
        return -mpos;
    if (n < 0)
        return -npos;
    if (ix < 1)
        return -(dpos - 2);
    if (jx < 1)
        return -(dpos - 1);
    if (desc[LS_DESC_M] < 0)
        return BAD_ENTRY(LS_DESC_M);
    if (desc[LS_DESC_N] < 0)
        return BAD_ENTRY(LS_DESC_N);
    if (desc[LS_DESC_MB] < 1)
        return BAD_ENTRY(LS_DESC_MB);
    if (desc[LS_DESC_NB] < 1)
        return BAD_ENTRY(LS_DESC_NB);
    if (desc[LS_DESC_RSRC] < 0 || desc[LS_DESC_RSRC] >= g->nprow)
        return BAD_ENTRY(LS_DESC_RSRC);
    if (desc[LS_DESC_CSRC] < 0 || desc[LS_DESC_CSRC] >= g->npcol)
        return BAD_ENTRY(LS_DESC_CSRC);
    if (m > 0 && n > 0) {
        if ((long long)ix + m - 1 > desc[LS_DESC_M])
            return BAD_ENTRY(LS_DESC_M);
        if ((long long)jx + n - 1 > desc[LS_DESC_N])
            return BAD_ENTRY(LS_DESC_N);
    }
    int locr = ls_numroc(desc[LS_DESC_M], desc[LS_DESC_MB], g->myrow, desc[LS_DESC_RSRC], g->nprow);
    if (desc[LS_DESC_LLD] < (locr > 1 ? locr : 1))
        return BAD_ENTRY(LS_DESC_LLD);
    return 0;
#undef BAD_ENTRY
}

int ls_dist_moves_of(int k0, int count, const int *piv, int *dst, int *src, int *label,
                     int *touched)
{
    int nt = 0, nm = 0;
    for (int k = k0; k < k0 + count; ++k) {
        int p = piv[k - k0];
        if (p == k)
            continue;
        if (label[k] < 0) {
            label[k] = k;
            touched[nt++] = k;
        }
        if (label[p] < 0) {
            label[p] = p;
            touched[nt++] = p;
        }
        int t = label[k];
        label[k] = label[p];
        label[p] = t;
    }
    for (int i = 0; i < nt; ++i) {
        int r = touched[i];
        if (label[r] != r) {
            dst[nm] = r;
            src[nm] = label[r];
            nm++;
        }
        label[r] = -1;
    }
    return nm;
}

void ls_dist_fold_step(int k0, int count, const int *piv, int m, int *gm, int *amap)
{
    /* amap: where each row of the step's outcome came from (its swaps done
     * in order on the identity); it differs from the identity only on the
     * step's rows and their pivot rows, which are put back afterwards */
    for (int k = k0; k < k0 + count; ++k) {
        int p = piv[k - k0], t = amap[k];
        amap[k] = amap[p];
        amap[p] = t;
    }
    for (int i = k0; i < m; ++i)
        gm[i] = amap[gm[i]];
    for (int k = k0; k < k0 + count; ++k) {
        amap[k] = k;
        amap[piv[k - k0]] = piv[k - k0];
    }
}

/* Device engines: the rows are packed and unpacked on the device by
 * index lists, and cross the process column through host staging. */
static int apply_moves_engine(ls_grid *g, ls_precision p, void *X, int lld,
                              const ls_dist_rows *rl, int nmoves, const int *dst, const int *src,
                              void *ws, void *hws, int width)
{
    const ls_dist_engine *e = g->engine;
    const int np = g->nprow, me = g->myrow;
    const size_t es = p == LS_DOUBLE ? sizeof(double) : sizeof(float);
    int *rows = malloc((2 * (size_t)nmoves + 4 * (size_t)np) * sizeof(int));
    if (!rows)
        return ls_dist_fail(g, LS_ENOMEM, "out of memory for %d row moves", nmoves);
    int *srows = rows, *rrows = rows + nmoves, *sc = rows + 2 * nmoves, *rc = sc + np;
    int *sd = rc + np, *rd = sd + np;
    memset(sc, 0, 4 * (size_t)np * sizeof(int));
    for (int i = 0; i < nmoves; ++i) {
        int so = ls_dist_owner(rl->off + src[i], rl->mb, rl->rsrc, np);
        int dn = ls_dist_owner(rl->off + dst[i], rl->mb, rl->rsrc, np);
        sc[dn] += so == me;
        rc[so] += dn == me;
    }
    for (int q = 1; q < np; ++q) {
        sd[q] = sd[q - 1] + sc[q - 1];
        rd[q] = rd[q - 1] + rc[q - 1];
    }
    const int nsend = sd[np - 1] + sc[np - 1], nrecv = rd[np - 1] + rc[np - 1];
    /* the send list in destination order, the receive list in source order,
     * each in move order within (what the host path's packing does) */
    for (int q = 0; q < np; ++q)
        sc[q] = sd[q], rc[q] = rd[q];
    for (int i = 0; i < nmoves; ++i) {
        int so = ls_dist_owner(rl->off + src[i], rl->mb, rl->rsrc, np);
        int dn = ls_dist_owner(rl->off + dst[i], rl->mb, rl->rsrc, np);
        if (so == me)
            srows[sc[dn]++] = ls_dist_g2l(rl->off + src[i], rl->mb, np);
        if (dn == me)
            rrows[rc[so]++] = ls_dist_g2l(rl->off + dst[i], rl->mb, np);
    }
    char *sbuf = ws, *rbuf = (char *)ws + (size_t)nmoves * (size_t)width * es;
    e->pack_rows(e->context, p, X, lld, rl->nranges, rl->c0, rl->nc, nsend, srows, sbuf);
    int st = 0;
    if (np > 1) {
        char *hs = hws, *hr = (char *)hws + (size_t)nmoves * (size_t)width * es;
        for (int q = 0; q < np; ++q) { /* counts and offsets in entries */
            sc[q] = (sc[q] - sd[q]) * width;
            rc[q] = (rc[q] - rd[q]) * width;
            sd[q] *= width;
            rd[q] *= width;
        }
        /* the engine's own all-to-all (NCCL) where it has one; else through
         * host memory, which waits for everything the device has queued */
        int taken = e->alltoallv &&
                    e->alltoallv(e->context, p, sbuf, sc, sd, rbuf, rc, rd, g->col_comm) == 0;
        if (!taken && nsend)
            e->get(e->context, p, nsend * width, 1, sbuf, nsend * width, hs, nsend * width);
        MPI_Datatype t = p == LS_DOUBLE ? MPI_DOUBLE : MPI_FLOAT;
        if (!taken && MPI_Alltoallv(hs, sc, sd, t, hr, rc, rd, t, g->col_comm) != MPI_SUCCESS)
            st = ls_dist_fail(g, LS_EINTERNAL, "MPI_Alltoallv failed");
        else if (!taken && nrecv)
            e->set(e->context, p, nrecv * width, 1, hr, nrecv * width, rbuf, nrecv * width);
    } else {
        rbuf = sbuf; /* every move stays on this rank, in the same order */
    }
    if (st == 0)
        e->unpack_rows(e->context, p, rbuf, rl->nranges, rl->c0, rl->nc, nrecv, rrows, X, lld);
    free(rows);
    return st;
}

int ls_dist_apply_moves(ls_grid *g, ls_precision p, void *X, int lld, const ls_dist_rows *rl,
                        int nmoves, const int *dst, const int *src, void *ws, void *hws)
{
    const ls_dist_engine *e = g->engine;
    const int np = g->nprow, me = g->myrow;
    const size_t es = p == LS_DOUBLE ? sizeof(double) : sizeof(float);
    int width = 0;
    for (int r = 0; r < rl->nranges; ++r)
        width += rl->nc[r];
    if (width == 0 || nmoves == 0)
        return 0;
    if (np == 1 && e->move_rows) { /* in place, when the engine can */
        int *rows = malloc(2 * (size_t)nmoves * sizeof(int));
        if (!rows)
            return ls_dist_fail(g, LS_ENOMEM, "out of memory for %d row moves", nmoves);
        for (int i = 0; i < nmoves; ++i) {
            rows[i] = ls_dist_g2l(rl->off + dst[i], rl->mb, 1);
            rows[nmoves + i] = ls_dist_g2l(rl->off + src[i], rl->mb, 1);
        }
        int declined = e->move_rows(e->context, p, X, lld, rl->nranges, rl->c0, rl->nc, nmoves,
                                    rows, rows + nmoves);
        free(rows);
        if (!declined)
            return 0;
    }
    if (!e->host_memory)
        return apply_moves_engine(g, p, X, lld, rl, nmoves, dst, src, ws, hws, width);
    char *sbuf = ws, *rbuf = (char *)ws + (size_t)nmoves * (size_t)width * es;
    int stack_counts[4 * 8];
    int *counts = np <= 8 ? stack_counts : malloc(4 * (size_t)np * sizeof(int));
    if (!counts) /* tiny; the same P on every rank, so all take this path */
        return LS_ENOMEM;
    int *sc = counts, *rc = counts + np, *sd = counts + 2 * np, *rd = counts + 3 * np;
    memset(counts, 0, 4 * (size_t)np * sizeof(int));
    for (int i = 0; i < nmoves; ++i) {
        int so = ls_dist_owner(rl->off + src[i], rl->mb, rl->rsrc, np);
        int dn = ls_dist_owner(rl->off + dst[i], rl->mb, rl->rsrc, np);
        if (so == me)
            sc[dn] += width;
        if (dn == me)
            rc[so] += width;
    }
    for (int q = 1; q < np; ++q) {
        sd[q] = sd[q - 1] + sc[q - 1];
        rd[q] = rd[q - 1] + rc[q - 1];
    }
    /* pack (sc is reused as the running position) */
    for (int q = 0; q < np; ++q)
        sc[q] = sd[q];
    for (int i = 0; i < nmoves; ++i) {
        if (ls_dist_owner(rl->off + src[i], rl->mb, rl->rsrc, np) != me)
            continue;
        int dn = ls_dist_owner(rl->off + dst[i], rl->mb, rl->rsrc, np);
        int lr = ls_dist_g2l(rl->off + src[i], rl->mb, np);
        char *out = sbuf + (size_t)sc[dn] * es;
        for (int r = 0; r < rl->nranges; ++r) {
            e->lacpy(e->context, p, 1, rl->nc[r],
                     (char *)X + ((size_t)rl->c0[r] * (size_t)lld + (size_t)lr) * es, lld, out, 1);
            out += (size_t)rl->nc[r] * es;
        }
        sc[dn] += width;
    }
    for (int q = 0; q < np; ++q)
        sc[q] -= sd[q];
    MPI_Datatype t = p == LS_DOUBLE ? MPI_DOUBLE : MPI_FLOAT;
    int rcm = MPI_Alltoallv(sbuf, sc, sd, t, rbuf, rc, rd, t, g->col_comm);
    for (int q = 0; q < np; ++q)
        rc[q] = rd[q];
    for (int i = 0; rcm == MPI_SUCCESS && i < nmoves; ++i) {
        if (ls_dist_owner(rl->off + dst[i], rl->mb, rl->rsrc, np) != me)
            continue;
        int so = ls_dist_owner(rl->off + src[i], rl->mb, rl->rsrc, np);
        int lr = ls_dist_g2l(rl->off + dst[i], rl->mb, np);
        const char *in = rbuf + (size_t)rc[so] * es;
        for (int r = 0; r < rl->nranges; ++r) {
            e->lacpy(e->context, p, 1, rl->nc[r], in, 1,
                     (char *)X + ((size_t)rl->c0[r] * (size_t)lld + (size_t)lr) * es, lld);
            in += (size_t)rl->nc[r] * es;
        }
        rc[so] += width;
    }
    if (counts != stack_counts)
        free(counts);
    return rcm == MPI_SUCCESS ? 0 : ls_dist_fail(g, LS_EINTERNAL, "MPI_Alltoallv failed");
}
