/*
 * `linsolve gen poisson2d|convdiff|poisson3d|convdiff3d` to Matrix Market:
 * the grid problem is streamed row by row (ls_gen_grid_write_mm), never
 * held, so any size the disk takes can be written (n = 10^7 in a few
 * seconds and a few MiB of memory). .npy output of the 2-D kinds still goes
 * through the dense generator.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gen_sparse.h"

/* The largest grid problem written: an order the readers of the library
 * (ls_matrix_read, ls_csr_read_mm) and the solvers take, INT_MAX. A 3-D
 * grid that size is a 2^31-row file of about 400 GB; anything larger could
 * never be read back, so it is refused before a byte is written. */
#define LS_GEN_GRID_MAX_N ((long long)INT_MAX)

static const struct {
    const char *name;
    int dims;
    double peclet;
} kinds[] = {{"poisson2d", 2, 0.0}, {"convdiff", 2, 20.0}, {"poisson3d", 3, 0.0},
             {"convdiff3d", 3, 20.0}};

/* k with k^dims = n, or 0. */
static long long exact_root(long long n, int dims)
{
    long long k = (long long)llround(dims == 2 ? sqrt((double)n) : cbrt((double)n));
    for (long long c = k > 1 ? k - 1 : 1; c <= k + 1; c++)
        if ((dims == 2 ? c * c : c * c * c) == n)
            return c;
    return 0;
}

/* "KX[xKY[xKZ]]" -> k[]; missing sides repeat the first; digits only, each
 * side 1 .. LS_GEN_GRID_MAX_N (their product is checked by the caller). 0
 * or -1. */
static int parse_grid(const char *text, int dims, long long k[3])
{
    const char *s = text;
    int got = 0;
    while (got < 3) {
        char *end;
        if (*s < '0' || *s > '9')
            return -1;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s || errno || v < 1 || v > LS_GEN_GRID_MAX_N)
            return -1;
        k[got++] = v;
        if (*end == '\0')
            break;
        if (*end != 'x' && *end != 'X')
            return -1;
        s = end + 1;
    }
    if (*s && got == 3 && strchr(s, 'x'))
        return -1;
    if (got > dims)
        return -1;
    for (int i = got; i < 3; i++)
        k[i] = got == 1 ? k[0] : 1;
    if (dims == 2)
        k[2] = 1;
    return 0;
}

