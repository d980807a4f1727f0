#include "testutil.h"

#include "core/methods/methods.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void lt_header(void)
{
    printf("%6s %5s  %-13s %-7s %-6s %10s %10s %12s  %s\n", "N", "NRHS", "method", "backend",
           "prec", "time(s)", "GFLOP/s", "residual", "status");
    fflush(stdout);
}

int lt_row(int n, int nrhs, const char *method, const char *backend, const char *prec,
           double time_s, double gflops, double residual, int ok)
{
    printf("%6d %5d  %-13s %-7s %-6s %10.2e %10.2f %12.3e  %s\n", n, nrhs, method, backend, prec,
           time_s, gflops, residual, ok ? "ok" : "failed");
    fflush(stdout);
    return ok ? 0 : 1;
}

int lt_check(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf(" ... %s\n", ok ? "ok" : "FAILED");
    fflush(stdout);
    return ok ? 0 : 1;
}

int lt_backend_available(ls_backend_kind kind, char *why, size_t len)
{
    ls_context *ctx = NULL;
    int st = ls_context_create(&ctx, kind, 0);
    if (st != 0) {
        snprintf(why, len, "%s: %s", ls_strerror(st), ctx ? ls_context_error(ctx) : "");
        ls_context_destroy(ctx);
        return 0;
    }
    ls_context_destroy(ctx);
    return 1;
}

void *lt_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        exit(99);
    }
    return p;
}

double *lt_doubles(size_t count)
{
    /* zeroed: a test that forgets to fill a buffer must not read garbage
     * (a small malloc can reuse freed memory; a large one is fresh zeros) */
    double *p = lt_xmalloc(sizeof(double) * (count ? count : 1));
    memset(p, 0, sizeof(double) * (count ? count : 1));
    return p;
}

int lt_direct_methods(ls_context *ctx, ls_method *out, int cap, int *nopivot)
{
    int count = 0;
    *nopivot = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int m = LS_METHOD_AUTO + 1; m < LS_METHOD_COUNT_ && count < cap; m++) {
            const ls_method_info *info = ls_method_info_of((ls_method)m);
            if (!info || info->iterative || ls_context_supports(ctx, (ls_method)m, LS_DOUBLE) != 0)
                continue;
            if ((pass == 0) == ((info->options & LS_OPT_PIVOT) != 0))
                out[count++] = (ls_method)m;
        }
        if (pass == 0)
            *nopivot = count;
    }
    return count;
}
