/*
 * Internals of the OpenCL backend plugin: the backend context, error
 * helpers and the per-method host drivers. Nothing here is seen by the core,
 * which reaches the plugin only through ls_plugin_open (ocl_backend.c).
 */
#ifndef LS_OCL_INTERNAL_H
#define LS_OCL_INTERNAL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>

#include "core/backend.h"
#include "linsolve.h"
#include "ocl_timer.h"

/* Kernel families: one kernels/<family>.cl each, embedded at build time. */
typedef enum ocl_family {
    OCL_FAM_ROWOPS = 0, /* pivot search, row swap, back substitution (row-major) */
    OCL_FAM_GE_SEED,    /* Li 2025: naive, blocked, coalesced elimination */
    OCL_FAM_PINGPONG,   /* TendTo: buffer ping-pong frames */
    OCL_FAM_IMAGE,      /* TendTo: image ping-pong frames (float only) */
    OCL_FAM_GE_LOCAL,   /* TendTo: whole system in local memory */
    OCL_FAM_GJ,         /* Quispe Ccapacca: Gauss-Jordan models 1 and 2 */
    OCL_FAM_LU,         /* LU with partial pivoting, column-major, + getrs */
    OCL_FAM_BATCHED,    /* a stack of systems: LU and solves, a work-group each */
    OCL_FAM_COUNT_
} ocl_family;

typedef struct ocl_ctx {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue; /* in order; with profiling when the device allows (ocl_timer.c) */
    int profiling;          /* 1: phases timed by marker events, 0: clFinish + wall clock */
    int index; /* across all platforms, in enumeration order */
    char name[160];
    cl_device_type type;
    cl_uint compute_units;
    cl_ulong global_mem, local_mem, max_alloc;
    size_t max_wg;
    int has_fp64;
    int has_images;
    size_t image2d_max_w, image2d_max_h;
    /* Built programs, built on first use: [family][ls_precision]. */
    cl_program programs[OCL_FAM_COUNT_][2];
} ocl_ctx;

/* The core's services (core/backend.h): names, the method table, the error
 * formatter, the clock. Lent at the entry points, which set it before
 * anything else runs (ocl_backend.c). */
void ocl_core_set(const ls_core_services *core);
const ls_core_services *ocl_core(void);

