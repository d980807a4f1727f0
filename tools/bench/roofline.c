/*
 * linsolve roofline: measures the ceilings (device copy bandwidth, FMA
 * throughput with dedicated kernels), runs Li (2025)'s intensity sweep
 * (loop counts 1 ... 50000) to trace the measured roofline and its ridge
 * point, and places each solver method on it (model flops and bytes vs
 * measured time). Writes CSV files and a gnuplot script, and a PNG when
 * gnuplot is installed. Backends without a perf slot (cpu, opencl) get the
 * host CPU's ceilings, measured on one core, and the output says so.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_cases.h"
#include "bench_output.h"
#include "roofline_host.h"

/* Largest orders of the sweep and of the methods: dense matrices. */
#define RL_MAX_N 65536

int ls_cmd_roofline(int argc, char **argv);

static const int LOOPS[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000};
#define NLOOPS ((int)(sizeof LOOPS / sizeof LOOPS[0]))

static void usage(FILE *f)
{
    fputs("usage: linsolve roofline [options]\n"
          "  --backend auto|cpu|cuda|opencl (default auto)\n"
          "  --precision single|double      (default single, as Li 2025)\n"
          "  --n N            intensity-sweep matrix order (default 4096 on cuda, 256 else)\n"
          "  --max-loop L     last loop count of the sweep (default 50000 on cuda, 200 else)\n"
          "  --methods LIST   methods to place (default: every supported one)\n"
          "  --method-n N     size the methods run at (default 2048 on cuda, 128 else)\n"
          "  --repeat R       (default 3)\n"
          "  --dir DIR        where roofline_*.csv, roofline.gp, roofline.png go (default .)\n"
          "  --format table|csv|json, -o FILE   the printed tables\n"
          "  --verbose        add the source location to error messages\n"
          "--n and --method-n are integers 1 .. 65536, --max-loop 1 .. 50000, --repeat\n"
          "1 .. 1000. Every output file is checked before measuring and replaced only once\n"
          "complete; the CSV files open with '# commit:' and '# command:' lines.\n"
          "exit status: 0 every measurement ok; 1 bad option or value; 2 an output file\n"
          "cannot be written (named; the old file is left as it was); 4 a measurement\n"
          "failed; 5 the backend is unavailable\n",
          f);
}

typedef struct rl_opts {
    ls_backend_kind backend;
    ls_precision prec;
    int n, max_loop, method_n, repeat;
    const char *dir, *output;
    ls_out_format fmt;
    ls_bench_opts methods; /* reuses bench's method-list parsing */
} rl_opts;

/* The ceilings and the sweep, on the device when it answers the perf
 * table's entries, else on the host (one core). */
static int measure_copy(ls_context *ctx, int device, const ls_perf_copy_in *in, ls_perf_timing *t,
                        const rl_opts *r, char *err, size_t len)
{
    if (device)
        return LS_BENCH_PERF(ctx, copy, in, t, err, len);
    return ls_host_copy(in->bytes, r->repeat, t);
}

static int measure_fma(ls_context *ctx, int device, const ls_perf_fma_in *in, ls_perf_timing *t,
                       const rl_opts *r, char *err, size_t len)
{
    if (device)
        return LS_BENCH_PERF(ctx, fma, in, t, err, len);
    return ls_host_fma(r->prec, r->repeat, t);
}

static int measure_intensity(ls_context *ctx, int device, const ls_perf_intensity_in *in,
                             ls_perf_timing *t, const rl_opts *r, char *err, size_t len)
{
    if (device)
        return LS_BENCH_PERF(ctx, intensity, in, t, err, len);
    return ls_host_intensity(in->prec, in->n, in->loop, r->repeat, t);
}

