/* The planner's front door (ls_solve_problem) for the Python package's
 * device work: dense systems and strided stacks in memory that PyTorch,
 * CuPy or another CUDA array library allocated, queued on that library's
 * stream; and sparse (CSR) systems in host memory solved on a chosen
 * backend (a CUDA context runs cuDSS or the Krylov solvers there). */
#include "lsx.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* The report as a dict (lsx_summary_dict's keys, plus the planner's path,
 * why and the number of systems). */
static PyObject *report_dict(const ls_report *rep, int status)
{
    lsx_summary s;
    lsx_summary_init(&s);
    lsx_summary_add(&s, rep, status, (Py_ssize_t)rep->index);
    s.batch = (Py_ssize_t)rep->batch;
    s.index = (Py_ssize_t)rep->index;
    PyObject *d = lsx_summary_dict(&s);
    lsx_summary_free(&s);
    if (!d)
        return NULL;
    PyObject *path = PyUnicode_DecodeUTF8(rep->path, strlen(rep->path), "replace");
    PyObject *why = PyUnicode_DecodeUTF8(rep->why, strlen(rep->why), "replace");
    int bad = !path || !why || PyDict_SetItemString(d, "path", path) ||
              PyDict_SetItemString(d, "why", why);
    Py_XDECREF(path);
    Py_XDECREF(why);
    if (bad) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* device_solve(dtype, device, stream, stack, layout, n, nrhs, batch, a, lda, stride_a, b, ldb,
 *              stride_b, info, ipiv, policy, method, want_report)
 *   -> (status, index, t_total, gflops, residual, message, report or None)
 * a, b, info and ipiv are device addresses of `device`; b holds X on return.
 * info (batch ints, or 0) receives each system's LAPACK info, ipiv (n ints
 * for one system, or 0) its pivots. Given info (and, for one column-major
 * system, ipiv), the planner only queues the solve on the stream and this
 * returns without waiting for the device: the caller reads info. The
 * report dict is built only when asked or on failure: it costs more than a
 * small solve's overhead budget. */
PyObject *lsx_py_device_solve(PyObject *self, PyObject *args)
{
    const char *fmt, *method;
    int device, stack, layout, n, nrhs, lda, ldb, policy, want;
    Py_ssize_t batch;
    unsigned long long stream, a, b, info, ipiv;
    long long stride_a, stride_b;
    if (!PyArg_ParseTuple(args, "siKiiiinKiLKiLKKizp", &fmt, &device, &stream, &stack, &layout,
                          &n, &nrhs, &batch, &a, &lda, &stride_a, &b, &ldb, &stride_b, &info,
                          &ipiv, &policy, &method, &want))
        return NULL;
    if ((fmt[0] != 'd' && fmt[0] != 'f') || fmt[1] || batch < 0 || batch > INT_MAX ||
        policy < LS_POLICY_AUTO || policy > LS_POLICY_MIXED) {
        PyErr_Format(PyExc_ValueError, "device_solve: bad dtype '%s', batch %zd or policy %d",
                     fmt, batch, policy);
        return NULL;
    }
    lsx_ctx *c = lsx_context_get(LS_BACKEND_CUDA, device);
    if (!c)
        return NULL;
    ls_problem p;
    ls_problem_init(&p);
    p.shape = stack ? LS_SHAPE_STACK : LS_SHAPE_DENSE;
    p.dtype = fmt[0] == 'd' ? LS_FLOAT64 : LS_FLOAT32;
    p.memory = LS_MEMORY_DEVICE;
    p.layout = layout ? LS_ROW_MAJOR : LS_COL_MAJOR;
    p.n = n;
    p.nrhs = nrhs;
    p.batch = stack ? (int)batch : 1;
    p.A = (void *)(uintptr_t)a;
    p.lda = lda;
    p.strideA = stride_a;
    p.B = (void *)(uintptr_t)b;
    p.ldb = ldb;
    p.strideB = stride_b;
    p.info = (int *)(uintptr_t)info;
    p.ipiv = (int *)(uintptr_t)ipiv;
    p.policy = (ls_policy)policy;
    p.method = method;
    ls_options opt;
    ls_options_init(&opt);
    /* The caller checks on the device with its array library, reading one
     * scalar back: the planner's host-side check is for host memory. */
    opt.check = 0;
    opt.refine = 0;
    ls_report rep;
    int st;
    /* Stream handle 0 is the legacy default stream (cudaStreamLegacy, 1)
     * for the array libraries; NULL would mean the context's own stream. */
    void *s = (void *)(uintptr_t)(stream ? stream : 1);
    Py_BEGIN_ALLOW_THREADS
    lsx_context_lock(c);
    st = lsx_device_stream(c->ctx, s);
    if (st) {
        memset(&rep, 0, sizeof rep);
        rep.index = -1;
        rep.residual = NAN;
        snprintf(rep.message, sizeof rep.message, "%s", ls_context_error(c->ctx));
    } else
        st = ls_solve_problem(c->ctx, &opt, &p, &rep);
    /* Later calls must not find a stream of the caller's that may be gone. */
    lsx_device_stream(c->ctx, NULL);
    lsx_context_unlock(c);
    Py_END_ALLOW_THREADS
    PyObject *d = Py_None;
    if (want || st) {
        d = report_dict(&rep, st);
        if (!d) {
            ls_report_clear(&rep);
            return NULL;
        }
    } else
        Py_INCREF(d);
    PyObject *out = Py_BuildValue("(iLdddNN)", st, (long long)rep.index, rep.t_total, rep.gflops,
                                  rep.residual,
                                  PyUnicode_DecodeUTF8(rep.message, strlen(rep.message), "replace"),
                                  d);
    ls_report_clear(&rep);
    return out;
}

