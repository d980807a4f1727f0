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
#include "core/backend.h"
#include "core/perf.h"

#define LS_BENCH_MAX_LIST 64
#define LS_BENCH_MAX_COLS 24
#define LS_BENCH_CELL 48

typedef enum { LS_FMT_TABLE = 0, LS_FMT_CSV, LS_FMT_JSON } ls_out_format;

double ls_bench_clock(void);
double ls_bench_median(double *v, int n); /* sorts v */

/* "512,1024" -> ints; returns count or -1 on a malformed list. */
int ls_bench_parse_ints(const char *s, int *out, int max);
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
    char mval[32][192];
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

/* Fill the machine header: CPU model and cores, and for a CUDA context the
 * GPU's name, SMs, clocks and driver (the perf table's device entry). */
void ls_bench_machine_header(ls_out *o, ls_context *ctx);

/* The context's perf table (core/perf.h), NULL when the backend has none. */
const ls_perf_iface *ls_bench_perf_table(const ls_context *ctx);
/* LS_EUNSUPPORTED, with err naming the backend and the request it lacks. */
int ls_bench_perf_missing(const ls_context *ctx, const char *request, char *err, size_t errlen);
/* Send one typed perf request: LS_BENCH_PERF(ctx, gemm, &in, &out, err, len)
 * calls the backend's gemm entry (the compiler checks in and out against
 * it), or answers LS_EUNSUPPORTED naming the request when the backend has
 * no such entry. ctx is evaluated more than once. */
#define LS_BENCH_PERF(ctx, entry, in, out, err, errlen)                                      \
    (ls_bench_perf_table(ctx) && ls_bench_perf_table(ctx)->entry                             \
         ? ls_bench_perf_table(ctx)->entry((ctx)->bctx, (in), (out), (err), (errlen))        \
         : ls_bench_perf_missing((ctx), #entry, (err), (errlen)))
/* The same for the device entry, which takes no input. */
#define LS_BENCH_PERF_DEVICE(ctx, out, err, errlen)                                          \
    (ls_bench_perf_table(ctx) && ls_bench_perf_table(ctx)->device                            \
         ? ls_bench_perf_table(ctx)->device((ctx)->bctx, (out), (err), (errlen))             \
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
