/* Injected device failures on the CUDA backend (LS_FAULT_DEVICE=N: the N-th
 * device allocation fails as out of memory; LS_FAULT_CUDA=N: the N-th
 * checked CUDA runtime call fails; src/cuda/common/cuda_fault.c).
 *
 * Each child runs the script twice on fresh contexts: a warm-up (kernels
 * loaded, workspaces sized), then the walked pass. The parent first runs a
 * probe child with both hooks armed but never firing, which reports how
 * many allocations and calls the warm-up and the whole child make
 * (ls_plugin_fault_state, exported by the plugin for tests); then one child
 * per N from the warm-up's count + 1 until a child never reaches N. The
 * script: a CUDA context; ls_solve with lu (FP64, FP32), ge-coalesced,
 * lu-seed (FP32) and bicgstab; ls_dgesv on host arrays; the device API
 * (ls_device_malloc, ls_device_copy, ls_dgesv_gpu, ls_sgetrf_gpu +
 * ls_sgetrs_gpu); ls_dgesv_batched; ls_dsgesv; a last lu solve. n = 64 to 300.
 *
 * Checked in each child: the call that met the failure returns a negative
 * status (LS_EDEVMEM for an allocation, LS_EDEVMEM or LS_EDEVICE for a
 * call) and a message that says it was injected; no call succeeds with a
 * wrong answer; the same call retried on the same context succeeds with a
 * correct answer; after the walked pass's context is destroyed, the
 * device's free memory (cudaMemGetInfo, after a synchronise and a trim of
 * the default memory pool) is what it was after the warm-up's. A crash
 * or a hang (ctest's timeout) fails N too.
 *
 *   test_fault_cuda PLUGIN [--kind device|cuda|both] [--points P] [--max N]
 *       the walk; PLUGIN is liblinsolve_cuda.so's path. --points P walks
 *       every k-th N so that about P points are run per kind (0: all).
 *   test_fault_cuda --child PLUGIN      one child (LS_FAULT_* set)
 * Exit: the number of failures; 77 without a CUDA device.
 */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linsolve.h"

#define NOT_REACHED 10 /* child exit: the N-th never came */
#define SKIP 77
#define KINDS 2

static const char *const kind_env[KINDS] = {"LS_FAULT_DEVICE", "LS_FAULT_CUDA"};
static const char *const kind_name[KINDS] = {"device", "cuda"};
static long long (*fault_state)(int which);
static int walked = -1; /* the kind this child walks; -1: the probe */
static int failures;
static int in_warmup;
static const char *op_name = "";

static void bad(const char *what, int st, const char *msg)
{
    fprintf(stderr, "  %s=%s, %s%s: %s (status %s, message \"%s\")\n",
            walked >= 0 ? kind_env[walked] : "probe",
            walked >= 0 ? getenv(kind_env[walked]) : "-", in_warmup ? "warm-up, " : "", op_name,
            what, ls_status_name(st), msg ? msg : "");
    failures++;
}

/* ---- did the injected failure happen during the call just made? ---- */
static long long fired_before;
static long long state(void) { return walked >= 0 ? fault_state(walked) : 0; }
static void op_begin(const char *name)
{
    op_name = name;
    fired_before = state();
}
static int op_fired(void) { return fired_before >= 0 && state() < 0; }

/* A call that returned st: 0, or a failure that must be the injected one. */
static int check_failure(int st, const char *msg)
{
    if (st == 0)
        return 0;
    if (!op_fired()) {
        bad("failed without an injected fault", st, msg);
        return 1;
    }
    printf("        %s%s: %s \"%s\"\n", in_warmup ? "warm-up, " : "", op_name,
           ls_status_name(st), msg);
    if (walked == 0 ? st != LS_EDEVMEM : (st != LS_EDEVMEM && st != LS_EDEVICE))
        bad("an injected failure gave another status", st, msg);
    if (!msg[0])
        bad("failure without a message", st, msg);
    else if (!strstr(msg, "injected"))
        bad("the message does not carry the failure's cause", st, msg);
    return 1;
}

/* ---- the script: each op runs once, and again after a failure ---- */
typedef struct sys {
    int n, nrhs;
    double *A, *B, *X;
} sys;

