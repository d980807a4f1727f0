/*
 * The backend interface (after ggml): a struct of function pointers plus an
 * opaque context. The core never calls CUDA or OpenCL; it reaches them only
 * through this table. CUDA and OpenCL live in plugins (liblinsolve_cuda.so,
 * liblinsolve_opencl.so) loaded with dlopen, so liblinsolve and the CLI load
 * on machines without a GPU driver.
 *
 * A small core every backend fills, plus role tables (dense, device, mixed,
 * batched, sparse) it fills or leaves NULL; NULL means the fallback named
 * beside them. Measurement requests are not here: a backend answers them
 * from a plugin of their own (core/perf/perf_plugin.h).
 */
#ifndef LS_CORE_BACKEND_H
#define LS_CORE_BACKEND_H

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include "linsolve.h"
#include "core/errlen.h"
#include "core/methods/methods.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 2: the getrs and device-resident slots; 3: gesv; 4: mixed_open; 5: the
 * core services passed to the entry points, the typed perf table, the
 * ls_plugin_abi symbol checked before anything else is called; 6: pivot
 * choices in the mixed problem; 7: the sparse slots; 8: the fused check slot;
 * 9: a core of six slots plus the role tables (dense, device, mixed,
 * batched, sparse) instead of one flat table; 10: no perf slot (the
 * measurement requests moved to their own plugin, core/perf/perf_plugin.h);
 * 11: the batched role's max_n */
#define LS_PLUGIN_ABI 11

struct ls_mixed_problem; /* algo/mixed.h */
struct ls_mixed_ops;
struct ls_batched_job; /* core/batched.h */
struct ls_krylov_sys;  /* algo/krylov.h */
struct ls_kr_ops;

/* One fused check of solved systems in device memory (ls_check_batched_gpu,
 * src/core/api/check_api.c): element (i, j) of system s of a matrix M sits
 * sM * s + m_rs * i + m_cs * j elements from M. X may be NULL (finiteness
 * of A and B only). out: 4 doubles of device memory (linsolve.h). */
typedef struct ls_check_job {
    ls_precision prec;
    int n, nrhs, batch;
    const void *A;
    long long a_rs, a_cs, strideA;
    const void *B;
    long long b_rs, b_cs, strideB;
    const void *X;
    long long x_rs, x_cs, strideX;
    double eps; /* ls_eps(prec) */
    double *out;
} ls_check_job;

/* One dense solve handed to a backend. A and B are host arrays in the
 * working precision (float or double per prec), column-major. The backend
 * may overwrite A (with factors or garbage); B holds X on return. */
typedef struct ls_job {
    ls_method method;  /* never AUTO: the core resolves it */
    ls_precision prec;
    ls_pivot pivot;
    int n, nrhs;
    void *A;
    int lda;
    void *B;
    int ldb;
    int *ipiv;         /* n entries, 1-based on return (direct methods) */
    double rtol, atol; /* iterative */
    int max_iter;
    ls_progress_fn progress; /* may be NULL */
    void *progress_arg;
} ls_job;

/* What a backend fills in a report: info, t_h2d, t_factor, t_solve, t_d2h,
 * iterations, history (malloc'd; the core frees it in ls_report_clear),
 * bytes (model), message. The core fills the rest. */

/* The roles (after ggml's ggml-backend-impl.h, whose backend is a small
 * core plus the tables of what it can do): each is a static const table
 * in the backend's registration file, pointed to from ls_backend_iface or
 * left NULL there. The core tests the role pointer; within a role the
 * required slots are set whenever the role is, and only the slots marked
 * optional are tested again (ls_backend_roles_check refuses a plugin that
 * breaks this when it opens). */

/* Dense solves on host arrays in the backend's own kernels. Every slot is
 * optional; a NULL role or slot means the CPU reference runs instead. */
