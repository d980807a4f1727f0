/*
 * linsolve bench --mixed-vs-cusolver: our mixed-precision solve (low-
 * precision LU, FP64 refinement, FP64 fallback) against cuSOLVER's FP64
 * dgetrf + dgetrs and the best of its IRS solvers, nrhs = 1, FP64 data on
 * the device, all timed in this process by the CUDA plugin's
 * "mixed_vs_peer" request (core/perf/perf_mixed.h). Matrices: random normal,
 * and randsvd of condition 1e2, 1e6 and 1e10 (the last shows the
 * fallback). A table goes to the output and the CSV
 * n,matrix,cond,factor,iterations,fell_back,mixed_ms,cusolver_dgetrf_ms,best_irs_ms,ratio,residual
 * to --csv (ratio = cusolver_dgetrf_ms / mixed_ms).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_output.h"
#include "bench_util.h"
#include "core/perf/perf_mixed.h"

int ls_bench_mixed_vs_cusolver(int argc, char **argv);

#define MVC_CSV_HEADER                                                                         \
    "n,matrix,cond,factor,iterations,fell_back,mixed_ms,cusolver_dgetrf_ms,best_irs_ms,ratio," \
    "residual"

typedef struct mvc_case {
    int matrix;
    double cond;
} mvc_case;

static const mvc_case cases[] = {{LS_PERF_MX_NORMAL, 0},
                                 {LS_PERF_MX_RANDSVD, 1e2},
                                 {LS_PERF_MX_RANDSVD, 1e6},
                                 {LS_PERF_MX_RANDSVD, 1e10}};

static const char *const COLS[] = {"N",        "matrix",      "cond",      "factor",
                                   "refine",   "iters",       "fell_back", "mixed_ms",
                                   "dgetrf_ms", "best_irs_ms", "best_irs",  "ratio",
                                   "residual", "status"};
static const int WIDTHS[] = {6, 8, 7, 10, 6, 5, 9, 10, 10, 11, 20, 6, 10, 7};
#define NCOLS 14

typedef struct mvc_opts {
    int sizes[LS_BENCH_MAX_LIST], nsizes;
    int repeat;
    ls_factor_prec factor;
    ls_pivot pivot;
    int matrices; /* bit k: cases[k] runs */
    const char *csv, *output;
} mvc_opts;

static void usage(FILE *f)
{
    fputs("usage: linsolve bench --mixed-vs-cusolver [--sizes 4096,8192,16384,32768]\n"
          "         [--repeat R (default 5)] [--factor auto|fp32|tf32|tf32x3|bf16|fp16|fp64]\n"
          "         [--pivot auto|partial|none|rbt] [--matrices all|normal|randsvd]\n"
          "         [--csv FILE] [-o FILE] [--verbose]\n"
          "  ours (ls_dsgesv_gpu's path) against cuSOLVER dgetrf + dgetrs and the best\n"
          "  cusolverDnIRSXgesv configuration, on random normal and randsvd (cond 1e2, 1e6,\n"
          "  1e10) matrices; needs a CUDA GPU. --repeat 1 .. 100; the CSV opens with\n"
          "  '# commit:' and '# command:' lines; -o and --csv are checked before measuring\n"
          "  and replaced only once complete.\n" LS_BENCH_EXIT_HELP,
          f);
}

