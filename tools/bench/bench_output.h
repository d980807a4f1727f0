/* Output files of bench, metrics and roofline through the tool's safe
 * output (ls_outfile, src/core/tool_api.h): a regular file is written
 * beside the target and renamed into place only when every write
 * succeeded, so a full disk or a killed run leaves the old file as it was;
 * a device or FIFO is written directly and never removed; standard output
 * has its writes checked too. Kept apart from bench_util.c, which tests
 * build without the tool. */
#ifndef LS_BENCH_OUTPUT_H
#define LS_BENCH_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "core/tool_api.h"

typedef struct ls_bench_sink {
    ls_outfile *of;
    FILE *f;          /* where to write; NULL when not open */
    const char *name; /* the path as given, or "<stdout>" */
} ls_bench_sink;

/* Can path be written? Checked before a measurement, so that a wrong -o
 * costs nothing. NULL (standard output) always can. 0 or LS_EIO with err. */
int ls_bench_sink_check(const char *path, char *err, size_t errlen);
/* Open path (NULL or "-": standard output). 0 or LS_EIO with err. */
int ls_bench_sink_open(ls_bench_sink *s, const char *path, char *err, size_t errlen);
/* Everything written reaches its place, or LS_EIO with err naming the path
 * (the old file is then intact). Closes s; a closed s commits as 0. */
int ls_bench_sink_commit(ls_bench_sink *s, char *err, size_t errlen);
/* Drop what was written (the old file stays); closes s; closed s: no-op. */
void ls_bench_sink_abort(ls_bench_sink *s);

/* Check, then open, each of the paths (NULL entries skipped, NULL sinks
 * left closed): on a failure the message "linsolve CMD: <err>" is printed,
 * every sink opened so far is aborted, and LS_BENCH_EXIT_WRITE returned. */
int ls_bench_sinks_open(const char *cmd, int count, ls_bench_sink *sinks,
                        const char *const *paths);
/* Commit each open sink; a failure is printed and makes the result
 * LS_BENCH_EXIT_WRITE, else `status` is returned. */
int ls_bench_sinks_commit(const char *cmd, int count, ls_bench_sink *sinks, int status);
/* Abort every open sink and return status. */
int ls_bench_sinks_abort(int count, ls_bench_sink *sinks, int status);

#endif
