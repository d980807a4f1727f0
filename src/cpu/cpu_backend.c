/*
 * The CPU backend: the ls_backend_iface table for "cpu" and the dispatch of
 * each method to its double or float kernel.
 *
 * The methods it runs are declared against the method table (core/methods/methods.h);
 * the core charges flops and bytes from that table's models.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <omp.h>

#include "core/backend.h"
#include "core/knobs.h"
#include "core/methods/methods.h"
#include "core/util.h"
#include "core/reference.h"
#include "cpu_internal.h"

static const ls_method_support cpu_methods[] = {
    {LS_METHOD_GE, LS_PREC_DS},  {LS_METHOD_LU, LS_PREC_DS},       {LS_METHOD_GJ1, LS_PREC_DS},
    {LS_METHOD_GJ2, LS_PREC_DS}, {LS_METHOD_BICGSTAB, LS_PREC_DS},
#ifdef LS_HAVE_LAPACKE
    {LS_METHOD_LAPACK, LS_PREC_DS},
#endif
};
#define CPU_NMETHODS (sizeof cpu_methods / sizeof cpu_methods[0])

typedef struct cpu_ctx {
    char model[128];
    int own_getrf; /* ls_?getrf / ls_?getrs on the library's own LU (LS_CPU_GETRF=lu) */
} cpu_ctx;

/* "model name" from /proc/cpuinfo, or "unknown CPU" where there is none. */
static void read_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (!colon)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        snprintf(buf, len, "%s", colon);
        size_t l = strlen(buf);
        while (l > 0 && (buf[l - 1] == '\n' || buf[l - 1] == ' '))
            buf[--l] = '\0';
        break;
    }
    fclose(f);
}

static void cpu_destroy(void *bctx)
{
    free(bctx);
}

static void cpu_device_name(void *bctx, char *buf, size_t len)
{
    const cpu_ctx *c = bctx;
    snprintf(buf, len, "cpu: %s, %d threads", c->model, omp_get_max_threads());
}

static int cpu_supports(void *bctx, ls_method m, ls_precision p, char *err, size_t errlen)
{
    (void)bctx;
#ifndef LS_HAVE_LAPACKE
    if (m == LS_METHOD_LAPACK && (p == LS_DOUBLE || p == LS_SINGLE)) {
        char avail[128];
        ls_methods_list(cpu_methods, CPU_NMETHODS, avail, sizeof avail);
        return LS_FAIL(err, errlen, LS_EUNSUPPORTED,
                       "method lapack is not available on backend cpu: built without "
                       "LAPACKE/OpenBLAS (available: %s)", avail);
    }
#endif
    return ls_methods_check("cpu", cpu_methods, CPU_NMETHODS, m, p, err, errlen);
}

static ls_method cpu_auto_method(void *bctx, ls_precision p)
{
    (void)bctx;
    (void)p;
#ifdef LS_HAVE_LAPACKE
    return LS_METHOD_LAPACK;
#else
    return LS_METHOD_LU;
#endif
}

#ifdef LS_HAVE_LAPACKE
/* getrf + getrs of the linked LAPACK (what dgesv does), split to time each.
 * The Fortran routines are called through ls_cpu_lapack_sym, not through
 * LAPACKE, whose dgetrf_ would be a preloaded drop-in's (lapack_sym.c). */
static int run_lapack(const ls_job *job, ls_report *rep, char *err, size_t errlen)
{
    if (job->pivot == LS_PIVOT_NONE)
        return LS_FAIL(err, errlen, LS_EUNSUPPORTED,
                       "method lapack always pivots: use ge, lu, gj1 or gj2 with --pivot none");
    char x = job->prec == LS_SINGLE ? 's' : 'd';
    int info = 0;
    double t0 = ls_now();
    int st = ls_cpu_lapack_getrf(job->prec, job->n, job->A, job->lda, job->ipiv, &info);
    rep->t_factor = ls_now() - t0;
    if (st)
        return LS_FAIL(err, errlen, st, "%cgetrf_ not found in liblinsolve's LAPACK", x);
    if (info < 0)
        return LS_FAIL(err, errlen, LS_EINTERNAL, "%cgetrf_ rejected argument %d", x, -info);
    if (info > 0)
        return info;
    t0 = ls_now();
    st = ls_cpu_lapack_getrs(job->prec, job->n, job->nrhs, job->A, job->lda, job->ipiv, job->B,
                             job->ldb, &info);
    rep->t_solve = ls_now() - t0;
    if (st)
        return LS_FAIL(err, errlen, st, "%cgetrs_ not found in liblinsolve's LAPACK", x);
    if (info < 0)
        return LS_FAIL(err, errlen, LS_EINTERNAL, "%cgetrs_ rejected argument %d", x, -info);
    return 0;
}
#endif

