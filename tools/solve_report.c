/* Judging and printing the outcome of `linsolve solve`. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "solve_mixed.h"
#include "solve_report.h"

/* LAPACK's acceptance threshold on the scaled residual. */
#define LS_CLI_RESIDUAL_TOL 30.0

void solve_result_init(solve_result *r)
{
    memset(r, 0, sizeof *r);
    r->exit_code = LS_EXIT_OK;
    r->status = "ok";
    r->residual = NAN;
    r->forward_error = NAN;
}

void solve_result_fail(solve_result *r, ls_cli_outcome oc, int lib_status, const char *fmt, ...)
{
    if (r->exit_code != LS_EXIT_OK)
        return;
    r->exit_code = oc.exit_code;
    r->status = oc.status;
    r->lib_status = lib_status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
}

void solve_result_set_context(solve_result *r, ls_context *ctx)
{
    const char *dev = ls_context_device_name(ctx);
    const char *note = ls_context_note(ctx);
    r->backend_known = 1;
    r->backend = ls_context_backend(ctx);
    snprintf(r->device, sizeof r->device, "%s", dev ? dev : "");
    snprintf(r->note, sizeof r->note, "%s", note ? note : "");
}

static double last_history(const ls_report *rep)
{
    if (rep->history && rep->history_len > 0)
        return rep->history[rep->history_len - 1];
    return NAN;
}

void solve_result_judge(solve_result *r, int st, ls_context *ctx, const ls_matrix *A,
                        const ls_matrix *B, const double *X)
{
    double res = NAN;
    if (st == LS_OK || st == LS_INACCURATE || st == LS_NOT_CONVERGED || st == LS_BREAKDOWN)
        /* Our own check from the untouched inputs, whatever the library says. */
        res = ls_scaled_residual(r->n, r->nrhs, A->data, A->ld, X, r->n, B->data, B->ld,
                                 ls_eps(r->precision));
    solve_result_judge_residual(r, st, ctx, res, X);
}

void solve_result_judge_residual(solve_result *r, int st, ls_context *ctx, double residual,
                                 const double *X)
{
    int n = r->n;
    const char *detail = r->rep.message[0] ? r->rep.message : "";
    if (r->rep.method != LS_METHOD_AUTO)
        r->method = r->rep.method;
    r->lib_status = st;
    int iterative_end = st == LS_NOT_CONVERGED || st == LS_BREAKDOWN;
    if (st == LS_OK || st == LS_INACCURATE || iterative_end) {
        r->residual = residual;
        if (r->rhs_is_A_ones) {
            double err = 0.0;
            for (int i = 0; i < n; ++i) {
                double d = fabs(X[i] - 1.0);
                err = (d > err || isnan(d)) ? d : err;
            }
            r->forward_error = err;
        }
    }
    ls_cli_outcome oc = ls_cli_outcome_of(st, 0);
    if (st == LS_OK) {
        r->x_computed = 1;
        if (!(r->residual <= LS_CLI_RESIDUAL_TOL)) {
            ls_cli_outcome bad = {LS_EXIT_INACCURATE, "inaccurate"};
            solve_result_fail(r, bad, LS_INACCURATE,
                              "the answer failed the accuracy check: scaled residual %.3g > %g",
                              r->residual, LS_CLI_RESIDUAL_TOL);
        }
    } else if (st == LS_INACCURATE) {
        r->x_computed = 1;
        /* the library's own detail says the same thing: not repeated */
        solve_result_fail(r, oc, st,
                          "the answer failed the accuracy check: scaled residual %.3g > %g",
                          r->residual, LS_CLI_RESIDUAL_TOL);
    } else if (oc.exit_code == LS_EXIT_SINGULAR) {
        solve_result_fail(r, oc, st, "matrix is singular: U(%d,%d) is exactly zero (info = %d)",
                          st, st, st);
    } else if (iterative_end && detail[0]) {
        solve_result_fail(r, oc, st, "%s", detail); /* the solver knows best why */
    } else if (iterative_end) {
        solve_result_fail(r, oc, st, "%s %s after %d iterations (relative residual %.3g)",
                          ls_method_name(r->method),
                          st == LS_BREAKDOWN ? "broke down" : "did not converge",
                          r->rep.iterations, last_history(&r->rep));
    } else {
        const char *why = ctx && ls_context_error(ctx)[0] ? ls_context_error(ctx) : detail;
        solve_result_fail(r, oc, st, "%s on %s failed: %s%s%s", ls_method_name(r->method),
                          r->backend_known ? ls_backend_name(r->backend) : "?", ls_strerror(st),
                          why[0] ? ": " : "", why);
    }
}

/* "-" in the human report: the stream it stands for. */
static const char *shown_path(const char *path)
{
    return ls_cli_is_stream(path) ? "<stdin>" : path;
}

static double total_time(const solve_result *r)
{
    return r->t_read + (r->have_rep ? r->rep.t_total : 0.0);
}

