/*
 * Every environment variable the library, its plugins and its tools read,
 * in one table (knobs.h explains the columns and the parsing rules;
 * docs/tuning.md is generated from it and checked against it by the test
 * core_knobs). A new variable is a new row here, nowhere else.
 *
 *   X(ID, TYPE, CATEGORY, WHEN, PART, DEFAULT, MIN, MAX, CHOICES, DOC)
 *
 * ID       the variable is "LS_" #ID; the enum value is LS_KNOB_##ID
 * TYPE     INT (base-10 integer in [MIN, MAX]), POW2 (INT that is also a
 *          power of two), BOOL (0/1, off/on, no/yes, false/true), CHOICE
 *          (one of CHOICES, "a|b|c"; the first is the default), STRING
 * CATEGORY TUNING (speed only: every value gives correct results),
 *          BEHAVIOUR (what runs, where, what is printed), TESTING (test hooks)
 * WHEN     ONCE (read with the whole table at the first use of any knob of
 *          the process, then cached) or LIVE (read at every use: tests and
 *          the CLI change these between calls)
 * PART     which part of the project reads it
 * DEFAULT  the value when unset or rejected (INT, POW2, BOOL; else 0)
 *
 * Rows are sorted by name. Built-in thresholds that are not variables
 * (crossover sizes measured on an H100) are listed in docs/tuning.md.
 */
#ifndef LS_CORE_KNOB_TABLE_H
#define LS_CORE_KNOB_TABLE_H

