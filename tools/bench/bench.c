/*
 * linsolve bench: sizes x methods x backends x precisions x nrhs, one
 * MAGMA-style row per case. Each case: one warm-up solve, then `repeat`
 * timed solves over a rotation of generated matrices (so caches do not
 * flatter), the median kept. Device time comes from the backend's event
 * timings (t_factor + t_solve), and the same plus t_h2d + t_d2h is the time
 * with transfers (Quispe Ccapacca's two tables). Speedups are the
 * acceleration ratio of Panchatcharam, Sundar & Klar (2013),
 * t_CPU / t_GPU with transfers counted, against the two
 * CPU baselines: sequential `ge` and OpenBLAS `lapack`.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <string.h>

#include "bench_cases.h"
#include "bench_output.h"
#include "bench_util.h"

int ls_cmd_bench(int argc, char **argv);
int ls_bench_lu_vs_cusolver(const ls_bench_opts *b); /* lu_vs_cusolver.c */
int ls_bench_mixed_vs_cusolver(int argc, char **argv); /* mixed_vs_cusolver.c */
int ls_bench_batched(int argc, char **argv); /* bench_batched.c */
int ls_bench_distributed(int argc, char **argv); /* bench_distributed.c (MPI) */

/* The lu-vs-cusolver sweep's medians need at least this many runs. */
#define LVC_MIN_REPEAT 5
#define LVC_DEFAULT_REPEAT 7

static void usage(FILE *f)
{
    fputs("usage: linsolve bench [options]\n"
          "  --sizes 512,1024        matrix orders (default 256,512)\n"
          "  --methods ge,lu,...     methods, or 'all' (default: auto of each backend)\n"
          "  --backends cpu,cuda     backends (default cpu; 'all' = every one available)\n"
          "  --precision single,double  (default double)\n"
          "  --nrhs 1,16             right-hand sides (default 1)\n"
          "  --repeat R              timed runs per case, median kept (default 3)\n"
          "  --rotate K              distinct generated matrices rotated (default 3)\n"
          "  --time-limit S          skip a case predicted to take > S s per solve (default 20)\n"
          "  --baseline-time-limit S the same limit for the sequential cpu ge baseline alone\n"
          "  --no-baseline           do not run the cpu ge / lapack baselines\n"
          "  --no-peers              do not run cuSOLVER peers on cuda\n"
          "  --gen KIND              generator for A (default random)\n"
          "  --format table|csv|json (default table)\n"
          "  -o FILE                 write the results to FILE (checked before measuring;\n"
          "                          replaced only once complete)\n"
          "  --verbose               add the source location to error messages (LS_DEBUG=1)\n"
          "  --lu-vs-cusolver        instead: lu (getrf + getrs on device memory) against\n"
          "                          cuSOLVER Xgetrf + Xgetrs, nrhs 1, per size and precision,\n"
          "                          lu timed on a first call (fresh buffers every run: no\n"
          "                          CUDA-graph replay) and on a replayed call (same buffers);\n"
          "                          needs a CUDA GPU; --repeat >= 5 (default 7)\n"
          "  --mixed-vs-cusolver     instead: --precision mixed against cuSOLVER dgetrf and\n"
          "                          its IRS solvers ('--mixed-vs-cusolver --help')\n"
          "  --batched               instead: batched gesv against cuBLAS getrfBatched +\n"
          "                          getrsBatched over n = 2 .. 1024 ('--batched --help')\n"
          "  --csv FILE              with --lu-vs-cusolver: also write n,precision,\n"
          "                          lu_first_ms,lu_replay_ms,cusolver_ms,ratio_first,\n"
          "                          ratio_replay to FILE (ratio = cusolver_ms / lu_ms), after\n"
          "                          two '# commit:' and '# command:' lines\n"
          "sizes, --nrhs and --repeat are integers (sizes and nrhs 1 .. 10^9, --repeat\n"
          "1 .. 1000, --rotate 1 .. 16); the time limits are seconds > 0.\n"
          "A backend named in --backends that is unavailable stops the command (exit 5)\n"
          "before anything is measured; 'all' takes those available.\n" LS_BENCH_EXIT_HELP,
          f);
}

