/* The outcome of `linsolve solve`: judged once, printed as text or JSON. */
#ifndef LS_TOOLS_SOLVE_REPORT_H
#define LS_TOOLS_SOLVE_REPORT_H

#include <stdio.h>
#include "commands.h"

typedef struct solve_result {
    int exit_code;
    const char *status;  /* JSON status word */
    int lib_status;      /* what the library returned */
    char message[1024];
    const char *a_path, *b_path;
    ls_method method;    /* requested, replaced by the one run */
    ls_precision precision;
    char precision_note[80]; /* how --precision auto chose, "" when forced */
    int backend_known;
    ls_backend_kind backend;
    char device[256];
    char note[256];
    int n, nrhs;
    int rhs_is_A_ones;   /* b = A*ones: forward error is known */
    int have_rep;
    ls_report rep;
    int x_computed;      /* X holds an answer worth writing */
    double t_read;
    double residual;       /* NaN when not computed */
    double forward_error;  /* NaN when unknown */
    int mixed;             /* --precision mixed: mres says what happened */
    ls_mixed_result mres;
} solve_result;

void solve_result_init(solve_result *r);
/** Record a failure (first one wins: later ones are consequences). */
void solve_result_fail(solve_result *r, ls_cli_outcome oc, int lib_status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/** Copy backend, device name and auto note from a context. */
void solve_result_set_context(solve_result *r, ls_context *ctx);
/** Judge ls_solve's status st and the answer X against the original A, B. */
void solve_result_judge(solve_result *r, int st, ls_context *ctx, const ls_matrix *A,
                        const ls_matrix *B, const double *X);
/** The same with the residual computed elsewhere (the distributed solve,
 *  which never holds A on one rank); X is read only for the forward error
 *  when rhs_is_A_ones. */
void solve_result_judge_residual(solve_result *r, int st, ls_context *ctx, double residual,
                                 const double *X);
void solve_result_print_json(FILE *out, const solve_result *r);
void solve_result_print_human(FILE *out, const solve_result *r);
/* The end of a solve: a failure's message on stderr, then the report on
 * `report` as JSON or text (none when quiet). */
void solve_result_emit(FILE *report, const solve_result *r, int json, int quiet);

#endif
