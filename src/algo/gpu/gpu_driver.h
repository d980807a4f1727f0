/*
 * The GPU backends' shared drivers (MAGMA's split: the algorithm once, the
 * kernels per backend). A driver is host code over a table of device
 * primitives that each GPU backend fills with its own kernels; it never
 * touches an element, so it has no precision: the backend binds the job's
 * precision once, in `begin`. The sources here are compiled into each GPU
 * plugin (src/cuda/CMakeLists.txt, src/opencl/CMakeLists.txt).
 */
#ifndef LS_GPU_DRIVER_H
#define LS_GPU_DRIVER_H

#include <stddef.h>

#include "core/backend.h"
#include "linsolve.h"

/* The phase boundaries a driver marks on the backend's in-order queue, in
 * this order (docs/architecture.md, "Measurement code"). */
typedef enum lsg_phase {
    LSG_START = 0, /* before the first upload (host-side packing already done) */
    LSG_H2D,       /* the system and info on the device */
    LSG_FACTOR,    /* the elimination enqueued and finished */
    LSG_SOLVE,     /* triangular solves / back substitution (unmarked when skipped) */
    LSG_D2H,       /* X and the pivots back on the host */
    LSG_PHASES
} lsg_phase;

/* Seconds from mark a to mark b, as the backend's clock reads them. */
typedef double (*lsg_elapsed_fn)(void *q, lsg_phase a, lsg_phase b);

/* The one timing rule of the GPU backends: rep's t_h2d, t_factor, t_solve,
 * t_d2h from the marks set in `marked` (bit 1 << phase). A phase whose end
 * is unmarked reads 0, and the next one runs from the last mark. */
void lsg_phases_report(lsg_elapsed_fn elapsed, void *q, unsigned marked, ls_report *rep);

/* Calls job->progress about 32 times a solve (no device sync). */
void lsg_progress(const ls_job *job, int k, int n);

/*
 * The device primitives of the published methods (ge-naive, ge-blocked,
 * ge-coalesced, gj1, gj2 on the row-major augmented [A | B]; lu-seed on the
 * column-major A and B). `q` is the backend's state for one solve. Each
 * slot returns 0 or a status with err written; none waits for the device
 * unless it says so. Pivots and info stay on the device.
 */
typedef struct lsg_seed_ops {
    /* Check the job against the device's limits, allocate the system, bind
     * the precision's kernels for job->method, do any host-side packing
     * (outside the timed region). */
    int (*begin)(void *q, const ls_job *job, char *err, size_t errlen);
    /* Release what begin took; also after a failed or partial begin. */
    void (*end)(void *q);
    /* Mark a phase boundary on the queue (no wait). */
    int (*mark)(void *q, lsg_phase p, char *err, size_t errlen);
    lsg_elapsed_fn elapsed;
    /* The job's A and B into the device system; info = 0. */
    int (*upload)(void *q, char *err, size_t errlen);
    /* Step k's pivot: the largest |a(i,k)|, i >= k (search) or the
     * diagonal alone (no search), recorded in the pivots, a zero one in
     * info; with search, row k exchanged with the pivot row. */
    int (*pivot)(void *q, int k, int search, char *err, size_t errlen);
    /* One elimination step k per method, after step k's pivot. A method
     * whose slot is NULL is not run by this backend.
     * ge-naive: the rows below k, a work-item a row; ge-blocked: the same
     * with the pivot row staged in local memory; ge-coalesced: the rows
     * below k, a work-item an element; gj1: forward, the rows below k, and
     * backward, the right-hand sides of the rows above k; gj2: every row
     * but k; lu-seed (optional): multipliers + trailing update of the
     * column-major A. */
    int (*ge_naive_step)(void *q, int k, char *err, size_t errlen);
    int (*ge_blocked_step)(void *q, int k, char *err, size_t errlen);
    int (*ge_coalesced_step)(void *q, int k, char *err, size_t errlen);
    int (*gj1_forward_step)(void *q, int k, char *err, size_t errlen);
    int (*gj1_backward_step)(void *q, int k, char *err, size_t errlen);
    int (*gj2_step)(void *q, int k, char *err, size_t errlen);
    int (*lu_seed_step)(void *q, int k, char *err, size_t errlen);
    /* X from the triangular factors: back substitution of the augmented
     * [U | c], or lu-seed's two triangular solves. */
    int (*trsolve)(void *q, char *err, size_t errlen);
    /* X from the diagonal system Gauss-Jordan leaves: x = c / d. */
    int (*gj_extract)(void *q, char *err, size_t errlen);
    /* Waits for the queue, then reads info. */
    int (*read_info)(void *q, int *info, char *err, size_t errlen);
    /* X into job->B (only when info is 0, as LAPACK), the pivots (1-based)
     * into job->ipiv when it is not NULL. */
    int (*download)(void *q, int info, char *err, size_t errlen);
    /* optional: wait for everything enqueued and check it ran (NULL: the
     * downloads were blocking). */
    int (*finish)(void *q, char *err, size_t errlen);
} lsg_seed_ops;

/*
 * Solves the (checked, n > 0) job with its published method on a backend:
 * upload | elimination | read info, X from the factors | download, each
 * phase marked; rep's four times (when rep is not NULL and the solve
 * reached its end). core formats the driver's own errors.
 * @return 0, info > 0 (U(info,info) exactly zero; X not written), or a
 *         negative status from a primitive
 */
int lsg_seed_solve(const lsg_seed_ops *ops, void *q, const ls_core_services *core,
                   const ls_job *job, ls_report *rep, char *err, size_t errlen);

#endif