static int parse_args(int argc, char **argv, ls_bench_opts *b, char *err, size_t len)
{
    int repeat_given = 0;
    ls_bench_opts_init(b);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int used = 1;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--no-baseline")) {
            b->baseline = 0;
            used = 0;
        } else if (!strcmp(a, "--no-peers")) {
            b->peers = 0;
            used = 0;
        } else if (!strcmp(a, "--lu-vs-cusolver")) {
            b->lu_vs_cusolver = 1;
            used = 0;
        } else if (!strcmp(a, "--verbose")) {
            ls_bench_set_verbose();
            used = 0;
        } else if (!v) {
            snprintf(err, len, "option %s needs a value (or is unknown)", a);
            return -1;
        } else if (!strcmp(a, "--sizes")) {
            b->nsizes = ls_bench_parse_ints(v, b->sizes, LS_BENCH_MAX_LIST);
            if (b->nsizes <= 0)
                goto bad;
        } else if (!strcmp(a, "--nrhs")) {
            b->nnrhs = ls_bench_parse_ints(v, b->nrhs, LS_BENCH_MAX_LIST);
            if (b->nnrhs <= 0)
                goto bad;
        } else if (!strcmp(a, "--methods")) {
            if (ls_bench_parse_method_list(v, b) != 0)
                goto bad;
        } else if (!strcmp(a, "--backends")) {
            if (ls_bench_parse_backend_list(v, b) != 0)
                goto bad;
        } else if (!strcmp(a, "--precision")) {
            char w[4][32];
            int c = ls_bench_parse_words(v, w, 4);
            if (c <= 0)
                goto bad;
            b->nprecs = 0;
            for (int k = 0; k < c; k++)
                if (ls_precision_parse(w[k], &b->precs[b->nprecs++]) != 0)
                    goto bad;
        } else if (!strcmp(a, "--repeat")) {
            repeat_given = 1;
            if (ls_bench_parse_int(v, 1, 1000, &b->repeat) != 0)
                goto bad;
        } else if (!strcmp(a, "--rotate")) {
            if (ls_bench_parse_int(v, 1, 16, &b->rotate) != 0)
                goto bad;
        } else if (!strcmp(a, "--time-limit")) {
            if (ls_bench_parse_real(v, 1e-9, 1e9, &b->time_limit) != 0)
                goto bad;
        } else if (!strcmp(a, "--baseline-time-limit")) {
            if (ls_bench_parse_real(v, 1e-9, 1e9, &b->baseline_time_limit) != 0)
                goto bad;
        } else if (!strcmp(a, "--gen")) {
            if (ls_gen_parse(v, &b->gen) != 0)
                goto bad;
        } else if (!strcmp(a, "--format")) {
            if (ls_bench_parse_format(v, &b->format) != 0)
                goto bad;
        } else if (!strcmp(a, "-o")) {
            b->output = v;
        } else if (!strcmp(a, "--csv")) {
            b->csv = v;
        } else {
            snprintf(err, len, "unknown option %s", a);
            return -1;
        }
        i += used;
        continue;
    bad:
        snprintf(err, len, "bad value '%s' for %s", v, a);
        return -1;
    }
    if (b->csv && !b->lu_vs_cusolver) {
        snprintf(err, len, "--csv goes with --lu-vs-cusolver (use --format csv -o FILE)");
        return -1;
    }
    if (b->lu_vs_cusolver && !repeat_given)
        b->repeat = LVC_DEFAULT_REPEAT;
    if (b->lu_vs_cusolver && b->repeat < LVC_MIN_REPEAT) {
        snprintf(err, len, "--lu-vs-cusolver takes medians of at least %d runs (--repeat %d)",
                 LVC_MIN_REPEAT, b->repeat);
        return -1;
    }
    return 0;
}

int ls_cmd_bench(int argc, char **argv)
{
    ls_bench_opts b;
    ls_bench_sink out;
    char err[256] = "";
    for (int i = 1; i < argc; i++) /* its own options: mixed_vs_cusolver.c */
        if (!strcmp(argv[i], "--mixed-vs-cusolver"))
            return ls_bench_mixed_vs_cusolver(argc, argv);
        else if (!strcmp(argv[i], "--batched"))
            return ls_bench_batched(argc, argv);
        else if (!strcmp(argv[i], "--distributed"))
            return ls_bench_distributed(argc, argv);
    int rc = parse_args(argc, argv, &b, err, sizeof err);
    if (rc > 0)
        return 0;
    if (rc < 0) {
        fprintf(stderr, "linsolve bench: %s\n", err);
        fputs("Try 'linsolve bench --help' for more information.\n", stderr);
        return LS_BENCH_EXIT_USAGE;
    }
    b.argc = argc, b.argv = argv;
    if (b.lu_vs_cusolver)
        return ls_bench_lu_vs_cusolver(&b);
    const char *path = b.output ? b.output : "-";
    if (ls_bench_sinks_open("bench", 1, &out, &path) != 0)
        return LS_BENCH_EXIT_WRITE;
    int failed = ls_bench_run(&b, out.f);
    if (failed == LS_BENCH_RUN_UNAVAILABLE)
        return ls_bench_sinks_abort(1, &out, LS_BENCH_EXIT_UNAVAILABLE);
    rc = failed < 0 ? LS_BENCH_EXIT_UNAVAILABLE : failed ? LS_BENCH_EXIT_FAILED : LS_BENCH_EXIT_OK;
    return ls_bench_sinks_commit("bench", 1, &out, rc);
}
