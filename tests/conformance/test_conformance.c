/*
 * One conformance test for every backend (after ggml's test-backend-ops):
 * each (backend, method, precision) that ls_context_supports reports on this
 * machine solves the shared matrix set, and each answer is held to the CPU
 * reference (cpu lu in the same precision) and to the numerical contract:
 *  - direct methods: the same status as the reference (0, or the same zero
 *    pivot for the singular matrix), and ||B-AX||inf/(n||A||inf||X||inf eps)
 *    <= 30; on the well-conditioned matrices X agrees with the reference;
 *  - iterative methods (the table says which): converged on the matrices
 *    they are for (diagonally dominant), which with the default rtol is the
 *    same residual bar (ls_solve's contract).
 * A backend may refuse a size it cannot hold (LS_ELIMIT: ge-local's local
 * memory); that case is shown as skipped.
 *
 * usage: test_conformance [--backend cpu|cuda|opencl] [MATRIX_DIR]
 * One MAGMA-style row per case. Exit status: the number of failures; 77
 * when the backend asked for is not available here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/methods/methods.h"
#include "testutil.h"

#define SKIP_CODE 77

typedef struct mcase {
    char name[32];
    int n, nrhs;
    double *A, *B; /* B = A * ones for the files, random otherwise */
    int well_conditioned; /* X must agree with the reference */
    int for_iterative;    /* iterative methods converge on it */
} mcase;

static int make_generated(mcase *c, const char *name, ls_gen_kind kind, int n, int nrhs,
                          int well, int iter)
{
    snprintf(c->name, sizeof c->name, "%s", name);
    c->n = n, c->nrhs = nrhs, c->well_conditioned = well, c->for_iterative = iter;
    c->A = lt_doubles((size_t)n * n);
    c->B = lt_doubles((size_t)n * nrhs);
    ls_fill_random(n, nrhs, c->B, n, 1000u + (unsigned)n);
    return ls_generate(kind, n, c->A, n, 7u + (unsigned)n, 0.0);
}

static int make_from_file(mcase *c, const char *dir, const char *file)
{
    char path[4096], err[512] = "";
    ls_matrix M;
    memset(&M, 0, sizeof M);
    memset(c, 0, sizeof *c);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int st = ls_matrix_read(path, &M, err, sizeof err);
    if (st || M.rows != M.cols) {
        ls_matrix_free(&M);
        return lt_check(0, "read %s: %s %s", path, ls_strerror(st), err);
    }
    snprintf(c->name, sizeof c->name, "%.*s", (int)(strcspn(file, ".")), file);
    c->n = M.rows, c->nrhs = 1;
    c->A = lt_doubles((size_t)c->n * c->n);
    c->B = lt_doubles((size_t)c->n);
    for (int j = 0; j < c->n; j++)
        for (int i = 0; i < c->n; i++) {
            c->A[i + (size_t)j * c->n] = M.data[i + (size_t)j * M.ld];
            c->B[i] += M.data[i + (size_t)j * M.ld]; /* b = A * ones */
        }
    ls_matrix_free(&M);
    return 0;
}

/* One solve of case c; X gets the answer. Returns the status. */
static int solve(ls_context *ctx, ls_method m, ls_precision p, const mcase *c, double *X,
                 ls_report *rep)
{
    ls_options opt;
    ls_options_init(&opt);
    opt.method = m;
    opt.precision = p;
    memcpy(X, c->B, sizeof(double) * (size_t)c->n * c->nrhs);
    return ls_solve(ctx, &opt, c->n, c->nrhs, c->A, c->n, X, c->n, rep);
}

static double rel_diff(int count, const double *X, const double *R)
{
    double d = 0.0, r = 0.0;
    for (int i = 0; i < count; i++) {
        d = fmax(d, fabs(X[i] - R[i]));
        r = fmax(r, fabs(R[i]));
    }
    return r > 0 ? d / r : d;
}

typedef struct tally {
    int cases, failures, skipped;
} tally;

