/*
 * `linsolve solve A [B] --storage sparse|auto`: A read straight into CSR and
 * solved there, never densified, through the planner (ls_solve_problem with
 * a CSR problem). --method auto is the planner's rule (core/plan/plan_sparse.c,
 * docs/sparse.md): UMFPACK's sparse LU when its symbolic analysis estimates
 * a peak memory and a flop count within budget (--auto-memory, --auto-flops),
 * else a preconditioned Krylov method in O(nnz) memory: CG with ILU(0)
 * (= IC(0)) when A is symmetric with a positive diagonal, GMRES(30) with
 * ILU(0) on the equilibrated system otherwise or when CG breaks down (and
 * with ILUT when that does not converge). direct | bicgstab | gmres | cg
 * pick one, --precond none | jacobi | ilu0 | ilut the Krylov preconditioner
 * (--ilut-tol, --ilut-fill), --permute auto | mc64 | maxtrans | none the
 * permutation to a usable diagonal before it. --storage auto (the default)
 * takes this path for the coordinate files solve_input.c's rule picks, and
 * the report says why, and why the planner chose its path.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "commands.h"
#include "solve_input.h"
#include "solve_sparse.h"


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
    char err[512] = "", msg[512] = "", method[128] = "", auto_why[512] = "", path[32] = "";
    char plan_why[512] = "";
    double t_choose = 0;
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
    /* the planner (ls_solve_problem) applies --method auto's rule and its
     * retries (docs/sparse.md) and says why; X replaces its copy of B */
    static const char *names[] = {"auto", "direct", "bicgstab", "gmres", "cg"};
    memcpy(X, B, sizeof(double) * (size_t)n * (size_t)nrhs);
    ls_sparse_opts so;
    ls_sparse_opts_init(&so);
    so.direct_memory = a->auto_memory;
    so.direct_flops = a->auto_flops;
    so.fixed_precond = a->precond_seen;
    so.fixed_max_iter = a->max_iter_seen;
    ls_sparse_result sr;
    ls_problem p;
    ls_problem_init(&p);
    p.shape = LS_SHAPE_CSR;
    p.csr = &A;
    p.n = (int)n;
    p.nrhs = nrhs;
    p.B = X;
    p.ldb = (int)n;
    p.method = names[a->method];
    p.iter = &a->iter;
    p.sparse = &so;
    p.sparse_result = &sr;
    ls_report rep;
    t0 = wall();
    st = ls_solve_problem(a->ctx, NULL, &p, &rep);
    t_solve = wall() - t0;
    const int is_auto = a->method == SM_AUTO;
    snprintf(method, sizeof method, "%s%s", sr.method, is_auto ? ", auto" : "");
    snprintf(msg, sizeof msg, "%s", rep.message);
    snprintf(auto_why, sizeof auto_why, "%s", is_auto ? rep.why : "");
    snprintf(path, sizeof path, "%s", rep.path);
    snprintf(plan_why, sizeof plan_why, "%s", rep.why);
    its = rep.iterations;
    t_choose = sr.t_choose;
    ls_report_clear(&rep);
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
        fprintf(out, ", \"path\": \"%s\", \"why\": ", path);
        ls_cli_json_string(out, plan_why);
        fprintf(out, ", \"message\": ");
        ls_cli_json_string(out, ls_cli_message(msg, plain, sizeof plain));
        fprintf(out, ", \"ok\": %s}\n", code == LS_EXIT_OK ? "true" : "false");
    } else if (!a->quiet || code != LS_EXIT_OK) {
        fprintf(out, "format:     sparse CSR (%s)\n", why);
        fprintf(out, "system:     n = %lld, nnz = %lld, nrhs = %d\n", (long long)n, (long long)A.nnz,
               nrhs);
        fprintf(out, "path:       %s\n", path);
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
