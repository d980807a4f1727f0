/* The bench sweep: contexts, baselines, cases, peers, rows. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cases.h"
#include "core/methods/methods.h"
#include "models.h"

/* A-priori rate for the first size of the sequential ge baseline, before
 * any measurement exists: deliberately low, so a huge first size is
 * skipped rather than left running for minutes. */
#define LS_GE_ASSUMED_GFLOPS 0.5

static const char *const COLS[] = {"N",       "NRHS",    "method",         "backend",
                                   "prec",    "time(s)", "time+xfer(s)",   "GFLOP/s",
                                   "GB/s",    "speedup-vs-cpu", "speedup-vs-lapack",
                                   "cusolver/lu", "residual", "status"};
static const int WIDTHS[] = {6, 5, 14, 7, 6, 11, 12, 9, 8, 14, 17, 11, 9, 6};
#define NCOLS 14

/* Last measured (n, seconds) per series, for the time-limit prediction. */
typedef struct series {
    int backend, method, prec, nrhs;
    int n;
    double t;
} series;

typedef struct sweep {
    const ls_bench_opts *b;
    ls_out out;
    series s[256];
    int ns;
    int failed, done, total;
} sweep;

static series *find_series(sweep *w, int backend, int method, int prec, int nrhs)
{
    for (int i = 0; i < w->ns; i++)
        if (w->s[i].backend == backend && w->s[i].method == method && w->s[i].prec == prec &&
            w->s[i].nrhs == nrhs)
            return &w->s[i];
    if (w->ns >= 256)
        return NULL;
    series *s = &w->s[w->ns++];
    memset(s, 0, sizeof *s);
    s->backend = backend, s->method = method, s->prec = prec, s->nrhs = nrhs;
    return s;
}

static double predict(const series *s, ls_method m, int n, int nrhs)
{
    if (s && s->n > 0 && s->t > 0) {
        double r = (double)n / s->n;
        return s->t * r * r * r;
    }
    if (m == LS_METHOD_GE)
        return ls_flops_gesv(n, nrhs) / (LS_GE_ASSUMED_GFLOPS * 1e9);
    return 0.0;
}

static void ratio_cell(char *cell, double base, double t)
{
    if (base > 0 && t > 0)
        ls_cell(cell, "%.2f", base / t);
    else
        ls_cell(cell, "-");
}

/* t_cus: cuSOLVER getrf+getrs's device time for the cuda lu row of the
 * same (n, precision, nrhs), else 0; its ratio to ours is printed only when
 * both passed the residual check. */
static void emit(sweep *w, int n, int nrhs, const char *method, const char *backend,
                 ls_precision p, const ls_bench_result *r, double t_ge, double t_lapack,
                 double t_cus)
{
    char c[NCOLS][LS_BENCH_CELL];
    ls_cell(c[0], "%d", n);
    ls_cell(c[1], "%d", nrhs);
    ls_cell(c[2], "%s", method);
    ls_cell(c[3], "%s", backend);
    ls_cell(c[4], "%s", ls_precision_name(p));
    ls_cell(c[5], "%.4e", r->t_dev);
    ls_cell(c[6], "%.4e", r->t_xfer);
    ls_cell(c[7], "%.2f", r->t_dev > 0 ? r->flops / r->t_dev / 1e9 : 0.0);
    ls_cell(c[8], "%.2f", r->t_dev > 0 ? r->bytes / r->t_dev / 1e9 : 0.0);
    ratio_cell(c[9], t_ge, r->t_xfer);
    ratio_cell(c[10], t_lapack, r->t_xfer);
    ratio_cell(c[11], r->ok ? t_cus : 0.0, r->t_dev);
    ls_cell(c[12], "%.3g", r->residual);
    ls_cell(c[13], "%s", r->ok ? "ok" : "failed");
    ls_out_row(&w->out, c);
    if (!r->ok) {
        w->failed++;
        ls_out_note(&w->out, "n=%d %s %s %s: %s", n, method, backend, ls_precision_name(p),
                    r->message);
    }
}

/* The inputs of one (n, nrhs) group, generated once when first needed and
 * shared by every case of the group (dense: the requested generator;
 * iterative: diagonally dominant, for BiCGStab). */
