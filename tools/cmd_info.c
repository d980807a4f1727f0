/* `linsolve info`: what this build and machine can do. */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "core/knobs.h"

static void info_help(FILE *out)
{
    fprintf(out,
            "Usage: linsolve info\n"
            "\n"
            "Print the library version, every backend with its platforms, devices and\n"
            "properties (for each CUDA device, the row of the CUDA tuning table its\n"
            "architecture gets: the measured crossovers in use, docs/tuning.md), and the\n"
            "method table: which methods run in which precision\n"
            "(d = double, s = single) on each backend of this machine, then every\n"
            "environment variable linsolve reads (docs/tuning.md): its value, where the\n"
            "value came from (env, default, or rejected: set but not accepted, so the\n"
            "default) and its default.\n"
            "Lines 'backend NAME: available: DEVICE' / 'backend NAME: unavailable: WHY'\n"
            "are stable for scripts. --verbose (or LS_DEBUG=1) adds where in the source\n"
            "each reason was found.\n");
}

/* The library's description, through a memory stream so that the source
 * locations in its reasons can be left out like everywhere else. */
static int print_library_info(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return ls_print_info(stdout);
    int st = ls_print_info(mem);
    char *plain = fclose(mem) == 0 ? malloc(len + 1) : NULL;
    if (plain)
        fputs(ls_cli_message(text, plain, len + 1), stdout);
    else if (text)
        fputs(text, stdout);
    free(plain);
    free(text);
    return st;
}

/* The knob registry (core/knob_table.h): one line per variable, the value
 * last because a path may be long. */
static void print_knobs(void)
{
    static const char *const from[] = {"default", "env", "rejected"};
    printf("\nEnvironment (docs/tuning.md; 'rejected': set, not accepted, so the default):\n");
    printf("  %-26s %-9s %-10s %-8s %s\n", "variable", "category", "from", "default", "value");
    for (int id = 0; id < LS_KNOB_COUNT_; ++id) {
        const ls_knob_def *d = ls_knob_describe((ls_knob_id)id);
        const char *raw = NULL;
        ls_knob_source src = ls_knob_read((ls_knob_id)id, NULL, &raw);
        char value[LS_KNOB_STRING_MAX], def[64], range[128];
        ls_knob_value_text((ls_knob_id)id, value, sizeof value);
        ls_knob_default_text((ls_knob_id)id, def, sizeof def);
        printf("  %-26s %-9s %-10s %-8s %s", d->name, ls_knob_category_name(d->category),
               from[src], def, value);
        if (src == LS_KNOB_REJECTED) {
            ls_knob_range_text((ls_knob_id)id, range, sizeof range);
            printf(" (%s=%s not accepted: %s)", d->name, raw ? raw : "", range);
        }
        printf("\n");
    }
}

int ls_cmd_info(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            info_help(stdout);
            return LS_EXIT_OK;
        }
        if (!strcmp(argv[i], "--verbose")) {
            ls_cli_set_verbose();
            continue;
        }
        ls_cli_usage_error("info", "unknown argument '%s'", argv[i]);
        return LS_EXIT_USAGE;
    }
    printf("linsolve %d.%d.%d (command-line tool)\n\n", LS_VERSION_MAJOR, LS_VERSION_MINOR,
           LS_VERSION_PATCH);
    fflush(stdout);
    int st = print_library_info();
    fflush(stdout);
    if (st != 0)
        printf("(backend description incomplete: %s)\n", ls_strerror(st));

    enum { NB = LS_BACKEND_COUNT_ };
    ls_context *ctx[NB] = {0};
    printf("\nBackends:\n");
    for (int b = LS_BACKEND_CPU; b < NB; ++b) {
        int cs = ls_context_create(&ctx[b], (ls_backend_kind)b, 0);
        if (cs == 0) {
            printf("  backend %s: available: %s\n", ls_backend_name((ls_backend_kind)b),
                   ls_context_device_name(ctx[b]));
        } else {
            const char *why = ctx[b] ? ls_context_error(ctx[b]) : "";
            char plain[1024];
            printf("  backend %s: unavailable: %s\n", ls_backend_name((ls_backend_kind)b),
                   why && why[0] ? ls_cli_message(why, plain, sizeof plain) : ls_strerror(cs));
            if (ctx[b])
                ls_context_destroy(ctx[b]);
            ctx[b] = NULL;
        }
    }

    printf("\nMethods (d = double, s = single; - = not on this backend, n/a = backend "
           "unavailable):\n");
    printf("  %-13s", "method");
    for (int b = LS_BACKEND_CPU; b < NB; ++b)
        printf(" %-7s", ls_backend_name((ls_backend_kind)b));
    printf(" description\n");
    for (int m = 0; m < LS_METHOD_COUNT_; ++m) {
        printf("  %-13s", ls_method_name((ls_method)m));
        for (int b = LS_BACKEND_CPU; b < NB; ++b) {
            char cell[8] = "n/a";
            if (ctx[b]) {
                int d = ls_context_supports(ctx[b], (ls_method)m, LS_DOUBLE) == 0;
                int s = ls_context_supports(ctx[b], (ls_method)m, LS_SINGLE) == 0;
                snprintf(cell, sizeof cell, "%s", d && s ? "d s" : d ? "d" : s ? "s" : "-");
            }
            printf(" %-7s", cell);
        }
        printf(" %s\n", ls_method_description((ls_method)m));
    }
    for (int b = 0; b < NB; ++b) {
        if (ctx[b])
            ls_context_destroy(ctx[b]);
    }
    print_knobs();
    return LS_EXIT_OK;
}
