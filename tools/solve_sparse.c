/*
 * `linsolve solve A [B] --storage sparse|auto`: A read straight into CSR and
 * solved there, never densified. --method auto (docs/sparse.md): UMFPACK's
 * sparse LU when its symbolic analysis estimates a peak memory and a flop
 * count within budget (--auto-memory, --auto-flops), else a preconditioned
 * Krylov method in O(nnz) memory: CG with ILU(0) (= IC(0)) when A is
 * symmetric with a positive diagonal, GMRES(30) with ILU(0) on the
 * equilibrated system otherwise or when CG breaks down (and with ILUT when
 * that does not converge). direct | bicgstab | gmres | cg pick one,
 * --precond none | jacobi | ilu0 | ilut the Krylov preconditioner
 * (--ilut-tol, --ilut-fill), --permute auto | mc64 | maxtrans | none the
 * permutation to a usable diagonal before it. --storage auto (the default)
 * takes this path for the coordinate files solve_input.c's rule picks, and
 * the report says why.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "solve_input.h"
#include "solve_sparse.h"


/* --method auto's default budget for the direct solver's work: UMFPACK ran
 * at 0.7 - 1.3 GFLOP/s on two shared cores (2-D Poisson n = 10^5 and 10^6,
 * docs/sparse.md), so 5e10 flop is under a minute; beyond that CG with
 * IC(0) was as fast or faster at a fraction of the memory. */
#define AUTO_FLOPS_DEFAULT 5e10
/* From this order on, --method auto on a GPU starts with Jacobi (see there). */
#define GPU_JACOBI_MIN_N 100000


static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int exit_of(int st)
{
    if (st == 0)
        return LS_EXIT_OK;
    if (st == LS_ENOMEM || st == LS_EDEVMEM || st == LS_EDEVICE || st == LS_EUNAVAIL ||
        st == LS_EUNSUPPORTED)
        return LS_EXIT_UNAVAILABLE; /* this machine or build cannot, not the input */
    if (st == LS_NOT_CONVERGED || st == LS_BREAKDOWN || st == LS_INACCURATE)
        return LS_EXIT_INACCURATE;
    if (st > 0)
        return LS_EXIT_SINGULAR;
    return LS_EXIT_INPUT;
}

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

static double physical_memory(void)
{
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        return (double)pages * (double)page;
#endif
    return 8.0 * 1073741824.0;
}

/* --method auto (docs/sparse.md): the direct solver when UMFPACK's symbolic
 * analysis says its peak memory and its flops fit the budgets, else a
 * Krylov method with ILU(0): CG for a symmetric A with a positive diagonal,
 * GMRES otherwise. The reason, with the numbers, goes to why. */
static int choose_method(const sparse_args *a, const ls_csr *A, char *why, size_t len)
{
    const double mem = a->auto_memory > 0 ? a->auto_memory : 0.5 * physical_memory();
    const double flops = a->auto_flops > 0 ? a->auto_flops : AUTO_FLOPS_DEFAULT;
    static const char *pc[] = {"no preconditioner", "Jacobi", "ILU(0)", "ILUT"};
    const int spd = spd_candidate(A);
    char krylov[120];
    snprintf(krylov, sizeof krylov, "%s with %s (A %s)", spd ? "CG" : "GMRES",
             pc[a->iter.precond],
             spd ? "symmetric, positive diagonal" : "not symmetric with a positive diagonal");
    if (a->ctx) { /* a GPU: its direct solver when it has one, else Krylov */
        if (ls_csr_direct_available_ctx(a->ctx) && A->n_rows < GPU_JACOBI_MIN_N) {
            snprintf(why, len, "n < %d: cuDSS sparse LU on the device", GPU_JACOBI_MIN_N);
            return SM_DIRECT;
        }
        if (ls_csr_direct_available_ctx(a->ctx)) {
            snprintf(why, len, "n >= %d: %s first, cuDSS should it fail", GPU_JACOBI_MIN_N,
                     spd ? "CG with Jacobi" : "BiCGStab with Jacobi");
            return spd ? SM_CG : SM_GMRES;
        }
        snprintf(why, len, "the %s backend has no sparse direct solver (built without cuDSS): %s",
                 ls_backend_name(a->backend), krylov);
        return spd ? SM_CG : SM_GMRES;
    }
    if (!ls_csr_direct_available()) {
        snprintf(why, len, "built without UMFPACK: %s", krylov);
        return spd ? SM_CG : SM_GMRES;
    }
    ls_csr_direct_cost c;
    char err[256] = "";
    int st = ls_csr_direct_estimate(A, &c, err, sizeof err);
    if (st != 0) {
        snprintf(why, len, "no LU estimate (%s): %s", err, krylov);
        return spd ? SM_CG : SM_GMRES;
    }
    const int fits = c.peak_bytes <= mem && c.flops <= flops;
    snprintf(why, len,
             "UMFPACK estimates peak %.3g GiB (budget %.3g GiB), %.3g flop (budget %.3g), "
             "nnz(L+U) %.3g, analysis %.2g s: %s",
             c.peak_bytes / 1073741824.0, mem / 1073741824.0, c.flops, flops, c.nnz_lu,
             c.t_analysis, fits ? "direct" : krylov);
    return fits ? SM_DIRECT : spd ? SM_CG : SM_GMRES;
}

