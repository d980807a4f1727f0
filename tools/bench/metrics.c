/*
 * linsolve metrics: seed 001's occupancy formula beside CUDA's own
 * calculator for every kernel of the CUDA backend, seed 001's transaction /
 * volume / beta model for the tiled GEMM and the GEMV beside measured time,
 * seed 002's CGMA and thread counts for lu-seed, and seed 002's
 * read/factor/solve timing breakdown. Parts that need a CUDA device say so
 * and are left out on other backends.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cases.h"
#include "metrics_parts.h"

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
          "  --format table|csv|json, -o FILE\n",
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
        int bad = !v;
        if (bad)
            ;
        else if (!strcmp(a, "--backend"))
            bad = ls_backend_parse(v, &backend) != 0;
        else if (!strcmp(a, "--precision"))
            bad = ls_precision_parse(v, &m.prec) != 0;
        else if (!strcmp(a, "--n"))
            bad = (m.n = atoi(v)) < 1;
        else if (!strcmp(a, "--cgma-sizes"))
            bad = (m.ncgma = ls_bench_parse_ints(v, m.cgma, LS_BENCH_MAX_LIST)) < 0;
        else if (!strcmp(a, "--breakdown-sizes"))
            bad = (m.nbreak = ls_bench_parse_ints(v, m.brk, LS_BENCH_MAX_LIST)) < 0;
        else if (!strcmp(a, "--gemm-sizes"))
            bad = (m.ngemm = ls_bench_parse_ints(v, m.gemm, LS_BENCH_MAX_LIST)) < 0;
        else if (!strcmp(a, "--repeat"))
            bad = (m.repeat = atoi(v)) < 1;
        else if (!strcmp(a, "--format"))
            bad = ls_bench_parse_format(v, &fmt) != 0;
        else if (!strcmp(a, "-o"))
            output = v;
        else
            bad = 1;
        if (bad) {
            fprintf(stderr, "linsolve metrics: bad or unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
        i++;
    }
    ls_context *ctx = NULL;
    int st = ls_context_create(&ctx, backend, 0);
    if (st != 0) {
        fprintf(stderr, "linsolve metrics: %s\n", ctx ? ls_context_error(ctx) : ls_strerror(st));
        ls_context_destroy(ctx);
        return 3;
    }
    FILE *f = output ? fopen(output, "w") : stdout;
    if (!f) {
        fprintf(stderr, "linsolve metrics: cannot write %s\n", output);
        ls_context_destroy(ctx);
        return 3;
    }
    ls_out o;
    ls_out_open(&o, f, fmt);
    ls_bench_machine_header(&o, ctx);
    int bad = 0;
    bad += ls_metrics_occupancy(&o, ctx, &m);
    bad += ls_metrics_transactions(&o, ctx, &m);
    bad += ls_metrics_cgma(&o, &m);
    bad += ls_metrics_breakdown(&o, ctx, &m);
    ls_out_close(&o);
    if (f != stdout)
        fclose(f);
    ls_context_destroy(ctx);
    return bad ? 1 : 0;
}
