/* Error reporting, program cache, buffers and launches for the OpenCL plugin. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_internal.h"

/* Every core lends the same table; the pointer is atomic only so that
 * contexts opened by several threads at once do not race on storing it. */
static _Atomic(const ls_core_services *) ocl_services;

void ocl_core_set(const ls_core_services *core)
{
    atomic_store_explicit(&ocl_services, core, memory_order_release);
}

const ls_core_services *ocl_core(void)
{
    return atomic_load_explicit(&ocl_services, memory_order_acquire);
}

int ocl_fail(char *err, size_t errlen, int status, const char *file, int line, const char *fmt,
             ...)
{
    va_list ap;
    va_start(ap, fmt);
    status = ocl_core()->vfail(err, errlen, status, file, line, fmt, ap);
    va_end(ap);
    return status;
}

const char *ocl_error_name(cl_int e)
{
    switch (e) {
#define OCL_NAME_(x) \
    case x:          \
        return #x;
        OCL_NAME_(CL_SUCCESS)
        OCL_NAME_(CL_DEVICE_NOT_FOUND)
        OCL_NAME_(CL_DEVICE_NOT_AVAILABLE)
        OCL_NAME_(CL_COMPILER_NOT_AVAILABLE)
        OCL_NAME_(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        OCL_NAME_(CL_OUT_OF_RESOURCES)
        OCL_NAME_(CL_OUT_OF_HOST_MEMORY)
        OCL_NAME_(CL_PROFILING_INFO_NOT_AVAILABLE)
        OCL_NAME_(CL_MEM_COPY_OVERLAP)
        OCL_NAME_(CL_IMAGE_FORMAT_MISMATCH)
        OCL_NAME_(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        OCL_NAME_(CL_BUILD_PROGRAM_FAILURE)
        OCL_NAME_(CL_MAP_FAILURE)
        OCL_NAME_(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        OCL_NAME_(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        OCL_NAME_(CL_COMPILE_PROGRAM_FAILURE)
        OCL_NAME_(CL_LINKER_NOT_AVAILABLE)
        OCL_NAME_(CL_LINK_PROGRAM_FAILURE)
        OCL_NAME_(CL_DEVICE_PARTITION_FAILED)
        OCL_NAME_(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        OCL_NAME_(CL_INVALID_VALUE)
        OCL_NAME_(CL_INVALID_DEVICE_TYPE)
        OCL_NAME_(CL_INVALID_PLATFORM)
        OCL_NAME_(CL_INVALID_DEVICE)
        OCL_NAME_(CL_INVALID_CONTEXT)
        OCL_NAME_(CL_INVALID_QUEUE_PROPERTIES)
        OCL_NAME_(CL_INVALID_COMMAND_QUEUE)
        OCL_NAME_(CL_INVALID_HOST_PTR)
        OCL_NAME_(CL_INVALID_MEM_OBJECT)
        OCL_NAME_(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        OCL_NAME_(CL_INVALID_IMAGE_SIZE)
        OCL_NAME_(CL_INVALID_SAMPLER)
        OCL_NAME_(CL_INVALID_BINARY)
        OCL_NAME_(CL_INVALID_BUILD_OPTIONS)
        OCL_NAME_(CL_INVALID_PROGRAM)
        OCL_NAME_(CL_INVALID_PROGRAM_EXECUTABLE)
        OCL_NAME_(CL_INVALID_KERNEL_NAME)
        OCL_NAME_(CL_INVALID_KERNEL_DEFINITION)
        OCL_NAME_(CL_INVALID_KERNEL)
        OCL_NAME_(CL_INVALID_ARG_INDEX)
        OCL_NAME_(CL_INVALID_ARG_VALUE)
        OCL_NAME_(CL_INVALID_ARG_SIZE)
        OCL_NAME_(CL_INVALID_KERNEL_ARGS)
        OCL_NAME_(CL_INVALID_WORK_DIMENSION)
        OCL_NAME_(CL_INVALID_WORK_GROUP_SIZE)
        OCL_NAME_(CL_INVALID_WORK_ITEM_SIZE)
        OCL_NAME_(CL_INVALID_GLOBAL_OFFSET)
        OCL_NAME_(CL_INVALID_EVENT_WAIT_LIST)
        OCL_NAME_(CL_INVALID_EVENT)
        OCL_NAME_(CL_INVALID_OPERATION)
        OCL_NAME_(CL_INVALID_GL_OBJECT)
        OCL_NAME_(CL_INVALID_BUFFER_SIZE)
        OCL_NAME_(CL_INVALID_MIP_LEVEL)
        OCL_NAME_(CL_INVALID_GLOBAL_WORK_SIZE)
        OCL_NAME_(CL_INVALID_PROPERTY)
        OCL_NAME_(CL_INVALID_IMAGE_DESCRIPTOR)
        OCL_NAME_(CL_INVALID_COMPILER_OPTIONS)
        OCL_NAME_(CL_INVALID_LINKER_OPTIONS)
        OCL_NAME_(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef OCL_NAME_
    case -1001:
        return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
        return "unknown OpenCL error";
    }
}

int ocl_status_of(cl_int e)
{
    switch (e) {
    case CL_SUCCESS:
        return 0;
    case CL_OUT_OF_RESOURCES:
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return LS_EDEVMEM;
    case CL_OUT_OF_HOST_MEMORY:
        return LS_ENOMEM;
    default:
        return LS_EDEVICE;
    }
}

int ocl_cl_fail(char *err, size_t errlen, cl_int e, const char *file, int line, const char *call)
{
    return ocl_fail(err, errlen, ocl_status_of(e), file, line, "%s (%d) from %s",
                    ocl_error_name(e), (int)e, call);
}

size_t ocl_pow2_floor(size_t x)
{
    size_t p = 1;
    while (p <= x / 2)
        p *= 2;
    return x == 0 ? 1 : p;
}

size_t ocl_round_up(size_t x, size_t multiple)
{
    if (multiple == 0)
        return x;
    return (x + multiple - 1) / multiple * multiple;
}

size_t ocl_group_size(size_t wg, size_t cap)
{
    size_t m = wg < cap ? wg : cap;
    return ocl_pow2_floor(m == 0 ? 1 : m);
}

void ocl_local2(size_t wg, size_t count0, size_t *local0, size_t *local1)
{
    size_t total = ocl_group_size(wg, 64);
    size_t l0 = 1;
    while (l0 < count0 && l0 < total)
        l0 *= 2;
    *local0 = l0;
    *local1 = total / l0 > 0 ? total / l0 : 1;
}

size_t ocl_tile_edge(size_t wg)
{
    size_t t = 16;
    while (t > 1 && t * t > wg)
        t /= 2;
    return t;
}

/* ------------------------------------------------------------ programs */
extern const char ls_ocl_src_prelude[];
extern const char ls_ocl_src_rowops[];
extern const char ls_ocl_src_ge_seed[];
extern const char ls_ocl_src_pingpong[];
extern const char ls_ocl_src_image[];
extern const char ls_ocl_src_ge_local[];
extern const char ls_ocl_src_gj[];
extern const char ls_ocl_src_lu[];
extern const char ls_ocl_src_batched[];

static const char *family_source(ocl_family f)
{
    switch (f) {
    case OCL_FAM_ROWOPS:
        return ls_ocl_src_rowops;
    case OCL_FAM_GE_SEED:
        return ls_ocl_src_ge_seed;
    case OCL_FAM_PINGPONG:
        return ls_ocl_src_pingpong;
    case OCL_FAM_IMAGE:
        return ls_ocl_src_image;
    case OCL_FAM_GE_LOCAL:
        return ls_ocl_src_ge_local;
    case OCL_FAM_GJ:
        return ls_ocl_src_gj;
    case OCL_FAM_LU:
        return ls_ocl_src_lu;
    case OCL_FAM_BATCHED:
        return ls_ocl_src_batched;
    default:
        return NULL;
    }
}

static const char *const family_names[OCL_FAM_COUNT_] = {
    "rowops", "ge_seed", "pingpong", "image", "ge_local", "gj", "lu", "batched"};

static int program_build(ocl_ctx *c, ocl_family fam, ls_precision p, cl_program *out, char *err,
                         size_t errlen)
{
    const char *srcs[2] = {ls_ocl_src_prelude, family_source(fam)};
    const char *opts = p == LS_DOUBLE ? "-D REAL=double -D REAL_IS_DOUBLE=1"
                                      : "-D REAL=float -D REAL_IS_DOUBLE=0";
    cl_int e = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(c->context, 2, srcs, NULL, &e);
    if (e != CL_SUCCESS)
        return ocl_cl_fail(err, errlen, e, __FILE__, __LINE__, "clCreateProgramWithSource");
    e = clBuildProgram(prog, 1, &c->device, opts, NULL, NULL);
    if (e != CL_SUCCESS) {
        /* The build log is what a kernel author needs; keep its tail if long. */
        char log[4096] = "";
        size_t len = 0;
        clGetProgramBuildInfo(prog, c->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
        if (len > 0) {
            char *full = malloc(len + 1);
            if (full &&
                clGetProgramBuildInfo(prog, c->device, CL_PROGRAM_BUILD_LOG, len, full, NULL) ==
                    CL_SUCCESS) {
                full[len] = '\0';
                const char *tail = len >= sizeof log ? full + len - (sizeof log - 1) : full;
                snprintf(log, sizeof log, "%s", tail);
            }
            free(full);
        }
        clReleaseProgram(prog);
        return OCL_FAIL(LS_EDEVICE, "building kernels %s.cl (%s) failed: %s (%d); log: %s",
                        family_names[fam], opts, ocl_error_name(e), (int)e, log);
    }
    *out = prog;
    return 0;
}

int ocl_kernel_get(ocl_ctx *c, ocl_family fam, ls_precision p, const char *name, cl_kernel *k,
                   size_t *wg, char *err, size_t errlen)
{
    int pi = p == LS_DOUBLE ? 0 : 1;
    if (!c->programs[fam][pi]) {
        int st = program_build(c, fam, p, &c->programs[fam][pi], err, errlen);
        if (st)
            return st;
    }
    cl_int e = CL_SUCCESS;
    *k = clCreateKernel(c->programs[fam][pi], name, &e);
    if (e != CL_SUCCESS)
        return ocl_fail(err, errlen, ocl_status_of(e), __FILE__, __LINE__,
                        "clCreateKernel(%s) failed: %s (%d)", name, ocl_error_name(e), (int)e);
    if (wg) {
        size_t v = 0;
        e = clGetKernelWorkGroupInfo(*k, c->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof v, &v,
                                     NULL);
        if (e != CL_SUCCESS) {
            clReleaseKernel(*k);
            *k = NULL;
            return ocl_cl_fail(err, errlen, e, __FILE__, __LINE__, "clGetKernelWorkGroupInfo");
        }
        *wg = v > 0 ? v : 1;
    }
    return 0;
}

void ocl_programs_release(ocl_ctx *c)
{
    for (int f = 0; f < OCL_FAM_COUNT_; ++f)
        for (int p = 0; p < 2; ++p)
            if (c->programs[f][p]) {
                clReleaseProgram(c->programs[f][p]);
                c->programs[f][p] = NULL;
            }
}

/* ------------------------------------------------------------ buffers, launches */
int ocl_buffer(ocl_ctx *c, size_t bytes, cl_mem *out, const char *what, char *err, size_t errlen)
{
    *out = NULL;
    if (bytes == 0)
        bytes = 16; /* zero-sized buffers are illegal; keep the code paths uniform */
    if ((cl_ulong)bytes > c->max_alloc)
        return OCL_FAIL(LS_EDEVMEM,
                        "%s needs %zu bytes in one buffer; device allows %llu per allocation",
                        what, bytes, (unsigned long long)c->max_alloc);
    cl_int e = CL_SUCCESS;
    *out = clCreateBuffer(c->context, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (e != CL_SUCCESS) {
        *out = NULL;
        return OCL_FAIL(ocl_status_of(e), "clCreateBuffer(%s, %zu bytes) failed: %s (%d)", what,
                        bytes, ocl_error_name(e), (int)e);
    }
    return 0;
}

int ocl_launch1(ocl_ctx *c, cl_kernel k, size_t count, size_t local, char *err, size_t errlen)
{
    if (count == 0)
        return 0;
    if (local == 0)
        local = 1;
    size_t global = ocl_round_up(count, local);
    cl_int e = clEnqueueNDRangeKernel(c->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
    if (e != CL_SUCCESS)
        return OCL_FAIL(ocl_status_of(e), "clEnqueueNDRangeKernel(global %zu, local %zu): %s (%d)",
                        global, local, ocl_error_name(e), (int)e);
    return 0;
}

int ocl_launch2(ocl_ctx *c, cl_kernel k, size_t count0, size_t count1, size_t local0,
                size_t local1, char *err, size_t errlen)
{
    if (count0 == 0 || count1 == 0)
        return 0;
    size_t local[2] = {local0 ? local0 : 1, local1 ? local1 : 1};
    size_t global[2] = {ocl_round_up(count0, local[0]), ocl_round_up(count1, local[1])};
    cl_int e = clEnqueueNDRangeKernel(c->queue, k, 2, NULL, global, local, 0, NULL, NULL);
    if (e != CL_SUCCESS)
        return OCL_FAIL(ocl_status_of(e),
                        "clEnqueueNDRangeKernel(global %zux%zu, local %zux%zu): %s (%d)",
                        global[0], global[1], local[0], local[1], ocl_error_name(e), (int)e);
    return 0;
}
