/* `linsolve solve`: read A (and B), solve A X = B, check and report. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "commands.h"
#include "progress_ticker.h"
#include "solve_mixed.h"
#include "solve_report.h"
#include "solve_batched.h"
#include "solve_sparse.h"
#include "solve_distributed.h"
#include "solve_input.h"

/* Files above this size get a progress bar while reading (on a terminal). */
#define LS_CLI_BIG_FILE_BYTES (100.0 * 1024 * 1024)
/* Systems at least this large get a progress bar while solving. */
#define LS_CLI_BIG_N 8192

typedef struct solve_args {
    const char *a_path, *b_path, *out_path; /* "-": standard input / output */
    ls_options opt;
    int precision_auto;  /* --precision auto: follow A's dtype */
    ls_io_format format; /* --format: of X and of standard input; AUTO if not given */
    ls_backend_kind backend;
    int device;
    int json, quiet;
    int mixed, mixed_opt_seen; /* --precision mixed; --factor / --refine given */
    int mixed_pivot;           /* --pivot's value (-1: not given) */
    ls_mixed_opts mixed_opts;
    const solve_input *ain, *bin; /* A and B, opened once (solve_input.c) */
} solve_args;

/* 0 parsed; 1 help printed; -1 usage error (already reported). */
static int parse_solve_args(int argc, char **argv, solve_args *a)
{
    const char *cmd = "solve";
    int positional_only = 0;
    memset(a, 0, sizeof *a);
    ls_options_init(&a->opt);
    ls_mixed_opts_init(&a->mixed_opts);
    a->mixed_pivot = -1;
    a->precision_auto = 1;
    a->backend = LS_BACKEND_AUTO;
    a->device = -1; /* the backend's default device */
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        const char *val = NULL;
        long long iv = 0;
        if (positional_only || arg[0] != '-' || arg[1] == '\0') {
            if (ls_cli_take_path(cmd, arg, &a->a_path, &a->b_path))
                return -1;
        } else if (!strcmp(arg, "--")) {
            positional_only = 1;
        } else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            solve_help(stdout);
            return 1;
        } else if (!strcmp(arg, "--json")) {
            a->json = 1;
        } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            a->quiet = 1;
        } else if (!strcmp(arg, "--verbose")) {
            ls_cli_set_verbose();
        } else if (!strcmp(arg, "--format")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_format(cmd, val, &a->format) != 0)
                return -1;
        } else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            if (!(a->out_path = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
        } else if (!strcmp(arg, "--method")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
            if (ls_method_parse(val, &a->opt.method) != 0) {
                ls_cli_usage_error(cmd, "unknown method '%s'", val);
                return -1;
            }
        } else if (!strcmp(arg, "--backend")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
            if (ls_backend_parse(val, &a->backend) != 0) {
                ls_cli_usage_error(cmd, "unknown backend '%s' (auto, cpu, cuda, opencl)", val);
                return -1;
            }
        } else if (!strcmp(arg, "--device")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_int(cmd, "--device", val, 0, 4096, &iv) != 0)
                return -1;
            a->device = (int)iv;
        } else if (!strcmp(arg, "--precision")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
            a->precision_auto = !strcmp(val, "auto");
            a->mixed = !strcmp(val, "mixed");
            if (!a->precision_auto && !a->mixed &&
                ls_precision_parse(val, &a->opt.precision) != 0) {
                ls_cli_usage_error(cmd, "unknown precision '%s' (auto, double, single, mixed)",
                                   val);
                return -1;
            }
        } else if (!strcmp(arg, "--pivot")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
            ls_pivot pv = LS_PIVOT_PARTIAL;
            if (ls_pivot_parse(val, &pv) != 0) {
                ls_cli_usage_error(cmd, "unknown pivoting '%s' (partial, none; with --precision "
                                        "mixed also rbt, auto)", val);
                return -1;
            }
            a->opt.pivot = pv == LS_PIVOT_RBT || pv == LS_PIVOT_AUTO ? LS_PIVOT_PARTIAL : pv;
            a->mixed_opts.pivot = pv;
            a->mixed_pivot = pv;
        } else if (!strcmp(arg, "--no-refine")) {
            a->opt.refine = 0;
        } else if (!strcmp(arg, "--rtol") || !strcmp(arg, "--atol")) {
            double *dst = arg[2] == 'r' ? &a->opt.rtol : &a->opt.atol;
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_double(cmd, arg, val, dst) != 0)
                return -1;
            if (*dst < 0) {
                ls_cli_usage_error(cmd, "%s must be >= 0", arg);
                return -1;
            }
        } else if (!strcmp(arg, "--max-iter")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_int(cmd, "--max-iter", val, 1, INT_MAX, &iv) != 0)
                return -1;
            a->opt.max_iter = (int)iv;
        } else if (!strcmp(arg, "--factor") || !strcmp(arg, "--refine")) {
            if (solve_mixed_option(cmd, argc, argv, &i, &a->mixed_opts) < 0)
                return -1;
            a->mixed_opt_seen = 1;
        } else {
            ls_cli_usage_error(cmd, "unknown option '%s'", arg);
            return -1;
        }
    }
    if (a->mixed_opt_seen && !a->mixed) {
        ls_cli_usage_error(cmd, "--factor and --refine need --precision mixed");
        return -1;
    }
    if ((a->mixed_pivot == LS_PIVOT_RBT || a->mixed_pivot == LS_PIVOT_AUTO) && !a->mixed) {
        ls_cli_usage_error(cmd, "--pivot %s needs --precision mixed",
                           ls_pivot_name((ls_pivot)a->mixed_pivot));
        return -1;
    }
    if (a->mixed && a->mixed_pivot < 0)
        a->mixed_opts.pivot = LS_PIVOT_AUTO;
    if (!a->a_path) {
        ls_cli_usage_error(cmd, "missing the matrix file A");
        return -1;
    }
    if (ls_cli_is_stream(a->a_path) && ls_cli_is_stream(a->b_path)) {
        ls_cli_usage_error(cmd, "A and B cannot both be standard input ('-')");
        return -1;
    }
    if (a->out_path &&
        ls_cli_refuse_binary_tty(cmd, ls_cli_output_format(a->out_path, a->format), a->out_path))
        return -1;
    return 0;
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What messages call an input: "-" is standard input. */
static const char *input_name(const char *path)
{
    return ls_cli_is_stream(path) ? "<stdin>" : path;
}

