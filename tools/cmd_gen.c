/* `linsolve gen`: write a test matrix or a random right-hand side. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "gen_sparse.h"
#include "solve_distributed.h"

/* Largest order gen accepts: 65536^2 doubles is already 32 GiB. */
#define LS_GEN_MAX_N 65536

typedef struct gen_args {
    int have_kind;
    ls_gen_kind kind;
    long long n;
    long long rhs; /* > 0: write a random n x rhs block instead */
    unsigned long long seed;
    double cond;
    const char *out_path; /* NULL or "-": standard output */
    ls_io_format format;  /* --format, LS_IO_AUTO when not given */
} gen_args;

static void gen_help(FILE *out)
{
    fprintf(out,
            "Usage: linsolve gen KIND -n N [-o FILE] [--format F] [--seed S] [--cond C]\n"
            "       linsolve gen -n N --rhs K [-o FILE] [--format F] [--seed S]\n"
            "       mpirun -np R linsolve gen KIND -n N --distributed [--seed S] [--grid PxQ]\n"
            "              [--nb NB] [-o X]   (generate in place on R ranks and solve:\n"
            "              'linsolve solve --distributed --help'; docs/distributed.md)\n"
            "\n"
            "Write an N x N test matrix of the given KIND, deterministic in the seed,\n"
            "as Matrix Market (array; 'coordinate real general' with only the nonzeros\n"
            "for the sparse kinds) or as NumPy .npy (float64) when FILE ends in .npy.\n"
            "Without -o, or with -o -, it goes to standard output (Matrix Market unless\n"
            "--format npy), ready for 'linsolve solve -'.\n"
            "\n"
            "Kinds:\n");
    for (int k = 0; k < LS_GEN_COUNT_; ++k)
        fprintf(out, "  %-10s %s\n", ls_gen_name((ls_gen_kind)k),
                ls_gen_description((ls_gen_kind)k));
    fprintf(out,
            "  poisson3d  7-point 3-D Poisson, n = k^3 (sparse)\n"
            "  convdiff3d 7-point 3-D convection-diffusion, n = k^3 (sparse)\n"
            "\n"
            "The grid kinds are streamed to .mtx in O(1) memory, up to n = 2147483647 (the\n"
            "largest order linsolve reads back; a larger -n or --grid is a usage error):\n"
            "  --grid KXxKY[xKZ] any sides instead of -n (n = KX*KY*KZ)\n"
            "  --peclet P        convection strength of convdiff[3d] (default 20)\n");
    fprintf(out,
            "\n"
            "Options:\n"
            "  -n N            order of the matrix, 1 <= N <= %d (sparse kinds: N = k^2)\n"
            "  -o, --output F  output file (.mtx or .npy); '-' is standard output\n"
            "  --format F      mtx | npy, whatever the file's extension\n"
            "  --verbose       add the source location to error messages (LS_DEBUG=1)\n"
            "  --seed S        seed of the generator (default 1)\n"
            "  --cond C        2-norm condition number for randsvd (default 1e6)\n"
            "  --rhs K         write a random N x K right-hand side (uniform [-1,1]),\n"
            "                  1 <= K <= %d, instead of a matrix; KIND is then ignored\n"
            "  -h, --help      this text\n"
            "\n"
            "The output is checked before anything is generated, written beside the\n"
            "target and renamed into place once complete: a failure leaves the old file.\n"
            "\n"
            "Exit status: 0 written; 1 usage error (a malformed number, a size over its\n"
            "cap); 2 output cannot be written (the message names it); 5 not enough\n"
            "memory (refused before allocating when the machine is too small).\n",
            LS_GEN_MAX_N, LS_GEN_MAX_N);
}

