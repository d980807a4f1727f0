/*
 * Every OpenCL method through the public ls_solve, against the CPU
 * reference on the same inputs: random and zero-diagonal matrices (the
 * latter fail without pivoting), lda = n + 2, ldb = n + 1, nrhs 1 and 3
 * (and 40 at n = 100), float and double; --pivot none on diagonally
 * dominant ones. Each answer is graded by the scaled residual computed here
 * (not the report's), and in double the solution must also agree with the
 * CPU's.
 *
 * usage: test_opencl_solve GROUP   (ge_li | ge_tendto | gj | lu | all)
 *   ge_li: Li (2025)'s ge-naive, ge-blocked, ge-coalesced; ge_tendto: the
 *   ge-local, ge-buffer, ge-image of TendTo's Linear-System-Solver
 * Exit status: the number of failures; 77 when there is no OpenCL platform.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_testlib.h"

typedef struct group {
    const char *name;
    ls_method methods[4];
    int nmethods;
    int max_n_double; /* largest n run in double (time on PoCL) */
} group;

static const group groups[] = {
    {"ge_li", {LS_METHOD_GE_NAIVE, LS_METHOD_GE_BLOCKED, LS_METHOD_GE_COALESCED}, 3, 513},
    {"ge_tendto", {LS_METHOD_GE_LOCAL, LS_METHOD_GE_BUFFER, LS_METHOD_GE_IMAGE}, 3, 513},
    {"gj", {LS_METHOD_GJ1, LS_METHOD_GJ2}, 2, 513},
    {"lu", {LS_METHOD_LU, LS_METHOD_GE}, 2, 513},
};

static const int sizes[] = {1, 2, 17, 64, 255, 513};

/* Image reads are emulated on PoCL (~4 s per n=513 solve): one case there. */
static int too_slow(ls_method m, int n, int nrhs, ls_gen_kind kind)
{
    return m == LS_METHOD_GE_IMAGE && n > 300 && (nrhs > 1 || kind != LS_GEN_RANDOM);
}

static int supported(ls_context *ocl, ls_method m, ls_precision p, int *failures)
{
    if (ls_context_supports(ocl, m, p) == 0)
        return 1;
    /* Only ge-image in double, or double without cl_khr_fp64, may refuse. */
    int expected = (m == LS_METHOD_GE_IMAGE || p == LS_DOUBLE) &&
                   ls_context_supports(ocl, LS_METHOD_LU, LS_SINGLE) == 0;
    *failures += lt_check(expected, "%s %s refused: %s", ls_method_name(m), ls_precision_name(p),
                          ls_context_error(ocl));
    return 0;
}

/* Loops run problem-major so each system (and its CPU reference) is made
 * once and solved by every method of the group. */
static int run_group(ls_context *ocl, ls_context *cpu, const group *g)
{
    int failures = 0;
    for (int pi = 0; pi < 2; ++pi) {
        ls_precision p = pi == 0 ? LS_SINGLE : LS_DOUBLE;
        int use[4] = {0, 0, 0, 0};
        for (int mi = 0; mi < g->nmethods; ++mi)
            use[mi] = supported(ocl, g->methods[mi], p, &failures);
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
            int n = sizes[si];
            if (p == LS_DOUBLE && n > g->max_n_double)
                continue;
            for (int nrhs = 1; nrhs <= 3; nrhs += 2)
                for (int ki = 0; ki < 2; ++ki) {
                    ls_gen_kind kind = ki == 0 ? LS_GEN_RANDOM : LS_GEN_ZERODIAG;
                    ot_problem pb;
                    if (ot_problem_make(&pb, cpu, kind, p, LS_PIVOT_PARTIAL, n, nrhs,
                                        1000u * (unsigned)(ki + 1) + (unsigned)n) == 0) {
                        for (int mi = 0; mi < g->nmethods; ++mi)
                            if (use[mi] && !too_slow(g->methods[mi], n, nrhs, kind))
                                failures += ot_run(ocl, &pb, g->methods[mi]);
                    } else {
                        failures++;
                    }
                    ot_problem_free(&pb);
                }
        }
        /* Many right-hand sides at once (one work-group each in the solves). */
        {
            ot_problem pb;
            if (ot_problem_make(&pb, cpu, LS_GEN_ZERODIAG, p, LS_PIVOT_PARTIAL, 100, 40,
                                4000u) == 0) {
                for (int mi = 0; mi < g->nmethods; ++mi)
                    if (use[mi])
                        failures += ot_run(ocl, &pb, g->methods[mi]);
            } else {
                failures++;
            }
            ot_problem_free(&pb);
        }
        /* The published methods' original no-pivot mode, on inputs that allow it. */
        for (int n = 17; n <= 255; n += 238) {
            ot_problem pb;
            if (ot_problem_make(&pb, cpu, LS_GEN_DIAGDOM, p, LS_PIVOT_NONE, n, 2,
                                3000u + (unsigned)n) == 0) {
                for (int mi = 0; mi < g->nmethods; ++mi)
                    if (use[mi])
                        failures += ot_run(ocl, &pb, g->methods[mi]);
            } else {
                failures++;
            }
            ot_problem_free(&pb);
        }
    }
    return failures;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    ls_context *ocl = NULL, *cpu = NULL;
    int st = ot_open(&ocl, &cpu);
    if (st)
        return st;
    printf("OpenCL device: %s\n", ls_context_device_name(ocl));
    lt_header();
    int failures = 0, ran = 0;
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; ++i)
        if (!strcmp(which, "all") || !strcmp(which, groups[i].name)) {
            failures += run_group(ocl, cpu, &groups[i]);
            ran = 1;
        }
    if (!ran)
        failures += lt_check(0, "unknown group %s", which);
    ls_context_destroy(ocl);
    ls_context_destroy(cpu);
    printf("%d failure(s)\n", failures);
    return failures;
}
