/* `linsolve solve A.npy B.npy` where A is a stack (batch, n, n): every
 * system solved by ls_solve_problem's batched path (one call of
 * ls_?gesv_batched), which fills every system's info. C-order stacks go in as
 * they are (LS_ROW_MAJOR); on CUDA the stacks are copied to the device
 * once and the solve is timed on its own. The report: systems/s, GB/s (A
 * and B read and written once), against the device's copy bandwidth on
 * CUDA, the number of singular systems (--json: their indices) and the
 * worst scaled residual. X keeps B's shape; a singular system's X is NaN. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "core/perf/perf.h"
#include "core/tool_stack.h"
#include "solve_batched.h"

typedef struct outcome {
    int exit_code, status;
    const char *word;
    char message[640];
    int batch, n, nrhs, singular;
    ls_precision prec;
    double seconds, gbps, copy_gbps, residual;
    int *info;
    char path[32], why[512]; /* the planner's path and why */
} outcome;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(outcome *o, int st, int reading, const char *msg)
{
    ls_cli_outcome oc = ls_cli_outcome_of(st, reading);
    o->exit_code = oc.exit_code, o->word = oc.status, o->status = st;
    snprintf(o->message, sizeof o->message, "%s", msg);
    return -1;
}

/* B in the layout A is in (the batched API takes one layout for both). */
static void to_layout(ls_io_stack *B, ls_layout want, double *tmp)
{
    size_t R = (size_t)B->rows, C = (size_t)B->cols;
    if (B->layout == want || C == 1) {
        B->layout = want;
        return;
    }
    for (size_t b = 0; b < (size_t)B->batch; b++) {
        double *m = B->data + b * R * C;
        for (size_t i = 0; i < R; i++)
            for (size_t j = 0; j < C; j++)
                tmp[want == LS_ROW_MAJOR ? i * C + j : i + j * R] =
                    m[B->layout == LS_ROW_MAJOR ? i * C + j : i + j * R];
        memcpy(m, tmp, sizeof(double) * R * C);
    }
    B->layout = want;
}

/* Worst ||b - A x||inf / (n ||A||inf ||x||inf eps) over the solved systems. */
static double worst_residual(const ls_io_stack *A, const ls_io_stack *B, const double *X,
                             const int *info, double eps)
{
    size_t n = (size_t)A->rows, k = (size_t)B->cols;
    int rm = A->layout == LS_ROW_MAJOR;
    double worst = 0;
    for (size_t b = 0; b < (size_t)A->batch; b++) {
        if (info[b] != 0)
            continue;
        const double *a = A->data + b * n * n, *bb = B->data + b * n * k, *x = X + b * n * k;
        double an = 0, xn = 0, rn = 0;
        for (size_t i = 0; i < n; i++) {
            double row = 0;
            for (size_t j = 0; j < n; j++)
                row += fabs(a[rm ? i * n + j : i + j * n]);
            an = row > an ? row : an;
        }
        for (size_t c = 0; c < k; c++)
            for (size_t i = 0; i < n; i++) {
                double r = bb[rm ? i * k + c : i + c * n];
                for (size_t j = 0; j < n; j++)
                    r -= a[rm ? i * n + j : i + j * n] * x[rm ? j * k + c : j + c * n];
                double xv = fabs(x[rm ? i * k + c : i + c * n]);
                xn = xv > xn ? xv : xn;
                rn = fabs(r) > rn || isnan(r) ? fabs(r) : rn;
            }
        double r = rn == 0 ? 0 : rn / (n * an * xn * eps);
        worst = r > worst || isnan(r) ? r : worst;
    }
    return worst;
}

/* The device-to-device copy bandwidth of a CUDA context (0 elsewhere). */
static double copy_gbps(ls_context *ctx)
{
    ls_perf_copy_in in = {(size_t)256 << 20, 5};
    ls_perf_timing t;
    char err[LS_ERRLEN];
    const ls_perf_iface *perf = ls_perf_table(ctx);
    if (ls_context_backend(ctx) != LS_BACKEND_CUDA || !perf || !perf->copy ||
        perf->copy(ls_perf_backend_ctx(ctx), &in, &t, err, sizeof err) != 0)
        return 0;
    return t.gbps;
}

/* The solve itself, through the planner (ls_solve_problem, its batched
 * path): X (in W, the working precision) replaces B, every system's info
 * comes back in info. On CUDA the stacks are copied to the device first
 * and the planner is handed device memory with a device info array, so it
 * only queues the work: the time is the device's alone, from one
 * synchronization to the next. */