/* 0 parsed; 1 help printed; -1 usage error (already reported). */
static int parse_gen_args(int argc, char **argv, gen_args *g)
{
    const char *cmd = "gen";
    memset(g, 0, sizeof *g);
    g->seed = 1;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i], *val = NULL;
        long long iv = 0;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            gen_help(stdout);
            return 1;
        } else if (!strcmp(arg, "-n")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_int(cmd, "-n", val, 1, LS_GEN_MAX_N, &g->n) != 0)
                return -1;
        } else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            if (!(g->out_path = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
        } else if (!strcmp(arg, "--verbose")) {
            ls_cli_set_verbose();
        } else if (!strcmp(arg, "--format")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_format(cmd, val, &g->format) != 0)
                return -1;
        } else if (!strcmp(arg, "--seed")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_int(cmd, "--seed", val, 0, LLONG_MAX, &iv) != 0)
                return -1;
            g->seed = (unsigned long long)iv;
        } else if (!strcmp(arg, "--cond")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_double(cmd, "--cond", val, &g->cond) != 0)
                return -1;
            if (g->cond < 1.0) {
                ls_cli_usage_error(cmd, "--cond must be >= 1 (a condition number)");
                return -1;
            }
        } else if (!strcmp(arg, "--rhs")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_int(cmd, "--rhs", val, 1, LS_GEN_MAX_N, &g->rhs) != 0)
                return -1;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            ls_cli_usage_error(cmd, "unknown option '%s'", arg);
            return -1;
        } else if (!g->have_kind) {
            if (ls_gen_parse(arg, &g->kind) != 0) {
                ls_cli_usage_error(cmd, "unknown matrix kind '%s' (see 'linsolve gen --help')",
                                   arg);
                return -1;
            }
            g->have_kind = 1;
        } else {
            ls_cli_usage_error(cmd, "unexpected argument '%s'", arg);
            return -1;
        }
    }
    if (!g->have_kind && g->rhs == 0) {
        ls_cli_usage_error(cmd, "missing the matrix KIND (or --rhs K)");
        return -1;
    }
    if (g->n == 0) {
        ls_cli_usage_error(cmd, "missing -n N");
        return -1;
    }
    if (ls_cli_refuse_binary_tty(cmd, ls_cli_output_format(g->out_path, g->format), g->out_path))
        return -1;
    if (g->rhs == 0 && ls_gen_is_sparse(g->kind)) {
        long long k = (long long)llround(sqrt((double)g->n));
        if (k * k != g->n) {
            ls_cli_usage_error(cmd, "%s is a k x k grid: N must be a perfect square (got %lld)",
                               ls_gen_name(g->kind), g->n);
            return -1;
        }
    }
    return 0;
}

/* Refuse sizes the machine cannot hold before malloc overcommits and the
 * first write gets the process killed. */
static int allocate_block(long long rows, long long cols, double **out)
{
    size_t count = 0, bytes = 0;
    if (ls_cli_mul_size((size_t)rows, (size_t)cols, &count) != 0 ||
        ls_cli_mul_size(count, sizeof(double), &bytes) != 0) {
        fprintf(stderr, "linsolve gen: %lld x %lld doubles overflow the address space\n", rows,
                cols);
        return LS_EXIT_UNAVAILABLE;
    }
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (double)bytes > 0.9 * (double)pages * (double)page) {
        fprintf(stderr,
                "linsolve gen: %lld x %lld doubles need %.1f GiB; this machine has %.1f GiB\n",
                rows, cols, (double)bytes / 1073741824.0,
                (double)pages * (double)page / 1073741824.0);
        return LS_EXIT_UNAVAILABLE;
    }
#endif
    *out = malloc(bytes ? bytes : 1);
    if (!*out) {
        fprintf(stderr, "linsolve gen: out of memory for %lld x %lld doubles (%.1f GiB)\n", rows,
                cols, (double)bytes / 1073741824.0);
        return LS_EXIT_UNAVAILABLE;
    }
    return LS_EXIT_OK;
}

/* Through the tool's safe output (ls_outfile): a full disk or a kill leaves
 * the old file whole; standard output's write errors count too. */
