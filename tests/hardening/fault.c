/* Injected host-allocation failures (LS_FAULT_ALLOC=N, src/core/util.c):
 * the walk runs itself as a child once per N = 1, 2, ... with the N-th
 * allocation inside liblinsolve failing, until a child's whole script runs
 * without reaching the N-th allocation. The script: a CPU context, ls_solve
 * (auto, lu, ge, gj1, bicgstab, float32), ls_dgesv, and reads of a dense
 * Matrix Market file, a .npy, a coordinate file into CSR, a 2-D .npy stack
 * and a stream (read into memory first); the dense generators, a 2-D
 * Poisson CSR and ls_csr_solve_iter (BiCGStab plain, Jacobi and
 * equilibrated, GMRES with ILU(0)). In each child the call that met
 * the failure must return a clean status (LS_ENOMEM) with a message that
 * names the file or says what could not be allocated, and the same call
 * retried on the same context must then succeed with a correct answer; a
 * crash, a hang (ctest's timeout), a wrong answer or, in the ASan build, a
 * leak (LeakSanitizer at the child's exit) fails N.
 *
 *   test_fault_walk [max N]          # the walk: one row per N, exit = failures
 *   test_fault_walk --child DIR      # one child (LS_FAULT_ALLOC set)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/tool_api.h"
#include "core/tool_stack.h"
#include "core/util.h"
#include "linsolve.h"

#define NOT_REACHED 10 /* child exit: the N-th allocation never came */
#define N_DENSE 40

static const char *dir;
static int child_failures;
static const char *op_name = "";
static int reported; /* the child printed the failing call */

static void bad(const char *what, int st, const char *msg)
{
    fprintf(stderr, "  LS_FAULT_ALLOC=%s, %s: %s (status %s, message \"%s\")\n",
            getenv("LS_FAULT_ALLOC"), op_name, what, ls_status_name(st), msg ? msg : "");
    child_failures++;
}

/* Did the injected failure happen during the call just made? */
static long long fired_before;
static void op_begin(const char *name)
{
    op_name = name;
    fired_before = ls_fault_alloc_state();
}
static int op_fired(void)
{
    return fired_before >= 0 && ls_fault_alloc_state() < 0;
}

/* A call that failed: only where the injection hit, with a message. */
static int check_failure(int st, const char *msg, const char *must_name)
{
    if (st == 0)
        return 0;
    if (!op_fired()) {
        bad("failed without an injected fault", st, msg);
        return 1;
    }
    reported = 1;
    printf("        %s: %s \"%s\"\n", op_name, ls_status_name(st), msg ? msg : "");
    if (st != LS_ENOMEM)
        bad("an allocation failure gave another status", st, msg);
    if (!msg || !msg[0])
        bad("failure without a message", st, msg);
    else if (must_name && !strstr(msg, must_name))
        bad("message does not name the file", st, msg);
    return 1;
}

static void make_system(int n, int nrhs, double *A, double *B)
{
    ls_fill_random(n, n, A, n, 42);
    for (int i = 0; i < n; i++)
        A[i + (size_t)i * n] += 2.0 * n; /* diagonally dominant: bicgstab converges */
    ls_fill_random(n, nrhs, B, n, 7);
}

static int solve_once(ls_context *ctx, ls_method m, ls_precision p, const double *A,
                      const double *B, double *X, int nrhs)
{
    ls_options opt;
    ls_options_init(&opt);
    opt.method = m;
    opt.precision = p;
    ls_report rep;
    memcpy(X, B, sizeof *X * N_DENSE * (size_t)nrhs);
    int st = ls_solve(ctx, &opt, N_DENSE, nrhs, A, N_DENSE, X, N_DENSE, &rep);
    char msg[sizeof rep.message];
    snprintf(msg, sizeof msg, "%s", rep.message);
    ls_report_clear(&rep);
    if (check_failure(st, msg, NULL))
        return st;
    double tol = p == LS_SINGLE ? 1e3 : 30.0; /* float32 scaled by double eps */
    double r = ls_scaled_residual(N_DENSE, nrhs, A, N_DENSE, X, N_DENSE, B, N_DENSE,
                                  ls_eps(p));
    if (st == 0 && !(r < tol))
        bad("wrong answer", st, msg);
    return st;
}

