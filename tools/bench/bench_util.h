/*
 * Shared plumbing of linsolve bench/metrics/roofline: option lists, clock,
 * median, the table|csv|json writer, the machine header and the progress
 * bar. Only the public API and struct ls_context are used: the library's
 * internal helpers are not exported from liblinsolve.
 */
#ifndef LS_BENCH_UTIL_H
#define LS_BENCH_UTIL_H

#include <stdio.h>
#include "linsolve.h"
#include "core/perf/perf.h"

#define LS_BENCH_MAX_LIST 64
#define LS_BENCH_MAX_COLS 24
#define LS_BENCH_CELL 48

typedef enum { LS_FMT_TABLE = 0, LS_FMT_CSV, LS_FMT_JSON } ls_out_format;

/* Exit statuses of bench, metrics and roofline: the tool's own
 * (tools/commands.h), a case that failed its check reading as the tool's
 * "inaccurate". */
enum {
    LS_BENCH_EXIT_OK = 0,
    LS_BENCH_EXIT_USAGE = 1,      /* unknown option, bad or out-of-range value */
    LS_BENCH_EXIT_WRITE = 2,      /* an output file cannot be written (named) */
    LS_BENCH_EXIT_FAILED = 4,     /* some case failed, was refused or skipped */
    LS_BENCH_EXIT_UNAVAILABLE = 5 /* a backend asked for is unavailable; out of memory */
};

/* The lines of --help that say the above. */
#define LS_BENCH_EXIT_HELP                                                                   \
    "exit status: 0 every case ok; 1 bad option or value; 2 an output file cannot be\n"      \
    "written (the message names it; the old file is left as it was); 4 some case\n"         \
    "failed, was refused or skipped; 5 a backend asked for is unavailable, or out of\n"     \
    "memory\n"

double ls_bench_clock(void);
double ls_bench_median(double *v, int n); /* sorts v */

/* "512,1024" -> ints in 1 .. 10^9, digits only; returns count or -1 on a
 * malformed list. */
int ls_bench_parse_ints(const char *s, int *out, int max);
/* Strict option values: the whole text is one decimal number within
 * [lo, hi] ("3abc", "", " 3", "0x10", and "1e3" for an integer, are
 * refused); 0, or -1 leaving *out alone. */
int ls_bench_parse_int(const char *s, long lo, long hi, int *out);
int ls_bench_parse_real(const char *s, double lo, double hi, double *out);

/* Messages as users read them: without the library's " [file.c:line]"
 * locations unless LS_DEBUG=1 (--verbose) asks for them. Returns msg or buf. */
const char *ls_bench_plain(const char *msg, char *buf, size_t len);
/* --verbose: the same switch as the rest of the tool (LS_DEBUG=1). */
void ls_bench_set_verbose(void);

/* The commit the tool was built from (cmake/GitCommit.cmake: git describe,
 * "-dirty" for uncommitted changes), "unknown" when the build did not know. */
const char *ls_bench_commit(void);
/* argv (argv[0] the subcommand) as one line a shell takes back, after the
 * knob registry's LS_* variables that were set:
 * "LS_CUDA_BATCHED_PATH=thread linsolve bench --sizes 512 --csv 'my file.csv'". */
void ls_bench_command_line(char *buf, size_t len, int argc, char **argv);
/* The two lines that open every CSV file a measurement writes, so that a
 * result names the code and the command that made it:
 * "# commit: <ls_bench_commit()>" and "# command: <command line>". */
void ls_bench_csv_provenance(FILE *f, int argc, char **argv);
/* "a,b,c" -> copies into out[i] (each < 32 chars); count or -1. */
int ls_bench_parse_words(const char *s, char out[][32], int max);
int ls_bench_parse_format(const char *s, ls_out_format *f);

/* Output writer: several titled tables, machine key/values, notes. */
typedef struct ls_out {
    FILE *f;
    ls_out_format fmt;
    int ncols;
    char cols[LS_BENCH_MAX_COLS][32];
    int widths[LS_BENCH_MAX_COLS];
    int ntables, nrows, header_done;
    int nmachine;
    char mkey[32][32];
    char mval[32][512];
    int nnotes;
    char notes[64][256];
} ls_out;

void ls_out_open(ls_out *o, FILE *f, ls_out_format fmt);
void ls_out_machine(ls_out *o, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* cols: ncols names; widths: table column widths (NULL: 12 each). */
void ls_out_table(ls_out *o, const char *title, int ncols, const char *const *cols,
                  const int *widths);
void ls_out_row(ls_out *o, char cells[][LS_BENCH_CELL]);
void ls_out_note(ls_out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void ls_out_close(ls_out *o);

/* Fill the machine header: CPU model and cores, the commit, and for a CUDA
 * context the GPU's name, SMs, clocks and driver (the perf table's device
 * entry). */
void ls_bench_machine_header(ls_out *o, ls_context *ctx);
/* The command line as the header's "command" entry. */
void ls_bench_machine_command(ls_out *o, int argc, char **argv);

/* The context's perf table (core/perf/perf.h), NULL when the backend has none. */
/* LS_EUNSUPPORTED, with err naming the backend and the request it lacks. */
int ls_bench_perf_missing(const ls_context *ctx, const char *request, char *err, size_t errlen);
/* Send one typed perf request: LS_BENCH_PERF(ctx, gemm, &in, &out, err, len)
 * calls the backend's gemm entry (the compiler checks in and out against
 * it), or answers LS_EUNSUPPORTED naming the request when the backend has
 * no such entry. ctx is evaluated more than once. */
#define LS_BENCH_PERF(ctx, entry, in, out, err, errlen)                                      \
    (ls_perf_table(ctx) && ls_perf_table(ctx)->entry                                         \
         ? ls_perf_table(ctx)->entry(ls_perf_backend_ctx(ctx), (in), (out), (err), (errlen)) \
         : ls_bench_perf_missing((ctx), #entry, (err), (errlen)))
/* The same for the device entry, which takes no input. */
#define LS_BENCH_PERF_DEVICE(ctx, out, err, errlen)                                          \
    (ls_perf_table(ctx) && ls_perf_table(ctx)->device                                        \
         ? ls_perf_table(ctx)->device(ls_perf_backend_ctx(ctx), (out), (err), (errlen))      \
         : ls_bench_perf_missing((ctx), "device", (err), (errlen)))

/* Progress on stderr, only when stderr is a terminal. */
void ls_bench_progress(int done, int total, const char *what);

/* printf into a cell. */
void ls_cell(char *cell, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