static int write_output(const gen_args *g, const ls_matrix *m, int sparse, const char *what)
{
    char err[512] = "", plain[512];
    const int to_stdout = !g->out_path || ls_cli_is_stream(g->out_path);
    const char *name = to_stdout ? "<stdout>" : g->out_path;
    ls_io_write_opts o = {ls_cli_output_format(g->out_path, g->format), 0, sparse, what};
    ls_outfile *of = NULL;
    int st = ls_outfile_open(to_stdout ? "-" : g->out_path, &of, err, sizeof err);
    if (st == 0) {
        st = ls_io_write_to(ls_outfile_stream(of), name, m, &o, err, sizeof err);
        if (st == 0)
            st = ls_outfile_commit(of, err, sizeof err);
        else
            ls_outfile_abort(of);
    }
    if (st != 0) {
        ls_cli_outcome oc = ls_cli_outcome_of(st, 1);
        const char *text = ls_cli_message(err[0] ? err : ls_strerror(st), plain, sizeof plain);
        if (strstr(text, name))
            fprintf(stderr, "linsolve gen: %s\n", text);
        else
            fprintf(stderr, "linsolve gen: %s: %s\n", name, text);
        return oc.exit_code;
    }
    return LS_EXIT_OK;
}

int ls_cmd_gen(int argc, char **argv)
{
    int code;
    if (solve_distributed_dispatch(&argc, argv, &code))
        return code; /* generated in place on MPI ranks, then solved */
    if (gen_sparse_dispatch(argc, argv, &code))
        return code; /* grid kinds to .mtx: streamed, any size */
    gen_args g;
    int pr = parse_gen_args(argc, argv, &g);
    if (pr != 0)
        return pr == 1 ? LS_EXIT_OK : LS_EXIT_USAGE;
    if (g.out_path && !ls_cli_is_stream(g.out_path)) { /* before generating anything */
        char err[512] = "", plain[512];
        if (ls_outfile_check(g.out_path, err, sizeof err) != 0) {
            fprintf(stderr, "linsolve gen: %s\n", ls_cli_message(err, plain, sizeof plain));
            return LS_EXIT_INPUT;
        }
    }
    long long cols = g.rhs > 0 ? g.rhs : g.n;
    double *data = NULL;
    code = allocate_block(g.n, cols, &data);
    if (code != LS_EXIT_OK)
        return code;
    ls_matrix m;
    memset(&m, 0, sizeof m);
    m.rows = m.ld = (int)g.n;
    m.cols = (int)cols;
    m.data = data;
    char what[160];
    if (g.rhs > 0) {
        ls_fill_random(m.rows, m.cols, data, m.ld, (uint64_t)g.seed);
        snprintf(what, sizeof what, "linsolve gen --rhs %lld -n %lld --seed %llu", g.rhs, g.n,
                 g.seed);
        code = write_output(&g, &m, 0, what);
    } else {
        int st = ls_generate(g.kind, m.rows, data, m.ld, (uint64_t)g.seed, g.cond);
        if (st != 0) {
            /* the arguments were checked above, so this is the generator's limit */
            fprintf(stderr, "linsolve gen: %s -n %lld: %s\n", ls_gen_name(g.kind), g.n,
                    ls_strerror(st));
            free(data);
            return st == LS_ENOMEM ? LS_EXIT_UNAVAILABLE : LS_EXIT_USAGE;
        }
        int len = snprintf(what, sizeof what, "linsolve gen %s -n %lld --seed %llu",
                           ls_gen_name(g.kind), g.n, g.seed);
        if (g.cond > 0 && len > 0 && (size_t)len < sizeof what)
            snprintf(what + len, sizeof what - (size_t)len, " --cond %g", g.cond);
        code = write_output(&g, &m, ls_gen_is_sparse(g.kind), what);
    }
    free(data);
    return code;
}