static void sys_make(sys *s, int n, int nrhs, unsigned seed)
{
    s->n = n;
    s->nrhs = nrhs;
    s->A = malloc(sizeof(double) * (size_t)n * n);
    s->B = malloc(sizeof(double) * (size_t)n * nrhs);
    s->X = malloc(sizeof(double) * (size_t)n * nrhs);
    if (!s->A || !s->B || !s->X) {
        fprintf(stderr, "out of host memory\n");
        exit(2);
    }
    ls_fill_random(n, n, s->A, n, seed);
    for (int i = 0; i < n; i++)
        s->A[i + (size_t)i * n] += 2.0 * n; /* diagonally dominant: bicgstab converges */
    ls_fill_random(n, nrhs, s->B, n, seed + 1);
}

static void sys_free(sys *s)
{
    free(s->A);
    free(s->B);
    free(s->X);
}

static int wrong(const sys *s, ls_precision p)
{
    double r = ls_scaled_residual(s->n, s->nrhs, s->A, s->n, s->X, s->n, s->B, s->n, ls_eps(p));
    return !(r <= 30.0);
}

static char msg[1024];

static void take_msg(ls_context *ctx, const char *first)
{
    snprintf(msg, sizeof msg, "%s%s%s", first ? first : "", first && first[0] ? " | " : "",
             ls_context_error(ctx));
}

typedef struct op {
    const char *name;
    int (*run)(ls_context *ctx, const struct op *o, sys *s);
    ls_method m;
    ls_precision p;
    int n, nrhs;
} op;

static int op_solve(ls_context *ctx, const op *o, sys *s)
{
    ls_options opt;
    ls_options_init(&opt);
    opt.method = o->m;
    opt.precision = o->p;
    ls_report rep;
    memcpy(s->X, s->B, sizeof(double) * (size_t)s->n * s->nrhs);
    int st = ls_solve(ctx, &opt, s->n, s->nrhs, s->A, s->n, s->X, s->n, &rep);
    take_msg(ctx, rep.message);
    ls_report_clear(&rep);
    return st;
}

static int op_dgesv(ls_context *ctx, const op *o, sys *s)
{
    (void)o;
    double *LU = malloc(sizeof(double) * (size_t)s->n * s->n);
    int *ipiv = malloc(sizeof(int) * (size_t)s->n), info = 0;
    if (!LU || !ipiv)
        exit(2);
    memcpy(LU, s->A, sizeof(double) * (size_t)s->n * s->n);
    memcpy(s->X, s->B, sizeof(double) * (size_t)s->n * s->nrhs);
    int st = ls_dgesv(s->n, s->nrhs, LU, s->n, ipiv, s->X, s->n, &info, ctx);
    take_msg(ctx, NULL);
    free(LU);
    free(ipiv);
    return st;
}

/* The device API in FP64 (gesv) or FP32 (getrf + getrs), host pivots. */
static int op_device(ls_context *ctx, const op *o, sys *s)
{
    int n = s->n, nrhs = s->nrhs, dbl = o->p == LS_DOUBLE, info = 0, st;
    size_t es = dbl ? sizeof(double) : sizeof(float);
    size_t na = (size_t)n * n, nb = (size_t)n * nrhs;
    void *hA = malloc(es * na), *hB = malloc(es * nb), *dA = NULL, *dB = NULL;
    int *ipiv = malloc(sizeof(int) * (size_t)n);
    if (!hA || !hB || !ipiv)
        exit(2);
    for (size_t k = 0; k < na + nb; k++) {
        double v = k < na ? s->A[k] : s->B[k - na];
        void *dst = k < na ? hA : hB;
        size_t at = k < na ? k : k - na;
        if (dbl)
            ((double *)dst)[at] = v;
        else
            ((float *)dst)[at] = (float)v;
    }
    if ((st = ls_device_malloc(ctx, &dA, es * na)) || (st = ls_device_malloc(ctx, &dB, es * nb)) ||
        (st = ls_device_copy(ctx, dA, hA, es * na)) || (st = ls_device_copy(ctx, dB, hB, es * nb)))
        goto done;
    if (dbl)
        st = ls_dgesv_gpu(n, nrhs, dA, n, ipiv, dB, n, &info, ctx);
    else if (!(st = ls_sgetrf_gpu(n, n, dA, n, ipiv, &info, ctx)))
        st = ls_sgetrs_gpu('N', n, nrhs, dA, n, ipiv, dB, n, &info, ctx);
    if (!st)
        st = ls_device_copy(ctx, hB, dB, es * nb);
    if (!st && info)
        st = info;
done:
    take_msg(ctx, NULL);
    ls_device_free(ctx, dA);
    ls_device_free(ctx, dB);
    for (size_t k = 0; k < nb; k++)
        s->X[k] = dbl ? ((double *)hB)[k] : (double)((float *)hB)[k];
    free(hA);
    free(hB);
    free(ipiv);
    return st;
}

