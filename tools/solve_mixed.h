/* `linsolve solve --precision mixed`: the options, the call of
 * ls_solve_problem with policy mixed and the mixed-precision part of the
 * report (text and JSON). */
#ifndef LS_TOOLS_SOLVE_MIXED_H
#define LS_TOOLS_SOLVE_MIXED_H

#include <stdio.h>
#include "solve_report.h"

/** --factor F / --refine K: 1 handled (value taken), 0 not one of these,
 *  -1 usage error (already reported). */
int solve_mixed_option(const char *cmd, int argc, char **argv, int *i, ls_mixed_opts *o);
/** Solve through ls_solve_problem (policy mixed, options o): X (n x nrhs,
 *  ld n) holds B in and the answer out; fills r's report (path, why) and its
 *  mixed result; returns the library status. */
int solve_mixed_run(ls_context *ctx, const ls_mixed_opts *o, const ls_matrix *A,
                    const ls_matrix *B, double *X, solve_result *r);
/** The mixed fields: `, "mixed": {...}` inside the JSON object. */
void solve_mixed_print_json(FILE *out, const solve_result *r);
/** Lines of the human report. */
void solve_mixed_print_human(FILE *out, const solve_result *r);

#endif
