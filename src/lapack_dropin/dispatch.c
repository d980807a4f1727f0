/* One intercepted call: LAPACK's argument checks, the choice of path, the
 * call itself, the fallback to the system LAPACK when a linsolve context
 * cannot be had or fails, and the trace line. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dropin.h"

/* Set while this thread is inside a routed call: a system LAPACK's dgesv_
 * calls dgetrf_ and dgetrs_ through the global scope, i.e. through us; those
 * inner calls belong to the outer one and go straight to the system. */
static _Thread_local int depth;

static int max1(int x)
{
    return x > 1 ? x : 1;
}

static int is_trans(char t)
{
    return strchr("NnTtCc", t) != NULL && t != '\0';
}

/* LAPACK's checks in LAPACK's order: the 1-based position of the first
 * illegal argument, or 0. */
static int illegal_argument(const lsl_args *x)
{
    switch (x->op) {
    case LSL_GESV:
        if (x->n < 0) return 1;
        if (x->nrhs < 0) return 2;
        if (x->lda < max1(x->n)) return 4;
        if (x->ldb < max1(x->n)) return 7;
        return 0;
    case LSL_GETRF:
        if (x->m < 0) return 1;
        if (x->n < 0) return 2;
        if (x->lda < max1(x->m)) return 4;
        return 0;
    default:
        if (!is_trans(x->trans)) return 1;
        if (x->n < 0) return 2;
        if (x->nrhs < 0) return 3;
        if (x->lda < max1(x->n)) return 5;
        if (x->ldb < max1(x->n)) return 8;
        return 0;
    }
}

