/* Platform and device discovery, device choice and the info listing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"
#include "ocl_internal.h"

#define OCL_MAX_PLATFORMS 16
#define OCL_MAX_DEVICES 64

typedef struct ocl_device_list {
    int count;
    cl_platform_id platform[OCL_MAX_DEVICES];
    cl_device_id device[OCL_MAX_DEVICES];
} ocl_device_list;

/* All devices of all platforms, in enumeration order: that order defines
 * the device index users pass (--device N / LS_OPENCL_DEVICE=N). */
static int list_devices(ocl_device_list *list, char *err, size_t errlen)
{
    cl_platform_id plats[OCL_MAX_PLATFORMS];
    cl_uint nplat = 0;
    list->count = 0;
    cl_int e = clGetPlatformIDs(OCL_MAX_PLATFORMS, plats, &nplat);
    if (e == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no vendor */ ||
        (e == CL_SUCCESS && nplat == 0))
        return OCL_FAIL(LS_EUNAVAIL, "no OpenCL platform found (is an ICD installed in "
                                     "/etc/OpenCL/vendors?)");
    if (e != CL_SUCCESS)
        return OCL_FAIL(LS_EUNAVAIL, "clGetPlatformIDs failed: %s (%d)", ocl_error_name(e),
                        (int)e);
    if (nplat > OCL_MAX_PLATFORMS)
        nplat = OCL_MAX_PLATFORMS;
    for (cl_uint p = 0; p < nplat; ++p) {
        cl_device_id devs[OCL_MAX_DEVICES];
        cl_uint ndev = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, OCL_MAX_DEVICES, devs, &ndev) !=
            CL_SUCCESS)
            continue; /* a platform without devices is not an error */
        if (ndev > OCL_MAX_DEVICES)
            ndev = OCL_MAX_DEVICES;
        for (cl_uint d = 0; d < ndev && list->count < OCL_MAX_DEVICES; ++d) {
            list->platform[list->count] = plats[p];
            list->device[list->count] = devs[d];
            list->count++;
        }
    }
    if (list->count == 0)
        return OCL_FAIL(LS_EUNAVAIL, "%u OpenCL platform(s) but no device", (unsigned)nplat);
    return 0;
}

static const char *type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    if (t & CL_DEVICE_TYPE_CPU)
        return "CPU";
    return "other";
}

static void device_string(cl_device_id d, cl_device_info what, char *buf, size_t len)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(d, what, len, buf, NULL) != CL_SUCCESS)
        snprintf(buf, len, "?");
    buf[len - 1] = '\0';
}

static int has_extension(cl_device_id d, const char *ext)
{
    size_t len = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &len) != CL_SUCCESS || len == 0)
        return 0;
    char *s = malloc(len + 1);
    if (!s)
        return 0;
    int found = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, len, s, NULL) == CL_SUCCESS) {
        s[len] = '\0';
        size_t el = strlen(ext);
        for (const char *p = strstr(s, ext); p; p = strstr(p + 1, ext))
            if ((p == s || p[-1] == ' ') && (p[el] == ' ' || p[el] == '\0')) {
                found = 1;
                break;
            }
    }
    free(s);
    return found;
}

/* Fills the device properties; returns the first failing call's error. */
static cl_int query_properties(ocl_ctx *c)
{
    cl_device_id d = c->device;
    cl_bool images = CL_FALSE;
    cl_int first = CL_SUCCESS;
#define OCL_QUERY_(what, field)                                                   \
    do {                                                                          \
        cl_int e_ = clGetDeviceInfo(d, (what), sizeof(field), &(field), NULL);    \
        if (e_ != CL_SUCCESS && first == CL_SUCCESS)                              \
            first = e_;                                                           \
    } while (0)
    OCL_QUERY_(CL_DEVICE_TYPE, c->type);
    OCL_QUERY_(CL_DEVICE_MAX_COMPUTE_UNITS, c->compute_units);
    OCL_QUERY_(CL_DEVICE_GLOBAL_MEM_SIZE, c->global_mem);
    OCL_QUERY_(CL_DEVICE_LOCAL_MEM_SIZE, c->local_mem);
    OCL_QUERY_(CL_DEVICE_MAX_MEM_ALLOC_SIZE, c->max_alloc);
    OCL_QUERY_(CL_DEVICE_MAX_WORK_GROUP_SIZE, c->max_wg);
    OCL_QUERY_(CL_DEVICE_IMAGE_SUPPORT, images);
    c->has_images = images == CL_TRUE;
    if (c->has_images) {
        OCL_QUERY_(CL_DEVICE_IMAGE2D_MAX_WIDTH, c->image2d_max_w);
        OCL_QUERY_(CL_DEVICE_IMAGE2D_MAX_HEIGHT, c->image2d_max_h);
    }
#undef OCL_QUERY_
    c->has_fp64 = has_extension(d, "cl_khr_fp64");
    if (c->max_wg == 0)
        c->max_wg = 1;
    return first;
}

