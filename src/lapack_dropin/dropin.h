/*
 * liblinsolve_lapack.so: LAPACK's dgesv_/dgetrf_/dgetrs_ (and s) under the
 * same names and interfaces, routed to linsolve (GPU, or its CPU LU) or to
 * the system LAPACK this library shadows. Everything here is internal
 * (hidden); entry.c exports the six Fortran symbols.
 *
 *   entry.c / entry_impl.h  the exported symbols, one source for both precisions
 *   dispatch.c              LAPACK's argument checks, routing, fallback, trace
 *   config.c                environment, the lazily created contexts, fork
 *   system.c                the shadowed LAPACK (RTLD_NEXT / liblapack.so.3), xerbla_
 */
#ifndef LSL_DROPIN_H
#define LSL_DROPIN_H

#include <stddef.h>

#include "linsolve.h"

#define LSL_EXPORT __attribute__((visibility("default")))

/* The H100 crossover (bench/results/h100/lapack-crossover.csv): the GPU
 * path, transfers included, beats 16-core OpenBLAS at every n >= 128 in
 * both precisions (FP64 already from 64). */
#define LSL_DEFAULT_MIN_N 128

typedef enum lsl_op { LSL_GESV, LSL_GETRF, LSL_GETRS } lsl_op;

/* Where a call runs. AUTO is a mode, never the path of a call. */
typedef enum lsl_path {
    LSL_PATH_SYSTEM,
    LSL_PATH_CPU,
    LSL_PATH_CUDA,
    LSL_PATH_OPENCL,
    LSL_PATH_AUTO,
    LSL_PATH_ILLEGAL /* an argument check failed: xerbla_ was called */
} lsl_path;

/* One intercepted call, whatever its routine and precision. */
typedef struct lsl_args {
    lsl_op op;
    ls_precision prec;
    char trans; /* getrs */
    int m, n, nrhs, lda, ldb;
    void *a;
    int *ipiv;
    void *b;
    int *info;
} lsl_args;

/* dispatch.c: runs one call start to end (info set, trace written). */
void lsl_dispatch(lsl_args *x);

/* config.c */
typedef struct lsl_config {
    lsl_path mode; /* LS_LAPACK_BACKEND, default AUTO */
    int min_n;     /* LS_LAPACK_MIN_N */
    int verbose;   /* LS_LAPACK_VERBOSE */
    int trace;     /* LS_LAPACK_TRACE */
} lsl_config;
const lsl_config *lsl_config_get(void);
/* The context for a linsolve path, created on first use; NULL if it cannot
 * be had (warned once with LS_LAPACK_VERBOSE=1). A non-NULL result must be
 * handed back with lsl_context_release on the same thread. A GPU context is
 * shared and runs one call at a time; the CPU context is the calling
 * thread's own, so CPU calls of different threads run at once. */
ls_context *lsl_context_acquire(lsl_path path);
void lsl_context_release(lsl_path path);
/* A buffer of at least `bytes` for one call's safety copy, valid while the
 * path's context is held; free it only when *owned is set. NULL: no memory. */
void *lsl_save_buffer(lsl_path path, size_t bytes, int *owned);
/* A device failure: stop using that context in this process. */
void lsl_context_disable(lsl_path path, const char *why);
/* This thread ran linsolve's CPU LU (OpenMP): see config.c on fork. */
void lsl_note_cpu_lu(void);
/* One line on stderr when LS_LAPACK_VERBOSE is set; once per `key`. */
void lsl_warn_once(int key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
enum { LSL_WARN_NO_CUDA = LSL_PATH_CUDA, LSL_WARN_NO_OPENCL = LSL_PATH_OPENCL,
       LSL_WARN_NO_CPU = LSL_PATH_CPU, LSL_WARN_NO_SYSTEM = 8, LSL_WARN_FALLBACK, LSL_WARN_ENV,
       LSL_WARN_KEYS_ };
const char *lsl_path_name(lsl_path p);

/* system.c: the shadowed LAPACK's routine for (op, prec), never one of
 * ours; NULL if the process has no other LAPACK. */
void *lsl_system_routine(lsl_op op, ls_precision prec);
/* config.c: around a call into the system LAPACK, so that fork() waits for
 * it (a child forked inside one inherits the LAPACK's own locks held);
 * nested calls on one thread enter once. */
void lsl_system_enter(void);
void lsl_system_leave(void);
/* LAPACK's error report: the process's xerbla_ (the program's own if it has
 * one, as LAPACK would call), else one line on stderr. */
void lsl_xerbla(const char *routine, int position);

#endif