/* Every column of B by ls_csr_solve_iter with o; describes the method. */
static int solve_iter(ls_context *ctx, const ls_csr *A, int nrhs, const double *B, double *X,
                      ls_iter_options *o, int is_auto, char *method, size_t mlen, char *msg,
                      size_t msglen, int *its)
{
    static const char *pc[] = {"none", "jacobi", "ilu0", "ilut"};
    static const char *names[] = {"bicgstab", "gmres", "cg"};
    static const char *perm[] = {"", ", permute mc64", ", permute maxtrans", ", permute none"};
    const int64_t n = A->n_rows;
    snprintf(method, mlen, "%s, precond %s%s%s%s", names[o->method], pc[o->precond],
             o->equilibrate ? ", equilibrated" : "", perm[o->permute], is_auto ? ", auto" : "");
    ls_iter_report rep;
    int st = 0;
    *its = 0;
    for (int j = 0; j < nrhs && st == 0; j++) {
        st = ls_csr_solve_iter_ctx(ctx, A, B + (size_t)j * (size_t)n, X + (size_t)j * (size_t)n,
                                   o, &rep, NULL, 0);
        *its += rep.iterations;
        snprintf(msg, msglen, "%s (%d iterations)", rep.message, rep.iterations);
    }
    return st;
}

/* The sparse LU on a's backend (cuDSS on a GPU, UMFPACK on the CPU); under
 * auto an inaccurate or singular cuDSS answer is redone by UMFPACK. */
static int run_direct(const sparse_args *a, const ls_csr *Ap, int nrhs, const double *B,
                      double *X, char *method, size_t mlen, char *msg, size_t msglen,
                      char *auto_why, size_t wlen)
{
    const ls_csr A = *Ap;
    const int64_t n = A.n_rows;
    ls_csr_direct_report rep;
    snprintf(method, mlen, "direct (%s sparse LU)%s", a->ctx ? "cuDSS" : "UMFPACK",
             a->method == SM_AUTO ? ", auto" : "");
    int st = ls_csr_solve_direct_ctx(a->ctx, &A, nrhs, B, n, X, n, &rep, NULL, 0);
    snprintf(msg, msglen, "%s", rep.message);
    if (a->ctx && a->method == SM_AUTO && (st == LS_INACCURATE || st > 0) &&
        ls_csr_direct_available()) {
        /* cuDSS's own retries (matching, then row pivoting: sparse_direct.c)
         * did not reach the scaled residual either, or it found A singular:
         * UMFPACK's threshold partial pivoting on the host decides, and the
         * auto line says so. */
        size_t used = strlen(auto_why);
        snprintf(auto_why + used, wlen - used, "; cuDSS: %s, UMFPACK on the host instead",
                 ls_status_name(st));
        st = ls_csr_solve_direct(&A, nrhs, B, n, X, n, &rep, NULL, 0);
        snprintf(msg, msglen, "%s", rep.message);
        snprintf(method, mlen, "direct (UMFPACK sparse LU, after cuDSS), auto");
    }
    return st;
}

