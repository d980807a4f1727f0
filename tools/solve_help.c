/* The text of `linsolve solve --help`. */
#include <stdio.h>
#include <string.h>

#include "core/methods/methods.h"
#include "linsolve.h"
#include "solve_input.h"

/* Every method's name from the library's table, wrapped as the options'
 * descriptions are: a method added to the table needs no edit here. */
static void print_methods(FILE *out)
{
    const char *indent = "                       ", *first = "  --method M           auto (default)";
    int col = (int)strlen(first);
    fprintf(out, "%s", first);
    for (int m = LS_METHOD_AUTO + 1; m < LS_METHOD_COUNT_; m++) {
        const char *name = ls_method_name((ls_method)m);
        int w = (int)strlen(name) + 3;
        if (col + w + 2 > 78) { /* room for the " |" that ends a wrapped line */
            fprintf(out, " |\n%s%s", indent, name);
            col = (int)strlen(indent) + (int)strlen(name);
        } else {
            fprintf(out, " | %s", name);
            col += w;
        }
    }
    fprintf(out, "\n%s('linsolve info' lists which backend runs which)\n", indent);
}

/* The name docs/metrics.md gives each byte model (its table's first
 * column); a new model fails to compile here until it is named. */
static const char *traffic_name(ls_traffic t)
{
    switch (t) {
    case LS_TRAFFIC_GE: return "ge";
    case LS_TRAFFIC_GJ: return "gj";
    case LS_TRAFFIC_LU_BLOCKED: return "lu-blocked";
    case LS_TRAFFIC_LU_SEED: return "lu-seed";
    case LS_TRAFFIC_KRYLOV: return "krylov";
    }
    return "?";
}

/* Which byte model each method follows, from the method table: the models
 * in the order they first appear, each with its methods, wrapped as above.
 * auto is left out (it follows the method it resolves to). */
static void print_byte_models(FILE *out)
{
    const char *indent = "                       ";
    fprintf(out, "%sbyte models (docs/metrics.md; the report's GB/s):\n", indent);
    for (int m = LS_METHOD_AUTO + 1; m < LS_METHOD_COUNT_; m++) {
        ls_traffic t = ls_method_info_of((ls_method)m)->traffic;
        int seen = 0;
        for (int p = LS_METHOD_AUTO + 1; p < m && !seen; p++)
            seen = ls_method_info_of((ls_method)p)->traffic == t;
        if (seen)
            continue;
        int col = fprintf(out, "%s  %s:", indent, traffic_name(t));
        const char *sep = " ";
        for (int q = m; q < LS_METHOD_COUNT_; q++) {
            if (ls_method_info_of((ls_method)q)->traffic != t)
                continue;
            const char *name = ls_method_name((ls_method)q);
            int w = (int)(strlen(sep) + strlen(name));
            if (col + w + 1 > 78) {
                col = fprintf(out, ",\n%s    %s", indent, name) - 2;
            } else {
                col += fprintf(out, "%s%s", sep, name);
            }
            sep = ", ";
        }
        fprintf(out, "\n");
    }
}

/* Every backend's name from the library's list (src/core/names.c): a
 * backend added there needs no edit here. */
static void print_backends(FILE *out)
{
    fprintf(out, "  --backend B          auto (default: CUDA, then OpenCL GPU, then CPU) |\n"
                 "                      ");
    for (int b = LS_BACKEND_AUTO + 1; b < LS_BACKEND_COUNT_; b++)
        fprintf(out, "%s %s", b > LS_BACKEND_AUTO + 1 ? " |" : "",
                ls_backend_name((ls_backend_kind)b));
    fprintf(out, "\n");
}

