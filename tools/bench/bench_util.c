/* Plumbing shared by the measurement commands; see bench_util.h. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "bench_util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double ls_bench_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ls_bench_median(double *v, int n)
{
    if (n <= 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int ls_bench_parse_ints(const char *s, int *out, int max)
{
    int count = 0;
    while (s && *s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v <= 0 || v > 1000000000L || count >= max)
            return -1;
        out[count++] = (int)v;
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        s = end;
    }
    return count;
}

int ls_bench_parse_words(const char *s, char out[][32], int max)
{
    int count = 0;
    while (s && *s) {
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= 32 || count >= max)
            return -1;
        memcpy(out[count], s, len);
        out[count][len] = '\0';
        count++;
        s += len;
        if (*s == ',')
            s++;
    }
    return count;
}

int ls_bench_parse_format(const char *s, ls_out_format *f)
{
    if (!strcmp(s, "table"))
        *f = LS_FMT_TABLE;
    else if (!strcmp(s, "csv"))
        *f = LS_FMT_CSV;
    else if (!strcmp(s, "json"))
        *f = LS_FMT_JSON;
    else
        return -1;
    return 0;
}

void ls_cell(char *cell, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cell, LS_BENCH_CELL, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ writer */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* A cell that is a finite number is written bare in JSON, else quoted. */
static void json_value(FILE *f, const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*s && *end == '\0' && v == v && v - v == 0.0 && strcspn(s, "xXnNiI") == strlen(s))
        fputs(s, f);
    else if (!strcmp(s, "-") || !*s)
        fputs("null", f);
    else
        json_string(f, s);
}

void ls_out_open(ls_out *o, FILE *f, ls_out_format fmt)
{
    memset(o, 0, sizeof *o);
    o->f = f;
    o->fmt = fmt;
}

void ls_out_machine(ls_out *o, const char *key, const char *fmt, ...)
{
    if (o->nmachine >= 32)
        return;
    snprintf(o->mkey[o->nmachine], sizeof o->mkey[0], "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->mval[o->nmachine], sizeof o->mval[0], fmt, ap);
    va_end(ap);
    o->nmachine++;
}

static void write_header(ls_out *o)
{
    if (o->header_done)
        return;
    o->header_done = 1;
    if (o->fmt == LS_FMT_JSON) {
        fputs("{\n  \"machine\": {", o->f);
        for (int i = 0; i < o->nmachine; i++) {
            fputs(i ? ", " : "", o->f);
            json_string(o->f, o->mkey[i]);
            fputs(": ", o->f);
            json_string(o->f, o->mval[i]);
        }
        fputs("},\n  \"tables\": [", o->f);
    } else {
        for (int i = 0; i < o->nmachine; i++)
            fprintf(o->f, "# %s: %s\n", o->mkey[i], o->mval[i]);
    }
}

static void end_table(ls_out *o)
{
    if (o->fmt == LS_FMT_JSON && o->ntables > 0)
        fputs("\n    ]}", o->f);
}

void ls_out_table(ls_out *o, const char *title, int ncols, const char *const *cols,
                  const int *widths)
{
    write_header(o);
    end_table(o);
    if (ncols > LS_BENCH_MAX_COLS)
        ncols = LS_BENCH_MAX_COLS;
    o->ncols = ncols;
    o->nrows = 0;
    for (int i = 0; i < ncols; i++) {
        snprintf(o->cols[i], sizeof o->cols[i], "%s", cols[i]);
        o->widths[i] = widths ? widths[i] : 12;
    }
    if (o->fmt == LS_FMT_JSON) {
        fputs(o->ntables ? ",\n    {\"title\": " : "\n    {\"title\": ", o->f);
        json_string(o->f, title);
        fputs(", \"rows\": [", o->f);
    } else if (o->fmt == LS_FMT_CSV) {
        fprintf(o->f, "# %s\n", title);
        for (int i = 0; i < ncols; i++)
            fprintf(o->f, "%s%s", i ? "," : "", cols[i]);
        fputc('\n', o->f);
    } else {
        fprintf(o->f, "\n## %s\n", title);
        for (int i = 0; i < ncols; i++)
            fprintf(o->f, "%*s ", i ? o->widths[i] : -o->widths[i], cols[i]);
        fputc('\n', o->f);
    }
    o->ntables++;
    fflush(o->f);
}

void ls_out_row(ls_out *o, char cells[][LS_BENCH_CELL])
{
    if (o->fmt == LS_FMT_JSON) {
        fputs(o->nrows ? ",\n      {" : "\n      {", o->f);
        for (int i = 0; i < o->ncols; i++) {
            fputs(i ? ", " : "", o->f);
            json_string(o->f, o->cols[i]);
            fputs(": ", o->f);
            json_value(o->f, cells[i]);
        }
        fputc('}', o->f);
    } else if (o->fmt == LS_FMT_CSV) {
        for (int i = 0; i < o->ncols; i++)
            fprintf(o->f, "%s%s", i ? "," : "", cells[i]);
        fputc('\n', o->f);
    } else {
        for (int i = 0; i < o->ncols; i++)
            fprintf(o->f, "%*s ", i ? o->widths[i] : -o->widths[i], cells[i]);
        fputc('\n', o->f);
    }
    o->nrows++;
    fflush(o->f);
}

void ls_out_note(ls_out *o, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (o->fmt == LS_FMT_JSON) {
        if (o->nnotes < 64)
            snprintf(o->notes[o->nnotes++], sizeof o->notes[0], "%s", text);
    } else {
        write_header(o);
        fprintf(o->f, "# note: %s\n", text);
    }
}

void ls_out_close(ls_out *o)
{
    write_header(o);
    if (o->fmt == LS_FMT_JSON) {
        end_table(o);
        fputs("\n  ],\n  \"notes\": [", o->f);
        for (int i = 0; i < o->nnotes; i++) {
            fputs(i ? ", " : "", o->f);
            json_string(o->f, o->notes[i]);
        }
        fputs("]\n}\n", o->f);
    }
    fflush(o->f);
}

/* ------------------------------------------------------------------ machine */
static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *p = strchr(line, ':');
            if (p) {
                p += 1 + strspn(p + 1, " \t");
                p[strcspn(p, "\n")] = '\0';
                snprintf(buf, len, "%s", p);
            }
            break;
        }
    }
    fclose(f);
}