/* Read one matrix, from a file or (copied once) from a stream, with a
 * progress bar for big inputs on a terminal (the reader calls it only for
 * 100 MB or more). On failure fills res (exit 2 unless out of memory) and
 * returns nonzero. */
static int read_matrix(const solve_args *a, const solve_input *in, ls_matrix *m, ls_io_info *info,
                       solve_result *res)
{
    char err[512] = "";
    const int stream = ls_cli_is_stream(in->arg);
    const char *name = in->name;
    struct stat sb;
    ls_cli_progress bar = {0, -1};
    bar.armed = ls_cli_stderr_is_tty() &&
                (stream || (stat(solve_input_path(in), &sb) == 0 &&
                            (double)sb.st_size > LS_CLI_BIG_FILE_BYTES));
    double t0 = wall_seconds();
    /* a copied stream is read as the stream it was, under its own name */
    FILE *f = in->fd >= 0 ? fopen(solve_input_path(in), "rb") : NULL;
    /* A: a coordinate file with an empty row or column is singular, said
     * before its dense matrix is allocated */
    int (*reader)(FILE *, const char *, ls_io_format, ls_matrix *, ls_io_info *, ls_progress_fn,
                  void *, char *, size_t) = in == a->ain ? ls_io_read_for_solve : ls_io_read_from;
    int st = in->fd >= 0 && !f ? LS_EIO
                               : reader(f, f ? name : solve_input_path(in),
                                        stream ? a->format : LS_IO_AUTO, m, info,
                                        ls_cli_progress_draw, &bar, err, sizeof err);
    if (f)
        fclose(f);
    res->t_read += wall_seconds() - t0;
    ls_cli_progress_end(&bar);
    if (st != 0) {
        ls_cli_outcome oc = ls_cli_outcome_of(st, st < 0);
        solve_input_rename(in, err, sizeof err);
        /* The reader's text names file and line; add the file only if it does not. */
        if (strstr(err, name))
            solve_result_fail(res, oc, st, "%s", err[0] ? err : ls_strerror(st));
        else
            solve_result_fail(res, oc, st, "%s: %s", name, err[0] ? err : ls_strerror(st));
        return -1;
    }
    return 0;
}

