/*
 * linsolve bench --lu-vs-cusolver: our lu (getrf + getrs on device memory)
 * against cuSOLVER's Xgetrf + Xgetrs, nrhs = 1, both timed in this process
 * by the CUDA plugin's "lu_vs_peer" request, over sizes x precisions. Ours
 * is timed twice: on a first call (buffers new to it every run, so no
 * captured CUDA graph can be replayed: what a program solving a new array
 * gets) and on a replayed call (the same buffers again). A table (with the
 * residuals and our TFLOP/s) goes to the output, and the CSV
 * `n,precision,lu_first_ms,lu_replay_ms,cusolver_ms,ratio_first,ratio_replay`
 * to --csv. One host matrix per size serves both precisions.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <string.h>

#include "bench_cases.h"
#include "bench_output.h"
#include "lu_vs_cusolver_csv.h"

int ls_bench_lu_vs_cusolver(const ls_bench_opts *b);

static const char *const COLS[] = {
    "N",           "prec",         "lu_first_ms",  "lu_replay_ms", "cusolver_ms",
    "ratio_first", "ratio_replay", "first_TFLOP/s", "lu_residual", "cus_residual",
    "first_spread%", "replay_spread%", "cus_spread%", "runs",       "wall_s",
    "status"};
static const int WIDTHS[] = {6, 6, 11, 12, 11, 28, 28, 13, 11, 12, 13, 14, 11, 4, 7, 6};
#define NCOLS 16

static double spread_pct(double lo, double hi, double med)
{
    return med > 0 ? 100.0 * (hi - lo) / med : 0.0;
}

/* wall: seconds of the whole request (upload, warm-ups, runs, residuals). */
static void table_row(ls_out *out, const ls_lvc_row *r, const ls_perf_lu_vs_peer_out *o,
                      double wall)
{
    char c[NCOLS][LS_BENCH_CELL];
    ls_lvc_state s = ls_lvc_classify(r);
    int measured = s == LS_LVC_OK || s == LS_LVC_REFUSED;
    for (int i = 0; i < NCOLS; i++)
        ls_cell(c[i], "-");
    ls_cell(c[0], "%d", r->n);
    ls_cell(c[1], "%s", ls_precision_name(r->prec));
    ls_lvc_ratio_text(r, r->t_lu_first, c[5], LS_BENCH_CELL);
    ls_lvc_ratio_text(r, r->t_lu, c[6], LS_BENCH_CELL);
    if (measured) {
        ls_cell(c[2], "%.4f", r->t_lu_first * 1e3);
        ls_cell(c[3], "%.4f", r->t_lu * 1e3);
        ls_cell(c[4], "%.4f", r->t_cusolver * 1e3);
        if (r->t_lu_first > 0)
            ls_cell(c[7], "%.2f", ls_flops_gesv(r->n, 1) / r->t_lu_first / 1e12);
        ls_cell(c[8], "%.3g", r->res_lu);
        ls_cell(c[9], "%.3g", r->res_cusolver);
        ls_cell(c[10], "%.1f",
                spread_pct(o->t_ours_first_min, o->t_ours_first_max, o->t_ours_first));
        ls_cell(c[11], "%.1f", spread_pct(o->t_ours_min, o->t_ours_max, o->t_ours));
        ls_cell(c[12], "%.1f", spread_pct(o->t_peer_min, o->t_peer_max, o->t_peer));
        ls_cell(c[13], "%d", o->runs);
        ls_cell(c[14], "%.1f", wall);
    }
    ls_cell(c[15], "%s", s == LS_LVC_OK ? "ok" : s == LS_LVC_SKIPPED ? "skip" : "failed");
    ls_out_row(out, c);
}

/* One (n, precision) case through the plugin; the row says what came of it. */
static void run_case(ls_context *cuda, const ls_bench_opts *b, const ls_bench_inputs *in,
                     ls_precision p, ls_out *out, FILE *csv, int *failed)
{
    ls_perf_lu_vs_peer_in q = {p, in->n, in->A[0], in->B[0], b->repeat};
    ls_perf_lu_vs_peer_out o;
    ls_lvc_row r;
    char err[LS_ERRLEN] = "";
    memset(&o, 0, sizeof o);
    memset(&r, 0, sizeof r);
    r.n = in->n, r.prec = p;
    double t0 = ls_bench_clock();
    r.status = LS_BENCH_PERF(cuda, lu_vs_peer, &q, &o, err, sizeof err);
    double wall = ls_bench_clock() - t0;
    r.t_lu_first = o.t_ours_first, r.t_lu = o.t_ours, r.t_cusolver = o.t_peer;
    r.res_lu = o.res_ours, r.res_cusolver = o.res_peer;
    r.info_lu = o.info_ours, r.info_cusolver = o.info_peer;
    table_row(out, &r, &o, wall);
    if (csv) {
        ls_lvc_csv_row(csv, &r);
        fflush(csv);
    }
    switch (ls_lvc_classify(&r)) {
    case LS_LVC_OK:
        return;
    case LS_LVC_SKIPPED:
        ls_out_note(out, "n=%d %s skipped: %.200s", r.n, ls_precision_name(p), err);
        break;
    case LS_LVC_ERROR:
        ls_out_note(out, "n=%d %s failed: %.200s", r.n, ls_precision_name(p), err);
        break;
    case LS_LVC_REFUSED:
        ls_out_note(out,
                    "n=%d %s: no ratio, a solve failed the check (residual lu %.3g, cusolver "
                    "%.3g, limit %g; info lu %d, cusolver %d)",
                    r.n, ls_precision_name(p), r.res_lu, r.res_cusolver, LS_LVC_RESIDUAL_MAX,
                    r.info_lu, r.info_cusolver);
        break;
    }
    (*failed)++;
}

