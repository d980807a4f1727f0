/* `linsolve solve --distributed`: the MPI path (liblinsolve_dist). */
#ifndef LS_SOLVE_DISTRIBUTED_H
#define LS_SOLVE_DISTRIBUTED_H

/* When argv holds --distributed, runs the distributed solve (its options:
 * --grid PxQ, --nb N) and returns 1 with the exit status in *code; 0 when
 * the ordinary solve should go on. Built without MPI, --distributed says so
 * (exit 5). */
int solve_distributed_dispatch(int *argc, char **argv, int *code);

/* "PxQ" -> P, Q (>= 1); 0 or -1. */
int solve_distributed_parse_grid(const char *text, int *p, int *q);

#endif
