/* The options of `linsolve solve` with A stored sparse (solve_sparse.c). */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "commands.h"
#include "solve_sparse.h"

int solve_sparse_parse(int argc, char **argv, sparse_args *a)
{
    const char *cmd = "solve";
    memset(a, 0, sizeof *a);
    ls_iter_options_init(&a->iter);
    a->backend = LS_BACKEND_CPU;
    a->iter.method = LS_ITER_GMRES;
    a->iter.precond = LS_PRECOND_ILU0;
    a->iter.equilibrate = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val;
        long long iv;
        if (arg[0] != '-' || arg[1] == '\0') {
            if (ls_cli_take_path(cmd, arg, &a->a_path, &a->b_path))
                return -1;
        } else if (!strcmp(arg, "--json")) {
            a->json = 1;
        } else if (!strcmp(arg, "--verbose")) {
            ls_cli_set_verbose();
        } else if (!strcmp(arg, "--format")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_format(cmd, val, &a->format) != 0)
                return -1;
        } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            a->quiet = 1;
        } else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            if (!(a->out_path = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
        } else if (!strcmp(arg, "--method")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
            static const char *names[] = {"auto", "direct", "bicgstab", "gmres", "cg"};
            a->method = -1;
            for (int k = 0; k < 5; k++)
                if (!strcmp(val, names[k]))
                    a->method = k;
            if (a->method < 0) {
                ls_cli_usage_error(cmd, "sparse input: unknown method '%s' (auto, direct, "
                                        "bicgstab, gmres, cg)", val);
                return -1;
            }
        } else if (!strcmp(arg, "--precond")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
            if (!strcmp(val, "none"))
                a->iter.precond = LS_PRECOND_NONE;
            else if (!strcmp(val, "jacobi"))
                a->iter.precond = LS_PRECOND_JACOBI;
            else if (!strcmp(val, "ilu0"))
                a->iter.precond = LS_PRECOND_ILU0;
            else if (!strcmp(val, "ilut"))
                a->iter.precond = LS_PRECOND_ILUT;
            else {
                ls_cli_usage_error(cmd, "unknown preconditioner '%s' (none, jacobi, ilu0, ilut)",
                                   val);
                return -1;
            }
            a->precond_seen = 1;
        } else if (!strcmp(arg, "--ilut-tol") || !strcmp(arg, "--ilut-fill")) {
            double v;
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_double(cmd, arg, val, &v) != 0)
                return -1;
            if (arg[7] == 't' ? !(v >= 0) || !isfinite(v) : !(v >= 0 && v <= 1e9 && v == floor(v))) {
                ls_cli_usage_error(cmd, "%s must be %s", arg,
                                   arg[7] == 't' ? "finite and >= 0" : "an integer >= 0");
                return -1;
            }
            if (arg[7] == 't')
                a->iter.ilut_tol = v;
            else
                a->iter.ilut_fill = (int)v;
        } else if (!strcmp(arg, "--permute")) {
            static const char *names[] = {"auto", "mc64", "maxtrans", "none"};
            if (!(val = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
            int k = 0;
            while (k < 4 && strcmp(val, names[k]))
                k++;
            if (k == 4) {
                ls_cli_usage_error(cmd, "unknown permutation '%s' (auto, mc64, maxtrans, none)",
                                   val);
                return -1;
            }
            a->iter.permute = (ls_permute)k;
        } else if (!strcmp(arg, "--no-equilibrate")) {
            a->iter.equilibrate = 0;
            a->equil_seen = 1;
        } else if (!strcmp(arg, "--auto-memory") || !strcmp(arg, "--auto-flops")) {
            double v;
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_double(cmd, arg, val, &v) != 0)
                return -1;
            if (!(v > 0)) {
                ls_cli_usage_error(cmd, "%s must be > 0", arg);
                return -1;
            }
            if (arg[7] == 'm')
                a->auto_memory = v * 1073741824.0; /* GiB */
            else
                a->auto_flops = v;
        } else if (!strcmp(arg, "--rtol")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_double(cmd, arg, val, &a->iter.rtol) != 0)
                return -1;
        } else if (!strcmp(arg, "--max-iter") || !strcmp(arg, "--restart")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_int(cmd, arg, val, 1, INT_MAX, &iv) != 0)
                return -1;
            *(arg[2] == 'm' ? &a->iter.max_iter : &a->iter.restart) = (int)iv;
            a->max_iter_seen |= arg[2] == 'm';
        } else if (!strcmp(arg, "--backend")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)))
                return -1;
            /* auto stays on the CPU: a GPU pays only for large systems,
             * and the choice should be the caller's */
            if (!strcmp(val, "auto") || !strcmp(val, "cpu"))
                a->backend = LS_BACKEND_CPU;
            else if (!strcmp(val, "cuda"))
                a->backend = LS_BACKEND_CUDA;
            else {
                ls_cli_usage_error(cmd, "sparse input runs on the cpu or cuda backend, not '%s'",
                                   val);
                return -1;
            }
        } else if (!strcmp(arg, "--device")) {
            if (!(val = ls_cli_value(cmd, argc, argv, &i)) ||
                ls_cli_parse_int(cmd, arg, val, 0, 1024, &iv) != 0)
                return -1;
            a->device = (int)iv;
        } else {
            ls_cli_usage_error(cmd, "option '%s' is not available on the sparse path "
                                    "(A stored sparse; --storage dense for the dense solvers)",
                               arg);
            return -1;
        }
    }
    if (!a->a_path) {
        ls_cli_usage_error(cmd, "missing the matrix file A");
        return -1;
    }
    return 0;
}