/* ls_dgesv_batched on host arrays: s holds `batch` systems of order n/8. */
static int op_batched(ls_context *ctx, const op *o, sys *s)
{
    (void)o;
    enum { BATCH = 8 };
    int m = s->n / BATCH, info[BATCH];
    double *A = malloc(sizeof(double) * (size_t)m * m * BATCH);
    int *ipiv = malloc(sizeof(int) * (size_t)m * BATCH);
    if (!A || !ipiv)
        exit(2);
    /* system b: the diagonal block b of s->A, its slice of B */
    for (int b = 0; b < BATCH; b++)
        for (int j = 0; j < m; j++)
            for (int i = 0; i < m; i++)
                A[(size_t)b * m * m + i + (size_t)j * m] =
                    s->A[(size_t)(b * m + i) + (size_t)(b * m + j) * s->n];
    memcpy(s->X, s->B, sizeof(double) * (size_t)s->n);
    int st = ls_dgesv_batched(LS_COL_MAJOR, m, 1, A, m, (long long)m * m, ipiv, s->X, m,
                              (long long)m, info, BATCH, ctx);
    take_msg(ctx, NULL);
    for (int b = 0; !st && b < BATCH; b++)
        if (info[b])
            st = info[b];
    free(A);
    free(ipiv);
    return st;
}

static int batched_wrong(const sys *s)
{
    enum { BATCH = 8 };
    int m = s->n / BATCH;
    for (int b = 0; b < BATCH; b++) {
        const double *Ab = s->A + (size_t)(b * m) + (size_t)(b * m) * s->n;
        if (!(ls_scaled_residual(m, 1, Ab, s->n, s->X + b * m, m, s->B + b * m, m,
                                 ls_eps(LS_DOUBLE)) <= 30.0))
            return 1;
    }
    return 0;
}

static int op_dsgesv(ls_context *ctx, const op *o, sys *s)
{
    (void)o;
    double *LU = malloc(sizeof(double) * (size_t)s->n * s->n);
    int *ipiv = malloc(sizeof(int) * (size_t)s->n);
    if (!LU || !ipiv)
        exit(2);
    memcpy(LU, s->A, sizeof(double) * (size_t)s->n * s->n);
    ls_mixed_result res;
    memset(&res, 0, sizeof res);
    int st = ls_dsgesv(ctx, s->n, s->nrhs, LU, s->n, ipiv, s->B, s->n, s->X, s->n, NULL, &res);
    take_msg(ctx, res.message);
    free(LU);
    free(ipiv);
    return st;
}

static const op script[] = {
    {"ls_solve lu", op_solve, LS_METHOD_LU, LS_DOUBLE, 200, 2},
    {"ls_solve ge-coalesced", op_solve, LS_METHOD_GE_COALESCED, LS_DOUBLE, 64, 1},
    {"ls_solve lu-seed float", op_solve, LS_METHOD_LU_SEED, LS_SINGLE, 96, 1},
    {"ls_solve bicgstab", op_solve, LS_METHOD_BICGSTAB, LS_DOUBLE, 128, 1},
    {"ls_solve lu float", op_solve, LS_METHOD_LU, LS_SINGLE, 300, 3},
    {"ls_dgesv", op_dgesv, LS_METHOD_LU, LS_DOUBLE, 256, 2},
    {"ls_dgesv_gpu", op_device, LS_METHOD_LU, LS_DOUBLE, 160, 2},
    {"ls_sgetrf_gpu + ls_sgetrs_gpu", op_device, LS_METHOD_LU, LS_SINGLE, 100, 1},
    {"ls_dgesv_batched", op_batched, LS_METHOD_LU, LS_DOUBLE, 256, 1},
    {"ls_dsgesv", op_dsgesv, LS_METHOD_LU, LS_DOUBLE, 200, 1},
    {"ls_solve lu (last)", op_solve, LS_METHOD_LU, LS_DOUBLE, 200, 1},
};