const ls_perf_iface *ls_bench_perf_table(const ls_context *ctx)
{
    return ctx && ctx->iface ? ctx->iface->perf : NULL;
}

int ls_bench_perf_missing(const ls_context *ctx, const char *request, char *err, size_t errlen)
{
    const char *backend = ctx && ctx->iface ? ls_backend_name(ctx->kind) : "(none)";
    if (!ls_bench_perf_table(ctx))
        snprintf(err, errlen, "backend %s has no measurement requests", backend);
    else
        snprintf(err, errlen, "backend %s does not answer the measurement request '%s'", backend,
                 request);
    return LS_EUNSUPPORTED;
}

void ls_bench_machine_header(ls_out *o, ls_context *ctx)
{
    char buf[192];
    cpu_model(buf, sizeof buf);
    ls_out_machine(o, "cpu", "%s", buf);
    ls_out_machine(o, "cpu_cores", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    char lapack[512];
    ls_lapack_library(lapack, sizeof lapack);
    ls_out_machine(o, "cpu_lapack", "%s", lapack);
    ls_out_machine(o, "linsolve", "%d.%d.%d", LS_VERSION_MAJOR, LS_VERSION_MINOR,
                   LS_VERSION_PATCH);
    if (!ctx)
        return;
    ls_out_machine(o, "device", "%s", ls_context_device_name(ctx));
    ls_perf_device d;
    char err[LS_ERRLEN];
    memset(&d, 0, sizeof d);
    if (LS_BENCH_PERF_DEVICE(ctx, &d, err, sizeof err) == 0) {
        ls_out_machine(o, "gpu", "%s", d.name);
        ls_out_machine(o, "gpu_cc", "%d.%d", d.cc_major, d.cc_minor);
        ls_out_machine(o, "gpu_sms", "%d", d.sm_count);
        ls_out_machine(o, "gpu_clock_mhz", "%d", d.clock_khz / 1000);
        ls_out_machine(o, "gpu_mem_clock_mhz", "%d", d.mem_clock_khz / 1000);
        ls_out_machine(o, "gpu_mem_bus_bits", "%d", d.mem_bus_bits);
        ls_out_machine(o, "gpu_peak_bw_gbs", "%.1f", d.peak_bw_gbs);
        ls_out_machine(o, "gpu_driver", "%d.%d", d.driver_version / 1000,
                       (d.driver_version % 1000) / 10);
        ls_out_machine(o, "cuda_runtime", "%d.%d", d.runtime_version / 1000,
                       (d.runtime_version % 1000) / 10);
    }
}

void ls_bench_progress(int done, int total, const char *what)
{
    if (!isatty(STDERR_FILENO) || total <= 0)
        return;
    int width = 30, fill = done * width / total;
    fprintf(stderr, "\r[%.*s%*s] %d/%d %-40.40s", fill, "##############################",
            width - fill, "", done, total, what ? what : "");
    if (done >= total)
        fputc('\n', stderr);
    fflush(stderr);
}
