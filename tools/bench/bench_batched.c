/*
 * linsolve bench --batched: our batched gesv (nrhs = 1, on device memory)
 * against cuBLAS getrfBatched + getrsBatched, and cuSOLVER getrf + getrs
 * looped over the systems from n = 256, all timed in this process by the
 * CUDA plugin's "batched_vs_peer" request. batch = min(batch-max, 2^28 /
 * n^2). The floor is A and b read and written once at the device-to-device
 * copy bandwidth measured in the same request. A table goes to the output;
 * --csv writes n,batch,precision,ls_ms,cublas_ms,ratio,gbps,floor_fraction.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <string.h>

#include "bench_output.h"
#include "bench_util.h"
#include "core/perf/perf_batched.h"

int ls_bench_batched(int argc, char **argv);

#define CSV_HEADER "n,batch,precision,ls_ms,cublas_ms,ratio,gbps,floor_fraction"
#define RESIDUAL_MAX 30.0

static const char *const COLS[] = {"N",         "batch",       "prec",   "ls_ms",
                                   "cublas_ms", "cusolver_ms", "ratio",  "GB/s",
                                   "floor%",    "copy_GB/s",   "ls_res", "cublas_res",
                                   "singular",  "status"};
static const int WIDTHS[] = {5, 7, 6, 10, 10, 11, 7, 8, 7, 9, 9, 10, 9, 6};
#define NCOLS 14

typedef struct bb_opts {
    int sizes[LS_BENCH_MAX_LIST], nsizes;
    ls_precision precs[2];
    int nprecs, repeat, batch_max, cusolver;
    const char *output, *csv;
    ls_out_format format;
} bb_opts;

static void usage(FILE *f)
{
    fputs("usage: linsolve bench --batched [options]\n"
          "  --sizes 2,4,...,1024     orders (default 2,4,8,16,32,64,128,256,512,1024)\n"
          "  --precision double,single (default both)\n"
          "  --batch-max B            systems at most (default 100000); batch = min(B, 2^28/n^2)\n"
          "  --repeat R               timed runs of each, medians kept (default 5)\n"
          "  --no-cusolver            skip cuSOLVER getrf + getrs looped (run from n = 256)\n"
          "  --format table|csv|json  (default table)\n"
          "  -o FILE                  the table to FILE\n"
          "  --csv FILE               n,batch,precision,ls_ms,cublas_ms,ratio,gbps,floor_fraction,\n"
          "                           after '# commit:' and '# command:' lines\n"
          "  --verbose                add the source location to error messages\n"
          "--sizes 1 .. 16384, --repeat 1 .. 200, --batch-max 1 .. 10^9; -o and --csv are\n"
          "checked before measuring and replaced only once complete; needs a CUDA GPU.\n"
          "A case fails when it errs or a residual exceeds 30.\n" LS_BENCH_EXIT_HELP,
          f);
}

static int parse(int argc, char **argv, bb_opts *o)
{
    static const int def[] = {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
    memset(o, 0, sizeof *o);
    o->nsizes = (int)(sizeof def / sizeof def[0]);
    memcpy(o->sizes, def, sizeof def);
    o->precs[0] = LS_DOUBLE, o->precs[1] = LS_SINGLE, o->nprecs = 2;
    o->repeat = 5, o->batch_max = 100000, o->cusolver = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--batched"))
            continue;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(a, "--no-cusolver")) {
            o->cusolver = 0;
            continue;
        }
        if (!strcmp(a, "--verbose")) {
            ls_bench_set_verbose();
            continue;
        }
        if (!v)
            goto bad;
        i++;
        if (!strcmp(a, "--sizes")) {
            o->nsizes = ls_bench_parse_ints(v, o->sizes, LS_BENCH_MAX_LIST);
            if (o->nsizes <= 0)
                goto bad;
            for (int k = 0; k < o->nsizes; k++)
                if (o->sizes[k] < 1 || o->sizes[k] > 16384)
                    goto bad;
        } else if (!strcmp(a, "--precision")) {
            char w[2][32];
            o->nprecs = ls_bench_parse_words(v, w, 2);
            if (o->nprecs <= 0)
                goto bad;
            for (int k = 0; k < o->nprecs; k++)
                if (ls_precision_parse(w[k], &o->precs[k]) != 0)
                    goto bad;
        } else if (!strcmp(a, "--repeat")) {
            if (ls_bench_parse_int(v, 1, 200, &o->repeat) != 0)
                goto bad;
        } else if (!strcmp(a, "--batch-max")) {
            if (ls_bench_parse_int(v, 1, 1000000000L, &o->batch_max) != 0)
                goto bad;
        } else if (!strcmp(a, "--format")) {
            if (ls_bench_parse_format(v, &o->format) != 0)
                goto bad;
        } else if (!strcmp(a, "-o")) {
            o->output = v;
        } else if (!strcmp(a, "--csv")) {
            o->csv = v;
        } else {
            goto bad;
        }
        continue;
    bad:
        fprintf(stderr, "linsolve bench --batched: bad or unknown option %s%s%s\n", a,
                v ? " " : "", v ? v : "");
        return -1;
    }
    return 0;
}

/* One (n, precision) case: a table row, a CSV row; 1 when it failed. */
static int run_case(ls_context *cuda, const bb_opts *o, int n, ls_precision p, ls_out *out,
                    FILE *csv)
{
    long long cap = (1LL << 28) / ((long long)n * n);
    int batch = (int)(cap < o->batch_max ? (cap > 0 ? cap : 1) : o->batch_max);
    ls_perf_batched_in q = {p, n, batch, o->repeat, o->cusolver && n >= 256};
    ls_perf_batched_out r;
    char err[LS_ERRLEN] = "", c[NCOLS][LS_BENCH_CELL];
    memset(&r, 0, sizeof r);
    int st = LS_BENCH_PERF(cuda, batched_vs_peer, &q, &r, err, sizeof err);
    int ok = st == 0 && r.res_ours <= RESIDUAL_MAX && r.singular_ours == 0;
    double gbps = st == 0 && r.t_ours > 0 ? r.bytes / r.t_ours / 1e9 : 0;
    double ratio = st == 0 && r.t_ours > 0 ? r.t_cublas / r.t_ours : 0;
    double floor = r.copy_gbps > 0 ? gbps / r.copy_gbps : 0;
    for (int i = 0; i < NCOLS; i++)
        ls_cell(c[i], "-");
    ls_cell(c[0], "%d", n);
    ls_cell(c[1], "%d", batch);
    ls_cell(c[2], "%s", ls_precision_name(p));
    if (st == 0) {
        ls_cell(c[3], "%.4f", r.t_ours * 1e3);
        ls_cell(c[4], "%.4f", r.t_cublas * 1e3);
        if (r.t_cusolver > 0)
            ls_cell(c[5], "%.3f", r.t_cusolver * 1e3);
        ls_cell(c[6], "%.2f", ratio);
        ls_cell(c[7], "%.0f", gbps);
        ls_cell(c[8], "%.1f", 100.0 * floor);
        ls_cell(c[9], "%.0f", r.copy_gbps);
        ls_cell(c[10], "%.3g", r.res_ours);
        ls_cell(c[11], "%.3g", r.res_cublas);
        ls_cell(c[12], "%d/%d", r.singular_ours, r.singular_cublas);
    }
    ls_cell(c[13], "%s", ok ? "ok" : "failed");
    ls_out_row(out, c);
    if (st != 0)
        ls_out_note(out, "n=%d %s failed: %.200s", n, ls_precision_name(p), err);
    else if (!ok)
        ls_out_note(out, "n=%d %s: residual %.3g over %d checked systems, %d singular", n,
                    ls_precision_name(p), r.res_ours, r.checked, r.singular_ours);
    if (csv && st == 0) {
        fprintf(csv, "%d,%d,%s,%.6f,%.6f,%.4f,%.1f,%.4f\n", n, batch,
                p == LS_DOUBLE ? "fp64" : "fp32", r.t_ours * 1e3, r.t_cublas * 1e3, ratio, gbps,
                floor);
        fflush(csv);
    }
    return !ok;
}

