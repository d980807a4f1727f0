/* Argument parsing, exit-status mapping, JSON output and the progress bar
 * shared by the linsolve subcommands. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "core/knobs.h"

ls_cli_outcome ls_cli_outcome_of(int status, int reading)
{
    /* One table: every library status lands on exactly one exit code. */
    static const struct {
        int status;
        ls_cli_outcome outcome;
    } table[] = {
        {LS_OK, {LS_EXIT_OK, "ok"}},
        {LS_NOT_CONVERGED, {LS_EXIT_INACCURATE, "not_converged"}},
        {LS_BREAKDOWN, {LS_EXIT_INACCURATE, "breakdown"}},
        {LS_INACCURATE, {LS_EXIT_INACCURATE, "inaccurate"}},
        {LS_ENOMEM, {LS_EXIT_UNAVAILABLE, "out_of_memory"}},
        {LS_EDEVMEM, {LS_EXIT_UNAVAILABLE, "out_of_memory"}},
        {LS_EUNAVAIL, {LS_EXIT_UNAVAILABLE, "unavailable"}},
        {LS_EDEVICE, {LS_EXIT_UNAVAILABLE, "device_error"}},
        {LS_EINVAL, {LS_EXIT_INPUT, "invalid_input"}},
        {LS_EIO, {LS_EXIT_INPUT, "invalid_input"}},
        {LS_EFORMAT, {LS_EXIT_INPUT, "invalid_input"}},
        /* a method the chosen backend cannot run: nothing wrong with the input */
        {LS_EUNSUPPORTED, {LS_EXIT_UNAVAILABLE, "unavailable"}},
        {LS_ENONFINITE, {LS_EXIT_INPUT, "invalid_input"}},
        {LS_ESIZE, {LS_EXIT_INPUT, "invalid_input"}},
        {LS_ELIMIT, {LS_EXIT_UNAVAILABLE, "unavailable"}},
        {LS_EINTERNAL, {LS_EXIT_UNAVAILABLE, "internal_error"}},
    };
    ls_cli_outcome out = {LS_EXIT_UNAVAILABLE, "internal_error"};
    if (status > 0 && status < LS_NOT_CONVERGED) {
        out.exit_code = LS_EXIT_SINGULAR;
        out.status = "singular";
        return out;
    }
    if (status < 0 && status > -1000) { /* LAPACK -i: an argument we passed */
        out.exit_code = LS_EXIT_INPUT;
        out.status = "invalid_input";
        return out;
    }
    for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k) {
        if (table[k].status == status) {
            out = table[k].outcome;
            break;
        }
    }
    if (reading && status != LS_OK && status != LS_ENOMEM) {
        out.exit_code = LS_EXIT_INPUT;
        out.status = "invalid_input";
    }
    return out;
}

void ls_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "linsolve%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'linsolve %s%s--help' for more information.\n", cmd ? cmd : "",
            cmd ? " " : "");
}