/* ls_?getrf and ls_?getrs on a CPU context. The linked LAPACK's getrf
 * (OpenBLAS's recursive, blocked one) is 1.7-3.1x the library's own blocked
 * LU at n = 100, 500, 1000 and 2000, double and float, on one core of an
 * AMD EPYC (more on two, where OpenMP's barriers suffer from shared cores),
 * so it is the default where liblinsolve has one. The library's LU is faster
 * only for 12 <= n < 64 (up to 1.4x, a few microseconds); the LAPACK runs
 * there too, so that the factors are bit-identical to the system LAPACK's,
 * as NumPy's and SciPy's are. LS_CPU_GETRF=lu keeps the library's own LU and
 * triangular solves for ls_?getrf / ls_?getrs (method lu of ls_solve always
 * runs them); LS_CPU_GETRF=lapack, unset or any other value: the LAPACK's.
 * The routines come from liblinsolve's own dependency tree (lapack_sym.c),
 * never from a preloaded drop-in. */
static int own_getrf_wanted(void)
{
#ifdef LS_HAVE_LAPACKE
    return ls_knob_is(LS_KNOB_CPU_GETRF, "lu");
#else
    return 1;
#endif
}

typedef void (*lapack_getrf_fn)(const int *m, const int *n, void *A, const int *lda, int *ipiv,
                                int *info);
typedef void (*lapack_getrs_fn)(const char *trans, const int *n, const int *nrhs, const void *A,
                                const int *lda, const int *ipiv, void *B, const int *ldb,
                                int *info, size_t trans_len);

static int cpu_getrf(void *bctx, ls_precision p, int m, int n, void *A, int lda, int *ipiv,
                     int *info, char *err, size_t errlen)
{
    const cpu_ctx *c = bctx;
    lapack_getrf_fn f = c->own_getrf ? NULL
                        : (lapack_getrf_fn)ls_cpu_lapack_sym(p == LS_SINGLE ? "sgetrf_"
                                                                            : "dgetrf_");
    if (!f) {
        *info = p == LS_SINGLE ? ls_cpu_getrf_s(m, n, A, lda, ipiv, 1)
                               : ls_cpu_getrf_d(m, n, A, lda, ipiv, 1);
        return 0;
    }
    f(&m, &n, A, &lda, ipiv, info);
    if (*info < 0)
        return LS_FAIL(err, errlen, LS_EINTERNAL, "%cgetrf_ rejected argument %d",
                       p == LS_SINGLE ? 's' : 'd', -*info);
    return 0;
}

static int cpu_getrs(void *bctx, ls_precision p, char trans, int n, int nrhs, const void *A,
                     int lda, const int *ipiv, void *B, int ldb, char *err, size_t errlen)
{
    const cpu_ctx *c = bctx;
    lapack_getrs_fn f = c->own_getrf ? NULL
                        : (lapack_getrs_fn)ls_cpu_lapack_sym(p == LS_SINGLE ? "sgetrs_"
                                                                            : "dgetrs_");
    if (!f) {
        if (p == LS_SINGLE)
            ls_cpu_getrs_s(trans, n, nrhs, A, lda, ipiv, B, ldb);
        else
            ls_cpu_getrs_d(trans, n, nrhs, A, lda, ipiv, B, ldb);
        return 0;
    }
    int info = 0;
    f(&trans, &n, &nrhs, A, &lda, ipiv, B, &ldb, &info, 1);
    if (info < 0)
        return LS_FAIL(err, errlen, LS_EINTERNAL, "%cgetrs_ rejected argument %d",
                       p == LS_SINGLE ? 's' : 'd', -info);
    return 0;
}

/* Call the float (fs) or the double (fd) instance of a kernel family; both
 * names are spelled at the call, so grep finds every call of each. */
#define BY_PREC(job, fs, fd, ...) ((job)->prec == LS_SINGLE ? fs(__VA_ARGS__) : fd(__VA_ARGS__))