/** @return LS_BENCH_EXIT_*: 0 every case ok, 1 bad options, 2 an output
 *  cannot be written, 4 some case failed, 5 no CUDA GPU. */
int ls_bench_batched(int argc, char **argv)
{
    bb_opts o;
    char plain[LS_ERRLEN];
    int rc = parse(argc, argv, &o);
    if (rc != 0)
        return rc > 0 ? LS_BENCH_EXIT_OK : LS_BENCH_EXIT_USAGE;
    ls_bench_sink sink[2]; /* the table, the CSV */
    const char *paths[2] = {o.output ? o.output : "-", o.csv};
    if (ls_bench_sinks_open("bench", 2, sink, paths) != 0)
        return LS_BENCH_EXIT_WRITE;
    ls_context *cuda = NULL;
    int st = ls_context_create(&cuda, LS_BACKEND_CUDA, 0);
    if (st != 0) {
        fprintf(stderr, "linsolve bench: --batched needs a CUDA GPU: %.300s\n",
                ls_bench_plain(cuda ? ls_context_error(cuda) : ls_strerror(st), plain,
                               sizeof plain));
        ls_context_destroy(cuda);
        return ls_bench_sinks_abort(2, sink, LS_BENCH_EXIT_UNAVAILABLE);
    }
    FILE *f = sink[0].f, *csv = sink[1].f;
    ls_out out;
    ls_out_open(&out, f, o.format);
    ls_bench_machine_header(&out, cuda);
    ls_bench_machine_command(&out, argc, argv);
    ls_out_note(&out, "batched gesv, nrhs = 1, stacks on the device (column-major, random "
                      "uniform entries); device time, median of %d runs after one warm-up, ours "
                      "and cuBLAS's interleaved, L2 flushed before each; ratio = cublas_ms / "
                      "ls_ms; floor%% = our GB/s (A and b read + written once) over the measured "
                      "device-to-device copy GB/s",
                o.repeat);
    ls_out_table(&out, "batched gesv vs cublas", NCOLS, COLS, WIDTHS);
    if (csv) {
        ls_bench_csv_provenance(csv, argc, argv);
        fprintf(csv, "%s\n", CSV_HEADER);
    }
    int failed = 0, total = o.nsizes * o.nprecs, done = 0;
    for (int si = 0; si < o.nsizes; si++)
        for (int pi = 0; pi < o.nprecs; pi++) {
            char what[64];
            snprintf(what, sizeof what, "n=%d %s", o.sizes[si], ls_precision_name(o.precs[pi]));
            ls_bench_progress(done++, total, what);
            failed += run_case(cuda, &o, o.sizes[si], o.precs[pi], &out, csv);
        }
    ls_bench_progress(total, total, "done");
    ls_out_close(&out);
    ls_context_destroy(cuda);
    return ls_bench_sinks_commit("bench", 2, sink,
                                 failed ? LS_BENCH_EXIT_FAILED : LS_BENCH_EXIT_OK);
}