int ls_cli_parse_int(const char *cmd, const char *opt, const char *text, long long lo,
                     long long hi, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (text[0] == '\0' || isspace((unsigned char)text[0]) || *end != '\0' || errno == ERANGE) {
        ls_cli_usage_error(cmd, "%s: '%s' is not an integer", opt, text);
        return -1;
    }
    if (v < lo || v > hi) {
        ls_cli_usage_error(cmd, "%s: %lld is out of range [%lld, %lld]", opt, v, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int ls_cli_parse_double(const char *cmd, const char *opt, const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (text[0] == '\0' || isspace((unsigned char)text[0]) || *end != '\0' || errno == ERANGE ||
        !isfinite(v)) {
        ls_cli_usage_error(cmd, "%s: '%s' is not a finite number", opt, text);
        return -1;
    }
    *out = v;
    return 0;
}

const char *ls_cli_value(const char *cmd, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        ls_cli_usage_error(cmd, "option %s needs a value", argv[*i]);
        return NULL;
    }
    *i += 1;
    return argv[*i];
}

void ls_cli_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; ++p) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\b': fputs("\\b", out); break;
        case '\f': fputs("\\f", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            /* Other control bytes must be escaped; bytes >= 0x80 pass through
             * (UTF-8 file names stay readable). */
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

void ls_cli_json_number(FILE *out, double x)
{
    if (isfinite(x))
        fprintf(out, "%.17g", x);
    else
        fputs("null", out);
}

int ls_cli_has_suffix(const char *path, const char *suffix)
{
    size_t lp = strlen(path), ls = strlen(suffix);
    if (lp < ls)
        return 0;
    for (size_t k = 0; k < ls; ++k) {
        if (tolower((unsigned char)path[lp - ls + k]) != tolower((unsigned char)suffix[k]))
            return 0;
    }
    return 1;
}

int ls_cli_stderr_is_tty(void) { return isatty(fileno(stderr)); }

void ls_cli_progress_draw(void *arg, double fraction, const char *what)
{
    ls_cli_progress *p = arg;
    if (!p || !p->armed)
        return;
    if (!(fraction >= 0.0))
        fraction = 0.0;
    if (fraction > 1.0)
        fraction = 1.0;
    int permille = (int)(fraction * 1000.0);
    if (permille == p->last_permille)
        return;
    p->last_permille = permille;
    enum { WIDTH = 40 };
    char bar[WIDTH + 1];
    int filled = (int)(fraction * WIDTH);
    for (int k = 0; k < WIDTH; ++k)
        bar[k] = k < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    fprintf(stderr, "\r%-10.10s [%s] %5.1f%%", what ? what : "", bar, fraction * 100.0);
    fflush(stderr);
}

void ls_cli_progress_end(ls_cli_progress *p)
{
    if (p && p->armed && p->last_permille >= 0) {
        fputc('\n', stderr);
        p->last_permille = -1;
    }
}

int ls_cli_mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

int ls_cli_is_stream(const char *path) { return path && !strcmp(path, "-"); }

int ls_cli_parse_format(const char *cmd, const char *text, ls_io_format *out)
{
    if (!strcmp(text, "mtx") || !strcmp(text, "mm")) {
        *out = LS_IO_MM;
    } else if (!strcmp(text, "npy")) {
        *out = LS_IO_NPY;
    } else {
        ls_cli_usage_error(cmd, "--format: unknown format '%s' (mtx, npy)", text);
        return -1;
    }
    return 0;
}

ls_io_format ls_cli_output_format(const char *path, ls_io_format forced)
{
    if (forced != LS_IO_AUTO)
        return forced;
    if (path && !ls_cli_is_stream(path) && ls_cli_has_suffix(path, ".npy"))
        return LS_IO_NPY;
    return LS_IO_MM;
}

int ls_cli_refuse_binary_tty(const char *cmd, ls_io_format fmt, const char *path)
{
    if (fmt != LS_IO_NPY || (path && !ls_cli_is_stream(path)) || !isatty(fileno(stdout)))
        return 0;
    ls_cli_usage_error(cmd, "not writing binary .npy to a terminal: redirect standard output "
                            "or use --format mtx");
    return -1;
}

/* LS_DEBUG is the one switch: --verbose sets it, so every part of the tool
 * asks the same question. */
void ls_cli_set_verbose(void) { setenv("LS_DEBUG", "1", 1); }

static int debugging(void)
{
    return ls_knob_int(LS_KNOB_DEBUG) != 0; /* a LIVE knob: --verbose sets it */
}

const char *ls_cli_message(const char *msg, char *buf, size_t len)
{
    if (!msg || debugging())
        return msg ? msg : "";
    ls_message_split(msg, buf, len, NULL, 0);
    return buf;
}

int ls_cli_take_path(const char *cmd, const char *arg, const char **a_path, const char **b_path)
{
    if (!*a_path) {
        *a_path = arg;
    } else if (!*b_path) {
        *b_path = arg;
    } else {
        ls_cli_usage_error(cmd, "unexpected argument '%s' (A and B already given)", arg);
        return -1;
    }
    return 0;
}