typedef struct ls_dense_role {
    /* optional: getrf (host arrays in, factors and 1-based ipiv out);
     * NULL -> the CPU reference getrf. The core has checked the arguments
     * as LAPACK does (lapack_check.h) and m, n > 0. */
    int (*getrf)(void *bctx, ls_precision p, int m, int n, void *A, int lda, int *ipiv,
                 int *info, char *err, size_t errlen);

    /* optional: getrs (host arrays in, X out in B; trans 'N' or 'T'; the
     * factors are nonsingular); NULL -> the CPU reference getrs. Arguments
     * checked by the core, n, nrhs > 0. */
    int (*getrs)(void *bctx, ls_precision p, char trans, int n, int nrhs, const void *A, int lda,
                 const int *ipiv, void *B, int ldb, char *err, size_t errlen);

    /* optional: gesv in one pass (A and B up once, factors, ipiv and X
     * down; X only when info is 0, as LAPACK); returns info or a negative
     * status. NULL -> getrf then getrs. */
    int (*gesv)(void *bctx, ls_precision p, int n, int nrhs, void *A, int lda, int *ipiv, void *B,
                int ldb, char *err, size_t errlen);
} ls_dense_role;

/* The device-resident API (ls_context_set_stream, ls_device_*, ls_*_gpu;
 * src/core/api/device_api.c). Required within the role: every slot but
 * check_gpu. The core has checked the arguments; ipiv and info may be host
 * or device memory and the backend tells them apart. NULL role ->
 * LS_EUNSUPPORTED naming the backend. */
typedef struct ls_device_role {
    int (*set_stream)(void *bctx, void *stream, char *err, size_t errlen); /* NULL: own */
    void *(*get_stream)(void *bctx);
    int (*dev_malloc)(void *bctx, void **ptr, size_t bytes, char *err, size_t errlen);
    int (*dev_free)(void *bctx, void *ptr, char *err, size_t errlen);
    /* direction inferred from the pointers; returns once a host buffer
     * involved may be used, device-to-device stays asynchronous */
    int (*dev_copy)(void *bctx, void *dst, const void *src, size_t bytes, char *err,
                    size_t errlen);
    int (*dev_sync)(void *bctx, char *err, size_t errlen);
    /* Return info when it is host memory (or NULL), 0 when it is device
     * memory (written there, asynchronously), -i for a bad pointer. */
    int (*getrf_gpu)(void *bctx, ls_precision p, int m, int n, void *dA, int ldda, int *ipiv,
                     int *info, char *err, size_t errlen);
    int (*getrs_gpu)(void *bctx, ls_precision p, char trans, int n, int nrhs, const void *dA,
                     int ldda, const int *ipiv, void *dB, int lddb, int *info, char *err,
                     size_t errlen);
    int (*gesv_gpu)(void *bctx, ls_precision p, int n, int nrhs, void *dA, int ldda, int *ipiv,
                    void *dB, int lddb, int *info, char *err, size_t errlen);

    /* optional: the fused check of solved device systems, queued on the
     * stream without waiting (ls_check_batched_gpu; arguments checked by
     * the core, n and batch may be 0). Returns 0, -i (linsolve.h's
     * numbering) for a pointer that is not device memory of this device,
     * or a device status. NULL -> LS_EUNSUPPORTED naming the backend. */
    int (*check_gpu)(void *bctx, const ls_check_job *job, char *err, size_t errlen);
} ls_device_role;

/* The mixed-precision solver's operations on device arrays (ls_dsgesv_gpu,
 * and ls_dsgesv through a copy; algo/mixed.h). Needs the device role (its
 * arrays are moved with dev_malloc/dev_copy/dev_free). Required: open.
 * NULL role -> ls_dsgesv runs on the CPU's host operations, ls_dsgesv_gpu
 * is LS_EUNSUPPORTED. */
typedef struct ls_mixed_role {
    int (*open)(void *bctx, struct ls_mixed_problem *pb, const struct ls_mixed_ops **ops,
                void **ws, char *err, size_t errlen);
} ls_mixed_role;

