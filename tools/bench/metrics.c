/*
 * linsolve metrics: the occupancy formula of Panchatcharam, Sundar & Klar
 * (2013) beside CUDA's own calculator for every kernel of the CUDA backend,
 * their transaction / volume / beta model for the tiled GEMM and the GEMV
 * beside measured time, Pattam's CGMA and thread counts for lu-seed, and
 * Pattam's read/factor/solve timing breakdown. Parts that need a CUDA device say so
 * and are left out on other backends.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cases.h"
#include "bench_output.h"
#include "metrics_parts.h"

/* The largest order any of the tables takes: their matrices are dense. */
#define METRICS_MAX_N 65536

/* A size list whose every entry is at most METRICS_MAX_N: count or -1. */
static int parse_sizes(const char *v, int *out)
{
    int c = ls_bench_parse_ints(v, out, LS_BENCH_MAX_LIST);
    for (int i = 0; i < c; i++)
        if (out[i] > METRICS_MAX_N)
            return -1;
    return c;
}

int ls_cmd_metrics(int argc, char **argv);

static void usage(FILE *f)
{
    fputs("usage: linsolve metrics [options]\n"
          "  --backend auto|cpu|cuda|opencl  (default auto)\n"
          "  --precision single|double       (default double)\n"
          "  --n N                launch configuration size for occupancy (default 1024)\n"
          "  --cgma-sizes LIST    lu-seed CGMA/thread table (default 50,80,100,200,500,1000,2048,4096)\n"
          "  --breakdown-sizes L  read/factor/solve breakdown (default 50,100,200,500)\n"
          "  --gemm-sizes LIST    GEMM/GEMV transaction table (default 1024,2048,4096)\n"
          "  --repeat R           (default 3)\n"
          "  --format table|csv|json, -o FILE  (-o checked before measuring, replaced only\n"
          "                       once complete)\n"
          "  --verbose            add the source location to error messages\n"
          "--n and the sizes are integers 1 .. 65536, --repeat 1 .. 1000.\n"
          "exit status: 0 every table ok; 1 bad option or value; 2 the output file cannot be\n"
          "written (named; the old file is left as it was); 4 a table failed its check; 5\n"
          "the backend is unavailable\n",
          f);
}

int ls_cmd_metrics(int argc, char **argv)
{
    ls_metrics_opts m;
    memset(&m, 0, sizeof m);
    ls_backend_kind backend = LS_BACKEND_AUTO;
    ls_out_format fmt = LS_FMT_TABLE;
    const char *output = NULL;
    m.prec = LS_DOUBLE;
    m.n = 1024;
    m.repeat = 3;
    m.ncgma = ls_bench_parse_ints("50,80,100,200,500,1000,2048,4096", m.cgma, LS_BENCH_MAX_LIST);
    m.nbreak = ls_bench_parse_ints("50,100,200,500", m.brk, LS_BENCH_MAX_LIST);
    m.ngemm = ls_bench_parse_ints("1024,2048,4096", m.gemm, LS_BENCH_MAX_LIST);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--verbose")) {
            ls_bench_set_verbose();
            continue;
        }
        int bad = !v;
        if (bad)
            ;
        else if (!strcmp(a, "--backend"))
            bad = ls_backend_parse(v, &backend) != 0;
        else if (!strcmp(a, "--precision"))
            bad = ls_precision_parse(v, &m.prec) != 0;
        else if (!strcmp(a, "--n"))
            bad = ls_bench_parse_int(v, 1, METRICS_MAX_N, &m.n) != 0;
        else if (!strcmp(a, "--cgma-sizes"))
            bad = (m.ncgma = parse_sizes(v, m.cgma)) < 0;
        else if (!strcmp(a, "--breakdown-sizes"))
            bad = (m.nbreak = parse_sizes(v, m.brk)) < 0;
        else if (!strcmp(a, "--gemm-sizes"))
            bad = (m.ngemm = parse_sizes(v, m.gemm)) < 0;
        else if (!strcmp(a, "--repeat"))
            bad = ls_bench_parse_int(v, 1, 1000, &m.repeat) != 0;
        else if (!strcmp(a, "--format"))
            bad = ls_bench_parse_format(v, &fmt) != 0;
        else if (!strcmp(a, "-o"))
            output = v;
        else
            bad = 1;
        if (bad) {
            if (v)
                fprintf(stderr, "linsolve metrics: bad value '%s' for %s (or unknown option)\n",
                        v, a);
            else
                fprintf(stderr, "linsolve metrics: option %s needs a value (or is unknown)\n", a);
            fputs("Try 'linsolve metrics --help' for more information.\n", stderr);
            return LS_BENCH_EXIT_USAGE;
        }
        i++;
    }
    ls_bench_sink sink;
    const char *path = output ? output : "-";
    if (ls_bench_sinks_open("metrics", 1, &sink, &path) != 0)
        return LS_BENCH_EXIT_WRITE;
    ls_context *ctx = NULL;
    char plain[LS_ERRLEN];
    int st = ls_context_create(&ctx, backend, 0);
    if (st != 0) {
        fprintf(stderr, "linsolve metrics: %s\n",
                ls_bench_plain(ctx ? ls_context_error(ctx) : ls_strerror(st), plain,
                               sizeof plain));
        ls_context_destroy(ctx);
        return ls_bench_sinks_abort(1, &sink, LS_BENCH_EXIT_UNAVAILABLE);
    }
    FILE *f = sink.f;
    ls_out o;
    ls_out_open(&o, f, fmt);
    ls_bench_machine_header(&o, ctx);
    ls_bench_machine_command(&o, argc, argv);
    int bad = 0;
    bad += ls_metrics_occupancy(&o, ctx, &m);
    bad += ls_metrics_transactions(&o, ctx, &m);
    bad += ls_metrics_cgma(&o, &m);
    bad += ls_metrics_breakdown(&o, ctx, &m);
    ls_out_close(&o);
    ls_context_destroy(ctx);
    return ls_bench_sinks_commit("metrics", 1, &sink,
                                 bad ? LS_BENCH_EXIT_FAILED : LS_BENCH_EXIT_OK);
}