/* device_check(dtype, device, stream, n, nrhs, batch, layout_a, a, lda, stride_a, layout_b, b,
 *              ldb, stride_b, layout_x, x, ldx, stride_x, out) -> (status, message)
 * ls_check_batched_gpu on the caller's stream: the scaled residual of X
 * (x 0: none, finiteness only) and the finiteness of A and B, reduced over
 * the systems into out, 4 doubles of device memory, which the caller reads
 * with whatever else it reads back (layouts: 0 column-, 1 row-major). */
PyObject *lsx_py_device_check(PyObject *self, PyObject *args)
{
    const char *fmt;
    int device, n, nrhs, layout[3], ld[3];
    Py_ssize_t batch;
    unsigned long long stream, ptr[3], out;
    long long stride[3];
    if (!PyArg_ParseTuple(args, "siKiiniKiLiKiLiKiLK", &fmt, &device, &stream, &n, &nrhs, &batch,
                          &layout[0], &ptr[0], &ld[0], &stride[0], &layout[1], &ptr[1], &ld[1],
                          &stride[1], &layout[2], &ptr[2], &ld[2], &stride[2], &out))
        return NULL;
    if ((fmt[0] != 'd' && fmt[0] != 'f') || fmt[1] || batch < 0 || batch > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "device_check: bad dtype '%s' or batch %zd", fmt, batch);
        return NULL;
    }
    lsx_ctx *c = lsx_context_get(LS_BACKEND_CUDA, device);
    if (!c)
        return NULL;
    lsx_strided m[3];
    for (int k = 0; k < 3; k++) {
        m[k].layout = layout[k] ? LS_ROW_MAJOR : LS_COL_MAJOR;
        m[k].ptr = (const void *)(uintptr_t)ptr[k];
        m[k].ld = ld[k];
        m[k].stride = stride[k];
    }
    char msg[512] = "";
    int st;
    /* Stream handle 0 is the legacy default stream (cudaStreamLegacy, 1). */
    void *s = (void *)(uintptr_t)(stream ? stream : 1);
    Py_BEGIN_ALLOW_THREADS
    lsx_context_lock(c);
    st = lsx_device_stream(c->ctx, s);
    if (st == 0)
        st = lsx_check_batched(fmt[0] == 'd' ? LS_DOUBLE : LS_SINGLE, n, nrhs, m, (int)batch,
                               (double *)(uintptr_t)out, c->ctx);
    if (st)
        snprintf(msg, sizeof msg, "%s",
                 st == LS_EUNAVAIL && !ls_context_error(c->ctx)[0]
                     ? "this liblinsolve has no ls_check_batched_gpu: rebuild it from this source"
                     : ls_context_error(c->ctx));
    lsx_device_stream(c->ctx, NULL);
    lsx_context_unlock(c);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("(iN)", st, PyUnicode_DecodeUTF8(msg, strlen(msg), "replace"));
}

/* csr_solve_on(backend, device, n, indptr, indices, data, b, nrhs, method, check)
 *   -> (status, index, report)
 * A sparse system in host memory (int64 indptr and indices, float64 data,
 * each C-contiguous) solved through the planner on the named backend's
 * context; b is a writable column-major float64 n x nrhs block that holds
 * X on return. */
PyObject *lsx_py_csr_solve_on(PyObject *self, PyObject *args)
{
    PyObject *backend;
    const char *method;
    int device, n, nrhs, check;
    Py_buffer ptr, idx, val, b;
    if (!PyArg_ParseTuple(args, "Oiiy*y*y*w*izp", &backend, &device, &n, &ptr, &idx, &val, &b,
                          &nrhs, &method, &check))
        return NULL;
    PyObject *out = NULL;
    ls_backend_kind kind;
    Py_ssize_t nnz = val.len / (Py_ssize_t)sizeof(double);
    if (n < 0 || nrhs < 0 || ptr.len != (Py_ssize_t)sizeof(int64_t) * ((Py_ssize_t)n + 1) ||
        idx.len != (Py_ssize_t)sizeof(int64_t) * nnz ||
        b.len != (Py_ssize_t)sizeof(double) * n * nrhs) {
        PyErr_SetString(PyExc_ValueError, "csr_solve_on: array sizes do not fit n, nnz, nrhs");
        goto done;
    }
    if (lsx_parse_backend(backend, &kind))
        goto done;
    lsx_ctx *c = lsx_context_get(kind, device);
    if (!c)
        goto done;
    ls_csr csr = {n, n, (int64_t)nnz, (int64_t *)ptr.buf, (int64_t *)idx.buf, (double *)val.buf};
    ls_problem p;
    ls_problem_init(&p);
    p.shape = LS_SHAPE_CSR;
    p.n = n;
    p.nrhs = nrhs;
    p.B = b.buf;
    p.ldb = n > 1 ? n : 1;
    p.csr = &csr;
    p.method = method;
    ls_options opt;
    ls_options_init(&opt);
    opt.check = check;
    ls_report rep;
    int st;
    Py_BEGIN_ALLOW_THREADS
    lsx_context_lock(c);
    st = ls_solve_problem(c->ctx, &opt, &p, &rep);
    lsx_context_unlock(c);
    Py_END_ALLOW_THREADS
    PyObject *d = report_dict(&rep, st);
    if (d)
        out = Py_BuildValue("(iLN)", st, (long long)rep.index, d);
    ls_report_clear(&rep);
done:
    PyBuffer_Release(&ptr);
    PyBuffer_Release(&idx);
    PyBuffer_Release(&val);
    PyBuffer_Release(&b);
    return out;
}
