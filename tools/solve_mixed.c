/* `linsolve solve --precision mixed`: low-precision LU refined in FP64
 * (the planner's mixed path, ls_dsgesv), and what the report says about it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve_mixed.h"

int solve_mixed_option(const char *cmd, int argc, char **argv, int *i, ls_mixed_opts *o)
{
    const char *arg = argv[*i], *val = NULL;
    if (strcmp(arg, "--factor") && strcmp(arg, "--refine"))
        return 0;
    if (!(val = ls_cli_value(cmd, argc, argv, i)))
        return -1;
    if (!strcmp(arg, "--factor") && ls_factor_parse(val, &o->factor) != 0) {
        ls_cli_usage_error(cmd, "unknown factor precision '%s' (auto, fp32, tf32, tf32x3, bf16, "
                                "fp16, fp64)", val);
        return -1;
    }
    if (!strcmp(arg, "--refine") && ls_refine_parse(val, &o->refine) != 0) {
        ls_cli_usage_error(cmd, "unknown refinement '%s' (auto, ir, gmres)", val);
        return -1;
    }
    return 1;
}

int solve_mixed_run(ls_context *ctx, const ls_mixed_opts *o, const ls_matrix *A,
                    const ls_matrix *B, double *X, solve_result *r)
{
    (void)B; /* X holds a copy of B on entry */
    r->mixed = 1;
    r->precision = LS_DOUBLE;
    /* the planner's mixed path: ls_dsgesv on a scratch copy of A (A itself
     * stays for the report's own check), its options and result ours */
    ls_problem p;
    ls_problem_init(&p);
    p.shape = LS_SHAPE_DENSE;
    p.n = r->n;
    p.nrhs = r->nrhs;
    p.A = A->data;
    p.lda = A->ld;
    p.B = X;
    p.ldb = r->n;
    p.policy = LS_POLICY_MIXED;
    p.mixed = o;
    p.mixed_result = &r->mres;
    int st = ls_solve_problem(ctx, NULL, &p, &r->rep);
    snprintf(r->precision_note, sizeof r->precision_note,
             "mixed: %s factors (%s pivoting), FP64 refinement",
             ls_factor_name(r->mres.factor) ? ls_factor_name(r->mres.factor) : "?",
             ls_pivot_name(r->mres.pivot) ? ls_pivot_name(r->mres.pivot) : "?");
    return st;
}

void solve_mixed_print_json(FILE *out, const solve_result *r)
{
    const ls_mixed_result *m = &r->mres;
    if (!r->mixed)
        return;
    fputs(", \"mixed\": {\"factor\": ", out);
    ls_cli_json_string(out, ls_factor_name(m->factor) ? ls_factor_name(m->factor) : "?");
    fputs(", \"pivot\": ", out);
    ls_cli_json_string(out, ls_pivot_name(m->pivot) ? ls_pivot_name(m->pivot) : "?");
    fputs(", \"refinement\": ", out);
    ls_cli_json_string(out, m->refine == LS_REFINE_AUTO ? "none" : ls_refine_name(m->refine));
    fprintf(out, ", \"iterations\": %d, \"inner_iterations\": %d, \"converged\": %s, "
                 "\"fell_back\": %s, \"residuals\": [",
            m->iterations, m->inner_iterations, m->converged ? "true" : "false",
            m->fell_back ? "true" : "false");
    for (int i = 0; i < m->history_len; i++) {
        if (i)
            fputs(", ", out);
        ls_cli_json_number(out, m->history[i]);
    }
    fputs("], \"final_residual\": ", out);
    ls_cli_json_number(out, m->residual);
    fputs("}", out);
}

void solve_mixed_print_human(FILE *out, const solve_result *r)
{
    const ls_mixed_result *m = &r->mres;
    if (!r->mixed)
        return;
    fprintf(out, "  mixed      factor %s, pivoting %s, refinement %s, %d step(s)",
            ls_factor_name(m->factor), ls_pivot_name(m->pivot) ? ls_pivot_name(m->pivot) : "?",
            m->refine == LS_REFINE_AUTO ? "none" : ls_refine_name(m->refine), m->iterations);
    if (m->inner_iterations)
        fprintf(out, " (%d GMRES steps)", m->inner_iterations);
    fprintf(out, ", %s\n", m->fell_back   ? "fell back to FP64"
                           : m->converged ? "converged"
                                          : "did not converge");
    fputs("  residuals ", out);
    for (int i = 0; i < m->history_len; i++)
        fprintf(out, "%s%.3e", i ? " " : "", m->history[i]);
    fputs("\n", out);
    if (m->fell_back && !isnan(m->residual))
        fprintf(out, "  fp64       scaled residual %.3e after the fallback\n", m->residual);
}
