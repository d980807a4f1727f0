/* The device-resident half: getrf / getrs / gesv on memory that PyTorch,
 * CuPy or another CUDA array library allocated, queued on that library's
 * stream. The _gpu routines are looked up at run time, not linked: a
 * liblinsolve without them still loads this module, and the GPU path then
 * says what is missing instead of the import failing. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "lsx.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef int (*set_stream_fn)(ls_context *, void *);
typedef int (*dgetrf_fn)(int, int, double *, int, int *, int *, ls_context *);
typedef int (*sgetrf_fn)(int, int, float *, int, int *, int *, ls_context *);
typedef int (*dgetrs_fn)(char, int, int, const double *, int, const int *, double *, int, int *,
                         ls_context *);
typedef int (*sgetrs_fn)(char, int, int, const float *, int, const int *, float *, int, int *,
                         ls_context *);
typedef int (*dgesv_fn)(int, int, double *, int, int *, double *, int, int *, ls_context *);
typedef int (*sgesv_fn)(int, int, float *, int, int *, float *, int, int *, ls_context *);
typedef int (*check_fn)(ls_precision, int, int, ls_layout, const void *, int, long long, ls_layout,
                        const void *, int, long long, ls_layout, const void *, int, long long,
                        int, double *, ls_context *);

static struct {
    int looked;
    const char *missing; /* first symbol not found, NULL when all are there */
    set_stream_fn set_stream;
    dgetrf_fn dgetrf;
    sgetrf_fn sgetrf;
    dgetrs_fn dgetrs;
    sgetrs_fn sgetrs;
    dgesv_fn dgesv;
    sgesv_fn sgesv;
    check_fn check;           /* ls_check_batched_gpu, the device path's one check */
} api;

/* POSIX's way to turn dlsym's void * into a function pointer. */
#define LSX_SYM(h, field, name)                       \
    do {                                              \
        void *p_ = dlsym(h, name);                    \
        if (!p_ && !api.missing)                      \
            api.missing = name;                       \
        memcpy(&api.field, &p_, sizeof p_);           \
    } while (0)

static void look_up(void)
{
    if (api.looked)
        return;
    api.looked = 1;
    /* The library this module was linked with, found from one of its
     * symbols: Python loads extensions RTLD_LOCAL, so RTLD_DEFAULT would
     * not see it. */
    Dl_info where;
    void *h = NULL;
    if (dladdr((void *)(uintptr_t)&ls_context_create, &where) && where.dli_fname)
        h = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) {
        api.missing = "liblinsolve (dladdr/dlopen failed)";
        return;
    }
    LSX_SYM(h, set_stream, "ls_context_set_stream");
    LSX_SYM(h, dgetrf, "ls_dgetrf_gpu");
    LSX_SYM(h, sgetrf, "ls_sgetrf_gpu");
    LSX_SYM(h, dgetrs, "ls_dgetrs_gpu");
    LSX_SYM(h, sgetrs, "ls_sgetrs_gpu");
    LSX_SYM(h, dgesv, "ls_dgesv_gpu");
    LSX_SYM(h, sgesv, "ls_sgesv_gpu");
    LSX_SYM(h, check, "ls_check_batched_gpu");
    /* h stays open: the library is in use for the life of the process. */
}

PyObject *lsx_py_device_api(PyObject *self, PyObject *args)
{
    look_up();
    if (api.missing)
        return PyUnicode_FromString(api.missing);
    Py_RETURN_NONE;
}

int lsx_device_stream(ls_context *ctx, void *stream)
{
    look_up();
    return api.set_stream ? api.set_stream(ctx, stream) : LS_EUNAVAIL;
}

int lsx_check_batched(ls_precision prec, int n, int nrhs, const lsx_strided m[3], int batch,
                      double *dout, ls_context *ctx)
{
    look_up();
    if (!api.check)
        return LS_EUNAVAIL;
    return api.check(prec, n, nrhs, m[0].layout, m[0].ptr, m[0].ld, m[0].stride, m[1].layout,
                     m[1].ptr, m[1].ld, m[1].stride, m[2].layout, m[2].ptr, m[2].ld, m[2].stride,
                     batch, dout, ctx);
}

