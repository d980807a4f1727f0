/*
 * `linsolve solve A [B] --format sparse|auto`: A read straight into CSR and
 * solved there, never densified. --method auto = UMFPACK's sparse LU when the
 * library has it, else GMRES(30) with ILU(0) on the equilibrated system;
 * direct | bicgstab | gmres pick one, --precond none | jacobi | ilu0 the
 * Krylov preconditioner. --format auto takes this path for a coordinate file
 * with nnz < n^2/10 or n > 4096 and says which path it took.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "commands.h"
#include "solve_sparse.h"

enum { FMT_NONE, FMT_DENSE, FMT_SPARSE, FMT_AUTO };
enum { SM_AUTO, SM_DIRECT, SM_BICGSTAB, SM_GMRES };

typedef struct sparse_args {
    const char *a_path, *b_path, *out_path;
    int method, json, quiet;
    ls_iter_options iter;
    int precond_seen;
} sparse_args;

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Banner and size line of a Matrix Market file: 1 coordinate, 0 not (or unreadable). */
static int peek_coordinate(const char *path, long long *n, long long *nnz)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int coord = 0;
    if (!f)
        return 0;
    if (fgets(line, sizeof line, f) && !strncasecmp(line, "%%MatrixMarket", 14)) {
        for (char *c = line; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        coord = strstr(line, " coordinate") != NULL;
    }
    long long m = 0;
    while (coord && fgets(line, sizeof line, f)) {
        if (line[0] == '%' || line[strspn(line, " \t\r\n")] == '\0')
            continue;
        if (sscanf(line, "%lld %lld %lld", &m, n, nnz) != 3 || m != *n)
            coord = 0;
        break;
    }
    fclose(f);
    return coord;
}

static int parse(int argc, char **argv, sparse_args *a)
{
    const char *cmd = "solve";
    memset(a, 0, sizeof *a);
    ls_iter_options_init(&a->iter);
    a->iter.method = LS_ITER_GMRES;
    a->iter.precond = LS_PRECOND_ILU0;
    a->iter.equilibrate = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val;
        long long iv;
        if (arg[0] != '-' || arg[1] == '\0') {
            if (!a->a_path) {
                a->a_path = arg;
            } else if (!a->b_path) {
                a->b_path = arg;
            } else {
                ls_cli_usage_error(cmd, "unexpected argument '%s' (A and B already given)", arg);
                return -1;
            }
        } else if (!strcmp(arg, "--json")) {
            a->json = 1;
        } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            a->quiet = 1;
        } else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            if (!(a->out_path = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
        } else if (!strcmp(arg, "--method")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
            static const char *names[] = {"auto", "direct", "bicgstab", "gmres"};
            a->method = -1;
            for (int k = 0; k < 4; k++)
                if (!strcmp(val, names[k]))
                    a->method = k;
            if (a->method < 0) {
                ls_cli_usage_error(cmd, "sparse input: unknown method '%s' (auto, direct, "
                                        "bicgstab, gmres)", val);
                return -1;
            }
        } else if (!strcmp(arg, "--precond")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
            if (!strcmp(val, "none"))
                a->iter.precond = LS_PRECOND_NONE;
            else if (!strcmp(val, "jacobi"))
                a->iter.precond = LS_PRECOND_JACOBI;
            else if (!strcmp(val, "ilu0"))
                a->iter.precond = LS_PRECOND_ILU0;
            else {
                ls_cli_usage_error(cmd, "unknown preconditioner '%s' (none, jacobi, ilu0)", val);
                return -1;
            }
            a->precond_seen = 1;
        } else if (!strcmp(arg, "--no-equilibrate")) {
            a->iter.equilibrate = 0;
        } else if (!strcmp(arg, "--rtol")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_double(cmd, arg, val, &a->iter.rtol) != 0)
                return -1;
        } else if (!strcmp(arg, "--max-iter") || !strcmp(arg, "--restart")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_int(cmd, arg, val, 1, INT_MAX, &iv) != 0)
                return -1;
            *(arg[2] == 'm' ? &a->iter.max_iter : &a->iter.restart) = (int)iv;
        } else if (!strcmp(arg, "--backend")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
            if (strcmp(val, "cpu") && strcmp(val, "auto")) {
                ls_cli_usage_error(cmd, "sparse input runs on the cpu backend only");
                return -1;
            }
        } else {
            ls_cli_usage_error(cmd, "option '%s' is not available on the sparse path "
                                    "(--format sparse)", arg);
            return -1;
        }
    }
    if (!a->a_path || !strcmp(a->a_path, "-")) {
        ls_cli_usage_error(cmd, "the sparse path needs A as a coordinate .mtx file");
        return -1;
    }
    return 0;
}