static void solves(ls_context *ctx)
{
    const int nrhs = 2;
    double A[N_DENSE * N_DENSE], B[N_DENSE * 2], X[N_DENSE * 2], LU[N_DENSE * N_DENSE];
    int ipiv[N_DENSE];
    make_system(N_DENSE, nrhs, A, B);
    static const struct {
        const char *name;
        ls_method m;
        ls_precision p;
    } runs[] = {{"ls_solve auto", LS_METHOD_AUTO, LS_DOUBLE},
                {"ls_solve lu", LS_METHOD_LU, LS_DOUBLE},
                {"ls_solve ge", LS_METHOD_GE, LS_DOUBLE},
                {"ls_solve gj1", LS_METHOD_GJ1, LS_DOUBLE},
                {"ls_solve bicgstab", LS_METHOD_BICGSTAB, LS_DOUBLE},
                {"ls_solve lu float", LS_METHOD_LU, LS_SINGLE}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        op_begin(runs[k].name);
        if (solve_once(ctx, runs[k].m, runs[k].p, A, B, X, nrhs) != 0) {
            op_name = "retry";
            if (solve_once(ctx, runs[k].m, runs[k].p, A, B, X, nrhs) != 0)
                bad("the context does not work after the failure", -1, ls_context_error(ctx));
        }
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        op_begin(attempt ? "ls_dgesv retry" : "ls_dgesv");
        memcpy(LU, A, sizeof A);
        memcpy(X, B, sizeof B);
        int info = 0;
        int st = ls_dgesv(N_DENSE, nrhs, LU, N_DENSE, ipiv, X, N_DENSE, &info, ctx);
        if (check_failure(st, ls_context_error(ctx), NULL))
            continue;
        if (info != 0 || !(ls_scaled_residual(N_DENSE, nrhs, A, N_DENSE, X, N_DENSE, B, N_DENSE,
                                              ls_eps(LS_DOUBLE)) < 30.0))
            bad("wrong answer", st, "");
        break;
    }
}

/* The generators and the sparse Krylov solvers (no context; the
 * generators return a status only, ls_csr_solve_iter a message too). */
static int sparse_once(int which)
{
    static const struct {
        const char *name;
        ls_iter_method m;
        ls_precond p;
        int equilibrate;
    } runs[] = {{"csr bicgstab", LS_ITER_BICGSTAB, LS_PRECOND_NONE, 0},
                {"csr bicgstab jacobi", LS_ITER_BICGSTAB, LS_PRECOND_JACOBI, 0},
                {"csr gmres ilu0", LS_ITER_GMRES, LS_PRECOND_ILU0, 0},
                {"csr bicgstab equilibrated", LS_ITER_BICGSTAB, LS_PRECOND_NONE, 1}};
    op_begin("ls_gen_poisson");
    ls_csr A;
    int st = ls_gen_poisson(2, 6, &A);
    if (check_failure(st, ls_strerror(st), NULL))
        return st;
    op_begin(runs[which].name);
    double b[36], x[36];
    for (int i = 0; i < 36; i++) {
        b[i] = 1.0 + i % 5;
        x[i] = 0.0;
    }
    ls_iter_options opt;
    ls_iter_options_init(&opt);
    opt.method = runs[which].m;
    opt.precond = runs[which].p;
    opt.equilibrate = runs[which].equilibrate;
    ls_iter_report rep;
    char err[512] = "";
    st = ls_csr_solve_iter(&A, b, x, &opt, &rep, err, sizeof err);
    if (!check_failure(st, err, NULL) && !(rep.converged && rep.rel_residual <= rep.rtol))
        bad("not converged", st, rep.message);
    ls_csr_free(&A);
    return st;
}

static void generators_and_sparse(void)
{
    for (int which = 0; which < 4; which++)
        if (sparse_once(which) != 0 && sparse_once(which) != 0)
            bad("a sparse solve fails again after the injected failure", -1, "");
    double A[16 * 16];
    for (int k = 0; k < LS_GEN_COUNT_; k++) {
        if (ls_gen_is_sparse((ls_gen_kind)k))
            continue;
        for (int attempt = 0; attempt < 2; attempt++) {
            op_begin(ls_gen_name((ls_gen_kind)k));
            int st = ls_generate((ls_gen_kind)k, 16, A, 16, 3, 1e4);
            if (!check_failure(st, ls_strerror(st), NULL))
                break;
            if (attempt)
                bad("a generator fails again after the injected failure", st, "");
        }
    }
}

