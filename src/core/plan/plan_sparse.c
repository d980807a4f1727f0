/* The planner's sparse paths: "sparse-direct" (ls_csr_solve_direct_ctx:
 * UMFPACK or cuDSS) and "sparse-krylov" (ls_csr_solve_iter_ctx, one
 * right-hand side at a time), and method auto's rule (docs/sparse.md):
 *
 *  - CPU: the sparse LU when UMFPACK's symbolic analysis estimates a peak
 *    memory and a flop count within budget (ls_sparse_opts), else a Krylov
 *    method in O(nnz) memory: CG with ILU(0) (= IC(0)) when A is symmetric
 *    with a positive diagonal, GMRES(30) with ILU(0) on the equilibrated
 *    system otherwise;
 *  - CUDA: cuDSS below n = 1e5; from there CG with Jacobi (symmetric A) or
 *    BiCGStab with Jacobi first, cuDSS should the Krylov methods fail; an
 *    inaccurate or singular cuDSS answer is redone by UMFPACK on the host;
 *  - retries: CG that breaks down (A not positive definite after all) by
 *    GMRES, GMRES with ILU(0) that does not converge with ILUT, a sparse
 *    LU out of memory by the Krylov method.
 * Each decision and retry is said in the report's why. B is host FP64; X
 * replaces it (the last iterate when a Krylov method does not converge). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/plan/plan.h"
#include "core/util.h"

/* Auto's default budget for the sparse LU's work: UMFPACK ran at 0.7 - 1.3
 * GFLOP/s on two shared cores (2-D Poisson n = 10^5 and 10^6,
 * docs/sparse.md), so 5e10 flop is under a minute; beyond that CG with
 * IC(0) was as fast or faster at a fraction of the memory. */
#define AUTO_FLOPS_DEFAULT 5e10
/* From this order on, auto on a GPU starts with Jacobi: IC(0)'s triangular
 * solves go level by level there, one grid diagonal at a time, and
 * Jacobi's many more but parallel iterations win
 * (bench/results/h100/sparse.csv). */
#define GPU_JACOBI_MIN_N 100000

static const char *pc_word[] = {"no preconditioner", "Jacobi", "ILU(0)", "ILUT"};

/* Exactly symmetric with a positive diagonal: CG's candidates (positive
 * definiteness itself shows only in CG, as a breakdown). O(nnz log row). */
static int spd_candidate(const ls_csr *A)
{
    for (int64_t i = 0; i < A->n_rows; i++) {
        int diag = 0;
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1]; p++) {
            int64_t j = A->col_idx[p];
            if (j == i) {
                diag = A->val[p] > 0;
                continue;
            }
            int64_t lo = A->row_ptr[j], hi = A->row_ptr[j + 1] - 1, hit = -1;
            while (lo <= hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (A->col_idx[mid] == i) {
                    hit = mid;
                    break;
                }
                if (A->col_idx[mid] < i)
                    lo = mid + 1;
                else
                    hi = mid - 1;
            }
            if (hit < 0 || A->val[hit] != A->val[p])
                return 0;
        }
        if (!diag)
            return 0;
    }
    return 1;
}

static int on_gpu(const ls_plan *pl)
{
    return ls_context_backend(pl->ctx) == LS_BACKEND_CUDA;
}

static int fixed_precond(const ls_plan *pl)
{
    return pl->p->iter && pl->p->sparse && pl->p->sparse->fixed_precond;
}

/* The Krylov settings a run starts from: the caller's, or GMRES(30) with
 * ILU(0) on the equilibrated system and ls_options' tolerance and cap. */
static ls_iter_options base_iter(const ls_plan *pl)
{
    ls_iter_options o;
    if (pl->p->iter) {
        o = *pl->p->iter;
    } else {
        ls_iter_options_init(&o);
        o.method = LS_ITER_GMRES;
        o.precond = LS_PRECOND_ILU0;
        o.equilibrate = 1;
        o.rtol = pl->opt.rtol;
        if (pl->opt.max_iter > 0)
            o.max_iter = pl->opt.max_iter;
    }
    if (pl->iter_named)
        o.method = pl->iter;
    if (pl->sparse_auto && !fixed_precond(pl))
        o.precond = LS_PRECOND_ILU0;
    return o;
}