static void run_op(ls_context *ctx, const op *o)
{
    sys s;
    sys_make(&s, o->n, o->nrhs, 42u + (unsigned)o->n);
    for (int attempt = 0; attempt < 2; attempt++) {
        op_begin(attempt ? "retry" : o->name);
        int st = o->run(ctx, o, &s);
        if (st > 0) {
            bad("a numerical outcome on a regular system", st, msg);
            break;
        }
        if (check_failure(st, msg)) {
            if (attempt)
                bad("the context does not work after the failure", st, msg);
            continue;
        }
        if (o->run == op_batched ? batched_wrong(&s) : wrong(&s, o->p))
            bad("wrong answer", st, msg);
        break;
    }
    sys_free(&s);
}

/* One pass: a fresh context, the script, destroyed. */
static void pass(void)
{
    ls_context *ctx = NULL;
    op_begin("ls_context_create");
    int st = ls_context_create(&ctx, LS_BACKEND_CUDA, 0);
    if (st == LS_EUNAVAIL && walked < 0) {
        printf("skipped: no CUDA backend (%s)\n", ctx ? ls_context_error(ctx) : "");
        exit(SKIP);
    }
    if (st) {
        snprintf(msg, sizeof msg, "%s", ctx ? ls_context_error(ctx) : ls_strerror(st));
        check_failure(st, msg);
        ls_context_destroy(ctx);
        ctx = NULL;
        op_name = "ls_context_create retry";
        if ((st = ls_context_create(&ctx, LS_BACKEND_CUDA, 0)) != 0) {
            bad("cannot create a context after the failure", st, ls_context_error(ctx));
            ls_context_destroy(ctx);
            return;
        }
    }
    for (size_t k = 0; k < sizeof script / sizeof script[0]; k++)
        run_op(ctx, &script[k]);
    ls_context_destroy(ctx);
}

/* Free device memory once everything queued is done and the default
 * pool has given back what it caches. */
static size_t device_free(void)
{
    size_t f = 0, t = 0;
    cudaMemPool_t pool;
    cudaDeviceSynchronize();
    if (cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess)
        cudaMemPoolTrimTo(pool, 0);
    if (cudaMemGetInfo(&f, &t) != cudaSuccess)
        return 0;
    return f;
}

static int child(const char *plugin)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
        printf("skipped: no CUDA device\n");
        return SKIP;
    }
    void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    *(void **)&fault_state = h ? dlsym(h, "ls_plugin_fault_state") : NULL;
    if (!fault_state) {
        fprintf(stderr, "%s: no ls_plugin_fault_state (%s)\n", plugin, dlerror());
        return 1;
    }
    for (int k = 0; k < KINDS; k++) {
        const char *v = getenv(kind_env[k]);
        if (v && atoll(v) < 1000000000000LL)
            walked = k;
    }
    in_warmup = 1;
    pass();
    in_warmup = 0;
    long long warm_dev = fault_state(0), warm_cuda = fault_state(1);
    int fired_in_warmup = walked >= 0 && state() < 0;
    size_t before = device_free();
    pass();
    size_t after = device_free();
    if (walked < 0)
        printf("probe: warm-up %lld %lld, total %lld %lld\n", warm_dev, warm_cuda,
               fault_state(0), fault_state(1));
    if (!fired_in_warmup && before != after) {
        char d[160];
        snprintf(d, sizeof d, "device memory free %zu before, %zu after the context (%+lld bytes)",
                 before, after, (long long)after - (long long)before);
        op_name = "device memory";
        bad(d, 0, "");
    }
    if (failures)
        return 1;
    if (walked >= 0 && state() >= 0)
        return NOT_REACHED;
    return 0;
}