static int parse(int argc, char **argv, mvc_opts *o)
{
    static const int def[] = {4096, 8192, 16384, 32768};
    memset(o, 0, sizeof *o);
    memcpy(o->sizes, def, sizeof def);
    o->nsizes = 4;
    o->repeat = 5;
    o->pivot = LS_PIVOT_AUTO;
    o->matrices = 0xf;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--mixed-vs-cusolver"))
            continue;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(a, "--verbose")) {
            ls_bench_set_verbose();
            continue;
        }
        if (!v) {
            fprintf(stderr, "linsolve bench: %s needs a value (or is unknown)\n", a);
            return -1;
        }
        i++;
        if (!strcmp(a, "--sizes"))
            o->nsizes = ls_bench_parse_ints(v, o->sizes, LS_BENCH_MAX_LIST);
        else if (!strcmp(a, "--repeat")) {
            if (ls_bench_parse_int(v, 1, 100, &o->repeat) != 0)
                o->repeat = -1;
        }
        else if (!strcmp(a, "--factor")) {
            if (ls_factor_parse(v, &o->factor) != 0)
                o->repeat = -1;
        } else if (!strcmp(a, "--pivot")) {
            if (ls_pivot_parse(v, &o->pivot) != 0)
                o->repeat = -1;
        } else if (!strcmp(a, "--matrices")) {
            o->matrices = !strcmp(v, "all")       ? 0xf
                          : !strcmp(v, "normal")  ? 0x1
                          : !strcmp(v, "randsvd") ? 0xe
                                                  : 0;
            if (!o->matrices)
                o->repeat = -1;
        } else if (!strcmp(a, "--csv"))
            o->csv = v;
        else if (!strcmp(a, "-o"))
            o->output = v;
        else {
            fprintf(stderr, "linsolve bench --mixed-vs-cusolver: unknown option %s\n", a);
            return -1;
        }
        if (o->nsizes <= 0 || o->repeat < 1 || o->repeat > 100) {
            fprintf(stderr, "linsolve bench: bad value '%s' for %s\n", v, a);
            return -1;
        }
    }
    return 0;
}

/* "tf32x3", or "tf32x3+rbt" for factors of the butterfly-transformed A. */
static const char *factor_cell(const ls_mixed_result *m, char *buf, size_t len)
{
    const char *f = ls_factor_name(m->factor);
    snprintf(buf, len, "%s%s", f ? f : "?", m->pivot == LS_PIVOT_RBT ? "+rbt" : "");
    return buf;
}

static void csv_row(FILE *csv, int n, const mvc_case *c, const ls_perf_mixed_out *o, int st)
{
    const ls_mixed_result *m = &o->mixed;
    double ratio = st == 0 && o->t_mixed > 0 ? o->t_dgetrf / o->t_mixed : NAN;
    fprintf(csv, "%d,%s,", n, c->matrix == LS_PERF_MX_NORMAL ? "normal" : "randsvd");
    if (c->matrix == LS_PERF_MX_NORMAL)
        fputs("-,", csv);
    else
        fprintf(csv, "%.0e,", c->cond);
    char fc[32];
    fprintf(csv, "%s,%d,%d,%.4f,%.4f,%.4f,%.3f,%.3g\n", factor_cell(m, fc, sizeof fc),
            m->iterations,
            m->fell_back, o->t_mixed * 1e3, o->t_dgetrf * 1e3, o->t_irs * 1e3, ratio,
            o->res_mixed);
    fflush(csv);
}

