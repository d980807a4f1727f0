/* The planner behind ls_solve_problem (linsolve.h): one plan per call, the
 * table of paths it chooses from, and the helpers the paths share.
 *
 * plan.c        validates the problem, resolves the policy and the method,
 *               chooses the path and fills the report;
 * plan_paths.c  the table: each path's name, description, fit test and run;
 * plan_dense.c  one system (host or device) and the mixed-precision solve;
 * plan_stack.c  stacks: the batched routines, or a loop for other methods;
 * plan_sparse.c CSR: sparse direct (UMFPACK, cuDSS) and Krylov.
 * A new path is a row in plan_paths.c and a runner beside the others. */
#ifndef LS_CORE_PLAN_H
#define LS_CORE_PLAN_H

#include <stddef.h>

#include "linsolve.h"

typedef struct ls_plan {
    ls_context *ctx;
    ls_options opt;       /* the caller's, method and precision set by the plan */
    ls_problem *p;
    ls_report *rep;
    ls_precision prec;    /* working precision; LS_DOUBLE for mixed */
    int mixed;            /* policy mixed */
    const char *method;   /* the name asked for ("auto" when none) */
    int dense_named;      /* method names a dense method (opt.method) */
    int iter_named;       /* CSR: method names a Krylov method (iter) */
    ls_iter_method iter;
    int direct_named;     /* CSR: "direct" */
    long long index;      /* stack: first failed system, -1 none (runners set it) */
    /* CSR under auto: the choice made before the table is read (plan_sparse.c) */
    int sparse_auto;      /* method auto: the rule and its retries apply */
    int sparse_direct;    /* 1: the sparse LU; 0: a Krylov method */
    int sparse_spd;       /* A symmetric with a positive diagonal: CG's candidate */
    char sparse_why[256]; /* the reason, with UMFPACK's estimate */
    char more[320];       /* what the runners add to why (retries: "; ..., GMRES instead") */
    const char *ran;      /* the path that gave the answer when a runner fell back, or NULL */
} ls_plan;

typedef struct ls_path {
    const char *name;
    const char *description;
    /* 1 when the path runs this problem (why: what it will do); 0 when it
     * cannot (why: the reason, for the error when it was asked for by name).
     * why may be NULL: then nothing is written */
    int (*fits)(const ls_plan *pl, char *why, size_t len);
    int (*run)(ls_plan *pl);
} ls_path;

/* The table, in the order "auto" tries it (plan_paths.c). */
extern const ls_path ls_paths[];
extern const int ls_path_total;

/* Runners (plan_dense.c, plan_stack.c, plan_sparse.c). Each returns the
 * ls_solve_problem status and fills pl->rep (times, info, index, message). */
int ls_plan_run_dense(ls_plan *pl);
/* plan_lapack.c: the dense path's short way on the CPU (FP64, method auto);
 * *retry is 1 when its answer failed the check and ls_solve should refine */
int ls_plan_dense_lapack_fits(const ls_plan *pl);
int ls_plan_run_dense_lapack(ls_plan *pl, int *retry);
int ls_plan_run_mixed(ls_plan *pl);
int ls_plan_run_batched(ls_plan *pl);
int ls_plan_run_stack_loop(ls_plan *pl);
int ls_plan_run_sparse_direct(ls_plan *pl);
int ls_plan_run_sparse_krylov(ls_plan *pl);
/* CSR, method auto: decide direct or Krylov (pl->sparse_*), before the
 * table's fit tests read it; 0 or a status (plan_sparse.c). */
int ls_plan_sparse_decide(ls_plan *pl);
/* Append "; <text>" to the report's why (the runners' retries). */
void ls_plan_more(ls_plan *pl, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A status that is a zero pivot's column (LAPACK's info > 0), not one of
 * the positive outcome codes (LS_NOT_CONVERGED, LS_INACCURATE, ...). */
static inline int ls_plan_is_singular(int st)
{
    return st > 0 && st < LS_NOT_CONVERGED;
}

/* Shared helpers (plan.c). */
/* Record a failure message in the report and the context; returns st. */
int ls_plan_fail(ls_plan *pl, int st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Element size of the problem's dtype. */
size_t ls_plan_esize(const ls_problem *p);
/* Copy system i's A (which 'A') or B ('B') of a host problem into a
 * column-major double block (ld = rows), whatever the layout and dtype. */
void ls_plan_load(const ls_problem *p, long long i, char which, double *dst);
/* The inverse for B: store a column-major double block into system i's B. */
void ls_plan_store_b(ls_problem *p, long long i, const double *src);

#endif