int ls_plan_sparse_decide(ls_plan *pl)
{
    const ls_csr *A = pl->p->csr;
    const ls_sparse_opts *so = pl->p->sparse;
    double t0 = ls_now();
    pl->sparse_auto = !strcmp(pl->method, "auto");
    pl->sparse_spd = spd_candidate(A);
    pl->sparse_direct = 0;
    if (!pl->sparse_auto)
        return 0; /* "sparse-krylov" by name: CG or GMRES only */
    const int spd = pl->sparse_spd;
    const ls_iter_options o = base_iter(pl);
    char krylov[120];
    snprintf(krylov, sizeof krylov, "%s with %s (A %s)", spd ? "CG" : "GMRES",
             pc_word[o.precond],
             spd ? "symmetric, positive diagonal" : "not symmetric with a positive diagonal");
    char *why = pl->sparse_why;
    size_t len = sizeof pl->sparse_why;
    const int have_direct = ls_csr_direct_available_ctx(pl->ctx);
    if (on_gpu(pl)) {
        if (have_direct && A->n_rows < GPU_JACOBI_MIN_N) {
            snprintf(why, len, "n < %d: cuDSS sparse LU on the device", GPU_JACOBI_MIN_N);
            pl->sparse_direct = 1;
        } else if (have_direct) {
            snprintf(why, len, "n >= %d: %s first, cuDSS should it fail", GPU_JACOBI_MIN_N,
                     spd ? "CG with Jacobi" : "BiCGStab with Jacobi");
        } else {
            snprintf(why, len, "the cuda backend has no sparse direct solver (built without "
                     "cuDSS): %s", krylov);
        }
    } else if (!have_direct) {
        ls_backend_kind bk = ls_context_backend(pl->ctx);
        snprintf(why, len, "no sparse direct solver on %s%s: %s", ls_backend_name(bk),
                 bk == LS_BACKEND_CPU ? " (built without UMFPACK)" : "", krylov);
    } else {
        double mem = so && so->direct_memory > 0 ? so->direct_memory : 0.5 * ls_host_memory_bytes();
        double flops = so && so->direct_flops > 0 ? so->direct_flops : AUTO_FLOPS_DEFAULT;
        if (!(mem > 0))
            mem = 4.0 * 1073741824.0; /* physical memory unknown: half of 8 GiB */
        ls_csr_direct_cost c;
        char err[256] = "";
        if (ls_csr_direct_estimate(A, &c, err, sizeof err) != 0) {
            snprintf(why, len, "no LU estimate (%s): %s", err, krylov);
        } else {
            pl->sparse_direct = c.peak_bytes <= mem && c.flops <= flops;
            snprintf(why, len,
                     "UMFPACK estimates peak %.3g GiB (budget %.3g GiB), %.3g flop (budget "
                     "%.3g), nnz(L+U) %.3g, analysis %.2g s: %s",
                     c.peak_bytes / 1073741824.0, mem / 1073741824.0, c.flops, flops, c.nnz_lu,
                     c.t_analysis, pl->sparse_direct ? "direct" : krylov);
        }
    }
    if (pl->p->sparse_result)
        pl->p->sparse_result->t_choose = ls_now() - t0;
    return 0;
}

/* B, X and what the runs share. */
typedef struct sparse_run {
    ls_plan *pl;
    double *b;    /* B, column-major with ld n (B itself or a copy) */
    double *x;    /* X, n x nrhs */
    int copied;   /* b is a copy of B */
    int its;      /* iterations over every run */
    int direct;   /* the last run was the sparse LU */
    char method[96];
} sparse_run;

static void describe(char *out, size_t len, const ls_iter_options *o)
{
    static const char *pc[] = {"none", "jacobi", "ilu0", "ilut"};
    static const char *names[] = {"bicgstab", "gmres", "cg"};
    static const char *perm[] = {"", ", permute mc64", ", permute maxtrans", ", permute none"};
    snprintf(out, len, "%s, precond %s%s%s", names[o->method], pc[o->precond],
             o->equilibrate ? ", equilibrated" : "", perm[o->permute]);
}

