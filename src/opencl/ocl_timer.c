/* Phase timing by device events (see ocl_timer.h). */
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"
#include "ocl_internal.h"

/* LS_OPENCL_TIMING=wall: clFinish + wall clock even on a device that
 * profiles, to compare the two methods on one device (measurements only). */
static int wall_forced(void)
{
    return ls_knob_is(LS_KNOB_OPENCL_TIMING, "wall");
}

static int device_profiles(cl_device_id d)
{
    cl_command_queue_properties qp = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_QUEUE_PROPERTIES, sizeof qp, &qp, NULL) != CL_SUCCESS)
        return 0;
    return (qp & CL_QUEUE_PROFILING_ENABLE) != 0;
}

int ocl_queue_create(ocl_ctx *c, char *err, size_t errlen)
{
    cl_int e = CL_SUCCESS;
    c->profiling = 0;
    c->queue = NULL;
    if (!wall_forced() && device_profiles(c->device)) {
        c->queue = clCreateCommandQueue(c->context, c->device, CL_QUEUE_PROFILING_ENABLE, &e);
        if (e == CL_SUCCESS)
            c->profiling = 1;
        else
            c->queue = NULL; /* refused after all: fall back below */
    }
    if (!c->queue) {
        c->queue = clCreateCommandQueue(c->context, c->device, 0, &e);
        if (e != CL_SUCCESS) {
            c->queue = NULL;
            return ocl_cl_fail(err, errlen, e, __FILE__, __LINE__, "clCreateCommandQueue");
        }
    }
    return 0;
}

const char *ocl_timing_name(cl_device_id d)
{
    if (!device_profiles(d))
        return "clFinish + wall clock (the device has no profiling queue)";
    if (wall_forced())
        return "clFinish + wall clock (LS_OPENCL_TIMING=wall)";
    return "device events (profiling markers)";
}

void ocl_tick_release(ocl_tick *t)
{
    if (t->ev)
        clReleaseEvent(t->ev);
    t->ev = NULL;
    t->wall = 0.0;
    t->set = 0;
}

int ocl_mark(ocl_ctx *c, ocl_tick *t, char *err, size_t errlen)
{
    int st = 0;
    ocl_tick_release(t);
    if (c->profiling) {
        /* On an in-order queue a marker with no wait list completes when
         * everything enqueued before it has. */
        CL_CHECK(clEnqueueMarkerWithWaitList(c->queue, 0, NULL, &t->ev));
    } else {
        CL_CHECK(clFinish(c->queue));
        t->wall = ocl_now();
    }
    t->set = 1;
done:
    return st;
}

static int end_time(cl_event ev, cl_ulong *ns)
{
    return clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof *ns, ns, NULL) ==
           CL_SUCCESS;
}

double ocl_elapsed(const ocl_tick *a, const ocl_tick *b)
{
    if (!a->set || !b->set)
        return 0.0;
    if (!a->ev || !b->ev)
        return b->wall > a->wall ? b->wall - a->wall : 0.0;
    cl_event both[2] = {a->ev, b->ev};
    cl_ulong ta = 0, tb = 0;
    if (clWaitForEvents(2, both) != CL_SUCCESS || !end_time(a->ev, &ta) || !end_time(b->ev, &tb))
        return 0.0;
    return tb > ta ? (double)(tb - ta) * 1e-9 : 0.0;
}

static double ticks_elapsed(void *ticks, lsg_phase a, lsg_phase b)
{
    const ocl_tick *t = ticks;
    return ocl_elapsed(&t[a], &t[b]);
}

void ocl_ticks_report(const ocl_tick *ticks, ls_report *rep)
{
    unsigned marked = 0;
    for (int i = 0; i < OCL_EV_COUNT_; ++i)
        if (ticks[i].set)
            marked |= 1u << i;
    lsg_phases_report(ticks_elapsed, (void *)ticks, marked, rep);
}

void ocl_ticks_release(ocl_tick *ticks)
{
    for (int i = 0; i < OCL_EV_COUNT_; ++i)
        ocl_tick_release(&ticks[i]);
}