/* A size whose host matrix could not be made: one skipped row per precision. */
static void skip_size(const ls_bench_opts *b, int n, int rc, ls_out *out, FILE *csv,
                      int *failed)
{
    for (int pi = 0; pi < b->nprecs; pi++) {
        ls_lvc_row r;
        ls_perf_lu_vs_peer_out o;
        memset(&r, 0, sizeof r);
        memset(&o, 0, sizeof o);
        r.n = n, r.prec = b->precs[pi], r.status = rc;
        table_row(out, &r, &o, 0.0);
        if (csv)
            ls_lvc_csv_row(csv, &r);
        (*failed)++;
    }
    ls_out_note(out, "n=%d skipped: the host matrix could not be made (%s)", n, ls_strerror(rc));
}

/** @return the exit status of linsolve bench (LS_BENCH_EXIT_*): 0 every row
 * ok, 2 an output cannot be written, 4 some row skipped, refused or failed,
 * 5 no CUDA GPU or out of host memory. */
int ls_bench_lu_vs_cusolver(const ls_bench_opts *b)
{
    char plain[LS_ERRLEN];
    ls_bench_sink sink[2]; /* the table, the CSV */
    const char *paths[2] = {b->output ? b->output : "-", b->csv};
    if (ls_bench_sinks_open("bench", 2, sink, paths) != 0)
        return LS_BENCH_EXIT_WRITE;
    ls_context *cuda = NULL;
    int st = ls_context_create(&cuda, LS_BACKEND_CUDA, 0);
    if (st != 0) {
        fprintf(stderr,
                "linsolve bench: --lu-vs-cusolver needs a CUDA GPU (the CUDA backend): %.300s\n",
                ls_bench_plain(cuda ? ls_context_error(cuda) : ls_strerror(st), plain,
                               sizeof plain));
        ls_context_destroy(cuda);
        return ls_bench_sinks_abort(2, sink, LS_BENCH_EXIT_UNAVAILABLE);
    }
    FILE *f = sink[0].f, *csv = sink[1].f;
    ls_out out;
    ls_out_open(&out, f, b->format);
    ls_bench_machine_header(&out, cuda);
    if (b->argv)
        ls_bench_machine_command(&out, b->argc, b->argv);
    ls_out_note(&out, "device time of getrf + getrs, nrhs = 1, matrix already on the device; "
                      "median of %d runs; lu_first: A, ipiv, info and b allocated anew for every "
                      "run (no CUDA-graph replay possible), after one warm-up; lu_replay: the "
                      "same buffers every run, after two warm-ups (the shape seen, then "
                      "captured); first, replay and cuSOLVER interleaved; ratio = cusolver_ms / "
                      "lu_ms, refused above residual %g",
                b->repeat, LS_LVC_RESIDUAL_MAX);
    ls_out_table(&out, "lu vs cusolver", NCOLS, COLS, WIDTHS);
    if (csv) {
        if (b->argv)
            ls_bench_csv_provenance(csv, b->argc, b->argv);
        fprintf(csv, "%s\n", ls_lvc_csv_header());
    }
    int failed = 0, total = b->nsizes * b->nprecs, done = 0, rc = 0;
    for (int si = 0; si < b->nsizes; si++) {
        int n = b->sizes[si];
        ls_bench_inputs in;
        char what[64];
        snprintf(what, sizeof what, "n=%d: generating A", n);
        ls_bench_progress(done, total, what);
        double t0 = ls_bench_clock();
        int made = ls_bench_inputs_make(&in, n, 1, 1, b->gen);
        if (made == 0 && n >= 8192) /* where making A is worth a line */
            ls_out_note(&out, "n=%d: A (%s) made on the host in %.1f s", n, ls_gen_name(b->gen),
                        ls_bench_clock() - t0);
        if (made != 0) {
            skip_size(b, n, made, &out, csv, &failed);
            done += b->nprecs;
            continue;
        }
        for (int pi = 0; pi < b->nprecs; pi++) {
            snprintf(what, sizeof what, "n=%d %s", n, ls_precision_name(b->precs[pi]));
            ls_bench_progress(done, total, what);
            run_case(cuda, b, &in, b->precs[pi], &out, csv, &failed);
            done++;
        }
        ls_bench_inputs_free(&in);
    }
    ls_bench_progress(total, total, "done");
    ls_out_close(&out);
    ls_context_destroy(cuda);
    rc = failed ? LS_BENCH_EXIT_FAILED : LS_BENCH_EXIT_OK;
    return ls_bench_sinks_commit("bench", 2, sink, rc);
}
