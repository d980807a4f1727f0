/**
 * @file linsolve_dist.h
 * @brief liblinsolve_dist: distributed dense LU (ScaLAPACK's pxgesv,
 *        pxgetrf, pxgetrs) on a 2-D block-cyclic layout over MPI.
 *
 * The arguments are ScaLAPACK's: a global matrix is described by a 9-entry
 * descriptor (DTYPE=1, CTXT, M, N, MB, NB, RSRC, CSRC, LLD) and each rank
 * passes its local piece; ia/ja (1-based) select the submatrix. The grid
 * is an ls_grid made from an MPI communicator: P x Q ranks in row-major
 * order, as BLACS' Cblacs_gridinit(&ctxt, "Row", P, Q) numbers them, so a
 * ScaLAPACK program's local arrays can be passed unchanged. Its handle
 * value (ls_grid_context) goes in desc[LS_DESC_CTXT], as a BLACS context
 * would.
 *
 * Conventions (ScaLAPACK / LAPACK):
 *  - info = -(i*100 + j): entry j (1-based) of descriptor argument i was
 *    illegal; info = -i: scalar argument i was illegal; every rank of the
 *    grid gets the same info. The trailing ls_grid is not counted.
 *  - info = k > 0: U(ia+k-1, ja+k-1) is exactly zero; the factorization
 *    ran to the end; every rank gets k.
 *  - ipiv is local (LOCr(M_A) + MB_A entries), tied to A's rows: for a
 *    local row i of sub(A), ipiv[i] is the global row (1-based) it was
 *    swapped with; every process column holds the same copy.
 *  - the functions return info, or an LS_E* status (<= -1001, the same on
 *    every rank) when the library failed: out of memory on some rank, MPI
 *    failure; ls_grid_error() then says which rank and why.
 *
 * Collective: every rank of the grid calls each function with consistent
 * arguments. A rank outside the P x Q grid gets info = -(d*100 + 2), the
 * descriptor's context is not its own (ScaLAPACK's answer for NPROW = -1).
 */
#ifndef LINSOLVE_DIST_H
#define LINSOLVE_DIST_H

#include <mpi.h>
#include "linsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Entries of a ScaLAPACK array descriptor (0-based C indices). */
enum {
    LS_DESC_DTYPE = 0, /* 1: dense block-cyclic */
    LS_DESC_CTXT,      /* the grid's ls_grid_context() */
    LS_DESC_M,         /* global rows */
    LS_DESC_N,         /* global columns */
    LS_DESC_MB,        /* row block size */
    LS_DESC_NB,        /* column block size */
    LS_DESC_RSRC,      /* process row of the first row */
    LS_DESC_CSRC,      /* process column of the first column */
    LS_DESC_LLD,       /* local leading dimension */
    LS_DESC_LEN
};

typedef struct ls_grid ls_grid;

/**
 * Make a P x Q process grid from the first P*Q ranks of comm (row-major:
 * rank r is process (r / Q, r % Q)). Collective over comm.
 * @param[out] grid   new grid (NULL on failure)
 * @param[in]  comm   communicator (duplicated; the caller keeps its own)
 * @param[in]  nprow  P >= 1
 * @param[in]  npcol  Q >= 1, P*Q <= size of comm
 * @return 0, -2 / -3 bad P or Q, LS_ENOMEM, or LS_EINTERNAL (MPI failed)
 */
LS_API int ls_grid_create(ls_grid **grid, MPI_Comm comm, int nprow, int npcol);
/** Make a grid from a BLACS context (Cblacs_gridinit): same ranks, same
 *  coordinates, and desc[LS_DESC_CTXT] is that context. Collective over the
 *  BLACS system context's ranks. @return 0, or LS_EUNSUPPORTED where the
 *  library was built without BLACS (ScaLAPACK), LS_EINVAL bad context. */
LS_API int ls_grid_create_blacs(ls_grid **grid, int blacs_context);
LS_API void ls_grid_destroy(ls_grid *grid);
/** P, Q and this rank's coordinates (-1, -1 outside the grid). */
LS_API void ls_grid_info(const ls_grid *grid, int *nprow, int *npcol, int *myrow, int *mycol);
/** The value descriptors carry in LS_DESC_CTXT for this grid. */
LS_API int ls_grid_context(const ls_grid *grid);
/** The grid's communicator (P*Q ranks, row-major), MPI_COMM_NULL outside. */
LS_API MPI_Comm ls_grid_comm(const ls_grid *grid);
/** Last failure of a call on this grid, naming the rank ("" if none). */
LS_API const char *ls_grid_error(const ls_grid *grid);