static int exit_of(int st)
{
    if (st == 0)
        return LS_EXIT_OK;
    if (st == LS_ENOMEM)
        return LS_EXIT_UNAVAILABLE;
    if (st == LS_NOT_CONVERGED || st == LS_BREAKDOWN || st == LS_INACCURATE)
        return LS_EXIT_INACCURATE;
    if (st > 0)
        return LS_EXIT_SINGULAR;
    return LS_EXIT_INPUT;
}

static int run_sparse(const sparse_args *a, const char *why)
{
    char err[512] = "", msg[512] = "", method[96] = "";
    ls_csr A;
    ls_matrix Bm;
    memset(&Bm, 0, sizeof Bm);
    double *B = NULL, *X = NULL, t0 = wall(), t_read, t_solve = 0, res = NAN, ferr = NAN;
    int nrhs = 1, st = ls_csr_read_mm(a->a_path, &A, err, sizeof err), code;
    t_read = wall() - t0;
    if (st) {
        fprintf(stderr, "linsolve: %s\n", err);
        return st == LS_ENOMEM ? LS_EXIT_UNAVAILABLE : LS_EXIT_INPUT;
    }
    int64_t n = A.n_rows;
    if (A.n_rows != A.n_cols || n < 1) {
        fprintf(stderr, "linsolve: %s: matrix is %lld x %lld; a square system is needed\n",
                a->a_path, (long long)A.n_rows, (long long)A.n_cols);
        ls_csr_free(&A);
        return LS_EXIT_INPUT;
    }
    if (a->b_path) {
        if ((st = ls_matrix_read(a->b_path, &Bm, err, sizeof err)) != 0 || Bm.rows != n) {
            if (!st)
                snprintf(err, sizeof err, "%s: right-hand side has %d rows; A is %lld x %lld",
                         a->b_path, Bm.rows, (long long)n, (long long)n);
            fprintf(stderr, "linsolve: %s\n", err);
            ls_matrix_free(&Bm);
            ls_csr_free(&A);
            return LS_EXIT_INPUT;
        }
        B = Bm.data;
        nrhs = Bm.cols;
    } else if ((B = calloc((size_t)n, sizeof(double)))) {
        for (int64_t i = 0; i < n; i++)
            for (int64_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; p++)
                B[i] += A.val[p];
    }
    X = calloc((size_t)n * (size_t)nrhs, sizeof(double));
    if (!B || !X) {
        fprintf(stderr, "linsolve: out of memory for B and X (n = %lld)\n", (long long)n);
        code = LS_EXIT_UNAVAILABLE;
        goto done;
    }
    int sm = a->method;
    if (sm == SM_AUTO)
        sm = ls_csr_direct_available() ? SM_DIRECT : SM_GMRES;
    t0 = wall();
    if (sm == SM_DIRECT) {
        ls_csr_direct_report rep;
        snprintf(method, sizeof method, "direct (UMFPACK sparse LU)%s",
                 a->method == SM_AUTO ? ", auto" : "");
        st = ls_csr_solve_direct(&A, nrhs, B, n, X, n, &rep, NULL, 0);
        snprintf(msg, sizeof msg, "%s", rep.message);
    } else {
        ls_iter_options o = a->iter;
        o.method = sm == SM_BICGSTAB ? LS_ITER_BICGSTAB : LS_ITER_GMRES;
        static const char *pc[] = {"none", "jacobi", "ilu0"};
        snprintf(method, sizeof method, "%s, precond %s%s%s", sm == SM_BICGSTAB ? "bicgstab" : "gmres",
                 pc[o.precond], o.equilibrate ? ", equilibrated" : "",
                 a->method == SM_AUTO ? " (auto: built without UMFPACK)" : "");
        ls_iter_report rep;
        st = 0;
        for (int j = 0; j < nrhs && st == 0; j++) {
            st = ls_csr_solve_iter(&A, B + (size_t)j * (size_t)n, X + (size_t)j * (size_t)n, &o,
                                   &rep, NULL, 0);
            snprintf(msg, sizeof msg, "%s (%d iterations)", rep.message, rep.iterations);
        }
    }
    t_solve = wall() - t0;
    res = ls_csr_scaled_residual(&A, nrhs, B, n, X, n);
    if (!a->b_path) {
        ferr = 0;
        for (int64_t i = 0; i < n; i++)
            ferr = fmax(ferr, fabs(X[i] - 1.0));
    }
    code = exit_of(st);
    if (code == LS_EXIT_OK && !(res <= 30))
        code = LS_EXIT_INACCURATE;
    if (code != LS_EXIT_OK)
        fprintf(stderr, "linsolve: %s\n", msg);
    if (a->out_path && st <= 0 && code != LS_EXIT_INPUT) {
        ls_matrix xm = {(int)n, nrhs, (int)n, X, 0, 0};
        if (ls_matrix_write(a->out_path, &xm, err, sizeof err) != 0) {
            fprintf(stderr, "linsolve: %s\n", err);
            code = LS_EXIT_INPUT;
        }
    }
    if (a->json) {
        printf("{\"format\": \"sparse\", \"format_reason\": \"%s\", \"n\": %lld, \"nnz\": %lld, "
               "\"nrhs\": %d, \"method\": \"%s\", \"status\": %d, \"exit_code\": %d, "
               "\"residual\": %.6g, \"forward_error\": %.6g, \"time_read\": %.6g, "
               "\"time_solve\": %.6g, \"ok\": %s}\n",
               why, (long long)n, (long long)A.nnz, nrhs, method, st, code,
               isfinite(res) ? res : -1.0, isfinite(ferr) ? ferr : -1.0, t_read, t_solve,
               code == LS_EXIT_OK ? "true" : "false");
    } else if (!a->quiet || code != LS_EXIT_OK) {
        printf("format:     sparse CSR (%s)\n", why);
        printf("system:     n = %lld, nnz = %lld, nrhs = %d\n", (long long)n, (long long)A.nnz,
               nrhs);
        printf("method:     %s, cpu\n", method);
        printf("outcome:    %s\n", msg);
        printf("time:       read %.3g s, solve %.3g s\n", t_read, t_solve);
        printf("residual:   %.3e  ||B-AX||inf/(n||A||inf||X||inf eps) (%s, limit 30)\n", res,
               code == LS_EXIT_OK ? "ok" : "FAILED");
        if (isfinite(ferr))
            printf("fwd error:  %.3e  ||x-1||inf (b = A*ones)\n", ferr);
    }
done:
    free(X);
    if (a->b_path)
        ls_matrix_free(&Bm);
    else
        free(B);
    ls_csr_free(&A);
    return code;
}

