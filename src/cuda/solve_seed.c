/* The seed methods: ge-naive, ge-blocked, ge-coalesced (seed 000, back
 * substitution of seed 004), gj1, gj2 (seed 003) on the row-major augmented
 * matrix, and lu-seed (seed 002) on the column-major matrix. Pivots and the
 * singularity flag stay on the device: the loops only enqueue launches; the
 * host waits once, after the elimination, to read info. */
#include "cuda_backend.h"
#include "kernels.h"

#include <stdio.h>
#include <string.h>

/* Where the 2-D grids of one-thread-per-element kernels stop fitting. */
#define LSC_SEED_MAX_N (65535 * LSK_ELEM_Y)

static int is_augmented_method(ls_method m)
{
    return m == LS_METHOD_GE_NAIVE || m == LS_METHOD_GE_BLOCKED ||
           m == LS_METHOD_GE_COALESCED || m == LS_METHOD_GJ1 || m == LS_METHOD_GJ2;
}

#define LS_REAL_IMPL "cuda/solve_seed_impl.h"
#include "cpu/instantiate_real.h"

int lsc_solve_seed(ls_cuda_ctx *c, const ls_job *job, ls_report *rep, char *err, size_t errlen)
{
    return job->prec == LS_DOUBLE ? solve_seed_d(c, job, rep, err, errlen)
                                  : solve_seed_s(c, job, rep, err, errlen);
}
