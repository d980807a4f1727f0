/* The planner's table of paths (plan.h). "auto" takes the first row whose
 * fit test accepts the problem, so the order is the preference: sparse
 * before dense, the mixed solver when it was asked for, one batched call
 * for a stack before a loop of single solves. A method named by the caller
 * that is a path's name runs that path or fails with its reason. */
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/plan/plan.h"

/* The reason, written only when the caller asked for it (why not NULL):
 * "auto" tries rows without formatting text it would throw away. */
#define SAY(...) (why ? (void)snprintf(why, len, __VA_ARGS__) : (void)0)

static int is_stack(const ls_plan *pl)
{
    return pl->p->shape == LS_SHAPE_STACK;
}

static const char *where(const ls_plan *pl)
{
    return pl->p->memory == LS_MEMORY_DEVICE ? "device memory" : "host memory";
}

static int fits_sparse_direct(const ls_plan *pl, char *why, size_t len)
{
    if (pl->p->shape != LS_SHAPE_CSR) {
        SAY("sparse-direct needs a sparse (CSR) matrix");
        return 0;
    }
    if (pl->iter_named)
        return 0;
    if (pl->sparse_auto && !pl->sparse_direct) { /* auto's rule said Krylov */
        SAY("%s", pl->sparse_why);
        return 0;
    }
    if (!ls_csr_direct_available_ctx(pl->ctx)) {
        SAY("no sparse direct solver on %s (UMFPACK on the CPU, cuDSS on CUDA, "
                 "when built with them)", ls_backend_name(ls_context_backend(pl->ctx)));
        return 0;
    }
    if (pl->sparse_auto)
        SAY("%s", pl->sparse_why);
    else
        SAY("sparse A (%lld entries): sparse LU with a fill-reducing ordering, "
                 "as asked", (long long)pl->p->csr->nnz);
    return 1;
}

static int fits_sparse_krylov(const ls_plan *pl, char *why, size_t len)
{
    if (pl->p->shape != LS_SHAPE_CSR) {
        SAY("sparse-krylov needs a sparse (CSR) matrix");
        return 0;
    }
    if (pl->direct_named)
        return 0;
    if (pl->sparse_auto)
        SAY("%s", pl->sparse_why);
    else if (pl->iter_named)
        SAY("sparse A: %s, as asked", pl->method);
    else
        SAY("sparse A: %s, as asked", pl->sparse_spd ? "CG (A symmetric, "
                 "positive diagonal)" : "GMRES (A not symmetric with a positive diagonal)");
    return 1;
}

static int fits_mixed(const ls_plan *pl, char *why, size_t len)
{
    if (!pl->mixed || pl->p->shape == LS_SHAPE_CSR || pl->dense_named) {
        SAY("mixed needs precision policy mixed on dense FP64 data, method auto");
        return 0;
    }
    SAY("policy mixed: low-precision LU refined in FP64 to an FP64 answer "
             "(LAPACK's dsgesv idea)%s", is_stack(pl) ? ", system by system" : "");
    return 1;
}

static int fits_batched(const ls_plan *pl, char *why, size_t len)
{
    ls_backend_kind b = ls_context_backend(pl->ctx);
    if (!is_stack(pl) || pl->mixed) {
        SAY("batched needs a stack of systems");
        return 0;
    }
    if (pl->dense_named && pl->opt.method != LS_METHOD_LU) {
        SAY("batched runs LU with partial pivoting only");
        return 0;
    }
    const ls_batched_role *role = pl->ctx && pl->ctx->iface ? pl->ctx->iface->batched : NULL;
    if (b != LS_BACKEND_CPU && !role) {
        SAY("no batched kernels on %s", ls_backend_name(b));
        return 0;
    }
    /* asked for by name, it runs at any order */
    if (role && role->max_n && pl->p->n > role->max_n && strcmp(pl->method, "batched") != 0) {
        SAY("above n = %d a loop of single solves on %s is faster than its batched kernels",
            role->max_n, ls_backend_name(b));
        return 0;
    }
    if (pl->p->dtype == LS_FLOAT64 ? pl->prec != LS_DOUBLE : pl->prec != LS_SINGLE) {
        SAY("batched works in the data's own precision");
        return 0;
    }
    if (pl->opt.pivot != LS_PIVOT_PARTIAL) {
        SAY("batched pivots partially");
        return 0;
    }
    SAY("a stack of %d systems of order %d in %s: one batched LU call",
             pl->p->batch, pl->p->n, where(pl));
    return 1;
}

static int fits_stack_loop(const ls_plan *pl, char *why, size_t len)
{
    if (!is_stack(pl)) {
        SAY("stack-loop needs a stack of systems");
        return 0;
    }
    if (pl->p->memory == LS_MEMORY_DEVICE) {
        SAY("a stack in device memory is solved by the batched path only");
        return 0;
    }
    SAY("a stack of %d systems, each by method %s", pl->p->batch,
             ls_method_name(pl->opt.method));
    return 1;
}

static int fits_dense(const ls_plan *pl, char *why, size_t len)
{
    if (pl->p->shape != LS_SHAPE_DENSE || pl->mixed) {
        SAY("dense solves one system at a time");
        return 0;
    }
    if (pl->p->memory == LS_MEMORY_DEVICE && pl->dense_named &&
        pl->opt.method != LS_METHOD_LU) {
        SAY("in device memory only lu runs (the MAGMA-shaped routines)");
        return 0;
    }
    SAY("one dense system of order %d in %s: %s", pl->p->n, where(pl),
             pl->dense_named ? ls_method_name(pl->opt.method) : "the backend's best method");
    return 1;
}

const ls_path ls_paths[] = {
    {"sparse-direct", "sparse LU: UMFPACK on the CPU, NVIDIA cuDSS on CUDA", fits_sparse_direct,
     ls_plan_run_sparse_direct},
    {"sparse-krylov", "preconditioned Krylov on CSR: BiCGStab, GMRES(m) or CG with ILU(0)",
     fits_sparse_krylov, ls_plan_run_sparse_krylov},
    {"mixed", "low-precision LU with FP64 refinement and FP64 fallback (ls_dsgesv)", fits_mixed,
     ls_plan_run_mixed},
    {"batched", "a stack of systems in one call of the batched LU (ls_?gesv_batched)",
     fits_batched, ls_plan_run_batched},
    {"stack-loop", "a stack of systems solved one by one with a named dense method",
     fits_stack_loop, ls_plan_run_stack_loop},
    {"dense", "one dense system: ls_solve's methods (host), ls_?gesv_gpu (device)", fits_dense,
     ls_plan_run_dense},
};
const int ls_path_total = (int)(sizeof ls_paths / sizeof ls_paths[0]);