static int run_case(ls_context *cuda, const mvc_opts *b, int n, const mvc_case *c, ls_out *out,
                    FILE *csv)
{
    ls_perf_mixed_in in = {n, c->matrix, c->cond, 20261123ULL + (unsigned long long)n, b->factor,
                           b->repeat, b->pivot};
    ls_perf_mixed_out o;
    char err[LS_ERRLEN] = "", cell[NCOLS][LS_BENCH_CELL];
    memset(&o, 0, sizeof o);
    int st = LS_BENCH_PERF(cuda, mixed_vs_peer, &in, &o, err, sizeof err);
    const ls_mixed_result *m = &o.mixed;
    for (int i = 0; i < NCOLS; i++)
        ls_cell(cell[i], "-");
    ls_cell(cell[0], "%d", n);
    ls_cell(cell[1], "%s", c->matrix == LS_PERF_MX_NORMAL ? "normal" : "randsvd");
    if (c->matrix == LS_PERF_MX_RANDSVD)
        ls_cell(cell[2], "%.0e", c->cond);
    int ok = st == 0 && o.status_mixed == 0 && o.res_mixed <= 30;
    if (st == 0) {
        char fc[32];
        ls_cell(cell[3], "%s", factor_cell(m, fc, sizeof fc));
        ls_cell(cell[4], "%s", m->refine == LS_REFINE_AUTO ? "-" : ls_refine_name(m->refine));
        ls_cell(cell[5], "%d", m->iterations);
        ls_cell(cell[6], "%s", m->fell_back ? "yes" : "no");
        ls_cell(cell[7], "%.3f", o.t_mixed * 1e3);
        ls_cell(cell[8], "%.3f", o.t_dgetrf * 1e3);
        ls_cell(cell[9], "%.3f", o.t_irs * 1e3);
        ls_cell(cell[10], "%s", o.irs_name);
        ls_cell(cell[11], "%.2f", o.t_dgetrf / o.t_mixed);
        ls_cell(cell[12], "%.3g", o.res_mixed);
    }
    ls_cell(cell[13], "%s", ok ? "ok" : "failed");
    ls_out_row(out, cell);
    if (st != 0)
        ls_out_note(out, "n=%d %s: %s", n, cell[1], err);
    else if (!ok)
        ls_out_note(out, "n=%d %s %s: %s", n, cell[1], cell[2], m->message);
    if (csv && st == 0)
        csv_row(csv, n, c, &o, o.status_mixed);
    return ok ? 0 : 1;
}

/** @return LS_BENCH_EXIT_*: 0 every row ok, 1 bad options, 2 an output
 *  cannot be written, 4 some row failed, 5 no CUDA GPU. */
int ls_bench_mixed_vs_cusolver(int argc, char **argv)
{
    mvc_opts b;
    char plain[LS_ERRLEN];
    int pr = parse(argc, argv, &b);
    if (pr)
        return pr > 0 ? LS_BENCH_EXIT_OK : LS_BENCH_EXIT_USAGE;
    ls_bench_sink sink[2]; /* the table, the CSV */
    const char *paths[2] = {b.output ? b.output : "-", b.csv};
    if (ls_bench_sinks_open("bench", 2, sink, paths) != 0)
        return LS_BENCH_EXIT_WRITE;
    ls_context *cuda = NULL;
    int st = ls_context_create(&cuda, LS_BACKEND_CUDA, 0);
    if (st != 0) {
        fprintf(stderr, "linsolve bench: --mixed-vs-cusolver needs a CUDA GPU: %.300s\n",
                ls_bench_plain(cuda ? ls_context_error(cuda) : ls_strerror(st), plain,
                               sizeof plain));
        ls_context_destroy(cuda);
        return ls_bench_sinks_abort(2, sink, LS_BENCH_EXIT_UNAVAILABLE);
    }
    FILE *f = sink[0].f, *csv = sink[1].f;
    ls_out out;
    ls_out_open(&out, f, LS_FMT_TABLE);
    ls_bench_machine_header(&out, cuda);
    ls_bench_machine_command(&out, argc, argv);
    ls_out_note(&out, "device time of a whole solve, nrhs = 1, FP64 A and b on the device; median "
                      "of %d runs after one warm-up; ratio = dgetrf_ms / mixed_ms; best_irs: "
                      "the fastest cusolverDnIRSXgesv configuration whose residual is <= 30",
                b.repeat);
    ls_out_table(&out, "mixed vs cusolver", NCOLS, COLS, WIDTHS);
    if (csv) {
        ls_bench_csv_provenance(csv, argc, argv);
        fprintf(csv, "%s\n", MVC_CSV_HEADER);
    }
    int failed = 0;
    for (int si = 0; si < b.nsizes; si++)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
            if (b.matrices & (1 << k))
                failed += run_case(cuda, &b, b.sizes[si], &cases[k], &out, csv);
    ls_out_close(&out);
    ls_context_destroy(cuda);
    return ls_bench_sinks_commit("bench", 2, sink,
                                 failed ? LS_BENCH_EXIT_FAILED : LS_BENCH_EXIT_OK);
}