typedef struct group {
    ls_bench_inputs dense, iter;
    int have_dense, have_iter;
} group;

static const ls_bench_inputs *group_inputs(sweep *w, group *g, ls_method m, int n, int nrhs)
{
    int iterative = ls_method_is_iterative(m);
    ls_bench_inputs *in = iterative ? &g->iter : &g->dense;
    int *have = iterative ? &g->have_iter : &g->have_dense;
    if (!*have) {
        if (ls_bench_inputs_make(in, n, nrhs, w->b->rotate,
                                 iterative ? LS_GEN_DIAGDOM : w->b->gen) != 0)
            return NULL;
        *have = 1;
    }
    return in;
}

static void group_free(group *g)
{
    if (g->have_dense)
        ls_bench_inputs_free(&g->dense);
    if (g->have_iter)
        ls_bench_inputs_free(&g->iter);
    memset(g, 0, sizeof *g);
}

/* Run one case unless the series predicts it past the time limit. */
static int timed_case(sweep *w, group *g, ls_context *ctx, ls_backend_kind bk, ls_method m,
                      ls_precision p, int n, int nrhs, ls_bench_result *r)
{
    series *s = find_series(w, bk, m, p, nrhs);
    double pred = predict(s, m, n, nrhs);
    double limit = w->b->time_limit;
    if (bk == LS_BACKEND_CPU && m == LS_METHOD_GE && w->b->baseline_time_limit > 0)
        limit = w->b->baseline_time_limit;
    if (pred > limit) {
        ls_out_note(&w->out,
                    "n=%d %s %s %s skipped: predicted %.3g s per solve > time limit %.3g s "
                    "(not extrapolated)",
                    n, ls_method_name(m), ls_backend_name(bk), ls_precision_name(p), pred, limit);
        return 0;
    }
    char what[64];
    snprintf(what, sizeof what, "n=%d %s %s", n, ls_method_name(m), ls_backend_name(bk));
    ls_bench_progress(w->done, w->total, what);
    const ls_bench_inputs *in = group_inputs(w, g, m, n, nrhs);
    if (!in || ls_bench_case_on(ctx, m, p, in, w->b, r) != 0)
        return -1;
    if (s && r->t_xfer > 0)
        s->n = n, s->t = r->t_xfer;
    return 1;
}

/* cuSOLVER's rows of one group: measured before our methods, so that the
 * lu row can carry the ratio, and printed after them. */
typedef struct peer_rows {
    int count;
    const char *name[2];
    ls_bench_result r[2];
} peer_rows;

static double cusolver_time(const peer_rows *pr)
{
    for (int i = 0; i < pr->count; i++)
        if (!strcmp(pr->name[i], "cusolver-getrf") && pr->r[i].ok)
            return pr->r[i].t_dev;
    return 0.0;
}

static void measure_peers(sweep *w, group *g, ls_context *cuda, ls_precision p, int n, int nrhs,
                          peer_rows *pr)
{
    const ls_bench_inputs *in = group_inputs(w, g, LS_METHOD_LU, n, nrhs);
    static const struct {
        ls_perf_peer_kind kind;
        const char *name;
    } peers[] = {{LS_PEER_CUSOLVER_GETRF, "cusolver-getrf"}, {LS_PEER_CUSOLVER_IRS, "cusolver-irs"}};
    for (size_t i = 0; i < sizeof peers / sizeof peers[0]; i++) {
        if (peers[i].kind == LS_PEER_CUSOLVER_IRS && p != LS_DOUBLE)
            continue; /* IRS is FP64 in and out with a lower inner precision */
        size_t nb = (size_t)n * nrhs;
        /* The same matrix as the group's first rotation: peers and our
         * methods solve the same system. */
        const double *A = in ? in->A[0] : NULL, *B = in ? in->B[0] : NULL;
        double *X = malloc(nb * sizeof(double) + 1);
        ls_bench_result r;
        memset(&r, 0, sizeof r);
        if (A && B && X) {
            ls_perf_peer_in pin = {peers[i].kind, p, n, nrhs, A, B, w->b->repeat};
            ls_perf_peer_out o;
            memset(&o, 0, sizeof o);
            o.X = X;
            char err[LS_ERRLEN] = "";
            int st = LS_BENCH_PERF(cuda, peer, &pin, &o, err, sizeof err);
            if (st == LS_EUNSUPPORTED) {
                ls_out_note(&w->out, "peer %s not run: %s", peers[i].name, err);
                free(X);
                return;
            }
            r.status = st ? st : o.info;
            r.t_dev = o.t_factor + o.t_solve;
            r.t_xfer = r.t_dev + o.t_h2d + o.t_d2h;
            r.flops = ls_flops_gesv(n, nrhs);
            r.bytes = ls_model_bytes(LS_METHOD_LAPACK, n, nrhs, p == LS_SINGLE ? 4 : 8, 0);
            r.residual = st ? NAN : ls_scaled_residual(n, nrhs, A, n, X, n, B, n, ls_eps(p));
            r.ok = r.status == 0 && r.residual <= 30.0;
            snprintf(r.message, sizeof r.message, "%.250s", st ? err : "residual check");
        } else {
            snprintf(r.message, sizeof r.message, "out of host memory");
        }
        pr->name[pr->count] = peers[i].name;
        pr->r[pr->count++] = r;
        free(X);
    }
}

