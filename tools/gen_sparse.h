/* `linsolve gen` for the grid kinds: streamed straight to coordinate .mtx. */
#ifndef LS_GEN_SPARSE_H
#define LS_GEN_SPARSE_H

/* Returns 1 when argv named a grid kind (poisson2d, convdiff, poisson3d,
 * convdiff3d) written as Matrix Market, with the exit status in *code; 0
 * when the dense generator should handle the command (other kinds, --rhs,
 * --help, .npy output). */
int gen_sparse_dispatch(int argc, char **argv, int *code);

#endif