/* "text [file:line]" into err, through the core's formatter; returns status. */
int ocl_fail(char *err, size_t errlen, int status, const char *file, int line, const char *fmt,
             ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
#define OCL_FAIL(status, ...) ocl_fail(err, errlen, (status), __FILE__, __LINE__, __VA_ARGS__)

/* CL_SUCCESS -> 0; allocation failures -> LS_EDEVMEM / LS_ENOMEM; rest LS_EDEVICE. */
int ocl_status_of(cl_int e);
const char *ocl_error_name(cl_int e);
int ocl_cl_fail(char *err, size_t errlen, cl_int e, const char *file, int line, const char *call);

/* Every OpenCL call in a function that keeps `int st` and a `done:` label
 * for its cleanup goes through CL_CHECK, so no call's error is dropped and
 * resources are still released. */
#define CL_CHECK(call)                                                       \
    do {                                                                     \
        cl_int cl_check_e_ = (call);                                         \
        if (cl_check_e_ != CL_SUCCESS) {                                     \
            st = ocl_cl_fail(err, errlen, cl_check_e_, __FILE__, __LINE__, #call); \
            goto done;                                                       \
        }                                                                    \
    } while (0)
/* Same for a helper that already returns a status and wrote err. */
#define LS_CHECK(call)       \
    do {                     \
        st = (call);         \
        if (st != 0)         \
            goto done;       \
    } while (0)
#define CL_ARG(kernel, index, value) \
    CL_CHECK(clSetKernelArg((kernel), (index), sizeof(value), &(value)))
#define CL_LOCAL_ARG(kernel, index, bytes) CL_CHECK(clSetKernelArg((kernel), (index), (bytes), NULL))

/* The core's monotonic clock, seconds (the timer's fallback). */
#define ocl_now() (ocl_core()->now())
size_t ocl_pow2_floor(size_t x);
size_t ocl_round_up(size_t x, size_t multiple);

/* Program cache and kernels. */
int ocl_kernel_get(ocl_ctx *c, ocl_family fam, ls_precision p, const char *name, cl_kernel *k,
                   size_t *wg, char *err, size_t errlen);
void ocl_programs_release(ocl_ctx *c);

/* Buffers: checks the device's single-allocation limit; failures become
 * LS_EDEVMEM naming the bytes asked. */
int ocl_buffer(ocl_ctx *c, size_t bytes, cl_mem *out, const char *what, char *err, size_t errlen);
/* 1-D launch of `count` work-items (rounded up to the group size). */
int ocl_launch1(ocl_ctx *c, cl_kernel k, size_t count, size_t local, char *err, size_t errlen);
/* 2-D launch: dim 0 count0 (fastest), dim 1 count1; local may be 0 (runtime's choice). */
int ocl_launch2(ocl_ctx *c, cl_kernel k, size_t count0, size_t count1, size_t local0,
                size_t local1, char *err, size_t errlen);
/* Largest power of two <= min(wg, cap), at least 1: reduction group size. */
size_t ocl_group_size(size_t wg, size_t cap);
/* A 2-D group of at most min(wg, 64) work-items shaped to count0. */
void ocl_local2(size_t wg, size_t count0, size_t *local0, size_t *local1);
/* Square tile edge for a 2-D kernel whose group allows wg work-items. */
size_t ocl_tile_edge(size_t wg);

/* Device discovery (ocl_device.c). */
int ocl_context_open(int device, ocl_ctx **out, char *err, size_t errlen);
void ocl_context_close(ocl_ctx *c);
int ocl_print_platforms(FILE *out);

/* Row-major augmented [A | B] on the device (ocl_rowmajor.c). */
typedef struct ocl_system {
    int n, nrhs, w; /* w = n + nrhs: row length */
    ls_precision prec;
    size_t es; /* element size */
    size_t bytes; /* n * w * es */
} ocl_system;

int ocl_system_init(ocl_system *s, const ls_job *job, char *err, size_t errlen);
/* Transposes the job's A and B into a malloc'd row-major n x w block. */
int ocl_system_pack(const ocl_system *s, const ls_job *job, void **host, char *err,
                    size_t errlen);
/* Column-major n x nrhs device X -> host B (ldb). */
int ocl_read_x(ocl_ctx *c, const ocl_system *s, cl_mem X, const ls_job *job, char *err,
               size_t errlen);
/* Device 0-based pivot rows -> job->ipiv, 1-based. */
int ocl_read_ipiv(ocl_ctx *c, int n, cl_mem piv, int *ipiv, char *err, size_t errlen);
int ocl_read_info(ocl_ctx *c, cl_mem info, int *value, char *err, size_t errlen);

/* The row-major kernels every GE/GJ variant shares (kernels/rowops.cl). */
typedef struct ocl_rowops {
    cl_kernel pivot, swap, backsub;
    size_t pivot_local, swap_local, backsub_local;
} ocl_rowops;

int ocl_rowops_get(ocl_ctx *c, ls_precision p, ocl_rowops *r, char *err, size_t errlen);
void ocl_rowops_release(ocl_rowops *r);
/* Step k's pivot: search (or, search == 0, take the diagonal), record info,
 * and with do_swap exchange rows k and piv[k] from column k on. No host sync. */
int ocl_pivot_step(ocl_ctx *c, ocl_rowops *r, const ocl_system *s, cl_mem M, int k, int search,
                   cl_mem piv, cl_mem info, int do_swap, char *err, size_t errlen);
/* X (column-major n x nrhs) from the upper-triangular rows. layout 0: all
 * rows in M0; layout 1: ping-pong, final row i in M[(i+1)%2] (i < n-1) and
 * row n-1 in M[(n-1)%2]. One work-group per right-hand side. */
int ocl_back_substitute(ocl_ctx *c, ocl_rowops *r, const ocl_system *s, cl_mem M0, cl_mem M1,
                        int layout, cl_mem X, char *err, size_t errlen);
/* Device buffers every row-major driver needs. */
typedef struct ocl_rm_buffers {
    cl_mem M, piv, info, X;
} ocl_rm_buffers;
int ocl_rm_alloc(ocl_ctx *c, const ocl_system *s, ocl_rm_buffers *b, char *err, size_t errlen);
void ocl_rm_release(ocl_rm_buffers *b);
/* The packed [A | B] (ocl_system_pack) into M and info = 0. */
int ocl_rm_write(ocl_ctx *c, const ocl_system *s, const void *host, cl_mem M, cl_mem info,
                 char *err, size_t errlen);
/* Pack [A | B] on the host, then mark ev[OCL_EV_START], upload it into M,
 * zero info, mark ev[OCL_EV_H2D]. */
int ocl_rm_upload(ocl_ctx *c, const ocl_system *s, const ls_job *job, cl_mem M, cl_mem info,
                  ocl_tick *ev, char *err, size_t errlen);
/* Read X back (only when info is 0, as LAPACK) and the pivots; mark
 * ev[OCL_EV_D2H]. */
int ocl_rm_download(ocl_ctx *c, const ocl_system *s, const ocl_rm_buffers *b, const ls_job *job,
                    int info, ocl_tick *ev, char *err, size_t errlen);

/* Per-method drivers: mark the phase boundaries in ev[OCL_EV_COUNT_]
 * (ocl_timer.h; the caller reads and releases them), return 0 / info / status. */
int ocl_solve_ge_pingpong(ocl_ctx *c, const ls_job *job, ocl_tick *ev, char *err,
                          size_t errlen);
int ocl_solve_ge_local(ocl_ctx *c, const ls_job *job, ocl_tick *ev, char *err, size_t errlen);
/* The published methods (ge-naive, ge-blocked, ge-coalesced, gj1, gj2): the
 * shared driver (gpu/gpu_driver.h) over this backend's primitives
 * (ocl_seed_prims.c); fills rep's times itself. */
int ocl_solve_seed(ocl_ctx *c, const ls_job *job, ocl_tick *ev, ls_report *rep, char *err,
                   size_t errlen);
int ocl_solve_lu(ocl_ctx *c, const ls_job *job, ocl_tick *ev, char *err, size_t errlen);
int ocl_getrf(void *bctx, ls_precision p, int m, int n, void *A, int lda, int *ipiv, int *info,
              char *err, size_t errlen);
/* The batched role's run (ocl_batched.c): host stacks; device arrays are
 * LS_EUNSUPPORTED. */
struct ls_batched_job;
int ocl_batched(void *bctx, const struct ls_batched_job *job, char *err, size_t errlen);

#endif