/* Batched getrf / getrs / gesv (core/batched.h), on host or, with
 * job->device, device arrays. Required: run. NULL role -> host arrays run
 * on the CPU fallback, device arrays are LS_EUNSUPPORTED. */
typedef struct ls_batched_role {
    int (*run)(void *bctx, const struct ls_batched_job *job, char *err, size_t errlen);
    /* the planner's hint: above this order a loop of the backend's single
     * solves is faster than its batched kernels, and "auto" takes it (the
     * batched routines themselves still run any n); 0: no limit */
    int max_n;
} ls_batched_role;

/* Sparse solves on the device. Each part is optional: the Krylov pair
 * (both or neither) and the direct solve. */
typedef struct ls_sparse_role {
    /* optional, both or neither: the sparse Krylov methods' vector
     * operations on the device (algo/krylov.h), over a system the core
     * has prepared on the host (equilibrated, permuted, preconditioner
     * factors made): open copies it to the device and fills *ops; close
     * releases ops->ctx. NULL -> ls_csr_solve_iter_ctx is LS_EUNSUPPORTED. */
    int (*krylov_open)(void *bctx, const struct ls_krylov_sys *s, struct ls_kr_ops *ops,
                       char *err, size_t errlen);
    void (*krylov_close)(void *ops_ctx);

    /* optional: a sparse direct solve of host CSR and host B, X (as
     * ls_csr_solve_direct; arguments checked by the core). NULL ->
     * ls_csr_solve_direct_ctx is LS_EUNSUPPORTED. */
    int (*direct)(void *bctx, const ls_csr *A, int nrhs, const double *B, int64_t ldb, double *X,
                  int64_t ldx, ls_csr_direct_report *rep, char *err, size_t errlen);
} ls_sparse_role;

/* The core every backend fills (all but print_info required), and the
 * role tables it fills or leaves NULL. */
typedef struct ls_backend_iface {
    const char *name; /* "cpu", "cuda", "opencl" */
    int abi;          /* LS_PLUGIN_ABI */

    /* Release everything the backend context owns. */
    void (*destroy)(void *bctx);

    /* One line naming the device. */
    void (*device_name)(void *bctx, char *buf, size_t len);

    /* 0 if (method, prec) can run here; else LS_EUNSUPPORTED with why in err. */
    int (*supports)(void *bctx, ls_method m, ls_precision p, char *err, size_t errlen);

    /* The method this backend runs for LS_METHOD_AUTO. */
    ls_method (*auto_method)(void *bctx, ls_precision p);

    /* Run one job. Returns a status (0, info > 0, LS_NOT_CONVERGED, ...);
     * on failure writes a message with file:line into err. The core has
     * checked the job (ls_solve): this backend's `supports` accepted
     * (method, prec), n, nrhs >= 0, lda, ldb >= max(1, n), A and B are set,
     * max_iter >= 1, rep is not NULL. Backends trust it and do not check
     * again; what only the device knows (memory, grid limits) stays theirs. */
    int (*solve)(void *bctx, const ls_job *job, ls_report *rep, char *err, size_t errlen);

    /* optional: print platforms/devices and their properties; NULL -> name only */
    int (*print_info)(void *bctx, FILE *out);

    /* the roles, each optional (NULL: the fallback its struct names) */
    const ls_dense_role *dense;
    const ls_device_role *device;
    const ls_mixed_role *mixed;
    const ls_batched_role *batched;
    const ls_sparse_role *sparse;
} ls_backend_iface;

/* 0 when every core slot and the required slots of each role present are
 * set (and the mixed role comes with the device role); else LS_EUNAVAIL
 * naming the first missing slot in err (context.c, on opening a backend).
 * Not public API: exported for tests/core. */
LS_API int ls_backend_roles_check(const ls_backend_iface *f, char *err, size_t errlen);