static int solve(ls_context *ctx, const ls_io_stack *A, void *WA, void *WB, int *info,
                 outcome *o)
{
    int n = A->rows, k = o->nrhs, batch = A->batch, rm = A->layout == LS_ROW_MAJOR;
    int single = o->prec == LS_SINGLE;
    size_t es = single ? sizeof(float) : sizeof(double);
    size_t na = (size_t)batch * n * n, nb = (size_t)batch * n * k;
    ls_problem p;
    ls_problem_init(&p);
    p.shape = LS_SHAPE_STACK;
    p.dtype = single ? LS_FLOAT32 : LS_FLOAT64;
    p.policy = single ? LS_POLICY_SINGLE : LS_POLICY_DOUBLE;
    p.layout = A->layout;
    p.n = n, p.nrhs = k, p.batch = batch;
    p.lda = n, p.strideA = (long long)n * n;
    p.ldb = rm ? k : n, p.strideB = (long long)n * k;
    ls_options opt;
    ls_options_init(&opt);
    opt.check = 0; /* the report checks every system against A as read */
    ls_report rep;
    int st = 0;
    if (ls_context_backend(ctx) == LS_BACKEND_CUDA) {
        void *dA = NULL, *dB = NULL, *dI = NULL;
        st = ls_device_malloc(ctx, &dA, na * es);
        st = st ? st : ls_device_malloc(ctx, &dB, nb * es);
        st = st ? st : ls_device_malloc(ctx, &dI, sizeof(int) * (size_t)batch);
        st = st ? st : ls_device_copy(ctx, dA, WA, na * es);
        st = st ? st : ls_device_copy(ctx, dB, WB, nb * es);
        st = st ? st : ls_device_synchronize(ctx);
        p.memory = LS_MEMORY_DEVICE;
        p.A = dA, p.B = dB, p.info = dI;
        double t0 = now();
        if (!st)
            st = ls_solve_problem(ctx, &opt, &p, &rep);
        st = st ? st : ls_device_synchronize(ctx);
        o->seconds = now() - t0;
        st = st ? st : ls_device_copy(ctx, WB, dB, nb * es);
        st = st ? st : ls_device_copy(ctx, info, dI, sizeof(int) * (size_t)batch);
        ls_device_free(ctx, dA), ls_device_free(ctx, dB), ls_device_free(ctx, dI);
    } else {
        p.A = WA, p.B = WB, p.info = info;
        st = ls_solve_problem(ctx, &opt, &p, &rep);
        o->seconds = rep.t_total;
    }
    if (st > 0 && st < LS_NOT_CONVERGED)
        st = 0; /* a singular system: its info says so, the others are solved */
    snprintf(o->path, sizeof o->path, "%s", rep.path);
    snprintf(o->why, sizeof o->why, "%s", rep.why);
    if (st)
        snprintf(o->message, sizeof o->message, "%s", rep.message);
    ls_report_clear(&rep);
    return st;
}

/* X in B's shape: a .npy stack, or for a 2-D B (batch, n) a batch x n
 * Matrix Market array when that format was asked for. */
static int write_x(const ls_batched_cli *a, const ls_io_stack *B, const double *x, int single,
                   char *err, size_t errlen)
{
    ls_io_stack xs = *B;
    xs.data = (double *)x;
    if (ls_cli_output_format(a->out_path, a->format) == LS_IO_NPY)
        return ls_io_write_stack(a->out_path, &xs, single, err, errlen);
    size_t rows = (size_t)B->batch, cols = (size_t)B->rows; /* B->cols is 1 here */
    ls_matrix m = {(int)rows, (int)cols, (int)rows, malloc(sizeof(double) * rows * cols), 0, 0};
    if (!m.data) {
        snprintf(err, errlen, "%s: out of memory for X as a matrix", a->out_path);
        return LS_ENOMEM;
    }
    for (size_t b = 0; b < rows; b++) /* system b is row b */
        for (size_t i = 0; i < cols; i++)
            m.data[i * rows + b] = x[b * cols + i];
    ls_io_write_opts o = {LS_IO_MM, single, 0, "X of a stack: one row per system"};
    int st = ls_io_write_to(NULL, a->out_path, &m, &o, err, errlen);
    free(m.data);
    return st;
}

/* Working-precision copies (single) or the doubles themselves. */
static void *working(const double *v, size_t count, int single)
{
    if (!single)
        return (void *)v;
    float *f = malloc(sizeof(float) * (count ? count : 1));
    for (size_t i = 0; f && i < count; i++)
        f[i] = (float)v[i];
    return f;
}