static int pick_index(const ocl_device_list *list, int requested, char *err, size_t errlen,
                      int *index)
{
    /* a LIVE knob (tests change it between contexts); a value that is not
     * an index fails here rather than falling back to the default */
    long long v = -1;
    const char *env = NULL;
    ls_knob_source from = ls_knob_read(LS_KNOB_OPENCL_DEVICE, &v, &env);
    if (from != LS_KNOB_UNSET) {
        if (from == LS_KNOB_REJECTED || v >= list->count)
            return OCL_FAIL(LS_EUNAVAIL, "LS_OPENCL_DEVICE=%s is not a device index in [0, %d)",
                            env ? env : "?", list->count);
        *index = (int)v;
        return 0;
    }
    if (requested >= 0) {
        if (requested >= list->count)
            return OCL_FAIL(LS_EUNAVAIL, "OpenCL device %d requested; %d device(s) found",
                            requested, list->count);
        *index = requested;
        return 0;
    }
    /* No index: the first GPU, else the first device. */
    for (int i = 0; i < list->count; ++i) {
        cl_device_type t = 0;
        clGetDeviceInfo(list->device[i], CL_DEVICE_TYPE, sizeof t, &t, NULL);
        if (t & CL_DEVICE_TYPE_GPU) {
            *index = i;
            return 0;
        }
    }
    *index = 0;
    return 0;
}

int ocl_context_open(int device, ocl_ctx **out, char *err, size_t errlen)
{
    *out = NULL;
    ocl_device_list list;
    int st = list_devices(&list, err, errlen);
    if (st)
        return st;
    int index = 0;
    st = pick_index(&list, device, err, errlen, &index);
    if (st)
        return st;
    ocl_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return OCL_FAIL(LS_ENOMEM, "allocating the OpenCL backend context");
    c->platform = list.platform[index];
    c->device = list.device[index];
    c->index = index;
    cl_int e = query_properties(c);
    if (e != CL_SUCCESS) {
        st = ocl_cl_fail(err, errlen, e, __FILE__, __LINE__, "clGetDeviceInfo");
        goto done;
    }
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)c->platform, 0};
    c->context = clCreateContext(props, 1, &c->device, NULL, NULL, &e);
    if (e != CL_SUCCESS) {
        st = ocl_cl_fail(err, errlen, e, __FILE__, __LINE__, "clCreateContext");
        goto done;
    }
    /* With CL_QUEUE_PROFILING_ENABLE where the device allows it: phases are
     * timed by marker events (ocl_timer.c). */
    st = ocl_queue_create(c, err, errlen);
    if (st)
        goto done;
    char dev[96], plat[64];
    device_string(c->device, CL_DEVICE_NAME, dev, sizeof dev);
    plat[0] = '\0';
    if (clGetPlatformInfo(c->platform, CL_PLATFORM_NAME, sizeof plat, plat, NULL) != CL_SUCCESS)
        snprintf(plat, sizeof plat, "?");
    plat[sizeof plat - 1] = '\0';
    snprintf(c->name, sizeof c->name, "opencl:%d %s (%s, %u CUs, %s)", index, dev,
             type_name(c->type), (unsigned)c->compute_units, plat);
    *out = c;
    return 0;
done:
    ocl_context_close(c);
    return st;
}

void ocl_context_close(ocl_ctx *c)
{
    if (!c)
        return;
    ocl_programs_release(c);
    if (c->queue)
        clReleaseCommandQueue(c->queue);
    if (c->context)
        clReleaseContext(c->context);
    free(c);
}

int ocl_print_platforms(FILE *out)
{
    char err[LS_ERRLEN] = "";
    size_t errlen = sizeof err;
    ocl_device_list list;
    int st = list_devices(&list, err, errlen);
    if (st) {
        fprintf(out, "opencl: unavailable: %s\n", err);
        return st;
    }
    cl_platform_id last = NULL;
    for (int i = 0; i < list.count; ++i) {
        if (list.platform[i] != last) {
            char name[128] = "?", version[128] = "?";
            clGetPlatformInfo(list.platform[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
            clGetPlatformInfo(list.platform[i], CL_PLATFORM_VERSION, sizeof version, version,
                              NULL);
            name[sizeof name - 1] = version[sizeof version - 1] = '\0';
            fprintf(out, "opencl platform: %s (%s)\n", name, version);
            last = list.platform[i];
        }
        ocl_ctx c;
        memset(&c, 0, sizeof c);
        c.device = list.device[i];
        if (query_properties(&c) != CL_SUCCESS)
            fprintf(out, "  opencl:%d: some device properties could not be read\n", i);
        char dev[128];
        device_string(c.device, CL_DEVICE_NAME, dev, sizeof dev);
        fprintf(out, "  opencl:%d %s\n", i, dev);
        fprintf(out, "    type %s, %u compute units, max work-group %zu\n", type_name(c.type),
                (unsigned)c.compute_units, c.max_wg);
        fprintf(out, "    global memory %.1f MiB (max allocation %.1f MiB), local memory %.1f KiB\n",
                (double)c.global_mem / 1048576.0, (double)c.max_alloc / 1048576.0,
                (double)c.local_mem / 1024.0);
        if (c.has_images)
            fprintf(out, "    images: yes, image2d max %zu x %zu\n", c.image2d_max_w,
                    c.image2d_max_h);
        else
            fprintf(out, "    images: no\n");
        fprintf(out, "    fp64 (cl_khr_fp64): %s\n", c.has_fp64 ? "yes" : "no");
        fprintf(out, "    timing: %s\n", ocl_timing_name(c.device));
    }
    return 0;
}
