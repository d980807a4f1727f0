/* Host-CPU versions of the roofline's measurements, used when the backend
 * has no perf slot (cpu, opencl): copy bandwidth, FMA throughput and the
 * same intensity kernel as src/cuda/perf, in C. Single-threaded: they
 * measure one core, and the output says so. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "roofline_host.h"

#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

/* Keeps results observable so the compiler cannot drop the loops. */
static volatile double sink;

static double median_of(double *t, int n) { return ls_bench_median(t, n); }

int ls_host_copy(size_t bytes, int repeat, ls_perf_timing *o)
{
    memset(o, 0, sizeof *o);
    char *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a), free(b);
        return LS_ENOMEM;
    }
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    double t[64];
    if (repeat > 64)
        repeat = 64;
    memcpy(b, a, bytes);
    for (int r = 0; r < repeat; r++) {
        double t0 = ls_bench_clock();
        memcpy(b, a, bytes);
        t[r] = ls_bench_clock() - t0;
        sink += b[r % bytes];
    }
    o->seconds = median_of(t, repeat);
    o->bytes = 2.0 * bytes;
    o->gbps = o->bytes / o->seconds / 1e9;
    free(a), free(b);
    return 0;
}

int ls_host_fma(ls_precision p, int repeat, ls_perf_timing *o)
{
    memset(o, 0, sizeof *o);
    const long iters = 2000000;
    double t[64];
    if (repeat > 64)
        repeat = 64;
    for (int r = 0; r < repeat; r++) {
        double t0 = ls_bench_clock();
        if (p == LS_SINGLE) {
            float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, a = 0.999999f, b = (float)(1e-7 + sink);
            for (long i = 0; i < iters; i++)
                for (int c = 0; c < 8; c++)
                    x[c] = x[c] * a + b;
            sink += x[0] + x[7];
        } else {
            double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, a = 0.999999, b = 1e-7 + sink;
            for (long i = 0; i < iters; i++)
                for (int c = 0; c < 8; c++)
                    x[c] = x[c] * a + b;
            sink += x[0] + x[7];
        }
        t[r] = ls_bench_clock() - t0;
    }
    o->seconds = median_of(t, repeat);
    o->flops = 2.0 * 8 * iters;
    o->gflops = o->flops / o->seconds / 1e9;
    return 0;
}

int ls_host_intensity(ls_precision p, int n, int loop, int repeat, ls_perf_timing *o)
{
    memset(o, 0, sizeof *o);
    size_t nn = (size_t)n * n;
    double *A = malloc(nn * sizeof(double) + 1), *l = malloc((size_t)n * sizeof(double) + 1),
           *u = malloc((size_t)n * sizeof(double) + 1);
    if (!A || !l || !u) {
        free(A), free(l), free(u);
        return LS_ENOMEM;
    }
    ls_fill_random(n, n, A, n, 3);
    ls_fill_random(n, 1, l, n, 4);
    ls_fill_random(n, 1, u, n, 5);
    double t[64];
    if (repeat > 64)
        repeat = 64;
    double scale = 0.9999999;
    for (int r = 0; r < repeat; r++) {
        double t0 = ls_bench_clock();
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double f = l[i], v = A[i + (size_t)j * n] - f * u[j], shift = f * (j * 1e-10);
                for (int k = 0; k < loop; k++)
                    v = v * scale + shift;
                A[i + (size_t)j * n] = v;
            }
        t[r] = ls_bench_clock() - t0;
    }
    sink += A[nn / 2];
    o->seconds = median_of(t, repeat);
    o->flops = (double)nn * (2.0 + 2.0 * loop);
    o->bytes = (2.0 * nn + 2.0 * n) * 8; /* the host kernel runs in double */
    (void)p;
    o->gflops = o->flops / o->seconds / 1e9;
    o->gbps = o->bytes / o->seconds / 1e9;
    free(A), free(l), free(u);
    return 0;
}