/**
 * The engine that does each rank's local work: LS_BACKEND_CPU (the
 * default: the rank's BLAS) or LS_BACKEND_CUDA (the rank's GPU: cuBLAS and
 * liblinsolve's device LU, with NCCL between GPUs when every rank has a GPU
 * of its own, else host-staged MPI; LS_DIST_TRANSPORT=nccl|mpi forces one).
 * The CUDA engine is the plugin liblinsolve_dist_cuda.so. Collective over
 * the grid; every rank gets the same status.
 * @param[in] device  CUDA device; -1: the rank's index among the grid's
 *                    ranks on its host, modulo that host's devices
 * @return 0; LS_EUNAVAIL (no plugin, no GPU), LS_EUNSUPPORTED (another
 *         backend), LS_EDEVICE ...; ls_grid_error says which rank and why
 */
LS_API int ls_grid_set_backend(ls_grid *grid, ls_backend_kind backend, int device);
/** The engine's name, e.g. "cpu (CBLAS)" or "cuda:0 NVIDIA H200, nccl". */
LS_API const char *ls_grid_engine_name(const ls_grid *grid);
/** 1 when the engine works on host memory (the CPU), 0 for device memory:
 *  what the _gpu entry points take. */
LS_API int ls_grid_engine_host_memory(const ls_grid *grid);

/** ScaLAPACK's NUMROC: how many of n rows (or columns) in blocks of nb
 *  live on process iproc of nprocs when the first block is on isrcproc. */
LS_API int ls_numroc(int n, int nb, int iproc, int isrcproc, int nprocs);
/** ScaLAPACK's DESCINIT: fill desc[9]; @return info (0, or -i: argument i
 *  of (desc, m, n, mb, nb, irsrc, icsrc, grid, lld), 1-based, is illegal). */
LS_API int ls_descinit(int *desc, int m, int n, int mb, int nb, int irsrc, int icsrc,
                       const ls_grid *grid, int lld);

/**
 * LU with partial pivoting of sub(A) = A(ia:ia+m-1, ja:ja+n-1):
 * sub(A) = P L U. Right-looking, blocked by desc[NB]; needs MB = NB and
 * ia - 1, ja - 1 multiples of it (as pdgetrf does).
 * @param[in]     m, n   sub(A) is m x n
 * @param[in,out] A      local piece of A; on exit L and U of sub(A)
 * @param[in]     ia, ja first row / column of sub(A), 1-based
 * @param[in]     desca  A's descriptor
 * @param[out]    ipiv   local pivots (see the file comment)
 * @param[out]    info   as ScaLAPACK's (see the file comment)
 * @param[in,out] grid   the grid desca's context names
 * @return info, or an LS_E* library failure
 */
LS_API int ls_pdgetrf(int m, int n, double *A, int ia, int ja, const int *desca, int *ipiv,
                      int *info, ls_grid *grid);
LS_API int ls_psgetrf(int m, int n, float *A, int ia, int ja, const int *desca, int *ipiv,
                      int *info, ls_grid *grid);
/**
 * Solve op(sub(A)) X = sub(B) with the factors of ls_p?getrf. trans: 'N'
 * (A X = B), 'T' or 'C' (A^T X = B: the same for real matrices), either
 * case; any other letter is illegal argument 1. B's rows are laid out as
 * A's (MB_B = MB_A, same process row for ib as for ia, ib - 1 a multiple
 * of MB_B); its columns any way.
 * @return info (-i / -(i*100+j) for illegal arguments), or LS_E*
 */
LS_API int ls_pdgetrs(char trans, int n, int nrhs, const double *A, int ia, int ja,
                      const int *desca, const int *ipiv, double *B, int ib, int jb,
                      const int *descb, int *info, ls_grid *grid);
LS_API int ls_psgetrs(char trans, int n, int nrhs, const float *A, int ia, int ja,
                      const int *desca, const int *ipiv, float *B, int ib, int jb,
                      const int *descb, int *info, ls_grid *grid);
/** getrf + getrs ('N'): sub(A) overwritten by its factors, sub(B) by X. */
LS_API int ls_pdgesv(int n, int nrhs, double *A, int ia, int ja, const int *desca, int *ipiv,
                     double *B, int ib, int jb, const int *descb, int *info, ls_grid *grid);
LS_API int ls_psgesv(int n, int nrhs, float *A, int ia, int ja, const int *desca, int *ipiv,
                     float *B, int ib, int jb, const int *descb, int *info, ls_grid *grid);

/** Memory of the grid's engine (device memory on this rank's GPU for the
 *  CUDA engine, host memory for the CPU): what the _gpu entry points take.
 *  @return 0, LS_EDEVMEM / LS_ENOMEM (ls_grid_error says how much) */
LS_API int ls_grid_malloc(ls_grid *grid, void **ptr, size_t bytes);
LS_API void ls_grid_free(ls_grid *grid, void *ptr);
/** bytes (a multiple of 4) from host src to engine dst (to_engine = 1) or
 *  from engine src to host dst (0); returns when done. @return 0 or LS_E* */
LS_API int ls_grid_memcpy(ls_grid *grid, void *dst, const void *src, size_t bytes,
                          int to_engine);
