/* The device-resident API without the CUDA backend: ctx NULL, a CPU
 * context, a CUDA context that could not open (no GPU here) and, where
 * OpenCL opens, an OpenCL context. Every entry point must refuse with a
 * status and a message, never crash or touch its arguments. */
#include <string.h>

#include "testutil.h"

#define NEEDS_CUDA "the device API needs the CUDA backend"

/* Every entry point on ctx: returns want, info untouched. */
static int refuse_all(ls_context *ctx, int want, const char *label)
{
    int f = 0, info = 77, ipiv[4] = {0};
    double A[16] = {0}, B[4] = {0};
    float As[16] = {0}, Bs[4] = {0};
    void *p = (void *)A;
    f += lt_check(ls_dgesv_gpu(4, 1, A, 4, ipiv, B, 4, &info, ctx) == want, "%s: dgesv_gpu", label);
    f += lt_check(ls_sgesv_gpu(4, 1, As, 4, ipiv, Bs, 4, &info, ctx) == want, "%s: sgesv_gpu", label);
    f += lt_check(ls_dgetrf_gpu(4, 4, A, 4, ipiv, &info, ctx) == want, "%s: dgetrf_gpu", label);
    f += lt_check(ls_sgetrf_gpu(4, 4, As, 4, ipiv, &info, ctx) == want, "%s: sgetrf_gpu", label);
    f += lt_check(ls_dgetrs_gpu('N', 4, 1, A, 4, ipiv, B, 4, &info, ctx) == want, "%s: dgetrs_gpu",
                  label);
    f += lt_check(ls_sgetrs_gpu('T', 4, 1, As, 4, ipiv, Bs, 4, &info, ctx) == want,
                  "%s: sgetrs_gpu", label);
    double out[4] = {7, 7, 7, 7};
    f += lt_check(ls_check_batched_gpu(LS_DOUBLE, 4, 1, LS_COL_MAJOR, A, 4, 16, LS_COL_MAJOR, B,
                                       4, 4, LS_COL_MAJOR, B, 4, 4, 1, out, ctx) == want &&
                      out[0] == 7 && out[3] == 7,
                  "%s: ls_check_batched_gpu (dout untouched)", label);
    f += lt_check(info == 77, "%s: info untouched", label);
    f += lt_check(ls_device_malloc(ctx, &p, 64) == want && p == NULL,
                  "%s: ls_device_malloc (*ptr NULL)", label);
    f += lt_check(ls_device_free(ctx, A) == want, "%s: ls_device_free", label);
    f += lt_check(ls_device_copy(ctx, B, A, sizeof B) == want, "%s: ls_device_copy", label);
    f += lt_check(ls_device_synchronize(ctx) == want, "%s: ls_device_synchronize", label);
    f += lt_check(ls_context_set_stream(ctx, NULL) == want, "%s: ls_context_set_stream", label);
    f += lt_check(ls_context_get_stream(ctx) == NULL, "%s: ls_context_get_stream is NULL", label);
    return f;
}

int main(void)
{
    int f = 0;
    f += refuse_all(NULL, LS_EUNAVAIL, "ctx NULL");

    ls_context *cpu = NULL;
    f += lt_check(ls_context_create(&cpu, LS_BACKEND_CPU, 0) == 0, "cpu context");
    f += refuse_all(cpu, LS_EUNAVAIL, "cpu");
    f += lt_check(strstr(ls_context_error(cpu), NEEDS_CUDA) != NULL, "cpu: message \"%s\"",
                  ls_context_error(cpu));
    /* the host API still works on that context */
    double A[4] = {4, 1, 2, 3}, B[2] = {1, 2};
    int ipiv[2], info = -1;
    f += lt_check(ls_dgesv(2, 1, A, 2, ipiv, B, 2, &info, cpu) == 0 && info == 0,
                  "cpu: ls_dgesv still solves");
    ls_context_destroy(cpu);

    ls_context *cuda = NULL;
    int st = ls_context_create(&cuda, LS_BACKEND_CUDA, 0);
    if (st != 0) {
        f += refuse_all(cuda, LS_EUNAVAIL, "cuda (not opened)");
        f += lt_check(strstr(ls_context_error(cuda), NEEDS_CUDA) != NULL,
                      "cuda (not opened): message \"%s\"", ls_context_error(cuda));
    } else {
        printf("a CUDA device is present: its device API is tested in tests/cuda\n");
    }
    ls_context_destroy(cuda);

    ls_context *ocl = NULL;
    if (ls_context_create(&ocl, LS_BACKEND_OPENCL, -1) == 0) {
        f += refuse_all(ocl, LS_EUNSUPPORTED, "opencl");
        f += lt_check(strstr(ls_context_error(ocl), "opencl") != NULL &&
                          strstr(ls_context_error(ocl), "CUDA") != NULL,
                      "opencl: message \"%s\"", ls_context_error(ocl));
    } else {
        printf("no OpenCL device here: the OpenCL refusal is not exercised\n");
    }
    ls_context_destroy(ocl);
    printf("%d failure(s)\n", f);
    return f;
}
