/*
 * What the project knows about each method, in one table (methods.c): the
 * name and description come from LS_METHOD_MAP in linsolve.h (its order is
 * the ABI), the facts below from the table's row. Backends declare the
 * (method, precision) pairs they run against it; the core, the CLI, bench
 * and the tests read it instead of restating method facts.
 *
 * Not public API: exported for the tools, the tests and the plugins.
 * methods.c is also compiled into the OpenCL plugin, which does not link
 * liblinsolve; there LS_METHODS_API is empty and the copy stays hidden.
 */
#ifndef LS_CORE_METHODS_H
#define LS_CORE_METHODS_H

#include <stddef.h>

#include "linsolve.h"

#ifndef LS_METHODS_API
#define LS_METHODS_API LS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Precisions as bits: a backend's declaration says which a method runs in. */
#define LS_PREC_BIT(p) (1u << (unsigned)(p))
#define LS_PREC_D LS_PREC_BIT(LS_DOUBLE)
#define LS_PREC_S LS_PREC_BIT(LS_SINGLE)
#define LS_PREC_DS (LS_PREC_D | LS_PREC_S)

/* Which ls_options fields a method reads besides precision. */
#define LS_OPT_PIVOT 1u  /* pivot: none is honoured (study mode) */
#define LS_OPT_REFINE 2u /* refine: ls_solve's iterative refinement applies */
#define LS_OPT_TOL 4u    /* rtol, atol, max_iter */

/* Panel width assumed by the blocked-LU byte model (lu, lapack, cuSOLVER). */
#define LS_METHOD_LU_NB 64

/* Which counting model a method's bytes follow (docs/metrics.md). */
typedef enum ls_traffic {
    LS_TRAFFIC_GE,         /* eliminate below the pivot, back substitution */
    LS_TRAFFIC_GJ,         /* eliminate in all other rows */
    LS_TRAFFIC_LU_BLOCKED, /* panel by panel: the trailing matrix once a panel */
    LS_TRAFFIC_LU_SEED,    /* unblocked LU, one kernel per step and phase */
    LS_TRAFFIC_KRYLOV      /* matrix-vector products and vector updates */
} ls_traffic;

typedef struct ls_method_info {
    ls_method id;
    const char *name;        /* LS_METHOD_MAP */
    const char *description; /* LS_METHOD_MAP */
    /* What a backend that does not declare this method runs in its place
     * (ge -> ge-coalesced on the GPUs); the method itself where none. */
    ls_method runs_as;
    int iterative;  /* judged by its own tolerance; flops and bytes per iteration */
    int pivots;     /* row interchanges (partial pivoting) by default */
    unsigned options; /* LS_OPT_* */
    ls_traffic traffic;
} ls_method_info;

/** The row of m (AUTO's holds only its name); NULL for an unknown value. */
LS_METHODS_API const ls_method_info *ls_method_info_of(ls_method m);
LS_METHODS_API int ls_method_is_iterative(ls_method m);

/**
 * Flops charged to one solve: LAPACK's gesv(n, nrhs) for every direct
 * method (rates compare on time), BiCGStab nrhs((2k+1)(2n^2-n) + 20kn).
 * @param[in] iterations iterative methods: iterations taken (else ignored)
 */
LS_METHODS_API double ls_method_flops(ls_method m, int n, int nrhs, int iterations);

/** Modelled memory traffic of one solve in bytes (docs/metrics.md). */
LS_METHODS_API double ls_method_bytes(ls_method m, int n, int nrhs, int elem_bytes,
                                      int iterations);

/* A backend's declaration: the methods it runs, in the order it lists
 * them, each with the precisions it runs in. */
typedef struct ls_method_support {
    ls_method method;
    unsigned precisions; /* LS_PREC_* */
} ls_method_support;

/**
 * The method a backend with this declaration runs for m: m itself, or the
 * table's runs_as for it; LS_METHOD_AUTO when it runs neither.
 */
LS_METHODS_API ls_method ls_methods_resolve(const ls_method_support *list, size_t count,
                                            ls_method m);

/**
 * 0 when the declaration covers (m, p); else LS_EUNSUPPORTED with a message
 * naming the backend and what it runs.
 */
LS_METHODS_API int ls_methods_check(const char *backend, const ls_method_support *list,
                                    size_t count, ls_method m, ls_precision p, char *err,
                                    size_t errlen);

/** The declared methods, space-separated, each followed by the methods
 *  that run as it ("... ge-coalesced ge ..."). */
LS_METHODS_API void ls_methods_list(const ls_method_support *list, size_t count, char *buf,
                                    size_t len);

#ifdef __cplusplus
}
#endif
#endif
