/* Internals of liblinsolve_dist: the grid, index maps, agreement. */
#ifndef LS_DIST_INTERNAL_H
#define LS_DIST_INTERNAL_H

#include <stddef.h>

#include "engine.h"
#include "linsolve_dist.h"

struct ls_grid {
    MPI_Comm comm;     /* the P*Q ranks, row-major; MPI_COMM_NULL outside */
    MPI_Comm row_comm; /* my process row; rank = mycol */
    MPI_Comm col_comm; /* my process column; rank = myrow */
    int nprow, npcol, myrow, mycol, rank;
    int ctxt;          /* what descriptors carry */
    const ls_dist_engine *engine;
    ls_dist_engine *owned; /* an engine the grid opened (ls_grid_set_backend) */
    void *plugin;          /* its plugin's handle */
    char error[256];
};

/* The grid of the ranks of comm with in = 1, row-major by (myrow, mycol);
 * ctxt INT_MIN: the communicator's Fortran handle. Collective over comm. */
int ls_dist_grid_make(ls_grid **grid, MPI_Comm comm, int nprow, int npcol, int in, int myrow,
                      int mycol, int ctxt);

/* A rank outside the grid (or no grid) cannot take part in agreement:
 * such calls return ScaLAPACK's -(dpos*100 + CTXT) at once. */
static inline int ls_dist_outside(const ls_grid *g) { return !g || g->comm == MPI_COMM_NULL; }

/* 0-based global index g, blocks of nb, first block on src of np processes. */
static inline int ls_dist_owner(int g, int nb, int src, int np) { return (src + g / nb) % np; }
static inline int ls_dist_g2l(int g, int nb, int np) { return (g / (nb * np)) * nb + g % nb; }
/* Global 0-based index of local index l on process p. */
static inline int ls_dist_l2g(int l, int nb, int p, int src, int np)
{
    return ((l / nb) * np + (np + p - src) % np) * nb + l % nb;
}
/* Local indices of process p among the global indices [0, g): also the
 * local index of the first global index >= g that p owns. */
int ls_dist_count(int g, int nb, int p, int src, int np);

/* Back to the CPU engine, releasing one the grid opened (engine_open.c). */
void ls_dist_engine_release(ls_grid *g);
/* liblinsolve_dist_cuda.so's handle (opened once), or NULL with why in err. */
void *ls_dist_cuda_plugin(char *err, size_t len);

/* Record a failure on this rank (printf-style) and return status. */
int ls_dist_fail(ls_grid *g, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/*
 * Every rank of the grid agrees on one outcome: library failures (<= -1001)
 * first, then the illegal argument with the smallest number (info -i or
 * -(i*100+j)), else 0. The message of the rank that failed is copied to
 * every rank's grid->error. One allreduce (two on failure).
 */
int ls_dist_agree(ls_grid *g, int status);

/* malloc that honours LS_DIST_FAULT_ALLOC=<grid rank>: fails there, to test
 * that a failure on one rank ends every rank cleanly. */
void *ls_dist_malloc(const ls_grid *g, size_t bytes);

/* ScaLAPACK's CHK1MAT for sub(X) = X(ix:ix+m-1, jx:jx+n-1) with descriptor
 * argument number dpos; mpos/npos number m and n. 0 or info < 0. */
int ls_dist_check_mat(const ls_grid *g, int m, int mpos, int n, int npos, int ix, int jx,
                      const int *desc, int dpos);

/* The pivot search's record: this header, then the candidate row and row j
 * (2 * width entries of the working precision). */
typedef struct ls_dist_pivot_head {
    double absval;   /* |candidate|; -1 when the rank has no rows */
    long long row;   /* its global row, 0-based */
    int has_j;       /* this record carries row j's contents */
    int width;       /* entries in each of the two rows */
} ls_dist_pivot_head;

/*
 * Row moves of one interchange sequence: row dst[i] (0-based, relative to
 * the sub-matrix) receives the old contents of row src[i]. Applied to local
 * columns [c0[r], c0[r]+nc[r]) for r < nranges of X (leading dimension lld)
 * within the grid's process column; row r of sub(X) is global row off + r
 * (off a multiple of mb), block-cyclic in mb from process row rsrc.
 * Collective over the process column. ws (engine memory) holds >=
 * 2*nmoves*width entries; hws (host) as many, for device engines when P > 1.
 */
typedef struct ls_dist_rows {
    int off, mb, rsrc;
    int nranges;
    int c0[2], nc[2];
} ls_dist_rows;
int ls_dist_apply_moves(ls_grid *g, ls_precision p, void *X, int lld, const ls_dist_rows *rl,
                        int nmoves, const int *dst, const int *src, void *ws, void *hws);

/* The moves that LAPACK's sequential interchanges (row k <-> piv[k - k0],
 * relative and 0-based, k = k0 .. k0+count-1) amount to: row dst[i] gets
 * the old row src[i]. label has an entry per row of sub(A), all -1 on entry
 * and on exit; touched has 2*count entries, dst and src too. Returns the
 * number of moves. */
int ls_dist_moves_of(int k0, int count, const int *piv, int *dst, int *src, int *label,
                     int *touched);

/* Folds the interchanges of one step (row k <-> piv[k - k0], relative and
 * 0-based, k = k0 .. k0+count-1) into gm, the rows [k0, m) of a gather map:
 * on entry row i of the final matrix is row gm[i] as it stood after the
 * steps folded so far (those after this one); on exit, as it stood before
 * this step. amap has m entries, amap[i] == i on entry and on exit. */
void ls_dist_fold_step(int k0, int count, const int *piv, int m, int *gm, int *amap);

#endif