typedef struct dev_job {
    int op; /* 'v' gesv, 'f' getrf, 's' getrs */
    char fmt, trans;
    int n, nrhs, lda, ldb;
    Py_ssize_t count;
    long long a_bs, b_bs; /* batch strides, elements */
    unsigned long long a, b, ipiv, info, stream;
} dev_job;

static int one(const dev_job *j, ls_context *c, Py_ssize_t i)
{
    size_t es = j->fmt == 'd' ? 8 : 4;
    void *A = (void *)(uintptr_t)(j->a + (unsigned long long)(i * j->a_bs) * es);
    void *B = (void *)(uintptr_t)(j->b + (unsigned long long)(i * j->b_bs) * es);
    int *piv = (int *)(uintptr_t)j->ipiv + (size_t)i * (size_t)j->n;
    int *info = (int *)(uintptr_t)j->info + i;
    int d = j->fmt == 'd';
    switch (j->op) {
    case 'v':
        return d ? api.dgesv(j->n, j->nrhs, A, j->lda, piv, B, j->ldb, info, c)
                 : api.sgesv(j->n, j->nrhs, A, j->lda, piv, B, j->ldb, info, c);
    case 'f':
        return d ? api.dgetrf(j->n, j->n, A, j->lda, piv, info, c)
                 : api.sgetrf(j->n, j->n, A, j->lda, piv, info, c);
    default:
        return d ? api.dgetrs(j->trans, j->n, j->nrhs, A, j->lda, piv, B, j->ldb, info, c)
                 : api.sgetrs(j->trans, j->n, j->nrhs, A, j->lda, piv, B, j->ldb, info, c);
    }
}

/* device_run(op, fmt, device, stream, n, nrhs, count, a, a_bs, lda, ipiv, b, b_bs, ldb, info,
 *            trans) -> (status, index, message, where)
 * All pointers are device addresses; ipiv holds count*n ints, info count.
 * Pivots and info stay on the device, so nothing here waits for it. */
PyObject *lsx_py_device_run(PyObject *self, PyObject *args)
{
    const char *op, *fmt, *trans;
    int device;
    dev_job j;
    memset(&j, 0, sizeof j);
    if (!PyArg_ParseTuple(args, "ssiKiinKLiKKLiKs", &op, &fmt, &device, &j.stream, &j.n, &j.nrhs,
                          &j.count, &j.a, &j.a_bs, &j.lda, &j.ipiv, &j.b, &j.b_bs, &j.ldb, &j.info,
                          &trans))
        return NULL;
    j.op = !strcmp(op, "gesv") ? 'v' : !strcmp(op, "getrf") ? 'f' : !strcmp(op, "getrs") ? 's' : 0;
    j.fmt = fmt[0];
    j.trans = trans[0];
    if (!j.op || (j.fmt != 'd' && j.fmt != 'f') || fmt[1] || !strchr("NTC", j.trans) || !j.trans) {
        PyErr_Format(PyExc_ValueError, "device_run: bad op '%s', dtype '%s' or trans '%s'", op, fmt,
                     trans);
        return NULL;
    }
    look_up();
    if (api.missing) {
        PyErr_Format(PyExc_RuntimeError,
                     "this liblinsolve has no device API (%s not found): rebuild it with CUDA",
                     api.missing);
        return NULL;
    }
    lsx_ctx *c = lsx_context_get(LS_BACKEND_CUDA, device);
    if (!c)
        return NULL;
    int st = 0;
    Py_ssize_t failed = -1;
    char msg[512] = "";
    /* Stream handle 0 is the legacy default stream (cudaStreamLegacy, 1)
     * for the array libraries; NULL would mean the context's own stream. */
    void *stream = (void *)(uintptr_t)(j.stream ? j.stream : 1);
    Py_BEGIN_ALLOW_THREADS
    lsx_context_lock(c);
    st = api.set_stream(c->ctx, stream);
    for (Py_ssize_t i = 0; st == 0 && i < j.count; i++)
        if ((st = one(&j, c->ctx, i)) != 0)
            failed = i;
    if (st)
        snprintf(msg, sizeof msg, "%s", ls_context_error(c->ctx));
    /* Later calls must not find a stream of the caller's that may be gone. */
    api.set_stream(c->ctx, NULL);
    lsx_context_unlock(c);
    Py_END_ALLOW_THREADS
    return lsx_outcome(st, failed, msg, "");
}