int solve_sparse_dispatch(int *argc, char **argv, int *code)
{
    int fmt = FMT_NONE;
    for (int i = 1; i + 1 < *argc; i++) {
        if (strcmp(argv[i], "--format"))
            continue;
        const char *v = argv[i + 1];
        int f = !strcmp(v, "dense") ? FMT_DENSE : !strcmp(v, "sparse") ? FMT_SPARSE
                : !strcmp(v, "auto")                                      ? FMT_AUTO
                                                                          : FMT_NONE;
        if (f == FMT_NONE)
            continue; /* mtx | npy: the output format, for the dense path */
        fmt = f;
        for (int k = i; k + 2 <= *argc; k++)
            argv[k] = argv[k + 2];
        *argc -= 2;
        i--;
    }
    if (fmt == FMT_NONE || fmt == FMT_DENSE)
        return 0;
    char why[160] = "--format sparse";
    if (fmt == FMT_AUTO) {
        /* A is the first positional argument (option values skipped). */
        static const char *with_value[] = {"--method", "--precond", "--rtol", "--atol",
                                           "--max-iter", "--restart", "--backend", "--device",
                                           "-o", "--output", "--precision", "--pivot",
                                           "--factor", "--refine", "--format"};
        const char *apath = NULL;
        int quiet = 0;
        for (int i = 1; i < *argc && !apath; i++) {
            if (argv[i][0] != '-' || !argv[i][1]) {
                apath = argv[i];
                continue;
            }
            quiet |= !strcmp(argv[i], "--json") || !strcmp(argv[i], "--quiet");
            for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
                if (!strcmp(argv[i], with_value[k]))
                    i++;
        }
        long long n = 0, nnz = 0;
        int coord = apath && strcmp(apath, "-") && peek_coordinate(apath, &n, &nnz);
        if (!coord || !(nnz < n * n / 10 || n > 4096)) {
            if (!quiet)
                fprintf(stderr, "linsolve: --format auto: dense path (%s)\n",
                        coord ? "nnz >= n^2/10 and n <= 4096" : "not a coordinate file");
            return 0;
        }
        snprintf(why, sizeof why, "auto: coordinate file, n = %lld, nnz = %lld %s", n, nnz,
                 n > 4096 ? "and n > 4096" : "< n^2/10");
    }
    sparse_args a;
    if (parse(*argc, argv, &a) != 0) {
        *code = LS_EXIT_USAGE;
        return 1;
    }
    *code = run_sparse(&a, why);
    return 1;
}