/* Copy of an n x m block, compact (ld = n); NULL when out of memory. */
static void *copy_block(const ls_job *job, const void *src, int ld, int m)
{
    size_t es = job->prec == LS_SINGLE ? sizeof(float) : sizeof(double);
    char *dst = ls_malloc(es * (size_t)job->n * (size_t)m);
    for (int j = 0; dst && j < m; j++)
        memcpy(dst + es * (size_t)j * job->n, (const char *)src + es * (size_t)j * ld,
               es * (size_t)job->n);
    return dst;
}

/* Gauss-Jordan model 2, then iterative refinement only if its residual
 * needs it (see ls_cpu_gj2_refine): the copies of A and B cost O(n^2). */
static int run_gj2(const ls_job *job, ls_report *rep)
{
    int n = job->n, nrhs = job->nrhs;
    void *A0 = copy_block(job, job->A, job->lda, n), *B0 = copy_block(job, job->B, job->ldb, nrhs);
    double t0 = ls_now();
    int info = BY_PREC(job, ls_cpu_gj2_s, ls_cpu_gj2_d, n, nrhs, job->A, job->lda, job->B, job->ldb,
                       job->ipiv, job->pivot != LS_PIVOT_NONE);
    rep->t_factor = ls_now() - t0;
    t0 = ls_now();
    int steps = 0;
    if (!info && A0 && B0)
        steps = BY_PREC(job, ls_cpu_gj2_refine_s, ls_cpu_gj2_refine_d, n, nrhs, A0, n, B0, n,
                        job->A, job->lda, job->ipiv, job->B, job->ldb);
    rep->t_solve = ls_now() - t0;
    rep->iterations = steps > 0 ? steps : 0;
    free(A0);
    free(B0);
    return info;
}

/* Direct methods: returns info (0 or the first zero pivot's column). */
static int run_direct(const ls_job *job, ls_report *rep)
{
    int n = job->n, nrhs = job->nrhs, pivot = job->pivot != LS_PIVOT_NONE;
    int info = 0;
    double t0 = ls_now();
    switch (job->method) {
    case LS_METHOD_GE:
        info = BY_PREC(job, ls_cpu_ge_eliminate_s, ls_cpu_ge_eliminate_d, n, nrhs, job->A, job->lda,
                       job->B, job->ldb, job->ipiv, pivot);
        break;
    case LS_METHOD_LU:
        info =
            BY_PREC(job, ls_cpu_getrf_s, ls_cpu_getrf_d, n, n, job->A, job->lda, job->ipiv, pivot);
        break;
    case LS_METHOD_GJ1:
        info = BY_PREC(job, ls_cpu_gj1_forward_s, ls_cpu_gj1_forward_d, n, nrhs, job->A, job->lda,
                       job->B, job->ldb, job->ipiv, pivot);
        break;
    default: /* LS_METHOD_GJ2: the whole reduction is the "factor" phase */
        return run_gj2(job, rep);
    }
    rep->t_factor = ls_now() - t0;
    if (info)
        return info; /* LAPACK skips the solve for a singular factor */
    t0 = ls_now();
    if (job->method == LS_METHOD_GE)
        BY_PREC(job, ls_cpu_back_substitute_s, ls_cpu_back_substitute_d, n, nrhs, job->A, job->lda,
                job->B, job->ldb);
    else if (job->method == LS_METHOD_LU)
        BY_PREC(job, ls_cpu_getrs_s, ls_cpu_getrs_d, 'N', n, nrhs, job->A, job->lda, job->ipiv,
                job->B, job->ldb);
    else if (job->method == LS_METHOD_GJ1)
        BY_PREC(job, ls_cpu_gj1_backward_s, ls_cpu_gj1_backward_d, n, nrhs, job->A, job->lda,
                job->B, job->ldb);
    rep->t_solve = ls_now() - t0;
    return 0;
}