int gen_sparse_dispatch(int argc, char **argv, int *code)
{
    const char *cmd = "gen";
    int kind = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--rhs") || !strcmp(a, "-h") || !strcmp(a, "--help"))
            return 0;
        if (a[0] == '-' && a[1]) {
            if (!strcmp(a, "-n") || !strcmp(a, "-o") || !strcmp(a, "--output") ||
                !strcmp(a, "--format") || !strcmp(a, "--seed") || !strcmp(a, "--cond") ||
                !strcmp(a, "--grid") || !strcmp(a, "--peclet"))
                i++;
            continue;
        }
        for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); k++)
            if (!strcmp(a, kinds[k].name))
                kind = k;
        break;
    }
    if (kind < 0)
        return 0;
    const int dims = kinds[kind].dims;
    double peclet = kinds[kind].peclet, unused_cond = 0;
    long long n = 0, k[3] = {0, 0, 0}, unused_seed = 0;
    const char *out = NULL, *grid_text = NULL;
    int npy = 0;
    *code = LS_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, kinds[kind].name))
            continue;
        if (!strcmp(a, "--verbose")) {
            ls_cli_set_verbose();
            continue;
        }
        if (a[0] != '-' || !a[1]) {
            ls_cli_usage_error(cmd, "unexpected argument '%s'", a);
            return 1;
        }
        if (!(v = ls_cli_value(cmd, argc, argv, &i)))
            return 1;
        if (!strcmp(a, "-n")) {
            if (ls_cli_parse_int(cmd, "-n", v, 1, LS_GEN_GRID_MAX_N, &n) != 0)
                return 1;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            out = v;
        } else if (!strcmp(a, "--format")) {
            ls_io_format f;
            if (ls_cli_parse_format(cmd, v, &f) != 0)
                return 1;
            npy = f == LS_IO_NPY;
        } else if (!strcmp(a, "--grid")) {
            grid_text = v;
        } else if (!strcmp(a, "--peclet")) {
            if (ls_cli_parse_double(cmd, a, v, &peclet) != 0)
                return 1;
            if (peclet < 0) {
                ls_cli_usage_error(cmd, "--peclet must be >= 0");
                return 1;
            }
        } else if (!strcmp(a, "--seed")) { /* the grids are not random: checked, not used */
            if (ls_cli_parse_int(cmd, a, v, 0, LLONG_MAX, &unused_seed) != 0)
                return 1;
        } else if (!strcmp(a, "--cond")) { /* randsvd's alone: checked, not used */
            if (ls_cli_parse_double(cmd, a, v, &unused_cond) != 0)
                return 1;
        } else {
            ls_cli_usage_error(cmd, "unknown option '%s'", a);
            return 1;
        }
    }
    if (out && !ls_cli_is_stream(out) && ls_cli_has_suffix(out, ".npy"))
        npy = 1;
    if (npy) {
        if (dims == 3 || grid_text || peclet != kinds[kind].peclet) {
            ls_cli_usage_error(cmd, "%s with --grid, --peclet or 3-D is written as .mtx only",
                               kinds[kind].name);
            return 1;
        }
        return 0; /* dense .npy: the dense generator */
    }
    if (grid_text) {
        if (parse_grid(grid_text, dims, k) != 0) {
            ls_cli_usage_error(cmd, "--grid wants KX%s with every side 1 .. %lld (got '%s')",
                               dims == 2 ? "[xKY]" : "[xKYxKZ]", LS_GEN_GRID_MAX_N, grid_text);
            return 1;
        }
        /* the product in long double: exact enough to compare, never overflows */
        long double prod = (long double)k[0] * (long double)k[1] * (long double)k[2];
        if (prod > (long double)LS_GEN_GRID_MAX_N) {
            ls_cli_usage_error(cmd,
                               "--grid %s is %.3Lg unknowns; at most %lld (the largest order "
                               "linsolve reads back)",
                               grid_text, prod, LS_GEN_GRID_MAX_N);
            return 1;
        }
        if (n && n != k[0] * k[1] * k[2]) {
            ls_cli_usage_error(cmd, "-n %lld disagrees with --grid %s (%lld unknowns)", n,
                               grid_text, k[0] * k[1] * k[2]);
            return 1;
        }
    } else {
        if (n == 0) {
            ls_cli_usage_error(cmd, "missing -n N");
            return 1;
        }
        long long r = exact_root(n, dims);
        if (!r) {
            ls_cli_usage_error(cmd, "%s is a k%s grid: N must be a perfect %s (got %lld); "
                                    "--grid KX%s takes any sides",
                               kinds[kind].name, dims == 2 ? " x k" : " x k x k",
                               dims == 2 ? "square" : "cube", n, dims == 2 ? "xKY" : "xKYxKZ");
            return 1;
        }
        k[0] = k[1] = r;
        k[2] = dims == 3 ? r : 1;
    }
    char what[200], err[512] = "";
    snprintf(what, sizeof what, "linsolve gen %s --grid %lldx%lld%s%.0lld --peclet %g (n = %lld)",
             kinds[kind].name, k[0], k[1], dims == 3 ? "x" : "", dims == 3 ? k[2] : 0LL, peclet,
             k[0] * k[1] * k[2]);
    /* Through the tool's safe output: a full disk or a kill leaves the old
     * file whole, and standard output's write errors count too. */
    const int to_stdout = !out || ls_cli_is_stream(out);
    const char *name = to_stdout ? "<stdout>" : out;
    ls_outfile *of = NULL;
    char plain[512];
    int st = ls_outfile_open(to_stdout ? "-" : out, &of, err, sizeof err);
    if (st == 0) {
        st = ls_gen_grid_write_mm(ls_outfile_stream(of), name, dims, k[0], k[1], k[2], peclet,
                                  what, err, sizeof err);
        if (st == 0)
            st = ls_outfile_commit(of, err, sizeof err);
        else
            ls_outfile_abort(of);
    }
    if (st != 0) {
        fprintf(stderr, "linsolve gen: %s\n", ls_cli_message(err, plain, sizeof plain));
        *code = ls_cli_outcome_of(st, 0).exit_code;
        if (st == LS_EINVAL)
            *code = LS_EXIT_USAGE;
        return 1;
    }
    *code = LS_EXIT_OK;
    return 1;
}