static void path_of(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

/* One read; 0 or its status after checking a failure. */
static int read_one(int which)
{
    static const char *const files[] = {"dense.mtx", "dense.npy", "coord.mtx"};
    char path[512], err[1024];
    int st;
    if (which < 3) {
        path_of(path, sizeof path, files[which]);
        op_begin(files[which]);
        ls_matrix m;
        st = ls_matrix_read(path, &m, err, sizeof err);
        if (!check_failure(st, err, path) && (m.rows != 5 || m.cols != 5 || m.data[6] != 7.0))
            bad("wrong matrix", st, err);
        ls_matrix_free(&m);
    } else if (which == 3) {
        path_of(path, sizeof path, "coord.mtx");
        op_begin("ls_csr_read_mm");
        ls_csr A;
        st = ls_csr_read_mm(path, &A, err, sizeof err);
        if (!check_failure(st, err, path) && (A.n_rows != 5 || A.nnz != 7))
            bad("wrong CSR", st, err);
        ls_csr_free(&A);
    } else if (which == 4) {
        path_of(path, sizeof path, "stack.npy");
        op_begin("ls_io_read_stack");
        ls_io_stack s;
        st = ls_io_read_stack(path, &s, err, sizeof err);
        if (!check_failure(st, err, path) && (s.batch != 3 || s.rows != 2 || s.data[5] != 5.0))
            bad("wrong stack", st, err);
        ls_io_stack_free(&s);
    } else {
        /* a stream that is not a regular file is read into memory first */
        static const char text[] = "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n";
        FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
        op_begin("stream");
        ls_matrix m;
        st = f ? ls_io_read_from(f, "<pipe>", LS_IO_AUTO, &m, NULL, NULL, NULL, err, sizeof err)
               : LS_EIO;
        if (f)
            fclose(f);
        if (!check_failure(st, err, "<pipe>") && (m.rows != 2 || m.data[3] != 4.0))
            bad("wrong stream matrix", st, err);
        ls_matrix_free(&m);
    }
    return st;
}

/* Each read, and once more after a failure: the second must succeed. */
static void reads(void)
{
    for (int which = 0; which < 6; which++)
        if (read_one(which) != 0 && read_one(which) != 0)
            bad("a read fails again after the injected failure", -1, "");
}

static int child(void)
{
    ls_context *ctx = NULL;
    op_begin("ls_context_create");
    int st = ls_context_create(&ctx, LS_BACKEND_CPU, 0);
    if (st) {
        /* no context: ls_context_create's status is the message (LS_ENOMEM) */
        check_failure(st, ctx ? ls_context_error(ctx) : ls_strerror(st), NULL);
        ls_context_destroy(ctx);
        ctx = NULL;
        op_name = "ls_context_create retry";
        if (ls_context_create(&ctx, LS_BACKEND_CPU, 0) != 0) {
            bad("cannot create a context after the failure", -1, ls_context_error(ctx));
            ls_context_destroy(ctx);
            return 1;
        }
    }
    solves(ctx);
    ls_context_destroy(ctx);
    reads();
    generators_and_sparse();
    if (child_failures)
        return 1;
    if (ls_fault_alloc_state() < 0 && !reported)
        printf("        absorbed: every call succeeded (the library did without it)\n");
    return ls_fault_alloc_state() < 0 ? 0 : NOT_REACHED;
}

static int write_file(const char *name, const void *data, size_t len)
{
    char path[512];
    path_of(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

static int make_inputs(void)
{
    double v[25];
    for (int k = 0; k < 25; k++)
        v[k] = k + 1.0;
    ls_matrix m = {.rows = 5, .cols = 5, .ld = 5, .data = v};
    char path[512], err[512];
    path_of(path, sizeof path, "dense.mtx");
    if (ls_mm_write(path, &m, err, sizeof err))
        return -1;
    path_of(path, sizeof path, "dense.npy");
    if (ls_npy_write(path, &m, err, sizeof err))
        return -1;
    static const char coord[] = "%%MatrixMarket matrix coordinate real general\n5 5 7\n"
                                "1 1 1\n2 2 7\n3 3 1\n4 4 1\n5 5 1\n1 5 2\n5 1 3\n";
    double sv[6] = {0, 1, 2, 3, 4, 5};
    ls_io_stack s = {.batch = 3, .rows = 2, .cols = 1, .ndim = 2, .layout = LS_ROW_MAJOR,
                     .data = sv};
    path_of(path, sizeof path, "stack.npy");
    if (write_file("coord.mtx", coord, sizeof coord - 1) ||
        ls_io_write_stack(path, &s, 0, err, sizeof err))
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--child")) {
        dir = argv[2];
        return child();
    }
    long max_n = argc > 1 ? atol(argv[1]) : 2000;
    char tmpl[] = "/tmp/ls-fault-XXXXXX";
    dir = mkdtemp(tmpl);
    if (!dir || make_inputs()) {
        fprintf(stderr, "cannot write the inputs: %s\n", strerror(errno));
        return 1;
    }
    printf("%6s  %s\n", "N", "result");
    int failures = 0;
    long points = 0, n;
    for (n = 1; n <= max_n; n++) {
        char val[32];
        snprintf(val, sizeof val, "%ld", n);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            setenv("LS_FAULT_ALLOC", val, 1);
            execl("/proc/self/exe", argv[0], "--child", dir, (char *)NULL);
            _exit(127);
        }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) != pid) {
            failures++;
            break;
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == NOT_REACHED)
            break;
        points++;
        const char *res = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "failed";
        if (res[0] == 'f')
            failures++;
        if (WIFSIGNALED(status))
            printf("%6ld  failed (signal %d)\n", n, WTERMSIG(status));
        else
            printf("%6ld  %s%s\n", n, res,
                   WEXITSTATUS(status) > 1 ? " (exit status, e.g. a leak report)" : "");
    }
    if (n > max_n) {
        printf("the walk did not end within %ld injection points\n", max_n);
        failures++;
    }
    printf("injection points: %ld, failures: %d\n", points, failures);
    static const char *const made[] = {"dense.mtx", "dense.npy", "coord.mtx", "stack.npy"};
    for (size_t k = 0; k < sizeof made / sizeof made[0]; k++) {
        char path[512];
        path_of(path, sizeof path, made[k]);
        remove(path);
    }
    rmdir(dir);
    return failures;
}