/* What the core lends a plugin: the services a backend needs besides its
 * device, so that no plugin carries its own copy of them. Handed to both
 * entry points; valid until the plugin is closed. A plugin checks `abi`. */
typedef struct ls_core_services {
    int abi; /* LS_PLUGIN_ABI of the core that filled it */
    /* names (core/names.c, the method table) */
    const char *(*backend_name)(ls_backend_kind b);
    const char *(*method_name)(ls_method m);
    const char *(*precision_name)(ls_precision p);
    const char *(*strerror)(int status);
    /* the method table: answer `supports` from a declaration (naming the
     * backend and what it runs), and the method to dispatch for an alias */
    int (*methods_check)(ls_backend_kind b, const ls_method_support *list, size_t count,
                         ls_method m, ls_precision p, char *err, size_t errlen);
    ls_method (*methods_resolve)(const ls_method_support *list, size_t count, ls_method m);
    /* the error formatter: "text [file:line]" into err, as LS_FAIL writes
     * it (ls_message_split takes the location off for users); returns status */
    int (*vfail)(char *err, size_t errlen, int status, const char *file, int line,
                 const char *fmt, va_list ap);
    /* monotonic wall clock, seconds */
    double (*now)(void);
} ls_core_services;

/* Every plugin exports three symbols. Before calling anything else the core
 * reads "ls_plugin_abi" (ls_plugin_abi_fn) and refuses a plugin built for
 * another LS_PLUGIN_ABI. "ls_plugin_open" (ls_plugin_open_fn) creates a
 * backend context on device `device`: 0 or a status with a message in err
 * (no device: LS_EUNAVAIL). "ls_plugin_print_info" (ls_plugin_info_fn)
 * lists platforms and devices without opening a context. */
typedef int (*ls_plugin_abi_fn)(void);
typedef int (*ls_plugin_open_fn)(const ls_core_services *core, int device,
                                 const ls_backend_iface **iface, void **bctx, char *err,
                                 size_t errlen);
typedef int (*ls_plugin_info_fn)(const ls_core_services *core, FILE *out);
#define LS_PLUGIN_ABI_ENTRY "ls_plugin_abi"
#define LS_PLUGIN_ENTRY "ls_plugin_open"
#define LS_PLUGIN_INFO_ENTRY "ls_plugin_print_info"

/* The table the core hands to plugins (plugin.c). */
const ls_core_services *ls_core_services_get(void);

/* The CPU backend is built into the library (src/cpu). */
int ls_cpu_backend_open(int device, const ls_backend_iface **iface, void **bctx, char *err,
                        size_t errlen);

/* Plugin loading (src/core/plugin.c): liblinsolve_<ls_backend_name(kind)>.so,
 * its ABI checked. */
int ls_plugin_load(ls_backend_kind kind, ls_plugin_open_fn *open_fn, ls_plugin_info_fn *info_fn,
                   void **handle, char *err, size_t errlen);
/* Is this kind a plugin (CUDA, OpenCL), in the order AUTO tries them? */
int ls_backend_is_plugin(ls_backend_kind kind);

/* Context internals, for the core and for tools inside this repository that
 * need the backend (bench, metrics). */
struct ls_context {
    ls_backend_kind kind;
    int device;
    const ls_backend_iface *iface;
    void *bctx;
    void *plugin_handle;
    char device_name[160];
    char note[256];
    char error[LS_ERRLEN];
    /* One call at a time on a context shared by threads (docs/threads.md):
     * recursive, as a call may make another on the same context. */
    pthread_mutex_t lock;
    int lock_ready;
};

/* Take and release the context's lock around a public call (no-ops for
 * NULL or a context not made by ls_context_create). */
void ls_context_enter(ls_context *ctx);
void ls_context_leave(ls_context *ctx);

/* 0 when ctx opened a device backend (not the CPU); else LS_EUNAVAIL with
 * why in ctx->error, said once (device_api.c; the _gpu entry points). */
int ls_device_backend_open(ls_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