/* Every column of B by ls_csr_solve_iter_ctx with o, from x = 0. */
static int krylov_all(sparse_run *s, const ls_iter_options *o, int *its)
{
    ls_plan *pl = s->pl;
    const ls_problem *p = pl->p;
    size_t n = (size_t)p->n;
    int st = 0;
    *its = 0;
    describe(s->method, sizeof s->method, o);
    memset(s->x, 0, sizeof(double) * n * (size_t)p->nrhs);
    for (int j = 0; j < p->nrhs && !st; j++) {
        ls_iter_report r;
        memset(&r, 0, sizeof r);
        char err[256] = "";
        st = ls_csr_solve_iter_ctx(pl->ctx, p->csr, s->b + j * n, s->x + j * n, o, &r, err,
                                   sizeof err);
        *its += r.iterations;
        const char *text = err[0] ? err : r.message;
        if (st && p->nrhs > 1)
            snprintf(pl->rep->message, sizeof pl->rep->message,
                     "right-hand side %d: %s (%d iterations)", j + 1, text, r.iterations);
        else
            snprintf(pl->rep->message, sizeof pl->rep->message, "%s (%d iterations)", text,
                     r.iterations);
    }
    s->direct = 0;
    if (p->sparse_result) {
        p->sparse_result->direct = 0;
        p->sparse_result->iter = *o;
    }
    s->its += *its;
    return st;
}

static int gave_up(int st)
{
    return st == LS_NOT_CONVERGED || st == LS_BREAKDOWN;
}

/* The sparse LU on the plan's backend; under auto an inaccurate or
 * singular cuDSS answer is redone by UMFPACK's threshold partial pivoting
 * on the host (cuDSS's own retries -- matching, then row pivoting -- did
 * not reach the scaled residual either). */
static int direct(sparse_run *s)
{
    ls_plan *pl = s->pl;
    const ls_problem *p = pl->p;
    ls_csr_direct_report r;
    memset(&r, 0, sizeof r);
    char err[256] = "";
    const int gpu = on_gpu(pl);
    snprintf(s->method, sizeof s->method, "direct (%s sparse LU)", gpu ? "cuDSS" : "UMFPACK");
    int st = ls_csr_solve_direct_ctx(pl->ctx, p->csr, p->nrhs, s->b, p->n, s->x, p->n, &r, err,
                                     sizeof err);
    if (gpu && pl->sparse_auto && (st == LS_INACCURATE || ls_plan_is_singular(st)) &&
        ls_csr_direct_available()) {
        ls_plan_more(pl, "cuDSS: %s, UMFPACK on the host instead", ls_status_name(st));
        err[0] = 0;
        st = ls_csr_solve_direct(p->csr, p->nrhs, s->b, p->n, s->x, p->n, &r, err, sizeof err);
        snprintf(s->method, sizeof s->method, "direct (UMFPACK sparse LU, after cuDSS)");
    }
    pl->rep->t_factor = r.t_factor;
    pl->rep->t_solve = r.t_solve;
    pl->rep->residual = r.residual;
    snprintf(pl->rep->message, sizeof pl->rep->message, "%s", st && err[0] ? err : r.message);
    if (ls_plan_is_singular(st))
        pl->rep->info = st;
    s->direct = 1;
    if (p->sparse_result)
        p->sparse_result->direct = 1;
    return st;
}

/* Raise a cap to c sqrt(n): CG's iterations grow like sqrt(cond), ~ sqrt(n)
 * for a 2-D grid (IC(0): 895 at n = 10^6), past the default of 2000. */
static void raise_cap(const ls_plan *pl, ls_iter_options *o, double c)
{
    if (!(pl->p->sparse && pl->p->sparse->fixed_max_iter))
        o->max_iter = (int)fmax(o->max_iter, fmin(1e8, c * sqrt((double)pl->p->n)));
}

