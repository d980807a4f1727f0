/* The four tables of linsolve metrics; formulas in docs/metrics.md. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "metrics_parts.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cases.h"
#include "models.h"
#include "occupancy.h"

void ls_metrics_gpu_from_device(const ls_perf_device *d, void *occ_gpu)
{
    ls_occ_gpu *g = (ls_occ_gpu *)occ_gpu;
    memset(g, 0, sizeof *g);
    g->cc_major = d->cc_major;
    g->cc_minor = d->cc_minor;
    g->warp_size = d->warp_size;
    g->max_warps_per_sm = d->warp_size > 0 ? d->max_threads_per_sm / d->warp_size : 0;
    g->max_blocks_per_sm = d->max_blocks_per_sm;
    g->max_threads_per_block = d->max_threads_per_block;
    g->regs_per_sm = d->regs_per_sm;
    g->regs_per_block = d->regs_per_block;
    g->smem_per_sm = d->smem_per_sm;
    g->smem_per_block = 49152; /* the default per-block cap on every cc >= 3 */
    g->smem_per_block_optin = d->smem_per_block_optin;
    g->reserved_smem_per_block = d->reserved_smem_per_block;
}

int ls_metrics_occupancy(ls_out *o, ls_context *ctx, const ls_metrics_opts *m)
{
    static const char *const cols[] = {"kernel", "method", "threads", "regs", "smem",
                                       "dyn_smem", "blocks(2.7)", "warps(2.2)", "occ(2.8)",
                                       "limiter", "cuda_blocks", "cuda_occ", "agree"};
    static const int w[] = {-34, 14, 7, 5, 7, 8, 11, 10, 8, 13, 11, 8, 5};
    ls_perf_device d;
    char err[LS_ERRLEN] = "";
    int st = LS_BENCH_PERF_DEVICE(ctx, &d, err, sizeof err);
    ls_perf_kernels_out *ks = NULL;
    if (st == 0) {
        ks = calloc(1, sizeof *ks);
        ls_perf_kernels_in in = {m->prec, m->n, 1};
        st = ks ? LS_BENCH_PERF(ctx, kernels, &in, ks, err, sizeof err) : LS_ENOMEM;
    }
    if (st != 0) {
        ls_out_note(o, "occupancy table not produced: %s", err[0] ? err : ls_strerror(st));
        free(ks);
        return st == LS_EUNSUPPORTED ? 0 : 1;
    }
    char title[128];
    snprintf(title, sizeof title,
             "occupancy (Panchatcharam, Sundar & Klar 2013, (2.2)-(2.8), vs CUDA), %s, n=%d",
             ls_precision_name(m->prec), m->n);
    int widths[13];
    for (int i = 0; i < 13; i++)
        widths[i] = w[i] < 0 ? -w[i] : w[i];
    ls_out_table(o, title, 13, cols, widths);
    ls_occ_gpu g;
    ls_metrics_gpu_from_device(&d, &g);
    int bad = 0;
    for (int i = 0; i < ks->count; i++) {
        const ls_perf_kernel *k = &ks->k[i];
        ls_occ_kernel kk = {k->block_threads, k->num_regs, k->static_smem, k->dynamic_smem,
                            k->max_dynamic_smem};
        ls_occ_result r;
        ls_occ_compute(&g, &kk, &r);
        int agree = r.blocks_per_sm == k->cuda_active_blocks;
        bad += !agree;
        char c[13][LS_BENCH_CELL];
        ls_cell(c[0], "%s", k->name);
        ls_cell(c[1], "%s", k->method);
        ls_cell(c[2], "%d", k->block_threads);
        ls_cell(c[3], "%d", k->num_regs);
        ls_cell(c[4], "%zu", k->static_smem);
        ls_cell(c[5], "%zu", k->dynamic_smem);
        ls_cell(c[6], "%d", r.blocks_per_sm);
        ls_cell(c[7], "%d", r.warps_per_sm);
        ls_cell(c[8], "%.3f", r.occupancy);
        ls_cell(c[9], "%s", r.limiter);
        ls_cell(c[10], "%d", k->cuda_active_blocks);
        ls_cell(c[11], "%.3f", g.max_warps_per_sm
                                   ? (double)k->cuda_active_blocks * r.warps_per_block / g.max_warps_per_sm
                                   : 0.0);
        ls_cell(c[12], "%s", agree ? "yes" : "NO");
        ls_out_row(o, c);
    }
    if (bad)
        ls_out_note(o, "%d kernel(s) where the formula disagrees with CUDA's calculator", bad);
    free(ks);
    return bad;
}

