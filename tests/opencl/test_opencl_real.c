/*
 * The application matrices of LS_MATRICES_DIR/real up to n = 1200 through
 * the OpenCL lu, gj1 and gj2 (double; lu also in single), with b = A * ones,
 * graded by the scaled residual. ge-local is left out: these sizes exceed
 * any device's local memory. Then nnc1374 (cond 3.7e14) through gj2, which
 * is not backward stable: ls_solve's iterative refinement must bring its
 * residual under 30 and say so; with refine = 0 the check must refuse it.
 *
 * usage: test_opencl_real DIR    Exit status: failures; 77 without OpenCL.
 */
#include <stdlib.h>
#include <string.h>

#include "ocl_testlib.h"

static const char *const files[] = {"full.mtx",   "impcol_a.mtx", "west0479.mtx",
                                    "494_bus.mtx", "pde900.mtx",  "olm1000.mtx",
                                    "1138_bus.mtx", "rajat19.mtx"};

/* gj2 on nnc1374 with and without ls_solve's refinement. */
static int gj2_refined(ls_context *ocl, const char *dir)
{
    char path[4096], err[512] = "";
    snprintf(path, sizeof path, "%s/nnc1374.mtx", dir);
    ls_matrix M;
    memset(&M, 0, sizeof M);
    int st = ls_matrix_read(path, &M, err, sizeof err);
    if (st || M.rows != M.cols) {
        ls_matrix_free(&M);
        return lt_check(0, "read %s: %s %s", path, ls_strerror(st), err);
    }
    int n = M.rows, failures = 0;
    double *B = lt_doubles((size_t)n), *X = lt_doubles((size_t)n);
    for (int j = 0; j < n; j++) /* b = A * ones */
        for (int i = 0; i < n; i++)
            B[i] += M.data[i + (size_t)j * M.ld];
    for (int refine = 1; refine >= 0; refine--) {
        ls_options opt;
        ls_options_init(&opt);
        opt.method = LS_METHOD_GJ2;
        opt.refine = refine;
        ls_report rep;
        memcpy(X, B, sizeof(double) * (size_t)n);
        st = ls_solve(ocl, &opt, n, 1, M.data, M.ld, X, n, &rep);
        if (refine)
            failures += lt_check(st == 0 && rep.residual <= 30.0 && rep.iterations >= 1 &&
                                     strstr(rep.message, "iterative refinement"),
                                 "nnc1374 gj2 refined: %s, residual %.3g, %d step(s): %s",
                                 ls_status_name(st), rep.residual, rep.iterations, rep.message);
        else
            failures += lt_check(st == LS_INACCURATE && rep.residual > 30.0,
                                 "nnc1374 gj2 with refine = 0 refused: %s, residual %.3g",
                                 ls_status_name(st), rep.residual);
        ls_report_clear(&rep);
    }
    free(B);
    free(X);
    ls_matrix_free(&M);
    return failures;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("usage: %s DIR\n", argv[0]);
        return 1;
    }
    ls_context *ocl = NULL, *cpu = NULL;
    int st = ot_open(&ocl, &cpu);
    if (st)
        return st;
    printf("OpenCL device: %s\n", ls_context_device_name(ocl));
    lt_header();
    int failures = 0;
    const int double_ok = ls_context_supports(ocl, LS_METHOD_LU, LS_DOUBLE) == 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        char path[4096], err[512] = "";
        snprintf(path, sizeof path, "%s/%s", argv[1], files[f]);
        ls_matrix M;
        memset(&M, 0, sizeof M);
        st = ls_matrix_read(path, &M, err, sizeof err);
        if (st || M.rows != M.cols) {
            failures += lt_check(0, "read %s: %s %s", path, ls_strerror(st), err);
            ls_matrix_free(&M);
            continue;
        }
        char tag[40];
        snprintf(tag, sizeof tag, "%.*s", (int)(strcspn(files[f], ".")), files[f]);
        if (double_ok) {
            failures += ot_solve_given(ocl, LS_METHOD_LU, LS_DOUBLE, M.rows, M.data, M.ld, tag);
            failures += ot_solve_given(ocl, LS_METHOD_GJ1, LS_DOUBLE, M.rows, M.data, M.ld, tag);
            failures += ot_solve_given(ocl, LS_METHOD_GJ2, LS_DOUBLE, M.rows, M.data, M.ld, tag);
        }
        failures += ot_solve_given(ocl, LS_METHOD_LU, LS_SINGLE, M.rows, M.data, M.ld, tag);
        ls_matrix_free(&M);
    }
    if (double_ok)
        failures += gj2_refined(ocl, argv[1]);
    ls_context_destroy(ocl);
    ls_context_destroy(cpu);
    printf("%d failure(s)\n", failures);
    return failures;
}