#define LS_KNOB_TABLE(X)                                                                        \
    X(CPU_GETRF, CHOICE, BEHAVIOUR, ONCE, "cpu", 0, 0, 0, "lapack|lu",                          \
      "ls_?getrf/ls_?getrs on a CPU context: the linked LAPACK's (1.7-3.1x the library's LU "   \
      "at n >= 100) or the library's own LU (always, in a build without LAPACKE)")              \
    X(CUDA_BATCHED_GETRS, CHOICE, TUNING, ONCE, "cuda", 0, 0, 0, "auto|smem",                   \
      "kernel of the batched solve that follows a factorization (or getrs): auto keeps the "    \
      "right-hand side in registers, a row a thread, and loads the factor's coefficients of "   \
      "8 steps at once, up to n = 1024; smem: the right-hand side in shared memory, one load "  \
      "a step; for measurements")                                                               \
    X(CUDA_BATCHED_JB, POW2, TUNING, ONCE, "cuda", 0, 8, 32, "",                                \
      "panel width of the blocked batched LU; unset: the widest whose panel fits shared "        \
      "memory (a width that does not fit is ignored); for measurements")                        \
    X(CUDA_BATCHED_NB, INT, TUNING, ONCE, "cuda", 0, 0, 256, "",                                \
      "outer block of the blocked batched LU: its panels' row moves and trailing GEMM reach "   \
      "the columns right of it once, as one rank-NB update; a width that is not a multiple "    \
      "of at least two panel widths gives one level (a rank-jb update a panel); 0 or unset: "   \
      "the CUDA tuning table's bblk_nb (128); for measurements")                                \
    X(CUDA_BATCHED_PANEL, CHOICE, TUNING, ONCE, "cuda", 0, 0, 0, "auto|smem",                   \
      "panel kernel of the blocked batched LU: auto keeps a panel of at most 128 rows in "      \
      "registers, a row a thread, and larger ones in shared memory; smem: shared memory "       \
      "always; for measurements")                                                               \
    X(CUDA_BATCHED_PATH, CHOICE, TUNING, ONCE, "cuda", 0, 0, 0,                                 \
      "auto|thread|warp|rows|smem|blocked|cublas",                                              \
      "factor kernel of the batched LU; a path that cannot take the order falls back to auto's " \
      "choice; for measurements")                                                               \
    X(CUDA_BATCHED_TRANSPOSED, CHOICE, TUNING, ONCE, "cuda", 0, 0, 0, "auto|on|off",            \
      "a row-major gesv stack without pivots asked for, factored as it lies (A^T's LU, then "   \
      "a transposed solve): auto where the factor kernel would not solve in its own pass, on "   \
      "always, off never; for measurements")                                                    \
    X(CUDA_GENP_LOOKAHEAD, BOOL, TUNING, ONCE, "cuda", 1, 0, 1, "",                             \
      "1: the LU without interchanges (mixed precision, rbt) factors step k+1's panel on a "    \
      "second stream beside step k's trailing GEMM; 0: one stream, panel then GEMM")            \
    X(CUDA_GENP_TRSM, CHOICE, TUNING, ONCE, "cuda", 0, 0, 0, "trsm|inverse",                    \
      "off-diagonal blocks of the LU without interchanges (mixed precision, rbt): cuBLAS trsm, " \
      "or products with the inverted diagonal triangles (a trial)")                             \
    X(CUDA_GENP_TRSM_BLOCK, INT, TUNING, ONCE, "cuda", 0, 0, 4096, "",                          \
      "the LU without interchanges' L21 and U12 in diagonal blocks this wide, each followed "   \
      "by a GEMM; 0: one cuBLAS trsm each; for measuring")                                      \
    X(CUDA_GRAPH, BOOL, TUNING, ONCE, "cuda", 1, 0, 1, "",                                      \
      "capture a getrf or getrs repeated on the same pointers as a CUDA graph and replay it, "  \
      "up to the CUDA tuning table's graph_max_n (4096); 0 launches every kernel each time")    \
    X(CUDA_LU_COOP_BLOCKS, INT, TUNING, ONCE, "cuda", 0, 1, 2147483647LL, "",                   \
      "most blocks of a cooperative LU leaf; 0, unset or at least the SM count: one per SM; "   \
      "for measuring the grid barrier's cost")                                                  \
    X(CUDA_LU_DRIVER, CHOICE, TUNING, ONCE, "cuda", 0, 0, 0, "auto|recursive|lookahead",        \
      "LU driver: auto takes the look-ahead driver (cuSOLVER's panel beside our trailing "      \
      "update) from min(m, n) = lookahead_min (the CUDA tuning table) on, the recursive one "  \
      "below")                                                                                  \
    X(CUDA_LU_LASWP, CHOICE, TUNING, ONCE, "cuda", 0, 0, 0, "gather|serial",                    \
      "the look-ahead LU's interchanges on the other columns: gathered into one permutation, "  \
      "or LAPACK's swap by swap; for measuring")                                                \
    X(CUDA_LU_LEAF, CHOICE, TUNING, ONCE, "cuda", 0, 0, 0, "auto|sm|push|cluster|coop|column",  \
      "panel leaf of the recursive LU: auto picks by shape, the others force one where it can " \
      "run (cluster also lifts its 1024-row limit); for measuring")                             \
    X(CUDA_LU_MOVES_PAR, BOOL, TUNING, ONCE, "cuda", 1, 0, 1, "",                               \
      "1: the look-ahead LU turns each panel's swaps into row moves with a thread per swap; "   \
      "0: one thread walks them in order (2-5 % slower from n = 1536 on an H100)")              \
    X(CUDA_LU_NB, INT, TUNING, ONCE, "cuda", 0, 32, 2048, "",                                   \
      "panel width of the look-ahead LU; 0 or unset: 256, 512 from n = 4096, 1024 from "         \
      "n = 8192")                                                                               \
    X(CUDA_LU_PANEL, CHOICE, TUNING, ONCE, "cuda", 0, 0, 0, "auto|ours|xgetrf0|xgetrf1",        \
      "panel of the look-ahead LU: cuSOLVER's getrf, our recursive panel (one-SM leaves where "  \
      "they fit, cooperative ones above), or "                                                  \
      "cuSOLVER's 64-bit Xgetrf with ALG_0 / ALG_1; for measuring")                             \
    X(CUDA_LU_SMALL_BLOCKS, POW2, TUNING, ONCE, "cuda", 0, 1, 16, "",                           \
      "fixes the small-n LU's cluster size, for measurements and tests only (a size the device " \
      "cannot run, or whose blocks the matrix does not fit, falls back to the recursive LU); "  \
      "set, it also keeps the smallest orders on the small-n LU instead of the batched "       \
      "kernels (`lu_batch1_max_n_d/_s`)")                                                       \
    X(CUDA_LU_SMALL_IN_PLACE, INT, TUNING, ONCE, "cuda", 0, 0, 1, "",                           \
      "1: the small-n LU factors in place in device memory even where the matrix fits the "    \
      "cluster's shared memory (gesv then runs getrf and getrs), and takes the smallest "      \
      "orders too (not the batched kernels); for measurements and tests only")                 \
    X(CUDA_LU_SMALL_MAX_N, INT, TUNING, ONCE, "cuda", 1024, 0, 2147483647LL, "",                \
      "the small-n LU (one launch of one cluster, a 32-column panel per cluster barrier) "     \
      "serves square systems with n <= N (at most 1024): in the cluster's shared memory where " \
      "they fit (FP64 up to 512, FP32 to about 800), else getrf in place in device memory; "   \
      "0: off")                                                                                 \
    X(CUDA_LU_SMW, INT, TUNING, ONCE, "cuda", 0, 1, 2147483647LL, "",                           \
      "widest leaf of the one-SM LU leaf; 0, unset or at least LSK_SM_MAXW (32): 32; for "      \
      "measuring the leaf width against the recursion's calls")                                 \
    X(CUDA_LU_TRSM_BLOCK, INT, TUNING, ONCE, "cuda", 128, 0, 4096, "",                          \
      "the look-ahead LU's U12 = L11^-1 A12 in diagonal blocks this wide, each followed by a "  \
      "GEMM (2 % off FP64 n = 16384, the same below); 0: one cuBLAS trsm")                      \
    X(CUDA_MIXED_NB, INT, TUNING, ONCE, "cuda", 0, 1, 2147483647LL, "",                         \
      "panel width of the mixed-precision factorizations; 0 or unset: by n (FP64 without "      \
      "interchanges 256 / 512 / 1024 from n = 8192 / 24576; low precision 256, 512 from 8192)")  \
    X(CUDA_MIXED_RBT_MIN_N, INT, TUNING, ONCE, "cuda", 1024, 0, 2147483646LL, "",               \
      "order from which mixed precision's auto pivoting takes the random butterfly transform "  \
      "with FP64 factors without interchanges (in place of the CUDA tuning table's rbt_min_n, " \
      "whose sm_90 value is the default); 0: never")                                            \
    X(CUDA_MIXED_TF32_MIN_N, INT, TUNING, ONCE, "cuda", 0, 0, 2147483646LL, "",                 \
      "order from which mixed precision's auto factor takes TF32; 0, the default: never (FP32 " \
      "factors need far fewer refinement steps)")                                               \
    X(CUDA_ROW_MOVES, CHOICE, TUNING, ONCE, "cuda", 0, 0, 0, "regs|smem",                       \
      "in-place row moves of the look-ahead LU and the distributed engine: a block keeps its "  \
      "moves in registers over many columns, or a column per warp or block through shared "    \
      "memory (the earlier kernels); for measuring")                                            \
    X(CUDA_STAGE, BOOL, TUNING, ONCE, "cuda", 1, 0, 1, "",                                      \
      "copies between pageable host memory and the device go through two pinned buffers; 0 "   \
      "copies directly")                                                                        \
    X(DEBUG, BOOL, BEHAVIOUR, LIVE, "cli, bench", 0, 0, 1, "",                                  \
      "messages keep where in the source each reason was found (file:line); --verbose sets it") \
    X(DIST_CUDA_BCAST, CHOICE, TUNING, ONCE, "dist (CUDA engine)", 0, 0, 0, "ipc|nccl",         \
      "broadcasts of the distributed CUDA engine between GPUs of one host: ipc, copied by the " \
      "copy engines through CUDA IPC (no SM taken from the update), or NCCL's kernels; ranks " \
      "on several hosts use NCCL")                                                              \
    X(DIST_CUDA_PANEL, CHOICE, TUNING, ONCE, "dist (CUDA engine)", 0, 0, 0, "ours|cusolver",    \
      "panel factorization of the distributed LU's CUDA engine: ours, or cuSOLVER's getrf")    \
    X(DIST_CUDA_PANEL_PRIORITY, BOOL, TUNING, ONCE, "dist (CUDA engine)", 1, 0, 1, "",         \
      "the distributed CUDA engine's look-ahead panel stream runs at the device's highest "    \
      "priority; 0: the default priority")                                                      \
    X(DIST_CUDA_PROFILE, BOOL, BEHAVIOUR, ONCE, "dist (CUDA engine)", 0, 0, 1, "",              \
      "the distributed CUDA engine times its phases with events and reports them")              \
    X(DIST_CUDA_TRSM_BLOCK, INT, TUNING, ONCE, "dist (CUDA engine)", 128, 0, 65536, "",         \
      "U12 = L11^-1 A12 of the distributed CUDA engine in diagonal blocks this wide, the rows " \
      "below each updated by a gemm; 0: one cuBLAS trsm")                                       \
    X(DIST_DEFER_SWAPS, BOOL, TUNING, ONCE, "dist", 1, 0, 1, "",                                \
      "on one process row the distributed LU gives L's columns their interchanges at the end, " \
      "once per block column; 0: at every step")                                                \
    X(DIST_FAULT_ALLOC, INT, TESTING, ONCE, "dist", -1, 0, 2147483647LL, "",                    \
      "the distributed LU's host allocations fail on this rank; -1 or unset: none")             \
    X(DIST_LOOKAHEAD, BOOL, TUNING, ONCE, "dist", 1, 0, 1, "",                                  \
      "the distributed LU factors panel k+1 while panel k's update runs; 0 turns it off")       \
    X(DIST_PANEL, CHOICE, TUNING, ONCE, "dist", 0, 0, 0, "auto|gather|column",                 \
      "panel of the distributed LU on grids with several process rows: gathered whole on "      \
      "every rank of its process column and factored there by the engine's getrf, or searched " \
      "column by column (one pivot allreduce a column); auto gathers on device engines")       \
    X(DIST_TRANSPORT, CHOICE, BEHAVIOUR, ONCE, "dist (CUDA engine)", 0, 0, 0, "auto|nccl|mpi",  \
      "how the distributed CUDA engine moves data between GPUs: auto (NCCL where it can), "     \
      "NCCL or MPI")                                                                            \
    X(FAULT_ALLOC, INT, TESTING, ONCE, "core", 0, 0, 9223372036854775807LL, "",                 \
      "the N-th host allocation of the library in the process fails once; 0 or unset: off")    \
    X(FAULT_CUDA, INT, TESTING, ONCE, "cuda", 0, 0, 9223372036854775807LL, "",                  \
      "the N-th checked CUDA runtime call of the process fails; 0 or unset: off")               \
    X(FAULT_DEVICE, INT, TESTING, ONCE, "cuda", 0, 0, 9223372036854775807LL, "",                \
      "the N-th device allocation of the process fails as out of memory; 0 or unset: off")     \
    X(FAULT_WRITE, INT, TESTING, LIVE, "io", 0, 0, 9223372036854775807LL, "",                   \
      "the N-th write call to an output file fails with ENOSPC; 0 or unset: off; read at "      \
      "each open")                                                                              \
    X(LAPACK_BACKEND, CHOICE, BEHAVIOUR, ONCE, "LAPACK drop-in", 0, 0, 0,                       \
      "auto|system|cpu|cuda|opencl",                                                            \
      "where the LAPACK drop-in runs a call: auto (CUDA from LS_LAPACK_MIN_N on where there is " \
      "a GPU, else the system LAPACK) or the path named; another value: a warning, and auto")   \
    X(LAPACK_MIN_N, INT, TUNING, ONCE, "LAPACK drop-in", 128, 0, 1073741824LL, "",              \
      "order from which auto routes a call to CUDA (LSL_DEFAULT_MIN_N, the measured "           \
      "crossover); not a count: a warning, and the default")                                    \
    X(LAPACK_TRACE, INT, BEHAVIOUR, ONCE, "LAPACK drop-in", 0, 0, 1073741824LL, "",             \
      "above 0: one line per intercepted call on stderr (routine, sizes, path)")                \
    X(LAPACK_VERBOSE, INT, BEHAVIOUR, ONCE, "LAPACK drop-in", 0, 0, 1073741824LL, "",           \
      "above 0: one warning line when a path cannot be taken and the call goes elsewhere")     \
    X(MAX_ELEMENTS, INT, BEHAVIOUR, LIVE, "io", 0, 1, 9223372036854775807LL, "",                \
      "most elements a matrix file may declare; 0 or unset: half the host memory in doubles, "  \
      "at most 2^31")                                                                           \
    X(NO_REEXEC, BOOL, BEHAVIOUR, ONCE, "cli", 0, 0, 1, "",                                     \
      "1: the CLI does not run itself again with OMP_WAIT_POLICY=PASSIVE (it sets this for "    \
      "the run it starts)")                                                                     \
    X(OPENCL_DEVICE, INT, BEHAVIOUR, LIVE, "opencl", -1, 0, 2147483647LL, "",                   \
      "OpenCL device index, in place of the one asked for; not an index of a device found: "   \
      "creating the context fails (LS_EUNAVAIL); -1 or unset: the index asked for")            \
    X(OPENCL_TIMING, CHOICE, BEHAVIOUR, ONCE, "opencl", 0, 0, 0, "auto|wall",                   \
      "phase timing: device events where the device profiles, or clFinish and the wall clock "  \
      "everywhere (to compare the two on one device)")                                         \
    X(PLUGIN_DIR, STRING, BEHAVIOUR, ONCE, "core, dist", 0, 0, 0, "",                           \
      "folder searched first for the backend plugins (then the folder of the library, then "   \
      "the loader's path)")                                                                     \
    X(SCALAPACK_BACKEND, CHOICE, BEHAVIOUR, ONCE, "ScaLAPACK drop-in", 0, 0, 0,                 \
      "linsolve|auto|system|scalapack",                                                         \
      "where the ScaLAPACK drop-in runs a call: linsolve (also auto) or the shadowed "          \
      "ScaLAPACK (system, scalapack); another value: a warning, and linsolve")                 \
    X(SCALAPACK_TRACE, CHOICE, BEHAVIOUR, ONCE, "ScaLAPACK drop-in", 0, 0, 0, "0|1|all",        \
      "one line per intercepted call on stderr: 1 from the root rank, all from every rank")

#endif