/* Case c on (ctx, m, p) against the reference (ref_st, Xref). */
static void run_case(ls_context *ctx, const char *backend, ls_method m, ls_precision p,
                     const mcase *c, int ref_st, const double *Xref, tally *t)
{
    const ls_method_info *info = ls_method_info_of(m);
    if (info->iterative && !c->for_iterative)
        return;
    size_t count = (size_t)c->n * c->nrhs;
    double *X = lt_doubles(count);
    ls_report rep;
    int st = solve(ctx, m, p, c, X, &rep);
    char label[64];
    snprintf(label, sizeof label, "%s/%s", info->name, c->name);
    t->cases++;
    if (st == LS_ELIMIT) {
        t->skipped++;
        printf("%6d %5d  %-13s %-7s %-6s  skipped: %s\n", c->n, c->nrhs, label, backend,
               ls_precision_name(p), rep.message);
        ls_report_clear(&rep);
        free(X);
        return;
    }
    double res = NAN, diff = 0.0;
    int ok;
    if (st == 0) {
        res = ls_scaled_residual(c->n, c->nrhs, c->A, c->n, X, c->n, c->B, c->n, ls_eps(p));
        diff = rel_diff((int)count, X, Xref);
    }
    /* a backward-stable solve of a matrix with cond <= ~1e3 agrees with
     * the reference to about cond * n * eps */
    double agree = 1e3 * c->n * ls_eps(p);
    if (info->iterative)
        ok = st == 0 && res <= LS_TEST_TOL;
    else
        ok = st == ref_st && (st != 0 || (res <= LS_TEST_TOL &&
                                           (!c->well_conditioned || diff <= agree)));
    t->failures += lt_row(c->n, c->nrhs, label, backend, ls_precision_name(p),
                          rep.t_factor + rep.t_solve, rep.gflops, st == 0 ? res : 0.0, ok);
    if (!ok)
        printf("        status %s (reference %s), |X - Xref|/|Xref| = %.2e (bound %.1e): %s\n",
               ls_status_name(st), ls_status_name(ref_st), diff, agree, rep.message);
    ls_report_clear(&rep);
    free(X);
}

static void run_backend(ls_backend_kind kind, ls_context *cpu, mcase *cases, int ncases,
                        tally *t)
{
    ls_context *ctx = NULL;
    const char *backend = ls_backend_name(kind);
    if (ls_context_create(&ctx, kind, 0) != 0) {
        printf("backend %s: unavailable: %s\n", backend, ctx ? ls_context_error(ctx) : "");
        ls_context_destroy(ctx);
        return;
    }
    printf("backend %s: %s\n", backend, ls_context_device_name(ctx));
    int before = t->cases;
    for (int pi = 0; pi < 2; pi++) {
        ls_precision p = pi ? LS_SINGLE : LS_DOUBLE;
        for (int c = 0; c < ncases; c++) {
            size_t count = (size_t)cases[c].n * cases[c].nrhs;
            double *Xref = lt_doubles(count);
            ls_report rep;
            int ref_st = solve(cpu, LS_METHOD_LU, p, &cases[c], Xref, &rep);
            ls_report_clear(&rep);
            for (int m = LS_METHOD_AUTO + 1; m < LS_METHOD_COUNT_; m++)
                if (ls_context_supports(ctx, (ls_method)m, p) == 0)
                    run_case(ctx, backend, (ls_method)m, p, &cases[c], ref_st, Xref, t);
            free(Xref);
        }
    }
    printf("backend %s: %d cases\n", backend, t->cases - before);
    ls_context_destroy(ctx);
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc)
            only = argv[++i];
        else
            dir = argv[i];
    }
    ls_backend_kind kinds[LS_BACKEND_COUNT_];
    int nkinds = 0;
    for (int k = LS_BACKEND_AUTO + 1; k < LS_BACKEND_COUNT_; k++)
        kinds[nkinds++] = (ls_backend_kind)k;
    if (only) {
        if (ls_backend_parse(only, &kinds[0]) != 0 || kinds[0] == LS_BACKEND_AUTO) {
            fprintf(stderr, "unknown backend '%s'\n", only);
            return 1;
        }
        nkinds = 1;
        char why[512];
        if (!lt_backend_available(kinds[0], why, sizeof why)) {
            printf("skipped: backend %s: %s\n", only, why);
            return SKIP_CODE;
        }
    }

    /* The shared matrix set: small, so every backend runs it in seconds. */
    mcase cases[8];
    int ncases = 0, failures = 0;
    failures += make_generated(&cases[ncases++], "random", LS_GEN_RANDOM, 64, 3, 1, 0) != 0;
    failures += make_generated(&cases[ncases++], "zerodiag", LS_GEN_ZERODIAG, 37, 1, 0, 0) != 0;
    failures += make_generated(&cases[ncases++], "diagdom", LS_GEN_DIAGDOM, 100, 2, 1, 1) != 0;
    failures += make_generated(&cases[ncases++], "singular", LS_GEN_SINGULAR, 24, 1, 0, 0) != 0;
    const char *files[] = {"full.mtx", "impcol_a.mtx", "west0479.mtx"};
    for (int f = 0; dir && f < 3; f++) {
        int bad = make_from_file(&cases[ncases], dir, files[f]);
        failures += bad;
        ncases += !bad;
    }

    ls_context *cpu = NULL;
    if (ls_context_create(&cpu, LS_BACKEND_CPU, 0) != 0) {
        printf("no cpu context: %s\n", cpu ? ls_context_error(cpu) : "");
        return 1;
    }
    lt_header();
    tally t = {0, 0, 0};
    for (int k = 0; k < nkinds; k++)
        run_backend(kinds[k], cpu, cases, ncases, &t);
    ls_context_destroy(cpu);
    for (int c = 0; c < ncases; c++) {
        free(cases[c].A);
        free(cases[c].B);
    }
    failures += t.failures;
    printf("%d case(s), %d skipped, %d failure(s)\n", t.cases, t.skipped, failures);
    return failures;
}
