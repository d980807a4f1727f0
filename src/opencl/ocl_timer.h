/*
 * Phase timing by device events: the OpenCL twin of the CUDA backend's
 * cudaEventRecord / cudaEventElapsedTime, so t_h2d, t_factor, t_solve and
 * t_d2h mean the same on both GPU backends.
 *
 * A driver marks the boundaries of its phases on the (in-order) queue and
 * reads the intervals between them afterwards:
 *
 *     ocl_mark(c, &ev[OCL_EV_START], err, errlen);   upload ...
 *     ocl_mark(c, &ev[OCL_EV_H2D], err, errlen);     factor ...
 *     ocl_mark(c, &ev[OCL_EV_FACTOR], err, errlen);  ...
 *     rep->t_h2d = ocl_elapsed(&ev[OCL_EV_START], &ev[OCL_EV_H2D]);
 *
 * With a profiling queue (c->profiling) a mark is a marker command and the
 * interval is CL_PROFILING_COMMAND_END(b) - CL_PROFILING_COMMAND_END(a):
 * device time from the moment everything before a finished to the moment
 * everything before b finished, with no host synchronisation in between.
 * Where the device refuses profiling (or LS_OPENCL_TIMING=wall asks for
 * it), a mark is clFinish + the core's wall clock, the old method.
 */
#ifndef LS_OCL_TIMER_H
#define LS_OCL_TIMER_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>

#include "algo/gpu/gpu_driver.h"
#include "linsolve.h"

struct ocl_ctx;

/* The phase boundaries every solve driver marks, in this order: the GPU
 * drivers' lsg_phase (gpu/gpu_driver.h). A phase whose end is not marked
 * (a solve skipped after a zero pivot) reads 0, and the next one runs from
 * the last mark. */
typedef enum ocl_ev {
    OCL_EV_START = LSG_START,   /* before the first upload (host packing already done) */
    OCL_EV_H2D = LSG_H2D,       /* A, B (or [A | B]) and info on the device */
    OCL_EV_FACTOR = LSG_FACTOR, /* elimination / factorization enqueued and finished */
    OCL_EV_SOLVE = LSG_SOLVE,   /* triangular solves / back substitution */
    OCL_EV_D2H = LSG_D2H,       /* X and the pivots back on the host */
    OCL_EV_COUNT_ = LSG_PHASES
} ocl_ev;

typedef struct ocl_tick {
    cl_event ev; /* marker, profiling queue */
    double wall; /* clFinish + clock, otherwise */
    int set;
} ocl_tick;

/* Marks "now" on c's queue: enqueues a marker (no wait), or without
 * profiling finishes the queue and reads the clock. Releases what t held. */
int ocl_mark(struct ocl_ctx *c, ocl_tick *t, char *err, size_t errlen);
/* Seconds from a to b (waits for b); 0 when either is unmarked or the
 * runtime gives no timestamps. */
double ocl_elapsed(const ocl_tick *a, const ocl_tick *b);
void ocl_tick_release(ocl_tick *t);

/* rep's four phase times from a driver's ticks[OCL_EV_COUNT_], by the
 * GPU drivers' one rule (lsg_phases_report). */
void ocl_ticks_report(const ocl_tick *ticks, ls_report *rep);
void ocl_ticks_release(ocl_tick *ticks);

/* Called once per context: creates c->queue with CL_QUEUE_PROFILING_ENABLE
 * when the device offers it and LS_OPENCL_TIMING is not "wall", else a
 * plain queue; sets c->profiling. */
int ocl_queue_create(struct ocl_ctx *c, char *err, size_t errlen);
/* What a device's queue would time with, for `linsolve info`. */
const char *ocl_timing_name(cl_device_id d);

#endif