/* --precision auto: the working precision is A's, as numpy.linalg.solve
 * keeps float32 in float32; everything else is solved in double. */
static void choose_precision(const ls_io_info *info, solve_result *res)
{
    static const struct {
        char kind;
        const char *word;
    } kinds[] = {{'f', "float"}, {'i', "int"}, {'u', "uint"}};
    const char *word = NULL;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
        if (info->dtype[0] == kinds[k].kind)
            word = kinds[k].word;
    res->precision = !strcmp(info->dtype, "f4") ? LS_SINGLE : LS_DOUBLE;
    if (info->format == LS_IO_NPY && word)
        snprintf(res->precision_note, sizeof res->precision_note, "auto: A is %s%d .npy", word,
                 8 * atoi(info->dtype + 1));
    else
        snprintf(res->precision_note, sizeof res->precision_note, "auto: A is Matrix Market");
}

/* Refuse NaN/Inf up front: the reader should already have, but a solve on
 * them would only produce a meaningless residual. */
static int check_finite(const char *path, const ls_matrix *m, solve_result *res)
{
    for (int j = 0; j < m->cols; ++j) {
        for (int i = 0; i < m->rows; ++i) {
            if (!isfinite(m->data[(size_t)j * (size_t)m->ld + (size_t)i])) {
                ls_cli_outcome oc = {LS_EXIT_INPUT, "invalid_input"};
                solve_result_fail(res, oc, LS_ENONFINITE,
                                  "%s: entry (%d,%d) is not finite", path, i + 1, j + 1);
                return -1;
            }
        }
    }
    return 0;
}

/* Load A and B (or b = A*ones) into res-owned buffers; nonzero on failure. */
static int load_system(const solve_args *a, ls_matrix *A, ls_matrix *B, solve_result *res)
{
    ls_io_info info;
    if (read_matrix(a, a->ain, A, &info, res) != 0)
        return -1;
    if (a->precision_auto)
        choose_precision(&info, res);
    if (A->rows != A->cols || A->rows < 1) {
        ls_cli_outcome oc = {LS_EXIT_INPUT, "invalid_input"};
        solve_result_fail(res, oc, LS_ESIZE, "%s: matrix is %d x %d; a square system is needed",
                          input_name(a->a_path), A->rows, A->cols);
        return -1;
    }
    if (check_finite(input_name(a->a_path), A, res) != 0)
        return -1;
    int n = A->rows;
    res->n = n;
    if (a->b_path) {
        if (read_matrix(a, a->bin, B, &info, res) != 0)
            return -1;
        if (B->rows != n || B->cols < 1) {
            ls_cli_outcome oc = {LS_EXIT_INPUT, "invalid_input"};
            solve_result_fail(res, oc, LS_ESIZE,
                              "%s: right-hand side is %d x %d; A is %d x %d, so B needs %d rows",
                              input_name(a->b_path), B->rows, B->cols, n, n, n);
            return -1;
        }
        if (check_finite(input_name(a->b_path), B, res) != 0)
            return -1;
        res->nrhs = B->cols;
        return 0;
    }
    /* b = A * ones: the exact solution is known, so the forward error is too. */
    B->data = malloc((size_t)n * sizeof(double));
    if (!B->data) {
        ls_cli_outcome oc = {LS_EXIT_UNAVAILABLE, "out_of_memory"};
        solve_result_fail(res, oc, LS_ENOMEM, "out of memory for the right-hand side (n = %d)", n);
        return -1;
    }
    B->rows = B->ld = n;
    B->cols = 1;
    for (int i = 0; i < n; ++i)
        B->data[i] = 0.0;
    for (int j = 0; j < n; ++j) {
        const double *col = A->data + (size_t)j * (size_t)A->ld;
        for (int i = 0; i < n; ++i)
            B->data[i] += col[i];
    }
    res->nrhs = 1;
    res->rhs_is_A_ones = 1;
    return 0;
}

