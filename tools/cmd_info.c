/* `linsolve info`: what this build and machine can do. */
#include <string.h>

#include "commands.h"

static void info_help(FILE *out)
{
    fprintf(out,
            "Usage: linsolve info\n"
            "\n"
            "Print the library version, every backend with its platforms, devices and\n"
            "properties, and the method table: which methods run in which precision\n"
            "(d = double, s = single) on each backend of this machine.\n"
            "Lines 'backend NAME: available: DEVICE' / 'backend NAME: unavailable: WHY'\n"
            "are stable for scripts.\n");
}

int ls_cmd_info(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            info_help(stdout);
            return LS_EXIT_OK;
        }
        ls_cli_usage_error("info", "unknown argument '%s'", argv[i]);
        return LS_EXIT_USAGE;
    }
    printf("linsolve %d.%d.%d (command-line tool)\n\n", LS_VERSION_MAJOR, LS_VERSION_MINOR,
           LS_VERSION_PATCH);
    fflush(stdout);
    int st = ls_print_info(stdout);
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
            printf("  backend %s: unavailable: %s\n", ls_backend_name((ls_backend_kind)b),
                   why && why[0] ? why : ls_strerror(cs));
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
    return LS_EXIT_OK;
}
