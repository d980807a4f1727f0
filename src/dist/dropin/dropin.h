/*
 * liblinsolve_scalapack.so: ScaLAPACK's pdgesv_/pdgetrf_/pdgetrs_ (and ps)
 * under the same names and Fortran interfaces, routed to liblinsolve_dist
 * or to the ScaLAPACK this library shadows. Everything here is hidden;
 * entry.c exports the six symbols.
 *
 *   entry.c / entry_impl.h  the exported symbols, one source for both precisions
 *   dispatch.c              routing, ScaLAPACK's error report, trace
 *   grids.c                 BLACS context -> ls_grid (cached), the shadowed ScaLAPACK
 */
#ifndef LSS_DROPIN_H
#define LSS_DROPIN_H

#include "linsolve_dist.h"

#define LSS_EXPORT __attribute__((visibility("default")))

typedef enum lss_op { LSS_GESV, LSS_GETRF, LSS_GETRS } lss_op;

/* One intercepted call, whatever its routine and precision. The scalars are
 * copies of the caller's (the system routine is handed their addresses). */
typedef struct lss_args {
    lss_op op;
    ls_precision prec;
    char trans;
    int m, n, nrhs, ia, ja, ib, jb;
    void *a;
    const int *desca;
    int *ipiv;
    void *b;
    const int *descb;
    int *info;
} lss_args;

/* dispatch.c: runs one call start to end (info set, trace written). */
void lss_dispatch(lss_args *x);

/* grids.c */
/* BLACS' C interface (ScaLAPACK ships no header for it). */
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cigsum2d(int ctxt, char *scope, char *top, int m, int n, int *a, int lda, int rdest,
              int cdest);
/* The grid of BLACS context ctxt, made on first use and kept for the
 * process's life; collective over the context's processes (one BLACS
 * integer sum per call, which finds the cached grid). NULL with *why set
 * when it cannot be made. */
ls_grid *lss_grid_of(int ctxt, const char **why);
/* The shadowed ScaLAPACK's routine (RTLD_NEXT, never one of ours); NULL if
 * the process has none. */
void *lss_system_routine(lss_op op, ls_precision prec);

#endif