int ls_metrics_transactions(ls_out *o, ls_context *ctx, const ls_metrics_opts *m)
{
    static const char *const cols[] = {"kernel", "m", "p", "transactions", "V(bytes)", "beta",
                                       "time(s)", "V/time(GB/s)", "GFLOP/s"};
    static const int w[] = {10, 6, 4, 14, 14, 5, 11, 13, 9};
    int es = m->prec == LS_SINGLE ? 4 : 8;
    int shown = 0, bad = 0;
    for (int i = 0; i < m->ngemm; i++) {
        for (int kind = 0; kind < 3; kind++) {
            int p = kind == 0 ? 16 : kind == 1 ? 32 : 128;
            ls_perf_gemm_in in = {m->prec, m->gemm[i], p, m->repeat};
            ls_perf_timing t;
            char err[LS_ERRLEN] = "";
            int st = kind < 2 ? LS_BENCH_PERF(ctx, gemm, &in, &t, err, sizeof err)
                              : LS_BENCH_PERF(ctx, gemv, &in, &t, err, sizeof err);
            if (st != 0) {
                ls_out_note(o, "transaction table: %s", err);
                if (st != LS_EUNSUPPORTED)
                    bad++;
                return bad;
            }
            if (!shown++)
                ls_out_table(o,
                             "transactions / volume / beta vs measured (Panchatcharam, "
                             "Sundar & Klar 2013)",
                             9, cols, w);
            ls_model_xfer x;
            if (kind < 2)
                ls_model_gemm(m->gemm[i], p, es, &x);
            else
                ls_model_gemv(m->gemm[i], p, es, &x);
            char c[9][LS_BENCH_CELL];
            ls_cell(c[0], "%s", kind < 2 ? "gemm" : "gemv");
            ls_cell(c[1], "%d", m->gemm[i]);
            ls_cell(c[2], "%d", p);
            ls_cell(c[3], "%.6g", x.transactions);
            ls_cell(c[4], "%.6g", x.volume);
            ls_cell(c[5], "%.2f", x.beta);
            ls_cell(c[6], "%.4e", t.seconds);
            ls_cell(c[7], "%.2f", t.seconds > 0 ? x.volume / t.seconds / 1e9 : 0.0);
            ls_cell(c[8], "%.2f", t.gflops);
            ls_out_row(o, c);
        }
    }
    return bad;
}

int ls_metrics_cgma(ls_out *o, const ls_metrics_opts *m)
{
    static const char *const cols[] = {"N", "CGMA(ideal)", "CGMA(model)", "threads(seed swaps)",
                                       "threads(actual swaps)", "swaps", "peak_threads"};
    static const int w[] = {6, 11, 11, 19, 21, 6, 12};
    ls_out_table(o, "lu-seed CGMA and thread counts (Pattam, CUDA LU Factorization Solver)", 7,
                 cols, w);
    int bad = 0;
    for (int i = 0; i < m->ncgma; i++) {
        int n = m->cgma[i];
        /* Actual row exchanges: partial pivoting on the benchmark's random
         * matrix, counted from the CPU reference getrf's ipiv. */
        double *A = malloc((size_t)n * n * sizeof(double) + 1);
        int *ipiv = malloc((size_t)n * sizeof(int) + 1);
        long swaps = -1;
        int info = 0;
        if (A && ipiv && ls_generate(LS_GEN_RANDOM, n, A, n, 1000u + (uint64_t)n, 0.0) == 0 &&
            ls_dgetrf(n, n, A, n, ipiv, &info, NULL) == 0) {
            swaps = 0;
            for (int k = 0; k < n; k++)
                swaps += ipiv[k] != k + 1;
        } else {
            bad++;
        }
        free(A), free(ipiv);
        char c[7][LS_BENCH_CELL];
        ls_cell(c[0], "%d", n);
        ls_cell(c[1], "%.2f", ls_model_luseed_cgma(n, 1, 1));
        ls_cell(c[2], "%.3f", ls_model_luseed_cgma(n, 1, 0));
        ls_cell(c[3], "%.0f", ls_model_luseed_threads(n, 0.5 * (n - 1)));
        if (swaps >= 0)
            ls_cell(c[4], "%.0f", ls_model_luseed_threads(n, (double)swaps));
        else
            ls_cell(c[4], "-");
        ls_cell(c[5], "%ld", swaps);
        ls_cell(c[6], "%.0f", ls_model_luseed_peak_threads(n));
        ls_out_row(o, c);
    }
    return bad;
}