void solve_help(FILE *out)
{
    fprintf(out,
            "Usage: linsolve solve A [B] [OPTIONS]\n"
            "\n"
            "Solve the dense system A X = B (xGESV-style) and verify the answer with\n"
            "the scaled residual ||B - A X||inf / (n ||A||inf ||X||inf eps) <= 30.\n"
            "A and B are Matrix Market (.mtx, array or coordinate) or NumPy (.npy)\n"
            "files, told apart by their content; '-' reads one of them from standard\n"
            "input. Without B the right-hand side is b = A * ones(n,1), and the forward\n"
            "error ||x - 1||inf / ||1||inf is reported too.\n"
            "\n"
            "Options:\n"
            "  -o, --output FILE    write X (Matrix Market array, or .npy by extension)\n"
            "                       whenever one was computed, even if it fails the check;\n"
            "                       '-' writes it to standard output, and the report\n"
            "                       then goes to standard error\n"
            "  --format F           mtx | npy: the format of X, whatever the file's\n"
            "                       extension (default: by extension; Matrix Market on\n"
            "                       standard output), and the format standard input must\n"
            "                       have (default: recognised by content)\n"
            "  --storage S          auto (default) | dense | sparse: how A is held.\n"
            "                       auto reads a Matrix Market coordinate A into CSR and\n"
            "                       solves it sparse when dense storage cannot hold it\n"
            "                       (n^2 over LS_MAX_ELEMENTS, by default half the host\n"
            "                       memory), when an option of the sparse solvers is given,\n"
            "                       or when n > 4096 and nnz < n^2/10 and no dense-only\n"
            "                       option is; the report says why. Anything else is\n"
            "                       solved dense. (--format dense|sparse|auto is the\n"
            "                       deprecated spelling.)\n"
            );
    print_methods(out);
    print_byte_models(out);
    print_backends(out);
    fprintf(out,
            "  --device N           device index within the backend (default: the\n"
            "                       backend's first; OpenCL prefers a GPU)\n"
            "  --precision P        auto (default) | double | single: the working\n"
            "                       precision. auto follows A's dtype, as NumPy does: a\n"
            "                       float32 .npy is solved in single, anything else\n"
            "                       (float64 or integer .npy, Matrix Market) in double.\n"
            "                       X is written in the working precision: .npy '<f4' or\n"
            "                       '<f8', Matrix Market with 9 or 17 digits.\n"
            "                       mixed: A, B and X in double, LU in a low precision\n"
            "                       refined in FP64, FP64 LU when that fails (ls_dsgesv)\n"
            "  --factor F           with mixed: auto (default) | fp32 | tf32 | tf32x3 |\n"
            "                       bf16 | fp16 | fp64 (with --pivot rbt) (the cpu has\n"
            "                       fp32 only)\n"
            "  --refine K           with mixed: auto (default: IR, GMRES-IR when IR is\n"
            "                       slow) | ir | gmres\n"
            "  --pivot P            partial (default) | none (study mode, no row swaps);\n"
            "                       with mixed: auto (default) | partial | none | rbt (random\n"
            "                       butterfly transform, then LU without row swaps)\n"
            "  --no-refine          keep a direct method's own answer: by default one\n"
            "                       whose residual exceeds 30 gets up to 4 steps of\n"
            "                       iterative refinement (new solves of A D = B - A X)\n"
            "  --rtol R             iterative: stop when ||r||/||b|| <= R (default: 10 sqrt(n) eps,\n"
            "                       enough for a scaled residual <= 10)\n"
            "  --atol A             iterative: stop when ||r|| <= A (default 0)\n"
            "  --max-iter K         iterative: at most K iterations (default 2000)\n"
            "  sparse storage:      --method auto|direct|bicgstab|gmres|cg,\n"
            "                       --precond none|jacobi|ilu0|ilut [--ilut-tol T]\n"
            "                       [--ilut-fill P], --restart M, --no-equilibrate,\n"
            "                       --permute auto|mc64|maxtrans|none: auto = MC64\n"
            "                       weighted matching + scaling when a diagonal entry is\n"
            "                       zero or small); --method auto = UMFPACK LU when its\n"
            "                       estimated memory and flops fit --auto-memory GIB\n"
            "                       (default half of RAM) and --auto-flops F (default\n"
            "                       5e10), else CG+IC(0) for symmetric A with a positive\n"
            "                       diagonal, else GMRES(30)+ILU(0), retried with ILUT\n"
            "                       when it does not converge (docs/sparse.md)\n"
            "  --distributed [--grid PxQ] [--nb N]  under mpirun: rank 0 reads A and B,\n"
            "                       the ranks solve on a PxQ block-cyclic grid, rank 0\n"
            "                       writes X (docs/distributed.md)\n"
            "  --json               print one JSON object on stdout instead of the report\n"
            "  --quiet              print nothing on success (errors still go to stderr)\n"
            "  --verbose            add the source location to error messages (as the\n"
            "                       environment variable LS_DEBUG=1 does)\n"
            "  -h, --help           this text\n"
            "\n"
            "Stacks: when A is a 3-D .npy of shape (batch, n, n) and B one of shape\n"
            "(batch, n) or (batch, n, k), every system is solved at once (batched\n"
            "gesv, C- or Fortran-order); X keeps B's shape, NaN for a singular system\n"
            "(a .npy file; Matrix Market, one row per system, when B is 2-D).\n"
            "The report gives systems/s, GB/s and the singular systems (--json: their\n"
            "indices); exit status 3 when any system is singular.\n"
            "\n"
            "Exit status: 0 solved and residual <= 30; 1 usage error; 2 invalid input\n"
            "(unreadable, malformed, non-square A, B rows != n, non-finite entries)\n"
            "or output that cannot be written (-o checked before the solve; X, the\n"
            "report and --json on standard output checked as written);\n"
            "3 singular (INFO = i > 0: U(i,i) is exactly zero); 4 inaccurate answer,\n"
            "no convergence or breakdown; 5 backend unavailable, device error or out\n"
            "of memory.\n");
}