static int run_bicgstab(const ls_job *job, ls_report *rep, char *err, size_t errlen)
{
    ls_cpu_iter_result res;
    double t0 = ls_now();
    BY_PREC(job, ls_cpu_bicgstab_s, ls_cpu_bicgstab_d, job->n, job->nrhs, job->A, job->lda, job->B,
            job->ldb, job->rtol, job->atol, job->max_iter, &res);
    rep->t_solve = ls_now() - t0;
    rep->t_factor = 0;
    rep->iterations = res.iterations;
    rep->history = res.history;
    rep->history_len = res.history_len;
    snprintf(rep->message, sizeof rep->message, "%s", res.message);
    if (res.status == LS_ENOMEM)
        return LS_FAIL(err, errlen, LS_ENOMEM, "%s", res.message);
    if (res.status)
        snprintf(err, errlen, "%s", res.message);
    return res.status;
}

static int cpu_solve(void *bctx, const ls_job *job, ls_report *rep, char *err, size_t errlen)
{
    int st; /* the job is checked (core/backend.h, solve) */
    if (job->n == 0 || job->nrhs == 0)
        return 0;
    if (job->progress)
        job->progress(job->progress_arg, 0.0, ls_method_name(job->method));
    if (job->method == LS_METHOD_BICGSTAB) {
        st = run_bicgstab(job, rep, err, errlen);
    } else {
#ifdef LS_HAVE_LAPACKE
        if (job->method == LS_METHOD_LAPACK) {
            st = run_lapack(job, rep, err, errlen);
            if (st < 0)
                return st;
        } else
#endif
            st = run_direct(job, rep);
        rep->info = st;
        if (st > 0)
            snprintf(rep->message, sizeof rep->message,
                     "matrix is singular: U(%d,%d) is exactly zero", st, st);
        else if (job->method == LS_METHOD_GJ2 && rep->iterations > 0)
            snprintf(rep->message, sizeof rep->message,
                     "solved with gj2 on cpu, then %d step(s) of iterative refinement "
                     "(Gauss-Jordan is not backward stable)", rep->iterations);
        else
            snprintf(rep->message, sizeof rep->message, "solved with %s on cpu",
                     ls_method_name(job->method));
    }
    if (job->progress)
        job->progress(job->progress_arg, 1.0, ls_method_name(job->method));
    return st;
}

static int cpu_print_info(void *bctx, FILE *out)
{
    const cpu_ctx *c = bctx;
    fprintf(out, "  model:              %s\n", c->model);
    fprintf(out, "  hardware threads:   %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
    fprintf(out, "  OpenMP max threads: %d\n", omp_get_max_threads());
    char lapack[512];
    ls_lapack_library(lapack, sizeof lapack);
    fprintf(out, "  LAPACK (lapack):    %s\n", lapack);
    fprintf(out, "  ls_?getrf/getrs:    %s\n",
            c->own_getrf ? "linsolve's own LU (method lu)" : "the LAPACK above");
    char methods[128];
    ls_methods_list(cpu_methods, CPU_NMETHODS, methods, sizeof methods);
    fprintf(out, "  methods:            %s\n", methods);
    return 0;
}

/* ls_?getrf/getrs on a cpu context (gesv: getrf then getrs) */
static const ls_dense_role cpu_dense = {
    .getrf = cpu_getrf,
    .getrs = cpu_getrs,
};

/* no device, mixed (host operations run without a role), batched (the core's
 * CPU fallback), sparse or perf role */
static const ls_backend_iface cpu_iface = {
    .name = "cpu",
    .abi = LS_PLUGIN_ABI,
    .destroy = cpu_destroy,
    .device_name = cpu_device_name,
    .supports = cpu_supports,
    .auto_method = cpu_auto_method,
    .solve = cpu_solve,
    .print_info = cpu_print_info,
    .dense = &cpu_dense,
};

int ls_cpu_backend_open(int device, const ls_backend_iface **iface, void **bctx, char *err,
                        size_t errlen)
{
    if (!iface || !bctx)
        return LS_FAIL(err, errlen, LS_EINVAL, "iface and bctx must not be NULL");
    *iface = NULL;
    *bctx = NULL;
    if (device != 0)
        return LS_FAIL(err, errlen, LS_EUNAVAIL, "backend cpu has one device (0), not %d",
                       device);
    cpu_ctx *c = ls_calloc(1, sizeof *c);
    if (!c)
        return LS_FAIL(err, errlen, LS_ENOMEM, "cannot allocate the cpu backend context");
    read_cpu_model(c->model, sizeof c->model);
    c->own_getrf = own_getrf_wanted();
    *iface = &cpu_iface;
    *bctx = c;
    return 0;
}