/* Time reading a generated matrix back from a Matrix Market file: Pattam's
 * "I/O time" (docs/references.md). */
static double time_read(int n, char *why, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/ls_metrics_%ld_%d.mtx", (long)getpid(), n);
    ls_matrix mat = {n, n, n, NULL, 0, 0};
    mat.data = malloc((size_t)n * n * sizeof(double) + 1);
    char err[512] = "";
    double t = -1;
    if (mat.data && ls_generate(LS_GEN_RANDOM, n, mat.data, n, 5u, 0.0) == 0 &&
        ls_mm_write(path, &mat, err, sizeof err) == 0) {
        ls_matrix back;
        memset(&back, 0, sizeof back);
        double t0 = ls_bench_clock();
        if (ls_matrix_read(path, &back, err, sizeof err) == 0)
            t = ls_bench_clock() - t0;
        ls_matrix_free(&back);
    }
    if (t < 0)
        snprintf(why, len, "%.200s", err[0] ? err : "cannot write/read a temporary matrix");
    remove(path);
    free(mat.data);
    return t;
}

int ls_metrics_breakdown(ls_out *o, ls_context *ctx, const ls_metrics_opts *m)
{
    static const char *const cols[] = {"N", "method", "read(s)", "h2d(s)", "factor(s)", "solve(s)",
                                       "d2h(s)", "read%", "factor%", "solve%", "xfer%",
                                       "residual", "status"};
    static const int w[] = {6, 10, 10, 10, 10, 10, 10, 6, 7, 6, 6, 9, 6};
    ls_method method = LS_METHOD_LU_SEED;
    if (ls_context_supports(ctx, method, m->prec) != 0) {
        method = LS_METHOD_AUTO;
        ls_out_note(o, "lu-seed is not available on %s: breakdown uses the backend's auto method",
                    ls_backend_name(ls_context_backend(ctx)));
    }
    ls_out_table(o, "timing breakdown read / factor / solve (Pattam, CUDA LU Factorization Solver)",
                 13, cols, w);
    ls_bench_opts b;
    ls_bench_opts_init(&b);
    b.repeat = m->repeat;
    int bad = 0;
    for (int i = 0; i < m->nbreak; i++) {
        int n = m->brk[i];
        char why[256] = "";
        double tr = time_read(n, why, sizeof why);
        ls_bench_result r;
        if (ls_bench_case(ctx, method, m->prec, n, 1, &b, &r) != 0)
            return bad + 1;
        double xfer = r.t_h2d + r.t_d2h;
        double tot = (tr > 0 ? tr : 0) + r.t_factor + r.t_solve + xfer;
        if (!(r.t_factor + r.t_solve > 0)) /* backend gave no split */
            tot = (tr > 0 ? tr : 0) + r.t_dev;
        char c[13][LS_BENCH_CELL];
        ls_cell(c[0], "%d", n);
        ls_cell(c[1], "%s", ls_method_name(r.method));
        ls_cell(c[2], "%.4e", tr);
        ls_cell(c[3], "%.4e", r.t_h2d);
        ls_cell(c[4], "%.4e", r.t_factor);
        ls_cell(c[5], "%.4e", r.t_solve);
        ls_cell(c[6], "%.4e", r.t_d2h);
        ls_cell(c[7], "%.1f", tot > 0 && tr > 0 ? 100 * tr / tot : 0.0);
        ls_cell(c[8], "%.1f", tot > 0 ? 100 * r.t_factor / tot : 0.0);
        ls_cell(c[9], "%.1f", tot > 0 ? 100 * r.t_solve / tot : 0.0);
        ls_cell(c[10], "%.1f", tot > 0 ? 100 * xfer / tot : 0.0);
        ls_cell(c[11], "%.3g", r.residual);
        ls_cell(c[12], "%s", r.ok ? "ok" : "failed");
        ls_out_row(o, c);
        if (tr < 0)
            ls_out_note(o, "n=%d read time not measured: %s", n, why);
        if (!r.ok) {
            bad++;
            ls_out_note(o, "n=%d %s: %s", n, ls_method_name(r.method), r.message);
        }
    }
    return bad;
}