/* Run one child with env=val (NULL: probe); its stdout to `out` if given. */
static int spawn(const char *self, const char *plugin, int kind, long long val, FILE **out,
                 pid_t *pid_out)
{
    int fd[2] = {-1, -1};
    if (out && pipe(fd) != 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char v[32];
        for (int k = 0; k < KINDS; k++) {
            snprintf(v, sizeof v, "%lld", k == kind ? val : 1000000000000LL);
            setenv(kind_env[k], v, 1);
        }
        if (out) {
            dup2(fd[1], 1);
            close(fd[0]);
            close(fd[1]);
        }
        execl("/proc/self/exe", self, "--child", plugin, (char *)NULL);
        _exit(127);
    }
    if (out) {
        close(fd[1]);
        *out = fdopen(fd[0], "r");
    }
    *pid_out = pid;
    return pid < 0 ? -1 : 0;
}

static int wait_child(pid_t pid)
{
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    if (WIFSIGNALED(status)) {
        printf("        signal %d\n", WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--child"))
        return child(argv[2]);
    if (argc < 2) {
        fprintf(stderr, "usage: %s PLUGIN [--kind device|cuda|both] [--points P] [--max N]\n",
                argv[0]);
        return 2;
    }
    const char *plugin = argv[1];
    int kinds[KINDS] = {1, 1};
    long points = 0, max_n = 100000;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--kind")) {
            kinds[0] = strcmp(argv[i + 1], "cuda") != 0;
            kinds[1] = strcmp(argv[i + 1], "device") != 0;
        } else if (!strcmp(argv[i], "--points")) {
            points = atol(argv[i + 1]);
        } else if (!strcmp(argv[i], "--max")) {
            max_n = atol(argv[i + 1]);
        }
    }
    /* the probe: counts of the warm-up and of the whole child, the
     * memory check with nothing injected (the check's own baseline) */
    FILE *out = NULL;
    pid_t pid;
    if (spawn(argv[0], plugin, -1, 0, &out, &pid) != 0 || !out) {
        perror("probe");
        return 1;
    }
    char line[512];
    long long warm[KINDS] = {-1, -1}, total[KINDS] = {-1, -1};
    int skipped = 0;
    while (fgets(line, sizeof line, out)) {
        fputs(line, stdout);
        sscanf(line, "probe: warm-up %lld %lld, total %lld %lld", &warm[0], &warm[1], &total[0],
               &total[1]);
        if (!strncmp(line, "skipped", 7))
            skipped = 1;
    }
    fclose(out);
    int rc = wait_child(pid);
    if (rc == SKIP || skipped) {
        printf("skipped: no CUDA device\n");
        return SKIP;
    }
    if (rc != 0 || warm[0] < 0) {
        printf("the probe (nothing injected) failed: exit %d\n", rc);
        return 1;
    }
    int fails = 0;
    printf("%-6s  %8s  %s\n", "kind", "N", "result");
    for (int k = 0; k < KINDS; k++) {
        if (!kinds[k])
            continue;
        long long span = total[k] - warm[k];
        long long stride = points > 0 && span > points ? (span + points - 1) / points : 1;
        long walked_points = 0;
        long long n;
        for (n = warm[k] + 1; n <= max_n; n += stride) {
            if (spawn(argv[0], plugin, k, n, NULL, &pid) != 0) {
                fails++;
                break;
            }
            rc = wait_child(pid);
            if (rc == NOT_REACHED)
                break;
            walked_points++;
            printf("%-6s  %8lld  %s\n", kind_name[k], n, rc == 0 ? "ok" : "failed");
            if (rc != 0)
                fails++;
        }
        if (n > max_n) {
            printf("%s: the walk did not end within N = %ld\n", kind_name[k], max_n);
            fails++;
        }
        printf("%s: injection points walked: %ld (N = %lld .. %lld, every %lld; %lld counted "
               "in the walked pass)\n",
               kind_name[k], walked_points, warm[k] + 1, n - 1, stride, span);
    }
    printf("failures: %d\n", fails);
    return fails;
}