static void run(const ls_batched_cli *a, ls_io_stack *A, ls_io_stack *B, outcome *o)
{
    char err[512] = "", msg[640];
    int st = ls_io_read_stack(solve_input_path(a->ain), A, err, sizeof err);
    if (st) {
        solve_input_rename(a->ain, err, sizeof err);
        fail(o, st, 1, err);
        return;
    }
    if (a->out_path && ls_cli_is_stream(a->out_path)) {
        fail(o, LS_EUNSUPPORTED, 1, "a stack's X is written to a .npy file, not to standard output");
        return;
    }
    /* X keeps B's shape: Matrix Market holds a 2-D one (batch x n), not a 3-D one */
    if (a->out_path && a->bin && a->bin->npy_ndim == 3 &&
        ls_cli_output_format(a->out_path, a->format) == LS_IO_MM) {
        snprintf(msg, sizeof msg, "%s: X of a stack of shape (batch, n, k) has three dimensions "
                                  "and Matrix Market holds two: write it to a .npy file "
                                  "(-o X.npy, or --format npy)", a->out_path);
        fail(o, LS_EUNSUPPORTED, 1, msg);
        return;
    }
    if (A->rows != A->cols) {
        snprintf(msg, sizeof msg, "%s: a stack of %d x %d matrices; square systems are needed",
                 a->ain->name, A->rows, A->cols);
        fail(o, LS_ESIZE, 1, msg);
        return;
    }
    int n = A->rows, batch = A->batch;
    if (!a->bin) {
        snprintf(msg, sizeof msg, "%s is a stack: give B as a .npy of shape (%d, %d) or (%d, %d, k)",
                 a->ain->name, batch, n, batch, n);
        fail(o, LS_EINVAL, 1, msg);
        return;
    }
    st = ls_io_read_stack(solve_input_path(a->bin), B, err, sizeof err);
    if (st) {
        solve_input_rename(a->bin, err, sizeof err);
        fail(o, st, 1, err);
        return;
    }
    if (B->batch != batch || B->rows != n) {
        snprintf(msg, sizeof msg, "%s: shape (%d, %d, %d) does not match A's (%d, %d, %d)",
                 a->bin->name, B->batch, B->rows, B->cols, batch, n, n);
        fail(o, LS_ESIZE, 1, msg);
        return;
    }
    o->batch = batch, o->n = n, o->nrhs = B->cols;
    o->prec = a->precision_auto ? (!strcmp(A->dtype, "f4") ? LS_SINGLE : LS_DOUBLE)
                                : a->precision;
    size_t na = (size_t)batch * n * n, nb = (size_t)batch * n * B->cols;
    double *tmp = malloc(sizeof(double) * (size_t)n * B->cols);
    o->info = malloc(sizeof(int) * (size_t)batch);
    int single = o->prec == LS_SINGLE;
    void *WA = NULL, *WB = NULL;
    if (tmp && o->info) {
        to_layout(B, A->layout, tmp);
        WA = working(A->data, na, single);
        WB = working(B->data, nb, single);
    }
    free(tmp);
    if (!o->info || !WA || !WB) {
        fail(o, LS_ENOMEM, 0, "out of memory for the working copies of the stacks");
        goto done;
    }
    /* A is overwritten with the factors: keep the original for the check */
    if (!single && !(WA = malloc(sizeof(double) * na))) {
        fail(o, LS_ENOMEM, 0, "out of memory for a copy of A");
        goto done;
    }
    if (!single)
        memcpy(WA, A->data, sizeof(double) * na);
    double *X = single ? malloc(sizeof(double) * nb) : NULL;
    if (!single && !(WB = malloc(sizeof(double) * nb))) {
        fail(o, LS_ENOMEM, 0, "out of memory for X");
        goto done;
    }
    if (!single)
        memcpy(WB, B->data, sizeof(double) * nb);
    ls_context *ctx = NULL;
    st = ls_context_create(&ctx, a->backend, a->device);
    if (st) {
        snprintf(msg, sizeof msg, "backend %s unavailable: %s", ls_backend_name(a->backend),
                 ctx ? ls_context_error(ctx) : ls_strerror(st));
        fail(o, st, 0, msg);
    } else if ((st = solve(ctx, A, WA, WB, o->info, o)) != 0) {
        snprintf(msg, sizeof msg, "batched solve failed: %s",
                 o->message[0] ? o->message : ls_context_error(ctx));
        fail(o, st, 0, msg);
    } else {
        o->copy_gbps = copy_gbps(ctx);
        double *x = single ? X : (double *)WB;
        for (size_t i = 0; single && X && i < nb; i++)
            X[i] = ((float *)WB)[i];
        if (!x) {
            fail(o, LS_ENOMEM, 0, "out of memory for X");
        } else {
            for (int b = 0; b < batch; b++)
                o->singular += o->info[b] > 0;
            o->residual = worst_residual(A, B, x, o->info, ls_eps(o->prec));
            o->gbps = 2.0 * (double)(na + nb) * (single ? 4 : 8) / o->seconds / 1e9;
            for (int b = 0; b < batch; b++) /* no solution for a singular system */
                if (o->info[b] > 0)
                    for (size_t i = 0; i < (size_t)n * B->cols; i++)
                        x[(size_t)b * n * B->cols + i] = NAN;
            o->exit_code = o->singular ? LS_EXIT_SINGULAR
                                       : !(o->residual <= 30) ? LS_EXIT_INACCURATE : LS_EXIT_OK;
            o->word = o->singular ? "singular" : o->exit_code ? "inaccurate" : "ok";
            if (o->singular)
                snprintf(o->message, sizeof o->message,
                         "%d of %d systems are singular (exactly zero pivot)", o->singular, batch);
            if (a->out_path && write_x(a, B, x, single, err, sizeof err) != 0) {
                fail(o, LS_EIO, 1, err);
                o->word = "io_error";
            }
        }
    }
    ls_context_destroy(ctx);
    free(X);
done:
    if (WA != A->data)
        free(WA);
    if (WB != B->data)
        free(WB);
}

