/* The bench case engine; see bench_cases.h and docs/benchmarks.md. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "bench_cases.h"

#include <stdlib.h>
#include <string.h>

#include "core/methods/methods.h"
#include "models.h"

#define ROT_BYTES_CAP (4.0 * 1024 * 1024 * 1024)

static double fabs_dist(double a, double b) { return a > b ? a - b : b - a; }

void ls_bench_opts_init(ls_bench_opts *b)
{
    memset(b, 0, sizeof *b);
    b->sizes[0] = 256;
    b->sizes[1] = 512;
    b->nsizes = 2;
    b->nrhs[0] = 1;
    b->nnrhs = 1;
    b->backends[0] = LS_BACKEND_CPU;
    b->nbackends = 1;
    b->precs[0] = LS_DOUBLE;
    b->nprecs = 1;
    b->repeat = 3;
    b->rotate = 3;
    b->time_limit = 20.0;
    b->baseline = 1;
    b->peers = 1;
    b->gen = LS_GEN_RANDOM;
    b->format = LS_FMT_TABLE;
}

int ls_bench_parse_method_list(const char *s, ls_bench_opts *b)
{
    char w[LS_METHOD_COUNT_][32];
    int c = ls_bench_parse_words(s, w, LS_METHOD_COUNT_);
    if (c <= 0)
        return -1;
    b->nmethods = 0;
    b->methods_all = 0;
    for (int i = 0; i < c; i++) {
        if (!strcmp(w[i], "all")) {
            b->methods_all = 1;
            continue;
        }
        if (ls_method_parse(w[i], &b->methods[b->nmethods]) != 0)
            return -1;
        b->nmethods++;
    }
    return 0;
}

int ls_bench_parse_backend_list(const char *s, ls_bench_opts *b)
{
    char w[LS_BACKEND_COUNT_][32];
    int c = ls_bench_parse_words(s, w, LS_BACKEND_COUNT_);
    if (c <= 0)
        return -1;
    b->nbackends = 0;
    b->backends_all = 0;
    for (int i = 0; i < c; i++) {
        if (!strcmp(w[i], "all")) {
            b->backends_all = 1;
            continue;
        }
        ls_backend_kind k;
        if (ls_backend_parse(w[i], &k) != 0 || k == LS_BACKEND_AUTO)
            return -1;
        b->backends[b->nbackends++] = k;
    }
    return 0;
}

static double *alloc_doubles(size_t a, size_t b)
{
    if (a && b > (size_t)-1 / sizeof(double) / a)
        return NULL;
    return malloc(a * b * sizeof(double) + 1);
}

void ls_bench_inputs_free(ls_bench_inputs *in)
{
    for (int i = 0; i < in->rot; i++)
        free(in->A[i]), free(in->B[i]);
    memset(in, 0, sizeof *in);
}

int ls_bench_inputs_make(ls_bench_inputs *in, int n, int nrhs, int rotate, ls_gen_kind gen)
{
    memset(in, 0, sizeof *in);
    double mat_bytes = 8.0 * n * (double)n;
    int rot = rotate < 1 ? 1 : (rotate > 16 ? 16 : rotate);
    while (rot > 1 && rot * mat_bytes > ROT_BYTES_CAP)
        rot--;
    in->n = n, in->nrhs = nrhs, in->gen = gen;
    for (int i = 0; i < rot; i++) {
        in->rot = i + 1;
        in->A[i] = alloc_doubles((size_t)n, (size_t)n);
        in->B[i] = alloc_doubles((size_t)n, (size_t)nrhs);
        if (!in->A[i] || !in->B[i]) {
            ls_bench_inputs_free(in);
            return LS_ENOMEM;
        }
        if (ls_generate(gen, n, in->A[i], n, 1000u + (uint64_t)i * 7919u + (uint64_t)n, 0.0) != 0) {
            ls_bench_inputs_free(in);
            return LS_EINVAL;
        }
        ls_fill_random(n, nrhs, in->B[i], n, 77u + (uint64_t)i);
    }
    return 0;
}

int ls_bench_case(ls_context *ctx, ls_method m, ls_precision p, int n, int nrhs,
                  const ls_bench_opts *b, ls_bench_result *res)
{
    /* An iterative method needs a matrix it converges on; the dense methods
     * take the requested generator. */
    ls_bench_inputs in;
    int rc = ls_bench_inputs_make(&in, n, nrhs, b->rotate,
                                  ls_method_is_iterative(m) ? LS_GEN_DIAGDOM : b->gen);
    if (rc) {
        memset(res, 0, sizeof *res);
        res->method = m;
        snprintf(res->message, sizeof res->message, "setup failed: %s", ls_strerror(rc));
        return rc == LS_ENOMEM ? rc : 0;
    }
    rc = ls_bench_case_on(ctx, m, p, &in, b, res);
    ls_bench_inputs_free(&in);
    return rc;
}

