/*
 * The application matrices of LS_MATRICES_DIR/real up to n = 1200 through
 * the OpenCL lu, gj1 and gj2 (double; lu also in single), with b = A * ones,
 * graded by the scaled residual. ge-local is left out: these sizes exceed
 * any device's local memory.
 *
 * usage: test_opencl_real DIR    Exit status: failures; 77 without OpenCL.
 */
#include <stdlib.h>
#include <string.h>

#include "ocl_testlib.h"

static const char *const files[] = {"full.mtx",   "impcol_a.mtx", "west0479.mtx",
                                    "494_bus.mtx", "pde900.mtx",  "olm1000.mtx",
                                    "1138_bus.mtx", "rajat19.mtx"};

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
    ls_context_destroy(ocl);
    ls_context_destroy(cpu);
    printf("%d failure(s)\n", failures);
    return failures;
}
