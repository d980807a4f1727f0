/* `linsolve solve --format dense|sparse|auto`: the sparse (CSR) path. */
#ifndef LS_SOLVE_SPARSE_H
#define LS_SOLVE_SPARSE_H

/* Takes "--format dense|sparse|auto" out of argv (argc updated). Returns 1
 * when the sparse path ran (exit status in *code), 0 when the dense solve
 * should go on with the remaining arguments. */
int solve_sparse_dispatch(int *argc, char **argv, int *code);

#endif