/* roofline.gp; 0 or LS_EIO with err naming the file. */
static int write_gp(const char *dir, int have_png, double bw, double peak, double ridge,
                    const char *title, char *err, size_t errlen)
{
    char path[1024];
    ls_bench_sink gp;
    snprintf(path, sizeof path, "%s/roofline.gp", dir);
    int st = ls_bench_sink_open(&gp, path, err, errlen);
    if (st != 0)
        return st;
    FILE *g = gp.f;
    fprintf(g,
            "# Roofline: measured ceilings, the intensity sweep of Li (2025), Gaussian\n"
            "# Elimination on GPU, with Naive and Optimization Approaches, and the methods.\n"
            "# Run from this folder: gnuplot roofline.gp\n"
            "set terminal %s size 1000,700\n"
            "set output 'roofline.%s'\n"
            "set datafile separator ','\n"
            "set logscale xy\n"
            "set xlabel 'operational intensity (flop/byte)'\n"
            "set ylabel 'GFLOP/s'\n"
            "set title '%s'\n"
            "set key left top\n"
            "bw = %.6g\npeak = %.6g\nridge = %.6g\n"
            "roof(x) = (x * bw < peak) ? x * bw : peak\n"
            "set arrow from ridge, graph 0 to ridge, graph 1 nohead dt 2\n"
            "# skip 3: the commit and command lines, then the header\n"
            "plot [0.01:10000] roof(x) title sprintf('measured roof (ridge %%.2f flop/B)', ridge) lw 2, \\\n"
            "     'roofline_sweep.csv' using 3:4 skip 3 with linespoints title 'intensity sweep', \\\n"
            "     'roofline_methods.csv' using 5:6:1 skip 3 with labels point pt 7 offset 1,0.5 title 'methods'\n",
            have_png ? "pngcairo" : "svg", have_png ? "png" : "svg", title, bw, peak, ridge);
    return ls_bench_sink_commit(&gp, err, errlen);
}

static int parse(int argc, char **argv, rl_opts *r)
{
    memset(r, 0, sizeof *r);
    r->backend = LS_BACKEND_AUTO;
    r->prec = LS_SINGLE;
    r->repeat = 3;
    r->dir = ".";
    ls_bench_opts_init(&r->methods);
    r->methods.methods_all = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(a, "--verbose")) {
            ls_bench_set_verbose();
            continue;
        }
        int bad = !v;
        if (bad)
            ;
        else if (!strcmp(a, "--backend"))
            bad = ls_backend_parse(v, &r->backend) != 0;
        else if (!strcmp(a, "--precision"))
            bad = ls_precision_parse(v, &r->prec) != 0;
        else if (!strcmp(a, "--n"))
            bad = ls_bench_parse_int(v, 1, RL_MAX_N, &r->n) != 0;
        else if (!strcmp(a, "--max-loop"))
            bad = ls_bench_parse_int(v, 1, LOOPS[NLOOPS - 1], &r->max_loop) != 0;
        else if (!strcmp(a, "--method-n"))
            bad = ls_bench_parse_int(v, 1, RL_MAX_N, &r->method_n) != 0;
        else if (!strcmp(a, "--methods"))
            bad = ls_bench_parse_method_list(v, &r->methods) != 0;
        else if (!strcmp(a, "--repeat"))
            bad = ls_bench_parse_int(v, 1, 1000, &r->repeat) != 0;
        else if (!strcmp(a, "--dir"))
            r->dir = v;
        else if (!strcmp(a, "--format"))
            bad = ls_bench_parse_format(v, &r->fmt) != 0;
        else if (!strcmp(a, "-o"))
            r->output = v;
        else
            bad = 1;
        if (bad) {
            if (v)
                fprintf(stderr, "linsolve roofline: bad value '%s' for %s (or unknown option)\n",
                        v, a);
            else
                fprintf(stderr, "linsolve roofline: option %s needs a value (or is unknown)\n",
                        a);
            fputs("Try 'linsolve roofline --help' for more information.\n", stderr);
            return -1;
        }
        i++;
    }
    return 0;
}