/**
 * The benchmark's peer: cuSOLVERMg (cusolverMgGetrf + Getrs, FP64) on CUDA
 * devices 0 .. ngpus-1 of this host, run by the calling process alone, for
 * `linsolve gen KIND -n N --seed S`'s matrix and b = A * ones, in its 1-D
 * block-cyclic column layout of width nb. One untimed warm-up, then repeat
 * timed runs (A on the devices before each); seconds = their median; the
 * residual is linsolve's scaled residual against A generated again.
 * @return 0; LS_EUNAVAIL (no CUDA plugin or device), LS_EDEVMEM, ...;
 *         err says why
 */
LS_API int ls_peer_cusolvermg(ls_gen_kind kind, uint64_t seed, int n, int nb, int ngpus,
                              int repeat, double *seconds, double *residual, int *info, char *err,
                              size_t errlen);

/**
 * The same three with the local pieces (A, B) in the memory of the grid's
 * engine: device memory on the rank's GPU for the CUDA engine (MAGMA's _gpu
 * convention), host memory for the CPU engine. ipiv and info stay in host
 * memory. The host-memory entry points above copy the local pieces to the
 * device and back around these.
 */
LS_API int ls_pdgetrf_gpu(int m, int n, double *dA, int ia, int ja, const int *desca, int *ipiv,
                          int *info, ls_grid *grid);
LS_API int ls_psgetrf_gpu(int m, int n, float *dA, int ia, int ja, const int *desca, int *ipiv,
                          int *info, ls_grid *grid);
LS_API int ls_pdgetrs_gpu(char trans, int n, int nrhs, const double *dA, int ia, int ja,
                          const int *desca, const int *ipiv, double *dB, int ib, int jb,
                          const int *descb, int *info, ls_grid *grid);
LS_API int ls_psgetrs_gpu(char trans, int n, int nrhs, const float *dA, int ia, int ja,
                          const int *desca, const int *ipiv, float *dB, int ib, int jb,
                          const int *descb, int *info, ls_grid *grid);
LS_API int ls_pdgesv_gpu(int n, int nrhs, double *dA, int ia, int ja, const int *desca,
                         int *ipiv, double *dB, int ib, int jb, const int *descb, int *info,
                         ls_grid *grid);
LS_API int ls_psgesv_gpu(int n, int nrhs, float *dA, int ia, int ja, const int *desca,
                         int *ipiv, float *dB, int ib, int jb, const int *descb, int *info,
                         ls_grid *grid);

/**
 * Copy a whole global m x n matrix between one rank and its block-cyclic
 * layout (desc[LS_DESC_M] x desc[LS_DESC_N]). Collective over the grid.
 * @param[in] root  grid rank (row-major) that holds the global matrix
 * @param[in] G     the global matrix on root (ignored elsewhere), leading
 *                  dimension ldg >= M on root
 * @param[in,out] A the local piece (scatter writes it, gather reads it)
 * @return 0, -i illegal argument i, or LS_E*
 */
LS_API int ls_pdscatter(int root, const double *G, int ldg, double *A, const int *desc,
                        ls_grid *grid);
LS_API int ls_psscatter(int root, const float *G, int ldg, float *A, const int *desc,
                        ls_grid *grid);
LS_API int ls_pdgather(int root, double *G, int ldg, const double *A, const int *desc,
                       ls_grid *grid);
LS_API int ls_psgather(int root, float *G, int ldg, const float *A, const int *desc,
                       ls_grid *grid);

/**
 * Generate ls_generate(kind, n, ..., seed)'s n x n matrix in place (n =
 * desca[M] = desca[N]): each rank fills only its own blocks, bit for bit
 * the serial matrix, whatever the grid (ls_generate_block; the kinds of
 * ls_gen_is_local, others LS_EUNSUPPORTED). With B: every column of B =
 * A * ones, each row summed in column order (as `linsolve solve` makes b),
 * B's rows laid out as A's. Collective.
 * @param[out] A  local piece of A (desca); B, descb may be NULL
 * @return 0, -i / -(i*100+j) illegal argument, LS_EUNSUPPORTED, LS_E*
 */
LS_API int ls_pdgenerate(ls_gen_kind kind, uint64_t seed, double *A, const int *desca, double *B,
                         const int *descb, ls_grid *grid);
/**
 * The scaled residual ||B - A X||inf / (n ||A||inf ||X||inf eps) (as
 * ls_scaled_residual) of A (n x n at (1,1) of desca) and X, B (n x nrhs,
 * rows laid out as A's, X and B alike), by a distributed product: X is
 * assembled on every rank (n x nrhs), A never is. The same *resid on
 * every rank. Collective.
 * @return 0, -i / -(i*100+j) illegal argument, or LS_E*
 */
LS_API int ls_pdresidual(int n, int nrhs, const double *A, const int *desca, const double *X,
                         const int *descx, const double *B, const int *descb, double *resid,
                         ls_grid *grid);

#ifdef __cplusplus
}
#endif
#endif