int ls_bench_case_on(ls_context *ctx, ls_method m, ls_precision p, const ls_bench_inputs *in,
                     const ls_bench_opts *b, ls_bench_result *res)
{
    memset(res, 0, sizeof *res);
    res->method = m;
    int n = in->n, nrhs = in->nrhs, rot = in->rot;
    double *const *A = in->A, *const *B = in->B;
    double *X = alloc_doubles((size_t)n, (size_t)nrhs);
    int rc = X ? 0 : LS_ENOMEM;
    if (rc) {
        snprintf(res->message, sizeof res->message, "setup failed: %s", ls_strerror(rc));
        goto done;
    }

    ls_options opt;
    ls_options_init(&opt);
    opt.method = m;
    opt.precision = p;
    opt.check = 0; /* the residual is computed here, outside the timing */

    double *tdev = calloc((size_t)b->repeat + 1, sizeof(double));
    double *txfer = calloc((size_t)b->repeat + 1, sizeof(double));
    double *parts = calloc(5 * ((size_t)b->repeat + 1), sizeof(double));
    if (!tdev || !txfer || !parts) {
        free(tdev), free(txfer), free(parts);
        rc = LS_ENOMEM;
        goto done;
    }
    int runs = b->repeat;
    int used = 0;
    for (int r = -1; r < runs; r++) {
        int i = r < 0 ? 0 : r % rot;
        memcpy(X, B[i], sizeof(double) * (size_t)n * nrhs);
        ls_report rep;
        memset(&rep, 0, sizeof rep);
        double t0 = ls_bench_clock();
        int st = ls_solve(ctx, &opt, n, nrhs, A[i], n, X, n, &rep);
        double wall = ls_bench_clock() - t0;
        res->status = st;
        res->method = rep.method;
        res->iterations = rep.iterations;
        double dev = rep.t_factor + rep.t_solve;
        if (!(dev > 0))
            dev = wall; /* backend gave no split: wall time */
        double xfer = dev + rep.t_h2d + rep.t_d2h;
        if (st != 0 && st != LS_INACCURATE) {
            snprintf(res->message, sizeof res->message, "%.40s: %.200s", ls_status_name(st),
                     rep.message[0] ? rep.message : ls_context_error(ctx));
            ls_report_clear(&rep);
            break;
        }
        int keep = r >= 0;
        if (r < 0) {
            /* The warm-up tells whether all repeats fit: fewer at large n.
             * A solve of more than LS_BENCH_LONG_SOLVE seconds gains nothing
             * from a warm-up (start-up costs are < 1 % of it): it is kept as
             * the first measured run instead of being thrown away. */
            if (xfer * runs > 2.0 * b->time_limit) {
                runs = (int)(2.0 * b->time_limit / (xfer > 0 ? xfer : 1));
                if (runs < 1)
                    runs = 1;
            }
            if (xfer > LS_BENCH_LONG_SOLVE) {
                keep = 1;
                runs--; /* this run is one of them */
            }
        }
        if (keep) {
            tdev[used] = dev;
            txfer[used] = xfer;
            parts[5 * used + 0] = rep.t_h2d;
            parts[5 * used + 1] = rep.t_factor;
            parts[5 * used + 2] = rep.t_solve;
            parts[5 * used + 3] = rep.t_d2h;
            parts[5 * used + 4] = wall;
            used++;
        }
        if (r == runs - 1)
            res->residual = ls_scaled_residual(n, nrhs, A[i], n, X, n, B[i], n, ls_eps(p));
        ls_report_clear(&rep);
    }
    res->runs = used;
    if (used > 0) {
        /* Parts take the run of median device time, so they add up. */
        double sorted[1024];
        int cnt = used < 1024 ? used : 1024;
        memcpy(sorted, tdev, sizeof(double) * (size_t)cnt);
        double med = ls_bench_median(sorted, cnt);
        int pick = 0;
        for (int k = 1; k < used; k++)
            if (fabs_dist(tdev[k], med) < fabs_dist(tdev[pick], med))
                pick = k;
        res->t_dev = med;
        res->t_xfer = ls_bench_median(txfer, used);
        res->t_h2d = parts[5 * pick + 0];
        res->t_factor = parts[5 * pick + 1];
        res->t_solve = parts[5 * pick + 2];
        res->t_d2h = parts[5 * pick + 3];
        res->t_wall = parts[5 * pick + 4];
        res->flops = ls_model_flops(res->method, n, nrhs, res->iterations);
        res->bytes = ls_model_bytes(res->method, n, nrhs, p == LS_SINGLE ? 4 : 8,
                                    res->iterations);
        /* The dense methods must pass LAPACK's scaled-residual test; BiCGStab
         * is judged as ls_solve judges it: converged to its own tolerance
         * (its residual is printed, but an rtol of 1e-10 cannot reach 30 eps). */
        int iterative = ls_method_is_iterative(res->method);
        res->ok = res->status == 0 && res->residual == res->residual &&
                  (iterative || res->residual <= 30.0);
        if (!res->ok && !res->message[0])
            snprintf(res->message, sizeof res->message, "%s, residual %.3g",
                     ls_status_name(res->status), res->residual);
    }
    free(tdev), free(txfer), free(parts);
done:
    free(X);
    return rc == LS_ENOMEM ? rc : 0;
}