int ls_bench_run(const ls_bench_opts *b, FILE *f)
{
    sweep *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    w->b = b;
    ls_out_open(&w->out, f, b->format);

    /* Contexts: the requested backends, plus the CPU for the baselines. */
    ls_backend_kind kinds[LS_BACKEND_COUNT_];
    int nk = 0;
    if (b->backends_all) {
        for (int k = LS_BACKEND_CPU; k < LS_BACKEND_COUNT_; k++)
            kinds[nk++] = (ls_backend_kind)k;
    } else {
        for (int i = 0; i < b->nbackends; i++)
            kinds[nk++] = b->backends[i];
    }
    ls_context *ctx[LS_BACKEND_COUNT_] = {0};
    ls_context *cpu = NULL, *cuda = NULL;
    char unavailable[LS_BACKEND_COUNT_][300];
    memset(unavailable, 0, sizeof unavailable);
    for (int i = 0; i < nk; i++) {
        int st = ls_context_create(&ctx[i], kinds[i], 0);
        if (st != 0) {
            snprintf(unavailable[i], sizeof unavailable[i], "backend %s unavailable: %.200s",
                     ls_backend_name(kinds[i]), ctx[i] ? ls_context_error(ctx[i]) : ls_strerror(st));
            ls_context_destroy(ctx[i]);
            ctx[i] = NULL;
            continue;
        }
        if (kinds[i] == LS_BACKEND_CPU)
            cpu = ctx[i];
        if (kinds[i] == LS_BACKEND_CUDA)
            cuda = ctx[i];
    }
    /* A backend asked for by name must be there: without it the sweep
     * would measure only the CPU baselines and look like a success. */
    for (int i = 0; i < nk && !b->backends_all; i++) {
        if (!unavailable[i][0])
            continue;
        char plain[sizeof unavailable[0]];
        fprintf(stderr, "linsolve bench: %s\n",
                ls_bench_plain(unavailable[i], plain, sizeof plain));
        for (int k = 0; k < nk; k++)
            ls_context_destroy(ctx[k]);
        free(w);
        return LS_BENCH_RUN_UNAVAILABLE;
    }
    ls_context *own_cpu = NULL;
    if (!cpu && b->baseline && ls_context_create(&own_cpu, LS_BACKEND_CPU, 0) == 0)
        cpu = own_cpu;
    ls_bench_machine_header(&w->out, cuda ? cuda : cpu);
    if (b->argv)
        ls_bench_machine_command(&w->out, b->argc, b->argv);
    if (!getenv("OMP_WAIT_POLICY"))
        ls_out_note(&w->out, "OMP_WAIT_POLICY is unset: idle OpenMP threads spin and can slow "
                             "OpenBLAS between solves; set OMP_WAIT_POLICY=passive for CPU timings");
    for (int i = 0; i < nk; i++)
        if (unavailable[i][0])
            ls_out_note(&w->out, "%s", unavailable[i]);
    ls_out_table(&w->out, "bench", NCOLS, COLS, WIDTHS);

    w->total = b->nsizes * b->nprecs * b->nnrhs * (nk * (b->nmethods ? b->nmethods : 1) + 2);
    for (int si = 0; si < b->nsizes; si++)
        for (int pi = 0; pi < b->nprecs; pi++)
            for (int ri = 0; ri < b->nnrhs; ri++) {
                int n = b->sizes[si], nrhs = b->nrhs[ri];
                ls_precision p = b->precs[pi];
                double t_ge = 0, t_lapack = 0;
                ls_bench_result r;
                group g;
                memset(&g, 0, sizeof g);
                /* Baselines first: the speedups of the other rows need them. */
                if (b->baseline && cpu) {
                    ls_method base[2] = {LS_METHOD_GE, LS_METHOD_LAPACK};
                    for (int k = 0; k < 2; k++) {
                        if (ls_context_supports(cpu, base[k], p) != 0) {
                            if (si == 0 && ri == 0)
                                ls_out_note(&w->out, "baseline %s cpu %s unavailable",
                                            ls_method_name(base[k]), ls_precision_name(p));
                            continue;
                        }
                        int got = timed_case(w, &g, cpu, LS_BACKEND_CPU, base[k], p, n, nrhs, &r);
                        if (got < 0) {
                            group_free(&g);
                            goto oom;
                        }
                        if (got > 0) {
                            if (r.ok)
                                *(k ? &t_lapack : &t_ge) = r.t_xfer;
                            emit(w, n, nrhs, ls_method_name(base[k]), "cpu", p, &r, t_ge,
                                 t_lapack, 0.0);
                        }
                        w->done++;
                    }
                }
                peer_rows pr;
                memset(&pr, 0, sizeof pr);
                if (cuda && b->peers)
                    measure_peers(w, &g, cuda, p, n, nrhs, &pr);
                for (int ci = 0; ci < nk; ci++) {
                    if (!ctx[ci])
                        continue;
                    int count = 0;
                    ls_method list[LS_METHOD_COUNT_];
                    if (b->methods_all) {
                        for (int m = 1; m < LS_METHOD_COUNT_; m++)
                            if (ls_context_supports(ctx[ci], (ls_method)m, p) == 0)
                                list[count++] = (ls_method)m;
                    } else if (b->nmethods == 0) {
                        /* Resolved here so a cpu auto that is a baseline is not run twice. */
                        list[count++] = ls_perf_auto_method(ctx[ci], p);
                    } else {
                        for (int m = 0; m < b->nmethods; m++) {
                            if (ls_context_supports(ctx[ci], b->methods[m], p) != 0) {
                                if (si == 0 && ri == 0)
                                    ls_out_note(&w->out, "%s not supported on %s in %s",
                                                ls_method_name(b->methods[m]),
                                                ls_backend_name(kinds[ci]), ls_precision_name(p));
                                continue;
                            }
                            list[count++] = b->methods[m];
                        }
                    }
                    for (int mi = 0; mi < count; mi++) {
                        ls_method m = list[mi];
                        if (b->baseline && ctx[ci] == cpu &&
                            (m == LS_METHOD_GE || m == LS_METHOD_LAPACK))
                            continue; /* already a baseline row */
                        int got = timed_case(w, &g, ctx[ci], kinds[ci], m, p, n, nrhs, &r);
                        if (got < 0) {
                            group_free(&g);
                            goto oom;
                        }
                        int lu_cuda = kinds[ci] == LS_BACKEND_CUDA && r.method == LS_METHOD_LU;
                        if (got > 0)
                            emit(w, n, nrhs, ls_method_name(r.method), ls_backend_name(kinds[ci]),
                                 p, &r, t_ge, t_lapack, lu_cuda ? cusolver_time(&pr) : 0.0);
                        w->done++;
                    }
                }
                for (int k = 0; k < pr.count; k++)
                    emit(w, n, nrhs, pr.name[k], "cuda", p, &pr.r[k], t_ge, t_lapack, 0.0);
                group_free(&g);
            }
    ls_bench_progress(w->total, w->total, "done");
    int failed = w->failed;
    goto finish;
oom:
    ls_out_note(&w->out, "out of host memory: sweep stopped");
    failed = -1;
finish:
    ls_out_close(&w->out);
    for (int i = 0; i < nk; i++)
        ls_context_destroy(ctx[i]);
    ls_context_destroy(own_cpu);
    free(w);
    return failed;
}
