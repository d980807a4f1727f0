/* linsolve: solve dense linear systems AX = B from the command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "core/knobs.h"

static void print_help(FILE *out)
{
    fprintf(out,
            "Usage: linsolve COMMAND [OPTIONS]\n"
            "\n"
            "Solve dense linear systems A X = B on CPUs, CUDA GPUs and OpenCL devices\n"
            "(LAPACK semantics: column-major, partial pivoting, info = zero-pivot column).\n"
            "\n"
            "Commands:\n"
            "  solve A [B]   solve A X = B (B defaults to A*ones) and check the answer\n"
            "  gen KIND      write a test matrix (random, hilbert, gfpp, poisson2d, ...)\n"
            "  info          backends, devices, and which methods run where\n"
            "  bench         time methods over a range of sizes (GFLOP/s table)\n"
            "  metrics       achieved bandwidth and throughput of the kernels\n"
            "  roofline      roofline data points for the device\n"
            "  help          this text\n"
            "\n"
            "Options:\n"
            "  --version     print the library version\n"
            "  -h, --help    this text; 'linsolve COMMAND --help' for a command\n"
            "\n"
            "Exit status: 0 solved (scaled residual <= 30), 1 usage error, 2 invalid\n"
            "input, 3 singular matrix, 4 inaccurate / not converged / breakdown,\n"
            "5 backend unavailable, device error or out of memory.\n");
}

/* OpenMP reads OMP_WAIT_POLICY when the runtime loads, before main. Idle
 * OpenMP threads that spin steal the cores OpenBLAS's own threads need (a
 * 0.3 ms LAPACK solve took 24 ms on 2 cores), so unless the user chose a
 * policy, run again with the passive one. */
static void prefer_passive_openmp(char **argv)
{
    if (getenv("OMP_WAIT_POLICY") || ls_knob_int(LS_KNOB_NO_REEXEC))
        return;
    if (setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0 || setenv("LS_NO_REEXEC", "1", 1) != 0)
        return;
    execv("/proc/self/exe", argv); /* returns only on failure: carry on as we are */
}

/* The measurement commands print to stdout unless -o names a file, so
 * "-o -" (standard output, as for solve and gen) is the same as no -o:
 * taken off the command line here. Returns the new argc. */
static int drop_stdout_output(int argc, char **argv)
{
    int kept = 0;
    for (int i = 0; i < argc; ++i) {
        if (i + 1 < argc && !strcmp(argv[i], "-o") && !strcmp(argv[i + 1], "-")) {
            ++i;
            continue;
        }
        argv[kept++] = argv[i];
    }
    argv[kept] = NULL;
    return kept;
}

int main(int argc, char **argv)
{
    prefer_passive_openmp(argv);
    static const struct {
        const char *name;
        int (*run)(int, char **);
        int stdout_default; /* writes to stdout without -o */
    } commands[] = {
        {"solve", ls_cmd_solve, 0},       {"gen", ls_cmd_gen, 0},
        {"info", ls_cmd_info, 0},         {"bench", ls_cmd_bench, 1},
        {"metrics", ls_cmd_metrics, 1},   {"roofline", ls_cmd_roofline, 1},
    };
    if (argc < 2) {
        print_help(stderr);
        return LS_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("linsolve %d.%d.%d\n", LS_VERSION_MAJOR, LS_VERSION_MINOR, LS_VERSION_PATCH);
        return LS_EXIT_OK;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        /* "linsolve help solve" is the same as "linsolve solve --help". */
        if (argc >= 3) {
            for (size_t k = 0; k < sizeof commands / sizeof commands[0]; ++k) {
                if (!strcmp(argv[2], commands[k].name)) {
                    char *sub[] = {argv[2], "--help", NULL};
                    return commands[k].run(2, sub);
                }
            }
        }
        print_help(stdout);
        return LS_EXIT_OK;
    }
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; ++k) {
        if (!strcmp(cmd, commands[k].name)) {
            int n = argc - 1;
            if (commands[k].stdout_default)
                n = drop_stdout_output(n, argv + 1);
            return commands[k].run(n, argv + 1);
        }
    }
    ls_cli_usage_error(NULL, "unknown command '%s'", cmd);
    return LS_EXIT_USAGE;
}