/* The Krylov stage with auto's first choices and retries. */
static int krylov(sparse_run *s, int direct_after)
{
    ls_plan *pl = s->pl;
    const int autom = pl->sparse_auto, spd = pl->sparse_spd, gpu = on_gpu(pl);
    const int big_gpu = autom && gpu && !fixed_precond(pl) && pl->p->n >= GPU_JACOBI_MIN_N;
    ls_iter_options o = base_iter(pl);
    int its = 0, st;
    if (autom || !strcmp(pl->method, "sparse-krylov"))
        o.method = spd ? LS_ITER_CG : LS_ITER_GMRES;
    if (autom && spd)
        raise_cap(pl, &o, 4.0);
    if (big_gpu && spd) {
        o.precond = LS_PRECOND_JACOBI;
        raise_cap(pl, &o, 10.0);
    }
    if (big_gpu && !spd) {
        /* convection-diffusion n = 10^6 on the H100: BiCGStab with Jacobi
         * 1.1 s, GMRES with ILU(0) 14 s */
        ls_iter_options j = o;
        j.method = LS_ITER_BICGSTAB;
        j.precond = LS_PRECOND_JACOBI;
        raise_cap(pl, &j, 10.0);
        st = krylov_all(s, &j, &its);
        if (st == 0)
            return 0;
        ls_plan_more(pl, "BiCGStab with Jacobi: %s after %d iterations, GMRES with ILU(0) instead",
                     ls_status_name(st), its);
    }
    st = krylov_all(s, &o, &its);
    if (autom && st == LS_BREAKDOWN && o.method == LS_ITER_CG) {
        /* not positive definite after all: GMRES from scratch */
        char first[96];
        snprintf(first, sizeof first, "%s", s->method);
        o = base_iter(pl);
        o.method = LS_ITER_GMRES;
        st = krylov_all(s, &o, &its);
        ls_plan_more(pl, "%s broke down, GMRES instead", first);
    }
    if (autom && gave_up(st) && o.method == LS_ITER_GMRES && o.precond == LS_PRECOND_ILU0 &&
        !fixed_precond(pl)) {
        /* ILU(0) too weak (circuit matrices such as rajat19): ILUT's fill,
         * still O(nnz + n fill), from scratch */
        ls_plan_more(pl, "%s: %s after %d iterations, ILUT instead", s->method,
                     ls_status_name(st), its);
        o.precond = LS_PRECOND_ILUT;
        st = krylov_all(s, &o, &its);
    }
    if (autom && direct_after && gave_up(st) && gpu && ls_csr_direct_available_ctx(pl->ctx)) {
        /* the Krylov methods gave up: the sparse LU, at whatever it costs */
        ls_plan_more(pl, "%s: %s, cuDSS instead", s->method, ls_status_name(st));
        pl->ran = "sparse-direct";
        st = direct(s);
    }
    return st;
}

static int run(ls_plan *pl, int start_direct)
{
    ls_problem *p = pl->p;
    size_t nk = (size_t)p->n * (size_t)p->nrhs;
    sparse_run s;
    memset(&s, 0, sizeof s);
    s.pl = pl;
    /* B as a column-major block with leading dimension n (row-major B is
     * copied; column-major B is used in place) */
    s.copied = p->layout != LS_COL_MAJOR || p->ldb != p->n;
    s.b = s.copied ? ls_malloc(sizeof(double) * nk) : p->B;
    s.x = ls_malloc(sizeof(double) * nk);
    if (!s.b || !s.x) {
        free(s.x);
        if (s.copied)
            free(s.b);
        return ls_plan_fail(pl, LS_ENOMEM, "out of memory for X (n = %d)", p->n);
    }
    if (s.copied)
        ls_plan_load(p, 0, 'B', s.b);
    double t0 = ls_now();
    int st;
    if (start_direct) {
        st = direct(&s);
        if (pl->sparse_auto && (st == LS_ENOMEM || st == LS_EDEVMEM)) {
            /* the estimate was wrong, or memory is taken: O(nnz) instead */
            ls_plan_more(pl, "%s ran out of memory, a Krylov method instead",
                         on_gpu(pl) ? "cuDSS" : "UMFPACK");
            pl->ran = "sparse-krylov";
            pl->rep->residual = NAN;
            st = krylov(&s, 0);
        }
    } else {
        st = krylov(&s, 1);
    }
    pl->rep->t_total = ls_now() - t0;
    if (!(pl->rep->t_factor + pl->rep->t_solve > 0))
        pl->rep->t_solve = pl->rep->t_total;
    pl->rep->iterations = s.its;
    if (!s.direct)
        pl->rep->residual = st ? NAN : ls_csr_scaled_residual(p->csr, p->nrhs, s.b, p->n, s.x, p->n);
    if (p->sparse_result)
        snprintf(p->sparse_result->method, sizeof p->sparse_result->method, "%s", s.method);
    /* X whenever one was computed: the last iterate too */
    if (st == 0 || st == LS_INACCURATE || gave_up(st)) {
        memcpy(s.b, s.x, sizeof(double) * nk);
        if (s.copied)
            ls_plan_store_b(p, 0, s.b);
    }
    free(s.x);
    if (s.copied)
        free(s.b);
    return st;
}

int ls_plan_run_sparse_direct(ls_plan *pl)
{
    return run(pl, 1);
}

int ls_plan_run_sparse_krylov(ls_plan *pl)
{
    return run(pl, 0);
}
