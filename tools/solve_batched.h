/* `linsolve solve` on a stack: A a 3-D .npy (batch, n, n), B (batch, n) or
 * (batch, n, k), solved with ls_?gesv_batched (solve_batched.c). */
#ifndef LS_TOOLS_SOLVE_BATCHED_H
#define LS_TOOLS_SOLVE_BATCHED_H

#include "linsolve.h"
#include "core/tool_api.h"
#include "solve_input.h"

typedef struct ls_batched_cli {
    const solve_input *ain, *bin; /* A and B, opened once; bin NULL without B */
    const char *out_path;         /* may be NULL */
    ls_backend_kind backend;
    int device;          /* -1: the backend's default */
    int precision_auto;  /* follow A's dtype (f4: single) */
    ls_precision precision;
    ls_io_format format; /* --format of X: AUTO by the extension */
    int json, quiet;
} ls_batched_cli;

/** Solve the stack and report; returns the tool's exit status. */
int ls_cmd_solve_batched(const ls_batched_cli *a);

#endif
