#include "ocl_testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ot_open(ls_context **ocl, ls_context **cpu)
{
    int device = 0;
    const char *env = getenv("LS_OPENCL_DEVICE");
    if (env && *env)
        device = atoi(env);
    int st = ls_context_create(ocl, LS_BACKEND_OPENCL, device);
    if (st) {
        const char *why = *ocl ? ls_context_error(*ocl) : "";
        int skip = strstr(why, "no OpenCL platform") != NULL;
        printf("no usable OpenCL device: %s: %s%s\n", ls_strerror(st), why,
               skip ? " (skipped)" : "");
        ls_context_destroy(*ocl);
        *ocl = NULL;
        return skip ? 77 : 1;
    }
    st = ls_context_create(cpu, LS_BACKEND_CPU, 0);
    if (st) {
        printf("cpu context: %s\n", ls_strerror(st));
        ls_context_destroy(*ocl);
        ls_context_destroy(*cpu);
        return 1;
    }
    return 0;
}

static const char *kind_tag(ls_gen_kind kind, ls_pivot piv)
{
    switch (kind) {
    case LS_GEN_RANDOM:
        return "rnd";
    case LS_GEN_ZERODIAG:
        return "zd";
    case LS_GEN_DIAGDOM:
        return piv == LS_PIVOT_NONE ? "dd-nopiv" : "dd";
    case LS_GEN_SINGULAR:
        return "sing";
    default:
        return "gen";
    }
}

/* Solve into X (ldb = n + 1, padding rows set to 7 and checked after). */
static int solve_into(ls_context *ctx, ls_method m, ls_precision p, ls_pivot piv, int n, int nrhs,
                      const double *A, int lda, const double *B, int ldb, double *X,
                      ls_report *rep)
{
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < ldb; i++)
            X[i + (size_t)j * ldb] = i < n ? B[i + (size_t)j * ldb] : 7.0;
    ls_options opt;
    ls_options_init(&opt);
    opt.method = m;
    opt.precision = p;
    opt.pivot = piv;
    opt.check = 0; /* graded here, independently of the report */
    return ls_solve(ctx, &opt, n, nrhs, A, lda, X, ldb, rep);
}

int ot_problem_make(ot_problem *pb, ls_context *cpu, ls_gen_kind kind, ls_precision p,
                    ls_pivot piv, int n, int nrhs, unsigned seed)
{
    memset(pb, 0, sizeof *pb);
    pb->kind = kind;
    pb->prec = p;
    pb->pivot = piv;
    pb->n = n;
    pb->nrhs = nrhs;
    pb->lda = n + 2;
    pb->ldb = n + 1;
    pb->A = lt_doubles((size_t)pb->lda * n);
    pb->B = lt_doubles((size_t)pb->ldb * nrhs);
    if (ls_generate(kind, n, pb->A, pb->lda, seed, 0.0) != 0)
        return lt_check(0, "ls_generate(%s, n=%d)", ls_gen_name(kind), n);
    ls_fill_random(n, nrhs, pb->B, pb->ldb, seed + 17u);
    /* The reference costs an O(n^3) CPU solve; float is graded by the
     * residual alone, so only double needs it, except for the status. */
    if (p == LS_SINGLE && n > 64)
        return 0;
    pb->R = lt_doubles((size_t)pb->ldb * nrhs);
    ls_report ref;
    pb->ref_status = solve_into(cpu, LS_METHOD_LU, LS_DOUBLE, piv, n, nrhs, pb->A, pb->lda,
                                pb->B, pb->ldb, pb->R, &ref);
    ls_report_clear(&ref);
    return 0;
}

void ot_problem_free(ot_problem *pb)
{
    free(pb->A);
    free(pb->B);
    free(pb->R);
    memset(pb, 0, sizeof *pb);
}

