/* The case engine of linsolve bench, reused by metrics (timing breakdown)
 * and roofline (placing the methods). */
#ifndef LS_BENCH_CASES_H
#define LS_BENCH_CASES_H

#include "bench_util.h"

typedef struct ls_bench_opts {
    int sizes[LS_BENCH_MAX_LIST], nsizes;
    int nrhs[LS_BENCH_MAX_LIST], nnrhs;
    ls_method methods[LS_METHOD_COUNT_];
    int nmethods;    /* 0: each backend's auto method */
    int methods_all; /* every method the backend supports */
    ls_backend_kind backends[LS_BACKEND_COUNT_];
    int nbackends;
    int backends_all;
    ls_precision precs[2];
    int nprecs;
    int repeat, rotate;
    double time_limit;
    double baseline_time_limit; /* for the sequential cpu ge baseline; <= 0: time_limit */
    int baseline, peers;
    ls_gen_kind gen;
    ls_out_format format;
    const char *output;
    int lu_vs_cusolver; /* the lu-vs-cusolver sweep instead of the mixed table */
    const char *csv;    /* its CSV file (NULL: none) */
    int argc;           /* the command line, recorded in the outputs */
    char **argv;
} ls_bench_opts;

/* One measured case (medians over the timed runs). */
typedef struct ls_bench_result {
    ls_method method;    /* as run (auto resolved) */
    int status;          /* ls_solve's status of the last run */
    int runs;            /* timed runs actually made */
    double t_dev;        /* t_factor + t_solve (no transfers) */
    double t_xfer;       /* t_dev + t_h2d + t_d2h */
    double t_h2d, t_factor, t_solve, t_d2h, t_wall;
    double flops, bytes; /* of one solve, from the models */
    double residual;
    int iterations;
    int ok;
    char message[256];
} ls_bench_result;

/* Generated inputs shared by the cases of one (n, nrhs) group: `rot`
 * matrices A (n x n) and right-hand sides B (n x nrhs), lda = ldb = n. */
typedef struct ls_bench_inputs {
    int n, nrhs, rot;
    ls_gen_kind gen;
    double *A[16], *B[16];
} ls_bench_inputs;

/* @return 0, LS_ENOMEM or LS_EINVAL; rotate is capped so the matrices stay
 * under 4 GiB. */
int ls_bench_inputs_make(ls_bench_inputs *in, int n, int nrhs, int rotate, ls_gen_kind gen);
void ls_bench_inputs_free(ls_bench_inputs *in);

void ls_bench_opts_init(ls_bench_opts *b);
int ls_bench_parse_method_list(const char *s, ls_bench_opts *b);
int ls_bench_parse_backend_list(const char *s, ls_bench_opts *b);

/**
 * Measure one case: warm-up, then `repeat` runs rotating over `rotate`
 * generated matrices (fewer when they would not fit in 4 GiB, or when the
 * warm-up shows the runs would pass 2 x time_limit).
 * @return 0 (the result says ok or not) or LS_ENOMEM.
 */
int ls_bench_case(ls_context *ctx, ls_method m, ls_precision p, int n, int nrhs,
                  const ls_bench_opts *b, ls_bench_result *res);

/* Seconds above which a case's warm-up solve is kept as its first measured
 * run (see ls_bench_case_on). */
#define LS_BENCH_LONG_SOLVE 5.0

/* As ls_bench_case, on inputs already generated. */
int ls_bench_case_on(ls_context *ctx, ls_method m, ls_precision p, const ls_bench_inputs *in,
                     const ls_bench_opts *b, ls_bench_result *res);

/* A backend named in --backends could not be made: nothing was measured
 * or written, and the reason is on stderr. */
#define LS_BENCH_RUN_UNAVAILABLE (-2)

/* The whole sweep; rows to f. @return number of failed cases, -1 out of
 * host memory, or LS_BENCH_RUN_UNAVAILABLE. */
int ls_bench_run(const ls_bench_opts *b, FILE *f);

#endif
