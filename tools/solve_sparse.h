/* `linsolve solve` with A stored sparse (--storage sparse, or auto's choice):
 * the CSR path (solve_sparse.c). */
#ifndef LS_SOLVE_SPARSE_H
#define LS_SOLVE_SPARSE_H

#include "solve_input.h"

/* Parse the sparse path's options (argv without --storage), solve A X = B
 * with A read into CSR and report; why says why A is stored sparse. bin is
 * NULL without B. Returns the exit status. */
int solve_sparse_run(int argc, char **argv, const solve_input *ain, const solve_input *bin,
                     const char *why);

#endif
