/* The CUDA engine's failures and its profile (LS_DIST_CUDA_PROFILE=1). */
#include "engine_cuda_impl.h"

static const char *const kind_name[K_COUNT] = {
    "update gemm", "trsm", "panel LU", "row moves", "copies", "communication", "other"};

void ec_fail(ce *c, int status, const char *fmt, ...)
{
    if (c->status)
        return;
    c->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
}

int ec_cu_ok(ce *c, cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 1;
    ec_fail(c, e == cudaErrorMemoryAllocation ? LS_EDEVMEM : LS_EDEVICE, "%s on cuda:%d: %s", what,
            c->device, cudaGetErrorString(e));
    return 0;
}

int ec_bl_ok(ce *c, cublasStatus_t st, const char *what)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return 1;
    ec_fail(c, LS_EDEVICE, "%s on cuda:%d: cuBLAS status %d", what, c->device, (int)st);
    return 0;
}

int ec_nc_ok(ce *c, ncclResult_t r, const char *what)
{
    if (r == ncclSuccess)
        return 1;
    ec_fail(c, LS_EDEVICE, "%s on cuda:%d: %s", what, c->device, ncclGetErrorString(r));
    return 0;
}

void ec_pf_mark(ce *c, int kind, cudaStream_t st)
{
    prof *f = c->pf;
    if (!f)
        return;
    if (f->n % 2 == 0 && f->n + 2 > f->cap) {
        int cap = f->cap ? 2 * f->cap : 1024;
        cudaEvent_t *ev = realloc(f->ev, (size_t)cap * sizeof *ev);
        int *kd = ev ? realloc(f->kind, (size_t)cap / 2 * sizeof *kd) : NULL;
        if (ev)
            f->ev = ev;
        if (!kd)
            return;
        f->kind = kd;
        for (int i = f->cap; i < cap; ++i)
            cudaEventCreate(&f->ev[i]);
        f->cap = cap;
    }
    if (f->n % 2 == 0)
        f->kind[f->n / 2] = kind;
    cudaEventRecord(f->ev[f->n++], st);
}

void ec_pf_report(ce *c)
{
    prof *f = c->pf;
    if (!f || f->n < 2)
        return;
    double t[K_COUNT] = {0};
    float ms = 0, span = 0;
    for (int i = 0; i + 1 < f->n; i += 2)
        if (cudaEventElapsedTime(&ms, f->ev[i], f->ev[i + 1]) == cudaSuccess)
            t[f->kind[i / 2]] += ms / 1e3;
    cudaEventElapsedTime(&span, f->ev[0], f->ev[f->n - 1]);
    char line[512];
    int len = snprintf(line, sizeof line, "ls_dist_cuda profile (cuda:%d): span %.4f s;", c->device,
                       span / 1e3);
    for (int k = 0; k < K_COUNT && len < (int)sizeof line; ++k)
        len += snprintf(line + len, sizeof line - (size_t)len, " %s %.4f s%s", kind_name[k], t[k],
                        k + 1 < K_COUNT ? "," : "");
    fprintf(stderr, "%s\n", line);
    f->n = 0;
}
