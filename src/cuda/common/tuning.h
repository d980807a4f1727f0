/*
 * The CUDA backend's measured crossovers, one row per GPU architecture
 * (keyed by compute capability), chosen once when the plugin opens a
 * context (ls_cuda_ctx.tune) and read from there by the code that decides;
 * the model is MAGMA's control/get_nb.cpp and BLIS's one
 * bli_cntx_init_<arch>.c per configuration. tuning.c holds the rows;
 * docs/tuning.md lists every field with its sm_90 value (test
 * core_knobs_docs checks the two agree) and `linsolve info` prints the row
 * of each device.
 *
 * Plain C with no CUDA header, so that a test can link the table without
 * the toolkit (tests/core/test_cuda_tuning.c).
 */
#ifndef LS_CUDA_TUNING_H
#define LS_CUDA_TUNING_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lsc_tuning {
    const char *name;     /* "sm_90", or "default" for an architecture without a row */
    int cc_major, cc_minor; /* the compute capability the row is for (-1: any) */
    const char *measured; /* where the values were measured */

    /* LU (lu/getrf.c): the look-ahead driver (cuSOLVER's panel beside our
     * trailing update) from min(m, n) = this on, the recursive one with
     * one-SM leaves below. H100, both replayed as graphs, the look-ahead's
     * interchanges gathered, FP64: 2.51 vs 2.56 ms at 1024, 6.82 vs 6.12
     * at 2048, 19.3 vs 15.1 at 4096. LS_CUDA_LU_DRIVER forces one. */
    int lookahead_min;
    /* LU (lu/getrf_impl.h): tallest panel the thread-block-cluster leaf (8
     * blocks) takes; it beats the cooperative leaf on short panels only.
     * H100, n = 1024: 4.33 vs 4.53 ms FP64, 3.87 vs 4.26 ms FP32; n = 4096
     * with cluster leaves up to 4096 rows: 24.7 vs 22.2 ms.
     * LS_CUDA_LU_LEAF=cluster lifts the limit. */
    int cluster_rows;
    /* LU (lu/getrf_impl.h): tallest panel the push leaf takes; it beats the
     * cooperative leaf up to about this many rows (H100: n = 256..1024 4-9 %
     * faster, 4096 7 % slower). */
    int push_rows;
    /* LU (lu/getrs.c, lsc_gesv_fused): a single system of at most this
     * order (FP64, FP32) is solved by the batched kernels as a stack of
     * one, in one launch, and by the small-n LU above. H100 (commit
     * 0f92c26, bench --batched --batch-max 1 against bench
     * --lu-vs-cusolver's first call, same session), ms: FP64 n = 16 0.017
     * against 0.025, 32 0.046 against 0.041; FP32 n = 32 0.031 against
     * 0.040, 64 0.055 against 0.078, 96 0.104 against 0.112, 128 0.146
     * against 0.150, 129 0.219 against about 0.16. */
    int lu_batch1_max_n_d;
    int lu_batch1_max_n_s;
    /* LU (lu/lu_graph.c): a getrf or getrs repeated on the same pointers is
     * replayed as a CUDA graph up to this order, run directly above, where
     * the graph was slower. H200 (commit b98c5ee,
     * bench/results/h200/lu-vs-cusolver.csv), FP64 ms, direct (the first
     * call's column) against replay: 2048 5.78/5.63, 4096 13.90/13.61,
     * 8192 37.23/37.43, 16384 124.7/131.4, 32768 650.6/682.9; FP32 alike
     * (the H100's run of f9c6ef8 too). */
    int graph_max_n;
    /* Batched LU (batched/batched_impl.h): a matrix per thread from this
     * order up to bthread_max_n (with at most LSK_BTHREAD_MAXRHS fused
     * right-hand sides), a warp segment per matrix outside. H100, batch
     * 1e5, FP64/FP32 ms, thread against warp: n = 2 0.016/0.016 against
     * 0.016/0.013, n = 5 0.041/0.023 against 0.049/0.037, n = 8
     * 0.084/0.048 against 0.067/0.049. */
    int bthread_min_n;
    int bthread_max_n;
    /* Batched LU (batched/batched_impl.h): above the warp segment's 32, a
     * block per matrix with its rows in registers up to these orders (FP64
     * at most 64, FP32 at most 128), the shared-memory kernel above. H100,
     * ms, rows against shared memory (commit 11a9261): FP64 n = 33
     * 4.28/7.13, 48 6.39/11.00; FP32 n = 33 2.38/6.56, 65 9.73/17.03, 96
     * 7.19/12.38 (bench/results/h100/batched-rows-variants.txt). */
    int brows_max_n_d;
    int brows_max_n_s;
    /* Batched LU (batched/batched_impl.h): FP64 factors by panels from this
     * order on, a block per whole matrix below (H100, n = 128: FP64 16.2 ms
     * against 29.1, FP32 12.1 against 11.4, so FP32 keeps the block per
     * matrix while it fits; batched-variants.txt). */
    int bblk_min_n;
    /* Batched LU by panels (batched/batched_blocked_impl.h): the outer
     * block, a multiple of the panel width, whose panels' row moves and
     * trailing GEMM reach the columns right of it once (one rank-128
     * update instead of four to eight of rank 16-32); not a multiple of
     * two panel widths or more: one level. H100, ms, one level against
     * 128 (commit b4bcb38): FP64 n = 256 15.83/14.89, 512 23.62/18.90,
     * 1024 54.88/29.57; FP32 10.77/10.29, 14.22/11.80, 26.03/20.06; 64
     * slower everywhere, 256 slower in FP64 and level in FP32
     * (bench/results/h100/batched-nb-variants.txt). */
    int bblk_nb;
    /* Mixed precision (mixed/mixed_cuda.c): auto pivoting takes the random
     * butterfly transform with FP64 factors without interchanges from this
     * order (0: never); LS_CUDA_MIXED_RBT_MIN_N, when set, replaces it,
     * and its documented default repeats the sm_90 value (test
     * core_cuda_tuning checks).
     * H100 (bench/notes/mixed-cuda.md): 1.36-1.66x cuSOLVER's dgetrf at
     * 1024-8192, 1.3-1.4x at 16384, the first solve already passing the
     * FP64 test up to cond 1e10. */
    int rbt_min_n;
    /* Mixed precision (mixed/mixed_factor.c): TF32 factors whose diagonal
     * spread max|u_ii| / min|u_ii| times TF32's unit roundoff (2^-11)
     * exceeds this are redone in FP32, where refinement would crawl. A
     * heuristic (U's diagonal spread is a lower estimate of cond(A)), not a
     * timing. */
    double mx_escalate;
} lsc_tuning;

/* The row for compute capability major.minor: its own where the table has
 * one, else the default row. Never NULL; the rows live as long as the
 * process. */
const lsc_tuning *lsc_tuning_for(int cc_major, int cc_minor);

/* Every row of the table, the default row last; *count gets their number. */
const lsc_tuning *lsc_tuning_rows(int *count);

/* One field of lsc_tuning, for printing and comparing rows field by field. */
typedef struct lsc_tuning_field {
    const char *name; /* the member's name: "bblk_min_n" */
    int is_double;    /* 1: a double member, 0: an int */
    size_t offset;    /* offsetof(lsc_tuning, member) */
} lsc_tuning_field;
const lsc_tuning_field *lsc_tuning_fields(int *count);
/* The field's value as a double (ints convert exactly). */
double lsc_tuning_value(const lsc_tuning *t, const lsc_tuning_field *f);

/* The row's name and every field with its value, one per line, each line
 * starting with indent. */
void lsc_tuning_print(const lsc_tuning *t, FILE *out, const char *indent);

#ifdef __cplusplus
}
#endif
#endif
