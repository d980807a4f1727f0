/* Soak: many mixed solves in one process, on contexts that live for the
 * whole run, as a long-lived host program would use the library
 * (docs/hardening.md; scripts/soak.sh). Each solve draws an order in
 * [16, max-n], a method among lu, ge-coalesced, gj2, lu-seed and bicgstab,
 * a precision and a backend (those the context supports), solves through
 * ls_solve and checks the scaled residual (<= 30, src/core/verify.c) itself.
 * Host RSS (VmRSS of /proc/self/status) and, on CUDA, device memory in use
 * (cudaMemGetInfo) are read after a warm-up (every combination once at the
 * largest order, so that workspaces have their final size), at every 1000
 * solves, after the K-th random solve (--settle, default 1000: by then the
 * bounded caches keyed by size have met most sizes) and at the end; growth
 * is judged from the K-th solve on, and all the readings are printed.
 * Not a ctest: it is a long run.
 *
 *   test_soak [--solves N] [--backends cpu,cuda,opencl] [--max-n N]
 *             [--seed S] [--rss-slack MiB] [--dev-slack MiB] [--settle K]
 * Exit: 0; 1 on any wrong answer or failed solve, or memory growth beyond
 * the slack (default 16 MiB host, 32 MiB device); 2 for bad usage or no
 * backend at all.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef LS_SOAK_CUDA
#include <cuda_runtime_api.h>
#endif

#include "linsolve.h"

#define MIB (1024.0 * 1024.0)

static const ls_method methods[] = {LS_METHOD_LU, LS_METHOD_GE_COALESCED, LS_METHOD_GJ2,
                                    LS_METHOD_LU_SEED, LS_METHOD_BICGSTAB};
enum { NM = sizeof methods / sizeof methods[0] };

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kib = atol(line + 6);
    if (f)
        fclose(f);
    return kib;
}

/* Device memory in use on CUDA device 0 (bytes), -1 when unknown. */
static double device_used(int have_cuda)
{
#ifdef LS_SOAK_CUDA
    size_t f = 0, t = 0;
    if (have_cuda && cudaDeviceSynchronize() == cudaSuccess && cudaMemGetInfo(&f, &t) == cudaSuccess)
        return (double)(t - f);
#else
    (void)have_cuda;
#endif
    return -1.0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct backend {
    ls_backend_kind kind;
    ls_context *ctx;
    long solves, wrong, errors;
} backend;

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double *A, *B, *X;
static long wrong_total, error_total;

/* One solve; returns 0 when it solved with a residual <= 30. */
static int solve(backend *b, ls_method m, ls_precision p, int n, int nrhs, uint64_t seed)
{
    ls_fill_random(n, n, A, n, seed);
    if (m == LS_METHOD_BICGSTAB) /* diagonally dominant: it converges */
        for (int i = 0; i < n; i++)
            A[i + (size_t)i * n] += 2.0 * n;
    ls_fill_random(n, nrhs, B, n, seed + 1);
    memcpy(X, B, sizeof *X * (size_t)n * nrhs);
    ls_options opt;
    ls_options_init(&opt);
    opt.method = m;
    opt.precision = p;
    ls_report rep;
    int st = ls_solve(b->ctx, &opt, n, nrhs, A, n, X, n, &rep);
    double r = ls_scaled_residual(n, nrhs, A, n, X, n, B, n, ls_eps(p));
    b->solves++;
    int bad = 0;
    if (st != 0 && st != LS_INACCURATE) {
        b->errors++;
        error_total++;
        bad = 1;
        fprintf(stderr, "error: %s %s %s n=%d nrhs=%d: %s (%s)\n", ls_backend_name(b->kind),
                ls_method_name(m), ls_precision_name(p), n, nrhs, ls_status_name(st),
                rep.message);
    } else if (st == LS_INACCURATE || !(r <= 30.0)) {
        b->wrong++;
        wrong_total++;
        bad = 1;
        fprintf(stderr, "wrong answer: %s %s %s n=%d nrhs=%d: scaled residual %.3g (%s)\n",
                ls_backend_name(b->kind), ls_method_name(m), ls_precision_name(p), n, nrhs, r,
                ls_status_name(st));
    }
    ls_report_clear(&rep);
    return bad;
}

int main(int argc, char **argv)
{
    long solves = 10000;
    int max_n = 512;
    double rss_slack = 16, dev_slack = 32;
    long settle_req = 1000;
    const char *list = "cpu,cuda,opencl";
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--solves") && v)
            solves = atol(v);
        else if (!strcmp(argv[i], "--backends") && v)
            list = v;
        else if (!strcmp(argv[i], "--max-n") && v)
            max_n = atoi(v);
        else if (!strcmp(argv[i], "--seed") && v)
            rng = strtoull(v, NULL, 10) | 1u;
        else if (!strcmp(argv[i], "--rss-slack") && v)
            rss_slack = atof(v);
        else if (!strcmp(argv[i], "--dev-slack") && v)
            dev_slack = atof(v);
        else if (!strcmp(argv[i], "--settle") && v)
            settle_req = atol(v);
        else {
            fprintf(stderr,
                    "usage: %s [--solves N] [--backends cpu,cuda,opencl] [--max-n N] "
                    "[--seed S] [--rss-slack MiB] [--dev-slack MiB] [--settle K]\n",
                    argv[0]);
            return 2;
        }
        i++;
    }
    if (solves < 0 || max_n < 16) {
        fprintf(stderr, "--solves must be >= 0 and --max-n >= 16\n");
        return 2;
    }
    backend bs[LS_BACKEND_COUNT_];
    int nb = 0, have_cuda = 0;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        ls_backend_kind k;
        if (ls_backend_parse(tok, &k) != 0 || k == LS_BACKEND_AUTO) {
            fprintf(stderr, "unknown backend %s\n", tok);
            return 2;
        }
        ls_context *ctx = NULL;
        int st = ls_context_create(&ctx, k, k == LS_BACKEND_OPENCL ? -1 : 0);
        if (st) {
            printf("backend %-6s unavailable: %s\n", tok, ctx ? ls_context_error(ctx) : "");
            ls_context_destroy(ctx);
            continue;
        }
        printf("backend %-6s %s\n", tok, ls_context_device_name(ctx));
        bs[nb++] = (backend){.kind = k, .ctx = ctx};
        have_cuda |= k == LS_BACKEND_CUDA;
    }
    if (!nb) {
        fprintf(stderr, "no backend\n");
        return 2;
    }
    A = malloc(sizeof *A * (size_t)max_n * max_n);
    B = malloc(sizeof *B * (size_t)max_n * 4);
    X = malloc(sizeof *X * (size_t)max_n * 4);
    if (!A || !B || !X)
        return 2;

    /* warm-up: every supported combination once at the largest order */
    int combos = 0;
    for (int b = 0; b < nb; b++)
        for (int m = 0; m < NM; m++)
            for (int p = 0; p < 2; p++)
                if (ls_context_supports(bs[b].ctx, methods[m], (ls_precision)p) == 0) {
                    solve(&bs[b], methods[m], (ls_precision)p, max_n, 4, 1);
                    combos++;
                }
    if (!combos) {
        fprintf(stderr, "no method is supported\n");
        return 2;
    }
    long rss0 = rss_kib();
    double dev0 = device_used(have_cuda), t0 = now();
    /* growth is judged from the `settle`-th random solve on: before it the
     * context's bounded caches (graphs, workspaces, cuBLAS's per-stream
     * workspace, the allocator's pools) fill with the sizes they meet */
    long settle = solves >= 4 * settle_req ? settle_req : solves / 4, rss_s = rss0;
    double dev_s = dev0;
    printf("warm-up: %d combinations at n = %d; host RSS %.1f MiB, device in use %s%.1f MiB\n",
           combos, max_n, rss0 / 1024.0, dev0 < 0 ? "n/a " : "", dev0 < 0 ? 0.0 : dev0 / MIB);
    for (long k = 0; k < solves;) {
        backend *b = &bs[next() % (uint64_t)nb];
        ls_method m = methods[next() % NM];
        ls_precision p = (ls_precision)(next() & 1);
        if (ls_context_supports(b->ctx, m, p) != 0)
            continue;
        int n = 16 + (int)(next() % (uint64_t)(max_n - 15));
        int nrhs = 1 + (int)(next() % 4);
        solve(b, m, p, n, nrhs, next());
        if (k + 1 == settle) { /* the caches keyed by size have seen most sizes */
            rss_s = rss_kib();
            dev_s = device_used(have_cuda);
        }
        if (++k % 1000 == 0) {
            double dev = device_used(have_cuda);
            printf("%6ld solves, %.1f s, host RSS %.1f MiB, device in use %.1f MiB, wrong %ld, "
                   "errors %ld\n", k, now() - t0, rss_kib() / 1024.0, dev < 0 ? 0.0 : dev / MIB,
                   wrong_total, error_total);
        }
    }
    long rss1 = rss_kib();
    double dev1 = device_used(have_cuda);
    double rss_growth = (rss1 - rss_s) / 1024.0;
    double dev_growth = dev0 < 0 ? 0.0 : (dev1 - dev_s) / MIB;
    printf("%-8s %8s %8s %8s\n", "backend", "solves", "wrong", "errors");
    for (int b = 0; b < nb; b++)
        printf("%-8s %8ld %8ld %8ld\n", ls_backend_name(bs[b].kind), bs[b].solves, bs[b].wrong,
               bs[b].errors);
    printf("host RSS: %.1f MiB after the warm-up, %.1f after %ld solves, %.1f at end "
           "(%+.1f MiB since solve %ld, slack %.0f)\n",
           rss0 / 1024.0, rss_s / 1024.0, settle, rss1 / 1024.0, rss_growth, settle, rss_slack);
    if (dev0 >= 0)
        printf("device memory in use: %.1f MiB after the warm-up, %.1f after %ld solves, %.1f at "
               "end (%+.1f MiB since solve %ld, slack %.0f)\n",
               dev0 / MIB, dev_s / MIB, settle, dev1 / MIB, dev_growth, settle, dev_slack);
    printf("solves: %ld in %.1f s; wrong answers: %ld; failed solves: %ld\n", solves,
           now() - t0, wrong_total, error_total);
    for (int b = 0; b < nb; b++)
        ls_context_destroy(bs[b].ctx);
    free(A);
    free(B);
    free(X);
    int grew = rss_growth > rss_slack || dev_growth > dev_slack;
    if (grew)
        printf("FAILED: memory grew beyond the slack\n");
    return wrong_total || error_total || grew ? 1 : 0;
}