int ls_cmd_roofline(int argc, char **argv)
{
    rl_opts r;
    char err[LS_ERRLEN] = "", plain[LS_ERRLEN];
    int pr = parse(argc, argv, &r);
    if (pr)
        return pr > 0 ? LS_BENCH_EXIT_OK : LS_BENCH_EXIT_USAGE;
    /* Every output checked, and open, before anything is measured. */
    if (mkdir(r.dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "linsolve roofline: cannot create the folder %s: %s\n", r.dir,
                strerror(errno));
        return LS_BENCH_EXIT_WRITE;
    }
    char sweep_path[1024], meth_path[1024], gp_path[1024];
    snprintf(sweep_path, sizeof sweep_path, "%s/roofline_sweep.csv", r.dir);
    snprintf(meth_path, sizeof meth_path, "%s/roofline_methods.csv", r.dir);
    snprintf(gp_path, sizeof gp_path, "%s/roofline.gp", r.dir);
    if (ls_bench_sink_check(gp_path, err, sizeof err) != 0) {
        fprintf(stderr, "linsolve roofline: %s\n", ls_bench_plain(err, plain, sizeof plain));
        return LS_BENCH_EXIT_WRITE;
    }
    enum { TABLE, SWEEP, METH, NSINKS };
    ls_bench_sink sink[NSINKS];
    const char *paths[NSINKS] = {r.output ? r.output : "-", sweep_path, meth_path};
    if (ls_bench_sinks_open("roofline", NSINKS, sink, paths) != 0)
        return LS_BENCH_EXIT_WRITE;
    ls_context *ctx = NULL;
    int st = ls_context_create(&ctx, r.backend, 0);
    if (st != 0) {
        fprintf(stderr, "linsolve roofline: %s\n",
                ls_bench_plain(ctx ? ls_context_error(ctx) : ls_strerror(st), plain,
                               sizeof plain));
        ls_context_destroy(ctx);
        return ls_bench_sinks_abort(NSINKS, sink, LS_BENCH_EXIT_UNAVAILABLE);
    }
    ls_perf_device dev;
    int device = LS_BENCH_PERF_DEVICE(ctx, &dev, err, sizeof err) == 0;
    if (!r.n)
        r.n = device ? 4096 : 256;
    if (!r.max_loop)
        r.max_loop = device ? 50000 : 200;
    if (!r.method_n)
        r.method_n = device ? 2048 : 128;
    if (!device)
        r.prec = LS_DOUBLE; /* the host kernels run in double */

    FILE *sweep = sink[SWEEP].f, *meth = sink[METH].f;
    ls_out o;
    ls_out_open(&o, sink[TABLE].f, r.fmt);
    ls_bench_machine_header(&o, ctx);
    ls_bench_machine_command(&o, argc, argv);
    ls_bench_csv_provenance(sweep, argc, argv);
    ls_bench_csv_provenance(meth, argc, argv);
    if (!device)
        ls_out_note(&o, "backend %s has no measurement slot: ceilings and sweep are the host "
                        "CPU's, one core, double precision",
                    ls_backend_name(ls_context_backend(ctx)));
    int failed = 0;

    /* Ceilings. */
    ls_perf_copy_in cin = {device ? (size_t)1 << 28 : (size_t)1 << 26, r.repeat};
    ls_perf_fma_in fin = {r.prec, r.repeat};
    ls_perf_timing tc, tf;
    memset(&tc, 0, sizeof tc), memset(&tf, 0, sizeof tf);
    if (measure_copy(ctx, device, &cin, &tc, &r, err, sizeof err) != 0 ||
        measure_fma(ctx, device, &fin, &tf, &r, err, sizeof err) != 0) {
        ls_out_note(&o, "ceiling measurement failed: %s", err);
        failed++;
    }
    double ridge = tc.gbps > 0 ? tf.gflops / tc.gbps : 0;
    {
        static const char *const cols[] = {"ceiling", "measured", "theoretical", "unit"};
        static const int w[] = {22, 12, 12, 10};
        ls_out_table(&o, "ceilings", 4, cols, w);
        char c[4][LS_BENCH_CELL];
        double peak_th = device ? (r.prec == LS_SINGLE ? dev.peak_fp32_gflops : dev.peak_fp64_gflops) : 0;
        ls_cell(c[0], "copy bandwidth"), ls_cell(c[1], "%.2f", tc.gbps);
        device ? ls_cell(c[2], "%.2f", dev.peak_bw_gbs) : ls_cell(c[2], "-");
        ls_cell(c[3], "GB/s");
        ls_out_row(&o, c);
        ls_cell(c[0], "%s FMA peak", ls_precision_name(r.prec)), ls_cell(c[1], "%.2f", tf.gflops);
        device ? ls_cell(c[2], "%.2f", peak_th) : ls_cell(c[2], "-");
        ls_cell(c[3], "GFLOP/s");
        ls_out_row(&o, c);
        ls_cell(c[0], "ridge point"), ls_cell(c[1], "%.3f", ridge);
        device && dev.peak_bw_gbs > 0 ? ls_cell(c[2], "%.3f", peak_th / dev.peak_bw_gbs)
                                      : ls_cell(c[2], "-");
        ls_cell(c[3], "flop/byte");
        ls_out_row(&o, c);
    }

    /* The intensity sweep of Li (2025), docs/references.md. */
    static const char *const scols[] = {"loop", "n", "intensity", "GFLOP/s", "GB/s", "time(s)"};
    static const int sw[] = {6, 6, 10, 10, 9, 11};
    ls_out_table(&o, "intensity sweep (Li 2025, Gaussian elimination on GPU)", 6, scols, sw);
    fprintf(sweep, "loop,n,intensity,gflops,gbps,seconds\n");
    double best = 0, knee = 0;
    double sweep_i[NLOOPS], sweep_g[NLOOPS];
    int ns = 0;
    for (int i = 0; i < NLOOPS && LOOPS[i] <= r.max_loop; i++) {
        ls_perf_intensity_in in = {r.prec, r.n, LOOPS[i], r.repeat};
        ls_perf_timing t;
        ls_bench_progress(i, NLOOPS, "intensity sweep");
        if (measure_intensity(ctx, device, &in, &t, &r, err, sizeof err) != 0) {
            ls_out_note(&o, "intensity loop %d failed: %s", LOOPS[i], err);
            failed++;
            break;
        }
        double inten = t.bytes > 0 ? t.flops / t.bytes : 0;
        char c[6][LS_BENCH_CELL];
        ls_cell(c[0], "%d", LOOPS[i]), ls_cell(c[1], "%d", r.n), ls_cell(c[2], "%.4g", inten);
        ls_cell(c[3], "%.2f", t.gflops), ls_cell(c[4], "%.2f", t.gbps), ls_cell(c[5], "%.4e", t.seconds);
        ls_out_row(&o, c);
        fprintf(sweep, "%d,%d,%.6g,%.6g,%.6g,%.6g\n", LOOPS[i], r.n, inten, t.gflops, t.gbps, t.seconds);
        sweep_i[ns] = inten, sweep_g[ns] = t.gflops, ns++;
        if (t.gflops > best)
            best = t.gflops;
    }
    ls_bench_progress(NLOOPS, NLOOPS, "intensity sweep");
    /* The sweep's knee: the first intensity reaching 90% of its plateau. */
    for (int i = 0; i < ns; i++)
        if (sweep_g[i] >= 0.9 * best) {
            knee = sweep_i[i];
            break;
        }
    ls_out_note(&o, "measured ridge (FMA peak / copy bandwidth) %.3f flop/B; sweep plateau %.2f "
                    "GFLOP/s, reached (90%%) at intensity %.3g",
                ridge, best, knee);

    /* The methods on the roof. */
    static const char *const mcols[] = {"method", "backend", "prec", "n", "intensity", "GFLOP/s",
                                        "time(s)", "residual", "status"};
    static const int mw[] = {14, 7, 6, 6, 10, 10, 11, 9, 6};
    ls_out_table(&o, "methods on the roofline", 9, mcols, mw);
    fprintf(meth, "method,backend,prec,n,intensity,gflops,seconds\n");
    r.methods.repeat = r.repeat;
    for (int m = 1; m < LS_METHOD_COUNT_; m++) {
        int wanted = r.methods.methods_all;
        for (int k = 0; k < r.methods.nmethods; k++)
            wanted |= r.methods.methods[k] == (ls_method)m;
        if (!wanted || ls_context_supports(ctx, (ls_method)m, r.prec) != 0)
            continue;
        if (m == LS_METHOD_GE && r.method_n > 1024)
            /* sequential ge (Li 2025's Algorithm 1): minutes at large n, and not a
             * device method */
            continue;
        ls_bench_result res;
        if (ls_bench_case(ctx, (ls_method)m, r.prec, r.method_n, 1, &r.methods, &res) != 0)
            break;
        double inten = res.bytes > 0 ? res.flops / res.bytes : 0;
        double g = res.t_dev > 0 ? res.flops / res.t_dev / 1e9 : 0;
        char c[9][LS_BENCH_CELL];
        ls_cell(c[0], "%s", ls_method_name(res.method));
        ls_cell(c[1], "%s", ls_backend_name(ls_context_backend(ctx)));
        ls_cell(c[2], "%s", ls_precision_name(r.prec));
        ls_cell(c[3], "%d", r.method_n), ls_cell(c[4], "%.4g", inten), ls_cell(c[5], "%.3f", g);
        ls_cell(c[6], "%.4e", res.t_dev), ls_cell(c[7], "%.3g", res.residual);
        ls_cell(c[8], "%s", res.ok ? "ok" : "failed");
        ls_out_row(&o, c);
        failed += !res.ok;
        if (res.ok)
            fprintf(meth, "%s,%s,%s,%d,%.6g,%.6g,%.6g\n", ls_method_name(res.method),
                    ls_backend_name(ls_context_backend(ctx)), ls_precision_name(r.prec), r.method_n,
                    inten, g, res.t_dev);
    }
    /* The CSV files in place before gnuplot reads them. */
    int wrote = ls_bench_sinks_commit("roofline", 2, sink + SWEEP, 0);

    /* The plot: gnuplot as an external program, when it is there. */
    int have_gnuplot = system("command -v gnuplot >/dev/null 2>&1") == 0;
    char title[300];
    snprintf(title, sizeof title, "Roofline, %s, %s", device ? dev.name : "host CPU (1 core)",
             ls_precision_name(r.prec));
    for (char *p = title; *p; p++)
        if (*p == '\'')
            *p = ' ';
    if (wrote == 0 && write_gp(r.dir, have_gnuplot, tc.gbps, tf.gflops, ridge, title, err,
                               sizeof err) != 0) {
        fprintf(stderr, "linsolve roofline: %s\n", ls_bench_plain(err, plain, sizeof plain));
        wrote = LS_BENCH_EXIT_WRITE;
    }
    if (wrote != 0) {
        ls_out_note(&o, "the files in %s could not all be written: no plot", r.dir);
    } else if (have_gnuplot) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot roofline.gp >/dev/null 2>&1", r.dir);
        if (system(cmd) != 0) {
            /* pngcairo may be missing: fall back to the png terminal. */
            snprintf(cmd, sizeof cmd,
                     "cd '%s' && sed -i 's/pngcairo/png/' roofline.gp && gnuplot roofline.gp >/dev/null 2>&1",
                     r.dir);
            if (system(cmd) != 0)
                ls_out_note(&o, "gnuplot failed: the CSV files and roofline.gp are in %s", r.dir);
            else
                ls_out_note(&o, "plot: %s/roofline.png", r.dir);
        } else {
            ls_out_note(&o, "plot: %s/roofline.png", r.dir);
        }
    } else {
        ls_out_note(&o, "gnuplot not found: wrote the CSV files and roofline.gp (SVG terminal) in "
                        "%s, no picture",
                    r.dir);
    }
    ls_out_close(&o);
    ls_context_destroy(ctx);
    int rc = ls_bench_sinks_commit("roofline", 1, sink + TABLE,
                                   failed ? LS_BENCH_EXIT_FAILED : LS_BENCH_EXIT_OK);
    return wrote ? wrote : rc;
}
