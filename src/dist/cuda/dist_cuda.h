/*
 * liblinsolve_dist_cuda.so: the CUDA side of liblinsolve_dist, a plugin of
 * its own (dlopen'd by engine_open.c) so that liblinsolve_dist, and every
 * program that links it, never needs the CUDA runtime to start.
 *
 * It holds the CUDA local engine (engine_cuda.c: blocks in device memory,
 * cuBLAS and liblinsolve's own device LU on one stream, NCCL or host-staged
 * MPI for the transport) and the cuSOLVERMg peer of the benchmark
 * (peer_cusolvermg.c).
 */
#ifndef LS_DIST_CUDA_H
#define LS_DIST_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "../engine.h"

#define LS_DIST_CUDA_ABI 1

/* The plugin's two entry points are all it exports. */
#if defined(__GNUC__)
#define LS_DIST_CUDA_API __attribute__((visibility("default")))
#else
#define LS_DIST_CUDA_API
#endif

/* Transports between ranks' device buffers. */
enum { LS_DIST_TRANSPORT_AUTO = 0, LS_DIST_TRANSPORT_NCCL = 1, LS_DIST_TRANSPORT_MPI = 2 };

/*
 * The engine of this rank on CUDA device `device`, its transport over the
 * grid's row and column communicators (collective over both: NCCL's
 * communicators are made here). AUTO: NCCL when every rank of the grid has
 * a device of its own, host-staged MPI otherwise. 0, or an LS_E* status
 * with a message in err. The engine's destroy slot releases it.
 */
typedef int (*ls_dist_cuda_open_fn)(int abi, int device, MPI_Comm grid, MPI_Comm row,
                                    MPI_Comm col, int transport, ls_dist_engine **out,
                                    char *err, size_t errlen);
LS_DIST_CUDA_API int ls_dist_cuda_open(int abi, int device, MPI_Comm grid, MPI_Comm row,
                                       MPI_Comm col, int transport, ls_dist_engine **out,
                                       char *err, size_t errlen);

/* The benchmark's peer: cuSOLVERMg on the GPUs of one host, run by one process. */
typedef struct ls_dist_peer_args {
    int kind;          /* an ls_gen_kind with ls_gen_is_local(kind) */
    uint64_t seed;     /* A = linsolve gen KIND -n N --seed S, b = A*ones */
    int n;             /* order */
    int nb;            /* column block of cuSOLVERMg's 1-D block-cyclic layout */
    int ngpus;         /* devices 0 .. ngpus-1 */
    int repeat;        /* timed runs after one untimed warm-up; the median is kept */
} ls_dist_peer_args;

typedef struct ls_dist_peer_result {
    double seconds;    /* median wall time of getrf + getrs, A already on the devices */
    double residual;   /* ||b - A x||inf / (n ||A||inf ||x||inf eps), A generated again */
    int info;          /* cuSOLVERMg's getrf info (> 0: zero pivot) */
    char error[256];   /* why status != 0 */
} ls_dist_peer_result;

typedef int (*ls_dist_cuda_peer_fn)(int abi, const ls_dist_peer_args *a, ls_dist_peer_result *r);
/* 0, or an LS_E* status with r->error set (LS_EDEVMEM when it does not fit). */
LS_DIST_CUDA_API int ls_dist_cuda_peer_cusolvermg(int abi, const ls_dist_peer_args *a,
                                                  ls_dist_peer_result *r);

#endif