/* A failure before any answer: the message on stderr as users read it (no
 * source locations unless --verbose), and with --json an object too. */
static int sparse_fail(const sparse_args *a, const char *why, int st, int code, const char *msg)
{
    char plain[640];
    const char *text = ls_cli_message(msg, plain, sizeof plain);
    fprintf(stderr, "linsolve: %s\n", text);
    if (a->json) {
        ls_cli_outcome oc = ls_cli_outcome_of(st, code == LS_EXIT_INPUT);
        printf("{\"status\": ");
        ls_cli_json_string(stdout, oc.status);
        printf(", \"exit_code\": %d, \"storage\": \"sparse\", \"format\": \"sparse\", "
               "\"storage_reason\": ", code);
        ls_cli_json_string(stdout, why);
        printf(", \"library_status\": ");
        ls_cli_json_string(stdout, ls_status_name(st));
        printf(", \"message\": ");
        ls_cli_json_string(stdout, text);
        printf(", \"ok\": false}\n");
    }
    return code;
}

/* A read by ls_csr_read_mm, B by ls_matrix_read (or b = A * ones). */
static int read_sparse(const sparse_args *a, const char *why, ls_csr *A, ls_matrix *Bm)
{
    char err[512] = "";
    /* an empty row or column: singular, said before the CSR rows exist */
    int st = ls_csr_read_for_solve(solve_input_path(a->ain), A, err, sizeof err);
    if (st) {
        solve_input_rename(a->ain, err, sizeof err);
        return sparse_fail(a, why, st, st > 0 ? LS_EXIT_SINGULAR
                                       : st == LS_ENOMEM ? LS_EXIT_UNAVAILABLE : LS_EXIT_INPUT,
                           err);
    }
    const int64_t n = A->n_rows;
    if (A->n_rows != A->n_cols || n < 1) {
        snprintf(err, sizeof err, "%s: matrix is %lld x %lld; a square system is needed",
                 a->ain->name, (long long)A->n_rows, (long long)A->n_cols);
        return sparse_fail(a, why, LS_ESIZE, LS_EXIT_INPUT, err);
    }
    if (!a->bin)
        return 0;
    if ((st = ls_matrix_read(solve_input_path(a->bin), Bm, err, sizeof err)) != 0) {
        solve_input_rename(a->bin, err, sizeof err);
        return sparse_fail(a, why, st, st == LS_ENOMEM ? LS_EXIT_UNAVAILABLE : LS_EXIT_INPUT,
                           err);
    }
    if (Bm->rows != n || Bm->cols < 1) {
        snprintf(err, sizeof err, "%s: right-hand side is %d x %d; A is %lld x %lld, so B needs "
                                  "%lld rows",
                 a->bin->name, Bm->rows, Bm->cols, (long long)n, (long long)n, (long long)n);
        return sparse_fail(a, why, LS_ESIZE, LS_EXIT_INPUT, err);
    }
    return 0;
}