/* Write X in the working precision's dtype, to a file or standard output;
 * a failure here turns a solved system into an I/O failure (exit 2). */
static int write_solution(const solve_args *a, double *X, int n, int nrhs, solve_result *res)
{
    char err[512] = "", comment[64];
    const int stream = ls_cli_is_stream(a->out_path);
    const char *name = stream ? "<stdout>" : a->out_path;
    const int single = res->precision == LS_SINGLE;
    ls_matrix xm;
    memset(&xm, 0, sizeof xm);
    xm.rows = xm.ld = n;
    xm.cols = nrhs;
    xm.data = X;
    snprintf(comment, sizeof comment, "written by linsolve %d.%d.%d%s", LS_VERSION_MAJOR,
             LS_VERSION_MINOR, LS_VERSION_PATCH, single ? ", single precision" : "");
    ls_io_write_opts o = {ls_cli_output_format(a->out_path, a->format), single, 0, comment};
    int st = ls_io_write_to(stream ? stdout : NULL, name, &xm, &o, err, sizeof err);
    if (st != 0) {
        ls_cli_outcome oc = ls_cli_outcome_of(st, 1);
        if (st == LS_EIO)
            oc.status = "io_error"; /* exit 2 as for input that cannot be read */
        if (strstr(err, name))
            solve_result_fail(res, oc, st, "%s", err[0] ? err : ls_strerror(st));
        else
            solve_result_fail(res, oc, st, "%s: %s", name, err[0] ? err : ls_strerror(st));
        return -1;
    }
    return 0;
}

/* Run the solve on an open context and judge the answer. */
static void run_solve(const solve_args *a, ls_context *ctx, const ls_matrix *A, const ls_matrix *B,
                      solve_result *res)
{
    int n = res->n, nrhs = res->nrhs;
    size_t count = 0;
    double *X = NULL;
    if (ls_cli_mul_size((size_t)n, (size_t)nrhs, &count) != 0 ||
        count > SIZE_MAX / sizeof(double) || !(X = malloc(count * sizeof(double)))) {
        ls_cli_outcome oc = {LS_EXIT_UNAVAILABLE, "out_of_memory"};
        solve_result_fail(res, oc, LS_ENOMEM, "out of memory for X (%d x %d)", n, nrhs);
        return;
    }
    for (int j = 0; j < nrhs; ++j)
        memcpy(X + (size_t)j * (size_t)n, B->data + (size_t)j * (size_t)B->ld,
               (size_t)n * sizeof(double));

    ls_options opt = a->opt;
    opt.precision = res->precision; /* chosen from A's dtype under auto */
    ls_cli_ticker ticker = {0};
    if (ls_cli_stderr_is_tty() && n >= LS_CLI_BIG_N) {
        char what[64];
        snprintf(what, sizeof what, "solving n=%d (%s)", n, ls_backend_name(ls_context_backend(ctx)));
        ls_cli_ticker_start(&ticker, what);
        opt.progress = ls_cli_ticker_update;
        opt.progress_arg = &ticker;
    }
    int st;
    if (a->mixed) {
        /* policy mixed with --factor, --refine, --pivot (ls_problem.mixed);
         * the refinement history comes back in ls_problem.mixed_result */
        st = solve_mixed_run(ctx, &a->mixed_opts, A, B, X, res);
    } else {
        /* the planner picks the path (dense here: A read from a file is one
         * system in host memory, FP64) and says why; the host dense path
         * leaves A as it was, so the check below still has it */
        ls_problem p;
        ls_problem_init(&p);
        p.shape = LS_SHAPE_DENSE;
        p.n = n;
        p.nrhs = nrhs;
        p.A = A->data;
        p.lda = A->ld;
        p.B = X;
        p.ldb = n;
        p.policy = res->precision == LS_SINGLE ? LS_POLICY_SINGLE : LS_POLICY_DOUBLE;
        st = ls_solve_problem(ctx, &opt, &p, &res->rep);
    }
    ls_cli_ticker_stop(&ticker);
    res->have_rep = 1;
    solve_result_judge(res, st, ctx, A, B, X);
    if (a->out_path && res->x_computed)
        write_solution(a, X, n, nrhs, res);
    free(X);
}

