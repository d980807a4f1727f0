/* `linsolve solve` with A stored sparse (--storage sparse, or auto's choice):
 * the CSR path (solve_sparse.c). */
#ifndef LS_SOLVE_SPARSE_H
#define LS_SOLVE_SPARSE_H

#include "commands.h"
#include "solve_input.h"

enum { SM_AUTO, SM_DIRECT, SM_BICGSTAB, SM_GMRES, SM_CG }; /* --method on the sparse path */

typedef struct sparse_args {
    const char *a_path, *b_path, *out_path;
    int method, json, quiet;
    ls_iter_options iter;
    int precond_seen, equil_seen, max_iter_seen;
    double auto_memory, auto_flops; /* bytes (--auto-memory is in GiB), flops; <= 0: defaults */
    ls_backend_kind backend;        /* CPU unless --backend says otherwise */
    int device;
    ls_context *ctx;                /* the backend's context (NULL: the CPU) */
    ls_io_format format;            /* --format mtx|npy of X; AUTO: by extension */
    const solve_input *ain, *bin;   /* A and B, opened once (solve_input.c) */
} sparse_args;

/** The sparse path's options into a (solve_sparse_args.c); 0, or -1 after a
 *  usage error. */
int solve_sparse_parse(int argc, char **argv, sparse_args *a);

/* Parse the sparse path's options (argv without --storage), solve A X = B
 * with A read into CSR and report; why says why A is stored sparse. bin is
 * NULL without B. Returns the exit status. */
int solve_sparse_run(int argc, char **argv, const solve_input *ain, const solve_input *bin,
                     const char *why);

#endif