static int run_sparse(const sparse_args *a, const char *why)
{
    char err[512] = "", msg[512] = "", method[96] = "", auto_why[400] = "";
    int its = -1;
    ls_csr A;
    ls_matrix Bm;
    memset(&A, 0, sizeof A);
    memset(&Bm, 0, sizeof Bm);
    double *B = NULL, *X = NULL, t0 = wall(), t_read, t_solve = 0, res = NAN, ferr = NAN;
    int nrhs = 1, st = 0, code = read_sparse(a, why, &A, &Bm);
    t_read = wall() - t0;
    if (code) {
        ls_matrix_free(&Bm);
        ls_csr_free(&A);
        return code;
    }
    int64_t n = A.n_rows;
    if (a->b_path) {
        B = Bm.data;
        nrhs = Bm.cols;
    } else if ((B = calloc((size_t)n, sizeof(double)))) {
        for (int64_t i = 0; i < n; i++)
            for (int64_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; p++)
                B[i] += A.val[p];
    }
    X = calloc((size_t)n * (size_t)nrhs, sizeof(double));
    if (!B || !X) {
        snprintf(msg, sizeof msg, "out of memory for B and X (n = %lld)", (long long)n);
        code = sparse_fail(a, why, LS_ENOMEM, LS_EXIT_UNAVAILABLE, msg);
        goto done;
    }
    int sm = a->method;
    double t_choose = 0;
    t0 = wall();
    if (sm == SM_AUTO)
        sm = choose_method(a, &A, auto_why, sizeof auto_why);
    t_choose = wall() - t0;
    if (sm == SM_DIRECT) {
        st = run_direct(a, &A, nrhs, B, X, method, sizeof method, msg, sizeof msg, auto_why,
                        sizeof auto_why);
        if ((st == LS_ENOMEM || st == LS_EDEVMEM) && a->method == SM_AUTO) {
            /* the estimate was wrong, or memory is taken: O(nnz) instead */
            size_t used = strlen(auto_why);
            snprintf(auto_why + used, sizeof auto_why - used,
                     "; %s ran out of memory, a Krylov method instead",
                     a->ctx ? "cuDSS" : "UMFPACK");
            sm = spd_candidate(&A) ? SM_CG : SM_GMRES;
            memset(X, 0, sizeof(double) * (size_t)n * (size_t)nrhs);
        }
    }
    if (sm != SM_DIRECT) {
        ls_iter_options o = a->iter;
        /* CG's iterations grow like sqrt(cond), ~ sqrt(n) for a 2-D grid
         * (IC(0): 895 at n = 10^6): the default cap would stop it there. */
        if (a->method == SM_AUTO && sm == SM_CG && !a->max_iter_seen)
            o.max_iter = (int)fmax(o.max_iter, fmin(1e8, 4.0 * sqrt((double)n)));
        /* On a GPU IC(0)'s triangular solves go level by level, one grid
         * diagonal at a time: Jacobi's many more but parallel iterations win
         * (bench/results/h100/sparse.csv). */
        if (a->method == SM_AUTO && sm == SM_CG && a->ctx && !a->precond_seen &&
            n >= GPU_JACOBI_MIN_N) {
            o.precond = LS_PRECOND_JACOBI;
            if (!a->max_iter_seen)
                o.max_iter = (int)fmax(o.max_iter, fmin(1e8, 10.0 * sqrt((double)n)));
        }
        o.method = sm == SM_BICGSTAB ? LS_ITER_BICGSTAB : sm == SM_CG ? LS_ITER_CG : LS_ITER_GMRES;
        /* Likewise for a large non-symmetric A on a GPU: BiCGStab with
         * Jacobi first (convection-diffusion n = 10^6 on the H100: 1.1 s,
         * GMRES with ILU(0) 14 s), GMRES with ILU(0) should it fail. */
        if (a->method == SM_AUTO && sm == SM_GMRES && a->ctx && !a->precond_seen &&
            n >= GPU_JACOBI_MIN_N) {
            o.method = LS_ITER_BICGSTAB;
            o.precond = LS_PRECOND_JACOBI;
            if (!a->max_iter_seen)
                o.max_iter = (int)fmax(o.max_iter, fmin(1e8, 10.0 * sqrt((double)n)));
            st = solve_iter(a->ctx, &A, nrhs, B, X, &o, 1, method, sizeof method, msg,
                            sizeof msg, &its);
            if (st == 0)
                goto solved;
            size_t used = strlen(auto_why);
            snprintf(auto_why + used, sizeof auto_why - used,
                     "; BiCGStab with Jacobi: %s after %d iterations, GMRES with ILU(0) instead",
                     ls_status_name(st), its);
            memset(X, 0, sizeof(double) * (size_t)n * (size_t)nrhs);
            o = a->iter;
            o.method = LS_ITER_GMRES;
        }
        st = solve_iter(a->ctx, &A, nrhs, B, X, &o, a->method == SM_AUTO, method, sizeof method, msg,
                        sizeof msg, &its);
        if (st == LS_BREAKDOWN && sm == SM_CG && a->method == SM_AUTO) {
            /* not positive definite after all: GMRES from scratch */
            memset(X, 0, sizeof(double) * (size_t)n * (size_t)nrhs);
            o = a->iter;
            o.method = LS_ITER_GMRES;
            char first[160];
            snprintf(first, sizeof first, "%s broke down", method);
            st = solve_iter(a->ctx, &A, nrhs, B, X, &o, 1, method, sizeof method, msg, sizeof msg, &its);
            size_t used = strlen(auto_why);
            snprintf(auto_why + used, sizeof auto_why - used, "; %s, GMRES instead", first);
        }
        if ((st == LS_NOT_CONVERGED || st == LS_BREAKDOWN) && a->method == SM_AUTO &&
            o.method == LS_ITER_GMRES && o.precond == LS_PRECOND_ILU0 && !a->precond_seen) {
            /* ILU(0) too weak (circuit matrices such as rajat19): ILUT's
             * fill, still O(nnz + n fill), from scratch */
            memset(X, 0, sizeof(double) * (size_t)n * (size_t)nrhs);
            o.precond = LS_PRECOND_ILUT;
            int its0 = its;
            char first[160];
            snprintf(first, sizeof first, "%s: %s after %d iterations", method, ls_status_name(st),
                     its0);
            st = solve_iter(a->ctx, &A, nrhs, B, X, &o, 1, method, sizeof method, msg, sizeof msg, &its);
            its += its0;
            size_t used = strlen(auto_why);
            snprintf(auto_why + used, sizeof auto_why - used, "; %s, ILUT instead", first);
        }
    }
    if ((st == LS_NOT_CONVERGED || st == LS_BREAKDOWN) && sm != SM_DIRECT &&
        a->method == SM_AUTO && a->ctx && ls_csr_direct_available_ctx(a->ctx)) {
        /* the Krylov methods gave up: the sparse LU, at whatever it costs */
        size_t used = strlen(auto_why);
        snprintf(auto_why + used, sizeof auto_why - used, "; %s: %s, cuDSS instead", method,
                 ls_status_name(st));
        memset(X, 0, sizeof(double) * (size_t)n * (size_t)nrhs);
        st = run_direct(a, &A, nrhs, B, X, method, sizeof method, msg, sizeof msg, auto_why,
                        sizeof auto_why);
    }
solved:
    t_solve = wall() - t0;
    res = ls_csr_scaled_residual(&A, nrhs, B, n, X, n);
    if (!a->b_path) {
        ferr = 0;
        for (int64_t i = 0; i < n; i++)
            ferr = fmax(ferr, fabs(X[i] - 1.0));
    }
    code = exit_of(st);
    if (code == LS_EXIT_OK && !(res <= 30))
        code = LS_EXIT_INACCURATE;
    char plain[512];
    if (code != LS_EXIT_OK)
        fprintf(stderr, "linsolve: %s\n", ls_cli_message(msg, plain, sizeof plain));
    /* X whenever one was computed (the last iterate too, as --help says);
     * not for a singular A (NaN) or a solve that never ran */
    const int computed = st == 0 || st == LS_NOT_CONVERGED || st == LS_BREAKDOWN ||
                         st == LS_INACCURATE;
    if (a->out_path && computed) {
        ls_matrix xm = {(int)n, nrhs, (int)n, X, 0, 0};
        const int to_stdout = ls_cli_is_stream(a->out_path);
        const char *name = to_stdout ? "<stdout>" : a->out_path;
        ls_io_write_opts wo = {ls_cli_output_format(a->out_path, a->format), 0, 0, NULL};
        if (ls_io_write_to(to_stdout ? stdout : NULL, name, &xm, &wo, err, sizeof err) != 0) {
            fprintf(stderr, "linsolve: %s\n", ls_cli_message(err, plain, sizeof plain));
            code = LS_EXIT_INPUT;
        }
    }
    /* with X on standard output the report goes to standard error */
    FILE *out = a->out_path && ls_cli_is_stream(a->out_path) ? stderr : stdout;
    if (a->json) {
        fprintf(out, "{\"storage\": \"sparse\", \"format\": \"sparse\", \"storage_reason\": ");
        ls_cli_json_string(out, why);
        fprintf(out, ", \"format_reason\": ");
        ls_cli_json_string(out, why);
        fprintf(out, ", \"n\": %lld, \"nnz\": %lld, \"nrhs\": %d, \"method\": ",
                (long long)n, (long long)A.nnz, nrhs);
        ls_cli_json_string(out, method);
        fprintf(out, ", \"status\": %d, \"exit_code\": %d, "
               "\"residual\": %.6g, \"forward_error\": %.6g, \"time_read\": %.6g, "
               "\"time_solve\": %.6g, \"time_auto\": %.6g, \"iterations\": %d, "
               "\"backend\": \"%s\", \"auto_reason\": ",
               st, code, isfinite(res) ? res : -1.0, isfinite(ferr) ? ferr : -1.0, t_read,
               t_solve, t_choose, its, ls_backend_name(a->backend));
        ls_cli_json_string(out, auto_why); /* may quote a library message */
        /* the path names of the planner's table (ls_path_name) */
        fprintf(out, ", \"path\": \"%s\", \"why\": ",
                sm == SM_DIRECT ? "sparse-direct" : "sparse-krylov");
        ls_cli_json_string(out, auto_why[0] ? auto_why : "--method, as asked");
        fprintf(out, ", \"message\": ");
        ls_cli_json_string(out, ls_cli_message(msg, plain, sizeof plain));
        fprintf(out, ", \"ok\": %s}\n", code == LS_EXIT_OK ? "true" : "false");
    } else if (!a->quiet || code != LS_EXIT_OK) {
        fprintf(out, "format:     sparse CSR (%s)\n", why);
        fprintf(out, "system:     n = %lld, nnz = %lld, nrhs = %d\n", (long long)n, (long long)A.nnz,
               nrhs);
        fprintf(out, "path:       %s\n", sm == SM_DIRECT ? "sparse-direct" : "sparse-krylov");
        fprintf(out, "method:     %s, %s\n", method,
               a->ctx ? ls_context_device_name(a->ctx) : "cpu");
        if (auto_why[0])
            fprintf(out, "auto:       %s\n", auto_why);
        fprintf(out, "outcome:    %s\n", ls_cli_message(msg, plain, sizeof plain));
        fprintf(out, "time:       read %.3g s, solve %.3g s", t_read, t_solve);
        if (auto_why[0])
            fprintf(out, " (of which auto analysis %.3g s)", t_choose);
        fprintf(out, "\n");
        /* the residual's own verdict; a solve that failed for another reason
         * (not converged to rtol) says so in its outcome line */
        fprintf(out, "residual:   %.3e  ||B-AX||inf/(n||A||inf||X||inf eps) (%s)\n", res,
               code == LS_EXIT_OK ? "ok, limit 30"
               : res <= 30       ? "within the limit 30, but the solve failed: see outcome"
                                 : "FAILED, limit 30");
        if (isfinite(ferr))
            fprintf(out, "fwd error:  %.3e  ||x-1||inf (b = A*ones)\n", ferr);
    }
done:
    free(X);
    if (a->b_path)
        ls_matrix_free(&Bm);
    else
        free(B);
    ls_csr_free(&A);
    return code;
}

int solve_sparse_run(int argc, char **argv, const solve_input *ain, const solve_input *bin,
                     const char *why)
{
    sparse_args a;
    if (solve_sparse_parse(argc, argv, &a) != 0)
        return LS_EXIT_USAGE;
    a.ain = ain;
    a.bin = bin;
    if (a.backend != LS_BACKEND_CPU) {
        int st = ls_context_create(&a.ctx, a.backend, a.device);
        if (st) {
            fprintf(stderr, "linsolve: --backend %s: %s\n", ls_backend_name(a.backend),
                    a.ctx ? ls_context_error(a.ctx) : ls_strerror(st));
            ls_context_destroy(a.ctx);
            return LS_EXIT_UNAVAILABLE;
        }
    }
    int code = run_sparse(&a, why);
    ls_context_destroy(a.ctx);
    return code;
}