void solve_result_print_json(FILE *out, const solve_result *r)
{
    const ls_report *rep = &r->rep;
    fputs("{\"status\": ", out);
    ls_cli_json_string(out, r->status);
    fprintf(out, ", \"exit_code\": %d, \"method\": ", r->exit_code);
    ls_cli_json_string(out, ls_method_name(r->method));
    fputs(", \"backend\": ", out);
    if (r->backend_known)
        ls_cli_json_string(out, ls_backend_name(r->backend));
    else
        fputs("null", out);
    fputs(", \"device\": ", out);
    ls_cli_json_string(out, r->device);
    fputs(", \"note\": ", out);
    ls_cli_json_string(out, r->note);
    fputs(", \"precision\": ", out);
    ls_cli_json_string(out, ls_precision_name(r->precision));
    fputs(", \"path\": ", out); /* the planner's path and why ("" before a solve ran) */
    ls_cli_json_string(out, r->have_rep ? rep->path : "");
    fputs(", \"why\": ", out);
    ls_cli_json_string(out, r->have_rep ? rep->why : "");
    fputs(", \"a\": ", out);
    ls_cli_json_string(out, r->a_path);
    fputs(", \"b\": ", out);
    if (r->b_path)
        ls_cli_json_string(out, r->b_path);
    else
        fputs(r->a_path ? "\"A*ones\"" : "null", out);
    fprintf(out, ", \"n\": %d, \"nrhs\": %d, \"time_s\": ", r->n, r->nrhs);
    ls_cli_json_number(out, total_time(r));
    fputs(", \"times\": {\"read\": ", out);
    ls_cli_json_number(out, r->t_read);
    const double split[] = {rep->t_h2d, rep->t_factor, rep->t_solve, rep->t_d2h};
    const char *names[] = {"h2d", "factor", "solve", "d2h"};
    for (int k = 0; k < 4; ++k) {
        fprintf(out, ", \"%s\": ", names[k]);
        ls_cli_json_number(out, r->have_rep ? split[k] : NAN);
    }
    fputs(", \"solve_call\": ", out);
    ls_cli_json_number(out, r->have_rep ? rep->t_total : NAN);
    fputs("}, \"gflops\": ", out);
    ls_cli_json_number(out, r->have_rep ? rep->gflops : NAN);
    fputs(", \"residual\": ", out);
    ls_cli_json_number(out, r->residual);
    fputs(", \"forward_error\": ", out);
    ls_cli_json_number(out, r->forward_error);
    fprintf(out, ", \"iterations\": %d, \"info\": %d, \"library_status\": ",
            r->have_rep ? rep->iterations : 0,
            r->exit_code == LS_EXIT_SINGULAR ? r->lib_status : (r->have_rep ? rep->info : 0));
    ls_cli_json_string(out, ls_status_name(r->lib_status));
    fputs(", \"message\": ", out);
    char plain[sizeof r->message];
    ls_cli_json_string(out, ls_cli_message(r->message[0] ? r->message : rep->message, plain,
                                           sizeof plain));
    solve_mixed_print_json(out, r);
    fputs("}\n", out);
}

void solve_result_print_human(FILE *out, const solve_result *r)
{
    /* Without an answer or a numerical verdict (usage, input, backend
     * failures) the error line on stderr says it all. */
    if (!r->have_rep || (r->exit_code != LS_EXIT_OK && r->exit_code != LS_EXIT_SINGULAR &&
                         r->exit_code != LS_EXIT_INACCURATE))
        return;
    const ls_report *rep = &r->rep;
    int iterative = r->method == LS_METHOD_BICGSTAB;
    fprintf(out, "linsolve solve: A = %s, B = %s\n", shown_path(r->a_path),
            r->b_path ? shown_path(r->b_path) : "A*ones (exact x = 1)");
    fprintf(out, "  status     %s (exit %d)\n", r->status, r->exit_code);
    fprintf(out, "  method     %-12s %s\n", ls_method_name(r->method),
            ls_method_description(r->method));
    if (rep->path[0])
        fprintf(out, "  path       %-12s %s\n", rep->path, rep->why);
    fprintf(out, "  backend    %-12s %s\n", ls_backend_name(r->backend), r->device);
    if (r->note[0])
        fprintf(out, "  note       %s\n", r->note);
    fprintf(out, "  precision  %-12s eps = %.3g%s%s%s\n", ls_precision_name(r->precision),
            ls_eps(r->precision), r->precision_note[0] ? " (" : "", r->precision_note,
            r->precision_note[0] ? ")" : "");
    fprintf(out, "  system     n = %d, nrhs = %d, info = %d\n", r->n, r->nrhs,
            r->exit_code == LS_EXIT_SINGULAR ? r->lib_status : rep->info);
    fprintf(out,
            "  time (s)   read %.3g  h2d %.3g  factor %.3g  solve %.3g  d2h %.3g  total %.3g\n",
            r->t_read, rep->t_h2d, rep->t_factor, rep->t_solve, rep->t_d2h, total_time(r));
    fprintf(out, "  GFLOP/s    %.3g\n", rep->gflops);
    if (!isnan(r->residual))
        fprintf(out, "  residual   %.3e  ||B-AX||inf/(n ||A||inf ||X||inf eps), %s 30\n",
                r->residual, r->residual <= LS_CLI_RESIDUAL_TOL ? "<=" : "NOT <=");
    if (!isnan(r->forward_error))
        fprintf(out, "  fwd error  %.3e  ||x-1||inf/||1||inf\n", r->forward_error);
    if (iterative)
        fprintf(out, "  iterations %d\n", rep->iterations);
    solve_mixed_print_human(out, r);
    char plain[sizeof r->message];
    if (r->message[0] || rep->message[0])
        fprintf(out, "  message    %s\n",
                ls_cli_message(r->message[0] ? r->message : rep->message, plain, sizeof plain));
}

void solve_result_emit(FILE *report, const solve_result *r, int json, int quiet)
{
    if (r->exit_code != LS_EXIT_OK) {
        char plain[sizeof r->message];
        fprintf(stderr, "linsolve: %s\n", ls_cli_message(r->message, plain, sizeof plain));
    }
    if (json)
        solve_result_print_json(report, r);
    else if (!quiet)
        solve_result_print_human(report, r);
}