static void print_json(FILE *f, const ls_batched_cli *a, const outcome *o)
{
    fprintf(f, "{\"status\": ");
    ls_cli_json_string(f, o->word);
    fprintf(f, ", \"exit_code\": %d, \"batched\": true, \"a\": ", o->exit_code);
    ls_cli_json_string(f, a->ain->arg);
    fprintf(f, ", \"batch\": %d, \"n\": %d, \"nrhs\": %d, \"precision\": \"%s\", \"seconds\": ",
            o->batch, o->n, o->nrhs, ls_precision_name(o->prec));
    ls_cli_json_number(f, o->seconds);
    fprintf(f, ", \"systems_per_s\": ");
    ls_cli_json_number(f, o->seconds > 0 ? o->batch / o->seconds : NAN);
    fprintf(f, ", \"gbps\": ");
    ls_cli_json_number(f, o->gbps);
    fprintf(f, ", \"device_copy_gbps\": ");
    ls_cli_json_number(f, o->copy_gbps > 0 ? o->copy_gbps : NAN);
    fprintf(f, ", \"max_residual\": ");
    ls_cli_json_number(f, o->residual);
    fprintf(f, ", \"singular\": %d, \"singular_indices\": [", o->singular);
    for (int b = 0, first = 1; o->info && b < o->batch; b++)
        if (o->info[b] > 0) {
            fprintf(f, "%s%d", first ? "" : ", ", b);
            first = 0;
        }
    fprintf(f, "], \"path\": ");
    ls_cli_json_string(f, o->path);
    fprintf(f, ", \"why\": ");
    ls_cli_json_string(f, o->why);
    fprintf(f, ", \"message\": ");
    ls_cli_json_string(f, o->message);
    fprintf(f, "}\n");
}

static void print_human(FILE *f, const outcome *o)
{
    fprintf(f, "batched solve: %d systems of n = %d, nrhs = %d, %s\n", o->batch, o->n, o->nrhs,
            ls_precision_name(o->prec));
    fprintf(f, "  path      %s (%s)\n", o->path, o->why);
    fprintf(f, "  time      %.6f s (%.3g systems/s)\n", o->seconds,
            o->seconds > 0 ? o->batch / o->seconds : 0.0);
    if (o->copy_gbps > 0)
        fprintf(f, "  traffic   %.1f GB/s (A and B read and written once; %.0f%% of the "
                   "device's %.0f GB/s copy bandwidth)\n",
                o->gbps, 100.0 * o->gbps / o->copy_gbps, o->copy_gbps);
    else
        fprintf(f, "  traffic   %.1f GB/s (A and B read and written once)\n", o->gbps);
    fprintf(f, "  singular  %d system(s)\n", o->singular);
    fprintf(f, "  residual  %.3g (worst scaled residual of the solved systems; <= 30 passes)\n",
            o->residual);
}

int ls_cmd_solve_batched(const ls_batched_cli *a)
{
    outcome o;
    ls_io_stack A, B;
    memset(&o, 0, sizeof o);
    memset(&A, 0, sizeof A);
    memset(&B, 0, sizeof B);
    o.word = "ok";
    run(a, &A, &B, &o);
    FILE *report = a->out_path && ls_cli_is_stream(a->out_path) ? stderr : stdout;
    if (o.exit_code != LS_EXIT_OK && o.message[0]) {
        char plain[sizeof o.message];
        fprintf(stderr, "linsolve: %s\n", ls_cli_message(o.message, plain, sizeof plain));
    }
    if (a->json)
        print_json(report, a, &o);
    else if (!a->quiet && o.batch > 0)
        print_human(report, &o);
    free(o.info);
    ls_io_stack_free(&A);
    ls_io_stack_free(&B);
    return o.exit_code;
}
