/*
 * Subcommands of the `linsolve` tool and the helpers they share. Every
 * command returns the process exit status (see ls_cli_exit below), so main()
 * only dispatches.
 */
#ifndef LS_TOOLS_COMMANDS_H
#define LS_TOOLS_COMMANDS_H

#include <stdio.h>
#include "linsolve.h"
#include "core/tool_api.h"

/* Exit statuses of the tool: one meaning each, shared by every command. */
enum ls_cli_exit {
    LS_EXIT_OK = 0,          /* solved, scaled residual <= 30 */
    LS_EXIT_USAGE = 1,       /* unknown option, missing argument, bad number */
    LS_EXIT_INPUT = 2,       /* unreadable, malformed, unsupported or mismatched input */
    LS_EXIT_SINGULAR = 3,    /* exactly zero pivot */
    LS_EXIT_INACCURATE = 4,  /* answer failed the check, no convergence, breakdown */
    LS_EXIT_UNAVAILABLE = 5  /* backend/device unavailable or failed, out of memory */
};

/* How a library status reads to a user of the tool. */
typedef struct ls_cli_outcome {
    int exit_code;
    const char *status; /* JSON "status": "ok", "singular", ... */
} ls_cli_outcome;

/** Map a status from ls_solve (or any library call) to an exit code.
 * @param[in] status   library status; > 0 and < LS_NOT_CONVERGED is a pivot column
 * @param[in] reading  nonzero when the status came from reading input files:
 *                     every failure there but out-of-memory is invalid input */
ls_cli_outcome ls_cli_outcome_of(int status, int reading);

/* Commands. argv[0] is the command name ("solve", "gen", ...). */
int ls_cmd_solve(int argc, char **argv);
int ls_cmd_gen(int argc, char **argv);
int ls_cmd_info(int argc, char **argv);
/* Measurement commands, implemented in tools/bench/. */
int ls_cmd_bench(int argc, char **argv);
int ls_cmd_metrics(int argc, char **argv);
int ls_cmd_roofline(int argc, char **argv);

/* ---- argument helpers (cli_util.c); each prints its own usage error ---- */
/** Strict integer parse: whole string, within [lo, hi]. 0 on success. */
int ls_cli_parse_int(const char *cmd, const char *opt, const char *text, long long lo,
                     long long hi, long long *out);
/** Strict finite double parse of the whole string. 0 on success. */
int ls_cli_parse_double(const char *cmd, const char *opt, const char *text, double *out);
/** Value of option argv[*i]; advances *i. NULL (and a message) if missing. */
const char *ls_cli_value(const char *cmd, int argc, char **argv, int *i);
/** Print "linsolve CMD: fmt..." and "try 'linsolve CMD --help'" on stderr. */
void ls_cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The solve commands' A and B in the order given: 0, or -1 (a usage
 * error said) for a third positional argument. */
int ls_cli_take_path(const char *cmd, const char *arg, const char **a_path, const char **b_path);

/** Write s as a JSON string literal (quotes included, escaped) to out. */
void ls_cli_json_string(FILE *out, const char *s);
/** Write a JSON number, or null when x is not finite. */
void ls_cli_json_number(FILE *out, double x);

/** Overflow-checked a*b for sizes from data: 0 and *out on success, -1 on overflow. */
int ls_cli_mul_size(size_t a, size_t b, size_t *out);

/** Does the file name end with suffix (case-insensitive)? */
int ls_cli_has_suffix(const char *path, const char *suffix);

/* ---- streams and messages (cli_util.c) ---- */
/** Is path "-", meaning standard input or output? */
int ls_cli_is_stream(const char *path);
/** Parse --format mtx|npy; 0 on success (else a usage error is printed). */
int ls_cli_parse_format(const char *cmd, const char *text, ls_io_format *out);
/** Format of an output: forced, else .npy by extension, else (and on
 *  standard output) Matrix Market. path NULL or "-" is standard output. */
ls_io_format ls_cli_output_format(const char *path, ls_io_format forced);
/** Binary .npy to a terminal helps no one: nonzero, with a usage error, when
 *  fmt is npy and path (NULL or "-": stdout) is a terminal. */
int ls_cli_refuse_binary_tty(const char *cmd, ls_io_format fmt, const char *path);
/** --verbose: show source locations, as LS_DEBUG=1 does. */
void ls_cli_set_verbose(void);
/** msg as users read it: without the library's " [file.c:line]" locations
 *  unless LS_DEBUG=1 or --verbose asked for them. Returns msg or buf. */
const char *ls_cli_message(const char *msg, char *buf, size_t len);

/* Progress bar on stderr; draws only when armed (terminal and big work). */
typedef struct ls_cli_progress {
    int armed;
    int last_permille; /* redraw only on visible change */
} ls_cli_progress;
/** ls_progress_fn-compatible callback; arg is an ls_cli_progress. */
void ls_cli_progress_draw(void *arg, double fraction, const char *what);
/** Finish the line of an armed bar that was drawn. */
void ls_cli_progress_end(ls_cli_progress *p);
/** Is stderr a terminal? */
int ls_cli_stderr_is_tty(void);

#endif