/* The value of the last -o / --output before "--", or NULL. */
static const char *output_path(int argc, char **argv)
{
    const char *out = NULL;
    for (int i = 1; i + 1 < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output"))
            out = argv[++i];
    return out;
}

/* --json anywhere on the line: a failure before the options were parsed
 * still gets its object on stdout. */
static void fail_early(int argc, char **argv, ls_cli_outcome oc, int st, const char *msg)
{
    solve_result res;
    solve_result_init(&res);
    solve_result_fail(&res, oc, st, "%s", msg);
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--json")) {
            solve_result_print_json(stdout, &res);
            break;
        }
    }
}

/* The dense solve of A X = B (A and B opened in ain, bin). */
static int solve_dense(solve_args *args)
{
    solve_result res;
    solve_result_init(&res);
    res.method = args->opt.method;
    res.precision = args->opt.precision;
    res.a_path = args->a_path;
    res.b_path = args->b_path;

    ls_matrix A, B;
    memset(&A, 0, sizeof A);
    memset(&B, 0, sizeof B);
    ls_context *ctx = NULL;
    if (load_system(args, &A, &B, &res) == 0) {
        int st = ls_context_create(&ctx, args->backend, args->device);
        if (ctx)
            solve_result_set_context(&res, ctx);
        if (st != 0) {
            ls_cli_outcome oc = ls_cli_outcome_of(st, 0);
            char dev[32] = "default device";
            if (args->device >= 0)
                snprintf(dev, sizeof dev, "device %d", args->device);
            solve_result_fail(&res, oc, st, "backend %s (%s) unavailable: %s",
                              ls_backend_name(args->backend), dev,
                              ctx && ls_context_error(ctx)[0] ? ls_context_error(ctx)
                                                              : ls_strerror(st));
        } else {
            run_solve(args, ctx, &A, &B, &res);
        }
    }
    /* With X on stdout, stdout carries X alone: the report moves to stderr. */
    FILE *report = ls_cli_is_stream(args->out_path) ? stderr : stdout;
    solve_result_emit(report, &res, args->json, args->quiet);
    int code = res.exit_code;
    if (res.have_rep)
        ls_report_clear(&res.rep);
    if (ctx)
        ls_context_destroy(ctx);
    ls_matrix_free(&A);
    if (args->b_path)
        ls_matrix_free(&B);
    else
        free(B.data);
    return code;
}