int ot_run(ls_context *ocl, const ot_problem *pb, ls_method m)
{
    const int n = pb->n, nrhs = pb->nrhs, ldb = pb->ldb;
    const ls_precision p = pb->prec;
    double *X = lt_doubles((size_t)ldb * nrhs);
    char label[32];
    snprintf(label, sizeof label, "%s/%s", ls_method_name(m), kind_tag(pb->kind, pb->pivot));
    ls_report rep;
    int failed = 0;
    int st = solve_into(ocl, m, p, pb->pivot, n, nrhs, pb->A, pb->lda, pb->B, ldb, X, &rep);
    if (st == LS_ELIMIT && m == LS_METHOD_GE_LOCAL && n >= 64 &&
        strstr(ls_context_error(ocl), "local memory")) {
        /* A real device limit, reported as the method promises. */
        failed = lt_check(1, "%6d %5d  %-13s opencl  %-6s refused: %s", n, nrhs, label,
                          ls_precision_name(p), ls_context_error(ocl));
        goto out;
    }
    if (pb->ref_status > 0 && pb->ref_status < LS_NOT_CONVERGED) {
        /* Exactly singular: the same info as the CPU, and X left alone. */
        int ok = st == pb->ref_status && X[0] == pb->B[0];
        failed = lt_row(n, nrhs, label, "opencl", ls_precision_name(p), rep.t_total, 0.0, NAN,
                        ok);
        if (!ok)
            printf("      status %d, cpu info %d: %s\n", st, pb->ref_status,
                   ls_context_error(ocl));
        goto out;
    }
    double resid = st == 0 ? ls_scaled_residual(n, nrhs, pb->A, pb->lda, X, ldb, pb->B, ldb,
                                                ls_eps(p))
                           : NAN;
    int pad_ok = 1;
    double diff = 0.0, scale = 0.0;
    for (int j = 0; j < nrhs; j++) {
        pad_ok &= X[n + (size_t)j * ldb] == 7.0;
        for (int i = 0; pb->R && i < n; i++) {
            double d = fabs(X[i + (size_t)j * ldb] - pb->R[i + (size_t)j * ldb]);
            diff = d > diff || d != d ? d : diff;
            double a = fabs(pb->R[i + (size_t)j * ldb]);
            scale = a > scale ? a : scale;
        }
    }
    double rel = scale > 0 ? diff / scale : diff;
    /* Forward error is bounded by cond(A) * eps; these random inputs are
     * well conditioned enough for 1e-6 in double. Float: residual only. */
    int agree = p == LS_SINGLE || pb->ref_status != 0 || rel <= 1e-6;
    int ok = st == 0 && resid <= LS_TEST_TOL && pad_ok && agree;
    failed = lt_row(n, nrhs, label, "opencl", ls_precision_name(p), rep.t_total, rep.gflops,
                    resid, ok);
    if (!ok)
        printf("      status %d (%s) %s; cpu status %d; |X-Xcpu|/|Xcpu| = %.2e; padding %s\n",
               st, ls_status_name(st), ls_context_error(ocl), pb->ref_status, rel,
               pad_ok ? "kept" : "OVERWRITTEN");
out:
    ls_report_clear(&rep);
    free(X);
    return failed;
}

int ot_solve_given(ls_context *ocl, ls_method m, ls_precision p, int n, const double *A, int lda,
                   const char *tag)
{
    double *B = lt_doubles((size_t)n);
    double *X = lt_doubles((size_t)n);
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += A[i + (size_t)j * lda];
        B[i] = s;
    }
    memcpy(X, B, sizeof(double) * (size_t)n);
    ls_options opt;
    ls_options_init(&opt);
    opt.method = m;
    opt.precision = p;
    opt.check = 0;
    ls_report rep;
    int st = ls_solve(ocl, &opt, n, 1, A, lda, X, n, &rep);
    double resid = st == 0 ? ls_scaled_residual(n, 1, A, lda, X, n, B, n, ls_eps(p)) : NAN;
    char label[48];
    snprintf(label, sizeof label, "%s/%s", ls_method_name(m), tag);
    int ok = st == 0 && resid <= LS_TEST_TOL;
    int failed = lt_row(n, 1, label, "opencl", ls_precision_name(p), rep.t_total, rep.gflops,
                        resid, ok);
    if (!ok)
        printf("      status %d (%s) %s\n", st, ls_status_name(st), ls_context_error(ocl));
    ls_report_clear(&rep);
    free(B);
    free(X);
    return failed;
}