static const char *routine(const lsl_args *x, int upper)
{
    static const char *const names[2][2][3] = {
        {{"dgesv_", "dgetrf_", "dgetrs_"}, {"sgesv_", "sgetrf_", "sgetrs_"}},
        {{"DGESV", "DGETRF", "DGETRS"}, {"SGESV", "SGETRF", "SGETRS"}},
    };
    return names[upper][x->prec == LS_SINGLE][x->op];
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void trace(const lsl_args *x, lsl_path path, double seconds)
{
    char line[256];
    int len = snprintf(line, sizeof line, "liblinsolve_lapack: %s", routine(x, 0));
    if (x->op == LSL_GETRF)
        len += snprintf(line + len, sizeof line - (size_t)len, " m=%d", x->m);
    len += snprintf(line + len, sizeof line - (size_t)len, " n=%d nrhs=%d", x->n,
                    x->op == LSL_GETRF ? 0 : x->nrhs);
    if (x->op == LSL_GETRS)
        len += snprintf(line + len, sizeof line - (size_t)len, " trans=%c", x->trans);
    snprintf(line + len, sizeof line - (size_t)len, " path=%s time=%.3e info=%d\n",
             lsl_path_name(path), seconds, *x->info);
    /* one write per line: threads' lines never interleave */
    ssize_t w = write(STDERR_FILENO, line, strlen(line));
    (void)w;
}

/* The Fortran interfaces of the shadowed routines (LP64; getrs takes the
 * hidden length of TRANS last). */
typedef void (*gesv_fn)(const int *, const int *, void *, const int *, int *, void *,
                        const int *, int *);
typedef void (*getrf_fn)(const int *, const int *, void *, const int *, int *, int *);
typedef void (*getrs_fn)(const char *, const int *, const int *, const void *, const int *,
                         const int *, void *, const int *, int *, size_t);

/* 1 if the system LAPACK ran the call. */
static int run_system(lsl_args *x)
{
    void *f = lsl_system_routine(x->op, x->prec);
    if (!f)
        return 0;
    lsl_system_enter();
    switch (x->op) {
    case LSL_GESV:
        ((gesv_fn)f)(&x->n, &x->nrhs, x->a, &x->lda, x->ipiv, x->b, &x->ldb, x->info);
        break;
    case LSL_GETRF:
        ((getrf_fn)f)(&x->m, &x->n, x->a, &x->lda, x->ipiv, x->info);
        break;
    default:
        ((getrs_fn)f)(&x->trans, &x->n, &x->nrhs, x->a, &x->lda, x->ipiv, x->b, &x->ldb,
                      x->info, 1);
    }
    lsl_system_leave();
    return 1;
}

/* linsolve's public drivers: info (>= 0) or a library status (< 0). */
static int run_linsolve(lsl_args *x, ls_context *ctx)
{
    int d = x->prec == LS_DOUBLE, info = 0;
    switch (x->op) {
    case LSL_GESV:
        return d ? ls_dgesv(x->n, x->nrhs, x->a, x->lda, x->ipiv, x->b, x->ldb, &info, ctx)
                 : ls_sgesv(x->n, x->nrhs, x->a, x->lda, x->ipiv, x->b, x->ldb, &info, ctx);
    case LSL_GETRF:
        return d ? ls_dgetrf(x->m, x->n, x->a, x->lda, x->ipiv, &info, ctx)
                 : ls_sgetrf(x->m, x->n, x->a, x->lda, x->ipiv, &info, ctx);
    default:
        return d ? ls_dgetrs(x->trans, x->n, x->nrhs, x->a, x->lda, x->ipiv, x->b, x->ldb, &info,
                             ctx)
                 : ls_sgetrs(x->trans, x->n, x->nrhs, x->a, x->lda, x->ipiv, x->b, x->ldb, &info,
                             ctx);
    }
}

/* The arrays a call may overwrite, so that a device that fails half-way
 * leaves the inputs intact for the system LAPACK. */
typedef struct saved {
    void *mem, *a, *b; /* a and b inside mem */
    int owned;
} saved;

static void copy_cols(void *dst, int ldd, const void *src, int lds, int rows, int cols,
                      size_t es)
{
    for (int j = 0; j < cols; j++)
        memcpy((char *)dst + (size_t)j * (size_t)ldd * es,
               (const char *)src + (size_t)j * (size_t)lds * es, (size_t)rows * es);
}

static int save(const lsl_args *x, lsl_path path, saved *s)
{
    size_t es = x->prec == LS_SINGLE ? sizeof(float) : sizeof(double);
    int rows = x->op == LSL_GETRF ? x->m : x->n;
    int acols = x->op == LSL_GETRS ? 0 : x->n, bcols = x->op == LSL_GETRF ? 0 : x->nrhs;
    size_t a_bytes = (size_t)rows * (size_t)acols * es;
    size_t b_bytes = (size_t)x->n * (size_t)bcols * es;
    s->mem = lsl_save_buffer(path, a_bytes + b_bytes, &s->owned);
    if (!s->mem)
        return -1;
    s->a = acols ? s->mem : NULL;
    s->b = bcols ? (char *)s->mem + a_bytes : NULL;
    if (s->a)
        copy_cols(s->a, rows, x->a, x->lda, rows, acols, es);
    if (s->b)
        copy_cols(s->b, x->n, x->b, x->ldb, x->n, bcols, es);
    return 0;
}

static void restore(const lsl_args *x, saved *s)
{
    size_t es = x->prec == LS_SINGLE ? sizeof(float) : sizeof(double);
    int rows = x->op == LSL_GETRF ? x->m : x->n;
    if (s->a)
        copy_cols(x->a, x->lda, s->a, rows, rows, x->n, es);
    if (s->b)
        copy_cols(x->b, x->ldb, s->b, x->n, x->n, x->nrhs, es);
}

/* The path a call should take before any context is tried. */
static lsl_path choose(const lsl_config *cfg, const lsl_args *x)
{
    if (cfg->mode != LSL_PATH_AUTO)
        return cfg->mode;
    int size = x->op == LSL_GETRF && x->m < x->n ? x->m : x->n;
    return size >= cfg->min_n ? LSL_PATH_CUDA : LSL_PATH_SYSTEM;
}

/* Runs x on a linsolve path; returns the path that ran it, or SYSTEM when
 * the context could not be had or failed (inputs then as on entry). */
static lsl_path try_linsolve(lsl_args *x, lsl_path path)
{
    ls_context *ctx = lsl_context_acquire(path);
    if (!ctx)
        return LSL_PATH_SYSTEM;
    int gpu = path != LSL_PATH_CPU;
    if (!gpu)
        lsl_note_cpu_lu();
    saved s = {NULL, NULL, NULL, 0};
    if (gpu && save(x, path, &s)) {
        lsl_context_release(path);
        return LSL_PATH_SYSTEM; /* no memory for the safety copy */
    }
    int st = run_linsolve(x, ctx);
    if (st < 0 && !gpu) /* the CPU LU fails only before it starts (no memory) */
        lsl_warn_once(LSL_WARN_FALLBACK, "%s on cpu failed (%s): this call used the system LAPACK",
                      routine(x, 0), ls_strerror(st));
    if (st < 0 && gpu) {
        char why[200];
        snprintf(why, sizeof why, "%s: %s", ls_strerror(st), ls_context_error(ctx));
        restore(x, &s);
        /* Out of device memory or a size the method cannot take concerns this
         * call only; anything else means the device is no longer usable. */
        if (st == LS_EDEVMEM || st == LS_EUNSUPPORTED || st == LS_ELIMIT || st == LS_ENOMEM)
            lsl_warn_once(LSL_WARN_FALLBACK, "%s on %s failed (%s): this call used the system "
                          "LAPACK", routine(x, 0), lsl_path_name(path), why);
        else
            lsl_context_disable(path, why);
    }
    if (s.owned)
        free(s.mem);
    lsl_context_release(path);
    if (st < 0)
        return LSL_PATH_SYSTEM;
    *x->info = st;
    return path;
}

void lsl_dispatch(lsl_args *x)
{
    if (depth > 0) {
        /* inside a routed call: no routing, no trace, no recursion */
        if (!run_system(x)) {
            lsl_note_cpu_lu();
            *x->info = run_linsolve(x, NULL);
        }
        return;
    }
    const lsl_config *cfg = lsl_config_get();
    double t0 = cfg->trace ? now() : 0;
    int bad = illegal_argument(x);
    if (bad) {
        *x->info = -bad;
        lsl_xerbla(routine(x, 1), bad);
        if (cfg->trace)
            trace(x, LSL_PATH_ILLEGAL, now() - t0);
        return;
    }
    depth++;
    lsl_path path = choose(cfg, x);
    if (path != LSL_PATH_SYSTEM)
        path = try_linsolve(x, path);
    if (path == LSL_PATH_SYSTEM && !run_system(x)) {
        /* no other LAPACK in this process: linsolve's CPU LU, never a loop */
        path = LSL_PATH_CPU;
        lsl_note_cpu_lu();
        *x->info = run_linsolve(x, NULL);
    }
    depth--;
    if (cfg->trace)
        trace(x, path, now() - t0);
}