int ls_cmd_solve(int argc, char **argv)
{
    solve_args args;
    int dist_code; /* --distributed: solve_distributed.c (MPI) */
    if (solve_distributed_dispatch(&argc, argv, &dist_code))
        return dist_code;
    solve_storage storage; /* --storage (and the old --format dense|sparse|auto) */
    if (solve_storage_take(&argc, argv, &storage) != 0) {
        fail_early(argc, argv, (ls_cli_outcome){LS_EXIT_USAGE, "usage"}, LS_EINVAL,
                   "usage error (see stderr)");
        return LS_EXIT_USAGE;
    }
    /* -o is checked before anything is read or solved: an unwritable
     * target must not cost the solve first. */
    const char *out_path = output_path(argc, argv);
    if (out_path && !ls_cli_is_stream(out_path)) {
        char oerr[512] = "", plain[512];
        int ost = ls_outfile_check(out_path, oerr, sizeof oerr);
        if (ost != 0) {
            const char *text = ls_cli_message(oerr[0] ? oerr : ls_strerror(ost), plain, sizeof plain);
            fprintf(stderr, "linsolve: %s%s%s\n", strstr(text, out_path) ? "" : out_path,
                    strstr(text, out_path) ? "" : ": ", text);
            fail_early(argc, argv, (ls_cli_outcome){LS_EXIT_INPUT, "io_error"}, ost, text);
            return LS_EXIT_INPUT;
        }
    }
    /* A and B are opened (a pipe or FIFO copied) once, before either
     * parser runs: what A holds decides which one does. */
    const char *a_arg = NULL, *b_arg = NULL;
    solve_positionals(argc, argv, &a_arg, &b_arg);
    for (int i = 1; i < argc && a_arg; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            a_arg = b_arg = NULL; /* help only: nothing is read */
    solve_input ain, bin;
    char err[512] = "", why[256] = "";
    int st = 0;
    memset(&ain, 0, sizeof ain);
    memset(&bin, 0, sizeof bin);
    ain.fd = bin.fd = -1;
    if (a_arg && b_arg && ls_cli_is_stream(a_arg) && ls_cli_is_stream(b_arg))
        a_arg = b_arg = NULL; /* the parser says why */
    if (a_arg)
        st = solve_input_open(&ain, a_arg, err, sizeof err);
    if (!st && a_arg && b_arg)
        st = solve_input_open(&bin, b_arg, err, sizeof err);
    int code;
    if (st) {
        ls_cli_outcome oc = ls_cli_outcome_of(st, st != LS_ENOMEM);
        char plain[sizeof err];
        fprintf(stderr, "linsolve: %s\n", ls_cli_message(err, plain, sizeof plain));
        fail_early(argc, argv, oc, st, plain);
        code = oc.exit_code;
    } else if (a_arg && ain.npy_ndim != 3 &&
               solve_storage_sparse(storage, &ain, argc, argv, why, sizeof why)) {
        code = solve_sparse_run(argc, argv, &ain, b_arg ? &bin : NULL, why);
    } else {
        int pr = parse_solve_args(argc, argv, &args);
        if (pr != 0) {
            if (pr < 0)
                fail_early(argc, argv, (ls_cli_outcome){LS_EXIT_USAGE, "usage"}, LS_EINVAL,
                           "usage error (see stderr)");
            code = pr == 1 ? LS_EXIT_OK : LS_EXIT_USAGE;
        } else if (ain.npy_ndim == 3) { /* A of shape (batch, n, n): solve_batched.c */
            ls_batched_cli bc = {&ain, b_arg ? &bin : NULL, args.out_path, args.backend,
                                 args.device, args.precision_auto, args.opt.precision,
                                 args.format, args.json, args.quiet};
            code = ls_cmd_solve_batched(&bc);
        } else {
            args.ain = &ain;
            args.bin = &bin;
            code = solve_dense(&args);
        }
    }
    solve_input_close(&ain);
    solve_input_close(&bin);
    /* The report (or --json) is output too: a failed write of it, to a full
     * disk or a closed pipe, turns success into the I/O status. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "linsolve: <stdout>: write error: %s\n", strerror(errno));
        if (code == LS_EXIT_OK)
            code = LS_EXIT_INPUT;
    }
    return code;
}
